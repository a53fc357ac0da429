/* build: cc -std=c99 -O2 -march=native -I.. bench_eager.c -lm -lpthread   (or: make bench)

   bench_eager - how fast the eager ops are, measured against what this machine can do.
   First plain-C references, on one core:
     triad     a[i] = b[i] + s*c[i] on 16M floats: the streaming memory bandwidth (GB/s);
     add, new output   a = malloc(...); a[i] = b[i] + c[i]: the same traffic plus what fresh
               memory costs (page faults), which every eager op that makes a new tensor pays;
     fma peak  independent multiply-add chains in registers: the f32 compute peak (GFLOP/s).
   Then tinytrace's eager ops: an add and an 8-op elementwise chain on 16M floats (GB/s and the
   ratio to the triad), and square matmuls of 256 and 512 (GFLOP/s and % of the measured peak).
   Each figure is the median of RUNS timed runs after WARMUP untimed ones. The 8-op chain is
   reported twice: with the bytes eager mode moves (every op reads and writes memory), and as if
   it were one pass (read x, write y), the traffic a fused kernel would have. */
#define _POSIX_C_SOURCE 199309L
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WARMUP 2
#define RUNS   9
#define BIG    ((int64_t)16 * 1024 * 1024)     /* elements of the elementwise benchmarks */

/* GCC at -O2 keeps the FMA accumulators in memory (it does not peel the inner loop) and does
   not vectorize loops that need alias checks; the reference kernels ask it for -O3 so that
   the plain C loops become vector code with the accumulators in registers. */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_HOT __attribute__((optimize("O3")))
#else
#define BENCH_HOT
#endif

/* Enough accumulators to hide FMA latency: 8 vector registers' worth. */
#if defined(__AVX512F__)
#define FMA_ACC 128
#else
#define FMA_ACC 64
#endif

static double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_median(double *t, int n) {
    qsort(t, (size_t)n, sizeof(double), bench_cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

BENCH_HOT static void bench_triad_kernel(float *a, const float *b, const float *c, float s, int64_t n) {
    for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

/* The same add as tt_add, into a freshly allocated output: what an eager op pays for new memory. */
BENCH_HOT static float bench_add_fresh(const float *b, const float *c, int64_t n) {
    float *a = (float *)malloc((size_t)n * sizeof(float)), r;
    if (!a) return 0.0f;
    for (int64_t i = 0; i < n; i++) a[i] = b[i] + c[i];
    r = a[n / 2];
    free(a);
    return r;
}

BENCH_HOT static float bench_fma_kernel(long iters, float m, float add) {
    float acc[FMA_ACC];
    float sum = 0.0f;
    for (int j = 0; j < FMA_ACC; j++) acc[j] = (float)j * 1e-3f;
    for (long it = 0; it < iters; it++)
        for (int j = 0; j < FMA_ACC; j++) acc[j] = fmaf(acc[j], m, add);
    for (int j = 0; j < FMA_ACC; j++) sum += acc[j];
    return sum;
}

/* ---- the eager workloads: each returns its result (NULL on error) ---- */
typedef struct bench_io { tt_ctx *c; tt_tensor *x, *y, *a, *b; } bench_io;

static tt_tensor *bench_add(bench_io *io) { return tt_add(io->c, io->x, io->y); }

static tt_tensor *bench_chain8(bench_io *io) {
    tt_ctx *c = io->c;
    tt_tensor *t = tt_add_scalar(c, io->x, 1.0f);
    t = tt_mul_scalar(c, t, 0.5f);
    t = tt_relu(c, t);
    t = tt_mul(c, t, io->x);
    t = tt_sub_scalar(c, t, 0.25f);
    t = tt_abs(c, t);
    t = tt_add(c, t, io->x);
    return tt_neg(c, t);
}

static tt_tensor *bench_matmul(bench_io *io) { return tt_matmul(io->c, io->a, io->b); }

/* Median seconds of one workload; every run sits in a scope, so memory does not grow. */
static double bench_eager(bench_io *io, tt_tensor *(*fn)(bench_io *)) {
    double t[RUNS];
    for (int r = 0; r < WARMUP + RUNS; r++) {
        tt_scope s = tt_scope_begin(io->c);
        double t0 = bench_now();
        tt_tensor *out = fn(io);
        double dt = bench_now() - t0;
        tt_scope_end(io->c, s);
        if (!out) return -1.0;
        if (r >= WARMUP) t[r - WARMUP] = dt;
    }
    return bench_median(t, RUNS);
}

/* A cheap sanity check, so that a broken op is not timed as a fast one: one element of the
   result against a plain C computation from the inputs. */
static int bench_check(bench_io *io, tt_tensor *(*fn)(bench_io *), int kind) {
    tt_scope s = tt_scope_begin(io->c);
    tt_tensor *out = fn(io);
    int64_t i1[1] = {12345}, i2[2] = {7, 9};
    double want = 0.0, got;
    if (!out) { tt_scope_end(io->c, s); return 0; }
    if (kind == 0) {                                      /* add: x + y */
        want = (double)tt_get(io->c, io->x, i1) + tt_get(io->c, io->y, i1);
        got = tt_get(io->c, out, i1);
    } else {                                              /* matmul: row 7 of a . column 9 of b */
        for (int64_t k = 0; k < io->a->shape[1]; k++) {
            int64_t ia[2] = {7, k}, ib[2] = {k, 9};
            want += (double)tt_get(io->c, io->a, ia) * tt_get(io->c, io->b, ib);
        }
        got = tt_get(io->c, out, i2);
    }
    tt_scope_end(io->c, s);
    if (fabs(got - want) <= 1e-4 * (1.0 + fabs(want))) return 1;
    printf("CHECK FAILED: result element is %g, plain C gives %g\n", got, want);
    return 0;
}

static void bench_row(const char *name, const char *shape, double sec, double bytes, double flops,
                      double triad_gbs, double peak_gflops) {
    printf("%-28s %-13s %9.3f", name, shape, sec * 1e3);
    if (bytes > 0) printf(" %9.1f %8.2fx", bytes / sec * 1e-9, bytes / sec * 1e-9 / triad_gbs);
    else           printf(" %9s %9s", "", "");
    if (flops > 0) printf(" %9.1f %7.1f%%", flops / sec * 1e-9, 100.0 * flops / sec * 1e-9 / peak_gflops);
    printf("\n");
}

int main(void) {
    double t[RUNS], triad_s, fresh_s, fma_s, triad_gbs, peak, sec;
    const double nb = (double)BIG * sizeof(float);           /* bytes of one 16M-float array */
    const long fma_iters = 2000000;
    float *a = (float *)malloc((size_t)BIG * sizeof(float));
    float *b = (float *)malloc((size_t)BIG * sizeof(float));
    float *cc = (float *)malloc((size_t)BIG * sizeof(float));
    volatile float keep = 0.0f, vm = 0.99999f, va = 1e-6f;
    int64_t big[1] = {BIG}, m256[2] = {256, 256}, m512[2] = {512, 512};
    tt_ctx_desc desc_one = tt_ctx_desc_default();
    tt_ctx *c;
    desc_one.n_threads = 1;                            /* compared with the 1-thread C loops and peak */
    c = tt_ctx_create(&desc_one);
    bench_io io;
    if (!a || !b || !cc || !c) { printf("out of memory\n"); return 1; }

    /* plain C references */
    for (int64_t i = 0; i < BIG; i++) { a[i] = 0.0f; b[i] = (float)(i & 1023); cc[i] = 1.0f; }
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t0 = bench_now();
        bench_triad_kernel(a, b, cc, 3.0f, BIG);
        if (r >= WARMUP) t[r - WARMUP] = bench_now() - t0;
        keep += a[r];
    }
    triad_s = bench_median(t, RUNS);
    triad_gbs = 3.0 * nb / triad_s * 1e-9;
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t0 = bench_now();
        keep += bench_add_fresh(b, cc, BIG);
        if (r >= WARMUP) t[r - WARMUP] = bench_now() - t0;
    }
    fresh_s = bench_median(t, RUNS);
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t0 = bench_now();
        keep += bench_fma_kernel(fma_iters, vm, va);
        if (r >= WARMUP) t[r - WARMUP] = bench_now() - t0;
    }
    fma_s = bench_median(t, RUNS);
    peak = 2.0 * FMA_ACC * (double)fma_iters / fma_s * 1e-9;
    free(a); free(b); free(cc);

    printf("tinytrace %s eager benchmark: 1 thread, median of %d runs after %d warm-up runs\n\n",
           tt_version(), RUNS, WARMUP);
    printf("%-28s %-13s %9s %9s %9s %9s %8s\n", "workload", "shape", "ms", "GB/s", "vs triad",
           "GFLOP/s", "% peak");
    bench_row("plain C triad", "16M", triad_s, 3.0 * nb, 0, triad_gbs, peak);
    bench_row("plain C add, new output", "16M", fresh_s, 3.0 * nb, 0, triad_gbs, peak);
    bench_row("plain C fma peak", "-", fma_s, 0, 2.0 * FMA_ACC * (double)fma_iters, triad_gbs, peak);

    io.c = c;
    io.x = tt_randn(c, 1, 1, big);
    io.y = tt_randn(c, 2, 1, big);
    if (!bench_check(&io, bench_add, 0)) goto fail;
    sec = bench_eager(&io, bench_add);
    if (sec < 0) goto fail;
    bench_row("tt_add", "16M", sec, 3.0 * nb, 0, triad_gbs, peak);
    sec = bench_eager(&io, bench_chain8);
    if (sec < 0) goto fail;
    bench_row("8-op chain, eager traffic", "16M", sec, 18.0 * nb, 0, triad_gbs, peak);
    bench_row("8-op chain, as one pass", "16M", sec, 2.0 * nb, 0, triad_gbs, peak);

    io.a = tt_randn(c, 3, 2, m256);
    io.b = tt_randn(c, 4, 2, m256);
    if (!bench_check(&io, bench_matmul, 1)) goto fail;
    sec = bench_eager(&io, bench_matmul);
    if (sec < 0) goto fail;
    bench_row("tt_matmul", "256x256x256", sec, 0, 2.0 * 256 * 256 * 256, triad_gbs, peak);
    io.a = tt_randn(c, 5, 2, m512);
    io.b = tt_randn(c, 6, 2, m512);
    if (!bench_check(&io, bench_matmul, 1)) goto fail;
    sec = bench_eager(&io, bench_matmul);
    if (sec < 0) goto fail;
    bench_row("tt_matmul", "512x512x512", sec, 0, 2.0 * 512 * 512 * 512, triad_gbs, peak);

    printf("\nGB/s counts bytes read + written (the 8-op chain moves 18 arrays of 64 MiB eagerly).\n");
    tt_ctx_destroy(c);
    return keep == 12345.0f;   /* keeps the reference loops from being optimized away */

fail:
    printf("error: %s\n", tt_error(c) ? tt_error(c) : "(wrong result)");
    tt_ctx_destroy(c);
    return 1;
}
