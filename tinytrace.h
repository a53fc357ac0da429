/* tinytrace.h - v0.12.0 - header-only tensor engine with tracing - MIT or public domain (see end)

   USAGE
     #define TINYTRACE_IMPLEMENTATION in exactly ONE .c or .cpp file, then #include "tinytrace.h".
     Every other file includes it without the define and sees declarations only.

   QUICKSTART (a copy of examples/00_hello.c, minus its checks)
     tt_ctx *c = tt_ctx_create(NULL);                         // heap-backed context
     int64_t shape[2] = {2, 3};
     tt_tensor *x = tt_randn(c, 42, 2, shape);                // same numbers on every machine
     tt_tensor *y = tt_relu(c, tt_add_scalar(c, x, 0.5f));    // ops compute at once
     tt_tensor *s = tt_sum(c, y, NULL, 0, false);             // NULL axes: reduce all
     if (tt_ctx_status(c) != TT_OK) printf("error: %s\n", tt_error(c));  // sticky: check once
     else printf("sum = %f\n", tt_item(c, s));
     tt_ctx_destroy(c);                                       // frees every tensor of c

   CONTENTS (grep for the anchors: grep -n '>>' tinytrace.h)
     >>config       configuration macros and their defaults
     >>api-types    status codes, dtypes, tensors, context descriptors
     >>api          context, errors, memory scopes, creation, access, views, ops
     >>impl-config  includes and libc overrides used by the implementation
     >>util         small helpers: overflow-checked sizes, shape printing, formatting
     >>error        the sticky error state (contexts, graphs, compiled functions), status strings
     >>arena        the context allocator: blocks, scopes, guard regions
     >>threads      the thread pool and deterministic work splitting
     >>isa          the CPU's vector ISA (CPUID/XGETBV), kernel twins, the kernel table type
     >>dtype        f16/bf16 conversion, element loads and stores
     >>tensor       tensor headers, creation, random numbers, access
     >>dispatch     the op table (infer + exec + flags per op), the elementwise expression lists
     >>view         views: reshape, permute, slice, expand, ...
     >>loop         the strided N-d loop that every elementwise kernel runs on
     >>ewise        unary, binary, comparison, logical, where, cast; vectorizable exp/tanh
     >>reduce       sum, mean, max, min, prod, argmax, var, softmax, norms
     >>linalg       matmul (torch.matmul semantics), linear
     >>conv         conv2d/conv1d (direct by bands, im2col + GEMM, Winograd, channels-last),
                    pooling, upsampling
     >>shape        concat, stack, split, pad, gather, embedding, tile, ...
     >>attention    scaled dot-product attention (flash-style tiles)
     >>kernels      the kernel table of each ISA (AVX-512, AVX2, NEON, plain C)
     >>trace        the tape: ops recorded while a trace runs, tracer warnings
     >>graph        the graph: IR, trace end, the compile pipeline (a table of passes),
                    the backend interface
     >>passes       freeze, constant folding, simplification, BN folding, CSE, DCE, in run order
     >>fuse         elementwise fusion: groups, micro-op programs, epilogue heads
     >>plan         the memory plan: lifetimes, in-place reuse, offsets in one arena
     >>exec         bind and run; the CPU backend and its layout pass; the fused-program
                    interpreter
     >>check        tt_graph_check: compiled against eager, node by node
     >>tools        tt_graph_str, Graphviz, the per-pass dump, tt_trace, the compile cache
     >>files        graph files (.ttg): save, load and check every byte; CRC-32C; whole files
     >>safetensors  safetensors weights: a strict JSON header parser, checked offsets
     >>export       C source for firmware: the kernels exported code calls, the memory
                    plan for small devices, tt_graph_export_c
     >>debug        printing
     >>license

   CONFIG (define before including; "impl" = only where TINYTRACE_IMPLEMENTATION is defined)
     macro                         default                     where
     TT_MAX_DIMS                   8                           every file (changes tt_tensor)
     TT_STATIC                     off: functions are extern   every file
     TT_MALLOC/TT_REALLOC/TT_FREE  libc malloc/realloc/free    impl; all three or none
     TT_ASSERT(c)                  assert(c); nothing with      impl; internal invariants only
                                   TT_NO_STDIO (firmware)
     TT_NO_STDIO                   off                         impl; drops tt_print (no printf)
     TT_NO_THREADS                 off                         impl; single-threaded (no pthreads)
     TT_NO_SIMD                    off                         impl; only the plain-C kernel twins
     TT_FLOAT_ACCUM                1 where the FPU lacks        impl; long sums (reductions,
                                   doubles (Cortex-M4F), else 0      norms, softmax) in float
     TT_NO_MALLOC                  off                         impl; every byte from the user's
                                                               buffer (tt_ctx_desc.mem_buffer)

   ERRORS
     Ops return a tensor, or NULL on failure, and record the FIRST error in the context:
     tt_error(ctx) gives "tt_matmul: inner dimensions differ: a is [2,3], b is [4,5]".
     An op given a NULL input returns NULL and adds no message, so a whole forward pass is
     written straight and checked once at the end. Nothing aborts on user error; running
     out of arena memory is an error like any other. tt_clear_error() resets the state.

   LIMITS (v0.9)
     All arithmetic computes in f32; f16/bf16 are storage types (tt_cast converts them).
     Arithmetic on i32/bool inputs converts them to f32. Tensors have at most TT_MAX_DIMS dims.
     Tracing needs the heap. SIMD kernels (AVX-512, AVX2+FMA) are chosen at run time on
     x86-64 with GCC or clang, no flag needed (tt_ctx_desc.isa or TT_ISA caps them,
     tt_ctx_isa says which run); other compilers get what their flags enable; aarch64 runs
     NEON. The tests compare every SIMD kernel with its plain-C twin. TT_NO_SIMD keeps only
     the twins in any build. Graph files (.ttg) hold tensors of at most 8 dims and are
     little-endian (big-endian hosts are refused).

   PERFORMANCE NOTES
     Kernels use a pthread pool per context (tt_ctx_desc.n_threads; 0 = the online cores).
     Work is cut into tasks from the shapes alone and every sum has a fixed order, so
     results are bitwise the same for any thread count. matmul/linear/conv use a packed,
     cache-blocked SGEMM; attention is flash-style (one score tile per thread).

   RECENT CHANGES
     0.12.0 convolution algorithms chosen by measured speed: TT_MODE_MAX_AUTOTUNE times each
            large 3x3 stride-1 convolution at compile by direct sums, Winograd F(2x2, 3x3) and
            the new F(4x4, 3x3), and keeps the fastest (one timing per shape); the choice is in
            the graph's node, saved in .ttg files (a load checks it) and shown by tt_graph_str
            and tt_graph_stats; tt_graph_set_conv_algo fixes it instead (TT_CONV_RULE: 0.11's
            rule; direct; either Winograd). Other modes and every output of 0.11 unchanged.
     0.11.0 channels-last layouts: the CPU backend keeps the values between convolutions that
            have channels-last kernels (depthwise; 1x1 where eager's GEMM is packed) in NHWC
            order during runs, with a depthwise kernel over channels (AVX-512: a 3x3's weights
            in registers) and each 1x1 as one GEMM over every pixel (its weight packed as B);
            other convolutions reach them through a copy, fused programs run over [N, H, W, C].
            Bytes, memory plan, graph files, export and GPU unchanged; outputs bitwise those
            of 0.10.1. GPU: the micro-op interpreter runs 4 elements per thread.
     0.10.1 convolution speed, continued: graphs pack constant convolution weights once as
            the SGEMM's A (Winograd's transformed weights too); a clamp after a convolution or
            linear (ReLU6) runs in the kernel's epilogue where it has one, and the epilogue is
            a kernel-table twin (bias and activation in one vectorized pass per row); SGEMMs
            whose rows fit one cache block split their tasks by columns, each packing the B
            slivers it multiplies (two threads scale better); 2x2 max pooling vectorized.
            Outputs bitwise those of 0.10.0.
     0.10.0 convolution speed: depthwise convolution and, up to 32 input channels, direct
            convolution by bands of zero-padded, stride-split input rows (one long vector loop
            per tap; an 8x48 tile for AVX-512, AVX2 and plain C), with the GEMM's sums and
            epilogue, so outputs stay bitwise those of 0.9.0 (with clang, AVX-512 depthwise
            rounds its sums twice where 0.9.0 fused them: see tt__dw_taps_avx512); AVX-512
            stride-2 run copies (im2col of strided convolutions); TT_MODE_MAX_AUTOTUNE runs large 3x3 stride-1
            convolutions by Winograd F(2x2, 3x3), weights transformed once in frozen graphs
            (within float rounding of eager, not bitwise).
     0.9.0  GPU: tinytrace_cuda.cu (nvcc, beside the program; TT_CUDA declares its calls) runs
            compiled graphs on NVIDIA GPUs: tt_graph_to_cuda, tt_graph_run_cuda (device
            pointers), tt_graph_cuda_sync, tt_cuda_device_count/_name/_error/_alloc/_free/
            _upload/_download; REDUCE_OVERHEAD replays a captured CUDA graph. The backend
            interface gains run (a backend runs a whole graph), load_inputs and fetch
            (tt_graph_check node by node on any backend), the graph a device field; the
            expression and position helpers (TT__MATH) compile for the device. CPU outputs
            unchanged.
     0.8.0  firmware: tt_graph_export_c writes a compiled graph as C (constants static const,
            one call per node into the plain C kernels, fused chains as loops, name_selftest),
            with a memory plan for small devices (band fusion of conv -> ReLU -> pool);
            tt_graph_export_arena; TT_FLOAT_ACCUM (reductions, softmax and norms sum in float
            where the FPU has no doubles: exported code links no double arithmetic on an M4F);
            the header is -Wdouble-promotion clean. The plain C micro-kernel continues its sums
            from C (packed and direct GEMMs agree bit for bit with the C twin). Outputs bitwise
            those of 0.7.0 with AVX-512 and AVX2; with the plain C kernels, GEMMs whose K spans
            several blocks round differently (sums in order over k, as the direct loops).
     0.7.0  graph files: tt_graph_save/_load (and _memory forms; docs/FORMAT.md), every byte
            checked on load, compiled graphs load ready to run, with no heap in a user buffer
            and constants in place; tt_graph_input_name/_shape; safetensors weights
            (tt_safetensors_*); TT_ERR_FORMAT, TT_ERR_IO. Outputs bitwise those of 0.6.0.
     0.5.0  architecture: op properties are flags in the op table, each elementwise op is one
            line of TT__UNARY_OPS/TT__BINARY_OPS, the graph sections follow the pipeline, passes
            run from a table (TT_DEBUG_PASSES prints each step; stats name what each removed),
            a backend interface (tt__backend) that the CPU implements, one error state;
            tt_hardswish, tt_atan2, tt_compiled_status. Outputs bitwise those of 0.4.0.
     0.4.0  hardening: every misuse is an error naming the function and the argument, sizes
            checked for overflow, frozen graphs own their parameters, -ffast-math refused;
            tt_trace_input takes the context first (API change); 0-d tensors take axis 0/-1;
            conv3d, transposed convolution, 1-D/3-D pooling with ceil_mode and exclude_pad,
            reflect/replicate/circular padding, bilinear and scale-factor upsampling,
            tt_reshape copies when it must, tt_from_int64.
     0.3.0  threads (pool per context, deterministic tasks), packed SGEMM with AVX-512/AVX2
            micro-kernels, direct depthwise conv, flash-style attention, vectorized erf,
            softmax, norms and reductions.
     0.2.0  tracing: tape, graphs, passes, fused elementwise chains, memory plan, checker,
            compile cache; ops dispatched through one table; vectorizable exp/tanh.
     0.1.0  tensors, views, the eager op set, sticky errors, arenas and scopes.
*/
#ifndef TINYTRACE_H_INCLUDED
#define TINYTRACE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ==========================================================================
 * >>config   compile-time limits and linkage
 * ========================================================================== */
#define TT_VERSION_MAJOR  0
#define TT_VERSION_MINOR  12
#define TT_VERSION_PATCH  0
#define TT_VERSION_STRING "0.12.0"

#ifndef TT_MAX_DIMS
#define TT_MAX_DIMS 8          /* most dims a tensor may have */
#endif

#ifdef TT_STATIC
#  if defined(__GNUC__) || defined(__clang__)
#    define TT_API static __attribute__((unused))
#  else
#    define TT_API static
#  endif
#else
#define TT_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==========================================================================
 * >>api-types   status codes, dtypes, tensors, context descriptors
 * ========================================================================== */

/* Status codes: 0 is success, every error is negative. X(name, value, what tt_status_str says) */
#define TT__STATUS(X) \
    X(TT_OK,               0, "ok")                                                                  \
    X(TT_ERR_ARG,         -1, "invalid argument")    /* bad axis, negative size, NULL array */      \
    X(TT_ERR_OOM,         -2, "out of memory")       /* heap, or the user's arena is full */        \
    X(TT_ERR_SHAPE,       -3, "shape mismatch")      /* shapes do not fit together */               \
    X(TT_ERR_DTYPE,       -4, "dtype mismatch")      /* wrong element type */                       \
    X(TT_ERR_UNSUPPORTED, -5, "unsupported")         /* valid request this build cannot do */       \
    X(TT_ERR_STATE,       -6, "wrong state")         /* call in the wrong state */                  \
    X(TT_ERR_BACKEND,     -7, "backend failure")     /* accelerator failure */                      \
    X(TT_ERR_INDEX,       -8, "index out of range")  /* an index tensor holds a value out of range */ \
    X(TT_ERR_CORRUPT,     -9, "memory corruption")   /* a guard region was overwritten */                \
    X(TT_ERR_FORMAT,     -10, "bad file format")     /* a file's bytes are malformed, truncated or hostile */ \
    X(TT_ERR_IO,         -11, "file i/o error")      /* a file could not be opened, read or written */

#define TT__STATUS_ENUM(name, value, text) name = value,
typedef enum tt_status { TT__STATUS(TT__STATUS_ENUM) } tt_status;
#undef TT__STATUS_ENUM

/* Element types. f32 is the compute type; f16 and bf16 are storage types. */
typedef enum tt_dtype {
    TT_F32  = 0,
    TT_F16  = 1,
    TT_BF16 = 2,
    TT_I32  = 3,     /* indices */
    TT_BOOL = 4,     /* masks: one byte, 0 or 1 */
    TT_DTYPE_COUNT
} tt_dtype;

typedef struct tt_ctx tt_ctx;

/* A tensor: a header that points into storage. Views share storage and differ only in
   shape, strides and offset. Read the fields; change them only through the API.
   Element (i0,i1,...) lives at ((char*)data + (offset + i0*stride[0] + ...) * elsize). */
typedef struct tt_tensor {
    tt_dtype dtype;
    int      ndim;                      /* 0 for a scalar */
    int64_t  shape[TT_MAX_DIMS];        /* sizes; entries past ndim are 1 */
    int64_t  stride[TT_MAX_DIMS];       /* in elements, not bytes; may be 0 (broadcast) or negative */
    int64_t  offset;                    /* in elements, from data to element (0,0,...) */
    int64_t  numel;                     /* product of shape */
    void    *data;                      /* storage base */
    tt_ctx  *ctx;                       /* context that made this header */
    uint32_t flags;                     /* internal */
    uint32_t trace_epoch;               /* internal: the trace that saw this tensor */
    int32_t  trace_id;                  /* internal: its value in that trace (-1: made during it) */
} tt_tensor;

/* Allocator callbacks; when alloc is NULL the TT_MALLOC/TT_FREE macros are used. */
typedef struct tt_allocator {
    void *(*alloc)(size_t size, void *user);
    void  (*free)(void *ptr, void *user);
    void   *user;
} tt_allocator;

/* Context options. Zero means "default" for every field; get one from tt_ctx_desc_default(). */
typedef struct tt_ctx_desc {
    void        *mem_buffer;   /* user memory for everything (the context itself too); NULL: heap */
    size_t       mem_size;     /* bytes in mem_buffer */
    size_t       block_size;   /* heap mode: bytes per arena block (default 1 MiB; bigger tensors get their own) */
    tt_allocator allocator;    /* heap mode: overrides TT_MALLOC/TT_FREE */
    int          debug_guards; /* nonzero: every allocation sits between guard regions (see tt_ctx_check_guards) */
    int          n_threads;    /* threads for kernels: 0 = the online cores (at most 256), 1 = the caller only */
    /* Optional: run task(arg, i, thread) for every i < n_tasks on your own workers (an RTOS,
       OpenMP) and return when all are done; thread must be < tt_ctx_num_threads(ctx) and
       unique among tasks running at the same time. Not called when n_threads is 1 or there
       is a single task. NULL: tinytrace's own pthread pool. */
    void       (*parallel_for)(void (*task)(void *arg, int64_t i, int thread), void *arg, int64_t n_tasks, void *user);
    void        *parallel_user;
    /* The most the kernels may use: "avx512", "avx2", "neon" or "scalar" (plain C); the CPU's
       best below it runs. NULL: the best the CPU has, or the TT_ISA environment variable's
       name when it holds one. See tt_ctx_isa. */
    const char  *isa;
} tt_ctx_desc;

/* A saved position of the context's allocator; see tt_scope_begin. */
typedef struct tt_scope {
    tt_ctx *ctx;               /* the context it was opened on */
    void   *block;             /* the position: the block being filled, and its bytes used */
    size_t  used;
} tt_scope;

/* Bytes the context header takes at the front of a user buffer (TT_NO_MALLOC sizing). */
#define TT_CTX_OVERHEAD 1024

/* ==========================================================================
 * >>api   public functions
 * ========================================================================== */

/* ---- version, dtypes, status ------------------------------------------- */
TT_API const char *tt_version(void);
TT_API const char *tt_status_str(tt_status s);         /* "shape mismatch", ... */
TT_API const char *tt_dtype_name(tt_dtype t);          /* "f32", "f16", ... */
TT_API size_t      tt_dtype_size(tt_dtype t);          /* bytes per element; 0 if invalid */
/* IEEE half and bfloat16 conversions with round-to-nearest-even; NaN stays NaN. */
TT_API uint16_t    tt_f32_to_f16(float x);
TT_API float       tt_f16_to_f32(uint16_t h);
TT_API uint16_t    tt_f32_to_bf16(float x);
TT_API float       tt_bf16_to_f32(uint16_t h);

/* ---- context and errors ------------------------------------------------- */
/* Defaults for every option (heap memory, 1 MiB blocks, no guards). */
TT_API tt_ctx_desc tt_ctx_desc_default(void);
/* Create a context; desc may be NULL for defaults. With desc->mem_buffer, the context and
   all its tensors live in that buffer and nothing is allocated. Returns NULL when the
   context itself cannot be made (no memory, or a buffer smaller than TT_CTX_OVERHEAD) or
   desc makes no sense: a mem_size without a mem_buffer (it would not fall back to the
   heap silently), a negative n_threads. */
TT_API tt_ctx     *tt_ctx_create(const tt_ctx_desc *desc);
/* Free the context and every tensor it made (user buffers are left to the user). */
TT_API void        tt_ctx_destroy(tt_ctx *ctx);
/* The first error's message since the last clear, or NULL when there is none: test
   tt_ctx_status(ctx) != TT_OK before printing it (printf of NULL is undefined, and GCC's
   -Wformat-overflow says so when it can see the NULL path). */
TT_API const char *tt_error(const tt_ctx *ctx);
TT_API tt_status   tt_ctx_status(const tt_ctx *ctx);
TT_API void        tt_clear_error(tt_ctx *ctx);
/* Threads the context's kernels use (1 with TT_NO_THREADS). Results are bitwise the same
   for every thread count: work is split into tasks that do not depend on it. */
TT_API int         tt_ctx_num_threads(const tt_ctx *ctx);
/* The vector instructions the context's kernels run: "avx512", "avx2", "neon" or "scalar"
   (plain C). Chosen from the CPU when the context is made, capped by tt_ctx_desc.isa or the
   TT_ISA environment variable; no compiler flag is needed. NULL for a NULL ctx. */
TT_API const char *tt_ctx_isa(const tt_ctx *ctx);
/* Bytes of arena memory in use (allocations, headers and guards). */
TT_API size_t      tt_ctx_used(const tt_ctx *ctx);
/* With debug_guards: check every guard region; false (and a TT_ERR_CORRUPT error naming
   the allocation) when something wrote outside its tensor. Always true without guards. */
TT_API bool        tt_ctx_check_guards(tt_ctx *ctx);

/* ---- memory scopes ------------------------------------------------------
   Everything allocated after tt_scope_begin is freed at once by tt_scope_end, so a loop of
   eager calls runs in constant memory. Tensors made inside the scope are invalid after it.
   Scopes nest: ending one frees what the scopes opened inside it held too. A scope may be
   ended again (a loop that resets to it). Ending a scope of another context, or one whose
   memory an enclosing scope's end gave back, is an error that frees nothing. */
TT_API tt_scope    tt_scope_begin(tt_ctx *ctx);
TT_API void        tt_scope_end(tt_ctx *ctx, tt_scope scope);

/* ---- creation -----------------------------------------------------------
   shape points to ndim sizes (ndim 0 makes a scalar; shape may then be NULL).
   New tensors are contiguous, row-major, and owned by ctx. */
TT_API tt_tensor  *tt_empty(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape);  /* uninitialized */
TT_API tt_tensor  *tt_zeros(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape);
TT_API tt_tensor  *tt_ones(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape);
TT_API tt_tensor  *tt_full(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, double value);
/* A 0-d f32 tensor holding value. */
TT_API tt_tensor  *tt_scalar(tt_ctx *ctx, float value);
/* [start, stop) by step, like torch.arange: ceil((stop-start)/step) elements. */
TT_API tt_tensor  *tt_arange(tt_ctx *ctx, tt_dtype dtype, double start, double stop, double step);
/* steps f32 values from start to end inclusive, like torch.linspace. */
TT_API tt_tensor  *tt_linspace(tt_ctx *ctx, double start, double end, int64_t steps);
/* [n, m] with ones on the diagonal. */
TT_API tt_tensor  *tt_eye(tt_ctx *ctx, tt_dtype dtype, int64_t n, int64_t m);
/* Copy numel(shape) elements of dtype from data into a new tensor. */
TT_API tt_tensor  *tt_from_data(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, const void *data);
/* Index data from int64_t (PyTorch's index dtype): a new i32 tensor; TT_ERR_INDEX naming the
   first value that does not fit in int32_t. */
TT_API tt_tensor  *tt_from_int64(tt_ctx *ctx, int ndim, const int64_t *shape, const int64_t *data);
/* Wrap user memory (contiguous, row-major) without copying; the user keeps it alive. */
TT_API tt_tensor  *tt_wrap(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, void *data);
/* Counter-based random numbers: element i depends only on (seed, i), so the same seed gives
   the same f32 values on every machine, compiler and thread count.
   tt_rand: uniform in [0,1); tt_randn: standard normal (Box-Muller). */
TT_API tt_tensor  *tt_rand(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape);
TT_API tt_tensor  *tt_randn(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape);

/* ---- access -------------------------------------------------------------- */
TT_API bool        tt_is_contiguous(const tt_tensor *t);
/* The four functions below hand tensor values to C. While tracing, reading a traced tensor
   this way records a warning with the call site (the macros pass __FILE__ and __LINE__):
   the value becomes a constant of the graph and C control flow on it is not captured. */
/* Pointer to element (0,...,0); for contiguous tensors the whole data in order. */
TT_API void       *(tt_data)(const tt_tensor *t);
/* Value of a one-element tensor as float; NaN and an error otherwise. */
TT_API float       (tt_item)(tt_ctx *ctx, const tt_tensor *t);
/* Copy all elements, in row-major order, converted to f32, into dst (n must equal numel). */
TT_API tt_status   (tt_copy_to_f32)(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n);
/* Element at index idx (t->ndim entries, negative counts from the end), as f32. */
TT_API float       (tt_get)(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx);
TT_API void       *tt_data_at(const tt_tensor *t, const char *file, int line);
TT_API float       tt_item_at(tt_ctx *ctx, const tt_tensor *t, const char *file, int line);
TT_API tt_status   tt_copy_to_f32_at(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n, const char *file, int line);
TT_API float       tt_get_at(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx, const char *file, int line);
#define tt_data(t)                   tt_data_at((t), __FILE__, __LINE__)
#define tt_item(ctx, t)              tt_item_at((ctx), (t), __FILE__, __LINE__)
#define tt_copy_to_f32(ctx, t, d, n) tt_copy_to_f32_at((ctx), (t), (d), (n), __FILE__, __LINE__)
#define tt_get(ctx, t, idx)          tt_get_at((ctx), (t), (idx), __FILE__, __LINE__)
/* True when the two shapes are equal. */
TT_API bool        tt_same_shape(const tt_tensor *a, const tt_tensor *b);

/* ---- views (no copy; the result shares storage with x) ------------------
   Axes may be negative: -1 is the last axis. */
/* New shape with the same elements; one size may be -1 (inferred). Like PyTorch's reshape:
   a view when the strides can express the new shape, else a contiguous copy. tt_view is
   the view-only form: it fails (suggesting tt_contiguous) where a copy would be needed. */
TT_API tt_tensor  *tt_reshape(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape);
TT_API tt_tensor  *tt_view(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape);
/* Reorder the axes: result axis i is x axis perm[i] (perm has x->ndim entries). */
TT_API tt_tensor  *tt_permute(tt_ctx *ctx, tt_tensor *x, const int *perm);
TT_API tt_tensor  *tt_transpose(tt_ctx *ctx, tt_tensor *x, int axis0, int axis1);
/* Elements start, start+step, ... < stop on one axis (Python rules: negative start/stop
   count from the end and are clamped; step >= 1). */
TT_API tt_tensor  *tt_slice(tt_ctx *ctx, tt_tensor *x, int axis, int64_t start, int64_t stop, int64_t step);
/* Broadcast size-1 axes (and new leading axes) to shape; -1 keeps a size. Stride 0. */
TT_API tt_tensor  *tt_expand(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape);
/* Remove axis if its size is 1 (otherwise x unchanged, as in PyTorch). */
TT_API tt_tensor  *tt_squeeze(tt_ctx *ctx, tt_tensor *x, int axis);
/* Insert a size-1 axis at position axis (in [-ndim-1, ndim]). */
TT_API tt_tensor  *tt_unsqueeze(tt_ctx *ctx, tt_tensor *x, int axis);
/* Merge axes start..end (inclusive) into one; like tt_reshape, a view where the strides
   allow, else a copy (torch.flatten). */
TT_API tt_tensor  *tt_flatten(tt_ctx *ctx, tt_tensor *x, int start_axis, int end_axis);
/* x itself when contiguous, else a contiguous copy. */
TT_API tt_tensor  *tt_contiguous(tt_ctx *ctx, tt_tensor *x);
/* Always a new contiguous copy. */
TT_API tt_tensor  *tt_clone(tt_ctx *ctx, tt_tensor *x);

/* ---- unary elementwise: result f32, same shape as x ---------------------- */
TT_API tt_tensor  *tt_neg(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_abs(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_sign(tt_ctx *ctx, tt_tensor *x);         /* -1, 0 or 1 */
TT_API tt_tensor  *tt_exp(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_log(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_sqrt(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_rsqrt(tt_ctx *ctx, tt_tensor *x);        /* 1/sqrt(x) */
TT_API tt_tensor  *tt_reciprocal(tt_ctx *ctx, tt_tensor *x);   /* 1/x */
TT_API tt_tensor  *tt_sin(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_cos(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_tanh(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_sigmoid(tt_ctx *ctx, tt_tensor *x);      /* 1/(1+exp(-x)) */
TT_API tt_tensor  *tt_relu(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_leaky_relu(tt_ctx *ctx, tt_tensor *x, float slope);  /* x<0: slope*x */
TT_API tt_tensor  *tt_elu(tt_ctx *ctx, tt_tensor *x, float alpha);         /* x<0: alpha*(exp(x)-1) */
TT_API tt_tensor  *tt_gelu(tt_ctx *ctx, tt_tensor *x);         /* x*0.5*(1+erf(x/sqrt 2)) */
TT_API tt_tensor  *tt_gelu_tanh(tt_ctx *ctx, tt_tensor *x);    /* 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) */
TT_API tt_tensor  *tt_silu(tt_ctx *ctx, tt_tensor *x);         /* x*sigmoid(x) */
TT_API tt_tensor  *tt_hardswish(tt_ctx *ctx, tt_tensor *x);    /* x*min(max(x+3,0),6)/6 (MobileNetV3) */
TT_API tt_tensor  *tt_softplus(tt_ctx *ctx, tt_tensor *x);     /* log(1+exp(x)); x for x>20 (PyTorch) */
TT_API tt_tensor  *tt_erf(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_floor(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_ceil(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_round(tt_ctx *ctx, tt_tensor *x);        /* halves to even, like torch.round */
TT_API tt_tensor  *tt_clamp(tt_ctx *ctx, tt_tensor *x, float lo, float hi); /* min(max(x,lo),hi), as PyTorch */
TT_API tt_tensor  *tt_pow_scalar(tt_ctx *ctx, tt_tensor *x, float exponent);

/* ---- binary elementwise with NumPy broadcasting: result f32 --------------
   Shapes are aligned from the last axis; sizes must match or one must be 1. */
TT_API tt_tensor  *tt_add(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_sub(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_mul(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_div(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_pow(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_atan2(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);   /* atan2(a, b): the angle of (b, a) */
TT_API tt_tensor  *tt_maximum(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_minimum(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
/* Scalar forms: x op s. */
TT_API tt_tensor  *tt_add_scalar(tt_ctx *ctx, tt_tensor *x, float s);
TT_API tt_tensor  *tt_sub_scalar(tt_ctx *ctx, tt_tensor *x, float s);
TT_API tt_tensor  *tt_mul_scalar(tt_ctx *ctx, tt_tensor *x, float s);
TT_API tt_tensor  *tt_div_scalar(tt_ctx *ctx, tt_tensor *x, float s);
/* Comparisons (broadcasting): result bool. */
TT_API tt_tensor  *tt_eq(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_ne(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_lt(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_le(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_gt(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_ge(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
/* Logical ops treat nonzero as true (any dtype); result bool. */
TT_API tt_tensor  *tt_logical_and(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_logical_or(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_logical_not(tt_ctx *ctx, tt_tensor *x);
/* cond ? a : b elementwise, all three broadcast together; cond must be bool. The result has
   the dtype of a and b when they share one, else f32. The vectorized form of an `if`. */
TT_API tt_tensor  *tt_where(tt_ctx *ctx, tt_tensor *cond, tt_tensor *a, tt_tensor *b);
/* Convert to dtype (round-to-nearest-even for f16/bf16; toward zero, saturating, for i32;
   nonzero -> 1 for bool). Casting to the same dtype returns a contiguous copy. */
TT_API tt_tensor  *tt_cast(tt_ctx *ctx, tt_tensor *x, tt_dtype dtype);

/* ---- reductions ----------------------------------------------------------
   axes: n_axes axes to reduce (negative allowed, no repeats); n_axes 0 reduces all axes.
   A 0-d tensor takes axis 0 or -1 as PyTorch does, here and in the arg* ops, softmax,
   squeeze, unsqueeze, flatten and transpose; other axes are errors.
   keepdim keeps reduced axes as size 1. Results are f32 (arg* give i32). */
TT_API tt_tensor  *tt_sum(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_mean(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_max(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_min(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_prod(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
/* Variance / standard deviation with Bessel-style correction: divide by max(0, N - correction). */
TT_API tt_tensor  *tt_var(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim);
TT_API tt_tensor  *tt_std(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim);
/* Index (i32) of the largest / smallest value along one axis; the first one on ties. */
TT_API tt_tensor  *tt_argmax(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim);
TT_API tt_tensor  *tt_argmin(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim);
/* Numerically stable (the row maximum is subtracted first). */
TT_API tt_tensor  *tt_softmax(tt_ctx *ctx, tt_tensor *x, int axis);
TT_API tt_tensor  *tt_log_softmax(tt_ctx *ctx, tt_tensor *x, int axis);

/* ---- normalization -------------------------------------------------------- */
/* Normalize over the last n_dims axes: (x-mean)/sqrt(var+eps)*weight+bias (biased var).
   weight and bias have the shape of those axes, and each may be NULL. */
TT_API tt_tensor  *tt_layer_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, tt_tensor *bias, float eps);
/* x/sqrt(mean(x^2)+eps)*weight over the last n_dims axes; weight may be NULL. */
TT_API tt_tensor  *tt_rms_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, float eps);
/* Inference batch norm over axis 1 of x [N,C,...]: (x-mean)/sqrt(var+eps)*weight+bias,
   with running mean and var [C]; weight and bias [C] may be NULL. */
TT_API tt_tensor  *tt_batch_norm(tt_ctx *ctx, tt_tensor *x, tt_tensor *mean, tt_tensor *var,
                                 tt_tensor *weight, tt_tensor *bias, float eps);
/* x [N,C,...]: normalize each of `groups` channel groups per sample; weight, bias [C] or NULL. */
TT_API tt_tensor  *tt_group_norm(tt_ctx *ctx, tt_tensor *x, int groups, tt_tensor *weight, tt_tensor *bias, float eps);

/* ---- linear algebra -------------------------------------------------------- */
/* torch.matmul: 1-D x 1-D is a dot product (0-d result); 2-D x 2-D a matrix product;
   a 1-D operand gets a size-1 axis prepended (a) or appended (b) and then removed;
   N-D operands are batches of matrices with broadcast batch axes. */
TT_API tt_tensor  *tt_matmul(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
/* x [..., in] · weight[out, in]ᵀ + bias[out] -> [..., out]; bias may be NULL. */
TT_API tt_tensor  *tt_linear(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias);

/* ---- convolution and pooling (NCHW) --------------------------------------- */
/* Per-axis convolution settings, one entry per spatial axis in order (1-D: length; 2-D:
   height, width; 3-D: depth, height, width); entries past the spatial axes are ignored. */
typedef struct tt_conv_params {
    int stride[3];          /* >= 1 */
    int padding[3];         /* zeros added on both sides, >= 0 */
    int dilation[3];        /* >= 1 */
    int groups;             /* >= 1; C_in and C_out divisible by it (groups == C_in: depthwise) */
    int output_padding[3];  /* transposed convolution only: extra output cells on the far side,
                               0 <= output_padding < max(stride, dilation) (PyTorch's rule) */
} tt_conv_params;
/* x [N,Cin,H,W], weight [Cout,Cin/groups,kh,kw], bias [Cout] or NULL -> [N,Cout,OH,OW],
   OH = (H + 2*pad - dil*(kh-1) - 1)/stride + 1. Same stride/padding/dilation on both axes. */
TT_API tt_tensor  *tt_conv2d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                             int stride, int padding, int dilation, int groups);
TT_API tt_tensor  *tt_conv2d_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                const tt_conv_params *p);
/* x [N,Cin,L], weight [Cout,Cin/groups,k], bias [Cout] or NULL -> [N,Cout,OL]. */
TT_API tt_tensor  *tt_conv1d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                             int stride, int padding, int dilation, int groups);
/* x [N,Cin,D,H,W], weight [Cout,Cin/groups,kd,kh,kw], bias [Cout] or NULL -> [N,Cout,OD,OH,OW]. */
TT_API tt_tensor  *tt_conv3d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                             int stride, int padding, int dilation, int groups);
/* Any of the three by x's rank (3, 4 or 5 dims), per-axis settings from p. */
TT_API tt_tensor  *tt_conv_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                              const tt_conv_params *p);
/* Transposed convolution (the gradient of conv with respect to its input, as
   torch.nn.functional.conv_transpose*d): x [N,Cin,(D,H,)L], weight [Cin,Cout/groups,k...],
   bias [Cout] or NULL -> [N,Cout,O...] with O = (I-1)*stride - 2*padding + dilation*(k-1)
   + output_padding + 1 per axis. */
TT_API tt_tensor  *tt_conv_transpose1d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                       int stride, int padding, int output_padding, int dilation, int groups);
TT_API tt_tensor  *tt_conv_transpose2d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                       int stride, int padding, int output_padding, int dilation, int groups);
TT_API tt_tensor  *tt_conv_transpose_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                        const tt_conv_params *p);
/* Square window `kernel`, stride (0 means = kernel), padding (<= kernel/2); floor mode.
   Max pooling ignores padding; average pooling counts it (PyTorch defaults). */
TT_API tt_tensor  *tt_max_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
TT_API tt_tensor  *tt_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
/* The same over x [N,C,L]. */
TT_API tt_tensor  *tt_max_pool1d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
TT_API tt_tensor  *tt_avg_pool1d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
/* Per-axis pooling settings, one entry per spatial axis in order (as tt_conv_params). */
typedef struct tt_pool_params {
    int  kernel[3];    /* window, >= 1 */
    int  stride[3];    /* 0 = the window */
    int  padding[3];   /* >= 0 and at most half the (dilated) window, as PyTorch */
    int  dilation[3];  /* 0 = 1; only max pooling takes other values */
    bool ceil_mode;    /* output sizes rounded up (a last window must still start inside the
                          input or its left padding), as PyTorch's ceil_mode */
    bool exclude_pad;  /* average pooling divides by the cells of the window inside the input
                          (ONNX's default, count_include_pad=False); false counts the padding too
                          (PyTorch's default). Max pooling never reads padding. */
} tt_pool_params;
/* x [N,C,L], [N,C,H,W] or [N,C,D,H,W] (1-D, 2-D or 3-D pooling by x's rank). */
TT_API tt_tensor  *tt_max_pool_ex(tt_ctx *ctx, tt_tensor *x, const tt_pool_params *p);
TT_API tt_tensor  *tt_avg_pool_ex(tt_ctx *ctx, tt_tensor *x, const tt_pool_params *p);
/* Output [N,C,out_h,out_w]; cell i averages rows floor(i*H/out_h) .. ceil((i+1)*H/out_h)-1. */
TT_API tt_tensor  *tt_adaptive_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w);
/* Nearest-neighbour resize to [N,C,out_h,out_w]: source row floor(i*H/out_h) (PyTorch 'nearest'). */
TT_API tt_tensor  *tt_upsample_nearest(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w);
/* By scale factors (> 0, finite), as PyTorch's scale_factor: output floor(H*scale_h) rows;
   output row i reads row min(floor(i * (float)(1/scale_h)), H-1), except where PyTorch
   keeps its special cases: i when the output has H rows, i/2 when it has 2H. */
TT_API tt_tensor  *tt_upsample_nearest_scale(tt_ctx *ctx, tt_tensor *x, float scale_h, float scale_w);
/* Bilinear resize (PyTorch 'bilinear'). Output row i samples source row position
   s = (i+0.5)*H/out_h - 0.5 clamped at 0 (align_corners false), or i*(H-1)/(out_h-1)
   (align_corners true; 0 when out_h is 1), between rows floor(s) and floor(s)+1 (the last
   row repeats); columns the same. An axis that keeps its size is copied (as PyTorch). */
TT_API tt_tensor  *tt_upsample_bilinear(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w, bool align_corners);
/* By scale factors: output floor(H*scale_h); without align_corners the position uses
   1/scale_h (as float) in place of H/out_h, as PyTorch with scale_factor. */
TT_API tt_tensor  *tt_upsample_bilinear_scale(tt_ctx *ctx, tt_tensor *x, float scale_h, float scale_w, bool align_corners);

/* ---- shape and indexing (results are new contiguous tensors unless said) --- */
/* Join n tensors along axis; all other sizes and the dtypes must match. */
TT_API tt_tensor  *tt_concat(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis);
/* Join n same-shape tensors along a new axis. */
TT_API tt_tensor  *tt_stack(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis);
/* Views of consecutive pieces of split_size along axis (the last may be smaller).
   Writes at most max_out views to out; returns the number of pieces, or -1 on error. */
TT_API int         tt_split(tt_ctx *ctx, tt_tensor *x, int64_t split_size, int axis, tt_tensor **out, int max_out);
/* Split into `chunks` pieces of ceil(size/chunks) (torch.chunk: may give fewer pieces). */
TT_API int         tt_chunk(tt_ctx *ctx, tt_tensor *x, int chunks, int axis, tt_tensor **out, int max_out);
/* Constant padding, torch.nn.functional.pad order: pads = {last_before, last_after,
   second_last_before, ...}, n_pads even and <= 2*ndim; entries >= 0; all-zero pads copy. */
TT_API tt_tensor  *tt_pad(tt_ctx *ctx, tt_tensor *x, const int64_t *pads, int n_pads, float value);
/* Padding modes of torch.nn.functional.pad. REFLECT mirrors without repeating the edge
   (pads < the axis size), REPLICATE repeats the edge (a non-empty axis), CIRCULAR wraps
   around (pads <= the axis size); value is used by CONSTANT only. */
typedef enum tt_pad_mode {
    TT_PAD_CONSTANT  = 0,
    TT_PAD_REFLECT   = 1,
    TT_PAD_REPLICATE = 2,
    TT_PAD_CIRCULAR  = 3
} tt_pad_mode;
TT_API tt_tensor  *tt_pad_ex(tt_ctx *ctx, tt_tensor *x, const int64_t *pads, int n_pads, tt_pad_mode mode, float value);
/* torch.gather: out[i][j][k] = x[i][index[i][j][k]][k] (axis 1); index is i32 with the
   same ndim as x and sizes <= x's on the other axes; result has index's shape. */
TT_API tt_tensor  *tt_gather(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index);
/* Pick entries of the 1-D i32 index along axis. */
TT_API tt_tensor  *tt_index_select(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index);
/* Rows of weight [V,D] picked by i32 indices of any shape -> [..., D]. */
TT_API tt_tensor  *tt_embedding(tt_ctx *ctx, tt_tensor *weight, tt_tensor *indices);
/* Repeat each element `repeats` times along axis. */
TT_API tt_tensor  *tt_repeat_interleave(tt_ctx *ctx, tt_tensor *x, int64_t repeats, int axis);
/* Reverse the order along each of n axes. */
TT_API tt_tensor  *tt_flip(tt_ctx *ctx, tt_tensor *x, const int *axes, int n);
/* torch.tile: repeat the whole tensor reps[i] times along each axis (reps aligned right). */
TT_API tt_tensor  *tt_tile(tt_ctx *ctx, tt_tensor *x, const int64_t *reps, int n);
/* The shape of x as a 1-D i32 tensor of ndim entries (torch._shape_as_tensor). */
TT_API tt_tensor  *tt_shape_as_tensor(tt_ctx *ctx, tt_tensor *x);

/* ---- attention -------------------------------------------------------------- */
/* softmax(q·kᵀ·scale + mask)·v. q [...,L,E], k [...,S,E], v [...,S,Ev] -> [...,L,Ev]
   (batch axes broadcast). mask may be NULL, bool (true = may attend) or float (added),
   broadcastable to [...,L,S]. causal masks j > i. scale <= 0 means 1/sqrt(E).
   A row with nothing to attend to gives NaN, as in PyTorch. */
TT_API tt_tensor  *tt_scaled_dot_product_attention(tt_ctx *ctx, tt_tensor *q, tt_tensor *k, tt_tensor *v,
                                                   tt_tensor *mask, bool causal, float scale);

/* ---- safetensors weights -----------------------------------------------------
   Reads the format PyTorch and Hugging Face export weights in: 8 bytes of header length
   (little-endian), a JSON header naming every tensor (dtype, shape, data_offsets), then
   the bytes. Opening checks the whole header at once: strict JSON, known dtypes, sizes
   that match, byte ranges that neither overlap nor leave holes. A malformed, truncated or
   hostile file is a TT_ERR_FORMAT error saying what is wrong, and takes no memory.
   Everything lives in ctx's arena (there is no close: it goes with the context, or with
   a scope opened before), so it works with TT_NO_MALLOC too. Tensors of more than
   TT_MAX_DIMS dims are refused at open (TT_ERR_UNSUPPORTED). Big-endian hosts are refused. */
typedef struct tt_safetensors tt_safetensors;
typedef struct tt_safetensors_entry {
    const char *name;          /* UTF-8, NUL-terminated */
    const char *file_dtype;    /* as the file says: "F32", "I64", "F64", ... */
    tt_dtype    dtype;         /* what tt_safetensors_tensor makes: I64 -> TT_I32; TT_DTYPE_COUNT when tinytrace does not read it */
    int         ndim;          /* at most TT_MAX_DIMS (open refuses more) */
    int64_t     shape[TT_MAX_DIMS];  /* ndim entries */
    size_t      offset, nbytes;      /* its bytes in the file's data buffer */
} tt_safetensors_entry;
/* Open a safetensors file held in memory. The tensors of F32, F16, BF16 and I32 entries
   point into buf when it is aligned for them, so buf must outlive them, and tensors of a
   buffer you gave as const must not be written. NULL on error (TT_ERR_FORMAT: the bytes). */
TT_API tt_safetensors *tt_safetensors_open_memory(tt_ctx *ctx, const void *buf, size_t size);
#ifndef TT_NO_STDIO
/* The same for a file: its bytes are read into ctx's arena (TT_ERR_IO when it cannot be read). */
TT_API tt_safetensors *tt_safetensors_open(tt_ctx *ctx, const char *path);
#endif
/* Tensors in the file (0 for NULL); entries are numbered in header order. */
TT_API int         tt_safetensors_count(const tt_safetensors *st);
/* Copy entry i's description (name, dtypes, shape, byte range) to *entry; false if out of range. */
TT_API bool        tt_safetensors_entry_at(const tt_safetensors *st, int i, tt_safetensors_entry *entry);
/* The index of the tensor called name, or -1 (not an error: a query). */
TT_API int         tt_safetensors_find(const tt_safetensors *st, const char *name);
/* Tensor i, made in the file's context: F32/F16/BF16/I32 as they are (no copy when the
   bytes are aligned), I64 narrowed to a new I32 tensor (TT_ERR_INDEX when a value does not
   fit); other dtypes are TT_ERR_UNSUPPORTED. */
TT_API tt_tensor  *tt_safetensors_tensor(tt_safetensors *st, int i);
/* The same by name (TT_ERR_ARG when the file has no such tensor). */
TT_API tt_tensor  *tt_safetensors_get(tt_safetensors *st, const char *name);
/* The "__metadata__" value of key, or NULL when the file has none. */
TT_API const char *tt_safetensors_metadata(const tt_safetensors *st, const char *key);

/* ---- tracing and graphs --------------------------------------------------------
   Tracing records, while the eager code runs, every op into a graph that can be run
   again on new inputs of the same shapes (like torch.jit.trace):
       tt_trace_begin(c);
       tt_trace_input(c, x, "x");                // x: an example input made before in c
       y = model(c, x);                          // eager ops: compute now and record
       tt_graph *g = tt_trace_end(c, &y, 1);     // the graph owns its memory
       tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
       tt_graph_run(g, &x2, 1);  out = tt_graph_output(g, 0);
   Tensors made before the trace and used in it are parameters: the graph reads them at
   every run, so keep them alive (or compile with TT_PASS_FREEZE to copy them in).
   Tensors made during the trace from C values (tt_full, tt_add_scalar's scalar, ...) are
   constants, copied into the graph. Tracing needs the heap (not with TT_NO_MALLOC). */
typedef struct tt_graph tt_graph;

/* Compile modes, as torch.compile's. MAX_AUTOTUNE is DEFAULT plus a choice for each large 3x3
   stride-1 convolution between direct sums and Winograd F(2x2, 3x3) or F(4x4, 3x3), timed at
   compile (tt_conv_algo): Winograd is within float rounding of eager, not bitwise (README, Modes). */
typedef enum tt_mode {
    TT_MODE_DEFAULT          = 0,
    TT_MODE_REDUCE_OVERHEAD  = 1,   /* parameters bound at compile, inputs by tt_graph_bind: a run
                                       with no inputs is the kernels and nothing else */
    TT_MODE_MAX_AUTOTUNE     = 2
} tt_mode;

/* Optimization passes, each can be switched off (for teaching, or to find a bug). */
typedef enum tt_pass {
    TT_PASS_DCE       = 1u << 0,    /* dead-code elimination: drop what no output needs */
    TT_PASS_CSE       = 1u << 1,    /* common subexpressions: one node for equal calls (and constants) */
    TT_PASS_CONST_FOLD= 1u << 2,    /* ops on constants computed at compile time */
    TT_PASS_SIMPLIFY  = 1u << 3,    /* x+0, x*1, zero pads, identity views, double transposes, same-dtype casts */
    TT_PASS_FOLD_BN   = 1u << 4,    /* batch_norm after conv/linear folded into its weights (needs constants) */
    TT_PASS_EPILOGUE  = 1u << 5,    /* with FUSE: matmul/linear/conv + the elementwise ops after it, one node */
    TT_PASS_FUSE      = 1u << 6,    /* elementwise chains become one node that reads and writes once */
    TT_PASS_ALL       = 0xFFFFu,    /* every pass above (not FREEZE) */
    TT_PASS_FREEZE    = 1u << 16    /* copy the parameters into the graph as constants (torch.jit.freeze):
                                       then they fold, and later changes to them are not seen */
} tt_pass;

/* How a TT_MODE_MAX_AUTOTUNE compile runs the 3x3 convolutions of stride 1, no dilation and
   groups 1 (tt_graph_set_conv_algo, before compiling); every other mode sums directly. The
   choices are saved with the graph (tt_graph_save), so a loaded graph runs the same ones. */
typedef enum tt_conv_algo {
    TT_CONV_MEASURED     = 0,       /* the default: those of 16+ channels each side and 16M+ multiply-adds
                                       are timed by direct sums, F(2x2, 3x3) and F(4x4, 3x3) at compile
                                       (on its threads), each keeps the fastest; the others sum directly */
    TT_CONV_RULE         = 1,       /* no timing: F(2x2, 3x3) for the large ones, by a fixed rule measured
                                       on one machine; the same choice everywhere */
    TT_CONV_DIRECT       = 2,       /* all by direct sums: eager's bits */
    TT_CONV_WINOGRAD_2X2 = 3,       /* all by F(2x2, 3x3), whatever their size (tests, studies) */
    TT_CONV_WINOGRAD_4X4 = 4        /* all by F(4x4, 3x3) */
} tt_conv_algo;

/* Debug switches (tt_graph_set_debug). */
typedef enum tt_debug {
    TT_DEBUG_POISON = 1u << 0,      /* fill each arena buffer with NaN bytes once its last reader ran */
    TT_DEBUG_PASSES = 1u << 1       /* tt_graph_compile prints the graph after each pass to stdout
                                       (set it before compiling; nothing with TT_NO_STDIO) */
} tt_debug;

/* One pass of the last compile, in the order they ran, and the nodes it removed. */
typedef struct tt_pass_stat {
    const char *name;               /* "simplify", "cse", ... */
    int         nodes_removed;
} tt_pass_stat;

/* Counts and sizes of a graph, before and after compilation. */
typedef struct tt_graph_stats {
    int    nodes_traced;            /* nodes on the tape */
    int    nodes;                   /* nodes after the passes */
    size_t arena_bytes;             /* activations, with buffers reused (0 before compile) */
    size_t unplanned_bytes;         /* the same without reuse: every value its own buffer */
    size_t scratch_bytes;           /* temporaries of the kernels, reused by every node */
    size_t constant_bytes;          /* constants copied into the graph */
    int    fused_nodes;             /* fused elementwise nodes */
    int    fused_ops;               /* ops inside them (longest chain: max_fused_ops) */
    int    max_fused_ops;
    int    winograd_2x2;            /* convolutions that run by Winograd F(2x2, 3x3) (TT_MODE_MAX_AUTOTUNE) */
    int    winograd_4x4;            /* ... by F(4x4, 3x3) */
    int    n_passes;                /* the passes the last compile ran (const_fold may run twice) */
    tt_pass_stat passes[12];
    const char *isa;                /* the ISA its kernels run: the tracing context's (tt_ctx_isa) */
} tt_graph_stats;

/* Start recording ops of ctx. Fails if a trace is already running (no nesting). */
TT_API tt_status   tt_trace_begin(tt_ctx *ctx);
/* Mark t (made in ctx before the trace began) as the next graph input; returns t. NULL t
   returns NULL with no new error (an earlier failure is kept). */
TT_API tt_tensor  *tt_trace_input(tt_ctx *ctx, tt_tensor *t, const char *name);
TT_API bool        tt_is_tracing(const tt_ctx *ctx);
/* Stop recording and build a graph computing outputs from the inputs. The graph owns its
   memory: ctx (and its scopes) may be released right after. NULL and an error in ctx when
   an output was not produced in the trace or an op of the trace failed. */
TT_API tt_graph   *tt_trace_end(tt_ctx *ctx, tt_tensor *const *outputs, int n_outputs);
/* Run the passes in `passes` (TT_PASS_* bits), plan memory and size every buffer. */
TT_API tt_status   tt_graph_compile(tt_graph *g, tt_mode mode, unsigned passes);
/* Run on inputs with the traced shapes and dtypes (compiles first if needed). After
   compilation a run allocates nothing. */
TT_API tt_status   tt_graph_run(tt_graph *g, tt_tensor *const *inputs, int n_inputs);
/* Check and bind inputs once; tt_graph_run(g, NULL, 0) then runs on them with no per-run
   checks (REDUCE_OVERHEAD). Keep the bound tensors alive; write new values into them. */
TT_API tt_status   tt_graph_bind(tt_graph *g, tt_tensor *const *inputs, int n_inputs);
/* Output i of the last run; valid until the next run or tt_graph_destroy. */
TT_API tt_tensor  *tt_graph_output(tt_graph *g, int i);
TT_API int         tt_graph_num_inputs(const tt_graph *g);
/* Input i as traced: its name ("x", or "input0" from tt_trace) or NULL for a bad i; its dtype,
   ndim and sizes (shape has room for TT_MAX_DIMS), for a program that only loaded the graph.
   tt_graph_input_shape returns false for a bad i (and writes nothing). */
TT_API const char *tt_graph_input_name(const tt_graph *g, int i);
TT_API bool        tt_graph_input_shape(const tt_graph *g, int i, tt_dtype *dtype, int *ndim, int64_t *shape);
TT_API int         tt_graph_num_outputs(const tt_graph *g);
TT_API int         tt_graph_num_nodes(const tt_graph *g);
/* The graph's first error (a run with wrong shapes, ...), or NULL. */
TT_API const char *tt_graph_error(const tt_graph *g);
TT_API tt_status   tt_graph_status(const tt_graph *g);
TT_API void        tt_graph_clear_error(tt_graph *g);
/* Tracer warnings: "file:line: tt_item read a traced value ...". */
TT_API int         tt_graph_num_warnings(const tt_graph *g);
TT_API const char *tt_graph_warning(const tt_graph *g, int i);
TT_API tt_graph_stats tt_graph_get_stats(const tt_graph *g);
/* TT_DEBUG_* bits: with POISON, a wrong memory plan shows up as NaN in the outputs. */
TT_API void        tt_graph_set_debug(tt_graph *g, unsigned flags);
/* The choice of convolution algorithms of the next TT_MODE_MAX_AUTOTUNE compile (TT_CONV_MEASURED
   unless set). TT_ERR_ARG for an unknown value. */
TT_API tt_status   tt_graph_set_conv_algo(tt_graph *g, tt_conv_algo algo);
/* What tt_graph_check found. */
typedef struct tt_check_report {
    bool        ok;                 /* every compared value within tolerance */
    int         compared;           /* values compared */
    int         node;               /* first diverging traced node (its id in the printed graph), or -1 */
    const char *op;                 /* its op ("linear", "fused" member ...) */
    const char *eager_op;           /* the public function that recorded it ("tt_linear") */
    double      max_abs, max_rel;   /* its largest absolute and relative error */
    char        message[256];
} tt_check_report;
/* Runs the compiled graph and the uncompiled tape side by side on inputs and reports the
   first traced node whose value (where the compiled graph still has it) differs by more
   than atol + rtol*|eager|. For finding what a pass or kernel changed. Allocates. */
TT_API tt_status   tt_graph_check(tt_graph *g, tt_tensor *const *inputs, int n_inputs, double atol, double rtol,
                                  tt_check_report *report);
/* Graphviz text ("dot -Tsvg"); fused nodes are drawn as clusters of their ops. Returns
   the length it needs, like tt_graph_str. */
TT_API size_t      tt_graph_dot(const tt_graph *g, char *buf, size_t size);
/* The graph as text, one node per line ("%3 = add(%1, %2) : f32[2,3]"); returns the length
   it needs (write at most size bytes, NUL included). */
TT_API size_t      tt_graph_str(const tt_graph *g, char *buf, size_t size);
TT_API void        tt_graph_destroy(tt_graph *g);

/* A forward function: reads inputs, writes up to max_out results to out, returns how many
   (negative on error). Everything it computes must come from ops on ctx. */
typedef int (*tt_forward_fn)(tt_ctx *ctx, tt_tensor *const *inputs, int n_inputs, tt_tensor **out, int max_out, void *user);
/* Trace fn on example inputs (made in ctx, before the call): a graph, not yet compiled.
   The trace's intermediates are freed; the inputs are named "input0", "input1", ... */
TT_API tt_graph   *tt_trace(tt_ctx *ctx, tt_forward_fn fn, void *user, tt_tensor *const *inputs, int n_inputs);

/* The torch.compile experience: tt_compiled_run traces and compiles fn the first time it
   sees a set of input shapes and dtypes, and reuses that graph afterwards. At most
   max_graphs shape sets (0 means 8, at most 64) are compiled; past that, a run is an error.
   NULL for a NULL fn, a negative max_graphs, an unknown mode or unknown pass bits. */
typedef struct tt_compiled tt_compiled;
TT_API tt_compiled *tt_compiled_create(tt_forward_fn fn, void *user, tt_mode mode, unsigned passes, int max_graphs);
TT_API tt_status   tt_compiled_run(tt_compiled *cc, tt_tensor *const *inputs, int n_inputs);
TT_API tt_tensor  *tt_compiled_output(tt_compiled *cc, int i);       /* valid until the next run */
TT_API int         tt_compiled_num_graphs(const tt_compiled *cc);     /* compiles so far */
TT_API const char *tt_compiled_error(const tt_compiled *cc);
TT_API tt_status   tt_compiled_status(const tt_compiled *cc);     /* TT_ERR_ARG for NULL */
TT_API void        tt_compiled_destroy(tt_compiled *cc);

/* ---- saving and loading graphs (.ttg files; docs/FORMAT.md) -------------------
   A graph file holds a graph as it is, like torch.jit.save: compiled, the nodes after the
   passes with their fused programs (it loads ready to run, bitwise like the saved graph, and
   is not compiled again); else the trace (compiled when it first runs). Parameters are saved
   with their current values and load as the graph's own. Loading checks every byte: a
   truncated, corrupt or hostile file is a TT_ERR_FORMAT error naming what is wrong. */
/* Writes g into buf (at most size bytes); returns the bytes the file needs (0 on error,
   in tt_graph_error), so tt_graph_save_memory(g, NULL, 0) asks for the size. */
TT_API size_t      tt_graph_save_memory(tt_graph *g, void *buf, size_t size);
/* A graph from a file's bytes. Its kernels run with ctx's threads and ISA; its memory comes
   from ctx's allocator, or from ctx's buffer (user memory, TT_NO_MALLOC: no heap needed), and
   it lives until tt_graph_destroy (in a user buffer: keep ctx, and do not end a scope opened
   before the load). When buf is 4-byte aligned (64 is best: cache lines), the graph reads its
   constants from buf in place (a graph in flash runs from flash): then keep buf alive and
   unchanged as long as the graph. NULL and an error in ctx when the bytes are not a valid graph. */
TT_API tt_graph   *tt_graph_load_memory(tt_ctx *ctx, const void *buf, size_t size);
#ifndef TT_NO_STDIO
TT_API tt_status   tt_graph_save(tt_graph *g, const char *path);
/* The same from a file; the graph keeps the file's bytes (its constants are read there). */
TT_API tt_graph   *tt_graph_load(tt_ctx *ctx, const char *path);
#endif

/* ---- exporting graphs as C source (firmware) -----------------------------------
   A compiled graph as two C files, like onnx2c does for ONNX: dir/name.h declares
       int name_run(const float *const *inputs, float *const *outputs, void *arena);
       int name_selftest(void *work);
   with NAME_ARENA_BYTES (the memory name_run works in, 8-byte aligned; the inputs and outputs
   are the caller's contiguous f32 buffers, and none may overlap another or the arena) and each
   input's and output's size; dir/name.c holds the constants as static const arrays (they stay
   in flash) and name_run: one call per node into the header's plain C kernels, each fused
   elementwise chain one loop. name.c compiles tinytrace.h privately (TT_STATIC, and
   TT_NO_THREADS, TT_NO_STDIO, TT_NO_MALLOC, TT_NO_SIMD: its copy links no pthreads, stdio or
   heap): build it with the header on the include path and -ffunction-sections
   -Wl,--gc-sections, and only what name_run calls is linked. Its outputs equal the graph's
   bit for bit where the graph runs the plain C kernels (tt_ctx_desc.isa "scalar"). The arena
   holds every value the graph computes (not the caller's inputs and outputs), reused as the
   graph's plan reuses it; band fusion runs conv -> ReLU -> 2x2 max-pool and conv -> ReLU ->
   global average pool a band of rows at a time, so the convolution's output never exists
   whole. Exported: conv2d, conv1d, pooling, linear, matmul, softmax, reductions and layer/RMS
   norms along the last axes, views, elementwise ops and fused chains, on f32 tensors; other
   nodes are TT_ERR_UNSUPPORTED naming them. The graph must have run once since it was
   compiled. */
#define TT_EXPORT_NO_BANDS    1u   /* every feature map whole (the plain plan) */
#define TT_EXPORT_NO_SELFTEST 2u   /* no name_selftest, no stored outputs */
/* The bytes name_run's arena needs for g exported with flags (0 on error, in tt_graph_error). */
TT_API size_t      tt_graph_export_arena(tt_graph *g, unsigned flags);
#ifndef TT_NO_STDIO
/* Writes dir/name.h and dir/name.c (flags 0: band fusion and name_selftest). */
TT_API tt_status   tt_graph_export_c(tt_graph *g, const char *dir, const char *name);
TT_API tt_status   tt_graph_export_c_flags(tt_graph *g, const char *dir, const char *name, unsigned flags);
#endif

/* ---- GPU (tinytrace_cuda.cu) -------------------------------------------------
   Declared where TT_CUDA is defined; defined in tinytrace_cuda.cu, which is compiled with
   nvcc and linked beside the program (README "GPU"). A compiled graph moves to the GPU
   with tt_graph_to_cuda: its constants are uploaded once and its arena (the same memory
   plan) is one device allocation. tt_graph_run then runs it there on host tensors (inputs
   uploaded, outputs downloaded: tt_graph_output reads them as before);
   tt_graph_run_cuda runs it on device pointers. Every CUDA failure is TT_ERR_BACKEND with
   CUDA's message, in the graph's error (or tt_cuda_error for calls without a graph); a graph
   that could not move stays on the CPU and runs there. Compiling again moves it back. */
#ifdef TT_CUDA
/* The number of CUDA devices (0: none, no driver, or a driver too old: tt_cuda_error says). */
extern int         tt_cuda_device_count(void);
/* "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)" into buf; false (and why) when none. */
extern bool        tt_cuda_device_name(int device, char *buf, size_t size);
/* The last failure of a call that has no graph to hold it ("" when none). */
extern const char *tt_cuda_error(void);
/* Moves compiled g to device (a stream of its own; REDUCE_OVERHEAD: a CUDA graph, captured
   at the first run and replayed after). */
extern tt_status   tt_graph_to_cuda(tt_graph *g, int device);
extern bool        tt_graph_on_cuda(const tt_graph *g);
/* Runs g on device memory: d_inputs[i] holds input i contiguous (tt_graph_input_shape),
   d_outputs[i] receives output i contiguous (NULL: leave it in the arena). Queued on g's
   stream: tt_graph_cuda_sync waits. */
extern tt_status   tt_graph_run_cuda(tt_graph *g, const void *const *d_inputs, void *const *d_outputs);
extern tt_status   tt_graph_cuda_sync(tt_graph *g);
/* Device memory for tt_graph_run_cuda, and copies (bytes; false on failure: tt_cuda_error). */
extern void       *tt_cuda_alloc(size_t bytes);
extern void        tt_cuda_free(void *device_ptr);
extern bool        tt_cuda_upload(void *device_dst, const void *host_src, size_t bytes);
extern bool        tt_cuda_download(void *host_dst, const void *device_src, size_t bytes);
#endif

/* ---- debug ------------------------------------------------------------------ */
/* Write "[2,3]" into buf (always NUL-terminated); returns buf. */
TT_API char       *tt_shape_str(const tt_tensor *t, char *buf, size_t size);
#ifndef TT_NO_STDIO
/* Print dtype, shape and (up to 64) values to stdout. */
TT_API void        tt_print(const tt_tensor *t, const char *name);
/* Print tt_graph_str and the warnings to stdout. */
TT_API void        tt_graph_print(const tt_graph *g);
#endif

#ifdef __cplusplus
}
#endif
#endif /* TINYTRACE_H_INCLUDED */

/* ##########################################################################
 *
 *                            IMPLEMENTATION
 *
 * ########################################################################## */
#if defined(TINYTRACE_IMPLEMENTATION) && !defined(TT__IMPL_DONE)
#define TT__IMPL_DONE 1

/* ==========================================================================
 * >>impl-config   includes and libc overrides
 *
 * The implementation needs only <string.h>, <math.h> and <stdarg.h> (all usable on bare
 * metal), <stdlib.h> for malloc unless TT_NO_MALLOC, <stdio.h> only for tt_print.
 * ========================================================================== */
/* -ffast-math (and -Ofast, -ffinite-math-only) lets the compiler assume that no NaN or
   infinity exists: the NaN checks, the -inf of masked scores and the exact-rounding tricks
   of the vectorized exp and tanh would be optimized into wrong results, and fused graphs
   would no longer equal eager bitwise. Other files of a program may use it; this one not. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "tinytrace: build the file that defines TINYTRACE_IMPLEMENTATION without -ffast-math, -Ofast or -ffinite-math-only (NaN/inf handling and bitwise results depend on IEEE arithmetic)"
#endif

#include <string.h>
#include <math.h>
#include <stdarg.h>
#include <float.h>
#include <time.h>                      /* TT_MODE_MAX_AUTOTUNE's timings */
#ifndef TT_NO_STDIO
#include <stdio.h>
#endif

/* Internal invariants. Firmware builds (TT_NO_STDIO) check none by default: newlib's assert
   would link fiprintf and malloc into an image built without them. Define TT_ASSERT to a hook
   of your own to keep them. */
#ifndef TT_ASSERT
#  ifdef TT_NO_STDIO
#    define TT_ASSERT(c) ((void)0)
#  else
#    include <assert.h>
#    define TT_ASSERT(c) assert(c)
#  endif
#endif

/* Threads: pthreads unless TT_NO_THREADS (or TT_NO_MALLOC: the pool needs the heap). */
#if !defined(TT_NO_THREADS) && !defined(TT_NO_MALLOC)
#include <pthread.h>
#include <unistd.h>
#define TT__HAS_THREADS 1
#else
#define TT__HAS_THREADS 0
#endif

/* With GCC/clang atomics, pool threads spin a little before sleeping (a wake-up through
   the kernel costs microseconds, as much as a small op) and take tasks from a shared
   counter (a thread slowed by another program does not hold the others up). */
#if TT__HAS_THREADS && (defined(__GNUC__) || defined(__clang__))
#define TT__ATOMICS 1
#define TT__SPINS   4000           /* the caller, waiting for the pool's last tasks */
#ifndef TT__IDLE_SPINS
#define TT__IDLE_SPINS 500         /* a worker, waiting for the next job, before it sleeps */
#endif
#if defined(__x86_64__) || defined(__i386__)
#define TT__CPU_RELAX() __builtin_ia32_pause()
#else
#define TT__CPU_RELAX() ((void)0)
#endif
#else
#define TT__ATOMICS 0
#endif

#ifdef TT_NO_MALLOC
#  if defined(TT_MALLOC) || defined(TT_FREE)
#    error "tinytrace: TT_NO_MALLOC and TT_MALLOC/TT_FREE exclude each other"
#  endif
#else
#  if defined(TT_MALLOC) || defined(TT_REALLOC) || defined(TT_FREE)
#    if !(defined(TT_MALLOC) && defined(TT_REALLOC) && defined(TT_FREE))
#      error "tinytrace: define all or none of TT_MALLOC, TT_REALLOC, TT_FREE"
#    endif
#  else
#    include <stdlib.h>
#    define TT_MALLOC(sz, ud)      ((void)(ud), malloc(sz))
#    define TT_REALLOC(p, sz, ud)  ((void)(ud), realloc(p, sz))
#    define TT_FREE(p, ud)         ((void)(ud), free(p))
#  endif
#endif

/* Kernel pointers never alias (outputs are fresh): saying so lets compilers vectorize at -O2. */
#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define TT__RESTRICT __restrict
#else
#define TT__RESTRICT
#endif

/* For code that some translation units do not call (a hook of the white-box tests). */
#if defined(__GNUC__) || defined(__clang__)
#define TT__MAYBE_UNUSED __attribute__((unused))
#else
#define TT__MAYBE_UNUSED
#endif

/* A hint that memory will be read soon (no effect where the compiler has no such builtin). */
#if defined(__GNUC__) || defined(__clang__)
#define TT__PREFETCH(p) __builtin_prefetch(p)
#define TT__PREFETCH_W(p) __builtin_prefetch(p, 1)
#else
#define TT__PREFETCH(p) ((void)(p))
#define TT__PREFETCH_W(p) ((void)(p))
#endif

/* A function whose a*b+c stays two roundings: GCC in its GNU modes (-std=gnu*, the default)
   contracts a product and a sum into one FMA even across statements, which would make a
   fused pair of ops round differently from the two ops run one after the other. clang
   contracts only within one expression unless told otherwise (TT__NO_CONTRACT_BODY). */
#if defined(__GNUC__) && !defined(__clang__)
#define TT__NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define TT__NO_CONTRACT
#endif
#if defined(__clang__)
#define TT__NO_CONTRACT_BODY _Pragma("STDC FP_CONTRACT OFF")
#else
#define TT__NO_CONTRACT_BODY
#endif

/* The hand-written SIMD kernels this build compiles (kernels test these, never __AVX...__).
   With GCC or clang on x86-64, the AVX2 and AVX-512 twins in every build (target attributes;
   the CPU is asked at run time, see >>isa); with other compilers those the flags enable.
   TT_NO_SIMD: none, only the plain-C twins (for firmware and for debugging; the compiler may
   still vectorize plain C on its own). */
#if !defined(TT_NO_SIMD) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define TT__X86_DISPATCH 1
#else
#define TT__X86_DISPATCH 0
#endif
#if !defined(TT_NO_SIMD) && (TT__X86_DISPATCH || defined(__AVX512F__))
#define TT__SIMD_AVX512 1
#else
#define TT__SIMD_AVX512 0
#endif
#if !defined(TT_NO_SIMD) && (TT__X86_DISPATCH || (defined(__AVX2__) && defined(__FMA__)))
#define TT__SIMD_AVX2 1
#else
#define TT__SIMD_AVX2 0
#endif
#if !defined(TT_NO_SIMD) && defined(__aarch64__) && defined(__ARM_NEON)
#define TT__SIMD_NEON 1                /* the aarch64 baseline: every aarch64 CPU has it */
#else
#define TT__SIMD_NEON 0
#endif
#if TT__SIMD_AVX2 || TT__SIMD_AVX512
#include <immintrin.h>
#endif
#if TT__SIMD_NEON
#include <arm_neon.h>
#endif
#if !defined(TT_NO_STDIO)
#include <stdlib.h>                    /* getenv: the TT_ISA variable */
#endif

/* Leaves the upper halves of the vector registers clean before returning to the caller:
   with them dirty, SSE code the caller runs next (glibc's libm, for one) pays a transition
   penalty on every instruction (measured: libm's tanh 20x slower after a tinytrace op). */
#if defined(__AVX__) && (defined(__GNUC__) || defined(__clang__))
#define TT__ZEROUPPER() __builtin_ia32_vzeroupper()
#else
#define TT__ZEROUPPER() ((void)0)
#endif

/* Small math helpers must be inlined into the vectorized loops that call them. */
#if defined(__GNUC__) || defined(__clang__)
#define TT__INLINE static inline __attribute__((always_inline))
#else
#define TT__INLINE static inline
#endif
/* The helpers of the elementwise expressions (TT__UNARY_OPS, TT__BINARY_OPS) and of the
   resizing and padding positions: compiled for the GPU too where nvcc compiles this file
   (tinytrace_cuda.cu), so its kernels compute them with the same code. */
#ifdef __CUDACC__
#define TT__MATH TT__INLINE __host__ __device__
#else
#define TT__MATH TT__INLINE
#endif

/* TT_FLOAT_ACCUM: long sums that accumulate in double (reductions, softmax, normalizations,
   adaptive average pooling) accumulate in float instead (the adaptive pool's compensated, by
   Kahan), so that the kernels link no double arithmetic. On by
   default where the FPU has no double precision (Cortex-M4F: __ARM_FP without bit 3), whose
   doubles are slow software routines in flash; define it 0 or 1 to choose. */
#ifndef TT_FLOAT_ACCUM
#  if defined(__ARM_FP) && !(__ARM_FP & 8)
#    define TT_FLOAT_ACCUM 1
#  else
#    define TT_FLOAT_ACCUM 0
#  endif
#endif

#define TT__ALIGN      64          /* every allocation starts on a cache line */
#define TT__GUARD      64          /* bytes of pattern before and after a guarded allocation */
#define TT__GUARD_BYTE 0xA5
#define TT__MSG_SIZE   256
#define TT__PI         3.14159265358979323846

/* ==========================================================================
 * >>util   small helpers: min/max, axes, overflow-checked sizes, formatting
 *
 * Error messages are formatted without stdio by tt__vformat, which knows a few verbs:
 * %s string, %d int, %D int64_t, %g double, %S a tensor's shape ("[2,3]"), %T a dtype.
 * ========================================================================== */
static int64_t tt__max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The type long sums and the statistics of normalizations are kept in: double, or float with
   TT_FLOAT_ACCUM (with its square root and logarithm). */
#if TT_FLOAT_ACCUM
typedef float tt__wide;
#define TT__WSQRT sqrtf
#define TT__WLOG  logf
#else
typedef double tt__wide;
#define TT__WSQRT sqrt
#define TT__WLOG  log
#endif

/* A running sum of floats (TT_FLOAT_ACCUM: in float, with Kahan's compensation, kept at
   zero once the sum is not finite so that an infinity stays one; else in double). */
#if TT_FLOAT_ACCUM
typedef struct tt__acc { float sum, comp; } tt__acc;
TT__MAYBE_UNUSED static void tt__acc_add(tt__acc *a, float x) {
    float y = x - a->comp, t = a->sum + y;
    a->comp = t - t == 0.0f ? (t - a->sum) - y : 0.0f;
    a->sum = t;
}
TT__MAYBE_UNUSED static float tt__acc_mean(const tt__acc *a, int64_t n) { return a->sum / (float)n; }
#else
typedef struct tt__acc { double sum; } tt__acc;
TT__MAYBE_UNUSED static void tt__acc_add(tt__acc *a, float x) { a->sum += (double)x; }
TT__MAYBE_UNUSED static float tt__acc_mean(const tt__acc *a, int64_t n) { return (float)(a->sum / (double)n); }
#endif
TT__MAYBE_UNUSED static tt__acc tt__acc_zero(void) {
    tt__acc a;
    memset(&a, 0, sizeof a);
    return a;
}
TT__MATH int64_t tt__min64(int64_t a, int64_t b) { return a < b ? a : b; }
static size_t  tt__round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* a*b, or -1 when it overflows (a, b >= 0). */
static int64_t tt__mul_checked(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a > INT64_MAX / b) return -1;
    return a * b;
}

/* a+b, or -1 when it overflows (a, b >= 0). */
static int64_t tt__add_checked(int64_t a, int64_t b) {
    if (a > INT64_MAX - b) return -1;
    return a + b;
}

/* Normalizes a possibly negative axis of an ndim-tensor; -1 when out of range. */
static int tt__axis(int axis, int ndim) {
    if (axis < -ndim || axis >= ndim) return -1;
    return axis < 0 ? axis + ndim : axis;
}

/* The same where an op takes an axis of a 0-d tensor as PyTorch does: 0 and -1 name its
   one element (as if it had shape [1]). */
static int tt__axis_0d(int axis, int ndim) { return tt__axis(axis, ndim > 0 ? ndim : 1); }

/* A bounded output buffer: len characters written, total the characters it was given. */
typedef struct tt__buf { char *p; size_t size, len, total; } tt__buf;

static void tt__buf_init(tt__buf *b, char *p, size_t size) {
    b->p = p; b->size = size; b->len = 0; b->total = 0;
    if (size) p[0] = '\0';
}

static void tt__put(tt__buf *b, const char *s) {
    for (; *s; s++) {
        if (b->len + 1 < b->size) b->p[b->len++] = *s;
        b->total++;
    }
    if (b->size) b->p[b->len] = '\0';
}

static void tt__put_i64(tt__buf *b, int64_t v) {
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do { tmp[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u);
    if (v < 0) tmp[n++] = '-';
    while (n > 0) { char c[2]; c[0] = tmp[--n]; c[1] = '\0'; tt__put(b, c); }
}

static void tt__putc(tt__buf *b, char c) {
    char s[2];
    s[0] = c; s[1] = '\0';
    tt__put(b, s);
}

/* Compact decimal form of a double: 6 significant digits, trailing zeros dropped. */
static void tt__put_f64(tt__buf *b, double v) {
    char m[7];
    int exp10 = 0, n, i, point;
    int64_t digits;
    if (v != v) { tt__put(b, "nan"); return; }
    if (v < 0) { tt__putc(b, '-'); v = -v; }
    if (v > DBL_MAX) { tt__put(b, "inf"); return; }
    if (v == 0) { tt__putc(b, '0'); return; }
    while (v >= 1e6) { v /= 10; exp10++; }
    while (v < 1e5) { v *= 10; exp10--; }
    digits = (int64_t)(v + 0.5);
    if (digits >= 1000000) { digits /= 10; exp10++; }
    for (i = 5; i >= 0; i--) { m[i] = (char)('0' + (int)(digits % 10)); digits /= 10; }
    for (n = 6; n > 1 && m[n - 1] == '0'; n--) {}
    point = 6 + exp10;                 /* the value is 0.m[0]m[1]... times 10^point */
    if (point > 0 && point <= 15) {
        for (i = 0; i < point; i++) tt__putc(b, i < n ? m[i] : '0');
        if (point < n) { tt__putc(b, '.'); for (i = point; i < n; i++) tt__putc(b, m[i]); }
    } else if (point <= 0 && point > -4) {
        tt__put(b, "0.");
        for (i = 0; i < -point; i++) tt__putc(b, '0');
        for (i = 0; i < n; i++) tt__putc(b, m[i]);
    } else {
        tt__putc(b, m[0]);
        if (n > 1) { tt__putc(b, '.'); for (i = 1; i < n; i++) tt__putc(b, m[i]); }
        tt__putc(b, 'e');
        tt__put_i64(b, point - 1);
    }
}

static void tt__put_shape(tt__buf *b, const tt_tensor *t) {
    int i;
    tt__putc(b, '[');
    for (i = 0; t && i < t->ndim; i++) {
        if (i) tt__putc(b, ',');
        tt__put_i64(b, t->shape[i]);
    }
    tt__putc(b, ']');
}

static void tt__put_dims(tt__buf *b, int ndim, const int64_t *shape) {
    int i;
    tt__putc(b, '[');
    for (i = 0; i < ndim; i++) {
        if (i) tt__putc(b, ',');
        tt__put_i64(b, shape[i]);
    }
    tt__putc(b, ']');
}

/* printf-like formatting into buf with the verbs listed in this section's banner. */
static void tt__vformat(char *buf, size_t size, const char *fmt, va_list ap) {
    tt__buf b;
    tt__buf_init(&b, buf, size);
    if (size) buf[0] = '\0';
    for (; *fmt; fmt++) {
        if (*fmt != '%') { tt__putc(&b, *fmt); continue; }
        switch (*++fmt) {
        case 's': { const char *s = va_arg(ap, const char *); tt__put(&b, s ? s : "(null)"); break; }
        case 'd': tt__put_i64(&b, va_arg(ap, int)); break;
        case 'D': tt__put_i64(&b, va_arg(ap, int64_t)); break;
        case 'g': tt__put_f64(&b, va_arg(ap, double)); break;
        case 'S': tt__put_shape(&b, va_arg(ap, const tt_tensor *)); break;
        case 'T': tt__put(&b, tt_dtype_name((tt_dtype)va_arg(ap, int))); break;
        case '%': tt__putc(&b, '%'); break;
        default:  tt__putc(&b, '?'); if (!*fmt) return; break;
        }
    }
}

TT_API char *tt_shape_str(const tt_tensor *t, char *buf, size_t size) {
    tt__buf b;
    if (!buf || !size) return buf;
    tt__buf_init(&b, buf, size);
    buf[0] = '\0';
    tt__put_shape(&b, t);
    return buf;
}

/* Seconds from a fixed point, for TT_MODE_MAX_AUTOTUNE's timings: a monotonic clock where the
   C library declares one (POSIX), else C11's timespec_get, else ISO C's clock() (processor
   time: with threads, the sum of theirs). Firmware builds (TT_NO_MALLOC) read no clock: they
   compile no graphs (tracing needs the heap), and every timing would tie at 0. */
static double tt__seconds(void) {
#if defined(TT_NO_MALLOC)
    return 0.0;
#elif defined(CLOCK_MONOTONIC) || defined(TIME_UTC)
    struct timespec ts;
#  if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#  else
    timespec_get(&ts, TIME_UTC);
#  endif
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / (double)CLOCKS_PER_SEC;
#endif
}

/* ==========================================================================
 * >>error   the sticky error state of contexts, graphs and compiled functions
 *
 * A context, a graph and a compiled function each hold one tt__err (status + message).
 * The first failure since the last clear is kept; later failures are dropped, so the
 * message points at the root cause. tt__err_vset is the one setter (tt__fail for contexts,
 * tt__gfail for graphs, tt__cc_fail for compiled functions wrap it); it formats into the
 * fixed buffer: no allocation on the error path.
 * ========================================================================== */

/* A block of arena memory; the usable bytes follow the header. */
typedef struct tt__block {
    struct tt__block *next;
    size_t            size;       /* usable bytes */
    size_t            used;
    unsigned char    *mem;        /* TT__ALIGN-aligned start of the usable bytes */
    void             *raw;        /* what the allocator returned (heap mode) */
} tt__block;

/* Header in front of a guarded allocation: links all guarded allocations newest-first. */
typedef struct tt__guard {
    struct tt__guard *prev;
    size_t            size;       /* bytes the caller asked for */
    size_t            span;       /* bytes from the data to the end of the rear guard */
} tt__guard;

struct tt__trace;

/* The error state of a context, a graph and a compiled function alike: sticky (the first
   error is kept until cleared), set only through tt__err_vset. */
typedef struct tt__err {
    tt_status status;
    char      msg[TT__MSG_SIZE];
} tt__err;

struct tt_ctx {
    tt__err      err;
    tt_allocator allocator;       /* heap mode */
    size_t       block_size;
    int          user_memory;     /* everything lives in the user's buffer */
    int          guards;
    tt__block   *first;           /* blocks in allocation order */
    tt__block   *cur;             /* the block being filled */
    tt__block   *spare;           /* heap blocks freed by tt_scope_end, kept for reuse */
    tt__block    user_block;      /* the one block in user-memory mode */
    tt__guard   *last_guard;
    int          record_depth;    /* > 0 while an op runs other ops (those are not recorded) */
    struct tt__trace *trace;      /* the running trace, or NULL */
    uint32_t     trace_counter;   /* epochs handed out (tensors remember theirs) */
    size_t       live, peak;      /* bytes allocated now / at most since peak was reset */
    int          n_threads;
    struct tt__pool *pool;        /* made on the first parallel kernel */
    void       (*parallel_for)(void (*task)(void *arg, int64_t i, int thread), void *arg, int64_t n_tasks, void *user);
    void        *parallel_user;
    const struct tt__kernels *kern; /* the kernels of the context's ISA (>>isa) */
};

TT_API const char *tt_version(void) { return TT_VERSION_STRING; }

TT_API const char *tt_status_str(tt_status s) {
#define TT__STATUS_CASE(name, value, text) case name: return text;
    switch (s) { TT__STATUS(TT__STATUS_CASE) }
#undef TT__STATUS_CASE
    return "unknown status";
}

/* The one error setter: records status and message only when e holds no error yet (the
   first failure is the root cause; later ones are dropped). Formats into e's fixed
   buffer: no allocation on the error path. */
static void tt__err_vset(tt__err *e, tt_status status, const char *fmt, va_list ap) {
    if (e->status != TT_OK) return;
    e->status = status;
    tt__vformat(e->msg, sizeof e->msg, fmt, ap);
}

static void tt__err_clear(tt__err *e) {
    e->status = TT_OK;
    e->msg[0] = '\0';
}

/* The message, or NULL when there is no error. */
static const char *tt__err_msg(const tt__err *e) { return e->status == TT_OK ? NULL : e->msg; }

static void tt__err_set(tt__err *e, tt_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tt__err_vset(e, status, fmt, ap);
    va_end(ap);
}

/* Records the error (if it is the first) and returns NULL, for `return tt__fail(...)`. */
static void *tt__fail(tt_ctx *ctx, tt_status status, const char *fmt, ...) {
    va_list ap;
    if (!ctx) return NULL;
    va_start(ap, fmt);
    tt__err_vset(&ctx->err, status, fmt, ap);
    va_end(ap);
    return NULL;
}

/* The same for functions that return a status. */
#define TT__FAIL_STATUS(ctx, st, ...) (tt__fail((ctx), (st), __VA_ARGS__), (ctx) ? (ctx)->err.status : (st))

/* An array argument and its count: the count in [lo, hi] and the array non-NULL when the
   count is not 0. False (and an error naming both) otherwise. */
static bool tt__check_array(tt_ctx *ctx, const char *fn, const void *arr, const char *arr_name, int count,
                            const char *count_name, int lo, int hi) {
    if (count < lo || count > hi) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %s is %d, expected %d..%d%s", fn, count_name, count, lo, hi,
                 hi == TT_MAX_DIMS ? " (TT_MAX_DIMS)" : "");
        return false;
    }
    if (count > 0 && !arr) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %s is NULL but %s is %d", fn, arr_name, count_name, count);
        return false;
    }
    return true;
}

TT_API const char *tt_error(const tt_ctx *ctx) { return ctx ? tt__err_msg(&ctx->err) : "tinytrace: NULL context"; }

TT_API tt_status tt_ctx_status(const tt_ctx *ctx) { return ctx ? ctx->err.status : TT_ERR_ARG; }

TT_API void tt_clear_error(tt_ctx *ctx) {
    if (ctx) tt__err_clear(&ctx->err);
}

/* ==========================================================================
 * >>arena   the context allocator: blocks, scopes, guard regions
 *
 * A context allocates by bumping an offset in its current block. In heap mode a full
 * block is followed by a new one (at least block_size bytes); in user-memory mode there
 * is one block, the user's buffer, and running out is a TT_ERR_OOM error. Nothing is
 * freed one by one: tt_scope_end rewinds to a saved position (freeing later heap blocks)
 * and tt_ctx_destroy frees everything. With debug_guards every allocation is wrapped in
 * pattern bytes and linked into a list that tt_ctx_check_guards walks.
 * ========================================================================== */
/* Defined in later sections, used in this one. */
static int tt__default_threads(void);
static void tt__trace_free(tt_ctx *ctx);
static void tt__pool_destroy(tt_ctx *ctx);

static void *tt__aligned(void *p) {
    uintptr_t u = (uintptr_t)p;
    return (void *)((u + (TT__ALIGN - 1)) & ~(uintptr_t)(TT__ALIGN - 1));
}

#ifndef TT_NO_MALLOC
static void *tt__sys_alloc(tt_ctx *ctx, size_t size) {
    if (ctx->allocator.alloc) return ctx->allocator.alloc(size, ctx->allocator.user);
    return TT_MALLOC(size, ctx->allocator.user);
}
static void tt__sys_free(tt_ctx *ctx, void *p) {
    if (!p) return;
    if (ctx->allocator.free) ctx->allocator.free(p, ctx->allocator.user);
    else TT_FREE(p, ctx->allocator.user);
}

/* A heap block with at least `need` usable bytes, appended after ctx->cur: the smallest
   spare one that is big enough (best fit, so a loop of scopes finds the same blocks again
   and stops calling malloc and faulting in fresh pages), else a new one. */
static tt__block *tt__block_new(tt_ctx *ctx, size_t need) {
    size_t usable = need > ctx->block_size ? need : ctx->block_size;
    size_t total = sizeof(tt__block) + TT__ALIGN + usable;
    void *raw;
    tt__block *blk, **link, **best = NULL;
    for (link = &ctx->spare; *link; link = &(*link)->next)
        if ((*link)->size >= need && (!best || (*link)->size < (*best)->size)) best = link;
    if (best) {
        blk = *best;
        *best = blk->next;
        blk->next = NULL;
        blk->used = 0;
        if (ctx->cur) ctx->cur->next = blk; else ctx->first = blk;
        return blk;
    }
    if (total < usable) return NULL;                               /* size_t overflow */
    raw = tt__sys_alloc(ctx, total);
    if (!raw) return NULL;
    blk = (tt__block *)raw;
    blk->raw = raw;
    blk->next = NULL;
    blk->size = usable;
    blk->used = 0;
    blk->mem = (unsigned char *)tt__aligned((unsigned char *)raw + sizeof(tt__block));
    if (ctx->cur) ctx->cur->next = blk; else ctx->first = blk;
    return blk;
}

static void tt__blocks_free(tt_ctx *ctx, tt__block *b) {
    while (b) {
        tt__block *next = b->next;
        tt__sys_free(ctx, b->raw);
        b = next;
    }
}

/* Moves every block after blk (all blocks when blk is NULL) to the spare list. */
static void tt__blocks_release_after(tt_ctx *ctx, tt__block *blk) {
    tt__block *b = blk ? blk->next : ctx->first;
    while (b) {
        tt__block *next = b->next;
        b->next = ctx->spare;
        ctx->spare = b;
        b = next;
    }
    if (blk) blk->next = NULL; else ctx->first = NULL;
}
#endif

/* Bytes an allocation of n takes in its block, guards included. */
static size_t tt__footprint(const tt_ctx *ctx, size_t n) {
    size_t body = tt__round_up(n ? n : 1, TT__ALIGN);
    if (body < n) return (size_t)-1;
    return ctx->guards ? body + 2 * TT__GUARD + TT__ALIGN : body;
}

/* Carves the allocation out of a block that has room; returns the user's pointer. */
static void *tt__carve(tt_ctx *ctx, tt__block *blk, size_t n, size_t footprint) {
    unsigned char *p = blk->mem + blk->used;
    blk->used += footprint;
    ctx->live += footprint;
    if (ctx->live > ctx->peak) ctx->peak = ctx->live;
    if (ctx->guards) {
        tt__guard *g = (tt__guard *)p;               /* header, then front guard, data, rear guard */
        unsigned char *data = p + TT__ALIGN + TT__GUARD;
        g->prev = ctx->last_guard;
        g->size = n;
        g->span = footprint - TT__ALIGN - TT__GUARD;
        ctx->last_guard = g;
        memset(p + sizeof(tt__guard), TT__GUARD_BYTE, TT__ALIGN + TT__GUARD - sizeof(tt__guard));
        memset(data + n, TT__GUARD_BYTE, g->span - n);
        return data;
    }
    return p;
}

/* n bytes, TT__ALIGN-aligned, from the context; NULL and an error naming `op` when full. */
static void *tt__alloc(tt_ctx *ctx, const char *op, size_t n) {
    size_t need = tt__footprint(ctx, n);
    tt__block *blk = ctx->cur;
    if (need == (size_t)-1) return tt__fail(ctx, TT_ERR_OOM, "%s: allocation size overflows", op);
    if (blk && blk->size - blk->used >= need) return tt__carve(ctx, blk, n, need);
    if (ctx->user_memory) {
        return tt__fail(ctx, TT_ERR_OOM, "%s: out of memory: the context's buffer has %D bytes free, "
                        "%D needed", op, (int64_t)(blk->size - blk->used), (int64_t)need);
    }
#ifdef TT_NO_MALLOC
    return tt__fail(ctx, TT_ERR_OOM, "%s: out of memory (TT_NO_MALLOC build)", op);
#else
    blk = tt__block_new(ctx, need);
    if (!blk) return tt__fail(ctx, TT_ERR_OOM, "%s: out of memory: could not allocate %D bytes", op, (int64_t)need);
    ctx->cur = blk;
    return tt__carve(ctx, blk, n, need);
#endif
}

#define TT__DEFAULT_BLOCK_SIZE ((size_t)1 << 20)   /* heap blocks of a context */

TT_API tt_ctx_desc tt_ctx_desc_default(void) {
    tt_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.block_size = TT__DEFAULT_BLOCK_SIZE;
    return d;
}

/* Every default of tt_ctx_desc in one place: a zero field takes its default, and the
   thread count is what this build and machine can run (1 without threads, at most 256). */
static tt_ctx_desc tt__ctx_desc_resolve(const tt_ctx_desc *desc) {
    tt_ctx_desc d = desc ? *desc : tt_ctx_desc_default();
    if (d.block_size == 0) d.block_size = TT__DEFAULT_BLOCK_SIZE;
    if (d.n_threads == 0) d.n_threads = tt__default_threads();
    if (!d.parallel_for && !TT__HAS_THREADS) d.n_threads = 1;
    if (d.n_threads > 256) d.n_threads = 256;
    return d;
}

static const struct tt__kernels *tt__choose_kernels(const char *cap);   /* >>isa */

TT_API tt_ctx *tt_ctx_create(const tt_ctx_desc *desc) {
    tt_ctx_desc d;
    tt_ctx *ctx;
    const struct tt__kernels *kern;
    if (desc && ((desc->mem_size > 0 && !desc->mem_buffer) || desc->n_threads < 0)) return NULL;   /* nowhere to say why */
    d = tt__ctx_desc_resolve(desc);
    kern = tt__choose_kernels(d.isa);
    if (!kern) return NULL;                            /* an ISA name that is none */
    if (d.mem_buffer) {
        unsigned char *start = (unsigned char *)tt__aligned(d.mem_buffer);
        size_t lost = (size_t)(start - (unsigned char *)d.mem_buffer);
        size_t head = tt__round_up(sizeof(tt_ctx), TT__ALIGN);
        if (head > TT_CTX_OVERHEAD || d.mem_size < TT_CTX_OVERHEAD || d.mem_size - lost < head) return NULL;
        ctx = (tt_ctx *)start;
        memset(ctx, 0, sizeof *ctx);
        ctx->user_memory = 1;
        ctx->user_block.mem = start + head;
        ctx->user_block.size = d.mem_size - lost - head;
        ctx->first = ctx->cur = &ctx->user_block;
    } else {
#ifdef TT_NO_MALLOC
        return NULL;                                   /* firmware builds must hand in memory */
#else
        void *raw = d.allocator.alloc ? d.allocator.alloc(sizeof(tt_ctx), d.allocator.user)
                                      : TT_MALLOC(sizeof(tt_ctx), d.allocator.user);
        if (!raw) return NULL;
        ctx = (tt_ctx *)raw;
        memset(ctx, 0, sizeof *ctx);
#endif
    }
    ctx->allocator = d.allocator;
    ctx->block_size = d.block_size;
    ctx->guards = d.debug_guards != 0;
    ctx->parallel_for = d.parallel_for;
    ctx->parallel_user = d.parallel_user;
    ctx->n_threads = d.n_threads;
    ctx->kern = kern;
    return ctx;
}

TT_API void tt_ctx_destroy(tt_ctx *ctx) {
    if (!ctx) return;
    tt__trace_free(ctx);
    tt__pool_destroy(ctx);
    if (ctx->user_memory) return;
#ifndef TT_NO_MALLOC
    tt__blocks_free(ctx, ctx->first);
    tt__blocks_free(ctx, ctx->spare);
    if (ctx->allocator.free) ctx->allocator.free(ctx, ctx->allocator.user);
    else TT_FREE(ctx, ctx->allocator.user);
#endif
}

TT_API size_t tt_ctx_used(const tt_ctx *ctx) {
    size_t used = 0;
    const tt__block *b;
    if (!ctx) return 0;
    for (b = ctx->first; b; b = b->next) {
        used += b->used;
        if (b == ctx->cur) break;
    }
    return used;
}

TT_API bool tt_ctx_check_guards(tt_ctx *ctx) {
    const tt__guard *g;
    int64_t index = 0;
    if (!ctx) return false;
    for (g = ctx->last_guard; g; g = g->prev, index++) {
        const unsigned char *front = (const unsigned char *)g + sizeof(tt__guard);
        const unsigned char *data = (const unsigned char *)g + TT__ALIGN + TT__GUARD;
        size_t i, nfront = TT__ALIGN + TT__GUARD - sizeof(tt__guard);
        for (i = 0; i < nfront; i++) {
            if (front[i] != TT__GUARD_BYTE) {
                tt__fail(ctx, TT_ERR_CORRUPT, "tt_ctx_check_guards: a write before the start of allocation "
                         "#%D from the newest (%D bytes) destroyed its front guard", index, (int64_t)g->size);
                return false;
            }
        }
        for (i = g->size; i < g->span; i++) {
            if (data[i] != TT__GUARD_BYTE) {
                tt__fail(ctx, TT_ERR_CORRUPT, "tt_ctx_check_guards: a write %D bytes past the end of allocation "
                         "#%D from the newest (%D bytes) destroyed its rear guard",
                         (int64_t)(i - g->size), index, (int64_t)g->size);
                return false;
            }
        }
    }
    return true;
}

TT_API tt_scope tt_scope_begin(tt_ctx *ctx) {
    tt_scope s;
    memset(&s, 0, sizeof s);
    if (!ctx) return s;
    s.ctx = ctx;
    s.block = ctx->cur;
    s.used = ctx->cur ? ctx->cur->used : 0;
    return s;
}

/* The index of block b in ctx's chain of blocks in use (up to cur), or -1. */
static int64_t tt__block_index(const tt_ctx *ctx, const tt__block *b) {
    const tt__block *x;
    int64_t i = 0;
    for (x = ctx->first; x; x = x->next, i++) {
        if (x == b) return i;
        if (x == ctx->cur) break;
    }
    return -1;
}

/* True when the scope's position is still inside what ctx has allocated. A scope that an
   enclosing scope's end freed fails this until the arena grows past its position again;
   rewinding to it then is still safe, as nothing below is read from the scope itself. */
static bool tt__scope_position_ok(const tt_ctx *ctx, const tt_scope *scope) {
    const tt__block *b = (const tt__block *)scope->block;
    if (!b) return true;
    if (b == ctx->cur) return scope->used <= b->used;  /* the usual case: no block since it began */
    return tt__block_index(ctx, b) >= 0 && scope->used <= b->used;
}

/* True when the guard header g lies at or after the position (block blk, offset used):
   in a later block, or in none of the blocks still in use. */
static bool tt__guard_after(const tt_ctx *ctx, const tt__guard *g, const tt__block *blk, size_t used) {
    const tt__block *x;
    int64_t i = 0, bi = blk ? tt__block_index(ctx, blk) : -1;
    uintptr_t a = (uintptr_t)g;                        /* integers: g may lie in none of the blocks */
    for (x = ctx->first; x; x = x->next, i++) {
        if (a >= (uintptr_t)x->mem && a < (uintptr_t)x->mem + x->size)
            return i > bi || (x == blk && a - (uintptr_t)x->mem >= used);
        if (x == ctx->cur) break;
    }
    return true;
}

TT_API void tt_scope_end(tt_ctx *ctx, tt_scope scope) {
    tt__block *blk, *b;
    if (!ctx) return;
    if (scope.ctx != ctx) {
        tt__fail(ctx, TT_ERR_ARG, "tt_scope_end: scope was opened on %s context; nothing was freed",
                 scope.ctx ? "another" : "no");
        return;
    }
    if (!tt__scope_position_ok(ctx, &scope)) {
        tt__fail(ctx, TT_ERR_ARG, "tt_scope_end: scope was already freed (a scope opened before it ended first); "
                 "nothing was freed");
        return;
    }
    blk = (tt__block *)scope.block;
    while (ctx->last_guard && tt__guard_after(ctx, ctx->last_guard, blk, scope.used))
        ctx->last_guard = ctx->last_guard->prev;      /* the guarded allocations that go */
    if (blk && blk == ctx->cur) {                      /* the usual case: one block to rewind */
        ctx->live -= blk->used - scope.used;
        blk->used = scope.used;
        return;
    }
#ifndef TT_NO_MALLOC
    if (!ctx->user_memory) tt__blocks_release_after(ctx, blk);
#endif
    ctx->cur = blk ? blk : ctx->first;
    if (blk) blk->used = scope.used;
    ctx->live = 0;                                     /* what the blocks still in use hold */
    for (b = blk ? ctx->first : NULL; b; b = b->next) {
        ctx->live += b->used;
        if (b == blk) break;
    }
}

/* Heap memory for what outlives scopes (traces, graphs, pools): the context's allocator. */
#ifndef TT_NO_MALLOC
static void *tt__heap_alloc(const tt_allocator *al, size_t n) {
    return al->alloc ? al->alloc(n, al->user) : TT_MALLOC(n, al->user);
}
static void tt__heap_free(const tt_allocator *al, void *p) {
    if (!p) return;
    if (al->free) al->free(p, al->user); else TT_FREE(p, al->user);
}
#else                                                  /* only a user's allocator (a loaded graph's) */
static void *tt__heap_alloc(const tt_allocator *al, size_t n) { return al->alloc ? al->alloc(n, al->user) : NULL; }
static void tt__heap_free(const tt_allocator *al, void *p) { if (p && al->free) al->free(p, al->user); }
#endif

/* ==========================================================================
 * >>threads   the thread pool and deterministic work splitting
 *
 * A kernel splits its work into tasks whose boundaries depend only on the shapes (never
 * on the thread count), and each task computes its outputs exactly as a single thread
 * would: so results are bitwise the same for every thread count. tt__parallel_for runs
 * tasks [0, n): thread t of T takes the t-th contiguous share. The pool is made on first
 * use and owned by the context: its workers sleep on a condition variable between jobs.
 * With TT_NO_THREADS (or n_threads 1, or a single task) the caller runs everything.
 * ========================================================================== */

typedef void (*tt__task_fn)(void *arg, int64_t task, int thread);

/* The tasks of thread t among T: a contiguous share [lo, hi). */
static void tt__run_share(tt__task_fn fn, void *arg, int64_t n, int t, int T) {
    int64_t lo = n * t / T, hi = n * (t + 1) / T, i;
    for (i = lo; i < hi; i++) fn(arg, i, t);
}

#if TT__HAS_THREADS
typedef struct tt__worker { struct tt__pool *pool; int index; } tt__worker;

struct tt__pool {
    int              n_workers;        /* threads besides the caller */
    pthread_t       *threads;
    tt__worker      *workers;
    pthread_mutex_t  mu;
    pthread_cond_t   wake, done;
    tt__task_fn      fn;               /* the job */
    void            *arg;
    int64_t          n_tasks;
    uint64_t         generation;       /* bumped for every job */
    int              pending;          /* workers still busy with it */
    int64_t          next;             /* the next task nobody has taken (TT__ATOMICS) */
    bool             stop;
};

#if TT__ATOMICS
#define TT__LOAD(p)        __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TT__STORE(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TT__DEC(p)         __atomic_sub_fetch((p), 1, __ATOMIC_ACQ_REL)

/* Spin until *p differs from v for at most `rounds` rounds, or until *p is 0 for at most
   TT__SPINS rounds (the caller then sleeps on the condition variable if it must). */
static void tt__spin_until_changed(const uint64_t *p, uint64_t v, int rounds) {
    int i;
    for (i = 0; i < rounds && TT__LOAD(p) == v; i++) TT__CPU_RELAX();
}
static void tt__spin_until_zero(const int *p) {
    int i;
    for (i = 0; i < TT__SPINS && TT__LOAD(p) != 0; i++) TT__CPU_RELAX();
}
#else
#define TT__LOAD(p)        (*(p))
#define TT__STORE(p, v)    (*(p) = (v))
#define TT__DEC(p)         (--*(p))
#endif

/* A thread's part of the job: tasks from the shared counter, or a fixed share. The task
   boundaries are the same either way, so results do not depend on who runs what. */
static void tt__run_job(struct tt__pool *pool, tt__task_fn fn, void *arg, int64_t n, int t) {
#if TT__ATOMICS
    int64_t i;
    while ((i = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < n) fn(arg, i, t);
#else
    tt__run_share(fn, arg, n, t, pool->n_workers + 1);
#endif
}

static void *tt__worker_main(void *p) {
    tt__worker *w = (tt__worker *)p;
    struct tt__pool *pool = w->pool;
    uint64_t seen = 0;
    for (;;) {
        tt__task_fn fn;
        void *arg;
        int64_t n;
#if TT__ATOMICS
        /* A new job soon needs no sleep; but an idle worker spinning long holds a core that
           another context's pool (a graph's, beside the eager one) may be waiting for: with
           4000 rounds a graph run right after eager ops took 1.3x as long on 2 cores. */
        tt__spin_until_changed(&pool->generation, seen, TT__IDLE_SPINS);
#endif
        pthread_mutex_lock(&pool->mu);
        while (TT__LOAD(&pool->generation) == seen && !pool->stop) pthread_cond_wait(&pool->wake, &pool->mu);
        if (pool->stop) { pthread_mutex_unlock(&pool->mu); return NULL; }
        seen = TT__LOAD(&pool->generation);
        fn = pool->fn; arg = pool->arg; n = pool->n_tasks;
        pthread_mutex_unlock(&pool->mu);
        tt__run_job(pool, fn, arg, n, w->index);
        pthread_mutex_lock(&pool->mu);
        if (TT__DEC(&pool->pending) == 0) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->mu);
    }
}

static void tt__pool_destroy(tt_ctx *ctx) {
    struct tt__pool *pool = ctx->pool;
    int i;
    if (!pool) return;
    pthread_mutex_lock(&pool->mu);
    pool->stop = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    for (i = 0; i < pool->n_workers; i++) pthread_join(pool->threads[i], NULL);
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    tt__heap_free(&ctx->allocator, pool->threads);
    tt__heap_free(&ctx->allocator, pool->workers);
    tt__heap_free(&ctx->allocator, pool);
    ctx->pool = NULL;
}

/* The context's pool, made on first use; NULL if threads cannot be started (then the
   caller runs everything, which gives the same results). */
static struct tt__pool *tt__pool_get(tt_ctx *ctx) {
    struct tt__pool *pool;
    int i;
    if (ctx->pool) return ctx->pool;
    pool = (struct tt__pool *)tt__heap_alloc(&ctx->allocator, sizeof *pool);
    if (!pool) return NULL;
    memset(pool, 0, sizeof *pool);
    pool->threads = (pthread_t *)tt__heap_alloc(&ctx->allocator, sizeof(pthread_t) * (size_t)ctx->n_threads);
    pool->workers = (tt__worker *)tt__heap_alloc(&ctx->allocator, sizeof(tt__worker) * (size_t)ctx->n_threads);
    if (!pool->threads || !pool->workers) {
        tt__heap_free(&ctx->allocator, pool->threads);
        tt__heap_free(&ctx->allocator, pool->workers);
        tt__heap_free(&ctx->allocator, pool);
        return NULL;
    }
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    ctx->pool = pool;
    for (i = 0; i < ctx->n_threads - 1; i++) {
        pool->workers[i].pool = pool;
        pool->workers[i].index = i + 1;
        if (pthread_create(&pool->threads[i], NULL, tt__worker_main, &pool->workers[i]) != 0) break;
        pool->n_workers++;
    }
    if (pool->n_workers == 0) { tt__pool_destroy(ctx); return NULL; }
    return pool;
}

static int tt__default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
#else
static void tt__pool_destroy(tt_ctx *ctx) { (void)ctx; }
static int tt__default_threads(void) { return 1; }
#endif

/* Runs fn(arg, i, thread) for every i < n_tasks and returns when all are done. */
static void tt__parallel_for(tt_ctx *ctx, tt__task_fn fn, void *arg, int64_t n_tasks) {
#if TT__HAS_THREADS
    struct tt__pool *pool;
#endif
    if (n_tasks <= 0) return;
    if (n_tasks == 1 || ctx->n_threads <= 1) { tt__run_share(fn, arg, n_tasks, 0, 1); return; }
    if (ctx->parallel_for) { ctx->parallel_for(fn, arg, n_tasks, ctx->parallel_user); return; }
#if TT__HAS_THREADS
    pool = tt__pool_get(ctx);
    if (!pool) { tt__run_share(fn, arg, n_tasks, 0, 1); return; }
    pthread_mutex_lock(&pool->mu);
    pool->fn = fn; pool->arg = arg; pool->n_tasks = n_tasks;
    pool->next = 0;
    TT__STORE(&pool->pending, pool->n_workers);
    TT__STORE(&pool->generation, pool->generation + 1);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    tt__run_job(pool, fn, arg, n_tasks, 0);
#if TT__ATOMICS
    tt__spin_until_zero(&pool->pending);               /* workers finishing their last tasks */
#endif
    pthread_mutex_lock(&pool->mu);
    while (TT__LOAD(&pool->pending) > 0) pthread_cond_wait(&pool->done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
#else
    tt__run_share(fn, arg, n_tasks, 0, 1);
#endif
}

TT_API int tt_ctx_num_threads(const tt_ctx *ctx) { return ctx ? ctx->n_threads : 0; }

/* ==========================================================================
 * >>isa   the CPU's vector instructions, and the kernel table each context runs
 *
 * A hot kernel is written once and built as twins: _ref (plain C, vectorized by the
 * compiler for what its flags enable), _avx2 (AVX2 + FMA) and _avx512 (AVX-512 F, BW, DQ,
 * VL). With GCC and clang on x86-64 the last two carry per-function target attributes, so
 * every build has all three, whatever flags the user's file is compiled with; other
 * compilers get what their flags enable. The CPU is asked when a context is made (CPUID,
 * and XGETBV: the OS must save the wide registers too), and the context keeps a pointer to
 * the table of its ISA (>>kernels); kernels call through it once per chunk, row or tile,
 * never per element. aarch64 has NEON as its baseline (no dispatch: the compiler vectorizes
 * the _ref twins with it, and the SGEMM micro-kernel is NEON). TT_NO_SIMD leaves only the
 * _ref twins.
 * ========================================================================== */

#if TT__X86_DISPATCH
#define TT__TARGET_AVX2   __attribute__((target("avx2,fma")))
#define TT__TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#else
#define TT__TARGET_AVX2
#define TT__TARGET_AVX512
#endif
#if TT__SIMD_AVX2
#define TT__IF_AVX2(...) __VA_ARGS__
#else
#define TT__IF_AVX2(...)
#endif
#if TT__SIMD_AVX512
#define TT__IF_AVX512(...) __VA_ARGS__
#else
#define TT__IF_AVX512(...)
#endif

/* GCC keeps a branch for each float comparison of a select (a ? b : c) unless it may assume
   that comparisons do not trap (-ftrapping-math, its default, says a NaN may signal): with
   the branches it vectorizes no loop of tt__expf and its kin (measured: exp 6.5 ns per
   float with AVX2 flags, 1.0 ns without the branches). tinytrace never reads the floating-
   point exception flags; the values computed are the same. */
#if defined(__GNUC__) && !defined(__clang__)
#define TT__VECTORIZE __attribute__((optimize("no-trapping-math")))
#else
#define TT__VECTORIZE
#endif

/* The twins of a kernel written as plain C: its body is the TT__INLINE function
   name##_body, and each twin is a function that calls it, compiled for the twin's ISA (the
   compiler inlines the body into each and vectorizes it for that ISA). attrs: more
   attributes for every twin (or nothing). */
#define TT__TWINS(attrs, name, params, args)                                                                \
    attrs TT__VECTORIZE static void name##_ref params { name##_body args; }                                  \
    TT__IF_AVX2(attrs TT__VECTORIZE TT__TARGET_AVX2 static void name##_avx2 params { name##_body args; })    \
    TT__IF_AVX512(attrs TT__VECTORIZE TT__TARGET_AVX512 static void name##_avx512 params { name##_body args; })

/* The ISAs, in the order a cap compares them ("avx2" caps an AVX-512 CPU at AVX2). */
typedef enum tt__isa { TT__ISA_SCALAR, TT__ISA_NEON, TT__ISA_AVX2, TT__ISA_AVX512, TT__ISA_COUNT } tt__isa;
static const char *const tt__isa_names[TT__ISA_COUNT] = {"scalar", "neon", "avx2", "avx512"};

#if TT__X86_DISPATCH
static void tt__cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/* XCR0: which register states the OS saves on a context switch. */
static uint64_t tt__xcr0(void) {
    unsigned lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
    return (uint64_t)hi << 32 | lo;
}

#define TT__BIT(x, n) (((x) >> (n)) & 1u)

static tt__isa tt__x86_isa(void) {
    unsigned r[4], leaf1[4], leaf7[4];
    uint64_t xcr0;
    tt__cpuid(0, 0, r);
    if (r[0] < 7) return TT__ISA_SCALAR;
    tt__cpuid(1, 0, leaf1);
    tt__cpuid(7, 0, leaf7);
    if (!TT__BIT(leaf1[2], 27)) return TT__ISA_SCALAR;              /* no XSAVE enabled by the OS */
    xcr0 = tt__xcr0();
    if ((xcr0 & 0x6) != 0x6) return TT__ISA_SCALAR;                 /* SSE and AVX state not saved */
    if (!TT__BIT(leaf1[2], 28) || !TT__BIT(leaf1[2], 12) || !TT__BIT(leaf7[1], 5))
        return TT__ISA_SCALAR;                                     /* AVX, FMA, AVX2 */
    if ((xcr0 & 0xE0) == 0xE0 && TT__BIT(leaf7[1], 16) && TT__BIT(leaf7[1], 17) && TT__BIT(leaf7[1], 30) &&
        TT__BIT(leaf7[1], 31))
        return TT__ISA_AVX512;                                     /* opmask + zmm state; F, DQ, BW, VL */
    return TT__ISA_AVX2;
}
#undef TT__BIT
#endif

/* The best ISA this build can run on this CPU. */
static tt__isa tt__cpu_isa(void) {
#if TT__X86_DISPATCH
    return tt__x86_isa();
#elif TT__SIMD_AVX512
    return TT__ISA_AVX512;                 /* no dispatch: what the compiler's flags promise */
#elif TT__SIMD_AVX2
    return TT__ISA_AVX2;
#elif TT__SIMD_NEON
    return TT__ISA_NEON;
#else
    return TT__ISA_SCALAR;
#endif
}

/* The ISA a name stands for, or -1. */
static int tt__isa_of_name(const char *name) {
    int i;
    for (i = 0; name && i < TT__ISA_COUNT; i++)
        if (strcmp(name, tt__isa_names[i]) == 0) return i;
    return -1;
}

/* A micro-kernel: the MR x NR tile of C at C (rows ldc apart) = (accumulate ? C : 0) + the A
   sliver (kc x MR, k-major) times the B sliver (kc x NR, k-major). */
typedef void (*tt__ukernel_fn)(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate);

/* One tile of a direct convolution (>>conv): tile[o * ldt + l] for 8 output channels o and
   48 band positions l = the sum over k in [k0, k1) (k = c * taps + tap) of w[o * wstride + k]
   times x[c * chan + tap[tap] + l], added to the tile unless first, as the micro-kernel adds
   a k block to C. */
typedef struct tt__conv_tile_args {
    const float   *x, *w;
    const int64_t *tap;
    float         *tile;
    int64_t        ldt, chan, wstride, taps, k0, k1;
    bool           first;
} tt__conv_tile_args;
typedef void (*tt__conv_tile_fn)(const tt__conv_tile_args *a);

struct tt__att_job;
struct tt__att_bufs;
struct tt__epilogue;

/* The kernels of one ISA; >>kernels defines one table per ISA the build has. Tasks run
   under tt__parallel_for, planes under tt__for_planes. */
typedef struct tt__kernels {
    tt__isa        isa;
    int            mr, nr;                 /* the SGEMM tile: MR rows of A by NR columns of B */
    tt__ukernel_fn ukernel;                /* MR x NR */
    tt__ukernel_fn ukernel_16, ukernel_32; /* MR x 16 and MR x 32 over NR-wide slivers; NULL: none */
    /* MR rows of A into a sliver, columns [0, kc): the first column it did not pack; NULL: none */
    int64_t      (*pack_a_rows)(float *Ap, const float *src, int64_t sam, int64_t kc);
    void         (*copy_run)(float *d, const float *r, int64_t s, int64_t n);
    tt__conv_tile_fn conv_tile;          /* NULL: convolutions take im2col + GEMM */
    /* the taps of a depthwise band in registers (>>conv); NULL: one pass over the band per tap */
    void         (*dw_taps)(float *y, const float *phases, const int64_t *tap, const float *w, int64_t taps, int64_t len);
    /* n output pixels of a channels-last depthwise convolution, every channel (>>conv) */
    void         (*dw_nhwc_pixels)(float *y, const float *const *x, int64_t n, const float *w, int64_t taps, int64_t C,
                                   const struct tt__epilogue *e);
    void         (*unary_chunk)(int op, float *y, const float *x, int64_t n, float p0, float p1);
    void         (*binary_chunk)(int op, float *y, const float *a, const float *b, int64_t n);
    void         (*pair_chunk)(int op, int op2, int swap, float *y, const float *a, const float *b, const float *c,
                               int64_t n);
    void         (*affine_row)(float *y, const float *x, int64_t n, tt__wide mean, tt__wide scale, tt__wide shift);
    void         (*att_softmax_step)(const struct tt__att_job *j, int64_t n_slivers, int64_t cols, float *sc,
                                     struct tt__att_bufs *b);
    void         (*reduce_task)(void *arg, int64_t t, int thread);
    void         (*softmax_task)(void *arg, int64_t t, int thread);
    void         (*norm_task)(void *arg, int64_t t, int thread);
    void         (*gemm_task)(void *arg, int64_t t, int thread);      /* the direct GEMM loops */
    void         (*depthwise_plane)(const void *arg, int64_t plane);
    void         (*depthwise_bands_task)(void *arg, int64_t t, int thread);
    void         (*pool_plane)(const void *arg, int64_t plane);
    /* a GEMM's epilogue (bias, ReLU, clamp) on a block of C */
    void         (*epilogue_block)(const struct tt__epilogue *e, float *C, int64_t ldc, int64_t i0, int64_t j0, int64_t rows,
                                   int64_t cols);
} tt__kernels;

static const tt__kernels *tt__kernels_for(tt__isa isa);   /* >>kernels */

/* The table for a context: the best ISA the CPU has, capped by cap (a name, or NULL: no cap)
   and by the TT_ISA environment variable (ignored when it names no ISA). NULL when cap is not
   a name. */
static const tt__kernels *tt__choose_kernels(const char *cap) {
    int best = (int)tt__cpu_isa(), limit = cap ? tt__isa_of_name(cap) : best;
#if !defined(TT_NO_STDIO)
    int env = cap ? -1 : tt__isa_of_name(getenv("TT_ISA"));
    if (env >= 0) limit = env;
#endif
    if (limit < 0) return NULL;
    while (best > limit || !tt__kernels_for((tt__isa)best)) best--;   /* scalar is always there */
    return tt__kernels_for((tt__isa)best);
}

TT_API const char *tt_ctx_isa(const tt_ctx *ctx) { return ctx ? tt__isa_names[ctx->kern->isa] : NULL; }

/* ==========================================================================
 * >>dtype   f16/bf16 conversion, element loads and stores
 *
 * Conversions work on the bits (memcpy, no type punning through unions), so they give
 * the same answer on every compiler. f32 -> f16/bf16 rounds to nearest, ties to even.
 * ========================================================================== */
static uint32_t tt__f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float    tt__bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

TT_API const char *tt_dtype_name(tt_dtype t) {
    switch (t) {
    case TT_F32:  return "f32";
    case TT_F16:  return "f16";
    case TT_BF16: return "bf16";
    case TT_I32:  return "i32";
    case TT_BOOL: return "bool";
    default:      return "invalid-dtype";
    }
}

TT_API size_t tt_dtype_size(tt_dtype t) {
    switch (t) {
    case TT_F32: case TT_I32:  return 4;
    case TT_F16: case TT_BF16: return 2;
    case TT_BOOL:              return 1;
    default:                   return 0;
    }
}

/* Rounds m >> shift to nearest, ties to even. */
static uint32_t tt__shift_rne(uint32_t m, int shift) {
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1u)));
}

TT_API uint16_t tt_f32_to_f16(float x) {
    uint32_t u = tt__f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a >= 0x7F800000u) return (uint16_t)(sign | (a > 0x7F800000u ? 0x7E00u : 0x7C00u)); /* NaN, inf */
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);        /* >= 65520 rounds to inf */
    if (a >= 0x38800000u) {                                          /* normal half */
        uint32_t h = ((a >> 23) - 112u) << 10 | ((a >> 13) & 0x3FFu);
        uint32_t rem = a & 0x1FFFu;
        h += (rem > 0x1000u || (rem == 0x1000u && (h & 1u)));         /* a carry moves into the exponent */
        return (uint16_t)(sign | h);
    }
    if (a < 0x33000000u) return sign;                                /* <= 2^-25 rounds to zero */
    return (uint16_t)(sign | tt__shift_rne((a & 0x7FFFFFu) | 0x800000u, (int)(126u - (a >> 23))));
}

TT_API float tt_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) {                                                    /* zero or subnormal: m * 2^-24 */
        float f = (float)m * 5.9604644775390625e-8f;
        return tt__bits_f32(tt__f32_bits(f) | sign);
    }
    if (e == 31) return tt__bits_f32(sign | 0x7F800000u | (m << 13));
    return tt__bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

TT_API uint16_t tt_f32_to_bf16(float x) {
    uint32_t u = tt__f32_bits(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40u);  /* quiet NaN */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

TT_API float tt_bf16_to_f32(uint16_t h) { return tt__bits_f32((uint32_t)h << 16); }

/* Element i of storage p of type dt, as float. */
static float tt__load(const void *p, tt_dtype dt, int64_t i) {
    switch (dt) {
    case TT_F32:  return ((const float *)p)[i];
    case TT_F16:  return tt_f16_to_f32(((const uint16_t *)p)[i]);
    case TT_BF16: return tt_bf16_to_f32(((const uint16_t *)p)[i]);
    case TT_I32:  return (float)((const int32_t *)p)[i];
    case TT_BOOL: return ((const uint8_t *)p)[i] ? 1.0f : 0.0f;
    default:      return 0.0f;
    }
}

/* double -> i32 toward zero, saturating; NaN gives 0 (C leaves these undefined). */
static int32_t tt__to_i32(double v) {
    if (v != v) return 0;
    if (v >= 2147483647.0) return INT32_MAX;
    if (v <= -2147483648.0) return INT32_MIN;
    return (int32_t)v;
}

/* Stores v as element i of storage p of type dt. A double, so that i32 values from
   tt_full/tt_arange stay exact beyond 2^24; every float converts to it exactly. */
static void tt__store(void *p, tt_dtype dt, int64_t i, double v) {
    switch (dt) {
    case TT_F32:  ((float *)p)[i] = (float)v; break;
    case TT_F16:  ((uint16_t *)p)[i] = tt_f32_to_f16((float)v); break;
    case TT_BF16: ((uint16_t *)p)[i] = tt_f32_to_bf16((float)v); break;
    case TT_I32:  ((int32_t *)p)[i] = tt__to_i32(v); break;
    case TT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v != 0.0); break;
    default: break;
    }
}

/* v as a tensor of dtype dt holds it: stored, then loaded back (what a cast keeps). */
static float tt__round_trip(tt_dtype dt, float v) {
    unsigned char cell[8];
    tt__store(cell, dt, 0, (double)v);
    return tt__load(cell, dt, 0);
}

/* Compared as unsigned: a negative value is huge, and no "always true" comparison is left
   where the ARM EABI makes enums one unsigned byte (-Wtype-limits). */
static bool tt__dtype_valid(tt_dtype t) { return (unsigned)t < (unsigned)TT_DTYPE_COUNT; }

/* ==========================================================================
 * >>tensor   tensor headers, creation, random numbers, access
 *
 * A tensor is a header (shape, strides, offset) plus storage; both come from the
 * context's arena. Creation validates sizes once, here, so kernels can trust numel.
 * ========================================================================== */
/* Defined in later sections, used in this one. */
static void tt__warn_read(const tt_tensor *t, const char *fn, const char *file, int line);

#define TT__FLAG_WRAPPED 1u      /* storage belongs to the user */
#define TT__MAX_NUMEL (INT64_MAX >> 4)  /* elements per tensor: numel * 16 bytes never overflows */

static void tt__set_contiguous_strides(tt_tensor *t) {
    int64_t s = 1;
    int i;
    for (i = t->ndim - 1; i >= 0; i--) { t->stride[i] = s; s *= t->shape[i]; }
}

/* Checks ndim and shape, the size of a tensor that args (argument names) make; on success
   writes the element count to *numel. */
static bool tt__check_size(tt_ctx *ctx, const char *op, const char *args, int ndim, const int64_t *shape, int64_t *numel) {
    int64_t n = 1, nonzero = 1;                        /* strides multiply the sizes after a 0 too */
    int i;
    if (ndim < 0 || ndim > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %d dims from %s, expected 0..%d (TT_MAX_DIMS)", op, ndim, args, TT_MAX_DIMS);
        return false;
    }
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: size %D of axis %d from %s is negative", op, shape[i], i, args);
            return false;
        }
        n = tt__mul_checked(n, shape[i]);
        nonzero = shape[i] == 0 ? nonzero : tt__mul_checked(nonzero, shape[i]);
        if (n < 0 || n > TT__MAX_NUMEL || nonzero < 0 || nonzero > TT__MAX_NUMEL) {
            char dims[TT__MSG_SIZE];
            tt__buf b;
            tt__buf_init(&b, dims, sizeof dims);
            tt__put_dims(&b, ndim, shape);
            tt__fail(ctx, TT_ERR_ARG, "%s: size of %s overflows (more than 2^59 elements); it comes from %s", op, dims, args);
            return false;
        }
    }
    *numel = n;
    return true;
}

/* True when shape would pass tt__check_size (a check that records no error). */
static bool tt__sizes_fit(int ndim, const int64_t *shape) {
    int64_t nonzero = 1;
    int i;
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) return false;
        if (shape[i] > 0) nonzero = tt__mul_checked(nonzero, shape[i]);
        if (nonzero < 0 || nonzero > TT__MAX_NUMEL) return false;
    }
    return true;
}

/* The same for a shape argument and its ndim. */
static bool tt__check_shape(tt_ctx *ctx, const char *op, int ndim, const int64_t *shape, int64_t *numel) {
    if (ndim < 0 || ndim > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: ndim is %d, expected 0..%d (TT_MAX_DIMS)", op, ndim, TT_MAX_DIMS);
        return false;
    }
    if (ndim > 0 && !shape) { tt__fail(ctx, TT_ERR_ARG, "%s: shape is NULL but ndim is %d", op, ndim); return false; }
    return tt__check_size(ctx, op, "shape", ndim, shape, numel);
}

/* A header only (data NULL), contiguous strides. */
static tt_tensor *tt__header(tt_ctx *ctx, const char *op, tt_dtype dtype, int ndim, const int64_t *shape) {
    tt_tensor *t;
    int64_t numel;
    int i;
    if (!ctx) return NULL;
    if (!tt__dtype_valid(dtype)) return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "%s: invalid dtype %d", op, (int)dtype);
    if (!tt__check_shape(ctx, op, ndim, shape, &numel)) return NULL;
    t = (tt_tensor *)tt__alloc(ctx, op, sizeof(tt_tensor));
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->ndim = ndim;
    for (i = 0; i < TT_MAX_DIMS; i++) t->shape[i] = i < ndim ? shape[i] : 1;
    tt__set_contiguous_strides(t);
    t->numel = numel;
    t->ctx = ctx;
    if (ctx->trace) {                                  /* made during a trace: a constant if used */
        t->trace_epoch = ctx->trace_counter;
        t->trace_id = -1;
    }
    return t;
}

/* A new contiguous tensor with uninitialized storage. */
static tt_tensor *tt__new(tt_ctx *ctx, const char *op, tt_dtype dtype, int ndim, const int64_t *shape) {
    tt_tensor *t = tt__header(ctx, op, dtype, ndim, shape);
    if (!t) return NULL;
    t->data = tt__alloc(ctx, op, (size_t)t->numel * tt_dtype_size(dtype));
    return t->data ? t : NULL;
}

/* The element count of x's shape after it was changed in place by a view op. */
static void tt__update_numel(tt_tensor *t) {
    int64_t n = 1;
    int i;
    for (i = 0; i < t->ndim; i++) n *= t->shape[i];
    for (i = t->ndim; i < TT_MAX_DIMS; i++) { t->shape[i] = 1; t->stride[i] = 1; }
    t->numel = n;
}

static void tt__fill(tt_tensor *t, double v) {
    int64_t i;
    if (t->dtype == TT_F32) { float *d = (float *)t->data; for (i = 0; i < t->numel; i++) d[i] = (float)v; return; }
    for (i = 0; i < t->numel; i++) tt__store(t->data, t->dtype, i, v);
}

TT_API tt_tensor *tt_empty(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape) {
    return tt__new(ctx, "tt_empty", dtype, ndim, shape);
}

static tt_tensor *tt__full(tt_ctx *ctx, const char *op, tt_dtype dtype, int ndim, const int64_t *shape, double v) {
    tt_tensor *t = tt__new(ctx, op, dtype, ndim, shape);
    if (t) tt__fill(t, v);
    return t;
}

TT_API tt_tensor *tt_zeros(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape) {
    return tt__full(ctx, "tt_zeros", dtype, ndim, shape, 0.0);
}
TT_API tt_tensor *tt_ones(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape) {
    return tt__full(ctx, "tt_ones", dtype, ndim, shape, 1.0);
}
TT_API tt_tensor *tt_full(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, double value) {
    return tt__full(ctx, "tt_full", dtype, ndim, shape, value);
}
TT_API tt_tensor *tt_scalar(tt_ctx *ctx, float value) {
    return tt__full(ctx, "tt_scalar", TT_F32, 0, NULL, (double)value);
}

TT_API tt_tensor *tt_arange(tt_ctx *ctx, tt_dtype dtype, double start, double stop, double step) {
    double count;
    int64_t n, i;
    tt_tensor *t;
    if (!ctx) return NULL;
    if (step == 0 || step != step || step - step != 0 || start != start || stop != stop)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_arange: step is %g, start %g, stop %g: expected a "
                                     "nonzero step and finite bounds", step, start, stop);
    count = ceil((stop - start) / step);
    if (!(count <= 1e15))                              /* also inf and NaN counts */
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_arange: start %g, stop %g and step %g give %g elements, "
                                     "expected at most 1e15", start, stop, step, count);
    n = count > 0 ? (int64_t)count : 0;
    t = tt__new(ctx, "tt_arange", dtype, 1, &n);
    if (!t) return NULL;
    for (i = 0; i < n; i++) tt__store(t->data, dtype, i, start + (double)i * step);
    return t;
}

TT_API tt_tensor *tt_linspace(tt_ctx *ctx, double start, double end, int64_t steps) {
    tt_tensor *t;
    int64_t i;
    if (!ctx) return NULL;
    if (steps < 0 || steps > TT__MAX_NUMEL)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_linspace: steps is %D, expected 0..2^59", steps);
    if (start != start || end != end)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_linspace: start is %g and end %g, expected numbers (not NaN)",
                                     start, end);
    t = tt__new(ctx, "tt_linspace", TT_F32, 1, &steps);
    if (!t) return NULL;
    for (i = 0; i < steps; i++) {
        double v = steps == 1 ? start : start + (end - start) * (double)i / (double)(steps - 1);
        ((float *)t->data)[i] = (float)v;
    }
    return t;
}

TT_API tt_tensor *tt_eye(tt_ctx *ctx, tt_dtype dtype, int64_t n, int64_t m) {
    int64_t shape[2], i, numel;
    tt_tensor *t;
    shape[0] = n; shape[1] = m;
    if (ctx && !tt__check_size(ctx, "tt_eye", "n and m", 2, shape, &numel)) return NULL;
    t = tt__full(ctx, "tt_eye", dtype, 2, shape, 0.0);
    if (!t) return NULL;
    for (i = 0; i < n && i < m; i++) tt__store(t->data, dtype, i * m + i, 1.0);
    return t;
}

TT_API tt_tensor *tt_from_data(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, const void *data) {
    tt_tensor *t;
    if (!ctx) return NULL;
    if (!data) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_from_data: data is NULL");
    t = tt__new(ctx, "tt_from_data", dtype, ndim, shape);
    if (t) memcpy(t->data, data, (size_t)t->numel * tt_dtype_size(dtype));
    return t;
}

TT_API tt_tensor *tt_from_int64(tt_ctx *ctx, int ndim, const int64_t *shape, const int64_t *data) {
    tt_tensor *t;
    int32_t *d;
    int64_t i;
    if (!ctx) return NULL;
    if (!data) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_from_int64: data is NULL");
    t = tt__new(ctx, "tt_from_int64", TT_I32, ndim, shape);
    if (!t) return NULL;
    d = (int32_t *)t->data;
    for (i = 0; i < t->numel; i++) {
        if (data[i] < INT32_MIN || data[i] > INT32_MAX)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_INDEX, "tt_from_int64: data[%D] = %D does not fit the i32 index "
                                         "type", i, data[i]);
        d[i] = (int32_t)data[i];
    }
    return t;
}

TT_API tt_tensor *tt_wrap(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, void *data) {
    tt_tensor *t;
    if (!ctx) return NULL;
    if (!data) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_wrap: data is NULL");
    t = tt__header(ctx, "tt_wrap", dtype, ndim, shape);
    if (!t) return NULL;
    t->data = data;
    t->flags |= TT__FLAG_WRAPPED;
    return t;
}

/* Output i of the splitmix64 generator seeded with seed: a counter-based stream, so
   element i never depends on how many elements came before or which thread made them. */
static uint64_t tt__splitmix64(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

TT_API tt_tensor *tt_rand(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape) {
    tt_tensor *t = tt__new(ctx, "tt_rand", TT_F32, ndim, shape);
    float *d;
    int64_t i;
    if (!t) return NULL;
    d = (float *)t->data;
    for (i = 0; i < t->numel; i++)                     /* top 24 bits: exact floats in [0,1) */
        d[i] = (float)(tt__splitmix64(seed, (uint64_t)i) >> 40) * (1.0f / 16777216.0f);
    return t;
}

TT_API tt_tensor *tt_randn(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape) {
    tt_tensor *t = tt__new(ctx, "tt_randn", TT_F32, ndim, shape);
    float *d;
    int64_t i;
    if (!t) return NULL;
    d = (float *)t->data;
    for (i = 0; i < t->numel; i++) {                   /* Box-Muller on outputs 2i and 2i+1, in double */
        double u1 = ((double)(tt__splitmix64(seed, 2 * (uint64_t)i) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        double u2 = (double)(tt__splitmix64(seed, 2 * (uint64_t)i + 1) >> 11) * (1.0 / 9007199254740992.0);
        d[i] = (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * TT__PI * u2));
    }
    return t;
}

TT_API bool tt_is_contiguous(const tt_tensor *t) {
    int64_t s = 1;
    int i;
    if (!t) return false;
    for (i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->stride[i] != s) return false;
        s *= t->shape[i];
    }
    return true;
}

/* Pointer to element (0,...,0): what kernels use (tt_data also warns while tracing). */
static void *tt__ptr(const tt_tensor *t) {
    if (!t || !t->data) return NULL;
    return (char *)t->data + t->offset * (int64_t)tt_dtype_size(t->dtype);
}

TT_API bool tt_same_shape(const tt_tensor *a, const tt_tensor *b) {
    int i;
    if (!a || !b || a->ndim != b->ndim) return false;
    for (i = 0; i < a->ndim; i++) if (a->shape[i] != b->shape[i]) return false;
    return true;
}

/* Storage offset (in elements) of the element with row-major linear index `linear`. */
static int64_t tt__offset_of(const tt_tensor *t, int64_t linear) {
    int64_t off = t->offset;
    int d;
    for (d = t->ndim - 1; d >= 0; d--) {
        off += (linear % t->shape[d]) * t->stride[d];
        linear /= t->shape[d];
    }
    return off;
}

TT_API void *tt_data_at(const tt_tensor *t, const char *file, int line) {
    tt__warn_read(t, "tt_data", file, line);
    return tt__ptr(t);
}
TT_API void *(tt_data)(const tt_tensor *t) { return tt_data_at(t, NULL, 0); }

TT_API float tt_item_at(tt_ctx *ctx, const tt_tensor *t, const char *file, int line) {
    tt__warn_read(t, "tt_item", file, line);
    if (!t) return NAN;
    if (t->numel != 1) {
        tt__fail(ctx, TT_ERR_SHAPE, "tt_item: t has shape %S (%D elements), expected exactly 1 element", t, t->numel);
        return NAN;
    }
    return tt__load(t->data, t->dtype, t->offset);
}

TT_API float (tt_item)(tt_ctx *ctx, const tt_tensor *t) { return tt_item_at(ctx, t, NULL, 0); }

TT_API float tt_get_at(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx, const char *file, int line) {
    int64_t off;
    int d;
    if (!t) return NAN;
    tt__warn_read(t, "tt_get", file, line);
    if (t->ndim > 0 && !idx) { tt__fail(ctx, TT_ERR_ARG, "tt_get: idx is NULL"); return NAN; }
    off = t->offset;
    for (d = 0; d < t->ndim; d++) {
        int64_t i = idx[d] < 0 ? idx[d] + t->shape[d] : idx[d];
        if (i < 0 || i >= t->shape[d]) {
            tt__fail(ctx, TT_ERR_INDEX, "tt_get: idx[%d] = %D is out of range for axis %d of size %D (shape %S)", d,
                     idx[d], d, t->shape[d], t);
            return NAN;
        }
        off += i * t->stride[d];
    }
    return tt__load(t->data, t->dtype, off);
}

TT_API float (tt_get)(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx) { return tt_get_at(ctx, t, idx, NULL, 0); }

TT_API tt_status tt_copy_to_f32_at(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n, const char *file, int line) {
    int64_t i;
    if (!ctx) return TT_ERR_ARG;
    if (!t) return TT__FAIL_STATUS(ctx, TT_ERR_ARG, "tt_copy_to_f32: t is NULL");
    tt__warn_read(t, "tt_copy_to_f32", file, line);
    if (!dst && t->numel > 0) return TT__FAIL_STATUS(ctx, TT_ERR_ARG, "tt_copy_to_f32: dst is NULL");
    if (n != t->numel)
        return TT__FAIL_STATUS(ctx, n < 0 ? TT_ERR_ARG : TT_ERR_SHAPE, "tt_copy_to_f32: n is %D but t of shape %S has %D elements",
                               n, t, t->numel);
    if (tt_is_contiguous(t) && t->dtype == TT_F32) {
        if (n) memcpy(dst, tt__ptr(t), (size_t)n * sizeof(float));
        return TT_OK;
    }
    for (i = 0; i < n; i++) dst[i] = tt__load(t->data, t->dtype, tt__offset_of(t, i));
    return TT_OK;
}

TT_API tt_status (tt_copy_to_f32)(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n) {
    return tt_copy_to_f32_at(ctx, t, dst, n, NULL, 0);
}

/* ==========================================================================
 * >>dispatch   one table of ops; every op is "infer" then "exec"
 *
 * Each op is a row of TT__OPS: its name, its kind and two functions. infer checks the
 * inputs and fills in the output's header (dtype and shape; a view also gets strides,
 * offset and data) without allocating; exec computes into an output it is handed. The
 * eager path (tt__op) runs infer, allocates the output, runs exec and, while tracing,
 * records the call; a graph runs the same exec functions on outputs it planned itself.
 * Op arguments that are not tensors travel in tt__attrs, so a call can be stored.
 * ========================================================================== */
typedef enum tt__kind {
    TT__K_VIEW,        /* output shares the input's storage */
    TT__K_UNARY,       /* elementwise, one input: a row of TT__UNARY_OPS */
    TT__K_BINARY,      /* elementwise, two broadcast inputs: a row of TT__BINARY_OPS */
    TT__K_WHERE,       /* elementwise select */
    TT__K_CAST,        /* elementwise dtype conversion (cast, copy) */
    TT__K_REDUCE,      /* reductions and normalizations */
    TT__K_LINALG,      /* matmul, linear, convolution */
    TT__K_OTHER,       /* pooling, shape and index ops, attention */
    TT__K_FUSED        /* a graph's fused elementwise program (made by the fusion pass) */
} tt__kind;

/* The micro-ops of a fused program: an elementwise op becomes the one of its kind
   (tt__op_uop; TT__U_NONE: the op does not fuse). */
typedef enum tt__ukind {
    TT__U_LOAD, TT__U_UNARY, TT__U_BINARY, TT__U_PAIR, TT__U_WHERE, TT__U_CAST, TT__U_STORE, TT__U_NONE
} tt__ukind;

/* What the passes and kernels need to know about an op: one bit each, in the op table's
   flags column. A pass tests a flag or the kind; it never lists op codes. */
#define TT__F_BOOL_OUT      (1u << 0)   /* the result is bool (comparisons, logical ops) */
#define TT__F_COMMUTATIVE   (1u << 1)   /* a op b == b op a, bit for bit */
#define TT__F_ID_ZERO       (1u << 2)   /* x op 0 == x: simplify drops the op (either side if commutative) */
#define TT__F_ID_ONE        (1u << 3)   /* x op 1 == x */
#define TT__F_PAIRABLE      (1u << 4)   /* a binary op that tt__pair_chunk runs two at a time */
#define TT__F_GEMM_HEAD     (1u << 5)   /* runs an SGEMM: may head an epilogue-fused chain */
#define TT__F_GEMM_ACT      (1u << 6)   /* applies a following TT__F_EPILOGUE_ACT op in its SGEMM epilogue */
#define TT__F_EPILOGUE_ACT  (1u << 7)   /* the activation a TT__F_GEMM_ACT head applies itself (ReLU) */
#define TT__F_BN_HEAD       (1u << 8)   /* a batch norm of its result folds into its weight and bias */
#define TT__F_BN_FOLDS      (1u << 9)   /* folds into a TT__F_BN_HEAD producer (batch norm) */
#define TT__F_CHANNELS_LAST (1u << 10)  /* its output channels are the last axis (linear), not axis 1 */
#define TT__F_PACK_WEIGHT   (1u << 11)  /* a constant weight (input 1) is packed once per graph */
#define TT__F_SAME_ID       (1u << 12)  /* the identity when its result has its input's dtype and shape */
#define TT__F_PERMUTATION   (1u << 13)  /* its attributes are a permutation: identity dropped, two composed */
#define TT__F_ZERO_PAD_ID   (1u << 14)  /* the identity when every pad size is 0 */
#define TT__F_EPILOGUE_CLAMP (1u << 15) /* a clamp to [p0, p1] a TT__F_GEMM_ACT head may apply in its epilogue */

#define TT__NATTR (2 * TT_MAX_DIMS + 4)

/* The non-tensor arguments of a call: axes, sizes, flags (i) and scalars (f). */
typedef struct tt__attrs {
    int64_t i[TT__NATTR];
    float   f[3];
} tt__attrs;

/* One call of an op: what exec needs besides its output. Built by tt__call_init. */
typedef struct tt__call {
    const char        *name;      /* public function, for messages */
    int                op;        /* tt__opcode */
    tt_tensor *const  *in;        /* inputs; optional ones may be NULL */
    int                n_in;
    tt__attrs          a;
    const void        *node_data; /* in a graph: the backend's data for this node (the CPU's is a
                                     tt__cpu_node); NULL for an eager call */
} tt__call;

/* A clamp of a kernel's results to [lo, hi] (the clamp op's expression), when on: a graph's
   fused clamp. */
typedef struct tt__clamp { bool on; float lo, hi; } tt__clamp;

/* What the CPU backend hands a GEMM-based op (TT__F_GEMM_HEAD) of a compiled graph. */
typedef struct tt__cpu_node {
    const float *packed_w;        /* a constant weight packed ahead, or NULL: a linear's as the SGEMM's
                                     B (tt__prepack_b), a convolution's as its A (tt__prepack_a) */
    bool         relu_after;      /* a fused ReLU follows: the op applies it in its GEMM epilogue */
    tt__clamp    clamp_after;     /* a fused clamp follows: the op may apply it in its epilogue, */
    bool        *clamp_applied;   /* and then sets this true (else the fused program applies it) */
    const float *wino_u;          /* a convolution's constant weights prepared for its Winograd, or NULL */
} tt__cpu_node;

/* A call of op with inputs in[0..n_in) and attributes a (no backend data: eager). */
static tt__call tt__call_init(const char *name, int op, tt_tensor *const *in, int n_in, const tt__attrs *a) {
    tt__call c;
    c.name = name;
    c.op = op;
    c.in = in;
    c.n_in = n_in;
    c.a = *a;
    c.node_data = NULL;
    return c;
}

/* The CPU backend's data of a call (all zero for an eager call). */
static const tt__cpu_node *tt__cpu_data(const tt__call *c) {
    static const tt__cpu_node none = { NULL, false, { false, 0.0f, 0.0f }, NULL, NULL };
    return c->node_data ? (const tt__cpu_node *)c->node_data : &none;
}

/* An op that applied its node's clamp_after in its kernels says so: the program is skipped. */
static void tt__clamp_done(const tt__call *c) {
    const tt__cpu_node *d = tt__cpu_data(c);
    if (d->clamp_after.on && d->clamp_applied) *d->clamp_applied = true;
}

typedef bool (*tt__infer_fn)(tt_ctx *ctx, const tt__call *c, tt_tensor *out);
typedef bool (*tt__exec_fn)(tt_ctx *ctx, const tt__call *c, tt_tensor *out);

/* The unary elementwise ops, each stated once:
       U(X, NAME, name, parameters, flags, expression)
   The expression computes the result from the float x and the op's scalar parameters p0, p1.
   One line gives the op its table row (below), its case in the kernel that eager and fused
   runs share (tt__unary_chunk), its public function tt_<name> (an op with parameters writes
   its own, which names them) and its C source text (tt__op_table[op].expr), for exporters.
   Rows may go anywhere in the list. X passes the table's row macro through. */
#define TT__UNARY_OPS(U, X) \
    U(X, NEG,         neg,         0, 0,                  -x) \
    U(X, ABS,         abs,         0, 0,                  fabsf(x)) \
    U(X, SIGN,        sign,        0, 0,                  x > 0 ? 1.0f : x < 0 ? -1.0f : x) \
    U(X, EXP,         exp,         0, 0,                  tt__expf(x)) \
    U(X, LOG,         log,         0, 0,                  logf(x)) \
    U(X, SQRT,        sqrt,        0, 0,                  sqrtf(x)) \
    U(X, RSQRT,       rsqrt,       0, 0,                  1.0f / sqrtf(x)) \
    U(X, RECIPROCAL,  reciprocal,  0, 0,                  1.0f / x) \
    U(X, SIN,         sin,         0, 0,                  sinf(x)) \
    U(X, COS,         cos,         0, 0,                  cosf(x)) \
    U(X, TANH,        tanh,        0, 0,                  tt__tanhf(x)) \
    U(X, SIGMOID,     sigmoid,     0, 0,                  tt__sigmoidf(x)) \
    U(X, RELU,        relu,        0, TT__F_EPILOGUE_ACT, tt__reluf(x)) \
    U(X, LEAKY_RELU,  leaky_relu,  1, 0,                  x < 0 ? p0 * x : x) \
    U(X, ELU,         elu,         1, 0,                  x < 0 ? p0 * expm1f(x) : x) \
    U(X, GELU,        gelu,        0, 0,                  0.5f * x * (1.0f + tt__erff(x * 0.70710678118654752f))) \
    U(X, GELU_TANH,   gelu_tanh,   0, 0,                  tt__gelu_tanhf(x)) \
    U(X, SILU,        silu,        0, 0,                  x != x ? x : x * tt__sigmoidf(x)) \
    U(X, HARDSWISH,   hardswish,   0, 0,                  x * tt__clampf(x + 3.0f, 0.0f, 6.0f) / 6.0f) \
    U(X, SOFTPLUS,    softplus,    0, 0,                  x > 20.0f ? x : log1pf(expf(x))) \
    U(X, ERF,         erf,         0, 0,                  tt__erff(x)) \
    U(X, FLOOR,       floor,       0, 0,                  floorf(x)) \
    U(X, CEIL,        ceil,        0, 0,                  ceilf(x)) \
    U(X, ROUND,       round,       0, 0,                  nearbyintf(x)) \
    U(X, CLAMP,       clamp,       2, TT__F_EPILOGUE_CLAMP, tt__clampf(x, p0, p1)) \
    U(X, POW_SCALAR,  pow_scalar,  1, 0,                  tt__pow_scalarf(x, p0)) \
    U(X, LOGICAL_NOT, logical_not, 0, TT__F_BOOL_OUT,     x == 0.0f ? 1.0f : 0.0f)

/* The binary elementwise ops, each stated once: B(X, NAME, name, flags, expression of the
   floats a and b). Comparisons give 1.0f or 0.0f, stored as bool (TT__F_BOOL_OUT). Like the
   unary list: table row, kernel case (tt__binary_chunk), tt_<name>, source text. */
#define TT__BINARY_OPS(B, X) \
    B(X, ADD,         add,         TT__F_COMMUTATIVE | TT__F_ID_ZERO | TT__F_PAIRABLE, a + b) \
    B(X, SUB,         sub,         TT__F_ID_ZERO | TT__F_PAIRABLE,                     a - b) \
    B(X, MUL,         mul,         TT__F_COMMUTATIVE | TT__F_ID_ONE | TT__F_PAIRABLE,  a * b) \
    B(X, DIV,         div,         TT__F_ID_ONE,                                       a / b) \
    B(X, POW,         pow,         0,                                                  powf(a, b)) \
    B(X, ATAN2,       atan2,       0,                                                  atan2f(a, b)) \
    B(X, MAXIMUM,     maximum,     0,                                                  tt__maxf(a, b)) \
    B(X, MINIMUM,     minimum,     0,                                                  tt__minf(a, b)) \
    B(X, EQ,          eq,          TT__F_BOOL_OUT | TT__F_COMMUTATIVE,                 (float)(a == b)) \
    B(X, NE,          ne,          TT__F_BOOL_OUT | TT__F_COMMUTATIVE,                 (float)(a != b)) \
    B(X, LT,          lt,          TT__F_BOOL_OUT,                                     (float)(a < b)) \
    B(X, LE,          le,          TT__F_BOOL_OUT,                                     (float)(a <= b)) \
    B(X, GT,          gt,          TT__F_BOOL_OUT,                                     (float)(a > b)) \
    B(X, GE,          ge,          TT__F_BOOL_OUT,                                     (float)(a >= b)) \
    B(X, LOGICAL_AND, logical_and, TT__F_BOOL_OUT | TT__F_COMMUTATIVE,                 (float)(a != 0.0f && b != 0.0f)) \
    B(X, LOGICAL_OR,  logical_or,  TT__F_BOOL_OUT | TT__F_COMMUTATIVE,                 (float)(a != 0.0f || b != 0.0f))

/* Their rows in the op table. */
#define TT__UNARY_ROW(X, N, name, n_params, flags, expr) \
    X(N, #name, TT__K_UNARY, tt__infer_unary, tt__exec_unary, 0, "x", flags, #expr)
#define TT__BINARY_ROW(X, N, name, flags, expr) \
    X(N, #name, TT__K_BINARY, tt__infer_binary, tt__exec_binary, 0, "a,b", flags, #expr)

/* The op table: X(NAME, "name", kind, infer, exec, optional-input bits, "input names" as the
   public functions call them, flags, "expression" of an elementwise op). No code depends on
   the order of the rows. ADDING AN OP: an elementwise op is one line of TT__UNARY_OPS or
   TT__BINARY_OPS; any other op is a row here with its infer and exec functions (in the
   section of its family) and a public function that calls tt__op. Then its declaration in
   >>api, a test row, and README's op table. docs/architecture.md has the whole recipe. */
#define TT__OPS(X) \
    X(RESHAPE,         "reshape",         TT__K_VIEW,   tt__infer_reshape,   tt__exec_none,      0, "x", TT__F_SAME_ID, "") \
    X(PERMUTE,         "permute",         TT__K_VIEW,   tt__infer_permute,   tt__exec_none,      0, "x", TT__F_PERMUTATION, "") \
    X(SLICE,           "slice",           TT__K_VIEW,   tt__infer_slice,     tt__exec_none,      0, "x", 0, "") \
    X(EXPAND,          "expand",          TT__K_VIEW,   tt__infer_expand,    tt__exec_none,      0, "x", TT__F_SAME_ID, "") \
    X(SQUEEZE,         "squeeze",         TT__K_VIEW,   tt__infer_squeeze,   tt__exec_none,      0, "x", TT__F_SAME_ID, "") \
    X(UNSQUEEZE,       "unsqueeze",       TT__K_VIEW,   tt__infer_unsqueeze, tt__exec_none,      0, "x", 0, "") \
    X(COPY,            "copy",            TT__K_CAST,   tt__infer_cast,      tt__exec_cast,      0, "x", TT__F_SAME_ID, "") \
    X(CAST,            "cast",            TT__K_CAST,   tt__infer_cast,      tt__exec_cast,      0, "x", TT__F_SAME_ID, "") \
    TT__UNARY_OPS(TT__UNARY_ROW, X) \
    TT__BINARY_OPS(TT__BINARY_ROW, X) \
    X(WHERE,           "where",           TT__K_WHERE,  tt__infer_where,     tt__exec_where,     0, "cond,a,b", 0, "") \
    X(SUM,             "sum",             TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(MEAN,            "mean",            TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(MAX,             "max",             TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(MIN,             "min",             TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(PROD,            "prod",            TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(VAR,             "var",             TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(STD,             "std",             TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(ARGMAX,          "argmax",          TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(ARGMIN,          "argmin",          TT__K_REDUCE, tt__infer_reduce,    tt__exec_reduce,    0, "x", 0, "") \
    X(SOFTMAX,         "softmax",         TT__K_REDUCE, tt__infer_softmax,   tt__exec_softmax,   0, "x", 0, "") \
    X(LOG_SOFTMAX,     "log_softmax",     TT__K_REDUCE, tt__infer_softmax,   tt__exec_softmax,   0, "x", 0, "") \
    X(LAYER_NORM,      "layer_norm",      TT__K_REDUCE, tt__infer_row_norm,  tt__exec_row_norm,  6, "x,weight,bias", 0, "") \
    X(RMS_NORM,        "rms_norm",        TT__K_REDUCE, tt__infer_row_norm,  tt__exec_row_norm,  2, "x,weight", 0, "") \
    X(BATCH_NORM,      "batch_norm",      TT__K_REDUCE, tt__infer_batch_norm, tt__exec_batch_norm, 24, "x,mean,var,weight,bias", TT__F_BN_FOLDS, "") \
    X(GROUP_NORM,      "group_norm",      TT__K_REDUCE, tt__infer_group_norm, tt__exec_group_norm, 6, "x,weight,bias", 0, "") \
    X(MATMUL,          "matmul",          TT__K_LINALG, tt__infer_matmul,    tt__exec_matmul,    0, "a,b", TT__F_GEMM_HEAD, "") \
    X(LINEAR,          "linear",          TT__K_LINALG, tt__infer_linear,    tt__exec_linear,    4, "x,weight,bias", \
      TT__F_GEMM_HEAD | TT__F_GEMM_ACT | TT__F_BN_HEAD | TT__F_CHANNELS_LAST | TT__F_PACK_WEIGHT, "") \
    X(CONV2D,          "conv2d",          TT__K_LINALG, tt__infer_conv,      tt__exec_conv,      4, "x,weight,bias", \
      TT__F_GEMM_HEAD | TT__F_GEMM_ACT | TT__F_BN_HEAD | TT__F_PACK_WEIGHT, "") \
    X(CONV1D,          "conv1d",          TT__K_LINALG, tt__infer_conv,      tt__exec_conv,      4, "x,weight,bias", \
      TT__F_GEMM_HEAD | TT__F_GEMM_ACT | TT__F_BN_HEAD | TT__F_PACK_WEIGHT, "") \
    X(CONV3D,          "conv3d",          TT__K_LINALG, tt__infer_conv_nd,   tt__exec_conv3d,    4, "x,weight,bias", \
      TT__F_GEMM_HEAD | TT__F_GEMM_ACT, "") \
    X(CONV_TRANSPOSE,  "conv_transpose",  TT__K_LINALG, tt__infer_conv_nd,   tt__exec_conv_transpose, 4, "x,weight,bias", \
      TT__F_GEMM_HEAD | TT__F_GEMM_ACT, "") \
    X(MAX_POOL,        "max_pool",        TT__K_OTHER,  tt__infer_pool,      tt__exec_pool,      0, "x", 0, "") \
    X(AVG_POOL,        "avg_pool",        TT__K_OTHER,  tt__infer_pool,      tt__exec_pool,      0, "x", 0, "") \
    X(ADAPTIVE_AVG_POOL2D, "adaptive_avg_pool2d", TT__K_OTHER, tt__infer_resize, tt__exec_resize, 0, "x", 0, "") \
    X(UPSAMPLE_NEAREST, "upsample_nearest", TT__K_OTHER, tt__infer_resize,   tt__exec_resize,    0, "x", 0, "") \
    X(UPSAMPLE_BILINEAR, "upsample_bilinear", TT__K_OTHER, tt__infer_resize, tt__exec_resize,    0, "x", 0, "") \
    X(CONCAT,          "concat",          TT__K_OTHER,  tt__infer_concat,    tt__exec_concat,    0, "xs", 0, "") \
    X(STACK,           "stack",           TT__K_OTHER,  tt__infer_concat,    tt__exec_concat,    0, "xs", 0, "") \
    X(PAD,             "pad",             TT__K_OTHER,  tt__infer_pad,       tt__exec_pad,       0, "x", TT__F_ZERO_PAD_ID, "") \
    X(GATHER,          "gather",          TT__K_OTHER,  tt__infer_gather,    tt__exec_gather,    0, "x,index", 0, "") \
    X(INDEX_SELECT,    "index_select",    TT__K_OTHER,  tt__infer_index_select, tt__exec_index_select, 0, "x,index", 0, "") \
    X(EMBEDDING,       "embedding",       TT__K_OTHER,  tt__infer_index_select, tt__exec_index_select, 0, "weight,indices", 0, "") \
    X(REPEAT_INTERLEAVE, "repeat_interleave", TT__K_OTHER, tt__infer_repeat, tt__exec_repeat,    0, "x", 0, "") \
    X(TILE,            "tile",            TT__K_OTHER,  tt__infer_repeat,    tt__exec_repeat,    0, "x", 0, "") \
    X(FLIP,            "flip",            TT__K_OTHER,  tt__infer_flip,      tt__exec_flip,      0, "x", 0, "") \
    X(SHAPE_AS_TENSOR, "shape_as_tensor", TT__K_OTHER,  tt__infer_shape_as_tensor, tt__exec_shape_as_tensor, 0, "x", 0, "") \
    X(SDPA,            "scaled_dot_product_attention", TT__K_OTHER, tt__infer_sdpa, tt__exec_sdpa, 8, "q,k,v,mask", 0, "") \
    X(FUSED,           "fused",           TT__K_FUSED,  tt__infer_none,      tt__exec_none,      0, "", 0, "")

#define TT__OP_ENUM(N, s, k, inf, ex, opt, ins, fl, expr) TT__OP_##N,
typedef enum tt__opcode { TT__OPS(TT__OP_ENUM) TT__OP_COUNT } tt__opcode;
#undef TT__OP_ENUM

#define TT__OP_DECL(N, s, k, inf, ex, opt, ins, fl, expr) \
    static bool inf(tt_ctx *ctx, const tt__call *c, tt_tensor *out); \
    static bool ex(tt_ctx *ctx, const tt__call *c, tt_tensor *out);
TT__OPS(TT__OP_DECL)
#undef TT__OP_DECL

typedef struct tt__op_info {
    const char  *name;
    tt__kind     kind;
    tt__infer_fn infer;
    tt__exec_fn  exec;
    unsigned     optional;        /* bit i: input i may be NULL (a bias, a mask) */
    const char  *inputs;          /* the inputs' names, comma-separated ("xs": any number) */
    unsigned     flags;           /* TT__F_* */
    const char  *expr;            /* elementwise ops: the expression as C source ("" for others) */
} tt__op_info;

#define TT__OP_ROW(N, s, k, inf, ex, opt, ins, fl, expr) { s, k, inf, ex, opt, ins, fl, expr },
static const tt__op_info tt__op_table[TT__OP_COUNT] = { TT__OPS(TT__OP_ROW) };
#undef TT__OP_ROW

/* Does op have every flag of f? */
static bool tt__op_has(int op, unsigned f) { return (tt__op_table[op].flags & f) == f; }

/* The micro-op an elementwise op becomes in a fused program (TT__U_NONE: it does not fuse). */
static tt__ukind tt__op_uop(int op) {
    switch (tt__op_table[op].kind) {
    case TT__K_UNARY:  return TT__U_UNARY;
    case TT__K_BINARY: return TT__U_BINARY;
    case TT__K_WHERE:  return TT__U_WHERE;
    case TT__K_CAST:   return TT__U_CAST;
    default:           return TT__U_NONE;
    }
}

/* Static checks, compile-time (a negative array size fails the build): the pair kernel
   (tt__pair_chunk) is written for exactly ADD, SUB and MUL, so the pairable flags must say so. */
#define TT__OP_FLAGS_ENUM(N, s, k, inf, ex, opt, ins, fl, expr) TT__OPF_##N = (fl),
enum { TT__OPS(TT__OP_FLAGS_ENUM) TT__OPF_END_ = 0 };
#undef TT__OP_FLAGS_ENUM
#define TT__OP_COUNT_PAIRABLE(N, s, k, inf, ex, opt, ins, fl, expr) + (((fl) & TT__F_PAIRABLE) != 0)
enum { TT__N_PAIRABLE = 0 TT__OPS(TT__OP_COUNT_PAIRABLE) };
#undef TT__OP_COUNT_PAIRABLE
typedef char tt__check_pairable[(TT__OPF_ADD & TT__OPF_SUB & TT__OPF_MUL & TT__F_PAIRABLE) && TT__N_PAIRABLE == 3 ? 1 : -1];

/* The name of input i of op as its public function calls it ("xs[3]" for a list). */
static void tt__input_name(int op, int i, char *buf, size_t size) {
    const char *p = tt__op_table[op].inputs;
    tt__buf b;
    tt__buf_init(&b, buf, size);
    if (strcmp(p, "xs") == 0) {
        tt__put(&b, "xs[");
        tt__put_i64(&b, i);
        tt__putc(&b, ']');
        return;
    }
    for (; i > 0 && *p; p++) if (*p == ',') i--;
    for (; *p && *p != ','; p++) tt__putc(&b, *p);
}

static bool tt__infer_none(tt_ctx *ctx, const tt__call *c, tt_tensor *out) { (void)ctx; (void)c; (void)out; return true; }
static bool tt__exec_none(tt_ctx *ctx, const tt__call *c, tt_tensor *out) { (void)ctx; (void)c; (void)out; return true; }

/* Zeroed attributes (so that two equal calls compare equal byte for byte). */
static tt__attrs tt__attrs_zero(void) {
    tt__attrs a;
    memset(&a, 0, sizeof a);
    return a;
}

/* A fresh output header for infer to fill: contiguous, owned by ctx, no data yet. */
static void tt__header_init(tt_tensor *t, tt_ctx *ctx) {
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
}

/* After infer set dtype, ndim and shape: checks the size (an op's computed shape may
   overflow int64_t; args names the arguments that make it), then sets contiguous strides
   and the element count. */
static bool tt__header_finish(tt_ctx *ctx, const char *op, const char *args, tt_tensor *t) {
    int64_t numel;
    if (!tt__check_size(ctx, op, args, t->ndim, t->shape, &numel)) return false;
    tt__set_contiguous_strides(t);
    tt__update_numel(t);
    return true;
}

static void tt__record(tt_ctx *ctx, const tt__call *c, tt_tensor *out);
static bool tt__is_traced_value(const tt_tensor *t);

/* An op on ctx may not read a value of another context's running trace: that trace would
   not record the op, and its graph would replay the value computed while tracing. The
   error goes to both contexts, so the other trace cannot end in a wrong graph. */
static bool tt__check_trace_escape(tt_ctx *ctx, const char *name, int op, int i, const tt_tensor *t) {
    char arg[32];
    if (t->ctx == ctx || !tt__is_traced_value(t)) return true;
    tt__input_name(op, i, arg, sizeof arg);
    tt__fail(t->ctx, TT_ERR_STATE, "%s: an op on another context read a value of this context's running trace (%s); "
             "run every op of a traced model on the traced context", name, arg);
    tt__fail(ctx, TT_ERR_STATE, "%s: %s %S is a value of another context's running trace; run the op on that "
             "context (the trace would not record it)", name, arg, t);
    return false;
}

/* The eager path of every op: check, allocate, compute, record. NULL inputs that are not
   optional make the op return NULL without a new error (the first error is kept). */
static tt_tensor *tt__op(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *const *in, int n_in,
                         const tt__attrs *a) {
    const tt__op_info *info = &tt__op_table[op];
    tt_tensor hdr, *out;
    tt__call c;
    tt_scope scope;
    bool ok;
    int i;
    if (!ctx) return NULL;
    for (i = 0; i < n_in; i++) if (!in[i] && !((info->optional >> i) & 1u)) return NULL;
    for (i = 0; i < n_in; i++) if (in[i] && !tt__check_trace_escape(ctx, name, op, i, in[i])) return NULL;
    c = tt__call_init(name, op, in, n_in, a);
    tt__header_init(&hdr, ctx);
    if (!info->infer(ctx, &c, &hdr)) return NULL;
    if (info->kind == TT__K_VIEW) {
        out = (tt_tensor *)tt__alloc(ctx, name, sizeof(tt_tensor));
        if (!out) return NULL;
        *out = hdr;
    } else {
        out = tt__new(ctx, name, hdr.dtype, hdr.ndim, hdr.shape);
        if (!out) return NULL;
        scope = tt_scope_begin(ctx);
        ctx->record_depth++;                       /* ops that exec calls are not recorded */
        ok = info->exec(ctx, &c, out);
        ctx->record_depth--;
        tt_scope_end(ctx, scope);
        TT__ZEROUPPER();
        if (!ok) return NULL;
    }
    tt__record(ctx, &c, out);
    return out;
}

/* A one-input op with attributes. */
static tt_tensor *tt__op1(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, const tt__attrs *a) {
    tt_tensor *in[1];
    in[0] = x;
    return tt__op(ctx, name, op, in, 1, a);
}

/* ==========================================================================
 * >>view   views: reshape, permute, slice, expand, squeeze, flatten, ...
 *
 * A view op makes a new header over the same storage. Only reshape can fail for a valid
 * request: when the strides cannot express the new shape (e.g. a transposed matrix
 * flattened), the user must copy with tt_contiguous first. The stride rule is PyTorch's:
 * walk the old axes from the right in chunks that are contiguous with each other, and
 * give each chunk's new axes strides from that chunk's base stride.
 * The infer functions below fill a header without allocating: graphs rerun them.
 * ========================================================================== */

/* Strides for viewing x as new_shape, or false when no strides exist. */
static bool tt__view_strides(const tt_tensor *x, int ndim, const int64_t *shape, int64_t *stride) {
    int64_t chunk_base, tensor_numel = 1, view_numel = 1;
    int view_d = ndim - 1, d;
    if (x->ndim == 0 || x->numel == 0) {                /* nothing to preserve: contiguous strides */
        int64_t s = 1;
        for (d = ndim - 1; d >= 0; d--) { stride[d] = s; s *= shape[d] ? shape[d] : 1; }
        return true;
    }
    chunk_base = x->stride[x->ndim - 1];
    for (d = x->ndim - 1; d >= 0; d--) {
        tensor_numel *= x->shape[d];
        if (d == 0 || (x->shape[d - 1] != 1 && x->stride[d - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                stride[view_d] = view_numel * chunk_base;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) { chunk_base = x->stride[d - 1]; tensor_numel = 1; view_numel = 1; }
        }
    }
    return view_d == -1;
}

/* The view starts as a copy of x's header (same storage), owned by ctx. */
static void tt__view_begin(tt_tensor *out, const tt_tensor *x) {
    tt_ctx *ctx = out->ctx;
    *out = *x;
    out->ctx = ctx;
}

/* a.i[0] = ndim, a.i[1..] = shape (one entry may be -1). */
static bool tt__infer_reshape(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int ndim = (int)c->a.i[0], infer = -1, d;
    const int64_t *shape_in = &c->a.i[1];
    int64_t shape[TT_MAX_DIMS], stride[TT_MAX_DIMS], known = 1, numel;
    char buf[16 * TT_MAX_DIMS];
    tt__buf b;
    if (ndim < 0 || ndim > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: ndim is %d, expected 0..%d", c->name, ndim, TT_MAX_DIMS);
        return false;
    }
    for (d = 0; d < ndim; d++) {
        shape[d] = shape_in[d];
        if (shape[d] == -1 && infer < 0) { infer = d; continue; }
        known = shape[d] < 0 ? -1 : tt__mul_checked(known, shape[d]);
        if (known < 0) {
            tt__fail(ctx, TT_ERR_ARG, shape[d] < 0 ? "%s: shape[%d] is %D, expected sizes >= 0 and at most one -1"
                                                   : "%s: shape[%d] is %D: the size of shape overflows", c->name, d, shape[d]);
            return false;
        }
    }
    tt__buf_init(&b, buf, sizeof buf);
    tt__put_dims(&b, ndim, shape_in);
    if (infer >= 0) {
        if (known == 0 || x->numel % known != 0) {
            tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S (%D elements) cannot take shape %s", c->name, x, x->numel, buf);
            return false;
        }
        shape[infer] = x->numel / known;
    }
    if (!tt__check_shape(ctx, c->name, ndim, shape, &numel)) return false;
    if (numel != x->numel) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S (%D elements) cannot take shape %s (%D elements)", c->name, x, x->numel, buf,
                 numel);
        return false;
    }
    if (!tt__view_strides(x, ndim, shape, stride)) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: the strides of %S cannot be viewed as %s; use tt_reshape (it copies) or call tt_contiguous first",
                 c->name, x, buf);
        return false;
    }
    tt__view_begin(out, x);
    out->ndim = ndim;
    for (d = 0; d < ndim; d++) { out->shape[d] = shape[d]; out->stride[d] = stride[d]; }
    tt__update_numel(out);
    return true;
}

/* a.i[0..ndim) = perm. */
static bool tt__infer_permute(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int seen[TT_MAX_DIMS], d;
    for (d = 0; d < x->ndim; d++) seen[d] = 0;
    for (d = 0; d < x->ndim; d++) {
        int a = tt__axis((int)c->a.i[d], x->ndim);
        if (a < 0 || seen[a]++) {
            tt__fail(ctx, TT_ERR_ARG, "%s: perm[%d] = %d is out of range or repeated for a tensor of shape %S",
                     c->name, d, (int)c->a.i[d], x);
            return false;
        }
    }
    tt__view_begin(out, x);
    for (d = 0; d < x->ndim; d++) {
        int a = tt__axis((int)c->a.i[d], x->ndim);
        out->shape[d] = x->shape[a];
        out->stride[d] = x->stride[a];
    }
    return true;
}

/* Python slice bounds: negative counts from the end; clamp to [0, size]. */
static int64_t tt__slice_bound(int64_t v, int64_t size) {
    if (v < 0) v = v < -size ? 0 : v + size;
    return v > size ? size : v;
}

/* a.i = {axis, start, stop, step}. */
static bool tt__infer_slice(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int a = tt__axis((int)c->a.i[0], x->ndim);
    int64_t start, stop, step = c->a.i[3];
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[0], x); return false; }
    if (step < 1) { tt__fail(ctx, TT_ERR_ARG, "%s: step is %D, expected >= 1", c->name, step); return false; }
    start = tt__slice_bound(c->a.i[1], x->shape[a]);
    stop = tt__slice_bound(c->a.i[2], x->shape[a]);
    tt__view_begin(out, x);
    out->shape[a] = stop > start ? (stop - start - 1) / step + 1 : 0;
    if (out->shape[a] > 0) out->offset += start * x->stride[a];
    if (out->shape[a] > 1) out->stride[a] *= step;     /* bounded by the storage: step < size here */
    tt__update_numel(out);
    return true;
}

/* a.i[0] = ndim, a.i[1..] = shape (-1 keeps a size). */
static bool tt__infer_expand(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int ndim = (int)c->a.i[0], d, lead;
    const int64_t *shape = &c->a.i[1];
    int64_t numel;
    char buf[16 * TT_MAX_DIMS];
    tt__buf b;
    if (ndim < x->ndim || ndim > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: ndim is %d, expected %d..%d (x is %S)", c->name, ndim, x->ndim, TT_MAX_DIMS, x);
        return false;
    }
    tt__buf_init(&b, buf, sizeof buf);
    tt__put_dims(&b, ndim, shape);
    lead = ndim - x->ndim;
    tt__view_begin(out, x);
    out->ndim = ndim;
    for (d = ndim - 1; d >= 0; d--) {
        int xd = d - lead;
        int64_t want = shape[d], have = xd >= 0 ? x->shape[xd] : 1;
        if (xd >= 0 && want == -1) want = have;
        if (want < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: shape %s has %D at axis %d, expected a size >= 0 (or -1 on an axis of x)",
                     c->name, buf, want, d);
            return false;
        }
        if (xd >= 0 && have != want && have != 1) {
            tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S cannot expand to shape %s: axis %d has size %D, expected 1 or %D",
                     c->name, x, buf, d, have, want);
            return false;
        }
        out->shape[d] = want;
        out->stride[d] = (xd >= 0 && have == want) ? x->stride[xd] : 0;
    }
    if (!tt__check_shape(ctx, c->name, out->ndim, out->shape, &numel)) return false;
    tt__update_numel(out);
    return true;
}

/* a.i[0] = axis. */
static bool tt__infer_squeeze(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int a = tt__axis_0d((int)c->a.i[0], x->ndim), d;
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[0], x); return false; }
    tt__view_begin(out, x);
    if (x->ndim == 0 || x->shape[a] != 1) return true; /* PyTorch: squeezing a non-1 axis is a no-op */
    for (d = a; d < x->ndim - 1; d++) { out->shape[d] = x->shape[d + 1]; out->stride[d] = x->stride[d + 1]; }
    out->ndim--;
    tt__update_numel(out);
    return true;
}

/* a.i[0] = axis, in [-ndim-1, ndim]. */
static bool tt__infer_unsqueeze(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int a = tt__axis((int)c->a.i[0], x->ndim + 1), d;
    if (a < 0 || x->ndim >= TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, x->ndim >= TT_MAX_DIMS ? "%s: axis %d: x %S has TT_MAX_DIMS dims already"
                 : "%s: axis %d is out of range for x %S", c->name, (int)c->a.i[0], x);
        return false;
    }
    tt__view_begin(out, x);
    for (d = x->ndim; d > a; d--) { out->shape[d] = x->shape[d - 1]; out->stride[d] = x->stride[d - 1]; }
    out->shape[a] = 1;
    out->stride[a] = a < x->ndim ? out->shape[a + 1] * out->stride[a + 1] : 1;
    out->ndim++;
    tt__update_numel(out);
    return true;
}

/* A view made inside another op: not recorded, header from ctx (no data copied). */
static tt_tensor *tt__view_internal(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, const tt__attrs *a) {
    tt_tensor *in[1], *out;
    tt__call c;
    if (!ctx || !x) return NULL;
    in[0] = x;
    c = tt__call_init(name, op, in, 1, a);
    out = (tt_tensor *)tt__alloc(ctx, name, sizeof(tt_tensor));
    if (!out) return NULL;
    tt__header_init(out, ctx);
    return tt__op_table[op].infer(ctx, &c, out) ? out : NULL;
}

static tt__attrs tt__attrs_dims(int ndim, const int64_t *shape) {
    tt__attrs a = tt__attrs_zero();
    int d;
    a.i[0] = ndim;
    for (d = 0; d < ndim && d < TT_MAX_DIMS; d++) a.i[1 + d] = shape[d];
    return a;
}

static tt__attrs tt__attrs_ints(int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    tt__attrs a = tt__attrs_zero();
    a.i[0] = i0; a.i[1] = i1; a.i[2] = i2; a.i[3] = i3;
    return a;
}

static tt__attrs tt__attrs_axes(int n, const int *axes) {
    tt__attrs a = tt__attrs_zero();
    int d;
    for (d = 0; d < n && d < TT_MAX_DIMS; d++) a.i[d] = axes[d];
    return a;
}

/* Internal views used by kernels (never recorded). */
static tt_tensor *tt__permute(tt_ctx *ctx, const char *name, tt_tensor *x, const int *perm) {
    tt__attrs a = tt__attrs_axes(x ? x->ndim : 0, perm);
    return tt__view_internal(ctx, name, TT__OP_PERMUTE, x, &a);
}

/* perm that swaps two (valid, normalized) axes of an ndim tensor. */
static void tt__swap_perm(int *perm, int ndim, int a0, int a1) {
    int d;
    for (d = 0; d < ndim; d++) perm[d] = d;
    perm[a0] = a1;
    perm[a1] = a0;
}

static tt_tensor *tt__transpose(tt_ctx *ctx, const char *name, tt_tensor *x, int axis0, int axis1) {
    int perm[TT_MAX_DIMS], a0, a1;
    if (!ctx || !x) return NULL;
    a0 = tt__axis(axis0, x->ndim);
    a1 = tt__axis(axis1, x->ndim);
    if (a0 < 0 || a1 < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axes %d, %d do not fit %S", name, axis0, axis1, x);
    tt__swap_perm(perm, x->ndim, a0, a1);
    return tt__permute(ctx, name, x, perm);
}

/* ---- public views (recorded while tracing) ---- */
static tt_tensor *tt__reshape_op(tt_ctx *ctx, const char *name, tt_tensor *x, int ndim, const int64_t *shape) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, name, shape, "shape", ndim, "ndim", 0, TT_MAX_DIMS)) return NULL;
    a = tt__attrs_dims(ndim, shape);
    return tt__op1(ctx, name, TT__OP_RESHAPE, x, &a);
}
/* True unless x's strides cannot express shape (with its -1 resolved); an invalid shape
   counts as viewable, so that the view op reports it. */
static bool tt__reshape_viewable(const tt_tensor *x, int ndim, const int64_t *shape) {
    int64_t resolved[TT_MAX_DIMS], stride[TT_MAX_DIMS], known = 1;
    int d, infer = -1;
    if (tt_is_contiguous(x)) return true;
    for (d = 0; d < ndim; d++) {
        resolved[d] = shape[d];
        if (shape[d] == -1 && infer < 0) infer = d;
        else if (shape[d] < 0 || (known = tt__mul_checked(known, shape[d])) < 0) return true;
    }
    if (infer >= 0) {
        if (known == 0 || x->numel % known != 0) return true;
        resolved[infer] = x->numel / known;
    } else if (known != x->numel) {
        return true;
    }
    if (!tt__sizes_fit(ndim, resolved)) return true;
    return tt__view_strides(x, ndim, resolved, stride);
}

/* PyTorch's reshape: a view where the strides allow, else a view of a contiguous copy. */
static tt_tensor *tt__reshape_or_copy(tt_ctx *ctx, const char *name, tt_tensor *x, int ndim, const int64_t *shape) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, name, shape, "shape", ndim, "ndim", 0, TT_MAX_DIMS)) return NULL;
    if (!tt__reshape_viewable(x, ndim, shape)) {
        a = tt__attrs_ints((int64_t)x->dtype, 0, 0, 0);
        x = tt__op1(ctx, name, TT__OP_COPY, x, &a);
    }
    return tt__reshape_op(ctx, name, x, ndim, shape);
}

TT_API tt_tensor *tt_reshape(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    return tt__reshape_or_copy(ctx, "tt_reshape", x, ndim, shape);
}
TT_API tt_tensor *tt_view(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    return tt__reshape_op(ctx, "tt_view", x, ndim, shape);
}
TT_API tt_tensor *tt_permute(tt_ctx *ctx, tt_tensor *x, const int *perm) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (x->ndim > 0 && !perm) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_permute: perm is NULL");
    a = tt__attrs_axes(x->ndim, perm);
    return tt__op1(ctx, "tt_permute", TT__OP_PERMUTE, x, &a);
}
TT_API tt_tensor *tt_transpose(tt_ctx *ctx, tt_tensor *x, int axis0, int axis1) {
    int perm[TT_MAX_DIMS], a0, a1;
    tt__attrs a;
    if (!ctx || !x) return NULL;
    a0 = tt__axis_0d(axis0, x->ndim);
    a1 = tt__axis_0d(axis1, x->ndim);
    if (a0 < 0 || a1 < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_transpose: axis0 %d and axis1 %d: expected axes in [%d,%d] "
                                     "for shape %S", axis0, axis1, x->ndim > 0 ? -x->ndim : -1,
                                     x->ndim > 0 ? x->ndim - 1 : 0, x);
    tt__swap_perm(perm, x->ndim, a0, a1);
    a = tt__attrs_axes(x->ndim, perm);
    return tt__op1(ctx, "tt_transpose", TT__OP_PERMUTE, x, &a);
}
TT_API tt_tensor *tt_slice(tt_ctx *ctx, tt_tensor *x, int axis, int64_t start, int64_t stop, int64_t step) {
    tt__attrs a = tt__attrs_ints(axis, start, stop, step);
    return tt__op1(ctx, "tt_slice", TT__OP_SLICE, x, &a);
}
TT_API tt_tensor *tt_expand(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, "tt_expand", shape, "shape", ndim, "ndim", 0, TT_MAX_DIMS)) return NULL;
    a = tt__attrs_dims(ndim, shape);
    return tt__op1(ctx, "tt_expand", TT__OP_EXPAND, x, &a);
}
TT_API tt_tensor *tt_squeeze(tt_ctx *ctx, tt_tensor *x, int axis) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    return tt__op1(ctx, "tt_squeeze", TT__OP_SQUEEZE, x, &a);
}
TT_API tt_tensor *tt_unsqueeze(tt_ctx *ctx, tt_tensor *x, int axis) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    return tt__op1(ctx, "tt_unsqueeze", TT__OP_UNSQUEEZE, x, &a);
}
TT_API tt_tensor *tt_flatten(tt_ctx *ctx, tt_tensor *x, int start_axis, int end_axis) {
    int64_t shape[TT_MAX_DIMS];
    int s, e, d, n = 0;
    if (!ctx || !x) return NULL;
    s = tt__axis_0d(start_axis, x->ndim);
    e = tt__axis_0d(end_axis, x->ndim);
    if (s < 0 || e < 0 || s > e)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_flatten: start_axis %d and end_axis %d are invalid for "
                                     "shape %S", start_axis, end_axis, x);
    shape[0] = 1;                                      /* a scalar becomes [1] */
    for (d = 0; d < s; d++) shape[n++] = x->shape[d];
    shape[n] = 1;
    for (d = s; d <= e && d < x->ndim; d++) shape[n] *= x->shape[d];
    n++;
    for (d = e + 1; d < x->ndim; d++) shape[n++] = x->shape[d];
    return tt__reshape_or_copy(ctx, "tt_flatten", x, n, shape);   /* a copy where a view cannot do (PyTorch) */
}

/* ==========================================================================
 * >>loop   the strided N-d loop that every elementwise kernel runs on
 *
 * An elementwise op walks up to TT__MAX_OPS operands over one shape, each with its own
 * strides (0 on broadcast axes). tt__loop_init drops size-1 axes and merges axes that
 * are contiguous for every operand, so a contiguous tensor becomes one long row. The
 * kernel then handles rows: tt__loop_next moves every operand to the next row.
 * ========================================================================== */
#define TT__MAX_OPS 16         /* a fused node: its outputs (one operand) and up to 15 inputs */
#define TT__CHUNK   256          /* elements per gathered chunk: 1 KiB of floats, stays in L1 */

typedef struct tt__loop {
    int     ndim, nops;
    int64_t shape[TT_MAX_DIMS];
    int64_t stride[TT__MAX_OPS][TT_MAX_DIMS];
    int64_t idx[TT_MAX_DIMS];
    int64_t off[TT__MAX_OPS];     /* element offset of each operand at the current row start */
    int64_t base[TT__MAX_OPS];    /* ... at the first row */
    int64_t inner[TT__MAX_OPS];   /* stride along a row */
    int64_t rows, n;              /* number of rows, elements per row */
} tt__loop;

static void tt__loop_init(tt__loop *L, int ndim, const int64_t *shape, int nops,
                          const int64_t *const *strides, const int64_t *offsets) {
    int d, k, m = 0;
    int64_t total = 1;
    memset(L, 0, sizeof *L);
    L->nops = nops;
    for (d = 0; d < ndim; d++) if (shape[d] == 0) total = 0;          /* before any product overflows */
    for (d = 0; d < ndim && total; d++) total *= shape[d];
    for (d = 0; d < ndim; d++) {
        if (shape[d] == 1) continue;
        if (m > 0) {                                    /* merge into the previous axis if contiguous for all */
            bool merge = true;
            for (k = 0; k < nops; k++)
                if (L->stride[k][m - 1] != strides[k][d] * shape[d]) merge = false;
            if (merge) {
                L->shape[m - 1] *= shape[d];
                for (k = 0; k < nops; k++) L->stride[k][m - 1] = strides[k][d];
                continue;
            }
        }
        L->shape[m] = shape[d];
        for (k = 0; k < nops; k++) L->stride[k][m] = strides[k][d];
        m++;
    }
    if (m == 0) { L->shape[0] = 1; m = 1; }
    L->ndim = m;
    L->n = L->shape[m - 1];
    L->rows = total == 0 ? 0 : total / L->n;
    for (k = 0; k < nops; k++) {
        L->off[k] = L->base[k] = offsets[k];
        L->inner[k] = L->stride[k][m - 1];
    }
}

/* Moves L to the start of row r (rows in row-major order of the outer axes). */
static void tt__loop_seek(tt__loop *L, int64_t r) {
    int d, k;
    for (k = 0; k < L->nops; k++) L->off[k] = L->base[k];
    for (d = L->ndim - 2; d >= 0; d--) {
        L->idx[d] = r % L->shape[d];
        r /= L->shape[d];
        for (k = 0; k < L->nops; k++) L->off[k] += L->idx[d] * L->stride[k][d];
    }
}

/* Tasks of an elementwise loop: about TT__TASK_ELEMS elements each, cut from the shape
   alone (pieces of one long row, or groups of short rows), never from the thread count. */
#define TT__TASK_ELEMS 16384

typedef struct tt__split { int64_t rows, n, rows_per_task, blocks_per_row, tasks; } tt__split;

static tt__split tt__split_loop(const tt__loop *L) {
    tt__split s;
    s.rows = L->rows;
    s.n = L->n;
    if (L->n >= TT__TASK_ELEMS) {
        s.blocks_per_row = (L->n + TT__TASK_ELEMS - 1) / TT__TASK_ELEMS;
        s.rows_per_task = 1;
        s.tasks = L->rows * s.blocks_per_row;
    } else {
        s.blocks_per_row = 1;
        s.rows_per_task = TT__TASK_ELEMS / (L->n > 0 ? L->n : 1);
        s.tasks = (L->rows + s.rows_per_task - 1) / s.rows_per_task;
    }
    return s;
}

/* Task t: rows [r[0], r[1]) and, in each, elements [e[0], e[1]). */
static void tt__split_task(const tt__split *s, int64_t t, int64_t *r, int64_t *e) {
    if (s->blocks_per_row > 1) {
        r[0] = t / s->blocks_per_row;
        r[1] = r[0] + 1;
        e[0] = (t % s->blocks_per_row) * TT__TASK_ELEMS;
        e[1] = tt__min64(s->n, e[0] + TT__TASK_ELEMS);
    } else {
        r[0] = t * s->rows_per_task;
        r[1] = tt__min64(s->rows, r[0] + s->rows_per_task);
        e[0] = 0;
        e[1] = s->n;
    }
}

static void tt__loop_next(tt__loop *L) {
    int d, k;
    for (d = L->ndim - 2; d >= 0; d--) {
        L->idx[d]++;
        for (k = 0; k < L->nops; k++) L->off[k] += L->stride[k][d];
        if (L->idx[d] < L->shape[d]) return;
        for (k = 0; k < L->nops; k++) L->off[k] -= L->stride[k][d] * L->shape[d];
        L->idx[d] = 0;
    }
}

/* NumPy broadcasting of two shapes (aligned at the last axis); false if they clash. */
static bool tt__broadcast_shape(int an, const int64_t *as, int bn, const int64_t *bs, int *on, int64_t *os) {
    int64_t shape[TT_MAX_DIMS];                        /* os may be as or bs: write it at the end */
    int n = an > bn ? an : bn, d;
    for (d = 0; d < n; d++) {
        int ad = an - n + d, bd = bn - n + d;
        int64_t sa = ad >= 0 ? as[ad] : 1, sb = bd >= 0 ? bs[bd] : 1;
        if (sa != sb && sa != 1 && sb != 1) return false;
        shape[d] = sa == 1 ? sb : sa;
    }
    for (d = 0; d < n; d++) os[d] = shape[d];
    *on = n;
    return true;
}

/* Strides that make x look like a tensor of (ndim, shape): 0 on broadcast axes. */
static void tt__broadcast_strides(const tt_tensor *x, int ndim, const int64_t *shape, int64_t *stride) {
    int d;
    for (d = 0; d < ndim; d++) {
        int xd = d - (ndim - x->ndim);
        stride[d] = (xd < 0 || (x->shape[xd] == 1 && shape[d] != 1)) ? 0 : x->stride[xd];
    }
}

/* Is t a 4-D tensor in channels-last order (strides [H*W*C, 1, W*C, C]: a compiled graph's
   layout pass keeps some values so)? (Not when it has one channel or one pixel: then
   both orders are the same bytes, and it counts as contiguous.) */
static bool tt__is_channels_last(const tt_tensor *t) {
    int64_t C, HW;
    if (t->ndim != 4) return false;
    C = t->shape[1];
    HW = t->shape[2] * t->shape[3];
    return C > 1 && HW > 1 && t->stride[1] == 1 && t->stride[3] == C && t->stride[2] == t->shape[3] * C &&
           t->stride[0] == HW * C;
}

/* dst = src for f32 [N, C, H, W] tensors of which one is channels-last and the other
   contiguous (the layout pass's conversions), one image row (C x W floats, in L1) at a time:
   the strided loop would walk a whole image per channel. False (nothing done) otherwise. */
static bool tt__copy_layout(tt_tensor *dst, const tt_tensor *src) {
    bool to_last = tt__is_channels_last(dst) && tt_is_contiguous(src);
    int64_t C, H, W, row, c, w;
    float *d = (float *)tt__ptr(dst);
    const float *s = (const float *)tt__ptr(src);
    if (dst->dtype != TT_F32 || src->dtype != TT_F32 || !(to_last || (tt__is_channels_last(src) && tt_is_contiguous(dst))))
        return false;
    C = dst->shape[1];
    H = dst->shape[2];
    W = dst->shape[3];
    for (row = 0; row < dst->shape[0] * H; row++) {    /* (image, h) */
        const float *first = s + (to_last ? row / H * C * H * W + row % H * W : row * W * C);
        float *out = d + (to_last ? row * W * C : row / H * C * H * W + row % H * W);
        for (c = 0; c < C; c++)
            for (w = 0; w < W; w++) {
                if (to_last) out[w * C + c] = first[c * H * W + w];
                else out[c * H * W + w] = first[w * C + c];
            }
    }
    return true;
}

/* Copies src into dst element by element (same shape; dtypes may differ: converted). */
static void tt__copy_into(tt_tensor *dst, const tt_tensor *src) {
    tt__loop L;
    const int64_t *strides[2];
    int64_t offsets[2], r, i;
    size_t es = tt_dtype_size(dst->dtype);
    if (tt__copy_layout(dst, src)) return;
    strides[0] = dst->stride; strides[1] = src->stride;
    offsets[0] = dst->offset; offsets[1] = src->offset;
    tt__loop_init(&L, dst->ndim, dst->shape, 2, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        int64_t od = L.off[0], os = L.off[1], sd = L.inner[0], ss = L.inner[1];
        if (dst->dtype != src->dtype) {
            for (i = 0; i < L.n; i++) tt__store(dst->data, dst->dtype, od + i * sd, (double)tt__load(src->data, src->dtype, os + i * ss));
        } else if (es == 4) {
            uint32_t *d = (uint32_t *)dst->data + od;
            const uint32_t *s = (const uint32_t *)src->data + os;
            if (sd == 1 && ss == 1) memcpy(d, s, (size_t)L.n * 4);
            else for (i = 0; i < L.n; i++) d[i * sd] = s[i * ss];
        } else if (es == 2) {
            uint16_t *d = (uint16_t *)dst->data + od;
            const uint16_t *s = (const uint16_t *)src->data + os;
            for (i = 0; i < L.n; i++) d[i * sd] = s[i * ss];
        } else {
            uint8_t *d = (uint8_t *)dst->data + od;
            const uint8_t *s = (const uint8_t *)src->data + os;
            for (i = 0; i < L.n; i++) d[i * sd] = s[i * ss];
        }
    }
}

/* A new contiguous tensor of dtype holding x's values. */
static tt_tensor *tt__copy_as(tt_ctx *ctx, const char *op, tt_tensor *x, tt_dtype dtype) {
    tt_tensor *t = tt__new(ctx, op, dtype, x->ndim, x->shape);
    if (t) tt__copy_into(t, x);
    return t;
}

/* x itself when it is f32, else a contiguous f32 copy: kernels compute in f32 only. */
static tt_tensor *tt__as_f32(tt_ctx *ctx, const char *op, tt_tensor *x) {
    if (!x) return NULL;
    return x->dtype == TT_F32 ? x : tt__copy_as(ctx, op, x, TT_F32);
}

/* x itself when contiguous f32, else a contiguous f32 copy: for kernels that index rows. */
static tt_tensor *tt__contiguous_f32(tt_ctx *ctx, const char *op, tt_tensor *x) {
    if (!x) return NULL;
    return (x->dtype == TT_F32 && tt_is_contiguous(x)) ? x : tt__copy_as(ctx, op, x, TT_F32);
}

/* ==========================================================================
 * >>ewise   unary, binary, comparison, logical, where, cast; vectorizable exp/tanh/erf
 *
 * The chunk kernels that eager ops and fused programs share, expanded from the
 * expression lists in >>dispatch (TT__UNARY_OPS, TT__BINARY_OPS), then the ops'
 * infer/exec and their public functions.
 * ========================================================================== */
/* Runs stmt for i = 0..n-1 in blocks of 16 (then a tail): the form that GCC vectorizes
   at -O2, whose cheap cost model skips plain loops of unknown length. 16 fills one
   AVX-512 register (blocks of 8 gave 256-bit code: exp and tanh ran 1.6x slower). */
#define TT__EACH(n, stmt) do {                                              \
        int64_t i_, l_;                                                     \
        for (i_ = 0; i_ + 16 <= (n); i_ += 16)                              \
            for (l_ = 0; l_ < 16; l_++) { int64_t i = i_ + l_; stmt; }      \
        for (; i_ < (n); i_++) { int64_t i = i_; stmt; }                    \
    } while (0)

/* Pointer to n floats of a row with stride s: the row itself when s == 1, else gathered. */
static const float *tt__gather(const float *p, int64_t s, int64_t n, float *buf) {
    int64_t i;
    if (s == 1) return p;
    if (s == 0) { float v = p[0]; TT__EACH(n, buf[i] = v); return buf; }   /* a broadcast scalar */
    for (i = 0; i < n; i++) buf[i] = p[i * s];
    return buf;
}

/* Vectorizable exp and tanh: plain C with selects instead of branches, so GCC and clang
   vectorize them inside TT__EACH blocks (libm's expf/tanhf are calls, and glibc's tanhf
   takes ~100 ns here). Measured against libm in double over every 97th float:
   exp <= 0.98 ulp for normal results (subnormal results: <= 0.75 ulp), tanh <= 1.34 ulp
   (every float of the worst binade checked; tests/test_ulp.c keeps the table).
   exp(x) = 2^k * exp(r): k = round(x/ln2), r = x - k*ln2 in two parts (exact first
   product), exp(r) by a degree-5 minimax polynomial for (exp(r)-1-r)/r^2 (Cephes
   coefficients), and 2^k applied in two halves so subnormal results round once. */
TT__MATH float tt__expf(float x) {
    float t = x > 88.7228394f ? 88.7228394f : x < -103.972084f ? -103.972084f : x == x ? x : 0.0f;  /* NaN: 0 here */
    float kf = (t * 1.44269504089f + 12582912.0f) - 12582912.0f;      /* round to nearest */
    float r = (t - kf * 0.693359375f) - kf * -2.12194440e-4f;
    float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r
               + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;
    int32_t k = (int32_t)kf, k1 = k / 2, k2 = k - k1;
    uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(k2 + 127) << 23;
    float s1, s2, e;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    e = ((r * r) * p + r + 1.0f) * s1 * s2;
    e = x > 88.7228394f ? INFINITY : x < -103.972084f ? 0.0f : e;   /* exp(-inf) is exactly 0 */
    return x != x ? x : e;
}

/* tanh: an odd polynomial near 0 (Cephes coefficients), else 1 - 2/(exp(2|x|)+1); the
   sign is copied back so tanh(-0) is -0. */
TT__MATH float tt__tanhf(float x) {
    float ax = fabsf(x), z = x * x;
    float small = copysignf(((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z
                              + 1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x, x);
    float big = 1.0f - 2.0f / (tt__expf(2.0f * ax) + 1.0f);
    big = x < 0 ? -big : big;
    return ax < 0.625f ? small : big;
}

/* erf: for |x| < 1, x + x*P(x^2) (the leading x kept apart so it rounds once); for
   1 <= |x| < 4, 1 - exp(-x^2) * Q(1/|x|), since erfc(x)*exp(x^2) is smooth in 1/x; 1 beyond
   (erf rounds to 1 in f32 there). P and Q are our own least-squares fits on Chebyshev
   nodes (relative error ~1e-9 and ~2e-8 in double); in f32 the result is <= 1.5 ulp. */
TT__MATH float tt__erff(float x) {
    float ax = fabsf(x), z = x * x;
    float ps = ((((((-9.634991329e-06f * z + 1.125464114e-04f) * z - 8.482507546e-04f) * z + 5.220923107e-03f) * z
                  - 2.686539292e-02f) * z + 1.128378212e-01f) * z - 3.761263788e-01f) * z + 1.283791661e-01f;
    float t = 1.0f / (ax > 1.0f ? ax : 1.0f);
    float q = ((((((((2.967723645e-02f * t - 1.740014404e-01f) * t + 4.245884418e-01f) * t - 5.183950067e-01f) * t
                  + 2.225583047e-01f) * t + 2.390853763e-01f) * t - 3.789607584e-01f) * t + 2.122417279e-02f) * t
              + 5.616815090e-01f) * t + 1.257577824e-04f;
    float big = ax >= 4.0f ? 1.0f : 1.0f - tt__expf(-z) * q;
    big = x < 0 ? -big : big;
    return ax < 1.0f ? x + x * ps : x != x ? x : big;
}

TT__MATH float tt__sigmoidf(float x) { return 1.0f / (1.0f + tt__expf(-x)); }
TT__MATH float tt__gelu_tanhf(float v) {
    return 0.5f * v * (1.0f + tt__tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
}
/* min(max(x,lo),hi) as PyTorch: hi wins when lo > hi; NaN stays NaN. */
TT__MATH float tt__clampf(float x, float lo, float hi) {
    float v = x < lo ? lo : x;
    return v > hi ? hi : v;
}

TT__MATH float tt__reluf(float x) { return x < 0 ? 0.0f : x; }
/* x^p; p == 2 squares exactly (one rounding), as PyTorch does. */
TT__MATH float tt__pow_scalarf(float x, float p) { return p == 2.0f ? x * x : powf(x, p); }

/* y[i] = op(x[i]) for a contiguous chunk; p0, p1 are the op's scalar parameters. Eager ops
   and fused programs both run it: one case per row of TT__UNARY_OPS. */
#define TT__UNARY_CASE(X_, N, name, n_params, flags, expr) \
    case TT__OP_##N: TT__EACH(n, { const float x = xs[i]; y[i] = (expr); }); break;
TT__INLINE void tt__unary_chunk_body(int op, float *TT__RESTRICT y, const float *TT__RESTRICT xs, int64_t n,
                                     float p0, float p1) {
    switch (op) {
    default: break;
    TT__UNARY_OPS(TT__UNARY_CASE, _)
    }
}
#undef TT__UNARY_CASE
TT__TWINS(, tt__unary_chunk, (int op, float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t n, float p0, float p1),
          (op, y, x, n, p0, p1))

TT__MATH float tt__maxf(float a, float b) { return a != a ? a : b != b ? b : a > b ? a : b; }  /* NaN wins */
TT__MATH float tt__minf(float a, float b) { return a != a ? a : b != b ? b : a < b ? a : b; }

/* y[i] = a[i] op b[i] for contiguous chunks; comparisons give 1.0f or 0.0f. One case per
   row of TT__BINARY_OPS. */
#define TT__BINARY_CASE(X_, N, name, flags, expr) \
    case TT__OP_##N: TT__EACH(n, { const float a = as[i]; const float b = bs[i]; y[i] = (expr); }); break;
TT__INLINE void tt__binary_chunk_body(int op, float *TT__RESTRICT y, const float *TT__RESTRICT as,
                                      const float *TT__RESTRICT bs, int64_t n) {
    switch (op) {
    default: break;
    TT__BINARY_OPS(TT__BINARY_CASE, _)
    }
}
#undef TT__BINARY_CASE
TT__TWINS(, tt__binary_chunk, (int op, float *TT__RESTRICT y, const float *TT__RESTRICT a, const float *TT__RESTRICT b,
                               int64_t n), (op, y, a, b, n))

/* y = (a op b) op2 c, or c op2 (a op b) when swap; op and op2 are ADD, SUB or MUL, the ops
   flagged TT__F_PAIRABLE (a static check in >>dispatch pins the two lists together). The
   product and the sum round separately, as the two ops would one after the other. */
#define TT__PAIR_EACH(first) do {                                                            \
        switch (op2 * 2 + swap) {                                                               \
        default: break;                                                                         \
        case TT__OP_ADD * 2:     TT__EACH(n, { float t = first; y[i] = t + c[i]; }); break;     \
        case TT__OP_ADD * 2 + 1: TT__EACH(n, { float t = first; y[i] = c[i] + t; }); break;     \
        case TT__OP_SUB * 2:     TT__EACH(n, { float t = first; y[i] = t - c[i]; }); break;     \
        case TT__OP_SUB * 2 + 1: TT__EACH(n, { float t = first; y[i] = c[i] - t; }); break;     \
        case TT__OP_MUL * 2:     TT__EACH(n, { float t = first; y[i] = t * c[i]; }); break;     \
        case TT__OP_MUL * 2 + 1: TT__EACH(n, { float t = first; y[i] = c[i] * t; }); break;     \
        }                                                                                       \
    } while (0)

TT__INLINE void tt__pair_chunk_body(int op, int op2, int swap, float *TT__RESTRICT y, const float *TT__RESTRICT a,
                                    const float *TT__RESTRICT b, const float *TT__RESTRICT c, int64_t n) {
    TT__NO_CONTRACT_BODY
    switch (op) {
    default: break;
    case TT__OP_ADD: TT__PAIR_EACH(a[i] + b[i]); break;
    case TT__OP_SUB: TT__PAIR_EACH(a[i] - b[i]); break;
    case TT__OP_MUL: TT__PAIR_EACH(a[i] * b[i]); break;
    }
}
TT__TWINS(TT__NO_CONTRACT, tt__pair_chunk, (int op, int op2, int swap, float *TT__RESTRICT y, const float *TT__RESTRICT a,
                                           const float *TT__RESTRICT b, const float *TT__RESTRICT c, int64_t n),
          (op, op2, swap, y, a, b, c, n))

/* Where a chunk's results go: straight into an f32 output, or into buf to be narrowed. */
static float *tt__chunk_dst(tt_tensor *out, int64_t off, float *buf) {
    return out->dtype == TT_F32 ? (float *)out->data + off : buf;
}

/* Narrows a chunk of 0/1 floats into a bool output (f32 outputs were written in place). */
static void tt__store_chunk(tt_tensor *out, int64_t off, const float *v, int64_t n) {
    int64_t i;
    if (out->dtype == TT_BOOL) {
        uint8_t *d = (uint8_t *)out->data + off;
        for (i = 0; i < n; i++) d[i] = (uint8_t)(v[i] != 0.0f);
    }
}

/* Copies element i of a, or of b, by element size: where() never converts values. */
static void tt__select_elems(void *out, const uint8_t *cond, int64_t sc, const void *a, int64_t sa,
                             const void *b, int64_t sb, int64_t n, size_t es) {
    int64_t i;
    if (es == 4) {
        uint32_t *o = (uint32_t *)out; const uint32_t *pa = (const uint32_t *)a, *pb = (const uint32_t *)b;
        for (i = 0; i < n; i++) o[i] = cond[i * sc] ? pa[i * sa] : pb[i * sb];
    } else if (es == 2) {
        uint16_t *o = (uint16_t *)out; const uint16_t *pa = (const uint16_t *)a, *pb = (const uint16_t *)b;
        for (i = 0; i < n; i++) o[i] = cond[i * sc] ? pa[i * sa] : pb[i * sb];
    } else {
        uint8_t *o = (uint8_t *)out; const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
        for (i = 0; i < n; i++) o[i] = cond[i * sc] ? pa[i * sa] : pb[i * sb];
    }
}

/* where() and cast on f32 chunks, as fused programs hold values: cond is 0 or 1, and a
   cast keeps what tt__store and tt__load (the eager cast's copy) would keep. */
static void tt__where_chunk(float *y, const float *cond, const float *a, const float *b, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) y[i] = cond[i] != 0.0f ? a[i] : b[i];
}
static void tt__cast_chunk(float *y, const float *x, int64_t n, tt_dtype dt) {
    int64_t i;
    switch (dt) {                                      /* the dtype chosen once per chunk */
    case TT_F16:  for (i = 0; i < n; i++) y[i] = tt_f16_to_f32(tt_f32_to_f16(x[i])); break;
    case TT_BF16: for (i = 0; i < n; i++) y[i] = tt_bf16_to_f32(tt_f32_to_bf16(x[i])); break;
    default:      for (i = 0; i < n; i++) y[i] = tt__round_trip(dt, x[i]); break;
    }
}

/* ---- elementwise infer / exec -------------------------------------------- */

/* x's shape with dtype. */
static void tt__infer_like(tt_tensor *out, const tt_tensor *x, tt_dtype dtype) {
    int d;
    out->dtype = dtype;
    out->ndim = x->ndim;
    for (d = 0; d < x->ndim; d++) out->shape[d] = x->shape[d];
    tt__set_contiguous_strides(out);           /* x's size was checked when x was made */
    tt__update_numel(out);
}

static bool tt__infer_unary(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    (void)ctx;
    tt__infer_like(out, c->in[0], tt__op_has(c->op, TT__F_BOOL_OUT) ? TT_BOOL : TT_F32);
    return true;
}

/* One task of an elementwise op: its rows of the loop, in chunks of TT__CHUNK. */
typedef struct tt__ewise_job {
    tt__loop         L;
    tt__split        sp;
    const tt_tensor *a, *b;        /* f32 inputs (b: binary ops only) */
    tt_tensor       *out;
    int              op;
    float            p0, p1;
    const tt__kernels *kt;
} tt__ewise_job;

static void tt__ewise_task(void *arg, int64_t t, int thread) {
    const tt__ewise_job *j = (const tt__ewise_job *)arg;
    tt__loop L = j->L;
    int64_t r[2], e[2], row, k;
    float abuf[TT__CHUNK], bbuf[TT__CHUNK], ybuf[TT__CHUNK];
    (void)thread;
    tt__split_task(&j->sp, t, r, e);
    tt__loop_seek(&L, r[0]);
    for (row = r[0]; row < r[1]; row++, tt__loop_next(&L)) {
        for (k = e[0]; k < e[1]; k += TT__CHUNK) {
            int64_t n = tt__min64(TT__CHUNK, e[1] - k);
            const float *as = tt__gather((const float *)j->a->data + L.off[1] + k * L.inner[1], L.inner[1], n, abuf);
            float *y = tt__chunk_dst(j->out, L.off[0] + k, ybuf);
            if (j->b) {
                const float *bs = tt__gather((const float *)j->b->data + L.off[2] + k * L.inner[2], L.inner[2], n, bbuf);
                j->kt->binary_chunk(j->op, y, as, bs, n);
            } else {
                j->kt->unary_chunk(j->op, y, as, n, j->p0, j->p1);
            }
            tt__store_chunk(j->out, L.off[0] + k, y, n);
        }
    }
}

static bool tt__exec_unary(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt__ewise_job j;
    const int64_t *strides[2];
    int64_t offsets[2];
    tt_tensor *xf = tt__as_f32(ctx, c->name, c->in[0]);
    if (!xf) return false;
    strides[0] = out->stride; strides[1] = xf->stride;
    offsets[0] = out->offset; offsets[1] = xf->offset;
    tt__loop_init(&j.L, out->ndim, out->shape, 2, strides, offsets);
    j.sp = tt__split_loop(&j.L);
    j.a = xf; j.b = NULL; j.out = out; j.op = c->op; j.p0 = c->a.f[0]; j.p1 = c->a.f[1]; j.kt = ctx->kern;
    tt__parallel_for(ctx, tt__ewise_task, &j, j.sp.tasks);
    return true;
}

static bool tt__infer_binary(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *a = c->in[0], *b = c->in[1];
    if (!tt__broadcast_shape(a->ndim, a->shape, b->ndim, b->shape, &out->ndim, out->shape)) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: a %S and b %S do not broadcast", c->name, a, b);
        return false;
    }
    out->dtype = tt__op_has(c->op, TT__F_BOOL_OUT) ? TT_BOOL : TT_F32;
    return tt__header_finish(ctx, c->name, "a and b", out);
}

static bool tt__exec_binary(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int64_t sa[TT_MAX_DIMS], sb[TT_MAX_DIMS], offsets[3];
    const int64_t *strides[3];
    tt_tensor *af = tt__as_f32(ctx, c->name, c->in[0]);
    tt_tensor *bf = af ? tt__as_f32(ctx, c->name, c->in[1]) : NULL;
    tt__ewise_job j;
    if (!bf) return false;
    tt__broadcast_strides(af, out->ndim, out->shape, sa);
    tt__broadcast_strides(bf, out->ndim, out->shape, sb);
    strides[0] = out->stride; strides[1] = sa; strides[2] = sb;
    offsets[0] = out->offset; offsets[1] = af->offset; offsets[2] = bf->offset;
    tt__loop_init(&j.L, out->ndim, out->shape, 3, strides, offsets);
    j.sp = tt__split_loop(&j.L);
    j.a = af; j.b = bf; j.out = out; j.op = c->op; j.p0 = j.p1 = 0; j.kt = ctx->kern;
    tt__parallel_for(ctx, tt__ewise_task, &j, j.sp.tasks);
    return true;
}

static bool tt__infer_where(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *cond = c->in[0], *a = c->in[1], *b = c->in[2];
    if (cond->dtype != TT_BOOL) {
        tt__fail(ctx, TT_ERR_DTYPE, "%s: cond has dtype %T, expected bool (make one with a comparison such as tt_gt)",
                 c->name, (int)cond->dtype);
        return false;
    }
    if (!tt__broadcast_shape(cond->ndim, cond->shape, a->ndim, a->shape, &out->ndim, out->shape) ||
        !tt__broadcast_shape(out->ndim, out->shape, b->ndim, b->shape, &out->ndim, out->shape)) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: cond %S, a %S and b %S do not broadcast", c->name, cond, a, b);
        return false;
    }
    out->dtype = a->dtype == b->dtype ? a->dtype : TT_F32;
    return tt__header_finish(ctx, c->name, "cond, a and b", out);
}

static bool tt__exec_where(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int64_t s[3][TT_MAX_DIMS], offsets[4], r;
    const int64_t *strides[4];
    tt_tensor *cond = c->in[0], *a = c->in[1], *b = c->in[2];
    size_t es = tt_dtype_size(out->dtype);
    tt__loop L;
    if (a->dtype != b->dtype) {                        /* mixed dtypes meet in f32 */
        a = tt__as_f32(ctx, c->name, a);
        b = a ? tt__as_f32(ctx, c->name, b) : NULL;
        if (!b) return false;
    }
    tt__broadcast_strides(cond, out->ndim, out->shape, s[0]);
    tt__broadcast_strides(a, out->ndim, out->shape, s[1]);
    tt__broadcast_strides(b, out->ndim, out->shape, s[2]);
    strides[0] = out->stride; strides[1] = s[0]; strides[2] = s[1]; strides[3] = s[2];
    offsets[0] = out->offset; offsets[1] = cond->offset; offsets[2] = a->offset; offsets[3] = b->offset;
    tt__loop_init(&L, out->ndim, out->shape, 4, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        tt__select_elems((char *)out->data + (size_t)L.off[0] * es, (const uint8_t *)cond->data + L.off[1], L.inner[1],
                         (const char *)a->data + L.off[2] * (int64_t)es, L.inner[2],
                         (const char *)b->data + L.off[3] * (int64_t)es, L.inner[3], L.n, es);
    }
    return true;
}

/* COPY and CAST: a.i[0] = the result dtype. */
static bool tt__infer_cast(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_dtype dt = (tt_dtype)c->a.i[0];
    if (!tt__dtype_valid(dt)) {
        tt__fail(ctx, TT_ERR_DTYPE, "%s: invalid dtype %d", c->name, (int)c->a.i[0]);
        return false;
    }
    tt__infer_like(out, c->in[0], dt);
    return true;
}

static bool tt__exec_cast(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    (void)ctx;
    tt__copy_into(out, c->in[0]);
    return true;
}

/* ---- elementwise public ops ---------------------------------------------- */
static tt_tensor *tt__unary(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, float p0, float p1) {
    tt__attrs a = tt__attrs_zero();
    a.f[0] = p0;
    a.f[1] = p1;
    return tt__op1(ctx, name, op, x, &a);
}

static tt_tensor *tt__binary(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, tt_tensor *y) {
    tt__attrs a = tt__attrs_zero();
    tt_tensor *in[2];
    in[0] = x; in[1] = y;
    return tt__op(ctx, name, op, in, 2, &a);
}

/* tt_<name>(ctx, x) for every unary op without parameters; the others follow by hand. */
#define TT__UNARY_FN_0(N, name) \
    TT_API tt_tensor *tt_##name(tt_ctx *ctx, tt_tensor *x) { return tt__unary(ctx, "tt_" #name, TT__OP_##N, x, 0.0f, 0.0f); }
#define TT__UNARY_FN_1(N, name)
#define TT__UNARY_FN_2(N, name)
#define TT__UNARY_FN(X_, N, name, n_params, flags, expr) TT__UNARY_FN_##n_params(N, name)
TT__UNARY_OPS(TT__UNARY_FN, _)
#undef TT__UNARY_FN

TT_API tt_tensor *tt_leaky_relu(tt_ctx *ctx, tt_tensor *x, float slope) {
    return tt__unary(ctx, "tt_leaky_relu", TT__OP_LEAKY_RELU, x, slope, 0.0f);
}
TT_API tt_tensor *tt_elu(tt_ctx *ctx, tt_tensor *x, float alpha) {
    return tt__unary(ctx, "tt_elu", TT__OP_ELU, x, alpha, 0.0f);
}
TT_API tt_tensor *tt_clamp(tt_ctx *ctx, tt_tensor *x, float lo, float hi) {
    return tt__unary(ctx, "tt_clamp", TT__OP_CLAMP, x, lo, hi);
}
TT_API tt_tensor *tt_pow_scalar(tt_ctx *ctx, tt_tensor *x, float exponent) {
    return tt__unary(ctx, "tt_pow_scalar", TT__OP_POW_SCALAR, x, exponent, 0.0f);
}

/* tt_<name>(ctx, a, b) for every binary op. */
#define TT__BINARY_FN(X_, N, name, flags, expr) \
    TT_API tt_tensor *tt_##name(tt_ctx *ctx, tt_tensor *a, tt_tensor *b) { return tt__binary(ctx, "tt_" #name, TT__OP_##N, a, b); }
TT__BINARY_OPS(TT__BINARY_FN, _)
#undef TT__BINARY_FN

/* x op s: the scalar becomes a 0-d constant that broadcasts. */
static tt_tensor *tt__binary_scalar(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, float s) {
    tt_tensor *st;
    if (!ctx || !x) return NULL;
    st = tt__full(ctx, name, TT_F32, 0, NULL, (double)s);
    return st ? tt__binary(ctx, name, op, x, st) : NULL;
}
TT_API tt_tensor *tt_add_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_add_scalar", TT__OP_ADD, x, s); }
TT_API tt_tensor *tt_sub_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_sub_scalar", TT__OP_SUB, x, s); }
TT_API tt_tensor *tt_mul_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_mul_scalar", TT__OP_MUL, x, s); }
TT_API tt_tensor *tt_div_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_div_scalar", TT__OP_DIV, x, s); }

TT_API tt_tensor *tt_where(tt_ctx *ctx, tt_tensor *cond, tt_tensor *a, tt_tensor *b) {
    tt__attrs at = tt__attrs_zero();
    tt_tensor *in[3];
    in[0] = cond; in[1] = a; in[2] = b;
    return tt__op(ctx, "tt_where", TT__OP_WHERE, in, 3, &at);
}

TT_API tt_tensor *tt_cast(tt_ctx *ctx, tt_tensor *x, tt_dtype dtype) {
    tt__attrs a = tt__attrs_ints((int64_t)dtype, 0, 0, 0);
    return tt__op1(ctx, "tt_cast", TT__OP_CAST, x, &a);
}

TT_API tt_tensor *tt_contiguous(tt_ctx *ctx, tt_tensor *x) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (tt_is_contiguous(x)) return x;
    a = tt__attrs_ints((int64_t)x->dtype, 0, 0, 0);
    return tt__op1(ctx, "tt_contiguous", TT__OP_COPY, x, &a);
}

TT_API tt_tensor *tt_clone(tt_ctx *ctx, tt_tensor *x) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    a = tt__attrs_ints((int64_t)x->dtype, 0, 0, 0);
    return tt__op1(ctx, "tt_clone", TT__OP_COPY, x, &a);
}

/* ==========================================================================
 * >>reduce   sum, mean, max, min, prod, var, argmax/argmin, softmax, norms
 *
 * Every reduction first moves the reduced axes to the end (a permuted view) and makes
 * that contiguous, so the work is M rows of K values: output m reduces row m. Rows are
 * summed in tt__wide (double; float with TT_FLOAT_ACCUM) in a fixed order, so results do not
 * depend on how rows are split.
 * A reduction call carries its axes as a bit mask (a.i[0]), keepdim (a.i[1]) and the
 * variance correction (a.i[2]).
 * ========================================================================== */

/* The bit mask of the reduced axes; NULL/0 axes means all. -1 (with an error) if invalid. */
static int64_t tt__reduce_mask(tt_ctx *ctx, const char *op, const tt_tensor *x, const int *axes, int n_axes) {
    int64_t mask = 0;
    int i;
    if (n_axes == 0) return ((int64_t)1 << x->ndim) - 1;
    if (!axes) { tt__fail(ctx, TT_ERR_ARG, "%s: axes is NULL but n_axes is %d", op, n_axes); return -1; }
    if (n_axes < 0 || n_axes > (x->ndim > 0 ? x->ndim : 1)) {
        tt__fail(ctx, TT_ERR_ARG, "%s: n_axes is %d for a tensor of shape %S", op, n_axes, x);
        return -1;
    }
    for (i = 0; i < n_axes; i++) {
        int a = tt__axis_0d(axes[i], x->ndim);
        if (a < 0 || ((mask >> a) & 1)) {
            tt__fail(ctx, TT_ERR_ARG, "%s: axes[%d] = %d is %s for shape %S", op, i, axes[i],
                     a < 0 ? "out of range" : "repeated", x);
            return -1;
        }
        mask |= (int64_t)1 << a;
    }
    return x->ndim > 0 ? mask : 0;                     /* a 0-d tensor: nothing to reduce */
}

/* x with the masked axes moved last, contiguous f32: M rows of K elements. */
static tt_tensor *tt__rows_last(tt_ctx *ctx, const char *op, tt_tensor *x, int64_t mask, int64_t *K) {
    int perm[TT_MAX_DIMS], n = 0, d;
    tt_tensor *v;
    *K = 1;
    for (d = 0; d < TT_MAX_DIMS; d++) perm[d] = d;
    for (d = 0; d < x->ndim; d++) if (!((mask >> d) & 1)) perm[n++] = d;
    for (d = 0; d < x->ndim; d++) if ((mask >> d) & 1) { perm[n++] = d; *K *= x->shape[d]; }
    v = tt__permute(ctx, op, x, perm);
    return tt__contiguous_f32(ctx, op, v);
}

/* Sums and extremes of a row in TT__LANES independent lanes, combined in a fixed tree at
   the end: compilers vectorize these loops without reassociating anything, and the order
   of the additions does not depend on the SIMD width or the thread count. Sums are kept
   in tt__wide: double (8 per AVX-512 register), or float with TT_FLOAT_ACCUM. */
#define TT__LANES 16

TT__INLINE tt__wide tt__combine_lanes(tt__wide *s) {
    int w, l;
    for (w = TT__LANES / 2; w > 0; w /= 2)
        for (l = 0; l < w; l++) s[l] += s[l + w];
    return s[0];
}

TT__INLINE tt__wide tt__sum_f64(const float *TT__RESTRICT x, int64_t n) {
    tt__wide s[TT__LANES] = {0};
    int64_t i = 0;
    int l;
    for (; i + TT__LANES <= n; i += TT__LANES)
        for (l = 0; l < TT__LANES; l++) s[l] += (tt__wide)x[i + l];
    for (; i < n; i++) s[i % TT__LANES] += (tt__wide)x[i];
    return tt__combine_lanes(s);
}

/* sum (x[i] - mean)^2, the numerator of the variance (two-pass: no cancellation). */
TT__INLINE tt__wide tt__sum_sq_dev_f64(const float *TT__RESTRICT x, int64_t n, tt__wide mean) {
    tt__wide s[TT__LANES] = {0};
    int64_t i = 0;
    int l;
    for (; i + TT__LANES <= n; i += TT__LANES)
        for (l = 0; l < TT__LANES; l++) { tt__wide d = (tt__wide)x[i + l] - mean; s[l] += d * d; }
    for (; i < n; i++) { tt__wide d = (tt__wide)x[i] - mean; s[i % TT__LANES] += d * d; }
    return tt__combine_lanes(s);
}

/* Largest (want_max) or smallest of n >= 1 values; NaN wins, as in PyTorch. */
TT__INLINE float tt__extreme_f32(const float *TT__RESTRICT x, int64_t n, bool want_max) {
    float m[TT__LANES];
    int64_t i = 0;
    int l;
    for (l = 0; l < TT__LANES; l++) m[l] = x[0];
    if (want_max) {
        for (; i + TT__LANES <= n; i += TT__LANES)
            for (l = 0; l < TT__LANES; l++) m[l] = tt__maxf(m[l], x[i + l]);
        for (; i < n; i++) m[0] = tt__maxf(m[0], x[i]);
        for (l = 1; l < TT__LANES; l++) m[0] = tt__maxf(m[0], m[l]);
    } else {
        for (; i + TT__LANES <= n; i += TT__LANES)
            for (l = 0; l < TT__LANES; l++) m[l] = tt__minf(m[l], x[i + l]);
        for (; i < n; i++) m[0] = tt__minf(m[0], x[i]);
        for (l = 1; l < TT__LANES; l++) m[0] = tt__minf(m[0], m[l]);
    }
    return m[0];
}

/* Reduces one contiguous row of K values. */
TT__INLINE tt__wide tt__reduce_row(int op, const float *x, int64_t K, int64_t correction) {
    tt__wide acc, mean, dof;
    int64_t i, best = 0;
    switch (op) {
    case TT__OP_SUM:  return tt__sum_f64(x, K);
    case TT__OP_MEAN: return tt__sum_f64(x, K) / (tt__wide)K;
    case TT__OP_PROD: acc = 1; for (i = 0; i < K; i++) acc *= (tt__wide)x[i]; return acc;
    case TT__OP_MAX:  return (tt__wide)tt__extreme_f32(x, K, true);
    case TT__OP_MIN:  return (tt__wide)tt__extreme_f32(x, K, false);
    case TT__OP_VAR: case TT__OP_STD:
        mean = tt__sum_f64(x, K) / (tt__wide)K;
        acc = tt__sum_sq_dev_f64(x, K, mean);
        dof = (tt__wide)K - (tt__wide)correction;     /* not in int64: a file's correction may be any int64 */
        acc /= dof > 0 ? dof : (tt__wide)0;           /* PyTorch: max(0, N - correction) */
        return op == TT__OP_STD ? TT__WSQRT(acc) : acc;
    case TT__OP_ARGMAX:                              /* first maximum; NaN counts as the largest */
        for (i = 1; i < K; i++)
            if (x[best] == x[best] && (x[i] > x[best] || x[i] != x[i])) best = i;
        return (tt__wide)best;
    case TT__OP_ARGMIN:
        for (i = 1; i < K; i++)
            if (x[best] == x[best] && (x[i] < x[best] || x[i] != x[i])) best = i;
        return (tt__wide)best;
    default:
        return 0;
    }
}

static bool tt__is_arg_reduce(int op) { return op == TT__OP_ARGMAX || op == TT__OP_ARGMIN; }

static bool tt__infer_reduce(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t mask = c->a.i[0], K = 1;
    bool keepdim = c->a.i[1] != 0;
    int d;
    out->ndim = 0;
    for (d = 0; d < x->ndim; d++) {
        if ((mask >> d) & 1) { K *= x->shape[d]; if (keepdim) out->shape[out->ndim++] = 1; }
        else out->shape[out->ndim++] = x->shape[d];
    }
    if (K == 0 && (c->op == TT__OP_MAX || c->op == TT__OP_MIN || tt__is_arg_reduce(c->op))) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S has an empty axis to reduce (no identity)", c->name, x);
        return false;
    }
    out->dtype = tt__is_arg_reduce(c->op) ? TT_I32 : TT_F32;
    return tt__header_finish(ctx, c->name, "x", out);
}

/* Row tasks (reductions, softmax, norms): about TT__TASK_ELEMS input elements each. */
typedef struct tt__rows_job {
    const float *x;
    float       *y;                /* softmax output rows (NULL for reductions) */
    tt_tensor   *out;              /* reduction output */
    int64_t      M, K, rows_per_task, correction;
    int          op;
} tt__rows_job;

static int64_t tt__row_tasks(tt__rows_job *j) {
    j->rows_per_task = tt__max64(1, TT__TASK_ELEMS / (j->K > 0 ? j->K : 1));
    return (j->M + j->rows_per_task - 1) / j->rows_per_task;
}

TT__INLINE void tt__reduce_task_body(void *arg, int64_t t, int thread) {
    const tt__rows_job *j = (const tt__rows_job *)arg;
    int64_t m, m1 = tt__min64(j->M, (t + 1) * j->rows_per_task);
    (void)thread;
    for (m = t * j->rows_per_task; m < m1; m++) {
        tt__wide v = j->K == 0 ? (j->op == TT__OP_PROD ? (tt__wide)1 : j->op == TT__OP_SUM ? (tt__wide)0 : (tt__wide)NAN)
                               : tt__reduce_row(j->op, j->x + m * j->K, j->K, j->correction);
        tt__store(j->out->data, j->out->dtype, j->out->offset + m, (double)v);
    }
}
TT__TWINS(, tt__reduce_task, (void *arg, int64_t t, int thread), (arg, t, thread))

static bool tt__exec_reduce(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt__rows_job j;
    tt_tensor *rows = tt__rows_last(ctx, c->name, c->in[0], c->a.i[0], &j.K);
    if (!rows) return false;
    j.x = (const float *)tt__ptr(rows);
    j.y = NULL;
    j.out = out;
    j.M = out->numel;
    j.correction = c->a.i[2];
    j.op = c->op;
    tt__parallel_for(ctx, ctx->kern->reduce_task, &j, tt__row_tasks(&j));
    return true;
}

static tt_tensor *tt__reduce(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x,
                             const int *axes, int n_axes, bool keepdim, int correction) {
    tt__attrs a = tt__attrs_zero();
    if (!ctx || !x) return NULL;
    if (correction < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: correction is %d, expected >= 0", name, correction);
    a.i[0] = tt__reduce_mask(ctx, name, x, axes, n_axes);
    if (a.i[0] < 0) return NULL;
    a.i[1] = keepdim;
    a.i[2] = correction;
    return tt__op1(ctx, name, op, x, &a);
}

TT_API tt_tensor *tt_sum(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_sum", TT__OP_SUM, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_mean(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_mean", TT__OP_MEAN, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_max(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_max", TT__OP_MAX, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_min(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_min", TT__OP_MIN, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_prod(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_prod", TT__OP_PROD, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_var(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim) {
    return tt__reduce(ctx, "tt_var", TT__OP_VAR, x, axes, n_axes, keepdim, correction);
}
TT_API tt_tensor *tt_std(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim) {
    return tt__reduce(ctx, "tt_std", TT__OP_STD, x, axes, n_axes, keepdim, correction);
}

static tt_tensor *tt__arg_reduce(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, int axis, bool keepdim) {
    if (!ctx || !x) return NULL;
    if (tt__axis_0d(axis, x->ndim) < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", name, axis, x);
    if (x->ndim == 0) return tt__reduce(ctx, name, op, x, NULL, 0, keepdim, 0);   /* a scalar: index 0 */
    return tt__reduce(ctx, name, op, x, &axis, 1, keepdim, 0);
}
TT_API tt_tensor *tt_argmax(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim) {
    return tt__arg_reduce(ctx, "tt_argmax", TT__OP_ARGMAX, x, axis, keepdim);
}
TT_API tt_tensor *tt_argmin(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim) {
    return tt__arg_reduce(ctx, "tt_argmin", TT__OP_ARGMIN, x, axis, keepdim);
}

/* Softmax (or log-softmax) of one contiguous row, max subtracted first for stability:
   three vectorized passes (max; exp and its sum in tt__wide lanes; scale or shift). */
TT__INLINE void tt__softmax_row(float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t K, bool log_form) {
    float mx = tt__extreme_f32(x, K, true);
    tt__wide sum;
    TT__EACH(K, y[i] = tt__expf(x[i] - mx));
    sum = tt__sum_f64(y, K);
    if (log_form) {
        float lse = mx + (float)TT__WLOG(sum);
        TT__EACH(K, y[i] = x[i] - lse);
    } else {
        float inv = (float)((tt__wide)1 / sum);
        TT__EACH(K, y[i] *= inv);
    }
}

/* a.i[0] = axis. */
static bool tt__infer_softmax(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    if (tt__axis_0d((int)c->a.i[0], x->ndim) < 0) {
        tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[0], x);
        return false;
    }
    tt__infer_like(out, x, TT_F32);
    return true;
}

TT__INLINE void tt__softmax_task_body(void *arg, int64_t t, int thread) {
    const tt__rows_job *j = (const tt__rows_job *)arg;
    int64_t m, m1 = tt__min64(j->M, (t + 1) * j->rows_per_task);
    (void)thread;
    for (m = t * j->rows_per_task; m < m1; m++) tt__softmax_row(j->y + m * j->K, j->x + m * j->K, j->K, j->op != 0);
}
TT__TWINS(, tt__softmax_task, (void *arg, int64_t t, int thread), (arg, t, thread))

static bool tt__exec_softmax(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0], *rows, *res, *out_view;
    bool log_form = c->op == TT__OP_LOG_SOFTMAX;
    int a, last;
    int64_t K;
    tt__rows_job j;
    if (out->numel == 0) return true;
    if (x->ndim == 0) { ((float *)out->data)[out->offset] = log_form ? 0.0f : 1.0f; return true; }
    a = tt__axis((int)c->a.i[0], x->ndim);
    last = x->ndim - 1;
    rows = tt__contiguous_f32(ctx, c->name, tt__transpose(ctx, c->name, x, a, last));
    out_view = tt__transpose(ctx, c->name, out, a, last);
    res = (rows && out_view) ? (a == last ? out : tt__new(ctx, c->name, TT_F32, out_view->ndim, out_view->shape)) : NULL;
    if (!res) return false;
    K = x->shape[a];
    j.x = (const float *)tt__ptr(rows);
    j.y = (float *)tt__ptr(res);
    j.out = NULL;
    j.M = x->numel / K;
    j.K = K;
    j.correction = 0;
    j.op = log_form;
    tt__parallel_for(ctx, ctx->kern->softmax_task, &j, tt__row_tasks(&j));
    if (res != out) tt__copy_into(out_view, res);
    return true;
}

TT_API tt_tensor *tt_softmax(tt_ctx *ctx, tt_tensor *x, int axis) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    return tt__op1(ctx, "tt_softmax", TT__OP_SOFTMAX, x, &a);
}
TT_API tt_tensor *tt_log_softmax(tt_ctx *ctx, tt_tensor *x, int axis) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    return tt__op1(ctx, "tt_log_softmax", TT__OP_LOG_SOFTMAX, x, &a);
}

/* ---- normalization ---------------------------------------------------------- */

/* True when p is NULL or has exactly the shape of x's axes from..ndim-1 (an error otherwise). */
static bool tt__check_param(tt_ctx *ctx, const char *op, const char *what, const tt_tensor *p,
                            const tt_tensor *x, int from) {
    int d;
    bool ok;
    if (!p) return true;
    ok = p->ndim == x->ndim - from;
    for (d = 0; ok && d < p->ndim; d++) ok = p->shape[d] == x->shape[from + d];
    if (!ok) tt__fail(ctx, TT_ERR_SHAPE, "%s: %s has shape %S, expected the last %d axes of x %S",
                      op, what, p, x->ndim - from, x);
    return ok;
}

/* p as contiguous f32 data, or NULL when p is NULL; *failed is set on allocation failure. */
static const float *tt__param_data(tt_ctx *ctx, const char *op, tt_tensor *p, bool *failed) {
    tt_tensor *c;
    if (!p) return NULL;
    c = tt__contiguous_f32(ctx, op, p);
    if (!c) { *failed = true; return NULL; }
    return (const float *)tt__ptr(c);
}

/* Mean and 1/sqrt(var + eps) of n values (biased variance), in tt__wide. */
TT__INLINE void tt__moments(const float *x, int64_t n, tt__wide eps, tt__wide *mean, tt__wide *inv_std) {
    *mean = tt__sum_f64(x, n) / (tt__wide)n;
    *inv_std = (tt__wide)1 / TT__WSQRT(tt__sum_sq_dev_f64(x, n, *mean) / (tt__wide)n + eps);
}

/* y = (x - mean) * scale (+ w * ... + b per element when given), in tt__wide, vectorized. */
TT__INLINE void tt__normalize_row(float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t n, tt__wide mean, tt__wide scale,
                              const float *TT__RESTRICT w, const float *TT__RESTRICT b) {
    if (w && b)  TT__EACH(n, y[i] = (float)(((tt__wide)x[i] - mean) * scale * (tt__wide)w[i] + (tt__wide)b[i]));
    else if (w)  TT__EACH(n, y[i] = (float)(((tt__wide)x[i] - mean) * scale * (tt__wide)w[i]));
    else if (b)  TT__EACH(n, y[i] = (float)(((tt__wide)x[i] - mean) * scale + (tt__wide)b[i]));
    else         TT__EACH(n, y[i] = (float)(((tt__wide)x[i] - mean) * scale));
}

/* y = (x - mean) * scale + shift, in tt__wide, vectorized (batch and group norm, per channel). */
TT__INLINE void tt__affine_row_body(float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t n, tt__wide mean,
                                    tt__wide scale, tt__wide shift) {
    TT__EACH(n, y[i] = (float)(((tt__wide)x[i] - mean) * scale + shift));
}
TT__TWINS(, tt__affine_row, (float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t n, tt__wide mean, tt__wide scale,
                             tt__wide shift), (y, x, n, mean, scale, shift))

/* Layer or RMS norm, rows split into tasks like the reductions. */
typedef struct tt__norm_job {
    const float *x, *w, *b;
    float       *y;
    int64_t      K, rows_per_task, M;
    tt__wide     eps;
    bool         rms;
} tt__norm_job;

TT__INLINE void tt__norm_task_body(void *arg, int64_t t, int thread) {
    const tt__norm_job *j = (const tt__norm_job *)arg;
    int64_t m, m1 = tt__min64(j->M, (t + 1) * j->rows_per_task);
    (void)thread;
    for (m = t * j->rows_per_task; m < m1; m++) {
        const float *row = j->x + m * j->K;
        tt__wide mean = 0, inv;
        if (j->rms) inv = (tt__wide)1 / TT__WSQRT(tt__sum_sq_dev_f64(row, j->K, (tt__wide)0) / (tt__wide)j->K + j->eps);
        else        tt__moments(row, j->K, j->eps, &mean, &inv);
        tt__normalize_row(j->y + m * j->K, row, j->K, mean, inv, j->w, j->b);
    }
}
TT__TWINS(, tt__norm_task, (void *arg, int64_t t, int thread), (arg, t, thread))

/* eps of a normalization: a finite number >= 0 (NaN or a negative eps makes every output
   NaN without a word). */
static bool tt__check_eps(tt_ctx *ctx, const char *op, float eps) {
    if (eps >= 0 && eps <= FLT_MAX) return true;
    tt__fail(ctx, TT_ERR_ARG, "%s: eps is %g, expected a finite number >= 0", op, (double)eps);
    return false;
}

/* LAYER_NORM / RMS_NORM: in = {x, weight?, bias?}, a.i[0] = n_dims, a.f[0] = eps. */
static bool tt__infer_row_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int n_dims = (int)c->a.i[0];
    if (!tt__check_eps(ctx, c->name, c->a.f[0])) return false;
    if (n_dims < 1 || n_dims > x->ndim) {
        tt__fail(ctx, TT_ERR_ARG, "%s: n_dims is %d, expected 1..%d for x %S", c->name, n_dims, x->ndim, x);
        return false;
    }
    if (!tt__check_param(ctx, c->name, "weight", c->in[1], x, x->ndim - n_dims) ||
        (c->n_in > 2 && !tt__check_param(ctx, c->name, "bias", c->in[2], x, x->ndim - n_dims))) return false;
    tt__infer_like(out, x, TT_F32);
    return true;
}

static bool tt__exec_row_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0];
    tt__norm_job j;
    tt_tensor *xc;
    bool failed = false;
    int d;
    j.K = 1;
    for (d = x->ndim - (int)c->a.i[0]; d < x->ndim; d++) j.K *= x->shape[d];
    if (j.K == 0) return true;
    xc = tt__contiguous_f32(ctx, c->name, x);
    j.w = tt__param_data(ctx, c->name, c->in[1], &failed);
    j.b = c->n_in > 2 ? tt__param_data(ctx, c->name, c->in[2], &failed) : NULL;
    if (!xc || failed) return false;
    j.x = (const float *)tt__ptr(xc);
    j.y = (float *)tt__ptr(out);
    j.M = x->numel / j.K;
    j.eps = (tt__wide)c->a.f[0];
    j.rms = c->op == TT__OP_RMS_NORM;
    j.rows_per_task = tt__max64(1, TT__TASK_ELEMS / j.K);
    tt__parallel_for(ctx, ctx->kern->norm_task, &j, (j.M + j.rows_per_task - 1) / j.rows_per_task);
    return true;
}

TT_API tt_tensor *tt_layer_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, tt_tensor *bias, float eps) {
    tt__attrs a = tt__attrs_ints(n_dims, 0, 0, 0);
    tt_tensor *in[3];
    in[0] = x; in[1] = weight; in[2] = bias;
    a.f[0] = eps;
    return tt__op(ctx, "tt_layer_norm", TT__OP_LAYER_NORM, in, 3, &a);
}
TT_API tt_tensor *tt_rms_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, float eps) {
    tt__attrs a = tt__attrs_ints(n_dims, 0, 0, 0);
    tt_tensor *in[2];
    in[0] = x; in[1] = weight;
    a.f[0] = eps;
    return tt__op(ctx, "tt_rms_norm", TT__OP_RMS_NORM, in, 2, &a);
}

/* True when p is NULL or a 1-D tensor of C elements (an error otherwise). */
static bool tt__check_channels(tt_ctx *ctx, const char *op, const char *what, const tt_tensor *p, const tt_tensor *x) {
    if (!p || (p->ndim == 1 && p->shape[0] == x->shape[1])) return true;
    tt__fail(ctx, TT_ERR_SHAPE, "%s: %s has shape %S, expected [%D] (the channels of x %S)", op, what, p, x->shape[1], x);
    return false;
}

/* x must be [N,C,...]. */
static bool tt__check_nc(tt_ctx *ctx, const char *op, const tt_tensor *x) {
    if (x->ndim >= 2) return true;
    tt__fail(ctx, TT_ERR_SHAPE, "%s: x has shape %S, expected [N,C,...]", op, x);
    return false;
}

/* in = {x, mean, var, weight?, bias?}, a.f[0] = eps. */
static bool tt__infer_batch_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    if (!tt__check_eps(ctx, c->name, c->a.f[0])) return false;
    if (!tt__check_nc(ctx, c->name, x) ||
        !tt__check_channels(ctx, c->name, "running mean", c->in[1], x) ||
        !tt__check_channels(ctx, c->name, "running var", c->in[2], x) ||
        !tt__check_channels(ctx, c->name, "weight", c->in[3], x) ||
        !tt__check_channels(ctx, c->name, "bias", c->in[4], x)) return false;
    tt__infer_like(out, x, TT_F32);
    return true;
}

static bool tt__exec_batch_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0], *xc;
    int64_t N = x->shape[0], C = x->shape[1], S, n, ch;
    bool failed = false;
    const float *mu, *va, *w, *b, *xd;
    if (out->numel == 0) return true;
    S = x->numel / (N * C);
    xc = tt__contiguous_f32(ctx, c->name, x);
    mu = tt__param_data(ctx, c->name, c->in[1], &failed);
    va = tt__param_data(ctx, c->name, c->in[2], &failed);
    w = tt__param_data(ctx, c->name, c->in[3], &failed);
    b = tt__param_data(ctx, c->name, c->in[4], &failed);
    if (!xc || failed) return false;
    xd = (const float *)tt__ptr(xc);
    for (n = 0; n < N; n++) {
        for (ch = 0; ch < C; ch++) {
            tt__wide inv = (tt__wide)1 / TT__WSQRT((tt__wide)va[ch] + (tt__wide)c->a.f[0]), m = (tt__wide)mu[ch];
            tt__wide scale = w ? inv * (tt__wide)w[ch] : inv, shift = b ? (tt__wide)b[ch] : (tt__wide)0;
            ctx->kern->affine_row((float *)tt__ptr(out) + (n * C + ch) * S, xd + (n * C + ch) * S, S, m, scale, shift);
        }
    }
    return true;
}

TT_API tt_tensor *tt_batch_norm(tt_ctx *ctx, tt_tensor *x, tt_tensor *mean, tt_tensor *var,
                                tt_tensor *weight, tt_tensor *bias, float eps) {
    tt__attrs a = tt__attrs_zero();
    tt_tensor *in[5];
    in[0] = x; in[1] = mean; in[2] = var; in[3] = weight; in[4] = bias;
    a.f[0] = eps;
    return tt__op(ctx, "tt_batch_norm", TT__OP_BATCH_NORM, in, 5, &a);
}

/* in = {x, weight?, bias?}, a.i[0] = groups, a.f[0] = eps. */
static bool tt__infer_group_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t groups = c->a.i[0];
    if (!tt__check_eps(ctx, c->name, c->a.f[0])) return false;
    if (!tt__check_nc(ctx, c->name, x)) return false;
    if (groups < 1 || x->shape[1] % groups != 0) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %D groups do not divide the %D channels of x %S", c->name, groups, x->shape[1], x);
        return false;
    }
    if (!tt__check_channels(ctx, c->name, "weight", c->in[1], x) ||
        !tt__check_channels(ctx, c->name, "bias", c->in[2], x)) return false;
    tt__infer_like(out, x, TT_F32);
    return true;
}

static bool tt__exec_group_norm(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0], *xc;
    int64_t N = x->shape[0], C = x->shape[1], G = c->a.i[0], S, n, g, ch;
    bool failed = false;
    const float *w, *b, *xd;
    float *yd = (float *)tt__ptr(out);
    if (out->numel == 0) return true;
    S = x->numel / (N * C);
    xc = tt__contiguous_f32(ctx, c->name, x);
    w = tt__param_data(ctx, c->name, c->in[1], &failed);
    b = tt__param_data(ctx, c->name, c->in[2], &failed);
    if (!xc || failed) return false;
    xd = (const float *)tt__ptr(xc);
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            int64_t cg = C / G, base = (n * C + g * cg) * S;
            tt__wide mean, inv;
            tt__moments(xd + base, cg * S, (tt__wide)c->a.f[0], &mean, &inv);
            for (ch = 0; ch < cg; ch++) {
                int64_t k = g * cg + ch;
                tt__wide scale = w ? inv * (tt__wide)w[k] : inv, shift = b ? (tt__wide)b[k] : (tt__wide)0;
                ctx->kern->affine_row(yd + base + ch * S, xd + base + ch * S, S, mean, scale, shift);
            }
        }
    }
    return true;
}

TT_API tt_tensor *tt_group_norm(tt_ctx *ctx, tt_tensor *x, int groups, tt_tensor *weight, tt_tensor *bias, float eps) {
    tt__attrs a = tt__attrs_ints(groups, 0, 0, 0);
    tt_tensor *in[3];
    in[0] = x; in[1] = weight; in[2] = bias;
    a.f[0] = eps;
    return tt__op(ctx, "tt_group_norm", TT__OP_GROUP_NORM, in, 3, &a);
}

/* ==========================================================================
 * >>linalg   matmul (torch.matmul semantics), linear
 *
 * One scalar GEMM serves matmul, linear and convolution. It has two inner loops: when
 * B's rows are contiguous, C's row i accumulates a[i,k]*B[k,:] (k blocked so the block of
 * B stays in L2); when A's rows and B's columns are contiguous, each C[i,j] is a dot
 * product. Callers make an operand contiguous when neither layout applies.
 * ========================================================================== */
#define TT__GEMM_KC 128           /* rows of B per block: 128 x N floats stay in L2 for N <= 4096 */

/* Dot product with 32 independent partial sums: vectorizable without reassociation, and
   enough independent accumulators (4 AVX registers) to hide the add latency, so a long
   dot product runs at the speed memory delivers b. */
#define TT__DOT_LANES 32
TT__INLINE float tt__dot(const float *TT__RESTRICT a, const float *TT__RESTRICT b, int64_t n) {
    float s[TT__DOT_LANES] = {0};
    int64_t i = 0;
    int l, w;
    for (; i + TT__DOT_LANES <= n; i += TT__DOT_LANES)
        for (l = 0; l < TT__DOT_LANES; l++) s[l] += a[i + l] * b[i + l];
    for (; i < n; i++) s[i % TT__DOT_LANES] += a[i] * b[i];
    for (w = TT__DOT_LANES / 2; w > 0; w /= 2)
        for (l = 0; l < w; l++) s[l] += s[l + w];
    return s[0];
}

/* Four dot products of a with b0..b3, each summed exactly as tt__dot sums it (so results are
   bitwise the same): a batch-1 linear layer streams its weight matrix, and four rows read
   side by side keep more of memory's bandwidth busy than one (AlexNet's fc6: 12-14 -> 8 ms). */
TT__INLINE void tt__dot4(const float *TT__RESTRICT a, const float *TT__RESTRICT b0, const float *TT__RESTRICT b1,
                     const float *TT__RESTRICT b2, const float *TT__RESTRICT b3, int64_t n, float *out) {
    float s0[TT__DOT_LANES] = {0}, s1[TT__DOT_LANES] = {0}, s2[TT__DOT_LANES] = {0}, s3[TT__DOT_LANES] = {0};
    int64_t i = 0;
    int l, w;
    for (; i + TT__DOT_LANES <= n; i += TT__DOT_LANES)
        for (l = 0; l < TT__DOT_LANES; l++) {
            float x = a[i + l];
            s0[l] += x * b0[i + l]; s1[l] += x * b1[i + l]; s2[l] += x * b2[i + l]; s3[l] += x * b3[i + l];
        }
    for (; i < n; i++) {
        s0[i % TT__DOT_LANES] += a[i] * b0[i]; s1[i % TT__DOT_LANES] += a[i] * b1[i];
        s2[i % TT__DOT_LANES] += a[i] * b2[i]; s3[i % TT__DOT_LANES] += a[i] * b3[i];
    }
    for (w = TT__DOT_LANES / 2; w > 0; w /= 2)
        for (l = 0; l < w; l++) { s0[l] += s0[l + w]; s1[l] += s1[l + w]; s2[l] += s2[l + w]; s3[l] += s3[l + w]; }
    out[0] = s0[0]; out[1] = s1[0]; out[2] = s2[0]; out[3] = s3[0];
}

/* c[j] += a * b[j]: the inner loop of the row-times-matrix GEMM. */
TT__INLINE void tt__axpy(float *TT__RESTRICT c, const float *TT__RESTRICT b, float a, int64_t n) {
    TT__EACH(n, c[i] += a * b[i]);
}

/* True when tt__gemm has a fast loop for these strides. */
static bool tt__gemm_layout_ok(int64_t sak, int64_t sbk, int64_t sbn) {
    return sbn == 1 || (sak == 1 && sbk == 1);
}

/* What a GEMM does to each block of C once its sum over k is complete, while the block is
   still in cache: add a bias (one value per row of C, as a convolution's per output
   channel, or per column, as a linear layer's) and apply a ReLU or a clamp (a graph's fused
   activation). The same expressions as the separate ops, so the results are bitwise those
   of running them after the GEMM. */
typedef enum tt__bias_kind { TT__BIAS_NONE, TT__BIAS_ROWS, TT__BIAS_COLS } tt__bias_kind;
typedef struct tt__epilogue { const float *bias; tt__bias_kind bias_kind; bool relu; tt__clamp clamp; } tt__epilogue;

/* The epilogue ep, or NULL when it has nothing to do. */
static const tt__epilogue *tt__epilogue_or_null(const tt__epilogue *ep) {
    return ep->bias || ep->relu || ep->clamp.on ? ep : NULL;
}

/* ReLU and clamp in place, the expressions of the ops (so results are bitwise the same). */
TT__INLINE void tt__relu_run(float *y, int64_t n) { TT__EACH(n, y[i] = tt__reluf(y[i])); }
TT__INLINE void tt__clamp_run(float *y, int64_t n, tt__clamp c) {
    if (c.on) TT__EACH(n, y[i] = tt__clampf(y[i], c.lo, c.hi));
}

/* One row of the epilogue, in one pass: the bias (of the row, or one per column from j0),
   then the ReLU or the clamp (a graph fuses one activation, never both). The sum is rounded
   before the activation looks at it, as with separate passes, so the bits are the same. */
TT__INLINE void tt__epilogue_row(const tt__epilogue *e, float *TT__RESTRICT y, int64_t row, int64_t j0, int64_t n) {
    const float *TT__RESTRICT bc = e->bias_kind == TT__BIAS_COLS ? e->bias + j0 : NULL;
    float br = e->bias_kind == TT__BIAS_ROWS ? e->bias[row] : 0.0f, lo = e->clamp.lo, hi = e->clamp.hi;
    if (bc) {
        if (e->relu)          TT__EACH(n, y[i] = tt__reluf(y[i] + bc[i]));
        else if (e->clamp.on) TT__EACH(n, y[i] = tt__clampf(y[i] + bc[i], lo, hi));
        else                  TT__EACH(n, y[i] += bc[i]);
    } else if (e->bias_kind == TT__BIAS_ROWS) {
        if (e->relu)          TT__EACH(n, y[i] = tt__reluf(y[i] + br));
        else if (e->clamp.on) TT__EACH(n, y[i] = tt__clampf(y[i] + br, lo, hi));
        else                  TT__EACH(n, y[i] += br);
    } else {
        if (e->relu) tt__relu_run(y, n);
        else tt__clamp_run(y, n, e->clamp);
    }
}

/* The epilogue on rows i0.. and columns j0.. (rows x cols) of C, whose rows are ldc apart
   (C points at element (i0, j0)). Twins: the runs vectorize for each ISA (exact operations:
   the same bits in every twin). */
TT__INLINE void tt__epilogue_block_body(const tt__epilogue *e, float *C, int64_t ldc, int64_t i0, int64_t j0, int64_t rows,
                                        int64_t cols) {
    int64_t r;
    if (!e) return;
    for (r = 0; r < rows; r++) tt__epilogue_row(e, C + r * ldc, i0 + r, j0, cols);
}
TT__TWINS(, tt__epilogue_block, (const tt__epilogue *e, float *C, int64_t ldc, int64_t i0, int64_t j0, int64_t rows, int64_t cols),
          (e, C, ldc, i0, j0, rows, cols))

/* GEMM tasks are tiles of TT__GEMM_MB rows by TT__GEMM_NB columns of C: every element is
   still summed over k in the same order, whichever thread computes its tile. */
#define TT__GEMM_MB 16
#define TT__GEMM_NB 1024

typedef struct tt__gemm_job {
    int64_t             M, N, K, sam, sak, sbk, sbn, n_col_tiles;
    const float        *A, *B;
    float              *C;
    const tt__epilogue *ep;
} tt__gemm_job;

TT__INLINE void tt__gemm_task_body(void *arg, int64_t t, int thread) {
    const tt__gemm_job *g = (const tt__gemm_job *)arg;
    int64_t i0 = (t / g->n_col_tiles) * TT__GEMM_MB, i1 = tt__min64(g->M, i0 + TT__GEMM_MB);
    int64_t j0 = (t % g->n_col_tiles) * TT__GEMM_NB, j1 = tt__min64(g->N, j0 + TT__GEMM_NB);
    int64_t i, j, k, k0;
    (void)thread;
    if (g->sbn == 1) {                                 /* rows of B contiguous: C row += a(i,k) * B row */
        for (i = i0; i < i1; i++) for (j = j0; j < j1; j++) g->C[i * g->N + j] = 0.0f;
        for (k0 = 0; k0 < g->K; k0 += TT__GEMM_KC) {
            int64_t k1 = tt__min64(g->K, k0 + TT__GEMM_KC);
            for (i = i0; i < i1; i++)
                for (k = k0; k < k1; k++)
                    tt__axpy(g->C + i * g->N + j0, g->B + k * g->sbk + j0, g->A[i * g->sam + k * g->sak], j1 - j0);
        }
    } else {
        for (i = i0; i < i1; i++) {                    /* rows of A and columns of B contiguous: dots */
            const float *a = g->A + i * g->sam, *b = g->B;
            float *c = g->C + i * g->N;
            for (j = j0; j + 4 <= j1; j += 4)
                tt__dot4(a, b + j * g->sbn, b + (j + 1) * g->sbn, b + (j + 2) * g->sbn, b + (j + 3) * g->sbn, g->K, c + j);
            for (; j < j1; j++) c[j] = tt__dot(a, b + j * g->sbn, g->K);
        }
    }
    tt__epilogue_block_body(g->ep, g->C + i0 * g->N + j0, g->N, i0, j0, i1 - i0, j1 - j0);
}
TT__TWINS(, tt__gemm_task, (void *arg, int64_t t, int thread), (arg, t, thread))

/* ---- packed, cache-blocked SGEMM ----------------------------------------------------
   For large products: B is packed in KC x NR slivers (a sliver stays in L1), A in MC x KC
   blocks of MR-row slivers (a block stays in L2), and a register-tiled MR x NR micro-kernel
   multiplies one A sliver by one B sliver. KC, MC, NC come from the cache sizes the system
   reports. The tile is the kernel table's (>>isa): 8 x 48 for AVX-512, 6 x 16 for AVX2+FMA,
   NEON and the plain C twin (the tests compare them). Every C element is summed over k in
   the same order whichever thread runs its block: results do not depend on the thread
   count (they do depend on KC, i.e. on the machine's cache sizes, and on the ISA). */
#define TT__MR_MAX 8                   /* the largest tile of any table: for buffers on the stack */
#define TT__NR_MAX 48

/* The plain C twin, 6 x 16, and the micro-kernel of CPUs without one of their own
   (RISC-V, ...). With GCC and clang it works on generic vectors of 4 floats, which every
   target compiles to its own SIMD (SSE2, NEON, RISC-V V) or to scalar code, in two passes
   of 6 x 8 so that the 12 accumulators stay in 16 registers (the plain loops below kept
   them in memory: with SSE2 only, the packed path then ran no faster than the direct loops;
   now 11-15 GFLOP/s at 1024 on a 2-core EPYC VM, as fast as the vectorized direct loops,
   a little faster at 2048); elsewhere plain loops. With accumulate it continues each sum
   from C (the SIMD kernels add C at the end): every element is then summed one product at
   a time over k from 0, as the direct loops sum it, so with this twin the packed and the
   direct GEMM give the same bits, whatever KC is (exported firmware code runs the direct
   loops and equals the graph it came from). */
#define TT__MR_REF 6
#define TT__NR_REF 16
#if defined(__GNUC__) || defined(__clang__)
typedef float tt__f32x4 __attribute__((vector_size(16)));

TT__INLINE tt__f32x4 tt__splat4(float x) {
    tt__f32x4 v;
    v[0] = x;
    v[1] = x;
    v[2] = x;
    v[3] = x;
    return v;
}

#define TT__ROW4(i) a = tt__splat4(A[i]); c##i##0 += a * b0; c##i##1 += a * b1
#define TT__LOAD4(i)                                                                             \
    if (accumulate) {                                                                            \
        memcpy(&c##i##0, C + i * ldc, 16);                                                       \
        memcpy(&c##i##1, C + i * ldc + 4, 16);                                                   \
    }
#define TT__STORE4(i) memcpy(C + i * ldc, &c##i##0, 16); memcpy(C + i * ldc + 4, &c##i##1, 16)
/* Columns 0-7 of the tile (called again with B and C 8 columns on for the others). */
TT__INLINE void tt__ukernel_ref_half(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate) {
    const tt__f32x4 z = {0.0f, 0.0f, 0.0f, 0.0f};
    tt__f32x4 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z, c41 = z, c50 = z, c51 = z;
    tt__f32x4 a, b0, b1;
    int64_t k;
    TT__LOAD4(0); TT__LOAD4(1); TT__LOAD4(2); TT__LOAD4(3); TT__LOAD4(4); TT__LOAD4(5);
    for (k = 0; k < kc; k++, A += TT__MR_REF, B += TT__NR_REF) {
        memcpy(&b0, B, 16);
        memcpy(&b1, B + 4, 16);
        TT__ROW4(0); TT__ROW4(1); TT__ROW4(2); TT__ROW4(3); TT__ROW4(4); TT__ROW4(5);
    }
    TT__STORE4(0); TT__STORE4(1); TT__STORE4(2); TT__STORE4(3); TT__STORE4(4); TT__STORE4(5);
}
#undef TT__ROW4
#undef TT__LOAD4
#undef TT__STORE4

static void tt__ukernel_ref(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate) {
    tt__ukernel_ref_half(kc, A, B, C, ldc, accumulate);
    tt__ukernel_ref_half(kc, A, B + 8, C + 8, ldc, accumulate);
}
#else
static void tt__ukernel_ref(int64_t kc, const float *TT__RESTRICT A, const float *TT__RESTRICT B,
                            float *TT__RESTRICT C, int64_t ldc, int accumulate) {
    float acc[TT__MR_REF * TT__NR_REF];
    int64_t k;
    int i, j;
    for (i = 0; i < TT__MR_REF; i++)
        for (j = 0; j < TT__NR_REF; j++) acc[i * TT__NR_REF + j] = accumulate ? C[i * ldc + j] : 0.0f;
    for (k = 0; k < kc; k++)
        for (i = 0; i < TT__MR_REF; i++) {
            float a = A[k * TT__MR_REF + i];
            for (j = 0; j < TT__NR_REF; j++) acc[i * TT__NR_REF + j] += a * B[k * TT__NR_REF + j];
        }
    for (i = 0; i < TT__MR_REF; i++)
        for (j = 0; j < TT__NR_REF; j++)
            C[i * ldc + j] = acc[i * TT__NR_REF + j];
}
#endif

#if TT__SIMD_AVX512
/* 8 rows x 3 vectors of 16 = 24 zmm accumulators; per k: 3 loads of B, 8 broadcasts of A,
   24 FMAs (enough independent sums to keep both FMA units busy through their latency). */
#define TT__ROW512(i)                                                                  \
    a = _mm512_set1_ps(A[i]);                                                          \
    c##i##0 = _mm512_fmadd_ps(a, b0, c##i##0); c##i##1 = _mm512_fmadd_ps(a, b1, c##i##1); \
    c##i##2 = _mm512_fmadd_ps(a, b2, c##i##2)
#define TT__STORE512(i)                                                                          \
    if (accumulate) {                                                                            \
        c##i##0 = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc), c##i##0);                          \
        c##i##1 = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc + 16), c##i##1);                     \
        c##i##2 = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc + 32), c##i##2);                     \
    }                                                                                            \
    _mm512_storeu_ps(C + i * ldc, c##i##0); _mm512_storeu_ps(C + i * ldc + 16, c##i##1);         \
    _mm512_storeu_ps(C + i * ldc + 32, c##i##2)

TT__TARGET_AVX512 static void tt__ukernel_avx512(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
    __m512 c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
    __m512 c40 = c00, c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00;
    __m512 c60 = c00, c61 = c00, c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    int64_t k;
    for (k = 0; k < 8; k++) {            /* the C tile is needed at the end: fetch it meanwhile */
        TT__PREFETCH(C + k * ldc); TT__PREFETCH(C + k * ldc + 16); TT__PREFETCH(C + k * ldc + 32);
    }
    for (k = 0; k < kc; k++, A += 8, B += 48) {
        __m512 b0 = _mm512_loadu_ps(B), b1 = _mm512_loadu_ps(B + 16), b2 = _mm512_loadu_ps(B + 32), a;
        TT__ROW512(0); TT__ROW512(1); TT__ROW512(2); TT__ROW512(3);
        TT__ROW512(4); TT__ROW512(5); TT__ROW512(6); TT__ROW512(7);
    }
    TT__STORE512(0); TT__STORE512(1); TT__STORE512(2); TT__STORE512(3);
    TT__STORE512(4); TT__STORE512(5); TT__STORE512(6); TT__STORE512(7);
}

/* Narrow twins for the last sliver when N is not a multiple of 48 (N = 256, 512, 1024 leave
   16 or 32 columns): 8 rows x 1 or 2 vectors over the same 48-wide packed B, so no work is
   spent on the padding. */
#define TT__ROW512N(i) a = _mm512_set1_ps(A[i]); c##i##0 = _mm512_fmadd_ps(a, b0, c##i##0); if (two) c##i##1 = _mm512_fmadd_ps(a, b1, c##i##1)
#define TT__STORE512N(i)                                                                         \
    if (accumulate) {                                                                            \
        c##i##0 = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc), c##i##0);                          \
        if (two) c##i##1 = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc + 16), c##i##1);            \
    }                                                                                            \
    _mm512_storeu_ps(C + i * ldc, c##i##0);                                                      \
    if (two) _mm512_storeu_ps(C + i * ldc + 16, c##i##1)

TT__TARGET_AVX512 TT__INLINE void tt__ukernel_avx512_narrow(int64_t kc, const float *A, const float *B, float *C,
                                                            int64_t ldc, int accumulate, const int two) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
    int64_t k;
    for (k = 0; k < kc; k++, A += 8, B += 48) {
        __m512 b0 = _mm512_loadu_ps(B), b1 = two ? _mm512_loadu_ps(B + 16) : b0, a;
        TT__ROW512N(0); TT__ROW512N(1); TT__ROW512N(2); TT__ROW512N(3);
        TT__ROW512N(4); TT__ROW512N(5); TT__ROW512N(6); TT__ROW512N(7);
    }
    TT__STORE512N(0); TT__STORE512N(1); TT__STORE512N(2); TT__STORE512N(3);
    TT__STORE512N(4); TT__STORE512N(5); TT__STORE512N(6); TT__STORE512N(7);
}
TT__TARGET_AVX512 static void tt__ukernel_avx512_16(int64_t kc, const float *A, const float *B, float *C, int64_t ldc,
                                                    int accumulate) {
    tt__ukernel_avx512_narrow(kc, A, B, C, ldc, accumulate, 0);
}
TT__TARGET_AVX512 static void tt__ukernel_avx512_32(int64_t kc, const float *A, const float *B, float *C, int64_t ldc,
                                                    int accumulate) {
    tt__ukernel_avx512_narrow(kc, A, B, C, ldc, accumulate, 1);
}
#undef TT__ROW512N
#undef TT__STORE512N
#undef TT__ROW512
#undef TT__STORE512
#endif

#if TT__SIMD_AVX2
/* 6 rows x 2 vectors of 8 = 12 ymm accumulators. */
#define TT__ROW256(i)                                                                  \
    a = _mm256_broadcast_ss(A + i);                                                    \
    c##i##0 = _mm256_fmadd_ps(a, b0, c##i##0); c##i##1 = _mm256_fmadd_ps(a, b1, c##i##1)
#define TT__STORE256(i)                                                                          \
    if (accumulate) {                                                                            \
        c##i##0 = _mm256_add_ps(_mm256_loadu_ps(C + i * ldc), c##i##0);                          \
        c##i##1 = _mm256_add_ps(_mm256_loadu_ps(C + i * ldc + 8), c##i##1);                      \
    }                                                                                            \
    _mm256_storeu_ps(C + i * ldc, c##i##0); _mm256_storeu_ps(C + i * ldc + 8, c##i##1)

TT__TARGET_AVX2 static void tt__ukernel_avx2(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    int64_t k;
    for (k = 0; k < 6; k++) { TT__PREFETCH(C + k * ldc); TT__PREFETCH(C + k * ldc + 15); }
    for (k = 0; k < kc; k++, A += 6, B += 16) {
        __m256 b0 = _mm256_loadu_ps(B), b1 = _mm256_loadu_ps(B + 8), a;
        TT__ROW256(0); TT__ROW256(1); TT__ROW256(2); TT__ROW256(3); TT__ROW256(4); TT__ROW256(5);
    }
    TT__STORE256(0); TT__STORE256(1); TT__STORE256(2); TT__STORE256(3); TT__STORE256(4); TT__STORE256(5);
}
#undef TT__ROW256
#undef TT__STORE256
#endif

#if TT__SIMD_NEON
/* 6 rows x 4 vectors of 4 = 24 q-register accumulators; per k: 4 loads of B, the 6 values
   of A in two registers, 24 fused multiply-adds by lane (no broadcasts). */
#define TT__ROWNEON(i, FMA, a, lane)                                                   \
    c##i##0 = FMA(c##i##0, b0, a, lane); c##i##1 = FMA(c##i##1, b1, a, lane);          \
    c##i##2 = FMA(c##i##2, b2, a, lane); c##i##3 = FMA(c##i##3, b3, a, lane)
#define TT__STORENEON(i)                                                                         \
    if (accumulate) {                                                                            \
        c##i##0 = vaddq_f32(vld1q_f32(C + i * ldc), c##i##0);                                    \
        c##i##1 = vaddq_f32(vld1q_f32(C + i * ldc + 4), c##i##1);                                \
        c##i##2 = vaddq_f32(vld1q_f32(C + i * ldc + 8), c##i##2);                                \
        c##i##3 = vaddq_f32(vld1q_f32(C + i * ldc + 12), c##i##3);                               \
    }                                                                                            \
    vst1q_f32(C + i * ldc, c##i##0); vst1q_f32(C + i * ldc + 4, c##i##1);                        \
    vst1q_f32(C + i * ldc + 8, c##i##2); vst1q_f32(C + i * ldc + 12, c##i##3)

static void tt__ukernel_neon(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int accumulate) {
    float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    float32x4_t c20 = c00, c21 = c00, c22 = c00, c23 = c00, c30 = c00, c31 = c00, c32 = c00, c33 = c00;
    float32x4_t c40 = c00, c41 = c00, c42 = c00, c43 = c00, c50 = c00, c51 = c00, c52 = c00, c53 = c00;
    int64_t k;
    for (k = 0; k < kc; k++, A += 6, B += 16) {
        float32x4_t b0 = vld1q_f32(B), b1 = vld1q_f32(B + 4), b2 = vld1q_f32(B + 8), b3 = vld1q_f32(B + 12);
        float32x4_t a03 = vld1q_f32(A);                /* rows 0-3 */
        float32x2_t a45 = vld1_f32(A + 4);             /* rows 4-5 */
        TT__ROWNEON(0, vfmaq_laneq_f32, a03, 0);
        TT__ROWNEON(1, vfmaq_laneq_f32, a03, 1);
        TT__ROWNEON(2, vfmaq_laneq_f32, a03, 2);
        TT__ROWNEON(3, vfmaq_laneq_f32, a03, 3);
        TT__ROWNEON(4, vfmaq_lane_f32, a45, 0);
        TT__ROWNEON(5, vfmaq_lane_f32, a45, 1);
    }
    TT__STORENEON(0); TT__STORENEON(1); TT__STORENEON(2); TT__STORENEON(3); TT__STORENEON(4); TT__STORENEON(5);
}
#undef TT__ROWNEON
#undef TT__STORENEON
#endif

/* Block sizes from the caches (KC: a B sliver in 2/3 of L1, the rest for A and C; MC: an A
   block in half of L2). */
typedef struct tt__gemm_blocks { int64_t kc, mc, nc; } tt__gemm_blocks;

/* The L1 data and L2 cache sizes in bytes: the system's figures where it gives them, else
   32 KiB and 256 KiB (small enough for most cores). */
static void tt__cache_sizes(long *l1, long *l2) {
    *l1 = 32768;
    *l2 = 262144;
#if TT__HAS_THREADS && defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    if (sysconf(_SC_LEVEL1_DCACHE_SIZE) > 0) *l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (sysconf(_SC_LEVEL2_CACHE_SIZE) > 0) *l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
}

static tt__gemm_blocks tt__gemm_blocking(const tt__kernels *kt) {
    tt__gemm_blocks b;
    long l1, l2;
    tt__cache_sizes(&l1, &l2);
    b.kc = tt__min64(512, tt__max64(64, (int64_t)(l1 * 2 / 3) / (kt->nr * 4))) / 8 * 8;
    b.mc = tt__min64(384, tt__max64(kt->mr, (int64_t)(l2 / 2) / (b.kc * 4))) / kt->mr * kt->mr;
    b.nc = 4096 / kt->nr * kt->nr;
    return b;
}

/* mr rows of A (row r at src + r*sam, contiguous along k), columns k0..kc-1, into one
   sliver, k-major: the plain-C twin. */
static void tt__pack_a_rows_ref(float *TT__RESTRICT Ap, const float *TT__RESTRICT src, int64_t sam, int mr,
                                int64_t k0, int64_t kc) {
    int64_t k;
    int r;
    for (k = k0; k < kc; k++)
        for (r = 0; r < mr; r++) Ap[k * mr + r] = src[r * sam + k];
}

#if TT__SIMD_AVX512
/* The same for 8 rows, the columns in whole blocks of 8: 8 rows x 8 k transposed in
   registers. Returns the first column it did not pack. */
TT__TARGET_AVX512 static int64_t tt__pack_a_rows_avx512(float *TT__RESTRICT Ap, const float *TT__RESTRICT src, int64_t sam, int64_t kc) {
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
        const float *p = src + k;
        __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + sam), r2 = _mm256_loadu_ps(p + 2 * sam);
        __m256 r3 = _mm256_loadu_ps(p + 3 * sam), r4 = _mm256_loadu_ps(p + 4 * sam), r5 = _mm256_loadu_ps(p + 5 * sam);
        __m256 r6 = _mm256_loadu_ps(p + 6 * sam), r7 = _mm256_loadu_ps(p + 7 * sam);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);   /* pairs of rows */
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
        __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);  /* k | k+4, rows 0-3 */
        __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
        __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);  /* rows 4-7 */
        __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
        float *d = Ap + k * 8;
        _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
        _mm256_storeu_ps(d + 8, _mm256_permute2f128_ps(u1, u5, 0x20));
        _mm256_storeu_ps(d + 16, _mm256_permute2f128_ps(u2, u6, 0x20));
        _mm256_storeu_ps(d + 24, _mm256_permute2f128_ps(u3, u7, 0x20));
        _mm256_storeu_ps(d + 32, _mm256_permute2f128_ps(u0, u4, 0x31));
        _mm256_storeu_ps(d + 40, _mm256_permute2f128_ps(u1, u5, 0x31));
        _mm256_storeu_ps(d + 48, _mm256_permute2f128_ps(u2, u6, 0x31));
        _mm256_storeu_ps(d + 56, _mm256_permute2f128_ps(u3, u7, 0x31));
    }
    return k;
}
#endif

/* MR rows of A into one sliver, k-major: the rows are read side by side and the sliver
   written in order (a row at a time would write with a stride of MR floats). */
static void tt__pack_a_rows(const tt__kernels *kt, float *TT__RESTRICT Ap, const float *TT__RESTRICT src, int64_t sam,
                            int64_t kc) {
    int64_t k = kt->pack_a_rows ? kt->pack_a_rows(Ap, src, sam, kc) : 0;
    tt__pack_a_rows_ref(Ap, src, sam, kt->mr, k, kc);
}

/* A(i,k) for rows i0.. (mc of them) and k in p0.. (kc): MR-row slivers, k-major, zeros past
   the last row. Each row is read along k; the next sliver's rows are prefetched, because
   a row's kc floats are too short a run for the hardware prefetcher to notice. */
static void tt__pack_a(const tt__kernels *kt, float *TT__RESTRICT Ap, const float *TT__RESTRICT A, int64_t sam, int64_t sak,
                       int64_t i0, int64_t mc, int64_t M, int64_t p0, int64_t kc) {
    const int64_t mr = kt->mr;
    int64_t s, k, r, l;
    for (s = 0; s < mc; s += mr, Ap += mr * kc) {
        int64_t rows = tt__min64(mr, tt__min64(mc - s, M - i0 - s));
        int64_t next = tt__min64(mr, tt__min64(mc - s - mr, M - i0 - s - mr));
        if (sam == 1 && rows == mr) {                  /* the rows are neighbours: MR floats in a run per k */
            const float *src = A + i0 + s + p0 * sak;
            for (k = 0; k < kc; k++)
                for (r = 0; r < mr; r++) Ap[k * mr + r] = src[k * sak + r];
            continue;
        }
        for (r = 0; r < next && sak == 1; r++)
            for (l = 0; l < kc; l += 16) TT__PREFETCH(A + (i0 + s + mr + r) * sam + p0 + l);
        if (sak == 1 && rows == mr) {                  /* a full sliver of rows: read them side by side */
            const float *src = A + (i0 + s) * sam + p0;
            tt__pack_a_rows(kt, Ap, src, sam, kc);
            continue;
        }
        for (r = 0; r < rows; r++) {
            const float *src = A + (i0 + s + r) * sam + p0 * sak;
            if (sak == 1) for (k = 0; k < kc; k++) Ap[k * mr + r] = src[k];
            else          for (k = 0; k < kc; k++) Ap[k * mr + r] = src[k * sak];
        }
        for (; r < mr; r++)
            for (k = 0; k < kc; k++) Ap[k * mr + r] = 0.0f;
    }
}

/* Rows k0..k1 of the B panel (k in p0.., columns j0.. (nc of them)) into nr-column slivers,
   k-major, zeros past the last column. Each row of B is read from left to right. */
static void tt__pack_b(int64_t nr, float *TT__RESTRICT Bp, const float *TT__RESTRICT B, int64_t sbk, int64_t sbn,
                       int64_t p0, int64_t kc, int64_t k0, int64_t k1, int64_t j0, int64_t nc) {
    int64_t s, k, c;
    for (k = k0; k < k1; k++)
        for (s = 0; s < nc; s += nr) {
            int64_t cols = tt__min64(nr, nc - s);
            const float *src = B + (p0 + k) * sbk + (j0 + s) * sbn;
            float *dst = Bp + s * kc + k * nr;
            if (sbn == 1) memcpy(dst, src, sizeof(float) * (size_t)cols);
            else for (c = 0; c < cols; c++) dst[c] = src[c * sbn];
            for (c = cols; c < nr; c++) dst[c] = 0.0f;
        }
}

/* The same for a B whose columns are contiguous (sbk == 1: the weight of a linear layer,
   [out,in], read as its transpose): one nr-column sliver s, each column read down k. */
static void tt__pack_b_cols(int64_t nr, float *TT__RESTRICT Bp, const float *TT__RESTRICT B, int64_t sbn, int64_t p0,
                            int64_t kc, int64_t j0, int64_t nc, int64_t s) {
    int64_t k, c, cols = tt__min64(nr, nc - s);
    float *dst = Bp + s * kc;
    for (c = 0; c < cols; c++) {
        const float *src = B + (j0 + s + c) * sbn + p0;
        for (k = 0; k < kc; k++) dst[k * nr + c] = src[k];
    }
    for (; c < nr; c++)
        for (k = 0; k < kc; k++) dst[k * nr + c] = 0.0f;
}

/* ---- implicit im2col: a convolution's B packed straight from its images. Its GEMM
   multiplies the weights [O, C*KH*KW] by the column matrix, whose row (c, kh, kw) holds, for
   every output pixel (image, oh, ow) in turn, the input pixel that tap of the window covers
   (0 in the padding). Filling B's slivers from the images directly means the column matrix
   is never written out and read back; the packed numbers are the same, so is the product. */
typedef struct tt__im2col_src {
    const float *x;                    /* images [N, C, H, W], contiguous */
    int64_t      C, H, W, KH, KW, OH, OW;
    int64_t      sh, sw, ph, pw, dh, dw;   /* stride, padding, dilation */
} tt__im2col_src;

/* The output columns ow whose input column ow*s - pad + off lies inside [0, W): [*lo, *hi). */
static void tt__window_cols(int64_t W, int64_t OW, int64_t s, int64_t pad, int64_t off, int64_t *lo, int64_t *hi) {
    int64_t first = pad - off, last = W - 1 + pad - off;
    *lo = first <= 0 ? 0 : s == 1 ? first : (first + s - 1) / s;       /* no division for stride 1 */
    *lo = tt__min64(*lo, OW);                          /* a tap that starts past every output (huge padding) */
    *hi = last < 0 ? 0 : tt__min64(OW, (s == 1 ? last : last / s) + 1);
    if (*hi < *lo) *hi = *lo;
}

/* d[q] = r[q*s] for q < n: the runs of im2col, often short. Compilers turn a plain copy loop
   into a memcpy call, which costs as much as copying the 1-48 floats of a short run: with
   AVX-512 a contiguous run is copied by masked 16-float loads and stores (masked-off lanes
   are neither read nor written; GCC turns even unmasked vector moves into a memmove call),
   and a run of stride 2 (stride-2
   convolutions) by two loads and one permute per 16 floats, where compilers gather one float
   at a time; tt__copy_run_ref is the plain-C twin. */
static void tt__copy_run_ref(float *TT__RESTRICT d, const float *TT__RESTRICT r, int64_t s, int64_t n) {
    int64_t q;
    if (s == 1) TT__EACH(n, d[i] = r[i]);
    else for (q = 0; q < n; q++) d[q] = r[q * s];
}

#if TT__SIMD_AVX512
/* Floats [from, from + n) of r, n <= 32 (lanes past n zero, not read), as lanes 0-31 of lo, hi. */
TT__TARGET_AVX512 static void tt__load32_avx512(const float *r, int64_t n, __m512 *lo, __m512 *hi) {
    __mmask16 m_lo = (__mmask16)(n >= 16 ? 0xFFFFu : (1u << (unsigned)n) - 1u);
    __mmask16 m_hi = (__mmask16)(n >= 32 ? 0xFFFFu : n <= 16 ? 0u : (1u << (unsigned)(n - 16)) - 1u);
    *lo = _mm512_maskz_loadu_ps(m_lo, r);
    *hi = _mm512_maskz_loadu_ps(m_hi, r + 16);
}

/* d[q] = r[2q] for q < n: 16 floats from 32 by one two-source permute; the last block's loads
   masked to the floats the run reaches. */
TT__TARGET_AVX512 static void tt__copy_run2_avx512(float *TT__RESTRICT d, const float *TT__RESTRICT r, int64_t n) {
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    int64_t q = 0;
    __m512 lo, hi;
    for (; q + 17 <= n; q += 16) {                     /* 2q + 31 is still inside the run */
        lo = _mm512_loadu_ps(r + 2 * q);
        hi = _mm512_loadu_ps(r + 2 * q + 16);
        _mm512_storeu_ps(d + q, _mm512_permutex2var_ps(lo, evens, hi));
    }
    if (q < n) {
        tt__load32_avx512(r + 2 * q, 2 * (n - q) - 1, &lo, &hi);
        _mm512_mask_storeu_ps(d + q, (__mmask16)((1u << (unsigned)(n - q)) - 1u), _mm512_permutex2var_ps(lo, evens, hi));
    }
}

TT__TARGET_AVX512 static void tt__copy_run_avx512(float *TT__RESTRICT d, const float *TT__RESTRICT r, int64_t s, int64_t n) {
    int64_t q = 0;
    if (s == 2) {
        tt__copy_run2_avx512(d, r, n);
        return;
    }
    if (s != 1) {
        tt__copy_run_ref(d, r, s, n);
        return;
    }
    for (; q < n; q += 16) {
        __mmask16 m = n - q >= 16 ? (__mmask16)0xFFFFu : (__mmask16)((1u << (unsigned)(n - q)) - 1u);
        _mm512_mask_storeu_ps(d + q, m, _mm512_maskz_loadu_ps(m, r + q));
    }
}
#endif

/* n <= NR entries of the column matrix's row for tap (c, kh, kw), from output pixel
   (img, oh, ow) on, into a sliver row dst of NR floats: zeros everywhere first (one
   fixed-size fill, where a zero loop per padding run cost a memset call), then, one output
   row at a time, one (strided) copy of the input row where the window lies on the image. */
static void tt__im2col_run(const tt__kernels *kt, const tt__im2col_src *s, int64_t c, int64_t kh, int64_t kw, int64_t img,
                           int64_t oh, int64_t ow, int64_t n, float *TT__RESTRICT dst) {
    int64_t off = kw * s->dw, lo, hi, q;
    for (q = 0; q < kt->nr; q++) dst[q] = 0.0f;
    tt__window_cols(s->W, s->OW, s->sw, s->pw, off, &lo, &hi);
    while (n > 0) {
        int64_t len = tt__min64(n, s->OW - ow), end = ow + len, ih = oh * s->sh - s->ph + kh * s->dh;
        if (ih >= 0 && ih < s->H) {
            int64_t a = tt__min64(tt__max64(lo, ow), end), b = tt__max64(tt__min64(hi, end), a);
            const float *row = s->x + ((img * s->C + c) * s->H + ih) * s->W;
            if (b > a) kt->copy_run(dst + (a - ow), row + a * s->sw + off - s->pw, s->sw, b - a);
        }
        dst += len;
        n -= len;
        ow = 0;
        if (++oh == s->OH) { oh = 0; img++; }
    }
}

/* Rows k0..k1 of the B panel (rows p0.., columns j0.., nc of them) as tt__pack_b packs them,
   from the images: sliver by sliver, its first output pixel worked out once and the taps
   (c, kh, kw) stepped row by row (no division per entry). */
static void tt__pack_b_im2col(const tt__kernels *kt, float *TT__RESTRICT Bp, const tt__im2col_src *src, int64_t p0,
                              int64_t kc, int64_t k0, int64_t k1, int64_t j0, int64_t nc) {
    int64_t s, k, hw = src->OH * src->OW, kk = p0 + k0, nr = kt->nr;
    int64_t c0 = kk / (src->KH * src->KW), kh0 = kk / src->KW % src->KH, kw0 = kk % src->KW;
    for (s = 0; s < nc; s += nr) {
        int64_t cols = tt__min64(nr, nc - s), col = j0 + s;
        int64_t img = col / hw, oh = col % hw / src->OW, ow = col % src->OW, c = c0, kh = kh0, kw = kw0;
        for (k = k0; k < k1; k++) {
            tt__im2col_run(kt, src, c, kh, kw, img, oh, ow, cols, Bp + s * kc + k * nr);   /* zeros past cols */
            if (++kw == src->KW) { kw = 0; if (++kh == src->KH) { kh = 0; c++; } }
        }
    }
}

/* B packing: TT__PACK_ROWS rows of the panel per task, or one sliver per task when B's
   columns are contiguous; rows from the images when B is a convolution's column matrix. */
#define TT__PACK_ROWS 8
typedef struct tt__packb_job {
    const tt__kernels *kt;
    float *Bp;
    const float *B;
    const tt__im2col_src *im;          /* not NULL: B is this column matrix (B, sbk, sbn unused) */
    int64_t sbk, sbn, p0, kc, j0, nc;
} tt__packb_job;

static bool tt__packb_by_cols(const tt__packb_job *j) { return !j->im && j->sbk == 1 && j->sbn != 1; }

/* Packing from images is cut by columns too, TT__PACK_SLIVERS slivers a task: a convolution
   with few input channels has few rows (27 for 3 channels and 3x3), too few tasks to share. */
#define TT__PACK_SLIVERS 16
static int64_t tt__packb_col_tasks(const tt__packb_job *j) {
    int64_t per_task = j->kt->nr * TT__PACK_SLIVERS;
    return j->im ? (j->nc + per_task - 1) / per_task : 1;
}

static int64_t tt__packb_tasks(const tt__packb_job *j) {
    return tt__packb_by_cols(j) ? (j->nc + j->kt->nr - 1) / j->kt->nr
                                : (j->kc + TT__PACK_ROWS - 1) / TT__PACK_ROWS * tt__packb_col_tasks(j);
}

static void tt__packb_task(void *arg, int64_t t, int thread) {
    const tt__packb_job *j = (const tt__packb_job *)arg;
    int64_t ct = tt__packb_col_tasks(j), k0 = t / ct * TT__PACK_ROWS, k1 = tt__min64(j->kc, k0 + TT__PACK_ROWS);
    int64_t nr = j->kt->nr;
    (void)thread;
    if (j->im) {
        int64_t s0 = t % ct * nr * TT__PACK_SLIVERS, cols = tt__min64(j->nc - s0, nr * TT__PACK_SLIVERS);
        tt__pack_b_im2col(j->kt, j->Bp + s0 * j->kc, j->im, j->p0, j->kc, k0, k1, j->j0 + s0, cols);
    } else if (tt__packb_by_cols(j)) tt__pack_b_cols(nr, j->Bp, j->B, j->sbn, j->p0, j->kc, j->j0, j->nc, t * nr);
    else tt__pack_b(nr, j->Bp, j->B, j->sbk, j->sbn, j->p0, j->kc, k0, k1, j->j0, j->nc);
}

typedef struct tt__sgemm_job {
    const float    *A, *Bp;
    const float    *Apre;              /* the current k block of an A packed ahead (tt__prepack_a), or NULL */
    float          *C, *Apacks;        /* Apacks: one MC x KC buffer per thread (when A is packed here) */
    int64_t         M, N, sam, sak, i_step, j0, nc, p0, kc, mc_buf;
    int64_t         ldc, seg, seg_stride;  /* C(i,j) = C[i*ldc + (j/seg)*seg_stride + j%seg] */
    int64_t         col_step;          /* the column split: columns per task (whole slivers) */
    const struct tt__packb_job *pb;    /* and how its tasks pack their B slivers */
    bool            first_k, last_k;   /* C = product (first k block) or C += product; last: epilogue */
    const tt__kernels  *kt;
    const tt__epilogue *ep;
} tt__sgemm_job;

/* Where C(i, jcol) is: C's columns come in segments of seg columns (one per image when a
   convolution's GEMM writes its output [N,O,OH*OW] directly), rows ldc apart. */
static float *tt__sgemm_c_at(const tt__sgemm_job *j, int64_t i, int64_t jcol) {
    return j->C + i * j->ldc + (jcol / j->seg) * j->seg_stride + jcol % j->seg;
}

/* The kernel for a tile of `cols` columns: the table's, or a narrow twin when the table has
   one and cols fits in 16 or 32 (no work on the padding of the last sliver). */
static tt__ukernel_fn tt__sgemm_kernel_for(const tt__sgemm_job *j, int64_t cols) {
    if (j->kt->ukernel_16 && cols <= 16) return j->kt->ukernel_16;
    if (j->kt->ukernel_32 && cols <= 32) return j->kt->ukernel_32;
    return j->kt->ukernel;
}

/* An edge tile (fewer than MR rows or NR columns left, or columns across two segments): the
   kernel works on a full tile in a buffer that holds the part of C inside the matrix (after
   the first k block: the kernel continues or adds to it, as on C itself), and only that part
   is copied back, run by run within a segment; the epilogue follows on the last k block. */
static void tt__sgemm_edge(const tt__sgemm_job *j, const float *Ap, const float *Bp, int64_t i, int64_t jcol, int64_t rows,
                           int64_t cols) {
    float tile[TT__MR_MAX * TT__NR_MAX] = {0};
    int64_t r, c0, n, nr = j->kt->nr;
    for (r = 0; r < rows && !j->first_k; r++)
        for (c0 = 0; c0 < cols; c0 += n) {
            n = tt__min64(cols - c0, j->seg - (jcol + c0) % j->seg);
            memcpy(tile + r * nr + c0, tt__sgemm_c_at(j, i + r, jcol + c0), (size_t)n * sizeof(float));
        }
    tt__sgemm_kernel_for(j, cols)(j->kc, Ap, Bp, tile, nr, !j->first_k);
    for (r = 0; r < rows; r++)
        for (c0 = 0; c0 < cols; c0 += n) {
            float *crow = tt__sgemm_c_at(j, i + r, jcol + c0);
            n = tt__min64(cols - c0, j->seg - (jcol + c0) % j->seg);
            memcpy(crow, tile + r * nr + c0, (size_t)n * sizeof(float));
            if (j->last_k) j->kt->epilogue_block(j->ep, crow, j->ldc, i + r, jcol + c0, 1, n);
        }
}

/* Rows [i0, i0 + mc) of C by the panel's columns [jr0, jr1) for the current k block: each
   B sliver (in L1) against every A sliver of the rows (in L2). The kernel reads and writes
   full tiles of C in place; the sum over k is in the same order for every tile (k blocks in
   turn, each from 0 upwards), whichever thread runs it. */
static void tt__sgemm_tiles(const tt__sgemm_job *j, const float *Ap, int64_t i0, int64_t mc, int64_t jr0, int64_t jr1) {
    const tt__ukernel_fn full = j->kt->ukernel;
    int64_t ir, jr, mr = j->kt->mr, nr = j->kt->nr;
    for (jr = jr0; jr < jr1; jr += nr)
        for (ir = 0; ir < mc; ir += mr) {
            int64_t rows = tt__min64(mr, mc - ir), cols = tt__min64(nr, j->nc - jr), jcol = j->j0 + jr;
            tt__ukernel_fn uk = cols == nr ? full : tt__sgemm_kernel_for(j, cols);
            bool whole = cols == nr || (uk != full && (cols == 16 || cols == 32));   /* no buffer */
            if (rows == mr && whole && jcol % j->seg + cols <= j->seg) {
                float *C = tt__sgemm_c_at(j, i0 + ir, jcol);
                uk(j->kc, Ap + ir * j->kc, j->Bp + jr * j->kc, C, j->ldc, !j->first_k);
                if (j->last_k) j->kt->epilogue_block(j->ep, C, j->ldc, i0 + ir, jcol, rows, cols);
            } else {
                tt__sgemm_edge(j, Ap + ir * j->kc, j->Bp + jr * j->kc, i0 + ir, jcol, rows, cols);
            }
        }
}

/* One task of the row split: rows [t*i_step, ..) by the whole packed panel, A packed here
   (or ahead). */
static void tt__sgemm_task(void *arg, int64_t t, int thread) {
    const tt__sgemm_job *j = (const tt__sgemm_job *)arg;
    int64_t i0 = t * j->i_step, mc = tt__min64(j->i_step, j->M - i0);
    float *buf;
    if (j->Apre) {
        tt__sgemm_tiles(j, j->Apre + i0 * j->kc, i0, mc, 0, j->nc);
        return;
    }
    buf = j->Apacks + (size_t)thread * (size_t)j->mc_buf;
    tt__pack_a(j->kt, buf, j->A, j->sam, j->sak, i0, mc, j->M, j->p0, j->kc);
    tt__sgemm_tiles(j, buf, i0, mc, 0, j->nc);
}

/* The column split, for products whose rows fit one block (M <= MC: a layer's output
   channels): A is packed once (sliver t of it here) and every task packs the B slivers of
   its own columns, then multiplies them by all of A while they are still in its core's
   cache. The row split instead has each task stream the whole panel, which another core
   packed and which is larger than L2 (2 threads on ResNet-18's 3x3s: 1.45-1.6x one). */
static void tt__sgemm_pack_a_task(void *arg, int64_t t, int thread) {
    const tt__sgemm_job *j = (const tt__sgemm_job *)arg;
    int64_t mr = j->kt->mr;
    (void)thread;
    tt__pack_a(j->kt, j->Apacks + t * mr * j->kc, j->A, j->sam, j->sak, t * mr, mr, j->M, j->p0, j->kc);
}

static void tt__sgemm_col_task(void *arg, int64_t t, int thread) {
    const tt__sgemm_job *j = (const tt__sgemm_job *)arg;
    int64_t s0 = t * j->col_step, s1 = tt__min64(j->nc, s0 + j->col_step), s;
    tt__packb_job pb = *j->pb;
    (void)thread;
    if (pb.im) {
        tt__pack_b_im2col(j->kt, pb.Bp + s0 * j->kc, pb.im, pb.p0, pb.kc, 0, pb.kc, pb.j0 + s0, s1 - s0);
    } else if (tt__packb_by_cols(&pb)) {
        for (s = s0; s < s1; s += j->kt->nr) tt__pack_b_cols(j->kt->nr, pb.Bp, pb.B, pb.sbn, pb.p0, pb.kc, pb.j0, pb.nc, s);
    } else {
        tt__pack_b(j->kt->nr, pb.Bp + s0 * j->kc, pb.B, pb.sbk, pb.sbn, pb.p0, pb.kc, 0, pb.kc, pb.j0 + s0, s1 - s0);
    }
    tt__sgemm_tiles(j, j->Apre ? j->Apre : j->Apacks, 0, j->M, s0, s1);
}

/* Where block (jc, pc) of a fully packed B starts: blocks of KC rows by NC columns, each
   packed as tt__pack_b does, one after another (every column block but the last is full). */
static int64_t tt__prepacked_at(int64_t nr, int64_t K, int64_t jc, int64_t pc, int64_t nc) {
    return jc * K + pc * ((nc + nr - 1) / nr * nr);
}

/* Floats a fully packed M x K operand A takes: per k block, every row in MR-row slivers. */
static size_t tt__prepacked_a_floats(const tt__kernels *kt, int64_t M, int64_t K) {
    return (size_t)K * (size_t)((M + kt->mr - 1) / kt->mr * kt->mr);
}

/* Packs all of A into dst as the SGEMM's tasks would, k block by k block (each block's
   slivers for rows 0.., then the next block's): done once for a graph's constant
   convolution weight. A task's rows start at a multiple of MR, so its slivers are a run of
   these, the same floats it would pack itself. */
static void tt__prepack_a(const tt__kernels *kt, float *dst, const float *A, int64_t sam, int64_t sak, int64_t M, int64_t K) {
    tt__gemm_blocks bl = tt__gemm_blocking(kt);
    int64_t mp = (M + kt->mr - 1) / kt->mr * kt->mr, pc;
    for (pc = 0; pc < K; pc += bl.kc) tt__pack_a(kt, dst + pc * mp, A, sam, sak, 0, mp, M, pc, tt__min64(bl.kc, K - pc));
}

/* Floats a fully packed K x N operand B takes. */
static size_t tt__prepacked_floats(const tt__kernels *kt, int64_t K, int64_t N) {
    return (size_t)K * (size_t)((N + kt->nr - 1) / kt->nr * kt->nr);
}

/* Packs all of B (every block the SGEMM below would pack) into dst, on this thread: done
   once for a graph's constant weight, so that its runs skip packing. */
static void tt__prepack_b(const tt__kernels *kt, float *dst, const float *B, int64_t sbk, int64_t sbn, int64_t K, int64_t N) {
    tt__gemm_blocks bl = tt__gemm_blocking(kt);
    int64_t jc, pc, sl, nc_max = tt__min64(bl.nc, (N + kt->nr - 1) / kt->nr * kt->nr);
    for (jc = 0; jc < N; jc += nc_max)
        for (pc = 0; pc < K; pc += bl.kc) {
            tt__packb_job pb;
            int64_t t, nc = tt__min64(nc_max, N - jc);
            pb.kt = kt;
            pb.Bp = dst + tt__prepacked_at(kt->nr, K, jc, pc, nc); pb.B = B; pb.im = NULL; pb.sbk = sbk; pb.sbn = sbn;
            pb.p0 = pc; pb.kc = tt__min64(bl.kc, K - pc); pb.j0 = jc; pb.nc = nc;
            for (t = 0, sl = tt__packb_tasks(&pb); t < sl; t++) tt__packb_task(&pb, t, 0);
        }
}

/* C[M,N] = A * B with packing (A already packed by tt__prepack_a when Apre is not NULL; B
   by tt__prepack_b when Bpre is not NULL, or packed from a convolution's images when im is
   not NULL), then the epilogue ep (may be
   NULL) on each tile; false when scratch memory runs out (the caller falls back). C is
   contiguous, or, when seg > 0, in segments of seg columns seg_stride floats apart with rows
   seg floats apart (a batched convolution's output). */
static bool tt__sgemm_run(tt_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                          const float *B, int64_t sbk, int64_t sbn, const tt__im2col_src *im, const float *Apre,
                          const float *Bpre, float *C, int64_t seg, int64_t seg_stride, const tt__epilogue *ep) {
    const tt__kernels *kt = ctx->kern;
    tt__gemm_blocks bl = tt__gemm_blocking(kt);
    tt__sgemm_job j;
    tt_status before = ctx->err.status;
    tt_scope s = tt_scope_begin(ctx);
    int64_t jc, pc, mr = kt->mr, mp = (M + mr - 1) / mr * mr, nc_max = tt__min64(bl.nc, (N + kt->nr - 1) / kt->nr * kt->nr);
    int64_t slivers = nc_max / kt->nr, per_task;
    float *Bp = NULL;
    bool have_b, by_cols = M <= bl.mc && !Bpre;        /* the column split (tt__sgemm_col_task) */
    tt__packb_job pb;
    j.i_step = by_cols ? mp : tt__min64(bl.mc, tt__max64(mr, ((M + 3) / 4 + mr - 1) / mr * mr));
    j.mc_buf = j.i_step * bl.kc;
    j.Apacks = NULL;
    per_task = tt__min64(TT__PACK_SLIVERS, tt__max64(1, (slivers + 4 * ctx->n_threads - 1) / (4 * ctx->n_threads)));
    j.col_step = per_task * kt->nr;                    /* about 4 tasks a thread, B slivers within L2 */
    j.pb = &pb;
    if (!Bpre) Bp = (float *)tt__alloc(ctx, "tt_matmul", sizeof(float) * (size_t)(bl.kc * nc_max));
    have_b = Bp || Bpre;
    if (have_b && !Apre)
        j.Apacks = (float *)tt__alloc(ctx, "tt_matmul", sizeof(float) * (size_t)(j.mc_buf * (by_cols ? 1 : ctx->n_threads)));
    if (!have_b || (!Apre && !j.Apacks)) {             /* no scratch: the caller's simpler loop needs none */
        tt_scope_end(ctx, s);
        if (before == TT_OK) tt_clear_error(ctx);
        return false;
    }
    j.A = A; j.C = C; j.M = M; j.N = N; j.sam = sam; j.sak = sak; j.kt = kt; j.ep = ep;
    j.ldc = seg > 0 ? seg : N;
    j.seg = seg > 0 ? seg : tt__max64(N, 1);
    j.seg_stride = seg > 0 ? seg_stride : 0;
    for (jc = 0; jc < N; jc += nc_max) {
        j.j0 = jc;
        j.nc = tt__min64(nc_max, N - jc);
        for (pc = 0; pc < K || pc == 0; pc += bl.kc) {
            j.p0 = pc;
            j.kc = tt__min64(bl.kc, K - pc);
            j.first_k = pc == 0;
            j.last_k = pc + j.kc >= K;
            j.Apre = Apre ? Apre + pc * mp : NULL;     /* the blocks before hold pc columns of mp rows */
            pb.kt = kt;
            pb.Bp = Bp; pb.B = B; pb.im = im; pb.sbk = sbk; pb.sbn = sbn; pb.p0 = pc; pb.kc = j.kc;
            pb.j0 = jc; pb.nc = j.nc;
            j.Bp = Bpre && K > 0 ? Bpre + tt__prepacked_at(kt->nr, K, jc, pc, j.nc) : Bp;
            if (by_cols) {                             /* each task packs its own B slivers */
                if (!j.Apre) tt__parallel_for(ctx, tt__sgemm_pack_a_task, &j, mp / mr);
                tt__parallel_for(ctx, tt__sgemm_col_task, &j, (j.nc + j.col_step - 1) / j.col_step);
            } else {
                if (!Bpre || K == 0) tt__parallel_for(ctx, tt__packb_task, &pb, tt__packb_tasks(&pb));
                tt__parallel_for(ctx, tt__sgemm_task, &j, (M + j.i_step - 1) / j.i_step);
            }
            if (K == 0) break;
        }
    }
    tt_scope_end(ctx, s);
    return true;
}

/* C[M,N] = A * B with packing; false when scratch memory runs out (the caller falls back). */
static TT__MAYBE_UNUSED bool tt__sgemm_packed(tt_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                                              const float *B, int64_t sbk, int64_t sbn, float *C) {
    return tt__sgemm_run(ctx, M, N, K, A, sam, sak, B, sbk, sbn, NULL, NULL, NULL, C, 0, 0, NULL);
}

/* True when tt__gemm takes the packed path for this size (so packing B ahead pays). N from 16:
   with AVX-512 a product narrower than a 48-column sliver runs on the narrow kernels (N <= 32)
   or a full kernel into the edge buffer (N = 33..47): 4-6x the direct loops with many rows. */
static bool tt__gemm_is_packed_mr(int64_t mr, int64_t M, int64_t N, int64_t K) {
    int64_t mn, mnk;
    if (M < mr || N < 16 || K < 8) return false;
    mn = tt__mul_checked(M, N);                        /* in integers: no double arithmetic on an M4 */
    mnk = mn < 0 ? -1 : tt__mul_checked(mn, K);
    return mnk < 0 || mnk >= 262144;                   /* -1: past int64, so large */
}
static bool tt__gemm_is_packed(const tt__kernels *kt, int64_t M, int64_t N, int64_t K) {
    return tt__gemm_is_packed_mr(kt->mr, M, N, K);
}

/* C[M,N] (contiguous) = A[M,K] * B[K,N]; A(i,k) = A[i*sam + k*sak], B(k,j) = B[k*sbk + j*sbn];
   then the epilogue ep (NULL: none). Large products take the packed path (with A or B packed
   ahead when Apre or Bpre is given); small ones (and batch-1 rows) the direct loops. */
static void tt__gemm_pre(tt_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                         const float *B, int64_t sbk, int64_t sbn, const float *Apre, const float *Bpre, float *C,
                         const tt__epilogue *ep) {
    tt__gemm_job g;
    if (tt__gemm_is_packed(ctx->kern, M, N, K) && tt__sgemm_run(ctx, M, N, K, A, sam, sak, B, sbk, sbn, NULL, Apre, Bpre, C, 0, 0, ep))
        return;
    TT_ASSERT(sbn == 1 || (sak == 1 && sbk == 1));
    g.M = M; g.N = N; g.K = K; g.sam = sam; g.sak = sak; g.sbk = sbk; g.sbn = sbn;
    g.A = A; g.B = B; g.C = C; g.ep = ep;
    g.n_col_tiles = (N + TT__GEMM_NB - 1) / TT__GEMM_NB;
    tt__parallel_for(ctx, ctx->kern->gemm_task, &g, ((M + TT__GEMM_MB - 1) / TT__GEMM_MB) * g.n_col_tiles);
}

static void tt__gemm(tt_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                     const float *B, int64_t sbk, int64_t sbn, float *C) {
    tt__gemm_pre(ctx, M, N, K, A, sam, sak, B, sbk, sbn, NULL, NULL, C, NULL);
}

/* The 2-D views matmul works on: a 1-D a becomes [1,K], a 1-D b becomes [K,1] (no alloc). */
static void tt__matmul_operands(const tt_tensor *a, const tt_tensor *b, tt_tensor *a2, tt_tensor *b2) {
    *a2 = *a;
    *b2 = *b;
    if (a->ndim == 1) { a2->ndim = 2; a2->shape[1] = a->shape[0]; a2->stride[1] = a->stride[0]; a2->shape[0] = 1; a2->stride[0] = 0; }
    if (b->ndim == 1) { b2->ndim = 2; b2->shape[1] = 1; b2->stride[1] = 0; }
}

static bool tt__infer_matmul(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *a = c->in[0], *b = c->in[1];
    tt_tensor a2, b2;
    int64_t bshape[TT_MAX_DIMS];
    int nb, d;
    if (a->ndim == 0 || b->ndim == 0) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: operands need at least 1 dimension: a is %S, b is %S", c->name, a, b);
        return false;
    }
    tt__matmul_operands(a, b, &a2, &b2);
    if (b2.shape[b2.ndim - 2] != a2.shape[a2.ndim - 1]) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: inner dimensions differ: a is %S, b is %S", c->name, a, b);
        return false;
    }
    if (!tt__broadcast_shape(a2.ndim - 2, a2.shape, b2.ndim - 2, b2.shape, &nb, bshape)) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: batch dimensions do not broadcast: a is %S, b is %S", c->name, a, b);
        return false;
    }
    out->ndim = 0;
    for (d = 0; d < nb; d++) out->shape[out->ndim++] = bshape[d];
    if (a->ndim > 1) out->shape[out->ndim++] = a2.shape[a2.ndim - 2];
    if (b->ndim > 1) out->shape[out->ndim++] = b2.shape[b2.ndim - 1];
    out->dtype = TT_F32;
    return tt__header_finish(ctx, c->name, "a and b", out);
}

static bool tt__exec_matmul(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor a2, b2, *af, *bf;
    int64_t bshape[TT_MAX_DIMS], sa[TT_MAX_DIMS], sb[TT_MAX_DIMS], M, N, K, nbatch = 1, bi;
    int nb, an, bn, d;
    af = tt__as_f32(ctx, c->name, c->in[0]);
    bf = af ? tt__as_f32(ctx, c->name, c->in[1]) : NULL;
    if (!bf) return false;
    tt__matmul_operands(af, bf, &a2, &b2);
    an = a2.ndim; bn = b2.ndim;
    if (!tt__gemm_layout_ok(a2.stride[an - 1], b2.stride[bn - 2], b2.stride[bn - 1])) {
        bf = tt__copy_as(ctx, c->name, &b2, TT_F32);   /* contiguous B: rows of B are contiguous */
        if (!bf) return false;
        b2 = *bf;
    }
    M = a2.shape[an - 2]; K = a2.shape[an - 1]; N = b2.shape[bn - 1];
    if (!tt__broadcast_shape(an - 2, a2.shape, bn - 2, b2.shape, &nb, bshape)) return false;  /* infer checked */
    for (d = 0; d < nb; d++) {                         /* batch strides, 0 where broadcast */
        int ad = d - (nb - (an - 2)), bd = d - (nb - (bn - 2));
        sa[d] = (ad < 0 || a2.shape[ad] != bshape[d]) ? 0 : a2.stride[ad];
        sb[d] = (bd < 0 || b2.shape[bd] != bshape[d]) ? 0 : b2.stride[bd];
        nbatch *= bshape[d];
    }
    for (bi = 0; bi < nbatch; bi++) {
        int64_t rest = bi, oa = a2.offset, ob = b2.offset;
        for (d = nb - 1; d >= 0; d--) {
            int64_t i = rest % bshape[d];
            rest /= bshape[d];
            oa += i * sa[d];
            ob += i * sb[d];
        }
        tt__gemm(ctx, M, N, K, (const float *)a2.data + oa, a2.stride[an - 2], a2.stride[an - 1],
                 (const float *)b2.data + ob, b2.stride[bn - 2], b2.stride[bn - 1],
                 (float *)tt__ptr(out) + bi * M * N);
    }
    return true;
}

TT_API tt_tensor *tt_matmul(tt_ctx *ctx, tt_tensor *a, tt_tensor *b) {
    return tt__binary(ctx, "tt_matmul", TT__OP_MATMUL, a, b);
}

/* in = {x, weight, bias?}. */
static bool tt__infer_linear(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *w = c->in[1], *bias = c->in[2];
    int d;
    if (w->ndim != 2 || x->ndim < 1 || x->shape[x->ndim - 1] != w->shape[1]) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S does not fit weight %S: expected x [...,in] and weight [out,in]",
                 c->name, x, w);
        return false;
    }
    if (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: bias has shape %S, expected [%D] for weight %S", c->name, bias, w->shape[0], w);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = x->ndim;
    for (d = 0; d < x->ndim - 1; d++) out->shape[d] = x->shape[d];
    out->shape[x->ndim - 1] = w->shape[0];
    return tt__header_finish(ctx, c->name, "x and weight", out);
}

static bool tt__exec_linear(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int64_t in = c->in[1]->shape[1], outf = c->in[1]->shape[0], M;
    bool failed = false;
    const float *bd;
    tt_tensor *xc, *w;
    tt__epilogue ep;
    if (out->numel == 0) return true;
    M = out->numel / outf;
    xc = tt__contiguous_f32(ctx, c->name, c->in[0]);
    w = tt__as_f32(ctx, c->name, c->in[1]);            /* B(k,j) = weight[j,k] */
    if (w && !tt__gemm_layout_ok(1, w->stride[1], w->stride[0])) w = tt__copy_as(ctx, c->name, w, TT_F32);
    bd = tt__param_data(ctx, c->name, c->in[2], &failed);
    if (!xc || !w || failed) return false;
    ep.bias = bd;
    ep.bias_kind = bd ? TT__BIAS_COLS : TT__BIAS_NONE;
    ep.relu = tt__cpu_data(c)->relu_after;
    ep.clamp = tt__cpu_data(c)->clamp_after;
    tt__clamp_done(c);
    tt__gemm_pre(ctx, M, outf, in, (const float *)tt__ptr(xc), in, 1, (const float *)tt__ptr(w),
                 w->stride[1], w->stride[0], NULL, tt__cpu_data(c)->packed_w, (float *)tt__ptr(out), tt__epilogue_or_null(&ep));
    return true;
}

TT_API tt_tensor *tt_linear(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias) {
    tt__attrs a = tt__attrs_zero();
    tt_tensor *in[3];
    in[0] = x; in[1] = weight; in[2] = bias;
    return tt__op(ctx, "tt_linear", TT__OP_LINEAR, in, 3, &a);
}

/* ==========================================================================
 * >>conv   conv2d/conv1d (direct by bands, im2col + GEMM, Winograd, channels-last), pooling,
 *          upsampling
 *
 * Convolution unrolls, per image and group, every receptive field into a column of a
 * [Cin/groups*kh*kw, OH*OW] matrix (im2col; zeros where the window hangs over the
 * padding), then one GEMM with the group's weights gives all output channels. A 1x1
 * convolution with stride 1 and no padding needs no unrolling: the image is the matrix.
 * Depthwise convolution (one input channel per group) slides its window directly: a
 * GEMM per channel would have a single row. With few input channels a direct kernel sums
 * the same products in the same order as the GEMM from zero-padded copies of the input
 * rows, without the column matrix. Both work on bands of output rows (see the bands
 * below). Graphs compiled in TT_MODE_MAX_AUTOTUNE may run 3x3 stride-1 convolutions by
 * Winograd F(2x2, 3x3) or F(4x4, 3x3), as their compile chose (by timing, or as
 * tt_graph_set_conv_algo says): the one path that is not eager's bits. Depthwise and 1x1
 * convolutions also run on channels-last data, where a graph's layout pass keeps it (its
 * kernels after the bands). conv1d is conv2d on a height-1 image.
 * ========================================================================== */

/* Work on independent planes (one image channel each), a few planes per task: the tasks
   depend only on the shape, so results do not depend on the thread count. */
typedef void (*tt__plane_fn)(const void *arg, int64_t plane);
typedef struct tt__planes_job { tt__plane_fn fn; const void *arg; int64_t n, per_task; } tt__planes_job;

static void tt__planes_task(void *arg, int64_t t, int thread) {
    const tt__planes_job *j = (const tt__planes_job *)arg;
    int64_t p, p1 = tt__min64(j->n, (t + 1) * j->per_task);
    (void)thread;
    for (p = t * j->per_task; p < p1; p++) j->fn(j->arg, p);
}

static void tt__for_planes(tt_ctx *ctx, tt__plane_fn fn, const void *arg, int64_t n_planes, int64_t work_per_plane) {
    tt__planes_job j;
    j.fn = fn; j.arg = arg; j.n = n_planes;
    j.per_task = tt__max64(1, TT__TASK_ELEMS / tt__max64(1, work_per_plane));
    tt__parallel_for(ctx, tt__planes_task, &j, (n_planes + j.per_task - 1) / j.per_task);
}

/* Output size of a sliding window, or -1 when the window does not fit. */
static int64_t tt__out_size(int64_t in, int64_t k, int stride, int pad, int dil) {
    int64_t span = tt__mul_checked(dil, k - 1);         /* a huge dilated kernel fits nothing */
    if (span < 0 || in + 2 * (int64_t)pad <= span) return -1;
    span += 1;
    return (in + 2 * (int64_t)pad - span) / stride + 1;
}

/* What one plane (image channel) of a convolution needs: im2col and the depthwise kernel. */
typedef struct tt__conv_job {
    const float   *x, *w, *b;
    const float   *w_packed;           /* groups 1 in a graph: w packed ahead as the SGEMM's A, or NULL */
    float         *y;                  /* im2col: the column matrix; depthwise: the output */
    float         *out;                /* batched GEMM: the conv output the product is spread into */
    int64_t        C, H, W, O, Og, KH, KW, OH, OW;
    int64_t        Cim, col_ld, n0, m; /* im2col: channels per image, column matrix row length; batch */
    tt_conv_params p;
    bool           relu;               /* a fused ReLU after the bias (graphs) */
    tt__clamp      clamp;              /* a fused clamp after the bias (graphs; the GEMM paths and depthwise by bands) */
    const tt__kernels *kt;             /* the context's kernels */
} tt__conv_job;

/* The rows of the column matrix that one input channel of one image gives, one per
   (kh, kw); plane = image * Cim + channel, images side by side along the rows. Each output
   row is zeros where the window hangs over the padding and one (strided) copy of an input
   row in between. */
static void tt__im2col_plane(const void *arg, int64_t plane) {
    const tt__conv_job *j = (const tt__conv_job *)arg;
    int64_t kh, kw, oh, q, lo, hi, OH = j->OH, OW = j->OW, img = plane / j->Cim, c = plane % j->Cim;
    const float *x = j->x + (img * j->C + c) * j->H * j->W;
    for (kh = 0; kh < j->KH; kh++)
        for (kw = 0; kw < j->KW; kw++) {
            float *dst = j->y + ((c * j->KH + kh) * j->KW + kw) * j->col_ld + img * OH * OW;
            int64_t off = kw * j->p.dilation[1], s = j->p.stride[1];
            tt__window_cols(j->W, OW, s, j->p.padding[1], off, &lo, &hi);
            for (oh = 0; oh < OH; oh++) {
                int64_t ih = oh * j->p.stride[0] - j->p.padding[0] + kh * j->p.dilation[0];
                float *d = dst + oh * OW;
                if (ih < 0 || ih >= j->H) { for (q = 0; q < OW; q++) d[q] = 0.0f; continue; }
                for (q = 0; q < lo; q++) d[q] = 0.0f;
                if (hi > lo) j->kt->copy_run(d + lo, x + ih * j->W + (lo * s + off - j->p.padding[1]), s, hi - lo);
                for (q = hi; q < OW; q++) d[q] = 0.0f;
            }
        }
}

/* Batched GEMM result [O, m images x OH*OW] into the output [n0 + image, O, OH*OW], plus
   bias; plane = image * O + channel. */
static void tt__conv_spread_plane(const void *arg, int64_t plane) {
    const tt__conv_job *j = (const tt__conv_job *)arg;
    int64_t img = plane / j->O, o = plane % j->O, hw = j->OH * j->OW;
    const float *TT__RESTRICT src = j->y + o * j->m * hw + img * hw;
    float *TT__RESTRICT dst = j->out + ((j->n0 + img) * j->O + o) * hw;
    float bias = j->b ? j->b[o] : 0.0f;
    TT__EACH(hw, dst[i] = src[i] + bias);
    if (j->relu) tt__relu_run(dst, hw);
    tt__clamp_run(dst, hw, j->clamp);
}

/* d[q] += w * r[q*s] for q < n: one depthwise kernel tap over a run of outputs. */
TT__INLINE void tt__tap_mul_add(float *TT__RESTRICT d, const float *TT__RESTRICT r, int64_t s, int64_t n, float w) {
    int64_t q;
    if (s == 1) TT__EACH(n, d[i] += w * r[i]);
    else        for (q = 0; q < n; q++) d[q] += w * r[q * s];
}

/* Depthwise convolution (one input channel per group), one output plane (n, o): a direct
   sliding window, each weight times a contiguous run of input when the stride is 1. */
TT__INLINE void tt__depthwise_plane_body(const void *arg, int64_t plane) {
    const tt__conv_job *j = (const tt__conv_job *)arg;
    int64_t o = plane % j->O, n = plane / j->O, oh, kh, kw, lo, hi, OW = j->OW;
    const float *src = j->x + (n * j->C + o / j->Og) * j->H * j->W, *wk = j->w + o * j->KH * j->KW;
    float *dst = j->y + plane * j->OH * OW;
    for (oh = 0; oh < j->OH; oh++) {
        float *TT__RESTRICT d = dst + oh * OW;
        TT__EACH(OW, d[i] = 0.0f);
        for (kh = 0; kh < j->KH; kh++) {
            int64_t ih = oh * j->p.stride[0] - j->p.padding[0] + kh * j->p.dilation[0];
            if (ih < 0 || ih >= j->H) continue;
            for (kw = 0; kw < j->KW; kw++) {
                int64_t off = kw * j->p.dilation[1], s = j->p.stride[1];
                tt__window_cols(j->W, OW, s, j->p.padding[1], off, &lo, &hi);
                if (hi > lo) tt__tap_mul_add(d + lo, src + ih * j->W + (lo * s + off - j->p.padding[1]), s, hi - lo, wk[kh * j->KW + kw]);
            }
        }
        if (j->b) { float bv = j->b[o]; TT__EACH(OW, d[i] += bv); }
        if (j->relu) tt__relu_run(d, OW);
    }
}
TT__TWINS(, tt__depthwise_plane, (const void *arg, int64_t plane), (arg, plane))

/* ---- bands of padded phases: depthwise and direct convolution ----
   Both work on a band of output rows at a time, for long vector loops however narrow the
   image (7x7 to 28x28 planes) and whatever the stride. A band's input rows are copied into
   stride_h*stride_w phases of zero-padded rows per input channel: phase (a, c) holds the
   padded rows a, a+sh, ... and columns c, c+sw, ..., so tap (kh, kw) of output (oh, ow) lies
   in phase (kh*dh % sh, kw*dw % sw) at row oh + kh*dh/sh, column ow + kw*dw/sw: for the
   whole band, one contiguous run. The band's outputs are computed wq wide (wq: one past the
   widest column a tap reads) and the extra columns thrown away, so a tap is one loop over
   rows*wq outputs, rounded up to whole vectors. */
typedef struct tt__bands {
    const tt__conv_job *conv;
    int64_t        rows, wq, rq;       /* output rows per band; phase width; phase rows per band */
    int64_t        phase, chan;        /* floats per phase; per input channel (its sh*sw phases) */
    int64_t        zeroed, per_thread; /* scratch floats per thread: the phases and a gap; in all */
    const int64_t *tap;                /* tap kh*KW+kw: its first float in a channel's phases */
    float         *scratch;            /* per_thread floats for each thread: the phases, then its own */
    int64_t        n, per_task;        /* the tasks' units; units per task */
} tt__bands;

#define TT__BANDS_MAX_FLOATS ((int64_t)1 << 24)   /* scratch per thread beyond which bands are not worth it */
#define TT__BANDS_GAP        64        /* floats after the phases: the last vectors of a tap read into them */

/* One past the widest phase column a tap of j reads. */
static int64_t tt__bands_wq(const tt__conv_job *j) { return j->OW + (j->KW - 1) * j->p.dilation[1] / j->p.stride[1]; }

/* b's geometry for `rows` output rows per band (clamped to [1, OH]) and the phases of
   `channels` input channels, then `extra` floats per thread; false where the strides exceed 4
   or the scratch would be huge. */
static bool tt__bands_plan(tt__bands *b, const tt__conv_job *j, int64_t rows, int64_t channels, int64_t extra) {
    int64_t sh = j->p.stride[0], sw = j->p.stride[1];
    if (sh > 4 || sw > 4) return false;
    b->conv = j;
    b->wq = tt__bands_wq(j);
    b->rows = tt__max64(1, tt__min64(j->OH, rows));
    b->rq = b->rows + (j->KH - 1) * j->p.dilation[0] / sh;
    if ((double)channels * (double)(sh * sw) * (double)b->rq * (double)b->wq + (double)extra > (double)TT__BANDS_MAX_FLOATS)
        return false;
    b->phase = b->rq * b->wq;
    b->chan = sh * sw * b->phase;
    b->zeroed = (channels * b->chan + TT__BANDS_GAP + 15) / 16 * 16;   /* what follows starts a cache line */
    b->per_thread = b->zeroed + extra;
    return true;
}

/* The tap offsets and every thread's scratch, in a scope the caller ends; false (nothing
   kept, no error left behind) when there is no memory for them. */
static bool tt__bands_alloc(tt_ctx *ctx, const char *name, tt__bands *b, tt_scope *scope) {
    const tt__conv_job *j = b->conv;
    int64_t sh = j->p.stride[0], sw = j->p.stride[1], k, *tap;
    tt_status before = ctx->err.status;
    *scope = tt_scope_begin(ctx);
    tap = (int64_t *)tt__alloc(ctx, name, sizeof(int64_t) * (size_t)(j->KH * j->KW));
    b->scratch = tap ? (float *)tt__alloc(ctx, name, sizeof(float) * (size_t)(b->per_thread * ctx->n_threads)) : NULL;
    if (!b->scratch) {
        tt_scope_end(ctx, *scope);
        if (before == TT_OK) tt_clear_error(ctx);
        return false;
    }
    for (k = 0; k < j->KH * j->KW; k++) {
        int64_t dy = k / j->KW * j->p.dilation[0], dx = k % j->KW * j->p.dilation[1];
        tap[k] = (dy % sh * sw + dx % sw) * b->phase + dy / sh * b->wq + dx / sw;
    }
    b->tap = tap;
    return true;
}

/* Input row x (W floats) into phase row r of the sw column phases of row phase `first`:
   input column iw goes to column phase (iw + pw) % sw at (iw + pw) / sw. Columns no input
   reaches keep the zeros the task wrote. */
TT__INLINE void tt__bands_fill_row(const tt__bands *b, const float *x, float *first, int64_t r) {
    const tt__conv_job *j = b->conv;
    int64_t sw = j->p.stride[1], pw = j->p.padding[1], c;
    for (c = 0; c < sw && c < j->W; c++) {
        int64_t at = (c + pw) / sw, n = tt__min64((j->W - c + sw - 1) / sw, b->wq - at);
        if (n > 0) j->kt->copy_run(first + (c + pw) % sw * b->phase + r * b->wq + at, x + c, sw, n);
    }
}

/* The rows of input plane x that the band from output row oh0 reads, into its phases at
   `phases`; rows over the padding all zeros. */
TT__INLINE void tt__bands_fill(const tt__bands *b, const float *x, int64_t oh0, float *phases) {
    const tt__conv_job *j = b->conv;
    int64_t sh = j->p.stride[0], sw = j->p.stride[1], a, c, r;
    for (a = 0; a < sh; a++) {
        float *first = phases + a * sw * b->phase;
        for (r = 0; r < b->rq; r++) {
            int64_t ih = (oh0 + r) * sh + a - j->p.padding[0];
            if (ih >= 0 && ih < j->H) tt__bands_fill_row(b, x + ih * j->W, first, r);
            else for (c = 0; c < sw; c++) memset(first + c * b->phase + r * b->wq, 0, sizeof(float) * (size_t)b->wq);
        }
    }
}

/* Depthwise convolution (one input channel per group) by bands: a unit is a plane (image,
   output channel). A tap over the padding adds w * 0, which leaves a sum that starts at +0
   as it was: the same bits as tt__depthwise_plane, which skips those taps (but for an
   infinite or NaN weight, which gives NaN there, as the GEMM path's zero columns do). */
#define TT__DW_BAND_FLOATS 2048        /* a band's outputs: 8 KB, in L1 with its phases */

#define TT__DW_BLOCK 64                /* band positions a task's taps loop covers at once */

/* d = 0 + w * r: the first tap (the same bits as zeroing d and adding). */
TT__INLINE void tt__tap_set(float *TT__RESTRICT d, const float *TT__RESTRICT r, int64_t n, float w) {
    TT__EACH(n, d[i] = 0.0f + w * r[i]);
}

#if TT__SIMD_AVX512
/* y = the band's taps, 64 positions at a time in 4 zmm registers through all the taps, where
   the plain loop stores and reloads the band once per tap. The same expressions in the same
   order: 0 + w0 * q0, then + wk * qk, a product then a sum, as the C twin computes them. GCC
   treats these intrinsics as vector arithmetic and contracts them into FMAs exactly when it
   contracts the C (GNU modes): the same bits as the pass per tap in every GCC build. clang
   fuses the C's a*b+c (its default -ffp-contract=on) but not two intrinsics, so with clang
   these round twice where the pass per tap rounds once (within float rounding; eager and
   compiled graphs still run this same kernel). */
#define TT__DWT_STEP(a, off) a = _mm512_add_ps(a, _mm512_mul_ps(wk, _mm512_loadu_ps(q + off)))
TT__TARGET_AVX512 static void tt__dw_taps_avx512(float *y, const float *phases, const int64_t *tap, const float *w,
                                                 int64_t taps, int64_t len) {
    int64_t i0, k;
    for (i0 = 0; i0 < len; i0 += TT__DW_BLOCK) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (k = 0; k < taps; k++) {
            const float *q = phases + tap[k] + i0;
            __m512 wk = _mm512_set1_ps(w[k]);
            TT__DWT_STEP(a0, 0); TT__DWT_STEP(a1, 16); TT__DWT_STEP(a2, 32); TT__DWT_STEP(a3, 48);
        }
        _mm512_storeu_ps(y + i0, a0); _mm512_storeu_ps(y + i0 + 16, a1);
        _mm512_storeu_ps(y + i0 + 32, a2); _mm512_storeu_ps(y + i0 + 48, a3);
    }
}
#undef TT__DWT_STEP
#endif

/* d = s (+ bias) (then ReLU): one output row of a band, with the expressions of the GEMM's
   epilogue. Restrict parameters, not restrict locals: GCC vectorizes a loop on the former only. */
TT__INLINE void tt__band_row_out(float *TT__RESTRICT d, const float *TT__RESTRICT s, int64_t n, const float *bias, bool relu,
                                 tt__clamp clamp) {
    float b = bias ? *bias : 0.0f;
    if (bias && clamp.on) {                            /* MobileNetV2's ReLU6: one pass */
        TT__EACH(n, d[i] = tt__clampf(s[i] + b, clamp.lo, clamp.hi));
        return;
    }
    if (bias) TT__EACH(n, d[i] = s[i] + b);
    else      TT__EACH(n, d[i] = s[i]);
    if (relu) tt__relu_run(d, n);
    tt__clamp_run(d, n, clamp);
}

/* Planes [t*per_task, (t+1)*per_task), band by band: phases, taps in (kh, kw) order, then
   the band's rows into the output with the bias (and a graph's ReLU). */
TT__INLINE void tt__depthwise_bands_task_body(void *arg, int64_t t, int thread) {
    const tt__bands *b = (const tt__bands *)arg;
    const tt__conv_job *j = b->conv;
    float *scratch = b->scratch + thread * b->per_thread, *y = scratch + b->zeroed;
    int64_t plane, p1 = tt__min64(b->n, (t + 1) * b->per_task), taps = j->KH * j->KW, OW = j->OW;
    memset(scratch, 0, sizeof(float) * (size_t)b->zeroed);      /* the padding columns, once */
    for (plane = t * b->per_task; plane < p1; plane++) {
        int64_t o = plane % j->O, oh0, k, r;
        const float *x = j->x + (plane / j->O * j->C + o / j->Og) * j->H * j->W, *wk = j->w + o * taps;
        float *dst = j->y + plane * j->OH * OW;
        for (oh0 = 0; oh0 < j->OH; oh0 += b->rows) {
            int64_t rows = tt__min64(b->rows, j->OH - oh0), len = ((rows - 1) * b->wq + OW + TT__DW_BLOCK - 1) / TT__DW_BLOCK * TT__DW_BLOCK;
            tt__bands_fill(b, x, oh0, scratch);
            if (j->kt->dw_taps) {
                j->kt->dw_taps(y, scratch, b->tap, wk, taps, len);
            } else {
                tt__tap_set(y, scratch + b->tap[0], len, wk[0]);
                for (k = 1; k < taps; k++) tt__tap_mul_add(y, scratch + b->tap[k], 1, len, wk[k]);
            }
            for (r = 0; r < rows; r++) tt__band_row_out(dst + (oh0 + r) * OW, y + r * b->wq, OW, j->b ? j->b + o : NULL, j->relu, j->clamp);
        }
    }
}
TT__TWINS(, tt__depthwise_bands_task, (void *arg, int64_t t, int thread), (arg, t, thread))

/* The depthwise convolution j by bands; false (nothing written) where the bands' scratch
   is not to be had or would be huge, and tt__depthwise_plane does it instead. */
static bool tt__depthwise_by_bands(tt_ctx *ctx, const char *name, const tt__conv_job *j, int64_t N) {
    tt__bands b;
    tt_scope scope;
    int64_t wq = tt__bands_wq(j), rows = tt__max64(1, tt__min64(j->OH, TT__DW_BAND_FLOATS / wq));
    if (!tt__bands_plan(&b, j, rows, 1, (rows * wq + TT__DW_BLOCK - 1) / TT__DW_BLOCK * TT__DW_BLOCK))   /* then the band's outputs */
        return false;
    b.n = N * j->O;
    b.per_task = tt__max64(1, TT__TASK_ELEMS / tt__max64(1, j->OH * j->OW * j->KH * j->KW));
    if (!tt__bands_alloc(ctx, name, &b, &scope)) return false;
    tt__parallel_for(ctx, j->kt->depthwise_bands_task, &b, (b.n + b.per_task - 1) / b.per_task);
    tt_scope_end(ctx, scope);
    return true;
}

/* Channels-last (NHWC) convolutions. A graph's layout pass (>>exec) may keep a value in
   channels-last order: still a [N, C, H, W] tensor, with strides [H*W*C, 1, W*C, C]. Where a
   convolution reads and writes such values, the kernels below run on them with vectors over
   the channels: depthwise with no bands and no copies, pointwise as one GEMM over every pixel.
   Each gives the bits of eager's channels-first kernel (same sums in the same order). */

/* A depthwise kernel's taps: up to 8x8. A row's pixels go to the kernels in runs whose tap
   pointers fill TT__DW_NHWC_PTRS (2 KB of stack). */
#define TT__DW_NHWC_MAX_TAPS 64
#define TT__DW_NHWC_PTRS     256

/* One output pixel of a channels-last depthwise convolution, all C channels: y = 0 + w[0] *
   x[0], then + w[k] * x[k] for the taps in (kh, kw) order (w as [taps][C]; x[k]: the tap's
   input pixel, or zeros over the padding), then the epilogue (bias per channel, ReLU or
   clamp). The expressions of the bands' tt__tap_set and tt__tap_mul_add, so each output has
   the bits of tt__depthwise_by_bands on every ISA whose table runs these twins. */
TT__INLINE void tt__dw_nhwc_pixel(float *TT__RESTRICT y, const float *const *x, const float *TT__RESTRICT w,
                                  int64_t taps, int64_t C, const struct tt__epilogue *e) {
    const float *TT__RESTRICT x0 = x[0];
    int64_t k;
    TT__EACH(C, y[i] = 0.0f + w[i] * x0[i]);
    for (k = 1; k < taps; k++) {
        const float *TT__RESTRICT xk = x[k], *TT__RESTRICT wk = w + k * C;
        TT__EACH(C, y[i] += wk[i] * xk[i]);
    }
    if (e) tt__epilogue_row(e, y, 0, 0, C);
}

/* n pixels in a row (y: n * C floats; x: taps pointers per pixel). */
TT__INLINE void tt__dw_nhwc_pixels_body(float *y, const float *const *x, int64_t n, const float *w, int64_t taps, int64_t C,
                                        const struct tt__epilogue *e) {
    int64_t p;
    for (p = 0; p < n; p++) tt__dw_nhwc_pixel(y + p * C, x + p * taps, w, taps, C, e);
}
#define TT__DW_NHWC_PARAMS \
    (float *y, const float *const *x, int64_t n, const float *w, int64_t taps, int64_t C, const struct tt__epilogue *e)
TT__VECTORIZE static void tt__dw_nhwc_pixels_ref TT__DW_NHWC_PARAMS { tt__dw_nhwc_pixels_body(y, x, n, w, taps, C, e); }
TT__IF_AVX2(TT__VECTORIZE TT__TARGET_AVX2 static void tt__dw_nhwc_pixels_avx2 TT__DW_NHWC_PARAMS {
    tt__dw_nhwc_pixels_body(y, x, n, w, taps, C, e);
})

#if TT__SIMD_AVX512
/* The AVX-512 table's own (not the C twin), with tt__dw_taps_avx512's intrinsics (a product,
   then a sum), so that it rounds as that kernel does with every compiler (GCC contracts both
   into FMAs in GNU modes, clang neither). The channels go 16 at a time (the last ones masked).
   3x3 kernels: the 9 weights of 16 channels stay in registers while the run's pixels go by,
   two at a time, so each product loads only its input (the loads were the limit). Others: a
   pixel at a time, all its taps. */
#define TT__DWN_MASK(c0) (C - (c0) >= 16 ? (__mmask16)0xFFFFu : (__mmask16)((1u << (unsigned)(C - (c0))) - 1u))
#define TT__DWN_LOAD(p, c0) _mm512_maskz_loadu_ps(m, (p) + (c0))
#define TT__DWN_TAP(k) \
    a = _mm512_add_ps(a, _mm512_mul_ps(w##k, TT__DWN_LOAD(xa[k], c0))); \
    b = _mm512_add_ps(b, _mm512_mul_ps(w##k, TT__DWN_LOAD(xb[k], c0)))
TT__TARGET_AVX512 static void tt__dw_nhwc_3x3_avx512(float *y, const float *const *x, int64_t n, const float *w, int64_t C) {
    int64_t c0, p;
    for (c0 = 0; c0 < C; c0 += 16) {
        __mmask16 m = TT__DWN_MASK(c0);
        __m512 w0 = TT__DWN_LOAD(w, c0), w1 = TT__DWN_LOAD(w + C, c0), w2 = TT__DWN_LOAD(w + 2 * C, c0);
        __m512 w3 = TT__DWN_LOAD(w + 3 * C, c0), w4 = TT__DWN_LOAD(w + 4 * C, c0), w5 = TT__DWN_LOAD(w + 5 * C, c0);
        __m512 w6 = TT__DWN_LOAD(w + 6 * C, c0), w7 = TT__DWN_LOAD(w + 7 * C, c0), w8 = TT__DWN_LOAD(w + 8 * C, c0);
        for (p = 0; p < n; p += 2) {                   /* an odd run's last pixel: computed twice */
            const float *const *xa = x + p * 9, *const *xb = x + tt__min64(p + 1, n - 1) * 9;
            __m512 a = _mm512_setzero_ps(), b = a;
            TT__DWN_TAP(0); TT__DWN_TAP(1); TT__DWN_TAP(2); TT__DWN_TAP(3); TT__DWN_TAP(4);
            TT__DWN_TAP(5); TT__DWN_TAP(6); TT__DWN_TAP(7); TT__DWN_TAP(8);
            _mm512_mask_storeu_ps(y + p * C + c0, m, a);
            if (p + 1 < n) _mm512_mask_storeu_ps(y + (p + 1) * C + c0, m, b);
        }
    }
}
#undef TT__DWN_TAP

TT__TARGET_AVX512 static void tt__dw_nhwc_sums_avx512(float *y, const float *const *x, const float *w, int64_t taps,
                                                      int64_t C) {
    int64_t c0, k;
    for (c0 = 0; c0 < C; c0 += 16) {
        __mmask16 m = TT__DWN_MASK(c0);
        __m512 a = _mm512_setzero_ps();
        for (k = 0; k < taps; k++) a = _mm512_add_ps(a, _mm512_mul_ps(TT__DWN_LOAD(w + k * C, c0), TT__DWN_LOAD(x[k], c0)));
        _mm512_mask_storeu_ps(y + c0, m, a);
    }
}

TT__TARGET_AVX512 static void tt__dw_nhwc_pixels_avx512(float *y, const float *const *x, int64_t n, const float *w,
                                                        int64_t taps, int64_t C, const struct tt__epilogue *e) {
    int64_t p;
    if (taps == 9) tt__dw_nhwc_3x3_avx512(y, x, n, w, C);
    else for (p = 0; p < n; p++) tt__dw_nhwc_sums_avx512(y + p * C, x + p * taps, w, taps, C);
    for (p = 0; p < n && e; p++) tt__epilogue_row(e, y + p * C, 0, 0, C);
}
#undef TT__DWN_MASK
#undef TT__DWN_LOAD
#endif

/* A channels-last depthwise convolution: its weights as [taps][C], C zeros for the taps over
   the padding. A unit is an output row (image, oh), in runs of pixels. */
typedef struct tt__dw_nhwc_job {
    const tt__conv_job *conv;
    const float        *wt, *zeros;
    tt__epilogue        ep;
} tt__dw_nhwc_job;

static void tt__dw_nhwc_row(const void *arg, int64_t row) {
    const tt__dw_nhwc_job *d = (const tt__dw_nhwc_job *)arg;
    const tt__conv_job *j = d->conv;
    const float *x[TT__DW_NHWC_PTRS], *rows[TT__DW_NHWC_MAX_TAPS];
    const tt__epilogue *ep = tt__epilogue_or_null(&d->ep);
    int64_t img = row / j->OH, oh = row % j->OH, C = j->C, taps = j->KH * j->KW, run = TT__DW_NHWC_PTRS / taps;
    int64_t ow0, ow, kh, kw;
    float *y = j->y + row * j->OW * C;
    for (kh = 0; kh < j->KH; kh++) {                   /* the input rows of the taps (NULL: padding) */
        int64_t ih = oh * j->p.stride[0] - j->p.padding[0] + kh * j->p.dilation[0];
        rows[kh] = ih >= 0 && ih < j->H ? j->x + (img * j->H + ih) * j->W * C : NULL;
    }
    for (ow0 = 0; ow0 < j->OW; ow0 += run) {
        int64_t n = tt__min64(run, j->OW - ow0), k = 0;
        const float *last = rows[j->KH - 1];
        if (last) {                                    /* the input row this output row is the first to read */
            int64_t a = tt__max64(0, ow0 * j->p.stride[1] - j->p.padding[1]) * C;
            int64_t b = tt__min64(j->W, (ow0 + n - 1) * j->p.stride[1] - j->p.padding[1] + (j->KW - 1) * j->p.dilation[1] + 1) * C;
            for (; a < b; a += 16) TT__PREFETCH(last + a);
        }
        for (ow = ow0; ow < ow0 + n; ow++)
            for (kh = 0; kh < j->KH; kh++)
                for (kw = 0; kw < j->KW; kw++) {
                    int64_t iw = ow * j->p.stride[1] - j->p.padding[1] + kw * j->p.dilation[1];
                    x[k++] = rows[kh] && iw >= 0 && iw < j->W ? rows[kh] + iw * C : d->zeros;
                }
        j->kt->dw_nhwc_pixels(y + ow0 * C, x, n, d->wt, taps, C, ep);
    }
}

/* Does the channels-last depthwise kernel take convolution j: one input and one output
   channel per group, at most TT__DW_NHWC_MAX_TAPS taps? */
static bool tt__dw_nhwc_applies(const tt__conv_job *j) {
    return j->p.groups > 1 && j->C == j->p.groups && j->O == j->C && j->KH * j->KW <= TT__DW_NHWC_MAX_TAPS;
}

/* The depthwise convolution j on channels-last input into channels-last j->y; false (nothing
   written) when its scratch is not to be had. */
static bool tt__depthwise_nhwc(tt_ctx *ctx, const char *name, const tt__conv_job *j, int64_t N) {
    int64_t taps = j->KH * j->KW, C = j->C, c, k;
    tt_status before = ctx->err.status;
    tt_scope s = tt_scope_begin(ctx);
    float *wt = (float *)tt__alloc(ctx, name, sizeof(float) * (size_t)((taps + 1) * C));
    tt__dw_nhwc_job d;
    if (!wt) {
        tt_scope_end(ctx, s);
        if (before == TT_OK) tt_clear_error(ctx);
        return false;
    }
    for (c = 0; c < C; c++)
        for (k = 0; k < taps; k++) wt[k * C + c] = j->w[c * taps + k];
    memset(wt + taps * C, 0, sizeof(float) * (size_t)C);
    d.conv = j;
    d.wt = wt;
    d.zeros = wt + taps * C;
    d.ep.bias = j->b;
    d.ep.bias_kind = j->b ? TT__BIAS_COLS : TT__BIAS_NONE;
    d.ep.relu = j->relu;
    d.ep.clamp = j->clamp;
    tt__for_planes(ctx, tt__dw_nhwc_row, &d, N * j->OH, j->OW * taps * C);
    tt_scope_end(ctx, s);
    return true;
}

/* Direct convolution (groups 1, output channels a multiple of 8) by bands: the table's
   conv_tile kernel sums 8 output channels x 48 positions of a band over every input channel
   and tap (k = c * taps + tap, the column matrix's order), in the GEMM's k blocks, each as
   the SGEMM's micro-kernel of that ISA sums one, so the outputs have the same bits as
   im2col + GEMM without the 9x larger column matrix being written and packed. A unit is
   (image, band, group of 8-channel blocks); each task fills its band's phases once. */
#define TT__DCONV_PHASE_FLOATS 32768   /* a band's phases, all input channels: 128 KB, in L2 */
#define TT__DCONV_TASK_MACS    ((int64_t)1 << 21)

typedef struct tt__dconv_job {
    tt__bands b;
    int64_t   bands, blocks, per_group, groups;   /* bands per image; 8-channel blocks; blocks per unit; units per band */
    int64_t   kc;                                 /* the SGEMM's k block */
    int64_t   ldt;                                /* a band's positions rounded up to whole tiles */
    tt__epilogue ep;                              /* the bias and a graph's ReLU */
} tt__dconv_job;

/* The band's sums of 8 output channels from o0 (rows ldt apart, positions [0, len)) into
   the output rows of the band from oh0: the GEMM's epilogue (bias, ReLU) on the whole
   [8, len] block (the extra columns too: long vector loops), then each output row copied. */
static void tt__dconv_out(const tt__dconv_job *d, float *sums, int64_t len, int64_t img, int64_t o0, int64_t oh0) {
    const tt__conv_job *j = d->b.conv;
    int64_t rows = (len - j->OW) / d->b.wq + 1, o, r;
    j->kt->epilogue_block(&d->ep, sums, d->ldt, o0, 0, 8, len);
    for (o = 0; o < 8; o++) {
        float *y = j->y + ((img * j->O + o0 + o) * j->OH + oh0) * j->OW;
        for (r = 0; r < rows; r++) j->kt->copy_run(y + r * j->OW, sums + o * d->ldt + r * d->b.wq, 1, j->OW);
    }
}

/* The plain-C twin of the conv tile: its sums continue from the tile, as tt__ukernel_ref's
   continue from C. */
static void tt__conv_tile_ref(const tt__conv_tile_args *a) {
    float acc[8 * 48];
    int64_t k, o, l;
    for (l = 0; l < 8 * 48; l++) acc[l] = a->first ? 0.0f : a->tile[l / 48 * a->ldt + l % 48];
    for (k = a->k0; k < a->k1; k++) {
        const float *x = a->x + k / a->taps * a->chan + a->tap[k % a->taps];
        for (o = 0; o < 8; o++) {
            float w = a->w[o * a->wstride + k];
            for (l = 0; l < 48; l++) acc[o * 48 + l] += w * x[l];
        }
    }
    for (o = 0; o < 8; o++) memcpy(a->tile + o * a->ldt, acc + o * 48, sizeof(float) * 48);
}

#if TT__SIMD_AVX512
/* 8 output channels x 3 vectors of 16 positions = 24 zmm accumulators, as the SGEMM's
   micro-kernel: per k, 3 loads of the band, 8 broadcast weights, 24 FMAs; a k block summed
   from 0 and then added to the tile, as the micro-kernel adds one to C. */
#define TT__CT_ROW(i)                                                                   \
    a = _mm512_set1_ps(w[i * ws]);                                                      \
    c##i##0 = _mm512_fmadd_ps(a, x0, c##i##0); c##i##1 = _mm512_fmadd_ps(a, x1, c##i##1); \
    c##i##2 = _mm512_fmadd_ps(a, x2, c##i##2)
#define TT__CT_STORE(i)                                                                 \
    if (!p->first) {                                                                    \
        c##i##0 = _mm512_add_ps(_mm512_loadu_ps(T + i * ldt), c##i##0);                 \
        c##i##1 = _mm512_add_ps(_mm512_loadu_ps(T + i * ldt + 16), c##i##1);            \
        c##i##2 = _mm512_add_ps(_mm512_loadu_ps(T + i * ldt + 32), c##i##2);            \
    }                                                                                   \
    _mm512_storeu_ps(T + i * ldt, c##i##0); _mm512_storeu_ps(T + i * ldt + 16, c##i##1); \
    _mm512_storeu_ps(T + i * ldt + 32, c##i##2)

TT__TARGET_AVX512 static void tt__conv_tile_avx512(const tt__conv_tile_args *p) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
    __m512 c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
    __m512 c40 = c00, c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00;
    __m512 c60 = c00, c61 = c00, c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    const int64_t ws = p->wstride, ldt = p->ldt;
    int64_t k = p->k0;
    float *T = p->tile;
    while (k < p->k1) {                                /* one input channel's taps at a time */
        int64_t tap = k % p->taps, end = tt__min64(p->k1, k - tap + p->taps);
        const float *xc = p->x + k / p->taps * p->chan;
        for (; k < end; k++, tap++) {
            const float *xp = xc + p->tap[tap], *w = p->w + k;
            __m512 x0 = _mm512_loadu_ps(xp), x1 = _mm512_loadu_ps(xp + 16), x2 = _mm512_loadu_ps(xp + 32), a;
            TT__CT_ROW(0); TT__CT_ROW(1); TT__CT_ROW(2); TT__CT_ROW(3);
            TT__CT_ROW(4); TT__CT_ROW(5); TT__CT_ROW(6); TT__CT_ROW(7);
        }
    }
    TT__CT_STORE(0); TT__CT_STORE(1); TT__CT_STORE(2); TT__CT_STORE(3);
    TT__CT_STORE(4); TT__CT_STORE(5); TT__CT_STORE(6); TT__CT_STORE(7);
}
#undef TT__CT_ROW
#undef TT__CT_STORE
#endif

#if TT__SIMD_AVX2
/* The AVX2 conv tile: 16 ymm registers hold 4 output channels x 16 positions (8
   accumulators) at a time, so the 8x48 tile is 6 passes over the k block, each summed from 0
   and added to the tile, as the AVX2 micro-kernel adds a k block to C. */
#define TT__CT2_ROW(i)                                                                  \
    a = _mm256_broadcast_ss(w + i * ws);                                                \
    c##i##0 = _mm256_fmadd_ps(a, x0, c##i##0); c##i##1 = _mm256_fmadd_ps(a, x1, c##i##1)
#define TT__CT2_STORE(i)                                                                \
    if (!p->first) {                                                                    \
        c##i##0 = _mm256_add_ps(_mm256_loadu_ps(T + i * ldt), c##i##0);                 \
        c##i##1 = _mm256_add_ps(_mm256_loadu_ps(T + i * ldt + 8), c##i##1);             \
    }                                                                                   \
    _mm256_storeu_ps(T + i * ldt, c##i##0); _mm256_storeu_ps(T + i * ldt + 8, c##i##1)

/* Output channels [o0, o0 + 4) x positions [l0, l0 + 16) of the tile. */
TT__TARGET_AVX2 static void tt__conv_tile_part_avx2(const tt__conv_tile_args *p, int64_t o0, int64_t l0) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const int64_t ws = p->wstride, ldt = p->ldt;
    int64_t k = p->k0;
    float *T = p->tile + o0 * ldt + l0;
    while (k < p->k1) {                                /* one input channel's taps at a time */
        int64_t tap = k % p->taps, end = tt__min64(p->k1, k - tap + p->taps);
        const float *xc = p->x + k / p->taps * p->chan + l0;
        for (; k < end; k++, tap++) {
            const float *xp = xc + p->tap[tap], *w = p->w + o0 * ws + k;
            __m256 x0 = _mm256_loadu_ps(xp), x1 = _mm256_loadu_ps(xp + 8), a;
            TT__CT2_ROW(0); TT__CT2_ROW(1); TT__CT2_ROW(2); TT__CT2_ROW(3);
        }
    }
    TT__CT2_STORE(0); TT__CT2_STORE(1); TT__CT2_STORE(2); TT__CT2_STORE(3);
}
#undef TT__CT2_ROW
#undef TT__CT2_STORE

TT__TARGET_AVX2 static void tt__conv_tile_avx2(const tt__conv_tile_args *p) {
    int64_t o0, l0;
    for (o0 = 0; o0 < 8; o0 += 4)
        for (l0 = 0; l0 < 48; l0 += 16) tt__conv_tile_part_avx2(p, o0, l0);
}
#endif

static void tt__dconv_task(void *arg, int64_t t, int thread) {
    const tt__dconv_job *d = (const tt__dconv_job *)arg;
    const tt__bands *b = &d->b;
    const tt__conv_job *j = b->conv;
    float *scratch = b->scratch + thread * b->per_thread, *sums = scratch + b->zeroed;
    int64_t group = t % d->groups, band = t / d->groups % d->bands, img = t / d->groups / d->bands;
    int64_t oh0 = band * b->rows, rows = tt__min64(b->rows, j->OH - oh0), len = (rows - 1) * b->wq + j->OW;
    int64_t taps = j->KH * j->KW, K = j->C * taps, blk, c, t0, p0;
    tt__conv_tile_args a;
    memset(scratch, 0, sizeof(float) * (size_t)b->zeroed);
    for (c = 0; c < j->C; c++) tt__bands_fill(b, j->x + (img * j->C + c) * j->H * j->W, oh0, scratch + c * b->chan);
    a.tap = b->tap; a.ldt = d->ldt; a.chan = b->chan; a.wstride = K; a.taps = taps;
    for (blk = group * d->per_group; blk < tt__min64(d->blocks, (group + 1) * d->per_group); blk++) {
        a.w = j->w + blk * 8 * K;
        for (t0 = 0; t0 < len; t0 += 48) {
            a.x = scratch + t0;
            a.tile = sums + t0;
            for (p0 = 0; p0 < K; p0 += d->kc) {
                a.k0 = p0;
                a.k1 = tt__min64(K, p0 + d->kc);
                a.first = p0 == 0;
                j->kt->conv_tile(&a);
            }
        }
        tt__dconv_out(d, sums, len, img, blk * 8, oh0);
    }
}

/* The convolution j (groups 1) directly by bands; false (nothing written) where the ISA has
   no conv_tile kernel, the output channels are not a multiple of 8, the GEMM would not take
   its packed path (whose sums these are) or the scratch is not to be had, and where the
   GEMM is faster: with more than TT__DCONV_MAX_C input channels (measured, AVX-512 EPYC,
   one thread: direct is 0-30% faster with 3 or 32 input channels, where im2col copies many
   short runs per column; from 64 on, the GEMM's packed slivers, read from L1, win by 1.1-2.1x
   while a tile reads its band's phases from L2). */
#define TT__DCONV_MAX_C 32
static bool tt__conv_direct_applies(const tt__conv_job *j) {
    int64_t K = j->C * j->KH * j->KW;
    return j->kt->conv_tile && j->C <= TT__DCONV_MAX_C && j->O % 8 == 0 && tt__gemm_is_packed(j->kt, j->O, j->OH * j->OW, K);
}
static bool tt__conv_direct(tt_ctx *ctx, const char *name, const tt__conv_job *j, int64_t N) {
    tt__dconv_job d;
    tt_scope scope;
    int64_t K = j->C * j->KH * j->KW, wq = tt__bands_wq(j), halo = (j->KH - 1) * j->p.dilation[0] / j->p.stride[0];
    int64_t rows = TT__DCONV_PHASE_FLOATS / tt__max64(1, j->C * j->p.stride[0] * j->p.stride[1] * wq) - halo;
    if (!tt__conv_direct_applies(j)) return false;
    rows = tt__min64(j->OH, tt__max64(rows, (48 + wq - 1) / wq));
    d.ldt = (rows * wq + 47) / 48 * 48;
    if (!tt__bands_plan(&d.b, j, rows, j->C, 8 * d.ldt)) return false;   /* then the band's sums */
    d.bands = (j->OH + d.b.rows - 1) / d.b.rows;
    d.blocks = j->O / 8;
    d.per_group = tt__max64(1, tt__min64(d.blocks, TT__DCONV_TASK_MACS / tt__max64(1, 8 * K * d.b.rows * wq)));
    d.groups = (d.blocks + d.per_group - 1) / d.per_group;
    d.kc = tt__gemm_blocking(j->kt).kc;
    d.ep.bias = j->b;
    d.ep.bias_kind = j->b ? TT__BIAS_ROWS : TT__BIAS_NONE;
    d.ep.relu = j->relu;
    d.ep.clamp = j->clamp;
    if (!tt__bands_alloc(ctx, name, &d.b, &scope)) return false;
    tt__parallel_for(ctx, tt__dconv_task, &d, N * d.bands * d.groups);
    tt_scope_end(ctx, scope);
    return true;
}

/* ---- Winograd F(2x2, 3x3) and F(4x4, 3x3): 3x3 convolutions of stride 1 in TT_MODE_MAX_AUTOTUNE ----
   Each m x m block of outputs (a tile) reads an a x a block d of the padded input, a = m + 2.
   With V = B^T d B per input channel and U = G g G^T per 3x3 kernel g, the tile is A^T M A
   where M = sum over input channels of U * V (elementwise): the a*a entries of M for every
   tile are a*a GEMMs [O, C] x [C, tiles]. Per output that is a*a / (m*m) multiplies where
   direct sums take 9: 4 for F(2x2), 2.25 for F(4x4) (whose transforms cost more). The
   matrices (Lavin and Gray, 2015) are the tables below; each transform applies them row by
   row, a row's terms in order and its zero entries skipped. The transforms round differently
   from direct sums, F(4x4)'s more (its entries reach 8, and 1/6 is no float): the results are
   within a bound of the exact convolution that tests/test_conv.c works out, not eager's bits,
   so only graphs compiled in TT_MODE_MAX_AUTOTUNE take them, for the convolutions their
   compile chose (tt__conv_algos_plan). Tiles are numbered along tile rows, the rows of every
   image in turn; a chunk of tile rows at a time keeps V and M within TT__WINO_CHUNK_FLOATS. */
#define TT__WINO_CHUNK_FLOATS ((int64_t)1 << 21)   /* V and M of a chunk: 8 MB */
#define TT__WINO_MIN_MACS     ((int64_t)1 << 24)   /* smaller convolutions keep direct sums */
#define TT__WINO_STRIP        64                    /* tiles a transform step takes: its rows stay in L1 */
#define TT__WINO_MAX_A        6                     /* inputs per tile edge of the largest kind */

typedef struct tt__wino_kind {
    int          m, a;                 /* outputs per tile edge; inputs per tile edge (m + 2) */
    const float *bt, *g, *at;          /* B^T [a][a], G [a][3], A^T [m][a], by rows */
} tt__wino_kind;

static const float tt__wino2_bt[16] = { 1, 0, -1, 0,   0, 1, 1, 0,   0, -1, 1, 0,   0, 1, 0, -1 };
static const float tt__wino2_g[12] = { 1, 0, 0,   0.5f, 0.5f, 0.5f,   0.5f, -0.5f, 0.5f,   0, 0, 1 };
static const float tt__wino2_at[8] = { 1, 1, 1, 0,   0, 1, -1, -1 };
static const float tt__wino4_bt[36] = { 4, 0, -5, 0, 1, 0,    0, -4, -4, 1, 1, 0,   0, 4, -4, -1, 1, 0,
                                        0, -2, -1, 2, 1, 0,   0, 2, -1, -2, 1, 0,   0, 4, 0, -5, 0, 1 };
static const float tt__wino4_g[18] = { 1.0f / 4, 0, 0,   -1.0f / 6, -1.0f / 6, -1.0f / 6,   -1.0f / 6, 1.0f / 6, -1.0f / 6,
                                       1.0f / 24, 1.0f / 12, 1.0f / 6,   1.0f / 24, -1.0f / 12, 1.0f / 6,   0, 0, 1 };
static const float tt__wino4_at[24] = { 1, 1, 1, 1, 1, 0,   0, 1, -1, 2, -2, 0,   0, 1, 1, 4, 4, 0,   0, 1, -1, 8, -8, 1 };

static const tt__wino_kind tt__wino_kinds[2] = {
    { 2, 4, tt__wino2_bt, tt__wino2_g, tt__wino2_at },
    { 4, 6, tt__wino4_bt, tt__wino4_g, tt__wino4_at },
};

/* The kind of output tile edge m (2 or 4). */
static const tt__wino_kind *tt__wino_kind_of(int64_t m) { return &tt__wino_kinds[m == 4]; }

typedef struct tt__wino_job {
    const tt__conv_job  *conv;
    const tt__wino_kind *k;
    tt__conv_job  tiles;               /* the convolution as an a x a window of stride m over tiles */
    tt__bands     b;                   /* tile rows of one image channel: the phases of `tiles` */
    float        *U, *V, *M;           /* [a*a][O][C]; [a*a][C][P]; [a*a][O][P]: P tiles of the chunk */
    int64_t       row0, rows, P;       /* the chunk: tile rows [row0, row0 + rows), P = rows * wq */
    int64_t       vstride, mstride;    /* from one of the a*a matrices of V, of M, to the next: C*P, O*P
                                          and 16 floats more, so that they are not a multiple of 4 KB
                                          apart (the same L1 set: each read would evict another) */
} tt__wino_job;

/* y = sum over k < n of row[k] * p[k], along `len` tiles: one row of a transform matrix
   applied to n vectors, its terms in order (the first a product, each next one added). */
static void tt__wino_apply(float *TT__RESTRICT y, const float *row, const float *const *p, int n, int64_t len) {
    bool first = true;
    int k;
    for (k = 0; k < n; k++) {
        const float c = row[k], *TT__RESTRICT q = p[k];
        if (c == 0.0f) continue;
        if (first) TT__EACH(len, y[i] = c * q[i]);
        else TT__EACH(len, y[i] = y[i] + c * q[i]);
        first = false;
    }
}

/* The same for one value: sum over k < n of row[k] * v[k * step]. */
static float tt__wino_dot(const float *row, const float *v, int step, int n) {
    bool first = true;
    float y = 0.0f;
    int k;
    for (k = 0; k < n; k++) {
        if (row[k] == 0.0f) continue;
        y = first ? row[k] * v[k * step] : y + row[k] * v[k * step];
        first = false;
    }
    return y;
}

/* U = G g G^T for every input channel of output channel o of the weights wt [O, C, 3, 3]:
   matrix e = i*a + j of U is [O, C]. */
static void tt__wino_weights(const tt__wino_kind *k, const float *wt, int64_t O, int64_t C, float *U, int64_t o) {
    int64_t c, OC = O * C;
    int i, j, s;
    for (c = 0; c < C; c++) {
        const float *g = wt + (o * C + c) * 9;
        float t[TT__WINO_MAX_A][3];
        for (i = 0; i < k->a; i++)                     /* G g: rows of G combine rows of g */
            for (s = 0; s < 3; s++) t[i][s] = tt__wino_dot(k->g + 3 * i, g + s, 3, 3);
        for (i = 0; i < k->a; i++)                     /* (G g) G^T */
            for (j = 0; j < k->a; j++) U[(i * k->a + j) * OC + o * C + c] = tt__wino_dot(k->g + 3 * j, t[i], 1, 3);
    }
}

static void tt__wino_weights_plane(const void *arg, int64_t o) {
    const tt__wino_job *w = (const tt__wino_job *)arg;
    tt__wino_weights(w->k, w->conv->w, w->conv->O, w->conv->C, w->U, o);
}

/* Floats of a convolution's weights prepared ahead: U, then its a*a matrices each packed
   as the SGEMM's A. */
static size_t tt__wino_prepared_floats(const tt__kernels *kt, const tt__wino_kind *k, int64_t O, int64_t C) {
    return (size_t)(k->a * k->a) * ((size_t)(O * C) + tt__prepacked_a_floats(kt, O, C));
}

static void tt__wino_prepare(const tt__kernels *kt, const tt__wino_kind *k, const float *wt, int64_t O, int64_t C, float *dst) {
    size_t per_packed = tt__prepacked_a_floats(kt, O, C);
    float *packed = dst + k->a * k->a * O * C;
    int64_t o;
    int e;
    for (o = 0; o < O; o++) tt__wino_weights(k, wt, O, C, dst, o);
    for (e = 0; e < k->a * k->a; e++) tt__prepack_a(kt, packed + e * per_packed, dst + e * O * C, C, 1, O, C);
}

/* V = B^T d B, over `len` tiles from tile `at` of the chunk: d[r][s] points at entry (r, s)
   of the first one (one run of a phase: see tt__wino_input_task), t holds B^T d. */
static void tt__wino_input_strip(const tt__wino_job *w, const float *const *d, float *V, int64_t len,
                                 float (*t)[TT__WINO_STRIP]) {
    const tt__wino_kind *k = w->k;
    const float *p[TT__WINO_MAX_A];
    int i, j, r;
    for (i = 0; i < k->a; i++)                         /* B^T d: rows of B^T combine rows of d */
        for (j = 0; j < k->a; j++) {
            for (r = 0; r < k->a; r++) p[r] = d[r * k->a + j];
            tt__wino_apply(t[i * k->a + j], k->bt + i * k->a, p, k->a, len);
        }
    for (i = 0; i < k->a; i++)                         /* (B^T d) B: rows of B^T combine its columns */
        for (j = 0; j < k->a; j++) {
            for (r = 0; r < k->a; r++) p[r] = t[i * k->a + r];
            tt__wino_apply(V + (i * k->a + j) * w->vstride, k->bt + j * k->a, p, k->a, len);
        }
}

/* V for input channel t over the chunk's tiles, a band of tile rows at a time: d[r][s] of the
   tiles of the band is, for all of them at once, one run of a phase (tiles numbered wq = tw + 1
   to a row, the last a column of junk that no output reads), taken TT__WINO_STRIP at a time. */
static void tt__wino_input_task(void *arg, int64_t t, int thread) {
    const tt__wino_job *w = (const tt__wino_job *)arg;
    const tt__bands *b = &w->b;
    const tt__conv_job *j = w->conv;
    const int m = w->k->m, a = w->k->a;
    float *phases = b->scratch + thread * b->per_thread;
    float tmp[TT__WINO_MAX_A * TT__WINO_MAX_A][TT__WINO_STRIP];
    int64_t th = w->tiles.OH, r = w->row0, s0;
    memset(phases, 0, sizeof(float) * (size_t)b->zeroed);
    while (r < w->row0 + w->rows) {
        int64_t img = r / th, ty = r % th, n = tt__min64(b->rows, tt__min64(th - ty, w->row0 + w->rows - r));
        float *V = w->V + t * w->P + (r - w->row0) * b->wq;
        const float *d[TT__WINO_MAX_A * TT__WINO_MAX_A];
        int e;
        tt__bands_fill(b, j->x + (img * j->C + t) * j->H * j->W, ty, phases);
        for (s0 = 0; s0 < n * b->wq; s0 += TT__WINO_STRIP) {
            for (e = 0; e < a * a; e++)
                d[e] = phases + (e / a % m * m + e % a % m) * b->phase + e / a / m * b->wq + e % a / m + s0;
            tt__wino_input_strip(w, d, V + s0, tt__min64(TT__WINO_STRIP, n * b->wq - s0), tmp);
        }
        r += n;
    }
}

/* y = y + bias (then ReLU): the ops' expressions, along tiles. */
TT__INLINE void tt__wino_bias_relu(float *TT__RESTRICT y, const float *bias, bool relu, int64_t n) {
    float b = bias ? *bias : 0.0f;
    if (bias) TT__EACH(n, y[i] = y[i] + b);
    if (relu) TT__EACH(n, y[i] = tt__reluf(y[i]));
}

/* The m x m outputs y of `len` tiles from tile p0 of the chunk into output channel o, each
   clipped to the output (a row's junk tile skipped). */
static void tt__wino_scatter(const tt__wino_job *w, float (*y)[TT__WINO_STRIP], int64_t o, int64_t p0, int64_t len) {
    const tt__conv_job *j = w->conv;
    const int m = w->k->m;
    int64_t th = w->tiles.OH, wq = w->b.wq, q;
    for (q = 0; q < len; q++) {
        int64_t r = w->row0 + (p0 + q) / wq, tx = (p0 + q) % wq, oh0 = r % th * m, ow0 = tx * m;
        float *out = j->y + ((r / th * j->O + o) * j->OH + oh0) * j->OW + ow0;
        int dy, dx;
        if (tx == wq - 1) continue;                    /* the row's junk tile */
        for (dy = 0; dy < m && oh0 + dy < j->OH; dy++)
            for (dx = 0; dx < m && ow0 + dx < j->OW; dx++) out[dy * j->OW + dx] = y[dy * m + dx][q];
    }
}

/* Output channel o of the chunk's tiles: A^T M A, the bias and a graph's ReLU along
   TT__WINO_STRIP tiles at a time (a*a rows of M in, the m*m outputs of each tile out), then
   into the output. */
static void tt__wino_output_plane(const void *arg, int64_t o) {
    const tt__wino_job *w = (const tt__wino_job *)arg;
    const tt__conv_job *j = w->conv;
    const tt__wino_kind *k = w->k;
    float f[4 * TT__WINO_MAX_A][TT__WINO_STRIP], y[16][TT__WINO_STRIP];
    const float *p[TT__WINO_MAX_A];
    int64_t p0;
    int i, jj, r;
    for (p0 = 0; p0 < w->P; p0 += TT__WINO_STRIP) {
        int64_t len = tt__min64(TT__WINO_STRIP, w->P - p0);
        const float *M = w->M + o * w->P + p0;
        for (i = 0; i < k->m; i++)                     /* A^T M: rows of A^T combine rows of M */
            for (jj = 0; jj < k->a; jj++) {
                for (r = 0; r < k->a; r++) p[r] = M + (r * k->a + jj) * w->mstride;
                tt__wino_apply(f[i * k->a + jj], k->at + i * k->a, p, k->a, len);
            }
        for (i = 0; i < k->m; i++)                     /* (A^T M) A: rows of A^T combine its columns */
            for (jj = 0; jj < k->m; jj++) {
                for (r = 0; r < k->a; r++) p[r] = f[i * k->a + r];
                tt__wino_apply(y[i * k->m + jj], k->at + jj * k->a, p, k->a, len);
                tt__wino_bias_relu(y[i * k->m + jj], j->b ? j->b + o : NULL, j->relu, len);
            }
        tt__wino_scatter(w, y, o, p0, len);
    }
}

/* Can Winograd compute j at all: 3x3, stride 1, no dilation, groups 1. */
static bool tt__winograd_applies(const tt__conv_job *j) {
    return j->KH == 3 && j->KW == 3 && j->p.stride[0] == 1 && j->p.stride[1] == 1 && j->p.dilation[0] == 1 &&
           j->p.dilation[1] == 1 && j->p.groups == 1;
}

/* Is j large enough (with batch N) for TT_MODE_MAX_AUTOTUNE to time it: 16 or more channels
   each side and TT__WINO_MIN_MACS multiply-adds. Below that the gain is a few microseconds,
   less than a timing tells apart, and direct sums keep eager's bits. */
static bool tt__winograd_worth_timing(const tt__conv_job *j, int64_t N) {
    double macs = (double)N * (double)j->O * (double)j->C * 9.0 * (double)j->OH * (double)j->OW;
    return tt__winograd_applies(j) && j->C >= 16 && j->O >= 16 && macs >= (double)TT__WINO_MIN_MACS;
}

/* TT_CONV_RULE's choice, the same on every machine: F(2x2, 3x3) where j is worth timing, has
   rows of 6 tiles or more (11+ outputs) and 192 tiles or more in all. Measured (AVX-512 EPYC,
   one thread, effective GFLOP/s against direct sums): ResNet-18's 3x3s at batch 16 on 56x56
   to 14x14 94-128 against 71-74; on 7x7 (4 tiles a row, a quarter of them junk or clipped) 81
   against 84; AlexNet's at batch 1 on 13x13 (56 tiles: narrow GEMMs) 66-80 against 77-84. */
static bool tt__winograd_rule(const tt__conv_job *j, int64_t N) {
    int64_t tw = (j->OW + 1) / 2, tiles = N * ((j->OH + 1) / 2) * (tw + 1);
    return tt__winograd_worth_timing(j, N) && tw >= 6 && tiles >= 192;
}

/* The convolution j by Winograd with output tiles m x m (2 or 4), with its weights prepared
   ahead (U, from a frozen graph: tt__wino_prepare) or now (U NULL); false (nothing written, no
   error left) when its buffers are not to be had: the caller then sums directly. */
static bool tt__conv_winograd(tt_ctx *ctx, const char *name, const tt__conv_job *j, int64_t N, int64_t m, const float *U) {
    const tt__wino_kind *k = tt__wino_kind_of(m);
    const int64_t A = k->a * k->a;
    const float *packed = U ? U + A * j->O * j->C : NULL;
    size_t per_packed = tt__prepacked_a_floats(ctx->kern, j->O, j->C);
    tt__wino_job w;
    tt_scope scope, bands_scope;
    tt_status before = ctx->err.status;
    int64_t tw = (j->OW + m - 1) / m, th = (j->OH + m - 1) / m, R = N * th, wq = tw + 1, chunk, e;
    w.conv = j;
    w.k = k;
    w.tiles = *j;
    w.tiles.KH = w.tiles.KW = k->a;
    w.tiles.p.stride[0] = w.tiles.p.stride[1] = (int)m;
    w.tiles.OH = th;
    w.tiles.OW = tw;
    chunk = tt__max64(1, tt__min64(R, TT__WINO_CHUNK_FLOATS / (A * (j->C + j->O) * wq)));
    if (!tt__bands_plan(&w.b, &w.tiles, TT__DW_BAND_FLOATS / wq, 1, 0)) return false;
    scope = tt_scope_begin(ctx);
    w.U = U ? (float *)U : (float *)tt__alloc(ctx, name, sizeof(float) * (size_t)(A * j->O * j->C));
    w.V = w.U ? (float *)tt__alloc(ctx, name, sizeof(float) * (size_t)(A * (j->C * chunk * wq + 16))) : NULL;
    w.M = w.V ? (float *)tt__alloc(ctx, name, sizeof(float) * (size_t)(A * (j->O * chunk * wq + 16))) : NULL;
    if (!w.M || !tt__bands_alloc(ctx, name, &w.b, &bands_scope)) {
        tt_scope_end(ctx, scope);
        if (before == TT_OK) tt_clear_error(ctx);
        return false;
    }
    if (!U) tt__for_planes(ctx, tt__wino_weights_plane, &w, j->O, j->C * 40 * A);
    for (w.row0 = 0; w.row0 < R; w.row0 += chunk) {
        w.rows = tt__min64(chunk, R - w.row0);
        w.P = w.rows * wq;
        w.vstride = j->C * w.P + 16;
        w.mstride = j->O * w.P + 16;
        tt__parallel_for(ctx, tt__wino_input_task, &w, j->C);
        for (e = 0; e < A; e++)
            tt__gemm_pre(ctx, j->O, w.P, j->C, w.U + e * j->O * j->C, j->C, 1, w.V + e * w.vstride, w.P, 1,
                         packed ? packed + e * per_packed : NULL, NULL, w.M + e * w.mstride, NULL);
        tt__for_planes(ctx, tt__wino_output_plane, &w, j->O, w.P * 10 * A);
    }
    tt_scope_end(ctx, bands_scope);
    tt_scope_end(ctx, scope);
    return true;
}

/* conv attrs: a.i = {stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups, algo}. algo is
   what a TT_MODE_MAX_AUTOTUNE compile chose for a conv2d (tt__conv_algos_plan): 0 direct sums
   (eager's, and every other mode's), 2 or 4 Winograd with m x m output tiles, or
   TT__CONV_MEASURE until the dry run has timed it. */
#define TT__CONV_ALGO    7
#define TT__CONV_MEASURE (-1)

static tt_conv_params tt__conv_params_of(const tt__attrs *a) {
    tt_conv_params p;
    p.stride[0] = (int)a->i[0]; p.stride[1] = (int)a->i[1];
    p.padding[0] = (int)a->i[2]; p.padding[1] = (int)a->i[3];
    p.dilation[0] = (int)a->i[4]; p.dilation[1] = (int)a->i[5];
    p.groups = (int)a->i[6];
    return p;
}

static tt__attrs tt__conv_attrs(const tt_conv_params *p) {
    tt__attrs a = tt__attrs_zero();
    a.i[0] = p->stride[0]; a.i[1] = p->stride[1];
    a.i[2] = p->padding[0]; a.i[3] = p->padding[1];
    a.i[4] = p->dilation[0]; a.i[5] = p->dilation[1];
    a.i[6] = p->groups;
    return a;
}

/* conv1d works on 4-D views: x [N,C,L] -> [N,C,1,L], w [O,C,k] -> [O,C,1,k] (no alloc). */
static void tt__conv_as_2d(const tt_tensor *t, tt_tensor *t4) {
    *t4 = *t;
    if (t->ndim != 3) return;
    t4->ndim = 4;
    t4->shape[3] = t->shape[2]; t4->stride[3] = t->stride[2];
    t4->shape[2] = 1;           t4->stride[2] = 0;
}

/* A convolution's algorithm attribute: direct sums, or Winograd where it applies (the
   TT__CONV_MEASURE of a compile that is still timing too). */
static bool tt__conv_algo_valid(const tt__call *c, const tt_tensor *w) {
    tt_conv_params p = tt__conv_params_of(&c->a);
    int64_t algo = c->a.i[TT__CONV_ALGO];
    bool winograd = c->op == TT__OP_CONV2D && w->ndim == 4 && w->shape[2] == 3 && w->shape[3] == 3 && p.stride[0] == 1 &&
                    p.stride[1] == 1 && p.dilation[0] == 1 && p.dilation[1] == 1 && p.groups == 1;
    return algo == 0 || (winograd && (algo == 2 || algo == 4 || algo == TT__CONV_MEASURE));
}

/* in = {x, weight, bias?}; CONV1D uses the same code on height-1 views. */
static bool tt__infer_conv(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *w = c->in[1], *bias = c->in[2];
    tt_conv_params p = tt__conv_params_of(&c->a);
    tt_tensor x4, w4;
    int64_t g = p.groups, oh, ow;
    int i, nd = c->op == TT__OP_CONV1D ? 3 : 4;
    for (i = 0; i < 2; i++) {
        if (p.stride[i] < 1 || p.dilation[i] < 1 || p.padding[i] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: stride %d, padding %d, dilation %d: expected stride >= 1, padding >= 0, "
                     "dilation >= 1", c->name, p.stride[i], p.padding[i], p.dilation[i]);
            return false;
        }
    }
    if (x->ndim != nd || w->ndim != nd) {
        tt__fail(ctx, TT_ERR_SHAPE, nd == 4 ? "%s: x is %S and weight is %S, expected x [N,C,H,W] and weight [O,C/groups,kh,kw]"
                                            : "%s: x is %S and weight is %S, expected x [N,C,L] and weight [O,C/groups,k]",
                 c->name, x, w);
        return false;
    }
    if (g < 1 || x->shape[1] % g != 0 || w->shape[0] % g != 0) {
        tt__fail(ctx, TT_ERR_ARG, "%s: groups is %d: expected >= 1 and dividing the %D input and %D output channels",
                 c->name, p.groups, x->shape[1], w->shape[0]);
        return false;
    }
    if (w->shape[1] != x->shape[1] / g) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: weight %S expects %D input channels per group, x %S has %D (groups %d)",
                 c->name, w, w->shape[1], x, x->shape[1] / g, p.groups);
        return false;
    }
    if (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: bias has shape %S, expected [%D]", c->name, bias, w->shape[0]);
        return false;
    }
    if (!tt__conv_algo_valid(c, w)) {                  /* a graph file's choice of algorithm */
        tt__fail(ctx, TT_ERR_ARG, "%s: algorithm %D: expected 0 (direct sums), or Winograd 2 or 4 for a 3x3 conv2d "
                 "of stride 1, no dilation and groups 1 (weight %S)", c->name, c->a.i[TT__CONV_ALGO], w);
        return false;
    }
    tt__conv_as_2d(x, &x4);
    tt__conv_as_2d(w, &w4);
    oh = tt__out_size(x4.shape[2], w4.shape[2], p.stride[0], p.padding[0], p.dilation[0]);
    ow = tt__out_size(x4.shape[3], w4.shape[3], p.stride[1], p.padding[1], p.dilation[1]);
    if (oh < 1 || ow < 1) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: weight %S with dilation %d,%d does not fit x %S with padding %d,%d",
                 c->name, w, p.dilation[0], p.dilation[1], x, p.padding[0], p.padding[1]);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = nd;
    out->shape[0] = x->shape[0];
    out->shape[1] = w->shape[0];
    if (nd == 4) { out->shape[2] = oh; out->shape[3] = ow; } else out->shape[2] = ow;
    return tt__header_finish(ctx, c->name, "padding", out);
}

/* Images per GEMM in the batched path: their column matrix stays under 16 MiB. */
#define TT__CONV_COL_FLOATS ((int64_t)4 << 20)

/* The batched convolution's GEMM writing straight into the output [N,O,OH*OW] (each image
   a segment of the product's columns) with the bias as its epilogue; false where the
   packed SGEMM does not run (small products, no SIMD kernel, no scratch). */
static bool tt__conv_gemm_direct(tt_ctx *ctx, const tt__conv_job *j, int64_t N, int64_t Kc, const float *col, float *out) {
    tt__epilogue ep;
    int64_t hw = j->OH * j->OW;
    ep.bias = j->b;
    ep.bias_kind = j->b ? TT__BIAS_ROWS : TT__BIAS_NONE;
    ep.relu = j->relu;
    ep.clamp = j->clamp;
    return tt__gemm_is_packed(ctx->kern, j->O, N, Kc) &&
           tt__sgemm_run(ctx, j->O, N, Kc, j->w, Kc, 1, col, N, 1, NULL, j->w_packed, NULL, out, hw, j->O * hw,
                         tt__epilogue_or_null(&ep));
}

/* groups == 1: one GEMM over every image, its B packed straight from the images (no column
   matrix), written into the output [N,O,OH*OW] with the bias (and a graph's ReLU) as its
   epilogue. Taken when the column matrix would not stay in half the L2 cache: below that,
   writing it and packing it again is cheaper than packing short runs of an output row into
   each sliver (SimpleCNN at batch 1: 10% slower implicit; batch 16: 10-19% faster). Either
   way B holds the same numbers, so the product is the same. False where it is not taken or
   the packed SGEMM does not run (small products, no SIMD kernel, no scratch); nothing is
   written then. */
static bool tt__conv_gemm_implicit(tt_ctx *ctx, const tt__conv_job *j, int64_t N, int64_t Kc) {
    tt__im2col_src src;
    tt__epilogue ep;
    int64_t hw = j->OH * j->OW;
    long l1, l2;
    tt__cache_sizes(&l1, &l2);
    if (!tt__gemm_is_packed(ctx->kern, j->O, N * hw, Kc) || (double)Kc * (double)(N * hw) * sizeof(float) < (double)l2 / 2) return false;
    src.x = j->x; src.C = j->C; src.H = j->H; src.W = j->W; src.KH = j->KH; src.KW = j->KW; src.OH = j->OH; src.OW = j->OW;
    src.sh = j->p.stride[0]; src.sw = j->p.stride[1]; src.ph = j->p.padding[0]; src.pw = j->p.padding[1];
    src.dh = j->p.dilation[0]; src.dw = j->p.dilation[1];
    ep.bias = j->b;
    ep.bias_kind = j->b ? TT__BIAS_ROWS : TT__BIAS_NONE;
    ep.relu = j->relu;
    ep.clamp = j->clamp;
    return tt__sgemm_run(ctx, j->O, N * hw, Kc, j->w, Kc, 1, NULL, 0, 1, &src, j->w_packed, NULL, j->out, hw, j->O * hw,
                         tt__epilogue_or_null(&ep));
}

/* groups == 1 and several images: one im2col for j->m images side by side, one GEMM for
   all of them (a wide product keeps the micro-kernel busy where one small image would
   not), written straight into the [N,O,OH,OW] output with the bias (or, where that GEMM
   does not run, into a buffer spread into the output). False when its scratch does not fit
   (the caller then goes image by image and overwrites what was written). */
static bool tt__conv_batched(tt_ctx *ctx, const char *name, tt__conv_job *j, int64_t N, int64_t Kc) {
    int64_t hw = j->OH * j->OW, per = j->m, n0;
    const float *x0 = j->x;
    tt_status before = ctx->err.status;
    tt_scope scope = tt_scope_begin(ctx);
    float *col = (float *)tt__alloc(ctx, name, (size_t)(Kc * j->m * hw) * sizeof(float)), *prod = NULL;
    for (n0 = 0; n0 < N && col; n0 += per) {
        int64_t m = tt__min64(per, N - n0);
        j->x = x0 + n0 * j->C * j->H * j->W;
        j->y = col;
        j->Cim = j->C;
        j->col_ld = m * hw;
        tt__for_planes(ctx, tt__im2col_plane, j, m * j->C, j->KH * j->KW * hw);
        if (tt__conv_gemm_direct(ctx, j, m * hw, Kc, col, j->out + n0 * j->O * hw)) continue;
        if (!prod) prod = (float *)tt__alloc(ctx, name, (size_t)(j->O * per * hw) * sizeof(float));
        if (!prod) break;
        tt__gemm(ctx, j->O, m * hw, Kc, j->w, Kc, 1, col, m * hw, 1, prod);
        j->y = prod;
        j->n0 = n0;
        j->m = m;
        tt__for_planes(ctx, tt__conv_spread_plane, j, m * j->O, hw);
    }
    tt_scope_end(ctx, scope);
    if (n0 < N && before == TT_OK) tt_clear_error(ctx);   /* out of scratch: the caller goes image by image */
    return n0 >= N;
}

/* A 1x1 convolution of stride 1 without padding: its GEMM reads the image itself, no im2col. */
static bool tt__conv_is_pointwise(const tt__conv_job *j) {
    return j->KH == 1 && j->KW == 1 && j->p.stride[0] == 1 && j->p.stride[1] == 1 && j->p.padding[0] == 0 &&
           j->p.padding[1] == 0;
}

/* Does the channels-last pointwise GEMM take convolution j over N images: a 1x1 convolution
   of stride 1 (groups 1) whose channels-first GEMM per image takes the packed path in eager
   mode, as the swapped one does? Then both sum each output over the same k blocks, each by the
   same micro-kernel arithmetic in the same k order (a*b = b*a), with the same epilogue: the
   same bits. Elsewhere eager's direct loops sum in another order. */
static bool tt__pointwise_nhwc_applies(const tt__conv_job *j, int64_t N) {
    int64_t hw = j->OH * j->OW;
    return j->p.groups == 1 && tt__conv_is_pointwise(j) && tt__gemm_is_packed(j->kt, j->O, hw, j->C) &&
           tt__gemm_is_packed(j->kt, N * hw, j->O, j->C);
}

/* The pointwise convolution j on channels-last data: out[N*H*W, O] = x[N*H*W, C] W^T, the
   weight as B (packed ahead like a linear's, B(k, o) = W[o, k]), the bias per column. The
   packed path, as tt__pointwise_nhwc_applies asks (the direct loops only without scratch). */
static void tt__pointwise_nhwc(tt_ctx *ctx, const tt__conv_job *j, int64_t N) {
    int64_t rows = N * j->OH * j->OW;
    tt__epilogue ep;
    ep.bias = j->b;
    ep.bias_kind = j->b ? TT__BIAS_COLS : TT__BIAS_NONE;
    ep.relu = j->relu;
    ep.clamp = j->clamp;
    tt__gemm_pre(ctx, rows, j->O, j->C, j->x, j->C, 1, j->w, 1, j->C, NULL, j->w_packed, j->y, tt__epilogue_or_null(&ep));
}

/* The shape of the convolution call c (weight w, result out) as a job without data: what a
   graph decides from ahead of its runs (Winograd, the weight packed ahead). */
static tt__conv_job tt__conv_job_shape(const tt__call *c, const tt_tensor *w, const tt_tensor *out, const tt__kernels *kt) {
    tt__conv_job j;
    memset(&j, 0, sizeof j);
    j.p = tt__conv_params_of(&c->a);
    j.O = w->shape[0];
    j.C = w->shape[1] * j.p.groups;
    j.KH = w->ndim == 4 ? w->shape[2] : 1;
    j.KW = w->shape[w->ndim - 1];
    j.OH = out->ndim == 4 ? out->shape[2] : 1;
    j.OW = out->shape[out->ndim - 1];
    j.kt = kt;
    return j;
}

/* Does the convolution j (groups 1) run an SGEMM with the weight as its A: not where it is
   summed directly by bands (tt__conv_direct) or the product is too small to pack? */
static bool tt__conv_packs_weight(const tt__conv_job *j) {
    return j->p.groups == 1 && j->O >= j->kt->mr && j->C * j->KH * j->KW >= 8 &&
           (tt__conv_is_pointwise(j) || !tt__conv_direct_applies(j));
}

/* Convolution c on channels-last input into channels-last out where a channels-last kernel
   takes it: true, *ok its success; false (nothing written) where none does or its scratch is
   not to be had. */
static bool tt__conv_nhwc_native(tt_ctx *ctx, const tt__call *c, tt_tensor *out, bool *ok) {
    tt__conv_job j;
    tt_tensor *wc;
    bool failed = false;
    int64_t N = out->shape[0];
    if (c->op != TT__OP_CONV2D || c->in[0]->dtype != TT_F32 || !tt__is_channels_last(c->in[0])) return false;
    j = tt__conv_job_shape(c, c->in[1], out, ctx->kern);
    if (!tt__dw_nhwc_applies(&j) && !tt__pointwise_nhwc_applies(&j, N)) return false;
    wc = tt__contiguous_f32(ctx, c->name, c->in[1]);
    j.b = tt__param_data(ctx, c->name, c->in[2], &failed);
    *ok = wc && !failed;
    if (!*ok) return true;
    j.x = (const float *)tt__ptr(c->in[0]);
    j.w = (const float *)tt__ptr(wc);
    j.y = (float *)tt__ptr(out);
    j.H = c->in[0]->shape[2];
    j.W = c->in[0]->shape[3];
    j.Og = 1;
    j.w_packed = tt__cpu_data(c)->packed_w;         /* packed as B for this kernel (tt__graph_packed_weight) */
    j.relu = tt__cpu_data(c)->relu_after;
    j.clamp = tt__cpu_data(c)->clamp_after;
    if (tt__dw_nhwc_applies(&j)) {
        if (!tt__depthwise_nhwc(ctx, c->name, &j, N)) return false;
    } else {
        tt__pointwise_nhwc(ctx, &j, N);
    }
    tt__clamp_done(c);
    return true;
}

/* A convolution whose output the layout pass made channels-last: a channels-last kernel where
   one takes it, else the channels-first convolution into scratch, copied into place (its
   input, if channels-last, is copied to channels-first as any strided input is). */
static bool tt__exec_conv(tt_ctx *ctx, const tt__call *c, tt_tensor *out);
static bool tt__exec_conv_nhwc(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor first;
    tt_scope s;
    bool ok;
    if (tt__conv_nhwc_native(ctx, c, out, &ok)) return ok;
    s = tt_scope_begin(ctx);
    first = *out;
    tt__set_contiguous_strides(&first);
    first.data = tt__alloc(ctx, c->name, (size_t)out->numel * sizeof(float));
    ok = first.data && tt__exec_conv(ctx, c, &first);
    if (ok) tt__copy_into(out, &first);
    tt_scope_end(ctx, s);
    return ok;
}

static bool tt__exec_conv(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_conv_params p = tt__conv_params_of(&c->a);
    tt_tensor x4, w4, *xc, *wc;
    int64_t N, C, H, W, O, KH, KW, OH, OW, G, Cg, Og, Kc, n, g;
    bool direct, failed = false;
    const float *xd, *wd, *bd;
    float *col = NULL, *yd = (float *)tt__ptr(out);
    tt__conv_job j;
    tt__epilogue ep;
    if (out->numel == 0) return true;
    if (tt__is_channels_last(out)) return tt__exec_conv_nhwc(ctx, c, out);
    xc = tt__contiguous_f32(ctx, c->name, c->in[0]);
    wc = tt__contiguous_f32(ctx, c->name, c->in[1]);
    bd = tt__param_data(ctx, c->name, c->in[2], &failed);
    if (!xc || !wc || failed) return false;
    tt__conv_as_2d(xc, &x4);
    tt__conv_as_2d(wc, &w4);
    N = x4.shape[0]; C = x4.shape[1]; H = x4.shape[2]; W = x4.shape[3];
    O = w4.shape[0]; KH = w4.shape[2]; KW = w4.shape[3];
    OH = c->op == TT__OP_CONV1D ? 1 : out->shape[2];
    OW = out->shape[out->ndim - 1];
    G = p.groups; Cg = C / G; Og = O / G; Kc = Cg * KH * KW;
    xd = (const float *)tt__ptr(xc);
    wd = (const float *)tt__ptr(wc);
    j.x = xd; j.w = wd; j.b = bd; j.y = yd; j.out = yd; j.p = p;
    j.w_packed = tt__cpu_data(c)->packed_w;
    j.C = C; j.H = H; j.W = W; j.O = O; j.Og = Og; j.KH = KH; j.KW = KW; j.OH = OH; j.OW = OW;
    j.relu = tt__cpu_data(c)->relu_after;
    j.clamp = tt__cpu_data(c)->clamp_after;
    j.kt = ctx->kern;
    if (G > 1 && Cg == 1) {                            /* depthwise: a direct kernel, bias included */
        if (tt__depthwise_by_bands(ctx, c->name, &j, N)) {
            tt__clamp_done(c);
            return true;
        }
        tt__for_planes(ctx, ctx->kern->depthwise_plane, &j, N * O, OH * OW * KH * KW);   /* no clamp */
        return true;
    }
    direct = tt__conv_is_pointwise(&j);
    if (c->a.i[TT__CONV_ALGO] > 0 && tt__conv_winograd(ctx, c->name, &j, N, c->a.i[TT__CONV_ALGO], tt__cpu_data(c)->wino_u))
        return true;                                   /* the chosen Winograd (no clamp) */
    tt__clamp_done(c);                                 /* every path below has the GEMM's epilogue */
    if (G == 1 && !direct && tt__conv_direct(ctx, c->name, &j, N)) return true;
    if (G == 1 && !direct && tt__conv_gemm_implicit(ctx, &j, N, Kc)) return true;
    j.m = tt__min64(N, tt__max64(1, TT__CONV_COL_FLOATS / tt__max64(1, Kc * OH * OW)));   /* Kc may be 0 */
    if (G == 1 && !direct && j.m > 1 && tt__conv_batched(ctx, c->name, &j, N, Kc)) return true;
    j.Cim = Cg;                                        /* image by image (also when the batch did not fit) */
    j.col_ld = OH * OW;
    if (!direct) {
        col = (float *)tt__alloc(ctx, c->name, (size_t)(Kc * OH * OW) * sizeof(float));
        if (!col) return false;
    }
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            const float *img = xd + (n * C + g * Cg) * H * W;
            float *y = yd + (n * O + g * Og) * OH * OW;
            if (!direct) {
                j.x = img; j.y = col;
                tt__for_planes(ctx, tt__im2col_plane, &j, Cg, KH * KW * OH * OW);
            }
            ep.bias = bd ? bd + g * Og : NULL;         /* one bias per output channel: per row of C */
            ep.bias_kind = bd ? TT__BIAS_ROWS : TT__BIAS_NONE;
            ep.relu = j.relu;
            ep.clamp = j.clamp;
            tt__gemm_pre(ctx, Og, OH * OW, Kc, wd + g * Og * Kc, Kc, 1, direct ? img : col, OH * OW, 1,
                         G == 1 ? j.w_packed : NULL, NULL, y, tt__epilogue_or_null(&ep));
        }
    }
    return true;
}

static tt_conv_params tt__conv_params(int sh, int sw, int ph, int pw, int dh, int dw, int groups) {
    tt_conv_params p;
    p.stride[0] = sh; p.stride[1] = sw;
    p.padding[0] = ph; p.padding[1] = pw;
    p.dilation[0] = dh; p.dilation[1] = dw;
    p.groups = groups;
    return p;
}

static tt_tensor *tt__conv(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, tt_tensor *w, tt_tensor *bias,
                           const tt_conv_params *p) {
    tt__attrs a = tt__conv_attrs(p);
    tt_tensor *in[3];
    in[0] = x; in[1] = w; in[2] = bias;
    return tt__op(ctx, name, op, in, 3, &a);
}

TT_API tt_tensor *tt_conv2d_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias, const tt_conv_params *p) {
    if (!ctx || !x || !weight) return NULL;
    if (!p) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_conv2d_ex: p is NULL");
    return tt__conv(ctx, "tt_conv2d_ex", TT__OP_CONV2D, x, weight, bias, p);
}

TT_API tt_tensor *tt_conv2d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                            int stride, int padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params(stride, stride, padding, padding, dilation, dilation, groups);
    return tt__conv(ctx, "tt_conv2d", TT__OP_CONV2D, x, weight, bias, &p);
}

TT_API tt_tensor *tt_conv1d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                            int stride, int padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params(1, stride, 0, padding, 1, dilation, groups);
    return tt__conv(ctx, "tt_conv1d", TT__OP_CONV1D, x, weight, bias, &p);
}

/* ---- N-D convolution: 3-D, and transposed (1-D, 2-D, 3-D) ----------------------
   Both treat every case as 3-D volumes (missing leading spatial axes have size 1, kernel 1,
   stride 1): a convolution is im2col + GEMM per image and group, a transposed convolution
   is the GEMM with the weight transposed (columns of contributions) and col2im, which adds
   them into the output plane by plane in a fixed order (one task per output plane, so the
   sums do not depend on the thread count). Attributes: a.i[0..2] stride, [3..5] padding,
   [6..8] dilation, [9] groups, [10..12] output_padding, per spatial axis in order. */
enum { TT__CV_S = 0, TT__CV_P = 3, TT__CV_D = 6, TT__CV_G = 9, TT__CV_OP = 10 };

static tt__attrs tt__conv_nd_attrs(const tt_conv_params *p, int ns, bool transposed) {
    tt__attrs a = tt__attrs_zero();
    int i;
    for (i = 0; i < ns; i++) {
        a.i[TT__CV_S + i] = p->stride[i];
        a.i[TT__CV_P + i] = p->padding[i];
        a.i[TT__CV_D + i] = p->dilation[i];
        a.i[TT__CV_OP + i] = transposed ? p->output_padding[i] : 0;
    }
    a.i[TT__CV_G] = p->groups;
    return a;
}

/* Output size along one axis, or -1 when it would be < 1 or overflow. */
static int64_t tt__conv_nd_out_size(bool transposed, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
    int64_t span = tt__mul_checked(d, k - 1), grown;
    if (span < 0) return -1;
    if (!transposed) return in + 2 * p <= span ? -1 : (in + 2 * p - span - 1) / s + 1;
    grown = tt__mul_checked(in - 1, s);                /* (in-1)*s - 2p + d(k-1) + op + 1 */
    if (grown >= 0) grown = tt__add_checked(grown, span);
    if (grown >= 0) grown = tt__add_checked(grown, op + 1);
    if (grown < 0 || grown - 2 * p < 1) return -1;
    return grown - 2 * p;
}

static bool tt__infer_conv_nd(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *w = c->in[1], *bias = c->in[2];
    bool tr = c->op == TT__OP_CONV_TRANSPOSE;
    int64_t g = c->a.i[TT__CV_G], cin = x->shape[1], cout;
    int ns = x->ndim - 2, i;
    if (ns < 1 || ns > 3 || (!tr && ns != 3) || w->ndim != x->ndim) {
        tt__fail(ctx, TT_ERR_SHAPE, tr ? "%s: x is %S and weight is %S, expected x [N,Cin,...] and weight "
                 "[Cin,Cout/groups,k...] with 1 to 3 spatial axes" : "%s: x is %S and weight is %S, expected x "
                 "[N,Cin,D,H,W] and weight [Cout,Cin/groups,kd,kh,kw]", c->name, x, w);
        return false;
    }
    if (g < 1 || cin % g != 0 || (!tr && w->shape[0] % g != 0)) {
        tt__fail(ctx, TT_ERR_ARG, "%s: groups is %D: expected >= 1 and dividing the %D input and %D output channels",
                 c->name, g, cin, tr ? w->shape[1] * g : w->shape[0]);
        return false;
    }
    if (tr ? w->shape[0] != cin : w->shape[1] * g != cin) {
        tt__fail(ctx, TT_ERR_SHAPE, tr ? "%s: weight %S expects %D input channels, x %S has %D"
                 : "%s: weight %S expects %D input channels per group, x %S has %D", c->name, w,
                 tr ? w->shape[0] : w->shape[1], x, tr ? cin : cin / g);
        return false;
    }
    cout = tr ? w->shape[1] * g : w->shape[0];
    if (bias && (bias->ndim != 1 || bias->shape[0] != cout)) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: bias has shape %S, expected [%D]", c->name, bias, cout);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = x->ndim;
    out->shape[0] = x->shape[0];
    out->shape[1] = cout;
    for (i = 0; i < ns; i++) {
        int64_t s = c->a.i[TT__CV_S + i], p = c->a.i[TT__CV_P + i], d = c->a.i[TT__CV_D + i], op = c->a.i[TT__CV_OP + i];
        if (s < 1 || p < 0 || d < 1 || op < 0 || (op > 0 && op >= tt__max64(s, d)) ||
            s > INT32_MAX || p > INT32_MAX || d > INT32_MAX) {   /* a file's attributes: int64, not int */
            tt__fail(ctx, TT_ERR_ARG, "%s: axis %d has stride %D, padding %D, dilation %D, output_padding %D: expected "
                     "stride >= 1, padding >= 0, dilation >= 1, 0 <= output_padding < max(stride, dilation)",
                     c->name, i, s, p, d, op);
            return false;
        }
        out->shape[2 + i] = tt__conv_nd_out_size(tr, x->shape[2 + i], w->shape[2 + i], s, p, d, op);
        if (out->shape[2 + i] < 1) {
            if (tr) tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S and weight %S with stride %D, padding %D, dilation %D give no "
                             "output on axis %d", c->name, x, w, s, p, d, 2 + i);
            else tt__fail(ctx, TT_ERR_SHAPE, "%s: weight %S with dilation %D does not fit x %S with padding %D on axis %d",
                          c->name, w, d, x, p, 2 + i);
            return false;
        }
    }
    return tt__header_finish(ctx, c->name, c->op == TT__OP_CONV_TRANSPOSE ? "stride, padding and output_padding" : "padding", out);
}

/* The geometry of one image as 3-D volumes: in[] (input), out[] (output), k[] (kernel). */
typedef struct tt__conv_nd_job {
    const float *x;            /* im2col: one group's channels of an image; col2im: columns */
    float       *y;            /* im2col: columns; col2im: one group's output channels */
    const float *b;            /* col2im: the group's bias, or NULL */
    int64_t      in[3], out[3], k[3], s[3], p[3], d[3];
} tt__conv_nd_job;

static void tt__conv_nd_job_init(tt__conv_nd_job *j, const tt__call *c, const tt_tensor *x, const tt_tensor *w,
                                 const tt_tensor *out) {
    int ns = x->ndim - 2, a, i;
    for (a = 0; a < 3; a++) {
        i = a - (3 - ns);
        j->in[a] = i >= 0 ? x->shape[2 + i] : 1;
        j->out[a] = i >= 0 ? out->shape[2 + i] : 1;
        j->k[a] = i >= 0 ? w->shape[2 + i] : 1;
        j->s[a] = i >= 0 ? c->a.i[TT__CV_S + i] : 1;
        j->p[a] = i >= 0 ? c->a.i[TT__CV_P + i] : 0;
        j->d[a] = i >= 0 ? c->a.i[TT__CV_D + i] : 1;
    }
}

static int64_t tt__vol(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* im2col of input channel `plane`: its KD*KH*KW rows of the column matrix, each the input
   values under one kernel tap for every output position (0 where the tap is in padding). */
static void tt__im2col_nd_plane(const void *arg, int64_t plane) {
    const tt__conv_nd_job *j = (const tt__conv_nd_job *)arg;
    const float *src = j->x + plane * tt__vol(j->in);
    int64_t ksp = tt__vol(j->k), osp = tt__vol(j->out), kd, kh, kw, od, oh, lo, hi, q;
    for (kd = 0; kd < j->k[0]; kd++)
        for (kh = 0; kh < j->k[1]; kh++)
            for (kw = 0; kw < j->k[2]; kw++) {
                float *row = j->y + (plane * ksp + (kd * j->k[1] + kh) * j->k[2] + kw) * osp;
                tt__window_cols(j->in[2], j->out[2], j->s[2], j->p[2], kw * j->d[2], &lo, &hi);
                for (od = 0; od < j->out[0]; od++)
                    for (oh = 0; oh < j->out[1]; oh++) {
                        int64_t id = od * j->s[0] - j->p[0] + kd * j->d[0], ih = oh * j->s[1] - j->p[1] + kh * j->d[1];
                        int64_t base = (id * j->in[1] + ih) * j->in[2] + kw * j->d[2] - j->p[2];
                        float *r = row + (od * j->out[1] + oh) * j->out[2];
                        bool inside = id >= 0 && id < j->in[0] && ih >= 0 && ih < j->in[1];
                        for (q = 0; q < j->out[2]; q++) r[q] = inside && q >= lo && q < hi ? src[base + q * j->s[2]] : 0.0f;
                    }
            }
}

static bool tt__exec_conv3d(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *xc = tt__contiguous_f32(ctx, c->name, c->in[0]), *wc = tt__contiguous_f32(ctx, c->name, c->in[1]);
    bool failed = false;
    const float *bd = tt__param_data(ctx, c->name, c->in[2], &failed);
    int64_t G = c->a.i[TT__CV_G], N, Cg, Og, Kc, isp, osp, n, g;
    tt__conv_nd_job j;
    tt__epilogue ep;
    float *col;
    if (!xc || !wc || failed) return false;
    tt__conv_nd_job_init(&j, c, xc, wc, out);
    N = xc->shape[0]; Cg = xc->shape[1] / G; Og = out->shape[1] / G;
    isp = tt__vol(j.in); osp = tt__vol(j.out); Kc = Cg * tt__vol(j.k);
    if (out->numel == 0) return true;
    if (Kc == 0) {                                     /* no input channels: the bias alone */
        for (n = 0; n < out->numel; n++) ((float *)tt__ptr(out))[n] = bd ? bd[(n / osp) % out->shape[1]] : 0.0f;
        if (tt__cpu_data(c)->relu_after) tt__relu_run((float *)tt__ptr(out), out->numel);
        return true;
    }
    col = (float *)tt__alloc(ctx, c->name, (size_t)(Kc * osp) * sizeof(float));
    if (!col) return false;
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            j.x = (const float *)tt__ptr(xc) + (n * G + g) * Cg * isp;
            j.y = col;
            tt__for_planes(ctx, tt__im2col_nd_plane, &j, Cg, tt__vol(j.k) * osp);
            ep.bias = bd ? bd + g * Og : NULL;
            ep.bias_kind = bd ? TT__BIAS_ROWS : TT__BIAS_NONE;
            ep.relu = tt__cpu_data(c)->relu_after;
            ep.clamp.on = false;
            tt__gemm_pre(ctx, Og, osp, Kc, (const float *)tt__ptr(wc) + g * Og * Kc, Kc, 1, col, osp, 1, NULL, NULL,
                         (float *)tt__ptr(out) + (n * G + g) * Og * osp, tt__epilogue_or_null(&ep));
        }
    }
    return true;
}

/* col2im of output channel `plane` of a transposed convolution: every kernel tap's row of
   the column matrix is added where that tap lands (taps in order, then input positions in
   order: a fixed order of sums), then the bias. */
static void tt__col2im_nd_plane(const void *arg, int64_t plane) {
    const tt__conv_nd_job *j = (const tt__conv_nd_job *)arg;
    int64_t ksp = tt__vol(j->k), isp = tt__vol(j->in), osp = tt__vol(j->out), kd, kh, kw, id, ih, iw;
    float *dst = j->y + plane * osp;
    int64_t q;
    for (q = 0; q < osp; q++) dst[q] = 0.0f;
    for (kd = 0; kd < j->k[0]; kd++)
        for (kh = 0; kh < j->k[1]; kh++)
            for (kw = 0; kw < j->k[2]; kw++) {
                const float *row = j->x + (plane * ksp + (kd * j->k[1] + kh) * j->k[2] + kw) * isp;
                for (id = 0; id < j->in[0]; id++) {
                    int64_t od = id * j->s[0] - j->p[0] + kd * j->d[0];
                    if (od < 0 || od >= j->out[0]) continue;
                    for (ih = 0; ih < j->in[1]; ih++) {
                        int64_t oh = ih * j->s[1] - j->p[1] + kh * j->d[1];
                        const float *r = row + (id * j->in[1] + ih) * j->in[2];
                        float *d;
                        if (oh < 0 || oh >= j->out[1]) continue;
                        d = dst + (od * j->out[1] + oh) * j->out[2];
                        for (iw = 0; iw < j->in[2]; iw++) {
                            int64_t ow = iw * j->s[2] - j->p[2] + kw * j->d[2];
                            if (ow >= 0 && ow < j->out[2]) d[ow] += r[iw];
                        }
                    }
                }
            }
    if (j->b) for (q = 0; q < osp; q++) dst[q] += j->b[plane];
}

static bool tt__exec_conv_transpose(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *xc = tt__contiguous_f32(ctx, c->name, c->in[0]), *wc = tt__contiguous_f32(ctx, c->name, c->in[1]);
    bool failed = false;
    const float *bd = tt__param_data(ctx, c->name, c->in[2], &failed);
    int64_t G = c->a.i[TT__CV_G], N, Cg, Og, Rows, isp, osp, n, g;
    tt__conv_nd_job j;
    float *col;
    if (!xc || !wc || failed) return false;
    tt__conv_nd_job_init(&j, c, xc, wc, out);
    N = xc->shape[0]; Cg = xc->shape[1] / G; Og = out->shape[1] / G;
    isp = tt__vol(j.in); osp = tt__vol(j.out); Rows = Og * tt__vol(j.k);
    if (out->numel == 0) return true;
    col = (float *)tt__alloc(ctx, c->name, (size_t)(Rows * tt__max64(isp, 1)) * sizeof(float));
    if (!col) return false;
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            const float *wg = (const float *)tt__ptr(wc) + g * Cg * Rows;   /* [Cg, Og*k...] */
            if (Cg > 0) {
                tt__gemm_pre(ctx, Rows, isp, Cg, wg, 1, Rows, (const float *)tt__ptr(xc) + (n * G + g) * Cg * isp,
                             isp, 1, NULL, NULL, col, NULL);
            } else {
                memset(col, 0, (size_t)(Rows * isp) * sizeof(float));
            }
            j.x = col;
            j.y = (float *)tt__ptr(out) + (n * G + g) * Og * osp;
            j.b = bd ? bd + g * Og : NULL;
            tt__for_planes(ctx, tt__col2im_nd_plane, &j, Og, tt__vol(j.k) * isp);
        }
    }
    if (tt__cpu_data(c)->relu_after) tt__relu_run((float *)tt__ptr(out), out->numel);
    return true;
}

static tt_tensor *tt__conv_nd(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, tt_tensor *w, tt_tensor *bias,
                              const tt_conv_params *p) {
    tt__attrs a;
    tt_tensor *in[3];
    int ns;
    if (!ctx || !x || !w) return NULL;
    ns = (int)tt__min64(3, tt__max64(0, x->ndim - 2));  /* infer rejects other ranks */
    a = tt__conv_nd_attrs(p, ns, op == TT__OP_CONV_TRANSPOSE);
    in[0] = x; in[1] = w; in[2] = bias;
    return tt__op(ctx, name, op, in, 3, &a);
}

/* A tt_conv_params with the same settings on every axis. */
static tt_conv_params tt__conv_params_all(int stride, int padding, int dilation, int groups, int output_padding) {
    tt_conv_params p;
    int i;
    memset(&p, 0, sizeof p);
    for (i = 0; i < 3; i++) {
        p.stride[i] = stride;
        p.padding[i] = padding;
        p.dilation[i] = dilation;
        p.output_padding[i] = output_padding;
    }
    p.groups = groups;
    return p;
}

TT_API tt_tensor *tt_conv3d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                            int stride, int padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params_all(stride, padding, dilation, groups, 0);
    return tt__conv_nd(ctx, "tt_conv3d", TT__OP_CONV3D, x, weight, bias, &p);
}

TT_API tt_tensor *tt_conv_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias, const tt_conv_params *p) {
    tt_conv_params p2;
    if (!ctx || !x || !weight) return NULL;
    if (!p) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_conv_ex: p is NULL");
    if (x->ndim == 4) return tt__conv(ctx, "tt_conv_ex", TT__OP_CONV2D, x, weight, bias, p);
    if (x->ndim != 3) return tt__conv_nd(ctx, "tt_conv_ex", TT__OP_CONV3D, x, weight, bias, p);  /* 3-D, or the error */
    p2 = tt__conv_params(1, p->stride[0], 0, p->padding[0], 1, p->dilation[0], p->groups);   /* 1-D: the width axis */
    return tt__conv(ctx, "tt_conv_ex", TT__OP_CONV1D, x, weight, bias, &p2);
}

TT_API tt_tensor *tt_conv_transpose1d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                      int stride, int padding, int output_padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params_all(stride, padding, dilation, groups, output_padding);
    if (x && x->ndim != 3)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "tt_conv_transpose1d: x is %S, expected [N,Cin,L]", x);
    return tt__conv_nd(ctx, "tt_conv_transpose1d", TT__OP_CONV_TRANSPOSE, x, weight, bias, &p);
}

TT_API tt_tensor *tt_conv_transpose2d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                      int stride, int padding, int output_padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params_all(stride, padding, dilation, groups, output_padding);
    if (x && x->ndim != 4)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "tt_conv_transpose2d: x is %S, expected [N,Cin,H,W]", x);
    return tt__conv_nd(ctx, "tt_conv_transpose2d", TT__OP_CONV_TRANSPOSE, x, weight, bias, &p);
}

TT_API tt_tensor *tt_conv_transpose_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                                       const tt_conv_params *p) {
    if (ctx && x && weight && !p) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_conv_transpose_ex: p is NULL");
    return tt__conv_nd(ctx, "tt_conv_transpose_ex", TT__OP_CONV_TRANSPOSE, x, weight, bias, p);
}

/* ---- pooling and upsampling (direct loops over contiguous f32 planes) ---------- */

/* MAX/AVG_POOL over 1, 2 or 3 spatial axes (x's rank minus 2), per axis in order:
   a.i[0..2] kernel, [3..5] stride, [6..8] padding, [9..11] dilation, [12] ceil_mode,
   [13] exclude_pad; entries of absent axes are 1 (kernel, stride, dilation) and 0. */
enum { TT__POOL_K = 0, TT__POOL_S = 3, TT__POOL_P = 6, TT__POOL_D = 9, TT__POOL_CEIL = 12, TT__POOL_EXCL = 13 };

/* PyTorch's pooling output size: floor (or ceil) division, and in ceil mode a last window
   that would start past the input and its left padding is dropped. -1 when nothing fits. */
static int64_t tt__pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    int64_t span = d * (k - 1) + 1, out;
    if (in + 2 * p < span) return -1;
    out = (in + 2 * p - span + (ceil_mode ? s - 1 : 0)) / s + 1;
    if (ceil_mode && (out - 1) * s >= in + p) out--;
    return out;
}

static bool tt__infer_pool(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int ns = x->ndim - 2, i;
    bool is_max = c->op == TT__OP_MAX_POOL;
    if (ns < 1 || ns > 3) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected [N,C,L], [N,C,H,W] or [N,C,D,H,W]", c->name, x);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = x->ndim;
    out->shape[0] = x->shape[0];
    out->shape[1] = x->shape[1];
    for (i = 0; i < ns; i++) {
        int64_t k = c->a.i[TT__POOL_K + i], st = c->a.i[TT__POOL_S + i], p = c->a.i[TT__POOL_P + i];
        int64_t d = c->a.i[TT__POOL_D + i];
        if (k < 1 || st < 1 || d < 1 || p < 0 || k > INT32_MAX || st > INT32_MAX || d > INT32_MAX ||   /* a file's attributes */
            (!is_max && d != 1) || p > (d * (k - 1) + 1) / 2) {
            tt__fail(ctx, TT_ERR_ARG, "%s: axis %d has kernel %D, stride %D, padding %D, dilation %D: expected kernel "
                     ">= 1, stride >= 1, dilation >= 1 (1 for average pooling) and 0 <= padding <= half the window",
                     c->name, i, k, st, p, d);
            return false;
        }
        out->shape[2 + i] = tt__pool_out_size(x->shape[2 + i], k, st, p, d, c->a.i[TT__POOL_CEIL] != 0);
        if (out->shape[2 + i] < 1) {
            tt__fail(ctx, TT_ERR_SHAPE, "%s: kernel %D (dilation %D) does not fit axis %d of x %S with padding %D",
                     c->name, k, d, 2 + i, x, p);
            return false;
        }
    }
    return tt__header_finish(ctx, c->name, "kernel, stride and padding", out);
}

/* A pooling job: every plane is a D x H x W volume (1-D and 2-D pooling have D = H = 1 or
   D = 1, with kernel and stride 1 on those axes). */
typedef struct tt__pool_job {
    const float *x;
    float       *y;
    int64_t      in[3], out[3], k[3], s[3], p[3], d[3];
    bool         is_max, exclude_pad;
} tt__pool_job;

/* d[q] = max(d[q], row[q*s + off]) or d[q] += row[q*s + off] for q in [lo, hi): one kernel
   tap over a row (off may be negative; every index read is inside the row). */
TT__INLINE void tt__pool_tap(float *TT__RESTRICT d, const float *TT__RESTRICT row, int64_t s, int64_t off, int64_t lo, int64_t hi,
                         bool is_max) {
    const float *r = row + (lo * s + off);
    int64_t q;
    d += lo;
    if (s == 1 && is_max) TT__EACH(hi - lo, d[i] = tt__maxf(d[i], r[i]));
    else if (s == 1)      TT__EACH(hi - lo, d[i] += r[i]);
    else if (is_max)      for (q = 0; q < hi - lo; q++) d[q] = tt__maxf(d[q], r[q * s]);
    else                  for (q = 0; q < hi - lo; q++) d[q] += r[q * s];
}

/* The common 2x2, stride 2, no padding max pooling (every window inside the input): the
   maximum of the two rows first (contiguous, vectorized), then of each pair (vectorized
   too: the compiler de-interleaves the pairs; a scalar loop here was 3x slower), by chunks. */
TT__INLINE void tt__max_pool_2x2(float *TT__RESTRICT d, const float *TT__RESTRICT r0, const float *TT__RESTRICT r1, int64_t OW) {
    float m[2 * TT__CHUNK];
    int64_t q0, n;
    for (q0 = 0; q0 < OW; q0 += TT__CHUNK) {
        n = tt__min64(TT__CHUNK, OW - q0);
        TT__EACH(2 * n, m[i] = tt__maxf(r0[2 * q0 + i], r1[2 * q0 + i]));
        TT__EACH(n, d[q0 + i] = tt__maxf(m[2 * i], m[2 * i + 1]));
    }
}

/* Cells of the window at output o along one axis that average pooling divides by:
   PyTorch counts the window clipped to the padded input, or (exclude_pad) to the input. */
static int64_t tt__pool_count(const tt__pool_job *j, int a, int64_t o) {
    int64_t start = o * j->s[a] - j->p[a], end = tt__min64(start + j->k[a], j->in[a] + j->p[a]);
    if (j->exclude_pad) {
        start = tt__max64(start, 0);
        end = tt__min64(end, j->in[a]);
    }
    return end - start;
}

/* The taps [*k0, *k1) along axis a that can land inside the input for windows starting
   anywhere in [first, last] (tap k reads index start + k*dilation): the work then grows
   with the input and the output, never with a huge window. */
static void tt__pool_taps(const tt__pool_job *j, int a, int64_t first, int64_t last, int64_t *k0, int64_t *k1) {
    int64_t d = j->d[a];
    *k0 = last >= 0 ? 0 : (-last + d - 1) / d;         /* the last window reaches index 0 */
    *k1 = first > j->in[a] - 1 ? 0 : (j->in[a] - 1 - first) / d + 1;   /* the first reaches in-1 */
    *k1 = tt__min64(*k1, j->k[a]);
    if (*k1 < *k0) *k1 = *k0;
}

/* One output row (od, oh): every kernel tap that lands inside the input updates a run of
   outputs at once (no per-output bounds checks); taps in order kd, kh, kw. */
TT__INLINE void tt__pool_row(const tt__pool_job *j, const float *src, float *dst, int64_t od, int64_t oh) {
    int64_t kd, kh, kw, q, lo, hi, OW = j->out[2], d0, d1, h0, h1, w0, w1;
    for (q = 0; q < OW; q++) dst[q] = j->is_max ? -INFINITY : 0.0f;
    tt__pool_taps(j, 0, od * j->s[0] - j->p[0], od * j->s[0] - j->p[0], &d0, &d1);
    tt__pool_taps(j, 1, oh * j->s[1] - j->p[1], oh * j->s[1] - j->p[1], &h0, &h1);
    tt__pool_taps(j, 2, -j->p[2], (OW - 1) * j->s[2] - j->p[2], &w0, &w1);
    for (kd = d0; kd < d1; kd++) {
        int64_t id = od * j->s[0] - j->p[0] + kd * j->d[0];
        if (id < 0 || id >= j->in[0]) continue;
        for (kh = h0; kh < h1; kh++) {
            int64_t ih = oh * j->s[1] - j->p[1] + kh * j->d[1];
            const float *row;
            if (ih < 0 || ih >= j->in[1]) continue;
            row = src + (id * j->in[1] + ih) * j->in[2];
            for (kw = w0; kw < w1; kw++) {
                tt__window_cols(j->in[2], OW, j->s[2], j->p[2], kw * j->d[2], &lo, &hi);
                if (hi > lo) tt__pool_tap(dst, row, j->s[2], kw * j->d[2] - j->p[2], lo, hi, j->is_max);
            }
        }
    }
    if (j->is_max) return;
    for (q = 0; q < OW; q++)
        dst[q] /= (float)(tt__pool_count(j, 0, od) * tt__pool_count(j, 1, oh) * tt__pool_count(j, 2, q));
}

TT__INLINE void tt__pool_plane_body(const void *arg, int64_t plane) {
    const tt__pool_job *j = (const tt__pool_job *)arg;
    const float *src = j->x + plane * j->in[0] * j->in[1] * j->in[2];
    float *dst = j->y + plane * j->out[0] * j->out[1] * j->out[2];
    int64_t od, oh, OW = j->out[2], W = j->in[2];
    bool two_by_two = j->is_max && j->in[0] == 1 && j->k[1] == 2 && j->k[2] == 2 && j->s[1] == 2 && j->s[2] == 2 &&
                      j->p[1] == 0 && j->p[2] == 0 && j->d[1] == 1 && j->d[2] == 1 && 2 * OW <= W && 2 * j->out[1] <= j->in[1];
    for (od = 0; od < j->out[0]; od++) {
        for (oh = 0; oh < j->out[1]; oh++) {
            float *d = dst + (od * j->out[1] + oh) * OW;
            if (two_by_two) tt__max_pool_2x2(d, src + 2 * oh * W, src + (2 * oh + 1) * W, OW);
            else tt__pool_row(j, src, d, od, oh);
        }
    }
}
TT__TWINS(, tt__pool_plane, (const void *arg, int64_t plane), (arg, plane))

/* The shape of a pooling job (pointers NULL) from the op, its attributes and shapes. */
static void tt__pool_job_init(tt__pool_job *j, int op, const tt__attrs *at, const tt_tensor *x, const tt_tensor *out) {
    int ns = x->ndim - 2, a, i;
    memset(j, 0, sizeof *j);
    j->is_max = op == TT__OP_MAX_POOL;
    j->exclude_pad = at->i[TT__POOL_EXCL] != 0;
    for (a = 0; a < 3; a++) {                          /* axis a of the volume is spatial axis i, if any */
        i = a - (3 - ns);
        j->in[a] = i >= 0 ? x->shape[2 + i] : 1;
        j->out[a] = i >= 0 ? out->shape[2 + i] : 1;
        j->k[a] = i >= 0 ? at->i[TT__POOL_K + i] : 1;
        j->s[a] = i >= 0 ? at->i[TT__POOL_S + i] : 1;
        j->p[a] = i >= 0 ? at->i[TT__POOL_P + i] : 0;
        j->d[a] = i >= 0 ? at->i[TT__POOL_D + i] : 1;
    }
}

static bool tt__exec_pool(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt__pool_job j;
    const tt_tensor *x = c->in[0];
    tt_tensor *xc = tt__contiguous_f32(ctx, c->name, c->in[0]);
    if (!xc) return false;
    tt__pool_job_init(&j, c->op, &c->a, x, out);
    j.x = (const float *)tt__ptr(xc);
    j.y = (float *)tt__ptr(out);
    tt__for_planes(ctx, ctx->kern->pool_plane, &j, x->shape[0] * x->shape[1],
                   tt__mul_checked(tt__vol(j.out), tt__min64(tt__vol(j.in), 64)));   /* ~taps per output */
    return true;
}

/* The attributes of a pooling call: zero stride means the window, zero dilation 1. */
static tt__attrs tt__pool_attrs(const tt_pool_params *p, int ns) {
    tt__attrs a = tt__attrs_zero();
    int i;
    for (i = 0; i < 3; i++) {
        a.i[TT__POOL_K + i] = i < ns ? p->kernel[i] : 1;
        a.i[TT__POOL_S + i] = i < ns ? (p->stride[i] ? p->stride[i] : p->kernel[i]) : 1;
        a.i[TT__POOL_P + i] = i < ns ? p->padding[i] : 0;
        a.i[TT__POOL_D + i] = i < ns ? (p->dilation[i] ? p->dilation[i] : 1) : 1;
    }
    a.i[TT__POOL_CEIL] = p->ceil_mode;
    a.i[TT__POOL_EXCL] = p->exclude_pad;
    return a;
}

static tt_tensor *tt__pool_ex(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, const tt_pool_params *p) {
    tt__attrs a;
    if (!ctx || !x) return NULL;
    if (!p) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: p is NULL", name);
    a = tt__pool_attrs(p, x->ndim - 2);
    return tt__op1(ctx, name, op, x, &a);
}

/* The square forms: one kernel, stride and padding on every spatial axis of rank ndim. */
static tt_tensor *tt__pool(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, int ndim, int kernel,
                           int stride, int padding) {
    tt_pool_params p;
    int i;
    if (!ctx || !x) return NULL;
    if (x->ndim != ndim)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected %s", name, x,
                                     ndim == 3 ? "[N,C,L]" : "[N,C,H,W]");
    memset(&p, 0, sizeof p);
    for (i = 0; i < 3; i++) {
        p.kernel[i] = kernel;
        p.stride[i] = stride;
        p.padding[i] = padding;
    }
    if (stride < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: stride is %d, expected >= 0 (0 = kernel)", name, stride);
    return tt__pool_ex(ctx, name, op, x, &p);
}
TT_API tt_tensor *tt_max_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool(ctx, "tt_max_pool2d", TT__OP_MAX_POOL, x, 4, kernel, stride, padding);
}
TT_API tt_tensor *tt_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool(ctx, "tt_avg_pool2d", TT__OP_AVG_POOL, x, 4, kernel, stride, padding);
}
TT_API tt_tensor *tt_max_pool1d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool(ctx, "tt_max_pool1d", TT__OP_MAX_POOL, x, 3, kernel, stride, padding);
}
TT_API tt_tensor *tt_avg_pool1d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool(ctx, "tt_avg_pool1d", TT__OP_AVG_POOL, x, 3, kernel, stride, padding);
}
TT_API tt_tensor *tt_max_pool_ex(tt_ctx *ctx, tt_tensor *x, const tt_pool_params *p) {
    return tt__pool_ex(ctx, "tt_max_pool_ex", TT__OP_MAX_POOL, x, p);
}
TT_API tt_tensor *tt_avg_pool_ex(tt_ctx *ctx, tt_tensor *x, const tt_pool_params *p) {
    return tt__pool_ex(ctx, "tt_avg_pool_ex", TT__OP_AVG_POOL, x, p);
}

/* ADAPTIVE_AVG_POOL2D / UPSAMPLE_*: a.i = {out_h, out_w, align_corners}, a.f = the scale
   factors {h, w} a tt_upsample_*_scale call gave (0: none; positions then come from the
   sizes). */
/* A resize's scale factor: unused (<= 0, or NaN), or one whose source step 1/scale is finite. */
static bool tt__scale_usable(float s) { return !(s > 0.0f) || (s <= FLT_MAX && 1.0 / (double)s <= (double)FLT_MAX); }

static bool tt__infer_resize(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t oh = c->a.i[0], ow = c->a.i[1];
    if (x->ndim != 4) { tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected [N,C,H,W]", c->name, x); return false; }
    if (oh < 1 || ow < 1 || x->shape[2] < 1 || x->shape[3] < 1) {
        tt__fail(ctx, TT_ERR_ARG, "%s: out_h is %D and out_w %D for x %S: expected sizes >= 1 and a non-empty x",
                 c->name, oh, ow, x);
        return false;
    }
    if (!tt__scale_usable(c->a.f[0]) || !tt__scale_usable(c->a.f[1])) {   /* only a graph file can hold these */
        tt__fail(ctx, TT_ERR_ARG, "%s: scale factors %g and %g: expected finite with a finite reciprocal, or <= 0 (unused)",
                 c->name, (double)c->a.f[0], (double)c->a.f[1]);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = 4;
    out->shape[0] = x->shape[0]; out->shape[1] = x->shape[1]; out->shape[2] = oh; out->shape[3] = ow;
    return tt__header_finish(ctx, c->name, "out_h and out_w", out);
}

/* PyTorch's source index step for an output index (compute_scales_value): 1/scale_factor
   when one was given, else in/out; in float, as PyTorch computes it for f32 tensors. */
TT__MATH float tt__resize_scale(int64_t in, int64_t out, float scale_factor) {
    return scale_factor > 0 ? (float)(1.0 / (double)scale_factor) : (float)in / (float)out;
}

/* PyTorch's nearest source index: copies when the sizes are equal, halves when doubled
   (kept in PyTorch for compatibility), else floor(o * step) clamped to the input. */
TT__MATH int64_t tt__nearest_source(int64_t o, int64_t in, int64_t out, float scale_factor) {
    if (scale_factor <= 0) return o * in / out;        /* by size: the exact floor(o*in/out) */
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    return tt__min64((int64_t)floorf((float)o * tt__resize_scale(in, out, scale_factor)), in - 1);
}

/* Bilinear taps along one axis: source indices i0 <= i1 and the weight of i1
   (area_pixel_compute_source_index, then clamped as PyTorch's CPU kernel does; an axis
   whose size does not change is copied, as there). */
TT__MATH void tt__linear_source(int64_t o, int64_t in, int64_t out, float scale_factor, bool align, int64_t *i0,
                                int64_t *i1, float *w1) {
    float step = align ? (out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f) : tt__resize_scale(in, out, scale_factor);
    float src = align ? step * (float)o : step * ((float)o + 0.5f) - 0.5f;
    float frac;
    if (out == in) src = (float)o;                     /* PyTorch copies an axis that keeps its size */
    if (src < 0) src = 0;
    *i0 = tt__min64((int64_t)src, in - 1);
    frac = src - (float)*i0;
    *w1 = frac < 0 ? 0.0f : frac > 1 ? 1.0f : frac;
    *i1 = *i0 + (*i0 < in - 1 ? 1 : 0);
}

typedef struct tt__resize_job {
    const float *x;
    float       *y;
    int64_t      H, W, OH, OW;
    float        scale[2];
    bool         align;
    int          op;
} tt__resize_job;

/* One output cell of adaptive average pooling: the mean of its source rectangle. */
static float tt__adaptive_cell(const float *src, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t oh, int64_t ow) {
    int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH, w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW, i, k;
    tt__acc s = tt__acc_zero();
    for (i = h0; i < h1; i++)
        for (k = w0; k < w1; k++) tt__acc_add(&s, src[i * W + k]);
    return tt__acc_mean(&s, (h1 - h0) * (w1 - w0));
}

/* One output cell of bilinear resizing: rows blended from columns blended, in float. */
static float tt__bilinear_cell(const tt__resize_job *j, const float *src, int64_t oh, int64_t ow) {
    int64_t h0, h1, w0, w1;
    float lh, lw, top, bottom;
    tt__linear_source(oh, j->H, j->OH, j->scale[0], j->align, &h0, &h1, &lh);
    tt__linear_source(ow, j->W, j->OW, j->scale[1], j->align, &w0, &w1, &lw);
    top = src[h0 * j->W + w0] * (1.0f - lw) + src[h0 * j->W + w1] * lw;
    bottom = src[h1 * j->W + w0] * (1.0f - lw) + src[h1 * j->W + w1] * lw;
    return top * (1.0f - lh) + bottom * lh;
}

static void tt__resize_plane(const void *arg, int64_t plane) {
    const tt__resize_job *j = (const tt__resize_job *)arg;
    const float *src = j->x + plane * j->H * j->W;
    float *dst = j->y + plane * j->OH * j->OW;
    int64_t oh, ow;
    for (oh = 0; oh < j->OH; oh++) {
        int64_t sh = tt__nearest_source(oh, j->H, j->OH, j->scale[0]);
        for (ow = 0; ow < j->OW; ow++) {
            float *d = dst + oh * j->OW + ow;
            if (j->op == TT__OP_UPSAMPLE_NEAREST) *d = src[sh * j->W + tt__nearest_source(ow, j->W, j->OW, j->scale[1])];
            else if (j->op == TT__OP_UPSAMPLE_BILINEAR) *d = tt__bilinear_cell(j, src, oh, ow);
            else *d = tt__adaptive_cell(src, j->H, j->W, j->OH, j->OW, oh, ow);
        }
    }
}

static bool tt__exec_resize(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt__resize_job j;
    tt_tensor *xc = tt__contiguous_f32(ctx, c->name, c->in[0]);
    if (!xc) return false;
    j.x = (const float *)tt__ptr(xc); j.y = (float *)tt__ptr(out);
    j.H = c->in[0]->shape[2]; j.W = c->in[0]->shape[3]; j.OH = out->shape[2]; j.OW = out->shape[3];
    j.scale[0] = c->a.f[0];
    j.scale[1] = c->a.f[1];
    j.align = c->a.i[2] != 0;
    j.op = c->op;
    tt__for_planes(ctx, tt__resize_plane, &j, out->shape[0] * out->shape[1], tt__max64(j.H * j.W, j.OH * j.OW));
    return true;
}

/* Output size floor(in * scale) for a scale factor, or -1 (with an error) when the factor
   is not a positive finite number or the size is not in [1, 2^59]. */
static int64_t tt__scaled_size(tt_ctx *ctx, const char *name, const char *arg, int64_t in, float scale) {
    double size = floor((double)in * (double)scale);
    if (!(scale > 0) || scale > FLT_MAX || !(size >= 1) || size > (double)TT__MAX_NUMEL) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %s is %g for an axis of %D: expected a positive finite factor giving an output "
                 "size >= 1", name, arg, (double)scale, in);
        return -1;
    }
    return (int64_t)size;
}

static tt_tensor *tt__resize(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, int64_t oh, int64_t ow,
                             float scale_h, float scale_w, bool align_corners) {
    tt__attrs a = tt__attrs_ints(oh, ow, align_corners, 0);
    a.f[0] = scale_h;
    a.f[1] = scale_w;
    return tt__op1(ctx, name, op, x, &a);
}

/* The scale-factor forms: sizes from the factors, positions from the factors. */
static tt_tensor *tt__resize_scale_op(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *x, float scale_h,
                                      float scale_w, bool align_corners) {
    int64_t oh, ow;
    if (!ctx || !x) return NULL;
    if (x->ndim != 4) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected [N,C,H,W]", name, x);
    oh = tt__scaled_size(ctx, name, "scale_h", x->shape[2], scale_h);
    ow = oh < 0 ? -1 : tt__scaled_size(ctx, name, "scale_w", x->shape[3], scale_w);
    if (ow < 0) return NULL;
    return tt__resize(ctx, name, op, x, oh, ow, scale_h, scale_w, align_corners);
}

TT_API tt_tensor *tt_adaptive_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w) {
    return tt__resize(ctx, "tt_adaptive_avg_pool2d", TT__OP_ADAPTIVE_AVG_POOL2D, x, out_h, out_w, 0, 0, false);
}
TT_API tt_tensor *tt_upsample_nearest(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w) {
    return tt__resize(ctx, "tt_upsample_nearest", TT__OP_UPSAMPLE_NEAREST, x, out_h, out_w, 0, 0, false);
}
TT_API tt_tensor *tt_upsample_nearest_scale(tt_ctx *ctx, tt_tensor *x, float scale_h, float scale_w) {
    return tt__resize_scale_op(ctx, "tt_upsample_nearest_scale", TT__OP_UPSAMPLE_NEAREST, x, scale_h, scale_w, false);
}
TT_API tt_tensor *tt_upsample_bilinear(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w, bool align_corners) {
    return tt__resize(ctx, "tt_upsample_bilinear", TT__OP_UPSAMPLE_BILINEAR, x, out_h, out_w, 0, 0, align_corners);
}
TT_API tt_tensor *tt_upsample_bilinear_scale(tt_ctx *ctx, tt_tensor *x, float scale_h, float scale_w, bool align_corners) {
    return tt__resize_scale_op(ctx, "tt_upsample_bilinear_scale", TT__OP_UPSAMPLE_BILINEAR, x, scale_h, scale_w,
                               align_corners);
}

/* ==========================================================================
 * >>shape   concat, stack, split, pad, gather, index_select, embedding, tile, ...
 *
 * Most of these are a view plus a copy: concat copies each input into a slice of the
 * output, pad copies x into the middle of a filled tensor, tile and repeat_interleave
 * copy a view with a stride-0 axis, flip copies a view with negative strides. Index ops
 * check every index before they write anything. The views here are headers on the C
 * stack (tt__view_on), so these kernels allocate nothing.
 * ========================================================================== */

/* dst = the slice [start, start+len) of x along axis a (a stack header). */
static void tt__slice_on(tt_tensor *x, int a, int64_t start, int64_t len, tt_tensor *dst) {
    *dst = *x;
    dst->shape[a] = len;
    if (len > 0) dst->offset += start * x->stride[a];
    tt__update_numel(dst);
}

/* CONCAT / STACK: in = the n tensors, a.i[0] = axis. */
static bool tt__infer_concat(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x0 = c->in[0];
    bool stack = c->op == TT__OP_STACK;
    int nd = x0->ndim + (stack ? 1 : 0), a = tt__axis((int)c->a.i[0], nd), i, d;
    if (nd > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: xs[0] %S has TT_MAX_DIMS dims already: stacking adds one", c->name, x0);
        return false;
    }
    if (a < 0) {
        tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for %s xs[0] %S", c->name, (int)c->a.i[0],
                 stack ? "stacking" : "concatenating", x0);
        return false;
    }
    for (i = 1; i < c->n_in; i++) {
        const tt_tensor *x = c->in[i];
        bool ok = x->ndim == x0->ndim;
        for (d = 0; ok && d < x0->ndim; d++) ok = (!stack && d == a) || x->shape[d] == x0->shape[d];
        if (!ok) {
            tt__fail(ctx, TT_ERR_SHAPE, stack ? "%s: xs[%d] has shape %S, xs[0] has %S: all must match"
                                              : "%s: xs[%d] has shape %S, xs[0] has %S: all sizes but axis %d must match",
                     c->name, i, x, x0, a);
            return false;
        }
        if (x->dtype != x0->dtype) {
            tt__fail(ctx, TT_ERR_DTYPE, "%s: xs[%d] is %T, xs[0] is %T", c->name, i, (int)x->dtype, (int)x0->dtype);
            return false;
        }
    }
    out->dtype = x0->dtype;
    out->ndim = nd;
    for (d = 0; d < nd; d++) out->shape[d] = stack ? (d < a ? x0->shape[d] : d == a ? c->n_in : x0->shape[d - 1]) : x0->shape[d];
    if (!stack) for (i = 1; i < c->n_in; i++) out->shape[a] += c->in[i]->shape[a];
    return tt__header_finish(ctx, c->name, "xs", out);
}

static bool tt__exec_concat(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    bool stack = c->op == TT__OP_STACK;
    int a = tt__axis((int)c->a.i[0], out->ndim), i;
    int64_t off = 0;
    (void)ctx;
    for (i = 0; i < c->n_in; i++) {
        tt_tensor dst, src = *c->in[i];
        if (stack) {                                   /* src viewed with a size-1 axis at a */
            int d;
            for (d = src.ndim; d > a; d--) { src.shape[d] = src.shape[d - 1]; src.stride[d] = src.stride[d - 1]; }
            src.shape[a] = 1;
            src.stride[a] = 0;
            src.ndim++;
        }
        tt__slice_on(out, a, off, src.shape[a], &dst);
        tt__copy_into(&dst, &src);
        off += src.shape[a];
    }
    return true;
}

static tt_tensor *tt__concat_op(tt_ctx *ctx, const char *name, tt__opcode op, tt_tensor *const *xs, int n, int axis) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    if (!ctx) return NULL;
    if (!tt__check_array(ctx, name, xs, "xs", n, "n", 1, INT32_MAX)) return NULL;
    return tt__op(ctx, name, op, xs, n, &a);
}
TT_API tt_tensor *tt_concat(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis) {
    return tt__concat_op(ctx, "tt_concat", TT__OP_CONCAT, xs, n, axis);
}
TT_API tt_tensor *tt_stack(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis) {
    return tt__concat_op(ctx, "tt_stack", TT__OP_STACK, xs, n, axis);
}

/* Pieces of split_size along axis as recorded slices; fn names the public function. */
static int tt__split_pieces(tt_ctx *ctx, const char *fn, tt_tensor *x, int64_t split_size, int a, tt_tensor **out, int max_out) {
    int64_t size = x->shape[a];
    int count, i;
    if (max_out < 0 || (max_out > 0 && !out)) {
        tt__fail(ctx, TT_ERR_ARG, "%s: out is %s and max_out is %d, expected max_out >= 0 entries of out", fn,
                 out ? "given" : "NULL", max_out);
        return -1;
    }
    if (size > 0 && (size - 1) / split_size + 1 > INT32_MAX) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %D pieces of %D do not fit an int", fn, (size - 1) / split_size + 1, split_size);
        return -1;
    }
    count = size == 0 ? 1 : (int)((size - 1) / split_size + 1);
    for (i = 0; i < count && i < max_out; i++) {
        int64_t start = (int64_t)i * split_size;
        tt__attrs at = tt__attrs_ints(a, start, start + tt__min64(split_size, size - start), 1);
        out[i] = tt__op1(ctx, fn, TT__OP_SLICE, x, &at);
        if (!out[i]) return -1;
    }
    return count;
}

TT_API int tt_split(tt_ctx *ctx, tt_tensor *x, int64_t split_size, int axis, tt_tensor **out, int max_out) {
    int a;
    if (!ctx || !x) return -1;
    a = tt__axis(axis, x->ndim);
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "tt_split: axis %d is out of range for shape %S", axis, x); return -1; }
    if (split_size < 1) { tt__fail(ctx, TT_ERR_ARG, "tt_split: split_size is %D, expected >= 1", split_size); return -1; }
    return tt__split_pieces(ctx, "tt_split", x, split_size, a, out, max_out);
}

TT_API int tt_chunk(tt_ctx *ctx, tt_tensor *x, int chunks, int axis, tt_tensor **out, int max_out) {
    int a;
    int64_t size;
    if (!ctx || !x) return -1;
    a = tt__axis(axis, x->ndim);
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "tt_chunk: axis %d is out of range for shape %S", axis, x); return -1; }
    if (chunks < 1) { tt__fail(ctx, TT_ERR_ARG, "tt_chunk: chunks is %d, expected >= 1", chunks); return -1; }
    size = x->shape[a];
    return tt__split_pieces(ctx, "tt_chunk", x, size == 0 ? 1 : (size - 1) / chunks + 1, a, out, max_out);
}

/* PAD: a.i[0] = n_pads, a.i[1..] = pads, a.i[TT__PAD_MODE] = tt_pad_mode, a.f[0] = value. */
#define TT__PAD_MODE (1 + 2 * TT_MAX_DIMS)

/* Why pad p (before or after) cannot pad an axis of size n in this mode, or NULL. */
static const char *tt__pad_mode_problem(int mode, int64_t p, int64_t n) {
    if (p == 0) return NULL;
    if (mode == TT_PAD_REFLECT && p >= n) return "expected less than the axis size (reflect)";
    if (mode == TT_PAD_CIRCULAR && p > n) return "expected at most the axis size (circular)";
    if (mode == TT_PAD_REPLICATE && n == 0) return "expected a non-empty axis (replicate)";
    return NULL;
}

static bool tt__infer_pad(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int n_pads = (int)c->a.i[0], mode = (int)c->a.i[TT__PAD_MODE], i, d;
    if (n_pads < 0 || n_pads % 2 != 0 || n_pads > 2 * x->ndim) {
        tt__fail(ctx, TT_ERR_ARG, "%s: n_pads is %d for shape %S: expected an even number <= %d", c->name, n_pads, x,
                 2 * x->ndim);
        return false;
    }
    if (mode < TT_PAD_CONSTANT || mode > TT_PAD_CIRCULAR) {
        tt__fail(ctx, TT_ERR_ARG, "%s: mode is %d, expected a tt_pad_mode", c->name, mode);
        return false;
    }
    out->dtype = x->dtype;
    out->ndim = x->ndim;
    for (d = 0; d < x->ndim; d++) out->shape[d] = x->shape[d];
    for (i = 0; i < n_pads; i++) {
        const char *problem = tt__pad_mode_problem(mode, c->a.i[1 + i], x->shape[x->ndim - 1 - i / 2]);
        if (c->a.i[1 + i] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: pads[%d] is %D, expected >= 0", c->name, i, c->a.i[1 + i]);
            return false;
        }
        if (problem) {
            tt__fail(ctx, TT_ERR_ARG, "%s: pads[%d] is %D for axis %d of %S: %s", c->name, i, c->a.i[1 + i],
                     x->ndim - 1 - i / 2, x, problem);
            return false;
        }
        out->shape[x->ndim - 1 - i / 2] = tt__add_checked(out->shape[x->ndim - 1 - i / 2], c->a.i[1 + i]);
        if (out->shape[x->ndim - 1 - i / 2] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: pads[%d] = %D: size of axis %d of %S plus its pads overflows",
                     c->name, i, c->a.i[1 + i], x->ndim - 1 - i / 2, x);
            return false;
        }
    }
    return tt__header_finish(ctx, c->name, "pads", out);
}

/* The index of x that output index o of a padded axis reads (before: the pad in front, n:
   the axis size): REFLECT mirrors about the edges without repeating them (pads < n: one
   bounce), REPLICATE repeats the edge, CIRCULAR wraps (pads <= n). */
TT__MATH int64_t tt__pad_source(int64_t o, int64_t before, int64_t n, int mode) {
    int64_t i = o - before;
    if (i >= 0 && i < n) return i;
    if (mode == TT_PAD_REPLICATE) return i < 0 ? 0 : n - 1;
    if (mode == TT_PAD_CIRCULAR) return (i % n + n) % n;
    return i < 0 ? -i : 2 * (n - 1) - i;
}

/* Reflect, replicate and circular padding: every output element copies the element of x
   its index maps to (out is contiguous; any dtype). */
static void tt__pad_gather(const tt__call *c, const tt_tensor *x, tt_tensor *out) {
    int64_t before[TT_MAX_DIMS], idx[TT_MAX_DIMS], e;
    size_t es = tt_dtype_size(x->dtype);
    int mode = (int)c->a.i[TT__PAD_MODE], d, i;
    for (d = 0; d < x->ndim; d++) { before[d] = 0; idx[d] = 0; }
    for (i = 0; i < (int)c->a.i[0]; i += 2) before[x->ndim - 1 - i / 2] = c->a.i[1 + i];
    for (e = 0; e < out->numel; e++) {
        int64_t off = x->offset;
        for (d = 0; d < x->ndim; d++) off += tt__pad_source(idx[d], before[d], x->shape[d], mode) * x->stride[d];
        memcpy((char *)out->data + (size_t)(out->offset + e) * es, (const char *)x->data + (size_t)off * es, es);
        for (d = x->ndim - 1; d >= 0 && ++idx[d] == out->shape[d]; d--) idx[d] = 0;
    }
}

static bool tt__exec_pad(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0], mid = *out;
    int i;
    int64_t e;
    (void)ctx;
    if (c->a.i[TT__PAD_MODE] != TT_PAD_CONSTANT) {
        tt__pad_gather(c, x, out);
        return true;
    }
    for (e = 0; e < out->numel; e++) tt__store(out->data, out->dtype, out->offset + e, (double)c->a.f[0]);
    for (i = 0; i < (int)c->a.i[0]; i += 2) {          /* the middle of out, where x goes */
        int ax = x->ndim - 1 - i / 2;
        tt_tensor next;
        tt__slice_on(&mid, ax, c->a.i[1 + i], x->shape[ax], &next);
        mid = next;
    }
    tt__copy_into(&mid, x);
    return true;
}

static tt_tensor *tt__pad(tt_ctx *ctx, const char *name, tt_tensor *x, const int64_t *pads, int n_pads,
                          tt_pad_mode mode, float value) {
    tt__attrs a = tt__attrs_zero();
    int i;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, name, pads, "pads", n_pads, "n_pads", 0, 2 * TT_MAX_DIMS)) return NULL;
    if ((unsigned)mode > (unsigned)TT_PAD_CIRCULAR)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: mode is %d, expected a tt_pad_mode", name, (int)mode);
    a.i[0] = n_pads;
    for (i = 0; i < n_pads; i++) a.i[1 + i] = pads[i];
    a.i[TT__PAD_MODE] = mode;
    a.f[0] = mode == TT_PAD_CONSTANT ? value : 0.0f;   /* equal calls compare equal (CSE) */
    return tt__op1(ctx, name, TT__OP_PAD, x, &a);
}

TT_API tt_tensor *tt_pad(tt_ctx *ctx, tt_tensor *x, const int64_t *pads, int n_pads, float value) {
    return tt__pad(ctx, "tt_pad", x, pads, n_pads, TT_PAD_CONSTANT, value);
}

TT_API tt_tensor *tt_pad_ex(tt_ctx *ctx, tt_tensor *x, const int64_t *pads, int n_pads, tt_pad_mode mode, float value) {
    return tt__pad(ctx, "tt_pad_ex", x, pads, n_pads, mode, value);
}

/* Every element of the i32 tensor index is in [0, limit); an error naming op otherwise. */
static bool tt__check_indices(tt_ctx *ctx, const char *op, const char *arg, const tt_tensor *index, int64_t limit) {
    int64_t i;
    for (i = 0; i < index->numel; i++) {
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, i)];
        if (v < 0 || v >= limit) {
            tt__fail(ctx, TT_ERR_INDEX, "%s: %s holds %d (element %D of %S), out of range [0,%D)",
                     op, arg, (int)v, i, index, limit);
            return false;
        }
    }
    return true;
}

static bool tt__check_index_dtype(tt_ctx *ctx, const char *op, const char *arg, const tt_tensor *index) {
    if (index->dtype == TT_I32) return true;
    tt__fail(ctx, TT_ERR_DTYPE, "%s: %s has dtype %T, expected i32 (tt_from_int64 makes one)", op, arg, (int)index->dtype);
    return false;
}

/* Copies element at storage offset sofs of src to element dofs of dst (same dtype). */
static void tt__copy_elem(void *dst, int64_t dofs, const void *src, int64_t sofs, size_t es) {
    memcpy((char *)dst + dofs * (int64_t)es, (const char *)src + sofs * (int64_t)es, es);
}

/* GATHER: in = {x, index}, a.i[0] = axis. */
static bool tt__infer_gather(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *index = c->in[1];
    int a = tt__axis((int)c->a.i[0], x->ndim), d;
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[0], x); return false; }
    if (!tt__check_index_dtype(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", index)) return false;
    if (index->ndim != x->ndim) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: index %S must have as many axes as x %S", c->name, index, x);
        return false;
    }
    for (d = 0; d < x->ndim; d++)
        if (d != a && index->shape[d] > x->shape[d]) {
            tt__fail(ctx, TT_ERR_SHAPE, "%s: index %S is larger than x %S on axis %d", c->name, index, x, d);
            return false;
        }
    tt__infer_like(out, index, x->dtype);
    return true;
}

static bool tt__exec_gather(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *index = c->in[1];
    int a = tt__axis((int)c->a.i[0], x->ndim), d;
    size_t es = tt_dtype_size(x->dtype);
    int64_t i;
    if (!tt__check_indices(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", index, x->shape[a])) return false;
    for (i = 0; i < out->numel; i++) {                  /* out[i0..] = x[i0.., index[i0..], ..] */
        int64_t rest = i, src = x->offset;
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, i)];
        for (d = x->ndim - 1; d >= 0; d--) {
            int64_t id = rest % out->shape[d];
            rest /= out->shape[d];
            src += (d == a ? (int64_t)v : id) * x->stride[d];
        }
        tt__copy_elem(out->data, out->offset + i, x->data, src, es);
    }
    return true;
}

TT_API tt_tensor *tt_gather(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    tt_tensor *in[2];
    in[0] = x; in[1] = index;
    return tt__op(ctx, "tt_gather", TT__OP_GATHER, in, 2, &a);
}

/* INDEX_SELECT: in = {x, index (1-D)}, a.i[0] = axis. EMBEDDING: in = {weight [V,D], indices}. */
static bool tt__infer_index_select(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *index = c->in[1];
    int d;
    if (c->op == TT__OP_EMBEDDING) {
        if (x->ndim != 2) { tt__fail(ctx, TT_ERR_SHAPE, "%s: weight has shape %S, expected [V,D]", c->name, x); return false; }
        if (!tt__check_index_dtype(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", index)) return false;
        if (index->ndim >= TT_MAX_DIMS) {
            tt__fail(ctx, TT_ERR_ARG, "%s: indices %S: the result would have more than TT_MAX_DIMS dims", c->name, index);
            return false;
        }
        out->dtype = x->dtype;
        out->ndim = index->ndim + 1;
        for (d = 0; d < index->ndim; d++) out->shape[d] = index->shape[d];
        out->shape[index->ndim] = x->shape[1];
    } else {
        int a = tt__axis((int)c->a.i[0], x->ndim);
        if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[0], x); return false; }
        if (!tt__check_index_dtype(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", index)) return false;
        if (index->ndim != 1) { tt__fail(ctx, TT_ERR_SHAPE, "%s: index has shape %S, expected a 1-D tensor", c->name, index); return false; }
        out->dtype = x->dtype;
        out->ndim = x->ndim;
        for (d = 0; d < x->ndim; d++) out->shape[d] = d == a ? index->numel : x->shape[d];
    }
    return tt__header_finish(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", out);
}

static bool tt__exec_index_select(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *x = c->in[0], *index = c->in[1], dst_all = *out;
    int a = c->op == TT__OP_EMBEDDING ? 0 : tt__axis((int)c->a.i[0], x->ndim);
    int64_t k;
    if (a < 0) return false;                           /* infer checked it */
    if (!tt__check_indices(ctx, c->name, c->op == TT__OP_EMBEDDING ? "indices" : "index", index, x->shape[a])) return false;
    if (c->op == TT__OP_EMBEDDING) {                   /* out seen as [n, D] rows */
        dst_all.ndim = 2;
        dst_all.shape[0] = index->numel;
        dst_all.shape[1] = x->shape[1];
        tt__set_contiguous_strides(&dst_all);
        tt__update_numel(&dst_all);
    }
    for (k = 0; k < index->numel; k++) {               /* out[.., k, ..] = x[.., index[k], ..] */
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, k)];
        tt_tensor dst, src;
        tt__slice_on(&dst_all, a, k, 1, &dst);
        tt__slice_on(x, a, v, 1, &src);
        tt__copy_into(&dst, &src);
    }
    return true;
}

TT_API tt_tensor *tt_index_select(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index) {
    tt__attrs a = tt__attrs_ints(axis, 0, 0, 0);
    tt_tensor *in[2];
    in[0] = x; in[1] = index;
    return tt__op(ctx, "tt_index_select", TT__OP_INDEX_SELECT, in, 2, &a);
}

TT_API tt_tensor *tt_embedding(tt_ctx *ctx, tt_tensor *weight, tt_tensor *indices) {
    tt__attrs a = tt__attrs_zero();
    tt_tensor *in[2];
    in[0] = weight; in[1] = indices;
    return tt__op(ctx, "tt_embedding", TT__OP_EMBEDDING, in, 2, &a);
}

/* Copies a (possibly zero- or negative-strided) view of x into out, a contiguous tensor
   whose elements are the view's in order (the view has vdims axes). */
static void tt__copy_view(tt_tensor *out, const tt_tensor *x, int vdims, const int64_t *vshape,
                          const int64_t *vstride, int64_t voffset) {
    tt_tensor src, dst;
    int d;
    src = *x;
    src.ndim = vdims;
    src.offset = voffset;
    for (d = 0; d < vdims; d++) { src.shape[d] = vshape[d]; src.stride[d] = vstride[d]; }
    dst = src;                                         /* same shape, contiguous, in out */
    dst.data = out->data;
    dst.offset = out->offset;
    tt__set_contiguous_strides(&dst);
    tt__copy_into(&dst, &src);
}

/* Fills dst (contiguous; x's shape with axis a times r) from contiguous x repeated r times
   along a: each element r times (interleave) or the whole axis r times (tile). Seen as
   [P, s, Q] around the axis, x needs only a 4-axis view with one stride-0 axis. */
static void tt__repeat_into(tt_tensor *dst, const tt_tensor *x, int a, int64_t r, bool interleave) {
    int64_t P = 1, Q = 1, s = x->shape[a], shape[4], stride[4];
    int d;
    for (d = 0; d < a; d++) P *= x->shape[d];
    for (d = a + 1; d < x->ndim; d++) Q *= x->shape[d];
    shape[0] = P; stride[0] = s * Q;
    shape[3] = Q; stride[3] = 1;
    if (interleave) { shape[1] = s; stride[1] = Q; shape[2] = r; stride[2] = 0; }
    else            { shape[1] = r; stride[1] = 0; shape[2] = s; stride[2] = Q; }
    tt__copy_view(dst, x, 4, shape, stride, x->offset);
}

/* The repetition count of each output axis: REPEAT_INTERLEAVE a.i = {repeats, axis};
   TILE a.i = {n, reps...} aligned at the last axis. Fills out's shape; -1 on error. */
static int tt__repeat_plan(tt_ctx *ctx, const tt__call *c, int64_t *reps, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int D = x->ndim, d;
    int64_t total = 1;
    if (c->op == TT__OP_REPEAT_INTERLEAVE) {
        int a = tt__axis((int)c->a.i[1], x->ndim);
        if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", c->name, (int)c->a.i[1], x); return -1; }
        if (c->a.i[0] < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: repeats is %D, expected >= 0", c->name, c->a.i[0]); return -1; }
        for (d = 0; d < D; d++) reps[d] = d == a ? c->a.i[0] : 1;
    } else {
        int n = (int)c->a.i[0];
        if (n < 0 || n > TT_MAX_DIMS) { tt__fail(ctx, TT_ERR_ARG, "%s: %d reps, expected 0..%d", c->name, n, TT_MAX_DIMS); return -1; }
        D = n > x->ndim ? n : x->ndim;
        for (d = 0; d < D; d++) {
            int rd = d - (D - n);
            reps[d] = rd >= 0 ? c->a.i[1 + rd] : 1;
            if (reps[d] < 0) { tt__fail(ctx, TT_ERR_ARG, "%s: reps[%d] is %D, expected >= 0", c->name, rd, reps[d]); return -1; }
        }
    }
    out->dtype = x->dtype;
    out->ndim = D;
    for (d = 0; d < D; d++) {
        int xd = d - (D - x->ndim);
        out->shape[d] = tt__mul_checked(xd >= 0 ? x->shape[xd] : 1, reps[d]);
        total = out->shape[d] < 0 ? -1 : tt__mul_checked(total, out->shape[d]);
        if (total < 0 || total > TT__MAX_NUMEL) {
            tt__fail(ctx, TT_ERR_ARG, "%s: size of the result overflows (more than 2^59 elements); it comes from %s",
                     c->name, c->op == TT__OP_TILE ? "reps" : "repeats");
            return -1;
        }
    }
    return D;
}

static bool tt__infer_repeat(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int64_t reps[TT_MAX_DIMS];
    if (tt__repeat_plan(ctx, c, reps, out) < 0) return false;
    return tt__header_finish(ctx, c->name, c->op == TT__OP_TILE ? "reps" : "repeats", out);
}

/* One axis at a time: each step repeats one axis of a contiguous tensor (the last step
   writes into out). */
static bool tt__exec_repeat(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int64_t reps[TT_MAX_DIMS];
    tt_tensor shape_only, *cur;
    int D = tt__repeat_plan(ctx, c, reps, &shape_only), d, last = -1;
    bool interleave = c->op == TT__OP_REPEAT_INTERLEAVE;
    tt_tensor *x = c->in[0];
    if (D < 0) return false;
    if (out->numel == 0) return true;                  /* a huge repeat of an empty axis: nothing to do */
    for (d = 0; d < D; d++) if (reps[d] != 1) last = d;
    cur = tt__copy_as(ctx, c->name, x, x->dtype);      /* contiguous, viewed with D axes */
    if (!cur) return false;
    cur->ndim = D;
    for (d = 0; d < D; d++) cur->shape[d] = d < D - x->ndim ? 1 : x->shape[d - (D - x->ndim)];
    tt__set_contiguous_strides(cur);
    for (d = 0; cur && d < D; d++) {
        tt_tensor *next;
        int64_t ns[TT_MAX_DIMS];
        int k;
        if (reps[d] == 1) continue;
        for (k = 0; k < D; k++) ns[k] = k <= d ? out->shape[k] : cur->shape[k];
        next = d == last ? out : tt__new(ctx, c->name, x->dtype, D, ns);
        if (next) tt__repeat_into(next, cur, d, reps[d], interleave);
        cur = next;
    }
    if (cur && last < 0) tt__copy_into(out, cur);
    return cur != NULL;
}

TT_API tt_tensor *tt_repeat_interleave(tt_ctx *ctx, tt_tensor *x, int64_t repeats, int axis) {
    tt__attrs a = tt__attrs_ints(repeats, axis, 0, 0);
    return tt__op1(ctx, "tt_repeat_interleave", TT__OP_REPEAT_INTERLEAVE, x, &a);
}

TT_API tt_tensor *tt_tile(tt_ctx *ctx, tt_tensor *x, const int64_t *reps, int n) {
    tt__attrs a = tt__attrs_zero();
    int i;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, "tt_tile", reps, "reps", n, "n", 0, TT_MAX_DIMS)) return NULL;
    a.i[0] = n;
    for (i = 0; i < n; i++) a.i[1 + i] = reps[i];
    return tt__op1(ctx, "tt_tile", TT__OP_TILE, x, &a);
}

/* FLIP: a.i[0] = n, a.i[1..] = axes. */
static bool tt__infer_flip(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int n = (int)c->a.i[0], i;
    int64_t seen = 0;
    if (n < 0 || n > x->ndim) { tt__fail(ctx, TT_ERR_ARG, "%s: %d axes for shape %S", c->name, n, x); return false; }
    for (i = 0; i < n; i++) {
        int a = tt__axis((int)c->a.i[1 + i], x->ndim);
        if (a < 0 || ((seen >> a) & 1)) {
            tt__fail(ctx, TT_ERR_ARG, "%s: axes[%d] = %d is out of range or repeated for shape %S", c->name, i,
                     (int)c->a.i[1 + i], x);
            return false;
        }
        seen |= (int64_t)1 << a;
    }
    tt__infer_like(out, x, x->dtype);
    return true;
}

static bool tt__exec_flip(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t stride[TT_MAX_DIMS], offset = x->offset, flip = 0;
    int i, d;
    (void)ctx;
    for (i = 0; i < (int)c->a.i[0]; i++) flip |= (int64_t)1 << tt__axis((int)c->a.i[1 + i], x->ndim);
    for (d = 0; d < x->ndim; d++) {                    /* walk flipped axes backwards: negative stride */
        bool f = (flip >> d) & 1;
        stride[d] = f ? -x->stride[d] : x->stride[d];
        if (f && x->shape[d] > 0) offset += (x->shape[d] - 1) * x->stride[d];
    }
    tt__copy_view(out, x, x->ndim, x->shape, stride, offset);
    return true;
}

TT_API tt_tensor *tt_flip(tt_ctx *ctx, tt_tensor *x, const int *axes, int n) {
    tt__attrs a = tt__attrs_zero();
    int i;
    if (!ctx || !x) return NULL;
    if (!tt__check_array(ctx, "tt_flip", axes, "axes", n, "n", 0, x->ndim)) return NULL;
    a.i[0] = n;
    for (i = 0; i < n; i++) a.i[1 + i] = axes[i];
    return tt__op1(ctx, "tt_flip", TT__OP_FLIP, x, &a);
}

static bool tt__infer_shape_as_tensor(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int d;
    for (d = 0; d < c->in[0]->ndim; d++)
        if (c->in[0]->shape[d] > INT32_MAX) {
            tt__fail(ctx, TT_ERR_UNSUPPORTED, "%s: size %D of %S does not fit i32", c->name, c->in[0]->shape[d], c->in[0]);
            return false;
        }
    out->dtype = TT_I32;
    out->ndim = 1;
    out->shape[0] = c->in[0]->ndim;
    return tt__header_finish(ctx, c->name, "x", out);
}

static bool tt__exec_shape_as_tensor(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    int d;
    (void)ctx;
    for (d = 0; d < c->in[0]->ndim; d++) ((int32_t *)tt__ptr(out))[d] = (int32_t)c->in[0]->shape[d];
    return true;
}

TT_API tt_tensor *tt_shape_as_tensor(tt_ctx *ctx, tt_tensor *x) {
    tt__attrs a = tt__attrs_zero();
    return tt__op1(ctx, "tt_shape_as_tensor", TT__OP_SHAPE_AS_TENSOR, x, &a);
}

/* ==========================================================================
 * >>attention   scaled dot-product attention
 *
 * Flash-style: a task takes TT__ATT_BQ query rows of one batch entry and walks the keys
 * in blocks of TT__ATT_BK. Per block it computes that tile of scores (q·kᵀ·scale, then
 * the causal rule and the mask), and folds it into a running softmax: the row maximum m,
 * the sum l of exp(score - m) and the output accumulator acc, rescaled by exp(m_old -
 * m_new) whenever the maximum grows. So no more than one tile of the [L,S] score matrix
 * ever exists, and the result is acc / l. A row whose every score is masked gives NaN,
 * as PyTorch. Tasks depend only on the shapes: results do not depend on the thread count.
 * in = {q, k, v, mask?}, a.i[0] = causal, a.f[0] = scale.
 * ========================================================================== */
static bool tt__infer_sdpa(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    const tt_tensor *q = c->in[0], *k = c->in[1], *v = c->in[2], *mask = c->in[3];
    int64_t bs[TT_MAX_DIMS], L, S;
    int nb, d;
    if (c->a.f[0] != c->a.f[0] || c->a.f[0] > FLT_MAX) {
        tt__fail(ctx, TT_ERR_ARG, "%s: scale is %g, expected a finite number (<= 0: 1/sqrt(E))", c->name, (double)c->a.f[0]);
        return false;
    }
    if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: q %S, k %S, v %S: expected at least 2 axes each", c->name, q, k, v);
        return false;
    }
    L = q->shape[q->ndim - 2]; S = k->shape[k->ndim - 2];
    if (k->shape[k->ndim - 1] != q->shape[q->ndim - 1]) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: q %S and k %S differ in the last axis", c->name, q, k);
        return false;
    }
    if (v->shape[v->ndim - 2] != S) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: k %S and v %S differ in sequence length (axis -2)", c->name, k, v);
        return false;
    }
    if (!tt__broadcast_shape(q->ndim - 2, q->shape, k->ndim - 2, k->shape, &nb, bs) ||
        !tt__broadcast_shape(nb, bs, v->ndim - 2, v->shape, &nb, bs) || nb + 2 > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: batch axes of q %S, k %S, v %S do not broadcast", c->name, q, k, v);
        return false;
    }
    out->dtype = TT_F32;
    out->ndim = nb + 2;
    for (d = 0; d < nb; d++) out->shape[d] = bs[d];
    out->shape[nb] = L;
    out->shape[nb + 1] = S;                            /* the scores' shape, for the mask check */
    if (mask) {
        int mn;
        int64_t ms[TT_MAX_DIMS];
        if (mask->dtype == TT_I32) {
            tt__fail(ctx, TT_ERR_DTYPE, "%s: mask has dtype i32, expected bool or a float type", c->name);
            return false;
        }
        if (!tt__broadcast_shape(mask->ndim, mask->shape, out->ndim, out->shape, &mn, ms) || mn != out->ndim ||
            memcmp(ms, out->shape, sizeof(int64_t) * (size_t)mn) != 0) {
            tt__fail(ctx, TT_ERR_SHAPE, "%s: mask %S does not broadcast to the scores [...,%D,%D]", c->name, mask, L, S);
            return false;
        }
    }
    out->shape[nb + 1] = v->shape[v->ndim - 1];
    return tt__header_finish(ctx, c->name, "q, k and v", out);
}

#define TT__ATT_BQ 48               /* query rows per task (a multiple of every NR); keys per
                                       score tile: 16 A slivers of the micro-kernel (MR * 16) */

typedef struct tt__att_job {
    const float *q, *k, *v, *mask;          /* f32 data, rows strided, features contiguous */
    float       *y, *scratch;
    int64_t      L, S, E, Ev, Evr, n_qblocks, scratch_floats, n_batch;   /* Evr: Ev rounded up to MR */
    int64_t      bk;                        /* keys per score tile */
    const tt__kernels *kt;                  /* the micro-kernel and its tile */
    int          nb;                        /* batch axes of the output */
    int64_t      batch[TT_MAX_DIMS];
    int64_t      qs[TT_MAX_DIMS], ks[TT_MAX_DIMS], vs[TT_MAX_DIMS], ms[TT_MAX_DIMS];  /* strides on the output's axes */
    bool         causal, mask_bool;
    float        scale;
} tt__att_job;

/* One thread's scratch. The tile is kept transposed, keys down and queries across, so that
   the softmax of a query is a column (vectorized across queries), the score tile is already
   the packed B operand of weights·v, and v packs as the A operand with plain copies:
   qp: qᵀ·scale (E x BQ, as NR-column slivers), kp: k rows (BK x E, MR-row slivers),
   sc: scores then weights (BK x BQ, as NR-column slivers of BK rows), vp: vᵀ (Evr x BK,
   MR-row slivers), acc: the output transposed (Evr x BQ), m and l per query. */
typedef struct tt__att_bufs { float *qp, *kp, *sc, *vp, *acc, *m, *l; } tt__att_bufs;

static int64_t tt__att_scratch_floats(int64_t E, int64_t Evr, int64_t bk) {
    return TT__ATT_BQ * E + bk * E + TT__ATT_BQ * bk + Evr * bk + Evr * TT__ATT_BQ + 2 * TT__ATT_BQ;
}

static tt__att_bufs tt__att_bufs_of(const tt__att_job *j, int thread) {
    tt__att_bufs b;
    b.qp = j->scratch + (size_t)thread * (size_t)j->scratch_floats;
    b.kp = b.qp + TT__ATT_BQ * j->E;
    b.sc = b.kp + j->bk * j->E;
    b.vp = b.sc + TT__ATT_BQ * j->bk;
    b.acc = b.vp + j->Evr * j->bk;
    b.m = b.acc + j->Evr * TT__ATT_BQ;
    b.l = b.m + TT__ATT_BQ;
    return b;
}

/* t's strides seen on nd right-aligned axes: 0 where t lacks the axis or broadcasts it. */
static void tt__aligned_strides(const tt_tensor *t, int nd, int64_t *st) {
    int d;
    for (d = 0; d < nd; d++) {
        int td = d - (nd - t->ndim);
        st[d] = (td >= 0 && t->shape[td] != 1) ? t->stride[td] : 0;
    }
}

/* Offset of batch entry b (row-major over the output's batch axes) for strides st. */
static int64_t tt__batch_offset(const tt__att_job *j, const int64_t *st, int64_t b) {
    int64_t off = 0;
    int d;
    for (d = j->nb - 1; d >= 0; d--) { off += (b % j->batch[d]) * st[d]; b /= j->batch[d]; }
    return off;
}

/* C = (accumulate ? C : 0) + A·B on this thread with the SGEMM micro-kernel: m_slivers
   packed MR-row slivers of A (kc long) times n_slivers NR-column slivers of B (b_step
   floats apart); C's rows are ldc apart and its column slivers c_step apart. */
static void tt__att_gemm(const tt__kernels *kt, int64_t kc, const float *Ap, int64_t m_slivers, const float *Bp,
                         int64_t b_step, int64_t n_slivers, float *C, int64_t ldc, int64_t c_step, int accumulate) {
    int64_t ir, s, mr = kt->mr;
    for (s = 0; s < n_slivers; s++)
        for (ir = 0; ir < m_slivers; ir++)
            kt->ukernel(kc, Ap + ir * mr * kc, Bp + s * b_step, C + ir * mr * ldc + s * c_step, ldc, accumulate);
}

/* The causal rule and the mask on the transposed score tile (queries i0.. of which `rows`
   are real, keys j0..j0+cols). */
static void tt__att_mask(const tt__att_job *j, const float *mask, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *sc) {
    int64_t s, r, c, nr = j->kt->nr;
    if (!j->causal && !mask) return;
    if (!mask && j0 + cols - 1 <= i0) return;          /* causal, but every key is at or before every query */
    for (s = 0; s * nr < rows; s++)
        for (r = 0; r < cols; r++) {
            float *row = sc + s * j->bk * nr + r * nr;
            int64_t key = j0 + r, n = tt__min64(nr, rows - s * nr);
            for (c = 0; c < n; c++) {
                int64_t query = i0 + s * nr + c;
                if (j->causal && key > query) row[c] = -INFINITY;
                if (mask) {
                    float m = mask[query * j->ms[j->nb] + key * j->ms[j->nb + 1]];
                    row[c] = j->mask_bool ? (m != 0.0f ? row[c] : -INFINITY) : row[c] + m;
                }
            }
        }
}

/* Folds one score tile into the running softmax of each query (a column): new maximum,
   weights exp(score - max) in place, sum l, and the accumulator rescaled by exp(old max -
   new max). A query whose scores are all masked so far keeps m = -inf, l = 0, zero weights.
   The loops over a sliver's NR queries have a constant length: GCC vectorizes them. */
TT__INLINE void tt__att_softmax_step_body(const tt__att_job *j, int64_t n_slivers, int64_t cols, float *sc, tt__att_bufs *b) {
    int64_t s, r, e, c, nr = j->kt->nr;
    for (s = 0; s < n_slivers; s++) {
        float *p = sc + s * j->bk * nr, *m = b->m + s * nr, *l = b->l + s * nr;
        float mnew[TT__NR_MAX], shift[TT__NR_MAX], corr[TT__NR_MAX], sum[TT__NR_MAX];
        int64_t c0;
        for (c0 = 0; c0 < nr; c0 += 16) {          /* 16 queries at a time (NR is 16 or 48): */
            float mx[16], sm[16];                       /* one AVX-512 vector of running values */
            for (c = 0; c < 16; c++) mx[c] = m[c0 + c];
            for (r = 0; r < cols; r++)                 /* a NaN score is skipped here but reaches */
                for (c = 0; c < 16; c++) {             /* the output through its own exp */
                    float x = p[r * nr + c0 + c];
                    mx[c] = x > mx[c] ? x : mx[c];
                }
            for (c = 0; c < 16; c++) {                 /* shift 0 while all masked: exp(-inf) = 0 */
                mnew[c0 + c] = mx[c];
                shift[c0 + c] = mx[c] == -INFINITY ? 0.0f : mx[c];
                sm[c] = 0.0f;
            }
            for (r = 0; r < cols; r++)
                for (c = 0; c < 16; c++) {
                    float *x = p + r * nr + c0 + c;
                    *x = tt__expf(*x - shift[c0 + c]);
                    sm[c] += *x;
                }
            for (c = 0; c < 16; c++) sum[c0 + c] = sm[c];
        }
        for (c = 0; c < nr; c++) {
            corr[c] = tt__expf(m[c] - shift[c]);
            l[c] = l[c] * corr[c] + sum[c];
            m[c] = mnew[c];
        }
        for (e = 0; e < j->Evr; e++) {
            float *a = b->acc + e * TT__ATT_BQ + s * nr;
            for (c = 0; c < nr; c++) a[c] *= corr[c];
        }
    }
}
TT__TWINS(, tt__att_softmax_step, (const tt__att_job *j, int64_t n_slivers, int64_t cols, float *sc, tt__att_bufs *b),
          (j, n_slivers, cols, sc, b))

/* One task: TT__ATT_BQ query rows of one batch entry, against every key block. */
static void tt__att_task(void *arg, int64_t t, int thread) {
    const tt__att_job *j = (const tt__att_job *)arg;
    int64_t b = t / j->n_qblocks, i0 = (t % j->n_qblocks) * TT__ATT_BQ, rows = tt__min64(TT__ATT_BQ, j->L - i0);
    int64_t nr = j->kt->nr, mr = j->kt->mr, nq = (rows + nr - 1) / nr, j0, r, e, s, Ev = j->Ev, Evr = j->Evr;
    tt__att_bufs bf = tt__att_bufs_of(j, thread);
    const float *q = j->q + tt__batch_offset(j, j->qs, b), *k = j->k + tt__batch_offset(j, j->ks, b);
    const float *v = j->v + tt__batch_offset(j, j->vs, b), *mask = j->mask ? j->mask + tt__batch_offset(j, j->ms, b) : NULL;
    float *y = j->y + (b * j->L + i0) * Ev;
    for (s = 0; s < nq * nr; s += nr) tt__pack_b_cols(nr, bf.qp, q, j->qs[j->nb], 0, j->E, i0, rows, s);
    for (e = 0; e < nq * nr * j->E; e++) bf.qp[e] *= j->scale;
    for (r = 0; r < TT__ATT_BQ; r++) { bf.m[r] = -INFINITY; bf.l[r] = 0.0f; }
    for (r = 0; r < Evr * TT__ATT_BQ; r++) bf.acc[r] = 0.0f;
    for (j0 = 0; j0 < j->S && !(j->causal && j0 > i0 + rows - 1); j0 += j->bk) {
        int64_t cols = tt__min64(j->bk, j->S - j0);
        tt__pack_a(j->kt, bf.kp, k, j->ks[j->nb], 1, j0, cols, j->S, 0, j->E);                      /* k rows j0.. */
        tt__att_gemm(j->kt, j->E, bf.kp, (cols + mr - 1) / mr, bf.qp, nr * j->E, nq,   /* scores = k qᵀ scale */
                     bf.sc, nr, j->bk * nr, 0);
        tt__att_mask(j, mask, i0, rows, j0, cols, bf.sc);
        j->kt->att_softmax_step(j, nq, cols, bf.sc, &bf);
        tt__pack_a(j->kt, bf.vp, v, 1, j->vs[j->nb], 0, Evr, Ev, j0, cols);                         /* vᵀ: Evr x cols */
        tt__att_gemm(j->kt, cols, bf.vp, Evr / mr, bf.sc, j->bk * nr, nq,              /* accᵀ += vᵀ weights */
                     bf.acc, TT__ATT_BQ, nr, 1);
    }
    for (r = 0; r < rows; r++) {
        float inv = bf.l[r] > 0.0f ? 1.0f / bf.l[r] : NAN;   /* l == 0: every score of the row was masked */
        for (e = 0; e < Ev; e++) y[r * Ev + e] = bf.acc[e * TT__ATT_BQ + r] * inv;
    }
}

/* x itself when it is f32 with contiguous rows (its last axis of stride 1, as in a view of
   attention heads), else a contiguous f32 copy. */
static tt_tensor *tt__rows_f32(tt_ctx *ctx, const char *op, tt_tensor *x) {
    if (!x) return NULL;
    if (x->dtype == TT_F32 && x->ndim > 0 && (x->stride[x->ndim - 1] == 1 || x->shape[x->ndim - 1] <= 1)) return x;
    return tt__copy_as(ctx, op, x, TT_F32);
}

static bool tt__exec_sdpa(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    tt_tensor *q = tt__rows_f32(ctx, c->name, c->in[0]), *k = tt__rows_f32(ctx, c->name, c->in[1]);
    tt_tensor *v = tt__rows_f32(ctx, c->name, c->in[2]), *mask = NULL;
    tt__att_job j;
    int d;
    if (c->in[3]) mask = tt__as_f32(ctx, c->name, c->in[3]);     /* read through its strides */
    if (!q || !k || !v || (c->in[3] && !mask)) return false;
    if (out->numel == 0) return true;
    if (k->shape[k->ndim - 2] == 0) {                  /* no keys: an empty sum, zeros (as PyTorch) */
        memset(tt__ptr(out), 0, sizeof(float) * (size_t)out->numel);
        return true;
    }
    j.nb = out->ndim - 2;
    j.L = q->shape[q->ndim - 2]; j.S = k->shape[k->ndim - 2];
    j.E = q->shape[q->ndim - 1]; j.Ev = v->shape[v->ndim - 1];
    j.n_batch = 1;
    for (d = 0; d < j.nb; d++) { j.batch[d] = out->shape[d]; j.n_batch *= out->shape[d]; }
    tt__aligned_strides(q, out->ndim, j.qs);
    tt__aligned_strides(k, out->ndim, j.ks);
    tt__aligned_strides(v, out->ndim, j.vs);
    if (mask) tt__aligned_strides(mask, out->ndim, j.ms);
    j.q = (const float *)tt__ptr(q); j.k = (const float *)tt__ptr(k); j.v = (const float *)tt__ptr(v);
    j.mask = mask ? (const float *)tt__ptr(mask) : NULL;
    j.mask_bool = c->in[3] && c->in[3]->dtype == TT_BOOL;
    j.causal = c->a.i[0] != 0;
    j.scale = c->a.f[0] > 0 ? c->a.f[0] : 1.0f / sqrtf((float)(j.E > 0 ? j.E : 1));
    j.y = (float *)tt__ptr(out);
    j.n_qblocks = (j.L + TT__ATT_BQ - 1) / TT__ATT_BQ;
    j.kt = ctx->kern;
    j.bk = j.kt->mr * 16;
    j.Evr = (j.Ev + j.kt->mr - 1) / j.kt->mr * j.kt->mr;
    j.scratch_floats = tt__att_scratch_floats(j.E, j.Evr, j.bk);
    j.scratch = (float *)tt__alloc(ctx, c->name, sizeof(float) * (size_t)(j.scratch_floats * ctx->n_threads));
    if (!j.scratch) return false;
    tt__parallel_for(ctx, tt__att_task, &j, j.n_batch * j.n_qblocks);
    return true;
}

TT_API tt_tensor *tt_scaled_dot_product_attention(tt_ctx *ctx, tt_tensor *q, tt_tensor *k, tt_tensor *v,
                                                  tt_tensor *mask, bool causal, float scale) {
    tt__attrs a = tt__attrs_ints(causal ? 1 : 0, 0, 0, 0);
    tt_tensor *in[4];
    in[0] = q; in[1] = k; in[2] = v; in[3] = mask;
    a.f[0] = scale;
    return tt__op(ctx, "tt_scaled_dot_product_attention", TT__OP_SDPA, in, 4, &a);
}

/* ==========================================================================
 * >>kernels   the kernel table of each ISA
 *
 * One row per ISA this build has (>>isa chooses among them for each context). The twins
 * of TT__TWINS are named alike, so one macro lists them for every ISA.
 * ========================================================================== */
#define TT__TWIN_KERNELS(suffix)                                                                  \
    tt__unary_chunk##suffix, tt__binary_chunk##suffix, tt__pair_chunk##suffix, tt__affine_row##suffix,   \
    tt__att_softmax_step##suffix, tt__reduce_task##suffix, tt__softmax_task##suffix, tt__norm_task##suffix,  \
    tt__gemm_task##suffix, tt__depthwise_plane##suffix, tt__depthwise_bands_task##suffix, tt__pool_plane##suffix, \
    tt__epilogue_block##suffix

/* isa, MR, NR, micro-kernel, narrow kernels, A packer, run copy, conv tile, depthwise taps,
   channels-last depthwise pixels, twins */
static const tt__kernels tt__kernels_ref = {
    TT__ISA_SCALAR, TT__MR_REF, TT__NR_REF, tt__ukernel_ref, NULL, NULL, NULL, tt__copy_run_ref, tt__conv_tile_ref, NULL,
    tt__dw_nhwc_pixels_ref, TT__TWIN_KERNELS(_ref)
};
#if TT__SIMD_NEON
static const tt__kernels tt__kernels_neon = {
    TT__ISA_NEON, 6, 16, tt__ukernel_neon, NULL, NULL, NULL, tt__copy_run_ref, NULL, NULL, tt__dw_nhwc_pixels_ref,
    TT__TWIN_KERNELS(_ref)             /* the compiler vectorizes the plain C with NEON, aarch64's baseline */
};
#endif
#if TT__SIMD_AVX2
static const tt__kernels tt__kernels_avx2 = {
    TT__ISA_AVX2, 6, 16, tt__ukernel_avx2, NULL, NULL, NULL, tt__copy_run_ref, tt__conv_tile_avx2, NULL,
    tt__dw_nhwc_pixels_avx2, TT__TWIN_KERNELS(_avx2)
};
#endif
#if TT__SIMD_AVX512
static const tt__kernels tt__kernels_avx512 = {
    TT__ISA_AVX512, 8, 48, tt__ukernel_avx512, tt__ukernel_avx512_16, tt__ukernel_avx512_32,
    tt__pack_a_rows_avx512, tt__copy_run_avx512, tt__conv_tile_avx512, tt__dw_taps_avx512, tt__dw_nhwc_pixels_avx512,
    TT__TWIN_KERNELS(_avx512)
};
#endif

/* The table of an ISA, or NULL when this build has none for it. */
static const tt__kernels *tt__kernels_for(tt__isa isa) {
    switch (isa) {
    case TT__ISA_SCALAR: return &tt__kernels_ref;
#if TT__SIMD_NEON
    case TT__ISA_NEON:   return &tt__kernels_neon;
#endif
#if TT__SIMD_AVX2
    case TT__ISA_AVX2:   return &tt__kernels_avx2;
#endif
#if TT__SIMD_AVX512
    case TT__ISA_AVX512: return &tt__kernels_avx512;
#endif
    default:             return NULL;
    }
}

/* ==========================================================================
 * >>trace   the tape: every op recorded while a trace runs
 *
 * A trace is a list of values (graph inputs, parameters, constants, op results) and of
 * nodes (one per recorded op call: op, attributes, input values, output value). A tensor
 * remembers which value it is (trace_epoch, trace_id); a tensor the trace has not seen
 * becomes a constant if it was made during the trace, else a parameter. Reading a traced
 * value into C (tt_item, tt_data, ...) adds a warning with the call site. The trace's
 * arrays live on the heap, not in the context's arena, so user scopes cannot free them.
 * ========================================================================== */
#define TT__NAME_SIZE 32
#define TT__WARN_SIZE 320

typedef enum tt__vkind { TT__V_INPUT, TT__V_PARAM, TT__V_CONST, TT__V_NODE } tt__vkind;

typedef struct tt__value {
    tt__vkind  kind;
    tt_tensor  meta;               /* dtype and shape (strides of the traced tensor) */
    tt_tensor *ref;                /* the traced tensor (identity only); PARAM: read at every run */
    void      *data;               /* CONST: contiguous copy owned by the trace, then the graph;
                                      PARAM: the copy the first freeze made (ref is then NULL) */
    bool       param;              /* a parameter (a CONST while a frozen compile holds it) */
    bool       borrowed;           /* data points into the bytes a graph was loaded from: not freed */
    int        node;               /* NODE: the producing node */
    char       name[TT__NAME_SIZE];
} tt__value;

typedef struct tt__node {
    int         op;
    const char *name;              /* the public function that recorded it */
    tt__attrs   a;
    int         in_at, n_in;       /* its input value ids: pool[in_at .. in_at+n_in), -1 = absent */
    int         out;
} tt__node;

typedef struct tt__tape {
    tt_allocator alloc;
    int          n_threads;        /* the tracing context's thread settings, for the graph's runs */
    const tt__kernels *kern;       /* and its kernels: every context a graph makes runs these */
    void       (*parallel_for)(void (*task)(void *arg, int64_t i, int thread), void *arg, int64_t n_tasks, void *user);
    void        *parallel_user;
    tt__value   *values;   int n_values, cap_values;
    tt__node    *nodes;    int n_nodes, cap_nodes;
    int         *pool;     int n_pool, cap_pool;
    int         *inputs;   int n_inputs, cap_inputs;
    char       (*warnings)[TT__WARN_SIZE]; int n_warnings, cap_warnings;
} tt__tape;

struct tt__trace {
    uint32_t  epoch;
    tt__tape  tape;
};

/* Makes room for `need` elements of size es in *arr (capacity *cap); false when out of memory. */
static bool tt__grow(const tt_allocator *al, void **arr, int *cap, int need, size_t es) {
    int ncap;
    void *p;
    if (need <= *cap) return true;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    p = tt__heap_alloc(al, (size_t)ncap * es);
    if (!p) return false;
    if (*arr) memcpy(p, *arr, (size_t)*cap * es);
    tt__heap_free(al, *arr);
    *arr = p;
    *cap = ncap;
    return true;
}

static void tt__tape_free(tt__tape *t) {
    int i;
    for (i = 0; i < t->n_values; i++) if (!t->values[i].borrowed) tt__heap_free(&t->alloc, t->values[i].data);
    tt__heap_free(&t->alloc, t->values);
    tt__heap_free(&t->alloc, t->nodes);
    tt__heap_free(&t->alloc, t->pool);
    tt__heap_free(&t->alloc, t->inputs);
    tt__heap_free(&t->alloc, t->warnings);
    memset(t, 0, sizeof *t);
}

/* Drops a running trace (tt_ctx_destroy during a trace). */
static void tt__trace_free(tt_ctx *ctx) {
    tt_allocator al = ctx->allocator;
    if (!ctx->trace) return;
    tt__tape_free(&ctx->trace->tape);
    tt__heap_free(&al, ctx->trace);
    ctx->trace = NULL;
}

/* Appends a value that stands for tensor t; -1 when out of memory. */
static int tt__tape_value(tt__tape *tp, tt__vkind kind, tt_tensor *t) {
    tt__value *v;
    if (!tt__grow(&tp->alloc, (void **)&tp->values, &tp->cap_values, tp->n_values + 1, sizeof(tt__value))) return -1;
    v = &tp->values[tp->n_values];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->meta = *t;
    v->ref = t;
    v->node = -1;
    return tp->n_values++;
}

/* Gives v its own contiguous copy of t (the graph then no longer reads t); false when out
   of memory. */
static bool tt__value_own_copy(tt__tape *tp, tt__value *v, const tt_tensor *t) {
    tt_tensor dst;
    v->data = tt__heap_alloc(&tp->alloc, (size_t)(t->numel ? t->numel : 1) * tt_dtype_size(t->dtype));
    if (!v->data) return false;
    dst = *t;
    dst.data = v->data;
    dst.offset = 0;
    dst.ctx = NULL;
    tt__set_contiguous_strides(&dst);
    tt__copy_into(&dst, t);
    v->meta = dst;
    v->ref = NULL;
    return true;
}

/* The value id of t in the running trace, made on first sight (a constant or a parameter). */
static int tt__trace_value_of(tt_ctx *ctx, struct tt__trace *tr, tt_tensor *t) {
    tt__tape *tp = &tr->tape;
    bool made_here;
    int id;
    if (t->trace_epoch == tr->epoch && t->trace_id >= 0 && t->trace_id < tp->n_values && tp->values[t->trace_id].ref == t)
        return t->trace_id;
    made_here = t->trace_epoch == tr->epoch && t->trace_id == -1 && t->ctx == ctx;
    id = tt__tape_value(tp, made_here ? TT__V_CONST : TT__V_PARAM, t);
    if (id < 0) return -1;
    tp->values[id].param = !made_here;
    if (made_here && !tt__value_own_copy(tp, &tp->values[id], t)) return -1;  /* now: scopes may free t */
    tp->values[id].ref = t;                            /* t's identity while tracing: its next read finds
                                                          this value (trace end clears it; the copy is read) */
    t->trace_epoch = tr->epoch;
    t->trace_id = id;
    return id;
}

/* True when t is an input or an op result of the running trace. */
static bool tt__is_traced_value(const tt_tensor *t) {
    struct tt__trace *tr = t && t->ctx ? t->ctx->trace : NULL;
    const tt__value *v;
    if (!tr || t->trace_epoch != tr->epoch || t->trace_id < 0 || t->trace_id >= tr->tape.n_values) return false;
    v = &tr->tape.values[t->trace_id];
    return v->ref == t && (v->kind == TT__V_INPUT || v->kind == TT__V_NODE);
}

static void tt__warn_read(const tt_tensor *t, const char *fn, const char *file, int line) {
    tt__tape *tp;
    tt__buf b;
    if (!tt__is_traced_value(t) || t->ctx->record_depth > 0) return;
    tp = &t->ctx->trace->tape;
    if (!tt__grow(&tp->alloc, (void **)&tp->warnings, &tp->cap_warnings, tp->n_warnings + 1, TT__WARN_SIZE)) return;
    tt__buf_init(&b, tp->warnings[tp->n_warnings++], TT__WARN_SIZE);
    if (file) { tt__put(&b, file); tt__putc(&b, ':'); tt__put_i64(&b, line); tt__put(&b, ": "); }
    tt__put(&b, fn);
    tt__put(&b, " read a traced tensor of shape ");
    tt__put_shape(&b, t);
    tt__put(&b, " into C: the graph keeps the value it had while tracing as a constant, and C control "
                "flow that depends on it is not captured (use tt_where for per-element choices)");
}

static void tt__record(tt_ctx *ctx, const tt__call *c, tt_tensor *out) {
    struct tt__trace *tr = ctx->trace;
    tt__tape *tp;
    tt__node *n;
    int i, id;
    if (!tr || ctx->record_depth > 0 || ctx->err.status != TT_OK) return;
    tp = &tr->tape;
    if (!tt__grow(&tp->alloc, (void **)&tp->nodes, &tp->cap_nodes, tp->n_nodes + 1, sizeof(tt__node)) ||
        !tt__grow(&tp->alloc, (void **)&tp->pool, &tp->cap_pool, tp->n_pool + c->n_in, sizeof(int))) {
        tt__fail(ctx, TT_ERR_OOM, "%s: out of memory while recording the trace", c->name);
        return;
    }
    n = &tp->nodes[tp->n_nodes];
    n->op = c->op;
    n->name = c->name;
    n->a = c->a;
    n->in_at = tp->n_pool;
    n->n_in = c->n_in;
    for (i = 0; i < c->n_in; i++) {
        id = c->in[i] ? tt__trace_value_of(ctx, tr, c->in[i]) : -1;
        if (c->in[i] && id < 0) { tt__fail(ctx, TT_ERR_OOM, "%s: out of memory while recording the trace", c->name); return; }
        tp->pool[tp->n_pool++] = id;
    }
    id = tt__tape_value(tp, TT__V_NODE, out);
    if (id < 0) { tt__fail(ctx, TT_ERR_OOM, "%s: out of memory while recording the trace", c->name); return; }
    tp->values[id].node = tp->n_nodes;
    n->out = id;
    out->trace_epoch = tr->epoch;
    out->trace_id = id;
    tp->n_nodes++;
}

TT_API bool tt_is_tracing(const tt_ctx *ctx) { return ctx && ctx->trace; }

TT_API tt_status tt_trace_begin(tt_ctx *ctx) {
#ifndef TT_NO_MALLOC
    struct tt__trace *tr;
#endif
    if (!ctx) return TT_ERR_ARG;
    if (ctx->trace) return TT__FAIL_STATUS(ctx, TT_ERR_STATE, "tt_trace_begin: a trace is already running on ctx "
                                           "(traces do not nest)");
#ifdef TT_NO_MALLOC
    return TT__FAIL_STATUS(ctx, TT_ERR_UNSUPPORTED, "tt_trace_begin: tracing needs a heap (TT_NO_MALLOC build)");
#else
    tr = (struct tt__trace *)tt__heap_alloc(&ctx->allocator, sizeof *tr);
    if (!tr) return TT__FAIL_STATUS(ctx, TT_ERR_OOM, "tt_trace_begin: out of memory");
    memset(tr, 0, sizeof *tr);
    tr->tape.alloc = ctx->allocator;
    tr->tape.n_threads = ctx->n_threads;
    tr->tape.kern = ctx->kern;
    tr->tape.parallel_for = ctx->parallel_for;
    tr->tape.parallel_user = ctx->parallel_user;
    tr->epoch = ++ctx->trace_counter;
    if (tr->epoch == 0) tr->epoch = ++ctx->trace_counter;  /* 0 means "never traced" */
    ctx->trace = tr;
    return TT_OK;
#endif
}

TT_API tt_tensor *tt_trace_input(tt_ctx *ctx, tt_tensor *t, const char *name) {
    tt__tape *tp;
    int id;
    if (!ctx || !t) return NULL;
    if (t->ctx != ctx)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_trace_input: t belongs to another context; make "
                                     "inputs in the context that traces");
    if (!ctx->trace) return (tt_tensor *)tt__fail(ctx, TT_ERR_STATE, "tt_trace_input: no trace is running on ctx");
    if (t->trace_epoch == ctx->trace->epoch && t->trace_id >= 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_STATE, "tt_trace_input: t %S is already a value of the trace "
                                     "(mark inputs before using them)", t);
    tp = &ctx->trace->tape;
    id = tt__tape_value(tp, TT__V_INPUT, t);
    if (id < 0 || !tt__grow(&tp->alloc, (void **)&tp->inputs, &tp->cap_inputs, tp->n_inputs + 1, sizeof(int)))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_OOM, "tt_trace_input: out of memory");
    tp->inputs[tp->n_inputs++] = id;
    if (name) {
        size_t n = strlen(name);
        if (n >= TT__NAME_SIZE) n = TT__NAME_SIZE - 1;
        memcpy(tp->values[id].name, name, n);
    }
    t->trace_epoch = ctx->trace->epoch;
    t->trace_id = id;
    return t;
}

/* ==========================================================================
 * >>graph   the graph: IR, trace end, the compile pipeline
 *
 * tt_trace_end moves the tape into a graph. tt_graph_compile runs the pipeline, each
 * stage a section below, in this order: >>passes (each rewrites which nodes are live and
 * which value a use refers to), >>fuse (elementwise chains become one node with a micro-op
 * program), >>plan (every op result that is not a view gets an offset in one arena; two
 * results share bytes only when their lifetimes do not overlap), then the backend prepares
 * the graph (the CPU's: a dry run on zero inputs sizes the scratch the kernels need).
 * Running it (>>exec) only binds inputs and calls each node's kernel, allocating nothing.
 * ========================================================================== */

/* The limits of a fused node (>>fuse): members, inputs, micro-ops. */
#define TT__FUSE_MAX_MEMBERS 24
#define TT__FUSE_MAX_IN      (TT__MAX_OPS - 1)
#define TT__FUSE_MAX_UOPS    (TT__FUSE_MAX_MEMBERS * 2 + TT__FUSE_MAX_IN)

/* A backend runs compiled graphs: the seam between the graph (IR, passes, fused programs,
   memory plan: shared by every backend) and the hardware. The CPU backend (>>exec) is the
   one built in; tinytrace_cuda.cu is to add a second. docs/architecture.md: how one plugs in. */
typedef struct tt__backend {
    const char *name;
    /* Can it run node n? Compiling fails with TT_ERR_UNSUPPORTED, naming the op, if not. */
    bool      (*supports)(const tt_graph *g, const tt__node *n);
    /* After the memory plan: make what runs need (scratch, packed weights, device copies of
       the arena and the constants). */
    tt_status (*prepare)(tt_graph *g);
    /* Runs the graph once, inputs bound (tt_graph_run): the CPU's walks the nodes
       (tt__graph_exec), calling run_node and run_program; a GPU's also moves the inputs and
       outputs, or replays a captured schedule. */
    tt_status (*run)(tt_graph *g);
    /* tt_graph_check's two steps around its own node walk: the bound inputs (and parameters)
       where the nodes read them, and, after the node at position p ran, its results readable
       in the host arena (the CPU's: nothing to do). */
    tt_status (*load_inputs)(tt_graph *g);
    tt_status (*fetch)(tt_graph *g, int p);
    /* Runs one op node (node index `node`) on the call c into out; scratch: host temporaries. */
    bool      (*run_node)(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt_tensor *out);
    /* Runs one fused node: its epilogue head, then its micro-op program. */
    bool      (*run_program)(tt_graph *g, tt_ctx *scratch, const tt__node *n);
    /* Waits until every queued node has run (a run returns only after it). */
    tt_status (*sync)(tt_graph *g);
    /* Frees what prepare and the runs made. */
    void      (*release)(tt_graph *g);
} tt__backend;

/* The CPU backend's state for a compiled graph: made by its prepare (the dry run), freed by
   its release. */
typedef struct tt__cpu_graph {
    void     *scratch_mem;
    size_t    scratch_bytes;
    tt_ctx   *scratch;             /* kernels' temporaries: a context over scratch_mem */
    float   **packed;              /* per node: a linear's constant weight packed for the SGEMM, or NULL */
    int       n_packed;
    bool     *channels_last;       /* per value: kept channels-last during runs (the layout pass), or NULL */
} tt__cpu_graph;

struct tt_graph {
    tt__tape       tape;           /* values, nodes, inputs and warnings of the trace */
    int            n_traced_nodes; /* nodes and pool entries of the trace; compilation appends */
    tt__node      *traced;         /* the nodes as traced: passes rewrite tape.nodes, recompiling restores */
    int            n_traced_pool;
    struct tt__program *progs;     /* fused nodes' micro-op programs */
    int            n_progs, cap_progs;
    int           *outputs;        /* value ids */
    int            n_outputs;
    int           *remap;          /* value -> the value that replaces it (passes) */
    int            cap_remap;
    int            n_traced_values; /* values of the trace; compilation appends constants */
    int           *order;          /* the live nodes, in execution order */
    int            n_order;
    bool           compiled;
    tt_mode        mode;
    unsigned       passes;         /* TT_PASS_* of the last compile */
    int            n_pass_stats;   /* what each pass of the last compile removed */
    tt_pass_stat   pass_stats[12];
    int64_t       *offset;         /* per value: arena offset, or -1 */
    int           *first, *last;   /* per value: lifetime in node positions (see tt__plan_lifetimes) */
    int           *root;           /* per value: the value whose buffer it uses (views: their base) */
    unsigned       debug;          /* TT_DEBUG_* */
    uint64_t       last_dump;      /* TT_DEBUG_PASSES: the hash of the nodes the last pass printed */
    tt_conv_algo   conv_algo;      /* how a TT_MODE_MAX_AUTOTUNE compile picks convolution algorithms */
    unsigned char *arena;
    size_t         arena_bytes, unplanned_bytes, constant_bytes;
    const struct tt__backend *backend;  /* what runs the compiled nodes (tt__cpu_backend) */
    tt__cpu_graph  cpu;            /* the CPU backend's state: scratch, packed weights */
    void          *device;         /* a GPU backend's state (tinytrace_cuda.cu), or NULL */
    tt_tensor     *rt;             /* per value: its header during a run */
    tt_tensor    **argv;           /* a node's input headers during a run */
    int            max_in;
    bool           has_run;        /* outputs exist only after a successful run */
    bool           bound;          /* inputs bound by tt_graph_bind */
    tt_tensor    **bound_src;      /* per input: the user's tensor when it had to be copied, else NULL */
    tt__err        err;            /* sticky, like a context's */
    tt_ctx        *home;           /* a graph loaded into a context over a user buffer: that context */
    void          *image;          /* the file's bytes a graph loaded from a path keeps (constants) */
    bool           loaded_compiled; /* loaded compiled from a file: no trace to compile again */
    int            loaded_traced;  /* then: the nodes its trace had */
};

/* The settings of every context a graph makes for itself (constant folding, the scratch of
   its runs, tt_graph_check): the tracing context's allocator and ISA, so that folded
   constants, runs and checks compute exactly as the eager ops did. */
static tt_ctx_desc tt__graph_ctx_desc(const tt_graph *g) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.allocator = g->tape.alloc;
    d.isa = tt__isa_names[g->tape.kern->isa];
    return d;
}

/* What this section calls in the sections below (each section declares at its head what it
   uses before the definition). */
static bool tt__compile_args_valid(tt_mode mode, unsigned passes);
static tt_status tt__run_passes(tt_graph *g, bool *live);
static int tt__count_nodes(const tt_graph *g, const bool *live, bool ordered);
static tt_status tt__check_backend(tt_graph *g);
static tt_status tt__pass_freeze(tt_graph *g, bool *live);
static tt_status tt__pass_const_fold(tt_graph *g, bool *live);
static tt_status tt__pass_simplify(tt_graph *g, bool *live);
static tt_status tt__pass_fold_bn(tt_graph *g, bool *live);
static tt_status tt__pass_cse(tt_graph *g, bool *live);
static tt_status tt__pass_dce(tt_graph *g, bool *live);
static tt_status tt__pass_order(tt_graph *g, bool *live);
static tt_status tt__pass_fuse(tt_graph *g, bool *live);
static tt_status tt__graph_plan(tt_graph *g);
static const tt__backend *tt__default_backend(void);
static void tt__dump_pass(tt_graph *g, const char *pass, const bool *live, bool ordered, int removed);

/* Records a graph's error (if it is the first) and returns the graph's status. */
static tt_status tt__gfail(tt_graph *g, tt_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tt__err_vset(&g->err, status, fmt, ap);
    va_end(ap);
    return g->err.status;
}

static void *tt__galloc(tt_graph *g, size_t n) {
    void *p = tt__heap_alloc(&g->tape.alloc, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

/* Frees what compilation made (the graph can be compiled again). */
static void tt__graph_release_plan(tt_graph *g) {
    const tt_allocator *al = &g->tape.alloc;
    int i;
    tt__heap_free(al, g->remap);   g->remap = NULL;
    tt__heap_free(al, g->order);   g->order = NULL;
    tt__heap_free(al, g->offset);  g->offset = NULL;
    tt__heap_free(al, g->first);   g->first = NULL; g->last = NULL; g->root = NULL;
    tt__heap_free(al, g->arena);   g->arena = NULL;
    tt__heap_free(al, g->rt);      g->rt = NULL;
    tt__heap_free(al, g->argv);    g->argv = NULL;
    tt__heap_free(al, g->bound_src); g->bound_src = NULL;
    if (g->backend) g->backend->release(g);
    g->backend = NULL;
    g->bound = false;
    g->n_progs = 0;
    g->tape.n_nodes = g->n_traced_nodes;               /* drop what an earlier compile appended */
    g->tape.n_pool = g->n_traced_pool;
    if (g->traced && g->n_traced_nodes > 0) memcpy(g->tape.nodes, g->traced, sizeof(tt__node) * (size_t)g->n_traced_nodes);
    while (g->tape.n_values > g->n_traced_values) tt__heap_free(al, g->tape.values[--g->tape.n_values].data);
    for (i = 0; i < g->n_traced_values; i++)          /* parameters frozen by the last compile */
        if (g->tape.values[i].param) g->tape.values[i].kind = TT__V_PARAM;
    g->cap_remap = 0;
    g->compiled = false;
    g->has_run = false;
    g->n_order = 0;
}

TT_API void tt_graph_destroy(tt_graph *g) {
    tt_allocator al;
    if (!g) return;
    tt__graph_release_plan(g);
    al = g->tape.alloc;
    tt__heap_free(&al, g->traced);
    tt__heap_free(&al, g->progs);
    tt__heap_free(&al, g->outputs);
    tt__tape_free(&g->tape);
    tt__heap_free(&al, g->image);
    tt__heap_free(&al, g);
}

TT_API tt_graph *tt_trace_end(tt_ctx *ctx, tt_tensor *const *outputs, int n_outputs) {
    struct tt__trace *tr;
    tt_graph *g;
    tt__tape *tp;
    uint32_t epoch;
    int i;
    if (!ctx) return NULL;
    tr = ctx->trace;
    if (!tr) return (tt_graph *)tt__fail(ctx, TT_ERR_STATE, "tt_trace_end: no trace is running on ctx (call tt_trace_begin first)");
    ctx->trace = NULL;                                 /* the trace ends whatever happens next */
    g = ctx->err.status == TT_OK ? (tt_graph *)tt__heap_alloc(&tr->tape.alloc, sizeof *g) : NULL;
    if (!g) {
        tt__fail(ctx, TT_ERR_OOM, "tt_trace_end: out of memory");  /* kept only if no error came first */
        tt__tape_free(&tr->tape);
        tt__heap_free(&ctx->allocator, tr);
        return NULL;
    }
    memset(g, 0, sizeof *g);
    g->tape = tr->tape;
    tp = &g->tape;
    epoch = tr->epoch;
    tt__heap_free(&ctx->allocator, tr);
    if (!tt__check_array(ctx, "tt_trace_end", outputs, "outputs", n_outputs, "n_outputs", 1, INT32_MAX)) {
        tt_graph_destroy(g);
        return NULL;
    }
    g->outputs = (int *)tt__galloc(g, sizeof(int) * (size_t)n_outputs);
    if (!g->outputs) { tt__fail(ctx, TT_ERR_OOM, "tt_trace_end: out of memory"); tt_graph_destroy(g); return NULL; }
    for (i = 0; i < n_outputs; i++) {
        tt_tensor *t = outputs[i];
        int id = t ? t->trace_id : -1;
        bool ok = t && t->trace_epoch == epoch && id >= 0 && id < tp->n_values && tp->values[id].ref == t &&
                  (tp->values[id].kind == TT__V_NODE || tp->values[id].kind == TT__V_INPUT);
        if (!ok) {
            if (!t) tt__fail(ctx, TT_ERR_ARG, "tt_trace_end: outputs[%d] is NULL", i);
            else tt__fail(ctx, TT_ERR_ARG, "tt_trace_end: outputs[%d] %S was not produced in the trace (it is a "
                          "parameter, a constant or a tensor made outside the trace)", i, t);
            tt_graph_destroy(g);
            return NULL;
        }
        g->outputs[i] = id;
    }
    g->n_outputs = n_outputs;
    g->n_traced_nodes = tp->n_nodes;
    g->n_traced_pool = tp->n_pool;
    g->n_traced_values = tp->n_values;
    g->traced = (tt__node *)tt__galloc(g, sizeof(tt__node) * (size_t)(tp->n_nodes + 1));
    if (!g->traced) { tt__fail(ctx, TT_ERR_OOM, "tt_trace_end: out of memory"); tt_graph_destroy(g); return NULL; }
    if (tp->n_nodes > 0) memcpy(g->traced, tp->nodes, sizeof(tt__node) * (size_t)tp->n_nodes);
    for (i = 0; i < tp->n_values; i++)                 /* only parameters are read after the trace */
        if (tp->values[i].kind != TT__V_PARAM) tp->values[i].ref = NULL;
    return g;
}

/* The value that stands for v after the passes' replacements: one pass may replace a
   value whose own replacement a later pass removes, so follow the chain to its end. */
static int tt__rv(const tt_graph *g, int v) {
    while (v >= 0 && g->remap[v] != v) v = g->remap[v];
    return v;
}

/* Input i of node n, after the passes' replacements (-1: an absent optional input). */
static int tt__node_in(const tt_graph *g, const tt__node *n, int i) {
    return tt__rv(g, g->tape.pool[n->in_at + i]);
}

static bool tt__is_view_op(int op) { return tt__op_table[op].kind == TT__K_VIEW; }
static bool tt__is_fused(const tt__node *n) { return tt__op_table[n->op].kind == TT__K_FUSED; }

TT_API tt_status tt_graph_compile(tt_graph *g, tt_mode mode, unsigned passes) {
    int nv, i;
    bool *live;
    if (!g) return TT_ERR_ARG;
    if (g->loaded_compiled) {                          /* its file holds the nodes after the passes */
        if (mode == g->mode && passes == g->passes) return TT_OK;
        return tt__gfail(g, TT_ERR_STATE, "tt_graph_compile: g was loaded compiled (mode %d, passes %D) and holds no "
                         "trace to compile again; save it before compiling to choose passes later", (int)g->mode,
                         (int64_t)g->passes);
    }
    tt__graph_release_plan(g);
    tt_graph_clear_error(g);
    if (!tt__compile_args_valid(mode, TT_PASS_ALL))
        return tt__gfail(g, TT_ERR_ARG, "tt_graph_compile: mode is %d, expected TT_MODE_DEFAULT, "
                         "TT_MODE_REDUCE_OVERHEAD or TT_MODE_MAX_AUTOTUNE", (int)mode);
    if (!tt__compile_args_valid(mode, passes))
        return tt__gfail(g, TT_ERR_ARG, "tt_graph_compile: passes has unknown bits (%D), expected TT_PASS_* bits only",
                         (int64_t)(passes & ~((unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE)));
    g->mode = mode;
    g->passes = passes;
    nv = g->tape.n_values;
    g->remap = (int *)tt__galloc(g, sizeof(int) * (size_t)nv);
    g->cap_remap = nv;
    g->order = (int *)tt__galloc(g, sizeof(int) * (size_t)(g->tape.n_nodes + 1));
    live = (bool *)tt__galloc(g, sizeof(bool) * (size_t)g->tape.n_nodes);
    if (!g->remap || !g->order || !live) {
        tt__heap_free(&g->tape.alloc, live);
        return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
    }
    for (i = 0; i < nv; i++) g->remap[i] = i;
    for (i = 0; i < g->tape.n_nodes; i++) live[i] = true;
    tt__run_passes(g, live);
    tt__heap_free(&g->tape.alloc, live);
    if (g->err.status != TT_OK) return g->err.status;
    g->max_in = 1;
    for (i = 0; i < g->n_order; i++)
        if (g->tape.nodes[g->order[i]].n_in > g->max_in) g->max_in = g->tape.nodes[g->order[i]].n_in;
    g->argv = (tt_tensor **)tt__galloc(g, sizeof(tt_tensor *) * (size_t)g->max_in);
    g->bound_src = (tt_tensor **)tt__galloc(g, sizeof(tt_tensor *) * (size_t)(g->tape.n_inputs + 1));
    if (!g->argv || !g->bound_src) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
    if (tt__graph_plan(g) != TT_OK) return g->err.status;
    g->backend = tt__default_backend();
    if (tt__check_backend(g) != TT_OK || g->backend->prepare(g) != TT_OK) return g->err.status;
    g->compiled = true;
    return TT_OK;
}

/* A known mode and no pass bit outside TT_PASS_ALL and TT_PASS_FREEZE. */
static bool tt__compile_args_valid(tt_mode mode, unsigned passes) {
    return (unsigned)mode <= (unsigned)TT_MODE_MAX_AUTOTUNE &&             /* unsigned: see tt__dtype_valid */
           (passes & ~((unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE)) == 0;
}

/* A row runs when the compile's passes include every bit of flags (0: always). */
typedef tt_status (*tt__pass_fn)(tt_graph *g, bool *live);
typedef struct tt__pass_row {
    unsigned    flags;
    const char *name;
    tt__pass_fn run;
} tt__pass_row;

static const tt__pass_row tt__pass_table[] = {
    { TT_PASS_FREEZE,                                   "freeze",     tt__pass_freeze },
    { TT_PASS_CONST_FOLD,                               "const_fold", tt__pass_const_fold },
    { TT_PASS_SIMPLIFY,                                 "simplify",   tt__pass_simplify },
    { TT_PASS_CONST_FOLD | TT_PASS_SIMPLIFY,            "const_fold", tt__pass_const_fold },  /* what simplify exposed */
    { TT_PASS_FOLD_BN,                                  "fold_bn",    tt__pass_fold_bn },
    { TT_PASS_CSE,                                      "cse",        tt__pass_cse },
    { TT_PASS_DCE,                                      "dce",        tt__pass_dce },
    { 0,                                                "order",      tt__pass_order },
    { TT_PASS_FUSE,                                     "fuse",       tt__pass_fuse }
};
#define TT__N_PASS_ROWS ((int)(sizeof tt__pass_table / sizeof tt__pass_table[0]))
typedef char tt__check_pass_rows[TT__N_PASS_ROWS <= 12 ? 1 : -1];   /* fit tt_graph_stats.passes */

/* Runs the rows of the table that passes selects, in order; records what each removed. */
static tt_status tt__run_passes(tt_graph *g, bool *live) {
    bool ordered = false;
    int r, after, before = tt__count_nodes(g, live, ordered);
    g->n_pass_stats = 0;
    g->last_dump = 0;
    for (r = 0; r < TT__N_PASS_ROWS; r++) {
        const tt__pass_row *row = &tt__pass_table[r];
        if ((g->passes & row->flags) != row->flags) continue;
        if (row->run(g, live) != TT_OK) return g->err.status;
        ordered = ordered || row->run == tt__pass_order;
        after = tt__count_nodes(g, live, ordered);
        if (row->flags != 0) {
            g->pass_stats[g->n_pass_stats].name = row->name;
            g->pass_stats[g->n_pass_stats].nodes_removed = before - after;
            g->n_pass_stats++;
        }
        if (g->debug & TT_DEBUG_PASSES) tt__dump_pass(g, row->name, live, ordered, before - after);
        before = after;                                /* the next pass starts from this count */
    }
    return TT_OK;
}

/* Nodes the graph has now: the live ones, or the order once it exists. */
static int tt__count_nodes(const tt_graph *g, const bool *live, bool ordered) {
    int i, n = 0;
    if (ordered) return g->n_order;
    for (i = 0; i < g->tape.n_nodes; i++) n += live[i];
    return n;
}

/* ==========================================================================
 * >>passes   the passes, in the order they run
 *
 * Freeze, constant folding, simplification, batch-norm folding, CSE, DCE. Each pass reads
 * and writes `live` (one flag per node) and g->remap: it marks replaced nodes dead and
 * points uses at the replacement; new constants are appended to the values (dropped on
 * recompile). The last step, "order", lists the live nodes for the stages after it.
 * ========================================================================== */

static int tt__graph_add_const(tt_graph *g, const tt_tensor *t);
static bool tt__is_const(const tt_graph *g, int v);
static int tt__producer(const tt_graph *g, const bool *live, int v);
static int tt__simplify_node(tt_graph *g, const tt__node *n);
static int tt__simplify_identity(const tt_graph *g, const tt__node *n, int a, int b, unsigned flags);
static bool tt__const_all(const tt_graph *g, int v, float x);
static bool tt__same_as(const tt_graph *g, const tt__node *n, int v);
static bool tt__is_dense(const tt_graph *g, int v);
static bool tt__node_set_inputs(tt_graph *g, tt__node *n, const int *ids, int count);
static int tt__uses(const tt_graph *g, const bool *live, int v);
static int tt__channel_axis(int op, int ndim);
static bool tt__same_const(const tt__value *a, const tt__value *b);

/* Freeze: every parameter becomes a constant copied into the graph (torch.jit.freeze).
   The first freeze copies each parameter for good and forgets the user's tensor, which may
   be freed right after: later compiles, frozen or not, read the graph's copy. */
static tt_status tt__pass_freeze(tt_graph *g, bool *live) {
    int v;
    (void)live;
    for (v = 0; v < g->n_traced_values; v++) {
        tt__value *val = &g->tape.values[v];
        if (val->kind != TT__V_PARAM) continue;
        if (val->ref && !tt__value_own_copy(&g->tape, val, val->ref))
            return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory while freezing");
        val->kind = TT__V_CONST;                   /* for this compile; release_plan turns it back */
    }
    return TT_OK;
}

/* Constant folding: a (non-view) node whose inputs are all constants is computed now. */
static tt_status tt__pass_const_fold(tt_graph *g, bool *live) {
    tt_ctx_desc d = tt__graph_ctx_desc(g);
    tt_tensor *ins[TT__FUSE_MAX_IN + 4];
    tt_ctx *tmp;
    int i, k;
    tmp = tt_ctx_create(&d);
    if (!tmp) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
    for (i = 0; i < g->n_traced_nodes; i++) {
        tt__node *n = &g->tape.nodes[i];
        const tt__op_info *info = &tt__op_table[n->op];
        bool all_const = live[i] && info->kind != TT__K_VIEW && n->n_in <= (int)(sizeof ins / sizeof ins[0]);
        tt_tensor hdr, *out;
        tt__call c;
        tt_scope s;
        int id;
        for (k = 0; all_const && k < n->n_in; k++) {
            int v = tt__node_in(g, n, k);
            all_const = v < 0 || tt__is_const(g, v);
            ins[k] = v < 0 ? NULL : &g->tape.values[v].meta;
        }
        if (!all_const) continue;
        c = tt__call_init(n->name, n->op, ins, n->n_in, &n->a);
        s = tt_scope_begin(tmp);
        tt__header_init(&hdr, tmp);
        out = info->infer(tmp, &c, &hdr) ? tt__new(tmp, n->name, hdr.dtype, hdr.ndim, hdr.shape) : NULL;
        if (out && info->exec(tmp, &c, out) && tmp->err.status == TT_OK) {
            id = tt__graph_add_const(g, out);
            if (id < 0) { tt_ctx_destroy(tmp); return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory"); }
            g->remap[n->out] = id;
            live[i] = false;
        }
        tt_clear_error(tmp);                           /* a value error (bad index) stays for run time */
        tt_scope_end(tmp, s);
    }
    tt_ctx_destroy(tmp);
    return TT_OK;
}

/* A new constant value holding a contiguous copy of t; -1 when out of memory. */
static int tt__graph_add_const(tt_graph *g, const tt_tensor *t) {
    tt__tape *tp = &g->tape;
    tt__value *v;
    int id;
    if (!tt__grow(&tp->alloc, (void **)&g->remap, &g->cap_remap, tp->n_values + 1, sizeof(int))) return -1;
    id = tt__tape_value(tp, TT__V_CONST, (tt_tensor *)t);
    if (id < 0) return -1;
    v = &tp->values[id];
    if (!tt__value_own_copy(tp, v, t)) { tp->n_values--; return -1; }
    g->remap[id] = id;
    return id;
}

static bool tt__is_const(const tt_graph *g, int v) { return v >= 0 && g->tape.values[v].kind == TT__V_CONST; }

static tt_status tt__pass_simplify(tt_graph *g, bool *live) {
    int i, d;
    for (i = 0; i < g->n_traced_nodes; i++) {
        tt__node *n = &g->tape.nodes[i];
        int r, p;
        if (!live[i]) continue;
        p = tt__op_has(n->op, TT__F_PERMUTATION) ? tt__producer(g, live, tt__node_in(g, n, 0)) : -1;
        if (p >= 0 && g->tape.nodes[p].op == n->op) {  /* permute of a permute: one permute */
            const tt__node *inner = &g->tape.nodes[p];
            int src = tt__node_in(g, inner, 0), nd = g->tape.values[src].meta.ndim;
            for (d = 0; d < nd; d++) n->a.i[d] = tt__axis((int)inner->a.i[tt__axis((int)n->a.i[d], nd)], nd);
            if (!tt__node_set_inputs(g, n, &src, 1)) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
        }
        r = tt__simplify_node(g, n);
        if (r >= 0) { g->remap[n->out] = r; live[i] = false; }
    }
    return TT_OK;
}

/* The live node that produces value v, or -1. */
static int tt__producer(const tt_graph *g, const bool *live, int v) {
    int p = v >= 0 && g->tape.values[v].kind == TT__V_NODE ? g->tape.values[v].node : -1;
    return p >= 0 && live[p] ? p : -1;
}

/* The value node n reduces to, or -1, by the rules its flags name: x op identity, zero
   padding, a copy, cast or view that changes nothing, the identity permutation.
   (x+0 turns -0 into +0 eagerly; the graph keeps -0.) */
static int tt__simplify_node(tt_graph *g, const tt__node *n) {
    unsigned f = tt__op_table[n->op].flags;
    bool view = tt__is_view_op(n->op);
    int a = n->n_in > 0 ? tt__node_in(g, n, 0) : -1, b = n->n_in > 1 ? tt__node_in(g, n, 1) : -1, d;
    const tt_tensor *x = a >= 0 ? &g->tape.values[a].meta : NULL;
    if (!view) {                                       /* an op that makes a new tensor */
        int other = (f & TT__F_COMMUTATIVE) && tt__is_const(g, a) ? b : a;
        if (!tt__is_dense(g, other)) return -1;        /* x would be a view or an input: keep the op */
    }
    if (f & (TT__F_ID_ZERO | TT__F_ID_ONE)) return tt__simplify_identity(g, n, a, b, f);
    if (f & TT__F_ZERO_PAD_ID) {
        for (d = 0; d < (int)n->a.i[0]; d++) if (n->a.i[1 + d] != 0) return -1;
        return a;
    }
    if (view && (f & (TT__F_SAME_ID | TT__F_PERMUTATION)) && g->tape.values[a].kind == TT__V_INPUT)
        return -1;                                     /* a view of an input stays (see tt__is_dense) */
    if (f & TT__F_SAME_ID) return tt__same_as(g, n, a) ? a : -1;
    if (f & TT__F_PERMUTATION) {
        for (d = 0; d < x->ndim; d++) if (tt__axis((int)n->a.i[d], x->ndim) != d) return -1;
        return a;
    }
    return -1;
}

/* x op identity -> x (x+0, x-0, x*1, x/1; identity op x too when op is commutative), or -1. */
static int tt__simplify_identity(const tt_graph *g, const tt__node *n, int a, int b, unsigned flags) {
    float id = (flags & TT__F_ID_ZERO) ? 0.0f : 1.0f;
    if (tt__const_all(g, b, id) && tt__same_as(g, n, a)) return a;
    if ((flags & TT__F_COMMUTATIVE) && tt__const_all(g, a, id) && tt__same_as(g, n, b)) return b;
    return -1;
}

/* Is v a constant whose every element equals x? */
static bool tt__const_all(const tt_graph *g, int v, float x) {
    const tt__value *val;
    int64_t i;
    if (!tt__is_const(g, v)) return false;
    val = &g->tape.values[v];
    for (i = 0; i < val->meta.numel; i++) if (tt__load(val->data, val->meta.dtype, i) != x) return false;
    return true;
}

/* Could node n's result be replaced by value v (same dtype and shape)? */
static bool tt__same_as(const tt_graph *g, const tt__node *n, int v) {
    const tt_tensor *a = &g->tape.values[n->out].meta, *b = &g->tape.values[v].meta;
    return v >= 0 && a->dtype == b->dtype && tt_same_shape(a, b);
}

/* Is v stored densely (a constant, or the result of an op that is not a view)? Only such a
   value may replace an op that makes a new tensor: views read after it rely on its layout.
   (Graph inputs are excluded too: an output must not become the caller's input tensor.) */
static bool tt__is_dense(const tt_graph *g, int v) {
    return v >= 0 && (tt__is_const(g, v) ||
           (g->tape.values[v].kind == TT__V_NODE && !tt__is_view_op(g->tape.nodes[g->tape.values[v].node].op)));
}

/* Gives node n new inputs (appended to the pool); false when out of memory. */
static bool tt__node_set_inputs(tt_graph *g, tt__node *n, const int *ids, int count) {
    tt__tape *tp = &g->tape;
    int k;
    if (!tt__grow(&tp->alloc, (void **)&tp->pool, &tp->cap_pool, tp->n_pool + count, sizeof(int))) return false;
    n->in_at = tp->n_pool;
    n->n_in = count;
    for (k = 0; k < count; k++) tp->pool[tp->n_pool++] = ids[k];
    return true;
}

/* Batch norm after conv/linear with constant weights: scale the weights and bias instead.
   W'[o,...] = W[o,...]*s[o], b'[o] = (b[o]-mean[o])*s[o] + beta[o], s = gamma/sqrt(var+eps). */
static tt_status tt__pass_fold_bn(tt_graph *g, bool *live) {
    int i, k;
    for (i = 0; i < g->n_traced_nodes; i++) {
        tt__node *bn = &g->tape.nodes[i], *h;
        int x, hi, ids[3], wv, bv, c[4];
        const tt_tensor *w;
        tt_tensor nw, nb;
        float *wd, *bd;
        int64_t O, per, o, e;
        if (!live[i] || !tt__op_has(bn->op, TT__F_BN_FOLDS)) continue;
        x = tt__node_in(g, bn, 0);
        hi = tt__producer(g, live, x);
        if (hi < 0) continue;
        h = &g->tape.nodes[hi];
        if (!tt__op_has(h->op, TT__F_BN_HEAD) || tt__channel_axis(h->op, g->tape.values[x].meta.ndim) != 1)
            continue;                                  /* batch norm's channels are axis 1 */
        wv = tt__node_in(g, h, 1);
        bv = h->n_in > 2 ? tt__node_in(g, h, 2) : -1;
        for (k = 0; k < 4; k++) c[k] = tt__node_in(g, bn, 1 + k);
        if (!tt__is_const(g, wv) || (bv >= 0 && !tt__is_const(g, bv)) || !tt__is_const(g, c[0]) || !tt__is_const(g, c[1]) ||
            (c[2] >= 0 && !tt__is_const(g, c[2])) || (c[3] >= 0 && !tt__is_const(g, c[3])) || tt__uses(g, live, x) != 1)
            continue;
        w = &g->tape.values[wv].meta;
        O = w->shape[0];
        per = w->numel / (O ? O : 1);
        nw = *w; nw.dtype = TT_F32;
        nb = *w; nb.dtype = TT_F32; nb.ndim = 1; nb.shape[0] = O;
        tt__set_contiguous_strides(&nb); tt__update_numel(&nb);
        wd = (float *)tt__heap_alloc(&g->tape.alloc, sizeof(float) * (size_t)(w->numel + O + 1));
        if (!wd) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
        bd = wd + w->numel;
        for (o = 0; o < O; o++) {
            double gamma = c[2] >= 0 ? (double)tt__load(g->tape.values[c[2]].data, g->tape.values[c[2]].meta.dtype, o) : 1.0;
            double beta = c[3] >= 0 ? (double)tt__load(g->tape.values[c[3]].data, g->tape.values[c[3]].meta.dtype, o) : 0.0;
            double mean = (double)tt__load(g->tape.values[c[0]].data, g->tape.values[c[0]].meta.dtype, o);
            double var = (double)tt__load(g->tape.values[c[1]].data, g->tape.values[c[1]].meta.dtype, o);
            double s = gamma / sqrt(var + (double)bn->a.f[0]);
            double b0 = bv >= 0 ? (double)tt__load(g->tape.values[bv].data, g->tape.values[bv].meta.dtype, o) : 0.0;
            for (e = 0; e < per; e++) wd[o * per + e] = (float)((double)tt__load(g->tape.values[wv].data, w->dtype, o * per + e) * s);
            bd[o] = (float)((b0 - mean) * s + beta);
        }
        nw.data = wd; nw.offset = 0;
        nb.data = bd; nb.offset = 0;
        ids[0] = tt__node_in(g, h, 0);
        ids[1] = tt__graph_add_const(g, &nw);
        ids[2] = tt__graph_add_const(g, &nb);
        tt__heap_free(&g->tape.alloc, wd);
        h = &g->tape.nodes[hi];                        /* (adding values does not move nodes) */
        if (ids[1] < 0 || ids[2] < 0 || !tt__node_set_inputs(g, h, ids, 3))
            return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
        g->remap[bn->out] = h->out;
        live[i] = false;
    }
    return TT_OK;
}

/* How many live nodes read value v (graph outputs count too). */
static int tt__uses(const tt_graph *g, const bool *live, int v) {
    int i, k, count = 0;
    for (i = 0; i < g->tape.n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[i];
        if (!live[i]) continue;
        for (k = 0; k < n->n_in; k++) if (tt__node_in(g, n, k) == v) count++;
    }
    for (k = 0; k < g->n_outputs; k++) if (tt__rv(g, g->outputs[k]) == v) count++;
    return count;
}

/* The axis of an op's result that holds its output channels. */
static int tt__channel_axis(int op, int ndim) { return tt__op_has(op, TT__F_CHANNELS_LAST) ? ndim - 1 : 1; }

static tt_status tt__pass_cse(tt_graph *g, bool *live) {
    int i, j, k;
    for (i = 0; i < g->tape.n_values; i++)             /* equal constants first: one value each */
        for (j = 0; j < i; j++)
            if (g->remap[j] == j && tt__same_const(&g->tape.values[i], &g->tape.values[j])) { g->remap[i] = j; break; }
    for (i = 0; i < g->tape.n_nodes; i++) {
        const tt__node *a = &g->tape.nodes[i];
        if (!live[i]) continue;
        for (j = 0; j < i; j++) {
            const tt__node *b = &g->tape.nodes[j];
            bool same = live[j] && a->op == b->op && a->n_in == b->n_in && memcmp(&a->a, &b->a, sizeof a->a) == 0;
            for (k = 0; same && k < a->n_in; k++) same = tt__node_in(g, a, k) == tt__node_in(g, b, k);
            if (same) { g->remap[a->out] = b->out; live[i] = false; break; }
        }
    }
    return TT_OK;
}

/* Common subexpressions: a node equal to an earlier live one (same op, inputs, attributes)
   is dropped and its result replaced by the earlier one's. */
static bool tt__same_const(const tt__value *a, const tt__value *b) {
    return a->kind == TT__V_CONST && b->kind == TT__V_CONST && a->meta.dtype == b->meta.dtype &&
           tt_same_shape(&a->meta, &b->meta) &&
           memcmp(a->data, b->data, (size_t)a->meta.numel * tt_dtype_size(a->meta.dtype)) == 0;
}

/* Dead code: keep only the nodes whose results an output needs. */
static tt_status tt__pass_dce(tt_graph *g, bool *live) {
    bool *needed = (bool *)tt__galloc(g, sizeof(bool) * (size_t)g->tape.n_values);
    int i, k;
    if (!needed) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
    for (i = 0; i < g->n_outputs; i++) needed[tt__rv(g, g->outputs[i])] = true;
    for (i = g->tape.n_nodes - 1; i >= 0; i--) {
        const tt__node *n = &g->tape.nodes[i];
        if (!live[i] || !needed[n->out]) { live[i] = false; continue; }
        for (k = 0; k < n->n_in; k++) {
            int v = tt__node_in(g, n, k);
            if (v >= 0) needed[v] = true;
        }
    }
    tt__heap_free(&g->tape.alloc, needed);
    return TT_OK;
}

/* Not a rewrite: the live nodes become the execution order (tape order), which the passes
   after it (fusion) rewrite. */
static tt_status tt__pass_order(tt_graph *g, bool *live) {
    int i;
    for (i = 0; i < g->tape.n_nodes; i++) if (live[i]) g->order[g->n_order++] = i;
    return TT_OK;
}

/* ==========================================================================
 * >>fuse   elementwise fusion: groups, micro-op programs, epilogue heads
 *
 * A group is a run of elementwise nodes of one output shape, each fed by an earlier
 * member. It becomes one FUSED node holding a micro-op program over registers: load an
 * input (broadcast strides), apply a unary/binary/where/cast, store an output. The
 * executor runs the program over chunks of TT__CHUNK elements, so every register stays
 * in L1 and the group reads each input once and writes each output once. Values used
 * only inside the group are never written to memory.
 * ========================================================================== */

typedef struct tt__uop {
    uint8_t kind;                  /* tt__ukind */
    uint8_t swap;                  /* PAIR: c op2 (a op b) instead of (a op b) op2 c */
    int16_t op;                    /* UNARY/BINARY/PAIR: the tt__opcode; CAST: the dtype */
    int16_t op2;                   /* PAIR: the second op */
    int16_t dst, a, b, c;          /* registers; LOAD: a = input index; STORE: b = output index */
    float   p0, p1;                /* UNARY parameters */
} tt__uop;

struct tt__program {
    int     n_uops, n_regs, n_in, n_out, n_members;
    int     head;                  /* epilogue fusion: a matmul/linear/conv node run first, or -1 */
    int     head_input;            /* the input index that reads the head's result */
    int     head_out;              /* the output (index into outs) the head writes into */
    bool    store_reads_input;     /* a store copies a register that points into an input */
    tt__uop uops[TT__FUSE_MAX_UOPS];
    int     outs[TT__FUSE_MAX_MEMBERS];    /* the values stored (outs[0] is the node's out) */
    int     members[TT__FUSE_MAX_MEMBERS]; /* the nodes it replaced */
};

typedef struct tt__group {
    int first_pos, last_pos, n_members, n_inputs;
    int members[TT__FUSE_MAX_MEMBERS];
    int inputs[TT__FUSE_MAX_IN];
} tt__group;

/* The fusion pass's working state (one cleanup in tt__pass_fuse). */
typedef struct tt__fuse_work {
    int       *gidv;               /* per value: the group whose member made it, or -1 */
    int       *gid_pos;            /* per order position: the node's group, or -1 */
    int       *new_order;
    int       *heads;              /* per group: its epilogue head node, or -1 */
    int        new_n;
    tt__group *groups;
    int        n_groups;
} tt__fuse_work;

static void tt__fuse_groups(const tt_graph *g, tt__fuse_work *w);
static bool tt__fusable(const tt_graph *g, const tt__node *n);
static bool tt__dtype_fusable(tt_dtype t);
static bool tt__can_join(const tt_graph *g, const tt__group *G, int gi, const int *gidv, const tt__node *n, int p);
static bool tt__group_has_value(const int *gid_of_value, int v, int G);
static void tt__group_add(const tt_graph *g, tt__group *G, int gi, int *gidv, const tt__node *n, int node_index, int p);
static int tt__fuse_heads(const tt_graph *g, tt__fuse_work *w, bool epilogue);
static int tt__epilogue_head(const tt_graph *g, const tt__group *G, int gi, const int *gid_pos);
static void tt__fuse_emit(tt_graph *g, tt__fuse_work *w);
static bool tt__fuse_is_head(const tt_graph *g, const tt__fuse_work *w, int p);
static void tt__fuse_emit_group(tt_graph *g, tt__fuse_work *w, int gi);
static void tt__fuse_keep(tt__fuse_work *w, int gi, const tt__node *head);
static void tt__program_build(const tt_graph *g, const tt__group *G, int gi, const int *gidv, const int *gid_node_pos, struct tt__program *pr);
static bool tt__value_escapes(const tt_graph *g, const int *gidv, const int *gid_node_pos, int v, int gi);
static void tt__program_pair(struct tt__program *pr);
static void tt__program_aliases(struct tt__program *pr);
static bool tt__pairable(const tt__uop *u);
static int tt__reg_uses(const struct tt__program *pr, int r, int *reader);

/* Elementwise fusion (and, with TT_PASS_EPILOGUE, epilogue fusion) over the order. */
static tt_status tt__pass_fuse(tt_graph *g, bool *live) {
    const tt_allocator *al = &g->tape.alloc;
    int nv = g->tape.n_values, n_order = g->n_order, n_fused;
    tt_status st = TT_OK;
    tt__fuse_work w;
    (void)live;                                        /* works on the order */
    memset(&w, 0, sizeof w);
    w.gidv = (int *)tt__galloc(g, sizeof(int) * (size_t)(nv + 3 * n_order + 1));
    w.groups = (tt__group *)tt__galloc(g, sizeof(tt__group) * (size_t)(n_order + 1));
    if (!w.gidv || !w.groups) {
        st = tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
        goto done;
    }
    w.gid_pos = w.gidv + nv;
    w.new_order = w.gid_pos + n_order;
    w.heads = w.new_order + n_order;
    tt__fuse_groups(g, &w);
    n_fused = tt__fuse_heads(g, &w, (g->passes & TT_PASS_EPILOGUE) != 0);
    if (n_fused > 0 &&
        (!tt__grow(al, (void **)&g->tape.nodes, &g->tape.cap_nodes, g->tape.n_nodes + n_fused, sizeof(tt__node)) ||
         !tt__grow(al, (void **)&g->progs, &g->cap_progs, g->n_progs + n_fused, sizeof(struct tt__program)))) {
        st = tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
        goto done;
    }
    tt__fuse_emit(g, &w);
done:
    tt__heap_free(al, w.gidv);
    tt__heap_free(al, w.groups);
    return st;
}

/* Grows groups in execution order: a node joins a group that made one of its inputs, else
   the latest group (a sibling), if legal, else starts one. */
static void tt__fuse_groups(const tt_graph *g, tt__fuse_work *w) {
    int p, k;
    for (k = 0; k < g->tape.n_values; k++) w->gidv[k] = -1;
    for (p = 0; p < g->n_order; p++) {
        int ni = g->order[p], joined = -1;
        const tt__node *n = &g->tape.nodes[ni];
        w->gid_pos[p] = -1;
        if (!tt__fusable(g, n)) continue;
        for (k = 0; k < n->n_in && joined < 0; k++) {
            int v = tt__node_in(g, n, k);
            if (v >= 0 && w->gidv[v] >= 0 && tt__can_join(g, &w->groups[w->gidv[v]], w->gidv[v], w->gidv, n, p))
                joined = w->gidv[v];
        }
        if (joined < 0 && w->n_groups > 0 && tt__can_join(g, &w->groups[w->n_groups - 1], w->n_groups - 1, w->gidv, n, p))
            joined = w->n_groups - 1;
        if (joined < 0) {
            joined = w->n_groups++;
            memset(&w->groups[joined], 0, sizeof(tt__group));
            w->groups[joined].first_pos = p;
        }
        tt__group_add(g, &w->groups[joined], joined, w->gidv, n, ni, p);
        w->gid_pos[p] = joined;
    }
}

/* Elementwise ops whose values survive a trip through an f32 register exactly. */
static bool tt__fusable(const tt_graph *g, const tt__node *n) {
    int k;
    if (tt__op_uop(n->op) == TT__U_NONE) return false;
    if (!tt__dtype_fusable(g->tape.values[n->out].meta.dtype)) return false;
    for (k = 0; k < n->n_in; k++) {
        int v = tt__node_in(g, n, k);
        if (v < 0 || !tt__dtype_fusable(g->tape.values[v].meta.dtype)) return false;
    }
    return true;
}

static bool tt__dtype_fusable(tt_dtype t) { return t == TT_F32 || t == TT_F16 || t == TT_BF16 || t == TT_BOOL; }

/* Can node n (at position p) join group G? Its inputs from outside G must fit the input
   budget, and no node between G's last member and p may read a value of G (it would run
   before the fused node). */
static bool tt__can_join(const tt_graph *g, const tt__group *G, int gi, const int *gidv, const tt__node *n, int p) {
    int k, q, extra = 0;
    if (G->n_members >= TT__FUSE_MAX_MEMBERS) return false;
    if (!tt_same_shape(&g->tape.values[n->out].meta, &g->tape.values[g->tape.nodes[G->members[0]].out].meta)) return false;
    for (k = 0; k < n->n_in; k++) {
        int v = tt__node_in(g, n, k), j;
        bool known = tt__group_has_value(gidv, v, gi);
        for (j = 0; !known && j < G->n_inputs; j++) known = G->inputs[j] == v;
        for (j = 0; !known && j < k; j++) known = tt__node_in(g, n, j) == v;
        if (!known) extra++;
    }
    if (G->n_inputs + extra > TT__FUSE_MAX_IN) return false;
    for (q = G->last_pos + 1; q < p; q++) {
        const tt__node *m = &g->tape.nodes[g->order[q]];
        for (k = 0; k < m->n_in; k++) if (tt__group_has_value(gidv, tt__node_in(g, m, k), gi)) return false;
    }
    return true;
}

/* gid[value]: the group whose member produced it (-1: none). */
static bool tt__group_has_value(const int *gid_of_value, int v, int G) { return v >= 0 && gid_of_value[v] == G; }

static void tt__group_add(const tt_graph *g, tt__group *G, int gi, int *gidv, const tt__node *n, int node_index, int p) {
    int k, j;
    for (k = 0; k < n->n_in; k++) {
        int v = tt__node_in(g, n, k);
        bool known = tt__group_has_value(gidv, v, gi);
        for (j = 0; !known && j < G->n_inputs; j++) known = G->inputs[j] == v;
        if (!known) G->inputs[G->n_inputs++] = v;
    }
    G->members[G->n_members++] = node_index;
    G->last_pos = p;
    gidv[n->out] = gi;
}

/* Finds each group's epilogue head; returns how many fused nodes there will be at most. */
static int tt__fuse_heads(const tt_graph *g, tt__fuse_work *w, bool epilogue) {
    int k, n_fused = 0;
    for (k = 0; k < w->n_groups; k++) {
        w->heads[k] = epilogue ? tt__epilogue_head(g, &w->groups[k], k, w->gid_pos) : -1;
        if (w->groups[k].n_members >= 2 || w->heads[k] >= 0) n_fused++;
    }
    return n_fused;
}

/* Epilogue fusion: the matmul/linear/conv node whose f32 result only group G reads (and
   that has G's shape) can run inside G's fused node, writing into one of G's f32 outputs,
   which the program then reads and overwrites chunk by chunk. Returns the node or -1. */
static int tt__epilogue_head(const tt_graph *g, const tt__group *G, int gi, const int *gid_pos) {
    const tt__node *first = &g->tape.nodes[G->members[0]];
    int k, q, j;
    for (k = 0; k < first->n_in; k++) {
        int v = tt__node_in(g, first, k), h = -1, uses = 0;
        const tt__value *val = v >= 0 ? &g->tape.values[v] : NULL;
        if (!val || val->kind != TT__V_NODE || val->meta.dtype != TT_F32 || !tt_same_shape(&val->meta,
            &g->tape.values[first->out].meta)) continue;
        for (q = 0; q < g->n_order; q++) if (g->order[q] == val->node) h = q;
        if (h < 0) continue;
        j = g->tape.nodes[g->order[h]].op;
        if (!tt__op_has(j, TT__F_GEMM_HEAD)) continue;
        for (q = 0; q < g->n_order && uses >= 0; q++) {
            const tt__node *m = &g->tape.nodes[g->order[q]];
            for (j = 0; j < m->n_in; j++)
                if (tt__node_in(g, m, j) == v) uses = gid_pos[q] == gi ? uses + 1 : -1;
        }
        for (j = 0; j < g->n_outputs; j++) if (tt__rv(g, g->outputs[j]) == v) uses = -1;
        if (uses > 0) return g->order[h];
    }
    return -1;
}

/* The new order: nodes outside groups as they were, a fused node at its group's end. */
static void tt__fuse_emit(tt_graph *g, tt__fuse_work *w) {
    int p;
    w->new_n = 0;
    for (p = 0; p < g->n_order; p++) {
        int gi = w->gid_pos[p];
        if (tt__fuse_is_head(g, w, p)) continue;      /* runs inside its group's fused node */
        if (gi < 0 || (w->groups[gi].n_members < 2 && w->heads[gi] < 0)) {
            w->new_order[w->new_n++] = g->order[p];
            continue;
        }
        if (p == w->groups[gi].last_pos) tt__fuse_emit_group(g, w, gi);
    }
    memcpy(g->order, w->new_order, sizeof(int) * (size_t)w->new_n);
    g->n_order = w->new_n;
}

/* Is the node at position p the epilogue head of some group? (It runs inside that group.) */
static bool tt__fuse_is_head(const tt_graph *g, const tt__fuse_work *w, int p) {
    int k;
    for (k = 0; k < w->n_groups; k++) if (w->heads[k] == g->order[p]) return true;
    return false;
}

/* Makes group gi one FUSED node at the end of the order (or keeps its members when the
   program has nothing to store, or a lone member has no head to run). */
static void tt__fuse_emit_group(tt_graph *g, tt__fuse_work *w, int gi) {
    struct tt__program *pr = &g->progs[g->n_progs];
    const tt__group *G = &w->groups[gi];
    const tt__node *head = w->heads[gi] >= 0 ? &g->tape.nodes[w->heads[gi]] : NULL;
    int head_n_in = head ? head->n_in : 0, hk, j;
    tt__node *f;
    tt__program_build(g, G, gi, w->gidv, w->gid_pos, pr);
    if (head) {                                        /* the head writes into an f32 output */
        for (hk = 0; hk < pr->n_in && G->inputs[hk] != head->out; hk++) {}
        for (j = pr->n_out - 1; j >= 0 && g->tape.values[pr->outs[j]].meta.dtype != TT_F32; j--) {}
        pr->head = j >= 0 && hk < pr->n_in ? w->heads[gi] : -1;
        pr->head_input = hk;
        pr->head_out = j;
        if (pr->head < 0) {                            /* no f32 output to write into: the head runs alone */
            w->new_order[w->new_n++] = w->heads[gi];
            head = NULL;
            head_n_in = 0;
        }
    }
    if (pr->n_out == 0 || (pr->head < 0 && G->n_members < 2) ||
        !tt__grow(&g->tape.alloc, (void **)&g->tape.pool, &g->tape.cap_pool, g->tape.n_pool + pr->n_in + head_n_in, sizeof(int))) {
        tt__fuse_keep(w, gi, head);
        return;
    }
    f = &g->tape.nodes[g->tape.n_nodes];
    memset(f, 0, sizeof *f);
    f->op = TT__OP_FUSED;
    f->name = "fused";
    f->a.i[0] = g->n_progs++;
    f->in_at = g->tape.n_pool;
    f->n_in = pr->n_in + head_n_in;                    /* the program's inputs, then the head's */
    for (j = 0; j < pr->n_in; j++)
        g->tape.pool[g->tape.n_pool++] = pr->head >= 0 && j == pr->head_input ? -1 : G->inputs[j];
    for (j = 0; j < head_n_in; j++) g->tape.pool[g->tape.n_pool++] = tt__node_in(g, head, j);
    f->out = pr->outs[0];
    w->new_order[w->new_n++] = g->tape.n_nodes++;
}

/* Group gi's members (and head) back into the order, unfused. */
static void tt__fuse_keep(tt__fuse_work *w, int gi, const tt__node *head) {
    int j;
    if (head) w->new_order[w->new_n++] = w->heads[gi];
    for (j = 0; j < w->groups[gi].n_members; j++) w->new_order[w->new_n++] = w->groups[gi].members[j];
}

/* Writes the micro-op program of group G. Registers: one per input load, one per member.
   Stores come last, after every load of the chunk: an output may then reuse the buffer of
   an input that dies here (the memory plan's in-place reuse). */
static void tt__program_build(const tt_graph *g, const tt__group *G, int gi, const int *gidv, const int *gid_node_pos,
                              struct tt__program *pr) {
    int reg_of_member[TT__FUSE_MAX_MEMBERS], store_reg[TT__FUSE_MAX_MEMBERS], i, k, r = 0;
    memset(pr, 0, sizeof *pr);
    pr->head = -1;
    for (i = 0; i < G->n_inputs; i++) {
        tt__uop *u = &pr->uops[pr->n_uops++];
        u->kind = TT__U_LOAD; u->dst = (int16_t)r++; u->a = (int16_t)i;
    }
    pr->n_in = G->n_inputs;
    for (i = 0; i < G->n_members; i++) {
        const tt__node *n = &g->tape.nodes[G->members[i]];
        tt__uop *u = &pr->uops[pr->n_uops++];
        int opr[3] = {0, 0, 0};
        for (k = 0; k < n->n_in && k < 3; k++) {     /* operand registers */
            int v = tt__node_in(g, n, k), j;
            opr[k] = -1;
            for (j = 0; j < i && opr[k] < 0; j++) if (g->tape.nodes[G->members[j]].out == v) opr[k] = reg_of_member[j];
            for (j = 0; j < G->n_inputs && opr[k] < 0; j++) if (G->inputs[j] == v) opr[k] = j;
        }
        reg_of_member[i] = r;
        u->dst = (int16_t)r++;
        u->a = (int16_t)opr[0]; u->b = (int16_t)opr[1]; u->c = (int16_t)opr[2];
        u->op = (int16_t)n->op;
        u->p0 = n->a.f[0]; u->p1 = n->a.f[1];
        u->kind = (uint8_t)tt__op_uop(n->op);
        if (u->kind == TT__U_WHERE) {                  /* where(cond, a, b): c = cond */
            u->c = (int16_t)opr[0];
            u->a = (int16_t)opr[1];
            u->b = (int16_t)opr[2];
        }
        if (u->kind == TT__U_CAST) u->op = (int16_t)n->a.i[0];
        pr->members[pr->n_members++] = G->members[i];
        if (tt__value_escapes(g, gidv, gid_node_pos, n->out, gi)) {
            store_reg[pr->n_out] = reg_of_member[i];
            pr->outs[pr->n_out++] = n->out;
        }
    }
    for (i = 0; i < pr->n_out; i++) {
        tt__uop *st = &pr->uops[pr->n_uops++];
        st->kind = TT__U_STORE; st->a = (int16_t)store_reg[i]; st->b = (int16_t)i;
    }
    pr->n_regs = r;
    tt__program_pair(pr);
    tt__program_aliases(pr);
}

/* Sets store_reads_input: loads may point into their input, and f32 casts alias their operand. */
static void tt__program_aliases(struct tt__program *pr) {
    bool aliases[TT__FUSE_MAX_UOPS];
    int i;
    memset(aliases, 0, sizeof aliases);
    pr->store_reads_input = false;
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *u = &pr->uops[i];
        if (u->kind == TT__U_LOAD) aliases[u->dst] = true;
        if (u->kind == TT__U_CAST && u->op == TT_F32) aliases[u->dst] = aliases[u->a];
        if (u->kind == TT__U_STORE && aliases[u->a]) pr->store_reads_input = true;
    }
}

/* Is value v (made in group gi) read after the group, or a graph output? */
static bool tt__value_escapes(const tt_graph *g, const int *gidv, const int *gid_node_pos, int v, int gi) {
    int q, k;
    for (k = 0; k < g->n_outputs; k++) if (tt__rv(g, g->outputs[k]) == v) return true;
    for (q = 0; q < g->n_order; q++) {
        const tt__node *m = &g->tape.nodes[g->order[q]];
        if (gid_node_pos[q] == gi) continue;
        for (k = 0; k < m->n_in; k++) if (tt__node_in(g, m, k) == v) return true;
    }
    (void)gidv;
    return false;
}

/* Merges each pairable uop into the pairable uop that alone reads its result, then drops
   the emptied slots. Registers are written once, so the first op's operands still hold
   their values where the second op runs. */
static void tt__program_pair(struct tt__program *pr) {
    int i, n = 0;
    for (i = 0; i < pr->n_uops; i++) {
        tt__uop *first = &pr->uops[i], *second;
        int reader = -1;
        if (!tt__pairable(first) || tt__reg_uses(pr, first->dst, &reader) != 1) continue;
        second = &pr->uops[reader];
        if (!tt__pairable(second)) continue;
        second->kind = TT__U_PAIR;
        second->swap = (uint8_t)(second->b == first->dst);
        second->op2 = second->op;
        second->c = second->swap ? second->a : second->b;
        second->op = first->op;
        second->a = first->a;
        second->b = first->b;
        first->kind = TT__U_NONE;
    }
    for (i = 0; i < pr->n_uops; i++) if (pr->uops[i].kind != TT__U_NONE) pr->uops[n++] = pr->uops[i];
    pr->n_uops = n;
}

/* Pairs: two binary micro-ops in one pass. A chunk pass costs loads and stores
   whatever it computes, so (a op b) op2 c with op, op2 among + - * runs as one pass when
   the first result feeds only the second (it never reaches memory). Each op still
   rounds on its own (tt__pair_chunk), so results stay bitwise those of the two ops. */
static bool tt__pairable(const tt__uop *u) {
    return u->kind == TT__U_BINARY && tt__op_has(u->op, TT__F_PAIRABLE);
}

/* How many uops and stores read register r. */
static int tt__reg_uses(const struct tt__program *pr, int r, int *reader) {
    int i, uses = 0;
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *u = &pr->uops[i];
        int n = 0;
        if (u->kind == TT__U_LOAD || u->kind == TT__U_NONE) continue;
        if (u->kind == TT__U_STORE) n = u->a == r;
        else n = (u->a == r) + (u->kind != TT__U_UNARY && u->kind != TT__U_CAST && u->b == r) +
                 ((u->kind == TT__U_WHERE || u->kind == TT__U_PAIR) && u->c == r);
        if (n) *reader = i;
        uses += n;
    }
    return uses;
}

/* The values node n writes: its out, or a fused node's stores. */
static int tt__node_outs(const tt_graph *g, const tt__node *n, const int **outs) {
    if (tt__is_fused(n)) {
        const struct tt__program *pr = &g->progs[n->a.i[0]];
        *outs = pr->outs;
        return pr->n_out;
    }
    *outs = &n->out;
    return 1;
}

/* ==========================================================================
 * >>plan   the memory plan: lifetimes, in-place reuse, offsets in one arena
 * ========================================================================== */

static void tt__plan_lifetimes(tt_graph *g, int *root, int *first, int *last);
static size_t tt__plan_offsets(tt_graph *g, const int *first, const int *last, int *list, int n);
static bool tt__can_share(const tt_graph *g, int u, int v);
static size_t tt__value_bytes(const tt__value *v);
static bool tt__plan_is_valid(const tt_graph *g);
static void tt__rt_planned(tt_graph *g, int v);

static tt_status tt__graph_plan(tt_graph *g) {
    int nv = g->tape.n_values, v, n = 0;
    int *first = (int *)tt__galloc(g, sizeof(int) * (size_t)nv * 4), *last, *root, *list;
    g->offset = (int64_t *)tt__galloc(g, sizeof(int64_t) * (size_t)nv);
    if (!g->rt) g->rt = (tt_tensor *)tt__galloc(g, sizeof(tt_tensor) * (size_t)nv);   /* a load made it already */
    if (!first || !g->offset || !g->rt) {
        tt__heap_free(&g->tape.alloc, first);
        return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory");
    }
    last = first + nv;                                 /* only now: arithmetic on NULL is undefined */
    root = last + nv;
    list = root + nv;
    g->first = first;
    g->last = last;
    g->root = root;
    tt__plan_lifetimes(g, root, first, last);
    g->unplanned_bytes = 0;
    g->constant_bytes = 0;
    for (v = 0; v < nv; v++) {
        const tt__value *val = &g->tape.values[v];
        g->offset[v] = -1;
        if (last[v] < -1) continue;                    /* not used by a live node nor an output */
        if (val->kind == TT__V_CONST) g->constant_bytes += (size_t)val->meta.numel * tt_dtype_size(val->meta.dtype);
        if (val->kind == TT__V_INPUT || (val->kind == TT__V_NODE && root[v] == v)) {
            list[n++] = v;                             /* inputs get a slot for non-contiguous runs */
            g->unplanned_bytes += tt__value_bytes(val);
        }
    }
    g->arena_bytes = tt__plan_offsets(g, first, last, list, n);
    if (!tt__plan_is_valid(g)) return tt__gfail(g, TT_ERR_STATE, "tt_graph_compile: internal error: the memory plan overlaps");
    g->arena = (unsigned char *)tt__galloc(g, g->arena_bytes);
    if (!g->arena) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory for a %D-byte arena", (int64_t)g->arena_bytes);
    for (v = 0; v < nv; v++) {
        const tt__value *val = &g->tape.values[v];
        if (g->offset[v] >= 0) tt__rt_planned(g, v);
        else if (val->kind == TT__V_CONST) g->rt[v] = val->meta;
    }
    return TT_OK;
}

/* Lifetimes in node positions: first = the writer (-1: before the first node), last = the
   last reader (n_order: an output); views extend the lifetime of the buffer they view. */
static void tt__plan_lifetimes(tt_graph *g, int *root, int *first, int *last) {
    int nv = g->tape.n_values, p, k, v;
    for (v = 0; v < nv; v++) { root[v] = v; first[v] = -1; last[v] = -2; }
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        for (k = 0; k < n->n_in; k++) {
            v = tt__node_in(g, n, k);
            if (v >= 0) last[root[v]] = p;
        }
        {
            const int *outs;
            int no = tt__node_outs(g, n, &outs), j;
            for (j = 0; j < no; j++) {
                v = outs[j];
                root[v] = tt__is_view_op(n->op) ? root[tt__node_in(g, n, 0)] : v;
                first[v] = p;
                if (last[root[v]] < p) last[root[v]] = p;
            }
        }
    }
    for (k = 0; k < g->n_outputs; k++) last[root[tt__rv(g, g->outputs[k])]] = g->n_order;
}

/* Greedy placement, largest first: the lowest offset whose bytes no value with an
   overlapping lifetime holds. Returns the arena size. */
static size_t tt__plan_offsets(tt_graph *g, const int *first, const int *last, int *list, int n) {
    size_t arena = 0;
    int i, j, k;
    for (i = 1; i < n; i++) {                          /* insertion sort by size, descending */
        int v = list[i];
        for (j = i - 1; j >= 0 && tt__value_bytes(&g->tape.values[list[j]]) < tt__value_bytes(&g->tape.values[v]); j--)
            list[j + 1] = list[j];
        list[j + 1] = v;
    }
    for (i = 0; i < n; i++) {
        int v = list[i];
        size_t size = tt__value_bytes(&g->tape.values[v]), off = 0;
        bool moved = true;
        while (moved) {                                /* bump past every conflicting placed value */
            moved = false;
            for (k = 0; k < i; k++) {
                int u = list[k];
                size_t uo = (size_t)g->offset[u], us = tt__value_bytes(&g->tape.values[u]);
                bool share = tt__can_share(g, u, v) || tt__can_share(g, v, u);
                bool time = first[u] <= last[v] && first[v] <= last[u] && (!share || off != uo);
                /* a value may take a dying input's bytes exactly, never a shifted part of them:
                   element i would then overwrite element i + d before the program reads it */
                if (time && off < uo + us && uo < off + size) { off = uo + us; moved = true; }
            }
        }
        g->offset[v] = (int64_t)off;
        if (off + size > arena) arena = off + size;
    }
    return arena;
}

/* In-place reuse: may v (written at position first[v]) take the bytes of u, whose last
   reader is that same node? Only for a fused node without an epilogue head that reads u
   as a whole-shape input: its program loads a chunk of every input before it stores. */
static bool tt__can_share(const tt_graph *g, int u, int v) {
    const tt__node *n;
    const struct tt__program *pr;
    int k;
    if (g->first[v] < 0 || g->last[u] != g->first[v]) return false;
    n = &g->tape.nodes[g->order[g->first[v]]];
    if (!tt__is_fused(n)) return false;
    pr = &g->progs[n->a.i[0]];
    if (pr->head >= 0 || pr->store_reads_input || tt__value_bytes(&g->tape.values[u]) != tt__value_bytes(&g->tape.values[v]) ||
        !tt_same_shape(&g->tape.values[u].meta, &g->tape.values[v].meta)) return false;
    for (k = 0; k < pr->n_in; k++) {                   /* u read through a view: elements out of step */
        int w = tt__node_in(g, n, k);
        if (w != u && w >= 0 && g->root[w] == u) return false;
    }
    for (k = 0; k < pr->n_in; k++) if (tt__node_in(g, n, k) == u) return true;
    return false;
}

static size_t tt__value_bytes(const tt__value *v) {
    return tt__round_up((size_t)v->meta.numel * tt_dtype_size(v->meta.dtype), TT__ALIGN);
}

/* No two buffers whose lifetimes overlap may share a byte: checked after every plan. */
static bool tt__plan_is_valid(const tt_graph *g) {
    int u, v;
    for (v = 0; v < g->tape.n_values; v++) {
        if (g->offset[v] < 0) continue;
        for (u = 0; u < v; u++) {
            size_t uo, vo;
            if (g->offset[u] < 0 || g->first[u] > g->last[v] || g->first[v] > g->last[u]) continue;
            uo = (size_t)g->offset[u]; vo = (size_t)g->offset[v];
            if (uo == vo && (tt__can_share(g, u, v) || tt__can_share(g, v, u))) continue;   /* in place, exactly */
            if (uo < vo + tt__value_bytes(&g->tape.values[v]) && vo < uo + tt__value_bytes(&g->tape.values[u])) return false;
        }
    }
    return true;
}

/* Header of value v over its planned bytes (contiguous). */
static void tt__rt_planned(tt_graph *g, int v) {
    tt_tensor *t = &g->rt[v];
    *t = g->tape.values[v].meta;
    t->data = g->arena + g->offset[v];
    t->offset = 0;
    t->ctx = NULL;
    tt__set_contiguous_strides(t);
}

/* ==========================================================================
 * >>exec   running a graph: bind, run, the CPU backend (its layout pass), the fused-program
 *          interpreter
 * ========================================================================== */

/* One fused node's run: the program over the tasks of the output shape. */
typedef struct tt__fused_job {
    tt_graph                 *g;
    const struct tt__program *pr;
    const tt_tensor          *in[TT__MAX_OPS];
    tt__loop                  L;
    tt__split                 sp;
    float                    *regs;    /* n_regs * TT__CHUNK floats per thread */
    float                    *direct[TT__FUSE_MAX_UOPS];   /* per register: the f32 output it is
                                                              computed straight into, or NULL */
    int64_t                   in_end[TT__MAX_OPS];         /* elements of each input's storage */
    const tt__kernels        *kt;
} tt__fused_job;

/* A fused program reads a chunk of each input, then computes on it for a while, then writes
   a chunk of each output: bursts that the hardware prefetcher follows late (with 16M floats
   the compiled chain took 1.45x the time of one C loop, 1.3x with these hints). Inputs: the
   lines of the next chunk, elements [at, at + n) of the n_total in its storage (no pointer
   past them is formed). Outputs computed in place: their lines, for writing, before the
   chunk's first op, so the stores do not wait for them. */
#define TT__PREFETCH_AHEAD TT__CHUNK
static void tt__prefetch_ahead(const float *base, int64_t at, int64_t n, int64_t n_total) {
    int64_t i, end = tt__min64(at + n, n_total);
    for (i = at; i < end; i += 16) TT__PREFETCH(base + i);
}
static void tt__prefetch_write(float *p, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i += 16) TT__PREFETCH_W(p + i);
}

static bool tt__cpu_supports(const tt_graph *g, const tt__node *n);
static tt_status tt__graph_size_scratch(tt_graph *g);
static tt_status tt__cpu_run(tt_graph *g);
static tt_status tt__cpu_load_inputs(tt_graph *g);
static tt_status tt__cpu_fetch(tt_graph *g, int p);
static void tt__prepack_weights(tt_graph *g);
static void tt__cpu_plan_layouts(tt_graph *g);
static void tt__cpu_layouts(tt_graph *g, bool on);
static void *tt__ctx_free_bytes(tt_ctx *ctx, size_t *size);
static tt_status tt__cpu_sync(tt_graph *g);
static void tt__cpu_release(tt_graph *g);
static tt_status tt__graph_bind(tt_graph *g, const char *fn, tt_tensor *const *inputs, int n_inputs);
static tt_status tt__bind_input(tt_graph *g, const char *fn, int i, tt_tensor *t);
static void tt__bind_params(tt_graph *g);
static tt_status tt__graph_exec(tt_graph *g, tt_ctx *scratch, size_t *measure);
static bool tt__graph_exec_node(tt_graph *g, tt_ctx *scratch, int p, size_t *measure);
static bool tt__cpu_run_node(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt_tensor *out);
static const float *tt__graph_packed_weight(tt_graph *g, int node, const tt__call *c, const tt_tensor *out);
static bool tt__cpu_conv_nhwc(const tt_graph *g, const tt__call *c, const tt_tensor *out);
static const float *tt__graph_wino_weight(tt_graph *g, int node, const tt__call *c);
static bool tt__graph_constant_f32(const tt_graph *g, const tt_tensor *t);
static void tt__cpu_node_weights(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt__cpu_node *data, tt_tensor *out);
static void tt__conv_algos_plan(tt_graph *g);
static bool tt__conv_algos_to_time(const tt_graph *g);
static float **tt__graph_prepared_slot(tt_graph *g, int node);
static void tt__conv_algo_measure(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt__cpu_node *data, tt_tensor *out);
static tt_status tt__graph_node_failed(tt_graph *g, tt_ctx *scratch, int p);
static void tt__poison_dead(tt_graph *g, int p);
static bool tt__exec_fused(tt_graph *g, tt_ctx *scratch, const tt__node *n);
static void tt__fused_direct_outputs(tt_graph *g, const struct tt__program *pr, tt__fused_job *j);
static int64_t tt__storage_end(const tt_tensor *t);
static bool tt__tensors_overlap(const tt_tensor *o, const tt_tensor *t);
static bool tt__program_is_head_relu(const tt_graph *g, const struct tt__program *pr);
static tt__clamp tt__program_head_clamp(const tt_graph *g, const struct tt__program *pr);
static void tt__fused_task(void *arg, int64_t t, int thread);
static void tt__fused_chunk(const tt__fused_job *j, const tt__loop *L, int64_t c, int64_t cnt, float *regs, const float **R, bool row_start);

/* The CPU backend: an op node runs its op-table row's kernel (tt__cpu_run_node), a fused
   node the micro-op interpreter (tt__exec_fused); prepare is the dry run that sizes the
   scratch and packs constant weights. Its functions follow, then the run path they serve. */
static const tt__backend tt__cpu_backend = {
    "cpu",
    tt__cpu_supports,
    tt__graph_size_scratch,        /* prepare: the dry run sizes the scratch and packs weights */
    tt__cpu_run,
    tt__cpu_load_inputs,
    tt__cpu_fetch,
    tt__cpu_run_node,
    tt__exec_fused,
    tt__cpu_sync,
    tt__cpu_release
};

/* The backend a compile picks: the CPU's (a GPU backend would move a compiled graph to itself). */
static const tt__backend *tt__default_backend(void) { return &tt__cpu_backend; }

/* Every live node is one the backend can run. */
static tt_status tt__check_backend(tt_graph *g) {
    int p;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        if (!g->backend->supports(g, n))
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "tt_graph_compile: the %s backend cannot run node %d (%s)",
                             g->backend->name, g->order[p], tt__op_table[n->op].name);
    }
    return TT_OK;
}

static bool tt__cpu_supports(const tt_graph *g, const tt__node *n) {
    (void)g;
    (void)n;
    return true;
}

/* Dry run on zero inputs (in their slots): measures the scratch every kernel needs. Weights
   are packed first, so that the dry run allocates nothing but its scratch: a graph in a user
   buffer runs it over that buffer's free bytes, where its scratch then goes. Where it timed
   convolutions (TT_MODE_MAX_AUTOTUNE), their candidates took scratch too: a second dry run
   measures the choices'. */
static tt_status tt__graph_size_scratch(tt_graph *g) {
    tt_ctx_desc d = tt__graph_ctx_desc(g), probe_desc;
    tt_ctx *probe;
    size_t need = 0;
    tt_status st;
    bool timing;
    int i;
    d.n_threads = g->tape.n_threads;                   /* the scratch of a run is sized per thread */
    d.parallel_for = g->tape.parallel_for;
    d.parallel_user = g->tape.parallel_user;
    tt__cpu_plan_layouts(g);
    tt__conv_algos_plan(g);
    tt__prepack_weights(g);
    probe_desc = d;
    if (g->home) {                                     /* its thread pool (if any) from the heap, not those bytes */
        probe_desc.mem_buffer = tt__ctx_free_bytes(g->home, &probe_desc.mem_size);
        memset(&probe_desc.allocator, 0, sizeof probe_desc.allocator);
    }
    probe = tt_ctx_create(&probe_desc);
    if (!probe) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory%s", g->home ? " in the context's buffer" : "");
    for (i = 0; i < g->tape.n_inputs; i++) {
        int v = g->tape.inputs[i];
        if (g->offset[v] < 0) continue;
        tt__rt_planned(g, v);
        memset(g->rt[v].data, 0, (size_t)g->rt[v].numel * tt_dtype_size(g->rt[v].dtype));
    }
    tt__bind_params(g);
    tt__cpu_layouts(g, true);
    timing = tt__conv_algos_to_time(g);
    st = tt__graph_exec(g, probe, &need);
    if (st == TT_OK && timing) {
        need = 0;
        st = tt__graph_exec(g, probe, &need);
    }
    tt__cpu_layouts(g, false);
    tt_ctx_destroy(probe);
    if (st != TT_OK) return st;
    g->cpu.scratch_bytes = need;
    d.mem_size = TT_CTX_OVERHEAD + need + TT__ALIGN;
    g->cpu.scratch_mem = tt__galloc(g, d.mem_size);
    d.mem_buffer = g->cpu.scratch_mem;
    g->cpu.scratch = g->cpu.scratch_mem ? tt_ctx_create(&d) : NULL;
    if (!g->cpu.scratch) return tt__gfail(g, TT_ERR_OOM, "tt_graph_compile: out of memory for scratch");
#if TT__HAS_THREADS
    if (g->cpu.scratch->n_threads > 1 && !g->cpu.scratch->parallel_for) tt__pool_get(g->cpu.scratch);  /* now, not in a run */
#endif
    return TT_OK;
}

/* Packs each constant linear weight (tt__graph_packed_weight) before any run: of op nodes and
   of the epilogue heads of fused nodes. */
static void tt__prepack_weights(tt_graph *g) {
    int p;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        const struct tt__program *pr = tt__is_fused(n) ? &g->progs[n->a.i[0]] : NULL;
        int node = pr ? pr->head : g->order[p];
        int at = pr ? pr->n_in : 0;                    /* a head's inputs follow the program's */
        const tt__node *h = node >= 0 ? &g->tape.nodes[node] : NULL;
        tt_tensor *in[2];
        tt__call c;
        int x, w;
        if (!h || !tt__op_has(h->op, TT__F_PACK_WEIGHT) || h->n_in < 2) continue;
        x = tt__node_in(g, n, at);
        w = tt__node_in(g, n, at + 1);
        if (w < 0) continue;
        in[0] = x >= 0 ? &g->rt[x] : NULL;             /* where a run will have it: the layout decides */
        in[1] = &g->rt[w];
        c = tt__call_init(h->name, h->op, in, 2, &h->a);
        tt__graph_packed_weight(g, node, &c, &g->rt[pr ? pr->outs[pr->head_out] : n->out]);
    }
}

/* A convolution node of a compiled graph, as the CPU backend's passes (layouts, algorithms)
   see it. */
typedef struct tt__graph_conv {
    int             node;              /* the convolution node (an op node, or a fused node's head) */
    int             x, w, y;           /* its input, weight and output values */
    int             x_at;              /* where x is among the inputs of the node that runs it */
    tt__conv_job    j;                 /* its shape (no data) */
    bool            native;            /* a channels-last kernel takes it */
} tt__graph_conv;

/* The convolution node n runs (itself, or its epilogue head): false when none. */
static bool tt__graph_conv_of(const tt_graph *g, const tt__node *n, tt__graph_conv *gc) {
    const struct tt__program *pr = tt__is_fused(n) ? &g->progs[n->a.i[0]] : NULL;
    const tt__node *h;
    tt__call c;
    memset(gc, 0, sizeof *gc);
    gc->node = pr ? pr->head : (int)(n - g->tape.nodes);
    h = gc->node >= 0 ? &g->tape.nodes[gc->node] : NULL;
    if (!h || h->op != TT__OP_CONV2D) return false;
    gc->x_at = pr ? pr->n_in : 0;                      /* a head's inputs follow the program's */
    gc->x = tt__node_in(g, n, gc->x_at);
    gc->w = tt__node_in(g, n, gc->x_at + 1);
    gc->y = pr ? pr->outs[pr->head_out] : n->out;
    if (gc->x < 0 || gc->w < 0) return false;
    c = tt__call_init(h->name, h->op, NULL, 0, &h->a);
    gc->j = tt__conv_job_shape(&c, &g->tape.values[gc->w].meta, &g->tape.values[gc->y].meta, g->tape.kern);
    gc->native = tt__dw_nhwc_applies(&gc->j) || tt__pointwise_nhwc_applies(&gc->j, g->tape.values[gc->y].meta.shape[0]);
    return true;
}

/* The layout pass (the CPU backend's, at prepare). Which values a CPU run keeps channels-last:
   4-D f32 values between convolutions that have channels-last kernels (tt__conv_nhwc_native:
   MobileNetV2's depthwise and pointwise layers), so that those run on vectors over channels
   with no bands and no copies. A value qualifies when only convolutions (as their input x)
   and fused programs (elementwise: they read any layout) read it, a convolution or a fused
   program writes it, and it is no graph input or output, view or viewed buffer; it is chosen
   when at least as many of the convolutions that write or read it have channels-last kernels
   as have not (each of the others copies it once). Then a fused node's outputs share one
   layout, as do an output and the input whose bytes it takes in place. Only the headers a run
   sees change (tt__cpu_layouts): the bytes, offsets and memory plan stay, and graph files,
   export and a GPU backend see the channels-first graph. */
/* The convolution algorithm node n of a compiled graph runs (its own TT__CONV_ALGO or its
   epilogue head's): 0 (direct sums; every other op too), or 2 or 4 (Winograd's tile). */
static int64_t tt__conv_algo_of(const tt_graph *g, const tt__node *n) {
    tt__graph_conv gc;
    return tt__graph_conv_of(g, n, &gc) ? g->tape.nodes[gc.node].a.i[TT__CONV_ALGO] : 0;
}

/* May value v be channels-last at all (before its readers and writer are looked at)? */
static bool tt__layout_candidate(const tt_graph *g, int v) {
    const tt_tensor *m = &g->tape.values[v].meta;
    return g->tape.values[v].kind == TT__V_NODE && g->offset[v] >= 0 && g->root[v] == v && m->dtype == TT_F32 &&
           m->ndim == 4 && m->shape[1] > 1 && m->shape[2] * m->shape[3] > 1;
}

/* The readers and the writer of every value: ok[v] false where one cannot take channels-last
   data; votes[2v] / votes[2v+1]: the convolutions among them with / without a channels-last
   kernel. */
static void tt__layout_votes(const tt_graph *g, bool *ok, int *votes) {
    int p, k, i;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        const int *outs;
        int n_out = tt__node_outs(g, n, &outs), n_prog_in = tt__is_fused(n) ? g->progs[n->a.i[0]].n_in : 0;
        tt__graph_conv lc;
        bool conv = tt__graph_conv_of(g, n, &lc);
        for (k = 0; k < n->n_in; k++) {
            int u = tt__node_in(g, n, k);
            if (u < 0) continue;
            if (conv && k == lc.x_at) votes[2 * u + (lc.native ? 0 : 1)]++;
            else if (k >= n_prog_in) ok[u] = false;   /* not a fused program's input */
        }
        for (i = 0; i < n_out; i++) {
            if (conv && outs[i] == lc.y) votes[2 * outs[i] + (lc.native ? 0 : 1)]++;
            else if (!tt__is_fused(n)) ok[outs[i]] = false;
        }
    }
}

/* Clears v's and w's choice unless they agree; true when that changed something. */
static bool tt__layout_tie(bool *cl, int v, int w) {
    if (cl[v] == cl[w]) return false;
    cl[v] = cl[w] = false;
    return true;
}

/* A fused node's outputs share one layout (its program runs over one shape), and so do an
   output and an input whose bytes it takes (element i is read before it is written only in
   the same layout). Repeated until nothing changes (choices are only ever cleared). */
static void tt__layout_settle(const tt_graph *g, bool *cl) {
    bool changed = true;
    int p, k, i;
    while (changed) {
        changed = false;
        for (p = 0; p < g->n_order; p++) {
            const tt__node *n = &g->tape.nodes[g->order[p]];
            const struct tt__program *pr;
            if (!tt__is_fused(n)) continue;
            pr = &g->progs[n->a.i[0]];
            for (i = 1; i < pr->n_out; i++) changed |= tt__layout_tie(cl, pr->outs[0], pr->outs[i]);
            for (k = 0; k < pr->n_in; k++) {
                int u = tt__node_in(g, n, k);
                for (i = 0; i < pr->n_out && u >= 0; i++)
                    if (g->offset[u] == g->offset[pr->outs[i]] && tt__can_share(g, u, pr->outs[i]))
                        changed |= tt__layout_tie(cl, u, pr->outs[i]);
            }
        }
    }
}

/* Does some convolution of g have a channels-last kernel? (Else the pass allocates nothing:
   a graph loaded into a user's buffer keeps those bytes.) */
static bool tt__layout_has_native(const tt_graph *g) {
    int p;
    for (p = 0; p < g->n_order; p++) {
        tt__graph_conv lc;
        if (tt__graph_conv_of(g, &g->tape.nodes[g->order[p]], &lc) && lc.native) return true;
    }
    return false;
}

static void tt__cpu_plan_layouts(tt_graph *g) {
    int nv = g->tape.n_values, v, k, chosen = 0;
    bool *cl, *ok;
    int *votes;
    if (!tt__layout_has_native(g)) return;
    cl = (bool *)tt__galloc(g, sizeof(bool) * (size_t)nv * 2);
    votes = (int *)tt__galloc(g, sizeof(int) * (size_t)nv * 2);
    if (!cl || !votes) {                               /* no memory: every value stays channels-first */
        tt__heap_free(&g->tape.alloc, cl);
        tt__heap_free(&g->tape.alloc, votes);
        return;
    }
    ok = cl + nv;
    for (v = 0; v < nv; v++) ok[v] = tt__layout_candidate(g, v);
    for (v = 0; v < nv; v++)
        if (g->offset[v] >= 0 && g->root[v] != v) ok[v] = ok[g->root[v]] = false;   /* a view, its buffer */
    for (k = 0; k < g->n_outputs; k++) ok[g->root[tt__rv(g, g->outputs[k])]] = false;
    tt__layout_votes(g, ok, votes);
    for (v = 0; v < nv; v++) cl[v] = ok[v] && votes[2 * v] > 0 && votes[2 * v] >= votes[2 * v + 1];
    tt__layout_settle(g, cl);
    for (v = 0; v < nv; v++) chosen += cl[v];
    tt__heap_free(&g->tape.alloc, votes);
    if (chosen == 0) tt__heap_free(&g->tape.alloc, cl);
    else g->cpu.channels_last = cl;
}

/* Which algorithm each 3x3 convolution of a TT_MODE_MAX_AUTOTUNE graph runs (its node's
   TT__CONV_ALGO; every other mode keeps the traced 0, direct sums): the graph's tt_conv_algo,
   a fixed choice, TT_CONV_RULE's, or TT__CONV_MEASURE where the dry run is to time the
   candidates (tt__conv_algo_measure). A graph loaded compiled keeps its file's choices. Runs
   before the weights are packed: a Winograd node's are prepared its own way. */
static void tt__conv_algos_plan(tt_graph *g) {
    int p;
    if (g->mode != TT_MODE_MAX_AUTOTUNE || g->loaded_compiled) return;
    for (p = 0; p < g->n_order; p++) {
        tt__graph_conv gc;
        int64_t N, algo = 0;
        if (!tt__graph_conv_of(g, &g->tape.nodes[g->order[p]], &gc)) continue;
        N = g->tape.values[gc.y].meta.shape[0];
        switch (g->conv_algo) {
        case TT_CONV_MEASURED:     algo = tt__winograd_worth_timing(&gc.j, N) ? TT__CONV_MEASURE : 0; break;
        case TT_CONV_RULE:         algo = tt__winograd_rule(&gc.j, N) ? 2 : 0; break;
        case TT_CONV_DIRECT:       algo = 0; break;
        case TT_CONV_WINOGRAD_2X2: algo = tt__winograd_applies(&gc.j) ? 2 : 0; break;
        case TT_CONV_WINOGRAD_4X4: algo = tt__winograd_applies(&gc.j) ? 4 : 0; break;
        }
        g->tape.nodes[gc.node].a.i[TT__CONV_ALGO] = algo;
    }
}

/* Does the dry run time any convolution? */
static bool tt__conv_algos_to_time(const tt_graph *g) {
    int p;
    for (p = 0; p < g->n_order; p++) {
        tt__graph_conv gc;
        if (tt__graph_conv_of(g, &g->tape.nodes[g->order[p]], &gc) && g->tape.nodes[gc.node].a.i[TT__CONV_ALGO] == TT__CONV_MEASURE)
            return true;
    }
    return false;
}

/* The choice of a convolution before node in the run order (timed already) whose input,
   weight and output have the shapes of c's and whose strides and padding are c's: the same
   layer again (ResNet's blocks); -1 when there is none. */
static int64_t tt__conv_algo_timed_alike(const tt_graph *g, int node, const tt__call *c, const tt_tensor *out) {
    int p, k;
    for (p = 0; p < g->n_order; p++) {
        tt__graph_conv gc;
        bool same;
        if (!tt__graph_conv_of(g, &g->tape.nodes[g->order[p]], &gc)) continue;
        if (gc.node == node) return -1;
        same = tt_same_shape(&g->tape.values[gc.x].meta, c->in[0]) && tt_same_shape(&g->tape.values[gc.w].meta, c->in[1]) &&
               tt_same_shape(&g->tape.values[gc.y].meta, out);
        for (k = 0; k < 4; k++) same = same && g->tape.nodes[gc.node].a.i[k] == c->a.i[k];
        if (same) return g->tape.nodes[gc.node].a.i[TT__CONV_ALGO];
    }
    return -1;
}

/* Seconds per run of the convolution call c (data: its backend data) by algorithm algo: the
   fastest of TT__CONV_TIMED_RUNS runs after one that warms the caches; HUGE_VAL when it
   fails. Winograd runs with its weights prepared ahead where a frozen graph has them so. */
#define TT__CONV_TIMED_RUNS 3
static double tt__conv_algo_seconds(tt_graph *g, tt_ctx *scratch, tt__call *c, tt__cpu_node *data, tt_tensor *out, int64_t algo) {
    const tt_tensor *w = c->in[1];
    const tt__wino_kind *k = tt__wino_kind_of(algo);
    bool prepare = algo > 0 && tt__graph_constant_f32(g, w);
    float *u = prepare ? (float *)tt__heap_alloc(&g->tape.alloc, sizeof(float) * tt__wino_prepared_floats(g->tape.kern, k, w->shape[0], w->shape[1])) : NULL;
    double fastest = HUGE_VAL;
    int r;
    if (u) tt__wino_prepare(g->tape.kern, k, (const float *)tt__ptr(w), w->shape[0], w->shape[1], u);
    c->a.i[TT__CONV_ALGO] = algo;
    data->wino_u = u;
    for (r = 0; r <= TT__CONV_TIMED_RUNS; r++) {
        tt_scope s = tt_scope_begin(scratch);
        double t0 = tt__seconds(), t;
        bool ok = tt__op_table[c->op].exec(scratch, c, out);
        t = tt__seconds() - t0;
        tt_scope_end(scratch, s);
        if (!ok || scratch->err.status != TT_OK) {
            tt_clear_error(scratch);                   /* the run after the timing reports it */
            fastest = HUGE_VAL;
            break;
        }
        if (r > 0 && t < fastest) fastest = t;
    }
    tt__heap_free(&g->tape.alloc, u);
    data->wino_u = NULL;
    return fastest;
}

/* TT_MODE_MAX_AUTOTUNE's choice for the convolution call c of node `node`, in the dry run
   that sizes the scratch (on the values there): direct sums, F(2x2, 3x3) and F(4x4, 3x3)
   timed, the fastest kept in the node (direct sums on a tie: eager's bits), or the choice of
   an earlier convolution of the same shape. A Winograd choice drops the weight packed for
   direct sums: its slot then holds Winograd's (tt__graph_wino_weight). */
static void tt__conv_algo_measure(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt__cpu_node *data, tt_tensor *out) {
    static const int64_t winograd[2] = { 2, 4 };
    int64_t choice = tt__conv_algo_timed_alike(g, node, c, out);
    float **slot;
    int k;
    if (choice < 0) {
        double best = tt__conv_algo_seconds(g, scratch, c, data, out, 0);
        choice = 0;
        for (k = 0; k < 2; k++) {
            double t = tt__conv_algo_seconds(g, scratch, c, data, out, winograd[k]);
            if (t < best) {
                best = t;
                choice = winograd[k];
            }
        }
    }
    g->tape.nodes[node].a.i[TT__CONV_ALGO] = c->a.i[TT__CONV_ALGO] = choice;
    slot = choice > 0 ? tt__graph_prepared_slot(g, node) : NULL;
    if (slot && *slot) {
        tt__heap_free(&g->tape.alloc, *slot);
        *slot = NULL;
    }
}

/* Sets the headers of the channels-last values for a CPU run (on), or back to contiguous. */
static void tt__cpu_layouts(tt_graph *g, bool on) {
    int v;
    if (!g->cpu.channels_last) return;
    for (v = 0; v < g->tape.n_values; v++) {
        tt_tensor *t = &g->rt[v];
        if (!g->cpu.channels_last[v]) continue;
        tt__set_contiguous_strides(t);
        if (!on) continue;
        t->stride[1] = 1;
        t->stride[3] = t->shape[1];
        t->stride[2] = t->shape[3] * t->shape[1];
        t->stride[0] = t->shape[2] * t->stride[2];
    }
}

/* The free bytes of a context over a user buffer (its one block): where a loaded graph's dry
   run computes, before the graph takes its scratch from the same bytes. */
static void *tt__ctx_free_bytes(tt_ctx *ctx, size_t *size) {
    tt__block *blk = ctx->cur;
    *size = blk->size - blk->used;
    return blk->mem + blk->used;
}

/* Every node in order, on the graph's scratch, channels-last values in their layout. */
static tt_status tt__cpu_run(tt_graph *g) {
    tt_status st;
    tt__cpu_layouts(g, true);
    st = tt__graph_exec(g, g->cpu.scratch, NULL);
    tt__cpu_layouts(g, false);
    return st;
}

/* The CPU reads the inputs where they are bound and writes results into the host arena. */
static tt_status tt__cpu_load_inputs(tt_graph *g) {
    (void)g;
    return TT_OK;
}
static tt_status tt__cpu_fetch(tt_graph *g, int p) {
    (void)g;
    (void)p;
    return TT_OK;
}

/* The kernels return when their work is done: nothing is queued. */
static tt_status tt__cpu_sync(tt_graph *g) {
    (void)g;
    return TT_OK;
}

static void tt__cpu_release(tt_graph *g) {
    const tt_allocator *al = &g->tape.alloc;
    while (g->cpu.n_packed > 0) tt__heap_free(al, g->cpu.packed[--g->cpu.n_packed]);
    tt__heap_free(al, g->cpu.packed);
    g->cpu.packed = NULL;
    tt__heap_free(al, g->cpu.channels_last);
    g->cpu.channels_last = NULL;
    tt_ctx_destroy(g->cpu.scratch);
    g->cpu.scratch = NULL;
    tt__heap_free(al, g->cpu.scratch_mem);
    g->cpu.scratch_mem = NULL;
}

TT_API tt_status tt_graph_run(tt_graph *g, tt_tensor *const *inputs, int n_inputs) {
    int i;
    if (!g) return TT_ERR_ARG;
    if (!g->compiled && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) return g->err.status;
    if (inputs || n_inputs || g->tape.n_inputs == 0) {
        if (tt__graph_bind(g, "tt_graph_run", inputs, n_inputs) != TT_OK) return g->err.status;
    } else if (!g->bound) {
        return tt__gfail(g, TT_ERR_ARG, "tt_graph_run: no inputs given and none bound; the graph has %d "
                         "(pass them, or call tt_graph_bind once)", g->tape.n_inputs);
    } else {
        for (i = 0; i < g->tape.n_inputs; i++)         /* bound inputs that needed a copy: copy again */
            if (g->bound_src[i]) tt__copy_into(&g->rt[g->tape.inputs[i]], g->bound_src[i]);
    }
    if (g->mode != TT_MODE_REDUCE_OVERHEAD) tt__bind_params(g);   /* REDUCE_OVERHEAD: bound at compile */
    g->has_run = g->backend->run(g) == TT_OK && g->backend->sync(g) == TT_OK;
    TT__ZEROUPPER();
    return g->has_run ? TT_OK : g->err.status;
}

TT_API tt_status tt_graph_bind(tt_graph *g, tt_tensor *const *inputs, int n_inputs) {
    return tt__graph_bind(g, "tt_graph_bind", inputs, n_inputs);
}

/* Checks and binds inputs; fn names the public function for messages. */
static tt_status tt__graph_bind(tt_graph *g, const char *fn, tt_tensor *const *inputs, int n_inputs) {
    int i;
    if (!g) return TT_ERR_ARG;
    if (!g->compiled && tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) return g->err.status;
    g->bound = false;
    if (n_inputs > 0 && !inputs) return tt__gfail(g, TT_ERR_ARG, "%s: inputs is NULL but n_inputs is %d", fn, n_inputs);
    if (n_inputs != g->tape.n_inputs)
        return tt__gfail(g, TT_ERR_ARG, "%s: n_inputs is %d, the graph has %d inputs", fn, n_inputs, g->tape.n_inputs);
    for (i = 0; i < n_inputs; i++) {
        if (tt__bind_input(g, fn, i, inputs[i]) != TT_OK) return g->err.status;
        g->bound_src[i] = g->offset[g->tape.inputs[i]] >= 0 && g->rt[g->tape.inputs[i]].data != inputs[i]->data ? inputs[i] : NULL;
    }
    g->bound = true;
    return TT_OK;
}

/* Checks input i against what the graph was traced for, then binds it (a non-contiguous
   input is copied into its slot, so every run sees the layout the dry run saw). */
static tt_status tt__bind_input(tt_graph *g, const char *fn, int i, tt_tensor *t) {
    int v = g->tape.inputs[i];
    const tt__value *val = &g->tape.values[v];
    if (!t) return tt__gfail(g, TT_ERR_ARG, "%s: inputs[%d] ('%s') is NULL", fn, i, val->name);
    if (t->dtype != val->meta.dtype)
        return tt__gfail(g, TT_ERR_DTYPE, "%s: inputs[%d] ('%s') has dtype %T; the graph was traced for %T %S",
                         fn, i, val->name, (int)t->dtype, (int)val->meta.dtype, &val->meta);
    if (!tt_same_shape(t, &val->meta))
        return tt__gfail(g, TT_ERR_SHAPE, "%s: inputs[%d] ('%s') has shape %S; the graph was traced for %S "
                         "(trace again, or use one graph per shape)", fn, i, val->name, t, &val->meta);
    if (g->offset[v] < 0) return TT_OK;                /* not used by any live node */
    if (tt_is_contiguous(t)) {                         /* standard strides: the layout the dry run saw */
        g->rt[v] = *t;
        tt__set_contiguous_strides(&g->rt[v]);
        return TT_OK;
    }
    tt__rt_planned(g, v);
    tt__copy_into(&g->rt[v], t);
    return TT_OK;
}

/* Parameters are read at every run: their headers come from the user's tensors, or from
   the graph's own copies once a compile froze them (the user's may be gone). */
static void tt__bind_params(tt_graph *g) {
    int v;
    for (v = 0; v < g->n_traced_values; v++) {
        const tt__value *val = &g->tape.values[v];
        if (val->kind == TT__V_PARAM && g->remap[v] == v) g->rt[v] = val->ref ? *val->ref : val->meta;
    }
}

/* Runs every live node; with measure, records the scratch each node needs instead. */
static tt_status tt__graph_exec(tt_graph *g, tt_ctx *scratch, size_t *measure) {
    int p;
    for (p = 0; p < g->n_order; p++) {
        bool ok = tt__graph_exec_node(g, scratch, p, measure);
        if (g->debug & TT_DEBUG_POISON) tt__poison_dead(g, p);
        if (measure && scratch->err.status == TT_ERR_INDEX) {  /* the dry run's zeros can make bad indices */
            tt_clear_error(scratch);
            continue;
        }
        if (!ok || scratch->err.status != TT_OK) return tt__graph_node_failed(g, scratch, p);
    }
    return TT_OK;
}

/* Runs the node at position p; with measure, records the most scratch it took. */
static bool tt__graph_exec_node(tt_graph *g, tt_ctx *scratch, int p, size_t *measure) {
    const tt__node *n = &g->tape.nodes[g->order[p]];
    const tt__op_info *info = &tt__op_table[n->op];
    tt_tensor *out = &g->rt[n->out];
    tt__call c;
    tt_scope s;
    size_t base;
    bool ok;
    int k;
    for (k = 0; k < n->n_in; k++) {
        int v = tt__node_in(g, n, k);
        g->argv[k] = v >= 0 ? &g->rt[v] : NULL;
    }
    c = tt__call_init(n->name, n->op, g->argv, n->n_in, &n->a);
    if (info->kind == TT__K_VIEW) {                    /* a view: its header from the actual input */
        tt__header_init(out, NULL);
        return info->infer(scratch, &c, out);
    }
    s = tt_scope_begin(scratch);
    base = scratch->live;
    scratch->peak = base;
    scratch->record_depth++;
    if (tt__is_fused(n)) ok = g->backend->run_program(g, scratch, n);
    else ok = g->backend->run_node(g, scratch, g->order[p], &c, out);
    scratch->record_depth--;
    if (measure && scratch->peak - base > *measure) *measure = scratch->peak - base;
    tt_scope_end(scratch, s);
    return ok;
}

/* One op node: its table row's kernel, handed the weight packed ahead when there is one. */
static bool tt__cpu_run_node(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt_tensor *out) {
    tt__cpu_node data;
    data.relu_after = false;
    data.clamp_after.on = false;
    data.clamp_applied = NULL;
    tt__cpu_node_weights(g, scratch, node, c, &data, out);
    return tt__op_table[c->op].exec(scratch, c, out);
}

/* The slot of node in the graph's table of weights prepared ahead (made on first use), or
   NULL when there is no memory for the table. */
static float **tt__graph_prepared_slot(tt_graph *g, int node) {
    if (!g->cpu.packed) {
        g->cpu.packed = (float **)tt__galloc(g, sizeof(float *) * (size_t)g->tape.n_nodes);
        if (!g->cpu.packed) return NULL;
        g->cpu.n_packed = g->tape.n_nodes;
    }
    return node < g->cpu.n_packed ? &g->cpu.packed[node] : NULL;
}

/* For a linear or convolution node whose weight is a constant of the graph (frozen
   weights): the weight packed once for the SGEMM (made on the first run, i.e. the dry run
   at compile, and kept), so runs skip packing it; NULL for every other node, and where the
   product is too small for the packed path. A linear's weight is the SGEMM's B; a
   convolution's (groups 1; its Winograd weights take the slot where those run) its A, the
   [O, C*KH*KW] matrix every image's product shares. The packed floats equal what each run
   would pack: results are unchanged. */
static const float *tt__graph_packed_weight(tt_graph *g, int node, const tt__call *c, const tt_tensor *out) {
    const tt_tensor *w = c->n_in > 1 ? c->in[1] : NULL;
    const tt__kernels *kt = g->tape.kern;
    bool conv = c->op == TT__OP_CONV2D || c->op == TT__OP_CONV1D, as_a;
    int64_t rows, K;
    size_t floats;
    tt__conv_job shape;
    if (!tt__op_has(g->tape.nodes[node].op, TT__F_PACK_WEIGHT) || !tt__graph_constant_f32(g, w) || w->ndim < 2) return NULL;
    rows = w->shape[0];
    K = w->numel / tt__max64(rows, 1);
    if (rows == 0) return NULL;
    if (conv) {                                        /* A, but B where it runs tt__pointwise_nhwc */
        shape = tt__conv_job_shape(c, w, out, kt);
        as_a = !tt__cpu_conv_nhwc(g, c, out) || !tt__pointwise_nhwc_applies(&shape, out->shape[0]);
        if (as_a && (!tt__conv_packs_weight(&shape) || tt__graph_wino_weight(g, node, c))) return NULL;
    } else {
        as_a = false;
        if (w->ndim != 2 || !tt__gemm_is_packed(kt, out->numel / rows, rows, K)) return NULL;
    }
    if (!tt__graph_prepared_slot(g, node)) return NULL;
    if (!g->cpu.packed[node]) {
        floats = as_a ? tt__prepacked_a_floats(kt, rows, K) : tt__prepacked_floats(kt, K, rows);
        g->cpu.packed[node] = (float *)tt__heap_alloc(&g->tape.alloc, sizeof(float) * floats);
        if (!g->cpu.packed[node]) return NULL;              /* no memory: the run packs as eager does */
        if (as_a) tt__prepack_a(kt, g->cpu.packed[node], (const float *)tt__ptr(w), K, 1, rows, K);
        else      tt__prepack_b(kt, g->cpu.packed[node], (const float *)tt__ptr(w), 1, K, K, rows);   /* B(k,j) = w[j,k] */
    }
    return g->cpu.packed[node];
}

/* The value whose run header t is, or -1 when t is not one (compared as integers). */
static int tt__rt_value(const tt_graph *g, const tt_tensor *t) {
    uintptr_t at = (uintptr_t)t, base = (uintptr_t)g->rt;
    if (!t || at < base || at >= base + sizeof(tt_tensor) * (size_t)g->tape.n_values) return -1;
    return (int)((at - base) / sizeof(tt_tensor));
}

/* Does the layout pass keep convolution c's input and its output out both channels-last? */
static bool tt__cpu_conv_nhwc(const tt_graph *g, const tt__call *c, const tt_tensor *out) {
    int x = tt__rt_value(g, c->in[0]), y = tt__rt_value(g, out);
    return g->cpu.channels_last && x >= 0 && y >= 0 && g->cpu.channels_last[x] && g->cpu.channels_last[y];
}

/* Is t the run header of a constant of g (a frozen weight), f32 and contiguous? */
static bool tt__graph_constant_f32(const tt_graph *g, const tt_tensor *t) {
    int v = tt__rt_value(g, t);
    return v >= 0 && g->tape.values[v].kind == TT__V_CONST && t->dtype == TT_F32 && tt_is_contiguous(t);
}

/* For a convolution that runs by Winograd (its algorithm attribute) with a constant weight
   (frozen): the weight prepared once (on the first run, the dry run at compile) as each run
   would prepare it, tt__wino_prepare's U and its matrices packed (what tt__conv_winograd
   reads); NULL for every other node. */
static const float *tt__graph_wino_weight(tt_graph *g, int node, const tt__call *c) {
    const tt_tensor *w = c->n_in > 1 ? c->in[1] : NULL;
    const tt__kernels *kt = g->tape.kern;
    const tt__wino_kind *k = tt__wino_kind_of(c->a.i[TT__CONV_ALGO]);
    float **slot;
    if (c->op != TT__OP_CONV2D || c->a.i[TT__CONV_ALGO] <= 0 || !tt__graph_constant_f32(g, w) || w->ndim != 4 ||
        !(slot = tt__graph_prepared_slot(g, node)))
        return NULL;
    if (!*slot) {
        *slot = (float *)tt__heap_alloc(&g->tape.alloc, sizeof(float) * tt__wino_prepared_floats(kt, k, w->shape[0], w->shape[1]));
        if (!*slot) return NULL;                       /* no memory: each run prepares them */
        tt__wino_prepare(kt, k, (const float *)tt__ptr(w), w->shape[0], w->shape[1], *slot);
    }
    return *slot;
}

/* The weights a node's call c runs with (packed ahead, or prepared for its Winograd) into
   data, its algorithm timed first where the dry run is to (tt__conv_algo_measure). */
static void tt__cpu_node_weights(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt__cpu_node *data, tt_tensor *out) {
    data->packed_w = tt__graph_packed_weight(g, node, c, out);
    data->wino_u = NULL;
    c->node_data = data;
    if (c->op == TT__OP_CONV2D && c->a.i[TT__CONV_ALGO] == TT__CONV_MEASURE) {
        tt__conv_algo_measure(g, scratch, node, c, data, out);
        data->packed_w = tt__graph_packed_weight(g, node, c, out);
        if (data->clamp_applied) *data->clamp_applied = false;   /* set again by the run that counts */
    }
    data->wino_u = tt__graph_wino_weight(g, node, c);
}

/* Reports a failed node as the graph's error (the kernel's message from scratch). */
static tt_status tt__graph_node_failed(tt_graph *g, tt_ctx *scratch, int p) {
    const tt__node *n = &g->tape.nodes[g->order[p]];
    tt__gfail(g, scratch->err.status != TT_OK ? scratch->err.status : TT_ERR_STATE, "tt_graph_run: node %d (%s): %s",
              g->order[p], n->name, scratch->err.status != TT_OK ? scratch->err.msg : "failed");
    tt_clear_error(scratch);
    return g->err.status;
}

/* TT_DEBUG_POISON: the buffers whose last reader was node position p become NaN bytes
   (but for bytes that a value still alive holds: an output written in place). */
static void tt__poison_dead(tt_graph *g, int p) {
    int v, w;
    for (v = 0; v < g->tape.n_values; v++) {
        size_t vo, vs;
        bool held = false;
        if (g->offset[v] < 0 || g->last[v] != p) continue;
        vo = (size_t)g->offset[v];
        vs = tt__value_bytes(&g->tape.values[v]);
        for (w = 0; w < g->tape.n_values && !held; w++)
            held = w != v && g->offset[w] >= 0 && g->first[w] <= p && g->last[w] > p &&
                   (size_t)g->offset[w] < vo + vs && vo < (size_t)g->offset[w] + tt__value_bytes(&g->tape.values[w]);
        if (!held) memset(g->arena + vo, 0xFF, vs);
    }
}

TT_API tt_status tt_graph_set_conv_algo(tt_graph *g, tt_conv_algo algo) {
    if (!g) return TT_ERR_ARG;
    if ((unsigned)algo > (unsigned)TT_CONV_WINOGRAD_4X4)               /* unsigned: see tt__dtype_valid */
        return tt__gfail(g, TT_ERR_ARG, "tt_graph_set_conv_algo: algo is %d, expected a tt_conv_algo (TT_CONV_MEASURED "
                         "to TT_CONV_WINOGRAD_4X4)", (int)algo);
    g->conv_algo = algo;
    return TT_OK;
}

TT_API void tt_graph_set_debug(tt_graph *g, unsigned flags) {
    if (!g) return;
    unsigned known = (unsigned)TT_DEBUG_POISON | (unsigned)TT_DEBUG_PASSES;
    if (flags & ~known) {
        tt__gfail(g, TT_ERR_ARG, "tt_graph_set_debug: flags has unknown bits (%D), expected TT_DEBUG_* bits",
                  (int64_t)(flags & ~known));
        return;
    }
    g->debug = flags;
}

/* A 4-D shape or stride vector from [N, C, H, W] order into [N, H, W, C]. */
static void tt__channels_last_order(int64_t *v) {
    int64_t c = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = c;
}

/* Runs a fused node (the CPU's run_program): the epilogue head (if any), then the program
   over the output. */
static bool tt__exec_fused(tt_graph *g, tt_ctx *scratch, const tt__node *n) {
    const struct tt__program *pr = &g->progs[n->a.i[0]];
    const tt_tensor *o0 = &g->rt[pr->outs[0]];
    int64_t bstride[TT__MAX_OPS][TT_MAX_DIMS], offsets[TT__MAX_OPS], shape[TT_MAX_DIMS], ostride[TT_MAX_DIMS];
    const int64_t *strides[TT__MAX_OPS];
    tt__fused_job j;
    bool clamped = false, last = tt__is_channels_last(o0);
    int k;
    j.g = g;
    j.pr = pr;
    j.kt = scratch->kern;
    j.regs = (float *)tt__alloc(scratch, "fused", sizeof(float) * TT__CHUNK * (size_t)pr->n_regs * (size_t)scratch->n_threads);
    if (!j.regs) return false;
    memcpy(shape, o0->shape, sizeof shape);
    memcpy(ostride, o0->stride, sizeof ostride);
    strides[0] = ostride;                              /* every output: one shape, offset 0, contiguous */
    offsets[0] = 0;                                    /* (or channels-last, all alike: the loop goes */
    if (last) tt__channels_last_order(shape);          /*  over [N, H, W, C], the order of the bytes) */
    if (last) tt__channels_last_order(ostride);
    for (k = 0; k < pr->n_in; k++) {
        j.in[k] = pr->head >= 0 && k == pr->head_input ? &g->rt[pr->outs[pr->head_out]] : &g->rt[tt__node_in(g, n, k)];
        tt__broadcast_strides(j.in[k], o0->ndim, o0->shape, bstride[k]);
        if (last) tt__channels_last_order(bstride[k]);
        strides[1 + k] = bstride[k];
        offsets[1 + k] = j.in[k]->offset;
        j.in_end[k] = tt__storage_end(j.in[k]);
    }
    tt__fused_direct_outputs(g, pr, &j);
    if (pr->head >= 0) {                               /* epilogue: the GEMM writes, the program rewrites */
        const tt__node *h = &g->tape.nodes[pr->head];
        tt_tensor *hin[4];
        tt_tensor *head_out = &g->rt[pr->outs[pr->head_out]];
        tt__cpu_node data;
        tt__call hc;
        for (k = 0; k < h->n_in && k < 4; k++) {
            int v = tt__node_in(g, n, pr->n_in + k);
            hin[k] = v >= 0 ? &g->rt[v] : NULL;
        }
        hc = tt__call_init(h->name, h->op, hin, h->n_in, &h->a);
        data.relu_after = tt__program_is_head_relu(g, pr);
        data.clamp_after = tt__program_head_clamp(g, pr);
        data.clamp_applied = &clamped;
        tt__cpu_node_weights(g, scratch, pr->head, &hc, &data, head_out);
        if (!tt__op_table[h->op].exec(scratch, &hc, head_out)) return false;
        if (data.relu_after || clamped) return true;
    }
    tt__loop_init(&j.L, o0->ndim, shape, 1 + pr->n_in, strides, offsets);
    j.sp = tt__split_loop(&j.L);
    tt__parallel_for(scratch, tt__fused_task, &j, j.sp.tasks);
    return true;
}

/* The registers a program can compute straight into their f32 output (the store then copies
   nothing), when no output shares bytes with an input. When one does (the memory plan let an
   output take a dying input's buffer, or an epilogue head wrote it), every result goes
   through the register buffers and the stores, after all reads of the chunk, as before: the
   kernels take restrict pointers, so no op may write where it reads. */
static void tt__fused_direct_outputs(tt_graph *g, const struct tt__program *pr, tt__fused_job *j) {
    int i, k;
    memset(j->direct, 0, sizeof j->direct);
    for (i = 0; i < pr->n_out; i++)
        for (k = 0; k < pr->n_in; k++)
            if (tt__tensors_overlap(&g->rt[pr->outs[i]], j->in[k])) return;
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *st = &pr->uops[i];
        tt_tensor *o;
        int p;
        if (st->kind != TT__U_STORE) continue;
        o = &g->rt[pr->outs[st->b]];
        for (p = 0; p < i && (pr->uops[p].kind == TT__U_STORE || pr->uops[p].dst != st->a); p++) {}
        if (o->dtype != TT_F32 || p == i) continue;
        if (pr->uops[p].kind == TT__U_LOAD || pr->uops[p].kind == TT__U_CAST) continue;   /* no compute */
        j->direct[st->a] = (float *)o->data;
    }
}

/* Elements from t's storage base up to one past its last element (strides >= 0 here:
   graph inputs of a fused node are broadcast views or contiguous values). */
static int64_t tt__storage_end(const tt_tensor *t) {
    int64_t end = t->offset + 1;
    int d;
    if (t->numel == 0) return t->offset;
    for (d = 0; d < t->ndim; d++) if (t->stride[d] > 0) end += (t->shape[d] - 1) * t->stride[d];
    return end;
}

/* Do the bytes of output o and input t share an address? (Compared as integers.) */
static bool tt__tensors_overlap(const tt_tensor *o, const tt_tensor *t) {
    uintptr_t o0 = (uintptr_t)o->data, o1 = o0 + (uintptr_t)o->numel * tt_dtype_size(o->dtype);
    uintptr_t t0 = (uintptr_t)t->data, t1 = t0 + (uintptr_t)tt__storage_end(t) * tt_dtype_size(t->dtype);
    int d;
    for (d = 0; d < t->ndim; d++) if (t->stride[d] < 0) return true;   /* not worked out: assume so */
    return o->numel > 0 && t->numel > 0 && o0 < t1 && t0 < o1;
}

/* The one unary micro-op of a fused node's program when the program is only that op on
   its epilogue head's result, stored back in place, and the head is a linear or a
   convolution (TT__F_GEMM_ACT); else NULL. */
static const tt__uop *tt__program_head_unary(const tt_graph *g, const struct tt__program *pr) {
    const tt__uop *u = pr->uops;
    if (pr->head < 0 || pr->n_uops != 3 || pr->n_out != 1 || pr->head_out != 0 || pr->n_in != 1) return NULL;
    if (!tt__op_has(g->tape.nodes[pr->head].op, TT__F_GEMM_ACT)) return NULL;
    if (u[0].kind != TT__U_LOAD || u[0].a != pr->head_input || u[1].kind != TT__U_UNARY || u[1].a != u[0].dst ||
        u[2].kind != TT__U_STORE || u[2].a != u[1].dst || u[2].b != 0)
        return NULL;
    return &u[1];
}

/* True when that op is a ReLU: the head then applies it in its GEMM epilogue, on each tile
   while it is in cache, and the program is skipped. */
static bool tt__program_is_head_relu(const tt_graph *g, const struct tt__program *pr) {
    const tt__uop *u = tt__program_head_unary(g, pr);
    return u && tt__op_has(u->op, TT__F_EPILOGUE_ACT);
}

/* The clamp when that op is one (MobileNetV2's ReLU6): the head applies it where its kernel
   has an epilogue (the GEMM paths, depthwise by bands) and says so; else the program runs. */
static tt__clamp tt__program_head_clamp(const tt_graph *g, const struct tt__program *pr) {
    const tt__uop *u = tt__program_head_unary(g, pr);
    tt__clamp c;
    c.on = u && tt__op_has(u->op, TT__F_EPILOGUE_CLAMP);
    c.lo = c.on ? u->p0 : 0.0f;
    c.hi = c.on ? u->p1 : 0.0f;
    return c;
}

static void tt__fused_task(void *arg, int64_t t, int thread) {
    const tt__fused_job *j = (const tt__fused_job *)arg;
    float *regs = j->regs + (size_t)thread * (size_t)j->pr->n_regs * TT__CHUNK;
    const float *R[TT__FUSE_MAX_UOPS];
    tt__loop L = j->L;
    int64_t r[2], e[2], row, c;
    tt__split_task(&j->sp, t, r, e);
    tt__loop_seek(&L, r[0]);
    for (row = r[0]; row < r[1]; row++, tt__loop_next(&L))
        for (c = e[0]; c < e[1]; c += TT__CHUNK)
            tt__fused_chunk(j, &L, c, tt__min64(TT__CHUNK, e[1] - c), regs, R, c == e[0]);
}

/* Runs the micro-op program over one chunk (cnt elements at column c of the current row);
   R holds where each register's values are (kept across the chunks of a row). */
static void tt__fused_chunk(const tt__fused_job *j, const tt__loop *L, int64_t c, int64_t cnt, float *regs,
                            const float **R, bool row_start) {
    const struct tt__program *pr = j->pr;
    int64_t base = L->off[0] + c, e;
    int i;
    for (i = 0; i < pr->n_regs; i++)                   /* outputs written in place: fetch their lines */
        if (j->direct[i]) tt__prefetch_write(j->direct[i] + base, cnt);
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *u = &pr->uops[i];
        float *d = u->kind == TT__U_STORE ? NULL : j->direct[u->dst] ? j->direct[u->dst] + base : regs + (size_t)u->dst * TT__CHUNK;
        switch (u->kind) {
        case TT__U_LOAD: {
            const tt_tensor *t = j->in[u->a];
            int64_t s = L->inner[1 + u->a], at = L->off[1 + u->a] + c * s;
            if (s == 0 && !row_start) break;           /* broadcast along the row: still loaded */
            if (s == 1 && t->dtype == TT_F32) tt__prefetch_ahead((const float *)t->data, at + TT__PREFETCH_AHEAD, cnt, j->in_end[u->a]);
            if (t->dtype == TT_F32) R[u->dst] = tt__gather((const float *)t->data + at, s, cnt, d);
            else { for (e = 0; e < cnt; e++) d[e] = tt__load(t->data, t->dtype, at + e * s); R[u->dst] = d; }
            break;
        }
        case TT__U_UNARY:  j->kt->unary_chunk(u->op, d, R[u->a], cnt, u->p0, u->p1); R[u->dst] = d; break;
        case TT__U_BINARY: j->kt->binary_chunk(u->op, d, R[u->a], R[u->b], cnt); R[u->dst] = d; break;
        case TT__U_PAIR:   j->kt->pair_chunk(u->op, u->op2, u->swap, d, R[u->a], R[u->b], R[u->c], cnt); R[u->dst] = d; break;
        case TT__U_WHERE:  tt__where_chunk(d, R[u->c], R[u->a], R[u->b], cnt); R[u->dst] = d; break;
        case TT__U_CAST:                               /* to f32: the register itself */
            if (u->op == TT_F32) { R[u->dst] = R[u->a]; break; }
            tt__cast_chunk(d, R[u->a], cnt, (tt_dtype)u->op);
            R[u->dst] = d;
            break;
        case TT__U_STORE: {
            tt_tensor *o = &j->g->rt[pr->outs[u->b]];
            if (o->dtype == TT_F32) {
                if (R[u->a] != (float *)o->data + base)   /* not already computed in place */
                    memcpy((float *)o->data + base, R[u->a], (size_t)cnt * sizeof(float));
            }
            else for (e = 0; e < cnt; e++) tt__store(o->data, o->dtype, base + e, (double)R[u->a][e]);
            break;
        }
        default: break;
        }
    }
}

TT_API tt_tensor *tt_graph_output(tt_graph *g, int i) {
    if (!g) return NULL;
    if (i < 0 || i >= g->n_outputs) {
        tt__gfail(g, TT_ERR_ARG, "tt_graph_output: i is %d, expected 0..%d", i, g->n_outputs - 1);
        return NULL;
    }
    if (!g->compiled || !g->has_run) {
        tt__gfail(g, TT_ERR_STATE, "tt_graph_output: g has not run successfully since it was compiled");
        return NULL;
    }
    return &g->rt[tt__rv(g, g->outputs[i])];
}

TT_API int tt_graph_num_inputs(const tt_graph *g) { return g ? g->tape.n_inputs : 0; }

TT_API const char *tt_graph_input_name(const tt_graph *g, int i) {
    return g && i >= 0 && i < g->tape.n_inputs ? g->tape.values[g->tape.inputs[i]].name : NULL;
}

TT_API bool tt_graph_input_shape(const tt_graph *g, int i, tt_dtype *dtype, int *ndim, int64_t *shape) {
    const tt_tensor *m;
    int d;
    if (!g || i < 0 || i >= g->tape.n_inputs) return false;
    m = &g->tape.values[g->tape.inputs[i]].meta;
    if (dtype) *dtype = m->dtype;
    if (ndim) *ndim = m->ndim;
    for (d = 0; shape && d < m->ndim; d++) shape[d] = m->shape[d];
    return true;
}
TT_API int tt_graph_num_outputs(const tt_graph *g) { return g ? g->n_outputs : 0; }
TT_API int tt_graph_num_nodes(const tt_graph *g) { return !g ? 0 : g->compiled ? g->n_order : g->n_traced_nodes; }
TT_API const char *tt_graph_error(const tt_graph *g) { return g ? tt__err_msg(&g->err) : "tinytrace: NULL graph"; }
TT_API tt_status tt_graph_status(const tt_graph *g) { return g ? g->err.status : TT_ERR_ARG; }
TT_API void tt_graph_clear_error(tt_graph *g) { if (g) tt__err_clear(&g->err); }
TT_API int tt_graph_num_warnings(const tt_graph *g) { return g ? g->tape.n_warnings : 0; }
TT_API const char *tt_graph_warning(const tt_graph *g, int i) {
    return (g && i >= 0 && i < g->tape.n_warnings) ? g->tape.warnings[i] : NULL;
}

TT_API tt_graph_stats tt_graph_get_stats(const tt_graph *g) {
    tt_graph_stats s;
    memset(&s, 0, sizeof s);
    if (!g) return s;
    s.nodes_traced = g->loaded_compiled ? g->loaded_traced : g->n_traced_nodes;
    s.nodes = tt_graph_num_nodes(g);
    s.arena_bytes = g->arena_bytes;
    s.unplanned_bytes = g->unplanned_bytes;
    s.scratch_bytes = g->cpu.scratch_bytes;
    s.constant_bytes = g->constant_bytes;
    s.n_passes = g->n_pass_stats;
    memcpy(s.passes, g->pass_stats, sizeof(tt_pass_stat) * (size_t)g->n_pass_stats);
    s.isa = tt__isa_names[g->tape.kern->isa];
    if (g->compiled) {
        int p;
        for (p = 0; p < g->n_order; p++) {
            const tt__node *n = &g->tape.nodes[g->order[p]];
            int64_t algo = tt__conv_algo_of(g, n);
            s.winograd_2x2 += algo == 2;
            s.winograd_4x4 += algo == 4;
            if (!tt__is_fused(n)) continue;
            s.fused_nodes++;
            s.fused_ops += g->progs[n->a.i[0]].n_members;
            if (g->progs[n->a.i[0]].n_members > s.max_fused_ops) s.max_fused_ops = g->progs[n->a.i[0]].n_members;
        }
    }
    return s;
}

/* ==========================================================================
 * >>check   the checker: the compiled graph against the uncompiled tape
 * ========================================================================== */

static tt_status tt__check_args(tt_graph *g, double atol, double rtol, tt_check_report *report);
static void tt__check_stands_for(const tt_graph *g, int *stands_for);
static bool tt__run_tape(tt_graph *g, tt_ctx *ctx, tt_tensor *const *inputs, tt_tensor **ref);
static void tt__check_node(const tt_graph *g, int p, tt_tensor *const *ref, const int *stands_for, double atol, double rtol, tt_check_report *report);
static bool tt__compare(const tt_tensor *got, const tt_tensor *want, double atol, double rtol, double *max_abs, double *max_rel);
static void tt__check_report_diff(const tt_graph *g, tt_check_report *report, int t, double ea, double er);

TT_API tt_status tt_graph_check(tt_graph *g, tt_tensor *const *inputs, int n_inputs, double atol, double rtol,
                                tt_check_report *report) {
    tt_ctx_desc d;
    tt_tensor **ref;
    int *stands_for;
    tt_ctx *ctx;
    int p;
    if (!g) return TT_ERR_ARG;
    if (g->loaded_compiled)
        return tt__gfail(g, TT_ERR_STATE, "tt_graph_check: g was loaded compiled from a file: it has no trace to check against");
    if (tt__check_args(g, atol, rtol, report) != TT_OK) return g->err.status;
    if (tt__graph_bind(g, "tt_graph_check", inputs, n_inputs) != TT_OK) return g->err.status;
    tt__bind_params(g);
    if (g->backend->load_inputs(g) != TT_OK) return g->err.status;
    d = tt__graph_ctx_desc(g);
    ctx = tt_ctx_create(&d);
    ref = (tt_tensor **)tt__galloc(g, sizeof(tt_tensor *) * (size_t)g->tape.n_values);
    stands_for = (int *)tt__galloc(g, sizeof(int) * (size_t)g->tape.n_values);
    if (!ctx || !ref || !stands_for) {
        tt__gfail(g, TT_ERR_OOM, "tt_graph_check: out of memory");
        goto done;
    }
    tt__check_stands_for(g, stands_for);
    if (!tt__run_tape(g, ctx, inputs, ref)) {
        tt__gfail(g, ctx->err.status != TT_OK ? ctx->err.status : TT_ERR_STATE, "tt_graph_check: the eager tape failed: %s",
                  ctx->err.status != TT_OK ? ctx->err.msg : "?");
        goto done;
    }
    if (g->backend == &tt__cpu_backend) tt__cpu_layouts(g, true);   /* as its runs have them */
    for (p = 0; p < g->n_order; p++) {                 /* compiled, node by node, compared as it goes */
        if (!tt__graph_exec_node(g, g->cpu.scratch, p, NULL) || g->cpu.scratch->err.status != TT_OK) {
            tt__graph_node_failed(g, g->cpu.scratch, p);
            break;
        }
        if (g->backend->fetch(g, p) != TT_OK) break;   /* a GPU's results, to the host */
        tt__check_node(g, p, ref, stands_for, atol, rtol, report);
    }
    tt__cpu_layouts(g, false);
    g->has_run = g->err.status == TT_OK;
done:
    tt_ctx_destroy(ctx);
    tt__heap_free(&g->tape.alloc, ref);
    tt__heap_free(&g->tape.alloc, stands_for);
    return g->err.status;
}

/* The arguments of tt_graph_check; starts the report. */
static tt_status tt__check_args(tt_graph *g, double atol, double rtol, tt_check_report *report) {
    if (!report) return tt__gfail(g, TT_ERR_ARG, "tt_graph_check: report is NULL");
    if (!(atol >= 0) || !(rtol >= 0))                  /* NaN fails both: then no value could differ */
        return tt__gfail(g, TT_ERR_ARG, "tt_graph_check: atol is %g and rtol %g, expected both >= 0 (not NaN)", atol, rtol);
    memset(report, 0, sizeof *report);
    report->ok = true;
    report->node = -1;
    return TT_OK;
}

/* A compiled value stands for the latest traced value mapped onto it (batch-norm folding
   makes the conv's result stand for the batch norm's). */
static void tt__check_stands_for(const tt_graph *g, int *stands_for) {
    int w;
    for (w = 0; w < g->tape.n_values; w++) stands_for[w] = w;
    for (w = 0; w < g->n_traced_values; w++)
        if (tt__rv(g, w) < g->tape.n_values && w > stands_for[tt__rv(g, w)]) stands_for[tt__rv(g, w)] = w;
}

/* Runs every traced node eagerly (no passes) in ctx; ref[v] gets each value's tensor. The
   inputs are those the graph bound (in the contiguous layout it traced), or for an input
   that only dead nodes read (not bound), a contiguous copy of the user's tensor. */
static bool tt__run_tape(tt_graph *g, tt_ctx *ctx, tt_tensor *const *inputs, tt_tensor **ref) {
    tt_tensor *ins[TT__FUSE_MAX_IN + 4];
    int i, k;
    for (i = 0; i < g->n_traced_values; i++) {
        tt__value *v = &g->tape.values[i];
        if (v->kind == TT__V_PARAM) ref[i] = v->ref ? v->ref : &v->meta;
        if (v->kind == TT__V_CONST) ref[i] = &v->meta;
    }
    for (i = 0; i < g->tape.n_inputs; i++) {
        int v = g->tape.inputs[i];
        ref[v] = g->offset[v] >= 0 ? &g->rt[v] : tt_contiguous(ctx, inputs[i]);
        if (!ref[v]) return false;
    }
    for (i = 0; i < g->n_traced_nodes; i++) {
        const tt__node *n = &g->traced[i];             /* as traced: passes may have rewritten tape.nodes */
        const tt__op_info *info = &tt__op_table[n->op];
        tt_tensor hdr, *out;
        tt__call c;
        bool ok = n->n_in <= (int)(sizeof ins / sizeof ins[0]);
        for (k = 0; ok && k < n->n_in; k++) {
            int v = g->tape.pool[n->in_at + k];
            ins[k] = v >= 0 ? ref[v] : NULL;
            ok = v < 0 || ins[k] != NULL;
        }
        if (!ok) continue;
        c = tt__call_init(n->name, n->op, ins, n->n_in, &n->a);
        tt__header_init(&hdr, ctx);
        if (!info->infer(ctx, &c, &hdr)) return false;
        if (info->kind == TT__K_VIEW) {
            out = (tt_tensor *)tt__alloc(ctx, n->name, sizeof(tt_tensor));
            if (out) *out = hdr;
        } else {
            out = tt__new(ctx, n->name, hdr.dtype, hdr.ndim, hdr.shape);
            if (out && !info->exec(ctx, &c, out)) return false;
        }
        if (!out) return false;
        ref[n->out] = out;
    }
    return true;
}

/* Compares what the node at position p wrote with the eager values ref (first difference
   reported; every comparison counted). */
static void tt__check_node(const tt_graph *g, int p, tt_tensor *const *ref, const int *stands_for, double atol,
                           double rtol, tt_check_report *report) {
    const int *outs;
    int no = tt__node_outs(g, &g->tape.nodes[g->order[p]], &outs), j;
    for (j = 0; j < no; j++) {
        int v = outs[j], t = stands_for[outs[j]];
        double ea, er;
        if (t >= g->n_traced_values || !ref[t] || g->tape.values[t].kind != TT__V_NODE) continue;
        report->compared++;
        if (tt__compare(&g->rt[v], ref[t], atol, rtol, &ea, &er) || !report->ok) continue;
        tt__check_report_diff(g, report, t, ea, er);
    }
}

/* Largest errors of got against want (same shape); true when within tolerance. */
static bool tt__compare(const tt_tensor *got, const tt_tensor *want, double atol, double rtol,
                        double *max_abs, double *max_rel) {
    bool ok = true;
    int64_t i;
    *max_abs = 0;
    *max_rel = 0;
    for (i = 0; i < want->numel; i++) {
        double a = (double)tt__load(got->data, got->dtype, tt__offset_of(got, i));
        double b = (double)tt__load(want->data, want->dtype, tt__offset_of(want, i));
        double d;
        if (a == b || (a != a && b != b)) continue;    /* equal, equal infinities, or both NaN */
        d = (a != a || b != b) ? (double)INFINITY : fabs(a - b);
        if (d > *max_abs) *max_abs = d;
        if (d / (fabs(b) > 1e-30 ? fabs(b) : 1e-30) > *max_rel) *max_rel = d / (fabs(b) > 1e-30 ? fabs(b) : 1e-30);
        if (!(d <= atol + rtol * fabs(b))) ok = false;
    }
    return ok;
}

/* Fills the report for the first traced value t that differs (errors ea, er). */
static void tt__check_report_diff(const tt_graph *g, tt_check_report *report, int t, double ea, double er) {
    const tt__node *src = &g->traced[g->tape.values[t].node];
    tt__buf b;
    report->ok = false;
    report->node = t;
    report->op = tt__op_table[src->op].name;
    report->eager_op = src->name;
    report->max_abs = ea;
    report->max_rel = er;
    tt__buf_init(&b, report->message, sizeof report->message);
    tt__put(&b, "node %");
    tt__put_i64(&b, t);
    tt__put(&b, " (");
    tt__put(&b, report->op);
    tt__put(&b, ", recorded by ");
    tt__put(&b, src->name);
    tt__put(&b, ") differs from eager: max abs error ");
    tt__put_f64(&b, ea);
    tt__put(&b, ", max rel error ");
    tt__put_f64(&b, er);
}

/* ==========================================================================
 * >>tools   printing graphs (text, Graphviz, the per-pass dump), tt_trace, the compile cache
 * ========================================================================== */

static void tt__put_node(tt__buf *b, const tt_graph *g, const tt__node *n, bool resolved);
static void tt__put_type(tt__buf *b, const tt_tensor *t);
static void tt__put_value(tt__buf *b, int v);
static void tt__dot_value_node(tt__buf *b, const tt_graph *g, int v);
static void tt__dot_op_node(tt__buf *b, const tt_graph *g, int v, int op, const char *indent);
static void tt__dot_edge(tt__buf *b, int from, int to);
static bool tt__graph_fits(const tt_graph *g, tt_tensor *const *inputs, int n);
static tt_status tt__cc_fail(tt_compiled *cc, tt_status st, const char *fn, const char *msg);

TT_API size_t tt_graph_str(const tt_graph *g, char *buf, size_t size) {
    char dummy[1];
    tt__buf b;
    int i, p, count;
    if (!buf || size == 0) { buf = dummy; size = 1; }
    tt__buf_init(&b, buf, size);
    if (!g) return 1;
    tt__put(&b, "graph(");
    for (i = 0; i < g->tape.n_inputs; i++) {
        const tt__value *v = &g->tape.values[g->tape.inputs[i]];
        if (i) tt__put(&b, ", ");
        tt__put_value(&b, g->tape.inputs[i]);
        if (v->name[0]) { tt__put(&b, " '"); tt__put(&b, v->name); tt__putc(&b, '\''); }
        tt__put(&b, ": ");
        tt__put_type(&b, &v->meta);
    }
    tt__put(&b, ") {\n");
    count = g->compiled ? g->n_order : g->tape.n_nodes;
    for (p = 0; p < count; p++) tt__put_node(&b, g, &g->tape.nodes[g->compiled ? g->order[p] : p], g->compiled);
    tt__put(&b, "  return (");
    for (i = 0; i < g->n_outputs; i++) {
        if (i) tt__put(&b, ", ");
        tt__put_value(&b, g->compiled ? tt__rv(g, g->outputs[i]) : g->outputs[i]);
    }
    tt__put(&b, ")\n}\n");
    return b.total + 1;
}

/* One node as a line: "  %5 = tanh(%4) : f32[2,3]", or "  %5, %9 = fused{mul, add}(...)".
   resolved: inputs after the passes' replacements (a compiled or compiling graph). */
static void tt__put_node(tt__buf *b, const tt_graph *g, const tt__node *n, bool resolved) {
    const tt__value *out = &g->tape.values[n->out];
    int k, shown;
    tt__put(b, "  ");
    if (tt__is_fused(n)) {                             /* "%5, %9 = fused{mul, add, tanh}(...)" */
        const struct tt__program *pr = &g->progs[n->a.i[0]];
        for (k = 0; k < pr->n_out; k++) { if (k) tt__put(b, ", "); tt__put_value(b, pr->outs[k]); }
        tt__put(b, " = fused{");
        if (pr->head >= 0) { tt__put(b, tt__op_table[g->tape.nodes[pr->head].op].name); tt__put(b, " | "); }
        for (k = 0; k < pr->n_members; k++) {
            if (k) tt__put(b, ", ");
            tt__put(b, tt__op_table[g->tape.nodes[pr->members[k]].op].name);
        }
        tt__putc(b, '}');
    } else {
        tt__put_value(b, n->out);
        tt__put(b, " = ");
        tt__put(b, tt__op_table[n->op].name);
    }
    tt__putc(b, '(');
    for (k = 0, shown = 0; k < n->n_in; k++) {
        int v = resolved ? tt__node_in(g, n, k) : g->tape.pool[n->in_at + k];
        if (v < 0 && tt__is_fused(n)) continue;        /* the slot an epilogue head fills */
        if (shown++) tt__put(b, ", ");
        if (v < 0) { tt__put(b, "none"); continue; }
        if (g->tape.values[v].kind == TT__V_PARAM) tt__put(b, "param ");
        if (g->tape.values[v].kind == TT__V_CONST) tt__put(b, "const ");
        tt__put_value(b, v);
    }
    tt__put(b, ") : ");
    tt__put_type(b, &out->meta);
    if (resolved && tt__conv_algo_of(g, n) > 0) {      /* TT_MODE_MAX_AUTOTUNE's choice */
        tt__put(b, tt__conv_algo_of(g, n) == 2 ? "  # Winograd F(2x2, 3x3)" : "  # Winograd F(4x4, 3x3)");
    }
    tt__putc(b, '\n');
}

/* "f32[2,3]" */
static void tt__put_type(tt__buf *b, const tt_tensor *t) {
    tt__put(b, tt_dtype_name(t->dtype));
    tt__put_shape(b, t);
}

static void tt__put_value(tt__buf *b, int v) {
    tt__putc(b, '%');
    tt__put_i64(b, v);
}

/* TT_DEBUG_PASSES: the graph after one pass, "-- after simplify: 12 nodes (2 removed)",
   then its nodes (the live ones, or the order once it exists); "unchanged" in place of the
   nodes when they print as after the pass before (a hash of their lines tells). */
static void tt__dump_pass(tt_graph *g, const char *pass, const bool *live, bool ordered, int removed) {
#ifndef TT_NO_STDIO
    char line[512];
    tt__buf b;
    uint64_t hash = 1469598103934665603u;              /* FNV-1a over the lines */
    int i, k, print, count = ordered ? g->n_order : g->tape.n_nodes;
    for (print = 0; print < 2; print++) {              /* first hash the lines, then print them */
        if (print) printf("-- after %s: %d nodes (%d removed)%s\n", pass, tt__count_nodes(g, live, ordered), removed,
                          hash == g->last_dump ? ", unchanged" : "");
        if (print && hash == g->last_dump) break;
        for (i = 0; i < count; i++) {
            int node = ordered ? g->order[i] : i;
            if (!ordered && !live[i]) continue;
            tt__buf_init(&b, line, sizeof line);
            tt__put_node(&b, g, &g->tape.nodes[node], true);
            if (print) fputs(line, stdout);
            for (k = 0; !print && line[k]; k++) hash = (hash ^ (unsigned char)line[k]) * 1099511628211u;
        }
    }
    g->last_dump = hash;
#else
    (void)g; (void)pass; (void)live; (void)ordered; (void)removed;
#endif
}

TT_API size_t tt_graph_dot(const tt_graph *g, char *buf, size_t size) {
    char dummy[1];
    tt__buf b;
    int p, k, v, i;
    bool *shown;
    if (!buf || size == 0) { buf = dummy; size = 1; }
    tt__buf_init(&b, buf, size);
    if (!g || !g->compiled) {
        tt__put(&b, "digraph tinytrace { label=\"compile the graph first\"; }\n");
        return b.total + 1;
    }
    shown = (bool *)tt__galloc((tt_graph *)g, sizeof(bool) * (size_t)g->tape.n_values);
    tt__put(&b, "digraph tinytrace {\n  node [shape=box, fontname=\"monospace\"];\n");
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        for (k = 0; k < n->n_in; k++) {               /* inputs, parameters and constants once each */
            v = tt__node_in(g, n, k);
            if (v >= 0 && g->tape.values[v].kind != TT__V_NODE && shown && !shown[v]) { shown[v] = true; tt__dot_value_node(&b, g, v); }
        }
        if (tt__is_fused(n)) {                         /* a cluster of the fused ops */
            const struct tt__program *pr = &g->progs[n->a.i[0]];
            tt__put(&b, "  subgraph cluster_"); tt__put_i64(&b, p);
            tt__put(&b, " {\n    label=\"fused\"; style=filled; color=lightgrey;\n");
            if (pr->head >= 0) tt__dot_op_node(&b, g, g->tape.nodes[pr->head].out, g->tape.nodes[pr->head].op, "    ");
            for (i = 0; i < pr->n_members; i++) {
                const tt__node *m = &g->tape.nodes[pr->members[i]];
                tt__dot_op_node(&b, g, m->out, m->op, "    ");
            }
            tt__put(&b, "  }\n");
            if (pr->head >= 0) {
                const tt__node *h = &g->tape.nodes[pr->head];
                for (k = 0; k < h->n_in; k++) if ((v = tt__node_in(g, h, k)) >= 0) tt__dot_edge(&b, v, h->out);
            }
            for (i = 0; i < pr->n_members; i++) {
                const tt__node *m = &g->tape.nodes[pr->members[i]];
                for (k = 0; k < m->n_in; k++) if ((v = tt__node_in(g, m, k)) >= 0) tt__dot_edge(&b, v, m->out);
            }
        } else {
            tt__dot_op_node(&b, g, n->out, n->op, "  ");
            for (k = 0; k < n->n_in; k++) if ((v = tt__node_in(g, n, k)) >= 0) tt__dot_edge(&b, v, n->out);
        }
    }
    for (i = 0; i < g->n_outputs; i++) {
        tt__put(&b, "  v"); tt__put_i64(&b, tt__rv(g, g->outputs[i])); tt__put(&b, " [peripheries=2];\n");
    }
    tt__put(&b, "}\n");
    tt__heap_free(&g->tape.alloc, shown);
    return b.total + 1;
}

/* "f32[2,3]" is tt__put_type, below */
static void tt__dot_value_node(tt__buf *b, const tt_graph *g, int v) {
    const tt__value *val = &g->tape.values[v];
    tt__put(b, "  v"); tt__put_i64(b, v); tt__put(b, " [label=\"%"); tt__put_i64(b, v);
    if (val->kind == TT__V_INPUT) { tt__put(b, " input "); tt__put(b, val->name); }
    if (val->kind == TT__V_PARAM) tt__put(b, " param");
    if (val->kind == TT__V_CONST) tt__put(b, " const");
    tt__put(b, "\\n"); tt__put_type(b, &val->meta);
    tt__put(b, val->kind == TT__V_INPUT ? "\", shape=ellipse];\n" : "\", shape=note];\n");
}

static void tt__dot_op_node(tt__buf *b, const tt_graph *g, int v, int op, const char *indent) {
    tt__put(b, indent); tt__put(b, "v"); tt__put_i64(b, v); tt__put(b, " [label=\"%"); tt__put_i64(b, v);
    tt__put(b, " = "); tt__put(b, tt__op_table[op].name); tt__put(b, "\\n"); tt__put_type(b, &g->tape.values[v].meta);
    tt__put(b, "\"];\n");
}

static void tt__dot_edge(tt__buf *b, int from, int to) {
    tt__put(b, "  v"); tt__put_i64(b, from); tt__put(b, " -> v"); tt__put_i64(b, to); tt__put(b, ";\n");
}

TT_API tt_graph *tt_trace(tt_ctx *ctx, tt_forward_fn fn, void *user, tt_tensor *const *inputs, int n_inputs) {
    tt_tensor *outs[16];
    tt_graph *g;
    tt_scope scope;
    int i, n;
    if (!ctx) return NULL;
    if (!fn) return (tt_graph *)tt__fail(ctx, TT_ERR_ARG, "tt_trace: fn is NULL");
    if (!tt__check_array(ctx, "tt_trace", inputs, "inputs", n_inputs, "n_inputs", 0, INT32_MAX)) return NULL;
    for (i = 0; i < n_inputs; i++) {
        if (!inputs[i]) return NULL;                   /* an earlier failure made it: already reported */
        if (inputs[i]->ctx != ctx)
            return (tt_graph *)tt__fail(ctx, TT_ERR_ARG, "tt_trace: inputs[%d] belongs to another context than ctx", i);
    }
    if (ctx->trace) return (tt_graph *)tt__fail(ctx, TT_ERR_STATE, "tt_trace: a trace is already running on ctx");
    if (tt_trace_begin(ctx) != TT_OK) return NULL;
    scope = tt_scope_begin(ctx);                       /* the trace's intermediates go at the end */
    for (i = 0; i < n_inputs; i++) {
        char name[16];
        tt__buf b;
        tt__buf_init(&b, name, sizeof name);
        tt__put(&b, "input");
        tt__put_i64(&b, i);
        tt_trace_input(ctx, inputs[i], name);
    }
    n = ctx->err.status == TT_OK ? fn(ctx, inputs, n_inputs, outs, 16, user) : -1;
    if ((n < 1 || n > 16) && ctx->err.status == TT_OK)
        tt__fail(ctx, TT_ERR_ARG, "tt_trace: fn returned %d outputs, expected 1..16", n);
    g = tt_trace_end(ctx, outs, n < 1 || n > 16 ? 1 : n);   /* ends the trace; NULL after an error */
    tt_scope_end(ctx, scope);
    return g;
}

#define TT__CACHE_MAX 64

struct tt_compiled {
    tt_forward_fn fn;
    void         *user;
    tt_mode       mode;
    unsigned      passes;
    int           max_graphs, n_graphs, last;
    tt_graph     *graphs[TT__CACHE_MAX];
    tt_allocator  alloc;
    tt__err       err;             /* sticky within a run; each tt_compiled_run starts clear */
};

TT_API tt_compiled *tt_compiled_create(tt_forward_fn fn, void *user, tt_mode mode, unsigned passes, int max_graphs) {
    tt_allocator al;
    tt_compiled *cc;
    memset(&al, 0, sizeof al);
    if (!fn || max_graphs < 0 || !tt__compile_args_valid(mode, passes)) return NULL;
    cc = (tt_compiled *)tt__heap_alloc(&al, sizeof *cc);
    if (!cc) return NULL;
    memset(cc, 0, sizeof *cc);
    cc->fn = fn;
    cc->user = user;
    cc->mode = mode;
    cc->passes = passes;
    cc->max_graphs = max_graphs <= 0 ? 8 : max_graphs > TT__CACHE_MAX ? TT__CACHE_MAX : max_graphs;
    cc->last = -1;
    return cc;
}

TT_API tt_status tt_compiled_run(tt_compiled *cc, tt_tensor *const *inputs, int n_inputs) {
    int i;
    tt_graph *g;
    if (!cc) return TT_ERR_ARG;
    tt__err_clear(&cc->err);
    if (n_inputs < 1) return tt__cc_fail(cc, TT_ERR_ARG, "tt_compiled_run", "n_inputs is below 1, expected at least one input");
    if (!inputs) return tt__cc_fail(cc, TT_ERR_ARG, "tt_compiled_run", "inputs is NULL");
    for (i = 0; i < n_inputs; i++)
        if (!inputs[i]) return tt__cc_fail(cc, TT_ERR_ARG, "tt_compiled_run", "inputs holds a NULL tensor");
    for (i = 0; i < cc->n_graphs; i++) if (tt__graph_fits(cc->graphs[i], inputs, n_inputs)) break;
    if (i == cc->n_graphs) {                           /* a new shape set: trace and compile */
        tt_ctx *ctx = inputs[0]->ctx;
        if (cc->n_graphs >= cc->max_graphs)
            return tt__cc_fail(cc, TT_ERR_STATE, "tt_compiled_run", "the recompile limit is reached (max_graphs shape "
                               "sets already compiled); input shapes vary too much");
        if (ctx->err.status != TT_OK)
            return tt__cc_fail(cc, TT_ERR_STATE, "tt_compiled_run", "the context of inputs holds an earlier error; "
                               "clear it (tt_clear_error) before tracing");
        g = tt_trace(ctx, cc->fn, cc->user, inputs, n_inputs);
        if (!g) {
            tt__cc_fail(cc, ctx->err.status != TT_OK ? ctx->err.status : TT_ERR_STATE, "tt_compiled_run",
                        tt_error(ctx) ? tt_error(ctx) : "tracing fn failed");
            return cc->err.status;
        }
        if (tt_graph_compile(g, cc->mode, cc->passes) != TT_OK) {
            tt__cc_fail(cc, g->err.status, "tt_compiled_run", g->err.msg);
            tt_graph_destroy(g);
            return cc->err.status;
        }
        cc->graphs[cc->n_graphs++] = g;
    }
    cc->last = i;
    g = cc->graphs[i];
    tt_graph_clear_error(g);
    if (tt_graph_run(g, inputs, n_inputs) != TT_OK) {
        cc->last = -1;
        return tt__cc_fail(cc, g->err.status, "tt_compiled_run", g->err.msg);
    }
    return TT_OK;
}

/* Does graph g take inputs of these dtypes and shapes? */
static bool tt__graph_fits(const tt_graph *g, tt_tensor *const *inputs, int n) {
    int i;
    if (g->tape.n_inputs != n) return false;
    for (i = 0; i < n; i++) {
        const tt_tensor *m = &g->tape.values[g->tape.inputs[i]].meta;
        if (!inputs[i] || inputs[i]->dtype != m->dtype || !tt_same_shape(inputs[i], m)) return false;
    }
    return true;
}

/* Records "fn: msg" (msg may be the message of the context or graph that failed), if it is
   the first error; returns cc's status. */
static tt_status tt__cc_fail(tt_compiled *cc, tt_status st, const char *fn, const char *msg) {
    tt__err_set(&cc->err, st, "%s: %s", fn, msg);
    return cc->err.status;
}

TT_API tt_tensor *tt_compiled_output(tt_compiled *cc, int i) {
    tt_graph *g;
    if (!cc) return NULL;
    if (cc->last < 0) {
        tt__cc_fail(cc, TT_ERR_STATE, "tt_compiled_output", "cc has no successful run to give outputs of");
        return NULL;
    }
    g = cc->graphs[cc->last];
    if (i < 0 || i >= g->n_outputs) {
        tt__cc_fail(cc, TT_ERR_ARG, "tt_compiled_output", "i is out of range for the outputs of fn");
        return NULL;
    }
    return tt_graph_output(g, i);
}
TT_API int tt_compiled_num_graphs(const tt_compiled *cc) { return cc ? cc->n_graphs : 0; }
TT_API const char *tt_compiled_error(const tt_compiled *cc) {
    return cc ? tt__err_msg(&cc->err) : "tinytrace: NULL compiled function";
}
TT_API tt_status tt_compiled_status(const tt_compiled *cc) { return cc ? cc->err.status : TT_ERR_ARG; }
TT_API void tt_compiled_destroy(tt_compiled *cc) {
    int i;
    if (!cc) return;
    for (i = 0; i < cc->n_graphs; i++) tt_graph_destroy(cc->graphs[i]);
    tt__heap_free(&cc->alloc, cc);
}

/* ==========================================================================
 * >>files   graph files (.ttg): save, load and check every byte; CRC-32C; whole files
 *
 * A .ttg file (docs/FORMAT.md has it byte by byte) holds a graph as it is. Compiled: the
 * nodes after the passes in run order, then the epilogue heads and members of its fused
 * nodes, and every fused program. Not compiled: the trace as recorded. Values are renumbered
 * to those the nodes use; constants (parameters too, with their values at save time) sit in
 * one blob, each at a multiple of 64 bytes. Numbers are little-endian; ops go by name (op
 * codes change between versions). A load trusts nothing: the checksum, every count, index,
 * offset and size, each op's own infer run on the saved shapes, each fused program register
 * by register; only then the memory plan and the backend's prepare, as a compile ends. A
 * compiled graph loads ready to run, without the passes (which need the heap): in a context
 * over a user buffer it takes every byte from that buffer, and the constants of an aligned
 * buffer are used where they are (a graph in flash runs from flash).
 * ========================================================================== */
#define TT__TTG_VERSION 1
#define TT__TTG_HEADER  128        /* bytes of the header */
#define TT__TTG_NAME    32         /* an op name or a value name, NUL-padded */
#define TT__TTG_VALUE   128        /* bytes of a value record */
#define TT__TTG_NODE    192        /* bytes of a node record */
#define TT__TTG_PASS    24         /* bytes of a pass record */
#define TT__TTG_PROG    32         /* bytes of a program's counts, before its micro-ops */
#define TT__TTG_UOP     24         /* bytes of a micro-op */
#define TT__TTG_DIMS    8          /* shape entries of a value record */
#define TT__TTG_MAX_NDIM (TT__TTG_DIMS < TT_MAX_DIMS ? TT__TTG_DIMS : TT_MAX_DIMS)   /* dims a load accepts */
#define TT__TTG_ATTRS   20         /* integer attributes of a node record */
#define TT__TTG_ALIGN   64         /* the blob and each constant in it start on a multiple */
#define TT__TTG_MAX_OPS 256        /* names in a file's op table */
static const unsigned char tt__ttg_magic[8] = { 'T', 'T', 'G', 'R', 'A', 'P', 'H', 0 };

/* The file stores these enums' numbers: keep them. */
typedef char tt__check_ttg_kinds[TT__V_INPUT == 0 && TT__V_PARAM == 1 && TT__V_CONST == 2 && TT__V_NODE == 3 &&
                                 TT__U_LOAD == 0 && TT__U_STORE == 6 && TT__U_NONE == 7 ? 1 : -1];

/* CRC-32C (Castagnoli, as iSCSI and ext4), four bits per step: a 64-byte table. */
static uint32_t tt__crc32c(uint32_t crc, const unsigned char *p, size_t n) {
    static const uint32_t nibble[16] = {
        0x00000000u, 0x105EC76Fu, 0x20BD8EDEu, 0x30E349B1u, 0x417B1DBCu, 0x5125DAD3u, 0x61C69362u, 0x7198540Du,
        0x82F63B78u, 0x92A8FC17u, 0xA24BB5A6u, 0xB21572C9u, 0xC38D26C4u, 0xD3D3E1ABu, 0xE330A81Au, 0xF36E6F75u
    };
    size_t i;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble[crc & 15u];
        crc = (crc >> 4) ^ nibble[crc & 15u];
    }
    return ~crc;
}

/* Files are little-endian; so must the host be for the blob's numbers to be read as they are. */
static bool tt__host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static uint32_t tt__get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t tt__get_u64(const unsigned char *p) { return (uint64_t)tt__get_u32(p) | (uint64_t)tt__get_u32(p + 4) << 32; }
static int32_t tt__get_i32(const unsigned char *p) { uint32_t u = tt__get_u32(p); int32_t v; memcpy(&v, &u, 4); return v; }
static int64_t tt__get_i64(const unsigned char *p) { uint64_t u = tt__get_u64(p); int64_t v; memcpy(&v, &u, 8); return v; }
static int16_t tt__get_i16(const unsigned char *p) { uint16_t u = (uint16_t)(p[0] | p[1] << 8); int16_t v; memcpy(&v, &u, 2); return v; }
static float tt__get_f32(const unsigned char *p) { uint32_t u = tt__get_u32(p); float v; memcpy(&v, &u, 4); return v; }

/* Where each section of a file lies: the fixed-size ones follow the header in this order,
   then the programs and the warnings, then (at a multiple of 64) the blob, then the CRC. */
typedef struct tt__ttg_layout {
    uint32_t n_ops, n_values, n_nodes, n_order, n_pool, n_progs, n_inputs, n_outputs, n_warnings, n_passes, n_traced;
    uint64_t ops, values, nodes, pool, inputs, outputs, passes;
    uint64_t progs, progs_bytes, warnings, warnings_bytes, blob, blob_bytes, file_bytes;
} tt__ttg_layout;

/* The header's counts, in their order from byte 36, and its section offsets and sizes, in
   theirs from byte 80 (docs/FORMAT.md): one list for the writer and the reader. */
#define TT__TTG_COUNTS   11
#define TT__TTG_SECTIONS 6
static void tt__ttg_fields(tt__ttg_layout *L, uint32_t **count, uint64_t **section) {
    count[0] = &L->n_ops;
    count[1] = &L->n_values;
    count[2] = &L->n_nodes;
    count[3] = &L->n_order;
    count[4] = &L->n_pool;
    count[5] = &L->n_progs;
    count[6] = &L->n_inputs;
    count[7] = &L->n_outputs;
    count[8] = &L->n_warnings;
    count[9] = &L->n_passes;
    count[10] = &L->n_traced;
    section[0] = &L->progs;
    section[1] = &L->progs_bytes;
    section[2] = &L->warnings;
    section[3] = &L->warnings_bytes;
    section[4] = &L->blob;
    section[5] = &L->blob_bytes;
}

/* Offsets from the counts and the three variable sizes (each at most 2^60: no overflow). */
static void tt__ttg_place(tt__ttg_layout *L) {
    uint64_t at = TT__TTG_HEADER;
    L->ops = at;      at += (uint64_t)L->n_ops * TT__TTG_NAME;
    L->values = at;   at += (uint64_t)L->n_values * TT__TTG_VALUE;
    L->nodes = at;    at += (uint64_t)L->n_nodes * TT__TTG_NODE;
    L->pool = at;     at += (uint64_t)L->n_pool * 4;
    L->inputs = at;   at += (uint64_t)L->n_inputs * 4;
    L->outputs = at;  at += (uint64_t)L->n_outputs * 4;
    L->passes = at;   at += (uint64_t)L->n_passes * TT__TTG_PASS;
    L->progs = at;    at += L->progs_bytes;
    L->warnings = at; at += L->warnings_bytes;
    L->blob = (at + TT__TTG_ALIGN - 1) / TT__TTG_ALIGN * TT__TTG_ALIGN;
    L->file_bytes = L->blob + L->blob_bytes + 4;
}

/* ---- saving ---------------------------------------------------------------- */

/* Bytes go to a buffer (as far as it reaches) or a file, through the CRC; pos counts all. */
typedef struct tt__writer {
    unsigned char *buf;
    size_t         cap, pos;
    uint32_t       crc;
    void          *file;           /* a FILE*, or NULL */
    bool           failed;         /* the file refused a write */
} tt__writer;

static void tt__put_bytes(tt__writer *w, const void *p, size_t n) {
    if (n == 0) return;
    w->crc = tt__crc32c(w->crc, (const unsigned char *)p, n);
    if (w->buf && w->pos < w->cap) memcpy(w->buf + w->pos, p, n < w->cap - w->pos ? n : w->cap - w->pos);
#ifndef TT_NO_STDIO
    if (w->file && fwrite(p, 1, n, (FILE *)w->file) != n) w->failed = true;
#endif
    w->pos += n;
}
static void tt__put_u32(tt__writer *w, uint32_t v) {
    unsigned char b[4];
    b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8); b[2] = (unsigned char)(v >> 16); b[3] = (unsigned char)(v >> 24);
    tt__put_bytes(w, b, 4);
}
static void tt__put_u64(tt__writer *w, uint64_t v) { tt__put_u32(w, (uint32_t)v); tt__put_u32(w, (uint32_t)(v >> 32)); }
static void tt__put_i64w(tt__writer *w, int64_t v) { uint64_t u; memcpy(&u, &v, 8); tt__put_u64(w, u); }
static void tt__put_i32(tt__writer *w, int32_t v) { uint32_t u; memcpy(&u, &v, 4); tt__put_u32(w, u); }
static void tt__put_i16(tt__writer *w, int v) {
    unsigned char b[2];
    uint16_t u = (uint16_t)(int16_t)v;
    b[0] = (unsigned char)u; b[1] = (unsigned char)(u >> 8);
    tt__put_bytes(w, b, 2);
}
static void tt__put_f32w(tt__writer *w, float v) { uint32_t u; memcpy(&u, &v, 4); tt__put_u32(w, u); }
static void tt__put_zeros(tt__writer *w, size_t n) {
    static const unsigned char zeros[TT__TTG_ALIGN] = {0};
    while (n > 0) {
        size_t k = n < sizeof zeros ? n : sizeof zeros;
        tt__put_bytes(w, zeros, k);
        n -= k;
    }
}
/* s in a field of n bytes, NUL-padded (s is shorter than n). */
static void tt__put_name(tt__writer *w, const char *s, size_t n) {
    size_t len = strlen(s);
    tt__put_bytes(w, s, len);
    tt__put_zeros(w, n - len);
}

/* What a save writes: the nodes and values it keeps, renumbered, and where each goes. */
typedef struct tt__ttg_save {
    tt_graph      *g;
    int           *node_of, *value_of;  /* saved index -> the graph's */
    int           *new_node, *new_value; /* the graph's index -> saved, or -1 */
    uint64_t      *data_at;              /* per saved value: its offset in the blob */
    int            op_at[TT__OP_COUNT];  /* opcode -> index in the file's op table, or -1 */
    int            op_list[TT__OP_COUNT];
    tt__ttg_layout L;
} tt__ttg_save;

/* Input k of node n as the saved graph sees it (after the passes' replacements). */
static int tt__saved_in(const tt_graph *g, const tt__node *n, int k) {
    return g->compiled ? tt__node_in(g, n, k) : g->tape.pool[n->in_at + k];
}

static void tt__save_keep_node(tt__ttg_save *S, int node) {
    if (node < 0 || S->new_node[node] >= 0) return;
    S->new_node[node] = (int)S->L.n_nodes;
    S->node_of[S->L.n_nodes++] = node;
}

/* Compiled: the order, then each fused node's head and members. Else every traced node. */
static void tt__save_pick_nodes(tt__ttg_save *S) {
    const tt_graph *g = S->g;
    int p, k;
    if (!g->compiled) {
        for (p = 0; p < g->n_traced_nodes; p++) tt__save_keep_node(S, p);
        return;
    }
    for (p = 0; p < g->n_order; p++) tt__save_keep_node(S, g->order[p]);
    S->L.n_order = (uint32_t)g->n_order;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        const struct tt__program *pr;
        if (!tt__is_fused(n)) continue;
        pr = &g->progs[n->a.i[0]];
        tt__save_keep_node(S, pr->head);
        for (k = 0; k < pr->n_members; k++) tt__save_keep_node(S, pr->members[k]);
    }
}

static void tt__save_keep_value(tt__ttg_save *S, int v) {
    if (v >= 0) S->new_value[v] = 0;
}

/* The values the kept nodes, the programs and the graph's inputs and outputs use, numbered
   in the graph's order (inputs and parameters first, as traced). */
static void tt__save_pick_values(tt__ttg_save *S) {
    const tt_graph *g = S->g;
    uint32_t i;
    int k, v;
    for (i = 0; i < S->L.n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[S->node_of[i]];
        tt__save_keep_value(S, n->out);
        for (k = 0; k < n->n_in; k++) tt__save_keep_value(S, tt__saved_in(g, n, k));
        if (tt__is_fused(n))
            for (k = 0; k < g->progs[n->a.i[0]].n_out; k++) tt__save_keep_value(S, g->progs[n->a.i[0]].outs[k]);
    }
    for (k = 0; k < g->tape.n_inputs; k++) tt__save_keep_value(S, g->tape.inputs[k]);
    for (k = 0; k < g->n_outputs; k++) tt__save_keep_value(S, g->compiled ? tt__rv(g, g->outputs[k]) : g->outputs[k]);
    for (v = 0; v < g->tape.n_values; v++) {
        if (S->new_value[v] < 0) continue;
        S->new_value[v] = (int)S->L.n_values;
        S->value_of[S->L.n_values++] = v;
    }
}

/* The data a saved constant or parameter holds: a parameter's tensor as it is now. */
static const tt_tensor *tt__saved_data(const tt__value *val) {
    return val->ref ? val->ref : &val->meta;
}

static bool tt__value_has_data(const tt__value *val) { return val->kind == TT__V_CONST || val->kind == TT__V_PARAM; }

/* Gives op a place in the file's op table on first use. */
static void tt__save_use_op(tt__ttg_save *S, int op) {
    if (op < 0 || S->op_at[op] >= 0) return;
    S->op_at[op] = (int)S->L.n_ops;
    S->op_list[S->L.n_ops++] = op;
}

/* Sizes of the variable sections, the op table, and each constant's place in the blob. */
static void tt__save_layout(tt__ttg_save *S) {
    const tt_graph *g = S->g;
    tt__ttg_layout *L = &S->L;
    uint64_t at = 0;
    uint32_t i;
    int k;
    for (k = 0; k < TT__OP_COUNT; k++) S->op_at[k] = -1;
    for (i = 0; i < L->n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[S->node_of[i]];
        L->n_pool += (uint32_t)n->n_in;
        tt__save_use_op(S, n->op);
        if (tt__is_fused(n)) {
            const struct tt__program *pr = &g->progs[n->a.i[0]];
            L->n_progs++;
            L->progs_bytes += TT__TTG_PROG + (uint64_t)pr->n_uops * TT__TTG_UOP + 4u * (uint64_t)(pr->n_out + pr->n_members);
            for (k = 0; k < pr->n_uops; k++) {          /* the elementwise ops inside, by name too */
                const tt__uop *u = &pr->uops[k];
                bool named = u->kind == TT__U_UNARY || u->kind == TT__U_BINARY || u->kind == TT__U_PAIR;
                tt__save_use_op(S, named ? u->op : -1);
                tt__save_use_op(S, u->kind == TT__U_PAIR ? u->op2 : -1);
            }
        }
    }
    for (i = 0; i < L->n_values; i++) {
        const tt__value *val = &g->tape.values[S->value_of[i]];
        S->data_at[i] = 0;
        if (!tt__value_has_data(val)) continue;
        at = (at + TT__TTG_ALIGN - 1) / TT__TTG_ALIGN * TT__TTG_ALIGN;
        S->data_at[i] = at;
        at += (uint64_t)val->meta.numel * tt_dtype_size(val->meta.dtype);
    }
    L->blob_bytes = at;
    L->n_inputs = (uint32_t)g->tape.n_inputs;
    L->n_outputs = (uint32_t)g->n_outputs;
    L->n_warnings = (uint32_t)g->tape.n_warnings;
    for (k = 0; k < g->tape.n_warnings; k++) L->warnings_bytes += 4 + strlen(g->tape.warnings[k]);
    L->n_passes = g->compiled ? (uint32_t)g->n_pass_stats : 0;
    L->n_traced = (uint32_t)(g->loaded_compiled ? g->loaded_traced : g->n_traced_nodes);
    tt__ttg_place(L);
}

static void tt__save_header(tt__writer *w, tt__ttg_save *S) {
    uint32_t *count[TT__TTG_COUNTS];
    uint64_t *section[TT__TTG_SECTIONS];
    int k;
    tt__ttg_fields(&S->L, count, section);
    tt__put_bytes(w, tt__ttg_magic, sizeof tt__ttg_magic);
    tt__put_u32(w, TT__TTG_VERSION);
    tt__put_u32(w, TT__TTG_HEADER);
    tt__put_u64(w, S->L.file_bytes);
    tt__put_u32(w, S->g->compiled ? 1u : 0u);
    tt__put_u32(w, S->g->compiled ? (uint32_t)S->g->mode : 0u);
    tt__put_u32(w, S->g->compiled ? S->g->passes : 0u);
    for (k = 0; k < TT__TTG_COUNTS; k++) tt__put_u32(w, *count[k]);
    for (k = 0; k < TT__TTG_SECTIONS; k++) tt__put_u64(w, *section[k]);
}

/* The op table of the file: the name of each op it uses (every name is shorter than 32). */
static void tt__save_ops(tt__writer *w, const tt__ttg_save *S) {
    uint32_t i;
    for (i = 0; i < S->L.n_ops; i++) tt__put_name(w, tt__op_table[S->op_list[i]].name, TT__TTG_NAME);
}

static void tt__save_values(tt__writer *w, const tt__ttg_save *S) {
    uint32_t i;
    int d;
    for (i = 0; i < S->L.n_values; i++) {
        const tt__value *val = &S->g->tape.values[S->value_of[i]];
        unsigned char b[4];
        b[0] = (unsigned char)val->kind;
        b[1] = (unsigned char)val->meta.dtype;
        b[2] = (unsigned char)val->meta.ndim;
        b[3] = (unsigned char)(val->param ? 1 : 0);
        tt__put_bytes(w, b, 4);
        tt__put_i32(w, val->kind == TT__V_NODE && val->node >= 0 ? S->new_node[val->node] : -1);
        for (d = 0; d < TT__TTG_DIMS; d++) tt__put_i64w(w, d < val->meta.ndim ? val->meta.shape[d] : 0);
        tt__put_u64(w, S->data_at[i]);
        tt__put_u64(w, tt__value_has_data(val) ? (uint64_t)val->meta.numel * tt_dtype_size(val->meta.dtype) : 0);
        tt__put_name(w, val->name, TT__TTG_NAME);
        tt__put_u64(w, 0);
    }
}

static void tt__save_nodes(tt__writer *w, const tt__ttg_save *S) {
    const tt_graph *g = S->g;
    uint32_t i, pool_at = 0;
    int k, prog = 0;
    for (i = 0; i < S->L.n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[S->node_of[i]];
        tt__put_u32(w, (uint32_t)S->op_at[n->op]);
        tt__put_i32(w, S->new_value[n->out]);
        tt__put_u32(w, pool_at);
        tt__put_u32(w, (uint32_t)n->n_in);
        for (k = 0; k < TT__TTG_ATTRS; k++) {          /* a fused node's program: its number in the file */
            int64_t a = k < TT__NATTR ? n->a.i[k] : 0;
            tt__put_i64w(w, k == 0 && tt__is_fused(n) ? prog++ : a);
        }
        for (k = 0; k < 3; k++) tt__put_f32w(w, n->a.f[k]);
        tt__put_u32(w, 0);
        pool_at += (uint32_t)n->n_in;
    }
    for (i = 0; i < S->L.n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[S->node_of[i]];
        for (k = 0; k < n->n_in; k++) {
            int v = tt__saved_in(g, n, k);
            tt__put_i32(w, v >= 0 ? S->new_value[v] : -1);
        }
    }
}

static void tt__save_io_and_passes(tt__writer *w, const tt__ttg_save *S) {
    const tt_graph *g = S->g;
    uint32_t i;
    int k;
    for (k = 0; k < g->tape.n_inputs; k++) tt__put_i32(w, S->new_value[g->tape.inputs[k]]);
    for (k = 0; k < g->n_outputs; k++) tt__put_i32(w, S->new_value[g->compiled ? tt__rv(g, g->outputs[k]) : g->outputs[k]]);
    for (i = 0; i < S->L.n_passes; i++) {
        tt__put_name(w, g->pass_stats[i].name, 20);
        tt__put_i32(w, g->pass_stats[i].nodes_removed);
    }
}

/* An elementwise op of a micro-op: its index in the file's op table. */
static int tt__save_uop_op(const tt__ttg_save *S, const tt__uop *u, int op) {
    if (u->kind == TT__U_CAST) return op;              /* a dtype */
    if (u->kind == TT__U_UNARY || u->kind == TT__U_BINARY || u->kind == TT__U_PAIR) return op >= 0 ? S->op_at[op] : -1;
    return 0;
}

static void tt__save_programs(tt__writer *w, const tt__ttg_save *S) {
    const tt_graph *g = S->g;
    uint32_t i;
    int k;
    for (i = 0; i < S->L.n_nodes; i++) {
        const tt__node *n = &g->tape.nodes[S->node_of[i]];
        const struct tt__program *pr;
        if (!tt__is_fused(n)) continue;
        pr = &g->progs[n->a.i[0]];
        tt__put_u32(w, (uint32_t)pr->n_uops);
        tt__put_u32(w, (uint32_t)pr->n_regs);
        tt__put_u32(w, (uint32_t)pr->n_in);
        tt__put_u32(w, (uint32_t)pr->n_out);
        tt__put_u32(w, (uint32_t)pr->n_members);
        tt__put_i32(w, pr->head >= 0 ? S->new_node[pr->head] : -1);
        tt__put_i32(w, pr->head_input);
        tt__put_i32(w, pr->head_out);
        for (k = 0; k < pr->n_uops; k++) {
            const tt__uop *u = &pr->uops[k];
            unsigned char b[2];
            b[0] = u->kind;
            b[1] = u->swap;
            tt__put_bytes(w, b, 2);
            tt__put_i16(w, tt__save_uop_op(S, u, u->op));
            tt__put_i16(w, u->kind == TT__U_PAIR ? tt__save_uop_op(S, u, u->op2) : 0);
            tt__put_i16(w, u->dst);
            tt__put_i16(w, u->a);
            tt__put_i16(w, u->b);
            tt__put_i16(w, u->c);
            tt__put_i16(w, 0);
            tt__put_f32w(w, u->p0);
            tt__put_f32w(w, u->p1);
        }
        for (k = 0; k < pr->n_out; k++) tt__put_i32(w, S->new_value[pr->outs[k]]);
        for (k = 0; k < pr->n_members; k++) tt__put_i32(w, S->new_node[pr->members[k]]);
    }
}

/* One saved value's elements, row-major, whatever its strides (a parameter may be a view). */
static void tt__save_tensor_data(tt__writer *w, const tt_tensor *t) {
    size_t es = tt_dtype_size(t->dtype);
    int64_t idx[TT_MAX_DIMS], i;
    int d;
    if (tt_is_contiguous(t)) {
        tt__put_bytes(w, tt__ptr(t), (size_t)t->numel * es);
        return;
    }
    memset(idx, 0, sizeof idx);
    for (i = 0; i < t->numel; i++) {
        int64_t at = t->offset;
        for (d = 0; d < t->ndim; d++) at += idx[d] * t->stride[d];
        tt__put_bytes(w, (const char *)t->data + at * (int64_t)es, es);
        for (d = t->ndim - 1; d >= 0 && ++idx[d] == t->shape[d]; d--) idx[d] = 0;
    }
}

static void tt__save_rest(tt__writer *w, const tt__ttg_save *S) {
    const tt_graph *g = S->g;
    uint32_t i;
    int k;
    for (k = 0; k < g->tape.n_warnings; k++) {
        size_t len = strlen(g->tape.warnings[k]);
        tt__put_u32(w, (uint32_t)len);
        tt__put_bytes(w, g->tape.warnings[k], len);
    }
    tt__put_zeros(w, (size_t)(S->L.blob - w->pos));
    for (i = 0; i < S->L.n_values; i++) {
        const tt__value *val = &g->tape.values[S->value_of[i]];
        if (!tt__value_has_data(val)) continue;
        tt__put_zeros(w, (size_t)(S->L.blob + S->data_at[i] - w->pos));
        tt__save_tensor_data(w, tt__saved_data(val));
    }
}

/* What the format cannot hold: a big-endian host's numbers, more dims or attributes than its
   fields have (a build with TT_MAX_DIMS above 8). */
static tt_status tt__save_check(tt_graph *g, const char *fn, const tt__ttg_save *S) {
    uint32_t i;
    int k;
    if (!tt__host_is_little_endian())
        return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: this host is big-endian; .ttg files are little-endian and "
                         "this version writes them only on little-endian hosts", fn);
    for (i = 0; i < S->L.n_values; i++)
        if (g->tape.values[S->value_of[i]].meta.ndim > TT__TTG_DIMS)
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: a value has %d dims; .ttg files hold at most %d",
                             fn, g->tape.values[S->value_of[i]].meta.ndim, TT__TTG_DIMS);
    for (i = 0; i < S->L.n_nodes; i++)
        for (k = TT__TTG_ATTRS; k < TT__NATTR; k++)
            if (g->tape.nodes[S->node_of[i]].a.i[k] != 0)
                return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: node %d has more attributes than .ttg files hold (%d)",
                                 fn, S->node_of[i], TT__TTG_ATTRS);
    return TT_OK;
}

/* Writes the file to w; false (an error in g) when g cannot be saved. */
static bool tt__graph_write(tt_graph *g, const char *fn, tt__writer *w) {
    const tt_allocator *al = &g->tape.alloc;
    int nv = g->tape.n_values, nn = g->tape.n_nodes;
    tt__ttg_save S;
    bool ok = false;
    memset(&S, 0, sizeof S);
    S.g = g;
    S.node_of = (int *)tt__galloc(g, sizeof(int) * (size_t)(2 * nn + 4 * nv + 2));
    S.data_at = (uint64_t *)tt__galloc(g, sizeof(uint64_t) * (size_t)(nv + 1));
    if (!S.node_of || !S.data_at) {
        tt__gfail(g, TT_ERR_OOM, "%s: out of memory", fn);
        goto done;
    }
    S.new_node = S.node_of + nn + 1;
    S.value_of = S.new_node + nn;
    S.new_value = S.value_of + nv + 1;
    memset(S.new_node, 0xFF, sizeof(int) * (size_t)nn);   /* -1 */
    memset(S.new_value, 0xFF, sizeof(int) * (size_t)nv);
    tt__save_pick_nodes(&S);
    tt__save_pick_values(&S);
    tt__save_layout(&S);
    if (tt__save_check(g, fn, &S) != TT_OK) goto done;
    tt__save_header(w, &S);
    tt__save_ops(w, &S);
    tt__save_values(w, &S);
    tt__save_nodes(w, &S);
    tt__save_io_and_passes(w, &S);
    tt__save_programs(w, &S);
    tt__save_rest(w, &S);
    tt__put_u32(w, w->crc);
    ok = true;
done:
    tt__heap_free(al, S.node_of);
    tt__heap_free(al, S.data_at);
    return ok;
}

TT_API size_t tt_graph_save_memory(tt_graph *g, void *buf, size_t size) {
    tt__writer w;
    if (!g) return 0;
    memset(&w, 0, sizeof w);
    w.buf = (unsigned char *)buf;
    w.cap = buf ? size : 0;
    if (size > 0 && !buf) {
        tt__gfail(g, TT_ERR_ARG, "tt_graph_save_memory: buf is NULL but size is %D", (int64_t)size);
        return 0;
    }
    return tt__graph_write(g, "tt_graph_save_memory", &w) ? w.pos : 0;
}

#ifndef TT_NO_STDIO
TT_API tt_status tt_graph_save(tt_graph *g, const char *path) {
    tt__writer w;
    FILE *f;
    bool ok;
    if (!g) return TT_ERR_ARG;
    if (!path) return tt__gfail(g, TT_ERR_ARG, "tt_graph_save: path is NULL");
    f = fopen(path, "wb");
    if (!f) return tt__gfail(g, TT_ERR_IO, "tt_graph_save: cannot open path '%s' for writing", path);
    memset(&w, 0, sizeof w);
    w.file = f;
    ok = tt__graph_write(g, "tt_graph_save", &w);
    if (fclose(f) != 0) w.failed = true;
    if (ok && w.failed) return tt__gfail(g, TT_ERR_IO, "tt_graph_save: writing path '%s' failed (disk full?)", path);
    return ok ? TT_OK : g->err.status;
}
#endif

/* ---- loading ---------------------------------------------------------------- */

/* A load in progress: the bytes, the context that gets the errors, the graph being built. */
typedef struct tt__ttg_load {
    tt_ctx              *ctx;
    const char          *fn;
    const char          *src;                       /* "buf", or the path: for messages */
    const unsigned char *p;
    size_t               size;
    tt__ttg_layout       L;
    tt_graph            *g;
    int16_t              opcode[TT__TTG_MAX_OPS];   /* the file's op table -> our op codes */
    int                 *writer;                    /* per value: the order position that writes it, or -1 */
} tt__ttg_load;

/* Records a format error naming what is wrong; returns false. */
static bool tt__bad(tt__ttg_load *ld, const char *fmt, ...) {
    char msg[TT__MSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    tt__vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tt__fail(ld->ctx, TT_ERR_FORMAT, "%s: %s", ld->fn, msg);
    return false;
}

/* Memory of a graph that lives in a user buffer: carved from that context, never freed
   one by one (the buffer is the user's). */
static void *tt__ctx_bump_alloc(size_t n, void *user) { return tt__alloc((tt_ctx *)user, "tt_graph_load", n); }
static void tt__ctx_bump_free(void *p, void *user) { (void)p; (void)user; }

/* The allocator of a graph loaded into ctx: the heap's (the graph then outlives ctx, as a
   traced one does), or ctx's own buffer. */
static tt_allocator tt__load_allocator(tt_ctx *ctx) {
    tt_allocator al = ctx->allocator;
    if (ctx->user_memory) {
        al.alloc = tt__ctx_bump_alloc;
        al.free = tt__ctx_bump_free;
        al.user = ctx;
    }
    return al;
}

static bool tt__load_header(tt__ttg_load *ld) {
    const unsigned char *p = ld->p;
    tt__ttg_layout *L = &ld->L, saved;
    uint32_t *count[TT__TTG_COUNTS];
    uint64_t *section[TT__TTG_SECTIONS];
    uint32_t version, crc;
    int k;
    if (ld->size < TT__TTG_HEADER + 4)
        return tt__bad(ld, "%s has %D bytes, too few for a .ttg file (at least %d)", ld->src, (int64_t)ld->size, TT__TTG_HEADER + 4);
    if (memcmp(p, tt__ttg_magic, sizeof tt__ttg_magic) != 0) return tt__bad(ld, "%s is not a .ttg file (its magic bytes differ)", ld->src);
    version = tt__get_u32(p + 8);
    if (version > TT__TTG_VERSION)
        return tt__bad(ld, "%s is .ttg version %D, this tinytrace (%s) reads version %d; load it with a newer tinytrace",
                       ld->src, (int64_t)version, TT_VERSION_STRING, TT__TTG_VERSION);
    if (version != TT__TTG_VERSION || tt__get_u32(p + 12) != TT__TTG_HEADER)
        return tt__bad(ld, "unknown version %D or header size %D", (int64_t)version, (int64_t)tt__get_u32(p + 12));
    if (tt__get_u64(p + 16) != (uint64_t)ld->size)
        return tt__bad(ld, "%s has %D bytes, its header says %D (truncated or padded?)", ld->src, (int64_t)ld->size,
                       (int64_t)(tt__get_u64(p + 16) & 0x7FFFFFFFFFFFFFFFull));
    crc = tt__crc32c(0, p, ld->size - 4);
    if (crc != tt__get_u32(p + ld->size - 4)) return tt__bad(ld, "%s fails its checksum (CRC-32C): the file is corrupt", ld->src);
    if (!tt__host_is_little_endian())
        return tt__fail(ld->ctx, TT_ERR_UNSUPPORTED, "%s: this host is big-endian; this version reads .ttg files only "
                        "on little-endian hosts", ld->fn), false;
    tt__ttg_fields(L, count, section);
    for (k = 0; k < TT__TTG_COUNTS; k++) *count[k] = tt__get_u32(p + 36 + 4 * k);
    for (k = 0; k < TT__TTG_SECTIONS; k++) *section[k] = tt__get_u64(p + 80 + 8 * k);
    saved = *L;                                        /* the offsets as the file says them */
    if (L->progs_bytes > ld->size || L->warnings_bytes > ld->size || L->blob_bytes > ld->size)
        return tt__bad(ld, "a section is larger than the file");
    if (L->n_ops > TT__TTG_MAX_OPS || L->n_values > INT32_MAX / 8 || L->n_nodes > INT32_MAX / 8 || L->n_pool > INT32_MAX / 8 ||
        L->n_inputs > INT32_MAX / 8 || L->n_outputs > INT32_MAX / 8 || L->n_warnings > INT32_MAX / 8 ||
        L->n_passes > 12 || L->n_order > L->n_nodes || L->n_progs > L->n_nodes ||
        (uint64_t)L->n_progs * TT__TTG_PROG > L->progs_bytes || (uint64_t)L->n_warnings * 4 > L->warnings_bytes)
        return tt__bad(ld, "counts out of range (ops %D, values %D, nodes %D, order %D, programs %D, passes %D)",
                       (int64_t)L->n_ops, (int64_t)L->n_values, (int64_t)L->n_nodes, (int64_t)L->n_order,
                       (int64_t)L->n_progs, (int64_t)L->n_passes);
    tt__ttg_place(L);
    if (L->file_bytes != (uint64_t)ld->size || saved.progs != L->progs || saved.warnings != L->warnings || saved.blob != L->blob)
        return tt__bad(ld, "the sections do not lie where the counts put them");
    return true;
}

/* The op names of the file, mapped to ours. */
static bool tt__load_ops(tt__ttg_load *ld) {
    uint32_t i;
    int op;
    for (i = 0; i < ld->L.n_ops; i++) {
        const char *name = (const char *)ld->p + ld->L.ops + (size_t)i * TT__TTG_NAME;
        if (!memchr(name, 0, TT__TTG_NAME)) return tt__bad(ld, "op name %D is not NUL-terminated", (int64_t)i);
        for (op = 0; op < TT__OP_COUNT && strcmp(tt__op_table[op].name, name) != 0; op++) {}
        if (op == TT__OP_COUNT)
            return tt__fail(ld->ctx, TT_ERR_UNSUPPORTED, "%s: the file uses op '%s', which tinytrace %s does not have",
                            ld->fn, name, TT_VERSION_STRING), false;
        ld->opcode[i] = (int16_t)op;
    }
    return true;
}

/* A constant's or parameter's bytes: in place when they are aligned for their dtype (the
   graph then keeps pointing into the buffer), else copied. */
static bool tt__load_value_data(tt__ttg_load *ld, tt__value *val, uint64_t at, uint64_t bytes, bool in_place) {
    const unsigned char *src;
    if (at % TT__TTG_ALIGN != 0 || at > ld->L.blob_bytes || bytes > ld->L.blob_bytes - at)
        return tt__bad(ld, "value data at blob offset %D (%D bytes) is misaligned or outside the %D-byte blob",
                       (int64_t)(at & 0x7FFFFFFFFFFFFFFFull), (int64_t)(bytes & 0x7FFFFFFFFFFFFFFFull), (int64_t)ld->L.blob_bytes);
    src = ld->p + ld->L.blob + at;                     /* only now: a pointer past the buffer is undefined */
    if (in_place && (uintptr_t)src % tt_dtype_size(val->meta.dtype) == 0) {
        val->data = (void *)(uintptr_t)src;            /* read only: the graph never writes constants */
        val->borrowed = true;
    } else {
        val->data = tt__heap_alloc(&ld->g->tape.alloc, bytes ? (size_t)bytes : 1);
        if (!val->data) return tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory for %D bytes of constants", ld->fn, (int64_t)bytes), false;
        memcpy(val->data, src, (size_t)bytes);
    }
    val->meta.data = val->data;
    return true;
}

static bool tt__load_values(tt__ttg_load *ld, bool in_place) {
    tt_graph *g = ld->g;
    uint32_t i;
    int d;
    for (i = 0; i < ld->L.n_values; i++) {
        const unsigned char *r = ld->p + ld->L.values + (size_t)i * TT__TTG_VALUE;
        tt__value *val = &g->tape.values[i];
        int64_t numel;
        uint64_t bytes = tt__get_u64(r + 80);
        memset(val, 0, sizeof *val);
        if (r[0] > TT__V_NODE || r[1] >= TT_DTYPE_COUNT || r[2] > TT__TTG_MAX_NDIM || r[3] > 1)
            return tt__bad(ld, "value %D: kind %d, dtype %d, ndim %d or flags %d out of range", (int64_t)i, r[0], r[1], r[2], r[3]);
        if (r[3] != 0 && r[0] != TT__V_PARAM && r[0] != TT__V_CONST)   /* a compile turns flagged values into parameters */
            return tt__bad(ld, "value %D: an input or op result flagged as a parameter", (int64_t)i);
        val->kind = (tt__vkind)r[0];
        val->param = r[3] != 0;
        val->node = tt__get_i32(r + 4);
        if (val->node < -1 || val->node >= (int64_t)ld->L.n_nodes) return tt__bad(ld, "value %D: producer node %d out of range", (int64_t)i, val->node);
        tt__header_init(&val->meta, NULL);
        val->meta.dtype = (tt_dtype)r[1];
        val->meta.ndim = r[2];
        for (d = 0; d < val->meta.ndim; d++) val->meta.shape[d] = tt__get_i64(r + 8 + 8 * d);
        if (!tt__sizes_fit(val->meta.ndim, val->meta.shape)) return tt__bad(ld, "value %D: shape %S is negative or too large", (int64_t)i, &val->meta);
        tt__set_contiguous_strides(&val->meta);
        tt__update_numel(&val->meta);
        numel = val->meta.numel;
        if (!memchr(r + 88, 0, TT__TTG_NAME)) return tt__bad(ld, "value %D: its name is not NUL-terminated", (int64_t)i);
        if (tt__get_u64(r + 120) != 0) return tt__bad(ld, "value %D: its reserved bytes are not zero", (int64_t)i);
        memcpy(val->name, r + 88, TT__TTG_NAME);
        if (!tt__value_has_data(val)) {
            if (bytes != 0) return tt__bad(ld, "value %D: an input or op result with %D bytes of data", (int64_t)i, (int64_t)(bytes & 0xFFFFFFFFu));
            continue;
        }
        if (bytes != (uint64_t)numel * tt_dtype_size(val->meta.dtype))
            return tt__bad(ld, "value %D: %D bytes of data for %T%S", (int64_t)i, (int64_t)(bytes & 0x7FFFFFFFFFFFFFFFull), (int)val->meta.dtype, &val->meta);
        if (!tt__load_value_data(ld, val, tt__get_u64(r + 72), bytes, in_place)) return false;
    }
    return true;
}

/* A value id read from the file: -1 (where allowed) or a value. */
static bool tt__load_value_id(tt__ttg_load *ld, int32_t v, bool absent_ok, const char *what, int64_t at) {
    if ((v == -1 && absent_ok) || (v >= 0 && (uint32_t)v < ld->L.n_values)) return true;
    return tt__bad(ld, "%s %D refers to value %d; the file has %D", what, at, (int)v, (int64_t)ld->L.n_values);
}

static bool tt__load_nodes(tt__ttg_load *ld) {
    tt_graph *g = ld->g;
    uint32_t i;
    int k;
    for (i = 0; i < ld->L.n_pool; i++) {
        g->tape.pool[i] = tt__get_i32(ld->p + ld->L.pool + 4 * (size_t)i);
        if (!tt__load_value_id(ld, g->tape.pool[i], true, "input slot", i)) return false;
    }
    for (i = 0; i < ld->L.n_nodes; i++) {
        const unsigned char *r = ld->p + ld->L.nodes + (size_t)i * TT__TTG_NODE;
        tt__node *n = &g->tape.nodes[i];
        uint32_t op = tt__get_u32(r), in_at = tt__get_u32(r + 8), n_in = tt__get_u32(r + 12);
        if (op >= ld->L.n_ops) return tt__bad(ld, "node %D: op %D is not in the file's op table", (int64_t)i, (int64_t)op);
        memset(n, 0, sizeof *n);
        n->op = ld->opcode[op];
        n->name = tt__op_table[n->op].name;
        n->out = tt__get_i32(r + 4);
        if (in_at > ld->L.n_pool || n_in > ld->L.n_pool - in_at)
            return tt__bad(ld, "node %D (%s): inputs %D..%D are outside the %D input slots", (int64_t)i, n->name,
                           (int64_t)in_at, (int64_t)in_at + (int64_t)n_in, (int64_t)ld->L.n_pool);
        n->in_at = (int)in_at;
        n->n_in = (int)n_in;
        if (!tt__load_value_id(ld, n->out, false, "the output of node", i)) return false;
        if (g->tape.values[n->out].kind != TT__V_NODE) return tt__bad(ld, "node %D (%s) writes value %d, an input or constant", (int64_t)i, n->name, n->out);
        for (k = 0; k < TT__TTG_ATTRS; k++) {
            int64_t a = tt__get_i64(r + 16 + 8 * k);
            if (k < TT__NATTR) n->a.i[k] = a;
            else if (a != 0) return tt__bad(ld, "node %D (%s) has attributes that need TT_MAX_DIMS %d", (int64_t)i, n->name, (k - 4) / 2 + 1);
        }
        for (k = 0; k < 3; k++) n->a.f[k] = tt__get_f32(r + 176 + 4 * k);
        if (tt__get_u32(r + 188) != 0) return tt__bad(ld, "node %D (%s): its reserved bytes are not zero", (int64_t)i, n->name);
        if (tt__is_fused(n) && (n->a.i[0] < 0 || n->a.i[0] >= (int64_t)ld->L.n_progs))
            return tt__bad(ld, "node %D: fused program %D does not exist", (int64_t)i, n->a.i[0]);
    }
    return true;
}

/* Every op result names the node that writes it (the passes of a trace file trust this), and
   nothing else names one. */
static bool tt__load_producers(tt__ttg_load *ld) {
    const tt_graph *g = ld->g;
    uint32_t i;
    for (i = 0; i < ld->L.n_values; i++) {
        const tt__value *v = &g->tape.values[i];
        bool ok = v->kind == TT__V_NODE ? v->node >= 0 && g->tape.nodes[v->node].out == (int)i : v->node == -1;
        if (!ok) return tt__bad(ld, "value %D: its producer node %d does not write it", (int64_t)i, v->node);
    }
    return true;
}

static bool tt__load_io(tt__ttg_load *ld) {
    tt_graph *g = ld->g;
    uint32_t i, j;
    for (i = 0; i < ld->L.n_inputs; i++) {
        int32_t v = tt__get_i32(ld->p + ld->L.inputs + 4 * (size_t)i);
        if (!tt__load_value_id(ld, v, false, "graph input", i)) return false;
        if (g->tape.values[v].kind != TT__V_INPUT) return tt__bad(ld, "graph input %D is value %d, not an input", (int64_t)i, (int)v);
        for (j = 0; j < i; j++) if (g->tape.inputs[j] == v) return tt__bad(ld, "graph inputs %D and %D are the same value", (int64_t)j, (int64_t)i);
        g->tape.inputs[i] = v;
    }
    for (i = 0; i < ld->L.n_values; i++)
        if (g->tape.values[i].kind == TT__V_INPUT) {
            for (j = 0; j < ld->L.n_inputs && g->tape.inputs[j] != (int)i; j++) {}
            if (j == ld->L.n_inputs) return tt__bad(ld, "value %D is an input that is not a graph input", (int64_t)i);
        }
    for (i = 0; i < ld->L.n_outputs; i++) {
        int32_t v = tt__get_i32(ld->p + ld->L.outputs + 4 * (size_t)i);
        if (!tt__load_value_id(ld, v, false, "graph output", i)) return false;
        if (g->tape.values[v].kind != TT__V_NODE && g->tape.values[v].kind != TT__V_INPUT)
            return tt__bad(ld, "graph output %D is value %d, a constant", (int64_t)i, (int)v);
        g->outputs[i] = v;
    }
    return true;
}

/* Warnings and the passes of the last compile (names from our pass table). */
static bool tt__load_notes(tt__ttg_load *ld) {
    tt_graph *g = ld->g;
    uint64_t at = ld->L.warnings, end = ld->L.warnings + ld->L.warnings_bytes;
    uint32_t i;
    int r;
    for (i = 0; i < ld->L.n_warnings; i++) {
        uint32_t len;
        if (end - at < 4) return tt__bad(ld, "the warnings section ends inside warning %D", (int64_t)i);
        len = tt__get_u32(ld->p + at);
        at += 4;
        if (len >= TT__WARN_SIZE || len > end - at) return tt__bad(ld, "warning %D has %D bytes (at most %d, inside its section)", (int64_t)i, (int64_t)len, TT__WARN_SIZE - 1);
        memcpy(g->tape.warnings[i], ld->p + at, len);
        g->tape.warnings[i][len] = '\0';
        at += len;
    }
    if (at != end) return tt__bad(ld, "the warnings section has %D bytes after its last warning", (int64_t)(end - at));
    for (i = 0; i < ld->L.n_passes; i++) {
        const unsigned char *rec = ld->p + ld->L.passes + (size_t)i * TT__TTG_PASS;
        for (r = 0; r < TT__N_PASS_ROWS && !(strlen(tt__pass_table[r].name) < 20 &&
                                              memcmp(rec, tt__pass_table[r].name, strlen(tt__pass_table[r].name) + 1) == 0); r++) {}
        if (r == TT__N_PASS_ROWS) return tt__bad(ld, "pass %D has a name this version does not know", (int64_t)i);
        g->pass_stats[i].name = tt__pass_table[r].name;
        g->pass_stats[i].nodes_removed = tt__get_i32(rec + 20);
    }
    g->n_pass_stats = (int)ld->L.n_passes;
    return true;
}

static bool tt__load_programs(tt__ttg_load *ld) {
    tt_graph *g = ld->g;
    const unsigned char *p = ld->p;
    uint64_t at = ld->L.progs, end = ld->L.progs + ld->L.progs_bytes;
    uint32_t i;
    int k;
    for (i = 0; i < ld->L.n_progs; i++) {
        struct tt__program *pr = &g->progs[i];
        uint32_t n_uops, n_regs, n_in, n_out, n_members;
        if (end - at < TT__TTG_PROG) return tt__bad(ld, "the programs section ends inside program %D", (int64_t)i);
        n_uops = tt__get_u32(p + at);      n_regs = tt__get_u32(p + at + 4);  n_in = tt__get_u32(p + at + 8);
        n_out = tt__get_u32(p + at + 12);  n_members = tt__get_u32(p + at + 16);
        if (n_uops > TT__FUSE_MAX_UOPS || n_regs > TT__FUSE_MAX_UOPS || n_in > TT__FUSE_MAX_IN || n_out < 1 ||
            n_out > TT__FUSE_MAX_MEMBERS || n_members > TT__FUSE_MAX_MEMBERS)
            return tt__bad(ld, "program %D: %D micro-ops, %D registers, %D inputs, %D outputs, %D members: over the limits",
                           (int64_t)i, (int64_t)n_uops, (int64_t)n_regs, (int64_t)n_in, (int64_t)n_out, (int64_t)n_members);
        memset(pr, 0, sizeof *pr);
        pr->n_uops = (int)n_uops; pr->n_regs = (int)n_regs; pr->n_in = (int)n_in; pr->n_out = (int)n_out;
        pr->n_members = (int)n_members;
        pr->head = tt__get_i32(p + at + 20);
        pr->head_input = tt__get_i32(p + at + 24);
        pr->head_out = tt__get_i32(p + at + 28);
        at += TT__TTG_PROG;
        if (end - at < (uint64_t)n_uops * TT__TTG_UOP + 4u * (uint64_t)(n_out + n_members))
            return tt__bad(ld, "the programs section ends inside program %D", (int64_t)i);
        for (k = 0; k < pr->n_uops; k++, at += TT__TTG_UOP) {
            const unsigned char *r = p + at;
            tt__uop *u = &pr->uops[k];
            int ops[2];
            int j;
            u->kind = r[0];
            u->swap = r[1];
            ops[0] = tt__get_i16(r + 2);
            ops[1] = tt__get_i16(r + 4);
            u->dst = tt__get_i16(r + 6); u->a = tt__get_i16(r + 8); u->b = tt__get_i16(r + 10); u->c = tt__get_i16(r + 12);
            u->p0 = tt__get_f32(r + 16);
            u->p1 = tt__get_f32(r + 20);
            if (u->kind >= TT__U_NONE || u->swap > 1 || tt__get_i16(r + 14) != 0)
                return tt__bad(ld, "program %D, micro-op %d: kind %d unknown (or swap, reserved bytes)", (int64_t)i, k, u->kind);
            for (j = 0; j < 2; j++) {                  /* elementwise ops go by the file's op table */
                bool named = j == 0 ? u->kind == TT__U_UNARY || u->kind == TT__U_BINARY || u->kind == TT__U_PAIR
                                    : u->kind == TT__U_PAIR;
                if (named && (ops[j] < 0 || (uint32_t)ops[j] >= ld->L.n_ops))
                    return tt__bad(ld, "program %D, micro-op %d: op %d is not in the file's op table", (int64_t)i, k, ops[j]);
                ops[j] = named ? ld->opcode[ops[j]] : ops[j];
            }
            u->op = (int16_t)ops[0];
            u->op2 = (int16_t)ops[1];
        }
        for (k = 0; k < pr->n_out; k++, at += 4) {
            pr->outs[k] = tt__get_i32(p + at);
            if (!tt__load_value_id(ld, pr->outs[k], false, "an output of program", i)) return false;
        }
        for (k = 0; k < pr->n_members; k++, at += 4) {
            pr->members[k] = tt__get_i32(p + at);
            if (pr->members[k] < (int64_t)ld->L.n_order || pr->members[k] >= (int64_t)ld->L.n_nodes)
                return tt__bad(ld, "program %D: member %d is node %d, expected %D..%D (after the run order)", (int64_t)i, k,
                               pr->members[k], (int64_t)ld->L.n_order, (int64_t)ld->L.n_nodes - 1);
        }
    }
    if (at != end) return tt__bad(ld, "the programs section has %D bytes after its last program", (int64_t)(end - at));
    return true;
}

/* How many inputs op takes: its names in the op table ("xs": a list of at least one). */
static bool tt__op_arity_ok(int op, int n_in) {
    const char *p = tt__op_table[op].inputs;
    int n = 1;
    if (strcmp(p, "xs") == 0) return n_in >= 1;
    for (; *p; p++) n += *p == ',';
    return n_in == n;
}

/* Value v may be read at run position pos: an input, a parameter or a constant, or the
   result of a node that ran before. */
static bool tt__load_defined(const tt__ttg_load *ld, int v, int pos) {
    return ld->g->tape.values[v].kind != TT__V_NODE || (ld->writer[v] >= 0 && ld->writer[v] < pos);
}

/* Runs op's own infer on the saved inputs (slots in_at.. of the pool): the result must have
   the saved dtype and shape of value out. Its header then stands for out (views: strides). */
static bool tt__load_infer(tt__ttg_load *ld, int node, const tt__node *n, int in_at, int out, int pos) {
    tt_graph *g = ld->g;
    const tt__op_info *info = &tt__op_table[n->op];
    tt_tensor **in = g->argv;
    tt_tensor got;
    tt__err saved = ld->ctx->err;
    tt__call c;
    bool ok;
    int k;
    if (!tt__op_arity_ok(n->op, n->n_in))
        return tt__bad(ld, "node %d (%s) has %d inputs, expected %s", node, n->name, n->n_in, info->inputs);
    for (k = 0; k < n->n_in; k++) {
        int v = g->tape.pool[in_at + k];
        if (v < 0 && !((info->optional >> k) & 1u)) return tt__bad(ld, "node %d (%s): input %d is missing", node, n->name, k);
        if (v >= 0 && !tt__load_defined(ld, v, pos))
            return tt__bad(ld, "node %d (%s): input %d (value %d) is not computed before it runs", node, n->name, k, v);
        in[k] = v >= 0 ? &g->rt[v] : NULL;
    }
    c = tt__call_init(n->name, n->op, in, n->n_in, &n->a);
    tt__header_init(&got, ld->ctx);
    tt__err_clear(&ld->ctx->err);
    ok = info->infer(ld->ctx, &c, &got);
    if (!ok) {
        char why[TT__MSG_SIZE];
        memcpy(why, ld->ctx->err.msg, sizeof why);
        ld->ctx->err = saved;
        return tt__bad(ld, "node %d (%s) does not fit its inputs: %s", node, n->name, why);
    }
    ld->ctx->err = saved;
    if (got.dtype != g->tape.values[out].meta.dtype || !tt_same_shape(&got, &g->tape.values[out].meta))
        return tt__bad(ld, "node %d (%s) makes %T%S, the file says %T%S", node, n->name, (int)got.dtype, &got,
                       (int)g->tape.values[out].meta.dtype, &g->tape.values[out].meta);
    got.ctx = NULL;
    g->rt[out] = got;
    return true;
}

/* Can a tensor of shape s be broadcast to shape o (sizes equal or 1, aligned right)? */
static bool tt__broadcasts_to(const tt_tensor *s, const tt_tensor *o) {
    int d, lead = o->ndim - s->ndim;
    if (lead < 0) return false;
    for (d = 0; d < s->ndim; d++) if (s->shape[d] != 1 && s->shape[d] != o->shape[lead + d]) return false;
    return true;
}

/* Register r of a program is an operand: written by an earlier micro-op. */
static bool tt__reg_ok(int r, int n_regs, const bool *written) { return r >= 0 && r < n_regs && written[r]; }

/* A fused program, micro-op by micro-op: every operand written before it is read, each
   register written once, ops of the kind their micro-op runs, stores last, each output
   stored once. */
static bool tt__load_check_uops(tt__ttg_load *ld, int node, const struct tt__program *pr) {
    bool written[TT__FUSE_MAX_UOPS], storing = false;
    int stored[TT__FUSE_MAX_MEMBERS], i, ok;
    memset(written, 0, sizeof written);
    memset(stored, 0, sizeof stored);
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *u = &pr->uops[i];
        switch (u->kind) {
        case TT__U_LOAD:   ok = u->a >= 0 && u->a < pr->n_in; break;
        case TT__U_UNARY:  ok = tt__op_table[u->op].kind == TT__K_UNARY && tt__reg_ok(u->a, pr->n_regs, written); break;
        case TT__U_BINARY: ok = tt__op_table[u->op].kind == TT__K_BINARY && tt__reg_ok(u->a, pr->n_regs, written) &&
                                tt__reg_ok(u->b, pr->n_regs, written); break;
        case TT__U_PAIR:   ok = tt__op_has(u->op, TT__F_PAIRABLE) && tt__op_has(u->op2, TT__F_PAIRABLE) &&
                                tt__op_table[u->op].kind == TT__K_BINARY && tt__op_table[u->op2].kind == TT__K_BINARY &&
                                tt__reg_ok(u->a, pr->n_regs, written) && tt__reg_ok(u->b, pr->n_regs, written) &&
                                tt__reg_ok(u->c, pr->n_regs, written); break;
        case TT__U_WHERE:  ok = tt__reg_ok(u->a, pr->n_regs, written) && tt__reg_ok(u->b, pr->n_regs, written) &&
                                tt__reg_ok(u->c, pr->n_regs, written); break;
        case TT__U_CAST:   ok = u->op >= 0 && u->op < TT_DTYPE_COUNT && tt__reg_ok(u->a, pr->n_regs, written); break;
        default:           ok = tt__reg_ok(u->a, pr->n_regs, written) && u->b >= 0 && u->b < pr->n_out && !stored[u->b]++; break;
        }
        if (u->kind != TT__U_STORE) {
            ok = ok && !storing && u->dst >= 0 && u->dst < pr->n_regs && !written[u->dst];
            if (ok) written[u->dst] = true;
        }
        storing = storing || u->kind == TT__U_STORE;
        if (!ok) return tt__bad(ld, "node %d (fused): micro-op %d reads, writes or runs what it may not", node, i);
    }
    for (i = 0; i < pr->n_out; i++) if (!stored[i]) return tt__bad(ld, "node %d (fused): output %d is never stored", node, i);
    return true;
}

/* A fused node at run position pos: its program, its inputs and outputs, its epilogue head. */
static bool tt__load_check_fused(tt__ttg_load *ld, int node, const tt__node *n, int pos) {
    tt_graph *g = ld->g;
    const struct tt__program *pr = &g->progs[n->a.i[0]];
    const tt__node *h = pr->head >= 0 && pr->head < (int)ld->L.n_nodes ? &g->tape.nodes[pr->head] : NULL;
    const tt_tensor *o0 = &g->tape.values[pr->outs[0]].meta;
    int k;
    if (pr->head < -1 || pr->head >= (int)ld->L.n_nodes)
        return tt__bad(ld, "node %d (fused): its epilogue head is node %d; the file has %D", node, pr->head, (int64_t)ld->L.n_nodes);
    if (!tt__load_check_uops(ld, node, pr)) return false;
    tt__program_aliases(&g->progs[n->a.i[0]]);        /* registers checked: now it may index by them */
    if (n->out != pr->outs[0] || n->n_in != pr->n_in + (h ? h->n_in : 0))
        return tt__bad(ld, "node %d (fused): its output or input count does not match its program", node);
    for (k = 0; k < pr->n_out; k++) {
        const tt__value *o = &g->tape.values[pr->outs[k]];
        if (o->kind != TT__V_NODE || ld->writer[pr->outs[k]] >= 0 || !tt_same_shape(&o->meta, o0) || !tt__dtype_fusable(o->meta.dtype))
            return tt__bad(ld, "node %d (fused): output %d (value %d) is written twice or differs in shape or dtype", node, k, pr->outs[k]);
    }
    if (h && (pr->head < (int)ld->L.n_order || !tt__op_has(h->op, TT__F_GEMM_HEAD) || h->n_in > 4 || pr->head_input < 0 ||
              pr->head_input >= pr->n_in || pr->head_out < 0 || pr->head_out >= pr->n_out ||
              g->tape.values[pr->outs[pr->head_out]].meta.dtype != TT_F32 || g->tape.pool[n->in_at + pr->head_input] != -1 ||
              !tt_same_shape(&g->tape.values[h->out].meta, o0)))
        return tt__bad(ld, "node %d (fused): its epilogue head (node %d) is not a matmul, linear or convolution feeding it", node, pr->head);
    if (h && !tt__load_infer(ld, pr->head, h, n->in_at + pr->n_in, h->out, pos)) return false;
    for (k = 0; k < pr->n_in; k++) {
        int v = g->tape.pool[n->in_at + k];
        if (h && k == pr->head_input) continue;
        if (v < 0 || !tt__load_defined(ld, v, pos) || !tt__broadcasts_to(&g->tape.values[v].meta, o0))
            return tt__bad(ld, "node %d (fused): input %d is missing, not computed before, or does not broadcast to %S", node, k, o0);
    }
    for (k = 0; k < pr->n_out; k++) {
        ld->writer[pr->outs[k]] = pos;
        g->rt[pr->outs[k]] = g->tape.values[pr->outs[k]].meta;
    }
    return true;
}

static bool tt__load_no_stray_nodes(tt__ttg_load *ld);

/* Every node that runs, in run order (the order of a compiled graph, every node of a trace):
   checked against its inputs, which must exist before it. */
static bool tt__load_check(tt__ttg_load *ld, bool compiled) {
    tt_graph *g = ld->g;
    int n_run = compiled ? (int)ld->L.n_order : (int)ld->L.n_nodes, p, v, fused = 0;
    g->max_in = 1;
    for (p = 0; p < (int)ld->L.n_nodes; p++) g->max_in = (int)tt__max64(g->max_in, g->tape.nodes[p].n_in);
    g->argv = (tt_tensor **)tt__galloc(g, sizeof(tt_tensor *) * (size_t)g->max_in);
    if (!g->argv) return tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn), false;
    for (v = 0; v < (int)ld->L.n_values; v++) {
        ld->writer[v] = -1;
        g->rt[v] = g->tape.values[v].meta;
    }
    for (p = 0; p < (int)ld->L.n_nodes; p++) {
        const tt__node *n = &g->tape.nodes[p];
        if (!tt__is_fused(n)) continue;
        if (!compiled || p >= n_run || n->a.i[0] != fused++)
            return tt__bad(ld, "node %d: a fused node outside the run order of a compiled graph, or out of turn", p);
    }
    if (fused != (int)ld->L.n_progs) return tt__bad(ld, "%d fused nodes for %D programs", fused, (int64_t)ld->L.n_progs);
    for (p = 0; p < n_run; p++) {
        const tt__node *n = &g->tape.nodes[p];
        if (tt__is_fused(n)) {
            if (!tt__load_check_fused(ld, p, n, p)) return false;
            continue;
        }
        if (ld->writer[n->out] >= 0) return tt__bad(ld, "node %d (%s) writes value %d, which node position %d wrote", p, n->name, n->out, ld->writer[n->out]);
        if (!tt__load_infer(ld, p, n, n->in_at, n->out, p)) return false;
        ld->writer[n->out] = p;
    }
    for (p = 0; p < g->n_outputs; p++)
        if (!tt__load_defined(ld, g->outputs[p], n_run)) return tt__bad(ld, "graph output %d is computed by no node", p);
    return !compiled || tt__load_no_stray_nodes(ld);
}

/* A compiled file's nodes after the run order are each an epilogue head or a member of a
   fused node (what a save keeps), so the graph saves again into the same nodes. Run after the
   fused nodes' checks (which check the heads' range). */
static bool tt__load_no_stray_nodes(tt__ttg_load *ld) {
    tt_graph *g = ld->g;
    bool *kept = (bool *)tt__galloc(g, (size_t)ld->L.n_nodes + 1);
    int i, k, stray = -1;
    if (!kept) return tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn), false;
    for (i = 0; i < g->n_progs; i++) {
        const struct tt__program *pr = &g->progs[i];
        if (pr->head >= 0) kept[pr->head] = true;
        for (k = 0; k < pr->n_members; k++) kept[pr->members[k]] = true;
    }
    for (i = (int)ld->L.n_order; i < (int)ld->L.n_nodes && stray < 0; i++)
        if (!kept[i]) stray = i;
    tt__heap_free(&g->tape.alloc, kept);
    return stray < 0 || tt__bad(ld, "node %d is neither run nor part of a fused node", stray);
}

/* The graph and its arrays, sized by the file's counts (each bounded by the file's size). */
static tt_graph *tt__load_alloc(tt__ttg_load *ld, const tt_allocator *al) {
    const tt__ttg_layout *L = &ld->L;
    tt_graph *g = (tt_graph *)tt__heap_alloc(al, sizeof *g);
    if (!g) return (tt_graph *)tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn);
    memset(g, 0, sizeof *g);
    g->tape.alloc = *al;
    g->tape.n_threads = ld->ctx->n_threads;
    g->tape.kern = ld->ctx->kern;
    g->tape.parallel_for = ld->ctx->parallel_for;
    g->tape.parallel_user = ld->ctx->parallel_user;
    g->home = ld->ctx->user_memory ? ld->ctx : NULL;
    ld->g = g;
    g->tape.values = (tt__value *)tt__galloc(g, sizeof(tt__value) * ((size_t)L->n_values + 1));
    g->tape.nodes = (tt__node *)tt__galloc(g, sizeof(tt__node) * ((size_t)L->n_nodes + 1));
    g->tape.pool = (int *)tt__galloc(g, sizeof(int) * ((size_t)L->n_pool + 1));
    g->tape.inputs = (int *)tt__galloc(g, sizeof(int) * ((size_t)L->n_inputs + 1));
    g->tape.warnings = (char (*)[TT__WARN_SIZE])tt__galloc(g, (size_t)TT__WARN_SIZE * ((size_t)L->n_warnings + 1));
    g->progs = (struct tt__program *)tt__galloc(g, sizeof(struct tt__program) * ((size_t)L->n_progs + 1));
    g->outputs = (int *)tt__galloc(g, sizeof(int) * ((size_t)L->n_outputs + 1));
    g->rt = (tt_tensor *)tt__galloc(g, sizeof(tt_tensor) * ((size_t)L->n_values + 1));
    ld->writer = (int *)tt__galloc(g, sizeof(int) * ((size_t)L->n_values + 1));
    if (!g->tape.values || !g->tape.nodes || !g->tape.pool || !g->tape.inputs || !g->tape.warnings || !g->progs ||
        !g->outputs || !g->rt || !ld->writer) {          /* counts still 0: tt_graph_destroy reads no array */
        tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn);
        return NULL;
    }
    g->tape.n_values = g->tape.cap_values = g->n_traced_values = (int)L->n_values;
    g->tape.n_nodes = g->tape.cap_nodes = g->n_traced_nodes = (int)L->n_nodes;
    g->tape.n_pool = g->tape.cap_pool = g->n_traced_pool = (int)L->n_pool;
    g->tape.n_inputs = g->tape.cap_inputs = (int)L->n_inputs;
    g->tape.n_warnings = g->tape.cap_warnings = (int)L->n_warnings;
    g->n_progs = g->cap_progs = (int)L->n_progs;
    g->n_outputs = (int)L->n_outputs;
    return g;
}

/* Convolution algorithms other than direct sums only where a TT_MODE_MAX_AUTOTUNE compile
   chose them (its infer checked that each fits its convolution), and no timing left to do. */
static bool tt__load_conv_algos(tt__ttg_load *ld, bool autotuned) {
    int i;
    for (i = 0; i < ld->g->tape.n_nodes; i++) {
        const tt__node *n = &ld->g->tape.nodes[i];
        int64_t algo = n->op == TT__OP_CONV2D ? n->a.i[TT__CONV_ALGO] : 0;
        if (algo != 0 && (!autotuned || algo == TT__CONV_MEASURE))
            return tt__bad(ld, "node %d (conv2d): algorithm %D in a graph not compiled in TT_MODE_MAX_AUTOTUNE, or not "
                           "chosen", i, algo);
    }
    return true;
}

/* A compiled graph: its order as saved, no replacements, then the memory plan and the
   backend's prepare, as tt_graph_compile ends. Else the trace, compiled when it first runs. */
static bool tt__load_finish(tt__ttg_load *ld, uint32_t mode, uint32_t passes, bool compiled) {
    tt_graph *g = ld->g;
    int i;
    if (!tt__load_conv_algos(ld, compiled && mode == TT_MODE_MAX_AUTOTUNE)) return false;
    if (!compiled) {
        g->traced = (tt__node *)tt__galloc(g, sizeof(tt__node) * ((size_t)g->tape.n_nodes + 1));
        if (!g->traced) return tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn), false;
        memcpy(g->traced, g->tape.nodes, sizeof(tt__node) * (size_t)g->tape.n_nodes);
        return true;
    }
    if (!tt__compile_args_valid((tt_mode)mode, passes)) return tt__bad(ld, "compile mode %D or passes %D unknown", (int64_t)mode, (int64_t)passes);
    g->mode = (tt_mode)mode;
    g->passes = passes;
    g->loaded_traced = (int)ld->L.n_traced;
    g->n_order = (int)ld->L.n_order;
    g->remap = (int *)tt__galloc(g, sizeof(int) * ((size_t)g->tape.n_values + 1));
    g->order = (int *)tt__galloc(g, sizeof(int) * ((size_t)g->n_order + 1));
    g->bound_src = (tt_tensor **)tt__galloc(g, sizeof(tt_tensor *) * ((size_t)g->tape.n_inputs + 1));
    if (!g->remap || !g->order || !g->bound_src) return tt__fail(ld->ctx, TT_ERR_OOM, "%s: out of memory", ld->fn), false;
    for (i = 0; i < g->tape.n_values; i++) g->remap[i] = i;
    for (i = 0; i < g->n_order; i++) g->order[i] = i;
    g->backend = tt__default_backend();
    g->loaded_compiled = true;                         /* before prepare: it keeps the file's choices */
    if (tt__graph_plan(g) != TT_OK || tt__check_backend(g) != TT_OK || g->backend->prepare(g) != TT_OK)
        return tt__fail(ld->ctx, g->err.status, "%s: %s", ld->fn, g->err.msg), false;
    g->compiled = true;
    return true;
}

/* Flags: 1 compiled, 0 a trace (which has no run order, passes or compile mode). */
static bool tt__load_flags(tt__ttg_load *ld, uint32_t flags) {
    if (flags > 1) return tt__bad(ld, "flags %D unknown", (int64_t)flags);
    if (flags == 0 && (ld->L.n_order != 0 || ld->L.n_passes != 0 || tt__get_u32(ld->p + 28) != 0 || tt__get_u32(ld->p + 32) != 0))
        return tt__bad(ld, "a file that is not compiled has a run order, passes or a compile mode");
    return true;
}

/* Loads the bytes p[0..size); image (owned bytes the graph frees, or NULL) holds them when the
   file loader read them: constants then stay in it. */
static tt_graph *tt__graph_load(tt_ctx *ctx, const char *fn, const char *src, const unsigned char *p, size_t size,
                                void *image) {
    tt_allocator al = tt__load_allocator(ctx);
    tt__ttg_load ld;
    uint32_t flags;
    bool ok;
    memset(&ld, 0, sizeof ld);
    ld.ctx = ctx;
    ld.fn = fn;
    ld.src = src;
    ld.p = p;
    ld.size = size;
    if (!tt__load_header(&ld) || !tt__load_ops(&ld) || !tt__load_alloc(&ld, &al)) {
        tt__heap_free(&al, ld.writer);
        tt_graph_destroy(ld.g);
        return NULL;
    }
    flags = tt__get_u32(p + 24);
    ok = tt__load_flags(&ld, flags) && tt__load_values(&ld, true) && tt__load_nodes(&ld) && tt__load_producers(&ld) &&
         tt__load_programs(&ld) && tt__load_io(&ld) &&
         tt__load_notes(&ld) && tt__load_check(&ld, flags == 1) &&
         tt__load_finish(&ld, tt__get_u32(p + 28), tt__get_u32(p + 32), flags == 1);
    tt__heap_free(&al, ld.writer);
    if (!ok) {
        tt_graph_destroy(ld.g);
        return NULL;
    }
    ld.g->image = image;
    return ld.g;
}

TT_API tt_graph *tt_graph_load_memory(tt_ctx *ctx, const void *buf, size_t size) {
    if (!ctx) return NULL;
    if (!buf) return (tt_graph *)tt__fail(ctx, TT_ERR_ARG, "tt_graph_load_memory: buf is NULL");
    return tt__graph_load(ctx, "tt_graph_load_memory", "buf", (const unsigned char *)buf, size, NULL);
}

#ifndef TT_NO_STDIO
/* The bytes of the file at path, from al (NULL: ctx's arena); NULL and an error naming fn. */
static unsigned char *tt__read_file(tt_ctx *ctx, const char *fn, const char *path, const tt_allocator *al, size_t *size) {
    unsigned char *buf;
    long end;
    FILE *f;
    if (!path) return (unsigned char *)tt__fail(ctx, TT_ERR_ARG, "%s: path is NULL", fn);
    f = fopen(path, "rb");
    if (!f) return (unsigned char *)tt__fail(ctx, TT_ERR_IO, "%s: cannot open path '%s'", fn, path);
    end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return (unsigned char *)tt__fail(ctx, TT_ERR_IO, "%s: cannot read '%s'", fn, path);
    }
    buf = al ? (unsigned char *)tt__heap_alloc(al, end > 0 ? (size_t)end : 1) : (unsigned char *)tt__alloc(ctx, fn, (size_t)end);
    if (!buf && al) tt__fail(ctx, TT_ERR_OOM, "%s: out of memory for the %D bytes of '%s'", fn, (int64_t)end, path);
    if (buf && fread(buf, 1, (size_t)end, f) != (size_t)end) {
        if (al) tt__heap_free(al, buf);
        buf = NULL;
        tt__fail(ctx, TT_ERR_IO, "%s: cannot read '%s'", fn, path);
    }
    fclose(f);
    *size = (size_t)end;
    return buf;
}

TT_API tt_graph *tt_graph_load(tt_ctx *ctx, const char *path) {
    tt_allocator al;
    unsigned char *image;
    size_t size = 0;
    tt_graph *g;
    if (!ctx) return NULL;
    al = tt__load_allocator(ctx);
    image = tt__read_file(ctx, "tt_graph_load", path, &al, &size);
    if (!image) return NULL;
    g = tt__graph_load(ctx, "tt_graph_load", path, image, size, image);
    if (!g) tt__heap_free(&al, image);
    return g;
}
#endif

/* ==========================================================================
 * >>safetensors   safetensors weights: a strict JSON header parser, checked offsets
 *
 * A file is 8 bytes of header length N (little-endian), N bytes of JSON, then the data.
 * Opening reads the JSON twice. The first pass (tt__json_check) checks that it is strict
 * JSON, nested at most TT__JSON_MAX_DEPTH deep, and counts members so the tables can be
 * sized. The second (tt__st_read_header) walks the same text as the format's schema and
 * fills the entry table; strings are decoded into one pool (a decoded string is never
 * longer than its JSON text). Every entry is checked as it is read (dtype, size, range).
 * Then names, metadata keys and byte ranges are sorted (a merge sort, O(n log n)) to find
 * duplicates, overlaps and holes. Nothing recurses past the depth limit, and every loop
 * moves forward through the header. A refused file gives its arena memory back.
 * ========================================================================== */
#define TT__ST_MAX_HEADER  100000000   /* header bytes at most: the format's own limit */
#define TT__JSON_MAX_DEPTH 8           /* objects and arrays nest at most this deep */

/* A dtype of the format: its name, bits per element, and what tinytrace makes of it. */
typedef struct tt__st_dtype_info {
    const char *name;
    int         bits;
    tt_dtype    dtype;                 /* TT_DTYPE_COUNT: listed, not read */
} tt__st_dtype_info;

static const tt__st_dtype_info tt__st_dtypes[] = {
    {"F32", 32, TT_F32},  {"F16", 16, TT_F16},  {"BF16", 16, TT_BF16}, {"I32", 32, TT_I32},
    {"I64", 64, TT_I32},  {"F64", 64, TT_DTYPE_COUNT}, {"I16", 16, TT_DTYPE_COUNT},
    {"I8", 8, TT_DTYPE_COUNT}, {"U8", 8, TT_DTYPE_COUNT}, {"U16", 16, TT_DTYPE_COUNT},
    {"U32", 32, TT_DTYPE_COUNT}, {"U64", 64, TT_DTYPE_COUNT}, {"BOOL", 8, TT_DTYPE_COUNT},
    {"F8_E4M3", 8, TT_DTYPE_COUNT}, {"F8_E5M2", 8, TT_DTYPE_COUNT}, {"F8_E8M0", 8, TT_DTYPE_COUNT},
    {"F6_E2M3", 6, TT_DTYPE_COUNT}, {"F6_E3M2", 6, TT_DTYPE_COUNT}, {"F4", 4, TT_DTYPE_COUNT},
    {"C64", 64, TT_DTYPE_COUNT},
};

struct tt_safetensors {
    tt_ctx               *ctx;
    const unsigned char  *data;          /* the data buffer, right after the header */
    size_t                data_size;
    int                   n;             /* tensors */
    tt_safetensors_entry *entries;       /* in header order */
    int                  *by_name;       /* entry indices sorted by name */
    int                   n_meta;
    const char          **meta_keys;     /* "__metadata__", in header order */
    const char          **meta_values;
    int                  *meta_by_key;   /* their indices sorted by key */
};

/* The header text and a read position in it. */
typedef struct tt__json {
    tt_ctx              *ctx;
    const char          *fn;             /* the public function, for messages */
    const unsigned char *s;
    size_t               n, i;           /* its length; the read position */
    int                  top_members;    /* first pass: members of the top object */
    int                  max_members;    /* first pass: most members of an object inside it */
} tt__json;

/* Where the second pass decodes strings: pool bytes, used of size. */
typedef struct tt__st_pool { char *p; size_t used, size; } tt__st_pool;

/* ---- the first pass: strict JSON ---------------------------------------------- */

/* Records "fn: header byte i: <what>" as a TT_ERR_FORMAT error; returns false. */
static bool tt__json_fail(tt__json *j, const char *fmt, ...) {
    char what[TT__MSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    tt__vformat(what, sizeof what, fmt, ap);
    va_end(ap);
    tt__fail(j->ctx, TT_ERR_FORMAT, "%s: header byte %D: %s", j->fn, (int64_t)j->i, what);
    return false;
}

static int tt__json_peek(const tt__json *j) { return j->i < j->n ? j->s[j->i] : -1; }

/* The byte at the read position, for messages: "'x'", "byte 255" or "the end of the header". */
static const char *tt__json_found(const tt__json *j, char *buf, size_t size) {
    int c = tt__json_peek(j);
    tt__buf b;
    tt__buf_init(&b, buf, size);
    if (c < 0) {
        tt__put(&b, "the end of the header");
    } else if (c > 0x20 && c < 0x7F) {
        tt__putc(&b, '\'');
        tt__putc(&b, (char)c);
        tt__putc(&b, '\'');
    } else {
        tt__put(&b, "byte ");
        tt__put_i64(&b, c);
    }
    return buf;
}

static void tt__json_ws(tt__json *j) {
    while (j->i < j->n) {
        unsigned char c = j->s[j->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        j->i++;
    }
}

/* Skips white space, then the byte c; an error naming what came instead. */
static bool tt__json_expect(tt__json *j, int c, const char *where) {
    char want[2], found[32];
    tt__json_ws(j);
    if (tt__json_peek(j) == c) {
        j->i++;
        return true;
    }
    want[0] = (char)c;
    want[1] = '\0';
    return tt__json_fail(j, "expected '%s' %s, found %s", want, where, tt__json_found(j, found, sizeof found));
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0: overlong forms,
   surrogates (U+D800..DFFF), code points past U+10FFFF and cut sequences are invalid. */
static size_t tt__json_utf8_len(const unsigned char *s, size_t n) {
    unsigned lo = 0x80, hi = 0xBF;
    size_t len, k;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) len = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) len = 4;
    else return 0;                               /* a continuation byte, C0/C1 (overlong), F5..FF */
    if (s[0] == 0xE0) lo = 0xA0;                 /* overlong 3-byte forms */
    if (s[0] == 0xED) hi = 0x9F;                 /* surrogates */
    if (s[0] == 0xF0) lo = 0x90;                 /* overlong 4-byte forms */
    if (s[0] == 0xF4) hi = 0x8F;                 /* past U+10FFFF */
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return len;
}

/* Writes code point cp as UTF-8 to out (when not NULL); returns its length. */
static size_t tt__json_put_utf8(char *out, uint32_t cp) {
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (out) memcpy(out, b, n);
    return n;
}

/* The 4 hex digits at s[at..] as a number, or -1 when they are not 4 hex digits. */
static long tt__json_hex4(const tt__json *j, size_t at) {
    long v = 0;
    int k;
    if (at > j->n || j->n - at < 4) return -1;
    for (k = 0; k < 4; k++) {
        int c = j->s[at + (size_t)k], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A \u escape at the read position (a surrogate pair takes two); its code point to *cp. */
static bool tt__json_unicode(tt__json *j, uint32_t *cp) {
    long hi = tt__json_hex4(j, j->i + 2), lo;
    if (hi < 0) return tt__json_fail(j, "\\u must be followed by 4 hex digits");
    if (hi >= 0xDC00 && hi <= 0xDFFF) return tt__json_fail(j, "\\u escape of a lone low surrogate");
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = (uint32_t)hi;
        j->i += 6;
        return true;
    }
    lo = j->n - j->i >= 12 && j->s[j->i + 6] == '\\' && j->s[j->i + 7] == 'u' ? tt__json_hex4(j, j->i + 8) : -1;
    if (lo < 0xDC00 || lo > 0xDFFF) return tt__json_fail(j, "\\u escape of a high surrogate without its low half");
    *cp = 0x10000u + ((uint32_t)(hi - 0xD800) << 10) + (uint32_t)(lo - 0xDC00);
    j->i += 12;
    return true;
}

/* The escape at the read position (its backslash); its code point to *cp. */
static bool tt__json_escape(tt__json *j, uint32_t *cp) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *hit;
    int c = j->n - j->i >= 2 ? j->s[j->i + 1] : -1;
    if (c == 'u') return tt__json_unicode(j, cp);
    hit = c > 0 ? strchr(from, c) : NULL;
    if (!hit) return tt__json_fail(j, "invalid escape in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
    *cp = (unsigned char)to[hit - from];
    j->i += 2;
    return true;
}

/* Reads the string at the read position (its opening quote). With out (cap bytes), writes
   its decoded bytes there, NUL-terminated, and their count to *len. Refuses control
   characters, bad escapes and invalid UTF-8. */
static bool tt__json_string(tt__json *j, char *out, size_t cap, size_t *len) {
    size_t k = 0;
    j->i++;
    for (;;) {
        int c = tt__json_peek(j);
        size_t step;
        uint32_t cp = 0;
        if (c < 0) return tt__json_fail(j, "unterminated string");
        if (c == '"') break;
        if (c < 0x20) return tt__json_fail(j, "control character %d in a string (JSON needs it escaped)", c);
        if (c == '\\') {
            if (!tt__json_escape(j, &cp)) return false;
            if (out && cap - k < 5) return tt__json_fail(j, "string pool full");   /* cannot happen: see the banner */
            k += tt__json_put_utf8(out ? out + k : NULL, cp);
            continue;
        }
        step = tt__json_utf8_len(j->s + j->i, j->n - j->i);
        if (step == 0) return tt__json_fail(j, "invalid UTF-8 in a string (a sequence starting with byte %d)", c);
        if (out && cap - k < step + 1) return tt__json_fail(j, "string pool full");
        if (out) memcpy(out + k, j->s + j->i, step);
        k += step;
        j->i += step;
    }
    j->i++;
    if (out) out[k] = '\0';
    if (len) *len = k;
    return true;
}

/* Skips digits; false when there was none. */
static bool tt__json_digits(tt__json *j) {
    size_t start = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    return j->i > start;
}

/* A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool tt__json_number(tt__json *j) {
    int c;
    if (tt__json_peek(j) == '-') j->i++;
    if (tt__json_peek(j) == '0') {
        j->i++;
        c = tt__json_peek(j);
        if (c >= '0' && c <= '9') return tt__json_fail(j, "number with a leading zero");
    } else if (!tt__json_digits(j)) {
        return tt__json_fail(j, "expected a digit");
    }
    if (tt__json_peek(j) == '.') {
        j->i++;
        if (!tt__json_digits(j)) return tt__json_fail(j, "expected a digit after '.'");
    }
    c = tt__json_peek(j);
    if (c == 'e' || c == 'E') {
        j->i++;
        c = tt__json_peek(j);
        if (c == '+' || c == '-') j->i++;
        if (!tt__json_digits(j)) return tt__json_fail(j, "expected a digit in the exponent");
    }
    return true;
}

static bool tt__json_literal(tt__json *j, const char *word) {
    size_t k = strlen(word);
    char found[32];
    if (j->n - j->i < k || memcmp(j->s + j->i, word, k) != 0)
        return tt__json_fail(j, "expected a value, found %s", tt__json_found(j, found, sizeof found));
    j->i += k;
    return true;
}

static bool tt__json_container(tt__json *j, int depth);

/* Any JSON value at the read position, inside depth containers. */
static bool tt__json_value(tt__json *j, int depth) {
    char found[32];
    int c;
    tt__json_ws(j);
    c = tt__json_peek(j);
    if (c == '{' || c == '[') return tt__json_container(j, depth + 1);
    if (c == '"') return tt__json_string(j, NULL, 0, NULL);
    if (c == '-' || (c >= '0' && c <= '9')) return tt__json_number(j);
    if (c == 't') return tt__json_literal(j, "true");
    if (c == 'f') return tt__json_literal(j, "false");
    if (c == 'n') return tt__json_literal(j, "null");
    return tt__json_fail(j, "expected a value, found %s", tt__json_found(j, found, sizeof found));
}

/* The key and colon of an object member. */
static bool tt__json_key(tt__json *j) {
    char found[32];
    tt__json_ws(j);
    if (tt__json_peek(j) != '"')
        return tt__json_fail(j, "expected a string key, found %s", tt__json_found(j, found, sizeof found));
    return tt__json_string(j, NULL, 0, NULL) && tt__json_expect(j, ':', "after a key");
}

/* The object or array at the read position, the depth-th container from the top. */
static bool tt__json_container(tt__json *j, int depth) {
    int close = j->s[j->i] == '{' ? '}' : ']', members = 0;
    char found[32], want[2];
    if (depth > TT__JSON_MAX_DEPTH)
        return tt__json_fail(j, "objects and arrays nested deeper than %d levels", TT__JSON_MAX_DEPTH);
    want[0] = (char)close;
    want[1] = '\0';
    j->i++;
    tt__json_ws(j);
    if (tt__json_peek(j) != close) {
        for (;;) {
            if (close == '}' && !tt__json_key(j)) return false;
            if (!tt__json_value(j, depth)) return false;
            members++;
            tt__json_ws(j);
            if (tt__json_peek(j) == close) break;
            if (tt__json_peek(j) != ',')
                return tt__json_fail(j, "expected ',' or '%s', found %s", want, tt__json_found(j, found, sizeof found));
            j->i++;
            tt__json_ws(j);
            if (tt__json_peek(j) == close) return tt__json_fail(j, "trailing comma before '%s'", want);
        }
    }
    j->i++;
    if (depth == 1) j->top_members = members;
    if (depth == 2 && close == '}' && members > j->max_members) j->max_members = members;
    return true;
}

/* The first pass: one JSON object, padded at the end with spaces only. */
static bool tt__json_check(tt__json *j) {
    char found[32];
    j->i = 0;
    if (tt__json_peek(j) != '{')
        return tt__json_fail(j, "the header must start with '{', found %s", tt__json_found(j, found, sizeof found));
    if (!tt__json_container(j, 1)) return false;
    while (j->i < j->n && j->s[j->i] == ' ') j->i++;
    if (j->i < j->n)
        return tt__json_fail(j, "unexpected %s after the header's object (only spaces may pad it)",
                             tt__json_found(j, found, sizeof found));
    return true;
}

/* ---- the second pass: the format's schema ------------------------------------- */

/* The fields of one tensor entry as read. */
typedef struct tt__st_fields {
    const tt__st_dtype_info *dt;
    int      ndim;
    int64_t  shape[TT_MAX_DIMS];
    int64_t  offsets[2];
    unsigned seen;                   /* TT__ST_HAS_* bits */
} tt__st_fields;

#define TT__ST_HAS_DTYPE   1u
#define TT__ST_HAS_SHAPE   2u
#define TT__ST_HAS_OFFSETS 4u

/* Decodes the string at the read position into the pool; NULL (and an error) when there
   is none or it holds a NUL, which a C string cannot keep. what names it in messages. */
static char *tt__st_string(tt__json *j, tt__st_pool *pool, const char *what) {
    char *out = pool->p + pool->used, found[32];
    size_t len = 0, at;
    tt__json_ws(j);
    at = j->i;
    if (tt__json_peek(j) != '"') {
        tt__json_fail(j, "%s must be a string, found %s", what, tt__json_found(j, found, sizeof found));
        return NULL;
    }
    if (!tt__json_string(j, out, pool->size - pool->used, &len)) return NULL;
    if (strlen(out) != len) {
        j->i = at;
        tt__json_fail(j, "%s contains \\u0000", what);
        return NULL;
    }
    pool->used += len + 1;
    return out;
}

/* A whole number >= 0 at the read position (no sign, fraction or exponent; at most
   INT64_MAX); what names the field of tensor name in messages. */
static bool tt__st_uint(tt__json *j, const char *name, const char *what, int64_t *v) {
    char found[32];
    int64_t x = 0;
    int c;
    tt__json_ws(j);
    c = tt__json_peek(j);
    if (c == '-') return tt__json_fail(j, "tensor '%s': %s holds a negative number", name, what);
    if (c < '0' || c > '9')
        return tt__json_fail(j, "tensor '%s': %s must hold whole numbers, found %s", name, what,
                             tt__json_found(j, found, sizeof found));
    for (; c >= '0' && c <= '9'; c = tt__json_peek(j)) {
        if (x > (INT64_MAX - (c - '0')) / 10)
            return tt__json_fail(j, "tensor '%s': %s holds a number past 2^63 - 1", name, what);
        x = x * 10 + (c - '0');
        j->i++;
    }
    if (c == '.' || c == 'e' || c == 'E')
        return tt__json_fail(j, "tensor '%s': %s holds a number that is not whole (a fraction or exponent)", name, what);
    *v = x;
    return true;
}

/* An array of at most cap whole numbers into v; *count is cap + 1 when it has more (the
   rest is not read: the caller refuses it). */
static bool tt__st_uints(tt__json *j, const char *name, const char *what, int64_t *v, int cap, int *count) {
    char found[32];
    *count = 0;
    tt__json_ws(j);
    if (tt__json_peek(j) != '[')
        return tt__json_fail(j, "tensor '%s': %s must be an array, found %s", name, what,
                             tt__json_found(j, found, sizeof found));
    j->i++;
    tt__json_ws(j);
    if (tt__json_peek(j) == ']') {
        j->i++;
        return true;
    }
    for (;;) {
        if (*count == cap) {
            *count = cap + 1;
            return true;
        }
        if (!tt__st_uint(j, name, what, &v[*count])) return false;
        (*count)++;
        tt__json_ws(j);
        if (tt__json_peek(j) == ']') break;
        if (!tt__json_expect(j, ',', "between numbers")) return false;
    }
    j->i++;
    return true;
}

static const tt__st_dtype_info *tt__st_dtype_of(const char *name) {
    size_t k;
    for (k = 0; k < sizeof tt__st_dtypes / sizeof tt__st_dtypes[0]; k++)
        if (strcmp(tt__st_dtypes[k].name, name) == 0) return &tt__st_dtypes[k];
    return NULL;
}

static bool tt__st_read_dtype(tt__json *j, tt__st_pool *pool, const char *name, tt__st_fields *f) {
    const char *s = tt__st_string(j, pool, "dtype");
    if (!s) return false;
    f->dt = tt__st_dtype_of(s);
    if (!f->dt) return tt__json_fail(j, "tensor '%s': unknown dtype '%s'", name, s);
    return true;
}

static bool tt__st_read_shape(tt__json *j, const char *name, tt__st_fields *f) {
    if (!tt__st_uints(j, name, "shape", f->shape, TT_MAX_DIMS, &f->ndim)) return false;
    if (f->ndim > TT_MAX_DIMS) {
        tt__fail(j->ctx, TT_ERR_UNSUPPORTED, "%s: tensor '%s' has more than %d dims; tinytrace tensors have at "
                 "most TT_MAX_DIMS", j->fn, name, TT_MAX_DIMS);
        return false;
    }
    return true;
}

static bool tt__st_read_offsets(tt__json *j, const char *name, tt__st_fields *f) {
    int count;
    if (!tt__st_uints(j, name, "data_offsets", f->offsets, 2, &count)) return false;
    if (count != 2) return tt__json_fail(j, "tensor '%s': data_offsets must hold 2 numbers [begin, end]", name);
    return true;
}

/* The TT__ST_HAS_* bit of an entry's key; 0 for a key the format does not have. */
static unsigned tt__st_field_bit(const char *key) {
    if (strcmp(key, "dtype") == 0) return TT__ST_HAS_DTYPE;
    if (strcmp(key, "shape") == 0) return TT__ST_HAS_SHAPE;
    if (strcmp(key, "data_offsets") == 0) return TT__ST_HAS_OFFSETS;
    return 0u;
}

/* One member of a tensor entry: its key (one of three, each once) and value. */
static bool tt__st_read_field(tt__json *j, tt__st_pool *pool, const char *name, tt__st_fields *f) {
    const char *key = tt__st_string(j, pool, "a key");
    unsigned bit;
    if (!key || !tt__json_expect(j, ':', "after a key")) return false;
    bit = tt__st_field_bit(key);
    if (!bit)
        return tt__json_fail(j, "tensor '%s': unknown key '%s' (an entry has dtype, shape and data_offsets)", name, key);
    if (f->seen & bit) return tt__json_fail(j, "tensor '%s': key '%s' appears twice", name, key);
    f->seen |= bit;
    if (bit == TT__ST_HAS_DTYPE) return tt__st_read_dtype(j, pool, name, f);
    if (bit == TT__ST_HAS_SHAPE) return tt__st_read_shape(j, name, f);
    return tt__st_read_offsets(j, name, f);
}

/* "[2,3]" of a shape, for messages. */
static const char *tt__st_dims(char *buf, size_t size, int ndim, const int64_t *shape) {
    tt__buf b;
    tt__buf_init(&b, buf, size);
    tt__put_dims(&b, ndim, shape);
    return buf;
}

/* Checks the entry's size against its byte range inside the data, and fills e. */
static bool tt__st_check_entry(tt__json *j, const tt__st_fields *f, size_t data_size, tt_safetensors_entry *e) {
    char dims[TT__MSG_SIZE];
    int64_t numel = 1, nonzero = 1, bits, begin = f->offsets[0], end = f->offsets[1];
    int d;
    for (d = 0; d < f->ndim; d++) {                 /* as tt__check_size: views need the product without 0s too */
        numel = tt__mul_checked(numel, f->shape[d]);
        nonzero = f->shape[d] == 0 ? nonzero : tt__mul_checked(nonzero, f->shape[d]);
        if (numel < 0 || numel > TT__MAX_NUMEL || nonzero < 0 || nonzero > TT__MAX_NUMEL)
            return tt__json_fail(j, "tensor '%s': shape %s has more than 2^59 elements", e->name,
                                 tt__st_dims(dims, sizeof dims, f->ndim, f->shape));
    }
    bits = tt__mul_checked(numel, f->dt->bits);
    if (bits < 0 || bits % 8 != 0)
        return tt__json_fail(j, "tensor '%s': %D elements of %s are not a whole number of bytes", e->name, numel,
                             f->dt->name);
    if (begin > end)
        return tt__json_fail(j, "tensor '%s': data_offsets [%D, %D] begin after they end", e->name, begin, end);
    if ((uint64_t)end > (uint64_t)data_size)
        return tt__json_fail(j, "tensor '%s': data_offsets [%D, %D] run past the end of the data (%D bytes)", e->name,
                             begin, end, (int64_t)data_size);
    if (end - begin != bits / 8)
        return tt__json_fail(j, "tensor '%s': data_offsets [%D, %D] hold %D bytes, its %s shape %s needs %D", e->name,
                             begin, end, end - begin, f->dt->name, tt__st_dims(dims, sizeof dims, f->ndim, f->shape),
                             bits / 8);
    e->file_dtype = f->dt->name;
    e->dtype = f->dt->dtype;
    e->ndim = f->ndim;
    for (d = 0; d < TT_MAX_DIMS; d++) e->shape[d] = d < f->ndim ? f->shape[d] : 1;
    e->offset = (size_t)begin;
    e->nbytes = (size_t)(end - begin);
    return true;
}

/* The value of a tensor entry: an object of dtype, shape and data_offsets. */
static bool tt__st_read_entry(tt__json *j, tt__st_pool *pool, size_t data_size, tt_safetensors_entry *e) {
    tt__st_fields f;
    char found[32];
    memset(&f, 0, sizeof f);
    tt__json_ws(j);
    if (tt__json_peek(j) != '{')
        return tt__json_fail(j, "tensor '%s' must be an object of dtype, shape and data_offsets, found %s", e->name,
                             tt__json_found(j, found, sizeof found));
    j->i++;
    tt__json_ws(j);
    while (tt__json_peek(j) != '}') {
        if (!tt__st_read_field(j, pool, e->name, &f)) return false;
        tt__json_ws(j);
        if (tt__json_peek(j) == ',') j->i++;
        else if (tt__json_peek(j) != '}') return tt__json_expect(j, '}', "after a member");
    }
    j->i++;
    if (!(f.seen & TT__ST_HAS_DTYPE)) return tt__json_fail(j, "tensor '%s' has no dtype", e->name);
    if (!(f.seen & TT__ST_HAS_SHAPE)) return tt__json_fail(j, "tensor '%s' has no shape", e->name);
    if (!(f.seen & TT__ST_HAS_OFFSETS)) return tt__json_fail(j, "tensor '%s' has no data_offsets", e->name);
    return tt__st_check_entry(j, &f, data_size, e);
}

/* The "__metadata__" object: string keys to string values. */
static bool tt__st_read_metadata(tt__json *j, tt_safetensors *st, tt__st_pool *pool) {
    char found[32];
    tt__json_ws(j);
    if (tt__json_peek(j) != '{')
        return tt__json_fail(j, "__metadata__ must be an object of strings, found %s", tt__json_found(j, found, sizeof found));
    j->i++;
    tt__json_ws(j);
    while (tt__json_peek(j) != '}') {
        const char *key = tt__st_string(j, pool, "a __metadata__ key"), *value;
        if (!key || !tt__json_expect(j, ':', "after a key")) return false;
        value = tt__st_string(j, pool, "a __metadata__ value");
        if (!value) return false;
        if (st->n_meta >= j->max_members) return tt__json_fail(j, "more __metadata__ members than counted");
        st->meta_keys[st->n_meta] = key;
        st->meta_values[st->n_meta] = value;
        st->n_meta++;
        tt__json_ws(j);
        if (tt__json_peek(j) == ',') j->i++;
        else if (tt__json_peek(j) != '}') return tt__json_expect(j, '}', "after a member");
    }
    j->i++;
    return true;
}

/* One member of the top object: a tensor entry, or the metadata. */
static bool tt__st_read_member(tt__json *j, tt_safetensors *st, tt__st_pool *pool, bool *seen_meta) {
    tt_safetensors_entry *e;
    char *key = tt__st_string(j, pool, "a tensor name");
    if (!key || !tt__json_expect(j, ':', "after a key")) return false;
    if (strcmp(key, "__metadata__") == 0) {
        if (*seen_meta) return tt__json_fail(j, "key '__metadata__' appears twice");
        *seen_meta = true;
        return tt__st_read_metadata(j, st, pool);
    }
    if (!key[0]) return tt__json_fail(j, "a tensor has an empty name");
    if (st->n >= j->top_members) return tt__json_fail(j, "more tensors than counted");
    e = &st->entries[st->n];
    memset(e, 0, sizeof *e);
    e->name = key;
    if (!tt__st_read_entry(j, pool, st->data_size, e)) return false;
    st->n++;
    return true;
}

/* The second pass over the header (which the first found to be valid JSON). */
static bool tt__st_read_header(tt__json *j, tt_safetensors *st, tt__st_pool *pool) {
    bool seen_meta = false;
    j->i = 0;
    if (!tt__json_expect(j, '{', "at the start")) return false;
    tt__json_ws(j);
    while (tt__json_peek(j) != '}') {
        if (!tt__st_read_member(j, st, pool, &seen_meta)) return false;
        tt__json_ws(j);
        if (tt__json_peek(j) == ',') j->i++;
        else if (tt__json_peek(j) != '}') return tt__json_expect(j, '}', "after a member");
    }
    return true;
}

/* ---- duplicates, overlaps, holes ----------------------------------------------- */

typedef int (*tt__st_cmp)(const tt_safetensors *st, int a, int b);

static int tt__st_by_name(const tt_safetensors *st, int a, int b) {
    return strcmp(st->entries[a].name, st->entries[b].name);
}

static int tt__st_by_key(const tt_safetensors *st, int a, int b) {
    return strcmp(st->meta_keys[a], st->meta_keys[b]);
}

/* By where the bytes begin, then end: a 0-byte tensor sorts before one at its offset. */
static int tt__st_by_range(const tt_safetensors *st, int a, int b) {
    const tt_safetensors_entry *x = &st->entries[a], *y = &st->entries[b];
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    if (x->nbytes != y->nbytes) return x->nbytes < y->nbytes ? -1 : 1;
    return 0;
}

static void tt__st_merge(const tt_safetensors *st, tt__st_cmp cmp, int *idx, int *tmp, int lo, int mid, int hi) {
    int a = lo, b = mid, k = lo;
    while (a < mid && b < hi) tmp[k++] = cmp(st, idx[b], idx[a]) < 0 ? idx[b++] : idx[a++];
    while (a < mid) tmp[k++] = idx[a++];
    while (b < hi) tmp[k++] = idx[b++];
    memcpy(idx + lo, tmp + lo, sizeof(int) * (size_t)(hi - lo));
}

/* Sorts idx[0..n) by cmp, stably: a bottom-up merge sort, O(n log n), no recursion.
   n is at most the header's bytes / 4, so 2 * width never overflows. */
static void tt__st_sort(const tt_safetensors *st, tt__st_cmp cmp, int *idx, int *tmp, int n) {
    int width, lo;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n - width; lo += 2 * width)
            tt__st_merge(st, cmp, idx, tmp, lo, lo + width, n - lo > 2 * width ? lo + 2 * width : n);
    }
}

static void tt__st_iota(int *idx, int n) {
    int k;
    for (k = 0; k < n; k++) idx[k] = k;
}

static bool tt__st_unique_names(tt__json *j, tt_safetensors *st, int *tmp) {
    int k;
    tt__st_iota(st->by_name, st->n);
    tt__st_sort(st, tt__st_by_name, st->by_name, tmp, st->n);
    for (k = 1; k < st->n; k++)
        if (tt__st_by_name(st, st->by_name[k - 1], st->by_name[k]) == 0)
            return tt__json_fail(j, "tensor name '%s' appears twice", st->entries[st->by_name[k]].name);
    return true;
}

static bool tt__st_unique_keys(tt__json *j, tt_safetensors *st, int *tmp) {
    int k;
    tt__st_iota(st->meta_by_key, st->n_meta);
    tt__st_sort(st, tt__st_by_key, st->meta_by_key, tmp, st->n_meta);
    for (k = 1; k < st->n_meta; k++)
        if (tt__st_by_key(st, st->meta_by_key[k - 1], st->meta_by_key[k]) == 0)
            return tt__json_fail(j, "__metadata__ key '%s' appears twice", st->meta_keys[st->meta_by_key[k]]);
    return true;
}

/* The byte ranges, sorted, must tile the data exactly: no overlap, no hole (as the
   reference implementation requires). */
static bool tt__st_tiles(tt__json *j, tt_safetensors *st, int *order, int *tmp) {
    const tt_safetensors_entry *prev = NULL;
    size_t at = 0;
    int k;
    tt__st_iota(order, st->n);
    tt__st_sort(st, tt__st_by_range, order, tmp, st->n);
    for (k = 0; k < st->n; k++) {
        const tt_safetensors_entry *e = &st->entries[order[k]];
        if (prev && e->offset < at)
            return tt__json_fail(j, "tensors '%s' and '%s' overlap: data_offsets [%D, %D] and [%D, %D]", prev->name,
                                 e->name, (int64_t)prev->offset, (int64_t)at, (int64_t)e->offset,
                                 (int64_t)(e->offset + e->nbytes));
        if (e->offset > at)
            return tt__json_fail(j, "a hole: bytes %D..%D of the data belong to no tensor (before '%s')", (int64_t)at,
                                 (int64_t)e->offset, e->name);
        at = e->offset + e->nbytes;
        prev = e;
    }
    if (at != st->data_size)
        return tt__json_fail(j, "a hole: bytes %D..%D of the data (after the last tensor) belong to no tensor",
                             (int64_t)at, (int64_t)st->data_size);
    return true;
}

/* ---- opening ------------------------------------------------------------------- */

/* count items of size bytes from the arena; NULL and an error on overflow or when full. */
static void *tt__st_alloc_n(tt_ctx *ctx, const char *fn, size_t count, size_t size) {
    if (count && size > (size_t)-1 / count) return tt__fail(ctx, TT_ERR_OOM, "%s: allocation size overflows", fn);
    return tt__alloc(ctx, fn, count * size);
}

/* The data is little-endian; so must the host be for tensors to point into it. */
static bool tt__st_little_endian(void) {
    uint16_t one = 1;
    unsigned char b[2];
    memcpy(b, &one, 2);
    return b[0] == 1;
}

/* The header length in the first 8 bytes, checked against size and the format's limit. */
static bool tt__st_header_len(tt_ctx *ctx, const char *fn, const unsigned char *buf, size_t size, size_t *len) {
    uint64_t n = 0;
    int k;
    if (size < 8) {
        tt__fail(ctx, TT_ERR_FORMAT, "%s: size is %D: fewer than the 8 bytes of the header length", fn, (int64_t)size);
        return false;
    }
    for (k = 7; k >= 0; k--) n = n << 8 | buf[k];
    if (n > (uint64_t)INT64_MAX) {
        tt__fail(ctx, TT_ERR_FORMAT, "%s: header length is 2^63 bytes or more, past the format's limit of %d bytes",
                 fn, TT__ST_MAX_HEADER);
        return false;
    }
    if (n > TT__ST_MAX_HEADER) {
        tt__fail(ctx, TT_ERR_FORMAT, "%s: header length %D is past the format's limit of %d bytes", fn, (int64_t)n,
                 TT__ST_MAX_HEADER);
        return false;
    }
    if (n > size - 8) {
        tt__fail(ctx, TT_ERR_FORMAT, "%s: header length %D runs past the end of the file (%D bytes follow the "
                 "length)", fn, (int64_t)n, (int64_t)(size - 8));
        return false;
    }
    *len = (size_t)n;
    return true;
}

/* The object and its tables, sized by the first pass; the string pool as big as the header. */
static tt_safetensors *tt__st_new(tt__json *j, const unsigned char *buf, size_t size, tt__st_pool *pool) {
    size_t n = (size_t)j->top_members, m = (size_t)j->max_members;
    tt_safetensors *st = (tt_safetensors *)tt__alloc(j->ctx, j->fn, sizeof(tt_safetensors));
    if (!st) return NULL;
    memset(st, 0, sizeof *st);
    st->ctx = j->ctx;
    st->data = buf + 8 + j->n;
    st->data_size = size - 8 - j->n;
    st->entries = (tt_safetensors_entry *)tt__st_alloc_n(j->ctx, j->fn, n, sizeof(tt_safetensors_entry));
    st->by_name = (int *)tt__st_alloc_n(j->ctx, j->fn, n, sizeof(int));
    st->meta_keys = (const char **)tt__st_alloc_n(j->ctx, j->fn, m, sizeof(const char *));
    st->meta_values = (const char **)tt__st_alloc_n(j->ctx, j->fn, m, sizeof(const char *));
    st->meta_by_key = (int *)tt__st_alloc_n(j->ctx, j->fn, m, sizeof(int));
    pool->p = (char *)tt__alloc(j->ctx, j->fn, j->n + 1);
    pool->used = 0;
    pool->size = j->n + 1;
    if (!st->entries || !st->by_name || !st->meta_keys || !st->meta_values || !st->meta_by_key || !pool->p) return NULL;
    return st;
}

static tt_safetensors *tt__st_open(tt_ctx *ctx, const char *fn, const unsigned char *buf, size_t size) {
    tt__json j;
    tt__st_pool pool;
    tt_safetensors *st;
    int *order, *tmp;
    if (!tt__st_little_endian())
        return (tt_safetensors *)tt__fail(ctx, TT_ERR_UNSUPPORTED, "%s: this host is big-endian; safetensors data "
                                          "is little-endian", fn);
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.fn = fn;
    if (!tt__st_header_len(ctx, fn, buf, size, &j.n)) return NULL;
    j.s = buf + 8;
    if (!tt__json_check(&j)) return NULL;
    st = tt__st_new(&j, buf, size, &pool);
    order = (int *)tt__st_alloc_n(ctx, fn, (size_t)j.top_members, sizeof(int));
    tmp = (int *)tt__st_alloc_n(ctx, fn, (size_t)(j.top_members > j.max_members ? j.top_members : j.max_members),
                                sizeof(int));
    if (!st || !order || !tmp || !tt__st_read_header(&j, st, &pool)) return NULL;
    if (!tt__st_unique_names(&j, st, tmp) || !tt__st_unique_keys(&j, st, tmp) || !tt__st_tiles(&j, st, order, tmp))
        return NULL;
    return st;
}

TT_API tt_safetensors *tt_safetensors_open_memory(tt_ctx *ctx, const void *buf, size_t size) {
    tt_scope scope;
    tt_safetensors *st;
    if (!ctx) return NULL;
    if (!buf) return (tt_safetensors *)tt__fail(ctx, TT_ERR_ARG, "tt_safetensors_open_memory: buf is NULL");
    scope = tt_scope_begin(ctx);
    st = tt__st_open(ctx, "tt_safetensors_open_memory", (const unsigned char *)buf, size);
    if (!st) tt_scope_end(ctx, scope);             /* a refused file keeps no memory */
    return st;
}

#ifndef TT_NO_STDIO
TT_API tt_safetensors *tt_safetensors_open(tt_ctx *ctx, const char *path) {
    static const char fn[] = "tt_safetensors_open";
    tt_scope scope;
    tt_safetensors *st = NULL;
    unsigned char *bytes;
    size_t size = 0;
    if (!ctx) return NULL;
    scope = tt_scope_begin(ctx);
    bytes = tt__read_file(ctx, fn, path, NULL, &size);
    if (bytes) st = tt__st_open(ctx, fn, bytes, size);
    if (!st) tt_scope_end(ctx, scope);             /* the file's bytes go too */
    return st;
}
#endif

/* ---- reading ------------------------------------------------------------------- */

/* i names an entry; else an error naming fn, i and the count. */
static bool tt__st_index_ok(const tt_safetensors *st, const char *fn, int i) {
    if (i >= 0 && i < st->n) return true;
    tt__fail(st->ctx, TT_ERR_ARG, "%s: i is %d, the file has %d tensors", fn, i, st->n);
    return false;
}

/* The entry (or metadata) index whose key is want, by binary search over order. */
static int tt__st_search(const tt_safetensors *st, const int *order, int n, bool meta, const char *want) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c;
        c = strcmp(meta ? st->meta_keys[order[mid]] : st->entries[order[mid]].name, want);
        if (c == 0) return order[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

TT_API int tt_safetensors_count(const tt_safetensors *st) { return st ? st->n : 0; }

TT_API bool tt_safetensors_entry_at(const tt_safetensors *st, int i, tt_safetensors_entry *entry) {
    if (!st) return false;
    if (!entry) {
        tt__fail(st->ctx, TT_ERR_ARG, "tt_safetensors_entry_at: entry is NULL");
        return false;
    }
    if (!tt__st_index_ok(st, "tt_safetensors_entry_at", i)) return false;
    *entry = st->entries[i];
    return true;
}

TT_API int tt_safetensors_find(const tt_safetensors *st, const char *name) {
    if (!st) return -1;
    if (!name) {
        tt__fail(st->ctx, TT_ERR_ARG, "tt_safetensors_find: name is NULL");
        return -1;
    }
    return tt__st_search(st, st->by_name, st->n, false, name);
}

TT_API const char *tt_safetensors_metadata(const tt_safetensors *st, const char *key) {
    int k;
    if (!st) return NULL;
    if (!key) return (const char *)tt__fail(st->ctx, TT_ERR_ARG, "tt_safetensors_metadata: key is NULL");
    k = tt__st_search(st, st->meta_by_key, st->n_meta, true, key);
    return k < 0 ? NULL : st->meta_values[k];
}

/* I64 values narrowed to a new I32 tensor; each read with memcpy (the bytes may sit at any
   address), and one that does not fit is a TT_ERR_INDEX error. */
static tt_tensor *tt__st_narrow(tt_safetensors *st, const tt_safetensors_entry *e, const unsigned char *p,
                                const char *fn, const char *label) {
    tt_tensor *t = tt__new(st->ctx, fn, TT_I32, e->ndim, e->shape);
    int32_t *d;
    int64_t k;
    if (!t) return NULL;
    d = (int32_t *)t->data;
    for (k = 0; k < t->numel; k++) {
        int64_t v;
        memcpy(&v, p + 8 * (size_t)k, sizeof v);       /* the host is little-endian: open checked */
        if (v < INT32_MIN || v > INT32_MAX)
            return (tt_tensor *)tt__fail(st->ctx, TT_ERR_INDEX, "%s: %s: I64 element %D is %D, outside the int32 range "
                                         "of tinytrace's indices", fn, label, k, v);
        d[k] = (int32_t)v;
    }
    return t;
}

/* A tensor over the bytes p: pointing at them when they are aligned for the dtype, else a copy. */
static tt_tensor *tt__st_view(tt_safetensors *st, const tt_safetensors_entry *e, const unsigned char *p, const char *fn) {
    tt_tensor *t;
    if ((uintptr_t)p % tt_dtype_size(e->dtype) != 0) {
        t = tt__new(st->ctx, fn, e->dtype, e->ndim, e->shape);
        if (t) memcpy(t->data, p, e->nbytes);
        return t;
    }
    t = tt__header(st->ctx, fn, e->dtype, e->ndim, e->shape);
    if (!t) return NULL;
    t->data = (void *)p;                             /* const dropped: such tensors must not be written */
    t->flags |= TT__FLAG_WRAPPED;
    return t;
}

/* Entry i as a tensor; with_i says whether messages name i (tt_safetensors_tensor's argument). */
static tt_tensor *tt__st_tensor(tt_safetensors *st, int i, const char *fn, bool with_i) {
    const tt_safetensors_entry *e = &st->entries[i];
    const unsigned char *p = st->data + e->offset;
    char label[TT__MSG_SIZE];
    tt__buf b;
    tt__buf_init(&b, label, sizeof label);
    tt__put(&b, "tensor '");
    tt__put(&b, e->name);
    tt__putc(&b, '\'');
    if (with_i) {
        tt__put(&b, " (i = ");
        tt__put_i64(&b, i);
        tt__putc(&b, ')');
    }
    if (e->dtype == TT_DTYPE_COUNT)
        return (tt_tensor *)tt__fail(st->ctx, TT_ERR_UNSUPPORTED, "%s: %s has dtype %s; tinytrace reads F32, F16, "
                                     "BF16, I32 and I64 (narrowed to I32)", fn, label, e->file_dtype);
    if (strcmp(e->file_dtype, "I64") == 0) return tt__st_narrow(st, e, p, fn, label);
    return tt__st_view(st, e, p, fn);
}

TT_API tt_tensor *tt_safetensors_tensor(tt_safetensors *st, int i) {
    if (!st || !tt__st_index_ok(st, "tt_safetensors_tensor", i)) return NULL;
    return tt__st_tensor(st, i, "tt_safetensors_tensor", true);
}

TT_API tt_tensor *tt_safetensors_get(tt_safetensors *st, const char *name) {
    int i;
    if (!st) return NULL;
    if (!name) return (tt_tensor *)tt__fail(st->ctx, TT_ERR_ARG, "tt_safetensors_get: name is NULL");
    i = tt__st_search(st, st->by_name, st->n, false, name);
    if (i < 0)
        return (tt_tensor *)tt__fail(st->ctx, TT_ERR_ARG, "tt_safetensors_get: name '%s' is not in the file (it has "
                                     "%d tensors)", name, st->n);
    return tt__st_tensor(st, i, "tt_safetensors_get", false);
}

/* ==========================================================================
 * >>export   C source for firmware: the kernels exported code calls, the memory plan
 *            for small devices, tt_graph_export_c
 *
 * An exported graph is name.c: the constants as static const arrays and name_run, one call
 * per node into the kernels below, each fused elementwise program printed as one plain C
 * loop from the expression table (no interpreter). The kernels are the graph's own plain C
 * twins (im2col, the direct GEMM loops, the pooling planes, the adaptive cell), driven one
 * band of output pixels at a time: every output element is summed in the order the graph
 * sums it with the C twin, so name_run equals the graph bit for bit.
 *
 * The plan: every value computed by a node (not the caller's inputs and outputs, not the
 * constants) gets a block of one arena; blocks alive at the same node never overlap (placed
 * largest first, each at the lowest offset that fits), and an elementwise program writes over
 * an input that dies there. A node's scratch (the column matrix of a band) takes the largest
 * gap at its node, as many pixels as fit. Band fusion goes further: conv -> ReLU -> 2x2
 * max-pool and conv -> ReLU -> global average pool never hold the convolution's output:
 * each band of it is pooled, or summed per channel, as soon as it is computed.
 * ========================================================================== */

/* ---- the kernels exported code calls ------------------------------------------------ */

/* One convolution, as the graph's conv2d sees it (conv1d: H = KH = OH = 1). */
typedef struct tt__xconv {
    int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, ph, pw, dh, dw, groups;
} tt__xconv;

/* C[M,N] (rows ldc apart) = A B, then the epilogue: every element summed as the graph's GEMM
   sums it with the C twin (tt__gemm_task, tile by tile; the packed path's micro-kernel sums
   over k in order from 0 too): B's rows contiguous, row by row with tt__axpy (over k in
   order); B's columns contiguous, the 32-lane dot products of tt__dot, or, where the graph
   packs B, in order. No tiles here: each element's sum is the same in any tile. */
TT__MAYBE_UNUSED static void tt__x_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                                        const float *B, int64_t sbk, int64_t sbn, float *C, int64_t ldc,
                                        const tt__epilogue *ep) {
    int64_t i, j, k;
    for (i = 0; i < M; i++) {
        float *c = C + i * ldc;
        const float *a = A + i * sam;
        if (sbn == 1) {
            for (j = 0; j < N; j++) c[j] = 0.0f;
            for (k = 0; k < K; k++) tt__axpy(c, B + k * sbk, a[k * sak], N);
        } else if (tt__gemm_is_packed_mr(TT__MR_REF, M, N, K)) {
            for (j = 0; j < N; j++) {
                float s = 0.0f;
                for (k = 0; k < K; k++) s += a[k * sak] * B[k * sbk + j * sbn];
                c[j] = s;
            }
        } else {                                       /* sak == sbk == 1: the direct loops' dots */
            for (j = 0; j < N; j++) c[j] = tt__dot(a, B + j * sbn, K);
        }
    }
    tt__epilogue_block_ref(ep, C, ldc, 0, 0, M, N);
}

/* Channels per group. Channel and pixel counts fit 32 bits (the exporter checks): a
   Cortex-M divides those in one instruction, 64-bit ones in a 700-byte library routine. */
TT__MAYBE_UNUSED static int64_t tt__x_per_group(int64_t channels, int64_t groups) { return (int32_t)channels / (int32_t)groups; }

/* The column matrix of output pixels [p0, p1) of one image's group (x: its first channel):
   row (c*KH + kh)*KW + kw holds what tap (kh, kw) of channel c reads, zero in the padding,
   as the graph's im2col (pixel numbers in 32 bits). */
TT__MAYBE_UNUSED static void tt__x_im2col(const tt__xconv *s, const float *x, int64_t p0, int64_t p1, float *col) {
    int64_t n = p1 - p0, Cg = tt__x_per_group(s->C, s->groups), c, kh, kw, q;
    int32_t OW = (int32_t)s->OW;
    for (c = 0; c < Cg; c++)
        for (kh = 0; kh < s->KH; kh++)
            for (kw = 0; kw < s->KW; kw++) {
                float *d = col + ((c * s->KH + kh) * s->KW + kw) * n;
                for (q = 0; q < n; q++) {
                    int32_t pix = (int32_t)(p0 + q);
                    int64_t oh = pix / OW, ow = pix % OW;
                    int64_t ih = oh * s->sh - s->ph + kh * s->dh, iw = ow * s->sw - s->pw + kw * s->dw;
                    d[q] = ih >= 0 && ih < s->H && iw >= 0 && iw < s->W ? x[(c * s->H + ih) * s->W + iw] : 0.0f;
                }
            }
}

/* Output pixels [p0, p1) of image n, group g, every output channel of the group, into y
   (channel rows ldy apart): the band's column matrix in col, then one GEMM with the bias
   and the ReLU as its epilogue, as the graph's. */
TT__MAYBE_UNUSED static void tt__x_conv_band(const tt__xconv *s, const float *x, const float *w, const float *b, bool relu,
                                             int64_t n, int64_t g, int64_t p0, int64_t p1, float *col, float *y, int64_t ldy) {
    int64_t Cg = tt__x_per_group(s->C, s->groups), Og = tt__x_per_group(s->O, s->groups), Kc = Cg * s->KH * s->KW;
    tt__epilogue ep;
    ep.bias = b ? b + g * Og : NULL;
    ep.bias_kind = b ? TT__BIAS_ROWS : TT__BIAS_NONE;
    ep.relu = relu;
    ep.clamp.on = false;
    tt__x_im2col(s, x + (n * s->C + g * Cg) * s->H * s->W, p0, p1, col);
    tt__x_gemm(Og, p1 - p0, Kc, w + g * Og * Kc, Kc, 1, col, p1 - p0, 1, y, ldy, (b || relu) ? &ep : NULL);
}

/* A convolution into y [N,O,OH,OW], band output pixels at a time (col: band x Kc floats);
   depthwise (one input channel per group) slides its window directly, as the graph's. */
TT__MAYBE_UNUSED static void tt__x_conv2d(const tt__xconv *s, const float *x, const float *w, const float *b, int relu,
                                          float *y, int64_t band, float *col) {
    int64_t n, g, p0, hw = s->OH * s->OW, Og = tt__x_per_group(s->O, s->groups);
    if (s->groups > 1 && s->C == s->groups) {
        tt__conv_job j;
        memset(&j, 0, sizeof j);
        j.x = x; j.w = w; j.b = b; j.y = y;
        j.C = s->C; j.H = s->H; j.W = s->W; j.O = s->O; j.Og = Og; j.KH = s->KH; j.KW = s->KW; j.OH = s->OH; j.OW = s->OW;
        j.p = tt__conv_params((int)s->sh, (int)s->sw, (int)s->ph, (int)s->pw, (int)s->dh, (int)s->dw, (int)s->groups);
        j.relu = relu != 0;
        for (n = 0; n < s->N * s->O; n++) tt__depthwise_plane_ref(&j, n);
        return;
    }
    for (n = 0; n < s->N; n++)
        for (g = 0; g < s->groups; g++)
            for (p0 = 0; p0 < hw; p0 += band)
                tt__x_conv_band(s, x, w, b, relu != 0, n, g, p0, tt__min64(hw, p0 + band), col,
                                y + (n * s->O + g * Og) * hw + p0, hw);
}

/* Band fusion: a convolution (groups 1) and a 2x2, stride 2 max-pool into y [N,O,OH/2,OW/2],
   `rows` pool rows a band: the band's 2*rows convolution rows exist only in scratch (after
   the column matrix), pooled as the graph's max_pool pools them. */
TT__MAYBE_UNUSED static void tt__x_conv2d_maxpool2(const tt__xconv *s, const float *x, const float *w, const float *b,
                                                   int relu, float *y, int64_t rows, float *scratch) {
    int64_t PH = s->OH / 2, PW = s->OW / 2, OW = s->OW, Kc = s->C * s->KH * s->KW, n, r0, r, o, q;
    float *col = scratch, *band = scratch + Kc * 2 * rows * OW;
    for (n = 0; n < s->N; n++)
        for (r0 = 0; r0 < PH; r0 += rows) {
            int64_t r1 = tt__min64(PH, r0 + rows), P = 2 * (r1 - r0) * OW;
            tt__x_conv_band(s, x, w, b, relu != 0, n, 0, 2 * r0 * OW, 2 * r1 * OW, col, band, P);
            for (o = 0; o < s->O; o++)
                for (r = r0; r < r1; r++) {            /* as the graph's 2x2 pool: the rows' maximum, then each pair's */
                    const float *top = band + o * P + 2 * (r - r0) * OW, *bottom = top + OW;
                    float *d = y + ((n * s->O + o) * PH + r) * PW;
                    for (q = 0; q < PW; q++)
                        d[q] = tt__maxf(tt__maxf(top[2 * q], bottom[2 * q]), tt__maxf(top[2 * q + 1], bottom[2 * q + 1]));
                }
        }
}

/* Band fusion: a convolution (groups 1) and a global average pool into y [N,O]: each band
   of `band` output pixels is added to its channel's running sum (scratch: the sums, the
   column matrix, the band) in the order the graph's adaptive pool adds the whole map. */
TT__MAYBE_UNUSED static void tt__x_conv2d_gap(const tt__xconv *s, const float *x, const float *w, const float *b,
                                              int relu, float *y, int64_t band, void *scratch) {
    int64_t hw = s->OH * s->OW, Kc = s->C * s->KH * s->KW, n, p0, o, q;
    tt__acc *sums = (tt__acc *)scratch;
    float *col = (float *)(sums + s->O), *out = col + Kc * band;
    for (n = 0; n < s->N; n++) {
        for (o = 0; o < s->O; o++) sums[o] = tt__acc_zero();
        for (p0 = 0; p0 < hw; p0 += band) {
            int64_t P = tt__min64(hw, p0 + band) - p0;
            tt__x_conv_band(s, x, w, b, relu != 0, n, 0, p0, p0 + P, col, out, P);
            for (o = 0; o < s->O; o++)
                for (q = 0; q < P; q++) tt__acc_add(&sums[o], out[o * P + q]);
        }
        for (o = 0; o < s->O; o++) y[n * s->O + o] = tt__acc_mean(&sums[o], hw);
    }
}

/* Max or average pooling over `planes` planes (the job's shape; its pointers are set here). */
TT__MAYBE_UNUSED static void tt__x_pool(const tt__pool_job *shape, int64_t planes, const float *x, float *y) {
    tt__pool_job j = *shape;
    int64_t p;
    j.x = x;
    j.y = y;
    for (p = 0; p < planes; p++) tt__pool_plane_ref(&j, p);
}

/* Adaptive average pooling of `planes` H x W planes to OH x OW. */
TT__MAYBE_UNUSED static void tt__x_adaptive_avg(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                                int64_t OW) {
    int64_t p, oh, ow;
    for (p = 0; p < planes; p++)
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) y[(p * OH + oh) * OW + ow] = tt__adaptive_cell(x + p * H * W, H, W, OH, OW, oh, ow);
}

/* y [M,N] = x [M,K] weight[N,K]^T + bias, ReLU when relu: the graph's linear. */
TT__MAYBE_UNUSED static void tt__x_linear(const float *x, const float *w, const float *b, int relu, float *y, int64_t M,
                                          int64_t N, int64_t K) {
    tt__epilogue ep;
    ep.bias = b;
    ep.bias_kind = b ? TT__BIAS_COLS : TT__BIAS_NONE;
    ep.relu = relu != 0;
    ep.clamp.on = false;
    tt__x_gemm(M, N, K, x, K, 1, w, 1, K, y, N, (b || relu) ? &ep : NULL);
}

/* Softmax (or log-softmax) of M contiguous rows of K values: the graph's row kernel. */
TT__MAYBE_UNUSED static void tt__x_softmax(const float *x, float *y, int64_t M, int64_t K, int log_form) {
    int64_t m;
    for (m = 0; m < M; m++) tt__softmax_row(y + m * K, x + m * K, K, log_form != 0);
}

/* A reduction (sum, mean, max, min, prod, var, std) of each of M contiguous rows of K values,
   as the graph's reduce task gives it (an empty row: 1 for prod, 0 for sum, else NaN). */
TT__MAYBE_UNUSED static void tt__x_reduce(int op, const float *x, float *y, int64_t M, int64_t K, int64_t correction) {
    int64_t m;
    for (m = 0; m < M; m++)
        y[m] = K > 0              ? (float)tt__reduce_row(op, x + m * K, K, correction)
             : op == TT__OP_PROD ? 1.0f
             : op == TT__OP_SUM  ? 0.0f : NAN;
}

/* Layer norm (or RMS norm) of M contiguous rows of K values, weight and bias optional. */
TT__MAYBE_UNUSED static void tt__x_norm(const float *x, const float *w, const float *b, float *y, int64_t M, int64_t K, float eps,
                                        int rms) {
    tt__norm_job j;
    j.x = x; j.w = w; j.b = b; j.y = y;
    j.K = K; j.M = M; j.rows_per_task = tt__max64(M, 1);
    j.eps = (tt__wide)eps;
    j.rms = rms != 0;
    if (K > 0) tt__norm_task_ref(&j, 0, 0);
}

/* The numbers name_selftest feeds input k: exact floats in [-1, 1), the same everywhere. */
TT__MAYBE_UNUSED static void tt__x_fill(float *x, int64_t n, uint32_t k) {
    uint32_t s = 0x9E3779B9u ^ (k * 0x85EBCA6Bu);
    int64_t i;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) * (1.0f / 8388608.0f) - 1.0f;
    }
}

/* FNV-1a over the bits of n floats, continuing from h. */
TT__MAYBE_UNUSED static uint32_t tt__x_hash(uint32_t h, const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        h = (h ^ u) * 16777619u;
    }
    return h;
}

/* Do the n values of y agree with expect's within 1e-5 of expect's largest magnitude? */
TT__MAYBE_UNUSED static bool tt__x_close(const float *y, const float *expect, int64_t n) {
    float big = 0.0f;
    int64_t i;
    for (i = 0; i < n; i++) big = fabsf(expect[i]) > big ? fabsf(expect[i]) : big;
    for (i = 0; i < n; i++)
        if (!(fabsf(y[i] - expect[i]) <= 1e-5f * big)) return false;
    return true;
}

/* ---- the plan: steps, where each value is, the arena ----------------------------------- */

/* What a step runs: a kernel above (with a fused node's epilogue program after it, or its
   ReLU inside it), only a fused elementwise program, or one unary or binary op (a loop). */
typedef enum tt__xkind {
    TT__XS_PROGRAM, TT__XS_EWISE, TT__XS_CONV, TT__XS_CONV_MAXPOOL, TT__XS_CONV_GAP, TT__XS_POOL, TT__XS_ADAPTIVE,
    TT__XS_LINEAR, TT__XS_MATMUL, TT__XS_SOFTMAX, TT__XS_REDUCE, TT__XS_NORM
} tt__xkind;

/* Where a value's buffer is (views: their root's). */
typedef enum tt__xwhere { TT__XL_NONE, TT__XL_ARENA, TT__XL_INPUT, TT__XL_OUTPUT, TT__XL_CONST } tt__xwhere;

typedef struct tt__xstep {
    tt__xkind kind;
    int       pos;                     /* the node's order position */
    int       op_node;                 /* the node whose kernel runs (a fused node's head), or -1 */
    int       pool_node;               /* band fusion: the pool node run with it, or -1 */
    bool      relu;                    /* the kernel applies the ReLU (the program is skipped) */
    bool      program;                 /* a fused program runs (after the kernel, if any) */
    int64_t   fixed_bytes, unit_bytes, units;   /* scratch: once, per band unit, units in all */
    int64_t   band, scratch_at;        /* units per band; the scratch's arena offset */
} tt__xstep;

typedef struct tt__xplan {
    tt_graph   *g;
    const char *fn;
    tt__xwhere *where;                 /* per value (roots only) */
    int        *index;                 /* per root: input, output or constant number; ARENA: its block */
    int         n_consts;
    int        *bfirst, *blast;        /* per block: lifetime in order positions */
    int64_t    *bsize, *boff;
    int         n_blocks;
    tt__xstep  *steps;
    int         n_steps;
    int64_t     arena_bytes;
} tt__xplan;

#define TT__X_ALIGN 16                 /* every block and scratch starts on 16 bytes */

static void tt__x_plan_free(tt__xplan *p) {
    const tt_allocator *al = &p->g->tape.alloc;
    tt__heap_free(al, p->where);
    tt__heap_free(al, p->index);
    tt__heap_free(al, p->bfirst);
    tt__heap_free(al, p->bsize);
    tt__heap_free(al, p->steps);
    memset(p, 0, sizeof *p);
}

/* The root of v's buffer (itself unless v is a view). */
static int tt__x_root(const tt__xplan *p, int v) { return p->g->root[v]; }

/* Elements from v's root's first element to v's element (0,...,0). */
static int64_t tt__x_rel(const tt__xplan *p, int v) {
    const tt_tensor *t = &p->g->rt[v], *r = &p->g->rt[tt__x_root(p, v)];
    int64_t es = (int64_t)tt_dtype_size(t->dtype);
    return ((const char *)t->data - (const char *)r->data) / es + t->offset - r->offset;
}

/* Is v its root's buffer read straight through (contiguous from its first element)? */
static bool tt__x_whole(const tt__xplan *p, int v) {
    return tt_is_contiguous(&p->g->rt[v]) && tt__x_rel(p, v) == 0;
}

/* The node at order position pos. */
static const tt__node *tt__x_node(const tt__xplan *p, int pos) { return &p->g->tape.nodes[p->g->order[pos]]; }

/* The node whose kernel a node runs: itself, or a fused node's epilogue head (-1: none). */
static int tt__x_kernel_node(const tt__xplan *p, const tt__node *n, int node) {
    if (!tt__is_fused(n)) return node;
    return p->g->progs[n->a.i[0]].head;
}

/* The step kind of a kernel node's op, or -1 when the exporter has no kernel for it. */
static int tt__x_kind_of(int op) {
    switch (op) {
    case TT__OP_CONV2D: case TT__OP_CONV1D:  return TT__XS_CONV;
    case TT__OP_MAX_POOL: case TT__OP_AVG_POOL: return TT__XS_POOL;
    case TT__OP_ADAPTIVE_AVG_POOL2D:         return TT__XS_ADAPTIVE;
    case TT__OP_LINEAR:                      return TT__XS_LINEAR;
    case TT__OP_MATMUL:                      return TT__XS_MATMUL;
    case TT__OP_SOFTMAX: case TT__OP_LOG_SOFTMAX: return TT__XS_SOFTMAX;
    case TT__OP_SUM: case TT__OP_MEAN: case TT__OP_MAX: case TT__OP_MIN: case TT__OP_PROD: case TT__OP_VAR:
    case TT__OP_STD:                         return TT__XS_REDUCE;
    case TT__OP_LAYER_NORM: case TT__OP_RMS_NORM: return TT__XS_NORM;
    default:                                 return -1;
    }
}

/* Nodes that read value v (each input slot counts). */
static int tt__x_readers(const tt__xplan *p, int v) {
    int pos, k, n = 0;
    for (pos = 0; pos < p->g->n_order; pos++) {
        const tt__node *nd = tt__x_node(p, pos);
        for (k = 0; k < nd->n_in; k++) n += tt__node_in(p->g, nd, k) == v;
    }
    for (k = 0; k < p->g->n_outputs; k++) n += tt__rv(p->g, p->g->outputs[k]) == v;
    return n;
}

/* The shape of value v (a fused node's head result has no header of its own at run time). */
static const tt_tensor *tt__x_meta(const tt__xplan *p, int v) { return &p->g->tape.values[v].meta; }

/* The tt__xconv of a convolution node (conv1d as a height-1 conv2d). */
static tt__xconv tt__x_conv_of(const tt__xplan *p, const tt__node *n) {
    const tt_tensor *x = tt__x_meta(p, tt__node_in(p->g, n, 0)), *w = tt__x_meta(p, tt__node_in(p->g, n, 1));
    const tt_tensor *y = tt__x_meta(p, n->out);
    tt_conv_params cp = tt__conv_params_of(&n->a);
    tt__xconv s;
    tt_tensor x4, w4;
    tt__conv_as_2d(x, &x4);
    tt__conv_as_2d(w, &w4);
    s.N = x4.shape[0]; s.C = x4.shape[1]; s.H = x4.shape[2]; s.W = x4.shape[3];
    s.O = w4.shape[0]; s.KH = w4.shape[2]; s.KW = w4.shape[3];
    s.OH = n->op == TT__OP_CONV1D ? 1 : y->shape[2];
    s.OW = y->shape[y->ndim - 1];
    s.sh = cp.stride[0]; s.sw = cp.stride[1]; s.ph = cp.padding[0]; s.pw = cp.padding[1];
    s.dh = cp.dilation[0]; s.dw = cp.dilation[1]; s.groups = cp.groups;
    return s;
}

static bool tt__x_depthwise(const tt__xconv *s) { return s->groups > 1 && s->C == s->groups; }

/* The reduced axes of a softmax, reduction or norm node as a bit mask of x's axes. */
static int64_t tt__x_row_axes(const tt__xplan *p, const tt__node *n) {
    int nd = tt__x_meta(p, tt__node_in(p->g, n, 0))->ndim;
    switch (tt__x_kind_of(n->op)) {
    case TT__XS_SOFTMAX: return nd > 0 ? (int64_t)1 << tt__axis((int)n->a.i[0], nd) : -1;
    case TT__XS_REDUCE:  return n->a.i[0];
    case TT__XS_NORM:    return (((int64_t)1 << nd) - 1) & ~(((int64_t)1 << (nd - n->a.i[0])) - 1);
    default:             return 0;
    }
}

/* Does a node that works on rows take them along x's last axes (so that they are x's own
   contiguous rows, as the graph's kernels read them)? True for every other node. */
static bool tt__x_rows_ok(const tt__xplan *p, const tt__node *n) {
    int64_t mask = tt__x_row_axes(p, n), r = 0, d;
    int nd;
    if (mask < 0) return false;
    nd = tt__x_meta(p, tt__node_in(p->g, n, 0))->ndim;
    for (d = 0; d < nd; d++) r += (mask >> d) & 1;
    return mask == ((((int64_t)1 << nd) - 1) & ~(((int64_t)1 << (nd - r)) - 1));
}

/* K: the values of one row of such a node (the product of its x's last axes in the mask; the
   writer's, so unused where TT_NO_STDIO leaves no writer). */
TT__MAYBE_UNUSED static int64_t tt__x_row_len(const tt__xplan *p, const tt__node *n) {
    const tt_tensor *x = tt__x_meta(p, tt__node_in(p->g, n, 0));
    int64_t mask = tt__x_row_axes(p, n), K = 1;
    int d;
    for (d = 0; d < x->ndim; d++) if ((mask >> d) & 1) K *= x->shape[d];
    return K;
}

/* Band fusion of the convolution step st with the node at the next position: a 2x2 stride-2
   max-pool or a 1x1 adaptive average pool that alone reads the convolution's output. */
static void tt__x_try_band(const tt__xplan *p, tt__xstep *st) {
    const tt__node *conv = &p->g->tape.nodes[st->op_node], *n;
    tt__xconv s = tt__x_conv_of(p, conv);
    int out = tt__x_node(p, st->pos)->out;
    const tt_tensor *y;
    if (st->program || s.groups != 1 || st->pos + 1 >= p->g->n_order || tt__x_readers(p, out) != 1) return;
    n = tt__x_node(p, st->pos + 1);
    if (n->n_in < 1 || tt__node_in(p->g, n, 0) != out) return;
    y = tt__x_meta(p, n->out);
    if (n->op == TT__OP_MAX_POOL && y->ndim == 4 && y->shape[2] == s.OH / 2 && y->shape[3] == s.OW / 2 && s.OH >= 2 &&
        s.OW >= 2 && n->a.i[TT__POOL_K + 0] == 2 && n->a.i[TT__POOL_K + 1] == 2 && n->a.i[TT__POOL_S + 0] == 2 &&
        n->a.i[TT__POOL_S + 1] == 2 && n->a.i[TT__POOL_P + 0] == 0 && n->a.i[TT__POOL_P + 1] == 0 &&
        n->a.i[TT__POOL_D + 0] == 1 && n->a.i[TT__POOL_D + 1] == 1) {
        st->kind = TT__XS_CONV_MAXPOOL;
        st->unit_bytes = 2 * s.OW * (s.C * s.KH * s.KW + s.O) * (int64_t)sizeof(float);
        st->units = s.OH / 2;
    } else if (n->op == TT__OP_ADAPTIVE_AVG_POOL2D && y->ndim == 4 && y->shape[2] == 1 && y->shape[3] == 1) {
        st->kind = TT__XS_CONV_GAP;
        st->fixed_bytes = (int64_t)tt__round_up((size_t)s.O * sizeof(tt__acc), TT__X_ALIGN);
        st->unit_bytes = (s.C * s.KH * s.KW + s.O) * (int64_t)sizeof(float);
        st->units = s.OH * s.OW;
    } else {
        return;
    }
    st->pool_node = p->g->order[st->pos + 1];
}

/* The steps: one per node but views (a view is its root's bytes), band-fused pairs one. */
static tt_status tt__x_plan_steps(tt__xplan *p, unsigned flags) {
    tt_graph *g = p->g;
    int pos;
    for (pos = 0; pos < g->n_order; pos++) {
        const tt__node *n = tt__x_node(p, pos);
        tt__xstep *st = &p->steps[p->n_steps];
        int kn;
        if (tt__is_view_op(n->op)) continue;
        memset(st, 0, sizeof *st);
        st->pos = pos;
        st->pool_node = -1;
        kn = tt__x_kernel_node(p, n, g->order[pos]);
        st->op_node = kn;
        st->program = tt__is_fused(n);
        if (tt__op_table[n->op].kind == TT__K_UNARY || tt__op_table[n->op].kind == TT__K_BINARY) {
            st->kind = TT__XS_EWISE;                   /* an op left alone by fusion: one loop */
            st->op_node = -1;
        } else if (kn >= 0) {
            int kind = tt__x_kind_of(g->tape.nodes[kn].op);
            if (kind < 0)
                return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: node %d (%s) has no exported kernel (conv2d, conv1d, max_pool, "
                                 "avg_pool, adaptive_avg_pool2d, linear, matmul, softmax, reductions, layer_norm, rms_norm, "
                                 "views and elementwise ops have)", p->fn, kn, g->tape.nodes[kn].name);
            if (!tt__x_rows_ok(p, &g->tape.nodes[kn]))
                return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: node %d (%s) works along axes that are not x's last ones: "
                                 "exported softmax, reductions and norms take rows of contiguous values", p->fn, kn,
                                 g->tape.nodes[kn].name);
            st->kind = (tt__xkind)kind;
            if (kind == TT__XS_MATMUL && (tt__x_meta(p, g->tape.nodes[kn].out)->ndim != 2 ||
                                          tt__x_meta(p, tt__node_in(g, &g->tape.nodes[kn], 0))->ndim != 2))
                return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: node %d (%s): exported matmul multiplies two matrices, "
                                 "not batches", p->fn, kn, g->tape.nodes[kn].name);
            if (st->program && tt__program_is_head_relu(g, &g->progs[n->a.i[0]])) {
                st->relu = true;
                st->program = false;
            }
        } else {
            st->kind = TT__XS_PROGRAM;
        }
        if (st->kind == TT__XS_CONV) {
            tt__xconv s = tt__x_conv_of(p, &g->tape.nodes[kn]);
            if (s.OH * s.OW > INT32_MAX || s.C > INT32_MAX || s.O > INT32_MAX)   /* counted in 32 bits */
                return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: node %d (%s) has %D output pixels an image and %D, %D "
                                 "channels: exported convolutions count them in 32 bits", p->fn, kn, g->tape.nodes[kn].name,
                                 s.OH * s.OW, s.C, s.O);
            if (!tt__x_depthwise(&s)) {
                st->unit_bytes = s.C / s.groups * s.KH * s.KW * (int64_t)sizeof(float);
                st->units = s.OH * s.OW;
            }
            if (!(flags & TT_EXPORT_NO_BANDS)) tt__x_try_band(p, st);
            if (st->pool_node >= 0) pos++;
        }
        p->n_steps++;
    }
    return TT_OK;
}

/* What the exporter reads must be f32 (constants may be f16 or bf16: they are written as
   the floats the graph's kernels convert them to), and a kernel's tensors whole buffers. */
static tt_status tt__x_check_value(tt__xplan *p, int v, bool kernel_input) {
    const tt__value *val = &p->g->tape.values[v];
    tt_dtype dt = val->meta.dtype;
    bool data = tt__value_has_data(&p->g->tape.values[tt__x_root(p, v)]);
    if (dt != TT_F32 && !(data && (dt == TT_F16 || dt == TT_BF16)))
        return tt__gfail(p->g, TT_ERR_UNSUPPORTED, "%s: value %%%d is %T: exported code computes in f32 tensors only",
                         p->fn, v, dt);
    if (kernel_input && !tt__x_whole(p, v))
        return tt__gfail(p->g, TT_ERR_UNSUPPORTED, "%s: value %%%d %S is a strided view read by a kernel: exported kernels "
                         "read whole contiguous buffers", p->fn, v, &p->g->rt[v]);
    return TT_OK;
}

/* Where every root is: the caller's inputs and outputs, constants in the order first read,
   the rest in the arena (blocks placed later). An output that is a view not covering its root
   whole, or a value that is also an earlier output, is copied at the end (TT__XL_NONE here). */
static tt_status tt__x_plan_where(tt__xplan *p) {
    tt_graph *g = p->g;
    int i, s, k;
    tt_status st;
    for (i = 0; i < g->tape.n_inputs; i++) {
        p->where[g->tape.inputs[i]] = TT__XL_INPUT;
        p->index[g->tape.inputs[i]] = i;
    }
    for (i = 0; i < g->n_outputs; i++) {
        int v = tt__rv(g, g->outputs[i]), r = tt__x_root(p, v);
        if ((st = tt__x_check_value(p, v, false)) != TT_OK) return st;
        if (g->tape.values[r].kind != TT__V_NODE || p->where[r] != TT__XL_NONE || !tt__x_whole(p, v) ||
            g->rt[v].numel != g->rt[r].numel) continue;
        p->where[r] = TT__XL_OUTPUT;
        p->index[r] = i;
    }
    for (s = 0; s < p->n_steps; s++) {
        const tt__node *n = tt__x_node(p, p->steps[s].pos);
        const tt__node *kn = p->steps[s].op_node >= 0 ? &g->tape.nodes[p->steps[s].op_node] : NULL;
        int n_prog_in = tt__is_fused(n) ? g->progs[n->a.i[0]].n_in : 0;
        for (k = 0; k < n->n_in; k++) {
            int v = tt__node_in(g, n, k), r;
            if (v < 0) continue;
            r = tt__x_root(p, v);
            if ((st = tt__x_check_value(p, v, kn && k >= n_prog_in)) != TT_OK) return st;
            if (p->where[r] == TT__XL_NONE && tt__value_has_data(&g->tape.values[r])) {
                p->where[r] = TT__XL_CONST;
                p->index[r] = p->n_consts++;
            }
        }
    }
    for (s = 0; s < p->n_steps; s++) {
        const int *outs;
        int no = tt__node_outs(g, tt__x_node(p, p->steps[s].pos), &outs);
        if (p->steps[s].pool_node >= 0) { outs = &g->tape.nodes[p->steps[s].pool_node].out; no = 1; }
        for (k = 0; k < no; k++) {
            if ((st = tt__x_check_value(p, outs[k], false)) != TT_OK) return st;
            if (p->where[outs[k]] == TT__XL_NONE) p->where[outs[k]] = TT__XL_ARENA;
        }
    }
    return TT_OK;
}

/* The arena's blocks: one per root in the arena, but that an elementwise program's output
   takes the block of an input dying there (the graph's own rule, tt__can_share). A band-fused
   pool's output is written from its convolution's position on. */
static void tt__x_plan_blocks(tt__xplan *p) {
    tt_graph *g = p->g;
    int s, k, v;
    for (s = 0; s < p->n_steps; s++) {
        const tt__xstep *st = &p->steps[s];
        const tt__node *n = tt__x_node(p, st->pos);
        const int *outs;
        int no = tt__node_outs(g, n, &outs);
        if (st->pool_node >= 0) { outs = &g->tape.nodes[st->pool_node].out; no = 1; }
        for (k = 0; k < no; k++) {
            int b = -1, in;
            v = outs[k];
            if (p->where[v] != TT__XL_ARENA) continue;
            for (in = 0; in < n->n_in && b < 0 && st->kind == TT__XS_PROGRAM; in++) {
                int u = tt__node_in(g, n, in);
                if (u >= 0 && p->where[u] == TT__XL_ARENA && tt__can_share(g, u, v) && p->blast[p->index[u]] == st->pos)
                    b = p->index[u];
            }
            if (b < 0) {
                b = p->n_blocks++;
                p->bfirst[b] = st->pos;
                p->blast[b] = st->pos;
                p->bsize[b] = (int64_t)tt__round_up((size_t)tt__x_meta(p, v)->numel * sizeof(float), TT__X_ALIGN);
            }
            p->index[v] = b;
            p->blast[b] = (int)tt__max64(p->blast[b], g->last[v]);
        }
    }
}

static bool tt__x_alive(const tt__xplan *p, int b, int pos) {
    return p->boff[b] >= 0 && p->bfirst[b] <= pos && pos <= p->blast[b];
}

/* The free gap at pos that starts at `at`: its end (the next block alive there, or the
   arena's end), or -1 when a block alive there covers at. */
static int64_t tt__x_gap_end(const tt__xplan *p, int pos, int64_t at) {
    int64_t end = p->arena_bytes;
    int b;
    for (b = 0; b < p->n_blocks; b++) {
        if (!tt__x_alive(p, b, pos) || p->boff[b] + p->bsize[b] <= at) continue;
        if (p->boff[b] <= at) return -1;
        end = tt__min64(end, p->boff[b]);
    }
    return end;
}

/* Blocks largest first, each at the lowest offset that no placed block with an overlapping
   lifetime holds (the graph's greedy plan). */
static void tt__x_place_blocks(tt__xplan *p) {
    int i, b;
    for (b = 0; b < p->n_blocks; b++) p->boff[b] = -1;
    for (i = 0; i < p->n_blocks; i++) {
        int big = -1;
        int64_t at = 0;
        bool moved = true;
        for (b = 0; b < p->n_blocks; b++)
            if (p->boff[b] < 0 && (big < 0 || p->bsize[b] > p->bsize[big])) big = b;
        while (moved) {                                /* bump past every conflicting placed block */
            moved = false;
            for (b = 0; b < p->n_blocks; b++)
                if (p->boff[b] >= 0 && p->bfirst[b] <= p->blast[big] && p->bfirst[big] <= p->blast[b] &&
                    at < p->boff[b] + p->bsize[b] && p->boff[b] < at + p->bsize[big]) {
                    at = p->boff[b] + p->bsize[b];
                    moved = true;
                }
        }
        p->boff[big] = at;
        p->arena_bytes = tt__max64(p->arena_bytes, at + p->bsize[big]);
    }
}

/* Each step's scratch: first the least it can run with (one band unit: the arena grows for
   it only when no gap holds it), then as many units as the largest gap at its node holds. */
static void tt__x_place_scratch(tt__xplan *p) {
    int s, pass, c;
    for (pass = 0; pass < 2; pass++)
        for (s = 0; s < p->n_steps; s++) {
            tt__xstep *st = &p->steps[s];
            int64_t need = st->fixed_bytes + st->unit_bytes, best_units = 0, tail = 0;
            if (st->unit_bytes == 0) continue;
            for (c = -1; c < p->n_blocks; c++) {       /* the gaps: from 0, or from the end of a block alive here */
                int64_t at = c < 0 ? 0 : p->boff[c] + p->bsize[c], end, units;
                if (c >= 0 && !tt__x_alive(p, c, st->pos)) continue;
                tail = tt__max64(tail, at);
                end = tt__x_gap_end(p, st->pos, at);
                if (end - at < need) continue;
                units = tt__min64(st->units, (end - at - st->fixed_bytes) / st->unit_bytes);
                if (units > best_units) { best_units = units; st->scratch_at = at; }
            }
            if (pass == 0 && best_units == 0)          /* no gap holds one unit: the arena grows */
                p->arena_bytes = tail + (int64_t)tt__round_up((size_t)need, TT__X_ALIGN);
            if (pass == 1) st->band = best_units;
        }
}

/* The whole plan of g exported with flags; TT_OK or g's error. */
static tt_status tt__x_plan(tt__xplan *p, tt_graph *g, const char *fn, unsigned flags) {
    int nv, b;
    tt_status st;
    memset(p, 0, sizeof *p);
    p->g = g;
    p->fn = fn;
    if (!g->compiled || !g->order || !g->root || !g->rt)
        return tt__gfail(g, TT_ERR_STATE, "%s: g is not compiled (tt_graph_compile first)", fn);
    if (g->n_order > 0 && !g->rt[g->tape.nodes[g->order[0]].out].data)
        return tt__gfail(g, TT_ERR_STATE, "%s: g has not run since it was compiled", fn);
    nv = g->tape.n_values;
    p->where = (tt__xwhere *)tt__galloc(g, sizeof(tt__xwhere) * (size_t)nv);
    p->index = (int *)tt__galloc(g, sizeof(int) * (size_t)nv);
    p->bfirst = (int *)tt__galloc(g, sizeof(int) * 2 * (size_t)nv);        /* bfirst, then blast */
    p->steps = (tt__xstep *)tt__galloc(g, sizeof(tt__xstep) * (size_t)(g->n_order + 1));
    p->bsize = (int64_t *)tt__galloc(g, sizeof(int64_t) * 2 * (size_t)nv);  /* bsize, then boff */
    if (!p->where || !p->index || !p->bfirst || !p->steps || !p->bsize) {
        tt__x_plan_free(p);
        return tt__gfail(g, TT_ERR_OOM, "%s: out of memory", fn);
    }
    p->blast = p->bfirst + nv;
    p->boff = p->bsize + nv;
    if ((st = tt__x_plan_steps(p, flags)) != TT_OK || (st = tt__x_plan_where(p)) != TT_OK) {
        tt__x_plan_free(p);
        return st;
    }
    tt__x_plan_blocks(p);
    tt__x_place_blocks(p);
    tt__x_place_scratch(p);
    for (b = 0; b < p->n_blocks; b++) p->arena_bytes = tt__max64(p->arena_bytes, p->boff[b] + p->bsize[b]);
    return TT_OK;
}

TT_API size_t tt_graph_export_arena(tt_graph *g, unsigned flags) {
    tt__xplan p;
    size_t bytes;
    if (!g) return 0;
    if (tt__x_plan(&p, g, "tt_graph_export_arena", flags) != TT_OK) return 0;
    bytes = (size_t)p.arena_bytes;
    tt__x_plan_free(&p);
    return bytes;
}

/* ---- writing name.h and name.c ---------------------------------------------------------- */
#ifndef TT_NO_STDIO

#define TT__X_EXPECT_MAX 64            /* outputs' first values name_selftest compares */
#define TT__X_IDX (TT_MAX_DIMS * 40 + 8)   /* an index expression: " + i7 * <int64>" per dim */

typedef struct tt__xw {
    FILE       *f;
    bool        failed;
    const tt__xplan *p;
    const char *name;                  /* the C prefix */
} tt__xw;

static void tt__xprintf(tt__xw *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(w->f, fmt, ap) < 0) w->failed = true;
    va_end(ap);
}

/* A float as a C literal that reads back as the same float. */
static const char *tt__x_float(float v, char *buf, size_t size) {
    size_t n;
    if (v != v) return "NAN";
    if (v - v != 0.0f) return v > 0 ? "INFINITY" : "(-INFINITY)";
    snprintf(buf, size, "%.9g", (double)v);
    n = strlen(buf);
    if (!strpbrk(buf, ".e") && n + 3 < size) memcpy(buf + n, ".0", 3);
    n = strlen(buf);
    if (n + 2 < size) memcpy(buf + n, "f", 2);
    return buf;
}

/* Where value v's first element is, as C (a float pointer). */
static const char *tt__x_ptr(const tt__xw *w, int v, char *buf, size_t size) {
    const tt__xplan *p = w->p;
    int r;
    long long rel;
    if (v < 0) {                                       /* an absent optional input (a bias) */
        snprintf(buf, size, "NULL");
        return buf;
    }
    r = tt__x_root(p, v);
    rel = (long long)tt__x_rel(p, v);
    switch (p->where[r]) {
    case TT__XL_INPUT:  snprintf(buf, size, "inputs[%d]", p->index[r]); break;
    case TT__XL_OUTPUT: snprintf(buf, size, "outputs[%d]", p->index[r]); break;
    case TT__XL_CONST:  snprintf(buf, size, "%s_c%d", w->name, p->index[r]); break;
    default:            snprintf(buf, size, "(float *)(A + %lld)", (long long)p->boff[p->index[r]]); break;
    }
    if (rel != 0) {                                    /* a view from an element on */
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " + %lld", rel);
    }
    return buf;
}

/* The loops over shape (the elements in order, e their index), each of n_in tensors read at
   idx[k] (broadcast strides st[k]); the body follows, then tt__x_loop_close. */
static void tt__x_loop_open(tt__xw *w, int nd, const int64_t *shape, int n_in, int64_t st[][TT_MAX_DIMS], char idx[][TT__X_IDX]) {
    int64_t contig[TT_MAX_DIMS], numel = 1;
    bool flat = true;
    int d, k;
    for (d = nd - 1; d >= 0; d--) { contig[d] = numel; numel *= shape[d]; }
    for (k = 0; k < n_in; k++) {
        bool same = true, zero = true;
        for (d = 0; d < nd; d++) { same = same && (st[k][d] == contig[d] || shape[d] == 1); zero = zero && st[k][d] == 0; }
        flat = flat && (same || zero);
        strcpy(idx[k], zero ? "0" : same ? "e" : "");
    }
    if (flat) {
        tt__xprintf(w, "        int64_t e;\n        for (e = 0; e < %lld; e++) {\n", (long long)numel);
        return;
    }
    tt__xprintf(w, "        int64_t e");
    for (d = 0; d < nd; d++) tt__xprintf(w, ", i%d", d);
    tt__xprintf(w, ";\n");
    for (d = 0; d < nd; d++) tt__xprintf(w, "        for (i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)shape[d], d);
    tt__xprintf(w, "        {\n            e = i0");
    for (d = 1; d < nd; d++) tt__xprintf(w, " * %lld + i%d", (long long)shape[d], d);
    tt__xprintf(w, ";\n");
    for (k = 0; k < n_in; k++) {
        size_t at = 0;
        if (idx[k][0]) continue;
        for (d = 0; d < nd; d++)
            if (st[k][d] != 0)                         /* at most 40 characters a dim */
                at += (size_t)snprintf(idx[k] + at, TT__X_IDX - at, "%si%d * %lld", at ? " + " : "", d, (long long)st[k][d]);
    }
}

static void tt__x_loop_close(tt__xw *w) { tt__xprintf(w, "        }\n"); }

/* The input a fused node's program reads as input k: the head's result, or a node input. */
static int tt__x_prog_in(const tt__xplan *p, const tt__node *n, int k) {
    const struct tt__program *pr = &p->g->progs[n->a.i[0]];
    return pr->head >= 0 && k == pr->head_input ? pr->outs[pr->head_out] : tt__node_in(p->g, n, k);
}

/* One statement: dst = a unary op's expression (from the op table) of x, with its parameters. */
static void tt__x_emit_unary(tt__xw *w, int op, const char *x, float p0, float p1, const char *dst) {
    char f0[40], f1[40];
    tt__xprintf(w, "            { const float x = %s, p0 = %s, p1 = %s; (void)p0; (void)p1; %s = %s; }\n", x,
                tt__x_float(p0, f0, sizeof f0), tt__x_float(p1, f1, sizeof f1), dst, tt__op_table[op].expr);
}

/* One statement: dst = a binary op's expression of a and b. */
static void tt__x_emit_binary(tt__xw *w, int op, const char *a, const char *b, const char *dst) {
    tt__xprintf(w, "            { const float a = %s, b = %s; %s = %s; }\n", a, b, dst, tt__op_table[op].expr);
}

/* Does a fused node's program write where it reads (over its head's result, or over an input
   dying there)? Then its pointers may not be restrict. */
static bool tt__x_program_in_place(const tt__xplan *p, const tt__node *n) {
    const struct tt__program *pr = &p->g->progs[n->a.i[0]];
    int k, o;
    if (pr->head >= 0) return true;
    for (k = 0; k < pr->n_in; k++) {
        int r = tt__x_root(p, tt__x_prog_in(p, n, k));
        for (o = 0; o < pr->n_out; o++) {
            int ro = tt__x_root(p, pr->outs[o]);
            if (r == ro || (p->where[r] == TT__XL_ARENA && p->where[ro] == TT__XL_ARENA && p->index[r] == p->index[ro]))
                return true;
        }
    }
    return false;
}

/* A fused node's program as one loop: registers are floats, each micro-op one statement
   with its op's expression from the table. */
static void tt__x_emit_program(tt__xw *w, const tt__node *n) {
    const tt__xplan *p = w->p;
    const struct tt__program *pr = &p->g->progs[n->a.i[0]];
    const tt_tensor *o0 = &p->g->rt[pr->outs[0]];
    int64_t st[TT__MAX_OPS][TT_MAX_DIMS];
    char idx[TT__MAX_OPS][TT__X_IDX], buf[96], ra[16], rb[16], rc[16], rd[16], t[16];
    const char *restrict_ = tt__x_program_in_place(p, n) ? "" : "TT__RESTRICT ";   /* lets the compiler vectorize */
    int k, i;
    for (k = 0; k < pr->n_in; k++) {
        int v = tt__x_prog_in(p, n, k);
        tt__broadcast_strides(&p->g->rt[v], o0->ndim, o0->shape, st[k]);
        tt__xprintf(w, "        const float *%sin%d = %s;\n", restrict_, k, tt__x_ptr(w, v, buf, sizeof buf));
    }
    for (k = 0; k < pr->n_out; k++)
        tt__xprintf(w, "        float *%sout%d = %s;\n", restrict_, k, tt__x_ptr(w, pr->outs[k], buf, sizeof buf));
    tt__x_loop_open(w, o0->ndim, o0->shape, pr->n_in, st, idx);
    for (i = 0; i < pr->n_uops; i++) {
        const tt__uop *u = &pr->uops[i];
        snprintf(ra, sizeof ra, "r%d", u->a);
        snprintf(rb, sizeof rb, "r%d", u->b);
        snprintf(rc, sizeof rc, "r%d", u->c);
        snprintf(rd, sizeof rd, "r%d", u->dst);
        snprintf(t, sizeof t, "t%d", u->dst);
        switch ((tt__ukind)u->kind) {
        case TT__U_LOAD:   tt__xprintf(w, "            const float r%d = in%d[%s];\n", u->dst, u->a, idx[u->a]); break;
        case TT__U_UNARY:
            tt__xprintf(w, "            float %s;\n", rd);
            tt__x_emit_unary(w, u->op, ra, u->p0, u->p1, rd);
            break;
        case TT__U_BINARY:
            tt__xprintf(w, "            float %s;\n", rd);
            tt__x_emit_binary(w, u->op, ra, rb, rd);
            break;
        case TT__U_PAIR:                               /* (a op b) op2 c, or c op2 (a op b): rounded in turn */
            tt__xprintf(w, "            float %s, %s;\n", t, rd);
            tt__x_emit_binary(w, u->op, ra, rb, t);
            tt__x_emit_binary(w, u->op2, u->swap ? rc : t, u->swap ? t : rc, rd);
            break;
        case TT__U_WHERE:
            tt__xprintf(w, "            const float r%d = r%d != 0.0f ? r%d : r%d;\n", u->dst, u->c, u->a, u->b);
            break;
        case TT__U_CAST:
            if (u->op == TT_F32) tt__xprintf(w, "            const float r%d = r%d;\n", u->dst, u->a);
            else tt__xprintf(w, "            float r%d;\n            tt__cast_chunk(&r%d, &r%d, 1, (tt_dtype)%d);\n", u->dst, u->dst,
                             u->a, u->op);
            break;
        case TT__U_STORE:  tt__xprintf(w, "            out%d[e] = r%d;\n", u->b, u->a); break;
        default: break;
        }
    }
    tt__x_loop_close(w);
}

/* One unary or binary node as a loop: its op's expression from the table, as the executor's
   chunk kernels compute it. */
static void tt__x_emit_ewise(tt__xw *w, const tt__node *n) {
    const tt__xplan *p = w->p;
    const tt_tensor *o = tt__x_meta(p, n->out);
    int64_t st[2][TT_MAX_DIMS];
    char idx[2][TT__X_IDX], buf[96], a[TT__X_IDX + 16], b[TT__X_IDX + 16];
    int k;
    for (k = 0; k < n->n_in && k < 2; k++) {
        int v = tt__node_in(p->g, n, k);
        tt__broadcast_strides(&p->g->rt[v], o->ndim, o->shape, st[k]);
        tt__xprintf(w, "        const float *in%d = %s;\n", k, tt__x_ptr(w, v, buf, sizeof buf));
    }
    tt__xprintf(w, "        float *out0 = %s;\n", tt__x_ptr(w, n->out, buf, sizeof buf));
    tt__x_loop_open(w, o->ndim, o->shape, n->n_in, st, idx);
    snprintf(a, sizeof a, "in0[%s]", idx[0]);
    snprintf(b, sizeof b, "in1[%s]", n->n_in > 1 ? idx[1] : "0");
    if (n->n_in == 1) tt__x_emit_unary(w, n->op, a, n->a.f[0], n->a.f[1], "out0[e]");
    else tt__x_emit_binary(w, n->op, a, b, "out0[e]");
    tt__x_loop_close(w);
}

/* The input k of a step's kernel (a fused node holds its head's inputs after its own). */
static int tt__x_kernel_in(const tt__xplan *p, const tt__xstep *st, int k) {
    const tt__node *n = tt__x_node(p, st->pos);
    int base = tt__is_fused(n) ? p->g->progs[n->a.i[0]].n_in : 0;
    return k < p->g->tape.nodes[st->op_node].n_in ? tt__node_in(p->g, n, base + k) : -1;
}

/* The value a step's kernel writes. */
static int tt__x_kernel_out(const tt__xplan *p, const tt__xstep *st) {
    const tt__node *n = tt__x_node(p, st->pos);
    if (st->pool_node >= 0) return p->g->tape.nodes[st->pool_node].out;
    if (tt__is_fused(n)) return p->g->progs[n->a.i[0]].outs[p->g->progs[n->a.i[0]].head_out];
    return n->out;
}

/* The call of a step's kernel. */
static void tt__x_emit_kernel(tt__xw *w, const tt__xstep *st) {
    const tt__xplan *p = w->p;
    const tt__node *kn = &p->g->tape.nodes[st->op_node];
    const tt_tensor *x = tt__x_meta(p, tt__x_kernel_in(p, st, 0)), *y = tt__x_meta(p, tt__x_kernel_out(p, st));
    char in0[96], in1[96], in2[96], out[96], scratch[64];
    tt__x_ptr(w, tt__x_kernel_in(p, st, 0), in0, sizeof in0);
    tt__x_ptr(w, tt__x_kernel_in(p, st, 1), in1, sizeof in1);
    tt__x_ptr(w, tt__x_kernel_in(p, st, 2), in2, sizeof in2);
    tt__x_ptr(w, tt__x_kernel_out(p, st), out, sizeof out);
    snprintf(scratch, sizeof scratch, st->unit_bytes ? "(float *)(A + %lld)" : "NULL", (long long)st->scratch_at);
    if (st->kind == TT__XS_CONV || st->kind == TT__XS_CONV_MAXPOOL || st->kind == TT__XS_CONV_GAP) {
        tt__xconv s = tt__x_conv_of(p, kn);
        const char *fn = st->kind == TT__XS_CONV ? "tt__x_conv2d" : st->kind == TT__XS_CONV_MAXPOOL ? "tt__x_conv2d_maxpool2"
                                                                                                      : "tt__x_conv2d_gap";
        tt__xprintf(w, "        static const tt__xconv s = {%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
                    "%lld, %lld, %lld, %lld, %lld, %lld, %lld};\n", (long long)s.N, (long long)s.C, (long long)s.H,
                    (long long)s.W, (long long)s.O, (long long)s.KH, (long long)s.KW, (long long)s.OH, (long long)s.OW,
                    (long long)s.sh, (long long)s.sw, (long long)s.ph, (long long)s.pw, (long long)s.dh, (long long)s.dw,
                    (long long)s.groups);
        tt__xprintf(w, "        %s(&s, %s, %s, %s, %d, %s, %lld, %s);\n", fn, in0, in1, in2, st->relu ? 1 : 0, out,
                    (long long)tt__max64(st->band, 1), scratch);
    } else if (st->kind == TT__XS_POOL) {
        tt__pool_job j;
        tt__pool_job_init(&j, kn->op, &kn->a, x, y);
        tt__xprintf(w, "        static const tt__pool_job j = {NULL, NULL, {%lld, %lld, %lld}, {%lld, %lld, %lld}, {%lld, %lld, %lld}, "
                    "{%lld, %lld, %lld}, {%lld, %lld, %lld}, {%lld, %lld, %lld}, %d, %d};\n",
                    (long long)j.in[0], (long long)j.in[1], (long long)j.in[2], (long long)j.out[0], (long long)j.out[1],
                    (long long)j.out[2], (long long)j.k[0], (long long)j.k[1], (long long)j.k[2], (long long)j.s[0],
                    (long long)j.s[1], (long long)j.s[2], (long long)j.p[0], (long long)j.p[1], (long long)j.p[2],
                    (long long)j.d[0], (long long)j.d[1], (long long)j.d[2], j.is_max ? 1 : 0, j.exclude_pad ? 1 : 0);
        tt__xprintf(w, "        tt__x_pool(&j, %lld, %s, %s);\n", (long long)(x->shape[0] * x->shape[1]), in0, out);
    } else if (st->kind == TT__XS_ADAPTIVE) {
        tt__xprintf(w, "        tt__x_adaptive_avg(%s, %s, %lld, %lld, %lld, %lld, %lld);\n", in0, out,
                    (long long)(x->shape[0] * x->shape[1]), (long long)x->shape[2], (long long)x->shape[3],
                    (long long)y->shape[2], (long long)y->shape[3]);
    } else if (st->kind == TT__XS_LINEAR) {
        int64_t N = y->shape[y->ndim - 1], K = x->shape[x->ndim - 1];
        tt__xprintf(w, "        tt__x_linear(%s, %s, %s, %d, %s, %lld, %lld, %lld);\n", in0, in1, in2, st->relu ? 1 : 0, out,
                    (long long)(N ? y->numel / N : 0), (long long)N, (long long)K);
    } else if (st->kind == TT__XS_SOFTMAX || st->kind == TT__XS_REDUCE || st->kind == TT__XS_NORM) {
        int64_t K = tt__x_row_len(p, kn), M = K ? x->numel / K : 0;
        char f0[40];
        if (st->kind == TT__XS_SOFTMAX)
            tt__xprintf(w, "        tt__x_softmax(%s, %s, %lld, %lld, %d);\n", in0, out, (long long)M, (long long)K,
                        kn->op == TT__OP_LOG_SOFTMAX);
        else if (st->kind == TT__XS_REDUCE)
            tt__xprintf(w, "        tt__x_reduce(%d /* %s */, %s, %s, %lld, %lld, %lld);\n", kn->op, tt__op_table[kn->op].name, in0,
                        out, (long long)M, (long long)K, (long long)kn->a.i[2]);
        else
            tt__xprintf(w, "        tt__x_norm(%s, %s, %s, %s, %lld, %lld, %s, %d);\n", in0, in1,
                        kn->op == TT__OP_LAYER_NORM ? in2 : "NULL", out, (long long)M, (long long)K,
                        tt__x_float(kn->a.f[0], f0, sizeof f0), kn->op == TT__OP_RMS_NORM);
    } else {                                           /* matmul of two matrices (checked in the plan) */
        if (st->relu) tt__xprintf(w, "        static const tt__epilogue relu = {NULL, TT__BIAS_NONE, 1, {0, 0.0f, 0.0f}};\n");
        tt__xprintf(w, "        tt__x_gemm(%lld, %lld, %lld, %s, %lld, 1, %s, %lld, 1, %s, %lld, %s);\n", (long long)y->shape[0],
                    (long long)y->shape[1], (long long)x->shape[1], in0, (long long)x->shape[1], in1, (long long)y->shape[1],
                    out, (long long)y->shape[1], st->relu ? "&relu" : "NULL");
    }
}

/* A comment naming what a step runs: the node as tt_graph_str prints its op. */
static void tt__x_emit_comment(tt__xw *w, const tt__xstep *st) {
    const tt__xplan *p = w->p;
    const tt__node *n = tt__x_node(p, st->pos);
    char shape[96];
    tt__xprintf(w, "    {   /* node %d: %s", p->g->order[st->pos], tt__op_table[n->op].name);
    if (tt__is_fused(n)) {
        const struct tt__program *pr = &p->g->progs[n->a.i[0]];
        int m;
        tt__xprintf(w, " {%s", pr->head >= 0 ? tt__op_table[p->g->tape.nodes[pr->head].op].name : "");
        for (m = 0; m < pr->n_members; m++)
            tt__xprintf(w, "%s%s", m || pr->head >= 0 ? " | " : "", tt__op_table[p->g->tape.nodes[pr->members[m]].op].name);
        tt__xprintf(w, "}");
    }
    tt_shape_str(tt__x_meta(p, n->out), shape, sizeof shape);
    tt__xprintf(w, " -> %s", shape);
    if (st->pool_node >= 0) {
        tt_shape_str(tt__x_meta(p, p->g->tape.nodes[st->pool_node].out), shape, sizeof shape);
        tt__xprintf(w, ", band-fused with node %d: %s -> %s (%lld %s%s a band)", st->pool_node,
                    tt__op_table[p->g->tape.nodes[st->pool_node].op].name, shape, (long long)st->band,
                    st->kind == TT__XS_CONV_MAXPOOL ? "pool row" : "pixel", st->band == 1 ? "" : "s");
    } else if (st->unit_bytes) {
        tt__xprintf(w, " (%lld pixel%s a band)", (long long)st->band, st->band == 1 ? "" : "s");
    }
    tt__xprintf(w, " */\n");
}

/* Copies of graph outputs that are not computed in place in the caller's buffer. */
static void tt__x_emit_output_copies(tt__xw *w) {
    const tt__xplan *p = w->p;
    int i;
    for (i = 0; i < p->g->n_outputs; i++) {
        int v = tt__rv(p->g, p->g->outputs[i]), r = tt__x_root(p, v);
        const tt_tensor *t = &p->g->rt[v];
        int64_t st[1][TT_MAX_DIMS];
        char idx[1][TT__X_IDX], buf[96];
        int d;
        if (p->where[r] == TT__XL_OUTPUT && p->index[r] == i) continue;
        for (d = 0; d < t->ndim; d++) st[0][d] = t->shape[d] == 1 ? 0 : t->stride[d];
        tt__xprintf(w, "    {   /* output %d: a copy */\n        const float *in0 = %s;\n", i, tt__x_ptr(w, v, buf, sizeof buf));
        tt__x_loop_open(w, t->ndim, t->shape, 1, st, idx);
        tt__xprintf(w, "            outputs[%d][e] = in0[%s];\n", i, idx[0]);
        tt__x_loop_close(w);
        tt__xprintf(w, "    }\n");
    }
}

static void tt__x_emit_constants(tt__xw *w) {
    const tt__xplan *p = w->p;
    int c, v;
    for (c = 0; c < p->n_consts; c++) {
        for (v = 0; v < p->g->tape.n_values && !(p->where[v] == TT__XL_CONST && p->index[v] == c); v++) {}
        {
            const tt_tensor *t = tt__saved_data(&p->g->tape.values[v]);
            int64_t idx[TT_MAX_DIMS], i;
            char shape[96], f[40];
            int d;
            memset(idx, 0, sizeof idx);
            tt__xprintf(w, "static const float %s_c%d[%lld] = {   /* %%%d %s */", w->name, c, (long long)tt__max64(t->numel, 1), v,
                        tt_shape_str(t, shape, sizeof shape));
            for (i = 0; i < t->numel; i++) {
                int64_t at = t->offset;
                for (d = 0; d < t->ndim; d++) at += idx[d] * t->stride[d];
                tt__xprintf(w, "%s%s,", i % 8 ? " " : "\n    ", tt__x_float(tt__load(t->data, t->dtype, at), f, sizeof f));
                for (d = t->ndim - 1; d >= 0 && ++idx[d] == t->shape[d]; d--) idx[d] = 0;
            }
            tt__xprintf(w, "%s\n};\n", t->numel ? "" : "0");
        }
    }
}


/* The outputs name_selftest expects: the graph run on the plain C kernels (a copy of it
   loaded from its own .ttg bytes, so g itself is untouched) on tt__x_fill's inputs. Fills
   expect (up to TT__X_EXPECT_MAX values per output) and the hash of every output. */
static tt_status tt__x_expected(const tt__xplan *p, const char *fn, float *expect, uint32_t *hash) {
    tt_graph *g = p->g, *copy = NULL;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *ctx;
    tt_tensor **in;
    size_t size = tt_graph_save_memory(g, NULL, 0);
    void *bytes = size ? tt__heap_alloc(&g->tape.alloc, size) : NULL;
    tt_status st = TT_ERR_OOM;
    int i, at = 0;
    d.allocator = g->tape.alloc;
    d.isa = "scalar";
    d.n_threads = 1;
    ctx = bytes ? tt_ctx_create(&d) : NULL;
    in = ctx ? (tt_tensor **)tt__alloc(ctx, fn, sizeof(tt_tensor *) * (size_t)(g->tape.n_inputs + 1)) : NULL;
    if (in && tt_graph_save_memory(g, bytes, size) == size) copy = tt_graph_load_memory(ctx, bytes, size);
    for (i = 0; copy && i < g->tape.n_inputs; i++) {
        const tt_tensor *m = &g->tape.values[g->tape.inputs[i]].meta;
        in[i] = tt_empty(ctx, TT_F32, m->ndim, m->shape);
        if (in[i]) tt__x_fill((float *)tt__ptr(in[i]), in[i]->numel, (uint32_t)i);
    }
    *hash = 2166136261u;
    if (copy && tt_graph_run(copy, in, g->tape.n_inputs) == TT_OK) {
        for (i = 0; i < g->n_outputs; i++) {
            tt_tensor *y = tt_contiguous(ctx, tt_graph_output(copy, i));
            if (!y) break;
            *hash = tt__x_hash(*hash, (const float *)tt__ptr(y), y->numel);
            memcpy(expect + at, tt__ptr(y), sizeof(float) * (size_t)tt__min64(y->numel, TT__X_EXPECT_MAX));
            at += (int)tt__min64(y->numel, TT__X_EXPECT_MAX);
        }
        st = i == g->n_outputs ? TT_OK : TT_ERR_OOM;
    }
    if (st != TT_OK) tt__gfail(g, st, "%s: running the graph for name_selftest's outputs failed: %s", fn,
                               copy ? tt_graph_error(copy) : ctx ? tt_error(ctx) : "out of memory");
    tt_graph_destroy(copy);
    tt_ctx_destroy(ctx);
    tt__heap_free(&g->tape.alloc, bytes);
    return st;
}

/* Numbers of floats of input or output i (as their values hold them). */
static int64_t tt__x_io_numel(const tt__xplan *p, bool output, int i) {
    return tt__x_meta(p, output ? tt__rv(p->g, p->g->outputs[i]) : p->g->tape.inputs[i])->numel;
}

/* The number of output values name_selftest compares: up to TT__X_EXPECT_MAX of each. */
static int tt__x_n_expected(const tt__xplan *p) {
    int i, n = 0;
    for (i = 0; i < p->g->n_outputs; i++) n += (int)tt__min64(tt__x_io_numel(p, true, i), TT__X_EXPECT_MAX);
    return n;
}

static void tt__x_emit_header(tt__xw *w, const char *upper, int64_t plain_arena, unsigned flags) {
    const tt__xplan *p = w->p;
    int64_t at = 0;
    char shape[96];
    int i;
    tt__xprintf(w, "/* %s.h - written by tinytrace %s (tt_graph_export_c): a compiled graph as C for firmware.\n"
                "   %s_run computes the graph: inputs and outputs are the caller's f32 buffers (contiguous,\n"
                "   none overlapping another or the arena),\n"
                "   arena %s_ARENA_BYTES = %lld bytes of working memory, 8-byte aligned (with every feature\n"
                "   map whole, no band fusion: %lld B). Returns 0, or -1 when a pointer is NULL.\n",
                w->name, TT_VERSION_STRING, w->name, upper, (long long)p->arena_bytes, (long long)plain_arena);
    if (!(flags & TT_EXPORT_NO_SELFTEST))
        tt__xprintf(w, "   %s_selftest(work) runs it on fixed inputs in work (%s_SELFTEST_BYTES: the arena, then\n"
                    "   each input and each output, output i at byte %s_OUTPUTi_AT) and returns 0 when the outputs'\n"
                    "   bits equal the host's, 1 when they agree within 1e-5 relative (another libm, or\n"
                    "   TT_FLOAT_ACCUM), -1 when not; %s_expected holds the host's first outputs.\n",
                    w->name, upper, upper, w->name);
    tt__xprintf(w, "*/\n#ifndef %s_H\n#define %s_H\n\n#define %s_ARENA_BYTES %lldu\n", upper, upper, upper, (long long)p->arena_bytes);
    tt__xprintf(w, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", upper, p->g->tape.n_inputs, upper, p->g->n_outputs);
    at = p->arena_bytes;
    for (i = 0; i < p->g->tape.n_inputs; i++) {
        const tt__value *val = &p->g->tape.values[p->g->tape.inputs[i]];
        at += (int64_t)tt__round_up((size_t)val->meta.numel * 4, 8);
        tt__xprintf(w, "#define %s_INPUT%d_FLOATS %lld   /* '%s' %s */\n", upper, i, (long long)val->meta.numel, val->name,
                    tt_shape_str(&val->meta, shape, sizeof shape));
    }
    for (i = 0; i < p->g->n_outputs; i++) {
        tt__xprintf(w, "#define %s_OUTPUT%d_FLOATS %lld   /* %s */\n", upper, i, (long long)tt__x_io_numel(p, true, i),
                    tt_shape_str(tt__x_meta(p, tt__rv(p->g, p->g->outputs[i])), shape, sizeof shape));
        if (!(flags & TT_EXPORT_NO_SELFTEST)) tt__xprintf(w, "#define %s_OUTPUT%d_AT %lldu\n", upper, i, (long long)at);
        at += (int64_t)tt__round_up((size_t)tt__x_io_numel(p, true, i) * 4, 8);
    }
    if (!(flags & TT_EXPORT_NO_SELFTEST))
        tt__xprintf(w, "#define %s_SELFTEST_BYTES %lldu\n#define %s_EXPECTED_FLOATS %d\n", upper, (long long)at, upper,
                    tt__max64(tt__x_n_expected(p), 1));
    tt__xprintf(w, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                "int %s_run(const float *const *inputs, float *const *outputs, void *arena);\n", w->name);
    if (!(flags & TT_EXPORT_NO_SELFTEST))
        tt__xprintf(w, "int %s_selftest(void *work);\nextern const float %s_expected[%s_EXPECTED_FLOATS];\n", w->name, w->name,
                    upper);
    tt__xprintf(w, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

static void tt__x_emit_selftest(tt__xw *w, const char *upper, const float *expect, uint32_t hash) {
    const tt__xplan *p = w->p;
    int i, n = tt__x_n_expected(p);
    char f[40];
    tt__xprintf(w, "\n/* What the host computed for tt__x_fill's inputs: the outputs' first values (their hash below). */\n"
                "const float %s_expected[%s_EXPECTED_FLOATS] = {", w->name, upper);
    for (i = 0; i < n; i++) tt__xprintf(w, "%s%s,", i % 6 ? " " : "\n    ", tt__x_float(expect[i], f, sizeof f));
    tt__xprintf(w, "%s\n};\n\nint %s_selftest(void *work) {\n    unsigned char *at;\n"
                "    const float *in[%d];\n    float *out[%d];\n    uint32_t hash = 2166136261u;\n    int n = 0;\n"
                "    bool close = true;\n    if (!work) return -1;\n    at = (unsigned char *)work + %s_ARENA_BYTES;\n",
                n ? "" : "0", w->name,
                tt__max64(p->g->tape.n_inputs, 1), tt__max64(p->g->n_outputs, 1), upper);
    for (i = 0; i < p->g->tape.n_inputs; i++)
        tt__xprintf(w, "    tt__x_fill((float *)at, %lld, %du);\n    in[%d] = (const float *)at;\n    at += %lld;\n",
                    (long long)tt__x_io_numel(p, false, i), i, i, (long long)tt__round_up((size_t)tt__x_io_numel(p, false, i) * 4, 8));
    for (i = 0; i < p->g->n_outputs; i++)
        tt__xprintf(w, "    out[%d] = (float *)at;\n    at += %lld;\n", i, (long long)tt__round_up((size_t)tt__x_io_numel(p, true, i) * 4, 8));
    tt__xprintf(w, "    if (%s_run(in, out, work) != 0) return -1;\n", w->name);
    for (i = 0; i < p->g->n_outputs; i++) {
        int64_t m = tt__x_io_numel(p, true, i), c = tt__min64(m, TT__X_EXPECT_MAX);
        tt__xprintf(w, "    hash = tt__x_hash(hash, out[%d], %lld);\n", i, (long long)m);
        tt__xprintf(w, "    close = close && tt__x_close(out[%d], %s_expected + n, %lld);\n    n += %lld;\n", i, w->name, (long long)c,
                    (long long)c);
    }
    tt__xprintf(w, "    (void)n;\n    return hash == %luu ? 0 : close ? 1 : -1;\n}\n", (unsigned long)hash);
}

/* name must be a C identifier (it prefixes every name the files define). */
static bool tt__x_name_ok(const char *name) {
    size_t i, n = strlen(name);
    if (n == 0 || n > 64 || (name[0] >= '0' && name[0] <= '9')) return false;
    for (i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

static tt_status tt__x_write_c(tt__xw *w, const char *upper, unsigned flags, const float *expect, uint32_t hash) {
    const tt__xplan *p = w->p;
    int s;
    tt__xprintf(w, "/* %s.c - written by tinytrace %s (tt_graph_export_c) from a compiled graph of %d node%s: the\n"
                "   constants (static const: they stay in flash) and %s_run, one call per node into tinytrace's\n"
                "   plain C kernels, each fused elementwise chain one loop. Build with tinytrace.h on the include\n"
                "   path, -ffunction-sections -fdata-sections -Wl,--gc-sections: it compiles the header's\n"
                "   implementation privately (TT_STATIC), and the linker keeps only what %s_run calls. */\n"
                "#define TT_STATIC\n"
                "/* This copy of the header needs no threads, no stdio, no heap and only the plain C kernels. */\n"
                "#ifndef TT_NO_THREADS\n#define TT_NO_THREADS\n#endif\n#ifndef TT_NO_STDIO\n#define TT_NO_STDIO\n#endif\n"
                "#ifndef TT_NO_MALLOC\n#define TT_NO_MALLOC\n#endif\n#ifndef TT_NO_SIMD\n#define TT_NO_SIMD\n#endif\n"
                "#define TINYTRACE_IMPLEMENTATION\n#include \"tinytrace.h\"\n#include \"%s.h\"\n\n"
                "#if TT_VERSION_MAJOR != %d || TT_VERSION_MINOR != %d\n"
                "#error \"%s.c calls the kernels of tinytrace %s: export the graph again with this header\"\n#endif\n\n",
                w->name, TT_VERSION_STRING, p->g->n_order, p->g->n_order == 1 ? "" : "s", w->name, w->name, w->name,
                TT_VERSION_MAJOR, TT_VERSION_MINOR,
                w->name, TT_VERSION_STRING);
    tt__x_emit_constants(w);
    tt__xprintf(w, "\nTT__NO_CONTRACT int %s_run(const float *const *inputs, float *const *outputs, void *arena) {\n"
                "    TT__NO_CONTRACT_BODY               /* sums round as the graph's kernels round them */\n"
                "    unsigned char *A = (unsigned char *)arena;\n"
                "    if (!inputs || !outputs%s) return -1;\n    (void)A;\n", w->name, p->arena_bytes ? " || !arena" : "");
    for (s = 0; s < p->n_steps; s++) {
        const tt__xstep *st = &p->steps[s];
        tt__x_emit_comment(w, st);
        if (st->op_node >= 0) tt__x_emit_kernel(w, st);
        if (st->program) tt__x_emit_program(w, tt__x_node(p, st->pos));
        if (st->kind == TT__XS_EWISE) tt__x_emit_ewise(w, tt__x_node(p, st->pos));
        tt__xprintf(w, "    }\n");
    }
    tt__x_emit_output_copies(w);
    tt__xprintf(w, "    return 0;\n}\n");
    if (!(flags & TT_EXPORT_NO_SELFTEST)) tt__x_emit_selftest(w, upper, expect, hash);
    return TT_OK;
}

/* dir/name + ext as a path in buf; false when it does not fit. */
static bool tt__x_path(char *buf, size_t size, const char *dir, const char *name, const char *ext) {
    int n = snprintf(buf, size, "%s%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "", name, ext);
    return n > 0 && (size_t)n < size;
}

/* Writes one of the two files; ok false (with g's error) when it cannot. */
static tt_status tt__x_write_file(tt__xw *w, const char *dir, const char *ext, const char *upper, unsigned flags,
                                  int64_t plain_arena, const float *expect, uint32_t hash) {
    const char *fn = w->p->fn;
    char path[4096];
    if (!tt__x_path(path, sizeof path, dir, w->name, ext))
        return tt__gfail(w->p->g, TT_ERR_ARG, "%s: dir '%s' is too long", fn, dir);
    w->f = fopen(path, "w");
    if (!w->f) return tt__gfail(w->p->g, TT_ERR_IO, "%s: cannot open '%s' for writing", fn, path);
    w->failed = false;
    if (ext[1] == 'h') tt__x_emit_header(w, upper, plain_arena, flags);
    else tt__x_write_c(w, upper, flags, expect, hash);
    if (fclose(w->f) != 0) w->failed = true;
    return w->failed ? tt__gfail(w->p->g, TT_ERR_IO, "%s: writing '%s' failed (disk full?)", fn, path) : TT_OK;
}

static tt_status tt__x_export(tt_graph *g, const char *fn, const char *dir, const char *name, unsigned flags) {
    tt__xplan p, plain;
    tt__xw w;
    char upper[72];
    float *expect = NULL;
    uint32_t hash = 0;
    tt_status st;
    size_t i;
    if (!g) return TT_ERR_ARG;
    if (!dir || !name) return tt__gfail(g, TT_ERR_ARG, "%s: %s is NULL", fn, dir ? "name" : "dir");
    if (!tt__x_name_ok(name))
        return tt__gfail(g, TT_ERR_ARG, "%s: name '%s' is not a C identifier of at most 64 characters", fn, name);
    if (flags & ~(TT_EXPORT_NO_BANDS | TT_EXPORT_NO_SELFTEST))
        return tt__gfail(g, TT_ERR_ARG, "%s: flags has unknown bits (%D), expected TT_EXPORT_* bits", fn, (int64_t)flags);
    if ((st = tt__x_plan(&plain, g, fn, flags | TT_EXPORT_NO_BANDS)) != TT_OK) return st;
    if ((st = tt__x_plan(&p, g, fn, flags)) != TT_OK) { tt__x_plan_free(&plain); return st; }
    for (i = 0; i <= strlen(name); i++) upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
    if (!(flags & TT_EXPORT_NO_SELFTEST)) {
        expect = (float *)tt__galloc(g, sizeof(float) * (size_t)(tt__x_n_expected(&p) + 1));
        st = expect ? tt__x_expected(&p, fn, expect, &hash) : tt__gfail(g, TT_ERR_OOM, "%s: out of memory", fn);
    }
    w.p = &p;
    w.name = name;
    if (st == TT_OK) st = tt__x_write_file(&w, dir, ".h", upper, flags, plain.arena_bytes, expect, hash);
    if (st == TT_OK) st = tt__x_write_file(&w, dir, ".c", upper, flags, plain.arena_bytes, expect, hash);
    tt__heap_free(&g->tape.alloc, expect);
    tt__x_plan_free(&p);
    tt__x_plan_free(&plain);
    return st;
}

TT_API tt_status tt_graph_export_c(tt_graph *g, const char *dir, const char *name) {
    return tt__x_export(g, "tt_graph_export_c", dir, name, 0);
}

TT_API tt_status tt_graph_export_c_flags(tt_graph *g, const char *dir, const char *name, unsigned flags) {
    return tt__x_export(g, "tt_graph_export_c_flags", dir, name, flags);
}
#endif /* TT_NO_STDIO */

/* ==========================================================================
 * >>debug   printing
 * ========================================================================== */
#ifndef TT_NO_STDIO
TT_API void tt_print(const tt_tensor *t, const char *name) {
    char shape[16 * TT_MAX_DIMS];
    int64_t i, n;
    if (!t) { printf("%s: (null tensor)\n", name ? name : "tensor"); return; }
    n = t->numel < 64 ? t->numel : 64;
    printf("%s: %s %s = [", name ? name : "tensor", tt_dtype_name(t->dtype), tt_shape_str(t, shape, sizeof shape));
    for (i = 0; i < n; i++) printf("%s%.6g", i ? ", " : "", (double)tt__load(t->data, t->dtype, tt__offset_of(t, i)));
    printf("%s]\n", t->numel > n ? ", ..." : "");
}

TT_API void tt_graph_print(const tt_graph *g) {
    size_t need;
    char *text;
    int i;
    if (!g) { printf("(null graph)\n"); return; }
    need = tt_graph_str(g, NULL, 0);
    text = (char *)tt__heap_alloc(&g->tape.alloc, need);
    if (text) {
        tt_graph_str(g, text, need);
        fputs(text, stdout);
        tt__heap_free(&g->tape.alloc, text);
    }
    if (g->compiled) {
        tt_graph_stats st = tt_graph_get_stats(g);
        printf("stats: %d nodes (%d traced), %d fused, arena %llu bytes, kernels %s\n", st.nodes, st.nodes_traced,
               st.fused_nodes, (unsigned long long)st.arena_bytes, st.isa);
    }
    for (i = 0; i < tt_graph_num_warnings(g); i++) printf("warning: %s\n", tt_graph_warning(g, i));
}
#endif

#endif /* TINYTRACE_IMPLEMENTATION */

/* ==========================================================================
 * >>license
 * --------------------------------------------------------------------------
 * This software is available under 2 licenses -- choose whichever you prefer.
 * --------------------------------------------------------------------------
 * ALTERNATIVE A - MIT License
 * Copyright (c) 2026 the tinytrace authors
 * Permission is hereby granted, free of charge, to any person obtaining a copy of
 * this software and associated documentation files (the "Software"), to deal in
 * the Software without restriction, including without limitation the rights to
 * use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
 * of the Software, and to permit persons to whom the Software is furnished to do
 * so, subject to the following conditions:
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 * --------------------------------------------------------------------------
 * ALTERNATIVE B - Public Domain (www.unlicense.org)
 * This is free and unencumbered software released into the public domain.
 * Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
 * software, either in source code form or as a compiled binary, for any purpose,
 * commercial or non-commercial, and by any means.
 * In jurisdictions that recognize copyright laws, the author or authors of this
 * software dedicate any and all copyright interest in the software to the public
 * domain. We make this dedication for the benefit of the public at large and to
 * the detriment of our heirs and successors. We intend this dedication to be an
 * overt act of relinquishment in perpetuity of all present and future rights to
 * this software under copyright law.
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
 * ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
 * WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 * ========================================================================== */
