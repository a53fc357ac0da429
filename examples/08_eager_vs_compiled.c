/* build: cc -std=c99 -O2 -I.. 08_eager_vs_compiled.c -lm -lpthread && ./a.out

   08_eager_vs_compiled - the classic torch.compile demonstration in C: AlexNet as torchvision
   defines it (random weights, no dropout: inference) runs 100 batches of one 3x224x224 image
   eagerly, is traced and compiled once, then runs 100 more. It prints each mode's cost and when
   compiling pays off, checks that both give the same bits and conv1 against plain C, and says
   from its own numbers what compiling bought. Timings are printed, never checked. */
#define _POSIX_C_SOURCE 200809L                       // for clock_gettime
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#define BATCHES 100

// Five convolutions, each + relu (+ a 3x3 max pool of stride 2), then three linear layers.
static const int conv_cin[5] = {3, 64, 192, 384, 256}, conv_cout[5] = {64, 192, 384, 256, 256};
static const int conv_k[5] = {11, 5, 3, 3, 3}, conv_stride[5] = {4, 1, 1, 1, 1}, conv_pad[5] = {2, 2, 1, 1, 1};
static const int pool_after[5] = {1, 1, 0, 0, 1}, fc_in[3] = {9216, 4096, 4096}, fc_out[3] = {4096, 4096, 1000};
static const int64_t image_shape[4] = {1, 3, 224, 224};                // batch 1, RGB
typedef struct alexnet { tt_tensor *cw[5], *cb[5], *fw[3], *fb[3]; } alexnet;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

// Uniform in +-1/sqrt(fan_in) (PyTorch's default init): tt_rand's [0,1) mapped in place (no copy).
static tt_tensor *param(tt_ctx *c, uint64_t seed, int ndim, const int64_t *shape, int fan_in) {
    tt_tensor *t = tt_rand(c, seed, ndim, shape);
    float *v = t ? (float *)tt_data(t) : NULL, bound = (float)(1.0 / sqrt((double)fan_in));
    for (int64_t i = 0; v && i < t->numel; i++) v[i] = (2.0f * v[i] - 1.0f) * bound;
    return t;
}

static void make_alexnet(tt_ctx *c, alexnet *m) {
    for (int i = 0; i < 5; i++) {
        int64_t ws[4] = {conv_cout[i], conv_cin[i], conv_k[i], conv_k[i]}, bs[1] = {conv_cout[i]};
        m->cw[i] = param(c, 10 + i, 4, ws, conv_cin[i] * conv_k[i] * conv_k[i]);
        m->cb[i] = param(c, 20 + i, 1, bs, conv_cin[i] * conv_k[i] * conv_k[i]);
    }
    for (int i = 0; i < 3; i++) {
        int64_t ws[2] = {fc_out[i], fc_in[i]}, bs[1] = {fc_out[i]};
        m->fw[i] = param(c, 30 + i, 2, ws, fc_in[i]);
        m->fb[i] = param(c, 40 + i, 1, bs, fc_in[i]);
    }
}

static tt_tensor *forward(tt_ctx *c, tt_tensor *x, const alexnet *m) {
    for (int i = 0; i < 5; i++) {
        x = tt_relu(c, tt_conv2d(c, x, m->cw[i], m->cb[i], conv_stride[i], conv_pad[i], 1, 1));
        if (pool_after[i]) x = tt_max_pool2d(c, x, 3, 2, 0);
    }
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 6, 6), 1, -1);       // [1,256,6,6] -> [1,9216]
    for (int i = 0; i < 3; i++) {
        x = tt_linear(c, x, m->fw[i], m->fb[i]);
        if (i < 2) x = tt_relu(c, x);
    }
    return x;
}

// Prints a mode's first batch, median batch and total; returns the median (sorts ms).
static double summary(const char *mode, double *ms, double *total) {
    double first = ms[0];
    *total = 0.0;
    for (int i = 0; i < BATCHES; i++) {                    // sum, and insertion sort
        *total += ms[i];
        for (int j = i; j > 0 && ms[j - 1] > ms[j]; j--) { double t = ms[j]; ms[j] = ms[j - 1]; ms[j - 1] = t; }
    }
    printf("%-9s first batch %6.1f ms, median %6.2f ms, total %6.0f ms\n", mode, first, ms[BATCHES / 2], *total);
    return ms[BATCHES / 2];
}

// h = conv1(x) at channel 37, row 54, column 54 (its window reads padding), in double. A float sum
// of n terms (363 products + bias) is within n*2^-24/(1-n*2^-24) < (n+1)*2^-24 * sum|terms| of exact.
static int check_conv1(tt_ctx *c, const alexnet *m, tt_tensor *x, tt_tensor *h) {
    const float *xv = (const float *)tt_data(x), *wv = (const float *)tt_data(m->cw[0]);
    double want = ((const float *)tt_data(m->cb[0]))[37], scale = fabs(want);
    for (int ci = 0; ci < 3; ci++)
        for (int ky = 0; ky < 11; ky++)
            for (int kx = 0; kx < 11; kx++) {
                int iy = 54 * 4 - 2 + ky, ix = 54 * 4 - 2 + kx;            // stride 4, padding 2
                if (iy >= 224 || ix >= 224) continue;                      // padding: zeros
                double term = (double)wv[((37 * 3 + ci) * 11 + ky) * 11 + kx] * xv[(ci * 224 + iy) * 224 + ix];
                want += term;
                scale += fabs(term);
            }
    int64_t at[4] = {0, 37, 54, 54};
    double got = tt_get(c, h, at), tol = (3 * 11 * 11 + 2) * ldexp(1.0, -24) * scale;  // NaN if !h
    printf("conv1[0,37,54,54] = %.7f, plain C in double %.7f: |diff| %.1e <= %.1e? %s\n",
           got, want, fabs(got - want), tol, fabs(got - want) <= tol ? "yes" : "NO");
    return fabs(got - want) <= tol;
}

// Times BATCHES batches, each on a new image written into x: eager when g is NULL, else g.
static void time_batches(tt_ctx *c, const alexnet *m, tt_graph *g, tt_tensor *x, double *ms) {
    for (int i = 0; i < BATCHES; i++) {
        tt_scope s = tt_scope_begin(c);                             // frees the batch's tensors
        tt_copy_to_f32(c, tt_rand(c, 1000 + i, 4, image_shape), (float *)tt_data(x), x->numel);
        double t0 = now_ms();
        if (g) tt_graph_run(g, NULL, 0);       // compiled: the kernels, nothing else
        else forward(c, x, m);                 // eager: 20 ops one by one, each checks and allocates
        ms[i] = now_ms() - t0;
        tt_scope_end(c, s);
    }
}

int main(void) {
    static double eager_ms[BATCHES], compiled_ms[BATCHES];
    tt_ctx *c = tt_ctx_create(NULL);
    alexnet m;
    if (!c) return 1;
    make_alexnet(c, &m);                                            // made before the scopes
    tt_tensor *x = tt_zeros(c, TT_F32, 4, image_shape);            // the input, new pixels each batch
    printf("AlexNet on 1x3x224x224 images; %s kernels, %d thread(s)\n", tt_ctx_isa(c), tt_ctx_num_threads(c));
    time_batches(c, &m, NULL, x, eager_ms);

    // Once: trace (an eager batch, recorded), compile (every pass, weights frozen), bind x.
    double t0 = now_ms();
    tt_trace_begin(c);
    tt_tensor *y = forward(c, tt_trace_input(c, x, "x"), &m);      // tt_trace_input returns x
    tt_graph *g = tt_trace_end(c, &y, 1);
    tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL | TT_PASS_FREEZE);
    tt_graph_bind(g, &x, 1);
    double compile_ms = now_ms() - t0;
    time_batches(c, &m, g, x, compiled_ms);

    // The checks, on the last image: compiled gives eager's bits (tinytrace's promise), and
    // conv1 is right. Errors are sticky: one look at the context and the graph covers all.
    tt_tensor *eager_y = forward(c, x, &m), *compiled_y = tt_graph_output(g, 0);
    const char *error = tt_ctx_status(c) != TT_OK ? tt_error(c) : tt_graph_error(g);
    if (error) printf("error: %s\n", error);
    int bits_ok = !error && memcmp(tt_data(eager_y), tt_data(compiled_y), 4 * (size_t)eager_y->numel) == 0;
    printf("logits of the last image: compiled %s eager's, bit for bit\n", bits_ok ? "equal" : "DIFFER FROM");
    int conv_ok = check_conv1(c, &m, x, tt_conv2d(c, x, m.cw[0], m.cb[0], 4, 2, 1, 1));

    // The timings, and what they mean.
    double e_total, k_total, e_med = summary("eager", eager_ms, &e_total);
    double k_med = summary("compiled", compiled_ms, &k_total), saved = e_med - k_med;
    tt_graph_stats st = tt_graph_get_stats(g);
    printf("trace + compile %.0f ms; speedup %.3fx (totals), %.3fx (medians)\n", compile_ms, e_total / k_total, e_med / k_med);
    if (saved > 0.0) printf("the compile pays for itself after %.0f batches\n", ceil(compile_ms / saved));
    else printf("compiled batches were not faster here: the compile never pays for itself\n");
    printf("\nCompiling bought: %d ops became %d nodes (%d relus ran inside their conv or linear kernel,\n"
           "with the bias); runs skip per-op checks, allocation (a planned %.1f MB arena) and weight\n"
           "packing. Medians, eager - compiled: %.2f ms, %.1f%% of eager's. It cannot make convolutions and\n"
           "linears faster: both modes run the same kernels, all a compiled run does, %.0f%% of eager's time.\n"
           "Expect a few percent to ~10%% where the time is in GEMMs (a busy machine's timings vary more\n"
           "than that); small models of many small ops gain the most.\n",
           st.nodes_traced, st.nodes, st.fused_ops, (double)st.arena_bytes / 1e6, saved,
           100.0 * saved / e_med, 100.0 * k_med / e_med);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return !error && bits_ok && conv_ok ? 0 : 1;
}
