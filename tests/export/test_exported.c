/* test_exported.c - the C that tt_graph_export_c wrote (tests/export/export_gen.c, built with
   -Wall -Wextra -Wpedantic -Werror beside this file) against the graphs it came from and
   against references in double precision written here:
   - every output of name_run equals the graph's bit for bit (the graph on the plain C kernels,
     "scalar"), for a new input, with the band-fused and the plain plan;
   - name_selftest returns 0 (the host's bits), name_run refuses NULL pointers;
   - name_run stays inside NAME_ARENA_BYTES (a guard pattern after the arena is untouched;
     the ASan build of this test checks every byte), and the arena is what
     tt_graph_export_arena says; SimpleCNN's arenas meet the firmware issue's targets;
   - SimpleCNN's logits and the chain's outputs (fused and unfused) against double-precision loops.
   Ends with "N passed, N failed". */
#define TINYTRACE_IMPLEMENTATION
#include "../../tinytrace.h"
#include "export_models.h"
#include "simplecnn.h"
#include "simplecnn_plain.h"
#include "chain.h"
#include "mixed.h"
#include "unfused.h"
#include "simplecnn_b2.h"
#include "heads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...) do {                                                          \
        if (cond) passed++;                                                            \
        else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

typedef int (*run_fn)(const float *const *inputs, float *const *outputs, void *arena);
typedef int (*selftest_fn)(void *work);

typedef struct exported {
    const char *name;
    int         model;                 /* em_build's which */
    unsigned    flags;
    run_fn      run;
    selftest_fn selftest;
    size_t      arena_bytes, selftest_bytes;
} exported;

static const exported exports[] = {
    {"simplecnn", 0, 0, simplecnn_run, simplecnn_selftest, SIMPLECNN_ARENA_BYTES, SIMPLECNN_SELFTEST_BYTES},
    {"simplecnn_plain", 0, TT_EXPORT_NO_BANDS, simplecnn_plain_run, simplecnn_plain_selftest, SIMPLECNN_PLAIN_ARENA_BYTES,
     SIMPLECNN_PLAIN_SELFTEST_BYTES},
    {"chain", 1, 0, chain_run, chain_selftest, CHAIN_ARENA_BYTES, CHAIN_SELFTEST_BYTES},
    {"mixed", 2, 0, mixed_run, mixed_selftest, MIXED_ARENA_BYTES, MIXED_SELFTEST_BYTES},
    {"unfused", 3, 0, unfused_run, unfused_selftest, UNFUSED_ARENA_BYTES, UNFUSED_SELFTEST_BYTES},
    {"simplecnn_b2", 4, 0, simplecnn_b2_run, simplecnn_b2_selftest, SIMPLECNN_B2_ARENA_BYTES, SIMPLECNN_B2_SELFTEST_BYTES},
    {"heads", 5, 0, heads_run, heads_selftest, HEADS_ARENA_BYTES, HEADS_SELFTEST_BYTES},
};

#define GUARD 256                      /* bytes of pattern after the arena */

/* Runs e on the graph's inputs in a heap arena of exactly arena_bytes (+ GUARD); the outputs
   into outs (each as long as the graph's). Returns name_run's result, -2 on a touched guard. */
static int run_exported(const exported *e, tt_tensor *const *in, int n_in, float **outs) {
    unsigned char *arena = (unsigned char *)malloc(e->arena_bytes + GUARD);
    const float *ins[2];
    int i, rc;
    for (i = 0; i < n_in; i++) ins[i] = (const float *)tt_data(in[i]);
    memset(arena + e->arena_bytes, 0x5A, GUARD);
    rc = e->run(ins, outs, arena);
    for (i = 0; i < GUARD && rc == 0; i++)
        if (arena[e->arena_bytes + (size_t)i] != 0x5A) rc = -2;
    free(arena);
    return rc;
}

/* name_run against the graph (a new input), arena sizes, name_selftest, NULL arguments. */
static void test_against_graph(const exported *e, tt_ctx *c, tt_ctx *wc) {
    em_model m = em_build(c, wc, e->model);
    tt_tensor *x;
    float *outs[5] = {NULL, NULL, NULL, NULL, NULL};
    void *work;
    int k, n_out;
    CHECK(m.g != NULL, "%s: building the graph: %s", e->name, tt_error(c));
    if (!m.g) return;
    n_out = tt_graph_num_outputs(m.g);
    x = tt_randn(c, 100 + (uint64_t)e->model, m.in[0]->ndim, m.in[0]->shape);
    CHECK(tt_graph_run(m.g, &x, 1) == TT_OK, "%s: graph run: %s", e->name, tt_graph_error(m.g));
    for (k = 0; k < n_out; k++) outs[k] = (float *)calloc((size_t)tt_graph_output(m.g, k)->numel, sizeof(float));
    CHECK(run_exported(e, &x, 1, outs) == 0, "%s: name_run failed or wrote past NAME_ARENA_BYTES", e->name);
    for (k = 0; k < n_out; k++) {
        tt_tensor *y = tt_contiguous(c, tt_graph_output(m.g, k));
        CHECK(y && memcmp(tt_data(y), outs[k], sizeof(float) * (size_t)y->numel) == 0,
              "%s: output %d differs from the graph's (first: %.9g vs %.9g)", e->name, k, y ? (double)((float *)tt_data(y))[0] : 0.0,
              (double)outs[k][0]);
    }
    CHECK(tt_graph_export_arena(m.g, e->flags) == e->arena_bytes, "%s: tt_graph_export_arena %lu, NAME_ARENA_BYTES %lu", e->name,
          (unsigned long)tt_graph_export_arena(m.g, e->flags), (unsigned long)e->arena_bytes);
    work = malloc(e->selftest_bytes);
    CHECK(e->selftest(work) == 0, "%s: name_selftest did not reproduce the host's bits", e->name);
    CHECK(e->selftest(NULL) == -1 && e->run(NULL, outs, work) == -1 && e->run((const float *const *)outs, NULL, work) == -1,
          "%s: NULL arguments were not refused", e->name);
    free(work);
    for (k = 0; k < n_out; k++) free(outs[k]);
    tt_graph_destroy(m.g);
}

/* SimpleCNN in doubles from the unfolded weights (regenerated from em_cnn_block's seeds). */
static void cnn_conv_bn_relu(tt_ctx *wc, const double *x, int C, int H, int O, uint64_t seed, double *y) {
    int64_t ws[4] = {O, C, 3, 3}, o64 = O;
    const float *w, *b, *mean, *var;
    int o, c, i, j, kh, kw;
    w = (const float *)tt_data(tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.2f));
    b = (const float *)tt_data(tt_randn(wc, seed + 1, 1, &o64));
    mean = (const float *)tt_data(tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &o64), 0.1f));
    var = (const float *)tt_data(tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &o64), 0.5f));
    for (o = 0; o < O; o++)
        for (i = 0; i < H; i++)
            for (j = 0; j < H; j++) {
                double s = b[o], v;
                for (c = 0; c < C; c++)
                    for (kh = 0; kh < 3; kh++)
                        for (kw = 0; kw < 3; kw++) {
                            int ih = i + kh - 1, iw = j + kw - 1;
                            if (ih >= 0 && ih < H && iw >= 0 && iw < H)
                                s += (double)w[((o * C + c) * 3 + kh) * 3 + kw] * x[(c * H + ih) * H + iw];
                        }
                v = (s - mean[o]) / sqrt((double)var[o] + 1e-5);
                y[(o * H + i) * H + j] = v > 0 ? v : 0;
            }
}

static void simplecnn_reference(tt_ctx *wc, const float *xf, double logits[10]) {
    static double x[3 * 32 * 32], h1[32 * 32 * 32], p1[32 * 16 * 16], h2[64 * 16 * 16];
    double gap[64];
    int64_t fs[2] = {10, 64}, ten = 10;
    const float *fw, *fb;
    int c, i, j, o;
    for (i = 0; i < 3 * 32 * 32; i++) x[i] = xf[i];
    cnn_conv_bn_relu(wc, x, 3, 32, 32, 1, h1);
    for (c = 0; c < 32; c++)
        for (i = 0; i < 16; i++)
            for (j = 0; j < 16; j++) {
                const double *r = h1 + (c * 32 + 2 * i) * 32 + 2 * j;
                p1[(c * 16 + i) * 16 + j] = fmax(fmax(r[0], r[1]), fmax(r[32], r[33]));
            }
    cnn_conv_bn_relu(wc, p1, 32, 16, 64, 10, h2);
    for (c = 0; c < 64; c++) {
        gap[c] = 0;
        for (i = 0; i < 256; i++) gap[c] += h2[c * 256 + i] / 256.0;
    }
    fw = (const float *)tt_data(tt_mul_scalar(wc, tt_randn(wc, 20, 2, fs), 0.2f));
    fb = (const float *)tt_data(tt_randn(wc, 21, 1, &ten));
    for (o = 0; o < 10; o++) {
        logits[o] = fb[o];
        for (c = 0; c < 64; c++) logits[o] += (double)fw[o * 64 + c] * gap[c];
    }
}

static void test_simplecnn_reference(tt_ctx *c, tt_ctx *wc) {
    int64_t xs[4] = {1, 3, 32, 32};
    tt_tensor *x = tt_randn(c, 123, 4, xs);
    float out[10], *outs[1];
    double ref[10], big = 0, err = 0;
    int i;
    outs[0] = out;
    simplecnn_reference(wc, (const float *)tt_data(x), ref);
    CHECK(run_exported(&exports[0], &x, 1, outs) == 0, "simplecnn: name_run failed");
    for (i = 0; i < 10; i++) {
        big = fmax(big, fabs(ref[i]));
        err = fmax(err, fabs(out[i] - ref[i]));
    }
    CHECK(err <= 1e-5 * big, "simplecnn: logits differ from the double reference by %g (largest |logit| %g)", err, big);
    CHECK(SIMPLECNN_ARENA_BYTES <= 48 * 1024 && SIMPLECNN_PLAIN_ARENA_BYTES <= 160 * 1024,
          "simplecnn: arenas %lu B (target 48 KiB) and %lu B without band fusion (target 160 KiB)",
          (unsigned long)SIMPLECNN_ARENA_BYTES, (unsigned long)SIMPLECNN_PLAIN_ARENA_BYTES);
}

/* chain: y = tanh(x*0.5 + row)*x - 1 and z = max(y, x), in doubles. */
static void test_chain_reference(tt_ctx *c, tt_ctx *wc, const exported *e) {
    int64_t xs[2] = {64, 256}, n = 256;
    tt_tensor *x = tt_randn(c, 77, 2, xs);
    const float *row = (const float *)tt_data(tt_randn(wc, 31, 1, &n)), *xf = (const float *)tt_data(x);
    float *outs[2];
    double err = 0;
    int i;
    outs[0] = (float *)malloc(sizeof(float) * 64 * 256);
    outs[1] = (float *)malloc(sizeof(float) * 64 * 256);
    CHECK(run_exported(e, &x, 1, outs) == 0, "%s: name_run failed", e->name);
    for (i = 0; i < 64 * 256; i++) {
        double y = tanh((double)xf[i] * 0.5 + row[i % 256]) * xf[i] - 1.0;
        err = fmax(err, fabs(outs[0][i] - y));
        err = fmax(err, fabs(outs[1][i] - fmax(y, (double)xf[i])));
    }
    CHECK(err <= 1e-5, "%s: outputs differ from the double reference by %g", e->name, err);
    free(outs[0]);
    free(outs[1]);
}

int main(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c, *wc;
    size_t i;
    d.isa = "scalar";                                  /* the graph on the kernels the exported code runs */
    d.n_threads = 1;
    c = tt_ctx_create(&d);
    wc = tt_ctx_create(&d);
    for (i = 0; i < sizeof exports / sizeof exports[0]; i++) test_against_graph(&exports[i], c, wc);
    test_simplecnn_reference(c, wc);
    test_chain_reference(c, wc, &exports[2]);
    test_chain_reference(c, wc, &exports[4]);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    printf("exported C (simplecnn %lu B arena, %lu B without band fusion; chain; mixed; unfused; simplecnn_b2; heads):\n"
           "%d passed, %d failed\n",
           (unsigned long)SIMPLECNN_ARENA_BYTES, (unsigned long)SIMPLECNN_PLAIN_ARENA_BYTES, passed, failed);
    return failed != 0;
}
