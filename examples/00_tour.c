/* build: cc -std=c99 -O2 -I.. 00_tour.c -lm -lpthread && ./a.out [dir]   (or: make demo)

   00_tour - tinytrace in five screens: eager ops like PyTorch's; a CNN traced into a graph and
   compiled (fused, memory planned, eager's bits); how fast it runs here; the graph saved, loaded
   and exported as C for firmware; where to go next. Every claim it prints is checked against C
   loops or values worked out by hand (exit 1 naming what failed); timings are only printed.
   DIR ("." if none) receives the files it writes. */
#define _POSIX_C_SOURCE 200809L                       // for clock_gettime
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EAGER, GRAPH, MATMUL, RUNS = 101, N = 512 };
typedef struct model { tt_tensor *w[4], *b[4]; } model;     // two convs, two linears
static int failures;
static void check(int ok, const char *claim) { if (!ok) printf("FAILED: %s\n", claim ? claim : "?"), failures++; }

// [conv 3x3 -> relu -> max pool 2] x 2 -> global average pool -> linear -> x*0.5+0.1 -> gelu -> linear
static tt_tensor *forward(tt_ctx *c, tt_tensor *x, const model *m) {
    for (int i = 0; i < 2; i++) x = tt_max_pool2d(c, tt_relu(c, tt_conv2d(c, x, m->w[i], m->b[i], 1, 1, 1, 1)), 2, 0, 0);
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);                      // [8,32]
    x = tt_gelu(c, tt_add_scalar(c, tt_mul_scalar(c, tt_linear(c, x, m->w[2], m->b[2]), 0.5f), 0.1f));
    return tt_linear(c, x, m->w[3], m->b[3]);                                          // [8,10]
}

// The size of file `path` (-1 if unreadable); its first n-1 bytes into head, NUL-terminated.
static long file_head(const char *path, char *head, size_t n) {
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, n - 1, f) : 0;
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    head[got] = 0;
    if (f) fclose(f);
    return size;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median of `runs` timed runs (after one warm-up) of: the eager model, graph g, or a @ b.
static double median_ms(tt_ctx *c, int what, tt_graph *g, tt_tensor *a, tt_tensor *b, const model *m, int runs) {
    double ms[RUNS + 1];
    for (int r = 0; r <= runs; r++) {
        tt_scope s = tt_scope_begin(c);               // eager's tensors freed at the scope's end
        double t0 = now_ms();
        if (what == EAGER) forward(c, a, m);
        else if (what == GRAPH) tt_graph_run(g, &a, 1);
        else tt_matmul(c, a, b);
        ms[r] = now_ms() - t0;
        tt_scope_end(c, s);
    }
    qsort(ms + 1, (size_t)runs, sizeof ms[0], by_value);
    return ms[1 + runs / 2];
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512], cpath[512], head[4096];
    tt_ctx *c = tt_ctx_create(NULL), *wc = tt_ctx_create(NULL);        // work; weights
    static const int64_t wshape[4][4] = {{16, 3, 3, 3}, {32, 16, 3, 3}, {64, 32}, {10, 64}};
    static const float scale[4] = {0.3f, 0.1f, 0.2f, 0.15f};
    int64_t xshape[4] = {8, 3, 32, 32}, two_three[2] = {2, 3}, three_two[2] = {3, 2}, nn[2] = {N, N};
    model m;
    for (int i = 0; i < 4; i++) {
        m.w[i] = tt_mul_scalar(wc, tt_randn(wc, (uint64_t)(10 + i), i < 2 ? 4 : 2, wshape[i]), scale[i]);
        m.b[i] = tt_mul_scalar(wc, tt_randn(wc, (uint64_t)(20 + i), 1, wshape[i]), 0.1f);
    }

    printf("== 1. Eager ops: tensors in, tensors out, computed at once (like PyTorch, in C)\n");
    static const float bv[6] = {1, 0, 0, 1, 1, 1};
    tt_tensor *a = tt_reshape(c, tt_arange(c, TT_F32, 1, 7, 1), 2, two_three);          // 1..6
    tt_tensor *b = tt_from_data(c, TT_F32, 2, three_two, bv);
    tt_tensor *ab = tt_matmul(c, a, b), *sm = tt_softmax(c, ab, -1);
    tt_print(a, "a"); tt_print(b, "b"); tt_print(ab, "a @ b"); tt_print(sm, "softmax(a @ b, -1)");
    float got[4] = {0}, soft[4] = {0};
    int ok = tt_copy_to_f32(c, ab, got, 4) == TT_OK && tt_copy_to_f32(c, sm, soft, 4) == TT_OK;
    for (int i = 0; i < 4 && ok; i++) {               // the same by C loops (the products: exact)
        float s = 0;                                  // row i/2 of a (1 + 3*(i/2) + k), column i%2 of b
        for (int k = 0; k < 3; k++) s += (float)(1 + 3 * (i / 2) + k) * bv[2 * k + i % 2];
        ok = got[i] == s && fabs(soft[i] - 1.0 / (1.0 + exp((double)got[i ^ 1] - got[i]))) < 1e-6;
    }
    printf("plain C loops: a @ b = [[4, 5], [10, 11]], softmax the same: %s\n", ok ? "yes" : "NO");
    check(ok, "eager matmul and softmax against C loops");

    printf("\n== 2. Trace a small CNN: run it once, every op is recorded into a graph\n");
    tt_tensor *x = tt_randn(c, 1, 4, xshape), *x2 = tt_randn(c, 2, 4, xshape), *y;
    tt_trace_begin(c);
    y = forward(c, tt_trace_input(c, x, "image"), &m);
    tt_graph *g = tt_trace_end(c, &y, 1);
    if (!g) { printf("FAILED: trace: %s\n", tt_error(c)); return 1; }
    tt_graph_print(g);
    printf("-- compiled (TT_PASS_ALL): each conv or linear and the elementwise ops after it: one node\n");
    if (tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) printf("FAILED: %s\n", tt_graph_error(g));
    tt_graph_print(g);                                // a compile error shows in the run below
    tt_graph_stats st = tt_graph_get_stats(g);
    printf("memory plan: %zu bytes with buffers reused, %zu without\n", st.arena_bytes, st.unplanned_bytes);
    check(st.nodes < st.nodes_traced && st.fused_nodes == 3 && st.arena_bytes < st.unplanned_bytes, "fused, planned");
    float want[80], out[80] = {0}, back[80] = {0};
    ok = tt_copy_to_f32(c, forward(c, x2, &m), want, 80) == TT_OK && tt_graph_run(g, &x2, 1) == TT_OK &&
         tt_copy_to_f32(c, tt_graph_output(g, 0), out, 80) == TT_OK && memcmp(out, want, sizeof out) == 0;
    printf("on a new input, compiled == eager bit for bit (memcmp): %s\n", ok ? "yes" : "NO");
    check(ok, "compiled == eager bitwise");

    printf("\n== 3. How fast here: %s kernels (chosen at run time, no -m flags), %d thread(s)\n",
           tt_ctx_isa(c), tt_ctx_num_threads(c));
    double eager = median_ms(c, EAGER, NULL, x2, NULL, &m, RUNS), compiled = median_ms(c, GRAPH, g, x2, NULL, &m, RUNS);
    printf("the CNN on 8 images of 3x32x32, median of %d: eager %.3f ms, compiled %.3f ms (%.2fx)\n",
           RUNS, eager, compiled, eager / compiled);
    tt_tensor *p = tt_randn(c, 3, 2, nn), *q = tt_randn(c, 4, 2, nn), *pq = tt_matmul(c, p, q);
    double ms = median_ms(c, MATMUL, NULL, p, q, &m, 15), dot = 0, mag = 0;
    const float *pv = pq ? (const float *)tt_data(p) + 7 * N : NULL, *qv = pv ? (const float *)tt_data(q) + 11 : NULL;
    for (int k = 0; qv && k < N; k++) dot += (double)pv[k] * qv[k * N], mag += fabs((double)pv[k] * qv[k * N]);
    ok = qv && fabs(((const float *)tt_data(pq))[7 * N + 11] - dot) <= 3e-5 * mag;   // C[7][11]: 512 roundings at most
    printf("SGEMM %dx%dx%d (tt_matmul, median of 15): %.2f ms, %.1f GFLOP/s; C[7][11] = a C loop's: %s\n",
           N, N, N, ms, 2e-6 * N * N * N / ms, ok ? "yes" : "NO");
    check(ok, "SGEMM element against a C loop");
    tt_ctx_desc d = tt_ctx_desc_default();
    d.isa = "scalar";                                 // the same SGEMM by the plain C kernels
    tt_ctx *sc = tt_ctx_create(&d);
    double plain = sc ? median_ms(sc, MATMUL, NULL, tt_randn(sc, 3, 2, nn), tt_randn(sc, 4, 2, nn), &m, 3) : 0;
    printf("the same by plain C kernels (\"scalar\", median of 3): %.2f ms, %.1f GFLOP/s\n", plain, 2e-6 * N * N * N / plain);
    tt_ctx_destroy(sc);

    printf("\n== 4. Deploy: save, load, run; or export as C source for a microcontroller\n");
    snprintf(path, sizeof path, "%s/tour_cnn.ttg", dir);
    size_t bytes = tt_graph_save_memory(g, NULL, 0);
    tt_graph *h = tt_graph_save(g, path) == TT_OK ? tt_graph_load(c, path) : NULL;
    ok = h && tt_graph_run(h, &x2, 1) == TT_OK && tt_copy_to_f32(c, tt_graph_output(h, 0), back, 80) == TT_OK &&
         memcmp(back, out, sizeof out) == 0 && file_head(path, head, 2) == (long)bytes;
    printf("saved %s (%zu bytes); loaded back and run: same bits: %s\n", path, bytes, ok ? "yes" : "NO");
    check(ok, !h && tt_ctx_status(c) ? tt_error(c) : tt_graph_status(g) ? tt_graph_error(g) : "save and load");
    tt_graph_clear_error(g);                          // so that an export error shows as its own
    size_t banded = tt_graph_export_arena(g, 0), whole = tt_graph_export_arena(g, TT_EXPORT_NO_BANDS);
    snprintf(cpath, sizeof cpath, "%s/tour_cnn.c", dir);
    long csize = tt_graph_export_c(g, dir, "tour_cnn") == TT_OK ? file_head(cpath, head, sizeof head) : -1;
    ok = csize > 0 && strstr(head, "#define TT_NO_MALLOC") && strstr(head, "#define TT_NO_THREADS") &&
         strstr(head, "#define TT_NO_STDIO") && strstr(head, "static const float") && banded > 0 && banded < whole;
    printf("exported %s/tour_cnn.h and %s (%ld bytes): weights as static const, and\n"
           "  tour_cnn_run(inputs, outputs, arena) with no heap, threads or stdio: %s\n", dir, cpath, csize, ok ? "yes" : "NO");
    printf("  its arena: %zu bytes, conv -> relu -> pool run by bands of rows (%zu with whole maps)\n", banded, whole);
    check(ok, tt_graph_status(g) != TT_OK ? tt_graph_error(g) : "export: files, no heap/threads/stdio, smaller arena");

    printf("\n== 5. Next: the course, one idea a lesson, each checking what it claims\n");
    printf("examples/01_tensors.c ... 11_gpu.c   the lessons, in order (README \"Lessons\")\n");
    printf("  03_trace_mlp.c: each pass at work   04b, 04c: graph files   09_firmware.c: the exported C\n");
    printf("docs/COURSE.md: the outline, exercises   docs/TRACING.md: the tape, the tracer, every pass\n");
    tt_graph_destroy(h); tt_graph_destroy(g);
    tt_ctx_destroy(wc); tt_ctx_destroy(c);
    printf("\n%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
