/* test_harden.c - one test per defect of the hardening review (v0.3.0 tried as a hostile user
   would): each failed, or was undefined behaviour under UBSan/ASan, before its fix. Results
   are checked against values worked out here, never against the code under test alone. */
#include "test_util.h"
#include <stdint.h>

/* model: relu(x*w + b), w and b parameters of a weights context. */
static tt_tensor *hd_model(tt_ctx *c, tt_tensor *x, tt_tensor *w, tt_tensor *b) {
    return tt_relu(c, tt_add(c, tt_mul(c, x, w), b));
}

/* A graph compiled with TT_PASS_FREEZE owns copies of its parameters: the context that held
   them may be destroyed, and compiling again without FREEZE (it read the freed parameters)
   or with it must still compute with the values they had. */
static void test_freeze_then_free_params(void) {
    static const float xv[4] = {1.0f, -2.0f, 3.0f, -4.0f}, wv[4] = {0.5f, 0.25f, -1.0f, 2.0f};
    static const float bv[4] = {0.125f, 1.0f, 4.0f, 9.0f};
    static const unsigned passes[3] = {(unsigned)TT_PASS_ALL, 0u, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE};
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    int64_t s[1] = {4};
    tt_tensor *x = tt_from_data(c, TT_F32, 1, s, xv), *w = tt_from_data(wc, TT_F32, 1, s, wv);
    tt_tensor *b = tt_from_data(wc, TT_F32, 1, s, bv), *y;
    tt_graph *g;
    int k, i;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = hd_model(c, x, w, b);
    g = tt_trace_end(c, &y, 1);
    if (!CHECK(g != NULL)) { tt_ctx_destroy(wc); tt_ctx_destroy(c); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE), TT_OK);
    tt_ctx_destroy(wc);                                /* the parameters are gone */
    for (k = 0; k < 3; k++) {
        float got[4];
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[k]), TT_OK);
        if (!CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK)) { printf("    %s\n", tt_graph_error(g)); continue; }
        if (!CHECK_EQ_INT(tt_copy_to_f32(c, tt_graph_output(g, 0), got, 4), TT_OK)) continue;
        for (i = 0; i < 4; i++) {
            float v = xv[i] * wv[i] + bv[i];           /* exact in f32 for these values */
            CHECK_NEAR(got[i], v > 0 ? v : 0, 0, 0);
        }
    }
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Sizes computed by an op are checked before anything multiplies them (it overflowed int64_t:
   UBSan reported the pads, the upsampled size, the broadcast shape). */
static void test_size_overflow(void) {
    tt_ctx *c = tu_ctx();
    int64_t s4[4] = {1, 1, 1, 1}, s1[1] = {2}, big[2] = {(int64_t)1 << 40, 1}, big_t[2] = {1, (int64_t)1 << 40};
    int64_t pads[2] = {INT64_MAX - 1, 1}, ws[4] = {1, 1, 1, 3}, wide[4] = {1, 1, 1, (int64_t)1 << 40};
    tt_tensor *x4 = tt_zeros(c, TT_F32, 4, s4), *x1 = tt_zeros(c, TT_F32, 1, s1), *one = tt_scalar(c, 1.0f);
    CHECK(tt_pad(c, x1, pads, 2, 0.0f) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "overflows");
    CHECK(tt_upsample_nearest(c, x4, (int64_t)1 << 40, (int64_t)1 << 40) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_upsample_nearest: size of [1,1,1099511627776,1099511627776] overflows");
    CHECK(tt_add(c, tt_expand(c, one, 2, big), tt_expand(c, one, 2, big_t)) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_add: size of [1099511627776,1099511627776] overflows");
    CHECK(tt_conv2d(c, x4, tt_zeros(c, TT_F32, 4, ws), NULL, 1, 0, INT32_MAX, 1) == NULL);   /* dilated span */
    CHECK_ERROR(c, TT_ERR_SHAPE, "does not fit");
    CHECK(tt_conv2d(c, tt_expand(c, one, 4, wide), tt_expand(c, one, 4, wide), NULL, 1, 0, INT32_MAX, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_SHAPE, "does not fit");    /* 2^31 * 2^40: the span itself overflows */
    CHECK(tt_add(c, x1, x1) != NULL);                 /* the context goes on */
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A trace whose output is its input has no node: ending and compiling it handed memcpy a
   NULL pointer; the graph now runs and gives its input back. */
static void test_trace_without_nodes(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 3};
    tt_tensor *x = tt_randn(c, 1, 2, s), *x2 = tt_randn(c, 2, 2, s);
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    g = tt_trace_end(c, &x, 1);
    if (CHECK(g != NULL) && CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK) &&
        CHECK_EQ_INT(tt_graph_run(g, &x2, 1), TT_OK)) {
        CHECK_SAME_BITS(c, tt_graph_output(g, 0), x2);
    }
    CHECK_EQ_INT(tt_graph_num_nodes(g), 0);
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Part of a traced model computed on a second context escaped the trace and was frozen into
   the graph as a parameter with its traced value. It is an error now, in both contexts, so
   the trace cannot end in a graph that replays a stale value. A tensor of a context that is
   not tracing (a weights context) stays a parameter, read at every run. */
static void test_trace_escape_to_other_context(void) {
    tt_ctx *c = tu_ctx(), *other = tu_ctx();
    int64_t s[1] = {3};
    tt_tensor *x = tt_randn(c, 1, 1, s), *w = tt_randn(other, 2, 1, s), *y;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_mul(c, x, w);                               /* a parameter from another context: fine */
    CHECK(y != NULL);
    CHECK_NO_ERROR(c);
    CHECK(tt_exp(other, y) == NULL);                   /* the traced value y on the other context */
    CHECK_ERROR(other, TT_ERR_STATE, "tt_exp: x [3] is a value of another context's running trace");
    CHECK(tt_ctx_status(c) == TT_ERR_STATE);
    CHECK_STR_CONTAINS(tt_error(c), "tt_exp: an op on another context read a value of this context's running trace (x)");
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    tt_clear_error(c);
    CHECK(tt_exp(other, y) != NULL);                   /* after the trace, y is an ordinary tensor */
    CHECK_NO_ERROR(other);
    CHECK_GUARDS(c);
    tt_ctx_destroy(other);
    tt_ctx_destroy(c);
}

/* A scope opened on one context and ended on another freed the other's tensors silently;
   a scope ended after an enclosing one rewound to memory handed out since. */
static void test_scope_misuse(void) {
    tt_ctx *a = tu_ctx(), *b = tu_ctx();
    int64_t s[1] = {2};
    tt_tensor *keep = tt_full(b, TT_F32, 1, s, 7.0), *ta;
    tt_scope sa = tt_scope_begin(a), outer, inner;
    ta = tt_full(a, TT_F32, 1, s, 1.0);
    tt_scope_end(b, sa);
    CHECK_ERROR(b, TT_ERR_ARG, "tt_scope_end: scope was opened on another context");
    CHECK(tt_full(b, TT_F32, 1, s, -1.0) != NULL);   /* would reuse keep's bytes had they been freed */
    CHECK_NEAR(tt_item(b, tt_sum(b, keep, NULL, 0, false)), 14.0, 0, 0);
    tt_scope_end(a, sa);
    CHECK_NO_ERROR(a);
    (void)ta;
    outer = tt_scope_begin(a);
    (void)tt_full(a, TT_F32, 1, s, 1.0);
    inner = tt_scope_begin(a);
    (void)tt_full(a, TT_F32, 1, s, 2.0);
    tt_scope_end(a, outer);
    tt_scope_end(a, inner);                            /* its position was freed with outer */
    CHECK_ERROR(a, TT_ERR_ARG, "tt_scope_end: scope was already freed");
    CHECK_GUARDS(a);
    CHECK_GUARDS(b);
    tt_ctx_destroy(a);
    tt_ctx_destroy(b);
}

/* A 0-d tensor takes axis 0 and -1 in every op that reduces or rearranges along an axis
   (PyTorch's rule; some ops took any axis, others none), and no other axis. */
static void test_scalar_axes(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x = tt_scalar(c, 2.5f), *r;
    int ax[2] = {0, -1}, k, bad = 1;
    for (k = 0; k < 2; k++) {
        int a = ax[k];
        r = tt_sum(c, x, &a, 1, false);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 2.5f);
        r = tt_max(c, x, &a, 1, true);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 2.5f);
        r = tt_argmax(c, x, a, false);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 0.0f);
        r = tt_softmax(c, x, a);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 1.0f);
        r = tt_squeeze(c, x, a);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 2.5f);
        r = tt_unsqueeze(c, x, a);
        CHECK(r != NULL && r->ndim == 1 && r->shape[0] == 1);
        r = tt_flatten(c, x, a, a);
        CHECK(r != NULL && r->ndim == 1 && r->shape[0] == 1);
        r = tt_transpose(c, x, a, 0);
        CHECK(r != NULL && r->ndim == 0 && tt_item(c, r) == 2.5f);
        CHECK_NO_ERROR(c);
    }
    CHECK(tt_sum(c, x, &bad, 1, false) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_sum: axes[0] = 1 is out of range");
    CHECK(tt_argmin(c, x, 1, false) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_argmin: axis 1");
    CHECK(tt_squeeze(c, x, -2) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_squeeze: axis -2");
    CHECK(tt_flatten(c, x, 0, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_flatten: start_axis 0 and end_axis 1");
    CHECK(tt_transpose(c, x, 0, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_transpose: axis0 0 and axis1 1");
    CHECK(tt_sum(c, x, NULL, 1, false) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_sum: axes is NULL but n_axes is 1");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Broadcasting a third operand wrote the shape it was still reading (tt_where with b of
   higher rank, attention with v of higher batch rank): a wrong shape and reads past a
   and cond. Found by tests/fuzz_ops.c. */
static void test_broadcast_third_operand(void) {
    tt_ctx *c = tu_ctx();
    static const float av[2] = {-1.0f, 2.0f}, bv[3] = {10.0f, 20.0f, 30.0f};
    int64_t s2[1] = {2}, s31[2] = {3, 1}, sq[3] = {3, 4, 8}, sk[3] = {3, 5, 8}, sv[4] = {2, 1, 5, 6};
    tt_tensor *a = tt_from_data(c, TT_F32, 1, s2, av), *b = tt_from_data(c, TT_F32, 2, s31, bv);
    tt_tensor *y = tt_where(c, tt_gt(c, a, tt_scalar(c, 0.0f)), a, b), *o;
    float got[6];
    int i, j;
    if (CHECK(y != NULL) && CHECK_EQ_INT(y->ndim, 2) && CHECK_EQ_INT(y->shape[0], 3) && CHECK_EQ_INT(y->shape[1], 2) &&
        CHECK_EQ_INT(tt_copy_to_f32(c, y, got, 6), TT_OK))
        for (i = 0; i < 3; i++)
            for (j = 0; j < 2; j++) CHECK_NEAR(got[i * 2 + j], av[j] > 0 ? av[j] : bv[i], 0, 0);
    o = tt_scaled_dot_product_attention(c, tt_randn(c, 1, 3, sq), tt_randn(c, 2, 3, sk), tt_randn(c, 3, 4, sv), NULL,
                                        false, 0.0f);
    if (CHECK(o != NULL) && CHECK_EQ_INT(o->ndim, 4)) {
        CHECK_EQ_INT(o->shape[0], 2);
        CHECK_EQ_INT(o->shape[1], 3);
        CHECK_EQ_INT(o->shape[2], 4);
        CHECK_EQ_INT(o->shape[3], 6);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A linear whose fused group stores no f32 value (neg, then a cast to f16) was dropped from
   the schedule by epilogue fusion: the group read a buffer nothing wrote. Found by
   tests/fuzz_ops.c. */
static void test_epilogue_without_f32_output(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    int64_t sx[2] = {4, 3}, sw[2] = {2, 3};
    tt_tensor *x = tt_randn(c, 1, 2, sx), *w = tt_randn(wc, 2, 2, sw), *y;
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_cast(c, tt_neg(c, tt_linear(c, x, w, NULL)), TT_F16);
    g = tt_trace_end(c, &y, 1);
    if (CHECK(g != NULL) && CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK) &&
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK))
        CHECK_SAME_BITS(c, tt_graph_output(g, 0), y);
    tt_graph_destroy(g);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(c);
}

/* tt_graph_check ran the traced nodes on the graph's bound inputs, and an input that only
   dead code read was never bound (a NULL data pointer). Found by tests/fuzz_ops.c. */
static void test_check_with_dead_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {3, 8};
    tt_tensor *in[2], *y;
    tt_check_report rep;
    tt_graph *g;
    in[0] = tt_randn(c, 1, 2, s);
    in[1] = tt_randn(c, 2, 2, s);
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, in[0], "x");
    tt_trace_input(c, in[1], "z");
    y = tt_neg(c, in[0]);
    (void)tt_sigmoid(c, in[1]);                        /* dead: the only reader of z */
    g = tt_trace_end(c, &y, 1);
    if (CHECK(g != NULL) && CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_DCE), TT_OK)) {
        CHECK_EQ_INT(tt_graph_check(g, in, 2, 0.0, 0.0, &rep), TT_OK);
        CHECK(rep.ok);
    }
    tt_graph_destroy(g);
    /* the tape runs on the layout the graph traced: a strided input of a traced reshape
       (which the graph copies in) must not make the check's reshape fail */
    {
        int64_t s38[2] = {8, 3}, s24[1] = {24};
        tt_tensor *xt = tt_transpose(c, tt_randn(c, 3, 2, s38), 0, 1);   /* [3,8], strided */
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, in[0], "x");
        y = tt_exp(c, tt_reshape(c, in[0], 1, s24));
        g = tt_trace_end(c, &y, 1);
        if (CHECK(g != NULL) && CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK)) {
            CHECK_EQ_INT(tt_graph_check(g, &xt, 1, 0.0, 0.0, &rep), TT_OK);
            CHECK(rep.ok);
        }
        tt_graph_destroy(g);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Tiling an empty axis a huge number of times: the result is empty, but its copy loop
   multiplied the repeat into a size before it met the 0 (signed overflow). Found by
   tests/fuzz_args.c. */
static void test_tile_empty_axis(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[4] = {4, 3, 0, 1}, reps[4] = {8, 1, (int64_t)1 << 59, 1};
    tt_tensor *y = tt_tile(c, tt_zeros(c, TT_F16, 4, s), reps, 4);
    if (CHECK(y != NULL)) {
        CHECK_EQ_INT(y->numel, 0);
        CHECK_EQ_INT(y->shape[0], 32);
        CHECK_EQ_INT(y->shape[2], 0);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A convolution whose padding and dilation are so large that only the kernel's centre
   tap lands inside the input (valid: the output is 6x3): the im2col zero-filled up to the
   first column a far tap could reach, far past the row. Found by tests/fuzz_args.c. */
static void test_conv_huge_padding(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4] = {1, 3, 6, 3}, ws[4] = {2, 3, 3, 3}, i;
    tt_tensor *y = tt_conv2d(c, tt_ones(c, TT_F32, 4, xs), tt_ones(c, TT_F32, 4, ws), NULL, 1, INT32_MAX, INT32_MAX, 1);
    float *got = tu_values(c, y);
    if (CHECK(got != NULL) && CHECK_EQ_INT(y->numel, 2 * 6 * 3))
        for (i = 0; i < y->numel; i++) CHECK_NEAR(got[i], 3.0, 0, 0);     /* the centre tap of 3 channels */
    free(got);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A tensor made inside the trace and read by two ops is one constant of the graph (the
   second read used to record it as a parameter pointing at the context's tensor, which the
   scope below frees: the graph then read freed memory). relu(x) as where(x > 0, x, zero). */
static void test_trace_constant_used_twice(void) {
    tt_ctx *c = tu_ctx();
    int64_t n = 8;
    double xv[8];
    tt_tensor *x, *zero, *y, *filler;
    tt_graph *g;
    tt_scope sc;
    char text[2048];
    int i;
    tu_uniform(xv, 8, 77, -1.0, 1.0);
    x = tu_tensor(c, 1, &n, xv);
    sc = tt_scope_begin(c);
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    x = tt_trace_input(c, x, "x");
    zero = tt_scalar(c, 0.0f);
    y = tt_where(c, tt_gt(c, x, zero), x, zero);
    g = tt_trace_end(c, &y, 1);
    tt_scope_end(c, sc);                               /* frees zero: the graph must not need it */
    filler = tt_full(c, TT_F32, 1, &n, 42.0);          /* new bytes where zero was */
    CHECK(g != NULL && filler != NULL);
    if (!g) { tt_ctx_destroy(c); return; }
    tt_graph_str(g, text, sizeof text);
    CHECK(strstr(text, "param") == NULL);              /* zero is a constant at both reads */
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    for (i = 0; i < 8; i++) {
        int64_t at = i;
        double want = xv[i] > 0.0 ? xv[i] : 0.0;
        CHECK(tt_graph_output(g, 0) != NULL && tt_get(c, tt_graph_output(g, 0), &at) == (float)want);
    }
    tt_graph_destroy(g);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(harden) = {
    {"trace_constant_used_twice", test_trace_constant_used_twice},
    {"freeze_then_free_params", test_freeze_then_free_params},
    {"size_overflow", test_size_overflow},
    {"trace_without_nodes", test_trace_without_nodes},
    {"trace_escape_to_other_context", test_trace_escape_to_other_context},
    {"scope_misuse", test_scope_misuse},
    {"scalar_axes", test_scalar_axes},
    {"broadcast_third_operand", test_broadcast_third_operand},
    {"epilogue_without_f32_output", test_epilogue_without_f32_output},
    {"check_with_dead_input", test_check_with_dead_input},
    {"tile_empty_axis", test_tile_empty_axis},
    {"conv_huge_padding", test_conv_huge_padding},
    {NULL, NULL}
};
