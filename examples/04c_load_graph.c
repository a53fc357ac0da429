/* build: cc -std=c99 -O2 -I.. 04c_load_graph.c -lm -lpthread && ./a.out [dir]

   04c_load_graph - run a model from a file, in a program that has none of its code
   (torch::jit::load in C++). It loads DIR/simple_cnn.ttg, written by 04b_save_graph, asks the
   graph what input it wants, makes the same input 04 used (tt_randn, seed 2026), runs it, and
   checks the output against DIR/simple_cnn.out bit for bit. Run 04b_save_graph first. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char graph_path[512], out_path[512];
    float want[64];
    int64_t shape[TT_MAX_DIMS];
    tt_dtype dtype;
    int ndim, ok;
    size_t n_want;
    FILE *f;
    tt_ctx *c = tt_ctx_create(NULL);
    tt_graph *g;
    tt_tensor *x, *y;
    snprintf(graph_path, sizeof graph_path, "%s/simple_cnn.ttg", dir);
    snprintf(out_path, sizeof out_path, "%s/simple_cnn.out", dir);

    // 1. Load: every byte is checked; a broken file is an error that says what is wrong.
    g = tt_graph_load(c, graph_path);
    if (!g) {
        printf("%s (run 04b_save_graph first)\n", tt_error(c));
        return 1;
    }
    tt_graph_print(g);

    // 2. The graph says what it takes: here "image", f32 [2,3,16,16].
    tt_graph_input_shape(g, 0, &dtype, &ndim, shape);
    printf("input 0: '%s', %s, %d dims\n", tt_graph_input_name(g, 0), tt_dtype_name(dtype), ndim);
    x = tt_randn(c, 2026, ndim, shape);

    // 3. Run, and compare with what the saving program computed.
    if (tt_graph_run(g, &x, 1) != TT_OK) {
        printf("run failed: %s\n", tt_graph_error(g));
        return 1;
    }
    y = tt_graph_output(g, 0);
    f = fopen(out_path, "rb");
    n_want = f ? fread(want, sizeof(float), 64, f) : 0;
    if (f) fclose(f);
    ok = n_want == (size_t)y->numel && memcmp(want, tt_data(y), n_want * sizeof(float)) == 0;
    printf("outputs equal the saving program's, bit for bit: %s\n", ok ? "yes" : "NO");
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return ok ? 0 : 1;
}
