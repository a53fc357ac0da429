/* hash_outputs.c - prints a hash of every output of a broad set of models and ops, run eagerly
   and as traced + compiled graphs, on 1 and on 2 threads. Build it once against a baseline
   tinytrace.h and once against a changed one, run both, diff the outputs: a refactor that kept
   every result bitwise identical prints the same lines. tests/hash_compare.sh does all of that.

   Not part of `make test`; a standalone program:
       gcc -std=c99 -O2 -I<dir holding tinytrace.h> tests/hash_outputs.c -o hash_outputs -lm -lpthread
       ./hash_outputs [SUBSTRING]      only the cases whose name contains SUBSTRING (for bisecting)
   Also build it with -march=native: the SIMD kernels are chosen at compile time.

   One line per output:  <name> <FNV-1a 64 of the raw output bytes, hex> <numel>
       name = t<threads>/<case>/<how>.<input set>/o<output>:<dtype>[<shape>]
   The bytes are the output's elements in row-major order at their storage size (f32: 4 bytes,
   f16/bf16: 2, i32: 4, bool: 1), read through the tensor's strides by this file (no library
   call), so a view and a contiguous copy of the same values hash alike. A failure prints
   "<name> ERROR <status>" (and the message on stderr); the program then exits with 1.

   What runs, for every case on a context with n_threads 1 and then 2:
     eager.A / eager.B      the forward function on input sets A and B (fixed seeds)
     g.all                  tt_trace_begin..tt_trace_end on A, TT_MODE_DEFAULT, TT_PASS_ALL,
                            run on A, then on B with TT_DEBUG_POISON
     g.none                 the same with no pass
     g.nofuse               every pass but FUSE and EPILOGUE
     g.autotune             tt_trace(), TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL
     g.overhead             TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL: tt_graph_bind once, run with no
                            inputs; then B written into the bound tensors and run again (B.inplace)
     g.freeze               tt_trace(), TT_PASS_ALL | TT_PASS_FREEZE (batch norm folds)
     g.overhead_freeze      REDUCE_OVERHEAD, TT_PASS_ALL | TT_PASS_FREEZE (what bench.c times)
     compiled               tt_compiled_create / tt_compiled_run on A, then B (the cached graph)
     p.*                    (cases flagged HZ_PASSES) each pass on its own, and a few pairs
   To stay under 20 s (-O2, 2 idle cores) some cases run fewer: the elementwise sweep (HZ_SWEEP) runs
   g.all (A, B), g.none, g.autotune, g.overhead (A, B.inplace) and compiled; the larger bench
   models (HZ_MEDIUM) eager.A, g.all, g.none, g.overhead_freeze and compiled; AlexNet
   (HZ_HEAVY) eager.A and g.overhead_freeze. HZ_TIME=1 in the environment prints CPU seconds
   per case on stderr.

   The hashes depend on the machine as well as on the code: the SGEMM block size comes from
   the cache sizes, and -march picks the kernels. Compare builds made and run on one machine.

   The cases: the bench models (bench/bench_models.h, included as is), the model zoo and the
   one-graph-per-op bodies of tests/test_trace.c (tests/zoo_models.h, included), the models of examples/01, 02, 03, a
   sweep of every elementwise unary / binary / scalar / comparison / logical op, where and cast
   over shapes (small, multi-task, strided, broadcast, 0-d, f16/bf16/i32 mixes, inf/NaN/denormal
   inputs) alone and inside fused chains, reductions, softmax, norms, matmul/linear with bias +
   activation epilogues, convolutions (1/2/3-D, grouped, depthwise, transposed) with batch norm
   folding, pooling, upsampling, padding, attention, and constants made during a trace.
   Only API of tinytrace 0.4.0 is used (here and in zoo_models.h), so this file builds against
   the baseline header too. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/bench_models.h"
#include "zoo_models.h"

/* ==== output ==================================================================================== */

#define HZ_FNV_INIT 0xcbf29ce484222325ULL
#define HZ_FNV_PRIME 0x100000001b3ULL
#define HZ_MAX_IN 5
#define HZ_MAX_OUT 8

static tt_ctx *hz_ctx;              /* the context of the current thread count */
static int hz_threads;
static const char *hz_filter;
static long hz_lines;
static int hz_errors;
static int hz_timing;               /* HZ_TIME set: CPU seconds per case on stderr */

static uint64_t hz_fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= b[i]; h *= HZ_FNV_PRIME; }
    return h;
}

static size_t hz_elsize(tt_dtype t) {
    switch (t) {
    case TT_F16: case TT_BF16: return 2;
    case TT_BOOL: return 1;
    default: return 4;
    }
}

static const char *hz_dtype(tt_dtype t) {
    static const char *names[] = {"f32", "f16", "bf16", "i32", "bool"};
    return (unsigned)t < 5u ? names[t] : "?";
}

/* FNV-1a 64 over the elements in row-major order, read through shape/stride/offset. */
static uint64_t hz_hash(const tt_tensor *t) {
    uint64_t h = HZ_FNV_INIT;
    size_t es = hz_elsize(t->dtype);
    int64_t idx[TT_MAX_DIMS], rows = 1, r, cols;
    int nd = t->ndim, d;
    const char *base = (const char *)t->data;
    if (t->numel <= 0) return h;
    if (nd == 0) return hz_fnv(h, base + t->offset * (int64_t)es, es);
    cols = t->shape[nd - 1];
    for (d = 0; d < nd - 1; d++) rows *= t->shape[d];
    for (d = 0; d < nd; d++) idx[d] = 0;
    for (r = 0; r < rows; r++) {
        int64_t off = t->offset, j;
        for (d = 0; d < nd - 1; d++) off += idx[d] * t->stride[d];
        if (t->stride[nd - 1] == 1) {
            h = hz_fnv(h, base + off * (int64_t)es, (size_t)cols * es);
        } else {
            for (j = 0; j < cols; j++) h = hz_fnv(h, base + (off + j * t->stride[nd - 1]) * (int64_t)es, es);
        }
        for (d = nd - 2; d >= 0; d--) {              /* next row */
            if (++idx[d] < t->shape[d]) break;
            idx[d] = 0;
        }
    }
    return h;
}

static void hz_emit(const char *name, const tt_tensor *t) {
    char shape[24 * TT_MAX_DIMS + 4];               /* a dim is at most 20 digits, a sign and a comma */
    size_t n = 0;
    int d;
    shape[n++] = '[';
    for (d = 0; d < t->ndim; d++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, d ? ",%lld" : "%lld", (long long)t->shape[d]);
    shape[n++] = ']';
    shape[n] = '\0';
    printf("%s:%s%s %016llx %lld\n", name, hz_dtype(t->dtype), shape, (unsigned long long)hz_hash(t),
           (long long)t->numel);
    hz_lines++;
}

static void hz_fail(const char *name, int status, const char *msg) {
    printf("%s ERROR %d\n", name, status);
    fprintf(stderr, "hash_outputs: %s: %s\n", name, msg ? msg : "(no message)");
    hz_lines++;
    hz_errors++;
}

static void hz_fail_ctx(const char *name) {
    hz_fail(name, (int)tt_ctx_status(hz_ctx), tt_error(hz_ctx));
    tt_clear_error(hz_ctx);
}

/* ==== cases ===================================================================================== */

/* A single-output forward (the signature of bench.c's models and test_trace.c's tr_apply_fn). */
typedef tt_tensor *(*hz_fn)(tt_ctx *c, tt_tensor *const *xs, const void *w);
/* A multi-output forward: writes up to HZ_MAX_OUT outputs, returns how many. */
typedef int (*hz_multi_fn)(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out);

/* Which compile configurations a case runs (see the list at the top; hz_cfg_* below). */
enum { HZ_PASSES = 1u, HZ_HEAVY = 2u, HZ_MEDIUM = 4u, HZ_SWEEP = 8u };

/* spec: inputs separated by spaces, each KIND[HI][@SEED]:D0xD1x... (no dims: 0-d)
   kinds: f randn, p rand+0.5, w randn*6, q round(randn*2) (ties), n randn with inf/NaN/0/-0/
   denormals/huge values every 4th element, i i32 in [0,HI), b bool (randn > 0), h f16, r bf16;
   an upper-case kind is the same values laid out transposed (a strided view, last two axes).
   Input i of set A has seed SEED or 1000 + 16 i; set B has SEED + 1 or 1000 + 16 i + 8. Inputs
   are made once per context and shared by the cases (hz_prefill). */
typedef struct hz_case {
    const char *name;
    hz_fn fn;
    hz_multi_fn multi;
    const void *w;
    const char *spec;
    unsigned flags;
} hz_case;

#define C1(name, fn, spec) {name, fn, NULL, NULL, spec, 0u}
#define CS(name, fn, spec) {name, fn, NULL, NULL, spec, HZ_SWEEP}
#define CW(name, fn, w, spec, fl) {name, fn, NULL, w, spec, fl}
#define CM(name, fn, w, spec, fl) {name, NULL, fn, w, spec, fl}

/* One body per op: x, y, z, u, v are inputs 0..4 (NULL past the spec's inputs). */
#define HZ_OP(nm, ...)                                                                          \
    static tt_tensor *hz_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                 \
        tt_tensor *x = xs[0], *y = xs[1], *z = xs[2], *u = xs[3], *v = xs[4];                   \
        (void)w; (void)x; (void)y; (void)z; (void)u; (void)v;                                   \
        __VA_ARGS__ }

/* ---- the model zoo: tests/zoo_models.h (shared with tests/test_trace.c), and two forwards of ours --- */

/* tr_chain_fwd with its intermediate as a second output. */
static int tr_chain_multi(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    (void)w;
    out[0] = tr_chain_fwd(c, xs[0], xs[1], &out[1]);
    return 2;
}

/* A C branch on a traced value (a tracer warning): the graph keeps the branch it saw. (test_trace.c's
   tr_branchy_fwd does the same but records its own __LINE__ for its warning check.) */
static tt_tensor *tr_branchy_apply(tt_ctx *c, tt_tensor *const *xs, const void *w) {
    float total = tt_item(c, tt_sum(c, xs[0], NULL, 0, false));
    (void)w;
    if (total > 0.0f) return tt_relu(c, xs[0]);
    return tt_neg(c, xs[0]);
}

/* ---- examples/01b_eager_model.c and examples/04_trace_cnn.c ---------------------------------------- */

typedef struct demo01_w { tt_tensor *conv_w, *conv_b, *bn_mean, *bn_var, *fc_w; } demo01_w;

static demo01_w demo01_make(tt_ctx *c) {
    int64_t ws[4] = {8, 3, 3, 3}, cs[1] = {8}, fs[2] = {5, 8};
    demo01_w w;
    w.conv_w  = tt_mul_scalar(c, tt_randn(c, 2, 4, ws), 0.2f);
    w.conv_b  = tt_mul_scalar(c, tt_randn(c, 3, 1, cs), 0.1f);
    w.bn_mean = tt_mul_scalar(c, tt_randn(c, 4, 1, cs), 0.1f);
    w.bn_var  = tt_add_scalar(c, tt_rand(c, 5, 1, cs), 0.5f);
    w.fc_w    = tt_mul_scalar(c, tt_randn(c, 6, 2, fs), 0.5f);
    return w;
}
/* The example's layers; every intermediate it prints a shape of is an output here. */
static int demo01_multi(tt_ctx *c, tt_tensor *const *xs, const void *wp, tt_tensor **out) {
    const demo01_w *w = (const demo01_w *)wp;
    tt_tensor *h1 = tt_conv2d(c, xs[0], w->conv_w, w->conv_b, 1, 1, 1, 1);
    tt_tensor *h2 = tt_relu(c, tt_batch_norm(c, h1, w->bn_mean, w->bn_var, NULL, NULL, 1e-5f));
    tt_tensor *h3 = tt_max_pool2d(c, h2, 2, 0, 0);
    tt_tensor *h4 = tt_adaptive_avg_pool2d(c, h3, 1, 1);
    tt_tensor *h5 = tt_flatten(c, h4, 1, -1);
    out[0] = tt_softmax(c, tt_linear(c, h5, w->fc_w, NULL), -1);
    out[1] = h1; out[2] = h2; out[3] = h3; out[4] = h5;
    return 5;
}

typedef struct demo03_block { tt_tensor *w, *b, *mean, *var; } demo03_block;
typedef struct demo03_w { demo03_block b1, b2; tt_tensor *fc_w, *fc_b; } demo03_w;

static demo03_block demo03_make_block(tt_ctx *wc, uint64_t seed, int64_t cin, int64_t cout) {
    int64_t ws[4];
    demo03_block b;
    ws[0] = cout; ws[1] = cin; ws[2] = 3; ws[3] = 3;
    b.w    = tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.3f);
    b.b    = tt_mul_scalar(wc, tt_randn(wc, seed + 1, 1, &cout), 0.1f);
    b.mean = tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &cout), 0.1f);
    b.var  = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &cout), 0.5f);
    return b;
}
static demo03_w demo03_make(tt_ctx *wc) {
    int64_t fc_shape[2] = {5, 16}, five = 5;
    demo03_w w;
    w.b1 = demo03_make_block(wc, 10, 3, 8);
    w.b2 = demo03_make_block(wc, 20, 8, 16);
    w.fc_w = tt_mul_scalar(wc, tt_randn(wc, 30, 2, fc_shape), 0.25f);
    w.fc_b = tt_mul_scalar(wc, tt_randn(wc, 31, 1, &five), 0.1f);
    return w;
}
static tt_tensor *demo03_fwd(tt_ctx *c, tt_tensor *const *xs, const void *wp) {
    const demo03_w *w = (const demo03_w *)wp;
    const demo03_block *bs[2];
    tt_tensor *x = xs[0];
    int i;
    bs[0] = &w->b1; bs[1] = &w->b2;
    for (i = 0; i < 2; i++) {
        x = tt_conv2d(c, x, bs[i]->w, bs[i]->b, 1, 1, 1, 1);
        x = tt_relu(c, tt_batch_norm(c, x, bs[i]->mean, bs[i]->var, NULL, NULL, 1e-5f));
        x = tt_max_pool2d(c, x, 2, 0, 0);
    }
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);
    x = tt_linear(c, x, w->fc_w, w->fc_b);
    return tt_gelu(c, tt_add_scalar(c, tt_mul_scalar(c, x, 0.5f), 0.1f));
}

/* examples/02_where_not_if.c: a piecewise function and a safe division (two outputs). */
static int demo02_multi(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *x = xs[0], *zero = tt_scalar(c, 0.0f), *one = tt_scalar(c, 1.0f);
    tt_tensor *left = tt_mul_scalar(c, x, 0.1f);
    tt_tensor *middle = tt_mul(c, x, x);
    tt_tensor *right = tt_sub_scalar(c, tt_mul_scalar(c, x, 2.0f), 1.0f);
    (void)w;
    out[0] = tt_where(c, tt_lt(c, x, zero), left, tt_where(c, tt_lt(c, x, one), middle, right));
    out[1] = tt_where(c, tt_ne(c, x, zero), tt_div(c, one, x), zero);
    return 2;
}
/* The same on the example's own input, tt_linspace (a constant of the trace) added to x. */
static int demo02_linspace_multi(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *x = tt_add(c, tt_linspace(c, -2.0, 3.0, 11), tt_mul_scalar(c, xs[0], 0.0f));
    return demo02_multi(c, &x, w, out);
}

/* ---- epilogues and batch-norm folding on parameters (weights context) ----------------------------- */

typedef struct ep_w {
    tt_tensor *lw, *lb, *mw, *lm, *lv;                   /* linear [80,96], [80]; matmul [96,80]; bn [80] */
    tt_tensor *cw, *cb, *bm, *bv, *bg, *bb;              /* conv [16,8,3,3], [16]; bn [16] */
    tt_tensor *gw, *gb;                                  /* grouped conv [16,4,3,3] (groups 2) */
    tt_tensor *dw, *db, *dm, *dv, *dg, *dbb;             /* depthwise [8,1,3,3]; bn [8] */
} ep_w;

static ep_w ep_make(tt_ctx *wc) {
    ep_w w;
    int64_t cs[4] = {16, 8, 3, 3}, gs[4] = {16, 4, 3, 3}, ds[4] = {8, 1, 3, 3}, n80 = 80, n16 = 16, n8 = 8;
    w.lw = tu_param2(wc, 900, 80, 96, 0.1f);
    w.lb = tu_param1(wc, 901, 80, 0.1f, 0.0f);
    w.mw = tu_param2(wc, 902, 96, 80, 0.1f);
    w.lm = tu_param1(wc, 903, 80, 0.1f, 0.0f);
    w.lv = tt_add_scalar(wc, tt_rand(wc, 904, 1, &n80), 0.5f);
    w.cw = tu_param(wc, 910, 4, cs, 0.12f, 0.0f);
    w.cb = tu_param1(wc, 911, 16, 0.1f, 0.0f);
    w.bm = tu_param1(wc, 912, 16, 0.1f, 0.0f);
    w.bv = tt_add_scalar(wc, tt_rand(wc, 913, 1, &n16), 0.5f);
    w.bg = tu_param1(wc, 914, 16, 0.2f, 1.0f);
    w.bb = tu_param1(wc, 915, 16, 0.1f, 0.0f);
    w.gw = tu_param(wc, 920, 4, gs, 0.17f, 0.0f);
    w.gb = tu_param1(wc, 921, 16, 0.1f, 0.0f);
    w.dw = tu_param(wc, 930, 4, ds, 0.33f, 0.0f);
    w.db = tu_param1(wc, 931, 8, 0.1f, 0.0f);
    w.dm = tu_param1(wc, 932, 8, 0.1f, 0.0f);
    w.dv = tt_add_scalar(wc, tt_rand(wc, 933, 1, &n8), 0.5f);
    w.dg = tu_param1(wc, 934, 8, 0.2f, 1.0f);
    w.dbb = tu_param1(wc, 935, 8, 0.1f, 0.0f);
    return w;
}

#define EPW const ep_w *p = (const ep_w *)w;
HZ_OP(ep_lin_relu, EPW return tt_relu(c, tt_linear(c, x, p->lw, p->lb));)
HZ_OP(ep_lin_gelu_res, EPW { tt_tensor *a = tt_linear(c, x, p->lw, p->lb);
      return tt_add(c, tt_gelu(c, a), tt_mul_scalar(c, a, 0.5f)); })
HZ_OP(ep_lin_nobias_chain, EPW
      return tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, tt_linear(c, x, p->lw, NULL), 1.5f), 0.25f));)
HZ_OP(ep_mm_bias_relu, EPW return tt_relu(c, tt_add(c, tt_matmul(c, x, p->mw), p->lb));)
HZ_OP(ep_lin_bn_relu, EPW
      return tt_relu(c, tt_batch_norm(c, tt_linear(c, x, p->lw, p->lb), p->lm, p->lv, NULL, NULL, 1e-5f));)
HZ_OP(ep_conv_bn_relu, EPW
      return tt_relu(c, tt_batch_norm(c, tt_conv2d(c, x, p->cw, p->cb, 1, 1, 1, 1), p->bm, p->bv, p->bg, p->bb, 1e-5f));)
HZ_OP(ep_conv_nobias_bn_clamp, EPW
      return tt_clamp(c, tt_batch_norm(c, tt_conv2d(c, x, p->cw, NULL, 2, 1, 1, 1), p->bm, p->bv, p->bg, p->bb, 1e-3f), 0.0f, 6.0f);)
HZ_OP(ep_gconv_bn_relu, EPW
      return tt_relu(c, tt_batch_norm(c, tt_conv2d(c, x, p->gw, p->gb, 2, 1, 1, 2), p->bm, p->bv, NULL, p->bb, 1e-5f));)
HZ_OP(ep_dw_bn_relu, EPW
      return tt_relu(c, tt_batch_norm(c, tt_conv2d(c, x, p->dw, p->db, 1, 1, 1, 8), p->dm, p->dv, p->dg, p->dbb, 1e-5f));)
HZ_OP(ep_conv_relu_pool, EPW
      return tt_max_pool2d(c, tt_silu(c, tt_conv2d(c, x, p->cw, p->cb, 1, 1, 1, 1)), 2, 0, 0);)
#undef EPW

/* ---- elementwise sweep ------------------------------------------------------------------------------
   Unary: X(name, kind, transposed kind, expression in x). Every op runs alone on a small shape,
   a multi-task shape, a strided view, special values, f16 and bf16, and inside a chain of 5 ops
   (mul_scalar, add_scalar, the op, a broadcast mul, a sub) that FUSE turns into one node. */
#define HZ_UNARY(X)                                                          \
    X(neg, "f", "F", tt_neg(c, x))                                           \
    X(abs, "f", "F", tt_abs(c, x))                                           \
    X(sign, "q", "Q", tt_sign(c, x))                                         \
    X(exp, "w", "W", tt_exp(c, x))                                           \
    X(log, "p", "P", tt_log(c, x))                                           \
    X(sqrt, "p", "P", tt_sqrt(c, x))                                         \
    X(rsqrt, "p", "P", tt_rsqrt(c, x))                                       \
    X(reciprocal, "f", "F", tt_reciprocal(c, x))                             \
    X(sin, "w", "W", tt_sin(c, x))                                           \
    X(cos, "w", "W", tt_cos(c, x))                                           \
    X(tanh, "w", "W", tt_tanh(c, x))                                         \
    X(sigmoid, "w", "W", tt_sigmoid(c, x))                                   \
    X(relu, "f", "F", tt_relu(c, x))                                         \
    X(leaky_relu, "f", "F", tt_leaky_relu(c, x, 0.05f))                      \
    X(elu, "w", "W", tt_elu(c, x, 0.7f))                                     \
    X(gelu, "w", "W", tt_gelu(c, x))                                         \
    X(gelu_tanh, "w", "W", tt_gelu_tanh(c, x))                               \
    X(silu, "w", "W", tt_silu(c, x))                                         \
    X(softplus, "w", "W", tt_softplus(c, x))                                 \
    X(erf, "w", "W", tt_erf(c, x))                                           \
    X(floor, "w", "W", tt_floor(c, x))                                       \
    X(ceil, "w", "W", tt_ceil(c, x))                                         \
    X(round, "q", "Q", tt_round(c, tt_mul_scalar(c, x, 0.5f)))               \
    X(round_w, "w", "W", tt_round(c, x))                                     \
    X(clamp, "f", "F", tt_clamp(c, x, -0.5f, 0.6f))                          \
    X(pow_scalar, "p", "P", tt_pow_scalar(c, x, 1.7f))                       \
    X(pow_scalar2, "f", "F", tt_pow_scalar(c, x, 2.0f))                      \
    X(pow_scalar3, "f", "F", tt_pow_scalar(c, x, 3.0f))                      \
    X(pow_scalar_half, "p", "P", tt_pow_scalar(c, x, 0.5f))                  \
    X(pow_scalar_neg, "p", "P", tt_pow_scalar(c, x, -1.5f))                  \
    X(pow_scalar0, "f", "F", tt_pow_scalar(c, x, 0.0f))                      \
    X(add_scalar, "f", "F", tt_add_scalar(c, x, 0.25f))                      \
    X(sub_scalar, "f", "F", tt_sub_scalar(c, x, 0.25f))                      \
    X(mul_scalar, "f", "F", tt_mul_scalar(c, x, -1.5f))                      \
    X(div_scalar, "f", "F", tt_div_scalar(c, x, 3.0f))                       \
    X(add_scalar0, "f", "F", tt_add_scalar(c, x, 0.0f))                      \
    X(mul_scalar1, "f", "F", tt_mul_scalar(c, x, 1.0f))                      \
    X(logical_not, "b", "B", tt_logical_not(c, x))                           \
    X(logical_not_f, "q", "Q", tt_logical_not(c, x))

#define HZ_U_FN(nm, k, K, e)                                                                          \
    static tt_tensor *hz_u_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                     \
        tt_tensor *x = xs[0];                                                                         \
        (void)w;                                                                                      \
        return e;                                                                                     \
    }                                                                                                 \
    static tt_tensor *hz_uc_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                    \
        tt_tensor *x = tt_add_scalar(c, tt_mul_scalar(c, xs[0], 0.75f), 0.125f), *r;                  \
        (void)w;                                                                                      \
        r = e;                                                                                        \
        return tt_sub(c, tt_mul(c, r, xs[1]), xs[0]);                                                 \
    }
HZ_UNARY(HZ_U_FN)

#define HZ_U_CASES(nm, k, K, e)                                  \
    CS("u." #nm ".small", hz_u_##nm, k ":3x4x5"),                \
    CS("u." #nm ".big", hz_u_##nm, k ":37x509"),                 \
    CS("u." #nm ".strided", hz_u_##nm, K ":37x509"),             \
    CS("u." #nm ".special", hz_u_##nm, "n:3x337"),               \
    CS("u." #nm ".0d", hz_u_##nm, k ":"),                        \
    CS("u." #nm ".f16", hz_u_##nm, "h:37x41"),                   \
    CS("u." #nm ".bf16", hz_u_##nm, "r:37x41"),                  \
    CS("u." #nm ".chain", hz_uc_##nm, k ":37x509 f:509"),        \
    CS("u." #nm ".chain_col", hz_uc_##nm, K ":37x509 f:37x1"),

/* Binary: X(name, kind a, kind b, transposed kinds, expression in x and y). */
#define HZ_BINARY(X)                                                         \
    X(add, "f", "f", "F", "F", tt_add(c, x, y))                              \
    X(sub, "f", "f", "F", "F", tt_sub(c, x, y))                              \
    X(mul, "f", "f", "F", "F", tt_mul(c, x, y))                              \
    X(div, "f", "p", "F", "P", tt_div(c, x, y))                              \
    X(div_any, "f", "q", "F", "Q", tt_div(c, x, y))                          \
    X(pow, "p", "f", "P", "F", tt_pow(c, x, y))                              \
    X(maximum, "q", "q", "Q", "Q", tt_maximum(c, x, y))                      \
    X(minimum, "q", "q", "Q", "Q", tt_minimum(c, x, y))                      \
    X(maximum_nan, "n", "f", "N", "F", tt_maximum(c, x, y))                  \
    X(eq, "q", "q", "Q", "Q", tt_eq(c, x, y))                                \
    X(ne, "q", "q", "Q", "Q", tt_ne(c, x, y))                                \
    X(lt, "q", "q", "Q", "Q", tt_lt(c, x, y))                                \
    X(le, "q", "q", "Q", "Q", tt_le(c, x, y))                                \
    X(gt, "q", "q", "Q", "Q", tt_gt(c, x, y))                                \
    X(ge, "q", "q", "Q", "Q", tt_ge(c, x, y))                                \
    X(lt_nan, "n", "q", "N", "Q", tt_lt(c, x, y))                            \
    X(logical_and, "b", "b", "B", "B", tt_logical_and(c, x, y))              \
    X(logical_or, "b", "q", "B", "Q", tt_logical_or(c, x, y))

#define HZ_B_FN(nm, ka, kb, KA, KB, e)                                                                \
    static tt_tensor *hz_b_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                     \
        tt_tensor *x = xs[0], *y = xs[1];                                                             \
        (void)w;                                                                                      \
        return e;                                                                                     \
    }                                                                                                 \
    static tt_tensor *hz_bc_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                    \
        tt_tensor *x = tt_mul_scalar(c, xs[0], 0.5f), *y = tt_mul_scalar(c, xs[1], 0.5f), *r;         \
        (void)w;                                                                                      \
        r = e;                                                                                        \
        return tt_add(c, tt_mul_scalar(c, r, 0.75f), xs[0]);                                          \
    }
HZ_BINARY(HZ_B_FN)

#define HZ_B_CASES(nm, ka, kb, KA, KB, e)                                   \
    CS("b." #nm ".small", hz_b_##nm, ka ":3x4x5 " kb ":3x4x5"),             \
    CS("b." #nm ".big", hz_b_##nm, ka ":37x509 " kb ":37x509"),             \
    CS("b." #nm ".row", hz_b_##nm, ka ":37x509 " kb ":509"),                \
    CS("b." #nm ".col", hz_b_##nm, ka ":37x509 " kb ":37x1"),               \
    CS("b." #nm ".outer", hz_b_##nm, ka ":9x1x130 " kb ":11x1"),            \
    CS("b." #nm ".lhs_bcast", hz_b_##nm, ka ":509 " kb ":37x509"),          \
    CS("b." #nm ".scalar_rhs", hz_b_##nm, ka ":37x509 " kb ":"),            \
    CS("b." #nm ".scalar_lhs", hz_b_##nm, ka ": " kb ":37x509"),            \
    CS("b." #nm ".strided", hz_b_##nm, KA ":37x509 " KB ":37x509"),         \
    CS("b." #nm ".strided_row", hz_b_##nm, KA ":37x509 " kb ":509"),        \
    CS("b." #nm ".f16_f32", hz_b_##nm, "h:37x41 " kb ":37x41"),             \
    CS("b." #nm ".bf16_f16", hz_b_##nm, "r:37x41 h:41"),                    \
    CS("b." #nm ".i32_f32", hz_b_##nm, "i9:37x41 " kb ":41"),               \
    CS("b." #nm ".f32_bool", hz_b_##nm, ka ":37x41 b:37x1"),                \
    CS("b." #nm ".chain", hz_bc_##nm, ka ":37x509 " kb ":509"),             \
    CS("b." #nm ".chain_strided", hz_bc_##nm, KA ":37x509 " KB ":37x509"),

/* where, alone and in chains. */
HZ_OP(where, return tt_where(c, x, y, z);)
HZ_OP(where_chain, {
    tt_tensor *m = tt_gt(c, x, y);
    return tt_add(c, tt_where(c, m, tt_exp(c, tt_mul_scalar(c, x, 0.5f)), tt_neg(c, y)), x); })
HZ_OP(where_nested, {
    tt_tensor *m1 = tt_lt(c, x, tt_scalar(c, 0.0f)), *m2 = tt_lt(c, x, tt_scalar(c, 1.0f));
    return tt_where(c, m1, tt_mul_scalar(c, x, 0.1f), tt_where(c, m2, tt_mul(c, x, x), tt_sub_scalar(c, x, 1.0f))); })
HZ_OP(where_mask_chain, return tt_mul(c, tt_where(c, tt_logical_and(c, x, tt_logical_not(c, y)), z, tt_scalar(c, -1.0f)), z);)

/* Casts: X(name, input kind, transposed kind, dtype). Alone, and round trips inside chains. */
#define HZ_CASTS(X)                     \
    X(f32_f16, "w", "W", TT_F16)        \
    X(f32_bf16, "w", "W", TT_BF16)      \
    X(f32_i32, "w", "W", TT_I32)        \
    X(f32_bool, "q", "Q", TT_BOOL)      \
    X(f32_f32, "f", "F", TT_F32)        \
    X(f16_f32, "h", "H", TT_F32)        \
    X(f16_bf16, "h", "H", TT_BF16)      \
    X(f16_i32, "h", "H", TT_I32)        \
    X(f16_f16, "h", "H", TT_F16)        \
    X(bf16_f32, "r", "R", TT_F32)       \
    X(bf16_f16, "r", "R", TT_F16)       \
    X(i32_f32, "i1000", "I1000", TT_F32) \
    X(i32_f16, "i100000", "I100000", TT_F16) \
    X(i32_bool, "i3", "I3", TT_BOOL)    \
    X(bool_f32, "b", "B", TT_F32)       \
    X(bool_i32, "b", "B", TT_I32)       \
    X(bool_f16, "b", "B", TT_F16)

#define HZ_CAST_FN(nm, k, K, dt)                                                                      \
    static tt_tensor *hz_cast_##nm(tt_ctx *c, tt_tensor *const *xs, const void *w) {                  \
        (void)w;                                                                                      \
        return tt_cast(c, xs[0], dt);                                                                 \
    }
HZ_CASTS(HZ_CAST_FN)

#define HZ_CAST_CASES(nm, k, K, dt)                              \
    CS("cast." #nm ".small", hz_cast_##nm, k ":3x4x5"),          \
    CS("cast." #nm ".big", hz_cast_##nm, k ":37x509"),           \
    CS("cast." #nm ".strided", hz_cast_##nm, K ":37x509"),

HZ_OP(cast_special_f16, return tt_cast(c, x, TT_F16);)
HZ_OP(cast_special_bf16, return tt_cast(c, x, TT_BF16);)
HZ_OP(cast_special_i32, return tt_cast(c, tt_mul_scalar(c, x, 1e9f), TT_I32);)
HZ_OP(cast_special_bool, return tt_cast(c, x, TT_BOOL);)
HZ_OP(cast_f16_overflow, return tt_cast(c, tt_mul_scalar(c, x, 30000.0f), TT_F16);)
HZ_OP(cast_f16_subnormal, return tt_cast(c, tt_mul_scalar(c, x, 1e-5f), TT_F16);)
HZ_OP(cast_chain_f16, return tt_mul(c, tt_cast(c, tt_cast(c, tt_exp(c, tt_mul_scalar(c, x, 0.3f)), TT_F16), TT_F32), y);)
HZ_OP(cast_chain_bf16, return tt_add(c, tt_cast(c, tt_tanh(c, tt_cast(c, x, TT_BF16)), TT_F32), y);)
HZ_OP(cast_chain_f16_out, return tt_cast(c, tt_add(c, tt_sigmoid(c, x), y), TT_F16);)
HZ_OP(cast_chain_i32, return tt_sub(c, tt_cast(c, tt_cast(c, tt_mul_scalar(c, x, 7.3f), TT_I32), TT_F32), tt_mul_scalar(c, x, 7.3f));)
HZ_OP(f16_arith_chain, return tt_relu(c, tt_add(c, tt_mul(c, x, y), tt_scalar(c, 0.5f)));)

/* ---- reductions, softmax, norms --------------------------------------------------------------------- */

HZ_OP(sum_all, return tt_sum(c, x, NULL, 0, false);)
HZ_OP(sum_ax0, { int a = 0; return tt_sum(c, x, &a, 1, false); })
HZ_OP(sum_ax1_keep, { int a = 1; return tt_sum(c, x, &a, 1, true); })
HZ_OP(sum_ax02, { int a[2] = {0, 2}; return tt_sum(c, x, a, 2, false); })
HZ_OP(sum_axm1, { int a = -1; return tt_sum(c, x, &a, 1, false); })
HZ_OP(mean_all, return tt_mean(c, x, NULL, 0, true);)
HZ_OP(mean_ax0, { int a = 0; return tt_mean(c, x, &a, 1, false); })
HZ_OP(mean_ax1, { int a = 1; return tt_mean(c, x, &a, 1, true); })
HZ_OP(max_all, return tt_max(c, x, NULL, 0, false);)
HZ_OP(max_ax0, { int a = 0; return tt_max(c, x, &a, 1, false); })
HZ_OP(max_ax1, { int a = 1; return tt_max(c, x, &a, 1, true); })
HZ_OP(min_ax1, { int a = -1; return tt_min(c, x, &a, 1, false); })
HZ_OP(min_ax0, { int a = 0; return tt_min(c, x, &a, 1, true); })
HZ_OP(prod_ax1, { int a = 1; return tt_prod(c, tt_add_scalar(c, tt_mul_scalar(c, x, 0.01f), 1.0f), &a, 1, false); })
HZ_OP(prod_ax0, { int a = 0; return tt_prod(c, x, &a, 1, false); })
HZ_OP(var_ax1, { int a = 1; return tt_var(c, x, &a, 1, 1, false); })
HZ_OP(var_all0, return tt_var(c, x, NULL, 0, 0, false);)
HZ_OP(var_ax0_keep, { int a = 0; return tt_var(c, x, &a, 1, 1, true); })
HZ_OP(var_ax02, { int a[2] = {0, 2}; return tt_var(c, x, a, 2, 1, false); })
HZ_OP(std_ax1, { int a = 1; return tt_std(c, x, &a, 1, 1, true); })
HZ_OP(std_ax0, { int a = 0; return tt_std(c, x, &a, 1, 0, false); })
HZ_OP(argmax_ax1, return tt_argmax(c, x, 1, false);)
HZ_OP(argmax_ax0, return tt_argmax(c, x, 0, true);)
HZ_OP(argmin_ax1, return tt_argmin(c, x, -1, true);)
HZ_OP(argmin_ax0, return tt_argmin(c, x, 0, false);)
HZ_OP(softmax_last, return tt_softmax(c, x, -1);)
HZ_OP(softmax_ax0, return tt_softmax(c, x, 0);)
HZ_OP(softmax_ax1, return tt_softmax(c, x, 1);)
HZ_OP(log_softmax_last, return tt_log_softmax(c, x, -1);)
HZ_OP(log_softmax_ax0, return tt_log_softmax(c, x, 0);)
HZ_OP(softmax_chain, return tt_mul(c, tt_softmax(c, tt_mul_scalar(c, tt_add(c, x, y), 0.5f), -1), tt_exp(c, y));)
HZ_OP(reduce_chain, { int a = 1; return tt_sub(c, x, tt_mean(c, tt_exp(c, tt_mul_scalar(c, x, 0.5f)), &a, 1, true)); })

HZ_OP(ln, return tt_layer_norm(c, x, 1, y, z, 1e-5f);)
HZ_OP(ln2, return tt_layer_norm(c, x, 2, y, z, 1e-5f);)
HZ_OP(ln_plain, return tt_layer_norm(c, x, 1, NULL, NULL, 1e-5f);)
HZ_OP(ln_weight_only, return tt_layer_norm(c, x, 1, y, NULL, 1e-6f);)
HZ_OP(rms, return tt_rms_norm(c, x, 1, y, 1e-6f);)
HZ_OP(rms_plain, return tt_rms_norm(c, x, 1, NULL, 1e-6f);)
HZ_OP(rms2, return tt_rms_norm(c, x, 2, NULL, 1e-5f);)
HZ_OP(gn, return tt_group_norm(c, x, 3, y, z, 1e-5f);)
HZ_OP(gn1, return tt_group_norm(c, x, 1, NULL, NULL, 1e-5f);)
HZ_OP(gnc, return tt_group_norm(c, x, 12, y, NULL, 1e-5f);)
HZ_OP(bn, return tt_batch_norm(c, x, y, z, u, v, 1e-5f);)
HZ_OP(bn_plain, return tt_batch_norm(c, x, y, z, NULL, NULL, 1e-3f);)
HZ_OP(ln_residual, return tt_layer_norm(c, tt_add(c, x, tt_gelu(c, y)), 1, z, u, 1e-5f);)

/* ---- matmul and linear -------------------------------------------------------------------------------- */

HZ_OP(matmul, return tt_matmul(c, x, y);)
HZ_OP(linear, return tt_linear(c, x, y, z);)
HZ_OP(linear_nobias, return tt_linear(c, x, y, NULL);)
HZ_OP(linear_relu, return tt_relu(c, tt_linear(c, x, y, z));)
HZ_OP(linear_gelu_scale, return tt_mul_scalar(c, tt_gelu(c, tt_linear(c, x, y, z)), 0.5f);)
HZ_OP(matmul_bias_relu, return tt_relu(c, tt_add(c, tt_matmul(c, x, y), z));)
HZ_OP(matmul_bias_tanh_res, return tt_add(c, tt_tanh(c, tt_add(c, tt_matmul(c, x, y), z)), tt_slice(c, x, 1, 0, 80, 1));)
HZ_OP(linear_two_users, { tt_tensor *a = tt_linear(c, x, y, z); return tt_mul(c, tt_relu(c, a), tt_sigmoid(c, a)); })

/* ---- convolution -------------------------------------------------------------------------------------- */

HZ_OP(conv2d_3x3, return tt_conv2d(c, x, y, z, 1, 1, 1, 1);)
HZ_OP(conv2d_s2p2d2, return tt_conv2d(c, x, y, z, 2, 2, 2, 1);)
HZ_OP(conv2d_g2, return tt_conv2d(c, x, y, z, 1, 1, 1, 2);)
HZ_OP(conv2d_dw, return tt_conv2d(c, x, y, z, 1, 1, 1, 16);)
HZ_OP(conv2d_dw_s2k5, return tt_conv2d(c, x, y, z, 2, 2, 1, 16);)
HZ_OP(conv2d_1x1, return tt_conv2d(c, x, y, NULL, 1, 0, 1, 1);)
HZ_OP(conv2d_relu, return tt_relu(c, tt_conv2d(c, x, y, z, 1, 1, 1, 1));)
HZ_OP(conv2d_bias_add_relu, return tt_relu(c, tt_add(c, tt_conv2d(c, x, y, NULL, 1, 1, 1, 1), tt_reshape(c, z, 3, (const int64_t[3]){-1, 1, 1})));)
HZ_OP(conv1d, return tt_conv1d(c, x, y, z, 2, 2, 1, 2);)
HZ_OP(conv1d_dil, return tt_conv1d(c, x, y, z, 1, 3, 3, 1);)
HZ_OP(conv3d, return tt_conv3d(c, x, y, z, 1, 1, 1, 1);)
HZ_OP(conv3d_s2, return tt_conv3d(c, x, y, NULL, 2, 0, 1, 2);)
HZ_OP(conv_ex_2d, {
    tt_conv_params p;
    memset(&p, 0, sizeof p);
    p.stride[0] = 2; p.stride[1] = 1; p.padding[0] = 1; p.padding[1] = 2;
    p.dilation[0] = 1; p.dilation[1] = 2; p.groups = 2;
    return tt_conv_ex(c, x, y, z, &p); })
HZ_OP(conv_ex_3d, {
    tt_conv_params p;
    memset(&p, 0, sizeof p);
    p.stride[0] = 1; p.stride[1] = 2; p.stride[2] = 1; p.padding[0] = 0; p.padding[1] = 1; p.padding[2] = 2;
    p.dilation[0] = 1; p.dilation[1] = 1; p.dilation[2] = 2; p.groups = 1;
    return tt_conv_ex(c, x, y, z, &p); })
HZ_OP(convT1d, return tt_conv_transpose1d(c, x, y, z, 2, 1, 1, 1, 1);)
HZ_OP(convT1d_g2, return tt_conv_transpose1d(c, x, y, z, 3, 2, 0, 2, 2);)
HZ_OP(convT2d, return tt_conv_transpose2d(c, x, y, z, 2, 1, 1, 1, 1);)
HZ_OP(convT2d_dil, return tt_conv_transpose2d(c, x, y, NULL, 1, 1, 1, 2, 1);)
HZ_OP(convT2d_g2, return tt_conv_transpose2d(c, x, y, z, 2, 0, 0, 1, 2);)
HZ_OP(convT_ex_3d, {
    tt_conv_params p;
    memset(&p, 0, sizeof p);
    p.stride[0] = 2; p.stride[1] = 1; p.stride[2] = 2; p.padding[0] = 1; p.padding[1] = 0; p.padding[2] = 1;
    p.dilation[0] = 1; p.dilation[1] = 1; p.dilation[2] = 1; p.groups = 1;
    p.output_padding[0] = 1; p.output_padding[1] = 0; p.output_padding[2] = 0;
    return tt_conv_transpose_ex(c, x, y, z, &p); })

/* ---- pooling, upsampling ------------------------------------------------------------------------------ */

HZ_OP(maxpool2d, return tt_max_pool2d(c, x, 3, 2, 1);)
HZ_OP(avgpool2d, return tt_avg_pool2d(c, x, 3, 2, 1);)
HZ_OP(maxpool2d_k2, return tt_max_pool2d(c, x, 2, 0, 0);)
HZ_OP(avgpool2d_k2, return tt_avg_pool2d(c, x, 2, 0, 0);)
HZ_OP(maxpool1d, return tt_max_pool1d(c, x, 3, 2, 1);)
HZ_OP(avgpool1d, return tt_avg_pool1d(c, x, 4, 3, 2);)
HZ_OP(maxpool_ex_ceil_dil, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 3; p.kernel[1] = 2; p.stride[0] = 2; p.stride[1] = 1; p.padding[0] = 1; p.padding[1] = 0;
    p.dilation[0] = 2; p.dilation[1] = 1; p.ceil_mode = true;
    return tt_max_pool_ex(c, x, &p); })
HZ_OP(avgpool_ex_ceil_excl, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 3; p.kernel[1] = 3; p.stride[0] = 2; p.stride[1] = 2; p.padding[0] = 1; p.padding[1] = 1;
    p.ceil_mode = true; p.exclude_pad = true;
    return tt_avg_pool_ex(c, x, &p); })
HZ_OP(avgpool_ex_ceil_incl, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 3; p.kernel[1] = 3; p.stride[0] = 2; p.stride[1] = 2; p.padding[0] = 1; p.padding[1] = 1;
    p.ceil_mode = true; p.exclude_pad = false;
    return tt_avg_pool_ex(c, x, &p); })
HZ_OP(maxpool_ex_3d, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 2; p.kernel[1] = 3; p.kernel[2] = 3; p.stride[0] = 2; p.stride[1] = 2; p.stride[2] = 2;
    p.padding[0] = 0; p.padding[1] = 1; p.padding[2] = 1;
    return tt_max_pool_ex(c, x, &p); })
HZ_OP(avgpool_ex_3d, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 2; p.kernel[1] = 3; p.kernel[2] = 3; p.stride[0] = 1; p.stride[1] = 2; p.stride[2] = 2;
    p.padding[0] = 1; p.padding[1] = 1; p.padding[2] = 0; p.exclude_pad = true;
    return tt_avg_pool_ex(c, x, &p); })
HZ_OP(maxpool_ex_1d, {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = 4; p.stride[0] = 3; p.padding[0] = 2; p.dilation[0] = 2; p.ceil_mode = true;
    return tt_max_pool_ex(c, x, &p); })
HZ_OP(adaptive_5x7, return tt_adaptive_avg_pool2d(c, x, 5, 7);)
HZ_OP(adaptive_1x1, return tt_adaptive_avg_pool2d(c, x, 1, 1);)
HZ_OP(adaptive_same, return tt_adaptive_avg_pool2d(c, x, 17, 19);)
HZ_OP(up_nearest, return tt_upsample_nearest(c, x, 20, 31);)
HZ_OP(up_nearest_down, return tt_upsample_nearest(c, x, 4, 5);)
HZ_OP(up_nearest_s15, return tt_upsample_nearest_scale(c, x, 1.5f, 1.7f);)
HZ_OP(up_nearest_s2, return tt_upsample_nearest_scale(c, x, 2.0f, 1.0f);)
HZ_OP(up_nearest_s05, return tt_upsample_nearest_scale(c, x, 0.5f, 0.75f);)
HZ_OP(up_bilinear, return tt_upsample_bilinear(c, x, 20, 31, false);)
HZ_OP(up_bilinear_ac, return tt_upsample_bilinear(c, x, 20, 31, true);)
HZ_OP(up_bilinear_keep_h, return tt_upsample_bilinear(c, x, 9, 23, false);)
HZ_OP(up_bilinear_down, return tt_upsample_bilinear(c, x, 5, 4, true);)
HZ_OP(up_bilinear_s17, return tt_upsample_bilinear_scale(c, x, 1.7f, 2.0f, false);)
HZ_OP(up_bilinear_s17_ac, return tt_upsample_bilinear_scale(c, x, 1.7f, 2.0f, true);)

/* ---- shape ops ------------------------------------------------------------------------------------------ */

HZ_OP(pad_const3, { int64_t p[6] = {1, 1, 2, 0, 1, 2}; return tt_pad(c, x, p, 6, -0.5f); })
HZ_OP(pad_reflect, { int64_t p[4] = {2, 3, 1, 0}; return tt_pad_ex(c, x, p, 4, TT_PAD_REFLECT, 0.0f); })
HZ_OP(pad_replicate, { int64_t p[4] = {3, 1, 2, 4}; return tt_pad_ex(c, x, p, 4, TT_PAD_REPLICATE, 0.0f); })
HZ_OP(pad_circular, { int64_t p[4] = {2, 3, 1, 1}; return tt_pad_ex(c, x, p, 4, TT_PAD_CIRCULAR, 0.0f); })
HZ_OP(pad_constant_ex, { int64_t p[2] = {0, 5}; return tt_pad_ex(c, x, p, 2, TT_PAD_CONSTANT, 2.5f); })
HZ_OP(pad_reflect_chain, { int64_t p[2] = {3, 3}; return tt_tanh(c, tt_pad_ex(c, tt_exp(c, x), p, 2, TT_PAD_REFLECT, 0.0f)); })
HZ_OP(concat_ax0, { tt_tensor *p[3]; p[0] = x; p[1] = y; p[2] = x; return tt_concat(c, p, 3, 0); })
HZ_OP(concat_last, { tt_tensor *p[2]; p[0] = x; p[1] = y; return tt_concat(c, p, 2, -1); })
HZ_OP(stack_ax0, { tt_tensor *p[2]; p[0] = x; p[1] = y; return tt_stack(c, p, 2, 0); })
HZ_OP(split_last, {
    tt_tensor *p[8];
    int n = tt_split(c, x, 100, 1, p, 8);
    if (n != 8) return NULL;
    return tt_add(c, tt_mul(c, p[0], p[3]), tt_slice(c, p[7], 1, 0, 1, 1)); })
HZ_OP(gather_ax0, return tt_gather(c, x, 0, y);)
HZ_OP(gather_ax2, return tt_gather(c, x, 2, y);)
HZ_OP(index_select_ax0, return tt_index_select(c, x, 0, y);)
HZ_OP(embedding, return tt_embedding(c, x, y);)
HZ_OP(repeat_interleave_ax0, return tt_repeat_interleave(c, x, 3, 0);)
HZ_OP(flip_all, { int a[3] = {0, 1, 2}; return tt_flip(c, x, a, 3); })
HZ_OP(tile3, { int64_t r[3] = {2, 3, 1}; return tt_tile(c, x, r, 3); })
HZ_OP(permute_contig, { int p[4] = {0, 2, 3, 1}; return tt_contiguous(c, tt_permute(c, x, p)); })
HZ_OP(view_ops_chain, {
    int64_t s[3] = {61, 701, 1};
    tt_tensor *a = tt_unsqueeze(c, tt_transpose(c, x, 0, 1), 0);
    tt_tensor *b = tt_squeeze(c, tt_flatten(c, a, 0, 1), 1);
    return tt_add(c, tt_reshape(c, tt_contiguous(c, tt_transpose(c, tt_reshape(c, b, 2, (const int64_t[2]){701, 61}), 0, 1)), 3, s),
                  tt_expand(c, tt_reshape(c, y, 3, (const int64_t[3]){1, 701, 1}), 3, s)); })

/* ---- attention ------------------------------------------------------------------------------------------ */

HZ_OP(attn, return tt_scaled_dot_product_attention(c, x, y, z, NULL, false, 0.0f);)
HZ_OP(attn_causal, return tt_scaled_dot_product_attention(c, x, y, z, NULL, true, 0.0f);)
HZ_OP(attn_scale, return tt_scaled_dot_product_attention(c, x, y, z, NULL, false, 0.3f);)
HZ_OP(attn_mask, return tt_scaled_dot_product_attention(c, x, y, z, u, false, 0.0f);)
HZ_OP(attn_mask_causal, return tt_scaled_dot_product_attention(c, x, y, z, u, true, 0.2f);)
HZ_OP(attn_chain, return tt_gelu(c, tt_add(c, tt_scaled_dot_product_attention(c, tt_mul_scalar(c, x, 0.5f), y, z, NULL, false, 0.0f), x));)

/* ---- constants made during the trace (folded by CONST_FOLD) ------------------------------------------- */

HZ_OP(constants, {
    static const int64_t idata[7] = {3, -1, 4, 1, -5, 9, 2};
    static const float fdata[5] = {0.5f, -0.25f, 2.0f, 1.0f, -3.0f};
    int64_t s57[2] = {5, 7}, s7 = 7, s5[2] = {5, 1};
    tt_tensor *k1 = tt_add_scalar(c, tt_eye(c, TT_F32, 5, 7), 1.0f);
    tt_tensor *k2 = tt_add(c, tt_linspace(c, -1.0, 1.0, 7), tt_mul_scalar(c, tt_arange(c, TT_F32, 0.0, 7.0, 1.0), 0.1f));
    tt_tensor *k3 = tt_cast(c, tt_from_int64(c, 1, &s7, idata), TT_F32);
    tt_tensor *k4 = tt_from_data(c, TT_F32, 2, s5, fdata);
    tt_tensor *k5 = tt_mul(c, tt_full(c, TT_F32, 2, s57, 0.3), tt_ones(c, TT_F32, 2, s57));
    tt_tensor *k6 = tt_add(c, tt_zeros(c, TT_F32, 2, s57), tt_scalar(c, 0.125f));
    tt_tensor *r = tt_mul(c, tt_add(c, x, k5), k1);
    r = tt_sub(c, tt_add(c, r, k2), tt_mul(c, k3, k4));
    return tt_add(c, r, tt_exp(c, k6)); })
HZ_OP(simplify_identities, {
    int64_t p0[2] = {0, 0};
    tt_tensor *a = tt_mul_scalar(c, tt_add_scalar(c, x, 0.0f), 1.0f);
    a = tt_transpose(c, tt_transpose(c, tt_pad(c, a, p0, 2, 0.0f), 0, 1), 0, 1);
    return tt_add(c, tt_cast(c, a, TT_F32), tt_mul(c, y, tt_ones(c, TT_F32, 1, &y->shape[0]))); })

/* ---- bench/bench_models.h at bench.c's sizes (weights made by the header's own makers) ----------------- */

static cnn_w hz_bcnn;
static mlp_w hz_bmlp;
static enc_w hz_benc;
static alex_w hz_balex;
static res_w hz_bres;
static mnv2_w hz_bmnv2;
static tr_mlp_w hz_tmlp;
static tr_cnn_w hz_tcnn;
static tr_enc_w hz_tenc;
static tr_moe_w hz_tmoe;
static tr_mbv2_w hz_tmbv2;
static demo01_w hz_d01;
static demo03_w hz_d03;
static ep_w hz_ep;

/* ==== the case list ============================================================================== */

#define HZP HZ_PASSES
static const hz_case hz_cases[] = {
    /* bench models */
    CW("bench.simplecnn_b1", cnn_fwd, &hz_bcnn, "f@11:1x3x32x32", HZP),
    CW("bench.simplecnn_b16", cnn_fwd, &hz_bcnn, "f@11:16x3x32x32", HZ_MEDIUM),
    CW("bench.mlp_b64", mlp_fwd, &hz_bmlp, "f@11:64x784", HZ_MEDIUM),
    CW("bench.transformer_s128", enc_fwd, &hz_benc, "f@11:1x128x256", HZ_MEDIUM),
    CW("bench.alexnet_b1", alex_fwd, &hz_balex, "f@11:1x3x224x224", HZ_HEAVY),
    CW("bench.resnet18_b1", res_fwd, &hz_bres, "f@11:1x3x224x224", HZ_HEAVY),
    CW("bench.mobilenetv2_b1", mnv2_fwd, &hz_bmnv2, "f@11:1x3x224x224", HZ_HEAVY),
    CW("bench.chain", chain_fwd, NULL, "f@11:131101", 0u),
    CW("bench.dispatch_1000", dispatch_fwd, NULL, "f@11:16", HZP),
    CW("bench.sgemm_256", hz_matmul, NULL, "f@11:256x256 f@12:256x256", 0u),

    /* tests/test_trace.c model zoo */
    CW("zoo.mlp", tr_mlp_apply, &hz_tmlp, "f@11:5x33", HZP),
    CW("zoo.cnn", tr_cnn_apply, &hz_tcnn, "f@11:2x3x32x32", HZP),
    CW("zoo.transformer", tr_enc_apply, &hz_tenc, "f@11:2x7x32", HZP),
    CW("zoo.bbox", tr_bbox_apply, NULL, "f@11:13x4 f@12:1x3x24x40", HZP),
    CW("zoo.moe", tr_moe_apply, &hz_tmoe, "f@11:9x8", HZP),
    CW("zoo.mbv2", tr_mbv2_apply, &hz_tmbv2, "f@11:2x3x32x32", HZP),
    CM("zoo.chain", tr_chain_multi, NULL, "f@11:33x37 f@12:37", HZP),
    CM("zoo.chain_strided", tr_chain_multi, NULL, "F:33x37 f:37", HZP),
    CM("zoo.chain_big", tr_chain_multi, NULL, "f:67x1031 f:1031", 0u),
    CW("zoo.dead", tr_dead_apply, NULL, "f:3x7 f:3x7", HZP),
    CW("zoo.cse", tr_cse_apply, NULL, "f:3x7 f:3x7", HZP),
    CW("zoo.cse_attr", tr_cse_attr_apply, NULL, "f:5x5", HZP),
    CW("zoo.cse_attr_same", tr_cse_attr_same_apply, NULL, "f:5x5", HZP),
    CW("zoo.cse_axis", tr_cse_axis_apply, NULL, "f:5x5", HZP),
    CW("zoo.cse_inputs", tr_cse_inputs_apply, NULL, "f:3x7 f:3x7", HZP),
    CW("zoo.cse_view", tr_cse_view_apply, NULL, "f:5x5", HZP),
    CW("zoo.cse_dce", tr_cse_dce_apply, NULL, "f:3x7 f:3x7", HZP),
    CW("zoo.branchy", tr_branchy_apply, NULL, "f:6x9", 0u),

    /* examples */
    CM("example.01b_eager_model", demo01_multi, &hz_d01, "f@100:1x3x8x8", HZP),
    CM("example.01b_eager_model_b4", demo01_multi, &hz_d01, "f:4x3x8x8", 0u),
    CM("example.02_where_not_if", demo02_multi, NULL, "q:61x701", HZP),
    CM("example.02_where_linspace", demo02_linspace_multi, NULL, "f:11", HZP),
    CW("example.04_trace_cnn", demo03_fwd, &hz_d03, "f@1:2x3x16x16", HZP),

    /* tests/test_trace.c: one graph per public op */
    CW("op.neg", tr_op_neg, NULL, "f:3x4x5", 0u),
    CW("op.abs", tr_op_abs, NULL, "f:3x4x5", 0u),
    CW("op.sign", tr_op_sign, NULL, "f:3x4x5", 0u),
    CW("op.exp", tr_op_exp, NULL, "f:1001", 0u),
    CW("op.log", tr_op_log, NULL, "p:3x4x5", 0u),
    CW("op.sqrt", tr_op_sqrt, NULL, "p:3x4x5", 0u),
    CW("op.rsqrt", tr_op_rsqrt, NULL, "p:3x4x5", 0u),
    CW("op.reciprocal", tr_op_reciprocal, NULL, "p:3x4x5", 0u),
    CW("op.sin", tr_op_sin, NULL, "f:3x4x5", 0u),
    CW("op.cos", tr_op_cos, NULL, "f:3x4x5", 0u),
    CW("op.tanh", tr_op_tanh, NULL, "f:3x4x5", 0u),
    CW("op.sigmoid", tr_op_sigmoid, NULL, "f:3x4x5", 0u),
    CW("op.relu", tr_op_relu, NULL, "f:3x4x5", 0u),
    CW("op.leaky_relu", tr_op_leaky_relu, NULL, "f:3x4x5", 0u),
    CW("op.elu", tr_op_elu, NULL, "f:3x4x5", 0u),
    CW("op.gelu", tr_op_gelu, NULL, "f:3x4x5", 0u),
    CW("op.gelu_tanh", tr_op_gelu_tanh, NULL, "f:3x4x5", 0u),
    CW("op.silu", tr_op_silu, NULL, "f:3x4x5", 0u),
    CW("op.softplus", tr_op_softplus, NULL, "f:3x4x5", 0u),
    CW("op.erf", tr_op_erf, NULL, "f:3x4x5", 0u),
    CW("op.floor", tr_op_floor, NULL, "f:3x4x5", 0u),
    CW("op.ceil", tr_op_ceil, NULL, "f:3x4x5", 0u),
    CW("op.round", tr_op_round, NULL, "f:3x4x5", 0u),
    CW("op.clamp", tr_op_clamp, NULL, "f:3x4x5", 0u),
    CW("op.pow_scalar", tr_op_pow_scalar, NULL, "p:3x4x5", 0u),
    CW("op.add", tr_op_add, NULL, "f:3x4x5 f:4x1", 0u),
    CW("op.sub", tr_op_sub, NULL, "f:3x4x5 f:3x4x5", 0u),
    CW("op.mul", tr_op_mul, NULL, "f:3x1x5 f:2x1x4x1", 0u),
    CW("op.div", tr_op_div, NULL, "f:3x4x5 p:5", 0u),
    CW("op.pow", tr_op_pow, NULL, "p:3x4x5 f:5", 0u),
    CW("op.maximum", tr_op_maximum, NULL, "f:3x4x5 f:4x5", 0u),
    CW("op.minimum", tr_op_minimum, NULL, "f:3x4x5 f:3x4x1", 0u),
    CW("op.add_scalar", tr_op_add_scalar, NULL, "f:3x4x5", 0u),
    CW("op.sub_scalar", tr_op_sub_scalar, NULL, "f:3x4x5", 0u),
    CW("op.mul_scalar", tr_op_mul_scalar, NULL, "f:3x4x5", 0u),
    CW("op.div_scalar", tr_op_div_scalar, NULL, "f:3x4x5", 0u),
    CW("op.eq", tr_op_eq, NULL, "f:3x4x5 f:4x1", 0u),
    CW("op.ne", tr_op_ne, NULL, "f:3x4x5 f:4x1", 0u),
    CW("op.lt", tr_op_lt, NULL, "f:3x4x5 f:4x1", 0u),
    CW("op.le", tr_op_le, NULL, "f:3x4x5 f:3x4x5", 0u),
    CW("op.gt", tr_op_gt, NULL, "f:3x4x5 f:5", 0u),
    CW("op.ge", tr_op_ge, NULL, "f:3x4x5 f:3x4x5", 0u),
    CW("op.logical_and", tr_op_logical_and, NULL, "b:3x4x5 b:4x1", 0u),
    CW("op.logical_or", tr_op_logical_or, NULL, "b:3x4x5 f:3x4x5", 0u),
    CW("op.logical_not", tr_op_logical_not, NULL, "b:3x4x5", 0u),
    CW("op.where", tr_op_where, NULL, "f:3x4x5 b:4x1", 0u),
    CW("op.cast_f16", tr_op_cast_f16, NULL, "f:3x4x5", 0u),
    CW("op.cast_bf16", tr_op_cast_bf16, NULL, "f:3x4x5", 0u),
    CW("op.cast_i32", tr_op_cast_i32, NULL, "f:3x4x5", 0u),
    CW("op.cast_bool", tr_op_cast_bool, NULL, "f:3x4x5", 0u),
    CW("op.cast_from_i32", tr_op_cast_from_i32, NULL, "i100:3x4x5", 0u),
    CW("op.sum", tr_op_sum, NULL, "f:3x4x5", 0u),
    CW("op.mean", tr_op_mean, NULL, "f:3x4x5", 0u),
    CW("op.max_all", tr_op_max_all, NULL, "f:33x37", 0u),
    CW("op.min", tr_op_min, NULL, "f:3x4x5", 0u),
    CW("op.prod", tr_op_prod, NULL, "p:3x4x5", 0u),
    CW("op.var", tr_op_var, NULL, "f:3x4x5", 0u),
    CW("op.std", tr_op_std, NULL, "f:3x4x5", 0u),
    CW("op.argmax", tr_op_argmax, NULL, "f:3x4x5", 0u),
    CW("op.argmin", tr_op_argmin, NULL, "f:3x4x5", 0u),
    CW("op.softmax", tr_op_softmax, NULL, "f:3x4x5", 0u),
    CW("op.log_softmax", tr_op_log_softmax, NULL, "f:3x4x5", 0u),
    CW("op.layer_norm", tr_op_layer_norm, NULL, "f:3x4x5 f:5", 0u),
    CW("op.layer_norm2", tr_op_layer_norm2, NULL, "f:3x4x5", 0u),
    CW("op.rms_norm", tr_op_rms_norm, NULL, "f:3x4x5 f:5", 0u),
    CW("op.batch_norm", tr_op_batch_norm, NULL, "f:2x3x4x5 p:3", 0u),
    CW("op.group_norm", tr_op_group_norm, NULL, "f:2x4x3x3", 0u),
    CW("op.matmul", tr_op_matmul, NULL, "f:3x4x5 f:2x1x5x3", 0u),
    CW("op.matmul_dot", tr_op_matmul_dot, NULL, "f:33 f:33", 0u),
    CW("op.linear", tr_op_linear, NULL, "f:3x4x5 f:6x5", 0u),
    CW("op.conv2d", tr_op_conv2d, NULL, "f:2x3x9x9 f:4x3x3x3", 0u),
    CW("op.conv2d_ex", tr_op_conv2d_ex, NULL, "f:2x3x9x8 f:4x3x3x2", 0u),
    CW("op.conv1d", tr_op_conv1d, NULL, "f:2x4x11 f:6x2x3", 0u),
    CW("op.max_pool2d", tr_op_max_pool2d, NULL, "f:2x3x9x9", 0u),
    CW("op.avg_pool2d", tr_op_avg_pool2d, NULL, "f:2x3x9x9", 0u),
    CW("op.adaptive_avg_pool2d", tr_op_adaptive_avg_pool2d, NULL, "f:2x3x9x7", 0u),
    CW("op.upsample_nearest", tr_op_upsample_nearest, NULL, "f:1x2x3x4", 0u),
    CW("op.concat", tr_op_concat, NULL, "f:3x4x5 f:3x2x5", 0u),
    CW("op.stack", tr_op_stack, NULL, "f:3x4x5 f:3x4x5", 0u),
    CW("op.split", tr_op_split, NULL, "f:6x4", 0u),
    CW("op.chunk", tr_op_chunk, NULL, "f:7x4", 0u),
    CW("op.pad", tr_op_pad, NULL, "f:3x4x5", 0u),
    CW("op.gather", tr_op_gather, NULL, "f:3x4x5 i4:3x7x5", 0u),
    CW("op.index_select", tr_op_index_select, NULL, "f:3x4x5 i5:7", 0u),
    CW("op.embedding", tr_op_embedding, NULL, "f:10x4 i10:3x5", 0u),
    CW("op.repeat_interleave", tr_op_repeat_interleave, NULL, "f:3x4x5", 0u),
    CW("op.flip", tr_op_flip, NULL, "f:3x4x5", 0u),
    CW("op.tile", tr_op_tile, NULL, "f:3x4x5", 0u),
    CW("op.shape_as_tensor", tr_op_shape_as_tensor, NULL, "f:2x4x3", 0u),
    CW("op.sdpa", tr_op_sdpa, NULL, "f:2x5x8 f:2x6x8", 0u),
    CW("op.sdpa_causal", tr_op_sdpa_causal, NULL, "f:2x5x8", 0u),
    CW("op.sdpa_mask", tr_op_sdpa_mask, NULL, "f:2x5x8 b:1x5x5", 0u),
    CW("op.reshape", tr_op_reshape, NULL, "f:3x4x5", 0u),
    CW("op.view", tr_op_view, NULL, "f:3x4x5", 0u),
    CW("op.permute", tr_op_permute, NULL, "f:3x4x5", 0u),
    CW("op.transpose", tr_op_transpose, NULL, "f:3x4x5", 0u),
    CW("op.slice", tr_op_slice, NULL, "f:3x4x5", 0u),
    CW("op.expand", tr_op_expand, NULL, "f:3x4x5 f:4x1", 0u),
    CW("op.squeeze", tr_op_squeeze, NULL, "f:3x1x5", 0u),
    CW("op.unsqueeze", tr_op_unsqueeze, NULL, "f:3x4x5", 0u),
    CW("op.flatten", tr_op_flatten, NULL, "f:3x4x5", 0u),
    CW("op.contiguous", tr_op_contiguous, NULL, "f:3x4x5", 0u),
    CW("op.clone", tr_op_clone, NULL, "f:3x4x5", 0u),
    CW("op.fuse_transpose", tr_op_fuse_transpose, NULL, "f:5x7 f:7x5", 0u),
    CW("op.fuse_slice", tr_op_fuse_slice, NULL, "f:5x7", 0u),
    CW("op.fuse_expand", tr_op_fuse_expand, NULL, "f:5x7 f:5x1", 0u),
    CW("op.fuse_f16_round", tr_op_fuse_f16_round, NULL, "f:33x37", 0u),
    CW("op.fuse_bf16_round", tr_op_fuse_bf16_round, NULL, "f:33x37", 0u),
    CW("op.fuse_i32_trunc", tr_op_fuse_i32_trunc, NULL, "f:33x37", 0u),
    CW("op.fuse_bool", tr_op_fuse_bool, NULL, "f:33x37", 0u),
    CW("op.fuse_int_input", tr_op_fuse_int_input, NULL, "i9:33x37 f:37", 0u),
    CW("op.fuse_int_compare", tr_op_fuse_int_compare, NULL, "i4:6x7 f:1x7", 0u),
    CW("op.fuse_f16_input", tr_op_fuse_f16_input, NULL, "f:9x11", 0u),
    CW("op.empty", tr_op_empty, NULL, "f:0x5 f:5", 0u),
    CW("op.view_chain", tr_op_view_chain, NULL, "f:3x4x5", 0u),
    CW("op.view_of_result", tr_op_view_of_result, NULL, "f:3x4x5", 0u),

    /* elementwise sweep */
    HZ_UNARY(HZ_U_CASES)
    HZ_BINARY(HZ_B_CASES)
    C1("where.same", hz_where, "b:61x701 f:61x701 f:61x701"),
    C1("where.bcast", hz_where, "b:61x1 f:701 f:61x701"),
    C1("where.scalar_b", hz_where, "b:61x701 f:61x701 f:"),
    C1("where.scalar_cond", hz_where, "b: f:61x701 f:701"),
    C1("where.f16", hz_where, "b:37x41 h:37x41 h:37x41"),
    C1("where.bf16_f32", hz_where, "b:37x41 r:37x41 f:41"),
    C1("where.i32", hz_where, "b:37x41 i9:37x41 i5:41"),
    C1("where.strided", hz_where, "B:61x701 F:61x701 F:61x701"),
    C1("where.special", hz_where, "b:3x337 n:3x337 f:3x337"),
    C1("where.chain", hz_where_chain, "f:61x701 f:701"),
    C1("where.nested", hz_where_nested, "w:61x701"),
    C1("where.mask_chain", hz_where_mask_chain, "b:61x701 b:61x1 f:701"),
    HZ_CASTS(HZ_CAST_CASES)
    C1("cast.special_f16", hz_cast_special_f16, "n:3x337"),
    C1("cast.special_bf16", hz_cast_special_bf16, "n:3x337"),
    C1("cast.special_i32", hz_cast_special_i32, "n:3x337"),
    C1("cast.special_bool", hz_cast_special_bool, "n:3x337"),
    C1("cast.f16_overflow", hz_cast_f16_overflow, "f:61x701"),
    C1("cast.f16_subnormal", hz_cast_f16_subnormal, "f:61x701"),
    C1("cast.chain_f16", hz_cast_chain_f16, "w:61x701 f:701"),
    C1("cast.chain_bf16", hz_cast_chain_bf16, "w:61x701 f:61x1"),
    C1("cast.chain_f16_out", hz_cast_chain_f16_out, "f:61x701 f:701"),
    C1("cast.chain_i32", hz_cast_chain_i32, "w:61x701"),
    C1("cast.f16_arith_chain", hz_f16_arith_chain, "h:61x701 h:701"),
    C1("cast.bf16_arith_chain", hz_f16_arith_chain, "r:61x701 f:701"),

    /* reductions and softmax */
    C1("red.sum_all", hz_sum_all, "f:61x701"),
    C1("red.sum_all_big", hz_sum_all, "f:300007"),
    C1("red.sum_ax0", hz_sum_ax0, "f:61x701"),
    C1("red.sum_ax1_keep", hz_sum_ax1_keep, "f:61x701"),
    C1("red.sum_ax02", hz_sum_ax02, "f:7x33x65"),
    C1("red.sum_axm1_strided", hz_sum_axm1, "F:61x701"),
    C1("red.sum_ax0_strided", hz_sum_ax0, "F:61x701"),
    C1("red.sum_f16", hz_sum_ax1_keep, "h:61x701"),
    C1("red.sum_i32", hz_sum_all, "i1000:61x701"),
    C1("red.sum_bool", hz_sum_ax0, "b:61x701"),
    C1("red.mean_all", hz_mean_all, "f:61x701"),
    C1("red.mean_ax0", hz_mean_ax0, "f:7x33x65"),
    C1("red.mean_ax1", hz_mean_ax1, "f:7x33x65"),
    C1("red.mean_strided", hz_mean_ax1, "F:61x701"),
    C1("red.max_all", hz_max_all, "f:61x701"),
    C1("red.max_ax0", hz_max_ax0, "f:61x701"),
    C1("red.max_ax1", hz_max_ax1, "q:61x701"),
    C1("red.max_special", hz_max_ax1, "n:3x337"),
    C1("red.max_strided", hz_max_ax1, "F:61x701"),
    C1("red.min_ax1", hz_min_ax1, "f:61x701"),
    C1("red.min_ax0", hz_min_ax0, "q:7x33x65"),
    C1("red.min_special", hz_min_ax0, "n:3x337"),
    C1("red.prod_ax1", hz_prod_ax1, "f:61x701"),
    C1("red.prod_ax0", hz_prod_ax0, "p:7x33x65"),
    C1("red.var_ax1", hz_var_ax1, "f:61x701"),
    C1("red.var_all0", hz_var_all0, "f:61x701"),
    C1("red.var_ax0_keep", hz_var_ax0_keep, "f:61x701"),
    C1("red.var_ax02", hz_var_ax02, "f:7x33x65"),
    C1("red.var_strided", hz_var_ax1, "F:61x701"),
    C1("red.std_ax1", hz_std_ax1, "f:61x701"),
    C1("red.std_ax0", hz_std_ax0, "f:7x33x65"),
    C1("red.argmax_ax1", hz_argmax_ax1, "q:61x701"),
    C1("red.argmax_ax0", hz_argmax_ax0, "q:61x701"),
    C1("red.argmax_special", hz_argmax_ax1, "n:3x337"),
    C1("red.argmin_ax1", hz_argmin_ax1, "q:61x701"),
    C1("red.argmin_ax0", hz_argmin_ax0, "F:61x701"),
    C1("red.softmax_last", hz_softmax_last, "w:61x701"),
    C1("red.softmax_ax0", hz_softmax_ax0, "w:61x701"),
    C1("red.softmax_ax1_3d", hz_softmax_ax1, "f:7x33x65"),
    C1("red.softmax_strided", hz_softmax_last, "F:61x701"),
    C1("red.softmax_special", hz_softmax_last, "n:3x337"),
    C1("red.softmax_wide_rows", hz_softmax_last, "f:3x20011"),
    C1("red.log_softmax_last", hz_log_softmax_last, "w:61x701"),
    C1("red.log_softmax_ax0", hz_log_softmax_ax0, "f:7x33x65"),
    C1("red.softmax_chain", hz_softmax_chain, "f:61x701 f:701"),
    C1("red.reduce_chain", hz_reduce_chain, "f:61x701"),

    /* norms */
    C1("norm.ln", hz_ln, "f:64x768 f:768 f:768"),
    C1("norm.ln_odd", hz_ln, "f:61x701 f:701 f:701"),
    C1("norm.ln2", hz_ln2, "f:5x12x33 f:12x33 f:12x33"),
    C1("norm.ln_plain", hz_ln_plain, "w:61x701"),
    C1("norm.ln_weight_only", hz_ln_weight_only, "f:61x701 f:701"),
    C1("norm.ln_strided", hz_ln, "F:61x701 f:701 f:701"),
    C1("norm.ln_residual", hz_ln_residual, "f:61x701 f:61x701 f:701 f:701"),
    C1("norm.rms", hz_rms, "f:64x768 f:768"),
    C1("norm.rms_plain", hz_rms_plain, "F:61x701"),
    C1("norm.rms2", hz_rms2, "f:5x12x33"),
    C1("norm.gn", hz_gn, "f:4x12x9x9 f:12 f:12"),
    C1("norm.gn1", hz_gn1, "f:4x12x33"),
    C1("norm.gnc", hz_gnc, "f:4x12x9x9 f:12"),
    C1("norm.bn4d", hz_bn, "f:4x12x9x9 f:12 p:12 f:12 f:12"),
    C1("norm.bn2d", hz_bn, "f:64x12 f:12 p:12 f:12 f:12"),
    C1("norm.bn3d", hz_bn, "f:4x12x33 f:12 p:12 f:12 f:12"),
    C1("norm.bn_plain", hz_bn_plain, "f:4x12x9x9 f:12 p:12"),

    /* matmul / linear (operands as graph inputs) */
    C1("mm.2d", hz_matmul, "f:67x129 f:129x45"),
    C1("mm.big", hz_matmul, "f:130x700 f:700x150"),
    C1("mm.batch_bcast", hz_matmul, "f:2x1x33x40 f:3x40x17"),
    C1("mm.3d_2d", hz_matmul, "f:4x33x40 f:40x17"),
    C1("mm.vec_mat", hz_matmul, "f:129 f:129x45"),
    C1("mm.mat_vec", hz_matmul, "f:67x129 f:129"),
    C1("mm.batch_vec", hz_matmul, "f:3x67x129 f:129"),
    C1("mm.dot", hz_matmul, "f:1001 f:1001"),
    C1("mm.strided", hz_matmul, "T:67x129 F:129x45"),
    C1("mm.tall_skinny", hz_matmul, "f:300x3 f:3x500"),
    C1("mm.f16", hz_matmul, "h:33x40 h:40x17"),
    C1("lin.bias", hz_linear, "f:50x96 f:80x96 f:80"),
    C1("lin.nobias", hz_linear_nobias, "f:50x96 f:80x96"),
    C1("lin.3d", hz_linear, "f:3x17x96 f:80x96 f:80"),
    C1("lin.strided_w", hz_linear, "f:50x96 T:80x96 f:80"),
    C1("lin.relu", hz_linear_relu, "f:50x96 f:80x96 f:80"),
    C1("lin.relu_big", hz_linear_relu, "f:130x700 f:200x700 f:200"),
    C1("lin.gelu_scale", hz_linear_gelu_scale, "f:3x17x96 f:80x96 f:80"),
    C1("lin.matmul_bias_relu", hz_matmul_bias_relu, "f:64x96 f:96x80 f:80"),
    C1("lin.matmul_bias_tanh_res", hz_matmul_bias_tanh_res, "f:64x96 f:96x80 f:80"),
    C1("lin.two_users", hz_linear_two_users, "f:50x96 f:80x96 f:80"),
    CW("ep.lin_relu", hz_ep_lin_relu, &hz_ep, "f:50x96", HZP),
    CW("ep.lin_gelu_res", hz_ep_lin_gelu_res, &hz_ep, "f:3x17x96", HZP),
    CW("ep.lin_nobias_chain", hz_ep_lin_nobias_chain, &hz_ep, "f:50x96", HZP),
    CW("ep.mm_bias_relu", hz_ep_mm_bias_relu, &hz_ep, "f:50x96", HZP),
    CW("ep.lin_bn_relu", hz_ep_lin_bn_relu, &hz_ep, "f:50x96", HZP),
    CW("ep.conv_bn_relu", hz_ep_conv_bn_relu, &hz_ep, "f:2x8x17x19", HZP),
    CW("ep.conv_nobias_bn_clamp", hz_ep_conv_nobias_bn_clamp, &hz_ep, "w:2x8x17x19", HZP),
    CW("ep.gconv_bn_relu", hz_ep_gconv_bn_relu, &hz_ep, "f:2x8x17x19", HZP),
    CW("ep.dw_bn_relu", hz_ep_dw_bn_relu, &hz_ep, "f:2x8x17x19", HZP),
    CW("ep.conv_relu_pool", hz_ep_conv_relu_pool, &hz_ep, "f:2x8x17x19", HZP),

    /* convolution (weights as graph inputs) */
    C1("conv.3x3", hz_conv2d_3x3, "f:2x16x25x27 f:32x16x3x3 f:32"),
    C1("conv.3x3_big", hz_conv2d_3x3, "f:1x32x28x28 f:64x32x3x3 f:64"),
    C1("conv.s2p2d2", hz_conv2d_s2p2d2, "f:2x8x31x29 f:12x8x3x3 f:12"),
    C1("conv.groups2", hz_conv2d_g2, "f:2x8x17x19 f:12x4x3x3 f:12"),
    C1("conv.depthwise", hz_conv2d_dw, "f:2x16x33x35 f:16x1x3x3 f:16"),
    C1("conv.depthwise_s2k5", hz_conv2d_dw_s2k5, "f:2x16x33x35 f:16x1x5x5 f:16"),
    C1("conv.1x1", hz_conv2d_1x1, "f:2x64x14x14 f:32x64x1x1"),
    C1("conv.strided_input", hz_conv2d_3x3, "F:2x16x21x23 f:32x16x3x3 f:32"),
    C1("conv.relu", hz_conv2d_relu, "f:2x16x21x23 f:32x16x3x3 f:32"),
    C1("conv.bias_add_relu", hz_conv2d_bias_add_relu, "f:2x16x21x23 f:32x16x3x3 f:32"),
    C1("conv.1d", hz_conv1d, "f:2x8x101 f:16x4x5 f:16"),
    C1("conv.1d_dil", hz_conv1d_dil, "f:2x8x101 f:6x8x3 f:6"),
    C1("conv.3d", hz_conv3d, "f:2x4x9x10x11 f:6x4x3x3x3 f:6"),
    C1("conv.3d_s2_g2", hz_conv3d_s2, "f:2x4x9x10x11 f:6x2x3x3x3"),
    C1("conv.ex_2d", hz_conv_ex_2d, "f:2x8x17x19 f:12x4x3x3 f:12"),
    C1("conv.ex_3d", hz_conv_ex_3d, "f:1x4x7x9x11 f:5x4x3x3x3 f:5"),
    C1("conv.T1d", hz_convT1d, "f:2x8x33 f:8x6x4 f:6"),
    C1("conv.T1d_g2", hz_convT1d_g2, "f:2x8x33 f:8x3x4 f:6"),
    C1("conv.T2d", hz_convT2d, "f:2x8x13x11 f:8x6x3x3 f:6"),
    C1("conv.T2d_dil", hz_convT2d_dil, "f:2x8x13x11 f:8x6x3x3"),
    C1("conv.T2d_g2", hz_convT2d_g2, "f:2x8x13x11 f:8x3x3x3 f:6"),
    C1("conv.T_ex_3d", hz_convT_ex_3d, "f:1x4x5x6x7 f:4x3x3x3x3 f:3"),

    /* pooling, upsampling */
    C1("pool.max2d", hz_maxpool2d, "f:2x5x17x19"),
    C1("pool.avg2d", hz_avgpool2d, "f:2x5x17x19"),
    C1("pool.max2d_k2", hz_maxpool2d_k2, "f:2x5x17x19"),
    C1("pool.avg2d_k2", hz_avgpool2d_k2, "F:2x5x17x19"),
    C1("pool.max2d_special", hz_maxpool2d, "n:1x3x9x12"),
    C1("pool.max1d", hz_maxpool1d, "f:2x5x101"),
    C1("pool.avg1d", hz_avgpool1d, "f:2x5x101"),
    C1("pool.ex_max_ceil_dil", hz_maxpool_ex_ceil_dil, "f:2x5x17x19"),
    C1("pool.ex_avg_ceil_excl", hz_avgpool_ex_ceil_excl, "f:2x5x17x19"),
    C1("pool.ex_avg_ceil_incl", hz_avgpool_ex_ceil_incl, "f:2x5x17x19"),
    C1("pool.ex_max_3d", hz_maxpool_ex_3d, "f:2x3x9x10x11"),
    C1("pool.ex_avg_3d", hz_avgpool_ex_3d, "f:2x3x9x10x11"),
    C1("pool.ex_max_1d", hz_maxpool_ex_1d, "f:2x5x101"),
    C1("pool.adaptive_5x7", hz_adaptive_5x7, "f:2x5x17x19"),
    C1("pool.adaptive_1x1", hz_adaptive_1x1, "f:2x5x17x19"),
    C1("pool.adaptive_same", hz_adaptive_same, "f:2x5x17x19"),
    C1("up.nearest", hz_up_nearest, "f:2x3x9x11"),
    C1("up.nearest_down", hz_up_nearest_down, "f:2x3x9x11"),
    C1("up.nearest_s15", hz_up_nearest_s15, "f:2x3x9x11"),
    C1("up.nearest_s2", hz_up_nearest_s2, "f:2x3x9x11"),
    C1("up.nearest_s05", hz_up_nearest_s05, "f:2x3x9x11"),
    C1("up.bilinear", hz_up_bilinear, "f:2x3x9x11"),
    C1("up.bilinear_ac", hz_up_bilinear_ac, "f:2x3x9x11"),
    C1("up.bilinear_keep_h", hz_up_bilinear_keep_h, "f:2x3x9x11"),
    C1("up.bilinear_down", hz_up_bilinear_down, "F:2x3x9x11"),
    C1("up.bilinear_s17", hz_up_bilinear_s17, "f:2x3x9x11"),
    C1("up.bilinear_s17_ac", hz_up_bilinear_s17_ac, "f:2x3x9x11"),

    /* shape ops */
    C1("shape.pad_const3", hz_pad_const3, "f:3x4x5"),
    C1("shape.pad_reflect", hz_pad_reflect, "f:2x3x9x11"),
    C1("shape.pad_replicate", hz_pad_replicate, "f:2x3x9x11"),
    C1("shape.pad_circular", hz_pad_circular, "F:2x3x9x11"),
    C1("shape.pad_constant_ex", hz_pad_constant_ex, "f:61x701"),
    C1("shape.pad_reflect_chain", hz_pad_reflect_chain, "f:2x5x101"),
    C1("shape.concat_ax0", hz_concat_ax0, "f:61x701 F:61x701"),
    C1("shape.concat_last", hz_concat_last, "f:61x701 f:61x33"),
    C1("shape.concat_f16", hz_concat_ax0, "h:3x4 h:3x4"),
    C1("shape.stack_ax0", hz_stack_ax0, "f:61x701 F:61x701"),
    C1("shape.split_last", hz_split_last, "f:61x701"),
    C1("shape.gather_ax0", hz_gather_ax0, "f:61x701 i61:40x701"),
    C1("shape.gather_ax2", hz_gather_ax2, "f:3x4x50 i50:3x4x77"),
    C1("shape.index_select_ax0", hz_index_select_ax0, "f:61x701 i61:99"),
    C1("shape.embedding", hz_embedding, "f:1000x64 i1000:7x33"),
    C1("shape.embedding_f16", hz_embedding, "h:100x16 i100:9"),
    C1("shape.repeat_interleave", hz_repeat_interleave_ax0, "f:5x701"),
    C1("shape.flip_all", hz_flip_all, "F:3x61x70"),
    C1("shape.tile3", hz_tile3, "f:3x4x5"),
    C1("shape.permute_contig", hz_permute_contig, "f:2x16x33x35"),
    C1("shape.view_ops_chain", hz_view_ops_chain, "f:61x701 f:701"),

    /* attention: 70 query rows (two 48-row tasks), 130 keys (two score tiles) */
    C1("attn.basic", hz_attn, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x24"),
    C1("attn.causal", hz_attn_causal, "f:1x3x97x32 f:1x3x97x32 f:1x3x97x32"),
    C1("attn.causal_L_ne_S", hz_attn_causal, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x32"),
    C1("attn.scale", hz_attn_scale, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x32"),
    C1("attn.bool_mask", hz_attn_mask, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x32 b:70x130"),
    C1("attn.float_mask", hz_attn_mask, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x32 f:3x70x130"),
    C1("attn.mask_causal", hz_attn_mask_causal, "f:1x3x70x32 f:1x3x70x32 f:1x3x70x32 b:3x1x70"),
    C1("attn.bcast_batch", hz_attn, "f:2x1x70x16 f:1x2x130x16 f:1x2x130x16"),
    C1("attn.decode_row", hz_attn, "f:1x8x1x64 f:1x8x200x64 f:1x8x200x64"),
    C1("attn.strided", hz_attn, "f:1x3x70x32 F:1x3x130x32 f:1x3x130x32"),
    C1("attn.3d", hz_attn, "f:3x33x16 f:3x45x16 f:3x45x16"),
    C1("attn.chain", hz_attn_chain, "f:1x3x70x32 f:1x3x130x32 f:1x3x130x32"),

    /* constants and simplifications */
    CW("const.constants", hz_constants, NULL, "f:5x7", HZP),
    CW("const.simplify_identities", hz_simplify_identities, NULL, "f:61x701 f:701", HZP),
};
#undef HZP

/* ==== running a case ============================================================================ */

typedef enum { HZ_TRACE_BE, HZ_TRACE_FN, HZ_COMPILED } hz_how;

typedef struct hz_cfg {
    const char *name;
    hz_how how;
    tt_mode mode;
    unsigned passes;
    int run_b;
} hz_cfg;

#define HZ_ALL ((unsigned)TT_PASS_ALL)
#define HZ_FREEZE ((unsigned)TT_PASS_FREEZE)
#define HZ_NOFUSE (HZ_ALL & ~(unsigned)(TT_PASS_FUSE | TT_PASS_EPILOGUE))

static const hz_cfg hz_cfg_light[] = {
    {"g.all", HZ_TRACE_BE, TT_MODE_DEFAULT, HZ_ALL, 1},
    {"g.none", HZ_TRACE_BE, TT_MODE_DEFAULT, 0u, 1},
    {"g.nofuse", HZ_TRACE_BE, TT_MODE_DEFAULT, HZ_NOFUSE, 0},
    {"g.autotune", HZ_TRACE_FN, TT_MODE_MAX_AUTOTUNE, HZ_ALL, 0},
    {"g.overhead", HZ_TRACE_BE, TT_MODE_REDUCE_OVERHEAD, HZ_ALL, 1},
    {"g.freeze", HZ_TRACE_FN, TT_MODE_DEFAULT, HZ_ALL | HZ_FREEZE, 1},
    {"g.overhead_freeze", HZ_TRACE_BE, TT_MODE_REDUCE_OVERHEAD, HZ_ALL | HZ_FREEZE, 0},
    {"compiled", HZ_COMPILED, TT_MODE_DEFAULT, HZ_ALL, 1},
};
static const hz_cfg hz_cfg_passes[] = {
    {"p.dce", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_DCE, 0},
    {"p.cse", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_CSE, 0},
    {"p.const_fold", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_CONST_FOLD, 0},
    {"p.simplify", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_SIMPLIFY, 0},
    {"p.fold_bn_freeze", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_FOLD_BN | HZ_FREEZE, 0},
    {"p.fold_bn_cf_freeze", HZ_TRACE_BE, TT_MODE_DEFAULT,
     (unsigned)(TT_PASS_FOLD_BN | TT_PASS_CONST_FOLD | TT_PASS_DCE) | HZ_FREEZE, 0},
    {"p.fuse", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_FUSE, 0},
    {"p.fuse_epilogue", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)(TT_PASS_FUSE | TT_PASS_EPILOGUE), 0},
    {"p.epilogue_alone", HZ_TRACE_BE, TT_MODE_DEFAULT, (unsigned)TT_PASS_EPILOGUE, 0},
    {"p.all_freeze_autotune", HZ_TRACE_BE, TT_MODE_MAX_AUTOTUNE, HZ_ALL | HZ_FREEZE, 0},
};
static const hz_cfg hz_cfg_sweep[] = {
    {"g.all", HZ_TRACE_BE, TT_MODE_DEFAULT, HZ_ALL, 1},
    {"g.none", HZ_TRACE_BE, TT_MODE_DEFAULT, 0u, 0},
    {"g.autotune", HZ_TRACE_FN, TT_MODE_MAX_AUTOTUNE, HZ_ALL, 0},
    {"g.overhead", HZ_TRACE_BE, TT_MODE_REDUCE_OVERHEAD, HZ_ALL, 1},
    {"compiled", HZ_COMPILED, TT_MODE_DEFAULT, HZ_ALL, 0},
};
static const hz_cfg hz_cfg_medium[] = {
    {"g.all", HZ_TRACE_BE, TT_MODE_DEFAULT, HZ_ALL, 0},
    {"g.none", HZ_TRACE_BE, TT_MODE_DEFAULT, 0u, 0},
    {"g.overhead_freeze", HZ_TRACE_BE, TT_MODE_REDUCE_OVERHEAD, HZ_ALL | HZ_FREEZE, 0},
    {"compiled", HZ_COMPILED, TT_MODE_DEFAULT, HZ_ALL, 0},
};
static const hz_cfg hz_cfg_heavy[] = {
    {"g.overhead_freeze", HZ_TRACE_BE, TT_MODE_REDUCE_OVERHEAD, HZ_ALL | HZ_FREEZE, 0},
};

typedef struct hz_in {
    char kind;
    int hi, has_seed, ndim;
    uint64_t seed;
    int64_t shape[TT_MAX_DIMS];
} hz_in;

static int hz_parse(const char *s, hz_in *in, int max) {
    int n = 0;
    char *end;
    for (;;) {
        hz_in *p;
        while (*s == ' ') s++;
        if (!*s) return n;
        if (n == max) return -1;
        p = &in[n++];
        memset(p, 0, sizeof *p);
        p->kind = *s++;
        if (isdigit((unsigned char)*s)) { p->hi = (int)strtol(s, &end, 10); s = end; }
        if (*s == '@') { p->has_seed = 1; p->seed = (uint64_t)strtoull(s + 1, &end, 10); s = end; }
        if (*s++ != ':') return -1;
        while (*s && *s != ' ') {
            if (p->ndim == TT_MAX_DIMS) return -1;
            p->shape[p->ndim++] = (int64_t)strtoll(s, &end, 10);
            if (end == s) return -1;
            s = end;
            if (*s == 'x') s++;
        }
    }
}

/* Every 4th element of a randn tensor replaced by a special value. */
static void hz_specials(tt_tensor *t) {
    float sp[12];
    float *d = t ? (float *)tt_data(t) : NULL;
    int64_t i;
    sp[0] = INFINITY; sp[1] = -INFINITY; sp[2] = NAN; sp[3] = 0.0f; sp[4] = -0.0f; sp[5] = 1e-40f;
    sp[6] = -3e-39f; sp[7] = 3.0e38f; sp[8] = -88.8f; sp[9] = 89.0f; sp[10] = 20.5f; sp[11] = -1e-7f;
    for (i = 0; d && i < t->numel; i += 4) d[i] = sp[(i / 4) % 12];
}

static tt_tensor *hz_input(tt_ctx *c, const hz_in *p, uint64_t seed) {
    int64_t sh[TT_MAX_DIMS];
    char k = p->kind;
    int nd = p->ndim, tr = 0;
    tt_tensor *t;
    memcpy(sh, p->shape, sizeof sh);
    if (isupper((unsigned char)k)) {
        k = (char)tolower((unsigned char)k);
        if (nd >= 2) { int64_t s = sh[nd - 1]; sh[nd - 1] = sh[nd - 2]; sh[nd - 2] = s; tr = 1; }
    }
    switch (k) {
    case 'p': t = tt_add_scalar(c, tt_rand(c, seed, nd, sh), 0.5f); break;
    case 'w': t = tt_mul_scalar(c, tt_randn(c, seed, nd, sh), 6.0f); break;
    case 'q': t = tt_round(c, tt_mul_scalar(c, tt_randn(c, seed, nd, sh), 2.0f)); break;
    case 'n': t = tt_randn(c, seed, nd, sh); hz_specials(t); break;
    case 'i': t = tt_cast(c, tt_mul_scalar(c, tt_rand(c, seed, nd, sh), (float)p->hi), TT_I32); break;
    case 'b': t = tt_gt(c, tt_randn(c, seed, nd, sh), tt_scalar(c, 0.0f)); break;
    case 'h': t = tt_cast(c, tt_randn(c, seed, nd, sh), TT_F16); break;
    case 'r': t = tt_cast(c, tt_randn(c, seed, nd, sh), TT_BF16); break;
    default: t = tt_randn(c, seed, nd, sh); break;
    }
    return tr ? tt_transpose(c, t, nd - 2, nd - 1) : t;
}

/* Inputs are made once per context, before the cases run (outside their scopes), and shared
   by every case that asks for the same kind, shape and seed: tt_randn of the inputs would
   otherwise be a third of the run time. */
typedef struct hz_cached { hz_in in; uint64_t seed; tt_tensor *t; } hz_cached;
#define HZ_CACHE_MAX 2048
static hz_cached hz_cache[HZ_CACHE_MAX];
static int hz_n_cache;

static int hz_same_in(const hz_in *a, const hz_in *b) {
    int d;
    if (a->kind != b->kind || a->hi != b->hi || a->ndim != b->ndim) return 0;
    for (d = 0; d < a->ndim; d++) if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

/* The cached input (made now if prefill is set; a fresh uncached one otherwise). */
static tt_tensor *hz_get_input(const hz_in *p, uint64_t seed, int prefill) {
    int i;
    for (i = 0; i < hz_n_cache; i++)
        if (hz_cache[i].seed == seed && hz_same_in(&hz_cache[i].in, p)) return hz_cache[i].t;
    if (!prefill || hz_n_cache == HZ_CACHE_MAX) return hz_input(hz_ctx, p, seed);
    hz_cache[hz_n_cache].in = *p;
    hz_cache[hz_n_cache].seed = seed;
    hz_cache[hz_n_cache].t = hz_input(hz_ctx, p, seed);
    return hz_cache[hz_n_cache++].t;
}

/* Input i of set A (set_b 0) or B: its own seed, or one from the position and the set. */
static uint64_t hz_seed(const hz_in *p, int i, int set_b) {
    if (p->has_seed) return p->seed + (uint64_t)set_b;
    return 1000u + 16u * (uint64_t)i + 8u * (uint64_t)set_b;
}

/* The tt_forward_fn every path calls: user is the case. */
static int hz_forward(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    const hz_case *k = (const hz_case *)user;
    tt_tensor *o[HZ_MAX_OUT];
    int n, i;
    (void)n_in;
    if (k->multi) {
        n = k->multi(c, in, k->w, o);
    } else {
        o[0] = k->fn(c, in, k->w);
        n = 1;
    }
    if (n > max_out) n = max_out;
    for (i = 0; i < n; i++) {
        out[i] = o[i];
        if (!o[i]) return -1;
    }
    return n;
}

static void hz_name(char *buf, size_t size, const hz_case *k, const char *how, const char *set, int out) {
    snprintf(buf, size, "t%d/%s/%s.%s/o%d", hz_threads, k->name, how, set, out);
}

/* Eager: outputs of the forward on one input set; returns the output count (0 on failure). */
static int hz_eager(const hz_case *k, const char *set, tt_tensor **in, int n_in) {
    char name[256];
    tt_tensor *out[HZ_MAX_OUT];
    tt_scope sc = tt_scope_begin(hz_ctx);
    int n = hz_forward(hz_ctx, in, n_in, out, HZ_MAX_OUT, (void *)k), i;
    if (n < 1 || tt_ctx_status(hz_ctx) != TT_OK) {
        hz_name(name, sizeof name, k, "eager", set, 0);
        if (tt_ctx_status(hz_ctx) == TT_OK) hz_fail(name, -100, "forward returned no output");
        else hz_fail_ctx(name);
        n = 0;
    }
    for (i = 0; i < n; i++) {
        hz_name(name, sizeof name, k, "eager", set, i);
        hz_emit(name, out[i]);
    }
    tt_scope_end(hz_ctx, sc);
    return n;
}

static void hz_graph_outputs(const hz_case *k, const hz_cfg *cf, const char *set, tt_graph *g) {
    char name[256];
    int i, n = tt_graph_num_outputs(g);
    for (i = 0; i < n; i++) {
        tt_tensor *t = tt_graph_output(g, i);
        hz_name(name, sizeof name, k, cf->name, set, i);
        if (t) hz_emit(name, t);
        else hz_fail(name, (int)tt_graph_status(g), tt_graph_error(g));
    }
}

/* One compile configuration: trace on A, compile, run on A (and B). */
static void hz_graph(const hz_case *k, const hz_cfg *cf, tt_tensor **A, tt_tensor **B, int n_in, int n_out) {
    static const char *names[HZ_MAX_IN] = {"x0", "x1", "x2", "x3", "x4"};
    char name[256];
    tt_ctx *c = hz_ctx;
    tt_graph *g = NULL;
    tt_scope sc;
    int i, r;

    if (cf->how == HZ_COMPILED) {
        tt_compiled *cc = tt_compiled_create(hz_forward, (void *)k, cf->mode, cf->passes, 0);
        if (!cc) { hz_name(name, sizeof name, k, cf->name, "A", 0); hz_fail(name, -101, "tt_compiled_create"); return; }
        for (r = 0; r <= cf->run_b; r++) {
            const char *set = r ? "B" : "A";
            if (tt_compiled_run(cc, r ? B : A, n_in) != TT_OK) {
                hz_name(name, sizeof name, k, cf->name, set, 0);
                hz_fail(name, -102, tt_compiled_error(cc));
                if (tt_ctx_status(c) != TT_OK) tt_clear_error(c);
                continue;
            }
            for (i = 0; i < n_out; i++) {
                tt_tensor *t = tt_compiled_output(cc, i);
                hz_name(name, sizeof name, k, cf->name, set, i);
                if (t) hz_emit(name, t);
                else hz_fail(name, -103, tt_compiled_error(cc));
            }
        }
        if (tt_compiled_num_graphs(cc) != 1) {
            hz_name(name, sizeof name, k, cf->name, "cache", 0);
            hz_fail(name, -104, "tt_compiled_num_graphs is not 1");
        }
        tt_compiled_destroy(cc);
        return;
    }

    /* The trace's scope stays open while the graph lives. In 0.4.0 a tensor made during the
       trace and used by two ops is a constant for its first use but a parameter (a pointer
       into ctx) for the second (tt__trace_value_of), so ending the scope here would let the
       graph read whatever later reuses those bytes: hashes would depend on the memory history
       (examples/02's `zero` does this). tt_trace() and tt_compiled_run() end their own scopes;
       nothing is allocated in ctx between their trace and the runs below, so the bytes stay. */
    sc = tt_scope_begin(c);
    if (cf->how == HZ_TRACE_FN) {
        g = tt_trace(c, hz_forward, (void *)k, A, n_in);
    } else if (tt_trace_begin(c) == TT_OK) {
        tt_tensor *out[HZ_MAX_OUT];
        int n;
        out[0] = NULL;
        for (i = 0; i < n_in; i++) tt_trace_input(c, A[i], names[i]);
        n = hz_forward(c, A, n_in, out, HZ_MAX_OUT, (void *)k);
        g = tt_trace_end(c, out, n < 1 ? 1 : n);
    }
    if (!g) {
        hz_name(name, sizeof name, k, cf->name, "trace", 0);
        hz_fail_ctx(name);
        tt_scope_end(c, sc);
        return;
    }
#if TT_VERSION_MAJOR > 0 || TT_VERSION_MINOR >= 12
    tt_graph_set_conv_algo(g, TT_CONV_RULE);   /* MAX_AUTOTUNE's choices by 0.11's fixed rule, not timed: */
#endif                                         /* the same hashes on every run and machine */
    if (tt_graph_compile(g, cf->mode, cf->passes) != TT_OK) {
        hz_name(name, sizeof name, k, cf->name, "compile", 0);
        hz_fail(name, (int)tt_graph_status(g), tt_graph_error(g));
        tt_graph_destroy(g);
        tt_scope_end(c, sc);
        return;
    }
    if (cf->mode == TT_MODE_REDUCE_OVERHEAD) {
        /* bind copies of A once, run with no inputs; then write B into the bound tensors */
        tt_tensor *bound[HZ_MAX_IN], *bsrc[HZ_MAX_IN];
        tt_scope sc2 = tt_scope_begin(c);
        for (i = 0; i < n_in; i++) { bound[i] = tt_clone(c, A[i]); bsrc[i] = cf->run_b ? tt_clone(c, B[i]) : NULL; }
        if (tt_ctx_status(c) != TT_OK) {
            hz_name(name, sizeof name, k, cf->name, "bind", 0);
            hz_fail_ctx(name);
        } else if (tt_graph_bind(g, bound, n_in) != TT_OK || tt_graph_run(g, NULL, 0) != TT_OK) {
            hz_name(name, sizeof name, k, cf->name, "A", 0);
            hz_fail(name, (int)tt_graph_status(g), tt_graph_error(g));
        } else {
            hz_graph_outputs(k, cf, "A", g);
            if (cf->run_b) {
                for (i = 0; i < n_in; i++)
                    if (bound[i]->numel > 0)
                        memcpy(tt_data(bound[i]), tt_data(bsrc[i]), (size_t)bound[i]->numel * hz_elsize(bound[i]->dtype));
                tt_graph_set_debug(g, TT_DEBUG_POISON);
                if (tt_graph_run(g, NULL, 0) != TT_OK) {
                    hz_name(name, sizeof name, k, cf->name, "B.inplace", 0);
                    hz_fail(name, (int)tt_graph_status(g), tt_graph_error(g));
                } else {
                    hz_graph_outputs(k, cf, "B.inplace", g);
                }
            }
        }
        tt_scope_end(c, sc2);
    } else {
        for (r = 0; r <= cf->run_b; r++) {
            const char *set = r ? "B" : "A";
            if (r) tt_graph_set_debug(g, TT_DEBUG_POISON);    /* a wrong memory plan shows as NaN */
            if (tt_graph_run(g, r ? B : A, n_in) != TT_OK) {
                hz_name(name, sizeof name, k, cf->name, set, 0);
                hz_fail(name, (int)tt_graph_status(g), tt_graph_error(g));
                continue;
            }
            hz_graph_outputs(k, cf, set, g);
        }
    }
    tt_graph_destroy(g);
    tt_scope_end(c, sc);
}

static int hz_selected(const char *name) { return !hz_filter || strstr(name, hz_filter) != NULL; }

static int hz_parse_case(const hz_case *k, hz_in *ins) {
    int n_in = hz_parse(k->spec, ins, HZ_MAX_IN);
    if (n_in < 1) {
        fprintf(stderr, "hash_outputs: case %s: bad input spec \"%s\"\n", k->name, k->spec);
        exit(2);
    }
    return n_in;
}

/* Makes every input of the selected cases in hz_ctx, outside any scope. */
static void hz_prefill(void) {
    hz_in ins[HZ_MAX_IN];
    size_t c;
    int i, n_in;
    hz_n_cache = 0;
    for (c = 0; c < sizeof hz_cases / sizeof hz_cases[0]; c++) {
        if (!hz_selected(hz_cases[c].name)) continue;
        n_in = hz_parse_case(&hz_cases[c], ins);
        for (i = 0; i < n_in; i++) {
            hz_get_input(&ins[i], hz_seed(&ins[i], i, 0), 1);
            hz_get_input(&ins[i], hz_seed(&ins[i], i, 1), 1);
        }
    }
}

static void hz_run(const hz_case *k) {
    clock_t t0 = clock();
    hz_in ins[HZ_MAX_IN];
    tt_tensor *A[HZ_MAX_IN], *B[HZ_MAX_IN];
    char name[256];
    int n_in, i, n_out;
    const hz_cfg *cfg = hz_cfg_light;
    size_t ci, n_cfg = sizeof hz_cfg_light / sizeof hz_cfg_light[0];
    tt_scope sc;
    if (!hz_selected(k->name)) return;
    n_in = hz_parse_case(k, ins);
    sc = tt_scope_begin(hz_ctx);
    for (i = 0; i < HZ_MAX_IN; i++) A[i] = B[i] = NULL;
    for (i = 0; i < n_in; i++) {
        A[i] = hz_get_input(&ins[i], hz_seed(&ins[i], i, 0), 0);
        B[i] = hz_get_input(&ins[i], hz_seed(&ins[i], i, 1), 0);
    }
    if (tt_ctx_status(hz_ctx) != TT_OK) {
        hz_name(name, sizeof name, k, "inputs", "AB", 0);
        hz_fail_ctx(name);
        tt_scope_end(hz_ctx, sc);
        return;
    }
    if (k->flags & HZ_HEAVY) { cfg = hz_cfg_heavy; n_cfg = sizeof hz_cfg_heavy / sizeof hz_cfg_heavy[0]; }
    else if (k->flags & HZ_MEDIUM) { cfg = hz_cfg_medium; n_cfg = sizeof hz_cfg_medium / sizeof hz_cfg_medium[0]; }
    else if (k->flags & HZ_SWEEP) { cfg = hz_cfg_sweep; n_cfg = sizeof hz_cfg_sweep / sizeof hz_cfg_sweep[0]; }
    n_out = hz_eager(k, "A", A, n_in);
    if (!(k->flags & (HZ_HEAVY | HZ_MEDIUM))) hz_eager(k, "B", B, n_in);
    if (n_out < 1) n_out = 1;
    for (ci = 0; ci < n_cfg; ci++) hz_graph(k, &cfg[ci], A, B, n_in, n_out);
    if (k->flags & HZ_PASSES)
        for (ci = 0; ci < sizeof hz_cfg_passes / sizeof hz_cfg_passes[0]; ci++)
            hz_graph(k, &hz_cfg_passes[ci], A, B, n_in, n_out);
    tt_scope_end(hz_ctx, sc);
    if (tt_ctx_status(hz_ctx) != TT_OK) {
        hz_name(name, sizeof name, k, "after", "AB", 0);
        hz_fail_ctx(name);
    }
    if (hz_timing) fprintf(stderr, "time t%d %s %.4f\n", hz_threads, k->name, (double)(clock() - t0) / CLOCKS_PER_SEC);
}

/* tt_compiled over several input shapes: a graph per shape set, reused when a shape comes back. */
static void hz_compiled_shapes(void) {
    static const hz_case k = CW("compiled.shapes.zoo_mlp", tr_mlp_apply, &hz_tmlp, "", 0u);
    static const int64_t rows[4] = {5, 3, 5, 1};
    char name[256], set[16];
    tt_compiled *cc;
    tt_scope sc;
    int r;
    if (!hz_selected(k.name)) return;
    cc = tt_compiled_create(hz_forward, (void *)&k, TT_MODE_DEFAULT, HZ_ALL, 2);
    sc = tt_scope_begin(hz_ctx);
    for (r = 0; r < 4; r++) {
        int64_t s[2];
        tt_tensor *x;
        s[0] = rows[r]; s[1] = 33;
        x = tt_randn(hz_ctx, 70u + (uint64_t)r, 2, s);
        snprintf(set, sizeof set, "run%d", r);
        hz_name(name, sizeof name, &k, "compiled", set, 0);
        if (tt_compiled_run(cc, &x, 1) != TT_OK) {
            /* run 3 is a third shape set past max_graphs 2: an error, expected */
            printf("%s REFUSED %d\n", name, tt_compiled_num_graphs(cc));
            hz_lines++;
            if (r != 3) hz_fail(name, -105, tt_compiled_error(cc));
            continue;
        }
        hz_emit(name, tt_compiled_output(cc, 0));
    }
    tt_scope_end(hz_ctx, sc);
    tt_compiled_destroy(cc);
}

/* ==== main ======================================================================================= */

int main(int argc, char **argv) {
    static const int threads[2] = {1, 2};
    size_t i;
    int t;
    tt_ctx *wc;
    if (argc > 1) hz_filter = argv[1];
    hz_timing = getenv("HZ_TIME") != NULL;
    (void)cnn_flops; (void)mlp_flops; (void)enc_flops; (void)alex_flops;

    wc = tt_ctx_create(NULL);
    hz_bcnn = cnn_make(wc);
    hz_bmlp = mlp_make(wc);
    hz_benc = enc_make(wc);
    if (hz_selected("bench.alexnet_b1")) hz_balex = alex_make(wc);
    if (hz_selected("bench.resnet18_b1")) hz_bres = res_make(wc);
    if (hz_selected("bench.mobilenetv2_b1")) hz_bmnv2 = mnv2_make(wc);
    hz_tmlp = tr_mlp_make(wc, 33, 64, 10, 100);
    hz_tcnn.b1 = tr_cnn_block_make(wc, 3, 32, 200);
    hz_tcnn.b2 = tr_cnn_block_make(wc, 32, 64, 300);
    hz_tcnn.fw = tu_param2(wc, 400, 10, 64, 0.125f);
    hz_tcnn.fb = tu_param1(wc, 401, 10, 0.1f, 0.0f);
    hz_tmbv2 = tr_mbv2_make(wc, 700);
    hz_tenc = tr_enc_make(wc, 500);
    hz_tmoe = tr_moe_make(wc, 600);
    hz_d01 = demo01_make(wc);
    hz_d03 = demo03_make(wc);
    hz_ep = ep_make(wc);
    if (tt_ctx_status(wc) != TT_OK) {
        fprintf(stderr, "hash_outputs: making the weights failed: %s\n", tt_error(wc));
        return 2;
    }

    for (t = 0; t < 2; t++) {
        tt_ctx_desc d = tt_ctx_desc_default();
        d.n_threads = threads[t];
        d.debug_guards = 1;
        hz_ctx = tt_ctx_create(&d);
        hz_threads = threads[t];
        if (!hz_ctx || tt_ctx_num_threads(hz_ctx) != threads[t]) {
            fprintf(stderr, "hash_outputs: no context with %d threads\n", threads[t]);
            return 2;
        }
        hz_prefill();
        if (tt_ctx_status(hz_ctx) != TT_OK) {
            fprintf(stderr, "hash_outputs: making the inputs failed: %s\n", tt_error(hz_ctx));
            return 2;
        }
        for (i = 0; i < sizeof hz_cases / sizeof hz_cases[0]; i++) hz_run(&hz_cases[i]);
        hz_compiled_shapes();
        if (!tt_ctx_check_guards(hz_ctx)) hz_fail("guards", -106, "a guard region of the context was overwritten");
        tt_ctx_destroy(hz_ctx);
    }
    if (!tt_ctx_check_guards(wc)) hz_fail("guards.weights", -106, "a guard region of the weights was overwritten");
    tt_ctx_destroy(wc);
    fflush(stdout);
    fprintf(stderr, "hash_outputs: %ld lines, %d errors, %d cases x 2 thread counts\n", hz_lines, hz_errors,
            (int)(sizeof hz_cases / sizeof hz_cases[0]));
    return hz_errors ? 1 : 0;
}
