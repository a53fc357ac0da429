/* build (from the repository root; `make docs` does this, then draws the pictures):
       gcc -std=c99 -O2 -I. docs/graphs/gen_graphs.c -o build/gen_graphs -lm -lpthread
       ./build/gen_graphs DIR [threads]

   gen_graphs - the printed graphs and the pictures of docs/TRACING.md, made from the lessons'
   models: the MLP of examples/03_trace_mlp.c, the SimpleCNN of examples/04_trace_cnn.c, the
   boxes of examples/05_bounding_boxes.c, the router of examples/06_router.c (4 rows instead of
   8, so that its picture stays readable), and a first draft of a gated unit that gives each
   cleanup pass something to remove. For each graph NAME it writes
       DIR/NAME.txt   tt_graph_str, the tracer warnings, and a "#" line of tt_graph_get_stats
       DIR/NAME.dot   tt_graph_dot: `dot -Tsvg NAME.dot -o NAME.svg` draws it
   and DIR/cleanup_passes.txt, the TT_DEBUG_PASSES dump (the graph after each pass) of the
   draft's compile. A graph "as traced" is compiled with no pass (passes 0): tt_graph_dot
   draws compiled graphs only, and passes 0 keeps every traced node.
   The files are the same bytes on every run, machine, thread count and ISA: a graph depends on
   shapes, not values (the one branch on a value, the router's, has gate scores far from 0),
   warnings are written with the file's name only (not the path the compiler was given), and
   the "#" line leaves out what differs by ISA (the kernels' name, their scratch bytes). CI
   compares the .txt and .dot files with docs/graphs/. threads: each context's thread count
   (default 0: every core). Returns 1 on any error, after saying what failed on stderr. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A model: one function from an input tensor to an output tensor; w holds its weights.
typedef tt_tensor *(*model_fn)(tt_ctx *c, tt_tensor *x, const void *w);

// Traces f on the example input x (named "x"); NULL after printing the error.
static tt_graph *trace(tt_ctx *c, model_fn f, tt_tensor *x, const void *w, const char *what) {
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");                      // x: the graph's input
    tt_tensor *y = f(c, x, w);                      // computes now, and records every op
    tt_graph *g = tt_trace_end(c, &y, 1);           // NULL (error in c) if an op failed
    if (!g) fprintf(stderr, "gen_graphs: tracing %s failed: %s\n", what, tt_error(c));
    return g;
}

// ---- examples/03_trace_mlp.c: x [64,256] -> linear -> gelu -> linear -> relu -> linear [64,10]

typedef struct mlp { tt_tensor *w1, *b1, *w2, *b2, *w3, *b3; } mlp;

// A random [rows, cols] weight (cols 0: a [rows] bias), scaled so values stay near 1.
static tt_tensor *param(tt_ctx *wc, uint64_t seed, int64_t rows, int64_t cols, float scale) {
    int64_t shape[2] = {rows, cols};
    return tt_mul_scalar(wc, tt_randn(wc, seed, cols ? 2 : 1, shape), scale);
}

static tt_tensor *mlp_forward(tt_ctx *c, tt_tensor *x, const void *w) {
    const mlp *m = (const mlp *)w;
    tt_tensor *h = tt_gelu(c, tt_linear(c, x, m->w1, m->b1));    // [64,512]
    h = tt_relu(c, tt_linear(c, h, m->w2, m->b2));               // [64,512]
    return tt_linear(c, h, m->w3, m->b3);                        // [64,10]
}

// Weights in wc (parameters of the graph), the example input in c.
static tt_graph *trace_mlp(tt_ctx *wc, tt_ctx *c, mlp *m) {
    int64_t in_shape[2] = {64, 256};
    m->w1 = param(wc, 1, 512, 256, 0.0625f);   m->b1 = param(wc, 2, 512, 0, 0.1f);
    m->w2 = param(wc, 3, 512, 512, 0.0442f);   m->b2 = param(wc, 4, 512, 0, 0.1f);
    m->w3 = param(wc, 5, 10, 512, 0.0442f);    m->b3 = param(wc, 6, 10, 0, 0.1f);
    return trace(c, mlp_forward, tt_randn(c, 7, 2, in_shape), m, "the MLP");
}

// ---- examples/04_trace_cnn.c: [conv 3x3 -> batch norm -> relu -> max pool 2] x 2
//      -> global average pool -> flatten -> linear -> x*0.5+0.1 -> gelu

typedef struct block { tt_tensor *w, *b, *mean, *var; } block;      // conv + batch-norm weights
typedef struct cnn { block b1, b2; tt_tensor *fc_w, *fc_b; } cnn;

static block make_block(tt_ctx *wc, uint64_t seed, int64_t cin, int64_t cout) {
    int64_t ws[4] = {cout, cin, 3, 3};
    block b;
    b.w    = tt_mul_scalar(wc, tt_randn(wc, seed, 4, ws), 0.3f);
    b.b    = tt_mul_scalar(wc, tt_randn(wc, seed + 1, 1, &cout), 0.1f);
    b.mean = tt_mul_scalar(wc, tt_randn(wc, seed + 2, 1, &cout), 0.1f);
    b.var  = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &cout), 0.5f);   // variances > 0
    return b;
}

static tt_tensor *cnn_forward(tt_ctx *c, tt_tensor *x, const void *w) {
    const cnn *m = (const cnn *)w;
    const block *bs[2] = {&m->b1, &m->b2};
    for (int i = 0; i < 2; i++) {           // a C loop over layers: the trace unrolls it
        x = tt_conv2d(c, x, bs[i]->w, bs[i]->b, 1, 1, 1, 1);              // 3x3, padding 1
        x = tt_relu(c, tt_batch_norm(c, x, bs[i]->mean, bs[i]->var, NULL, NULL, 1e-5f));
        x = tt_max_pool2d(c, x, 2, 0, 0);
    }
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);        // [N,16,1,1] -> [N,16]
    x = tt_linear(c, x, m->fc_w, m->fc_b);                                // [N,5]
    return tt_gelu(c, tt_add_scalar(c, tt_mul_scalar(c, x, 0.5f), 0.1f)); // a chain to fuse
}

static tt_graph *trace_cnn(tt_ctx *wc, tt_ctx *c, cnn *m) {
    int64_t in_shape[4] = {2, 3, 16, 16}, fc_shape[2] = {5, 16}, five = 5;
    m->b1 = make_block(wc, 10, 3, 8);
    m->b2 = make_block(wc, 20, 8, 16);
    m->fc_w = tt_mul_scalar(wc, tt_randn(wc, 30, 2, fc_shape), 0.25f);
    m->fc_b = tt_mul_scalar(wc, tt_randn(wc, 31, 1, &five), 0.1f);
    return trace(c, cnn_forward, tt_randn(c, 1, 4, in_shape), m, "the CNN");
}

// ---- examples/05_bounding_boxes.c: boxes [3,4] in pixels / the image's (width, height)

// Version 1: the size read into C with tt_item (two warnings), one division per column.
static int per_column(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    float width  = tt_item(c, tt_slice(c, in[1], 0, 0, 1, 1));    // now a C float: the trace warns
    float height = tt_item(c, tt_slice(c, in[1], 0, 1, 2, 1));
    tt_tensor *columns[4];
    for (int j = 0; j < 4; j++) {
        tt_tensor *column = tt_slice(c, in[0], 1, j, j + 1, 1);   // [3, 1]
        columns[j] = tt_div_scalar(c, column, j % 2 == 0 ? width : height);  // x: even columns
    }
    out[0] = tt_concat(c, columns, 4, 1);
    return out[0] ? 1 : -1;
}

// Version 2: the size stays a tensor: (W, H) tiled to (W, H, W, H), one division.
static int vectorized(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    int64_t twice = 2;
    out[0] = tt_div(c, in[0], tt_tile(c, in[1], &twice, 1));      // [3, 4] / [4]: every row
    return out[0] ? 1 : -1;
}

// Traced on a 640x480 image's boxes, by tt_trace as the lesson does (inputs input0, input1).
static tt_graph *trace_boxes(tt_ctx *c, tt_forward_fn f, const char *what) {
    static const float boxes[12] = {0, 0, 640, 480,  64, 48, 320, 240,  320, 120, 480, 360};
    static const float size[2] = {640, 480};
    int64_t box_shape[2] = {3, 4}, two = 2;
    tt_tensor *in[2];
    in[0] = tt_from_data(c, TT_F32, 2, box_shape, boxes);
    in[1] = tt_from_data(c, TT_F32, 1, &two, size);
    tt_graph *g = in[0] && in[1] ? tt_trace(c, f, NULL, in, 2) : NULL;
    if (!g) fprintf(stderr, "gen_graphs: tracing %s failed: %s\n", what, tt_error(c));
    return g;
}

// ---- examples/06_router.c: a gate scores each row of x [4,4]; > 0 goes to expert A
//      (linear + relu), else to expert B (linear + tanh)

enum { ROWS = 4, D = 4 };
typedef struct moe { tt_tensor *gate_w, *gate_b, *a_w, *a_b, *b_w, *b_b; } moe;

static tt_tensor *weight(tt_ctx *c, uint64_t seed, int ndim, const int64_t *shape) {
    return tt_mul_scalar(c, tt_randn(c, seed, ndim, shape), 0.5f);
}

// Naive: the scores read into C (a warning) and an `if` per row: the graph keeps the
// branches this input took.
static tt_tensor *router_if(tt_ctx *c, tt_tensor *x, const void *w) {
    const moe *m = (const moe *)w;
    float score[ROWS];
    tt_tensor *rows[ROWS];
    tt_tensor *scores = tt_linear(c, x, m->gate_w, m->gate_b);            // [4, 1]
    if (tt_copy_to_f32(c, scores, score, ROWS) != TT_OK) return NULL;      // the warning
    for (int i = 0; i < ROWS; i++) {
        tt_tensor *row = tt_slice(c, x, 0, i, i + 1, 1);                  // [1, 4]
        if (score[i] > 0.0f) rows[i] = tt_relu(c, tt_linear(c, row, m->a_w, m->a_b));
        else                 rows[i] = tt_tanh(c, tt_linear(c, row, m->b_w, m->b_b));
    }
    return tt_concat(c, rows, ROWS, 0);
}

// Traceable: both experts on every row, and a mask picks.
static tt_tensor *router_where(tt_ctx *c, tt_tensor *x, const void *w) {
    const moe *m = (const moe *)w;
    tt_tensor *scores = tt_linear(c, x, m->gate_w, m->gate_b);            // [4, 1]
    tt_tensor *to_a = tt_gt(c, scores, tt_scalar(c, 0.0f));                // [4, 1] bool
    tt_tensor *a = tt_relu(c, tt_linear(c, x, m->a_w, m->a_b));            // [4, 4]
    tt_tensor *b = tt_tanh(c, tt_linear(c, x, m->b_w, m->b_b));            // [4, 4]
    return tt_where(c, to_a, a, b);
}

// The lesson's weights and its traced input (seed 100: rows 0-3 score 0.05 or more away from
// 0, so every ISA takes the same branches).
static tt_tensor *make_router(tt_ctx *c, moe *m) {
    int64_t gate[2] = {1, D}, one = 1, square[2] = {D, D}, d = D, shape[2] = {ROWS, D};
    m->gate_w = weight(c, 1, 2, gate);    m->gate_b = weight(c, 2, 1, &one);
    m->a_w = weight(c, 3, 2, square);     m->a_b = weight(c, 4, 1, &d);
    m->b_w = weight(c, 5, 2, square);     m->b_b = weight(c, 6, 1, &d);
    return tt_randn(c, 100, 2, shape);
}

// ---- a first draft of a gated unit, y = h * sigmoid(h) with h = tanh(x) * sqrt(4), written
//      the way drafts are: each cleanup pass has something to remove

static tt_tensor *draft(tt_ctx *c, tt_tensor *x, const void *w) {
    int64_t d = D;
    (void)w;
    tt_tensor *s = tt_sqrt(c, tt_full(c, TT_F32, 1, &d, 4.0));          // constants only: folded
    tt_tensor *h = tt_mul(c, tt_tanh(c, x), s);
    h = tt_add_scalar(c, tt_mul_scalar(c, h, 1.0f), 0.0f);              // h*1+0: simplified away
    tt_tensor *peak = tt_max(c, h, NULL, 0, false);                     // never used: dead code
    (void)peak;
    return tt_mul(c, h, tt_sigmoid(c, tt_mul(c, tt_tanh(c, x), s)));    // tanh(x)*s again: CSE
}

// ---- writing the files

// DIR/NAME into path; false (and a message) when it does not fit.
static bool make_path(char *path, size_t size, const char *dir, const char *name) {
    int n = snprintf(path, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) fprintf(stderr, "gen_graphs: the path %s/%s is too long\n", dir, name);
    return n >= 0 && (size_t)n < size;
}

// DIR/NAME opened for writing (binary: "\n" stays "\n" everywhere); NULL after a message.
static FILE *create(const char *dir, const char *name) {
    char path[1024];
    FILE *f = make_path(path, sizeof path, dir, name) ? fopen(path, "wb") : NULL;
    if (!f) fprintf(stderr, "gen_graphs: cannot write %s/%s\n", dir, name);
    return f;
}

// Closes f; 1 (and a message) when a write failed.
static int finish(FILE *f, const char *name) {
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) fprintf(stderr, "gen_graphs: writing %s failed\n", name);
    return bad;
}

// What tt_graph_str or tt_graph_dot writes for g, in a new buffer (free it); NULL if no memory.
static char *text_of(const tt_graph *g, size_t (*print)(const tt_graph *, char *, size_t)) {
    size_t need = print(g, NULL, 0);                // the size, NUL included
    char *text = (char *)malloc(need);
    if (text) print(g, text, need);
    return text;
}

// A warning with the directories of its "file:line:" cut off, so that the text does not
// depend on the path the compiler was given ("docs/graphs/gen_graphs.c:120: ..." ->
// "gen_graphs.c:120: ...").
static const char *without_dirs(const char *warning) {
    const char *colon = strchr(warning, ':'), *start = warning;
    for (const char *p = warning; colon && p < colon; p++)
        if (*p == '/' || *p == '\\') start = p + 1;
    return start;
}

// Opens DIR/NAME.EXT and writes what print (tt_graph_str or tt_graph_dot) writes for g; the
// file stays open for more (NULL, and a message, when it cannot be made or there is no memory).
static FILE *start_file(const char *dir, const char *name, const char *ext, const tt_graph *g,
                        size_t (*print)(const tt_graph *, char *, size_t), char *file, size_t size) {
    snprintf(file, size, "%s.%s", name, ext);
    FILE *f = create(dir, file);
    char *text = text_of(g, print);
    if (f && text) fputs(text, f);
    if (f && !text) {
        fclose(f);
        f = NULL;
    }
    free(text);
    return f;
}

// NAME.txt: the graph as tt_graph_str prints it, its warnings as tt_graph_print prints them,
// then the stats that do not depend on the ISA.
static int write_txt(const char *dir, const char *name, const tt_graph *g) {
    char file[256];
    FILE *f = start_file(dir, name, "txt", g, tt_graph_str, file, sizeof file);
    if (!f) return 1;
    for (int i = 0; i < tt_graph_num_warnings(g); i++) fprintf(f, "warning: %s\n", without_dirs(tt_graph_warning(g, i)));
    tt_graph_stats st = tt_graph_get_stats(g);
    fprintf(f, "# %d nodes (%d traced), %d fused; arena %zu bytes (%zu unplanned); constants %zu bytes\n",
            st.nodes, st.nodes_traced, st.fused_nodes, st.arena_bytes, st.unplanned_bytes, st.constant_bytes);
    return finish(f, file);
}

// NAME.dot: the graph for Graphviz.
static int write_dot(const char *dir, const char *name, const tt_graph *g) {
    char file[256];
    FILE *f = start_file(dir, name, "dot", g, tt_graph_dot, file, sizeof file);
    return f ? finish(f, file) : 1;
}

// g compiled with passes (0: as traced), then NAME.txt and NAME.dot.
static int save_graph(const char *dir, const char *name, tt_graph *g, unsigned passes) {
    if (tt_graph_compile(g, TT_MODE_DEFAULT, passes) != TT_OK) {
        fprintf(stderr, "gen_graphs: compiling %s failed: %s\n", name, tt_graph_error(g));
        return 1;
    }
    return write_txt(dir, name, g) || write_dot(dir, name, g);
}

// TT_DEBUG_PASSES's dump of compiling g with passes, into DIR/NAME. tinytrace prints it on
// stdout, so stdout is reopened on the file (C's own way to send printf elsewhere): this
// runs last, after everything else was written.
static int dump_passes(const char *dir, const char *name, tt_graph *g, unsigned passes) {
    char path[1024];
    if (!make_path(path, sizeof path, dir, name)) return 1;
    fflush(stdout);
    if (!freopen(path, "wb", stdout)) {
        fprintf(stderr, "gen_graphs: cannot write %s\n", path);
        return 1;
    }
    tt_graph_set_debug(g, TT_DEBUG_PASSES);         // set before compiling
    tt_status s = tt_graph_compile(g, TT_MODE_DEFAULT, passes);
    tt_graph_set_debug(g, 0);
    if (s != TT_OK) fprintf(stderr, "gen_graphs: compiling for %s failed: %s\n", name, tt_graph_error(g));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gen_graphs: writing %s failed\n", path);
        return 1;
    }
    return s != TT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s DIR [threads]: writes the graphs of docs/TRACING.md into DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    tt_ctx_desc desc = tt_ctx_desc_default();
    desc.n_threads = argc > 2 ? atoi(argv[2]) : 0;
    tt_ctx *wc = tt_ctx_create(&desc), *c = tt_ctx_create(&desc);   // weights; everything else
    if (!wc || !c) {
        fprintf(stderr, "gen_graphs: no context (out of memory, or a bad thread count)\n");
        tt_ctx_destroy(wc);
        tt_ctx_destroy(c);
        return 1;
    }

    // Trace every model; a graph is not yet compiled.
    mlp m;
    cnn k;
    moe r;
    int64_t draft_shape[2] = {2, D};
    tt_tensor *route_x = make_router(c, &r), *draft_x = tt_randn(c, 9, 2, draft_shape);
    tt_graph *g[7];
    g[0] = trace_mlp(wc, c, &m);
    g[1] = trace_cnn(wc, c, &k);
    g[2] = trace_boxes(c, per_column, "the boxes, version 1");
    g[3] = trace_boxes(c, vectorized, "the boxes, version 2");
    g[4] = trace(c, router_if, route_x, &r, "the router with if");
    g[5] = trace(c, router_where, route_x, &r, "the router with tt_where");
    g[6] = trace(c, draft, draft_x, NULL, "the draft");
    int bad = 0;
    for (int i = 0; i < 7; i++) bad |= g[i] == NULL;

    // Each picture: a graph compiled with some passes. The CNN's freeze comes last: it copies
    // the weights into the graph for good.
    static const struct { const char *name; int graph; unsigned passes; } pictures[] = {
        {"mlp_traced", 0, 0},             {"mlp_compiled", 0, TT_PASS_ALL},
        {"cnn_traced", 1, 0},             {"cnn_compiled", 1, TT_PASS_ALL},
        {"cnn_frozen", 1, TT_PASS_ALL | TT_PASS_FREEZE},
        {"boxes_item", 2, 0},             {"boxes_item_compiled", 2, TT_PASS_ALL},
        {"boxes_tensor", 3, 0},
        {"router_naive", 4, 0},           {"router_naive_compiled", 4, TT_PASS_ALL},
        {"router_where", 5, 0},           {"router_where_compiled", 5, TT_PASS_ALL},
        {"cleanup_traced", 6, 0},         {"cleanup_compiled", 6, TT_PASS_ALL},
    };
    for (size_t i = 0; !bad && i < sizeof pictures / sizeof pictures[0]; i++)
        bad = save_graph(dir, pictures[i].name, g[pictures[i].graph], pictures[i].passes);

    // Last, as it takes stdout: the draft's compile printed pass by pass.
    bad = bad || dump_passes(dir, "cleanup_passes.txt", g[6], TT_PASS_ALL);

    for (int i = 0; i < 7; i++) tt_graph_destroy(g[i]);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    return bad;
}
