/* bench.c - tinytrace's benchmark suite: one table of what this machine can do and how close
   tinytrace's eager ops and compiled graphs come to it.

   Build and run: make bench   (gcc -std=c99 -O2, no -march: built the way a user drops in the
                                 header, tinytrace picks its kernels at run time; 30 s to 70 s
                                 on 2 busy cores)
       make bench-native                      the same built with -march=native
       make bench BENCH_ARGS="sgemm chain"   only the workloads whose name contains a word
       ./build/bench_suite [SUBSTRING...]     the same, run by hand from the repository root
       BENCH_QUICK=1                          3 to 5 short runs of everything (a smoke test)
       BENCH_CSV=path                         where the CSV goes (default bench/out/results.csv)
       TT_ISA=avx2 or scalar                  caps the ISA the workloads run (not the peaks)

   What it measures, in this order:
   1. The machine's limits (mode "machine"): the fp32 FMA peak of each instruction set the CPU
      has (avx512, avx2, scalar: one float per instruction), with independent multiply-add
      chains that stay in registers, and the streaming bandwidth of a triad
      a[i] = b[i] + s*c[i] on arrays larger than the L3 cache.
   2. Workloads, each eager (tinytrace ops, one scope per run so memory is reused) and compiled
      (traced once, then run as a graph), on 1 thread and on every online core: square SGEMM,
      a 9-op elementwise chain (also against plain C loops, and as the C that tt_graph_export_c
      writes for it), SimpleCNN, an MLP, a transformer encoder layer, AlexNet, and a chain of
      1000 tiny ops that measures per-op overhead.
   3. A summary of ratios.

   "compiled" is what a user would run for inference: the graph compiled with
   TT_MODE_REDUCE_OVERHEAD and TT_PASS_ALL | TT_PASS_FREEZE (weights frozen into the graph, so
   batch norm folds into the convolution before it), the input bound once with tt_graph_bind,
   and each run is tt_graph_run(g, NULL, 0). "compiled_autotune" (the CNNs) is the same in
   TT_MODE_MAX_AUTOTUNE, where large 3x3 convolutions take Winograd F(2x2, 3x3) (within float
   rounding of eager, not bitwise). Every compiled graph is checked once against the
   eager result (the note column shows the largest difference relative to the largest eager
   value); beyond 1e-3 the program stops with an error, so a broken path is never timed.

   Each figure: warm-up runs, then the median and p95 (nearest rank) of 7 to 21 timed runs
   (up to 101 for runs under a millisecond, 5 to 9 for the slow ones), clock_gettime
   (CLOCK_MONOTONIC). The rows of one workload (eager, compiled, C loops; 1 and all threads)
   are timed in rounds, one run of each in turn, so that a burst of another program's work on
   this shared machine slows them alike and their ratios hold; the load average printed at
   the start and the end tells how shared the machine was. Compare figures within one run.

   Columns: gflops from FLOP counts (2 x multiply-adds for matrix products and layers; the chain
   counts its 9 ops per element, the work inside tanh and sigmoid not counted); gbytes_s where
   a byte count is meaningful (the triad: 12 bytes per element; the chain: 8 bytes per element,
   one read and one write, for every mode so that they compare); pct_of_peak against the FMA
   peak of the row's isa (compute rows) or the triad (bandwidth rows) at the same thread
   count, each taken from its fastest run (a limit is what the machine does when nothing else
   runs; the machine rows themselves show medians, so they can read below 100). The chain rows
   use the triad: an elementwise op is expected to be memory-bound, and a low figure says it
   is not. isa: what the row's code ran: the peak kernel's ISA (machine rows), the context's
   (tt_ctx_isa: eager and compiled rows), or "compiler" (plain C loops: the triad, c_loop).
   The scalar peak is one float per instruction, but the compiler vectorizes tinytrace's
   plain-C twins for the build's baseline (SSE2 without -march), so scalar rows can pass 100.
   dispatch_1000: median_ms is the time of all 1000 ops; the note gives microseconds per op
   (eager) or per node left after compilation (compiled, compiled_nofuse). */
#define _POSIX_C_SOURCE 200809L
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The SIMD FMA peak kernels this build has. GCC and clang on x86-64 compile both in every
   build through target attributes, as tinytrace compiles its kernels, so a plain -O2 build
   still measures the peaks; each runs only where the CPU has it (fma_cpu_has). Other
   compilers: those the flags enable. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define FMA_HAS_AVX512 1
#define FMA_HAS_AVX2 1
#define FMA_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define FMA_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#if defined(__AVX512F__)
#define FMA_HAS_AVX512 1
#else
#define FMA_HAS_AVX512 0
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define FMA_HAS_AVX2 1
#else
#define FMA_HAS_AVX2 0
#endif
#define FMA_TARGET_AVX512
#define FMA_TARGET_AVX2
#endif
#if FMA_HAS_AVX512 || FMA_HAS_AVX2
#include <immintrin.h>
#endif

#include "bench_util.h"
#include "bench_models.h"

static int bench_threads_all;            /* online cores */
static tt_ctx *bench_ctx[2];             /* [0]: 1 thread, [1]: every online core */
static int bench_n_tcfg;                 /* 2, or 1 on a one-core machine */
static char **bench_filters;
static int bench_n_filters;

/* Whether a workload runs: no arguments, or one of them is part of its name. */
static int bench_selected(const char *name) {
    int i;
    if (bench_n_filters == 0) return 1;
    for (i = 0; i < bench_n_filters; i++)
        if (strstr(name, bench_filters[i])) return 1;
    return 0;
}

/* ==== 1. machine limits ============================================================================ */

/* Independent accumulators: the FMA units (2 per core, 4 cycles of latency on recent x86)
   need at least 8 multiply-adds in flight. 12 fit in AVX2's 16 registers; AVX-512 gets 24
   (of 32), because on this machine 12 chains measured 10-20% below what the SGEMM kernel
   (24 accumulators) reaches. */
#define FMA_ITERS 20000000L
#define FMA_X12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define FMA_X24(X) FMA_X12(X) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)

#if FMA_HAS_AVX512
FMA_TARGET_AVX512 static float fma_avx512(long iters, float mul, float add) {
    __m512 m = _mm512_set1_ps(mul), a = _mm512_set1_ps(add), sum = _mm512_setzero_ps();
#define FMA_DECL(i) __m512 r##i = _mm512_set1_ps((float)(i) * 1e-3f);
#define FMA_STEP(i) r##i = _mm512_fmadd_ps(r##i, m, a);
#define FMA_SUM(i) sum = _mm512_add_ps(sum, r##i);
    long it;
    FMA_X24(FMA_DECL)
    for (it = 0; it < iters; it++) { FMA_X24(FMA_STEP) }
    FMA_X24(FMA_SUM)
#undef FMA_DECL
#undef FMA_STEP
#undef FMA_SUM
    return _mm512_reduce_add_ps(sum);
}
#endif

#if FMA_HAS_AVX2
FMA_TARGET_AVX2 static float fma_avx2(long iters, float mul, float add) {
    __m256 m = _mm256_set1_ps(mul), a = _mm256_set1_ps(add), sum = _mm256_setzero_ps();
    float lanes[8];
#define FMA_DECL(i) __m256 r##i = _mm256_set1_ps((float)(i) * 1e-3f);
#define FMA_STEP(i) r##i = _mm256_fmadd_ps(r##i, m, a);
#define FMA_SUM(i) sum = _mm256_add_ps(sum, r##i);
    long it;
    FMA_X12(FMA_DECL)
    for (it = 0; it < iters; it++) { FMA_X12(FMA_STEP) }
    FMA_X12(FMA_SUM)
#undef FMA_DECL
#undef FMA_STEP
#undef FMA_SUM
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}
#endif

/* Plain C: one float per multiply-add. fmaf only where it is one instruction (flags with
   FMA): elsewhere it is a libm call and the figure would be the call's cost, so a multiply and
   an add (two instructions, the same 2 FLOPs). GCC is told not to pack the 12 chains into
   vectors, which would make this a SIMD figure. */
#if defined(FP_FAST_FMAF) || defined(__FMA__)
#define FMA_SCALAR_STEP(r, m, a) fmaf(r, m, a)
#else
#define FMA_SCALAR_STEP(r, m, a) ((r) * (m) + (a))
#endif
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#endif
static float fma_scalar(long iters, float m, float a) {
#define FMA_DECL(i) float r##i = (float)(i) * 1e-3f;
#define FMA_STEP(i) r##i = FMA_SCALAR_STEP(r##i, m, a);
#define FMA_SUM(i) sum += r##i;
    float sum = 0.0f;
    long it;
    FMA_X12(FMA_DECL)
    for (it = 0; it < iters; it++) { FMA_X12(FMA_STEP) }
    FMA_X12(FMA_SUM)
#undef FMA_DECL
#undef FMA_STEP
#undef FMA_SUM
    return sum;
}

/* isa: tinytrace's name for the instruction set (the isa column, and the name a context's
   desc.isa takes). */
typedef struct fma_isa {
    const char *name, *isa;
    float (*kernel)(long, float, float);
    int lanes, chains;
} fma_isa;

static const fma_isa fma_isas[] = {
#if FMA_HAS_AVX512
    {"peak_fma_avx512", "avx512", fma_avx512, 16, 24},
#endif
#if FMA_HAS_AVX2
    {"peak_fma_avx2", "avx2", fma_avx2, 8, 12},
#endif
    {"peak_fma_scalar", "scalar", fma_scalar, 1, 12},
};
#define FMA_N_ISAS ((int)(sizeof fma_isas / sizeof fma_isas[0]))

static int fma_on[FMA_N_ISAS];           /* whether the CPU runs fma_isas[i]; see fma_find_cpu */

/* Whether the CPU (and its OS) runs isa: a context capped at isa gets it only then, so this
   is tinytrace's own CPUID and XGETBV check, not a second detector. A desc.isa overrides
   TT_ISA, so the peaks do not follow that variable; the workloads do. */
static int fma_cpu_has(const char *isa) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    int has;
    d.n_threads = 1;
    d.isa = isa;
    c = tt_ctx_create(&d);
    if (!c) bench_fail("tt_ctx_create", "out of memory");
    has = !strcmp(tt_ctx_isa(c), isa);
    tt_ctx_destroy(c);
    return has;
}

static void fma_find_cpu(void) {
    int i;
    for (i = 0; i < FMA_N_ISAS; i++) fma_on[i] = fma_cpu_has(fma_isas[i].isa);
}

typedef struct fma_job { const fma_isa *isa; int threads; volatile float sink[256]; } fma_job;

static void fma_part(void *arg, int part, int parts) {
    fma_job *j = (fma_job *)arg;
    volatile float mul = 0.999999f, add = 1e-7f;      /* read at run time: nothing to fold */
    (void)parts;
    j->sink[part] = j->isa->kernel(FMA_ITERS, mul, add);
}

static void fma_once(void *arg) {
    fma_job *j = (fma_job *)arg;
    bench_parallel(j->threads, fma_part, j);
}

/* The triad on arrays of 32M floats (128 MiB each, 384 MiB in all: more than this machine's
   L3), so it measures memory, not cache. */
#define TRIAD_N ((int64_t)32 * 1024 * 1024)
typedef struct triad_job { float *a, *b, *c; int threads; } triad_job;

BENCH_HOT static void triad_kernel(float *restrict a, const float *restrict b, const float *restrict c,
                                   float s, int64_t lo, int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) a[i] = b[i] + s * c[i];
}

static void triad_part(void *arg, int part, int parts) {
    triad_job *j = (triad_job *)arg;
    int64_t lo, hi;
    bench_share(TRIAD_N, part, parts, &lo, &hi);
    triad_kernel(j->a, j->b, j->c, 3.0f, lo, hi);
}

static void triad_once(void *arg) {
    triad_job *j = (triad_job *)arg;
    bench_parallel(j->threads, triad_part, j);
}

static double fma_flops(const fma_isa *isa, int threads) {
    return 2.0 * isa->chains * isa->lanes * (double)FMA_ITERS * threads;
}

/* Every ISA the CPU has at every thread count, timed as one group; then the triad, 1 and all
   threads. The peak of each ISA and the bandwidth that pct_of_peak uses are the fastest runs:
   what the machine does when nothing else runs (the shared VM's medians can be far lower);
   the rows show medians. */
static void bench_machine(void) {
    static fma_job jobs[FMA_N_ISAS][2];
    static bench_group g;
    triad_job tj[2];
    float *a, *b, *c;
    int i, k;
    g.n = 0;
    for (i = 0; i < FMA_N_ISAS; i++) {
        if (!fma_on[i]) continue;                        /* not on this CPU: its instructions would fault */
        for (k = 0; k < bench_n_tcfg; k++) {
            jobs[i][k].isa = &fma_isas[i];
            jobs[i][k].threads = k ? bench_threads_all : 1;
            bench_variant_add(&g, "machine", jobs[i][k].threads, fma_once, &jobs[i][k]);
        }
    }
    bench_measure_group(&g, BENCH_DEFAULT);
    for (i = 0; i < g.n; i++) {
        const fma_isa *isa = ((fma_job *)g.v[i].arg)->isa;
        bench_set_peak(isa->isa, g.v[i].threads, fma_flops(isa, g.v[i].threads) / g.v[i].t.best_s * 1e-9);
    }
    for (i = 0; i < g.n; i++) {
        const fma_isa *isa = ((fma_job *)g.v[i].arg)->isa;
        char note[64];
        snprintf(note, sizeof note, "%d chains of FMA in registers", isa->chains);
        bench_add_row(isa->name, "machine", g.v[i].threads, isa->isa, g.v[i].t, fma_flops(isa, g.v[i].threads),
                      0.0, BENCH_PCT_FLOPS, note);
    }

    a = (float *)malloc((size_t)TRIAD_N * sizeof(float));
    b = (float *)malloc((size_t)TRIAD_N * sizeof(float));
    c = (float *)malloc((size_t)TRIAD_N * sizeof(float));
    if (!a || !b || !c) bench_fail("triad", "out of memory");
    for (i = 0; i < TRIAD_N; i++) { a[i] = 0.0f; b[i] = (float)(i & 1023); c[i] = 1.0f; }
    g.n = 0;
    for (k = 0; k < bench_n_tcfg; k++) {
        tj[k].a = a; tj[k].b = b; tj[k].c = c;
        tj[k].threads = k ? bench_threads_all : 1;
        bench_variant_add(&g, "machine", tj[k].threads, triad_once, &tj[k]);
    }
    bench_measure_group(&g, BENCH_DEFAULT);
    for (k = 0; k < bench_n_tcfg; k++) {
        bench_triad_gbs[k] = 12.0 * (double)TRIAD_N / g.v[k].t.best_s * 1e-9;
        bench_add_row("triad_bw", "machine", g.v[k].threads, "compiler", g.v[k].t, 0.0, 12.0 * (double)TRIAD_N,
                      BENCH_PCT_BYTES, "a=b+s*c, 3 x 128 MiB");
    }
    if (a[TRIAD_N / 2] != (float)((TRIAD_N / 2) & 1023) + 3.0f) bench_fail("triad", "wrong result");
    free(a); free(b); free(c);
}

/* ==== 2. workloads ===================================================================================== */

typedef tt_tensor *(*bench_forward)(tt_ctx *c, tt_tensor *const *in, const void *w);

/* One workload: a forward function on 1 or 2 random inputs. */
typedef struct bench_model {
    const char *name;
    bench_forward forward;
    const void *weights;
    int n_in, ndim;
    int64_t shape[2][4];
    double flops, bytes;         /* per forward pass; 0: that column stays empty */
    int pct_kind;                /* BENCH_PCT_FLOPS or BENCH_PCT_BYTES */
    bench_plan plan;
    int dispatch;                /* dispatch_1000: per-op notes and a compiled run without fusion */
    int autotune;                /* the CNNs: a compiled run in TT_MODE_MAX_AUTOTUNE too (Winograd) */
    /* adds more variants after eager and compiled (the chain's C loops); may be NULL */
    void (*extra)(bench_group *g, tt_tensor *const *in, const float *ref, int threads);
} bench_model;

/* What one thread count of a workload needs while it is timed. */
typedef struct bench_state {
    tt_ctx *c;
    const bench_model *m;
    tt_scope scope;
    tt_tensor *in[2];
    float *ref;                  /* the eager output */
    int64_t n;                   /* its element count */
    tt_graph *graphs[2];
} bench_state;

/* One eager forward pass in a scope: the output and every temporary are freed at its end (the
   time includes that), so runs reuse the same memory, as an inference loop would. */
static void eager_once(void *arg) {
    bench_state *s = (bench_state *)arg;
    tt_scope sc = tt_scope_begin(s->c);
    s->m->forward(s->c, s->in, s->m->weights);
    tt_scope_end(s->c, sc);
}

static void graph_once(void *arg) { tt_graph_run((tt_graph *)arg, NULL, 0); }

/* The eager output, copied out into s->ref. */
static void eager_reference(bench_state *s) {
    tt_scope sc = tt_scope_begin(s->c);
    tt_tensor *out = s->m->forward(s->c, s->in, s->m->weights);
    bench_ctx_ok(s->c, s->m->name);
    s->n = out->numel;
    s->ref = (float *)malloc((size_t)s->n * sizeof(float));
    if (!s->ref) bench_fail(s->m->name, "out of memory");
    if (tt_copy_to_f32(s->c, out, s->ref, s->n) != TT_OK) bench_ctx_ok(s->c, s->m->name);
    tt_scope_end(s->c, sc);
}

/* max|got - ref| / max|ref|; stops the program when it exceeds 1e-3 (or is NaN). */
static double bench_verify(const char *what, const float *ref, const float *got, int64_t n) {
    double diff = 0.0, scale = 0.0, rel;
    char msg[160];
    int64_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)got[i] - ref[i]);
        if (!(d <= diff)) diff = d;                     /* NaN sticks */
        if (fabs((double)ref[i]) > scale) scale = fabs((double)ref[i]);
    }
    rel = diff / (scale > 0.0 ? scale : 1.0);
    if (!(rel <= 1e-3)) {
        snprintf(msg, sizeof msg, "result differs from eager: max abs diff %g, largest eager value %g", diff, scale);
        bench_fail(what, msg);
    }
    return rel;
}

/* Traces the model, compiles it for inference, binds the inputs, runs it once and checks the
   output against eager's; the note gets the node counts and the difference. */
static tt_graph *bench_compile(bench_state *s, tt_mode mode, unsigned passes, char *note, size_t note_size) {
    tt_ctx *c = s->c;
    const bench_model *m = s->m;
    tt_scope sc = tt_scope_begin(c);
    tt_tensor *out;
    tt_graph *g;
    tt_graph_stats st;
    float *got = (float *)malloc((size_t)s->n * sizeof(float));
    int i;
    if (!got) bench_fail(m->name, "out of memory");
    if (tt_trace_begin(c) != TT_OK) bench_ctx_ok(c, m->name);
    for (i = 0; i < m->n_in; i++) tt_trace_input(c, s->in[i], i ? "b" : "x");
    out = m->forward(c, s->in, m->weights);
    g = tt_trace_end(c, &out, 1);
    tt_scope_end(c, sc);                                 /* the graph owns its memory */
    if (!g) bench_ctx_ok(c, m->name);
    if (tt_graph_compile(g, mode, passes) != TT_OK) bench_graph_ok(g, m->name);
    if (tt_graph_bind(g, s->in, m->n_in) != TT_OK) bench_graph_ok(g, m->name);
    if (tt_graph_run(g, NULL, 0) != TT_OK) bench_graph_ok(g, m->name);
    if (tt_copy_to_f32(c, tt_graph_output(g, 0), got, s->n) != TT_OK) bench_ctx_ok(c, m->name);
    st = tt_graph_get_stats(g);
    snprintf(note, note_size, "nodes %d->%d; rel diff %.1e", st.nodes_traced, st.nodes,
             bench_verify(m->name, s->ref, got, s->n));
    free(got);
    return g;
}

/* Inputs, eager reference and graphs of one thread count, and their variants in the group. */
static void bench_prepare(bench_state *s, const bench_model *m, tt_ctx *c, bench_group *g) {
    static const unsigned nofuse = (TT_PASS_ALL & ~(unsigned)(TT_PASS_FUSE | TT_PASS_EPILOGUE)) | TT_PASS_FREEZE;
    int threads = tt_ctx_num_threads(c), i;
    bench_variant *v;
    memset(s, 0, sizeof *s);
    s->c = c;
    s->m = m;
    s->scope = tt_scope_begin(c);
    for (i = 0; i < m->n_in; i++) s->in[i] = tt_randn(c, 11 + (uint64_t)i, m->ndim, m->shape[i]);
    bench_ctx_ok(c, m->name);
    eager_reference(s);
    v = bench_variant_add(g, "eager", threads, eager_once, s);
    v->isa = tt_ctx_isa(c);
    if (m->dispatch) { v->units = DISPATCH_OPS; v->unit = "op"; }
    v = bench_variant_add(g, "compiled", threads, graph_once, NULL);
    v->isa = tt_ctx_isa(c);                              /* a graph keeps its tracing context's ISA */
    v->arg = s->graphs[0] = bench_compile(s, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL | TT_PASS_FREEZE, v->note, sizeof v->note);
    if (m->dispatch) {
        v->units = tt_graph_get_stats(s->graphs[0]).nodes;
        v->unit = "node";
        v = bench_variant_add(g, "compiled_nofuse", threads, graph_once, NULL);
        v->isa = tt_ctx_isa(c);
        v->arg = s->graphs[1] = bench_compile(s, TT_MODE_REDUCE_OVERHEAD, nofuse, v->note, sizeof v->note);
        v->units = tt_graph_get_stats(s->graphs[1]).nodes;
        v->unit = "node";
    }
    if (m->autotune) {
        v = bench_variant_add(g, "compiled_autotune", threads, graph_once, NULL);
        v->isa = tt_ctx_isa(c);
        v->arg = s->graphs[1] = bench_compile(s, TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL | TT_PASS_FREEZE, v->note, sizeof v->note);
    }
    if (m->extra) m->extra(g, s->in, s->ref, threads);
}

static void bench_release(bench_state *s) {
    tt_graph_destroy(s->graphs[0]);
    tt_graph_destroy(s->graphs[1]);
    free(s->ref);
    tt_scope_end(s->c, s->scope);
}

/* Every row of one workload: eager, compiled (and the extras) on each thread count, timed as
   one group. */
static void bench_model_run(const bench_model *m) {
    static bench_group g;
    bench_state st[2];
    int k, i;
    if (!bench_selected(m->name)) return;
    fprintf(stderr, "bench: %s\n", m->name);
    g.n = 0;
    for (k = 0; k < bench_n_tcfg; k++) bench_prepare(&st[k], m, bench_ctx[k], &g);
    bench_measure_group(&g, m->plan);
    for (k = 0; k < bench_n_tcfg; k++) bench_ctx_ok(bench_ctx[k], m->name);   /* a failing op in a timed run */
    for (i = 0; i < g.n; i++) {
        bench_variant *v = &g.v[i];
        char note[160];
        if (v->arg && v->run == graph_once) bench_graph_ok((tt_graph *)v->arg, m->name);
        if (v->check) v->check(v);
        if (v->units > 0)
            snprintf(note, sizeof note, "%.3f us/%s (%d %ss)%s%s", v->t.median_s * 1e6 / v->units, v->unit,
                     v->units, v->unit, v->note[0] ? "; " : "", v->note);
        else
            snprintf(note, sizeof note, "%s", v->note);
        bench_add_row(m->name, v->mode, v->threads, v->isa, v->t, m->flops, m->bytes, m->pct_kind, note);
    }
    for (k = 0; k < bench_n_tcfg; k++) bench_release(&st[k]);
}

/* ---- the chain as plain C loops --------------------------------------------------------------------- */

#define CHAIN_N ((int64_t)16 * 1024 * 1024)

/* With tinytrace's vectorizable exp and tanh: the best one pass can do, all in registers. */
BENCH_HOT static void chain_c_fast(float *restrict y, const float *restrict x, int64_t lo, int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) {
        float v = x[i];
        float t = tt__tanhf(v * 1.5f + 0.5f) * (1.0f / (1.0f + tt__expf(-v))) - v * v;
        y[i] = t * 0.25f + v;
    }
}

/* With libm's tanhf and expf: what a C programmer writes first (calls, no vectors). */
static void chain_c_libm(float *restrict y, const float *restrict x, int64_t lo, int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) {
        float v = x[i];
        float t = tanhf(v * 1.5f + 0.5f) * (1.0f / (1.0f + expf(-v))) - v * v;
        y[i] = t * 0.25f + v;
    }
}

/* One C loop variant: its own output buffer, checked against eager's after timing. */
typedef struct chain_job { float *y; const float *x, *ref; int threads, libm; } chain_job;
static chain_job chain_jobs[4];          /* c_loop on 1 thread, on all threads, c_loop_libm, exported_c */

static void chain_part(void *arg, int part, int parts) {
    chain_job *j = (chain_job *)arg;
    int64_t lo, hi;
    bench_share(CHAIN_N, part, parts, &lo, &hi);
    if (j->libm) chain_c_libm(j->y, j->x, lo, hi);
    else chain_c_fast(j->y, j->x, lo, hi);
}

static void chain_once(void *arg) {
    chain_job *j = (chain_job *)arg;
    bench_parallel(j->threads, chain_part, j);
}

static void chain_check(bench_variant *v) {
    chain_job *j = (chain_job *)v->arg;
    snprintf(v->note, sizeof v->note, "rel diff to eager %.1e", bench_verify(v->mode, j->ref, j->y, CHAIN_N));
}

#ifdef BENCH_EXPORTED_CHAIN
/* The chain graph written as C by tt_graph_export_c (bench/export_chain_gen.c): one loop, on
   one thread, built with this file's flags. */
#include "bench_chain.h"
static double chain_export_arena[BENCH_CHAIN_ARENA_BYTES / 8 + 1];
static void chain_exported_once(void *arg) {
    chain_job *j = (chain_job *)arg;
    const float *in[1];
    float *out[1];
    in[0] = j->x;
    out[0] = j->y;
    if (bench_chain_run(in, out, chain_export_arena) != 0) bench_fail("chain", "bench_chain_run failed");
}
#endif

static void chain_add(bench_group *g, chain_job *j, const char *mode, void (*run)(void *), const float *x, const float *ref,
                      int threads, int libm) {
    bench_variant *v = bench_variant_add(g, mode, threads, run, j);
    static const bench_plan libm_plan = {1, 3, 3, 0.0};     /* about a second a run: 3 runs */
    j->y = (float *)malloc((size_t)CHAIN_N * sizeof(float));
    if (!j->y) bench_fail("chain", "out of memory");
    j->x = x; j->ref = ref; j->threads = threads; j->libm = libm;
    v->isa = "compiler";                                 /* plain C: the build's flags decide, not TT_ISA */
    v->check = chain_check;
    if (libm) v->solo = &libm_plan;
}

/* c_loop on this thread count; c_loop_libm on one thread only (it is slow). */
static void chain_extra(bench_group *g, tt_tensor *const *in, const float *ref, int threads) {
    const float *x = (const float *)tt_data(in[0]);
    chain_add(g, &chain_jobs[threads > 1], "c_loop", chain_once, x, ref, threads, 0);
    if (threads == 1) chain_add(g, &chain_jobs[2], "c_loop_libm", chain_once, x, ref, 1, 1);
#ifdef BENCH_EXPORTED_CHAIN
    if (threads == 1) chain_add(g, &chain_jobs[3], "exported_c", chain_exported_once, x, ref, 1, 0);
#endif
}

/* ---- the workload list ----------------------------------------------------------------------------- */

static tt_tensor *sgemm_fwd(tt_ctx *c, tt_tensor *const *in, const void *unused) {
    (void)unused;
    return tt_matmul(c, in[0], in[1]);
}

static bench_model bench_model_init(const char *name, bench_forward f, const void *w, int ndim,
                                    int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    bench_model m;
    memset(&m, 0, sizeof m);
    m.name = name; m.forward = f; m.weights = w;
    m.n_in = 1; m.ndim = ndim;
    m.shape[0][0] = d0; m.shape[0][1] = d1; m.shape[0][2] = d2; m.shape[0][3] = d3;
    m.pct_kind = BENCH_PCT_FLOPS;
    m.plan = BENCH_DEFAULT;
    return m;
}

static void bench_sgemm(void) {
    static const int sizes[4] = {256, 512, 1024, 2048};
    static char names[4][16];
    int i;
    for (i = 0; i < 4; i++) {
        int64_t n = sizes[i];
        bench_model m;
        snprintf(names[i], sizeof names[i], "sgemm_%d", sizes[i]);
        m = bench_model_init(names[i], sgemm_fwd, NULL, 2, n, n, 0, 0);
        m.n_in = 2;
        m.shape[1][0] = n; m.shape[1][1] = n;
        m.flops = 2.0 * (double)n * n * n;
        if (n >= 2048) m.plan = BENCH_SLOW;
        bench_model_run(&m);
    }
}

static void bench_chain(void) {
    int i;
    bench_model m = bench_model_init("chain", chain_fwd, NULL, 1, CHAIN_N, 0, 0, 0);
    m.flops = 9.0 * (double)CHAIN_N;
    m.bytes = 8.0 * (double)CHAIN_N;
    m.pct_kind = BENCH_PCT_BYTES;
    m.extra = chain_extra;
    bench_model_run(&m);
    for (i = 0; i < 4; i++) { free(chain_jobs[i].y); chain_jobs[i].y = NULL; }
}

/* An ImageNet-sized network (macs multiply-adds per image) at batch 1 and 16: name_b1, name_b16. */
static void bench_imagenet_net(const char *name, bench_forward f, const void *w, double macs) {
    static const int batches[2] = {1, 16};
    int i;
    printf("# %s: %.3f GFLOP per image\n", name, 2.0 * macs * 1e-9);
    for (i = 0; i < 2; i++) {
        char row_name[32];                             /* the table's rows copy it */
        bench_model m;
        snprintf(row_name, sizeof row_name, "%s_b%d", name, batches[i]);
        m = bench_model_init(row_name, f, w, 4, batches[i], 3, 224, 224);
        m.flops = 2.0 * macs * batches[i];
        m.autotune = 1;
        if (batches[i] > 1) m.plan = BENCH_SLOW;
        bench_model_run(&m);
    }
}

/* The networks: weights made in a context of their own, freed after the workload. */
static void bench_networks(void) {
    tt_ctx *wc;
    bench_model m;
    if (bench_selected("simplecnn_b1") || bench_selected("simplecnn_b16")) {
        cnn_w w;
        wc = tt_ctx_create(NULL);
        w = cnn_make(wc);
        bench_ctx_ok(wc, "simplecnn weights");
        m = bench_model_init("simplecnn_b1", cnn_fwd, &w, 4, 1, 3, 32, 32);
        m.flops = cnn_flops(1);
        m.autotune = 1;
        bench_model_run(&m);
        m = bench_model_init("simplecnn_b16", cnn_fwd, &w, 4, 16, 3, 32, 32);
        m.flops = cnn_flops(16);
        m.autotune = 1;
        bench_model_run(&m);
        tt_ctx_destroy(wc);
    }
    if (bench_selected("mlp_b64")) {
        mlp_w w;
        wc = tt_ctx_create(NULL);
        w = mlp_make(wc);
        bench_ctx_ok(wc, "mlp weights");
        m = bench_model_init("mlp_b64", mlp_fwd, &w, 2, 64, 784, 0, 0);
        m.flops = mlp_flops(64);
        bench_model_run(&m);
        tt_ctx_destroy(wc);
    }
    if (bench_selected("transformer_s128")) {
        enc_w w;
        wc = tt_ctx_create(NULL);
        w = enc_make(wc);
        bench_ctx_ok(wc, "transformer weights");
        m = bench_model_init("transformer_s128", enc_fwd, &w, 3, 1, ENC_S, ENC_D, 0);
        m.flops = enc_flops();
        bench_model_run(&m);
        tt_ctx_destroy(wc);
    }
    if (bench_selected("alexnet_b1")) {
        alex_w w;
        wc = tt_ctx_create(NULL);
        w = alex_make(wc);
        bench_ctx_ok(wc, "alexnet weights");
        m = bench_model_init("alexnet_b1", alex_fwd, &w, 4, 1, 3, 224, 224);
        m.flops = alex_flops();
        m.autotune = 1;
        printf("# alexnet_b1: %.3f GFLOP per image (2 x multiply-adds of its convolutions and linears)\n",
               m.flops * 1e-9);
        bench_model_run(&m);
        tt_ctx_destroy(wc);
    }
    if (bench_selected("resnet18_b1") || bench_selected("resnet18_b16")) {
        res_w w;
        wc = tt_ctx_create(NULL);
        w = res_make(wc);
        bench_ctx_ok(wc, "resnet18 weights");
        bench_imagenet_net("resnet18", res_fwd, &w, w.macs);
        tt_ctx_destroy(wc);
    }
    if (bench_selected("mobilenetv2_b1") || bench_selected("mobilenetv2_b16")) {
        mnv2_w w;
        wc = tt_ctx_create(NULL);
        w = mnv2_make(wc);
        bench_ctx_ok(wc, "mobilenetv2 weights");
        bench_imagenet_net("mobilenetv2", mnv2_fwd, &w, w.macs);
        tt_ctx_destroy(wc);
    }
}

/* ---- bench --layers: each convolution of AlexNet, ResNet-18 and MobileNetV2 alone -------------- */

/* One convolution layer's shape: input [batch, cin, hw, hw], cout filters k x k in groups. */
typedef struct bench_layer { const char *net; int batch, cin, cout, k, stride, pad, groups; int64_t hw; int count; } bench_layer;

#define BENCH_MAX_LAYERS 64

/* Adds a layer, or counts it again when the same shape is there already. */
static void bench_layer_add(bench_layer *list, int *n, bench_layer l) {
    int i;
    for (i = 0; i < *n; i++)
        if (!strcmp(list[i].net, l.net) && list[i].batch == l.batch && list[i].cin == l.cin && list[i].cout == l.cout &&
            list[i].k == l.k && list[i].stride == l.stride && list[i].groups == l.groups && list[i].hw == l.hw) {
            list[i].count++;
            return;
        }
    if (*n < BENCH_MAX_LAYERS) list[(*n)++] = l;
}

static bench_layer bench_layer_of(const char *net, int batch, const bench_cbn *u, int64_t hw) {
    bench_layer l;
    l.net = net; l.batch = batch; l.cin = u->cin; l.cout = u->cout; l.k = u->k; l.stride = u->stride; l.pad = u->pad;
    l.groups = u->groups; l.hw = hw; l.count = 1;
    return l;
}

/* MobileNetV2's convolutions at batch 1, walked as mnv2_fwd walks them. */
static void bench_layer_list_mnv2(bench_layer *list, int *n, tt_ctx *wc) {
    mnv2_w w = mnv2_make(wc);
    int64_t hw = 224;
    int i;
    bench_layer_add(list, n, bench_layer_of("mobilenetv2_b1", 1, &w.stem, hw));
    hw = bench_conv_out(hw, 3, 2, 1);
    for (i = 0; i < MNV2_BLOCKS; i++) {
        const mnv2_block *k = &w.blk[i];
        if (k->has_expand) bench_layer_add(list, n, bench_layer_of("mobilenetv2_b1", 1, &k->expand, hw));
        bench_layer_add(list, n, bench_layer_of("mobilenetv2_b1", 1, &k->dw, hw));
        hw = bench_conv_out(hw, 3, k->dw.stride, 1);
        bench_layer_add(list, n, bench_layer_of("mobilenetv2_b1", 1, &k->project, hw));
    }
    bench_layer_add(list, n, bench_layer_of("mobilenetv2_b1", 1, &w.last, hw));
}

/* The layer list: AlexNet's five convolutions at batch 1, ResNet-18's at batch 16 (with the
   input size each sees, walked as res_fwd walks them), MobileNetV2's at batch 1. */
static int bench_layer_list(bench_layer *list, tt_ctx *wc) {
    res_w w = res_make(wc);
    int64_t hw = 224;
    int i, n = 0;
    for (i = 0; i < 5; i++) {
        bench_layer l;
        l.net = "alexnet_b1"; l.batch = 1; l.cin = alex_shape[i][0]; l.cout = alex_shape[i][1]; l.k = alex_shape[i][2];
        l.stride = alex_shape[i][3]; l.pad = alex_shape[i][4]; l.groups = 1; l.hw = hw; l.count = 1;
        bench_layer_add(list, &n, l);
        hw = bench_conv_out(hw, l.k, l.stride, l.pad);
        if (i == 0 || i == 1 || i == 4) hw = bench_conv_out(hw, 3, 2, 0);
    }
    hw = 224;
    bench_layer_add(list, &n, bench_layer_of("resnet18_b16", 16, &w.stem, hw));
    hw = bench_conv_out(bench_conv_out(hw, 7, 2, 3), 3, 2, 1);
    for (i = 0; i < RES_BLOCKS; i++) {
        int64_t in = hw;
        bench_layer_add(list, &n, bench_layer_of("resnet18_b16", 16, &w.conv1[i], in));
        hw = bench_conv_out(in, 3, w.conv1[i].stride, 1);
        bench_layer_add(list, &n, bench_layer_of("resnet18_b16", 16, &w.conv2[i], hw));
        if (w.has_down[i]) bench_layer_add(list, &n, bench_layer_of("resnet18_b16", 16, &w.down[i], in));
    }
    bench_layer_list_mnv2(list, &n, wc);
    return n;
}

/* Each layer timed alone on one thread (the compiled graph's kernel: tt_conv2d, bias and
   ReLU left out), as GFLOP/s and a share of the 1-thread FMA peak of the ISA it runs. */
/* The median of 7 timed runs (after a warm-up) of the layer's convolution compiled in
   TT_MODE_MAX_AUTOTUNE with its weight frozen and the convolution algorithm algo (Winograd
   F(2x2, 3x3) or F(4x4, 3x3) forced, or TT_CONV_MEASURED: timed at compile); *picked: what
   the compile chose ("direct", "F2x2", "F4x4"). 0 for layers other than 3x3 of stride 1. */
static double bench_layer_algo_s(tt_ctx *c, tt_tensor *x_other, tt_tensor *w, const bench_layer *l, tt_conv_algo algo,
                                 const char **picked) {
    tt_scope s = tt_scope_begin(c);
    tt_tensor *y, *x;
    tt_graph *g;
    tt_graph_stats st;
    double t[7];
    int r;
    if (l->k != 3 || l->stride != 1 || l->groups != 1) return 0.0;
    x = tt_clone(c, x_other);                          /* a graph input lives in the tracing context */
    if (tt_trace_begin(c) != TT_OK) bench_ctx_ok(c, "layer trace");
    tt_trace_input(c, x, "x");
    y = tt_conv2d(c, x, w, NULL, l->stride, l->pad, 1, l->groups);
    g = tt_trace_end(c, &y, 1);
    if (!g) bench_ctx_ok(c, "layer trace");
    if (tt_graph_set_conv_algo(g, algo) != TT_OK) bench_graph_ok(g, "layer");
    if (tt_graph_compile(g, TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK) bench_graph_ok(g, "layer");
    if (tt_graph_bind(g, &x, 1) != TT_OK) bench_graph_ok(g, "layer");
    st = tt_graph_get_stats(g);
    *picked = st.winograd_2x2 ? "F2x2" : st.winograd_4x4 ? "F4x4" : "direct";
    for (r = 0; r < 8; r++) {
        double t0 = bench_now();
        if (tt_graph_run(g, NULL, 0) != TT_OK) bench_graph_ok(g, "layer");
        if (r > 0) t[r - 1] = bench_now() - t0;
    }
    tt_graph_destroy(g);
    tt_scope_end(c, s);
    qsort(t, 7, sizeof t[0], bench_cmp_double);
    return t[3];
}

static void bench_layers(void) {
    bench_layer list[BENCH_MAX_LAYERS];
    tt_ctx *wc = tt_ctx_create(NULL), *c = bench_ctx[0];
    const char *isa = tt_ctx_isa(c);
    double peak = bench_peak_of(isa, 1);
    int n = bench_layer_list(list, wc), i, r;
    printf("\nconvolution layers alone, 1 thread, isa %s (1-thread FMA peak %.1f GFLOP/s). The 3x3s of stride 1 also\n"
           "compiled in TT_MODE_MAX_AUTOTUNE with Winograd F(2x2,3x3) and F(4x4,3x3) forced (effective GFLOP/s: the\n"
           "direct sums' FLOPs over Winograd's time), and what its compile picks by timing them\n", isa, peak);
    printf("  %-15s %5s %-31s %6s %9s %8s %8s %9s %9s %6s\n", "network", "count", "layer", "GFLOP", "median ms", "GFLOP/s", "of peak",
           "F2x2 GF/s", "F4x4 GF/s", "picks");
    for (i = 0; i < n; i++) {
        const bench_layer *l = &list[i];
        int64_t xs[4], ws[4], ohw = bench_conv_out(l->hw, l->k, l->stride, l->pad);
        double flops = 2.0 * l->batch * (double)l->cout * (l->cin / l->groups) * l->k * l->k * (double)(ohw * ohw), t[7], ms, f2, f4;
        const char *picked = "", *forced;
        char name[64];
        tt_scope layer_scope = tt_scope_begin(wc);       /* this layer's tensors, freed after it */
        tt_tensor *x, *w;
        xs[0] = l->batch; xs[1] = l->cin; xs[2] = l->hw; xs[3] = l->hw;
        ws[0] = l->cout; ws[1] = l->cin / l->groups; ws[2] = l->k; ws[3] = l->k;
        x = tt_randn(wc, 1, 4, xs);
        w = bench_param(wc, 2, 4, ws, 0.05f, 0.0f);
        for (r = 0; r < 8; r++) {                      /* a warm-up, then 7 timed */
            tt_scope s = tt_scope_begin(c);
            double t0 = bench_now();
            tt_conv2d(c, x, w, NULL, l->stride, l->pad, 1, l->groups);
            if (r > 0) t[r - 1] = bench_now() - t0;
            tt_scope_end(c, s);
        }
        qsort(t, 7, sizeof t[0], bench_cmp_double);
        ms = 1e3 * t[3];
        snprintf(name, sizeof name, "%dx%d/%d %d->%d%s on %lldx%lld", l->k, l->k, l->stride, l->cin, l->cout,
                 l->groups > 1 ? " dw" : "", (long long)l->hw, (long long)l->hw);
        f2 = bench_layer_algo_s(c, x, w, l, TT_CONV_WINOGRAD_2X2, &forced);
        f4 = bench_layer_algo_s(c, x, w, l, TT_CONV_WINOGRAD_4X4, &forced);
        bench_layer_algo_s(c, x, w, l, TT_CONV_MEASURED, &picked);
        printf("  %-15s %5d %-31s %6.3f %9.3f %8.1f %7.1f%%", l->net, l->count, name, flops * 1e-9, ms,
               flops / t[3] * 1e-9, peak > 0 ? 100.0 * flops / t[3] * 1e-9 / peak : 0.0);
        if (f2 > 0) printf(" %9.1f %9.1f %6s", flops / f2 * 1e-9, flops / f4 * 1e-9, picked);
        printf("\n");
        tt_scope_end(wc, layer_scope);
    }
    tt_ctx_destroy(wc);
}

static void bench_dispatch(void) {
    bench_model m = bench_model_init("dispatch_1000", dispatch_fwd, NULL, 1, 16, 0, 0, 0);
    m.pct_kind = BENCH_PCT_NONE;
    m.dispatch = 1;
    bench_model_run(&m);
}

/* ==== 3. summary ======================================================================================== */

static double bench_ms(const char *workload, const char *mode, int threads) {
    const bench_row *r = bench_find(workload, mode, threads);
    return r ? r->median_ms : -1.0;
}

static void bench_summary(void) {
    static const char *names[] = {"sgemm_256", "sgemm_512", "sgemm_1024", "sgemm_2048", "chain", "simplecnn_b1",
                                  "simplecnn_b16", "mlp_b64", "transformer_s128", "alexnet_b1", "resnet18_b1",
                                  "resnet18_b16", "mobilenetv2_b1", "mobilenetv2_b16", "dispatch_1000"};
    const bench_row *r1, *rn;
    double a, b;
    int i, k, N = bench_threads_all;
    printf("\nsummary (ratios of medians within this run)\n");
    printf("  compiled speedup over eager (eager time / compiled time):\n");
    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (bench_ms(names[i], "eager", 1) < 0) continue;
        printf("    %-18s", names[i]);
        for (k = 0; k < bench_n_tcfg; k++) {
            int th = k ? N : 1;
            printf("  %d thread%s %6.2fx", th, th > 1 ? "s" : " ",
                   bench_ms(names[i], "eager", th) / bench_ms(names[i], "compiled", th));
        }
        printf("\n");
    }
    r1 = bench_find("sgemm_1024", "compiled", 1);
    rn = bench_find("sgemm_1024", "compiled", N);
    if (r1 && r1->pct >= 0.0)              /* the peak of the ISA it ran, as its row's pct_of_peak */
        printf("  sgemm_1024 compiled: %.1f%% of the 1-thread FMA peak of %s (%.1f GFLOP/s of %.1f)\n",
               r1->pct, r1->isa, r1->gflops, bench_peak_of(r1->isa, 1));
    else if (r1)
        printf("  sgemm_1024 compiled: %.1f GFLOP/s on %s (no FMA peak measured for it)\n", r1->gflops, r1->isa);
    if (r1 && rn && N > 1)
        printf("  sgemm_1024 compiled on %d threads: %.2fx the 1-thread speed (%.1f%% of the %d-thread %s peak)\n",
               N, r1->median_ms / rn->median_ms, rn->pct, N, rn->isa);
    for (k = 0; k < bench_n_tcfg; k++) {
        int th = k ? N : 1;
        a = bench_ms("chain", "compiled", th);
        b = bench_ms("chain", "c_loop", th);
        if (a > 0 && b > 0)
            printf("  chain, %d thread%s: the compiled graph takes %.2fx the time of one fused C loop\n",
                   th, th > 1 ? "s" : "", a / b);
    }
    a = bench_ms("chain", "exported_c", 1);
    b = bench_ms("chain", "c_loop", 1);
    if (a > 0 && b > 0)
        printf("  chain, 1 thread: the graph exported as C (tt_graph_export_c) takes %.3fx the time of the C loop\n", a / b);
    for (k = 0; k < bench_n_tcfg; k++) {
        int th = k ? N : 1;
        const bench_row *e = bench_find("dispatch_1000", "eager", th);
        if (!e) continue;                              /* ms for 1000 ops = us per op */
        printf("  dispatch_1000, %d thread%s: eager %.3f us/op, compiled_nofuse %.3f us/node (1000 nodes), "
               "compiled %.1f us for the whole graph\n", th, th > 1 ? "s" : "", e->median_ms,
               bench_ms("dispatch_1000", "compiled_nofuse", th), bench_ms("dispatch_1000", "compiled", th) * 1e3);
    }
}

/* The 1-minute load average (from /proc/loadavg; -1 where unreadable): printed before and
   after, so that a reader can tell a quiet run from one that shared the cores. */
static double bench_loadavg(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1.0;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

/* ==== main ================================================================================================ */

/* Whether the compiler's own code (plain-C twins, C loops, the triad) may use AVX2: tinytrace's
   SIMD kernels are chosen at run time either way where GCC or clang builds for x86-64. */
#if defined(__AVX2__)
#define BENCH_BUILD_FLAGS "built with -march/-mavx2 flags"
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(TT_NO_SIMD)
#define BENCH_BUILD_FLAGS "built without -march (dispatch)"
#else
#define BENCH_BUILD_FLAGS "built without -march/-mavx2 flags"
#endif

static void bench_print_machine(void) {
    char line[256], model[200] = "unknown CPU", date[64];
    FILE *f = fopen("/proc/cpuinfo", "r");
    const char *env = getenv("TT_ISA");
    time_t now = time(NULL);
    struct tm tmv;
    int i;
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f) fclose(f);
    localtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tmv);
    printf("# tinytrace %s benchmark, %s\n", tt_version(), date);
    printf("# %s, %d online cores; FMA peaks measured for the ISAs the CPU has:", model, bench_threads_all);
    for (i = 0; i < FMA_N_ISAS; i++)
        if (fma_on[i]) printf(" %s", fma_isas[i].isa);
    printf("\n# workloads run isa %s (tt_ctx_isa; TT_ISA%s%s); %s\n", tt_ctx_isa(bench_ctx[0]),
           env ? "=" : " unset", env ? env : "", BENCH_BUILD_FLAGS);
    printf("# load average (1 min) at start: %.2f; anything above 0 is another program sharing the cores\n",
           bench_loadavg());
    printf("# compiled = TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL | TT_PASS_FREEZE, inputs bound once%s\n\n",
           bench_quick ? "; BENCH_QUICK: few runs" : "");
}

int main(int argc, char **argv) {
    const char *csv_path = getenv("BENCH_CSV") ? getenv("BENCH_CSV") : "bench/out/results.csv";
    double t0 = bench_now();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    tt_ctx_desc desc = tt_ctx_desc_default();
    int k;
    bench_quick = getenv("BENCH_QUICK") && atoi(getenv("BENCH_QUICK")) != 0;
    bench_filters = argv + 1;
    bench_n_filters = argc - 1;
    bench_threads_all = online < 1 ? 1 : online > 256 ? 256 : (int)online;
    bench_n_tcfg = bench_threads_all > 1 ? 2 : 1;
    for (k = 0; k < bench_n_tcfg; k++) {
        desc.n_threads = k ? bench_threads_all : 1;
        bench_ctx[k] = tt_ctx_create(&desc);
        if (!bench_ctx[k]) bench_fail("tt_ctx_create", "out of memory");
    }
    if (!bench_csv_open(csv_path)) {
        fprintf(stderr, "bench: cannot write %s (run from the repository root, or set BENCH_CSV)\n", csv_path);
        return 1;
    }

    fma_find_cpu();
    bench_print_machine();
    bench_print_header();
    fprintf(stderr, "bench: machine limits\n");
    bench_machine();
    if (bench_n_filters > 0 && !strcmp(bench_filters[0], "--layers")) {   /* the per-layer report only */
        bench_layers();
        fclose(bench_csv);
        for (k = 0; k < bench_n_tcfg; k++) tt_ctx_destroy(bench_ctx[k]);
        return 0;
    }
    bench_sgemm();
    bench_chain();
    bench_networks();
    bench_dispatch();
    bench_summary();

    printf("\ntotal %.1f s; load average (1 min) at the end %.2f; rows written to %s\n", bench_now() - t0,
           bench_loadavg(), csv_path);
    fclose(bench_csv);
    for (k = 0; k < bench_n_tcfg; k++) tt_ctx_destroy(bench_ctx[k]);
    return 0;
}
