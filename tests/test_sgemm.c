/* test_sgemm.c - white-box tests of the packed SGEMM: it calls the packed path (through
   tests/tt_hooks.h) with the micro-kernel of each ISA the CPU has (a context capped at that
   ISA), the plain-C twin always. References are double loops. */
#include "test_util.h"
#include "tt_hooks.h"

/* The ISAs, the plain-C twin first. */
static const char *const sg_isas[] = {"scalar", "neon", "avx2", "avx512"};
#define SG_N_ISAS ((int)(sizeof sg_isas / sizeof sg_isas[0]))

/* C = A*B in double, A(i,k) = A[i*sam + k*sak], B(k,j) = B[k*sbk + j*sbn]; bound[i*N+j] = sum |a*b|. */
static void sg_reference(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                         const float *B, int64_t sbk, int64_t sbn, double *C, double *bound) {
    int64_t i, j, k;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double s = 0, b = 0;
            for (k = 0; k < K; k++) {
                double t = (double)A[i * sam + k * sak] * (double)B[k * sbk + j * sbn];
                s += t;
                b += fabs(t);
            }
            C[i * N + j] = s;
            bound[i * N + j] = b;
        }
}

static float *sg_random(int64_t n, unsigned long long seed) {
    double *d = (double *)malloc(sizeof(double) * (size_t)n);
    float *f = (float *)malloc(sizeof(float) * (size_t)n);
    int64_t i;
    tu_uniform(d, n, seed, -1.0, 1.0);
    for (i = 0; i < n; i++) f[i] = (float)d[i];
    free(d);
    return f;
}

/* A context whose kernels are those of ISA isa (NULL when the CPU lacks it), n_threads threads. */
static tt_ctx *sg_ctx(const char *isa, int n_threads) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    d.isa = isa;
    d.n_threads = n_threads;
    c = tt_ctx_create(&d);
    if (c && strcmp(tt_ctx_isa(c), isa) != 0) {
        tt_ctx_destroy(c);
        return NULL;
    }
    return c;
}

/* Runs the packed path with the kernels of c on one shape (A and B optionally transposed) and
   checks every element against the double reference within 2e-6 * sum|a*b|; the sums
   sum|a*b| go to bound_out when it is not NULL. */
static void sg_check_shape(tt_ctx *c, int64_t M, int64_t N, int64_t K, bool ta, bool tb, float *out, double *bound_out) {
    float *A = sg_random(M * K, (unsigned long long)(M * 7 + K)), *B = sg_random(K * N, (unsigned long long)(N * 3 + K));
    double *ref = (double *)malloc(sizeof(double) * (size_t)(M * N)), *bound = (double *)malloc(sizeof(double) * (size_t)(M * N));
    int64_t sam = ta ? 1 : K, sak = ta ? M : 1, sbk = tb ? 1 : N, sbn = tb ? K : 1, e, bad = 0;
    sg_reference(M, N, K, A, sam, sak, B, sbk, sbn, ref, bound);
    CHECK(tt_hook_sgemm_packed(c, M, N, K, A, sam, sak, B, sbk, sbn, out));
    for (e = 0; e < M * N; e++) if (!(fabs(out[e] - ref[e]) <= 2e-6 * bound[e] + 1e-30)) bad++;
    if (!CHECK_EQ_INT(bad, 0)) printf("    shape %lldx%lldx%lld ta=%d tb=%d\n", (long long)M, (long long)N, (long long)K, ta, tb);
    if (bound_out) memcpy(bound_out, bound, sizeof(double) * (size_t)(M * N));
    free(A); free(B); free(ref); free(bound);
}

static const int64_t sg_shapes[][3] = {
    {1, 1, 1}, {7, 33, 5}, {8, 32, 64}, {13, 47, 300}, {64, 64, 64}, {100, 70, 513}, {257, 129, 1000}, {3, 1000, 17},
    {16, 16, 40}, {24, 80, 100}     /* last slivers of exactly 16 and 32 columns: the narrow kernels */
};

static void test_sgemm_c_twin(void) {
    tt_ctx *c = sg_ctx("scalar", 0);
    size_t s;
    int t;
    for (s = 0; s < sizeof sg_shapes / sizeof sg_shapes[0]; s++)
        for (t = 0; t < 4; t++) {
            float *out = (float *)malloc(sizeof(float) * (size_t)(sg_shapes[s][0] * sg_shapes[s][1]));
            sg_check_shape(c, sg_shapes[s][0], sg_shapes[s][1], sg_shapes[s][2], (t & 1) != 0, (t & 2) != 0, out, NULL);
            free(out);
            CHECK_GUARDS(c);
        }
    tt_ctx_destroy(c);
}

/* The micro-kernel of every other ISA the CPU has against the reference, and against the C
   twin (FMA rounds once, so they agree within the same error bound, not bit for bit). */
static void test_sgemm_simd_vs_twin(void) {
    tt_ctx *twin = sg_ctx("scalar", 0);
    size_t s;
    int isa, t;
    for (isa = 1; isa < SG_N_ISAS; isa++) {
        tt_ctx *c = sg_ctx(sg_isas[isa], 0);
        if (!c) continue;                              /* not on this CPU (or in this build) */
        for (s = 0; s < sizeof sg_shapes / sizeof sg_shapes[0]; s++)
            for (t = 0; t < 4; t++) {
                int64_t M = sg_shapes[s][0], N = sg_shapes[s][1], K = sg_shapes[s][2], e, bad = 0;
                float *o1 = (float *)malloc(sizeof(float) * (size_t)(M * N)), *o2 = (float *)malloc(sizeof(float) * (size_t)(M * N));
                double *bound = (double *)malloc(sizeof(double) * (size_t)(M * N));
                sg_check_shape(c, M, N, K, (t & 1) != 0, (t & 2) != 0, o1, NULL);
                sg_check_shape(twin, M, N, K, (t & 1) != 0, (t & 2) != 0, o2, bound);
                for (e = 0; e < M * N; e++) if (!(fabs(o1[e] - o2[e]) <= 4e-6 * bound[e] + 1e-30)) bad++;
                if (!CHECK_EQ_INT(bad, 0)) printf("    isa %s\n", sg_isas[isa]);
                free(o1); free(o2); free(bound);
            }
        CHECK_GUARDS(c);
        tt_ctx_destroy(c);
    }
    tt_ctx_destroy(twin);
}

/* Bitwise the same result for 1, 2, 3 and 7 threads (the packed path's tasks are rows). */
static void test_sgemm_threads_bitwise(void) {
    int64_t M = 150, N = 90, K = 700;
    float *A = sg_random(M * K, 11), *B = sg_random(K * N, 12);
    float *ref = (float *)malloc(sizeof(float) * (size_t)(M * N)), *out = (float *)malloc(sizeof(float) * (size_t)(M * N));
    int threads[4] = {1, 2, 3, 7}, i;
    for (i = 0; i < 4; i++) {
        tt_ctx_desc d = tt_ctx_desc_default();
        tt_ctx *c;
        d.n_threads = threads[i];
        c = tt_ctx_create(&d);
        CHECK(tt_hook_sgemm_packed(c, M, N, K, A, K, 1, B, N, 1, i == 0 ? ref : out));
        if (i > 0) CHECK(memcmp(ref, out, sizeof(float) * (size_t)(M * N)) == 0);
        tt_ctx_destroy(c);
    }
    free(A); free(B); free(ref); free(out);
}

/* The blocks come from the cache sizes and keep the kernel's alignment needs. */
static void test_sgemm_blocking(void) {
    int isa;
    for (isa = 0; isa < SG_N_ISAS; isa++) {
        tt_hook_tile b;
        if (!tt_hook_gemm_tile(sg_isas[isa], &b)) {
            CHECK(isa != 0);                           /* the plain-C table is always there */
            continue;
        }
        CHECK(b.mr <= b.mr_max && b.nr <= b.nr_max);
        CHECK(b.kc >= 64 && b.kc <= 512 && b.kc % 8 == 0);
        CHECK(b.mc >= b.mr && b.mc % b.mr == 0);
        CHECK(b.nc >= b.nr && b.nc % b.nr == 0);
    }
}

/* The public op on a size that takes the packed path in SIMD builds. */
static void test_sgemm_through_matmul(void) {
    tt_ctx *c = tu_ctx();
    int64_t sa[2] = {96, 200}, sb[2] = {200, 130}, e, bad = 0;
    double *va = (double *)malloc(sizeof(double) * 96 * 200), *vb = (double *)malloc(sizeof(double) * 200 * 130);
    tt_tensor *a, *b, *y;
    float *got;
    tu_uniform(va, 96 * 200, 5, -1, 1);
    tu_uniform(vb, 200 * 130, 6, -1, 1);
    a = tu_tensor(c, 2, sa, va);
    b = tu_tensor(c, 2, sb, vb);
    y = tt_matmul(c, a, tt_contiguous(c, tt_transpose(c, tt_transpose(c, b, 0, 1), 0, 1)));
    CHECK_GUARDS(c);
    got = tu_values(c, y);
    if (CHECK(got != NULL)) {
        for (e = 0; e < 96 * 130; e++) {
            int64_t i = e / 130, j = e % 130, k;
            double s = 0, bd = 0;
            for (k = 0; k < 200; k++) { s += va[i * 200 + k] * vb[k * 130 + j]; bd += fabs(va[i * 200 + k] * vb[k * 130 + j]); }
            if (!(fabs(got[e] - s) <= 2e-6 * bd)) bad++;
        }
        CHECK_EQ_INT(bad, 0);
    }
    free(got); free(va); free(vb);
    tt_ctx_destroy(c);
}

/* The run copy of im2col and the depthwise phases, d[q] = r[q*s], of every ISA: runs of 0-40
   floats, strides 1-3 (stride 2 permutes in the AVX-512 twin), the source an allocation of
   exactly the floats the run reads (ASan sees a read past it), nothing written past d[n-1]. */
static void test_sgemm_copy_run(void) {
    int i, s, n, q;
    for (i = 0; i < SG_N_ISAS; i++)
        for (s = 1; s <= 3; s++)
            for (n = 0; n <= 40; n++) {
                int64_t len = n > 0 ? (int64_t)(n - 1) * s + 1 : 1;
                float *r = (float *)malloc(sizeof(float) * (size_t)len), d[41];
                int64_t bad = 0;
                for (q = 0; q < len; q++) r[q] = (float)(q * 3 + 1);
                for (q = 0; q <= 40; q++) d[q] = -1.0f;
                if (!tt_hook_copy_run(sg_isas[i], d, r, s, n)) { free(r); break; }
                for (q = 0; q < n; q++) bad += d[q] != (float)(q * s * 3 + 1);
                for (q = n; q <= 40; q++) bad += d[q] != -1.0f;
                if (!CHECK_EQ_INT(bad, 0)) printf("  isa %s, stride %d, n %d\n", sg_isas[i], s, n);
                free(r);
            }
}

TT_TEST_GROUP(sgemm) = {
    {"copy_run", test_sgemm_copy_run},
    {"c_twin", test_sgemm_c_twin},
    {"simd_vs_twin", test_sgemm_simd_vs_twin},
    {"threads_bitwise", test_sgemm_threads_bitwise},
    {"blocking", test_sgemm_blocking},
    {"through_matmul", test_sgemm_through_matmul},
    {NULL, NULL}
};
