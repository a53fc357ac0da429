/* 11_gpu.c - the same traced graph on the CPU and on an NVIDIA GPU (tinytrace_cuda.cu).

   The model is traced and compiled once; the compiled graph runs on the CPU, then moves to the
   GPU with tt_graph_to_cuda (its constants uploaded once, its arena one device allocation) and
   runs there on the same input. With no GPU (or no driver) it says why and stays on the CPU.

   Build with the CUDA backend (make does, where nvcc is installed: build/examples/11_gpu_cuda):
     nvcc -O2 -I. -c tinytrace_cuda.cu -o tinytrace_cuda.o
     cc -DTT_CUDA -I. examples/11_gpu.c tinytrace_cuda.o -L/usr/local/cuda/lib64 -lcudart -lstdc++ -lm -lpthread
   Built without TT_CUDA (plain `make`), it runs the CPU half and says how to get the GPU one.
   Checks: the compiled graph equals eager bitwise on the CPU; on a GPU, within 1e-4. */
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"
#include <math.h>
#include <stdio.h>

/* conv 3->16 + ReLU, 2x2 max pool, global average pool, linear 16->10. */
static tt_tensor *model(tt_ctx *c, tt_tensor *x, tt_tensor *const *w) {
    tt_tensor *h = tt_relu(c, tt_conv2d(c, x, w[0], w[1], 1, 1, 1, 1));
    h = tt_max_pool2d(c, h, 2, 0, 0);
    h = tt_flatten(c, tt_adaptive_avg_pool2d(c, h, 1, 1), 1, -1);
    return tt_linear(c, h, w[2], w[3]);
}

/* The largest |a - b| over two tensors of one shape. */
static double max_diff(tt_ctx *c, const tt_tensor *a, const tt_tensor *b) {
    float va[40], vb[40];
    double worst = 0;
    int i;
    tt_copy_to_f32(c, a, va, 40);
    tt_copy_to_f32(c, b, vb, 40);
    for (i = 0; i < 40; i++) worst = fmax(worst, fabs((double)va[i] - (double)vb[i]));
    return worst;
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    int64_t xs[4] = {4, 3, 16, 16}, ws[4] = {16, 3, 3, 3}, fs[2] = {10, 16}, n16 = 16, n10 = 10;
    tt_tensor *w[4], *x, *y, *eager;
    tt_graph *g;
    w[0] = tt_mul_scalar(c, tt_randn(c, 1, 4, ws), 0.2f);
    w[1] = tt_mul_scalar(c, tt_randn(c, 2, 1, &n16), 0.1f);
    w[2] = tt_mul_scalar(c, tt_randn(c, 3, 2, fs), 0.25f);
    w[3] = tt_mul_scalar(c, tt_randn(c, 4, 1, &n10), 0.1f);
    x = tt_randn(c, 5, 4, xs);

    /* Trace once, compile once (weights frozen in: uploaded to a GPU only once). */
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = model(c, x, w);
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK ||
        tt_graph_run(g, &x, 1) != TT_OK) {
        printf("error: %s\n", g ? tt_graph_error(g) : tt_error(c));
        return 1;
    }
    eager = model(c, x, w);
    printf("CPU: compiled graph vs eager, max |diff| = %g\n", max_diff(c, tt_graph_output(g, 0), eager));
    if (max_diff(c, tt_graph_output(g, 0), eager) != 0.0) return 1;

#ifdef TT_CUDA
    {
        char name[256];
        double diff;
        if (tt_cuda_device_count() == 0) {
            printf("no GPU: %s\nthe graph stays on the CPU (results above)\n", tt_cuda_error());
            tt_graph_destroy(g);
            tt_ctx_destroy(c);
            return 0;
        }
        tt_cuda_device_name(0, name, sizeof name);
        if (tt_graph_to_cuda(g, 0) != TT_OK || tt_graph_run(g, &x, 1) != TT_OK) {
            printf("error: %s\n", tt_graph_error(g));
            return 1;
        }
        diff = max_diff(c, tt_graph_output(g, 0), eager);
        printf("GPU %s: the same graph, max |diff| vs eager = %g (sums in another order)\n", name, diff);
        if (!(diff < 1e-4)) return 1;
    }
#else
    printf("built without the CUDA backend: define TT_CUDA and link tinytrace_cuda.o (README \"GPU\")\n");
#endif
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return 0;
}
