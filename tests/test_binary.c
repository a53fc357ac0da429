/* test_binary.c - group `binary`: binary elementwise ops of tinytrace.h (arithmetic,
   comparisons, logical ops, where, cast) against double-precision references.

   Covered: NumPy broadcasting ([3,1]x[1,4], [5,1,7]x[3,1], 0-d x [33], [1]x[1000],
   [2,3,4]x[4], expanded / transposed / permuted / step-2-sliced operands, the same tensor as
   both operands), three kinds of data (continuous, ties-heavy half-integers, positive),
   every pair of input dtypes, the scalar forms, IEEE special values, where (broadcast, dtype
   rules), cast between every pair of dtypes checked bit by bit against this file's own
   round-to-nearest-even reference, and bad input (shapes, dtypes, NULL, sticky errors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include "test_util.h"

/* f16/bf16 references: tu_small_decode / tu_small_encode in test_util.h. */

static int bi_is_nan_bits(unsigned bits, int ebits, int mbits) {
    unsigned emax = (1u << ebits) - 1u;
    return ((bits >> mbits) & emax) == emax && (bits & ((1u << mbits) - 1u)) != 0;
}

/* Random data of three kinds: 0 continuous in [-2,2); 1 half-integers in [-2,2] (many ties
   and zeros); 2 positive in [0.25, 3). */
enum { BI_CONT, BI_HALF, BI_POS, BI_NMODES };
static const char *const bi_mode_names[BI_NMODES] = {"continuous", "half-integers", "positive"};

static void bi_fill(double *v, long long n, unsigned long long seed, int mode) {
    long long i;
    if (mode == BI_POS) { tu_uniform(v, n, seed, 0.25, 3.0); return; }
    tu_uniform(v, n, seed, -2.0, 2.0);
    if (mode == BI_HALF) for (i = 0; i < n; i++) v[i] = 0.5 * floor(2.0 * v[i] + 0.5);
}

/* ---------------------------------------------------------------------------
   Operands: a tensor (any layout) plus its logical shape and its elements in row-major
   order, worked out here from the source data (never read back through the library).
   --------------------------------------------------------------------------- */
typedef struct bi_operand {
    tt_tensor *t;
    int        ndim;
    int64_t    shape[4];
    double    *v;              /* malloc'd, numel(shape) entries */
} bi_operand;

static void bi_free(bi_operand *o) { free(o->v); o->v = NULL; }

static bi_operand bi_contig(tt_ctx *c, tt_dtype dt, int ndim, const int64_t *shape, unsigned long long seed, int mode) {
    bi_operand o;
    long long n = tu_numel(ndim, shape);
    int i;
    o.ndim = ndim;
    for (i = 0; i < ndim; i++) o.shape[i] = shape[i];
    o.v = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    bi_fill(o.v, n, seed, mode);
    o.t = tu_tensor_dt(c, dt, ndim, shape, o.v);
    return o;
}

/* Logical [r,k] as the transpose of a contiguous [k,r]. */
static bi_operand bi_transposed(tt_ctx *c, tt_dtype dt, int64_t r, int64_t k, unsigned long long seed, int mode) {
    int64_t sshape[2];
    bi_operand s, o;
    long long i, j;
    sshape[0] = k; sshape[1] = r;
    s = bi_contig(c, dt, 2, sshape, seed, mode);
    o.t = tt_transpose(c, s.t, 0, 1);
    o.ndim = 2; o.shape[0] = r; o.shape[1] = k;
    o.v = (double *)malloc(sizeof(double) * (size_t)(r * k));
    for (i = 0; i < r; i++) for (j = 0; j < k; j++) o.v[i * k + j] = s.v[j * r + i];
    bi_free(&s);
    return o;
}

/* Logical [a,b,c] as a permutation {1,2,0} of a contiguous [c,a,b]: o[i][j][l] = s[l][i][j]. */
static bi_operand bi_permuted3(tt_ctx *c, tt_dtype dt, const int64_t *shape, unsigned long long seed, int mode) {
    int64_t sshape[3];
    int perm[3] = {1, 2, 0};
    bi_operand s, o;
    long long i, j, l, A = shape[0], B = shape[1], C = shape[2];
    sshape[0] = C; sshape[1] = A; sshape[2] = B;
    s = bi_contig(c, dt, 3, sshape, seed, mode);
    o.t = tt_permute(c, s.t, perm);
    o.ndim = 3; o.shape[0] = A; o.shape[1] = B; o.shape[2] = C;
    o.v = (double *)malloc(sizeof(double) * (size_t)(A * B * C));
    for (i = 0; i < A; i++) for (j = 0; j < B; j++) for (l = 0; l < C; l++)
        o.v[(i * B + j) * C + l] = s.v[(l * A + i) * B + j];
    bi_free(&s);
    return o;
}

/* Logical shape `shape` (ndim <= 4) as an expand of a contiguous tensor of sshape (same ndim,
   size-1 axes where expanded). */
static bi_operand bi_expanded(tt_ctx *c, tt_dtype dt, int ndim, const int64_t *sshape, const int64_t *shape,
                              unsigned long long seed, int mode) {
    bi_operand s, o;
    long long n = tu_numel(ndim, shape), i;
    int d;
    s = bi_contig(c, dt, ndim, sshape, seed, mode);
    o.t = tt_expand(c, s.t, ndim, shape);
    o.ndim = ndim;
    for (d = 0; d < ndim; d++) o.shape[d] = shape[d];
    o.v = (double *)malloc(sizeof(double) * (size_t)n);
    for (i = 0; i < n; i++) {
        long long rem = i, si = 0, sstride = 1;
        for (d = ndim - 1; d >= 0; d--) {
            long long idx = rem % shape[d];
            rem /= shape[d];
            if (sshape[d] != 1) si += idx * sstride;
            sstride *= sshape[d];
        }
        o.v[i] = s.v[si];
    }
    bi_free(&s);
    return o;
}

/* Logical [r,k] as rows 1,3,5,... of a contiguous [2r+1,k] (k == 0: 1-D [r] from [2r+1]). */
static bi_operand bi_sliced(tt_ctx *c, tt_dtype dt, int64_t r, int64_t k, unsigned long long seed, int mode) {
    bi_operand s, o;
    int64_t sshape[2];
    long long i, j, kk = k > 0 ? k : 1;
    sshape[0] = 2 * r + 1; sshape[1] = k;
    s = bi_contig(c, dt, k > 0 ? 2 : 1, sshape, seed, mode);
    o.t = tt_slice(c, s.t, 0, 1, 2 * r + 1, 2);
    o.ndim = k > 0 ? 2 : 1; o.shape[0] = r; o.shape[1] = k;
    o.v = (double *)malloc(sizeof(double) * (size_t)(r * kk));
    for (i = 0; i < r; i++) for (j = 0; j < kk; j++) o.v[i * kk + j] = s.v[(1 + 2 * i) * kk + j];
    bi_free(&s);
    return o;
}

/* ---------------------------------------------------------------------------
   Binary ops and their references.
   --------------------------------------------------------------------------- */
typedef tt_tensor *(*bi_fn)(tt_ctx *, tt_tensor *, tt_tensor *);
typedef double (*bi_ref_fn)(double, double);

typedef struct bi_op {
    const char *name;          /* the library function's name, as error messages must give it */
    bi_fn       fn;
    bi_ref_fn   ref;
    int         boolean;       /* result dtype bool (else f32) */
    double      atol, rtol;
} bi_op;

static double bi_r_add(double a, double b) { return a + b; }
static double bi_r_sub(double a, double b) { return a - b; }
static double bi_r_mul(double a, double b) { return a * b; }
static double bi_r_div(double a, double b) { return a / b; }
static double bi_r_pow(double a, double b) { return pow(a, b); }
static double bi_r_max(double a, double b) { return a > b ? a : b; }
static double bi_r_min(double a, double b) { return a < b ? a : b; }
static double bi_r_eq(double a, double b) { return a == b ? 1.0 : 0.0; }
static double bi_r_ne(double a, double b) { return a != b ? 1.0 : 0.0; }
static double bi_r_lt(double a, double b) { return a < b ? 1.0 : 0.0; }
static double bi_r_le(double a, double b) { return a <= b ? 1.0 : 0.0; }
static double bi_r_gt(double a, double b) { return a > b ? 1.0 : 0.0; }
static double bi_r_atan2(double a, double b) { return atan2(a, b); }
static double bi_r_ge(double a, double b) { return a >= b ? 1.0 : 0.0; }
static double bi_r_and(double a, double b) { return (a != 0.0 && b != 0.0) ? 1.0 : 0.0; }
static double bi_r_or(double a, double b) { return (a != 0.0 || b != 0.0) ? 1.0 : 0.0; }

/* add/sub/mul/div of f32 values are correctly rounded (<= 6e-8 relative); pow is libm-grade. */
static const bi_op bi_ops[] = {
    {"tt_add",         tt_add,         bi_r_add, 0, 0.0,  1e-6},
    {"tt_sub",         tt_sub,         bi_r_sub, 0, 0.0,  1e-6},
    {"tt_mul",         tt_mul,         bi_r_mul, 0, 0.0,  1e-6},
    {"tt_div",         tt_div,         bi_r_div, 0, 0.0,  1e-6},
    {"tt_pow",         tt_pow,         bi_r_pow, 0, 1e-6, 2e-6},
    {"tt_atan2",       tt_atan2,       bi_r_atan2, 0, 1e-6, 2e-6},
    {"tt_maximum",     tt_maximum,     bi_r_max, 0, 0.0,  0.0},
    {"tt_minimum",     tt_minimum,     bi_r_min, 0, 0.0,  0.0},
    {"tt_eq",          tt_eq,          bi_r_eq,  1, 0.0,  0.0},
    {"tt_ne",          tt_ne,          bi_r_ne,  1, 0.0,  0.0},
    {"tt_lt",          tt_lt,          bi_r_lt,  1, 0.0,  0.0},
    {"tt_le",          tt_le,          bi_r_le,  1, 0.0,  0.0},
    {"tt_gt",          tt_gt,          bi_r_gt,  1, 0.0,  0.0},
    {"tt_ge",          tt_ge,          bi_r_ge,  1, 0.0,  0.0},
    {"tt_logical_and", tt_logical_and, bi_r_and, 1, 0.0,  0.0},
    {"tt_logical_or",  tt_logical_or,  bi_r_or,  1, 0.0,  0.0},
};
#define BI_NOPS ((int)(sizeof bi_ops / sizeof bi_ops[0]))

/* Broadcast shape of a and b by this file's own rule; returns its ndim (-1 if incompatible). */
static int bi_bshape(int na, const int64_t *sa, int nb, const int64_t *sb, int64_t *out) {
    int n = na > nb ? na : nb, d;
    for (d = 0; d < n; d++) {
        int da = d - (n - na), db = d - (n - nb);
        int64_t x = da >= 0 ? sa[da] : 1, y = db >= 0 ? sb[db] : 1;
        if (x != y && x != 1 && y != 1) return -1;
        out[d] = x == 1 ? y : x;
    }
    return n;
}

/* Row-major index into an operand of shape s (ndim ns) for output element i of shape out. */
static long long bi_src_index(long long i, int nout, const int64_t *out, int ns, const int64_t *s) {
    long long rem = i, si = 0, stride = 1;
    int d;
    for (d = nout - 1; d >= 0; d--) {
        long long idx = rem % out[d];
        int ds = d - (nout - ns);
        rem /= out[d];
        if (ds >= 0) {
            if (s[ds] != 1) si += idx * stride;
            stride *= s[ds];
        }
    }
    return si;
}

/* A bool result's bytes are all 0 or 1. */
static int bi_check_bool_bytes(const tt_tensor *r) {
    const uint8_t *p;
    long long i, bad = 0;
    if (!CHECK(tt_is_contiguous(r))) return 0;
    p = (const uint8_t *)tt_data(r);
    for (i = 0; i < r->numel; i++) if (p[i] > 1) bad++;
    return CHECK_EQ_INT(bad, 0);
}

/* op(A, B) against the reference; prints the context on failure. */
static void bi_check_op(tt_ctx *c, const bi_op *op, const bi_operand *A, const bi_operand *B, const char *what) {
    int64_t out[8];
    int nout = bi_bshape(A->ndim, A->shape, B->ndim, B->shape, out), ok;
    tt_tensor *r;
    long long n, i;
    if (!CHECK(A->t != NULL && B->t != NULL && nout >= 0)) { printf("      setup failed: %s\n", what); tt_clear_error(c); return; }
    r = op->fn(c, A->t, B->t);
    CHECK_GUARDS(c);
    ok = CHECK_META(r, op->boolean ? TT_BOOL : TT_F32, nout, out);
    if (ok) {
        float *got = tu_values(c, r);
        double *want;
        n = tu_numel(nout, out);
        want = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        for (i = 0; i < n; i++)   /* rounded to f32 like the result (overflow to inf, subnormals) */
            want[i] = (double)(float)op->ref(A->v[bi_src_index(i, nout, out, A->ndim, A->shape)],
                                             B->v[bi_src_index(i, nout, out, B->ndim, B->shape)]);
        ok = CHECK_ALLCLOSE(got, want, n, op->atol, op->rtol);
        if (op->boolean) ok &= bi_check_bool_bytes(r);
        free(got);
        free(want);
    }
    if (!ok) printf("      %s: %s: %s\n", op->name, what, tt_error(c) ? tt_error(c) : "(no error)");
    tt_clear_error(c);
}

/* Every op on (A, B), for each of the data modes. make builds both operands. */
typedef void (*bi_maker)(tt_ctx *c, int mode, unsigned long long seed, bi_operand *A, bi_operand *B);

static void bi_all_ops(bi_maker make, const char *what) {
    tt_ctx *c = tu_ctx();
    int mode, k;
    char label[160];
    for (mode = 0; mode < BI_NMODES; mode++) {
        bi_operand A, B;
        tt_scope sc = tt_scope_begin(c);
        make(c, mode, (unsigned long long)(mode * 31 + 5), &A, &B);
        snprintf(label, sizeof label, "%s, %s data", what, bi_mode_names[mode]);
        for (k = 0; k < BI_NOPS; k++) bi_check_op(c, &bi_ops[k], &A, &B, label);
        bi_free(&A);
        bi_free(&B);
        tt_scope_end(c, sc);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   Broadcasting cases
   --------------------------------------------------------------------------- */
static void bi_mk_3x1_1x4(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[2] = {3, 1}, sb[2] = {1, 4};
    *A = bi_contig(c, TT_F32, 2, sa, s, m); *B = bi_contig(c, TT_F32, 2, sb, s + 1, m);
}
static void bi_mk_1x4_3x1(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    bi_mk_3x1_1x4(c, m, s, B, A);
}
static void bi_mk_5x1x7_3x1(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[3] = {5, 1, 7}, sb[2] = {3, 1};
    *A = bi_contig(c, TT_F32, 3, sa, s, m); *B = bi_contig(c, TT_F32, 2, sb, s + 1, m);
}
static void bi_mk_3x1_5x1x7(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    bi_mk_5x1x7_3x1(c, m, s, B, A);
}
static void bi_mk_0d_33(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sb[1] = {33};
    *A = bi_contig(c, TT_F32, 0, NULL, s, m); *B = bi_contig(c, TT_F32, 1, sb, s + 1, m);
}
static void bi_mk_33_0d(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    bi_mk_0d_33(c, m, s, B, A);
}
static void bi_mk_0d_0d(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    *A = bi_contig(c, TT_F32, 0, NULL, s, m); *B = bi_contig(c, TT_F32, 0, NULL, s + 1, m);
}
static void bi_mk_1_1000(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[1] = {1}, sb[1] = {1000};
    *A = bi_contig(c, TT_F32, 1, sa, s, m); *B = bi_contig(c, TT_F32, 1, sb, s + 1, m);
}
static void bi_mk_1000_1(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    bi_mk_1_1000(c, m, s, B, A);
}
static void bi_mk_2x3x4_4(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[3] = {2, 3, 4}, sb[1] = {4};
    *A = bi_contig(c, TT_F32, 3, sa, s, m); *B = bi_contig(c, TT_F32, 1, sb, s + 1, m);
}
static void bi_mk_4_2x3x4(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    bi_mk_2x3x4_4(c, m, s, B, A);
}
static void bi_mk_same_sizes(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[1] = {1001};
    *A = bi_contig(c, TT_F32, 1, sh, s, m); *B = bi_contig(c, TT_F32, 1, sh, s + 1, m);
}
static void bi_mk_odd_7(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[1] = {7};
    *A = bi_contig(c, TT_F32, 1, sh, s, m); *B = bi_contig(c, TT_F32, 1, sh, s + 1, m);
}
static void bi_mk_odd_3(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[1] = {3};
    *A = bi_contig(c, TT_F32, 1, sh, s, m); *B = bi_contig(c, TT_F32, 1, sh, s + 1, m);
}
static void bi_mk_odd_1(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[1] = {1};
    *A = bi_contig(c, TT_F32, 1, sh, s, m); *B = bi_contig(c, TT_F32, 1, sh, s + 1, m);
}
static void bi_mk_1x1000_3x1(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[2] = {1, 1000}, sb[2] = {3, 1};
    *A = bi_contig(c, TT_F32, 2, sa, s, m); *B = bi_contig(c, TT_F32, 2, sb, s + 1, m);
}
/* expanded operands */
static void bi_mk_expanded(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t ss[2] = {1, 7}, sh[2] = {5, 7};
    *A = bi_expanded(c, TT_F32, 2, ss, sh, s, m); *B = bi_contig(c, TT_F32, 2, sh, s + 1, m);
}
static void bi_mk_expanded_both(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[2] = {3, 1}, sb[2] = {1, 33}, sh[2] = {3, 33};
    *A = bi_expanded(c, TT_F32, 2, sa, sh, s, m); *B = bi_expanded(c, TT_F32, 2, sb, sh, s + 1, m);
}
static void bi_mk_expanded_bcast(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sa[3] = {1, 3, 1}, sha[3] = {2, 3, 5}, sb[1] = {5};
    *A = bi_expanded(c, TT_F32, 3, sa, sha, s, m); *B = bi_contig(c, TT_F32, 1, sb, s + 1, m);
}
/* transposed / permuted / sliced operands */
static void bi_mk_transposed(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[2] = {5, 7};
    *A = bi_transposed(c, TT_F32, 5, 7, s, m); *B = bi_contig(c, TT_F32, 2, sh, s + 1, m);
}
static void bi_mk_transposed_both(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    *A = bi_transposed(c, TT_F32, 33, 37, s, m); *B = bi_transposed(c, TT_F32, 33, 37, s + 1, m);
}
static void bi_mk_transposed_bcast(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sb[1] = {7};
    *A = bi_transposed(c, TT_F32, 5, 7, s, m); *B = bi_contig(c, TT_F32, 1, sb, s + 1, m);
}
static void bi_mk_transposed_col(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sb[2] = {5, 1};
    *A = bi_contig(c, TT_F32, 2, sb, s, m); *B = bi_transposed(c, TT_F32, 5, 7, s + 1, m);
}
static void bi_mk_permuted(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[3] = {2, 3, 4}, sb[2] = {3, 1};
    *A = bi_permuted3(c, TT_F32, sh, s, m); *B = bi_contig(c, TT_F32, 2, sb, s + 1, m);
}
static void bi_mk_sliced(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sh[1] = {1001};
    *A = bi_sliced(c, TT_F32, 1001, 0, s, m); *B = bi_contig(c, TT_F32, 1, sh, s + 1, m);
}
static void bi_mk_sliced_2d(tt_ctx *c, int m, unsigned long long s, bi_operand *A, bi_operand *B) {
    int64_t sb[2] = {1, 17};
    *A = bi_contig(c, TT_F32, 2, sb, s, m); *B = bi_sliced(c, TT_F32, 7, 17, s + 1, m);
}

static void test_binary_bcast_3x1_1x4(void) {
    bi_all_ops(bi_mk_3x1_1x4, "[3,1] x [1,4]");
    bi_all_ops(bi_mk_1x4_3x1, "[1,4] x [3,1]");
}
static void test_binary_bcast_5x1x7_3x1(void) {
    bi_all_ops(bi_mk_5x1x7_3x1, "[5,1,7] x [3,1]");
    bi_all_ops(bi_mk_3x1_5x1x7, "[3,1] x [5,1,7]");
}
static void test_binary_bcast_scalar(void) {
    bi_all_ops(bi_mk_0d_33, "[] x [33]");
    bi_all_ops(bi_mk_33_0d, "[33] x []");
    bi_all_ops(bi_mk_0d_0d, "[] x []");
}
static void test_binary_bcast_1_1000(void) {
    bi_all_ops(bi_mk_1_1000, "[1] x [1000]");
    bi_all_ops(bi_mk_1000_1, "[1000] x [1]");
    bi_all_ops(bi_mk_1x1000_3x1, "[1,1000] x [3,1]");
}
static void test_binary_bcast_rank(void) {
    bi_all_ops(bi_mk_2x3x4_4, "[2,3,4] x [4]");
    bi_all_ops(bi_mk_4_2x3x4, "[4] x [2,3,4]");
}
static void test_binary_same_shape_odd_sizes(void) {
    bi_all_ops(bi_mk_odd_1, "[1] x [1]");
    bi_all_ops(bi_mk_odd_3, "[3] x [3]");
    bi_all_ops(bi_mk_odd_7, "[7] x [7]");
    bi_all_ops(bi_mk_same_sizes, "[1001] x [1001]");
}
static void test_binary_expanded(void) {
    bi_all_ops(bi_mk_expanded, "expand([1,7]->[5,7]) x [5,7]");
    bi_all_ops(bi_mk_expanded_both, "expand([3,1]->[3,33]) x expand([1,33]->[3,33])");
    bi_all_ops(bi_mk_expanded_bcast, "expand([1,3,1]->[2,3,5]) x [5]");
}
static void test_binary_transposed(void) {
    bi_all_ops(bi_mk_transposed, "transpose([7,5]) x [5,7]");
    bi_all_ops(bi_mk_transposed_both, "transpose([37,33]) x transpose([37,33])");
    bi_all_ops(bi_mk_transposed_bcast, "transpose([7,5]) x [7]");
    bi_all_ops(bi_mk_transposed_col, "[5,1] x transpose([7,5])");
    bi_all_ops(bi_mk_permuted, "permute([4,2,3],{1,2,0}) x [3,1]");
}
static void test_binary_sliced(void) {
    bi_all_ops(bi_mk_sliced, "slice([2003], 1::2) x [1001]");
    bi_all_ops(bi_mk_sliced_2d, "[1,17] x slice([15,17], rows 1::2)");
}

/* The same tensor as both operands (contiguous, and a transposed view). */
/* Empty operands broadcast like any other: [0,3] x [1,3] -> [0,3], [0] x [] -> [0]. */
static void test_binary_empty(void) {
    tt_ctx *c = tu_ctx();
    int64_t s03[2] = {0, 3}, s13[2] = {1, 3}, s0[1] = {0}, s2[1] = {2};
    tt_tensor *e2 = tt_zeros(c, TT_F32, 2, s03), *o = tt_ones(c, TT_F32, 2, s13), *e1 = tt_zeros(c, TT_F32, 1, s0);
    tt_tensor *sc = tt_scalar(c, 2.0f), *t2 = tt_ones(c, TT_F32, 1, s2);
    int k;
    for (k = 0; k < BI_NOPS; k++) {
        tt_dtype dt = bi_ops[k].boolean ? TT_BOOL : TT_F32;
        if (!CHECK_META(bi_ops[k].fn(c, e2, o), dt, 2, s03) || !CHECK_META(bi_ops[k].fn(c, e1, sc), dt, 1, s0))
            printf("      %s on empty operands: %s\n", bi_ops[k].name, tt_error(c) ? tt_error(c) : "(no error)");
        tt_clear_error(c);
        /* 0 and 2 do not broadcast */
        CHECK(bi_ops[k].fn(c, e1, t2) == NULL);
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[0]");
        CHECK_GUARDS(c);
    }
    tt_ctx_destroy(c);
}

static void test_binary_same_tensor(void) {
    tt_ctx *c = tu_ctx();
    int k, w;
    for (w = 0; w < 2; w++) {
        bi_operand A;
        int64_t sh[1] = {33};
        if (w == 0) A = bi_contig(c, TT_F32, 1, sh, 77, BI_CONT);
        else A = bi_transposed(c, TT_F32, 7, 5, 78, BI_HALF);
        for (k = 0; k < BI_NOPS; k++) bi_check_op(c, &bi_ops[k], &A, &A, w == 0 ? "x op x, x [33]" : "x op x, x = transpose([5,7])");
        bi_free(&A);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Every pair of input dtypes, broadcast [3,1] x [1,5]; arithmetic gives f32, the rest bool. */
static void test_binary_dtype_pairs(void) {
    tt_ctx *c = tu_ctx();
    int da, db, k;
    char label[96];
    int mode;
    for (mode = 0; mode < BI_NMODES; mode++) for (da = 0; da < TT_DTYPE_COUNT; da++) for (db = 0; db < TT_DTYPE_COUNT; db++) {
        bi_operand A, B;
        int64_t sa[2] = {3, 1}, sb[2] = {1, 5};
        tt_scope sc = tt_scope_begin(c);
        A = bi_contig(c, (tt_dtype)da, 2, sa, (unsigned long long)(100 * mode + 10 * da + db + 1), mode);
        B = bi_contig(c, (tt_dtype)db, 2, sb, (unsigned long long)(100 * mode + 10 * da + db + 501), mode);
        snprintf(label, sizeof label, "%s [3,1] x %s [1,5], %s data", tu_dtname((tt_dtype)da), tu_dtname((tt_dtype)db),
                 bi_mode_names[mode]);
        for (k = 0; k < BI_NOPS; k++) bi_check_op(c, &bi_ops[k], &A, &B, label);
        bi_free(&A);
        bi_free(&B);
        tt_scope_end(c, sc);
    }
    /* i32 with big values x i32 of 1001 elements, transposed i32 x f16 */
    {
        bi_operand A, B;
        int64_t sh[1] = {1001};
        long long i;
        A = bi_contig(c, TT_I32, 1, sh, 3, BI_CONT);
        for (i = 0; i < 1001; i++) A.v[i] = floor(A.v[i] * 1000.0);
        A.t = tu_tensor_dt(c, TT_I32, 1, sh, A.v);
        B = bi_contig(c, TT_I32, 1, sh, 4, BI_HALF);
        for (k = 0; k < BI_NOPS; k++) bi_check_op(c, &bi_ops[k], &A, &B, "i32 [1001] x i32 [1001]");
        bi_free(&A); bi_free(&B);
        A = bi_transposed(c, TT_I32, 5, 7, 5, BI_HALF);
        B = bi_transposed(c, TT_F16, 5, 7, 6, BI_CONT);
        for (k = 0; k < BI_NOPS; k++) bi_check_op(c, &bi_ops[k], &A, &B, "transposed i32 x transposed f16");
        bi_free(&A); bi_free(&B);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* IEEE special values, all 9x9 combinations by broadcasting [9,1] x [1,9]. maximum, minimum
   and pow are left out here (NaN conventions differ); pow gets its own cases below. */
static void test_binary_special_values(void) {
    tt_ctx *c = tu_ctx();
    double sv[9];
    int k;
    bi_operand A, B;
    int64_t sa[2] = {9, 1}, sb[2] = {1, 9};
    sv[0] = 0.0; sv[1] = -0.0; sv[2] = 1.0; sv[3] = -2.5; sv[4] = (double)INFINITY; sv[5] = -(double)INFINITY;
    sv[6] = (double)NAN; sv[7] = (double)FLT_MAX; sv[8] = 1e-40;   /* an f32 subnormal */
    A.ndim = 2; A.shape[0] = 9; A.shape[1] = 1; A.v = (double *)malloc(sizeof(double) * 9);
    B.ndim = 2; B.shape[0] = 1; B.shape[1] = 9; B.v = (double *)malloc(sizeof(double) * 9);
    memcpy(A.v, sv, sizeof sv); memcpy(B.v, sv, sizeof sv);
    A.t = tu_tensor_dt(c, TT_F32, 2, sa, A.v);
    B.t = tu_tensor_dt(c, TT_F32, 2, sb, B.v);
    for (k = 0; k < BI_NOPS; k++) {
        if (bi_ops[k].fn == tt_pow || bi_ops[k].fn == tt_maximum || bi_ops[k].fn == tt_minimum) continue;
        bi_check_op(c, &bi_ops[k], &A, &B, "special values [9,1] x [1,9]");
    }
    bi_free(&A); bi_free(&B);
    /* maximum / minimum with infinities and signed zeros (no NaN) */
    {
        double x[4] = {(double)INFINITY, -(double)INFINITY, 0.0, -3.0}, y[4] = {1.0, 1.0, -0.0, -(double)INFINITY};
        int64_t s4[1] = {4};
        A.ndim = 1; A.shape[0] = 4; A.v = (double *)malloc(sizeof x); memcpy(A.v, x, sizeof x);
        B.ndim = 1; B.shape[0] = 4; B.v = (double *)malloc(sizeof y); memcpy(B.v, y, sizeof y);
        A.t = tu_tensor_dt(c, TT_F32, 1, s4, A.v); B.t = tu_tensor_dt(c, TT_F32, 1, s4, B.v);
        for (k = 0; k < BI_NOPS; k++)
            if (bi_ops[k].fn == tt_maximum || bi_ops[k].fn == tt_minimum) bi_check_op(c, &bi_ops[k], &A, &B, "max/min with inf");
        bi_free(&A); bi_free(&B);
    }
    /* maximum / minimum propagate NaN from either side, as in PyTorch */
    {
        float x[5] = {(float)NAN, 1.0f, (float)NAN, -(float)INFINITY, 2.0f};
        float y[5] = {1.0f, (float)NAN, (float)NAN, (float)NAN, 3.0f};
        int64_t s5[1] = {5};
        tt_tensor *ta = tt_from_data(c, TT_F32, 1, s5, x), *tb = tt_from_data(c, TT_F32, 1, s5, y);
        tt_tensor *rmax = tt_maximum(c, ta, tb), *rmin = tt_minimum(c, ta, tb);
        CHECK_GUARDS(c);
        if (CHECK_META(rmax, TT_F32, 1, s5) && CHECK_META(rmin, TT_F32, 1, s5)) {
            float *gx = tu_values(c, rmax), *gn = tu_values(c, rmin);
            int i;
            for (i = 0; i < 4; i++) { CHECK(isnan(gx[i])); CHECK(isnan(gn[i])); }
            CHECK_NEAR(gx[4], 3.0, 0, 0);
            CHECK_NEAR(gn[4], 2.0, 0, 0);
            free(gx); free(gn);
        }
    }
    /* pow: negative bases with integer exponents, zero bases, x^0 */
    {
        double x[8] = {-2.0, -2.0, -8.0, 0.0, 0.0, 2.0, -3.0, 5.0};
        double y[8] = {3.0, 2.0, 0.5, 0.0, -1.0, -1.0, 0.0, 0.5};
        int64_t s8[1] = {8};
        A.ndim = 1; A.shape[0] = 8; A.v = (double *)malloc(sizeof x); memcpy(A.v, x, sizeof x);
        B.ndim = 1; B.shape[0] = 8; B.v = (double *)malloc(sizeof y); memcpy(B.v, y, sizeof y);
        A.t = tu_tensor_dt(c, TT_F32, 1, s8, A.v); B.t = tu_tensor_dt(c, TT_F32, 1, s8, B.v);
        bi_check_op(c, &bi_ops[4], &A, &B, "pow special cases");
        bi_free(&A); bi_free(&B);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   Scalar forms
   --------------------------------------------------------------------------- */
typedef tt_tensor *(*bi_sfn)(tt_ctx *, tt_tensor *, float);

static void test_binary_scalar_forms(void) {
    tt_ctx *c = tu_ctx();
    static const bi_sfn fns[4] = {tt_add_scalar, tt_sub_scalar, tt_mul_scalar, tt_div_scalar};
    static const char *const names[4] = {"tt_add_scalar", "tt_sub_scalar", "tt_mul_scalar", "tt_div_scalar"};
    const float scalars[5] = {0.75f, -3.5f, 0.1f, 0.0f, 1e-3f};
    const long long sizes[5] = {1, 3, 7, 33, 1001};
    int f, si, ki, layout;
    for (f = 0; f < 4; f++) for (si = 0; si < 5; si++) for (ki = 0; ki < 5; ki++) for (layout = 0; layout < 5; layout++) {
        bi_operand X;
        tt_tensor *r;
        double s = (double)scalars[ki];
        long long n = sizes[si], i;
        int64_t sh[1];
        tt_scope sc = tt_scope_begin(c);
        sh[0] = n;
        switch (layout) {
        case 0: X = bi_contig(c, TT_F32, 1, sh, (unsigned long long)(si * 7 + ki), BI_CONT); break;
        case 1: X = bi_transposed(c, TT_F32, n, 3, (unsigned long long)(si * 7 + ki), BI_CONT); break;
        case 2: X = bi_sliced(c, TT_F32, n, 0, (unsigned long long)(si * 7 + ki), BI_CONT); break;
        case 3: X = bi_contig(c, TT_F16, 1, sh, (unsigned long long)(si * 7 + ki), BI_CONT); break;
        default: X = bi_contig(c, TT_I32, 1, sh, (unsigned long long)(si * 7 + ki), BI_HALF); break;
        }
        r = fns[f](c, X.t, scalars[ki]);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_F32, X.ndim, X.shape)) {
            long long m = tu_numel(X.ndim, X.shape);
            float *got = tu_values(c, r);
            double *want = (double *)malloc(sizeof(double) * (size_t)m);
            for (i = 0; i < m; i++)
                want[i] = f == 0 ? X.v[i] + s : (f == 1 ? X.v[i] - s : (f == 2 ? X.v[i] * s : X.v[i] / s));
            if (!CHECK_ALLCLOSE(got, want, m, 0.0, 1e-6))
                printf("      %s(x, %g), %lld elements, layout %d\n", names[f], s, m, layout);
            free(got);
            free(want);
        } else {
            printf("      %s, layout %d: %s\n", names[f], layout, tt_error(c) ? tt_error(c) : "(no error)");
            tt_clear_error(c);
        }
        bi_free(&X);
        tt_scope_end(c, sc);
    }
    /* 0-d input gives a 0-d result */
    {
        tt_tensor *x = tt_scalar(c, 1.5f);
        for (f = 0; f < 4; f++) {
            tt_tensor *r = fns[f](c, x, 0.25f);
            double want = f == 0 ? 1.75 : (f == 1 ? 1.25 : (f == 2 ? 0.375 : 6.0));
            CHECK_GUARDS(c);
            if (CHECK_META(r, TT_F32, 0, NULL)) CHECK_NEAR(tt_item(c, r), want, 0, 0);
        }
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   Logical ops: nonzero is true for every dtype (-0 is zero, NaN is nonzero)
   --------------------------------------------------------------------------- */
static void test_binary_logical(void) {
    tt_ctx *c = tu_ctx();
    double sv[7];
    int dt, k;
    sv[0] = 0.0; sv[1] = -0.0; sv[2] = 1.0; sv[3] = -2.5; sv[4] = (double)NAN; sv[5] = (double)INFINITY; sv[6] = 1e-40;
    /* logical_not on each dtype, contiguous and transposed */
    for (dt = 0; dt < TT_DTYPE_COUNT; dt++) {
        int w;
        for (w = 0; w < 2; w++) {
            bi_operand X;
            tt_tensor *r;
            int64_t sh[1] = {33};
            tt_scope sc = tt_scope_begin(c);
            if (w == 0) {
                X = bi_contig(c, (tt_dtype)dt, 1, sh, (unsigned long long)(dt + 1), BI_HALF);
                if (dt != TT_I32 && dt != TT_BOOL) {   /* plant special values */
                    memcpy(X.v, sv, sizeof sv);
                    X.t = tu_tensor_dt(c, (tt_dtype)dt, 1, sh, X.v);
                }
            } else {
                X = bi_transposed(c, (tt_dtype)dt, 7, 5, (unsigned long long)(dt + 11), BI_HALF);
            }
            r = tt_logical_not(c, X.t);
            CHECK_GUARDS(c);
            if (CHECK_META(r, TT_BOOL, X.ndim, X.shape)) {
                long long m = tu_numel(X.ndim, X.shape), i;
                float *got = tu_values(c, r);
                double *want = (double *)malloc(sizeof(double) * (size_t)m);
                for (i = 0; i < m; i++) want[i] = X.v[i] == 0.0 ? 1.0 : 0.0;
                if (!CHECK_ALLCLOSE(got, want, m, 0, 0) || !bi_check_bool_bytes(r))
                    printf("      tt_logical_not on %s (%s)\n", tu_dtname((tt_dtype)dt), w ? "transposed" : "contiguous");
                free(got);
                free(want);
            } else {
                tt_clear_error(c);
            }
            bi_free(&X);
            tt_scope_end(c, sc);
        }
    }
    /* 0-d */
    {
        tt_tensor *r = tt_logical_not(c, tt_scalar(c, 0.0f));
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_BOOL, 0, NULL)) CHECK_NEAR(tt_item(c, r), 1.0, 0, 0);
    }
    /* and / or with special values, f32 [7,1] x f16 [1,7] */
    {
        bi_operand A, B;
        int64_t sa[2] = {7, 1}, sb[2] = {1, 7};
        A.ndim = 2; A.shape[0] = 7; A.shape[1] = 1; A.v = (double *)malloc(sizeof sv); memcpy(A.v, sv, sizeof sv);
        B.ndim = 2; B.shape[0] = 1; B.shape[1] = 7; B.v = (double *)malloc(sizeof sv); memcpy(B.v, sv, sizeof sv);
        A.t = tu_tensor_dt(c, TT_F32, 2, sa, A.v);
        B.t = tu_tensor_dt(c, TT_F16, 2, sb, B.v);
        for (k = 0; k < BI_NOPS; k++)
            if (bi_ops[k].fn == tt_logical_and || bi_ops[k].fn == tt_logical_or)
                bi_check_op(c, &bi_ops[k], &A, &B, "specials f32 [7,1] x f16 [1,7]");
        bi_free(&A); bi_free(&B);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   where
   --------------------------------------------------------------------------- */
/* A bool operand with random 0/1 values. */
static bi_operand bi_cond(tt_ctx *c, int ndim, const int64_t *shape, unsigned long long seed) {
    bi_operand o;
    long long n = tu_numel(ndim, shape), i;
    int d;
    o.ndim = ndim;
    for (d = 0; d < ndim; d++) o.shape[d] = shape[d];
    o.v = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    tu_uniform(o.v, n, seed, 0.0, 1.0);
    for (i = 0; i < n; i++) o.v[i] = o.v[i] < 0.5 ? 0.0 : 1.0;
    o.t = tu_tensor_dt(c, TT_BOOL, ndim, shape, o.v);
    return o;
}

/* where(C, A, B) against the reference; the result dtype is want_dt. */
static void bi_check_where(tt_ctx *c, const bi_operand *C, const bi_operand *A, const bi_operand *B,
                           tt_dtype want_dt, const char *what) {
    int64_t t1[8], out[8];
    int n1 = bi_bshape(C->ndim, C->shape, A->ndim, A->shape, t1), nout, ok;
    tt_tensor *r;
    nout = n1 < 0 ? -1 : bi_bshape(n1, t1, B->ndim, B->shape, out);
    if (!CHECK(C->t && A->t && B->t && nout >= 0)) { printf("      setup failed: %s\n", what); tt_clear_error(c); return; }
    r = tt_where(c, C->t, A->t, B->t);
    CHECK_GUARDS(c);
    ok = CHECK_META(r, want_dt, nout, out);
    if (ok) {
        long long n = tu_numel(nout, out), i;
        float *got = tu_values(c, r);
        double *want = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        for (i = 0; i < n; i++) {
            double cv = C->v[bi_src_index(i, nout, out, C->ndim, C->shape)];
            want[i] = cv != 0.0 ? A->v[bi_src_index(i, nout, out, A->ndim, A->shape)]
                                : B->v[bi_src_index(i, nout, out, B->ndim, B->shape)];
            if (want_dt == TT_F32 || want_dt == TT_I32) want[i] = (double)(float)want[i];  /* read back as f32 */
        }
        ok = CHECK_ALLCLOSE(got, want, n, 0, 0);
        free(got);
        /* exact values in the result's own dtype */
        if (ok && CHECK(tt_is_contiguous(r))) {
            long long bad = 0;
            for (i = 0; i < n; i++) {
                double cv = C->v[bi_src_index(i, nout, out, C->ndim, C->shape)];
                double w = cv != 0.0 ? A->v[bi_src_index(i, nout, out, A->ndim, A->shape)]
                                     : B->v[bi_src_index(i, nout, out, B->ndim, B->shape)];
                double g;
                switch (want_dt) {
                case TT_F32: g = (double)((const float *)tt_data(r))[i]; w = (double)(float)w; break;
                case TT_I32: g = (double)((const int32_t *)tt_data(r))[i]; break;
                case TT_F16: g = tu_small_decode(((const uint16_t *)tt_data(r))[i], 5, 10); break;
                case TT_BF16: g = tu_small_decode(((const uint16_t *)tt_data(r))[i], 8, 7); break;
                default: g = (double)((const uint8_t *)tt_data(r))[i]; break;
                }
                if (g != w && !(isnan(g) && isnan(w))) bad++;
            }
            ok &= CHECK_EQ_INT(bad, 0);
        }
        free(want);
    }
    if (!ok) printf("      tt_where: %s: %s\n", what, tt_error(c) ? tt_error(c) : "(no error)");
    tt_clear_error(c);
}

static void test_binary_where_broadcast(void) {
    tt_ctx *c = tu_ctx();
    bi_operand C, A, B;
    {   /* [33] x [33] x [33] */
        int64_t s[1] = {33};
        C = bi_cond(c, 1, s, 1); A = bi_contig(c, TT_F32, 1, s, 2, BI_CONT); B = bi_contig(c, TT_F32, 1, s, 3, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "[33] [33] [33]");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* cond [3,1], a [1,4], b 0-d */
        int64_t sc[2] = {3, 1}, sa[2] = {1, 4};
        C = bi_cond(c, 2, sc, 4); A = bi_contig(c, TT_F32, 2, sa, 5, BI_CONT); B = bi_contig(c, TT_F32, 0, NULL, 6, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond [3,1], a [1,4], b []");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* cond [5,1,7], a [3,1], b [7] */
        int64_t sc[3] = {5, 1, 7}, sa[2] = {3, 1}, sb[1] = {7};
        C = bi_cond(c, 3, sc, 7); A = bi_contig(c, TT_F32, 2, sa, 8, BI_CONT); B = bi_contig(c, TT_F32, 1, sb, 9, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond [5,1,7], a [3,1], b [7]");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* cond 0-d, a [1001], b [1] ; cond [1], a [2,3,4], b [4] */
        int64_t sa[1] = {1001}, sb[1] = {1}, s3[3] = {2, 3, 4}, s4[1] = {4};
        int v;
        for (v = 0; v < 2; v++) {
            C = bi_cond(c, 0, NULL, (unsigned long long)(10 + v));
            C.v[0] = (double)v; C.t = tu_tensor_dt(c, TT_BOOL, 0, NULL, C.v);
            A = bi_contig(c, TT_F32, 1, sa, 11, BI_CONT); B = bi_contig(c, TT_F32, 1, sb, 12, BI_CONT);
            bi_check_where(c, &C, &A, &B, TT_F32, "cond [], a [1001], b [1]");
            bi_free(&C); bi_free(&A); bi_free(&B);
        }
        C = bi_cond(c, 1, sb, 13); A = bi_contig(c, TT_F32, 3, s3, 14, BI_CONT); B = bi_contig(c, TT_F32, 1, s4, 15, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond [1], a [2,3,4], b [4]");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* cond [1001] with a [1001] and b [1001] from slices; cond transposed with a expanded */
        int64_t s[1] = {1001};
        C = bi_cond(c, 1, s, 16); A = bi_sliced(c, TT_F32, 1001, 0, 17, BI_CONT); B = bi_contig(c, TT_F32, 1, s, 18, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond [1001], a slice step 2, b [1001]");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {
        int64_t sc[2] = {7, 5}, se[2] = {1, 7}, sh[2] = {5, 7};
        bi_operand S = bi_cond(c, 2, sc, 19);
        long long i, j;
        C.t = tt_transpose(c, S.t, 0, 1); C.ndim = 2; C.shape[0] = 5; C.shape[1] = 7;
        C.v = (double *)malloc(sizeof(double) * 35);
        for (i = 0; i < 5; i++) for (j = 0; j < 7; j++) C.v[i * 7 + j] = S.v[j * 5 + i];
        A = bi_expanded(c, TT_F32, 2, se, sh, 20, BI_CONT);
        B = bi_transposed(c, TT_F32, 5, 7, 21, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond transpose([7,5]), a expand([1,7]->[5,7]), b transpose([7,5])");
        bi_free(&S); bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* cond rows 1,3,... of a bool [15,5]; a an i32 transposed view; b an i32 slice: i32 result */
        int64_t ss[2] = {15, 5};
        double sv[75];
        long long i, j;
        for (i = 0; i < 75; i++) sv[i] = (double)((i * 7) % 3 == 0);
        C.ndim = 2; C.shape[0] = 7; C.shape[1] = 5;
        C.v = (double *)malloc(sizeof(double) * 35);
        for (i = 0; i < 7; i++) for (j = 0; j < 5; j++) C.v[i * 5 + j] = sv[(2 * i + 1) * 5 + j];
        C.t = tt_slice(c, tu_tensor_dt(c, TT_BOOL, 2, ss, sv), 0, 1, 15, 2);
        A = bi_transposed(c, TT_I32, 7, 5, 26, BI_HALF);
        B = bi_sliced(c, TT_I32, 7, 5, 27, BI_HALF);
        bi_check_where(c, &C, &A, &B, TT_I32, "cond slice, a i32 transposed, b i32 slice");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* all 0-d */
        C = bi_cond(c, 0, NULL, 28); A = bi_contig(c, TT_F32, 0, NULL, 29, BI_CONT); B = bi_contig(c, TT_F32, 0, NULL, 30, BI_CONT);
        bi_check_where(c, &C, &A, &B, TT_F32, "cond [], a [], b []");
        bi_free(&C); bi_free(&A); bi_free(&B);
    }
    {   /* the same tensor as a and b */
        int64_t s[2] = {3, 11};
        C = bi_cond(c, 2, s, 22); A = bi_contig(c, TT_F32, 2, s, 23, BI_CONT);
        bi_check_where(c, &C, &A, &A, TT_F32, "a and b the same tensor");
        bi_free(&C); bi_free(&A);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_binary_where_dtypes(void) {
    tt_ctx *c = tu_ctx();
    int da, db;
    char label[96];
    /* every pair of value dtypes: same dtype keeps it, else f32 */
    for (da = 0; da < TT_DTYPE_COUNT; da++) for (db = 0; db < TT_DTYPE_COUNT; db++) {
        bi_operand C, A, B;
        int64_t sc[2] = {3, 1}, sa[2] = {1, 7}, sb[1] = {7};
        tt_scope sc_ = tt_scope_begin(c);
        C = bi_cond(c, 2, sc, (unsigned long long)(da * 5 + db + 1));
        C.v[0] = 1.0; C.v[1] = 0.0; C.t = tu_tensor_dt(c, TT_BOOL, 2, sc, C.v);
        A = bi_contig(c, (tt_dtype)da, 2, sa, (unsigned long long)(da * 5 + db + 50), da == TT_I32 ? BI_HALF : BI_CONT);
        B = bi_contig(c, (tt_dtype)db, 1, sb, (unsigned long long)(da * 5 + db + 90), db == TT_I32 ? BI_HALF : BI_CONT);
        snprintf(label, sizeof label, "cond bool [3,1], a %s [1,7], b %s [7]", tu_dtname((tt_dtype)da), tu_dtname((tt_dtype)db));
        bi_check_where(c, &C, &A, &B, da == db ? (tt_dtype)da : TT_F32, label);
        bi_free(&C); bi_free(&A); bi_free(&B);
        tt_scope_end(c, sc_);
    }
    /* i32 values that f32 cannot hold must come through exactly */
    {
        int32_t av[5] = {16777217, -2147483647 - 1, 2147483647, 123456789, -16777219};
        int32_t bv[5] = {-1, 16777219, 0, -123456789, 7};
        uint8_t cv[5] = {1, 1, 0, 1, 0};
        int64_t s[1] = {5};
        tt_tensor *C = tt_from_data(c, TT_BOOL, 1, s, cv), *A = tt_from_data(c, TT_I32, 1, s, av),
                  *B = tt_from_data(c, TT_I32, 1, s, bv), *r = tt_where(c, C, A, B);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_I32, 1, s) && CHECK(tt_is_contiguous(r))) {
            const int32_t *p = (const int32_t *)tt_data(r);
            int i;
            for (i = 0; i < 5; i++) CHECK_EQ_INT(p[i], cv[i] ? av[i] : bv[i]);
        }
    }
    /* f16 bit patterns (including -0, inf, NaN, subnormals) are selected, not converted */
    {
        uint16_t av[6] = {0x8000, 0x7C00, 0x7E01, 0x0001, 0x3C01, 0xFBFF};
        uint16_t bv[6] = {0x1234, 0x0000, 0x0001, 0x8001, 0x3555, 0x7BFF};
        uint8_t cv[6] = {1, 1, 1, 0, 1, 0};
        int64_t s[1] = {6};
        tt_tensor *C = tt_from_data(c, TT_BOOL, 1, s, cv), *A = tt_from_data(c, TT_F16, 1, s, av),
                  *B = tt_from_data(c, TT_F16, 1, s, bv), *r = tt_where(c, C, A, B);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_F16, 1, s) && CHECK(tt_is_contiguous(r))) {
            const uint16_t *p = (const uint16_t *)tt_data(r);
            int i;
            for (i = 0; i < 6; i++) {
                unsigned w = cv[i] ? av[i] : bv[i];
                if (bi_is_nan_bits(w, 5, 10)) CHECK(bi_is_nan_bits(p[i], 5, 10));
                else CHECK_EQ_INT(p[i], w);
            }
        }
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   cast
   --------------------------------------------------------------------------- */
/* Raw source data of dtype dt with its exact values in v (n entries); malloc'd. */
static void *bi_cast_source(tt_dtype dt, long long *n_out, double **v_out) {
    long long n = 0, i;
    void *buf = NULL;
    double *v = NULL;
    unsigned long long s = 0x1234567ULL + (unsigned long long)dt;
    switch (dt) {
    case TT_F32: {
        static const float fixed[] = {
            0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -2.5f, 2.7f, -2.7f, 0.1f, 0.5f, 1.5f, -0.99999994f,
            65504.0f, 65519.996f, 65520.0f, 65536.0f, -65520.0f, 1e5f, -1e5f,
            3e9f, -3e9f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 1e20f, -1e20f,
            1e-8f, 5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 4.4703484e-8f, 6.097555e-5f, 6.1035156e-5f,
            1.0004883f /* 1+2^-11 */, 1.0014648f /* 1+3*2^-11 */, 1.00390625f /* 1+2^-8 */,
            1.01171875f /* 1+3*2^-8 */, 1.0009766f, 2049.0f, 2051.0f, 257.0f, 259.0f,
            3.3895314e38f, 3.4028235e38f, -3.4028235e38f, 1e-40f, -1e-40f, 1.1754944e-38f,
            16777217.0f, 123456.78f, -0.3333333f
        };
        long long nf = (long long)(sizeof fixed / sizeof fixed[0]), nr = 1200;
        n = nf + 3 + nr;
        buf = malloc(sizeof(float) * (size_t)n);
        v = (double *)malloc(sizeof(double) * (size_t)n);
        for (i = 0; i < nf; i++) ((float *)buf)[i] = fixed[i];
        ((float *)buf)[nf] = (float)INFINITY; ((float *)buf)[nf + 1] = -(float)INFINITY; ((float *)buf)[nf + 2] = (float)NAN;
        for (i = 0; i < nr; i++) {                   /* random sign, mantissa and exponent in [2^-30, 2^35) */
            uint32_t bits;
            float f;
            s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
            bits = (uint32_t)((s * 0x2545F4914F6CDD1DULL) >> 32);
            bits = (bits & 0x807FFFFFu) | ((uint32_t)(127 - 30 + (int)((s >> 7) % 65)) << 23);
            memcpy(&f, &bits, 4);
            ((float *)buf)[nf + 3 + i] = f;
        }
        for (i = 0; i < n; i++) v[i] = (double)((float *)buf)[i];
    } break;
    case TT_F16: case TT_BF16:                       /* every bit pattern */
        n = 65536;
        buf = malloc(sizeof(uint16_t) * (size_t)n);
        v = (double *)malloc(sizeof(double) * (size_t)n);
        for (i = 0; i < n; i++) {
            ((uint16_t *)buf)[i] = (uint16_t)i;
            v[i] = dt == TT_F16 ? tu_small_decode((unsigned)i, 5, 10) : tu_small_decode((unsigned)i, 8, 7);
        }
        break;
    case TT_I32: {
        static const int32_t fixed[] = {0, 1, -1, 7, -7, 2049, 2051, -2049, 257, 259, -259, 65504, 65505, 65519, 65520,
                                        -65520, 100000, 16777216, 16777217, 16777219, -16777217,
                                        2147483647, -2147483647 - 1, 123456789};
        long long nf = (long long)(sizeof fixed / sizeof fixed[0]), nr = 1001;
        n = nf + nr;
        buf = malloc(sizeof(int32_t) * (size_t)n);
        v = (double *)malloc(sizeof(double) * (size_t)n);
        for (i = 0; i < nf; i++) ((int32_t *)buf)[i] = fixed[i];
        for (i = 0; i < nr; i++) {                   /* random magnitudes below 2^24 */
            s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
            ((int32_t *)buf)[nf + i] = (int32_t)((long long)((s * 0x2545F4914F6CDD1DULL) >> 40) >> (int)(i % 20)) - (1 << 23 >> (int)(i % 20));
        }
        for (i = 0; i < n; i++) v[i] = (double)((int32_t *)buf)[i];
    } break;
    default:
        n = 37;
        buf = malloc((size_t)n);
        v = (double *)malloc(sizeof(double) * (size_t)n);
        for (i = 0; i < n; i++) { ((uint8_t *)buf)[i] = (uint8_t)((i * 7 + 3) % 5 < 2); v[i] = (double)((uint8_t *)buf)[i]; }
        break;
    }
    *n_out = n;
    *v_out = v;
    return buf;
}

/* Checks element i of the contiguous result r (dtype dst) against source value x. */
static int bi_cast_elem_ok(const tt_tensor *r, tt_dtype dst, long long i, double x) {
    const void *p = tt_data(r);
    switch (dst) {
    case TT_F32: {
        float g = ((const float *)p)[i], w = (float)x;
        uint32_t gb, wb;
        if (isnan(x)) return isnan(g);
        memcpy(&gb, &g, 4); memcpy(&wb, &w, 4);
        return gb == wb;
    }
    case TT_F16: case TT_BF16: {
        int eb = dst == TT_F16 ? 5 : 8, mb = dst == TT_F16 ? 10 : 7;
        unsigned g = ((const uint16_t *)p)[i], w = tu_small_encode((double)(float)x, eb, mb);
        if (isnan(x)) return bi_is_nan_bits(g, eb, mb);
        return g == w;
    }
    case TT_I32: {
        int32_t g = ((const int32_t *)p)[i];
        double w;
        if (isnan(x)) return 1;                      /* any value; it must only not crash */
        w = x >= 2147483647.0 ? 2147483647.0 : (x <= -2147483648.0 ? -2147483648.0 : trunc(x));
        return (double)g == w;
    }
    default: {
        uint8_t g = ((const uint8_t *)p)[i];
        return g == (x != 0.0 ? 1 : 0);
    }
    }
}

static double bi_cast_got(const tt_tensor *r, tt_dtype dst, long long i) {
    const void *p = tt_data(r);
    switch (dst) {
    case TT_F32: return (double)((const float *)p)[i];
    case TT_F16: return tu_small_decode(((const uint16_t *)p)[i], 5, 10);
    case TT_BF16: return tu_small_decode(((const uint16_t *)p)[i], 8, 7);
    case TT_I32: return (double)((const int32_t *)p)[i];
    default: return (double)((const uint8_t *)p)[i];
    }
}

/* Cast x (whose row-major values are v, n of them, shape (ndim, shape)) to dst and check. */
static void bi_check_cast(tt_ctx *c, tt_tensor *x, const double *v, int ndim, const int64_t *shape,
                          tt_dtype src, tt_dtype dst, const char *layout) {
    tt_tensor *r = tt_cast(c, x, dst);
    long long n = tu_numel(ndim, shape), i, bad = 0, first = -1;
    CHECK_GUARDS(c);
    if (!CHECK_META(r, dst, ndim, shape) || !CHECK(tt_is_contiguous(r))) {
        printf("      tt_cast %s -> %s (%s): %s\n", tu_dtname(src), tu_dtname(dst), layout, tt_error(c) ? tt_error(c) : "(no error)");
        tt_clear_error(c);
        return;
    }
    for (i = 0; i < n; i++) if (!bi_cast_elem_ok(r, dst, i, v[i])) { if (first < 0) first = i; bad++; }
    if (!CHECK_EQ_INT(bad, 0))
        printf("      tt_cast %s -> %s (%s): %lld of %lld wrong; first [%lld]: source %.9g, got %.9g\n", tu_dtname(src),
               tu_dtname(dst), layout, bad, n, first, v[first], bi_cast_got(r, dst, first));
    if (src == dst && x->numel > 0) {                /* a copy, not the same storage */
        CHECK(r != x);
        CHECK(tt_data(r) != tt_data(x));
    }
}

static void test_binary_cast_all_pairs(void) {
    int src, dst;
    for (src = 0; src < TT_DTYPE_COUNT; src++) {
        tt_ctx *c = tu_ctx();
        long long n, i;
        double *v;
        void *buf = bi_cast_source((tt_dtype)src, &n, &v);
        int64_t shape[1], sshape[1];
        size_t es = tt_dtype_size((tt_dtype)src);
        tt_tensor *x, *x2, *xs;
        char *buf2;
        shape[0] = n;
        CHECK_EQ_INT(es, src == TT_F32 || src == TT_I32 ? 4 : (src == TT_BOOL ? 1 : 2));
        x = tt_from_data(c, (tt_dtype)src, 1, shape, buf);
        /* non-contiguous: column 1 of a [n,2] tensor whose column 0 is filler */
        /* non-contiguous: elements 1,3,5,... of a [2n] tensor whose even elements are filler */
        buf2 = (char *)malloc(es * 2 * (size_t)n);
        for (i = 0; i < n; i++) {
            memcpy(buf2 + (2 * i + 1) * es, (char *)buf + i * es, es);
            memset(buf2 + (2 * i) * es, src == TT_BOOL ? 0x01 : 0x5A, es);
        }
        sshape[0] = 2 * n;
        x2 = tt_from_data(c, (tt_dtype)src, 1, sshape, buf2);
        xs = tt_slice(c, x2, 0, 1, 2 * n, 2);
        for (dst = 0; dst < TT_DTYPE_COUNT; dst++) {
            bi_check_cast(c, x, v, 1, shape, (tt_dtype)src, (tt_dtype)dst, "contiguous");
            if (CHECK(xs != NULL)) bi_check_cast(c, xs, v, 1, shape, (tt_dtype)src, (tt_dtype)dst, "step-2 slice");
        }
        /* 0-d and a transposed 2-d view, f32 source only for the 2-d one */
        {
            tt_tensor *x0 = tt_from_data(c, (tt_dtype)src, 0, NULL, buf);
            for (dst = 0; dst < TT_DTYPE_COUNT; dst++) bi_check_cast(c, x0, v, 0, NULL, (tt_dtype)src, (tt_dtype)dst, "0-d");
        }
        if (n >= 35) {
            int64_t s2[2] = {7, 5};
            double w[35];
            long long a, b;
            tt_tensor *t = tt_transpose(c, tt_from_data(c, (tt_dtype)src, 2, s2, buf), 0, 1);
            for (a = 0; a < 5; a++) for (b = 0; b < 7; b++) w[a * 7 + b] = v[b * 5 + a];
            s2[0] = 5; s2[1] = 7;
            for (dst = 0; dst < TT_DTYPE_COUNT; dst++) bi_check_cast(c, t, w, 2, s2, (tt_dtype)src, (tt_dtype)dst, "transposed");
        }
        CHECK_NO_ERROR(c);
        free(buf);
        free(buf2);
        free(v);
        tt_ctx_destroy(c);
    }
}

/* Rounding cases worked out by hand (and the reference encoder checked against them). */
static void test_binary_cast_by_hand(void) {
    tt_ctx *c = tu_ctx();
    static const float in[] = {1.0004883f, 1.0014648f, 65504.0f, 65519.996f, 65520.0f, 5.9604645e-8f, 2.9802322e-8f,
                               4.4703484e-8f, -0.0f, 1.00390625f, 1.01171875f, 3.4028235e38f};
    /* f16 results */
    static const uint16_t want16[] = {0x3C00, 0x3C02, 0x7BFF, 0x7BFF, 0x7C00, 0x0001, 0x0000, 0x0001, 0x8000, 0x3C04,
                                      0x3C0C, 0x7C00};
    /* bf16 results */
    static const uint16_t wantb[] = {0x3F80, 0x3F80, 0x4780, 0x4780, 0x4780, 0x3380, 0x3300, 0x3340, 0x8000, 0x3F80,
                                     0x3F82, 0x7F80};
    int64_t s[1] = {12};
    tt_tensor *x = tt_from_data(c, TT_F32, 1, s, in), *r16 = tt_cast(c, x, TT_F16), *rb = tt_cast(c, x, TT_BF16);
    int i;
    CHECK_GUARDS(c);
    for (i = 0; i < 12; i++) {   /* the reference agrees with the hand-worked values */
        CHECK_EQ_INT(tu_small_encode((double)in[i], 5, 10), want16[i]);
        CHECK_EQ_INT(tu_small_encode((double)in[i], 8, 7), wantb[i]);
    }
    if (CHECK_META(r16, TT_F16, 1, s) && CHECK(tt_is_contiguous(r16)))
        for (i = 0; i < 12; i++)
            if (!CHECK_EQ_INT(((const uint16_t *)tt_data(r16))[i], want16[i])) printf("      f32 %.9g -> f16\n", (double)in[i]);
    if (CHECK_META(rb, TT_BF16, 1, s) && CHECK(tt_is_contiguous(rb)))
        for (i = 0; i < 12; i++)
            if (!CHECK_EQ_INT(((const uint16_t *)tt_data(rb))[i], wantb[i])) printf("      f32 %.9g -> bf16\n", (double)in[i]);
    /* f32 -> i32 truncates toward zero and saturates */
    {
        static const float fi[] = {2.7f, -2.7f, 0.99999994f, -0.99999994f, 3e9f, -3e9f, 2147483520.0f,
                                   2147483648.0f, -2147483648.0f, 1e30f, -(float)INFINITY};
        static const int32_t wi[] = {2, -2, 0, 0, 2147483647, -2147483647 - 1, 2147483520, 2147483647,
                                     -2147483647 - 1, 2147483647, -2147483647 - 1};
        int64_t s11[1] = {11};
        tt_tensor *r = tt_cast(c, tt_from_data(c, TT_F32, 1, s11, fi), TT_I32);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_I32, 1, s11) && CHECK(tt_is_contiguous(r)))
            for (i = 0; i < 11; i++)
                if (!CHECK_EQ_INT(((const int32_t *)tt_data(r))[i], wi[i])) printf("      f32 %.9g -> i32\n", (double)fi[i]);
    }
    /* NaN -> i32: any value, no crash, no error */
    {
        float nanv[3] = {(float)NAN, -(float)NAN, 1.0f};
        int64_t s3[1] = {3};
        tt_tensor *r = tt_cast(c, tt_from_data(c, TT_F32, 1, s3, nanv), TT_I32);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_I32, 1, s3)) CHECK_EQ_INT(((const int32_t *)tt_data(r))[2], 1);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   Bad input
   --------------------------------------------------------------------------- */
static void test_binary_bad_shapes(void) {
    tt_ctx *c = tu_ctx();
    int64_t s23[2] = {2, 3}, s4[1] = {4}, s3[1] = {3}, s512[3] = {5, 1, 2}, s32[2] = {3, 3};
    tt_tensor *a = tt_ones(c, TT_F32, 2, s23), *b = tt_ones(c, TT_F32, 1, s4);
    tt_tensor *a3 = tt_ones(c, TT_F32, 1, s3), *p = tt_ones(c, TT_F32, 3, s512), *q = tt_ones(c, TT_F32, 2, s32);
    tt_tensor *cb;
    int k;
    char opname[64];
    for (k = 0; k < BI_NOPS; k++) {
        tt_tensor *r = bi_ops[k].fn(c, a, b);
        snprintf(opname, sizeof opname, "%s:", bi_ops[k].name);
        CHECK_GUARDS(c);
        CHECK(r == NULL);
        CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
        CHECK_STR_CONTAINS(tt_error(c), opname);
        CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4]");
        /* the other order, and other shapes */
        r = bi_ops[k].fn(c, b, a);
        CHECK(r == NULL);
        CHECK_STR_CONTAINS(tt_error(c), opname);
        CHECK_STR_CONTAINS(tt_error(c), "[4]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[2,3]");
        r = bi_ops[k].fn(c, p, q);
        CHECK(r == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "[5,1,2]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[3,3]");
        r = bi_ops[k].fn(c, a3, b);
        CHECK(r == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "[3]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4]");
        CHECK_GUARDS(c);
    }
    /* where: cond, a, b that do not broadcast together */
    cb = tt_ones(c, TT_BOOL, 2, s23);
    CHECK(tt_where(c, cb, b, a) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_where:");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4]");
    CHECK(tt_where(c, cb, a, b) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_where:");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4]");
    CHECK(tt_where(c, tt_ones(c, TT_BOOL, 1, s4), a, a) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_where:");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4]");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_binary_where_bad_cond(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[1] = {3};
    tt_tensor *a = tt_ones(c, TT_F32, 1, s), *b = tt_zeros(c, TT_F32, 1, s);
    tt_dtype bad[4] = {TT_F32, TT_I32, TT_F16, TT_BF16};
    int k;
    for (k = 0; k < 4; k++) {
        tt_tensor *cond = tt_ones(c, bad[k], 1, s);
        CHECK(tt_where(c, cond, a, b) == NULL);
        CHECK_GUARDS(c);
        CHECK_STR_CONTAINS(tt_error(c), "tt_where:");
        if (!CHECK_ERROR(c, TT_ERR_DTYPE, tu_dtname(bad[k]))) printf("      cond dtype %s\n", tu_dtname(bad[k]));
    }
    tt_ctx_destroy(c);
}

static void test_binary_null_inputs(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[1] = {3};
    tt_tensor *a = tt_ones(c, TT_F32, 1, s), *cb = tt_ones(c, TT_BOOL, 1, s);
    int k;
    for (k = 0; k < BI_NOPS; k++) {
        CHECK(bi_ops[k].fn(c, NULL, a) == NULL);
        CHECK(bi_ops[k].fn(c, a, NULL) == NULL);
        CHECK(bi_ops[k].fn(c, NULL, NULL) == NULL);
        if (!CHECK(tt_error(c) == NULL)) { printf("      %s with NULL: %s\n", bi_ops[k].name, tt_error(c)); tt_clear_error(c); }
    }
    CHECK(tt_add_scalar(c, NULL, 1.0f) == NULL);
    CHECK(tt_sub_scalar(c, NULL, 1.0f) == NULL);
    CHECK(tt_mul_scalar(c, NULL, 1.0f) == NULL);
    CHECK(tt_div_scalar(c, NULL, 1.0f) == NULL);
    CHECK(tt_logical_not(c, NULL) == NULL);
    CHECK(tt_where(c, NULL, a, a) == NULL);
    CHECK(tt_where(c, cb, NULL, a) == NULL);
    CHECK(tt_where(c, cb, a, NULL) == NULL);
    CHECK(tt_cast(c, NULL, TT_F16) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    /* a chain through a failing op stays NULL and keeps the first message */
    {
        int64_t s4[1] = {4};
        tt_tensor *bad = tt_add(c, a, tt_ones(c, TT_F32, 1, s4));
        tt_tensor *r = tt_mul(c, tt_where(c, cb, bad, a), tt_cast(c, bad, TT_F16));
        CHECK(r == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "tt_add:");
        /* a later, different error does not replace the first one */
        CHECK(tt_where(c, a, a, a) == NULL);
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_add:");
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_binary_cast_bad_dtype(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[1] = {3};
    tt_tensor *a = tt_ones(c, TT_F32, 1, s);
    CHECK(tt_cast(c, a, TT_DTYPE_COUNT) == NULL);
    CHECK_GUARDS(c);
    CHECK_ERROR_EITHER(c, TT_ERR_DTYPE, TT_ERR_ARG, "tt_cast:");
    CHECK(tt_cast(c, a, (tt_dtype)7) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_cast:");
    tt_clear_error(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(binary) = {
    {"bcast_3x1_1x4", test_binary_bcast_3x1_1x4},
    {"bcast_5x1x7_3x1", test_binary_bcast_5x1x7_3x1},
    {"bcast_scalar_0d", test_binary_bcast_scalar},
    {"bcast_1_1000", test_binary_bcast_1_1000},
    {"bcast_rank_2x3x4_4", test_binary_bcast_rank},
    {"same_shape_odd_sizes", test_binary_same_shape_odd_sizes},
    {"expanded_operands", test_binary_expanded},
    {"transposed_operands", test_binary_transposed},
    {"sliced_operands", test_binary_sliced},
    {"same_tensor_both_operands", test_binary_same_tensor},
    {"empty_operands", test_binary_empty},
    {"dtype_pairs", test_binary_dtype_pairs},
    {"special_values", test_binary_special_values},
    {"scalar_forms", test_binary_scalar_forms},
    {"logical", test_binary_logical},
    {"where_broadcast", test_binary_where_broadcast},
    {"where_dtypes", test_binary_where_dtypes},
    {"cast_all_pairs", test_binary_cast_all_pairs},
    {"cast_by_hand", test_binary_cast_by_hand},
    {"bad_shapes", test_binary_bad_shapes},
    {"where_bad_cond", test_binary_where_bad_cond},
    {"null_inputs", test_binary_null_inputs},
    {"cast_bad_dtype", test_binary_cast_bad_dtype},
    {NULL, NULL}
};
