/* build: cc -std=c99 -O2 -I.. 03_trace_mlp.c -lm -lpthread && ./a.out

   03_trace_mlp - trace an MLP and watch the compiler work on it. The model is one C function:
       x [64,256] -> linear 256->512 -> gelu -> linear 512->512 -> relu -> linear 512->10
   It runs eagerly, is traced into a graph, and compiled with TT_DEBUG_PASSES, which prints
   the graph after each pass: watch each activation become its linear's epilogue (done while
   the GEMM's result is still in cache). Checked: compiled == eager bit for bit, fewer nodes,
   a smaller arena, one row against plain C loops in double. Timings are printed, not checked. */
#define _POSIX_C_SOURCE 200809L                      // for clock_gettime
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 64, IN = 256, HID = 512, OUT = 10, RUNS = 50, ROW = 5 };

typedef struct mlp { tt_tensor *w1, *b1, *w2, *b2, *w3, *b3; } mlp;

// A random [rows, cols] weight (cols 0: a [rows] bias), scaled so values stay near 1.
static tt_tensor *param(tt_ctx *wc, uint64_t seed, int64_t rows, int64_t cols, float scale) {
    int64_t shape[2] = {rows, cols};
    return tt_mul_scalar(wc, tt_randn(wc, seed, cols ? 2 : 1, shape), scale);
}

// The model: every step is a tt_* op, so a trace records every step.
static tt_tensor *forward(tt_ctx *c, tt_tensor *x, const mlp *m) {
    tt_tensor *h = tt_gelu(c, tt_linear(c, x, m->w1, m->b1));    // [64,512]
    h = tt_relu(c, tt_linear(c, h, m->w2, m->b2));               // [64,512]
    return tt_linear(c, h, m->w3, m->b3);                        // [64,10]
}

// One layer of the reference, in double: out[j] = act(b[j] + sum_k w[j][k] * in[k]).
static void layer(const double *in, int n_in, const tt_tensor *w, const tt_tensor *b,
                  double *out, int n_out, char act) {
    const float *wv = (const float *)tt_data(w);     // contiguous: row j at wv + j*n_in
    const float *bv = (const float *)tt_data(b);
    for (int j = 0; j < n_out; j++) {
        double s = bv[j];
        for (int k = 0; k < n_in; k++) s += (double)wv[j * n_in + k] * in[k];
        if (act == 'g') s = 0.5 * s * (1.0 + erf(s / sqrt(2.0)));   // gelu, exact form
        if (act == 'r') s = s > 0.0 ? s : 0.0;                     // relu
        out[j] = s;
    }
}

// Largest |got - reference| over row ROW of the output, from plain loops in double.
static double row_error(const tt_tensor *x, const mlp *m, const float *got) {
    const float *xv = (const float *)tt_data(x);
    double in[IN], h1[HID], h2[HID], out[OUT], worst = 0.0;
    for (int k = 0; k < IN; k++) in[k] = xv[ROW * IN + k];
    layer(in, IN, m->w1, m->b1, h1, HID, 'g');
    layer(h1, HID, m->w2, m->b2, h2, HID, 'r');
    layer(h2, HID, m->w3, m->b3, out, OUT, 0);
    for (int j = 0; j < OUT; j++) worst = fmax(worst, fabs(got[ROW * OUT + j] - out[j]));
    return worst;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median time of RUNS runs after a warm-up: of g when given, else of eager forward.
static double median_ms(tt_ctx *c, tt_graph *g, tt_tensor *x, const mlp *m) {
    double ms[RUNS + 1];
    for (int r = 0; r <= RUNS; r++) {                 // run 0 is the warm-up
        tt_scope scope = tt_scope_begin(c);           // eager's tensors freed at scope end
        double t0 = now_ms();
        if (g) tt_graph_run(g, &x, 1);
        else forward(c, x, m);
        ms[r] = now_ms() - t0;
        tt_scope_end(c, scope);
    }
    qsort(ms + 1, RUNS, sizeof ms[0], by_value);
    return ms[1 + RUNS / 2];
}

// Steps 3 to 6 on a traced graph g (x2: a new input); returns 1 when a check fails.
static int compile_check_time(tt_ctx *c, tt_graph *g, const mlp *m, tt_tensor *x2) {
    tt_graph_print(g);                                // the graph as traced: one op a line
    printf("\n== 3. compile, printing the graph after each pass\n");
    tt_graph_set_debug(g, TT_DEBUG_PASSES);           // set before compiling
    if (tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) {
        printf("compile failed: %s\n", tt_graph_error(g));
        return 1;
    }
    printf("\n== 4. the compiled graph: each activation is now its linear's epilogue\n");
    tt_graph_print(g);
    tt_graph_stats st = tt_graph_get_stats(g);      // the numbers behind the "stats:" line
    printf("nodes: %d compiled < %d traced; arena: %zu bytes with buffer reuse <= %zu without\n",
           st.nodes, st.nodes_traced, st.arena_bytes, st.unplanned_bytes);
    int bad = st.nodes >= st.nodes_traced || st.arena_bytes > st.unplanned_bytes;

    printf("\n== 5. run the graph on a NEW input; compare with eager and with plain C\n");
    float got[BATCH * OUT], want[BATCH * OUT];
    if (tt_graph_run(g, &x2, 1) != TT_OK || tt_copy_to_f32(c, tt_graph_output(g, 0), got, BATCH * OUT) != TT_OK ||
        tt_copy_to_f32(c, forward(c, x2, m), want, BATCH * OUT) != TT_OK) {
        printf("run failed: %s %s\n", tt_graph_error(g) ? tt_graph_error(g) : "", tt_error(c) ? tt_error(c) : "");
        return 1;
    }
    int same = memcmp(got, want, sizeof got) == 0;    // DEFAULT mode promises eager's bits
    printf("compiled == eager, bitwise: %s\n", same ? "yes" : "NO");
    // Tolerance: a float sum of 512 products rounds each add by at most 2^-24 (6e-8) of the
    // partial sum (below 2 here); errors of random sign grow like sqrt(512)*6e-8*2 = 3e-6 per
    // layer, ~1e-5 after three. 1e-4 leaves 10x room; a real mistake moves outputs by >= 1e-2.
    double err = row_error(x2, m, got), tol = 1e-4;
    printf("row %d vs double-precision C loops: largest difference %.2g (tolerance %g)\n", ROW, err, tol);
    bad |= !same || !(err <= tol);                    // !(<=) also catches NaN

    // Expect little speedup: the GEMMs are most of the work and eager runs the same kernels.
    printf("\n== 6. time: median of %d runs each (not checked: machines differ)\n", RUNS);
    double eager = median_ms(c, NULL, x2, m), compiled = median_ms(c, g, x2, m);
    printf("eager %.3f ms, compiled %.3f ms: %.2fx; arena %zu bytes\n", eager, compiled,
           eager / compiled, st.arena_bytes);
    return bad;
}

int main(void) {
    tt_ctx *wc = tt_ctx_create(NULL), *c = tt_ctx_create(NULL);   // weights; everything else
    int64_t in_shape[2] = {BATCH, IN};
    mlp m;
    // Weights scaled by 1/sqrt(fan-in): 1/16 for 256 inputs, 0.0442 for 512, so values stay ~1.
    m.w1 = param(wc, 1, HID, IN, 0.0625f);    m.b1 = param(wc, 2, HID, 0, 0.1f);
    m.w2 = param(wc, 3, HID, HID, 0.0442f);   m.b2 = param(wc, 4, HID, 0, 0.1f);
    m.w3 = param(wc, 5, OUT, HID, 0.0442f);   m.b3 = param(wc, 6, OUT, 0, 0.1f);

    printf("== 1. eager: ops compute at once\n");
    tt_tensor *x = tt_randn(c, 7, 2, in_shape);
    tt_tensor *y = forward(c, x, &m);
    char shape[32];
    printf("output: %s\n", y ? tt_shape_str(y, shape, sizeof shape) : tt_error(c));

    printf("\n== 2. trace: the same function, recorded op by op\n");
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");                        // x becomes the graph's input
    y = forward(c, x, &m);                            // computes, and records each op
    tt_graph *g = tt_trace_end(c, &y, 1);             // weights made before: parameters
    if (!g) printf("trace failed: %s\n", tt_error(c));
    int bad = g ? compile_check_time(c, g, &m, tt_randn(c, 8, 2, in_shape)) : 1;
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    printf("\n%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    return bad;
}
