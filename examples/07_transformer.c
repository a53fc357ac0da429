/* build: cc -std=c99 -O2 -I.. 07_transformer.c -lm -lpthread && ./a.out

   07_transformer - one pre-norm transformer encoder layer (as in GPT-2 or ViT) on x [S, D]:
       h = x + Wo attention(Wq LN(x), Wk LN(x), Wv LN(x))      4 heads of width d = D/4
       y = h + W2 gelu(W1 LN(h))                               the MLP: D -> 4D -> D
   No loop over heads: q [S,D] reshaped to [S,4,d] and transposed to [4,S,d] (views) is a batch for
   one tt_scaled_dot_product_attention. The compiled layer is checked against eager (bitwise) and
   attention against softmax(q k^T / sqrt(d)) v in double. Then the cost: FLOPs, and times. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime, for the timings */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { S = 128, D = 128, H = 4, DH = D / H };    // tokens, model width, heads, width of a head
static const int64_t ROWS[2] = {S, D}, HEADS[3] = {S, H, DH};    // x's shape; q's, by head

typedef struct layer { tt_tensor *wq, *wk, *wv, *wo, *w1, *w2; } layer;    // linears, no biases
typedef struct taps { tt_tensor *q, *k, *v, *att; } taps;    // values inside, kept for the check

static tt_tensor *weight(tt_ctx *wc, uint64_t seed, int64_t out, int64_t in) {
    int64_t shape[2] = {out, in};
    return tt_mul_scalar(wc, tt_randn(wc, seed, 2, shape), 1.0f / sqrtf((float)in));  // outputs O(1)
}

static tt_tensor *split_heads(tt_ctx *c, tt_tensor *x) {      // [S,D] -> [H,S,DH]: views only
    return tt_transpose(c, tt_reshape(c, x, 3, HEADS), 0, 1);
}

static tt_tensor *merge_heads(tt_ctx *c, tt_tensor *x) {      // [H,S,DH] -> [S,D]: the reshape copies
    return tt_reshape(c, tt_transpose(c, x, 0, 1), 2, ROWS);
}

static tt_tensor *forward(tt_ctx *c, tt_tensor *x, const layer *w, taps *t) {
    tt_tensor *n = tt_layer_norm(c, x, 1, NULL, NULL, 1e-5f);        // gain 1, bias 0: left out
    t->q = tt_linear(c, n, w->wq, NULL);
    t->k = tt_linear(c, n, w->wk, NULL);
    t->v = tt_linear(c, n, w->wv, NULL);
    tt_tensor *heads = tt_scaled_dot_product_attention(c, split_heads(c, t->q), split_heads(c, t->k),
                                                       split_heads(c, t->v), NULL, false, 0.0f);  // 0: 1/sqrt(DH)
    t->att = merge_heads(c, heads);
    tt_tensor *h = tt_add(c, x, tt_linear(c, t->att, w->wo, NULL));                 // residual 1
    tt_tensor *m = tt_gelu(c, tt_linear(c, tt_layer_norm(c, h, 1, NULL, NULL, 1e-5f), w->w1, NULL));
    return tt_add(c, h, tt_linear(c, m, w->w2, NULL));                             // residual 2
}

// Largest |difference| on row i of head h between att and the definition, worked out in double.
static double attention_error(const float *q, const float *k, const float *v, const float *att, int h, int i) {
    double p[S], sum = 0.0, worst = 0.0;
    for (int j = 0; j < S; j++) {                      // key j's weight: exp(q_i . k_j / sqrt(DH))
        double score = 0.0;                            // (scores are small here: exp cannot overflow)
        for (int e = 0; e < DH; e++) score += (double)q[i * D + h * DH + e] * k[j * D + h * DH + e];
        p[j] = exp(score / sqrt((double)DH));
        sum += p[j];
    }
    for (int e = 0; e < DH; e++) {                     // the weighted average of v's rows
        double o = 0.0;
        for (int j = 0; j < S; j++) o += p[j] / sum * v[j * D + h * DH + e];
        worst = fmax(worst, fabs(o - att[i * D + h * DH + e]));
    }
    return worst;
}

static int print_fused(const tt_graph *g) {           // the lines of fused nodes; how many
    static char text[16384];
    int count = 0;
    if (tt_graph_str(g, text, sizeof text) > sizeof text) return -1;     // (it did not fit)
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "fused{")) {
            printf("  %s\n", line);
            count++;
        }
    return count;
}

// By hand: an [m,k] x [k,n] product is m*n*k multiply-adds, 2mnk FLOPs.
static double attention_flops(double s) { return 2.0 * 2.0 * s * s * D; }   // q k^T, p v: each H * 2*S*S*DH
static double linear_flops(double s) { return 2.0 * s * D * D * 4 + 2.0 * 2.0 * s * D * 4 * D; }  // q,k,v,o; MLP

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    static float got[S * D], want[S * D], q[S * D], k[S * D], v[S * D], att[S * D];
    tt_ctx *wc = tt_ctx_create(NULL), *c = tt_ctx_create(NULL);         // weights; everything else
    layer w = {weight(wc, 1, D, D), weight(wc, 2, D, D), weight(wc, 3, D, D), weight(wc, 4, D, D),
               weight(wc, 5, 4 * D, D), weight(wc, 6, D, 4 * D)};
    taps t;

    printf("== 1. trace, compile (every pass, weights frozen in); the fused chains:\n");
    tt_tensor *x = tt_randn(c, 10, 2, ROWS);
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    tt_tensor *y = forward(c, x, &w, &t);
    tt_graph *g = tt_trace_end(c, &y, 1);             // NULL on error: the calls below then fail
    tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE);
    tt_graph_stats st = tt_graph_get_stats(g);
    int bad = print_fused(g) != 3 || st.fused_nodes != 3;     // linear+add, linear+gelu, linear+add
    printf("%d fused nodes (%d ops in them); nodes: %d traced, %d compiled\n", st.fused_nodes, st.fused_ops,
           st.nodes_traced, st.nodes);

    printf("\n== 2. the graph on a new input, against the eager code\n");
    tt_tensor *x2 = tt_randn(c, 11, 2, ROWS);
    if (tt_graph_run(g, &x2, 1) || tt_copy_to_f32(c, tt_graph_output(g, 0), got, S * D) ||
        tt_copy_to_f32(c, forward(c, x2, &w, &t), want, S * D) || tt_copy_to_f32(c, t.q, q, S * D) ||
        tt_copy_to_f32(c, t.k, k, S * D) || tt_copy_to_f32(c, t.v, v, S * D) || tt_copy_to_f32(c, t.att, att, S * D))
        bad = 1;                                       // (the error is printed at the end)
    int same = memcmp(got, want, sizeof got) == 0;     // same kernels, same order of sums
    printf("compiled == eager, bitwise: %s\n", same ? "yes" : "NO");
    bad |= !same;

    // Tolerance, worst case: f32 rounds a step by <= 6e-8 relative. A score sums 32 products (sum of
    // |q_e k_e| / sqrt(32) <= 8 here): off by <= 32 * 6e-8 * 8 = 1.5e-5; each weight by <= 3e-5 relative;
    // their average of v rows (|v| < 4) by <= 1.2e-4, plus its own sum's 3e-5. A wrong head or scale: 0.1+
    double err = 0.0;
    for (int h = 0; h < H; h++) err = fmax(err, attention_error(q, k, v, att, h, 77));
    printf("attention, row 77 of every head, against the double loop: max error %.2g (limit 2e-4)\n", err);
    bad |= !(err <= 2e-4);

    printf("\n== 3. FLOPs by hand: attention 4*S*S*D, linears 24*S*D*D (D = %d)\n", D);
    int64_t n_weights = w.wq->numel + w.wk->numel + w.wv->numel + w.wo->numel + w.w1->numel + w.w2->numel;
    bad |= 2.0 * S * (double)n_weights != linear_flops(S);     // 2 FLOPs per weight per token
    for (int s = S; s <= 16 * S; s *= 4)                  // S, 4S, 16S (128, 512, 2048 here)
        printf("  S = %4d: attention %6.3f GFLOP, linears %6.3f GFLOP, ratio %.2f\n", s, attention_flops(s) * 1e-9,
               linear_flops(s) * 1e-9, attention_flops(s) / linear_flops(s));
    printf("  the ratio is S/(6D): equal at S = %d, attention dominates above\n", 6 * D);

    printf("\n== 4. time at S = %d, best of 50 runs (printed, not checked)\n", S);
    tt_tensor *qh = split_heads(c, t.q), *kh = split_heads(c, t.k), *vh = split_heads(c, t.v);
    double best_att = HUGE_VAL, best_layer = HUGE_VAL;
    tt_scope scope = tt_scope_begin(c);                // the scope's end frees each eager result
    for (int r = 0; r < 50; r++) {
        double t0 = now();
        tt_scaled_dot_product_attention(c, qh, kh, vh, NULL, false, 0.0f);
        double t1 = now();
        tt_graph_run(g, &x2, 1);
        best_att = fmin(best_att, t1 - t0);
        best_layer = fmin(best_layer, now() - t1);
        tt_scope_end(c, scope);
    }
    printf("  attention op %.3f ms, whole compiled layer %.3f ms: %.0f%% of the time, %.0f%% of the FLOPs\n",
           best_att * 1e3, best_layer * 1e3, 100.0 * best_att / best_layer,
           100.0 * attention_flops(S) / (attention_flops(S) + linear_flops(S)));

    const char *why = tt_ctx_status(c) ? tt_error(c) : tt_graph_error(g);    // the first error, if any
    if (why) printf("error: %s\n", why);
    bad |= why != NULL;
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    printf("\n%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    return bad;
}
