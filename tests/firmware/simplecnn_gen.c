/* simplecnn_gen.c - a host program of `make firmware`: traces the SimpleCNN of the firmware
   issue (input [1,3,32,32]; conv 3->32 3x3 pad 1 + batch norm + ReLU + max-pool 2; conv 32->64
   3x3 pad 1 + batch norm + ReLU; global average pool; linear 64->10; 20,234 parameters, from
   seeds), compiles it with every pass and the weights frozen (batch norm folds into the convs),
   runs it on tt_randn(seed 7), and writes OUT.h: the .ttg bytes as a const array (flash on the
   device), the host's logits, and the graph's arena and scratch sizes.
   usage: simplecnn_gen OUT.h */
#define TINYTRACE_IMPLEMENTATION
#include "../../tinytrace.h"

#include <stdio.h>
#include <stdlib.h>

/* conv 3x3 pad 1 + batch norm + ReLU (+ max-pool 2). */
static tt_tensor *block(tt_ctx *c, tt_ctx *wc, tt_tensor *x, int64_t cin, int64_t cout, uint64_t seed, int pool) {
    int64_t ws[4] = {cout, cin, 3, 3};
    tt_tensor *w = tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.2f), *b = tt_randn(wc, seed + 1, 1, &cout);
    tt_tensor *mean = tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &cout), 0.1f);
    tt_tensor *var = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &cout), 0.5f);
    x = tt_relu(c, tt_batch_norm(c, tt_conv2d(c, x, w, b, 1, 1, 1, 1), mean, var, NULL, NULL, 1e-5f));
    return pool ? tt_max_pool2d(c, x, 2, 0, 0) : x;
}

int main(int argc, char **argv) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c, *wc = tt_ctx_create(NULL);
    int64_t xs[4] = {1, 3, 32, 32}, fs[2] = {10, 64}, ten = 10;
    tt_tensor *x, *y;
    tt_graph *g;
    tt_graph_stats st;
    unsigned char *bytes;
    size_t n, i;
    FILE *f;
    if (argc != 2) { fprintf(stderr, "usage: %s OUT.h\n", argv[0]); return 2; }
    d.n_threads = 1;                                   /* a device has one core: scratch for one thread */
    c = tt_ctx_create(&d);
    x = tt_randn(c, 7, 4, xs);
    tt_trace_begin(c);
    y = block(c, wc, tt_trace_input(c, x, "image"), 3, 32, 1, 1);
    y = block(c, wc, y, 32, 64, 10, 0);
    y = tt_flatten(c, tt_adaptive_avg_pool2d(c, y, 1, 1), 1, -1);
    y = tt_linear(c, y, tt_mul_scalar(wc, tt_randn(wc, 20, 2, fs), 0.2f), tt_randn(wc, 21, 1, &ten));
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK || tt_graph_run(g, &x, 1) != TT_OK) {
        fprintf(stderr, "simplecnn_gen: %s\n", g ? tt_graph_error(g) : tt_error(c));
        return 1;
    }
    st = tt_graph_get_stats(g);
    n = tt_graph_save_memory(g, NULL, 0);
    bytes = (unsigned char *)malloc(n);
    f = fopen(argv[1], "w");
    if (!bytes || !f || tt_graph_save_memory(g, bytes, n) != n) return 1;
    fprintf(f, "/* written by tests/firmware/simplecnn_gen.c: SimpleCNN as a compiled .ttg graph */\n");
    fprintf(f, "#define SIMPLECNN_ARENA_BYTES %lu\n#define SIMPLECNN_SCRATCH_BYTES %lu\n#define SIMPLECNN_WEIGHT_BYTES %lu\n",
            (unsigned long)st.arena_bytes, (unsigned long)st.scratch_bytes, (unsigned long)st.constant_bytes);
    fprintf(f, "static const union { unsigned char bytes[%lu]; unsigned align; } simplecnn_ttg = {{", (unsigned long)n);
    for (i = 0; i < n; i++) fprintf(f, "%s%u,", i % 24 ? "" : "\n", bytes[i]);
    fprintf(f, "\n}};\nstatic const float simplecnn_logits[10] = {");
    for (i = 0; i < 10; i++) fprintf(f, "%.9ef,", (double)((const float *)tt_data(tt_graph_output(g, 0)))[i]);
    fprintf(f, "};\n");
    fclose(f);
    printf("simplecnn_gen: %lu-byte graph (%lu of weights), arena %lu B, scratch %lu B\n", (unsigned long)n,
           (unsigned long)st.constant_bytes, (unsigned long)st.arena_bytes, (unsigned long)st.scratch_bytes);
    free(bytes);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    return 0;
}
