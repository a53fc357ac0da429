/* cuda_emu_backend.cpp - tinytrace_cuda.cu built for the CPU: its kernels and its backend run
   on tests/cuda_emu.h (the CUDA runtime and the threads of a block emulated), with C entry
   points to the emulator's fault injection for tests/test_cuda.c. One translation unit, so
   the backend and the knobs share the emulator's state. TTC_SOURCE names another copy of the
   backend (make cuda-planted builds copies with a bug planted in them). */
#ifndef TTC_SOURCE
#define TTC_SOURCE "../tinytrace_cuda.cu"
#endif
#define TT_CUDA_EMU_HEADER "cuda_emu.h"
/* At most 7 blocks per grid dimension: every kernel's loop past its grid (grid-stride loops,
   rows, batches and tiles beyond the limit) runs on the tests' small sizes. */
#define TTC_MAX_BLOCKS 7
#include TTC_SOURCE
#include "cuda_emu_knobs.h"

extern "C" {
void tc_emu_reset(void) { ttemu_reset(); }
void tc_emu_set_device_count(int n) { ttemu_set_device_count(n); }
void tc_emu_set_driver_version(int v) { ttemu_set_driver_version(v); }
void tc_emu_fail_malloc_after(int n) { ttemu_fail_malloc_after(n); }
int tc_emu_live_allocations(void) { return (int)ttemu_live_allocations(); }
long tc_emu_graph_launches(void) { return (long)ttemu_stats().graph_launches; }
long tc_emu_kernel_launches(void) { return (long)ttemu_stats().kernel_launches; }
}
