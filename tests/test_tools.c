/* test_tools.c - the tools around graphs: tt_trace (a forward function traced on example
   inputs), tt_compiled (a compile cache keyed by input shapes and dtypes), tt_graph_bind with
   runs on no arguments (REDUCE_OVERHEAD and DEFAULT), tt_graph_check (compiled graph against
   the uncompiled tape) and tt_graph_dot (Graphviz text).

   Graph results are compared BITWISE with the same forward function run eagerly (in a context
   that is never traced); the model math itself is checked against plain double loops. The
   weights of every model live in their own context: they are parameters of the graphs. */
#include "test_util.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* A new f32 tensor of the given shape with uniform values in [lo, hi) (vals receives them, as
   the library sees them; vals must hold numel doubles). */
static tt_tensor *tl_tensor(tt_ctx *c, int ndim, const int64_t *shape, double *vals, unsigned long long seed,
                            double lo, double hi) {
    long long n = 1;
    int i;
    for (i = 0; i < ndim; i++) n *= shape[i];
    tu_uniform(vals, n, seed, lo, hi);
    return tu_tensor(c, ndim, shape, vals);
}

/* The whole text of tt_graph_dot / tt_graph_str (malloc'd). */
static char *tl_dot(const tt_graph *g) {
    size_t need = tt_graph_dot(g, NULL, 0);
    char *buf = (char *)malloc(need + 1);
    if (!buf) return NULL;
    tt_graph_dot(g, buf, need + 1);
    return buf;
}
static char *tl_str(const tt_graph *g) {
    size_t need = tt_graph_str(g, NULL, 0);
    char *buf = (char *)malloc(need + 1);
    if (!buf) return NULL;
    tt_graph_str(g, buf, need + 1);
    return buf;
}

static int tl_count(const char *s, const char *sub) {
    int n = 0;
    size_t k = strlen(sub);
    while (s && (s = strstr(s, sub)) != NULL) { n++; s += k; }
    return n;
}

/* The graph's error has this status and mentions sub; then it is cleared. */
static int tl_check_graph_error(tt_graph *g, int status, const char *sub, const char *file, int line) {
    int ok = tt_test__eq_int(tt_graph_status(g), status, file, line, "tt_graph_status(g)", "status");
    ok &= tt_test__str_contains(tt_graph_error(g), sub, file, line, "tt_graph_error(g)");
    tt_graph_clear_error(g);
    return ok;
}
#define CHECK_GRAPH_ERROR(g, st, sub) tl_check_graph_error((g), (st), (sub), __FILE__, __LINE__)

/* A context whose heap blocks are counted (live = allocations not yet freed). */
typedef struct tl_counter { long long live, total; } tl_counter;
static void *tl_count_alloc(size_t size, void *user) {
    tl_counter *k = (tl_counter *)user;
    void *p = malloc(size);
    if (p) { k->live++; k->total++; }
    return p;
}
static void tl_count_free(void *ptr, void *user) {
    tl_counter *k = (tl_counter *)user;
    if (ptr) { k->live--; free(ptr); }
}
static tt_ctx *tl_counted_ctx(tl_counter *k) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    d.allocator.alloc = tl_count_alloc;
    d.allocator.free = tl_count_free;
    d.allocator.user = k;
    return tt_ctx_create(&d);
}

/* ---- model 1: one input, two outputs ------------------------------------------------------
   out0 = tanh(x·Wᵀ + b) * 0.5 + 1   [B,5]  (a linear and an elementwise chain after it)
   out1 = sum(relu(x), -1)           [B]   */
enum { TL_IN = 7, TL_OUT = 5 };

typedef struct tl_lin {
    tt_tensor *W, *b;                     /* [5,7], [5] in the weights context */
    double     Wv[TL_OUT * TL_IN], bv[TL_OUT];
    int        calls;                     /* forward calls (tracing counts) */
} tl_lin;

static void tl_lin_make(tt_ctx *wc, tl_lin *w, unsigned long long seed) {
    int64_t ws[2], bs[1];
    ws[0] = TL_OUT; ws[1] = TL_IN; bs[0] = TL_OUT;
    w->W = tl_tensor(wc, 2, ws, w->Wv, seed, -0.8, 0.8);
    w->b = tl_tensor(wc, 1, bs, w->bv, seed + 1, -0.5, 0.5);
    w->calls = 0;
}

static int tl_fwd1(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    tl_lin *w = (tl_lin *)user;
    int ax = -1;
    tt_tensor *h;
    w->calls++;
    if (n_in != 1 || max_out < 2) return -1;
    h = tt_linear(c, in[0], w->W, w->b);
    out[0] = tt_add_scalar(c, tt_mul_scalar(c, tt_tanh(c, h), 0.5f), 1.0f);
    out[1] = tt_sum(c, tt_relu(c, in[0]), &ax, 1, false);
    return 2;
}

/* out0 and out1 of model 1 against double loops; x holds B*7 values. */
static void tl_fwd1_reference(tt_ctx *e, const tl_lin *w, const double *x, int64_t B, const tt_tensor *o0,
                              const tt_tensor *o1, const char *file, int line) {
    double *want0 = (double *)malloc(sizeof(double) * (size_t)(B * TL_OUT));
    double *want1 = (double *)malloc(sizeof(double) * (size_t)B);
    float *got0 = tu_values(e, o0), *got1 = tu_values(e, o1);
    int64_t i;
    int o, k, ok = 1;
    if (!o0 || !o1 || o0->numel != B * TL_OUT || o1->numel != B) {
        tt_test__fail(file, line, "model 1 outputs have the expected sizes");
        ok = 0;
    }
    for (i = 0; ok && i < B; i++) {
        double s1 = 0;
        for (o = 0; o < TL_OUT; o++) {
            double acc = w->bv[o], mag = fabs(w->bv[o]), want, got;
            for (k = 0; k < TL_IN; k++) { acc += x[i * TL_IN + k] * w->Wv[o * TL_IN + k]; mag += fabs(x[i * TL_IN + k] * w->Wv[o * TL_IN + k]); }
            want = tanh(acc) * 0.5 + 1.0;
            want0[i * TL_OUT + o] = want;
            got = (double)got0[i * TL_OUT + o];
            /* dot product error (1e-6 * sum|terms|, tanh' <= 1, halved) plus tanh and the two roundings */
            tt_test__near(got, want, 1e-6 * mag + 2e-6, 2e-6, file, line, "model1 out0", "double reference");
        }
        for (k = 0; k < TL_IN; k++) s1 += x[i * TL_IN + k] > 0 ? x[i * TL_IN + k] : 0.0;
        want1[i] = s1;
        {
            double mag = 0;
            for (k = 0; k < TL_IN; k++) mag += fabs(x[i * TL_IN + k]);
            tt_test__near((double)got1[i], s1, 1e-6 * mag + 1e-7, 0, file, line, "model1 out1", "double reference");
        }
    }
    free(want0); free(want1); free(got0); free(got1);
}

/* Model 1 run eagerly in e on the values x (B rows): both outputs in out. */
static void tl_eager1(tt_ctx *e, tl_lin *w, const double *x, int64_t B, tt_tensor **out) {
    int64_t s[2];
    double *copy = (double *)malloc(sizeof(double) * (size_t)(B * TL_IN));
    tt_tensor *xe;
    int calls = w->calls;
    s[0] = B; s[1] = TL_IN;
    memcpy(copy, x, sizeof(double) * (size_t)(B * TL_IN));
    xe = tu_tensor(e, 2, s, copy);
    out[0] = out[1] = NULL;
    tl_fwd1(e, &xe, 1, out, 2, w);
    w->calls = calls;                     /* eager references do not count */
    free(copy);
}

/* ---- model 2: two inputs, two outputs -------------------------------------------------------
   out0 = x*y - exp(-x)      [B,7]  (y [7] broadcast)
   out1 = mean(x + y, 0)     [7]    */
static int tl_fwd2(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    int ax = 0;
    (void)user;
    if (n_in != 2 || max_out < 2) return -1;
    out[0] = tt_sub(c, tt_mul(c, in[0], in[1]), tt_exp(c, tt_neg(c, in[0])));
    out[1] = tt_mean(c, tt_add(c, in[0], in[1]), &ax, 1, false);
    return 2;
}

static void tl_fwd2_reference(tt_ctx *e, const double *x, const double *y, int64_t B, const tt_tensor *o0,
                              const tt_tensor *o1, const char *file, int line) {
    float *got0 = tu_values(e, o0), *got1 = tu_values(e, o1);
    int64_t i;
    int k;
    if (!got0 || !got1 || o0->numel != B * TL_IN || o1->numel != TL_IN) {
        tt_test__fail(file, line, "model 2 outputs have the expected sizes");
    } else {
        for (i = 0; i < B; i++)
            for (k = 0; k < TL_IN; k++) {
                double xv = x[i * TL_IN + k], yv = y[k];
                double want = xv * yv - exp(-xv);
                tt_test__near((double)got0[i * TL_IN + k], want, 2e-6 * (fabs(xv * yv) + exp(-xv)) + 1e-7, 0,
                              file, line, "model2 out0", "double reference");
            }
        for (k = 0; k < TL_IN; k++) {
            double s = 0, mag = 0;
            for (i = 0; i < B; i++) { s += x[i * TL_IN + k] + y[k]; mag += fabs(x[i * TL_IN + k]) + fabs(y[k]); }
            tt_test__near((double)got1[k], s / (double)B, 2e-6 * mag / (double)B + 1e-7, 0, file, line,
                          "model2 out1", "double reference");
        }
    }
    free(got0); free(got1);
}

/* ---- forward functions that fail ------------------------------------------------------------ */
static int tl_fwd_minus1(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    out[0] = tt_relu(c, in[0]);           /* computes something, then says it failed */
    return -1;
}
static int tl_fwd_badop(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    tt_tensor *w = (tt_tensor *)user;     /* [4,5]: does not fit x [B,7] */
    (void)n_in; (void)max_out;
    out[0] = tt_relu(c, tt_matmul(c, in[0], w));
    return 1;
}
static int tl_fwd_null_out(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n_in; (void)max_out; (void)user;
    out[0] = NULL;                        /* no op failed, but no output either */
    return 1;
}
static int tl_fwd_zero(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    (void)tt_relu(c, in[0]);
    (void)out;
    return 0;
}
/* out0 = the input itself, out1 = x*2 + 1 */
static int tl_fwd_identity(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    out[0] = in[0];
    out[1] = tt_add_scalar(c, tt_mul_scalar(c, in[0], 2.0f), 1.0f);
    return 2;
}
/* y = relu(x) * 2 - x, elementwise, any shape and dtype; f32 result */
static int tl_fwd_ew(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    out[0] = tt_sub(c, tt_mul_scalar(c, tt_relu(c, in[0]), 2.0f), in[0]);
    return 1;
}

/* ---- 1. tt_trace ------------------------------------------------------------------------------ */

static void test_trace_one_input(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tl_lin w;
    int64_t s[2];
    double xv[3 * TL_IN], x2v[3 * TL_IN];
    tt_tensor *x, *x2, *ref[2];
    tt_graph *g;
    size_t used;
    char *text;
    int r;
    tl_lin_make(wc, &w, 101);
    s[0] = 3; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -2, 2);
    CHECK_GUARDS(c);
    used = tt_ctx_used(c);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    CHECK(!tt_is_tracing(c));
    CHECK_EQ_INT(w.calls, 1);                         /* the function ran once, while tracing */
    CHECK_EQ_INT((long long)tt_ctx_used(c), (long long)used);   /* the trace's intermediates are freed */
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_num_inputs(g), 1);
    CHECK_EQ_INT(tt_graph_num_outputs(g), 2);
    CHECK_EQ_INT(tt_graph_num_warnings(g), 0);
    CHECK(tt_graph_num_nodes(g) >= 5);                /* linear, tanh, mul, add, relu, sum (+ constants) */
    text = tl_str(g);
    CHECK_STR_CONTAINS(text, "'input0'");
    CHECK(tl_count(text, "'input") == 1);
    CHECK_STR_CONTAINS(text, "linear");
    CHECK_STR_CONTAINS(text, "tanh");
    free(text);

    /* the traced inputs, then new values: bitwise the eager function */
    for (r = 0; r < 3; r++) {
        tt_tensor *in = x;
        const double *vals = xv;
        if (r > 0) { x2 = tl_tensor(c, 2, s, x2v, 10 + (unsigned long long)r, -3, 3); in = x2; vals = x2v; }
        CHECK_EQ_INT(tt_graph_run(g, &in, 1), TT_OK);
        CHECK(tt_graph_error(g) == NULL);
        tl_eager1(e, &w, vals, 3, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        tl_fwd1_reference(e, &w, vals, 3, tt_graph_output(g, 0), tt_graph_output(g, 1), __FILE__, __LINE__);
        CHECK_GUARDS(c);
        CHECK_GUARDS(e);
    }
    CHECK(tt_graph_output(g, 2) == NULL);
    CHECK(tt_graph_output(g, -1) == NULL);
    CHECK_EQ_INT(w.calls, 1);                         /* runs do not call the function */

    /* the graph owns its memory: the trace context may go first */
    tt_ctx_destroy(c);
    {
        tt_ctx *c2 = tu_ctx();
        tt_tensor *x3 = tl_tensor(c2, 2, s, x2v, 77, -1, 1);
        CHECK_EQ_INT(tt_graph_run(g, &x3, 1), TT_OK);
        tl_eager1(e, &w, x2v, 3, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        tt_ctx_destroy(c2);
    }
    CHECK_NO_ERROR(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

static void test_trace_two_inputs(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t sx[2], sy[1];
    double xv[33 * TL_IN], yv[TL_IN];
    tt_tensor *in[2], *ein[2], *ref[2];
    tt_graph *g;
    char *text;
    int r;
    sx[0] = 33; sx[1] = TL_IN; sy[0] = TL_IN;
    in[0] = tl_tensor(c, 2, sx, xv, 3, -2, 2);
    in[1] = tl_tensor(c, 1, sy, yv, 4, -2, 2);
    CHECK_GUARDS(c);
    g = tt_trace(c, tl_fwd2, NULL, in, 2);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    CHECK_EQ_INT(tt_graph_num_inputs(g), 2);
    CHECK_EQ_INT(tt_graph_num_outputs(g), 2);
    text = tl_str(g);
    CHECK_STR_CONTAINS(text, "'input0': f32[33,7]");
    CHECK_STR_CONTAINS(text, "'input1': f32[7]");
    free(text);
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    for (r = 0; r < 3; r++) {
        if (r > 0) {
            in[0] = tl_tensor(c, 2, sx, xv, 30 + (unsigned long long)r, -2, 2);
            in[1] = tl_tensor(c, 1, sy, yv, 40 + (unsigned long long)r, -2, 2);
        }
        CHECK_EQ_INT(tt_graph_run(g, in, 2), TT_OK);
        ein[0] = tu_tensor(e, 2, sx, xv);
        ein[1] = tu_tensor(e, 1, sy, yv);
        ref[0] = ref[1] = NULL;
        CHECK_EQ_INT(tl_fwd2(e, ein, 2, ref, 2, NULL), 2);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        tl_fwd2_reference(e, xv, yv, 33, tt_graph_output(g, 0), tt_graph_output(g, 1), __FILE__, __LINE__);
        CHECK_GUARDS(c);
        CHECK_GUARDS(e);
    }
    /* the inputs keep their order: swapped inputs do not fit */
    {
        tt_tensor *swapped[2];
        swapped[0] = in[1]; swapped[1] = in[0];
        CHECK_EQ_INT(tt_graph_run(g, swapped, 2), TT_ERR_SHAPE);
        CHECK_STR_CONTAINS(tt_graph_error(g), "[33,7]");
        CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[7]");
    }
    CHECK_NO_ERROR(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* A graph whose output is one of its inputs, and the input twice over. */
static void test_trace_identity_output(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[1];
    double xv[1000], x2v[1000];
    tt_tensor *x, *x2, *o0, *o1;
    tt_graph *g;
    float *v0, *v1;
    int i;
    s[0] = 1000;
    x = tl_tensor(c, 1, s, xv, 5, -4, 4);
    g = tt_trace(c, tl_fwd_identity, NULL, &x, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    x2 = tl_tensor(c, 1, s, x2v, 6, -4, 4);
    CHECK_EQ_INT(tt_graph_run(g, &x2, 1), TT_OK);
    o0 = tt_graph_output(g, 0);
    o1 = tt_graph_output(g, 1);
    v0 = tu_values(e, o0);
    v1 = tu_values(e, o1);
    CHECK(v0 != NULL && v1 != NULL);
    if (v0 && v1) {
        int bad0 = 0;
        double *want1 = (double *)malloc(sizeof(double) * 1000);
        for (i = 0; i < 1000; i++) {
            if ((double)v0[i] != x2v[i]) bad0++;
            want1[i] = (double)(float)((double)(float)(x2v[i] * 2.0) + 1.0);   /* two f32 roundings */
        }
        CHECK_EQ_INT(bad0, 0);
        CHECK_ALLCLOSE(v1, want1, 1000, 0, 0);
        free(want1);
    }
    free(v0); free(v1);
    CHECK_GUARDS(c);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

static void test_trace_errors(void) {
    tt_ctx *c = tu_ctx(), *c2 = tu_ctx(), *wc = tu_ctx();
    tl_lin w;
    int64_t s[2], ws[2];
    double xv[3 * TL_IN], yv[3 * TL_IN], wv[20];
    tt_tensor *x, *xo, *bad_w, *two[2];
    tt_graph *g;
    size_t used;
    tl_lin_make(wc, &w, 7);
    s[0] = 3; s[1] = TL_IN;
    ws[0] = 4; ws[1] = 5;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    xo = tl_tensor(c2, 2, s, yv, 2, -1, 1);
    bad_w = tl_tensor(wc, 2, ws, wv, 3, -1, 1);
    used = tt_ctx_used(c);

    /* the forward function returns -1 */
    g = tt_trace(c, tl_fwd_minus1, NULL, &x, 1);
    CHECK(g == NULL);
    CHECK(tt_ctx_status(c) != TT_OK);
    CHECK_STR_CONTAINS(tt_error(c), "tt_trace");
    tt_clear_error(c);
    CHECK(!tt_is_tracing(c));
    CHECK_EQ_INT((long long)tt_ctx_used(c), (long long)used);
    CHECK_GUARDS(c);

    /* an op of the forward fails: its own error, with the shapes */
    g = tt_trace(c, tl_fwd_badop, bad_w, &x, 1);
    CHECK(g == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_matmul");
    CHECK_STR_CONTAINS(tt_error(c), "[3,7]");
    CHECK_STR_CONTAINS(tt_error(c), "[4,5]");
    CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul");
    CHECK(!tt_is_tracing(c));
    CHECK_EQ_INT((long long)tt_ctx_used(c), (long long)used);
    CHECK_GUARDS(c);

    /* an output that was not produced, and no outputs at all */
    g = tt_trace(c, tl_fwd_null_out, NULL, &x, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    CHECK(!tt_is_tracing(c));
    g = tt_trace(c, tl_fwd_zero, NULL, &x, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    CHECK(!tt_is_tracing(c));

    /* inputs from another context (first or second input) */
    g = tt_trace(c, tl_fwd1, &w, &xo, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    CHECK(!tt_is_tracing(c));
    CHECK(!tt_is_tracing(c2));
    CHECK(tt_error(c2) == NULL);
    two[0] = x; two[1] = xo;
    g = tt_trace(c, tl_fwd2, NULL, two, 2);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    CHECK(!tt_is_tracing(c));
    CHECK_EQ_INT(w.calls, 0);                         /* never called with a foreign input */

    /* bad arguments */
    g = tt_trace(c, NULL, NULL, &x, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    g = tt_trace(c, tl_fwd1, &w, NULL, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    g = tt_trace(c, tl_fwd1, &w, &x, -1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace");
    two[0] = x; two[1] = NULL;                         /* a NULL input: an earlier failure, no new error */
    g = tt_trace(c, tl_fwd2, NULL, two, 2);
    CHECK(g == NULL);
    CHECK_NO_ERROR(c);
    CHECK(!tt_is_tracing(c));
    CHECK(tt_trace(NULL, tl_fwd1, &w, &x, 1) == NULL);

    /* a trace already running: no nesting */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace: a trace is already running on ctx");
    CHECK(tt_is_tracing(c));                          /* the outer trace is still there */
    CHECK(tt_trace_end(c, &x, 0) == NULL);            /* end it (no outputs: an error) */
    tt_clear_error(c);
    CHECK(!tt_is_tracing(c));

    /* after all that, the context traces normally */
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    if (g) CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    CHECK_GUARDS(c2);
    tt_ctx_destroy(c);
    tt_ctx_destroy(c2);
    tt_ctx_destroy(wc);
}

/* ---- 2. tt_compiled ---------------------------------------------------------------------------- */

/* Runs cc on new B-row values and checks both outputs bitwise against eager and the math. */
static void tl_compiled_step(tt_compiled *cc, tt_ctx *c, tt_ctx *e, tl_lin *w, int64_t B, unsigned long long seed,
                             int want_graphs, int want_calls, const char *file, int line) {
    int64_t s[2];
    double *xv = (double *)malloc(sizeof(double) * (size_t)(B * TL_IN));
    tt_tensor *x, *ref[2];
    s[0] = B; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, seed, -2, 2);
    tt_test__eq_int(tt_compiled_run(cc, &x, 1), TT_OK, file, line, "tt_compiled_run(cc, &x, 1)", "TT_OK");
    if (tt_compiled_error(cc)) tt_test__str_contains(tt_compiled_error(cc), "(no error)", file, line, "tt_compiled_error(cc)");
    tt_test__eq_int(tt_compiled_num_graphs(cc), want_graphs, file, line, "tt_compiled_num_graphs(cc)", "want_graphs");
    tt_test__eq_int(w->calls, want_calls, file, line, "forward calls", "want_calls");
    tl_eager1(e, w, xv, B, ref);
    tu_same_bits(e, tt_compiled_output(cc, 0), ref[0], file, line);
    tu_same_bits(e, tt_compiled_output(cc, 1), ref[1], file, line);
    tl_fwd1_reference(e, w, xv, B, tt_compiled_output(cc, 0), tt_compiled_output(cc, 1), file, line);
    if (tt_compiled_output(cc, 2) != NULL) tt_test__fail(file, line, "tt_compiled_output(cc, 2) == NULL");
    tt_test__str_contains(tt_compiled_error(cc), "tt_compiled_output: i is out of range", file, line, "tt_compiled_error(cc)");
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards of c");
    if (!tt_ctx_check_guards(e)) tt_test__fail(file, line, "guards of e");
    free(xv);
}
#define TL_COMPILED_STEP(cc, c, e, w, B, seed, graphs, calls) \
    tl_compiled_step((cc), (c), (e), (w), (B), (seed), (graphs), (calls), __FILE__, __LINE__)

static void test_compiled_cache(void) {
    static const tt_mode modes[3] = { TT_MODE_DEFAULT, TT_MODE_REDUCE_OVERHEAD, TT_MODE_MAX_AUTOTUNE };
    int m;
    for (m = 0; m < 3; m++) {
        tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
        tl_lin w;
        tt_compiled *cc;
        tl_lin_make(wc, &w, 200 + (unsigned long long)m);
        cc = tt_compiled_create(tl_fwd1, &w, modes[m], (unsigned)TT_PASS_ALL, 0);
        CHECK(cc != NULL);
        if (!cc) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); continue; }
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 0);
        CHECK(tt_compiled_output(cc, 0) == NULL);     /* nothing ran yet: an error that says so */
        CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_compiled_output: cc has no successful run");
        TL_COMPILED_STEP(cc, c, e, &w, 3, 1, 1, 1);   /* first run: trace + compile */
        TL_COMPILED_STEP(cc, c, e, &w, 3, 2, 1, 1);   /* same shape: reused, not traced again */
        TL_COMPILED_STEP(cc, c, e, &w, 33, 3, 2, 2);  /* new batch size: a second graph */
        TL_COMPILED_STEP(cc, c, e, &w, 3, 4, 2, 2);   /* back to the first shape: reused */
        TL_COMPILED_STEP(cc, c, e, &w, 33, 5, 2, 2);
        TL_COMPILED_STEP(cc, c, e, &w, 1, 6, 3, 3);
        CHECK_NO_ERROR(c);
        CHECK_NO_ERROR(e);
        tt_compiled_destroy(cc);
        tt_ctx_destroy(c);
        tt_ctx_destroy(e);
        tt_ctx_destroy(wc);
    }
}

/* Two inputs; the key holds every input's shape, and the dtype. */
static void test_compiled_keys(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    tt_compiled *cc = tt_compiled_create(tl_fwd2, NULL, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0);
    int64_t sx[2], sy[1];
    double xv[7 * TL_IN], yv[TL_IN];
    tt_tensor *in[2], *ein[2], *ref[2];
    int r;
    CHECK(cc != NULL);
    if (!cc) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    for (r = 0; r < 4; r++) {
        /* B = 7, 7, then y [1] (broadcast, a new key), then y [7] again */
        sx[0] = 7; sx[1] = TL_IN; sy[0] = r == 2 ? 1 : TL_IN;
        in[0] = tl_tensor(c, 2, sx, xv, 50 + (unsigned long long)r, -2, 2);
        in[1] = tl_tensor(c, 1, sy, yv, 60 + (unsigned long long)r, -2, 2);
        if (r == 2) { int k; for (k = 1; k < TL_IN; k++) yv[k] = yv[0]; }   /* the reference sees y broadcast */
        CHECK_EQ_INT(tt_compiled_run(cc, in, 2), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), r < 2 ? 1 : 2);
        ein[0] = tu_tensor(e, 2, sx, xv);
        ein[1] = tu_tensor(e, 1, sy, yv);
        ref[0] = ref[1] = NULL;
        CHECK_EQ_INT(tl_fwd2(e, ein, 2, ref, 2, NULL), 2);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 1), ref[1]);
        tl_fwd2_reference(e, xv, yv, 7, tt_compiled_output(cc, 0), tt_compiled_output(cc, 1), __FILE__, __LINE__);
        CHECK_GUARDS(c);
    }
    /* a wrong number of inputs: the forward function refuses (returns -1) */
    CHECK(tt_compiled_run(cc, in, 1) != TT_OK);
    CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_trace");
    CHECK_EQ_INT(tt_compiled_num_graphs(cc), 2);
    tt_clear_error(c);
    tt_compiled_destroy(cc);

    /* dtype is part of the key: f32 then bf16 of the same shape, each its own graph */
    cc = tt_compiled_create(tl_fwd_ew, NULL, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0);
    CHECK(cc != NULL);
    if (cc) {
        int64_t s[2];
        double v[3 * 33];
        tt_tensor *xf, *xb, *xe, *ye;
        tt_tensor *o[1];
        s[0] = 3; s[1] = 33;
        xf = tl_tensor(c, 2, s, v, 70, -3, 3);
        xb = tt_cast(c, xf, TT_BF16);
        CHECK_EQ_INT(tt_compiled_run(cc, &xf, 1), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 1);
        xe = tu_tensor(e, 2, s, v);
        o[0] = NULL;
        tl_fwd_ew(e, &xe, 1, o, 1, NULL);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 0), o[0]);
        CHECK_EQ_INT(tt_compiled_run(cc, &xb, 1), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 2);
        ye = tt_cast(e, xe, TT_BF16);
        o[0] = NULL;
        tl_fwd_ew(e, &ye, 1, o, 1, NULL);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 0), o[0]);
        {   /* math: relu(x)*2 - x = |x| for the bf16-rounded x */
            float *got = tu_values(e, tt_compiled_output(cc, 0));
            double *want = (double *)malloc(sizeof(double) * 99);
            int k;
            for (k = 0; k < 99; k++) want[k] = fabs((double)tt_bf16_to_f32(tt_f32_to_bf16((float)v[k])));
            CHECK_ALLCLOSE(got, want, 99, 0, 0);
            free(got); free(want);
        }
        CHECK_EQ_INT(tt_compiled_run(cc, &xf, 1), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 2);
        tt_compiled_destroy(cc);
    }
    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

static void test_compiled_limit(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tl_lin w;
    tt_compiled *cc;
    int64_t s[2];
    double xv[4 * TL_IN];
    tt_tensor *x;
    tl_lin_make(wc, &w, 300);
    cc = tt_compiled_create(tl_fwd1, &w, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 2);
    CHECK(cc != NULL);
    if (!cc) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    TL_COMPILED_STEP(cc, c, e, &w, 1, 1, 1, 1);
    TL_COMPILED_STEP(cc, c, e, &w, 2, 2, 2, 2);
    /* a third shape set: past max_graphs */
    s[0] = 4; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 3, -1, 1);
    CHECK_EQ_INT(tt_compiled_run(cc, &x, 1), TT_ERR_STATE);
    CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_compiled_run");
    CHECK_EQ_INT(tt_compiled_status(cc), TT_ERR_STATE);  /* the status, like a context's and a graph's */
    CHECK_EQ_INT(tt_compiled_num_graphs(cc), 2);
    CHECK_EQ_INT(w.calls, 2);                         /* not traced */
    CHECK_EQ_INT(tt_compiled_run(cc, &x, 1), TT_ERR_STATE);   /* and again: still an error */
    CHECK_EQ_INT(tt_compiled_num_graphs(cc), 2);
    /* the known shapes still run, and a successful run clears the error (the step checks) */
    TL_COMPILED_STEP(cc, c, e, &w, 2, 4, 2, 2);
    TL_COMPILED_STEP(cc, c, e, &w, 1, 5, 2, 2);

    /* a forward whose op fails for this shape: the op's error, nothing cached */
    {
        tt_compiled *bad = tt_compiled_create(tl_fwd_badop, w.W, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0);
        CHECK(bad != NULL);
        if (bad) {
            CHECK_EQ_INT(tt_compiled_run(bad, &x, 1), TT_ERR_SHAPE);
            CHECK_STR_CONTAINS(tt_compiled_error(bad), "tt_matmul");
            CHECK_EQ_INT(tt_compiled_num_graphs(bad), 0);
            CHECK(tt_compiled_output(bad, 0) == NULL);
            CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul");   /* the context holds it too */
            CHECK(!tt_is_tracing(c));
            tt_compiled_destroy(bad);
        }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_compiled_destroy(cc);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

static void test_compiled_null_safety(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    tl_lin w;
    tt_compiled *cc;
    int64_t s[2];
    double xv[3 * TL_IN];
    tt_tensor *x, *nul[1];
    tl_lin_make(wc, &w, 400);
    s[0] = 3; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    nul[0] = NULL;

    CHECK(tt_compiled_create(NULL, &w, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0) == NULL);
    CHECK_EQ_INT(tt_compiled_run(NULL, &x, 1), TT_ERR_ARG);
    CHECK(tt_compiled_output(NULL, 0) == NULL);
    CHECK_EQ_INT(tt_compiled_num_graphs(NULL), 0);
    (void)tt_compiled_error(NULL);                     /* no crash (a message or NULL) */
    tt_compiled_destroy(NULL);

    cc = tt_compiled_create(tl_fwd1, &w, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0);
    CHECK(cc != NULL);
    if (cc) {
        CHECK_EQ_INT(tt_compiled_run(cc, NULL, 0), TT_ERR_ARG);
        CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_compiled_run");
        CHECK_EQ_INT(tt_compiled_run(cc, NULL, 1), TT_ERR_ARG);
        CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_compiled_run");
        CHECK_EQ_INT(tt_compiled_run(cc, nul, 1), TT_ERR_ARG);
        CHECK_STR_CONTAINS(tt_compiled_error(cc), "tt_compiled_run");
        CHECK_EQ_INT(tt_compiled_run(cc, &x, -1), TT_ERR_ARG);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 0);
        CHECK_EQ_INT(w.calls, 0);
        CHECK(tt_compiled_output(cc, 0) == NULL);
        CHECK(tt_error(c) == NULL);                    /* errors of the cache are its own */
        CHECK_EQ_INT(tt_compiled_run(cc, &x, 1), TT_OK);
        CHECK(tt_compiled_error(cc) == NULL);
        CHECK(tt_compiled_output(cc, 0) != NULL);
        CHECK(tt_compiled_output(cc, -1) == NULL);
        CHECK(tt_compiled_output(cc, 2) == NULL);
        tt_compiled_destroy(cc);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* Everything the cache compiled is freed by tt_compiled_destroy (counted through the
   allocator of the context the inputs come from), and it outlives that context. */
static void test_compiled_memory(void) {
    tl_counter k;
    tt_ctx *wc = tu_ctx(), *c, *e = tu_ctx(), *c3 = tu_ctx();
    tl_lin w;
    tt_compiled *cc;
    long long base;
    int64_t s[2];
    double xv[5 * TL_IN];
    tt_tensor *x, *ref[2];
    k.live = k.total = 0;
    c = tl_counted_ctx(&k);
    tl_lin_make(wc, &w, 500);
    CHECK(c != NULL);
    if (!c) { tt_ctx_destroy(wc); tt_ctx_destroy(e); tt_ctx_destroy(c3); return; }
    s[0] = 5; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    base = k.live;

    cc = tt_compiled_create(tl_fwd1, &w, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, 0);
    CHECK(cc != NULL);
    if (cc) {
        TL_COMPILED_STEP(cc, c, e, &w, 5, 2, 1, 1);
        TL_COMPILED_STEP(cc, c, e, &w, 9, 3, 2, 2);
        CHECK(k.live > base);                          /* the graphs hold heap memory of c's allocator */
        tt_compiled_destroy(cc);
        CHECK_EQ_INT(k.live, base);                    /* ... all of it freed */
    }

    /* the cache outlives the context it traced in */
    cc = tt_compiled_create(tl_fwd1, &w, TT_MODE_REDUCE_OVERHEAD, (unsigned)TT_PASS_ALL, 0);
    CHECK(cc != NULL);
    if (cc) {
        CHECK_EQ_INT(tt_compiled_run(cc, &x, 1), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 1);
        tt_ctx_destroy(c);
        c = NULL;
        x = tl_tensor(c3, 2, s, xv, 9, -1, 1);
        CHECK_EQ_INT(tt_compiled_run(cc, &x, 1), TT_OK);
        CHECK_EQ_INT(tt_compiled_num_graphs(cc), 1);
        tl_eager1(e, &w, xv, 5, ref);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_compiled_output(cc, 1), ref[1]);
        tt_compiled_destroy(cc);
        CHECK_EQ_INT(k.live, 0);                       /* context and graphs: everything returned */
    }
    tt_ctx_destroy(c);
    CHECK_EQ_INT(k.live, 0);
    CHECK_GUARDS(c3);
    CHECK_GUARDS(e);
    tt_ctx_destroy(c3);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- 3. tt_graph_bind ------------------------------------------------------------------------ */

/* Write B*7 new values into the contiguous tensor t and into vals. */
static void tl_fill(tt_tensor *t, double *vals, int64_t n, unsigned long long seed) {
    float *d = (float *)tt_data(t);
    int64_t i;
    tu_uniform(vals, n, seed, -2, 2);
    for (i = 0; i < n; i++) { d[i] = (float)vals[i]; vals[i] = (double)d[i]; }
}

static void tl_bind_mode(tt_mode mode) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tl_lin w;
    int64_t s[2];
    double xv[7 * TL_IN], bv[7 * TL_IN];
    tt_tensor *x, *xb, *ref[2];
    tt_graph *g;
    int r;
    tl_lin_make(wc, &w, 600 + (unsigned long long)mode);
    s[0] = 7; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, mode, (unsigned)TT_PASS_ALL), TT_OK);

    /* no inputs given and none bound */
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_run");
    CHECK(tt_graph_output(g, 0) == NULL);
    CHECK_GRAPH_ERROR(g, TT_ERR_STATE, "tt_graph_output: g has not run");

    xb = tt_zeros(c, TT_F32, 2, s);
    CHECK_EQ_INT(tt_graph_bind(g, &xb, 1), TT_OK);
    CHECK(tt_graph_error(g) == NULL);
    for (r = 0; r < 4; r++) {
        tl_fill(xb, bv, 7 * TL_IN, 20 + (unsigned long long)r);   /* new values, same tensor */
        CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
        tl_eager1(e, &w, bv, 7, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        tl_fwd1_reference(e, &w, bv, 7, tt_graph_output(g, 0), tt_graph_output(g, 1), __FILE__, __LINE__);
        CHECK_GUARDS(c);
    }

    /* a parameter changed in place (same storage): the next run sees it */
    {
        float *wd = (float *)tt_data(w.W);
        int i;
        for (i = 0; i < TL_OUT * TL_IN; i++) { wd[i] = -wd[i] * 0.5f; w.Wv[i] = (double)wd[i]; }
        tl_fill(xb, bv, 7 * TL_IN, 99);
        CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
        tl_eager1(e, &w, bv, 7, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        tl_fwd1_reference(e, &w, bv, 7, tt_graph_output(g, 0), tt_graph_output(g, 1), __FILE__, __LINE__);
    }

    /* explicit inputs still work, and then the bound tensor again (bind once more) */
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    tl_eager1(e, &w, xv, 7, ref);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
    CHECK_EQ_INT(tt_graph_bind(g, &xb, 1), TT_OK);
    tl_fill(xb, bv, 7 * TL_IN, 123);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
    tl_eager1(e, &w, bv, 7, ref);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
    CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);

    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}
static void test_bind_reduce_overhead(void) { tl_bind_mode(TT_MODE_REDUCE_OVERHEAD); }
static void test_bind_default(void) { tl_bind_mode(TT_MODE_DEFAULT); }

/* A bound transposed view is copied again at every run: changes to its base are seen. */
static void test_bind_noncontiguous(void) {
    static const tt_mode modes[2] = { TT_MODE_REDUCE_OVERHEAD, TT_MODE_DEFAULT };
    int m;
    for (m = 0; m < 2; m++) {
        tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
        tl_lin w;
        int64_t s[2], st[2];
        double xv[3 * TL_IN], basev[TL_IN * 3], xt[3 * TL_IN];
        tt_tensor *x, *base, *view, *ebase, *eview, *ref[2];
        tt_graph *g;
        int r, i, k;
        tl_lin_make(wc, &w, 700 + (unsigned long long)m);
        s[0] = 3; s[1] = TL_IN;
        st[0] = TL_IN; st[1] = 3;
        x = tl_tensor(c, 2, s, xv, 1, -1, 1);
        g = tt_trace(c, tl_fwd1, &w, &x, 1);
        CHECK(g != NULL);
        if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); continue; }
        CHECK_EQ_INT(tt_graph_compile(g, modes[m], (unsigned)TT_PASS_ALL), TT_OK);
        base = tt_zeros(c, TT_F32, 2, st);            /* [7,3] */
        view = tt_transpose(c, base, 0, 1);           /* [3,7], not contiguous */
        CHECK(view != NULL && !tt_is_contiguous(view));
        CHECK_EQ_INT(tt_graph_bind(g, &view, 1), TT_OK);
        for (r = 0; r < 3; r++) {
            tl_fill(base, basev, TL_IN * 3, 800 + (unsigned long long)r);
            CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
            /* eager reference: the same transposed view of the same values */
            ebase = tu_tensor(e, 2, st, basev);
            eview = tt_transpose(e, ebase, 0, 1);
            ref[0] = ref[1] = NULL;
            tl_fwd1(e, &eview, 1, ref, 2, &w);
            CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
            CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
            for (i = 0; i < 3; i++)
                for (k = 0; k < TL_IN; k++) xt[i * TL_IN + k] = basev[k * 3 + i];
            tl_fwd1_reference(e, &w, xt, 3, tt_graph_output(g, 0), tt_graph_output(g, 1), __FILE__, __LINE__);
            CHECK_GUARDS(c);
        }
        CHECK_NO_ERROR(c);
        CHECK_NO_ERROR(e);
        tt_graph_destroy(g);
        tt_ctx_destroy(c);
        tt_ctx_destroy(e);
        tt_ctx_destroy(wc);
    }
}

static void test_bind_errors(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    tl_lin w;
    int64_t s[2], s2[2];
    double xv[3 * TL_IN], yv[4 * TL_IN];
    tt_tensor *x, *y, *xi, *nul[1], *two[2];
    tt_graph *g;
    tl_lin_make(wc, &w, 900);
    s[0] = 3; s[1] = TL_IN;
    s2[0] = 4; s2[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    y = tl_tensor(c, 2, s2, yv, 2, -1, 1);
    xi = tt_zeros(c, TT_I32, 2, s);
    nul[0] = NULL;
    CHECK_EQ_INT(tt_graph_bind(NULL, &x, 1), TT_ERR_ARG);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, (unsigned)TT_PASS_ALL), TT_OK);

    CHECK_EQ_INT(tt_graph_bind(g, &y, 1), TT_ERR_SHAPE);
    CHECK_STR_CONTAINS(tt_graph_error(g), "[3,7]");         /* what it was traced for */
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[4,7]");
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_ERR_ARG);      /* a failed bind binds nothing */
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_run");
    CHECK_EQ_INT(tt_graph_bind(g, &xi, 1), TT_ERR_DTYPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_DTYPE, "i32");
    CHECK_EQ_INT(tt_graph_bind(g, nul, 1), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_");
    CHECK_EQ_INT(tt_graph_bind(g, NULL, 1), TT_ERR_ARG);
    tt_graph_clear_error(g);
    two[0] = x; two[1] = x;
    CHECK_EQ_INT(tt_graph_bind(g, two, 2), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_");
    CHECK_EQ_INT(tt_graph_bind(g, &x, 0), TT_ERR_ARG);
    tt_graph_clear_error(g);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_ERR_ARG);
    tt_graph_clear_error(g);

    /* a good bind after the failures works; a later failed bind unbinds again */
    CHECK_EQ_INT(tt_graph_bind(g, &x, 1), TT_OK);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
    CHECK(tt_graph_output(g, 0) != NULL);
    CHECK_EQ_INT(tt_graph_bind(g, &y, 1), TT_ERR_SHAPE);
    tt_graph_clear_error(g);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_ERR_ARG);
    tt_graph_clear_error(g);

    /* bind compiles an uncompiled graph first */
    {
        tt_graph *g2 = tt_trace(c, tl_fwd1, &w, &x, 1);
        CHECK(g2 != NULL);
        if (g2) {
            CHECK_EQ_INT(tt_graph_bind(g2, &x, 1), TT_OK);
            CHECK_EQ_INT(tt_graph_run(g2, NULL, 0), TT_OK);
            CHECK(tt_graph_output(g2, 1) != NULL);
            tt_graph_destroy(g2);
        }
    }
    CHECK_EQ_INT(tt_graph_run(NULL, NULL, 0), TT_ERR_ARG);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- 4. tt_graph_check ----------------------------------------------------------------------- */

static void test_check_ok(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tl_lin w;
    int64_t s[2];
    double xv[5 * TL_IN], x2v[5 * TL_IN];
    tt_tensor *x, *x2, *ref[2];
    tt_check_report rep;
    unsigned passes[3];
    int p;
    passes[0] = (unsigned)TT_PASS_ALL; passes[1] = 0u; passes[2] = (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE;
    tl_lin_make(wc, &w, 1000);
    s[0] = 5; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -2, 2);
    x2 = tl_tensor(c, 2, s, x2v, 2, -2, 2);
    for (p = 0; p < 3; p++) {
        tt_graph *g = tt_trace(c, tl_fwd1, &w, &x, 1);
        CHECK(g != NULL);
        if (!g) continue;
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[p]), TT_OK);
        memset(&rep, 0x5A, sizeof rep);
        CHECK_EQ_INT(tt_graph_check(g, &x2, 1, 0.0, 0.0, &rep), TT_OK);
        CHECK(rep.ok);
        CHECK(rep.compared >= 1);
        CHECK_EQ_INT(rep.node, -1);
        CHECK(rep.max_abs == 0.0);
        CHECK(tt_graph_error(g) == NULL);
        /* afterwards the outputs are those of x2, and runs go on as before */
        tl_eager1(e, &w, x2v, 5, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
        tl_eager1(e, &w, xv, 5, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
        CHECK_GUARDS(c);
        tt_graph_destroy(g);
    }
    /* an uncompiled graph is compiled by the check */
    {
        tt_graph *g = tt_trace(c, tl_fwd1, &w, &x, 1);
        CHECK(g != NULL);
        if (g) {
            CHECK_EQ_INT(tt_graph_check(g, &x, 1, 0.0, 0.0, &rep), TT_OK);
            CHECK(rep.ok);
            CHECK(rep.compared >= 1);
            tt_graph_destroy(g);
        }
    }
    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* conv2d (3 -> 5 channels, 3x3, padding 1) then batch norm, with or without a relu after */
enum { TL_N = 2, TL_CI = 3, TL_CO = 5, TL_H = 7, TL_W = 6, TL_K = 3 };
typedef struct tl_cbn {
    tt_tensor *wt, *bias, *mean, *var, *gamma, *beta;
    double wv[TL_CO * TL_CI * TL_K * TL_K], bv[TL_CO], mv[TL_CO], vv[TL_CO], gv[TL_CO], btv[TL_CO];
    int relu;
} tl_cbn;

static void tl_cbn_make(tt_ctx *wc, tl_cbn *m, int relu) {
    int64_t ws[4], cs[1];
    ws[0] = TL_CO; ws[1] = TL_CI; ws[2] = TL_K; ws[3] = TL_K;
    cs[0] = TL_CO;
    m->wt = tl_tensor(wc, 4, ws, m->wv, 11, -0.5, 0.5);
    m->bias = tl_tensor(wc, 1, cs, m->bv, 12, -0.3, 0.3);
    m->mean = tl_tensor(wc, 1, cs, m->mv, 13, -0.4, 0.4);
    m->var = tl_tensor(wc, 1, cs, m->vv, 14, 0.3, 1.7);
    m->gamma = tl_tensor(wc, 1, cs, m->gv, 15, 0.5, 1.5);
    m->beta = tl_tensor(wc, 1, cs, m->btv, 16, -0.5, 0.5);
    m->relu = relu;
}

static int tl_fwd_cbn(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    const tl_cbn *m = (const tl_cbn *)user;
    tt_tensor *y;
    (void)n_in; (void)max_out;
    y = tt_batch_norm(c, tt_conv2d(c, in[0], m->wt, m->bias, 1, 1, 1, 1), m->mean, m->var, m->gamma, m->beta, 1e-5f);
    out[0] = m->relu ? tt_relu(c, y) : y;
    return 1;
}

/* The output of the model against double loops; tolerance from the size of the terms. */
static void tl_cbn_reference(tt_ctx *e, const tl_cbn *m, const double *x, const tt_tensor *y, double rel,
                             const char *file, int line) {
    float *got = tu_values(e, y);
    int n, o, i, j, ci, a, b;
    if (!got || y->numel != TL_N * TL_CO * TL_H * TL_W) {
        tt_test__fail(file, line, "conv+bn output has the expected size");
        free(got);
        return;
    }
    for (n = 0; n < TL_N; n++)
        for (o = 0; o < TL_CO; o++) {
            double sc = m->gv[o] / sqrt(m->vv[o] + (double)1e-5f);
            for (i = 0; i < TL_H; i++)
                for (j = 0; j < TL_W; j++) {
                    double acc = m->bv[o], mag = fabs(m->bv[o]), want;
                    for (ci = 0; ci < TL_CI; ci++)
                        for (a = 0; a < TL_K; a++)
                            for (b = 0; b < TL_K; b++) {
                                int ii = i + a - 1, jj = j + b - 1;
                                double t;
                                if (ii < 0 || ii >= TL_H || jj < 0 || jj >= TL_W) continue;
                                t = x[((n * TL_CI + ci) * TL_H + ii) * TL_W + jj] * m->wv[((o * TL_CI + ci) * TL_K + a) * TL_K + b];
                                acc += t;
                                mag += fabs(t);
                            }
                    want = (acc - m->mv[o]) * sc + m->btv[o];
                    if (m->relu && want < 0) want = 0;
                    tt_test__near((double)got[((n * TL_CO + o) * TL_H + i) * TL_W + j], want,
                                  rel * ((mag + fabs(m->mv[o])) * fabs(sc) + fabs(m->btv[o])) + 1e-6, 0,
                                  file, line, "conv+bn output", "double reference");
                }
        }
    free(got);
}

static void test_check_fold_bn(void) {
    int relu;
    for (relu = 0; relu < 2; relu++) {
        tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
        tl_cbn m;
        int64_t s[4];
        double xv[TL_N * TL_CI * TL_H * TL_W], x2v[TL_N * TL_CI * TL_H * TL_W];
        tt_tensor *x, *x2, *xe, *ref[1];
        tt_graph *g;
        tt_check_report rep;
        tt_graph_stats st;
        tl_cbn_make(wc, &m, relu);
        s[0] = TL_N; s[1] = TL_CI; s[2] = TL_H; s[3] = TL_W;
        x = tl_tensor(c, 4, s, xv, 21, -1.5, 1.5);
        x2 = tl_tensor(c, 4, s, x2v, 22, -1.5, 1.5);
        g = tt_trace(c, tl_fwd_cbn, &m, &x, 1);
        CHECK(g != NULL);
        if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); continue; }
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE), TT_OK);
        st = tt_graph_get_stats(g);
        CHECK(st.nodes < st.nodes_traced);            /* batch norm folded into the conv */

        /* the eager model and the folded graph against double loops */
        xe = tu_tensor(e, 4, s, x2v);
        ref[0] = NULL;
        tl_fwd_cbn(e, &xe, 1, ref, 1, &m);
        tl_cbn_reference(e, &m, x2v, ref[0], 2e-6, __FILE__, __LINE__);
        CHECK_EQ_INT(tt_graph_run(g, &x2, 1), TT_OK);
        tl_cbn_reference(e, &m, x2v, tt_graph_output(g, 0), 2e-6, __FILE__, __LINE__);
        {   /* how far folding moved the output from eager: not bitwise, well within 1e-4 relative
               (the precondition of the rtol = 1e-4 check below) */
            float *a = tu_values(e, tt_graph_output(g, 0)), *b = tu_values(e, ref[0]);
            double max_rel = 0;
            int i, differ = 0;
            for (i = 0; a && b && i < TL_N * TL_CO * TL_H * TL_W; i++) {
                double d = fabs((double)a[i] - (double)b[i]);
                if (d > 0) differ++;
                if (d > 0 && d / fabs((double)b[i]) > max_rel) max_rel = d / fabs((double)b[i]);
            }
            CHECK(differ > 0);
            CHECK(max_rel < 1e-4);
            free(a);
            free(b);
        }

        /* exact comparison: folding changed the values a little */
        memset(&rep, 0, sizeof rep);
        CHECK_EQ_INT(tt_graph_check(g, &x2, 1, 0.0, 0.0, &rep), TT_OK);
        CHECK(!rep.ok);
        CHECK(rep.node >= 0);
        CHECK(rep.compared >= 1);
        CHECK(rep.op != NULL);
        CHECK_STR_CONTAINS(rep.eager_op, "tt_");
        if (rep.eager_op)
            CHECK(strcmp(rep.eager_op, "tt_conv2d") == 0 || strcmp(rep.eager_op, "tt_batch_norm") == 0 ||
                  strcmp(rep.eager_op, "tt_relu") == 0);
        CHECK(rep.max_abs > 0);
        CHECK(rep.max_rel > 0);
        CHECK(rep.max_rel < 1e-4);                     /* a rounding difference, not a wrong value */
        CHECK(rep.message[0] != '\0');
        if (rep.eager_op) CHECK_STR_CONTAINS(rep.message, rep.eager_op);
        CHECK(tt_graph_error(g) == NULL);              /* a divergence is a finding, not an error */

        /* within a relative tolerance of 1e-4: ok */
        memset(&rep, 0, sizeof rep);
        CHECK_EQ_INT(tt_graph_check(g, &x2, 1, 0.0, 1e-4, &rep), TT_OK);
        CHECK(rep.ok);
        CHECK(rep.compared >= 1);
        CHECK_EQ_INT(rep.node, -1);
        if (!rep.ok) printf("    report: node %d op %s (%s) max_abs %g max_rel %g: %s\n", rep.node,
                            rep.op ? rep.op : "?", rep.eager_op ? rep.eager_op : "?", rep.max_abs, rep.max_rel, rep.message);

        /* without FREEZE nothing is folded (parameters are not constants): exact */
        {
            tt_graph *g2 = tt_trace(c, tl_fwd_cbn, &m, &x, 1);
            CHECK(g2 != NULL);
            if (g2) {
                CHECK_EQ_INT(tt_graph_compile(g2, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
                memset(&rep, 0, sizeof rep);
                CHECK_EQ_INT(tt_graph_check(g2, &x2, 1, 0.0, 0.0, &rep), TT_OK);
                CHECK(rep.ok);
                CHECK(rep.compared >= 1);
                CHECK_SAME_BITS(e, tt_graph_output(g2, 0), ref[0]);
                tt_graph_destroy(g2);
            }
        }

        CHECK_NO_ERROR(c);
        CHECK_NO_ERROR(e);
        CHECK_GUARDS(c);
        CHECK_GUARDS(e);
        tt_graph_destroy(g);
        tt_ctx_destroy(c);
        tt_ctx_destroy(e);
        tt_ctx_destroy(wc);
    }
}

static void test_check_errors(void) {
    tl_counter k;
    tt_ctx *wc = tu_ctx(), *c, *e = tu_ctx();
    tl_lin w;
    int64_t s[2], s2[2];
    double xv[3 * TL_IN], yv[4 * TL_IN];
    tt_tensor *x, *y, *two[2];
    tt_graph *g;
    tt_check_report rep;
    long long live;
    k.live = k.total = 0;
    c = tl_counted_ctx(&k);
    tl_lin_make(wc, &w, 1100);
    s[0] = 3; s[1] = TL_IN;
    s2[0] = 4; s2[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    y = tl_tensor(c, 2, s2, yv, 2, -1, 1);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);

    CHECK_EQ_INT(tt_graph_check(g, &x, 1, 0.0, 0.0, NULL), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_check: report is NULL");
    CHECK_EQ_INT(tt_graph_check(NULL, &x, 1, 0.0, 0.0, &rep), TT_ERR_ARG);

    /* wrong input shape: the status is the error (the graph's), nothing was compared */
    memset(&rep, 0, sizeof rep);
    CHECK_EQ_INT(tt_graph_check(g, &y, 1, 0.0, 0.0, &rep), TT_ERR_SHAPE);
    CHECK_EQ_INT(rep.compared, 0);
    CHECK_EQ_INT(rep.node, -1);
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[4,7]");
    two[0] = x; two[1] = x;
    CHECK_EQ_INT(tt_graph_check(g, two, 2, 0.0, 0.0, &rep), TT_ERR_ARG);
    CHECK_EQ_INT(rep.compared, 0);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, "tt_graph_");

    /* the graph still checks and runs after the errors, and a check leaks nothing */
    live = k.live;
    CHECK_EQ_INT(tt_graph_check(g, &x, 1, 0.0, 0.0, &rep), TT_OK);
    CHECK(rep.ok);
    CHECK_EQ_INT(k.live, live);
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    {
        tt_tensor *ref[2];
        tl_eager1(e, &w, xv, 3, ref);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    CHECK_EQ_INT(k.live, 0);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- 5. tt_graph_dot ------------------------------------------------------------------------- */

/* out = tanh(x*2 + 1) - x  (a fusable chain), plus sum(x) */
static int tl_fwd_chain(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    out[0] = tt_sub(c, tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, in[0], 2.0f), 1.0f)), in[0]);
    out[1] = tt_sum(c, in[0], NULL, 0, false);
    return 2;
}

/* Braces balance and the text ends with "}\n". */
static int tl_dot_well_formed(const char *s) {
    int depth = 0;
    size_t n;
    if (!s) return 0;
    for (n = 0; s[n]; n++) {
        if (s[n] == '{') depth++;
        if (s[n] == '}' && --depth < 0) return 0;
    }
    return depth == 0 && n >= 2 && s[n - 1] == '\n' && s[n - 2] == '}';
}

static void test_dot_fused(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2];
    double xv[3 * 33];
    tt_tensor *x, *xe, *ref[2];
    tt_graph *g;
    char *dot;
    s[0] = 3; s[1] = 33;
    x = tl_tensor(c, 2, s, xv, 1, -2, 2);
    g = tt_trace(c, tl_fwd_chain, NULL, &x, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }

    /* before compile: still valid text */
    dot = tl_dot(g);
    CHECK_STR_CONTAINS(dot, "digraph");
    CHECK(tl_dot_well_formed(dot));
    CHECK_EQ_INT((long long)strlen(dot) + 1, (long long)tt_graph_dot(g, NULL, 0));
    free(dot);

    /* all passes: the chain is one fused node, drawn as a cluster of its ops */
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    CHECK(tt_graph_get_stats(g).fused_nodes >= 1);
    dot = tl_dot(g);
    CHECK_STR_CONTAINS(dot, "digraph");
    CHECK_STR_CONTAINS(dot, "cluster");
    CHECK_STR_CONTAINS(dot, "->");
    CHECK_STR_CONTAINS(dot, "mul");
    CHECK_STR_CONTAINS(dot, "add");
    CHECK_STR_CONTAINS(dot, "tanh");
    CHECK_STR_CONTAINS(dot, "sub");
    CHECK_STR_CONTAINS(dot, "sum");
    CHECK_STR_CONTAINS(dot, "input0");
    CHECK_STR_CONTAINS(dot, "f32[3,33]");
    CHECK_EQ_INT(tl_count(dot, "cluster"), tt_graph_get_stats(g).fused_nodes);
    CHECK(tl_count(dot, "->") >= 5);                  /* every op has at least one input edge */
    CHECK(tl_dot_well_formed(dot));
    free(dot);

    /* the drawn graph is the one that runs: bitwise eager */
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    xe = tu_tensor(e, 2, s, xv);
    ref[0] = ref[1] = NULL;
    tl_fwd_chain(e, &xe, 1, ref, 2, NULL);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
    CHECK_SAME_BITS(e, tt_graph_output(g, 1), ref[1]);
    {   /* and the math: tanh(2x+1) - x, sum */
        float *got = tu_values(e, tt_graph_output(g, 0));
        double *want = (double *)malloc(sizeof(double) * 99), sum = 0, mag = 0;
        int i;
        for (i = 0; i < 99; i++) { want[i] = tanh(2.0 * xv[i] + 1.0) - xv[i]; sum += xv[i]; mag += fabs(xv[i]); }
        CHECK_ALLCLOSE(got, want, 99, 4e-6, 2e-6);
        free(got);
        free(want);
        CHECK_NEAR(tt_item(e, tt_graph_output(g, 1)), sum, 1e-6 * mag, 0);
    }

    /* no passes: no cluster, every op its own node */
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, 0u), TT_OK);
    dot = tl_dot(g);
    CHECK(dot != NULL && strstr(dot, "cluster") == NULL);
    CHECK_STR_CONTAINS(dot, "mul");
    CHECK_STR_CONTAINS(dot, "add");
    CHECK_STR_CONTAINS(dot, "tanh");
    CHECK_STR_CONTAINS(dot, "sub");
    CHECK_STR_CONTAINS(dot, "sum");
    CHECK(tl_count(dot, "->") >= tt_graph_num_nodes(g));
    CHECK(tl_dot_well_formed(dot));
    free(dot);

    /* NULL graph: still text, no crash */
    {
        char small[128];
        size_t need = tt_graph_dot(NULL, small, sizeof small);
        CHECK(need >= 1 && need <= sizeof small);
        CHECK_EQ_INT((long long)strlen(small) + 1, (long long)need);
    }
    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* Small buffers: the needed length is returned, the text is cut and NUL-terminated, and
   nothing is written at or past size. */
static void tl_small_buffers(const tt_graph *g, const char *file, int line) {
    size_t need = tt_graph_dot(g, NULL, 0), sizes[8], i;
    char *full = tl_dot(g);
    if (!full) { tt_test__fail(file, line, "tl_dot"); return; }
    tt_test__eq_int((long long)strlen(full) + 1, (long long)need, file, line, "strlen(dot) + 1", "need");
    sizes[0] = 1; sizes[1] = 2; sizes[2] = 17; sizes[3] = need / 2; sizes[4] = need - 1; sizes[5] = need;
    sizes[6] = need + 9; sizes[7] = 0;
    for (i = 0; i < 8; i++) {
        size_t sz = sizes[i], k, want_len = sz == 0 ? 0 : (sz < need ? sz - 1 : need - 1);
        char *buf = (char *)malloc(sz + 32);
        int clean = 1;
        memset(buf, 0x5A, sz + 32);
        tt_test__eq_int((long long)tt_graph_dot(g, buf, sz), (long long)need, file, line, "tt_graph_dot(g, buf, size)", "need");
        if (sz > 0) {
            tt_test__eq_int((long long)strlen(buf), (long long)want_len, file, line, "strlen(buf)", "min(size, need) - 1");
            if (memcmp(buf, full, want_len) != 0) tt_test__fail(file, line, "the cut text is a prefix of the whole");
        }
        for (k = sz; k < sz + 32; k++) if ((unsigned char)buf[k] != 0x5A) clean = 0;
        if (!clean) tt_test__fail(file, line, "nothing written at or past size");
        free(buf);
    }
    free(full);
}

static void test_dot_small_buffer(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    tl_lin w;
    int64_t s[2];
    double xv[3 * TL_IN];
    tt_tensor *x;
    tt_graph *g;
    tl_lin_make(wc, &w, 1200);
    s[0] = 3; s[1] = TL_IN;
    x = tl_tensor(c, 2, s, xv, 1, -1, 1);
    g = tt_trace(c, tl_fwd1, &w, &x, 1);
    CHECK(g != NULL);
    if (g) {
        tl_small_buffers(g, __FILE__, __LINE__);
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
        tl_small_buffers(g, __FILE__, __LINE__);
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, 0u), TT_OK);
        tl_small_buffers(g, __FILE__, __LINE__);
        {   /* every traced op appears in the unfused drawing, the params too */
            char *dot = tl_dot(g);
            CHECK_STR_CONTAINS(dot, "linear");
            CHECK_STR_CONTAINS(dot, "tanh");
            CHECK_STR_CONTAINS(dot, "relu");
            CHECK_STR_CONTAINS(dot, "sum");
            CHECK_STR_CONTAINS(dot, "param");
            CHECK_STR_CONTAINS(dot, "input0");
            free(dot);
        }
        tt_graph_destroy(g);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* A graph compiled with FREEZE (batch norm folded into the conv) compiles again without it,
   and then runs the traced model unchanged: bitwise eager. */
static void test_compile_again_after_fold(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tl_cbn m;
    int64_t s[4];
    double xv[TL_N * TL_CI * TL_H * TL_W];
    tt_tensor *x, *xe, *ref[1];
    tt_graph *g;
    unsigned passes[3];
    int p;
    passes[0] = (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE; passes[1] = (unsigned)TT_PASS_ALL; passes[2] = 0u;
    tl_cbn_make(wc, &m, 1);
    s[0] = TL_N; s[1] = TL_CI; s[2] = TL_H; s[3] = TL_W;
    x = tl_tensor(c, 4, s, xv, 31, -1.5, 1.5);
    xe = tu_tensor(e, 4, s, xv);
    ref[0] = NULL;
    tl_fwd_cbn(e, &xe, 1, ref, 1, &m);
    g = tt_trace(c, tl_fwd_cbn, &m, &x, 1);
    CHECK(g != NULL);
    for (p = 0; g && p < 3; p++) {
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[p]), TT_OK);
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
        tl_cbn_reference(e, &m, xv, tt_graph_output(g, 0), 2e-6, __FILE__, __LINE__);
        if (p > 0) CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref[0]);
        CHECK_GUARDS(c);
    }
    tt_graph_destroy(g);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

TT_TEST_GROUP(tools) = {
    {"trace_one_input", test_trace_one_input},
    {"trace_two_inputs", test_trace_two_inputs},
    {"trace_identity_output", test_trace_identity_output},
    {"trace_errors", test_trace_errors},
    {"compiled_cache", test_compiled_cache},
    {"compiled_keys", test_compiled_keys},
    {"compiled_limit", test_compiled_limit},
    {"compiled_null_safety", test_compiled_null_safety},
    {"compiled_memory", test_compiled_memory},
    {"bind_reduce_overhead", test_bind_reduce_overhead},
    {"bind_default", test_bind_default},
    {"bind_noncontiguous", test_bind_noncontiguous},
    {"bind_errors", test_bind_errors},
    {"check_ok", test_check_ok},
    {"check_fold_bn", test_check_fold_bn},
    {"check_errors", test_check_errors},
    {"dot_fused", test_dot_fused},
    {"dot_small_buffer", test_dot_small_buffer},
    {"compile_again_after_fold", test_compile_again_after_fold},   /* last: crashes while the bug is there */
    {NULL, NULL}
};
