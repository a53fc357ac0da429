/* cuda_emu_knobs.h - C entry points to the CUDA emulator's fault injection and counters
   (defined in tests/cuda_emu_backend.cpp), for tests/test_cuda.c. Only in the emulated build
   (TC_EMULATED); on a real GPU these tests are not compiled. */
#ifndef TT_CUDA_EMU_KNOBS_H
#define TT_CUDA_EMU_KNOBS_H
#ifdef __cplusplus
extern "C" {
#endif
void tc_emu_reset(void);                 /* every knob back to its default */
void tc_emu_set_device_count(int n);     /* 0: "no CUDA-capable device" */
void tc_emu_set_driver_version(int v);   /* below the runtime's: "driver too old" */
void tc_emu_fail_malloc_after(int n);    /* the next n cudaMalloc calls succeed, then fail */
int  tc_emu_live_allocations(void);      /* cudaMalloc blocks not freed */
long tc_emu_graph_launches(void);        /* cudaGraphLaunch calls so far */
long tc_emu_kernel_launches(void);       /* kernels run so far (replays included) */
#ifdef __cplusplus
}
#endif
#endif
