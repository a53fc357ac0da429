/* build: cc -std=c99 -O2 -I.. 06_router.c -lm -lpthread && ./a.out

   06_router - a data-dependent router (a tiny mixture of experts), traced two ways. A gate
   scores each row of x [N, D]: rows scoring > 0 go to expert A (linear + relu), the others to
   expert B (linear + tanh). Written with a C `if` on the scores, the trace warns (C read a traced
   tensor) and the graph replays the traced input's routes: on a new input it is wrong exactly on
   the rows that route differently. Written with a mask and tt_where (both experts run on every
   row, the mask picks), the trace has no warning and one graph is right for every input.
   Every claim is checked against a plain C router. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>

#define N 8     // rows (tokens)
#define D 4     // features per row

typedef struct moe {
    tt_tensor *gate_w, *gate_b, *a_w, *a_b, *b_w, *b_b;     // [1,D] [1] [D,D] [D] [D,D] [D]
    float gw[D], gb[1], aw[D * D], ab[D], bw[D * D], bb[D];  // the same numbers, for the C router
} moe;

// A random weight, and a copy of its values in C (read before any trace: no warning).
static tt_tensor *weight(tt_ctx *c, uint64_t seed, int ndim, const int64_t *shape, float *copy, int n) {
    tt_tensor *w = tt_mul_scalar(c, tt_randn(c, seed, ndim, shape), 0.5f);
    return tt_copy_to_f32(c, w, copy, n) == TT_OK ? w : NULL;
}

static moe make_moe(tt_ctx *c) {
    int64_t gate[2] = {1, D}, one = 1, square[2] = {D, D}, d = D;
    moe m;
    m.gate_w = weight(c, 1, 2, gate, m.gw, D);     m.gate_b = weight(c, 2, 1, &one, m.gb, 1);
    m.a_w = weight(c, 3, 2, square, m.aw, D * D);  m.a_b = weight(c, 4, 1, &d, m.ab, D);
    m.b_w = weight(c, 5, 2, square, m.bw, D * D);  m.b_b = weight(c, 6, 1, &d, m.bb, D);
    return m;
}

// The plain C router for one row, in double: an `if` on the gate score. Returns the route.
static char c_router_row(const moe *m, const float *row, double *out) {
    double score = m->gb[0];
    for (int k = 0; k < D; k++) score += (double)m->gw[k] * row[k];
    bool to_a = score > 0.0;
    const float *w = to_a ? m->aw : m->bw;                   // the chosen expert's weights
    for (int j = 0; j < D; j++) {
        double v = to_a ? m->ab[j] : m->bb[j];
        for (int k = 0; k < D; k++) v += (double)w[j * D + k] * row[k];
        out[j] = to_a ? (v > 0.0 ? v : 0.0) : tanh(v);       // relu or tanh
    }
    return to_a ? 'A' : 'B';
}

// Naive: read the scores into C and branch per row. The trace sees only the branch taken.
static tt_tensor *forward_if(tt_ctx *c, tt_tensor *x, const moe *m) {
    float score[N];
    tt_tensor *rows[N];
    tt_tensor *scores = tt_linear(c, x, m->gate_w, m->gate_b);            // [N, 1]
    if (tt_copy_to_f32(c, scores, score, N) != TT_OK) return NULL;         // the warning
    for (int i = 0; i < N; i++) {
        tt_tensor *row = tt_slice(c, x, 0, i, i + 1, 1);                  // [1, D]
        if (score[i] > 0.0f) rows[i] = tt_relu(c, tt_linear(c, row, m->a_w, m->a_b));
        else                 rows[i] = tt_tanh(c, tt_linear(c, row, m->b_w, m->b_b));
    }
    return tt_concat(c, rows, N, 0);
}

// Traceable: both experts on every row, and a mask picks; no value leaves the tensors.
static tt_tensor *forward_where(tt_ctx *c, tt_tensor *x, const moe *m) {
    tt_tensor *scores = tt_linear(c, x, m->gate_w, m->gate_b);            // [N, 1]
    tt_tensor *to_a = tt_gt(c, scores, tt_scalar(c, 0.0f));                // [N, 1] bool
    tt_tensor *a = tt_relu(c, tt_linear(c, x, m->a_w, m->a_b));            // [N, D]
    tt_tensor *b = tt_tanh(c, tt_linear(c, x, m->b_w, m->b_b));            // [N, D]
    return tt_where(c, to_a, a, b);                       // the [N, 1] mask broadcasts over D
}

static tt_graph *trace(tt_ctx *c, tt_tensor *(*forward)(tt_ctx *, tt_tensor *, const moe *),
                       tt_tensor *x, const moe *m) {
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    tt_tensor *y = forward(c, x, m);
    return tt_trace_end(c, &y, 1);                        // NULL (error in c) if y is NULL
}

// A graph's run next to the C router: routes ("ABBA..."), rows it got wrong ('X'), counts.
typedef struct check { char route[N + 1], wrong[N + 1]; int to_a, n_wrong; } check;
static bool run_and_check(tt_ctx *c, tt_graph *g, tt_tensor *x, const moe *m, check *r) {
    float xv[N * D], got[N * D];
    if (tt_graph_run(g, &x, 1) != TT_OK || tt_copy_to_f32(c, x, xv, N * D) != TT_OK ||
        tt_copy_to_f32(c, tt_graph_output(g, 0), got, N * D) != TT_OK) {
        printf("error: %s\n", tt_graph_status(g) != TT_OK ? tt_graph_error(g) : tt_error(c));
        return false;
    }
    r->to_a = r->n_wrong = 0;
    for (int i = 0; i < N; i++) {
        double want[D];
        r->route[i] = c_router_row(m, xv + i * D, want);
        r->wrong[i] = '.';
        for (int j = 0; j < D; j++)     // written !(err <= tol) so that a NaN counts as wrong
            if (!(fabs(got[i * D + j] - want[j]) <= 1e-5 * (1.0 + fabs(want[j])))) r->wrong[i] = 'X';
        r->to_a += r->route[i] == 'A';
        r->n_wrong += r->wrong[i] == 'X';
    }
    r->route[N] = r->wrong[N] = '\0';
    return true;
}

static int fails(bool holds, const char *claim) {          // a claim that does not hold: say so
    if (!holds) printf("FAILED: %s\n", claim);
    return !holds;
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    moe m = make_moe(c);
    int64_t shape[2] = {N, D};
    uint64_t seeds[4] = {100, 119, 113, 106};   // no gate score within 0.05 of 0: f32 and
    tt_tensor *inputs[4];                       // double route alike. [0] is traced, the rest new
    for (int s = 0; s < 4; s++) inputs[s] = tt_randn(c, seeds[s], 2, shape);
    check old, now;
    int bad = 0;

    printf("== 1. naive: C reads the gate scores and branches with if\n");
    tt_graph *g = trace(c, forward_if, inputs[0], &m);
    int warnings = tt_graph_num_warnings(g);
    printf("%d warning(s): %s\n", warnings, warnings > 0 ? tt_graph_warning(g, 0) : "(none)");
    bool ran = g && run_and_check(c, g, inputs[0], &m, &old) && run_and_check(c, g, inputs[1], &m, &now);
    int moved = 0, elsewhere = 0;           // rows whose route moved; rows where that != wrong
    for (int i = 0; ran && i < N; i++) {
        moved += now.route[i] != old.route[i];
        elsewhere += (now.route[i] != old.route[i]) != (now.wrong[i] == 'X');
    }
    if (ran) printf("traced input: routes %s, graph wrong on rows %s\nnew input:    routes %s, "
                    "graph wrong on rows %s\n", old.route, old.wrong, now.route, now.wrong);
    printf("%d row(s) route differently than traced: the graph replays the old routes\n", moved);
    bad |= fails(ran && warnings > 0, "the naive trace has a warning");
    bad |= fails(ran && old.n_wrong == 0, "the naive graph is right on the traced input");
    bad |= fails(ran && moved > 0 && elsewhere == 0, "it is wrong exactly where the routes moved");
    tt_graph_destroy(g);

    printf("\n== 2. mask = scores > 0, out = tt_where(mask, expert A, expert B)\n");
    g = trace(c, forward_where, inputs[0], &m);
    printf("%d warning(s)\n", tt_graph_num_warnings(g));
    bad |= fails(g && tt_graph_num_warnings(g) == 0, "the tt_where trace has no warning");
    for (int s = 0; g && s < 4; s++) {
        const char *which = s == 0 ? "traced input:" : "new input:   ";
        ran = run_and_check(c, g, inputs[s], &m, &now);
        if (ran) printf("%s routes %s (%d to A, %d to B), graph wrong on rows %s\n",
                        which, now.route, now.to_a, N - now.to_a, now.wrong);
        bad |= fails(ran && now.n_wrong == 0, "the tt_where graph is right on every input");
    }
    if (tt_ctx_status(c) != TT_OK) printf("error: %s\n", tt_error(c));
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    printf("\n%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    return bad;
}
