/* build: cc -std=c99 -O2 -I.. 04b_save_graph.c -lm -lpthread && ./a.out [dir]

   04b_save_graph - trace a model once, save the compiled graph to a file (torch.jit.save).
   A SimpleCNN (conv -> batch norm -> relu -> max pool, global average pool, linear) is traced,
   compiled with TT_PASS_FREEZE (the weights become constants of the graph, batch norm folds
   into the convolution), and saved as DIR/simple_cnn.ttg with tt_graph_save. The output for a
   fixed input goes to DIR/simple_cnn.out, so that 04c_load_graph, a program with no model code
   at all, can check that the graph it loads computes the very same bits. Before that, this
   program loads the file back itself and compares. DIR is the first argument ("." if none). */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>
#include <string.h>

// The model: weights made from seeds (a real program would load them, e.g. from safetensors).
static tt_tensor *forward(tt_ctx *c, tt_ctx *wc, tt_tensor *x) {
    int64_t cw[4] = {8, 3, 3, 3}, eight = 8, fw[2] = {10, 8}, ten = 10;
    tt_tensor *mean = tt_mul_scalar(wc, tt_randn(wc, 3, 1, &eight), 0.1f);
    tt_tensor *var = tt_add_scalar(wc, tt_rand(wc, 4, 1, &eight), 0.5f);
    x = tt_conv2d(c, x, tt_mul_scalar(wc, tt_randn(wc, 1, 4, cw), 0.3f), tt_randn(wc, 2, 1, &eight), 1, 1, 1, 1);
    x = tt_max_pool2d(c, tt_relu(c, tt_batch_norm(c, x, mean, var, NULL, NULL, 1e-5f)), 2, 0, 0);
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);        // [N,8]
    return tt_linear(c, x, tt_mul_scalar(wc, tt_randn(wc, 5, 2, fw), 0.3f), tt_randn(wc, 6, 1, &ten));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char graph_path[512], out_path[512];
    tt_ctx *c = tt_ctx_create(NULL), *wc = tt_ctx_create(NULL);
    int64_t shape[4] = {2, 3, 16, 16};
    tt_tensor *x = tt_randn(c, 2026, 4, shape), *y, *loaded_y;   // 05 makes the same input
    tt_graph *g, *loaded;
    FILE *f;
    snprintf(graph_path, sizeof graph_path, "%s/simple_cnn.ttg", dir);
    snprintf(out_path, sizeof out_path, "%s/simple_cnn.out", dir);

    // 1. Trace and compile: the weights are frozen into the graph, batch norm folded.
    tt_trace_begin(c);
    y = forward(c, wc, tt_trace_input(c, x, "image"));
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK) {
        printf("trace/compile failed: %s\n", g ? tt_graph_error(g) : tt_error(c));
        return 1;
    }
    tt_ctx_destroy(wc);                       // frozen: the graph no longer needs the weights
    tt_graph_print(g);

    // 2. Save the graph, and the output a loading program must reproduce.
    if (tt_graph_save(g, graph_path) != TT_OK || tt_graph_run(g, &x, 1) != TT_OK) {
        printf("save/run failed: %s\n", tt_graph_error(g));
        return 1;
    }
    y = tt_graph_output(g, 0);
    f = fopen(out_path, "wb");
    if (!f || fwrite(tt_data(y), sizeof(float), (size_t)y->numel, f) != (size_t)y->numel) return 1;
    fclose(f);
    printf("saved %s (%zu bytes) and %s\n", graph_path, tt_graph_save_memory(g, NULL, 0), out_path);

    // 3. Load it back here: the loaded graph computes the same bits.
    loaded = tt_graph_load(c, graph_path);
    if (!loaded || tt_graph_run(loaded, &x, 1) != TT_OK) {
        printf("load failed: %s\n", loaded ? tt_graph_error(loaded) : tt_error(c));
        return 1;
    }
    loaded_y = tt_graph_output(loaded, 0);
    if (memcmp(tt_data(loaded_y), tt_data(y), sizeof(float) * (size_t)y->numel) != 0) {
        printf("FAIL: the loaded graph differs from the saved one\n");
        return 1;
    }
    printf("loaded back: same outputs, bit for bit\n");
    tt_graph_destroy(loaded);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return 0;
}
