/* test_reduce.c - reductions (sum, mean, max, min, prod, var, std), argmax/argmin, softmax and
   log_softmax, each checked against references written here with plain loops in double.

   The logical values of every input (views included) are computed by the test itself: a small
   view model (tu_view in test_util.h: shape, strides, offset over the contiguous base) mirrors
   tt_transpose, tt_permute, tt_slice and tt_expand, so the references never read data through
   the library. */
#include "test_util.h"
#include <stdio.h>

/* ---- comparison helpers ---------------------------------------------------- */
static int tr_isclose(double got, double want, double atol, double rtol) {
    if (want != want) return got != got;
    if (want > 1e308 || want < -1e308) return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Every got[i] within atol[i] + rtol*|want[i]|; prints the first mismatch. */
static int tr_close(const float *got, const double *want, const double *atol, int64_t n, double rtol) {
    int64_t i, bad = 0, first = -1;
    if (!got) { printf("      values: NULL\n"); return 0; }
    for (i = 0; i < n; i++)
        if (!tr_isclose((double)got[i], want[i], atol[i], rtol)) { if (first < 0) first = i; bad++; }
    if (bad == 0) return 1;
    printf("      %lld of %lld values differ; first at [%lld]: got %.9g, expected %.9g (atol %g, rtol %g)\n",
           (long long)bad, (long long)n, (long long)first, (double)got[first], want[first], atol[first], rtol);
    return 0;
}

/* ---- reductions: reference -------------------------------------------------- */
enum { TR_SUM, TR_MEAN, TR_MAX, TR_MIN, TR_PROD, TR_VAR, TR_STD };
static const char *const tr_names[] = { "tt_sum", "tt_mean", "tt_max", "tt_min", "tt_prod", "tt_var", "tt_std" };

static tt_tensor *tr_call(tt_ctx *c, int op, int corr, tt_tensor *x, const int *axes, int n, bool keep) {
    switch (op) {
    case TR_SUM:  return tt_sum(c, x, axes, n, keep);
    case TR_MEAN: return tt_mean(c, x, axes, n, keep);
    case TR_MAX:  return tt_max(c, x, axes, n, keep);
    case TR_MIN:  return tt_min(c, x, axes, n, keep);
    case TR_PROD: return tt_prod(c, x, axes, n, keep);
    case TR_VAR:  return tt_var(c, x, axes, n, corr, keep);
    default:      return tt_std(c, x, axes, n, corr, keep);
    }
}

/* Reduce x (row-major, shape) over the axes with red[d] != 0; want/atol get one entry per kept
   element (row-major over the kept axes). Tolerances:
     sum:  1e-6 * sum|terms| (+ rtol 1e-5 at the call)     mean: the same divided by N
     max/min: exact                                         prod: rtol (N-1)*2^-24 + 1e-5 (error bound)
     var:  rtol 1e-5 + 1e-6 * sum (x-mean)^2 / (N-corr) + N*dm^2/(N-corr), dm = the mean's atol
     std:  that error propagated through sqrt */
static void tr_ref_reduce(int op, int corr, const double *x, int nd, const int64_t *shape,
                          const int *red, double *want, double *atol, double *rtol) {
    int64_t n = tu_numel(nd, shape), nout = 1, ostride[TU_MAXD], idx[TU_MAXD], i, o, cnt;
    double *s, *sa, *mx, *mn, *pr, *sq;
    int d;
    for (d = nd - 1; d >= 0; d--) {
        ostride[d] = red[d] ? 0 : nout;
        if (!red[d]) nout *= shape[d];
    }
    s  = (double *)calloc((size_t)nout, sizeof(double));
    sa = (double *)calloc((size_t)nout, sizeof(double));
    mx = (double *)malloc(sizeof(double) * (size_t)nout);
    mn = (double *)malloc(sizeof(double) * (size_t)nout);
    pr = (double *)malloc(sizeof(double) * (size_t)nout);
    sq = (double *)calloc((size_t)nout, sizeof(double));
    for (o = 0; o < nout; o++) { mx[o] = -INFINITY; mn[o] = INFINITY; pr[o] = 1.0; }
    cnt = nout > 0 ? n / nout : 0;
    for (d = 0; d < TU_MAXD; d++) idx[d] = 0;
    for (i = 0; i < n; i++) {
        o = 0;
        for (d = 0; d < nd; d++) o += idx[d] * ostride[d];
        s[o] += x[i]; sa[o] += fabs(x[i]);
        if (x[i] > mx[o]) mx[o] = x[i];
        if (x[i] < mn[o]) mn[o] = x[i];
        pr[o] *= x[i];
        for (d = nd - 1; d >= 0; d--) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
    }
    for (d = 0; d < TU_MAXD; d++) idx[d] = 0;
    for (i = 0; i < n; i++) {
        double m;
        o = 0;
        for (d = 0; d < nd; d++) o += idx[d] * ostride[d];
        m = s[o] / (double)cnt;
        sq[o] += (x[i] - m) * (x[i] - m);
        for (d = nd - 1; d >= 0; d--) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
    }
    *rtol = 1e-5;
    for (o = 0; o < nout; o++) {
        switch (op) {
        case TR_SUM:  want[o] = s[o]; atol[o] = 1e-6 * sa[o]; break;
        case TR_MEAN: want[o] = s[o] / (double)cnt; atol[o] = 1e-6 * sa[o] / (double)cnt; break;
        case TR_MAX:  want[o] = mx[o]; atol[o] = 0; break;
        case TR_MIN:  want[o] = mn[o]; atol[o] = 0; break;
        case TR_PROD: want[o] = pr[o]; atol[o] = 0; break;
        default: {
            double den = (double)(cnt - corr), v, av, dm = 1e-6 * sa[o] / (double)cnt;
            if (den <= 0) { want[o] = NAN; atol[o] = 0; break; }   /* 0/0, as in PyTorch */
            v = sq[o] / den;
            /* sum rule on the (x-mean)^2 terms, plus the effect of the mean's own error dm
               (the mean's tolerance): N*dm^2/(N-corr); it matters when the variance is ~0 */
            av = 1e-6 * v + dm * dm * (double)cnt / den;
            if (op == TR_VAR) { want[o] = v; atol[o] = av; }
            else {
                /* |sqrt(v+e) - sqrt(v)| <= min(e / (2 sqrt v), sqrt e), with e = av + 1e-5 v */
                double e = av + 1e-5 * v, sd = sqrt(v);
                want[o] = sd;
                atol[o] = sd > 0 ? e / (2 * sd) : sqrt(e);
                if (sqrt(e) < atol[o]) atol[o] = sqrt(e);
            }
        } }
    }
    if (op == TR_MAX || op == TR_MIN) *rtol = 0;
    if (op == TR_PROD) *rtol = 1e-5 + (double)cnt * 5.97e-8;
    free(s); free(sa); free(mx); free(mn); free(pr); free(sq);
}

/* One reduction case: x is the tensor under test, v its logical shape, xv its logical values. */
static int tr_reduce_case(tt_ctx *c, int op, int corr, tt_tensor *x, const tu_view *v, const double *xv,
                          const int *axes, int n_axes, bool keep, int line) {
    int red[TU_MAXD], i, ok = 1, ond = 0;
    int64_t oshape[TU_MAXD], nout = 1;
    double *want, *atol, rtol;
    tt_tensor *r;
    float *got;
    for (i = 0; i < TU_MAXD; i++) red[i] = 0;
    if (!axes || n_axes == 0) { for (i = 0; i < v->nd; i++) red[i] = 1; }
    else for (i = 0; i < n_axes; i++) red[axes[i] < 0 ? axes[i] + v->nd : axes[i]] = 1;
    for (i = 0; i < v->nd; i++) {
        if (!red[i]) { oshape[ond++] = v->shape[i]; nout *= v->shape[i]; }
        else if (keep) oshape[ond++] = 1;
    }
    ok &= CHECK(x != NULL);
    ok &= CHECK_SHAPE(x, v->nd, v->shape);
    r = tr_call(c, op, corr, x, axes, n_axes, keep);
    ok &= CHECK(r != NULL);
    ok &= CHECK_NO_ERROR(c);
    ok &= CHECK_GUARDS(c);
    if (r) {
        ok &= CHECK_EQ_INT(r->dtype, TT_F32);
        ok &= CHECK_SHAPE(r, ond, oshape);
        want = (double *)malloc(sizeof(double) * (size_t)nout);
        atol = (double *)malloc(sizeof(double) * (size_t)nout);
        tr_ref_reduce(op, corr, xv, v->nd, v->shape, red, want, atol, &rtol);
        got = tu_values(c, r);
        ok &= CHECK(r->numel == nout && tr_close(got, want, atol, nout, rtol));
        free(got); free(want); free(atol);
    }
    if (!ok) {
        printf("      ^ in %s%s case at line %d (n_axes %d, keepdim %d)\n", tr_names[op],
               (op == TR_VAR || op == TR_STD) ? (corr ? " corr=1" : " corr=0") : "", line, n_axes, (int)keep);
        tt_clear_error(c);
    }
    return ok;
}

#define TR_CASE(x, v, xv, axes, n, keep) \
    tr_reduce_case(c, op, corr, (x), &(v), (xv), (axes), (n), (keep), __LINE__)

/* Input values suited to each op. */
static void tr_fill(int op, double *v, int64_t n, unsigned long long seed) {
    switch (op) {
    case TR_PROD: if (n >= 1000) tu_uniform(v, n, seed, 0.77, 1.25); else tu_uniform(v, n, seed, 0.5, 1.5); break;
    case TR_MAX: case TR_MIN: tu_uniform(v, n, seed, -3.0, 3.0); break;
    case TR_VAR: case TR_STD: tu_uniform(v, n, seed, -2.0, 2.5); break;
    default: tu_uniform(v, n, seed, -1.0, 2.0); break;
    }
}

/* A base tensor of shape sh with op-suited values; *vals gets the (rounded) values (malloc'd). */
static tt_tensor *tr_base(tt_ctx *c, int op, int nd, const int64_t *sh, double **vals, unsigned long long seed) {
    int64_t n = tu_numel(nd, sh);
    *vals = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    tr_fill(op, *vals, n, seed);
    return tu_tensor(c, nd, sh, *vals);
}

static void tr_battery(int op, int corr) {
    tt_ctx *c = tu_ctx();
    double *bv, *lv;
    tt_tensor *x, *y;
    tu_view v;
    int k, keep;
    /* axis sets over a 3-D [7,3,33]: first, middle, last, negative, several (also out of order), all */
    static const int sets[][3] = { {0}, {1}, {2}, {-1}, {-2}, {-3}, {0, 2}, {2, 0}, {-1, 0}, {1, 2},
                                   {0, 1, 2}, {2, 0, 1} };
    static const int set_n[] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3 };
    static const int some_axes[2] = { 1, 0 };

    {   int64_t sh[3] = { 7, 3, 33 };
        x = tr_base(c, op, 3, sh, &bv, 11 + (unsigned long long)op);
        v = tu_view_contig(3, sh);
        for (keep = 0; keep < 2; keep++) {
            for (k = 0; k < (int)(sizeof set_n / sizeof set_n[0]); k++)
                CHECK(TR_CASE(x, v, bv, sets[k], set_n[k], keep != 0));
            CHECK(TR_CASE(x, v, bv, NULL, 0, keep != 0));          /* all axes -> 0-d (or [1,1,1]) */
            CHECK(TR_CASE(x, v, bv, some_axes, 0, keep != 0));     /* n_axes 0 also means all */
        }
        free(bv);
    }
    /* 1-D of odd sizes, including a 1000+ element reduction */
    {   static const int64_t sizes[] = { 1, 3, 7, 33, 1155 };
        static const int ax0[1] = { 0 }, axm1[1] = { -1 };
        for (k = 0; k < 5; k++) {
            x = tr_base(c, op, 1, &sizes[k], &bv, 100 + (unsigned long long)k);
            v = tu_view_contig(1, &sizes[k]);
            for (keep = 0; keep < 2; keep++) {
                CHECK(TR_CASE(x, v, bv, ax0, 1, keep != 0));
                CHECK(TR_CASE(x, v, bv, axm1, 1, keep != 0));
                CHECK(TR_CASE(x, v, bv, NULL, 0, keep != 0));
            }
            free(bv);
        }
    }
    /* size-1 axes */
    {   int64_t sh[3] = { 1, 33, 1 };
        static const int a0[1] = { 0 }, a1[1] = { 1 }, a2[1] = { 2 }, a02[2] = { 0, 2 };
        x = tr_base(c, op, 3, sh, &bv, 21);
        v = tu_view_contig(3, sh);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(x, v, bv, a0, 1, keep != 0));
            CHECK(TR_CASE(x, v, bv, a1, 1, keep != 0));
            CHECK(TR_CASE(x, v, bv, a2, 1, keep != 0));
            CHECK(TR_CASE(x, v, bv, a02, 2, keep != 0));
        }
        free(bv);
    }
    /* 4-D, several axes given with negative indices and out of order */
    {   int64_t sh[4] = { 2, 3, 1, 7 };
        static const int a13[2] = { 1, 3 }, a31[2] = { 3, 1 }, am[2] = { -2, -4 }, a3[3] = { 3, 0, 2 };
        x = tr_base(c, op, 4, sh, &bv, 22);
        v = tu_view_contig(4, sh);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(x, v, bv, a13, 2, keep != 0));
            CHECK(TR_CASE(x, v, bv, a31, 2, keep != 0));
            CHECK(TR_CASE(x, v, bv, am, 2, keep != 0));
            CHECK(TR_CASE(x, v, bv, a3, 3, keep != 0));
        }
        free(bv);
    }
    /* long rows: contiguous inner reduction and a strided outer one */
    {   int64_t sh1[2] = { 3, 1100 }, sh2[2] = { 1100, 3 };
        static const int a0[1] = { 0 }, a1[1] = { 1 };
        x = tr_base(c, op, 2, sh1, &bv, 23);
        v = tu_view_contig(2, sh1);
        CHECK(TR_CASE(x, v, bv, a1, 1, false));
        CHECK(TR_CASE(x, v, bv, a0, 1, true));
        free(bv);
        x = tr_base(c, op, 2, sh2, &bv, 24);
        v = tu_view_contig(2, sh2);
        CHECK(TR_CASE(x, v, bv, a0, 1, false));
        CHECK(TR_CASE(x, v, bv, NULL, 0, false));
        free(bv);
    }
    /* non-contiguous: transposed */
    {   int64_t sh[2] = { 7, 33 };
        static const int a0[1] = { 0 }, a1[1] = { 1 };
        x = tr_base(c, op, 2, sh, &bv, 31);
        y = tt_transpose(c, x, 0, 1);
        v = tu_view_contig(2, sh); tu_view_transpose(&v, 0, 1);
        lv = tu_view_gather(&v, bv);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(y, v, lv, a0, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, a1, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, NULL, 0, keep != 0));
        }
        free(lv); free(bv);
    }
    /* non-contiguous: permuted 3-D, several axes */
    {   int64_t sh[3] = { 3, 7, 33 };
        static const int perm[3] = { 2, 0, 1 };
        static const int a02[2] = { 0, 2 }, a1[1] = { 1 }, a21[2] = { 2, 1 };
        x = tr_base(c, op, 3, sh, &bv, 32);
        y = tt_permute(c, x, perm);
        v = tu_view_contig(3, sh); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, bv);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(y, v, lv, a02, 2, keep != 0));
            CHECK(TR_CASE(y, v, lv, a1, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, a21, 2, keep != 0));
        }
        free(lv); free(bv);
    }
    /* non-contiguous: sliced with step 2 (inner axis, with an offset; and outer axis) */
    {   int64_t sh[2] = { 5, 33 };
        static const int a0[1] = { 0 }, a1[1] = { 1 };
        x = tr_base(c, op, 2, sh, &bv, 33);
        y = tt_slice(c, x, 1, 1, 33, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 1, 1, 33, 2);
        lv = tu_view_gather(&v, bv);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(y, v, lv, a1, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, a0, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, NULL, 0, keep != 0));
        }
        free(lv);
        y = tt_slice(c, x, 0, 0, 5, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 0, 0, 5, 2);
        lv = tu_view_gather(&v, bv);
        CHECK(TR_CASE(y, v, lv, a0, 1, false));
        CHECK(TR_CASE(y, v, lv, a1, 1, true));
        free(lv);
        /* sliced then transposed */
        y = tt_transpose(c, tt_slice(c, x, 1, 0, 33, 2), 0, 1);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 1, 0, 33, 2); tu_view_transpose(&v, 0, 1);
        lv = tu_view_gather(&v, bv);
        CHECK(TR_CASE(y, v, lv, a0, 1, false));
        CHECK(TR_CASE(y, v, lv, a1, 1, false));
        free(lv); free(bv);
    }
    /* non-contiguous: expanded (stride-0 axes, also a new leading axis) */
    {   int64_t sh[2] = { 1, 7 }, esh[2] = { 5, 7 }, sh1[1] = { 7 }, esh1[2] = { 4, 7 };
        int64_t sh3[3] = { 3, 1, 33 }, esh3[3] = { 3, 6, 33 };
        static const int a0[1] = { 0 }, a1[1] = { 1 }, a02[2] = { 0, 2 };
        x = tr_base(c, op, 2, sh, &bv, 34);
        y = tt_expand(c, x, 2, esh);
        v = tu_view_contig(2, sh); tu_view_expand(&v, 2, esh);
        lv = tu_view_gather(&v, bv);
        for (keep = 0; keep < 2; keep++) {
            CHECK(TR_CASE(y, v, lv, a0, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, a1, 1, keep != 0));
            CHECK(TR_CASE(y, v, lv, NULL, 0, keep != 0));
        }
        free(lv); free(bv);
        x = tr_base(c, op, 1, sh1, &bv, 35);
        y = tt_expand(c, x, 2, esh1);
        v = tu_view_contig(1, sh1); tu_view_expand(&v, 2, esh1);
        lv = tu_view_gather(&v, bv);
        CHECK(TR_CASE(y, v, lv, a0, 1, false));
        CHECK(TR_CASE(y, v, lv, a1, 1, true));
        free(lv); free(bv);
        x = tr_base(c, op, 3, sh3, &bv, 36);
        y = tt_expand(c, x, 3, esh3);
        v = tu_view_contig(3, sh3); tu_view_expand(&v, 3, esh3);
        lv = tu_view_gather(&v, bv);
        CHECK(TR_CASE(y, v, lv, a1, 1, false));
        CHECK(TR_CASE(y, v, lv, a02, 2, true));
        free(lv); free(bv);
    }
    /* 0-d input: reducing "all" of a scalar gives a scalar */
    {   double s = op == TR_PROD ? 1.25 : -0.75;
        x = tu_tensor(c, 0, NULL, &s);
        v = tu_view_contig(0, NULL);
        CHECK(TR_CASE(x, v, &s, NULL, 0, false));
        CHECK(TR_CASE(x, v, &s, NULL, 0, true));
    }
    tt_ctx_destroy(c);
}

static void test_sum(void)      { tr_battery(TR_SUM, 0); }
static void test_mean(void)     { tr_battery(TR_MEAN, 0); }
static void test_max(void)      { tr_battery(TR_MAX, 0); }
static void test_min(void)      { tr_battery(TR_MIN, 0); }
static void test_prod(void)     { tr_battery(TR_PROD, 0); }
static void test_var_corr0(void) { tr_battery(TR_VAR, 0); }
static void test_var_corr1(void) { tr_battery(TR_VAR, 1); }
static void test_std_corr0(void) { tr_battery(TR_STD, 0); }
static void test_std_corr1(void) { tr_battery(TR_STD, 1); }

/* Hand-checked values, so the references above are themselves anchored. */
static void test_known_values(void) {
    tt_ctx *c = tu_ctx();
    double v[6] = { 1, 2, 3, 4, 5, 6 };
    int64_t sh[2] = { 2, 3 };
    static const int a0[1] = { 0 }, a1[1] = { 1 };
    tt_tensor *x = tu_tensor(c, 2, sh, v), *r;
    float *g;
    r = tt_sum(c, x, a0, 1, false); g = tu_values(c, r);
    CHECK_SHAPE(r, 1, sh + 1);
    if (g) { CHECK_NEAR(g[0], 5, 0, 0); CHECK_NEAR(g[1], 7, 0, 0); CHECK_NEAR(g[2], 9, 0, 0); }
    free(g); CHECK_GUARDS(c);
    r = tt_prod(c, x, a1, 1, true); g = tu_values(c, r);
    if (r) { CHECK_EQ_INT(r->ndim, 2); CHECK_EQ_INT(r->shape[0], 2); CHECK_EQ_INT(r->shape[1], 1); }
    if (g) { CHECK_NEAR(g[0], 6, 0, 0); CHECK_NEAR(g[1], 120, 0, 0); }
    free(g); CHECK_GUARDS(c);
    r = tt_var(c, x, NULL, 0, 1, false);                  /* var of 1..6, unbiased: 3.5 */
    if (r) CHECK_EQ_INT(r->ndim, 0);
    CHECK_NEAR(tt_item(c, r), 3.5, 1e-6, 1e-6);
    r = tt_var(c, x, NULL, 0, 0, false);                  /* biased: 35/12 */
    CHECK_NEAR(tt_item(c, r), 35.0 / 12.0, 1e-6, 1e-6);
    r = tt_std(c, x, a1, 1, 1, false);                    /* rows 1,2,3 and 4,5,6: std 1 */
    g = tu_values(c, r);
    if (g) { CHECK_NEAR(g[0], 1, 1e-6, 1e-6); CHECK_NEAR(g[1], 1, 1e-6, 1e-6); }
    free(g);
    r = tt_mean(c, x, NULL, 0, true);
    if (r) { CHECK_EQ_INT(r->ndim, 2); CHECK_EQ_INT(r->shape[0], 1); CHECK_EQ_INT(r->shape[1], 1); }
    CHECK_NEAR(tt_item(c, r), 3.5, 1e-6, 1e-6);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* i32 and f16 inputs are converted to f32 (results f32). */
static void test_other_dtypes(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *xi = tt_arange(c, TT_I32, 0, 33, 1), *r;
    double v[7] = { 0.5, -1.5, 2.25, 3.0, -0.125, 1.0, 2.0 };
    int64_t n7 = 7;
    tt_tensor *xh = tt_cast(c, tu_tensor(c, 1, &n7, v), TT_F16);
    r = tt_sum(c, xi, NULL, 0, false);
    CHECK(r != NULL);
    if (r) { CHECK_EQ_INT(r->dtype, TT_F32); CHECK_EQ_INT(r->ndim, 0); }
    CHECK_NEAR(tt_item(c, r), 528, 0, 0);
    r = tt_max(c, xi, NULL, 0, false);
    if (r) CHECK_EQ_INT(r->dtype, TT_F32);
    CHECK_NEAR(tt_item(c, r), 32, 0, 0);
    r = tt_argmax(c, xi, 0, false);
    if (r) CHECK_EQ_INT(r->dtype, TT_I32);
    CHECK_NEAR(tt_item(c, r), 32, 0, 0);
    r = tt_sum(c, xh, NULL, 0, false);                    /* all values exact in f16 */
    if (r) CHECK_EQ_INT(r->dtype, TT_F32);
    CHECK_NEAR(tt_item(c, r), 7.125, 0, 0);
    r = tt_min(c, xh, NULL, 0, false);
    CHECK_NEAR(tt_item(c, r), -1.5, 0, 0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- argmax / argmin ------------------------------------------------------- */
static int tr_arg_case(tt_ctx *c, int is_max, tt_tensor *x, const tu_view *v, const double *xv,
                       int axis, bool keep, int line) {
    int ok = 1, a = axis < 0 ? axis + v->nd : axis, ond = 0, i;
    int64_t oshape[TU_MAXD], outer = 1, len, inner = 1, o, in, k, nout;
    double *want, *atol;
    float *got;
    tt_tensor *r;
    for (i = 0; i < v->nd; i++) {
        if (i < a) outer *= v->shape[i];
        if (i > a) inner *= v->shape[i];
        if (i != a) oshape[ond++] = v->shape[i];
        else if (keep) oshape[ond++] = 1;
    }
    len = v->shape[a];
    nout = outer * inner;
    ok &= CHECK(x != NULL);
    r = is_max ? tt_argmax(c, x, axis, keep) : tt_argmin(c, x, axis, keep);
    ok &= CHECK(r != NULL);
    ok &= CHECK_NO_ERROR(c);
    ok &= CHECK_GUARDS(c);
    if (r) {
        ok &= CHECK_EQ_INT(r->dtype, TT_I32);
        ok &= CHECK_SHAPE(r, ond, oshape);
        want = (double *)malloc(sizeof(double) * (size_t)nout);
        atol = (double *)calloc((size_t)nout, sizeof(double));
        for (o = 0; o < outer; o++)
            for (in = 0; in < inner; in++) {
                int64_t best = 0;
                for (k = 1; k < len; k++) {
                    double cur = xv[(o * len + k) * inner + in], b = xv[(o * len + best) * inner + in];
                    if (is_max ? cur > b : cur < b) best = k;       /* strict: first index on ties */
                }
                want[o * inner + in] = (double)best;
            }
        got = tu_values(c, r);
        ok &= CHECK(r->numel == nout && tr_close(got, want, atol, nout, 0));
        free(got); free(want); free(atol);
    }
    if (!ok) {
        printf("      ^ in %s case at line %d (axis %d, keepdim %d)\n", is_max ? "tt_argmax" : "tt_argmin",
               line, axis, (int)keep);
        tt_clear_error(c);
    }
    return ok;
}

/* Values from {0,1,2,3}: many ties, so "first index" is exercised everywhere. */
static tt_tensor *tr_tie_base(tt_ctx *c, int nd, const int64_t *sh, double **vals, unsigned long long seed) {
    int64_t n = tu_numel(nd, sh), i;
    *vals = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    tu_uniform(*vals, n, seed, 0.0, 4.0);
    for (i = 0; i < n; i++) (*vals)[i] = floor((*vals)[i]);
    return tu_tensor(c, nd, sh, *vals);
}

static void tr_arg_battery(int is_max) {
    tt_ctx *c = tu_ctx();
    double *bv, *lv;
    tt_tensor *x, *y;
    tu_view v;
    int keep, k;
#define TR_ARG(x, v, xv, axis, keep) CHECK(tr_arg_case(c, is_max, (x), &(v), (xv), (axis), (keep), __LINE__))
    {   int64_t sh[3] = { 7, 3, 33 };
        static const int axes[6] = { 0, 1, 2, -1, -2, -3 };
        x = tr_tie_base(c, 3, sh, &bv, 41);
        v = tu_view_contig(3, sh);
        for (keep = 0; keep < 2; keep++)
            for (k = 0; k < 6; k++) TR_ARG(x, v, bv, axes[k], keep != 0);
        free(bv);
    }
    {   static const int64_t sizes[] = { 1, 3, 7, 33, 1155 };
        for (k = 0; k < 5; k++) {
            x = tr_tie_base(c, 1, &sizes[k], &bv, 42 + (unsigned long long)k);
            v = tu_view_contig(1, &sizes[k]);
            TR_ARG(x, v, bv, 0, false);
            TR_ARG(x, v, bv, -1, true);
            free(bv);
        }
    }
    /* hand-made ties: the extreme at the first and last positions, and an all-equal row */
    {   double t[12] = { 3, 1, 2, 3,   0, 5, 0, 5,   2, 2, 2, 2 };
        int64_t sh[2] = { 3, 4 };
        float *g;
        x = tu_tensor(c, 2, sh, t);
        v = tu_view_contig(2, sh);
        TR_ARG(x, v, t, 1, false);
        TR_ARG(x, v, t, 0, true);
        g = tu_values(c, is_max ? tt_argmax(c, x, 1, false) : tt_argmin(c, x, 1, false));
        if (g) {
            CHECK_NEAR(g[0], is_max ? 0 : 1, 0, 0);
            CHECK_NEAR(g[1], is_max ? 1 : 0, 0, 0);
            CHECK_NEAR(g[2], 0, 0, 0);
        }
        free(g);
    }
    {   int64_t sh[2] = { 1100, 3 };        /* long strided reduction */
        x = tr_tie_base(c, 2, sh, &bv, 48);
        v = tu_view_contig(2, sh);
        TR_ARG(x, v, bv, 0, false);
        TR_ARG(x, v, bv, 1, true);
        free(bv);
    }
    /* non-contiguous inputs */
    {   int64_t sh[2] = { 7, 33 }, esh[2] = { 5, 7 }, sh1[2] = { 1, 7 };
        static const int perm[3] = { 1, 2, 0 };
        int64_t sh3[3] = { 3, 7, 33 };
        x = tr_tie_base(c, 2, sh, &bv, 51);
        y = tt_transpose(c, x, 0, 1);
        v = tu_view_contig(2, sh); tu_view_transpose(&v, 0, 1);
        lv = tu_view_gather(&v, bv);
        TR_ARG(y, v, lv, 0, false); TR_ARG(y, v, lv, 1, true); TR_ARG(y, v, lv, -1, false);
        free(lv);
        y = tt_slice(c, x, 1, 1, 33, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 1, 1, 33, 2);
        lv = tu_view_gather(&v, bv);
        TR_ARG(y, v, lv, 1, false); TR_ARG(y, v, lv, 0, true);
        free(lv); free(bv);
        x = tr_tie_base(c, 2, sh1, &bv, 52);
        y = tt_expand(c, x, 2, esh);
        v = tu_view_contig(2, sh1); tu_view_expand(&v, 2, esh);
        lv = tu_view_gather(&v, bv);
        TR_ARG(y, v, lv, 0, false);      /* all equal along the stride-0 axis: 0 */
        TR_ARG(y, v, lv, 1, true);
        free(lv); free(bv);
        x = tr_tie_base(c, 3, sh3, &bv, 53);
        y = tt_permute(c, x, perm);
        v = tu_view_contig(3, sh3); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, bv);
        TR_ARG(y, v, lv, 1, false); TR_ARG(y, v, lv, 2, true); TR_ARG(y, v, lv, 0, false);
        free(lv); free(bv);
    }
    /* random continuous values too (no ties) */
    {   int64_t sh[2] = { 9, 33 };
        bv = (double *)malloc(sizeof(double) * 297);
        tu_uniform(bv, 297, 55, -5.0, 5.0);
        x = tu_tensor(c, 2, sh, bv);
        v = tu_view_contig(2, sh);
        TR_ARG(x, v, bv, 1, false); TR_ARG(x, v, bv, 0, false);
        free(bv);
    }
    /* 0-d input: the doc leaves axis rules for scalars open; accept PyTorch's answer (index 0,
       0-d result) or a clean TT_ERR_ARG naming the op. */
    {   double s = 2.5;
        tt_tensor *r;
        x = tu_tensor(c, 0, NULL, &s);
        r = is_max ? tt_argmax(c, x, 0, false) : tt_argmin(c, x, 0, false);
        if (r) {
            CHECK_EQ_INT(r->ndim, 0);
            CHECK_EQ_INT(r->dtype, TT_I32);
            CHECK_NEAR(tt_item(c, r), 0, 0, 0);
        } else {
            CHECK_ERROR(c, TT_ERR_ARG, is_max ? "tt_argmax:" : "tt_argmin:");
        }
        CHECK_GUARDS(c);
    }
#undef TR_ARG
    tt_ctx_destroy(c);
}

static void test_argmax(void) { tr_arg_battery(1); }
static void test_argmin(void) { tr_arg_battery(0); }

/* ---- softmax / log_softmax ------------------------------------------------- */
/* Tolerances (f32 exp/log plus a row sum): softmax rtol 4e-6 and an extra 1.2e-7*|x_i|
   relative (one f32 rounding at the input's magnitude, which is all f32 can resolve when
   |x| ~ 1000); log_softmax atol 2e-6*(1+|x_i-max|+|log S|) + 1.2e-7*(|x_i|+|max|). */
static int tr_softmax_case(tt_ctx *c, int is_log, tt_tensor *x, const tu_view *v, const double *xv,
                           int axis, int line) {
    int ok = 1, a = axis < 0 ? axis + v->nd : axis, i;
    int64_t outer = 1, len, inner = 1, o, in, k, n = tu_numel(v->nd, v->shape);
    double *want, *atol, maxabs = 0;
    float *got = NULL;
    tt_tensor *r;
    for (i = 0; i < v->nd; i++) { if (i < a) outer *= v->shape[i]; if (i > a) inner *= v->shape[i]; }
    len = v->nd ? v->shape[a] : 1;
    ok &= CHECK(x != NULL);
    r = is_log ? tt_log_softmax(c, x, axis) : tt_softmax(c, x, axis);
    ok &= CHECK(r != NULL);
    ok &= CHECK_NO_ERROR(c);
    ok &= CHECK_GUARDS(c);
    want = (double *)malloc(sizeof(double) * (size_t)n);
    atol = (double *)malloc(sizeof(double) * (size_t)n);
    for (o = 0; o < outer; o++)
        for (in = 0; in < inner; in++) {
            double m = -INFINITY, s = 0, ls;
            for (k = 0; k < len; k++) { double t = xv[(o * len + k) * inner + in]; if (t > m) m = t; }
            for (k = 0; k < len; k++) s += exp(xv[(o * len + k) * inner + in] - m);
            ls = log(s);
            for (k = 0; k < len; k++) {
                int64_t j = (o * len + k) * inner + in;
                double d = xv[j] - m;
                if (fabs(xv[j]) > maxabs) maxabs = fabs(xv[j]);
                if (is_log) {
                    want[j] = d - ls;
                    atol[j] = 2e-6 * (1 + fabs(d) + fabs(ls)) + 1.2e-7 * (fabs(xv[j]) + fabs(m));
                } else {
                    want[j] = exp(d) / s;
                    atol[j] = 1e-30 + want[j] * 1.2e-7 * (fabs(xv[j]) + fabs(m));
                }
            }
        }
    if (r) {
        ok &= CHECK_EQ_INT(r->dtype, TT_F32);
        ok &= CHECK_SHAPE(r, v->nd, v->shape);
        got = tu_values(c, r);
        ok &= CHECK(r->numel == n && tr_close(got, want, atol, n, is_log ? 0 : 4e-6));
        if (got && r->numel == n) {
            /* every row sums to 1 (softmax) / its exps sum to 1 (log_softmax); all finite */
            int rows_ok = 1;
            for (o = 0; o < outer && rows_ok; o++)
                for (in = 0; in < inner && rows_ok; in++) {
                    double s = 0;
                    for (k = 0; k < len; k++) {
                        double g = (double)got[(o * len + k) * inner + in];
                        if (!(g == g) || g > 1e308 || g < -1e308) rows_ok = 0;
                        s += is_log ? exp(g) : g;
                    }
                    if (!(fabs(s - 1) <= 1e-5 + 2.4e-7 * maxabs)) {
                        printf("      row (%lld,%lld) sums to %.9g\n", (long long)o, (long long)in, s);
                        rows_ok = 0;
                    }
                }
            ok &= CHECK(rows_ok);
        }
    }
    free(got); free(want); free(atol);
    if (!ok) {
        printf("      ^ in %s case at line %d (axis %d)\n", is_log ? "tt_log_softmax" : "tt_softmax", line, axis);
        tt_clear_error(c);
    }
    return ok;
}

static void tr_softmax_battery(int is_log) {
    tt_ctx *c = tu_ctx();
    double *bv, *lv;
    tt_tensor *x, *y;
    tu_view v;
    int k;
#define TR_SM(x, v, xv, axis) CHECK(tr_softmax_case(c, is_log, (x), &(v), (xv), (axis), __LINE__))
    {   int64_t sh[3] = { 7, 3, 33 };
        static const int axes[6] = { 0, 1, 2, -1, -2, -3 };
        bv = (double *)malloc(sizeof(double) * 693);
        tu_uniform(bv, 693, 61, -6.0, 6.0);
        x = tu_tensor(c, 3, sh, bv);
        v = tu_view_contig(3, sh);
        for (k = 0; k < 6; k++) TR_SM(x, v, bv, axes[k]);
        free(bv);
    }
    {   static const int64_t sizes[] = { 1, 3, 7, 33, 1155 };
        for (k = 0; k < 5; k++) {
            bv = (double *)malloc(sizeof(double) * (size_t)sizes[k]);
            tu_uniform(bv, sizes[k], 62 + (unsigned long long)k, -4.0, 4.0);
            x = tu_tensor(c, 1, &sizes[k], bv);
            v = tu_view_contig(1, &sizes[k]);
            TR_SM(x, v, bv, 0);
            TR_SM(x, v, bv, -1);
            free(bv);
        }
    }
    {   int64_t sh[3] = { 3, 1, 5 }, sh2[2] = { 1100, 3 };    /* size-1 axis; long strided rows */
        bv = (double *)malloc(sizeof(double) * 3300);
        tu_uniform(bv, 15, 68, -3.0, 3.0);
        x = tu_tensor(c, 3, sh, bv);
        v = tu_view_contig(3, sh);
        TR_SM(x, v, bv, 1);
        TR_SM(x, v, bv, 0);
        tu_uniform(bv, 3300, 69, -3.0, 3.0);
        x = tu_tensor(c, 2, sh2, bv);
        v = tu_view_contig(2, sh2);
        TR_SM(x, v, bv, 0);
        TR_SM(x, v, bv, 1);
        free(bv);
    }
    /* non-contiguous */
    {   int64_t sh[2] = { 7, 33 }, sh1[2] = { 1, 33 }, esh[2] = { 5, 33 }, sh3[3] = { 3, 7, 5 };
        static const int perm[3] = { 2, 0, 1 };
        bv = (double *)malloc(sizeof(double) * 231);
        tu_uniform(bv, 231, 70, -5.0, 5.0);
        x = tu_tensor(c, 2, sh, bv);
        y = tt_transpose(c, x, 0, 1);
        v = tu_view_contig(2, sh); tu_view_transpose(&v, 0, 1);
        lv = tu_view_gather(&v, bv);
        TR_SM(y, v, lv, 0); TR_SM(y, v, lv, 1); TR_SM(y, v, lv, -1);
        free(lv);
        y = tt_slice(c, x, 1, 1, 33, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 1, 1, 33, 2);
        lv = tu_view_gather(&v, bv);
        TR_SM(y, v, lv, 1); TR_SM(y, v, lv, 0);
        free(lv);
        y = tt_slice(c, x, 0, 0, 7, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 0, 0, 7, 2);
        lv = tu_view_gather(&v, bv);
        TR_SM(y, v, lv, 0); TR_SM(y, v, lv, 1);
        free(lv);
        x = tu_tensor(c, 2, sh1, bv);                   /* bv[0..32] */
        y = tt_expand(c, x, 2, esh);
        v = tu_view_contig(2, sh1); tu_view_expand(&v, 2, esh);
        lv = tu_view_gather(&v, bv);
        TR_SM(y, v, lv, 1);
        TR_SM(y, v, lv, 0);                             /* all equal along the axis: 1/5 each */
        free(lv);
        x = tu_tensor(c, 3, sh3, bv);                   /* bv[0..104] */
        y = tt_permute(c, x, perm);
        v = tu_view_contig(3, sh3); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, bv);
        TR_SM(y, v, lv, 0); TR_SM(y, v, lv, 1); TR_SM(y, v, lv, 2);
        free(lv);
        free(bv);
    }
    /* numerical stability: inputs around +1000 and -1000, and rows spanning -1000..1000 */
    {   int64_t sh[2] = { 4, 33 }, sh3[2] = { 2, 3 };
        double big[6] = { -1000, 0, 1000, 1000, 1000, -1000 };
        bv = (double *)malloc(sizeof(double) * 132);
        tu_uniform(bv, 132, 71, -5.0, 5.0);
        for (k = 0; k < 132; k++) bv[k] += k < 66 ? 1000.0 : -1000.0;
        x = tu_tensor(c, 2, sh, bv);
        v = tu_view_contig(2, sh);
        TR_SM(x, v, bv, 1);
        TR_SM(x, v, bv, 0);   /* columns mix +1000 and -1000 rows: exps underflow to 0, still finite */
        free(bv);
        x = tu_tensor(c, 2, sh3, big);
        v = tu_view_contig(2, sh3);
        TR_SM(x, v, big, 1);
        TR_SM(x, v, big, 0);
    }
    /* 0-d input: PyTorch gives 1 (softmax) / 0 (log_softmax); accept that or a clean TT_ERR_ARG. */
    {   double s = 3.0;
        tt_tensor *r;
        x = tu_tensor(c, 0, NULL, &s);
        r = is_log ? tt_log_softmax(c, x, 0) : tt_softmax(c, x, 0);
        if (r) {
            CHECK_EQ_INT(r->ndim, 0);
            CHECK_NEAR(tt_item(c, r), is_log ? 0.0 : 1.0, 1e-7, 0);
        } else {
            CHECK_ERROR(c, TT_ERR_ARG, is_log ? "tt_log_softmax:" : "tt_softmax:");
        }
        CHECK_GUARDS(c);
    }
#undef TR_SM
    tt_ctx_destroy(c);
}

static void test_softmax(void)     { tr_softmax_battery(0); }
static void test_log_softmax(void) { tr_softmax_battery(1); }

/* ---- bad input --------------------------------------------------------------- */
static void test_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[3] = { 2, 3, 4 };
    tt_tensor *x = tt_randn(c, 5, 3, sh);
    static const int out_hi[1] = { 3 }, out_lo[1] = { -4 }, rep[2] = { 1, 1 }, rep_neg[2] = { 2, -1 };
    static const int rep3[3] = { 0, 2, 0 };
    char name[32];
    int op, corr = 1;
    CHECK(x != NULL);
    for (op = TR_SUM; op <= TR_STD; op++) {
        snprintf(name, sizeof name, "%s:", tr_names[op]);
        CHECK(tr_call(c, op, corr, x, out_hi, 1, false) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, name);
        CHECK(tr_call(c, op, corr, x, out_lo, 1, true) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, name);
        CHECK(tr_call(c, op, corr, x, rep, 2, false) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, name);
        CHECK(tr_call(c, op, corr, x, rep_neg, 2, false) == NULL);   /* 2 and -1 are the same axis */
        CHECK_ERROR(c, TT_ERR_ARG, name);
        CHECK(tr_call(c, op, corr, x, rep3, 3, true) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, name);
        /* NULL input: NULL, and no new error */
        CHECK(tr_call(c, op, corr, NULL, NULL, 0, false) == NULL);
        CHECK(tt_error(c) == NULL);
        CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
        CHECK_GUARDS(c);
    }
    CHECK(tt_argmax(c, x, 3, false) == NULL);  CHECK_ERROR(c, TT_ERR_ARG, "tt_argmax:");
    CHECK(tt_argmax(c, x, -4, true) == NULL);  CHECK_ERROR(c, TT_ERR_ARG, "tt_argmax:");
    CHECK(tt_argmin(c, x, 3, false) == NULL);  CHECK_ERROR(c, TT_ERR_ARG, "tt_argmin:");
    CHECK(tt_argmin(c, x, -4, false) == NULL); CHECK_ERROR(c, TT_ERR_ARG, "tt_argmin:");
    CHECK(tt_softmax(c, x, 3) == NULL);        CHECK_ERROR(c, TT_ERR_ARG, "tt_softmax:");
    CHECK(tt_softmax(c, x, -4) == NULL);       CHECK_ERROR(c, TT_ERR_ARG, "tt_softmax:");
    CHECK(tt_log_softmax(c, x, 3) == NULL);    CHECK_ERROR(c, TT_ERR_ARG, "tt_log_softmax:");
    CHECK(tt_log_softmax(c, x, -4) == NULL);   CHECK_ERROR(c, TT_ERR_ARG, "tt_log_softmax:");
    CHECK(tt_argmax(c, NULL, 0, false) == NULL);
    CHECK(tt_argmin(c, NULL, 0, true) == NULL);
    CHECK(tt_softmax(c, NULL, 0) == NULL);
    CHECK(tt_log_softmax(c, NULL, -1) == NULL);
    CHECK(tt_error(c) == NULL);
    /* NULL through a chain: one check at the end, no message */
    CHECK(tt_softmax(c, tt_sum(c, tt_max(c, NULL, NULL, 0, false), NULL, 0, false), 0) == NULL);
    CHECK(tt_error(c) == NULL);
    /* an error stays the first one: a later bad call does not replace it */
    CHECK(tt_sum(c, x, out_hi, 1, false) == NULL);
    CHECK(tt_softmax(c, x, 7) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_sum:");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(reduce) = {
    {"sum", test_sum},
    {"mean", test_mean},
    {"max", test_max},
    {"min", test_min},
    {"prod", test_prod},
    {"var_corr0", test_var_corr0},
    {"var_corr1", test_var_corr1},
    {"std_corr0", test_std_corr0},
    {"std_corr1", test_std_corr1},
    {"known_values", test_known_values},
    {"other_dtypes", test_other_dtypes},
    {"argmax", test_argmax},
    {"argmin", test_argmin},
    {"softmax", test_softmax},
    {"log_softmax", test_log_softmax},
    {"bad_input", test_bad_input},
    {NULL, NULL}
};
