/* bench_cuda.cu - tinytrace's CUDA backend against the device's own limits, measured in one
   run (make bench-cuda, on a machine with an NVIDIA GPU; bench/README.md keeps the figures).

   rows: the device-to-device copy bandwidth (cudaMemcpy, the limit of a streaming kernel);
   the fused chain (bench_models.h's chain on 16M floats) as a share of it, run by the
   backend's micro-op interpreter and by a kernel written for this one chain; SGEMM 4096 fp32 in
   TFLOP/s, against cuBLAS SGEMM (no TF32) where the toolkit has it; SimpleCNN b1 and b16, the
   transformer layer, AlexNet b1, ResNet-18 and MobileNetV2 b1 and b16 in ms per run, each node
   launched (default) and replayed as a CUDA graph (TT_MODE_REDUCE_OVERHEAD); the launch
   overhead per node (1000 tiny nodes). bench/torch_cuda.py times PyTorch on the same models.
   Models run on device pointers (tt_graph_run_cuda): the inputs are copied into the graph's
   arena on the device, outputs left there. Times are medians of BENCH_RUNS runs (host clock
   around the run and tt_graph_cuda_sync). */
#include <cuda_runtime.h>
#ifdef BENCH_CUBLAS
#include <cublas_v2.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define TT_CUDA
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"
#include "bench_models.h"

#define BENCH_RUNS 21

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return t[n / 2];
}

/* Median seconds of a D2D copy of `bytes`. */
static double copy_time(size_t bytes) {
    void *a = tt_cuda_alloc(bytes), *b = tt_cuda_alloc(bytes);
    double t[BENCH_RUNS];
    int i;
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    for (i = 0; i < BENCH_RUNS; i++) {
        double t0 = now_s();
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        t[i] = now_s() - t0;
    }
    tt_cuda_free(a);
    tt_cuda_free(b);
    return median(t, BENCH_RUNS);
}

/* A traced, compiled graph on the GPU with its inputs on the device. */
typedef struct gpu_model {
    tt_graph *g;
    void     *d_in[2];
    int       n_in;
} gpu_model;

typedef tt_tensor *(*model_fn)(tt_ctx *c, tt_tensor *const *in, const void *w);

static int model_make(gpu_model *m, tt_ctx *c, model_fn fn, const void *w, tt_tensor **xs, int n_in, tt_mode mode,
                      unsigned passes) {
    tt_tensor *y;
    int i;
    memset(m, 0, sizeof *m);
    tt_trace_begin(c);
    for (i = 0; i < n_in; i++) tt_trace_input(c, xs[i], "x");
    y = fn(c, xs, w);
    m->g = tt_trace_end(c, &y, 1);
    m->n_in = n_in;
    if (!m->g || tt_graph_compile(m->g, mode, passes) != TT_OK || tt_graph_to_cuda(m->g, 0) != TT_OK) {
        printf("  (could not build the graph: %s)\n", m->g ? tt_graph_error(m->g) : tt_error(c));
        return 0;
    }
    for (i = 0; i < n_in; i++) {
        size_t bytes = (size_t)xs[i]->numel * sizeof(float);
        m->d_in[i] = tt_cuda_alloc(bytes);
        tt_cuda_upload(m->d_in[i], xs[i]->data, bytes);
    }
    return 1;
}

/* Median seconds per run. */
static double model_time(gpu_model *m) {
    double t[BENCH_RUNS];
    int i;
    for (i = 0; i < 3; i++) {                          /* warm-up (REDUCE_OVERHEAD: the capture) */
        tt_graph_run_cuda(m->g, (const void *const *)m->d_in, NULL);
        tt_graph_cuda_sync(m->g);
    }
    for (i = 0; i < BENCH_RUNS; i++) {
        double t0 = now_s();
        tt_graph_run_cuda(m->g, (const void *const *)m->d_in, NULL);
        tt_graph_cuda_sync(m->g);
        t[i] = now_s() - t0;
    }
    if (tt_graph_error(m->g)) printf("  (error: %s)\n", tt_graph_error(m->g));
    return median(t, BENCH_RUNS);
}

static void model_free(gpu_model *m) {
    int i;
    for (i = 0; i < m->n_in; i++) tt_cuda_free(m->d_in[i]);
    tt_graph_destroy(m->g);
}

/* ms per run of fn, each node launched and as a CUDA graph; traced in c, the context that holds
   the weights and the input x. */
static void row_model(tt_ctx *c, const char *name, model_fn fn, const void *w, tt_tensor *x) {
    gpu_model m;
    double t_default = 0, t_graph = 0;
    unsigned passes = (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE;
    if (model_make(&m, c, fn, w, &x, 1, TT_MODE_DEFAULT, passes)) t_default = model_time(&m);
    model_free(&m);
    if (model_make(&m, c, fn, w, &x, 1, TT_MODE_REDUCE_OVERHEAD, passes)) t_graph = model_time(&m);
    model_free(&m);
    printf("%-22s %10.3f ms  %10.3f ms (CUDA graph)  %6.2fx\n", name, 1e3 * t_default, 1e3 * t_graph,
           t_graph > 0 ? t_default / t_graph : 0.0);
}

static tt_tensor *matmul_fn(tt_ctx *c, tt_tensor *const *in, const void *w) {
    (void)w;
    return tt_matmul(c, in[0], in[1]);
}

/* SGEMM 4096: ours (a graph of one matmul), and cuBLAS's where linked. */
static void row_sgemm(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    int64_t s[2] = {4096, 4096};
    tt_tensor *xs[2];
    gpu_model m;
    double flops = 2.0 * 4096.0 * 4096.0 * 4096.0, t = 0;
    xs[0] = tt_randn(c, 1, 2, s);
    xs[1] = tt_randn(c, 2, 2, s);
    if (model_make(&m, c, matmul_fn, NULL, xs, 2, TT_MODE_DEFAULT, TT_PASS_ALL)) t = model_time(&m);
    printf("sgemm 4096 fp32        %10.2f TFLOP/s", t > 0 ? flops / t * 1e-12 : 0.0);
#ifdef BENCH_CUBLAS
    {
        cublasHandle_t h;
        float alpha = 1.0f, beta = 0.0f, *d_c = (float *)tt_cuda_alloc(4096 * 4096 * sizeof(float));
        double tb[BENCH_RUNS];
        int i;
        cublasCreate(&h);
        cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);    /* fp32, no TF32 */
        for (i = 0; i < BENCH_RUNS + 3; i++) {
            double t0 = now_s();
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 4096, &alpha, (const float *)m.d_in[1], 4096,
                        (const float *)m.d_in[0], 4096, &beta, d_c, 4096);
            cudaDeviceSynchronize();
            if (i >= 3) tb[i - 3] = now_s() - t0;
        }
        t = t > 0 ? t : 1e30;
        printf("   cuBLAS %.2f TFLOP/s   ours/cuBLAS %.2fx", flops / median(tb, BENCH_RUNS) * 1e-12,
               median(tb, BENCH_RUNS) / t);
        cublasDestroy(h);
        tt_cuda_free(d_c);
    }
#else
    printf("   (no cuBLAS in this toolkit: no ratio)");
#endif
    printf("\n");
    model_free(&m);
    tt_ctx_destroy(c);
}

/* The fused chain on 16M floats: its time less the copy of its input into the arena, as GB/s
   (16M floats read, 16M written) against the copy bandwidth. */
static void row_chain(double copy_gbs) {
    tt_ctx *c = tt_ctx_create(NULL);
    int64_t s[2] = {4096, 4096};
    tt_tensor *x = tt_randn(c, 1, 2, s);
    size_t bytes = (size_t)x->numel * sizeof(float);
    gpu_model m;
    double t = 0, t_in = copy_time(bytes);
    if (model_make(&m, c, chain_fwd, NULL, &x, 1, TT_MODE_DEFAULT, TT_PASS_ALL)) t = model_time(&m) - t_in;
    printf("chain 16M (fused)      %10.1f GB/s  %5.1f%% of the copy bandwidth\n", 2.0 * (double)bytes / t * 1e-9,
           100.0 * (2.0 * (double)bytes / t * 1e-9) / copy_gbs);
    model_free(&m);
    tt_ctx_destroy(c);
}

/* The chain as a kernel written for it (what a per-chain generated kernel would be), with the
   header's own expression helpers: the interpreter's cost is the difference. */
__global__ void chain_specialized(const float *x, float *y, int64_t n) {
    int64_t i;
    for (i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i], a = tt__tanhf(v * 1.5f + 0.5f);
        y[i] = (a * tt__sigmoidf(v) - v * v) * 0.25f + v;
    }
}

static void row_chain_specialized(double copy_gbs) {
    size_t n = (size_t)16 << 20, bytes = n * sizeof(float);
    float *x = (float *)tt_cuda_alloc(bytes), *y = (float *)tt_cuda_alloc(bytes);
    double t[BENCH_RUNS], gbs;
    int i;
    cudaMemset(x, 0, bytes);
    for (i = 0; i < BENCH_RUNS + 3; i++) {
        double t0 = now_s();
        chain_specialized<<<4096, 256>>>(x, y, (int64_t)n);
        cudaDeviceSynchronize();
        if (i >= 3) t[i - 3] = now_s() - t0;
    }
    gbs = 2.0 * (double)bytes / median(t, BENCH_RUNS) * 1e-9;
    printf("chain 16M (its kernel) %10.1f GB/s  %5.1f%% of the copy bandwidth (the interpreter's target)\n", gbs,
           100.0 * gbs / copy_gbs);
    tt_cuda_free(x);
    tt_cuda_free(y);
}

/* 1000 tiny nodes (no fusion): the cost of one node, launched and replayed. */
static void row_overhead(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    int64_t n = 16;
    tt_tensor *x = tt_randn(c, 1, 1, &n);
    gpu_model m;
    double t_default = 0, t_graph = 0;
    if (model_make(&m, c, dispatch_fwd, NULL, &x, 1, TT_MODE_DEFAULT, 0u)) t_default = model_time(&m);
    model_free(&m);
    if (model_make(&m, c, dispatch_fwd, NULL, &x, 1, TT_MODE_REDUCE_OVERHEAD, 0u)) t_graph = model_time(&m);
    model_free(&m);
    printf("launch overhead/node   %10.2f us  %10.2f us (CUDA graph)\n", 1e6 * t_default / DISPATCH_OPS,
           1e6 * t_graph / DISPATCH_OPS);
    tt_ctx_destroy(c);
}

int main(void) {
    char name[256];
    double copy_s, copy_gbs;
    size_t bytes = (size_t)16 << 22;                   /* 64 MiB: 16M floats */
    tt_ctx *wc;
    if (tt_cuda_device_count() == 0) {
        printf("bench-cuda: no CUDA device (%s): nothing measured\n", tt_cuda_error());
        return 0;
    }
    tt_cuda_device_name(0, name, sizeof name);
    printf("device: %s\n", name);
    copy_s = copy_time(bytes);
    copy_gbs = 2.0 * (double)bytes / copy_s * 1e-9;
    printf("copy D2D 64 MiB        %10.1f GB/s (read + write)\n", copy_gbs);
    row_chain(copy_gbs);
    row_chain_specialized(copy_gbs);
    row_sgemm();
    wc = tt_ctx_create(NULL);
    {
        cnn_w cw = cnn_make(wc);
        enc_w ew = enc_make(wc);
        alex_w aw = alex_make(wc);
        res_w rw = res_make(wc);
        mnv2_w mw = mnv2_make(wc);
        int64_t s1[4] = {1, 3, 32, 32}, s16[4] = {16, 3, 32, 32}, se[3] = {1, ENC_S, ENC_D}, sa[4] = {1, 3, 224, 224};
        int64_t si16[4] = {16, 3, 224, 224};
        row_model(wc, "simplecnn b1", cnn_fwd, &cw, tt_randn(wc, 5, 4, s1));
        row_model(wc, "simplecnn b16", cnn_fwd, &cw, tt_randn(wc, 6, 4, s16));
        row_model(wc, "transformer layer", enc_fwd, &ew, tt_randn(wc, 7, 3, se));
        row_model(wc, "alexnet b1", alex_fwd, &aw, tt_randn(wc, 8, 4, sa));
        row_model(wc, "resnet18 b1", res_fwd, &rw, tt_randn(wc, 9, 4, sa));
        row_model(wc, "resnet18 b16", res_fwd, &rw, tt_randn(wc, 10, 4, si16));
        row_model(wc, "mobilenetv2 b1", mnv2_fwd, &mw, tt_randn(wc, 11, 4, sa));
        row_model(wc, "mobilenetv2 b16", mnv2_fwd, &mw, tt_randn(wc, 12, 4, si16));
    }
    row_overhead();
    tt_ctx_destroy(wc);
    return 0;
}
