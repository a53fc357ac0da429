/* test_attention.c - tt_scaled_dot_product_attention against a double-precision reference:
   scores = q·kᵀ·scale (+ float mask, or -inf where a bool mask is false or causal j > i),
   softmax over the last axis, times v.

   Tolerance of output (i, f): the f32 scores carry an error of about 1e-6 * sum|q·k|*scale,
   which moves each probability by that much relative, so
       tol = sum_j p_j |v_jf| * (5e-6 + 2 * 1e-6 * max_j A_ij) + 1e-7,
   with A_ij = scale * sum_e |q_ie k_je| + |mask_ij| (the terms of score ij). */
#include "test_util.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* Like tu_check_close with per-element tolerances, except that a NaN in want (a row with
   nothing to attend to) must be NaN in t. */
static int at_close(tt_ctx *c, const tt_tensor *t, const double *want, const double *tol, long long n,
                    const char *file, int line) {
    float *got = tu_result_values(c, t, n, file, line);
    long long i, bad = 0, first = -1;
    if (!got) return 0;
    for (i = 0; i < n; i++) {
        int ok = isnan(want[i]) ? isnan(got[i]) : fabs((double)got[i] - want[i]) <= tol[i];
        if (!ok) { if (first < 0) first = i; bad++; }
    }
    if (bad) {
        printf("    %s:%d: %lld of %lld elements differ; first at flat index %lld\n", file, line, bad, n, first);
        tt_test__near((double)got[first], want[first], tol[first], 0.0, file, line, "got", "want");
    }
    free(got);
    return bad == 0;
}

/* Flat index into a contiguous array of shape xs (nx dims) broadcast to the full index idx of
   a shape with nf dims (aligned right; size-1 axes of xs read index 0). */
static long long at_bcast_index(int nf, const int64_t *idx, int nx, const int64_t *xs) {
    long long off = 0;
    int i;
    for (i = 0; i < nx; i++) {
        int fi = i + (nf - nx);
        int64_t ii = (fi >= 0 && xs[i] != 1) ? idx[fi] : 0;
        off = off * xs[i] + ii;
    }
    return off;
}

/* An attention problem: shapes (batch axes included) and logical values. mask_kind: 0 none,
   1 bool (mask holds 0/1), 2 float (added). */
typedef struct at_problem {
    int nq, nk, nv, nm;
    int64_t qs[TT_MAX_DIMS], ks[TT_MAX_DIMS], vs[TT_MAX_DIMS], ms[TT_MAX_DIMS];
    const double *q, *k, *v, *m;
    int mask_kind, causal;
    double scale;   /* the effective scale */
} at_problem;

/* Reference output [batch..., L, Ev] (batch = broadcast of q, k, v batch axes). */
static long long at_reference(const at_problem *p, int *ndo, int64_t *os, double **out, double **tol) {
    int nb = 0, i;
    int64_t bs[TT_MAX_DIMS], L = p->qs[p->nq - 2], E = p->qs[p->nq - 1], S = p->ks[p->nk - 2];
    int64_t Ev = p->vs[p->nv - 1];
    long long nbatch = 1, total, b;
    double *o, *t, *sc, *aa;
    if (p->nq - 2 > nb) nb = p->nq - 2;
    if (p->nk - 2 > nb) nb = p->nk - 2;
    if (p->nv - 2 > nb) nb = p->nv - 2;
    for (i = 0; i < nb; i++) {
        int iq = i - (nb - (p->nq - 2)), ik = i - (nb - (p->nk - 2)), iv = i - (nb - (p->nv - 2));
        int64_t s = 1;
        if (iq >= 0 && p->qs[iq] != 1) s = p->qs[iq];
        if (ik >= 0 && p->ks[ik] != 1) s = p->ks[ik];
        if (iv >= 0 && p->vs[iv] != 1) s = p->vs[iv];
        bs[i] = s;
        nbatch *= s;
    }
    total = nbatch * L * Ev;
    o = (double *)malloc(sizeof(double) * (size_t)total);
    t = (double *)malloc(sizeof(double) * (size_t)total);
    sc = (double *)malloc(sizeof(double) * (size_t)S);
    aa = (double *)malloc(sizeof(double) * (size_t)S);
    for (b = 0; b < nbatch; b++) {
        int64_t idx[TT_MAX_DIMS + 2], li, j, e, f;
        long long rem = b;
        for (i = nb - 1; i >= 0; i--) { idx[i] = rem % bs[i]; rem /= bs[i]; }
        for (li = 0; li < L; li++) {
            double mx = -INFINITY, den = 0.0, maxa = 0.0;
            idx[nb] = li;
            for (j = 0; j < S; j++) {
                double s = 0.0, sa = 0.0;
                long long qo, ko;
                idx[nb] = li; idx[nb + 1] = 0;
                qo = at_bcast_index(nb + 2, idx, p->nq, p->qs);
                idx[nb] = j;
                ko = at_bcast_index(nb + 2, idx, p->nk, p->ks);
                for (e = 0; e < E; e++) {
                    s += p->q[qo + e] * p->k[ko + e];
                    sa += fabs(p->q[qo + e] * p->k[ko + e]);
                }
                s *= p->scale;
                sa *= p->scale;
                idx[nb] = li; idx[nb + 1] = j;
                if (p->mask_kind) {
                    double mv = p->m[at_bcast_index(nb + 2, idx, p->nm, p->ms)];
                    if (p->mask_kind == 1) { if (mv == 0.0) s = -INFINITY; }
                    else { s += mv; if (!isinf(mv)) sa += fabs(mv); }
                }
                if (p->causal && j > li) s = -INFINITY;
                sc[j] = s;
                aa[j] = sa;
                if (s > mx) mx = s;
                if (s != -INFINITY && sa > maxa) maxa = sa;
            }
            for (j = 0; j < S; j++) { sc[j] = (mx == -INFINITY) ? 0.0 : exp(sc[j] - mx); den += sc[j]; }
            for (f = 0; f < Ev; f++) {
                double acc = 0.0, accabs = 0.0;
                long long oi = (b * L + li) * Ev + f;
                for (j = 0; j < S; j++) {
                    long long vo;
                    idx[nb] = j; idx[nb + 1] = 0;
                    vo = at_bcast_index(nb + 2, idx, p->nv, p->vs);
                    acc += sc[j] * p->v[vo + f];
                    accabs += sc[j] * fabs(p->v[vo + f]);
                }
                if (mx == -INFINITY) { o[oi] = NAN; t[oi] = 0.0; }   /* nothing to attend to */
                else {
                    o[oi] = acc / den;
                    t[oi] = accabs / den * (5e-6 + 2e-6 * maxa) + 1e-7;
                }
            }
        }
    }
    *ndo = nb + 2;
    for (i = 0; i < nb; i++) os[i] = bs[i];
    os[nb] = L;
    os[nb + 1] = Ev;
    free(sc);
    free(aa);
    *out = o;
    *tol = t;
    return total;
}

/* Runs the op on (q, k, v, mask) whose logical values and shapes are in p, and compares. */
static int at_check(tt_ctx *c, const at_problem *p, tt_tensor *q, tt_tensor *k, tt_tensor *v, tt_tensor *mask,
                    float scale_arg, const char *file, int line) {
    int ndo, ok;
    int64_t os[TT_MAX_DIMS];
    double *want, *tol;
    long long n = at_reference(p, &ndo, os, &want, &tol);
    tt_tensor *y = tt_scaled_dot_product_attention(c, q, k, v, mask, p->causal != 0, scale_arg);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ok = tu_check_shape(y, ndo, os, file, line);
    if (ok) ok = at_close(c, y, want, tol, n, file, line);
    free(want);
    free(tol);
    return ok;
}

static void at_copy_shape(int64_t *dst, int n, const int64_t *src) {
    int i;
    for (i = 0; i < n; i++) dst[i] = src[i];
}

/* Contiguous random q [qs], k [ks], v [vs], with an optional mask (kind 1 bool with a given
   fraction of true, kind 2 float in [-2,2) with some -inf), causal flag, scale argument. */
static void at_case(int nq, const int64_t *qs, int nk, const int64_t *ks, int nv, const int64_t *vs,
                    int mask_kind, int nm, const int64_t *ms, int causal, float scale_arg,
                    unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    at_problem p;
    double *vq, *vk, *vv, *vm = NULL;
    tt_tensor *q, *k, *v, *m = NULL;
    memset(&p, 0, sizeof p);
    q = tu_rand(c, nq, qs, seed, -1, 1, &vq);
    k = tu_rand(c, nk, ks, seed + 1, -1, 1, &vk);
    v = tu_rand(c, nv, vs, seed + 2, -1, 1, &vv);
    if (mask_kind) {
        long long mn = tu_numel(nm, ms), i;
        vm = (double *)malloc(sizeof(double) * (size_t)mn);
        tu_uniform(vm, mn, seed + 3, 0, 1);
        if (mask_kind == 1) {
            unsigned char *mb = (unsigned char *)malloc((size_t)mn);
            /* about 70% true; the first key column is always allowed so no row is empty */
            for (i = 0; i < mn; i++) {
                vm[i] = vm[i] < 0.7 ? 1.0 : 0.0;
                if (i % ms[nm - 1] == 0) vm[i] = 1.0;
                mb[i] = (unsigned char)vm[i];
            }
            m = tt_from_data(c, TT_BOOL, nm, ms, mb);
            free(mb);
        } else {
            for (i = 0; i < mn; i++) vm[i] = vm[i] * 4.0 - 2.0;
            for (i = 3; i < mn; i += 7) if (i % ms[nm - 1] != 0) vm[i] = -INFINITY;
            m = tu_tensor(c, nm, ms, vm);
        }
    }
    CHECK_GUARDS(c);
    p.nq = nq; p.nk = nk; p.nv = nv; p.nm = nm;
    at_copy_shape(p.qs, nq, qs);
    at_copy_shape(p.ks, nk, ks);
    at_copy_shape(p.vs, nv, vs);
    if (mask_kind) at_copy_shape(p.ms, nm, ms);
    p.q = vq; p.k = vk; p.v = vv; p.m = vm;
    p.mask_kind = mask_kind;
    p.causal = causal;
    p.scale = scale_arg > 0 ? (double)scale_arg : 1.0 / sqrt((double)qs[nq - 1]);
    at_check(c, &p, q, k, v, m, scale_arg, file, line);
    free(vq); free(vk); free(vv); free(vm);
    tt_ctx_destroy(c);
}
#define AT_CASE(nq, qs, nk, ks, nv, vs, mk, nm, ms, causal, scale, seed) \
    at_case((nq), (qs), (nk), (ks), (nv), (vs), (mk), (nm), (ms), (causal), (scale), (seed), __FILE__, __LINE__)

/* ---- tests -------------------------------------------------------------------------------- */

static void test_sdpa_no_mask(void) {
    {   /* plain 2-D: [L,E] x [S,E] x [S,Ev] */
        int64_t qs[2] = {5, 8}, ks[2] = {7, 8}, vs[2] = {7, 8};
        AT_CASE(2, qs, 2, ks, 2, vs, 0, 0, NULL, 0, 0.0f, 1);
    }
    {   /* batch axes [2,3] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 8};
        AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 0, 0.0f, 2);
    }
    {   /* odd sizes: L = 1, S = 7, E = 33 */
        int64_t qs[3] = {3, 1, 33}, ks[3] = {3, 7, 33}, vs[3] = {3, 7, 33};
        AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 0.0f, 3);
    }
    {   /* S = 1: the output is v's only row */
        int64_t qs[3] = {2, 3, 4}, ks[3] = {2, 1, 4}, vs[3] = {2, 1, 5};
        AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 0.0f, 4);
    }
    {   /* Ev != E */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 3};
        AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 0, 0.0f, 5);
    }
    {   /* Ev > E */
        int64_t qs[3] = {1, 4, 2}, ks[3] = {1, 9, 2}, vs[3] = {1, 9, 17};
        AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 0.0f, 6);
    }
}

static void test_sdpa_scale(void) {
    int64_t qs[3] = {2, 5, 7}, ks[3] = {2, 6, 7}, vs[3] = {2, 6, 3};
    AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 0.0f, 10);     /* default: 1/sqrt(7) */
    AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, -1.0f, 11);    /* negative means default too */
    AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 1.0f, 12);     /* explicit */
    AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 0.125f, 13);
    AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 0, 3.0f, 14);     /* sharp softmax */
    {   /* the default scale really is 1/sqrt(E): compare with an explicit one */
        tt_ctx *c = tu_ctx();
        double *vq, *vk, *vv;
        tt_tensor *q = tu_rand(c, 3, qs, 15, -1, 1, &vq), *k = tu_rand(c, 3, ks, 16, -1, 1, &vk);
        tt_tensor *v = tu_rand(c, 3, vs, 17, -1, 1, &vv);
        tt_tensor *y0 = tt_scaled_dot_product_attention(c, q, k, v, NULL, false, 0.0f);
        tt_tensor *y1 = tt_scaled_dot_product_attention(c, q, k, v, NULL, false, (float)(1.0 / sqrt(7.0)));
        float *a = tu_values(c, y0), *b = tu_values(c, y1);
        CHECK_GUARDS(c);
        if (CHECK(a && b)) {
            int i;
            for (i = 0; i < 30; i++) CHECK_NEAR(a[i], b[i], 1e-6, 1e-5);
        }
        free(a); free(b); free(vq); free(vk); free(vv);
        tt_ctx_destroy(c);
    }
}

static void test_sdpa_causal(void) {
    {   /* L == S */
        int64_t qs[4] = {2, 3, 7, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 5};
        AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 1, 0.0f, 20);
    }
    {   /* L < S: top-left aligned, row i sees columns 0..i */
        int64_t qs[3] = {2, 3, 8}, ks[3] = {2, 7, 8}, vs[3] = {2, 7, 4};
        AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 1, 0.0f, 21);
    }
    {   /* L > S: rows i >= S see every column */
        int64_t qs[3] = {2, 9, 8}, ks[3] = {2, 4, 8}, vs[3] = {2, 4, 4};
        AT_CASE(3, qs, 3, ks, 3, vs, 0, 0, NULL, 1, 0.0f, 22);
    }
    {   /* L == S == 1 */
        int64_t qs[2] = {1, 33}, ks[2] = {1, 33}, vs[2] = {1, 7};
        AT_CASE(2, qs, 2, ks, 2, vs, 0, 0, NULL, 1, 0.0f, 23);
    }
    {   /* the first row of a causal attention is exactly v's first row */
        tt_ctx *c = tu_ctx();
        int64_t qs[2] = {4, 3}, vs[2] = {4, 5}, idx[2] = {0, 0};
        double *vq, *vk, *vv;
        tt_tensor *q = tu_rand(c, 2, qs, 24, -1, 1, &vq), *k = tu_rand(c, 2, qs, 25, -1, 1, &vk);
        tt_tensor *v = tu_rand(c, 2, vs, 26, -1, 1, &vv);
        tt_tensor *y = tt_scaled_dot_product_attention(c, q, k, v, NULL, true, 0.0f);
        CHECK_GUARDS(c);
        if (CHECK(y != NULL)) {
            for (idx[1] = 0; idx[1] < 5; idx[1]++) CHECK_NEAR(tt_get(c, y, idx), vv[idx[1]], 1e-6, 1e-6);
        }
        free(vq); free(vk); free(vv);
        tt_ctx_destroy(c);
    }
}

static void test_sdpa_bool_mask(void) {
    {   /* [L,S] broadcast to [B,H,L,S] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 4}, ms[2] = {5, 7};
        AT_CASE(4, qs, 4, ks, 4, vs, 1, 2, ms, 0, 0.0f, 30);
    }
    {   /* full [B,H,L,S] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 4}, ms[4] = {2, 3, 5, 7};
        AT_CASE(4, qs, 4, ks, 4, vs, 1, 4, ms, 0, 0.0f, 31);
    }
    {   /* key-padding style [B,1,1,S] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 4}, ms[4] = {2, 1, 1, 7};
        AT_CASE(4, qs, 4, ks, 4, vs, 1, 4, ms, 0, 0.0f, 32);
    }
    {   /* [1,S] over all rows, explicit scale */
        int64_t qs[3] = {3, 5, 6}, ks[3] = {3, 9, 6}, vs[3] = {3, 9, 6}, ms[2] = {1, 9};
        AT_CASE(3, qs, 3, ks, 3, vs, 1, 2, ms, 0, 0.5f, 33);
    }
}

static void test_sdpa_float_mask(void) {
    {   /* additive [L,S] broadcast to [B,H,L,S], with some -inf entries */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 4}, ms[2] = {5, 7};
        AT_CASE(4, qs, 4, ks, 4, vs, 2, 2, ms, 0, 0.0f, 40);
    }
    {   /* full shape, Ev != E */
        int64_t qs[3] = {4, 6, 5}, ks[3] = {4, 7, 5}, vs[3] = {4, 7, 9}, ms[3] = {4, 6, 7};
        AT_CASE(3, qs, 3, ks, 3, vs, 2, 3, ms, 0, 0.0f, 41);
    }
    {   /* [B,1,1,S] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 3, 7, 8}, vs[4] = {2, 3, 7, 4}, ms[4] = {2, 1, 1, 7};
        AT_CASE(4, qs, 4, ks, 4, vs, 2, 4, ms, 0, 2.0f, 42);
    }
}

/* A bool-masked row with nothing to attend to gives NaN (PyTorch); the other rows are fine. */
static void test_sdpa_empty_row_nan(void) {
    tt_ctx *c = tu_ctx();
    int64_t qs[2] = {3, 4}, ks[2] = {5, 4}, vs[2] = {5, 2}, ms[2] = {3, 5};
    unsigned char mb[15] = {1, 1, 0, 1, 0,   0, 0, 0, 0, 0,   0, 0, 0, 0, 1};
    double vm[15];
    double *vq, *vk, *vv;
    int i;
    at_problem p;
    tt_tensor *q = tu_rand(c, 2, qs, 50, -1, 1, &vq), *k = tu_rand(c, 2, ks, 51, -1, 1, &vk);
    tt_tensor *v = tu_rand(c, 2, vs, 52, -1, 1, &vv);
    tt_tensor *m = tt_from_data(c, TT_BOOL, 2, ms, mb);
    CHECK_GUARDS(c);
    for (i = 0; i < 15; i++) vm[i] = mb[i];
    memset(&p, 0, sizeof p);
    p.nq = p.nk = p.nv = p.nm = 2;
    at_copy_shape(p.qs, 2, qs); at_copy_shape(p.ks, 2, ks); at_copy_shape(p.vs, 2, vs); at_copy_shape(p.ms, 2, ms);
    p.q = vq; p.k = vk; p.v = vv; p.m = vm;
    p.mask_kind = 1;
    p.scale = 0.5;
    at_check(c, &p, q, k, v, m, 0.5f, __FILE__, __LINE__);
    free(vq); free(vk); free(vv);
    tt_ctx_destroy(c);
}

/* Batch axes of q, k and v broadcast against each other. */
static void test_sdpa_batch_broadcast(void) {
    {   /* k and v shared across heads: q [2,3,L,E], k/v [2,1,S,E] */
        int64_t qs[4] = {2, 3, 5, 8}, ks[4] = {2, 1, 7, 8}, vs[4] = {2, 1, 7, 4};
        AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 0, 0.0f, 60);
    }
    {   /* k and v without batch axes */
        int64_t qs[4] = {2, 3, 5, 8}, ks[2] = {7, 8}, vs[2] = {7, 4};
        AT_CASE(4, qs, 2, ks, 2, vs, 0, 0, NULL, 1, 0.0f, 61);
    }
}

static void test_sdpa_long_sequence(void) {
    int64_t qs[4] = {1, 2, 128, 16}, ks[4] = {1, 2, 128, 16}, vs[4] = {1, 2, 128, 16}, ms[2] = {128, 128};
    AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 0, 0.0f, 70);
    AT_CASE(4, qs, 4, ks, 4, vs, 0, 0, NULL, 1, 0.0f, 71);
    AT_CASE(4, qs, 4, ks, 4, vs, 1, 2, ms, 0, 0.0f, 72);
    {   /* long head dimension */
        int64_t q2[3] = {1, 33, 1001}, k2[3] = {1, 65, 1001}, v2[3] = {1, 65, 7};
        AT_CASE(3, q2, 3, k2, 3, v2, 0, 0, NULL, 0, 0.0f, 73);
    }
    {   /* lengths that are not multiples of the kernel's query and key blocks (32, 64) */
        int64_t q3[3] = {2, 100, 24}, k3[3] = {2, 150, 24}, v3[3] = {2, 150, 9}, m3[2] = {100, 150}, mcol[2] = {100, 1};
        AT_CASE(3, q3, 3, k3, 3, v3, 0, 0, NULL, 1, 0.0f, 74);           /* causal, L < S */
        AT_CASE(3, q3, 3, k3, 3, v3, 2, 2, m3, 0, 0.0f, 75);             /* float mask with -inf entries */
        AT_CASE(3, q3, 3, k3, 3, v3, 1, 2, m3, 1, 0.5f, 76);             /* bool mask and causal */
        AT_CASE(3, q3, 3, k3, 3, v3, 2, 2, mcol, 0, 0.0f, 77);           /* a mask broadcast along keys */
    }
    {   /* L > S over several blocks, causal: rows past S see every key */
        int64_t q4[3] = {1, 200, 8}, k4[3] = {1, 70, 8}, v4[3] = {1, 70, 33};
        AT_CASE(3, q4, 3, k4, 3, v4, 0, 0, NULL, 1, 0.0f, 78);
    }
    {   /* three key tiles or more, so the running maximum is rescaled twice; Ev over NR */
        int64_t q5[3] = {1, 50, 16}, k5[3] = {1, 333, 16}, v5[3] = {1, 333, 52};
        AT_CASE(3, q5, 3, k5, 3, v5, 0, 0, NULL, 0, 0.0f, 90);
        AT_CASE(3, q5, 3, k5, 3, v5, 0, 0, NULL, 1, 0.0f, 91);
    }
}

/* q, k, v stored [B,L,H,E] and permuted to [B,H,L,E]; v a step-2 slice along E. */
static void test_sdpa_noncontiguous(void) {
    tt_ctx *c = tu_ctx();
    int64_t B = 2, H = 3, L = 5, S = 7, E = 8, Ev = 4;
    int64_t qs0[4], ks0[4], vs0[4];
    int perm[4] = {0, 2, 1, 3};
    double *vq0, *vk0, *vv0, *vq, *vk, *vv;
    int64_t b, h, l, e;
    at_problem p;
    tt_tensor *q0, *k0, *v0, *q, *k, *v, *vp;
    qs0[0] = B; qs0[1] = L; qs0[2] = H; qs0[3] = E;
    ks0[0] = B; ks0[1] = S; ks0[2] = H; ks0[3] = E;
    vs0[0] = B; vs0[1] = S; vs0[2] = H; vs0[3] = 2 * Ev;
    q0 = tu_rand(c, 4, qs0, 80, -1, 1, &vq0);
    k0 = tu_rand(c, 4, ks0, 81, -1, 1, &vk0);
    v0 = tu_rand(c, 4, vs0, 82, -1, 1, &vv0);
    q = tt_permute(c, q0, perm);
    k = tt_permute(c, k0, perm);
    vp = tt_permute(c, v0, perm);
    v = tt_slice(c, vp, 3, 1, 2 * Ev, 2);      /* odd entries of the last axis */
    CHECK_GUARDS(c);
    vq = (double *)malloc(sizeof(double) * (size_t)(B * H * L * E));
    vk = (double *)malloc(sizeof(double) * (size_t)(B * H * S * E));
    vv = (double *)malloc(sizeof(double) * (size_t)(B * H * S * Ev));
    for (b = 0; b < B; b++)
        for (h = 0; h < H; h++) {
            for (l = 0; l < L; l++)
                for (e = 0; e < E; e++) vq[((b * H + h) * L + l) * E + e] = vq0[((b * L + l) * H + h) * E + e];
            for (l = 0; l < S; l++)
                for (e = 0; e < E; e++) vk[((b * H + h) * S + l) * E + e] = vk0[((b * S + l) * H + h) * E + e];
            for (l = 0; l < S; l++)
                for (e = 0; e < Ev; e++)
                    vv[((b * H + h) * S + l) * Ev + e] = vv0[((b * S + l) * H + h) * (2 * Ev) + 1 + 2 * e];
        }
    memset(&p, 0, sizeof p);
    p.nq = p.nk = p.nv = 4;
    p.qs[0] = B; p.qs[1] = H; p.qs[2] = L; p.qs[3] = E;
    p.ks[0] = B; p.ks[1] = H; p.ks[2] = S; p.ks[3] = E;
    p.vs[0] = B; p.vs[1] = H; p.vs[2] = S; p.vs[3] = Ev;
    p.q = vq; p.k = vk; p.v = vv;
    p.scale = 1.0 / sqrt((double)E);
    at_check(c, &p, q, k, v, NULL, 0.0f, __FILE__, __LINE__);
    p.causal = 1;
    at_check(c, &p, q, k, v, NULL, 0.0f, __FILE__, __LINE__);
    {   /* a transposed (non-contiguous) float mask [S,L] -> [L,S] */
        int64_t mts[2];
        double *vmt, vm[5 * 7];
        int64_t i, j;
        tt_tensor *mt, *m;
        mts[0] = S; mts[1] = L;
        mt = tu_rand(c, 2, mts, 83, -2, 2, &vmt);
        m = tt_transpose(c, mt, 0, 1);
        for (i = 0; i < L; i++)
            for (j = 0; j < S; j++) vm[i * S + j] = vmt[j * L + i];
        p.causal = 0;
        p.mask_kind = 2;
        p.nm = 2;
        p.ms[0] = L; p.ms[1] = S;
        p.m = vm;
        at_check(c, &p, q, k, v, m, 0.0f, __FILE__, __LINE__);
        free(vmt);
    }
    free(vq0); free(vk0); free(vv0); free(vq); free(vk); free(vv);
    tt_ctx_destroy(c);
}

static void test_sdpa_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t qs[3] = {2, 4, 5}, ks[3] = {2, 6, 5}, vs[3] = {2, 6, 3};
    int64_t k7s[3] = {2, 6, 7}, v7s[3] = {2, 7, 3}, mbad[2] = {4, 7}, q1s[1] = {5}, kb[3] = {3, 6, 5};
    tt_tensor *q = tt_zeros(c, TT_F32, 3, qs), *k = tt_zeros(c, TT_F32, 3, ks), *v = tt_zeros(c, TT_F32, 3, vs);
    tt_tensor *k7 = tt_zeros(c, TT_F32, 3, k7s), *v7 = tt_zeros(c, TT_F32, 3, v7s);
    tt_tensor *mb = tt_zeros(c, TT_F32, 2, mbad), *q1 = tt_zeros(c, TT_F32, 1, q1s);
    tt_tensor *kbatch = tt_zeros(c, TT_F32, 3, kb);
    CHECK_GUARDS(c);
    CHECK_NO_ERROR(c);

    /* E of q and k differ */
    CHECK(tt_scaled_dot_product_attention(c, q, k7, v, NULL, false, 0.0f) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[2,4,5]");
    CHECK_STR_CONTAINS(tt_error(c), "[2,6,7]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_scaled_dot_product_attention:");

    /* S of k and v differ */
    CHECK(tt_scaled_dot_product_attention(c, q, k, v7, NULL, false, 0.0f) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[2,6,5]");
    CHECK_STR_CONTAINS(tt_error(c), "[2,7,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_scaled_dot_product_attention:");

    /* a mask that does not broadcast to [2,4,6] */
    CHECK(tt_scaled_dot_product_attention(c, q, k, v, mb, false, 0.0f) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[4,7]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_scaled_dot_product_attention:");

    /* batch axes that do not broadcast (2 vs 3) */
    CHECK(tt_scaled_dot_product_attention(c, q, kbatch, v, NULL, false, 0.0f) == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_scaled_dot_product_attention:");

    /* q must have at least 2 dims */
    CHECK(tt_scaled_dot_product_attention(c, q1, k, v, NULL, false, 0.0f) == NULL);
    CHECK_GUARDS(c);
    CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_scaled_dot_product_attention:");

    /* NULL q, k or v: NULL and no new error (a NULL mask is "no mask") */
    CHECK(tt_scaled_dot_product_attention(c, NULL, k, v, NULL, false, 0.0f) == NULL);
    CHECK(tt_scaled_dot_product_attention(c, q, NULL, v, NULL, true, 0.0f) == NULL);
    CHECK(tt_scaled_dot_product_attention(c, q, k, NULL, NULL, false, 1.0f) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    CHECK(tt_scaled_dot_product_attention(c, q, k, v, NULL, false, 0.0f) != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(attention) = {
    {"sdpa_no_mask", test_sdpa_no_mask},
    {"sdpa_scale", test_sdpa_scale},
    {"sdpa_causal", test_sdpa_causal},
    {"sdpa_bool_mask", test_sdpa_bool_mask},
    {"sdpa_float_mask", test_sdpa_float_mask},
    {"sdpa_empty_row_nan", test_sdpa_empty_row_nan},
    {"sdpa_batch_broadcast", test_sdpa_batch_broadcast},
    {"sdpa_long_sequence", test_sdpa_long_sequence},
    {"sdpa_noncontiguous", test_sdpa_noncontiguous},
    {"sdpa_bad_input", test_sdpa_bad_input},
    {NULL, NULL}
};
