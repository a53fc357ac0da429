/* bench_util.h - the measuring tools of bench.c: a clock, medians and p95 of repeated runs,
   a pthread fan-out for the plain C references, and the one results table (printed to stdout
   and written as CSV). Included once, by bench.c, after tinytrace.h and the system headers. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

/* GCC at -O2 keeps array accumulators in memory and does not vectorize loops that need alias
   checks; the plain C reference loops ask it for -O3, so that they become the vector code a
   careful C programmer would get. */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_HOT __attribute__((optimize("O3")))
#else
#define BENCH_HOT
#endif

/* ---- time ---------------------------------------------------------------------------------- */

static double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How many times to run something: `warmup` untimed rounds, then between min_runs and max_runs
   timed ones, as many as fit in about target_s seconds (judged from the warm-up rounds). */
typedef struct bench_plan { int warmup, min_runs, max_runs; double target_s; } bench_plan;

static const bench_plan BENCH_DEFAULT = {2, 7, 21, 2.0};
static const bench_plan BENCH_SLOW = {1, 5, 9, 2.0};     /* rounds of a second or more */

static int bench_quick;                                  /* BENCH_QUICK=1: a few runs of each */

typedef struct bench_timing { double median_s, p95_s, best_s; int runs; } bench_timing;

#define BENCH_MAX_RUNS 101
#define BENCH_MAX_VARIANTS 16

/* One thing to time: a row of the table once measured. */
typedef struct bench_variant {
    char mode[24];
    int threads;
    const char *isa;             /* the instruction set its code runs (the isa column); NULL until set */
    void (*run)(void *arg);
    void *arg;
    const bench_plan *solo;      /* NULL: timed with the group, round by round; else alone, with this plan */
    void (*check)(struct bench_variant *v);   /* after timing: verify the result, fill in the note; or NULL */
    int units;                   /* > 0: the note starts with microseconds per unit ... */
    const char *unit;            /* ... named so ("op", "node") */
    char note[128];
    bench_timing t;
} bench_variant;

/* Variants timed together: each round runs every one of them once, in turn. The machine is
   shared, and another program's burst of work then slows all of them alike, so the ratios
   between them (compiled vs eager, 1 vs all threads) stay meaningful. */
typedef struct bench_group { bench_variant v[BENCH_MAX_VARIANTS]; int n; } bench_group;

static bench_variant *bench_variant_add(bench_group *g, const char *mode, int threads, void (*run)(void *), void *arg) {
    bench_variant *v;
    if (g->n >= BENCH_MAX_VARIANTS) { fprintf(stderr, "bench: too many variants\n"); exit(1); }
    v = &g->v[g->n++];
    memset(v, 0, sizeof *v);
    snprintf(v->mode, sizeof v->mode, "%s", mode);
    v->threads = threads;
    v->run = run;
    v->arg = arg;
    return v;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The plan in effect for rounds of about round_s seconds: quick mode keeps 3 to 5 short runs;
   rounds under a millisecond get up to 101 runs (they cost nothing and p95 needs samples). */
static int bench_run_count(bench_plan p, double round_s) {
    int runs, max = p.max_runs;
    double target = p.target_s;
    if (bench_quick) { target = 0.2; max = max < 5 ? max : 5; }
    else if (round_s < 1e-3) max = BENCH_MAX_RUNS;
    runs = round_s > 0.0 ? (int)(target / round_s) : max;
    if (runs < (bench_quick ? 3 : p.min_runs)) runs = bench_quick ? 3 : p.min_runs;
    if (runs > max) runs = max;
    return runs;
}

/* Median, p95 (nearest rank) and fastest of n samples (sorted in place). */
static bench_timing bench_summarize(double *t, int n) {
    bench_timing r;
    qsort(t, (size_t)n, sizeof t[0], bench_cmp_double);
    r.runs = n;
    r.median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    r.p95_s = t[(int)ceil(0.95 * n) - 1];
    r.best_s = t[0];
    return r;
}

static double bench_time_once(const bench_variant *v) {
    double t0 = bench_now();
    v->run(v->arg);
    return bench_now() - t0;
}

/* Times the variants of a group (those without a solo plan round by round, the others alone
   afterwards), at least one warm-up round first: it also tells how long a round takes. */
static void bench_measure_group(bench_group *g, bench_plan p) {
    static double t[BENCH_MAX_VARIANTS][BENCH_MAX_RUNS];
    double best[BENCH_MAX_VARIANTS], round_s = 0.0;
    int i, r, runs, warmup = bench_quick || p.warmup < 1 ? 1 : p.warmup;
    for (i = 0; i < g->n; i++) best[i] = 1e30;
    for (r = 0; r < warmup; r++)
        for (i = 0; i < g->n; i++) {
            double dt;
            if (g->v[i].solo) continue;
            dt = bench_time_once(&g->v[i]);
            if (dt < best[i]) best[i] = dt;
        }
    for (i = 0; i < g->n; i++) if (!g->v[i].solo) round_s += best[i];
    runs = bench_run_count(p, round_s);
    for (r = 0; r < runs; r++)
        for (i = 0; i < g->n; i++)
            if (!g->v[i].solo) t[i][r] = bench_time_once(&g->v[i]);
    for (i = 0; i < g->n; i++) {
        bench_variant *v = &g->v[i];
        if (v->solo) {                                   /* alone, with its own plan */
            double once = 1e30;
            int n;
            for (r = 0; r < (bench_quick || v->solo->warmup < 1 ? 1 : v->solo->warmup); r++) {
                double dt = bench_time_once(v);
                if (dt < once) once = dt;
            }
            n = bench_run_count(*v->solo, once);
            for (r = 0; r < n; r++) t[i][r] = bench_time_once(v);
            v->t = bench_summarize(t[i], n);
        } else {
            v->t = bench_summarize(t[i], runs);
        }
    }
}

/* ---- threads for the plain C references ------------------------------------------------------ */

typedef void (*bench_part_fn)(void *arg, int part, int parts);
typedef struct bench_part { bench_part_fn fn; void *arg; int part, parts; } bench_part;

static void *bench_part_main(void *p) {
    bench_part *b = (bench_part *)p;
    b->fn(b->arg, b->part, b->parts);
    return NULL;
}

/* fn(arg, i, n) for every part i < n, part 0 on the calling thread and the others on new
   threads; returns when all are done. Starting a thread costs tens of microseconds, nothing
   next to the milliseconds each part runs here. */
static void bench_parallel(int n, bench_part_fn fn, void *arg) {
    pthread_t th[256];
    bench_part parts[256];
    int i, started = 0;
    if (n > 256) n = 256;
    for (i = 0; i < n; i++) { parts[i].fn = fn; parts[i].arg = arg; parts[i].part = i; parts[i].parts = n; }
    for (i = 1; i < n; i++, started++)
        if (pthread_create(&th[i], NULL, bench_part_main, &parts[i]) != 0) break;
    fn(arg, 0, n);
    for (i = started + 1; i < n; i++) fn(arg, i, n);     /* parts no thread could be made for */
    for (i = 1; i <= started; i++) pthread_join(th[i], NULL);
}

/* [lo, hi) of part `part` of `parts` over n elements, cut at multiples of 16 (whole vectors). */
static void bench_share(int64_t n, int part, int parts, int64_t *lo, int64_t *hi) {
    int64_t blocks = (n + 15) / 16;
    *lo = blocks * part / parts * 16;
    *hi = blocks * (part + 1) / parts * 16;
    if (*hi > n) *hi = n;
    if (*lo > n) *lo = n;
}

/* ---- the results table ----------------------------------------------------------------------- */

/* pct_of_peak is computed against the machine limits measured first, at the same thread count:
   compute-bound rows against the FMA peak of the row's own isa (an AVX2 run is judged by what
   AVX2 can do, not by AVX-512's peak), bandwidth-bound rows against the triad. */
enum { BENCH_PCT_NONE, BENCH_PCT_FLOPS, BENCH_PCT_BYTES };

typedef struct bench_row {
    char workload[32], mode[24], isa[16];
    int threads;
    double median_ms, p95_ms, gflops, gbytes_s, pct;   /* gflops, gbytes_s, pct < 0: empty cell */
} bench_row;

#define BENCH_MAX_ROWS 160
static bench_row bench_rows[BENCH_MAX_ROWS];
static int bench_n_rows;
static FILE *bench_csv;
static double bench_triad_gbs[2];                        /* [0]: 1 thread, [1]: all threads */

static int bench_tidx(int threads) { return threads > 1; }

/* The FMA peak of each ISA measured, by name: rows look theirs up by their isa column. */
#define BENCH_MAX_PEAKS 4
typedef struct bench_peak { const char *isa; double gflops[2]; } bench_peak;
static bench_peak bench_peaks[BENCH_MAX_PEAKS];
static int bench_n_peaks;

static bench_peak *bench_peak_entry(const char *isa) {
    int i;
    for (i = 0; i < bench_n_peaks; i++)
        if (!strcmp(bench_peaks[i].isa, isa)) return &bench_peaks[i];
    return NULL;
}

/* Keeps the fastest FMA rate seen for (isa, thread count). */
static void bench_set_peak(const char *isa, int threads, double gflops) {
    bench_peak *p = bench_peak_entry(isa);
    int ti = bench_tidx(threads);
    if (!p && bench_n_peaks < BENCH_MAX_PEAKS) {
        p = &bench_peaks[bench_n_peaks++];
        memset(p, 0, sizeof *p);
        p->isa = isa;
    }
    if (p && gflops > p->gflops[ti]) p->gflops[ti] = gflops;
}

/* The FMA peak of isa at that thread count, or 0 when none was measured (NEON has no peak
   kernel; "compiler" rows are plain C loops): such rows leave pct_of_peak empty. */
static double bench_peak_of(const char *isa, int threads) {
    const bench_peak *p = isa ? bench_peak_entry(isa) : NULL;
    return p ? p->gflops[bench_tidx(threads)] : 0.0;
}

/* Opens the CSV and writes its header line: the columns bench_add_row writes, in order. */
static int bench_csv_open(const char *path) {
    bench_csv = fopen(path, "w");
    if (!bench_csv) return 0;
    fprintf(bench_csv, "workload,mode,threads,median_ms,p95_ms,gflops,gbytes_s,pct_of_peak,isa\n");
    return 1;
}

static void bench_cell(char *buf, size_t size, const char *fmt, double v) {
    if (v < 0.0) buf[0] = '\0';
    else snprintf(buf, size, fmt, v);
}

static void bench_print_header(void) {
    printf("%-22s %-17s %3s %-8s %11s %11s %9s %9s %7s  %s\n", "workload", "mode", "thr", "isa", "median_ms",
           "p95_ms", "GFLOP/s", "GB/s", "%peak", "note");
}

/* Adds a row: printed at once (the run takes minutes) and written to the CSV. isa: the
   instruction set the row's code ran (see bench_variant). */
static const bench_row *bench_add_row(const char *workload, const char *mode, int threads, const char *isa,
                                      bench_timing t, double flops, double bytes, int pct_kind, const char *note) {
    bench_row *r = &bench_rows[bench_n_rows < BENCH_MAX_ROWS - 1 ? bench_n_rows++ : bench_n_rows];
    char g[32], b[32], p[32];
    int ti = bench_tidx(threads);
    double peak = bench_peak_of(isa, threads);
    snprintf(r->workload, sizeof r->workload, "%s", workload);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    snprintf(r->isa, sizeof r->isa, "%s", isa ? isa : "");
    r->threads = threads;
    r->median_ms = t.median_s * 1e3;
    r->p95_ms = t.p95_s * 1e3;
    r->gflops = flops > 0.0 ? flops / t.median_s * 1e-9 : -1.0;
    r->gbytes_s = bytes > 0.0 ? bytes / t.median_s * 1e-9 : -1.0;
    r->pct = -1.0;
    if (pct_kind == BENCH_PCT_FLOPS && r->gflops >= 0.0 && peak > 0.0)
        r->pct = 100.0 * r->gflops / peak;
    if (pct_kind == BENCH_PCT_BYTES && r->gbytes_s >= 0.0 && bench_triad_gbs[ti] > 0.0)
        r->pct = 100.0 * r->gbytes_s / bench_triad_gbs[ti];
    bench_cell(g, sizeof g, "%.2f", r->gflops);
    bench_cell(b, sizeof b, "%.2f", r->gbytes_s);
    bench_cell(p, sizeof p, "%.1f", r->pct);
    printf("%-22s %-17s %3d %-8s %11.4f %11.4f %9s %9s %7s  %s\n", r->workload, r->mode, threads, r->isa,
           r->median_ms, r->p95_ms, g, b, p, note ? note : "");
    fflush(stdout);
    bench_cell(g, sizeof g, "%.4f", r->gflops);
    bench_cell(b, sizeof b, "%.4f", r->gbytes_s);
    bench_cell(p, sizeof p, "%.2f", r->pct);
    if (bench_csv) fprintf(bench_csv, "%s,%s,%d,%.6f,%.6f,%s,%s,%s,%s\n", r->workload, r->mode, threads,
                           r->median_ms, r->p95_ms, g, b, p, r->isa);
    return r;
}

/* The row of (workload, mode, threads), or NULL: for the summary. */
static const bench_row *bench_find(const char *workload, const char *mode, int threads) {
    int i;
    for (i = 0; i < bench_n_rows; i++)
        if (!strcmp(bench_rows[i].workload, workload) && !strcmp(bench_rows[i].mode, mode) &&
            bench_rows[i].threads == threads)
            return &bench_rows[i];
    return NULL;
}

/* ---- failing loudly -------------------------------------------------------------------------- */

static void bench_fail(const char *where, const char *msg) {
    fflush(stdout);
    printf("\nFAILED in %s: %s\n", where, msg ? msg : "(no message)");
    fprintf(stderr, "bench: FAILED in %s: %s\n", where, msg ? msg : "(no message)");
    exit(1);
}

static void bench_ctx_ok(tt_ctx *c, const char *where) {
    if (tt_ctx_status(c) != TT_OK) bench_fail(where, tt_error(c));
}

static void bench_graph_ok(tt_graph *g, const char *where) {
    if (!g) bench_fail(where, "no graph");
    if (tt_graph_status(g) != TT_OK) bench_fail(where, tt_graph_error(g));
}

#endif
