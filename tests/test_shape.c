/* test_shape.c - tests of the shape and indexing ops: tt_concat, tt_stack, tt_split, tt_chunk,
   tt_pad, tt_gather, tt_index_select, tt_embedding, tt_repeat_interleave, tt_flip, tt_tile,
   tt_shape_as_tensor (group `shape`).

   Every result is compared with a reference computed here by index arithmetic over row-major
   double arrays (sh_ref); no library op is used to compute a reference. Views used as
   non-contiguous inputs (tt_transpose, tt_permute, tt_slice step 2, tt_expand) get their
   reference values from the base by index arithmetic as well. These ops only move values,
   so the comparisons are exact. */
#include "test_util.h"
#include <stdint.h>

/* ---- buffers owned by the running test, freed by sh_free_all() ----------------------- */
#define SH_POOL 1024
static void *sh_pool[SH_POOL];
static int   sh_npool;

static void *sh_track(void *p) {
    if (sh_npool < SH_POOL) sh_pool[sh_npool++] = p;
    else tt_test__fail(__FILE__, __LINE__, "sh_pool is full (raise SH_POOL)");
    return p;
}

static void sh_free_all(void) {
    int i;
    for (i = 0; i < sh_npool; i++) free(sh_pool[i]);
    sh_npool = 0;
}

/* ---- reference tensors: ndim, shape and row-major doubles ------------------------------- */
typedef struct sh_ref {
    int     nd;
    int64_t sh[TT_MAX_DIMS];
    double *v;
} sh_ref;

static void sh_unravel(long long i, int nd, const int64_t *sh, int64_t *co) {
    int d;
    for (d = nd - 1; d >= 0; d--) { co[d] = i % sh[d]; i /= sh[d]; }
}

static long long sh_ravel(int nd, const int64_t *sh, const int64_t *co) {
    long long i = 0;
    int d;
    for (d = 0; d < nd; d++) i = i * sh[d] + co[d];
    return i;
}

static sh_ref sh_mk(int nd, const int64_t *sh) {
    sh_ref r;
    long long n;
    int d;
    memset(&r, 0, sizeof r);
    r.nd = nd;
    for (d = 0; d < TT_MAX_DIMS; d++) r.sh[d] = d < nd ? sh[d] : 1;
    n = tu_numel(nd, sh);
    r.v = (double *)sh_track(calloc((size_t)(n > 0 ? n : 1), sizeof(double)));
    return r;
}

static long long sh_rn(const sh_ref *r) { return tu_numel(r->nd, r->sh); }

/* A random f32 tensor of this shape; *r gets its exact values. */
static tt_tensor *sh_rand(tt_ctx *c, int nd, const int64_t *sh, unsigned long long seed, sh_ref *r) {
    *r = sh_mk(nd, sh);
    tu_uniform(r->v, sh_rn(r), seed, -3.0, 3.0);
    return tu_tensor(c, nd, sh, r->v);
}

/* An i32 tensor holding the (integer) values of r. */
static tt_tensor *sh_itensor(tt_ctx *c, const sh_ref *r) {
    long long n = sh_rn(r), i;
    int32_t *b = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    tt_tensor *t;
    for (i = 0; i < n; i++) b[i] = (int32_t)r->v[i];
    t = tt_from_data(c, TT_I32, r->nd, r->sh, b);
    free(b);
    return t;
}

/* A random i32 tensor with values in [lo, hi); *r gets the values. */
static tt_tensor *sh_irand(tt_ctx *c, int nd, const int64_t *sh, unsigned long long seed,
                           int lo, int hi, sh_ref *r) {
    long long n, i;
    *r = sh_mk(nd, sh);
    n = sh_rn(r);
    tu_uniform(r->v, n, seed, 0.0, 1.0);
    for (i = 0; i < n; i++) {
        int k = lo + (int)floor(r->v[i] * (double)(hi - lo));
        if (k >= hi) k = hi - 1;
        r->v[i] = (double)k;
    }
    return sh_itensor(c, r);
}

/* An i32 tensor from a list of ints; *r gets the values. */
static tt_tensor *sh_ilist(tt_ctx *c, int nd, const int64_t *sh, const int *vals, sh_ref *r) {
    long long n, i;
    *r = sh_mk(nd, sh);
    n = sh_rn(r);
    for (i = 0; i < n; i++) r->v[i] = (double)vals[i];
    return sh_itensor(c, r);
}

/* ---- references of views ---------------------------------------------------------------- */
/* Output axis i is input axis perm[i]. */
static sh_ref sh_ref_permute(const sh_ref *x, const int *perm) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS], ci[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d;
    for (d = 0; d < x->nd; d++) osh[d] = x->sh[perm[d]];
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        for (d = 0; d < x->nd; d++) ci[perm[d]] = co[d];
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, ci)];
    }
    return r;
}

static sh_ref sh_ref_transpose(const sh_ref *x, int a0, int a1) {
    int perm[TT_MAX_DIMS], d;
    for (d = 0; d < x->nd; d++) perm[d] = d;
    perm[a0] = a1;
    perm[a1] = a0;
    return sh_ref_permute(x, perm);
}

/* Elements start, start+step, ... < size along axis. */
static sh_ref sh_ref_slice(const sh_ref *x, int axis, int64_t start, int64_t step) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d;
    for (d = 0; d < x->nd; d++) osh[d] = x->sh[d];
    osh[axis] = (x->sh[axis] - start + step - 1) / step;
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        co[axis] = start + co[axis] * step;
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

/* len elements from start along axis (a piece of a split). */
static sh_ref sh_ref_narrow(const sh_ref *x, int axis, int64_t start, int64_t len) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d;
    for (d = 0; d < x->nd; d++) osh[d] = x->sh[d];
    osh[axis] = len;
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        co[axis] += start;
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

/* Broadcast x to nd dims of shape osh (size-1 axes and new leading axes). */
static sh_ref sh_ref_expand(const sh_ref *x, int nd, const int64_t *osh) {
    int64_t co[TT_MAX_DIMS], ci[TT_MAX_DIMS];
    sh_ref r = sh_mk(nd, osh);
    long long o, n = sh_rn(&r);
    int d, lead = nd - x->nd;
    for (o = 0; o < n; o++) {
        sh_unravel(o, nd, osh, co);
        for (d = 0; d < x->nd; d++) ci[d] = x->sh[d] == 1 ? 0 : co[d + lead];
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, ci)];
    }
    return r;
}

/* ---- references of the ops ---------------------------------------------------------------- */
static sh_ref sh_ref_concat(const sh_ref *xs, int n, int axis) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, total;
    int d, k;
    for (d = 0; d < xs[0].nd; d++) osh[d] = xs[0].sh[d];
    osh[axis] = 0;
    for (k = 0; k < n; k++) osh[axis] += xs[k].sh[axis];
    r = sh_mk(xs[0].nd, osh);
    total = sh_rn(&r);
    for (o = 0; o < total; o++) {
        int64_t a;
        sh_unravel(o, r.nd, r.sh, co);
        a = co[axis];
        for (k = 0; k < n && a >= xs[k].sh[axis]; k++) a -= xs[k].sh[axis];
        co[axis] = a;
        r.v[o] = xs[k].v[sh_ravel(xs[k].nd, xs[k].sh, co)];
    }
    return r;
}

static sh_ref sh_ref_stack(const sh_ref *xs, int n, int axis) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS], ci[TT_MAX_DIMS];
    sh_ref r;
    long long o, total;
    int d, nd = xs[0].nd + 1;
    for (d = 0; d < nd; d++) osh[d] = d < axis ? xs[0].sh[d] : d == axis ? n : xs[0].sh[d - 1];
    r = sh_mk(nd, osh);
    total = sh_rn(&r);
    for (o = 0; o < total; o++) {
        int k, j = 0;
        sh_unravel(o, nd, osh, co);
        k = (int)co[axis];
        for (d = 0; d < nd; d++) if (d != axis) ci[j++] = co[d];
        r.v[o] = xs[k].v[sh_ravel(xs[k].nd, xs[k].sh, ci)];
    }
    return r;
}

/* pads = {last_before, last_after, second_last_before, ...}. */
static sh_ref sh_ref_pad(const sh_ref *x, const int64_t *pads, int n_pads, double value) {
    int64_t before[TT_MAX_DIMS], osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d, p;
    for (d = 0; d < x->nd; d++) { before[d] = 0; osh[d] = x->sh[d]; }
    for (p = 0; p < n_pads / 2; p++) {
        d = x->nd - 1 - p;
        before[d] = pads[2 * p];
        osh[d] += pads[2 * p] + pads[2 * p + 1];
    }
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        int inside = 1;
        sh_unravel(o, r.nd, r.sh, co);
        for (d = 0; d < x->nd; d++) {
            co[d] -= before[d];
            if (co[d] < 0 || co[d] >= x->sh[d]) inside = 0;
        }
        r.v[o] = inside ? x->v[sh_ravel(x->nd, x->sh, co)] : value;
    }
    return r;
}

static sh_ref sh_ref_gather(const sh_ref *x, int axis, const sh_ref *idx) {
    int64_t co[TT_MAX_DIMS];
    sh_ref r = sh_mk(idx->nd, idx->sh);
    long long o, n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        co[axis] = (int64_t)idx->v[o];
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

static sh_ref sh_ref_index_select(const sh_ref *x, int axis, const sh_ref *idx) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d;
    for (d = 0; d < x->nd; d++) osh[d] = x->sh[d];
    osh[axis] = sh_rn(idx);
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        co[axis] = (int64_t)idx->v[co[axis]];
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

static sh_ref sh_ref_embedding(const sh_ref *w, const sh_ref *idx) {
    int64_t osh[TT_MAX_DIMS];
    sh_ref r;
    long long i, j, n, D = w->sh[1];
    int d;
    for (d = 0; d < idx->nd; d++) osh[d] = idx->sh[d];
    osh[idx->nd] = D;
    r = sh_mk(idx->nd + 1, osh);
    n = sh_rn(idx);
    for (i = 0; i < n; i++)
        for (j = 0; j < D; j++) r.v[i * D + j] = w->v[(long long)idx->v[i] * D + j];
    return r;
}

static sh_ref sh_ref_repeat_interleave(const sh_ref *x, int64_t rep, int axis) {
    int64_t osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, n;
    int d;
    for (d = 0; d < x->nd; d++) osh[d] = x->sh[d];
    osh[axis] *= rep;
    r = sh_mk(x->nd, osh);
    n = sh_rn(&r);
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        co[axis] /= rep;
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

/* axes already normalized to [0, nd). */
static sh_ref sh_ref_flip(const sh_ref *x, const int *axes, int na) {
    int64_t co[TT_MAX_DIMS];
    sh_ref r = sh_mk(x->nd, x->sh);
    long long o, n = sh_rn(&r);
    int k;
    for (o = 0; o < n; o++) {
        sh_unravel(o, r.nd, r.sh, co);
        for (k = 0; k < na; k++) co[axes[k]] = x->sh[axes[k]] - 1 - co[axes[k]];
        r.v[o] = x->v[sh_ravel(x->nd, x->sh, co)];
    }
    return r;
}

/* torch.tile: reps and shape aligned right, missing entries are 1. */
static sh_ref sh_ref_tile(const sh_ref *x, const int64_t *reps, int n) {
    int64_t xs[TT_MAX_DIMS], rs[TT_MAX_DIMS], osh[TT_MAX_DIMS], co[TT_MAX_DIMS];
    sh_ref r;
    long long o, total;
    int d, nd = x->nd > n ? x->nd : n;
    for (d = 0; d < nd; d++) {
        int dx = d - (nd - x->nd), dr = d - (nd - n);
        xs[d] = dx >= 0 ? x->sh[dx] : 1;
        rs[d] = dr >= 0 ? reps[dr] : 1;
        osh[d] = xs[d] * rs[d];
    }
    r = sh_mk(nd, osh);
    total = sh_rn(&r);
    for (o = 0; o < total; o++) {
        sh_unravel(o, nd, osh, co);
        for (d = 0; d < nd; d++) co[d] %= xs[d];
        r.v[o] = x->v[sh_ravel(nd, xs, co)];
    }
    return r;
}

/* ---- checks ------------------------------------------------------------------------------ */
static int sh_check_t(const tt_tensor *t, tt_dtype dt, int nd, const int64_t *sh, const char *f, int l) {
    int ok = 1, d;
    if (!t) return tt_test__fail(f, l, "result is NULL");
    ok &= tt_test__eq_int((long long)t->dtype, (long long)dt, f, l, "result dtype", "reference dtype");
    ok &= tt_test__eq_int(t->ndim, nd, f, l, "result ndim", "reference ndim");
    if (t->ndim == nd)
        for (d = 0; d < nd; d++)
            ok &= tt_test__eq_int(t->shape[d], sh[d], f, l, "result shape[d]", "reference shape[d]");
    return ok;
}

static void sh_check_v(tt_ctx *c, const tt_tensor *t, const double *want, long long n, const char *f, int l) {
    float *v;
    if (!t) { tt_test__fail(f, l, "result is NULL"); return; }
    if (!tt_test__eq_int(t->numel, n, f, l, "result numel", "reference numel")) return;
    v = tu_values(c, t);
    if (!v) { tt_test__fail(f, l, "tu_values failed"); return; }
    tt_test__allclose(v, want, n, 0.0, 0.0, f, l, "result values");
    free(v);
}

static void sh_check_r(tt_ctx *c, const tt_tensor *t, tt_dtype dt, const sh_ref *r, const char *f, int l) {
    if (sh_check_t(t, dt, r->nd, r->sh, f, l)) sh_check_v(c, t, r->v, sh_rn(r), f, l);
}

/* dtype, shape and every value of t equal the reference. */
#define SH_CHECK_R(c, t, dt, ref) sh_check_r((c), (t), (dt), &(ref), __FILE__, __LINE__)
#define SH_CHECK_T(t, dt, nd, sh) sh_check_t((t), (dt), (nd), (sh), __FILE__, __LINE__)
/* After every op: no guard overwritten, no error pending (one is reported, then cleared so
   that it does not hide later cases). */
#define SH_AFTER(c) ((void)CHECK_GUARDS(c), (void)CHECK_NO_ERROR(c), tt_clear_error(c))
/* After a failing op: no guard overwritten. */
#define SH_NULL_NO_ERROR(c, t) ((void)CHECK((t) == NULL), (void)CHECK(tt_error(c) == NULL), (void)CHECK_GUARDS(c))

/* ========================================================================================== */
/* tt_concat                                                                                   */
/* ========================================================================================== */

static void test_concat_axes(void) {
    tt_ctx *c = tu_ctx();
    sh_ref r[3], want;
    tt_tensor *t[3], *y;
    int ax;
    /* axis 0 (and -3): [2,4,5] + [1,4,5] + [3,4,5] -> [6,4,5] */
    {
        int64_t s0[3] = {2, 4, 5}, s1[3] = {1, 4, 5}, s2[3] = {3, 4, 5};
        t[0] = sh_rand(c, 3, s0, 1, &r[0]);
        t[1] = sh_rand(c, 3, s1, 2, &r[1]);
        t[2] = sh_rand(c, 3, s2, 3, &r[2]);
        want = sh_ref_concat(r, 3, 0);
        y = tt_concat(c, t, 3, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        CHECK(y && tt_is_contiguous(y));
        y = tt_concat(c, t, 3, -3);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* middle axis (1 and -2): [3,1,5] + [3,7,5] + [3,3,5] -> [3,11,5] */
    {
        int64_t s0[3] = {3, 1, 5}, s1[3] = {3, 7, 5}, s2[3] = {3, 3, 5};
        t[0] = sh_rand(c, 3, s0, 4, &r[0]);
        t[1] = sh_rand(c, 3, s1, 5, &r[1]);
        t[2] = sh_rand(c, 3, s2, 6, &r[2]);
        want = sh_ref_concat(r, 3, 1);
        for (ax = 1; ax >= -2; ax -= 3) {
            y = tt_concat(c, t, 3, ax);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* last axis (2 and -1): [3,4,2] + [3,4,3] -> [3,4,5] */
    {
        int64_t s0[3] = {3, 4, 2}, s1[3] = {3, 4, 3};
        t[0] = sh_rand(c, 3, s0, 7, &r[0]);
        t[1] = sh_rand(c, 3, s1, 8, &r[1]);
        want = sh_ref_concat(r, 2, 2);
        for (ax = 2; ax >= -1; ax -= 3) {
            y = tt_concat(c, t, 2, ax);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* 1-D of sizes 1, 3, 7 and 33 */
    {
        int64_t n0[1] = {1}, n1[1] = {3}, n2[1] = {7}, n3[1] = {33};
        sh_ref r4[4];
        tt_tensor *t4[4];
        t4[0] = sh_rand(c, 1, n0, 9, &r4[0]);
        t4[1] = sh_rand(c, 1, n1, 10, &r4[1]);
        t4[2] = sh_rand(c, 1, n2, 11, &r4[2]);
        t4[3] = sh_rand(c, 1, n3, 12, &r4[3]);
        want = sh_ref_concat(r4, 4, 0);
        y = tt_concat(c, t4, 4, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        CHECK_EQ_INT(want.sh[0], 44);
    }
    /* a zero-size piece: [3,0] + [3,4] on axis 1 -> [3,4] */
    {
        int64_t s0[2] = {3, 0}, s1[2] = {3, 4};
        t[0] = sh_rand(c, 2, s0, 16, &r[0]);
        t[1] = sh_rand(c, 2, s1, 17, &r[1]);
        want = sh_ref_concat(r, 2, 1);
        y = tt_concat(c, t, 2, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: [37,29] + [37,5] + [37,1] on the last axis -> [37,35] (1295) */
    {
        int64_t s0[2] = {37, 29}, s1[2] = {37, 5}, s2[2] = {37, 1};
        t[0] = sh_rand(c, 2, s0, 13, &r[0]);
        t[1] = sh_rand(c, 2, s1, 14, &r[1]);
        t[2] = sh_rand(c, 2, s2, 15, &r[2]);
        want = sh_ref_concat(r, 3, 1);
        y = tt_concat(c, t, 3, -1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        CHECK_EQ_INT(sh_rn(&want), 1295);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_concat_one_tensor(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[3] = {3, 1, 7};
    sh_ref r;
    tt_tensor *x = sh_rand(c, 3, s, 21, &r), *y;
    int ax;
    for (ax = -3; ax < 3; ax++) {
        y = tt_concat(c, &x, 1, ax);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, r);
        /* a new tensor, not x itself */
        CHECK(y && y != x && tt_data(y) != tt_data(x));
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_concat_noncontiguous(void) {
    tt_ctx *c = tu_ctx();
    sh_ref rb[4], r[4], want;
    tt_tensor *b[4], *t[4], *y;
    /* axis 0: transpose [5,3]->[3,5], slice step 2 of [2,9]->[2,5], expand [1,5]->[4,5],
       and a contiguous [1,5] -> [10,5] */
    {
        int64_t sb0[2] = {5, 3}, sb1[2] = {2, 9}, sb2[2] = {1, 5}, s3[2] = {1, 5}, e2[2] = {4, 5};
        b[0] = sh_rand(c, 2, sb0, 31, &rb[0]);
        b[1] = sh_rand(c, 2, sb1, 32, &rb[1]);
        b[2] = sh_rand(c, 2, sb2, 33, &rb[2]);
        t[3] = sh_rand(c, 2, s3, 34, &r[3]);
        t[0] = tt_transpose(c, b[0], 0, 1);
        r[0] = sh_ref_transpose(&rb[0], 0, 1);
        t[1] = tt_slice(c, b[1], 1, 0, 9, 2);
        r[1] = sh_ref_slice(&rb[1], 1, 0, 2);
        t[2] = tt_expand(c, b[2], 2, e2);
        r[2] = sh_ref_expand(&rb[2], 2, e2);
        CHECK_NO_ERROR(c);
        CHECK(t[0] && !tt_is_contiguous(t[0]));
        CHECK(t[1] && !tt_is_contiguous(t[1]));
        CHECK(t[2] && !tt_is_contiguous(t[2]));
        want = sh_ref_concat(r, 4, 0);
        CHECK_EQ_INT(want.sh[0], 10);
        y = tt_concat(c, t, 4, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* axis 1: transpose [4,3]->[3,4], slice start 1 step 2 of [3,7]->[3,3], expand [3,1]->[3,2] */
    {
        int64_t sb0[2] = {4, 3}, sb1[2] = {3, 7}, sb2[2] = {3, 1}, e2[2] = {3, 2};
        b[0] = sh_rand(c, 2, sb0, 35, &rb[0]);
        b[1] = sh_rand(c, 2, sb1, 36, &rb[1]);
        b[2] = sh_rand(c, 2, sb2, 37, &rb[2]);
        t[0] = tt_transpose(c, b[0], 0, 1);
        r[0] = sh_ref_transpose(&rb[0], 0, 1);
        t[1] = tt_slice(c, b[1], 1, 1, 7, 2);
        r[1] = sh_ref_slice(&rb[1], 1, 1, 2);
        t[2] = tt_expand(c, b[2], 2, e2);
        r[2] = sh_ref_expand(&rb[2], 2, e2);
        CHECK_NO_ERROR(c);
        want = sh_ref_concat(r, 3, 1);
        CHECK_EQ_INT(want.sh[1], 9);
        y = tt_concat(c, t, 3, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 3-D permuted inputs on the middle axis: permute [5,2,3] by {2,0,1} -> [3,5,2] */
    {
        int64_t sb0[3] = {5, 2, 3}, s1[3] = {3, 1, 2};
        int perm[3] = {2, 0, 1};
        b[0] = sh_rand(c, 3, sb0, 38, &rb[0]);
        t[0] = tt_permute(c, b[0], perm);
        r[0] = sh_ref_permute(&rb[0], perm);
        t[1] = sh_rand(c, 3, s1, 39, &r[1]);
        want = sh_ref_concat(r, 2, 1);
        y = tt_concat(c, t, 2, -2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_concat_dtypes(void) {
    tt_ctx *c = tu_ctx();
    /* i32: [2,3] + [1,3] on axis 0 */
    {
        int32_t a[6] = {1, -2, 3, 2147483647, -5, 6}, b[3] = {-2147483647, 8, 0};
        int32_t want[9] = {1, -2, 3, 2147483647, -5, 6, -2147483647, 8, 0};
        int64_t sa[2] = {2, 3}, sb[2] = {1, 3}, sw[2] = {3, 3};
        tt_tensor *t[2], *y;
        t[0] = tt_from_data(c, TT_I32, 2, sa, a);
        t[1] = tt_from_data(c, TT_I32, 2, sb, b);
        y = tt_concat(c, t, 2, 0);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_I32, 2, sw) && CHECK(tt_is_contiguous(y))) {
            const int32_t *d = (const int32_t *)tt_data(y);
            int i;
            for (i = 0; i < 9; i++) CHECK_EQ_INT(d[i], want[i]);
        }
    }
    /* i32 on the last axis: [2,1] + [2,2] -> [2,3] */
    {
        int32_t a[2] = {7, 9}, b[4] = {10, 11, 12, 13}, want[6] = {7, 10, 11, 9, 12, 13};
        int64_t sa[2] = {2, 1}, sb[2] = {2, 2}, sw[2] = {2, 3};
        tt_tensor *t[2], *y;
        t[0] = tt_from_data(c, TT_I32, 2, sa, a);
        t[1] = tt_from_data(c, TT_I32, 2, sb, b);
        y = tt_concat(c, t, 2, 1);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_I32, 2, sw) && CHECK(tt_is_contiguous(y))) {
            const int32_t *d = (const int32_t *)tt_data(y);
            int i;
            for (i = 0; i < 6; i++) CHECK_EQ_INT(d[i], want[i]);
        }
    }
    /* bool: [2,2] + [2,3] on axis 1 -> [2,5] */
    {
        uint8_t a[4] = {1, 0, 0, 1}, b[6] = {1, 1, 0, 0, 0, 1};
        uint8_t want[10] = {1, 0, 1, 1, 0, 0, 1, 0, 0, 1};
        int64_t sa[2] = {2, 2}, sb[2] = {2, 3}, sw[2] = {2, 5};
        tt_tensor *t[2], *y;
        t[0] = tt_from_data(c, TT_BOOL, 2, sa, a);
        t[1] = tt_from_data(c, TT_BOOL, 2, sb, b);
        y = tt_concat(c, t, 2, 1);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_BOOL, 2, sw) && CHECK(tt_is_contiguous(y))) {
            const uint8_t *d = (const uint8_t *)tt_data(y);
            double wd[10];
            float *v;
            int i;
            for (i = 0; i < 10; i++) { CHECK_EQ_INT(d[i], want[i]); wd[i] = want[i]; }
            v = tu_values(c, y);
            CHECK_ALLCLOSE(v, wd, 10, 0.0, 0.0);
            free(v);
        }
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* tt_stack                                                                                    */
/* ========================================================================================== */

static void test_stack(void) {
    tt_ctx *c = tu_ctx();
    sh_ref r[3], want, rb;
    tt_tensor *t[3], *y, *b;
    int64_t s[2] = {3, 5};
    int ax;
    t[0] = sh_rand(c, 2, s, 41, &r[0]);
    t[1] = sh_rand(c, 2, s, 42, &r[1]);
    t[2] = sh_rand(c, 2, s, 43, &r[2]);
    /* new axis at 0, 1 (middle), 2 (end), and the negative forms */
    for (ax = 0; ax <= 2; ax++) {
        want = sh_ref_stack(r, 3, ax);
        y = tt_stack(c, t, 3, ax);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_stack(c, t, 3, ax - 3);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* one tensor */
    want = sh_ref_stack(r, 1, 1);
    y = tt_stack(c, t, 1, 1);
    SH_AFTER(c);
    SH_CHECK_R(c, y, TT_F32, want);
    /* a non-contiguous input: transpose [5,3] -> [3,5] */
    {
        int64_t sb[2] = {5, 3};
        b = sh_rand(c, 2, sb, 44, &rb);
        t[1] = tt_transpose(c, b, 0, 1);
        r[1] = sh_ref_transpose(&rb, 0, 1);
        want = sh_ref_stack(r, 3, 1);
        y = tt_stack(c, t, 3, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 0-d tensors stack into a 1-D tensor */
    {
        sh_ref rs[3];
        tt_tensor *ts[3];
        int i;
        for (i = 0; i < 3; i++) ts[i] = sh_rand(c, 0, NULL, 45 + (unsigned)i, &rs[i]);
        want = sh_ref_stack(rs, 3, 0);
        y = tt_stack(c, ts, 3, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: 3 x [7,53] on axis 1 -> [7,3,53] (1113) */
    {
        int64_t sl[2] = {7, 53};
        t[0] = sh_rand(c, 2, sl, 48, &r[0]);
        t[1] = sh_rand(c, 2, sl, 49, &r[1]);
        t[2] = sh_rand(c, 2, sl, 50, &r[2]);
        want = sh_ref_stack(r, 3, 1);
        y = tt_stack(c, t, 3, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* tt_split and tt_chunk                                                                       */
/* ========================================================================================== */

/* Checks n pieces of x (reference r) along axis with the given sizes. */
static void sh_check_pieces(tt_ctx *c, tt_tensor **out, int got_n, const sh_ref *r, int axis,
                            const int64_t *sizes, int n, const char *f, int l) {
    int64_t start = 0;
    int k;
    if (!tt_test__eq_int(got_n, n, f, l, "number of pieces", "reference count")) return;
    for (k = 0; k < n; k++) {
        sh_ref p = sh_ref_narrow(r, axis, start, sizes[k]);
        sh_check_r(c, out[k], TT_F32, &p, f, l);
        start += sizes[k];
    }
    tt_test__eq_int(start, r->sh[axis], f, l, "sum of piece sizes", "the axis size");
}
#define SH_CHECK_PIECES(c, out, got_n, r, axis, sizes, n) \
    sh_check_pieces((c), (out), (got_n), &(r), (axis), (sizes), (n), __FILE__, __LINE__)

static void test_split(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[16], *x;
    sh_ref r;
    int64_t s[2] = {7, 4};
    int n;
    x = sh_rand(c, 2, s, 51, &r);
    /* does not divide: 7 by 2 -> 2,2,2,1 */
    {
        int64_t sz[4] = {2, 2, 2, 1};
        n = tt_split(c, x, 2, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 4);
    }
    /* 7 by 3 -> 3,3,1 */
    {
        int64_t sz[3] = {3, 3, 1};
        n = tt_split(c, x, 3, -2, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 3);
    }
    /* split_size equal to and larger than the axis: one piece */
    {
        int64_t sz[1] = {7};
        n = tt_split(c, x, 7, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 1);
        n = tt_split(c, x, 10, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 1);
    }
    /* divides: 4 by 2 on the last axis (non-contiguous views) and 4 by 1 */
    {
        int64_t sz[2] = {2, 2}, one[4] = {1, 1, 1, 1};
        n = tt_split(c, x, 2, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, sz, 2);
        n = tt_split(c, x, 1, -1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, one, 4);
    }
    /* 1000+ elements, 1-D: 1001 by 100 -> ten of 100 and one of 1 */
    {
        int64_t sl[1] = {1001}, sz[11];
        sh_ref rl;
        tt_tensor *xl = sh_rand(c, 1, sl, 52, &rl);
        int k;
        for (k = 0; k < 10; k++) sz[k] = 100;
        sz[10] = 1;
        n = tt_split(c, xl, 100, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, rl, 0, sz, 11);
    }
    /* non-contiguous input: transpose of [5,3] -> [3,5], split by 2 on axis 1 -> 2,2,1 */
    {
        int64_t sb[2] = {5, 3}, sz[3] = {2, 2, 1};
        sh_ref rb, rt;
        tt_tensor *b = sh_rand(c, 2, sb, 53, &rb);
        tt_tensor *t = tt_transpose(c, b, 0, 1);
        rt = sh_ref_transpose(&rb, 0, 1);
        n = tt_split(c, t, 2, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, rt, 1, sz, 3);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_split_views(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[8], *x;
    sh_ref r;
    int64_t s[2] = {7, 4};
    float *base;
    int n, k;
    x = sh_rand(c, 2, s, 61, &r);
    base = (float *)tt_data(x);
    /* axis 0 by 3: pieces are views starting at rows 0, 3, 6 of x's storage */
    n = tt_split(c, x, 3, 0, out, 8);
    SH_AFTER(c);
    if (CHECK_EQ_INT(n, 3)) {
        int64_t sz[3] = {3, 3, 1};
        for (k = 0; k < 3; k++) CHECK(out[k] && out[k]->data == x->data);
        CHECK(out[0] && (float *)tt_data(out[0]) == base);
        CHECK(out[1] && (float *)tt_data(out[1]) == base + 12);
        CHECK(out[2] && (float *)tt_data(out[2]) == base + 24);
        /* writes into the base show in the pieces */
        base[3 * 4 + 1] = 1234.5f;  r.v[3 * 4 + 1] = 1234.5;   /* piece 1 [0][1] */
        base[6 * 4 + 3] = -77.25f;  r.v[6 * 4 + 3] = -77.25;   /* piece 2 [0][3] */
        base[0] = 3.0f;             r.v[0] = 3.0;              /* piece 0 [0][0] */
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 3);
        /* and a write through a piece's data shows in the base */
        if (out[1]) {
            ((float *)tt_data(out[1]))[5] = 42.0f;             /* piece 1 [1][1] = x[4][1] */
            r.v[4 * 4 + 1] = 42.0;
            sh_check_v(c, x, r.v, 28, __FILE__, __LINE__);
        }
    }
    /* last axis by 3 -> [7,3] and [7,1]: strided views of the same storage */
    n = tt_split(c, x, 3, 1, out, 8);
    SH_AFTER(c);
    if (CHECK_EQ_INT(n, 2)) {
        int64_t sz[2] = {3, 1};
        CHECK(out[0] && out[0]->data == x->data);
        CHECK(out[1] && out[1]->data == x->data);
        CHECK(out[1] && (float *)tt_data(out[1]) == base + 3);
        base[5 * 4 + 3] = 9.5f;   r.v[5 * 4 + 3] = 9.5;        /* piece 1 [5][0] */
        base[2 * 4 + 2] = -0.5f;  r.v[2 * 4 + 2] = -0.5;       /* piece 0 [2][2] */
        SH_CHECK_PIECES(c, out, n, r, 1, sz, 2);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_split_max_out(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[6], *x;
    sh_ref r;
    int64_t s[2] = {7, 3};
    int n, k;
    x = sh_rand(c, 2, s, 71, &r);
    /* 4 pieces (2,2,2,1), room for 2: returns 4, writes out[0..1] only */
    for (k = 0; k < 6; k++) out[k] = NULL;
    n = tt_split(c, x, 2, 0, out, 2);
    SH_AFTER(c);
    CHECK_EQ_INT(n, 4);
    {
        sh_ref p0 = sh_ref_narrow(&r, 0, 0, 2), p1 = sh_ref_narrow(&r, 0, 2, 2);
        SH_CHECK_R(c, out[0], TT_F32, p0);
        SH_CHECK_R(c, out[1], TT_F32, p1);
    }
    for (k = 2; k < 6; k++) CHECK(out[k] == NULL);
    /* room for none */
    for (k = 0; k < 6; k++) out[k] = NULL;
    n = tt_split(c, x, 3, 0, out, 0);
    SH_AFTER(c);
    CHECK_EQ_INT(n, 3);
    for (k = 0; k < 6; k++) CHECK(out[k] == NULL);
    /* the same for tt_chunk: 7 into 4 chunks -> pieces of 2: 2,2,2,1 */
    for (k = 0; k < 6; k++) out[k] = NULL;
    n = tt_chunk(c, x, 4, 0, out, 3);
    SH_AFTER(c);
    CHECK_EQ_INT(n, 4);
    {
        sh_ref p2 = sh_ref_narrow(&r, 0, 4, 2);
        SH_CHECK_R(c, out[2], TT_F32, p2);
    }
    CHECK(out[0] != NULL && out[1] != NULL);
    for (k = 3; k < 6; k++) CHECK(out[k] == NULL);
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_chunk(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[16], *x;
    sh_ref r;
    int n;
    /* 5 into 4 chunks: ceil(5/4) = 2 -> 3 pieces 2,2,1 */
    {
        int64_t s[2] = {5, 3}, sz[3] = {2, 2, 1};
        x = sh_rand(c, 2, s, 81, &r);
        n = tt_chunk(c, x, 4, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 3);
    }
    /* 6 into 3 -> 2,2,2; 6 into 4 -> ceil = 2 -> 3 pieces 2,2,2; 6 into 1 -> one piece */
    {
        int64_t s[2] = {3, 6}, sz[3] = {2, 2, 2}, all[1] = {6};
        x = sh_rand(c, 2, s, 82, &r);
        n = tt_chunk(c, x, 3, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, sz, 3);
        n = tt_chunk(c, x, 4, -1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, sz, 3);
        n = tt_chunk(c, x, 1, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, all, 1);
    }
    /* 7 into 3 -> 3,3,1; into 7 and into 10 -> seven of 1 */
    {
        int64_t s[3] = {2, 7, 3}, sz[3] = {3, 3, 1}, ones[7] = {1, 1, 1, 1, 1, 1, 1};
        x = sh_rand(c, 3, s, 83, &r);
        n = tt_chunk(c, x, 3, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, sz, 3);
        n = tt_chunk(c, x, 7, -2, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, ones, 7);
        n = tt_chunk(c, x, 10, 1, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 1, ones, 7);
    }
    /* 1000+ elements: 1003 into 4 -> 251,251,251,250 */
    {
        int64_t s[1] = {1003}, sz[4] = {251, 251, 251, 250};
        x = sh_rand(c, 1, s, 84, &r);
        n = tt_chunk(c, x, 4, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, r, 0, sz, 4);
    }
    /* non-contiguous input: slice step 2 of [9,2] on axis 0 -> [5,2], into 2 -> 3,2 */
    {
        int64_t sb[2] = {9, 2}, sz[2] = {3, 2};
        sh_ref rb, rs;
        tt_tensor *b = sh_rand(c, 2, sb, 85, &rb);
        x = tt_slice(c, b, 0, 0, 9, 2);
        rs = sh_ref_slice(&rb, 0, 0, 2);
        n = tt_chunk(c, x, 2, 0, out, 16);
        SH_AFTER(c);
        SH_CHECK_PIECES(c, out, n, rs, 0, sz, 2);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* tt_pad                                                                                      */
/* ========================================================================================== */

static void test_pad(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    sh_ref r, want;
    /* one pair on [3,5]: last axis 1 before, 2 after, value 1.5 -> [3,8] */
    {
        int64_t s[2] = {3, 5}, p[2] = {1, 2};
        x = sh_rand(c, 2, s, 91, &r);
        want = sh_ref_pad(&r, p, 2, 1.5);
        y = tt_pad(c, x, p, 2, 1.5f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        /* two pairs on the same: {0,3} on the last, {2,1} on the first -> [6,8], value -2 */
        {
            int64_t p2[4] = {0, 3, 2, 1};
            want = sh_ref_pad(&r, p2, 4, -2.0);
            y = tt_pad(c, x, p2, 4, -2.0f);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
            CHECK_EQ_INT(want.sh[0], 6);
            CHECK_EQ_INT(want.sh[1], 8);
        }
    }
    /* three pairs on [2,3,5] with value -0.25 -> [5,5,7] */
    {
        int64_t s[3] = {2, 3, 5}, p[6] = {1, 1, 0, 2, 3, 0};
        x = sh_rand(c, 3, s, 92, &r);
        want = sh_ref_pad(&r, p, 6, -0.25);
        y = tt_pad(c, x, p, 6, -0.25f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        /* one pair only pads the last axis of the 3-D tensor */
        want = sh_ref_pad(&r, p, 2, 7.0);
        y = tt_pad(c, x, p, 2, 7.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* all-zero pads: a copy with equal values, not the same storage */
    {
        int64_t s[2] = {3, 7}, p[4] = {0, 0, 0, 0};
        x = sh_rand(c, 2, s, 93, &r);
        y = tt_pad(c, x, p, 4, 5.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, r);
        CHECK(y && y != x && tt_data(y) != tt_data(x));
        if (y && y != x && tt_data(y) != tt_data(x)) {
            /* writing the copy leaves x alone */
            ((float *)tt_data(y))[0] = 99.0f;
            sh_check_v(c, x, r.v, 21, __FILE__, __LINE__);
        }
    }
    /* [N,C,H,W] = [2,3,7,5]: pad W by {1,1} and H by {2,2} -> [2,3,11,7], zero value */
    {
        int64_t s[4] = {2, 3, 7, 5}, p[4] = {1, 1, 2, 2};
        x = sh_rand(c, 4, s, 94, &r);
        want = sh_ref_pad(&r, p, 4, 0.0);
        y = tt_pad(c, x, p, 4, 0.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        /* all four axes padded */
        {
            int64_t p8[8] = {0, 1, 1, 0, 2, 0, 0, 1};
            want = sh_ref_pad(&r, p8, 8, 0.5);
            y = tt_pad(c, x, p8, 8, 0.5f);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* 1000+ elements: [3,5,17,13] pad {2,1,1,2} -> [3,5,20,16] (4800) */
    {
        int64_t s[4] = {3, 5, 17, 13}, p[4] = {2, 1, 1, 2};
        x = sh_rand(c, 4, s, 95, &r);
        want = sh_ref_pad(&r, p, 4, 0.0);
        y = tt_pad(c, x, p, 4, 0.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* size-1 1-D input */
    {
        int64_t s[1] = {1}, p[2] = {3, 4};
        x = sh_rand(c, 1, s, 96, &r);
        want = sh_ref_pad(&r, p, 2, -1.0);
        y = tt_pad(c, x, p, 2, -1.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous inputs: transpose [5,3] -> [3,5]; expand [1,4] -> [3,4] */
    {
        int64_t sb[2] = {5, 3}, p[4] = {2, 0, 1, 1};
        sh_ref rb, rt;
        tt_tensor *b = sh_rand(c, 2, sb, 97, &rb);
        x = tt_transpose(c, b, 0, 1);
        rt = sh_ref_transpose(&rb, 0, 1);
        want = sh_ref_pad(&rt, p, 4, 2.5);
        y = tt_pad(c, x, p, 4, 2.5f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    {
        int64_t sb[2] = {1, 4}, e[2] = {3, 4}, p[4] = {1, 2, 0, 1};
        sh_ref rb, re;
        tt_tensor *b = sh_rand(c, 2, sb, 98, &rb);
        x = tt_expand(c, b, 2, e);
        re = sh_ref_expand(&rb, 2, e);
        want = sh_ref_pad(&re, p, 4, 0.0);
        y = tt_pad(c, x, p, 4, 0.0f);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* tt_gather, tt_index_select, tt_embedding                                                    */
/* ========================================================================================== */

static void test_gather(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *ix, *y;
    sh_ref rx, ri, want;
    int64_t s[3] = {4, 5, 6};
    x = sh_rand(c, 3, s, 101, &rx);
    /* axis 0: index [3,4,5] (smaller than x on axes 1, 2), values in [0,4) */
    {
        int64_t si[3] = {3, 4, 5};
        ix = sh_irand(c, 3, si, 102, 0, 4, &ri);
        want = sh_ref_gather(&rx, 0, &ri);
        y = tt_gather(c, x, 0, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_gather(c, x, -3, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* axis 1: index [3,7,2] (longer than x on the gather axis), values in [0,5) */
    {
        int64_t si[3] = {3, 7, 2};
        ix = sh_irand(c, 3, si, 103, 0, 5, &ri);
        want = sh_ref_gather(&rx, 1, &ri);
        y = tt_gather(c, x, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* last axis (2 and -1): index [4,2,9], values in [0,6) */
    {
        int64_t si[3] = {4, 2, 9};
        ix = sh_irand(c, 3, si, 104, 0, 6, &ri);
        want = sh_ref_gather(&rx, 2, &ri);
        y = tt_gather(c, x, 2, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_gather(c, x, -1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* index with only size-1 axes */
    {
        int64_t si[3] = {1, 1, 1};
        ix = sh_irand(c, 3, si, 105, 0, 5, &ri);
        want = sh_ref_gather(&rx, 1, &ri);
        y = tt_gather(c, x, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous x: permute [6,4,5] by {1,2,0} -> [4,5,6]; gather on axis 1 */
    {
        int64_t sb[3] = {6, 4, 5}, si[3] = {4, 3, 6};
        int perm[3] = {1, 2, 0};
        sh_ref rb, rp;
        tt_tensor *b = sh_rand(c, 3, sb, 106, &rb), *p = tt_permute(c, b, perm);
        rp = sh_ref_permute(&rb, perm);
        ix = sh_irand(c, 3, si, 107, 0, 5, &ri);
        want = sh_ref_gather(&rp, 1, &ri);
        y = tt_gather(c, p, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous index: transpose of an i32 [5,3] -> [3,5], x [3,6], axis 1 */
    {
        int64_t sx[2] = {3, 6}, sb[2] = {5, 3};
        sh_ref rx2, rib, rit;
        tt_tensor *x2 = sh_rand(c, 2, sx, 108, &rx2);
        tt_tensor *ib = sh_irand(c, 2, sb, 109, 0, 6, &rib);
        tt_tensor *it = tt_transpose(c, ib, 0, 1);
        rit = sh_ref_transpose(&rib, 0, 1);
        want = sh_ref_gather(&rx2, 1, &rit);
        y = tt_gather(c, x2, 1, it);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: x [40,30], index [40,31] on axis 1 (1240) */
    {
        int64_t sx[2] = {40, 30}, si[2] = {40, 31};
        sh_ref rx2;
        tt_tensor *x2 = sh_rand(c, 2, sx, 110, &rx2);
        ix = sh_irand(c, 2, si, 111, 0, 30, &ri);
        want = sh_ref_gather(&rx2, 1, &ri);
        y = tt_gather(c, x2, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_index_select(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *ix, *y;
    sh_ref rx, ri, want;
    int64_t s[3] = {4, 5, 6};
    x = sh_rand(c, 3, s, 121, &rx);
    /* each axis, with repeated indices */
    {
        int v0[5] = {3, 0, 3, 3, 1};
        int64_t n0[1] = {5};
        ix = sh_ilist(c, 1, n0, v0, &ri);
        want = sh_ref_index_select(&rx, 0, &ri);
        y = tt_index_select(c, x, 0, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    {
        int v1[3] = {4, 4, 0};
        int64_t n1[1] = {3};
        ix = sh_ilist(c, 1, n1, v1, &ri);
        want = sh_ref_index_select(&rx, 1, &ri);
        y = tt_index_select(c, x, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_index_select(c, x, -2, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    {
        int v2[7] = {5, 0, 5, 2, 2, 2, 1};
        int64_t n2[1] = {7};
        ix = sh_ilist(c, 1, n2, v2, &ri);
        want = sh_ref_index_select(&rx, 2, &ri);
        y = tt_index_select(c, x, 2, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_index_select(c, x, -1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* one index */
    {
        int v[1] = {2};
        int64_t n1[1] = {1};
        ix = sh_ilist(c, 1, n1, v, &ri);
        want = sh_ref_index_select(&rx, 1, &ri);
        y = tt_index_select(c, x, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* an empty index gives a zero-size axis */
    {
        int64_t n0[1] = {0}, s0[3] = {4, 0, 6};
        ix = tt_zeros(c, TT_I32, 1, n0);
        y = tt_index_select(c, x, 1, ix);
        SH_AFTER(c);
        SH_CHECK_T(y, TT_F32, 3, s0);
    }
    /* non-contiguous x: slice step 2 of [4,11,6] on axis 1 -> [4,6,6] */
    {
        int64_t sb[3] = {4, 11, 6}, n1[1] = {9};
        sh_ref rb, rs;
        tt_tensor *b = sh_rand(c, 3, sb, 122, &rb), *sl = tt_slice(c, b, 1, 0, 11, 2);
        rs = sh_ref_slice(&rb, 1, 0, 2);
        ix = sh_irand(c, 1, n1, 123, 0, 6, &ri);
        want = sh_ref_index_select(&rs, 1, &ri);
        y = tt_index_select(c, sl, 1, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        /* and on the transposed view */
        {
            tt_tensor *tv = tt_transpose(c, b, 0, 2);
            sh_ref rt = sh_ref_transpose(&rb, 0, 2);
            want = sh_ref_index_select(&rt, 0, &ri);
            y = tt_index_select(c, tv, 0, ix);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* 1000+ elements: x [1200], 1001 random indices */
    {
        int64_t sx[1] = {1200}, n1[1] = {1001};
        sh_ref rx2;
        tt_tensor *x2 = sh_rand(c, 1, sx, 124, &rx2);
        ix = sh_irand(c, 1, n1, 125, 0, 1200, &ri);
        want = sh_ref_index_select(&rx2, 0, &ri);
        y = tt_index_select(c, x2, 0, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_embedding(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *w, *ix, *y;
    sh_ref rw, ri, want;
    int64_t sw[2] = {10, 4};
    w = sh_rand(c, 2, sw, 131, &rw);
    /* indices [7] with repeats and both ends */
    {
        int v[7] = {0, 9, 3, 3, 9, 1, 0};
        int64_t si[1] = {7};
        ix = sh_ilist(c, 1, si, v, &ri);
        want = sh_ref_embedding(&rw, &ri);
        y = tt_embedding(c, w, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* indices [2,3] -> [2,3,4] */
    {
        int64_t si[2] = {2, 3};
        ix = sh_irand(c, 2, si, 132, 0, 10, &ri);
        want = sh_ref_embedding(&rw, &ri);
        CHECK_EQ_INT(want.nd, 3);
        y = tt_embedding(c, w, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 0-d index -> [4] */
    {
        int v[1] = {6};
        ix = sh_ilist(c, 0, NULL, v, &ri);
        want = sh_ref_embedding(&rw, &ri);
        CHECK_EQ_INT(want.nd, 1);
        y = tt_embedding(c, w, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous indices: slice step 2 of [11] -> [6] */
    {
        int64_t si[1] = {11};
        sh_ref rs;
        tt_tensor *ib = sh_irand(c, 1, si, 133, 0, 10, &ri), *is = tt_slice(c, ib, 0, 0, 11, 2);
        rs = sh_ref_slice(&ri, 0, 0, 2);
        want = sh_ref_embedding(&rw, &rs);
        y = tt_embedding(c, w, is);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous weight: transpose of [4,10] -> [10,4] */
    {
        int64_t sb[2] = {4, 10}, si[1] = {5};
        sh_ref rb, rt;
        tt_tensor *b = sh_rand(c, 2, sb, 134, &rb), *wt = tt_transpose(c, b, 0, 1);
        rt = sh_ref_transpose(&rb, 0, 1);
        ix = sh_irand(c, 1, si, 135, 0, 10, &ri);
        want = sh_ref_embedding(&rt, &ri);
        y = tt_embedding(c, wt, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: W [50,33], indices [37] -> [37,33] (1221) */
    {
        int64_t sl[2] = {50, 33}, si[1] = {37};
        sh_ref rl;
        tt_tensor *wl = sh_rand(c, 2, sl, 136, &rl);
        ix = sh_irand(c, 1, si, 137, 0, 50, &ri);
        want = sh_ref_embedding(&rl, &ri);
        y = tt_embedding(c, wl, ix);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* tt_repeat_interleave, tt_flip, tt_tile, tt_shape_as_tensor                                  */
/* ========================================================================================== */

static void test_repeat_interleave(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    sh_ref r, want;
    int64_t s[3] = {2, 3, 4};
    int ax, rep;
    x = sh_rand(c, 3, s, 141, &r);
    for (ax = 0; ax < 3; ax++) {
        for (rep = 1; rep <= 3; rep += 2) {
            want = sh_ref_repeat_interleave(&r, rep, ax);
            y = tt_repeat_interleave(c, x, rep, ax);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
            y = tt_repeat_interleave(c, x, rep, ax - 3);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* repeats 0 gives a zero-size axis (torch.repeat_interleave) */
    {
        int64_t s0[3] = {2, 0, 4};
        y = tt_repeat_interleave(c, x, 0, 1);
        SH_AFTER(c);
        SH_CHECK_T(y, TT_F32, 3, s0);
    }
    /* repeats 1 is a copy */
    y = tt_repeat_interleave(c, x, 1, 0);
    SH_AFTER(c);
    CHECK(y && tt_data(y) != tt_data(x));
    /* size-1 1-D */
    {
        int64_t s1[1] = {1};
        sh_ref r1;
        tt_tensor *x1 = sh_rand(c, 1, s1, 142, &r1);
        want = sh_ref_repeat_interleave(&r1, 7, 0);
        y = tt_repeat_interleave(c, x1, 7, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous: transpose [4,3] -> [3,4], repeat 3 on axis 1 */
    {
        int64_t sb[2] = {4, 3};
        sh_ref rb, rt;
        tt_tensor *b = sh_rand(c, 2, sb, 143, &rb), *t = tt_transpose(c, b, 0, 1);
        rt = sh_ref_transpose(&rb, 0, 1);
        want = sh_ref_repeat_interleave(&rt, 3, 1);
        y = tt_repeat_interleave(c, t, 3, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: [7,53] repeat 3 on axis 0 -> [21,53] (1113) */
    {
        int64_t sl[2] = {7, 53};
        sh_ref rl;
        tt_tensor *xl = sh_rand(c, 2, sl, 144, &rl);
        want = sh_ref_repeat_interleave(&rl, 3, 0);
        y = tt_repeat_interleave(c, xl, 3, 0);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_flip(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    sh_ref r, want;
    int64_t s[3] = {3, 4, 5};
    x = sh_rand(c, 3, s, 151, &r);
    /* one axis each, positive and negative */
    {
        int ax;
        for (ax = 0; ax < 3; ax++) {
            int a1[1], an[1];
            a1[0] = ax;
            an[0] = ax - 3;
            want = sh_ref_flip(&r, a1, 1);
            y = tt_flip(c, x, a1, 1);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
            y = tt_flip(c, x, an, 1);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, want);
        }
    }
    /* several axes */
    {
        int a2[2] = {0, 2}, a2n[2] = {-1, 0};
        want = sh_ref_flip(&r, a2, 2);
        y = tt_flip(c, x, a2, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_flip(c, x, a2n, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* all axes */
    {
        int a3[3] = {0, 1, 2}, a3p[3] = {2, 0, -2};
        want = sh_ref_flip(&r, a3, 3);
        y = tt_flip(c, x, a3, 3);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_flip(c, x, a3p, 3);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* size-1 axes and a 1-element tensor */
    {
        int64_t s1[3] = {1, 3, 1};
        int a[2] = {0, 2}, a0[1] = {0};
        sh_ref r1;
        tt_tensor *x1 = sh_rand(c, 3, s1, 152, &r1);
        want = sh_ref_flip(&r1, a, 2);
        y = tt_flip(c, x1, a, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        {
            int64_t one[1] = {1};
            sh_ref ro;
            tt_tensor *xo = sh_rand(c, 1, one, 153, &ro);
            y = tt_flip(c, xo, a0, 1);
            SH_AFTER(c);
            SH_CHECK_R(c, y, TT_F32, ro);
        }
    }
    /* non-contiguous: slice step 2 of [3,9] on axis 1 -> [3,5], flip both */
    {
        int64_t sb[2] = {3, 9};
        int a[2] = {0, 1};
        sh_ref rb, rs;
        tt_tensor *b = sh_rand(c, 2, sb, 154, &rb), *sl = tt_slice(c, b, 1, 1, 9, 2);
        rs = sh_ref_slice(&rb, 1, 1, 2);
        want = sh_ref_flip(&rs, a, 2);
        y = tt_flip(c, sl, a, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements, 1-D */
    {
        int64_t sl[1] = {1001};
        int a[1] = {0};
        sh_ref rl;
        tt_tensor *xl = sh_rand(c, 1, sl, 155, &rl);
        want = sh_ref_flip(&rl, a, 1);
        y = tt_flip(c, xl, a, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_tile(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    sh_ref r, want;
    int64_t s[2] = {2, 3};
    x = sh_rand(c, 2, s, 161, &r);
    /* reps shorter than ndim: {2} -> [2,6] */
    {
        int64_t reps[1] = {2};
        want = sh_ref_tile(&r, reps, 1);
        y = tt_tile(c, x, reps, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        CHECK_EQ_INT(want.nd, 2);
        CHECK_EQ_INT(want.sh[1], 6);
    }
    /* reps equal to ndim: {2,3} -> [4,9]; {1,1} -> a copy */
    {
        int64_t reps[2] = {2, 3}, ones[2] = {1, 1};
        want = sh_ref_tile(&r, reps, 2);
        y = tt_tile(c, x, reps, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        y = tt_tile(c, x, ones, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, r);
        CHECK(y && tt_data(y) != tt_data(x));
    }
    /* reps longer than ndim: {2,1,3} -> [2,2,9] */
    {
        int64_t reps[3] = {2, 1, 3};
        want = sh_ref_tile(&r, reps, 3);
        y = tt_tile(c, x, reps, 3);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        CHECK_EQ_INT(want.nd, 3);
    }
    /* 3-D input with reps {3} and {1,2} */
    {
        int64_t s3[3] = {3, 1, 2}, r1[1] = {3}, r2[2] = {1, 2}, r4[4] = {2, 1, 3, 1};
        sh_ref r3;
        tt_tensor *x3 = sh_rand(c, 3, s3, 162, &r3);
        want = sh_ref_tile(&r3, r1, 1);
        y = tt_tile(c, x3, r1, 1);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        want = sh_ref_tile(&r3, r2, 2);
        y = tt_tile(c, x3, r2, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
        want = sh_ref_tile(&r3, r4, 4);
        y = tt_tile(c, x3, r4, 4);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* non-contiguous: transpose [3,2] -> [2,3], reps {3,2} */
    {
        int64_t sb[2] = {3, 2}, reps[2] = {3, 2};
        sh_ref rb, rt;
        tt_tensor *b = sh_rand(c, 2, sb, 163, &rb), *t = tt_transpose(c, b, 0, 1);
        rt = sh_ref_transpose(&rb, 0, 1);
        want = sh_ref_tile(&rt, reps, 2);
        y = tt_tile(c, t, reps, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    /* 1000+ elements: [3,7] reps {5,10} -> [15,70] (1050) */
    {
        int64_t sl[2] = {3, 7}, reps[2] = {5, 10};
        sh_ref rl;
        tt_tensor *xl = sh_rand(c, 2, sl, 164, &rl);
        want = sh_ref_tile(&rl, reps, 2);
        y = tt_tile(c, xl, reps, 2);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_shape_as_tensor(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *y;
    /* [2,3,5] -> i32 [3] = {2,3,5} */
    {
        int64_t s[3] = {2, 3, 5}, n3[1] = {3};
        tt_tensor *x = tt_zeros(c, TT_F32, 3, s);
        y = tt_shape_as_tensor(c, x);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_I32, 1, n3) && CHECK(tt_is_contiguous(y))) {
            const int32_t *d = (const int32_t *)tt_data(y);
            CHECK_EQ_INT(d[0], 2);
            CHECK_EQ_INT(d[1], 3);
            CHECK_EQ_INT(d[2], 5);
        }
        /* of a permuted view: the view's shape */
        {
            int perm[3] = {2, 0, 1};
            tt_tensor *p = tt_permute(c, x, perm);
            y = tt_shape_as_tensor(c, p);
            SH_AFTER(c);
            if (SH_CHECK_T(y, TT_I32, 1, n3)) {
                double want[3] = {5, 2, 3};
                float *v = tu_values(c, y);
                CHECK_ALLCLOSE(v, want, 3, 0.0, 0.0);
                free(v);
            }
        }
    }
    /* 1-D [1001] -> [1] = {1001}; i32 input works too */
    {
        int64_t s[1] = {1001}, n1[1] = {1};
        tt_tensor *x = tt_zeros(c, TT_I32, 1, s);
        y = tt_shape_as_tensor(c, x);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_I32, 1, n1)) CHECK_EQ_INT(((const int32_t *)tt_data(y))[0], 1001);
    }
    /* 0-d -> a [0]-shaped i32 tensor */
    {
        int64_t n0[1] = {0};
        tt_tensor *x = tt_scalar(c, 3.0f);
        y = tt_shape_as_tensor(c, x);
        SH_AFTER(c);
        if (SH_CHECK_T(y, TT_I32, 1, n0)) CHECK_EQ_INT(y->numel, 0);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* edges: huge split sizes, many axes                                                          */
/* ========================================================================================== */

/* A split_size at or near INT64_MAX is larger than any axis: one piece, the whole tensor. */
static void test_split_huge_size(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[4], *x;
    sh_ref r;
    int64_t s[2] = {7, 4}, whole0[1] = {7}, whole1[1] = {4};
    int n;
    x = sh_rand(c, 2, s, 171, &r);
    n = tt_split(c, x, INT64_MAX, 0, out, 4);
    SH_AFTER(c);
    SH_CHECK_PIECES(c, out, n, r, 0, whole0, 1);
    n = tt_split(c, x, INT64_MAX - 1, 1, out, 4);
    SH_AFTER(c);
    SH_CHECK_PIECES(c, out, n, r, 1, whole1, 1);
    n = tt_split(c, x, INT64_MAX / 2, 0, out, 4);
    SH_AFTER(c);
    SH_CHECK_PIECES(c, out, n, r, 0, whole0, 1);
    tt_ctx_destroy(c);
    sh_free_all();
}

/* torch.tile on 5-D tensors (well within TT_MAX_DIMS) with most reps != 1. */
static void test_tile_many_axes(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    sh_ref r, want;
    int64_t s[5] = {2, 3, 1, 2, 3};
    x = sh_rand(c, 5, s, 181, &r);
    {
        int64_t reps[5] = {2, 3, 2, 1, 2};                /* -> [4,9,2,2,6] (864) */
        want = sh_ref_tile(&r, reps, 5);
        y = tt_tile(c, x, reps, 5);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    {
        int64_t reps[5] = {2, 2, 3, 2, 2};                /* all reps != 1 -> [4,6,3,4,6] */
        want = sh_ref_tile(&r, reps, 5);
        y = tt_tile(c, x, reps, 5);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    {
        int64_t s4[4] = {3, 1, 2, 3}, reps[5] = {2, 2, 3, 1, 2};   /* reps longer: -> [2,6,3,2,6] */
        sh_ref r4;
        tt_tensor *x4 = sh_rand(c, 4, s4, 182, &r4);
        want = sh_ref_tile(&r4, reps, 5);
        y = tt_tile(c, x4, reps, 5);
        SH_AFTER(c);
        SH_CHECK_R(c, y, TT_F32, want);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

/* repeat_interleave keeps the rank, so a TT_MAX_DIMS-dim input is valid. */
static void test_repeat_interleave_max_dims(void) {
    tt_ctx *c = tu_ctx();
    int64_t s[TT_MAX_DIMS];
    sh_ref r, want;
    tt_tensor *x, *y;
    int d;
    for (d = 0; d < TT_MAX_DIMS; d++) s[d] = 1;
    s[1] = 2;
    s[TT_MAX_DIMS - 1] = 3;
    x = sh_rand(c, TT_MAX_DIMS, s, 191, &r);
    want = sh_ref_repeat_interleave(&r, 2, TT_MAX_DIMS - 1);
    y = tt_repeat_interleave(c, x, 2, -1);
    SH_AFTER(c);
    SH_CHECK_R(c, y, TT_F32, want);
    want = sh_ref_repeat_interleave(&r, 3, 1);
    y = tt_repeat_interleave(c, x, 3, 1);
    SH_AFTER(c);
    SH_CHECK_R(c, y, TT_F32, want);
    tt_ctx_destroy(c);
    sh_free_all();
}

/* ========================================================================================== */
/* bad input                                                                                   */
/* ========================================================================================== */

static void test_concat_stack_errors(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *t[3], *y;
    int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s3[1] = {3}, s234[3] = {2, 3, 4}, s254[3] = {2, 5, 4};
    int64_t s32[2] = {3, 2};
    /* non-axis sizes differ */
    t[0] = tt_zeros(c, TT_F32, 2, s23);
    t[1] = tt_zeros(c, TT_F32, 2, s45);
    y = tt_concat(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_concat:");
    y = tt_concat(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[4,5]");
    /* 3-D, differing on the middle axis while joining on axis 0 (and on the last) */
    t[0] = tt_zeros(c, TT_F32, 3, s234);
    t[1] = tt_zeros(c, TT_F32, 3, s254);
    y = tt_concat(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_concat:");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3,4]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[2,5,4]");
    y = tt_concat(c, t, 2, -1);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_concat:");
    /* ... but fine on axis 1 */
    y = tt_concat(c, t, 2, 1);
    SH_AFTER(c);
    CHECK(y != NULL);
    /* different ranks */
    t[0] = tt_zeros(c, TT_F32, 2, s23);
    t[1] = tt_zeros(c, TT_F32, 1, s3);
    y = tt_concat(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "[3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_concat:");
    /* different dtypes */
    t[0] = tt_zeros(c, TT_F32, 2, s23);
    t[1] = tt_zeros(c, TT_I32, 2, s23);
    y = tt_concat(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_concat:");
    (void)CHECK_ERROR(c, TT_ERR_DTYPE, "i32");
    t[1] = tt_zeros(c, TT_BOOL, 2, s23);
    y = tt_concat(c, t, 2, 1);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_concat:");
    (void)CHECK_ERROR(c, TT_ERR_DTYPE, "bool");
    /* bad axis */
    t[1] = tt_zeros(c, TT_F32, 2, s23);
    y = tt_concat(c, t, 2, 2);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_concat:");
    y = tt_concat(c, t, 2, -3);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_concat:");
    /* no tensors, NULL array */
    y = tt_concat(c, t, 0, 0);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_concat:");
    y = tt_concat(c, NULL, 2, 0);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_concat:");
    /* a NULL tensor propagates without a new error */
    t[1] = NULL;
    y = tt_concat(c, t, 2, 0);
    SH_NULL_NO_ERROR(c, y);
    t[0] = NULL;
    y = tt_concat(c, t, 1, 0);
    SH_NULL_NO_ERROR(c, y);

    /* stack: different shapes */
    t[0] = tt_zeros(c, TT_F32, 2, s23);
    t[1] = tt_zeros(c, TT_F32, 2, s32);
    y = tt_stack(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_GUARDS(c);
    CHECK_STR_CONTAINS(tt_error(c), "tt_stack:");
    CHECK_STR_CONTAINS(tt_error(c), "[2,3]");
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "[3,2]");
    t[1] = tt_zeros(c, TT_F32, 1, s3);
    y = tt_stack(c, t, 2, 1);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_stack:");
    /* stack: different dtypes */
    t[1] = tt_zeros(c, TT_I32, 2, s23);
    y = tt_stack(c, t, 2, 0);
    CHECK(y == NULL);
    CHECK_STR_CONTAINS(tt_error(c), "tt_stack:");
    (void)CHECK_ERROR(c, TT_ERR_DTYPE, "i32");
    /* stack: bad axis (valid range is [-3, 2] for 2-D inputs) */
    t[1] = tt_zeros(c, TT_F32, 2, s23);
    y = tt_stack(c, t, 2, 3);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_stack:");
    y = tt_stack(c, t, 2, -4);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_stack:");
    y = tt_stack(c, t, 0, 0);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_stack:");
    /* stack: NULL propagates */
    t[1] = NULL;
    y = tt_stack(c, t, 2, 0);
    SH_NULL_NO_ERROR(c, y);
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_split_pad_errors(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *out[8], *x, *y;
    int64_t s[2] = {7, 4};
    int n;
    x = tt_zeros(c, TT_F32, 2, s);
    /* split_size <= 0 */
    n = tt_split(c, x, 0, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_split:");
    n = tt_split(c, x, -2, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_split:");
    /* bad axis */
    n = tt_split(c, x, 2, 2, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_split:");
    n = tt_split(c, x, 2, -3, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_split:");
    /* NULL input: -1, no error */
    n = tt_split(c, NULL, 2, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    CHECK(tt_error(c) == NULL);
    /* chunk: chunks <= 0, bad axis, NULL */
    n = tt_chunk(c, x, 0, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_chunk:");
    n = tt_chunk(c, x, -1, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_chunk:");
    n = tt_chunk(c, x, 2, 5, out, 8);
    CHECK_EQ_INT(n, -1);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_chunk:");
    n = tt_chunk(c, NULL, 2, 0, out, 8);
    CHECK_EQ_INT(n, -1);
    CHECK(tt_error(c) == NULL);
    CHECK_GUARDS(c);

    /* pad: odd n_pads, negative pads, more pairs than axes */
    {
        int64_t p3[3] = {1, 1, 1}, pneg[2] = {1, -1}, pneg2[4] = {0, 0, -2, 1}, p6[6] = {1, 1, 1, 1, 1, 1};
        y = tt_pad(c, x, p3, 3, 0.0f);
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_pad:");
        y = tt_pad(c, x, p3, 1, 0.0f);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_pad:");
        y = tt_pad(c, x, pneg, 2, 0.0f);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_pad:");
        y = tt_pad(c, x, pneg2, 4, 0.0f);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_pad:");
        y = tt_pad(c, x, p6, 6, 0.0f);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_pad:");
        y = tt_pad(c, NULL, p3, 2, 0.0f);
        SH_NULL_NO_ERROR(c, y);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_index_errors(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *ix, *y;
    sh_ref ri;
    int64_t s[3] = {4, 5, 6};
    x = tt_zeros(c, TT_F32, 3, s);
    /* gather: out of range (== size) and negative, on each axis */
    {
        int64_t si[3] = {2, 2, 2};
        int bad_hi[8] = {0, 1, 2, 3, 0, 1, 4, 0};     /* 4 is out of range on axis 0 */
        int bad_neg[8] = {0, 1, 2, -1, 0, 1, 3, 0};
        int bad_last[8] = {0, 1, 2, 3, 6, 1, 4, 0};   /* 6 is out of range on axis 2 */
        ix = sh_ilist(c, 3, si, bad_hi, &ri);
        y = tt_gather(c, x, 0, ix);
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_gather:");
        ix = sh_ilist(c, 3, si, bad_neg, &ri);
        y = tt_gather(c, x, 1, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_gather:");
        ix = sh_ilist(c, 3, si, bad_last, &ri);
        y = tt_gather(c, x, -1, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_gather:");
        /* the same index is fine on axis 1 (size 5) */
        ix = sh_ilist(c, 3, si, bad_hi, &ri);
        y = tt_gather(c, x, 1, ix);
        SH_AFTER(c);
        CHECK(y != NULL);
        /* non-i32 index */
        {
            tt_tensor *fx = tt_zeros(c, TT_F32, 3, si);
            y = tt_gather(c, x, 0, fx);
            CHECK(y == NULL);
            CHECK_STR_CONTAINS(tt_error(c), "tt_gather:");
            (void)CHECK_ERROR(c, TT_ERR_DTYPE, "f32");
        }
        /* bad axis */
        y = tt_gather(c, x, 3, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_gather:");
        y = tt_gather(c, x, -4, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_gather:");
    }
    /* gather: index of another rank, or larger than x on a non-gather axis */
    {
        int64_t s2[2] = {2, 2}, sbig[3] = {5, 2, 2};
        tt_tensor *i2 = tt_zeros(c, TT_I32, 2, s2), *ib = tt_zeros(c, TT_I32, 3, sbig);
        y = tt_gather(c, x, 0, i2);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_gather:");
        y = tt_gather(c, x, 1, ib);
        CHECK(y == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "[5,2,2]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_gather:");
        /* NULL propagation */
        y = tt_gather(c, NULL, 0, ib);
        SH_NULL_NO_ERROR(c, y);
        y = tt_gather(c, x, 0, NULL);
        SH_NULL_NO_ERROR(c, y);
    }
    /* index_select */
    {
        int64_t n3[1] = {3}, s2[2] = {1, 2};
        int hi[3] = {0, 5, 1}, neg[3] = {2, -1, 0}, ok[3] = {4, 0, 4};
        ix = sh_ilist(c, 1, n3, hi, &ri);
        y = tt_index_select(c, x, 1, ix);                  /* 5 on an axis of size 5 */
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_index_select:");
        y = tt_index_select(c, x, 0, ix);                  /* 5 on an axis of size 4 */
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_index_select:");
        ix = sh_ilist(c, 1, n3, neg, &ri);
        y = tt_index_select(c, x, 2, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_index_select:");
        ix = sh_ilist(c, 1, n3, ok, &ri);
        y = tt_index_select(c, x, 3, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_index_select:");
        y = tt_index_select(c, x, -4, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_index_select:");
        {
            tt_tensor *fx = tt_zeros(c, TT_F32, 1, n3), *bx = tt_zeros(c, TT_BOOL, 1, n3);
            tt_tensor *i2 = tt_zeros(c, TT_I32, 2, s2);
            y = tt_index_select(c, x, 0, fx);
            CHECK(y == NULL);
            CHECK_STR_CONTAINS(tt_error(c), "tt_index_select:");
            (void)CHECK_ERROR(c, TT_ERR_DTYPE, "f32");
            y = tt_index_select(c, x, 0, bx);
            CHECK(y == NULL);
            CHECK_STR_CONTAINS(tt_error(c), "tt_index_select:");
            (void)CHECK_ERROR(c, TT_ERR_DTYPE, "bool");
            y = tt_index_select(c, x, 0, i2);              /* index must be 1-D */
            CHECK(y == NULL);
            (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_index_select:");
        }
        y = tt_index_select(c, NULL, 0, ix);
        SH_NULL_NO_ERROR(c, y);
        y = tt_index_select(c, x, 0, NULL);
        SH_NULL_NO_ERROR(c, y);
    }
    /* embedding */
    {
        int64_t sw[2] = {10, 4}, si[2] = {2, 2}, s1[1] = {4};
        int hi[4] = {0, 9, 10, 1}, neg[4] = {3, -1, 2, 2};
        tt_tensor *w = tt_zeros(c, TT_F32, 2, sw), *w1 = tt_zeros(c, TT_F32, 1, s1);
        ix = sh_ilist(c, 2, si, hi, &ri);
        y = tt_embedding(c, w, ix);
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_embedding:");
        ix = sh_ilist(c, 2, si, neg, &ri);
        y = tt_embedding(c, w, ix);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_embedding:");
        {
            int v = 10;
            ix = sh_ilist(c, 0, NULL, &v, &ri);
            y = tt_embedding(c, w, ix);
            CHECK(y == NULL);
            (void)CHECK_ERROR(c, TT_ERR_INDEX, "tt_embedding:");
        }
        {
            tt_tensor *fx = tt_zeros(c, TT_F32, 2, si);
            y = tt_embedding(c, w, fx);
            CHECK(y == NULL);
            CHECK_STR_CONTAINS(tt_error(c), "tt_embedding:");
            (void)CHECK_ERROR(c, TT_ERR_DTYPE, "f32");
        }
        /* weight must be 2-D */
        ix = tt_zeros(c, TT_I32, 2, si);
        y = tt_embedding(c, w1, ix);
        CHECK(y == NULL);
        CHECK_STR_CONTAINS(tt_error(c), "[4]");
        (void)CHECK_ERROR(c, TT_ERR_SHAPE, "tt_embedding:");
        y = tt_embedding(c, NULL, ix);
        SH_NULL_NO_ERROR(c, y);
        y = tt_embedding(c, w, NULL);
        SH_NULL_NO_ERROR(c, y);
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

static void test_misc_errors(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x, *y;
    int64_t s[2] = {3, 4};
    x = tt_zeros(c, TT_F32, 2, s);
    /* repeat_interleave: bad axis, negative repeats */
    y = tt_repeat_interleave(c, x, 2, 2);
    CHECK(y == NULL);
    CHECK_GUARDS(c);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_repeat_interleave:");
    y = tt_repeat_interleave(c, x, 2, -3);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_repeat_interleave:");
    y = tt_repeat_interleave(c, x, -1, 0);
    CHECK(y == NULL);
    (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_repeat_interleave:");
    y = tt_repeat_interleave(c, NULL, 2, 0);
    SH_NULL_NO_ERROR(c, y);
    /* flip: bad axis */
    {
        int a2[1] = {2}, an[1] = {-3}, ok[1] = {0};
        y = tt_flip(c, x, a2, 1);
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_flip:");
        y = tt_flip(c, x, an, 1);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_flip:");
        y = tt_flip(c, NULL, ok, 1);
        SH_NULL_NO_ERROR(c, y);
    }
    /* tile: negative reps */
    {
        int64_t neg[2] = {2, -1}, ok[2] = {2, 2};
        y = tt_tile(c, x, neg, 2);
        CHECK(y == NULL);
        CHECK_GUARDS(c);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_tile:");
        y = tt_tile(c, NULL, ok, 2);
        SH_NULL_NO_ERROR(c, y);
    }
    /* shape_as_tensor: NULL */
    y = tt_shape_as_tensor(c, NULL);
    SH_NULL_NO_ERROR(c, y);
    /* a chain: an error early gives NULL all the way down, and the first error stays */
    {
        int64_t p[2] = {1, 1};
        int a[1] = {0};
        tt_tensor *t2[2];
        y = tt_repeat_interleave(c, x, 2, 5);                 /* TT_ERR_ARG */
        y = tt_pad(c, y, p, 2, 0.0f);
        y = tt_flip(c, y, a, 1);
        t2[0] = y;
        t2[1] = x;
        y = tt_concat(c, t2, 2, 0);
        CHECK(y == NULL);
        (void)CHECK_ERROR(c, TT_ERR_ARG, "tt_repeat_interleave:");
    }
    tt_ctx_destroy(c);
    sh_free_all();
}

TT_TEST_GROUP(shape) = {
    {"concat_axes", test_concat_axes},
    {"concat_one_tensor", test_concat_one_tensor},
    {"concat_noncontiguous", test_concat_noncontiguous},
    {"concat_dtypes", test_concat_dtypes},
    {"stack", test_stack},
    {"split", test_split},
    {"split_views", test_split_views},
    {"split_max_out", test_split_max_out},
    {"chunk", test_chunk},
    {"pad", test_pad},
    {"gather", test_gather},
    {"index_select", test_index_select},
    {"embedding", test_embedding},
    {"repeat_interleave", test_repeat_interleave},
    {"flip", test_flip},
    {"tile", test_tile},
    {"shape_as_tensor", test_shape_as_tensor},
    {"split_huge_size", test_split_huge_size},
    {"tile_many_axes", test_tile_many_axes},
    {"repeat_interleave_max_dims", test_repeat_interleave_max_dims},
    {"concat_stack_errors", test_concat_stack_errors},
    {"split_pad_errors", test_split_pad_errors},
    {"index_errors", test_index_errors},
    {"misc_errors", test_misc_errors},
    {NULL, NULL}
};
