/* test_core.c - group `core`: version/status/dtype helpers, f16/bf16 conversion, contexts,
   sticky errors, memory scopes, user-buffer mode, guard regions, creation ops, access.
   References are computed here with plain double arithmetic, never by the code under test. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

static uint32_t tc_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float tc_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Reference decoding of an IEEE half. */
static double tc_ref_f16(uint16_t h) {
    int s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp((double)(1024 + m), e - 25);
    return s ? -v : v;
}

/* Reference f32 -> f16 -> value, round to nearest even, in double arithmetic. */
static double tc_ref_round_f16(float xf) {
    double x = (double)xf, a = fabs(x), q, r, v;
    int e2, e;
    if (a == 0.0) return x;
    if (isinf(a)) return x;
    frexp(a, &e2);
    e = e2 - 1;                 /* a in [2^e, 2^(e+1)) */
    if (e < -14) e = -14;       /* subnormal grid: step 2^-24 */
    q = ldexp(a, -(e - 10));    /* a / step, exact */
    r = nearbyint(q);           /* ties to even in the default rounding mode */
    v = ldexp(r, e - 10);
    if (v >= 65536.0) v = INFINITY;
    return x < 0 ? -v : v;
}

/* Reference f32 -> bf16 -> value. */
static double tc_ref_round_bf16(float xf) {
    double x = (double)xf, a = fabs(x), q, r, v;
    int e2, e;
    if (a == 0.0 || isinf(a)) return x;
    frexp(a, &e2);
    e = e2 - 1;
    if (e < -126) e = -126;     /* bf16 subnormal grid: step 2^-133 */
    q = ldexp(a, -(e - 7));
    r = nearbyint(q);
    v = ldexp(r, e - 7);
    if (v >= ldexp(1.0, 128)) v = INFINITY;
    return x < 0 ? -v : v;
}

static int tc_is_f16_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
static int tc_is_bf16_nan(uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0; }

/* Same double, NaN equal to NaN, and the same sign of zero. */
static int tc_same_value(double got, double want) {
    if (isnan(want)) return isnan(got);
    if (got != want) return 0;
    if (want == 0.0) return signbit(got) == signbit(want);
    return 1;
}

/* xorshift64* stream for test-side random bits */
static uint64_t tc_rng(uint64_t *s) {
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* --------------------------------------------------------- version etc. */

static void test_version_status_dtype(void) {
    int i, j;
    tt_status all[12] = { TT_OK, TT_ERR_ARG, TT_ERR_OOM, TT_ERR_SHAPE, TT_ERR_DTYPE, TT_ERR_UNSUPPORTED,
                          TT_ERR_STATE, TT_ERR_BACKEND, TT_ERR_INDEX, TT_ERR_CORRUPT, TT_ERR_FORMAT, TT_ERR_IO };
    CHECK(tt_version() != NULL);
    if (tt_version()) CHECK(strcmp(tt_version(), TT_VERSION_STRING) == 0);
    for (i = 0; i < 12; i++) {
        const char *s = tt_status_str(all[i]);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK(strlen(s) > 0);
        for (j = 0; j < i; j++) {
            const char *o = tt_status_str(all[j]);
            if (o) CHECK(strcmp(s, o) != 0);            /* each code its own text */
        }
    }
    CHECK(tt_status_str((tt_status)5) != NULL);         /* unknown code: still a string */

    CHECK(tt_dtype_name(TT_F32) && strcmp(tt_dtype_name(TT_F32), "f32") == 0);
    CHECK(tt_dtype_name(TT_F16) && strcmp(tt_dtype_name(TT_F16), "f16") == 0);
    CHECK(tt_dtype_name(TT_BF16) && strcmp(tt_dtype_name(TT_BF16), "bf16") == 0);
    CHECK(tt_dtype_name(TT_I32) && strcmp(tt_dtype_name(TT_I32), "i32") == 0);
    CHECK(tt_dtype_name(TT_BOOL) && strcmp(tt_dtype_name(TT_BOOL), "bool") == 0);
    CHECK(tt_dtype_name((tt_dtype)7) != NULL);          /* invalid: some string, no crash */
    CHECK_EQ_INT(tt_dtype_size(TT_F32), 4);
    CHECK_EQ_INT(tt_dtype_size(TT_F16), 2);
    CHECK_EQ_INT(tt_dtype_size(TT_BF16), 2);
    CHECK_EQ_INT(tt_dtype_size(TT_I32), 4);
    CHECK_EQ_INT(tt_dtype_size(TT_BOOL), 1);
    CHECK_EQ_INT(tt_dtype_size(TT_DTYPE_COUNT), 0);
    CHECK_EQ_INT(tt_dtype_size((tt_dtype)7), 0);
}

/* ------------------------------------------------------------ f16 / bf16 */

static void test_f16_known_values(void) {
    /* normal numbers */
    CHECK_EQ_INT(tt_f32_to_f16(1.0f), 0x3C00);
    CHECK_EQ_INT(tt_f32_to_f16(-2.0f), 0xC000);
    CHECK_EQ_INT(tt_f32_to_f16(0.5f), 0x3800);
    CHECK_EQ_INT(tt_f32_to_f16(0.0f), 0x0000);
    CHECK_EQ_INT(tt_f32_to_f16(-0.0f), 0x8000);
    CHECK_EQ_INT(tt_f32_to_f16(0.1f), 0x2E66);
    CHECK_EQ_INT(tt_f32_to_f16(-3.25f), 0xC280);
    CHECK_EQ_INT(tt_f32_to_f16(1.0f / 3.0f), 0x3555);
    /* largest finite, overflow */
    CHECK_EQ_INT(tt_f32_to_f16(65504.0f), 0x7BFF);
    CHECK_EQ_INT(tt_f32_to_f16(-65504.0f), 0xFBFF);
    CHECK_EQ_INT(tt_f32_to_f16(65519.0f), 0x7BFF);     /* below the midpoint: rounds down */
    CHECK_EQ_INT(tt_f32_to_f16(65520.0f), 0x7C00);     /* midpoint to 65536: ties to even = inf */
    CHECK_EQ_INT(tt_f32_to_f16(1e6f), 0x7C00);
    CHECK_EQ_INT(tt_f32_to_f16(-1e6f), 0xFC00);
    CHECK_EQ_INT(tt_f32_to_f16(3.0e38f), 0x7C00);
    CHECK_EQ_INT(tt_f32_to_f16(INFINITY), 0x7C00);
    CHECK_EQ_INT(tt_f32_to_f16(-INFINITY), 0xFC00);
    /* smallest normal and subnormals */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -14)), 0x0400);
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -14) - ldexpf(1.0f, -24)), 0x03FF);
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);
    CHECK_EQ_INT(tt_f32_to_f16(-ldexpf(1.0f, -24)), 0x8001);
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);              /* tie -> even (0) */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -25) * 1.0001f), 0x0001);    /* just above the tie */
    CHECK_EQ_INT(tt_f32_to_f16(tc_u2f(0x33000001u)), 0x0001);            /* 2^-25 + 1 f32 ulp */
    CHECK_EQ_INT(tt_f32_to_f16(tc_u2f(0x32FFFFFFu)), 0x0000);            /* just below the tie */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(3.0f, -25)), 0x0002);              /* 1.5 ulp: tie -> 2 */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(5.0f, -25)), 0x0002);              /* 2.5 ulp: tie -> 2 */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -26)), 0x0000);
    CHECK_EQ_INT(tt_f32_to_f16(-ldexpf(1.0f, -26)), 0x8000);             /* sign kept on underflow */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -140)), 0x0000);             /* f32 subnormal */
    /* a subnormal that rounds up into the smallest normal */
    CHECK_EQ_INT(tt_f32_to_f16(ldexpf(1.0f, -14) - ldexpf(1.0f, -26)), 0x0400);
    /* round to nearest even in the normal range */
    CHECK_EQ_INT(tt_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3C00);       /* tie: even is 1.0 */
    CHECK_EQ_INT(tt_f32_to_f16(1.0f + 3.0f * ldexpf(1.0f, -11)), 0x3C02); /* tie: even is 1+2^-9 */
    CHECK_EQ_INT(tt_f32_to_f16(1.0f + ldexpf(1.0f, -11) + ldexpf(1.0f, -20)), 0x3C01);
    CHECK_EQ_INT(tt_f32_to_f16(1.0f + ldexpf(1.0f, -11) - ldexpf(1.0f, -20)), 0x3C00);
    CHECK_EQ_INT(tt_f32_to_f16(2047.0f / 1024.0f + ldexpf(1.0f, -11)), 0x4000); /* carry into exponent */
    CHECK_EQ_INT(tt_f32_to_f16(2049.0f), 0x6800);                        /* 2048 + 1: tie -> 2048 */
    CHECK_EQ_INT(tt_f32_to_f16(2051.0f), 0x6802);                        /* tie -> 2052 */
    /* NaN stays NaN, whatever its payload */
    CHECK(tc_is_f16_nan(tt_f32_to_f16(NAN)));
    CHECK(tc_is_f16_nan(tt_f32_to_f16(tc_u2f(0x7F800001u))));            /* payload only in low bits */
    CHECK(tc_is_f16_nan(tt_f32_to_f16(tc_u2f(0xFF800001u))));
    CHECK(tc_is_f16_nan(tt_f32_to_f16(tc_u2f(0x7FFFFFFFu))));
    CHECK(tc_is_f16_nan(tt_f32_to_f16(tc_u2f(0xFFFFFFFFu))));
    /* decoding */
    CHECK(tt_f16_to_f32(0x3C00) == 1.0f);
    CHECK(tt_f16_to_f32(0xC000) == -2.0f);
    CHECK(tt_f16_to_f32(0x7BFF) == 65504.0f);
    CHECK(tt_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    CHECK(tt_f16_to_f32(0x03FF) == ldexpf(1023.0f, -24));
    CHECK(tt_f16_to_f32(0x0400) == ldexpf(1.0f, -14));
    CHECK(tt_f16_to_f32(0x3555) == 0.333251953125f);
    CHECK(tt_f16_to_f32(0x7C00) == INFINITY);
    CHECK(tt_f16_to_f32(0xFC00) == -INFINITY);
    CHECK(tt_f16_to_f32(0x8000) == 0.0f && signbit(tt_f16_to_f32(0x8000)));
    CHECK(isnan(tt_f16_to_f32(0x7E00)));
    CHECK(isnan(tt_f16_to_f32(0x7C01)));
    CHECK(isnan(tt_f16_to_f32(0xFFFF)));
}

/* Every f16 bit pattern decodes to the exact value and (non-NaN) encodes back to itself. */
static void test_f16_exhaustive(void) {
    long bad_dec = 0, bad_rt = 0, bad_nan = 0;
    long first_dec = -1, first_rt = -1;
    uint32_t h;
    for (h = 0; h < 65536u; h++) {
        uint16_t hh = (uint16_t)h;
        float f = tt_f16_to_f32(hh);
        double want = tc_ref_f16(hh);
        if (!tc_same_value((double)f, want)) { if (first_dec < 0) first_dec = (long)h; bad_dec++; }
        if (tc_is_f16_nan(hh)) {
            if (!tc_is_f16_nan(tt_f32_to_f16(f))) bad_nan++;
        } else if (tt_f32_to_f16(f) != hh) {
            if (first_rt < 0) first_rt = (long)h;
            bad_rt++;
        }
    }
    if (bad_dec) printf("    first bad decode: 0x%04lx\n", (unsigned long)first_dec);
    if (bad_rt) printf("    first bad round trip: 0x%04lx -> 0x%04x\n", (unsigned long)first_rt,
                       (unsigned)tt_f32_to_f16(tt_f16_to_f32((uint16_t)first_rt)));
    CHECK_EQ_INT(bad_dec, 0);
    CHECK_EQ_INT(bad_rt, 0);
    CHECK_EQ_INT(bad_nan, 0);
}

/* Random f32 bit patterns (all exponents) against the reference rounding. */
static void test_f16_bf16_random_rounding(void) {
    uint64_t s = 12345;
    long i, bad16 = 0, badbf = 0;
    for (i = 0; i < 300000; i++) {
        uint32_t u = (uint32_t)(tc_rng(&s) >> 32);
        float x;
        if (i % 3 == 0) {   /* concentrate on the f16 range: exponents 2^-27 .. 2^17 */
            uint32_t e = (uint32_t)(100 + (tc_rng(&s) >> 40) % 45);
            u = (u & 0x807FFFFFu) | (e << 23);
        }
        if (i % 7 == 0) u &= 0xFFFFE000u | (1u << 12);   /* many exact ties for f16 */
        if (i % 11 == 0) u &= 0xFFFF8000u | (1u << 15);  /* many exact ties for bf16 */
        x = tc_u2f(u);
        if (isnan(x)) continue;
        {
            double want = tc_ref_round_f16(x);
            double got = (double)tt_f16_to_f32(tt_f32_to_f16(x));
            if (!tc_same_value(got, want)) {
                if (bad16 < 3) printf("    f16(%a) = %a, expected %a\n", (double)x, got, want);
                bad16++;
            }
        }
        {
            double want = tc_ref_round_bf16(x);
            double got = (double)tt_bf16_to_f32(tt_f32_to_bf16(x));
            if (!tc_same_value(got, want)) {
                if (badbf < 3) printf("    bf16(%a) = %a, expected %a\n", (double)x, got, want);
                badbf++;
            }
        }
    }
    CHECK_EQ_INT(bad16, 0);
    CHECK_EQ_INT(badbf, 0);
}

static void test_bf16_known_values(void) {
    long bad = 0, bad_rt = 0;
    uint32_t h;
    CHECK_EQ_INT(tt_f32_to_bf16(1.0f), 0x3F80);
    CHECK_EQ_INT(tt_f32_to_bf16(-2.0f), 0xC000);
    CHECK_EQ_INT(tt_f32_to_bf16(0.0f), 0x0000);
    CHECK_EQ_INT(tt_f32_to_bf16(-0.0f), 0x8000);
    CHECK_EQ_INT(tt_f32_to_bf16(0.15625f), 0x3E20);
    CHECK_EQ_INT(tt_f32_to_bf16(3.140625f), 0x4049);
    CHECK_EQ_INT(tt_f32_to_bf16(INFINITY), 0x7F80);
    CHECK_EQ_INT(tt_f32_to_bf16(-INFINITY), 0xFF80);
    /* ties to even */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x3F808000u)), 0x3F80);   /* 1 + 2^-8: tie, even is 1.0 */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x3F818000u)), 0x3F82);   /* tie, even is up */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x3F808001u)), 0x3F81);   /* above the tie */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x3F807FFFu)), 0x3F80);   /* below the tie */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0xBF818000u)), 0xBF82);
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x3FFFC000u)), 0x4000);   /* carry into the exponent */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x7F7FFFFFu)), 0x7F80);   /* FLT_MAX rounds to inf */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x7F7F7FFFu)), 0x7F7F);
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x00000001u)), 0x0000);   /* f32 subnormal, below half */
    CHECK_EQ_INT(tt_f32_to_bf16(tc_u2f(0x00018000u)), 0x0002);   /* subnormal tie -> even */
    /* NaN stays NaN (naive rounding turns 0x7F800001 into inf, 0xFFFFFFFF into 0) */
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(NAN)));
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(tc_u2f(0x7F800001u))));
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(tc_u2f(0x7F808000u))));
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(tc_u2f(0x7FFFFFFFu))));
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(tc_u2f(0xFFFFFFFFu))));
    CHECK(tc_is_bf16_nan(tt_f32_to_bf16(tc_u2f(0xFF800001u))));
    /* decoding is exact: the bits shifted up by 16 */
    for (h = 0; h < 65536u; h++) {
        uint16_t hh = (uint16_t)h;
        float f = tt_bf16_to_f32(hh);
        if (tc_is_bf16_nan(hh)) {
            if (!isnan(f)) bad++;
            if (!tc_is_bf16_nan(tt_f32_to_bf16(f))) bad_rt++;
            continue;
        }
        if (tc_f2u(f) != (h << 16)) bad++;
        if (tt_f32_to_bf16(f) != hh) bad_rt++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad_rt, 0);
}

/* ---------------------------------------------------------------- contexts */

typedef struct tc_alloc_stats {
    long   n_alloc, n_free;
    size_t live, budget;    /* budget 0: unlimited */
} tc_alloc_stats;

static void *tc_alloc(size_t size, void *user) {
    tc_alloc_stats *st = (tc_alloc_stats *)user;
    size_t *p;
    if (st->budget && st->live + size > st->budget) return NULL;
    p = (size_t *)malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    st->n_alloc++;
    st->live += size;
    return (char *)p + 16;
}

static void tc_free(void *ptr, void *user) {
    tc_alloc_stats *st = (tc_alloc_stats *)user;
    size_t *p;
    if (!ptr) return;
    p = (size_t *)(void *)((char *)ptr - 16);
    st->n_free++;
    st->live -= p[0];
    free(p);
}

static void test_ctx_basics(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    size_t u0;
    int64_t shape[2] = {3, 7};
    tt_tensor *t;
    CHECK(d.mem_buffer == NULL);
    CHECK_EQ_INT(d.mem_size, 0);
    CHECK(d.block_size == 0 || d.block_size == ((size_t)1 << 20));
    CHECK(d.allocator.alloc == NULL);
    CHECK(d.allocator.free == NULL);
    CHECK_EQ_INT(d.debug_guards, 0);

    tt_ctx_destroy(NULL);                       /* safe */

    c = tt_ctx_create(NULL);
    CHECK(c != NULL);
    if (!c) return;
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    CHECK(tt_ctx_check_guards(c));              /* no guards: always true */
    u0 = tt_ctx_used(c);
    t = tt_ones(c, TT_F32, 2, shape);
    CHECK(t != NULL);
    CHECK(tt_ctx_used(c) >= u0 + 21 * sizeof(float));
    if (t) CHECK(t->ctx == c);
    CHECK(tt_ctx_check_guards(c));
    tt_ctx_destroy(c);

    /* defaults passed explicitly behave like NULL */
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    if (c) {
        t = tt_zeros(c, TT_F32, 2, shape);
        CHECK(t != NULL);
        tt_ctx_destroy(c);
    }
}

/* Small blocks, tensors bigger than a block, a custom allocator that sees every byte. */
static void test_ctx_blocks_and_allocator(void) {
    tc_alloc_stats st;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    tt_tensor *ts[60];
    int i;
    int64_t small[1] = {100};
    int64_t big[2] = {3, 10007};
    memset(&st, 0, sizeof st);
    d.block_size = 4096;
    d.allocator.alloc = tc_alloc;
    d.allocator.free = tc_free;
    d.allocator.user = &st;
    d.debug_guards = 1;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    if (!c) return;
    for (i = 0; i < 60; i++) {
        ts[i] = (i % 10 == 9) ? tt_full(c, TT_F32, 2, big, (double)i) : tt_full(c, TT_F32, 1, small, (double)i);
        CHECK(ts[i] != NULL);
        CHECK_GUARDS(c);
    }
    CHECK(st.n_alloc > 1);                      /* it went through the allocator */
    CHECK(tt_ctx_used(c) >= (size_t)(54 * 100 + 6 * 30021) * sizeof(float));
    /* nothing overlaps: every tensor still holds its own value */
    for (i = 0; i < 60; i++) {
        float *v = tu_values(c, ts[i]);
        int64_t n = ts[i] ? ts[i]->numel : 0, k, bad = 0;
        CHECK(v != NULL);
        for (k = 0; v && k < n; k++) if (v[k] != (float)i) bad++;
        CHECK_EQ_INT(bad, 0);
        free(v);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    CHECK_EQ_INT(st.n_alloc, st.n_free);
    CHECK_EQ_INT(st.live, 0);
}

/* An allocator that runs dry: ops fail with TT_ERR_OOM naming the op, nothing crashes. */
static void test_ctx_heap_oom(void) {
    tc_alloc_stats st;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    tt_tensor *t;
    int64_t big[1] = {1000000};
    memset(&st, 0, sizeof st);
    d.allocator.alloc = tc_alloc;
    d.allocator.free = tc_free;
    d.allocator.user = &st;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    if (!c) return;
    st.budget = st.live + 1;                    /* from now on nothing more */
    t = tt_zeros(c, TT_F32, 1, big);
    CHECK(t == NULL);
    CHECK_ERROR(c, TT_ERR_OOM, "tt_zeros");
    t = tt_randn(c, 1, 1, big);
    CHECK(t == NULL);
    CHECK_ERROR(c, TT_ERR_OOM, "tt_randn");
    st.budget = 0;
    t = tt_zeros(c, TT_F32, 1, big);             /* works again once memory is there */
    CHECK(t != NULL);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
    CHECK_EQ_INT(st.n_alloc, st.n_free);
    CHECK_EQ_INT(st.live, 0);
}

/* ------------------------------------------------------------ sticky errors */

static void test_sticky_errors(void) {
    tt_ctx *c = tu_ctx();
    int64_t bad[2] = {2, -3}, s23[2] = {2, 3}, s45[2] = {4, 5}, s6[1] = {6};
    tt_tensor *a, *b, *r;
    char first[512];
    CHECK(c != NULL);
    if (!c) return;
    a = tt_ones(c, TT_F32, 2, s23);
    b = tt_ones(c, TT_F32, 2, s45);
    CHECK(a && b);
    CHECK_GUARDS(c);

    r = tt_zeros(c, TT_F32, 2, bad);
    CHECK(r == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_ARG);
    CHECK_STR_CONTAINS(tt_error(c), "tt_zeros");
    first[0] = 0;
    if (tt_error(c)) { strncpy(first, tt_error(c), sizeof first - 1); first[sizeof first - 1] = 0; }

    /* a second, different error keeps the first message and status */
    r = tt_add(c, a, b);
    CHECK(r == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_ARG);
    CHECK(tt_error(c) != NULL && strcmp(tt_error(c), first) == 0);
    r = tt_reshape(c, a, 1, s45);
    CHECK(r == NULL);
    CHECK(tt_error(c) != NULL && strcmp(tt_error(c), first) == 0);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_ARG);
    CHECK_GUARDS(c);

    tt_clear_error(c);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);

    /* now the shape error is the first one */
    r = tt_add(c, a, b);
    CHECK(r == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
    CHECK_STR_CONTAINS(tt_error(c), "tt_add");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    CHECK_STR_CONTAINS(tt_error(c), "[4,5]");
    tt_clear_error(c);

    /* NULL propagates through a chain without a new error */
    r = tt_relu(c, tt_add_scalar(c, NULL, 1.0f));
    CHECK(r == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK(tt_add(c, NULL, a) == NULL);
    CHECK(tt_add(c, a, NULL) == NULL);
    CHECK(tt_mul(c, NULL, NULL) == NULL);
    CHECK(tt_sum(c, NULL, NULL, 0, false) == NULL);
    CHECK(tt_reshape(c, NULL, 1, s6) == NULL);
    CHECK(tt_transpose(c, NULL, 0, 1) == NULL);
    CHECK(tt_matmul(c, a, NULL) == NULL);
    CHECK(tt_contiguous(c, NULL) == NULL);
    CHECK(tt_clone(c, NULL) == NULL);
    CHECK(isnan(tt_item(c, NULL)));
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);

    /* a NULL from an earlier error propagates and the first message stays */
    r = tt_zeros(c, TT_F32, 2, bad);
    r = tt_exp(c, tt_neg(c, r));
    CHECK(r == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_zeros");

    /* after clearing, ops work */
    r = tt_add(c, a, a);
    CHECK(r != NULL);
    {
        int64_t idx[2] = {1, 2};
        if (r) CHECK_NEAR(tt_get(c, r, idx), 2.0, 0, 0);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------------ memory scopes */

static void test_scope_constant_memory(void) {
    tt_ctx *c = tu_ctx();
    int64_t s33[1] = {33}, s2[2] = {7, 11};
    tt_tensor *keep, *x, *y, *z;
    size_t used0;
    int it, bad_used = 0, bad_val = 0;
    CHECK(c != NULL);
    if (!c) return;
    keep = tt_full(c, TT_F32, 2, s2, 3.5);
    CHECK(keep != NULL);
    used0 = tt_ctx_used(c);
    for (it = 0; it < 1000; it++) {
        tt_scope sc = tt_scope_begin(c);
        float *xv, *zv;
        int64_t k;
        x = tt_randn(c, (uint64_t)it, 1, s33);
        y = tt_add_scalar(c, x, 0.25f);
        z = tt_relu(c, y);
        if (!z || z->numel != 33 || x->numel != 33) { bad_val++; tt_scope_end(c, sc); continue; }
        if (tt_ctx_used(c) <= used0) bad_used++;
        xv = tu_values(c, x);
        zv = tu_values(c, z);
        for (k = 0; xv && zv && k < 33; k++) {
            double want = (double)xv[k] + 0.25;
            if (want < 0) want = 0;
            if (fabs((double)zv[k] - want) > 1e-6 + 1e-6 * fabs(want)) bad_val++;
        }
        if (!xv || !zv) bad_val++;
        free(xv);
        free(zv);
        if (it % 100 == 0 && !tt_ctx_check_guards(c)) bad_val++;
        tt_scope_end(c, sc);
        if (tt_ctx_used(c) != used0) bad_used++;
    }
    CHECK_EQ_INT(bad_used, 0);
    CHECK_EQ_INT(bad_val, 0);
    CHECK_EQ_INT(tt_ctx_used(c), used0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    /* the tensor made before the loop is intact */
    {
        double want[77];
        int i;
        for (i = 0; i < 77; i++) want[i] = 3.5;
        CHECK_VALUES(c, keep, want, 77);
    }
    tt_ctx_destroy(c);
}

/* Nested scopes; allocations bigger than a block; heap usage stays flat across iterations. */
static void test_scope_nested_and_big(void) {
    tc_alloc_stats st;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    int64_t s500[1] = {500}, sbig[1] = {300001};
    size_t u0, u1, live10 = 0;
    int it, i;
    memset(&st, 0, sizeof st);
    d.block_size = 4096;
    d.debug_guards = 1;
    d.allocator.alloc = tc_alloc;
    d.allocator.free = tc_free;
    d.allocator.user = &st;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    if (!c) return;
    u0 = tt_ctx_used(c);
    for (it = 0; it < 40; it++) {
        tt_scope outer = tt_scope_begin(c), inner;
        tt_tensor *a = tt_full(c, TT_F32, 1, s500, 1.0), *b = NULL, *big;
        CHECK(a != NULL);
        u1 = tt_ctx_used(c);
        inner = tt_scope_begin(c);
        for (i = 0; i < 20; i++) b = tt_full(c, TT_F32, 1, s500, 2.0);
        big = tt_zeros(c, TT_F32, 1, sbig);
        CHECK(b != NULL && big != NULL);
        CHECK(tt_ctx_used(c) > u1);
        tt_scope_end(c, inner);
        CHECK_EQ_INT(tt_ctx_used(c), u1);
        if (a) CHECK_NEAR(((float *)tt_data(a))[499], 1.0, 0, 0);   /* outer tensor intact */
        b = tt_full(c, TT_F32, 1, s500, 4.0);                     /* reuse after inner end */
        if (b) CHECK_NEAR(((float *)tt_data(b))[0], 4.0, 0, 0);
        if (a) CHECK_NEAR(((float *)tt_data(a))[0], 1.0, 0, 0);
        CHECK_GUARDS(c);
        tt_scope_end(c, outer);
        CHECK_EQ_INT(tt_ctx_used(c), u0);
        if (it == 10) live10 = st.live;
    }
    CHECK_EQ_INT(st.live, live10);     /* constant memory: no block is lost per iteration */
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    CHECK_EQ_INT(st.n_alloc, st.n_free);
    CHECK_EQ_INT(st.live, 0);
}

/* --------------------------------------------------------- user-buffer mode */

#define TC_PAD 4096

/* A buffer of msize bytes between two TC_PAD-byte pattern regions; the user's part starts
   `skew` bytes into the front region's end (so it may be misaligned), and the skew bytes
   belong to the front pattern. */
static int tc_pad_intact(const unsigned char *raw, size_t skew, size_t msize) {
    size_t i, front = TC_PAD + skew;
    for (i = 0; i < front; i++) if (raw[i] != (unsigned char)(0xA5 ^ (i & 0xFF))) return 0;
    for (i = 0; i < TC_PAD; i++) if (raw[front + msize + i] != (unsigned char)(0x5A ^ (i & 0xFF))) return 0;
    return 1;
}

static unsigned char *tc_padded_buffer(size_t skew, size_t msize) {
    size_t i, front = TC_PAD + skew;
    unsigned char *raw = (unsigned char *)malloc(front + msize + TC_PAD);
    if (!raw) return NULL;
    for (i = 0; i < front; i++) raw[i] = (unsigned char)(0xA5 ^ (i & 0xFF));
    memset(raw + front, 0xEE, msize);
    for (i = 0; i < TC_PAD; i++) raw[front + msize + i] = (unsigned char)(0x5A ^ (i & 0xFF));
    return raw;
}

static int tc_inside(const void *p, size_t n, const unsigned char *buf, size_t msize) {
    const unsigned char *q = (const unsigned char *)p;
    return q >= buf && q + n <= buf + msize;
}

static void tc_user_buffer_run(int guards, size_t skew) {
    size_t msize = 64 * 1024;
    unsigned char *raw = tc_padded_buffer(skew, msize), *buf;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    tt_tensor **ts;
    int n = 0, i, cap = 4096, bad = 0;
    int64_t s37[1] = {37}, huge[1] = {100000};
    tt_scope sc;
    CHECK(raw != NULL);
    if (!raw) return;
    buf = raw + TC_PAD + skew;
    ts = (tt_tensor **)malloc(sizeof(tt_tensor *) * (size_t)cap);
    d.mem_buffer = buf;
    d.mem_size = msize;
    d.debug_guards = guards;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    if (!c || !ts) { free(ts); free(raw); return; }
    CHECK(tc_inside(c, 1, buf, msize));          /* the context itself lives in the buffer */

    /* one allocation far past the end */
    CHECK(tt_zeros(c, TT_F32, 1, huge) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_OOM);
    CHECK_STR_CONTAINS(tt_error(c), "tt_zeros");
    tt_clear_error(c);
    CHECK(tc_pad_intact(raw, skew, msize));

    /* fill it up with small tensors, each written in full */
    sc = tt_scope_begin(c);
    for (n = 0; n < cap; n++) {
        tt_tensor *t = tt_full(c, TT_F32, 1, s37, (double)n);
        float *p;
        if (!t) break;
        ts[n] = t;
        if (!tc_inside(t, sizeof(tt_tensor), buf, msize)) bad++;
        p = (float *)tt_data(t);
        if (!tc_inside(p, 37 * sizeof(float), buf, msize)) { bad++; continue; }
        for (i = 0; i < 37; i++) p[i] = (float)n + 0.5f;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(n > 10 && n < cap);
    CHECK(n * 37 * 4 < (int)msize);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_OOM);
    CHECK_STR_CONTAINS(tt_error(c), "tt_full");
    tt_clear_error(c);
    CHECK(tt_ctx_used(c) <= msize);
    CHECK(tc_pad_intact(raw, skew, msize));
    CHECK_GUARDS(c);
    /* no two tensors overlap */
    for (i = 0; i < n; i++) {
        float *p = (float *)tt_data(ts[i]);
        if (p[0] != (float)i + 0.5f || p[36] != (float)i + 0.5f) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    /* after the scope ends, the memory can be used again */
    tt_scope_end(c, sc);
    {
        tt_tensor *t = tt_full(c, TT_F32, 1, s37, 9.0);
        CHECK(t != NULL);
        if (t) {
            int64_t last[1] = {-1};
            CHECK(tc_inside(tt_data(t), 37 * sizeof(float), buf, msize));
            CHECK_NEAR(tt_get(c, t, last), 9.0, 0, 0);
        }
        CHECK_NO_ERROR(c);
    }
    CHECK(tc_pad_intact(raw, skew, msize));
    tt_ctx_destroy(c);
    CHECK(tc_pad_intact(raw, skew, msize));
    free(ts);
    free(raw);
}

static void test_user_buffer(void) {
    tc_user_buffer_run(0, 0);
    tc_user_buffer_run(1, 0);
    tc_user_buffer_run(0, 3);     /* a misaligned buffer */
    tc_user_buffer_run(1, 5);
}

static void test_user_buffer_too_small(void) {
    size_t sizes[3] = {1, 64, TT_CTX_OVERHEAD - 1};
    int i;
    for (i = 0; i < 3; i++) {
        unsigned char *raw = tc_padded_buffer(0, sizes[i]);
        tt_ctx_desc d = tt_ctx_desc_default();
        tt_ctx *c;
        CHECK(raw != NULL);
        if (!raw) return;
        d.mem_buffer = raw + TC_PAD;
        d.mem_size = sizes[i];
        c = tt_ctx_create(&d);
        CHECK(c == NULL);
        if (c) tt_ctx_destroy(c);
        CHECK(tc_pad_intact(raw, 0, sizes[i]));
        free(raw);
    }
    /* exactly the overhead is enough for the context; allocations then run out cleanly */
    {
        unsigned char *raw = tc_padded_buffer(0, TT_CTX_OVERHEAD);
        tt_ctx_desc d = tt_ctx_desc_default();
        tt_ctx *c;
        int64_t s[1] = {16};
        if (!raw) return;
        d.mem_buffer = raw + TC_PAD;
        d.mem_size = TT_CTX_OVERHEAD;
        c = tt_ctx_create(&d);
        CHECK(c != NULL);
        if (c) {
            tt_tensor *t = tt_zeros(c, TT_F32, 1, s);
            if (!t) CHECK_ERROR(c, TT_ERR_OOM, "tt_zeros");
            tt_ctx_destroy(c);
        }
        CHECK(tc_pad_intact(raw, 0, TT_CTX_OVERHEAD));
        free(raw);
    }
}

/* ------------------------------------------------------------- guard regions */

static void test_debug_guards_detect(void) {
    int64_t s7[1] = {7}, s5[1] = {5};
    /* one element past the end */
    {
        tt_ctx *c = tu_ctx();
        tt_tensor *t, *u;
        float *p;
        CHECK(c != NULL);
        if (!c) return;
        t = tt_zeros(c, TT_F32, 1, s7);
        u = tt_ones(c, TT_F32, 1, s5);
        CHECK(t != NULL && u != NULL);
        if (t && u) {
            CHECK(tt_ctx_check_guards(c));
            CHECK(tt_error(c) == NULL);
            p = (float *)tt_data(t);
            p[7] = 123.0f;                      /* on purpose */
            CHECK(!tt_ctx_check_guards(c));
            CHECK_ERROR(c, TT_ERR_CORRUPT, "");
        }
        tt_ctx_destroy(c);
    }
    /* one byte before the start */
    {
        tt_ctx *c = tu_ctx();
        tt_tensor *t, *u;
        CHECK(c != NULL);
        if (!c) return;
        u = tt_ones(c, TT_F32, 1, s5);
        t = tt_zeros(c, TT_F32, 1, s7);
        CHECK(t != NULL && u != NULL);
        if (t && u) {
            CHECK(tt_ctx_check_guards(c));
            ((unsigned char *)tt_data(t))[-1] ^= 0xFF;
            CHECK(!tt_ctx_check_guards(c));
            CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_CORRUPT);
            CHECK(tt_error(c) != NULL && strlen(tt_error(c)) > 0);
            tt_clear_error(c);
        }
        tt_ctx_destroy(c);
    }
    /* bytes inside the tensor are fine */
    {
        tt_ctx *c = tu_ctx();
        tt_tensor *t;
        CHECK(c != NULL);
        if (!c) return;
        t = tt_zeros(c, TT_F32, 1, s7);
        if (t) ((float *)tt_data(t))[6] = 5.0f;
        CHECK(tt_ctx_check_guards(c));
        CHECK_NO_ERROR(c);
        tt_ctx_destroy(c);
    }
}

/* ---------------------------------------------------------- creation ops */

static void test_zeros_ones_full(void) {
    tt_ctx *c = tu_ctx();
    int64_t shape[2] = {3, 7};
    double want[21];
    int dt, i;
    CHECK(c != NULL);
    if (!c) return;
    for (dt = 0; dt < TT_DTYPE_COUNT; dt++) {
        tt_dtype t = (tt_dtype)dt;
        tt_tensor *z = tt_zeros(c, t, 2, shape);
        tt_tensor *o = tt_ones(c, t, 2, shape);
        double fv = (t == TT_F32) ? 2.5 : (t == TT_F16) ? -3.25 : (t == TT_BF16) ? 0.15625
                  : (t == TT_I32) ? -7.0 : 1.0;
        tt_tensor *f = tt_full(c, t, 2, shape, fv);
        tt_tensor *e = tt_empty(c, t, 2, shape);
        CHECK_GUARDS(c);
        CHECK(z && o && f && e);
        if (!z || !o || !f || !e) continue;
        CHECK_EQ_INT(z->dtype, t);
        CHECK_EQ_INT(f->dtype, t);
        CHECK_EQ_INT(e->dtype, t);
        CHECK(tu_shape_is(z, 2, 3, 7));
        CHECK(tu_shape_is(e, 2, 3, 7));
        CHECK_EQ_INT(z->numel, 21);
        CHECK_EQ_INT(o->stride[0], 7);
        CHECK_EQ_INT(o->stride[1], 1);
        CHECK(tt_is_contiguous(z) && tt_is_contiguous(o) && tt_is_contiguous(f) && tt_is_contiguous(e));
        for (i = 0; i < 21; i++) want[i] = 0.0;
        CHECK_VALUES(c, z, want, 21);
        for (i = 0; i < 21; i++) want[i] = 1.0;
        CHECK_VALUES(c, o, want, 21);
        for (i = 0; i < 21; i++) want[i] = fv;
        CHECK_VALUES(c, f, want, 21);
        /* the bytes in storage */
        {
            const unsigned char *zb = (const unsigned char *)tt_data(z);
            int nz = 0;
            for (i = 0; i < 21 * (int)tt_dtype_size(t); i++) nz += zb[i] != 0;
            CHECK_EQ_INT(nz, 0);
        }
        switch (t) {
        case TT_F32:
            CHECK(((float *)tt_data(o))[20] == 1.0f);
            CHECK(((float *)tt_data(f))[20] == 2.5f);
            break;
        case TT_F16:
            CHECK_EQ_INT(((uint16_t *)tt_data(o))[20], 0x3C00);
            CHECK_EQ_INT(((uint16_t *)tt_data(f))[20], 0xC280);
            break;
        case TT_BF16:
            CHECK_EQ_INT(((uint16_t *)tt_data(o))[20], 0x3F80);
            CHECK_EQ_INT(((uint16_t *)tt_data(f))[20], 0x3E20);
            break;
        case TT_I32:
            CHECK_EQ_INT(((int32_t *)tt_data(o))[20], 1);
            CHECK_EQ_INT(((int32_t *)tt_data(f))[20], -7);
            break;
        default:
            CHECK_EQ_INT(((unsigned char *)tt_data(o))[20], 1);
            CHECK_EQ_INT(((unsigned char *)tt_data(f))[20], 1);
            break;
        }
    }
    /* full rounds to the storage type */
    {
        tt_tensor *h = tt_full(c, TT_F16, 2, shape, 0.1);
        tt_tensor *b = tt_full(c, TT_BF16, 2, shape, 3.140625);
        CHECK_GUARDS(c);
        if (h) CHECK_EQ_INT(((uint16_t *)tt_data(h))[5], 0x2E66);
        if (b) CHECK_EQ_INT(((uint16_t *)tt_data(b))[5], 0x4049);
    }
    /* scalars (ndim 0, shape NULL) and empty tensors */
    {
        tt_tensor *s = tt_full(c, TT_F32, 0, NULL, -1.5);
        int64_t s03[2] = {0, 3};
        tt_tensor *z0 = tt_zeros(c, TT_F32, 2, s03);
        CHECK_GUARDS(c);
        CHECK(s != NULL);
        if (s) {
            CHECK_EQ_INT(s->ndim, 0);
            CHECK_EQ_INT(s->numel, 1);
            CHECK_NEAR(tt_item(c, s), -1.5, 0, 0);
        }
        CHECK(z0 != NULL);
        if (z0) { CHECK(tu_shape_is(z0, 2, 0, 3)); CHECK_EQ_INT(z0->numel, 0); }
    }
    /* a big one (1000+ elements, odd size) */
    {
        int64_t s1[1] = {1031};
        tt_tensor *f = tt_full(c, TT_F32, 1, s1, 7.25);
        double w[1031];
        for (i = 0; i < 1031; i++) w[i] = 7.25;
        CHECK_GUARDS(c);
        CHECK_VALUES(c, f, w, 1031);
    }
    /* the most dims allowed */
    {
        int64_t s8[TT_MAX_DIMS];
        tt_tensor *t;
        for (i = 0; i < TT_MAX_DIMS; i++) s8[i] = (i % 2) ? 2 : 1;
        t = tt_ones(c, TT_F32, TT_MAX_DIMS, s8);
        CHECK(t != NULL);
        if (t) { CHECK_EQ_INT(t->ndim, TT_MAX_DIMS); CHECK_EQ_INT(t->numel, 1 << (TT_MAX_DIMS / 2)); }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_scalar(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *s;
    char buf[16];
    CHECK(c != NULL);
    if (!c) return;
    s = tt_scalar(c, 3.5f);
    CHECK_GUARDS(c);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(s->ndim, 0);
        CHECK_EQ_INT(s->numel, 1);
        CHECK_EQ_INT(s->dtype, TT_F32);
        CHECK(tt_is_contiguous(s));
        CHECK_NEAR(tt_item(c, s), 3.5, 0, 0);
        CHECK(*(float *)tt_data(s) == 3.5f);
        CHECK(strcmp(tt_shape_str(s, buf, sizeof buf), "[]") == 0);
    }
    s = tt_scalar(c, -INFINITY);
    if (s) CHECK_NEAR(tt_item(c, s), -INFINITY, 0, 0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* arange(start, stop, step) against the reference start + i*step, ceil((stop-start)/step). */
static void tc_check_arange(tt_ctx *c, tt_dtype dt, double start, double stop, double step, int line) {
    tt_tensor *t = tt_arange(c, dt, start, stop, step);
    long long n = (long long)ceil((stop - start) / step), i;
    double *want;
    if (n < 0) n = 0;
    if (!CHECK(t != NULL)) { printf("      (arange at line %d)\n", line); return; }
    CHECK_GUARDS(c);
    CHECK_EQ_INT(t->dtype, dt);
    CHECK_EQ_INT(t->ndim, 1);
    if (!CHECK_EQ_INT(t->numel, n)) { printf("      (arange at line %d)\n", line); return; }
    want = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (i = 0; i < n; i++) want[i] = start + (double)i * step;
    {
        float *v = tu_values(c, t);
        CHECK(v != NULL);
        if (v && !CHECK_ALLCLOSE(v, want, n, 1e-6, 1e-6)) printf("      (arange at line %d)\n", line);
        free(v);
    }
    free(want);
}

static void test_arange(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *t;
    CHECK(c != NULL);
    if (!c) return;
    tc_check_arange(c, TT_F32, 0, 5, 1, __LINE__);
    tc_check_arange(c, TT_F32, 5, 0, -1, __LINE__);           /* 5,4,3,2,1 */
    tc_check_arange(c, TT_F32, 3, -4, -2, __LINE__);          /* 3,1,-1,-3 */
    tc_check_arange(c, TT_F32, 0, 1, 0.3, __LINE__);          /* 4 elements: 0 .. 0.9 */
    tc_check_arange(c, TT_F32, 1, 2.5, 0.5, __LINE__);        /* 1, 1.5, 2 */
    tc_check_arange(c, TT_F32, -1.25, 1.5, 0.25, __LINE__);   /* 11 elements */
    tc_check_arange(c, TT_F32, 2, -1, -0.7, __LINE__);        /* 5 elements */
    tc_check_arange(c, TT_F32, 0, 1033, 1, __LINE__);
    tc_check_arange(c, TT_F32, 0, 1, 1, __LINE__);            /* one element */
    tc_check_arange(c, TT_F32, 2, 2, 1, __LINE__);            /* empty */
    tc_check_arange(c, TT_I32, 0, 10, 3, __LINE__);           /* 0,3,6,9 */
    tc_check_arange(c, TT_I32, -3, 4, 1, __LINE__);
    tc_check_arange(c, TT_I32, 10, 0, -4, __LINE__);          /* 10,6,2 */
    tc_check_arange(c, TT_F16, 0, 12, 1, __LINE__);
    t = tt_arange(c, TT_I32, 0, 5, 1);
    if (t) { CHECK_EQ_INT(((int32_t *)tt_data(t))[4], 4); CHECK_EQ_INT(t->dtype, TT_I32); }
    /* step 0 is an error */
    t = tt_arange(c, TT_F32, 0, 5, 0);
    CHECK(t == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_arange");
    /* infinite or NaN bounds: an error, not a huge allocation or a hang */
    CHECK(tt_arange(c, TT_F32, 0, INFINITY, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_arange");
    CHECK(tt_arange(c, TT_F32, NAN, 5, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_arange");
    CHECK(tt_arange(c, TT_F32, 0, 5, NAN) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_arange");
    /* a step of the wrong sign gives nothing: either an empty tensor or an argument error */
    t = tt_arange(c, TT_F32, 0, 5, -1);
    if (t) CHECK_EQ_INT(t->numel, 0);
    else CHECK_ERROR(c, TT_ERR_ARG, "tt_arange");
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void tc_check_linspace(tt_ctx *c, double start, double end, long long steps, int line) {
    tt_tensor *t = tt_linspace(c, start, end, (int64_t)steps);
    double *want;
    long long i;
    double mag = fabs(start) > fabs(end) ? fabs(start) : fabs(end);
    if (!CHECK(t != NULL)) { printf("      (linspace at line %d)\n", line); return; }
    CHECK_GUARDS(c);
    CHECK_EQ_INT(t->dtype, TT_F32);
    CHECK_EQ_INT(t->ndim, 1);
    if (!CHECK_EQ_INT(t->numel, steps)) return;
    want = (double *)malloc(sizeof(double) * (size_t)steps);
    for (i = 0; i < steps; i++)
        want[i] = steps == 1 ? start : start + (end - start) * (double)i / (double)(steps - 1);
    {
        float *v = tu_values(c, t);
        CHECK(v != NULL);
        if (v) {
            if (!CHECK_ALLCLOSE(v, want, steps, 2e-7 * mag, 1e-6)) printf("      (linspace at line %d)\n", line);
            CHECK(v[0] == (float)start);
            if (steps > 1) CHECK_NEAR(v[steps - 1], end, 1e-6 * mag, 0);
        }
        free(v);
    }
    free(want);
}

static void test_linspace(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *t;
    CHECK(c != NULL);
    if (!c) return;
    tc_check_linspace(c, 0, 1, 5, __LINE__);
    tc_check_linspace(c, -1, 1, 7, __LINE__);
    tc_check_linspace(c, 3, -2, 3, __LINE__);
    tc_check_linspace(c, 2.5, 9, 1, __LINE__);              /* steps = 1: just start */
    tc_check_linspace(c, 4, 4, 33, __LINE__);
    tc_check_linspace(c, -7.5, 100.25, 1001, __LINE__);
    tc_check_linspace(c, 0, 1, 2, __LINE__);
    t = tt_linspace(c, 0, 1, -1);
    CHECK(t == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_linspace");
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_eye(void) {
    tt_ctx *c = tu_ctx();
    int64_t dims[4][2] = {{3, 5}, {4, 2}, {1, 1}, {7, 7}};
    tt_dtype dts[4] = {TT_F32, TT_I32, TT_F16, TT_F32};
    int k;
    CHECK(c != NULL);
    if (!c) return;
    for (k = 0; k < 4; k++) {
        int64_t n = dims[k][0], m = dims[k][1], i, j;
        tt_tensor *t = tt_eye(c, dts[k], n, m);
        double want[64];
        CHECK_GUARDS(c);
        if (!CHECK(t != NULL)) continue;
        CHECK(tu_shape_is(t, 2, (int)n, (int)m));
        CHECK_EQ_INT(t->dtype, dts[k]);
        CHECK(tt_is_contiguous(t));
        for (i = 0; i < n; i++) for (j = 0; j < m; j++) want[i * m + j] = (i == j) ? 1.0 : 0.0;
        CHECK_VALUES(c, t, want, n * m);
    }
    CHECK(tt_eye(c, TT_F32, -1, 3) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_eye");
    CHECK(tt_eye(c, TT_F32, 3, -2) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_eye");
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_from_data_and_wrap(void) {
    tt_ctx *c = tu_ctx();
    CHECK(c != NULL);
    if (!c) return;
    /* f32: a copy */
    {
        float src[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f};
        double want[6];
        int64_t s[2] = {2, 3};
        int i;
        tt_tensor *t = tt_from_data(c, TT_F32, 2, s, src);
        CHECK_GUARDS(c);
        for (i = 0; i < 6; i++) want[i] = (double)src[i];
        CHECK(t != NULL);
        if (t) {
            CHECK(tu_shape_is(t, 2, 2, 3));
            CHECK(tt_data(t) != (void *)src);
            src[4] = 99.0f;                          /* the tensor does not see this */
            CHECK_VALUES(c, t, want, 6);
        }
    }
    /* other dtypes, raw bytes */
    {
        uint16_t h[3] = {0x3C00, 0xC000, 0x0001};
        uint16_t b[2] = {0x3F80, 0x4049};
        int32_t iv[4] = {-5, 7, 0, 123456};
        unsigned char bo[3] = {0, 1, 1};
        int64_t s3[1] = {3}, s2[1] = {2}, s4[2] = {2, 2};
        double wh[3] = {1.0, -2.0, ldexp(1.0, -24)}, wb[2] = {1.0, 3.140625};
        double wi[4] = {-5, 7, 0, 123456}, wo[3] = {0, 1, 1};
        tt_tensor *th = tt_from_data(c, TT_F16, 1, s3, h);
        tt_tensor *tb = tt_from_data(c, TT_BF16, 1, s2, b);
        tt_tensor *ti = tt_from_data(c, TT_I32, 2, s4, iv);
        tt_tensor *to = tt_from_data(c, TT_BOOL, 1, s3, bo);
        CHECK_GUARDS(c);
        CHECK_VALUES(c, th, wh, 3);
        CHECK_VALUES(c, tb, wb, 2);
        CHECK_VALUES(c, ti, wi, 4);
        CHECK_VALUES(c, to, wo, 3);
        if (ti) CHECK_EQ_INT(((int32_t *)tt_data(ti))[3], 123456);
        if (th) CHECK_EQ_INT(th->dtype, TT_F16);
    }
    /* a scalar from data */
    {
        float v = 4.75f;
        tt_tensor *t = tt_from_data(c, TT_F32, 0, NULL, &v);
        CHECK_GUARDS(c);
        if (CHECK(t != NULL)) { CHECK_EQ_INT(t->ndim, 0); CHECK_NEAR(tt_item(c, t), 4.75, 0, 0); }
    }
    /* wrap: no copy, both directions */
    {
        float buf[12];
        int64_t s[2] = {3, 4};
        int i;
        tt_tensor *t;
        for (i = 0; i < 12; i++) buf[i] = (float)i;
        t = tt_wrap(c, TT_F32, 2, s, buf);
        CHECK_GUARDS(c);
        CHECK(t != NULL);
        if (t) {
            int64_t idx[2] = {2, 1};
            CHECK(tt_data(t) == (void *)buf);
            CHECK(tt_is_contiguous(t));
            CHECK(tu_shape_is(t, 2, 3, 4));
            buf[9] = 42.0f;                         /* user memory written ... */
            CHECK_NEAR(tt_get(c, t, idx), 42.0, 0, 0);    /* ... is seen by the tensor */
            ((float *)tt_data(t))[3] = -8.0f;
            CHECK(buf[3] == -8.0f);
            {
                tt_tensor *tr = tt_transpose(c, t, 0, 1);   /* and by views of it */
                int64_t j[2] = {1, 2};
                CHECK_GUARDS(c);
                buf[9] = 43.0f;
                if (tr) CHECK_NEAR(tt_get(c, tr, j), 43.0, 0, 0);
            }
        }
    }
    /* errors */
    {
        int64_t s[2] = {2, 3}, neg[2] = {2, -3};
        float buf[6] = {0, 0, 0, 0, 0, 0};
        CHECK(tt_from_data(c, TT_F32, 2, s, NULL) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_from_data");
        CHECK(tt_from_data(c, TT_F32, 2, neg, buf) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_from_data");
        CHECK(tt_wrap(c, TT_F32, 2, s, NULL) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_wrap");
        CHECK(tt_wrap(c, TT_F32, 2, neg, buf) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_wrap");
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* i32 tensors hold every int32 exactly: values above 2^24 must not pass through f32. */
static void test_i32_exact_creation(void) {
    tt_ctx *c = tu_ctx();
    int64_t s3[1] = {3};
    tt_tensor *f, *a;
    CHECK(c != NULL);
    if (!c) return;
    f = tt_full(c, TT_I32, 1, s3, 16777217.0);
    CHECK_GUARDS(c);
    if (CHECK(f != NULL)) CHECK_EQ_INT(((int32_t *)tt_data(f))[2], 16777217);
    f = tt_full(c, TT_I32, 1, s3, -2147483647.0);
    CHECK_GUARDS(c);
    if (CHECK(f != NULL)) CHECK_EQ_INT(((int32_t *)tt_data(f))[0], -2147483647);
    f = tt_full(c, TT_I32, 1, s3, 123456789.0);
    CHECK_GUARDS(c);
    if (CHECK(f != NULL)) CHECK_EQ_INT(((int32_t *)tt_data(f))[1], 123456789);
    a = tt_arange(c, TT_I32, 16777216.0, 16777221.0, 1.0);
    CHECK_GUARDS(c);
    if (CHECK(a != NULL) && CHECK_EQ_INT(a->numel, 5)) {
        const int32_t *p = (const int32_t *)tt_data(a);
        int i;
        for (i = 0; i < 5; i++) CHECK_EQ_INT(p[i], 16777216 + i);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

static void test_random_determinism(void) {
    tt_ctx *c = tu_ctx(), *c2 = tu_ctx();
    int64_t s1000[1] = {1000}, s10x100[2] = {10, 100}, s1001[3] = {7, 11, 13}, s1[1] = {1};
    int kind;
    CHECK(c != NULL && c2 != NULL);
    if (!c || !c2) { tt_ctx_destroy(c); tt_ctx_destroy(c2); return; }
    for (kind = 0; kind < 2; kind++) {
        tt_tensor *(*gen)(tt_ctx *, uint64_t, int, const int64_t *) = kind ? tt_randn : tt_rand;
        tt_tensor *a = gen(c, 42, 1, s1000);
        tt_tensor *b = gen(c, 42, 1, s1000);
        tt_tensor *o = gen(c2, 42, 1, s1000);            /* another context */
        tt_tensor *d = gen(c, 43, 1, s1000);
        tt_tensor *m = gen(c, 42, 2, s10x100);
        tt_tensor *l = gen(c, 42, 3, s1001);
        tt_tensor *one = gen(c, 42, 1, s1);
        tt_tensor *big = gen(c, 0xFFFFFFFFFFFFFFFFull, 1, s1000);
        tt_tensor *zero = gen(c, 0, 1, s1000);
        CHECK_GUARDS(c);
        CHECK_GUARDS(c2);
        if (!CHECK(a && b && o && d && m && l && one && big && zero)) continue;
        CHECK_EQ_INT(a->dtype, TT_F32);
        CHECK(tu_shape_is(m, 2, 10, 100));
        CHECK(memcmp(tt_data(a), tt_data(b), 1000 * sizeof(float)) == 0);
        CHECK(memcmp(tt_data(a), tt_data(o), 1000 * sizeof(float)) == 0);
        CHECK(memcmp(tt_data(a), tt_data(m), 1000 * sizeof(float)) == 0);   /* shape does not matter */
        CHECK(memcmp(tt_data(a), tt_data(l), 1000 * sizeof(float)) == 0);   /* prefix of a longer one */
        CHECK(memcmp(tt_data(a), tt_data(one), sizeof(float)) == 0);
        {
            const float *pa = (const float *)tt_data(a), *pd = (const float *)tt_data(d);
            const float *pb = (const float *)tt_data(big), *pz = (const float *)tt_data(zero);
            int i, same = 0, same2 = 0, repeats = 0;
            for (i = 0; i < 1000; i++) {
                same += pa[i] == pd[i];
                same2 += pb[i] == pz[i];
                if (i > 0) repeats += pa[i] == pa[i - 1];
            }
            CHECK(same < 10);
            CHECK(same2 < 10);
            CHECK(repeats < 5);
        }
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(c2);
}

static void test_random_statistics(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[1] = {100000};
    const long n = 100000;
    tt_tensor *u, *g;
    CHECK(c != NULL);
    if (!c) return;
    u = tt_rand(c, 7, 1, s);
    g = tt_randn(c, 7, 1, s);
    CHECK_GUARDS(c);
    if (CHECK(u != NULL)) {
        const float *p = (const float *)tt_data(u);
        double sum = 0, sq = 0, lag = 0, mean, var;
        long i, out = 0, bins[10] = {0};
        for (i = 0; i < n; i++) {
            double x = (double)p[i];
            if (!(x >= 0.0 && x < 1.0)) { out++; continue; }
            sum += x;
            sq += x * x;
            if (i > 0) lag += (x - 0.5) * ((double)p[i - 1] - 0.5);
            bins[(int)(x * 10)]++;
        }
        mean = sum / n;
        var = sq / n - mean * mean;
        CHECK_EQ_INT(out, 0);                         /* [0, 1) */
        CHECK_NEAR(mean, 0.5, 0.006, 0);              /* sd of the mean ~0.0009 */
        CHECK_NEAR(var, 1.0 / 12.0, 0.0015, 0);       /* sd ~0.00024 */
        CHECK_NEAR(lag / n, 0.0, 0.0025, 0);          /* neighbours uncorrelated (sd ~0.00026) */
        for (i = 0; i < 10; i++) CHECK_NEAR(bins[i] / (double)n, 0.1, 0.006, 0);
    }
    if (CHECK(g != NULL)) {
        const float *p = (const float *)tt_data(g);
        double sum = 0, sq = 0, q4 = 0, c3 = 0, lag = 0, mean, var;
        long i, within1 = 0, nonfinite = 0, pos = 0;
        for (i = 0; i < n; i++) {
            double x = (double)p[i];
            if (!isfinite(x)) { nonfinite++; continue; }
            sum += x;
            sq += x * x;
            c3 += x * x * x;
            q4 += x * x * x * x;
            if (i > 0) lag += x * (double)p[i - 1];
            within1 += fabs(x) < 1.0;
            pos += x > 0;
        }
        mean = sum / n;
        var = sq / n - mean * mean;
        CHECK_EQ_INT(nonfinite, 0);
        CHECK_NEAR(mean, 0.0, 0.02, 0);               /* sd 0.0032 */
        CHECK_NEAR(var, 1.0, 0.03, 0);                /* sd 0.0045 */
        CHECK_NEAR(c3 / n, 0.0, 0.06, 0);             /* skewness: sd ~0.008 */
        CHECK_NEAR(q4 / n, 3.0, 0.15, 0);             /* kurtosis: sd ~0.03 */
        CHECK_NEAR(within1 / (double)n, 0.682689, 0.008, 0);
        CHECK_NEAR(pos / (double)n, 0.5, 0.008, 0);
        CHECK_NEAR(lag / n, 0.0, 0.02, 0);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

static void test_creation_bad_args(void) {
    tt_ctx *c = tu_ctx();
    int64_t neg[2] = {3, -1}, many[TT_MAX_DIMS + 1], ok[2] = {2, 2};
    int64_t ovf[2] = {(int64_t)1 << 62, 4};
    int i;
    float buf[4] = {0, 0, 0, 0};
    CHECK(c != NULL);
    if (!c) return;
    for (i = 0; i < TT_MAX_DIMS + 1; i++) many[i] = 1;

    CHECK(tt_empty(c, TT_F32, 2, neg) == NULL);   CHECK_ERROR(c, TT_ERR_ARG, "tt_empty");
    CHECK(tt_zeros(c, TT_F32, 2, neg) == NULL);   CHECK_ERROR(c, TT_ERR_ARG, "tt_zeros");
    CHECK(tt_ones(c, TT_I32, 2, neg) == NULL);    CHECK_ERROR(c, TT_ERR_ARG, "tt_ones");
    CHECK(tt_full(c, TT_F16, 2, neg, 1.0) == NULL); CHECK_ERROR(c, TT_ERR_ARG, "tt_full");
    CHECK(tt_rand(c, 1, 2, neg) == NULL);         CHECK_ERROR(c, TT_ERR_ARG, "tt_rand");
    CHECK(tt_randn(c, 1, 2, neg) == NULL);        CHECK_ERROR(c, TT_ERR_ARG, "tt_randn");

    CHECK(tt_zeros(c, TT_F32, TT_MAX_DIMS + 1, many) == NULL); CHECK_ERROR(c, TT_ERR_ARG, "tt_zeros");
    CHECK(tt_rand(c, 1, TT_MAX_DIMS + 1, many) == NULL);       CHECK_ERROR(c, TT_ERR_ARG, "tt_rand");
    CHECK(tt_from_data(c, TT_F32, TT_MAX_DIMS + 1, many, buf) == NULL); CHECK_ERROR(c, TT_ERR_ARG, "tt_from_data");
    CHECK(tt_zeros(c, TT_F32, -1, ok) == NULL);   CHECK_ERROR(c, TT_ERR_ARG, "tt_zeros");

    CHECK(tt_zeros(c, TT_F32, 2, NULL) == NULL);  CHECK_ERROR(c, TT_ERR_ARG, "tt_zeros");
    CHECK(tt_ones(c, TT_F32, 1, NULL) == NULL);   CHECK_ERROR(c, TT_ERR_ARG, "tt_ones");
    CHECK(tt_randn(c, 3, 2, NULL) == NULL);       CHECK_ERROR(c, TT_ERR_ARG, "tt_randn");
    CHECK(tt_wrap(c, TT_F32, 2, NULL, buf) == NULL); CHECK_ERROR(c, TT_ERR_ARG, "tt_wrap");

    /* invalid dtype value */
    CHECK(tt_zeros(c, (tt_dtype)7, 2, ok) == NULL);
    CHECK_ERROR_EITHER(c, TT_ERR_DTYPE, TT_ERR_ARG, "tt_zeros");

    /* sizes whose product overflows: an error, never a tiny allocation */
    CHECK(tt_zeros(c, TT_F32, 2, ovf) == NULL);
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_OOM, "tt_zeros");

    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------------------ access */

static void test_item(void) {
    tt_ctx *c = tu_ctx();
    int64_t s111[3] = {1, 1, 1}, s2[1] = {2}, s1[1] = {1};
    tt_tensor *t;
    float v;
    CHECK(c != NULL);
    if (!c) return;
    t = tt_full(c, TT_F32, 3, s111, -6.5);
    if (t) CHECK_NEAR(tt_item(c, t), -6.5, 0, 0);
    t = tt_full(c, TT_F16, 0, NULL, 0.1);
    if (t) CHECK_NEAR(tt_item(c, t), 0.0999755859375, 0, 0);
    t = tt_full(c, TT_BF16, 1, s1, -3.140625);
    if (t) CHECK_NEAR(tt_item(c, t), -3.140625, 0, 0);
    t = tt_full(c, TT_I32, 1, s1, 12345);
    if (t) CHECK_NEAR(tt_item(c, t), 12345.0, 0, 0);
    t = tt_ones(c, TT_BOOL, 0, NULL);
    if (t) CHECK_NEAR(tt_item(c, t), 1.0, 0, 0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    /* one element of a bigger tensor through a slice */
    {
        tt_tensor *a = tt_arange(c, TT_F32, 0, 10, 1);
        tt_tensor *sl = tt_slice(c, a, 0, 7, 8, 1);
        CHECK_GUARDS(c);
        if (sl) CHECK_NEAR(tt_item(c, sl), 7.0, 0, 0);
    }
    /* more than one element: NaN and an error */
    t = tt_ones(c, TT_F32, 1, s2);
    v = tt_item(c, t);
    CHECK(isnan(v));
    CHECK(tt_ctx_status(c) != TT_OK);
    CHECK_STR_CONTAINS(tt_error(c), "tt_item");
    CHECK_STR_CONTAINS(tt_error(c), "[2]");
    tt_clear_error(c);
    /* zero elements too */
    {
        int64_t s0[1] = {0};
        t = tt_zeros(c, TT_F32, 1, s0);
        CHECK(t != NULL);
        CHECK(isnan(tt_item(c, t)));
        CHECK(tt_ctx_status(c) != TT_OK);
        CHECK_STR_CONTAINS(tt_error(c), "tt_item");
        tt_clear_error(c);
    }
    CHECK(isnan(tt_item(c, NULL)));
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_get(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {3, 4};
    double vals[12];
    tt_tensor *t, *tr;
    int i, j;
    CHECK(c != NULL);
    if (!c) return;
    tu_uniform(vals, 12, 5, -3, 3);
    t = tu_tensor(c, 2, s, vals);
    tr = tt_transpose(c, t, 0, 1);
    CHECK_GUARDS(c);
    if (!CHECK(t && tr)) { tt_ctx_destroy(c); return; }
    for (i = -3; i < 3; i++) {
        for (j = -4; j < 4; j++) {
            int64_t idx[2], idt[2];
            int ri = i < 0 ? i + 3 : i, rj = j < 0 ? j + 4 : j;
            idx[0] = i; idx[1] = j;
            idt[0] = j; idt[1] = i;
            CHECK_NEAR(tt_get(c, t, idx), vals[ri * 4 + rj], 0, 0);
            CHECK_NEAR(tt_get(c, tr, idt), vals[ri * 4 + rj], 0, 0);
        }
    }
    CHECK_NO_ERROR(c);
    {
        int64_t bad[4][2] = {{3, 0}, {0, 4}, {-4, 0}, {0, -5}};
        for (i = 0; i < 4; i++) {
            CHECK(isnan(tt_get(c, t, bad[i])));
            CHECK_ERROR_EITHER(c, TT_ERR_INDEX, TT_ERR_ARG, "tt_get");
        }
        CHECK(isnan(tt_get(c, t, NULL)));
        CHECK(tt_ctx_status(c) != TT_OK);
        CHECK_STR_CONTAINS(tt_error(c), "tt_get");
        tt_clear_error(c);
    }
    /* i32 and f16 */
    {
        int64_t idx[1] = {-1};
        tt_tensor *a = tt_arange(c, TT_I32, 0, 9, 2);      /* 0,2,4,6,8 */
        tt_tensor *h = tt_full(c, TT_F16, 1, s, 0.333251953125);
        CHECK_GUARDS(c);
        if (a) CHECK_NEAR(tt_get(c, a, idx), 8.0, 0, 0);
        if (h) CHECK_NEAR(tt_get(c, h, idx), 0.333251953125, 0, 0);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_copy_to_f32(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {5, 7};
    double vals[35], want[35];
    float dst[40];
    tt_tensor *t, *tr;
    int i, j;
    tt_status st;
    CHECK(c != NULL);
    if (!c) return;
    tu_uniform(vals, 35, 9, -2, 2);
    t = tu_tensor(c, 2, s, vals);
    tr = tt_transpose(c, t, 0, 1);
    CHECK_GUARDS(c);
    if (!CHECK(t && tr)) { tt_ctx_destroy(c); return; }
    st = tt_copy_to_f32(c, t, dst, 35);
    CHECK_EQ_INT(st, TT_OK);
    CHECK_ALLCLOSE(dst, vals, 35, 0.0, 0.0);
    /* non-contiguous: row-major order of the view */
    for (i = 0; i < 7; i++) for (j = 0; j < 5; j++) want[i * 5 + j] = vals[j * 7 + i];
    st = tt_copy_to_f32(c, tr, dst, 35);
    CHECK_EQ_INT(st, TT_OK);
    CHECK_ALLCLOSE(dst, want, 35, 0.0, 0.0);
    CHECK_GUARDS(c);
    /* wrong n: an error, dst untouched */
    {
        int64_t ns[3] = {34, 36, 0};
        int k;
        for (k = 0; k < 3; k++) {
            int bad = 0;
            for (i = 0; i < 40; i++) dst[i] = -999.0f;
            st = tt_copy_to_f32(c, t, dst, ns[k]);
            CHECK(st != TT_OK);
            CHECK_EQ_INT(tt_ctx_status(c), st);
            CHECK_STR_CONTAINS(tt_error(c), "tt_copy_to_f32");
            if (st == TT_ERR_SHAPE) CHECK_STR_CONTAINS(tt_error(c), "[5,7]");
            tt_clear_error(c);
            for (i = 0; i < 40; i++) bad += dst[i] != -999.0f;
            CHECK_EQ_INT(bad, 0);
        }
        st = tt_copy_to_f32(c, t, NULL, 35);
        CHECK(st != TT_OK);
        CHECK_STR_CONTAINS(tt_error(c), "tt_copy_to_f32");
        tt_clear_error(c);
    }
    /* other dtypes convert */
    {
        uint16_t h[4] = {0x3C00, 0x8001, 0x7BFF, 0xFC00};
        int32_t iv[3] = {-2147483647 - 1, 16777217, 3};
        unsigned char bo[2] = {1, 0};
        int64_t s4[1] = {4}, s3[1] = {3}, s2[1] = {2};
        tt_tensor *th = tt_from_data(c, TT_F16, 1, s4, h);
        tt_tensor *tb = tt_from_data(c, TT_BF16, 1, s4, h);
        tt_tensor *ti = tt_from_data(c, TT_I32, 1, s3, iv);
        tt_tensor *to = tt_from_data(c, TT_BOOL, 1, s2, bo);
        double wh[4] = {1.0, -ldexp(1.0, -24), 65504.0, -INFINITY};
        double wb[4], wi[3] = {-2147483648.0, 16777216.0, 3.0}, wo[2] = {1, 0};
        CHECK_GUARDS(c);
        for (i = 0; i < 4; i++) wb[i] = (double)tc_u2f((uint32_t)h[i] << 16);
        if (th) { CHECK_EQ_INT(tt_copy_to_f32(c, th, dst, 4), TT_OK); CHECK_ALLCLOSE(dst, wh, 4, 0.0, 0.0); }
        if (tb) { CHECK_EQ_INT(tt_copy_to_f32(c, tb, dst, 4), TT_OK); CHECK_ALLCLOSE(dst, wb, 4, 0.0, 0.0); }
        if (ti) { CHECK_EQ_INT(tt_copy_to_f32(c, ti, dst, 3), TT_OK); CHECK_ALLCLOSE(dst, wi, 3, 0.0, 0.0); }
        if (to) { CHECK_EQ_INT(tt_copy_to_f32(c, to, dst, 2), TT_OK); CHECK_ALLCLOSE(dst, wo, 2, 0.0, 0.0); }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_contiguity_and_shape_str(void) {
    tt_ctx *c = tu_ctx();
    int64_t s23[2] = {2, 3}, s15[2] = {1, 5}, s0[2] = {0, 3}, s3[1] = {3}, s21[2] = {2, 1};
    tt_tensor *a, *b, *z, *tr, *sl_rows, *sl_cols, *sl_step, *ex, *tr1, *sc;
    char buf[64];
    CHECK(c != NULL);
    if (!c) return;
    a = tt_zeros(c, TT_F32, 2, s23);
    b = tt_zeros(c, TT_F32, 2, s15);
    z = tt_zeros(c, TT_F32, 2, s0);
    sc = tt_scalar(c, 1.0f);
    tr = tt_transpose(c, a, 0, 1);
    sl_rows = tt_slice(c, a, 0, 1, 2, 1);     /* [1,3], contiguous in memory */
    sl_cols = tt_slice(c, a, 1, 0, 2, 1);     /* [2,2], gaps */
    sl_step = tt_slice(c, a, 1, 0, 3, 2);
    ex = tt_expand(c, tt_zeros(c, TT_F32, 2, s21), 2, s23);
    tr1 = tt_transpose(c, b, 0, 1);           /* [5,1]: still in order */
    CHECK_GUARDS(c);
    if (!CHECK(a && b && z && sc && tr && sl_rows && sl_cols && sl_step && ex && tr1)) {
        tt_ctx_destroy(c); return;
    }
    CHECK(tt_is_contiguous(a));
    CHECK(tt_is_contiguous(sc));
    CHECK(!tt_is_contiguous(tr));
    CHECK(tt_is_contiguous(sl_rows));
    CHECK(!tt_is_contiguous(sl_cols));
    CHECK(!tt_is_contiguous(sl_step));
    CHECK(!tt_is_contiguous(ex));
    CHECK(tt_is_contiguous(tr1));             /* size-1 axes do not matter (PyTorch) */
    CHECK(tt_data(sl_rows) == (void *)((float *)tt_data(a) + 3));
    CHECK(tt_same_shape(a, ex));
    CHECK(!tt_same_shape(a, tr));
    CHECK(!tt_same_shape(a, sc));
    CHECK(tt_same_shape(sc, sc));

    CHECK(strcmp(tt_shape_str(a, buf, sizeof buf), "[2,3]") == 0);
    CHECK(strcmp(tt_shape_str(sc, buf, sizeof buf), "[]") == 0);
    CHECK(strcmp(tt_shape_str(tr, buf, sizeof buf), "[3,2]") == 0);
    CHECK(strcmp(tt_shape_str(z, buf, sizeof buf), "[0,3]") == 0);
    {
        tt_tensor *v = tt_zeros(c, TT_F32, 1, s3);
        if (v) CHECK(strcmp(tt_shape_str(v, buf, sizeof buf), "[3]") == 0);
    }
    {
        int64_t big[3] = {1031, 1, 12};
        tt_tensor *v = tt_empty(c, TT_BOOL, 3, big);
        if (v) CHECK(strcmp(tt_shape_str(v, buf, sizeof buf), "[1031,1,12]") == 0);
        if (v) CHECK(tt_shape_str(v, buf, sizeof buf) == buf);
        /* truncation: always NUL-terminated, never past size */
        memset(buf, 'x', sizeof buf);
        if (v) {
            tt_shape_str(v, buf, 5);
            CHECK(memchr(buf, 0, 5) != NULL);
            CHECK(strncmp(buf, "[1031", strlen(buf)) == 0);
            CHECK(buf[5] == 'x');
            memset(buf, 'x', sizeof buf);
            tt_shape_str(v, buf, 1);
            CHECK(buf[0] == 0 && buf[1] == 'x');
        }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(core) = {
    {"version_status_dtype", test_version_status_dtype},
    {"f16_known_values", test_f16_known_values},
    {"f16_exhaustive", test_f16_exhaustive},
    {"bf16_known_values", test_bf16_known_values},
    {"f16_bf16_random_rounding", test_f16_bf16_random_rounding},
    {"ctx_basics", test_ctx_basics},
    {"ctx_blocks_and_allocator", test_ctx_blocks_and_allocator},
    {"ctx_heap_oom", test_ctx_heap_oom},
    {"sticky_errors", test_sticky_errors},
    {"scope_constant_memory", test_scope_constant_memory},
    {"scope_nested_and_big", test_scope_nested_and_big},
    {"user_buffer", test_user_buffer},
    {"user_buffer_too_small", test_user_buffer_too_small},
    {"debug_guards_detect", test_debug_guards_detect},
    {"zeros_ones_full", test_zeros_ones_full},
    {"scalar", test_scalar},
    {"arange", test_arange},
    {"linspace", test_linspace},
    {"eye", test_eye},
    {"from_data_and_wrap", test_from_data_and_wrap},
    {"i32_exact_creation", test_i32_exact_creation},
    {"random_determinism", test_random_determinism},
    {"random_statistics", test_random_statistics},
    {"creation_bad_args", test_creation_bad_args},
    {"item", test_item},
    {"get", test_get},
    {"copy_to_f32", test_copy_to_f32},
    {"contiguity_and_shape_str", test_contiguity_and_shape_str},
    {NULL, NULL}
};
