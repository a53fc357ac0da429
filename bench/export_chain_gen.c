/* export_chain_gen.c - writes the bench's elementwise chain (bench_models.h: chain_fwd on 16M
   floats), compiled with every pass, as C with tt_graph_export_c: DIR/bench_chain.h and .c,
   which bench.c times as the chain's "exported_c" row against the hand-written C loop.
   usage: export_chain_gen DIR */
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"
#pragma GCC diagnostic ignored "-Wunused-function"   /* the header's other models are not used here */
#include "bench_models.h"

#include <stdio.h>

int main(int argc, char **argv) {
    tt_ctx *c = tt_ctx_create(NULL);
    int64_t n = (int64_t)16 * 1024 * 1024;
    tt_tensor *x, *y;
    tt_graph *g;
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    x = tt_randn(c, 1, 1, &n);
    tt_trace_begin(c);
    y = tt_trace_input(c, x, "x");
    y = chain_fwd(c, &y, NULL);
    g = tt_trace_end(c, &y, 1);
    if (!g || tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL | TT_PASS_FREEZE) != TT_OK ||
        tt_graph_export_c_flags(g, argv[1], "bench_chain", TT_EXPORT_NO_SELFTEST) != TT_OK) {
        fprintf(stderr, "export_chain_gen: %s\n", g ? tt_graph_error(g) : tt_error(c));
        return 1;
    }
    tt_graph_destroy(g);
    tt_ctx_destroy(c);
    return 0;
}
