/* test_export.c - tt_graph_export_c and tt_graph_export_arena in the suite: what they refuse
   (with a message naming the function and the cause, the graph unharmed), the files they write,
   and the memory plan's sizes worked out by hand. The written C itself is compiled and run
   against its graphs by tests/export/test_exported.c (make exported), and on a Cortex-M4F by
   make firmware. */
#include "tt_test.h"
#include "test_util.h"
#include "zoo_models.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------- */

/* g compiled (every pass, weights frozen) and run once on x, or NULL. */
static tt_graph *te_compiled(tt_graph *g, tt_tensor *x) {
    if (!CHECK(g != NULL)) return NULL;
    if (!CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE), TT_OK) ||
        !CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK)) {
        tt_graph_destroy(g);
        return NULL;
    }
    return g;
}

/* Does g's error have this status and contain both pieces of text? */
static int te_error_is(tt_graph *g, tt_status status, const char *a, const char *b) {
    const char *msg = tt_graph_error(g);
    int ok = CHECK_EQ_INT(tt_graph_status(g), status) && CHECK(strstr(msg, a) != NULL) && CHECK(strstr(msg, b) != NULL);
    if (!ok) printf("    message: %s\n", msg);
    tt_graph_clear_error(g);
    return ok;
}

/* The whole text of a file (malloc'd, NUL-terminated), or NULL. */
static char *te_read(const char *path) {
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) { free(text); text = NULL; }
    if (text) text[n] = '\0';
    fclose(f);
    return text;
}

/* x [8,32]: b = tanh(x W1^T); l = b W2^T; d = exp(b) + l; out = d W3^T. Every value [8,32]
   (1024 bytes). The ops are recorded in this order (one per statement: the order in which a
   compiler evaluates arguments is its own), so that exp(b) + l fuses into one program of its own. */
static tt_graph *te_trace_chain_mlp(tt_ctx *c, tt_ctx *wc, tt_tensor **x) {
    int64_t xs[2] = {8, 32}, ws[2] = {32, 32};
    tt_tensor *w1 = tt_randn(wc, 1, 2, ws), *w2 = tt_randn(wc, 2, 2, ws), *w3 = tt_randn(wc, 3, 2, ws);
    tt_tensor *b, *l, *d, *y;
    *x = tt_randn(c, 4, 2, xs);
    tt_trace_begin(c);
    b = tt_tanh(c, tt_linear(c, tt_trace_input(c, *x, "x"), w1, NULL));
    l = tt_linear(c, b, w2, NULL);
    d = tt_add(c, tt_exp(c, b), l);
    y = tt_linear(c, d, w3, NULL);
    return tt_trace_end(c, &y, 1);
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* g (traced on x) compiled: the export refuses it, with this status and a message containing
   a and b, and the graph still runs. */
static void te_refused(tt_graph *g, tt_tensor *x, tt_status status, const char *a, const char *b) {
    g = te_compiled(g, x);
    if (!g) return;
    CHECK_EQ_INT(tt_graph_export_arena(g, 0), 0);
    te_error_is(g, status, a, b);
    CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
    tt_graph_destroy(g);
}

static void test_export_refusals(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs[2] = {4, 8}, bs[3] = {2, 4, 8}, ws[3] = {2, 8, 3};
    tt_tensor *x = tt_randn(c, 1, 2, xs), *xb = tt_randn(c, 2, 3, bs), *wb = tt_randn(wc, 3, 3, ws), *y;
    tt_graph *g;
    char long_name[80];
    int64_t pads[2] = {1, 1};
    /* an op without an exported kernel, named with its node */
    tt_trace_begin(c);
    y = tt_pad(c, tt_relu(c, tt_trace_input(c, x, "x")), pads, 2, 0.0f);
    g = te_compiled(tt_trace_end(c, &y, 1), x);
    if (g) {
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", "never"), TT_ERR_UNSUPPORTED);
        te_error_is(g, TT_ERR_UNSUPPORTED, "tt_graph_export_c", "tt_pad");
        CHECK_EQ_INT(tt_graph_export_arena(g, 0), 0);
        te_error_is(g, TT_ERR_UNSUPPORTED, "tt_graph_export_arena", "has no exported kernel");
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);   /* the graph is unharmed */
        tt_graph_destroy(g);
    }
    /* softmax along the first axis: not rows of contiguous values */
    tt_trace_begin(c);
    y = tt_softmax(c, tt_relu(c, tt_trace_input(c, x, "x")), 0);
    te_refused(tt_trace_end(c, &y, 1), x, TT_ERR_UNSUPPORTED, "tt_softmax", "not x's last ones");
    /* bool outputs, batched matmul */
    tt_trace_begin(c);
    y = tt_gt(c, tt_trace_input(c, x, "x"), x);
    te_refused(tt_trace_end(c, &y, 1), x, TT_ERR_UNSUPPORTED, "bool", "f32 tensors only");
    tt_trace_begin(c);
    y = tt_matmul(c, tt_trace_input(c, xb, "x"), wb);
    te_refused(tt_trace_end(c, &y, 1), xb, TT_ERR_UNSUPPORTED, "matmul", "not batches");
    /* arguments and state */
    tt_trace_begin(c);
    y = tt_relu(c, tt_trace_input(c, x, "x"));
    g = tt_trace_end(c, &y, 1);
    if (CHECK(g != NULL)) {
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", "never"), TT_ERR_STATE);
        te_error_is(g, TT_ERR_STATE, "tt_graph_export_c", "not compiled");
        g = te_compiled(g, x);
    }
    if (g) {
        memset(long_name, 'a', sizeof long_name);
        long_name[70] = '\0';
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", "9lives"), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "name '9lives'", "C identifier");
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", "a-b"), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "name 'a-b'", "C identifier");
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", ""), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "name ''", "C identifier");
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", long_name), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "tt_graph_export_c", "at most 64");
        CHECK_EQ_INT(tt_graph_export_c(g, NULL, "x"), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "tt_graph_export_c", "dir is NULL");
        CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", NULL), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "tt_graph_export_c", "name is NULL");
        CHECK_EQ_INT(tt_graph_export_c_flags(g, "/tmp", "x", 1u << 9), TT_ERR_ARG);
        te_error_is(g, TT_ERR_ARG, "tt_graph_export_c", "flags has unknown bits (512)");
        CHECK_EQ_INT(tt_graph_export_c(g, "/nonexistent-dir/deeper", "x"), TT_ERR_IO);
        te_error_is(g, TT_ERR_IO, "tt_graph_export_c", "/nonexistent-dir/deeper/x.h");
        CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
        tt_graph_destroy(g);
    }
    CHECK_EQ_INT(tt_graph_export_c(NULL, "/tmp", "x"), TT_ERR_ARG);
    CHECK_EQ_INT(tt_graph_export_arena(NULL, 0), 0);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- the files ----------------------------------------------------------------------------- */

static void test_export_files(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    tt_tensor *x = NULL;
    tt_graph *g = te_trace_chain_mlp(c, wc, &x);
    char path[256], name[96], upper[96], want[160], *h, *src;
    size_t i;
    g = te_compiled(g, x);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(wc); return; }
    tu_tmp_path(path, sizeof path, "");
    snprintf(name, sizeof name, "%s", strrchr(path, '/') + 1);   /* tinytrace_test_<hex>: an identifier */
    for (i = 0; i <= strlen(name); i++) upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    CHECK_EQ_INT(tt_graph_export_c(g, "/tmp", name), TT_OK);
    snprintf(path, sizeof path, "/tmp/%s.h", name);
    h = te_read(path);
    remove(path);
    snprintf(path, sizeof path, "/tmp/%s.c", name);
    src = te_read(path);
    remove(path);
    if (CHECK(h != NULL) && CHECK(src != NULL)) {
        snprintf(want, sizeof want, "#define %s_ARENA_BYTES %luu", upper, (unsigned long)tt_graph_export_arena(g, 0));
        CHECK(strstr(h, want) != NULL);
        snprintf(want, sizeof want, "int %s_run(const float *const *inputs, float *const *outputs, void *arena);", name);
        CHECK(strstr(h, want) != NULL);
        snprintf(want, sizeof want, "#define %s_INPUT0_FLOATS 256", upper);
        CHECK(strstr(h, want) != NULL);
        CHECK(strstr(src, "#define TT_STATIC") != NULL && strstr(src, "#include \"tinytrace.h\"") != NULL);
        snprintf(want, sizeof want, "static const float %s_c0[1024] = {", name);   /* a 32x32 weight, in flash */
        CHECK(strstr(src, want) != NULL);
        CHECK(strstr(src, "tt__x_linear(") != NULL);
        CHECK(strstr(src, "r1 = tt__tanhf(x);") != NULL || strstr(src, "= tt__tanhf(x);") != NULL);   /* a chain as a loop */
        CHECK(strstr(src, "tt__expf(x)") != NULL);
        CHECK(strstr(src, "tt__fused") == NULL);                           /* no interpreter */
        snprintf(want, sizeof want, "int %s_selftest(void *work) {", name);
        CHECK(strstr(src, want) != NULL);
    }
    free(h);
    free(src);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- the plan ------------------------------------------------------------------------------ */

/* The chain MLP: b = tanh(x W1^T) (tanh fused into the linear: one [8,32] buffer), l = b W2^T
   (a second), d = exp(b) + l (one program) written over one of the two, both dying there;
   out is the caller's: 2 x 1024 bytes. Without writing in place d would need a third. */
static void test_export_plan_in_place(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    tt_tensor *x = NULL;
    tt_graph *g = te_trace_chain_mlp(c, wc, &x);
    g = te_compiled(g, x);
    if (g) {
        CHECK_EQ_INT(tt_graph_export_arena(g, 0), 2 * 1024);
        CHECK_EQ_INT(tt_graph_export_arena(g, TT_EXPORT_NO_BANDS), 2 * 1024);
        tt_graph_destroy(g);
    }
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* SimpleCNN at [2,3,16,16] (zoo_models.h): conv1 + ReLU [2,32,16,16] (65,536 B), max-pool
   [2,32,8,8] (16,384 B), conv2 + ReLU [2,64,8,8] (32,768 B), max-pool [2,64,4,4] (8,192 B),
   average pool [2,64] (512 B). Without band fusion the largest pair alive is conv1's output
   and its pool's: 81,920 B (the column matrices fit in the gaps). With it, no convolution
   output exists whole: at conv2, pool1's output (16,384) and pool2's (8,192) are alive, plus
   one band of two conv2 rows: their column matrix (2 x 8 pixels x 32*9 floats) and their
   output (2 x 8 x 64 floats): 16,384 + 8,192 + 16 * (288 + 64) * 4 = 47,104 B. */
static void test_export_plan_bands(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs[4] = {2, 3, 16, 16}, fs[2] = {10, 64};
    tr_cnn_w w;
    tt_tensor *x, *y;
    tt_graph *g;
    size_t plain, fused;
    w.b1 = tr_cnn_block_make(wc, 3, 32, 200);
    w.b2 = tr_cnn_block_make(wc, 32, 64, 300);
    w.fw = tu_param(wc, 400, 2, fs, 0.125f, 0.0f);
    w.fb = tu_param1(wc, 401, 10, 0.1f, 0.0f);
    x = tt_randn(c, 7, 4, xs);
    tt_trace_begin(c);
    y = tr_cnn_fwd(c, tt_trace_input(c, x, "image"), &w);
    g = te_compiled(tt_trace_end(c, &y, 1), x);
    if (g) {
        plain = tt_graph_export_arena(g, TT_EXPORT_NO_BANDS);
        fused = tt_graph_export_arena(g, 0);
        CHECK_EQ_INT(plain, 65536 + 16384);
        CHECK_EQ_INT(fused, 16384 + 8192 + 16 * (288 + 64) * 4);
        tt_graph_destroy(g);
    }
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

TT_TEST_GROUP(export) = {
    {"refusals", test_export_refusals},
    {"files", test_export_files},
    {"plan_in_place", test_export_plan_in_place},
    {"plan_bands", test_export_plan_bands},
    {NULL, NULL}
};
