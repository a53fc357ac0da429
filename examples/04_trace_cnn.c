/* build: cc -std=c99 -O2 -I.. 04_trace_cnn.c -lm -lpthread && ./a.out

   04_trace_cnn - trace an eager model into a graph, compile it, run it again.
   The model is a small CNN:  [conv 3x3 -> batch norm -> relu -> max pool 2] x 2
                              -> global average pool -> flatten -> linear -> x*0.5+0.1 -> gelu
   Steps: run it eagerly; trace it (the same code, recorded op by op); print the graph; compile
   it (every pass: the linear and the chain after it become one fused node; memory plan) and
   print it again; run the graph on a new input and compare with eager bitwise; compile again
   with TT_PASS_FREEZE (batch norm folded into the convs) and check it with tt_graph_check;
   then two things that go wrong on purpose: a tracer warning and a wrong input shape. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct block { tt_tensor *w, *b, *mean, *var; } block;      // conv + batch-norm weights
typedef struct weights { block b1, b2; tt_tensor *fc_w, *fc_b; } weights;

static block make_block(tt_ctx *wc, uint64_t seed, int64_t cin, int64_t cout) {
    int64_t ws[4] = {cout, cin, 3, 3};
    block b;
    b.w    = tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.3f);
    b.b    = tt_mul_scalar(wc, tt_randn(wc, seed + 1, 1, &cout), 0.1f);
    b.mean = tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &cout), 0.1f);
    b.var  = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &cout), 0.5f);   // variances > 0
    return b;
}

// The model: ONE function from tensors to tensors. Weights come in as a parameter, so a trace
// sees them as graph parameters; every step is a tt_* op, so every step is recorded.
static tt_tensor *forward(tt_ctx *c, tt_tensor *x, const weights *w) {
    const block *bs[2] = {&w->b1, &w->b2};
    for (int i = 0; i < 2; i++) {           // a C loop over LAYERS is fine: the trace unrolls it
        x = tt_conv2d(c, x, bs[i]->w, bs[i]->b, 1, 1, 1, 1);              // 3x3, padding 1
        x = tt_relu(c, tt_batch_norm(c, x, bs[i]->mean, bs[i]->var, NULL, NULL, 1e-5f));
        x = tt_max_pool2d(c, x, 2, 0, 0);
    }
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);        // [N,16,1,1] -> [N,16]
    x = tt_linear(c, x, w->fc_w, w->fc_b);                                // [N,5]
    return tt_gelu(c, tt_add_scalar(c, tt_mul_scalar(c, x, 0.5f), 0.1f)); // a chain to fuse
}

// A function that is NOT traceable as written: it branches in C on a tensor's value.
static tt_tensor *branchy(tt_ctx *c, tt_tensor *x) {
    if (tt_item(c, tt_mean(c, x, NULL, 0, false)) > 0.0f) return tt_relu(c, x);   // warning here
    return tt_neg(c, x);     // traceable: tt_where(tt_gt(c, mean, zero), tt_relu(c, x), tt_neg(c, x))
}

int main(void) {
    tt_ctx *wc = tt_ctx_create(NULL), *c = tt_ctx_create(NULL);   // weights; everything else
    int64_t in_shape[4] = {2, 3, 16, 16}, fc_shape[2] = {5, 16}, five = 5, bad_shape[4] = {1, 3, 16, 16};
    weights w;
    int bad = 0;
    w.b1 = make_block(wc, 10, 3, 8);
    w.b2 = make_block(wc, 20, 8, 16);
    w.fc_w = tt_mul_scalar(wc, tt_randn(wc, 30, 2, fc_shape), 0.25f);
    w.fc_b = tt_mul_scalar(wc, tt_randn(wc, 31, 1, &five), 0.1f);

    printf("== 1. eager: ops compute at once\n");
    tt_tensor *x = tt_randn(c, 1, 4, in_shape);
    tt_print(forward(c, x, &w), "eager output");

    printf("\n== 2. trace: the same code, recorded\n");
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");                        // x becomes the graph's input
    tt_tensor *y = forward(c, x, &w);              // still computes, and records every op
    tt_graph *g = tt_trace_end(c, &y, 1);          // the graph owns its memory from here
    if (!g) { printf("trace failed: %s\n", tt_error(c)); return 1; }
    tt_graph_print(g);                             // one line per op, as traced

    printf("\n== 3. compile: every pass on\n");
    if (tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) { printf("%s\n", tt_graph_error(g)); bad = 1; }
    tt_graph_print(g);                             // the elementwise chains became fused{...}
    tt_graph_stats st = tt_graph_get_stats(g);
    printf("nodes: %d traced, %d after the passes; %d fused node(s) holding %d ops\n",
           st.nodes_traced, st.nodes, st.fused_nodes, st.fused_ops);
    printf("arena: %zu bytes with buffer reuse, %zu without (+ %zu scratch); constants: %zu bytes\n",
           st.arena_bytes, st.unplanned_bytes, st.scratch_bytes, st.constant_bytes);
    if (st.fused_nodes < 1 || st.nodes >= st.nodes_traced || st.arena_bytes > st.unplanned_bytes) bad = 1;

    printf("\n== 4. run the graph on a NEW input, compare with eager\n");
    tt_tensor *x2 = tt_randn(c, 2, 4, in_shape);
    float got[10] = {0}, want[10] = {0};
    if (tt_graph_run(g, &x2, 1) != TT_OK || tt_copy_to_f32(c, tt_graph_output(g, 0), got, 10) != TT_OK ||
        tt_copy_to_f32(c, forward(c, x2, &w), want, 10) != TT_OK) {
        printf("error: %s %s\n", tt_graph_error(g) ? tt_graph_error(g) : "", tt_error(c) ? tt_error(c) : "");
        bad = 1;
    } else {
        tt_print(tt_graph_output(g, 0), "graph output");
        int same = memcmp(got, want, sizeof got) == 0;   // same kernels, same order: same bits
        printf("bitwise equal: %s\n", same ? "yes" : "NO");
        if (!same) bad = 1;
    }

    printf("\n== 5. freeze: weights copied in as constants, so batch norm folds into the conv\n");
    tt_check_report rep;         // folding changes the arithmetic: close to eager, not bitwise
    char text[4096];
    if (tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK ||
        tt_graph_check(g, &x2, 1, 1e-6, 1e-4, &rep) != TT_OK || tt_graph_run(g, &x2, 1) != TT_OK) {
        printf("%s\n", tt_graph_error(g));
        bad = 1;
    } else {
        double rel = 0;          // the output for x2 against eager's (want, from step 4)
        tt_copy_to_f32(c, tt_graph_output(g, 0), got, 10);
        for (int i = 0; i < 10; i++) rel = fmax(rel, fabs((double)got[i] - want[i]) / fabs((double)want[i]));
        tt_graph_print(g);                                   // conv2d and relu: one node now
        tt_graph_str(g, text, sizeof text);
        st = tt_graph_get_stats(g);
        printf("nodes: %d traced, %d after the passes\n", st.nodes_traced, st.nodes);
        printf("tt_graph_check (rtol 1e-4): %s, %d values compared%s%s\n", rep.ok ? "ok" : "DIFFERS",
               rep.compared, rep.ok ? "" : ": ", rep.message);
        printf("output vs eager: largest relative difference %.2g\n", rel);
        if (!rep.ok || rep.compared < 1 || rel > 1e-4 || strstr(text, "batch_norm")) bad = 1;
    }

    printf("\n== 6. a tracer warning: C read a traced value\n");
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    tt_tensor *z = branchy(c, x);
    tt_graph *g2 = tt_trace_end(c, &z, 1);
    const char *warning = tt_graph_warning(g2, 0);   // NULL when there is none
    printf("%d warning(s): %s\n", tt_graph_num_warnings(g2), warning ? warning : "(none)");
    if (!g2 || tt_graph_num_warnings(g2) != 1) bad = 1;   // the graph keeps the branch it saw
    tt_graph_destroy(g2);

    printf("\n== 7. a guard: the graph runs only on the shapes it was traced for\n");
    tt_tensor *wrong = tt_randn(c, 3, 4, bad_shape);
    tt_status s = tt_graph_run(g, &wrong, 1);
    const char *error = tt_graph_error(g);           // NULL when there is none
    printf("tt_graph_run: %s: %s\n", tt_status_str(s), error ? error : "(no error)");
    if (s != TT_ERR_SHAPE) bad = 1;
    tt_graph_clear_error(g);

    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    printf("\n%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    return bad;
}
