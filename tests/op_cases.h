/* op_cases.h - one small graph per public op (the bodies are zoo_models.h's TR_OP), with the
   inputs each takes: the table that tests/test_trace.c runs against eager (every op recorded,
   hostile attributes) and tests/test_cuda.c runs on the GPU backend against the CPU.
   Include tinytrace.h, test_util.h and zoo_models.h first. */
#ifndef TT_OP_CASES_H
#define TT_OP_CASES_H

typedef tt_tensor *(*tr_apply_fn)(tt_ctx *c, tt_tensor *const *xs, const void *w);

enum { TR_F = 0, TR_POS = 1, TR_I = 2, TR_B = 3 };

/* An input of the given kind: randn, rand+0.5 (positive), i32 in [0,hi), or randn > 0. */
static inline tt_tensor *tr_make_input(tt_ctx *c, int kind, int hi, uint64_t seed, int ndim, const int64_t *shape) {
    switch (kind) {
    case TR_POS: return tt_add_scalar(c, tt_rand(c, seed, ndim, shape), 0.5f);
    case TR_I:   return tt_cast(c, tt_mul_scalar(c, tt_rand(c, seed, ndim, shape), (float)hi), TT_I32);
    case TR_B:   return tt_gt(c, tt_randn(c, seed, ndim, shape), tt_scalar(c, 0.0f));
    default:     return tt_randn(c, seed, ndim, shape);
    }
}

/* An op that were not recorded would leave its eager result as a constant of the graph (it is
   a tensor made during the trace), so the graph would repeat the traced values on new inputs.
   The bodies, tr_op_<name> (TR_OP), are in zoo_models.h; the table gives their inputs. */

typedef struct tr_op_case {
    const char *name;
    tr_apply_fn fn;
    int         nodes;        /* 0: not checked */
    const char *text;         /* in tt_graph_str ('|': alternatives) */
    int         n_in;
    int         kind[2], hi[2], ndim[2];
    int64_t     shape[2][4];
} tr_op_case;

static const tr_op_case tr_op_cases[] = {
    {"neg", tr_op_neg, 1, "neg(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"abs", tr_op_abs, 1, "abs(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sign", tr_op_sign, 1, "sign(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"exp", tr_op_exp, 1, "exp(", 1, {TR_F, 0}, {0, 0}, {1, 0}, {{1001, 0, 0, 0}, {0, 0, 0, 0}}},
    {"log", tr_op_log, 1, "log(", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sqrt", tr_op_sqrt, 1, "sqrt(", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"rsqrt", tr_op_rsqrt, 1, "rsqrt(", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"reciprocal", tr_op_reciprocal, 1, "reciprocal(", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sin", tr_op_sin, 1, "sin(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"cos", tr_op_cos, 1, "cos(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"tanh", tr_op_tanh, 1, "tanh(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sigmoid", tr_op_sigmoid, 1, "sigmoid(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"relu", tr_op_relu, 1, "relu(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"leaky_relu", tr_op_leaky_relu, 1, "leaky_relu(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"elu", tr_op_elu, 1, "elu(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"gelu", tr_op_gelu, 1, "gelu(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"gelu_tanh", tr_op_gelu_tanh, 1, "gelu_tanh(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"silu", tr_op_silu, 1, "silu(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"softplus", tr_op_softplus, 1, "softplus(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"erf", tr_op_erf, 1, "erf(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"floor", tr_op_floor, 2, "floor(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"ceil", tr_op_ceil, 2, "ceil(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"round", tr_op_round, 2, "round(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"clamp", tr_op_clamp, 1, "clamp(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"pow_scalar", tr_op_pow_scalar, 1, "pow", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"add", tr_op_add, 1, "add(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"sub", tr_op_sub, 1, "sub(", 2, {TR_F, TR_F}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"mul", tr_op_mul, 1, "mul(", 2, {TR_F, TR_F}, {0, 0}, {3, 4}, {{3, 1, 5, 0}, {2, 1, 4, 1}}},
    {"div", tr_op_div, 1, "div(", 2, {TR_F, TR_POS}, {0, 0}, {3, 1}, {{3, 4, 5, 0}, {5, 0, 0, 0}}},
    {"pow", tr_op_pow, 1, "pow(", 2, {TR_POS, TR_F}, {0, 0}, {3, 1}, {{3, 4, 5, 0}, {5, 0, 0, 0}}},
    {"maximum", tr_op_maximum, 1, "maximum(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 5, 0, 0}}},
    {"minimum", tr_op_minimum, 1, "minimum(", 2, {TR_F, TR_F}, {0, 0}, {3, 3}, {{3, 4, 5, 0}, {3, 4, 1, 0}}},
    {"add_scalar", tr_op_add_scalar, 1, "add(|add_scalar(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sub_scalar", tr_op_sub_scalar, 1, "sub(|sub_scalar(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"mul_scalar", tr_op_mul_scalar, 1, "mul(|mul_scalar(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"div_scalar", tr_op_div_scalar, 1, "div(|div_scalar(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"eq", tr_op_eq, 3, "eq(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"ne", tr_op_ne, 3, "ne(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"lt", tr_op_lt, 1, "lt(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"le", tr_op_le, 1, "le(", 2, {TR_F, TR_F}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"gt", tr_op_gt, 1, "gt(", 2, {TR_F, TR_F}, {0, 0}, {3, 1}, {{3, 4, 5, 0}, {5, 0, 0, 0}}},
    {"ge", tr_op_ge, 1, "ge(", 2, {TR_F, TR_F}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"logical_and", tr_op_logical_and, 1, "logical_and(", 2, {TR_B, TR_B}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"logical_or", tr_op_logical_or, 1, "logical_or(", 2, {TR_B, TR_F}, {0, 0}, {3, 3}, {{3, 4, 5, 0}, {3, 4, 5, 0}}},
    {"logical_not", tr_op_logical_not, 1, "logical_not(", 1, {TR_B, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"where", tr_op_where, 1, "where(", 2, {TR_F, TR_B}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"cast_f16", tr_op_cast_f16, 1, "cast(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"cast_bf16", tr_op_cast_bf16, 1, "cast(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"cast_i32", tr_op_cast_i32, 2, "cast(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"cast_bool", tr_op_cast_bool, 2, "cast(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"cast_from_i32", tr_op_cast_from_i32, 1, "cast(", 1, {TR_I, 0}, {100, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"sum", tr_op_sum, 1, "sum(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"mean", tr_op_mean, 1, "mean(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"max_all", tr_op_max_all, 1, "max(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{33, 37, 0, 0}, {0, 0, 0, 0}}},
    {"min", tr_op_min, 1, "min(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"prod", tr_op_prod, 1, "prod(", 1, {TR_POS, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"var", tr_op_var, 1, "var(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"std", tr_op_std, 1, "std(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"argmax", tr_op_argmax, 1, "argmax(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"argmin", tr_op_argmin, 1, "argmin(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"softmax", tr_op_softmax, 1, "softmax(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"log_softmax", tr_op_log_softmax, 1, "log_softmax(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"layer_norm", tr_op_layer_norm, 1, "layer_norm(", 2, {TR_F, TR_F}, {0, 0}, {3, 1}, {{3, 4, 5, 0}, {5, 0, 0, 0}}},
    {"layer_norm2", tr_op_layer_norm2, 1, "layer_norm(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"rms_norm", tr_op_rms_norm, 1, "rms_norm(", 2, {TR_F, TR_F}, {0, 0}, {3, 1}, {{3, 4, 5, 0}, {5, 0, 0, 0}}},
    {"batch_norm", tr_op_batch_norm, 1, "batch_norm(", 2, {TR_F, TR_POS}, {0, 0}, {4, 1}, {{2, 3, 4, 5}, {3, 0, 0, 0}}},
    {"group_norm", tr_op_group_norm, 1, "group_norm(", 1, {TR_F, 0}, {0, 0}, {4, 0}, {{2, 4, 3, 3}, {0, 0, 0, 0}}},
    {"matmul", tr_op_matmul, 1, "matmul(", 2, {TR_F, TR_F}, {0, 0}, {3, 4}, {{3, 4, 5, 0}, {2, 1, 5, 3}}},
    {"matmul_dot", tr_op_matmul_dot, 1, "matmul(", 2, {TR_F, TR_F}, {0, 0}, {1, 1}, {{33, 0, 0, 0}, {33, 0, 0, 0}}},
    {"linear", tr_op_linear, 1, "linear(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {6, 5, 0, 0}}},
    {"conv2d", tr_op_conv2d, 1, "conv2d(", 2, {TR_F, TR_F}, {0, 0}, {4, 4}, {{2, 3, 9, 9}, {4, 3, 3, 3}}},
    {"conv2d_ex", tr_op_conv2d_ex, 1, "conv2d", 2, {TR_F, TR_F}, {0, 0}, {4, 4}, {{2, 3, 9, 8}, {4, 3, 3, 2}}},
    {"conv1d", tr_op_conv1d, 1, "conv1d(", 2, {TR_F, TR_F}, {0, 0}, {3, 3}, {{2, 4, 11, 0}, {6, 2, 3, 0}}},
    {"max_pool2d", tr_op_max_pool2d, 1, "max_pool(", 1, {TR_F, 0}, {0, 0}, {4, 0}, {{2, 3, 9, 9}, {0, 0, 0, 0}}},
    {"avg_pool2d", tr_op_avg_pool2d, 1, "avg_pool(", 1, {TR_F, 0}, {0, 0}, {4, 0}, {{2, 3, 9, 9}, {0, 0, 0, 0}}},
    {"adaptive_avg_pool2d", tr_op_adaptive_avg_pool2d, 1, "adaptive_avg_pool2d(", 1, {TR_F, 0}, {0, 0}, {4, 0}, {{2, 3, 9, 7}, {0, 0, 0, 0}}},
    {"upsample_nearest", tr_op_upsample_nearest, 1, "upsample_nearest(", 1, {TR_F, 0}, {0, 0}, {4, 0}, {{1, 2, 3, 4}, {0, 0, 0, 0}}},
    {"concat", tr_op_concat, 1, "concat(", 2, {TR_F, TR_F}, {0, 0}, {3, 3}, {{3, 4, 5, 0}, {3, 2, 5, 0}}},
    {"stack", tr_op_stack, 1, "stack(", 2, {TR_F, TR_F}, {0, 0}, {3, 3}, {{3, 4, 5, 0}, {3, 4, 5, 0}}},
    {"split", tr_op_split, 0, "split(|slice(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{6, 4, 0, 0}, {0, 0, 0, 0}}},
    {"chunk", tr_op_chunk, 0, "chunk(|slice(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{7, 4, 0, 0}, {0, 0, 0, 0}}},
    {"pad", tr_op_pad, 1, "pad(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"gather", tr_op_gather, 1, "gather(", 2, {TR_F, TR_I}, {0, 4}, {3, 3}, {{3, 4, 5, 0}, {3, 7, 5, 0}}},
    {"index_select", tr_op_index_select, 1, "index_select(", 2, {TR_F, TR_I}, {0, 5}, {3, 1}, {{3, 4, 5, 0}, {7, 0, 0, 0}}},
    {"embedding", tr_op_embedding, 1, "embedding(", 2, {TR_F, TR_I}, {0, 10}, {2, 2}, {{10, 4, 0, 0}, {3, 5, 0, 0}}},
    {"repeat_interleave", tr_op_repeat_interleave, 1, "repeat_interleave(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"flip", tr_op_flip, 1, "flip(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"tile", tr_op_tile, 1, "tile(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"shape_as_tensor", tr_op_shape_as_tensor, 2, "shape_as_tensor(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{2, 4, 3, 0}, {0, 0, 0, 0}}},
    {"sdpa", tr_op_sdpa, 1, "scaled_dot_product_attention(", 2, {TR_F, TR_F}, {0, 0}, {3, 3}, {{2, 5, 8, 0}, {2, 6, 8, 0}}},
    {"sdpa_causal", tr_op_sdpa_causal, 1, "scaled_dot_product_attention(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{2, 5, 8, 0}, {0, 0, 0, 0}}},
    {"sdpa_mask", tr_op_sdpa_mask, 1, "scaled_dot_product_attention(", 2, {TR_F, TR_B}, {0, 0}, {3, 3}, {{2, 5, 8, 0}, {1, 5, 5, 0}}},
    {"reshape", tr_op_reshape, 1, "reshape(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"view", tr_op_view, 1, "view(|reshape(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"permute", tr_op_permute, 1, "permute(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"transpose", tr_op_transpose, 1, "transpose(|permute(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"slice", tr_op_slice, 1, "slice(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"expand", tr_op_expand, 1, "expand(", 2, {TR_F, TR_F}, {0, 0}, {3, 2}, {{3, 4, 5, 0}, {4, 1, 0, 0}}},
    {"squeeze", tr_op_squeeze, 1, "squeeze(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 1, 5, 0}, {0, 0, 0, 0}}},
    {"unsqueeze", tr_op_unsqueeze, 1, "unsqueeze(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"flatten", tr_op_flatten, 1, "flatten(|reshape(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"contiguous", tr_op_contiguous, 2, "contiguous(|copy(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"clone", tr_op_clone, 1, "clone(|copy(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"fuse_transpose", tr_op_fuse_transpose, 5, "sin(", 2, {TR_F, TR_F}, {0, 0}, {2, 2}, {{5, 7, 0, 0}, {7, 5, 0, 0}}},
    {"fuse_slice", tr_op_fuse_slice, 3, "exp(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{5, 7, 0, 0}, {0, 0, 0, 0}}},
    {"fuse_expand", tr_op_fuse_expand, 4, "expand(", 2, {TR_F, TR_F}, {0, 0}, {2, 2}, {{5, 7, 0, 0}, {5, 1, 0, 0}}},
    {"fuse_f16_round", tr_op_fuse_f16_round, 4, "cast(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{33, 37, 0, 0}, {0, 0, 0, 0}}},
    {"fuse_bf16_round", tr_op_fuse_bf16_round, 5, "cast(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{33, 37, 0, 0}, {0, 0, 0, 0}}},
    {"fuse_i32_trunc", tr_op_fuse_i32_trunc, 4, "cast(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{33, 37, 0, 0}, {0, 0, 0, 0}}},
    {"fuse_bool", tr_op_fuse_bool, 4, "gt(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{33, 37, 0, 0}, {0, 0, 0, 0}}},
    {"fuse_int_input", tr_op_fuse_int_input, 3, "tanh(", 2, {TR_I, TR_F}, {9, 0}, {2, 1}, {{33, 37, 0, 0}, {37, 0, 0, 0}}},
    {"fuse_int_compare", tr_op_fuse_int_compare, 5, "where(", 2, {TR_I, TR_F}, {4, 0}, {2, 2}, {{6, 7, 0, 0}, {1, 7, 0, 0}}},
    {"fuse_f16_input", tr_op_fuse_f16_input, 3, "exp(", 1, {TR_F, 0}, {0, 0}, {2, 0}, {{9, 11, 0, 0}, {0, 0, 0, 0}}},
    {"empty", tr_op_empty, 3, "sum(", 2, {TR_F, TR_F}, {0, 0}, {2, 1}, {{0, 5, 0, 0}, {5, 0, 0, 0}}},
    {"view_chain", tr_op_view_chain, 3, "exp(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {"view_of_result", tr_op_view_of_result, 7, "sin(", 1, {TR_F, 0}, {0, 0}, {3, 0}, {{3, 4, 5, 0}, {0, 0, 0, 0}}},
    {NULL, NULL, 0, NULL, 0, {0, 0}, {0, 0}, {0, 0}, {{0, 0, 0, 0}, {0, 0, 0, 0}}}
};

#endif
