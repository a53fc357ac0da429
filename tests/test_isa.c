/* test_isa.c - choosing the kernels' ISA: names, caps, what the CPU has (read from
   /proc/cpuinfo, independently of the library's CPUID check), proof that the SIMD kernels
   run in this plain -O2 build, and graphs that keep the ISA of the context they were
   traced on. The suite itself runs once per ISA (tests/test_main.c). */
#include "test_util.h"
#include <stdio.h>

static const char *const isa_names[] = {"avx512", "avx2", "neon", "scalar"};

/* Two strings are equal (both printed when not). */
#define CHECK_STR_EQ(got, want) (void)(CHECK_STR_CONTAINS((got), (want)) && CHECK(strlen(got) == strlen(want)))

static tt_ctx *isa_ctx(const char *isa) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.isa = isa;
    return tt_ctx_create(&d);
}

/* Rank of a name in the cap order (scalar < neon < avx2 < avx512), -1 for none. */
static int isa_rank(const char *name) {
    static const char *const order[] = {"scalar", "neon", "avx2", "avx512"};
    int i;
    for (i = 0; i < 4; i++) if (strcmp(order[i], name) == 0) return i;
    return -1;
}

static void test_isa_names_and_caps(void) {
    size_t i;
    CHECK(tt_ctx_isa(NULL) == NULL);
    CHECK_STR_EQ(tu_isa_of_capped("scalar"), "scalar");
    CHECK_STR_EQ(tu_isa_of_capped("avx3"), "(null ctx)");   /* not a name: no context */
    CHECK_STR_EQ(tu_isa_of_capped(""), "(null ctx)");
    for (i = 0; i < sizeof isa_names / sizeof isa_names[0]; i++) {
        const char *got = tu_isa_of_capped(isa_names[i]);
        CHECK(isa_rank(got) >= 0 && isa_rank(got) <= isa_rank(isa_names[i]));   /* a cap, never above */
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(TT_NO_SIMD)
#define ISA_X86_DISPATCH 1             /* the header dispatches at run time (>>isa) */
#else
#define ISA_X86_DISPATCH 0
#endif

#if ISA_X86_DISPATCH
/* What /proc/cpuinfo's flags line says the best ISA is ("" when it cannot be read). On
   x86-64 the kernels need the OS to save the wide registers; Linux lists avx2 and the
   avx512 flags only when it does. */
static const char *isa_from_cpuinfo(void) {
    static char line[8192];
    FILE *f = fopen("/proc/cpuinfo", "r");
    const char *best = "";
    if (!f) return best;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        best = "scalar";
        if (strstr(line, " avx2") && strstr(line, " fma")) best = "avx2";
        if (strstr(line, " avx512f") && strstr(line, " avx512bw") && strstr(line, " avx512dq") &&
            strstr(line, " avx512vl"))
            best = "avx512";
        break;
    }
    fclose(f);
    return best;
}
#endif

/* A plain `cc -O2` build (this suite's C99 build has no -m flags) runs the best kernels
   the CPU has: dispatch needs no flag. */
static void test_isa_best_of_cpu(void) {
#if ISA_X86_DISPATCH
    const char *want = isa_from_cpuinfo();
    if (want[0]) CHECK_STR_EQ(tu_isa_of_capped("avx512"), want);
    else CHECK(isa_rank(tu_isa_of_capped("avx512")) >= 0);
#elif defined(__aarch64__) && !defined(TT_NO_SIMD)
    CHECK_STR_EQ(tu_isa_of_capped("avx512"), "neon");   /* NEON is the aarch64 baseline */
#else
    CHECK_STR_EQ(tu_isa_of_capped("avx512"), "scalar");
#endif
}

/* C = A*B (96 x 96 x 96, the packed path's size) on a context capped at isa. */
static float *isa_matmul(const char *isa, const double *va, const double *vb) {
    tt_ctx *c = isa_ctx(isa);
    int64_t s[2] = {96, 96};
    float *out = tu_values(c, tt_matmul(c, tu_tensor(c, 2, s, (double *)va), tu_tensor(c, 2, s, (double *)vb)));
    tt_ctx_destroy(c);
    return out;
}

/* Which kernels ran: the SIMD SGEMM rounds each multiply-add once (FMA), plain C twice, so
   a context of a SIMD ISA gives other bits than a scalar one, both within the error bound
   of the double reference. (Not in a build with -mavx2 or -march flags: there the plain C
   twins are compiled with FMA too.) */
static void test_isa_simd_kernels_ran(void) {
    double va[96 * 96], vb[96 * 96];
    float *simd, *plain;
    int64_t e, differ = 0, bad = 0;
    const char *best = tu_isa_of_capped("avx512");
    tu_uniform(va, 96 * 96, 41, -1, 1);
    tu_uniform(vb, 96 * 96, 42, -1, 1);
    simd = isa_matmul(best, va, vb);
    plain = isa_matmul("scalar", va, vb);
    if (CHECK(simd && plain)) {
        for (e = 0; e < 96 * 96; e++) {
            double ref = 0, bound = 0;
            int64_t k;
            for (k = 0; k < 96; k++) {
                ref += va[e / 96 * 96 + k] * vb[k * 96 + e % 96];
                bound += fabs(va[e / 96 * 96 + k] * vb[k * 96 + e % 96]);
            }
            if (!(fabs(simd[e] - ref) <= 2e-6 * bound) || !(fabs(plain[e] - ref) <= 2e-6 * bound)) bad++;
            if (memcmp(&simd[e], &plain[e], sizeof(float)) != 0) differ++;
        }
        CHECK_EQ_INT(bad, 0);
#if !defined(__AVX2__) && !defined(__FMA__) && !defined(__ARM_FEATURE_FMA)
        if (strcmp(best, "scalar") != 0) CHECK(differ > 0);   /* the FMA kernel ran */
        else CHECK_EQ_INT(differ, 0);
#endif
    }
    free(simd);
    free(plain);
}

/* A graph traced on a context capped at scalar keeps plain C whatever TT_ISA says (the
   suite runs this under every ISA): its constant folding, its runs and tt_graph_check
   compute as its eager ops did, so compiled equals eager bitwise. */
static void test_isa_graph_keeps_isa(void) {
    tt_ctx *c = isa_ctx("scalar");
    int64_t sx[2] = {64, 96}, sw[2] = {96, 96};
    double vx[64 * 96], vw[96 * 96];
    tt_tensor *x, *w, *y, *eager;
    tt_graph *g;
    tu_uniform(vx, 64 * 96, 7, -1, 1);
    tu_uniform(vw, 96 * 96, 8, -1, 1);
    x = tu_tensor(c, 2, sx, vx);
    w = tu_tensor(c, 2, sw, vw);
    eager = tt_relu(c, tt_linear(c, x, tt_mul_scalar(c, w, 0.5f), NULL));
    CHECK(tt_trace_begin(c) == TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_relu(c, tt_linear(c, x, tt_mul_scalar(c, tu_tensor(c, 2, sw, vw), 0.5f), NULL));   /* a folded constant */
    g = tt_trace_end(c, &y, 1);
    if (CHECK(g != NULL)) {
        CHECK(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) == TT_OK);
        CHECK(tt_graph_run(g, &x, 1) == TT_OK);
        CHECK_SAME_BITS(c, tt_graph_output(g, 0), eager);
        CHECK_STR_EQ(tt_graph_get_stats(g).isa, "scalar");
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(isa) = {
    {"names_and_caps", test_isa_names_and_caps},
    {"best_of_cpu", test_isa_best_of_cpu},
    {"simd_kernels_ran", test_isa_simd_kernels_ran},
    {"graph_keeps_isa", test_isa_graph_keeps_isa},
    {NULL, NULL}
};
