/* bench_chain.c - the fused elementwise chain: compiled graph vs eager vs one plain C loop.

   The formula (9 ops): y = tanh(x*1.5 + 0.5) * sigmoid(x) - x*x, then y*0.25 + x.
   Figures are medians of 9 runs after 2 warm-up runs, measured in this one process, and
   printed as ratios (the machine is shared and noisy: compare only within one run).
   Build: make bench */
#define _POSIX_C_SOURCE 199309L
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CHAIN_N
#define CHAIN_N     (16 * 1024 * 1024)
#endif
#define RUNS  9

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n) { qsort(t, (size_t)n, sizeof *t, cmp_double); return t[n / 2]; }

/* The chain written with eager ops: every op reads and writes a whole 64 MiB array. */
static tt_tensor *chain(tt_ctx *c, tt_tensor *x) {
    tt_tensor *a = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, x, 1.5f), 0.5f));
    tt_tensor *y = tt_sub(c, tt_mul(c, a, tt_sigmoid(c, x)), tt_mul(c, x, x));
    return tt_add(c, tt_mul_scalar(c, y, 0.25f), x);
}

/* The same formula as one C loop, with libm (what a C programmer writes first). */
static void chain_c(float *y, const float *x, long n) {
    long i;
    for (i = 0; i < n; i++) {
        float v = x[i];
        float t = tanhf(v * 1.5f + 0.5f) * (1.0f / (1.0f + expf(-v))) - v * v;
        y[i] = t * 0.25f + v;
    }
}

/* The same loop with tinytrace's vectorizable exp/tanh: the best one pass can do, so the
   ratio to it is the cost of running the chain as a fused program. */
static void chain_c_fastmath(float *y, const float *x, long n) {
    long i;
    for (i = 0; i < n; i++) {
        float v = x[i];
        float t = tt__tanhf(v * 1.5f + 0.5f) * (1.0f / (1.0f + tt__expf(-v))) - v * v;
        y[i] = t * 0.25f + v;
    }
}

int main(void) {
    int64_t shape[1] = {CHAIN_N};
    tt_ctx_desc desc = tt_ctx_desc_default();
    tt_ctx *c, *call;                                  /* one thread (like the C loops), all threads */
    tt_graph *gall;
    double ta[RUNS];
    desc.n_threads = 1;
    c = tt_ctx_create(&desc);
    call = tt_ctx_create(NULL);
    tt_tensor *x = tt_randn(c, 7, 1, shape), *ye, *out;
    float *yc = (float *)malloc(sizeof(float) * CHAIN_N);
    double te[RUNS], tg[RUNS], tc[RUNS], tf[RUNS];
    tt_graph *g;
    tt_graph_stats st;
    int r;
    if (!x || !yc) { printf("out of memory\n"); return 1; }
    tt_trace_begin(c);
    tt_trace_input(x, "x");
    ye = chain(c, x);
    g = tt_trace_end(c, &ye, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) {
        printf("trace/compile failed: %s %s\n", tt_error(c), g ? tt_graph_error(g) : "");
        return 1;
    }
    {                                                  /* the same chain traced on an all-threads context */
        tt_tensor *xa = tt_randn(call, 7, 1, shape), *ya;
        tt_trace_begin(call);
        tt_trace_input(xa, "x");
        ya = chain(call, xa);
        gall = tt_trace_end(call, &ya, 1);
        if (!gall || tt_graph_compile(gall, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) { printf("trace failed\n"); return 1; }
        for (r = -2; r < RUNS; r++) {
            double t0 = now_ms();
            tt_graph_run(gall, &xa, 1);
            if (r >= 0) ta[r] = now_ms() - t0;
        }
    }
    for (r = -2; r < RUNS; r++) {
        tt_scope s = tt_scope_begin(c);
        double t0 = now_ms(), t1, t2, t3, t4;
        ye = chain(c, x);
        t1 = now_ms();
        tt_graph_run(g, &x, 1);
        t2 = now_ms();
        chain_c(yc, (const float *)tt_data(x), CHAIN_N);
        t3 = now_ms();
        chain_c_fastmath(yc, (const float *)tt_data(x), CHAIN_N);
        t4 = now_ms();
        if (r >= 0) { te[r] = t1 - t0; tg[r] = t2 - t1; tc[r] = t3 - t2; tf[r] = t4 - t3; }
        if (r == RUNS - 1) {                           /* the graph must give eager's bits */
            out = tt_graph_output(g, 0);
            if (memcmp(tt_data(out), tt_data(ye), sizeof(float) * CHAIN_N) != 0) { printf("MISMATCH graph vs eager\n"); return 1; }
        }
        tt_scope_end(c, s);
    }
    st = tt_graph_get_stats(g);
    printf("elementwise chain, 9 ops on %d floats (median of %d runs; 1 thread unless said)\n", CHAIN_N, RUNS);
    printf("  graph: %d traced nodes -> %d after compile, %d fused node(s), longest chain %d ops\n",
           st.nodes_traced, st.nodes, st.fused_nodes, st.max_fused_ops);
    printf("  arena %.1f MiB (no reuse: %.1f MiB), scratch %.1f KiB\n", st.arena_bytes / 1048576.0,
           st.unplanned_bytes / 1048576.0, st.scratch_bytes / 1024.0);
    {
        double e = median(te, RUNS), gr = median(tg, RUNS), hc = median(tc, RUNS), hf = median(tf, RUNS);
        printf("  %-34s %9.2f ms\n", "eager (9 passes over memory)", e);
        printf("  %-34s %9.2f ms   %.2fx faster than eager\n", "compiled graph (one fused node)", gr, e / gr);
        printf("  %-34s %9.2f ms   graph / loop = %.2f\n", "C loop, libm tanhf/expf", hc, gr / hc);
        printf("  %-34s %9.2f ms   graph / loop = %.2f\n", "C loop, tinytrace's exp/tanh", hf, gr / hf);
        printf("  %-34s %9.2f ms   %.2fx the 1-thread graph (%d threads)\n", "compiled graph, all threads",
               median(ta, RUNS), gr / median(ta, RUNS), tt_ctx_num_threads(call));
        printf("  graph traffic: %.1f GB/s (reads x, writes y)\n", 2.0 * CHAIN_N * 4 / (gr * 1e6));
    }
    tt_graph_destroy(g);
    tt_graph_destroy(gall);
    tt_ctx_destroy(c);
    tt_ctx_destroy(call);
    free(yc);
    return 0;
}
