/* build: cc -std=c99 -O2 -I.. 05_bounding_boxes.c -lm -lpthread && ./a.out

   05_bounding_boxes - a value read from a tensor freezes into the graph.

   A detector gives boxes [N, 4] as (x0, y0, x1, y1) in pixels; we want them as fractions of
   the image: x divided by the width, y by the height. The size comes in a tensor (W, H).
   Version 1 reads W and H into C with tt_item and divides column by column. While tracing,
   that read is recorded as a warning and the two floats become constants of the graph: run
   it on a 1280x720 image and it still divides by 640 and 480. Version 2 keeps the size a
   tensor: (W, H) tiled to (W, H, W, H), one tt_div of all boxes; no warning, and the one
   graph is right for every size. (Why not take W and H from an image tensor's shape? A
   graph is traced for one input shape: tt_graph_run refuses another.) Both graphs are
   traced on a 640x480 image, run on both images, and checked against a plain C loop (the
   program returns 1 if a claim fails). */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 3                                        // boxes per image

typedef struct image {
    float width, height;
    float boxes[N * 4];                            // (x0, y0, x1, y1) per box, in pixels
} image;

static const image small = {640, 480, {0, 0, 640, 480,  64, 48, 320, 240,  320, 120, 480, 360}};
static const image large = {1280, 720, {0, 0, 1280, 720,  128, 72, 640, 360,  960, 180, 1280, 540}};

// Version 1: per column, with the size read into C. Fine eagerly; wrong once traced.
static int per_column(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    float width  = tt_item(c, tt_slice(c, in[1], 0, 0, 1, 1));    // now a C float: the trace warns
    float height = tt_item(c, tt_slice(c, in[1], 0, 1, 2, 1));
    tt_tensor *columns[4];
    for (int j = 0; j < 4; j++) {
        tt_tensor *column = tt_slice(c, in[0], 1, j, j + 1, 1);   // [N, 1]
        columns[j] = tt_div_scalar(c, column, j % 2 == 0 ? width : height);  // x: even columns
    }
    out[0] = tt_concat(c, columns, 4, 1);
    return out[0] ? 1 : -1;
}

// Version 2: vectorized; the size never leaves the graph.
static int vectorized(tt_ctx *c, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    (void)n_in; (void)max_out; (void)user;
    int64_t twice = 2;
    tt_tensor *divisor = tt_tile(c, in[1], &twice, 1);             // (W, H) -> (W, H, W, H)
    out[0] = tt_div(c, in[0], divisor);                            // [N, 4] / [4]: every row
    return out[0] ? 1 : -1;
}

// The graph's inputs for one image: its boxes [N, 4] and its size (W, H) as a [2] tensor.
static void make_inputs(tt_ctx *c, const image *im, tt_tensor **in) {
    int64_t box_shape[2] = {N, 4};
    int64_t size_shape[1] = {2};
    float size[2];
    size[0] = im->width;
    size[1] = im->height;
    in[0] = tt_from_data(c, TT_F32, 2, box_shape, im->boxes);
    in[1] = tt_from_data(c, TT_F32, 1, size_shape, size);
}

// Runs g on im and prints each box beside the plain C answer: boxes / (im's width, height).
// On an error got is all NaN, so the checks that follow fail.
static void run(tt_graph *g, tt_ctx *c, const image *im, float *got) {
    tt_tensor *in[2];
    make_inputs(c, im, in);
    if (tt_graph_run(g, in, 2) != TT_OK || tt_copy_to_f32(c, tt_graph_output(g, 0), got, N * 4) != TT_OK) {
        const char *why = tt_graph_error(g) ? tt_graph_error(g) : tt_error(c);
        printf("error: %s\n", why ? why : "?");
        for (int i = 0; i < N * 4; i++) got[i] = NAN;
        return;
    }
    printf("  run on %gx%g (the graph | plain C):\n", im->width, im->height);
    for (int i = 0; i < N * 4; i += 4) {
        const float *b = im->boxes + i;
        printf("    %6.3f %6.3f %6.3f %6.3f", got[i], got[i + 1], got[i + 2], got[i + 3]);
        printf("  | %6.3f %6.3f %6.3f %6.3f\n", b[0] / im->width, b[1] / im->height,
               b[2] / im->width, b[3] / im->height);
    }
}

// True when got equals boxes / (width, height), computed in double by a plain C loop.
static int divided_by(const float *got, const image *im, double width, double height) {
    for (int i = 0; i < N * 4; i++) {
        double want = im->boxes[i] / (i % 2 == 0 ? width : height);   // even columns are x
        if (!(fabs(got[i] - want) <= 1e-6 * (1.0 + fabs(want)))) return 0;   // NaN fails too
    }
    return 1;
}

// Traces fn on the 640x480 image and prints the tracer's warnings.
static tt_graph *trace_on_small(tt_ctx *c, tt_forward_fn fn, const char *name) {
    tt_tensor *example[2];
    make_inputs(c, &small, example);
    tt_graph *g = tt_trace(c, fn, NULL, example, 2);
    if (!g) {
        printf("error: %s\n", tt_error(c));
        return NULL;
    }
    printf("%s, traced on 640x480: %d warning(s)\n", name, tt_graph_num_warnings(g));
    for (int i = 0; i < tt_graph_num_warnings(g); i++) printf("  warning: %s\n", tt_graph_warning(g, i));
    return g;
}

static int claim(int holds, const char *what) {
    printf("  %s: %s\n", what, holds ? "yes" : "NO, the claim failed");
    return holds ? 0 : 1;
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    float got[N * 4];
    int failed = 0;

    tt_graph *v1 = trace_on_small(c, per_column, "version 1 (tt_item, per column)");
    int warned = v1 && tt_graph_num_warnings(v1) == 2 && strstr(tt_graph_warning(v1, 0), "tt_item read") &&
                 strstr(tt_graph_warning(v1, 1), "tt_item read");
    failed |= claim(warned, "one warning per tt_item");
    if (v1) {
        run(v1, c, &small, got);
        failed |= claim(divided_by(got, &small, 640, 480), "right: boxes / (640, 480)");
        run(v1, c, &large, got);
        failed |= claim(!divided_by(got, &large, 1280, 720), "WRONG for this image: not boxes / (1280, 720)");
        failed |= claim(divided_by(got, &large, 640, 480), "the traced size is frozen: boxes / (640, 480)");
    }

    printf("\n");
    tt_graph *v2 = trace_on_small(c, vectorized, "version 2 (one tt_div by the size tensor)");
    failed |= claim(v2 && tt_graph_num_warnings(v2) == 0, "no warning");
    if (v2) {
        run(v2, c, &small, got);
        failed |= claim(divided_by(got, &small, 640, 480), "right: boxes / (640, 480)");
        run(v2, c, &large, got);
        failed |= claim(divided_by(got, &large, 1280, 720), "right: boxes / (1280, 720)");
    }

    tt_graph_destroy(v1);
    tt_graph_destroy(v2);
    tt_ctx_destroy(c);
    return failed;
}
