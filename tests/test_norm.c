/* test_norm.c - layer_norm, rms_norm, batch_norm (inference) and group_norm against references
   written here with plain loops in double (biased variance for layer/group norm).

   Logical values of view inputs are computed by a test-side view model (tu_view, test_util.h), so no
   reference reads data through the library. */
#include "test_util.h"
#include <stdio.h>

/* ---- comparison helpers ---------------------------------------------------- */
static int tn_close(const float *got, const double *want, const double *atol, int64_t n, double rtol) {
    int64_t i, bad = 0, first = -1;
    if (!got) { printf("      values: NULL\n"); return 0; }
    for (i = 0; i < n; i++) {
        double g = (double)got[i];
        int ok = (want[i] != want[i]) ? (g != g) : fabs(g - want[i]) <= atol[i] + rtol * fabs(want[i]);
        if (!ok) { if (first < 0) first = i; bad++; }
    }
    if (bad == 0) return 1;
    printf("      %lld of %lld values differ; first at [%lld]: got %.9g, expected %.9g (atol %g, rtol %g)\n",
           (long long)bad, (long long)n, (long long)first, (double)got[first], want[first], atol[first], rtol);
    return 0;
}

/* ---- the reference and one case -------------------------------------------
   kinds: layer norm over the last `param` axes, rms norm over the last `param` axes,
   group norm with `param` groups on [N,C,...], batch norm on [N,C,...].
   Tolerances (f32 statistics; mean error 1e-6*mean|x| by the sum rule, variance rtol 1e-5):
     layer/group: atol |w|*(2e-6*mean|x|*rstd + 1e-5*|xhat|) + 1e-6*|b| + 1e-6, rtol 1e-5
     rms:         rtol 1e-5, atol 1e-7
     batch:       atol 2e-6*(|x|+|mean|)*rstd*|w| + 1e-6*|b| + 1e-7, rtol 1e-5 */
enum { TN_LN, TN_RMS, TN_GN, TN_BN };
static const char *const tn_names[] = { "tt_layer_norm", "tt_rms_norm", "tt_group_norm", "tt_batch_norm" };

typedef struct tn_params {
    tt_tensor *w, *b, *mean, *var;        /* tensors passed to the op (any may be NULL) */
    const double *wv, *bv, *mv, *vv;      /* their logical values (NULL when the tensor is NULL) */
} tn_params;

static tn_params tn_params_none(void) {
    tn_params p;
    memset(&p, 0, sizeof p);
    return p;
}

static int tn_case(tt_ctx *c, int kind, tt_tensor *x, const tu_view *v, const double *xv, int param,
                   const tn_params *p, float eps, int line) {
    int64_t n = tu_numel(v->nd, v->shape), blk = 1, S = 1, C = 1, i, j;
    double *want, *atol, rtol = 1e-5;
    float *got = NULL;
    tt_tensor *r = NULL;
    int ok = 1, d;
    double e = (double)eps;
    if (kind == TN_LN || kind == TN_RMS) for (d = v->nd - param; d < v->nd; d++) blk *= v->shape[d];
    if (kind == TN_GN || kind == TN_BN) {
        C = v->shape[1];
        for (d = 2; d < v->nd; d++) S *= v->shape[d];
        blk = kind == TN_GN ? (C / param) * S : 1;
    }
    ok &= CHECK(x != NULL);
    ok &= CHECK_SHAPE(x, v->nd, v->shape);
    switch (kind) {
    case TN_LN:  r = tt_layer_norm(c, x, param, p->w, p->b, eps); break;
    case TN_RMS: r = tt_rms_norm(c, x, param, p->w, eps); break;
    case TN_GN:  r = tt_group_norm(c, x, param, p->w, p->b, eps); break;
    default:     r = tt_batch_norm(c, x, p->mean, p->var, p->w, p->b, eps); break;
    }
    ok &= CHECK(r != NULL);
    ok &= CHECK_NO_ERROR(c);
    ok &= CHECK_GUARDS(c);
    want = (double *)malloc(sizeof(double) * (size_t)n);
    atol = (double *)malloc(sizeof(double) * (size_t)n);
    if (kind == TN_BN) {
        for (i = 0; i < n; i++) {
            int64_t ch = (i / S) % C;
            double rstd = 1.0 / sqrt(p->vv[ch] + e), w = p->wv ? p->wv[ch] : 1.0, b = p->bv ? p->bv[ch] : 0.0;
            want[i] = (xv[i] - p->mv[ch]) * rstd * w + b;
            atol[i] = 2e-6 * (fabs(xv[i]) + fabs(p->mv[ch])) * rstd * fabs(w) + 1e-6 * fabs(b) + 1e-7;
        }
    } else {
        for (i = 0; i < n; i += blk) {
            double s = 0, sa = 0, sq = 0, m, var, rstd;
            for (j = 0; j < blk; j++) { s += xv[i + j]; sa += fabs(xv[i + j]); sq += xv[i + j] * xv[i + j]; }
            m = s / (double)blk;
            var = 0;
            for (j = 0; j < blk; j++) var += (xv[i + j] - m) * (xv[i + j] - m);
            var /= (double)blk;                                       /* biased */
            rstd = kind == TN_RMS ? 1.0 / sqrt(sq / (double)blk + e) : 1.0 / sqrt(var + e);
            for (j = 0; j < blk; j++) {
                int64_t k = i + j, pi = kind == TN_GN ? (k / S) % C : j;
                double w = p->wv ? p->wv[pi] : 1.0, b = p->bv ? p->bv[pi] : 0.0;
                if (kind == TN_RMS) {
                    want[k] = xv[k] * rstd * w;
                    atol[k] = 1e-7;
                } else {
                    double xh = (xv[k] - m) * rstd;
                    want[k] = xh * w + b;
                    atol[k] = fabs(w) * (2e-6 * (sa / (double)blk) * rstd + 1e-5 * fabs(xh)) + 1e-6 * fabs(b) + 1e-6;
                }
            }
        }
    }
    if (r) {
        ok &= CHECK_EQ_INT(r->dtype, TT_F32);
        ok &= CHECK_SHAPE(r, v->nd, v->shape);
        got = tu_values(c, r);
        ok &= CHECK(r->numel == n && tn_close(got, want, atol, n, rtol));
    }
    free(got); free(want); free(atol);
    if (!ok) {
        printf("      ^ in %s case at line %d (param %d, eps %g, weight %s, bias %s)\n", tn_names[kind], line,
               param, (double)eps, p->w ? "yes" : "no", p->b ? "yes" : "no");
        tt_clear_error(c);
    }
    return ok;
}

#define TN_CASE(kind, x, v, xv, param, p, eps) \
    CHECK(tn_case(c, (kind), (x), &(v), (xv), (param), &(p), (eps), __LINE__))

/* ---- layer norm and rms norm ------------------------------------------------- */
static void tn_ln_battery(int kind) {
    tt_ctx *c = tu_ctx();
    double *xv, *wv, *bv, *w2v, *b2v, *w3v, *lv;
    tt_tensor *x, *w, *b, *w2, *b2, *w3, *y;
    tu_view v;
    tn_params p;
    int k;
    {   int64_t sh[3] = { 3, 7, 33 };
        x  = tu_rand(c, 3, sh, 1, -2.0, 3.0, &xv);
        w  = tu_rand(c, 1, sh + 2, 2, -1.5, 1.5, &wv);
        b  = tu_rand(c, 1, sh + 2, 3, -1.0, 1.0, &bv);
        w2 = tu_rand(c, 2, sh + 1, 4, 0.5, 1.5, &w2v);
        b2 = tu_rand(c, 2, sh + 1, 5, -1.0, 1.0, &b2v);
        w3 = tu_rand(c, 3, sh, 6, -1.0, 1.0, &w3v);
        v = tu_view_contig(3, sh);
        for (k = 0; k < 4; k++) {             /* weight and bias each present or NULL */
            p = tn_params_none();
            if (k & 1) { p.w = w; p.wv = wv; }
            if (k & 2) { p.b = b; p.bv = bv; }
            if (kind == TN_RMS) { p.b = NULL; p.bv = NULL; }
            TN_CASE(kind, x, v, xv, 1, p, 1e-5f);
        }
        p = tn_params_none(); p.w = w2; p.wv = w2v; p.b = b2; p.bv = b2v;
        if (kind == TN_RMS) { p.b = NULL; p.bv = NULL; }
        TN_CASE(kind, x, v, xv, 2, p, 1e-5f);
        p = tn_params_none();
        TN_CASE(kind, x, v, xv, 2, p, 1e-5f);
        p = tn_params_none(); p.w = w3; p.wv = w3v;
        TN_CASE(kind, x, v, xv, 3, p, 1e-5f);
        free(xv); free(wv); free(bv); free(w2v); free(b2v); free(w3v);
    }
    /* odd sizes: rows of 1 (layer norm gives the bias), 3, 7, 33, 1155; 1-D input; size-1 axis */
    {   static const int64_t rows[] = { 1, 3, 7, 33, 1155 };
        for (k = 0; k < 5; k++) {
            int64_t sh[2];
            sh[0] = k == 4 ? 2 : 5; sh[1] = rows[k];
            x = tu_rand(c, 2, sh, 10 + (unsigned long long)k, -1.0, 2.0, &xv);
            w = tu_rand(c, 1, sh + 1, 20 + (unsigned long long)k, -1.5, 1.5, &wv);
            b = tu_rand(c, 1, sh + 1, 30 + (unsigned long long)k, -1.0, 1.0, &bv);
            v = tu_view_contig(2, sh);
            p = tn_params_none(); p.w = w; p.wv = wv;
            if (kind == TN_LN) { p.b = b; p.bv = bv; }
            TN_CASE(kind, x, v, xv, 1, p, 1e-5f);
            free(xv);
            x = tu_rand(c, 1, sh + 1, 40 + (unsigned long long)k, -1.0, 2.0, &xv);      /* 1-D */
            v = tu_view_contig(1, sh + 1);
            TN_CASE(kind, x, v, xv, 1, p, 1e-5f);
            free(xv); free(wv); free(bv);
        }
    }
    {   int64_t sh[3] = { 3, 1, 33 };
        x = tu_rand(c, 3, sh, 50, -1.0, 2.0, &xv);
        w = tu_rand(c, 2, sh + 1, 51, -1.5, 1.5, &wv);
        v = tu_view_contig(3, sh);
        p = tn_params_none(); p.w = w; p.wv = wv;
        TN_CASE(kind, x, v, xv, 2, p, 1e-5f);
        free(xv); free(wv);
    }
    /* eps matters: tiny spread, eps comparable to (or much bigger than) the statistic */
    {   int64_t sh[2] = { 4, 33 };
        float *g_small, *g_big;
        double mx_small = 0, mx_big = 0;
        x = tu_rand(c, 2, sh, 60, -0.01, 0.01, &xv);
        v = tu_view_contig(2, sh);
        p = tn_params_none();
        TN_CASE(kind, x, v, xv, 1, p, 1e-5f);
        TN_CASE(kind, x, v, xv, 1, p, 1e-2f);
        TN_CASE(kind, x, v, xv, 1, p, 0.0f);
        if (kind == TN_LN) {
            g_small = tu_values(c, tt_layer_norm(c, x, 1, NULL, NULL, 1e-6f));
            g_big = tu_values(c, tt_layer_norm(c, x, 1, NULL, NULL, 1e-2f));
        } else {
            g_small = tu_values(c, tt_rms_norm(c, x, 1, NULL, 1e-6f));
            g_big = tu_values(c, tt_rms_norm(c, x, 1, NULL, 1e-2f));
        }
        CHECK(g_small != NULL && g_big != NULL);
        if (g_small && g_big) {
            for (k = 0; k < 132; k++) {
                if (fabs(g_small[k]) > mx_small) mx_small = fabs(g_small[k]);
                if (fabs(g_big[k]) > mx_big) mx_big = fabs(g_big[k]);
            }
            CHECK(mx_big < 0.2 * mx_small);     /* rstd ~ 10 instead of ~ 170 */
        }
        free(g_small); free(g_big); free(xv);
        CHECK_GUARDS(c);
    }
    /* non-contiguous inputs and parameters */
    {   int64_t sh[2] = { 7, 33 }, sh3[3] = { 3, 7, 33 }, sh1[2] = { 1, 33 }, esh[2] = { 4, 33 };
        int64_t n7 = 7, n16 = 16, n33 = 33, n66 = 66, one = 1;
        static const int perm[3] = { 2, 0, 1 };
        double *base;
        x = tu_rand(c, 2, sh, 70, -2.0, 2.0, &xv);
        /* transposed: rows of 7 with stride 33 */
        y = tt_transpose(c, x, 0, 1);
        v = tu_view_contig(2, sh); { int tp[2] = { 1, 0 }; tu_view_permute(&v, tp); }
        lv = tu_view_gather(&v, xv);
        w = tu_rand(c, 1, &n7, 71, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, &n7, 72, -1.0, 1.0, &bv);
        p = tn_params_none(); p.w = w; p.wv = wv;
        if (kind == TN_LN) { p.b = b; p.bv = bv; }
        TN_CASE(kind, y, v, lv, 1, p, 1e-5f);
        p = tn_params_none();
        TN_CASE(kind, y, v, lv, 2, p, 1e-5f);             /* the whole [33,7] view */
        free(lv); free(wv); free(bv);
        /* sliced with step 2 along the normalized axis */
        y = tt_slice(c, x, 1, 1, 33, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 1, 1, 33, 2);
        lv = tu_view_gather(&v, xv);
        w = tu_rand(c, 1, &n16, 73, -1.5, 1.5, &wv);
        p = tn_params_none(); p.w = w; p.wv = wv;
        TN_CASE(kind, y, v, lv, 1, p, 1e-5f);
        free(lv); free(wv);
        /* sliced along the outer axis; weight itself a step-2 slice, bias expanded from [1] */
        y = tt_slice(c, x, 0, 0, 7, 2);
        v = tu_view_contig(2, sh); tu_view_slice(&v, 0, 0, 7, 2);
        lv = tu_view_gather(&v, xv);
        base = NULL;
        {
            tt_tensor *wb = tu_rand(c, 1, &n66, 74, -1.5, 1.5, &base);
            tu_view wvw = tu_view_contig(1, &n66);
            double *b1v;
            tt_tensor *b1 = tu_rand(c, 1, &one, 75, 0.25, 0.75, &b1v);
            tu_view bvw = tu_view_contig(1, &one);
            tu_view_slice(&wvw, 0, 0, 66, 2);
            tu_view_expand(&bvw, 1, &n33);
            wv = tu_view_gather(&wvw, base);
            bv = tu_view_gather(&bvw, b1v);
            p = tn_params_none(); p.w = tt_slice(c, wb, 0, 0, 66, 2); p.wv = wv;
            if (kind == TN_LN) { p.b = tt_expand(c, b1, 1, &n33); p.bv = bv; }
            TN_CASE(kind, y, v, lv, 1, p, 1e-5f);
            free(b1v); free(wv); free(bv); free(base);
        }
        free(lv); free(xv);
        /* expanded: every row the same */
        x = tu_rand(c, 2, sh1, 76, -2.0, 2.0, &xv);
        y = tt_expand(c, x, 2, esh);
        v = tu_view_contig(2, sh1); tu_view_expand(&v, 2, esh);
        lv = tu_view_gather(&v, xv);
        p = tn_params_none();
        TN_CASE(kind, y, v, lv, 1, p, 1e-5f);
        TN_CASE(kind, y, v, lv, 2, p, 1e-5f);
        free(lv); free(xv);
        /* permuted 3-D, normalizing the last two axes */
        x = tu_rand(c, 3, sh3, 77, -2.0, 2.0, &xv);
        y = tt_permute(c, x, perm);
        v = tu_view_contig(3, sh3); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, xv);
        {   int64_t wsh[2] = { 3, 7 };
            w = tu_rand(c, 2, wsh, 78, 0.5, 1.5, &wv);
            b = tu_rand(c, 2, wsh, 79, -1.0, 1.0, &bv);
        }
        p = tn_params_none(); p.w = w; p.wv = wv;
        if (kind == TN_LN) { p.b = b; p.bv = bv; }
        TN_CASE(kind, y, v, lv, 2, p, 1e-5f);
        free(lv); free(xv); free(wv); free(bv);
    }
    tt_ctx_destroy(c);
}

static void test_layer_norm(void) { tn_ln_battery(TN_LN); }
static void test_rms_norm(void)   { tn_ln_battery(TN_RMS); }

/* Hand-checked: [1,2,3,4] -> mean 2.5, biased var 1.25. */
static void test_known_values(void) {
    tt_ctx *c = tu_ctx();
    double v[4] = { 1, 2, 3, 4 };
    int64_t n4 = 4;
    tt_tensor *x = tu_tensor(c, 1, &n4, v);
    float *g = tu_values(c, tt_layer_norm(c, x, 1, NULL, NULL, 0.0f));
    int i;
    CHECK(g != NULL);
    for (i = 0; g && i < 4; i++) CHECK_NEAR(g[i], ((double)i + 1 - 2.5) / sqrt(1.25), 1e-6, 1e-5);
    free(g);
    g = tu_values(c, tt_rms_norm(c, x, 1, NULL, 0.0f));         /* rms = sqrt(30/4) */
    CHECK(g != NULL);
    for (i = 0; g && i < 4; i++) CHECK_NEAR(g[i], ((double)i + 1) / sqrt(7.5), 1e-7, 1e-5);
    free(g);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void tn_ln_bad(int kind) {
    tt_ctx *c = tu_ctx();
    int64_t sh[3] = { 3, 7, 33 }, s32 = 32, s34 = 34, s33 = 33, s7_32[2] = { 7, 32 };
    tt_tensor *x = tt_randn(c, 1, 3, sh);
    tt_tensor *w32 = tt_ones(c, TT_F32, 1, &s32), *w34 = tt_ones(c, TT_F32, 1, &s34);
    tt_tensor *w33 = tt_ones(c, TT_F32, 1, &s33), *w7_32 = tt_ones(c, TT_F32, 2, s7_32);
    const char *name = kind == TN_LN ? "tt_layer_norm:" : "tt_rms_norm:";
    int bad_nd[3] = { 0, 4, -1 }, k;
#define TN_CALL(xx, nd, ww, bb) \
    (kind == TN_LN ? tt_layer_norm(c, (xx), (nd), (ww), (bb), 1e-5f) : tt_rms_norm(c, (xx), (nd), (ww), 1e-5f))
    CHECK(x && w32 && w34 && w33 && w7_32);
    CHECK(TN_CALL(x, 1, w32, NULL) == NULL);         /* weight [32] for rows of 33 */
    CHECK_STR_CONTAINS(tt_error(c), "[32]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(TN_CALL(x, 2, w33, NULL) == NULL);         /* n_dims 2 wants [7,33] */
    CHECK_STR_CONTAINS(tt_error(c), "[33]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(TN_CALL(x, 2, w7_32, NULL) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[7,32]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    if (kind == TN_LN) {
        CHECK(tt_layer_norm(c, x, 1, w33, w34, 1e-5f) == NULL);   /* bias [34] */
        CHECK_STR_CONTAINS(tt_error(c), "[34]");
        CHECK_ERROR(c, TT_ERR_SHAPE, name);
        CHECK(tt_layer_norm(c, x, 1, NULL, w32, 1e-5f) == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "[32]");
        CHECK_ERROR(c, TT_ERR_SHAPE, name);
    }
    for (k = 0; k < 3; k++) {                         /* n_dims outside 1..ndim */
        CHECK(TN_CALL(x, bad_nd[k], NULL, NULL) == NULL);
        CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    }
    /* NULL input: NULL and no new error */
    CHECK(TN_CALL(NULL, 1, w33, NULL) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK(TN_CALL(tt_relu(c, NULL), 1, NULL, NULL) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
#undef TN_CALL
    tt_ctx_destroy(c);
}

static void test_layer_norm_bad(void) { tn_ln_bad(TN_LN); }
static void test_rms_norm_bad(void)   { tn_ln_bad(TN_RMS); }

/* ---- batch norm ------------------------------------------------------------------ */
static void test_batch_norm(void) {
    tt_ctx *c = tu_ctx();
    double *xv, *mv, *vv, *wv, *bv, *lv;
    tt_tensor *x, *m, *var, *w, *b, *y;
    tu_view v;
    tn_params p;
    int k, s;
    static const int64_t shapes[][4] = { {2, 3, 5, 7}, {7, 3, 0, 0}, {2, 3, 33, 0}, {4, 1, 3, 3},
                                          {1, 5, 1, 1}, {1, 2, 33, 35} };
    static const int ndims[] = { 4, 2, 3, 4, 4, 4 };
    for (s = 0; s < 6; s++) {
        const int64_t *sh = shapes[s];
        x = tu_rand(c, ndims[s], sh, 100 + (unsigned long long)s, -3.0, 3.0, &xv);
        m = tu_rand(c, 1, sh + 1, 110 + (unsigned long long)s, -1.0, 1.0, &mv);
        var = tu_rand(c, 1, sh + 1, 120 + (unsigned long long)s, 0.25, 2.0, &vv);
        w = tu_rand(c, 1, sh + 1, 130 + (unsigned long long)s, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, sh + 1, 140 + (unsigned long long)s, -1.0, 1.0, &bv);
        v = tu_view_contig(ndims[s], sh);
        for (k = 0; k < 4; k++) {
            p = tn_params_none();
            p.mean = m; p.mv = mv; p.var = var; p.vv = vv;
            if (k & 1) { p.w = w; p.wv = wv; }
            if (k & 2) { p.b = b; p.bv = bv; }
            TN_CASE(TN_BN, x, v, xv, 0, p, 1e-5f);
        }
        p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        TN_CASE(TN_BN, x, v, xv, 0, p, 0.5f);           /* eps enters under the root */
        free(xv); free(mv); free(vv); free(wv); free(bv);
    }
    /* non-contiguous: channels-last storage, sliced, expanded; running stats as views */
    {   int64_t nhwc[4] = { 2, 5, 7, 3 }, sh[4] = { 2, 3, 9, 7 }, sh1[4] = { 1, 3, 5, 7 }, esh[4] = { 4, 3, 5, 7 };
        int64_t n3 = 3, n6 = 6;
        static const int perm[4] = { 0, 3, 1, 2 };
        double *m6;
        tu_view mvw = tu_view_contig(1, &n6);
        tt_tensor *m6t;
        m = tu_rand(c, 1, &n3, 150, -1.0, 1.0, &mv);
        var = tu_rand(c, 1, &n3, 151, 0.25, 2.0, &vv);
        w = tu_rand(c, 1, &n3, 152, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, &n3, 153, -1.0, 1.0, &bv);
        p = tn_params_none();
        p.mean = m; p.mv = mv; p.var = var; p.vv = vv; p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        x = tu_rand(c, 4, nhwc, 154, -3.0, 3.0, &xv);
        y = tt_permute(c, x, perm);
        v = tu_view_contig(4, nhwc); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, xv);
        TN_CASE(TN_BN, y, v, lv, 0, p, 1e-5f);
        free(lv); free(xv);
        x = tu_rand(c, 4, sh, 155, -3.0, 3.0, &xv);
        y = tt_slice(c, x, 2, 0, 9, 2);
        v = tu_view_contig(4, sh); tu_view_slice(&v, 2, 0, 9, 2);
        lv = tu_view_gather(&v, xv);
        TN_CASE(TN_BN, y, v, lv, 0, p, 1e-5f);
        free(lv); free(xv);
        x = tu_rand(c, 4, sh1, 156, -3.0, 3.0, &xv);
        y = tt_expand(c, x, 4, esh);
        v = tu_view_contig(4, sh1); tu_view_expand(&v, 4, esh);
        lv = tu_view_gather(&v, xv);
        /* running mean a step-2 slice of a [6] tensor */
        m6t = tu_rand(c, 1, &n6, 157, -1.0, 1.0, &m6);
        tu_view_slice(&mvw, 0, 1, 6, 2);
        free(mv);
        mv = tu_view_gather(&mvw, m6);
        p.mean = tt_slice(c, m6t, 0, 1, 6, 2); p.mv = mv;
        TN_CASE(TN_BN, y, v, lv, 0, p, 1e-5f);
        free(lv); free(xv); free(m6);
        free(mv); free(vv); free(wv); free(bv);
    }
    tt_ctx_destroy(c);
}

static void test_batch_norm_bad(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[4] = { 2, 3, 5, 7 }, sh2[2] = { 7, 3 }, n3 = 3, n4 = 4, n2 = 2;
    tt_tensor *x = tt_randn(c, 1, 4, sh), *x2 = tt_randn(c, 2, 2, sh2), *x1 = tt_randn(c, 3, 1, &n3);
    tt_tensor *m3 = tt_zeros(c, TT_F32, 1, &n3), *v3 = tt_ones(c, TT_F32, 1, &n3);
    tt_tensor *t4 = tt_ones(c, TT_F32, 1, &n4), *t2 = tt_ones(c, TT_F32, 1, &n2);
    const char *name = "tt_batch_norm:";
    CHECK(x && x2 && x1 && m3 && v3 && t4 && t2);
    CHECK(tt_batch_norm(c, x, t4, v3, NULL, NULL, 1e-5f) == NULL);   /* mean [4] for C=3 */
    CHECK_STR_CONTAINS(tt_error(c), "[4]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_batch_norm(c, x, m3, t2, NULL, NULL, 1e-5f) == NULL);   /* var [2] */
    CHECK_STR_CONTAINS(tt_error(c), "[2]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_batch_norm(c, x, m3, v3, t4, NULL, 1e-5f) == NULL);     /* weight [4] */
    CHECK_STR_CONTAINS(tt_error(c), "[4]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_batch_norm(c, x2, m3, v3, NULL, t2, 1e-5f) == NULL);    /* bias [2], x [N,C] */
    CHECK_STR_CONTAINS(tt_error(c), "[2]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_batch_norm(c, x2, t4, t4, t4, t4, 1e-5f) == NULL);      /* all [4] for C=3 */
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_batch_norm(c, x1, m3, v3, NULL, NULL, 1e-5f) == NULL);  /* 1-D x has no channel axis */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    /* NULL input (x, running mean or running var): NULL and no new error */
    CHECK(tt_batch_norm(c, NULL, m3, v3, NULL, NULL, 1e-5f) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK(tt_batch_norm(c, x, NULL, v3, NULL, NULL, 1e-5f) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK(tt_batch_norm(c, x, m3, NULL, NULL, NULL, 1e-5f) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- group norm ------------------------------------------------------------------ */
static void test_group_norm(void) {
    tt_ctx *c = tu_ctx();
    double *xv, *wv, *bv, *lv;
    tt_tensor *x, *w, *b, *y;
    tu_view v;
    tn_params p;
    int k, g;
    {   int64_t sh[4] = { 2, 6, 5, 7 };
        static const int groups[4] = { 1, 2, 3, 6 };
        x = tu_rand(c, 4, sh, 200, -2.0, 3.0, &xv);
        w = tu_rand(c, 1, sh + 1, 201, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, sh + 1, 202, -1.0, 1.0, &bv);
        v = tu_view_contig(4, sh);
        for (g = 0; g < 4; g++) {
            p = tn_params_none(); p.w = w; p.wv = wv; p.b = b; p.bv = bv;
            TN_CASE(TN_GN, x, v, xv, groups[g], p, 1e-5f);
        }
        for (k = 0; k < 3; k++) {             /* weight / bias NULL */
            p = tn_params_none();
            if (k & 1) { p.w = w; p.wv = wv; }
            if (k & 2) { p.b = b; p.bv = bv; }
            TN_CASE(TN_GN, x, v, xv, 3, p, 1e-5f);
        }
        p = tn_params_none(); p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        TN_CASE(TN_GN, x, v, xv, 2, p, 0.75f);     /* eps effect */
        free(xv); free(wv); free(bv);
    }
    /* other ranks and sizes: [N,C,L], [N,C] (groups of 2 and of 1 element), 1000+ per group */
    {   int64_t sh3[3] = { 3, 4, 33 }, sh2[2] = { 4, 6 }, shb[4] = { 1, 4, 17, 17 };
        x = tu_rand(c, 3, sh3, 210, -2.0, 3.0, &xv);
        w = tu_rand(c, 1, sh3 + 1, 211, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, sh3 + 1, 212, -1.0, 1.0, &bv);
        v = tu_view_contig(3, sh3);
        p = tn_params_none(); p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        TN_CASE(TN_GN, x, v, xv, 2, p, 1e-5f);
        TN_CASE(TN_GN, x, v, xv, 4, p, 1e-5f);
        free(xv); free(wv); free(bv);
        x = tu_rand(c, 2, sh2, 213, -2.0, 3.0, &xv);
        w = tu_rand(c, 1, sh2 + 1, 214, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, sh2 + 1, 215, -1.0, 1.0, &bv);
        v = tu_view_contig(2, sh2);
        p = tn_params_none(); p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        TN_CASE(TN_GN, x, v, xv, 3, p, 1e-5f);
        TN_CASE(TN_GN, x, v, xv, 6, p, 1e-5f);     /* one element per group: the bias */
        TN_CASE(TN_GN, x, v, xv, 1, p, 1e-5f);
        free(xv); free(wv); free(bv);
        x = tu_rand(c, 4, shb, 216, -2.0, 3.0, &xv);
        w = tu_rand(c, 1, shb + 1, 217, -1.5, 1.5, &wv);
        v = tu_view_contig(4, shb);
        p = tn_params_none(); p.w = w; p.wv = wv;
        TN_CASE(TN_GN, x, v, xv, 1, p, 1e-5f);
        TN_CASE(TN_GN, x, v, xv, 2, p, 1e-5f);
        free(xv); free(wv);
    }
    /* non-contiguous */
    {   int64_t nhwc[4] = { 2, 5, 7, 6 }, sh[4] = { 2, 6, 9, 7 }, sh1[4] = { 1, 6, 5, 7 }, esh[4] = { 3, 6, 5, 7 };
        int64_t n6 = 6;
        static const int perm[4] = { 0, 3, 1, 2 };
        w = tu_rand(c, 1, &n6, 220, -1.5, 1.5, &wv);
        b = tu_rand(c, 1, &n6, 221, -1.0, 1.0, &bv);
        p = tn_params_none(); p.w = w; p.wv = wv; p.b = b; p.bv = bv;
        x = tu_rand(c, 4, nhwc, 222, -2.0, 3.0, &xv);
        y = tt_permute(c, x, perm);
        v = tu_view_contig(4, nhwc); tu_view_permute(&v, perm);
        lv = tu_view_gather(&v, xv);
        TN_CASE(TN_GN, y, v, lv, 3, p, 1e-5f);
        TN_CASE(TN_GN, y, v, lv, 1, p, 1e-5f);
        free(lv); free(xv);
        x = tu_rand(c, 4, sh, 223, -2.0, 3.0, &xv);
        y = tt_slice(c, x, 2, 0, 9, 2);
        v = tu_view_contig(4, sh); tu_view_slice(&v, 2, 0, 9, 2);
        lv = tu_view_gather(&v, xv);
        TN_CASE(TN_GN, y, v, lv, 2, p, 1e-5f);
        free(lv); free(xv);
        x = tu_rand(c, 4, sh1, 224, -2.0, 3.0, &xv);
        y = tt_expand(c, x, 4, esh);
        v = tu_view_contig(4, sh1); tu_view_expand(&v, 4, esh);
        lv = tu_view_gather(&v, xv);
        TN_CASE(TN_GN, y, v, lv, 6, p, 1e-5f);
        free(lv); free(xv); free(wv); free(bv);
    }
    tt_ctx_destroy(c);
}

static void test_group_norm_bad(void) {
    tt_ctx *c = tu_ctx();
    int64_t sh[4] = { 2, 6, 5, 7 }, n5 = 5, n7 = 7, n6 = 6, n3 = 3;
    tt_tensor *x = tt_randn(c, 1, 4, sh), *x1 = tt_randn(c, 2, 1, &n6);
    tt_tensor *t5 = tt_ones(c, TT_F32, 1, &n5), *t7 = tt_ones(c, TT_F32, 1, &n7), *t3 = tt_ones(c, TT_F32, 1, &n3);
    const char *name = "tt_group_norm:";
    CHECK(x && x1 && t5 && t7 && t3);
    CHECK(tt_group_norm(c, x, 4, NULL, NULL, 1e-5f) == NULL);    /* 6 channels in 4 groups */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x, 5, NULL, NULL, 1e-5f) == NULL);
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x, 12, NULL, NULL, 1e-5f) == NULL);   /* more groups than channels */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x, 0, NULL, NULL, 1e-5f) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, name);
    CHECK(tt_group_norm(c, x, -2, NULL, NULL, 1e-5f) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, name);
    CHECK(tt_group_norm(c, x, 3, t5, NULL, 1e-5f) == NULL);      /* weight [5] for C=6 */
    CHECK_STR_CONTAINS(tt_error(c), "[5]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x, 3, NULL, t7, 1e-5f) == NULL);      /* bias [7] */
    CHECK_STR_CONTAINS(tt_error(c), "[7]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x, 2, t3, t3, 1e-5f) == NULL);        /* [3] would suit the groups, not C */
    CHECK_STR_CONTAINS(tt_error(c), "[3]");
    CHECK_ERROR(c, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, x1, 1, NULL, NULL, 1e-5f) == NULL);   /* 1-D: no channel axis */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, name);
    CHECK(tt_group_norm(c, NULL, 2, NULL, NULL, 1e-5f) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(norm) = {
    {"layer_norm", test_layer_norm},
    {"rms_norm", test_rms_norm},
    {"known_values", test_known_values},
    {"layer_norm_bad", test_layer_norm_bad},
    {"rms_norm_bad", test_rms_norm_bad},
    {"batch_norm", test_batch_norm},
    {"batch_norm_bad", test_batch_norm_bad},
    {"group_norm", test_group_norm},
    {"group_norm_bad", test_group_norm_bad},
    {NULL, NULL}
};
