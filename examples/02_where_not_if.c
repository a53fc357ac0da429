/* build: cc -std=c99 -O2 -I.. 02_where_not_if.c -lm -lpthread && ./a.out

   02_where_not_if - how to write a per-element `if` with tensor ops.

   In plain C a piecewise function is a loop with a branch per element:
       y = x < 0 ? 0.1*x : (x < 1 ? x*x : 2*x - 1);
   With tensors there is no loop to put the `if` in. Instead, compute every branch for all
   elements, compute the conditions as bool tensors (tt_lt, tt_ne, ...), and let tt_where pick,
   element by element: tt_where(cond, a, b) is cond ? a : b. Both branches are computed
   everywhere; tt_where only selects, so a branch may even hold inf or NaN where it is not
   picked (see the safe division below). The program checks both results against plain C loops. */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>

#define N 11

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);
    tt_tensor *x    = tt_linspace(c, -2.0, 3.0, N);                 // -2, -1.5, ..., 3
    tt_tensor *zero = tt_scalar(c, 0.0f);                           // 0-d: broadcasts to x
    tt_tensor *one  = tt_scalar(c, 1.0f);

    // 1. The piecewise function: the three branches, then two nested selections.
    tt_tensor *left   = tt_mul_scalar(c, x, 0.1f);                  // x < 0
    tt_tensor *middle = tt_mul(c, x, x);                            // 0 <= x < 1
    tt_tensor *right  = tt_sub_scalar(c, tt_mul_scalar(c, x, 2.0f), 1.0f);  // x >= 1
    tt_tensor *y = tt_where(c, tt_lt(c, x, zero), left,
                            tt_where(c, tt_lt(c, x, one), middle, right));

    // 2. Safe division: 1/x where x != 0, else 0. tt_div gives inf at x == 0; tt_where drops it.
    tt_tensor *r = tt_where(c, tt_ne(c, x, zero), tt_div(c, one, x), zero);

    float xv[N], yv[N], rv[N];
    if (!y || !r || tt_copy_to_f32(c, x, xv, N) != TT_OK || tt_copy_to_f32(c, y, yv, N) != TT_OK ||
        tt_copy_to_f32(c, r, rv, N) != TT_OK) {
        printf("error: %s\n", tt_error(c));
        tt_ctx_destroy(c);
        return 1;
    }

    // The same two computations with an `if` per element.
    int bad = 0;
    printf("     x   piecewise  (C loop)      1/x or 0  (C loop)\n");
    for (int i = 0; i < N; i++) {
        double v = xv[i], want_y, want_r;
        if (v < 0.0)      want_y = 0.1 * v;
        else if (v < 1.0) want_y = v * v;
        else              want_y = 2.0 * v - 1.0;
        if (v != 0.0) want_r = 1.0 / v;
        else          want_r = 0.0;
        printf("%6.2f  %9.4f  (%7.4f)   %10.4f  (%7.4f)\n", v, yv[i], want_y, rv[i], want_r);
        if (fabs(yv[i] - want_y) > 1e-6 * (1.0 + fabs(want_y))) bad = 1;
        if (fabs(rv[i] - want_r) > 1e-6 * (1.0 + fabs(want_r))) bad = 1;
    }
    printf("%s\n", bad ? "MISMATCH with the C loop" : "tensor ops and C loop agree");
    tt_ctx_destroy(c);
    return bad;
}
