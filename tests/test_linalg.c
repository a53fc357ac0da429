/* test_linalg.c - tt_matmul (torch.matmul semantics) and tt_linear against plain double loops.

   Every result is compared element by element with a reference computed here in double
   precision; the tolerance of an element is 1e-6 * sum|terms| of its dot product (the library
   accumulates in f32), so long inner dimensions are held to the same relative standard. */
#include "test_util.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* Reference torch.matmul of logical (row-major) double arrays a (shape sa, nda dims) and b.
   Writes the result shape to so/ndo and returns malloc'd values and tolerances (*out, *tol),
   and the element count. Batch axes must broadcast (the caller passes valid shapes). */
static long long la_ref_matmul(const double *a, int nda, const int64_t *sa,
                               const double *b, int ndb, const int64_t *sb,
                               double **out, double **tol, int *ndo, int64_t *so) {
    int64_t M, K, N, ba[TT_MAX_DIMS], bb[TT_MAX_DIMS], bo[TT_MAX_DIMS];
    int nba = nda > 2 ? nda - 2 : 0, nbb = ndb > 2 ? ndb - 2 : 0, nb, i;
    long long nbatch = 1, bi, total;
    int64_t sta[TT_MAX_DIMS], stb[TT_MAX_DIMS];
    double *o, *t;
    if (nda == 1) { M = 1; K = sa[0]; } else { M = sa[nda - 2]; K = sa[nda - 1]; }
    if (ndb == 1) { N = 1; } else { N = sb[ndb - 1]; }
    nb = nba > nbb ? nba : nbb;
    for (i = 0; i < nb; i++) {
        int ia = i - (nb - nba), ib = i - (nb - nbb);
        ba[i] = ia >= 0 ? sa[ia] : 1;
        bb[i] = ib >= 0 ? sb[ib] : 1;
        bo[i] = ba[i] > bb[i] ? ba[i] : bb[i];
        nbatch *= bo[i];
    }
    /* element strides of each batch axis in the contiguous operands (0 where broadcast) */
    {
        int64_t s_a = M * K, s_b = K * N;
        for (i = nb - 1; i >= 0; i--) {
            sta[i] = ba[i] == 1 ? 0 : s_a;
            stb[i] = bb[i] == 1 ? 0 : s_b;
            s_a *= ba[i];
            s_b *= bb[i];
        }
    }
    total = nbatch * M * N;
    o = (double *)malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    t = (double *)malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    for (bi = 0; bi < nbatch; bi++) {
        long long rem = bi, offa = 0, offb = 0;
        int64_t m, n, k;
        for (i = nb - 1; i >= 0; i--) {
            long long idx = rem % bo[i];
            rem /= bo[i];
            offa += idx * sta[i];
            offb += idx * stb[i];
        }
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) {
                double s = 0.0, sabs = 0.0;
                for (k = 0; k < K; k++) {
                    double p = a[offa + m * K + k] * b[offb + k * N + n];
                    s += p;
                    sabs += fabs(p);
                }
                o[(bi * M + m) * N + n] = s;
                t[(bi * M + m) * N + n] = 1e-6 * sabs;
            }
    }
    *ndo = 0;
    for (i = 0; i < nb; i++) so[(*ndo)++] = bo[i];
    if (nda > 1) so[(*ndo)++] = M;
    if (ndb > 1) so[(*ndo)++] = N;
    *out = o;
    *tol = t;
    return total;
}

/* Runs tt_matmul on a and b (whose logical values are va and vb) and checks shape and values. */
static int la_check_matmul(tt_ctx *c, tt_tensor *a, const double *va, long long na, tt_tensor *b,
                           const double *vb, long long nb, const char *file, int line) {
    double *want = NULL, *tol = NULL;
    int ndo = 0, ok;
    int64_t so[TT_MAX_DIMS];
    long long n;
    tt_tensor *r;
    if (!a || !b) return tt_test__fail(file, line, "operand is NULL");
    /* the operands' element counts match the arrays the reference reads */
    if (!tt_test__eq_int(a->numel, na, file, line, "a->numel", "na")) return 0;
    if (!tt_test__eq_int(b->numel, nb, file, line, "b->numel", "nb")) return 0;
    n = la_ref_matmul(va, a->ndim, a->shape, vb, b->ndim, b->shape, &want, &tol, &ndo, so);
    r = tt_matmul(c, a, b);
    ok = tu_check_shape(r, ndo, so, file, line);
    if (ok) ok = tu_check_close(c, r, want, tol, 0.0, 0.0, n, file, line);
    ok &= tt_test__str_contains(tt_error(c) ? tt_error(c) : "(no error)", "(no error)", file, line, "tt_error(c)");
    if (!tt_ctx_check_guards(c)) ok = tt_test__fail(file, line, "guards overwritten");
    free(want);
    free(tol);
    return ok;
}
#define LA_CHECK_MATMUL(c, a, va, na, b, vb, nb) \
    la_check_matmul((c), (a), (va), (na), (b), (vb), (nb), __FILE__, __LINE__)

/* Contiguous random a [shape_a] and b [shape_b], then tt_matmul checked against the reference. */
static void la_matmul_case(int nda, const int64_t *sa, int ndb, const int64_t *sb, unsigned long long seed,
                           const char *file, int line) {
    tt_ctx *c = tu_ctx();
    double *va, *vb;
    tt_tensor *a = tu_rand(c, nda, sa, seed, -1.0, 1.0, &va);
    tt_tensor *b = tu_rand(c, ndb, sb, seed + 1000, -1.0, 1.0, &vb);
    la_check_matmul(c, a, va, tu_numel(nda, sa), b, vb, tu_numel(ndb, sb), file, line);
    free(va);
    free(vb);
    tt_ctx_destroy(c);
}
#define LA_MATMUL_CASE(nda, sa, ndb, sb, seed) la_matmul_case((nda), (sa), (ndb), (sb), (seed), __FILE__, __LINE__)

/* Logical values of the transpose of a contiguous [R,C] array: [C,R]. */
static double *la_transposed(const double *v, int64_t R, int64_t C) {
    double *t = (double *)malloc(sizeof(double) * (size_t)(R * C));
    int64_t r, k;
    for (r = 0; r < R; r++)
        for (k = 0; k < C; k++) t[k * R + r] = v[r * C + k];
    return t;
}

/* ---- matmul: vectors --------------------------------------------------------------------- */

static void test_matmul_dot_1d(void) {
    int64_t s1[1] = {1}, s7[1] = {7}, s1001[1] = {1001};
    LA_MATMUL_CASE(1, s1, 1, s1, 1);
    LA_MATMUL_CASE(1, s7, 1, s7, 2);
    LA_MATMUL_CASE(1, s1001, 1, s1001, 3);
    {   /* the result is 0-d, and tt_item reads it */
        tt_ctx *c = tu_ctx();
        double *va, *vb, want = 0.0, sabs = 0.0;
        int64_t i;
        tt_tensor *a = tu_rand(c, 1, s7, 4, -1.0, 1.0, &va), *b = tu_rand(c, 1, s7, 5, -1.0, 1.0, &vb);
        tt_tensor *r = tt_matmul(c, a, b);
        CHECK_GUARDS(c);
        for (i = 0; i < 7; i++) { want += va[i] * vb[i]; sabs += fabs(va[i] * vb[i]); }
        if (CHECK(r != NULL)) {
            CHECK_EQ_INT(r->ndim, 0);
            CHECK_EQ_INT(r->numel, 1);
            CHECK_NEAR(tt_item(c, r), want, 1e-6 * sabs, 0);
        }
        CHECK_NO_ERROR(c);
        free(va);
        free(vb);
        tt_ctx_destroy(c);
    }
}

static void test_matmul_mat_vec(void) {
    int64_t a1[2] = {3, 7}, b1[1] = {7};
    int64_t a2[2] = {33, 1001}, b2[1] = {1001};
    int64_t a3[2] = {1, 1}, b3[1] = {1};
    LA_MATMUL_CASE(2, a1, 1, b1, 10);
    LA_MATMUL_CASE(2, a2, 1, b2, 11);
    LA_MATMUL_CASE(2, a3, 1, b3, 12);
}

static void test_matmul_vec_mat(void) {
    int64_t a1[1] = {7}, b1[2] = {7, 5};
    int64_t a2[1] = {1001}, b2[2] = {1001, 3};
    int64_t a3[1] = {1}, b3[2] = {1, 33};
    LA_MATMUL_CASE(1, a1, 2, b1, 20);
    LA_MATMUL_CASE(1, a2, 2, b2, 21);
    LA_MATMUL_CASE(1, a3, 2, b3, 22);
}

/* ---- matmul: matrices ------------------------------------------------------------------- */

static void test_matmul_2d_odd_sizes(void) {
    static const int64_t mkn[][3] = {
        {1, 1, 1}, {3, 7, 5}, {33, 65, 17}, {7, 1001, 9}, {1, 33, 1}, {65, 1, 33}, {2, 3, 1}, {17, 16, 64},
        {700, 64, 24}, {300, 100, 40}, {1000, 33, 17}   /* narrower than a sliver, large enough to pack */
    };
    size_t i;
    for (i = 0; i < sizeof mkn / sizeof mkn[0]; i++) {
        int64_t sa[2], sb[2];
        sa[0] = mkn[i][0]; sa[1] = mkn[i][1];
        sb[0] = mkn[i][1]; sb[1] = mkn[i][2];
        LA_MATMUL_CASE(2, sa, 2, sb, 30 + (unsigned long long)i);
    }
}

/* Large values: the tolerance is relative to sum|terms|, so scale must not matter. */
static void test_matmul_2d_scaled_values(void) {
    tt_ctx *c = tu_ctx();
    int64_t sa[2] = {5, 40}, sb[2] = {40, 3};
    double *va = (double *)malloc(sizeof(double) * 200), *vb = (double *)malloc(sizeof(double) * 120);
    int i;
    tt_tensor *a, *b;
    tu_uniform(va, 200, 40, -1000.0, 1000.0);
    tu_uniform(vb, 120, 41, -1e-3, 1e-3);
    for (i = 0; i < 200; i += 7) va[i] = 0.0;
    a = tu_tensor(c, 2, sa, va);
    b = tu_tensor(c, 2, sb, vb);
    LA_CHECK_MATMUL(c, a, va, 200, b, vb, 120);
    free(va);
    free(vb);
    tt_ctx_destroy(c);
}

/* ---- matmul: batches and broadcasting -------------------------------------------------- */

static void test_matmul_batched_broadcast(void) {
    {   /* [2,1,3,4] x [5,4,6] -> [2,5,3,6] */
        int64_t sa[4] = {2, 1, 3, 4}, sb[3] = {5, 4, 6};
        LA_MATMUL_CASE(4, sa, 3, sb, 50);
    }
    {   /* same batch: [3,7,5] x [3,5,33] */
        int64_t sa[3] = {3, 7, 5}, sb[3] = {3, 5, 33};
        LA_MATMUL_CASE(3, sa, 3, sb, 51);
    }
    {   /* 2-D x N-D: [3,4] x [5,4,6] -> [5,3,6] */
        int64_t sa[2] = {3, 4}, sb[3] = {5, 4, 6};
        LA_MATMUL_CASE(2, sa, 3, sb, 52);
    }
    {   /* N-D x 2-D: [2,3,7,4] x [4,5] -> [2,3,7,5] */
        int64_t sa[4] = {2, 3, 7, 4}, sb[2] = {4, 5};
        LA_MATMUL_CASE(4, sa, 2, sb, 53);
    }
    {   /* N-D x 1-D: [2,3,4] x [4] -> [2,3] */
        int64_t sa[3] = {2, 3, 4}, sb[1] = {4};
        LA_MATMUL_CASE(3, sa, 1, sb, 54);
    }
    {   /* 1-D x N-D: [4] x [2,4,6] -> [2,6] */
        int64_t sa[1] = {4}, sb[3] = {2, 4, 6};
        LA_MATMUL_CASE(1, sa, 3, sb, 55);
    }
    {   /* size-1 batch axes on both sides: [1,3,4] x [2,1,4,5] -> [2,1,3,5] */
        int64_t sa[3] = {1, 3, 4}, sb[4] = {2, 1, 4, 5};
        LA_MATMUL_CASE(3, sa, 4, sb, 56);
    }
    {   /* crossed broadcasting: [3,1,2,5] x [1,4,5,7] -> [3,4,2,7] */
        int64_t sa[4] = {3, 1, 2, 5}, sb[4] = {1, 4, 5, 7};
        LA_MATMUL_CASE(4, sa, 4, sb, 57);
    }
    {   /* larger batched: [4,33,65] x [65,17] */
        int64_t sa[3] = {4, 33, 65}, sb[2] = {65, 17};
        LA_MATMUL_CASE(3, sa, 2, sb, 58);
    }
    {   /* 5-D with size-1 matrix dims: [2,1,3,1,1] x [3,1,1] -> [2,1,3,1,1] */
        int64_t sa[5] = {2, 1, 3, 1, 1}, sb[3] = {3, 1, 1};
        LA_MATMUL_CASE(5, sa, 3, sb, 59);
    }
}

/* ---- matmul: views ---------------------------------------------------------------------- */

static void test_matmul_transposed_operands(void) {
    tt_ctx *c = tu_ctx();
    /* a = transpose of a contiguous [K,M], b = transpose of a contiguous [N,K] */
    int64_t M = 33, K = 65, N = 17;
    int64_t sat[2], sbt[2];
    double *vat, *vbt, *va, *vb, *vbc;
    tt_tensor *at, *bt, *a, *b, *bc;
    sat[0] = K; sat[1] = M;
    sbt[0] = N; sbt[1] = K;
    at = tu_rand(c, 2, sat, 60, -1.0, 1.0, &vat);
    bt = tu_rand(c, 2, sbt, 61, -1.0, 1.0, &vbt);
    a = tt_transpose(c, at, 0, 1);
    b = tt_transpose(c, bt, 0, 1);
    CHECK_GUARDS(c);
    va = la_transposed(vat, K, M);   /* [M,K] */
    vb = la_transposed(vbt, N, K);   /* [K,N] */
    CHECK(a && !tt_is_contiguous(a));
    LA_CHECK_MATMUL(c, a, va, M * K, b, vb, K * N);           /* both transposed */
    {
        int64_t sb[2];
        sb[0] = K; sb[1] = N;
        bc = tu_rand(c, 2, sb, 62, -1.0, 1.0, &vbc);
        LA_CHECK_MATMUL(c, a, va, M * K, bc, vbc, K * N);     /* only a transposed */
        free(vbc);
    }
    {   /* transposed vector-matrix: [K] x transposed [K,N] */
        double *vv;
        int64_t sv[1];
        tt_tensor *v;
        sv[0] = K;
        v = tu_rand(c, 1, sv, 63, -1.0, 1.0, &vv);
        LA_CHECK_MATMUL(c, v, vv, K, b, vb, K * N);
        LA_CHECK_MATMUL(c, a, va, M * K, v, vv, K);
        free(vv);
    }
    free(vat); free(vbt); free(va); free(vb);
    tt_ctx_destroy(c);
}

static void test_matmul_step2_slices(void) {
    tt_ctx *c = tu_ctx();
    /* a = rows 1,3,5,... of a [15,7] base: [7,7]; b = columns 0,2,4,... of [7,10]: [7,5] */
    int64_t sab[2] = {15, 7}, sbb[2] = {7, 10};
    double *vab, *vbb, va[49], vb[35];
    int64_t i, j;
    tt_tensor *ab = tu_rand(c, 2, sab, 70, -1.0, 1.0, &vab), *bb = tu_rand(c, 2, sbb, 71, -1.0, 1.0, &vbb);
    tt_tensor *a = tt_slice(c, ab, 0, 1, 15, 2), *b = tt_slice(c, bb, 1, 0, 10, 2);
    CHECK_GUARDS(c);
    for (i = 0; i < 7; i++)
        for (j = 0; j < 7; j++) va[i * 7 + j] = vab[(1 + 2 * i) * 7 + j];
    for (i = 0; i < 7; i++)
        for (j = 0; j < 5; j++) vb[i * 5 + j] = vbb[i * 10 + 2 * j];
    if (CHECK(a && b)) {
        CHECK_EQ_INT(a->shape[0], 7);
        CHECK_EQ_INT(b->shape[1], 5);
        LA_CHECK_MATMUL(c, a, va, 49, b, vb, 35);
    }
    {   /* a step-2 slice on the inner axis of a vector: [14] -> [7] */
        int64_t sv[1] = {14};
        double *vvb, vv[7];
        tt_tensor *vbase = tu_rand(c, 1, sv, 72, -1.0, 1.0, &vvb);
        tt_tensor *v = tt_slice(c, vbase, 0, 0, 14, 2);
        for (i = 0; i < 7; i++) vv[i] = vvb[2 * i];
        LA_CHECK_MATMUL(c, a, va, 49, v, vv, 7);
        LA_CHECK_MATMUL(c, v, vv, 7, a, va, 49);
        free(vvb);
    }
    free(vab); free(vbb);
    tt_ctx_destroy(c);
}

static void test_matmul_expanded_and_permuted(void) {
    tt_ctx *c = tu_ctx();
    {   /* b = expand of [1,5,3] to [4,5,3] (batch stride 0); a [4,7,5] */
        int64_t sb1[3] = {1, 5, 3}, sbe[3] = {4, 5, 3}, sa[3] = {4, 7, 5};
        double *vb1, *va, vbe[60];
        int i;
        tt_tensor *b1 = tu_rand(c, 3, sb1, 80, -1.0, 1.0, &vb1), *a = tu_rand(c, 3, sa, 81, -1.0, 1.0, &va);
        tt_tensor *be = tt_expand(c, b1, 3, sbe);
        CHECK_GUARDS(c);
        for (i = 0; i < 60; i++) vbe[i] = vb1[i % 15];
        LA_CHECK_MATMUL(c, a, va, 140, be, vbe, 60);
        free(vb1); free(va);
    }
    {   /* a = permute {1,0,2} of a contiguous [7,3,5] -> [3,7,5]; b = permute {0,2,1} of [3,4,5] -> [3,5,4] */
        int64_t sa0[3] = {7, 3, 5}, sb0[3] = {3, 4, 5};
        int pa[3] = {1, 0, 2}, pb[3] = {0, 2, 1};
        double *va0, *vb0, va[105], vb[60];
        int64_t i, j, k;
        tt_tensor *a0 = tu_rand(c, 3, sa0, 82, -1.0, 1.0, &va0), *b0 = tu_rand(c, 3, sb0, 83, -1.0, 1.0, &vb0);
        tt_tensor *a = tt_permute(c, a0, pa), *b = tt_permute(c, b0, pb);
        CHECK_GUARDS(c);
        for (i = 0; i < 3; i++)
            for (j = 0; j < 7; j++)
                for (k = 0; k < 5; k++) va[(i * 7 + j) * 5 + k] = va0[(j * 3 + i) * 5 + k];
        for (i = 0; i < 3; i++)
            for (j = 0; j < 5; j++)
                for (k = 0; k < 4; k++) vb[(i * 5 + j) * 4 + k] = vb0[(i * 4 + k) * 5 + j];
        LA_CHECK_MATMUL(c, a, va, 105, b, vb, 60);
        free(va0); free(vb0);
    }
    tt_ctx_destroy(c);
}

static void test_matmul_same_operand(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {7, 7}, sr[2] = {7, 33}, sv[1] = {33};
    double *vx, *vr, *vrt, *vv;
    tt_tensor *x = tu_rand(c, 2, s, 90, -1.0, 1.0, &vx);
    tt_tensor *r = tu_rand(c, 2, sr, 91, -1.0, 1.0, &vr);
    tt_tensor *rt = tt_transpose(c, r, 0, 1);
    tt_tensor *v = tu_rand(c, 1, sv, 92, -1.0, 1.0, &vv);
    CHECK_GUARDS(c);
    LA_CHECK_MATMUL(c, x, vx, 49, x, vx, 49);       /* x @ x */
    vrt = la_transposed(vr, 7, 33);
    LA_CHECK_MATMUL(c, r, vr, 231, rt, vrt, 231);     /* r @ r^T: a Gram matrix from one storage */
    LA_CHECK_MATMUL(c, rt, vrt, 231, r, vr, 231);     /* r^T @ r */
    LA_CHECK_MATMUL(c, v, vv, 33, v, vv, 33);       /* v . v */
    free(vx); free(vr); free(vrt); free(vv);
    tt_ctx_destroy(c);
}

/* ---- linear --------------------------------------------------------------------------------- */

/* Reference x [rows, in] . w[out, in]^T + bias -> [rows, out] with tolerances. */
static void la_ref_linear(const double *x, const double *w, const double *bias, int64_t rows, int64_t in,
                          int64_t out, double *y, double *tol) {
    int64_t r, o, k;
    for (r = 0; r < rows; r++)
        for (o = 0; o < out; o++) {
            double s = bias ? bias[o] : 0.0, sabs = bias ? fabs(bias[o]) : 0.0;
            for (k = 0; k < in; k++) {
                double p = x[r * in + k] * w[o * in + k];
                s += p;
                sabs += fabs(p);
            }
            y[r * out + o] = s;
            tol[r * out + o] = 1e-6 * sabs;
        }
}

/* x of shape xs (nd dims, last = in) and weight [out,in] (contiguous), with/without bias. */
static void la_linear_case(int nd, const int64_t *xs, int64_t out, int with_bias, unsigned long long seed,
                           const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t in = xs[nd - 1], ws[2], bs[1], ys[TT_MAX_DIMS];
    long long rows = tu_numel(nd - 1, xs);
    double *vx, *vw, *vb = NULL, *want, *tol;
    tt_tensor *x, *w, *b = NULL, *y;
    int i;
    ws[0] = out; ws[1] = in; bs[0] = out;
    x = tu_rand(c, nd, xs, seed, -1.0, 1.0, &vx);
    w = tu_rand(c, 2, ws, seed + 1, -1.0, 1.0, &vw);
    if (with_bias) b = tu_rand(c, 1, bs, seed + 2, -1.0, 1.0, &vb);
    want = (double *)malloc(sizeof(double) * (size_t)(rows * out));
    tol = (double *)malloc(sizeof(double) * (size_t)(rows * out));
    la_ref_linear(vx, vw, vb, rows, in, out, want, tol);
    y = tt_linear(c, x, w, b);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    for (i = 0; i < nd - 1; i++) ys[i] = xs[i];
    ys[nd - 1] = out;
    if (tu_check_shape(y, nd, ys, file, line)) tu_check_close(c, y, want, tol, 0.0, 0.0, rows * out, file, line);
    free(vx); free(vw); free(vb); free(want); free(tol);
    tt_ctx_destroy(c);
}
#define LA_LINEAR_CASE(nd, xs, out, bias, seed) la_linear_case((nd), (xs), (out), (bias), (seed), __FILE__, __LINE__)

static void test_linear_2d(void) {
    int64_t x1[2] = {5, 7}, x2[2] = {1, 1}, x3[2] = {33, 1001}, x4[2] = {3, 65};
    LA_LINEAR_CASE(2, x1, 3, 1, 100);
    LA_LINEAR_CASE(2, x1, 3, 0, 101);
    LA_LINEAR_CASE(2, x2, 1, 1, 102);
    LA_LINEAR_CASE(2, x3, 9, 1, 103);
    LA_LINEAR_CASE(2, x4, 17, 0, 104);
    {   /* packed SGEMM with fewer output columns than one 48-wide sliver */
        int64_t x5[2] = {500, 64}, x6[2] = {801, 40};
        LA_LINEAR_CASE(2, x5, 20, 1, 105);
        LA_LINEAR_CASE(2, x6, 47, 0, 106);
    }
    {   /* batch 1: dot products four weight rows at a time, over two column tiles of 1024 */
        int64_t x7[2] = {1, 300};
        LA_LINEAR_CASE(2, x7, 1030, 1, 107);
    }
}

static void test_linear_3d(void) {
    int64_t x1[3] = {2, 3, 7}, x2[3] = {3, 1, 33}, x3[4] = {2, 1, 3, 5};
    LA_LINEAR_CASE(3, x1, 5, 1, 110);
    LA_LINEAR_CASE(3, x1, 5, 0, 111);
    LA_LINEAR_CASE(3, x2, 17, 1, 112);
    LA_LINEAR_CASE(4, x3, 4, 1, 113);
}

/* x [in] -> [out], as torch.nn.functional.linear (x [..., in] with no leading axes). */
static void test_linear_1d_input(void) {
    int64_t x1[1] = {7};
    LA_LINEAR_CASE(1, x1, 3, 1, 120);
    LA_LINEAR_CASE(1, x1, 3, 0, 121);
}

static void test_linear_views(void) {
    tt_ctx *c = tu_ctx();
    /* weight = transpose of a contiguous [in,out] (as when sharing a [in,out] matrix);
       x = step-2 slice along the batch axis of a [2*rows, in] base, then a [B,T,in] view of it */
    int64_t in = 33, out = 7, rows = 6;
    int64_t swt[2], sxb[3], sb[1], ys[3];
    double *vwt, *vw, *vxb, *vb, vx[6 * 33], want[6 * 7], tol[6 * 7];
    int64_t i, j, k;
    tt_tensor *wt, *w, *xb, *x, *b, *y;
    swt[0] = in; swt[1] = out;
    sxb[0] = 2; sxb[1] = 6; sxb[2] = in;                 /* [2,6,33] */
    sb[0] = out;
    wt = tu_rand(c, 2, swt, 130, -1.0, 1.0, &vwt);
    w = tt_transpose(c, wt, 0, 1);                        /* [out,in], non-contiguous */
    vw = la_transposed(vwt, in, out);
    xb = tu_rand(c, 3, sxb, 131, -1.0, 1.0, &vxb);
    x = tt_slice(c, xb, 1, 0, sxb[1], 2);                 /* [2,3,33] */
    b = tu_rand(c, 1, sb, 132, -1.0, 1.0, &vb);
    CHECK_GUARDS(c);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < in; k++) vx[(i * 3 + j) * in + k] = vxb[(i * sxb[1] + 2 * j) * in + k];
    la_ref_linear(vx, vw, vb, rows, in, out, want, tol);
    y = tt_linear(c, x, w, b);
    CHECK_GUARDS(c);
    ys[0] = 2; ys[1] = 3; ys[2] = out;
    if (CHECK_SHAPE(y, 3, ys)) tu_check_close(c, y, want, tol, 0.0, 0.0, rows * out, __FILE__, __LINE__);
    /* transposed weight with a contiguous x and no bias */
    {
        int64_t sx[2] = {5, 33};
        double *vx2, want2[5 * 7], tol2[5 * 7];
        tt_tensor *x2 = tu_rand(c, 2, sx, 133, -1.0, 1.0, &vx2), *y2;
        la_ref_linear(vx2, vw, NULL, 5, in, out, want2, tol2);
        y2 = tt_linear(c, x2, w, NULL);
        CHECK_GUARDS(c);
        ys[0] = 5; ys[1] = out;
        if (CHECK_SHAPE(y2, 2, ys)) tu_check_close(c, y2, want2, tol2, 0.0, 0.0, 5 * out, __FILE__, __LINE__);
        free(vx2);
    }
    CHECK_NO_ERROR(c);
    free(vwt); free(vw); free(vxb); free(vb);
    tt_ctx_destroy(c);
}

/* ---- bad input ------------------------------------------------------------------------------- */

static void test_matmul_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s3[1] = {3}, s4[1] = {4};
    int64_t s234[3] = {2, 3, 4}, s345[3] = {3, 4, 5};
    tt_tensor *a23 = tt_zeros(c, TT_F32, 2, s23), *b45 = tt_zeros(c, TT_F32, 2, s45);
    tt_tensor *v3 = tt_zeros(c, TT_F32, 1, s3), *v4 = tt_zeros(c, TT_F32, 1, s4);
    tt_tensor *a234 = tt_zeros(c, TT_F32, 3, s234), *b345 = tt_zeros(c, TT_F32, 3, s345);
    tt_tensor *sc = tt_scalar(c, 2.0f);
    CHECK_GUARDS(c);
    CHECK_NO_ERROR(c);

    /* inner dimensions differ: the message names the op and both shapes */
    CHECK(tt_matmul(c, a23, b45) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "tt_matmul:");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    CHECK_STR_CONTAINS(tt_error(c), "[4,5]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul");

    /* 1-D x 1-D of different lengths */
    CHECK(tt_matmul(c, v3, v4) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[3]");
    CHECK_STR_CONTAINS(tt_error(c), "[4]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul:");

    /* matrix x vector of the wrong length */
    CHECK(tt_matmul(c, a23, v4) == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul:");
    CHECK(tt_matmul(c, v3, b45) == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul:");

    /* 0-d operands: matmul needs at least 1-D on both sides */
    CHECK(tt_matmul(c, sc, v3) == NULL);
    CHECK_GUARDS(c);
    CHECK(tt_ctx_status(c) == TT_ERR_SHAPE || tt_ctx_status(c) == TT_ERR_ARG);
    CHECK_STR_CONTAINS(tt_error(c), "[]");
    CHECK_STR_CONTAINS(tt_error(c), "tt_matmul:");
    tt_clear_error(c);
    CHECK(tt_matmul(c, a23, sc) == NULL);
    CHECK_GUARDS(c);
    CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_matmul:");
    CHECK(tt_matmul(c, sc, sc) == NULL);
    CHECK_GUARDS(c);
    CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_matmul:");

    /* batch axes that do not broadcast: [2,3,4] x [3,4,5] */
    CHECK(tt_matmul(c, a234, b345) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[2,3,4]");
    CHECK_STR_CONTAINS(tt_error(c), "[3,4,5]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul:");

    /* errors are sticky: the first one is kept */
    CHECK(tt_matmul(c, a23, b45) == NULL);
    CHECK(tt_matmul(c, a234, b345) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[4,5]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul:");

    /* NULL inputs give NULL and add no error */
    CHECK(tt_matmul(c, NULL, b45) == NULL);
    CHECK(tt_matmul(c, a23, NULL) == NULL);
    CHECK(tt_matmul(c, NULL, NULL) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    /* NULL flowing through a chain */
    CHECK(tt_matmul(c, tt_matmul(c, a23, NULL), b45) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_linear_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t sx[2] = {5, 7}, sw[2] = {3, 7}, sw2[2] = {3, 6}, sb4[1] = {4}, sb3[1] = {3};
    int64_t sw3[3] = {1, 3, 7};
    tt_tensor *x = tt_zeros(c, TT_F32, 2, sx), *w = tt_zeros(c, TT_F32, 2, sw), *w2 = tt_zeros(c, TT_F32, 2, sw2);
    tt_tensor *b4 = tt_zeros(c, TT_F32, 1, sb4), *b3 = tt_zeros(c, TT_F32, 1, sb3);
    tt_tensor *w3 = tt_zeros(c, TT_F32, 3, sw3);
    CHECK_GUARDS(c);

    /* wrong bias size */
    CHECK(tt_linear(c, x, w, b4) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[4]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_linear:");

    /* in features differ between x and weight */
    CHECK(tt_linear(c, x, w2, b3) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "[5,7]");
    CHECK_STR_CONTAINS(tt_error(c), "[3,6]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_linear:");

    /* weight must be 2-D */
    CHECK(tt_linear(c, x, w3, NULL) == NULL);
    CHECK_GUARDS(c);
    CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_linear:");

    /* NULL x or weight: NULL and no new error (a NULL bias means "no bias") */
    CHECK(tt_linear(c, NULL, w, b3) == NULL);
    CHECK(tt_linear(c, x, NULL, b3) == NULL);
    CHECK(tt_linear(c, NULL, NULL, NULL) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    CHECK(tt_linear(c, x, w, NULL) != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(linalg) = {
    {"matmul_dot_1d", test_matmul_dot_1d},
    {"matmul_mat_vec", test_matmul_mat_vec},
    {"matmul_vec_mat", test_matmul_vec_mat},
    {"matmul_2d_odd_sizes", test_matmul_2d_odd_sizes},
    {"matmul_2d_scaled_values", test_matmul_2d_scaled_values},
    {"matmul_batched_broadcast", test_matmul_batched_broadcast},
    {"matmul_transposed_operands", test_matmul_transposed_operands},
    {"matmul_step2_slices", test_matmul_step2_slices},
    {"matmul_expanded_and_permuted", test_matmul_expanded_and_permuted},
    {"matmul_same_operand", test_matmul_same_operand},
    {"linear_2d", test_linear_2d},
    {"linear_3d", test_linear_3d},
    {"linear_1d_input", test_linear_1d_input},
    {"linear_views", test_linear_views},
    {"matmul_bad_input", test_matmul_bad_input},
    {"linear_bad_input", test_linear_bad_input},
    {NULL, NULL}
};
