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

#endif /* TT_TEST_UTIL_H */
