/* build: cc -std=c99 -O2 -I.. 01_tensors.c -lm -lpthread && ./a.out

   01_tensors - a tensor is a small header (dtype, shape, strides, offset) pointing into
   storage: element (i,j) lives at data[offset + i*stride[0] + j*stride[1]]. Reshape,
   transpose, slice and expand only write a new header over the same storage (a view), so a
   write into the storage shows through every view; tt_contiguous copies. Broadcasting grows
   size-1 axes: [3,1] + [1,4] -> [3,4], [2,3] * [3] -> [2,3]. A bad op returns NULL and the
   context keeps the first message, naming the op and the shapes, until tt_clear_error.
   Each claim is checked (against values worked out by hand or plain C loops); the program
   returns 1 when one does not hold. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

// Print a claim and whether it held; count the ones that did not.
static void check(int ok, const char *claim) {
    printf("   [%s] %s\n", ok ? "ok" : "FAILED", claim);
    if (!ok) failures++;
}

static int shape_is(const tt_tensor *t, const char *want) {
    char shape[64];
    return t != NULL && strcmp(tt_shape_str(t, shape, sizeof shape), want) == 0;
}

// The header of a 2-D tensor: all that tells one view from another.
static void show_header(const char *name, const tt_tensor *t) {
    char shape[64];
    printf("   %-4s shape %-6s strides [%lld,%lld] offset %lld, %scontiguous\n", name,
           tt_shape_str(t, shape, sizeof shape), (long long)t->stride[0], (long long)t->stride[1],
           (long long)t->offset, tt_is_contiguous(t) ? "" : "not ");
}

// Does every v[i][j] equal storage[first + i*row + j*col]? The index arithmetic is worked
// out by hand for each view, not read from its header.
static int reads_storage(tt_ctx *c, const tt_tensor *v, const float *storage, int first, int row, int col) {
    for (int64_t i = 0; i < v->shape[0]; i++)
        for (int64_t j = 0; j < v->shape[1]; j++) {
            int64_t idx[2] = {i, j};
            if (tt_get(c, v, idx) != storage[first + i * row + j * col]) return 0;
        }
    return 1;
}

static void shapes(tt_ctx *c) {
    int64_t cube[3] = {2, 3, 4};
    tt_tensor *s = tt_scalar(c, 2.5f);                   // 0-d: no axes, one value
    tt_tensor *v = tt_arange(c, TT_F32, 0, 5, 1);        // 0, 1, 2, 3, 4
    tt_tensor *r = tt_randn(c, 7, 3, cube);              // 24 numbers from seed 7
    float vv[5];
    printf("1. shapes\n");
    tt_print(s, "   s");
    tt_print(v, "   v");
    check(shape_is(s, "[]") && s->numel == 1, "a scalar has shape [] and 1 element");
    check(shape_is(v, "[5]") && tt_copy_to_f32(c, v, vv, 5) == TT_OK && vv[0] == 0 && vv[4] == 4,
          "arange(0, 5) has shape [5]: 0 to 4");
    check(shape_is(r, "[2,3,4]") && r->numel == 2 * 3 * 4, "randn [2,3,4] has 2*3*4 = 24 elements");
}

static void views(tt_ctx *c) {
    int64_t shape34[2] = {3, 4};
    tt_tensor *base = tt_arange(c, TT_F32, 0, 12, 1);   // the storage: 12 floats, 0..11
    tt_tensor *m = tt_reshape(c, base, 2, shape34);      // read as 3 rows of 4
    tt_tensor *t = tt_transpose(c, m, 0, 1);             // [4,3]: the strides swap
    tt_tensor *sl = tt_slice(c, m, 1, 1, 4, 2);          // columns 1 and 3: step 2, offset 1
    tt_tensor *e = tt_expand(c, tt_slice(c, m, 1, 0, 1, 1), 2, shape34);  // column 0, 4 times: stride 0
    printf("2. views share storage\n");
    if (!m || !t || !sl || !e) { check(0, "the views were made"); return; }
    show_header("m", m);
    show_header("t", t);
    show_header("sl", sl);
    show_header("e", e);
    float *storage = (float *)tt_data(base);
    check(tt_data(m) == storage && tt_data(t) == storage && tt_data(e) == storage,
          "m, t and e start at the same float as base: no copy");
    check((float *)tt_data(sl) == storage + 1, "sl starts one float further (its offset)");
    check(t->stride[0] == 1 && t->stride[1] == 4 && e->stride[1] == 0 && sl->stride[1] == 2,
          "the strides are m's, swapped (t), doubled (sl), or 0 (e)");
    storage[4] = 100.0f;                                 // m[1][0], written in plain C
    storage[7] = 200.0f;                                 // m[1][3]
    tt_print(t, "   t");
    tt_print(sl, "   sl");
    tt_print(e, "   e");
    check(reads_storage(c, t, storage, 0, 1, 4) && reads_storage(c, sl, storage, 1, 4, 2) &&
          reads_storage(c, e, storage, 0, 4, 0), "every view sees the writes: t, sl and e read the storage");
    tt_tensor *copy = tt_contiguous(c, t);               // t is not contiguous: a copy
    storage[4] = 4.0f;                                   // change the storage again
    int64_t at01[2] = {0, 1};
    check(copy != NULL && tt_data(copy) != storage && tt_is_contiguous(copy) && copy->stride[0] == 3,
          "tt_contiguous(t) is new storage, rows of 3");
    check(copy != NULL && tt_get(c, copy, at01) == 100.0f && tt_get(c, t, at01) == 4.0f,
          "the copy keeps 100 where the view now reads 4");
    check(tt_contiguous(c, m) == m, "tt_contiguous(m) is m itself: it was contiguous already");
}

static void broadcasting(tt_ctx *c) {
    float col[3] = {1, 2, 3}, row[4] = {10, 20, 30, 40}, scale[3] = {2, -1, 0.5f};
    int64_t s31[2] = {3, 1}, s14[2] = {1, 4}, s23[2] = {2, 3}, s3[1] = {3};
    tt_tensor *a = tt_from_data(c, TT_F32, 2, s31, col);
    tt_tensor *b = tt_from_data(c, TT_F32, 2, s14, row);
    tt_tensor *sum = tt_add(c, a, b);                    // both grow: a along columns, b along rows
    tt_tensor *p = tt_randn(c, 3, 2, s23);
    tt_tensor *q = tt_from_data(c, TT_F32, 1, s3, scale);
    tt_tensor *prod = tt_mul(c, p, q);                   // q is read as [1,3], then as 2 rows
    float got[12], pv[6], pq[6];
    int ok = tt_copy_to_f32(c, sum, got, 12) == TT_OK;
    printf("3. broadcasting\n");
    tt_print(sum, "   a+b");
    tt_print(prod, "   p*q");
    for (int i = 0; ok && i < 3; i++)
        for (int j = 0; j < 4; j++) ok = ok && got[i * 4 + j] == col[i] + row[j];
    check(ok && shape_is(sum, "[3,4]"), "[3,1] + [1,4] is [3,4]: sum[i][j] = a[i] + b[j]");
    ok = tt_copy_to_f32(c, p, pv, 6) == TT_OK && tt_copy_to_f32(c, prod, pq, 6) == TT_OK;
    for (int i = 0; ok && i < 2; i++)                    // (float): round the product as f32 does
        for (int j = 0; j < 3; j++) ok = ok && pq[i * 3 + j] == (float)(pv[i * 3 + j] * scale[j]);
    check(ok && shape_is(prod, "[2,3]"), "[2,3] * [3] is [2,3]: prod[i][j] = p[i][j] * q[j]");
}

static void errors(tt_ctx *c) {
    int64_t s23[2] = {2, 3}, s3[1] = {3};
    char first[256] = "";
    tt_tensor *p = tt_ones(c, TT_F32, 2, s23);
    tt_tensor *q = tt_arange(c, TT_F32, 0, 4, 1);        // [4]: 4 against 3, and neither is 1
    tt_tensor *bad = tt_add(c, p, q);
    printf("4. errors\n");
    if (tt_ctx_status(c) != TT_OK) snprintf(first, sizeof first, "%s", tt_error(c));
    printf("   tt_error(c): %s\n", first);
    check(bad == NULL && tt_ctx_status(c) == TT_ERR_SHAPE, "tt_add of [2,3] and [4] is NULL, a shape error");
    check(strstr(first, "tt_add") && strstr(first, "[2,3]") && strstr(first, "[4]"),
          "the message names tt_add and both shapes");
    tt_mul(c, q, p);                                     // a second error ...
    check(tt_ctx_status(c) != TT_OK && strcmp(tt_error(c), first) == 0,
          "a second error keeps the first message (sticky): check once, at the end");
    tt_clear_error(c);
    check(tt_ctx_status(c) == TT_OK && tt_error(c) == NULL, "tt_clear_error resets it");
    check(tt_add(c, p, tt_ones(c, TT_F32, 1, s3)) != NULL && tt_ctx_status(c) == TT_OK,
          "and [2,3] + [3] works again");
}

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    if (!c) return 1;
    shapes(c);
    views(c);
    broadcasting(c);
    errors(c);
    if (tt_ctx_status(c) != TT_OK) check(0, tt_error(c));   // an error nobody expected
    tt_ctx_destroy(c);                                       // frees every tensor above
    printf("%s\n", failures ? "SOME CLAIMS FAILED" : "every claim holds");
    return failures ? 1 : 0;
}
