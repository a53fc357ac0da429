/* test_passes.c - the graph compiler's passes, one at a time, on small traced graphs.

   Every graph is traced from a small eager function, compiled with a chosen set of TT_PASS_*
   bits, and checked for
     - the EXACT node count on the tape (stats.nodes_traced) and after the passes
       (tt_graph_num_nodes), and what tt_graph_str shows (fused{...} lines, ops that are gone);
     - its outputs against the same eager code on the traced inputs and on new ones: BITWISE
       where only fusion / scheduling / removal of no-op nodes changed the graph, within 1e-5 of
       the natural scale where algebra changed values (batch-norm folding);
     - the memory plan: a run with TT_DEBUG_POISON gives bitwise the output of a run without,
       and arena_bytes <= unplanned_bytes;
     - a few results against double-precision loops written here.
   Sections: constant folding, simplification, CSE, batch-norm folding (with and without
   freeze, and parameters changed after compile), epilogue fusion, elementwise fusion (long
   chains, chains broken by reductions / matmul, values stored for later readers, siblings,
   f16/bf16, broadcasting, non-contiguous inputs), memory reuse, recompilation. */
#include "test_util.h"
#include "zoo_models.h"            /* tu_param, tu_param1, tu_param2 */
#include <stdio.h>

#define PS_MAX_IO 4

/* ---- helpers ------------------------------------------------------------------------------ */

/* An eager function under trace: writes its outputs to out, returns how many. */
typedef int (*ps_fn)(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out);

typedef struct ps_spec {
    ps_fn       fn;
    const void *w;
    int         n_in;
    int         ndim[PS_MAX_IO];
    int64_t     shape[PS_MAX_IO][4];
    tt_dtype    dtype[PS_MAX_IO];
    int         transposed[PS_MAX_IO];   /* new inputs are transposed views (2-D only) */
} ps_spec;

static void ps_spec_init(ps_spec *s, ps_fn fn, const void *w) {
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->w = w;
}

static void ps_spec_input(ps_spec *s, tt_dtype dt, int ndim, int64_t a, int64_t b, int64_t c, int64_t d) {
    int k = s->n_in++;
    s->ndim[k] = ndim;
    s->shape[k][0] = a; s->shape[k][1] = b; s->shape[k][2] = c; s->shape[k][3] = d;
    s->dtype[k] = dt;
}

/* Input k of s: randn(seed) in its dtype; a transposed view when asked (and allowed). */
static tt_tensor *ps_input(tt_ctx *c, const ps_spec *s, int k, uint64_t seed, int allow_view) {
    tt_tensor *t;
    if (allow_view && s->transposed[k] && s->ndim[k] == 2) {
        int64_t sh[2];
        sh[0] = s->shape[k][1];
        sh[1] = s->shape[k][0];
        t = tt_transpose(c, tt_randn(c, seed, 2, sh), 0, 1);
    } else {
        t = tt_randn(c, seed, s->ndim[k], s->shape[k]);
    }
    if (t && s->dtype[k] != TT_F32) t = tt_cast(c, t, s->dtype[k]);
    return t;
}

/* The float values v[0..n) equal those of t bitwise. */
static int ps_same_as_values(tt_ctx *e, const tt_tensor *t, const float *v, long long n, const char *file, int line) {
    float *a;
    int ok = 1;
    if (!t || !v) return tt_test__fail(file, line, "tensor or saved values are NULL");
    if (!tt_test__eq_int(t->numel, n, file, line, "t->numel", "n")) return 0;
    a = tu_values(e, t);
    if (!a) return tt_test__fail(file, line, "tu_values failed");
    if (n > 0 && memcmp(a, v, sizeof(float) * (size_t)n) != 0) ok = tt_test__fail(file, line, "bitwise equal to the saved run");
    free(a);
    return ok;
}

/* The whole text of tt_graph_str (malloc'd). */
static char *ps_text(const tt_graph *g) {
    size_t need = tt_graph_str(g, NULL, 0);
    char *buf = (char *)malloc(need + 2);
    if (!buf) return NULL;
    tt_graph_str(g, buf, need + 2);
    buf[need + 1] = '\0';
    return buf;
}

static int ps_count(const char *s, const char *sub) {
    int n = 0;
    size_t k = strlen(sub);
    while (s && (s = strstr(s, sub)) != NULL) { n++; s += k; }
    return n;
}

/* text (of g) does / does not contain sub. */
static int ps_text_has(const tt_graph *g, const char *sub, int want, const char *file, int line) {
    char *t = ps_text(g);
    int has = t && strstr(t, sub) != NULL, ok = 1;
    if (has != want) {
        printf("    %s:%d: graph text %s \"%s\":\n%s", file, line, want ? "lacks" : "contains", sub, t ? t : "(null)\n");
        ok = tt_test__fail(file, line, want ? "graph text contains the string" : "graph text does not contain the string");
    }
    free(t);
    return ok;
}
#define PS_HAS(g, sub)   ps_text_has((g), (sub), 1, __FILE__, __LINE__)
#define PS_LACKS(g, sub) ps_text_has((g), (sub), 0, __FILE__, __LINE__)

/* Stats after compile: fused nodes / ops / longest (each checked when >= 0). */
static void ps_fused(const tt_graph *g, int fused_nodes, int fused_ops, int max_ops, const char *file, int line) {
    tt_graph_stats st = tt_graph_get_stats(g);
    if (fused_nodes >= 0) tt_test__eq_int(st.fused_nodes, fused_nodes, file, line, "stats.fused_nodes", "fused_nodes");
    if (fused_ops >= 0) tt_test__eq_int(st.fused_ops, fused_ops, file, line, "stats.fused_ops", "fused_ops");
    if (max_ops >= 0) tt_test__eq_int(st.max_fused_ops, max_ops, file, line, "stats.max_fused_ops", "max_ops");
}
#define PS_FUSED(g, n, ops, mx) ps_fused((g), (n), (ops), (mx), __FILE__, __LINE__)

/* Trace s in c on inputs made from seed (before the trace begins). */
static tt_graph *ps_trace(const ps_spec *s, tt_ctx *c, uint64_t seed, tt_tensor **xs, const char *file, int line) {
    static const char *names[PS_MAX_IO] = {"x0", "x1", "x2", "x3"};
    tt_tensor *outs[PS_MAX_IO];
    tt_graph *g;
    int i, n;
    for (i = 0; i < s->n_in; i++) xs[i] = ps_input(c, s, i, seed + (uint64_t)i, 0);
    tt_test__eq_int(tt_trace_begin(c), TT_OK, file, line, "tt_trace_begin(c)", "TT_OK");
    for (i = 0; i < s->n_in; i++)
        if (tt_trace_input(c, xs[i], names[i]) != xs[i]) tt_test__fail(file, line, "tt_trace_input returns its tensor");
    n = s->fn(c, xs, s->w, outs);
    g = tt_trace_end(c, outs, n);
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c) after the trace");
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards of the trace context");
    if (!g) tt_test__fail(file, line, "tt_trace_end returned a graph");
    else tt_test__eq_int(tt_graph_num_warnings(g), 0, file, line, "tt_graph_num_warnings(g)", "0");
    return g;
}

/* Runs g on inputs ins and compares every output bitwise with the eager fn on the same
   inputs; then runs again with TT_DEBUG_POISON and checks bitwise the same outputs. */
static void ps_check_run(tt_graph *g, const ps_spec *s, tt_ctx *e, tt_tensor *const *ins, const char *file, int line) {
    tt_tensor *ref[PS_MAX_IO];
    float *saved[PS_MAX_IO];
    int n, k;
    n = s->fn(e, ins, s->w, ref);
    if (tt_error(e)) tt_test__str_contains(tt_error(e), "(no error)", file, line, "eager reference error");
    tt_test__eq_int(tt_graph_num_outputs(g), n, file, line, "tt_graph_num_outputs(g)", "n");
    tt_graph_set_debug(g, 0u);
    if (!tt_test__eq_int(tt_graph_run(g, ins, s->n_in), TT_OK, file, line, "tt_graph_run(g)", "TT_OK")) {
        tt_test__str_contains(tt_graph_error(g), "(no error)", file, line, "tt_graph_error(g)");
        tt_graph_clear_error(g);
        return;
    }
    for (k = 0; k < n; k++) {
        tu_same_bits(e, tt_graph_output(g, k), ref[k], file, line);
        saved[k] = tu_values(e, tt_graph_output(g, k));
    }
    tt_graph_set_debug(g, (unsigned)TT_DEBUG_POISON);       /* a wrong memory plan shows up as NaN */
    if (tt_test__eq_int(tt_graph_run(g, ins, s->n_in), TT_OK, file, line, "tt_graph_run(g) with POISON", "TT_OK")) {
        for (k = 0; k < n; k++) ps_same_as_values(e, tt_graph_output(g, k), saved[k], ref[k] ? ref[k]->numel : 0, file, line);
    } else {
        tt_test__str_contains(tt_graph_error(g), "(no error)", file, line, "tt_graph_error(g)");
        tt_graph_clear_error(g);
    }
    tt_graph_set_debug(g, 0u);
    for (k = 0; k < n; k++) free(saved[k]);
}

/* Trace s, check the tape has `traced` nodes, compile with `passes`, check `nodes` nodes
   (when >= 0) and the plan sizes, then run on the traced inputs and two new sets (the second
   non-contiguous where s asks for it), each bitwise against eager, with and without POISON.
   Returns the compiled graph when keep is non-NULL (*keep_ctx: its trace context). */
static void ps_check(const ps_spec *s, unsigned passes, int traced, int nodes, tt_graph **keep, tt_ctx **keep_ctx,
                     const char *file, int line) {
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    tt_tensor *xs[PS_MAX_IO], *ins[PS_MAX_IO];
    tt_graph *g;
    tt_graph_stats st;
    int r, i;
    if (keep) *keep = NULL;
    if (keep_ctx) *keep_ctx = NULL;
    g = ps_trace(s, c, 17, xs, file, line);
    if (!g) { tt_ctx_destroy(c); tt_ctx_destroy(e); return; }
    st = tt_graph_get_stats(g);
    tt_test__eq_int(st.nodes_traced, traced, file, line, "stats.nodes_traced", "traced");
    tt_test__eq_int(tt_graph_num_nodes(g), traced, file, line, "tt_graph_num_nodes(g) before compile", "traced");
    if (!tt_test__eq_int(tt_graph_compile(g, TT_MODE_DEFAULT, passes), TT_OK, file, line, "tt_graph_compile(g)", "TT_OK")) {
        tt_test__str_contains(tt_graph_error(g), "(no error)", file, line, "tt_graph_error(g)");
        tt_graph_destroy(g);                           /* nothing to run */
        tt_ctx_destroy(c);
        tt_ctx_destroy(e);
        return;
    }
    st = tt_graph_get_stats(g);
    tt_test__eq_int(st.nodes_traced, traced, file, line, "stats.nodes_traced after compile", "traced");
    tt_test__eq_int(st.nodes, tt_graph_num_nodes(g), file, line, "stats.nodes", "tt_graph_num_nodes(g)");
    if (nodes >= 0) tt_test__eq_int(tt_graph_num_nodes(g), nodes, file, line, "tt_graph_num_nodes(g)", "nodes");
    if (st.arena_bytes > st.unplanned_bytes) tt_test__fail(file, line, "stats.arena_bytes <= stats.unplanned_bytes");
    if (st.fused_ops < st.fused_nodes || st.max_fused_ops > st.fused_ops)
        tt_test__fail(file, line, "fused_nodes <= fused_ops and max_fused_ops <= fused_ops");
    for (r = 0; r < 3; r++) {
        for (i = 0; i < s->n_in; i++) ins[i] = r == 0 ? xs[i] : ps_input(e, s, i, 500u * (uint64_t)r + 31u * (uint64_t)i, r == 2);
        ps_check_run(g, s, e, ins, file, line);
    }
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards of the trace context");
    if (!tt_ctx_check_guards(e)) tt_test__fail(file, line, "guards of the eager context");
    if (tt_error(e)) tt_test__str_contains(tt_error(e), "(no error)", file, line, "tt_error(e)");
    if (keep) { *keep = g; *keep_ctx = c; }
    else { tt_graph_destroy(g); tt_ctx_destroy(c); }
    tt_ctx_destroy(e);
}
#define PS_CHECK(s, passes, traced, nodes) ps_check((s), (passes), (traced), (nodes), NULL, NULL, __FILE__, __LINE__)
#define PS_CHECK_KEEP(s, passes, traced, nodes, gp, cp) ps_check((s), (passes), (traced), (nodes), (gp), (cp), __FILE__, __LINE__)

static void ps_release(tt_graph *g, tt_ctx *c) {
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

static const unsigned PS_ALL = (unsigned)TT_PASS_ALL;
#define PS_DCE      ((unsigned)TT_PASS_DCE)
#define PS_CSE      ((unsigned)TT_PASS_CSE)
#define PS_FOLD     ((unsigned)TT_PASS_CONST_FOLD)
#define PS_SIMP     ((unsigned)TT_PASS_SIMPLIFY)
#define PS_BN       ((unsigned)TT_PASS_FOLD_BN)
#define PS_EPI      ((unsigned)TT_PASS_EPILOGUE)
#define PS_FUSE     ((unsigned)TT_PASS_FUSE)
#define PS_FREEZE   ((unsigned)TT_PASS_FREEZE)

/* ======================================================================================
 * 1. constant folding
 * ====================================================================================== */

/* x + exp(full(0.5)): 2 nodes; folded: 1. */
static int ps_cf_exp(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t s[2];
    (void)w;
    s[0] = 3; s[1] = 7;
    out[0] = tt_add(c, xs[0], tt_exp(c, tt_full(c, TT_F32, 2, s, 0.5)));
    return 1;
}
/* x * (exp(full[7]) + 1): a chain of two constant ops (3 nodes; folded: 1). */
static int ps_cf_chain(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t s = 7;
    (void)w;
    out[0] = tt_mul(c, xs[0], tt_add_scalar(c, tt_exp(c, tt_full(c, TT_F32, 1, &s, 0.25)), 1.0f));
    return 1;
}
/* x + sum(full([5,7], 0.5), axis 0): a reduction of constants folds too. */
static int ps_cf_sum(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t s[2];
    int ax = 0;
    (void)w;
    s[0] = 5; s[1] = 7;
    out[0] = tt_add(c, xs[0], tt_sum(c, tt_full(c, TT_F32, 2, s, 0.5), &ax, 1, false));
    return 1;
}
/* x + exp(P), P a parameter: folds only when frozen. */
static int ps_cf_param(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    out[0] = tt_add(c, xs[0], tt_exp(c, (tt_tensor *)w));
    return 1;
}

static void test_const_fold(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tt_tensor *p = tu_param2(wc, 3, 3, 7, 0.5f);
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    tt_graph_stats st;

    ps_spec_init(&s, ps_cf_exp, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK_KEEP(&s, 0u, 2, 2, &g, &c);
    if (g) { PS_HAS(g, "exp("); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_FOLD, 2, 1, &g, &c);
    if (g) {
        PS_LACKS(g, "exp(");
        PS_HAS(g, "add(%0, const %");
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.constant_bytes, 3 * 7 * 4);          /* only the folded [3,7] constant is used */
        {   /* against double loops: x + exp(0.5) */
            tt_tensor *x = tt_randn(e, 77, 2, s.shape[0]);
            double want[21];
            float *xv = tu_values(e, x);
            int i;
            CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
            for (i = 0; xv && i < 21; i++) want[i] = (double)xv[i] + exp(0.5);
            {
                float *got = tu_values(e, tt_graph_output(g, 0));
                CHECK_ALLCLOSE(got, want, 21, 1e-6, 2e-6);
                free(got);
            }
            free(xv);
        }
        ps_release(g, c);
    }
    PS_CHECK(&s, PS_ALL, 2, 1);
    PS_CHECK(&s, PS_ALL & ~PS_FOLD, 2, -1);

    ps_spec_init(&s, ps_cf_chain, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, 0u, 3, 3);
    PS_CHECK_KEEP(&s, PS_FOLD, 3, 1, &g, &c);
    if (g) { PS_LACKS(g, "exp("); PS_LACKS(g, "add("); PS_HAS(g, "mul("); ps_release(g, c); }
    PS_CHECK(&s, PS_FOLD | PS_DCE, 3, 1);
    PS_CHECK(&s, PS_ALL, 3, 1);

    ps_spec_init(&s, ps_cf_sum, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, 0u, 2, 2);
    PS_CHECK_KEEP(&s, PS_FOLD, 2, 1, &g, &c);
    if (g) { PS_LACKS(g, "sum("); ps_release(g, c); }

    /* a parameter is not a constant: nothing folds unless frozen */
    ps_spec_init(&s, ps_cf_param, p);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_FOLD, 2, 2, &g, &c);
    if (g) { PS_HAS(g, "exp(param %"); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL & ~PS_FUSE, 2, 2);
    PS_CHECK_KEEP(&s, PS_ALL, 2, 1, &g, &c);               /* not folded, but fused */
    if (g) { PS_HAS(g, "fused{exp, add}"); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_FOLD | PS_FREEZE, 2, 1, &g, &c);
    if (g) { PS_LACKS(g, "exp("); PS_LACKS(g, "param"); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL | PS_FREEZE, 2, 1);
    PS_CHECK(&s, PS_FREEZE, 2, 2);                          /* frozen but not folded */

    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
}

/* ======================================================================================
 * 2. algebraic simplification
 * ====================================================================================== */

/* exp(OP(tanh(x))) for x [3,7], where OP is chosen by *(const int *)w. Modes below
   PS_SIMP_KEEP are no-ops that SIMPLIFY removes; the others must stay. */
enum {
    PS_S_ADD0, PS_S_0ADD, PS_S_MUL1, PS_S_MUL1ROW, PS_S_SUB0, PS_S_DIV1, PS_S_PAD0, PS_S_RESHAPE, PS_S_CAST,
    PS_S_CLONE, PS_S_PERMUTE_ID, PS_S_EXPAND_ID, PS_S_SQUEEZE_NOOP, PS_S_FLATTEN_ID, PS_S_ADDNEG0,
    PS_SIMP_KEEP,
    PS_K_ADDHALF = PS_SIMP_KEEP, PS_K_MUL2, PS_K_0SUB, PS_K_1DIV, PS_K_PAD1, PS_K_CAST_F16, PS_K_ADD0_F16,
    PS_K_ADD0_BCAST, PS_K_MUL1_BCAST,
    PS_S_COUNT
};
static const char *const ps_simp_op[PS_S_COUNT] = {
    "add(", "add(", "mul(", "mul(", "sub(", "div(", "pad(", "reshape(", "cast(",
    "copy(", "permute(", "expand(", "squeeze(", "reshape(", "add(",
    "add(", "mul(", "sub(", "div(", "pad(", "cast(", "add(", "add(", "mul("
};

static int ps_simp_fn(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int mode = *(const int *)w;
    tt_tensor *h = tt_tanh(c, xs[0]), *r = NULL;
    int64_t s[3], pads[4] = {0, 0, 0, 0};
    int perm[2] = {0, 1};
    s[0] = 3; s[1] = 7; s[2] = 1;
    switch (mode) {
    case PS_S_ADD0:        r = tt_add_scalar(c, h, 0.0f); break;
    case PS_S_0ADD:        r = tt_add(c, tt_zeros(c, TT_F32, 2, s), h); break;
    case PS_S_MUL1:        r = tt_mul_scalar(c, h, 1.0f); break;
    case PS_S_MUL1ROW:     r = tt_mul(c, h, tt_ones(c, TT_F32, 1, &s[1])); break;
    case PS_S_SUB0:        r = tt_sub_scalar(c, h, 0.0f); break;
    case PS_S_DIV1:        r = tt_div_scalar(c, h, 1.0f); break;
    case PS_S_PAD0:        r = tt_pad(c, h, pads, 4, 3.0f); break;
    case PS_S_RESHAPE:     r = tt_reshape(c, h, 2, s); break;
    case PS_S_CAST:        r = tt_cast(c, h, TT_F32); break;
    case PS_S_CLONE:       r = tt_clone(c, h); break;
    case PS_S_PERMUTE_ID:  r = tt_permute(c, h, perm); break;
    case PS_S_EXPAND_ID:   s[0] = -1; s[1] = 7; r = tt_expand(c, h, 2, s); break;
    case PS_S_SQUEEZE_NOOP: r = tt_squeeze(c, h, 1); break;          /* size 7: unchanged */
    case PS_S_FLATTEN_ID:  r = tt_flatten(c, h, 1, 1); break;
    case PS_S_ADDNEG0:     r = tt_add_scalar(c, h, -0.0f); break;
    case PS_K_ADDHALF:     r = tt_add_scalar(c, h, 0.5f); break;
    case PS_K_MUL2:        r = tt_mul_scalar(c, h, 2.0f); break;
    case PS_K_0SUB:        r = tt_sub(c, tt_zeros(c, TT_F32, 2, s), h); break;   /* 0 - x is -x */
    case PS_K_1DIV:        r = tt_div(c, tt_ones(c, TT_F32, 0, NULL), h); break; /* 1 / x */
    case PS_K_PAD1:        pads[1] = 1; r = tt_pad(c, h, pads, 4, 0.0f); break;
    case PS_K_CAST_F16:    r = tt_cast(c, h, TT_F16); break;
    case PS_K_ADD0_F16:    r = tt_add_scalar(c, tt_cast(c, h, TT_F16), 0.0f); break;  /* f16 + 0 is f32 */
    case PS_K_ADD0_BCAST:  s[0] = 2; s[1] = 3; s[2] = 7; r = tt_add(c, h, tt_zeros(c, TT_F32, 3, s)); break;
    case PS_K_MUL1_BCAST:  s[0] = 2; s[1] = 1; s[2] = 1; r = tt_mul(c, tt_ones(c, TT_F32, 3, s), h); break;
    default: break;
    }
    out[0] = tt_exp(c, r);
    return 1;
}

/* exp(transpose(transpose(tanh(x)))) */
static int ps_double_transpose(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    (void)w;
    out[0] = tt_exp(c, tt_transpose(c, tt_transpose(c, tt_tanh(c, xs[0]), 0, 1), 0, 1));
    return 1;
}
/* exp(transpose(permute(tanh(x), {1,2,0}), 0, 2)) on [3,5,7]: two permutes that compose to one. */
static int ps_two_permutes(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int perm[3] = {1, 2, 0};
    (void)w;
    out[0] = tt_exp(c, tt_transpose(c, tt_permute(c, tt_tanh(c, xs[0]), perm), 0, 2));
    return 1;
}
/* exp(reshape(contiguous(transpose(x)), [21])): the copy is needed by the reshape. */
static int ps_contig_reshape(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t n = 21;
    (void)w;
    out[0] = tt_exp(c, tt_reshape(c, tt_contiguous(c, tt_transpose(c, xs[0], 0, 1)), 1, &n));
    return 1;
}
/* tanh(x) + zeros[2,3] with x [3]: the add broadcasts, so it is not a no-op. */
static int ps_add0_grows(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t s[2];
    (void)w;
    s[0] = 2; s[1] = 3;
    out[0] = tt_add(c, tt_tanh(c, xs[0]), tt_zeros(c, TT_F32, 2, s));
    return 1;
}
/* tanh(x) * P with P a parameter of ones: not a constant unless frozen. */
static int ps_mul_param_ones(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    out[0] = tt_exp(c, tt_mul(c, tt_tanh(c, xs[0]), (tt_tensor *)w));
    return 1;
}
/* reshape(OP(transpose(x)), [21]) where OP (x+0, x*1, zero pad) makes a contiguous value in
   eager mode; the graph must still run (the reshape needs contiguous memory). */
static int ps_noop_of_view_reshape(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int mode = *(const int *)w;
    int64_t n = 21, pads[2] = {0, 0};
    tt_tensor *t = tt_transpose(c, xs[0], 0, 1), *r;
    r = mode == 0 ? tt_add_scalar(c, t, 0.0f) : mode == 1 ? tt_mul_scalar(c, t, 1.0f) : tt_pad(c, t, pads, 2, 0.0f);
    out[0] = tt_reshape(c, r, 1, &n);
    return 1;
}

static void test_simplify(void) {
    tt_ctx *wc = tu_ctx();
    int64_t ps[2];
    tt_tensor *ones;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    int mode;
    ps[0] = 3; ps[1] = 7;
    ones = tt_ones(wc, TT_F32, 2, ps);

    for (mode = 0; mode < PS_S_COUNT; mode++) {
        int removed = mode < PS_SIMP_KEEP, traced = mode == PS_K_ADD0_F16 ? 4 : 3;
        ps_spec_init(&s, ps_simp_fn, &mode);
        ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
        printf("    simplify mode %d (%s %s)\n", mode, ps_simp_op[mode], removed ? "removed" : "kept");
        PS_CHECK_KEEP(&s, 0u, traced, traced, &g, &c);
        if (g) { PS_HAS(g, ps_simp_op[mode]); ps_release(g, c); }
        PS_CHECK_KEEP(&s, PS_SIMP, traced, removed ? 2 : traced, &g, &c);
        if (g) {
            if (removed) PS_LACKS(g, ps_simp_op[mode]);
            else PS_HAS(g, ps_simp_op[mode]);
            ps_release(g, c);
        }
        PS_CHECK(&s, PS_ALL & ~PS_SIMP, traced, -1);
        /* all passes: tanh and exp fuse once the no-op is gone */
        PS_CHECK(&s, PS_ALL, traced, removed ? 1 : -1);
    }

    /* the double transpose goes; the inner one stays until DCE */
    ps_spec_init(&s, ps_double_transpose, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, 0u, 4, 4);
    PS_CHECK(&s, PS_SIMP, 4, 3);
    PS_CHECK(&s, PS_DCE, 4, 4);
    PS_CHECK_KEEP(&s, PS_SIMP | PS_DCE, 4, 2, &g, &c);
    if (g) { PS_LACKS(g, "permute("); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_ALL, 4, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{tanh, exp}"); ps_release(g, c); }

    /* permute of a permute: one permute */
    ps_spec_init(&s, ps_two_permutes, NULL);
    ps_spec_input(&s, TT_F32, 3, 3, 5, 7, 0);
    PS_CHECK(&s, 0u, 4, 4);
    PS_CHECK_KEEP(&s, PS_SIMP | PS_DCE, 4, 3, &g, &c);
    if (g) {
        char *t = ps_text(g);
        CHECK_EQ_INT(ps_count(t, "permute("), 1);
        free(t);
        ps_release(g, c);
    }

    /* must NOT be simplified */
    ps_spec_init(&s, ps_contig_reshape, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, 0u, 4, 4);
    PS_CHECK_KEEP(&s, PS_SIMP | PS_DCE, 4, 4, &g, &c);
    if (g) { PS_HAS(g, "copy("); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL, 4, 4);

    ps_spec_init(&s, ps_add0_grows, NULL);
    ps_spec_input(&s, TT_F32, 1, 3, 0, 0, 0);
    PS_CHECK_KEEP(&s, PS_SIMP | PS_DCE, 2, 2, &g, &c);
    if (g) { PS_HAS(g, "add("); PS_HAS(g, ": f32[2,3]"); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL, 2, -1);

    ps_spec_init(&s, ps_mul_param_ones, ones);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, PS_SIMP | PS_DCE, 3, 3);
    PS_CHECK_KEEP(&s, PS_SIMP | PS_DCE | PS_FREEZE, 3, 2, &g, &c);
    if (g) { PS_LACKS(g, "mul("); ps_release(g, c); }

    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* x+0, x*1 and zero pads of a transposed view give a contiguous value eagerly; a reshape of
   that value must still work in the graph (the no-op may only go if the reshape can view). */
static void test_simplify_noop_of_view(void) {
    ps_spec s;
    int mode;
    for (mode = 0; mode < 3; mode++) {
        ps_spec_init(&s, ps_noop_of_view_reshape, &mode);
        ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
        printf("    no-op of a view, mode %d (%s)\n", mode, mode == 0 ? "x+0" : mode == 1 ? "x*1" : "zero pad");
        PS_CHECK(&s, 0u, 3, 3);
        PS_CHECK(&s, PS_SIMP, 3, -1);
        PS_CHECK(&s, PS_ALL, 3, -1);
    }
}

/* exp(tanh(x) + zeros*3): folding makes the zero constant, then x+0 goes (design order:
   constant folding, then simplification). */
static int ps_fold_then_simplify(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int64_t s[2];
    (void)w;
    s[0] = 3; s[1] = 7;
    out[0] = tt_exp(c, tt_add(c, tt_tanh(c, xs[0]), tt_mul_scalar(c, tt_zeros(c, TT_F32, 2, s), 3.0f)));
    return 1;
}

static void test_simplify_after_fold(void) {
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    ps_spec_init(&s, ps_fold_then_simplify, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
    PS_CHECK(&s, 0u, 4, 4);
    PS_CHECK(&s, PS_FOLD, 4, 3);
    PS_CHECK_KEEP(&s, PS_FOLD | PS_SIMP | PS_DCE, 4, 2, &g, &c);
    if (g) { PS_LACKS(g, "add("); ps_release(g, c); }
}

/* ======================================================================================
 * 3. common subexpressions
 * ====================================================================================== */

/* tanh(2x) + tanh(2x): 5 nodes, 3 after CSE (the two scalar 2s are equal constants). */
static int ps_cse_repeat(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *a, *b;
    (void)w;
    a = tt_tanh(c, tt_mul_scalar(c, xs[0], 2.0f));
    b = tt_tanh(c, tt_mul_scalar(c, xs[0], 2.0f));
    out[0] = tt_add(c, a, b);
    return 1;
}

/* (x + A) * (x + B) with constants A, B chosen by mode. */
static int ps_cse_consts(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int mode = *(const int *)w;
    int64_t s37[2], s17[2], s7 = 7;
    tt_tensor *a, *b;
    s37[0] = 3; s37[1] = 7; s17[0] = 1; s17[1] = 7;
    switch (mode) {
    case 0:  a = tt_full(c, TT_F32, 2, s37, 0.25); b = tt_full(c, TT_F32, 2, s37, 0.25); break;  /* equal */
    case 1:  a = tt_full(c, TT_F32, 2, s37, 0.25); b = tt_full(c, TT_F32, 2, s37, 0.5); break;   /* values */
    case 2:  a = tt_full(c, TT_F32, 1, &s7, 0.25); b = tt_full(c, TT_F32, 2, s17, 0.25); break;  /* shapes */
    case 3:  a = tt_full(c, TT_F32, 2, s37, 0.25); b = tt_full(c, TT_F16, 2, s37, 0.25); break;  /* dtypes */
    default: a = tt_scalar(c, 0.5f); b = tt_scalar(c, 0.5f); break;                              /* 0-d */
    }
    out[0] = tt_mul(c, tt_add(c, xs[0], a), tt_add(c, xs[0], b));
    return 1;
}

static void test_cse(void) {
    static const int merged[5] = {1, 0, 0, 0, 1};
    static const long long bytes_cse[5] = {84, 168, 56, 126, 4}, bytes_all[5] = {168, 168, 56, 126, 8};
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    int mode;

    ps_spec_init(&s, ps_cse_repeat, NULL);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    PS_CHECK(&s, 0u, 5, 5);
    PS_CHECK(&s, PS_DCE, 5, 5);
    PS_CHECK_KEEP(&s, PS_CSE, 5, 3, &g, &c);
    if (g) {
        char *t = ps_text(g);
        CHECK_EQ_INT(ps_count(t, "tanh("), 1);
        CHECK_EQ_INT(ps_count(t, "mul("), 1);
        CHECK_EQ_INT(tt_graph_get_stats(g).constant_bytes, 4);   /* one scalar 2 */
        free(t);
        ps_release(g, c);
    }
    PS_CHECK(&s, PS_CSE | PS_DCE, 5, 3);
    PS_CHECK_KEEP(&s, PS_ALL, 5, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{mul, tanh, add}"); PS_FUSED(g, 1, 3, 3); ps_release(g, c); }

    for (mode = 0; mode < 5; mode++) {
        ps_spec_init(&s, ps_cse_consts, &mode);
        ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);
        printf("    cse constants, mode %d\n", mode);
        PS_CHECK_KEEP(&s, 0u, 3, 3, &g, &c);
        if (g) { CHECK_EQ_INT(tt_graph_get_stats(g).constant_bytes, bytes_all[mode]); ps_release(g, c); }
        PS_CHECK_KEEP(&s, PS_CSE, 3, merged[mode] ? 2 : 3, &g, &c);
        if (g) {
            char *t = ps_text(g);
            CHECK_EQ_INT(ps_count(t, "add("), merged[mode] ? 1 : 2);
            CHECK_EQ_INT(tt_graph_get_stats(g).constant_bytes, bytes_cse[mode]);
            free(t);
            ps_release(g, c);
        }
    }
}

/* ======================================================================================
 * 4. batch-norm folding
 * ====================================================================================== */

enum { PS_BN_CONV, PS_BN_CONV_NOBIAS, PS_BN_LINEAR, PS_BN_LINEAR_PLAIN, PS_BN_CONV_RELU, PS_BN_CONV_TWICE,
       PS_BN_LINEAR_3D, PS_BN_KINDS };

typedef struct ps_bn_w {
    int kind;
    int cin, cout;                 /* conv: channels; linear: in/out features */
    tt_tensor *w, *b, *mean, *var, *gamma, *beta;
    float eps;
} ps_bn_w;

static ps_bn_w ps_bn_make(tt_ctx *wc, int kind, uint64_t seed) {
    ps_bn_w p;
    int64_t ws[4];
    int64_t nc;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.eps = 1e-3f;
    if (kind == PS_BN_LINEAR || kind == PS_BN_LINEAR_PLAIN || kind == PS_BN_LINEAR_3D) {
        p.cin = 7; p.cout = 4;
        p.w = tu_param2(wc, seed, 4, 7, 0.4f);
        p.b = tu_param1(wc, seed + 1, 4, 0.3f, 0.0f);
    } else {
        p.cin = 3; p.cout = 5;
        ws[0] = 5; ws[1] = 3; ws[2] = 3; ws[3] = 3;
        p.w = tu_param(wc, seed, 4, ws, 0.3f, 0.0f);
        p.b = kind == PS_BN_CONV_NOBIAS ? NULL : tu_param1(wc, seed + 1, 5, 0.3f, 0.0f);
    }
    nc = kind == PS_BN_LINEAR_3D ? 3 : p.cout;          /* bn over axis 1 */
    p.mean = tu_param1(wc, seed + 2, nc, 0.5f, 0.0f);
    p.var = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &nc), 0.3f);
    if (kind != PS_BN_LINEAR_PLAIN) {
        p.gamma = tu_param1(wc, seed + 4, nc, 0.5f, 1.0f);
        p.beta = tu_param1(wc, seed + 5, nc, 0.2f, 0.0f);
    }
    return p;
}

static int ps_bn_fn(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_bn_w *p = (const ps_bn_w *)w;
    tt_tensor *h;
    if (p->kind == PS_BN_LINEAR || p->kind == PS_BN_LINEAR_PLAIN || p->kind == PS_BN_LINEAR_3D)
        h = tt_linear(c, xs[0], p->w, p->b);
    else
        h = tt_conv2d(c, xs[0], p->w, p->b, 1, 1, 1, 1);
    out[0] = tt_batch_norm(c, h, p->mean, p->var, p->gamma, p->beta, p->eps);
    if (p->kind == PS_BN_CONV_RELU) out[0] = tt_relu(c, out[0]);
    if (p->kind == PS_BN_CONV_TWICE) out[0] = tt_add(c, out[0], h);
    return 1;
}

static void ps_bn_spec(ps_spec *s, ps_bn_w *p) {
    ps_spec_init(s, ps_bn_fn, p);
    if (p->kind == PS_BN_LINEAR || p->kind == PS_BN_LINEAR_PLAIN) ps_spec_input(s, TT_F32, 2, 9, 7, 0, 0);
    else if (p->kind == PS_BN_LINEAR_3D) ps_spec_input(s, TT_F32, 3, 2, 3, 7, 0);
    else ps_spec_input(s, TT_F32, 4, 2, 3, 7, 6);
}

/* Double-precision reference of the conv/linear + batch norm (+ relu) for the foldable kinds;
   mag[i] is the scale of the terms of element i (for the tolerance). */
static void ps_bn_reference(tt_ctx *e, const ps_bn_w *p, const tt_tensor *x, double *want, double *mag) {
    float *xv = tu_values(e, x), *wv = tu_values(e, p->w), *bv = p->b ? tu_values(e, p->b) : NULL;
    float *mv = tu_values(e, p->mean), *vv = tu_values(e, p->var);
    float *gv = p->gamma ? tu_values(e, p->gamma) : NULL, *betav = p->beta ? tu_values(e, p->beta) : NULL;
    int linear = p->kind == PS_BN_LINEAR || p->kind == PS_BN_LINEAR_PLAIN;
    int64_t N = x->shape[0], o, n, i, j, k, ci, di, dj;
    int64_t H = linear ? 1 : x->shape[2], W = linear ? 1 : x->shape[3];
    if (!xv || !wv || !mv || !vv) { tt_test__fail(__FILE__, __LINE__, "bn reference inputs"); goto done; }
    for (n = 0; n < N; n++)
        for (o = 0; o < p->cout; o++) {
            double sc = (gv ? (double)gv[o] : 1.0) / sqrt((double)vv[o] + (double)p->eps);
            double beta = betav ? (double)betav[o] : 0.0;
            for (i = 0; i < H; i++)
                for (j = 0; j < W; j++) {
                    double acc = bv ? (double)bv[o] : 0.0, m = fabs(acc), y;
                    int64_t at = ((n * p->cout + o) * H + i) * W + j;
                    if (linear) {
                        for (k = 0; k < p->cin; k++) {
                            double t = (double)wv[o * p->cin + k] * (double)xv[n * p->cin + k];
                            acc += t; m += fabs(t);
                        }
                    } else {
                        for (ci = 0; ci < p->cin; ci++)
                            for (di = 0; di < 3; di++)
                                for (dj = 0; dj < 3; dj++) {
                                    int64_t yy = i + di - 1, xx = j + dj - 1;
                                    double t;
                                    if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                                    t = (double)wv[((o * p->cin + ci) * 3 + di) * 3 + dj] *
                                        (double)xv[((n * p->cin + ci) * H + yy) * W + xx];
                                    acc += t; m += fabs(t);
                                }
                    }
                    y = (acc - (double)mv[o]) * sc + beta;
                    mag[at] = fabs(sc) * (m + fabs((double)mv[o])) + fabs(beta);
                    if (p->kind == PS_BN_CONV_RELU && y < 0.0) y = 0.0;
                    want[at] = y;
                }
        }
done:
    free(xv); free(wv); free(bv); free(mv); free(vv); free(gv); free(betav);
}

/* |got - want| <= 1e-5 * (|want| + mag) for every element. */
static int ps_close_scaled(const float *got, const double *want, const double *mag, long long n, const char *what,
                           const char *file, int line) {
    long long i, bad = 0, first = -1;
    if (!got) return tt_test__fail(file, line, "values are NULL");
    for (i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= 1e-5 * (fabs(want[i]) + mag[i]))) { if (first < 0) first = i; bad++; }
    if (!bad) return 1;
    printf("    %s:%d: %s: %lld of %lld differ by more than 1e-5 of the scale; first [%lld]: got %.9g, want %.9g (scale %g)\n",
           file, line, what, bad, n, first, (double)got[first], want[first], mag[first]);
    return tt_test__fail(file, line, what);
}

/* The frozen, folded graph against eager (1e-5 of the scale) and against double loops. */
static void ps_bn_check_folded(tt_graph *g, ps_bn_w *p, const ps_spec *s, tt_ctx *e, uint64_t seed) {
    tt_tensor *x = ps_input(e, s, 0, seed, 0), *ref, *out;
    float *got, *eager, *again;
    double *want, *mag, *mag_e;
    long long n, i;
    if (!CHECK(x != NULL)) return;
    ps_bn_fn(e, &x, p, &ref);
    if (!CHECK(ref != NULL)) return;
    n = ref->numel;
    if (!CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK)) { tt_graph_clear_error(g); return; }
    out = tt_graph_output(g, 0);
    if (!CHECK(out != NULL) || !CHECK(tt_same_shape(out, ref))) return;
    got = tu_values(e, out);
    eager = tu_values(e, ref);
    want = (double *)malloc(sizeof(double) * (size_t)n);
    mag = (double *)malloc(sizeof(double) * (size_t)n);
    mag_e = (double *)malloc(sizeof(double) * (size_t)n);
    if (got && eager && want && mag && mag_e) {
        for (i = 0; i < n; i++) { want[i] = (double)eager[i]; }
        ps_bn_reference(e, p, x, mag_e, mag);         /* mag_e: the double reference */
        ps_close_scaled(got, want, mag, n, "folded graph vs eager", __FILE__, __LINE__);
        ps_close_scaled(got, mag_e, mag, n, "folded graph vs double loops", __FILE__, __LINE__);
        ps_close_scaled(eager, mag_e, mag, n, "eager vs double loops", __FILE__, __LINE__);
        /* the same run with POISON: bitwise the same */
        tt_graph_set_debug(g, (unsigned)TT_DEBUG_POISON);
        if (CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK)) {
            again = tu_values(e, tt_graph_output(g, 0));
            CHECK(again && memcmp(again, got, sizeof(float) * (size_t)n) == 0);
            free(again);
        }
        tt_graph_set_debug(g, 0u);
    } else {
        CHECK(0 && "allocation");
    }
    free(got); free(eager); free(want); free(mag); free(mag_e);
}

static void test_fold_bn(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    int kind;
    for (kind = 0; kind < PS_BN_KINDS; kind++) {
        ps_bn_w p = ps_bn_make(wc, kind, 100u + 10u * (uint64_t)kind);
        int folds = kind != PS_BN_CONV_TWICE && kind != PS_BN_LINEAR_3D;
        int traced = kind == PS_BN_CONV_RELU || kind == PS_BN_CONV_TWICE ? 3 : 2;
        ps_spec s;
        tt_graph *g;
        tt_ctx *c;
        tt_graph_stats st;
        printf("    fold_bn kind %d\n", kind);
        ps_bn_spec(&s, &p);

        /* not frozen: parameters are not constants, the batch norm stays (bitwise eager) */
        PS_CHECK_KEEP(&s, PS_ALL, traced, traced, &g, &c);
        if (g) {
            PS_HAS(g, "batch_norm(");
            CHECK_EQ_INT(tt_graph_get_stats(g).constant_bytes, 0);
            ps_release(g, c);
        }
        PS_CHECK(&s, PS_BN, traced, traced);
        PS_CHECK(&s, 0u, traced, traced);

        if (!folds) {                                  /* frozen, but not foldable: bitwise eager */
            PS_CHECK_KEEP(&s, PS_ALL | PS_FREEZE, traced, traced, &g, &c);
            if (g) { PS_HAS(g, "batch_norm("); ps_release(g, c); }
            continue;
        }
        PS_CHECK(&s, PS_FREEZE, traced, traced);       /* frozen, not folded: bitwise eager */

        /* frozen and folded */
        c = tu_ctx();
        {
            tt_tensor *xs[PS_MAX_IO];
            unsigned bits[2];
            int k;
            bits[0] = PS_ALL | PS_FREEZE;
            bits[1] = PS_BN | PS_FREEZE;
            for (k = 0; k < 2; k++) {
                g = ps_trace(&s, c, 5, xs, __FILE__, __LINE__);
                if (!g) continue;
                CHECK_EQ_INT(tt_graph_get_stats(g).nodes_traced, traced);
                CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, bits[k]), TT_OK);
                st = tt_graph_get_stats(g);
                CHECK_EQ_INT(tt_graph_num_nodes(g), kind == PS_BN_CONV_RELU && k == 1 ? 2 : 1);
                CHECK(st.arena_bytes <= st.unplanned_bytes);
                PS_LACKS(g, "batch_norm(");
                PS_LACKS(g, "param");                  /* the graph reads no parameter */
                /* the folded weight and bias are the only constants used */
                CHECK_EQ_INT(st.constant_bytes, 4 * (p.w->numel + p.cout));
                if (kind == PS_BN_CONV_RELU && k == 0) PS_HAS(g, "fused{conv2d | relu}");
                ps_bn_check_folded(g, &p, &s, e, 5);
                ps_bn_check_folded(g, &p, &s, e, 900);
                tt_graph_destroy(g);
            }
        }
        CHECK_GUARDS(c);
        tt_ctx_destroy(c);
    }
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
}

/* Frozen graphs copy the parameters: changing a weight after compile changes the unfrozen
   graph's result (to the eager result with the new weight), not the frozen one's. */
static void test_freeze_param_change(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx(), *c = tu_ctx();
    ps_bn_w p = ps_bn_make(wc, PS_BN_CONV, 40);
    ps_spec s;
    tt_tensor *xs[PS_MAX_IO], *x, *ref;
    tt_graph *gf, *gu;
    float *f1 = NULL, *u1 = NULL, *wd;
    long long n = 0, i, changed = 0;
    ps_bn_spec(&s, &p);
    gf = ps_trace(&s, c, 8, xs, __FILE__, __LINE__);
    gu = ps_trace(&s, c, 8, xs, __FILE__, __LINE__);
    x = ps_input(e, &s, 0, 61, 0);
    if (!gf || !gu || !x) { CHECK(0 && "setup"); goto done; }
    CHECK_EQ_INT(tt_graph_compile(gf, TT_MODE_DEFAULT, PS_ALL | PS_FREEZE), TT_OK);
    CHECK_EQ_INT(tt_graph_compile(gu, TT_MODE_DEFAULT, PS_ALL), TT_OK);
    CHECK_EQ_INT(tt_graph_num_nodes(gf), 1);
    CHECK_EQ_INT(tt_graph_num_nodes(gu), 2);
    CHECK_EQ_INT(tt_graph_run(gf, &x, 1), TT_OK);
    CHECK_EQ_INT(tt_graph_run(gu, &x, 1), TT_OK);
    f1 = tu_values(e, tt_graph_output(gf, 0));
    u1 = tu_values(e, tt_graph_output(gu, 0));
    if (!f1 || !u1) { CHECK(0 && "outputs"); goto done; }
    n = tt_graph_output(gf, 0)->numel;

    /* change the conv weight and the running mean in place */
    wd = (float *)tt_data(p.w);
    for (i = 0; i < p.w->numel; i++) wd[i] += 0.25f;
    wd = (float *)tt_data(p.mean);
    for (i = 0; i < p.mean->numel; i++) wd[i] -= 0.5f;

    CHECK_EQ_INT(tt_graph_run(gf, &x, 1), TT_OK);
    ps_same_as_values(e, tt_graph_output(gf, 0), f1, n, __FILE__, __LINE__);   /* frozen: unchanged */
    CHECK_EQ_INT(tt_graph_run(gu, &x, 1), TT_OK);
    {
        float *u2 = tu_values(e, tt_graph_output(gu, 0));
        for (i = 0; u2 && i < n; i++) changed += u2[i] != u1[i];
        CHECK(changed > n / 2);                        /* unfrozen: sees the new weights */
        free(u2);
    }
    ps_bn_fn(e, &x, &p, &ref);
    CHECK_SAME_BITS(e, tt_graph_output(gu, 0), ref);     /* = eager with the new weights */
    /* a frozen graph traced and compiled now sees the new weights */
    {
        tt_graph *g2 = ps_trace(&s, c, 8, xs, __FILE__, __LINE__);
        if (g2 && CHECK_EQ_INT(tt_graph_compile(g2, TT_MODE_DEFAULT, PS_ALL | PS_FREEZE), TT_OK))
            ps_bn_check_folded(g2, &p, &s, e, 61);
        tt_graph_destroy(g2);
    }
done:
    free(f1);
    free(u1);
    tt_graph_destroy(gf);
    tt_graph_destroy(gu);
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    CHECK_GUARDS(c);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
    tt_ctx_destroy(c);
}

/* ======================================================================================
 * 5. epilogue fusion
 * ====================================================================================== */

typedef struct ps_ep_w {
    int mode;
    tt_tensor *w, *b, *convw, *cbias, *mw, *big;
    tt_tensor *w2, *b2, *convw2, *cbias2, *dww, *dwb;   /* shapes for the packed SGEMM and depthwise */
} ps_ep_w;

enum { PS_EP_LINEAR_RELU, PS_EP_CONV, PS_EP_MATMUL, PS_EP_MATMUL_BATCHED, PS_EP_OUTPUT, PS_EP_USED, PS_EP_TWICE,
       PS_EP_BIGGER, PS_EP_LINEAR_BIG, PS_EP_CONV_RELU, PS_EP_DEPTHWISE_RELU, PS_EP_COUNT };

static int ps_ep_fn(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_ep_w *p = (const ps_ep_w *)w;
    tt_tensor *l;
    int ax = -1;
    switch (p->mode) {
    case PS_EP_CONV:
        out[0] = tt_relu(c, tt_add(c, tt_conv2d(c, xs[0], p->convw, NULL, 1, 1, 1, 1), p->cbias));
        return 1;
    case PS_EP_MATMUL: case PS_EP_MATMUL_BATCHED:
        out[0] = tt_mul_scalar(c, tt_tanh(c, tt_matmul(c, xs[0], p->mw)), 0.5f);
        return 1;
    case PS_EP_LINEAR_BIG:
        out[0] = tt_relu(c, tt_linear(c, xs[0], p->w2, p->b2));
        return 1;
    case PS_EP_CONV_RELU:
        out[0] = tt_relu(c, tt_conv2d(c, xs[0], p->convw2, p->cbias2, 1, 1, 1, 1));
        return 1;
    case PS_EP_DEPTHWISE_RELU:
        out[0] = tt_relu(c, tt_conv2d(c, xs[0], p->dww, p->dwb, 1, 1, 1, 8));
        return 1;
    default: break;
    }
    l = tt_linear(c, xs[0], p->w, p->b);
    switch (p->mode) {
    case PS_EP_OUTPUT: out[0] = tt_relu(c, l); out[1] = l; return 2;
    case PS_EP_USED:   out[0] = tt_relu(c, l); out[1] = tt_sum(c, l, &ax, 1, false); return 2;
    case PS_EP_TWICE:  out[0] = tt_mul(c, tt_relu(c, l), l); return 1;
    case PS_EP_BIGGER: out[0] = tt_relu(c, tt_add(c, l, p->big)); return 1;
    default:           out[0] = tt_relu(c, l); return 1;
    }
}

static void test_epilogue(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    ps_ep_w p;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    int64_t sh[4];
    memset(&p, 0, sizeof p);
    p.w = tu_param2(wc, 1, 4, 7, 0.4f);
    p.b = tu_param1(wc, 2, 4, 0.3f, 0.0f);
    sh[0] = 5; sh[1] = 3; sh[2] = 3; sh[3] = 3;
    p.convw = tu_param(wc, 3, 4, sh, 0.3f, 0.0f);
    sh[0] = 5; sh[1] = 1; sh[2] = 1;
    p.cbias = tu_param(wc, 4, 3, sh, 0.3f, 0.0f);       /* [C,1,1] broadcast over [N,C,H,W] */
    p.mw = tu_param2(wc, 5, 7, 3, 0.4f);
    sh[0] = 3; sh[1] = 9; sh[2] = 4;
    p.big = tu_param(wc, 6, 3, sh, 1.0f, 0.0f);
    p.w2 = tu_param2(wc, 7, 100, 50, 0.2f);
    p.b2 = tu_param1(wc, 8, 100, 0.3f, 0.0f);
    sh[0] = 16; sh[1] = 8; sh[2] = 3; sh[3] = 3;
    p.convw2 = tu_param(wc, 9, 4, sh, 0.2f, 0.0f);
    p.cbias2 = tu_param1(wc, 10, 16, 0.3f, 0.0f);
    sh[0] = 8; sh[1] = 1; sh[2] = 3; sh[3] = 3;
    p.dww = tu_param(wc, 11, 4, sh, 0.3f, 0.0f);
    p.dwb = tu_param1(wc, 12, 8, 0.3f, 0.0f);

    /* linear -> relu */
    p.mode = PS_EP_LINEAR_RELU;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK(&s, 0u, 2, 2);
    PS_CHECK_KEEP(&s, PS_ALL, 2, 1, &g, &c);
    if (g) {
        PS_HAS(g, "fused{linear | relu}");
        PS_FUSED(g, 1, 1, 1);
        {   /* against double loops */
            tt_tensor *x = tt_randn(e, 71, 2, s.shape[0]);
            float *xv = tu_values(e, x), *wv = tu_values(e, p.w), *bv = tu_values(e, p.b), *got;
            double want[36], tol[36];
            int n, o, k;
            CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
            got = tu_values(e, tt_graph_output(g, 0));
            for (n = 0; xv && wv && bv && n < 9; n++)
                for (o = 0; o < 4; o++) {
                    double acc = bv[o], m = fabs((double)bv[o]);
                    for (k = 0; k < 7; k++) { acc += (double)wv[o * 7 + k] * xv[n * 7 + k]; m += fabs((double)wv[o * 7 + k] * xv[n * 7 + k]); }
                    want[n * 4 + o] = acc > 0.0 ? acc : 0.0;
                    tol[n * 4 + o] = 1e-6 * m;
                }
            for (n = 0; got && n < 36; n++) if (!CHECK_NEAR(got[n], want[n], tol[n], 1e-6)) break;
            free(xv); free(wv); free(bv); free(got);
        }
        ps_release(g, c);
    }
    PS_CHECK_KEEP(&s, PS_FUSE | PS_DCE, 2, 2, &g, &c);         /* no EPILOGUE: a lone relu is not fused */
    if (g) { PS_LACKS(g, "fused{"); PS_FUSED(g, 0, 0, 0); ps_release(g, c); }
    PS_CHECK(&s, PS_EPI | PS_FUSE, 2, 1);

    /* A lone ReLU after a linear or a convolution runs in the GEMM's epilogue, tile by tile:
       products large enough for the packed SGEMM (edge tiles, tiles across two images of a
       batched convolution), the small direct loops above, and depthwise convolution. */
    p.mode = PS_EP_LINEAR_BIG;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 70, 50, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK_KEEP(&s, PS_ALL, 2, 1, &g, &c);
    if (g) {
        PS_HAS(g, "fused{linear | relu}");
        {   /* against double loops */
            tt_tensor *x = tt_randn(e, 72, 2, s.shape[0]);
            float *xv = tu_values(e, x), *wv = tu_values(e, p.w2), *bv = tu_values(e, p.b2), *got;
            int n, o, k, bad = 0;
            CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
            got = tu_values(e, tt_graph_output(g, 0));
            for (n = 0; got && xv && wv && bv && n < 70 && !bad; n++)
                for (o = 0; o < 100 && !bad; o++) {
                    double acc = bv[o], m = fabs((double)bv[o]);
                    for (k = 0; k < 50; k++) { acc += (double)wv[o * 50 + k] * xv[n * 50 + k]; m += fabs((double)wv[o * 50 + k] * xv[n * 50 + k]); }
                    bad = !CHECK_NEAR(got[n * 100 + o], acc > 0.0 ? acc : 0.0, 1e-6 * m, 1e-6);
                }
            free(xv); free(wv); free(bv); free(got);
        }
        ps_release(g, c);
    }
    p.mode = PS_EP_CONV_RELU;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 4, 3, 8, 16, 16);
    PS_CHECK_KEEP(&s, PS_ALL, 2, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{conv2d | relu}"); ps_release(g, c); }
    p.mode = PS_EP_DEPTHWISE_RELU;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 4, 2, 8, 9, 7);
    PS_CHECK_KEEP(&s, PS_ALL, 2, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{conv2d | relu}"); ps_release(g, c); }

    /* conv2d -> add bias -> relu */
    p.mode = PS_EP_CONV;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 4, 2, 3, 7, 6);
    PS_CHECK(&s, 0u, 3, 3);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{conv2d | add, relu}"); PS_FUSED(g, 1, 2, 2); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_FUSE, 3, 2, &g, &c);
    if (g) { PS_HAS(g, "fused{add, relu}"); ps_release(g, c); }

    /* matmul -> tanh -> mul */
    p.mode = PS_EP_MATMUL;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{matmul | tanh, mul}"); PS_FUSED(g, 1, 2, 2); ps_release(g, c); }
    p.mode = PS_EP_MATMUL_BATCHED;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 3, 2, 9, 7, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{matmul | tanh, mul}"); ps_release(g, c); }

    /* the linear is also a graph output: not absorbed */
    p.mode = PS_EP_OUTPUT;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 2, 2, &g, &c);
    if (g) { PS_LACKS(g, "fused{linear"); ps_release(g, c); }
    /* the linear is read by a sum too: not absorbed */
    p.mode = PS_EP_USED;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 3, &g, &c);
    if (g) { PS_LACKS(g, "fused{linear"); ps_release(g, c); }
    /* read twice, both times inside the group: absorbed */
    p.mode = PS_EP_TWICE;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{linear | relu, mul}"); ps_release(g, c); }
    /* the group has a bigger (broadcast) shape than the linear: not absorbed */
    p.mode = PS_EP_BIGGER;
    ps_spec_init(&s, ps_ep_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 9, 7, 0, 0);
    PS_CHECK_KEEP(&s, PS_ALL, 3, 2, &g, &c);
    if (g) { PS_HAS(g, "fused{add, relu}"); PS_LACKS(g, "fused{linear"); ps_release(g, c); }

    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
}

/* ======================================================================================
 * 6. elementwise fusion
 * ====================================================================================== */

/* ((tanh(x*1.5+0.5) * sigmoid(x)) - x*x) * 0.25: 8 elementwise ops. */
static int ps_chain8(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *x = xs[0], *t, *sg, *p, *q;             /* one statement per op: a fixed tape order */
    (void)w;
    t = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, x, 1.5f), 0.5f));
    sg = tt_sigmoid(c, x);
    p = tt_mul(c, t, sg);
    q = tt_mul(c, x, x);
    out[0] = tt_mul_scalar(c, tt_sub(c, p, q), 0.25f);
    return 1;
}
/* 30 ops: tanh and *1.25 alternating. */
static int ps_chain30(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *h = xs[0];
    int i;
    (void)w;
    for (i = 0; i < 15; i++) h = tt_mul_scalar(c, tt_tanh(c, h), 1.25f);
    out[0] = h;
    return 1;
}
/* x + p1 + ... + p20: more inputs than one fused node may take. */
static int ps_chain_inputs(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *const *ps = (tt_tensor *const *)w;
    tt_tensor *h = xs[0];
    int i;
    for (i = 0; i < 20; i++) h = tt_add(c, h, ps[i]);
    out[0] = h;
    return 1;
}
/* tanh(2x+1) -> sum over the row -> exp(x - s) * 0.5: the reduction splits the chain. */
static int ps_sum_break(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    int ax = -1;
    tt_tensor *a = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, xs[0], 2.0f), 1.0f));
    tt_tensor *s = tt_sum(c, a, &ax, 1, true);
    (void)w;
    out[0] = tt_mul_scalar(c, tt_exp(c, tt_sub(c, xs[0], s)), 0.5f);
    return 1;
}
/* tanh(2x+1) -> matmul W -> sigmoid * 0.5 - x */
static int ps_matmul_break(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *a = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, xs[0], 2.0f), 1.0f));
    tt_tensor *m = tt_matmul(c, a, (tt_tensor *)w);
    out[0] = tt_sub(c, tt_mul_scalar(c, tt_sigmoid(c, m), 0.5f), xs[0]);
    return 1;
}
/* t = tanh(1.5x) is read inside the chain (exp(t) - t) and by a later matmul. mode 0: outputs
   {z, t@W}; mode 1: one output t@W + z; mode 2: the matmul comes between t and exp(t). */
typedef struct ps_store_w { int mode; tt_tensor *w; } ps_store_w;
static int ps_stored(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_store_w *p = (const ps_store_w *)w;
    tt_tensor *t = tt_tanh(c, tt_mul_scalar(c, xs[0], 1.5f)), *z, *m;
    if (p->mode == 2) {
        m = tt_matmul(c, t, p->w);
        z = tt_sub(c, tt_exp(c, t), t);
        out[0] = tt_add(c, m, z);
        return 1;
    }
    z = tt_sub(c, tt_exp(c, t), t);
    m = tt_matmul(c, t, p->w);
    if (p->mode == 0) { out[0] = z; out[1] = m; return 2; }
    out[0] = tt_add(c, m, z);
    return 1;
}
/* Siblings that read only the input: three outputs. */
static int ps_siblings(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    (void)w;
    out[0] = tt_exp(c, xs[0]);
    out[1] = tt_sin(c, xs[0]);
    out[2] = tt_neg(c, xs[0]);
    return 3;
}
/* f16 input, a bf16 row, an f16 result. */
static int ps_half_chain(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *x = xs[0];
    tt_tensor *t = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, x, 2.0f), 1.0f));
    out[0] = tt_cast(c, tt_add(c, tt_mul(c, t, tt_sigmoid(c, x)), (tt_tensor *)w), TT_F16);
    return 1;
}
/* Broadcast operands inside a chain: a row [C], a column [N,1], a 0-d scalar; a comparison and
   a where. */
typedef struct ps_bc_w { tt_tensor *row, *col, *sc; } ps_bc_w;
static int ps_broadcast_chain(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_bc_w *p = (const ps_bc_w *)w;
    tt_tensor *y = tt_add(c, tt_relu(c, tt_mul(c, tt_add(c, xs[0], p->row), p->col)), p->sc);
    tt_tensor *gt = tt_gt(c, y, p->row), *small = tt_mul_scalar(c, y, 0.1f);
    out[0] = tt_where(c, gt, y, small);
    return 1;
}
/* A wide row (longer than a chunk) times a column, plus the column. */
static int ps_wide_col(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *col = (tt_tensor *)w;
    out[0] = tt_add(c, tt_tanh(c, tt_mul(c, xs[0], col)), col);
    return 1;
}

static void test_fuse_chain(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tt_tensor *pin[20];
    int64_t row = 41;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    int i;

    ps_spec_init(&s, ps_chain8, NULL);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK_KEEP(&s, 0u, 8, 8, &g, &c);
    if (g) { PS_FUSED(g, 0, 0, 0); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_FUSE, 8, 1, &g, &c);
    if (g) {
        PS_FUSED(g, 1, 8, 8);
        PS_HAS(g, "fused{mul, add, tanh, sigmoid, mul, mul, sub, mul}");
        {   /* against double loops */
            int64_t sh[2];
            tt_tensor *x;
            float *xv, *got;
            double *want = (double *)malloc(sizeof(double) * 33 * 41), *tol = (double *)malloc(sizeof(double) * 33 * 41);
            sh[0] = 33; sh[1] = 41;
            x = tt_randn(e, 313, 2, sh);
            xv = tu_values(e, x);
            CHECK_EQ_INT(tt_graph_run(g, &x, 1), TT_OK);
            got = tu_values(e, tt_graph_output(g, 0));
            for (i = 0; xv && want && tol && i < 33 * 41; i++) {
                double v = xv[i], t = tanh(1.5 * v + 0.5), sg = 1.0 / (1.0 + exp(-v));
                want[i] = (t * sg - v * v) * 0.25;
                tol[i] = 1e-6 + 2e-6 * (fabs(t * sg) + v * v);
            }
            for (i = 0; got && want && tol && i < 33 * 41; i++) if (!CHECK_NEAR(got[i], want[i], tol[i], 0.0)) break;
            free(xv); free(got); free(want); free(tol);
        }
        ps_release(g, c);
    }
    PS_CHECK_KEEP(&s, PS_ALL, 8, 1, &g, &c);
    if (g) { PS_FUSED(g, 1, 8, 8); ps_release(g, c); }

    /* longer than any fused node: split, all fused */
    ps_spec_init(&s, ps_chain30, NULL);
    ps_spec_input(&s, TT_F32, 2, 7, 33, 0, 0);
    PS_CHECK(&s, 0u, 30, 30);
    PS_CHECK_KEEP(&s, PS_FUSE, 30, -1, &g, &c);
    if (g) {
        tt_graph_stats st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.fused_ops, 30);
        CHECK_EQ_INT(st.nodes, st.fused_nodes);
        CHECK(st.nodes >= 1 && st.nodes <= 3);
        ps_release(g, c);
    }

    /* more inputs than a fused node takes: split, all fused */
    for (i = 0; i < 20; i++) pin[i] = i % 3 == 0 ? tu_param1(wc, 200u + (uint64_t)i, row, 1.0f, 0.0f)
                                                 : tu_param2(wc, 200u + (uint64_t)i, i % 3 == 1 ? 33 : 1, i % 3 == 1 ? 41 : 1, 1.0f);
    ps_spec_init(&s, ps_chain_inputs, pin);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    PS_CHECK(&s, 0u, 20, 20);
    PS_CHECK_KEEP(&s, PS_FUSE, 20, -1, &g, &c);
    if (g) {
        tt_graph_stats st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.fused_ops, 20);
        CHECK_EQ_INT(st.nodes, st.fused_nodes);
        CHECK(st.fused_nodes >= 2);
        ps_release(g, c);
    }
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
}

/* ---- pairs: (a op b) op2 c run as one pass (ops among + - *), each op rounding on its own.
   The operands b and c are a second full input, a scalar, a row [41] or a column [33,1]
   parameter; either order of each op. Bitwise against eager (GCC in its GNU modes would
   contract a product and a sum into one FMA if the pass let it) and exactly against
   two float operations done here with the intermediate forced through memory. */
typedef struct ps_pair {
    int op1, op2;          /* 0 add, 1 sub, 2 mul */
    int swap1, swap2;      /* t = b op1 x instead of x op1 b; y = c op2 t instead of t op2 c */
    int b_kind, c_kind;    /* 0 input x1, 1 scalar, 2 row parameter [41], 3 column parameter [33,1] */
    tt_tensor *row, *col;
} ps_pair;

static tt_tensor *ps_pair_op(tt_ctx *c, int op, tt_tensor *a, tt_tensor *b) {
    return op == 0 ? tt_add(c, a, b) : op == 1 ? tt_sub(c, a, b) : tt_mul(c, a, b);
}
static tt_tensor *ps_pair_operand(tt_ctx *c, const ps_pair *p, int kind, tt_tensor *x1, float scalar) {
    return kind == 0 ? x1 : kind == 1 ? tt_scalar(c, scalar) : kind == 2 ? p->row : p->col;
}
static int ps_pair_fn(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_pair *p = (const ps_pair *)w;
    tt_tensor *b = ps_pair_operand(c, p, p->b_kind, xs[1], 1.3f), *cc = ps_pair_operand(c, p, p->c_kind, xs[1], -0.7f);
    tt_tensor *t = p->swap1 ? ps_pair_op(c, p->op1, b, xs[0]) : ps_pair_op(c, p->op1, xs[0], b);
    out[0] = p->swap2 ? ps_pair_op(c, p->op2, cc, t) : ps_pair_op(c, p->op2, t, cc);
    return 1;
}
static float ps_pair_ref_op(int op, float a, float b) {
    volatile float r = op == 0 ? a + b : op == 1 ? a - b : a * b;   /* rounded to float here */
    return r;
}
/* Element (i, j) of operand kind k. */
static float ps_pair_ref_operand(int k, const float *x1, const float *row, const float *col, int i, int j, float scalar) {
    return k == 0 ? x1[i * 41 + j] : k == 1 ? scalar : k == 2 ? row[j] : col[i];
}

/* Runs g on new inputs and checks every element exactly against the float reference. */
static void ps_pair_against_floats(tt_graph *g, const ps_pair *p, tt_ctx *e) {
    int64_t sh[2] = {33, 41};
    tt_tensor *ins[2];
    float *x0, *x1, *row, *col, *got;
    int i, j, bad = 0;
    ins[0] = tt_randn(e, 71, 2, sh);
    ins[1] = tt_randn(e, 72, 2, sh);
    x0 = tu_values(e, ins[0]); x1 = tu_values(e, ins[1]);
    row = tu_values(e, p->row); col = tu_values(e, p->col);
    CHECK_EQ_INT(tt_graph_run(g, ins, 2), TT_OK);
    got = tu_values(e, tt_graph_output(g, 0));
    for (i = 0; got && x0 && x1 && row && col && i < 33 && !bad; i++)
        for (j = 0; j < 41 && !bad; j++) {
            float b = ps_pair_ref_operand(p->b_kind, x1, row, col, i, j, 1.3f);
            float c = ps_pair_ref_operand(p->c_kind, x1, row, col, i, j, -0.7f);
            float x = x0[i * 41 + j], t = p->swap1 ? ps_pair_ref_op(p->op1, b, x) : ps_pair_ref_op(p->op1, x, b);
            float want = p->swap2 ? ps_pair_ref_op(p->op2, c, t) : ps_pair_ref_op(p->op2, t, c);
            if (!CHECK(memcmp(&got[i * 41 + j], &want, sizeof want) == 0)) {
                printf("    op1 %d op2 %d swap %d%d kinds %d%d at (%d,%d): got %.9g want %.9g\n", p->op1, p->op2,
                       p->swap1, p->swap2, p->b_kind, p->c_kind, i, j, got[i * 41 + j], want);
                bad = 1;
            }
        }
    free(x0); free(x1); free(row); free(col); free(got);
}

/* A value with two readers is not paired; one that is also an output is stored as well. */
static int ps_pair_shared(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *t = tt_mul(c, xs[0], xs[1]);           /* read twice: stays a register */
    tt_tensor *a = tt_add(c, t, xs[0]);                /* a pairs into a * b */
    tt_tensor *b = tt_sub(c, t, xs[1]);
    (void)w;
    out[0] = tt_mul(c, a, b);
    out[1] = tt_mul_scalar(c, a, 3.0f);                /* now a has two readers */
    out[2] = t;
    return 3;
}

/* A fused node whose input (the matmul's result) dies there, so the memory plan may give an
   output its bytes; its ops (a pair among them) must then not compute into the outputs before
   every read of the chunk is done. (fuse_shapes_dtypes has a case that fails if one did.) */
static int ps_pair_in_place(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *m = tt_matmul(c, xs[0], (tt_tensor *)w), *a;
    a = tt_tanh(c, m);
    out[0] = a;
    out[1] = tt_add(c, tt_mul(c, a, m), m);           /* pairs: (a * m) + m, the last op */
    return 2;
}

static void test_fuse_pairs(void) {
    tt_ctx *wc = tu_ctx(), *e = tu_ctx();
    tt_tensor *w33 = tu_param2(wc, 9, 41, 41, 0.2f);
    ps_pair p;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    int k;
    memset(&p, 0, sizeof p);
    p.row = tu_param1(wc, 81, 41, 1.0f, 0.5f);
    p.col = tu_param2(wc, 82, 33, 1, 1.0f);
    for (k = 0; k < 3 * 3 * 4 + 16; k++) {
        static const char *names[3] = {"add", "sub", "mul"};
        char want[40];
        if (k < 36) {                                 /* every op pair, both orders, kinds in turn */
            p.op1 = k % 3; p.op2 = k / 3 % 3; p.swap1 = k / 9 % 2; p.swap2 = k / 18;
            p.b_kind = k % 4; p.c_kind = (k / 4 + k) % 4;
        } else {                                      /* every pair of kinds for (x * b) + c */
            p.op1 = 2; p.op2 = 0; p.swap1 = 0; p.swap2 = k % 2;
            p.b_kind = (k - 36) % 4; p.c_kind = (k - 36) / 4;
        }
        ps_spec_init(&s, ps_pair_fn, &p);
        ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
        ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
        s.transposed[0] = 1;
        PS_CHECK_KEEP(&s, PS_FUSE, 2, 1, &g, &c);
        if (!g) continue;
        snprintf(want, sizeof want, "fused{%s, %s}", names[p.op1], names[p.op2]);
        PS_HAS(g, want);
        ps_pair_against_floats(g, &p, e);
        ps_release(g, c);
    }

    ps_spec_init(&s, ps_pair_shared, NULL);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    ps_spec_input(&s, TT_F32, 2, 1, 41, 0, 0);
    PS_CHECK_KEEP(&s, PS_FUSE, 5, 1, &g, &c);
    if (g) { PS_FUSED(g, 1, 5, 5); ps_release(g, c); }

    ps_spec_init(&s, ps_pair_in_place, w33);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    PS_CHECK(&s, PS_FUSE | PS_DCE, 4, 2);
    PS_CHECK(&s, PS_ALL, 4, -1);
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
}

static void test_fuse_breaks(void) {
    tt_ctx *wc = tu_ctx();
    tt_tensor *w33 = tu_param2(wc, 7, 33, 33, 0.2f);
    ps_store_w sw;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;

    /* a reduction in the middle: two fused nodes around it */
    ps_spec_init(&s, ps_sum_break, NULL);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    PS_CHECK(&s, 0u, 7, 7);
    PS_CHECK_KEEP(&s, PS_FUSE, 7, 3, &g, &c);
    if (g) {
        PS_FUSED(g, 2, 6, 3);
        PS_HAS(g, "fused{mul, add, tanh}");
        PS_HAS(g, "fused{sub, exp, mul}");
        PS_HAS(g, "sum(");
        ps_release(g, c);
    }
    PS_CHECK(&s, PS_ALL, 7, 3);

    /* a matmul in the middle; with EPILOGUE it joins the second node */
    ps_spec_init(&s, ps_matmul_break, w33);
    ps_spec_input(&s, TT_F32, 2, 33, 33, 0, 0);
    PS_CHECK(&s, 0u, 7, 7);
    PS_CHECK_KEEP(&s, PS_FUSE | PS_DCE, 7, 3, &g, &c);
    if (g) { PS_FUSED(g, 2, 6, 3); PS_HAS(g, "fused{sigmoid, mul, sub}"); ps_release(g, c); }
    PS_CHECK_KEEP(&s, PS_ALL, 7, 2, &g, &c);
    if (g) {
        PS_FUSED(g, 2, 6, 3);
        PS_HAS(g, "fused{mul, add, tanh}");
        PS_HAS(g, "fused{matmul | sigmoid, mul, sub}");
        ps_release(g, c);
    }

    /* t read in the chain and by a later matmul: stored by the fused node */
    sw.w = tu_param2(wc, 8, 9, 9, 0.3f);
    sw.mode = 0;
    ps_spec_init(&s, ps_stored, &sw);
    ps_spec_input(&s, TT_F32, 2, 9, 9, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK(&s, 0u, 5, 5);
    PS_CHECK_KEEP(&s, PS_FUSE, 5, 2, &g, &c);
    if (g) {
        char *t = ps_text(g), *line = t ? strstr(t, "fused{mul, tanh, exp, sub}") : NULL;
        PS_FUSED(g, 1, 4, 4);
        CHECK(line != NULL);
        if (line) {                                    /* "  %a, %b = fused{...": two stores */
            char *start = line;
            while (start > t && start[-1] != '\n') start--;
            CHECK(memchr(start, ',', (size_t)(line - start)) != NULL);
        }
        free(t);
        ps_release(g, c);
    }
    PS_CHECK(&s, PS_ALL, 5, 2);
    sw.mode = 1;
    PS_CHECK(&s, 0u, 6, 6);
    PS_CHECK(&s, PS_FUSE, 6, 3);
    PS_CHECK_KEEP(&s, PS_ALL, 6, 2, &g, &c);
    if (g) { PS_HAS(g, "fused{matmul | add}"); PS_FUSED(g, 2, 5, 4); ps_release(g, c); }
    sw.mode = 2;
    PS_CHECK(&s, 0u, 6, 6);
    PS_CHECK_KEEP(&s, PS_ALL, 6, 3, &g, &c);
    if (g) { PS_FUSED(g, 2, 5, 3); PS_HAS(g, "fused{mul, tanh}"); PS_HAS(g, "fused{exp, sub, add}"); ps_release(g, c); }

    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

static void test_fuse_shapes_dtypes(void) {
    tt_ctx *wc = tu_ctx();
    int64_t n41 = 41, sh[2];
    ps_bc_w bw;
    tt_tensor *row16, *col3;
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;

    /* siblings that read only the input: one node, three stores */
    ps_spec_init(&s, ps_siblings, NULL);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK(&s, 0u, 3, 3);
    PS_CHECK_KEEP(&s, PS_FUSE, 3, 1, &g, &c);
    if (g) { PS_HAS(g, "fused{exp, sin, neg}"); PS_FUSED(g, 1, 3, 3); ps_release(g, c); }

    /* f16 input and result, a bf16 row */
    row16 = tt_cast(wc, tu_param1(wc, 9, n41, 0.5f, 0.0f), TT_BF16);
    ps_spec_init(&s, ps_half_chain, row16);
    ps_spec_input(&s, TT_F16, 2, 33, 41, 0, 0);
    PS_CHECK(&s, 0u, 7, 7);
    PS_CHECK_KEEP(&s, PS_FUSE, 7, 1, &g, &c);
    if (g) { PS_FUSED(g, 1, 7, 7); PS_HAS(g, "fused{mul, add, tanh, sigmoid, mul, add, cast}"); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL, 7, 1);

    /* a row [41], a column [33,1] and a 0-d scalar inside the chain */
    bw.row = tu_param1(wc, 10, n41, 1.0f, 0.0f);
    sh[0] = 33; sh[1] = 1;
    bw.col = tu_param(wc, 11, 2, sh, 1.0f, 0.0f);
    bw.sc = tu_param(wc, 12, 0, NULL, 1.0f, 0.0f);
    ps_spec_init(&s, ps_broadcast_chain, &bw);
    ps_spec_input(&s, TT_F32, 2, 33, 41, 0, 0);
    s.transposed[0] = 1;
    PS_CHECK(&s, 0u, 7, 7);
    PS_CHECK_KEEP(&s, PS_FUSE, 7, 1, &g, &c);
    if (g) { PS_FUSED(g, 1, 7, 7); PS_HAS(g, "fused{add, mul, relu, add, gt, mul, where}"); ps_release(g, c); }
    PS_CHECK(&s, PS_ALL, 7, 1);
    /* the input broadcast too: x [1,41] against the column [33,1] */
    ps_spec_init(&s, ps_broadcast_chain, &bw);
    ps_spec_input(&s, TT_F32, 2, 1, 41, 0, 0);
    PS_CHECK(&s, PS_FUSE, 7, -1);

    /* rows longer than a chunk, with a column broadcast along them */
    sh[0] = 3; sh[1] = 1;
    col3 = tu_param(wc, 13, 2, sh, 1.0f, 0.0f);
    ps_spec_init(&s, ps_wide_col, col3);
    ps_spec_input(&s, TT_F32, 2, 3, 1100, 0, 0);
    PS_CHECK_KEEP(&s, PS_FUSE, 3, 1, &g, &c);
    if (g) { PS_FUSED(g, 1, 3, 3); ps_release(g, c); }

    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ======================================================================================
 * 7. memory plan
 * ====================================================================================== */

static int ps_mm_softmax(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *h = xs[0];
    int i;
    for (i = 0; i < 8; i++) h = tt_softmax(c, tt_matmul(c, h, (tt_tensor *)w), -1);
    out[0] = h;
    return 1;
}

static void test_memory_reuse(void) {
    tt_ctx *wc = tu_ctx();
    tt_tensor *w = tu_param2(wc, 21, 64, 64, 0.125f);
    ps_spec s;
    tt_graph *g;
    tt_ctx *c;
    unsigned bits[3];
    int k;
    bits[0] = PS_ALL & ~PS_FUSE;
    bits[1] = PS_ALL;
    bits[2] = 0u;
    ps_spec_init(&s, ps_mm_softmax, w);
    ps_spec_input(&s, TT_F32, 2, 64, 64, 0, 0);
    for (k = 0; k < 3; k++) {
        PS_CHECK_KEEP(&s, bits[k], 16, 16, &g, &c);
        if (g) {
            tt_graph_stats st = tt_graph_get_stats(g);
            const size_t one = 64 * 64 * sizeof(float);
            printf("    mm/softmax chain, passes %#x: arena %lu, unplanned %lu\n", bits[k], (unsigned long)st.arena_bytes,
                   (unsigned long)st.unplanned_bytes);
            CHECK_EQ_INT(st.unplanned_bytes, 17 * one);   /* the input and 16 results */
            CHECK(st.arena_bytes <= st.unplanned_bytes / 2);
            CHECK(st.arena_bytes >= 2 * one);              /* a node's input and output coexist */
            ps_release(g, c);
        }
    }
    CHECK_GUARDS(wc);
    tt_ctx_destroy(wc);
}

/* ======================================================================================
 * 8. recompiling one graph with different passes
 * ====================================================================================== */

/* exp(transpose(transpose(tanh(2x+1)))) * 3: SIMPLIFY rewrites the outer transpose; a later
   compile without SIMPLIFY must still see the graph as traced. */
static int ps_re_transpose(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    tt_tensor *t = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, xs[0], 2.0f), 1.0f));
    (void)w;
    out[0] = tt_mul_scalar(c, tt_exp(c, tt_transpose(c, tt_transpose(c, t, 0, 1), 0, 1)), 3.0f);
    return 1;
}

static void test_recompile_after_simplify(void) {
    static const unsigned seq[] = {
        PS_SIMP | PS_DCE, PS_FUSE, PS_SIMP | PS_DCE, 0u, PS_SIMP | PS_FUSE | PS_DCE, PS_FUSE | PS_DCE
    };
    static const int nodes[] = {5, 4, 5, 7, 1, 4};
    tt_ctx *c = tu_ctx(), *e = tu_ctx();
    ps_spec s;
    tt_tensor *xs[PS_MAX_IO], *x;
    tt_graph *g;
    int k;
    ps_spec_init(&s, ps_re_transpose, NULL);
    ps_spec_input(&s, TT_F32, 2, 5, 9, 0, 0);
    g = ps_trace(&s, c, 3, xs, __FILE__, __LINE__);
    for (k = 0; g && k < (int)(sizeof seq / sizeof seq[0]); k++) {
        printf("    recompile after simplify %d: passes %#x\n", k, seq[k]);
        if (!CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, seq[k]), TT_OK)) { tt_graph_clear_error(g); continue; }
        CHECK_EQ_INT(tt_graph_num_nodes(g), nodes[k]);
        x = ps_input(e, &s, 0, 60u + (uint64_t)k, 0);
        ps_check_run(g, &s, e, &x, __FILE__, __LINE__);
    }
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    CHECK_GUARDS(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(e);
}

/* conv + batch norm: FOLD_BN gives the conv new weights; compiling again (frozen or not)
   must start from the traced conv. The first freeze copies the parameters for good: weights
   changed after it are not seen by later compiles (the user's tensors may be gone). */
static void test_recompile_after_fold_bn(void) {
    static const unsigned seq[] = {
        PS_ALL | PS_FREEZE, PS_ALL | PS_FREEZE, PS_ALL, PS_ALL | PS_FREEZE, 0u
    };
    tt_ctx *wc = tu_ctx(), *e = tu_ctx(), *c = tu_ctx();
    ps_bn_w p = ps_bn_make(wc, PS_BN_CONV, 90);
    ps_spec s;
    tt_tensor *xs[PS_MAX_IO], *x;
    tt_graph *g;
    float *wd, *saved;
    int k;
    int64_t i;
    ps_bn_spec(&s, &p);
    g = ps_trace(&s, c, 3, xs, __FILE__, __LINE__);
    for (k = 0; g && k < (int)(sizeof seq / sizeof seq[0]) + 1; k++) {
        unsigned bits = k < (int)(sizeof seq / sizeof seq[0]) ? seq[k] : PS_ALL | PS_FREEZE;
        printf("    recompile after fold_bn %d: passes %#x\n", k, bits);
        saved = NULL;
        wd = (float *)tt_data(p.w);
        if (k == (int)(sizeof seq / sizeof seq[0])) {  /* change the weights: the graph keeps its copies */
            saved = tu_values(wc, p.w);
            for (i = 0; i < p.w->numel; i++) wd[i] += 0.25f;
        }
        if (!CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, bits), TT_OK)) {
            tt_test__str_contains(tt_graph_error(g), "(no error)", __FILE__, __LINE__, "tt_graph_error(g)");
            tt_graph_clear_error(g);
            free(saved);
            continue;
        }
        if (saved) {                                   /* the eager reference: the weights as frozen */
            memcpy(wd, saved, sizeof(float) * (size_t)p.w->numel);
            free(saved);
        }
        CHECK_EQ_INT(tt_graph_num_nodes(g), (bits & PS_FREEZE) ? 1 : 2);
        if (bits & PS_FREEZE) {
            ps_bn_check_folded(g, &p, &s, e, 70u + (uint64_t)k);
        } else {
            x = ps_input(e, &s, 0, 70u + (uint64_t)k, 0);
            ps_check_run(g, &s, e, &x, __FILE__, __LINE__);
        }
    }
    tt_graph_destroy(g);
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    CHECK_GUARDS(c);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
    tt_ctx_destroy(c);
}

typedef struct ps_re_w { tt_tensor *w, *b; } ps_re_w;

/* A bit of every pass: double transpose, a foldable constant, a repeated subexpression, a
   linear + relu epilogue, x+0 and x*1, an elementwise chain, a parameter op (folds if frozen). */
static int ps_recompile_fn(tt_ctx *c, tt_tensor *const *xs, const void *w, tt_tensor **out) {
    const ps_re_w *p = (const ps_re_w *)w;
    int64_t s[2];
    tt_tensor *h, *k, *d, *l, *y;
    s[0] = 6; s[1] = 6;
    h = tt_transpose(c, tt_transpose(c, tt_tanh(c, xs[0]), 0, 1), 0, 1);
    k = tt_add(c, h, tt_exp(c, tt_full(c, TT_F32, 2, s, 0.1)));
    d = tt_mul(c, tt_tanh(c, tt_mul_scalar(c, k, 2.0f)), tt_tanh(c, tt_mul_scalar(c, k, 2.0f)));
    l = tt_relu(c, tt_linear(c, d, p->w, p->b));
    y = tt_mul_scalar(c, tt_add_scalar(c, l, 0.0f), 1.0f);
    out[0] = tt_add(c, tt_sigmoid(c, y), tt_mul_scalar(c, p->w, 0.5f));
    return 1;
}

static void test_recompile(void) {
    static const unsigned seq[] = {
        (unsigned)TT_PASS_ALL, 0u, (unsigned)(TT_PASS_SIMPLIFY | TT_PASS_DCE), (unsigned)TT_PASS_FUSE,
        (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE, (unsigned)TT_PASS_CSE,
        (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE,
        (unsigned)(TT_PASS_EPILOGUE | TT_PASS_FUSE | TT_PASS_DCE), 0u, (unsigned)TT_PASS_ALL,
        (unsigned)(TT_PASS_SIMPLIFY | TT_PASS_FUSE), (unsigned)(TT_PASS_CONST_FOLD | TT_PASS_FREEZE)
    };
    const int nseq = (int)(sizeof seq / sizeof seq[0]);
    tt_ctx *wc = tu_ctx(), *e = tu_ctx(), *c = tu_ctx(), *c2 = tu_ctx();
    ps_re_w p;
    ps_spec s;
    tt_tensor *xs[PS_MAX_IO], *xs2[PS_MAX_IO], *x;
    tt_graph *g;
    int k;
    p.w = tu_param2(wc, 31, 6, 6, 0.4f);
    p.b = tu_param1(wc, 32, 6, 0.3f, 0.0f);
    ps_spec_init(&s, ps_recompile_fn, &p);
    ps_spec_input(&s, TT_F32, 2, 6, 6, 0, 0);
    g = ps_trace(&s, c, 3, xs, __FILE__, __LINE__);
    for (k = 0; g && k < nseq; k++) {
        tt_graph *fresh = ps_trace(&s, c2, 3, xs2, __FILE__, __LINE__);
        int want_nodes = -1;
        printf("    recompile %d: passes %#x\n", k, seq[k]);
        if (fresh && CHECK_EQ_INT(tt_graph_compile(fresh, TT_MODE_DEFAULT, seq[k]), TT_OK))
            want_nodes = tt_graph_num_nodes(fresh);   /* what a first compile gives */
        tt_graph_destroy(fresh);
        if (!CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, seq[k]), TT_OK)) {
            tt_test__str_contains(tt_graph_error(g), "(no error)", __FILE__, __LINE__, "tt_graph_error(g)");
            tt_graph_clear_error(g);
            continue;
        }
        CHECK_EQ_INT(tt_graph_num_nodes(g), want_nodes);
        x = ps_input(e, &s, 0, 40u + (uint64_t)k, k % 2);
        ps_check_run(g, &s, e, &x, __FILE__, __LINE__);
        ps_check_run(g, &s, e, xs, __FILE__, __LINE__);
    }
    tt_graph_destroy(g);

    /* the batch-norm graph: folded, unfolded, folded again */
    {
        static const unsigned bn_seq[] = {
            (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE, (unsigned)TT_PASS_ALL,
            (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE, (unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE,
            0u, (unsigned)(TT_PASS_FOLD_BN | TT_PASS_FREEZE), (unsigned)TT_PASS_FUSE
        };
        ps_bn_w bp = ps_bn_make(wc, PS_BN_CONV_RELU, 77);
        ps_bn_spec(&s, &bp);
        g = ps_trace(&s, c, 4, xs, __FILE__, __LINE__);
        for (k = 0; g && k < (int)(sizeof bn_seq / sizeof bn_seq[0]); k++) {
            int frozen = (bn_seq[k] & PS_FREEZE) != 0;
            printf("    recompile bn %d: passes %#x\n", k, bn_seq[k]);
            if (!CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, bn_seq[k]), TT_OK)) {
                tt_test__str_contains(tt_graph_error(g), "(no error)", __FILE__, __LINE__, "tt_graph_error(g)");
                tt_graph_clear_error(g);
                continue;
            }
            CHECK_EQ_INT(tt_graph_num_nodes(g), !frozen ? 3 : (bn_seq[k] & PS_FUSE) && (bn_seq[k] & PS_EPI) ? 1 : 2);
            if (frozen) {
                ps_bn_check_folded(g, &bp, &s, e, 50u + (uint64_t)k);
            } else {
                x = ps_input(e, &s, 0, 50u + (uint64_t)k, 0);
                ps_check_run(g, &s, e, &x, __FILE__, __LINE__);
            }
        }
        tt_graph_destroy(g);
    }
    CHECK_GUARDS(wc);
    CHECK_GUARDS(e);
    CHECK_GUARDS(c);
    CHECK_GUARDS(c2);
    tt_ctx_destroy(wc);
    tt_ctx_destroy(e);
    tt_ctx_destroy(c);
    tt_ctx_destroy(c2);
}

/* ======================================================================================
 * stats and compile on bad input
 * ====================================================================================== */

static void test_stats_and_bad_input(void) {
    tt_ctx *c = tu_ctx();
    ps_spec s;
    tt_tensor *xs[PS_MAX_IO];
    tt_graph *g;
    tt_graph_stats st;
    char buf[8];
    ps_spec_init(&s, ps_chain8, NULL);
    ps_spec_input(&s, TT_F32, 2, 3, 7, 0, 0);

    /* NULL graphs */
    CHECK_EQ_INT(tt_graph_compile(NULL, TT_MODE_DEFAULT, PS_ALL), TT_ERR_ARG);
    st = tt_graph_get_stats(NULL);
    CHECK(st.nodes_traced == 0 && st.nodes == 0 && st.arena_bytes == 0 && st.unplanned_bytes == 0 &&
          st.fused_nodes == 0 && st.fused_ops == 0 && st.max_fused_ops == 0 && st.constant_bytes == 0);
    tt_graph_set_debug(NULL, (unsigned)TT_DEBUG_POISON);   /* no crash */
    CHECK_EQ_INT(tt_graph_num_nodes(NULL), 0);

    g = ps_trace(&s, c, 1, xs, __FILE__, __LINE__);
    if (g) {
        /* before compile: the tape, no plan, nothing fused */
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.nodes_traced, 8);
        CHECK_EQ_INT(st.nodes, 8);
        CHECK_EQ_INT(st.arena_bytes, 0);
        CHECK_EQ_INT(st.fused_nodes, 0);
        CHECK_EQ_INT(st.fused_ops, 0);
        /* a short buffer: NUL-terminated, the length needed returned */
        CHECK(tt_graph_str(g, buf, sizeof buf) > sizeof buf);
        CHECK_EQ_INT((long long)strlen(buf), (long long)sizeof buf - 1);
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, PS_FUSE), TT_OK);
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.nodes, 1);
        CHECK(tt_graph_str(g, NULL, 0) > 1);
        /* compile again without fusion: back to the tape */
        CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, 0u), TT_OK);
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.nodes, 8);
        CHECK_EQ_INT(st.fused_nodes, 0);
        CHECK_EQ_INT(st.max_fused_ops, 0);
        tt_graph_destroy(g);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A frozen linear and its activation (act 0: ReLU, 1: a clamp to [-0.3, 0.4], which the
   linear's epilogue applies in place of the fused program), on `rows` rows: 64 take the
   packed SGEMM, the graph packing the constant weight once (SIMD builds) and its runs
   skipping the packing; 2 take the direct loops. Outputs stay bitwise the eager ones, on the
   traced input, on a new input, and after compiling again; values against a double loop. */
static tt_tensor *tp_linear_act(tt_ctx *c, tt_tensor *x, tt_tensor *w, tt_tensor *b, int act) {
    tt_tensor *y = tt_linear(c, x, w, b);
    return act == 0 ? tt_relu(c, y) : tt_clamp(c, y, -0.3f, 0.4f);
}

static void tp_frozen_linear(int act, int64_t rows) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t xs[2], i, j, k, bad = 0;
    tt_tensor *w = tu_param2(wc, 501, 300, 256, 0.0625f), *b = tu_param1(wc, 502, 300, 0.1f, 0.0f);
    tt_tensor *x, *x2, *y, *e1, *e2;
    tt_graph *g = NULL;
    int round;
    xs[0] = rows; xs[1] = 256;
    x = tt_randn(c, 503, 2, xs);
    x2 = tt_randn(c, 504, 2, xs);
    CHECK_NO_ERROR(wc);
    e1 = tp_linear_act(c, x, w, b, act);
    e2 = tp_linear_act(c, x2, w, b, act);
    CHECK(tt_trace_begin(c) == TT_OK);
    y = tp_linear_act(c, tt_trace_input(c, x, "x"), w, b, act);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    for (round = 0; g && round < 2; round++) {        /* compile, then compile again */
        CHECK(tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) == TT_OK);
        CHECK(tt_graph_run(g, &x, 1) == TT_OK);
        CHECK_SAME_BITS(c, tt_graph_output(g, 0), e1);
        CHECK(tt_graph_run(g, &x2, 1) == TT_OK);
        CHECK_SAME_BITS(c, tt_graph_output(g, 0), e2);
    }
    if (g && tt_graph_output(g, 0)) {                  /* x2's output against double loops */
        float *got = tu_values(c, tt_graph_output(g, 0)), *xv = tu_values(c, x2), *wv = tu_values(wc, w), *bv = tu_values(wc, b);
        for (i = 0; got && xv && wv && bv && i < rows; i++)
            for (j = 0; j < 300; j++) {
                double sum = bv[j], mag = fabs(bv[j]);
                for (k = 0; k < 256; k++) { sum += (double)xv[i * 256 + k] * wv[j * 256 + k]; mag += fabs((double)xv[i * 256 + k] * wv[j * 256 + k]); }
                if (act == 0 && sum < 0) sum = 0;
                if (act == 1) sum = sum < -0.3 ? -0.3 : sum > 0.4 ? 0.4 : sum;
                if (!(fabs(got[i * 300 + j] - sum) <= 1e-6 * mag + 1e-7)) bad++;
            }
        CHECK_EQ_INT(bad, 0);
        free(got); free(xv); free(wv); free(bv);
    }
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

static void test_frozen_linear_prepacked(void) { tp_frozen_linear(0, 64); }

static void test_frozen_linear_clamp(void) {
    tp_frozen_linear(1, 64);
    tp_frozen_linear(1, 2);
}

/* The pipeline's stats name each pass that ran, in order, with the nodes it removed:
   exp, x*1, +0, tanh and an unused sin (5 nodes) -> simplify drops *1 and +0, dead code
   drops sin, fusion joins exp and tanh into one node. Counted by hand. */
static void test_pass_stats(void) {
    static const char *const names[7] = { "const_fold", "simplify", "const_fold", "fold_bn", "cse", "dce", "fuse" };
    static const int removed[7] = { 0, 2, 0, 0, 0, 1, 1 };
    tt_ctx *c = tu_ctx();
    int64_t s[1] = { 8 };
    tt_tensor *x = tt_randn(c, 3, 1, s), *u, *y;
    tt_graph *g;
    tt_graph_stats st;
    int i;
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    x = tt_trace_input(c, x, "x");
    u = tt_exp(c, x);
    y = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, u, 1.0f), 0.0f));
    (void)tt_sin(c, x);
    g = tt_trace_end(c, &y, 1);
    CHECK(g != NULL);
    if (!g) { tt_ctx_destroy(c); return; }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_ALL), TT_OK);
    st = tt_graph_get_stats(g);
    CHECK_EQ_INT(st.nodes_traced, 5);
    CHECK_EQ_INT(st.nodes, 1);
    CHECK_EQ_INT(st.n_passes, 7);
    for (i = 0; i < 7 && i < st.n_passes; i++) {
        CHECK_STR_CONTAINS(st.passes[i].name, names[i]);
        CHECK_EQ_INT(st.passes[i].nodes_removed, removed[i]);
    }
    CHECK_EQ_INT(tt_graph_compile(g, TT_MODE_DEFAULT, (unsigned)TT_PASS_DCE), TT_OK);   /* one pass: one row */
    st = tt_graph_get_stats(g);
    CHECK_EQ_INT(st.n_passes, 1);
    if (st.n_passes == 1) CHECK_EQ_INT(st.passes[0].nodes_removed, 1);
    tt_graph_set_debug(g, (unsigned)TT_DEBUG_PASSES);     /* a known bit: accepted */
    CHECK_EQ_INT(tt_graph_status(g), TT_OK);
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(passes) = {
    {"stats_and_bad_input", test_stats_and_bad_input},
    {"frozen_linear_prepacked", test_frozen_linear_prepacked},
    {"frozen_linear_clamp", test_frozen_linear_clamp},
    {"const_fold", test_const_fold},
    {"simplify", test_simplify},
    {"simplify_noop_of_view", test_simplify_noop_of_view},
    {"simplify_after_fold", test_simplify_after_fold},
    {"cse", test_cse},
    {"fold_bn", test_fold_bn},
    {"freeze_param_change", test_freeze_param_change},
    {"epilogue", test_epilogue},
    {"fuse_chain", test_fuse_chain},
    {"fuse_pairs", test_fuse_pairs},
    {"fuse_breaks", test_fuse_breaks},
    {"fuse_shapes_dtypes", test_fuse_shapes_dtypes},
    {"memory_reuse", test_memory_reuse},
    {"recompile_after_simplify", test_recompile_after_simplify},
    {"recompile_after_fold_bn", test_recompile_after_fold_bn},
    {"recompile", test_recompile},
    {"pass_stats", test_pass_stats},
    {NULL, NULL}
};
