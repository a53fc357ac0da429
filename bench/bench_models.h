/* bench_models.h - the networks bench.c times, written with tinytrace's eager ops, and their
   FLOP counts. Weights are random (tt_randn with fixed seeds, scaled by 1/sqrt(fan_in) so the
   activations stay near 1) and live in a weight context of their own; they are parameters of
   the traced graphs. FLOPs are 2 x the multiply-adds of the convolutions, linear layers and
   matrix products; elementwise ops, normalization and pooling are not counted (they are a
   few percent of the work in these models). Included once, by bench.c. */
#ifndef BENCH_MODELS_H
#define BENCH_MODELS_H

/* randn * scale + shift, in place (the tests' tu_param, without a second tensor). */
static tt_tensor *bench_param(tt_ctx *wc, uint64_t seed, int ndim, const int64_t *shape, float scale, float shift) {
    tt_tensor *t = tt_randn(wc, seed, ndim, shape);
    float *p = t ? (float *)tt_data(t) : NULL;
    int64_t i;
    for (i = 0; p && i < t->numel; i++) p[i] = p[i] * scale + shift;
    return t;
}
static tt_tensor *bench_param1(tt_ctx *wc, uint64_t seed, int64_t n, float scale, float shift) {
    return bench_param(wc, seed, 1, &n, scale, shift);
}
static tt_tensor *bench_param2(tt_ctx *wc, uint64_t seed, int64_t rows, int64_t cols, float scale) {
    int64_t s[2];
    s[0] = rows; s[1] = cols;
    return bench_param(wc, seed, 2, s, scale, 0.0f);
}

/* A linear layer [out, in] (PyTorch's layout) with its bias. */
typedef struct bench_lin { tt_tensor *w, *b; } bench_lin;
static bench_lin bench_lin_make(tt_ctx *wc, uint64_t seed, int64_t in, int64_t out) {
    bench_lin l;
    l.w = bench_param2(wc, seed, out, in, 1.0f / sqrtf((float)in));
    l.b = bench_param1(wc, seed + 1, out, 0.1f, 0.0f);
    return l;
}
static tt_tensor *bench_lin_apply(tt_ctx *c, tt_tensor *x, const bench_lin *l) { return tt_linear(c, x, l->w, l->b); }

/* Output size of a convolution or pooling window along one axis. */
static int64_t bench_conv_out(int64_t in, int k, int stride, int pad) { return (in + 2 * pad - k) / stride + 1; }

/* ---- SimpleCNN: tests/test_trace.c's tr_cnn_fwd, on [B,3,32,32] ------------------------------- */

typedef struct cnn_block_w { tt_tensor *w, *b, *mean, *var, *gamma, *beta; } cnn_block_w;
typedef struct cnn_w { cnn_block_w b1, b2; tt_tensor *fw, *fb; } cnn_w;

static cnn_block_w cnn_block_make(tt_ctx *wc, int cin, int cout, uint64_t seed) {
    cnn_block_w b;
    int64_t ws[4], n = cout;
    ws[0] = cout; ws[1] = cin; ws[2] = 3; ws[3] = 3;
    b.w = bench_param(wc, seed, 4, ws, 1.0f / sqrtf((float)(cin * 9)), 0.0f);
    b.b = bench_param1(wc, seed + 1, cout, 0.1f, 0.0f);
    b.mean = bench_param1(wc, seed + 2, cout, 0.1f, 0.0f);
    b.var = tt_add_scalar(wc, tt_rand(wc, seed + 3, 1, &n), 0.5f);       /* in [0.5, 1.5) */
    b.gamma = bench_param1(wc, seed + 4, cout, 0.2f, 1.0f);
    b.beta = bench_param1(wc, seed + 5, cout, 0.1f, 0.0f);
    return b;
}

static cnn_w cnn_make(tt_ctx *wc) {
    cnn_w w;
    w.b1 = cnn_block_make(wc, 3, 32, 200);
    w.b2 = cnn_block_make(wc, 32, 64, 300);
    w.fw = bench_param2(wc, 400, 10, 64, 0.125f);
    w.fb = bench_param1(wc, 401, 10, 0.1f, 0.0f);
    return w;
}

static tt_tensor *cnn_block(tt_ctx *c, tt_tensor *x, const cnn_block_w *b) {
    x = tt_conv2d(c, x, b->w, b->b, 1, 1, 1, 1);
    x = tt_batch_norm(c, x, b->mean, b->var, b->gamma, b->beta, 1e-5f);
    x = tt_relu(c, x);
    return tt_max_pool2d(c, x, 2, 0, 0);
}

static tt_tensor *cnn_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const cnn_w *w = (const cnn_w *)weights;
    tt_tensor *h = cnn_block(c, in[0], &w->b1);        /* [B,32,16,16] */
    h = cnn_block(c, h, &w->b2);                        /* [B,64,8,8] */
    h = tt_adaptive_avg_pool2d(c, h, 1, 1);             /* [B,64,1,1] */
    h = tt_flatten(c, h, 1, -1);                        /* [B,64] */
    return tt_linear(c, h, w->fw, w->fb);               /* [B,10] */
}

static double cnn_flops(int64_t batch) {
    double macs = 32.0 * 3 * 9 * 32 * 32 + 64.0 * 32 * 9 * 16 * 16 + 64.0 * 10;
    return 2.0 * macs * (double)batch;
}

/* ---- MLP 784-512-512-10 ------------------------------------------------------------------------ */

typedef struct mlp_w { bench_lin l1, l2, l3; } mlp_w;

static mlp_w mlp_make(tt_ctx *wc) {
    mlp_w w;
    w.l1 = bench_lin_make(wc, 600, 784, 512);
    w.l2 = bench_lin_make(wc, 610, 512, 512);
    w.l3 = bench_lin_make(wc, 620, 512, 10);
    return w;
}

static tt_tensor *mlp_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const mlp_w *w = (const mlp_w *)weights;
    tt_tensor *h = tt_relu(c, bench_lin_apply(c, in[0], &w->l1));
    h = tt_relu(c, bench_lin_apply(c, h, &w->l2));
    return bench_lin_apply(c, h, &w->l3);
}

static double mlp_flops(int64_t batch) { return 2.0 * (double)batch * (784.0 * 512 + 512.0 * 512 + 512.0 * 10); }

/* ---- transformer encoder layer -------------------------------------------------------------------
   torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, dropout=0,
   activation=relu, batch_first=True, norm_first=False) in eval mode, on [1,128,256]. PyTorch
   packs q, k and v into one in_proj weight [768,256]; three linear layers compute the same. */

#define ENC_S 128
#define ENC_D 256
#define ENC_H 8
#define ENC_FF 1024

typedef struct enc_w {
    bench_lin q, k, v, o, ff1, ff2;
    tt_tensor *ln1w, *ln1b, *ln2w, *ln2b;
} enc_w;

static enc_w enc_make(tt_ctx *wc) {
    enc_w w;
    w.q = bench_lin_make(wc, 700, ENC_D, ENC_D);
    w.k = bench_lin_make(wc, 702, ENC_D, ENC_D);
    w.v = bench_lin_make(wc, 704, ENC_D, ENC_D);
    w.o = bench_lin_make(wc, 706, ENC_D, ENC_D);
    w.ff1 = bench_lin_make(wc, 708, ENC_D, ENC_FF);
    w.ff2 = bench_lin_make(wc, 710, ENC_FF, ENC_D);
    w.ln1w = bench_param1(wc, 712, ENC_D, 0.1f, 1.0f);
    w.ln1b = bench_param1(wc, 713, ENC_D, 0.1f, 0.0f);
    w.ln2w = bench_param1(wc, 714, ENC_D, 0.1f, 1.0f);
    w.ln2b = bench_param1(wc, 715, ENC_D, 0.1f, 0.0f);
    return w;
}

/* [1,S,D] -> [1,H,S,D/H] (a view). */
static tt_tensor *enc_heads(tt_ctx *c, tt_tensor *t) {
    int64_t s[4];
    s[0] = 1; s[1] = ENC_S; s[2] = ENC_H; s[3] = ENC_D / ENC_H;
    return tt_transpose(c, tt_reshape(c, t, 4, s), 1, 2);
}

static tt_tensor *enc_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const enc_w *w = (const enc_w *)weights;
    tt_tensor *x = in[0], *q, *k, *v, *a, *h, *f;
    int64_t s3[3];
    q = enc_heads(c, bench_lin_apply(c, x, &w->q));
    k = enc_heads(c, bench_lin_apply(c, x, &w->k));
    v = enc_heads(c, bench_lin_apply(c, x, &w->v));
    a = tt_scaled_dot_product_attention(c, q, k, v, NULL, false, 0.0f);   /* [1,H,S,D/H] */
    s3[0] = 1; s3[1] = ENC_S; s3[2] = ENC_D;
    a = tt_reshape(c, tt_contiguous(c, tt_transpose(c, a, 1, 2)), 3, s3);  /* heads merged */
    h = tt_layer_norm(c, tt_add(c, x, bench_lin_apply(c, a, &w->o)), 1, w->ln1w, w->ln1b, 1e-5f);
    f = bench_lin_apply(c, tt_relu(c, bench_lin_apply(c, h, &w->ff1)), &w->ff2);
    return tt_layer_norm(c, tt_add(c, h, f), 1, w->ln2w, w->ln2b, 1e-5f);
}

static double enc_flops(void) {
    double linear = (double)ENC_S * (4.0 * ENC_D * ENC_D + 2.0 * ENC_D * ENC_FF);
    double attention = 2.0 * ENC_S * ENC_S * ENC_D;          /* q·kᵀ and p·v over all heads */
    return 2.0 * (linear + attention);
}

/* ---- AlexNet (torchvision's layer shapes) on [1,3,224,224] --------------------------------------- */

typedef struct alex_conv { tt_tensor *w, *b; int cin, cout, k, stride, pad; } alex_conv;
typedef struct alex_w { alex_conv conv[5]; bench_lin fc[3]; } alex_w;

static const int alex_shape[5][5] = {       /* cin, cout, kernel, stride, padding */
    {3, 64, 11, 4, 2}, {64, 192, 5, 1, 2}, {192, 384, 3, 1, 1}, {384, 256, 3, 1, 1}, {256, 256, 3, 1, 1}};
static const int alex_fc[4] = {256 * 6 * 6, 4096, 4096, 1000};

static alex_w alex_make(tt_ctx *wc) {
    alex_w w;
    int i;
    for (i = 0; i < 5; i++) {
        alex_conv *cv = &w.conv[i];
        int64_t ws[4];
        cv->cin = alex_shape[i][0]; cv->cout = alex_shape[i][1]; cv->k = alex_shape[i][2];
        cv->stride = alex_shape[i][3]; cv->pad = alex_shape[i][4];
        ws[0] = cv->cout; ws[1] = cv->cin; ws[2] = cv->k; ws[3] = cv->k;
        cv->w = bench_param(wc, 800 + 2 * (uint64_t)i, 4, ws, 1.0f / sqrtf((float)(cv->cin * cv->k * cv->k)), 0.0f);
        cv->b = bench_param1(wc, 801 + 2 * (uint64_t)i, cv->cout, 0.1f, 0.0f);
    }
    for (i = 0; i < 3; i++) w.fc[i] = bench_lin_make(wc, 820 + 2 * (uint64_t)i, alex_fc[i], alex_fc[i + 1]);
    return w;
}

static tt_tensor *alex_conv_relu(tt_ctx *c, tt_tensor *x, const alex_conv *cv) {
    return tt_relu(c, tt_conv2d(c, x, cv->w, cv->b, cv->stride, cv->pad, 1, 1));
}

static tt_tensor *alex_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const alex_w *w = (const alex_w *)weights;
    tt_tensor *h = tt_max_pool2d(c, alex_conv_relu(c, in[0], &w->conv[0]), 3, 2, 0);   /* [1,64,27,27] */
    h = tt_max_pool2d(c, alex_conv_relu(c, h, &w->conv[1]), 3, 2, 0);                  /* [1,192,13,13] */
    h = alex_conv_relu(c, h, &w->conv[2]);
    h = alex_conv_relu(c, h, &w->conv[3]);
    h = tt_max_pool2d(c, alex_conv_relu(c, h, &w->conv[4]), 3, 2, 0);                  /* [1,256,6,6] */
    h = tt_flatten(c, tt_adaptive_avg_pool2d(c, h, 6, 6), 1, -1);                      /* [1,9216] */
    h = tt_relu(c, bench_lin_apply(c, h, &w->fc[0]));
    h = tt_relu(c, bench_lin_apply(c, h, &w->fc[1]));
    return bench_lin_apply(c, h, &w->fc[2]);                                           /* [1,1000] */
}

/* Walks the shapes of alex_fwd at batch 1: 2 x multiply-adds of the convolutions and linears. */
static double alex_flops(void) {
    int64_t hw = 224;
    double macs = 0.0;
    int i;
    for (i = 0; i < 5; i++) {
        hw = bench_conv_out(hw, alex_shape[i][2], alex_shape[i][3], alex_shape[i][4]);
        macs += (double)alex_shape[i][1] * alex_shape[i][0] * alex_shape[i][2] * alex_shape[i][2] * (double)(hw * hw);
        if (i == 0 || i == 1 || i == 4) hw = bench_conv_out(hw, 3, 2, 0);              /* max pool */
    }
    for (i = 0; i < 3; i++) macs += (double)alex_fc[i] * alex_fc[i + 1];
    return 2.0 * macs;
}

/* ---- conv + batch norm units, for ResNet-18 and MobileNetV2 ---------------------------------------- */

/* A convolution without bias followed by batch norm (torchvision's Conv2d(bias=False) +
   BatchNorm2d), with its shape for the FLOP count and the per-layer report. */
typedef struct bench_cbn {
    tt_tensor *w, *mean, *var, *gamma, *beta;
    int cin, cout, k, stride, pad, groups;
} bench_cbn;

static bench_cbn bench_cbn_make(tt_ctx *wc, uint64_t seed, int cin, int cout, int k, int stride, int groups) {
    bench_cbn u;
    int64_t ws[4], n = cout;
    u.cin = cin; u.cout = cout; u.k = k; u.stride = stride; u.pad = k / 2; u.groups = groups;
    ws[0] = cout; ws[1] = cin / groups; ws[2] = k; ws[3] = k;
    u.w = bench_param(wc, seed, 4, ws, 1.0f / sqrtf((float)(cin / groups * k * k)), 0.0f);
    u.mean = bench_param1(wc, seed + 1, cout, 0.1f, 0.0f);
    u.var = tt_add_scalar(wc, tt_rand(wc, seed + 2, 1, &n), 0.5f);
    u.gamma = bench_param1(wc, seed + 3, cout, 0.2f, 1.0f);
    u.beta = bench_param1(wc, seed + 4, cout, 0.1f, 0.0f);
    return u;
}

static tt_tensor *bench_cbn_apply(tt_ctx *c, tt_tensor *x, const bench_cbn *u) {
    tt_tensor *y = tt_conv2d(c, x, u->w, NULL, u->stride, u->pad, 1, u->groups);
    return tt_batch_norm(c, y, u->mean, u->var, u->gamma, u->beta, 1e-5f);
}

/* Multiply-adds of unit u on an hw x hw input (per image); *hw becomes its output size. */
static double bench_cbn_macs(const bench_cbn *u, int64_t *hw) {
    *hw = bench_conv_out(*hw, u->k, u->stride, u->pad);
    return (double)u->cout * (double)(u->cin / u->groups) * u->k * u->k * (double)(*hw * *hw);
}

static tt_tensor *bench_relu6(tt_ctx *c, tt_tensor *x) { return tt_clamp(c, x, 0.0f, 6.0f); }

/* ---- ResNet-18 (torchvision's layer shapes) on [B,3,224,224] --------------------------------------- */

#define RES_BLOCKS 8
typedef struct res_w {
    bench_cbn stem, conv1[RES_BLOCKS], conv2[RES_BLOCKS], down[RES_BLOCKS];
    int has_down[RES_BLOCKS];
    bench_lin fc;
    double macs;                       /* per image */
} res_w;

static res_w res_make(tt_ctx *wc) {
    static const int width[4] = {64, 128, 256, 512};
    res_w w;
    int64_t hw = 224;
    int s, b, i = 0, cin = 64;
    w.stem = bench_cbn_make(wc, 900, 3, 64, 7, 2, 1);
    w.macs = bench_cbn_macs(&w.stem, &hw);
    hw = bench_conv_out(hw, 3, 2, 1);                    /* max pool 3x3/2 */
    for (s = 0; s < 4; s++) {
        for (b = 0; b < 2; b++, i++) {
            int stride = s > 0 && b == 0 ? 2 : 1, cout = width[s];
            int64_t hw_in = hw;
            w.conv1[i] = bench_cbn_make(wc, 910 + 20 * (uint64_t)i, cin, cout, 3, stride, 1);
            w.conv2[i] = bench_cbn_make(wc, 915 + 20 * (uint64_t)i, cout, cout, 3, 1, 1);
            w.has_down[i] = stride != 1 || cin != cout;
            if (w.has_down[i]) {
                w.down[i] = bench_cbn_make(wc, 920 + 20 * (uint64_t)i, cin, cout, 1, stride, 1);
                w.macs += bench_cbn_macs(&w.down[i], &hw_in);
            }
            w.macs += bench_cbn_macs(&w.conv1[i], &hw);
            w.macs += bench_cbn_macs(&w.conv2[i], &hw);
            cin = cout;
        }
    }
    w.fc = bench_lin_make(wc, 1100, 512, 1000);
    w.macs += 512.0 * 1000.0;
    return w;
}

static tt_tensor *res_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const res_w *w = (const res_w *)weights;
    tt_tensor *x = tt_relu(c, bench_cbn_apply(c, in[0], &w->stem));     /* [B,64,112,112] */
    int i;
    x = tt_max_pool2d(c, x, 3, 2, 1);                                   /* [B,64,56,56] */
    for (i = 0; i < RES_BLOCKS; i++) {                                  /* basic blocks */
        tt_tensor *h = tt_relu(c, bench_cbn_apply(c, x, &w->conv1[i]));
        tt_tensor *id = w->has_down[i] ? bench_cbn_apply(c, x, &w->down[i]) : x;
        h = bench_cbn_apply(c, h, &w->conv2[i]);
        x = tt_relu(c, tt_add(c, h, id));
    }
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);      /* [B,512] */
    return bench_lin_apply(c, x, &w->fc);                               /* [B,1000] */
}

/* ---- MobileNetV2 (torchvision's layer shapes) on [B,3,224,224] ------------------------------------ */

#define MNV2_BLOCKS 17
typedef struct mnv2_block { bench_cbn expand, dw, project; int has_expand, residual; } mnv2_block;
typedef struct mnv2_w {
    bench_cbn stem, last;
    mnv2_block blk[MNV2_BLOCKS];
    bench_lin fc;
    double macs;
} mnv2_w;

/* Inverted residual stages: expansion t, channels c, blocks n, first stride s. */
static const int mnv2_cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

static mnv2_w mnv2_make(tt_ctx *wc) {
    mnv2_w w;
    int64_t hw = 224;
    int st, b, i = 0, cin = 32;
    w.stem = bench_cbn_make(wc, 1200, 3, 32, 3, 2, 1);
    w.macs = bench_cbn_macs(&w.stem, &hw);
    for (st = 0; st < 7; st++) {
        for (b = 0; b < mnv2_cfg[st][2]; b++, i++) {
            mnv2_block *k = &w.blk[i];
            int hidden = cin * mnv2_cfg[st][0], cout = mnv2_cfg[st][1], stride = b == 0 ? mnv2_cfg[st][3] : 1;
            k->has_expand = mnv2_cfg[st][0] != 1;
            k->residual = stride == 1 && cin == cout;
            if (k->has_expand) {
                k->expand = bench_cbn_make(wc, 1210 + 10 * (uint64_t)i, cin, hidden, 1, 1, 1);
                w.macs += bench_cbn_macs(&k->expand, &hw);
            }
            k->dw = bench_cbn_make(wc, 1215 + 10 * (uint64_t)i, hidden, hidden, 3, stride, hidden);
            w.macs += bench_cbn_macs(&k->dw, &hw);
            k->project = bench_cbn_make(wc, 1220 + 10 * (uint64_t)i, hidden, cout, 1, 1, 1);
            w.macs += bench_cbn_macs(&k->project, &hw);
            cin = cout;
        }
    }
    w.last = bench_cbn_make(wc, 1400, 320, 1280, 1, 1, 1);
    w.macs += bench_cbn_macs(&w.last, &hw);
    w.fc = bench_lin_make(wc, 1410, 1280, 1000);
    w.macs += 1280.0 * 1000.0;
    return w;
}

static tt_tensor *mnv2_fwd(tt_ctx *c, tt_tensor *const *in, const void *weights) {
    const mnv2_w *w = (const mnv2_w *)weights;
    tt_tensor *x = bench_relu6(c, bench_cbn_apply(c, in[0], &w->stem));   /* [B,32,112,112] */
    int i;
    for (i = 0; i < MNV2_BLOCKS; i++) {                                   /* inverted residuals */
        const mnv2_block *k = &w->blk[i];
        tt_tensor *h = k->has_expand ? bench_relu6(c, bench_cbn_apply(c, x, &k->expand)) : x;
        h = bench_relu6(c, bench_cbn_apply(c, h, &k->dw));
        h = bench_cbn_apply(c, h, &k->project);
        x = k->residual ? tt_add(c, x, h) : h;
    }
    x = bench_relu6(c, bench_cbn_apply(c, x, &w->last));                  /* [B,1280,7,7] */
    x = tt_flatten(c, tt_adaptive_avg_pool2d(c, x, 1, 1), 1, -1);
    return bench_lin_apply(c, x, &w->fc);                                 /* [B,1000] */
}

/* ---- the elementwise chain and the dispatch chain ------------------------------------------------ */

/* 9 ops: y = tanh(x*1.5 + 0.5) * sigmoid(x) - x*x, then y*0.25 + x. */
static tt_tensor *chain_fwd(tt_ctx *c, tt_tensor *const *in, const void *unused) {
    tt_tensor *x = in[0];
    tt_tensor *a = tt_tanh(c, tt_add_scalar(c, tt_mul_scalar(c, x, 1.5f), 0.5f));
    tt_tensor *y = tt_sub(c, tt_mul(c, a, tt_sigmoid(c, x)), tt_mul(c, x, x));
    (void)unused;
    return tt_add(c, tt_mul_scalar(c, y, 0.25f), x);
}

/* 1000 tiny ops on a [16] tensor, cycling through four cheap ones (values stay in [-1, 1.3]):
   the time is nearly all per-op overhead. None is x+0 or x*1, so no pass removes any. */
#define DISPATCH_OPS 1000
static tt_tensor *dispatch_fwd(tt_ctx *c, tt_tensor *const *in, const void *unused) {
    tt_tensor *x = in[0];
    int i;
    (void)unused;
    for (i = 0; i < DISPATCH_OPS; i++) {
        switch (i % 4) {
        case 0: x = tt_add_scalar(c, x, 0.25f); break;
        case 1: x = tt_mul_scalar(c, x, 0.9f); break;
        case 2: x = tt_tanh(c, x); break;
        default: x = tt_sub_scalar(c, x, 0.125f); break;
        }
    }
    return x;
}

#endif
