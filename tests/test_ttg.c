/* test_ttg.c - graph files (.ttg): what a saved graph keeps, where a loaded one lives.

   test_trace.c saves and loads every graph it compiles (zoo models, one graph per op) and
   fuzz_ops.c every random program; test_ttg_hostile.c feeds the loader broken files. Here:
   files on disk, uncompiled graphs, parameters saved with their values, constants used in
   place or copied, a graph loaded into a user buffer without the heap, what a loaded graph
   refuses, the exact sizes and bytes a save writes, and tests/fw_graph.h (the firmware test
   loads it from a const array) being what this tinytrace.h writes. */
#include "tt_test.h"
#include "test_util.h"
#include "zoo_models.h"
#include "fw_model.h"
#include "fw_graph.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------- */

/* The bytes of g in a new malloc'd buffer (16-byte aligned); *n their count. */
static unsigned char *tg_save(tt_graph *g, size_t *n) {
    unsigned char *bytes;
    *n = tt_graph_save_memory(g, NULL, 0);
    bytes = (unsigned char *)malloc(*n ? *n : 1);
    if (!CHECK(*n > 0) || !CHECK_EQ_INT(tt_graph_save_memory(g, bytes, *n), *n)) { free(bytes); return NULL; }
    return bytes;
}

/* SimpleCNN (zoo_models.h) traced on x [2,3,16,16]; the weights live in wc. */
static tt_graph *tg_trace_cnn(tt_ctx *c, tt_ctx *wc, tr_cnn_w *w, tt_tensor **x) {
    int64_t xs[4] = {2, 3, 16, 16}, fs[2] = {10, 64};
    tt_tensor *y;
    w->b1 = tr_cnn_block_make(wc, 3, 32, 200);
    w->b2 = tr_cnn_block_make(wc, 32, 64, 300);
    w->fw = tu_param(wc, 400, 2, fs, 0.125f, 0.0f);
    w->fb = tu_param1(wc, 401, 10, 0.1f, 0.0f);
    *x = tt_randn(c, 7, 4, xs);
    tt_trace_begin(c);
    tt_trace_input(c, *x, "image");
    y = tr_cnn_fwd(c, *x, w);
    return tt_trace_end(c, &y, 1);
}

/* The nodes the pass named `pass` removed in g's last compile (-1: it did not run). */
static int tg_removed_by(const tt_graph *g, const char *pass) {
    tt_graph_stats st = tt_graph_get_stats(g);
    int k;
    for (k = 0; k < st.n_passes; k++)
        if (strcmp(st.passes[k].name, pass) == 0) return st.passes[k].nodes_removed;
    return -1;
}

/* Runs g and h on x; their first outputs must be equal bit for bit. */
static void tg_same_run(tt_ctx *e, tt_graph *g, tt_graph *h, tt_tensor *x) {
    if (!CHECK(g && h)) return;
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    CHECK_EQ_INT(tt_graph_run(h, &x, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(h, 0), tt_graph_output(g, 0));
}

/* ---- files and the graphs they hold ------------------------------------------------------- */

/* tt_graph_save and tt_graph_load: SimpleCNN with batch norm folded into the convolutions. */
static void test_file_roundtrip(void) {
    char path[128];
    tt_ctx *c = tu_ctx(), *wc = tu_ctx(), *lc = tu_ctx();
    tr_cnn_w w;
    tt_tensor *x, *x2;
    tt_graph *g = tg_trace_cnn(c, wc, &w, &x), *h;
    int64_t shape[TT_MAX_DIMS];
    tt_dtype dt = TT_BF16;
    int nd = 0;
    tu_tmp_path(path, sizeof path, "_cnn.ttg");       /* the suites of make test run side by side */
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);
    CHECK_EQ_INT(tg_removed_by(g, "fold_bn"), 2);     /* both batch norms folded into their convolutions */
    CHECK_EQ_INT(tt_graph_save(g, path), TT_OK);
    tt_ctx_destroy(wc);                                /* frozen: the file holds the weights */
    h = tt_graph_load(lc, path);
    remove(path);
    if (!CHECK(h != NULL)) { printf("    %s\n", tt_error(lc)); tt_graph_destroy(g); tt_ctx_destroy(c); tt_ctx_destroy(lc); return; }
    CHECK_EQ_INT(tt_graph_num_nodes(h), tt_graph_num_nodes(g));
    CHECK_EQ_INT(tt_graph_get_stats(h).n_passes, tt_graph_get_stats(g).n_passes);
    CHECK_EQ_INT(tg_removed_by(h, "fold_bn"), 2);
    CHECK(strcmp(tt_graph_get_stats(h).passes[0].name, tt_graph_get_stats(g).passes[0].name) == 0);
    CHECK(tt_graph_input_name(h, 0) && strcmp(tt_graph_input_name(h, 0), "image") == 0);
    CHECK(tt_graph_input_shape(h, 0, &dt, &nd, shape) && dt == TT_F32 && nd == 4 && shape[1] == 3 && shape[3] == 16);
    x2 = tt_randn(c, 99, 4, x->shape);
    tg_same_run(c, g, h, x);
    tg_same_run(c, g, h, x2);
    CHECK_EQ_INT(tt_graph_compile(h, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);   /* as it was: nothing to do */
    CHECK_EQ_INT(tt_graph_compile(h, TT_MODE_DEFAULT, 0u), TT_ERR_STATE);
    CHECK_STR_CONTAINS(tt_graph_error(h), "loaded compiled");
    tt_graph_clear_error(h);
    CHECK_EQ_INT(tt_graph_check(h, &x, 1, 0.0, 0.0, NULL), TT_ERR_STATE);
    CHECK_STR_CONTAINS(tt_graph_error(h), "no trace");
    tt_graph_clear_error(h);
    tg_same_run(c, g, h, x2);                          /* still runs */
    tt_graph_destroy(g);
    tt_graph_destroy(h);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(lc);
}

/* An uncompiled graph saves its trace: loaded, it compiles with any passes, like the original,
   and keeps its tracer warnings. */
static void test_uncompiled_roundtrip(void) {
    static const unsigned pass_sets[3] = {0u, (unsigned)TT_PASS_ALL, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE};
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    tr_mlp_w w = tr_mlp_make(wc, 6, 16, 5, 3);
    int64_t xs[2] = {4, 6};
    tt_tensor *x = tt_randn(c, 1, 2, xs), *y, *x2 = tt_randn(c, 2, 2, xs);
    tt_graph *g, *h;
    unsigned char *bytes;
    size_t n;
    int k;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = tr_mlp_fwd(c, x, &w);
    (void)tt_item(c, tt_sum(c, y, NULL, 0, false));   /* a tracer warning, saved with the graph */
    g = tt_trace_end(c, &y, 1);
    bytes = g ? tg_save(g, &n) : NULL;
    h = bytes ? tt_graph_load_memory(c, bytes, n) : NULL;
    if (!CHECK(h != NULL)) { tt_graph_destroy(g); free(bytes); tt_ctx_destroy(c); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_num_nodes(h), tt_graph_num_nodes(g));
    CHECK_EQ_INT(tt_graph_num_warnings(h), 1);
    CHECK(tt_graph_warning(h, 0) && tt_graph_warning(g, 0) && strcmp(tt_graph_warning(h, 0), tt_graph_warning(g, 0)) == 0);
    for (k = 0; k < 3; k++) {
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, pass_sets[k]), TT_OK);
        CHECK_EQ_INT(tt_graph_compile(h, TT_MODE_DEFAULT, pass_sets[k]), TT_OK);
        CHECK_EQ_INT(tt_graph_num_nodes(h), tt_graph_num_nodes(g));
        tg_same_run(c, g, h, x2);
    }
    tt_graph_destroy(g);
    tt_graph_destroy(h);
    free(bytes);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* A parameter (not frozen) is saved with the value it has at save time: a later change
   reaches the graph that reads it, not the loaded copy, which equals eager on the old value. */
static void test_parameters_saved_with_their_values(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t xs[2] = {3, 4}, ws[2] = {5, 4};
    tt_tensor *x = tt_randn(c, 1, 2, xs), *w = tt_randn(c, 2, 2, ws), *y, *old_w, *ref;
    tt_graph *g, *h;
    unsigned char *bytes;
    size_t n;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = tt_tanh(c, tt_linear(c, x, w, NULL));
    g = tt_trace_end(c, &y, 1);
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL), TT_OK);
    old_w = tt_clone(e, w);
    bytes = tg_save(g, &n);
    h = bytes ? tt_graph_load_memory(c, bytes, n) : NULL;
    if (!CHECK(h != NULL)) { tt_graph_destroy(g); free(bytes); tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    ((float *)tt_data(w))[0] += 1.0f;                 /* the user changes the parameter */
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    CHECK_EQ_INT(tt_graph_run(h, &x, 1), TT_OK);
    ref = tt_tanh(e, tt_linear(e, x, old_w, NULL));
    CHECK_SAME_BITS(e, tt_graph_output(h, 0), ref);
    CHECK(((float *)tt_data(tt_graph_output(g, 0)))[0] != ((float *)tt_data(ref))[0]);
    tt_graph_destroy(g);
    tt_graph_destroy(h);
    free(bytes);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* Reads and writes the blob's first f32 constant: where the header says the blob starts
   (docs/FORMAT.md; memcpy, the buffer may be misaligned). */
static float tg_first_constant(unsigned char *bytes, float value, bool write) {
    uint64_t blob = 0;
    float old;
    int i;
    for (i = 7; i >= 0; i--) blob = blob << 8 | bytes[112 + i];
    memcpy(&old, bytes + blob, sizeof old);
    if (write) memcpy(bytes + blob, &value, sizeof value);
    return old;
}

/* Constants of an aligned buffer are read in place (a change to the buffer shows), those of a
   misaligned one copied (it does not). */
static void test_constants_in_place_or_copied(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[1] = {8};
    tt_tensor *x = tt_randn(c, 1, 1, xs), *k = tt_full(c, TT_F32, 1, xs, 2.0), *y;
    tt_graph *g, *h1, *h2;
    unsigned char *bytes, *shifted;
    float before, after1, after2;
    size_t n;
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = tt_mul(c, x, tt_add_scalar(c, k, 0.0f));       /* k: made before the trace, frozen */
    g = tt_trace_end(c, &y, 1);
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);
    bytes = tg_save(g, &n);
    shifted = (unsigned char *)malloc(n + 1);
    if (!CHECK(bytes && shifted)) { tt_graph_destroy(g); free(bytes); free(shifted); tt_ctx_destroy(c); return; }
    memcpy(shifted + 1, bytes, n);
    h1 = tt_graph_load_memory(c, bytes, n);
    h2 = tt_graph_load_memory(c, shifted + 1, n);
    CHECK(h1 != NULL && h2 != NULL && tt_ctx_status(c) == TT_OK);
    CHECK_EQ_INT(tt_graph_run(h1, &x, 1), TT_OK);
    before = ((float *)tt_data(tt_graph_output(h1, 0)))[0];
    CHECK(tg_first_constant(bytes, 3.0f, true) == 2.0f);
    CHECK(tg_first_constant(shifted + 1, 3.0f, true) == 2.0f);
    CHECK_EQ_INT(tt_graph_run(h1, &x, 1), TT_OK);
    CHECK_EQ_INT(tt_graph_run(h2, &x, 1), TT_OK);
    after1 = ((float *)tt_data(tt_graph_output(h1, 0)))[0];
    after2 = ((float *)tt_data(tt_graph_output(h2, 0)))[0];
    CHECK(after1 == before / 2.0f * 3.0f);             /* in place */
    CHECK(after2 == before);                           /* copied at load */
    tt_graph_destroy(g);
    tt_graph_destroy(h1);
    tt_graph_destroy(h2);
    free(bytes);
    free(shifted);
    tt_ctx_destroy(c);
}

/* An allocator that counts its calls (and then uses malloc). */
static int tg_heap_calls;
static void *tg_count_alloc(size_t n, void *user) { (void)user; tg_heap_calls++; return malloc(n); }
static void tg_count_free(void *p, void *user) { (void)user; free(p); }

/* A graph loaded into a context over a user buffer takes every byte from that buffer: the
   heap is never called, the context's use grows, and it runs like the saved graph. */
static void test_load_into_user_buffer(void) {
    static union { unsigned char b[1 << 20]; double align; } mem;
    tt_ctx *c = tu_ctx(), *wc = tu_ctx(), *uc;
    tt_ctx_desc d = tt_ctx_desc_default();
    tr_cnn_w w;
    tt_tensor *x, *ux;
    tt_graph *g = tg_trace_cnn(c, wc, &w, &x), *h;
    unsigned char *bytes;
    size_t n, used;
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);
    bytes = tg_save(g, &n);
    d.mem_buffer = mem.b;
    d.mem_size = sizeof mem.b;
    d.n_threads = 1;
    d.allocator.alloc = tg_count_alloc;
    d.allocator.free = tg_count_free;
    uc = tt_ctx_create(&d);
    if (!CHECK(uc != NULL && bytes != NULL)) { tt_graph_destroy(g); free(bytes); tt_ctx_destroy(c); tt_ctx_destroy(wc); return; }
    ux = tt_clone(uc, x);
    used = tt_ctx_used(uc);
    tg_heap_calls = 0;
    h = tt_graph_load_memory(uc, bytes, n);
    if (!CHECK(h != NULL)) printf("    %s\n", tt_error(uc));
    CHECK(tt_ctx_used(uc) > used + tt_graph_get_stats(h).arena_bytes + tt_graph_get_stats(h).scratch_bytes);
    CHECK(tt_ctx_used(uc) < used + tt_graph_get_stats(h).arena_bytes + tt_graph_get_stats(h).scratch_bytes +
                            tt_graph_get_stats(g).constant_bytes + 65536);
    tg_same_run(c, g, h, ux);
    tg_same_run(c, g, h, ux);
    CHECK_EQ_INT(tg_heap_calls, 0);
    tt_graph_destroy(h);
    tt_graph_destroy(g);
    free(bytes);
    tt_ctx_destroy(uc);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* The same buffer too small for the graph's arena: an out-of-memory error, nothing written
   outside it (guards), and the context still works. */
static void test_load_into_small_buffer(void) {
    static union { unsigned char b[24 * 1024]; double align; } mem;
    tt_ctx *c = tu_ctx(), *wc = tu_ctx(), *uc;
    tt_ctx_desc d = tt_ctx_desc_default();
    tr_cnn_w w;
    tt_tensor *x;
    tt_graph *g = tg_trace_cnn(c, wc, &w, &x);
    unsigned char *bytes;
    size_t n;
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);
    bytes = tg_save(g, &n);
    d.mem_buffer = mem.b;
    d.mem_size = sizeof mem.b;
    d.debug_guards = 1;
    uc = tt_ctx_create(&d);
    if (CHECK(uc != NULL && bytes != NULL)) {
        CHECK(tt_graph_load_memory(uc, bytes, n) == NULL);
        CHECK_EQ_INT(tt_ctx_status(uc), TT_ERR_OOM);
        CHECK_STR_CONTAINS(tt_error(uc), "tt_graph_load");
        CHECK(tt_ctx_check_guards(uc));
        tt_clear_error(uc);
        CHECK(tt_ones(uc, TT_F32, 1, x->shape) != NULL);
    }
    tt_graph_destroy(g);
    free(bytes);
    tt_ctx_destroy(uc);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* The size a save needs is what it writes; a short buffer gets only its bytes; saving is
   deterministic, and a loaded graph saves the very bytes it was loaded from. */
static void test_save_sizes_and_bytes(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    tr_cnn_w w;
    tt_tensor *x;
    tt_graph *g = tg_trace_cnn(c, wc, &w, &x), *h;
    unsigned char *a, *b = NULL, *again = NULL;
    size_t n, m = 0;
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_REDUCE_OVERHEAD, TT_PASS_ALL), TT_OK);
    a = tg_save(g, &n);
    if (a) {
        b = (unsigned char *)malloc(n);
        memset(b, 0x5A, n);
        CHECK_EQ_INT(tt_graph_save_memory(g, b, n / 2), n);   /* still says what it needs */
        CHECK(memcmp(b, a, n / 2) == 0 && b[n / 2] == 0x5A && b[n - 1] == 0x5A);
        CHECK_EQ_INT(tt_graph_save_memory(g, b, n), n);
        CHECK(memcmp(a, b, n) == 0);
        h = tt_graph_load_memory(c, a, n);
        if (CHECK(h != NULL)) {
            again = tg_save(h, &m);
            CHECK(again && m == n && memcmp(again, a, n) == 0);
            CHECK_EQ_INT(tt_graph_bind(h, &x, 1), TT_OK);            /* REDUCE_OVERHEAD: bound once */
            CHECK_EQ_INT(tt_graph_run(h, NULL, 0), TT_OK);
            CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
            CHECK_SAME_BITS(c, tt_graph_output(h, 0), tt_graph_output(g, 0));
            tt_graph_destroy(h);
        }
    }
    tt_graph_destroy(g);
    free(a);
    free(b);
    free(again);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- tests/fw_graph.h -------------------------------------------------------------------------- */

/* The firmware model, traced: outputs probs and total (fw_model.h). */
static tt_graph *tg_trace_fw(tt_ctx *c, tt_tensor **x) {
    int64_t xs[2] = {2, 3}, ws[2] = {4, 3}, bs[1] = {4};
    tt_tensor *w = tt_from_data(c, TT_F32, 2, ws, fw_w), *b = tt_from_data(c, TT_F32, 1, bs, fw_b), *h, *out[2];
    *x = tt_from_data(c, TT_F32, 2, xs, fw_x);
    tt_trace_begin(c);
    tt_trace_input(c, *x, "x");
    h = tt_relu(c, tt_linear(c, *x, w, b));
    out[0] = tt_softmax(c, h, 1);
    out[1] = tt_sum(c, tt_mul(c, out[0], h), NULL, 0, false);
    return tt_trace_end(c, out, 2);
}

/* Writes the bytes as tests/fw_graph.h would hold them, for a maintainer to copy there. */
static void tg_write_fw_header(const unsigned char *bytes, size_t n, const char *path) {
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f) return;
    fprintf(f, "/* fw_graph.h - generated by tests/test_ttg.c (ttg/firmware_graph_is_current), do not edit: the .ttg\n"
               "   bytes of fw_model.h's model traced on x [2,3], outputs (probs, total), compiled with\n"
               "   TT_PASS_ALL | TT_PASS_FREEZE. tests/test_firmware.c loads it from this const array (flash).\n"
               "   When the format or the compiler's output changes, the test writes the new file to copy here. */\n"
               "static const union { unsigned char bytes[%lu]; uint32_t align; } fw_graph = {{", (unsigned long)n);
    for (i = 0; i < n; i++) fprintf(f, "%s0x%02x,", i % 16 == 0 ? "\n    " : " ", bytes[i]);
    fprintf(f, "\n}};\n");
    fclose(f);
}

/* The bytes the firmware test loads are what this tinytrace.h saves for its model, and they
   load and compute the model as the double-precision reference says. */
static void test_firmware_graph_is_current(void) {
    const char *fresh = "/tmp/tinytrace_fw_graph.h";
    tt_ctx *c = tu_ctx();
    tt_tensor *x;
    tt_graph *g = tg_trace_fw(c, &x), *h;
    double want[2][4], want_total;
    unsigned char *bytes;
    size_t n = 0;
    int i, j;
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK);
    bytes = tg_save(g, &n);
    if (!CHECK(bytes && n == sizeof fw_graph.bytes && memcmp(bytes, fw_graph.bytes, n) == 0) && bytes) {
        tg_write_fw_header(bytes, n, fresh);
        printf("    tests/fw_graph.h is stale: copy %s there\n", fresh);
    }
    h = tt_graph_load_memory(c, fw_graph.bytes, sizeof fw_graph.bytes);
    fw_reference(want, &want_total);
    if (CHECK(h != NULL) && CHECK_EQ_INT(tt_graph_run(h, &x, 1), TT_OK)) {
        const float *p = (const float *)tt_data(tt_graph_output(h, 0));
        for (i = 0; i < 2; i++)
            for (j = 0; j < 4; j++) CHECK_NEAR(p[i * 4 + j], want[i][j], 1e-6, 2e-6);
        CHECK_NEAR(tt_item(c, tt_graph_output(h, 1)), want_total, 1e-6, 1e-5);
    }
    tt_graph_destroy(g);
    tt_graph_destroy(h);
    free(bytes);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(ttg) = {
    {"file_roundtrip", test_file_roundtrip},
    {"uncompiled_roundtrip", test_uncompiled_roundtrip},
    {"parameters_saved_with_their_values", test_parameters_saved_with_their_values},
    {"constants_in_place_or_copied", test_constants_in_place_or_copied},
    {"load_into_user_buffer", test_load_into_user_buffer},
    {"load_into_small_buffer", test_load_into_small_buffer},
    {"save_sizes_and_bytes", test_save_sizes_and_bytes},
    {"firmware_graph_is_current", test_firmware_graph_is_current},
    {NULL, NULL}
};
