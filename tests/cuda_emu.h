// =============================================================================
// cuda_emu.h - run tinytrace's CUDA kernels on the CPU, without a GPU
// =============================================================================
//
// tinytrace_cuda.cu compiles as plain C++17 (g++ >= 12, clang++ >= 14) when it
// is built with  -DTT_CUDA_EMU_HEADER='"cuda_emu.h"' -Itests : it then includes
// this header instead of <cuda_runtime.h>.  The header supplies the CUDA
// language pieces the kernels use (qualifiers, built-in variables, barriers,
// warp intrinsics, atomics, fast-math intrinsics) and the subset of the CUDA
// runtime API the backend calls, with CUDA's names, types, error codes and
// semantics.  It needs only the C++17 standard library and POSIX.
//
// Execution model
//   * A launch runs synchronously on the calling host thread (a capturing
//     stream records it instead, see Graphs).  Launch with
//         TTEMU_LAUNCH(kernel, grid, block, stream, args...);
//     The arguments are evaluated and copied at the launch, as CUDA copies
//     kernel parameters.  Pass nullptr, not 0 or NULL, for a pointer argument.
//   * Blocks run one at a time in order: blockIdx.z, then y, then x (fastest).
//   * Every thread of a block is a fiber (ucontext; 64 KiB stacks, created on
//     demand, reused by later blocks and launches).  Fibers run round-robin in
//     linear thread order (x + y*bx + z*bx*by): one runs until it blocks in
//     __syncthreads / __syncwarp / a shuffle / a vote, or returns; then the
//     next runnable one runs (a direct fiber-to-fiber switch).  When none can
//     run, every barrier and warp rendezvous that is complete is released and
//     the next pass starts at thread 0.  The interleaving is deterministic, so
//     a missing __syncthreads() reliably reads stale shared memory: thread 0
//     runs ahead before the others have written.
//   * A thread that has not started yet when its predecessor returns runs on
//     the predecessor's fiber and stack.  The order is the same, but a block
//     without barriers costs one fiber switch instead of one per thread.
//   * Undefined behaviour the scheduler can see (a thread returns while others
//     wait at a barrier, a lane named in a warp mask has exited, a deadlock)
//     is reported as a kernel fault: cudaErrorLaunchFailure from the next
//     cudaGetLastError / cudaPeekAtLastError and from the next synchronizing
//     call, with details in ttemu_last_message().  The waiting fibers are
//     released so the block still ends; the launch's later blocks are skipped.
//   * __shared__ is `static`: all blocks of a kernel share that storage, and,
//     as in CUDA, a block finds whatever the previous block left there.
//   * Device memory is heap memory of exactly the requested size, filled with
//     0xFF bytes (NaN floats), so AddressSanitizer catches kernels that index
//     past an allocation and uninitialized reads stand out.  Copies and sets
//     check that device ranges lie inside one live allocation.
//   * Fibers share one OS thread and switch only at the sync points above, so
//     atomics are plain read-modify-writes.  Limitation: a thread that spins
//     on memory that another thread or block must change never yields.
//
// Graphs: while a stream captures, launches, cudaMemcpyAsync, cudaMemsetAsync
// and cudaEventRecord on it are recorded (a copy's bytes are read when the
// graph replays); cudaGraphLaunch replays them in order.  Calls CUDA forbids
// during a capture fail the way CUDA fails them and invalidate the capture.
//
// Host API: one mutex serializes the calls (the emulated device runs one
// kernel at a time); the last error is process-wide, not per host thread.
// Kernel faults are reported once, then cleared (real CUDA keeps them sticky
// until cudaDeviceReset), so a test can go on after provoking one.
//
// Sections: 1 sanitizer glue, 2 CUDA qualifiers and types, 3 runtime types,
// 4 emulator state, 5 fiber scheduler, 6 device-side API, 7 launch,
// 8 host runtime API, 9 test hooks (ttemu_*).
// =============================================================================
#ifndef TINYTRACE_CUDA_EMU_H
#define TINYTRACE_CUDA_EMU_H

#if defined(__CUDACC__)
#error "cuda_emu.h replaces the CUDA runtime in host-compiler builds; nvcc builds use <cuda_runtime.h>"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define TTEMU_EMULATED 1       // lets a file test which runtime it was built against
#define CUDART_VERSION 12080   // the CUDA runtime version emulated (12.8)

#ifndef TTEMU_STACK_BYTES
#define TTEMU_STACK_BYTES (64 * 1024)   // per fiber; -D to raise it for kernels with big locals
#endif

// -----------------------------------------------------------------------------
// 1. Sanitizer glue: AddressSanitizer must be told about every stack switch
// -----------------------------------------------------------------------------
#if defined(__SANITIZE_ADDRESS__)
#define TTEMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TTEMU_ASAN 1
#endif
#endif
#if defined(TTEMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace ttemu_detail {
inline void asan_start_switch(void** fake_stack, const void* bottom, std::size_t size) {
#if defined(TTEMU_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
    (void)fake_stack, (void)bottom, (void)size;
#endif
}
inline void asan_finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) {
#if defined(TTEMU_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
    (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}
// A reused stack still carries the poisoned redzones of frames that never returned.
inline void asan_unpoison(void* p, std::size_t n) {
#if defined(TTEMU_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    (void)p, (void)n;
#endif
}
}  // namespace ttemu_detail

// -----------------------------------------------------------------------------
// 2. CUDA qualifiers, vector types and built-in constants
// -----------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// Empty rather than __attribute__((noinline)): libstdc++ spells
// __attribute__((__noinline__)), which must keep compiling after this header.
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static     // one block runs at a time, so one copy serves it
#define __constant__ static
// __restrict__ is left alone: g++ and clang++ accept CUDA's spelling.

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// A variable, not a macro: cudaDeviceProp has a member of the same name.
inline constexpr int warpSize = 32;

// -----------------------------------------------------------------------------
// 3. Runtime types: errors, enums, handles, device properties, counters
// -----------------------------------------------------------------------------
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};

enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};

inline constexpr unsigned cudaStreamDefault = 0x0;
inline constexpr unsigned cudaStreamNonBlocking = 0x1;
inline constexpr unsigned cudaEventDefault = 0x0;
inline constexpr unsigned cudaEventBlockingSync = 0x1;
inline constexpr unsigned cudaEventDisableTiming = 0x2;

// Opaque handles, with the struct names CUDA uses.
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;

struct cudaDeviceProp {
    char name[256];
    std::size_t totalGlobalMem;
    std::size_t sharedMemPerBlock;
    std::size_t sharedMemPerMultiprocessor;
    std::size_t totalConstMem;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int maxThreadsPerMultiProcessor;
    int major;
    int minor;
    int multiProcessorCount;
    int clockRate;         // kHz
    int memoryClockRate;   // kHz
    int memoryBusWidth;    // bits
    int l2CacheSize;       // bytes
    int concurrentKernels;
    int integrated;
    int unifiedAddressing;
};

// What ttemu_stats() reports.  Work recorded by a capture counts when it runs.
struct ttemu_counters {
    unsigned long long kernel_launches;   // kernels run (directly or by a graph)
    unsigned long long blocks_run;
    unsigned long long memcpy_calls;      // copies performed, any API
    unsigned long long memset_calls;
    unsigned long long graph_launches;
    unsigned long long graph_nodes_replayed;
};

// -----------------------------------------------------------------------------
// 4. Emulator state
// -----------------------------------------------------------------------------
namespace ttemu_detail {

constexpr unsigned kMaxBlockThreads = 1024;
constexpr std::size_t kStackBytes = TTEMU_STACK_BYTES;
constexpr std::size_t kTotalGlobalMem = std::size_t(8) << 30;   // what the device reports
constexpr std::size_t kMallocAlign = 256;                      // cudaMalloc's guarantee
constexpr int kDefaultDriverVersion = 13000;

// Where a thread of the running block stands.
enum class Wait : unsigned char {
    NotStarted,   // has no fiber yet
    Ready,        // runnable (or running)
    Block,        // at __syncthreads*
    Warp,         // at a warp rendezvous
    Done          // returned from the kernel
};

enum class Op : unsigned char { SyncWarp, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All };

struct Fiber;

struct Thread {
    uint3 idx{0, 0, 0};
    Wait wait = Wait::NotStarted;
    Op op = Op::SyncWarp;       // the warp rendezvous it waits at
    unsigned mask = 0;          // ... and that rendezvous' member mask
    int arg = 0;                // srcLane / delta / laneMask
    int width = 32;
    std::uint64_t value = 0;    // bits it contributes (or its predicate)
    std::uint64_t result = 0;   // what the released rendezvous hands back
    Fiber* fiber = nullptr;
};

struct Fiber {
    ucontext_t ctx;
    char* stack = nullptr;         // usable area, above a PROT_NONE guard page
    void* mapping = nullptr;
    std::size_t mapping_bytes = 0;
    Thread* thread = nullptr;
    void* fake_stack = nullptr;    // AddressSanitizer's bookkeeping
};

// One recorded operation of a captured stream.
struct Node {
    enum Kind { Kernel, Memcpy, Memset, EventRecord } kind = Kernel;
    dim3 grid, block;
    std::function<void()> body;
    void* dst = nullptr;
    const void* src = nullptr;    // bytes are read at replay, as CUDA does
    std::size_t bytes = 0;
    cudaMemcpyKind dir = cudaMemcpyDefault;
    int value = 0;
    cudaEvent_t event = nullptr;
};

}  // namespace ttemu_detail

struct CUstream_st {
    unsigned flags = 0;
    bool capturing = false;
    bool invalidated = false;   // an error during capture; EndCapture reports it
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    std::vector<ttemu_detail::Node> nodes;
};

struct CUevent_st {
    unsigned flags = 0;
    bool recorded = false;
    std::chrono::steady_clock::time_point when;
};

struct CUgraph_st {
    std::vector<ttemu_detail::Node> nodes;
};

struct CUgraphExec_st {
    std::vector<ttemu_detail::Node> nodes;
};

namespace ttemu_detail {

struct State {
    std::recursive_mutex mu;

    // Fault-injection knobs (ttemu_set_*).
    int device_count = 1;
    int driver_version = kDefaultDriverVersion;
    int malloc_budget = -1;   // successful cudaMallocs left; -1 = unlimited
    int device = 0;

    // Errors: `last` is what cudaGetLastError returns; `pending` is a kernel
    // fault waiting for the next synchronizing call.
    cudaError_t last_error = cudaSuccess;
    cudaError_t pending_error = cudaSuccess;
    char message[768] = {0};   // a fixed buffer: pointers from ttemu_last_message() never dangle
    ttemu_counters stats{};

    // Live allocations, by address, so ranges can be checked.
    std::map<std::uintptr_t, std::size_t> allocs;
    std::size_t live_bytes = 0;
    std::set<void*> pinned;
    std::set<CUstream_st*> streams;
    std::set<CUevent_st*> events;
    std::set<CUgraph_st*> graphs;
    std::set<CUgraphExec_st*> execs;

    // The launch and block being run.
    const std::function<void()>* body = nullptr;
    dim3 grid_dim, block_dim;
    uint3 block_idx{0, 0, 0};
    std::vector<Thread> threads;
    unsigned nthreads = 0;
    unsigned done = 0;
    Thread* cur = nullptr;          // the thread whose code runs now
    cudaError_t kernel_error = cudaSuccess;

    // Fibers: all created so far (they live as long as the process), and the free ones.
    std::vector<Fiber*> fibers;
    std::vector<Fiber*> free_fibers;
    Fiber* switched_from = nullptr; // the context that switched to the running one (null: host)
    ucontext_t host_ctx;            // the launching thread, while a block runs
    void* host_fake_stack = nullptr;
    const void* host_stack_bottom = nullptr;
    std::size_t host_stack_size = 0;
};

// Never destroyed: the backend's own static destructors may still call in at
// exit, and LeakSanitizer treats memory reachable from a static as live.
inline State& state() {
    static State* s = new State();
    return *s;
}

[[noreturn]] inline void die(const char* what) {
    std::fprintf(stderr, "cuda_emu: fatal: %s\n", what);
    std::abort();
}

inline void* vp(const void* p) { return const_cast<void*>(p); }   // for %p

}  // namespace ttemu_detail

// Error names and strings, as the CUDA runtime spells them.
namespace ttemu_detail {
struct ErrorInfo {
    cudaError_t code;
    const char* name;
    const char* text;
};
#define TTEMU_ERROR(code, text) {code, #code, text}
inline constexpr ErrorInfo kErrors[] = {
    TTEMU_ERROR(cudaSuccess, "no error"),
    TTEMU_ERROR(cudaErrorInvalidValue, "invalid argument"),
    TTEMU_ERROR(cudaErrorMemoryAllocation, "out of memory"),
    TTEMU_ERROR(cudaErrorInitializationError, "initialization error"),
    TTEMU_ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    TTEMU_ERROR(cudaErrorInvalidSymbol, "invalid device symbol"),
    TTEMU_ERROR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    TTEMU_ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    TTEMU_ERROR(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version"),
    TTEMU_ERROR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    TTEMU_ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    TTEMU_ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    TTEMU_ERROR(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    TTEMU_ERROR(cudaErrorNotReady, "device not ready"),
    TTEMU_ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    TTEMU_ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    TTEMU_ERROR(cudaErrorNotSupported, "operation not supported"),
    TTEMU_ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    TTEMU_ERROR(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    TTEMU_ERROR(cudaErrorStreamCaptureImplicit,
                "operation would make the legacy stream depend on a capturing blocking stream"),
    TTEMU_ERROR(cudaErrorUnknown, "unknown error"),
};
#undef TTEMU_ERROR

inline const ErrorInfo* error_info(cudaError_t e) {
    for (const ErrorInfo& i : kErrors)
        if (i.code == e) return &i;
    return nullptr;
}
}  // namespace ttemu_detail

inline const char* cudaGetErrorName(cudaError_t e) {
    const ttemu_detail::ErrorInfo* i = ttemu_detail::error_info(e);
    return i ? i->name : "unrecognized error code";
}

inline const char* cudaGetErrorString(cudaError_t e) {
    const ttemu_detail::ErrorInfo* i = ttemu_detail::error_info(e);
    return i ? i->text : "unrecognized error code";
}

namespace ttemu_detail {

// Records why a call fails (for ttemu_last_message) and returns the code.
__attribute__((format(printf, 3, 4))) inline cudaError_t fail(State& g, cudaError_t e, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::snprintf(g.message, sizeof g.message, "%s: %s", cudaGetErrorName(e), buf);
    return e;
}

// Every host API call runs here: under the lock, and a failing result becomes
// the last error, as in CUDA.
template <class F>
cudaError_t api(F&& body) {
    State& g = state();
    std::lock_guard<std::recursive_mutex> lock(g.mu);
    cudaError_t e = body(g);
    if (e != cudaSuccess) g.last_error = e;
    return e;
}

inline cudaError_t device_check(State& g) {
    if (g.driver_version < CUDART_VERSION)
        return fail(g, cudaErrorInsufficientDriver, "emulated driver version %d is older than the runtime's %d",
                    g.driver_version, CUDART_VERSION);
    if (g.device_count <= 0) return fail(g, cudaErrorNoDevice, "the emulated device count is 0");
    return cudaSuccess;
}

// Same as api(), for calls that need a working driver and device.
template <class F>
cudaError_t device_api(F&& body) {
    return api([&](State& g) {
        cudaError_t e = device_check(g);
        return e != cudaSuccess ? e : body(g);
    });
}

// A kernel fault: the first one of a launch wins.
__attribute__((format(printf, 2, 3))) inline void kernel_fault(State& g, const char* fmt, ...) {
    if (g.kernel_error != cudaSuccess) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g.kernel_error = cudaErrorLaunchFailure;
    fail(g, cudaErrorLaunchFailure, "kernel fault in block (%u,%u,%u): %s", g.block_idx.x, g.block_idx.y,
         g.block_idx.z, buf);
}

// Reports a fault to the host: the last error now, and the next synchronizing call.
inline void post_fault(State& g, cudaError_t e) {
    g.last_error = e;
    if (g.pending_error == cudaSuccess) g.pending_error = e;
}

inline cudaError_t take_pending(State& g) {
    cudaError_t e = g.pending_error;
    g.pending_error = cudaSuccess;
    return e;
}

// -----------------------------------------------------------------------------
// 5. Fiber scheduler
// -----------------------------------------------------------------------------

inline void fiber_main();
inline void after_switch(State& g, void* fake_stack);

inline Fiber* new_fiber() {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    auto* f = new Fiber();
    f->mapping_bytes = kStackBytes + page;
    f->mapping = mmap(nullptr, f->mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (f->mapping == MAP_FAILED) die("cannot map a fiber stack");
    // The stack grows down: an overflow hits the guard page and faults at once.
    if (mprotect(f->mapping, page, PROT_NONE) != 0) die("cannot protect a fiber stack's guard page");
    f->stack = static_cast<char*>(f->mapping) + page;
    if (getcontext(&f->ctx) != 0) die("getcontext failed");
    return f;
}

inline Fiber* take_fiber(State& g) {
    if (g.free_fibers.empty()) {
        g.fibers.push_back(new_fiber());
        return g.fibers.back();
    }
    Fiber* f = g.free_fibers.back();
    g.free_fibers.pop_back();
    return f;
}

// Switches from the running context to another.  A fiber is a Fiber; the
// host (the thread that launched) is null.  A fiber that will never run again
// passes `finished`, so AddressSanitizer can drop its fake stack.
inline void switch_context(State& g, Fiber* from, Fiber* to, bool finished) {
    void** save = finished ? nullptr : from ? &from->fake_stack : &g.host_fake_stack;
    asan_start_switch(save, to ? to->stack : g.host_stack_bottom, to ? kStackBytes : g.host_stack_size);
    g.switched_from = from;
    if (swapcontext(from ? &from->ctx : &g.host_ctx, to ? &to->ctx : &g.host_ctx) != 0) die("swapcontext failed");
    after_switch(g, from ? from->fake_stack : g.host_fake_stack);
}

// First thing a context does when it runs again (or for the first time).  The
// host's stack bounds are learnt on the way out of it, for the way back.
inline void after_switch(State& g, void* fake_stack) {
    const void* bottom = nullptr;
    std::size_t size = 0;
    asan_finish_switch(fake_stack, &bottom, &size);
    if (g.switched_from == nullptr && bottom != nullptr) g.host_stack_bottom = bottom, g.host_stack_size = size;
}

inline unsigned index_of(const State& g, const Thread& t) { return static_cast<unsigned>(&t - g.threads.data()); }

// Round-robin order: the first thread from index i on that can run in this
// pass (ready, or not started yet); null when the pass is over.
inline Thread* next_runnable(State& g, unsigned i) {
    for (; i < g.nthreads; ++i)
        if (g.threads[i].wait == Wait::Ready || g.threads[i].wait == Wait::NotStarted) return &g.threads[i];
    return nullptr;
}

// Leaves the running context (`from`) for thread t, or for the host when t is
// null.  Control goes straight from fiber to fiber: one switch per thread.
inline void run_next(State& g, Fiber* from, Thread* t, bool finished) {
    Fiber* to = nullptr;
    if (t != nullptr && t->wait == Wait::NotStarted) {
        if (finished) die("a finished fiber must run the next unstarted thread itself");
        to = take_fiber(g);
        to->thread = t;
        t->fiber = to;
        t->wait = Wait::Ready;
        asan_unpoison(to->stack, kStackBytes);
        to->ctx.uc_stack.ss_sp = to->stack;
        to->ctx.uc_stack.ss_size = kStackBytes;
        to->ctx.uc_link = nullptr;
        makecontext(&to->ctx, fiber_main, 0);
    } else if (t != nullptr) {
        to = t->fiber;
    }
    g.cur = t;
    switch_context(g, from, to, finished);
}

// Entry of every fiber: runs its thread, then, on the same stack, the next
// ones while they have not started (the order is the same as with one fiber
// each; a block without barriers needs one fiber).
inline void fiber_main() {
    State& g = state();
    Fiber* f = g.cur->fiber;
    after_switch(g, nullptr);
    for (Thread* t = f->thread;;) {
        g.cur = t;
        (*g.body)();
        t->wait = Wait::Done;
        t->fiber = nullptr;
        ++g.done;
        Thread* next = next_runnable(g, index_of(g, *t) + 1);
        if (next == nullptr || next->wait != Wait::NotStarted) {
            f->thread = nullptr;
            g.free_fibers.push_back(f);
            run_next(g, f, next, true);
            die("a finished fiber was resumed");
        }
        next->wait = Wait::Ready;
        next->fiber = f;
        f->thread = t = next;
    }
}

inline Thread& current_thread() {
    Thread* t = state().cur;
    if (!t) die("a device built-in (threadIdx, __syncthreads, a shuffle...) was used outside a kernel");
    return *t;
}

// Called on a fiber: wait at a barrier or rendezvous (w) until it is released.
inline void block_here(Wait w) {
    State& g = state();
    Thread& t = current_thread();
    t.wait = w;
    run_next(g, t.fiber, next_runnable(g, index_of(g, t) + 1), false);
}

inline const char* op_name(Op op) {
    switch (op) {
    case Op::SyncWarp: return "__syncwarp";
    case Op::ShflIdx: return "__shfl_sync";
    case Op::ShflUp: return "__shfl_up_sync";
    case Op::ShflDown: return "__shfl_down_sync";
    case Op::ShflXor: return "__shfl_xor_sync";
    case Op::Ballot: return "__ballot_sync";
    case Op::Any: return "__any_sync";
    case Op::All: return "__all_sync";
    }
    return "?";
}

// The lane a shuffle reads, with PTX's rules (only the low 5 bits of the
// lane/delta/mask operand count); -1 means "the caller's own value".
inline int shuffle_source(State& g, Op op, int lane, int arg, int width) {
    if (width < 1 || width > 32 || (width & (width - 1)) != 0) {
        kernel_fault(g, "shuffle width %d is not a power of two in 1..32", width);
        width = 32;
    }
    const int b = arg & 31, first = lane & ~(width - 1), last = first + width - 1;
    switch (op) {
    case Op::ShflIdx: return first + (b & (width - 1));
    case Op::ShflUp: return lane - b >= first ? lane - b : -1;
    case Op::ShflDown: return lane + b <= last ? lane + b : -1;
    case Op::ShflXor: return (lane ^ b) <= last ? (lane ^ b) : -1;   // earlier segments are readable
    default: return -1;
    }
}

// Hands every lane in `members` (a complete rendezvous of warp `base`) its
// result and makes it runnable.  Reading a lane outside `members` is undefined
// in CUDA; the emulator returns the caller's own value.
inline void finish_warp_op(State& g, unsigned base, unsigned members, Op op) {
    unsigned votes = 0;
    for (unsigned l = 0; l < 32; ++l)
        if ((members >> l & 1u) && g.threads[base + l].value != 0) votes |= 1u << l;
    for (unsigned l = 0; l < 32; ++l) {
        if (!(members >> l & 1u)) continue;
        Thread& t = g.threads[base + l];
        switch (op) {
        case Op::SyncWarp: t.result = 0; break;
        case Op::Ballot: t.result = votes; break;
        case Op::Any: t.result = votes != 0; break;
        case Op::All: t.result = votes == members; break;
        default: {
            int src = shuffle_source(g, op, static_cast<int>(l), t.arg, t.width);
            bool ok = src >= 0 && (members >> src & 1u);
            t.result = ok ? g.threads[base + static_cast<unsigned>(src)].value : t.value;
        }
        }
        t.wait = Wait::Ready;
    }
}

// Releases the rendezvous of warp w whose lanes have all arrived: every lane
// named in the mask that exists waits at the same op with the same mask.
inline bool release_warp(State& g, unsigned w) {
    const unsigned base = w * 32, lanes = std::min(32u, g.nthreads - base);
    const unsigned exists = lanes == 32 ? ~0u : (1u << lanes) - 1;
    unsigned handled = 0;
    bool released = false;
    for (unsigned l = 0; l < lanes; ++l) {
        const Thread& t = g.threads[base + l];
        if (t.wait != Wait::Warp || (handled >> l & 1u)) continue;
        unsigned group = t.mask & exists;
        if (!(group >> l & 1u)) {
            kernel_fault(g, "lane %u of warp %u calls %s with mask 0x%08x, which leaves itself out", l, w,
                         op_name(t.op), t.mask);
            group |= 1u << l;
        }
        unsigned exited = 0;
        bool complete = true;
        for (unsigned m = 0; m < 32 && complete; ++m) {
            if (!(group >> m & 1u)) continue;
            const Thread& u = g.threads[base + m];
            if (u.wait == Wait::Done)
                exited |= 1u << m;
            else if (u.wait != Wait::Warp || u.op != t.op || u.mask != t.mask)
                complete = false;
        }
        if (!complete) continue;
        if (exited)
            kernel_fault(g, "warp %u: lanes 0x%08x named in the mask of %s have already returned", w, exited,
                         op_name(t.op));
        finish_warp_op(g, base, group & ~exited, t.op);
        handled |= group;
        released = true;
    }
    return released;
}

// Releases __syncthreads once every thread still running waits there.
inline bool release_block_barrier(State& g) {
    unsigned waiting = 0, votes = 0;
    for (unsigned i = 0; i < g.nthreads; ++i)
        if (g.threads[i].wait == Wait::Block) ++waiting, votes += g.threads[i].value != 0;
    if (waiting == 0 || waiting != g.nthreads - g.done) return false;
    if (g.done > 0) {
        unsigned first = 0;
        while (g.threads[first].wait != Wait::Done) ++first;
        kernel_fault(g, "%u thread(s) returned (the first: thread %u) while %u wait at __syncthreads()", g.done,
                     first, waiting);
    }
    for (unsigned i = 0; i < g.nthreads; ++i) {
        Thread& t = g.threads[i];
        if (t.wait != Wait::Block) continue;
        t.result = votes | std::uint64_t(waiting) << 32;   // for __syncthreads_count/and/or
        t.wait = Wait::Ready;
    }
    return true;
}

// Nothing can run and nothing is complete: report it, and release every
// waiting thread on its own so the block can end.
inline void break_deadlock(State& g) {
    unsigned at_block = 0, at_warp = 0, first_warp = 0;
    for (unsigned i = 0; i < g.nthreads; ++i) {
        if (g.threads[i].wait == Wait::Block) ++at_block;
        if (g.threads[i].wait == Wait::Warp && at_warp++ == 0) first_warp = i;
    }
    if (at_warp > 0)
        kernel_fault(g, "deadlock: %u thread(s) at __syncthreads(), %u at warp ops that cannot complete (the first: "
                        "thread %u at %s with mask 0x%08x)",
                     at_block, at_warp, first_warp, op_name(g.threads[first_warp].op), g.threads[first_warp].mask);
    else
        kernel_fault(g, "deadlock: %u thread(s) wait at __syncthreads()", at_block);
    for (unsigned i = 0; i < g.nthreads; ++i) {
        Thread& t = g.threads[i];
        if (t.wait == Wait::Block) {
            t.result = (t.value != 0) | std::uint64_t(1) << 32;
            t.wait = Wait::Ready;
        } else if (t.wait == Wait::Warp) {
            finish_warp_op(g, i - i % 32, 1u << (i % 32), t.op);
        }
    }
}

// Runs one block: passes over its threads until all have returned.  Between
// passes, complete barriers and rendezvous are released.
inline void run_block(State& g) {
    const unsigned bx = g.block_dim.x, bxy = g.block_dim.x * g.block_dim.y;
    for (unsigned i = 0; i < g.nthreads; ++i) {
        g.threads[i] = Thread{};
        g.threads[i].idx = uint3{i % bx, i % bxy / bx, i / bxy};
    }
    g.done = 0;
    for (;;) {
        if (Thread* first = next_runnable(g, 0)) run_next(g, nullptr, first, false);   // one pass
        if (g.done == g.nthreads) break;
        bool released = release_block_barrier(g);
        for (unsigned w = 0; w * 32 < g.nthreads; ++w) released = release_warp(g, w) || released;
        if (!released) break_deadlock(g);
    }
}

// Runs a whole launch; a fault skips the blocks after the one that faulted.
inline void run_kernel(State& g, dim3 grid, dim3 block, const std::function<void()>& body) {
    ++g.stats.kernel_launches;
    g.body = &body;
    g.grid_dim = grid;
    g.block_dim = block;
    g.nthreads = block.x * block.y * block.z;
    g.threads.resize(g.nthreads);
    g.kernel_error = cudaSuccess;
    for (unsigned z = 0; z < grid.z && g.kernel_error == cudaSuccess; ++z)
        for (unsigned y = 0; y < grid.y && g.kernel_error == cudaSuccess; ++y)
            for (unsigned x = 0; x < grid.x && g.kernel_error == cudaSuccess; ++x) {
                g.block_idx = uint3{x, y, z};
                run_block(g);
                ++g.stats.blocks_run;
            }
    g.body = nullptr;
    if (g.kernel_error != cudaSuccess) post_fault(g, g.kernel_error);
}

// -----------------------------------------------------------------------------
// 6. Device-side API
// -----------------------------------------------------------------------------

inline const uint3& builtin_thread_idx() { return current_thread().idx; }
inline const uint3& builtin_block_idx() { return (void)current_thread(), state().block_idx; }
inline const dim3& builtin_block_dim() { return (void)current_thread(), state().block_dim; }
inline const dim3& builtin_grid_dim() { return (void)current_thread(), state().grid_dim; }

inline std::uint64_t block_barrier(bool pred) {
    current_thread().value = pred;
    block_here(Wait::Block);
    return current_thread().result;
}

inline std::uint64_t warp_rendezvous(Op op, unsigned mask, std::uint64_t value, int arg, int width) {
    Thread& t = current_thread();
    t.op = op;
    t.mask = mask;
    t.value = value;
    t.arg = arg;
    t.width = width;
    block_here(Wait::Warp);
    return t.result;
}

template <class T>
T shuffle(Op op, unsigned mask, T var, int arg, int width) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "shuffles move values of up to 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = warp_rendezvous(op, mask, bits, arg, width);
    std::memcpy(&var, &bits, sizeof(T));
    return var;
}

// Fibers share one OS thread and never switch inside these, so a plain
// read-modify-write is atomic.
template <class T, class F>
T rmw(T* p, F f) {
    T old = *p;
    *p = f(old);
    return old;
}

// Two's-complement wrap, as the hardware does, without signed-overflow UB.
inline int wrap_add(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }
inline int wrap_sub(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) - static_cast<unsigned>(b)); }

template <class To, class From>
To bit_cast(From v) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
    To out;
    std::memcpy(&out, &v, sizeof out);
    return out;
}

}  // namespace ttemu_detail

// Built-in variables: read-only views of the running thread and launch.
#define threadIdx (::ttemu_detail::builtin_thread_idx())
#define blockIdx (::ttemu_detail::builtin_block_idx())
#define blockDim (::ttemu_detail::builtin_block_dim())
#define gridDim (::ttemu_detail::builtin_grid_dim())

// Barriers.
inline void __syncthreads() { ttemu_detail::block_barrier(false); }
inline int __syncthreads_count(int pred) {
    return static_cast<int>(ttemu_detail::block_barrier(pred != 0) & 0xffffffffu);
}
inline int __syncthreads_and(int pred) {
    std::uint64_t r = ttemu_detail::block_barrier(pred != 0);
    return (r & 0xffffffffu) == (r >> 32);
}
inline int __syncthreads_or(int pred) { return (ttemu_detail::block_barrier(pred != 0) & 0xffffffffu) != 0; }
inline void __threadfence() {}          // one thread of execution: memory is always coherent
inline void __threadfence_block() {}

// Warp-level rendezvous.
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    ttemu_detail::warp_rendezvous(ttemu_detail::Op::SyncWarp, mask, 0, 0, 32);
}
template <class T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize) {
    return ttemu_detail::shuffle(ttemu_detail::Op::ShflIdx, mask, var, srcLane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ttemu_detail::shuffle(ttemu_detail::Op::ShflUp, mask, var, static_cast<int>(delta & 31u), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ttemu_detail::shuffle(ttemu_detail::Op::ShflDown, mask, var, static_cast<int>(delta & 31u), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize) {
    return ttemu_detail::shuffle(ttemu_detail::Op::ShflXor, mask, var, laneMask, width);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
    return static_cast<unsigned>(ttemu_detail::warp_rendezvous(ttemu_detail::Op::Ballot, mask, pred != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int pred) {
    return static_cast<int>(ttemu_detail::warp_rendezvous(ttemu_detail::Op::Any, mask, pred != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int pred) {
    return static_cast<int>(ttemu_detail::warp_rendezvous(ttemu_detail::Op::All, mask, pred != 0, 0, 32));
}
// The lanes of the caller's warp that exist and have not returned.
inline unsigned __activemask() {
    ttemu_detail::State& g = ttemu_detail::state();
    const unsigned base = ttemu_detail::index_of(g, ttemu_detail::current_thread()) / 32 * 32;
    unsigned m = 0;
    for (unsigned l = 0; l < 32 && base + l < g.nthreads; ++l)
        if (g.threads[base + l].wait != ttemu_detail::Wait::Done) m |= 1u << l;
    return m;
}

// Atomics: return the old value, as CUDA's do.  Signed adds wrap like the
// hardware (through unsigned arithmetic, so there is no overflow UB).
inline int atomicAdd(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return ttemu_detail::wrap_add(o, v); });
}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o + v; });
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return ttemu_detail::rmw(p, [v](unsigned long long o) { return o + v; });
}
inline float atomicAdd(float* p, float v) {
    return ttemu_detail::rmw(p, [v](float o) { return o + v; });
}
inline double atomicAdd(double* p, double v) {
    return ttemu_detail::rmw(p, [v](double o) { return o + v; });
}
inline int atomicSub(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return ttemu_detail::wrap_sub(o, v); });
}
inline unsigned atomicSub(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o - v; });
}
inline int atomicMax(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return o > v ? o : v; });
}
inline unsigned atomicMax(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o > v ? o : v; });
}
inline int atomicMin(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return o < v ? o : v; });
}
inline unsigned atomicMin(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o < v ? o : v; });
}
inline int atomicExch(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int) { return v; });
}
inline unsigned atomicExch(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned) { return v; });
}
inline unsigned long long atomicExch(unsigned long long* p, unsigned long long v) {
    return ttemu_detail::rmw(p, [v](unsigned long long) { return v; });
}
inline float atomicExch(float* p, float v) {
    return ttemu_detail::rmw(p, [v](float) { return v; });
}
inline int atomicCAS(int* p, int cmp, int v) {
    return ttemu_detail::rmw(p, [=](int o) { return o == cmp ? v : o; });
}
inline unsigned atomicCAS(unsigned* p, unsigned cmp, unsigned v) {
    return ttemu_detail::rmw(p, [=](unsigned o) { return o == cmp ? v : o; });
}
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp, unsigned long long v) {
    return ttemu_detail::rmw(p, [=](unsigned long long o) { return o == cmp ? v : o; });
}
inline int atomicAnd(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return o & v; });
}
inline unsigned atomicAnd(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o & v; });
}
inline int atomicOr(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return o | v; });
}
inline unsigned atomicOr(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o | v; });
}
inline int atomicXor(int* p, int v) {
    return ttemu_detail::rmw(p, [v](int o) { return o ^ v; });
}
inline unsigned atomicXor(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o ^ v; });
}
// CUDA's wrapping counters: inc wraps to 0 past v, dec wraps to v below 0 or above v.
inline unsigned atomicInc(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return o >= v ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned v) {
    return ttemu_detail::rmw(p, [v](unsigned o) { return (o == 0 || o > v) ? v : o - 1; });
}

// Device math missing from <cmath>.  glibc declares some of these names
// (__expf...) as noexcept C functions, so every definition here is noexcept.
inline float __expf(float x) noexcept { return std::exp(x); }
inline float __logf(float x) noexcept { return std::log(x); }
inline float __log2f(float x) noexcept { return std::log2(x); }
inline float __sinf(float x) noexcept { return std::sin(x); }
inline float __cosf(float x) noexcept { return std::cos(x); }
inline float __tanf(float x) noexcept { return std::tan(x); }
inline float __powf(float x, float y) noexcept { return std::pow(x, y); }
inline float __fdividef(float x, float y) noexcept { return x / y; }
inline float rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) noexcept { return std::fma(a, b, c); }
inline float __saturatef(float x) noexcept { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }   // NaN -> 0
inline float __int_as_float(int v) noexcept { return ttemu_detail::bit_cast<float>(v); }
inline int __float_as_int(float v) noexcept { return ttemu_detail::bit_cast<int>(v); }
inline float __uint_as_float(unsigned v) noexcept { return ttemu_detail::bit_cast<float>(v); }
inline unsigned __float_as_uint(float v) noexcept { return ttemu_detail::bit_cast<unsigned>(v); }
inline int __popc(unsigned x) noexcept { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) noexcept { return __builtin_popcountll(x); }
inline int __ffs(int x) noexcept { return __builtin_ffs(x); }
inline int __ffsll(long long x) noexcept { return __builtin_ffsll(x); }
inline int __clz(int x) noexcept { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) noexcept { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
template <class T>
T __ldg(const T* p) noexcept {
    return *p;
}

// -----------------------------------------------------------------------------
// 7. Launch
// -----------------------------------------------------------------------------
namespace ttemu_detail {

inline bool valid_config(dim3 grid, dim3 block) {
    if (block.x < 1 || block.x > 1024 || block.y < 1 || block.y > 1024 || block.z < 1 || block.z > 64) return false;
    if (static_cast<unsigned long long>(block.x) * block.y * block.z > kMaxBlockThreads) return false;
    return grid.x >= 1 && grid.x <= 0x7fffffffu && grid.y >= 1 && grid.y <= 65535 && grid.z >= 1 &&
           grid.z <= 65535;
}

inline cudaError_t check_stream(State& g, cudaStream_t s) {
    if (s != nullptr && g.streams.count(s) == 0)
        return fail(g, cudaErrorInvalidResourceHandle, "stream %p is not a live stream", vp(s));
    return cudaSuccess;
}

// The stream that records instead of running, or null.
inline CUstream_st* capturing(cudaStream_t s) { return s != nullptr && s->capturing ? s : nullptr; }

// Work on the legacy default stream waits for every blocking stream, which a
// capture forbids: CUDA fails it and invalidates the capture.
inline cudaError_t legacy_stream_check(State& g, cudaStream_t s, const char* what) {
    if (s != nullptr) return cudaSuccess;
    bool conflict = false;
    for (CUstream_st* c : g.streams)
        if (c->capturing && !(c->flags & cudaStreamNonBlocking)) conflict = c->invalidated = true;
    if (!conflict) return cudaSuccess;
    return fail(g, cudaErrorStreamCaptureImplicit, "%s on the legacy default stream while a blocking stream captures",
                what);
}

// Synchronous calls (and cudaMalloc/cudaFree) are "unsafe" during a capture
// begun in global or thread-local mode: CUDA fails them and the capture.
inline cudaError_t unsafe_during_capture(State& g, const char* what) {
    bool conflict = false;
    for (CUstream_st* c : g.streams)
        if (c->capturing && c->mode != cudaStreamCaptureModeRelaxed) conflict = c->invalidated = true;
    if (!conflict) return cudaSuccess;
    return fail(g, cudaErrorStreamCaptureUnsupported, "%s while a stream captures (mode global or thread-local)", what);
}

}  // namespace ttemu_detail

// Launches body() as the kernel of every thread of grid x block on stream.
// Returns the launch-time error (configuration, stream, capture), which also
// becomes the last error; faults inside the kernel surface at the next sync.
inline cudaError_t ttemu_launch(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (g.body != nullptr)
            return fail(g, cudaErrorNotSupported, "a kernel launched a kernel (dynamic parallelism is not emulated)");
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (!valid_config(grid, block)) {
            if (CUstream_st* c = capturing(stream)) c->invalidated = true;
            return fail(g, cudaErrorInvalidConfiguration, "grid (%u,%u,%u) block (%u,%u,%u)", grid.x, grid.y, grid.z,
                        block.x, block.y, block.z);
        }
        if (CUstream_st* c = capturing(stream)) {
            Node n;
            n.kind = Node::Kernel;
            n.grid = grid;
            n.block = block;
            n.body = std::move(body);
            c->nodes.push_back(std::move(n));
            return cudaSuccess;
        }
        if ((e = legacy_stream_check(g, stream, "a kernel launch")) != cudaSuccess) return e;
        run_kernel(g, grid, block, body);
        return cudaSuccess;
    });
}

// TTEMU_LAUNCH(kernel, grid, block, stream, args...): kernel<<<grid, block, 0, stream>>>(args...).
// The arguments are evaluated and copied now (CUDA copies kernel parameters at
// the launch, which matters when a capture replays it later).  A template
// kernel whose name has a comma goes in parentheses: TTEMU_LAUNCH((k<A, B>), ...).
#define TTEMU_LAUNCH(kernel, ...) \
    ::ttemu_detail::launch_with_args([](const auto&... ttemu_args_) { kernel(ttemu_args_...); }, __VA_ARGS__)

namespace ttemu_detail {
// The parameters are copied into the closure; `call` names the kernel.
template <class Call, class... Args>
cudaError_t launch_with_args(Call call, dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
    auto params = std::make_tuple(std::forward<Args>(args)...);
    return ttemu_launch(grid, block, stream, [call, params]() { std::apply(call, params); });
}
}  // namespace ttemu_detail

// -----------------------------------------------------------------------------
// 8. Host runtime API
// -----------------------------------------------------------------------------
namespace ttemu_detail {

// The live allocation that contains p, or allocs.end().
inline std::map<std::uintptr_t, std::size_t>::const_iterator find_alloc(const State& g, const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = g.allocs.upper_bound(a);
    if (it == g.allocs.begin()) return g.allocs.end();
    --it;
    return a - it->first < it->second ? it : g.allocs.end();
}

// One side of a copy or set: device memory must lie inside one allocation;
// host memory must not be device memory (a swapped direction, most likely).
inline cudaError_t check_side(State& g, const void* p, std::size_t n, bool device, const char* what) {
    auto it = find_alloc(g, p);
    if (!device) {
        if (it == g.allocs.end()) return cudaSuccess;
        return fail(g, cudaErrorInvalidValue, "%s %p is device memory, but the copy kind says host", what, vp(p));
    }
    if (it == g.allocs.end())
        return fail(g, cudaErrorInvalidValue, "%s %p is not inside a live cudaMalloc allocation", what, vp(p));
    const std::size_t offset = reinterpret_cast<std::uintptr_t>(p) - it->first;
    if (n > it->second - offset)
        return fail(g, cudaErrorInvalidValue,
                    "%s range of %zu bytes at offset %zu overruns its %zu-byte allocation by %zu bytes", what, n,
                    offset, it->second, n - (it->second - offset));
    return cudaSuccess;
}

inline cudaError_t check_copy(State& g, void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return fail(g, cudaErrorInvalidMemcpyDirection, "cudaMemcpyKind %d", static_cast<int>(kind));
    if (n == 0) return cudaSuccess;
    if (dst == nullptr || src == nullptr) return fail(g, cudaErrorInvalidValue, "null pointer in a %zu-byte copy", n);
    const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                         (kind == cudaMemcpyDefault && find_alloc(g, dst) != g.allocs.end());
    const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                         (kind == cudaMemcpyDefault && find_alloc(g, src) != g.allocs.end());
    cudaError_t e = check_side(g, dst, n, dst_dev, "destination");
    return e != cudaSuccess ? e : check_side(g, src, n, src_dev, "source");
}

inline cudaError_t check_set(State& g, void* p, std::size_t n) {
    if (n == 0) return cudaSuccess;
    if (p == nullptr) return fail(g, cudaErrorInvalidValue, "null pointer in a %zu-byte memset", n);
    return check_side(g, p, n, true, "memset");
}

inline void do_copy(State& g, void* dst, const void* src, std::size_t n) {
    if (n > 0) std::memmove(dst, src, n);
    ++g.stats.memcpy_calls;
}

inline void do_set(State& g, void* p, int value, std::size_t n) {
    if (n > 0) std::memset(p, value & 0xff, n);
    ++g.stats.memset_calls;
}

inline void record_event(CUevent_st* e) {
    e->recorded = true;
    e->when = std::chrono::steady_clock::now();
}

// An async operation: recorded if the stream captures, else done now.
template <class Run>
cudaError_t enqueue(State& g, cudaStream_t s, const char* what, Node node, Run run) {
    if (CUstream_st* c = capturing(s)) {
        c->nodes.push_back(std::move(node));
        return cudaSuccess;
    }
    cudaError_t e = legacy_stream_check(g, s, what);
    if (e != cudaSuccess) return e;
    run();
    return cudaSuccess;
}

// Replays one node; false (with the fault posted) stops the graph.
inline bool replay(State& g, const Node& n) {
    ++g.stats.graph_nodes_replayed;
    switch (n.kind) {
    case Node::Kernel: run_kernel(g, n.grid, n.block, n.body); return g.kernel_error == cudaSuccess;
    case Node::EventRecord: record_event(n.event); return true;
    case Node::Memcpy:
    case Node::Memset: {
        const bool copy = n.kind == Node::Memcpy;
        if ((copy ? check_copy(g, n.dst, n.src, n.bytes, n.dir) : check_set(g, n.dst, n.bytes)) != cudaSuccess) {
            char why[sizeof g.message];   // e.g. the buffer was freed after the capture
            std::memcpy(why, g.message, sizeof why);
            post_fault(g, fail(g, cudaErrorIllegalAddress, "graph replay: %s", why));
            return false;
        }
        if (copy)
            do_copy(g, n.dst, n.src, n.bytes);
        else
            do_set(g, n.dst, n.value, n.bytes);
        return true;
    }
    }
    return true;
}

inline void free_all(State& g) {
    for (auto& a : g.allocs) std::free(reinterpret_cast<void*>(a.first));
    for (void* p : g.pinned) std::free(p);
    for (CUstream_st* s : g.streams) delete s;
    for (CUevent_st* e : g.events) delete e;
    for (CUgraph_st* gr : g.graphs) delete gr;
    for (CUgraphExec_st* x : g.execs) delete x;
    g.allocs.clear();
    g.pinned.clear();
    g.streams.clear();
    g.events.clear();
    g.graphs.clear();
    g.execs.clear();
    g.live_bytes = 0;
}

}  // namespace ttemu_detail

// ---- Errors -----------------------------------------------------------------

inline cudaError_t cudaGetLastError() {
    ttemu_detail::State& g = ttemu_detail::state();
    std::lock_guard<std::recursive_mutex> lock(g.mu);
    cudaError_t e = g.last_error;
    g.last_error = cudaSuccess;
    return e;
}

inline cudaError_t cudaPeekAtLastError() {
    ttemu_detail::State& g = ttemu_detail::state();
    std::lock_guard<std::recursive_mutex> lock(g.mu);
    return g.last_error;
}

// ---- Devices ----------------------------------------------------------------

inline cudaError_t cudaGetDeviceCount(int* count) {
    return ttemu_detail::api([&](ttemu_detail::State& g) {
        if (count == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "count is null");
        *count = 0;
        cudaError_t e = ttemu_detail::device_check(g);
        if (e == cudaSuccess) *count = g.device_count;
        return e;
    });
}

inline cudaError_t cudaSetDevice(int device) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (device < 0 || device >= g.device_count)
            return ttemu_detail::fail(g, cudaErrorInvalidDevice, "device %d of %d", device, g.device_count);
        g.device = device;
        return cudaSuccess;
    });
}

inline cudaError_t cudaGetDevice(int* device) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (device == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "device is null");
        *device = g.device;
        return cudaSuccess;
    });
}

inline cudaError_t cudaDriverGetVersion(int* version) {
    return ttemu_detail::api([&](ttemu_detail::State& g) {
        if (version == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "version is null");
        *version = g.driver_version;
        return cudaSuccess;
    });
}

inline cudaError_t cudaRuntimeGetVersion(int* version) {
    return ttemu_detail::api([&](ttemu_detail::State& g) {
        if (version == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "version is null");
        *version = CUDART_VERSION;
        return cudaSuccess;
    });
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (prop == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "prop is null");
        if (device < 0 || device >= g.device_count)
            return ttemu_detail::fail(g, cudaErrorInvalidDevice, "device %d of %d", device, g.device_count);
        *prop = cudaDeviceProp{};
        std::snprintf(prop->name, sizeof prop->name, "%s", "tinytrace CUDA emulator (CPU)");
        prop->totalGlobalMem = ttemu_detail::kTotalGlobalMem;
        prop->sharedMemPerBlock = 48 * 1024;
        prop->sharedMemPerMultiprocessor = 164 * 1024;
        prop->totalConstMem = 64 * 1024;
        prop->regsPerBlock = 65536;
        prop->warpSize = warpSize;
        prop->maxThreadsPerBlock = 1024;
        prop->maxThreadsDim[0] = 1024, prop->maxThreadsDim[1] = 1024, prop->maxThreadsDim[2] = 64;
        prop->maxGridSize[0] = 0x7fffffff, prop->maxGridSize[1] = 65535, prop->maxGridSize[2] = 65535;
        prop->maxThreadsPerMultiProcessor = 2048;
        prop->major = 8;
        prop->minor = 0;
        prop->multiProcessorCount = 1;   // blocks run one at a time
        prop->clockRate = 1410000;
        prop->memoryClockRate = 1215000;
        prop->memoryBusWidth = 5120;
        prop->l2CacheSize = 40 * 1024 * 1024;
        prop->concurrentKernels = 0;
        prop->integrated = 0;
        prop->unifiedAddressing = 1;
        return cudaSuccess;
    });
}

// Returns (and clears) a kernel fault not reported by a synchronizing call yet.
inline cudaError_t cudaDeviceSynchronize() {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaDeviceSynchronize");
        return e != cudaSuccess ? e : ttemu_detail::take_pending(g);
    });
}

// Frees every allocation, stream, event and graph, and clears the errors.
inline cudaError_t cudaDeviceReset() {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        ttemu_detail::free_all(g);
        g.last_error = g.pending_error = cudaSuccess;
        return cudaSuccess;
    });
}

// ---- Memory -----------------------------------------------------------------

// cudaMalloc(&p, 0) succeeds with p == nullptr (and allocates nothing).
inline cudaError_t cudaMalloc(void** ptr, std::size_t size) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (ptr == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaMalloc: ptr is null");
        *ptr = nullptr;
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaMalloc");
        if (e != cudaSuccess) return e;
        if (g.malloc_budget == 0)
            return ttemu_detail::fail(g, cudaErrorMemoryAllocation, "cudaMalloc(%zu) failed by fault injection", size);
        if (g.malloc_budget > 0) --g.malloc_budget;
        if (size == 0) return cudaSuccess;
        void* p = nullptr;
        const bool fits = size <= ttemu_detail::kTotalGlobalMem - g.live_bytes;
        if (!fits || posix_memalign(&p, ttemu_detail::kMallocAlign, size) != 0)
            return ttemu_detail::fail(g, cudaErrorMemoryAllocation, "cudaMalloc(%zu): %zu bytes are in use", size,
                                      g.live_bytes);
        std::memset(p, 0xff, size);   // CUDA leaves it uninitialized; make reads of it stand out
        g.allocs.emplace(reinterpret_cast<std::uintptr_t>(p), size);
        g.live_bytes += size;
        *ptr = p;
        return cudaSuccess;
    });
}

inline cudaError_t cudaFree(void* ptr) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaFree");
        if (e != cudaSuccess || ptr == nullptr) return e;
        auto it = g.allocs.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == g.allocs.end()) {
            bool inside = ttemu_detail::find_alloc(g, ptr) != g.allocs.end();
            return ttemu_detail::fail(g, cudaErrorInvalidDevicePointer, "cudaFree(%p): %s", ptr,
                                      inside ? "points inside an allocation, not at its start"
                                             : "not from cudaMalloc, or already freed");
        }
        g.live_bytes -= it->second;
        g.allocs.erase(it);
        std::free(ptr);
        return cudaSuccess;
    });
}

inline cudaError_t cudaMallocHost(void** ptr, std::size_t size) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (ptr == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaMallocHost: ptr is null");
        *ptr = nullptr;
        if (size == 0) return cudaSuccess;
        void* p = std::malloc(size);
        if (p == nullptr) return ttemu_detail::fail(g, cudaErrorMemoryAllocation, "cudaMallocHost(%zu)", size);
        g.pinned.insert(p);
        *ptr = p;
        return cudaSuccess;
    });
}

inline cudaError_t cudaFreeHost(void* ptr) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (ptr == nullptr) return cudaSuccess;
        if (g.pinned.erase(ptr) == 0)
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaFreeHost(%p): not from cudaMallocHost", ptr);
        std::free(ptr);
        return cudaSuccess;
    });
}

inline cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (free_bytes == nullptr || total_bytes == nullptr)
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaMemGetInfo: null argument");
        *total_bytes = ttemu_detail::kTotalGlobalMem;
        *free_bytes = ttemu_detail::kTotalGlobalMem - g.live_bytes;
        return cudaSuccess;
    });
}

// Synchronous: reports a pending kernel fault instead of copying, as CUDA does.
inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaMemcpy");
        if (e == cudaSuccess) e = ttemu_detail::legacy_stream_check(g, nullptr, "cudaMemcpy");
        if (e == cudaSuccess) e = ttemu_detail::take_pending(g);
        if (e == cudaSuccess) e = ttemu_detail::check_copy(g, dst, src, count, kind);
        if (e == cudaSuccess) ttemu_detail::do_copy(g, dst, src, count);
        return e;
    });
}

inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        cudaError_t e = check_stream(g, stream);
        if (e == cudaSuccess) e = check_copy(g, dst, src, count, kind);
        if (e != cudaSuccess) {
            if (CUstream_st* c = capturing(stream)) c->invalidated = true;
            return e;
        }
        Node n;
        n.kind = Node::Memcpy;
        n.dst = dst;
        n.src = src;
        n.bytes = count;
        n.dir = kind;
        return enqueue(g, stream, "cudaMemcpyAsync", std::move(n), [&] { do_copy(g, dst, src, count); });
    });
}

inline cudaError_t cudaMemset(void* ptr, int value, std::size_t count) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaMemset");
        if (e == cudaSuccess) e = ttemu_detail::legacy_stream_check(g, nullptr, "cudaMemset");
        if (e == cudaSuccess) e = ttemu_detail::check_set(g, ptr, count);
        if (e == cudaSuccess) ttemu_detail::do_set(g, ptr, value, count);
        return e;
    });
}

inline cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t count, cudaStream_t stream = nullptr) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        cudaError_t e = check_stream(g, stream);
        if (e == cudaSuccess) e = check_set(g, ptr, count);
        if (e != cudaSuccess) {
            if (CUstream_st* c = capturing(stream)) c->invalidated = true;
            return e;
        }
        Node n;
        n.kind = Node::Memset;
        n.dst = ptr;
        n.bytes = count;
        n.value = value;
        return enqueue(g, stream, "cudaMemsetAsync", std::move(n), [&] { do_set(g, ptr, value, count); });
    });
}

// __constant__ / __device__ variables are ordinary statics here.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaMemcpyToSymbol");
        if (e != cudaSuccess) return e;
        if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost || offset > sizeof(T) ||
            count > sizeof(T) - offset || (count > 0 && src == nullptr))
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaMemcpyToSymbol: %zu bytes at offset %zu of a "
                                      "%zu-byte symbol", count, offset, sizeof(T));
        ttemu_detail::do_copy(g, reinterpret_cast<char*>(const_cast<T*>(&symbol)) + offset, src, count);
        return cudaSuccess;
    });
}

template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::unsafe_during_capture(g, "cudaMemcpyFromSymbol");
        if (e != cudaSuccess) return e;
        if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost || offset > sizeof(T) ||
            count > sizeof(T) - offset || (count > 0 && dst == nullptr))
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaMemcpyFromSymbol: %zu bytes at offset %zu of a "
                                      "%zu-byte symbol", count, offset, sizeof(T));
        ttemu_detail::do_copy(g, dst, reinterpret_cast<const char*>(&symbol) + offset, count);
        return cudaSuccess;
    });
}

// ---- Streams ----------------------------------------------------------------

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (stream == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "stream is null");
        if (flags & ~cudaStreamNonBlocking) return ttemu_detail::fail(g, cudaErrorInvalidValue, "flags 0x%x", flags);
        *stream = new CUstream_st();
        (*stream)->flags = flags;
        g.streams.insert(*stream);
        return cudaSuccess;
    });
}

inline cudaError_t cudaStreamCreate(cudaStream_t* stream) {
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (stream == nullptr || g.streams.erase(stream) == 0)
            return ttemu_detail::fail(g, cudaErrorInvalidResourceHandle, "cudaStreamDestroy(%p)",
                                      ttemu_detail::vp(stream));
        delete stream;
        return cudaSuccess;
    });
}

inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (CUstream_st* c = capturing(stream)) {
            c->invalidated = true;
            return fail(g, cudaErrorStreamCaptureUnsupported, "cudaStreamSynchronize on a capturing stream");
        }
        e = legacy_stream_check(g, stream, "cudaStreamSynchronize");
        return e != cudaSuccess ? e : take_pending(g);
    });
}

// All work is finished when its call returns, so a stream is never busy.
inline cudaError_t cudaStreamQuery(cudaStream_t stream) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (CUstream_st* c = capturing(stream)) {
            c->invalidated = true;
            return fail(g, cudaErrorStreamCaptureUnsupported, "cudaStreamQuery on a capturing stream");
        }
        return cudaSuccess;
    });
}

// ---- Events -----------------------------------------------------------------

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (event == nullptr) return ttemu_detail::fail(g, cudaErrorInvalidValue, "event is null");
        *event = new CUevent_st();
        (*event)->flags = flags;
        g.events.insert(*event);
        return cudaSuccess;
    });
}

inline cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

namespace ttemu_detail {
inline cudaError_t check_event(State& g, cudaEvent_t e) {
    if (e == nullptr || g.events.count(e) == 0)
        return fail(g, cudaErrorInvalidResourceHandle, "event %p is not a live event", vp(e));
    return cudaSuccess;
}
}  // namespace ttemu_detail

inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::check_event(g, event);
        if (e != cudaSuccess) return e;
        g.events.erase(event);
        delete event;
        return cudaSuccess;
    });
}

// Takes the host clock now (or when a graph that captured it replays).
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        cudaError_t e = check_event(g, event);
        if (e == cudaSuccess) e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        Node n;
        n.kind = Node::EventRecord;
        n.event = event;
        return enqueue(g, stream, "cudaEventRecord", std::move(n), [&] { record_event(event); });
    });
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::check_event(g, event);
        return e != cudaSuccess ? e : ttemu_detail::take_pending(g);
    });
}

inline cudaError_t cudaEventQuery(cudaEvent_t event) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) { return ttemu_detail::check_event(g, event); });
}

inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (ms == nullptr) return fail(g, cudaErrorInvalidValue, "ms is null");
        cudaError_t e = check_event(g, start);
        if (e == cudaSuccess) e = check_event(g, end);
        if (e != cudaSuccess) return e;
        if (!start->recorded || !end->recorded || ((start->flags | end->flags) & cudaEventDisableTiming))
            return fail(g, cudaErrorInvalidResourceHandle, "an event was not recorded, or has timing disabled");
        *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
        return cudaSuccess;
    });
}

inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0) {
    (void)flags;   // work is done in issue order, so every wait is already satisfied
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        cudaError_t e = ttemu_detail::check_stream(g, stream);
        return e != cudaSuccess ? e : ttemu_detail::check_event(g, event);
    });
}

// ---- Graphs (stream capture) --------------------------------------------------

inline cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (stream == nullptr)
            return fail(g, cudaErrorStreamCaptureUnsupported, "capture on the legacy default stream");
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
            return fail(g, cudaErrorInvalidValue, "capture mode %d", static_cast<int>(mode));
        if (stream->capturing) return fail(g, cudaErrorIllegalState, "the stream is capturing already");
        stream->capturing = true;
        stream->invalidated = false;
        stream->mode = mode;
        stream->nodes.clear();
        return cudaSuccess;
    });
}

// Ends the capture; an invalidated one yields no graph.
inline cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (graph == nullptr) return fail(g, cudaErrorInvalidValue, "graph is null");
        *graph = nullptr;
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (!capturing(stream)) return fail(g, cudaErrorIllegalState, "the stream is not capturing");
        stream->capturing = false;
        std::vector<Node> nodes = std::move(stream->nodes);
        stream->nodes.clear();
        if (stream->invalidated)
            return fail(g, cudaErrorStreamCaptureInvalidated, "an operation failed during the capture");
        *graph = new CUgraph_st{std::move(nodes)};
        g.graphs.insert(*graph);
        return cudaSuccess;
    });
}

inline cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (status == nullptr) return fail(g, cudaErrorInvalidValue, "status is null");
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        *status = cudaStreamCaptureStatusNone;
        if (stream == nullptr) {   // querying the legacy stream during a blocking capture is itself an error
            for (CUstream_st* c : g.streams)
                if (c->capturing && !(c->flags & cudaStreamNonBlocking))
                    return fail(g, cudaErrorStreamCaptureImplicit, "cudaStreamIsCapturing on the legacy stream");
        } else if (stream->capturing) {
            *status = stream->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
        }
        return cudaSuccess;
    });
}

inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0) {
    (void)flags;
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (exec == nullptr || graph == nullptr || g.graphs.count(graph) == 0)
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaGraphInstantiate: bad exec pointer or graph");
        *exec = new CUgraphExec_st{graph->nodes};
        g.execs.insert(*exec);
        return cudaSuccess;
    });
}

// Replays the recorded work in order.  Launched into a capturing stream, the
// graph's work is recorded there instead (as a child graph would be).
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    using namespace ttemu_detail;
    return device_api([&](State& g) {
        if (exec == nullptr || g.execs.count(exec) == 0)
            return fail(g, cudaErrorInvalidValue, "cudaGraphLaunch(%p): not a live executable graph", vp(exec));
        cudaError_t e = check_stream(g, stream);
        if (e != cudaSuccess) return e;
        if (CUstream_st* c = capturing(stream)) {
            c->nodes.insert(c->nodes.end(), exec->nodes.begin(), exec->nodes.end());
            return cudaSuccess;
        }
        if ((e = legacy_stream_check(g, stream, "cudaGraphLaunch")) != cudaSuccess) return e;
        ++g.stats.graph_launches;
        for (const Node& n : exec->nodes)
            if (!replay(g, n)) break;
        return cudaSuccess;
    });
}

inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (exec == nullptr || g.execs.erase(exec) == 0)
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaGraphExecDestroy(%p)", ttemu_detail::vp(exec));
        delete exec;
        return cudaSuccess;
    });
}

inline cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    return ttemu_detail::device_api([&](ttemu_detail::State& g) {
        if (graph == nullptr || g.graphs.erase(graph) == 0)
            return ttemu_detail::fail(g, cudaErrorInvalidValue, "cudaGraphDestroy(%p)", ttemu_detail::vp(graph));
        delete graph;
        return cudaSuccess;
    });
}

// -----------------------------------------------------------------------------
// 9. Test hooks: counters and fault injection
// -----------------------------------------------------------------------------
namespace ttemu_detail {
template <class F>
auto locked(F&& f) {
    State& g = state();
    std::lock_guard<std::recursive_mutex> lock(g.mu);
    return f(g);
}
}  // namespace ttemu_detail

inline ttemu_counters ttemu_stats() {
    return ttemu_detail::locked([](ttemu_detail::State& g) { return g.stats; });
}
inline void ttemu_reset_stats() {
    ttemu_detail::locked([](ttemu_detail::State& g) { g.stats = ttemu_counters{}; });
}
// How many devices cudaGetDeviceCount reports; 0 makes every device call fail with cudaErrorNoDevice.
inline void ttemu_set_device_count(int n) {
    ttemu_detail::locked([n](ttemu_detail::State& g) {
        g.device_count = n < 0 ? 0 : n;
        if (g.device >= g.device_count) g.device = 0;
    });
}
// Below CUDART_VERSION, every device call fails with cudaErrorInsufficientDriver.
inline void ttemu_set_driver_version(int v) {
    ttemu_detail::locked([v](ttemu_detail::State& g) { g.driver_version = v; });
}
// The next n cudaMalloc calls succeed, the later ones fail with
// cudaErrorMemoryAllocation until reset; -1 = never fail.
inline void ttemu_fail_malloc_after(int n) {
    ttemu_detail::locked([n](ttemu_detail::State& g) { g.malloc_budget = n < 0 ? -1 : n; });
}
// cudaMalloc blocks not freed yet (size-0 requests allocate none).
inline int ttemu_live_allocations() {
    return ttemu_detail::locked([](ttemu_detail::State& g) { return static_cast<int>(g.allocs.size()); });
}
// Details of the latest failure (which call, which range, which thread).  The
// pointer stays valid; the text changes with the next failure.
inline const char* ttemu_last_message() {
    return ttemu_detail::locked([](ttemu_detail::State& g) -> const char* { return g.message; });
}
// Restores the default knobs and clears errors, message and counters.  Live
// allocations, streams, events and graphs are kept (tests count leaks).
inline void ttemu_reset() {
    ttemu_detail::locked([](ttemu_detail::State& g) {
        g.device_count = 1;
        g.driver_version = ttemu_detail::kDefaultDriverVersion;
        g.malloc_budget = -1;
        g.device = 0;
        g.last_error = g.pending_error = cudaSuccess;
        g.message[0] = '\0';
        g.stats = ttemu_counters{};
    });
}

#endif  // TINYTRACE_CUDA_EMU_H
