/* exported_selftests.c - firmware for a Cortex-M4F (`make firmware`, run under qemu-system-arm):
   every model tests/export/export_gen.c writes as C, run on the device through its
   name_selftest (fixed inputs, the host's outputs kept in flash): SimpleCNN band-fused and
   plain, an elementwise chain, a model of conv1d + GELU, depthwise and grouped convolutions,
   pools, linear and matmul, the chain without fusion, SimpleCNN on two images, and norms,
   softmax and reductions. Prints one line per model; the exit
   status is 0 when every one agrees with the host (bit for bit, or within 1e-5 where the
   device's float sums round differently). */
#include "startup.h"
#include "simplecnn.h"
#include "simplecnn_plain.h"
#include "chain.h"
#include "mixed.h"
#include "unfused.h"
#include "simplecnn_b2.h"
#include "heads.h"

#define FW_MAX(a, b) ((a) > (b) ? (a) : (b))
#define FW_WORK_BYTES FW_MAX(FW_MAX(SIMPLECNN_SELFTEST_BYTES, SIMPLECNN_PLAIN_SELFTEST_BYTES), \
                             FW_MAX(FW_MAX(CHAIN_SELFTEST_BYTES, MIXED_SELFTEST_BYTES), \
                                    FW_MAX(FW_MAX(UNFUSED_SELFTEST_BYTES, SIMPLECNN_B2_SELFTEST_BYTES), HEADS_SELFTEST_BYTES)))
static double fw_work[(FW_WORK_BYTES + 7) / 8];      /* double: 8-byte aligned */

typedef struct fw_model { const char *name; int (*selftest)(void *work); } fw_model;

static const fw_model fw_models[] = {
    {"simplecnn", simplecnn_selftest}, {"simplecnn_plain", simplecnn_plain_selftest}, {"chain", chain_selftest},
    {"mixed", mixed_selftest}, {"unfused", unfused_selftest}, {"simplecnn_b2", simplecnn_b2_selftest},
    {"heads", heads_selftest},
};

int main(void) {
    unsigned i;
    int failed = 0;
    for (i = 0; i < sizeof fw_models / sizeof fw_models[0]; i++) {
        int rc = fw_models[i].selftest(fw_work);
        fw_print("exported ");
        fw_print(fw_models[i].name);
        fw_print(rc == 0 ? ": the host's bits\n" : rc == 1 ? ": within 1e-5 of the host\n" : ": FAILED\n");
        failed += rc < 0;
    }
    return failed ? 1 : 0;
}
