/* test_conv.c - conv2d / conv2d_ex / conv1d, max/avg/adaptive pooling and nearest upsampling
   against direct loops in double precision.

   The convolution reference is the textbook 7-loop sum over (n, o, oh, ow, ci, i, j); each
   output element's tolerance is 1e-6 * (sum|x*w| + |bias|) since the library accumulates in
   f32. Max pooling and nearest upsampling only copy values, so they are checked exactly. */
#include "test_util.h"
#include "tt_hooks.h"
#include "zoo_models.h"            /* tr_mbv2_*: MobileNetV2's blocks, small */
#include <stdio.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* Direct convolution: x [N,C,H,W] (logical, row-major), w [O,C/groups,KH,KW], bias [O] or NULL.
   Returns the output count and writes OH, OW; out and tol are malloc'd. */
static long long cv_ref_conv2d(const double *x, int64_t N, int64_t C, int64_t H, int64_t W,
                               const double *w, int64_t O, int64_t KH, int64_t KW, const double *bias,
                               int sh, int sw, int ph, int pw, int dh, int dw, int groups,
                               double **out, double **tol, int64_t *OHp, int64_t *OWp) {
    int64_t OH = (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1;
    int64_t OW = (W + 2 * pw - dw * (KW - 1) - 1) / sw + 1;
    int64_t Cg = C / groups, Og = O / groups;
    long long total = N * O * OH * OW;
    int64_t n, o, oh, ow, ci, i, j;
    double *y = (double *)malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *t = (double *)malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    for (n = 0; n < N; n++)
        for (o = 0; o < O; o++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    int64_t g = o / Og;
                    double s = bias ? bias[o] : 0.0, sabs = bias ? fabs(bias[o]) : 0.0;
                    for (ci = 0; ci < Cg; ci++)
                        for (i = 0; i < KH; i++)
                            for (j = 0; j < KW; j++) {
                                int64_t ih = oh * sh - ph + i * dh, iw = ow * sw - pw + j * dw;
                                double p;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                p = x[((n * C + g * Cg + ci) * H + ih) * W + iw] * w[((o * Cg + ci) * KH + i) * KW + j];
                                s += p;
                                sabs += fabs(p);
                            }
                    y[((n * O + o) * OH + oh) * OW + ow] = s;
                    t[((n * O + o) * OH + oh) * OW + ow] = 1e-6 * sabs;
                }
    *out = y;
    *tol = t;
    *OHp = OH;
    *OWp = OW;
    return total;
}

/* One conv2d case with contiguous random x [N,C,H,W], w [O,C/groups,KH,KW] and optional bias;
   ex != 0 runs tt_conv2d_ex with per-axis settings, else tt_conv2d with the height settings. */
typedef struct cv_case {
    int64_t N, C, H, W, O, KH, KW;
    int sh, sw, ph, pw, dh, dw, groups, bias, ex;
} cv_case;

static void cv_run_case(const cv_case *k, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ws[4], bs[1], ys[4], OH, OW;
    double *vx, *vw, *vb = NULL, *want, *tol;
    long long n;
    tt_tensor *x, *w, *b = NULL, *y;
    xs[0] = k->N; xs[1] = k->C; xs[2] = k->H; xs[3] = k->W;
    ws[0] = k->O; ws[1] = k->C / k->groups; ws[2] = k->KH; ws[3] = k->KW;
    bs[0] = k->O;
    x = tu_rand(c, 4, xs, seed, -1.0, 1.0, &vx);
    w = tu_rand(c, 4, ws, seed + 1, -1.0, 1.0, &vw);
    if (k->bias) b = tu_rand(c, 1, bs, seed + 2, -1.0, 1.0, &vb);
    n = cv_ref_conv2d(vx, k->N, k->C, k->H, k->W, vw, k->O, k->KH, k->KW, vb, k->sh, k->sw, k->ph, k->pw,
                      k->dh, k->dw, k->groups, &want, &tol, &OH, &OW);
    if (k->ex) {
        tt_conv_params p;
        memset(&p, 0, sizeof p);
        p.stride[0] = k->sh; p.stride[1] = k->sw;
        p.padding[0] = k->ph; p.padding[1] = k->pw;
        p.dilation[0] = k->dh; p.dilation[1] = k->dw;
        p.groups = k->groups;
        y = tt_conv2d_ex(c, x, w, b, &p);
    } else {
        y = tt_conv2d(c, x, w, b, k->sh, k->ph, k->dh, k->groups);
    }
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ys[0] = k->N; ys[1] = k->O; ys[2] = OH; ys[3] = OW;
    if (tu_check_shape(y, 4, ys, file, line)) tu_check_close(c, y, want, tol, 0.0, 0.0, n, file, line);
    free(vx); free(vw); free(vb); free(want); free(tol);
    tt_ctx_destroy(c);
}

/* Square-setting case for tt_conv2d. */
static void cv_sq(int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t KH, int64_t KW,
                  int stride, int pad, int dil, int groups, int bias, unsigned long long seed,
                  const char *file, int line) {
    cv_case k;
    k.N = N; k.C = C; k.H = H; k.W = W; k.O = O; k.KH = KH; k.KW = KW;
    k.sh = k.sw = stride; k.ph = k.pw = pad; k.dh = k.dw = dil;
    k.groups = groups; k.bias = bias; k.ex = 0;
    cv_run_case(&k, seed, file, line);
}
#define CV_SQ(N, C, H, W, O, KH, KW, s, p, d, g, b, seed) \
    cv_sq((N), (C), (H), (W), (O), (KH), (KW), (s), (p), (d), (g), (b), (seed), __FILE__, __LINE__)

/* ---- conv2d ------------------------------------------------------------------------------- */

static void test_conv2d_basic(void) {
    CV_SQ(1, 3, 7, 9, 4, 3, 3, 1, 0, 1, 1, 1, 1);   /* 3x3, bias */
    CV_SQ(1, 3, 7, 9, 4, 3, 3, 1, 1, 1, 1, 0, 2);   /* "same" padding, no bias */
    CV_SQ(3, 2, 7, 9, 5, 3, 3, 1, 1, 1, 1, 1, 3);   /* batch 3 */
    CV_SQ(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 4);   /* everything 1 */
    CV_SQ(2, 3, 1, 1, 4, 1, 1, 1, 0, 1, 1, 0, 5);   /* 1x1 spatial, 1x1 kernel */
    CV_SQ(2, 3, 1, 1, 4, 3, 3, 1, 1, 1, 1, 1, 6);   /* 1x1 spatial, 3x3 kernel, pad 1: only the centre tap */
    CV_SQ(1, 3, 33, 5, 2, 3, 3, 1, 1, 1, 1, 1, 7);  /* 33x5 */
    CV_SQ(1, 3, 33, 17, 8, 3, 3, 1, 1, 1, 1, 1, 8); /* 1683 inputs, 4488 outputs */
    CV_SQ(3, 4, 7, 9, 6, 1, 1, 1, 0, 1, 1, 1, 9);   /* pointwise */
    CV_SQ(3, 4, 7, 9, 6, 1, 1, 2, 1, 1, 1, 1, 10);  /* pointwise with stride and padding (border = bias) */
    CV_SQ(1, 2, 9, 7, 3, 5, 3, 1, 0, 1, 1, 1, 11);  /* non-square kernel 5x3 */
    CV_SQ(2, 2, 9, 7, 3, 5, 3, 2, 2, 1, 1, 0, 12);
    CV_SQ(1, 2, 7, 9, 3, 3, 5, 1, 2, 2, 1, 1, 13);  /* 3x5 with dilation */
    CV_SQ(1, 16, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 14); /* deeper reduction: 144 terms */
    CV_SQ(3, 16, 100, 100, 2, 3, 3, 1, 1, 1, 1, 1, 15); /* 3 images, GEMMs of at most 2 (16 MiB of columns) */
    CV_SQ(2, 32, 20, 30, 24, 3, 3, 1, 1, 1, 1, 1, 16); /* 288 terms: more than one SGEMM k block */
    CV_SQ(2, 24, 21, 17, 16, 3, 3, 2, 2, 2, 1, 1, 17); /* the same with stride 2, padding 2, dilation 2 */
    CV_SQ(1, 40, 9, 11, 12, 5, 5, 1, 4, 1, 1, 0, 18);  /* padding wider than half the kernel */
}

static void test_conv2d_stride_padding_dilation(void) {
    static const int strides[3] = {1, 2, 3}, pads[3] = {0, 1, 2}, dils[2] = {1, 2};
    int s, p, d;
    unsigned long long seed = 100;
    for (s = 0; s < 3; s++)
        for (p = 0; p < 3; p++)
            for (d = 0; d < 2; d++) {
                CV_SQ(3, 2, 7, 9, 4, 3, 3, strides[s], pads[p], dils[d], 1, (s + p + d) % 2, seed);
                seed += 3;
            }
    /* stride larger than the kernel, and an output of one element */
    CV_SQ(1, 2, 7, 7, 2, 2, 2, 3, 0, 1, 1, 1, 150);
    CV_SQ(1, 2, 5, 5, 2, 5, 5, 1, 0, 1, 1, 1, 151);
    CV_SQ(1, 2, 3, 3, 2, 5, 5, 1, 1, 1, 1, 1, 152);  /* kernel equal to the padded input */
    CV_SQ(1, 1, 5, 5, 1, 3, 3, 1, 0, 2, 1, 1, 153);  /* dilated kernel spans the whole input */
}

/* Batches whose column matrix is megabytes (above half of any common L2 cache): the GEMM
   packs its B straight from the images (implicit im2col) instead of writing the matrix.
   Against the double reference, and bitwise against each image convolved alone (456 KB of
   columns at most: written out where the L2 is 1 MB or more, else packed implicitly too):
   the packed numbers and the sums are the same either way. */
static void cv_implicit_case(const cv_case *k, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ws[4], n;
    tt_tensor *x, *w, *b, *y;
    tt_conv_params p;
    cv_run_case(k, seed, file, line);
    xs[0] = k->N; xs[1] = k->C; xs[2] = k->H; xs[3] = k->W;
    ws[0] = k->O; ws[1] = k->C; ws[2] = k->KH; ws[3] = k->KW;
    x = tt_randn(c, seed + 10, 4, xs);
    w = tt_randn(c, seed + 11, 4, ws);
    b = tt_randn(c, seed + 12, 1, ws);
    memset(&p, 0, sizeof p);
    p.stride[0] = k->sh; p.stride[1] = k->sw; p.padding[0] = k->ph; p.padding[1] = k->pw;
    p.dilation[0] = k->dh; p.dilation[1] = k->dw; p.groups = 1;
    y = tt_conv2d_ex(c, x, w, b, &p);
    for (n = 0; y && n < k->N; n++) {
        tt_tensor *one = tt_conv2d_ex(c, tt_contiguous(c, tt_slice(c, x, 0, n, n + 1, 1)), w, b, &p);
        tu_same_bits(c, tt_slice(c, y, 0, n, n + 1, 1), one, file, line);
    }
    if (!y) tt_test__fail(file, line, "tt_conv2d_ex returned NULL");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    tt_ctx_destroy(c);
}

static void test_conv2d_implicit_im2col(void) {
    /* N, C, H, W, O, KH, KW, sh, sw, ph, pw, dh, dw, groups, bias, ex */
    static const cv_case cases[] = {
        {12, 32, 18, 22, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* 5.5 MB of columns, 288 terms: two k blocks */
        {16, 20, 31, 29, 17, 5, 3, 2, 2, 2, 1, 2, 2, 1, 1, 1},   /* stride, padding, dilation per axis; odd sizes */
        {8, 1, 64, 61, 5, 7, 7, 1, 1, 3, 3, 1, 1, 1, 0, 1},      /* one channel, 7x7, rows of 61 across slivers */
        {3, 3, 120, 110, 8, 11, 11, 4, 4, 2, 2, 1, 1, 1, 1, 1},  /* AlexNet's first layer, smaller */
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) cv_implicit_case(&cases[i], 300u + 7u * (unsigned)i, __FILE__, __LINE__);
}

/* Direct convolution by bands (groups 1, up to 32 input channels, output channels a
   multiple of 8, products the GEMM packs): against the double reference; bitwise against
   the same convolution with one more output channel (not a multiple of 8: im2col + GEMM),
   whose sums are in the same k blocks; and bitwise on 1 thread and 3. */
static void cv_direct_case(const cv_case *k, unsigned long long seed, const char *file, int line) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c = tu_ctx(), *c1, *c3;
    int64_t xs[4], ws[4], ws1[4];
    tt_tensor *x, *w, *w1, *b, *b1, *y, *y_gemm;
    tt_conv_params p;
    cv_run_case(k, seed, file, line);
    xs[0] = k->N; xs[1] = k->C; xs[2] = k->H; xs[3] = k->W;
    ws[0] = k->O; ws[1] = k->C; ws[2] = k->KH; ws[3] = k->KW;
    memcpy(ws1, ws, sizeof ws);
    ws1[0] = k->O + 1;
    x = tt_randn(c, seed + 10, 4, xs);
    w1 = tt_randn(c, seed + 11, 4, ws1);
    b1 = tt_randn(c, seed + 12, 1, ws1);
    w = tt_contiguous(c, tt_slice(c, w1, 0, 0, k->O, 1));
    b = tt_contiguous(c, tt_slice(c, b1, 0, 0, k->O, 1));
    memset(&p, 0, sizeof p);
    p.stride[0] = k->sh; p.stride[1] = k->sw; p.padding[0] = k->ph; p.padding[1] = k->pw;
    p.dilation[0] = k->dh; p.dilation[1] = k->dw; p.groups = 1;
    y = tt_conv2d_ex(c, x, w, b, &p);
    y_gemm = tt_conv2d_ex(c, x, w1, b1, &p);
    tu_same_bits(c, y, tt_slice(c, y_gemm, 1, 0, k->O, 1), file, line);
    d.n_threads = 1;
    c1 = tt_ctx_create(&d);
    d.n_threads = 3;
    c3 = tt_ctx_create(&d);
    if (c1 && c3 && y) {
        tt_tensor *x1 = tt_randn(c1, seed + 10, 4, xs), *x3 = tt_randn(c3, seed + 10, 4, xs);
        tt_tensor *on1 = tt_conv2d_ex(c1, x1, w, b, &p);
        tt_tensor *on3 = tt_conv2d_ex(c3, x3, w, b, &p);
        tu_same_bits(c, on1, y, file, line);
        tu_same_bits(c, on3, y, file, line);
    }
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    tt_ctx_destroy(c1);
    tt_ctx_destroy(c3);
    tt_ctx_destroy(c);
}

static void test_conv2d_direct(void) {
    /* N, C, H, W, O, KH, KW, sh, sw, ph, pw, dh, dw, groups, bias, ex */
    static const cv_case cases[] = {
        {2, 3, 40, 40, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     /* SimpleCNN's first layer */
        {1, 32, 20, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    /* 288 terms: k blocks end inside a channel's taps */
        {1, 32, 20, 20, 16, 5, 5, 1, 1, 2, 2, 1, 1, 1, 1, 1},    /* 800 terms: several k blocks with every ISA's tile */
        {1, 32, 40, 100, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    /* five bands of 8 rows */
        {1, 4, 50, 50, 8, 5, 5, 2, 2, 2, 2, 1, 1, 1, 1, 1},      /* stride 2: four phases per channel */
        {2, 5, 90, 90, 8, 3, 3, 3, 3, 0, 0, 1, 1, 1, 1, 1},      /* stride 3, no padding */
        {1, 3, 64, 64, 8, 7, 7, 4, 4, 3, 3, 1, 1, 1, 1, 1},      /* stride 4: sixteen phases */
        {1, 8, 30, 30, 16, 3, 3, 1, 1, 2, 2, 2, 2, 1, 1, 1},     /* dilation 2 */
        {1, 6, 33, 47, 24, 5, 3, 2, 1, 1, 2, 1, 2, 1, 1, 1},     /* every setting different per axis */
        {3, 32, 7, 7, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      /* planes smaller than a tile */
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) cv_direct_case(&cases[i], 400u + 7u * (unsigned)i, __FILE__, __LINE__);
}

/* Winograd F(m x m, 3x3), m = 2 or 4, forced on every 3x3 stride-1 convolution of a
   TT_MODE_MAX_AUTOTUNE graph (tt_graph_set_conv_algo). The matrices (Lavin and Gray, 2015),
   transcribed here for the error bound: */
typedef struct cv_wino { int m, a; const double *bt, *g, *at; } cv_wino;
static const double cv_bt2[16] = { 1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1 };
static const double cv_g2[12] = { 1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1 };
static const double cv_at2[8] = { 1, 1, 1, 0, 0, 1, -1, -1 };
static const double cv_bt4[36] = { 4, 0, -5, 0, 1, 0, 0, -4, -4, 1, 1, 0, 0, 4, -4, -1, 1, 0,
                                   0, -2, -1, 2, 1, 0, 0, 2, -1, -2, 1, 0, 0, 4, 0, -5, 0, 1 };
static const double cv_g4[18] = { 1.0 / 4, 0, 0, -1.0 / 6, -1.0 / 6, -1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6,
                                  1.0 / 24, 1.0 / 12, 1.0 / 6, 1.0 / 24, -1.0 / 12, 1.0 / 6, 0, 0, 1 };
static const double cv_at4[24] = { 1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1 };
static const cv_wino cv_winos[2] = { { 2, 4, cv_bt2, cv_g2, cv_at2 }, { 4, 6, cv_bt4, cv_g4, cv_at4 } };

/* |T| X |S|^T for a 6x6 (at most) X, with T rows x cols by rows and S likewise: the absolute
   transform of a tile. */
static void cv_abs_transform(const double *T, int t_rows, const double *S, int s_rows, int cols, const double *X, double *out) {
    int i, j, r, s;
    for (i = 0; i < t_rows; i++)
        for (j = 0; j < s_rows; j++) {
            double sum = 0;
            for (r = 0; r < cols; r++)
                for (s = 0; s < cols; s++) sum += fabs(T[i * cols + r]) * fabs(S[j * cols + s]) * X[r * cols + s];
            out[i * s_rows + j] = sum;
        }
}

/* The error bound of F(m x m, 3x3), worked out here rather than measured. Its float result
   evaluates sums of products: y = bias + sum over i, j of A^T[dy][i] A^T[dx][j] M[i][j],
   M = sum over channels of U * V, U = G g G^T, V = B^T d B. Evaluated in floats with at most k
   roundings on the way from any term to y, the error is at most k eps (1 + O(k eps)) times the
   same sums of the absolute values of every term (Higham, Accuracy and Stability of Numerical
   Algorithms, ch. 3), eps = 2^-24. On a weight's way: G's entries rounded to floats (1/6) 1,
   G g 3 (a product and two sums), (G g) G^T 3; an input's: B^T d 4 (a product and up to three
   sums), then 4; then U * V 1, the sum over C channels C - 1, A^T M 5 (up to five terms), then
   5, the bias 1: k <= C + 20, taken as C + 21 for the O(k eps). tol is then (C + 21) eps times
   |bias| + sum over i, j of |A^T[dy][i]| |A^T[dx][j]| sum over channels of |U|[i][j] |V|[i][j],
   with |U| = |G| |g| |G|^T and |V| = |B^T| |d| |B|. A wrong transform is off by about |y|, far
   above it (F(4x4)'s bound is about 10x F(2x2)'s: its entries reach 8). */
static void cv_winograd_tol(const cv_case *k, int m, const double *vx, const double *vw, const double *vb,
                            int64_t OH, int64_t OW, double *tol) {
    const cv_wino *t = &cv_winos[m == 4];
    const int a = t->a, aa = t->a * t->a;
    double *U = (double *)malloc(sizeof(double) * (size_t)(k->O * k->C * aa)), *V = (double *)malloc(sizeof(double) * (size_t)(k->C * aa));
    double g[9], d[36], M[36], eps = ldexp(1.0, -24);
    int64_t o, ci, n, ty, tx, r, s, dy, dx;
    int i, j;
    for (o = 0; o < k->O; o++)
        for (ci = 0; ci < k->C; ci++) {
            for (r = 0; r < 9; r++) g[r] = fabs(vw[(o * k->C + ci) * 9 + r]);
            cv_abs_transform(t->g, a, t->g, a, 3, g, U + (o * k->C + ci) * aa);
        }
    for (n = 0; n < k->N; n++)
        for (ty = 0; ty * m < OH; ty++)
            for (tx = 0; tx * m < OW; tx++) {
                for (ci = 0; ci < k->C; ci++) {
                    for (r = 0; r < a; r++)
                        for (s = 0; s < a; s++) {
                            int64_t ih = ty * m - k->ph + r, iw = tx * m - k->pw + s;
                            bool in = ih >= 0 && ih < k->H && iw >= 0 && iw < k->W;
                            d[r * a + s] = in ? fabs(vx[((n * k->C + ci) * k->H + ih) * k->W + iw]) : 0.0;
                        }
                    cv_abs_transform(t->bt, a, t->bt, a, a, d, V + ci * aa);
                }
                for (o = 0; o < k->O; o++) {
                    for (i = 0; i < aa; i++) M[i] = 0;
                    for (ci = 0; ci < k->C; ci++)
                        for (i = 0; i < aa; i++) M[i] += U[(o * k->C + ci) * aa + i] * V[ci * aa + i];
                    for (dy = 0; dy < m && ty * m + dy < OH; dy++)
                        for (dx = 0; dx < m && tx * m + dx < OW; dx++) {
                            double y = fabs(vb[o]);
                            for (i = 0; i < a; i++)
                                for (j = 0; j < a; j++) y += fabs(t->at[dy * a + i]) * fabs(t->at[dx * a + j]) * M[i * a + j];
                            tol[((n * k->O + o) * OH + ty * m + dy) * OW + tx * m + dx] = (double)(k->C + 21) * eps * y;
                        }
                }
            }
    free(U);
    free(V);
}

/* The graph's text names the choice of its convolutions ("# Winograd F(2x2, 3x3)"). */
static bool cv_graph_says(tt_graph *g, const char *what) {
    char *text = (char *)malloc(tt_graph_str(g, NULL, 0));
    bool found;
    if (!text) return false;
    tt_graph_str(g, text, tt_graph_str(g, NULL, 0));
    found = strstr(text, what) != NULL;
    free(text);
    return found;
}

static void cv_winograd_case(const cv_case *k, int m, int relu, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ws[4], bs[1], OH, OW, e;
    double *vx, *vw, *vb, *want, *tol;
    long long total, differ = 0;
    tt_tensor *x, *w, *b, *y, *eager, *out;
    tt_graph *g;
    tt_conv_params p;
    tt_check_report report;
    tt_conv_algo algo = m == 2 ? TT_CONV_WINOGRAD_2X2 : TT_CONV_WINOGRAD_4X4;
    tt_graph_stats st;
    xs[0] = k->N; xs[1] = k->C; xs[2] = k->H; xs[3] = k->W;
    ws[0] = k->O; ws[1] = k->C; ws[2] = 3; ws[3] = 3;
    bs[0] = k->O;
    x = tu_rand(c, 4, xs, seed, -1.0, 1.0, &vx);
    w = tu_rand(c, 4, ws, seed + 1, -1.0, 1.0, &vw);
    b = tu_rand(c, 1, bs, seed + 2, -1.0, 1.0, &vb);
    total = cv_ref_conv2d(vx, k->N, k->C, k->H, k->W, vw, k->O, 3, 3, vb, 1, 1, k->ph, k->pw, 1, 1, 1, &want, &tol, &OH, &OW);
    cv_winograd_tol(k, m, vx, vw, vb, OH, OW, tol);
    for (e = 0; relu && e < total; e++) want[e] = want[e] > 0 ? want[e] : 0;
    memset(&p, 0, sizeof p);
    p.stride[0] = p.stride[1] = 1;
    p.padding[0] = k->ph;
    p.padding[1] = k->pw;
    p.dilation[0] = p.dilation[1] = 1;
    p.groups = 1;
    eager = tt_conv2d_ex(c, x, w, b, &p);
    if (relu) eager = tt_relu(c, eager);
    CHECK(tt_trace_begin(c) == TT_OK);
    tt_trace_input(c, x, "x");
    y = tt_conv2d_ex(c, x, w, b, &p);
    if (relu) y = tt_relu(c, y);
    g = tt_trace_end(c, &y, 1);
    CHECK(g && tt_graph_set_conv_algo(g, algo) == TT_OK);
    if (g && tt_graph_compile(g, TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL) == TT_OK && tt_graph_run(g, &x, 1) == TT_OK) {
        float *got = tu_values(c, out = tt_graph_output(g, 0)), *ref = tu_values(c, eager);
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(m == 2 ? st.winograd_2x2 : st.winograd_4x4, 1);
        CHECK_EQ_INT(m == 2 ? st.winograd_4x4 : st.winograd_2x2, 0);
        CHECK(cv_graph_says(g, m == 2 ? "# Winograd F(2x2, 3x3)" : "# Winograd F(4x4, 3x3)"));
        tu_check_close(c, out, want, tol, 0.0, 0.0, total, file, line);
        for (e = 0; got && ref && e < total; e++) differ += memcmp(&got[e], &ref[e], sizeof(float)) != 0;
        if (differ == 0) tt_test__fail(file, line, "MAX_AUTOTUNE gave eager's bits: Winograd did not run");
        CHECK(tt_graph_check(g, &x, 1, 1e-3, 1e-3, &report) == TT_OK);   /* node by node, within a tolerance */
        if (!CHECK(report.ok && report.compared > 0)) printf("  %s\n", report.message);
        free(got);
        free(ref);
        /* frozen: the weights transformed and packed once at compile; the same sums per run */
        out = tt_clone(c, out);                      /* a copy: recompiling frees the graph's arena */
        if (tt_graph_compile(g, TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL | TT_PASS_FREEZE) == TT_OK && tt_graph_run(g, &x, 1) == TT_OK &&
            tt_graph_run(g, &x, 1) == TT_OK) {
            tu_check_close(c, tt_graph_output(g, 0), want, tol, 0.0, 0.0, total, file, line);
            tu_same_bits(c, tt_graph_output(g, 0), out, file, line);
        } else {
            tt_test__fail(file, line, "compiling the frozen graph failed");
        }
    } else {
        tt_test__fail(file, line, "tracing or compiling failed");
    }
    if (g && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) == TT_OK && tt_graph_run(g, &x, 1) == TT_OK) {
        tu_same_bits(c, tt_graph_output(g, 0), eager, file, line);   /* the other modes: eager's bits */
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.winograd_2x2 + st.winograd_4x4, 0);
    }
    tt_graph_destroy(g);
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    free(vx); free(vw); free(vb); free(want); free(tol);
    tt_ctx_destroy(c);
}

static void test_conv2d_winograd(void) {
    /* N, C, H, W, O, KH, KW, sh, sw, ph, pw, dh, dw, groups, bias, ex (3x3, stride 1 implied) */
    static const cv_case cases[] = {
        {2, 32, 32, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    /* "same" padding, whole tiles */
        {2, 48, 31, 29, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    /* odd sizes: tiles clipped at the edges */
        {2, 48, 31, 29, 32, 3, 3, 1, 1, 0, 2, 1, 1, 1, 1, 1},    /* padding 0 and 2 */
        {1, 32, 40, 256, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* two chunks of tile rows, two bands each */
        {1, 3, 5, 6, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},        /* tiny: one tile row, 3 channels */
    };
    int i, m;
    for (m = 2; m <= 4; m += 2)
        for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
            cv_winograd_case(&cases[i], m, i % 2, 500u + 7u * (unsigned)i, __FILE__, __LINE__);
}

/* TT_MODE_MAX_AUTOTUNE's own choice (tt_conv_algo's default, TT_CONV_MEASURED): a model of two
   3x3 convolutions of one shape (64 channels on 32x32: 38M multiply-adds each, so timed) and
   a small one (8 output channels: never timed, direct sums). Which algorithm wins depends on the
   machine, so this checks what holds for every outcome: one choice for both large layers
   (the second takes the first's timing), the small one direct, the outputs within float
   rounding of eager (eager's bits where direct sums won), and a saved and loaded graph
   running the same choices to the same bits. Then the fixed choices: TT_CONV_RULE
   (F(2x2, 3x3) for both large layers, whatever the machine) and TT_CONV_DIRECT (eager's
   bits), and an unknown value refused. */
typedef struct cv_auto { tt_tensor *w1, *w2, *w3; } cv_auto;

static tt_tensor *cv_auto_forward(tt_ctx *c, tt_tensor *x, const cv_auto *m) {
    static const int64_t small[4] = {1, 16, 64, 64};   /* the same values as 16 channels of 64x64 */
    tt_tensor *y = tt_relu(c, tt_conv2d(c, x, m->w1, NULL, 1, 1, 1, 1));
    y = tt_conv2d(c, y, m->w2, NULL, 1, 1, 1, 1);
    return tt_conv2d(c, tt_reshape(c, y, 4, small), m->w3, NULL, 1, 1, 1, 1);
}

static tt_graph *cv_auto_graph(tt_ctx *c, tt_tensor *x, const cv_auto *m, tt_conv_algo algo, unsigned passes) {
    tt_tensor *y;
    tt_graph *g;
    if (tt_trace_begin(c) != TT_OK) return NULL;
    tt_trace_input(c, x, "x");
    y = cv_auto_forward(c, x, m);
    g = tt_trace_end(c, &y, 1);
    if (g && (tt_graph_set_conv_algo(g, algo) != TT_OK || tt_graph_compile(g, TT_MODE_MAX_AUTOTUNE, passes) != TT_OK ||
              tt_graph_run(g, &x, 1) != TT_OK)) {
        printf("  %s\n", tt_graph_error(g));
        tt_graph_destroy(g);
        g = NULL;
    }
    return g;
}

static void test_conv2d_autotune_measured(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4] = {1, 64, 32, 32}, w1s[4] = {64, 64, 3, 3}, w3s[4] = {8, 16, 3, 3};
    double *vx, *v1, *v2, *v3;
    cv_auto m;
    tt_tensor *x = tu_rand(c, 4, xs, 901u, -1.0, 1.0, &vx), *eager;
    tt_graph *g, *loaded = NULL;
    tt_graph_stats st;
    tt_check_report report;
    void *bytes = NULL;
    size_t n;
    m.w1 = tu_rand(c, 4, w1s, 902u, -0.1, 0.1, &v1);
    m.w2 = tu_rand(c, 4, w1s, 903u, -0.1, 0.1, &v2);
    m.w3 = tu_rand(c, 4, w3s, 904u, -0.1, 0.1, &v3);
    eager = cv_auto_forward(c, x, &m);
    g = cv_auto_graph(c, x, &m, TT_CONV_MEASURED, TT_PASS_ALL | TT_PASS_FREEZE);
    if (CHECK(g != NULL)) {
        st = tt_graph_get_stats(g);
        CHECK(st.winograd_2x2 + st.winograd_4x4 == 0 || st.winograd_2x2 == 2 || st.winograd_4x4 == 2);
        CHECK(cv_graph_says(g, "# Winograd") == (st.winograd_2x2 + st.winograd_4x4 > 0));
        if (st.winograd_2x2 + st.winograd_4x4 == 0) tu_same_bits(c, tt_graph_output(g, 0), eager, __FILE__, __LINE__);
        CHECK(tt_graph_check(g, &x, 1, 1e-4, 1e-3, &report) == TT_OK);
        if (!CHECK(report.ok && report.compared > 0)) printf("  %s\n", report.message);
        n = tt_graph_save_memory(g, NULL, 0);
        bytes = malloc(n);
        if (CHECK(bytes && n > 0 && tt_graph_save_memory(g, bytes, n) == n)) loaded = tt_graph_load_memory(c, bytes, n);
        if (CHECK(loaded != NULL) && CHECK(tt_graph_run(loaded, &x, 1) == TT_OK)) {
            tt_graph_stats ls = tt_graph_get_stats(loaded);
            CHECK_EQ_INT(ls.winograd_2x2, st.winograd_2x2);
            CHECK_EQ_INT(ls.winograd_4x4, st.winograd_4x4);
            tu_same_bits(c, tt_graph_output(loaded, 0), tt_graph_output(g, 0), __FILE__, __LINE__);
        }
        tt_graph_destroy(loaded);
        free(bytes);
        CHECK_EQ_INT(tt_graph_set_conv_algo(g, (tt_conv_algo)7), TT_ERR_ARG);
        tt_test__str_contains(tt_graph_error(g), "tt_graph_set_conv_algo: algo is 7", __FILE__, __LINE__, "tt_graph_error(g)");
        tt_graph_destroy(g);
    }
    g = cv_auto_graph(c, x, &m, TT_CONV_RULE, TT_PASS_ALL);
    if (CHECK(g != NULL)) {
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.winograd_2x2, 2);
        CHECK_EQ_INT(st.winograd_4x4, 0);
        tt_graph_destroy(g);
    }
    g = cv_auto_graph(c, x, &m, TT_CONV_DIRECT, TT_PASS_ALL);
    if (CHECK(g != NULL)) {
        st = tt_graph_get_stats(g);
        CHECK_EQ_INT(st.winograd_2x2 + st.winograd_4x4, 0);
        tu_same_bits(c, tt_graph_output(g, 0), eager, __FILE__, __LINE__);
        tt_graph_destroy(g);
    }
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", __FILE__, __LINE__, "tt_error(c)");
    free(vx); free(v1); free(v2); free(v3);
    tt_ctx_destroy(c);
}

static void test_conv2d_groups(void) {
    CV_SQ(2, 4, 7, 9, 6, 3, 3, 1, 1, 1, 2, 1, 200);   /* groups 2 */
    CV_SQ(1, 4, 7, 9, 2, 3, 3, 2, 0, 1, 2, 0, 201);   /* one output channel per group */
    CV_SQ(3, 6, 9, 7, 9, 3, 3, 1, 1, 2, 3, 1, 202);   /* groups 3, dilation 2 */
    CV_SQ(1, 6, 7, 9, 12, 5, 3, 2, 2, 1, 2, 1, 203);  /* non-square kernel, groups 2 */
}

static void test_conv2d_depthwise(void) {
    CV_SQ(1, 5, 9, 7, 5, 3, 3, 1, 1, 1, 5, 1, 210);     /* depthwise, multiplier 1 */
    CV_SQ(3, 5, 9, 7, 5, 3, 3, 2, 1, 1, 5, 0, 211);
    CV_SQ(2, 5, 9, 7, 10, 3, 3, 1, 1, 1, 5, 1, 212);    /* channel multiplier 2 */
    CV_SQ(1, 3, 33, 5, 6, 5, 3, 1, 2, 1, 3, 1, 213);    /* multiplier 2, 5x3 kernel */
    CV_SQ(1, 4, 7, 9, 8, 3, 3, 3, 2, 2, 4, 0, 214);     /* multiplier 2, stride 3, dilation 2 */
    CV_SQ(1, 1, 7, 9, 1, 3, 3, 1, 0, 1, 1, 1, 215);     /* one channel: depthwise == groups 1 */
    CV_SQ(2, 8, 12, 11, 8, 3, 3, 2, 3, 1, 8, 1, 216);   /* padding wider than the kernel: border = bias */
    CV_SQ(1, 4, 6, 6, 4, 1, 1, 2, 0, 1, 4, 1, 217);     /* 1x1 depthwise with stride 2 */
    CV_SQ(1, 3, 20, 40, 3, 7, 7, 1, 3, 1, 3, 0, 218);   /* 7x7 "same": long rows take the vector loop */
    CV_SQ(1, 3, 20, 40, 6, 3, 3, 1, 4, 3, 3, 1, 219);   /* dilation 3, padding 4, multiplier 2 */
    CV_SQ(1, 4, 14, 14, 4, 3, 3, 2, 1, 1, 4, 1, 220);   /* MobileNet's stride 2: even width, padding 1 */
    CV_SQ(1, 4, 14, 14, 4, 3, 3, 2, 2, 1, 4, 1, 221);   /* even padding: the general phase copy */
    CV_SQ(2, 3, 80, 80, 3, 3, 3, 1, 1, 1, 3, 1, 222);   /* four bands of rows (2048 outputs each) */
    CV_SQ(1, 2, 200, 64, 2, 3, 3, 2, 1, 1, 2, 0, 223);  /* stride 2 in two bands */
    CV_SQ(1, 2, 13, 16, 2, 3, 3, 5, 1, 1, 2, 1, 224);   /* stride 5: the plane by plane kernel */
}

static void test_conv2d_ex_per_axis(void) {
    cv_case k;
    memset(&k, 0, sizeof k);
    k.N = 2; k.C = 3; k.H = 9; k.W = 11; k.O = 4; k.KH = 3; k.KW = 5;
    k.sh = 1; k.sw = 2; k.ph = 2; k.pw = 0; k.dh = 1; k.dw = 2; k.groups = 1; k.bias = 1; k.ex = 1;
    cv_run_case(&k, 300, __FILE__, __LINE__);
    k.sh = 3; k.sw = 1; k.ph = 0; k.pw = 1; k.dh = 2; k.dw = 1;
    cv_run_case(&k, 301, __FILE__, __LINE__);
    /* groups through the params, with a 1xK kernel */
    k.N = 1; k.C = 4; k.H = 7; k.W = 33; k.O = 8; k.KH = 1; k.KW = 5;
    k.sh = 2; k.sw = 3; k.ph = 0; k.pw = 2; k.dh = 1; k.dw = 1; k.groups = 2; k.bias = 0;
    cv_run_case(&k, 302, __FILE__, __LINE__);
    /* depthwise with every setting different per axis */
    k.N = 3; k.C = 3; k.H = 9; k.W = 7; k.O = 6; k.KH = 5; k.KW = 3;
    k.sh = 2; k.sw = 1; k.ph = 1; k.pw = 2; k.dh = 1; k.dw = 2; k.groups = 3; k.bias = 1;
    cv_run_case(&k, 303, __FILE__, __LINE__);
    /* tt_conv2d_ex with equal settings matches tt_conv2d's semantics */
    k.N = 1; k.C = 2; k.H = 7; k.W = 9; k.O = 3; k.KH = 3; k.KW = 3;
    k.sh = k.sw = 2; k.ph = k.pw = 1; k.dh = k.dw = 2; k.groups = 1; k.bias = 1;
    cv_run_case(&k, 304, __FILE__, __LINE__);
}

/* Non-contiguous x: a step-2 slice of the width, and an NHWC buffer permuted to NCHW;
   non-contiguous weight: a transposed kernel. */
static void test_conv2d_noncontiguous(void) {
    tt_ctx *c = tu_ctx();
    int64_t N = 3, C = 2, H = 7, W = 9, O = 4;
    int64_t bs[4], ws[4], ys[4], OH, OW, n, ch, h, wi;
    double *vbase, *vw, *vb, *vx, *want, *tol;
    long long cnt;
    tt_tensor *base, *x, *w, *b, *y;
    bs[0] = N; bs[1] = C; bs[2] = H; bs[3] = 2 * W;
    ws[0] = O; ws[1] = C; ws[2] = 3; ws[3] = 3;
    base = tu_rand(c, 4, bs, 400, -1.0, 1.0, &vbase);
    w = tu_rand(c, 4, ws, 401, -1.0, 1.0, &vw);
    {
        int64_t s1[1];
        s1[0] = O;
        b = tu_rand(c, 1, s1, 402, -1.0, 1.0, &vb);
    }
    x = tt_slice(c, base, 3, 1, 2 * W, 2);          /* columns 1,3,5,...: [3,2,7,9] */
    CHECK_GUARDS(c);
    vx = (double *)malloc(sizeof(double) * (size_t)(N * C * H * W));
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++)
            for (h = 0; h < H; h++)
                for (wi = 0; wi < W; wi++)
                    vx[((n * C + ch) * H + h) * W + wi] = vbase[((n * C + ch) * H + h) * (2 * W) + 1 + 2 * wi];
    cnt = cv_ref_conv2d(vx, N, C, H, W, vw, O, 3, 3, vb, 2, 2, 1, 1, 1, 1, 1, &want, &tol, &OH, &OW);
    y = tt_conv2d(c, x, w, b, 2, 1, 1, 1);
    CHECK_GUARDS(c);
    ys[0] = N; ys[1] = O; ys[2] = OH; ys[3] = OW;
    if (tu_check_shape(y, 4, ys, __FILE__, __LINE__)) tu_check_close(c, y, want, tol, 0, 0, cnt, __FILE__, __LINE__);
    free(want); free(tol);

    {   /* NHWC storage viewed as NCHW through tt_permute {0,3,1,2}; weight transposed in (kh,kw) */
        int64_t hs[4], wts[4];
        int perm[4] = {0, 3, 1, 2};
        double *vh, *vwt, *vx2, *vw2;
        int64_t o, ci, i, j;
        tt_tensor *xh, *x2, *wt, *w2, *y2;
        hs[0] = N; hs[1] = H; hs[2] = W; hs[3] = C;
        wts[0] = O; wts[1] = C; wts[2] = 3; wts[3] = 5;     /* stored [O,C,kw=3,kh=5] */
        xh = tu_rand(c, 4, hs, 410, -1.0, 1.0, &vh);
        x2 = tt_permute(c, xh, perm);
        wt = tu_rand(c, 4, wts, 411, -1.0, 1.0, &vwt);
        w2 = tt_transpose(c, wt, 2, 3);                     /* [O,C,5,3] */
        CHECK_GUARDS(c);
        vx2 = (double *)malloc(sizeof(double) * (size_t)(N * C * H * W));
        vw2 = (double *)malloc(sizeof(double) * (size_t)(O * C * 15));
        for (n = 0; n < N; n++)
            for (ch = 0; ch < C; ch++)
                for (h = 0; h < H; h++)
                    for (wi = 0; wi < W; wi++)
                        vx2[((n * C + ch) * H + h) * W + wi] = vh[((n * H + h) * W + wi) * C + ch];
        for (o = 0; o < O; o++)
            for (ci = 0; ci < C; ci++)
                for (i = 0; i < 5; i++)
                    for (j = 0; j < 3; j++)
                        vw2[((o * C + ci) * 5 + i) * 3 + j] = vwt[((o * C + ci) * 3 + j) * 5 + i];
        cnt = cv_ref_conv2d(vx2, N, C, H, W, vw2, O, 5, 3, NULL, 1, 1, 2, 2, 1, 1, 1, &want, &tol, &OH, &OW);
        y2 = tt_conv2d(c, x2, w2, NULL, 1, 2, 1, 1);
        CHECK_GUARDS(c);
        ys[2] = OH; ys[3] = OW;
        if (tu_check_shape(y2, 4, ys, __FILE__, __LINE__)) tu_check_close(c, y2, want, tol, 0, 0, cnt, __FILE__, __LINE__);
        free(want); free(tol); free(vh); free(vwt); free(vx2); free(vw2);
    }
    CHECK_NO_ERROR(c);
    free(vbase); free(vw); free(vb); free(vx);
    tt_ctx_destroy(c);
}

/* ---- conv1d ---------------------------------------------------------------------------------- */

static void cv_conv1d_case(int64_t N, int64_t C, int64_t L, int64_t O, int64_t K, int stride, int pad, int dil,
                           int groups, int bias, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[3], ws[3], bs[1], ys[3], OH, OL;
    double *vx, *vw, *vb = NULL, *want, *tol;
    long long n;
    tt_tensor *x, *w, *b = NULL, *y;
    xs[0] = N; xs[1] = C; xs[2] = L;
    ws[0] = O; ws[1] = C / groups; ws[2] = K;
    bs[0] = O;
    x = tu_rand(c, 3, xs, seed, -1.0, 1.0, &vx);
    w = tu_rand(c, 3, ws, seed + 1, -1.0, 1.0, &vw);
    if (bias) b = tu_rand(c, 1, bs, seed + 2, -1.0, 1.0, &vb);
    /* a 1-D convolution is a 2-D one with H = 1 and a 1xK kernel */
    n = cv_ref_conv2d(vx, N, C, 1, L, vw, O, 1, K, vb, 1, stride, 0, pad, 1, dil, groups, &want, &tol, &OH, &OL);
    y = tt_conv1d(c, x, w, b, stride, pad, dil, groups);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ys[0] = N; ys[1] = O; ys[2] = OL;
    if (tu_check_shape(y, 3, ys, file, line)) tu_check_close(c, y, want, tol, 0, 0, n, file, line);
    free(vx); free(vw); free(vb); free(want); free(tol);
    tt_ctx_destroy(c);
}
#define CV_CONV1D(N, C, L, O, K, s, p, d, g, b, seed) \
    cv_conv1d_case((N), (C), (L), (O), (K), (s), (p), (d), (g), (b), (seed), __FILE__, __LINE__)

static void test_conv1d(void) {
    CV_CONV1D(2, 3, 33, 4, 5, 1, 0, 1, 1, 1, 500);
    CV_CONV1D(2, 3, 33, 4, 5, 2, 1, 2, 1, 0, 501);
    CV_CONV1D(1, 4, 1001, 6, 3, 3, 1, 1, 2, 1, 502);  /* long signal, groups 2 */
    CV_CONV1D(3, 3, 7, 6, 3, 1, 2, 1, 3, 1, 503);     /* depthwise, multiplier 2 */
    CV_CONV1D(1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 504);
    CV_CONV1D(1, 2, 7, 2, 7, 1, 0, 1, 1, 1, 505);     /* kernel as long as the input */
    {   /* non-contiguous input: step-2 slice along L */
        tt_ctx *c = tu_ctx();
        int64_t bs[3] = {2, 3, 18}, ws[3] = {4, 3, 3}, ys[3], OH, OL, n, ch, l;
        double *vbase, *vw, vx[2 * 3 * 9], *want, *tol;
        long long cnt;
        tt_tensor *base = tu_rand(c, 3, bs, 510, -1, 1, &vbase), *w = tu_rand(c, 3, ws, 511, -1, 1, &vw);
        tt_tensor *x = tt_slice(c, base, 2, 0, 18, 2), *y;
        for (n = 0; n < 2; n++)
            for (ch = 0; ch < 3; ch++)
                for (l = 0; l < 9; l++) vx[(n * 3 + ch) * 9 + l] = vbase[(n * 3 + ch) * 18 + 2 * l];
        cnt = cv_ref_conv2d(vx, 2, 3, 1, 9, vw, 4, 1, 3, NULL, 1, 1, 0, 1, 1, 1, 1, &want, &tol, &OH, &OL);
        y = tt_conv1d(c, x, w, NULL, 1, 1, 1, 1);
        CHECK_GUARDS(c);
        ys[0] = 2; ys[1] = 4; ys[2] = OL;
        if (tu_check_shape(y, 3, ys, __FILE__, __LINE__)) tu_check_close(c, y, want, tol, 0, 0, cnt, __FILE__, __LINE__);
        free(vbase); free(vw); free(want); free(tol);
        tt_ctx_destroy(c);
    }
}

/* ---- weights packed ahead in graphs --------------------------------------------------------------- */

/* A graph packs a constant convolution weight once, as the SGEMM's A (tt__prepack_a), and
   its runs read the packed slivers instead of packing per run: the outputs must keep eager's
   bits on every path the GEMM takes (image by image, 1x1 reading the image, the batched
   column matrix, the implicit im2col, conv1d). Output channels 13 and 21 are no multiple of
   any ISA's MR (8, 6, 4) and the k sums, 360 to 600 terms, span several k blocks of every
   ISA: a block or sliver of the packed weight read at a wrong place changes the outputs. The
   eager results are checked against the double reference first. act: 0 none, 1 a ReLU, 2 a
   clamp to [-0.5, 0.75] after the convolution (fused into its epilogue where it has one). */
static tt_tensor *cv_act(tt_ctx *c, tt_tensor *y, int act) {
    if (act == 1) return tt_relu(c, y);
    if (act == 2) return tt_clamp(c, y, -0.5f, 0.75f);
    return y;
}

static void cv_packed_case(const cv_case *k, int act, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ws[4], bs[1];
    int conv1d = k->H == 0, nd = conv1d ? 3 : 4;
    tt_tensor *x, *w, *b, *y, *eager;
    tt_graph *g;
    if (conv1d) cv_conv1d_case(k->N, k->C, k->W, k->O, k->KW, k->sw, k->pw, 1, 1, 1, seed, file, line);
    else cv_run_case(k, seed, file, line);
    xs[0] = k->N; xs[1] = k->C; xs[2] = k->H; xs[3] = k->W;
    ws[0] = k->O; ws[1] = k->C / k->groups; ws[2] = k->KH; ws[3] = k->KW;
    if (conv1d) { xs[2] = k->W; ws[2] = k->KW; }
    bs[0] = k->O;
    x = tt_randn(c, seed + 10, nd, xs);
    w = tt_randn(c, seed + 11, nd, ws);
    b = tt_randn(c, seed + 12, 1, bs);
    CHECK(tt_trace_begin(c) == TT_OK);
    tt_trace_input(c, x, "x");
    y = conv1d ? tt_conv1d(c, x, w, b, k->sw, k->pw, 1, 1) : tt_conv2d(c, x, w, b, k->sh, k->ph, 1, k->groups);
    y = cv_act(c, y, act);
    g = tt_trace_end(c, &y, 1);
    eager = conv1d ? tt_conv1d(c, x, w, b, k->sw, k->pw, 1, 1) : tt_conv2d(c, x, w, b, k->sh, k->ph, 1, k->groups);
    eager = cv_act(c, eager, act);
    if (g && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) == TT_OK && tt_graph_run(g, &x, 1) == TT_OK &&
        tt_graph_run(g, &x, 1) == TT_OK)
        tu_same_bits(c, tt_graph_output(g, 0), eager, file, line);
    else
        tt_test__fail(file, line, "tracing, compiling or running failed");
    tt_graph_destroy(g);
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    tt_ctx_destroy(c);
}

static void test_conv2d_packed_weight(void) {
    /* N, C, H (0: conv1d), W, O, KH, KW, sh, sw, ph, pw, dh, dw, groups, bias, ex */
    static const cv_case cases[] = {
        {1, 600, 9, 9, 13, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0},     /* 1x1: the GEMM reads the image */
        {1, 40, 12, 12, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},    /* one image: im2col, then the GEMM */
        {2, 64, 8, 8, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},      /* two images in one column matrix */
        {2, 64, 24, 24, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},    /* large: the implicit im2col */
        {2, 120, 0, 50, 13, 1, 5, 1, 1, 0, 2, 1, 1, 1, 1, 0},    /* conv1d */
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        cv_packed_case(&cases[i], i % 3, 600u + 7u * (unsigned)i, __FILE__, __LINE__);
}

/* A clamp after a convolution (MobileNetV2's ReLU6) is applied in the kernel's epilogue where
   the path has one (the GEMM's, direct by bands, depthwise by bands; Winograd and the
   depthwise plane kernel leave it to the fused program): eager's bits on every path, with
   values on both sides of both bounds. */
static void test_conv2d_clamp_epilogue(void) {
    /* N, C, H, W, O, KH, KW, sh, sw, ph, pw, dh, dw, groups, bias, ex */
    static const cv_case cases[] = {
        {2, 3, 20, 20, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},     /* direct by bands (a stem) */
        {1, 96, 14, 14, 24, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0},    /* 1x1: the GEMM */
        {2, 40, 15, 15, 40, 3, 3, 1, 1, 1, 1, 1, 1, 40, 1, 0},   /* depthwise by bands */
        {1, 32, 9, 9, 32, 3, 3, 2, 2, 1, 1, 1, 1, 32, 1, 0},     /* depthwise, stride 2 */
        {2, 64, 10, 10, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},    /* im2col + GEMM, edge tiles */
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) cv_packed_case(&cases[i], 2, 700u + 7u * (unsigned)i, __FILE__, __LINE__);
}

/* ---- channels-last graphs (the layout pass) ----------------------------------------------------- */

/* A compiled graph keeps the values between convolutions that have channels-last kernels
   (depthwise; pointwise where eager's GEMM is packed) in NHWC order during CPU runs. Every
   output must still be eager's bitwise, on every ISA and thread count, and eager's within float
   rounding of the chain in double precision. */

/* One layer of a chain: a convolution (k x k, stride, dilation; stride_w, dil_w along the
   width where not 0; depthwise or groups 1) to `out` channels, with or without bias, then act
   (cv_act's, 3: ReLU6), or a 2x2 max pool (k == 0). Padding keeps the size (at stride 1). */
typedef struct cv_layer { int out, k, stride, dil, depthwise, bias, act, stride_w, dil_w; } cv_layer;

static tt_tensor *cv_layer_act(tt_ctx *c, tt_tensor *y, int act) {
    return act == 3 ? tt_clamp(c, y, 0.0f, 6.0f) : cv_act(c, y, act);
}

/* The chain's weights, made in wc: w[i] [out, in/groups, k, k], b[i] [out] (or NULL). */
static void cv_chain_make(tt_ctx *wc, const cv_layer *L, int n, int64_t C, tt_tensor **w, tt_tensor **b,
                          unsigned long long seed) {
    int i;
    for (i = 0; i < n; i++) {
        int64_t ws[4], bs[1];
        if (L[i].k == 0) { w[i] = b[i] = NULL; continue; }
        ws[0] = L[i].out; ws[1] = L[i].depthwise ? 1 : C; ws[2] = ws[3] = L[i].k;
        bs[0] = L[i].out;
        w[i] = tt_mul_scalar(wc, tt_randn(wc, seed + 2u * (unsigned)i, 4, ws), 1.0f / sqrtf((float)(ws[1] * L[i].k * L[i].k)));
        b[i] = L[i].bias ? tt_mul_scalar(wc, tt_randn(wc, seed + 2u * (unsigned)i + 1u, 1, bs), 0.1f) : NULL;
        C = L[i].out;
    }
}

static tt_tensor *cv_chain_fwd(tt_ctx *c, tt_tensor *x, const cv_layer *L, int n, tt_tensor *const *w, tt_tensor *const *b) {
    tt_conv_params p;
    int i;
    for (i = 0; i < n; i++) {
        if (L[i].k == 0) { x = tt_max_pool2d(c, x, 2, 2, 0); continue; }
        memset(&p, 0, sizeof p);
        p.stride[0] = L[i].stride;
        p.stride[1] = L[i].stride_w ? L[i].stride_w : L[i].stride;
        p.dilation[0] = L[i].dil;
        p.dilation[1] = L[i].dil_w ? L[i].dil_w : L[i].dil;
        p.padding[0] = p.dilation[0] * (L[i].k / 2);
        p.padding[1] = p.dilation[1] * (L[i].k / 2);
        p.groups = L[i].depthwise ? L[i].out : 1;
        x = cv_layer_act(c, tt_conv2d_ex(c, x, w[i], b[i], &p), L[i].act);
    }
    return x;
}

/* f(v) of cv_layer_act's activation act, in double. */
static double cv_act_ref(double v, int act) {
    if (act == 1) return v < 0.0 ? 0.0 : v;
    if (act == 2) return v < -0.5 ? -0.5 : v > 0.75 ? 0.75 : v;
    if (act == 3) return v < 0.0 ? 0.0 : v > 6.0 ? 6.0 : v;
    return v;
}

/* The chain on x's values in double precision (cv_ref_conv2d per convolution, activations
   and pooling by hand), independent of the library's kernels; *count gets its size. */
static double *cv_chain_ref(tt_ctx *e, const cv_layer *L, int n, tt_tensor *x, tt_tensor *const *w, tt_tensor *const *b,
                            long long *count) {
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3], i;
    float *xv = tu_values(e, x);
    double *cur = (double *)malloc(sizeof(double) * (size_t)x->numel), *out, *tol;
    int l;
    for (i = 0; i < x->numel; i++) cur[i] = xv[i];
    free(xv);
    for (l = 0; l < n; l++) {
        int64_t OH, OW, o, oh, ow;
        long long m;
        if (L[l].k == 0) {                             /* 2x2 max pool, stride 2 */
            OH = H / 2;
            OW = W / 2;
            out = (double *)malloc(sizeof(double) * (size_t)(N * C * OH * OW));
            for (o = 0; o < N * C; o++)
                for (oh = 0; oh < OH; oh++)
                    for (ow = 0; ow < OW; ow++) {
                        const double *q = cur + (o * H + 2 * oh) * W + 2 * ow;
                        double mx = q[0] > q[1] ? q[0] : q[1], my = q[W] > q[W + 1] ? q[W] : q[W + 1];
                        out[(o * OH + oh) * OW + ow] = mx > my ? mx : my;
                    }
        } else {
            float *wv = tu_values(e, w[l]), *bv = b[l] ? tu_values(e, b[l]) : NULL;
            double *wd = (double *)malloc(sizeof(double) * (size_t)w[l]->numel), *bd = NULL;
            int sw = L[l].stride_w ? L[l].stride_w : L[l].stride, dw = L[l].dil_w ? L[l].dil_w : L[l].dil;
            for (i = 0; i < w[l]->numel; i++) wd[i] = wv[i];
            if (bv) {
                bd = (double *)malloc(sizeof(double) * (size_t)L[l].out);
                for (i = 0; i < L[l].out; i++) bd[i] = bv[i];
            }
            m = cv_ref_conv2d(cur, N, C, H, W, wd, L[l].out, L[l].k, L[l].k, bd, L[l].stride, sw, L[l].dil * (L[l].k / 2),
                              dw * (L[l].k / 2), L[l].dil, dw, L[l].depthwise ? L[l].out : 1, &out, &tol, &OH, &OW);
            for (i = 0; i < m; i++) out[i] = cv_act_ref(out[i], L[l].act);
            C = L[l].out;
            free(wv); free(bv); free(wd); free(bd); free(tol);
        }
        free(cur);
        cur = out;
        H = OH;
        W = OW;
    }
    *count = N * C * H * W;
    return cur;
}

/* Traces the chain on x [N,C,H,W] in c, compiles it frozen in mode, runs it twice: the output
   must be eager's bits, and `channels_last` values kept channels-last. Eager is checked
   against the chain in double precision (a tolerance of 1e-4 absolute and relative: six
   layers of f32 sums of 9 to 120 terms, values of order 1). */
static void cv_chain_case(const cv_layer *L, int n, int64_t N, int64_t C, int64_t H, int n_threads, tt_mode mode,
                          int channels_last, unsigned long long seed, const char *file, int line) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c, *wc = tu_ctx();
    tt_tensor *w[8], *b[8], *x, *y, *eager;
    tt_check_report rep;
    tt_graph *g;
    int64_t xs[4];
    d.n_threads = n_threads;
    d.isa = tt_ctx_isa(wc);                            /* the ISA this pass of the suite runs */
    c = tt_ctx_create(&d);
    xs[0] = N; xs[1] = C; xs[2] = H; xs[3] = H + 1;    /* not square: rows and columns differ */
    cv_chain_make(wc, L, n, C, w, b, seed);
    x = tt_randn(c, seed + 99u, 4, xs);
    eager = cv_chain_fwd(c, x, L, n, w, b);
    tt_trace_begin(c);
    tt_trace_input(c, x, "x");
    y = cv_chain_fwd(c, x, L, n, w, b);
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, mode, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK || tt_graph_run(g, &x, 1) != TT_OK ||
        tt_graph_run(g, &x, 1) != TT_OK) {
        tt_test__fail(file, line, "tracing, compiling or running failed");
    } else {
        long long count;
        double *want = cv_chain_ref(c, L, n, x, w, b, &count);
        tu_check_close(c, eager, want, NULL, 1e-4, 1e-4, count, file, line);
        free(want);
        tu_same_bits(c, tt_graph_output(g, 0), eager, file, line);
        tt_test__eq_int(tt_hook_channels_last_values(g), channels_last, file, line, "channels-last values", "expected");
        tt_test__eq_int(tt_graph_check(g, &x, 1, 0.0, 0.0, &rep), TT_OK, file, line, "tt_graph_check", "TT_OK");
        if (!rep.ok) tt_test__str_contains(rep.message, "(check ok)", file, line, "tt_graph_check's report");
    }
    tt_graph_destroy(g);
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    if (!tt_ctx_check_guards(wc)) tt_test__fail(file, line, "guards overwritten");
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}
#define CV_CHAIN(L, N, C, H, threads, mode, cl, seed) \
    cv_chain_case((L), (int)(sizeof(L) / sizeof((L)[0])), (N), (C), (H), (threads), (mode), (cl), (seed), __FILE__, __LINE__)

static void test_conv2d_channels_last(void) {
    /* out, k, stride, dil, depthwise, bias, act, stride_w, dil_w */
    static const cv_layer mbv2[] = {                   /* inverted residual blocks without the residual */
        {96, 1, 1, 1, 0, 1, 3, 0, 0}, {96, 3, 1, 1, 1, 1, 3, 0, 0}, {40, 1, 1, 1, 0, 1, 0, 0, 0},
        {120, 1, 1, 1, 0, 1, 3, 0, 0}, {120, 5, 2, 1, 1, 1, 3, 0, 0}, {56, 1, 1, 1, 0, 1, 0, 0, 0},
    };
    static const cv_layer odd[] = {                    /* 72 = 64 + 8 channels, 7x7 taps dilated 2 by 1, */
        {72, 1, 1, 1, 0, 1, 1, 0, 0}, {72, 7, 1, 2, 1, 0, 1, 0, 1}, {72, 3, 2, 1, 1, 1, 2, 1, 0},   /* no bias, */
        {24, 1, 1, 1, 0, 0, 0, 0, 0},                                                              /* stride 2 by 1 */
    };
    static const cv_layer small[] = {                  /* 1x1s too small for the packed GEMM */
        {8, 1, 1, 1, 0, 1, 3, 0, 0}, {8, 3, 1, 1, 1, 1, 3, 0, 0}, {8, 1, 1, 1, 0, 1, 0, 0, 0},
        {8, 3, 1, 1, 1, 1, 0, 0, 0}, {16, 1, 1, 1, 0, 1, 0, 0, 0},
    };
    static const cv_layer pooled[] = {                 /* a pool between two depthwise layers */
        {48, 1, 1, 1, 0, 1, 3, 0, 0}, {48, 3, 1, 1, 1, 1, 3, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {48, 3, 1, 1, 1, 1, 3, 0, 0}, {32, 1, 1, 1, 0, 1, 0, 0, 0},
    };
    /* mbv2: the 5 values between its 6 convolutions, each with a channels-last kernel (the
       input and the output stay channels-first); odd: 3, the last 1x1 too small for the packed
       GEMM (its input is kept channels-last for the depthwise before it) */
    CV_CHAIN(mbv2, 2, 24, 16, 1, TT_MODE_DEFAULT, 5, 800u);
    CV_CHAIN(mbv2, 2, 24, 16, 3, TT_MODE_REDUCE_OVERHEAD, 5, 810u);
    CV_CHAIN(mbv2, 1, 24, 20, 2, TT_MODE_MAX_AUTOTUNE, 5, 820u);
    CV_CHAIN(odd, 2, 16, 15, 2, TT_MODE_DEFAULT, 3, 830u);
    /* small: 8 channels at 16x17 (1x1s of 17,408 multiply-adds, below the packed GEMM, so
       channels-first kernels): the 4 values between them and the depthwise layers are kept
       channels-last anyway (one kernel on each side), the 1x1s reach them through copies */
    CV_CHAIN(small, 1, 8, 16, 1, TT_MODE_DEFAULT, 4, 840u);
    /* pooled: the values the pool reads and writes stay channels-first; the 2 others (a small
       1x1 then a depthwise, a depthwise then a small 1x1) are kept channels-last */
    CV_CHAIN(pooled, 1, 16, 16, 1, TT_MODE_DEFAULT, 2, 850u);
}

/* The zoo's MobileNetV2 blocks (test_trace.c checks their bits), frozen: 9 values kept
   channels-last, worked out by hand: the stem's output (read by a depthwise; the stem's 3x3
   has no channels-last kernel, a tie that goes channels-last), then every value from there to
   the last 1x1's input (each 1x1's GEMM is packed: 40x256x32 = 327,680 multiply-adds and up),
   the first block's residual included; not the last 1x1's output, which the pool reads. */
static void test_conv2d_channels_last_zoo(void) {
    tt_ctx *c = tu_ctx(), *wc = tu_ctx();
    int64_t s[4] = {2, 3, 32, 32};
    tr_mbv2_w w = tr_mbv2_make(wc, 700);
    tt_tensor *x = tt_randn(c, 7, 4, s), *y;
    tt_graph *g;
    CHECK(tt_trace_begin(c) == TT_OK);
    tt_trace_input(c, x, "x");
    y = tr_mbv2_apply(c, &x, &w);
    g = tt_trace_end(c, &y, 1);
    CHECK(g && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) == TT_OK);
    if (g) CHECK_EQ_INT(tt_hook_channels_last_values(g), 9);
    tt_graph_destroy(g);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
}

/* ---- pooling ---------------------------------------------------------------------------------- */

/* Reference max (is_max) or average pool with count_include_pad over x [N,C,H,W]. */
static long long cv_ref_pool(const double *x, int64_t N, int64_t C, int64_t H, int64_t W, int k, int s, int p,
                             int is_max, double **out, int64_t *OHp, int64_t *OWp) {
    int64_t OH, OW, nc, oh, ow, i, j;
    long long total;
    double *y;
    if (s == 0) s = k;
    OH = (H + 2 * p - k) / s + 1;
    OW = (W + 2 * p - k) / s + 1;
    total = N * C * OH * OW;
    y = (double *)malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    for (nc = 0; nc < N * C; nc++)
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                double acc = is_max ? -INFINITY : 0.0;
                for (i = 0; i < k; i++)
                    for (j = 0; j < k; j++) {
                        int64_t ih = oh * s - p + i, iw = ow * s - p + j;
                        double v;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;   /* max: -inf; avg: 0 */
                        v = x[(nc * H + ih) * W + iw];
                        if (is_max) { if (v > acc) acc = v; }
                        else acc += v;
                    }
                y[(nc * OH + oh) * OW + ow] = is_max ? acc : acc / (double)(k * k);
            }
    *out = y;
    *OHp = OH;
    *OWp = OW;
    return total;
}

/* Pool a random x [N,C,H,W] (values in [lo,hi)) and compare. */
static void cv_pool_case(int64_t N, int64_t C, int64_t H, int64_t W, int k, int s, int p, int is_max, double lo,
                         double hi, unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ys[4], OH, OW;
    double *vx, *want;
    long long n;
    tt_tensor *x, *y;
    xs[0] = N; xs[1] = C; xs[2] = H; xs[3] = W;
    x = tu_rand(c, 4, xs, seed, lo, hi, &vx);
    n = cv_ref_pool(vx, N, C, H, W, k, s, p, is_max, &want, &OH, &OW);
    y = is_max ? tt_max_pool2d(c, x, k, s, p) : tt_avg_pool2d(c, x, k, s, p);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ys[0] = N; ys[1] = C; ys[2] = OH; ys[3] = OW;
    if (tu_check_shape(y, 4, ys, file, line))
        tu_check_close(c, y, want, NULL, is_max ? 0.0 : 1e-6, is_max ? 0.0 : 1e-5, n, file, line);
    free(vx); free(want);
    tt_ctx_destroy(c);
}
#define CV_POOL(N, C, H, W, k, s, p, m, lo, hi, seed) \
    cv_pool_case((N), (C), (H), (W), (k), (s), (p), (m), (lo), (hi), (seed), __FILE__, __LINE__)

static void test_max_pool2d(void) {
    CV_POOL(2, 3, 8, 6, 2, 0, 0, 1, -1, 1, 600);    /* kernel 2, default stride */
    CV_POOL(2, 3, 7, 9, 2, 0, 0, 1, -1, 1, 601);    /* odd sizes: floor mode drops the last row/col */
    CV_POOL(3, 5, 16, 33, 2, 2, 0, 1, -1, 1, 612);  /* 2x2 stride 2 given explicitly (the fast path), odd width */
    CV_POOL(1, 3, 7, 9, 3, 0, 0, 1, -1, 1, 602);    /* kernel 3, stride 3 */
    CV_POOL(1, 3, 7, 9, 3, 2, 0, 1, -1, 1, 603);    /* explicit stride 2 (overlapping windows) */
    CV_POOL(1, 3, 7, 9, 3, 1, 1, 1, -1, 1, 604);    /* padding 1 */
    CV_POOL(3, 2, 9, 7, 3, 2, 1, 1, -1, 1, 605);
    CV_POOL(1, 2, 33, 5, 2, 1, 1, 1, -1, 1, 606);   /* kernel 2, padding 1 */
    CV_POOL(1, 1, 1, 1, 1, 0, 0, 1, -1, 1, 607);
    CV_POOL(1, 4, 33, 17, 3, 2, 1, 1, -1, 1, 608);  /* 2244 inputs */
    /* every value negative: a padded zero must never win, padding acts like -inf */
    CV_POOL(2, 3, 7, 9, 3, 2, 1, 1, -5, -1, 609);
    CV_POOL(1, 2, 5, 5, 2, 2, 1, 1, -5, -1, 610);
    CV_POOL(1, 2, 5, 5, 3, 1, 1, 1, -5, -1, 611);
}

static void test_avg_pool2d(void) {
    CV_POOL(2, 3, 8, 6, 2, 0, 0, 0, -1, 1, 620);
    CV_POOL(2, 3, 7, 9, 2, 0, 0, 0, -1, 1, 621);
    CV_POOL(1, 3, 7, 9, 3, 0, 0, 0, -1, 1, 622);
    CV_POOL(1, 3, 7, 9, 3, 2, 0, 0, -1, 1, 623);
    /* padding: padded zeros count in the divisor kernel*kernel (count_include_pad) */
    CV_POOL(1, 3, 7, 9, 3, 1, 1, 0, 1, 2, 624);
    CV_POOL(3, 2, 9, 7, 3, 2, 1, 0, -1, 1, 625);
    CV_POOL(1, 2, 33, 5, 2, 1, 1, 0, 1, 2, 626);
    CV_POOL(1, 2, 5, 5, 2, 2, 1, 0, 1, 2, 627);
    CV_POOL(1, 1, 1, 1, 1, 0, 0, 0, -1, 1, 628);
    CV_POOL(1, 4, 33, 17, 3, 2, 1, 0, -1, 1, 629);
    {   /* a hand-checked corner: ones, kernel 3, padding 1, stride 1 -> the corner averages 4/9 */
        tt_ctx *c = tu_ctx();
        int64_t xs[4] = {1, 1, 3, 3}, idx[4] = {0, 0, 0, 0};
        tt_tensor *x = tt_ones(c, TT_F32, 4, xs);
        tt_tensor *y = tt_avg_pool2d(c, x, 3, 1, 1);
        CHECK_GUARDS(c);
        if (CHECK(y != NULL)) {
            CHECK_NEAR(tt_get(c, y, idx), 4.0 / 9.0, 1e-6, 1e-6);
            idx[2] = 1; idx[3] = 1;
            CHECK_NEAR(tt_get(c, y, idx), 1.0, 1e-6, 1e-6);
            idx[2] = 0; idx[3] = 1;
            CHECK_NEAR(tt_get(c, y, idx), 6.0 / 9.0, 1e-6, 1e-6);
        }
        tt_ctx_destroy(c);
    }
}

/* Pooling of non-contiguous x (transposed H and W). */
static void test_pool_noncontiguous(void) {
    tt_ctx *c = tu_ctx();
    int64_t bs[4] = {2, 3, 9, 7}, nc, h, w, OH, OW, ys[4];
    double *vb, vx[2 * 3 * 7 * 9], *want;
    long long n;
    tt_tensor *base = tu_rand(c, 4, bs, 650, -1, 1, &vb);
    tt_tensor *x = tt_transpose(c, base, 2, 3), *y;          /* [2,3,7,9] */
    for (nc = 0; nc < 6; nc++)
        for (h = 0; h < 7; h++)
            for (w = 0; w < 9; w++) vx[(nc * 7 + h) * 9 + w] = vb[(nc * 9 + w) * 7 + h];
    ys[0] = 2; ys[1] = 3;
    n = cv_ref_pool(vx, 2, 3, 7, 9, 3, 2, 1, 1, &want, &OH, &OW);
    y = tt_max_pool2d(c, x, 3, 2, 1);
    CHECK_GUARDS(c);
    ys[2] = OH; ys[3] = OW;
    if (tu_check_shape(y, 4, ys, __FILE__, __LINE__)) tu_check_close(c, y, want, NULL, 0, 0, n, __FILE__, __LINE__);
    free(want);
    n = cv_ref_pool(vx, 2, 3, 7, 9, 2, 0, 1, 0, &want, &OH, &OW);
    y = tt_avg_pool2d(c, x, 2, 0, 1);
    CHECK_GUARDS(c);
    ys[2] = OH; ys[3] = OW;
    if (tu_check_shape(y, 4, ys, __FILE__, __LINE__)) tu_check_close(c, y, want, NULL, 1e-6, 1e-5, n, __FILE__, __LINE__);
    free(want);
    CHECK_NO_ERROR(c);
    free(vb);
    tt_ctx_destroy(c);
}

/* ---- adaptive pooling and upsampling ------------------------------------------------------------ */

static void cv_adaptive_case(int64_t N, int64_t C, int64_t H, int64_t W, int64_t oh_, int64_t ow_, int noncontig,
                             unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ys[4], nc, oh, ow, h, w;
    long long total = N * C * oh_ * ow_;
    double *vb, *vx, *want = (double *)malloc(sizeof(double) * (size_t)total);
    tt_tensor *x, *y;
    vx = (double *)malloc(sizeof(double) * (size_t)(N * C * H * W));
    if (noncontig) {    /* x = transpose(2,3) of a contiguous [N,C,W,H] */
        tt_tensor *base;
        xs[0] = N; xs[1] = C; xs[2] = W; xs[3] = H;
        base = tu_rand(c, 4, xs, seed, -1, 1, &vb);
        x = tt_transpose(c, base, 2, 3);
        for (nc = 0; nc < N * C; nc++)
            for (h = 0; h < H; h++)
                for (w = 0; w < W; w++) vx[(nc * H + h) * W + w] = vb[(nc * W + w) * H + h];
    } else {
        xs[0] = N; xs[1] = C; xs[2] = H; xs[3] = W;
        x = tu_rand(c, 4, xs, seed, -1, 1, &vb);
        memcpy(vx, vb, sizeof(double) * (size_t)(N * C * H * W));
    }
    for (nc = 0; nc < N * C; nc++)
        for (oh = 0; oh < oh_; oh++)
            for (ow = 0; ow < ow_; ow++) {
                int64_t h0 = (oh * H) / oh_, h1 = ((oh + 1) * H + oh_ - 1) / oh_;   /* floor, ceil */
                int64_t w0 = (ow * W) / ow_, w1 = ((ow + 1) * W + ow_ - 1) / ow_;
                double s = 0.0;
                for (h = h0; h < h1; h++)
                    for (w = w0; w < w1; w++) s += vx[(nc * H + h) * W + w];
                want[(nc * oh_ + oh) * ow_ + ow] = s / (double)((h1 - h0) * (w1 - w0));
            }
    y = tt_adaptive_avg_pool2d(c, x, oh_, ow_);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ys[0] = N; ys[1] = C; ys[2] = oh_; ys[3] = ow_;
    if (tu_check_shape(y, 4, ys, file, line)) tu_check_close(c, y, want, NULL, 1e-6, 1e-5, total, file, line);
    free(vb); free(vx); free(want);
    tt_ctx_destroy(c);
}
#define CV_ADAPTIVE(N, C, H, W, oh, ow, nc, seed) \
    cv_adaptive_case((N), (C), (H), (W), (oh), (ow), (nc), (seed), __FILE__, __LINE__)

static void test_adaptive_avg_pool2d(void) {
    CV_ADAPTIVE(2, 3, 7, 9, 1, 1, 0, 700);     /* global average */
    CV_ADAPTIVE(1, 2, 33, 17, 1, 1, 0, 701);   /* global over 561 values */
    CV_ADAPTIVE(2, 3, 7, 9, 3, 4, 0, 702);     /* 7 -> 3, 9 -> 4: overlapping floor/ceil bins */
    CV_ADAPTIVE(1, 2, 7, 9, 7, 9, 0, 703);     /* identity */
    CV_ADAPTIVE(1, 2, 8, 6, 4, 3, 0, 704);     /* exact division: plain 2x2 average */
    CV_ADAPTIVE(1, 2, 3, 5, 5, 7, 0, 705);     /* output larger than input */
    CV_ADAPTIVE(3, 1, 33, 5, 7, 2, 0, 706);
    CV_ADAPTIVE(2, 3, 7, 9, 3, 4, 1, 707);     /* non-contiguous input */
    CV_ADAPTIVE(1, 1, 1, 1, 1, 1, 0, 708);
}

static void cv_upsample_case(int64_t N, int64_t C, int64_t H, int64_t W, int64_t oh_, int64_t ow_, int noncontig,
                             unsigned long long seed, const char *file, int line) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4], ys[4], nc, oh, ow, h, w;
    long long total = N * C * oh_ * ow_;
    double *vb, *vx, *want = (double *)malloc(sizeof(double) * (size_t)total);
    tt_tensor *x, *y;
    vx = (double *)malloc(sizeof(double) * (size_t)(N * C * H * W));
    if (noncontig) {    /* x = rows 0,2,4,... of a contiguous [N,C,2H,W] */
        tt_tensor *base;
        xs[0] = N; xs[1] = C; xs[2] = 2 * H; xs[3] = W;
        base = tu_rand(c, 4, xs, seed, -1, 1, &vb);
        x = tt_slice(c, base, 2, 0, 2 * H, 2);
        for (nc = 0; nc < N * C; nc++)
            for (h = 0; h < H; h++)
                for (w = 0; w < W; w++) vx[(nc * H + h) * W + w] = vb[(nc * 2 * H + 2 * h) * W + w];
    } else {
        xs[0] = N; xs[1] = C; xs[2] = H; xs[3] = W;
        x = tu_rand(c, 4, xs, seed, -1, 1, &vb);
        memcpy(vx, vb, sizeof(double) * (size_t)(N * C * H * W));
    }
    for (nc = 0; nc < N * C; nc++)
        for (oh = 0; oh < oh_; oh++)
            for (ow = 0; ow < ow_; ow++)
                want[(nc * oh_ + oh) * ow_ + ow] = vx[(nc * H + (oh * H) / oh_) * W + (ow * W) / ow_];
    y = tt_upsample_nearest(c, x, oh_, ow_);
    if (!tt_ctx_check_guards(c)) tt_test__fail(file, line, "guards overwritten");
    if (tt_error(c)) tt_test__str_contains(tt_error(c), "(no error)", file, line, "tt_error(c)");
    ys[0] = N; ys[1] = C; ys[2] = oh_; ys[3] = ow_;
    if (tu_check_shape(y, 4, ys, file, line)) tu_check_close(c, y, want, NULL, 0.0, 0.0, total, file, line);
    free(vb); free(vx); free(want);
    tt_ctx_destroy(c);
}
#define CV_UPSAMPLE(N, C, H, W, oh, ow, nc, seed) \
    cv_upsample_case((N), (C), (H), (W), (oh), (ow), (nc), (seed), __FILE__, __LINE__)

static void test_upsample_nearest(void) {
    CV_UPSAMPLE(2, 3, 3, 4, 6, 8, 0, 800);      /* 2x */
    CV_UPSAMPLE(1, 2, 5, 5, 7, 7, 0, 801);      /* 5 -> 7 */
    CV_UPSAMPLE(1, 2, 7, 7, 3, 3, 0, 802);      /* 7 -> 3 (downsampling) */
    CV_UPSAMPLE(1, 2, 5, 7, 7, 3, 0, 803);      /* different ratio per axis */
    CV_UPSAMPLE(1, 1, 1, 1, 3, 5, 0, 804);      /* 1x1 broadcast to 3x5 */
    CV_UPSAMPLE(1, 3, 33, 17, 66, 34, 0, 805);  /* 6732 outputs */
    CV_UPSAMPLE(2, 3, 7, 9, 7, 9, 0, 806);      /* identity */
    CV_UPSAMPLE(2, 3, 7, 9, 10, 4, 1, 807);     /* non-contiguous input */
}

/* ---- bad input -------------------------------------------------------------------------------- */

/* The op failed: NULL result, the status is one of two, and the message names the op. */
static int cv_failed(tt_ctx *c, const tt_tensor *r, tt_status s1, tt_status s2, const char *op,
                     const char *file, int line) {
    int ok = 1;
    if (r != NULL) ok = tt_test__fail(file, line, "result should be NULL");
    if (tt_ctx_status(c) != s1 && tt_ctx_status(c) != s2)
        ok = tt_test__eq_int(tt_ctx_status(c), s1, file, line, "tt_ctx_status(c)", "expected status");
    ok &= tt_test__str_contains(tt_error(c), op, file, line, "tt_error(c)");
    if (!tt_ctx_check_guards(c)) ok = tt_test__fail(file, line, "guards overwritten");
    tt_clear_error(c);
    return ok;
}
#define CV_FAILED(c, r, s1, s2, op) cv_failed((c), (r), (s1), (s2), (op), __FILE__, __LINE__)

static void test_conv2d_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4] = {1, 3, 5, 5}, ws[4] = {4, 2, 3, 3}, ws3[4] = {4, 3, 3, 3}, x4s[4] = {1, 4, 5, 5};
    int64_t wg[4] = {6, 2, 3, 3}, wo[4] = {3, 2, 3, 3}, small[4] = {1, 1, 3, 3}, wbig[4] = {1, 1, 5, 5};
    int64_t x3s[3] = {3, 5, 5}, bs5[1] = {5}, w3d[3] = {4, 3, 3};
    tt_tensor *x = tt_zeros(c, TT_F32, 4, xs), *w = tt_zeros(c, TT_F32, 4, ws), *w3 = tt_zeros(c, TT_F32, 4, ws3);
    tt_tensor *x4 = tt_zeros(c, TT_F32, 4, x4s), *wgt = tt_zeros(c, TT_F32, 4, wg), *wout = tt_zeros(c, TT_F32, 4, wo);
    tt_tensor *xsm = tt_zeros(c, TT_F32, 4, small), *wb = tt_zeros(c, TT_F32, 4, wbig);
    tt_tensor *x3 = tt_zeros(c, TT_F32, 3, x3s), *b5 = tt_zeros(c, TT_F32, 1, bs5);
    tt_tensor *w3dim = tt_zeros(c, TT_F32, 3, w3d);
    int64_t w22s[4] = {4, 3, 2, 2};
    tt_tensor *w22 = tt_zeros(c, TT_F32, 4, w22s);
    tt_conv_params p;
    CHECK_GUARDS(c);
    CHECK_NO_ERROR(c);

    /* channel mismatch: x has 3 channels, weight expects 2 */
    CHECK(tt_conv2d(c, x, w, NULL, 1, 0, 1, 1) == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "tt_conv2d:");
    CHECK_STR_CONTAINS(tt_error(c), "[1,3,5,5]");
    CHECK_STR_CONTAINS(tt_error(c), "[4,2,3,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_conv2d");

    /* groups that do not divide C_in (4 % 3) or C_out (3 % 2) */
    CV_FAILED(c, tt_conv2d(c, x4, wgt, NULL, 1, 0, 1, 3), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");
    CV_FAILED(c, tt_conv2d(c, x4, wout, NULL, 1, 0, 1, 2), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");
    /* groups 0 must not divide by zero */
    CV_FAILED(c, tt_conv2d(c, x, w3, NULL, 1, 0, 1, 0), TT_ERR_ARG, TT_ERR_ARG, "tt_conv2d:");

    /* kernel larger than the padded input (3x3 input, 5x5 kernel, padding 0); with
       padding 1 it fits exactly; a dilated 3x3 (span 7) on 5x5 does not */
    CV_FAILED(c, tt_conv2d(c, xsm, wb, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");
    CHECK(tt_conv2d(c, xsm, wb, NULL, 1, 1, 1, 1) != NULL);
    CHECK_NO_ERROR(c);
    CV_FAILED(c, tt_conv2d(c, x, w3, NULL, 1, 0, 3, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");
    /* span 6 on 5 rows with stride 2: (5 - 6) / 2 truncates to 0 in C, still an error */
    CV_FAILED(c, tt_conv2d(c, x, w22, NULL, 2, 0, 5, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");

    /* bad params: stride 0, dilation 0, negative padding */
    CHECK(tt_conv2d(c, x, w3, NULL, 0, 0, 1, 1) == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_conv2d:");
    CHECK(tt_conv2d(c, x, w3, NULL, 1, 0, 0, 1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_conv2d:");
    CHECK(tt_conv2d(c, x, w3, NULL, 1, -1, 1, 1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_conv2d:");
    CHECK(tt_conv2d(c, x, w3, NULL, -2, 0, 1, 1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_conv2d:");

    /* non-4-D input or weight */
    CHECK(tt_conv2d(c, x3, w3, NULL, 1, 0, 1, 1) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[3,5,5]");
    CV_FAILED(c, NULL, TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");
    CV_FAILED(c, tt_conv2d(c, x, w3dim, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv2d:");

    /* bias of the wrong size */
    CHECK(tt_conv2d(c, x, w3, b5, 1, 0, 1, 1) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[5]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_conv2d:");

    /* tt_conv2d_ex: stride 0 on one axis only; NULL params */
    memset(&p, 0, sizeof p);
    p.stride[0] = 1; p.stride[1] = 0; p.dilation[0] = p.dilation[1] = 1; p.groups = 1;
    CHECK(tt_conv2d_ex(c, x, w3, NULL, &p) == NULL);
    CHECK_GUARDS(c);
    CHECK(tt_ctx_status(c) == TT_ERR_ARG);
    CHECK_STR_CONTAINS(tt_error(c), "tt_conv2d");
    tt_clear_error(c);
    p.stride[1] = 1; p.dilation[1] = 0;
    CHECK(tt_conv2d_ex(c, x, w3, NULL, &p) == NULL);
    CHECK(tt_ctx_status(c) == TT_ERR_ARG);
    tt_clear_error(c);
    CHECK(tt_conv2d_ex(c, x, w3, NULL, NULL) == NULL);
    CHECK(tt_ctx_status(c) == TT_ERR_ARG);
    CHECK_STR_CONTAINS(tt_error(c), "tt_conv2d");
    tt_clear_error(c);

    /* NULL inputs: NULL and no new error (a NULL bias is "no bias") */
    CHECK(tt_conv2d(c, NULL, w3, NULL, 1, 0, 1, 1) == NULL);
    CHECK(tt_conv2d(c, x, NULL, NULL, 1, 0, 1, 1) == NULL);
    p.dilation[1] = 1;
    CHECK(tt_conv2d_ex(c, NULL, w3, NULL, &p) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    CHECK(tt_conv2d_ex(c, x, w3, NULL, &p) != NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_conv1d_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[3] = {2, 3, 9}, ws[3] = {4, 2, 3}, ws3[3] = {4, 3, 3}, x4s[4] = {2, 3, 9, 1}, wbig[3] = {4, 3, 11};
    tt_tensor *x = tt_zeros(c, TT_F32, 3, xs), *w = tt_zeros(c, TT_F32, 3, ws), *w3 = tt_zeros(c, TT_F32, 3, ws3);
    tt_tensor *x4 = tt_zeros(c, TT_F32, 4, x4s), *wb = tt_zeros(c, TT_F32, 3, wbig);
    CHECK_GUARDS(c);
    CHECK(tt_conv1d(c, x, w, NULL, 1, 0, 1, 1) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[2,3,9]");
    CHECK_STR_CONTAINS(tt_error(c), "[4,2,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_conv1d:");
    CV_FAILED(c, tt_conv1d(c, x4, w3, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv1d:");
    CV_FAILED(c, tt_conv1d(c, x, wb, NULL, 1, 0, 1, 1), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv1d:");
    CV_FAILED(c, tt_conv1d(c, x, w3, NULL, 1, 0, 1, 2), TT_ERR_SHAPE, TT_ERR_ARG, "tt_conv1d:");
    CHECK(tt_conv1d(c, x, w3, NULL, 0, 0, 1, 1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_conv1d:");
    CHECK(tt_conv1d(c, NULL, w3, NULL, 1, 0, 1, 1) == NULL);
    CHECK(tt_conv1d(c, x, NULL, NULL, 1, 0, 1, 1) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_pool_bad_input(void) {
    tt_ctx *c = tu_ctx();
    int64_t xs[4] = {1, 2, 5, 5}, x3s[3] = {2, 5, 5}, xsm[4] = {1, 1, 2, 2};
    tt_tensor *x = tt_zeros(c, TT_F32, 4, xs), *x3 = tt_zeros(c, TT_F32, 3, x3s), *xs2 = tt_zeros(c, TT_F32, 4, xsm);
    CHECK_GUARDS(c);

    /* non-4-D input */
    CHECK(tt_max_pool2d(c, x3, 2, 0, 0) == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[2,5,5]");
    CV_FAILED(c, NULL, TT_ERR_SHAPE, TT_ERR_ARG, "tt_max_pool2d:");
    CV_FAILED(c, tt_avg_pool2d(c, x3, 2, 0, 0), TT_ERR_SHAPE, TT_ERR_ARG, "tt_avg_pool2d:");
    CV_FAILED(c, tt_adaptive_avg_pool2d(c, x3, 2, 2), TT_ERR_SHAPE, TT_ERR_ARG, "tt_adaptive_avg_pool2d:");
    CV_FAILED(c, tt_upsample_nearest(c, x3, 4, 4), TT_ERR_SHAPE, TT_ERR_ARG, "tt_upsample_nearest:");

    /* bad params: kernel 0, negative stride, padding above kernel/2 */
    CHECK(tt_max_pool2d(c, x, 0, 0, 0) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_max_pool2d:");
    CHECK(tt_avg_pool2d(c, x, 0, 0, 0) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_avg_pool2d:");
    CHECK(tt_max_pool2d(c, x, 2, -1, 0) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_max_pool2d:");
    CHECK(tt_max_pool2d(c, x, 2, 0, 2) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_max_pool2d:");
    CHECK(tt_avg_pool2d(c, x, 3, 1, 2) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_avg_pool2d:");
    CHECK(tt_max_pool2d(c, x, 3, 1, -1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_max_pool2d:");

    /* window larger than the (padded) input */
    CV_FAILED(c, tt_max_pool2d(c, xs2, 3, 0, 0), TT_ERR_SHAPE, TT_ERR_ARG, "tt_max_pool2d:");
    CV_FAILED(c, tt_avg_pool2d(c, xs2, 3, 0, 0), TT_ERR_SHAPE, TT_ERR_ARG, "tt_avg_pool2d:");

    /* output sizes must be >= 1 */
    CHECK(tt_adaptive_avg_pool2d(c, x, 0, 2) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_adaptive_avg_pool2d:");
    CHECK(tt_adaptive_avg_pool2d(c, x, 2, -1) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_adaptive_avg_pool2d:");
    CHECK(tt_upsample_nearest(c, x, 0, 4) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_upsample_nearest:");
    CHECK(tt_upsample_nearest(c, x, 4, -3) == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_upsample_nearest:");

    /* NULL inputs */
    CHECK(tt_max_pool2d(c, NULL, 2, 0, 0) == NULL);
    CHECK(tt_avg_pool2d(c, NULL, 2, 0, 0) == NULL);
    CHECK(tt_adaptive_avg_pool2d(c, NULL, 1, 1) == NULL);
    CHECK(tt_upsample_nearest(c, NULL, 2, 2) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(conv) = {
    {"conv2d_basic", test_conv2d_basic},
    {"conv2d_stride_padding_dilation", test_conv2d_stride_padding_dilation},
    {"conv2d_implicit_im2col", test_conv2d_implicit_im2col},
    {"conv2d_direct", test_conv2d_direct},
    {"conv2d_winograd", test_conv2d_winograd},
    {"conv2d_autotune_measured", test_conv2d_autotune_measured},
    {"conv2d_packed_weight", test_conv2d_packed_weight},
    {"conv2d_clamp_epilogue", test_conv2d_clamp_epilogue},
    {"conv2d_channels_last", test_conv2d_channels_last},
    {"conv2d_channels_last_zoo", test_conv2d_channels_last_zoo},
    {"conv2d_groups", test_conv2d_groups},
    {"conv2d_depthwise", test_conv2d_depthwise},
    {"conv2d_ex_per_axis", test_conv2d_ex_per_axis},
    {"conv2d_noncontiguous", test_conv2d_noncontiguous},
    {"conv1d", test_conv1d},
    {"max_pool2d", test_max_pool2d},
    {"avg_pool2d", test_avg_pool2d},
    {"pool_noncontiguous", test_pool_noncontiguous},
    {"adaptive_avg_pool2d", test_adaptive_avg_pool2d},
    {"upsample_nearest", test_upsample_nearest},
    {"conv2d_bad_input", test_conv2d_bad_input},
    {"conv1d_bad_input", test_conv1d_bad_input},
    {"pool_bad_input", test_pool_bad_input},
    {NULL, NULL}
};
