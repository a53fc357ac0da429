/* build: cc -std=c99 -O2 -I.. 00_hello.c -lm -lpthread && ./a.out

   00_hello - the QUICKSTART of tinytrace.h as a whole program: make a random tensor, add 0.5,
   apply relu, sum everything, print the sum. Then check it against the same sum written as a
   plain C loop (the program returns 1 if they differ). */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <math.h>
#include <stdio.h>

int main(void) {
    tt_ctx *c = tt_ctx_create(NULL);                         // heap-backed context
    int64_t shape[2] = {2, 3};
    tt_tensor *x = tt_randn(c, 42, 2, shape);                // same numbers on every machine
    tt_tensor *y = tt_relu(c, tt_add_scalar(c, x, 0.5f));    // ops compute at once
    tt_tensor *s = tt_sum(c, y, NULL, 0, false);             // NULL axes: reduce all
    if (tt_ctx_status(c) != TT_OK) printf("error: %s\n", tt_error(c));  // sticky: check once
    else printf("sum = %f\n", tt_item(c, s));

    /* The check: read x back as floats and do the same work with a plain loop. */
    float xv[6];
    double want = 0.0;
    int ok = s != NULL && tt_copy_to_f32(c, x, xv, 6) == TT_OK;
    for (int i = 0; ok && i < 6; i++) {
        float v = xv[i] + 0.5f;                              // the add, in f32 like the library
        want += v > 0.0f ? v : 0.0f;                         // relu, then sum in double
    }
    ok = ok && fabs((double)tt_item(c, s) - want) <= 1e-5 * (1.0 + fabs(want));
    printf("plain C loop gives %f: %s\n", want, ok ? "same" : "DIFFERENT");

    tt_ctx_destroy(c);                                       // frees every tensor of c
    return ok ? 0 : 1;
}
