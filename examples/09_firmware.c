/* build: cc -std=c99 -O2 -I.. 09_firmware.c -lm -lpthread && ./a.out [DIR]; then the firmware
   on the host: cc -std=c99 -O2 -I.. -IDIR DIR/tinycnn.c DIR/tinycnn_main.c -lm -o fw && ./fw

   09_firmware - a traced model as C source for a microcontroller (like onnx2c, from a trace).
   A small CNN for 16x16 grey images (conv -> relu -> max pool, conv -> relu -> global average
   pool, linear) is traced and compiled with its weights frozen, then tt_graph_export_c writes
   DIR/tinycnn.h and DIR/tinycnn.c: the weights as static const arrays (flash), and
   tinycnn_run, one call per node into tinytrace's plain C kernels. No heap, no threads, no
   stdio, no interpreter: a firmware build compiles tinycnn.c with tinytrace.h on its include
   path and calls tinycnn_run. The memory it needs is planned here: with band fusion, each
   convolution's output never exists whole (it is pooled a band of rows at a time).
   This program prints the plan, the generated tinycnn_run, the firmware's main it writes as
   DIR/tinycnn_main.c (static buffers; exit status 0 when the generated self-test passes) and
   the sizes the device needs, checked against the files. DIR: the first argument ("." if none). */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>
#include <string.h>

// The model: weights made from seeds (a real program would load them, e.g. from safetensors).
static tt_tensor *forward(tt_ctx *c, tt_ctx *wc, tt_tensor *x) {
    int64_t w1[4] = {8, 1, 3, 3}, w2[4] = {16, 8, 3, 3}, eight = 8, sixteen = 16, fw[2] = {10, 16}, ten = 10;
    x = tt_conv2d(c, x, tt_mul_scalar(wc, tt_randn(wc, 1, 4, w1), 0.3f), tt_randn(wc, 2, 1, &eight), 1, 1, 1, 1);
    x = tt_max_pool2d(c, tt_relu(c, x), 2, 0, 0);                           // [1,8,8,8]
    x = tt_conv2d(c, x, tt_mul_scalar(wc, tt_randn(wc, 3, 4, w2), 0.1f), tt_randn(wc, 4, 1, &sixteen), 1, 1, 1, 1);
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, tt_relu(c, x), 1, 1), 1, -1);   // [1,16]
    return tt_linear(c, x, tt_mul_scalar(wc, tt_randn(wc, 5, 2, fw), 0.3f), tt_randn(wc, 6, 1, &ten));
}

// The firmware's main, written as DIR/tinycnn_main.c: everything static, nothing but the model.
static const char firmware_main[] =
    "/* tinycnn_main.c - written by examples/09_firmware.c: the firmware's main. Static buffers\n"
    "   only: no heap, no threads, no stdio. Exit status 0 when tinycnn_selftest passes. */\n"
    "#include <stdint.h>\n#include \"tinycnn.h\"\n\n"
    "static float image[TINYCNN_INPUT0_FLOATS], logits[TINYCNN_OUTPUT0_FLOATS];\n"
    "static double arena[(TINYCNN_ARENA_BYTES + 7) / 8];        /* double: 8-byte aligned */\n"
    "static double work[(TINYCNN_SELFTEST_BYTES + 7) / 8];      /* the self-test's arena, input, output */\n\n"
    "int main(void) {\n"
    "    const float *in[1] = {image};\n    float *out[1] = {logits};\n"
    "    uint32_t seed = 2026u;\n    int i;\n"
    "    for (i = 0; i < TINYCNN_INPUT0_FLOATS; i++) {          /* a fixed image in [-1, 1) */\n"
    "        seed = seed * 1664525u + 1013904223u;\n"
    "        image[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;\n    }\n"
    "    if (tinycnn_run(in, out, arena) != 0) return 1;\n"
    "    for (i = 0; i < TINYCNN_OUTPUT0_FLOATS; i++)\n"
    "        if (!(logits[i] > -1e30f && logits[i] < 1e30f)) return 2;   /* NaN or infinite */\n"
    "    return tinycnn_selftest(work) >= 0 ? 0 : 3;   /* 0: the host's bits; 1: within 1e-5 */\n"
    "}\n";

// Prints the lines of a file from the one that starts with `from` to the next "}" line.
static int print_function(const char *path, const char *from) {
    char line[512];
    int printing = 0, found = 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        if (!printing && strstr(line, from) == line) printing = found = 1;
        if (printing) fputs(line, stdout);
        if (printing && strcmp(line, "}\n") == 0) printing = 0;
    }
    fclose(f);
    return found;
}

// The sum of the numbers `fmt` reads after `key` on the lines of dir/file (-1: none); *lines: how many.
static long long sum_after(const char *dir, const char *file, const char *key, const char *fmt, int *lines) {
    char path[512], line[512];
    long long sum = 0, v;
    int n = 0;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!(f = fopen(path, "r"))) return -1;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, key);
        if (at && sscanf(at + strlen(key), fmt, &v) == 1) sum += v, n++;
    }
    fclose(f);
    if (lines) *lines = n;
    return n ? sum : -1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512];
    tt_ctx *c = tt_ctx_create(NULL), *wc = tt_ctx_create(NULL);
    int64_t shape[4] = {1, 1, 16, 16};
    tt_tensor *x = tt_randn(c, 2026, 4, shape), *y;
    tt_graph *g;
    FILE *f;
    size_t fused, plain, weights;
    long long n_in, n_out, arrays_bytes, arena_h, plain_h, in_h, out_h;
    int n_arrays = 0;                                 // in tinycnn.c: 3 layers' weights and biases

    // 1. Trace and compile with the weights frozen into the graph; run once.
    tt_trace_begin(c);
    y = forward(c, wc, tt_trace_input(c, x, "image"));
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK || tt_graph_run(g, &x, 1) != TT_OK) {
        printf("trace/compile failed: %s\n", g ? tt_graph_error(g) : tt_error(c));
        return 1;
    }
    tt_graph_print(g);

    // 2. The memory plan for a small device: every feature map whole, or band-fused.
    plain = tt_graph_export_arena(g, TT_EXPORT_NO_BANDS);
    fused = tt_graph_export_arena(g, 0);
    printf("arena: %zu bytes with whole feature maps, %zu with band fusion "
           "(the graph on a desktop: %zu)\n", plain, fused, tt_graph_get_stats(g).arena_bytes);

    // 3. Write the C files, and show the function a firmware main calls.
    if (tt_graph_export_c(g, dir, "tinycnn") != TT_OK) {
        printf("export failed: %s\n", tt_graph_error(g));
        return 1;
    }
    snprintf(path, sizeof path, "%s/tinycnn.c", dir);
    printf("wrote %s/tinycnn.h and %s; its tinycnn_run:\n\n", dir, path);
    if (!print_function(path, "TT__NO_CONTRACT int tinycnn_run(")) {
        printf("FAIL: no tinycnn_run in %s\n", path);
        return 1;
    }

    // 4. The firmware's main, beside them.
    snprintf(path, sizeof path, "%s/tinycnn_main.c", dir);
    if (!(f = fopen(path, "w")) || fputs(firmware_main, f) < 0 || fclose(f) != 0) {
        printf("FAIL: cannot write %s\n", path);
        return 1;
    }
    printf("\nwrote %s, the firmware (build it with tinycnn.c: see the top of this file):\n\n%s", path, firmware_main);

    // 5. The sizes, from the graph, and the same read back from the files written.
    weights = tt_graph_get_stats(g).constant_bytes;
    n_in = x->numel;
    n_out = tt_graph_output(g, 0)->numel;
    arrays_bytes = 4 * sum_after(dir, "tinycnn.c", "static const float tinycnn_c", "%*d[%lld]", &n_arrays);
    arena_h = sum_after(dir, "tinycnn.h", "#define TINYCNN_ARENA_BYTES ", "%lld", NULL);
    plain_h = sum_after(dir, "tinycnn.h", "no band fusion: ", "%lld", NULL);
    in_h = sum_after(dir, "tinycnn.h", "#define TINYCNN_INPUT0_FLOATS ", "%lld", NULL);
    out_h = sum_after(dir, "tinycnn.h", "#define TINYCNN_OUTPUT0_FLOATS ", "%lld", NULL);
    printf("\nthe device needs:\n"
           "  flash: the weights, %zu bytes (%lld floats in %d static const arrays), and the code\n"
           "  RAM:   the arena, %zu bytes with band fusion (%zu with whole feature maps)\n"
           "  RAM too, the caller's buffers: input %lld floats (%lld bytes), output %lld floats (%lld bytes)\n",
           weights, arrays_bytes / 4, n_arrays, fused, plain, n_in, 4 * n_in, n_out, 4 * n_out);

    // 6. What this showed must hold: band fusion saves memory, and the files say what we said.
    if (!(fused > 0 && fused < plain)) {
        printf("FAIL: band fusion should need less memory (%zu vs %zu bytes)\n", fused, plain);
        return 1;
    }
    if (n_arrays != 6 || arrays_bytes != (long long)weights || arena_h != (long long)fused ||
        plain_h != (long long)plain || in_h != n_in || out_h != n_out) {
        printf("FAIL: tinycnn.c or tinycnn.h disagrees with the sizes above\n");
        return 1;
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(c);
    return 0;
}
