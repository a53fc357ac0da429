/* test_views.c - group `views`: reshape/view, permute, transpose, slice, expand, squeeze,
   unsqueeze, flatten, contiguous, clone; shared storage; chains of views; a randomized
   chain test against a test-side model of shape/stride/offset. References are computed by
   index arithmetic here, never by the code under test. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

/* Python slice rules for a positive step: first index and count. */
static void tv_py_range(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first, int64_t *count) {
    if (start < 0) start += n;
    if (start < 0) start = 0;
    if (start > n) start = n;
    if (stop < 0) stop += n;
    if (stop < 0) stop = 0;
    if (stop > n) stop = n;
    *first = start;
    *count = stop > start ? (stop - start + step - 1) / step : 0;
}

/* f16 bits of a small non-negative integer (< 2048), worked out here. */
static uint16_t tv_f16_of_int(int k) {
    int e = 0;
    if (k == 0) return 0;
    while ((k >> (e + 1)) != 0) e++;
    return (uint16_t)(((e + 15) << 10) | ((k << (10 - e)) & 0x3FF));
}

/* A random f32 tensor with its values (rounded to float) in vals. */
static tt_tensor *tv_rand_tensor(tt_ctx *c, int nd, const int64_t *shape, double *vals, unsigned long long seed) {
    int64_t n = 1;
    int d;
    for (d = 0; d < nd; d++) n *= shape[d];
    tu_uniform(vals, n, seed, -4.0, 4.0);
    return tu_tensor(c, nd, shape, vals);
}

/* Row-major strides of a contiguous shape. */
static void tv_contig_strides(int nd, const int64_t *shape, int64_t *stride) {
    int64_t s = 1;
    int d;
    for (d = nd - 1; d >= 0; d--) { stride[d] = s; s *= shape[d]; }
}

/* --------------------------------------------------------------- reshape */

static void test_reshape_basic(void) {
    tt_ctx *c = tu_ctx();
    int64_t s234[3] = {2, 3, 4};
    double vals[1155];
    tt_tensor *x;
    int k;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 3, s234, vals, 1);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    {
        int64_t shapes[7][3] = {{4, 6, 0}, {24, 0, 0}, {-1, 4, 0}, {2, -1, 0}, {3, -1, 2}, {1, 24, 1}, {-1, 0, 0}};
        int nds[7] = {2, 1, 2, 2, 3, 3, 1};
        int64_t want_shape[7][3] = {{4, 6, 0}, {24, 0, 0}, {6, 4, 0}, {2, 12, 0}, {3, 4, 2}, {1, 24, 1}, {24, 0, 0}};
        for (k = 0; k < 7; k++) {
            tt_tensor *r = (k % 2) ? tt_view(c, x, nds[k], shapes[k]) : tt_reshape(c, x, nds[k], shapes[k]);
            int d;
            CHECK_GUARDS(c);
            if (!CHECK(r != NULL)) { printf("      (case %d)\n", k); continue; }
            CHECK_EQ_INT(r->ndim, nds[k]);
            for (d = 0; d < nds[k]; d++) CHECK_EQ_INT(r->shape[d], want_shape[k][d]);
            CHECK_EQ_INT(r->numel, 24);
            CHECK_EQ_INT(r->dtype, TT_F32);
            CHECK(tt_is_contiguous(r));
            CHECK(tt_data(r) == tt_data(x));          /* a view: same storage */
            CHECK_VALUES(c, r, vals, 24);
        }
    }
    /* scalars */
    {
        int64_t s11[2] = {1, 1}, s111[3] = {1, 1, 1}, m1[1] = {-1};
        tt_tensor *one = tt_reshape(c, x, 3, s234);
        tt_tensor *p = tt_slice(c, tt_reshape(c, x, 1, m1), 0, 5, 6, 1);   /* [1] holding vals[5] */
        tt_tensor *s = tt_reshape(c, tt_reshape(c, p, 2, s11), 0, NULL);
        tt_tensor *u = tt_reshape(c, s, 3, s111);
        tt_tensor *v = tt_view(c, s, 1, m1);
        CHECK_GUARDS(c);
        CHECK(one != NULL);
        if (CHECK(s != NULL)) { CHECK_EQ_INT(s->ndim, 0); CHECK_EQ_INT(s->numel, 1); CHECK_NEAR(tt_item(c, s), vals[5], 0, 0); }
        if (CHECK(u != NULL)) { CHECK(tu_shape_is(u, 3, 1, 1, 1)); CHECK_NEAR(tt_item(c, u), vals[5], 0, 0); }
        if (CHECK(v != NULL)) { CHECK(tu_shape_is(v, 1, 1)); CHECK_NEAR(tt_item(c, v), vals[5], 0, 0); }
    }
    /* 1000+ elements, odd sizes */
    {
        int64_t sb[3] = {5, 7, 33}, t1[2] = {35, 33}, t2[2] = {-1, 231}, t3[4] = {5, 7, 3, 11};
        double big[1155];
        tt_tensor *b = tv_rand_tensor(c, 3, sb, big, 2);
        tt_tensor *r1 = tt_reshape(c, b, 2, t1), *r2 = tt_view(c, b, 2, t2), *r3 = tt_reshape(c, r1, 4, t3);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(r1, 2, 35, 33));
        CHECK(tu_shape_is(r2, 2, 5, 231));
        CHECK(tu_shape_is(r3, 4, 5, 7, 3, 11));
        CHECK_VALUES(c, r1, big, 1155);
        CHECK_VALUES(c, r2, big, 1155);
        CHECK_VALUES(c, r3, big, 1155);
    }
    /* zero-size tensors */
    {
        int64_t s03[2] = {0, 3}, s30[2] = {3, 0}, s0[1] = {0}, s305[3] = {3, 0, 5};
        tt_tensor *z = tt_zeros(c, TT_F32, 2, s03);
        tt_tensor *a = tt_reshape(c, z, 2, s30), *b = tt_reshape(c, z, 1, s0), *e = tt_reshape(c, z, 3, s305);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(a, 2, 3, 0));
        CHECK(tu_shape_is(b, 1, 0));
        CHECK(tu_shape_is(e, 3, 3, 0, 5));
        if (a) CHECK_EQ_INT(a->numel, 0);
    }
    /* other dtypes */
    {
        int32_t iv[6] = {16777217, -3, 5, 7, -2147483647 - 1, 2147483647};
        int64_t s6[1] = {6}, s32[2] = {3, 2};
        tt_tensor *ti = tt_from_data(c, TT_I32, 1, s6, iv);
        tt_tensor *r = tt_reshape(c, ti, 2, s32);
        CHECK_GUARDS(c);
        if (CHECK(r != NULL)) {
            CHECK_EQ_INT(r->dtype, TT_I32);
            CHECK(tu_shape_is(r, 2, 3, 2));
            CHECK(memcmp(tt_data(r), iv, sizeof iv) == 0);
        }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Reshapes of non-contiguous tensors that the strides can express: views, not copies. */
static void test_reshape_noncontiguous(void) {
    tt_ctx *c = tu_ctx();
    double vals[64], want[64];
    int64_t s34[2] = {3, 4};
    int i, j, k;
    CHECK(c != NULL);
    if (!c) return;
    /* transpose [3,4] -> [4,3] (strides 1,4) -> [2,2,3]: splitting the first axis is a view */
    {
        tt_tensor *x = tv_rand_tensor(c, 2, s34, vals, 3);
        tt_tensor *t = tt_transpose(c, x, 0, 1);
        int64_t s223[3] = {2, 2, 3}, s431[3] = {4, 3, 1}, s143[3] = {1, 4, 3};
        tt_tensor *r = tt_reshape(c, t, 3, s223), *r2 = tt_view(c, t, 3, s431), *r3 = tt_reshape(c, t, 3, s143);
        CHECK_GUARDS(c);
        for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[j * 4 + i];
        CHECK(tu_shape_is(r, 3, 2, 2, 3));
        CHECK(tu_shape_is(r2, 3, 4, 3, 1));
        CHECK(tu_shape_is(r3, 3, 1, 4, 3));
        CHECK_VALUES(c, r, want, 12);
        CHECK_VALUES(c, r2, want, 12);
        CHECK_VALUES(c, r3, want, 12);
        if (x && r && r2) {
            float *p = (float *)tt_data(x);
            for (k = 0; k < 12; k++) { p[k] = (float)(100 + k); vals[k] = 100 + k; }
            for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[j * 4 + i];
            CHECK_VALUES(c, r, want, 12);    /* shares storage */
            CHECK_VALUES(c, r2, want, 12);
            CHECK(!tt_is_contiguous(r));
        }
    }
    /* step-2 slice of [16] -> [8] (stride 2) -> [2,4] */
    {
        int64_t s16[1] = {16}, s24[2] = {2, 4};
        tt_tensor *x = tv_rand_tensor(c, 1, s16, vals, 4);
        tt_tensor *s = tt_slice(c, x, 0, 1, 16, 2);
        tt_tensor *r = tt_reshape(c, s, 2, s24);
        CHECK_GUARDS(c);
        for (k = 0; k < 8; k++) want[k] = vals[1 + 2 * k];
        CHECK(tu_shape_is(r, 2, 2, 4));
        CHECK_VALUES(c, r, want, 8);
        if (r && x) CHECK(tt_data(r) == (void *)((float *)tt_data(x) + 1));
    }
    /* expanded [3] -> [4,3] (strides 0,1) -> [2,2,3] */
    {
        int64_t s3[1] = {3}, s43[2] = {4, 3}, s223[3] = {2, 2, 3};
        tt_tensor *x = tv_rand_tensor(c, 1, s3, vals, 5);
        tt_tensor *e = tt_expand(c, x, 2, s43);
        tt_tensor *r = tt_reshape(c, e, 3, s223);
        CHECK_GUARDS(c);
        for (k = 0; k < 12; k++) want[k] = vals[k % 3];
        CHECK(tu_shape_is(r, 3, 2, 2, 3));
        CHECK_VALUES(c, r, want, 12);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_reshape_errors(void) {
    tt_ctx *c = tu_ctx();
    int64_t s234[3] = {2, 3, 4}, s55[2] = {5, 5}, m15[2] = {-1, 5}, mm[2] = {-1, -1}, m2[2] = {-2, -12};
    int64_t many[TT_MAX_DIMS + 1];
    double vals[24];
    tt_tensor *x;
    int i;
    CHECK(c != NULL);
    if (!c) return;
    for (i = 0; i < TT_MAX_DIMS + 1; i++) many[i] = 1;
    x = tv_rand_tensor(c, 3, s234, vals, 6);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }

    CHECK(tt_reshape(c, x, 2, s55) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
    CHECK_STR_CONTAINS(tt_error(c), "tt_reshape");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3,4]");
    CHECK_STR_CONTAINS(tt_error(c), "[5,5]");
    tt_clear_error(c);
    CHECK(tt_reshape(c, x, 2, m15) == NULL);                 /* 24 is not a multiple of 5 */
    CHECK_ERROR(c, TT_ERR_SHAPE, "tt_reshape");
    CHECK(tt_reshape(c, x, 2, mm) == NULL);                  /* two inferred sizes */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape");
    CHECK(tt_reshape(c, x, 2, m2) == NULL);                  /* negative sizes other than -1 */
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape");
    CHECK(tt_reshape(c, x, TT_MAX_DIMS + 1, many) == NULL);
    CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, "tt_reshape");
    CHECK(tt_reshape(c, x, 2, NULL) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_reshape");
    CHECK(tt_view(c, x, 2, s55) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
    CHECK(tt_error(c) && (strstr(tt_error(c), "tt_view") || strstr(tt_error(c), "tt_reshape")));
    tt_clear_error(c);

    /* not expressible as a view: the message says to call tt_contiguous */
    {
        int64_t s34[2] = {3, 4}, s12[1] = {12}, s9[1] = {9}, s43[2] = {4, 3}, s38[2] = {3, 8};
        tt_tensor *a = tv_rand_tensor(c, 2, s34, vals, 7);
        tt_tensor *t = tt_transpose(c, a, 0, 1);
        tt_tensor *e = tt_expand(c, tt_slice(c, a, 0, 0, 1, 1), 2, s34);   /* [1,4] -> [3,4] */
        tt_tensor *e2 = tt_expand(c, tt_slice(c, tt_reshape(c, a, 1, s12), 0, 0, 3, 1), 2, s43);
        tt_tensor *sl = tt_slice(c, tt_zeros(c, TT_F32, 2, s38), 1, 0, 8, 3);   /* [3,3], strides 8,3 */
        CHECK_GUARDS(c);
        if (!CHECK(a && t && e && e2 && sl)) { tt_ctx_destroy(c); return; }
        CHECK(tt_view(c, t, 1, s12) == NULL);
        CHECK(tt_ctx_status(c) != TT_OK);
        CHECK_STR_CONTAINS(tt_error(c), "tt_view");
        CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
        tt_clear_error(c);
        CHECK(tt_view(c, t, 2, s34) == NULL);                /* [4,3]^T viewed as [3,4]: no */
        CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
        tt_clear_error(c);
        CHECK(tt_view(c, e, 1, s12) == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
        tt_clear_error(c);
        CHECK(tt_view(c, e2, 1, s12) == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
        tt_clear_error(c);
        CHECK(tt_view(c, sl, 1, s9) == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
        tt_clear_error(c);
        /* tt_reshape copies instead, as PyTorch's reshape: the values of the transposed order */
        {
            tt_tensor *r = tt_reshape(c, t, 1, s12);
            float *got = tu_values(c, r);
            int i2, j2;
            CHECK(r != NULL && r->data != t->data);
            for (i2 = 0; got && i2 < 4; i2++)
                for (j2 = 0; j2 < 3; j2++) CHECK_NEAR(got[i2 * 3 + j2], vals[j2 * 4 + i2], 0, 0);
            free(got);
        }
        /* and the advice works */
        {
            tt_tensor *r = tt_reshape(c, tt_contiguous(c, t), 1, s12);
            double want[12];
            int i2, j2;
            CHECK_GUARDS(c);
            for (i2 = 0; i2 < 4; i2++) for (j2 = 0; j2 < 3; j2++) want[i2 * 3 + j2] = vals[j2 * 4 + i2];
            CHECK_VALUES(c, r, want, 12);
        }
    }
    /* NULL in, NULL out, no error */
    CHECK(tt_reshape(c, NULL, 2, s55) == NULL);
    CHECK(tt_view(c, NULL, 2, s55) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------ permute/transpose */

static void test_permute(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[4] = {2, 3, 4, 5};
    double vals[120], want[1155];
    tt_tensor *x, *p;
    int perm[4] = {2, 0, 3, 1};
    int i, j, k, l;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 4, s, vals, 11);
    p = tt_permute(c, x, perm);
    CHECK_GUARDS(c);
    if (!CHECK(x && p)) { tt_ctx_destroy(c); return; }
    CHECK(tu_shape_is(p, 4, 4, 2, 5, 3));
    CHECK_EQ_INT(p->numel, 120);
    CHECK(!tt_is_contiguous(p));
    CHECK(tt_data(p) == tt_data(x));
    /* result(i,j,k,l) = x(j,l,i,k) */
    for (i = 0; i < 4; i++) for (j = 0; j < 2; j++) for (k = 0; k < 5; k++) for (l = 0; l < 3; l++)
        want[((i * 2 + j) * 5 + k) * 3 + l] = vals[((j * 3 + l) * 4 + i) * 5 + k];
    CHECK_VALUES(c, p, want, 120);
    /* the inverse permutation gives x back, contiguous */
    {
        int inv[4] = {1, 3, 0, 2};
        tt_tensor *b = tt_permute(c, p, inv);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(b, 4, 2, 3, 4, 5));
        if (b) CHECK(tt_is_contiguous(b));
        CHECK_VALUES(c, b, vals, 120);
    }
    /* identity */
    {
        int id[4] = {0, 1, 2, 3};
        tt_tensor *b = tt_permute(c, x, id);
        CHECK_GUARDS(c);
        CHECK_VALUES(c, b, vals, 120);
        if (b) CHECK(tt_is_contiguous(b));
    }
    /* a non-contiguous input, 1000+ elements: slice with step 2, then permute */
    {
        int64_t sb[3] = {5, 7, 33};
        double big[1155];
        int pb[3] = {2, 0, 1};
        tt_tensor *b = tv_rand_tensor(c, 3, sb, big, 12);
        tt_tensor *sl = tt_slice(c, b, 2, 0, 33, 2);       /* [5,7,17] */
        tt_tensor *q = tt_permute(c, sl, pb);              /* [17,5,7] */
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(q, 3, 17, 5, 7));
        for (i = 0; i < 17; i++) for (j = 0; j < 5; j++) for (k = 0; k < 7; k++)
            want[(i * 5 + j) * 7 + k] = big[(j * 7 + k) * 33 + 2 * i];
        CHECK_VALUES(c, q, want, 17 * 5 * 7);
    }
    /* bad permutations */
    {
        int rep[4] = {0, 0, 1, 2}, oob[4] = {0, 1, 2, 4}, neg[4] = {0, 1, 2, -9};
        CHECK(tt_permute(c, x, rep) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_permute");
        CHECK(tt_permute(c, x, oob) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_permute");
        CHECK(tt_permute(c, x, neg) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_permute");
        CHECK(tt_permute(c, x, NULL) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_permute");
        CHECK(tt_permute(c, NULL, perm) == NULL);
        CHECK(tt_error(c) == NULL);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_transpose(void) {
    tt_ctx *c = tu_ctx();
    int64_t s35[2] = {3, 5}, s234[3] = {2, 3, 4};
    double v35[15], v234[24], want[24];
    tt_tensor *a, *b, *t;
    int i, j, k;
    CHECK(c != NULL);
    if (!c) return;
    a = tv_rand_tensor(c, 2, s35, v35, 21);
    b = tv_rand_tensor(c, 3, s234, v234, 22);
    CHECK_GUARDS(c);
    if (!CHECK(a && b)) { tt_ctx_destroy(c); return; }
    t = tt_transpose(c, a, 0, 1);
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(t, 2, 5, 3));
    if (t) { CHECK_EQ_INT(t->stride[0], 1); CHECK_EQ_INT(t->stride[1], 5); CHECK(tt_data(t) == tt_data(a)); }
    for (i = 0; i < 5; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = v35[j * 5 + i];
    CHECK_VALUES(c, t, want, 15);
    /* negative axes */
    t = tt_transpose(c, b, -1, -3);                         /* [4,3,2] */
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(t, 3, 4, 3, 2));
    for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) for (k = 0; k < 2; k++)
        want[(i * 3 + j) * 2 + k] = v234[(k * 3 + j) * 4 + i];
    CHECK_VALUES(c, t, want, 24);
    /* transposing back restores a contiguous tensor */
    {
        tt_tensor *tt = tt_transpose(c, t, 2, 0);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(tt, 3, 2, 3, 4));
        if (tt) CHECK(tt_is_contiguous(tt));
        CHECK_VALUES(c, tt, v234, 24);
    }
    /* the same axis twice: unchanged */
    t = tt_transpose(c, b, 1, -2);
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(t, 3, 2, 3, 4));
    CHECK_VALUES(c, t, v234, 24);
    /* middle axes of a non-contiguous input (a step-2 slice) */
    {
        tt_tensor *sl = tt_slice(c, b, 2, 1, 4, 2);          /* [2,3,2]: cols 1,3 */
        tt_tensor *tr = tt_transpose(c, sl, 0, 1);           /* [3,2,2] */
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(tr, 3, 3, 2, 2));
        for (i = 0; i < 3; i++) for (j = 0; j < 2; j++) for (k = 0; k < 2; k++)
            want[(i * 2 + j) * 2 + k] = v234[(j * 3 + i) * 4 + 1 + 2 * k];
        CHECK_VALUES(c, tr, want, 12);
    }
    /* f16 and i32 storage */
    {
        uint16_t h[6];
        int32_t iv[6] = {1, -2, 3, -4, 16777217, 6};
        int64_t s23[2] = {2, 3};
        tt_tensor *th, *ti, *tth, *tti;
        double wh[6], wi[6];
        for (k = 0; k < 6; k++) h[k] = tv_f16_of_int(k * 7);
        th = tt_from_data(c, TT_F16, 2, s23, h);
        ti = tt_from_data(c, TT_I32, 2, s23, iv);
        tth = tt_transpose(c, th, 0, 1);
        tti = tt_transpose(c, ti, 1, 0);
        CHECK_GUARDS(c);
        for (i = 0; i < 3; i++) for (j = 0; j < 2; j++) { wh[i * 2 + j] = (j * 3 + i) * 7; wi[i * 2 + j] = (float)iv[j * 3 + i]; }
        CHECK(tu_shape_is(tth, 2, 3, 2));
        if (tth) CHECK_EQ_INT(tth->dtype, TT_F16);
        if (tti) CHECK_EQ_INT(tti->dtype, TT_I32);
        CHECK_VALUES(c, tth, wh, 6);
        CHECK_VALUES(c, tti, wi, 6);
    }
    /* bad axes */
    CHECK(tt_transpose(c, b, 0, 3) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_transpose");
    CHECK(tt_transpose(c, b, -4, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_transpose");
    CHECK(tt_transpose(c, b, 7, 7) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_transpose");
    CHECK(tt_transpose(c, NULL, 0, 1) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------------------- slice */

static void test_slice(void) {
    tt_ctx *c = tu_ctx();
    int64_t s79[2] = {7, 9};
    double vals[63], want[63];
    tt_tensor *x;
    int k;
    /* axis, start, stop, step */
    static const int64_t cases[][4] = {
        {1, 1, 8, 2}, {1, 0, 9, 3}, {1, -3, -1, 1}, {-1, -100, 100, 1}, {0, 5, 100, 3},
        {0, 2, 7, 2}, {1, 5, 2, 1}, {0, 100, 200, 1}, {0, -2, 100, 1}, {1, 2, -100, 1},
        {1, 8, 9, 5}, {-2, -7, 7, 3}, {1, -9, -8, 1}, {0, 0, 7, 1}, {1, 1, 9, 3}, {0, -100, -6, 2}
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 2, s79, vals, 31);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    for (k = 0; k < ncases; k++) {
        int axis = (int)cases[k][0], ax = axis < 0 ? axis + 2 : axis;
        int64_t first, count, shape[2], stride[2] = {9, 1}, off;
        tt_tensor *s = tt_slice(c, x, axis, cases[k][1], cases[k][2], cases[k][3]);
        CHECK_GUARDS(c);
        tv_py_range(s79[ax], cases[k][1], cases[k][2], cases[k][3], &first, &count);
        shape[0] = 7; shape[1] = 9;
        shape[ax] = count;
        off = first * stride[ax];
        stride[ax] *= cases[k][3];
        if (!CHECK(s != NULL)) { printf("      (case %d)\n", k); continue; }
        if (!CHECK(tu_shape_is(s, 2, (int)shape[0], (int)shape[1]))) printf("      (case %d)\n", k);
        CHECK_EQ_INT(s->numel, shape[0] * shape[1]);
        if (s->numel > 0) {
            tu_strided_gather(vals, 2, shape, stride, off, want);
            CHECK_VALUES(c, s, want, s->numel);
            CHECK(tt_data(s) == (void *)((float *)tt_data(x) + off));     /* a view */
            if (shape[ax] > 1) CHECK_EQ_INT(s->stride[ax], stride[ax]);
        }
    }
    /* shares storage */
    {
        tt_tensor *s = tt_slice(c, x, 1, 1, 9, 3);            /* cols 1,4,7 */
        float *p = (float *)tt_data(x);
        int i, j;
        CHECK_GUARDS(c);
        for (k = 0; k < 63; k++) { p[k] = (float)(k * 3); vals[k] = k * 3; }
        for (i = 0; i < 7; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[i * 9 + 1 + 3 * j];
        CHECK_VALUES(c, s, want, 21);
    }
    /* slice of a slice of a transpose (non-contiguous input), and 1000+ elements */
    {
        int64_t sb[3] = {5, 7, 33};
        double big[1155], wb[1155];
        tt_tensor *b = tv_rand_tensor(c, 3, sb, big, 32);
        tt_tensor *t = tt_transpose(c, b, 0, 2);              /* [33,7,5] */
        tt_tensor *s1 = tt_slice(c, t, 0, -31, 1000, 3);      /* i = 2,5,...,32: 11 */
        tt_tensor *s2 = tt_slice(c, s1, 1, 1, -1, 2);         /* j = 1,3,5: 3 */
        tt_tensor *s3 = tt_slice(c, s2, 2, -4, 5, 1);         /* l = 1..4: 4 */
        int i, j, l;
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(s1, 3, 11, 7, 5));
        CHECK(tu_shape_is(s3, 3, 11, 3, 4));
        for (i = 0; i < 11; i++) for (j = 0; j < 7; j++) for (l = 0; l < 5; l++)
            wb[(i * 7 + j) * 5 + l] = big[(l * 7 + j) * 33 + 2 + 3 * i];
        CHECK_VALUES(c, s1, wb, 385);
        for (i = 0; i < 11; i++) for (j = 0; j < 3; j++) for (l = 0; l < 4; l++)
            wb[(i * 3 + j) * 4 + l] = big[((l + 1) * 7 + 1 + 2 * j) * 33 + 2 + 3 * i];
        CHECK_VALUES(c, s3, wb, 132);
        /* and the plain 1000+ case */
        {
            tt_tensor *s4 = tt_slice(c, b, 2, 1, -1, 3);     /* 1,4,...,31: 11 */
            CHECK_GUARDS(c);
            CHECK(tu_shape_is(s4, 3, 5, 7, 11));
            for (i = 0; i < 35; i++) for (l = 0; l < 11; l++) wb[i * 11 + l] = big[i * 33 + 1 + 3 * l];
            CHECK_VALUES(c, s4, wb, 385);
        }
    }
    /* i32 and f16 storage */
    {
        int32_t iv[10];
        uint16_t h[10];
        int64_t s10[1] = {10};
        double wi[10], wh[10];
        tt_tensor *ti, *th, *si, *sh;
        for (k = 0; k < 10; k++) { iv[k] = 16777217 + k; h[k] = tv_f16_of_int(3 * k + 1); }
        ti = tt_from_data(c, TT_I32, 1, s10, iv);
        th = tt_from_data(c, TT_F16, 1, s10, h);
        si = tt_slice(c, ti, 0, 1, 10, 3);
        sh = tt_slice(c, th, 0, -5, 10, 2);
        CHECK_GUARDS(c);
        for (k = 0; k < 3; k++) wi[k] = (double)(float)iv[1 + 3 * k];
        for (k = 0; k < 3; k++) wh[k] = 3 * (5 + 2 * k) + 1;
        CHECK(tu_shape_is(si, 1, 3));
        CHECK(tu_shape_is(sh, 1, 3));
        CHECK_VALUES(c, si, wi, 3);
        CHECK_VALUES(c, sh, wh, 3);
        if (si) { CHECK_EQ_INT(si->dtype, TT_I32); CHECK_EQ_INT(*(int32_t *)tt_data(si), 16777218); }
    }
    /* bad arguments */
    CHECK(tt_slice(c, x, 1, 0, 9, 0) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    CHECK(tt_slice(c, x, 1, 9, 0, -1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    CHECK(tt_slice(c, x, 2, 0, 1, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    CHECK(tt_slice(c, x, -3, 0, 1, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    {
        tt_tensor *sc = tt_scalar(c, 1.0f);
        CHECK(tt_slice(c, sc, 0, 0, 1, 1) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    }
    CHECK(tt_slice(c, NULL, 0, 0, 1, 1) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------------------ expand */

static void test_expand(void) {
    tt_ctx *c = tu_ctx();
    double vals[64], want[1200];
    int i, j, k;
    CHECK(c != NULL);
    if (!c) return;
    /* [3,1] -> [3,4] */
    {
        int64_t s31[2] = {3, 1}, s34[2] = {3, 4}, m15[2] = {-1, 5}, s2135[4] = {2, 1, 3, 5};
        tt_tensor *x = tv_rand_tensor(c, 2, s31, vals, 41);
        tt_tensor *e = tt_expand(c, x, 2, s34);
        tt_tensor *e2 = tt_expand(c, x, 2, m15);              /* -1 keeps 3 */
        tt_tensor *e3 = tt_expand(c, x, 4, s2135);            /* new leading axes */
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(e, 2, 3, 4));
        if (e) { CHECK_EQ_INT(e->stride[1], 0); CHECK(tt_data(e) == tt_data(x)); CHECK(!tt_is_contiguous(e)); }
        for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) want[i * 4 + j] = vals[i];
        CHECK_VALUES(c, e, want, 12);
        CHECK(tu_shape_is(e2, 2, 3, 5));
        for (i = 0; i < 3; i++) for (j = 0; j < 5; j++) want[i * 5 + j] = vals[i];
        CHECK_VALUES(c, e2, want, 15);
        CHECK(tu_shape_is(e3, 4, 2, 1, 3, 5));
        if (e3) { CHECK_EQ_INT(e3->stride[0], 0); CHECK_EQ_INT(e3->stride[3], 0); CHECK_EQ_INT(e3->numel, 30); }
        for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) for (k = 0; k < 5; k++) want[(i * 3 + j) * 5 + k] = vals[j];
        CHECK_VALUES(c, e3, want, 30);
        /* writes to x are seen in every copy */
        if (x && e3) {
            ((float *)tt_data(x))[1] = 77.0f;
            vals[1] = 77.0;
            for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) for (k = 0; k < 5; k++) want[(i * 3 + j) * 5 + k] = vals[j];
            CHECK_VALUES(c, e3, want, 30);
        }
    }
    /* [3] -> [2,4,3]; a scalar -> [2,3]; same shape */
    {
        int64_t s3[1] = {3}, s243[3] = {2, 4, 3}, s23[2] = {2, 3}, m3[2] = {-1, -1};
        tt_tensor *x = tv_rand_tensor(c, 1, s3, vals, 42);
        tt_tensor *e = tt_expand(c, x, 3, s243);
        tt_tensor *sc = tt_scalar(c, -2.5f);
        tt_tensor *es = tt_expand(c, sc, 2, s23);
        tt_tensor *same = tt_expand(c, x, 1, s3);
        tt_tensor *keep = tt_expand(c, tt_expand(c, x, 2, s23), 2, m3);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(e, 3, 2, 4, 3));
        for (k = 0; k < 24; k++) want[k] = vals[k % 3];
        CHECK_VALUES(c, e, want, 24);
        CHECK(tu_shape_is(es, 2, 2, 3));
        for (k = 0; k < 6; k++) want[k] = -2.5;
        CHECK_VALUES(c, es, want, 6);
        CHECK(tu_shape_is(same, 1, 3));
        CHECK_VALUES(c, same, vals, 3);
        CHECK(tu_shape_is(keep, 2, 2, 3));
        for (k = 0; k < 6; k++) want[k] = vals[k % 3];
        CHECK_VALUES(c, keep, want, 6);
    }
    /* non-contiguous input: transpose of [1,5] is [5,1] with strides (1,5) */
    {
        int64_t s15[2] = {1, 5}, s256[3] = {2, 5, 6};
        tt_tensor *x = tv_rand_tensor(c, 2, s15, vals, 43);
        tt_tensor *t = tt_transpose(c, x, 0, 1);
        tt_tensor *e = tt_expand(c, t, 3, s256);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(e, 3, 2, 5, 6));
        for (i = 0; i < 2; i++) for (j = 0; j < 5; j++) for (k = 0; k < 6; k++) want[(i * 5 + j) * 6 + k] = vals[j];
        CHECK_VALUES(c, e, want, 60);
    }
    /* a step-2 slice expanded to 1000+ elements */
    {
        int64_t s17[2] = {1, 17}, sb[3] = {8, 9, 9}, s7[2] = {7, 1};
        tt_tensor *x = tv_rand_tensor(c, 2, s17, vals, 44);
        tt_tensor *sl = tt_slice(c, x, 1, 0, 17, 2);          /* [1,9] stride 2 */
        tt_tensor *e = tt_expand(c, sl, 3, sb);               /* [8,9,9] */
        tt_tensor *col = tt_expand(c, tt_transpose(c, tt_slice(c, x, 1, 3, 10, 1), 0, 1), 2, s7);  /* [7,1] -> same */
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(e, 3, 8, 9, 9));
        for (i = 0; i < 8; i++) for (j = 0; j < 9; j++) for (k = 0; k < 9; k++) want[(i * 9 + j) * 9 + k] = vals[2 * k];
        CHECK_VALUES(c, e, want, 648);
        CHECK(tu_shape_is(col, 2, 7, 1));
        for (k = 0; k < 7; k++) want[k] = vals[3 + k];
        CHECK_VALUES(c, col, want, 7);
    }
    /* errors */
    {
        int64_t s3[1] = {3}, s4[1] = {4}, s23[2] = {2, 3}, m13[2] = {-1, 3}, s34[2] = {3, 4}, s0[1] = {-2};
        tt_tensor *x = tt_ones(c, TT_F32, 1, s3);
        tt_tensor *y = tt_ones(c, TT_F32, 2, s23);
        CHECK(tt_expand(c, x, 1, s4) == NULL);                /* a size-3 axis cannot grow */
        CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
        CHECK_STR_CONTAINS(tt_error(c), "tt_expand");
        CHECK_STR_CONTAINS(tt_error(c), "[3]");
        CHECK_STR_CONTAINS(tt_error(c), "[4]");
        tt_clear_error(c);
        CHECK(tt_expand(c, y, 2, s34) == NULL);               /* [2,3] -> [3,4] */
        CHECK_EQ_INT(tt_ctx_status(c), TT_ERR_SHAPE);
        CHECK_STR_CONTAINS(tt_error(c), "tt_expand");
        CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
        CHECK_STR_CONTAINS(tt_error(c), "[3,4]");
        tt_clear_error(c);
        CHECK(tt_expand(c, y, 1, s3) == NULL);                /* fewer dims */
        CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_expand");
        CHECK(tt_expand(c, x, 2, m13) == NULL);               /* -1 on a new leading axis */
        CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_expand");
        CHECK(tt_expand(c, x, 1, s0) == NULL);
        CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_expand");
        CHECK(tt_expand(c, x, 1, NULL) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_expand");
        CHECK(tt_expand(c, NULL, 1, s3) == NULL);
        CHECK(tt_error(c) == NULL);
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------- squeeze/unsqueeze */

static void test_squeeze(void) {
    tt_ctx *c = tu_ctx();
    int64_t s314[3] = {3, 1, 4}, s1[1] = {1};
    double vals[12], want[12];
    tt_tensor *x, *r;
    int i, j;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 3, s314, vals, 51);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    r = tt_squeeze(c, x, 1);
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(r, 2, 3, 4));
    if (r) CHECK(tt_data(r) == tt_data(x));
    CHECK_VALUES(c, r, vals, 12);
    r = tt_squeeze(c, x, -2);
    CHECK(tu_shape_is(r, 2, 3, 4));
    CHECK_VALUES(c, r, vals, 12);
    r = tt_squeeze(c, x, 0);                                  /* size 3: unchanged */
    CHECK(tu_shape_is(r, 3, 3, 1, 4));
    CHECK_VALUES(c, r, vals, 12);
    r = tt_squeeze(c, x, -1);                                 /* size 4: unchanged */
    CHECK(tu_shape_is(r, 3, 3, 1, 4));
    CHECK_GUARDS(c);
    /* [1] -> a scalar */
    {
        tt_tensor *o = tt_full(c, TT_F32, 1, s1, 6.5);
        tt_tensor *sq = tt_squeeze(c, o, 0);
        CHECK_GUARDS(c);
        if (CHECK(sq != NULL)) { CHECK_EQ_INT(sq->ndim, 0); CHECK_NEAR(tt_item(c, sq), 6.5, 0, 0); }
    }
    /* non-contiguous: the transpose of [3,1,4] is [4,1,3] */
    {
        tt_tensor *t = tt_transpose(c, x, 0, 2);
        tt_tensor *sq = tt_squeeze(c, t, 1);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(sq, 2, 4, 3));
        for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[j * 4 + i];
        CHECK_VALUES(c, sq, want, 12);
    }
    CHECK(tt_squeeze(c, x, 3) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_squeeze");
    CHECK(tt_squeeze(c, x, -4) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_squeeze");
    CHECK(tt_squeeze(c, NULL, 0) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_unsqueeze(void) {
    tt_ctx *c = tu_ctx();
    int64_t s34[2] = {3, 4};
    double vals[12], want[12];
    tt_tensor *x;
    int pos, i, j;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 2, s34, vals, 61);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    for (pos = -3; pos <= 2; pos++) {
        tt_tensor *u = tt_unsqueeze(c, x, pos);
        int p = pos < 0 ? pos + 3 : pos, d, q = 0, ok = 1;
        CHECK_GUARDS(c);
        if (!CHECK(u != NULL)) continue;
        CHECK_EQ_INT(u->ndim, 3);
        for (d = 0; d < 3; d++) {
            int64_t want_size = (d == p) ? 1 : s34[q++];
            if (u->shape[d] != want_size) ok = 0;
        }
        if (!CHECK(ok)) printf("      (position %d)\n", pos);
        CHECK(tt_data(u) == tt_data(x));
        CHECK(tt_is_contiguous(u));
        CHECK_VALUES(c, u, vals, 12);
    }
    CHECK(tt_unsqueeze(c, x, 3) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_unsqueeze");
    CHECK(tt_unsqueeze(c, x, -4) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_unsqueeze");
    /* scalars */
    {
        tt_tensor *s = tt_scalar(c, 2.25f);
        tt_tensor *a = tt_unsqueeze(c, s, 0), *b = tt_unsqueeze(c, s, -1);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(a, 1, 1));
        CHECK(tu_shape_is(b, 1, 1));
        if (a) CHECK_NEAR(tt_item(c, a), 2.25, 0, 0);
        CHECK(tt_unsqueeze(c, s, 1) == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_unsqueeze");
    }
    /* non-contiguous input */
    {
        tt_tensor *t = tt_transpose(c, x, 0, 1);                 /* [4,3] */
        tt_tensor *u = tt_unsqueeze(c, t, 1);                    /* [4,1,3] */
        tt_tensor *u2 = tt_unsqueeze(c, tt_slice(c, x, 1, 0, 4, 2), -1);   /* [3,2,1] */
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(u, 3, 4, 1, 3));
        for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[j * 4 + i];
        CHECK_VALUES(c, u, want, 12);
        CHECK(tu_shape_is(u2, 3, 3, 2, 1));
        for (i = 0; i < 3; i++) for (j = 0; j < 2; j++) want[i * 2 + j] = vals[i * 4 + 2 * j];
        CHECK_VALUES(c, u2, want, 6);
    }
    /* no room for another axis */
    {
        int64_t full[TT_MAX_DIMS];
        tt_tensor *m;
        for (i = 0; i < TT_MAX_DIMS; i++) full[i] = 1;
        m = tt_ones(c, TT_F32, TT_MAX_DIMS, full);
        CHECK(m != NULL);
        CHECK(tt_unsqueeze(c, m, 0) == NULL);
        CHECK_ERROR_EITHER(c, TT_ERR_ARG, TT_ERR_SHAPE, "tt_unsqueeze");
    }
    CHECK(tt_unsqueeze(c, NULL, 0) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------------------------ flatten */

static void test_flatten(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[4] = {2, 3, 4, 5};
    double vals[120], want[120];
    tt_tensor *x, *f;
    int i, j, k;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 4, s, vals, 71);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    f = tt_flatten(c, x, 1, 2);
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(f, 3, 2, 12, 5));
    if (f) CHECK(tt_data(f) == tt_data(x));
    CHECK_VALUES(c, f, vals, 120);
    f = tt_flatten(c, x, 0, -1);
    CHECK(tu_shape_is(f, 1, 120));
    CHECK_VALUES(c, f, vals, 120);
    f = tt_flatten(c, x, -2, -1);
    CHECK(tu_shape_is(f, 3, 2, 3, 20));
    CHECK_VALUES(c, f, vals, 120);
    f = tt_flatten(c, x, 1, 1);
    CHECK(tu_shape_is(f, 4, 2, 3, 4, 5));
    CHECK_VALUES(c, f, vals, 120);
    CHECK_GUARDS(c);
    /* non-contiguous but mergeable: permute [2,3,4] by (2,0,1) -> [4,2,3], merge the last two */
    {
        int64_t s234[3] = {2, 3, 4};
        int perm[3] = {2, 0, 1};
        tt_tensor *y = tv_rand_tensor(c, 3, s234, vals, 72);
        tt_tensor *p = tt_permute(c, y, perm);
        tt_tensor *fl = tt_flatten(c, p, 1, 2);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(fl, 2, 4, 6));
        for (i = 0; i < 4; i++) for (j = 0; j < 2; j++) for (k = 0; k < 3; k++)
            want[i * 6 + j * 3 + k] = vals[(j * 3 + k) * 4 + i];
        CHECK_VALUES(c, fl, want, 24);
        if (fl && y) CHECK(tt_data(fl) == tt_data(y));      /* still a view */
        /* not mergeable as a view: either a correct result or the tt_contiguous advice */
        fl = tt_flatten(c, p, 0, 1);
        CHECK_GUARDS(c);
        if (fl) {
            CHECK(tu_shape_is(fl, 2, 8, 3));
            for (i = 0; i < 4; i++) for (j = 0; j < 2; j++) for (k = 0; k < 3; k++)
                want[(i * 2 + j) * 3 + k] = vals[(j * 3 + k) * 4 + i];
            CHECK_VALUES(c, fl, want, 24);
        } else {
            CHECK_STR_CONTAINS(tt_error(c), "tt_flatten");
            CHECK_STR_CONTAINS(tt_error(c), "tt_contiguous");
            tt_clear_error(c);
        }
    }
    /* errors */
    CHECK(tt_flatten(c, x, 2, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_flatten");
    CHECK(tt_flatten(c, x, 0, 4) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_flatten");
    CHECK(tt_flatten(c, x, -5, 1) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_flatten");
    CHECK(tt_flatten(c, NULL, 0, 1) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* -------------------------------------------------------- contiguous/clone */

static void test_contiguous(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {5, 7};
    double vals[35], want[35];
    tt_tensor *x, *r;
    int i, j;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 2, s, vals, 81);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    r = tt_contiguous(c, x);
    CHECK(r == x);                                            /* already contiguous: itself */
    /* transposed: a copy */
    {
        tt_tensor *t = tt_transpose(c, x, 0, 1);
        tt_tensor *ct = tt_contiguous(c, t);
        CHECK_GUARDS(c);
        if (CHECK(ct != NULL && t != NULL)) {
            CHECK(ct != t);
            CHECK(tt_is_contiguous(ct));
            CHECK(tu_shape_is(ct, 2, 7, 5));
            CHECK_EQ_INT(ct->stride[0], 5);
            CHECK_EQ_INT(ct->stride[1], 1);
            CHECK(tt_data(ct) != tt_data(x));
            for (i = 0; i < 7; i++) for (j = 0; j < 5; j++) want[i * 5 + j] = vals[j * 7 + i];
            {
                const float *p = (const float *)tt_data(ct);
                int bad = 0;
                for (i = 0; i < 35; i++) bad += (double)p[i] != want[i];   /* raw memory, in order */
                CHECK_EQ_INT(bad, 0);
            }
            ((float *)tt_data(x))[0] = 1234.0f;               /* the copy does not follow */
            CHECK_VALUES(c, ct, want, 35);
            ((float *)tt_data(x))[0] = (float)vals[0];
        }
    }
    /* expanded and sliced inputs are materialized */
    {
        int64_t s4_7[2] = {4, 7};
        tt_tensor *e = tt_expand(c, tt_slice(c, x, 0, 2, 3, 1), 2, s4_7);
        tt_tensor *ce = tt_contiguous(c, e);
        tt_tensor *sl = tt_slice(c, x, 1, 0, 7, 3);
        tt_tensor *cs = tt_contiguous(c, sl);
        tt_tensor *rows = tt_slice(c, x, 0, 1, 3, 1);          /* contiguous in memory already */
        CHECK_GUARDS(c);
        if (CHECK(ce && cs && rows)) {
            CHECK(tt_is_contiguous(ce));
            CHECK(tu_shape_is(ce, 2, 4, 7));
            for (i = 0; i < 4; i++) for (j = 0; j < 7; j++) want[i * 7 + j] = vals[2 * 7 + j];
            CHECK_VALUES(c, ce, want, 28);
            CHECK(memcmp((const float *)tt_data(ce) + 21, (const float *)tt_data(x) + 14, 7 * sizeof(float)) == 0);
            CHECK(tt_is_contiguous(cs));
            CHECK(tu_shape_is(cs, 2, 5, 3));
            for (i = 0; i < 5; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[i * 7 + 3 * j];
            CHECK_VALUES(c, cs, want, 15);
            CHECK(tt_contiguous(c, rows) == rows);             /* contiguous views are returned as is */
        }
    }
    /* the rule holds for many views: itself exactly when contiguous */
    {
        int64_t s71[2] = {7, 1};
        tt_tensor *views[6];
        int n;
        views[0] = tt_transpose(c, x, 0, 1);
        views[1] = tt_slice(c, x, 0, 0, 5, 2);
        views[2] = tt_unsqueeze(c, x, 1);
        views[3] = tt_slice(c, x, 1, 2, 3, 1);                 /* [5,1], stride 7 */
        views[4] = tt_expand(c, tt_slice(c, views[0], 1, 0, 1, 1), 2, s71);
        views[5] = tt_scalar(c, 1.0f);
        CHECK_GUARDS(c);
        for (n = 0; n < 6; n++) {
            tt_tensor *cv;
            if (!CHECK(views[n] != NULL)) continue;
            cv = tt_contiguous(c, views[n]);
            CHECK_GUARDS(c);
            if (!CHECK(cv != NULL)) continue;
            CHECK(tt_is_contiguous(cv));
            CHECK((cv == views[n]) == tt_is_contiguous(views[n]));
        }
    }
    /* f16 and i32 keep their dtype and bits */
    {
        int32_t iv[6] = {16777217, -1, 2147483647, 4, -2147483647 - 1, 6}, wi[6];
        uint16_t h[6] = {0x3C00, 0x0001, 0x7BFF, 0xC000, 0x3555, 0x8000}, wh[6];
        int64_t s23[2] = {2, 3};
        tt_tensor *ti = tt_transpose(c, tt_from_data(c, TT_I32, 2, s23, iv), 0, 1);
        tt_tensor *th = tt_transpose(c, tt_from_data(c, TT_F16, 2, s23, h), 0, 1);
        tt_tensor *ci = tt_contiguous(c, ti), *ch = tt_contiguous(c, th);
        CHECK_GUARDS(c);
        for (i = 0; i < 3; i++) for (j = 0; j < 2; j++) { wi[i * 2 + j] = iv[j * 3 + i]; wh[i * 2 + j] = h[j * 3 + i]; }
        if (CHECK(ci && ch)) {
            CHECK_EQ_INT(ci->dtype, TT_I32);
            CHECK_EQ_INT(ch->dtype, TT_F16);
            CHECK(memcmp(tt_data(ci), wi, sizeof wi) == 0);
            CHECK(memcmp(tt_data(ch), wh, sizeof wh) == 0);
        }
    }
    CHECK(tt_contiguous(c, NULL) == NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_clone(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[3] = {3, 5, 7};
    double vals[105], want[105];
    tt_tensor *x, *cl;
    int i, j, k;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 3, s, vals, 91);
    cl = tt_clone(c, x);
    CHECK_GUARDS(c);
    if (!CHECK(x && cl)) { tt_ctx_destroy(c); return; }
    CHECK(cl != x);
    CHECK(tt_data(cl) != tt_data(x));
    CHECK(tt_is_contiguous(cl));
    CHECK(tu_shape_is(cl, 3, 3, 5, 7));
    CHECK(memcmp(tt_data(cl), tt_data(x), 105 * sizeof(float)) == 0);
    ((float *)tt_data(cl))[4] = 99.0f;                        /* separate storage both ways */
    CHECK_VALUES(c, x, vals, 105);
    ((float *)tt_data(x))[5] = -99.0f;
    CHECK(((float *)tt_data(cl))[5] == (float)vals[5]);
    ((float *)tt_data(x))[5] = (float)vals[5];
    /* non-contiguous input */
    {
        int perm[3] = {2, 0, 1};
        tt_tensor *p = tt_slice(c, tt_permute(c, x, perm), 0, 1, 7, 2);   /* [3,3,5] */
        tt_tensor *cp = tt_clone(c, p);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(cp, 3, 3, 3, 5));
        if (cp) CHECK(tt_is_contiguous(cp));
        for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) for (k = 0; k < 5; k++)
            want[(i * 3 + j) * 5 + k] = vals[(j * 5 + k) * 7 + 1 + 2 * i];
        CHECK_VALUES(c, cp, want, 45);
    }
    /* a scalar, and exact i32 / bool / bf16 storage */
    {
        int32_t iv[4] = {16777217, -16777217, 2147483647, -2147483647 - 1};
        unsigned char bo[3] = {1, 0, 1};
        uint16_t bf[3] = {0x3F81, 0xFF80, 0x0001};
        int64_t s4[1] = {4}, s3[1] = {3};
        tt_tensor *sc = tt_clone(c, tt_scalar(c, 8.5f));
        tt_tensor *ci = tt_clone(c, tt_from_data(c, TT_I32, 1, s4, iv));
        tt_tensor *cb = tt_clone(c, tt_from_data(c, TT_BOOL, 1, s3, bo));
        tt_tensor *cf = tt_clone(c, tt_from_data(c, TT_BF16, 1, s3, bf));
        CHECK_GUARDS(c);
        if (CHECK(sc != NULL)) { CHECK_EQ_INT(sc->ndim, 0); CHECK_NEAR(tt_item(c, sc), 8.5, 0, 0); }
        if (CHECK(ci != NULL)) { CHECK_EQ_INT(ci->dtype, TT_I32); CHECK(memcmp(tt_data(ci), iv, sizeof iv) == 0); }
        if (CHECK(cb != NULL)) { CHECK_EQ_INT(cb->dtype, TT_BOOL); CHECK(memcmp(tt_data(cb), bo, sizeof bo) == 0); }
        if (CHECK(cf != NULL)) { CHECK_EQ_INT(cf->dtype, TT_BF16); CHECK(memcmp(tt_data(cf), bf, sizeof bf) == 0); }
    }
    CHECK(tt_clone(c, NULL) == NULL);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ------------------------------------------------ shared storage and chains */

/* Write new values through tt_data of the base; every view sees them. */
static void test_views_share_storage(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {4, 6}, s24[2] = {2, 12}, s346[3] = {3, 4, 6};
    double vals[24], want[72];
    tt_tensor *x, *v[8];
    int perm2[2] = {1, 0};
    int i, j, k, n;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 2, s, vals, 101);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    v[0] = tt_transpose(c, x, 0, 1);                          /* [6,4] */
    v[1] = tt_slice(c, x, 1, 1, 6, 2);                        /* [4,3] */
    v[2] = tt_reshape(c, x, 2, s24);                          /* [2,12] */
    v[3] = tt_unsqueeze(c, x, 0);                             /* [1,4,6] */
    v[4] = tt_expand(c, v[3], 3, s346);                       /* [3,4,6] */
    v[5] = tt_permute(c, x, perm2);                           /* [6,4] */
    v[6] = tt_flatten(c, x, 0, 1);                            /* [24] */
    v[7] = tt_squeeze(c, v[3], 0);                            /* [4,6] */
    CHECK_GUARDS(c);
    for (n = 0; n < 8; n++) CHECK(v[n] != NULL);
    {
        float *p = (float *)tt_data(x);
        for (k = 0; k < 24; k++) { vals[k] = 0.5 * k - 3.0; p[k] = (float)vals[k]; }
    }
    for (i = 0; i < 6; i++) for (j = 0; j < 4; j++) want[i * 4 + j] = vals[j * 6 + i];
    CHECK_VALUES(c, v[0], want, 24);
    CHECK_VALUES(c, v[5], want, 24);
    for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = vals[i * 6 + 1 + 2 * j];
    CHECK_VALUES(c, v[1], want, 12);
    CHECK_VALUES(c, v[2], vals, 24);
    CHECK_VALUES(c, v[3], vals, 24);
    for (k = 0; k < 72; k++) want[k] = vals[k % 24];
    CHECK_VALUES(c, v[4], want, 72);
    CHECK_VALUES(c, v[6], vals, 24);
    CHECK_VALUES(c, v[7], vals, 24);
    /* and writing through a view's tt_data shows in the base */
    if (v[1] && v[0]) {
        float *q = (float *)tt_data(v[1]);                    /* element (0,0) of the slice = x[0][1] */
        q[0] = 555.0f;
        q[v[1]->stride[0] * 2 + v[1]->stride[1] * 1] = 777.0f; /* (2,1) = x[2][3] */
        vals[1] = 555.0;
        vals[2 * 6 + 3] = 777.0;
        CHECK_VALUES(c, x, vals, 24);
        for (i = 0; i < 6; i++) for (j = 0; j < 4; j++) want[i * 4 + j] = vals[j * 6 + i];
        CHECK_VALUES(c, v[0], want, 24);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Slice of a transpose of an expand, and more, against index arithmetic. */
static void test_view_chains(void) {
    tt_ctx *c = tu_ctx();
    int64_t s415[3] = {4, 1, 5}, s3465[4] = {3, 4, 6, 5};
    double vals[20], want[720];
    tt_tensor *x, *e, *t, *s1, *s2;
    int a, b, cc, d;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 3, s415, vals, 111);
    e = tt_expand(c, x, 4, s3465);             /* e[a][k][j][i] = x[k][0][i] */
    t = tt_transpose(c, e, 1, 3);              /* t[a][i][j][k] = x[k][0][i], [3,5,6,4] */
    s1 = tt_slice(c, t, 2, 1, 6, 2);           /* j -> 1+2j: [3,5,3,4] */
    s2 = tt_slice(c, s1, 1, -4, 100, 3);       /* i -> 1+3i: [3,2,3,4] */
    CHECK_GUARDS(c);
    if (!CHECK(x && e && t && s1 && s2)) { tt_ctx_destroy(c); return; }
    CHECK(tu_shape_is(t, 4, 3, 5, 6, 4));
    CHECK(tu_shape_is(s1, 4, 3, 5, 3, 4));
    CHECK(tu_shape_is(s2, 4, 3, 2, 3, 4));
    for (a = 0; a < 3; a++) for (b = 0; b < 5; b++) for (cc = 0; cc < 6; cc++) for (d = 0; d < 4; d++)
        want[((a * 5 + b) * 6 + cc) * 4 + d] = vals[d * 5 + b];
    CHECK_VALUES(c, t, want, 360);
    for (a = 0; a < 3; a++) for (b = 0; b < 2; b++) for (cc = 0; cc < 3; cc++) for (d = 0; d < 4; d++)
        want[((a * 2 + b) * 3 + cc) * 4 + d] = vals[d * 5 + 1 + 3 * b];
    CHECK_VALUES(c, s2, want, 72);
    /* permute, unsqueeze, squeeze and contiguous on top */
    {
        int perm[4] = {3, 1, 0, 2};
        tt_tensor *p = tt_permute(c, s2, perm);              /* [4,2,3,3]: p[d][b][a][c] */
        tt_tensor *u = tt_unsqueeze(c, p, 2);                /* [4,2,1,3,3] */
        tt_tensor *q = tt_squeeze(c, u, -3);
        tt_tensor *cq = tt_contiguous(c, q);
        int64_t s8_9[2] = {8, 9};
        tt_tensor *r = tt_reshape(c, cq, 2, s8_9);
        tt_tensor *cl = tt_clone(c, u);
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(p, 4, 4, 2, 3, 3));
        CHECK(tu_shape_is(u, 5, 4, 2, 1, 3, 3));
        CHECK(tu_shape_is(q, 4, 4, 2, 3, 3));
        CHECK(tu_shape_is(r, 2, 8, 9));
        for (d = 0; d < 4; d++) for (b = 0; b < 2; b++) for (a = 0; a < 3; a++) for (cc = 0; cc < 3; cc++)
            want[((d * 2 + b) * 3 + a) * 3 + cc] = vals[d * 5 + 1 + 3 * b];
        CHECK_VALUES(c, p, want, 72);
        CHECK_VALUES(c, u, want, 72);
        CHECK_VALUES(c, q, want, 72);
        CHECK_VALUES(c, cq, want, 72);
        CHECK_VALUES(c, r, want, 72);
        CHECK_VALUES(c, cl, want, 72);
        if (cq) CHECK(tt_is_contiguous(cq));
    }
    /* a 1000+ element chain: transpose, step-3 slice, transpose, step-2 slice, flatten */
    {
        int64_t sb[3] = {9, 11, 13};
        double big[1287], wb[1287];
        tt_tensor *bt = tv_rand_tensor(c, 3, sb, big, 112);
        tt_tensor *t1 = tt_transpose(c, bt, 0, 2);           /* [13,11,9]: t1[i][j][k] = b[k][j][i] */
        tt_tensor *u1 = tt_slice(c, t1, 0, 0, 13, 3);        /* i = 0,3,6,9,12: [5,11,9] */
        tt_tensor *t2 = tt_transpose(c, u1, 1, 2);           /* [5,9,11]: t2[i][k][j] */
        tt_tensor *u2 = tt_slice(c, t2, 2, -10, 11, 2);      /* j = 1,3,5,7,9: [5,9,5] */
        tt_tensor *f = tt_flatten(c, tt_contiguous(c, u2), 0, 1);   /* [45,5] */
        int i, j, k;
        CHECK_GUARDS(c);
        CHECK(tu_shape_is(u2, 3, 5, 9, 5));
        CHECK(tu_shape_is(f, 2, 45, 5));
        for (i = 0; i < 5; i++) for (k = 0; k < 9; k++) for (j = 0; j < 5; j++)
            wb[(i * 9 + k) * 5 + j] = big[(k * 11 + 1 + 2 * j) * 13 + 3 * i];
        CHECK_VALUES(c, u2, wb, 225);
        CHECK_VALUES(c, f, wb, 225);
        for (i = 0; i < 13; i++) for (j = 0; j < 11; j++) for (k = 0; k < 9; k++)
            wb[(i * 11 + j) * 9 + k] = big[(k * 11 + j) * 13 + i];
        CHECK_VALUES(c, t1, wb, 1287);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------- randomized view chains */

static uint64_t tv_rng(uint64_t *s) {
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}
static int tv_rand_int(uint64_t *s, int lo, int hi) {  /* in [lo, hi] */
    return lo + (int)((tv_rng(s) >> 33) % (uint64_t)(hi - lo + 1));
}
/* Compare t with the model: shape, strides of axes longer than 1, the address of element
   (0,...,0) and every value. Returns 1 when all agree. */
static int tv_check_model(tt_ctx *c, const tt_tensor *t, const tu_view *m, const double *base,
                          const void *base_ptr, size_t elsize, double *scratch, const char *what) {
    int d, ok = 1;
    int64_t n;
    char buf[128];
    if (!t) { printf("    %s: got NULL (%s)\n", what, tt_error(c) ? tt_error(c) : "no error"); return 0; }
    if (t->ndim != m->nd) ok = 0;
    for (d = 0; ok && d < m->nd; d++) {
        if (t->shape[d] != m->shape[d]) ok = 0;
        else if (m->shape[d] > 1 && t->stride[d] != m->stride[d]) ok = 0;
    }
    if (!ok) {
        printf("    %s: shape %s, strides", what, tt_shape_str(t, buf, sizeof buf));
        for (d = 0; d < t->ndim; d++) printf(" %lld", (long long)t->stride[d]);
        printf("; expected ndim %d, shape", m->nd);
        for (d = 0; d < m->nd; d++) printf(" %lld", (long long)m->shape[d]);
        printf(", strides");
        for (d = 0; d < m->nd; d++) printf(" %lld", (long long)m->stride[d]);
        printf("\n");
        return 0;
    }
    n = tu_numel(m->nd, m->shape);
    if (t->numel != n) { printf("    %s: numel %lld, expected %lld\n", what, (long long)t->numel, (long long)n); return 0; }
    if (n == 0) return 1;
    if ((const char *)tt_data(t) != (const char *)base_ptr + m->off * (int64_t)elsize) {
        printf("    %s: tt_data is %lld bytes from the base, expected %lld\n", what,
               (long long)((const char *)tt_data(t) - (const char *)base_ptr), (long long)(m->off * (int64_t)elsize));
        return 0;
    }
    tu_strided_gather(base, m->nd, m->shape, m->stride, m->off, scratch);
    {
        float *v = tu_values(c, t);
        int64_t k;
        if (!v) { printf("    %s: tu_values failed\n", what); return 0; }
        for (k = 0; k < n; k++) {
            if ((double)v[k] != scratch[k]) {
                printf("    %s: value [%lld] = %.9g, expected %.9g\n", what, (long long)k, (double)v[k], scratch[k]);
                ok = 0;
                break;
            }
        }
        free(v);
    }
    return ok;
}

static void test_random_view_chains(void) {
    tt_ctx *c = tu_ctx();
    int64_t sb[3] = {5, 7, 33};
    const int64_t nbase = 5 * 7 * 33;
    double *base = (double *)malloc(sizeof(double) * (size_t)nbase);
    double *scratch = (double *)malloc(sizeof(double) * 40000);
    uint64_t rs = 0x1234567ULL;
    double *ident = (double *)malloc(sizeof(double) * (size_t)nbase);   /* ident[k] = k */
    double *addr = (double *)malloc(sizeof(double) * 40000);
    int chain, failures = 0, ops_done = 0, kinds_seen[8] = {0, 0, 0, 0, 0, 0, 0, 0}, n_refused = 0;
    CHECK(c != NULL && base && scratch && ident && addr);
    if (!c || !base || !scratch || !ident || !addr) {
        free(base); free(scratch); free(ident); free(addr); tt_ctx_destroy(c); return;
    }
    for (chain = 0; chain < nbase; chain++) ident[chain] = (double)chain;
    for (chain = 0; chain < 300 && failures < 3; chain++) {
        tt_scope sc = tt_scope_begin(c);
        int dtype_kind = chain % 3, step;
        tt_tensor *x, *cur;
        tu_view m;
        size_t elsize;
        int64_t k;
        /* the base: f32 random values, i32 or f16 small integers (exact in each type) */
        if (dtype_kind == 0) {
            tu_uniform(base, nbase, (unsigned long long)chain + 1000, -8.0, 8.0);
            x = tu_tensor(c, 3, sb, base);
            elsize = 4;
        } else if (dtype_kind == 1) {
            int32_t *iv = (int32_t *)malloc(sizeof(int32_t) * (size_t)nbase);
            for (k = 0; k < nbase; k++) { iv[k] = (int32_t)((k * 7919 + chain) % 2001) - 1000; base[k] = iv[k]; }
            x = tt_from_data(c, TT_I32, 3, sb, iv);
            free(iv);
            elsize = 4;
        } else {
            uint16_t *hv = (uint16_t *)malloc(sizeof(uint16_t) * (size_t)nbase);
            for (k = 0; k < nbase; k++) { int q = (int)((k * 31 + chain) % 2048); hv[k] = tv_f16_of_int(q); base[k] = q; }
            x = tt_from_data(c, TT_F16, 3, sb, hv);
            free(hv);
            elsize = 2;
        }
        if (!x) { failures++; CHECK(x != NULL); tt_scope_end(c, sc); continue; }
        m.nd = 3;
        for (k = 0; k < 3; k++) m.shape[k] = sb[k];
        tv_contig_strides(3, m.shape, m.stride);
        m.off = 0;
        cur = x;
        for (step = 0; step < 8; step++) {
            int kind = tv_rand_int(&rs, 0, 7), d, refuse = 0;
            char what[160];
            tt_tensor *nx = NULL;
            tu_view nm = m;
            if (m.nd == 0 && (kind == 0 || kind == 1 || kind == 2 || kind == 4)) kind = 3;
            if (m.nd >= TT_MAX_DIMS && (kind == 3 || kind == 5)) kind = 0;
            switch (kind) {
            case 0: {   /* transpose, axes possibly negative */
                int a0 = tv_rand_int(&rs, -m.nd, m.nd - 1), a1 = tv_rand_int(&rs, -m.nd, m.nd - 1);
                int p0 = a0 < 0 ? a0 + m.nd : a0, p1 = a1 < 0 ? a1 + m.nd : a1;
                int64_t ts;
                ts = nm.shape[p0]; nm.shape[p0] = nm.shape[p1]; nm.shape[p1] = ts;
                ts = nm.stride[p0]; nm.stride[p0] = nm.stride[p1]; nm.stride[p1] = ts;
                snprintf(what, sizeof what, "chain %d step %d: tt_transpose(%d, %d)", chain, step, a0, a1);
                nx = tt_transpose(c, cur, a0, a1);
                break;
            }
            case 1: {   /* permute: a random shuffle */
                int perm[TT_MAX_DIMS];
                for (d = 0; d < m.nd; d++) perm[d] = d;
                for (d = m.nd - 1; d > 0; d--) { int r = tv_rand_int(&rs, 0, d), tmp = perm[d]; perm[d] = perm[r]; perm[r] = tmp; }
                for (d = 0; d < m.nd; d++) { nm.shape[d] = m.shape[perm[d]]; nm.stride[d] = m.stride[perm[d]]; }
                snprintf(what, sizeof what, "chain %d step %d: tt_permute", chain, step);
                nx = tt_permute(c, cur, perm);
                break;
            }
            case 2: {   /* slice with Python rules */
                int ax = tv_rand_int(&rs, -m.nd, m.nd - 1), p = ax < 0 ? ax + m.nd : ax;
                int64_t n = m.shape[p];
                int64_t start = tv_rand_int(&rs, -(int)n - 2, (int)n + 1);
                int64_t stop = tv_rand_int(&rs, -(int)n - 2, (int)n + 2);
                int64_t stp = tv_rand_int(&rs, 1, 3), first, count;
                if (tv_rand_int(&rs, 0, 3) == 0) { start = 0; stop = n; }     /* mostly non-empty */
                if (tv_rand_int(&rs, 0, 3) == 0) { start = -(int64_t)n + 1; stop = 1000; }
                tv_py_range(n, start, stop, stp, &first, &count);
                nm.off = m.off + first * m.stride[p];
                nm.shape[p] = count;
                nm.stride[p] = m.stride[p] * stp;
                snprintf(what, sizeof what, "chain %d step %d: tt_slice(axis %d, %lld, %lld, %lld)", chain, step, ax,
                        (long long)start, (long long)stop, (long long)stp);
                nx = tt_slice(c, cur, ax, start, stop, stp);
                break;
            }
            case 3: {   /* unsqueeze at any position */
                int pos = tv_rand_int(&rs, -m.nd - 1, m.nd), p = pos < 0 ? pos + m.nd + 1 : pos;
                nm.nd = m.nd + 1;
                for (d = 0; d < nm.nd; d++) {
                    if (d < p) { nm.shape[d] = m.shape[d]; nm.stride[d] = m.stride[d]; }
                    else if (d == p) { nm.shape[d] = 1; nm.stride[d] = 0; }
                    else { nm.shape[d] = m.shape[d - 1]; nm.stride[d] = m.stride[d - 1]; }
                }
                snprintf(what, sizeof what, "chain %d step %d: tt_unsqueeze(%d)", chain, step, pos);
                nx = tt_unsqueeze(c, cur, pos);
                break;
            }
            case 4: {   /* squeeze: a size-1 axis if there is one, else any */
                int ax = tv_rand_int(&rs, 0, m.nd - 1), p;
                for (d = 0; d < m.nd; d++) if (m.shape[(ax + d) % m.nd] == 1) { ax = (ax + d) % m.nd; break; }
                if (tv_rand_int(&rs, 0, 1)) ax -= m.nd;                         /* negative form */
                p = ax < 0 ? ax + m.nd : ax;
                if (m.shape[p] == 1) {
                    nm.nd = m.nd - 1;
                    for (d = p; d < nm.nd; d++) { nm.shape[d] = m.shape[d + 1]; nm.stride[d] = m.stride[d + 1]; }
                }
                snprintf(what, sizeof what, "chain %d step %d: tt_squeeze(%d)", chain, step, ax);
                nx = tt_squeeze(c, cur, ax);
                break;
            }
            case 5: {   /* expand: size-1 axes grow, maybe one new leading axis, -1 keeps */
                int64_t shp[TT_MAX_DIMS];
                int lead = (m.nd < TT_MAX_DIMS) ? tv_rand_int(&rs, 0, 1) : 0, nd2 = m.nd + lead;
                int64_t newn;
                nm.nd = nd2;
                for (d = 0; d < nd2; d++) {
                    if (lead && d == 0) { shp[0] = tv_rand_int(&rs, 1, 3); nm.shape[0] = shp[0]; nm.stride[0] = 0; continue; }
                    {
                        int od = d - lead;
                        if (m.shape[od] == 1 && tv_rand_int(&rs, 0, 1)) {
                            shp[d] = tv_rand_int(&rs, 1, 4);
                            nm.shape[d] = shp[d];
                            nm.stride[d] = shp[d] == 1 ? m.stride[od] : 0;
                        } else {
                            shp[d] = tv_rand_int(&rs, 0, 1) ? -1 : m.shape[od];
                            nm.shape[d] = m.shape[od];
                            nm.stride[d] = m.stride[od];
                        }
                    }
                }
                newn = tu_numel(nm.nd, nm.shape);
                if (newn > 40000) { nm = m; snprintf(what, sizeof what, "skip"); nx = cur; break; }
                snprintf(what, sizeof what, "chain %d step %d: tt_expand", chain, step);
                nx = tt_expand(c, cur, nd2, shp);
                break;
            }
            case 7: {   /* reshape / view / flatten: a view exactly when strides can express it */
                int64_t n = tu_numel(m.nd, m.shape), shp[TT_MAX_DIMS], q, rest, a0, cand[TT_MAX_DIMS];
                int nd2, fs = 0, fe = 0, use = tv_rand_int(&rs, 0, 2), ok = 1;
                if (use == 2 && m.nd >= 1) {                          /* flatten axes fs..fe */
                    fs = tv_rand_int(&rs, 0, m.nd - 1);
                    fe = tv_rand_int(&rs, fs, m.nd - 1);
                    nd2 = 0;
                    for (d = 0; d < fs; d++) shp[nd2++] = m.shape[d];
                    shp[nd2] = 1;
                    for (d = fs; d <= fe; d++) shp[nd2] *= m.shape[d];
                    nd2++;
                    for (d = fe + 1; d < m.nd; d++) shp[nd2++] = m.shape[d];
                } else {                                              /* a random factorization of n */
                    use = use == 2 ? 0 : use;
                    nd2 = tv_rand_int(&rs, 1, 4);
                    for (d = 0; d < nd2; d++) shp[d] = 1;
                    rest = n;
                    for (q = 2; rest > 1; q++) {
                        while (rest % q == 0) { shp[tv_rand_int(&rs, 0, nd2 - 1)] *= q; rest /= q; }
                    }
                }
                /* storage offsets of the elements in row-major order, and candidate strides */
                tu_strided_gather(ident, m.nd, m.shape, m.stride, m.off, addr);
                a0 = (int64_t)addr[0];
                rest = 1;
                for (d = nd2 - 1; d >= 0; d--) {
                    cand[d] = shp[d] > 1 ? (int64_t)addr[rest] - a0 : 0;
                    rest *= shp[d];
                }
                {
                    int64_t idx[TT_MAX_DIMS], L;
                    for (d = 0; d < nd2; d++) idx[d] = 0;
                    for (L = 0; L < n && ok; L++) {
                        int64_t p = a0;
                        for (d = 0; d < nd2; d++) p += idx[d] * cand[d];
                        if ((double)p != addr[L]) ok = 0;
                        for (d = nd2 - 1; d >= 0; d--) { if (++idx[d] < shp[d]) break; idx[d] = 0; }
                    }
                }
                nm.nd = nd2;
                for (d = 0; d < nd2; d++) { nm.shape[d] = shp[d]; nm.stride[d] = cand[d]; }
                nm.off = a0;
                refuse = !ok;
                if (refuse) use = 1;                  /* tt_reshape and tt_flatten would copy: this test is about views */
                if (use == 2) {
                    snprintf(what, sizeof what, "chain %d step %d: tt_flatten(%d, %d)", chain, step, fs, fe);
                    nx = tt_flatten(c, cur, fs, fe);
                } else {
                    if (nd2 > 1 && tv_rand_int(&rs, 0, 2) == 0) shp[tv_rand_int(&rs, 0, nd2 - 1)] = -1;
                    snprintf(what, sizeof what, "chain %d step %d: %s to %d dims", chain, step, use ? "tt_view" : "tt_reshape", nd2);
                    nx = use ? tt_view(c, cur, nd2, shp) : tt_reshape(c, cur, nd2, shp);
                }
                break;
            }
            default: {  /* contiguous or clone: a copy, so the model restarts from its values */
                snprintf(what, sizeof what, "chain %d step %d: %s", chain, step, (step % 2) ? "tt_clone" : "tt_contiguous");
                nx = (step % 2) ? tt_clone(c, cur) : tt_contiguous(c, cur);
                break;
            }
            }
            kinds_seen[kind]++;
            ops_done++;
            if (!tt_ctx_check_guards(c)) { printf("    %s: guard check failed\n", what); failures++; break; }
            if (refuse) {
                /* the strides cannot express it: NULL and the advice to call tt_contiguous */
                n_refused++;
                if (nx) { printf("    %s: succeeded although the strides cannot express it\n", what); failures++; break; }
                if (!tt_error(c) || !strstr(tt_error(c), "tt_contiguous")) {
                    printf("    %s: error \"%s\" does not mention tt_contiguous\n", what, tt_error(c) ? tt_error(c) : "(none)");
                    failures++;
                    break;
                }
                tt_clear_error(c);
                continue;
            }
            if (kind == 6) {
                /* a copy: same values as the model, contiguous, and (unless cur was contiguous) new storage */
                int64_t n = tu_numel(m.nd, m.shape), q;
                float *v;
                if (!nx) { printf("    %s: got NULL\n", what); failures++; break; }
                if (!tt_is_contiguous(nx) || nx->ndim != m.nd) { printf("    %s: not contiguous\n", what); failures++; break; }
                for (d = 0; d < m.nd; d++) if (nx->shape[d] != m.shape[d]) break;
                if (d < m.nd) { printf("    %s: shape changed\n", what); failures++; break; }
                if (n > 0) {
                    tu_strided_gather(base, m.nd, m.shape, m.stride, m.off, scratch);
                    v = tu_values(c, nx);
                    for (q = 0; v && q < n; q++) if ((double)v[q] != scratch[q]) break;
                    if (!v || q < n) { printf("    %s: values differ\n", what); failures++; free(v); break; }
                    free(v);
                }
                if (nx->dtype != x->dtype) { printf("    %s: dtype changed\n", what); failures++; break; }
                break;  /* the chain ends at a copy */
            }
            if (!tv_check_model(c, nx, &nm, base, tt_data(x), elsize, scratch, what)) { failures++; break; }
            m = nm;
            cur = nx;
            if (tu_numel(m.nd, m.shape) == 0) break;
        }
        /* shared storage: new values written into the base show in the last view */
        if (failures == 0 && cur != x && tu_numel(m.nd, m.shape) > 0 && dtype_kind == 0) {
            float *p = (float *)tt_data(x);
            for (k = 0; k < nbase; k++) { base[k] = (double)(float)(k * 0.25 - 100.0); p[k] = (float)base[k]; }
            if (!tv_check_model(c, cur, &m, base, tt_data(x), elsize, scratch, "after writing the base")) failures++;
        }
        tt_scope_end(c, sc);
    }
    CHECK_EQ_INT(failures, 0);
    CHECK(ops_done > 1000);
    CHECK(kinds_seen[0] > 50 && kinds_seen[2] > 50 && kinds_seen[5] > 50 && kinds_seen[7] > 50);
    CHECK(n_refused > 10 && n_refused < kinds_seen[7] - 10);     /* both outcomes were exercised */
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    free(base);
    free(scratch);
    free(ident);
    free(addr);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------- extreme (but valid) parameters */

/* Python-style slices with huge bounds and steps, and an expand whose element count does not
   fit in int64: correct results or clean errors, never integer overflow. */
static void test_extreme_params(void) {
    tt_ctx *c = tu_ctx();
    int64_t s79[2] = {7, 9};
    double vals[63], want[63];
    tt_tensor *x, *r;
    int i;
    CHECK(c != NULL);
    if (!c) return;
    x = tv_rand_tensor(c, 2, s79, vals, 121);
    CHECK_GUARDS(c);
    if (!CHECK(x != NULL)) { tt_ctx_destroy(c); return; }
    r = tt_slice(c, x, 1, INT64_MIN, INT64_MAX, 1);           /* everything */
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(r, 2, 7, 9));
    CHECK_VALUES(c, r, vals, 63);
    r = tt_slice(c, x, 1, -INT64_MAX, 5, 2);                  /* cols 0,2,4 */
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(r, 2, 7, 3));
    for (i = 0; i < 21; i++) want[i] = vals[(i / 3) * 9 + 2 * (i % 3)];
    CHECK_VALUES(c, r, want, 21);
    r = tt_slice(c, x, 1, 0, 9, INT64_MAX);                   /* one column: col 0 */
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(r, 2, 7, 1));
    for (i = 0; i < 7; i++) want[i] = vals[i * 9];
    CHECK_VALUES(c, r, want, 7);
    r = tt_slice(c, x, 0, 2, 7, (int64_t)1 << 62);            /* one row: row 2 */
    CHECK_GUARDS(c);
    CHECK(tu_shape_is(r, 2, 1, 9));
    for (i = 0; i < 9; i++) want[i] = vals[2 * 9 + i];
    CHECK_VALUES(c, r, want, 9);
    CHECK_NO_ERROR(c);
    {
        int64_t s11[2] = {1, 1}, big[2] = {(int64_t)1 << 32, (int64_t)1 << 32};
        tt_tensor *one = tt_ones(c, TT_F32, 2, s11);
        r = tt_expand(c, one, 2, big);                        /* 2^64 elements */
        CHECK(r == NULL);
        CHECK_ERROR_EITHER(c, TT_ERR_SHAPE, TT_ERR_ARG, "tt_expand");
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ----------------------------------------------------- NULL in, NULL out */

static void test_null_inputs(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[2] = {2, 3};
    int perm[2] = {1, 0};
    CHECK(c != NULL);
    if (!c) return;
    CHECK(tt_reshape(c, NULL, 2, s) == NULL);
    CHECK(tt_view(c, NULL, 2, s) == NULL);
    CHECK(tt_permute(c, NULL, perm) == NULL);
    CHECK(tt_transpose(c, NULL, 0, 1) == NULL);
    CHECK(tt_slice(c, NULL, 0, 0, 1, 1) == NULL);
    CHECK(tt_expand(c, NULL, 2, s) == NULL);
    CHECK(tt_squeeze(c, NULL, 0) == NULL);
    CHECK(tt_unsqueeze(c, NULL, 0) == NULL);
    CHECK(tt_flatten(c, NULL, 0, 1) == NULL);
    CHECK(tt_contiguous(c, NULL) == NULL);
    CHECK(tt_clone(c, NULL) == NULL);
    CHECK(tt_error(c) == NULL);
    CHECK_EQ_INT(tt_ctx_status(c), TT_OK);
    /* a failed view in the middle of a chain: NULL flows on, the first message stays */
    {
        tt_tensor *x = tt_zeros(c, TT_F32, 2, s);
        tt_tensor *r = tt_clone(c, tt_unsqueeze(c, tt_transpose(c, tt_slice(c, x, 5, 0, 1, 1), 0, 1), 0));
        CHECK(r == NULL);
        CHECK_ERROR(c, TT_ERR_ARG, "tt_slice");
    }
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(views) = {
    {"reshape_basic", test_reshape_basic},
    {"reshape_noncontiguous", test_reshape_noncontiguous},
    {"reshape_errors", test_reshape_errors},
    {"permute", test_permute},
    {"transpose", test_transpose},
    {"slice", test_slice},
    {"expand", test_expand},
    {"squeeze", test_squeeze},
    {"unsqueeze", test_unsqueeze},
    {"flatten", test_flatten},
    {"contiguous", test_contiguous},
    {"clone", test_clone},
    {"views_share_storage", test_views_share_storage},
    {"view_chains", test_view_chains},
    {"random_view_chains", test_random_view_chains},
    {"null_inputs", test_null_inputs},
    {"extreme_params", test_extreme_params},
    {NULL, NULL}
};
