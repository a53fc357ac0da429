/* test_unary.c - group `unary`: every unary elementwise op of tinytrace.h against a
   double-precision reference from <math.h>.

   Covered: random inputs of odd sizes (1, 3, 7, 33, 1001 elements) in every layout
   (contiguous, transposed, step-2 slice, expanded rows/columns, 3-d permutation), f16 /
   bf16 / i32 / bool inputs (computed in f32, result f32), 0-d and empty tensors, special
   values (0, -0, +-inf, NaN, large |x|), round-half-to-even, NULL inputs.
   The f16/bf16 inputs are encoded and decoded by the tests' own reference (tu_tensor_dt with
   tu_small_encode / tu_small_decode, test_util.h), so the expected values never come from
   the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "test_util.h"

/* f16/bf16 references: tu_small_decode / tu_small_encode in test_util.h. */

/* ---------------------------------------------------------------------------
   The ops: the library function, a double reference, an input range, tolerances.
   --------------------------------------------------------------------------- */
typedef tt_tensor *(*un_fn)(tt_ctx *, tt_tensor *);
typedef double (*un_ref_fn)(double);

typedef struct un_op {
    const char *name;
    un_fn       fn;
    un_ref_fn   ref;
    double      lo, hi;          /* random inputs uniform in [lo, hi) */
    double      atol, rtol;
} un_op;

/* Ops with parameters, bound to fixed values. */
static tt_tensor *un_leaky001(tt_ctx *c, tt_tensor *x) { return tt_leaky_relu(c, x, 0.01f); }
static tt_tensor *un_leaky02(tt_ctx *c, tt_tensor *x) { return tt_leaky_relu(c, x, 0.2f); }
static tt_tensor *un_elu1(tt_ctx *c, tt_tensor *x) { return tt_elu(c, x, 1.0f); }
static tt_tensor *un_elu03(tt_ctx *c, tt_tensor *x) { return tt_elu(c, x, 0.3f); }
static tt_tensor *un_clamp_a(tt_ctx *c, tt_tensor *x) { return tt_clamp(c, x, -0.5f, 0.75f); }
static tt_tensor *un_clamp_b(tt_ctx *c, tt_tensor *x) { return tt_clamp(c, x, 0.1f, 0.3f); }
static tt_tensor *un_clamp_c(tt_ctx *c, tt_tensor *x) { return tt_clamp(c, x, 0.25f, 0.25f); }
static tt_tensor *un_pow2(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 2.0f); }
static tt_tensor *un_pow3(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 3.0f); }
static tt_tensor *un_pow25(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 2.5f); }
static tt_tensor *un_powm15(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, -1.5f); }
static tt_tensor *un_pow05(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 0.5f); }
static tt_tensor *un_powm1(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, -1.0f); }
static tt_tensor *un_pow0(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 0.0f); }
static tt_tensor *un_pow1(tt_ctx *c, tt_tensor *x) { return tt_pow_scalar(c, x, 1.0f); }

/* References (double precision). Parameters are the float values the library receives. */
static double un_r_neg(double x) { return -x; }
static double un_r_abs(double x) { return fabs(x); }
static double un_r_sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
static double un_r_exp(double x) { return exp(x); }
static double un_r_log(double x) { return log(x); }
static double un_r_sqrt(double x) { return sqrt(x); }
static double un_r_rsqrt(double x) { return 1.0 / sqrt(x); }
static double un_r_recip(double x) { return 1.0 / x; }
static double un_r_sin(double x) { return sin(x); }
static double un_r_cos(double x) { return cos(x); }
static double un_r_tanh(double x) { return tanh(x); }
static double un_r_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double un_r_relu(double x) { return x > 0 ? x : 0.0; }
static double un_r_leaky001(double x) { return x < 0 ? (double)0.01f * x : x; }
static double un_r_leaky02(double x) { return x < 0 ? (double)0.2f * x : x; }
static double un_r_elu1(double x) { return x < 0 ? expm1(x) : x; }
static double un_r_elu03(double x) { return x < 0 ? (double)0.3f * expm1(x) : x; }
static double un_r_gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double un_r_gelu_tanh(double x) {
    const double k = sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}
static double un_r_silu(double x) { return x / (1.0 + exp(-x)); }
static double un_r_hardswish(double x) { return x * fmin(fmax(x + 3.0, 0.0), 6.0) / 6.0; }
static double un_r_softplus(double x) { return x > 20.0 ? x : log1p(exp(x)); }
static double un_r_erf(double x) { return erf(x); }
static double un_r_floor(double x) { return floor(x); }
static double un_r_ceil(double x) { return ceil(x); }
static double un_r_round(double x) { return rint(x); }   /* default rounding mode: halves to even */
static double un_r_clamp_a(double x) { return fmin(fmax(x, -0.5), 0.75); }
static double un_r_clamp_b(double x) { return fmin(fmax(x, (double)0.1f), (double)0.3f); }
static double un_r_clamp_c(double x) { (void)x; return 0.25; }
static double un_r_pow2(double x) { return x * x; }
static double un_r_pow3(double x) { return x * x * x; }
static double un_r_pow25(double x) { return pow(x, 2.5); }
static double un_r_powm15(double x) { return pow(x, -1.5); }
static double un_r_pow05(double x) { return pow(x, 0.5); }
static double un_r_powm1(double x) { return pow(x, -1.0); }
static double un_r_pow0(double x) { (void)x; return 1.0; }
static double un_r_pow1(double x) { return x; }

/* Tolerances: exact ops 0/0; correctly rounded ones rtol 1e-6; transcendental 2e-6 relative
   plus a small atol where f32 evaluation cancels near a zero of the function. */
static const un_op un_ops[] = {
    {"neg",        tt_neg,        un_r_neg,       -100.0, 100.0, 0.0,  0.0},
    {"abs",        tt_abs,        un_r_abs,       -100.0, 100.0, 0.0,  0.0},
    {"sign",       tt_sign,       un_r_sign,        -3.0,   3.0, 0.0,  0.0},
    {"exp",        tt_exp,        un_r_exp,        -20.0,  20.0, 0.0,  2e-6},
    {"log",        tt_log,        un_r_log,         1e-3, 100.0, 1e-7, 2e-6},
    {"sqrt",       tt_sqrt,       un_r_sqrt,         0.0, 100.0, 0.0,  1e-6},
    {"rsqrt",      tt_rsqrt,      un_r_rsqrt,       1e-3, 100.0, 0.0,  2e-6},
    {"reciprocal", tt_reciprocal, un_r_recip,      -10.0,  10.0, 0.0,  1e-6},
    {"sin",        tt_sin,        un_r_sin,        -10.0,  10.0, 1e-6, 2e-6},
    {"cos",        tt_cos,        un_r_cos,        -10.0,  10.0, 1e-6, 2e-6},
    {"tanh",       tt_tanh,       un_r_tanh,       -10.0,  10.0, 1e-6, 2e-6},
    {"sigmoid",    tt_sigmoid,    un_r_sigmoid,    -20.0,  20.0, 1e-6, 2e-6},
    {"relu",       tt_relu,       un_r_relu,        -5.0,   5.0, 0.0,  0.0},
    {"leaky_relu(0.01)", un_leaky001, un_r_leaky001, -5.0,  5.0, 0.0,  1e-6},
    {"leaky_relu(0.2)",  un_leaky02,  un_r_leaky02,  -5.0,  5.0, 0.0,  1e-6},
    {"elu(1)",     un_elu1,       un_r_elu1,       -10.0,   5.0, 1e-6, 2e-6},
    {"elu(0.3)",   un_elu03,      un_r_elu03,      -10.0,   5.0, 1e-6, 2e-6},
    {"gelu",       tt_gelu,       un_r_gelu,        -6.0,   6.0, 1e-6, 2e-6},
    {"gelu_tanh",  tt_gelu_tanh,  un_r_gelu_tanh,   -6.0,   6.0, 1e-6, 2e-6},
    {"silu",       tt_silu,       un_r_silu,       -20.0,  20.0, 1e-6, 2e-6},
    {"hardswish",  tt_hardswish,  un_r_hardswish,   -5.0,   5.0, 1e-7, 1e-6},
    {"softplus",   tt_softplus,   un_r_softplus,   -30.0,  30.0, 1e-6, 2e-6},
    {"erf",        tt_erf,        un_r_erf,         -4.0,   4.0, 1e-6, 2e-6},
    {"floor",      tt_floor,      un_r_floor,      -10.0,  10.0, 0.0,  0.0},
    {"ceil",       tt_ceil,       un_r_ceil,       -10.0,  10.0, 0.0,  0.0},
    {"round",      tt_round,      un_r_round,      -10.0,  10.0, 0.0,  0.0},
    {"clamp(-0.5,0.75)", un_clamp_a, un_r_clamp_a,  -2.0,   2.0, 0.0,  0.0},
    {"clamp(0.1,0.3)",   un_clamp_b, un_r_clamp_b,   0.0,   0.5, 0.0,  0.0},
    {"clamp(0.25,0.25)", un_clamp_c, un_r_clamp_c,  -1.0,   1.0, 0.0,  0.0},
    {"pow_scalar(2)",    un_pow2,    un_r_pow2,     -5.0,   5.0, 0.0,  1e-6},
    {"pow_scalar(3)",    un_pow3,    un_r_pow3,     -3.0,   3.0, 0.0,  2e-6},
    {"pow_scalar(2.5)",  un_pow25,   un_r_pow25,     0.0,   5.0, 1e-7, 2e-6},
    {"pow_scalar(-1.5)", un_powm15,  un_r_powm15,    0.1,   5.0, 0.0,  2e-6},
    {"pow_scalar(0.5)",  un_pow05,   un_r_pow05,     0.0,   9.0, 0.0,  2e-6},
    {"pow_scalar(-1)",   un_powm1,   un_r_powm1,    -4.0,   4.0, 0.0,  2e-6},
    {"pow_scalar(0)",    un_pow0,    un_r_pow0,     -4.0,   4.0, 0.0,  0.0},
    {"pow_scalar(1)",    un_pow1,    un_r_pow1,     -4.0,   4.0, 0.0,  0.0},
};
#define UN_NOPS ((int)(sizeof un_ops / sizeof un_ops[0]))

/* ---------------------------------------------------------------------------
   Inputs in several layouts. un_input builds a source tensor of dtype dt and a view of it;
   *vals gets the view's elements in row-major order (computed here from the source values
   with this file's own index arithmetic), *ndim/shape the view's expected shape.
   --------------------------------------------------------------------------- */
enum { UN_CONTIG, UN_TRANSPOSE, UN_SLICE2, UN_EXPAND_ROW, UN_EXPAND_COL, UN_PERMUTE, UN_NLAYOUTS };
static const char *const un_layout_names[UN_NLAYOUTS] = {
    "contiguous", "transposed", "step-2 slice", "expanded [1,n]->[3,n]", "expanded [n,1]->[n,3]",
    "permuted [2,3,n]->[n,2,3]"
};

static tt_tensor *un_input(tt_ctx *c, int layout, tt_dtype dt, long long n, double lo, double hi,
                           unsigned long long seed, double **vals_out, int *ndim, int64_t *shape) {
    long long i, j, k, m = 0;
    int sndim = 1;
    double *src, *v = NULL;
    int64_t sshape[3];
    tt_tensor *s, *x = NULL;
    long long r = (n % 7 == 0) ? 7 : ((n % 3 == 0) ? 3 : 1);
    long long q = n / r;
    *vals_out = NULL;
    switch (layout) {
    case UN_CONTIG:
        if (n > 143 && n % 143 == 0) { sshape[0] = n / 143; sshape[1] = 11; sshape[2] = 13; sndim = 3; }
        else { sshape[0] = n; sndim = 1; }
        m = n;
        break;
    case UN_TRANSPOSE: sshape[0] = r; sshape[1] = q; sndim = 2; m = n; break;
    case UN_SLICE2:
        if (n > 33) { sshape[0] = 2 * r; sshape[1] = q; sndim = 2; m = 2 * n; }
        else { sshape[0] = 2 * n + 1; sndim = 1; m = 2 * n + 1; }
        break;
    case UN_EXPAND_ROW: sshape[0] = 1; sshape[1] = n; sndim = 2; m = n; break;
    case UN_EXPAND_COL: sshape[0] = n; sshape[1] = 1; sndim = 2; m = n; break;
    default: sshape[0] = 2; sshape[1] = 3; sshape[2] = n; sndim = 3; m = 6 * n; break;
    }
    *ndim = layout == UN_SLICE2 ? sndim : (layout == UN_CONTIG ? sndim : (layout == UN_PERMUTE ? 3 : 2));
    src = (double *)malloc(sizeof(double) * (size_t)m);
    tu_uniform(src, m, seed, lo, hi);
    if (dt == TT_BOOL) for (i = 0; i < m; i++) src[i] = src[i] < 0.5 * (lo + hi) ? 0.0 : 1.0;
    s = tu_tensor_dt(c, dt, sndim, sshape, src);
    switch (layout) {
    case UN_CONTIG:
        x = s;
        v = src; src = NULL;
        for (i = 0; i < *ndim; i++) shape[i] = sshape[i];
        break;
    case UN_TRANSPOSE:                               /* [r,q] -> [q,r]: v[j][i] = src[i][j] */
        x = tt_transpose(c, s, 0, 1);
        shape[0] = q; shape[1] = r;
        v = (double *)malloc(sizeof(double) * (size_t)n);
        for (j = 0; j < q; j++) for (i = 0; i < r; i++) v[j * r + i] = src[i * q + j];
        break;
    case UN_SLICE2:
        v = (double *)malloc(sizeof(double) * (size_t)n);
        if (n > 33) {                                /* rows 0,2,4,... of [2r,q] */
            x = tt_slice(c, s, 0, 0, 2 * r, 2);
            shape[0] = r; shape[1] = q;
            for (i = 0; i < r; i++) for (j = 0; j < q; j++) v[i * q + j] = src[(2 * i) * q + j];
        } else {                                     /* elements 1,3,...,2n-1 of [2n+1] */
            x = tt_slice(c, s, 0, 1, 2 * n + 1, 2);
            shape[0] = n;
            for (i = 0; i < n; i++) v[i] = src[1 + 2 * i];
        }
        break;
    case UN_EXPAND_ROW:
        shape[0] = 3; shape[1] = n;
        x = tt_expand(c, s, 2, shape);
        v = (double *)malloc(sizeof(double) * (size_t)(3 * n));
        for (i = 0; i < 3; i++) for (j = 0; j < n; j++) v[i * n + j] = src[j];
        break;
    case UN_EXPAND_COL:
        shape[0] = n; shape[1] = 3;
        x = tt_expand(c, s, 2, shape);
        v = (double *)malloc(sizeof(double) * (size_t)(3 * n));
        for (i = 0; i < n; i++) for (j = 0; j < 3; j++) v[i * 3 + j] = src[i];
        break;
    default: {                                       /* [2,3,n] permuted {2,0,1} -> [n,2,3] */
        int perm[3] = {2, 0, 1};
        x = tt_permute(c, s, perm);
        shape[0] = n; shape[1] = 2; shape[2] = 3;
        v = (double *)malloc(sizeof(double) * (size_t)(6 * n));
        for (i = 0; i < n; i++) for (j = 0; j < 2; j++) for (k = 0; k < 3; k++)
            v[(i * 2 + j) * 3 + k] = src[(j * 3 + k) * n + i];
    } break;
    }
    free(src);
    *vals_out = v;
    return x;
}

static const long long un_sizes[] = {1, 3, 7, 33, 1001};
#define UN_NSIZES ((int)(sizeof un_sizes / sizeof un_sizes[0]))

/* Runs op over every size and layout with inputs of dtype dt. */
static void un_run_op(const un_op *op, int opi, tt_dtype dt, int first_layout, int last_layout) {
    tt_ctx *c = tu_ctx();
    int layout, si;
    for (layout = first_layout; layout <= last_layout; layout++) {
        for (si = 0; si < UN_NSIZES; si++) {
            long long n = un_sizes[si], i, m;
            int ndim = 0, ok;
            int64_t shape[3];
            double *vals = NULL, *want;
            float *got, *xin;
            tt_tensor *x, *r;
            unsigned long long seed = (unsigned long long)(1000 * opi + 100 * layout + si + 7 * (int)dt + 1);
            tt_scope sc = tt_scope_begin(c);
            x = un_input(c, layout, dt, n, op->lo, op->hi, seed, &vals, &ndim, shape);
            if (!CHECK(x != NULL)) {
                printf("      making the input failed: %s\n", tt_error(c) ? tt_error(c) : "?");
                tt_clear_error(c);
                free(vals);
                tt_scope_end(c, sc);
                continue;
            }
            m = tu_numel(ndim, shape);
            r = op->fn(c, x);
            CHECK_GUARDS(c);
            ok = CHECK_META(r, TT_F32, ndim, shape);
            if (ok) {
                want = (double *)malloc(sizeof(double) * (size_t)m);
                for (i = 0; i < m; i++) want[i] = op->ref(vals[i]);
                got = tu_values(c, r);
                ok = CHECK_ALLCLOSE(got, want, m, op->atol, op->rtol);
                free(got);
                free(want);
                /* the op must not write into its input */
                xin = tu_values(c, x);
                if (xin) {
                    long long bad = 0;
                    for (i = 0; i < m; i++) if ((double)xin[i] != vals[i] && !(isnan(xin[i]) && isnan(vals[i]))) bad++;
                    ok &= CHECK_EQ_INT(bad, 0);
                    free(xin);
                }
            }
            if (!ok)
                printf("      op %s, input dtype %s, layout %s, %lld elements: %s\n", op->name, tu_dtname(dt),
                       un_layout_names[layout], m, tt_error(c) ? tt_error(c) : "(no error)");
            tt_clear_error(c);
            free(vals);
            tt_scope_end(c, sc);
        }
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------------------
   Tests
   --------------------------------------------------------------------------- */
static void test_unary_f32_layouts(void) {
    int i;
    for (i = 0; i < UN_NOPS; i++) un_run_op(&un_ops[i], i, TT_F32, 0, UN_NLAYOUTS - 1);
}

static void test_unary_f16_inputs(void) {
    int i;
    for (i = 0; i < UN_NOPS; i++) un_run_op(&un_ops[i], i, TT_F16, 0, UN_NLAYOUTS - 1);
}

static void test_unary_bf16_inputs(void) {
    int i;
    for (i = 0; i < UN_NOPS; i++) un_run_op(&un_ops[i], i, TT_BF16, 0, UN_NLAYOUTS - 1);
}

static void test_unary_i32_inputs(void) {
    int i;
    for (i = 0; i < UN_NOPS; i++) un_run_op(&un_ops[i], i, TT_I32, 0, UN_NLAYOUTS - 1);
}

static void test_unary_bool_inputs(void) {
    int i;
    for (i = 0; i < UN_NOPS; i++) un_run_op(&un_ops[i], i, TT_BOOL, UN_CONTIG, UN_TRANSPOSE);
}

/* 0-d input: 0-d f32 result with the right value. */
static void test_unary_scalar_0d(void) {
    tt_ctx *c = tu_ctx();
    int i;
    for (i = 0; i < UN_NOPS; i++) {
        const un_op *op = &un_ops[i];
        double v = op->lo + 0.37 * (op->hi - op->lo);
        tt_tensor *x = tt_scalar(c, (float)v), *r;
        float *got;
        v = (double)(float)v;
        r = op->fn(c, x);
        CHECK_GUARDS(c);
        if (!CHECK_META(r, TT_F32, 0, NULL)) { printf("      op %s on a 0-d tensor\n", op->name); tt_clear_error(c); continue; }
        got = tu_values(c, r);
        if (!CHECK(got != NULL) || !CHECK_NEAR(got[0], op->ref(v), op->atol, op->rtol))
            printf("      op %s on a 0-d tensor holding %.9g\n", op->name, v);
        free(got);
    }
    /* also a 0-d tensor of another dtype */
    {
        double v = 2.5;
        tt_tensor *x = tu_tensor_dt(c, TT_F16, 0, NULL, &v), *r = tt_exp(c, x);
        CHECK_GUARDS(c);
        if (CHECK_META(r, TT_F32, 0, NULL)) CHECK_NEAR(tt_item(c, r), exp(2.5), 0, 2e-6);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* Empty tensors ([2,0] and [0]): empty f32 results of the same shape, no error. */
static void test_unary_empty(void) {
    tt_ctx *c = tu_ctx();
    int i;
    int64_t s2[2] = {2, 0}, s1[1] = {0};
    tt_tensor *a = tt_zeros(c, TT_F32, 2, s2), *b = tt_zeros(c, TT_F32, 1, s1);
    CHECK(a != NULL && b != NULL);
    for (i = 0; i < UN_NOPS; i++) {
        tt_tensor *r1 = un_ops[i].fn(c, a), *r2 = un_ops[i].fn(c, b);
        CHECK_GUARDS(c);
        if (!CHECK_META(r1, TT_F32, 2, s2) || !CHECK_META(r2, TT_F32, 1, s1))
            printf("      op %s on an empty tensor: %s\n", un_ops[i].name, tt_error(c) ? tt_error(c) : "(no error)");
        tt_clear_error(c);
    }
    tt_ctx_destroy(c);
}

/* Each special input fills a 37-element tensor (so vector bodies and scalar tails both see it);
   every element must be near want. want_neg_zero: the result must also be -0. */
static void un_special(tt_ctx *c, const char *name, un_fn fn, double x, double want, double atol, double rtol,
                       int want_neg_zero) {
    float in[37];
    int64_t shape[1] = {37};
    int i;
    tt_tensor *t, *r;
    float *got;
    for (i = 0; i < 37; i++) in[i] = (float)x;
    t = tt_from_data(c, TT_F32, 1, shape, in);
    r = fn(c, t);
    CHECK_GUARDS(c);
    if (!CHECK_META(r, TT_F32, 1, shape)) { printf("      %s(%.9g)\n", name, x); tt_clear_error(c); return; }
    got = tu_values(c, r);
    if (!CHECK(got != NULL)) return;
    for (i = 0; i < 37; i++) {
        if (!CHECK_NEAR(got[i], want, atol, rtol)) { printf("      %s(%.9g) at [%d]\n", name, x, i); break; }
        if (want_neg_zero && !CHECK(signbit(got[i]))) { printf("      %s(%.9g) should be -0 at [%d]\n", name, x, i); break; }
    }
    free(got);
}

static void test_unary_special_values(void) {
    tt_ctx *c = tu_ctx();
    const double inf = (double)INFINITY, nan = (double)NAN;
    /* neg, abs, sign */
    un_special(c, "neg", tt_neg, 0.0, 0.0, 0, 0, 1);
    un_special(c, "neg", tt_neg, inf, -inf, 0, 0, 0);
    un_special(c, "neg", tt_neg, nan, nan, 0, 0, 0);
    un_special(c, "abs", tt_abs, -0.0, 0.0, 0, 0, 0);
    un_special(c, "abs", tt_abs, -inf, inf, 0, 0, 0);
    un_special(c, "abs", tt_abs, nan, nan, 0, 0, 0);
    un_special(c, "sign", tt_sign, 0.0, 0.0, 0, 0, 0);
    un_special(c, "sign", tt_sign, -0.0, 0.0, 0, 0, 0);
    un_special(c, "sign", tt_sign, 1e-30, 1.0, 0, 0, 0);
    un_special(c, "sign", tt_sign, -1e-30, -1.0, 0, 0, 0);
    un_special(c, "sign", tt_sign, inf, 1.0, 0, 0, 0);
    un_special(c, "sign", tt_sign, -inf, -1.0, 0, 0, 0);
    /* exp */
    un_special(c, "exp", tt_exp, 0.0, 1.0, 0, 0, 0);
    un_special(c, "exp", tt_exp, -0.0, 1.0, 0, 0, 0);
    un_special(c, "exp", tt_exp, inf, inf, 0, 0, 0);
    un_special(c, "exp", tt_exp, -inf, 0.0, 0, 0, 0);
    un_special(c, "exp", tt_exp, nan, nan, 0, 0, 0);
    un_special(c, "exp", tt_exp, 100.0, inf, 0, 0, 0);
    un_special(c, "exp", tt_exp, 89.0, inf, 0, 0, 0);
    un_special(c, "exp", tt_exp, 88.5, exp(88.5), 0, 2e-6, 0);
    un_special(c, "exp", tt_exp, -87.0, exp(-87.0), 0, 2e-6, 0);
    un_special(c, "exp", tt_exp, -100.0, 0.0, 1e-38, 0, 0);
    un_special(c, "exp", tt_exp, -1000.0, 0.0, 0, 0, 0);
    /* log */
    un_special(c, "log", tt_log, 1.0, 0.0, 0, 0, 0);
    un_special(c, "log", tt_log, 0.0, -inf, 0, 0, 0);
    un_special(c, "log", tt_log, -0.0, -inf, 0, 0, 0);
    un_special(c, "log", tt_log, inf, inf, 0, 0, 0);
    un_special(c, "log", tt_log, -1.0, nan, 0, 0, 0);
    un_special(c, "log", tt_log, nan, nan, 0, 0, 0);
    un_special(c, "log", tt_log, (double)1e-30f, log((double)1e-30f), 0, 2e-6, 0);
    un_special(c, "log", tt_log, (double)3e38f, log((double)3e38f), 0, 2e-6, 0);
    /* sqrt, rsqrt, reciprocal */
    un_special(c, "sqrt", tt_sqrt, 0.0, 0.0, 0, 0, 0);
    un_special(c, "sqrt", tt_sqrt, inf, inf, 0, 0, 0);
    un_special(c, "sqrt", tt_sqrt, -1.0, nan, 0, 0, 0);
    un_special(c, "sqrt", tt_sqrt, nan, nan, 0, 0, 0);
    un_special(c, "sqrt", tt_sqrt, 1e30, sqrt((double)1e30f), 0, 1e-6, 0);
    un_special(c, "rsqrt", tt_rsqrt, 0.0, inf, 0, 0, 0);
    un_special(c, "rsqrt", tt_rsqrt, inf, 0.0, 0, 0, 0);
    un_special(c, "rsqrt", tt_rsqrt, 4.0, 0.5, 0, 2e-6, 0);
    un_special(c, "rsqrt", tt_rsqrt, -1.0, nan, 0, 0, 0);
    un_special(c, "rsqrt", tt_rsqrt, nan, nan, 0, 0, 0);
    un_special(c, "reciprocal", tt_reciprocal, 0.0, inf, 0, 0, 0);
    un_special(c, "reciprocal", tt_reciprocal, -0.0, -inf, 0, 0, 0);
    un_special(c, "reciprocal", tt_reciprocal, inf, 0.0, 0, 0, 0);
    un_special(c, "reciprocal", tt_reciprocal, -4.0, -0.25, 0, 0, 0);
    un_special(c, "reciprocal", tt_reciprocal, nan, nan, 0, 0, 0);
    /* sin, cos */
    un_special(c, "sin", tt_sin, 0.0, 0.0, 0, 0, 0);
    un_special(c, "sin", tt_sin, nan, nan, 0, 0, 0);
    un_special(c, "sin", tt_sin, inf, nan, 0, 0, 0);
    un_special(c, "cos", tt_cos, 0.0, 1.0, 0, 0, 0);
    un_special(c, "cos", tt_cos, nan, nan, 0, 0, 0);
    un_special(c, "cos", tt_cos, -inf, nan, 0, 0, 0);
    /* tanh */
    un_special(c, "tanh", tt_tanh, 0.0, 0.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, 50.0, 1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, -50.0, -1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, 100.0, 1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, 1000.0, 1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, inf, 1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, -inf, -1.0, 0, 0, 0);
    un_special(c, "tanh", tt_tanh, nan, nan, 0, 0, 0);
    /* sigmoid */
    un_special(c, "sigmoid", tt_sigmoid, 0.0, 0.5, 0, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, -100.0, 0.0, 1e-30, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, -90.0, 0.0, 1e-30, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, -1000.0, 0.0, 1e-30, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, 100.0, 1.0, 0, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, 1000.0, 1.0, 0, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, inf, 1.0, 0, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, -inf, 0.0, 0, 0, 0);
    un_special(c, "sigmoid", tt_sigmoid, nan, nan, 0, 0, 0);
    /* relu family */
    un_special(c, "relu", tt_relu, 0.0, 0.0, 0, 0, 0);
    un_special(c, "relu", tt_relu, -1e-30, 0.0, 0, 0, 0);
    un_special(c, "relu", tt_relu, inf, inf, 0, 0, 0);
    un_special(c, "relu", tt_relu, -inf, 0.0, 0, 0, 0);
    un_special(c, "leaky_relu(0.01)", un_leaky001, -inf, -inf, 0, 0, 0);
    un_special(c, "leaky_relu(0.01)", un_leaky001, inf, inf, 0, 0, 0);
    un_special(c, "leaky_relu(0.01)", un_leaky001, 0.0, 0.0, 0, 0, 0);
    un_special(c, "elu(1)", un_elu1, 0.0, 0.0, 0, 0, 0);
    un_special(c, "elu(1)", un_elu1, -100.0, -1.0, 0, 1e-6, 0);
    un_special(c, "elu(1)", un_elu1, -inf, -1.0, 0, 1e-6, 0);
    un_special(c, "elu(1)", un_elu1, inf, inf, 0, 0, 0);
    un_special(c, "elu(1)", un_elu1, nan, nan, 0, 0, 0);
    un_special(c, "elu(0.3)", un_elu03, -1000.0, -(double)0.3f, 0, 1e-6, 0);
    /* gelu, gelu_tanh, silu, softplus, erf */
    un_special(c, "gelu", tt_gelu, 0.0, 0.0, 0, 0, 0);
    un_special(c, "gelu", tt_gelu, 10.0, 10.0, 0, 1e-6, 0);
    un_special(c, "gelu", tt_gelu, -10.0, 0.0, 1e-6, 0, 0);
    un_special(c, "gelu", tt_gelu, 100.0, 100.0, 0, 1e-6, 0);
    un_special(c, "gelu", tt_gelu, inf, inf, 0, 0, 0);
    un_special(c, "gelu", tt_gelu, nan, nan, 0, 0, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, 0.0, 0.0, 0, 0, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, 10.0, 10.0, 0, 1e-6, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, -10.0, 0.0, 1e-6, 0, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, 100.0, 100.0, 0, 1e-6, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, -100.0, 0.0, 1e-6, 0, 0);
    un_special(c, "gelu_tanh", tt_gelu_tanh, nan, nan, 0, 0, 0);
    un_special(c, "silu", tt_silu, 0.0, 0.0, 0, 0, 0);
    un_special(c, "silu", tt_silu, -100.0, 0.0, 1e-30, 0, 0);
    un_special(c, "silu", tt_silu, 100.0, 100.0, 0, 1e-6, 0);
    un_special(c, "silu", tt_silu, inf, inf, 0, 0, 0);
    un_special(c, "silu", tt_silu, nan, nan, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, 0.0, log(2.0), 0, 2e-6, 0);
    un_special(c, "softplus", tt_softplus, 100.0, 100.0, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, 1000.0, 1000.0, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, 20.5, 20.5, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, 20.0, log1p(exp(20.0)), 0, 1e-6, 0);
    un_special(c, "softplus", tt_softplus, -100.0, 0.0, 1e-30, 0, 0);
    un_special(c, "softplus", tt_softplus, inf, inf, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, -inf, 0.0, 0, 0, 0);
    un_special(c, "softplus", tt_softplus, nan, nan, 0, 0, 0);
    un_special(c, "erf", tt_erf, 0.0, 0.0, 0, 0, 0);
    un_special(c, "erf", tt_erf, 10.0, 1.0, 0, 1e-7, 0);
    un_special(c, "erf", tt_erf, -10.0, -1.0, 0, 1e-7, 0);
    un_special(c, "erf", tt_erf, inf, 1.0, 0, 0, 0);
    un_special(c, "erf", tt_erf, -inf, -1.0, 0, 0, 0);
    un_special(c, "erf", tt_erf, nan, nan, 0, 0, 0);
    /* floor, ceil, round */
    un_special(c, "floor", tt_floor, -0.5, -1.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, 0.5, 0.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, -2.5, -3.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, -1e-30, -1.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, 8388609.0, 8388609.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, -16777215.0, -16777215.0, 0, 0, 0);
    un_special(c, "floor", tt_floor, 1e30, (double)1e30f, 0, 0, 0);
    un_special(c, "floor", tt_floor, inf, inf, 0, 0, 0);
    un_special(c, "floor", tt_floor, -inf, -inf, 0, 0, 0);
    un_special(c, "floor", tt_floor, nan, nan, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, 0.5, 1.0, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, -0.5, 0.0, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, -2.5, -2.0, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, 1e-30, 1.0, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, 8388609.0, 8388609.0, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, -1e30, (double)-1e30f, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, inf, inf, 0, 0, 0);
    un_special(c, "ceil", tt_ceil, nan, nan, 0, 0, 0);
    un_special(c, "round", tt_round, 0.5, 0.0, 0, 0, 0);
    un_special(c, "round", tt_round, 1.5, 2.0, 0, 0, 0);
    un_special(c, "round", tt_round, 2.5, 2.0, 0, 0, 0);
    un_special(c, "round", tt_round, 3.5, 4.0, 0, 0, 0);
    un_special(c, "round", tt_round, -0.5, 0.0, 0, 0, 1);
    un_special(c, "round", tt_round, -1.5, -2.0, 0, 0, 0);
    un_special(c, "round", tt_round, -2.5, -2.0, 0, 0, 0);
    un_special(c, "round", tt_round, -0.0, 0.0, 0, 0, 1);
    un_special(c, "round", tt_round, 0.5 - ldexp(1.0, -25), 0.0, 0, 0, 0);     /* 0.49999997f */
    un_special(c, "round", tt_round, 8388607.5, 8388608.0, 0, 0, 0);           /* 2^23 - 0.5 */
    un_special(c, "round", tt_round, 4194302.5, 4194302.0, 0, 0, 0);
    un_special(c, "round", tt_round, 8388609.0, 8388609.0, 0, 0, 0);           /* 2^23 + 1 */
    un_special(c, "round", tt_round, -16777215.0, -16777215.0, 0, 0, 0);
    un_special(c, "round", tt_round, 1e30, (double)1e30f, 0, 0, 0);
    un_special(c, "round", tt_round, inf, inf, 0, 0, 0);
    un_special(c, "round", tt_round, -inf, -inf, 0, 0, 0);
    un_special(c, "round", tt_round, nan, nan, 0, 0, 0);
    /* clamp */
    un_special(c, "clamp(-0.5,0.75)", un_clamp_a, inf, 0.75, 0, 0, 0);
    un_special(c, "clamp(-0.5,0.75)", un_clamp_a, -inf, -0.5, 0, 0, 0);
    un_special(c, "clamp(-0.5,0.75)", un_clamp_a, 0.75, 0.75, 0, 0, 0);
    un_special(c, "clamp(-0.5,0.75)", un_clamp_a, -0.5, -0.5, 0, 0, 0);
    /* NaN passes through relu, leaky_relu and clamp, as in PyTorch */
    un_special(c, "relu", tt_relu, nan, nan, 0, 0, 0);
    un_special(c, "leaky_relu(0.01)", un_leaky001, nan, nan, 0, 0, 0);
    un_special(c, "clamp(-0.5,0.75)", un_clamp_a, nan, nan, 0, 0, 0);
    /* pow_scalar */
    un_special(c, "pow_scalar(2)", un_pow2, -3.0, 9.0, 0, 0, 0);
    un_special(c, "pow_scalar(2)", un_pow2, 0.0, 0.0, 0, 0, 0);
    un_special(c, "pow_scalar(2)", un_pow2, -inf, inf, 0, 0, 0);
    un_special(c, "pow_scalar(2)", un_pow2, nan, nan, 0, 0, 0);
    un_special(c, "pow_scalar(3)", un_pow3, -2.0, -8.0, 0, 1e-6, 0);
    un_special(c, "pow_scalar(0.5)", un_pow05, 4.0, 2.0, 0, 1e-6, 0);
    un_special(c, "pow_scalar(0.5)", un_pow05, 0.0, 0.0, 0, 0, 0);
    un_special(c, "pow_scalar(0.5)", un_pow05, -1.0, nan, 0, 0, 0);
    un_special(c, "pow_scalar(-1)", un_powm1, 0.0, inf, 0, 0, 0);
    un_special(c, "pow_scalar(-1)", un_powm1, 2.0, 0.5, 0, 1e-6, 0);
    un_special(c, "pow_scalar(-1)", un_powm1, -2.0, -0.5, 0, 1e-6, 0);
    un_special(c, "pow_scalar(0)", un_pow0, 0.0, 1.0, 0, 0, 0);
    un_special(c, "pow_scalar(2.5)", un_pow25, 4.0, 32.0, 0, 2e-6, 0);
    un_special(c, "pow_scalar(2.5)", un_pow25, 0.0, 0.0, 0, 0, 0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* round/floor/ceil on inputs full of exact halves and quarters, and near 2^23. */
static void test_unary_round_halves(void) {
    tt_ctx *c = tu_ctx();
    const long long n = 4003 + 401;
    long long i;
    int64_t shape[1];
    double *v = (double *)malloc(sizeof(double) * (size_t)n), *want = (double *)malloc(sizeof(double) * (size_t)n);
    tt_tensor *x;
    int k;
    for (i = 0; i < 4003; i++) v[i] = 0.5 * (double)(i - 2001);            /* -1000.5 .. 1000.5 */
    for (i = 0; i < 401; i++) v[4003 + i] = 8388508.0 + 0.5 * (double)i;  /* halves below 2^23, integers above */
    shape[0] = n;
    x = tu_tensor(c, 1, shape, v);
    for (k = 0; k < 3; k++) {
        tt_tensor *r = k == 0 ? tt_round(c, x) : (k == 1 ? tt_floor(c, x) : tt_ceil(c, x));
        float *got;
        CHECK_GUARDS(c);
        if (!CHECK_META(r, TT_F32, 1, shape)) continue;
        for (i = 0; i < n; i++) want[i] = k == 0 ? rint(v[i]) : (k == 1 ? floor(v[i]) : ceil(v[i]));
        got = tu_values(c, r);
        if (!CHECK_ALLCLOSE(got, want, n, 0, 0)) printf("      op %s on exact halves\n", k == 0 ? "round" : (k == 1 ? "floor" : "ceil"));
        free(got);
    }
    /* quarters through a transposed view: [-3.75 .. 3.75] */
    {
        int64_t s2[2] = {3, 11};
        double q[33], w[33];
        tt_tensor *s, *t, *r;
        int a, b;
        for (a = 0; a < 33; a++) q[a] = 0.25 * (double)(a - 16) + (a % 5 == 0 ? 0.5 : 0.0);
        s = tu_tensor(c, 2, s2, q);
        t = tt_transpose(c, s, 0, 1);
        r = tt_round(c, t);
        CHECK_GUARDS(c);
        s2[0] = 11; s2[1] = 3;
        if (CHECK_META(r, TT_F32, 2, s2)) {
            float *got = tu_values(c, r);
            for (a = 0; a < 11; a++) for (b = 0; b < 3; b++) w[a * 3 + b] = rint(q[b * 11 + a]);
            CHECK_ALLCLOSE(got, w, 33, 0, 0);
            free(got);
        }
    }
    free(v);
    free(want);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* NULL input: NULL result and no new error, for every op. */
static void test_unary_null_input(void) {
    tt_ctx *c = tu_ctx();
    int i;
    for (i = 0; i < UN_NOPS; i++) {
        tt_tensor *r = un_ops[i].fn(c, NULL);
        if (!CHECK(r == NULL) || !CHECK(tt_error(c) == NULL) || !CHECK_EQ_INT(tt_ctx_status(c), TT_OK))
            printf("      op %s(NULL)\n", un_ops[i].name);
        tt_clear_error(c);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* clamp with lo > hi: the doc's formula min(max(x,lo),hi) gives hi everywhere; an error
   (TT_ERR_ARG naming tt_clamp) is accepted too. Never garbage, never a crash. */
static void test_unary_clamp_inverted_bounds(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[1] = {33};
    double v[33];
    tt_tensor *x, *r;
    tu_uniform(v, 33, 5, -2.0, 2.0);
    x = tu_tensor(c, 1, shape, v);
    r = tt_clamp(c, x, 1.0f, -1.0f);
    CHECK_GUARDS(c);
    if (r) {
        double want[33];
        float *got = tu_values(c, r);
        int i;
        for (i = 0; i < 33; i++) want[i] = fmin(fmax(v[i], 1.0), -1.0);
        CHECK_ALLCLOSE(got, want, 33, 0, 0);
        free(got);
    } else {
        CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_ARG);
        CHECK_STR_CONTAINS(tt_error(c), "tt_clamp:");
        tt_clear_error(c);
    }
    tt_ctx_destroy(c);
}

/* Chained ops on a 1000+ element tensor: the result of one op is a valid input of the next. */
static void test_unary_chain(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[2] = {37, 29};
    double v[37 * 29], want[37 * 29];
    tt_tensor *x, *r;
    int i;
    tu_uniform(v, 37 * 29, 99, -3.0, 3.0);
    x = tu_tensor(c, 2, shape, v);
    r = tt_sqrt(c, tt_add_scalar(c, tt_abs(c, tt_neg(c, x)), 1.0f));
    r = tt_tanh(c, tt_exp(c, tt_log(c, r)));
    CHECK_GUARDS(c);
    if (CHECK_META(r, TT_F32, 2, shape)) {
        float *got = tu_values(c, r);
        for (i = 0; i < 37 * 29; i++) want[i] = tanh(sqrt(fabs(v[i]) + 1.0));
        CHECK_ALLCLOSE(got, want, 37 * 29, 1e-6, 4e-6);
        free(got);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(unary) = {
    {"f32_all_ops_all_layouts", test_unary_f32_layouts},
    {"f16_inputs", test_unary_f16_inputs},
    {"bf16_inputs", test_unary_bf16_inputs},
    {"i32_inputs", test_unary_i32_inputs},
    {"bool_inputs", test_unary_bool_inputs},
    {"scalar_0d", test_unary_scalar_0d},
    {"empty", test_unary_empty},
    {"special_values", test_unary_special_values},
    {"round_floor_ceil_halves", test_unary_round_halves},
    {"null_input", test_unary_null_input},
    {"chain", test_unary_chain},
    {"clamp_inverted_bounds", test_unary_clamp_inverted_bounds},
    {NULL, NULL}
};
