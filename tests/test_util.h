/* test_util.h - helpers shared by the tinytrace tests (not part of the library).

   - tu_ctx():          a heap context with guard regions around every allocation;
   - tu_values():       a tensor's elements, row-major, as a malloc'd float array;
   - tu_uniform():      test-side random doubles (xorshift, independent of the library);
   - tu_tensor():       a new f32 tensor from such doubles;
   - tu_tensor_dt():    the same in any dtype (values rounded as that dtype stores them);
   - tu_rand():         a new f32 tensor of tu_uniform data, and its values as doubles;
   - tu_numel():        the element count of a shape;
   - tu_dtname():       a dtype's short name ("f32", "f16", "bf16", "i32", "bool");
   - tu_shape_is():     a tensor's shape equals the ints that follow (printed on mismatch);
   - CHECK_SHAPE():     a tensor's shape equals an int64_t array (tu_check_shape);
   - CHECK_META():      a result's dtype, shape and numel (tu_check_meta);
   - CHECK_VALUES():    a tensor's values equal an array of doubles exactly (tu_check_values);
   - tu_result_values(): a result's values, after checking it exists and has n elements;
   - tu_check_close():  a tensor's values within per-element (or atol) + rtol of doubles;
   - tu_view:           a test-side model of a strided view (shape, strides, offset over a
                        contiguous base) mirroring tt_transpose, tt_permute, tt_slice and
                        tt_expand: tu_view_contig(), tu_view_transpose(), tu_view_permute(),
                        tu_view_slice(), tu_view_expand(); tu_view_gather() and
                        tu_strided_gather() read its logical values from the base;
   - CHECK_ERROR():     the context holds an error of this status whose message contains a
                        substring; clears it afterwards;
   - CHECK_ERROR_EITHER(): the same for an error of either of two statuses;
   - CHECK_GUARDS():    no guard region of the context was overwritten;
   - tu_isa_of_capped(): the ISA a context capped at an ISA name runs (tt_ctx_isa).
   All functions are static inline so each test file may use any subset of them. */
#ifndef TT_TEST_UTIL_H
#define TT_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "../tinytrace.h"
#include "tt_test.h"

/* A heap context with guard regions (checked by CHECK_GUARDS). */
static inline tt_ctx *tu_ctx(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    return tt_ctx_create(&d);
}

/* The ISA name a context capped at isa runs, or "(null ctx)" when isa names none: isa
   itself exactly when the CPU and the build have it. The text lives until the next call. */
static inline const char *tu_isa_of_capped(const char *isa) {
    static char name[16];
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    d.isa = isa;
    c = tt_ctx_create(&d);
    snprintf(name, sizeof name, "%s", c ? tt_ctx_isa(c) : "(null ctx)");
    tt_ctx_destroy(c);
    return name;
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

/* The number of elements of a shape (1 for 0-d). */
static inline long long tu_numel(int ndim, const int64_t *shape) {
    long long n = 1;
    int i;
    for (i = 0; i < ndim; i++) n *= shape[i];
    return n;
}

/* A new contiguous f32 tensor holding vals rounded to float; vals gets the rounded values
   back, so references computed from vals see exactly what the library sees. */
static inline tt_tensor *tu_tensor(tt_ctx *c, int ndim, const int64_t *shape, double *vals) {
    long long n = tu_numel(ndim, shape), i;
    float *f;
    tt_tensor *t;
    f = (float *)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!f) return NULL;
    for (i = 0; i < n; i++) { f[i] = (float)vals[i]; vals[i] = (double)f[i]; }
    t = tt_from_data(c, TT_F32, ndim, shape, f);
    free(f);
    return t;
}

/* A new contiguous f32 tensor of this shape with tu_uniform(seed, lo, hi) data; *vals
   (malloc'd; free it) gets its values as the library stores them. */
static inline tt_tensor *tu_rand(tt_ctx *c, int ndim, const int64_t *shape, unsigned long long seed,
                                 double lo, double hi, double **vals) {
    long long n = tu_numel(ndim, shape);
    double *v = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    tu_uniform(v, n, seed, lo, hi);
    *vals = v;
    return tu_tensor(c, ndim, shape, v);
}

static inline const char *tu_dtname(tt_dtype dt) {
    switch (dt) {
    case TT_F32: return "f32";
    case TT_F16: return "f16";
    case TT_BF16: return "bf16";
    case TT_I32: return "i32";
    default: return "bool";
    }
}

/* ---- shape and value checks ------------------------------------------------------------- */

/* The shape of t equals the nd ints that follow (printed on mismatch); use inside CHECK(). */
static inline int tu_shape_is(const tt_tensor *t, int nd, ...) {
    va_list ap;
    int i, ok = 1;
    char buf[128];
    if (!t) { printf("    tu_shape_is: tensor is NULL\n"); return 0; }
    if (t->ndim != nd) ok = 0;
    va_start(ap, nd);
    for (i = 0; i < nd; i++) {
        int s = va_arg(ap, int);
        if (ok && t->shape[i] != (int64_t)s) ok = 0;
    }
    va_end(ap);
    if (!ok) printf("    shape is %s\n", tt_shape_str(t, buf, sizeof buf));
    return ok;
}

/* t is not NULL and its shape is (nd, shape); on mismatch prints both shapes. */
static inline int tu_check_shape(const tt_tensor *t, int nd, const int64_t *shape, const char *file, int line) {
    int i, ok;
    if (!t) return tt_test__fail(file, line, "result tensor is NULL");
    ok = t->ndim == nd;
    for (i = 0; ok && i < nd; i++) ok = t->shape[i] == shape[i];
    if (ok) return 1;
    printf("    %s:%d: shape mismatch: got [", file, line);
    for (i = 0; i < t->ndim; i++) printf(i ? ",%lld" : "%lld", (long long)t->shape[i]);
    printf("], expected [");
    for (i = 0; i < nd; i++) printf(i ? ",%lld" : "%lld", (long long)shape[i]);
    printf("]\n");
    return tt_test__fail(file, line, "shape");
}
#define CHECK_SHAPE(t, nd, shape) tu_check_shape((t), (nd), (shape), __FILE__, __LINE__)

/* A result r: not NULL, of dtype dt and shape (nd, shape), with numel their product. */
static inline int tu_check_meta(const tt_tensor *r, tt_dtype dt, int nd, const int64_t *shape,
                                const char *file, int line) {
    int ok;
    if (!r) return tt_test__fail(file, line, "result tensor is NULL");
    ok = tt_test__eq_int(r->dtype, dt, file, line, "r->dtype", "dt");
    ok &= tu_check_shape(r, nd, shape, file, line);
    ok &= tt_test__eq_int(r->numel, tu_numel(nd, shape), file, line, "r->numel", "tu_numel(nd, shape)");
    return ok;
}
#define CHECK_META(r, dt, nd, shape) tu_check_meta((r), (dt), (nd), (shape), __FILE__, __LINE__)

/* The values of a result t that must have n elements (malloc'd; free them), or NULL after a
   failed check when t is NULL, has another count or cannot be read. */
static inline float *tu_result_values(tt_ctx *c, const tt_tensor *t, long long n, const char *file, int line) {
    float *got;
    if (!t) { tt_test__fail(file, line, "result tensor is NULL"); return NULL; }
    if (!tt_test__eq_int(t->numel, n, file, line, "t->numel", "n")) return NULL;
    got = tu_values(c, t);
    if (!got) tt_test__fail(file, line, "tu_values failed");
    return got;
}

/* The values of t (read through tu_values) are the n doubles of want, exactly. */
static inline int tu_check_values(tt_ctx *c, const tt_tensor *t, const double *want, long long n,
                                  const char *file, int line) {
    float *v = tu_result_values(c, t, n, file, line);
    int ok;
    if (!v) return 0;
    ok = tt_test__allclose(v, want, n, 0.0, 0.0, file, line, "values");
    free(v);
    return ok;
}
#define CHECK_VALUES(c, t, want, n) tu_check_values((c), (t), (want), (n), __FILE__, __LINE__)

/* t has n elements, each within (tol ? tol[i] : atol) + rtol*|want[i]| of want[i] (a NaN
   anywhere fails); reports the count and the first mismatch. */
static inline int tu_check_close(tt_ctx *c, const tt_tensor *t, const double *want, const double *tol,
                                 double atol, double rtol, long long n, const char *file, int line) {
    float *got = tu_result_values(c, t, n, file, line);
    long long i, bad = 0, first = -1;
    if (!got) return 0;
    for (i = 0; i < n; i++) {
        double lim = (tol ? tol[i] : atol) + rtol * fabs(want[i]);
        if (!(fabs((double)got[i] - want[i]) <= lim)) { if (first < 0) first = i; bad++; }
    }
    if (bad) {
        printf("    %s:%d: %lld of %lld elements differ; first at flat index %lld\n", file, line, bad, n, first);
        tt_test__near((double)got[first], want[first], (tol ? tol[first] : atol), rtol, file, line, "got", "want");
    }
    free(got);
    return bad == 0;
}

/* ---- test-side view model ----------------------------------------------------------------
   A strided view over a contiguous base: logical shape, strides and offset in elements. */
#define TU_MAXD TT_MAX_DIMS    /* capacity of a tu_view (and of index arrays sized like one) */

typedef struct tu_view {
    int     nd;
    int64_t shape[TU_MAXD];
    int64_t stride[TU_MAXD];
    int64_t off;
} tu_view;

/* The contiguous (row-major) view of a base of this shape. */
static inline tu_view tu_view_contig(int nd, const int64_t *shape) {
    tu_view v;
    int64_t s = 1;
    int i;
    memset(&v, 0, sizeof v);
    v.nd = nd;
    for (i = nd - 1; i >= 0; i--) { v.shape[i] = shape[i]; v.stride[i] = s; s *= shape[i]; }
    return v;
}

static inline void tu_view_transpose(tu_view *v, int a, int b) {
    int64_t t = v->shape[a]; v->shape[a] = v->shape[b]; v->shape[b] = t;
    t = v->stride[a]; v->stride[a] = v->stride[b]; v->stride[b] = t;
}

static inline void tu_view_permute(tu_view *v, const int *perm) {
    tu_view o = *v;
    int i;
    for (i = 0; i < v->nd; i++) { o.shape[i] = v->shape[perm[i]]; o.stride[i] = v->stride[perm[i]]; }
    *v = o;
}

/* start, stop within [0, size]; step >= 1 */
static inline void tu_view_slice(tu_view *v, int axis, int64_t start, int64_t stop, int64_t step) {
    v->off += start * v->stride[axis];
    v->shape[axis] = stop > start ? (stop - start + step - 1) / step : 0;
    v->stride[axis] *= step;
}

/* Broadcast to (nd, shape): new leading axes and size-1 axes that grow get stride 0. */
static inline void tu_view_expand(tu_view *v, int nd, const int64_t *shape) {
    tu_view o;
    int i, lead = nd - v->nd;
    memset(&o, 0, sizeof o);
    o.nd = nd;
    o.off = v->off;
    for (i = 0; i < nd; i++) {
        o.shape[i] = shape[i];
        if (i < lead) o.stride[i] = 0;
        else o.stride[i] = (v->shape[i - lead] == 1 && shape[i] != 1) ? 0 : v->stride[i - lead];
    }
    *v = o;
}

/* out[k] = base[off + sum idx*stride] over shape (nd <= TU_MAXD) in row-major order; returns
   the count. */
static inline int64_t tu_strided_gather(const double *base, int nd, const int64_t *shape, const int64_t *stride,
                                        int64_t off, double *out) {
    int64_t idx[TU_MAXD], n = 1, k;
    int d;
    for (d = 0; d < nd; d++) { idx[d] = 0; n *= shape[d]; }
    for (k = 0; k < n; k++) {
        int64_t p = off;
        for (d = 0; d < nd; d++) p += idx[d] * stride[d];
        out[k] = base[p];
        for (d = nd - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return n;
}

/* The logical (row-major) values of the view over base; malloc'd (free it). */
static inline double *tu_view_gather(const tu_view *v, const double *base) {
    long long n = tu_numel(v->nd, v->shape);
    double *out = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    tu_strided_gather(base, v->nd, v->shape, v->stride, v->off, out);
    return out;
}

/* The context's error has this status and its message contains sub; then clear it. */
static inline int tu_check_error(tt_ctx *c, int status, const char *sub, const char *file, int line) {
    int ok = tt_test__eq_int((long long)tt_ctx_status(c), (long long)status, file, line, "tt_ctx_status(c)", "status");
    ok &= tt_test__str_contains(tt_error(c), sub, file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}
#define CHECK_ERROR(c, status, sub) tu_check_error((c), (status), (sub), __FILE__, __LINE__)

/* The context's error has either status (where the doc leaves the choice between them open)
   and its message contains sub; then clear it. */
static inline int tu_check_error_either(tt_ctx *c, int status1, int status2, const char *sub, const char *file,
                                        int line) {
    int s = (int)tt_ctx_status(c), ok = 1;
    if (s != status1 && s != status2) {
        printf("    %s:%d: tt_ctx_status(c) = %d, expected %d or %d\n", file, line, s, status1, status2);
        ok = tt_test__fail(file, line, "error status");
    }
    ok &= tt_test__str_contains(tt_error(c), sub, file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}
#define CHECK_ERROR_EITHER(c, status1, status2, sub) \
    tu_check_error_either((c), (status1), (status2), (sub), __FILE__, __LINE__)

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

/* tu_param(), tu_param1(), tu_param2() (a parameter made outside any trace) are in zoo_models.h. */

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

/* A new contiguous tensor of dtype dt from vals; vals gets back the exact stored values
   (f32 rounding, f16/bf16 rounding through f32 by tu_small_encode, i32 to the nearest
   integer, bool nonzero -> 1). */
static inline tt_tensor *tu_tensor_dt(tt_ctx *c, tt_dtype dt, int ndim, const int64_t *shape, double *vals) {
    long long n = tu_numel(ndim, shape), i;
    void *buf = malloc(4 * (size_t)(n > 0 ? n : 1));
    tt_tensor *t;
    if (!buf) return NULL;
    for (i = 0; i < n; i++) {
        double v = vals[i];
        switch (dt) {
        case TT_F32: { float f = (float)v; ((float *)buf)[i] = f; vals[i] = (double)f; } break;
        case TT_F16: {
            unsigned h = tu_small_encode((double)(float)v, 5, 10);
            ((uint16_t *)buf)[i] = (uint16_t)h; vals[i] = tu_small_decode(h, 5, 10);
        } break;
        case TT_BF16: {
            unsigned h = tu_small_encode((double)(float)v, 8, 7);
            ((uint16_t *)buf)[i] = (uint16_t)h; vals[i] = tu_small_decode(h, 8, 7);
        } break;
        case TT_I32: { int32_t k = (int32_t)floor(v + 0.5); ((int32_t *)buf)[i] = k; vals[i] = (double)k; } break;
        default: { uint8_t b = (uint8_t)(v != 0.0); ((uint8_t *)buf)[i] = b; vals[i] = (double)b; } break;
        }
    }
    t = tt_from_data(c, dt, ndim, shape, buf);
    free(buf);
    return t;
}

/* A path in /tmp that no other run of the suite uses at the same time (the suites of make
   test run side by side): the address of a local (ASLR), the time and the clock, in hex;
   suffix ends it (".ttg", "_3.safetensors"). */
static inline void tu_tmp_path(char *buf, size_t size, const char *suffix) {
    int local = 0;
    unsigned long a = (unsigned long)(uintptr_t)&local ^ (unsigned long)time(NULL) ^ (unsigned long)clock();
    snprintf(buf, size, "/tmp/tinytrace_test_%lx%s", a, suffix);
}

#endif /* TT_TEST_UTIL_H */
