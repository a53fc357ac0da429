/* test_trace.c - the tracer and the graph executor.

   The guarantee under test: a graph traced from eager code gives BITWISE the outputs of the
   same eager code on the same inputs (it runs the same kernels), for the inputs it was traced
   on and for new ones, with every pass on and with every pass off. Around it: exact node counts
   for dead-code elimination and common-subexpression elimination, determinism over many runs,
   tracer warnings with their call sites, shape/dtype/count guards on tt_graph_run, the error
   states of tt_trace_begin / tt_trace_end, graphs that outlive the trace context, tt_graph_str,
   one graph per public op (an op that were not recorded would freeze its traced value as a
   constant), elementwise chains that the fusion pass may merge (through views and dtype
   changes), memory plans checked with TT_DEBUG_POISON, and runs that allocate nothing (counted
   through a custom allocator).

   Each model is an eager forward `fwd(ctx, x, weights)`; weights live in their own context
   (they are parameters of the graph). The models and the per-op bodies are in zoo_models.h,
   shared with hash_outputs.c. The eager references run in a third context that is
   never traced. A few eager results are also checked against double-precision loops. */
#include "test_util.h"
#include "zoo_models.h"
#include "op_cases.h"
#include "crc32c.h"
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* s contains one of the '|'-separated alternatives in alts. */
static int tr_contains_any(const char *s, const char *alts, const char *file, int line) {
    char one[64];
    const char *p = alts;
    if (s) {
        while (*p) {
            size_t n = strcspn(p, "|");
            if (n >= sizeof one) n = sizeof one - 1;
            memcpy(one, p, n);
            one[n] = '\0';
            if (strstr(s, one)) return 1;
            p += n;
            if (*p == '|') p++;
        }
    }
    return tt_test__str_contains(s, alts, file, line, "graph text");
}

static int tr_count(const char *s, const char *sub) {
    int n = 0;
    size_t k = strlen(sub);
    while (s && (s = strstr(s, sub)) != NULL) { n++; s += k; }
    return n;
}

/* The whole text of tt_graph_str (malloc'd), NULL on failure. */
static char *tr_graph_text(const tt_graph *g) {
    size_t need = tt_graph_str(g, NULL, 0);
    char *buf = (char *)malloc(need + 2);
    if (!buf) return NULL;
    tt_graph_str(g, buf, need + 2);
    buf[need + 1] = '\0';
    return buf;
}

/* The graph's error (or the context's) has this status and mentions sub; then it is cleared. */
static int tr_check_graph_error(tt_graph *g, int status, const char *sub, const char *file, int line) {
    int ok = tt_test__eq_int(tt_graph_status(g), status, file, line, "tt_graph_status(g)", "status");
    ok &= tt_test__str_contains(tt_graph_error(g), "tt_graph_run", file, line, "tt_graph_error(g)");
    if (sub) ok &= tt_test__str_contains(tt_graph_error(g), sub, file, line, "tt_graph_error(g)");
    tt_graph_clear_error(g);
    ok &= tt_test__eq_int(tt_graph_status(g), TT_OK, file, line, "tt_graph_status(g) after clear", "TT_OK");
    if (tt_graph_error(g) != NULL) ok = tt_test__fail(file, line, "tt_graph_error(g) == NULL after clear");
    return ok;
}
#define CHECK_GRAPH_ERROR(g, st, sub) tr_check_graph_error((g), (st), (sub), __FILE__, __LINE__)

/* Some error (any status) whose message contains sub; cleared afterwards. */
static int tr_check_any_error(tt_ctx *c, const char *sub, const char *file, int line) {
    int ok = 1;
    if (tt_ctx_status(c) == TT_OK) ok = tt_test__fail(file, line, "an error is recorded in the context");
    ok &= tt_test__str_contains(tt_error(c), sub, file, line, "tt_error(c)");
    tt_clear_error(c);
    return ok;
}
#define CHECK_ANY_ERROR(c, sub) tr_check_any_error((c), (sub), __FILE__, __LINE__)

/* ---- the generic check: trace, compile, run on old and new inputs, compare with eager ------ */


typedef struct tr_model {
    tr_apply_fn apply;
    const void *w;
    int         n_in;
    int         ndim[2];
    int64_t     shape[2][4];
    int         kind[2];          /* TR_F, TR_POS, TR_I (i32 in [0,hi)), TR_B (bool) */
    int         hi[2];
    int         nodes;            /* exact node count on the tape (0: not checked) */
    const char *ops[10];          /* what tt_graph_str shows ('|' separates alternatives), NULL-ended */
} tr_model;

static void tr_model_init(tr_model *m, tr_apply_fn apply, const void *w, int nodes) {
    memset(m, 0, sizeof *m);
    m->apply = apply;
    m->w = w;
    m->nodes = nodes;
}
static void tr_model_input(tr_model *m, int ndim, int64_t s0, int64_t s1, int64_t s2, int64_t s3) {
    int k = m->n_in++;
    m->ndim[k] = ndim;
    m->shape[k][0] = s0; m->shape[k][1] = s1; m->shape[k][2] = s2; m->shape[k][3] = s3;
}

/* Trace m in a fresh context on inputs randn(seed + i); *cp receives the context (destroy it). */
static tt_graph *tr_trace(const tr_model *m, uint64_t seed, tt_ctx **cp, tt_tensor **xs, tt_tensor **traced_out,
                          const char *file, int line) {
    static const char *names[2] = {"x0", "x1"};
    tt_ctx *c = tu_ctx();
    tt_tensor *y;
    tt_graph *g;
    int i;
    *cp = c;
    xs[0] = xs[1] = NULL;
    for (i = 0; i < m->n_in; i++) xs[i] = tr_make_input(c, m->kind[i], m->hi[i], seed + (uint64_t)i, m->ndim[i], m->shape[i]);
    tt_test__eq_int(tt_trace_begin(c), TT_OK, file, line, "tt_trace_begin(c)", "TT_OK");
    if (!tt_is_tracing(c)) tt_test__fail(file, line, "tt_is_tracing(c) after tt_trace_begin");
    for (i = 0; i < m->n_in; i++)
        if (tt_trace_input(c, xs[i], names[i]) != xs[i]) tt_test__fail(file, line, "tt_trace_input returns its tensor");
    y = m->apply(c, xs, m->w);
    g = tt_trace_end(c, &y, 1);
    if (traced_out) *traced_out = y;
    if (tt_is_tracing(c)) tt_test__fail(file, line, "!tt_is_tracing(c) after tt_trace_end");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c) after the trace");
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards of the trace context");
    if (!g) tt_test__fail(file, line, "tt_trace_end returned a graph");
    return g;
}

/* A compiled graph saved (tt_graph_save_memory) and loaded again into a context of n_threads:
   what a program that only loads the file gets. Its bytes stay alive (constants in place). */
typedef struct tr_loaded { tt_ctx *c; unsigned char *bytes; tt_graph *g; } tr_loaded;

static tr_loaded tr_reload(tt_graph *g, int n_threads, const char *file, int line) {
    tt_ctx_desc d = tt_ctx_desc_default();
    size_t n = tt_graph_save_memory(g, NULL, 0);
    tr_loaded k;
    d.n_threads = n_threads;
    k.c = tt_ctx_create(&d);
    k.bytes = (unsigned char *)malloc(n ? n : 1);
    k.g = NULL;
    if (n == 0 || tt_graph_save_memory(g, k.bytes, n) != n) {
        tt_test__str_contains(tt_graph_error(g), "(saved)", file, line, "tt_graph_save_memory(g)");
        return k;
    }
    k.g = tt_graph_load_memory(k.c, k.bytes, n);
    if (!k.g) tt_test__str_contains(tt_error(k.c), "(loaded)", file, line, "tt_graph_load_memory");
    return k;
}

static void tr_loaded_free(tr_loaded *k) {
    tt_graph_destroy(k->g);
    tt_ctx_destroy(k->c);
    free(k->bytes);
}

/* The loaded copy has the graph's nodes, fused nodes and memory plan. */
static void tr_check_loaded_stats(tt_graph *g, const tr_loaded *k, const char *file, int line) {
    tt_graph_stats a = tt_graph_get_stats(g), b = tt_graph_get_stats(k->g);
    tt_test__eq_int(b.nodes, a.nodes, file, line, "loaded stats.nodes", "stats.nodes");
    tt_test__eq_int(b.nodes_traced, a.nodes_traced, file, line, "loaded stats.nodes_traced", "stats.nodes_traced");
    tt_test__eq_int(b.fused_ops, a.fused_ops, file, line, "loaded stats.fused_ops", "stats.fused_ops");
    tt_test__eq_int(b.n_passes, a.n_passes, file, line, "loaded stats.n_passes", "stats.n_passes");
    tt_test__eq_int((long long)b.arena_bytes, (long long)a.arena_bytes, file, line, "loaded stats.arena_bytes", "stats.arena_bytes");
    tt_test__eq_int((long long)b.constant_bytes, (long long)a.constant_bytes, file, line, "loaded constant_bytes", "constant_bytes");
}

/* Trace, compile with `passes`, check the node counts (expect_nodes >= 0: exactly; < 0: at most
   -expect_nodes; with m->nodes == 0 the traced count is used: exactly for passes 0, else at
   most), run on the traced inputs and on two new ones, each bitwise against eager; the graph
   saved and loaded again, on 1 and 3 threads, bitwise too. */
static void tr_check_model(const tr_model *m, tt_mode mode, unsigned passes, int expect_nodes, int check_text,
                           const char *file, int line) {
    tt_ctx *c = NULL, *e = tu_ctx();
    tt_tensor *xs[2], *ins[2], *traced = NULL, *ref;
    tt_graph *g;
    tr_loaded copies[2];
    ins[0] = ins[1] = NULL;
    g = tr_trace(m, 11, &c, xs, &traced, file, line);
    tt_graph_stats st;
    int r, i, k;
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }

    /* tracing computed the eager result too: equal to the same code run untraced */
    ref = m->apply(e, xs, m->w);
    tu_same_bits(e, traced, ref, file, line);

    tt_test__eq_int(tt_graph_num_inputs(g), m->n_in, file, line, "tt_graph_num_inputs(g)", "m->n_in");
    tt_test__eq_int(tt_graph_num_outputs(g), 1, file, line, "tt_graph_num_outputs(g)", "1");
    tt_test__eq_int(tt_graph_num_warnings(g), 0, file, line, "tt_graph_num_warnings(g)", "0");
    st = tt_graph_get_stats(g);
    if (m->nodes) tt_test__eq_int(st.nodes_traced, m->nodes, file, line, "stats.nodes_traced", "m->nodes");
    if (st.nodes_traced < 1) tt_test__fail(file, line, "stats.nodes_traced >= 1");
    if (!m->nodes) expect_nodes = passes == 0u ? st.nodes_traced : -st.nodes_traced;
    tt_test__eq_int((long long)st.arena_bytes, 0, file, line, "stats.arena_bytes before compile", "0");

    tt_test__eq_int(tt_graph_compile(g, mode, passes), TT_OK, file, line, "tt_graph_compile(g)", "TT_OK");
    st = tt_graph_get_stats(g);
    if (m->nodes) tt_test__eq_int(st.nodes_traced, m->nodes, file, line, "stats.nodes_traced after compile", "m->nodes");
    tt_test__eq_int(st.nodes, tt_graph_num_nodes(g), file, line, "stats.nodes", "tt_graph_num_nodes(g)");
    if (expect_nodes >= 0)
        tt_test__eq_int(tt_graph_num_nodes(g), expect_nodes, file, line, "tt_graph_num_nodes(g)", "expect_nodes");
    else if (tt_graph_num_nodes(g) < 1 || tt_graph_num_nodes(g) > -expect_nodes)
        tt_test__eq_int(tt_graph_num_nodes(g), -expect_nodes, file, line, "tt_graph_num_nodes(g) (at most)", "bound");
    if (st.arena_bytes > st.unplanned_bytes)
        tt_test__fail(file, line, "stats.arena_bytes <= stats.unplanned_bytes");
    if (st.unplanned_bytes == 0) tt_test__fail(file, line, "stats.unplanned_bytes > 0");
    for (k = 0; k < 2; k++) {
        copies[k] = tr_reload(g, 1 + 2 * k, file, line);
        if (copies[k].g) tr_check_loaded_stats(g, &copies[k], file, line);
    }

    for (r = 0; r < 3; r++) {
        for (i = 0; i < m->n_in; i++)
            ins[i] = r == 0 ? xs[i] : tr_make_input(e, m->kind[i], m->hi[i], 1000u * (uint64_t)r + 7u * (uint64_t)i + 3u,
                                                    m->ndim[i], m->shape[i]);
        if (r == 2) tt_graph_set_debug(g, TT_DEBUG_POISON);     /* a wrong memory plan shows up as NaN */
        ref = m->apply(e, ins, m->w);
        tt_test__eq_int(tt_graph_run(g, ins, m->n_in), TT_OK, file, line, "tt_graph_run(g)", "TT_OK");
        if (tt_graph_error(g)) tt_test__str_contains(tt_graph_error(g), "(no error)", file, line, "tt_graph_error(g)");
        tu_same_bits(e, tt_graph_output(g, 0), ref, file, line);
        for (k = 0; k < 2; k++) {
            if (!copies[k].g) continue;
            if (r == 2) tt_graph_set_debug(copies[k].g, TT_DEBUG_POISON);
            tt_test__eq_int(tt_graph_run(copies[k].g, ins, m->n_in), TT_OK, file, line, "tt_graph_run(loaded)", "TT_OK");
            if (tt_graph_error(copies[k].g))
                tt_test__str_contains(tt_graph_error(copies[k].g), "(no error)", file, line, "tt_graph_error(loaded)");
            tu_same_bits(e, tt_graph_output(copies[k].g, 0), ref, file, line);
        }
    }
    for (k = 0; k < 2; k++) tr_loaded_free(&copies[k]);

    if (check_text) {
        char *text = tr_graph_text(g);
        for (i = 0; m->ops[i]; i++) tr_contains_any(text, m->ops[i], file, line);
        free(text);
    }
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards of the trace context");
    if (!tt_ctx_check_guards(e)) tt_test__fail(file, line, "guards of the eager context");
    if (tt_error(e)) tt_test__str_contains(tt_error(e), "(no error)", file, line, "tt_error(e)");
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* The model zoo check: all passes, then none (exact count, op names in the text), then
   MAX_AUTOTUNE with all passes. */
static void tr_check_zoo(const tr_model *m, const char *file, int line) {
    tr_check_model(m, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, -m->nodes, 0, file, line);
    tr_check_model(m, TT_MODE_DEFAULT, 0u, m->nodes, 1, file, line);
    tr_check_model(m, TT_MODE_MAX_AUTOTUNE, (unsigned)TT_PASS_ALL, -m->nodes, 0, file, line);
    tr_check_model(m, TT_MODE_REDUCE_OVERHEAD, (unsigned)TT_PASS_ALL, -m->nodes, 0, file, line);
}

/* ---- model 1: MLP, linear-relu-linear-softmax ---------------------------------------------- */
/* tr_mlp_w, tr_mlp_make, tr_mlp_fwd, tr_mlp_apply: zoo_models.h. */

/* The MLP's output against double loops (independent of the library's ops). */
static void tr_mlp_reference_check(tt_ctx *e, const tr_mlp_w *w, tt_tensor *x, tt_tensor *y) {
    float *xv = tu_values(e, x), *w1 = tu_values(e, w->w1), *b1 = tu_values(e, w->b1);
    float *w2 = tu_values(e, w->w2), *b2 = tu_values(e, w->b2), *yv = tu_values(e, y);
    int64_t rows = x->numel / w->in, r;
    int i, j, k;
    double *h = (double *)malloc(sizeof(double) * (size_t)w->hid);
    double *ha = (double *)malloc(sizeof(double) * (size_t)w->hid);
    double *z = (double *)malloc(sizeof(double) * (size_t)w->out);
    double *za = (double *)malloc(sizeof(double) * (size_t)w->out);
    double *want = (double *)malloc(sizeof(double) * (size_t)w->out);
    double *tol = (double *)malloc(sizeof(double) * (size_t)w->out);
    CHECK(xv && w1 && b1 && w2 && b2 && yv);
    for (r = 0; xv && w1 && b1 && w2 && b2 && yv && r < rows; r++) {
        double zmax = -1e300, den = 0.0, dzmax = 0.0;
        for (j = 0; j < w->hid; j++) {
            double s = b1[j], a = fabs((double)b1[j]);
            for (k = 0; k < w->in; k++) {
                s += (double)w1[j * w->in + k] * xv[r * w->in + k];
                a += fabs((double)w1[j * w->in + k] * xv[r * w->in + k]);
            }
            h[j] = s > 0.0 ? s : 0.0;
            ha[j] = a;                          /* scale of the f32 error of h[j] */
        }
        for (i = 0; i < w->out; i++) {
            double s = b2[i], a = fabs((double)b2[i]);
            for (j = 0; j < w->hid; j++) {
                s += (double)w2[i * w->hid + j] * h[j];
                a += fabs((double)w2[i * w->hid + j]) * (fabs(h[j]) + 1e-6 * ha[j]);
            }
            z[i] = s;
            za[i] = a;
            if (s > zmax) zmax = s;
            if (1e-6 * a > dzmax) dzmax = 1e-6 * a;
        }
        for (i = 0; i < w->out; i++) den += exp(z[i] - zmax);
        for (i = 0; i < w->out; i++) {
            want[i] = exp(z[i] - zmax) / den;
            /* a logit error dz moves p_i by at most p_i * 2 max|dz|; plus exp/division rounding */
            tol[i] = want[i] * (2.0 * dzmax + 4e-6) + 1e-8;
        }
        for (i = 0; i < w->out; i++)
            if (!CHECK_NEAR(yv[r * w->out + i], want[i], tol[i], 0.0)) break;
    }
    free(xv); free(w1); free(b1); free(w2); free(b2); free(yv);
    free(h); free(ha); free(z); free(za); free(want); free(tol);
}

static void test_model_mlp(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tr_mlp_w w = tr_mlp_make(wc, 33, 64, 10, 100);
    tr_model m;
    int64_t xs[2] = {5, 33};
    tt_tensor *x = tt_randn(e, 77, 2, xs);
    tr_model_init(&m, tr_mlp_apply, &w, 4);
    tr_model_input(&m, 2, 5, 33, 0, 0);
    m.ops[0] = "linear("; m.ops[1] = "relu("; m.ops[2] = "softmax(";
    CHECK_NO_ERROR(wc);
    tr_mlp_reference_check(e, &w, x, tr_mlp_fwd(e, x, &w));
    tr_check_zoo(&m, __FILE__, __LINE__);
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- model 2: SimpleCNN --------------------------------------------------------------------- */
/* tr_cnn_w, tr_cnn_block_make, tr_cnn_fwd, tr_cnn_apply (11 nodes): zoo_models.h. */

static void test_model_cnn(void) {
    tt_ctx *wc = tu_ctx();
    tr_cnn_w w;
    tr_model m;
    w.b1 = tr_cnn_block_make(wc, 3, 32, 200);
    w.b2 = tr_cnn_block_make(wc, 32, 64, 300);
    w.fw = tu_param2(wc, 400, 10, 64, 0.125f);
    w.fb = tu_param1(wc, 401, 10, 0.1f, 0.0f);
    CHECK_NO_ERROR(wc);
    tr_model_init(&m, tr_cnn_apply, &w, 11);
    tr_model_input(&m, 4, 2, 3, 32, 32);
    m.ops[0] = "conv2d("; m.ops[1] = "batch_norm("; m.ops[2] = "relu("; m.ops[3] = "max_pool(";
    m.ops[4] = "adaptive_avg_pool2d("; m.ops[5] = "flatten(|reshape("; m.ops[6] = "linear(";
    tr_check_zoo(&m, __FILE__, __LINE__);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ---- model 3: transformer encoder layer, d_model 32, 4 heads, on [2,7,32] ------------------ */
/* tr_enc_w, tr_enc_make, tr_enc_fwd, tr_enc_apply (21 nodes): zoo_models.h. */

static void tr_enc_model(tr_model *m, const tr_enc_w *w) {
    tr_model_init(m, tr_enc_apply, w, 21);
    tr_model_input(m, 3, 2, 7, 32, 0);
    m->ops[0] = "linear("; m->ops[1] = "reshape("; m->ops[2] = "transpose(|permute(";
    m->ops[3] = "scaled_dot_product_attention("; m->ops[4] = "contiguous(|clone(|copy(";
    m->ops[5] = "layer_norm("; m->ops[6] = "gelu("; m->ops[7] = "add(";
}

static void test_model_transformer(void) {
    tt_ctx *wc = tu_ctx();
    tr_enc_w w = tr_enc_make(wc, 500);
    tr_model m;
    CHECK_NO_ERROR(wc);
    tr_enc_model(&m, &w);
    tr_check_zoo(&m, __FILE__, __LINE__);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ---- model 4: bounding boxes divided by the image size taken from its shape ------------------ */
/* tr_bbox_fwd, tr_bbox_apply (4 nodes): zoo_models.h. */

static void test_model_bbox(void) {
    tt_ctx *e = tu_ctx();
    tr_model m;
    int64_t bs[2] = {13, 4}, is[4] = {1, 3, 24, 40};
    tt_tensor *boxes = tt_mul_scalar(e, tt_rand(e, 5, 2, bs), 40.0f);
    tt_tensor *img = tt_zeros(e, TT_F32, 4, is);
    tt_tensor *y = tr_bbox_fwd(e, boxes, img);
    float *bv = tu_values(e, boxes), *yv = tu_values(e, y);
    double want[52];
    int i;
    CHECK(bv && yv);
    for (i = 0; bv && yv && i < 52; i++) want[i] = (double)bv[i] / ((i % 2 == 0) ? 40.0 : 24.0);
    if (yv) CHECK_ALLCLOSE(yv, want, 52, 0.0, 1e-6);
    free(bv);
    free(yv);
    CHECK_GUARDS(e);
    tt_ctx_destroy(e);

    tr_model_init(&m, tr_bbox_apply, NULL, 4);
    tr_model_input(&m, 2, 13, 4, 0, 0);
    tr_model_input(&m, 4, 1, 3, 24, 40);
    m.ops[0] = "shape_as_tensor("; m.ops[1] = "cast("; m.ops[2] = "index_select("; m.ops[3] = "div(";
    tr_check_zoo(&m, __FILE__, __LINE__);
}

/* ---- model 5: mixture-of-experts router with masks and tt_where ----------------------------- */
/* TR_MOE_E/T/D, tr_moe_w, tr_moe_fwd, tr_moe_apply, tr_moe_make (18 nodes): zoo_models.h. */

static void tr_moe_model(tr_model *m, const tr_moe_w *w) {
    tr_model_init(m, tr_moe_apply, w, 5 + 3 * TR_MOE_E + 1);
    tr_model_input(m, 2, TR_MOE_T, TR_MOE_D, 0, 0);
    m->ops[0] = "linear("; m->ops[1] = "argmax("; m->ops[2] = "eq("; m->ops[3] = "softmax(";
    m->ops[4] = " max("; m->ops[5] = "slice("; m->ops[6] = "where("; m->ops[7] = "mul(";
}

static void test_model_moe(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tr_moe_w w = tr_moe_make(wc, 600);
    tr_model m;
    int64_t xs[2] = {TR_MOE_T, TR_MOE_D};
    tt_tensor *x = tt_randn(e, 3, 2, xs);
    tt_tensor *y = tr_moe_fwd(e, x, &w);
    tt_tensor *top = tt_argmax(e, tt_linear(e, x, w.wg, w.bg), 1, false);
    float *tv = tu_values(e, top), *yv = tu_values(e, y);
    int t, j, used[TR_MOE_E] = {0, 0, 0, 0}, n_used = 0;
    CHECK_NO_ERROR(wc);
    CHECK(tv && yv);
    /* each row is expert top[t]'s output row times a gate in (1/E, 1]: nonzero somewhere */
    for (t = 0; tv && yv && t < TR_MOE_T; t++) {
        int nz = 0;
        for (j = 0; j < TR_MOE_D; j++) nz |= yv[t * TR_MOE_D + j] != 0.0f;
        CHECK(nz);
        if (tv[t] >= 0 && tv[t] < TR_MOE_E) used[(int)tv[t]] = 1;
    }
    for (j = 0; j < TR_MOE_E; j++) n_used += used[j];
    CHECK(n_used >= 2);      /* the routing really selects between experts */
    free(tv);
    free(yv);
    CHECK_GUARDS(e);
    tt_ctx_destroy(e);

    tr_moe_model(&m, &w);
    tr_check_zoo(&m, __FILE__, __LINE__);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ---- model 6: MobileNetV2's blocks -------------------------------------------------------- */
/* tr_mbv2_w, tr_mbv2_make, tr_mbv2_fwd, tr_mbv2_apply (21 nodes): zoo_models.h. Its blocks run
   channels-last on the CPU (the layout pass; frozen, the pointwise weights packed as the
   GEMM's B): bitwise eager's, saved, loaded, and on 1 and 3 threads. */
static void test_model_mbv2(void) {
    tt_ctx *wc = tu_ctx();
    tr_mbv2_w w = tr_mbv2_make(wc, 700);
    tr_model m;
    unsigned frozen = (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE;
    CHECK_NO_ERROR(wc);
    tr_model_init(&m, tr_mbv2_apply, &w, 21);
    tr_model_input(&m, 4, 2, 3, 32, 32);
    m.ops[0] = "conv2d("; m.ops[1] = "clamp("; m.ops[2] = "add("; m.ops[3] = "adaptive_avg_pool2d(";
    m.ops[4] = "flatten(|reshape("; m.ops[5] = "linear(";
    tr_check_zoo(&m, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, frozen, -m.nodes, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_REDUCE_OVERHEAD, frozen, -m.nodes, 0, __FILE__, __LINE__);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ---- passes: exact node counts on small graphs ----------------------------------------------- */

/* The graphs (tr_dead_apply, tr_cse_*_apply) and their node counts: zoo_models.h. */
static const unsigned tr_dce = (unsigned)TT_PASS_DCE, tr_cse = (unsigned)TT_PASS_CSE;

static void test_pass_dce(void) {
    tr_model m;
    tt_ctx *c = NULL, *e = tu_ctx();
    tt_tensor *xs[2], *ins[2];
    tt_graph *g;
    tr_model_init(&m, tr_dead_apply, NULL, 4);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 4, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_cse, 4, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, -2, 0, __FILE__, __LINE__);

    /* the input only the dead branch read is still an input of the graph */
    g = tr_trace(&m, 5, &c, xs, NULL, __FILE__, __LINE__);
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, tr_dce), TT_OK);
    CHECK_EQ_INT(tt_graph_num_nodes(g), 2);
    CHECK_EQ_INT(tt_graph_num_inputs(g), 2);
    CHECK_EQ_INT(tt_graph_run(g, xs, 1), TT_ERR_ARG);
    tt_graph_clear_error(g);
    ins[0] = tt_randn(e, 41, 2, m.shape[0]);
    ins[1] = tt_randn(e, 42, 2, m.shape[1]);
    CHECK_EQ_INT(tt_graph_run(g, ins, 2), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_neg(e, tt_relu(e, ins[0])));
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

static void test_pass_cse(void) {
    tr_model m;
    tr_model_init(&m, tr_cse_apply, NULL, 3);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 3, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_cse, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce, 3, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, -2, 0, __FILE__, __LINE__);

    m.apply = tr_cse_inputs_apply;
    tr_check_model(&m, TT_MODE_DEFAULT, tr_cse, 3, 0, __FILE__, __LINE__);

    m.apply = tr_cse_dce_apply;
    m.nodes = 4;
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 4, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_cse, 3, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce, 3, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 2, 0, __FILE__, __LINE__);

    tr_model_init(&m, tr_cse_attr_apply, NULL, 3);
    tr_model_input(&m, 2, 5, 5, 0, 0);
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 3, 0, __FILE__, __LINE__);
    m.apply = tr_cse_attr_same_apply;
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 3, 0, __FILE__, __LINE__);
    m.apply = tr_cse_axis_apply;
    tr_check_model(&m, TT_MODE_DEFAULT, tr_dce | tr_cse, 3, 0, __FILE__, __LINE__);
    m.apply = tr_cse_view_apply;
    tr_check_model(&m, TT_MODE_DEFAULT, tr_cse, 2, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 3, 0, __FILE__, __LINE__);
}

/* ---- determinism --------------------------------------------------------------------------- */

static void test_determinism(void) {
    tt_ctx *wc = tu_ctx(), *c = NULL, *e = tu_ctx();
    tr_enc_w w = tr_enc_make(wc, 700);
    tr_model m;
    tt_tensor *xs[2], *a[1], *b[1], *ref_a, *ref_b;
    tt_graph *g;
    float *first_a = NULL, *first_b = NULL;
    int run, bad = 0;
    tr_enc_model(&m, &w);
    g = tr_trace(&m, 1, &c, xs, NULL, __FILE__, __LINE__);
    a[0] = tt_randn(e, 801, 3, m.shape[0]);
    b[0] = tt_randn(e, 802, 3, m.shape[0]);
    ref_a = tr_enc_fwd(e, a[0], &w);
    ref_b = tr_enc_fwd(e, b[0], &w);
    CHECK(g != NULL);
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    /* 50 runs, alternating two inputs: every output bitwise the first one for its input */
    for (run = 0; g && run < 50; run++) {
        int odd = run & 1;
        float *v;
        if (tt_graph_run(g, odd ? b : a, 1) != TT_OK) { CHECK_EQ_INT(tt_graph_status(g), TT_OK); break; }
        v = tu_values(e, tt_graph_output(g, 0));
        if (!v) { CHECK(v != NULL); break; }
        if (run == 0) { first_a = v; CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref_a); continue; }
        if (run == 1) { first_b = v; CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref_b); continue; }
        if (memcmp(v, odd ? first_b : first_a, sizeof(float) * (size_t)ref_a->numel) != 0) bad++;
        free(v);
    }
    CHECK_EQ_INT(bad, 0);
    free(first_a);
    free(first_b);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    CHECK_GUARDS(wc);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- tracer warnings ------------------------------------------------------------------------ */

static int tr_item_line;

/* Branches in C on a traced value: the graph keeps the branch taken while tracing. */
static tt_tensor *tr_branchy_fwd(tt_ctx *c, tt_tensor *x) {
    float total = tt_item(c, tt_sum(c, x, NULL, 0, false)); tr_item_line = __LINE__;
    if (total > 0.0f) return tt_relu(c, x);
    return tt_neg(c, x);
}

static int tr_read_lines[3];

/* Reads traced values with tt_get (an input), tt_data and tt_copy_to_f32 (op results); the
   values become constants of the graph. */
static tt_tensor *tr_reader_fwd(tt_ctx *c, tt_tensor *x) {
    int64_t idx[2];
    float buf[1] = {0.0f}, g;
    const float *p;
    tt_tensor *y = tt_exp(c, x);
    idx[0] = 0; idx[1] = 1;
    g = tt_get(c, x, idx); tr_read_lines[0] = __LINE__;
    p = (const float *)tt_data(y); tr_read_lines[1] = __LINE__;
    tt_copy_to_f32(c, tt_sum(c, y, NULL, 0, false), buf, 1); tr_read_lines[2] = __LINE__;
    return tt_mul_scalar(c, tt_add_scalar(c, y, p ? p[0] : 0.0f), g + buf[0]);
}

/* The warning of g that names file:line, or NULL. */
static const char *tr_warning_at(const tt_graph *g, int line) {
    char where[64];
    int i;
    snprintf(where, sizeof where, "test_trace.c:%d", line);
    for (i = 0; i < tt_graph_num_warnings(g); i++)
        if (tt_graph_warning(g, i) && strstr(tt_graph_warning(g, i), where)) return tt_graph_warning(g, i);
    return NULL;
}

static void test_warning_item(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {3, 7};
    tt_tensor *x = tt_rand(c, 1, 2, s), *y, *in[1];
    tt_graph *g;
    const char *w;
    char where[64];
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_branchy_fwd(c, x);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    CHECK_EQ_INT(tt_graph_num_warnings(g), 1);
    w = tt_graph_warning(g, 0);
    snprintf(where, sizeof where, "test_trace.c:%d", tr_item_line);
    CHECK_STR_CONTAINS(w, where);
    CHECK_STR_CONTAINS(w, "constant");
    CHECK_STR_CONTAINS(w, "tt_item");
    CHECK(tt_graph_warning(g, 1) == NULL);
    CHECK(tt_graph_warning(g, -1) == NULL);
    /* the branch taken while tracing (sum > 0: relu) is what the graph does, also on an input
       whose sum is negative, where the eager code takes the other branch */
    in[0] = tt_neg(e, tt_rand(e, 2, 2, s));
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_relu(e, in[0]));
    CHECK_EQ_INT(tt_graph_num_warnings(g), 1);     /* runs add no warnings */
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

static void test_warning_other_reads(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {3, 7};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y, *in[1];
    tt_graph *g;
    float g01, p0, total;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_reader_fwd(c, x);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    CHECK_EQ_INT(tt_graph_num_warnings(g), 3);
    CHECK_STR_CONTAINS(tr_warning_at(g, tr_read_lines[0]), "tt_get");
    CHECK_STR_CONTAINS(tr_warning_at(g, tr_read_lines[1]), "tt_data");
    CHECK_STR_CONTAINS(tr_warning_at(g, tr_read_lines[2]), "tt_copy_to_f32");
    /* the values read became constants: the graph computes (exp(x2) + p0) * (g01 + total) with
       the numbers of the traced input */
    {
        int64_t idx[2] = {0, 1};
        tt_tensor *ex = tt_exp(e, x);
        float buf[1];
        g01 = tt_get(e, x, idx);          /* what tt_get read: x[0,1] */
        idx[1] = 0;
        p0 = tt_get(e, ex, idx);          /* what tt_data pointed at: exp(x)[0,0] */
        CHECK_EQ_INT(tt_copy_to_f32(e, tt_sum(e, ex, NULL, 0, false), buf, 1), TT_OK);
        total = buf[0];
    }
    in[0] = tt_randn(e, 9, 2, s);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_mul_scalar(e, tt_add_scalar(e, tt_exp(e, in[0]), p0), g01 + total));
    CHECK_EQ_INT(tt_graph_num_warnings(g), 3);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* No read of a traced value: no warning. Reading after the trace, or reading a parameter (not a
   traced value) during it: no warning either. */
static void test_warning_none(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    tr_mlp_w w = tr_mlp_make(wc, 4, 5, 3, 20);
    int64_t s[2] = {2, 4};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y, *param = tt_scalar(wc, 2.5f);
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_mul_scalar(c, tr_mlp_fwd(c, x, &w), tt_item(c, param));
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_EQ_INT(tt_graph_num_warnings(g), 0);
    CHECK(tt_graph_warning(g, 0) == NULL);
    CHECK(tt_item(c, tt_sum(c, y, NULL, 0, false)) > 0.0f);     /* not tracing: fine */
    CHECK_EQ_INT(tt_graph_num_warnings(g), 0);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    CHECK_GUARDS(wc);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- guards on tt_graph_run ---------------------------------------------------------------- */

static void test_run_guards(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    tr_mlp_w w = tr_mlp_make(wc, 4, 5, 3, 30);
    int64_t s24[2] = {2, 4}, s34[2] = {3, 4}, s25[2] = {2, 5}, s8[1] = {8}, s241[3] = {2, 4, 1}, s42[2] = {4, 2};
    tt_tensor *x = tt_randn(c, 1, 2, s24), *y, *in[2];
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_mlp_fwd(c, x, &w);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);

    in[0] = tt_randn(e, 2, 2, s34);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    CHECK_STR_CONTAINS(tt_graph_error(g), "[3,4]");
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[2,4]");
    in[0] = tt_randn(e, 3, 2, s25);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[2,4]");
    in[0] = tt_randn(e, 4, 1, s8);                               /* other rank */
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[2,4]");
    in[0] = tt_randn(e, 5, 3, s241);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[2,4]");
    in[0] = tt_zeros(e, TT_I32, 2, s24);                         /* right shape, wrong dtype */
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_DTYPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_DTYPE, "i32");
    in[0] = tt_cast(e, tt_randn(e, 6, 2, s24), TT_F16);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_DTYPE);
    CHECK_GRAPH_ERROR(g, TT_ERR_DTYPE, "f16");
    in[0] = tt_randn(e, 7, 2, s24);                              /* wrong number of inputs */
    in[1] = tt_randn(e, 8, 2, s24);
    CHECK_EQ_INT(tt_graph_run(g, in, 2), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, NULL);
    CHECK_EQ_INT(tt_graph_run(g, in, 0), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, NULL);
    CHECK_EQ_INT(tt_graph_run(g, in, -1), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, NULL);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 1), TT_ERR_ARG);          /* NULL array */
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, NULL);
    in[0] = NULL;                                                 /* NULL tensor */
    CHECK(tt_graph_run(g, in, 1) != TT_OK);
    CHECK(tt_graph_error(g) != NULL);
    tt_graph_clear_error(g);

    /* errors are sticky until cleared: the first one is kept */
    in[0] = tt_randn(e, 9, 2, s34);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    in[0] = tt_zeros(e, TT_I32, 2, s24);
    CHECK(tt_graph_run(g, in, 1) != TT_OK);
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[2,4]");

    /* after all that, correct runs work: contiguous, and a transposed (non-contiguous) view */
    in[0] = tt_randn(e, 10, 2, s24);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK(tt_graph_error(g) == NULL);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tr_mlp_fwd(e, in[0], &w));
    CHECK(tt_graph_output(g, 1) == NULL);
    CHECK(tt_graph_output(g, -1) == NULL);
    in[0] = tt_transpose(e, tt_randn(e, 11, 2, s42), 0, 1);
    CHECK(!tt_is_contiguous(in[0]));
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tr_mlp_fwd(e, tt_contiguous(e, in[0]), &w));
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    CHECK_GUARDS(wc);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* A run without tt_graph_compile compiles first. */
static void test_run_without_compile(void) {
    tt_ctx *wc = tu_ctx(), *c = NULL, *e = tu_ctx();
    tr_moe_w w = tr_moe_make(wc, 900);
    tr_model m;
    tt_tensor *xs[2], *in[1];
    tt_graph *g;
    tr_moe_model(&m, &w);
    g = tr_trace(&m, 3, &c, xs, NULL, __FILE__, __LINE__);
    in[0] = tt_randn(e, 31, 2, m.shape[0]);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tr_moe_fwd(e, in[0], &w));
    CHECK(tt_graph_get_stats(g).arena_bytes <= tt_graph_get_stats(g).unplanned_bytes);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* Two outputs, one of them a reduction of an intermediate value. */
static void test_two_outputs(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {33, 7};
    int ax = 1;
    tt_tensor *x = tt_randn(c, 1, 2, s), *ys[2], *in[1];
    tt_graph *g;
    unsigned passes[2];
    int k;
    passes[0] = 0u; passes[1] = (unsigned)TT_PASS_ALL;
    for (k = 0; k < 2; k++) {
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, x, "x");
        ys[0] = tt_tanh(c, x);
        ys[1] = tt_sum(c, tt_mul(c, ys[0], x), &ax, 1, false);
        g = tt_trace_end(c, ys, 2);
        CHECK(g != NULL);
        if (!g) break;
        CHECK_EQ_INT(tt_graph_num_outputs(g), 2);
        CHECK_EQ_INT(tt_graph_get_stats(g).nodes_traced, 3);
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[k]), TT_OK);
        if (k == 0) CHECK_EQ_INT(tt_graph_num_nodes(g), 3);
        in[0] = tt_randn(e, 50 + (uint64_t)k, 2, s);
        CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_tanh(e, in[0]));
        CHECK_SAME_BITS(e, tt_graph_output(g, 1), tt_sum(e, tt_mul(e, tt_tanh(e, in[0]), in[0]), &ax, 1, false));
        CHECK(tt_graph_output(g, 2) == NULL);
        tt_graph_destroy(g);
    }
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* Every graph function accepts a NULL graph. */
static void test_null_graph(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 4};
    tt_tensor *x = tt_randn(c, 1, 2, s), *in[1];
    char buf[16];
    tt_graph_stats st;
    in[0] = x;
    CHECK(tt_graph_run(NULL, in, 1) != TT_OK);
    CHECK(tt_graph_compile(NULL, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL) != TT_OK);
    CHECK(tt_graph_output(NULL, 0) == NULL);
    CHECK(tt_graph_num_inputs(NULL) <= 0);
    CHECK(tt_graph_num_outputs(NULL) <= 0);
    CHECK(tt_graph_num_nodes(NULL) <= 0);
    CHECK_EQ_INT(tt_graph_num_warnings(NULL), 0);
    CHECK(tt_graph_warning(NULL, 0) == NULL);
    CHECK(tt_graph_status(NULL) != TT_OK);
    (void)tt_graph_error(NULL);
    tt_graph_clear_error(NULL);
    st = tt_graph_get_stats(NULL);
    CHECK_EQ_INT(st.nodes, 0);
    CHECK_EQ_INT(st.nodes_traced, 0);
    memset(buf, 'Z', sizeof buf);
    (void)tt_graph_str(NULL, buf, sizeof buf);
    CHECK(memchr(buf, '\0', sizeof buf) != NULL);
    (void)tt_graph_str(NULL, NULL, 0);
    tt_graph_destroy(NULL);
    CHECK(tt_trace_begin(NULL) != TT_OK);
    CHECK(tt_trace_end(NULL, in, 1) == NULL);
    CHECK(!tt_is_tracing(NULL));
    CHECK(tt_trace_input(c, NULL, "x") == NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- error states of the tracer ------------------------------------------------------------ */

/* A trivial trace that must succeed (after an error of the same context). */
static void tr_trace_ok(tt_ctx *c, tt_tensor *x, const char *file, int line) {
    tt_tensor *y;
    tt_graph *g;
    tt_test__eq_int(tt_trace_begin(c), TT_OK, file, line, "tt_trace_begin(c)", "TT_OK");
    tt_trace_input(c, x, "x");
    y = tt_sigmoid(c, x);
    g = tt_trace_end(c, &y, 1);
    if (!g) tt_test__fail(file, line, "a fresh trace after an error gives a graph");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    tt_graph_destroy(g);
}

static void test_trace_end_without_begin(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 4};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y = tt_relu(c, x);
    CHECK(!tt_is_tracing(c));
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_end");
    tr_trace_ok(c, x, __FILE__, __LINE__);
    /* and once more after a complete trace */
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_end");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_trace_begin_twice(void) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {3, 3};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y, *in[1];
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_exp(c, x);
    CHECK_EQ_INT(tt_trace_begin(c), TT_ERR_STATE);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_begin");
    CHECK(tt_is_tracing(c));                        /* the first trace goes on */
    y = tt_add(c, y, x);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    if (g) {
        CHECK_EQ_INT(tt_graph_get_stats(g).nodes_traced, 2);
        in[0] = tt_randn(e, 2, 2, s);
        CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_add(e, tt_exp(e, in[0]), in[0]));
    }

    /* not cleared, the error of the second tt_trace_begin is sticky: the trace gives no graph */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    CHECK_EQ_INT(tt_trace_begin(c), TT_ERR_STATE);
    y = tt_exp(c, x);
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_begin");
    CHECK(!tt_is_tracing(c));
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

static void test_trace_end_bad_outputs(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    int64_t s[2] = {2, 4};
    tt_tensor *param = tt_randn(wc, 3, 2, s);
    tt_tensor *x = tt_randn(c, 1, 2, s), *before = tt_randn(c, 2, 2, s), *y, *outs[2], *nul = NULL;

    /* a parameter */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_mul(c, x, param);
    CHECK(tt_trace_end(c, &param, 1) == NULL);
    CHECK_ANY_ERROR(c, "tt_trace_end");
    CHECK(!tt_is_tracing(c));
    (void)y;

    /* a tensor of the context made before the trace, among good ones */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    outs[0] = tt_mul(c, x, param);
    outs[1] = before;
    CHECK(tt_trace_end(c, outs, 2) == NULL);
    CHECK_ANY_ERROR(c, "tt_trace_end");
    CHECK(!tt_is_tracing(c));

    /* a NULL output although no op failed */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_relu(c, x);
    CHECK(tt_trace_end(c, &nul, 1) == NULL);
    CHECK_ANY_ERROR(c, "tt_trace_end");
    CHECK(!tt_is_tracing(c));

    /* a NULL array, a negative count */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_relu(c, x);
    CHECK(tt_trace_end(c, NULL, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace_end");
    CHECK(!tt_is_tracing(c));
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_relu(c, x);
    CHECK(tt_trace_end(c, &y, -1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_trace_end");
    CHECK(!tt_is_tracing(c));

    tr_trace_ok(c, x, __FILE__, __LINE__);
    CHECK_GUARDS(c);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_trace_op_fails(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 3}, bad[2] = {4, 4};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y, *z;

    /* the failing op's NULL flows to the output */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_relu(c, tt_matmul(c, x, x));                       /* [2,3] @ [2,3]: inner 3 vs 2 */
    CHECK(y == NULL);
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    CHECK_ERROR(c, TT_ERR_SHAPE, "tt_matmul");
    CHECK(!tt_is_tracing(c));

    /* the failing op's result is not used: the trace still fails, with the op's error kept */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    z = tt_reshape(c, x, 2, bad);
    CHECK(z == NULL);
    y = tt_relu(c, x);
    CHECK(y != NULL);
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_SHAPE, "tt_reshape");
    CHECK(!tt_is_tracing(c));

    /* a dtype error during the trace */
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_where(c, x, x, x);                                  /* cond must be bool */
    CHECK(y == NULL);
    y = tt_exp(c, x);
    CHECK(tt_trace_end(c, &y, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_DTYPE, "tt_where");
    CHECK(!tt_is_tracing(c));

    tr_trace_ok(c, x, __FILE__, __LINE__);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* The graph owns its memory: the trace context (with its scopes, the example inputs and the
   constants made during the trace) is gone before the graph is compiled and run. */
static void test_trace_ctx_destroyed(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tr_moe_w mw = tr_moe_make(wc, 1000);
    tr_enc_w ew = tr_enc_make(wc, 1100);
    tr_model models[2];
    int k;
    tr_moe_model(&models[0], &mw);
    tr_enc_model(&models[1], &ew);
    for (k = 0; k < 2; k++) {
        const tr_model *m = &models[k];
        tt_ctx *c = tu_ctx();
        tt_scope sc = tt_scope_begin(c);
        tt_tensor *x = tt_randn(c, 40 + (uint64_t)k, m->ndim[0], m->shape[0]), *y, *in[1], *ref;
        tt_graph *g;
        float *traced_vals;
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, x, "x");
        y = m->apply(c, &x, m->w);
        g = tt_trace_end(c, &y, 1);
        CHECK(g != NULL);
        CHECK_NO_ERROR(c);
        CHECK_GUARDS(c);
        traced_vals = tu_values(c, y);
        /* overwrite what the trace left in the context, then free it all */
        tt_scope_end(c, sc);
        {
            int64_t big = 65536;
            tt_tensor *junk = tt_full(c, TT_F32, 1, &big, 12345.0);
            CHECK(junk != NULL);
        }
        tt_ctx_destroy(c);
        if (!g) { free(traced_vals); continue; }
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
        in[0] = tt_randn(e, 60 + (uint64_t)k, m->ndim[0], m->shape[0]);
        ref = m->apply(e, in, m->w);
        CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref);
        /* and on the traced input's values again (recreated: same seed) */
        in[0] = tt_randn(e, 40 + (uint64_t)k, m->ndim[0], m->shape[0]);
        CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
        {
            float *v = tu_values(e, tt_graph_output(g, 0));
            CHECK(v && traced_vals && memcmp(v, traced_vals, sizeof(float) * (size_t)ref->numel) == 0);
            free(v);
        }
        free(traced_vals);
        tt_graph_destroy(g);
    }
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(e);
    CHECK_GUARDS(wc);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- tt_graph_str -------------------------------------------------------------------------- */

static void test_graph_str(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx();
    tr_mlp_w w = tr_mlp_make(wc, 33, 64, 10, 100);
    int64_t s[2] = {5, 33};
    tt_tensor *x = tt_randn(c, 1, 2, s), *y;
    tt_graph *g;
    char *full, small[16], one[4];
    size_t need, len, r;
    int i;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_mlp_fwd(c, x, &w);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, 0u), TT_OK);

    need = tt_graph_str(g, NULL, 0);
    CHECK(need > 20);
    full = (char *)malloc(need + 8);
    memset(full, 'Z', need + 8);
    r = tt_graph_str(g, full, need + 8);
    CHECK_EQ_INT(r, need);
    full[need + 7] = '\0';
    len = strlen(full);
    CHECK(len == need || len + 1 == need);        /* the length, with or without the NUL */
    CHECK_STR_CONTAINS(full, "linear(");
    CHECK_STR_CONTAINS(full, "relu(");
    CHECK_STR_CONTAINS(full, "softmax(");
    CHECK_EQ_INT(tr_count(full, "linear("), 2);
    CHECK_STR_CONTAINS(full, "[5,10]");            /* the output's shape */
    CHECK_STR_CONTAINS(full, "[5,64]");            /* the hidden layer's */
    CHECK_STR_CONTAINS(full, "f32");

    /* a small buffer: a NUL-terminated prefix, nothing written past size, the length needed */
    memset(small, 'Z', sizeof small);
    r = tt_graph_str(g, small, 8);
    CHECK_EQ_INT(r, need);
    CHECK(small[7] == '\0');
    CHECK(memcmp(small, full, 7) == 0);
    for (i = 8; i < (int)sizeof small; i++) CHECK(small[i] == 'Z');
    memset(one, 'Z', sizeof one);
    r = tt_graph_str(g, one, 1);
    CHECK_EQ_INT(r, need);
    CHECK(one[0] == '\0');
    CHECK(one[1] == 'Z');
    /* exactly `len + 1` bytes: the whole text */
    {
        char *exact = (char *)malloc(len + 1);
        memset(exact, 'Z', len + 1);
        CHECK_EQ_INT(tt_graph_str(g, exact, len + 1), need);
        CHECK(exact[len] == '\0' && strcmp(exact, full) == 0);
        free(exact);
    }
    free(full);
    CHECK_GUARDS(c);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- more graph behaviour ------------------------------------------------------------------ */

/* Compiling does not depend on the values of the traced inputs: the index computed from x is
   valid for every input the graph is meant for (x in [-5,-1]), but would be out of range for
   x = 0. */
static void test_compile_independent_of_values(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    int64_t ws[2] = {5, 3}, xs4 = 4;
    static const float xv[4] = {-5.0f, -3.0f, -1.0f, -2.0f}, xv2[4] = {-4.0f, -5.0f, -1.0f, -1.0f};
    tt_tensor *w = tt_randn(wc, 1, 2, ws), *x = tt_from_data(c, TT_F32, 1, &xs4, xv), *y, *in[1];
    tt_graph *g;
    unsigned passes[2];
    int k;
    passes[0] = 0u; passes[1] = (unsigned)TT_PASS_ALL;
    for (k = 0; k < 2; k++) {
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, x, "x");
        y = tt_embedding(c, w, tt_cast(c, tt_add_scalar(c, x, 5.0f), TT_I32));
        g = tt_trace_end(c, &y, 1);
        CHECK(g != NULL);
        CHECK_NO_ERROR(c);
        if (!g) break;
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[k]), TT_OK);
        if (tt_graph_error(g)) CHECK_STR_CONTAINS(tt_graph_error(g), "(no error)");
        tt_graph_clear_error(g);
        in[0] = tt_from_data(e, TT_F32, 1, &xs4, xv2);
        CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_embedding(e, w, tt_cast(e, tt_add_scalar(e, in[0], 5.0f), TT_I32)));
        tt_graph_destroy(g);
    }
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* An index out of range at run time: an error naming tt_graph_run and the op; no crash; the
   next good run works. */
static void test_run_index_error(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    int64_t ws[2] = {5, 3}, n3 = 3;
    static const int32_t good[3] = {4, 0, 2}, bad[3] = {0, 7, 1}, good2[3] = {1, 1, 3};
    tt_tensor *w = tt_randn(wc, 1, 2, ws), *x = tt_from_data(c, TT_I32, 1, &n3, good), *y, *in[1];
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "idx");
    y = tt_relu(c, tt_embedding(c, w, x));
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    in[0] = tt_from_data(e, TT_I32, 1, &n3, bad);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_INDEX);
    CHECK_STR_CONTAINS(tt_graph_error(g), "tt_embedding");
    CHECK_GRAPH_ERROR(g, TT_ERR_INDEX, "7");
    in[0] = tt_from_data(e, TT_I32, 1, &n3, good2);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_relu(e, tt_embedding(e, w, in[0])));
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* A 0-d input: other shapes are refused with "[]" in the message. */
static void test_scalar_input(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    int64_t n3 = 3, one = 1;
    tt_tensor *p = tt_randn(wc, 1, 1, &n3), *x = tt_scalar(c, 1.5f), *y, *in[1];
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "s");
    y = tt_mul(c, x, p);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    in[0] = tt_ones(e, TT_F32, 1, &one);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_SHAPE);
    CHECK_STR_CONTAINS(tt_graph_error(g), "[1]");
    CHECK_GRAPH_ERROR(g, TT_ERR_SHAPE, "[]");
    in[0] = tt_scalar(e, -2.25f);
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_mul(e, in[0], p));
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* A graph without inputs: parameters and constants only. */
static void test_no_inputs(void) {
    tt_ctx *wc = tu_ctx(), *c = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {3, 5};
    tt_tensor *p = tt_randn(wc, 1, 2, s), *y, *in[1];
    tt_graph *g;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    y = tt_add(c, tt_relu(c, p), tt_full(c, TT_F32, 2, s, 0.5));
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK_EQ_INT(tt_graph_num_inputs(g), 0);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
    CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_add(e, tt_relu(e, p), tt_full(e, TT_F32, 2, s, 0.5)));
    in[0] = p;
    CHECK_EQ_INT(tt_graph_run(g, in, 1), TT_ERR_ARG);
    CHECK_GRAPH_ERROR(g, TT_ERR_ARG, NULL);
    CHECK_EQ_INT(tt_graph_run(g, NULL, 0), TT_OK);
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* One graph compiled again with other passes: counts follow, results stay bitwise. */
static void test_compile_again(void) {
    tr_model m;
    tt_ctx *c = NULL, *e = tu_ctx();
    tt_tensor *xs[2], *in[2];
    tt_graph *g;
    unsigned passes[4];
    int expect[4], k;
    passes[0] = tr_dce; expect[0] = 2;
    passes[1] = 0u; expect[1] = 4;
    passes[2] = (unsigned)TT_PASS_ALL; expect[2] = -2;
    passes[3] = tr_cse; expect[3] = 4;
    tr_model_init(&m, tr_dead_apply, NULL, 4);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    tr_model_input(&m, 2, 3, 7, 0, 0);
    g = tr_trace(&m, 5, &c, xs, NULL, __FILE__, __LINE__);
    for (k = 0; g && k < 4; k++) {
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[k]), TT_OK);
        if (expect[k] >= 0) CHECK_EQ_INT(tt_graph_num_nodes(g), expect[k]);
        else CHECK(tt_graph_num_nodes(g) >= 1 && tt_graph_num_nodes(g) <= -expect[k]);
        CHECK(tt_graph_get_stats(g).arena_bytes <= tt_graph_get_stats(g).unplanned_bytes);
        in[0] = tt_randn(e, 70 + (uint64_t)k, 2, m.shape[0]);
        in[1] = tt_randn(e, 80 + (uint64_t)k, 2, m.shape[1]);
        CHECK_EQ_INT(tt_graph_run(g, in, 2), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g, 0), tt_neg(e, tt_relu(e, in[0])));
    }
    CHECK_GUARDS(e);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* Two contexts trace at the same time; each graph holds its own ops only. Two graphs of one
   context run interleaved. */
static void test_two_traces(void) {
    tt_ctx *c1 = tu_ctx(), *c2 = tu_ctx(), *e = tu_ctx();
    int64_t s[2] = {4, 9};
    tt_tensor *x1 = tt_randn(c1, 1, 2, s), *x2 = tt_randn(c2, 2, 2, s), *y1, *y2, *y3, *in[1];
    tt_graph *g1, *g2, *g3;
    int k;
    CHECK_EQ_INT(tt_trace_begin(c1), TT_OK);
    CHECK_EQ_INT(tt_trace_begin(c2), TT_OK);
    tt_trace_input(c1, x1, "x1");
    tt_trace_input(c2, x2, "x2");
    y1 = tt_exp(c1, x1);
    y2 = tt_sin(c2, x2);
    y1 = tt_add(c1, y1, x1);
    g2 = tt_trace_end(c2, &y2, 1);
    CHECK(tt_is_tracing(c1));
    g1 = tt_trace_end(c1, &y1, 1);
    CHECK(g1 != NULL && g2 != NULL);
    CHECK_NO_ERROR(c1);
    CHECK_NO_ERROR(c2);
    CHECK_EQ_INT(tt_graph_get_stats(g1).nodes_traced, 2);
    CHECK_EQ_INT(tt_graph_get_stats(g2).nodes_traced, 1);
    /* a second graph of c1 */
    CHECK_EQ_INT(tt_trace_begin(c1), TT_OK);
    tt_trace_input(c1, x1, "x1");
    y3 = tt_cos(c1, x1);
    g3 = tt_trace_end(c1, &y3, 1);
    CHECK(g3 != NULL);
    for (k = 0; g1 && g2 && g3 && k < 3; k++) {
        in[0] = tt_randn(e, 100 + (uint64_t)k, 2, s);
        CHECK_EQ_INT(tt_graph_run(g1, in, 1), TT_OK);
        CHECK_EQ_INT(tt_graph_run(g3, in, 1), TT_OK);
        CHECK_EQ_INT(tt_graph_run(g2, in, 1), TT_OK);
        CHECK_SAME_BITS(e, tt_graph_output(g1, 0), tt_add(e, tt_exp(e, in[0]), in[0]));
        CHECK_SAME_BITS(e, tt_graph_output(g2, 0), tt_sin(e, in[0]));
        CHECK_SAME_BITS(e, tt_graph_output(g3, 0), tt_cos(e, in[0]));
    }
    CHECK_GUARDS(c1);
    CHECK_GUARDS(c2);
    CHECK_GUARDS(e);
    tt_graph_destroy(g1);
    tt_graph_destroy(g2);
    tt_graph_destroy(g3);
    tt_ctx_destroy(c1);
    tt_ctx_destroy(c2);
    tt_ctx_destroy(e);
}

/* tt_trace_input: no trace running, a tensor already used by the trace, the same tensor twice. */
static void test_trace_input_misuse(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 3};
    tt_tensor *x = tt_randn(c, 1, 2, s), *z = tt_randn(c, 2, 2, s), *y;
    tt_graph *g;
    CHECK(tt_trace_input(c, x, "x") == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_input");
    CHECK(!tt_is_tracing(c));

    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    CHECK(tt_trace_input(c, x, "x") == x);
    CHECK(tt_trace_input(c, x, "again") == NULL);
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_input");
    y = tt_mul(c, x, z);                        /* z: a parameter now */
    CHECK(tt_trace_input(c, z, "z") == NULL);      /* too late to make it an input */
    CHECK_ERROR(c, TT_ERR_STATE, "tt_trace_input");
    y = tt_add(c, tt_mul(c, x, z), x);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    if (g) CHECK_EQ_INT(tt_graph_num_inputs(g), 1);
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Elementwise chains (tr_chain_fwd, tr_chain_apply in zoo_models.h): fused or not, bitwise eager. */
static void test_elementwise_chains(void) {
    tr_model m;
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    int64_t xs[2] = {33, 37}, ys = 37, xt[2] = {37, 33};
    tt_tensor *x = tt_randn(c, 1, 2, xs), *y = tt_randn(c, 2, 1, &ys), *outs[2], *in[2];
    tt_graph *g;
    const unsigned fuse = (unsigned)TT_PASS_FUSE;
    unsigned passes[3];
    int k;
    tr_model_init(&m, tr_chain_apply, NULL, 14);
    tr_model_input(&m, 2, 33, 37, 0, 0);
    tr_model_input(&m, 1, 37, 0, 0, 0);
    tr_check_model(&m, TT_MODE_DEFAULT, 0u, 14, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, fuse, -13, 0, __FILE__, __LINE__);
    tr_check_model(&m, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, -13, 0, __FILE__, __LINE__);

    /* two outputs, one from the middle of a chain; a non-contiguous input */
    passes[0] = 0u; passes[1] = fuse; passes[2] = (unsigned)TT_PASS_ALL;
    for (k = 0; k < 3; k++) {
        CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
        tt_trace_input(c, x, "x");
        tt_trace_input(c, y, "y");
        outs[0] = tr_chain_fwd(c, x, y, &outs[1]);
        g = tt_trace_end(c, outs, 2);
        CHECK(g != NULL);
        if (!g) break;
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, passes[k]), TT_OK);
        if (passes[k] & fuse) {
            tt_graph_stats st = tt_graph_get_stats(g);
            CHECK(st.fused_nodes >= 1);
            CHECK(st.nodes < st.nodes_traced);
        }
        in[0] = tt_transpose(e, tt_randn(e, 90 + (uint64_t)k, 2, xt), 0, 1);
        in[1] = tt_randn(e, 95 + (uint64_t)k, 1, &ys);
        tt_graph_set_debug(g, TT_DEBUG_POISON);
        CHECK_EQ_INT(tt_graph_run(g, in, 2), TT_OK);
        {
            tt_tensor *mid = NULL, *ref = tr_chain_fwd(e, tt_contiguous(e, in[0]), in[1], &mid);
            CHECK_SAME_BITS(e, tt_graph_output(g, 0), ref);
            CHECK_SAME_BITS(e, tt_graph_output(g, 1), mid);
        }
        tt_graph_destroy(g);
    }
    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(e);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* ---- a run allocates nothing; the graph frees all it took ----------------------------------- */

typedef struct tr_counter { long allocs, frees; } tr_counter;
static void *tr_count_alloc(size_t n, void *user) {
    ((tr_counter *)user)->allocs++;
    return malloc(n);
}
static void tr_count_free(void *p, void *user) {
    if (p) ((tr_counter *)user)->frees++;
    free(p);
}

static void test_run_allocates_nothing(void) {
    tr_counter cnt;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *wc = tu_ctx(), *e = tu_ctx(), *c;
    tr_enc_w w = tr_enc_make(wc, 1300);
    int64_t xs[3] = {2, 7, 32}, xt[3] = {32, 7, 2};
    tt_tensor *x, *y, *in[4], *refs[4];
    tt_graph *g;
    long before;
    int r, k;
    tt_graph_stats st;
    cnt.allocs = cnt.frees = 0;
    d.debug_guards = 1;
    d.allocator.alloc = tr_count_alloc;
    d.allocator.free = tr_count_free;
    d.allocator.user = &cnt;
    c = tt_ctx_create(&d);
    x = tt_randn(c, 1, 3, xs);
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_enc_fwd(c, x, &w);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    tt_ctx_destroy(c);                                  /* the graph keeps the allocator only */
    if (!g) { tt_ctx_destroy(e); tt_ctx_destroy(wc); return; }
    CHECK(cnt.allocs > cnt.frees);                      /* the graph's memory came from it */
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    st = tt_graph_get_stats(g);
    CHECK(st.arena_bytes > 0);
    CHECK(st.arena_bytes < st.unplanned_bytes);         /* 20 values in a chain: buffers are reused */
    for (k = 0; k < 4; k++) {
        static const int perm[3] = {2, 1, 0};
        in[k] = k == 3 ? tt_permute(e, tt_randn(e, 203, 3, xt), perm) : tt_randn(e, 200 + (uint64_t)k, 3, xs);
        refs[k] = tr_enc_fwd(e, k == 3 ? tt_contiguous(e, in[k]) : in[k], &w);
    }
    CHECK_NO_ERROR(e);
    before = cnt.allocs;
    for (r = 0; r < 8; r++) {
        CHECK_EQ_INT(tt_graph_run(g, &in[r % 4], 1), TT_OK);
        if (r >= 4) CHECK_SAME_BITS(e, tt_graph_output(g, 0), refs[r % 4]);
    }
    CHECK_EQ_INT(cnt.allocs, before);                   /* runs (and reading outputs) allocate nothing */
    tt_graph_destroy(g);
    CHECK_EQ_INT(cnt.frees, cnt.allocs);                /* and everything is given back */
    CHECK_GUARDS(e);
    tt_ctx_destroy(e);
    tt_ctx_destroy(wc);
}

/* ---- every op is recorded: one small graph per op, run on new inputs, bitwise ------------- */
static void test_every_op_recorded(void) {
    const tr_op_case *k;
    for (k = tr_op_cases; k->name; k++) {
        tr_model m;
        char where[96];
        int i, j;
        tr_model_init(&m, k->fn, NULL, k->nodes);
        m.n_in = k->n_in;
        for (i = 0; i < 2; i++) {
            m.kind[i] = k->kind[i]; m.hi[i] = k->hi[i]; m.ndim[i] = k->ndim[i];
            for (j = 0; j < 4; j++) m.shape[i][j] = k->shape[i][j];
        }
        m.ops[0] = k->text;
        snprintf(where, sizeof where, "%s (op case %s)", __FILE__, k->name);   /* failures name the case */
        tr_check_model(&m, TT_MODE_DEFAULT, 0u, k->nodes, 1, where, __LINE__);
        tr_check_model(&m, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL, -k->nodes, 0, where, __LINE__);
    }
}

/* ---- every op's attributes from a hostile graph file ----------------------------------- */
/* A graph file carries each node's attributes as saved (docs/FORMAT.md: 20 int64 and 3 f32 per
   node), so each op's infer is a parser of values no public function makes. Every op graph,
   saved as a trace, gets each attribute of each node set in turn to extreme values (the
   checksum fixed up); the file must load or be refused, and a loaded one must compile and
   run or fail with an error: under ASan and UBSan nothing may overflow or read out of bounds. */
static uint32_t tr_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Loads the patched bytes; when they load, compiles and runs them on xs. Returns 1 if loaded. */
static int tr_try_hostile(const unsigned char *bytes, size_t n, tt_tensor *const *xs, int n_in) {
    tt_ctx *lc = tu_ctx();
    tt_graph *g = tt_graph_load_memory(lc, bytes, n);
    int loaded = g != NULL;
    if (!g) CHECK(tt_ctx_status(lc) != TT_OK && tt_error(lc) != NULL);   /* a refusal says why */
    if (g && tt_graph_run(g, xs, n_in) != TT_OK) CHECK(tt_graph_error(g) != NULL);
    tt_graph_destroy(g);
    CHECK_GUARDS(lc);
    tt_ctx_destroy(lc);
    return loaded;
}

static void test_every_op_hostile_attributes(void) {
    static const int64_t ints[] = {INT64_MAX, INT64_MIN, (int64_t)1 << 40, -((int64_t)1 << 40), (int64_t)1 << 31};
    static const uint32_t floats[] = {0x7FC00000u, 0x7F800000u, 0xFF800000u, 0x00000001u, 0x7F7FFFFFu};   /* NaN, inf, -inf, 1e-45, FLT_MAX */
    const tr_op_case *k;
    long variants = 0, loaded = 0;
    for (k = tr_op_cases; k->name; k++) {
        tt_ctx *c = tu_ctx();
        tt_tensor *xs[2] = {NULL, NULL}, *y;
        tt_graph *g;
        unsigned char *bytes = NULL;
        size_t n = 0, nodes;
        uint32_t node, n_nodes;
        int i, a;
        for (i = 0; i < k->n_in; i++) xs[i] = tr_make_input(c, k->kind[i], k->hi[i], 5u + (uint64_t)i, k->ndim[i], k->shape[i]);
        tt_trace_begin(c);
        for (i = 0; i < k->n_in; i++) tt_trace_input(c, xs[i], "x");
        y = k->fn(c, xs, NULL);
        g = tt_trace_end(c, &y, 1);
        n = g ? tt_graph_save_memory(g, NULL, 0) : 0;
        bytes = (unsigned char *)malloc(n ? n : 1);
        if (!CHECK(n > 0 && tt_graph_save_memory(g, bytes, n) == n)) { free(bytes); tt_graph_destroy(g); tt_ctx_destroy(c); continue; }
        nodes = 128 + 32 * (size_t)tr_le32(bytes + 36) + 128 * (size_t)tr_le32(bytes + 40);   /* FORMAT.md's layout */
        n_nodes = tr_le32(bytes + 44);
        for (node = 0; node < n_nodes; node++) {
            unsigned char *rec = bytes + nodes + 192 * (size_t)node, keep[8];
            for (a = 0; a < 20 + 3; a++) {
                unsigned char *field = a < 20 ? rec + 16 + 8 * a : rec + 176 + 4 * (a - 20);
                size_t width = a < 20 ? 8 : 4, v, n_vals = a < 20 ? sizeof ints / sizeof ints[0] : sizeof floats / sizeof floats[0];
                memcpy(keep, field, width);
                for (v = 0; v < n_vals; v++) {
                    uint64_t bits = a < 20 ? (uint64_t)ints[v] : floats[v];
                    size_t b;
                    uint32_t crc;
                    for (b = 0; b < width; b++) field[b] = (unsigned char)(bits >> (8 * b));
                    crc = tu_crc32c(bytes, n - 4);
                    for (b = 0; b < 4; b++) bytes[n - 4 + b] = (unsigned char)(crc >> (8 * b));
                    loaded += tr_try_hostile(bytes, n, xs, k->n_in);
                    variants++;
                }
                memcpy(field, keep, width);
            }
        }
        free(bytes);
        tt_graph_destroy(g);
        tt_ctx_destroy(c);
    }
    printf("    %ld hostile attribute variants of the op graphs: %ld loaded and ran or failed cleanly, the rest refused\n",
           variants, loaded);
    CHECK(variants > 5000);
    CHECK(loaded > 0 && loaded < variants);
}

TT_TEST_GROUP(trace) = {
    {"model_mlp", test_model_mlp},
    {"model_cnn", test_model_cnn},
    {"model_transformer", test_model_transformer},
    {"model_bbox_shape_as_tensor", test_model_bbox},
    {"model_moe_router", test_model_moe},
    {"model_mobilenetv2_blocks", test_model_mbv2},
    {"pass_dce", test_pass_dce},
    {"pass_cse", test_pass_cse},
    {"determinism_50_runs", test_determinism},
    {"warning_item", test_warning_item},
    {"warning_other_reads", test_warning_other_reads},
    {"warning_none", test_warning_none},
    {"run_guards", test_run_guards},
    {"run_without_compile", test_run_without_compile},
    {"two_outputs", test_two_outputs},
    {"null_graph", test_null_graph},
    {"trace_end_without_begin", test_trace_end_without_begin},
    {"trace_begin_twice", test_trace_begin_twice},
    {"trace_end_bad_outputs", test_trace_end_bad_outputs},
    {"trace_op_fails", test_trace_op_fails},
    {"trace_ctx_destroyed", test_trace_ctx_destroyed},
    {"graph_str", test_graph_str},
    {"every_op_hostile_attributes", test_every_op_hostile_attributes},
    {"compile_independent_of_values", test_compile_independent_of_values},
    {"run_index_error", test_run_index_error},
    {"scalar_input", test_scalar_input},
    {"no_inputs", test_no_inputs},
    {"compile_again", test_compile_again},
    {"two_traces", test_two_traces},
    {"trace_input_misuse", test_trace_input_misuse},
    {"elementwise_chains", test_elementwise_chains},
    {"run_allocates_nothing", test_run_allocates_nothing},
    {"every_op_recorded", test_every_op_recorded},
    {NULL, NULL}
};
