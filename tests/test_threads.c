/* test_threads.c - the thread pool (group `threads`).

   DESIGN.md: results are BITWISE identical for every thread count, because kernels cut their
   work into tasks from the shapes alone. Here:
   - eager ops (unary, broadcasting binary, comparisons, sum/mean/var over various axes,
     argmax, softmax over the last and a middle axis, matmul in every layout, linear, conv2d)
     on inputs big enough for many tasks (rows of 17 and of 40000, 100k+ elements, transposed
     and strided views) on contexts of 1, 2, 3, 4, 7 threads and the default (0): every result
     memcmp-equal to the 1-thread result, which is itself checked against double references;
   - graphs (MLP with epilogues, a fused elementwise chain, conv) traced on n-thread contexts:
     outputs bitwise equal for every n, to eager, and between DEFAULT / REDUCE_OVERHEAD runs;
   - the parallel_for hook: tasks run serially in REVERSE order with thread ids cycling
     0..n_threads-1 give the same bits, and the hook is really called (eager and graphs);
   - lifetimes: many threaded contexts made and destroyed (some never running a kernel, some
     on user memory, some with a counting allocator), several pools alive at once, graphs that
     outlive their tracing context. ASan/LSan find leaks and races on freed memory. */
#include "test_util.h"
#include <stdio.h>

/* Under AddressSanitizer (slow GEMMs) the eager suite runs for fewer thread counts. */
#if defined(__SANITIZE_ADDRESS__)
#define TH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TH_SANITIZED 1
#endif
#endif
#ifndef TH_SANITIZED
#define TH_SANITIZED 0
#endif

/* ------------------------------------------------------------------ results ---- */

#define TH_MAX_RES 64

typedef struct th_res {
    const char *name;
    tt_dtype    dtype;
    int         ndim;
    int64_t     shape[TT_MAX_DIMS];
    int64_t     numel;
    float      *v;                 /* values (row-major, as f32); NULL when the op failed */
} th_res;

typedef struct th_set {
    int    n;
    th_res r[TH_MAX_RES];
} th_set;

static void th_set_init(th_set *s) { memset(s, 0, sizeof *s); }

static void th_set_free(th_set *s) {
    int i;
    for (i = 0; i < s->n; i++) free(s->r[i].v);
    s->n = 0;
}

/* Records t (the result of op `name` on c) in s; checks guards and that no error is set.
   Returns its values (owned by s) or NULL. */
static const float *th_keep(tt_ctx *c, th_set *s, const char *name, const tt_tensor *t,
                            const char *file, int line) {
    th_res *r;
    char msg[320];
    int d;
    if (!tt_ctx_check_guards(c)) {
        snprintf(msg, sizeof msg, "%s: guard region overwritten: %s", name, tt_error(c) ? tt_error(c) : "");
        tt_test__fail(file, line, msg);
        tt_clear_error(c);
    }
    if (s->n >= TH_MAX_RES) { tt_test__fail(file, line, "th_keep: too many results"); return NULL; }
    r = &s->r[s->n++];
    memset(r, 0, sizeof *r);
    r->name = name;
    if (!t) {
        snprintf(msg, sizeof msg, "%s returned NULL: %s", name, tt_error(c) ? tt_error(c) : "(no error)");
        tt_test__fail(file, line, msg);
        tt_clear_error(c);
        return NULL;
    }
    if (tt_error(c)) {
        snprintf(msg, sizeof msg, "%s left an error: %s", name, tt_error(c));
        tt_test__fail(file, line, msg);
        tt_clear_error(c);
    }
    r->dtype = t->dtype;
    r->ndim = t->ndim;
    for (d = 0; d < t->ndim; d++) r->shape[d] = t->shape[d];
    r->numel = t->numel;
    r->v = tu_values(c, t);
    if (!r->v) {
        snprintf(msg, sizeof msg, "%s: reading the values failed", name);
        tt_test__fail(file, line, msg);
    }
    return r->v;
}
#define TH_KEEP(c, s, name, t) th_keep((c), (s), (name), (t), __FILE__, __LINE__)

/* Every result of got is bitwise equal (same dtype, shape, bits) to the same result of ref. */
static int th_same_bits(const th_set *ref, const th_set *got, const char *label, const char *file, int line) {
    int i, ok = 1;
    char msg[400];
    if (ref->n != got->n) {
        snprintf(msg, sizeof msg, "%s: %d results, expected %d", label, got->n, ref->n);
        return tt_test__fail(file, line, msg);
    }
    for (i = 0; i < ref->n; i++) {
        const th_res *a = &ref->r[i], *b = &got->r[i];
        int d, same_shape = a->ndim == b->ndim && a->numel == b->numel && a->dtype == b->dtype;
        for (d = 0; same_shape && d < a->ndim; d++) same_shape = a->shape[d] == b->shape[d];
        if (!a->v || !b->v) continue;                  /* already reported */
        if (!same_shape) {
            snprintf(msg, sizeof msg, "%s: %s: dtype/shape differ from the reference run", label, a->name);
            ok = tt_test__fail(file, line, msg);
            continue;
        }
        if (memcmp(a->v, b->v, sizeof(float) * (size_t)a->numel) != 0) {
            int64_t k, first = -1, bad = 0;
            for (k = 0; k < a->numel; k++)
                if (memcmp(&a->v[k], &b->v[k], sizeof(float)) != 0) { if (first < 0) first = k; bad++; }
            snprintf(msg, sizeof msg, "%s: %s: not bitwise equal: %lld of %lld values differ, first [%lld]: "
                     "got %.9g, expected %.9g", label, a->name, (long long)bad, (long long)a->numel,
                     (long long)first, (double)b->v[first], (double)a->v[first]);
            ok = tt_test__fail(file, line, msg);
        }
    }
    return ok;
}
#define CHECK_SAME_SET(ref, got, label) th_same_bits((ref), (got), (label), __FILE__, __LINE__)

/* |got - want| <= tol * absum + 1e-7 for every element (sums and dot products). */
static int th_check_sum(const char *name, const float *got, const double *want, const double *absum, int64_t n,
                        double tol, const char *file, int line) {
    int64_t i, bad = 0, first = -1;
    for (i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol * absum[i] + 1e-7)) { if (first < 0) first = i; bad++; }
    if (!bad) return 1;
    printf("    %s: %lld of %lld values off; first [%lld] (sum|terms| %g):\n", name, (long long)bad, (long long)n,
           (long long)first, absum[first]);
    return tt_test__near(got[first], want[first], tol * absum[first] + 1e-7, 0, file, line, name, "reference");
}
#define CHECK_SUM(name, got, want, absum, n, tol) th_check_sum((name), (got), (want), (absum), (n), (tol), __FILE__, __LINE__)

/* ------------------------------------------------------------ double refs ---- */

/* [R,C] row-major -> its transpose [C,R] (malloc'd). */
static double *th_t2(const double *src, int64_t R, int64_t C) {
    double *t = (double *)malloc(sizeof(double) * (size_t)(R * C));
    int64_t i, j;
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) t[j * R + i] = src[i * C + j];
    return t;
}

enum { TH_SUM = 0, TH_MEAN = 1, TH_VAR = 2, TH_ARGMAX = 3 };

/* Reduces the axes in mask of x; outputs in row-major order of the kept axes. absum gets the
   sum of |terms| of each output (for var: the variance itself). Returns the output count. */
static int64_t th_ref_reduce(const double *x, int ndim, const int64_t *shape, unsigned mask, int op, int corr,
                             double *out, double *absum) {
    int64_t n = tu_numel(ndim, shape), M = 1, K = 1, i, o;
    int64_t idx[TT_MAX_DIMS];
    double *acc, *aab, *best;
    int d, axis = 0;
    for (d = 0; d < ndim; d++) { if ((mask >> d) & 1u) { K *= shape[d]; axis = d; } else M *= shape[d]; }
    acc = (double *)calloc((size_t)M, sizeof(double));
    aab = (double *)calloc((size_t)M, sizeof(double));
    best = (double *)malloc(sizeof(double) * (size_t)M);
    for (o = 0; o < M; o++) { best[o] = -INFINITY; out[o] = -1; }
    for (d = 0; d < TT_MAX_DIMS; d++) idx[d] = 0;
    for (i = 0; i < n; i++) {
        o = 0;
        for (d = 0; d < ndim; d++) if (!((mask >> d) & 1u)) o = o * shape[d] + idx[d];
        acc[o] += x[i];
        aab[o] += fabs(x[i]);
        if (op == TH_ARGMAX && x[i] > best[o]) { best[o] = x[i]; out[o] = (double)idx[axis]; }
        for (d = ndim - 1; d >= 0; d--) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
    }
    if (op == TH_SUM) for (o = 0; o < M; o++) { out[o] = acc[o]; absum[o] = aab[o]; }
    if (op == TH_MEAN) for (o = 0; o < M; o++) { out[o] = acc[o] / (double)K; absum[o] = aab[o] / (double)K; }
    if (op == TH_VAR) {
        for (o = 0; o < M; o++) out[o] = 0;
        for (d = 0; d < TT_MAX_DIMS; d++) idx[d] = 0;
        for (i = 0; i < n; i++) {
            double dev;
            o = 0;
            for (d = 0; d < ndim; d++) if (!((mask >> d) & 1u)) o = o * shape[d] + idx[d];
            dev = x[i] - acc[o] / (double)K;
            out[o] += dev * dev;
            for (d = ndim - 1; d >= 0; d--) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
        }
        for (o = 0; o < M; o++) { out[o] /= (double)(K - corr); absum[o] = out[o]; }
    }
    free(acc); free(aab); free(best);
    return M;
}

/* Softmax of x over axis (same shape as x). */
static void th_ref_softmax(const double *x, int ndim, const int64_t *shape, int axis, double *out) {
    int64_t outer = 1, inner = 1, K = shape[axis], o, in, k;
    int d;
    for (d = 0; d < axis; d++) outer *= shape[d];
    for (d = axis + 1; d < ndim; d++) inner *= shape[d];
    for (o = 0; o < outer; o++)
        for (in = 0; in < inner; in++) {
            const double *p = x + o * K * inner + in;
            double mx = -INFINITY, sum = 0;
            for (k = 0; k < K; k++) if (p[k * inner] > mx) mx = p[k * inner];
            for (k = 0; k < K; k++) sum += exp(p[k * inner] - mx);
            for (k = 0; k < K; k++) out[o * K * inner + in + k * inner] = exp(p[k * inner] - mx) / sum;
        }
}

/* C[M,N] = A·B with A(i,k) = A[i*sam + k*sak], B(k,j) = B[k*sbk + j*sbn]; absum = sum|a*b|. */
static void th_ref_matmul(const double *A, int64_t sam, int64_t sak, const double *B, int64_t sbk, int64_t sbn,
                          int64_t M, int64_t K, int64_t N, double *out, double *absum) {
    int64_t i, j, k;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double s = 0, a = 0;
            for (k = 0; k < K; k++) {
                double t = A[i * sam + k * sak] * B[k * sbk + j * sbn];
                s += t; a += fabs(t);
            }
            out[i * N + j] = s;
            absum[i * N + j] = a;
        }
}

/* conv2d NCHW, square stride/padding/dilation; bias may be NULL. */
static void th_ref_conv2d(const double *x, int64_t N, int64_t Cin, int64_t H, int64_t W, const double *w,
                          int64_t Cout, int64_t kh, int64_t kw, const double *b, int st, int pad, int dil, int groups,
                          double *out, double *absum) {
    int64_t OH = (H + 2 * pad - dil * (kh - 1) - 1) / st + 1, OW = (W + 2 * pad - dil * (kw - 1) - 1) / st + 1;
    int64_t cig = Cin / groups, cog = Cout / groups, n, co, oy, ox, ci, ky, kx;
    for (n = 0; n < N; n++)
        for (co = 0; co < Cout; co++)
            for (oy = 0; oy < OH; oy++)
                for (ox = 0; ox < OW; ox++) {
                    int64_t g = co / cog, o = ((n * Cout + co) * OH + oy) * OW + ox;
                    double s = b ? b[co] : 0, a = b ? fabs(b[co]) : 0;
                    for (ci = 0; ci < cig; ci++)
                        for (ky = 0; ky < kh; ky++)
                            for (kx = 0; kx < kw; kx++) {
                                int64_t iy = oy * st - pad + ky * dil, ix = ox * st - pad + kx * dil;
                                double t;
                                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                t = x[((n * Cin + g * cig + ci) * H + iy) * W + ix] * w[((co * cig + ci) * kh + ky) * kw + kx];
                                s += t; a += fabs(t);
                            }
                    out[o] = s;
                    absum[o] = a;
                }
}

static double th_gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double th_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* -------------------------------------------------------------- eager data ---- */

enum {
    TH_A, TH_A2, TH_R17, TH_B, TH_COL3, TH_ROW4, TH_C3, TH_M50, TH_V6000,
    TH_MA, TH_MAT, TH_MB, TH_MBT, TH_BA, TH_BB, TH_BB4, TH_V100, TH_MB2,
    TH_X1, TH_X64, TH_W, TH_BIAS, TH_IMG, TH_CW, TH_CB, TH_IMG2, TH_CW2, TH_NIN
};

typedef struct th_spec { int ndim; int64_t shape[4]; double lo, hi; } th_spec;

static const th_spec th_in_spec[TH_NIN] = {
    {2, {6000, 17, 0, 0}, -3, 3},      /* TH_A: rows of 17 (102000 elements) */
    {2, {6000, 17, 0, 0}, -3, 3},      /* TH_A2 */
    {1, {17, 0, 0, 0}, -1, 1},         /* TH_R17 */
    {2, {3, 40000, 0, 0}, -3, 3},      /* TH_B: rows of 40000 */
    {2, {3, 1, 0, 0}, -1, 1},          /* TH_COL3 */
    {2, {1, 40000, 0, 0}, -2, 2},      /* TH_ROW4 */
    {3, {40, 50, 60, 0}, -3, 3},       /* TH_C3 (120000) */
    {2, {50, 1, 0, 0}, -1, 1},         /* TH_M50 */
    {1, {6000, 0, 0, 0}, -1, 1},       /* TH_V6000 */
    {2, {300, 500, 0, 0}, -1, 1},      /* TH_MA */
    {2, {500, 120, 0, 0}, -1, 1},      /* TH_MAT: a transposed A */
    {2, {500, 200, 0, 0}, -1, 1},      /* TH_MB */
    {2, {200, 500, 0, 0}, -1, 1},      /* TH_MBT: a transposed B */
    {3, {4, 33, 70, 0}, -1, 1},        /* TH_BA */
    {2, {70, 50, 0, 0}, -1, 1},        /* TH_BB */
    {3, {4, 70, 50, 0}, -1, 1},        /* TH_BB4 */
    {1, {100, 0, 0, 0}, -1, 1},        /* TH_V100 */
    {2, {100, 2100, 0, 0}, -1, 1},     /* TH_MB2: wide, for M = 1 with column tiles */
    {2, {1, 256, 0, 0}, -1, 1},        /* TH_X1 */
    {2, {64, 256, 0, 0}, -1, 1},       /* TH_X64 */
    {2, {300, 256, 0, 0}, -0.2, 0.2},  /* TH_W */
    {1, {300, 0, 0, 0}, -1, 1},        /* TH_BIAS */
    {4, {2, 3, 32, 32}, -1, 1},        /* TH_IMG */
    {4, {20, 3, 3, 3}, -0.5, 0.5},     /* TH_CW */
    {1, {20, 0, 0, 0}, -0.5, 0.5},     /* TH_CB */
    {4, {1, 4, 40, 40}, -1, 1},        /* TH_IMG2 */
    {4, {6, 2, 5, 5}, -0.3, 0.3}       /* TH_CW2 */
};

typedef struct th_data {
    double *d[TH_NIN];
    double *ref, *abs;             /* scratch for references */
} th_data;

#define TH_SCRATCH 130000

static void th_data_make(th_data *D) {
    int i;
    for (i = 0; i < TH_NIN; i++) {
        int64_t n = tu_numel(th_in_spec[i].ndim, th_in_spec[i].shape), k;
        D->d[i] = (double *)malloc(sizeof(double) * (size_t)n);
        tu_uniform(D->d[i], n, 1000u + (unsigned)i, th_in_spec[i].lo, th_in_spec[i].hi);
        for (k = 0; k < n; k++) D->d[i][k] = (double)(float)D->d[i][k];    /* what the library sees */
    }
    D->ref = (double *)malloc(sizeof(double) * TH_SCRATCH);
    D->abs = (double *)malloc(sizeof(double) * TH_SCRATCH);
}

static void th_data_free(th_data *D) {
    int i;
    for (i = 0; i < TH_NIN; i++) free(D->d[i]);
    free(D->ref);
    free(D->abs);
}

/* A context with guards and n_threads (and an optional parallel_for hook). */
static tt_ctx *th_ctx(int n_threads, void (*hook)(void (*)(void *, int64_t, int), void *, int64_t, void *), void *user) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    d.n_threads = n_threads;
    d.parallel_for = hook;
    d.parallel_user = user;
    return tt_ctx_create(&d);
}

/* Runs every eager op on c; with check, compares each result with a double reference. */
static void th_eager_suite(tt_ctx *c, th_data *D, th_set *s, int check) {
    tt_tensor *T[TH_NIN];
    tt_tensor *AT, *BS, *S0, *ROWX, *MAV, *MBV, *MA1, *MAS;
    const float *v;
    double *ref = D->ref, *ab = D->abs, *at, *a2t;
    const double *a = D->d[TH_A], *a2 = D->d[TH_A2], *b = D->d[TH_B], *c3 = D->d[TH_C3];
    int64_t i, j, k, n;
    int i0 = 0, i1 = 1, im1 = -1, i02[2] = {0, 2};
    for (k = 0; k < TH_NIN; k++) {
        T[k] = tu_tensor(c, th_in_spec[k].ndim, th_in_spec[k].shape, D->d[k]);
        CHECK(T[k] != NULL);
    }
    {
        int64_t row_shape[2] = {3, 40000};
        AT = tt_transpose(c, T[TH_A], 0, 1);                   /* [17,6000], not contiguous */
        BS = tt_slice(c, T[TH_B], 1, 1, 40000, 2);             /* [3,20000], stride 2 */
        S0 = tt_scalar(c, 0.25f);                              /* 0-d */
        ROWX = tt_expand(c, T[TH_ROW4], 2, row_shape);         /* [3,40000], stride 0 */
        MAV = tt_transpose(c, T[TH_MAT], 0, 1);                /* [120,500] view */
        MBV = tt_transpose(c, T[TH_MBT], 0, 1);                /* [500,200] view: columns contiguous */
        MA1 = tt_slice(c, T[TH_MA], 0, 7, 8, 1);               /* [1,500] */
        MAS = tt_slice(c, T[TH_MA], 0, 5, 300, 100);           /* [3,500], rows 5, 105, 205 */
        CHECK(AT && BS && S0 && ROWX && MAV && MBV && MA1 && MAS);
        CHECK_GUARDS(c);
    }
    at = th_t2(a, 6000, 17);
    a2t = th_t2(a2, 6000, 17);

    /* ---- unary */
    v = TH_KEEP(c, s, "exp(A)", tt_exp(c, T[TH_A]));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = exp(a[i]); CHECK_ALLCLOSE(v, ref, 102000, 1e-6, 2e-6); }
    v = TH_KEEP(c, s, "tanh(B)", tt_tanh(c, T[TH_B]));
    if (check && v) { for (i = 0; i < 120000; i++) ref[i] = tanh(b[i]); CHECK_ALLCLOSE(v, ref, 120000, 1e-6, 2e-6); }
    v = TH_KEEP(c, s, "gelu(A^T)", tt_gelu(c, AT));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = th_gelu(at[i]); CHECK_ALLCLOSE(v, ref, 102000, 1e-6, 2e-6); }
    v = TH_KEEP(c, s, "exp(B[:,1::2])", tt_exp(c, BS));
    if (check && v) {
        for (i = 0; i < 3; i++) for (j = 0; j < 20000; j++) ref[i * 20000 + j] = exp(b[i * 40000 + 1 + 2 * j]);
        CHECK_ALLCLOSE(v, ref, 60000, 1e-6, 2e-6);
    }

    /* ---- binary, broadcasting, comparisons */
    v = TH_KEEP(c, s, "add(A,[17])", tt_add(c, T[TH_A], T[TH_R17]));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = a[i] + D->d[TH_R17][i % 17]; CHECK_ALLCLOSE(v, ref, 102000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "add(B,[3,1])", tt_add(c, T[TH_B], T[TH_COL3]));
    if (check && v) { for (i = 0; i < 120000; i++) ref[i] = b[i] + D->d[TH_COL3][i / 40000]; CHECK_ALLCLOSE(v, ref, 120000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "mul(A^T,[6000])", tt_mul(c, AT, T[TH_V6000]));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = at[i] * D->d[TH_V6000][i % 6000]; CHECK_ALLCLOSE(v, ref, 102000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "mul(A,A2)", tt_mul(c, T[TH_A], T[TH_A2]));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = a[i] * a2[i]; CHECK_ALLCLOSE(v, ref, 102000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "mul(expand(row),B)", tt_mul(c, ROWX, T[TH_B]));
    if (check && v) { for (i = 0; i < 120000; i++) ref[i] = D->d[TH_ROW4][i % 40000] * b[i]; CHECK_ALLCLOSE(v, ref, 120000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "sub(C3,[50,1])", tt_sub(c, T[TH_C3], T[TH_M50]));
    if (check && v) { for (i = 0; i < 120000; i++) ref[i] = c3[i] - D->d[TH_M50][(i / 60) % 50]; CHECK_ALLCLOSE(v, ref, 120000, 1e-6, 1e-6); }
    v = TH_KEEP(c, s, "gt(A,A2)", tt_gt(c, T[TH_A], T[TH_A2]));
    if (check && v) {
        CHECK(s->r[s->n - 1].dtype == TT_BOOL);
        for (i = 0; i < 102000; i++) ref[i] = a[i] > a2[i];
        CHECK_ALLCLOSE(v, ref, 102000, 0, 0);
    }
    v = TH_KEEP(c, s, "lt(B,0-d)", tt_lt(c, T[TH_B], S0));
    if (check && v) { for (i = 0; i < 120000; i++) ref[i] = b[i] < 0.25; CHECK_ALLCLOSE(v, ref, 120000, 0, 0); }
    v = TH_KEEP(c, s, "ge(A^T,A2^T)", tt_ge(c, AT, tt_transpose(c, T[TH_A2], 0, 1)));
    if (check && v) { for (i = 0; i < 102000; i++) ref[i] = at[i] >= a2t[i]; CHECK_ALLCLOSE(v, ref, 102000, 0, 0); }

    /* ---- reductions */
    v = TH_KEEP(c, s, "sum(A,1)", tt_sum(c, T[TH_A], &i1, 1, false));
    if (check && v) { n = th_ref_reduce(a, 2, th_in_spec[TH_A].shape, 2u, TH_SUM, 0, ref, ab); CHECK_SUM("sum(A,1)", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "sum(A,0)", tt_sum(c, T[TH_A], &i0, 1, false));
    if (check && v) { n = th_ref_reduce(a, 2, th_in_spec[TH_A].shape, 1u, TH_SUM, 0, ref, ab); CHECK_SUM("sum(A,0)", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "sum(A^T,1)", tt_sum(c, AT, &i1, 1, false));
    if (check && v) { n = th_ref_reduce(a, 2, th_in_spec[TH_A].shape, 1u, TH_SUM, 0, ref, ab); CHECK_SUM("sum(A^T,1)", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "sum(B)", tt_sum(c, T[TH_B], NULL, 0, false));
    if (check && v) { n = th_ref_reduce(b, 2, th_in_spec[TH_B].shape, 3u, TH_SUM, 0, ref, ab); CHECK_SUM("sum(B)", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "mean(B,-1,keep)", tt_mean(c, T[TH_B], &im1, 1, true));
    if (check && v) {
        CHECK(s->r[s->n - 1].ndim == 2 && s->r[s->n - 1].shape[1] == 1);
        n = th_ref_reduce(b, 2, th_in_spec[TH_B].shape, 2u, TH_MEAN, 0, ref, ab);
        CHECK_SUM("mean(B,-1)", v, ref, ab, n, 1e-6);
    }
    v = TH_KEEP(c, s, "var(B,0,corr 1)", tt_var(c, T[TH_B], &i0, 1, 1, false));
    if (check && v) { n = th_ref_reduce(b, 2, th_in_spec[TH_B].shape, 1u, TH_VAR, 1, ref, ab); CHECK_SUM("var(B,0)", v, ref, ab, n, 1e-5); }
    v = TH_KEEP(c, s, "sum(C3,{0,2})", tt_sum(c, T[TH_C3], i02, 2, false));
    if (check && v) { n = th_ref_reduce(c3, 3, th_in_spec[TH_C3].shape, 5u, TH_SUM, 0, ref, ab); CHECK_SUM("sum(C3,{0,2})", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "mean(C3,1)", tt_mean(c, T[TH_C3], &i1, 1, false));
    if (check && v) { n = th_ref_reduce(c3, 3, th_in_spec[TH_C3].shape, 2u, TH_MEAN, 0, ref, ab); CHECK_SUM("mean(C3,1)", v, ref, ab, n, 1e-6); }
    v = TH_KEEP(c, s, "var(C3,-1,keep)", tt_var(c, T[TH_C3], &im1, 1, 0, true));
    if (check && v) { n = th_ref_reduce(c3, 3, th_in_spec[TH_C3].shape, 4u, TH_VAR, 0, ref, ab); CHECK_SUM("var(C3,-1)", v, ref, ab, n, 1e-5); }
    v = TH_KEEP(c, s, "argmax(A,1)", tt_argmax(c, T[TH_A], 1, false));
    if (check && v) {
        CHECK(s->r[s->n - 1].dtype == TT_I32);
        n = th_ref_reduce(a, 2, th_in_spec[TH_A].shape, 2u, TH_ARGMAX, 0, ref, ab);
        CHECK_ALLCLOSE(v, ref, n, 0, 0);
    }
    v = TH_KEEP(c, s, "argmax(B,0)", tt_argmax(c, T[TH_B], 0, false));
    if (check && v) { n = th_ref_reduce(b, 2, th_in_spec[TH_B].shape, 1u, TH_ARGMAX, 0, ref, ab); CHECK_ALLCLOSE(v, ref, n, 0, 0); }
    v = TH_KEEP(c, s, "argmax(C3,1)", tt_argmax(c, T[TH_C3], 1, false));
    if (check && v) { n = th_ref_reduce(c3, 3, th_in_spec[TH_C3].shape, 2u, TH_ARGMAX, 0, ref, ab); CHECK_ALLCLOSE(v, ref, n, 0, 0); }

    /* ---- softmax: last axis (rows of 17, of 40000), middle axis, a transposed view */
    v = TH_KEEP(c, s, "softmax(A,-1)", tt_softmax(c, T[TH_A], -1));
    if (check && v) { th_ref_softmax(a, 2, th_in_spec[TH_A].shape, 1, ref); CHECK_ALLCLOSE(v, ref, 102000, 1e-9, 1e-5); }
    v = TH_KEEP(c, s, "softmax(B,1)", tt_softmax(c, T[TH_B], 1));
    if (check && v) { th_ref_softmax(b, 2, th_in_spec[TH_B].shape, 1, ref); CHECK_ALLCLOSE(v, ref, 120000, 1e-9, 1e-5); }
    v = TH_KEEP(c, s, "softmax(C3,1)", tt_softmax(c, T[TH_C3], 1));
    if (check && v) { th_ref_softmax(c3, 3, th_in_spec[TH_C3].shape, 1, ref); CHECK_ALLCLOSE(v, ref, 120000, 1e-9, 1e-5); }
    v = TH_KEEP(c, s, "softmax(A^T,0)", tt_softmax(c, AT, 0));
    if (check && v) {
        int64_t st[2] = {17, 6000};
        th_ref_softmax(at, 2, st, 0, ref);
        CHECK_ALLCLOSE(v, ref, 102000, 1e-9, 1e-5);
    }

    /* ---- matmul */
    v = TH_KEEP(c, s, "matmul 300x500x200", tt_matmul(c, T[TH_MA], T[TH_MB]));
    if (check && v) { th_ref_matmul(D->d[TH_MA], 500, 1, D->d[TH_MB], 200, 1, 300, 500, 200, ref, ab); CHECK_SUM("matmul", v, ref, ab, 60000, 1e-6); }
    v = TH_KEEP(c, s, "matmul a^T", tt_matmul(c, MAV, T[TH_MB]));
    if (check && v) { th_ref_matmul(D->d[TH_MAT], 1, 120, D->d[TH_MB], 200, 1, 120, 500, 200, ref, ab); CHECK_SUM("matmul a^T", v, ref, ab, 24000, 1e-6); }
    v = TH_KEEP(c, s, "matmul b^T", tt_matmul(c, tt_slice(c, T[TH_MA], 0, 0, 120, 1), MBV));
    if (check && v) { th_ref_matmul(D->d[TH_MA], 500, 1, D->d[TH_MBT], 1, 500, 120, 500, 200, ref, ab); CHECK_SUM("matmul b^T", v, ref, ab, 24000, 1e-6); }
    v = TH_KEEP(c, s, "matmul [4,33,70]x[70,50]", tt_matmul(c, T[TH_BA], T[TH_BB]));
    if (check && v) {
        for (k = 0; k < 4; k++)
            th_ref_matmul(D->d[TH_BA] + k * 33 * 70, 70, 1, D->d[TH_BB], 50, 1, 33, 70, 50, ref + k * 33 * 50, ab + k * 33 * 50);
        CHECK_SUM("batched matmul (broadcast b)", v, ref, ab, 4 * 33 * 50, 1e-6);
    }
    v = TH_KEEP(c, s, "matmul [4,33,70]x[4,70,50]", tt_matmul(c, T[TH_BA], T[TH_BB4]));
    if (check && v) {
        for (k = 0; k < 4; k++)
            th_ref_matmul(D->d[TH_BA] + k * 33 * 70, 70, 1, D->d[TH_BB4] + k * 70 * 50, 50, 1, 33, 70, 50,
                          ref + k * 33 * 50, ab + k * 33 * 50);
        CHECK_SUM("batched matmul", v, ref, ab, 4 * 33 * 50, 1e-6);
    }
    v = TH_KEEP(c, s, "matmul M=1 [1,500]x[500,200]", tt_matmul(c, MA1, T[TH_MB]));
    if (check && v) { th_ref_matmul(D->d[TH_MA] + 7 * 500, 500, 1, D->d[TH_MB], 200, 1, 1, 500, 200, ref, ab); CHECK_SUM("matmul M=1", v, ref, ab, 200, 1e-6); }
    v = TH_KEEP(c, s, "matmul [100]x[100,2100]", tt_matmul(c, T[TH_V100], T[TH_MB2]));
    if (check && v) {
        CHECK(s->r[s->n - 1].ndim == 1 && s->r[s->n - 1].shape[0] == 2100);
        th_ref_matmul(D->d[TH_V100], 100, 1, D->d[TH_MB2], 2100, 1, 1, 100, 2100, ref, ab);
        CHECK_SUM("matmul 1-D x wide", v, ref, ab, 2100, 1e-6);
    }
    v = TH_KEEP(c, s, "matmul strided rows", tt_matmul(c, MAS, T[TH_MB]));
    if (check && v) { th_ref_matmul(D->d[TH_MA] + 5 * 500, 100 * 500, 1, D->d[TH_MB], 200, 1, 3, 500, 200, ref, ab); CHECK_SUM("matmul strided", v, ref, ab, 600, 1e-6); }

    /* ---- linear: weight [300,256] */
    v = TH_KEEP(c, s, "linear batch 1", tt_linear(c, T[TH_X1], T[TH_W], T[TH_BIAS]));
    if (check && v) {
        th_ref_matmul(D->d[TH_X1], 256, 1, D->d[TH_W], 1, 256, 1, 256, 300, ref, ab);
        for (j = 0; j < 300; j++) { ref[j] += D->d[TH_BIAS][j]; ab[j] += fabs(D->d[TH_BIAS][j]); }
        CHECK_SUM("linear batch 1", v, ref, ab, 300, 1e-6);
    }
    v = TH_KEEP(c, s, "linear batch 64", tt_linear(c, T[TH_X64], T[TH_W], T[TH_BIAS]));
    if (check && v) {
        th_ref_matmul(D->d[TH_X64], 256, 1, D->d[TH_W], 1, 256, 64, 256, 300, ref, ab);
        for (i = 0; i < 64; i++)
            for (j = 0; j < 300; j++) { ref[i * 300 + j] += D->d[TH_BIAS][j]; ab[i * 300 + j] += fabs(D->d[TH_BIAS][j]); }
        CHECK_SUM("linear batch 64", v, ref, ab, 64 * 300, 1e-6);
    }
    v = TH_KEEP(c, s, "linear on A^T rows, no bias", tt_linear(c, tt_slice(c, MAV, 1, 0, 256, 1), T[TH_W], NULL));
    if (check && v) {
        th_ref_matmul(D->d[TH_MAT], 1, 120, D->d[TH_W], 1, 256, 120, 256, 300, ref, ab);
        CHECK_SUM("linear on a view", v, ref, ab, 120 * 300, 1e-6);
    }

    /* ---- conv2d */
    v = TH_KEEP(c, s, "conv2d 3->20 32x32 pad 1", tt_conv2d(c, T[TH_IMG], T[TH_CW], T[TH_CB], 1, 1, 1, 1));
    if (check && v) {
        th_ref_conv2d(D->d[TH_IMG], 2, 3, 32, 32, D->d[TH_CW], 20, 3, 3, D->d[TH_CB], 1, 1, 1, 1, ref, ab);
        CHECK_SUM("conv2d", v, ref, ab, 2 * 20 * 32 * 32, 1e-6);
    }
    v = TH_KEEP(c, s, "conv2d stride 2 dil 2", tt_conv2d(c, T[TH_IMG], T[TH_CW], T[TH_CB], 2, 0, 2, 1));
    if (check && v) {
        th_ref_conv2d(D->d[TH_IMG], 2, 3, 32, 32, D->d[TH_CW], 20, 3, 3, D->d[TH_CB], 2, 0, 2, 1, ref, ab);
        CHECK_SUM("conv2d stride 2", v, ref, ab, 2 * 20 * 14 * 14, 1e-6);
    }
    v = TH_KEEP(c, s, "conv2d groups 2 5x5 40x40", tt_conv2d(c, T[TH_IMG2], T[TH_CW2], NULL, 1, 2, 1, 2));
    if (check && v) {
        th_ref_conv2d(D->d[TH_IMG2], 1, 4, 40, 40, D->d[TH_CW2], 6, 5, 5, NULL, 1, 2, 1, 2, ref, ab);
        CHECK_SUM("conv2d groups", v, ref, ab, 6 * 40 * 40, 1e-6);
    }
    {   /* depthwise (groups = channels, multiplier 1): the first input channel of each of
           TH_CW2's first 4 filters, i.e. a [4,1,5,5] view */
        tt_tensor *dw = tt_slice(c, tt_slice(c, T[TH_CW2], 0, 0, 4, 1), 1, 0, 1, 1);
        double wd[4 * 25];
        for (i = 0; i < 4 * 25; i++) wd[i] = D->d[TH_CW2][(i / 25) * 50 + i % 25];
        v = TH_KEEP(c, s, "conv2d depthwise 5x5 40x40", tt_conv2d(c, T[TH_IMG2], dw, NULL, 1, 2, 1, 4));
        if (check && v) {
            th_ref_conv2d(D->d[TH_IMG2], 1, 4, 40, 40, wd, 4, 5, 5, NULL, 1, 2, 1, 4, ref, ab);
            CHECK_SUM("conv2d depthwise", v, ref, ab, 4 * 40 * 40, 1e-6);
        }
    }
    v = TH_KEEP(c, s, "max_pool2d 3 stride 2 pad 1", tt_max_pool2d(c, T[TH_IMG], 3, 2, 1));
    if (check && v) {                                  /* [2,3,32,32] -> [2,3,16,16] */
        int64_t p, oh, ow, kh, kw;
        for (p = 0; p < 6; p++)
            for (oh = 0; oh < 16; oh++)
                for (ow = 0; ow < 16; ow++) {
                    double m = -INFINITY;
                    for (kh = 0; kh < 3; kh++)
                        for (kw = 0; kw < 3; kw++) {
                            int64_t ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                            if (ih >= 0 && ih < 32 && iw >= 0 && iw < 32 && D->d[TH_IMG][(p * 32 + ih) * 32 + iw] > m)
                                m = D->d[TH_IMG][(p * 32 + ih) * 32 + iw];
                        }
                    ref[(p * 16 + oh) * 16 + ow] = m;
                }
        CHECK_ALLCLOSE(v, ref, 6 * 16 * 16, 0, 0);
    }
    v = TH_KEEP(c, s, "layer_norm(C3 rows of 60)", tt_layer_norm(c, T[TH_C3], 1, NULL, NULL, 1e-5f));
    if (check && v) {
        for (i = 0; i < 2000; i++) {
            double mean = 0, var = 0;
            int64_t k;
            for (k = 0; k < 60; k++) mean += c3[i * 60 + k];
            mean /= 60;
            for (k = 0; k < 60; k++) var += (c3[i * 60 + k] - mean) * (c3[i * 60 + k] - mean);
            for (k = 0; k < 60; k++) ref[i * 60 + k] = (c3[i * 60 + k] - mean) / sqrt(var / 60 + 1e-5);
        }
        CHECK_ALLCLOSE(v, ref, 120000, 1e-5, 1e-5);
    }
    {   /* attention on [2,3,100,200] views of TH_B (rows past one query block and one key block) */
        int64_t qs[4] = {2, 3, 100, 200};
        tt_tensor *qk = tt_reshape(c, T[TH_B], 4, qs);
        v = TH_KEEP(c, s, "attention causal 100x100",
                    tt_scaled_dot_product_attention(c, qk, tt_mul_scalar(c, qk, 0.02f), qk, NULL, true, 0.0f));
        if (check && v) {                              /* causal softmax(q kᵀ/sqrt(200)) v, k = q*0.02 (scores of order 1), v = q, in double */
            int64_t bh, qi, kj, e;
            for (bh = 0; bh < 6; bh++)
                for (qi = 0; qi < 100; qi++) {
                    const double *qrow = b + (bh * 100 + qi) * 200;
                    double sc[100], mx = -INFINITY, sum = 0;
                    for (kj = 0; kj <= qi; kj++) {
                        const double *krow = b + (bh * 100 + kj) * 200;
                        double d = 0;
                        for (e = 0; e < 200; e++) d += qrow[e] * (double)((float)krow[e] * 0.02f);
                        sc[kj] = d / sqrt(200.0);
                        if (sc[kj] > mx) mx = sc[kj];
                    }
                    for (kj = 0; kj <= qi; kj++) { sc[kj] = exp(sc[kj] - mx); sum += sc[kj]; }
                    for (e = 0; e < 200; e++) {
                        double o = 0;
                        for (kj = 0; kj <= qi; kj++) o += sc[kj] * b[(bh * 100 + kj) * 200 + e];
                        ref[(bh * 100 + qi) * 200 + e] = o / sum;
                    }
                }
            CHECK_ALLCLOSE(v, ref, 120000, 1e-5, 1e-4);
        }
    }
    free(at);
    free(a2t);
}

/* ------------------------------------------------------ 1. eager, n threads ---- */

static void test_eager_bitwise(void) {
    static const int counts[] = {1, 2, 3, 4, 7, 0};
    th_data D;
    th_set ref, got;
    size_t t;
    th_data_make(&D);
    th_set_init(&ref);
    th_set_init(&got);
    for (t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        int n = counts[t];
        tt_ctx *c;
        char label[64];
        if (TH_SANITIZED && (n == 2 || n == 4 || n == 0)) continue;
        c = th_ctx(n, NULL, NULL);
        CHECK(c != NULL);
        if (!c) continue;
        if (n > 0) CHECK_EQ_INT(tt_ctx_num_threads(c), n);
        else CHECK(tt_ctx_num_threads(c) >= 1);          /* 0: the online cores */
        if (n == 1) {
            th_eager_suite(c, &D, &ref, 1);
        } else {
            th_eager_suite(c, &D, &got, 0);
            snprintf(label, sizeof label, "n_threads=%d", n);
            CHECK_SAME_SET(&ref, &got, label);
            th_set_free(&got);
        }
        if (n == 3) {          /* again on the same context: the pool reused, inside a scope */
            size_t used0 = tt_ctx_used(c);
            tt_scope sc = tt_scope_begin(c);
            th_eager_suite(c, &D, &got, 0);
            tt_scope_end(c, sc);
            CHECK(tt_ctx_used(c) <= used0);
            CHECK_SAME_SET(&ref, &got, "n_threads=3, second run in a scope");
            th_set_free(&got);
        }
        CHECK_GUARDS(c);
        CHECK_NO_ERROR(c);
        tt_ctx_destroy(c);
    }
    th_set_free(&ref);
    th_data_free(&D);
}

/* ------------------------------------------------------------- 2. graphs ---- */

enum { THG_X, THG_IMG, THG_Z, THG_X2, THG_IMG2, THG_Z2,
       THG_W1, THG_B1, THG_W2, THG_B2, THG_CW, THG_CB, THG_CS, THG_ZROW, THG_N };

static const th_spec th_g_spec[THG_N] = {
    {2, {64, 96, 0, 0}, -1, 1},        /* x (example input) */
    {4, {2, 3, 32, 32}, -1, 1},        /* img */
    {2, {300, 400, 0, 0}, -3, 3},      /* z: 120000 elements, a fused chain of many tasks */
    {2, {64, 96, 0, 0}, -1, 1},        /* the inputs of the runs */
    {4, {2, 3, 32, 32}, -1, 1},
    {2, {300, 400, 0, 0}, -3, 3},
    {2, {128, 96, 0, 0}, -0.2, 0.2},   /* w1 */
    {1, {128, 0, 0, 0}, -0.2, 0.2},    /* b1 */
    {2, {40, 128, 0, 0}, -0.2, 0.2},   /* w2 */
    {1, {40, 0, 0, 0}, -0.2, 0.2},     /* b2 */
    {4, {20, 3, 3, 3}, -0.5, 0.5},     /* cw */
    {1, {20, 0, 0, 0}, -0.5, 0.5},     /* cb */
    {3, {20, 1, 1, 0}, -1, 1},         /* cs: a per-channel shift */
    {1, {400, 0, 0, 0}, -1, 1}         /* zrow */
};

#define THG_NOUT 5

typedef struct th_model { tt_tensor *w1, *b1, *w2, *b2, *cw, *cb, *cs, *zrow; } th_model;

/* MLP (linear + gelu epilogues), conv + an elementwise tail, an elementwise chain with a
   broadcast row, a column sum and a softmax over a middle axis. */
static int th_forward(tt_ctx *c, tt_tensor *const *in, const th_model *m, tt_tensor **out) {
    int axis0 = 0;
    int64_t s3[3] = {30, 10, 400};
    tt_tensor *h = tt_gelu(c, tt_linear(c, in[0], m->w1, m->b1));
    tt_tensor *cv = tt_conv2d(c, in[1], m->cw, m->cb, 1, 1, 1, 1);
    tt_tensor *z = in[2];
    out[0] = tt_tanh(c, tt_mul_scalar(c, tt_linear(c, h, m->w2, m->b2), 0.5f));
    out[1] = tt_add(c, tt_mul(c, tt_relu(c, cv), tt_sigmoid(c, tt_add_scalar(c, cv, 0.5f))), m->cs);
    out[2] = tt_add(c, tt_mul_scalar(c, tt_exp(c, tt_mul_scalar(c, z, 0.1f)), 2.0f), tt_mul(c, tt_tanh(c, z), m->zrow));
    out[3] = tt_sum(c, out[2], &axis0, 1, false);
    out[4] = tt_softmax(c, tt_reshape(c, out[2], 3, s3), 1);
    return THG_NOUT;
}

typedef struct th_gdata {
    double    *d[THG_N];
    tt_ctx    *wc;                 /* parameters and run inputs (1 thread), alive all test long */
    tt_tensor *t[THG_N];
    th_model   m;
} th_gdata;

static void th_gdata_make(th_gdata *G) {
    int i;
    G->wc = th_ctx(1, NULL, NULL);
    for (i = 0; i < THG_N; i++) {
        int64_t n = tu_numel(th_g_spec[i].ndim, th_g_spec[i].shape);
        G->d[i] = (double *)malloc(sizeof(double) * (size_t)n);
        tu_uniform(G->d[i], n, 5000u + (unsigned)i, th_g_spec[i].lo, th_g_spec[i].hi);
        G->t[i] = tu_tensor(G->wc, th_g_spec[i].ndim, th_g_spec[i].shape, G->d[i]);
        CHECK(G->t[i] != NULL);
    }
    G->m.w1 = G->t[THG_W1]; G->m.b1 = G->t[THG_B1]; G->m.w2 = G->t[THG_W2]; G->m.b2 = G->t[THG_B2];
    G->m.cw = G->t[THG_CW]; G->m.cb = G->t[THG_CB]; G->m.cs = G->t[THG_CS]; G->m.zrow = G->t[THG_ZROW];
}

static void th_gdata_free(th_gdata *G) {
    int i;
    for (i = 0; i < THG_N; i++) free(G->d[i]);
    tt_ctx_destroy(G->wc);
}

/* Loose double references of the model's outputs on the run inputs. */
static void th_check_model_refs(const th_gdata *G, const th_set *s) {
    const double *x = G->d[THG_X2], *img = G->d[THG_IMG2], *z = G->d[THG_Z2];
    double *h = (double *)malloc(sizeof(double) * 64 * 128), *ab = (double *)malloc(sizeof(double) * 120000);
    double *r = (double *)malloc(sizeof(double) * 120000), *o2 = (double *)malloc(sizeof(double) * 120000);
    int64_t i, j, k;
    if (s->n != THG_NOUT || !s->r[0].v || !s->r[1].v || !s->r[2].v || !s->r[3].v || !s->r[4].v) {
        CHECK(!"model outputs missing");
    } else {
        th_ref_matmul(x, 96, 1, G->d[THG_W1], 1, 96, 64, 96, 128, h, ab);
        for (i = 0; i < 64 * 128; i++) h[i] = th_gelu(h[i] + G->d[THG_B1][i % 128]);
        th_ref_matmul(h, 128, 1, G->d[THG_W2], 1, 128, 64, 128, 40, r, ab);
        for (i = 0; i < 64 * 40; i++) r[i] = tanh(0.5 * (r[i] + G->d[THG_B2][i % 40]));
        CHECK_ALLCLOSE(s->r[0].v, r, 64 * 40, 1e-5, 1e-4);
        th_ref_conv2d(img, 2, 3, 32, 32, G->d[THG_CW], 20, 3, 3, G->d[THG_CB], 1, 1, 1, 1, r, ab);
        for (i = 0; i < 2 * 20 * 1024; i++) {
            double cv = r[i];
            r[i] = (cv > 0 ? cv : 0) * th_sigmoid(cv + 0.5) + G->d[THG_CS][(i / 1024) % 20];
        }
        CHECK_ALLCLOSE(s->r[1].v, r, 2 * 20 * 1024, 1e-5, 1e-4);
        for (i = 0; i < 120000; i++) o2[i] = 2.0 * exp(0.1 * z[i]) + tanh(z[i]) * G->d[THG_ZROW][i % 400];
        CHECK_ALLCLOSE(s->r[2].v, o2, 120000, 1e-5, 1e-5);
        for (j = 0; j < 400; j++) {
            double sum = 0, a = 0;
            for (k = 0; k < 300; k++) { sum += o2[k * 400 + j]; a += fabs(o2[k * 400 + j]); }
            r[j] = sum; ab[j] = a;
        }
        CHECK_SUM("model sum", s->r[3].v, r, ab, 400, 1e-5);
        {
            int64_t s3[3] = {30, 10, 400};
            th_ref_softmax(o2, 3, s3, 1, r);
            CHECK_ALLCLOSE(s->r[4].v, r, 120000, 1e-7, 1e-4);
        }
    }
    free(h); free(ab); free(r); free(o2);
}

/* The model run eagerly on the run inputs on context c. */
static void th_model_eager(tt_ctx *c, th_gdata *G, th_set *s) {
    tt_tensor *in[3], *out[THG_NOUT];
    int i;
    in[0] = G->t[THG_X2]; in[1] = G->t[THG_IMG2]; in[2] = G->t[THG_Z2];
    CHECK_EQ_INT(th_forward(c, in, &G->m, out), THG_NOUT);
    for (i = 0; i < THG_NOUT; i++) TH_KEEP(c, s, "model output", out[i]);
}

/* Traces the model on a fresh context of n_threads (and hook), destroys that context,
   compiles, runs twice and in REDUCE_OVERHEAD mode; s gets the first run's outputs, traced
   the eager outputs of the trace (example inputs, on the n-thread context). */
static void th_model_graph(int n_threads, void (*hook)(void (*)(void *, int64_t, int), void *, int64_t, void *),
                           void *user, th_gdata *G, th_set *s, th_set *traced) {
    tt_ctx *c = th_ctx(n_threads, hook, user);
    tt_tensor *ex[3], *run_in[3], *out[THG_NOUT];
    tt_graph *g;
    th_set again;
    int i;
    char label[96];
    th_set_init(&again);
    CHECK(c != NULL);
    if (!c) return;
    CHECK_EQ_INT(tt_ctx_num_threads(c), n_threads);
    for (i = 0; i < 3; i++) {
        ex[i] = tu_tensor(c, th_g_spec[i].ndim, th_g_spec[i].shape, G->d[i]);
        run_in[i] = G->t[THG_X2 + i];
    }
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    for (i = 0; i < 3; i++) tt_trace_input(c, ex[i], i == 0 ? "x" : i == 1 ? "img" : "z");
    CHECK_EQ_INT(th_forward(c, ex, &G->m, out), THG_NOUT);
    for (i = 0; i < THG_NOUT; i++) TH_KEEP(c, traced, "traced eager output", out[i]);
    g = tt_trace_end(c, out, THG_NOUT);
    CHECK(g != NULL);
    if (!g) { printf("    trace failed: %s\n", tt_error(c) ? tt_error(c) : ""); tt_ctx_destroy(c); return; }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);                             /* the graph keeps the thread settings */

    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    {
        tt_graph_stats st = tt_graph_get_stats(g);
        CHECK(st.fused_nodes >= 1);
        CHECK(st.nodes < st.nodes_traced);
    }
    CHECK_EQ_INT(tt_graph_run(g, run_in, 3), TT_OK);
    if (tt_graph_error(g)) printf("    graph error: %s\n", tt_graph_error(g));
    for (i = 0; i < THG_NOUT; i++) TH_KEEP(G->wc, s, "graph output", tt_graph_output(g, i));
    CHECK_EQ_INT(tt_graph_run(g, run_in, 3), TT_OK);
    for (i = 0; i < THG_NOUT; i++) TH_KEEP(G->wc, &again, "graph output", tt_graph_output(g, i));
    snprintf(label, sizeof label, "graph, n_threads=%d%s, second run", n_threads, hook ? " (hook)" : "");
    CHECK_SAME_SET(s, &again, label);
    th_set_free(&again);

    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, (unsigned)TT_PASS_ALL), TT_OK);
    CHECK_EQ_INT(tt_graph_bind(g, run_in, 3), TT_OK);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
    for (i = 0; i < THG_NOUT; i++) TH_KEEP(G->wc, &again, "graph output", tt_graph_output(g, i));
    snprintf(label, sizeof label, "graph, n_threads=%d%s, REDUCE_OVERHEAD", n_threads, hook ? " (hook)" : "");
    CHECK_SAME_SET(s, &again, label);
    th_set_free(&again);
    CHECK_EQ_INT(tt_graph_status(g), TT_OK);
    tt_graph_destroy(g);
    CHECK_GUARDS(G->wc);
}

static void test_graph_bitwise(void) {
    static const int counts[] = {1, 2, 3, 4, 7};
    th_gdata G;
    th_set eager, tr1, ref, got, trn;
    size_t t;
    tt_ctx *e1;
    th_gdata_make(&G);
    th_set_init(&eager); th_set_init(&tr1); th_set_init(&ref); th_set_init(&got); th_set_init(&trn);
    e1 = th_ctx(1, NULL, NULL);
    th_model_eager(e1, &G, &eager);
    th_check_model_refs(&G, &eager);
    for (t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        int n = counts[t];
        char label[64];
        if (n == 1) {
            th_model_graph(1, NULL, NULL, &G, &ref, &tr1);
            CHECK_SAME_SET(&eager, &ref, "graph (1 thread) vs eager");
        } else {
            th_model_graph(n, NULL, NULL, &G, &got, &trn);
            snprintf(label, sizeof label, "graph, n_threads=%d", n);
            CHECK_SAME_SET(&ref, &got, label);
            CHECK_SAME_SET(&eager, &got, label);
            snprintf(label, sizeof label, "eager during the trace, n_threads=%d", n);
            CHECK_SAME_SET(&tr1, &trn, label);
            th_set_free(&got);
            th_set_free(&trn);
        }
    }
    /* and eager on a 4-thread context equals eager on 1 */
    {
        tt_ctx *e4 = th_ctx(4, NULL, NULL);
        th_model_eager(e4, &G, &got);
        CHECK_SAME_SET(&eager, &got, "model eager, 4 threads");
        th_set_free(&got);
        tt_ctx_destroy(e4);
    }
    tt_ctx_destroy(e1);
    th_set_free(&eager); th_set_free(&tr1); th_set_free(&ref);
    th_gdata_free(&G);
}

/* -------------------------------------------------------- 3. the hook ---- */

typedef struct th_hook {
    int     n_threads;
    int     calls;
    int64_t tasks;
    int     bad;                   /* thread ids out of range, or n_tasks <= 1 */
} th_hook;

/* Runs the tasks serially in reverse order, thread ids cycling 0..n_threads-1. */
static void th_reverse_hook(void (*task)(void *, int64_t, int), void *arg, int64_t n_tasks, void *user) {
    th_hook *h = (th_hook *)user;
    int64_t i;
    int thread = 0;
    h->calls++;
    h->tasks += n_tasks;
    if (n_tasks < 1) h->bad++;
    for (i = n_tasks - 1; i >= 0; i--) {
        if (thread < 0 || thread >= h->n_threads) h->bad++;
        task(arg, i, thread);
        thread = (thread + 1) % h->n_threads;
    }
}

static void test_hook_reverse(void) {
    th_data D;
    th_set ref, got;
    th_hook hk;
    tt_ctx *c1, *c;
    hk.n_threads = 3; hk.calls = 0; hk.tasks = 0; hk.bad = 0;
    th_data_make(&D);
    th_set_init(&ref);
    th_set_init(&got);
    c1 = th_ctx(1, NULL, NULL);
    c = th_ctx(3, th_reverse_hook, &hk);
    CHECK(c1 != NULL && c != NULL);
    if (c1 && c) {
        CHECK_EQ_INT(tt_ctx_num_threads(c), 3);
        th_eager_suite(c1, &D, &ref, 0);
        th_eager_suite(c, &D, &got, 0);
        CHECK_SAME_SET(&ref, &got, "reverse-order hook, 3 thread ids");
        CHECK(hk.calls >= 20);           /* nearly every op above makes several tasks */
        CHECK(hk.tasks > hk.calls);
        CHECK_EQ_INT(hk.bad, 0);
        CHECK_GUARDS(c);
    }
    tt_ctx_destroy(c1);
    tt_ctx_destroy(c);
    th_set_free(&ref);
    th_set_free(&got);
    th_data_free(&D);
}

/* A graph traced on a context with the hook runs its kernels through the hook too. */
static void test_hook_graph(void) {
    th_gdata G;
    th_set eager, gs, tr;
    th_hook hk;
    tt_ctx *e1;
    int calls_after_trace;
    hk.n_threads = 3; hk.calls = 0; hk.tasks = 0; hk.bad = 0;
    th_gdata_make(&G);
    th_set_init(&eager); th_set_init(&gs); th_set_init(&tr);
    e1 = th_ctx(1, NULL, NULL);
    th_model_eager(e1, &G, &eager);
    th_check_model_refs(&G, &eager);
    th_model_graph(3, th_reverse_hook, &hk, &G, &gs, &tr);
    CHECK_SAME_SET(&eager, &gs, "graph with the reverse hook vs eager");
    CHECK(hk.calls > 0);
    CHECK_EQ_INT(hk.bad, 0);
    /* the graph's own runs call the hook (not just the eager ops of the trace) */
    {
        tt_ctx *c = th_ctx(3, th_reverse_hook, &hk);
        tt_tensor *x = NULL, *y, *z2 = G.t[THG_Z2];
        tt_graph *g;
        if (c) x = tu_tensor(c, 2, th_g_spec[THG_Z].shape, G.d[THG_Z]);
        CHECK(c && x);
        if (c && x) {
            CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
            tt_trace_input(c, x, "z");
            y = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, x, 0.7f), 0.2f));
            g = tt_trace_end(c, &y, 1);
            CHECK(g != NULL);
            tt_ctx_destroy(c);
            c = NULL;
            if (g) {
                tt_tensor *want = tt_tanh(e1, tt_add_scalar(e1, tt_mul_scalar(e1, z2, 0.7f), 0.2f));
                th_set a, b;
                th_set_init(&a); th_set_init(&b);
                CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
                calls_after_trace = hk.calls;
                CHECK_EQ_INT(tt_graph_run(g, &z2, 1), TT_OK);
                CHECK(hk.calls > calls_after_trace);
                TH_KEEP(e1, &a, "fused chain", want);
                TH_KEEP(G.wc, &b, "fused chain", tt_graph_output(g, 0));
                CHECK_SAME_SET(&a, &b, "fused chain through the hook vs eager");
                th_set_free(&a); th_set_free(&b);
                tt_graph_destroy(g);
            }
        }
        tt_ctx_destroy(c);
    }
    CHECK_EQ_INT(hk.bad, 0);
    tt_ctx_destroy(e1);
    th_set_free(&eager); th_set_free(&gs); th_set_free(&tr);
    th_gdata_free(&G);
}

/* ------------------------------------------------------- 4. lifetimes ---- */

typedef struct th_counting { long live, total; } th_counting;

static void *th_count_alloc(size_t size, void *user) {
    th_counting *k = (th_counting *)user;
    void *p = malloc(size);
    if (p) { k->live++; k->total++; }
    return p;
}
static void th_count_free(void *p, void *user) {
    th_counting *k = (th_counting *)user;
    if (p) k->live--;
    free(p);
}

static void test_many_contexts(void) {
    int64_t shape[2] = {3, 40000}, small = 10;
    double *vals = (double *)malloc(sizeof(double) * 120000), sv[10];
    float *want = NULL;
    int i;
    tu_uniform(vals, 120000, 77, -2, 2);
    tu_uniform(sv, 10, 78, -2, 2);
    {   /* the 1-thread answer */
        tt_ctx *c = th_ctx(1, NULL, NULL);
        want = tu_values(c, tt_exp(c, tu_tensor(c, 2, shape, vals)));
        CHECK(want != NULL);
        tt_ctx_destroy(c);
    }
    for (i = 0; i < 50; i++) {
        int n = 2 + i % 6;
        tt_ctx *c = th_ctx(n, NULL, NULL);
        CHECK(c != NULL);
        if (!c) continue;
        CHECK_EQ_INT(tt_ctx_num_threads(c), n);
        switch (i % 4) {
        case 0: case 2: {                            /* many tasks: the pool is made */
            float *got = tu_values(c, tt_exp(c, tu_tensor(c, 2, shape, vals)));
            CHECK(got && want && memcmp(got, want, sizeof(float) * 120000) == 0);
            free(got);
            CHECK_GUARDS(c);
            break;
        }
        case 1:                                      /* never runs a kernel */
            break;
        default: {                                   /* only single-task kernels */
            tt_tensor *x = tu_tensor(c, 1, &small, sv);
            float *got = tu_values(c, tt_exp(c, x));
            int k;
            CHECK(got != NULL);
            for (k = 0; got && k < 10; k++) CHECK_NEAR(got[k], exp(sv[k]), 1e-6, 2e-6);
            free(got);
            CHECK_GUARDS(c);
            break;
        }
        }
        tt_ctx_destroy(c);
    }
    {   /* a context that never did anything at all, with many threads */
        tt_ctx *c = th_ctx(7, NULL, NULL);
        CHECK(c != NULL);
        tt_ctx_destroy(c);
    }
    free(want);
    free(vals);
}

/* Several threaded contexts alive at once, used in turn, destroyed in mixed order. */
static void test_pools_side_by_side(void) {
    int64_t shape[2] = {200, 700};
    double *vals = (double *)malloc(sizeof(double) * 140000);
    tt_ctx *cs[6];
    float *want = NULL;
    int i, round;
    tu_uniform(vals, 140000, 91, -3, 3);
    {
        tt_ctx *c = th_ctx(1, NULL, NULL);
        want = tu_values(c, tt_softmax(c, tt_tanh(c, tu_tensor(c, 2, shape, vals)), 0));
        CHECK(want != NULL);
        tt_ctx_destroy(c);
    }
    for (i = 0; i < 6; i++) { cs[i] = th_ctx(2 + i, NULL, NULL); CHECK(cs[i] != NULL); }
    for (round = 0; round < 2; round++)
        for (i = 0; i < 6; i++) {
            tt_ctx *c = cs[(i * 5 + round) % 6];
            float *got;
            tt_scope sc;
            if (!c) continue;
            sc = tt_scope_begin(c);
            got = tu_values(c, tt_softmax(c, tt_tanh(c, tu_tensor(c, 2, shape, vals)), 0));
            CHECK(got && want && memcmp(got, want, sizeof(float) * 140000) == 0);
            free(got);
            CHECK_GUARDS(c);
            tt_scope_end(c, sc);
        }
    tt_ctx_destroy(cs[3]); tt_ctx_destroy(cs[0]); tt_ctx_destroy(cs[5]);
    tt_ctx_destroy(cs[1]); tt_ctx_destroy(cs[4]); tt_ctx_destroy(cs[2]);
    free(want);
    free(vals);
}

/* User memory and a counting allocator: the pool is freed with the context, through the
   context's allocator. */
static void test_user_memory_and_allocator(void) {
    int64_t shape[2] = {3, 40000};
    double *vals = (double *)malloc(sizeof(double) * 120000);
    float *want = NULL;
    int i;
    tu_uniform(vals, 120000, 55, -2, 2);
    {
        tt_ctx *c = th_ctx(1, NULL, NULL);
        want = tu_values(c, tt_gelu(c, tu_tensor(c, 2, shape, vals)));
        tt_ctx_destroy(c);
    }
    for (i = 0; i < 3; i++) {                          /* heap arena in the user's buffer */
        size_t size = (size_t)4 << 20;
        void *buf = malloc(size);
        tt_ctx_desc d = tt_ctx_desc_default();
        tt_ctx *c;
        d.mem_buffer = buf;
        d.mem_size = size;
        d.n_threads = 3 + i;
        c = tt_ctx_create(&d);
        CHECK(c != NULL);
        if (c) {
            float *got;
            CHECK_EQ_INT(tt_ctx_num_threads(c), 3 + i);
            got = tu_values(c, tt_gelu(c, tu_tensor(c, 2, shape, vals)));
            CHECK(got && want && memcmp(got, want, sizeof(float) * 120000) == 0);
            free(got);
            CHECK_NO_ERROR(c);
            tt_ctx_destroy(c);
        }
        free(buf);
    }
    for (i = 0; i < 4; i++) {                          /* counting allocator */
        th_counting k;
        tt_ctx_desc d = tt_ctx_desc_default();
        tt_ctx *c;
        k.live = 0; k.total = 0;
        d.allocator.alloc = th_count_alloc;
        d.allocator.free = th_count_free;
        d.allocator.user = &k;
        d.n_threads = 4;
        d.debug_guards = i & 1;
        c = tt_ctx_create(&d);
        CHECK(c != NULL);
        if (c && i < 3) {
            float *got = tu_values(c, tt_gelu(c, tu_tensor(c, 2, shape, vals)));
            CHECK(got && want && memcmp(got, want, sizeof(float) * 120000) == 0);
            free(got);
            CHECK(k.total >= 1);
        }
        tt_ctx_destroy(c);
        CHECK_EQ_INT(k.live, 0);
    }
    free(want);
    free(vals);
}

/* Graphs with threads made and destroyed in a loop, before and after their contexts. */
static void test_graph_lifetimes(void) {
    int64_t shape[2] = {3, 40000};
    double *vals = (double *)malloc(sizeof(double) * 120000);
    float *want = NULL;
    int i;
    tu_uniform(vals, 120000, 66, -2, 2);
    {
        tt_ctx *c = th_ctx(1, NULL, NULL);
        want = tu_values(c, tt_sigmoid(c, tt_mul_scalar(c, tt_exp(c, tu_tensor(c, 2, shape, vals)), 0.5f)));
        tt_ctx_destroy(c);
    }
    for (i = 0; i < 8; i++) {
        tt_ctx *c = th_ctx(2 + i % 4, NULL, NULL);
        tt_tensor *x, *y;
        tt_graph *g;
        if (!c) { CHECK(c != NULL); continue; }
        x = tu_tensor(c, 2, shape, vals);
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, x, "x");
        y = tt_sigmoid(c, tt_mul_scalar(c, tt_exp(c, x), 0.5f));
        g = tt_trace_end(c, &y, 1);
        CHECK(g != NULL);
        if (g && i % 3 != 2) {                          /* i % 3 == 2: destroyed without compiling */
            float *got;
            CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
            if (i % 2) {                                /* compiled but never run */
                tt_graph_destroy(g);
                g = NULL;
            } else {
                CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
                got = tu_values(c, tt_graph_output(g, 0));
                CHECK(got && want && memcmp(got, want, sizeof(float) * 120000) == 0);
                free(got);
            }
        }
        if (i % 2) { tt_graph_destroy(g); tt_ctx_destroy(c); }
        else { tt_ctx_destroy(c); tt_graph_destroy(g); }
    }
    free(want);
    free(vals);
}

TT_TEST_GROUP(threads) = {
    {"eager_bitwise_1_2_3_4_7_default", test_eager_bitwise},
    {"graph_bitwise_and_vs_eager", test_graph_bitwise},
    {"hook_reverse_order", test_hook_reverse},
    {"hook_graph", test_hook_graph},
    {"many_contexts", test_many_contexts},
    {"pools_side_by_side", test_pools_side_by_side},
    {"user_memory_and_allocator", test_user_memory_and_allocator},
    {"graph_lifetimes", test_graph_lifetimes},
    {NULL, NULL}
};
