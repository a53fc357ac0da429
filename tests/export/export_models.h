/* export_models.h - the graphs the export tests write as C (tests/export/export_gen.c) and
   compare the written C with (tests/export/test_exported.c): each built the same way in both
   programs, from seeds, so their frozen constants are the same bits. Include tinytrace.h first.
     simplecnn  the firmware issue's SimpleCNN: conv 3->32 + BN + ReLU + max-pool 2, conv 32->64
                + BN + ReLU, global average pool, linear 64->10 on [1,3,32,32]
     chain      an elementwise chain on [64,256] (a broadcast row, two outputs): fused into one loop
     mixed      conv1d + GELU, views, depthwise and grouped conv2d, max-pool 3x3 pad 1, avg-pool,
                linear + ReLU, matmul, a transposed view as the second output
     unfused    the chain compiled without the fusion pass: each op a loop of its own
     simplecnn_b2  SimpleCNN on two 16x16 images (band fusion image by image)
     heads      layer norm, RMS norm, softmax, log-softmax and reductions (mean, std, sum, max)
                along the last axes */
#ifndef TT_EXPORT_MODELS_H
#define TT_EXPORT_MODELS_H

typedef struct em_model {
    const char *name;
    tt_graph   *g;
    tt_tensor  *in[2];                 /* the inputs the graph was traced with */
    int         n_in;
} em_model;

/* conv 3x3 pad 1 + batch norm + ReLU (+ max-pool 2), weights from seed in wc. */
static tt_tensor *em_cnn_block(tt_ctx *c, tt_ctx *wc, tt_tensor *x, int64_t cin, int64_t cout, uint64_t seed, int pool) {
    int64_t ws[4];
    tt_tensor *w, *b, *mean, *var;
    ws[0] = cout; ws[1] = cin; ws[2] = 3; ws[3] = 3;
    w = tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.2f);
    b = tt_randn(wc, seed + 1, 1, &cout);
    mean = tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &cout), 0.1f);
    var = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &cout), 0.5f);
    x = tt_relu(c, tt_batch_norm(c, tt_conv2d(c, x, w, b, 1, 1, 1, 1), mean, var, NULL, NULL, 1e-5f));
    return pool ? tt_max_pool2d(c, x, 2, 0, 0) : x;
}

static tt_tensor *em_simplecnn_fwd(tt_ctx *c, tt_ctx *wc, tt_tensor *x) {
    int64_t fs[2], ten = 10;
    fs[0] = 10; fs[1] = 64;
    x = em_cnn_block(c, wc, x, 3, 32, 1, 1);
    x = em_cnn_block(c, wc, x, 32, 64, 10, 0);
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);
    return tt_linear(c, x, tt_mul_scalar(wc, tt_randn(wc, 20, 2, fs), 0.2f), tt_randn(wc, 21, 1, &ten));
}

/* y = tanh(x * 0.5 + row) * x - 1 and z = max(y, x) with row [256] broadcast over x [64,256]. */
static void em_chain_fwd(tt_ctx *c, tt_ctx *wc, tt_tensor *x, tt_tensor **outs) {
    int64_t n = 256;
    tt_tensor *row = tt_randn(wc, 31, 1, &n);
    tt_tensor *y = tt_add_scalar(c, tt_mul(c, tt_tanh(c, tt_add(c, tt_mul_scalar(c, x, 0.5f), row)), x), -1.0f);
    outs[0] = y;
    outs[1] = tt_maximum(c, y, x);
}

static tt_tensor *em_param(tt_ctx *wc, uint64_t seed, int ndim, int64_t a, int64_t b, int64_t cc, int64_t d, float scale) {
    int64_t s[4];
    s[0] = a; s[1] = b; s[2] = cc; s[3] = d;
    return tt_mul_scalar(wc, tt_randn(wc, seed, ndim, s), scale);
}

/* x [2,4,16] -> out0 [2,5] and out1 [5,2] (its transpose: a strided view of out0). */
static void em_mixed_fwd(tt_ctx *c, tt_ctx *wc, tt_tensor *x, tt_tensor **outs) {
    int64_t s4[4] = {2, 8, 4, 4}, eight = 8, six = 6;
    tt_tensor *h = tt_gelu(c, tt_conv1d(c, x, em_param(wc, 41, 3, 8, 4, 3, 0, 0.3f), tt_randn(wc, 42, 1, &eight), 1, 1, 1, 1));
    h = tt_reshape(c, h, 4, s4);
    h = tt_relu(c, tt_conv2d(c, h, em_param(wc, 43, 4, 8, 1, 3, 3, 0.3f), tt_randn(wc, 44, 1, &eight), 1, 1, 1, 8));
    h = tt_max_pool2d(c, h, 3, 1, 1);
    h = tt_conv2d(c, h, em_param(wc, 45, 4, 8, 4, 1, 1, 0.4f), NULL, 1, 0, 1, 2);
    h = tt_flatten(c, tt_avg_pool2d(c, h, 2, 2, 0), 1, -1);
    h = tt_relu(c, tt_linear(c, h, em_param(wc, 46, 2, 6, 32, 0, 0, 0.2f), tt_randn(wc, 47, 1, &six)));
    outs[0] = tt_matmul(c, h, em_param(wc, 48, 2, 6, 5, 0, 0, 0.5f));
    outs[1] = tt_transpose(c, outs[0], 0, 1);
}

/* x [4,6,8]: out0 = softmax(layer_norm(x)), out1 = log_softmax(rms_norm(x)) mean'd over the
   last axis [4,6], out2 = std (correction 1) over the last two axes [4], out3 = the sum of
   out0 times x over the last axis, keepdim [4,6,1], out4 = the max of x over the last axis. */
static int em_heads_fwd(tt_ctx *c, tt_ctx *wc, tt_tensor *x, tt_tensor **outs) {
    int64_t eight = 8;
    int last = 2, last2[2] = {1, 2};
    tt_tensor *ln = tt_layer_norm(c, x, 1, tt_add_scalar(wc, tt_randn(wc, 51, 1, &eight), 1.0f), tt_randn(wc, 52, 1, &eight), 1e-5f);
    tt_tensor *rn = tt_rms_norm(c, x, 1, tt_randn(wc, 53, 1, &eight), 1e-6f);
    outs[0] = tt_softmax(c, ln, -1);
    outs[1] = tt_mean(c, tt_log_softmax(c, rn, 2), &last, 1, false);
    outs[2] = tt_std(c, x, last2, 2, 1, false);
    outs[3] = tt_sum(c, tt_mul(c, outs[0], x), &last, 1, true);
    outs[4] = tt_max(c, x, &last, 1, false);
    return 5;
}

/* Builds model `which` (0 simplecnn, 1 chain, 2 mixed, 3 unfused, 4 simplecnn_b2, 5 heads) in c
   (weights in wc), traced, compiled with every pass (but fusion for unfused) and frozen weights,
   and run once on tt_randn inputs. g NULL on error. */
#define EM_MODELS 6
static em_model em_build(tt_ctx *c, tt_ctx *wc, int which) {
    static const char *const names[EM_MODELS] = {"simplecnn", "chain", "mixed", "unfused", "simplecnn_b2", "heads"};
    unsigned passes = (TT_PASS_ALL | TT_PASS_FREEZE) & ~(which == 3 ? (unsigned)TT_PASS_FUSE : 0u);
    int64_t s_cnn[4] = {1, 3, 32, 32}, s_cnn2[4] = {2, 3, 16, 16}, s_chain[2] = {64, 256}, s_mixed[3] = {2, 4, 16};
    int64_t s_heads[3] = {4, 6, 8};
    em_model m;
    tt_tensor *outs[5] = {NULL, NULL, NULL, NULL, NULL}, *x;
    int n_out = which == 0 || which == 4 ? 1 : 2;
    memset(&m, 0, sizeof m);
    m.name = names[which];
    m.n_in = 1;
    m.in[0] = which == 0 ? tt_randn(c, 7, 4, s_cnn) : which == 4 ? tt_randn(c, 10, 4, s_cnn2)
            : which == 5 ? tt_randn(c, 11, 3, s_heads) : which == 2 ? tt_randn(c, 9, 3, s_mixed) : tt_randn(c, 8, 2, s_chain);
    tt_trace_begin(c);
    x = tt_trace_input(c, m.in[0], "x");
    if (which == 0 || which == 4) outs[0] = em_simplecnn_fwd(c, wc, x);
    else if (which == 2) em_mixed_fwd(c, wc, x, outs);
    else if (which == 5) n_out = em_heads_fwd(c, wc, x, outs);
    else em_chain_fwd(c, wc, x, outs);
    m.g = tt_trace_end(c, outs, n_out);
    if (m.g && (tt_graph_compile(m.g, TT_MODE_DEFAULT, passes) != TT_OK ||
                tt_graph_run(m.g, m.in, m.n_in) != TT_OK)) {
        tt_graph_destroy(m.g);
        m.g = NULL;
    }
    return m;
}

#endif
