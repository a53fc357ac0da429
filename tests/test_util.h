/* test_util.h - helpers shared by the tinytrace tests (not part of the library).

   - tu_ctx():          a heap context with guard regions around every allocation;
   - tu_values():       a tensor's elements, row-major, as a malloc'd float array;
   - tu_uniform():      test-side random doubles (xorshift, independent of the library);
   - tu_tensor():       a new f32 tensor from such doubles;
   - CHECK_ERROR():     the context holds an error of this status whose message contains a
                        substring; clears it afterwards;
   - CHECK_GUARDS():    no guard region of the context was overwritten.
   All functions are static inline so each test file may use any subset of them. */
#ifndef TT_TEST_UTIL_H
#define TT_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "../tinytrace.h"
#include "tt_test.h"

/* A heap context with guard regions (checked by CHECK_GUARDS). */
static inline tt_ctx *tu_ctx(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    return tt_ctx_create(&d);
}

/* All elements of t in row-major order as floats (malloc'd; free it). NULL if t is NULL. */
static inline float *tu_values(tt_ctx *c, const tt_tensor *t) {
    float *v;
    if (!t) return NULL;
    v = (float *)malloc(sizeof(float) * (size_t)(t->numel > 0 ? t->numel : 1));
    if (v && tt_copy_to_f32(c, t, v, t->numel) != TT_OK) { free(v); return NULL; }
    return v;
}

/* Deterministic test data: n doubles uniform in [lo, hi), from a xorshift64* stream. */
static inline void tu_uniform(double *dst, long long n, unsigned long long seed, double lo, double hi) {
    unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 1;
    long long i;
    for (i = 0; i < n; i++) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        dst[i] = lo + (hi - lo) * (double)((s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
    }
}

/* A new contiguous f32 tensor holding vals rounded to float; vals gets the rounded values
   back, so references computed from vals see exactly what the library sees. */
static inline tt_tensor *tu_tensor(tt_ctx *c, int ndim, const int64_t *shape, double *vals) {
    long long n = 1, i;
    float *f;
    tt_tensor *t;
    for (i = 0; i < ndim; i++) n *= shape[i];
    f = (float *)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!f) return NULL;
    for (i = 0; i < n; i++) { f[i] = (float)vals[i]; vals[i] = (double)f[i]; }
    t = tt_from_data(c, TT_F32, ndim, shape, f);
    free(f);
    return t;
}

/* The context's error has this status and its message contains sub; then clear it. */
static inline int tu_check_error(tt_ctx *c, int status, const char *sub, const char *file, int line) {
    int ok = tt_test__eq_int((long long)tt_ctx_status(c), (long long)status, file, line, "tt_ctx_status(c)", "status");
    ok &= tt_test__str_contains(tt_error(c), sub, file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}
#define CHECK_ERROR(c, status, sub) tu_check_error((c), (status), (sub), __FILE__, __LINE__)

/* No allocation of the context wrote outside its bounds, and no error is pending. */
#define CHECK_GUARDS(c) CHECK(tt_ctx_check_guards(c))
#define CHECK_NO_ERROR(c) CHECK_STR_CONTAINS(tt_error(c) ? tt_error(c) : "(no error)", "(no error)")


/* got and want have the same dtype and shape and bitwise the same values (graph vs eager). */
static inline int tu_same_bits(tt_ctx *e, const tt_tensor *got, const tt_tensor *want, const char *file, int line) {
    float *a, *b;
    int i, ok = 1;
    if (!got) return tt_test__fail(file, line, "graph output is NULL");
    if (!want) return tt_test__fail(file, line, "eager reference is NULL");
    if (!tt_test__eq_int(got->dtype, want->dtype, file, line, "got->dtype", "want->dtype")) return 0;
    if (!tt_test__eq_int(got->ndim, want->ndim, file, line, "got->ndim", "want->ndim")) return 0;
    for (i = 0; i < got->ndim; i++)
        if (!tt_test__eq_int(got->shape[i], want->shape[i], file, line, "got->shape[i]", "want->shape[i]")) return 0;
    a = tu_values(e, got);
    b = tu_values(e, want);
    if (!a || !b) ok = tt_test__fail(file, line, "tu_values failed");
    else if (got->numel > 0 && memcmp(a, b, sizeof(float) * (size_t)got->numel) != 0) {
        long long k, first = -1, bad = 0;
        for (k = 0; k < got->numel; k++)
            if (memcmp(&a[k], &b[k], sizeof(float)) != 0) { if (first < 0) first = k; bad++; }
        printf("    %s:%d: %lld of %lld values not bitwise equal; first at [%lld]: got %.9g, want %.9g\n",
               file, line, bad, (long long)got->numel, first, (double)a[first], (double)b[first]);
        ok = tt_test__fail(file, line, "bitwise equal");
    }
    free(a);
    free(b);
    return ok;
}
#define CHECK_SAME_BITS(e, got, want) tu_same_bits((e), (got), (want), __FILE__, __LINE__)

/* A parameter made outside any trace (in a weights context): randn(seed) * scale + shift. */
static inline tt_tensor *tu_param(tt_ctx *wc, uint64_t seed, int ndim, const int64_t *shape, float scale, float shift) {
    tt_tensor *t = tt_randn(wc, seed, ndim, shape);
    if (scale != 1.0f) t = tt_mul_scalar(wc, t, scale);
    if (shift != 0.0f) t = tt_add_scalar(wc, t, shift);
    return t;
}
static inline tt_tensor *tu_param1(tt_ctx *wc, uint64_t seed, int64_t n, float scale, float shift) {
    return tu_param(wc, seed, 1, &n, scale, shift);
}
static inline tt_tensor *tu_param2(tt_ctx *wc, uint64_t seed, int64_t a, int64_t b, float scale) {
    int64_t s[2];
    s[0] = a; s[1] = b;
    return tu_param(wc, seed, 2, s, scale, 0.0f);
}

/* Test-side reference for small floats with ebits exponent and mbits mantissa bits in the
   IEEE layout (f16: 5,10; bf16: 8,7): plain double arithmetic, ties to even (rint). */
static inline double tu_small_decode(unsigned bits, int ebits, int mbits) {
    unsigned emax = (1u << ebits) - 1u;
    int bias = (1 << (ebits - 1)) - 1;
    unsigned sign = (bits >> (ebits + mbits)) & 1u;
    unsigned e = (bits >> mbits) & emax;
    unsigned m = bits & ((1u << mbits) - 1u);
    double v;
    if (e == emax) v = m ? (double)NAN : (double)INFINITY;
    else if (e == 0) v = ldexp((double)m, 1 - bias - mbits);
    else v = ldexp((double)(m + (1u << mbits)), (int)e - bias - mbits);
    return sign ? -v : v;
}

static inline unsigned tu_small_encode(double v, int ebits, int mbits) {
    unsigned sign = signbit(v) ? (1u << (ebits + mbits)) : 0u;
    unsigned emax = (1u << ebits) - 1u;
    int bias = (1 << (ebits - 1)) - 1;
    double a = fabs(v), r;
    int e;
    if (isnan(v)) return sign | (emax << mbits) | (1u << (mbits - 1));
    if (isinf(v)) return sign | (emax << mbits);
    if (a < ldexp(1.0, 1 - bias)) {                 /* subnormal (may round up to the smallest normal) */
        r = rint(ldexp(a, mbits - (1 - bias)));
        return sign | (unsigned)r;
    }
    (void)frexp(a, &e);
    e -= 1;                                          /* 2^e <= a < 2^(e+1) */
    r = rint(ldexp(a, mbits - e));                   /* in [2^mbits, 2^(mbits+1)] */
    if (r >= ldexp(1.0, mbits + 1)) { r = ldexp(1.0, mbits); e++; }
    if (e > bias) return sign | (emax << mbits);
    return sign | ((unsigned)(e + bias) << mbits) | ((unsigned)r - (1u << mbits));
}

#endif /* TT_TEST_UTIL_H */
