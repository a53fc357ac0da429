/* test_regress.c - one test per defect found by review, each a small graph whose compiled
   result must equal the eager result computed during the trace (bitwise, or within 1e-5
   relative where batch-norm folding changed the arithmetic). */
#include "test_util.h"

/* Runs g on its traced inputs and compares output k with the eager tensor want[k]. */
static void rg_run_and_compare(tt_ctx *c, tt_graph *g, tt_tensor *const *inputs, int n_in,
                               tt_tensor *const *want, int n_out, double rtol) {
    int k;
    if (!CHECK(g != NULL)) return;
    if (!CHECK_EQ_INT(tt_graph_run(g, inputs, n_in), TT_OK)) { printf("    %s\n", tt_graph_error(g)); return; }
    for (k = 0; k < n_out; k++) {
        if (rtol == 0) { CHECK_SAME_BITS(c, tt_graph_output(g, k), want[k]); continue; }
        {
            float *got = tu_values(c, tt_graph_output(g, k)), *ref = tu_values(c, want[k]);
            double *refd = (double *)malloc(sizeof(double) * (size_t)want[k]->numel);
            int64_t i;
            for (i = 0; ref && refd && i < want[k]->numel; i++) refd[i] = ref[i];
            CHECK_ALLCLOSE(got, refd, want[k]->numel, 1e-6, rtol);
            free(got); free(ref); free(refd);
        }
    }
}

/* Simplify replaces c = b+0 by b, then CSE removes b for a: uses of c must reach a.
   (Run on a new input: the graph must compute, not replay the traced buffers.) */
static tt_tensor *rg_chain_model(tt_ctx *c, tt_tensor *x, tt_tensor **cc) {
    tt_tensor *a = tt_relu(c, x);                      /* a first: CSE then replaces the later b by a */
    *cc = tt_add_scalar(c, tt_relu(c, x), 0.0f);
    return tt_add(c, a, *cc);
}

static void test_replacement_chain_cse(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[1] = {33};
    tt_tensor *x = tt_randn(c, 1, 1, sh), *x2 = tt_randn(c, 2, 1, sh), *outs[2], *want[2];
    tt_graph *g;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    outs[0] = rg_chain_model(c, x, &outs[1]);
    g = tt_trace_end(c, outs, 2);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    want[0] = rg_chain_model(c, x2, &want[1]);
    rg_run_and_compare(c, g, &x2, 1, want, 2, 0);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* Simplify replaces m = e*1 by e, then constant folding removes e: m must be the constant. */
static void test_replacement_chain_fold(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[1] = {7};
    tt_tensor *x = tt_randn(c, 2, 1, sh), *y;
    tt_graph *g;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = tt_add(c, x, tt_mul_scalar(c, tt_exp(c, tt_reshape(c, tt_full(c, TT_F32, 1, sh, 1.0), 1, sh)), 1.0f));
    g = tt_trace_end(c, &y, 1);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    rg_run_and_compare(c, g, &x, 1, &y, 1, 0);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* Simplify replaces z = bn*1 by bn, then batch-norm folding removes bn for the conv. */
static void test_replacement_chain_fold_bn(void) {
    tt_ctx *c = tu_ctx();
    int64_t sx[4] = {1, 2, 5, 5}, sw[4] = {3, 2, 1, 1}, s3[1] = {3};
    tt_tensor *x = tt_randn(c, 1, 4, sx), *w = tt_randn(c, 2, 4, sw), *mu = tt_randn(c, 3, 1, s3);
    tt_tensor *var = tt_add_scalar(c, tt_rand(c, 4, 1, s3), 0.5f), *o;
    tt_graph *g;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    o = tt_relu(c, tt_mul_scalar(c, tt_batch_norm(c, tt_conv2d(c, x, w, NULL, 1, 0, 1, 1), mu, var, NULL, NULL, 1e-5f), 1.0f));
    g = tt_trace_end(c, &o, 1);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE);
    rg_run_and_compare(c, g, &x, 1, &o, 1, 1e-5);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* A fused node reads u directly and through a transpose: no in-place reuse of u. */
static void test_inplace_with_view_read(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[2] = {32, 16}, sw[2] = {16, 32};
    tt_tensor *x = tt_randn(c, 1, 2, sh), *w = tt_randn(c, 2, 2, sw), *u, *y;
    tt_graph *g;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    u = tt_matmul(c, x, w);
    y = tt_add(c, tt_relu(c, u), tt_transpose(c, u, 0, 1));
    g = tt_trace_end(c, &y, 1);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    rg_run_and_compare(c, g, &x, 1, &y, 1, 0);
    if (g) {
        tt_graph_set_debug(g, TT_DEBUG_POISON);
        rg_run_and_compare(c, g, &x, 1, &y, 1, 0);
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* {relu(x), clone(x)} fused with x copied into its slot: the clone must not read relu's store. */
static void test_inplace_with_aliasing_store(void) {
    tt_ctx *c = tu_ctx();
    int64_t sx[2] = {32, 32};
    tt_tensor *x = tt_transpose(c, tt_randn(c, 1, 2, sx), 0, 1), *outs[2];
    tt_graph *g;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    outs[0] = tt_relu(c, x);
    outs[1] = tt_clone(c, x);
    g = tt_trace_end(c, outs, 2);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    rg_run_and_compare(c, g, &x, 1, outs, 2, 0);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* The memory plan let a fused node's output take a shifted part of the bytes of the input it
   may reuse (found by review: [8,64] softmax u, tanh(u)*2 placed 1 KiB past u's offset), so
   element i overwrote element i + 256 before the program read it. An output may take a dying
   input's bytes only exactly. */
static void test_inplace_shifted_overlap(void) {
    tt_ctx *c = tu_ctx();
    int64_t sx[2] = {8, 16}, s1[2] = {8, 64}, sw1[2] = {16, 96}, sw1b[2] = {96, 4}, sw2[2] = {16, 192};
    tt_tensor *w1 = tt_randn(c, 2, 2, sw1), *w1b = tt_randn(c, 3, 2, sw1b), *w2 = tt_randn(c, 4, 2, sw2);
    tt_tensor *ins[2], *outs[3], *b1, *u;
    tt_graph *g;
    ins[0] = tt_randn(c, 5, 2, sx);
    ins[1] = tt_randn(c, 7, 2, s1);
    tt_trace_begin(c);
    tt_trace_input(c, ins[0], "x");
    tt_trace_input(c, ins[1], "in1");
    b1 = tt_matmul(c, ins[0], w1);                     /* [8,96] */
    u = tt_softmax(c, ins[1], -1);                     /* [8,64]: dies in the fused node below */
    outs[2] = tt_matmul(c, b1, w1b);                   /* b1's last reader */
    outs[0] = tt_mul_scalar(c, tt_tanh(c, u), 2.0f);   /* fused{tanh, mul}: may take u's bytes */
    outs[1] = tt_matmul(c, ins[0], w2);                /* [8,192]: placed first, pushes the rest */
    g = tt_trace_end(c, outs, 3);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    rg_run_and_compare(c, g, ins, 2, outs, 3, 0);
    if (g) {
        tt_graph_set_debug(g, TT_DEBUG_POISON);
        rg_run_and_compare(c, g, ins, 2, outs, 3, 0);
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* An input that counts as contiguous but has an odd stride on a size-1 axis runs with the
   scratch measured at compile (no out-of-memory in the run). */
static void test_input_with_odd_unit_stride(void) {
    tt_ctx *c = tu_ctx();
    int64_t sk[2] = {1, 1000}, sa[2] = {1000, 8};
    tt_tensor *x = tt_transpose(c, tt_randn(c, 1, 2, sk), 0, 1);
    tt_tensor *w = tt_transpose(c, tt_randn(c, 2, 2, sa), 0, 1), *y;
    tt_graph *g;
    CHECK(tt_is_contiguous(x));
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = tt_matmul(c, w, x);
    g = tt_trace_end(c, &y, 1);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    rg_run_and_compare(c, g, &x, 1, &y, 1, 0);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

/* Variance with N - correction <= 0 divides by 0, as PyTorch: NaN, never a negative value. */
static void test_var_small_n(void) {
    tt_ctx *c = tu_ctx();
    int64_t s1[1] = {1};
    tt_tensor *v = tt_var(c, tt_full(c, TT_F32, 1, s1, 3.0), NULL, 0, 2, false);
    CHECK(v != NULL && isnan(tt_item(c, v)));
    tt_ctx_destroy(c);
}

/* conv2d with zero input channels is bias only (the batched path divided by Kc = 0). */
static void test_conv_zero_channels(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4] = {2, 0, 5, 5}, ws[4] = {3, 0, 3, 3}, i;
    float bv[3] = {1.5f, -2.0f, 0.25f};
    int64_t bs[1] = {3};
    tt_tensor *y = tt_conv2d(c, tt_zeros(c, TT_F32, 4, xs), tt_zeros(c, TT_F32, 4, ws),
                             tt_from_data(c, TT_F32, 1, bs, bv), 1, 0, 1, 1);
    float *got = tu_values(c, y);
    if (CHECK(got != NULL) && CHECK_EQ_INT(y->numel, 2 * 3 * 3 * 3))
        for (i = 0; i < y->numel; i++) CHECK_NEAR(got[i], bv[(i / 9) % 3], 0, 0);
    free(got);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A batch convolution in a small user buffer: the batched im2col does not fit, so it must
   fall back to one image at a time (as v0.2 did) and give the heap context's values. */
static void test_conv_batch_falls_back(void) {
    size_t size = (size_t)3 << 20;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *small, *heap = tu_ctx();
    int64_t xs[4] = {8, 16, 32, 32}, ws[4] = {16, 16, 3, 3}, i;
    tt_tensor *y, *want;
    d.mem_buffer = malloc(size);
    d.mem_size = size;
    d.n_threads = 1;
    small = tt_ctx_create(&d);
    if (!CHECK(small != NULL)) { free(d.mem_buffer); tt_ctx_destroy(heap); return; }
    y = tt_conv2d(small, tt_randn(small, 1, 4, xs), tt_randn(small, 2, 4, ws), NULL, 1, 1, 1, 1);
    want = tt_conv2d(heap, tt_randn(heap, 1, 4, xs), tt_randn(heap, 2, 4, ws), NULL, 1, 1, 1, 1);
    if (!y) printf("    %s\n", tt_error(small));
    if (CHECK(y != NULL) && CHECK(want != NULL) && CHECK_EQ_INT(y->numel, want->numel)) {
        float *a = tu_values(small, y), *b = tu_values(heap, want);
        double *bd = (double *)malloc(sizeof(double) * (size_t)want->numel);
        for (i = 0; a && b && bd && i < want->numel; i++) bd[i] = b[i];
        if (a && bd) CHECK_ALLCLOSE(a, bd, want->numel, 1e-5, 1e-5);
        free(a); free(b); free(bd);
    }
    tt_ctx_destroy(small);
    free(d.mem_buffer);
    tt_ctx_destroy(heap);
}

/* Attention over zero keys gives zeros, as PyTorch (an empty sum), not the NaN of a row
   whose every key is masked. */
static void test_attention_no_keys(void) {
    tt_ctx *c = tu_ctx();
    int64_t qs[2] = {2, 4}, ks[2] = {0, 4}, vs[2] = {0, 3}, i;
    tt_tensor *y = tt_scaled_dot_product_attention(c, tt_ones(c, TT_F32, 2, qs), tt_zeros(c, TT_F32, 2, ks),
                                                   tt_zeros(c, TT_F32, 2, vs), NULL, false, 0.0f);
    float *got = tu_values(c, y);
    if (CHECK(got != NULL) && CHECK_EQ_INT(y->numel, 6))
        for (i = 0; i < 6; i++) CHECK_NEAR(got[i], 0.0, 0, 0);
    free(got);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(regress) = {
    {"replacement_chain_cse", test_replacement_chain_cse},
    {"replacement_chain_fold", test_replacement_chain_fold},
    {"replacement_chain_fold_bn", test_replacement_chain_fold_bn},
    {"inplace_with_view_read", test_inplace_with_view_read},
    {"inplace_with_aliasing_store", test_inplace_with_aliasing_store},
    {"inplace_shifted_overlap", test_inplace_shifted_overlap},
    {"input_with_odd_unit_stride", test_input_with_odd_unit_stride},
    {"var_small_n", test_var_small_n},
    {"conv_zero_channels", test_conv_zero_channels},
    {"conv_batch_falls_back", test_conv_batch_falls_back},
    {"attention_no_keys", test_attention_no_keys},
    {NULL, NULL}
};
