/* simplecnn_ttg.c - firmware for a Cortex-M4F (`make firmware`, run under qemu-system-arm):
   SimpleCNN as a compiled .ttg graph kept in a const array (flash), loaded with
   tt_graph_load_memory into a context over a static buffer (no heap, no threads, no stdio),
   run on the input the host used, and its logits compared with the host's (1e-6 relative).
   Prints the logits' agreement and the RAM the context used; the exit status is 0 when they agree. */
#define TT_NO_THREADS
#define TT_NO_STDIO
#define TT_NO_MALLOC
#define TINYTRACE_IMPLEMENTATION
#include "../../tinytrace.h"
#include "startup.h"
#include "simplecnn_graph.h"              /* written by simplecnn_gen into the build directory */

#include <math.h>

#define FW_RAM_BYTES (SIMPLECNN_ARENA_BYTES + SIMPLECNN_SCRATCH_BYTES + 64 * 1024)
static unsigned char fw_ram[FW_RAM_BYTES] __attribute__((aligned(64)));

int main(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    int64_t xs[4] = {1, 3, 32, 32};
    tt_ctx *c;
    tt_graph *g;
    tt_tensor *x;
    const float *y;
    int i, differ = 0;
    d.mem_buffer = fw_ram;
    d.mem_size = sizeof fw_ram;
    c = tt_ctx_create(&d);
    x = tt_randn(c, 7, 4, xs);                     /* the host's input: same numbers on every machine */
    g = tt_graph_load_memory(c, simplecnn_ttg.bytes, sizeof simplecnn_ttg.bytes);
    if (!g || tt_graph_run(g, &x, 1) != TT_OK) {
        fw_print(g ? tt_graph_error(g) : tt_error(c));
        fw_print("\n");
        return 2;
    }
    y = (const float *)tt_data(tt_graph_output(g, 0));
    for (i = 0; i < 10; i++)
        if (fabsf(y[i] - simplecnn_logits[i]) > 1e-6f * fabsf(simplecnn_logits[i]) + 1e-7f) differ++;
    fw_print(differ ? "simplecnn_ttg: logits DIFFER from the host's\n" : "simplecnn_ttg: logits equal the host's (1e-6)\n");
    fw_print("simplecnn_ttg: RAM used by the context: ");
    fw_print_u32((unsigned)tt_ctx_used(c));
    fw_print(" B\n");
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return differ ? 1 : 0;
}
