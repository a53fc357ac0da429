/* test_cuda.c - the CUDA backend (tinytrace_cuda.cu) against the CPU: every op graph of
   op_cases.h, the model zoo, kernels on sizes that are not multiples of a block, the CUDA
   graph of REDUCE_OVERHEAD, device pointers, and (emulated build only) every failure a GPU
   can give: no device, a driver too old, out of memory.

   make test links it with tests/cuda_emu_backend.cpp: the kernels run on the CPU, threads of
   a block as fibers with real barriers (tests/cuda_emu.h). make test-cuda links it with the
   backend built by nvcc and runs it on the GPU. The reference is the CPU: eager ops, which the
   rest of the suite checks against double-precision loops (and the matmul here against its
   own double loop). GPU sums run in another order (float, a tree per block), so values are
   compared within 2e-4 (absolute + relative); bool and i32 results exactly. */
#define TT_CUDA
#include "tt_test.h"
#include "test_util.h"
#include "zoo_models.h"
#include "op_cases.h"
#ifdef TC_EMULATED
#include "cuda_emu_knobs.h"
#endif

#define TC_TOL 2e-4

/* ---- helpers ------------------------------------------------------------------------------- */

/* got's values against want's (same shape): within TC_TOL, exact for bool and i32; NaN and
   infinities must match. Prints the first difference. */
static int tc_close(tt_ctx *c, const tt_tensor *got, const tt_tensor *want, const char *what) {
    float *g = tu_values(c, got), *w = tu_values(c, want);
    bool exact = want && (want->dtype == TT_BOOL || want->dtype == TT_I32);
    int64_t i, bad = -1;
    int ok = CHECK(g != NULL && w != NULL && got->numel == want->numel && got->dtype == want->dtype);
    for (i = 0; ok && i < want->numel && bad < 0; i++) {
        double a = g[i], b = w[i];
        if (a != a || b != b) { if ((a != a) != (b != b)) bad = i; continue; }
        if (isinf(a) || isinf(b)) { if (a != b) bad = i; continue; }
        if (exact ? a != b : fabs(a - b) > TC_TOL + TC_TOL * fabs(b)) bad = i;
    }
    if (bad >= 0) {
        printf("    %s: element %lld is %.9g on the GPU, %.9g on the CPU\n", what, (long long)bad, (double)g[bad], (double)w[bad]);
        ok = CHECK(bad < 0);
    }
    free(g);
    free(w);
    return ok;
}

/* Do two tensors hold the same bytes? */
static int tc_same_bits(tt_ctx *c, const tt_tensor *a, const tt_tensor *b) {
    float *x = tu_values(c, a), *y = tu_values(c, b);
    int same = x && y && a->numel == b->numel && memcmp(x, y, sizeof(float) * (size_t)a->numel) == 0;
    free(x);
    free(y);
    return same;
}

/* fn traced on xs, compiled (mode, passes) and moved to the GPU; NULL (and why, printed) if
   the move fails. */
static tt_graph *tc_gpu_graph(tt_ctx *c, tr_apply_fn fn, const void *w, tt_tensor **xs, int n_in, tt_mode mode,
                              unsigned passes, tt_status *moved) {
    tt_tensor *y;
    tt_graph *g;
    int i;
    tt_trace_begin(c);
    for (i = 0; i < n_in; i++) tt_trace_input(c, xs[i], "x");
    y = fn(c, xs, w);
    g = tt_trace_end(c, &y, 1);
    if (!g) printf("    %s\n", tt_error(c));
    if (!CHECK(g != NULL) || !CHECK_EQ_INT(tt_graph_compile(g, mode, passes), TT_OK)) {
        tt_graph_destroy(g);
        return NULL;
    }
    *moved = tt_graph_to_cuda(g, 0);
    return g;
}

/* Runs g (on the GPU) on xs and compares its output with fn run eagerly on xs. */
static int tc_run_against_eager(tt_ctx *c, tt_graph *g, tr_apply_fn fn, const void *w, tt_tensor **xs, int n_in,
                                const char *what) {
    tt_scope s = tt_scope_begin(c);
    tt_tensor *want = fn(c, xs, w);
    int ok = CHECK(want != NULL) && CHECK_EQ_INT(tt_graph_run(g, xs, n_in), TT_OK) &&
             tc_close(c, tt_graph_output(g, 0), want, what);
    if (!ok) printf("    %s: %s\n", what, tt_graph_error(g) ? tt_graph_error(g) : tt_error(c));
    tt_scope_end(c, s);
    return ok;
}

/* tt_graph_check on the GPU: each node's result fetched and compared with the eager tape's. */
static void tc_check_node_by_node(tt_graph *g, tt_tensor **xs, int n_in, const char *what) {
    tt_check_report report;
    if (!CHECK_EQ_INT(tt_graph_check(g, xs, n_in, 1e-3, 1e-3, &report), TT_OK) || !CHECK(report.ok) ||
        !CHECK(report.compared > 0))
        printf("    %s: %s %s\n", what, tt_graph_error(g) ? tt_graph_error(g) : "", report.message);
}

/* The whole check of one model: on the GPU, against eager on two inputs, the same bits on a
   second run (no float atomics: the order of every sum is fixed), then node by node
   (tt_graph_check). */
static void tc_check_model(tr_apply_fn fn, const void *w, tt_ctx *c, tt_tensor **xs, tt_tensor **xs2, int n_in,
                           tt_mode mode, unsigned passes, const char *what) {
    tt_status moved = TT_OK;
    tt_graph *g = tc_gpu_graph(c, fn, w, xs, n_in, mode, passes, &moved);
    tt_tensor *first;
    if (!g) return;
    if (!CHECK_EQ_INT(moved, TT_OK)) {
        printf("    %s: %s\n", what, tt_graph_error(g));
        tt_graph_destroy(g);
        return;
    }
    CHECK(tt_graph_on_cuda(g));
    tc_run_against_eager(c, g, fn, w, xs, n_in, what);
    first = tt_contiguous(c, tt_graph_output(g, 0));   /* a copy: the next run overwrites */
    CHECK_EQ_INT(tt_graph_run(g, xs, n_in), TT_OK);
    CHECK(tc_same_bits(c, first, tt_graph_output(g, 0)));
    tc_run_against_eager(c, g, fn, w, xs2, n_in, what);
    tc_check_node_by_node(g, xs, n_in, what);
    tt_graph_destroy(g);
}

/* ---- every op graph ------------------------------------------------------------------------ */

/* Each op of op_cases.h traced alone, unoptimized and with every pass: on the GPU against
   eager, or refused by tt_graph_to_cuda naming the op (the graph then runs on the CPU). The
   count of refused graphs is printed and bounded: a kernel family lost would show. */
static void test_every_op(void) {
    const tr_op_case *k;
    int on_gpu = 0, refused = 0, pass;
    char names[1024] = "";
    for (k = tr_op_cases; k->name; k++) {
        for (pass = 0; pass < 2; pass++) {
            tt_ctx *c = tu_ctx();
            tt_tensor *xs[2] = {NULL, NULL}, *xs2[2] = {NULL, NULL};
            unsigned passes = pass ? (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE : 0u;
            tt_status moved = TT_OK;
            tt_graph *g;
            int i;
            for (i = 0; i < k->n_in; i++) {
                xs[i] = tr_make_input(c, k->kind[i], k->hi[i], 3u + (uint64_t)i, k->ndim[i], k->shape[i]);
                xs2[i] = tr_make_input(c, k->kind[i], k->hi[i], 40u + (uint64_t)i, k->ndim[i], k->shape[i]);
            }
            g = tc_gpu_graph(c, k->fn, NULL, xs, k->n_in, TT_MODE_DEFAULT, passes, &moved);
            if (g && moved == TT_OK) {
                on_gpu++;
                tc_run_against_eager(c, g, k->fn, NULL, xs, k->n_in, k->name);
                tc_run_against_eager(c, g, k->fn, NULL, xs2, k->n_in, k->name);
            } else if (g) {
                refused++;
                if (pass == 0 && strlen(names) + strlen(k->name) + 2 < sizeof names) {
                    strcat(names, " ");
                    strcat(names, k->name);
                }
                if (!CHECK_EQ_INT(moved, TT_ERR_UNSUPPORTED) || !CHECK(strstr(tt_graph_error(g), "stays on the CPU") != NULL))
                    printf("    %s: %s\n", k->name, tt_graph_error(g));
                tt_graph_clear_error(g);
                CHECK(!tt_graph_on_cuda(g));
                tc_run_against_eager(c, g, k->fn, NULL, xs, k->n_in, k->name);   /* still runs, on the CPU */
            }
            tt_graph_destroy(g);
            CHECK_GUARDS(c);
            tt_ctx_destroy(c);
        }
    }
    printf("    op graphs: %d on the GPU, %d refused (run on the CPU):%s\n", on_gpu, refused, names);
    CHECK(on_gpu >= 4 * refused);
}

/* ---- the model zoo ------------------------------------------------------------------------- */

static void test_zoo_mlp(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[2] = {5, 37};
    tr_mlp_w w = tr_mlp_make(wc, 37, 67, 10, 7);
    tt_tensor *x = tt_randn(c, 1, 2, s), *x2 = tt_randn(c, 2, 2, s);
    tc_check_model(tr_mlp_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "mlp");
    tc_check_model(tr_mlp_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "mlp frozen");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_zoo_cnn(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[4] = {2, 3, 16, 16}, fs[2] = {10, 64};
    tr_cnn_w w;
    tt_tensor *x = tt_randn(c, 3, 4, s), *x2 = tt_randn(c, 4, 4, s);
    w.b1 = tr_cnn_block_make(wc, 3, 32, 100);
    w.b2 = tr_cnn_block_make(wc, 32, 64, 200);
    w.fw = tu_param(wc, 300, 2, fs, 0.125f, 0.0f);
    w.fb = tu_param1(wc, 301, 10, 0.1f, 0.0f);
    tc_check_model(tr_cnn_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "simplecnn");
    tc_check_model(tr_cnn_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, 0u, "simplecnn unoptimized");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* Frozen, its CPU runs keep the blocks channels-last (the layout pass, at compile): the GPU
   gets the graph with its channels-first headers. */
static void test_zoo_mbv2(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[4] = {2, 3, 32, 32};
    tr_mbv2_w w = tr_mbv2_make(wc, 700);
    tt_tensor *x = tt_randn(c, 7, 4, s), *x2 = tt_randn(c, 8, 4, s);
    tc_check_model(tr_mbv2_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "mobilenetv2 blocks");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_zoo_transformer(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[3] = {2, 7, 32};
    tr_enc_w w = tr_enc_make(wc, 50);
    tt_tensor *x = tt_randn(c, 5, 3, s), *x2 = tt_randn(c, 6, 3, s);
    tc_check_model(tr_enc_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "encoder layer");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_zoo_moe_chain(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[2] = {TR_MOE_T, TR_MOE_D}, cs[2] = {33, 37}, ys = 37;
    tr_moe_w w = tr_moe_make(wc, 60);
    tt_tensor *x = tt_randn(c, 7, 2, s), *x2 = tt_randn(c, 8, 2, s), *xy[2], *xy2[2];
    tc_check_model(tr_moe_apply, &w, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "moe router");
    xy[0] = tt_randn(c, 9, 2, cs);
    xy[1] = tt_randn(c, 10, 1, &ys);
    xy2[0] = tt_randn(c, 11, 2, cs);
    xy2[1] = tt_randn(c, 12, 1, &ys);
    tc_check_model(tr_chain_apply, NULL, c, xy, xy2, 2, TT_MODE_DEFAULT, TT_PASS_ALL, "fused chain");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- kernels on sizes that are not multiples of a block ----------------------------------- */

/* Batched matmul with a broadcast batch axis and a transposed b, as one graph. */
static tt_tensor *tc_matmul_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_matmul(c, xs[0], tt_transpose(c, xs[1], 0, 1));
}

/* a [9,67,45] @ b^T with b [70,45]: the GPU against a double loop written here (9 batch
   entries: more than the emulated build's 7 blocks on grid z). */
static void test_matmul_against_double(void) {
    tt_ctx *c = tu_ctx();
    int64_t as[3] = {9, 67, 45}, bs[2] = {70, 45};
    double *av, *bv;
    tt_tensor *xs[2], *xs2[2];
    tt_status moved = TT_OK;
    tt_graph *g;
    xs[0] = tu_rand(c, 3, as, 1, -1, 1, &av);
    xs[1] = tu_rand(c, 2, bs, 2, -1, 1, &bv);
    xs2[0] = tt_randn(c, 3, 3, as);
    xs2[1] = tt_randn(c, 4, 2, bs);
    g = tc_gpu_graph(c, tc_matmul_fn, NULL, xs, 2, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
    if (g && CHECK_EQ_INT(moved, TT_OK) && CHECK_EQ_INT(tt_graph_run(g, xs, 2), TT_OK)) {
        float *got = tu_values(c, tt_graph_output(g, 0));
        double worst = 0;
        int64_t b, m, n, k;
        for (b = 0; got && b < 9; b++)
            for (m = 0; m < 67; m++)
                for (n = 0; n < 70; n++) {
                    double s = 0;
                    for (k = 0; k < 45; k++) s += av[(b * 67 + m) * 45 + k] * bv[n * 45 + k];
                    worst = fmax(worst, fabs(got[(b * 67 + m) * 70 + n] - s));
                }
        CHECK(got != NULL && worst < 1e-4);
        free(got);
        tc_run_against_eager(c, g, tc_matmul_fn, NULL, xs2, 2, "matmul, new inputs");
    }
    tt_graph_destroy(g);
    free(av);
    free(bv);
    tt_ctx_destroy(c);
}

/* Convolutions: implicit GEMM (20 filters, stride 2, padding 1, dilation 2, bias), grouped
   (4 groups: the direct kernel), depthwise 3x3 with ReLU; then pools. */
static tt_tensor *tc_conv_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *const *p = (tt_tensor *const *)w;
    tt_pool_params pp;
    tt_tensor *a = tt_conv2d(c, xs[0], p[0], p[1], 2, 1, 2, 1);                 /* [2,20,6,5] */
    tt_tensor *b = tt_conv2d(c, a, p[2], NULL, 1, 1, 1, 4);                     /* [2,8,6,5] */
    tt_tensor *d = tt_relu(c, tt_conv2d(c, b, p[3], p[4], 1, 1, 1, 8));         /* depthwise */
    memset(&pp, 0, sizeof pp);
    pp.kernel[0] = pp.kernel[1] = 3;
    pp.stride[0] = pp.stride[1] = 2;
    pp.padding[0] = pp.padding[1] = 1;
    pp.ceil_mode = true;
    d = tt_add(c, tt_max_pool2d(c, d, 2, 1, 0), tt_avg_pool2d(c, d, 2, 1, 0));
    return tt_add(c, tt_sum(c, tt_avg_pool_ex(c, d, &pp), NULL, 0, false), tt_mean(c, tt_adaptive_avg_pool2d(c, d, 2, 3), NULL, 0, false));
}

static void test_conv_and_pool(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs_[4] = {2, 5, 13, 11}, w0[4] = {20, 5, 3, 3}, w2[4] = {8, 5, 1, 1}, w3[4] = {8, 1, 3, 3};
    tt_tensor *p[5], *x, *x2;
    p[0] = tu_param(wc, 1, 4, w0, 0.2f, 0.0f);
    p[1] = tu_param1(wc, 2, 20, 0.1f, 0.0f);
    p[2] = tu_param(wc, 3, 4, w2, 0.3f, 0.0f);
    p[3] = tu_param(wc, 4, 4, w3, 0.3f, 0.0f);
    p[4] = tu_param1(wc, 5, 8, 0.1f, 0.0f);
    x = tt_randn(c, 6, 4, xs_);
    x2 = tt_randn(c, 7, 4, xs_);
    tc_check_model(tc_conv_fn, p, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "convolutions");
    tc_check_model(tc_conv_fn, p, c, &x, &x2, 1, TT_MODE_DEFAULT, 0u, "convolutions unoptimized");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* The rarer forms, each reduced to a sum: conv3d (stride 2, groups 2), transposed
   convolutions 2-D (stride 2, output padding, dilation, groups) and 1-D, reflect, replicate
   and circular padding, bilinear resizing (with and without aligned corners) and nearest by
   scale, 1-D and 3-D max pooling with dilation and ceil mode. */
static tt_tensor *tc_forms_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *const *p = (tt_tensor *const *)w;
    int64_t s5[5] = {1, 4, 5, 6, 7}, s3[3] = {2, 4, 105}, pads[4] = {2, 1, 1, 3};
    tt_tensor *v = tt_reshape(c, xs[0], 5, s5), *x4 = xs[1], *l = tt_reshape(c, xs[0], 3, s3);
    tt_tensor *acc[12];
    tt_pool_params pp;
    int i;
    memset(&pp, 0, sizeof pp);
    acc[0] = tt_conv3d(c, v, p[0], p[1], 2, 1, 1, 2);
    acc[1] = tt_conv_transpose2d(c, x4, p[2], p[3], 2, 1, 1, 2, 2);
    acc[2] = tt_conv_transpose1d(c, l, p[4], NULL, 3, 0, 2, 1, 1);
    acc[3] = tt_pad_ex(c, x4, pads, 4, TT_PAD_REFLECT, 0.0f);
    acc[4] = tt_pad_ex(c, x4, pads, 4, TT_PAD_REPLICATE, 0.0f);
    acc[5] = tt_pad_ex(c, x4, pads, 4, TT_PAD_CIRCULAR, 0.0f);
    acc[6] = tt_upsample_bilinear(c, x4, 7, 11, false);
    acc[7] = tt_upsample_bilinear(c, x4, 9, 4, true);
    acc[8] = tt_upsample_nearest_scale(c, x4, 1.5f, 2.0f);
    acc[9] = tt_max_pool1d(c, l, 3, 2, 1);
    pp.kernel[0] = 2; pp.kernel[1] = 3; pp.kernel[2] = 2;
    pp.stride[0] = 2; pp.stride[1] = 2; pp.stride[2] = 3;
    pp.dilation[1] = 2;
    pp.padding[2] = 1;
    pp.ceil_mode = true;
    acc[10] = tt_max_pool_ex(c, v, &pp);
    acc[11] = tt_sum(c, acc[0], NULL, 0, false);
    for (i = 1; i < 11; i++) {
        tt_tensor *si = tt_mean(c, acc[i], NULL, 0, false);
        acc[11] = tt_add(c, acc[11], tt_mul_scalar(c, si, (float)(i + 1)));
    }
    return acc[11];
}

static void test_rarer_forms(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs_[1] = {840}, x4s[4] = {2, 4, 5, 6}, w0[5] = {6, 2, 3, 2, 3}, w2[4] = {4, 3, 3, 3}, w4[3] = {4, 3, 4};
    tt_tensor *p[5], *x[2], *x2[2];
    p[0] = tu_param(wc, 1, 5, w0, 0.2f, 0.0f);
    p[1] = tu_param1(wc, 2, 6, 0.1f, 0.0f);
    p[2] = tu_param(wc, 3, 4, w2, 0.2f, 0.0f);
    p[3] = tu_param1(wc, 4, 6, 0.1f, 0.0f);
    p[4] = tu_param(wc, 5, 3, w4, 0.3f, 0.0f);
    x[0] = tt_randn(c, 6, 1, xs_);
    x[1] = tt_randn(c, 7, 4, x4s);
    x2[0] = tt_randn(c, 8, 1, xs_);
    x2[1] = tt_randn(c, 9, 4, x4s);
    tc_check_model(tc_forms_fn, p, c, x, x2, 2, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "rarer forms");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* A linear with an f16 weight and a convolution with a bf16 one: the GEMMs convert on load. */
static tt_tensor *tc_half_weights_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *const *p = (tt_tensor *const *)w;
    tt_tensor *y = tt_conv2d(c, xs[0], p[1], NULL, 1, 1, 1, 1);              /* [1,2,3,4] */
    return tt_linear(c, tt_relu(c, y), p[0], p[2]);
}

static void test_half_weights(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs_[4] = {1, 3, 3, 4}, ls[2] = {5, 4}, cs[4] = {2, 3, 3, 3};
    tt_tensor *p[3], *x, *x2;
    p[0] = tt_cast(wc, tu_param(wc, 1, 2, ls, 0.5f, 0.0f), TT_F16);
    p[1] = tt_cast(wc, tu_param(wc, 2, 4, cs, 0.3f, 0.0f), TT_BF16);
    p[2] = tt_cast(wc, tu_param1(wc, 3, 5, 0.1f, 0.0f), TT_F16);
    x = tt_randn(c, 4, 4, xs_);
    x2 = tt_randn(c, 5, 4, xs_);
    tc_check_model(tc_half_weights_fn, p, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "f16/bf16 weights");
    tc_check_model(tc_half_weights_fn, p, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "f16/bf16 parameters");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* The kernels' less common paths, one small graph each. */
static tt_tensor *tc_grouped_conv_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *const *p = (tt_tensor *const *)w;
    return tt_conv2d(c, xs[0], p[0], p[1], 1, 1, 1, 2);      /* 65 filters per group: two GEMM row tiles */
}
static tt_tensor *tc_conv1d_gemm_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tt_conv1d(c, xs[0], (tt_tensor *)w, NULL, 2, 1, 1, 1);   /* 32 filters: the GEMM path */
}
static tt_tensor *tc_attention_fn3(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    return tt_scaled_dot_product_attention(c, xs[0], xs[1], xs[2], (tt_tensor *)w, false, 0.0f);
}
static tt_tensor *tc_argmax_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *a = tt_cast(c, tt_argmax(c, xs[0], 1, false), TT_F32);
    tt_tensor *b = tt_cast(c, tt_argmin(c, xs[0], 0, false), TT_F32);
    (void)w;
    return tt_add(c, tt_sum(c, a, NULL, 0, false), tt_mul_scalar(c, tt_sum(c, b, NULL, 0, false), 100.0f));
}
static tt_tensor *tc_moments_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *v = tt_var(c, xs[0], NULL, 0, 1, true);
    tt_tensor *sd = tt_std(c, xs[0], NULL, 0, 0, true);
    (void)w;
    return tt_add(c, tt_mul_scalar(c, v, 1000.0f), tt_sub(c, tt_mean(c, xs[0], NULL, 0, true), sd));
}
static tt_tensor *tc_bool_bytes_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_sum(c, tt_cast(c, xs[0], TT_F32), NULL, 0, false);
}

/* A grouped convolution through the implicit GEMM (65 filters per group: two row tiles), a
   conv1d through it, attention with 600 value features (two per thread), with a query whose
   keys are all masked (NaN, as on the CPU) and with no keys (zeros), argmax/argmin with ties
   and NaN, moments of values near 10000 (sums in double), bool bytes other than 1. */
static void test_edges(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs4[4] = {1, 4, 5, 6}, w130[4] = {130, 2, 3, 3}, x3[3] = {2, 4, 9}, w32[3] = {32, 4, 3};
    int64_t qs[4] = {2, 3, 4, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 600}, ms[2] = {4, 7};
    int64_t q0[3] = {1, 2, 8}, k0[3] = {1, 0, 8}, v0[3] = {1, 0, 5}, as[2] = {4, 6}, n = 8192, four = 4;
    static const float ties[24] = {1, 3, 3, 0, 2, 3,   5, 5, 5, 5, 5, 5,   0, 1, 0, 1, 0, 1,   2, 0, 4, 0, 4, 2};
    static const uint8_t mask[28] = {1, 0, 1, 1, 0, 1, 1,  0, 0, 0, 0, 0, 0, 0,  1, 1, 1, 1, 1, 1, 1,  0, 0, 0, 0, 0, 0, 1};
    static const uint8_t bytes[4] = {2, 0, 255, 1};
    float *big = (float *)malloc(sizeof(float) * 8192), tiesnan[24];
    tt_tensor *p[2], *x[3], *x2[3], *m, *wb;
    int i;
    p[0] = tu_param(wc, 1, 4, w130, 0.2f, 0.0f);
    p[1] = tu_param1(wc, 2, 130, 0.1f, 0.0f);
    x[0] = tt_randn(c, 3, 4, xs4);
    x2[0] = tt_randn(c, 4, 4, xs4);
    tc_check_model(tc_grouped_conv_fn, p, c, x, x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "grouped GEMM conv");
    wb = tu_param(wc, 5, 3, w32, 0.3f, 0.0f);
    x[0] = tt_randn(c, 6, 3, x3);
    x2[0] = tt_randn(c, 7, 3, x3);
    tc_check_model(tc_conv1d_gemm_fn, wb, c, x, x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "conv1d GEMM");
    x[0] = tt_randn(c, 8, 4, qs);
    x[1] = tt_randn(c, 9, 4, ks);
    x[2] = tt_randn(c, 10, 4, vs);
    x2[0] = tt_randn(c, 11, 4, qs);
    x2[1] = tt_randn(c, 12, 4, ks);
    x2[2] = tt_randn(c, 13, 4, vs);
    tc_check_model(tc_attention_fn3, NULL, c, x, x2, 3, TT_MODE_DEFAULT, TT_PASS_ALL, "attention, 600 features");
    m = tt_from_data(wc, TT_BOOL, 2, ms, mask);                                 /* query 1 sees no key */
    tc_check_model(tc_attention_fn3, m, c, x, x2, 3, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "attention, a query masked out");
    x[0] = tt_randn(c, 14, 3, q0);
    x[1] = tt_zeros(c, TT_F32, 3, k0);
    x[2] = tt_zeros(c, TT_F32, 3, v0);
    tc_check_model(tc_attention_fn3, NULL, c, x, x, 3, TT_MODE_DEFAULT, TT_PASS_ALL, "attention, no keys");
    memcpy(tiesnan, ties, sizeof ties);
    tiesnan[20] = NAN;                                                          /* row 3: the NaN wins */
    x[0] = tt_from_data(c, TT_F32, 2, as, ties);
    x2[0] = tt_from_data(c, TT_F32, 2, as, tiesnan);
    tc_check_model(tc_argmax_fn, NULL, c, x, x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "argmax, ties and NaN");
    for (i = 0; big && i < 8192; i++) big[i] = 10000.0f + 0.01f * (float)i;
    x[0] = big ? tt_from_data(c, TT_F32, 1, &n, big) : NULL;
    if (CHECK(x[0] != NULL)) tc_check_model(tc_moments_fn, NULL, c, x, x, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "moments near 10000");
    x[0] = tt_from_data(c, TT_BOOL, 1, &four, bytes);
    tc_check_model(tc_bool_bytes_fn, NULL, c, x, x, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "bool bytes 2 and 255");
    free(big);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* Rows longer than a block (300 > 256 threads): softmax on a middle axis, reductions over two
   axes with a view input, var with a correction, argmax, layer norm over two axes. */
static tt_tensor *tc_rows_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    int ax02[2] = {0, 2}, one = 1;
    tt_tensor *x = xs[0], *t = tt_transpose(c, x, 0, 1);                       /* [300,7,5] view */
    tt_tensor *s = tt_softmax(c, x, 1), *ls = tt_log_softmax(c, t, 0);
    tt_tensor *r = tt_add(c, tt_sum(c, t, ax02, 2, true), tt_var(c, t, ax02, 2, 1, true));
    tt_tensor *m = tt_cast(c, tt_argmax(c, x, 1, true), TT_F32);
    tt_tensor *n = tt_layer_norm(c, x, 2, NULL, NULL, 1e-5f);
    tt_tensor *q = tt_rms_norm(c, t, 1, NULL, 1e-5f);
    (void)w;
    r = tt_add(c, tt_add(c, tt_sum(c, r, NULL, 0, false), tt_max(c, ls, &one, 1, false)), tt_min(c, q, NULL, 0, false));
    return tt_add(c, tt_add(c, tt_add(c, s, n), tt_mul_scalar(c, m, 0.001f)), tt_mean(c, r, NULL, 0, false));
}

static void test_rows(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[3] = {7, 300, 5};
    tt_tensor *x = tt_randn(c, 1, 3, s), *x2 = tt_randn(c, 2, 3, s);
    tc_check_model(tc_rows_fn, NULL, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL, "row ops");
    tc_check_model(tc_rows_fn, NULL, c, &x, &x2, 1, TT_MODE_DEFAULT, 0u, "row ops unoptimized");
    tt_ctx_destroy(c);
}

/* Attention over 300 keys (two chunks of 256), 40 value features (k and v slices of one
   tensor: strided views): causal, with a float mask [9,300], with a bool mask [3,1,300]
   broadcast over the batch and the queries. */
static tt_tensor *tc_attention_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *q = xs[0];
    tt_tensor *k = tt_slice(c, xs[1], 3, 0, 16, 1);
    tt_tensor *v = tt_slice(c, xs[1], 3, 16, 56, 1);
    tt_tensor *bmask = tt_gt(c, xs[3], tt_scalar(c, -1.0f));
    tt_tensor *a = tt_scaled_dot_product_attention(c, q, k, v, NULL, true, 0.0f);
    tt_tensor *b = tt_scaled_dot_product_attention(c, q, k, v, xs[2], false, 0.3f);
    tt_tensor *d = tt_scaled_dot_product_attention(c, q, k, v, bmask, false, 0.0f);
    (void)w;
    a = tt_add(c, a, b);
    return tt_add(c, a, d);
}

static void test_attention(void) {
    tt_ctx *c = tu_ctx();
    int64_t qs[4] = {2, 3, 9, 16}, kvs[4] = {2, 3, 300, 56}, fms[2] = {9, 300}, bms[3] = {3, 1, 300};
    tt_tensor *x[4], *x2[4];
    x[0] = tt_randn(c, 1, 4, qs);
    x[1] = tt_randn(c, 2, 4, kvs);
    x[2] = tt_randn(c, 3, 2, fms);
    x[3] = tt_randn(c, 4, 3, bms);
    x2[0] = tt_randn(c, 5, 4, qs);
    x2[1] = tt_randn(c, 6, 4, kvs);
    x2[2] = tt_randn(c, 7, 2, fms);
    x2[3] = tt_randn(c, 8, 3, bms);
    tc_check_model(tc_attention_fn, NULL, c, x, x2, 4, TT_MODE_DEFAULT, TT_PASS_ALL, "attention");
    tt_ctx_destroy(c);
}

/* Data movement: concat, stack, constant padding, and an output that is a transposed view. */
static tt_tensor *tc_moves_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    int64_t pads[4] = {1, 2, 0, 3};
    tt_tensor *parts[3], *cat, *st, *pd;
    (void)w;
    parts[0] = xs[0];
    parts[1] = tt_exp(c, xs[0]);
    parts[2] = tt_transpose(c, xs[1], 0, 1);
    cat = tt_concat(c, parts, 3, 1);                                            /* [5,19] */
    st = tt_stack(c, parts, 2, 0);                                              /* [2,5,7] */
    pd = tt_pad(c, xs[0], pads, 4, -2.0f);                                      /* [8,10] */
    cat = tt_add(c, tt_sum(c, cat, NULL, 0, false), tt_sum(c, st, NULL, 0, false));
    return tt_transpose(c, tt_add(c, pd, cat), 0, 1);
}

static void test_data_movement(void) {
    tt_ctx *c = tu_ctx();
    int64_t a[2] = {5, 7}, b[2] = {5, 5};
    tt_tensor *x[2], *x2[2];
    x[0] = tt_randn(c, 1, 2, a);
    x[1] = tt_randn(c, 2, 2, b);
    x2[0] = tt_randn(c, 3, 2, a);
    x2[1] = tt_randn(c, 4, 2, b);
    tc_check_model(tc_moves_fn, NULL, c, x, x2, 2, TT_MODE_DEFAULT, TT_PASS_ALL, "data movement");
    tc_check_model(tc_moves_fn, NULL, c, x, x2, 2, TT_MODE_DEFAULT, 0u, "data movement unoptimized");
    tt_ctx_destroy(c);
}

/* Embedding rows and a gather; an index out of range is TT_ERR_INDEX after the run (the
   kernel writes zeros there and reads nothing out of bounds), as the CPU refuses it. */
static tt_tensor *tc_index_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    tt_tensor *const *p = (tt_tensor *const *)w;
    tt_tensor *e = tt_embedding(c, p[0], xs[0]);                               /* [3,4,6] */
    tt_tensor *gathered = tt_gather(c, e, 1, p[1]);                            /* [3,2,6] */
    return tt_sum(c, gathered, NULL, 0, false);
}

static void test_index_ops(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t ws[2] = {11, 6}, is[2] = {3, 4}, gs[3] = {3, 2, 6};
    static const int32_t ids[12] = {0, 10, 3, 3, 7, 1, 2, 9, 5, 5, 4, 8}, ids2[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1};
    int32_t gidx[36], i;
    tt_tensor *p[2], *x, *x2, *bad;
    tt_status moved = TT_OK;
    tt_graph *g;
    for (i = 0; i < 36; i++) gidx[i] = (i * 7) % 4;
    p[0] = tu_param(wc, 1, 2, ws, 1.0f, 0.0f);
    p[1] = tt_from_data(wc, TT_I32, 3, gs, gidx);
    x = tt_from_data(c, TT_I32, 2, is, ids);
    x2 = tt_from_data(c, TT_I32, 2, is, ids2);
    tc_check_model(tc_index_fn, p, c, &x, &x2, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, "embedding, gather");
    g = tc_gpu_graph(c, tc_index_fn, p, &x, 1, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
    bad = tt_from_data(c, TT_I32, 2, is, ids);
    if (g && CHECK_EQ_INT(moved, TT_OK) && CHECK(bad != NULL)) {
        ((int32_t *)bad->data)[5] = 11;                 /* one past the 11 rows */
        CHECK_EQ_INT(tt_graph_run(g, &bad, 1), TT_ERR_INDEX);
        CHECK(tt_graph_error(g) && strstr(tt_graph_error(g), "index out of range") != NULL);
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- REDUCE_OVERHEAD: one CUDA graph, captured once, replayed ------------------------------ */

static void test_reduce_overhead(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[2] = {5, 37};
    tr_mlp_w w = tr_mlp_make(wc, 37, 67, 10, 7);
    tt_tensor *x = tt_randn(c, 1, 2, s), *x2 = tt_randn(c, 2, 2, s);
    tt_status moved = TT_OK;
    tt_graph *g = tc_gpu_graph(c, tr_mlp_apply, &w, &x, 1, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL, &moved);
    int run;
    if (g && CHECK_EQ_INT(moved, TT_OK) && CHECK_EQ_INT(tt_graph_bind(g, &x, 1), TT_OK)) {
#ifdef TC_EMULATED
        long launches = tc_emu_graph_launches();
#endif
        for (run = 0; run < 3; run++) {                /* new values in the bound tensor each run */
            tt_scope sc = tt_scope_begin(c);
            tt_tensor *fresh = run == 1 ? x2 : tt_randn(c, 10u + (uint64_t)run, 2, s);
            tt_tensor *want;
            memcpy(x->data, fresh->data, sizeof(float) * 5 * 37);
            want = tr_mlp_apply(c, &x, &w);
            CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
            tc_close(c, tt_graph_output(g, 0), want, "mlp replayed");
            tt_scope_end(c, sc);
        }
#ifdef TC_EMULATED
        CHECK_EQ_INT(tc_emu_graph_launches() - launches, 3);   /* captured once, replayed each run */
#endif
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* REDUCE_OVERHEAD, two outputs, one a view of the input: the replay gives this run's input
   (the view's header is made again), and a parameter changed between runs is read again, as
   the CPU reads it; then a device-pointer run between two bound runs leaves the binding alone. */
static void test_reduce_overhead_views_and_params(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[2] = {3, 5}, sw = 5;
    tt_tensor *x = tt_randn(c, 1, 2, s), *w = tt_randn(wc, 2, 1, &sw), *y[2];
    tt_graph *g;
    int run;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y[0] = tt_transpose(c, x, 0, 1);
    y[1] = tt_exp(c, tt_mul(c, x, w));
    g = tt_trace_end(c, y, 2);
    if (!CHECK(g != NULL) || !CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL), TT_OK) ||
        !CHECK_EQ_INT(tt_graph_to_cuda(g, 0), TT_OK) || !CHECK_EQ_INT(tt_graph_bind(g, &x, 1), TT_OK)) {
        tt_graph_destroy(g);
        tt_ctx_destroy(c);
        tt_ctx_destroy(wc);
        return;
    }
    for (run = 0; run < 3; run++) {
        tt_scope sc = tt_scope_begin(c);
        tt_tensor *fresh = tt_randn(c, 20u + (uint64_t)run, 2, s), *want0, *want1;
        memcpy(x->data, fresh->data, sizeof(float) * 15);
        ((float *)w->data)[run] += 0.5f;                /* the user changes a weight */
        if (run == 2) {                                 /* a device run in between: the binding stays */
            void *d_x = tt_cuda_alloc(15 * sizeof(float));
            CHECK(d_x && tt_cuda_upload(d_x, fresh->data, 15 * sizeof(float)));
            CHECK_EQ_INT(tt_graph_run_cuda(g, (const void *const *)&d_x, NULL), TT_OK);
            CHECK_EQ_INT(tt_graph_cuda_sync(g), TT_OK);
            tt_cuda_free(d_x);
        }
        want0 = tt_transpose(c, x, 0, 1);
        want1 = tt_exp(c, tt_mul(c, x, w));
        CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
        tc_close(c, tt_graph_output(g, 0), want0, "a view of the input, replayed");
        tc_close(c, tt_graph_output(g, 1), want1, "exp(x * w), w changed");
        tt_scope_end(c, sc);
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- device pointers ----------------------------------------------------------------------- */

/* tt_graph_run_cuda on device buffers, an output that is a view made contiguous on the way. */
static void test_device_pointers(void) {
    tt_ctx *c = tu_ctx();
    int64_t a[2] = {5, 7}, b[2] = {5, 5};
    tt_tensor *x[2], *want;
    tt_status moved = TT_OK;
    tt_graph *g;
    x[0] = tt_randn(c, 1, 2, a);
    x[1] = tt_randn(c, 2, 2, b);
    g = tc_gpu_graph(c, tc_moves_fn, NULL, x, 2, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
    want = tc_moves_fn(c, x, NULL);
    if (g && CHECK_EQ_INT(moved, TT_OK) && CHECK(want != NULL)) {
        void *d_in[2], *d_out[1];
        tt_tensor *got = tt_empty(c, TT_F32, want->ndim, want->shape);
        d_in[0] = tt_cuda_alloc(35 * sizeof(float));
        d_in[1] = tt_cuda_alloc(25 * sizeof(float));
        d_out[0] = tt_cuda_alloc((size_t)want->numel * sizeof(float));
        if (CHECK(d_in[0] && d_in[1] && d_out[0] && got)) {
            CHECK(tt_cuda_upload(d_in[0], x[0]->data, 35 * sizeof(float)));
            CHECK(tt_cuda_upload(d_in[1], x[1]->data, 25 * sizeof(float)));
            if (!CHECK_EQ_INT(tt_graph_run_cuda(g, (const void *const *)d_in, d_out), TT_OK)) printf("    %s\n", tt_graph_error(g));
            CHECK_EQ_INT(tt_graph_cuda_sync(g), TT_OK);
            CHECK(tt_cuda_download(got->data, d_out[0], (size_t)want->numel * sizeof(float)));
            tc_close(c, got, want, "device pointers");
        }
        tt_cuda_free(d_in[0]);
        tt_cuda_free(d_in[1]);
        tt_cuda_free(d_out[0]);
        CHECK_EQ_INT(tt_graph_run_cuda(g, NULL, NULL), TT_ERR_ARG);       /* the graph has inputs */
        CHECK(tt_graph_error(g) && strstr(tt_graph_error(g), "d_inputs is NULL") != NULL);
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* ---- what a GPU can refuse ----------------------------------------------------------------- */

static tt_tensor *tc_relu_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_relu(c, tt_add_scalar(c, xs[0], 0.25f));
}

/* Pooling an f16 tensor: the GPU's pooling kernel reads f32 only. */
static tt_tensor *tc_f16_pool_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_max_pool2d(c, tt_cast(c, xs[0], TT_F16), 2, 1, 0);
}

/* Attention with 1025 value features: more than its GPU kernel's threads hold. */
static tt_tensor *tc_wide_attention_fn(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    (void)w;
    return tt_scaled_dot_product_attention(c, xs[0], xs[1], xs[2], NULL, false, 0.0f);
}

/* A node the GPU cannot run: refused naming it, the graph left on the CPU and correct; compiling
   again brings a moved graph back to the CPU; calls on a graph not on the GPU; NULLs. */
static void test_refusals(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[4] = {1, 2, 3, 4};
    tt_tensor *x = tt_randn(c, 1, 4, s);
    tt_status moved = TT_OK;
    tt_graph *g = tc_gpu_graph(c, tc_f16_pool_fn, NULL, &x, 1, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
    char name[8];
    if (g) {
        CHECK_EQ_INT(moved, TT_ERR_UNSUPPORTED);
        CHECK(tt_graph_error(g) && strstr(tt_graph_error(g), "(max_pool): its kernel reads f32, input 0 is not") != NULL);
        tt_graph_clear_error(g);
        tc_run_against_eager(c, g, tc_f16_pool_fn, NULL, &x, 1, "f16 pooling on the CPU");
        CHECK_EQ_INT(tt_graph_run_cuda(g, NULL, NULL), TT_ERR_STATE);
        CHECK_EQ_INT(tt_graph_cuda_sync(g), TT_ERR_STATE);
    }
    tt_graph_destroy(g);
    {
        int64_t qs[4] = {1, 1, 2, 4}, ks[4] = {1, 1, 3, 4}, vs[4] = {1, 1, 3, 1025};
        tt_tensor *qkv[3];
        qkv[0] = tt_randn(c, 2, 4, qs);
        qkv[1] = tt_randn(c, 3, 4, ks);
        qkv[2] = tt_randn(c, 4, 4, vs);
        g = tc_gpu_graph(c, tc_wide_attention_fn, NULL, qkv, 3, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
        if (g && CHECK_EQ_INT(moved, TT_ERR_UNSUPPORTED))
            CHECK(strstr(tt_graph_error(g), "(scaled_dot_product_attention): v has more than 1024 features") != NULL);
        tt_graph_destroy(g);
    }
    g = tc_gpu_graph(c, tc_relu_fn, NULL, &x, 1, TT_MODE_DEFAULT, TT_PASS_ALL, &moved);
    if (g && CHECK_EQ_INT(moved, TT_OK)) {
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, 0u), TT_OK);      /* back on the CPU */
        CHECK(!tt_graph_on_cuda(g));
        tc_run_against_eager(c, g, tc_relu_fn, NULL, &x, 1, "recompiled on the CPU");
        CHECK_EQ_INT(tt_graph_to_cuda(g, 0), TT_OK);                        /* and moved again */
        tc_run_against_eager(c, g, tc_relu_fn, NULL, &x, 1, "moved again");
    }
    tt_graph_destroy(g);
    CHECK_EQ_INT(tt_graph_to_cuda(NULL, 0), TT_ERR_ARG);
    CHECK(!tt_graph_on_cuda(NULL));
    CHECK_EQ_INT(tt_graph_run_cuda(NULL, NULL, NULL), TT_ERR_ARG);
    CHECK_EQ_INT(tt_graph_cuda_sync(NULL), TT_ERR_ARG);
    CHECK(!tt_cuda_device_name(0, NULL, 8));
    CHECK(!tt_cuda_device_name(-1, name, sizeof name));                     /* a short buffer: cut, terminated */
    CHECK(strlen(name) == sizeof name - 1);
    tt_ctx_destroy(c);
}

#ifdef TC_EMULATED
/* The move fails with TT_ERR_BACKEND and CUDA's words; the graph stays on the CPU, correct;
   nothing allocated on the device is left behind. */
static void tc_check_move_fails(const char *expect1, const char *expect2) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[2] = {5, 37};
    tr_mlp_w w = tr_mlp_make(wc, 37, 67, 10, 7);
    tt_tensor *x = tt_randn(c, 1, 2, s);
    tt_status moved = TT_OK;
    tt_graph *g = tc_gpu_graph(c, tr_mlp_apply, &w, &x, 1, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE, &moved);
    if (g) {
        const char *msg = tt_graph_error(g) ? tt_graph_error(g) : "(none)";
        if (!CHECK_EQ_INT(moved, TT_ERR_BACKEND) || !CHECK(strstr(msg, expect1) != NULL) || !CHECK(strstr(msg, expect2) != NULL))
            printf("    message: %s\n", msg);
        tt_graph_clear_error(g);
        CHECK(!tt_graph_on_cuda(g));
        tc_run_against_eager(c, g, tr_mlp_apply, &w, &x, 1, "mlp left on the CPU");
    }
    tt_graph_destroy(g);
    CHECK_EQ_INT(tc_emu_live_allocations(), 0);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_no_device(void) {
    char name[256];
    tc_emu_set_device_count(0);
    CHECK_EQ_INT(tt_cuda_device_count(), 0);
    CHECK(strstr(tt_cuda_error(), "cudaErrorNoDevice") != NULL);
    CHECK(!tt_cuda_device_name(0, name, sizeof name));
    CHECK(strstr(name, "no CUDA device 0") != NULL);
    tc_check_move_fails("0 CUDA devices found", "stays on the CPU");
    tc_emu_reset();
    CHECK_EQ_INT(tt_cuda_device_count(), 1);
    CHECK(tt_cuda_device_name(0, name, sizeof name));
    CHECK(strstr(name, "sm_") != NULL);
}

static void test_driver_too_old(void) {
    tc_emu_set_driver_version(1000);
    CHECK_EQ_INT(tt_cuda_device_count(), 0);
    CHECK(strstr(tt_cuda_error(), "cudaErrorInsufficientDriver") != NULL);
    tc_check_move_fails("0 CUDA devices found", "cudaErrorInsufficientDriver");
    tc_emu_reset();
}

/* Out of device memory at each of the move's allocations in turn (arena, constants,
   programs): each a clear error, nothing leaked, the graph on the CPU. */
static void test_out_of_device_memory(void) {
    static const char *const which[3] = {"cudaMalloc of the arena", "cudaMalloc of the constants", "cudaMalloc of the programs"};
    int i;
    for (i = 0; i < 3; i++) {
        tc_emu_fail_malloc_after(i);
        tc_check_move_fails(which[i], "cudaErrorMemoryAllocation");
        tc_emu_reset();
    }
    tc_emu_fail_malloc_after(0);
    CHECK(tt_cuda_alloc(16) == NULL);
    CHECK(strstr(tt_cuda_error(), "tt_cuda_alloc: cudaMalloc failed: out of memory") != NULL);
    tc_emu_reset();
}

/* A destroyed graph frees every device allocation. */
static void test_no_device_leaks(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[4] = {1, 2, 3, 4};
    tt_tensor *x = tt_randn(c, 1, 4, s);
    tt_status moved = TT_OK;
    tt_graph *g = tc_gpu_graph(c, tc_relu_fn, NULL, &x, 1, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL, &moved);
    if (g && CHECK_EQ_INT(moved, TT_OK)) {
        CHECK(tc_emu_live_allocations() > 0);
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    }
    tt_graph_destroy(g);
    CHECK_EQ_INT(tc_emu_live_allocations(), 0);
    tt_ctx_destroy(c);
}
#endif

TT_TEST_GROUP(cuda) = {
    {"every_op", test_every_op},
    {"zoo_mlp", test_zoo_mlp},
    {"zoo_cnn", test_zoo_cnn},
    {"zoo_mobilenetv2_blocks", test_zoo_mbv2},
    {"zoo_transformer", test_zoo_transformer},
    {"zoo_moe_chain", test_zoo_moe_chain},
    {"matmul_against_double", test_matmul_against_double},
    {"conv_and_pool", test_conv_and_pool},
    {"rarer_forms", test_rarer_forms},
    {"edges", test_edges},
    {"half_weights", test_half_weights},
    {"rows", test_rows},
    {"attention", test_attention},
    {"data_movement", test_data_movement},
    {"index_ops", test_index_ops},
    {"reduce_overhead", test_reduce_overhead},
    {"reduce_overhead_views_and_params", test_reduce_overhead_views_and_params},
    {"device_pointers", test_device_pointers},
    {"refusals", test_refusals},
#ifdef TC_EMULATED
    {"no_device", test_no_device},
    {"driver_too_old", test_driver_too_old},
    {"out_of_device_memory", test_out_of_device_memory},
    {"no_device_leaks", test_no_device_leaks},
#endif
    {NULL, NULL}
};
