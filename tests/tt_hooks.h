/* tt_hooks.h - internal functions of the implementation that white-box tests call, defined
   in tests/tt_impl.c (the suite's one copy of the implementation). Not part of the library. */
#ifndef TT_HOOKS_H
#define TT_HOOKS_H
#include "../tinytrace.h"

/* tt__sgemm_packed: C[M,N] = A*B on the packed path with the kernels of c's ISA. */
bool tt_hook_sgemm_packed(tt_ctx *c, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                          const float *B, int64_t sbk, int64_t sbn, float *C);

/* The SGEMM tile of an ISA's kernel table, the largest tile any table may have, and the
   cache blocks tt__gemm_blocking gives it. */
typedef struct tt_hook_tile { int64_t mr, nr, mr_max, nr_max, kc, mc, nc; } tt_hook_tile;
/* False when the build has no table for isa (a name as tt_ctx_isa gives). */
bool tt_hook_gemm_tile(const char *isa, tt_hook_tile *t);

/* The run copy of isa's kernel table: d[q] = r[q*s] for q < n. False when the build has no
   table for isa. */
bool tt_hook_copy_run(const char *isa, float *d, const float *r, int64_t s, int64_t n);

/* How many values of compiled graph g its CPU runs keep channels-last (the layout pass). */
int tt_hook_channels_last_values(const tt_graph *g);
#endif
