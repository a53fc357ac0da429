/* tinytrace_cuda.cu - the CUDA backend of tinytrace: the same compiled graphs on NVIDIA GPUs.

   BUILD
     nvcc -O3 -fmad=false -c tinytrace_cuda.cu -I. -o tinytrace_cuda.o   (add -arch=sm_80 etc.;
       -fmad=false: a*b+c rounds twice, as the CPU's expressions; CUDA 12 or newer)
     cc -DTT_CUDA my_program.c tinytrace_cuda.o -lcudart -lm -lpthread   (the program defines
     TINYTRACE_IMPLEMENTATION in one file as usual; TT_CUDA declares the tt_cuda_* calls)
   The only dependency it adds is the CUDA runtime: no cuBLAS, no cuDNN, no NVRTC.

   HOW IT PLUGS IN
     This file compiles tinytrace.h privately (TT_STATIC) to see the graph's internals: the
     nodes, the fused micro-op programs, the memory plan. tt_graph_to_cuda replaces a compiled
     graph's backend (tt__backend, >>graph) with the one below: the arena becomes one device
     allocation at the same offsets, the constants are uploaded once, the micro-op programs
     too. A run walks the same node order as the CPU (tt__graph_exec), and each node becomes a
     kernel launch on the graph's stream; in TT_MODE_REDUCE_OVERHEAD the first run is captured
     as a CUDA graph and the later runs replay it.

   KERNELS (one family per section below; every op a compiled graph can hold has one)
     program    every elementwise node and fused chain: the micro-op interpreter, whose cases
                are the rows of TT__UNARY_OPS / TT__BINARY_OPS (the header's own expressions,
                compiled for the device: TT__MATH)
     copy       strided copies (concat, stack, flip, outputs given as views), fills, tile and
                repeat_interleave, gather / index_select / embedding, padding of every mode
     rows       reductions (sum, mean, max, min, prod, var, std, argmax, argmin), softmax,
                log_softmax, layer, RMS and group norm: one block per row, warp shuffles, then
                one fixed tree: the same bits every run (no atomics in any sum); batch norm
     gemm       matmul and linear (64x64 tiles in shared memory, 4x4 per thread), conv2d and
                conv1d as implicit GEMM (the im2col never exists), bias and ReLU in the
                epilogue; direct convolution for depthwise and small groups; conv3d and
                transposed convolution direct
     pool       max and average pooling (1-3 spatial axes), adaptive average pooling, nearest
                and bilinear resizing
     attention  scaled dot-product attention: one block per query row, keys in chunks
   Data is read in its dtype and converted on load (f16, bf16, i32 as the CPU converts them),
   but for the few kernels that read f32 only (ttc_needs_f32): a graph with such a node in
   another dtype is TT_ERR_UNSUPPORTED, naming it, and stays on the CPU.

   TESTED WITHOUT A GPU
     Built with -DTT_CUDA_EMU_HEADER='"cuda_emu.h"' this file is plain C++ and its kernels
     run on the CPU through tests/cuda_emu.h (threads of a block as fibers, real barriers,
     warp shuffles): tests/test_cuda.c compares every kernel and whole graphs with the CPU. */

#if defined(TT_CUDA_EMU_HEADER)
#include TT_CUDA_EMU_HEADER
#define TTC_LAUNCH(kernel, grid, block, stream, ...) TTEMU_LAUNCH(kernel, grid, block, stream, __VA_ARGS__)
#else
#include <cuda_runtime.h>
#define TTC_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#endif

#define TT_STATIC                      /* a private copy of the implementation */
#define TT_NO_SIMD                     /* its CPU kernels are not used here */
#define TT_CUDA
#define TINYTRACE_IMPLEMENTATION
#include "tinytrace.h"

#include <stdio.h>

/* ==========================================================================
 * device helpers: dtypes, indices
 * ========================================================================== */

#define TTC_THREADS 256                /* threads per block of every kernel */
#ifndef TTC_MAX_BLOCKS
#define TTC_MAX_BLOCKS 65535           /* grid-stride loops past this (the tests set it small) */
#endif

/* A tensor as a kernel sees it: the address of element (0,...,0) and strides (elements) on
   the loop's axes (0 where it broadcasts). */
typedef struct ttc_view {
    char   *p;
    int     dtype;
    int64_t st[TT_MAX_DIMS];
} ttc_view;

/* The shape a kernel loops over. */
typedef struct ttc_shape {
    int     nd;
    int64_t n[TT_MAX_DIMS];
    int64_t numel;
} ttc_shape;

__device__ __forceinline__ float ttc_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);            /* inf, NaN */
    else if (e != 0) bits = sign | ((e + 112) << 23) | (m << 13);
    else if (m == 0) bits = sign;
    else {                                                            /* subnormal: m * 2^-24 */
        f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    memcpy(&f, &bits, 4);
    return f;
}

/* Round to nearest even, as tt_f32_to_f16. */
__device__ __forceinline__ uint16_t ttc_f32_to_f16(float f) {
    uint32_t x, sign, ax;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);           /* NaN */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);          /* rounds to inf */
    if (ax < 0x38800000u) {                                            /* subnormal or zero */
        float a;
        memcpy(&a, &ax, 4);
        return (uint16_t)(sign | (uint32_t)nearbyintf(a * 16777216.0f));
    }
    {
        uint32_t mant = ax + 0xc8000fffu + ((ax >> 13) & 1u);           /* rebias 127 -> 15, round */
        return (uint16_t)(sign | (mant >> 13));
    }
}

__device__ __forceinline__ float ttc_bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

__device__ __forceinline__ uint16_t ttc_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);   /* quiet NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* float -> i32 toward zero, saturating, NaN -> 0 (tt__to_i32). */
__device__ __forceinline__ int32_t ttc_to_i32(float v) {
    if (v != v) return 0;
    if (v >= 2147483648.0f) return INT32_MAX;
    if (v <= -2147483648.0f) return INT32_MIN;
    return (int32_t)v;
}

__device__ __forceinline__ float ttc_load(const char *p, int dt, int64_t i) {
    switch (dt) {
    case TT_F16:  return ttc_f16_to_f32(((const uint16_t *)p)[i]);
    case TT_BF16: return ttc_bf16_to_f32(((const uint16_t *)p)[i]);
    case TT_I32:  return (float)((const int32_t *)p)[i];
    case TT_BOOL: return ((const uint8_t *)p)[i] != 0 ? 1.0f : 0.0f;   /* any nonzero byte is true */
    default:      return ((const float *)p)[i];
    }
}

__device__ __forceinline__ void ttc_store(char *p, int dt, int64_t i, float v) {
    switch (dt) {
    case TT_F16:  ((uint16_t *)p)[i] = ttc_f32_to_f16(v); break;
    case TT_BF16: ((uint16_t *)p)[i] = ttc_f32_to_bf16(v); break;
    case TT_I32:  ((int32_t *)p)[i] = ttc_to_i32(v); break;
    case TT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v != 0.0f); break;
    default:      ((float *)p)[i] = v; break;
    }
}

/* Data read in any dtype (a GEMM operand, a bias, a row op's x): loads convert to float. */
typedef struct ttc_operand {
    const char *p;
    int         dtype;
} ttc_operand;

__device__ __forceinline__ float ttc_get(ttc_operand o, int64_t i) { return ttc_load(o.p, o.dtype, i); }

/* A bias (a 1-D tensor of any stride), or none (p NULL). */
typedef struct ttc_bias_t {
    ttc_operand o;
    int64_t     stride;
} ttc_bias_t;

__device__ __forceinline__ float ttc_bias_at(ttc_bias_t b, int64_t i) { return ttc_get(b.o, i * b.stride); }

/* What a tensor of dtype dt keeps of v (a cast's round trip). */
__device__ __forceinline__ float ttc_round_trip(int dt, float v) {
    switch (dt) {
    case TT_F16:  return ttc_f16_to_f32(ttc_f32_to_f16(v));
    case TT_BF16: return ttc_bf16_to_f32(ttc_f32_to_bf16(v));
    case TT_I32:  return (float)ttc_to_i32(v);
    case TT_BOOL: return v != 0.0f ? 1.0f : 0.0f;
    default:      return v;
    }
}

/* The element offset of linear index i (row-major over s) in a view with strides st. */
__device__ __forceinline__ int64_t ttc_offset(const ttc_shape *s, const int64_t *st, int64_t i) {
    int64_t off = 0;
    int d;
    for (d = s->nd - 1; d >= 0; d--) {
        int64_t k = i % s->n[d];
        i /= s->n[d];
        off += k * st[d];
    }
    return off;
}

/* The linear index of the current thread and the grid's stride (grid-stride loops). */
__device__ __forceinline__ int64_t ttc_gid(void) { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int64_t ttc_gstride(void) { return (int64_t)gridDim.x * blockDim.x; }

/* ==========================================================================
 * program: the fused elementwise micro-op interpreter
 * ========================================================================== */

/* Each thread runs a program on TTC_PROGRAM_ELEMS elements at once, a block's width apart (so
   a warp's loads and stores stay contiguous): a micro-op is fetched and branched to once for all
   of them. One element at a time, the interpreter was bound by those instructions. */
#define TTC_PROGRAM_ELEMS 4

/* The cases are the expression table's rows: the same C expressions as the CPU kernels, each
   over the thread's elements. */
#define TTC_UNARY_CASE(X_, N, name, n_params, flags, expr) \
    case TT__OP_##N:                                       \
        for (e = 0; e < TTC_PROGRAM_ELEMS; e++) {          \
            float x = in[e];                               \
            out[e] = (expr);                               \
        }                                                  \
        break;
__device__ __forceinline__ void ttc_unary(int op, const float *in, float *out, float p0, float p1) {
    int e;
    (void)p0;
    (void)p1;
    switch (op) {
    TT__UNARY_OPS(TTC_UNARY_CASE, _)
    default: for (e = 0; e < TTC_PROGRAM_ELEMS; e++) out[e] = in[e]; break;
    }
}
#undef TTC_UNARY_CASE

#define TTC_BINARY_CASE(X_, N, name, flags, expr) \
    case TT__OP_##N:                              \
        for (e = 0; e < TTC_PROGRAM_ELEMS; e++) { \
            float a = in_a[e], b = in_b[e];       \
            out[e] = (expr);                      \
        }                                         \
        break;
__device__ __forceinline__ void ttc_binary(int op, const float *in_a, const float *in_b, float *out) {
    int e;
    switch (op) {
    TT__BINARY_OPS(TTC_BINARY_CASE, _)
    default: for (e = 0; e < TTC_PROGRAM_ELEMS; e++) out[e] = in_a[e]; break;
    }
}
#undef TTC_BINARY_CASE

/* Where element i of a program's input is: at i (its layout is the output's, the common
   case), at 0 (a broadcast scalar), or through its strides (divisions per axis). */
enum { TTC_IN_STRIDED = 0, TTC_IN_SAME = 1, TTC_IN_SCALAR = 2 };

typedef struct ttc_program_args {
    const tt__uop *uops;               /* the program, in device memory */
    int            n_uops;
    ttc_shape      shape;              /* every output's shape (contiguous) */
    ttc_view       in[TT__MAX_OPS];    /* inputs, strides broadcast to shape */
    int8_t         in_mode[TT__MAX_OPS];   /* TTC_IN_*: how element i of an input is found */
    char          *out[TT__FUSE_MAX_MEMBERS];
    int            out_dtype[TT__FUSE_MAX_MEMBERS];
} ttc_program_args;

/* Element first + e * step of every output, for each of the thread's elements e below n (the
   last block's elements past the end compute on zeros and store nothing): the program over
   registers, as tt__fused_chunk runs it on the CPU. */
__device__ __forceinline__ void ttc_program_at(const ttc_program_args *a, int64_t first, int64_t step, int n) {
    float r[TT__FUSE_MAX_UOPS][TTC_PROGRAM_ELEMS];
    float t[TTC_PROGRAM_ELEMS];
    int k, e;
    for (k = 0; k < a->n_uops; k++) {
        const tt__uop u = a->uops[k];
        switch (u.kind) {
        case TT__U_LOAD: {
            const ttc_view *v = &a->in[u.a];
            int mode = a->in_mode[u.a];
            for (e = 0; e < TTC_PROGRAM_ELEMS; e++) {
                int64_t i = first + e * step;
                int64_t at = mode == TTC_IN_SAME ? i : mode == TTC_IN_SCALAR ? 0 : ttc_offset(&a->shape, v->st, i);
                r[u.dst][e] = e < n ? ttc_load(v->p, v->dtype, at) : 0.0f;
            }
            break;
        }
        case TT__U_UNARY:  ttc_unary(u.op, r[u.a], r[u.dst], u.p0, u.p1); break;
        case TT__U_BINARY: ttc_binary(u.op, r[u.a], r[u.b], r[u.dst]); break;
        case TT__U_PAIR:
            ttc_binary(u.op, r[u.a], r[u.b], t);
            if (u.swap) ttc_binary(u.op2, r[u.c], t, r[u.dst]);
            else ttc_binary(u.op2, t, r[u.c], r[u.dst]);
            break;
        case TT__U_WHERE:
            for (e = 0; e < TTC_PROGRAM_ELEMS; e++) r[u.dst][e] = r[u.c][e] != 0.0f ? r[u.a][e] : r[u.b][e];
            break;
        case TT__U_CAST:
            for (e = 0; e < TTC_PROGRAM_ELEMS; e++) r[u.dst][e] = u.op == TT_F32 ? r[u.a][e] : ttc_round_trip(u.op, r[u.a][e]);
            break;
        case TT__U_STORE:
            for (e = 0; e < n; e++) ttc_store(a->out[u.b], a->out_dtype[u.b], first + e * step, r[u.a][e]);
            break;
        default: break;
        }
    }
}

/* Kernel parameters go by value: 4 KiB at most on every architecture and toolkit. */
static_assert(sizeof(ttc_program_args) <= 4096, "ttc_program_args: over 4 KiB of kernel parameters (TT_MAX_DIMS?)");

/* A block runs tiles of TTC_PROGRAM_ELEMS x blockDim.x elements, grid-stride. */
__global__ void ttc_k_program(ttc_program_args a) {
    int64_t tile = (int64_t)TTC_PROGRAM_ELEMS * blockDim.x;
    int64_t start;
    for (start = (int64_t)blockIdx.x * tile; start < a.shape.numel; start += (int64_t)gridDim.x * tile) {
        int64_t first = start + threadIdx.x;
        int64_t left = a.shape.numel - first;
        int n = left <= 0 ? 0 : (int)((left + blockDim.x - 1) / blockDim.x);
        ttc_program_at(&a, first, blockDim.x, n < TTC_PROGRAM_ELEMS ? n : TTC_PROGRAM_ELEMS);
    }
}

/* ==========================================================================
 * copy: strided copies (concat, stack, flip, outputs that are views), fills, repeats, gathers,
 *       padding
 * ========================================================================== */

__global__ void ttc_k_copy(ttc_shape s, ttc_view src, ttc_view dst) {
    int64_t i;
    for (i = ttc_gid(); i < s.numel; i += ttc_gstride())
        ttc_store(dst.p, dst.dtype, ttc_offset(&s, dst.st, i), ttc_load(src.p, src.dtype, ttc_offset(&s, src.st, i)));
}

__global__ void ttc_k_fill(char *p, int dtype, int64_t n, float value) {
    int64_t i;
    for (i = ttc_gid(); i < n; i += ttc_gstride()) ttc_store(p, dtype, i, value);
}

/* tile and repeat_interleave: output coordinate o on axis d reads x's o % n (tile) or
   o / reps (repeat_interleave) there; x's strides on the output's axes (0 on axes x lacks). */
typedef struct ttc_repeat {
    ttc_shape shape;
    ttc_view  x;
    int64_t   xn[TT_MAX_DIMS], reps[TT_MAX_DIMS];
    ttc_view  y;
    bool      interleave;
} ttc_repeat;

__global__ void ttc_k_repeat(ttc_repeat p) {
    int64_t i;
    for (i = ttc_gid(); i < p.shape.numel; i += ttc_gstride()) {
        int64_t rest = i, src = 0;
        int d;
        for (d = p.shape.nd - 1; d >= 0; d--) {
            int64_t o = rest % p.shape.n[d];
            rest /= p.shape.n[d];
            src += (p.interleave ? o / p.reps[d] : o % p.xn[d]) * p.x.st[d];
        }
        ttc_store(p.y.p, p.y.dtype, i, ttc_load(p.x.p, p.x.dtype, src));
    }
}

/* Up to TT_MAX_DIMS values known on the host (shape_as_tensor). */
typedef struct ttc_values {
    float v[TT_MAX_DIMS];
} ttc_values;

__global__ void ttc_k_set(char *y, int dtype, int n, ttc_values v) {
    int64_t i;
    for (i = ttc_gid(); i < n; i += ttc_gstride()) ttc_store(y, dtype, i, v.v[i]);
}

/* gather, index_select, embedding: output element i (row-major over s, contiguous) copies the
   element of x whose coordinate on the indexed axis is the index the index view gives for i,
   and whose other coordinates are i's (xs: x's strides on s's axes, 0 on the indexed one).
   An index outside [0, limit) writes zeros and sets *bad (reported by the sync as
   TT_ERR_INDEX): no read out of bounds. */
typedef struct ttc_index {
    ttc_shape shape;
    const char *x;
    char     *y;
    int       elem_bytes;
    int64_t   xs[TT_MAX_DIMS], x_axis_stride, limit;
    const int32_t *index;
    int64_t   is[TT_MAX_DIMS];
    int      *bad;
} ttc_index;

__global__ void ttc_k_index(ttc_index p) {
    int64_t i;
    for (i = ttc_gid(); i < p.shape.numel; i += ttc_gstride()) {
        int64_t v = p.index[ttc_offset(&p.shape, p.is, i)], src = ttc_offset(&p.shape, p.xs, i) + v * p.x_axis_stride;
        int b;
        if (v < 0 || v >= p.limit) {
            for (b = 0; b < p.elem_bytes; b++) p.y[i * p.elem_bytes + b] = 0;
            *p.bad = 1;
            continue;
        }
        for (b = 0; b < p.elem_bytes; b++) p.y[i * p.elem_bytes + b] = p.x[src * p.elem_bytes + b];
    }
}

/* Reflect, replicate and circular padding: each output element copies the element of x that
   the header's tt__pad_source maps it to (any dtype: bytes). */
typedef struct ttc_pad {
    ttc_shape shape;                   /* the output's */
    const char *x;
    char     *y;
    int       elem_bytes, mode;
    int64_t   xs[TT_MAX_DIMS], xn[TT_MAX_DIMS], before[TT_MAX_DIMS];
} ttc_pad;

__global__ void ttc_k_pad(ttc_pad p) {
    int64_t i;
    for (i = ttc_gid(); i < p.shape.numel; i += ttc_gstride()) {
        int64_t rest = i, src = 0;
        int d, b;
        for (d = p.shape.nd - 1; d >= 0; d--) {
            int64_t o = rest % p.shape.n[d];
            rest /= p.shape.n[d];
            src += tt__pad_source(o, p.before[d], p.xn[d], p.mode) * p.xs[d];
        }
        for (b = 0; b < p.elem_bytes; b++) p.y[i * p.elem_bytes + b] = p.x[src * p.elem_bytes + b];
    }
}

/* ==========================================================================
 * rows: reductions, softmax, norms (one block per row, a fixed order), batch norm
 * ========================================================================== */

/* A row op: rows numbered over the outer axes, each row's K elements over the inner axes;
   x's strides on both, and the output's (y). A reduction's output has no inner axes. */
typedef struct ttc_rows {
    ttc_shape outer, inner;
    int64_t   xo[TT_MAX_DIMS], xi[TT_MAX_DIMS];   /* x's strides */
    int64_t   yo[TT_MAX_DIMS], yi[TT_MAX_DIMS];   /* y's strides */
    ttc_operand x;
    float    *y;
    int32_t  *yi32;                               /* argmax/argmin */
    ttc_view  w, b;                               /* norms: weight, bias on the inner axes (p NULL: none) */
    int       op;
    float     eps;
    int64_t   correction;
} ttc_rows;

/* The sum of v over the block, the same in every thread: warp shuffles, then the warps'
   partial sums in order by every thread. A fixed tree: the same bits every run. Sums are in
   double, as the CPU's (tt__wide): a mean of large values keeps its digits. */
__device__ double ttc_block_sum(double v) {
    __shared__ double part[TTC_THREADS / 32];
    int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5), k;
    for (k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
    __syncthreads();                                  /* part[] is free: the last call's readers are done */
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = 0.0f;
    for (k = 0; k < TTC_THREADS / 32; k++) v += part[k];
    return v;
}

/* The same for max (want_max) or min, NaN winning as tt__maxf. */
__device__ float ttc_block_extreme(float v, bool want_max) {
    __shared__ float part[TTC_THREADS / 32];
    int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5), k;
    for (k = 16; k > 0; k >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, k);
        v = want_max ? tt__maxf(v, o) : tt__minf(v, o);
    }
    __syncthreads();
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = part[0];
    for (k = 1; k < TTC_THREADS / 32; k++) v = want_max ? tt__maxf(v, part[k]) : tt__minf(v, part[k]);
    return v;
}

/* Argmax/argmin: is (a, ia) the better candidate than (b, ib)? NaN wins, then the larger
   (smaller) value, then the first index: as tt__reduce_row. */
__device__ __forceinline__ bool ttc_arg_better(float a, int64_t ia, float b, int64_t ib, bool want_max) {
    if (a != a || b != b) return a != a && (b == b || ia < ib);
    if (a != b) return want_max ? a > b : a < b;
    return ia < ib;
}

__device__ int64_t ttc_block_arg(float v, int64_t idx, bool want_max) {
    __shared__ float pv[TTC_THREADS];
    __shared__ int64_t pi[TTC_THREADS];
    int t = (int)threadIdx.x, k;
    __syncthreads();
    pv[t] = v;
    pi[t] = idx;
    __syncthreads();
    for (k = TTC_THREADS / 2; k > 0; k >>= 1) {       /* a tree in shared memory */
        if (t < k && ttc_arg_better(pv[t + k], pi[t + k], pv[t], pi[t], want_max)) {
            pv[t] = pv[t + k];
            pi[t] = pi[t + k];
        }
        __syncthreads();
    }
    return pi[0];
}

__device__ __forceinline__ float ttc_row_x(const ttc_rows *r, int64_t base, int64_t k) {
    return ttc_get(r->x, base + ttc_offset(&r->inner, r->xi, k));
}

/* One row of a reduction. */
__device__ void ttc_reduce_row(const ttc_rows *r, int64_t row) {
    int64_t xb = ttc_offset(&r->outer, r->xo, row), yb = ttc_offset(&r->outer, r->yo, row), K = r->inner.numel, k;
    int t = (int)threadIdx.x, op = r->op;
    double acc, result;
    if (op == TT__OP_ARGMAX || op == TT__OP_ARGMIN) {
        bool want_max = op == TT__OP_ARGMAX;
        float best = 0.0f;
        int64_t bi = INT64_MAX;
        for (k = t; k < K; k += TTC_THREADS) {
            float v = ttc_row_x(r, xb, k);
            if (bi == INT64_MAX || ttc_arg_better(v, k, best, bi, want_max)) { best = v; bi = k; }
        }
        if (bi == INT64_MAX) best = want_max ? -INFINITY : INFINITY;    /* an idle thread loses */
        bi = ttc_block_arg(best, bi, want_max);
        if (t == 0) r->yi32[yb] = (int32_t)bi;
        return;
    }
    if (op == TT__OP_MAX || op == TT__OP_MIN) {
        bool want_max = op == TT__OP_MAX;
        float m = want_max ? -INFINITY : INFINITY;
        for (k = t; k < K; k += TTC_THREADS) {
            float v = ttc_row_x(r, xb, k);
            m = want_max ? tt__maxf(m, v) : tt__minf(m, v);
        }
        result = ttc_block_extreme(m, want_max);
    } else if (op == TT__OP_PROD) {
        __shared__ double part[TTC_THREADS];
        acc = 1.0;
        for (k = t; k < K; k += TTC_THREADS) acc *= ttc_row_x(r, xb, k);
        __syncthreads();
        part[t] = acc;
        __syncthreads();
        result = 1.0;
        for (k = 0; k < TTC_THREADS; k++) result *= part[k];
    } else {
        double mean;
        acc = 0.0;
        for (k = t; k < K; k += TTC_THREADS) acc += ttc_row_x(r, xb, k);
        result = ttc_block_sum(acc);
        mean = result / (double)K;
        if (op == TT__OP_MEAN) result = mean;
        if (op == TT__OP_VAR || op == TT__OP_STD) {
            double dof = (double)K - (double)r->correction;
            acc = 0.0;
            for (k = t; k < K; k += TTC_THREADS) {
                double d = ttc_row_x(r, xb, k) - mean;
                acc += d * d;
            }
            result = ttc_block_sum(acc) / (dof > 0.0 ? dof : 0.0);
            if (op == TT__OP_STD) result = sqrt(result);
        }
    }
    if (t == 0) r->y[yb] = (float)result;
}

static_assert(sizeof(ttc_rows) <= 4096, "ttc_rows: over 4 KiB of kernel parameters (TT_MAX_DIMS?)");

__global__ void ttc_k_reduce(ttc_rows r) {
    int64_t row;
    for (row = blockIdx.x; row < r.outer.numel; row += gridDim.x) ttc_reduce_row(&r, row);
}

/* One row of softmax or log_softmax: the max, the sum of exp(x - max), then the outputs. */
__device__ void ttc_softmax_row(const ttc_rows *r, int64_t row) {
    int64_t xb = ttc_offset(&r->outer, r->xo, row), yb = ttc_offset(&r->outer, r->yo, row), K = r->inner.numel, k;
    int t = (int)threadIdx.x;
    float mx = -INFINITY, inv, lse;
    double sum = 0.0;
    for (k = t; k < K; k += TTC_THREADS) mx = tt__maxf(mx, ttc_row_x(r, xb, k));
    mx = ttc_block_extreme(mx, true);
    for (k = t; k < K; k += TTC_THREADS) sum += tt__expf(ttc_row_x(r, xb, k) - mx);
    sum = ttc_block_sum(sum);
    inv = (float)(1.0 / sum);                          /* as tt__softmax_row */
    lse = mx + (float)log(sum);
    for (k = t; k < K; k += TTC_THREADS) {
        float x = ttc_row_x(r, xb, k);
        float y = r->op == TT__OP_LOG_SOFTMAX ? x - lse : tt__expf(x - mx) * inv;
        r->y[yb + ttc_offset(&r->inner, r->yi, k)] = y;
    }
}

__global__ void ttc_k_softmax(ttc_rows r) {
    int64_t row;
    for (row = blockIdx.x; row < r.outer.numel; row += gridDim.x) ttc_softmax_row(&r, row);
}

/* One row of layer_norm ((x - mean) / sqrt(var + eps) * w + b) or rms_norm
   (x / sqrt(mean(x^2) + eps) * w); w and b start at element ch0 along their axis (group
   norm: the row's group's first channel). */
__device__ void ttc_norm_row(const ttc_rows *r, int64_t row, int64_t ch0) {
    int64_t xb = ttc_offset(&r->outer, r->xo, row), yb = ttc_offset(&r->outer, r->yo, row), K = r->inner.numel, k;
    int t = (int)threadIdx.x;
    bool layer = r->op == TT__OP_LAYER_NORM;
    double mean = 0.0, acc = 0.0;
    float m, rstd;
    if (layer) {
        for (k = t; k < K; k += TTC_THREADS) acc += ttc_row_x(r, xb, k);
        mean = ttc_block_sum(acc) / (double)K;
        acc = 0.0;
    }
    for (k = t; k < K; k += TTC_THREADS) {
        double d = ttc_row_x(r, xb, k) - mean;
        acc += d * d;
    }
    rstd = (float)(1.0 / sqrt(ttc_block_sum(acc) / (double)K + (double)r->eps));
    m = (float)mean;
    for (k = t; k < K; k += TTC_THREADS) {
        float y = (ttc_row_x(r, xb, k) - m) * rstd;
        if (r->w.p) y *= ttc_load(r->w.p, r->w.dtype, ch0 * r->w.st[0] + ttc_offset(&r->inner, r->w.st, k));
        if (r->b.p) y += ttc_load(r->b.p, r->b.dtype, ch0 * r->b.st[0] + ttc_offset(&r->inner, r->b.st, k));
        r->y[yb + ttc_offset(&r->inner, r->yi, k)] = y;
    }
}

__global__ void ttc_k_norm(ttc_rows r) {
    int64_t row;
    for (row = blockIdx.x; row < r.outer.numel; row += gridDim.x) ttc_norm_row(&r, row, 0);
}

/* Rows (n, group) of cg channels each (outer axes: N, then the groups). */
__global__ void ttc_k_group_norm(ttc_rows r, int64_t cg) {
    int64_t row;
    for (row = blockIdx.x; row < r.outer.numel; row += gridDim.x) ttc_norm_row(&r, row, (row % r.outer.n[1]) * cg);
}

/* batch_norm with running statistics: y = (x - mean) * (weight / sqrt(var + eps)) + bias per
   channel (axis 1). The statistics' views have their stride on axis 1 and 0 elsewhere. */
typedef struct ttc_bn {
    ttc_shape shape;
    ttc_view  x, mean, var, w, b;      /* w, b: p NULL when absent */
    float    *y;
    float     eps;
} ttc_bn;

__global__ void ttc_k_batch_norm(ttc_bn p) {
    int64_t i;
    for (i = ttc_gid(); i < p.shape.numel; i += ttc_gstride()) {
        float m = ttc_load(p.mean.p, p.mean.dtype, ttc_offset(&p.shape, p.mean.st, i));
        float v = ttc_load(p.var.p, p.var.dtype, ttc_offset(&p.shape, p.var.st, i));
        float scale = 1.0f / sqrtf(v + p.eps), shift = 0.0f;
        if (p.w.p) scale *= ttc_load(p.w.p, p.w.dtype, ttc_offset(&p.shape, p.w.st, i));
        if (p.b.p) shift = ttc_load(p.b.p, p.b.dtype, ttc_offset(&p.shape, p.b.st, i));
        p.y[i] = (ttc_load(p.x.p, p.x.dtype, ttc_offset(&p.shape, p.x.st, i)) - m) * scale + shift;
    }
}

/* ==========================================================================
 * gemm: matmul, linear, convolution as implicit GEMM; direct, 3-D and transposed convolution
 * ========================================================================== */

#define TTC_TM 64                      /* rows of C per block */
#define TTC_TN 64                      /* columns of C per block */
#define TTC_TK 16                      /* k per shared-memory tile */

/* C[b] = A[b] B[b] (+ bias, ReLU) for a batch of products; A(m,k) and B(k,n) through strides. */
typedef struct ttc_mm {
    ttc_operand a, b;
    ttc_bias_t bias;                   /* per column n */
    float   *c;
    int64_t  M, N, K;
    int64_t  sam, sak, sbk, sbn;
    int      nb;                       /* batch axes */
    int64_t  batch[TT_MAX_DIMS], sab[TT_MAX_DIMS], sbb[TT_MAX_DIMS];
    int64_t  n_batch;
    bool     relu;
} ttc_mm;

/* A convolution as a GEMM per (image, group): A = the group's weights [Og, Cg*KH*KW],
   B = the image's columns [Cg*KH*KW, OH*OW] made on the fly, C = the output plane block. */
typedef struct ttc_conv {
    ttc_operand x, w;
    ttc_bias_t bias;                   /* per output channel */
    float   *y;
    int64_t  N, C, H, W, O, OH, OW, KH, KW, G;
    int64_t  xs[4], ws[4];             /* strides of x and of the weight */
    int      sh, sw, ph, pw, dh, dw;
    bool     relu;
} ttc_conv;

struct ttc_mm_loader {
    int64_t a0, b0;                    /* this batch entry's first elements */
    const ttc_mm *p;
    __device__ float A(int64_t m, int64_t k) const { return ttc_get(p->a, a0 + m * p->sam + k * p->sak); }
    __device__ float B(int64_t k, int64_t n) const { return ttc_get(p->b, b0 + k * p->sbk + n * p->sbn); }
};

struct ttc_conv_loader {
    int64_t x0, w0;                    /* this image and group's first channel; the group's first filter */
    const ttc_conv *p;
    __device__ float A(int64_t m, int64_t k) const {
        int64_t kw = k % p->KW, kh = (k / p->KW) % p->KH, c = k / (p->KW * p->KH);
        return ttc_get(p->w, w0 + m * p->ws[0] + c * p->ws[1] + kh * p->ws[2] + kw * p->ws[3]);
    }
    __device__ float B(int64_t k, int64_t n) const {
        int64_t kw = k % p->KW, kh = (k / p->KW) % p->KH, c = k / (p->KW * p->KH);
        int64_t ih = (n / p->OW) * p->sh - p->ph + kh * p->dh, iw = (n % p->OW) * p->sw - p->pw + kw * p->dw;
        if (ih < 0 || ih >= p->H || iw < 0 || iw >= p->W) return 0.0f;
        return ttc_get(p->x, x0 + c * p->xs[1] + ih * p->xs[2] + iw * p->xs[3]);
    }
};

/* One 64x64 tile of C = A B: the block stages 64x16 of A and 16x64 of B in shared memory;
   thread (tx, ty) accumulates rows ty + 16i and columns tx + 16j (i, j < 4), in k order. */
template <class L>
__device__ void ttc_gemm_tile(const L &ld, int64_t M, int64_t N, int64_t K, int64_t m0, int64_t n0, float acc[4][4]) {
    __shared__ float As[TTC_TK][TTC_TM + 1];
    __shared__ float Bs[TTC_TK][TTC_TN + 1];
    int t = (int)threadIdx.x, tx = t % 16, ty = t / 16, i, j, q;
    int64_t k0;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) acc[i][j] = 0.0f;
    for (k0 = 0; k0 < K; k0 += TTC_TK) {
        for (q = 0; q < 4; q++) {                     /* 1024 elements of each tile, 4 per thread */
            int e = t + q * TTC_THREADS, am = e / TTC_TK, ak = e % TTC_TK, bk = e / TTC_TN, bn = e % TTC_TN;
            As[ak][am] = m0 + am < M && k0 + ak < K ? ld.A(m0 + am, k0 + ak) : 0.0f;
            Bs[bk][bn] = k0 + bk < K && n0 + bn < N ? ld.B(k0 + bk, n0 + bn) : 0.0f;
        }
        __syncthreads();
        for (q = 0; q < TTC_TK; q++) {
            float a[4], b[4];
            for (i = 0; i < 4; i++) a[i] = As[q][ty + 16 * i];
            for (j = 0; j < 4; j++) b[j] = Bs[q][tx + 16 * j];
            for (i = 0; i < 4; i++)
                for (j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
}

/* Row tiles on grid x (up to 2^31: the many rows of a linear), column tiles on y and the
   batch on z, each looping past its grid's limit. */
__global__ void ttc_k_matmul(ttc_mm p) {
    int64_t z, n0, m0 = (int64_t)blockIdx.x * TTC_TM;
    int tx = (int)threadIdx.x % 16, ty = (int)threadIdx.x / 16, i, j, d;
    for (z = blockIdx.z; z < p.n_batch; z += gridDim.z)
    for (n0 = (int64_t)blockIdx.y * TTC_TN; n0 < p.N; n0 += (int64_t)gridDim.y * TTC_TN) {
        int64_t rest = z, oa = 0, ob = 0;
        float acc[4][4];
        ttc_mm_loader ld;
        for (d = p.nb - 1; d >= 0; d--) {
            int64_t k = rest % p.batch[d];
            rest /= p.batch[d];
            oa += k * p.sab[d];
            ob += k * p.sbb[d];
        }
        ld.a0 = oa;
        ld.b0 = ob;
        ld.p = &p;
        ttc_gemm_tile(ld, p.M, p.N, p.K, m0, n0, acc);
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++) {
                int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
                float v = acc[i][j];
                if (m >= p.M || n >= p.N) continue;
                if (p.bias.o.p) v += ttc_bias_at(p.bias, n);
                if (p.relu) v = tt__reluf(v);
                p.c[z * p.M * p.N + m * p.N + n] = v;
            }
    }
}

__global__ void ttc_k_conv_gemm(ttc_conv p) {
    int64_t Og = p.O / p.G, Cg = p.C / p.G, M = Og, N = p.OH * p.OW, K = Cg * p.KH * p.KW, z;
    int64_t m0 = (int64_t)blockIdx.y * TTC_TM, n0 = (int64_t)blockIdx.x * TTC_TN;
    int tx = (int)threadIdx.x % 16, ty = (int)threadIdx.x / 16, i, j;
    for (z = blockIdx.z; z < p.N * p.G; z += gridDim.z) {
        int64_t img = z / p.G, g = z % p.G;
        float acc[4][4];
        ttc_conv_loader ld;
        ld.x0 = img * p.xs[0] + g * Cg * p.xs[1];
        ld.w0 = g * Og * p.ws[0];
        ld.p = &p;
        ttc_gemm_tile(ld, M, N, K, m0, n0, acc);
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++) {
                int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j, o = g * Og + m;
                float v = acc[i][j];
                if (m >= M || n >= N) continue;
                if (p.bias.o.p) v += ttc_bias_at(p.bias, o);
                if (p.relu) v = tt__reluf(v);
                p.y[(img * p.O + o) * N + n] = v;
            }
    }
}

/* Depthwise and small groups: one thread per output, the window summed in (c, kh, kw) order. */
__global__ void ttc_k_conv_direct(ttc_conv p) {
    int64_t Og = p.O / p.G, Cg = p.C / p.G, total = p.N * p.O * p.OH * p.OW, i;
    for (i = ttc_gid(); i < total; i += ttc_gstride()) {
        int64_t ow = i % p.OW, oh = (i / p.OW) % p.OH, o = (i / (p.OW * p.OH)) % p.O, img = i / (p.OW * p.OH * p.O);
        int64_t g = o / Og, c, kh, kw;
        float acc = 0.0f;
        for (c = 0; c < Cg; c++)
            for (kh = 0; kh < p.KH; kh++) {
                int64_t ih = oh * p.sh - p.ph + kh * p.dh;
                if (ih < 0 || ih >= p.H) continue;
                for (kw = 0; kw < p.KW; kw++) {
                    int64_t iw = ow * p.sw - p.pw + kw * p.dw;
                    if (iw < 0 || iw >= p.W) continue;
                    acc = fmaf(ttc_get(p.w, o * p.ws[0] + c * p.ws[1] + kh * p.ws[2] + kw * p.ws[3]),
                               ttc_get(p.x, img * p.xs[0] + (g * Cg + c) * p.xs[1] + ih * p.xs[2] + iw * p.xs[3]), acc);
                }
            }
        if (p.bias.o.p) acc += ttc_bias_at(p.bias, o);
        if (p.relu) acc = tt__reluf(acc);
        p.y[i] = acc;
    }
}

/* conv3d and transposed convolution (1-3 spatial axes, as volumes D x H x W with the missing
   leading axes of size 1): one thread per output, in (channel, kd, kh, kw) order. A
   transposed convolution's output position q takes input i where q = i*s - p + k*d. */
typedef struct ttc_convnd {
    const float *x, *w;
    ttc_bias_t bias;
    float   *y;
    int64_t  N, C, O, G;
    int64_t  in[3], out[3], k[3], s[3], p[3], d[3];
    int64_t  xs[5], ws[5];             /* strides on (n, c, d, h, w) and the weight's 5 axes */
    bool     transpose;
} ttc_convnd;

/* The input index along axis a that output q reads with tap k, or -1. */
__device__ __forceinline__ int64_t ttc_convnd_src(const ttc_convnd *p, int a, int64_t q, int64_t k) {
    int64_t t;
    if (!p->transpose) {
        t = q * p->s[a] - p->p[a] + k * p->d[a];
        return t >= 0 && t < p->in[a] ? t : -1;
    }
    t = q + p->p[a] - k * p->d[a];
    if (t < 0 || t % p->s[a] != 0 || t / p->s[a] >= p->in[a]) return -1;
    return t / p->s[a];
}

__global__ void ttc_k_conv_nd(ttc_convnd p) {
    int64_t per = p.out[0] * p.out[1] * p.out[2], total = p.N * p.O * per, i;
    int64_t Cg = p.C / p.G, Og = p.O / p.G;
    for (i = ttc_gid(); i < total; i += ttc_gstride()) {
        int64_t r = i % per, o = (i / per) % p.O, n = i / (per * p.O), g = o / Og, q[3], c, k[3], at[3];
        float acc = 0.0f;
        q[2] = r % p.out[2];
        q[1] = (r / p.out[2]) % p.out[1];
        q[0] = r / (p.out[2] * p.out[1]);
        for (c = 0; c < Cg; c++) {
            int64_t ci = g * Cg + c;
            for (k[0] = 0; k[0] < p.k[0]; k[0]++) {
                if ((at[0] = ttc_convnd_src(&p, 0, q[0], k[0])) < 0) continue;
                for (k[1] = 0; k[1] < p.k[1]; k[1]++) {
                    if ((at[1] = ttc_convnd_src(&p, 1, q[1], k[1])) < 0) continue;
                    for (k[2] = 0; k[2] < p.k[2]; k[2]++) {
                        int64_t wi;
                        if ((at[2] = ttc_convnd_src(&p, 2, q[2], k[2])) < 0) continue;
                        wi = (p.transpose ? ci * p.ws[0] + (o - g * Og) * p.ws[1] : o * p.ws[0] + c * p.ws[1]) +
                             k[0] * p.ws[2] + k[1] * p.ws[3] + k[2] * p.ws[4];
                        acc = fmaf(p.w[wi], p.x[n * p.xs[0] + ci * p.xs[1] + at[0] * p.xs[2] + at[1] * p.xs[3] + at[2] * p.xs[4]], acc);
                    }
                }
            }
        }
        if (p.bias.o.p) acc += ttc_bias_at(p.bias, o);
        p.y[i] = acc;
    }
}

/* ==========================================================================
 * pool: max and average pooling, adaptive average pooling, resizing
 * ========================================================================== */

/* A pooling over planes of D x H x W (tt__pool_job's axes): x through strides. */
typedef struct ttc_pool {
    const float *x;
    float   *y;
    int64_t  planes, C, xs[5];         /* x's strides on (n, c, d, h, w) */
    int64_t  in[3], out[3], k[3], s[3], p[3], d[3];
    bool     is_max, exclude_pad;
} ttc_pool;

/* The cells the average divides by along axis a (tt__pool_count). */
__device__ __forceinline__ int64_t ttc_pool_count(const ttc_pool *j, int a, int64_t o) {
    int64_t start = o * j->s[a] - j->p[a], end = start + j->k[a];
    if (end > j->in[a] + j->p[a]) end = j->in[a] + j->p[a];
    if (j->exclude_pad) {
        if (start < 0) start = 0;
        if (end > j->in[a]) end = j->in[a];
    }
    return end - start;
}

__global__ void ttc_k_pool(ttc_pool p) {
    int64_t per_plane = p.out[0] * p.out[1] * p.out[2], total = p.planes * per_plane, i;
    for (i = ttc_gid(); i < total; i += ttc_gstride()) {
        int64_t plane = i / per_plane, r = i % per_plane, o[3], kd, kh, kw, at[3];
        const float *src = p.x + (plane / p.C) * p.xs[0] + (plane % p.C) * p.xs[1];
        float acc = p.is_max ? -INFINITY : 0.0f;
        o[2] = r % p.out[2];
        o[1] = (r / p.out[2]) % p.out[1];
        o[0] = r / (p.out[2] * p.out[1]);
        for (kd = 0; kd < p.k[0]; kd++) {
            at[0] = o[0] * p.s[0] - p.p[0] + kd * p.d[0];
            if (at[0] < 0 || at[0] >= p.in[0]) continue;
            for (kh = 0; kh < p.k[1]; kh++) {
                at[1] = o[1] * p.s[1] - p.p[1] + kh * p.d[1];
                if (at[1] < 0 || at[1] >= p.in[1]) continue;
                for (kw = 0; kw < p.k[2]; kw++) {
                    float v;
                    at[2] = o[2] * p.s[2] - p.p[2] + kw * p.d[2];
                    if (at[2] < 0 || at[2] >= p.in[2]) continue;
                    v = src[at[0] * p.xs[2] + at[1] * p.xs[3] + at[2] * p.xs[4]];
                    acc = p.is_max ? tt__maxf(acc, v) : acc + v;
                }
            }
        }
        if (!p.is_max) acc /= (float)(ttc_pool_count(&p, 0, o[0]) * ttc_pool_count(&p, 1, o[1]) * ttc_pool_count(&p, 2, o[2]));
        p.y[i] = acc;
    }
}

/* upsample_nearest and upsample_bilinear: the source positions by the header's own
   tt__nearest_source / tt__linear_source (PyTorch's rules), the blend as the CPU's. */
typedef struct ttc_resize {
    ttc_pool p;                        /* planes, strides, in[1..2] = H, W, out[1..2] = OH, OW */
    float    scale[2];
    bool     align, bilinear;
} ttc_resize;

__global__ void ttc_k_resize(ttc_resize r) {
    const ttc_pool *p = &r.p;
    int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2], total = p->planes * OH * OW, i;
    for (i = ttc_gid(); i < total; i += ttc_gstride()) {
        int64_t plane = i / (OH * OW), oh = (i / OW) % OH, ow = i % OW, h0, h1, w0, w1;
        const float *src = p->x + (plane / p->C) * p->xs[0] + (plane % p->C) * p->xs[1];
        float lh, lw, top, bottom;
        if (!r.bilinear) {
            h0 = tt__nearest_source(oh, H, OH, r.scale[0]);
            w0 = tt__nearest_source(ow, W, OW, r.scale[1]);
            p->y[i] = src[h0 * p->xs[3] + w0 * p->xs[4]];
            continue;
        }
        tt__linear_source(oh, H, OH, r.scale[0], r.align, &h0, &h1, &lh);
        tt__linear_source(ow, W, OW, r.scale[1], r.align, &w0, &w1, &lw);
        top = src[h0 * p->xs[3] + w0 * p->xs[4]] * (1.0f - lw) + src[h0 * p->xs[3] + w1 * p->xs[4]] * lw;
        bottom = src[h1 * p->xs[3] + w0 * p->xs[4]] * (1.0f - lw) + src[h1 * p->xs[3] + w1 * p->xs[4]] * lw;
        p->y[i] = top * (1.0f - lh) + bottom * lh;
    }
}

/* Adaptive average pooling: output cell (oh, ow) averages rows [oh*H/OH, ceil((oh+1)*H/OH))
   and the same for columns (tt__adaptive_cell). */
__global__ void ttc_k_adaptive_avg(ttc_pool p) {
    int64_t H = p.in[1], W = p.in[2], OH = p.out[1], OW = p.out[2], total = p.planes * OH * OW, i;
    for (i = ttc_gid(); i < total; i += ttc_gstride()) {
        int64_t plane = i / (OH * OW), oh = (i / OW) % OH, ow = i % OW, h, w;
        int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH, w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        const float *src = p.x + (plane / p.C) * p.xs[0] + (plane % p.C) * p.xs[1];
        float acc = 0.0f;
        for (h = h0; h < h1; h++)
            for (w = w0; w < w1; w++) acc += src[h * p.xs[3] + w * p.xs[4]];
        p.y[i] = acc / (float)((h1 - h0) * (w1 - w0));
    }
}

/* ==========================================================================
 * attention: scaled dot-product attention, one block per query row
 * ========================================================================== */

#define TTC_ATT_KEYS TTC_THREADS       /* keys per chunk: one score per thread */

typedef struct ttc_att {
    const float *q, *k, *v;
    const char *mask;                  /* any dtype (bool: keep where true; float: added) */
    int      mask_dtype;
    float   *y;
    int64_t  L, S, E, Ev;
    int      nb;
    int64_t  batch[TT_MAX_DIMS];
    int64_t  qs[TT_MAX_DIMS], ks[TT_MAX_DIMS], vs[TT_MAX_DIMS], ms[TT_MAX_DIMS];   /* on the output's axes */
    bool     causal, mask_bool;
    float    scale;
} ttc_att;

/* The score of query row qrow (its q at qp) against key j, masked (-inf) or with the mask added. */
__device__ float ttc_att_score(const ttc_att *a, const float *qp, const float *kb, int64_t om, int64_t qrow, int64_t j) {
    const float *kp = kb + j * a->ks[a->nb];
    float s = 0.0f, m;
    int64_t e;
    for (e = 0; e < a->E; e++) s = fmaf(qp[e * a->qs[a->nb + 1]], kp[e * a->ks[a->nb + 1]], s);
    s *= a->scale;
    if (a->causal && j > qrow) return -INFINITY;
    if (!a->mask) return s;
    m = ttc_load(a->mask, a->mask_dtype, om + qrow * a->ms[a->nb] + j * a->ms[a->nb + 1]);
    return a->mask_bool ? (m != 0.0f ? s : -INFINITY) : s + m;
}

/* Output features per thread: Ev up to TTC_ATT_FEATURES * TTC_THREADS. */
#define TTC_ATT_FEATURES 4

/* Row (batch b, query i): the max score (pass 1), then chunks of keys: each thread scores
   one key into p[], then accumulates its output features over the chunk's keys in order. */
__global__ void ttc_k_attention(ttc_att a) {
    __shared__ float p[TTC_ATT_KEYS];
    int64_t n_batch = 1, row, j0, j;
    int t = (int)threadIdx.x, d, q;
    for (d = 0; d < a.nb; d++) n_batch *= a.batch[d];
    for (row = blockIdx.x; row < n_batch * a.L; row += gridDim.x) {
        int64_t b = row / a.L, i = row % a.L, rest = b, oq = 0, ok = 0, ov = 0, om = 0;
        float mx = -INFINITY, acc[TTC_ATT_FEATURES];
        double l = 0.0;
        const float *qp, *kb, *vb;
        for (d = a.nb - 1; d >= 0; d--) {
            int64_t k = rest % a.batch[d];
            rest /= a.batch[d];
            oq += k * a.qs[d];
            ok += k * a.ks[d];
            ov += k * a.vs[d];
            om += k * a.ms[d];
        }
        qp = a.q + oq + i * a.qs[a.nb];
        kb = a.k + ok;
        vb = a.v + ov;
        for (j = t; j < a.S; j += TTC_THREADS) mx = tt__maxf(mx, ttc_att_score(&a, qp, kb, om, i, j));
        mx = ttc_block_extreme(mx, true);
        for (q = 0; q < TTC_ATT_FEATURES; q++) acc[q] = 0.0f;
        for (j0 = 0; j0 < a.S; j0 += TTC_ATT_KEYS) {
            int64_t n = a.S - j0 < TTC_ATT_KEYS ? a.S - j0 : TTC_ATT_KEYS, jj;
            float pj = 0.0f;
            if (t < n && mx != -INFINITY) pj = tt__expf(ttc_att_score(&a, qp, kb, om, i, j0 + t) - mx);
            l += pj;
            __syncthreads();                          /* the last chunk's readers are done */
            p[t] = pj;
            __syncthreads();
            for (q = 0; q < TTC_ATT_FEATURES; q++) {
                int64_t e = t + (int64_t)q * TTC_THREADS;
                if (e >= a.Ev) break;
                for (jj = 0; jj < n; jj++) acc[q] = fmaf(p[jj], vb[(j0 + jj) * a.vs[a.nb] + e * a.vs[a.nb + 1]], acc[q]);
            }
        }
        l = ttc_block_sum(l);
        for (q = 0; q < TTC_ATT_FEATURES; q++) {
            int64_t e = t + (int64_t)q * TTC_THREADS;
            if (e < a.Ev) a.y[row * a.Ev + e] = a.S == 0 ? 0.0f : (float)(acc[q] / l);   /* no keys: zeros, as the CPU */
        }
    }
}

/* ==========================================================================
 * the backend: a compiled graph's device state, errors
 * ========================================================================== */

/* A program's micro-ops in the device table. */
typedef struct ttc_prog {
    int at, n;
} ttc_prog;

typedef struct ttc_graph {
    int             device;
    cudaStream_t    stream;
    char           *arena;             /* the memory plan's arena (g->arena_bytes), on the device */
    char           *consts;            /* constants, then parameter slots */
    char          **base;              /* per value: the device address of its element 0, or NULL */
    int64_t        *param_at;          /* per value: a parameter's slot in consts, or -1 */
    tt__uop        *uops;              /* every program, on the device */
    ttc_prog       *prog;              /* per node: its program (fused, or made for a lone elementwise op) */
    int            *bad_index;         /* set by an index kernel that met an index out of range */
    bool            has_index;         /* the graph has such a node: the sync reads the flag */
    cudaGraph_t     cgraph;            /* REDUCE_OVERHEAD: the captured schedule */
    cudaGraphExec_t cexec;
    bool            captured;
    const char     *fn;                /* the public function running it, for messages */
} ttc_graph;

static char ttc_last_error[512];

/* A failed CUDA call: TT_ERR_BACKEND in g (if any) and in tt_cuda_error, with CUDA's words. */
static bool ttc_check(tt_graph *g, cudaError_t e, const char *fn, const char *what) {
    if (e == cudaSuccess) return true;
    snprintf(ttc_last_error, sizeof ttc_last_error, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorString(e),
             cudaGetErrorName(e));
    cudaGetLastError();                                /* reported here: not again at the next launch */
    if (g) tt__gfail(g, TT_ERR_BACKEND, "%s", ttc_last_error);
    return false;
}

static ttc_graph *ttc_of(const tt_graph *g) { return (ttc_graph *)g->device; }

/* The device address of t's element 0 (t is one of the graph's headers, g->rt[v]): its
   root's buffer, at the element offset the header has from its root's. */
static char *ttc_ptr(const tt_graph *g, const tt_tensor *t) {
    int v = (int)(t - g->rt), r = g->root[v];
    return ttc_of(g)->base[r] + (t->offset - g->rt[r].offset) * (int64_t)tt_dtype_size(t->dtype);
}

static const float *ttc_fptr(const tt_graph *g, const tt_tensor *t) { return t ? (const float *)ttc_ptr(g, t) : NULL; }

static unsigned ttc_blocks(int64_t n) {
    int64_t b = (n + TTC_THREADS - 1) / TTC_THREADS;
    return (unsigned)(b < 1 ? 1 : b > TTC_MAX_BLOCKS ? TTC_MAX_BLOCKS : b);
}

static unsigned ttc_rows_grid(int64_t rows) { return (unsigned)(rows < 1 ? 1 : rows > TTC_MAX_BLOCKS ? TTC_MAX_BLOCKS : rows); }

/* A launch just queued: a bad configuration shows now (a kernel's own failure at the sync). */
static bool ttc_launched(tt_graph *g, const char *kernel) { return ttc_check(g, cudaGetLastError(), ttc_of(g)->fn, kernel); }

/* ==========================================================================
 * the backend: each node's launch
 * ========================================================================== */

static void ttc_shape_of(ttc_shape *s, const tt_tensor *t) {
    int d;
    memset(s, 0, sizeof *s);
    s->nd = t->ndim;
    s->numel = 1;
    for (d = 0; d < t->ndim; d++) {
        s->n[d] = t->shape[d];
        s->numel *= t->shape[d];
    }
}

/* How a program finds element i of an input with strides st on out's axes (TTC_IN_*). */
static int ttc_input_mode(const tt_tensor *out, const int64_t *st) {
    int64_t want = 1;
    bool same = true, scalar = true;
    int d;
    for (d = out->ndim - 1; d >= 0; d--) {
        if (out->shape[d] == 1) continue;              /* any stride: only index 0 */
        same = same && st[d] == want;
        scalar = scalar && st[d] == 0;
        want *= out->shape[d];
    }
    return same ? TTC_IN_SAME : scalar ? TTC_IN_SCALAR : TTC_IN_STRIDED;
}

/* A program over outputs outs (values; outs[0] gives the shape) reading in[0..n_in). */
static bool ttc_launch_program(tt_graph *g, const ttc_prog *pg, tt_tensor *const *in, int n_in, const int *outs, int n_out) {
    const tt_tensor *o0 = &g->rt[outs[0]];
    ttc_program_args a;
    int k;
    memset(&a, 0, sizeof a);
    a.uops = ttc_of(g)->uops + pg->at;
    a.n_uops = pg->n;
    ttc_shape_of(&a.shape, o0);
    if (a.shape.numel == 0) return true;
    for (k = 0; k < n_in; k++) {
        a.in[k].p = ttc_ptr(g, in[k]);
        a.in[k].dtype = in[k]->dtype;
        tt__broadcast_strides(in[k], o0->ndim, o0->shape, a.in[k].st);
        a.in_mode[k] = (int8_t)ttc_input_mode(o0, a.in[k].st);
    }
    for (k = 0; k < n_out; k++) {
        a.out[k] = ttc_ptr(g, &g->rt[outs[k]]);
        a.out_dtype[k] = g->rt[outs[k]].dtype;
    }
    TTC_LAUNCH(ttc_k_program, ttc_blocks((a.shape.numel + TTC_PROGRAM_ELEMS - 1) / TTC_PROGRAM_ELEMS), TTC_THREADS,
               ttc_of(g)->stream, a);
    return ttc_launched(g, "the elementwise program kernel");
}

/* The batch axes of a 2-D operand t (all but its last two) as strides on nb output axes. */
static void ttc_batch_strides(const tt_tensor *t, int nb, int64_t *st) {
    tt_tensor b = *t;
    b.ndim = t->ndim - 2;
    tt__aligned_strides(&b, nb, st);
}

static ttc_operand ttc_operand_of(const tt_graph *g, const tt_tensor *t) {
    ttc_operand o;
    o.p = ttc_ptr(g, t);
    o.dtype = t->dtype;
    return o;
}

/* A linear's or convolution's bias (input 2), or none. */
static ttc_bias_t ttc_bias(const tt_graph *g, const tt__call *c) {
    const tt_tensor *b = c->n_in > 2 ? c->in[2] : NULL;
    ttc_bias_t bias;
    memset(&bias, 0, sizeof bias);
    if (!b) return bias;
    bias.o = ttc_operand_of(g, b);
    bias.stride = b->stride[0];
    return bias;
}

/* matmul (torch.matmul) and linear (x W^T): a batch of products with broadcast batch axes. */
static bool ttc_run_gemm(tt_graph *g, const tt__call *c, tt_tensor *out, bool relu) {
    tt_tensor a2, b2, w;
    ttc_mm p;
    int an, bn, d;
    memset(&p, 0, sizeof p);
    if (c->op == TT__OP_LINEAR) {                      /* B(k,n) = weight[n,k] */
        w = *c->in[1];
        w.ndim = 2;
        w.shape[0] = c->in[1]->shape[1];
        w.shape[1] = c->in[1]->shape[0];
        w.stride[0] = c->in[1]->stride[1];
        w.stride[1] = c->in[1]->stride[0];
        tt__matmul_operands(c->in[0], &w, &a2, &b2);
        p.bias = ttc_bias(g, c);
    } else {
        tt__matmul_operands(c->in[0], c->in[1], &a2, &b2);
    }
    an = a2.ndim;
    bn = b2.ndim;
    p.a = ttc_operand_of(g, c->in[0]);
    p.b = ttc_operand_of(g, c->in[1]);
    p.c = (float *)ttc_ptr(g, out);
    p.M = a2.shape[an - 2];
    p.K = a2.shape[an - 1];
    p.N = b2.shape[bn - 1];
    p.sam = a2.stride[an - 2];
    p.sak = a2.stride[an - 1];
    p.sbk = b2.stride[bn - 2];
    p.sbn = b2.stride[bn - 1];
    p.nb = (an > bn ? an : bn) - 2;
    p.n_batch = 1;
    for (d = 0; d < p.nb; d++) {
        p.batch[d] = out->shape[d];
        p.n_batch *= out->shape[d];
    }
    ttc_batch_strides(&a2, p.nb, p.sab);
    ttc_batch_strides(&b2, p.nb, p.sbb);
    p.relu = relu;
    if (out->numel == 0) return true;                  /* (K == 0: the tiles sum nothing, bias and ReLU still apply) */
    {
        int64_t n_tiles = (p.N + TTC_TN - 1) / TTC_TN;
        dim3 grid((unsigned)((p.M + TTC_TM - 1) / TTC_TM), (unsigned)(n_tiles < TTC_MAX_BLOCKS ? n_tiles : TTC_MAX_BLOCKS),
                  (unsigned)(p.n_batch < TTC_MAX_BLOCKS ? p.n_batch : TTC_MAX_BLOCKS));
        TTC_LAUNCH(ttc_k_matmul, grid, TTC_THREADS, ttc_of(g)->stream, p);
    }
    return ttc_launched(g, "the matmul kernel");
}

/* conv2d and conv1d (height-1 views, as the CPU): implicit GEMM, or direct for small groups. */
static bool ttc_run_conv(tt_graph *g, const tt__call *c, tt_tensor *out, bool relu) {
    tt_conv_params cp = tt__conv_params_of(&c->a);
    tt_tensor x4, w4;
    ttc_conv p;
    int d;
    memset(&p, 0, sizeof p);
    tt__conv_as_2d(c->in[0], &x4);
    tt__conv_as_2d(c->in[1], &w4);
    p.x = ttc_operand_of(g, c->in[0]);
    p.w = ttc_operand_of(g, c->in[1]);
    p.bias = ttc_bias(g, c);
    p.y = (float *)ttc_ptr(g, out);
    p.N = x4.shape[0]; p.C = x4.shape[1]; p.H = x4.shape[2]; p.W = x4.shape[3];
    p.O = w4.shape[0]; p.KH = w4.shape[2]; p.KW = w4.shape[3];
    p.OH = c->op == TT__OP_CONV1D ? 1 : out->shape[2];
    p.OW = out->shape[out->ndim - 1];
    p.G = cp.groups;
    for (d = 0; d < 4; d++) {
        p.xs[d] = x4.stride[d];
        p.ws[d] = w4.stride[d];
    }
    p.sh = cp.stride[0]; p.sw = cp.stride[1];
    p.ph = cp.padding[0]; p.pw = cp.padding[1];
    p.dh = cp.dilation[0]; p.dw = cp.dilation[1];
    p.relu = relu;
    if (out->numel == 0) return true;
    if (p.O / p.G < 16) {                              /* depthwise, small groups: one thread per output */
        TTC_LAUNCH(ttc_k_conv_direct, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
        return ttc_launched(g, "the direct convolution kernel");
    }
    {
        int64_t NP = p.OH * p.OW, Og = p.O / p.G, batches = p.N * p.G;
        dim3 grid((unsigned)((NP + TTC_TN - 1) / TTC_TN), (unsigned)((Og + TTC_TM - 1) / TTC_TM),
                  (unsigned)(batches < TTC_MAX_BLOCKS ? batches : TTC_MAX_BLOCKS));
        TTC_LAUNCH(ttc_k_conv_gemm, grid, TTC_THREADS, ttc_of(g)->stream, p);
    }
    return ttc_launched(g, "the convolution kernel");
}

/* conv3d and transposed convolutions: the header's attributes per spatial axis (TT__CV_*),
   placed on the volume's last axes. */
static bool ttc_run_conv_nd(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *w = c->in[1];
    int ns = x->ndim - 2, a, d;
    ttc_convnd p;
    memset(&p, 0, sizeof p);
    p.x = ttc_fptr(g, x);
    p.w = ttc_fptr(g, w);
    p.bias = ttc_bias(g, c);
    p.y = (float *)ttc_ptr(g, out);
    p.transpose = c->op == TT__OP_CONV_TRANSPOSE;
    p.N = x->shape[0];
    p.C = x->shape[1];
    p.O = out->shape[1];
    p.G = c->a.i[TT__CV_G];
    for (d = 0; d < 2; d++) {
        p.xs[d] = x->stride[d];
        p.ws[d] = w->stride[d];
    }
    for (a = 0; a < 3; a++) {
        int i = a - (3 - ns);                          /* the spatial axis on volume axis a, if any */
        p.in[a] = i >= 0 ? x->shape[2 + i] : 1;
        p.out[a] = i >= 0 ? out->shape[2 + i] : 1;
        p.k[a] = i >= 0 ? w->shape[2 + i] : 1;
        p.s[a] = i >= 0 ? c->a.i[TT__CV_S + i] : 1;
        p.p[a] = i >= 0 ? c->a.i[TT__CV_P + i] : 0;
        p.d[a] = i >= 0 ? c->a.i[TT__CV_D + i] : 1;
        p.xs[2 + a] = i >= 0 ? x->stride[2 + i] : 0;
        p.ws[2 + a] = i >= 0 ? w->stride[2 + i] : 0;
    }
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_conv_nd, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the convolution kernel");
}

/* Row ops: axes of x split into outer (rows) and inner (a row's elements). */
static void ttc_rows_add(ttc_shape *s, int64_t *xs, int64_t *ys, int64_t n, int64_t x_stride, int64_t y_stride) {
    s->n[s->nd] = n;
    xs[s->nd] = x_stride;
    if (ys) ys[s->nd] = y_stride;
    s->nd++;
    s->numel *= n;
}

static void ttc_rows_init(ttc_rows *r, const tt_graph *g, const tt__call *c, tt_tensor *out) {
    memset(r, 0, sizeof *r);
    r->outer.numel = 1;
    r->inner.numel = 1;
    r->x = ttc_operand_of(g, c->in[0]);
    r->op = c->op;
    if (out->dtype == TT_I32) r->yi32 = (int32_t *)ttc_ptr(g, out);
    else r->y = (float *)ttc_ptr(g, out);
}

static bool ttc_run_reduce(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t mask = c->a.i[0];
    bool keepdim = c->a.i[1] != 0;
    ttc_rows r;
    int d, od = 0;
    ttc_rows_init(&r, g, c, out);
    r.correction = c->a.i[2];
    for (d = 0; d < x->ndim; d++) {
        if ((mask >> d) & 1) {
            ttc_rows_add(&r.inner, r.xi, NULL, x->shape[d], x->stride[d], 0);
            if (keepdim) od++;
        } else {
            ttc_rows_add(&r.outer, r.xo, r.yo, x->shape[d], x->stride[d], out->stride[od++]);
        }
    }
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_reduce, ttc_rows_grid(r.outer.numel), TTC_THREADS, ttc_of(g)->stream, r);
    return ttc_launched(g, "the reduction kernel");
}

static bool ttc_run_softmax(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int a = x->ndim > 0 ? tt__axis((int)c->a.i[0], x->ndim) : -1, d;
    ttc_rows r;
    ttc_rows_init(&r, g, c, out);
    for (d = 0; d < x->ndim; d++) {
        if (d == a) ttc_rows_add(&r.inner, r.xi, r.yi, x->shape[d], x->stride[d], out->stride[d]);
        else ttc_rows_add(&r.outer, r.xo, r.yo, x->shape[d], x->stride[d], out->stride[d]);
    }
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_softmax, ttc_rows_grid(r.outer.numel), TTC_THREADS, ttc_of(g)->stream, r);
    return ttc_launched(g, "the softmax kernel");
}

/* A norm's weight or bias over the inner axes (its shape is x's last axes). */
static void ttc_param_view(const tt_graph *g, const tt_tensor *t, ttc_view *v) {
    int d;
    memset(v, 0, sizeof *v);
    if (!t) return;
    v->p = ttc_ptr(g, t);
    v->dtype = t->dtype;
    for (d = 0; d < t->ndim; d++) v->st[d] = t->stride[d];
}

static bool ttc_run_norm(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int first = x->ndim - (int)c->a.i[0], d;
    ttc_rows r;
    ttc_rows_init(&r, g, c, out);
    r.eps = c->a.f[0];
    for (d = 0; d < x->ndim; d++) {
        if (d >= first) ttc_rows_add(&r.inner, r.xi, r.yi, x->shape[d], x->stride[d], out->stride[d]);
        else ttc_rows_add(&r.outer, r.xo, r.yo, x->shape[d], x->stride[d], out->stride[d]);
    }
    ttc_param_view(g, c->n_in > 1 ? c->in[1] : NULL, &r.w);
    ttc_param_view(g, c->n_in > 2 ? c->in[2] : NULL, &r.b);
    if (out->numel == 0 || r.inner.numel == 0) return true;
    TTC_LAUNCH(ttc_k_norm, ttc_rows_grid(r.outer.numel), TTC_THREADS, ttc_of(g)->stream, r);
    return ttc_launched(g, "the normalization kernel");
}

/* group_norm: rows (n, group) of x [N,C,...], each row the group's channels and positions;
   weight and bias per channel (their stride on the row's first axis). */
static bool ttc_run_group_norm(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t G = c->a.i[0], Cg = x->shape[1] / G;
    ttc_rows r;
    int d, k;
    ttc_rows_init(&r, g, c, out);
    r.op = TT__OP_LAYER_NORM;
    r.eps = c->a.f[0];
    ttc_rows_add(&r.outer, r.xo, r.yo, x->shape[0], x->stride[0], out->stride[0]);
    ttc_rows_add(&r.outer, r.xo, r.yo, G, Cg * x->stride[1], Cg * out->stride[1]);
    ttc_rows_add(&r.inner, r.xi, r.yi, Cg, x->stride[1], out->stride[1]);
    for (d = 2; d < x->ndim; d++) ttc_rows_add(&r.inner, r.xi, r.yi, x->shape[d], x->stride[d], out->stride[d]);
    for (k = 1; k < 3; k++) {
        ttc_view *v = k == 1 ? &r.w : &r.b;
        const tt_tensor *t = c->n_in > k ? c->in[k] : NULL;
        memset(v, 0, sizeof *v);
        if (!t) continue;
        v->p = ttc_ptr(g, t);                          /* channel g*Cg + j: the row's base is per group */
        v->dtype = t->dtype;
        v->st[0] = t->stride[0];
    }
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_group_norm, ttc_rows_grid(r.outer.numel), TTC_THREADS, ttc_of(g)->stream, r, Cg);
    return ttc_launched(g, "the group norm kernel");
}

/* A per-channel statistic t (1-D, or absent) as a view on x's axes: its stride on axis 1. */
static void ttc_channel_view(const tt_graph *g, const tt_tensor *t, ttc_view *v) {
    memset(v, 0, sizeof *v);
    if (!t) return;
    v->p = ttc_ptr(g, t);
    v->dtype = t->dtype;
    v->st[1] = t->stride[0];
}

static bool ttc_run_batch_norm(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    ttc_bn p;
    int d;
    memset(&p, 0, sizeof p);
    ttc_shape_of(&p.shape, x);
    p.x.p = ttc_ptr(g, x);
    p.x.dtype = x->dtype;
    for (d = 0; d < x->ndim; d++) p.x.st[d] = x->stride[d];
    ttc_channel_view(g, c->in[1], &p.mean);
    ttc_channel_view(g, c->in[2], &p.var);
    ttc_channel_view(g, c->n_in > 3 ? c->in[3] : NULL, &p.w);
    ttc_channel_view(g, c->n_in > 4 ? c->in[4] : NULL, &p.b);
    p.y = (float *)ttc_ptr(g, out);
    p.eps = c->a.f[0];
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_batch_norm, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the batch norm kernel");
}

/* Pooling planes (N*C) of x through its strides on (n, c, d, h, w). */
static void ttc_pool_init(ttc_pool *p, const tt_graph *g, const tt_tensor *x, tt_tensor *out) {
    int ns = x->ndim - 2, a;
    p->x = ttc_fptr(g, x);
    p->y = (float *)ttc_ptr(g, out);
    p->planes = x->shape[0] * x->shape[1];
    p->C = x->shape[1];
    p->xs[0] = x->stride[0];
    p->xs[1] = x->stride[1];
    for (a = 0; a < 3; a++) p->xs[2 + a] = a - (3 - ns) >= 0 ? x->stride[2 + a - (3 - ns)] : 0;
}

static bool ttc_run_pool(tt_graph *g, const tt__call *c, tt_tensor *out) {
    tt__pool_job j;
    ttc_pool p;
    memset(&p, 0, sizeof p);
    tt__pool_job_init(&j, c->op, &c->a, c->in[0], out);
    ttc_pool_init(&p, g, c->in[0], out);
    memcpy(p.in, j.in, sizeof p.in);
    memcpy(p.out, j.out, sizeof p.out);
    memcpy(p.k, j.k, sizeof p.k);
    memcpy(p.s, j.s, sizeof p.s);
    memcpy(p.p, j.p, sizeof p.p);
    memcpy(p.d, j.d, sizeof p.d);
    p.is_max = j.is_max;
    p.exclude_pad = j.exclude_pad;
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_pool, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the pooling kernel");
}

/* A 2-D plane op (adaptive pooling, resizing): planes of x [N,C,H,W] to planes of out. */
static void ttc_plane_init(ttc_pool *p, const tt_graph *g, const tt_tensor *x, tt_tensor *out) {
    memset(p, 0, sizeof *p);
    ttc_pool_init(p, g, x, out);
    p->in[1] = x->shape[2];
    p->in[2] = x->shape[3];
    p->out[1] = out->shape[2];
    p->out[2] = out->shape[3];
}

static bool ttc_run_adaptive(tt_graph *g, const tt__call *c, tt_tensor *out) {
    ttc_pool p;
    ttc_plane_init(&p, g, c->in[0], out);
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_adaptive_avg, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the adaptive pooling kernel");
}

static bool ttc_run_resize(tt_graph *g, const tt__call *c, tt_tensor *out) {
    ttc_resize r;
    memset(&r, 0, sizeof r);
    ttc_plane_init(&r.p, g, c->in[0], out);
    r.scale[0] = c->a.f[0];
    r.scale[1] = c->a.f[1];
    r.align = c->a.i[2] != 0;
    r.bilinear = c->op == TT__OP_UPSAMPLE_BILINEAR;
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_resize, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, r);
    return ttc_launched(g, "the resize kernel");
}

static bool ttc_run_attention(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *q = c->in[0], *k = c->in[1], *v = c->in[2], *mask = c->n_in > 3 ? c->in[3] : NULL;
    ttc_att a;
    int d;
    memset(&a, 0, sizeof a);
    a.q = ttc_fptr(g, q);
    a.k = ttc_fptr(g, k);
    a.v = ttc_fptr(g, v);
    a.y = (float *)ttc_ptr(g, out);
    a.nb = out->ndim - 2;
    for (d = 0; d < a.nb; d++) a.batch[d] = out->shape[d];
    a.L = q->shape[q->ndim - 2];
    a.S = k->shape[k->ndim - 2];
    a.E = q->shape[q->ndim - 1];
    a.Ev = v->shape[v->ndim - 1];
    tt__aligned_strides(q, out->ndim, a.qs);
    tt__aligned_strides(k, out->ndim, a.ks);
    tt__aligned_strides(v, out->ndim, a.vs);
    if (mask) {
        a.mask = ttc_ptr(g, mask);
        a.mask_dtype = mask->dtype;
        a.mask_bool = mask->dtype == TT_BOOL;
        tt__aligned_strides(mask, out->ndim, a.ms);
    }
    a.causal = c->a.i[0] != 0;
    a.scale = c->a.f[0] > 0 ? c->a.f[0] : 1.0f / sqrtf((float)(a.E > 0 ? a.E : 1));
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_attention, ttc_rows_grid(out->numel / a.Ev), TTC_THREADS, ttc_of(g)->stream, a);
    return ttc_launched(g, "the attention kernel");
}

/* Copies src (from element offset src_at, through strides src_st) into dst's view: shape s,
   dst at element offset at. */
static bool ttc_copy(tt_graph *g, const tt_tensor *src, int64_t src_at, const int64_t *src_st, const tt_tensor *dst, int64_t at,
                     const ttc_shape *s) {
    ttc_view a, b;
    int d;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.p = ttc_ptr(g, src) + src_at * (int64_t)tt_dtype_size(src->dtype);
    a.dtype = src->dtype;
    b.p = ttc_ptr(g, dst) + at * (int64_t)tt_dtype_size(dst->dtype);
    b.dtype = dst->dtype;
    for (d = 0; d < s->nd; d++) {
        a.st[d] = src_st[d];
        b.st[d] = dst->stride[d];
    }
    if (s->numel == 0) return true;
    TTC_LAUNCH(ttc_k_copy, ttc_blocks(s->numel), TTC_THREADS, ttc_of(g)->stream, *s, a, b);
    return ttc_launched(g, "the copy kernel");
}

/* concat and stack: each input copied into its slice of the output. */
static bool ttc_run_concat(tt_graph *g, const tt__call *c, tt_tensor *out) {
    bool stack = c->op == TT__OP_STACK;
    int a = tt__axis((int)c->a.i[0], out->ndim), i, d;
    int64_t start = 0;
    for (i = 0; i < c->n_in; i++) {
        const tt_tensor *x = c->in[i];
        int64_t st[TT_MAX_DIMS];
        ttc_shape s;
        ttc_shape_of(&s, out);
        s.n[a] = stack ? 1 : x->shape[a];
        s.numel = 1;
        for (d = 0; d < s.nd; d++) {
            s.numel *= s.n[d];
            st[d] = stack ? (d < a ? x->stride[d] : d == a ? 0 : x->stride[d - 1]) : x->stride[d];
        }
        if (!ttc_copy(g, x, 0, st, out, start * out->stride[a], &s)) return false;
        start += s.n[a];
    }
    return true;
}

/* Reflect, replicate, circular padding. */
static bool ttc_run_pad_gather(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    ttc_pad p;
    int d, i;
    memset(&p, 0, sizeof p);
    ttc_shape_of(&p.shape, out);
    p.x = ttc_ptr(g, x);
    p.y = ttc_ptr(g, out);
    p.elem_bytes = (int)tt_dtype_size(x->dtype);
    p.mode = (int)c->a.i[TT__PAD_MODE];
    for (d = 0; d < x->ndim; d++) {
        p.xs[d] = x->stride[d];
        p.xn[d] = x->shape[d];
    }
    for (i = 0; i < (int)c->a.i[0]; i += 2) p.before[x->ndim - 1 - i / 2] = c->a.i[1 + i];
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_pad, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the padding kernel");
}

/* Constant padding: the output filled with the value, then x copied inside. */
static bool ttc_run_pad(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int n_pads = (int)c->a.i[0], i;
    int64_t at = 0;
    ttc_shape s;
    if (c->a.i[TT__PAD_MODE] != TT_PAD_CONSTANT) return ttc_run_pad_gather(g, c, out);
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_fill, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, ttc_ptr(g, out), (int)out->dtype,
               out->numel, c->a.f[0]);
    if (!ttc_launched(g, "the fill kernel")) return false;
    for (i = 0; i < n_pads; i += 2) at += c->a.i[1 + i] * out->stride[x->ndim - 1 - i / 2];
    ttc_shape_of(&s, x);
    return ttc_copy(g, x, 0, x->stride, out, at, &s);
}

/* flip: a copy that reads each flipped axis from its end, with the stride negated. */
static bool ttc_run_flip(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    int64_t st[TT_MAX_DIMS], at = 0;
    ttc_shape s;
    int i, d;
    for (d = 0; d < x->ndim; d++) st[d] = x->stride[d];
    for (i = 0; i < (int)c->a.i[0]; i++) {
        d = tt__axis((int)c->a.i[1 + i], x->ndim);
        if (x->shape[d] > 0) at += (x->shape[d] - 1) * x->stride[d];
        st[d] = -x->stride[d];
    }
    ttc_shape_of(&s, x);
    return ttc_copy(g, x, at, st, out, 0, &s);
}

/* tile, repeat_interleave: the header's plan gives the axes and the repeats. */
static bool ttc_run_repeat(tt_graph *g, tt_ctx *scratch, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0];
    tt_tensor shape_only;
    ttc_repeat p;
    int D, d;
    memset(&p, 0, sizeof p);
    D = tt__repeat_plan(scratch, c, p.reps, &shape_only);
    if (D < 0) return false;
    ttc_shape_of(&p.shape, out);
    p.x.p = ttc_ptr(g, x);
    p.x.dtype = x->dtype;
    for (d = 0; d < D; d++) {
        int xd = d - (D - x->ndim);
        p.xn[d] = xd >= 0 ? x->shape[xd] : 1;
        p.x.st[d] = xd >= 0 ? x->stride[xd] : 0;
    }
    p.y.p = ttc_ptr(g, out);
    p.y.dtype = out->dtype;
    p.interleave = c->op == TT__OP_REPEAT_INTERLEAVE;
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_repeat, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the repeat kernel");
}

/* shape_as_tensor: x's sizes, known now. */
static bool ttc_run_shape(tt_graph *g, const tt__call *c, tt_tensor *out) {
    ttc_values v;
    int d;
    memset(&v, 0, sizeof v);
    for (d = 0; d < c->in[0]->ndim; d++) v.v[d] = (float)c->in[0]->shape[d];
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_set, 1, TTC_THREADS, ttc_of(g)->stream, ttc_ptr(g, out), (int)out->dtype, (int)out->numel, v);
    return ttc_launched(g, "the set kernel");
}

/* gather (index as x's rank), index_select (a 1-D index on axis a), embedding (weight [V,D]
   rows for each index). */
static bool ttc_run_index(tt_graph *g, const tt__call *c, tt_tensor *out) {
    const tt_tensor *x = c->in[0], *index = c->in[1];
    int nd = out->ndim, a, d;
    ttc_index p;
    memset(&p, 0, sizeof p);
    ttc_shape_of(&p.shape, out);
    p.x = ttc_ptr(g, x);
    p.y = ttc_ptr(g, out);
    p.elem_bytes = (int)tt_dtype_size(x->dtype);
    p.index = (const int32_t *)ttc_ptr(g, index);
    p.bad = ttc_of(g)->bad_index;
    if (c->op == TT__OP_EMBEDDING) {                   /* out [..., D]: the index on every axis but the last */
        for (d = 0; d < nd - 1; d++) p.is[d] = index->stride[d];
        p.xs[nd - 1] = x->stride[1];
        p.x_axis_stride = x->stride[0];
        p.limit = x->shape[0];
    } else {
        a = tt__axis((int)c->a.i[0], x->ndim);
        for (d = 0; d < nd; d++) {
            p.xs[d] = d == a ? 0 : x->stride[d];
            if (c->op == TT__OP_GATHER) p.is[d] = index->stride[d];
        }
        if (c->op == TT__OP_INDEX_SELECT) p.is[a] = index->stride[0];
        p.x_axis_stride = x->stride[a];
        p.limit = x->shape[a];
    }
    if (out->numel == 0) return true;
    TTC_LAUNCH(ttc_k_index, ttc_blocks(out->numel), TTC_THREADS, ttc_of(g)->stream, p);
    return ttc_launched(g, "the index kernel");
}

/* ==========================================================================
 * the backend: the tt__backend functions
 * ========================================================================== */

/* Every op has a kernel here; these read their data as f32 only (the others load any
   dtype, converting as the CPU does): pooling, resizing, conv3d and transposed convolution,
   attention's q, k and v. */
static bool ttc_needs_f32(int op, int input) {
    switch (op) {
    case TT__OP_MAX_POOL: case TT__OP_AVG_POOL: case TT__OP_ADAPTIVE_AVG_POOL2D: case TT__OP_UPSAMPLE_NEAREST:
    case TT__OP_UPSAMPLE_BILINEAR: case TT__OP_CONV3D: case TT__OP_CONV_TRANSPOSE:
        return true;
    case TT__OP_SDPA:
        return input < 3;                             /* the mask: any dtype */
    default:
        return false;
    }
}

/* The first input of node n (of a fused node: of its epilogue head too) that a kernel here
   cannot read, or -1. */
static int ttc_unreadable_input(const tt_graph *g, const tt__node *n) {
    int k, at = 0;
    if (tt__is_fused(n)) {
        const struct tt__program *pr = &g->progs[n->a.i[0]];
        if (pr->head < 0) return -1;
        at = pr->n_in;                                 /* a head's inputs follow the program's */
        n = &g->tape.nodes[pr->head];
    }
    for (k = 0; k < n->n_in; k++) {
        int v = tt__node_in(g, n, at + k);
        if (v >= 0 && ttc_needs_f32(n->op, k) && g->tape.values[v].meta.dtype != TT_F32) return k;
    }
    return -1;
}

/* Attention with more value features than its kernel's threads hold (ttc_k_attention). */
static bool ttc_too_wide(const tt_graph *g, const tt__node *n) {
    const tt_tensor *v;
    if (n->op != TT__OP_SDPA) return false;
    v = &g->tape.values[tt__node_in(g, n, 2)].meta;
    return v->shape[v->ndim - 1] > (int64_t)TTC_ATT_FEATURES * TTC_THREADS;
}

static bool ttc_supports(const tt_graph *g, const tt__node *n) { return ttc_unreadable_input(g, n) < 0 && !ttc_too_wide(g, n); }

/* One op node: the launch of its kernel family. */
static bool ttc_run_node(tt_graph *g, tt_ctx *scratch, int node, tt__call *c, tt_tensor *out) {
    const ttc_prog *pg = &ttc_of(g)->prog[node];
    if (pg->n > 0) return ttc_launch_program(g, pg, c->in, c->n_in, &g->tape.nodes[node].out, 1);
    switch (c->op) {
    case TT__OP_MATMUL: case TT__OP_LINEAR:     return ttc_run_gemm(g, c, out, false);
    case TT__OP_CONV2D: case TT__OP_CONV1D:     return ttc_run_conv(g, c, out, false);
    case TT__OP_SOFTMAX: case TT__OP_LOG_SOFTMAX: return ttc_run_softmax(g, c, out);
    case TT__OP_LAYER_NORM: case TT__OP_RMS_NORM: return ttc_run_norm(g, c, out);
    case TT__OP_BATCH_NORM:                     return ttc_run_batch_norm(g, c, out);
    case TT__OP_MAX_POOL: case TT__OP_AVG_POOL: return ttc_run_pool(g, c, out);
    case TT__OP_ADAPTIVE_AVG_POOL2D:            return ttc_run_adaptive(g, c, out);
    case TT__OP_UPSAMPLE_NEAREST: case TT__OP_UPSAMPLE_BILINEAR: return ttc_run_resize(g, c, out);
    case TT__OP_CONV3D: case TT__OP_CONV_TRANSPOSE: return ttc_run_conv_nd(g, c, out);
    case TT__OP_SDPA:                           return ttc_run_attention(g, c, out);
    case TT__OP_CONCAT: case TT__OP_STACK:      return ttc_run_concat(g, c, out);
    case TT__OP_PAD:                            return ttc_run_pad(g, c, out);
    case TT__OP_GATHER: case TT__OP_INDEX_SELECT: case TT__OP_EMBEDDING: return ttc_run_index(g, c, out);
    case TT__OP_FLIP:                           return ttc_run_flip(g, c, out);
    case TT__OP_TILE: case TT__OP_REPEAT_INTERLEAVE: return ttc_run_repeat(g, scratch, c, out);
    case TT__OP_SHAPE_AS_TENSOR:                return ttc_run_shape(g, c, out);
    case TT__OP_GROUP_NORM:                     return ttc_run_group_norm(g, c, out);
    default:                                    return ttc_run_reduce(g, c, out);
    }
}

/* A fused node: its epilogue head's GEMM (with the ReLU when that is the whole program, as
   the CPU does), then its program. */
static bool ttc_run_program(tt_graph *g, tt_ctx *scratch, const tt__node *n) {
    const struct tt__program *pr = &g->progs[n->a.i[0]];
    tt_tensor *in[TT__MAX_OPS];
    int k;
    (void)scratch;
    for (k = 0; k < pr->n_in; k++)
        in[k] = pr->head >= 0 && k == pr->head_input ? &g->rt[pr->outs[pr->head_out]] : &g->rt[tt__node_in(g, n, k)];
    if (pr->head >= 0) {
        const tt__node *h = &g->tape.nodes[pr->head];
        tt_tensor *hin[4] = {NULL, NULL, NULL, NULL};
        bool relu = tt__program_is_head_relu(g, pr), ok;
        tt__call hc;
        for (k = 0; k < h->n_in && k < 4; k++) {
            int v = tt__node_in(g, n, pr->n_in + k);
            hin[k] = v >= 0 ? &g->rt[v] : NULL;
        }
        hc = tt__call_init(h->name, h->op, hin, h->n_in, &h->a);
        if (h->op == TT__OP_CONV2D || h->op == TT__OP_CONV1D) ok = ttc_run_conv(g, &hc, &g->rt[pr->outs[pr->head_out]], relu);
        else ok = ttc_run_gemm(g, &hc, &g->rt[pr->outs[pr->head_out]], relu);
        if (!ok || relu) return ok;
    }
    return ttc_launch_program(g, &ttc_of(g)->prog[n - g->tape.nodes], in, pr->n_in, pr->outs, pr->n_out);
}

/* The bytes of value v's elements (contiguous: what is copied in and out). */
static size_t ttc_value_bytes(const tt_graph *g, int v) {
    const tt_tensor *m = &g->tape.values[v].meta;
    return (size_t)m->numel * tt_dtype_size(m->dtype);
}

/* The inputs, and the parameters that were not frozen (the user's tensors, read at every run
   as the CPU reads them), to the device, before the nodes. */
static bool ttc_upload_inputs(tt_graph *g, const void *const *d_inputs) {
    ttc_graph *d = ttc_of(g);
    const char *fn = d->fn;
    int i, v;
    for (i = 0; i < g->tape.n_inputs; i++) {
        v = g->tape.inputs[i];
        if (g->offset[v] < 0) continue;
        if (d_inputs) {                                /* the header (its offset, strides) is kept */
            if (!ttc_check(g, cudaMemcpyAsync(d->base[v], d_inputs[i], ttc_value_bytes(g, v), cudaMemcpyDeviceToDevice,
                                              d->stream), fn, "copying an input on the device")) return false;
        } else if (!ttc_check(g, cudaMemcpyAsync(d->base[v], tt__ptr(&g->rt[v]), ttc_value_bytes(g, v), cudaMemcpyHostToDevice,
                                                 d->stream), fn, "uploading an input")) return false;
    }
    for (v = 0; v < g->n_traced_values; v++) {
        const tt_tensor *t = &g->rt[v];
        if (d->param_at[v] < 0 || g->tape.values[v].kind != TT__V_PARAM) continue;
        if (!tt_is_contiguous(t))
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "%s: parameter '%s' %S is not contiguous: the GPU uploads parameters as "
                             "they are (make it contiguous, or freeze the graph: TT_PASS_FREEZE)", fn,
                             g->tape.values[v].name, t) == TT_OK;
        if (!ttc_check(g, cudaMemcpyAsync(d->base[v], tt__ptr(t), ttc_value_bytes(g, v), cudaMemcpyHostToDevice, d->stream),
                       fn, "uploading a parameter")) return false;
    }
    return true;
}

/* Every entry point: its name for messages, and the graph's device made current (the
   calling thread may be another, or another graph may have made another device current). */
static bool ttc_enter(tt_graph *g, const char *fn) {
    ttc_graph *d = ttc_of(g);
    d->fn = fn;
    return ttc_check(g, cudaSetDevice(d->device), fn, "cudaSetDevice");
}

/* REDUCE_OVERHEAD: the node walk captured as a CUDA graph (each launch recorded, not run). */
static bool ttc_capture(tt_graph *g) {
    ttc_graph *d = ttc_of(g);
    tt_status st;
    if (!ttc_check(g, cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal), d->fn, "cudaStreamBeginCapture"))
        return false;
    st = tt__graph_exec(g, g->cpu.scratch, NULL);
    if (!ttc_check(g, cudaStreamEndCapture(d->stream, &d->cgraph), d->fn, "cudaStreamEndCapture") || st != TT_OK) return false;
    return ttc_check(g, cudaGraphInstantiate(&d->cexec, d->cgraph, 0), d->fn, "cudaGraphInstantiate");
}

/* A replay runs no node walk: the view nodes' headers (an output may view an input, whose
   header is this run's tensor) are made again on the host, as the walk would. */
static void ttc_refresh_views(tt_graph *g) {
    int p;
    for (p = 0; p < g->n_order; p++)
        if (tt__is_view_op(g->tape.nodes[g->order[p]].op)) tt__graph_exec_node(g, g->cpu.scratch, p, NULL);
}

/* The nodes: launched one by one, or (REDUCE_OVERHEAD) captured once as a CUDA graph, then
   replayed. */
static bool ttc_run_nodes(tt_graph *g) {
    ttc_graph *d = ttc_of(g);
    const char *fn = d->fn;
    if (d->has_index && !ttc_check(g, cudaMemsetAsync(d->bad_index, 0, sizeof(int), d->stream), fn, "clearing the index flag"))
        return false;
    if (g->mode != TT_MODE_REDUCE_OVERHEAD) return tt__graph_exec(g, g->cpu.scratch, NULL) == TT_OK;
    if (d->captured) {                                 /* the views' headers follow this run's inputs */
        ttc_refresh_views(g);
        return ttc_check(g, cudaGraphLaunch(d->cexec, d->stream), fn, "cudaGraphLaunch");
    }
    if (!ttc_capture(g)) {
        if (d->cgraph) cudaGraphDestroy(d->cgraph);
        d->cgraph = NULL;
        return false;
    }
    d->captured = true;
    return ttc_check(g, cudaGraphLaunch(d->cexec, d->stream), fn, "cudaGraphLaunch");
}

/* tt_graph_run on the GPU: inputs up, the nodes, the outputs' buffers down into the host
   arena (where tt_graph_output reads them). */
static tt_status ttc_run(tt_graph *g) {
    ttc_graph *d = ttc_of(g);
    int i;
    if (!ttc_enter(g, "tt_graph_run") || !ttc_upload_inputs(g, NULL) || !ttc_run_nodes(g)) return g->err.status ? g->err.status : TT_ERR_BACKEND;
    for (i = 0; i < g->n_outputs; i++) {
        int r = g->root[tt__rv(g, g->outputs[i])];
        if (g->offset[r] < 0) continue;                /* a constant or an input: the host has it */
        if (!ttc_check(g, cudaMemcpyAsync(g->arena + g->offset[r], d->base[r], ttc_value_bytes(g, r), cudaMemcpyDeviceToHost,
                                          d->stream), d->fn, "downloading an output")) return g->err.status;
    }
    return TT_OK;
}

/* Waits for the stream; then an index out of range, found by an index kernel, is the error
   the CPU would have given (TT_ERR_INDEX). */
static tt_status ttc_sync(tt_graph *g) {
    ttc_graph *d = ttc_of(g);
    int bad = 0;
    if (!ttc_check(g, cudaStreamSynchronize(d->stream), d->fn, "a kernel (cudaStreamSynchronize)"))
        return g->err.status;
    if (d->has_index && !ttc_check(g, cudaMemcpy(&bad, d->bad_index, sizeof bad, cudaMemcpyDeviceToHost), d->fn,
                                   "reading the index flag"))
        return g->err.status;
    if (bad) return tt__gfail(g, TT_ERR_INDEX, "%s: a gather, index_select or embedding met an index out of "
                              "range (the GPU wrote zeros there)", d->fn);
    return TT_OK;
}

/* tt_graph_check: the inputs (and parameters) to the device, the index flag cleared. */
static tt_status ttc_load_inputs(tt_graph *g) {
    ttc_graph *d = ttc_of(g);
    if (!ttc_enter(g, "tt_graph_check") || !ttc_upload_inputs(g, NULL)) return g->err.status;
    if (d->has_index && !ttc_check(g, cudaMemsetAsync(d->bad_index, 0, sizeof(int), d->stream), d->fn,
                                   "clearing the index flag"))
        return g->err.status;
    return TT_OK;
}

/* tt_graph_check: after the node at position p, its results (their buffers) to the host. */
static tt_status ttc_fetch(tt_graph *g, int p) {
    const tt__node *n = &g->tape.nodes[g->order[p]];
    const int *outs;
    int k, no = tt__node_outs(g, n, &outs);
    if (ttc_sync(g) != TT_OK) return g->err.status;
    for (k = 0; k < no; k++) {
        int r = g->root[outs[k]];
        if (g->offset[r] < 0) continue;
        if (!ttc_check(g, cudaMemcpy(g->arena + g->offset[r], ttc_of(g)->base[r], ttc_value_bytes(g, r), cudaMemcpyDeviceToHost),
                       ttc_of(g)->fn, "downloading a node's result")) return g->err.status;
    }
    return TT_OK;
}

static void ttc_free_state(tt_graph *g, ttc_graph *d) {
    const tt_allocator *al = &g->tape.alloc;
    if (!d) return;
    cudaSetDevice(d->device);                          /* its memory and stream are that device's */
    if (d->cexec) cudaGraphExecDestroy(d->cexec);
    if (d->cgraph) cudaGraphDestroy(d->cgraph);
    cudaFree(d->arena);
    cudaFree(d->consts);
    cudaFree(d->uops);
    if (d->stream) cudaStreamDestroy(d->stream);
    tt__heap_free(al, d->base);
    tt__heap_free(al, d->param_at);
    tt__heap_free(al, d->prog);
    tt__heap_free(al, d);
}

/* Frees the device state, then the CPU's (its scratch served the node walk). */
static void ttc_release(tt_graph *g) {
    ttc_free_state(g, ttc_of(g));
    g->device = NULL;
    tt__cpu_release(g);
}

static tt_status ttc_prepare(tt_graph *g);

static const tt__backend ttc_backend = {
    "cuda",
    ttc_supports,
    ttc_prepare,
    ttc_run,
    ttc_load_inputs,
    ttc_fetch,
    ttc_run_node,
    ttc_run_program,
    ttc_sync,
    ttc_release
};

/* ==========================================================================
 * the backend: moving a compiled graph to the device
 * ========================================================================== */

/* The micro-ops of a lone elementwise node (as the fusion pass would write them for a
   group of one): load each input, apply the op, store. Returns the count. */
static int ttc_lone_program(const tt_graph *g, const tt__node *n, tt__uop *u) {
    int k, r;
    memset(u, 0, sizeof(tt__uop) * 6);
    for (k = 0; k < n->n_in; k++) {
        u[k].kind = TT__U_LOAD;
        u[k].dst = (int16_t)k;
        u[k].a = (int16_t)k;
    }
    r = n->n_in;
    u[r].dst = (int16_t)r;
    u[r].op = (int16_t)n->op;
    u[r].a = 0;
    switch (tt__op_table[n->op].kind) {
    case TT__K_UNARY:  u[r].kind = TT__U_UNARY; u[r].p0 = n->a.f[0]; u[r].p1 = n->a.f[1]; break;
    case TT__K_BINARY: u[r].kind = TT__U_BINARY; u[r].b = 1; break;
    case TT__K_WHERE:  u[r].kind = TT__U_WHERE; u[r].c = 0; u[r].a = 1; u[r].b = 2; break;
    default:           r--; break;                    /* a cast or copy: the store converts */
    }
    (void)g;
    u[r + 1].kind = TT__U_STORE;
    u[r + 1].a = (int16_t)r;
    u[r + 1].b = 0;
    return r + 2;
}

/* Every program (fused nodes' and lone elementwise nodes') into one device table. */
static bool ttc_upload_programs(tt_graph *g, ttc_graph *d) {
    int p, total = 0;
    tt__uop *host;
    bool ok;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *n = &g->tape.nodes[g->order[p]];
        if (tt__is_fused(n)) total += g->progs[n->a.i[0]].n_uops;
        else if (tt__op_uop(n->op) != TT__U_NONE) total += 6;
    }
    host = (tt__uop *)tt__galloc(g, sizeof(tt__uop) * (size_t)(total + 1));
    if (!host) return tt__gfail(g, TT_ERR_OOM, "tt_graph_to_cuda: out of memory") == TT_OK;
    total = 0;
    for (p = 0; p < g->n_order; p++) {
        int node = g->order[p];
        const tt__node *n = &g->tape.nodes[node];
        ttc_prog *pg = &d->prog[node];
        pg->at = total;
        if (tt__is_fused(n)) {
            const struct tt__program *pr = &g->progs[n->a.i[0]];
            memcpy(host + total, pr->uops, sizeof(tt__uop) * (size_t)pr->n_uops);
            pg->n = pr->n_uops;
        } else if (tt__op_uop(n->op) != TT__U_NONE) {
            pg->n = ttc_lone_program(g, n, host + total);
        }
        total += pg->n;
    }
    ok = ttc_check(g, cudaMalloc((void **)&d->uops, sizeof(tt__uop) * (size_t)(total + 1)), "tt_graph_to_cuda",
                   "cudaMalloc of the programs") &&
         ttc_check(g, cudaMemcpy(d->uops, host, sizeof(tt__uop) * (size_t)total, cudaMemcpyHostToDevice), "tt_graph_to_cuda",
                   "uploading the programs");
    tt__heap_free(&g->tape.alloc, host);
    return ok;
}

/* Is v a constant or parameter that some live node reads (a root: views share it)? */
static bool ttc_is_weight(const tt_graph *g, int v) {
    const tt__value *val = &g->tape.values[v];
    return g->root[v] == v && g->last[v] >= -1 && (val->kind == TT__V_CONST || val->kind == TT__V_PARAM) &&
           g->offset[v] < 0 && g->remap[v] == v;
}

/* Constants uploaded once, parameters given slots (uploaded at each run; REDUCE_OVERHEAD:
   now, bound at compile), the arena: every value's device address. */
static bool ttc_upload_weights(tt_graph *g, ttc_graph *d) {
    int nv = g->tape.n_values, v;
    size_t bytes = 0;
    for (v = 0; v < nv; v++) {
        d->param_at[v] = -1;
        if (!ttc_is_weight(g, v)) continue;
        d->param_at[v] = (int64_t)bytes;
        bytes += (ttc_value_bytes(g, v) + 255) & ~(size_t)255;
    }
    bytes += sizeof(int);                              /* the index flag, last */
    if (!ttc_check(g, cudaMalloc((void **)&d->arena, g->arena_bytes ? g->arena_bytes : 1), "tt_graph_to_cuda",
                   "cudaMalloc of the arena") ||
        !ttc_check(g, cudaMalloc((void **)&d->consts, bytes), "tt_graph_to_cuda", "cudaMalloc of the constants"))
        return false;
    d->bad_index = (int *)(d->consts + bytes - sizeof(int));
    for (v = 0; v < nv; v++) {
        const tt_tensor *t = &g->rt[v];
        bool upload_now = g->tape.values[v].kind == TT__V_CONST || g->mode == TT_MODE_REDUCE_OVERHEAD;
        if (g->offset[v] >= 0) d->base[v] = d->arena + g->offset[v];
        if (d->param_at[v] < 0) continue;
        d->base[v] = d->consts + d->param_at[v];
        if (!upload_now) continue;
        if (!tt_is_contiguous(t))
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "tt_graph_to_cuda: '%s' %S is not contiguous (make it contiguous)",
                             g->tape.values[v].name, t) == TT_OK;
        if (!ttc_check(g, cudaMemcpy(d->base[v], tt__ptr(t), ttc_value_bytes(g, v), cudaMemcpyHostToDevice),
                       "tt_graph_to_cuda", "uploading a constant")) return false;
    }
    return true;
}

/* The device, the stream, the uploads. Any failure leaves g as it was (on the CPU). */
static tt_status ttc_prepare(tt_graph *g) {
    ttc_graph *d = (ttc_graph *)g->device;
    int nv = g->tape.n_values, p;
    d->base = (char **)tt__galloc(g, sizeof(char *) * (size_t)nv);
    d->param_at = (int64_t *)tt__galloc(g, sizeof(int64_t) * (size_t)nv);
    d->prog = (ttc_prog *)tt__galloc(g, sizeof(ttc_prog) * (size_t)g->tape.n_nodes);
    if (!d->base || !d->param_at || !d->prog) return tt__gfail(g, TT_ERR_OOM, "tt_graph_to_cuda: out of memory");
    if (!ttc_check(g, cudaSetDevice(d->device), "tt_graph_to_cuda", "cudaSetDevice") ||
        !ttc_check(g, cudaStreamCreate(&d->stream), "tt_graph_to_cuda", "cudaStreamCreate") ||
        !ttc_upload_weights(g, d) || !ttc_upload_programs(g, d))
        return g->err.status;
    for (p = 0; p < g->n_order; p++) {
        int op = g->tape.nodes[g->order[p]].op;
        if (op == TT__OP_GATHER || op == TT__OP_INDEX_SELECT || op == TT__OP_EMBEDDING) d->has_index = true;
    }
    return TT_OK;
}

/* ==========================================================================
 * the public functions
 * ========================================================================== */

int tt_cuda_device_count(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        ttc_check(NULL, e, "tt_cuda_device_count", "cudaGetDeviceCount");
        cudaGetLastError();                            /* not sticky */
        return 0;
    }
    return n;
}

bool tt_cuda_device_name(int device, char *buf, size_t size) {
    cudaDeviceProp prop;
    int n = tt_cuda_device_count();
    if (!buf || size == 0) return false;
    if (device < 0 || device >= n) {
        snprintf(buf, size, "no CUDA device %d (%d found%s%s)", device, n, n ? "" : ": ", n ? "" : ttc_last_error);
        return false;
    }
    if (!ttc_check(NULL, cudaGetDeviceProperties(&prop, device), "tt_cuda_device_name", "cudaGetDeviceProperties")) {
        snprintf(buf, size, "%s", ttc_last_error);
        return false;
    }
    snprintf(buf, size, "%s (sm_%d%d, %d SMs, %.1f GiB)", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
             (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return true;
}

const char *tt_cuda_error(void) { return ttc_last_error; }

/* A parameter (not frozen: read from the user's tensor at every run) that is not contiguous,
   or -1. */
static int ttc_strided_param(const tt_graph *g) {
    int v;
    for (v = 0; v < g->n_traced_values; v++) {
        const tt__value *val = &g->tape.values[v];
        if (ttc_is_weight(g, v) && val->kind == TT__V_PARAM && !tt_is_contiguous(val->ref ? val->ref : &val->meta)) return v;
    }
    return -1;
}

tt_status tt_graph_to_cuda(tt_graph *g, int device) {
    ttc_graph *d;
    int n, p, strided;
    if (!g) return TT_ERR_ARG;
    if (!g->compiled) return tt__gfail(g, TT_ERR_STATE, "tt_graph_to_cuda: compile g first (tt_graph_compile)");
    if (g->backend == &ttc_backend) return TT_OK;
    for (p = 0; p < g->n_order; p++) {
        const tt__node *node = &g->tape.nodes[g->order[p]];
        if (ttc_too_wide(g, node))
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "tt_graph_to_cuda: the cuda backend cannot run node %d (%s): v has "
                             "more than %d features; g stays on the CPU", g->order[p], tt__op_table[node->op].name,
                             TTC_ATT_FEATURES * TTC_THREADS);
        if (!ttc_supports(g, node))
            return tt__gfail(g, TT_ERR_UNSUPPORTED, "tt_graph_to_cuda: the cuda backend cannot run node %d (%s): its "
                             "kernel reads f32, input %d is not; g stays on the CPU", g->order[p],
                             tt__op_table[node->op].name, ttc_unreadable_input(g, node));
    }
    strided = ttc_strided_param(g);
    if (strided >= 0) {
        const tt__value *val = &g->tape.values[strided];
        return tt__gfail(g, TT_ERR_UNSUPPORTED, "tt_graph_to_cuda: parameter '%s' %S is not contiguous: the GPU uploads "
                         "parameters as they are at each run (make it contiguous, or freeze the graph: TT_PASS_FREEZE); "
                         "g stays on the CPU", val->name, val->ref ? val->ref : &val->meta);
    }
    n = tt_cuda_device_count();
    if (device < 0 || device >= n)
        return tt__gfail(g, TT_ERR_BACKEND, "tt_graph_to_cuda: device is %d, %d CUDA devices found%s%s; g stays on the CPU",
                         device, n, n ? "" : ": ", n ? "" : ttc_last_error);
    d = (ttc_graph *)tt__galloc(g, sizeof(ttc_graph));
    if (!d) return tt__gfail(g, TT_ERR_OOM, "tt_graph_to_cuda: out of memory");
    d->device = device;
    d->fn = "tt_graph_to_cuda";
    g->device = d;
    if (ttc_prepare(g) != TT_OK) {
        ttc_free_state(g, d);
        g->device = NULL;
        return g->err.status;
    }
    g->backend = &ttc_backend;
    g->has_run = false;
    return TT_OK;
}

bool tt_graph_on_cuda(const tt_graph *g) { return g && g->backend == &ttc_backend; }

tt_status tt_graph_run_cuda(tt_graph *g, const void *const *d_inputs, void *const *d_outputs) {
    int i;
    if (!g) return TT_ERR_ARG;
    if (!tt_graph_on_cuda(g)) return tt__gfail(g, TT_ERR_STATE, "tt_graph_run_cuda: g is not on the GPU (tt_graph_to_cuda)");
    if (g->tape.n_inputs > 0 && !d_inputs) return tt__gfail(g, TT_ERR_ARG, "tt_graph_run_cuda: d_inputs is NULL");
    for (i = 0; i < g->tape.n_inputs; i++)
        if (!d_inputs[i]) return tt__gfail(g, TT_ERR_ARG, "tt_graph_run_cuda: d_inputs[%d] is NULL", i);
    g->has_run = false;                                /* the host arena does not hold these outputs */
    if (g->mode != TT_MODE_REDUCE_OVERHEAD) tt__bind_params(g);
    if (!ttc_enter(g, "tt_graph_run_cuda") || !ttc_upload_inputs(g, d_inputs) || !ttc_run_nodes(g)) return g->err.status;
    for (i = 0; d_outputs && i < g->n_outputs; i++) {
        const tt_tensor *o = &g->rt[tt__rv(g, g->outputs[i])];
        tt_tensor dst = *o;
        ttc_shape s;
        if (!d_outputs[i]) continue;
        ttc_shape_of(&s, o);
        tt__set_contiguous_strides(&dst);
        {
            ttc_view a, b;
            int d;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            a.p = ttc_ptr(g, o);
            a.dtype = o->dtype;
            b.p = (char *)d_outputs[i];
            b.dtype = o->dtype;
            for (d = 0; d < s.nd; d++) {
                a.st[d] = o->stride[d];
                b.st[d] = dst.stride[d];
            }
            if (s.numel == 0) continue;
            TTC_LAUNCH(ttc_k_copy, ttc_blocks(s.numel), TTC_THREADS, ttc_of(g)->stream, s, a, b);
            if (!ttc_launched(g, "the output copy")) return g->err.status;
        }
    }
    return TT_OK;
}

tt_status tt_graph_cuda_sync(tt_graph *g) {
    if (!g) return TT_ERR_ARG;
    if (!tt_graph_on_cuda(g)) return tt__gfail(g, TT_ERR_STATE, "tt_graph_cuda_sync: g is not on the GPU (tt_graph_to_cuda)");
    if (!ttc_enter(g, "tt_graph_cuda_sync")) return g->err.status;
    return ttc_sync(g);
}

void *tt_cuda_alloc(size_t bytes) {
    void *p = NULL;
    return ttc_check(NULL, cudaMalloc(&p, bytes ? bytes : 1), "tt_cuda_alloc", "cudaMalloc") ? p : NULL;
}

void tt_cuda_free(void *device_ptr) { cudaFree(device_ptr); }

bool tt_cuda_upload(void *device_dst, const void *host_src, size_t bytes) {
    return ttc_check(NULL, cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice), "tt_cuda_upload", "cudaMemcpy");
}

bool tt_cuda_download(void *host_dst, const void *device_src, size_t bytes) {
    return ttc_check(NULL, cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost), "tt_cuda_download", "cudaMemcpy");
}
