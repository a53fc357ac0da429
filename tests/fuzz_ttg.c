/* fuzz_ttg.c - hostile graph files (.ttg, docs/FORMAT.md) for tt_graph_load_memory.

   A byte string is a .ttg file. When it is long enough to hold a header and a checksum
   (132 bytes), the trailing CRC-32C is recomputed over the bytes before it (on a copy), so
   that mutations get past the checksum and reach the deep checks (counts, offsets, op
   infer, fused programs); one input in 8 (its last byte decides) is loaded as it is. The
   load runs in a context whose allocator refuses any allocation over 64 MiB and caps the
   total at 256 MiB, so a hostile shape becomes a clean TT_ERR_OOM, not a real allocation.

   When the bytes load, the graph is used as a program that only has the file would use it:
   run once on zeros of its input shapes (tt_graph_input_shape; skipped when the inputs or
   its memory plan are large, so no run takes seconds) and checked against its tape
   (tt_graph_check: a trace runs eagerly), printed (tt_graph_str, tt_graph_dot),
   its stats read, saved again and the saved bytes loaded again. Invariants (fz_ttg_one
   returns 1, the libFuzzer build aborts):
   - a refused load leaves an error in the context (a status and a "tt_graph_load_memory"
     message);
   - the bytes a loaded graph saves load again (unless the memory cap refused them), with
     as many inputs and outputs;
   - a compiled graph and its reloaded copy give bitwise the same outputs on the same inputs.
   - every byte the loads took from the context's allocator came back once the graphs and
     the context are destroyed (FZ_TTG_NOLEAKCHECK=1 in the environment skips this check,
     so LeakSanitizer can show where the bytes were allocated).
   The sanitizers catch out-of-bounds reads and writes, LeakSanitizer leaks.

   Seeds: fz_ttg_seed(k, ctx) builds small graphs (an MLP with a linear + relu epilogue, a
   conv + batch_norm + relu + max_pool, softmax and layer_norm, a fused chain with
   broadcasting and a where mask, views, an uncompiled graph, a graph with tracer
   warnings); fz_ttg_seed_bytes saves one. Built with -DTT_LIBFUZZER:
       clang -std=c11 -O1 -g -DTT_LIBFUZZER -fsanitize=fuzzer,address,undefined \
             -fno-sanitize-recover=all tests/fuzz_ttg.c -o fuzz_ttg -lm -lpthread
       FZ_TTG_SEEDS=corpus ./fuzz_ttg -max_len=16384 corpus/
   (FZ_TTG_SEEDS=dir writes the seeds into dir before fuzzing starts). Built with
   -DTT_FUZZ_SEEDS (and without -fsanitize=fuzzer) it is a program that writes the seeds
   into the directory its argument names. tests/test_fuzz_ttg.c runs a fixed-seed slice. */
#if defined(TT_LIBFUZZER) || defined(TT_FUZZ_SEEDS)
#define TINYTRACE_IMPLEMENTATION
#endif
#include "../tinytrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_TTG_MIN        132                  /* header + CRC: the CRC is fixed up from here */
#define FZ_TTG_ONE_ALLOC  ((size_t)64 << 20)   /* the most one allocation may ask */
#define FZ_TTG_HEAP_CAP   ((size_t)256 << 20)  /* the most all live allocations may hold */
#define FZ_TTG_RUN_NUMEL  (1 << 18)            /* inputs up to this many elements are run */
#define FZ_TTG_RUN_ARENA  ((size_t)16 << 20)   /* memory plans up to this are run */
#define FZ_TTG_MAX_IO     16                   /* inputs made and outputs compared, at most */
#define FZ_TTG_N_SEEDS    8

/* The checksum, written from the spec (the loader has its own): tests/crc32c.h. */
#include "crc32c.h"

/* Writes the CRC-32C of buf[0..n-4) into its last 4 bytes (little-endian). */
static void fz_ttg_fix_crc(uint8_t *buf, size_t n) {
    uint32_t crc;
    if (n < 4) return;
    crc = tu_crc32c(buf, n - 4);
    buf[n - 4] = (uint8_t)crc; buf[n - 3] = (uint8_t)(crc >> 8);
    buf[n - 2] = (uint8_t)(crc >> 16); buf[n - 1] = (uint8_t)(crc >> 24);
}

/* ==========================================================================
 * A heap with a cap per allocation and in all, counting live bytes
 * ========================================================================== */
typedef struct fz_ttg_heap { size_t live, peak; } fz_ttg_heap;

#define FZ_TTG_HDR 16                  /* keeps malloc's 16-byte alignment */

static void *fz_ttg_alloc(size_t size, void *user) {
    fz_ttg_heap *h = (fz_ttg_heap *)user;
    unsigned char *p;
    if (size > FZ_TTG_ONE_ALLOC || size > FZ_TTG_HEAP_CAP - h->live) return NULL;
    p = (unsigned char *)malloc(size + FZ_TTG_HDR);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    h->live += size;
    if (h->live > h->peak) h->peak = h->live;
    return p + FZ_TTG_HDR;
}

static void fz_ttg_free(void *ptr, void *user) {
    fz_ttg_heap *h = (fz_ttg_heap *)user;
    unsigned char *p;
    size_t size;
    if (!ptr) return;
    p = (unsigned char *)ptr - FZ_TTG_HDR;
    memcpy(&size, p, sizeof size);
    h->live -= size;
    free(p);
}

static tt_ctx *fz_ttg_ctx(fz_ttg_heap *h) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.allocator.alloc = fz_ttg_alloc;
    d.allocator.free = fz_ttg_free;
    d.allocator.user = h;
    d.n_threads = 1;
    return tt_ctx_create(&d);
}

/* ==========================================================================
 * Seeds: small graphs of every kind a file holds
 * ========================================================================== */
static tt_tensor *fz_ttg_randn(tt_ctx *c, uint64_t seed, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    int64_t shape[4];
    shape[0] = d0; shape[1] = d1; shape[2] = d2; shape[3] = d3;
    return tt_randn(c, seed, nd, shape);
}

/* An MLP: linear + relu (an epilogue with TT_PASS_ALL), linear, then a fused add. */
static tt_graph *fz_ttg_mlp(tt_ctx *c, bool compile) {
    tt_tensor *x = fz_ttg_randn(c, 1, 2, 2, 4, 0, 0);
    tt_tensor *w1 = fz_ttg_randn(c, 2, 2, 8, 4, 0, 0), *b1 = fz_ttg_randn(c, 3, 1, 8, 0, 0, 0);
    tt_tensor *w2 = fz_ttg_randn(c, 4, 2, 3, 8, 0, 0), *b2 = fz_ttg_randn(c, 5, 1, 3, 0, 0, 0);
    tt_tensor *h, *y;
    tt_graph *g;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "x");
    h = tt_relu(c, tt_linear(c, x, w1, b1));
    y = tt_add(c, tt_linear(c, h, w2, b2), tt_scalar(c, 0.5f));
    g = tt_trace_end(c, &y, 1);
    if (g && compile) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return g;
}

/* conv2d + batch_norm (folded into the conv) + relu + max_pool2d. */
static tt_graph *fz_ttg_conv(tt_ctx *c) {
    tt_tensor *x = fz_ttg_randn(c, 11, 4, 1, 2, 6, 6), *w = fz_ttg_randn(c, 12, 4, 3, 2, 3, 3);
    tt_tensor *b = fz_ttg_randn(c, 13, 1, 3, 0, 0, 0), *mean = fz_ttg_randn(c, 14, 1, 3, 0, 0, 0);
    tt_tensor *var = tt_exp(c, fz_ttg_randn(c, 15, 1, 3, 0, 0, 0)), *gamma = fz_ttg_randn(c, 16, 1, 3, 0, 0, 0);
    tt_tensor *beta = fz_ttg_randn(c, 17, 1, 3, 0, 0, 0), *y;
    tt_graph *g;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "image");
    y = tt_conv2d(c, x, w, b, 1, 1, 1, 1);
    y = tt_max_pool2d(c, tt_relu(c, tt_batch_norm(c, y, mean, var, gamma, beta, 1e-5f)), 2, 2, 0);
    g = tt_trace_end(c, &y, 1);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE);
    return g;
}

/* softmax, then layer_norm with weight and bias; two outputs. */
static tt_graph *fz_ttg_norms(tt_ctx *c) {
    tt_tensor *x = fz_ttg_randn(c, 21, 2, 2, 5, 0, 0);
    tt_tensor *w = fz_ttg_randn(c, 22, 1, 5, 0, 0, 0), *b = fz_ttg_randn(c, 23, 1, 5, 0, 0, 0);
    tt_tensor *out[2];
    tt_graph *g;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "x");
    out[0] = tt_softmax(c, x, -1);
    out[1] = tt_layer_norm(c, out[0], 1, w, b, 1e-5f);
    g = tt_trace_end(c, out, 2);
    if (g) tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL);
    return g;
}

/* A fused chain: broadcasting [3,4] with [4], a comparison and a where mask, two inputs. */
static tt_graph *fz_ttg_chain(tt_ctx *c) {
    tt_tensor *x = fz_ttg_randn(c, 31, 2, 3, 4, 0, 0), *y = fz_ttg_randn(c, 32, 1, 4, 0, 0, 0);
    tt_tensor *a, *m, *out[2];
    tt_graph *g;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "x");
    y = tt_trace_input(c, y, "y");
    a = tt_add(c, tt_mul(c, x, y), tt_scalar(c, 1.0f));
    m = tt_gt(c, a, tt_scalar(c, 0.0f));
    out[0] = tt_where(c, m, tt_exp(c, a), tt_tanh(c, a));
    out[1] = tt_sigmoid(c, tt_sub(c, out[0], y));
    g = tt_trace_end(c, out, 2);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return g;
}

/* Views: reshape, permute, slice, then a sum and a matmul. */
static tt_graph *fz_ttg_views(tt_ctx *c) {
    static const int64_t s64[2] = { 6, 4 };
    static const int perm[2] = { 1, 0 };
    static const int axis1[1] = { 1 };
    tt_tensor *x = fz_ttg_randn(c, 41, 3, 2, 3, 4, 0), *w = fz_ttg_randn(c, 42, 2, 3, 2, 0, 0);
    tt_tensor *v, *out[2];
    tt_graph *g;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "x");
    v = tt_slice(c, tt_permute(c, tt_reshape(c, x, 2, s64), perm), 1, 1, 4, 1);
    out[0] = tt_sum(c, v, axis1, 1, true);
    out[1] = tt_matmul(c, v, w);
    g = tt_trace_end(c, out, 2);
    if (g) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return g;
}

/* A graph with a tracer warning (tt_item read a traced value): the value is a constant. */
static tt_graph *fz_ttg_warned(tt_ctx *c, bool compile) {
    static const int all[1] = { 0 };
    tt_tensor *x = fz_ttg_randn(c, 51, 1, 4, 0, 0, 0);
    tt_tensor *y;
    tt_graph *g;
    float s;
    tt_trace_begin(c);
    x = tt_trace_input(c, x, "x");
    s = tt_item(c, tt_sum(c, x, all, 1, false));
    y = tt_mul(c, x, tt_scalar(c, s));
    g = tt_trace_end(c, &y, 1);
    if (g && compile) tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return g;
}

/* Seed k (0 <= k < FZ_TTG_N_SEEDS) in ctx c; NULL on failure. Its parameters live in c. */
static tt_graph *fz_ttg_seed(int k, tt_ctx *c) {
    switch (k) {
    case 0: return fz_ttg_mlp(c, true);
    case 1: return fz_ttg_conv(c);
    case 2: return fz_ttg_norms(c);
    case 3: return fz_ttg_chain(c);
    case 4: return fz_ttg_views(c);
    case 5: return fz_ttg_mlp(c, false);              /* uncompiled: the trace */
    case 6: return fz_ttg_warned(c, true);
    default: return fz_ttg_warned(c, false);          /* warnings, uncompiled */
    }
}

/* The bytes of seed k (malloc'd; free them) and their count; NULL on failure. */
static uint8_t *fz_ttg_seed_bytes(int k, size_t *size) {
    tt_ctx *c = tt_ctx_create(NULL);
    tt_graph *g = c ? fz_ttg_seed(k, c) : NULL;
    size_t n = g ? tt_graph_save_memory(g, NULL, 0) : 0;
    uint8_t *buf = n ? (uint8_t *)malloc(n) : NULL;
    if (buf && tt_graph_save_memory(g, buf, n) != n) { free(buf); buf = NULL; }
    *size = n;
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return buf;
}

/* ==========================================================================
 * One input
 * ========================================================================== */
/* Copies of a run's outputs, as f32 (bit patterns compared). */
typedef struct fz_ttg_outs {
    int    n;
    float *v[FZ_TTG_MAX_IO];
    size_t numel[FZ_TTG_MAX_IO];
} fz_ttg_outs;

static void fz_ttg_outs_free(fz_ttg_outs *o) {
    int i;
    for (i = 0; i < o->n; i++) free(o->v[i]);
    o->n = 0;
}

/* Zeros of each input's shape and dtype in c; false when an input is too big to run on. */
static bool fz_ttg_make_inputs(tt_ctx *c, const tt_graph *g, tt_tensor **in, int n) {
    int64_t total = 0;
    int i, d;
    for (i = 0; i < n; i++) {
        int64_t shape[TT_MAX_DIMS], numel = 1;
        tt_dtype dt;
        int nd;
        if (!tt_graph_input_shape(g, i, &dt, &nd, shape)) return false;
        for (d = 0; d < nd; d++) {
            if (shape[d] > FZ_TTG_RUN_NUMEL) return false;
            numel *= shape[d];
            if (numel > FZ_TTG_RUN_NUMEL) return false;
        }
        total += numel;
        if (total > FZ_TTG_RUN_NUMEL) return false;
        in[i] = tt_zeros(c, dt, nd, shape);
        if (!in[i]) return false;
    }
    return true;
}

/* Runs g once on in; its outputs copied to o (o->n = 0 when the run failed). */
static void fz_ttg_run(tt_ctx *c, tt_graph *g, tt_tensor *const *in, int n_in, fz_ttg_outs *o) {
    int i, n = tt_graph_num_outputs(g);
    o->n = 0;
    if (tt_graph_run(g, in, n_in) != TT_OK) return;
    for (i = 0; i < n && i < FZ_TTG_MAX_IO; i++) {
        tt_tensor *t = tt_graph_output(g, i);
        size_t numel = t ? (size_t)t->numel : 0;
        o->v[i] = (float *)malloc(sizeof(float) * (numel ? numel : 1));
        o->numel[i] = numel;
        o->n = i + 1;
        if (!t || !o->v[i] || tt_copy_to_f32(c, t, o->v[i], (int64_t)numel) != TT_OK) { fz_ttg_outs_free(o); tt_clear_error(c); return; }
    }
}

static bool fz_ttg_outs_equal(const fz_ttg_outs *a, const fz_ttg_outs *b) {
    int i;
    if (a->n != b->n) return false;
    for (i = 0; i < a->n; i++)
        if (a->numel[i] != b->numel[i] || memcmp(a->v[i], b->v[i], sizeof(float) * a->numel[i]) != 0) return false;
    return true;
}

/* Prints g and reads its stats (these must not crash on any graph that loaded). */
static void fz_ttg_inspect(const tt_graph *g) {
    size_t n = tt_graph_str(g, NULL, 0), m = tt_graph_dot(g, NULL, 0);
    char *text = (char *)malloc(n > m ? n : m);
    tt_graph_stats st = tt_graph_get_stats(g);
    int i;
    if (text) {
        tt_graph_str(g, text, n);
        tt_graph_dot(g, text, m);
    }
    free(text);
    (void)st;
    for (i = 0; i < tt_graph_num_warnings(g); i++) (void)tt_graph_warning(g, i);
    for (i = 0; i < tt_graph_num_inputs(g); i++) (void)tt_graph_input_name(g, i);
}

/* Can g be run on in without taking seconds (its plan and inputs are small)? */
static bool fz_ttg_small_enough(const tt_graph *g) {
    tt_graph_stats st = tt_graph_get_stats(g);
    return st.arena_bytes <= FZ_TTG_RUN_ARENA && st.scratch_bytes <= FZ_TTG_RUN_ARENA;
}

static long fz_ttg_loaded, fz_ttg_refused, fz_ttg_ran;   /* counts, for the suite */

/* The loaded graph g: run, inspect, save, load the saved bytes, run that and compare. */
static int fz_ttg_use(tt_ctx *c, tt_graph *g) {
    tt_tensor *in[FZ_TTG_MAX_IO];
    fz_ttg_outs first, second;
    int n_in = tt_graph_num_inputs(g), bad = 0;
    bool runnable = n_in <= FZ_TTG_MAX_IO && fz_ttg_make_inputs(c, g, in, n_in);
    size_t n;
    uint8_t *again;
    tt_graph *g2;
    tt_clear_error(c);
    first.n = second.n = 0;
    if (runnable && tt_graph_num_nodes(g) > 0 && fz_ttg_small_enough(g)) {   /* a trace compiles on its first run */
        tt_check_report report;
        fz_ttg_run(c, g, in, n_in, &first);
        fz_ttg_ran++;
        if (first.n > 0) tt_graph_check(g, in, n_in, 1e-3, 1e-3, &report);   /* a trace's tape, eagerly */
        tt_graph_clear_error(g);
    }
    fz_ttg_inspect(g);
    n = tt_graph_save_memory(g, NULL, 0);
    again = n ? (uint8_t *)malloc(n) : NULL;
    if (!again || tt_graph_save_memory(g, again, n) != n) {
        if (tt_graph_status(g) != TT_ERR_OOM) { printf("fuzz_ttg: a loaded graph does not save: %s\n", tt_graph_error(g)); bad = 1; }
        free(again);
        fz_ttg_outs_free(&first);
        return bad;
    }
    g2 = tt_graph_load_memory(c, again, n);
    if (!g2 && tt_ctx_status(c) != TT_ERR_OOM) { printf("fuzz_ttg: the re-saved bytes do not load: %s\n", tt_error(c)); bad = 1; }
    if (g2 && (tt_graph_num_inputs(g2) != n_in || tt_graph_num_outputs(g2) != tt_graph_num_outputs(g))) {
        printf("fuzz_ttg: the re-saved graph has other inputs or outputs\n");
        bad = 1;
    }
    if (g2 && first.n > 0) {
        fz_ttg_run(c, g2, in, n_in, &second);
        if (second.n > 0 && !fz_ttg_outs_equal(&first, &second)) { printf("fuzz_ttg: the re-saved graph computes other outputs\n"); bad = 1; }
    }
    tt_graph_destroy(g2);
    free(again);
    fz_ttg_outs_free(&first);
    fz_ttg_outs_free(&second);
    return bad;
}

/* Loads data as a .ttg file (its CRC fixed up, unless the last byte says keep it) and uses
   what loads. 0 when every invariant held, 1 otherwise. */
static int fz_ttg_one(const uint8_t *data, size_t size) {
    fz_ttg_heap heap;
    uint8_t *copy = (uint8_t *)malloc(size ? size : 1);
    tt_ctx *c;
    tt_graph *g;
    int bad = 0;
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    if (size >= FZ_TTG_MIN && (data[size - 1] & 7u) != 0) fz_ttg_fix_crc(copy, size);
    memset(&heap, 0, sizeof heap);
    c = fz_ttg_ctx(&heap);
    if (!c) { free(copy); return 0; }
    g = tt_graph_load_memory(c, copy, size);
    if (!g) {
        fz_ttg_refused++;
        if (tt_ctx_status(c) == TT_OK || !strstr(tt_error(c), "tt_graph_load_memory")) {
            printf("fuzz_ttg: a refused load left no error (status %d, \"%s\")\n", (int)tt_ctx_status(c), tt_error(c));
            bad = 1;
        }
    } else {
        fz_ttg_loaded++;
        bad = fz_ttg_use(c, g);
    }
    tt_graph_destroy(g);                               /* before copy: it may read constants there */
    tt_ctx_destroy(c);
    free(copy);
    if (heap.live != 0 && !getenv("FZ_TTG_NOLEAKCHECK")) { printf("fuzz_ttg: %lu bytes not given back to the allocator\n", (unsigned long)heap.live); bad = 1; }
    return bad;
}

#if defined(TT_LIBFUZZER) || defined(TT_FUZZ_SEEDS)
/* Writes seed k into dir as seed<k>.ttg; 0 on success. */
static int fz_ttg_write_seed(const char *dir, int k) {
    char path[1024];
    size_t n;
    uint8_t *buf = fz_ttg_seed_bytes(k, &n);
    FILE *f;
    int bad;
    if (!buf) { fprintf(stderr, "fuzz_ttg: seed %d does not build\n", k); return 1; }
    if (fz_ttg_one(buf, n) || fz_ttg_loaded == 0) { fprintf(stderr, "fuzz_ttg: seed %d does not load\n", k); free(buf); return 1; }
    fz_ttg_loaded = 0;
    snprintf(path, sizeof path, "%s/seed%d.ttg", dir, k);
    f = fopen(path, "wb");
    bad = !f || fwrite(buf, 1, n, f) != n;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) fprintf(stderr, "fuzz_ttg: cannot write %s\n", path);
    free(buf);
    return bad;
}

static int fz_ttg_write_seeds(const char *dir) {
    int k, bad = 0;
    for (k = 0; k < FZ_TTG_N_SEEDS; k++) bad |= fz_ttg_write_seed(dir, k);
    return bad;
}
#endif

#ifdef TT_LIBFUZZER
#ifdef __cplusplus
extern "C" {
#endif
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#ifdef __cplusplus
}
#endif

/* FZ_TTG_SEEDS=dir: the seeds go into dir before the fuzzing starts. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *dir = getenv("FZ_TTG_SEEDS");
    (void)argc; (void)argv;
    if (dir && fz_ttg_write_seeds(dir)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fz_ttg_one(data, size)) { fflush(stdout); abort(); }
    return 0;
}
#endif

#if defined(TT_FUZZ_SEEDS) && !defined(TT_LIBFUZZER)
int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR  (writes the .ttg seeds of fuzz_ttg into DIR)\n", argv[0]); return 2; }
    return fz_ttg_write_seeds(argv[1]);
}
#endif
