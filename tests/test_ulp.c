/* test_ulp.c - group `ulp`: how accurate the vectorized math functions and the row ops are.

   Part 1 measures each unary math op in ulp against libm in double: one f32 tensor holds a
   sweep of float bit patterns (every k-th float, both signs, ~2 million values, nine tenths
   of them with |x| >= 2^-12), the op runs once, and every
   result's error |got - ref| / ulp(ref) is computed, where ref is the double function at the
   (float) input and ulp(ref) is the spacing of floats at ref rounded to float. The maxima go
   in a table (function, range, values, max ulp, at x) and each is checked against a bound:
   the one documented in tinytrace.h above tt__expf, tt__tanhf and tt__erff, else the
   measured maximum rounded up to the next 0.5 (said so where it is set). Special values
   (NaN, +-inf, +-0) are checked exactly, once.

   Part 2 checks softmax, log_softmax, layer_norm and rms_norm against double references
   written here, on rows that stress them (max subtraction, -inf entries, a large common
   offset), with tolerances derived in the comments of rw_softmax_ref and rw_norm_ref; and
   checks that 1 and 2 threads give bitwise the same results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include "test_util.h"

/* ===========================================================================
   Part 1: unary math functions, in ulp
   =========================================================================== */

typedef tt_tensor *(*ulp_op_fn)(tt_ctx *, tt_tensor *);
typedef double (*ulp_ref_fn)(double);

/* The float with bit pattern b, and back. */
static float ulp_float(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t ulp_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* The spacing of floats at |ref| rounded to float: the gap to the next float up (down at
   FLT_MAX), the smallest subnormal at 0. (Bit arithmetic rather than nextafterf: in
   -march=native builds libm's SSE code can run ~20x slower after the library's AVX code.) */
static double ulp_spacing(double ref) {
    float r = (float)fabs(ref);
    uint32_t b = ulp_bits(r);
    if (r == FLT_MAX) return (double)r - (double)ulp_float(b - 1u);
    return (double)ulp_float(b + 1u) - (double)r;
}

/* Error of got in ulp of ref. NaN must give NaN, and a ref that rounds to +-inf in float
   must give that inf exactly (0 ulp then, infinite otherwise). */
static double ulp_error(float got, double ref) {
    float rf = (float)ref;
    if (isnan(ref)) return isnan(got) ? 0.0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf(rf)) return got == rf ? 0.0 : INFINITY;
    if (isinf(got)) return INFINITY;
    return fabs((double)got - ref) / ulp_spacing(ref);
}

/* One part of a function's sweep, with its bound. A value belongs to the first range whose
   interval [lo, hi] holds x and whose |ref| >= min_ref. max_ulp >= 0 bounds the error in ulp;
   max_ulp < 0 means the error in ulp is not bounded there (the result is so small that the
   formula's absolute error dominates) and max_abs bounds |got - ref| instead. */
typedef struct ulp_range {
    const char *name;
    double      lo, hi, min_ref;
    double      max_ulp, max_abs;
} ulp_range;

#define ULP_MAX_RANGES 4
typedef struct ulp_func {
    const char *name;
    ulp_op_fn   op;
    ulp_ref_fn  ref;
    double      neg_hi, pos_hi;     /* sweep x over [-neg_hi, 0] and [0, pos_hi] (0: side skipped) */
    ulp_range   ranges[ULP_MAX_RANGES];   /* ended by a NULL name */
} ulp_func;

/* The references: libm in double, or the formula the op documents, in double. */
static double ulp_r_exp(double x) { return exp(x); }
static double ulp_r_tanh(double x) { return tanh(x); }
static double ulp_r_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ulp_r_erf(double x) { return erf(x); }
/* gelu = 0.5x(1 + erf(x/sqrt2)) and gelu_tanh = 0.5x(1 + tanh(u)), written as 0.5x*erfc(-x/sqrt2)
   and x/(1 + exp(-2u)) so that the reference itself does not cancel for x << 0. */
static double ulp_r_gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double ulp_r_gelu_tanh(double x) {
    const double k = sqrt(2.0 / 3.14159265358979323846);
    return x / (1.0 + exp(-2.0 * k * (x + 0.044715 * x * x * x)));
}
static double ulp_r_silu(double x) { return x / (1.0 + exp(-x)); }
static double ulp_r_softplus(double x) { return x > 20.0 ? x : log1p(exp(x)); }   /* PyTorch's threshold */
static double ulp_r_log(double x) { return log(x); }
static double ulp_r_sqrt(double x) { return sqrt(x); }
static double ulp_r_rsqrt(double x) { return 1.0 / sqrt(x); }

#define ULP_ALL (-1e300), (1e300)     /* an x interval that holds every input */
#define ULP_END {NULL, 0, 0, 0, 0, 0}
#define ULP_X_MIN_NORMAL (-87.3365402)    /* exp(x) >= FLT_MIN for x above it */
#define ULP_ABS_ONLY (-1.0)               /* max_ulp: bound |got - ref| instead */

/* The bounds. "Documented" ones come from the comments above tt__expf, tt__tanhf and
   tt__erff in tinytrace.h. The others are the largest error found by a separate scan (not
   part of the suite: every 13th float of the sweep's interval, then every float of the
   binade holding the maximum; -O2 and -march=native gave the same maxima), rounded up to
   the next 0.5; the number in brackets is that maximum. This file's sparser sweep sees
   maxima at or a little below them.
   Where a composite function's error in ulp is unbounded because the result is tiny next
   to the error of its parts, that part is checked with an absolute bound. */
static const ulp_func ulp_funcs[] = {
    /* exp: documented <= 1 ulp for normal results [0.980], "a few" for subnormal ones [0.750];
       results beyond FLT_MAX must be inf. */
    {"exp", tt_exp, ulp_r_exp, 104.0, 89.0, {
        {"x >= 88.7228394: inf", 88.7228394, 1e300, 0.0, 0.0, 0.0},
        {"normal results", ULP_ALL, FLT_MIN, 1.0, 0.0},
        {"subnormal results", ULP_ALL, 0.0, 2.0, 0.0},
        ULP_END}},
    /* tanh: documented <= 1.33, but every float of [0.5, 1] gives 1.3303 at x = +-0.628309548
       (just past the polynomial's end, 0.625): 1.34 here. */
    {"tanh", tt_tanh, ulp_r_tanh, 12.0, 12.0, {
        {"all", ULP_ALL, 0.0, 1.34, 0.0},
        ULP_END}},
    /* sigmoid = 1/(1 + exp(-x)): [2.48 at x = -16.64]. Below x = -88.72 exp(-x) overflows and
       the result is 0 while the reference is below 3e-39: subnormal results are held to
       |err| <= FLT_MIN instead. */
    {"sigmoid", tt_sigmoid, ulp_r_sigmoid, 110.0, 20.0, {
        {"normal results", ULP_ALL, FLT_MIN, 2.5, 0.0},
        {"subnormal results", ULP_ALL, 0.0, ULP_ABS_ONLY, FLT_MIN},
        ULP_END}},
    /* erf: documented <= 1.5 [1.34 at +-1.0013, where the two formulas meet]. */
    {"erf", tt_erf, ulp_r_erf, 5.0, 5.0, {
        {"all", ULP_ALL, 0.0, 1.5, 0.0},
        ULP_END}},
    /* gelu = 0.5x(1 + erf(x/sqrt2)): [2.61] for x >= -1. For x < -1, 1 + erf cancels: erf's
       own error near -1 (~ulp(1)/2 = 3e-8) times 0.5|x| is an absolute error that the
       shrinking result turns into 15.8 ulp at x = -1.85 and 4098 ulp at x = -4 (PyTorch's
       formula does the same); from -2 down only |err| is bounded, by 2^-23 [8.3e-8]. */
    {"gelu", tt_gelu, ulp_r_gelu, 20.0, 20.0, {
        {"x >= -1", -1.0, 1e300, 0.0, 3.0, 0.0},
        {"-2 <= x < -1", -2.0, -1.0, 0.0, 16.0, 0.0},
        {"x < -2 (absolute)", ULP_ALL, 0.0, ULP_ABS_ONLY, 1.0 / 8388608.0},
        ULP_END}},
    /* gelu_tanh: the same shape, through tanh: [4.02] for x >= -1, [15.45] on [-2, -1), and
       |err| <= 2^-23 [7.7e-8] below. */
    {"gelu_tanh", tt_gelu_tanh, ulp_r_gelu_tanh, 20.0, 20.0, {
        {"x >= -1", -1.0, 1e300, 0.0, 4.5, 0.0},
        {"-2 <= x < -1", -2.0, -1.0, 0.0, 15.5, 0.0},
        {"x < -2 (absolute)", ULP_ALL, 0.0, ULP_ABS_ONLY, 1.0 / 8388608.0},
        ULP_END}},
    /* silu = x * sigmoid(x): [2.86 at x = -16.70] while sigmoid's result is normal. Below
       that sigmoid is subnormal or 0 and the result (|x|e^x < 1.1e-36) loses its digits:
       |err| <= 1e-35 there. */
    {"silu", tt_silu, ulp_r_silu, 110.0, 20.0, {
        {"x >= -87.34", ULP_X_MIN_NORMAL, 1e300, 0.0, 3.0, 0.0},
        {"x < -87.34 (absolute)", ULP_ALL, 0.0, ULP_ABS_ONLY, 1e-35},
        ULP_END}},
    /* softplus = log1pf(expf(x)) (libm), x for x > 20: [1.54 at x = -1.27]; subnormal results
       [0.50]. */
    {"softplus", tt_softplus, ulp_r_softplus, 110.0, 30.0, {
        {"normal results", ULP_ALL, FLT_MIN, 2.0, 0.0},
        {"subnormal results", ULP_ALL, 0.0, 1.0, 0.0},
        ULP_END}},
    /* log: libm's logf [0.81]. sqrt: sqrtf is correctly rounded (IEEE 754): 0.5. rsqrt =
       1/sqrtf(x), two roundings [1.49]. Every positive float, subnormals included. */
    {"log", tt_log, ulp_r_log, 0.0, FLT_MAX, {
        {"all positive floats", ULP_ALL, 0.0, 1.0, 0.0},
        ULP_END}},
    {"sqrt", tt_sqrt, ulp_r_sqrt, 0.0, FLT_MAX, {
        {"all positive floats", ULP_ALL, 0.0, 0.5, 0.0},
        ULP_END}},
    {"rsqrt", tt_rsqrt, ulp_r_rsqrt, 0.0, FLT_MAX, {
        {"all positive floats", ULP_ALL, 0.0, 1.5, 0.0},
        ULP_END}},
};
#define ULP_NFUNCS ((int)(sizeof ulp_funcs / sizeof ulp_funcs[0]))

/* Values per swept side: ~2 million per function, ~2 s for the whole file under
   AddressSanitizer. A tenth of them go below ULP_DENSE_FROM in magnitude (where every
   function is x, 1 or its first Taylor terms), the rest above it. */
#define ULP_PER_SIDE 1000000u
#define ULP_DENSE_FROM (1.0 / 4096.0)

/* Every k-th float with magnitude in [lo, hi], about count of them, as bit patterns (so each
   binade gets the same share), with the sign bit set when negative; k is odd so that every
   mantissa bit varies. Writes to dst (NULL: only counts); returns the number of values. */
static long long ulp_sweep_part(float *dst, double lo, double hi, uint32_t count, int negative) {
    uint32_t first = ulp_bits((float)lo), top = ulp_bits((float)hi), k = (top - first) / count + 1, b;
    long long n = 0;
    k |= 1u;
    for (b = first; b <= top; b += k) {
        if (dst) dst[n] = ulp_float(negative ? (b | 0x80000000u) : b);
        n++;
        if (top - b < k) break;         /* the next step would pass top (or wrap around) */
    }
    return n;
}

/* One side of the sweep: sparse below ULP_DENSE_FROM, dense above it (up to hi). */
static long long ulp_sweep_side(float *dst, double hi, int negative) {
    long long n = ulp_sweep_part(dst, 0.0, ULP_DENSE_FROM, ULP_PER_SIDE / 10, negative);
    return n + ulp_sweep_part(dst ? dst + n : NULL, (double)nextafterf((float)ULP_DENSE_FROM, 1.0f), hi,
                              ULP_PER_SIDE - ULP_PER_SIDE / 10, negative);
}

/* The whole sweep of f as a malloc'd array; *n gets its length. */
static float *ulp_sweep(const ulp_func *f, long long *n) {
    long long nn = 0, np = 0;
    float *v;
    if (f->neg_hi > 0) nn = ulp_sweep_side(NULL, f->neg_hi, 1);
    if (f->pos_hi > 0) np = ulp_sweep_side(NULL, f->pos_hi, 0);
    v = (float *)malloc(sizeof(float) * (size_t)(nn + np));
    if (!v) return NULL;
    if (nn) ulp_sweep_side(v, f->neg_hi, 1);
    if (np) ulp_sweep_side(v + nn, f->pos_hi, 0);
    *n = nn + np;
    return v;
}

/* The range of f that a value x with reference ref belongs to, or -1. */
static int ulp_range_of(const ulp_func *f, double x, double ref) {
    int r;
    for (r = 0; r < ULP_MAX_RANGES && f->ranges[r].name; r++) {
        const ulp_range *g = &f->ranges[r];
        if (x >= g->lo && x <= g->hi && !(fabs(ref) < g->min_ref)) return r;
    }
    return -1;
}

/* What was seen in one range. */
typedef struct ulp_stats {
    long long count;
    double    max_ulp, x_ulp;      /* the largest error in ulp and its input */
    double    max_abs, x_abs;      /* the largest |got - ref| and its input */
} ulp_stats;

static void ulp_print_header(void) {
    printf("      %-10s %-22s %8s %10s  %-15s  %s\n", "function", "range", "values", "max ulp", "at x", "bound");
}

/* One row of the table, and the check against the range's bound. */
static void ulp_report(const ulp_func *f, const ulp_range *g, const ulp_stats *s) {
    printf("      %-10s %-22s %8lld %10.4g  %-15.9g  ", f->name, g->name, s->count, s->max_ulp, s->x_ulp);
    if (g->max_ulp >= 0) printf("%g ulp\n", g->max_ulp);
    else printf("|err| %.3g (max %.3g at x = %.9g)\n", g->max_abs, s->max_abs, s->x_abs);
    if (s->count == 0) return;
    if (g->max_ulp >= 0) {
        if (!CHECK(s->max_ulp <= g->max_ulp))
            printf("      %s, %s: %.4g ulp at x = %.9g (bit pattern 0x%08x), bound %.4g\n", f->name, g->name,
                   s->max_ulp, s->x_ulp, (unsigned)ulp_bits((float)s->x_ulp), g->max_ulp);
    } else if (!CHECK(s->max_abs <= g->max_abs)) {
        printf("      %s, %s: |err| %.4g at x = %.9g (bit pattern 0x%08x), bound %.4g\n", f->name, g->name,
               s->max_abs, s->x_abs, (unsigned)ulp_bits((float)s->x_abs), g->max_abs);
    }
}

/* Adds the error of each of the n results to the stats of its range; returns how many
   values fell in no range (0 unless the table has a gap). */
static long long ulp_measure(const ulp_func *f, const float *in, const float *got, long long n, ulp_stats *st) {
    long long i, unplaced = 0;
    for (i = 0; i < n; i++) {
        double x = (double)in[i], ref = f->ref(x), e = ulp_error(got[i], ref), a;
        int r = ulp_range_of(f, x, ref);
        ulp_stats *s;
        if (isnan(got[i]) || isnan(ref)) a = !isnan(got[i]) == !isnan(ref) ? 0.0 : INFINITY;
        else a = (double)got[i] == ref ? 0.0 : fabs((double)got[i] - ref);
        if (r < 0) { unplaced++; continue; }
        s = &st[r];
        s->count++;
        if (s->count == 1 || e > s->max_ulp) { s->max_ulp = e; s->x_ulp = x; }
        if (s->count == 1 || a > s->max_abs) { s->max_abs = a; s->x_abs = x; }
    }
    return unplaced;
}

/* Sweeps the function called name once, then prints and checks each of its ranges. */
static void ulp_run(const char *name) {
    const ulp_func *f = NULL;
    ulp_stats st[ULP_MAX_RANGES];
    tt_ctx *c = tu_ctx();
    float *in, *got;
    long long n = 0;
    int64_t shape[1];
    int r;
    for (r = 0; r < ULP_NFUNCS; r++) if (strcmp(ulp_funcs[r].name, name) == 0) f = &ulp_funcs[r];
    in = f ? ulp_sweep(f, &n) : NULL;
    if (!CHECK(in != NULL)) { tt_ctx_destroy(c); return; }
    memset(st, 0, sizeof st);
    shape[0] = n;
    got = tu_values(c, f->op(c, tt_from_data(c, TT_F32, 1, shape, in)));
    if (CHECK(got != NULL)) {
        CHECK_EQ_INT(ulp_measure(f, in, got, n, st), 0);
        ulp_print_header();
        for (r = 0; r < ULP_MAX_RANGES && f->ranges[r].name; r++) ulp_report(f, &f->ranges[r], &st[r]);
    }
    free(in);
    free(got);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_ulp_exp(void) { ulp_run("exp"); }
static void test_ulp_tanh(void) { ulp_run("tanh"); }
static void test_ulp_sigmoid(void) { ulp_run("sigmoid"); }
static void test_ulp_erf(void) { ulp_run("erf"); }
static void test_ulp_gelu(void) { ulp_run("gelu"); }
static void test_ulp_gelu_tanh(void) { ulp_run("gelu_tanh"); }
static void test_ulp_silu(void) { ulp_run("silu"); }
static void test_ulp_softplus(void) { ulp_run("softplus"); }
static void test_ulp_log(void) { ulp_run("log"); }
static void test_ulp_sqrt(void) { ulp_run("sqrt"); }
static void test_ulp_rsqrt(void) { ulp_run("rsqrt"); }

/* Special values, each checked exactly (a zero's sign too) in a tensor of 19 copies, so that
   both the 8-wide blocks and the scalar tail of the kernels see it. */
typedef struct ulp_special {
    const char *name;
    ulp_op_fn   op;
    double      x, want;
} ulp_special;

static const ulp_special ulp_specials[] = {
    {"exp", tt_exp, NAN, NAN}, {"exp", tt_exp, INFINITY, INFINITY}, {"exp", tt_exp, -INFINITY, 0.0},
    {"exp", tt_exp, 89.0, INFINITY}, {"exp", tt_exp, 1000.0, INFINITY}, {"exp", tt_exp, -1000.0, 0.0},
    {"exp", tt_exp, 0.0, 1.0}, {"exp", tt_exp, -0.0, 1.0},
    {"tanh", tt_tanh, NAN, NAN}, {"tanh", tt_tanh, INFINITY, 1.0}, {"tanh", tt_tanh, -INFINITY, -1.0},
    {"tanh", tt_tanh, 0.0, 0.0}, {"tanh", tt_tanh, -0.0, -0.0}, {"tanh", tt_tanh, 20.0, 1.0},
    {"tanh", tt_tanh, -20.0, -1.0},
    {"sigmoid", tt_sigmoid, NAN, NAN}, {"sigmoid", tt_sigmoid, INFINITY, 1.0},
    {"sigmoid", tt_sigmoid, -INFINITY, 0.0}, {"sigmoid", tt_sigmoid, 0.0, 0.5},
    {"erf", tt_erf, NAN, NAN}, {"erf", tt_erf, INFINITY, 1.0}, {"erf", tt_erf, -INFINITY, -1.0},
    {"erf", tt_erf, 0.0, 0.0}, {"erf", tt_erf, -0.0, -0.0}, {"erf", tt_erf, 10.0, 1.0}, {"erf", tt_erf, -10.0, -1.0},
    {"gelu", tt_gelu, NAN, NAN}, {"gelu", tt_gelu, INFINITY, INFINITY}, {"gelu", tt_gelu, 0.0, 0.0},
    {"gelu_tanh", tt_gelu_tanh, NAN, NAN}, {"gelu_tanh", tt_gelu_tanh, INFINITY, INFINITY},
    {"gelu_tanh", tt_gelu_tanh, 0.0, 0.0},
    {"silu", tt_silu, NAN, NAN}, {"silu", tt_silu, INFINITY, INFINITY}, {"silu", tt_silu, 0.0, 0.0},
    {"softplus", tt_softplus, NAN, NAN}, {"softplus", tt_softplus, INFINITY, INFINITY},
    {"softplus", tt_softplus, -INFINITY, 0.0},
    {"log", tt_log, NAN, NAN}, {"log", tt_log, INFINITY, INFINITY}, {"log", tt_log, 0.0, -INFINITY},
    {"log", tt_log, -0.0, -INFINITY}, {"log", tt_log, 1.0, 0.0}, {"log", tt_log, -1.0, NAN},
    {"log", tt_log, -INFINITY, NAN},
    {"sqrt", tt_sqrt, NAN, NAN}, {"sqrt", tt_sqrt, INFINITY, INFINITY}, {"sqrt", tt_sqrt, 0.0, 0.0},
    {"sqrt", tt_sqrt, -0.0, -0.0}, {"sqrt", tt_sqrt, -1.0, NAN}, {"sqrt", tt_sqrt, -INFINITY, NAN},
    {"rsqrt", tt_rsqrt, NAN, NAN}, {"rsqrt", tt_rsqrt, INFINITY, 0.0}, {"rsqrt", tt_rsqrt, 0.0, INFINITY},
    {"rsqrt", tt_rsqrt, -0.0, -INFINITY}, {"rsqrt", tt_rsqrt, -1.0, NAN},
};
#define ULP_NSPECIALS ((int)(sizeof ulp_specials / sizeof ulp_specials[0]))

/* got is want exactly: NaN for NaN, and a zero of the same sign. */
static int ulp_same_special(float got, double want) {
    if (isnan(want)) return isnan(got);
    return (double)got == want && !signbit(got) == !signbit(want);
}

/* op(x) in 19 copies; the first element, and whether all 19 agree bitwise. */
static float ulp_eval_copies(tt_ctx *c, ulp_op_fn op, double x, int *all_same) {
    float in[19], *got, first = NAN;
    int64_t n = 19;
    int i;
    for (i = 0; i < 19; i++) in[i] = (float)x;
    got = tu_values(c, op(c, tt_from_data(c, TT_F32, 1, &n, in)));
    *all_same = got != NULL;
    if (got) {
        first = got[0];
        for (i = 1; i < 19; i++) if (memcmp(&got[i], &first, 4) != 0) *all_same = 0;
    }
    free(got);
    return first;
}

static void test_ulp_special_values(void) {
    tt_ctx *c = tu_ctx();
    int i, same;
    for (i = 0; i < ULP_NSPECIALS; i++) {
        const ulp_special *s = &ulp_specials[i];
        float got = ulp_eval_copies(c, s->op, s->x, &same);
        if (!CHECK(same) || !CHECK(ulp_same_special(got, s->want)))
            printf("      %s(%g) = %g, expected %g\n", s->name, s->x, (double)got, s->want);
    }
    /* The limit at -inf is 0, but x * (something that reaches 0) gives -inf * 0 = NaN, as
       the same formulas in PyTorch do: shown, not checked. */
    printf("      not checked: gelu(-inf) = %g, gelu_tanh(-inf) = %g, silu(-inf) = %g\n",
           (double)ulp_eval_copies(c, tt_gelu, -INFINITY, &same),
           (double)ulp_eval_copies(c, tt_gelu_tanh, -INFINITY, &same),
           (double)ulp_eval_copies(c, tt_silu, -INFINITY, &same));
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ===========================================================================
   Part 2: row ops (softmax, log_softmax, layer_norm, rms_norm) against double references
   =========================================================================== */

#define RW_U (1.0 / 16777216.0)      /* 2^-24: the unit roundoff of f32 (half an ulp of 1) */
#define RW_EPS 1e-5f                 /* eps of the norms */

enum { RW_SOFTMAX, RW_LOG_SOFTMAX, RW_LAYER_NORM, RW_RMS_NORM };
static const char *const rw_op_names[] = {"softmax", "log_softmax", "layer_norm", "rms_norm"};

/* One call of a row op: x [shape] with float data, softmax over axis, norms over the last
   n_dims axes with weight w and bias b (the shape of those axes; NULL: none). */
typedef struct rw_case {
    int          op;
    int          ndim;
    int64_t      shape[3];
    const float *x;
    int          axis, n_dims;
    const float *w, *b;
} rw_case;

static tt_ctx *rw_ctx(int n_threads) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    d.n_threads = n_threads;
    return tt_ctx_create(&d);
}

static int64_t rw_numel(const rw_case *k) {
    int64_t n = 1;
    int d;
    for (d = 0; d < k->ndim; d++) n *= k->shape[d];
    return n;
}

static tt_tensor *rw_call(tt_ctx *c, const rw_case *k) {
    tt_tensor *x = tt_from_data(c, TT_F32, k->ndim, k->shape, k->x), *w = NULL, *b = NULL;
    const int64_t *pshape = k->shape + (k->ndim - k->n_dims);
    if (k->w) w = tt_from_data(c, TT_F32, k->n_dims, pshape, k->w);
    if (k->b) b = tt_from_data(c, TT_F32, k->n_dims, pshape, k->b);
    switch (k->op) {
    case RW_SOFTMAX:     return tt_softmax(c, x, k->axis);
    case RW_LOG_SOFTMAX: return tt_log_softmax(c, x, k->axis);
    case RW_LAYER_NORM:  return tt_layer_norm(c, x, k->n_dims, w, b, RW_EPS);
    default:             return tt_rms_norm(c, x, k->n_dims, w, RW_EPS);
    }
}

/* The op's result computed with 1 thread (malloc'd; NULL on failure), after checking that
   2 threads give bitwise the same values (NaNs included). */
static float *rw_run(const rw_case *k, const char *what) {
    tt_ctx *c1 = rw_ctx(1), *c2 = rw_ctx(2);
    float *g1 = tu_values(c1, rw_call(c1, k)), *g2 = tu_values(c2, rw_call(c2, k));
    int64_t n = rw_numel(k), i;
    if (CHECK(g1 != NULL) && CHECK(g2 != NULL) && memcmp(g1, g2, sizeof(float) * (size_t)n) != 0) {
        for (i = 0; i < n && memcmp(&g1[i], &g2[i], 4) == 0; i++) {}
        CHECK(!"1 and 2 threads give bitwise the same result");
        printf("      %s: first difference at flat index %lld: %.9g (1 thread) vs %.9g (2 threads)\n",
               what, (long long)i, (double)g1[i], (double)g2[i]);
    }
    CHECK_NO_ERROR(c1);
    CHECK_NO_ERROR(c2);
    CHECK_GUARDS(c1);
    CHECK_GUARDS(c2);
    free(g2);
    tt_ctx_destroy(c1);
    tt_ctx_destroy(c2);
    return g1;
}

/* How many rows for length K: at least 3 tasks' worth of elements (the library cuts row
   ops into tasks of 16384 elements), so that 2 threads really share the work. */
static int64_t rw_rows(int64_t K) {
    int64_t m = (3 * 16384 + K - 1) / K;
    return 4 * ((m + 3) / 4);          /* a multiple of the 4 row kinds */
}

/* The worst |got - want| / tol seen in a test, and where. */
typedef struct rw_worst {
    double ratio;
    char   where[200];
} rw_worst;

/* Compares the M x K results (row m, element k at got[axis0 ? k*M + m : m*K + k]) with
   want +- tol (row-major). NaN must give NaN and +-inf the same inf. Prints the first
   failure with its input; returns the number of failures. */
static long long rw_compare(const char *what, const float *got, int axis0, const double *x, const double *want,
                            const double *tol, int64_t M, int64_t K, const char *const *kind_names, rw_worst *worst) {
    int64_t m, k;
    long long bad = 0;
    for (m = 0; m < M; m++) {
        for (k = 0; k < K; k++) {
            int64_t i = m * K + k;
            double g = (double)got[axis0 ? k * M + m : i], e = fabs(g - want[i]);
            int ok = isnan(want[i]) ? isnan(g) : isinf(want[i]) ? g == want[i] : e <= tol[i];
            double ratio = isnan(want[i]) || isinf(want[i]) ? (ok ? 0.0 : INFINITY) : (tol[i] > 0 ? e / tol[i] : (e > 0 ? INFINITY : 0.0));
            if (ratio > worst->ratio || (worst->where[0] == 0)) {
                worst->ratio = ratio;
                snprintf(worst->where, sizeof worst->where, "%s: K=%lld, %s row %lld, element %lld: x=%.9g",
                         what, (long long)K, kind_names[m % 4], (long long)m, (long long)k, x[i]);
            }
            if (ok) continue;
            if (bad++ == 0)
                printf("      %s, K=%lld, row %lld (%s), element %lld: x = %.9g, got %.9g, want %.9g, |err| %.3g > tol %.3g\n",
                       what, (long long)K, (long long)m, kind_names[m % 4], (long long)k, x[i], g, want[i], e, tol[i]);
        }
    }
    if (bad) {
        CHECK(!"row op within tolerance");
        printf("      %s, K=%lld: %lld of %lld values out of tolerance\n", what, (long long)K, bad, (long long)(M * K));
    }
    return bad;
}

/* --- softmax and log_softmax ---------------------------------------------- */

/* Row kinds: uniform in [-80, 80] (exp of the raw values would span 1e-35..1e35); in
   [70, 80] (the sum of exps of the raw values overflows f32 for long rows, so the max must
   be subtracted); [-80, 80] with every third entry -inf; all -inf (PyTorch: NaN). */
enum { RW_WIDE, RW_HIGH, RW_SOME_NEG_INF, RW_ALL_NEG_INF };
static const char *const rw_sm_kinds[] = {"[-80,80]", "[70,80]", "[-80,80] with -inf", "all -inf"};

static void rw_softmax_row(double *row, int64_t K, int64_t m) {
    int kind = (int)(m % 4);
    int64_t k;
    tu_uniform(row, K, (unsigned long long)(m * 7919 + K), kind == RW_HIGH ? 70.0 : -80.0, 80.0);
    for (k = 0; k < K; k++) {
        if ((kind == RW_SOME_NEG_INF && k % 3 == 1) || kind == RW_ALL_NEG_INF) row[k] = -INFINITY;
        row[k] = (double)(float)row[k];
    }
}

/* Reference and tolerance of one row. The tolerance is what f32 arithmetic cannot avoid,
   in units of u = 2^-24:
   - the inputs are floats, known to u*|x|: softmax is shift-invariant, but moving x_i and
     the row maximum A by their own rounding moves log p_i by u*(|x_i| + A) (rounding x_i - max
     in f32 does exactly that);
   - exp, log, the division and the final rounding: a few u, taken as 8;
   - the row sum of K positive terms in f32 lanes combined in a tree: ~u per level, log2(K)
     levels; 4 per level leaves room for lanes summed sequentially before the tree.
   softmax: |err| <= p * u*(|x_i| + A + 4 log2 K + 8), plus 16 subnormal spacings (2^-145)
   for results below FLT_MIN; log_softmax (absolute): u*(|x_i| + A + |y| + 4 log2 K + 8).
   -inf entries must give exactly 0 (-inf); an all -inf row gives NaN, as in PyTorch. */
static void rw_softmax_ref(const double *x, int64_t K, int log_form, double *want, double *tol) {
    double mx = -INFINITY, a = 0, s = 0, lg = log2((double)K);
    int64_t k;
    for (k = 0; k < K; k++) {
        if (x[k] > mx) mx = x[k];
        if (!isinf(x[k]) && fabs(x[k]) > a) a = fabs(x[k]);
    }
    for (k = 0; k < K; k++) s += exp(x[k] - mx);
    for (k = 0; k < K; k++) {
        double unit = RW_U * (fabs(x[k]) + a + 4.0 * lg + 8.0), d = x[k] - mx;
        if (isinf(mx)) { want[k] = NAN; tol[k] = 0; continue; }
        if (isinf(x[k])) { want[k] = log_form ? -INFINITY : 0.0; tol[k] = 0; continue; }
        if (log_form) {
            want[k] = d - log(s);
            tol[k] = unit + RW_U * fabs(want[k]);
        } else {
            want[k] = exp(d) / s;
            tol[k] = want[k] * unit + ldexp(1.0, -145);
        }
    }
}

static const int64_t rw_sm_lengths[] = {1, 7, 16, 17, 1000, 4099, 65537};

/* (log_)softmax over the last axis of [M, K], or over axis 0 of [K, M], for every length. */
static void rw_softmax_test(int log_form, int axis0) {
    rw_worst worst;
    size_t li;
    char what[64];
    snprintf(what, sizeof what, "%s(axis %s)", log_form ? "log_softmax" : "softmax", axis0 ? "0 of [K,M]" : "-1 of [M,K]");
    memset(&worst, 0, sizeof worst);
    for (li = 0; li < sizeof rw_sm_lengths / sizeof rw_sm_lengths[0]; li++) {
        int64_t K = rw_sm_lengths[li], M = rw_rows(K), m, k;
        double *x = (double *)malloc(sizeof(double) * (size_t)(M * K));
        double *want = (double *)malloc(sizeof(double) * (size_t)(M * K));
        double *tol = (double *)malloc(sizeof(double) * (size_t)(M * K));
        float *xf = (float *)malloc(sizeof(float) * (size_t)(M * K)), *got;
        rw_case c;
        for (m = 0; m < M; m++) {
            rw_softmax_row(x + m * K, K, m);
            rw_softmax_ref(x + m * K, K, log_form, want + m * K, tol + m * K);
            for (k = 0; k < K; k++) xf[axis0 ? k * M + m : m * K + k] = (float)x[m * K + k];
        }
        memset(&c, 0, sizeof c);
        c.op = log_form ? RW_LOG_SOFTMAX : RW_SOFTMAX;
        c.ndim = 2;
        c.shape[0] = axis0 ? K : M;
        c.shape[1] = axis0 ? M : K;
        c.x = xf;
        c.axis = axis0 ? 0 : -1;
        got = rw_run(&c, what);
        if (got) rw_compare(what, got, axis0, x, want, tol, M, K, rw_sm_kinds, &worst);
        free(got);
        free(x);
        free(want);
        free(tol);
        free(xf);
    }
    printf("      worst |err|/tol %.3g at %s\n", worst.ratio, worst.where);
}

static void test_rows_softmax_last_axis(void) { rw_softmax_test(0, 0); }
static void test_rows_softmax_axis0(void) { rw_softmax_test(0, 1); }
static void test_rows_log_softmax_last_axis(void) { rw_softmax_test(1, 0); }
static void test_rows_log_softmax_axis0(void) { rw_softmax_test(1, 1); }

/* --- layer_norm and rms_norm ----------------------------------------------- */

/* Row kinds: uniform in [-3, 3]; 1000 + uniform in [-1, 1] (a large common offset: a
   one-pass variance E[x^2] - E[x]^2 in f32 loses every digit); the constant 0.1f (variance 0;
   the f32 mean of 0.1f is not exact); uniform in [-3e-3, 3e-3] (variance ~3e-6, as small as
   eps, so where eps is added matters). */
static const char *const rw_norm_kinds[] = {"[-3,3]", "1000+[-1,1]", "constant 0.1", "[-3e-3,3e-3]"};

static void rw_norm_row(double *row, int64_t K, int64_t m) {
    int kind = (int)(m % 4);
    int64_t k;
    tu_uniform(row, K, (unsigned long long)(m * 104729 + K), -1.0, 1.0);
    for (k = 0; k < K; k++) {
        double v = kind == 0 ? 3.0 * row[k] : kind == 1 ? 1000.0 + row[k] : kind == 2 ? 0.1 : 3e-3 * row[k];
        row[k] = (double)(float)v;
    }
}

/* Reference and tolerance of one row (w, b: NULL or K values). With sigma = sqrt(var + eps)
   and n = (x - mean)/sigma, an f32 computation errs by (units of u = 2^-24):
   - the mean: a sum of K values of size up to A = max|x| in f32 lanes, ~u*A per tree
     level, so n moves by u*(A/sigma)*(log2 K + 2): the condition number A/sigma is the cost
     of the common offset (1000/0.58 ~ 1700 here), which no f32 mean avoids;
   - sigma: relative u*(log2 K + 4) (two-pass variance, then sqrt), so n moves by that
     times |n|; both doubled for headroom;
   - then n*w + b: one rounding each, 2u*(|n*w| + |b|).
   rms_norm: n = x/sqrt(mean(x^2) + eps) errs by 2u*|n|*(log2 K + 4), then one rounding for w. */
static void rw_norm_ref(const double *x, int64_t K, int rms, const float *w, const float *b,
                        double *want, double *tol) {
    double mean = 0, var = 0, a = 0, sigma, lg = log2((double)K);
    int64_t k;
    for (k = 0; k < K; k++) { mean += x[k]; a = fmax(a, fabs(x[k])); }
    mean = rms ? 0.0 : mean / (double)K;
    for (k = 0; k < K; k++) var += (x[k] - mean) * (x[k] - mean);
    sigma = sqrt(var / (double)K + (double)RW_EPS);
    for (k = 0; k < K; k++) {
        double n = (x[k] - mean) / sigma, wk = w ? (double)w[k] : 1.0, bk = b ? (double)b[k] : 0.0;
        double en = rms ? 2.0 * RW_U * fabs(n) * (lg + 4.0)
                        : 2.0 * RW_U * ((a / sigma) * (lg + 2.0) + fabs(n) * (lg + 4.0));
        want[k] = n * wk + bk;
        tol[k] = fabs(wk) * en + 2.0 * RW_U * (fabs(n * wk) + fabs(bk));
    }
}

static const int64_t rw_norm_lengths[] = {1, 3, 16, 17, 1023, 4096};

/* One norm op on M rows of K = a*b values (n_dims 1: x [M, K]; n_dims 2: x [M, a, b]),
   with or without weight and bias. */
static void rw_norm_case(int op, int64_t a, int64_t b, int n_dims, int with_w, int with_b, rw_worst *worst) {
    int64_t K = a * b, M = rw_rows(K), m, k;
    double *x = (double *)malloc(sizeof(double) * (size_t)(M * K)), pv[2];
    double *want = (double *)malloc(sizeof(double) * (size_t)(M * K));
    double *tol = (double *)malloc(sizeof(double) * (size_t)(M * K));
    float *xf = (float *)malloc(sizeof(float) * (size_t)(M * K)), *got;
    float *w = (float *)malloc(sizeof(float) * (size_t)K), *bias = (float *)malloc(sizeof(float) * (size_t)K);
    char what[96];
    rw_case c;
    snprintf(what, sizeof what, "%s(n_dims %d%s%s)", rw_op_names[op], n_dims, with_w ? ", weight" : "", with_b ? ", bias" : "");
    for (k = 0; k < K; k++) {
        tu_uniform(pv, 2, (unsigned long long)(k + 77), -1.0, 1.0);
        w[k] = (float)(2.0 * pv[0]);
        bias[k] = (float)pv[1];
    }
    for (m = 0; m < M; m++) {
        rw_norm_row(x + m * K, K, m);
        rw_norm_ref(x + m * K, K, op == RW_RMS_NORM, with_w ? w : NULL, with_b ? bias : NULL, want + m * K, tol + m * K);
        for (k = 0; k < K; k++) xf[m * K + k] = (float)x[m * K + k];
    }
    memset(&c, 0, sizeof c);
    c.op = op;
    c.ndim = n_dims + 1;
    c.shape[0] = M;
    c.shape[1] = n_dims == 1 ? K : a;
    c.shape[2] = b;
    c.x = xf;
    c.n_dims = n_dims;
    c.w = with_w ? w : NULL;
    c.b = with_b ? bias : NULL;
    got = rw_run(&c, what);
    if (got) rw_compare(what, got, 0, x, want, tol, M, K, rw_norm_kinds, worst);
    free(got);
    free(x);
    free(want);
    free(tol);
    free(xf);
    free(w);
    free(bias);
}

static void rw_norm_test(int op) {
    rw_worst worst;
    size_t li;
    int wb;
    memset(&worst, 0, sizeof worst);
    for (li = 0; li < sizeof rw_norm_lengths / sizeof rw_norm_lengths[0]; li++)
        for (wb = 0; wb < 4; wb++) {
            if (op == RW_RMS_NORM && (wb & 2)) continue;        /* rms_norm has no bias */
            rw_norm_case(op, rw_norm_lengths[li], 1, 1, wb & 1, (wb & 2) != 0, &worst);
        }
    rw_norm_case(op, 16, 64, 2, 1, op == RW_LAYER_NORM, &worst);  /* over two axes, [16, 64] */
    printf("      worst |err|/tol %.3g at %s\n", worst.ratio, worst.where);
}

static void test_rows_layer_norm(void) { rw_norm_test(RW_LAYER_NORM); }
static void test_rows_rms_norm(void) { rw_norm_test(RW_RMS_NORM); }

TT_TEST_GROUP(ulp) = {
    {"exp", test_ulp_exp},
    {"tanh", test_ulp_tanh},
    {"sigmoid", test_ulp_sigmoid},
    {"erf", test_ulp_erf},
    {"gelu", test_ulp_gelu},
    {"gelu_tanh", test_ulp_gelu_tanh},
    {"silu", test_ulp_silu},
    {"softplus", test_ulp_softplus},
    {"log", test_ulp_log},
    {"sqrt", test_ulp_sqrt},
    {"rsqrt", test_ulp_rsqrt},
    {"special_values", test_ulp_special_values},
    {"rows_softmax_last_axis", test_rows_softmax_last_axis},
    {"rows_softmax_axis0", test_rows_softmax_axis0},
    {"rows_log_softmax_last_axis", test_rows_log_softmax_last_axis},
    {"rows_log_softmax_axis0", test_rows_log_softmax_axis0},
    {"rows_layer_norm", test_rows_layer_norm},
    {"rows_rms_norm", test_rows_rms_norm},
    {NULL, NULL}
};
