/* The one translation unit of the test suite that holds the library's implementation, and
   the hooks through which white-box tests (tests/test_sgemm.c) call its internal functions
   without compiling the implementation a second time (declared in tests/tt_hooks.h). */
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"
#include "tt_hooks.h"

bool tt_hook_sgemm_packed(tt_ctx *c, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                          const float *B, int64_t sbk, int64_t sbn, float *C) {
    return tt__sgemm_packed(c, M, N, K, A, sam, sak, B, sbk, sbn, C);
}

bool tt_hook_gemm_tile(const char *isa, tt_hook_tile *t) {
    int i = tt__isa_of_name(isa);
    const tt__kernels *kt = i >= 0 ? tt__kernels_for((tt__isa)i) : NULL;
    tt__gemm_blocks b;
    if (!kt) return false;
    b = tt__gemm_blocking(kt);
    t->mr = kt->mr;
    t->nr = kt->nr;
    t->mr_max = TT__MR_MAX;
    t->nr_max = TT__NR_MAX;
    t->kc = b.kc;
    t->mc = b.mc;
    t->nc = b.nc;
    return true;
}

bool tt_hook_copy_run(const char *isa, float *d, const float *r, int64_t s, int64_t n) {
    int i = tt__isa_of_name(isa);
    const tt__kernels *kt = i >= 0 ? tt__kernels_for((tt__isa)i) : NULL;
    if (!kt) return false;
    kt->copy_run(d, r, s, n);
    return true;
}

int tt_hook_channels_last_values(const tt_graph *g) {
    int v, n = 0;
    for (v = 0; g->cpu.channels_last && v < g->tape.n_values; v++) n += g->cpu.channels_last[v];
    return n;
}
