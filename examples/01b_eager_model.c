/* build: cc -std=c99 -O2 -I.. 01b_eager_model.c -lm -lpthread && ./a.out

   01b_eager_model - a tiny convolutional classifier written with eager ops:
       conv 3x3 -> batch norm -> relu -> max pool 2x2 -> global average pool -> linear -> softmax
   It prints each layer's output shape and the class probabilities, checks the probabilities
   and one output of the convolution against plain C, and shows what a mistake looks like.
   Weights are random (seeded), so the "classes" mean nothing: the point is the mechanics. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>

static void show(const char *layer, const tt_tensor *t) {     // print one layer's output shape
    char buf[64];
    printf("  %-26s -> %s\n", layer, t ? tt_shape_str(t, buf, sizeof buf) : "(failed)");
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);                            // owns every tensor below
    int64_t xs[4] = {1, 3, 8, 8}, ws[4] = {8, 3, 3, 3}, cs[1] = {8}, fs[2] = {5, 8};
    int64_t at_b[1] = {2}, at_h1[4] = {0, 2, 3, 5}, feat_shape[2] = {1, 8}, wrong[2] = {5, 7};
    int bad = 0;

    // Parameters: random but deterministic (a seed gives the same values on every machine).
    tt_tensor *conv_w  = tt_mul_scalar(c, tt_randn(c, 2, 4, ws), 0.2f);  // [Cout,Cin,kh,kw]
    tt_tensor *conv_b  = tt_mul_scalar(c, tt_randn(c, 3, 1, cs), 0.1f);
    tt_tensor *bn_mean = tt_mul_scalar(c, tt_randn(c, 4, 1, cs), 0.1f);  // "running" statistics
    tt_tensor *bn_var  = tt_add_scalar(c, tt_rand(c, 5, 1, cs), 0.5f);   // variances must be > 0
    tt_tensor *fc_w    = tt_mul_scalar(c, tt_randn(c, 6, 2, fs), 0.5f);  // 8 features -> 5 classes
    size_t params_bytes = tt_ctx_used(c);

    // Three images. Everything made between scope_begin and scope_end is freed at scope_end,
    // so the loop runs in constant memory while the parameters (made before) stay.
    for (int img = 0; img < 3 && !bad; img++) {
        tt_scope scope = tt_scope_begin(c);
        tt_tensor *x  = tt_randn(c, 100 + img, 4, xs);
        tt_tensor *h1 = tt_conv2d(c, x, conv_w, conv_b, 1, 1, 1, 1);     // stride 1, padding 1
        tt_tensor *h2 = tt_relu(c, tt_batch_norm(c, h1, bn_mean, bn_var, NULL, NULL, 1e-5f));
        tt_tensor *h3 = tt_max_pool2d(c, h2, 2, 0, 0);                  // stride 0: = kernel
        tt_tensor *h4 = tt_adaptive_avg_pool2d(c, h3, 1, 1);            // one value per channel
        tt_tensor *h5 = tt_flatten(c, h4, 1, -1);                        // [N,C,1,1] -> [N,C]
        tt_tensor *p  = tt_softmax(c, tt_linear(c, h5, fc_w, NULL), -1);
        float probs[5];
        double total = 0.0;
        if (!p || tt_copy_to_f32(c, p, probs, 5) != TT_OK) {           // one check for the chain
            printf("error: %s\n", tt_error(c));
            bad = 1;
            break;
        }
        if (img == 0) {
            show("input", x);            show("conv2d 3x3, 8 filters", h1);
            show("batch_norm + relu", h2); show("max_pool2d 2x2", h3);
            show("adaptive_avg_pool2d 1x1", h4); show("flatten", h5);
            show("linear + softmax", p);

            // Check one convolution output, channel 2 at row 3, column 5, with plain loops.
            double want = tt_get(c, conv_b, at_b), got;
            for (int ci = 0; ci < 3; ci++)
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++) {
                        int64_t iw[4] = {2, ci, ky, kx}, ix[4] = {0, ci, 3 + ky - 1, 5 + kx - 1};
                        if (ix[2] < 0 || ix[2] >= 8 || ix[3] < 0 || ix[3] >= 8) continue;  // padding
                        want += (double)tt_get(c, conv_w, iw) * tt_get(c, x, ix);
                    }
            got = tt_get(c, h1, at_h1);
            printf("  conv output [0,2,3,5] = %.6f, plain C loop: %.6f\n", got, want);
            if (fabs(got - want) > 1e-5) bad = 1;
        }
        printf("image %d probabilities:", img);
        for (int k = 0; k < 5; k++) { printf(" %.4f", probs[k]); total += probs[k]; }
        printf("  (sum %.6f)\n", total);
        if (fabs(total - 1.0) > 1e-5) bad = 1;
        tt_scope_end(c, scope);
        if (tt_ctx_used(c) != params_bytes) bad = 1;                     // the scope freed it all
    }
    printf("arena bytes in use after the loop: %zu (the parameters: %zu)\n", tt_ctx_used(c), params_bytes);

    // A deliberate mistake: a weight for 7 input features, given 8. The op returns NULL and the
    // context keeps a message naming the op and both shapes; clear it to go on.
    tt_tensor *feat = tt_ones(c, TT_F32, 2, feat_shape);
    tt_tensor *oops = tt_linear(c, feat, tt_randn(c, 7, 2, wrong), NULL);
    const char *msg = tt_error(c);                                   // NULL when no error
    printf("deliberate mistake: result %s, error \"%s\"\n", oops ? "non-NULL" : "NULL", msg ? msg : "");
    if (oops || tt_ctx_status(c) != TT_ERR_SHAPE) bad = 1;
    tt_clear_error(c);

    tt_ctx_destroy(c);
    printf("%s\n", bad ? "CHECKS FAILED" : "all checks passed");
    return bad;
}
