/* simplecnn_export.c - firmware for a Cortex-M4F (`make firmware`, run under qemu-system-arm):
   SimpleCNN exported as C by tt_graph_export_c (simplecnn.c, written by tests/export/export_gen.c
   into the build directory: constants in flash, straight-line kernel calls, band fusion). Runs
   simplecnn_selftest in a static buffer (the arena, the input, the logits) and compares the
   logits with the host's (simplecnn_expected) within 1e-6 relative. No heap, no threads, no
   stdio, float arithmetic only. The exit status is 0 when they agree. */
#include "startup.h"
#include "simplecnn.h"                     /* written by export_gen into the build directory */

#include <math.h>

static double fw_work[(SIMPLECNN_SELFTEST_BYTES + 7) / 8];   /* double: 8-byte aligned */

int main(void) {
    const float *y = (const float *)((unsigned char *)fw_work + SIMPLECNN_OUTPUT0_AT);
    int rc = simplecnn_selftest(fw_work), i;
    float big = 0.0f, err = 0.0f;
    for (i = 0; i < SIMPLECNN_OUTPUT0_FLOATS; i++) {
        float e = fabsf(y[i] - simplecnn_expected[i]);
        big = fabsf(simplecnn_expected[i]) > big ? fabsf(simplecnn_expected[i]) : big;
        err = e > err || e != e ? e : err;             /* a NaN stays */
    }
    fw_print(rc == 0 ? "simplecnn (exported C): selftest: the host's bits\n"
                     : rc == 1 ? "simplecnn (exported C): selftest: within 1e-5 of the host, not its bits\n"
                               : "simplecnn (exported C): selftest FAILED\n");
    fw_print(err <= 1e-6f * big ? "simplecnn (exported C): logits equal the host's (1e-6 relative)\n"
                                : "simplecnn (exported C): logits DIFFER from the host's by more than 1e-6 relative\n");
    fw_print("simplecnn (exported C): arena ");
    fw_print_u32(SIMPLECNN_ARENA_BYTES);
    fw_print(" B\n");
    return rc >= 0 && err <= 1e-6f * big ? 0 : 1;     /* NaN: not <= */
}
