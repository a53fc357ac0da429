/* test_forms.c - the op forms that models exported from PyTorch/ONNX use: tt_from_int64,
   tt_reshape's copy, tt_pad_ex's modes, 1-D/2-D/3-D pooling with per-axis settings,
   ceil_mode and exclude_pad, nearest/bilinear upsampling by scale or size, conv3d/conv_ex
   and transposed convolution. PyTorch (torch.nn.functional) is the specification.

   Every family is checked three ways:
   1. eagerly against plain loops in double precision written here (PyTorch's formulas, no
      call into the library for the math) on random inputs: odd sizes, size-1 axes, every
      option, transposed and sliced (non-contiguous) inputs;
   2. traced and compiled with passes 0 and TT_PASS_ALL on contexts of 1, 2, 3 and 7
      threads: the graph's output is bitwise the eager one (fm_trace_check), also with a
      relu after the convolutions (the fused epilogue);
   3. bad arguments: a NULL result, the status, and a message naming the function and the
      argument as the prototype spells it.

   Tolerances. Copies (reshape, from_int64, pad, max pooling, nearest) are exact. The
   library accumulates sums in f32: K terms rounded once each are off by at most about
   K * 2^-24 * sum|term|. The convolutions and average pools here have K <= ~110, so
   FM_SUM_TOL = 1e-5 relative to sum|term| (the reference computes it next to each value)
   holds for any summation order (SGEMM blocks, FMA), while a missing or extra term, a
   wrong divisor or a wrong tap is far outside it. Bilinear sums 4 terms whose weights are
   computed in float exactly as PyTorch does (and as the reference does), so only the f32
   products and sums round: FM_LERP_TOL = 1e-6 relative to sum|term|, plus what one ulp
   of the source coordinate changes (a compiler may fuse its multiply-add into an FMA).

   The tables of cases are referred to by index from the traced tests: an index names the
   case described in the comment next to it. */
#include "test_util.h"
#include <stdio.h>
#include <stdint.h>
#include <float.h>

#define FM_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define FM_SUM_TOL  1e-5
#define FM_LERP_TOL 1e-6

/* ---- shared helpers ------------------------------------------------------------------- */

static double *fm_alloc(long long n) {
    return (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
}

/* A heap context with guard regions and n_threads threads. */
static tt_ctx *fm_ctx(int n_threads) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    d.n_threads = n_threads;
    return tt_ctx_create(&d);
}

/* No guard was overwritten and no error is pending (printing it when there is one). */
static int fm_clean(tt_ctx *c, const char *file, int line) {
    int ok = 1;
    if (!tt_ctx_check_guards(c)) ok = tt_test__fail(file, line, "guards overwritten");
    if (tt_ctx_status(c) != TT_OK) ok = tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}

/* How the op sees its input: the tensor itself, its last two axes swapped (a transposed
   view), or every second element of its last axis from 1 (a sliced view). */
enum { FM_PLAIN = 0, FM_TRANSPOSED = 1, FM_SLICED = 2 };

/* The shape of the tensor to make so that fm_view(view) of it has shape `shape`. */
static void fm_base_shape(int ndim, const int64_t *shape, int view, int64_t *base) {
    int i;
    for (i = 0; i < ndim; i++) base[i] = shape[i];
    if (view == FM_TRANSPOSED) { base[ndim - 1] = shape[ndim - 2]; base[ndim - 2] = shape[ndim - 1]; }
    if (view == FM_SLICED) base[ndim - 1] = 2 * shape[ndim - 1] + 1;
}

static tt_tensor *fm_view(tt_ctx *c, tt_tensor *x, int view) {
    if (!x || view == FM_PLAIN) return x;
    if (view == FM_TRANSPOSED) return tt_transpose(c, x, -1, -2);
    return tt_slice(c, x, -1, 1, x->shape[x->ndim - 1], 2);
}

/* The view's values, row-major, from the base tensor's values. */
static void fm_view_values(int ndim, const int64_t *shape, int view, const double *base, double *out) {
    long long n = tu_numel(ndim, shape), e;
    int64_t last = shape[ndim - 1], prev = ndim >= 2 ? shape[ndim - 2] : 1;
    for (e = 0; e < n; e++) {
        long long j = e % last, i = (e / last) % prev, outer = e / (last * prev);
        if (view == FM_PLAIN) out[e] = base[e];
        else if (view == FM_TRANSPOSED) out[e] = base[(outer * last + j) * prev + i];   /* base [..., last, prev] */
        else out[e] = base[(e / last) * (2 * last + 1) + 2 * j + 1];
    }
}

/* A random input in [-1, 1) that fm_view turns into `shape`; *vals (malloc'd) gets the
   view's values, row-major, rounded to float as the library sees them. */
static tt_tensor *fm_input(tt_ctx *c, int ndim, const int64_t *shape, int view, unsigned long long seed, double **vals) {
    int64_t base[TT_MAX_DIMS];
    long long nb;
    double *vb;
    tt_tensor *t;
    fm_base_shape(ndim, shape, view, base);
    nb = tu_numel(ndim, base);
    vb = fm_alloc(nb);
    tu_uniform(vb, nb, seed, -1.0, 1.0);
    t = tu_tensor(c, ndim, base, vb);
    *vals = fm_alloc(tu_numel(ndim, shape));
    fm_view_values(ndim, shape, view, vb, *vals);
    free(vb);
    return t;
}

/* t has this shape, and every element is within tol[i] (0 when tol is NULL) of want[i];
   NaN matches NaN. Prints the first mismatch. */
static int fm_close(tt_ctx *c, const tt_tensor *t, int ndim, const int64_t *shape, const double *want,
                    const double *tol, const char *file, int line) {
    float *got;
    long long n = tu_numel(ndim, shape), i, bad = 0, first = -1;
    int d;
    if (!t) {
        printf("    %s:%d: error: %s\n", file, line, tt_ctx_status(c) != TT_OK ? tt_error(c) : "(none)");
        return tt_test__fail(file, line, "result is NULL");
    }
    if (!tt_test__eq_int(t->ndim, ndim, file, line, "t->ndim", "ndim")) return 0;
    for (d = 0; d < ndim; d++)
        if (!tt_test__eq_int(t->shape[d], shape[d], file, line, "t->shape[d]", "shape[d]")) return 0;
    got = tu_values(c, t);
    if (!got) return tt_test__fail(file, line, "tu_values failed");
    for (i = 0; i < n; i++) {
        double g = (double)got[i], lim = tol ? tol[i] : 0.0;
        int ok = isnan(want[i]) ? isnan(g) : (!isnan(g) && fabs(g - want[i]) <= lim);
        if (!ok) { if (first < 0) first = i; bad++; }
    }
    if (bad) {
        printf("    %s:%d: %lld of %lld values differ; first at flat index %lld: got %.9g, want %.9g (tol %g)\n",
               file, line, bad, n, first, (double)got[first], want[first], tol ? tol[first] : 0.0);
        tt_test__fail(file, line, "values match the reference");
    }
    free(got);
    return bad == 0;
}

/* The call failed: NULL result, status (or status2 where either is a fair reading of the
   contract: a number that does not fit a shape), and a message containing "fn:" and arg. */
static int fm_rejected(tt_ctx *c, const void *r, tt_status status, tt_status status2, const char *fn,
                       const char *arg, const char *file, int line) {
    int ok = 1;
    char prefix[64];
    if (r) ok = tt_test__fail(file, line, "result should be NULL");
    if (tt_ctx_status(c) == TT_OK) {
        tt_test__fail(file, line, "an error is recorded");
        return 0;
    }
    snprintf(prefix, sizeof prefix, "%s:", fn);
    ok &= tt_test__str_contains(tt_error(c), arg, file, line, "tt_error(c)");
    if (tt_ctx_status(c) == status2) status = status2;
    ok &= tu_check_error(c, status, prefix, file, line);       /* CHECK_ERROR: status, "fn:"; clears */
    if (!tt_ctx_check_guards(c)) ok = tt_test__fail(file, line, "guards overwritten");
    return ok;
}
#define FM_REJECTS(c, call, status, fn, arg) fm_rejected((c), (call), (status), (status), (fn), (arg), __FILE__, __LINE__)
#define FM_REJECTS2(c, call, s1, s2, fn, arg) fm_rejected((c), (call), (s1), (s2), (fn), (arg), __FILE__, __LINE__)

/* ---- one-op models, traced and compared with eager --------------------------------------- */

/* A model: fm_view(view) of the input, one op (with its settings here), relu if asked. */
typedef struct fm_model fm_model;
typedef tt_tensor *(*fm_op)(tt_ctx *c, tt_tensor *x, const fm_model *m);
struct fm_model {
    fm_op          op;
    int            kind;        /* which public function of the family */
    int            view;        /* FM_PLAIN, FM_TRANSPOSED, FM_SLICED */
    int            relu;        /* tt_relu after the op */
    tt_tensor     *w, *b;       /* parameters, from a weights context */
    tt_conv_params cp;
    tt_pool_params pp;
    int64_t        ints[8];     /* pads, a shape or index values */
    int            n_ints;
    tt_pad_mode    mode;
    float          value;
    int64_t        size[2];     /* upsampling output size */
    float          scale[2];    /* or scale factors */
    bool           align;
    const fm_model *alt;        /* fm_op_pair: the two models it compares */
};

static void fm_model_init(fm_model *m, fm_op op, int kind, int view) {
    memset(m, 0, sizeof *m);
    m->op = op;
    m->kind = kind;
    m->view = view;
    m->mode = TT_PAD_CONSTANT;
}

static tt_tensor *fm_apply(tt_ctx *c, const fm_model *m, tt_tensor *x) {
    tt_tensor *y = m->op(c, fm_view(c, x, m->view), m);
    return m->relu ? tt_relu(c, y) : y;
}

/* Traces m on an example input of `shape` (the base of its view) on contexts of 1, 2, 3
   and 7 threads, compiles with passes 0 and TT_PASS_ALL, runs it on another input: the
   output is bitwise m run eagerly on that input on one thread, and so is eager on n. */
static void fm_trace_check(const fm_model *m, int ndim, const int64_t *shape, unsigned long long seed,
                           const char *file, int line) {
    static const int threads[4] = {1, 2, 3, 7};
    static const unsigned passes[2] = {0u, (unsigned)TT_PASS_ALL};
    long long n = tu_numel(ndim, shape);
    double *v1 = fm_alloc(n), *v2 = fm_alloc(n);
    tt_ctx *e = fm_ctx(1);
    tt_tensor *want;
    int t, p;
    tu_uniform(v1, n, seed, -1.0, 1.0);
    tu_uniform(v2, n, seed + 1, -1.0, 1.0);
    want = fm_apply(e, m, tu_tensor(e, ndim, shape, v2));
    if (!want) {
        printf("    %s:%d: eager model failed: %s\n", file, line, tt_ctx_status(e) != TT_OK ? tt_error(e) : "?");
        tt_test__fail(file, line, "eager model runs");
    }
    for (t = 0; want && t < 4; t++) {
        for (p = 0; p < 2; p++) {
            tt_ctx *c = fm_ctx(threads[t]);
            tt_tensor *x1 = tu_tensor(c, ndim, shape, v1), *x2 = tu_tensor(c, ndim, shape, v2), *y;
            tt_graph *g;
            int ok = 1;
            if (p == 0) ok &= tu_same_bits(e, fm_apply(c, m, x2), want, file, line);   /* eager, n threads */
            CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
            tt_trace_input(c, x1, "x");
            y = fm_apply(c, m, x1);
            g = tt_trace_end(c, &y, 1);
            if (!g) {
                printf("    %s:%d: trace failed: %s\n", file, line, tt_ctx_status(c) != TT_OK ? tt_error(c) : "?");
                ok = tt_test__fail(file, line, "tt_trace_end returned a graph");
            } else {
                ok &= tt_test__eq_int(tt_graph_compile(g, TT_MODE_DEFAULT, passes[p]), TT_OK, file, line,
                                      "tt_graph_compile", "TT_OK");
                ok &= tt_test__eq_int(tt_graph_run(g, &x2, 1), TT_OK, file, line, "tt_graph_run", "TT_OK");
                if (tt_graph_status(g) != TT_OK) printf("    graph error: %s\n", tt_graph_error(g));
                ok &= tu_same_bits(e, tt_graph_output(g, 0), want, file, line);
                tt_graph_destroy(g);
            }
            ok &= fm_clean(c, file, line);
            if (!ok) printf("    (n_threads %d, passes %s)\n", threads[t], passes[p] ? "TT_PASS_ALL" : "0");
            tt_ctx_destroy(c);
        }
    }
    (void)fm_clean(e, file, line);
    tt_ctx_destroy(e);
    free(v1);
    free(v2);
}

/* Two models of one op on the same input, cropped to their common shape, subtracted:
   traced with TT_PASS_ALL, CSE must not merge calls that differ in a setting. */
static tt_tensor *fm_op_pair(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    tt_tensor *a = m->alt[0].op(c, x, &m->alt[0]), *b = m->alt[1].op(c, x, &m->alt[1]);
    int d;
    if (!a || !b || a->ndim != b->ndim) return NULL;
    for (d = 0; d < a->ndim; d++) {
        int64_t n = a->shape[d] < b->shape[d] ? a->shape[d] : b->shape[d];
        if (a->shape[d] != n) a = tt_slice(c, a, d, 0, n, 1);
        if (b->shape[d] != n) b = tt_slice(c, b, d, 0, n, 1);
    }
    return tt_sub(c, a, b);
}

/* fm_trace_check of a - b (both seeing the plain input of `shape`); eagerly the difference
   is not all zero, so the pair really differs. */
static void fm_pair_check(const fm_model *a, const fm_model *b, int ndim, const int64_t *shape, unsigned long long seed,
                          const char *file, int line) {
    fm_model pair[2], m;
    tt_ctx *c = fm_ctx(1);
    double *v;
    float *y;
    long long i, nonzero = 0;
    tt_tensor *r;
    pair[0] = *a;
    pair[1] = *b;
    fm_model_init(&m, fm_op_pair, 0, FM_PLAIN);
    m.alt = pair;
    r = fm_apply(c, &m, fm_input(c, ndim, shape, FM_PLAIN, seed, &v));
    y = tu_values(c, r);
    for (i = 0; y && i < r->numel; i++) nonzero += y[i] != 0.0f;
    if (!y || nonzero == 0) tt_test__fail(file, line, "the two settings give different results");
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    free(v);
    free(y);
    fm_trace_check(&m, ndim, shape, seed + 1, file, line);
}

/* ---- tt_from_int64 ------------------------------------------------------------------------ */

static void test_from_int64(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[2] = {2, 3}, one = 1, zero = 0, n4 = 4, xs[2] = {3, 5};
    int64_t data[6] = {0, -1, 7, INT32_MAX, INT32_MIN, 123456789};
    int64_t idx[4] = {4, 0, 4, 2}, scalar_v = -42;
    double vx[15], want[12];
    tt_tensor *t, *s, *e, *x, *sel;
    const int32_t *d;
    int i, r;
    t = tt_from_int64(c, 2, shape, data);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(t->dtype, TT_I32);
        CHECK_EQ_INT(t->ndim, 2);
        CHECK_EQ_INT(t->shape[0], 2);
        CHECK_EQ_INT(t->shape[1], 3);
        CHECK(tt_is_contiguous(t));
        d = (const int32_t *)tt_data(t);
        for (i = 0; i < 6; i++) CHECK_EQ_INT(d[i], data[i]);     /* the int32 limits included */
    }
    s = tt_from_int64(c, 0, NULL, &scalar_v);                    /* 0-d */
    CHECK(s != NULL && s->ndim == 0 && s->numel == 1);
    if (s) CHECK_EQ_INT(((const int32_t *)tt_data(s))[0], -42);
    e = tt_from_int64(c, 1, &zero, data);                        /* empty */
    CHECK(e != NULL && e->numel == 0 && e->dtype == TT_I32);
    t = tt_from_int64(c, 1, &one, &data[3]);
    CHECK(t != NULL && t->numel == 1);

    /* a usable index: index_select with it picks those columns */
    tu_uniform(vx, 15, 7, -1.0, 1.0);
    x = tu_tensor(c, 2, xs, vx);
    sel = tt_index_select(c, x, 1, tt_from_int64(c, 1, &n4, idx));
    for (r = 0; r < 3; r++)
        for (i = 0; i < 4; i++) want[r * 4 + i] = vx[r * 5 + idx[i]];
    xs[1] = 4;
    fm_close(c, sel, 2, xs, want, NULL, __FILE__, __LINE__);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

static tt_tensor *fm_op_index_select(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    int64_t n = m->n_ints;
    return tt_index_select(c, x, 1, tt_from_int64(c, 1, &n, m->ints));   /* a constant of the trace */
}

static void test_from_int64_traced(void) {
    fm_model m, m2;
    int64_t xs[2] = {3, 5};
    fm_model_init(&m, fm_op_index_select, 0, FM_PLAIN);
    m.n_ints = 5;
    m.ints[0] = 4; m.ints[1] = 0; m.ints[2] = 4; m.ints[3] = 1; m.ints[4] = 2;
    fm_trace_check(&m, 2, xs, 11, __FILE__, __LINE__);
    m.view = FM_TRANSPOSED;                     /* the [5,3] input seen as [3,5] */
    xs[0] = 5; xs[1] = 3;
    fm_trace_check(&m, 2, xs, 12, __FILE__, __LINE__);
    m.view = FM_PLAIN;                          /* two index constants of one shape stay two */
    m2 = m;
    m2.ints[1] = 3;
    xs[0] = 3; xs[1] = 5;
    fm_pair_check(&m, &m2, 2, xs, 13, __FILE__, __LINE__);
}

static void test_from_int64_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[1] = {3}, neg[1] = {-2};
    int64_t big[3] = {0, (int64_t)INT32_MAX + 1, -3000000000LL};
    int64_t small[2] = {5, (int64_t)INT32_MIN - 1};
    /* the first value that does not fit is named, by position and value (not the second) */
    CHECK(tt_from_int64(c, 1, shape, big) == NULL);
    CHECK(tt_error(c) != NULL && strstr(tt_error(c), "-3000000000") == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "data[1]");
    (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_from_int64: ");
    FM_REJECTS(c, tt_from_int64(c, 1, shape, big), TT_ERR_INDEX, "tt_from_int64", "2147483648");
    shape[0] = 2;
    FM_REJECTS(c, tt_from_int64(c, 1, shape, small), TT_ERR_INDEX, "tt_from_int64", "-2147483649");
    FM_REJECTS(c, tt_from_int64(c, 1, shape, NULL), TT_ERR_ARG, "tt_from_int64", "data");
    FM_REJECTS(c, tt_from_int64(c, 2, NULL, big), TT_ERR_ARG, "tt_from_int64", "shape");
    FM_REJECTS(c, tt_from_int64(c, -1, shape, big), TT_ERR_ARG, "tt_from_int64", "ndim");
    FM_REJECTS(c, tt_from_int64(c, TT_MAX_DIMS + 1, shape, big), TT_ERR_ARG, "tt_from_int64", "ndim");
    FM_REJECTS(c, tt_from_int64(c, 1, neg, big), TT_ERR_ARG, "tt_from_int64", "-2");
    CHECK(tt_from_int64(NULL, 1, shape, big) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- tt_reshape: a view when the strides allow it, else a copy; tt_view: views only ------- */

/* tt_reshape(x, shape) has shape `want_shape` (shape with its -1 resolved) and the values
   vals (x's, row-major); it shares x's storage exactly when want_view. tt_view does the same
   where a view is possible and fails, suggesting tt_contiguous, where it is not. */
static void fm_reshape_case(tt_ctx *c, tt_tensor *x, const double *vals, int ndim, const int64_t *shape,
                            const int64_t *want_shape, int want_view, const char *file, int line) {
    tt_tensor *y = tt_reshape(c, x, ndim, shape), *v;
    if (!fm_close(c, y, ndim, want_shape, vals, NULL, file, line)) return;
    if (want_view) {
        if (y->data != x->data) tt_test__fail(file, line, "tt_reshape made a view (shares x's data)");
    } else {
        if (y->data == x->data) tt_test__fail(file, line, "tt_reshape made a copy (not x's data)");
        if (!tt_is_contiguous(y)) tt_test__fail(file, line, "the copy is contiguous");
    }
    v = tt_view(c, x, ndim, shape);
    if (want_view) {
        if (fm_close(c, v, ndim, want_shape, vals, NULL, file, line) && v->data != x->data)
            tt_test__fail(file, line, "tt_view shares x's data");
    } else {
        if (v) tt_test__fail(file, line, "tt_view of a non-viewable layout is NULL");
        tt_test__str_contains(tt_error(c), "tt_contiguous", file, line, "tt_error(c)");
        tu_check_error(c, TT_ERR_SHAPE, "tt_view", file, line);
    }
    (void)fm_clean(c, file, line);
}
#define FM_RESHAPE(c, x, vals, ndim, shape, want_shape, view) \
    fm_reshape_case((c), (x), (vals), (ndim), (shape), (want_shape), (view), __FILE__, __LINE__)

static void test_reshape_view_or_copy(void) {
    tt_ctx *c = tu_ctx();
    int64_t s234[3] = {2, 3, 4}, s64[2] = {6, 4}, s4m[2] = {4, -1}, s46[2] = {4, 6}, s24[1] = {24};
    int64_t s21314[5] = {2, 1, 3, 1, 4}, s43[2] = {4, 3}, s12[1] = {12}, s223[3] = {2, 2, 3}, s431[3] = {4, 3, 1};
    int64_t s34[2] = {3, 4}, sm1[1] = {-1}, s322[3] = {3, 2, 2}, s62[2] = {6, 2}, s13[2] = {1, 3};
    int64_t s11[2] = {1, 1}, s03[2] = {0, 3}, s30[2] = {3, 0}, sm13[2] = {-1, 3}, s243[3] = {2, 4, 3};
    int64_t s2_12[2] = {2, 12}, s83[2] = {8, 3};
    double *v, ve[12], one = 0.5;
    tt_tensor *x, *s, *z;
    int i, j;

    /* contiguous: always a view */
    x = fm_input(c, 3, s234, FM_PLAIN, 1, &v);
    FM_RESHAPE(c, x, v, 2, s64, s64, 1);
    FM_RESHAPE(c, x, v, 2, s4m, s46, 1);
    FM_RESHAPE(c, x, v, 1, s24, s24, 1);
    FM_RESHAPE(c, x, v, 5, s21314, s21314, 1);
    free(v);

    /* transposed [4,3] of a [3,4]: flattening needs a copy; splitting the stride-1 axis is a view */
    x = fm_view(c, fm_input(c, 2, s43, FM_TRANSPOSED, 2, &v), FM_TRANSPOSED);
    FM_RESHAPE(c, x, v, 1, s12, s12, 0);
    FM_RESHAPE(c, x, v, 1, sm1, s12, 0);
    FM_RESHAPE(c, x, v, 2, s34, s34, 0);
    FM_RESHAPE(c, x, v, 3, s223, s223, 1);
    FM_RESHAPE(c, x, v, 3, s431, s431, 1);
    FM_RESHAPE(c, x, v, 2, s43, s43, 1);          /* the same shape */
    free(v);

    /* every second column of a [3,9]: [3,4] with strides [9,2] */
    x = fm_view(c, fm_input(c, 2, s34, FM_SLICED, 3, &v), FM_SLICED);
    FM_RESHAPE(c, x, v, 1, s12, s12, 0);
    FM_RESHAPE(c, x, v, 3, s322, s322, 1);
    FM_RESHAPE(c, x, v, 2, s62, s62, 0);
    free(v);

    /* transposed 3-D [2,4,3]: merging the first two axes cannot be a view */
    x = fm_view(c, fm_input(c, 3, s243, FM_TRANSPOSED, 4, &v), FM_TRANSPOSED);
    FM_RESHAPE(c, x, v, 2, s2_12, s2_12, 0);
    FM_RESHAPE(c, x, v, 2, s83, s83, 0);
    free(v);

    /* broadcast rows (stride 0): [1,3] expanded to [4,3] */
    x = fm_input(c, 2, s13, FM_PLAIN, 5, &v);
    s = tt_expand(c, x, 2, s43);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 3; j++) ve[i * 3 + j] = v[j];
    FM_RESHAPE(c, s, ve, 1, s12, s12, 0);
    FM_RESHAPE(c, s, ve, 3, s223, s223, 1);
    free(v);

    /* 0-d and empty tensors */
    z = tt_scalar(c, 0.5f);
    FM_RESHAPE(c, z, &one, 2, s11, s11, 1);
    FM_RESHAPE(c, tt_reshape(c, z, 2, s11), &one, 0, NULL, NULL, 1);
    z = tt_zeros(c, TT_F32, 2, s03);
    FM_RESHAPE(c, z, ve, 2, s30, s30, 1);
    FM_RESHAPE(c, z, ve, 2, sm13, s03, 1);
    CHECK(tt_reshape(c, NULL, 1, s12) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static tt_tensor *fm_op_reshape(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    return tt_reshape(c, x, m->n_ints, m->ints);
}

static void fm_reshape_traced(int view, int relu, int ndim, const int64_t *shape, unsigned long long seed,
                              const char *file, int line) {
    fm_model m;
    int64_t base[2] = {3, 4};
    int i;
    fm_model_init(&m, fm_op_reshape, 0, view);
    m.relu = relu;
    m.n_ints = ndim;
    for (i = 0; i < ndim; i++) m.ints[i] = shape[i];
    if (view == FM_SLICED) base[1] = 9;
    fm_trace_check(&m, 2, base, seed, file, line);
}

static void test_reshape_traced(void) {
    int64_t s12[1] = {12}, s223[3] = {2, 2, 3}, s62[2] = {6, 2}, s43[2] = {4, 3}, s2m[2] = {2, -1};
    fm_reshape_traced(FM_TRANSPOSED, 0, 1, s12, 20, __FILE__, __LINE__);   /* copy */
    fm_reshape_traced(FM_TRANSPOSED, 1, 1, s12, 21, __FILE__, __LINE__);   /* copy, then relu (fusable) */
    fm_reshape_traced(FM_TRANSPOSED, 0, 2, s2m, 22, __FILE__, __LINE__);   /* copy, -1 */
    fm_reshape_traced(FM_TRANSPOSED, 0, 3, s223, 23, __FILE__, __LINE__);  /* a view of the graph input */
    fm_reshape_traced(FM_SLICED, 0, 2, s62, 24, __FILE__, __LINE__);       /* copy of a sliced view */
    fm_reshape_traced(FM_PLAIN, 0, 2, s43, 25, __FILE__, __LINE__);        /* plain view */
}

static void test_reshape_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t s34[2] = {3, 4}, s5[1] = {5}, two_m1[2] = {-1, -1}, neg[2] = {-2, -6}, s03[2] = {0, 3}, sm10[2] = {-1, 0};
    int64_t s13[2] = {13, 1};
    tt_tensor *x = tt_zeros(c, TT_F32, 2, s34), *xt = tt_transpose(c, tt_zeros(c, TT_F32, 2, s34), 0, 1);
    tt_tensor *e = tt_zeros(c, TT_F32, 2, s03);
    FM_REJECTS(c, tt_reshape(c, x, 1, s5), TT_ERR_SHAPE, "tt_reshape", "[3,4]");
    FM_REJECTS(c, tt_reshape(c, xt, 2, s13), TT_ERR_SHAPE, "tt_reshape", "[4,3]");   /* not viewable, bad numel */
    FM_REJECTS2(c, tt_reshape(c, x, 2, two_m1), TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape", "-1");
    FM_REJECTS2(c, tt_reshape(c, x, 2, neg), TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape", "-2");
    FM_REJECTS2(c, tt_reshape(c, e, 2, sm10), TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape", "-1");  /* -1 of 0 elements */
    FM_REJECTS(c, tt_reshape(c, x, 2, NULL), TT_ERR_ARG, "tt_reshape", "shape");
    FM_REJECTS(c, tt_reshape(c, x, TT_MAX_DIMS + 1, s34), TT_ERR_ARG, "tt_reshape", "ndim");
    FM_REJECTS(c, tt_view(c, xt, 1, s5), TT_ERR_SHAPE, "tt_view", "[4,3]");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- tt_pad_ex: constant, reflect, replicate, circular (torch.nn.functional.pad) -------------- */

/* The index of x read by output index o of a padded axis (before: the pad in front, n: the
   axis size), or -1 for the constant. PyTorch: reflect mirrors about the edge elements
   without repeating them, replicate repeats the edge, circular wraps around. */
static int64_t fm_pad_source(int64_t o, int64_t before, int64_t n, tt_pad_mode mode) {
    int64_t i = o - before;
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case TT_PAD_REFLECT:   return i < 0 ? -i : 2 * (n - 1) - i;
    case TT_PAD_REPLICATE: return i < 0 ? 0 : n - 1;
    case TT_PAD_CIRCULAR:  return ((i % n) + n) % n;
    default:               return -1;
    }
}

/* Reference: x [shape] (ndim <= 6) padded by pads (F.pad order: last axis first). */
static void fm_ref_pad(int ndim, const int64_t *shape, const double *x, const int64_t *pads, int n_pads,
                       tt_pad_mode mode, double value, int64_t *out_shape, double *y) {
    int64_t before[6], pos[6];
    long long n, e;
    int d;
    for (d = 0; d < ndim; d++) { before[d] = 0; out_shape[d] = shape[d]; }
    for (d = 0; d < n_pads / 2; d++) {
        before[ndim - 1 - d] = pads[2 * d];
        out_shape[ndim - 1 - d] += pads[2 * d] + pads[2 * d + 1];
    }
    n = tu_numel(ndim, out_shape);
    for (e = 0; e < n; e++) {
        long long rest = e, src = 0;
        int inside = 1;
        for (d = ndim - 1; d >= 0; d--) { pos[d] = rest % out_shape[d]; rest /= out_shape[d]; }
        for (d = 0; d < ndim; d++) {
            int64_t i = fm_pad_source(pos[d], before[d], shape[d], mode);
            if (i < 0) inside = 0;
            src = src * shape[d] + (i < 0 ? 0 : i);
        }
        y[e] = inside ? x[src] : value;
    }
}

static tt_tensor *fm_op_pad(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    return tt_pad_ex(c, x, m->ints, m->n_ints, m->mode, m->value);
}

/* One case on a random x of `shape` (seen through view): eagerly, exactly against the
   reference; with trace, also traced and compared bitwise. */
static void fm_pad_case(int ndim, const int64_t *shape, int view, tt_pad_mode mode, const int64_t *pads, int n_pads,
                        float value, int trace, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = fm_ctx(1);
    int64_t out_shape[6], base[6];
    double *vx, *want;
    fm_model m;
    tt_tensor *x;
    int d;
    fm_model_init(&m, fm_op_pad, 0, view);
    m.mode = mode;
    m.value = value;
    m.n_ints = n_pads;
    for (d = 0; d < n_pads; d++) m.ints[d] = pads[d];
    for (d = 0; d < ndim; d++) out_shape[d] = shape[d];
    for (d = 0; d < n_pads / 2; d++) out_shape[ndim - 1 - d] += pads[2 * d] + pads[2 * d + 1];
    want = fm_alloc(tu_numel(ndim, out_shape));
    x = fm_input(c, ndim, shape, view, seed, &vx);
    fm_ref_pad(ndim, shape, vx, pads, n_pads, mode, (double)value, out_shape, want);
    fm_close(c, fm_apply(c, &m, x), ndim, out_shape, want, NULL, file, line);
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    free(vx);
    free(want);
    if (trace) {
        fm_base_shape(ndim, shape, view, base);
        fm_trace_check(&m, ndim, base, seed + 100, file, line);
    }
}
#define FM_PAD(ndim, shape, view, mode, pads, value, trace, seed) \
    fm_pad_case((ndim), (shape), (view), (mode), (pads), FM_COUNT(pads), (value), (trace), (seed), __FILE__, __LINE__)

static void test_pad_modes(void) {
    static const tt_pad_mode modes[4] = {TT_PAD_CONSTANT, TT_PAD_REFLECT, TT_PAD_REPLICATE, TT_PAD_CIRCULAR};
    int64_t s3[3] = {2, 3, 5}, s4[4] = {2, 3, 4, 5}, s1[4] = {1, 1, 1, 4}, s0[3] = {0, 3, 4};
    int64_t p1[2] = {2, 3}, p2[4] = {1, 2, 3, 0}, p3[6] = {1, 1, 2, 0, 0, 2}, p4[8] = {1, 0, 0, 1, 1, 1, 1, 0};
    int64_t zero[4] = {0, 0, 0, 0}, p_empty[4] = {2, 1, 1, 2};
    int64_t reflect_max[4] = {4, 4, 3, 3}, circular_max[4] = {5, 5, 4, 4}, wide[4] = {7, 6, 9, 5};
    int64_t ones_reflect[6] = {3, 2, 0, 0, 0, 0}, ones_circular[6] = {1, 1, 1, 0, 0, 1};
    int64_t ones_wide[6] = {2, 1, 3, 3, 2, 0};
    int i;
    unsigned long long seed = 40;
    for (i = 0; i < 4; i++, seed += 10) {
        tt_pad_mode m = modes[i];
        FM_PAD(3, s3, FM_PLAIN, m, p1, 1.5f, 0, seed);           /* one axis */
        FM_PAD(4, s4, FM_PLAIN, m, p2, -2.0f, 0, seed + 1);      /* two axes, asymmetric */
        FM_PAD(4, s4, FM_PLAIN, m, p3, 0.0f, 0, seed + 2);       /* three axes */
        FM_PAD(4, s4, FM_PLAIN, m, p4, 3.0f, 0, seed + 3);       /* all four axes */
        FM_PAD(4, s4, FM_PLAIN, m, zero, 3.0f, 0, seed + 4);     /* zero pads: a copy */
        FM_PAD(4, s4, FM_TRANSPOSED, m, p2, 0.25f, 0, seed + 5); /* non-contiguous inputs */
        FM_PAD(4, s4, FM_SLICED, m, p3, 0.25f, 0, seed + 6);
        FM_PAD(3, s0, FM_PLAIN, m, p_empty, 1.0f, 0, seed + 7);  /* an empty batch: [0,5,7] */
    }
    /* the largest pads each mode takes (reflect: size - 1; circular: the size) */
    FM_PAD(4, s4, FM_PLAIN, TT_PAD_REFLECT, reflect_max, 0.0f, 0, 90);
    FM_PAD(4, s4, FM_TRANSPOSED, TT_PAD_REFLECT, reflect_max, 0.0f, 0, 91);
    FM_PAD(4, s4, FM_PLAIN, TT_PAD_CIRCULAR, circular_max, 0.0f, 0, 92);
    FM_PAD(4, s4, FM_SLICED, TT_PAD_CIRCULAR, circular_max, 0.0f, 0, 93);
    FM_PAD(4, s4, FM_PLAIN, TT_PAD_REPLICATE, wide, 0.0f, 0, 94);     /* replicate: any pad */
    FM_PAD(4, s4, FM_PLAIN, TT_PAD_CONSTANT, wide, -7.0f, 0, 95);
    /* size-1 axes: replicate and circular pad them, reflect cannot */
    FM_PAD(4, s1, FM_PLAIN, TT_PAD_REFLECT, ones_reflect, 0.0f, 0, 96);
    FM_PAD(4, s1, FM_PLAIN, TT_PAD_CIRCULAR, ones_circular, 0.0f, 0, 97);
    FM_PAD(4, s1, FM_PLAIN, TT_PAD_REPLICATE, ones_wide, 0.0f, 0, 98);
    FM_PAD(4, s1, FM_PLAIN, TT_PAD_CONSTANT, ones_wide, 2.0f, 0, 99);
}

/* Modes other than constant copy elements of any dtype: i32 indices stay exact. */
static void test_pad_i32(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[2] = {2, 4}, data[8] = {1, 2, 3, INT32_MAX, -5, 6, INT32_MIN, 8}, pads[2] = {2, 3};
    static const tt_pad_mode modes[3] = {TT_PAD_REFLECT, TT_PAD_REPLICATE, TT_PAD_CIRCULAR};
    int i, r, j;
    for (i = 0; i < 3; i++) {
        tt_tensor *y = tt_pad_ex(c, tt_from_int64(c, 2, shape, data), pads, 2, modes[i], 0.0f);
        CHECK(y != NULL);
        if (!y) continue;
        CHECK_EQ_INT(y->dtype, TT_I32);
        CHECK_EQ_INT(y->shape[1], 9);
        for (r = 0; r < 2; r++)
            for (j = 0; j < 9; j++)
                CHECK_EQ_INT(((const int32_t *)tt_data(y))[r * 9 + j], data[r * 4 + fm_pad_source(j, 2, 4, modes[i])]);
    }
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

/* Pads differing only in mode, value or the pads' order are different calls for CSE. */
static void fm_pad_pairs(void) {
    int64_t s4[4] = {2, 3, 4, 5};
    fm_model a, b;
    fm_model_init(&a, fm_op_pad, 0, FM_PLAIN);
    a.n_ints = 4;
    a.ints[0] = 1; a.ints[1] = 2; a.ints[2] = 3; a.ints[3] = 1;
    a.mode = TT_PAD_REFLECT;
    b = a;
    b.mode = TT_PAD_REPLICATE;
    fm_pair_check(&a, &b, 4, s4, 140, __FILE__, __LINE__);
    b.mode = TT_PAD_CIRCULAR;
    fm_pair_check(&a, &b, 4, s4, 141, __FILE__, __LINE__);
    b = a;
    b.ints[0] = 2; b.ints[1] = 1;
    fm_pair_check(&a, &b, 4, s4, 142, __FILE__, __LINE__);
    a.mode = b.mode = TT_PAD_CONSTANT;
    a.value = 1.0f; b = a; b.value = 2.0f;
    fm_pair_check(&a, &b, 4, s4, 143, __FILE__, __LINE__);
}

static void test_pad_traced(void) {
    int64_t s3[3] = {2, 3, 5}, s4[4] = {2, 3, 4, 5};
    int64_t p1[2] = {4, 2}, p2[4] = {1, 2, 3, 0}, p3[6] = {1, 1, 2, 0, 0, 2};
    FM_PAD(4, s4, FM_TRANSPOSED, TT_PAD_REFLECT, p2, 0.0f, 1, 130);
    FM_PAD(4, s4, FM_SLICED, TT_PAD_CIRCULAR, p3, 0.0f, 1, 131);
    FM_PAD(3, s3, FM_PLAIN, TT_PAD_REPLICATE, p1, 0.0f, 1, 132);
    FM_PAD(4, s4, FM_PLAIN, TT_PAD_CONSTANT, p2, -0.5f, 1, 133);
    fm_pad_pairs();
}

static void test_pad_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[3] = {2, 3, 5}, s_empty[2] = {2, 0}, s_one[2] = {2, 1};
    int64_t r5[2] = {0, 5}, r5b[2] = {5, 0}, c6[2] = {6, 0}, one[2] = {1, 0}, neg[2] = {1, -1};
    int64_t odd[3] = {1, 1, 1}, many[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    tt_tensor *x = tt_zeros(c, TT_F32, 3, s), *e = tt_zeros(c, TT_F32, 2, s_empty), *o = tt_zeros(c, TT_F32, 2, s_one);
    FM_REJECTS2(c, tt_pad_ex(c, x, r5, 2, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, x, r5b, 2, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, o, one, 2, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, x, c6, 2, TT_PAD_CIRCULAR, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, e, one, 2, TT_PAD_CIRCULAR, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, e, one, 2, TT_PAD_REPLICATE, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS2(c, tt_pad_ex(c, e, one, 2, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_pad_ex", "pads");
    FM_REJECTS(c, tt_pad_ex(c, x, neg, 2, TT_PAD_REPLICATE, 0.0f), TT_ERR_ARG, "tt_pad_ex", "pads");
    FM_REJECTS(c, tt_pad_ex(c, x, odd, 3, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, "tt_pad_ex", "n_pads");
    FM_REJECTS(c, tt_pad_ex(c, x, many, 8, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, "tt_pad_ex", "n_pads");
    FM_REJECTS(c, tt_pad_ex(c, x, NULL, 2, TT_PAD_REFLECT, 0.0f), TT_ERR_ARG, "tt_pad_ex", "pads");
    FM_REJECTS(c, tt_pad_ex(c, x, one, 2, (tt_pad_mode)7, 0.0f), TT_ERR_ARG, "tt_pad_ex", "mode");
    FM_REJECTS(c, tt_pad_ex(c, x, one, 2, (tt_pad_mode)-1, 0.0f), TT_ERR_ARG, "tt_pad_ex", "mode");
    /* constant padding of an empty axis is fine */
    CHECK(tt_pad_ex(c, e, one, 2, TT_PAD_CONSTANT, 1.0f) != NULL);
    CHECK(tt_pad_ex(c, NULL, one, 2, TT_PAD_REFLECT, 0.0f) == NULL);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

/* ---- pooling: 1-D, 2-D, 3-D, per-axis, ceil_mode, count_include_pad (F.max_pool*d, F.avg_pool*d) */

enum { FM_MAX1D, FM_AVG1D, FM_MAX_EX, FM_AVG_EX, FM_MAX2D, FM_AVG2D };

/* One pooling case. The settings are what the library is given (stride 0 = the window,
   dilation 0 = 1); the 1d and 2d functions take entry 0 for every axis, floor mode and
   count_include_pad (PyTorch's defaults). */
typedef struct fm_pool {
    int     kind, nsp;
    int64_t N, C, in[3];
    int     k[3], s[3], p[3], d[3];
    bool    ceil, excl;
    int     view;
} fm_pool;

static int64_t fm_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}

/* PyTorch's pooling_output_shape: with ceil_mode, rounded up, then one less when the last
   window would start past the input and its left padding. */
static int64_t fm_pool_out(int64_t in, int k, int s, int p, int d, bool ceil) {
    int64_t out = fm_floor_div(in + 2 * p - (int64_t)d * (k - 1) - 1 + (ceil ? s - 1 : 0), s) + 1;
    if (ceil && (out - 1) * s >= in + p) out--;
    return out;
}

/* Per-axis settings as PyTorch sees them, over 3 axes (those past nsp: 1 wide, no padding). */
typedef struct fm_axes {
    int64_t in[3], out[3];
    int     k[3], s[3], p[3], d[3], op[3];
} fm_axes;

static void fm_pool_axes(const fm_pool *q, fm_axes *a) {
    int i, j;
    bool ceil = q->kind == FM_MAX_EX || q->kind == FM_AVG_EX ? q->ceil : false;
    for (i = 0; i < 3; i++) {
        j = q->kind == FM_MAX_EX || q->kind == FM_AVG_EX ? i : 0;
        a->op[i] = 0;
        if (i >= q->nsp) { a->in[i] = a->out[i] = 1; a->k[i] = a->s[i] = a->d[i] = 1; a->p[i] = 0; continue; }
        a->in[i] = q->in[i];
        a->k[i] = q->k[j];
        a->s[i] = q->s[j] ? q->s[j] : q->k[j];
        a->p[i] = q->p[j];
        a->d[i] = q->d[j] ? q->d[j] : 1;
        a->out[i] = fm_pool_out(a->in[i], a->k[i], a->s[i], a->p[i], a->d[i], ceil);
    }
}

/* pos = the 3-axis position of flat index e in a box of sizes n (row-major). */
static void fm_unflat(long long e, const int64_t *n, int64_t *pos) {
    pos[2] = e % n[2];
    e /= n[2];
    pos[1] = e % n[1];
    pos[0] = e / n[1];
}

static long long fm_flat(const int64_t *pos, const int64_t *n) { return (pos[0] * n[1] + pos[1]) * n[2] + pos[2]; }

/* Reference pooling of x [N*C planes of a->in]. Max: the largest tap inside the input
   (padding is never read), NaN when a tap is NaN (PyTorch propagates it). Average (no
   dilation): the window is clipped to the padded input, which gives the divisor with
   count_include_pad, and then to the input, which gives the cells summed and the divisor
   without it. */
static void fm_ref_pool(const fm_pool *q, const fm_axes *a, const double *x, double *y, double *tol) {
    int is_max = q->kind == FM_MAX1D || q->kind == FM_MAX_EX || q->kind == FM_MAX2D;
    bool excl = q->kind == FM_AVG_EX && q->excl;
    long long nplanes = q->N * q->C, nin = a->in[0] * a->in[1] * a->in[2], nout = a->out[0] * a->out[1] * a->out[2];
    int64_t kn[3], o[3], kk[3], i3[3], lo[3], hi[3];
    long long pl, e, f;
    int ax;
    for (ax = 0; ax < 3; ax++) kn[ax] = a->k[ax];
    for (pl = 0; pl < nplanes; pl++)
        for (e = 0; e < nout; e++) {
            const double *xp = x + pl * nin;
            double r, sabs = 0.0;
            fm_unflat(e, a->out, o);
            if (is_max) {
                int nan = 0, any = 0;
                r = -INFINITY;
                for (f = 0; f < kn[0] * kn[1] * kn[2]; f++) {
                    int inside = 1;
                    fm_unflat(f, kn, kk);
                    for (ax = 0; ax < 3; ax++) {
                        i3[ax] = o[ax] * a->s[ax] - a->p[ax] + kk[ax] * a->d[ax];
                        if (i3[ax] < 0 || i3[ax] >= a->in[ax]) inside = 0;
                    }
                    if (!inside) continue;
                    any = 1;
                    if (isnan(xp[fm_flat(i3, a->in)])) nan = 1;
                    else if (xp[fm_flat(i3, a->in)] > r) r = xp[fm_flat(i3, a->in)];
                }
                y[pl * nout + e] = nan ? (double)NAN : any ? r : -INFINITY;
                tol[pl * nout + e] = 0.0;
            } else {
                long long pool = 1, cells = 1;
                r = 0.0;
                for (ax = 0; ax < 3; ax++) {
                    lo[ax] = o[ax] * a->s[ax] - a->p[ax];
                    hi[ax] = lo[ax] + a->k[ax] < a->in[ax] + a->p[ax] ? lo[ax] + a->k[ax] : a->in[ax] + a->p[ax];
                    pool *= hi[ax] - lo[ax];
                    if (lo[ax] < 0) lo[ax] = 0;
                    if (hi[ax] > a->in[ax]) hi[ax] = a->in[ax];
                    cells *= hi[ax] > lo[ax] ? hi[ax] - lo[ax] : 0;
                }
                for (i3[0] = lo[0]; i3[0] < hi[0]; i3[0]++)
                    for (i3[1] = lo[1]; i3[1] < hi[1]; i3[1]++)
                        for (i3[2] = lo[2]; i3[2] < hi[2]; i3[2]++) {
                            r += xp[fm_flat(i3, a->in)];
                            sabs += fabs(xp[fm_flat(i3, a->in)]);
                        }
                y[pl * nout + e] = r / (double)(excl ? cells : pool);
                tol[pl * nout + e] = FM_SUM_TOL * sabs / (double)(excl ? cells : pool);
            }
        }
}

static tt_tensor *fm_op_pool(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    const tt_pool_params *p = &m->pp;
    switch (m->kind) {
    case FM_MAX1D:  return tt_max_pool1d(c, x, p->kernel[0], p->stride[0], p->padding[0]);
    case FM_AVG1D:  return tt_avg_pool1d(c, x, p->kernel[0], p->stride[0], p->padding[0]);
    case FM_MAX2D:  return tt_max_pool2d(c, x, p->kernel[0], p->stride[0], p->padding[0]);
    case FM_AVG2D:  return tt_avg_pool2d(c, x, p->kernel[0], p->stride[0], p->padding[0]);
    case FM_MAX_EX: return tt_max_pool_ex(c, x, p);
    default:        return tt_avg_pool_ex(c, x, p);
    }
}

/* The model of a case: its settings, and nonsense in the entries past the spatial axes
   (the header: they are ignored). */
static void fm_pool_model(const fm_pool *q, fm_model *m) {
    int i;
    fm_model_init(m, fm_op_pool, q->kind, q->view);
    for (i = 0; i < 3; i++) {
        bool used = i < q->nsp;
        m->pp.kernel[i] = used ? q->k[i] : -3;
        m->pp.stride[i] = used ? q->s[i] : -1;
        m->pp.padding[i] = used ? q->p[i] : 99;
        m->pp.dilation[i] = used ? q->d[i] : -2;
    }
    m->pp.ceil_mode = q->ceil;
    m->pp.exclude_pad = q->excl;
}

/* Eagerly against the reference; with trace, also traced (bitwise). */
static void fm_pool_case(const fm_pool *q, int trace, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = fm_ctx(1);
    fm_axes a;
    fm_model m;
    int64_t xs[5], ys[5], base[5];
    int nd = 2 + q->nsp, i;
    double *vx, *want, *tol;
    tt_tensor *x;
    fm_pool_axes(q, &a);
    fm_pool_model(q, &m);
    xs[0] = ys[0] = q->N;
    xs[1] = ys[1] = q->C;
    for (i = 0; i < q->nsp; i++) { xs[2 + i] = a.in[i]; ys[2 + i] = a.out[i]; }
    want = fm_alloc(tu_numel(nd, ys));
    tol = fm_alloc(tu_numel(nd, ys));
    x = fm_input(c, nd, xs, q->view, seed, &vx);
    fm_ref_pool(q, &a, vx, want, tol);
    if (!fm_close(c, fm_apply(c, &m, x), nd, ys, want, tol, file, line))
        printf("    (pool kind %d, %d-D, ceil %d, exclude_pad %d)\n", q->kind, q->nsp, (int)q->ceil, (int)q->excl);
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    free(vx); free(want); free(tol);
    if (trace) {
        fm_base_shape(nd, xs, q->view, base);
        fm_trace_check(&m, nd, base, seed + 100, file, line);
    }
}

/* kind, nsp, N, C, in, kernel, stride, padding, dilation, ceil_mode, exclude_pad, view */
static const fm_pool fm_pools_1d[] = {
    {FM_MAX1D, 1, 2, 3, {10, 0, 0}, {3, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},  /* stride = kernel */
    {FM_AVG1D, 1, 2, 3, {9, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},   /* padding counted */
    {FM_MAX1D, 1, 1, 2, {7, 0, 0}, {2, 0, 0}, {3, 0, 0}, {1, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},   /* stride > kernel */
    {FM_AVG1D, 1, 1, 2, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},   /* length 1 */
    {FM_MAX1D, 1, 2, 1, {5, 0, 0}, {5, 0, 0}, {0, 0, 0}, {2, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},
    {FM_AVG1D, 1, 2, 2, {8, 0, 0}, {4, 0, 0}, {0, 0, 0}, {2, 0, 0}, {0, 0, 0}, false, false, FM_SLICED},
    {FM_MAX1D, 1, 0, 3, {6, 0, 0}, {2, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 0}, false, false, FM_PLAIN},   /* empty batch */
    /* ceil_mode: 6 -> 3 (floor) or 4 (ceil); the last window holds one input cell, one
       padding cell and one past the padding: divisor 2 (count_include_pad) or 1 */
    {FM_AVG_EX, 1, 2, 3, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, false, false, FM_PLAIN},
    {FM_AVG_EX, 1, 2, 3, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    {FM_AVG_EX, 1, 2, 3, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, false, true, FM_PLAIN},
    {FM_AVG_EX, 1, 2, 3, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, true, FM_PLAIN},
    {FM_MAX_EX, 1, 2, 3, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    /* ceil_mode without padding: 6 -> 2 or 3, the last window cut by the input's end */
    {FM_AVG_EX, 1, 1, 2, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {0, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    {FM_MAX_EX, 1, 1, 2, {6, 0, 0}, {3, 0, 0}, {2, 0, 0}, {0, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    /* ceil_mode's rule: 5, kernel 2, stride 2, padding 1 gives 3, not 4 (a 4th window would
       start in the right padding) */
    {FM_AVG_EX, 1, 1, 2, {5, 0, 0}, {2, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    {FM_AVG_EX, 1, 1, 2, {5, 0, 0}, {2, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, true, FM_PLAIN},
    {FM_MAX_EX, 1, 1, 2, {5, 0, 0}, {2, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    /* dilated max pooling; padding up to half the dilated window (k 2, d 3: window 4, pad 2) */
    {FM_MAX_EX, 1, 2, 2, {11, 0, 0}, {3, 0, 0}, {2, 0, 0}, {2, 0, 0}, {2, 0, 0}, false, false, FM_PLAIN},
    {FM_MAX_EX, 1, 2, 2, {11, 0, 0}, {3, 0, 0}, {2, 0, 0}, {2, 0, 0}, {2, 0, 0}, true, false, FM_PLAIN},
    {FM_MAX_EX, 1, 1, 3, {9, 0, 0}, {2, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, false, false, FM_PLAIN},
    {FM_MAX_EX, 1, 1, 3, {10, 0, 0}, {2, 0, 0}, {3, 0, 0}, {2, 0, 0}, {3, 0, 0}, true, false, FM_SLICED},
    {FM_AVG_EX, 1, 1, 3, {9, 0, 0}, {4, 0, 0}, {0, 0, 0}, {2, 0, 0}, {0, 0, 0}, true, true, FM_PLAIN},   /* defaults */
    {FM_AVG_EX, 1, 1, 2, {2, 0, 0}, {3, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},  /* window > input */
    {FM_MAX_EX, 1, 1, 2, {2, 0, 0}, {3, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, false, FM_PLAIN},
    {FM_AVG_EX, 1, 0, 3, {9, 0, 0}, {3, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 0, 0}, true, true, FM_PLAIN},   /* empty batch */
};

static const fm_pool fm_pools_2d[] = {
    {FM_AVG_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, false, false, FM_PLAIN},
    {FM_AVG_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, true, false, FM_PLAIN},
    {FM_AVG_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, false, true, FM_PLAIN},
    {FM_AVG_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, true, true, FM_TRANSPOSED},
    {FM_AVG_EX, 2, 1, 2, {9, 5, 0}, {3, 3, 0}, {3, 2, 0}, {1, 1, 0}, {1, 1, 0}, true, true, FM_PLAIN},
    {FM_AVG_EX, 2, 1, 2, {9, 5, 0}, {3, 3, 0}, {3, 2, 0}, {1, 1, 0}, {1, 1, 0}, true, false, FM_SLICED},
    {FM_MAX_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, true, false, FM_PLAIN},
    {FM_MAX_EX, 2, 2, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, true, true, FM_PLAIN},    /* exclude_pad: no effect */
    {FM_MAX_EX, 2, 2, 2, {9, 8, 0}, {3, 2, 0}, {2, 1, 0}, {2, 0, 0}, {2, 1, 0}, false, false, FM_TRANSPOSED},
    {FM_MAX_EX, 2, 2, 2, {9, 8, 0}, {3, 2, 0}, {2, 3, 0}, {2, 1, 0}, {2, 1, 0}, true, false, FM_PLAIN},
    {FM_MAX_EX, 2, 2, 3, {1, 6, 0}, {1, 3, 0}, {1, 2, 0}, {0, 1, 0}, {1, 1, 0}, true, false, FM_PLAIN},  /* height 1 */
    {FM_AVG_EX, 2, 2, 3, {1, 6, 0}, {1, 3, 0}, {1, 2, 0}, {0, 1, 0}, {1, 1, 0}, true, true, FM_PLAIN},
    {FM_AVG_EX, 2, 0, 3, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, true, true, FM_PLAIN},   /* empty batch */
    /* the square functions, on the same reference */
    {FM_MAX2D, 2, 2, 3, {7, 7, 0}, {3, 3, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 0}, false, false, FM_PLAIN},
    {FM_AVG2D, 2, 2, 3, {7, 7, 0}, {3, 3, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 0}, false, false, FM_TRANSPOSED},
};

static const fm_pool fm_pools_3d[] = {
    {FM_AVG_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, false, false, FM_PLAIN},
    {FM_AVG_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, true, false, FM_PLAIN},
    {FM_AVG_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, false, true, FM_PLAIN},
    {FM_AVG_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, true, true, FM_SLICED},
    {FM_AVG_EX, 3, 1, 3, {3, 4, 5}, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, true, false, FM_TRANSPOSED},
    {FM_MAX_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 2, 1}, false, false, FM_PLAIN},
    {FM_MAX_EX, 3, 2, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 2, 1}, true, false, FM_TRANSPOSED},
    {FM_MAX_EX, 3, 1, 2, {1, 1, 5}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, true, false, FM_PLAIN},   /* size-1 axes */
    {FM_MAX_EX, 3, 0, 2, {5, 6, 7}, {2, 3, 3}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, true, false, FM_PLAIN},   /* empty batch */
};

static void fm_pool_table(const fm_pool *cases, int n, unsigned long long seed, const char *file, int line) {
    int i;
    for (i = 0; i < n; i++) fm_pool_case(&cases[i], 0, seed + 7u * (unsigned)i, file, line);
}

static void test_pool_1d(void) { fm_pool_table(fm_pools_1d, FM_COUNT(fm_pools_1d), 200, __FILE__, __LINE__); }
static void test_pool_2d(void) { fm_pool_table(fm_pools_2d, FM_COUNT(fm_pools_2d), 400, __FILE__, __LINE__); }
static void test_pool_3d(void) { fm_pool_table(fm_pools_3d, FM_COUNT(fm_pools_3d), 600, __FILE__, __LINE__); }

/* Max pooling propagates NaN like PyTorch, and never reads the padding as a value. */
static void test_pool_nan_and_negative(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[3] = {1, 1, 4}, ys[3] = {1, 1, 3};
    float data[4];
    double want[3], w_neg[4] = {-5.0, -5.0, -5.0, -5.0};
    tt_pool_params p;
    tt_tensor *x;
    data[0] = 1.0f; data[1] = NAN; data[2] = 3.0f; data[3] = 2.0f;
    want[0] = NAN; want[1] = NAN; want[2] = 3.0;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 2; p.stride[0] = 1;
    x = tt_from_data(c, TT_F32, 3, xs, data);
    fm_close(c, tt_max_pool_ex(c, x, &p), 3, ys, want, NULL, __FILE__, __LINE__);
    fm_close(c, tt_max_pool1d(c, x, 2, 1, 0), 3, ys, want, NULL, __FILE__, __LINE__);
    data[0] = data[1] = data[2] = data[3] = -5.0f;   /* kernel 3, padding 1: the padding is not a 0 */
    x = tt_from_data(c, TT_F32, 3, xs, data);
    p.kernel[0] = 3; p.padding[0] = 1;
    ys[2] = 4;
    fm_close(c, tt_max_pool_ex(c, x, &p), 3, ys, w_neg, NULL, __FILE__, __LINE__);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

/* Pools differing in one setting (exclude_pad, ceil_mode, dilation, stride) stay apart. */
static void fm_pool_pair(const fm_pool *qa, const fm_pool *qb, unsigned long long seed, const char *file, int line) {
    fm_model a, b;
    fm_axes ax;
    int64_t xs[5];
    int i;
    fm_pool_axes(qa, &ax);
    fm_pool_model(qa, &a);
    fm_pool_model(qb, &b);
    a.view = b.view = FM_PLAIN;
    xs[0] = qa->N; xs[1] = qa->C;
    for (i = 0; i < qa->nsp; i++) xs[2 + i] = ax.in[i];
    fm_pair_check(&a, &b, 2 + qa->nsp, xs, seed, file, line);
}

static void fm_pool_pairs(void) {
    fm_pool a = fm_pools_1d[9], b;       /* avg, L 6, k 3, s 2, p 1, exclude_pad */
    b = a; b.excl = !a.excl;
    fm_pool_pair(&a, &b, 710, __FILE__, __LINE__);
    b = a; b.s[0] = 1;
    fm_pool_pair(&a, &b, 712, __FILE__, __LINE__);
    a = fm_pools_1d[17];                 /* max, k 3, s 2, p 2, d 2 */
    b = a; b.d[0] = 1; b.p[0] = 1;
    fm_pool_pair(&a, &b, 713, __FILE__, __LINE__);
    b = a; b.kind = FM_AVG_EX; b.d[0] = 1; b.p[0] = 1;
    fm_pool_pair(&a, &b, 714, __FILE__, __LINE__);
    a = fm_pools_3d[1];                  /* avg 3-D, ceil */
    b = a; b.excl = !a.excl;
    fm_pool_pair(&a, &b, 715, __FILE__, __LINE__);
}

static void test_pool_traced(void) {
    fm_pool_case(&fm_pools_1d[1], 1, 700, __FILE__, __LINE__);    /* avg_pool1d */
    fm_pool_case(&fm_pools_1d[10], 1, 701, __FILE__, __LINE__);   /* avg, ceil, exclude_pad */
    fm_pool_case(&fm_pools_2d[8], 1, 702, __FILE__, __LINE__);    /* max, dilated, transposed */
    fm_pool_case(&fm_pools_3d[3], 1, 703, __FILE__, __LINE__);    /* avg 3-D, ceil, exclude_pad, sliced */
    fm_pool_case(&fm_pools_3d[6], 1, 704, __FILE__, __LINE__);    /* max 3-D, ceil, transposed */
    fm_pool_pairs();
}

static void test_pool_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t s1[3] = {1, 2, 6}, s2[4] = {1, 2, 2, 5}, s3[5] = {1, 1, 4, 4, 4}, s_r2[2] = {2, 6}, s_r6[6] = {1, 1, 2, 2, 2, 2};
    int64_t s_short[3] = {1, 1, 2};
    tt_tensor *x1 = tt_zeros(c, TT_F32, 3, s1), *x2 = tt_zeros(c, TT_F32, 4, s2), *x3 = tt_zeros(c, TT_F32, 5, s3);
    tt_tensor *r2 = tt_zeros(c, TT_F32, 2, s_r2), *r6 = tt_zeros(c, TT_F32, 6, s_r6), *xs = tt_zeros(c, TT_F32, 3, s_short);
    tt_pool_params p;

    FM_REJECTS(c, tt_max_pool1d(c, x1, 0, 0, 0), TT_ERR_ARG, "tt_max_pool1d", "kernel");
    FM_REJECTS(c, tt_max_pool1d(c, x1, 2, -1, 0), TT_ERR_ARG, "tt_max_pool1d", "stride");
    FM_REJECTS(c, tt_max_pool1d(c, x1, 3, 1, 2), TT_ERR_ARG, "tt_max_pool1d", "padding");
    FM_REJECTS(c, tt_avg_pool1d(c, x1, 3, 1, -1), TT_ERR_ARG, "tt_avg_pool1d", "padding");
    FM_REJECTS(c, tt_avg_pool1d(c, x1, 4, 1, 3), TT_ERR_ARG, "tt_avg_pool1d", "padding");
    FM_REJECTS(c, tt_max_pool1d(c, x2, 2, 0, 0), TT_ERR_SHAPE, "tt_max_pool1d", "[1,2,2,5]");
    FM_REJECTS(c, tt_avg_pool1d(c, r2, 2, 0, 0), TT_ERR_SHAPE, "tt_avg_pool1d", "[2,6]");
    FM_REJECTS(c, tt_max_pool1d(c, xs, 3, 1, 0), TT_ERR_SHAPE, "tt_max_pool1d", "[1,1,2]");   /* window > input */
    FM_REJECTS(c, tt_avg_pool1d(c, xs, 3, 1, 0), TT_ERR_SHAPE, "tt_avg_pool1d", "[1,1,2]");

    memset(&p, 0, sizeof p);
    p.kernel[0] = p.kernel[1] = p.kernel[2] = 2;
    FM_REJECTS(c, tt_max_pool_ex(c, x2, NULL), TT_ERR_ARG, "tt_max_pool_ex", "p");
    FM_REJECTS(c, tt_avg_pool_ex(c, x2, NULL), TT_ERR_ARG, "tt_avg_pool_ex", "p");
    FM_REJECTS(c, tt_max_pool_ex(c, r2, &p), TT_ERR_SHAPE, "tt_max_pool_ex", "[2,6]");
    FM_REJECTS(c, tt_avg_pool_ex(c, r6, &p), TT_ERR_SHAPE, "tt_avg_pool_ex", "[1,1,2,2,2,2]");
    p.kernel[1] = 0;
    FM_REJECTS(c, tt_max_pool_ex(c, x2, &p), TT_ERR_ARG, "tt_max_pool_ex", "kernel");
    FM_REJECTS(c, tt_avg_pool_ex(c, x3, &p), TT_ERR_ARG, "tt_avg_pool_ex", "kernel");
    p.kernel[1] = 2; p.stride[2] = -1;
    FM_REJECTS(c, tt_max_pool_ex(c, x3, &p), TT_ERR_ARG, "tt_max_pool_ex", "stride");
    CHECK(tt_max_pool_ex(c, x2, &p) != NULL);                       /* stride[2] is past a 2-D input's axes */
    p.stride[2] = 0; p.dilation[0] = -1;
    FM_REJECTS(c, tt_max_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_max_pool_ex", "dilation");
    p.dilation[0] = 2;                                              /* average pooling takes no dilation */
    FM_REJECTS(c, tt_avg_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_avg_pool_ex", "dilation");
    CHECK(tt_max_pool_ex(c, x1, &p) != NULL);
    p.dilation[0] = 1;
    CHECK(tt_avg_pool_ex(c, x1, &p) != NULL);
    /* padding above half the (dilated) window */
    p.kernel[0] = 3; p.padding[0] = 2;
    FM_REJECTS(c, tt_max_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_max_pool_ex", "padding");
    FM_REJECTS(c, tt_avg_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_avg_pool_ex", "padding");
    p.kernel[0] = 2; p.dilation[0] = 3; p.padding[0] = 3;           /* window 4: at most 2 */
    FM_REJECTS(c, tt_max_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_max_pool_ex", "padding");
    p.padding[0] = -1; p.dilation[0] = 1;
    FM_REJECTS(c, tt_max_pool_ex(c, x1, &p), TT_ERR_ARG, "tt_max_pool_ex", "padding");
    /* a window larger than the padded input: height 2, kernel 5 */
    p.padding[0] = 0; p.kernel[0] = 5; p.kernel[1] = 1;
    FM_REJECTS(c, tt_max_pool_ex(c, x2, &p), TT_ERR_SHAPE, "tt_max_pool_ex", "[1,2,2,5]");
    p.ceil_mode = true;
    FM_REJECTS(c, tt_avg_pool_ex(c, x2, &p), TT_ERR_SHAPE, "tt_avg_pool_ex", "[1,2,2,5]");
    CHECK(tt_max_pool_ex(c, NULL, &p) == NULL);
    CHECK(tt_max_pool1d(c, NULL, 2, 0, 0) == NULL);
    CHECK(tt_error(c) == NULL);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

/* ---- upsampling: F.interpolate nearest by scale_factor, bilinear by size or scale_factor ---- */

enum { FM_NEAREST_SCALE, FM_BILINEAR, FM_BILINEAR_SCALE };

/* One case: x [N,C,H,W]; size (oh, ow) for FM_BILINEAR, else scale factors (sh, sw). */
typedef struct fm_up {
    int     kind;
    int64_t N, C, H, W, oh, ow;
    float   sh, sw;
    bool    align;
    int     view;
} fm_up;

/* F.interpolate's output size for a scale factor: floor(in * scale), in double. */
static int64_t fm_scaled_size(int64_t in, float scale) { return (int64_t)floor((double)in * (double)scale); }

/* PyTorch's CPU kernel for 'nearest' (nearest_idx): an output as long as the input
   copies it, one twice as long reads dst >> 1, any other size reads
   min(floor(dst * (float)(1/scale)), in-1) with the product in float. The header states
   only the last rule; the first two give other rows where floor(in*scale) is in or 2*in
   but scale is not 1 or 2 (3 rows at 2.2f: 0 0 1 1 2 2, not 0 0 0 1 1 2). */
static void fm_nearest_index(int64_t in, int64_t out, float scale, int64_t *src) {
    float r = (float)(1.0 / (double)scale);
    int64_t dst;
    for (dst = 0; dst < out; dst++) {
        volatile float pos = (float)dst * r;                 /* volatile: no FMA contraction */
        int64_t i = (int64_t)floorf(pos);
        if (out == in) src[dst] = dst;
        else if (out == 2 * in) src[dst] = dst >> 1;
        else src[dst] = i < in - 1 ? i : in - 1;
    }
}

/* PyTorch's CPU kernel for linear interpolation (compute_source_index_and_lambda), in
   float as it computes: an output as long as the input copies it (weights 1, 0);
   otherwise ratio = align_corners ? (in-1)/(out-1) (0 when out is 1) : a given scale ?
   (float)(1/scale) : in/out; source = align_corners ? ratio*dst : max(0, ratio*(dst+0.5)
   - 0.5); neighbours i0 = min(floor(source), in-1) and i1 = min(i0+1, in-1); l1 =
   clamp(source - i0, 0, 1), l0 = 1 - l1. The copy matters only for a scale in
   (1, 1 + 1/in) without align_corners: elsewhere the formula gives the identity too.
   err[dst] bounds how far another build's source may be: a compiler may fuse
   ratio*(dst+0.5) - 0.5 into one FMA (GCC does in GNU mode with -march=native, as the
   suite's native build does), which moves it by up to an ulp of the product. */
static void fm_linear_coeffs(int64_t in, int64_t out, bool align, int have_scale, float scale,
                             int64_t *i0, int64_t *i1, float *l0, float *l1, double *err) {
    float ratio;
    int64_t dst;
    if (align) ratio = out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
    else if (have_scale) ratio = (float)(1.0 / (double)scale);
    else ratio = (float)in / (float)out;
    for (dst = 0; dst < out; dst++) {
        volatile float prod = align ? ratio * (float)dst : ratio * ((float)dst + 0.5f);   /* volatile: no FMA */
        float src = align ? prod : prod - 0.5f, lam;
        if (src < 0.0f) src = 0.0f;
        i0[dst] = (int64_t)floorf(src) < in - 1 ? (int64_t)floorf(src) : in - 1;
        i1[dst] = i0[dst] < in - 1 ? i0[dst] + 1 : i0[dst];
        lam = src - (float)i0[dst];
        l1[dst] = lam < 0.0f ? 0.0f : lam > 1.0f ? 1.0f : lam;
        l0[dst] = 1.0f - l1[dst];
        err[dst] = 2.0 * FLT_EPSILON * (fabs((double)prod) + 0.5);
        if (out == in) { i0[dst] = i1[dst] = dst; l0[dst] = 1.0f; l1[dst] = 0.0f; err[dst] = 0.0; }
    }
}

static void fm_up_out(const fm_up *u, int64_t *oh, int64_t *ow) {
    *oh = u->kind == FM_BILINEAR ? u->oh : fm_scaled_size(u->H, u->sh);
    *ow = u->kind == FM_BILINEAR ? u->ow : fm_scaled_size(u->W, u->sw);
}

/* Reference: nearest copies; bilinear sums 4 terms in double with PyTorch's float weights.
   Bilinear tolerance: FM_LERP_TOL * sum|term| for the f32 arithmetic, plus what moving the
   source row (column) by its err changes: err times the difference of the two rows
   (columns) it lies between. */
static void fm_ref_upsample(const fm_up *u, const double *x, double *y, double *tol) {
    int64_t OH, OW, nc, i, j;
    int64_t *hs, *ws, *h1, *w1;
    float *hl0, *hl1, *wl0, *wl1;
    double *he, *we;
    fm_up_out(u, &OH, &OW);
    he = fm_alloc(OH);
    we = fm_alloc(OW);
    hs = (int64_t *)malloc(sizeof(int64_t) * (size_t)(OH + 1)); h1 = (int64_t *)malloc(sizeof(int64_t) * (size_t)(OH + 1));
    ws = (int64_t *)malloc(sizeof(int64_t) * (size_t)(OW + 1)); w1 = (int64_t *)malloc(sizeof(int64_t) * (size_t)(OW + 1));
    hl0 = (float *)malloc(sizeof(float) * (size_t)(OH + 1)); hl1 = (float *)malloc(sizeof(float) * (size_t)(OH + 1));
    wl0 = (float *)malloc(sizeof(float) * (size_t)(OW + 1)); wl1 = (float *)malloc(sizeof(float) * (size_t)(OW + 1));
    if (u->kind == FM_NEAREST_SCALE) {
        fm_nearest_index(u->H, OH, u->sh, hs);
        fm_nearest_index(u->W, OW, u->sw, ws);
    } else {
        fm_linear_coeffs(u->H, OH, u->align, u->kind == FM_BILINEAR_SCALE, u->sh, hs, h1, hl0, hl1, he);
        fm_linear_coeffs(u->W, OW, u->align, u->kind == FM_BILINEAR_SCALE, u->sw, ws, w1, wl0, wl1, we);
    }
    for (nc = 0; nc < u->N * u->C; nc++)
        for (i = 0; i < OH; i++)
            for (j = 0; j < OW; j++) {
                const double *p = x + nc * u->H * u->W;
                long long e = (nc * OH + i) * OW + j;
                if (u->kind == FM_NEAREST_SCALE) {
                    y[e] = p[hs[i] * u->W + ws[j]];
                    tol[e] = 0.0;
                } else {
                    double x00 = p[hs[i] * u->W + ws[j]], x01 = p[hs[i] * u->W + w1[j]];
                    double x10 = p[h1[i] * u->W + ws[j]], x11 = p[h1[i] * u->W + w1[j]];
                    double t00 = (double)hl0[i] * (double)wl0[j] * x00, t01 = (double)hl0[i] * (double)wl1[j] * x01;
                    double t10 = (double)hl1[i] * (double)wl0[j] * x10, t11 = (double)hl1[i] * (double)wl1[j] * x11;
                    y[e] = t00 + t01 + t10 + t11;
                    tol[e] = FM_LERP_TOL * (fabs(t00) + fabs(t01) + fabs(t10) + fabs(t11)) +
                             he[i] * (fabs(x10 - x00) + fabs(x11 - x01)) + we[j] * (fabs(x01 - x00) + fabs(x11 - x10));
                }
            }
    free(hs); free(h1); free(ws); free(w1); free(hl0); free(hl1); free(wl0); free(wl1); free(he); free(we);
}

static tt_tensor *fm_op_upsample(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    if (m->kind == FM_NEAREST_SCALE) return tt_upsample_nearest_scale(c, x, m->scale[0], m->scale[1]);
    if (m->kind == FM_BILINEAR) return tt_upsample_bilinear(c, x, m->size[0], m->size[1], m->align);
    return tt_upsample_bilinear_scale(c, x, m->scale[0], m->scale[1], m->align);
}

static void fm_up_case(const fm_up *u, int trace, int relu, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = fm_ctx(1);
    int64_t xs[4], ys[4], base[4];
    double *vx, *want, *tol;
    fm_model m;
    tt_tensor *x;
    xs[0] = ys[0] = u->N; xs[1] = ys[1] = u->C; xs[2] = u->H; xs[3] = u->W;
    fm_up_out(u, &ys[2], &ys[3]);
    fm_model_init(&m, fm_op_upsample, u->kind, u->view);
    m.size[0] = u->oh; m.size[1] = u->ow;
    m.scale[0] = u->sh; m.scale[1] = u->sw;
    m.align = u->align;
    want = fm_alloc(tu_numel(4, ys));
    tol = fm_alloc(tu_numel(4, ys));
    x = fm_input(c, 4, xs, u->view, seed, &vx);
    fm_ref_upsample(u, vx, want, tol);
    if (!fm_close(c, fm_apply(c, &m, x), 4, ys, want, tol, file, line))
        printf("    (upsample kind %d, [%d,%d] -> [%d,%d], scale %.9g,%.9g, align_corners %d)\n", u->kind, (int)u->H,
               (int)u->W, (int)ys[2], (int)ys[3], (double)u->sh, (double)u->sw, (int)u->align);
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    free(vx); free(want); free(tol);
    if (trace) {
        m.relu = relu;
        fm_base_shape(4, xs, u->view, base);
        fm_trace_check(&m, 4, base, seed + 100, file, line);
    }
}

/* kind, N, C, H, W, out_h, out_w, scale_h, scale_w, align_corners, view */
static const fm_up fm_ups_nearest[] = {
    {FM_NEAREST_SCALE, 2, 3, 3, 4, 0, 0, 2.0f, 2.0f, false, FM_PLAIN},
    {FM_NEAREST_SCALE, 1, 2, 5, 7, 0, 0, 3.0f, 1.5f, false, FM_PLAIN},
    {FM_NEAREST_SCALE, 1, 2, 8, 9, 0, 0, 0.5f, 0.5f, false, FM_PLAIN},       /* downsampling */
    {FM_NEAREST_SCALE, 2, 2, 4, 6, 0, 0, 1.7f, 0.6f, false, FM_PLAIN},
    {FM_NEAREST_SCALE, 1, 3, 5, 7, 0, 0, 2.5f, 0.75f, false, FM_PLAIN},
    {FM_NEAREST_SCALE, 1, 1, 1, 3, 0, 0, 3.0f, 1.0f, false, FM_PLAIN},       /* height 1; scale 1 */
    /* 10 * 0.7f = 6.99999988 and 10 * 1.3f = 12.9999995: 6 and 12 rows, not 7 and 13 */
    {FM_NEAREST_SCALE, 1, 2, 10, 10, 0, 0, 0.7f, 1.3f, false, FM_PLAIN},
    /* the float product decides: row 11 at 2.2f reads 11 * 0.454545438f = 5.0 (exactly
       11 / 2.2f = 4.9999998); column 6 at 1.2f reads 5 */
    {FM_NEAREST_SCALE, 1, 2, 6, 6, 0, 0, 2.2f, 1.2f, false, FM_PLAIN},
    /* PyTorch's special sizes: 3 rows at 2.2f give 6 = 2*3 (dst >> 1), 5 columns at 1.1f
       give 5 (a copy) */
    {FM_NEAREST_SCALE, 1, 2, 3, 5, 0, 0, 2.2f, 1.1f, false, FM_PLAIN},
    {FM_NEAREST_SCALE, 2, 3, 4, 5, 0, 0, 2.0f, 3.0f, false, FM_TRANSPOSED},
    {FM_NEAREST_SCALE, 2, 3, 4, 5, 0, 0, 1.5f, 2.0f, false, FM_SLICED},
    {FM_NEAREST_SCALE, 0, 3, 4, 5, 0, 0, 2.0f, 2.0f, false, FM_PLAIN},       /* empty batch */
};

static const fm_up fm_ups_bilinear[] = {
    {FM_BILINEAR, 2, 3, 4, 5, 7, 9, 0.0f, 0.0f, false, FM_PLAIN},
    {FM_BILINEAR, 2, 3, 4, 5, 7, 9, 0.0f, 0.0f, true, FM_PLAIN},
    {FM_BILINEAR, 1, 2, 8, 9, 3, 4, 0.0f, 0.0f, false, FM_PLAIN},          /* downsampling */
    {FM_BILINEAR, 1, 2, 8, 9, 3, 4, 0.0f, 0.0f, true, FM_PLAIN},
    {FM_BILINEAR, 1, 2, 5, 6, 1, 1, 0.0f, 0.0f, false, FM_PLAIN},          /* one output cell */
    {FM_BILINEAR, 1, 2, 5, 6, 1, 1, 0.0f, 0.0f, true, FM_PLAIN},
    {FM_BILINEAR, 1, 2, 1, 1, 3, 4, 0.0f, 0.0f, false, FM_PLAIN},          /* one input cell */
    {FM_BILINEAR, 1, 2, 1, 5, 4, 5, 0.0f, 0.0f, true, FM_PLAIN},
    {FM_BILINEAR, 1, 1, 3, 4, 3, 4, 0.0f, 0.0f, false, FM_PLAIN},          /* identity */
    {FM_BILINEAR, 2, 2, 6, 5, 11, 3, 0.0f, 0.0f, false, FM_TRANSPOSED},
    {FM_BILINEAR, 2, 2, 6, 5, 4, 13, 0.0f, 0.0f, true, FM_SLICED},
    {FM_BILINEAR, 0, 2, 6, 5, 4, 13, 0.0f, 0.0f, true, FM_PLAIN},          /* empty batch */
};

static const fm_up fm_ups_bilinear_scale[] = {
    {FM_BILINEAR_SCALE, 2, 3, 4, 5, 0, 0, 2.0f, 2.0f, false, FM_PLAIN},
    {FM_BILINEAR_SCALE, 2, 3, 4, 5, 0, 0, 2.0f, 2.0f, true, FM_PLAIN},
    {FM_BILINEAR_SCALE, 1, 2, 5, 7, 0, 0, 1.5f, 0.5f, false, FM_PLAIN},
    {FM_BILINEAR_SCALE, 1, 2, 5, 7, 0, 0, 1.5f, 0.5f, true, FM_PLAIN},
    {FM_BILINEAR_SCALE, 1, 2, 10, 10, 0, 0, 0.7f, 0.3f, false, FM_PLAIN},  /* 6 x 3 */
    {FM_BILINEAR_SCALE, 1, 2, 10, 10, 0, 0, 0.7f, 0.3f, true, FM_PLAIN},
    /* 1/scale differs from in/out here (3 -> 7 at 2.5: 0.4 vs 0.4286) */
    {FM_BILINEAR_SCALE, 1, 2, 3, 4, 0, 0, 2.5f, 1.25f, false, FM_PLAIN},
    {FM_BILINEAR_SCALE, 1, 2, 3, 4, 0, 0, 2.5f, 1.25f, true, FM_PLAIN},
    /* PyTorch copies an axis whose output is as long as the input: 3 rows at 1.2f and 5
       columns at 1.1f (not the 0, 0.75, 1.58 of the formula) */
    {FM_BILINEAR_SCALE, 1, 2, 3, 5, 0, 0, 1.2f, 1.1f, false, FM_PLAIN},
    {FM_BILINEAR_SCALE, 1, 2, 3, 5, 0, 0, 1.2f, 2.5f, false, FM_PLAIN},
    {FM_BILINEAR_SCALE, 2, 2, 6, 5, 0, 0, 0.5f, 3.0f, false, FM_TRANSPOSED},
    {FM_BILINEAR_SCALE, 2, 2, 6, 5, 0, 0, 1.75f, 2.2f, false, FM_SLICED},
    {FM_BILINEAR_SCALE, 1, 2, 2, 3, 0, 0, 0.5f, 0.4f, false, FM_PLAIN},    /* one output cell */
    {FM_BILINEAR_SCALE, 1, 2, 2, 3, 0, 0, 0.5f, 0.4f, true, FM_PLAIN},
    {FM_BILINEAR_SCALE, 0, 2, 6, 5, 0, 0, 2.0f, 2.0f, false, FM_PLAIN},    /* empty batch */
};

static void fm_up_table(const fm_up *cases, int n, unsigned long long seed, const char *file, int line) {
    int i;
    for (i = 0; i < n; i++) fm_up_case(&cases[i], 0, 0, seed + 7u * (unsigned)i, file, line);
}

static void test_upsample_nearest_scale(void) {
    fm_up_table(fm_ups_nearest, FM_COUNT(fm_ups_nearest), 800, __FILE__, __LINE__);
}
static void test_upsample_bilinear(void) {
    fm_up_table(fm_ups_bilinear, FM_COUNT(fm_ups_bilinear), 900, __FILE__, __LINE__);
}
static void test_upsample_bilinear_scale(void) {
    fm_up_table(fm_ups_bilinear_scale, FM_COUNT(fm_ups_bilinear_scale), 1000, __FILE__, __LINE__);
}

static void fm_up_pair(const fm_up *ua, const fm_up *ub, unsigned long long seed, const char *file, int line) {
    fm_model a, b;
    int64_t xs[4];
    fm_model_init(&a, fm_op_upsample, ua->kind, FM_PLAIN);
    a.size[0] = ua->oh; a.size[1] = ua->ow; a.scale[0] = ua->sh; a.scale[1] = ua->sw; a.align = ua->align;
    fm_model_init(&b, fm_op_upsample, ub->kind, FM_PLAIN);
    b.size[0] = ub->oh; b.size[1] = ub->ow; b.scale[0] = ub->sh; b.scale[1] = ub->sw; b.align = ub->align;
    xs[0] = ua->N; xs[1] = ua->C; xs[2] = ua->H; xs[3] = ua->W;
    fm_pair_check(&a, &b, 4, xs, seed, file, line);
}

/* Resizes differing only in align_corners or in a scale with the same output size stay apart. */
static void fm_up_pairs(void) {
    fm_up a = fm_ups_bilinear[0], b;
    b = a; b.align = !a.align;
    fm_up_pair(&a, &b, 1110, __FILE__, __LINE__);
    a = fm_ups_nearest[0];               /* [3,4] at 2: 6 x 8; at 3: 9 x 12 */
    b = a; b.sh = 3.0f; b.sw = 3.0f;
    fm_up_pair(&a, &b, 1111, __FILE__, __LINE__);
    a = fm_ups_bilinear_scale[0];        /* [4,5] at 2: 8 x 10; at 2.2: 8 x 11 */
    b = a; b.sh = 2.2f; b.sw = 2.2f;
    fm_up_pair(&a, &b, 1112, __FILE__, __LINE__);
    b = a; b.align = !a.align;
    fm_up_pair(&a, &b, 1113, __FILE__, __LINE__);
}

static void test_upsample_traced(void) {
    fm_up_case(&fm_ups_nearest[9], 1, 0, 1100, __FILE__, __LINE__);      /* transposed */
    fm_up_case(&fm_ups_bilinear[10], 1, 0, 1101, __FILE__, __LINE__);
    fm_up_case(&fm_ups_bilinear[9], 1, 1, 1102, __FILE__, __LINE__);        /* then relu */
    fm_up_case(&fm_ups_bilinear_scale[7], 1, 0, 1103, __FILE__, __LINE__);
    fm_up_case(&fm_ups_bilinear_scale[11], 1, 0, 1104, __FILE__, __LINE__);
    fm_up_pairs();
}

/* The call failed with some error whose message names fn (for results too large to make). */
static int fm_failed(tt_ctx *c, const void *r, const char *fn, const char *file, int line) {
    int ok = 1;
    if (r) ok = tt_test__fail(file, line, "result should be NULL");
    ok &= tt_test__str_contains(tt_ctx_status(c) != TT_OK ? tt_error(c) : NULL, fn, file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}

static void test_upsample_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t s4[4] = {1, 1, 2, 2}, s3[3] = {2, 5, 5}, s5[5] = {1, 1, 2, 2, 2};
    tt_tensor *x = tt_zeros(c, TT_F32, 4, s4), *x3 = tt_zeros(c, TT_F32, 3, s3), *x5 = tt_zeros(c, TT_F32, 5, s5);
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x, 0.0f, 2.0f), TT_ERR_ARG, "tt_upsample_nearest_scale", "scale_h");
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x, 2.0f, -1.0f), TT_ERR_ARG, "tt_upsample_nearest_scale", "scale_w");
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x, NAN, 2.0f), TT_ERR_ARG, "tt_upsample_nearest_scale", "scale_h");
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x, 2.0f, INFINITY), TT_ERR_ARG, "tt_upsample_nearest_scale", "scale_w");
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x, -0.0f, 2.0f), TT_ERR_ARG, "tt_upsample_nearest_scale", "scale_h");
    FM_REJECTS(c, tt_upsample_bilinear_scale(c, x, -2.0f, 2.0f, false), TT_ERR_ARG, "tt_upsample_bilinear_scale", "scale_h");
    FM_REJECTS(c, tt_upsample_bilinear_scale(c, x, 2.0f, NAN, true), TT_ERR_ARG, "tt_upsample_bilinear_scale", "scale_w");
    FM_REJECTS(c, tt_upsample_bilinear_scale(c, x, 2.0f, 0.0f, false), TT_ERR_ARG, "tt_upsample_bilinear_scale", "scale_w");
    FM_REJECTS(c, tt_upsample_bilinear_scale(c, x, -INFINITY, 2.0f, false), TT_ERR_ARG, "tt_upsample_bilinear_scale", "scale_h");
    /* a scale that leaves no output row: floor(2 * 0.4) = 0 */
    FM_REJECTS2(c, tt_upsample_nearest_scale(c, x, 0.4f, 2.0f), TT_ERR_ARG, TT_ERR_SHAPE, "tt_upsample_nearest_scale", "scale_h");
    FM_REJECTS2(c, tt_upsample_bilinear_scale(c, x, 2.0f, 0.4f, false), TT_ERR_ARG, TT_ERR_SHAPE, "tt_upsample_bilinear_scale", "scale_w");
    /* a scale whose output cannot be made */
    fm_failed(c, tt_upsample_nearest_scale(c, x, 1e30f, 1e30f), "tt_upsample_nearest_scale", __FILE__, __LINE__);
    fm_failed(c, tt_upsample_bilinear_scale(c, x, 3e38f, 1.0f, true), "tt_upsample_bilinear_scale", __FILE__, __LINE__);
    FM_REJECTS(c, tt_upsample_bilinear(c, x, 0, 4, false), TT_ERR_ARG, "tt_upsample_bilinear", "out_h");
    FM_REJECTS(c, tt_upsample_bilinear(c, x, 4, -2, true), TT_ERR_ARG, "tt_upsample_bilinear", "out_w");
    FM_REJECTS(c, tt_upsample_bilinear(c, x3, 4, 4, false), TT_ERR_SHAPE, "tt_upsample_bilinear", "[2,5,5]");
    FM_REJECTS(c, tt_upsample_bilinear(c, x5, 4, 4, false), TT_ERR_SHAPE, "tt_upsample_bilinear", "[1,1,2,2,2]");
    FM_REJECTS(c, tt_upsample_nearest_scale(c, x3, 2.0f, 2.0f), TT_ERR_SHAPE, "tt_upsample_nearest_scale", "[2,5,5]");
    FM_REJECTS(c, tt_upsample_bilinear_scale(c, x5, 2.0f, 2.0f, false), TT_ERR_SHAPE, "tt_upsample_bilinear_scale", "[1,1,2,2,2]");
    CHECK(tt_upsample_bilinear(c, NULL, 2, 2, false) == NULL);
    CHECK(tt_upsample_nearest_scale(c, NULL, 2.0f, 2.0f) == NULL);
    CHECK(tt_upsample_bilinear_scale(c, NULL, 2.0f, 2.0f, true) == NULL);
    CHECK(tt_error(c) == NULL);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

/* ---- convolution: tt_conv3d/tt_conv_ex (F.conv1d/2d/3d) and transposed convolution
   (F.conv_transpose1d/2d/3d, weight [Cin, Cout/groups, k...]) ------------------------------ */

enum { FM_CONV3D, FM_CONV_EX, FM_CT1D, FM_CT2D, FM_CT_EX };

/* One case. The 3d/1d/2d functions take entry 0 of stride, padding, output_padding and
   dilation for every axis; the kernel sizes (the weight's shape) may differ per axis. */
typedef struct fm_conv {
    int     kind, nsp;
    int64_t N, C, O, in[3], k[3];
    int     s[3], p[3], d[3], op[3], groups, bias, view;
} fm_conv;

static int fm_transposed(const fm_conv *q) { return q->kind >= FM_CT1D; }

static void fm_conv_axes(const fm_conv *q, fm_axes *a) {
    int i, j;
    for (i = 0; i < 3; i++) {
        j = q->kind == FM_CONV_EX || q->kind == FM_CT_EX ? i : 0;
        if (i >= q->nsp) {
            a->in[i] = a->out[i] = 1; a->k[i] = a->s[i] = a->d[i] = 1; a->p[i] = a->op[i] = 0;
            continue;
        }
        a->in[i] = q->in[i]; a->k[i] = (int)q->k[i];
        a->s[i] = q->s[j]; a->p[i] = q->p[j]; a->d[i] = q->d[j]; a->op[i] = q->op[j];
        if (fm_transposed(q))
            a->out[i] = (a->in[i] - 1) * a->s[i] - 2 * a->p[i] + (int64_t)a->d[i] * (a->k[i] - 1) + a->op[i] + 1;
        else
            a->out[i] = fm_floor_div(a->in[i] + 2 * a->p[i] - (int64_t)a->d[i] * (a->k[i] - 1) - 1, a->s[i]) + 1;
    }
}

/* Convolution: out[n,o,pos] = bias[o] + sum over ci < C/groups and taps kk of
   x[n, g*C/groups + ci, pos*s - p + kk*d] * w[o, ci, kk] (taps in the padding read 0),
   g = o / (O/groups). */
static void fm_ref_conv(const fm_conv *q, const fm_axes *a, const double *x, const double *w, const double *b,
                        double *y, double *tol) {
    int64_t Cg = q->C / q->groups, Og = q->O / q->groups, kn[3], o3[3], kk[3], i3[3];
    long long nin = a->in[0] * a->in[1] * a->in[2], nout = a->out[0] * a->out[1] * a->out[2];
    long long nk, n, o, e, ci, f;
    int ax;
    for (ax = 0; ax < 3; ax++) kn[ax] = a->k[ax];
    nk = kn[0] * kn[1] * kn[2];
    for (n = 0; n < q->N; n++)
        for (o = 0; o < q->O; o++)
            for (e = 0; e < nout; e++) {
                int64_t grp = o / Og;
                double sum = b ? b[o] : 0.0, sabs = b ? fabs(b[o]) : 0.0;
                fm_unflat(e, a->out, o3);
                for (ci = 0; ci < Cg; ci++)
                    for (f = 0; f < nk; f++) {
                        int inside = 1;
                        double t;
                        fm_unflat(f, kn, kk);
                        for (ax = 0; ax < 3; ax++) {
                            i3[ax] = o3[ax] * a->s[ax] - a->p[ax] + kk[ax] * a->d[ax];
                            if (i3[ax] < 0 || i3[ax] >= a->in[ax]) inside = 0;
                        }
                        if (!inside) continue;
                        t = x[(n * q->C + grp * Cg + ci) * nin + fm_flat(i3, a->in)] * w[(o * Cg + ci) * nk + f];
                        sum += t;
                        sabs += fabs(t);
                    }
                y[(n * q->O + o) * nout + e] = sum;
                tol[(n * q->O + o) * nout + e] = FM_SUM_TOL * sabs;
            }
}

/* Transposed convolution, as the scatter it is: every input cell x[n, ci, pos] adds
   x * w[ci, oc, kk] to out[n, g*O/groups + oc, pos*s - p + kk*d] when that lies inside the
   output, g = ci / (C/groups); the output starts at bias. */
static void fm_ref_conv_transpose(const fm_conv *q, const fm_axes *a, const double *x, const double *w,
                                  const double *b, double *y, double *tol) {
    int64_t Cig = q->C / q->groups, Cog = q->O / q->groups, kn[3], o3[3], kk[3], i3[3];
    long long nin = a->in[0] * a->in[1] * a->in[2], nout = a->out[0] * a->out[1] * a->out[2];
    long long nk, n, o, e, ci, oc, f;
    int ax;
    for (ax = 0; ax < 3; ax++) kn[ax] = a->k[ax];
    nk = kn[0] * kn[1] * kn[2];
    for (n = 0; n < q->N; n++)
        for (o = 0; o < q->O; o++)
            for (e = 0; e < nout; e++) {
                y[(n * q->O + o) * nout + e] = b ? b[o] : 0.0;
                tol[(n * q->O + o) * nout + e] = b ? fabs(b[o]) : 0.0;
            }
    for (n = 0; n < q->N; n++)
        for (ci = 0; ci < q->C; ci++)
            for (e = 0; e < nin; e++) {
                int64_t grp = ci / Cig;
                double xv = x[(n * q->C + ci) * nin + e];
                fm_unflat(e, a->in, i3);
                for (oc = 0; oc < Cog; oc++)
                    for (f = 0; f < nk; f++) {
                        int inside = 1;
                        long long at;
                        double t;
                        fm_unflat(f, kn, kk);
                        for (ax = 0; ax < 3; ax++) {
                            o3[ax] = i3[ax] * a->s[ax] - a->p[ax] + kk[ax] * a->d[ax];
                            if (o3[ax] < 0 || o3[ax] >= a->out[ax]) inside = 0;
                        }
                        if (!inside) continue;
                        t = xv * w[(ci * Cog + oc) * nk + f];
                        at = (n * q->O + grp * Cog + oc) * nout + fm_flat(o3, a->out);
                        y[at] += t;
                        tol[at] += fabs(t);
                    }
            }
    for (e = 0; e < q->N * q->O * nout; e++) tol[e] *= FM_SUM_TOL;
}

static tt_tensor *fm_op_conv(tt_ctx *c, tt_tensor *x, const fm_model *m) {
    const tt_conv_params *p = &m->cp;
    switch (m->kind) {
    case FM_CONV3D:
        return tt_conv3d(c, x, m->w, m->b, p->stride[0], p->padding[0], p->dilation[0], p->groups);
    case FM_CONV_EX:
        return tt_conv_ex(c, x, m->w, m->b, p);
    case FM_CT1D:
        return tt_conv_transpose1d(c, x, m->w, m->b, p->stride[0], p->padding[0], p->output_padding[0], p->dilation[0],
                                   p->groups);
    case FM_CT2D:
        return tt_conv_transpose2d(c, x, m->w, m->b, p->stride[0], p->padding[0], p->output_padding[0], p->dilation[0],
                                   p->groups);
    default:
        return tt_conv_transpose_ex(c, x, m->w, m->b, p);
    }
}

/* The case's model: its settings, and nonsense past the spatial axes (to be ignored). */
static void fm_conv_model(const fm_conv *q, fm_model *m) {
    int i;
    fm_model_init(m, fm_op_conv, q->kind, q->view);
    for (i = 0; i < 3; i++) {
        bool used = i < q->nsp;
        m->cp.stride[i] = used ? q->s[i] : 0;
        m->cp.padding[i] = used ? q->p[i] : -1;
        m->cp.dilation[i] = used ? q->d[i] : 0;
        m->cp.output_padding[i] = used ? q->op[i] : 7;
    }
    m->cp.groups = q->groups;
}

/* Eagerly against the reference; with trace, traced (relu after it when asked) on the
   same weights, which live in a weights context. With wview, the weight is a transposed
   view (its last two axes) and the bias a sliced one. */
static void fm_conv_case(const fm_conv *q, int trace, int relu, int wview, unsigned long long seed, const char *file,
                         int line) {
    tt_ctx *wc = fm_ctx(1), *c = fm_ctx(1);
    int nd = 2 + q->nsp, i;
    int64_t xs[5], ws[5], ys[5], base[5];
    double *vx, *vw, *vb = NULL, *want, *tol;
    fm_axes a;
    fm_model m;
    tt_tensor *x;
    fm_conv_axes(q, &a);
    fm_conv_model(q, &m);
    xs[0] = ys[0] = q->N; xs[1] = q->C; ys[1] = q->O;
    ws[0] = fm_transposed(q) ? q->C : q->O;
    ws[1] = fm_transposed(q) ? q->O / q->groups : q->C / q->groups;
    for (i = 0; i < q->nsp; i++) { xs[2 + i] = a.in[i]; ws[2 + i] = a.k[i]; ys[2 + i] = a.out[i]; }
    x = fm_input(c, nd, xs, q->view, seed, &vx);
    if (wview) {
        m.w = fm_view(wc, fm_input(wc, nd, ws, FM_TRANSPOSED, seed + 1, &vw), FM_TRANSPOSED);
        if (q->bias) m.b = fm_view(wc, fm_input(wc, 1, &q->O, FM_SLICED, seed + 2, &vb), FM_SLICED);
    } else {
        m.w = tu_rand(wc, nd, ws, seed + 1, -1.0, 1.0, &vw);
        if (q->bias) m.b = tu_rand(wc, 1, &q->O, seed + 2, -1.0, 1.0, &vb);
    }
    want = fm_alloc(tu_numel(nd, ys));
    tol = fm_alloc(tu_numel(nd, ys));
    if (fm_transposed(q)) fm_ref_conv_transpose(q, &a, vx, vw, vb, want, tol);
    else fm_ref_conv(q, &a, vx, vw, vb, want, tol);
    if (!fm_close(c, fm_apply(c, &m, x), nd, ys, want, tol, file, line))
        printf("    (conv kind %d, %d-D, stride %d, padding %d, output_padding %d, dilation %d, groups %d)\n", q->kind,
               q->nsp, q->s[0], q->p[0], q->op[0], q->d[0], q->groups);
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    if (trace) {
        m.relu = relu;
        fm_base_shape(nd, xs, q->view, base);
        fm_trace_check(&m, nd, base, seed + 100, file, line);
    }
    (void)fm_clean(wc, file, line);
    tt_ctx_destroy(wc);
    free(vx); free(vw); free(vb); free(want); free(tol);
}

/* kind, nsp, N, C, O, in, kernel, stride, padding, dilation, output_padding, groups, bias, view */
static const fm_conv fm_convs[] = {
    {FM_CONV3D, 3, 2, 3, 4, {4, 5, 6}, {3, 3, 3}, {1}, {1}, {1}, {0}, 1, 1, FM_PLAIN},
    {FM_CONV3D, 3, 2, 3, 4, {5, 6, 7}, {3, 2, 3}, {2}, {0}, {1}, {0}, 1, 0, FM_PLAIN},
    {FM_CONV3D, 3, 1, 2, 3, {5, 5, 6}, {3, 3, 2}, {1}, {2}, {2}, {0}, 1, 1, FM_PLAIN},     /* dilation 2 */
    {FM_CONV3D, 3, 1, 2, 3, {7, 5, 8}, {2, 2, 2}, {3}, {1}, {1}, {0}, 1, 1, FM_PLAIN},     /* stride 3 */
    {FM_CONV3D, 3, 2, 4, 6, {4, 4, 5}, {3, 1, 3}, {1}, {1}, {1}, {0}, 2, 1, FM_PLAIN},     /* groups 2 */
    {FM_CONV3D, 3, 1, 3, 6, {4, 4, 5}, {3, 3, 3}, {2}, {1}, {1}, {0}, 3, 1, FM_PLAIN},     /* depthwise x2 */
    {FM_CONV3D, 3, 2, 4, 4, {3, 5, 4}, {3, 3, 3}, {1}, {1}, {1}, {0}, 4, 0, FM_PLAIN},     /* depthwise */
    {FM_CONV3D, 3, 2, 3, 2, {1, 5, 6}, {1, 3, 3}, {1}, {1}, {1}, {0}, 1, 1, FM_PLAIN},     /* depth 1 */
    {FM_CONV3D, 3, 2, 5, 3, {3, 4, 2}, {1, 1, 1}, {1}, {0}, {1}, {0}, 1, 1, FM_PLAIN},     /* pointwise */
    {FM_CONV3D, 3, 2, 3, 4, {4, 5, 6}, {3, 3, 3}, {1}, {1}, {1}, {0}, 1, 1, FM_TRANSPOSED},
    {FM_CONV3D, 3, 1, 2, 4, {3, 4, 5}, {2, 3, 3}, {2}, {1}, {1}, {0}, 2, 1, FM_SLICED},
    {FM_CONV3D, 3, 1, 2, 3, {2, 3, 2}, {3, 3, 3}, {1}, {3}, {1}, {0}, 1, 1, FM_PLAIN},     /* padding > kernel */
    {FM_CONV3D, 3, 0, 3, 4, {4, 5, 6}, {3, 3, 3}, {1}, {1}, {1}, {0}, 1, 1, FM_PLAIN},     /* empty batch */
    /* tt_conv_ex: per-axis settings, on 5-D, 4-D and 3-D inputs */
    {FM_CONV_EX, 3, 2, 4, 6, {5, 6, 7}, {2, 3, 1}, {1, 2, 3}, {1, 0, 2}, {2, 1, 1}, {0}, 2, 1, FM_PLAIN},
    {FM_CONV_EX, 3, 1, 2, 2, {4, 5, 6}, {3, 2, 2}, {2, 1, 2}, {0, 1, 1}, {1, 2, 1}, {0}, 2, 0, FM_TRANSPOSED},
    {FM_CONV_EX, 2, 2, 3, 4, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 2, 0}, {1, 2, 0}, {0}, 1, 1, FM_PLAIN},
    {FM_CONV_EX, 2, 1, 3, 6, {9, 7, 0}, {3, 3, 0}, {1, 2, 0}, {1, 1, 0}, {2, 1, 0}, {0}, 3, 1, FM_SLICED},
    {FM_CONV_EX, 1, 2, 4, 6, {11, 0, 0}, {3, 0, 0}, {2, 0, 0}, {2, 0, 0}, {2, 0, 0}, {0}, 2, 1, FM_PLAIN},
    {FM_CONV_EX, 1, 2, 4, 4, {9, 0, 0}, {5, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 0, 0}, {0}, 4, 0, FM_TRANSPOSED},
    {FM_CONV_EX, 2, 0, 3, 4, {7, 8, 0}, {3, 2, 0}, {2, 1, 0}, {1, 2, 0}, {1, 2, 0}, {0}, 1, 1, FM_PLAIN},
};

static const fm_conv fm_conv_transposes[] = {
    {FM_CT1D, 1, 2, 3, 4, {5, 0, 0}, {3, 0, 0}, {1}, {0}, {1}, {0}, 1, 1, FM_PLAIN},
    {FM_CT1D, 1, 2, 3, 4, {5, 0, 0}, {3, 0, 0}, {2}, {1}, {1}, {1}, 1, 1, FM_PLAIN},       /* stride 2, output_padding 1 */
    {FM_CT1D, 1, 1, 3, 2, {6, 0, 0}, {4, 0, 0}, {3}, {2}, {1}, {2}, 1, 0, FM_PLAIN},       /* stride 3, output_padding 2 */
    {FM_CT1D, 1, 2, 2, 3, {5, 0, 0}, {3, 0, 0}, {1}, {1}, {2}, {1}, 1, 1, FM_PLAIN},       /* output_padding < dilation */
    {FM_CT1D, 1, 2, 3, 6, {5, 0, 0}, {3, 0, 0}, {2}, {0}, {1}, {0}, 3, 1, FM_PLAIN},       /* groups 3 */
    {FM_CT1D, 1, 2, 4, 4, {7, 0, 0}, {3, 0, 0}, {1}, {1}, {1}, {0}, 4, 1, FM_PLAIN},       /* depthwise */
    {FM_CT1D, 1, 1, 4, 8, {6, 0, 0}, {2, 0, 0}, {2}, {0}, {1}, {1}, 4, 0, FM_PLAIN},       /* depthwise x2 */
    {FM_CT1D, 1, 2, 3, 2, {1, 0, 0}, {1, 0, 0}, {1}, {0}, {1}, {0}, 1, 1, FM_PLAIN},       /* length 1, kernel 1 */
    {FM_CT1D, 1, 2, 3, 2, {5, 0, 0}, {3, 0, 0}, {2}, {3}, {1}, {0}, 1, 1, FM_PLAIN},       /* padding > kernel: crops */
    {FM_CT1D, 1, 2, 3, 4, {5, 0, 0}, {3, 0, 0}, {2}, {1}, {1}, {1}, 1, 1, FM_TRANSPOSED},
    {FM_CT1D, 1, 0, 3, 4, {5, 0, 0}, {3, 0, 0}, {2}, {1}, {1}, {1}, 1, 1, FM_PLAIN},       /* empty batch */
    {FM_CT2D, 2, 2, 4, 6, {4, 5, 0}, {3, 2, 0}, {2}, {1}, {1}, {1}, 2, 1, FM_PLAIN},
    {FM_CT2D, 2, 1, 3, 2, {4, 5, 0}, {3, 3, 0}, {1}, {0}, {2}, {1}, 1, 1, FM_PLAIN},
    {FM_CT2D, 2, 2, 2, 3, {3, 4, 0}, {2, 3, 0}, {3}, {1}, {1}, {2}, 1, 0, FM_PLAIN},
    {FM_CT2D, 2, 1, 3, 3, {5, 4, 0}, {3, 3, 0}, {2}, {1}, {1}, {1}, 3, 1, FM_SLICED},      /* depthwise */
    {FM_CT2D, 2, 1, 2, 2, {1, 1, 0}, {3, 3, 0}, {1}, {0}, {1}, {0}, 1, 1, FM_PLAIN},       /* 1x1 input */
    /* tt_conv_transpose_ex: per-axis settings; 2-D, 3-D and 1-D */
    {FM_CT_EX, 2, 2, 4, 6, {4, 5, 0}, {3, 2, 0}, {2, 1, 0}, {0, 1, 0}, {1, 2, 0}, {1, 0, 0}, 2, 1, FM_PLAIN},
    {FM_CT_EX, 3, 1, 2, 3, {3, 4, 3}, {2, 3, 2}, {2, 1, 2}, {1, 0, 0}, {1, 1, 2}, {1, 0, 0}, 1, 1, FM_PLAIN},
    {FM_CT_EX, 3, 2, 2, 4, {2, 3, 3}, {2, 2, 3}, {1, 1, 1}, {0, 1, 1}, {2, 2, 2}, {1, 0, 1}, 2, 0, FM_TRANSPOSED},
    {FM_CT_EX, 1, 2, 3, 4, {6, 0, 0}, {3, 0, 0}, {3, 0, 0}, {1, 0, 0}, {2, 0, 0}, {2, 0, 0}, 1, 1, FM_SLICED},
    {FM_CT_EX, 3, 0, 2, 3, {3, 4, 3}, {2, 3, 2}, {2, 1, 2}, {1, 0, 0}, {1, 1, 2}, {1, 0, 0}, 1, 1, FM_PLAIN},
};

static void fm_conv_table(const fm_conv *cases, int n, int kind, unsigned long long seed, const char *file, int line) {
    int i;
    for (i = 0; i < n; i++)
        if (cases[i].kind == kind) fm_conv_case(&cases[i], 0, 0, 0, seed + 7u * (unsigned)i, file, line);
}

static void test_conv3d(void) { fm_conv_table(fm_convs, FM_COUNT(fm_convs), FM_CONV3D, 1200, __FILE__, __LINE__); }
static void test_conv_ex(void) { fm_conv_table(fm_convs, FM_COUNT(fm_convs), FM_CONV_EX, 1300, __FILE__, __LINE__); }

/* A transposed weight and a sliced bias (non-contiguous parameters). */
static void test_conv_noncontiguous_params(void) {
    fm_conv_case(&fm_convs[0], 0, 0, 1, 1450, __FILE__, __LINE__);
    fm_conv_case(&fm_convs[4], 0, 0, 1, 1451, __FILE__, __LINE__);
    fm_conv_case(&fm_convs[13], 1, 1, 1, 1452, __FILE__, __LINE__);
    fm_conv_case(&fm_conv_transposes[1], 0, 0, 1, 1453, __FILE__, __LINE__);
    fm_conv_case(&fm_conv_transposes[11], 0, 0, 1, 1454, __FILE__, __LINE__);
    fm_conv_case(&fm_conv_transposes[18], 1, 1, 1, 1455, __FILE__, __LINE__);
}

static void test_conv_traced(void) {
    fm_conv_case(&fm_convs[0], 1, 0, 0, 1400, __FILE__, __LINE__);     /* conv3d */
    fm_conv_case(&fm_convs[5], 1, 1, 0, 1401, __FILE__, __LINE__);     /* conv3d depthwise + relu (epilogue) */
    fm_conv_case(&fm_convs[9], 1, 1, 0, 1402, __FILE__, __LINE__);     /* conv3d of a transposed view + relu */
    fm_conv_case(&fm_convs[13], 1, 1, 0, 1403, __FILE__, __LINE__);    /* conv_ex 3-D per axis + relu */
    fm_conv_case(&fm_convs[18], 1, 0, 0, 1404, __FILE__, __LINE__);    /* conv_ex 1-D depthwise, transposed view */
}

/* TT_PASS_EPILOGUE is "matmul/linear/conv + the elementwise ops after it, one node": a
   convolution followed by relu compiles to one node, bitwise equal to eager. */
static void fm_epilogue_case(const fm_conv *q, unsigned long long seed, const char *file, int line) {
    tt_ctx *wc = fm_ctx(1), *c = fm_ctx(2);
    int64_t xs[5], ws[5];
    double *vw, *vx, *vb = NULL;
    fm_axes a;
    fm_model m;
    tt_tensor *x, *x2, *y, *want;
    tt_graph *g;
    int i, nd = 2 + q->nsp;
    fm_conv_axes(q, &a);
    fm_conv_model(q, &m);
    m.view = FM_PLAIN;
    m.relu = 1;
    xs[0] = q->N; xs[1] = q->C;
    ws[0] = fm_transposed(q) ? q->C : q->O;
    ws[1] = fm_transposed(q) ? q->O / q->groups : q->C / q->groups;
    for (i = 0; i < q->nsp; i++) { xs[2 + i] = a.in[i]; ws[2 + i] = a.k[i]; }
    m.w = tu_rand(wc, nd, ws, seed, -1.0, 1.0, &vw);
    if (q->bias) m.b = tu_rand(wc, 1, &q->O, seed + 1, -1.0, 1.0, &vb);
    x = fm_input(c, nd, xs, FM_PLAIN, seed + 2, &vx);
    free(vx);
    x2 = fm_input(c, nd, xs, FM_PLAIN, seed + 3, &vx);
    want = fm_apply(c, &m, x2);
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = fm_apply(c, &m, x);
    g = tt_trace_end(c, &y, 1);
    if (g && tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL) == TT_OK && tt_graph_run(g, &x2, 1) == TT_OK) {
        tt_graph_stats st = tt_graph_get_stats(g);
        tu_same_bits(c, tt_graph_output(g, 0), want, file, line);
        if (!tt_test__eq_int(st.nodes, 1, file, line, "nodes after TT_PASS_ALL", "1 (conv + relu fused)")) {
            printf("    (conv kind %d, %d-D: %d traced nodes, %d after the passes)\n", q->kind, q->nsp,
                   st.nodes_traced, st.nodes);
#ifndef TT_NO_STDIO
            tt_graph_print(g);
#endif
        }
    } else {
        tt_test__fail(file, line, "trace, compile and run");
    }
    tt_graph_destroy(g);
    (void)fm_clean(c, file, line);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    free(vw); free(vx); free(vb);
}

static void test_conv_epilogue_fused(void) {
    fm_epilogue_case(&fm_convs[15], 1900, __FILE__, __LINE__);            /* conv_ex 2-D (conv2d): the control */
    fm_epilogue_case(&fm_convs[17], 1901, __FILE__, __LINE__);            /* conv_ex 1-D (conv1d) */
    fm_epilogue_case(&fm_convs[0], 1902, __FILE__, __LINE__);             /* conv3d */
    fm_epilogue_case(&fm_conv_transposes[1], 1903, __FILE__, __LINE__);   /* conv_transpose1d */
    fm_epilogue_case(&fm_conv_transposes[11], 1904, __FILE__, __LINE__);  /* conv_transpose2d */
}

static void test_conv_transpose1d(void) {
    fm_conv_table(fm_conv_transposes, FM_COUNT(fm_conv_transposes), FM_CT1D, 1500, __FILE__, __LINE__);
}
static void test_conv_transpose2d(void) {
    fm_conv_table(fm_conv_transposes, FM_COUNT(fm_conv_transposes), FM_CT2D, 1600, __FILE__, __LINE__);
}
static void test_conv_transpose_ex(void) {
    fm_conv_table(fm_conv_transposes, FM_COUNT(fm_conv_transposes), FM_CT_EX, 1700, __FILE__, __LINE__);
}

static void test_conv_transpose_traced(void) {
    fm_conv_case(&fm_conv_transposes[1], 1, 0, 0, 1800, __FILE__, __LINE__);    /* 1-D, stride 2 */
    fm_conv_case(&fm_conv_transposes[1], 1, 1, 0, 1801, __FILE__, __LINE__);    /* + relu (epilogue) */
    fm_conv_case(&fm_conv_transposes[6], 1, 1, 0, 1802, __FILE__, __LINE__);    /* depthwise x2 + relu */
    fm_conv_case(&fm_conv_transposes[11], 1, 0, 0, 1803, __FILE__, __LINE__);   /* 2-D, groups 2 */
    fm_conv_case(&fm_conv_transposes[14], 1, 1, 0, 1804, __FILE__, __LINE__);   /* 2-D depthwise, sliced + relu */
    fm_conv_case(&fm_conv_transposes[17], 1, 1, 0, 1805, __FILE__, __LINE__);   /* 3-D per axis + relu */
}

static void test_conv_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[5] = {1, 3, 4, 4, 4}, x4s[4] = {1, 3, 4, 4}, ws[5] = {4, 3, 3, 3, 3}, w2s[5] = {4, 2, 3, 3, 3};
    int64_t w4s[4] = {4, 3, 3, 3}, wbig[5] = {4, 3, 5, 5, 5}, xg[5] = {1, 4, 4, 4, 4}, wg3[5] = {6, 1, 3, 3, 3};
    int64_t wo3[5] = {3, 2, 3, 3, 3}, b5[1] = {5}, b22[2] = {2, 2}, r2[2] = {3, 4}, r6[6] = {1, 3, 4, 4, 4, 1};
    int64_t x0s[5] = {0, 3, 4, 4, 4}, y0s[5] = {0, 4, 2, 2, 2};
    tt_tensor *x = tt_zeros(c, TT_F32, 5, xs), *x4 = tt_zeros(c, TT_F32, 4, x4s), *w = tt_zeros(c, TT_F32, 5, ws);
    tt_tensor *w2 = tt_zeros(c, TT_F32, 5, w2s), *w4 = tt_zeros(c, TT_F32, 4, w4s), *wb = tt_zeros(c, TT_F32, 5, wbig);
    tt_tensor *xgr = tt_zeros(c, TT_F32, 5, xg), *wgr = tt_zeros(c, TT_F32, 5, wg3), *wod = tt_zeros(c, TT_F32, 5, wo3);
    tt_tensor *bad_b = tt_zeros(c, TT_F32, 1, b5), *b2d = tt_zeros(c, TT_F32, 2, b22);
    tt_tensor *xr2 = tt_zeros(c, TT_F32, 2, r2), *xr6 = tt_zeros(c, TT_F32, 6, r6), *x0 = tt_zeros(c, TT_F32, 5, x0s);
    tt_conv_params p;
    double none[1] = {0.0};

    FM_REJECTS(c, tt_conv3d(c, x4, w, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "[1,3,4,4]");
    FM_REJECTS(c, tt_conv3d(c, x, w4, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "weight");
    FM_REJECTS(c, tt_conv3d(c, x, w2, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "weight");    /* 3 vs 2 channels */
    FM_REJECTS2(c, tt_conv3d(c, xgr, wgr, NULL, 1, 0, 1, 3), TT_ERR_ARG, TT_ERR_SHAPE, "tt_conv3d", "groups");  /* 4 % 3 */
    FM_REJECTS2(c, tt_conv3d(c, xgr, wod, NULL, 1, 0, 1, 2), TT_ERR_ARG, TT_ERR_SHAPE, "tt_conv3d", "groups");  /* 3 % 2 */
    FM_REJECTS(c, tt_conv3d(c, x, w, NULL, 1, 0, 1, 0), TT_ERR_ARG, "tt_conv3d", "groups");
    FM_REJECTS(c, tt_conv3d(c, x, wb, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "[1,3,4,4,4]");  /* 5 > 4 */
    CHECK(tt_conv3d(c, x, wb, NULL, 1, 1, 1, 1) != NULL);                                          /* fits padded */
    FM_REJECTS(c, tt_conv3d(c, x, w, NULL, 1, 0, 2, 1), TT_ERR_SHAPE, "tt_conv3d", "[1,3,4,4,4]");   /* span 5 > 4 */
    FM_REJECTS(c, tt_conv3d(c, x, w, NULL, 0, 0, 1, 1), TT_ERR_ARG, "tt_conv3d", "stride");
    FM_REJECTS(c, tt_conv3d(c, x, w, NULL, 1, 0, 0, 1), TT_ERR_ARG, "tt_conv3d", "dilation");
    FM_REJECTS(c, tt_conv3d(c, x, w, NULL, 1, -1, 1, 1), TT_ERR_ARG, "tt_conv3d", "padding");
    FM_REJECTS(c, tt_conv3d(c, x, w, bad_b, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "bias");
    FM_REJECTS(c, tt_conv3d(c, x, w, b2d, 1, 0, 1, 1), TT_ERR_SHAPE, "tt_conv3d", "bias");
    fm_close(c, tt_conv3d(c, x0, w, NULL, 1, 0, 1, 1), 5, y0s, none, NULL, __FILE__, __LINE__);   /* empty batch */

    memset(&p, 0, sizeof p);
    p.stride[0] = p.stride[1] = p.stride[2] = 1;
    p.dilation[0] = p.dilation[1] = p.dilation[2] = 1;
    p.groups = 1;
    FM_REJECTS(c, tt_conv_ex(c, x, w, NULL, NULL), TT_ERR_ARG, "tt_conv_ex", "p");
    FM_REJECTS(c, tt_conv_ex(c, xr2, w, NULL, &p), TT_ERR_SHAPE, "tt_conv_ex", "[3,4]");
    FM_REJECTS(c, tt_conv_ex(c, xr6, w, NULL, &p), TT_ERR_SHAPE, "tt_conv_ex", "[1,3,4,4,4,1]");
    FM_REJECTS(c, tt_conv_ex(c, x, w4, NULL, &p), TT_ERR_SHAPE, "tt_conv_ex", "weight");
    p.stride[2] = 0;
    FM_REJECTS(c, tt_conv_ex(c, x, w, NULL, &p), TT_ERR_ARG, "tt_conv_ex", "stride");
    CHECK(tt_conv_ex(c, x4, w4, NULL, &p) != NULL);                  /* stride[2] is past a 2-D conv's axes */
    p.stride[2] = 1; p.dilation[1] = 0;
    FM_REJECTS(c, tt_conv_ex(c, x4, w4, NULL, &p), TT_ERR_ARG, "tt_conv_ex", "dilation");
    p.dilation[1] = 1; p.padding[0] = -2;
    FM_REJECTS(c, tt_conv_ex(c, x, w, NULL, &p), TT_ERR_ARG, "tt_conv_ex", "padding");
    p.padding[0] = 0; p.groups = -1;
    FM_REJECTS(c, tt_conv_ex(c, x, w, NULL, &p), TT_ERR_ARG, "tt_conv_ex", "groups");
    p.groups = 1;
    CHECK(tt_conv_ex(c, x, w, NULL, &p) != NULL);
    CHECK(tt_conv3d(c, NULL, w, NULL, 1, 0, 1, 1) == NULL);
    CHECK(tt_conv_ex(c, x, NULL, NULL, &p) == NULL);
    CHECK(tt_error(c) == NULL);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

static void test_conv_transpose_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[3] = {1, 3, 5}, ws[3] = {3, 2, 3}, w4[3] = {4, 2, 3}, w32[3] = {3, 1, 3}, x1s[3] = {1, 3, 1};
    int64_t w1[3] = {3, 2, 1}, wk2[3] = {3, 2, 2}, x2s[4] = {1, 3, 4, 4}, w2s[4] = {3, 2, 3, 3}, b2[1] = {2};
    int64_t x0s[3] = {0, 3, 5}, y0s[3] = {0, 2, 12}, x5s[5] = {1, 3, 2, 2, 2};
    tt_tensor *x = tt_zeros(c, TT_F32, 3, xs), *w = tt_zeros(c, TT_F32, 3, ws), *wc4 = tt_zeros(c, TT_F32, 3, w4);
    tt_tensor *wg = tt_zeros(c, TT_F32, 3, w32), *x1 = tt_zeros(c, TT_F32, 3, x1s), *wk1 = tt_zeros(c, TT_F32, 3, w1);
    tt_tensor *wkk2 = tt_zeros(c, TT_F32, 3, wk2), *x2 = tt_zeros(c, TT_F32, 4, x2s), *w2 = tt_zeros(c, TT_F32, 4, w2s);
    tt_tensor *bias2 = tt_zeros(c, TT_F32, 1, b2), *x0 = tt_zeros(c, TT_F32, 3, x0s), *x5 = tt_zeros(c, TT_F32, 5, x5s);
    tt_conv_params p;
    double none[1] = {0.0};

    /* output_padding must be below max(stride, dilation) */
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 2, 0, 2, 1, 1), TT_ERR_ARG, "tt_conv_transpose1d", "output_padding");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 1, 0, 1, 1, 1), TT_ERR_ARG, "tt_conv_transpose1d", "output_padding");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 1, 0, 2, 2, 1), TT_ERR_ARG, "tt_conv_transpose1d", "output_padding");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 2, 0, -1, 1, 1), TT_ERR_ARG, "tt_conv_transpose1d", "output_padding");
    CHECK(tt_conv_transpose1d(c, x, w, NULL, 1, 0, 1, 2, 1) != NULL);        /* 1 < dilation 2 */
    FM_REJECTS(c, tt_conv_transpose2d(c, x2, w2, NULL, 3, 0, 3, 1, 1), TT_ERR_ARG, "tt_conv_transpose2d", "output_padding");
    /* the weight is [Cin, Cout/groups, k]: its first axis must be x's channels */
    FM_REJECTS(c, tt_conv_transpose1d(c, x, wc4, NULL, 1, 0, 0, 1, 1), TT_ERR_SHAPE, "tt_conv_transpose1d", "weight");
    FM_REJECTS2(c, tt_conv_transpose1d(c, x, wg, NULL, 1, 0, 0, 1, 2), TT_ERR_ARG, TT_ERR_SHAPE, "tt_conv_transpose1d",
                "groups");                                                 /* 3 % 2 */
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 1, 0, 0, 1, 0), TT_ERR_ARG, "tt_conv_transpose1d", "groups");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, bias2, 1, 0, 0, 1, 3), TT_ERR_SHAPE, "tt_conv_transpose1d", "bias");  /* Cout 6 */
    /* outputs of length < 1: (1-1)*1 - 2 + 0 + 0 + 1 = -1, and (1-1)*1 - 2 + 1 + 0 + 1 = 0 */
    FM_REJECTS2(c, tt_conv_transpose1d(c, x1, wk1, NULL, 1, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv_transpose1d",
                "padding");
    FM_REJECTS2(c, tt_conv_transpose1d(c, x1, wkk2, NULL, 1, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv_transpose1d",
                "padding");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 0, 0, 0, 1, 1), TT_ERR_ARG, "tt_conv_transpose1d", "stride");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 1, -1, 0, 1, 1), TT_ERR_ARG, "tt_conv_transpose1d", "padding");
    FM_REJECTS(c, tt_conv_transpose1d(c, x, w, NULL, 1, 0, 0, 0, 1), TT_ERR_ARG, "tt_conv_transpose1d", "dilation");
    FM_REJECTS(c, tt_conv_transpose1d(c, x2, w2, NULL, 1, 0, 0, 1, 1), TT_ERR_SHAPE, "tt_conv_transpose1d", "[1,3,4,4]");
    FM_REJECTS(c, tt_conv_transpose2d(c, x, w, NULL, 1, 0, 0, 1, 1), TT_ERR_SHAPE, "tt_conv_transpose2d", "[1,3,5]");
    FM_REJECTS(c, tt_conv_transpose2d(c, x2, w, NULL, 1, 0, 0, 1, 1), TT_ERR_SHAPE, "tt_conv_transpose2d", "weight");
    fm_close(c, tt_conv_transpose1d(c, x0, w, NULL, 2, 0, 1, 1, 1), 3, y0s, none, NULL, __FILE__, __LINE__);

    memset(&p, 0, sizeof p);
    p.stride[0] = p.stride[1] = p.stride[2] = 1;
    p.dilation[0] = p.dilation[1] = p.dilation[2] = 1;
    p.groups = 1;
    FM_REJECTS(c, tt_conv_transpose_ex(c, x, w, NULL, NULL), TT_ERR_ARG, "tt_conv_transpose_ex", "p");
    FM_REJECTS(c, tt_conv_transpose_ex(c, x5, w, NULL, &p), TT_ERR_SHAPE, "tt_conv_transpose_ex", "weight");
    p.output_padding[0] = 1;                                   /* stride 1, dilation 1 */
    FM_REJECTS(c, tt_conv_transpose_ex(c, x, w, NULL, &p), TT_ERR_ARG, "tt_conv_transpose_ex", "output_padding");
    p.output_padding[0] = 0; p.output_padding[1] = 5;         /* past a 1-D conv's axes: ignored */
    CHECK(tt_conv_transpose_ex(c, x, w, NULL, &p) != NULL);
    p.stride[0] = 2; p.output_padding[0] = 1;
    CHECK(tt_conv_transpose_ex(c, x, w, NULL, &p) != NULL);
    CHECK(tt_conv_transpose1d(c, NULL, w, NULL, 1, 0, 0, 1, 1) == NULL);
    CHECK(tt_conv_transpose_ex(c, x, NULL, NULL, &p) == NULL);
    CHECK(tt_error(c) == NULL);
    (void)fm_clean(c, __FILE__, __LINE__);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(forms) = {
    {"from_int64", test_from_int64},
    {"from_int64_traced", test_from_int64_traced},
    {"from_int64_bad_args", test_from_int64_bad_args},
    {"reshape_view_or_copy", test_reshape_view_or_copy},
    {"reshape_traced", test_reshape_traced},
    {"reshape_bad_args", test_reshape_bad_args},
    {"pad_modes", test_pad_modes},
    {"pad_i32", test_pad_i32},
    {"pad_traced", test_pad_traced},
    {"pad_bad_args", test_pad_bad_args},
    {"pool_1d", test_pool_1d},
    {"pool_2d", test_pool_2d},
    {"pool_3d", test_pool_3d},
    {"pool_nan_and_negative", test_pool_nan_and_negative},
    {"pool_traced", test_pool_traced},
    {"pool_bad_args", test_pool_bad_args},
    {"upsample_nearest_scale", test_upsample_nearest_scale},
    {"upsample_bilinear", test_upsample_bilinear},
    {"upsample_bilinear_scale", test_upsample_bilinear_scale},
    {"upsample_traced", test_upsample_traced},
    {"upsample_bad_args", test_upsample_bad_args},
    {"conv3d", test_conv3d},
    {"conv_ex", test_conv_ex},
    {"conv_noncontiguous_params", test_conv_noncontiguous_params},
    {"conv_traced", test_conv_traced},
    {"conv_bad_args", test_conv_bad_args},
    {"conv_transpose1d", test_conv_transpose1d},
    {"conv_transpose2d", test_conv_transpose2d},
    {"conv_transpose_ex", test_conv_transpose_ex},
    {"conv_transpose_traced", test_conv_transpose_traced},
    {"conv_transpose_bad_args", test_conv_transpose_bad_args},
    {"conv_epilogue_fused", test_conv_epilogue_fused},
    {NULL, NULL}
};
