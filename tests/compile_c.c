/* compile_c.c - the header alone, built by `make compile-matrix` as C99 and C11 (gcc, clang),
   as C++17 (g++, clang++) and with -DTT_STATIC, all with -Wall -Wextra -Wpedantic -Werror.

   It includes the header twice (the include guard and the implementation guard must hold),
   calls a few functions, and takes the address of every public function: with TT_STATIC a
   declared function that the implementation forgot to define is then an error, and no
   public function counts as "defined but not used". */
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"
#include "../tinytrace.h"

typedef void (*cc_fn)(void);

#define CC_FN(f) (cc_fn)(f)

static const cc_fn cc_api[] = {
    CC_FN(tt_version), CC_FN(tt_status_str), CC_FN(tt_dtype_name), CC_FN(tt_dtype_size),
    CC_FN(tt_f32_to_f16), CC_FN(tt_f16_to_f32), CC_FN(tt_f32_to_bf16), CC_FN(tt_bf16_to_f32),
    CC_FN(tt_ctx_desc_default), CC_FN(tt_ctx_create), CC_FN(tt_ctx_destroy), CC_FN(tt_error),
    CC_FN(tt_ctx_status), CC_FN(tt_clear_error), CC_FN(tt_ctx_used), CC_FN(tt_ctx_check_guards),
    CC_FN(tt_scope_begin), CC_FN(tt_scope_end),
    /* creation */
    CC_FN(tt_empty), CC_FN(tt_zeros), CC_FN(tt_ones), CC_FN(tt_full), CC_FN(tt_scalar),
    CC_FN(tt_arange), CC_FN(tt_linspace), CC_FN(tt_eye), CC_FN(tt_from_data), CC_FN(tt_wrap),
    CC_FN(tt_rand), CC_FN(tt_randn),
    /* access */
    CC_FN(tt_is_contiguous), CC_FN(tt_data), CC_FN(tt_item), CC_FN(tt_copy_to_f32), CC_FN(tt_get),
    CC_FN(tt_same_shape),
    /* views */
    CC_FN(tt_reshape), CC_FN(tt_view), CC_FN(tt_permute), CC_FN(tt_transpose), CC_FN(tt_slice),
    CC_FN(tt_expand), CC_FN(tt_squeeze), CC_FN(tt_unsqueeze), CC_FN(tt_flatten),
    CC_FN(tt_contiguous), CC_FN(tt_clone),
    /* unary */
    CC_FN(tt_neg), CC_FN(tt_abs), CC_FN(tt_sign), CC_FN(tt_exp), CC_FN(tt_log), CC_FN(tt_sqrt),
    CC_FN(tt_rsqrt), CC_FN(tt_reciprocal), CC_FN(tt_sin), CC_FN(tt_cos), CC_FN(tt_tanh),
    CC_FN(tt_sigmoid), CC_FN(tt_relu), CC_FN(tt_leaky_relu), CC_FN(tt_elu), CC_FN(tt_gelu),
    CC_FN(tt_gelu_tanh), CC_FN(tt_silu), CC_FN(tt_hardswish), CC_FN(tt_softplus), CC_FN(tt_erf), CC_FN(tt_floor),
    CC_FN(tt_ceil), CC_FN(tt_round), CC_FN(tt_clamp), CC_FN(tt_pow_scalar),
    /* binary */
    CC_FN(tt_add), CC_FN(tt_sub), CC_FN(tt_mul), CC_FN(tt_div), CC_FN(tt_pow), CC_FN(tt_atan2), CC_FN(tt_maximum),
    CC_FN(tt_minimum), CC_FN(tt_add_scalar), CC_FN(tt_sub_scalar), CC_FN(tt_mul_scalar),
    CC_FN(tt_div_scalar),
    /* comparison, logical, where, cast */
    CC_FN(tt_eq), CC_FN(tt_ne), CC_FN(tt_lt), CC_FN(tt_le), CC_FN(tt_gt), CC_FN(tt_ge),
    CC_FN(tt_logical_and), CC_FN(tt_logical_or), CC_FN(tt_logical_not), CC_FN(tt_where),
    CC_FN(tt_cast),
    /* reductions */
    CC_FN(tt_sum), CC_FN(tt_mean), CC_FN(tt_max), CC_FN(tt_min), CC_FN(tt_prod), CC_FN(tt_var),
    CC_FN(tt_std), CC_FN(tt_argmax), CC_FN(tt_argmin), CC_FN(tt_softmax), CC_FN(tt_log_softmax),
    /* normalization, linear algebra */
    CC_FN(tt_layer_norm), CC_FN(tt_rms_norm), CC_FN(tt_batch_norm), CC_FN(tt_group_norm),
    CC_FN(tt_matmul), CC_FN(tt_linear),
    /* convolution and pooling */
    CC_FN(tt_conv2d), CC_FN(tt_conv2d_ex), CC_FN(tt_conv1d), CC_FN(tt_max_pool2d),
    CC_FN(tt_avg_pool2d), CC_FN(tt_adaptive_avg_pool2d), CC_FN(tt_upsample_nearest),
    /* shape and indexing */
    CC_FN(tt_concat), CC_FN(tt_stack), CC_FN(tt_split), CC_FN(tt_chunk), CC_FN(tt_pad),
    CC_FN(tt_gather), CC_FN(tt_index_select), CC_FN(tt_embedding), CC_FN(tt_repeat_interleave),
    CC_FN(tt_flip), CC_FN(tt_tile), CC_FN(tt_shape_as_tensor),
    /* the forms exported models use: N-D and transposed convolution, pooling, resizing */
    CC_FN(tt_from_int64), CC_FN(tt_pad_ex), CC_FN(tt_conv3d), CC_FN(tt_conv_ex), CC_FN(tt_conv_transpose1d),
    CC_FN(tt_conv_transpose2d), CC_FN(tt_conv_transpose_ex), CC_FN(tt_max_pool1d), CC_FN(tt_avg_pool1d),
    CC_FN(tt_max_pool_ex), CC_FN(tt_avg_pool_ex), CC_FN(tt_upsample_nearest_scale), CC_FN(tt_upsample_bilinear),
    CC_FN(tt_upsample_bilinear_scale),
    /* access with call sites, threads */
    CC_FN(tt_data_at), CC_FN(tt_item_at), CC_FN(tt_copy_to_f32_at), CC_FN(tt_get_at), CC_FN(tt_ctx_num_threads), CC_FN(tt_ctx_isa),
    /* tracing, graphs, compiled functions */
    CC_FN(tt_trace_begin), CC_FN(tt_trace_input), CC_FN(tt_is_tracing), CC_FN(tt_trace_end), CC_FN(tt_graph_compile),
    CC_FN(tt_graph_run), CC_FN(tt_graph_bind), CC_FN(tt_graph_output), CC_FN(tt_graph_num_inputs),
    CC_FN(tt_graph_num_outputs), CC_FN(tt_graph_num_nodes), CC_FN(tt_graph_error), CC_FN(tt_graph_status),
    CC_FN(tt_graph_clear_error), CC_FN(tt_graph_num_warnings), CC_FN(tt_graph_warning), CC_FN(tt_graph_get_stats),
    CC_FN(tt_graph_set_debug), CC_FN(tt_graph_check), CC_FN(tt_graph_dot), CC_FN(tt_graph_str), CC_FN(tt_graph_destroy),
    CC_FN(tt_trace), CC_FN(tt_compiled_create), CC_FN(tt_compiled_run), CC_FN(tt_compiled_output),
    CC_FN(tt_compiled_num_graphs), CC_FN(tt_compiled_error), CC_FN(tt_compiled_status), CC_FN(tt_compiled_destroy),
    CC_FN(tt_graph_save_memory), CC_FN(tt_graph_load_memory), CC_FN(tt_graph_input_name), CC_FN(tt_graph_input_shape),
    CC_FN(tt_safetensors_open_memory), CC_FN(tt_safetensors_count), CC_FN(tt_safetensors_entry_at),
    CC_FN(tt_safetensors_find), CC_FN(tt_safetensors_tensor), CC_FN(tt_safetensors_get), CC_FN(tt_safetensors_metadata),
    /* attention, debug */
    CC_FN(tt_scaled_dot_product_attention), CC_FN(tt_shape_str),
#ifndef TT_NO_STDIO
    CC_FN(tt_print), CC_FN(tt_graph_print), CC_FN(tt_graph_save), CC_FN(tt_graph_load), CC_FN(tt_safetensors_open),
#endif
    (cc_fn)0
};

int main(void) {
    size_t i, n = 0;
    int64_t shape[2] = {2, 3};
    tt_ctx *c = tt_ctx_create(NULL);
    tt_tensor *x, *y;
    char buf[32];
    for (i = 0; cc_api[i]; i++) n++;
    if (!c) return 1;
    x = tt_randn(c, 1, 2, shape);
    y = tt_sum(c, tt_relu(c, x), NULL, 0, false);
    (void)tt_shape_str(x, buf, sizeof buf);
    if (!y || tt_ctx_status(c) != TT_OK || n == 0 || tt_version()[0] == '\0') {
        tt_ctx_destroy(c);
        return 1;
    }
    tt_ctx_destroy(c);
    return 0;
}
