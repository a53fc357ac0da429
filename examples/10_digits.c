/* build: cc -std=c99 -O2 -I.. 10_digits.c -lm -lpthread && cd .. && examples/a.out

   10_digits - a real task: handwritten digits (UCI's 8x8 images, examples/data/README.md),
   classified by an MLP, pixels/16 -> 64 -> relu -> 10, that examples/train_digits.py trained in
   PyTorch on 3 images in 4 and saved as safetensors. tinytrace loads it, traces and compiles it
   once and runs it on the other 450 images in one batch. Checked: the compiled logits equal
   eager's bit for bit and a plain C forward pass in double within a worked-out rounding bound;
   the accuracy is >= 95% and PyTorch's (from the file's metadata). Run from the repository root. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_FILE  "examples/data/digits.bin"   // records of 64 pixels (0..16), then the label
#define MODEL_FILE "examples/data/digits_model.safetensors"
enum { N_IMAGES = 1797, N_TEST = 450 };          // the test images: 0, 4, 8, ..., 1796
enum { PIXELS = 64, MAX_HIDDEN = 256, CLASSES = 10 };  // widths; the hidden one is the file's

typedef struct mlp { tt_tensor *w1, *b1, *w2, *b2; } mlp;           // the weights as tensors
typedef struct lesson {                                             // everything big, one malloc
    float pixels[N_TEST * PIXELS], logits[N_TEST * CLASSES], eager[N_TEST * CLASSES];
    float predicted[N_TEST], w1[MAX_HIDDEN * PIXELS], b1[MAX_HIDDEN], w2[CLASSES * MAX_HIDDEN], b2[CLASSES];
    int labels[N_TEST], hidden;
} lesson;

// The model. Dividing by 16 is exact in float (a power of two), as in the training script.
static tt_tensor *forward(tt_ctx *c, tt_tensor *pixels, const mlp *m) {
    tt_tensor *x = tt_mul_scalar(c, pixels, 1.0f / 16.0f);
    tt_tensor *h = tt_relu(c, tt_linear(c, x, m->w1, m->b1));        // [N, hidden]
    return tt_linear(c, h, m->w2, m->b2);                           // [N, 10]: a score per digit
}

// Keeps the test images (every fourth record) and checks the file is what it should be.
static int read_test_set(lesson *L) {
    FILE *f = fopen(DATA_FILE, "rb");
    unsigned char rec[PIXELS + 1];
    int ok = f != NULL, n = 0;
    for (int i = 0; ok && i < N_IMAGES; i++) {
        ok = fread(rec, 1, sizeof rec, f) == sizeof rec && rec[PIXELS] < CLASSES;
        for (int k = 0; ok && k < PIXELS; k++) ok = rec[k] <= 16;
        if (!ok || i % 4 != 0) continue;
        for (int k = 0; k < PIXELS; k++) L->pixels[n * PIXELS + k] = rec[k];
        L->labels[n++] = rec[PIXELS];
    }
    ok = ok && fgetc(f) == EOF && n == N_TEST;                      // and nothing after the last
    if (!ok) printf("%s: %s\n", DATA_FILE, f ? "not 1797 records of 64 pixels (0..16) and a label (0..9)"
                                             : "cannot open it (run this from the repository root)");
    if (f) fclose(f);
    return ok;
}

// Load, trace, compile, run: the graph's logits and predictions, eager's logits, the weights
// as floats, PyTorch's count of correct test images. Returns 0 (and prints why) on failure.
static int run_model(tt_ctx *c, lesson *L, const char **torch_correct) {
    tt_safetensors *st = tt_safetensors_open(c, MODEL_FILE);       // its bytes live in c
    mlp m = {tt_safetensors_get(st, "fc1.weight"), tt_safetensors_get(st, "fc1.bias"),  // PyTorch's
             tt_safetensors_get(st, "fc2.weight"), tt_safetensors_get(st, "fc2.bias")};   // names
    *torch_correct = tt_safetensors_metadata(st, "test_correct");
    L->hidden = m.w1 && m.w1->shape[0] <= MAX_HIDDEN ? (int)m.w1->shape[0] : 0;   // fc1: [hidden, 64]
    int64_t shape[2] = {N_TEST, PIXELS};
    tt_tensor *x = tt_from_data(c, TT_F32, 2, shape, L->pixels);
    tt_trace_begin(c);                    // traced once, on the test batch as the example input
    tt_trace_input(c, x, "pixels");
    tt_tensor *logits = forward(c, x, &m);
    tt_tensor *outputs[2] = {logits, tt_argmax(c, logits, 1, false)};   // + the predicted digit
    tt_graph *g = tt_trace_end(c, outputs, 2);
    int ok = g && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) == TT_OK && tt_graph_run(g, &x, 1) == TT_OK &&
             tt_copy_to_f32(c, tt_graph_output(g, 0), L->logits, N_TEST * CLASSES) == TT_OK &&
             tt_copy_to_f32(c, tt_graph_output(g, 1), L->predicted, N_TEST) == TT_OK &&    // i32 -> float
             tt_copy_to_f32(c, forward(c, x, &m), L->eager, N_TEST * CLASSES) == TT_OK &&   // eager again
             tt_copy_to_f32(c, m.w1, L->w1, L->hidden * PIXELS) == TT_OK &&                // the weights for
             tt_copy_to_f32(c, m.w2, L->w2, CLASSES * L->hidden) == TT_OK &&               // the C check
             tt_copy_to_f32(c, m.b1, L->b1, L->hidden) == TT_OK && tt_copy_to_f32(c, m.b2, L->b2, CLASSES) == TT_OK;
    if (tt_ctx_status(c) != TT_OK) printf("error: %s\n", tt_error(c));
    else if (g && tt_graph_status(g) != TT_OK) printf("graph error: %s\n", tt_graph_error(g));
    else if (!*torch_correct) printf("%s: no test_correct in its metadata\n", MODEL_FILE);
    else if (ok) printf("%s: MLP 64 -> %d -> 10, graph of %d nodes\n", MODEL_FILE, L->hidden, tt_graph_num_nodes(g));
    tt_graph_destroy(g);
    return ok && *torch_correct;
}

// One layer in double: out = w in + b, and out_size = |w| in_size + |b|, the sum of |terms|.
static void dense(const float *w, const float *b, const double *in, const double *in_size, int n_in, int n_out,
                  double *out, double *out_size) {
    for (int o = 0; o < n_out; o++) {
        out[o] = b[o];
        out_size[o] = fabs(b[o]);
        for (int k = 0; k < n_in; k++) {
            out[o] += (double)w[o * n_in + k] * in[k];
            out_size[o] += fabs((double)w[o * n_in + k]) * in_size[k];
        }
    }
}

// One image in double, and per logit a bound on float rounding. A float sum of n terms (any
// order, FMA or not) is within n*2^-24 * (the sum of |terms|) of the exact sum; with that sum
// carried through both layers, a logit is off by at most 2 * gamma * size (to first order).
static void reference(const lesson *L, const float *pixels, double *logit, double *bound) {
    const double gamma = (fmax((double)PIXELS, (double)L->hidden) + 2) * ldexp(1.0, -24);  // + bias, slack
    double x[PIXELS], h[MAX_HIDDEN], h_size[MAX_HIDDEN];
    for (int k = 0; k < PIXELS; k++) x[k] = pixels[k] / 16.0;       // >= 0: its own size
    dense(L->w1, L->b1, x, x, PIXELS, L->hidden, h, h_size);
    for (int j = 0; j < L->hidden; j++) h[j] = fmax(h[j], 0.0);     // relu: still |h| <= h_size
    dense(L->w2, L->b2, h, h_size, L->hidden, CLASSES, logit, bound);
    for (int i = 0; i < CLASSES; i++) bound[i] *= 2.0 * gamma;
}

// Compiled against eager, every image against the double reference (the first printed), then
// the accuracy and the confusion matrix (row: true digit; column: predicted). 1 on a failure.
static int check(const lesson *L, const char *torch_correct) {
    int confusion[CLASSES][CLASSES] = {{0}}, correct = 0, agree = 0;
    double worst = 0.0;                                             // the largest error / bound
    int bad = memcmp(L->logits, L->eager, sizeof L->logits) != 0;   // same kernels, same order
    printf("compiled logits bitwise equal to eager: %s\n", bad ? "NO" : "yes");
    printf("first test image (a %d), logits: tinytrace, double, error <= bound\n", L->labels[0]);
    for (int n = 0; n < N_TEST; n++) {
        double want[CLASSES], bound[CLASSES];
        int guess = (int)L->predicted[n], best = 0;
        reference(L, L->pixels + n * PIXELS, want, bound);
        for (int i = 0; i < CLASSES; i++) {
            double err = fabs(L->logits[n * CLASSES + i] - want[i]);
            worst = fmax(worst, err / bound[i]);
            if (want[i] > want[best]) best = i;
            if (n == 0) printf(" %d: %10.6f %10.6f  %.1e <= %.1e\n", i, L->logits[i], want[i], err, bound[i]);
        }
        agree += best == guess;
        correct += guess == L->labels[n];
        confusion[L->labels[n]][guess]++;
    }
    bad |= worst > 1.0 || agree != N_TEST;
    printf("all %d logits within their bounds: %s (largest error/bound %.3f); same predictions as "
           "double: %d/%d\n", N_TEST * CLASSES, worst <= 1.0 ? "yes" : "NO", worst, agree, N_TEST);
    printf("test accuracy: %d/%d = %.2f%% (PyTorch: %s/%d)\nconfusion matrix (rows: true digit, "
           "columns: predicted)\n    ", correct, N_TEST, 100.0 * correct / N_TEST, torch_correct, N_TEST);
    for (int j = 0; j < CLASSES; j++) printf("%4d", j);
    for (int i = 0; i < CLASSES; i++) {
        printf("\n %d: ", i);
        for (int j = 0; j < CLASSES; j++) printf("%4d", confusion[i][j]);
    }
    printf("\n");
    if (correct < 0.95 * N_TEST) { printf("FAILED: accuracy below 95%%\n"); bad = 1; }
    if (correct != atoi(torch_correct)) { printf("FAILED: PyTorch got %s right\n", torch_correct); bad = 1; }
    return bad;
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    lesson *L = (lesson *)malloc(sizeof *L);
    const char *torch_correct = NULL;                               // lives in c, with the file
    int bad = !c || !L || !read_test_set(L) || !run_model(c, L, &torch_correct) || check(L, torch_correct);
    printf("%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    tt_ctx_destroy(c);                      // the weights and their file's bytes go with it
    free(L);
    return bad;
}
