/* zoo_models.h - the model zoo and the one-graph-per-op bodies of the tracer tests, written
   once for the two programs that run them:
     tests/test_trace.c    traces, compiles and runs each one and checks it bitwise against
                           eager, with exact node counts for the passes (part of `make test`);
     tests/hash_outputs.c  hashes every output of each one, eager and compiled, to compare a
                           changed tinytrace.h bitwise with an older one (tests/hash_compare.sh).

   Include tinytrace.h first: this header does not include it, so that each program picks its
   own (the tests "../tinytrace.h", hash_outputs.c the one on its -I path, which may be the
   0.4.0 baseline). Hence only API present in tinytrace 0.4.0 may be used here.

   What is here (every function static inline, so a file may use any subset of them):
   - tu_param(), tu_param1(), tu_param2(): a parameter made outside any trace (in a weights
                         context): randn(seed) * scale + shift (also used by test_passes.c);
   - tr_mlp_*:           MLP, linear-relu-linear-softmax;
   - tr_cnn_*:           SimpleCNN: two conv-batch_norm-relu-max_pool blocks, pool, linear;
   - tr_enc_*:           a transformer encoder layer, d_model 32, 4 heads, on [2,7,32];
   - tr_bbox_*:          bounding boxes divided by the image size taken from its shape;
   - tr_moe_*, TR_MOE_*: a mixture-of-experts router with masks and tt_where;
   - tr_mbv2_*, tr_cb_*: MobileNetV2's blocks, small (convolution + bias units, ReLU6);
   - tr_dead_apply, tr_cse_*_apply: small graphs with known node counts for DCE and CSE;
   - tr_chain_fwd/_apply: elementwise chains with broadcasting, a bool mask and an
                         intermediate that is also an output;
   - TR_OP(name, body) and its uses: tr_op_<name>, one small forward per public op.
   A model's weights come from its tr_*_make(weights ctx, ..., seed); each *_apply has the
   signature tt_tensor *(tt_ctx *, tt_tensor *const *xs, const void *weights) (test_trace.c's
   tr_apply_fn, hash_outputs.c's hz_fn). The node counts in the comments are what the tests
   check. Changing a model here changes both programs: the hashes of hash_outputs.c are only
   comparable between builds of the same copy of this file (hash_compare.sh builds both sides
   from it). */
#ifndef TT_ZOO_MODELS_H
#define TT_ZOO_MODELS_H

#ifndef TINYTRACE_H_INCLUDED
#error "include tinytrace.h before zoo_models.h"
#endif

#include <math.h>
#include <string.h>

/* ---- parameters ------------------------------------------------------------------------------ */

/* A parameter made outside any trace (in a weights context): randn(seed) * scale + shift. */
static inline tt_tensor *tu_param(tt_ctx *wc, uint64_t seed, int ndim, const int64_t *shape, float scale, float shift) {
    tt_tensor *t = tt_randn(wc, seed, ndim, shape);
    if (scale != 1.0f) t = tt_mul_scalar(wc, t, scale);
    if (shift != 0.0f) t = tt_add_scalar(wc, t, shift);
    return t;
}
static inline tt_tensor *tu_param1(tt_ctx *wc, uint64_t seed, int64_t n, float scale, float shift) {
    return tu_param(wc, seed, 1, &n, scale, shift);
}
static inline tt_tensor *tu_param2(tt_ctx *wc, uint64_t seed, int64_t a, int64_t b, float scale) {
    int64_t s[2];
    s[0] = a; s[1] = b;
    return tu_param(wc, seed, 2, s, scale, 0.0f);
}

/* ---- model 1: MLP, linear-relu-linear-softmax ---------------------------------------------- */

typedef struct tr_mlp_w { tt_tensor *w1, *b1, *w2, *b2; int in, hid, out; } tr_mlp_w;

static inline tr_mlp_w tr_mlp_make(tt_ctx *wc, int in, int hid, int out, uint64_t seed) {
    tr_mlp_w w;
    w.in = in; w.hid = hid; w.out = out;
    w.w1 = tu_param2(wc, seed, hid, in, 1.0f / sqrtf((float)in));
    w.b1 = tu_param1(wc, seed + 1, hid, 0.1f, 0.0f);
    w.w2 = tu_param2(wc, seed + 2, out, hid, 1.0f / sqrtf((float)hid));
    w.b2 = tu_param1(wc, seed + 3, out, 0.1f, 0.0f);
    return w;
}

static inline tt_tensor *tr_mlp_fwd(tt_ctx *c, tt_tensor *x, const tr_mlp_w *w) {
    tt_tensor *h = tt_relu(c, tt_linear(c, x, w->w1, w->b1));
    return tt_softmax(c, tt_linear(c, h, w->w2, w->b2), -1);
}
static inline tt_tensor *tr_mlp_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tr_mlp_fwd(c, xs[0], (const tr_mlp_w *)w);
}

/* ---- model 2: SimpleCNN --------------------------------------------------------------------- */

typedef struct tr_cnn_block_w { tt_tensor *w, *b, *mean, *var, *gamma, *beta; } tr_cnn_block_w;
typedef struct tr_cnn_w { tr_cnn_block_w b1, b2; tt_tensor *fw, *fb; } tr_cnn_w;

static inline tr_cnn_block_w tr_cnn_block_make(tt_ctx *wc, int cin, int cout, uint64_t seed) {
    tr_cnn_block_w b;
    int64_t ws[4];
    ws[0] = cout; ws[1] = cin; ws[2] = 3; ws[3] = 3;
    b.w = tu_param(wc, seed, 4, ws, 1.0f / sqrtf((float)(cin * 9)), 0.0f);
    b.b = tu_param1(wc, seed + 1, cout, 0.1f, 0.0f);
    b.mean = tu_param1(wc, seed + 2, cout, 0.1f, 0.0f);
    b.var = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &ws[0]), 0.5f);   /* in [0.5, 1.5) */
    b.gamma = tu_param1(wc, seed + 4, cout, 0.2f, 1.0f);
    b.beta = tu_param1(wc, seed + 5, cout, 0.1f, 0.0f);
    return b;
}

static inline tt_tensor *tr_cnn_block(tt_ctx *c, tt_tensor *x, const tr_cnn_block_w *b) {
    x = tt_conv2d(c, x, b->w, b->b, 1, 1, 1, 1);
    x = tt_batch_norm(c, x, b->mean, b->var, b->gamma, b->beta, 1e-5f);
    x = tt_relu(c, x);
    return tt_max_pool2d(c, x, 2, 0, 0);
}

static inline tt_tensor *tr_cnn_fwd(tt_ctx *c, tt_tensor *x, const tr_cnn_w *w) {
    tt_tensor *h = tr_cnn_block(c, x, &w->b1);          /* [2,32,16,16] */
    h = tr_cnn_block(c, h, &w->b2);                     /* [2,64,8,8] */
    h = tt_adaptive_avg_pool2d(c, h, 1, 1);             /* [2,64,1,1] */
    h = tt_flatten(c, h, 1, -1);                        /* [2,64] */
    return tt_linear(c, h, w->fw, w->fb);               /* [2,10] */
}
static inline tt_tensor *tr_cnn_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tr_cnn_fwd(c, xs[0], (const tr_cnn_w *)w);
}

/* ---- model 3: transformer encoder layer, d_model 32, 4 heads, on [2,7,32] ------------------ */

typedef struct tr_enc_w {
    tt_tensor *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
    tt_tensor *ln1w, *ln1b, *w1, *b1, *w2, *b2, *ln2w, *ln2b;
} tr_enc_w;

static inline tr_enc_w tr_enc_make(tt_ctx *wc, uint64_t seed) {
    tr_enc_w w;
    float s32 = 1.0f / sqrtf(32.0f), s64 = 0.125f;
    w.wq = tu_param2(wc, seed + 0, 32, 32, s32);  w.bq = tu_param1(wc, seed + 1, 32, 0.1f, 0.0f);
    w.wk = tu_param2(wc, seed + 2, 32, 32, s32);  w.bk = tu_param1(wc, seed + 3, 32, 0.1f, 0.0f);
    w.wv = tu_param2(wc, seed + 4, 32, 32, s32);  w.bv = tu_param1(wc, seed + 5, 32, 0.1f, 0.0f);
    w.wo = tu_param2(wc, seed + 6, 32, 32, s32);  w.bo = tu_param1(wc, seed + 7, 32, 0.1f, 0.0f);
    w.ln1w = tu_param1(wc, seed + 8, 32, 0.1f, 1.0f);  w.ln1b = tu_param1(wc, seed + 9, 32, 0.1f, 0.0f);
    w.w1 = tu_param2(wc, seed + 10, 64, 32, s32);  w.b1 = tu_param1(wc, seed + 11, 64, 0.1f, 0.0f);
    w.w2 = tu_param2(wc, seed + 12, 32, 64, s64);  w.b2 = tu_param1(wc, seed + 13, 32, 0.1f, 0.0f);
    w.ln2w = tu_param1(wc, seed + 14, 32, 0.1f, 1.0f);  w.ln2b = tu_param1(wc, seed + 15, 32, 0.1f, 0.0f);
    return w;
}

/* [2,7,32] -> [2,4,7,8]: 2 nodes (reshape, transpose). */
static inline tt_tensor *tr_heads(tt_ctx *c, tt_tensor *t) {
    int64_t s[4];
    s[0] = -1; s[1] = 7; s[2] = 4; s[3] = 8;
    return tt_transpose(c, tt_reshape(c, t, 4, s), 1, 2);
}

/* 21 nodes. */
static inline tt_tensor *tr_enc_fwd(tt_ctx *c, tt_tensor *x, const tr_enc_w *w) {
    int64_t s3[3];
    tt_tensor *q = tr_heads(c, tt_linear(c, x, w->wq, w->bq));
    tt_tensor *k = tr_heads(c, tt_linear(c, x, w->wk, w->bk));
    tt_tensor *v = tr_heads(c, tt_linear(c, x, w->wv, w->bv));
    tt_tensor *a = tt_scaled_dot_product_attention(c, q, k, v, NULL, false, 0.0f);   /* [2,4,7,8] */
    tt_tensor *h, *f;
    s3[0] = -1; s3[1] = 7; s3[2] = 32;
    a = tt_reshape(c, tt_contiguous(c, tt_transpose(c, a, 1, 2)), 3, s3);            /* [2,7,32] */
    h = tt_layer_norm(c, tt_add(c, x, tt_linear(c, a, w->wo, w->bo)), 1, w->ln1w, w->ln1b, 1e-5f);
    f = tt_linear(c, tt_gelu(c, tt_linear(c, h, w->w1, w->b1)), w->w2, w->b2);
    return tt_layer_norm(c, tt_add(c, h, f), 1, w->ln2w, w->ln2b, 1e-5f);
}
static inline tt_tensor *tr_enc_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tr_enc_fwd(c, xs[0], (const tr_enc_w *)w);
}

/* ---- model 4: bounding boxes divided by the image size taken from its shape ------------------ */

/* boxes [N,4] (x0,y0,x1,y1), image [B,C,H,W] -> boxes / [W,H,W,H]. 4 nodes (the index is a
   constant made during the trace). */
static inline tt_tensor *tr_bbox_fwd(tt_ctx *c, tt_tensor *boxes, tt_tensor *image) {
    static const int32_t pick[4] = {3, 2, 3, 2};
    int64_t four = 4;
    tt_tensor *shape = tt_cast(c, tt_shape_as_tensor(c, image), TT_F32);        /* [B,C,H,W] as f32 */
    tt_tensor *idx = tt_from_data(c, TT_I32, 1, &four, pick);
    tt_tensor *wh = tt_index_select(c, shape, 0, idx);                          /* [W,H,W,H] */
    return tt_div(c, boxes, wh);
}
static inline tt_tensor *tr_bbox_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tr_bbox_fwd(c, xs[0], xs[1]);
}

/* ---- model 5: mixture-of-experts router with masks and tt_where ----------------------------- */

#define TR_MOE_E 4
#define TR_MOE_T 9
#define TR_MOE_D 8

typedef struct tr_moe_w { tt_tensor *wg, *bg, *we[TR_MOE_E], *be[TR_MOE_E]; } tr_moe_w;

/* x [T,D]: top-1 expert by argmax of the gate, one-hot mask by comparing with arange, each
   expert's output selected by where, scaled by the gate probability. 18 nodes. */
static inline tt_tensor *tr_moe_fwd(tt_ctx *c, tt_tensor *x, const tr_moe_w *w) {
    int64_t zs[2];
    int one = 1, e;
    tt_tensor *logits = tt_linear(c, x, w->wg, w->bg);                           /* [T,E] */
    tt_tensor *top = tt_argmax(c, logits, 1, true);                              /* [T,1] i32 */
    tt_tensor *ids = tt_arange(c, TT_I32, 0.0, (double)TR_MOE_E, 1.0);          /* constant [E] */
    tt_tensor *mask = tt_eq(c, top, ids);                                        /* [T,E] bool */
    tt_tensor *gate = tt_max(c, tt_softmax(c, logits, 1), &one, 1, true);        /* [T,1] */
    tt_tensor *acc;
    zs[0] = TR_MOE_T; zs[1] = TR_MOE_D;
    acc = tt_zeros(c, TT_F32, 2, zs);                                            /* constant */
    for (e = 0; e < TR_MOE_E; e++) {
        tt_tensor *ye = tt_linear(c, x, w->we[e], w->be[e]);
        tt_tensor *sel = tt_slice(c, mask, 1, e, e + 1, 1);                      /* [T,1] */
        acc = tt_where(c, sel, ye, acc);
    }
    return tt_mul(c, acc, gate);
}
static inline tt_tensor *tr_moe_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tr_moe_fwd(c, xs[0], (const tr_moe_w *)w);
}

static inline tr_moe_w tr_moe_make(tt_ctx *wc, uint64_t seed) {
    tr_moe_w w;
    int e;
    w.wg = tu_param2(wc, seed, TR_MOE_E, TR_MOE_D, 1.0f);
    w.bg = tu_param1(wc, seed + 1, TR_MOE_E, 0.1f, 0.0f);
    for (e = 0; e < TR_MOE_E; e++) {
        w.we[e] = tu_param2(wc, seed + 10 + (uint64_t)e, TR_MOE_D, TR_MOE_D, 0.35f);
        w.be[e] = tu_param1(wc, seed + 20 + (uint64_t)e, TR_MOE_D, 0.1f, 0.0f);
    }
    return w;
}

/* ---- model 6: MobileNetV2's blocks, small ------------------------------------------------------ */

/* A convolution with its bias (a batch norm already folded in, as our pass or torch.fx's fuse
   does: a frozen graph with batch norm folds it and its results differ from eager's in the
   last bits, so this model has none): weight [cout, cin/groups, k, k]. */
typedef struct tr_cb_w { tt_tensor *w, *b; int k, stride, groups; } tr_cb_w;

static inline tr_cb_w tr_cb_make(tt_ctx *wc, uint64_t seed, int cin, int cout, int k, int stride, int groups) {
    tr_cb_w u;
    int64_t ws[4];
    ws[0] = cout; ws[1] = cin / groups; ws[2] = k; ws[3] = k;
    u.k = k; u.stride = stride; u.groups = groups;
    u.w = tu_param(wc, seed, 4, ws, 1.0f / sqrtf((float)(cin / groups * k * k)), 0.0f);
    u.b = tu_param1(wc, seed + 1, cout, 0.1f, 0.0f);
    return u;
}

/* The unit, then ReLU6 (relu6 != 0). */
static inline tt_tensor *tr_cb(tt_ctx *c, tt_tensor *x, const tr_cb_w *u, int relu6) {
    x = tt_conv2d(c, x, u->w, u->b, u->stride, u->k / 2, 1, u->groups);
    return relu6 ? tt_clamp(c, x, 0.0f, 6.0f) : x;
}

/* On [2,3,32,32]: a stem (3x3, stride 2, 32 channels), three inverted residual blocks (1x1
   expand, depthwise, 1x1 project; the second adds its input) to [2,56,8,8], a last 1x1 to 136
   channels, average pooling and a linear layer. Channel counts not multiples of 16 and the
   depthwise sizes (3x3 and 5x5 stride 2) reach every case of the channels-last kernels; the
   1x1 products are large enough for the packed GEMM (tinytrace's layout pass keeps the blocks
   channels-last). 21 nodes. */
typedef struct tr_mbv2_w { tr_cb_w stem, a_dw, a_pj, b_ex, b_dw, b_pj, c_ex, c_dw, c_pj, last; tt_tensor *fw, *fb; } tr_mbv2_w;

static inline tr_mbv2_w tr_mbv2_make(tt_ctx *wc, uint64_t seed) {
    tr_mbv2_w w;
    w.stem = tr_cb_make(wc, seed, 3, 32, 3, 2, 1);
    w.a_dw = tr_cb_make(wc, seed + 10, 32, 32, 3, 1, 32);
    w.a_pj = tr_cb_make(wc, seed + 20, 32, 40, 1, 1, 1);
    w.b_ex = tr_cb_make(wc, seed + 30, 40, 120, 1, 1, 1);
    w.b_dw = tr_cb_make(wc, seed + 40, 120, 120, 3, 1, 120);
    w.b_pj = tr_cb_make(wc, seed + 50, 120, 40, 1, 1, 1);
    w.c_ex = tr_cb_make(wc, seed + 60, 40, 120, 1, 1, 1);
    w.c_dw = tr_cb_make(wc, seed + 70, 120, 120, 5, 2, 120);
    w.c_pj = tr_cb_make(wc, seed + 80, 120, 56, 1, 1, 1);
    w.last = tr_cb_make(wc, seed + 90, 56, 136, 1, 1, 1);
    w.fw = tu_param2(wc, seed + 100, 10, 136, 0.1f);
    w.fb = tu_param1(wc, seed + 101, 10, 0.1f, 0.0f);
    return w;
}

static inline tt_tensor *tr_mbv2_fwd(tt_ctx *c, tt_tensor *x, const tr_mbv2_w *w) {
    x = tr_cb(c, x, &w->stem, 1);                                          /* [2,32,16,16] */
    x = tr_cb(c, tr_cb(c, x, &w->a_dw, 1), &w->a_pj, 0);                  /* [2,40,16,16] */
    x = tt_add(c, x, tr_cb(c, tr_cb(c, tr_cb(c, x, &w->b_ex, 1), &w->b_dw, 1), &w->b_pj, 0));
    x = tr_cb(c, tr_cb(c, tr_cb(c, x, &w->c_ex, 1), &w->c_dw, 1), &w->c_pj, 0);   /* [2,56,8,8] */
    x = tr_cb(c, x, &w->last, 1);                                          /* [2,136,8,8] */
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);
    return tt_linear(c, x, w->fw, w->fb);
}
static inline tt_tensor *tr_mbv2_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tr_mbv2_fwd(c, xs[0], (const tr_mbv2_w *)w);
}

/* ---- passes: small graphs with known node counts -------------------------------------------- */

/* Dead branch: exp(y) * x is never used. 4 nodes traced, 2 live. */
static inline tt_tensor *tr_dead_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *dead = tt_mul(c, tt_exp(c, xs[1]), xs[0]);
    (void)w;
    (void)dead;
    return tt_neg(c, tt_relu(c, xs[0]));
}
/* add(x,y) twice, then their product: 3 nodes traced, 2 after CSE. */
static inline tt_tensor *tr_cse_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_mul(c, tt_add(c, xs[0], xs[1]), tt_add(c, xs[0], xs[1]));
}
/* Equal calls whose attributes differ are not merged: 3 nodes before and after. */
static inline tt_tensor *tr_cse_attr_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_add(c, tt_leaky_relu(c, xs[0], 0.1f), tt_leaky_relu(c, xs[0], 0.2f));
}
/* Same attributes: merged (3 -> 2). */
static inline tt_tensor *tr_cse_attr_same_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_add(c, tt_leaky_relu(c, xs[0], 0.1f), tt_leaky_relu(c, xs[0], 0.1f));
}
/* Softmax over different axes of a square matrix: not merged (3). */
static inline tt_tensor *tr_cse_axis_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_sub(c, tt_softmax(c, xs[0], 0), tt_softmax(c, xs[0], 1));
}
/* Different inputs: add(x,y) and add(x,x) are not merged (3). */
static inline tt_tensor *tr_cse_inputs_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_mul(c, tt_add(c, xs[0], xs[1]), tt_add(c, xs[0], xs[0]));
}
/* Views are nodes and merge too: transpose twice, then add (3 -> 2). */
static inline tt_tensor *tr_cse_view_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_add(c, tt_transpose(c, xs[0], 0, 1), tt_transpose(c, xs[0], 0, 1));
}
/* CSE then DCE: the duplicate add feeds a dead exp. 4 traced; CSE 3, DCE 3, both 2. */
static inline tt_tensor *tr_cse_dce_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *a = tt_add(c, xs[0], xs[1]);
    tt_tensor *b = tt_add(c, xs[0], xs[1]);
    tt_tensor *dead = tt_exp(c, b);
    (void)w;
    (void)dead;
    return tt_mul(c, a, b);
}

/* ---- elementwise chains ------------------------------------------------------------------------ */

/* Elementwise chains with broadcasting, a bool mask, a value used inside and outside the chain,
   and an intermediate of the chain that is also an output: fused or not, bitwise eager. */
static inline tt_tensor *tr_chain_fwd(tt_ctx *c, tt_tensor *x, tt_tensor *y, tt_tensor **mid) {
    int ax = 1;
    tt_tensor *a = tt_mul(c, x, y);                                   /* [33,37] * [37] */
    tt_tensor *b = tt_tanh(c, tt_add_scalar(c, a, 0.5f));
    tt_tensor *d = tt_sigmoid(c, tt_sub(c, b, x));
    tt_tensor *m = tt_gt(c, a, tt_scalar(c, 0.0f));
    tt_tensor *e = tt_where(c, m, d, tt_neg(c, b));
    tt_tensor *s = tt_sum(c, a, &ax, 1, true);                        /* a also feeds a reduction */
    if (mid) *mid = b;
    return tt_add(c, tt_mul(c, e, tt_exp(c, tt_neg(c, tt_abs(c, x)))), s);
}
static inline tt_tensor *tr_chain_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tr_chain_fwd(c, xs[0], xs[1], NULL);
}

/* ---- one small forward per public op ------------------------------------------------------------ */
/* TR_OP(name, body) defines tr_op_<name>: x and y are inputs 0 and 1 (test_trace.c's tr_op_cases
   and hash_outputs.c's op.* cases give their shapes and kinds). test_trace.c runs each as its
   own graph on new inputs: an op that were not recorded would leave its eager result as a
   constant of the graph (a tensor made during the trace), repeating the traced values. */

#define TR_OP(nm, ...) \
    static inline tt_tensor *tr_op_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) { \
        tt_tensor *x = xs[0], *y = xs[1]; (void)w; (void)x; (void)y; __VA_ARGS__ }

TR_OP(neg, return tt_neg(c, x);)
TR_OP(abs, return tt_abs(c, x);)
TR_OP(sign, return tt_sign(c, x);)
TR_OP(exp, return tt_exp(c, x);)
TR_OP(log, return tt_log(c, x);)
TR_OP(sqrt, return tt_sqrt(c, x);)
TR_OP(rsqrt, return tt_rsqrt(c, x);)
TR_OP(reciprocal, return tt_reciprocal(c, x);)
TR_OP(sin, return tt_sin(c, x);)
TR_OP(cos, return tt_cos(c, x);)
TR_OP(tanh, return tt_tanh(c, x);)
TR_OP(sigmoid, return tt_sigmoid(c, x);)
TR_OP(relu, return tt_relu(c, x);)
TR_OP(leaky_relu, return tt_leaky_relu(c, x, 0.05f);)
TR_OP(elu, return tt_elu(c, x, 0.7f);)
TR_OP(gelu, return tt_gelu(c, x);)
TR_OP(gelu_tanh, return tt_gelu_tanh(c, x);)
TR_OP(silu, return tt_silu(c, x);)
TR_OP(softplus, return tt_softplus(c, x);)
TR_OP(erf, return tt_erf(c, x);)
TR_OP(floor, return tt_floor(c, tt_mul_scalar(c, x, 3.0f));)
TR_OP(ceil, return tt_ceil(c, tt_mul_scalar(c, x, 3.0f));)
TR_OP(round, return tt_round(c, tt_mul_scalar(c, x, 3.0f));)
TR_OP(clamp, return tt_clamp(c, x, -0.5f, 0.6f);)
TR_OP(pow_scalar, return tt_pow_scalar(c, x, 1.7f);)
TR_OP(add, return tt_add(c, x, y);)
TR_OP(sub, return tt_sub(c, x, y);)
TR_OP(mul, return tt_mul(c, x, y);)
TR_OP(div, return tt_div(c, x, y);)
TR_OP(pow, return tt_pow(c, x, y);)
TR_OP(maximum, return tt_maximum(c, x, y);)
TR_OP(minimum, return tt_minimum(c, x, y);)
TR_OP(add_scalar, return tt_add_scalar(c, x, 0.25f);)
TR_OP(sub_scalar, return tt_sub_scalar(c, x, 0.25f);)
TR_OP(mul_scalar, return tt_mul_scalar(c, x, -1.5f);)
TR_OP(div_scalar, return tt_div_scalar(c, x, 3.0f);)
TR_OP(eq, return tt_eq(c, tt_round(c, x), tt_round(c, y));)
TR_OP(ne, return tt_ne(c, tt_round(c, x), tt_round(c, y));)
TR_OP(lt, return tt_lt(c, x, y);)
TR_OP(le, return tt_le(c, x, y);)
TR_OP(gt, return tt_gt(c, x, y);)
TR_OP(ge, return tt_ge(c, x, y);)
TR_OP(logical_and, return tt_logical_and(c, x, y);)
TR_OP(logical_or, return tt_logical_or(c, x, y);)
TR_OP(logical_not, return tt_logical_not(c, x);)
TR_OP(where, return tt_where(c, y, x, tt_scalar(c, -2.0f));)
TR_OP(cast_f16, return tt_cast(c, x, TT_F16);)
TR_OP(cast_bf16, return tt_cast(c, x, TT_BF16);)
TR_OP(cast_i32, return tt_cast(c, tt_mul_scalar(c, x, 10.0f), TT_I32);)
TR_OP(cast_bool, return tt_cast(c, tt_round(c, x), TT_BOOL);)
TR_OP(cast_from_i32, return tt_cast(c, x, TT_F32);)
TR_OP(sum, { int ax[2] = {0, 2}; return tt_sum(c, x, ax, 2, true); })
TR_OP(mean, { int ax = -1; return tt_mean(c, x, &ax, 1, false); })
TR_OP(max_all, return tt_max(c, x, NULL, 0, false);)
TR_OP(min, { int ax = 1; return tt_min(c, x, &ax, 1, false); })
TR_OP(prod, { int ax = 2; return tt_prod(c, x, &ax, 1, false); })
TR_OP(var, { int ax = 1; return tt_var(c, x, &ax, 1, 1, true); })
TR_OP(std, return tt_std(c, x, NULL, 0, 0, false);)
TR_OP(argmax, return tt_argmax(c, x, 1, false);)
TR_OP(argmin, return tt_argmin(c, x, -1, true);)
TR_OP(softmax, return tt_softmax(c, x, 1);)
TR_OP(log_softmax, return tt_log_softmax(c, x, 0);)
TR_OP(layer_norm, return tt_layer_norm(c, x, 1, y, NULL, 1e-5f);)
TR_OP(layer_norm2, return tt_layer_norm(c, x, 2, NULL, NULL, 1e-5f);)
TR_OP(rms_norm, return tt_rms_norm(c, x, 1, y, 1e-6f);)
TR_OP(batch_norm, return tt_batch_norm(c, x, y, y, NULL, y, 1e-5f);)
TR_OP(group_norm, return tt_group_norm(c, x, 2, NULL, NULL, 1e-5f);)
TR_OP(matmul, return tt_matmul(c, x, y);)
TR_OP(matmul_dot, return tt_matmul(c, x, y);)
TR_OP(linear, return tt_linear(c, x, y, NULL);)
TR_OP(conv2d, return tt_conv2d(c, x, y, NULL, 2, 1, 1, 1);)
TR_OP(conv2d_ex, {
    tt_conv_params p;
    memset(&p, 0, sizeof p);           /* the fields a 2-D convolution ignores are zero, not garbage */
    p.stride[0] = 1; p.stride[1] = 2; p.padding[0] = 0; p.padding[1] = 1;
    p.dilation[0] = 2; p.dilation[1] = 1; p.groups = 1;
    return tt_conv2d_ex(c, x, y, NULL, &p); })
TR_OP(conv1d, return tt_conv1d(c, x, y, NULL, 1, 1, 1, 2);)
TR_OP(max_pool2d, return tt_max_pool2d(c, x, 3, 2, 1);)
TR_OP(avg_pool2d, return tt_avg_pool2d(c, x, 3, 2, 1);)
TR_OP(adaptive_avg_pool2d, return tt_adaptive_avg_pool2d(c, x, 4, 3);)
TR_OP(upsample_nearest, return tt_upsample_nearest(c, x, 5, 7);)
TR_OP(concat, { tt_tensor *p[3]; p[0] = x; p[1] = y; p[2] = x; return tt_concat(c, p, 3, 1); })
TR_OP(stack, { tt_tensor *p[2]; p[0] = x; p[1] = y; return tt_stack(c, p, 2, -1); })
TR_OP(split, {
    tt_tensor *p[4];
    int n = tt_split(c, x, 2, 0, p, 4);
    if (n != 3) return NULL;
    return tt_sub(c, tt_mul(c, p[0], p[1]), p[2]); })
TR_OP(chunk, {
    tt_tensor *p[4], *q[3];
    int n = tt_chunk(c, x, 3, 0, p, 4);
    if (n != 3) return NULL;
    q[0] = p[2]; q[1] = p[0]; q[2] = p[1];
    return tt_concat(c, q, 3, 0); })
TR_OP(pad, { int64_t pads[4] = {1, 2, 0, 1}; return tt_pad(c, x, pads, 4, 0.5f); })
TR_OP(gather, return tt_gather(c, x, 1, y);)
TR_OP(index_select, return tt_index_select(c, x, 2, y);)
TR_OP(embedding, return tt_embedding(c, x, y);)
TR_OP(repeat_interleave, return tt_repeat_interleave(c, x, 2, 1);)
TR_OP(flip, { int ax[2] = {0, 2}; return tt_flip(c, x, ax, 2); })
TR_OP(tile, { int64_t reps[4] = {2, 1, 1, 2}; return tt_tile(c, x, reps, 4); })
TR_OP(shape_as_tensor, return tt_mul(c, x, tt_shape_as_tensor(c, x));)
TR_OP(sdpa, return tt_scaled_dot_product_attention(c, x, y, y, NULL, false, 0.0f);)
TR_OP(sdpa_causal, return tt_scaled_dot_product_attention(c, x, x, x, NULL, true, 0.3f);)
TR_OP(sdpa_mask, return tt_scaled_dot_product_attention(c, x, x, x, y, false, 0.0f);)
TR_OP(reshape, { int64_t s[2] = {12, -1}; return tt_reshape(c, x, 2, s); })
TR_OP(view, { int64_t s[2] = {5, 12}; return tt_view(c, x, 2, s); })
TR_OP(permute, { int p[3] = {2, 0, 1}; return tt_permute(c, x, p); })
TR_OP(transpose, return tt_transpose(c, x, 0, 2);)
TR_OP(slice, return tt_slice(c, x, 1, 0, 4, 2);)
TR_OP(expand, { int64_t s[3] = {3, 4, 5}; return tt_expand(c, y, 3, s); })
TR_OP(squeeze, return tt_squeeze(c, x, 1);)
TR_OP(unsqueeze, return tt_unsqueeze(c, x, -1);)
TR_OP(flatten, return tt_flatten(c, x, 0, 1);)
TR_OP(contiguous, return tt_contiguous(c, tt_transpose(c, x, 0, 1));)
TR_OP(clone, return tt_clone(c, x);)
/* Elementwise chains around views, dtype changes and integer inputs: a fused program must
   round through f16/bf16/i32 exactly where the eager ops store them. */
TR_OP(fuse_transpose, {
    tt_tensor *tr = tt_transpose(c, tt_sin(c, x), 0, 1);
    return tt_add(c, tt_mul(c, tr, y), tt_cos(c, tr)); })
TR_OP(fuse_slice, return tt_add_scalar(c, tt_slice(c, tt_exp(c, x), 1, 0, 7, 2), 1.0f);)
TR_OP(fuse_expand, { int64_t s[2] = {5, 7}; return tt_mul(c, tt_expand(c, tt_sin(c, y), 2, s), tt_tanh(c, x)); })
TR_OP(fuse_f16_round, return tt_add(c, tt_cast(c, tt_cast(c, tt_mul_scalar(c, x, 3.3f), TT_F16), TT_F32), x);)
TR_OP(fuse_bf16_round, return tt_sub(c, tt_cast(c, tt_exp(c, tt_cast(c, tt_mul_scalar(c, x, 1.7f), TT_BF16)), TT_F32), x);)
TR_OP(fuse_i32_trunc, return tt_mul(c, tt_cast(c, tt_mul_scalar(c, x, 4.5f), TT_I32), tt_sigmoid(c, x));)
TR_OP(fuse_bool, return tt_mul(c, tt_cast(c, tt_gt(c, x, tt_scalar(c, 0.1f)), TT_BOOL), tt_add_scalar(c, x, 2.0f));)
TR_OP(fuse_int_input, return tt_tanh(c, tt_add(c, tt_mul_scalar(c, x, 0.25f), y));)
TR_OP(fuse_int_compare, return tt_where(c, tt_eq(c, x, tt_round(c, tt_mul_scalar(c, y, 3.0f))), y, tt_neg(c, y));)
TR_OP(fuse_f16_input, return tt_add(c, tt_exp(c, tt_cast(c, x, TT_F16)), tt_scalar(c, 1.0f));)
TR_OP(empty, { int ax = 0; return tt_add(c, tt_sum(c, tt_exp(c, x), &ax, 1, false), y); })
TR_OP(view_chain, return tt_exp(c, tt_slice(c, tt_transpose(c, x, 0, 2), 1, 1, 4, 2));)
/* A view of an intermediate result must keep its buffer alive while same-size values are
   computed (a memory plan that ignored the view would hand sin's bytes to cos/tanh/exp). */
TR_OP(view_of_result, {
    tt_tensor *v = tt_transpose(c, tt_sin(c, x), 0, 2);
    tt_tensor *w3 = tt_exp(c, tt_tanh(c, tt_cos(c, x)));
    return tt_add(c, v, tt_transpose(c, w3, 0, 2)); })

#endif /* TT_ZOO_MODELS_H */
