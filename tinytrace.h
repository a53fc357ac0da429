/* tinytrace.h - v0.1.0 - header-only tensor engine with tracing - MIT or public domain (see end)

   USAGE
     #define TINYTRACE_IMPLEMENTATION in exactly ONE .c or .cpp file, then #include "tinytrace.h".
     Every other file includes it without the define and sees declarations only.

   QUICKSTART (a copy of examples/00_hello.c, minus its checks)
     tt_ctx *c = tt_ctx_create(NULL);                         // heap-backed context
     int64_t shape[2] = {2, 3};
     tt_tensor *x = tt_randn(c, 42, 2, shape);                // same numbers on every machine
     tt_tensor *y = tt_relu(c, tt_add_scalar(c, x, 0.5f));    // ops compute at once
     tt_tensor *s = tt_sum(c, y, NULL, 0, false);             // NULL axes: reduce all
     if (!s) printf("error: %s\n", tt_error(c));             // errors are sticky: check once
     else    printf("sum = %f\n", tt_item(c, s));
     tt_ctx_destroy(c);                                       // frees every tensor of c

   CONTENTS (grep for the anchors: grep -n '>>' tinytrace.h)
     >>config       configuration macros and their defaults
     >>api-types    status codes, dtypes, tensors, context descriptors
     >>api          context, errors, memory scopes, creation, access, views, ops
     >>impl-config  includes and libc overrides used by the implementation
     >>util         small helpers: overflow-checked sizes, shape printing, formatting
     >>error        sticky per-context error state
     >>arena        the context allocator: blocks, scopes, guard regions
     >>dtype        f16/bf16 conversion, element loads and stores
     >>tensor       tensor headers, creation, random numbers, access
     >>view         views: reshape, permute, slice, expand, ...
     >>loop         the strided N-d loop that every elementwise kernel runs on
     >>ewise        unary, binary, comparison, logical, where, cast
     >>reduce       sum, mean, max, min, prod, argmax, var, softmax, norms
     >>linalg       matmul (torch.matmul semantics), linear
     >>conv         conv2d/conv1d (im2col + GEMM), pooling, upsampling
     >>shape        concat, stack, split, pad, gather, embedding, tile, ...
     >>attention    scaled dot-product attention
     >>debug        printing
     >>license

   CONFIG (define before including; "impl" = only where TINYTRACE_IMPLEMENTATION is defined)
     macro                         default                     where
     TT_MAX_DIMS                   8                           every file (changes tt_tensor)
     TT_STATIC                     off: functions are extern   every file
     TT_MALLOC/TT_REALLOC/TT_FREE  libc malloc/realloc/free    impl; all three or none
     TT_ASSERT(c)                  assert(c)                   impl; internal invariants only
     TT_NO_STDIO                   off                         impl; drops tt_print (no printf)
     TT_NO_THREADS                 off                         impl; single-threaded (no pthreads)
     TT_NO_MALLOC                  off                         impl; every byte from the user's
                                                               buffer (tt_ctx_desc.mem_buffer)

   ERRORS
     Ops return a tensor, or NULL on failure, and record the FIRST error in the context:
     tt_error(ctx) gives "tt_matmul: inner dimensions differ: a is [2,3], b is [4,5]".
     An op given a NULL input returns NULL and adds no message, so a whole forward pass is
     written straight and checked once at the end. Nothing aborts on user error; running
     out of arena memory is an error like any other. tt_clear_error() resets the state.

   LIMITS (v0.1)
     All arithmetic computes in f32; f16/bf16 are storage types (tt_cast converts them).
     Arithmetic on i32/bool inputs converts them to f32. Tensors have at most TT_MAX_DIMS dims.

   RECENT CHANGES
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
#define TT_VERSION_MINOR  1
#define TT_VERSION_PATCH  0
#define TT_VERSION_STRING "0.1.0"

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

/* Status codes: 0 is success, every error is negative. */
typedef enum tt_status {
    TT_OK               =  0,
    TT_ERR_ARG          = -1,   /* invalid argument (bad axis, negative size, NULL array) */
    TT_ERR_OOM          = -2,   /* out of memory: heap, or the user's arena is full */
    TT_ERR_SHAPE        = -3,   /* shapes do not fit together */
    TT_ERR_DTYPE        = -4,   /* wrong element type */
    TT_ERR_UNSUPPORTED  = -5,   /* valid request this build cannot do */
    TT_ERR_STATE        = -6,   /* call in the wrong state */
    TT_ERR_BACKEND      = -7,   /* accelerator failure */
    TT_ERR_INDEX        = -8,   /* an index tensor holds a value out of range */
    TT_ERR_CORRUPT      = -9    /* a guard region was overwritten: memory corruption */
} tt_status;

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
} tt_ctx_desc;

/* A saved position of the context's allocator; see tt_scope_begin. */
typedef struct tt_scope {
    void  *block;
    size_t used;
    void  *last_guard;
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
   all its tensors live in that buffer and nothing is allocated. Returns NULL only when the
   context itself cannot be made (no memory, or a buffer smaller than TT_CTX_OVERHEAD). */
TT_API tt_ctx     *tt_ctx_create(const tt_ctx_desc *desc);
/* Free the context and every tensor it made (user buffers are left to the user). */
TT_API void        tt_ctx_destroy(tt_ctx *ctx);
/* The first error's message since the last clear, or NULL when there is none. */
TT_API const char *tt_error(const tt_ctx *ctx);
TT_API tt_status   tt_ctx_status(const tt_ctx *ctx);
TT_API void        tt_clear_error(tt_ctx *ctx);
/* Bytes of arena memory in use (allocations, headers and guards). */
TT_API size_t      tt_ctx_used(const tt_ctx *ctx);
/* With debug_guards: check every guard region; false (and a TT_ERR_CORRUPT error naming
   the allocation) when something wrote outside its tensor. Always true without guards. */
TT_API bool        tt_ctx_check_guards(tt_ctx *ctx);

/* ---- memory scopes ------------------------------------------------------
   Everything allocated after tt_scope_begin is freed at once by tt_scope_end, so a loop of
   eager calls runs in constant memory. Tensors made inside the scope are invalid after it. */
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
/* Wrap user memory (contiguous, row-major) without copying; the user keeps it alive. */
TT_API tt_tensor  *tt_wrap(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape, void *data);
/* Counter-based random numbers: element i depends only on (seed, i), so the same seed gives
   the same f32 values on every machine, compiler and thread count.
   tt_rand: uniform in [0,1); tt_randn: standard normal (Box-Muller). */
TT_API tt_tensor  *tt_rand(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape);
TT_API tt_tensor  *tt_randn(tt_ctx *ctx, uint64_t seed, int ndim, const int64_t *shape);

/* ---- access -------------------------------------------------------------- */
TT_API bool        tt_is_contiguous(const tt_tensor *t);
/* Pointer to element (0,...,0); for contiguous tensors the whole data in order. */
TT_API void       *tt_data(const tt_tensor *t);
/* Value of a one-element tensor as float; NaN and an error otherwise. */
TT_API float       tt_item(tt_ctx *ctx, const tt_tensor *t);
/* Copy all elements, in row-major order, converted to f32, into dst (n must equal numel). */
TT_API tt_status   tt_copy_to_f32(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n);
/* Element at index idx (t->ndim entries, negative counts from the end), as f32. */
TT_API float       tt_get(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx);
/* True when the two shapes are equal. */
TT_API bool        tt_same_shape(const tt_tensor *a, const tt_tensor *b);

/* ---- views (no copy; the result shares storage with x) ------------------
   Axes may be negative: -1 is the last axis. */
/* New shape with the same elements; one size may be -1 (inferred). Fails, telling you to
   call tt_contiguous, when the strides cannot express the new shape. tt_view is a synonym. */
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
/* Merge axes start..end (inclusive) into one; a view like tt_reshape. */
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
TT_API tt_tensor  *tt_softplus(tt_ctx *ctx, tt_tensor *x);     /* log(1+exp(x)); x for x>20 (PyTorch) */
TT_API tt_tensor  *tt_erf(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_floor(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_ceil(tt_ctx *ctx, tt_tensor *x);
TT_API tt_tensor  *tt_round(tt_ctx *ctx, tt_tensor *x);        /* halves to even, like torch.round */
TT_API tt_tensor  *tt_clamp(tt_ctx *ctx, tt_tensor *x, float lo, float hi); /* min(max(x,lo),hi) */
TT_API tt_tensor  *tt_pow_scalar(tt_ctx *ctx, tt_tensor *x, float exponent);

/* ---- binary elementwise with NumPy broadcasting: result f32 --------------
   Shapes are aligned from the last axis; sizes must match or one must be 1. */
TT_API tt_tensor  *tt_add(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_sub(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_mul(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_div(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
TT_API tt_tensor  *tt_pow(tt_ctx *ctx, tt_tensor *a, tt_tensor *b);
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
   axes: n_axes axes to reduce (negative allowed, no repeats); NULL/0 reduces all axes.
   keepdim keeps reduced axes as size 1. Results are f32 (arg* give i32). */
TT_API tt_tensor  *tt_sum(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_mean(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_max(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_min(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
TT_API tt_tensor  *tt_prod(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim);
/* Variance / standard deviation with Bessel-style correction: divide by N - correction. */
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
/* Per-axis convolution settings: index 0 is height, 1 is width. */
typedef struct tt_conv_params {
    int stride[2];     /* >= 1 */
    int padding[2];    /* zeros added on both sides, >= 0 */
    int dilation[2];   /* >= 1 */
    int groups;        /* >= 1; C_in and C_out divisible by it (groups == C_in: depthwise) */
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
/* Square window `kernel`, stride (0 means = kernel), padding (<= kernel/2); floor mode.
   Max pooling ignores padding; average pooling counts it (PyTorch defaults). */
TT_API tt_tensor  *tt_max_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
TT_API tt_tensor  *tt_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding);
/* Output [N,C,out_h,out_w]; cell i averages rows floor(i*H/out_h) .. ceil((i+1)*H/out_h)-1. */
TT_API tt_tensor  *tt_adaptive_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w);
/* Nearest-neighbour resize to [N,C,out_h,out_w]: source row floor(i*H/out_h) (PyTorch 'nearest'). */
TT_API tt_tensor  *tt_upsample_nearest(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w);

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

/* ---- debug ------------------------------------------------------------------ */
/* Write "[2,3]" into buf (always NUL-terminated); returns buf. */
TT_API char       *tt_shape_str(const tt_tensor *t, char *buf, size_t size);
#ifndef TT_NO_STDIO
/* Print dtype, shape and (up to 64) values to stdout. */
TT_API void        tt_print(const tt_tensor *t, const char *name);
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
#include <string.h>
#include <math.h>
#include <stdarg.h>
#include <float.h>
#ifndef TT_NO_STDIO
#include <stdio.h>
#endif

#ifndef TT_ASSERT
#include <assert.h>
#define TT_ASSERT(c) assert(c)
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
static int64_t tt__min64(int64_t a, int64_t b) { return a < b ? a : b; }
static size_t  tt__round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* a*b, or -1 when it overflows (a, b >= 0). */
static int64_t tt__mul_checked(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a > INT64_MAX / b) return -1;
    return a * b;
}

/* Normalizes a possibly negative axis of an ndim-tensor; -1 when out of range. */
static int tt__axis(int axis, int ndim) {
    if (axis < -ndim || axis >= ndim) return -1;
    return axis < 0 ? axis + ndim : axis;
}

typedef struct tt__buf { char *p; size_t size, len; } tt__buf;

static void tt__put(tt__buf *b, const char *s) {
    while (*s) {
        if (b->len + 1 < b->size) b->p[b->len++] = *s;
        s++;
    }
    if (b->size) b->p[b->len < b->size ? b->len : b->size - 1] = '\0';
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
    b.p = buf; b.size = size; b.len = 0;
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
    b.p = buf; b.size = size; b.len = 0;
    buf[0] = '\0';
    tt__put_shape(&b, t);
    return buf;
}

/* ==========================================================================
 * >>error   sticky per-context error state
 *
 * The first failure since the last tt_clear_error is kept (status + message); later
 * failures are dropped, so the message points at the root cause. tt__fail formats into
 * the context's fixed buffer: no allocation on the error path.
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

struct tt_ctx {
    tt_status    status;
    char         msg[TT__MSG_SIZE];
    tt_allocator allocator;       /* heap mode */
    size_t       block_size;
    int          user_memory;     /* everything lives in the user's buffer */
    int          guards;
    tt__block   *first;           /* blocks in allocation order */
    tt__block   *cur;             /* the block being filled */
    tt__block    user_block;      /* the one block in user-memory mode */
    tt__guard   *last_guard;
};

TT_API const char *tt_version(void) { return TT_VERSION_STRING; }

TT_API const char *tt_status_str(tt_status s) {
    switch (s) {
    case TT_OK:              return "ok";
    case TT_ERR_ARG:         return "invalid argument";
    case TT_ERR_OOM:         return "out of memory";
    case TT_ERR_SHAPE:       return "shape mismatch";
    case TT_ERR_DTYPE:       return "dtype mismatch";
    case TT_ERR_UNSUPPORTED: return "unsupported";
    case TT_ERR_STATE:       return "wrong state";
    case TT_ERR_BACKEND:     return "backend failure";
    case TT_ERR_INDEX:       return "index out of range";
    case TT_ERR_CORRUPT:     return "memory corruption";
    }
    return "unknown status";
}

/* Records the error (if it is the first) and returns NULL, for `return tt__fail(...)`. */
static void *tt__fail(tt_ctx *ctx, tt_status status, const char *fmt, ...) {
    va_list ap;
    if (!ctx || ctx->status != TT_OK) return NULL;
    ctx->status = status;
    va_start(ap, fmt);
    tt__vformat(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
    return NULL;
}

/* The same for functions that return a status. */
#define TT__FAIL_STATUS(ctx, st, ...) (tt__fail((ctx), (st), __VA_ARGS__), (ctx) ? (ctx)->status : (st))

TT_API const char *tt_error(const tt_ctx *ctx) {
    if (!ctx) return "tinytrace: NULL context";
    return ctx->status == TT_OK ? NULL : ctx->msg;
}

TT_API tt_status tt_ctx_status(const tt_ctx *ctx) { return ctx ? ctx->status : TT_ERR_ARG; }

TT_API void tt_clear_error(tt_ctx *ctx) {
    if (!ctx) return;
    ctx->status = TT_OK;
    ctx->msg[0] = '\0';
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

/* A new heap block with at least `need` usable bytes, appended after ctx->cur. */
static tt__block *tt__block_new(tt_ctx *ctx, size_t need) {
    size_t usable = need > ctx->block_size ? need : ctx->block_size;
    size_t total = sizeof(tt__block) + TT__ALIGN + usable;
    void *raw;
    tt__block *blk;
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

/* Frees every block after blk (all blocks when blk is NULL). */
static void tt__blocks_free_after(tt_ctx *ctx, tt__block *blk) {
    tt__block *b = blk ? blk->next : ctx->first;
    while (b) {
        tt__block *next = b->next;
        tt__sys_free(ctx, b->raw);
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

TT_API tt_ctx_desc tt_ctx_desc_default(void) {
    tt_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.block_size = (size_t)1 << 20;
    return d;
}

TT_API tt_ctx *tt_ctx_create(const tt_ctx_desc *desc) {
    tt_ctx_desc d = desc ? *desc : tt_ctx_desc_default();
    tt_ctx *ctx;
    if (d.block_size == 0) d.block_size = (size_t)1 << 20;
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
    return ctx;
}

TT_API void tt_ctx_destroy(tt_ctx *ctx) {
    if (!ctx || ctx->user_memory) return;
#ifndef TT_NO_MALLOC
    tt__blocks_free_after(ctx, NULL);
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
    s.block = ctx->cur;
    s.used = ctx->cur ? ctx->cur->used : 0;
    s.last_guard = ctx->last_guard;
    return s;
}

TT_API void tt_scope_end(tt_ctx *ctx, tt_scope scope) {
    tt__block *blk;
    if (!ctx) return;
    blk = (tt__block *)scope.block;
#ifndef TT_NO_MALLOC
    if (!ctx->user_memory) tt__blocks_free_after(ctx, blk);
#endif
    ctx->cur = blk ? blk : ctx->first;
    if (blk) blk->used = scope.used;
    ctx->last_guard = (tt__guard *)scope.last_guard;
}

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

/* float -> i32 toward zero, saturating; NaN gives 0 (C leaves these undefined). */
static int32_t tt__f32_to_i32(float v) {
    if (v != v) return 0;
    if (v >= 2147483647.0f) return INT32_MAX;
    if (v <= -2147483648.0f) return INT32_MIN;
    return (int32_t)v;
}

/* Stores v as element i of storage p of type dt. */
static void tt__store(void *p, tt_dtype dt, int64_t i, float v) {
    switch (dt) {
    case TT_F32:  ((float *)p)[i] = v; break;
    case TT_F16:  ((uint16_t *)p)[i] = tt_f32_to_f16(v); break;
    case TT_BF16: ((uint16_t *)p)[i] = tt_f32_to_bf16(v); break;
    case TT_I32:  ((int32_t *)p)[i] = tt__f32_to_i32(v); break;
    case TT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v != 0.0f); break;
    default: break;
    }
}

static bool tt__dtype_valid(tt_dtype t) { return (int)t >= 0 && (int)t < (int)TT_DTYPE_COUNT; }

/* ==========================================================================
 * >>tensor   tensor headers, creation, random numbers, access
 *
 * A tensor is a header (shape, strides, offset) plus storage; both come from the
 * context's arena. Creation validates sizes once, here, so kernels can trust numel.
 * ========================================================================== */
#define TT__FLAG_WRAPPED 1u      /* storage belongs to the user */

static void tt__set_contiguous_strides(tt_tensor *t) {
    int64_t s = 1;
    int i;
    for (i = t->ndim - 1; i >= 0; i--) { t->stride[i] = s; s *= t->shape[i]; }
}

/* Checks ndim and shape; on success writes the element count to *numel. */
static bool tt__check_shape(tt_ctx *ctx, const char *op, int ndim, const int64_t *shape, int64_t *numel) {
    int64_t n = 1;
    int i;
    if (ndim < 0 || ndim > TT_MAX_DIMS) {
        tt__fail(ctx, TT_ERR_ARG, "%s: ndim is %d, expected 0..%d (TT_MAX_DIMS)", op, ndim, TT_MAX_DIMS);
        return false;
    }
    if (ndim > 0 && !shape) { tt__fail(ctx, TT_ERR_ARG, "%s: shape is NULL but ndim is %d", op, ndim); return false; }
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: size %D of axis %d is negative in %s", op, shape[i], i, "the shape");
            return false;
        }
        n = tt__mul_checked(n, shape[i]);
        if (n < 0 || n > (INT64_MAX >> 4)) {
            tt__fail(ctx, TT_ERR_ARG, "%s: the shape has too many elements", op);
            return false;
        }
    }
    *numel = n;
    return true;
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
    return t;
}

/* A new contiguous tensor with uninitialized storage. */
static tt_tensor *tt__new(tt_ctx *ctx, const char *op, tt_dtype dtype, int ndim, const int64_t *shape) {
    tt_tensor *t = tt__header(ctx, op, dtype, ndim, shape);
    if (!t) return NULL;
    t->data = tt__alloc(ctx, op, (size_t)t->numel * tt_dtype_size(dtype));
    return t->data ? t : NULL;
}

/* A new header viewing the same storage as x (shape/strides filled in by the caller). */
static tt_tensor *tt__alias(tt_ctx *ctx, const char *op, const tt_tensor *x) {
    tt_tensor *t = (tt_tensor *)tt__alloc(ctx, op, sizeof(tt_tensor));
    if (!t) return NULL;
    *t = *x;
    t->ctx = ctx;
    return t;
}

/* The element count of x's shape after it was changed in place by a view op. */
static void tt__update_numel(tt_tensor *t) {
    int64_t n = 1;
    int i;
    for (i = 0; i < t->ndim; i++) n *= t->shape[i];
    for (i = t->ndim; i < TT_MAX_DIMS; i++) { t->shape[i] = 1; t->stride[i] = 1; }
    t->numel = n;
}

static void tt__fill(tt_tensor *t, float v) {
    int64_t i;
    if (t->dtype == TT_F32) { float *d = (float *)t->data; for (i = 0; i < t->numel; i++) d[i] = v; return; }
    for (i = 0; i < t->numel; i++) tt__store(t->data, t->dtype, i, v);
}

TT_API tt_tensor *tt_empty(tt_ctx *ctx, tt_dtype dtype, int ndim, const int64_t *shape) {
    return tt__new(ctx, "tt_empty", dtype, ndim, shape);
}

static tt_tensor *tt__full(tt_ctx *ctx, const char *op, tt_dtype dtype, int ndim, const int64_t *shape, double v) {
    tt_tensor *t = tt__new(ctx, op, dtype, ndim, shape);
    if (t) tt__fill(t, (float)v);
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
    return tt__full(ctx, "tt_scalar", TT_F32, 0, NULL, value);
}

TT_API tt_tensor *tt_arange(tt_ctx *ctx, tt_dtype dtype, double start, double stop, double step) {
    double count;
    int64_t n, i;
    tt_tensor *t;
    if (!ctx) return NULL;
    if (step == 0 || step != step || start != start || stop != stop)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_arange: step is %g, start %g, stop %g: expected a "
                                     "nonzero step and finite bounds", step, start, stop);
    count = ceil((stop - start) / step);
    if (count > 1e15) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_arange: %g elements is too many", count);
    n = count > 0 ? (int64_t)count : 0;
    t = tt__new(ctx, "tt_arange", dtype, 1, &n);
    if (!t) return NULL;
    for (i = 0; i < n; i++) tt__store(t->data, dtype, i, (float)(start + (double)i * step));
    return t;
}

TT_API tt_tensor *tt_linspace(tt_ctx *ctx, double start, double end, int64_t steps) {
    tt_tensor *t;
    int64_t i;
    if (!ctx) return NULL;
    if (steps < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_linspace: steps is %D, expected >= 0", steps);
    t = tt__new(ctx, "tt_linspace", TT_F32, 1, &steps);
    if (!t) return NULL;
    for (i = 0; i < steps; i++) {
        double v = steps == 1 ? start : start + (end - start) * (double)i / (double)(steps - 1);
        ((float *)t->data)[i] = (float)v;
    }
    return t;
}

TT_API tt_tensor *tt_eye(tt_ctx *ctx, tt_dtype dtype, int64_t n, int64_t m) {
    int64_t shape[2], i;
    tt_tensor *t;
    shape[0] = n; shape[1] = m;
    t = tt__full(ctx, "tt_eye", dtype, 2, shape, 0.0);
    if (!t) return NULL;
    for (i = 0; i < n && i < m; i++) tt__store(t->data, dtype, i * m + i, 1.0f);
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

TT_API void *tt_data(const tt_tensor *t) {
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

TT_API float tt_item(tt_ctx *ctx, const tt_tensor *t) {
    if (!t) return NAN;
    if (t->numel != 1) {
        tt__fail(ctx, TT_ERR_SHAPE, "tt_item: tensor of shape %S has %D elements, expected exactly 1", t, t->numel);
        return NAN;
    }
    return tt__load(t->data, t->dtype, t->offset);
}

TT_API float tt_get(tt_ctx *ctx, const tt_tensor *t, const int64_t *idx) {
    int64_t off;
    int d;
    if (!t) return NAN;
    if (t->ndim > 0 && !idx) { tt__fail(ctx, TT_ERR_ARG, "tt_get: idx is NULL"); return NAN; }
    off = t->offset;
    for (d = 0; d < t->ndim; d++) {
        int64_t i = idx[d] < 0 ? idx[d] + t->shape[d] : idx[d];
        if (i < 0 || i >= t->shape[d]) {
            tt__fail(ctx, TT_ERR_INDEX, "tt_get: index %D is out of range for axis %d of size %D (shape %S)",
                     idx[d], d, t->shape[d], t);
            return NAN;
        }
        off += i * t->stride[d];
    }
    return tt__load(t->data, t->dtype, off);
}

TT_API tt_status tt_copy_to_f32(tt_ctx *ctx, const tt_tensor *t, float *dst, int64_t n) {
    int64_t i;
    if (!ctx) return TT_ERR_ARG;
    if (!t) return TT__FAIL_STATUS(ctx, TT_ERR_ARG, "tt_copy_to_f32: tensor is NULL");
    if (!dst && t->numel > 0) return TT__FAIL_STATUS(ctx, TT_ERR_ARG, "tt_copy_to_f32: dst is NULL");
    if (n != t->numel)
        return TT__FAIL_STATUS(ctx, TT_ERR_SHAPE, "tt_copy_to_f32: n is %D but the tensor of shape %S has %D elements",
                               n, t, t->numel);
    if (tt_is_contiguous(t) && t->dtype == TT_F32) {
        if (n) memcpy(dst, tt_data(t), (size_t)n * sizeof(float));
        return TT_OK;
    }
    for (i = 0; i < n; i++) dst[i] = tt__load(t->data, t->dtype, tt__offset_of(t, i));
    return TT_OK;
}

/* ==========================================================================
 * >>view   views: reshape, permute, slice, expand, squeeze, flatten, ...
 *
 * A view op makes a new header over the same storage. Only reshape can fail for a valid
 * request: when the strides cannot express the new shape (e.g. a transposed matrix
 * flattened), the user must copy with tt_contiguous first. The stride rule is PyTorch's:
 * walk the old axes from the right in chunks that are contiguous with each other, and
 * give each chunk's new axes strides from that chunk's base stride.
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

static tt_tensor *tt__reshape(tt_ctx *ctx, const char *op, tt_tensor *x, int ndim, const int64_t *shape_in) {
    int64_t shape[TT_MAX_DIMS], stride[TT_MAX_DIMS], known = 1, numel;
    int infer = -1, d;
    tt_tensor *t;
    char buf[16 * TT_MAX_DIMS];
    tt__buf b;
    if (!ctx || !x) return NULL;
    if (ndim < 0 || ndim > TT_MAX_DIMS)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: ndim is %d, expected 0..%d", op, ndim, TT_MAX_DIMS);
    if (ndim > 0 && !shape_in) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: shape is NULL", op);
    for (d = 0; d < ndim; d++) {
        shape[d] = shape_in[d];
        if (shape[d] == -1 && infer < 0) { infer = d; continue; }
        if (shape[d] < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: size %D of axis %d is invalid "
                                                       "(only one -1 is allowed)", op, shape[d], d);
        known = tt__mul_checked(known, shape[d]);
        if (known < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: the new shape is too large", op);
    }
    b.p = buf; b.size = sizeof buf; b.len = 0;
    tt__put_dims(&b, ndim, shape_in);
    if (infer >= 0) {
        if (known == 0 || x->numel % known != 0)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: cannot view %S (%D elements) as %s", op, x, x->numel, buf);
        shape[infer] = x->numel / known;
    }
    if (!tt__check_shape(ctx, op, ndim, shape, &numel)) return NULL;
    if (numel != x->numel)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: cannot view %S (%D elements) as %s (%D elements)",
                                     op, x, x->numel, buf, numel);
    if (!tt__view_strides(x, ndim, shape, stride))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: the strides of %S cannot be viewed as %s; "
                                     "call tt_contiguous first", op, x, buf);
    t = tt__alias(ctx, op, x);
    if (!t) return NULL;
    t->ndim = ndim;
    for (d = 0; d < ndim; d++) { t->shape[d] = shape[d]; t->stride[d] = stride[d]; }
    tt__update_numel(t);
    return t;
}

TT_API tt_tensor *tt_reshape(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    return tt__reshape(ctx, "tt_reshape", x, ndim, shape);
}
TT_API tt_tensor *tt_view(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    return tt__reshape(ctx, "tt_view", x, ndim, shape);
}

static tt_tensor *tt__permute(tt_ctx *ctx, const char *op, tt_tensor *x, const int *perm) {
    int seen[TT_MAX_DIMS], d;
    tt_tensor *t;
    if (!ctx || !x) return NULL;
    if (x->ndim > 0 && !perm) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: perm is NULL", op);
    for (d = 0; d < x->ndim; d++) seen[d] = 0;
    for (d = 0; d < x->ndim; d++) {
        int a = tt__axis(perm[d], x->ndim);
        if (a < 0 || seen[a]++)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: perm[%d] = %d is out of range or repeated for a "
                                         "tensor of shape %S", op, d, perm[d], x);
    }
    t = tt__alias(ctx, op, x);
    if (!t) return NULL;
    for (d = 0; d < x->ndim; d++) {
        int a = tt__axis(perm[d], x->ndim);
        t->shape[d] = x->shape[a];
        t->stride[d] = x->stride[a];
    }
    return t;
}

TT_API tt_tensor *tt_permute(tt_ctx *ctx, tt_tensor *x, const int *perm) {
    return tt__permute(ctx, "tt_permute", x, perm);
}

static tt_tensor *tt__transpose(tt_ctx *ctx, const char *op, tt_tensor *x, int axis0, int axis1) {
    int perm[TT_MAX_DIMS], a0, a1, d;
    if (!ctx || !x) return NULL;
    a0 = tt__axis(axis0, x->ndim);
    a1 = tt__axis(axis1, x->ndim);
    if (a0 < 0 || a1 < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axes %d and %d: expected axes in [%d,%d] for shape %S",
                                     op, axis0, axis1, -x->ndim, x->ndim - 1, x);
    for (d = 0; d < x->ndim; d++) perm[d] = d;
    perm[a0] = a1;
    perm[a1] = a0;
    return tt__permute(ctx, op, x, perm);
}

TT_API tt_tensor *tt_transpose(tt_ctx *ctx, tt_tensor *x, int axis0, int axis1) {
    return tt__transpose(ctx, "tt_transpose", x, axis0, axis1);
}

/* Python slice bounds: negative counts from the end; clamp to [0, size]. */
static int64_t tt__slice_bound(int64_t v, int64_t size) {
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
}

static tt_tensor *tt__slice(tt_ctx *ctx, const char *op, tt_tensor *x, int axis, int64_t start, int64_t stop, int64_t step) {
    int a;
    tt_tensor *t;
    if (!ctx || !x) return NULL;
    a = tt__axis(axis, x->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    if (step < 1) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: step is %D, expected >= 1", op, step);
    start = tt__slice_bound(start, x->shape[a]);
    stop = tt__slice_bound(stop, x->shape[a]);
    t = tt__alias(ctx, op, x);
    if (!t) return NULL;
    t->shape[a] = stop > start ? (stop - start + step - 1) / step : 0;
    if (t->shape[a] > 0) t->offset += start * x->stride[a];
    t->stride[a] *= step;
    tt__update_numel(t);
    return t;
}

TT_API tt_tensor *tt_slice(tt_ctx *ctx, tt_tensor *x, int axis, int64_t start, int64_t stop, int64_t step) {
    return tt__slice(ctx, "tt_slice", x, axis, start, stop, step);
}

static tt_tensor *tt__expand(tt_ctx *ctx, const char *op, tt_tensor *x, int ndim, const int64_t *shape) {
    int d, lead;
    tt_tensor *t;
    char buf[16 * TT_MAX_DIMS];
    tt__buf b;
    if (!ctx || !x) return NULL;
    if (ndim < x->ndim || ndim > TT_MAX_DIMS || (ndim > 0 && !shape))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: cannot expand %S to %d dims", op, x, ndim);
    b.p = buf; b.size = sizeof buf; b.len = 0;
    tt__put_dims(&b, ndim, shape);
    lead = ndim - x->ndim;
    t = tt__alias(ctx, op, x);
    if (!t) return NULL;
    t->ndim = ndim;
    for (d = ndim - 1; d >= 0; d--) {
        int xd = d - lead;
        int64_t want = shape[d];
        if (xd >= 0) {
            int64_t have = x->shape[xd];
            if (want == -1) want = have;
            if (want < 0 || (have != want && have != 1))
                return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: cannot expand %S to %s: axis %d has size %D, "
                                             "expected 1 or %D", op, x, buf, xd, have, want);
            t->shape[d] = want;
            t->stride[d] = (have == want) ? x->stride[xd] : 0;
        } else {
            if (want < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: cannot expand %S to %s: new axis %d "
                                                       "has size %D", op, x, buf, d, want);
            t->shape[d] = want;
            t->stride[d] = 0;
        }
    }
    tt__update_numel(t);
    return t;
}

TT_API tt_tensor *tt_expand(tt_ctx *ctx, tt_tensor *x, int ndim, const int64_t *shape) {
    return tt__expand(ctx, "tt_expand", x, ndim, shape);
}

TT_API tt_tensor *tt_squeeze(tt_ctx *ctx, tt_tensor *x, int axis) {
    int a, d;
    tt_tensor *t;
    if (!ctx || !x) return NULL;
    a = tt__axis(axis, x->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_squeeze: axis %d is out of range for shape %S", axis, x);
    t = tt__alias(ctx, "tt_squeeze", x);
    if (!t || x->shape[a] != 1) return t;
    for (d = a; d < x->ndim - 1; d++) { t->shape[d] = x->shape[d + 1]; t->stride[d] = x->stride[d + 1]; }
    t->ndim--;
    tt__update_numel(t);
    return t;
}

static tt_tensor *tt__unsqueeze(tt_ctx *ctx, const char *op, tt_tensor *x, int axis) {
    int a, d;
    tt_tensor *t;
    if (!ctx || !x) return NULL;
    a = tt__axis(axis, x->ndim + 1);
    if (a < 0 || x->ndim >= TT_MAX_DIMS)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: cannot insert axis %d into shape %S", op, axis, x);
    t = tt__alias(ctx, op, x);
    if (!t) return NULL;
    for (d = x->ndim; d > a; d--) { t->shape[d] = x->shape[d - 1]; t->stride[d] = x->stride[d - 1]; }
    t->shape[a] = 1;
    t->stride[a] = a + 1 < x->ndim + 1 ? t->shape[a + 1] * t->stride[a + 1] : 1;
    t->ndim++;
    tt__update_numel(t);
    return t;
}

TT_API tt_tensor *tt_unsqueeze(tt_ctx *ctx, tt_tensor *x, int axis) {
    return tt__unsqueeze(ctx, "tt_unsqueeze", x, axis);
}

TT_API tt_tensor *tt_flatten(tt_ctx *ctx, tt_tensor *x, int start_axis, int end_axis) {
    int64_t shape[TT_MAX_DIMS];
    int s, e, d, n = 0;
    if (!ctx || !x) return NULL;
    if (x->ndim == 0) return tt__reshape(ctx, "tt_flatten", x, 1, x->shape);   /* a scalar becomes [1] */
    s = tt__axis(start_axis, x->ndim);
    e = tt__axis(end_axis, x->ndim);
    if (s < 0 || e < 0 || s > e)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_flatten: axes %d..%d are invalid for shape %S",
                                     start_axis, end_axis, x);
    for (d = 0; d < s; d++) shape[n++] = x->shape[d];
    shape[n] = 1;
    for (d = s; d <= e; d++) shape[n] *= x->shape[d];
    n++;
    for (d = e + 1; d < x->ndim; d++) shape[n++] = x->shape[d];
    return tt__reshape(ctx, "tt_flatten", x, n, shape);
}

/* ==========================================================================
 * >>loop   the strided N-d loop that every elementwise kernel runs on
 *
 * An elementwise op walks up to TT__MAX_OPS operands over one shape, each with its own
 * strides (0 on broadcast axes). tt__loop_init drops size-1 axes and merges axes that
 * are contiguous for every operand, so a contiguous tensor becomes one long row. The
 * kernel then handles rows: tt__loop_next moves every operand to the next row.
 * ========================================================================== */
#define TT__MAX_OPS 4
#define TT__CHUNK   256          /* elements per gathered chunk: 1 KiB of floats, stays in L1 */

typedef struct tt__loop {
    int     ndim, nops;
    int64_t shape[TT_MAX_DIMS];
    int64_t stride[TT__MAX_OPS][TT_MAX_DIMS];
    int64_t idx[TT_MAX_DIMS];
    int64_t off[TT__MAX_OPS];     /* element offset of each operand at the current row start */
    int64_t inner[TT__MAX_OPS];   /* stride along a row */
    int64_t rows, n;              /* number of rows, elements per row */
} tt__loop;

static void tt__loop_init(tt__loop *L, int ndim, const int64_t *shape, int nops,
                          const int64_t *const *strides, const int64_t *offsets) {
    int d, k, m = 0;
    int64_t total = 1;
    memset(L, 0, sizeof *L);
    L->nops = nops;
    for (d = 0; d < ndim; d++) total *= shape[d];
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
        L->off[k] = offsets[k];
        L->inner[k] = L->stride[k][m - 1];
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
    int n = an > bn ? an : bn, d;
    for (d = 0; d < n; d++) {
        int ad = an - n + d, bd = bn - n + d;
        int64_t sa = ad >= 0 ? as[ad] : 1, sb = bd >= 0 ? bs[bd] : 1;
        if (sa != sb && sa != 1 && sb != 1) return false;
        os[d] = sa == 1 ? sb : sa;
    }
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

/* Copies src into dst element by element (same shape; dtypes may differ: converted). */
static void tt__copy_into(tt_tensor *dst, const tt_tensor *src) {
    tt__loop L;
    const int64_t *strides[2];
    int64_t offsets[2], r, i;
    size_t es = tt_dtype_size(dst->dtype);
    strides[0] = dst->stride; strides[1] = src->stride;
    offsets[0] = dst->offset; offsets[1] = src->offset;
    tt__loop_init(&L, dst->ndim, dst->shape, 2, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        int64_t od = L.off[0], os = L.off[1], sd = L.inner[0], ss = L.inner[1];
        if (dst->dtype != src->dtype) {
            for (i = 0; i < L.n; i++) tt__store(dst->data, dst->dtype, od + i * sd, tt__load(src->data, src->dtype, os + i * ss));
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
    return x->dtype == TT_F32 ? x : tt__copy_as(ctx, op, x, TT_F32);
}

/* x itself when contiguous f32, else a contiguous f32 copy: for kernels that index rows. */
static tt_tensor *tt__contiguous_f32(tt_ctx *ctx, const char *op, tt_tensor *x) {
    return (x->dtype == TT_F32 && tt_is_contiguous(x)) ? x : tt__copy_as(ctx, op, x, TT_F32);
}

TT_API tt_tensor *tt_contiguous(tt_ctx *ctx, tt_tensor *x) {
    if (!ctx || !x) return NULL;
    return tt_is_contiguous(x) ? x : tt__copy_as(ctx, "tt_contiguous", x, x->dtype);
}

TT_API tt_tensor *tt_clone(tt_ctx *ctx, tt_tensor *x) {
    if (!ctx || !x) return NULL;
    return tt__copy_as(ctx, "tt_clone", x, x->dtype);
}

/* Pointer to n floats of a row with stride s: the row itself when s == 1, else gathered. */
static const float *tt__gather(const float *p, int64_t s, int64_t n, float *buf) {
    int64_t i;
    if (s == 1) return p;
    if (s == 0) { for (i = 0; i < n; i++) buf[i] = p[0]; return buf; }
    for (i = 0; i < n; i++) buf[i] = p[i * s];
    return buf;
}

/* ==========================================================================
 * >>ewise   unary, binary, comparison, logical, where, cast
 *
 * Inputs are brought to f32 (a copy only when they are another dtype), then every row of
 * the loop is processed in chunks of TT__CHUNK: strided inputs are gathered into small
 * buffers, and one switch per chunk picks a tight loop the compiler can vectorize.
 * Comparisons compute 0/1 floats in a chunk and narrow them to bool.
 * ========================================================================== */
typedef enum tt__unary_op {
    TT__U_NEG, TT__U_ABS, TT__U_SIGN, TT__U_EXP, TT__U_LOG, TT__U_SQRT, TT__U_RSQRT,
    TT__U_RECIPROCAL, TT__U_SIN, TT__U_COS, TT__U_TANH, TT__U_SIGMOID, TT__U_RELU,
    TT__U_LEAKY_RELU, TT__U_ELU, TT__U_GELU, TT__U_GELU_TANH, TT__U_SILU, TT__U_SOFTPLUS,
    TT__U_ERF, TT__U_FLOOR, TT__U_CEIL, TT__U_ROUND, TT__U_CLAMP, TT__U_POW, TT__U_NOT
} tt__unary_op;

typedef enum tt__binary_op {
    TT__B_ADD, TT__B_SUB, TT__B_MUL, TT__B_DIV, TT__B_POW, TT__B_MAX, TT__B_MIN,
    TT__B_EQ, TT__B_NE, TT__B_LT, TT__B_LE, TT__B_GT, TT__B_GE, TT__B_AND, TT__B_OR
} tt__binary_op;

static float tt__sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* y[i] = op(x[i]) for a contiguous chunk; p0, p1 are the op's scalar parameters. */
static void tt__unary_chunk(tt__unary_op op, float *y, const float *x, int64_t n, float p0, float p1) {
    int64_t i;
    switch (op) {
    case TT__U_NEG:        for (i = 0; i < n; i++) y[i] = -x[i]; break;
    case TT__U_ABS:        for (i = 0; i < n; i++) y[i] = fabsf(x[i]); break;
    case TT__U_SIGN:       for (i = 0; i < n; i++) y[i] = x[i] > 0 ? 1.0f : x[i] < 0 ? -1.0f : x[i]; break;
    case TT__U_EXP:        for (i = 0; i < n; i++) y[i] = expf(x[i]); break;
    case TT__U_LOG:        for (i = 0; i < n; i++) y[i] = logf(x[i]); break;
    case TT__U_SQRT:       for (i = 0; i < n; i++) y[i] = sqrtf(x[i]); break;
    case TT__U_RSQRT:      for (i = 0; i < n; i++) y[i] = 1.0f / sqrtf(x[i]); break;
    case TT__U_RECIPROCAL: for (i = 0; i < n; i++) y[i] = 1.0f / x[i]; break;
    case TT__U_SIN:        for (i = 0; i < n; i++) y[i] = sinf(x[i]); break;
    case TT__U_COS:        for (i = 0; i < n; i++) y[i] = cosf(x[i]); break;
    case TT__U_TANH:       for (i = 0; i < n; i++) y[i] = tanhf(x[i]); break;
    case TT__U_SIGMOID:    for (i = 0; i < n; i++) y[i] = tt__sigmoidf(x[i]); break;
    case TT__U_RELU:       for (i = 0; i < n; i++) y[i] = x[i] < 0 ? 0.0f : x[i]; break;
    case TT__U_LEAKY_RELU: for (i = 0; i < n; i++) y[i] = x[i] < 0 ? p0 * x[i] : x[i]; break;
    case TT__U_ELU:        for (i = 0; i < n; i++) y[i] = x[i] < 0 ? p0 * expm1f(x[i]) : x[i]; break;
    case TT__U_GELU:       for (i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f)); break;
    case TT__U_GELU_TANH:
        for (i = 0; i < n; i++) {
            float v = x[i];
            y[i] = 0.5f * v * (1.0f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
        }
        break;
    case TT__U_SILU:       for (i = 0; i < n; i++) y[i] = x[i] * tt__sigmoidf(x[i]); break;
    case TT__U_SOFTPLUS:   for (i = 0; i < n; i++) y[i] = x[i] > 20.0f ? x[i] : log1pf(expf(x[i])); break;
    case TT__U_ERF:        for (i = 0; i < n; i++) y[i] = erff(x[i]); break;
    case TT__U_FLOOR:      for (i = 0; i < n; i++) y[i] = floorf(x[i]); break;
    case TT__U_CEIL:       for (i = 0; i < n; i++) y[i] = ceilf(x[i]); break;
    case TT__U_ROUND:      for (i = 0; i < n; i++) y[i] = nearbyintf(x[i]); break;   /* default mode: ties to even */
    case TT__U_CLAMP:      for (i = 0; i < n; i++) y[i] = x[i] < p0 ? p0 : x[i] > p1 ? p1 : x[i]; break;
    case TT__U_POW:
        if (p0 == 2.0f) for (i = 0; i < n; i++) y[i] = x[i] * x[i];
        else            for (i = 0; i < n; i++) y[i] = powf(x[i], p0);
        break;
    case TT__U_NOT:        for (i = 0; i < n; i++) y[i] = x[i] == 0.0f ? 1.0f : 0.0f; break;
    }
}

static float tt__maxf(float a, float b) { return a != a ? a : b != b ? b : a > b ? a : b; }  /* NaN wins */
static float tt__minf(float a, float b) { return a != a ? a : b != b ? b : a < b ? a : b; }

/* y[i] = a[i] op b[i] for contiguous chunks; comparisons give 1.0f or 0.0f. */
static void tt__binary_chunk(tt__binary_op op, float *y, const float *a, const float *b, int64_t n) {
    int64_t i;
    switch (op) {
    case TT__B_ADD: for (i = 0; i < n; i++) y[i] = a[i] + b[i]; break;
    case TT__B_SUB: for (i = 0; i < n; i++) y[i] = a[i] - b[i]; break;
    case TT__B_MUL: for (i = 0; i < n; i++) y[i] = a[i] * b[i]; break;
    case TT__B_DIV: for (i = 0; i < n; i++) y[i] = a[i] / b[i]; break;
    case TT__B_POW: for (i = 0; i < n; i++) y[i] = powf(a[i], b[i]); break;
    case TT__B_MAX: for (i = 0; i < n; i++) y[i] = tt__maxf(a[i], b[i]); break;
    case TT__B_MIN: for (i = 0; i < n; i++) y[i] = tt__minf(a[i], b[i]); break;
    case TT__B_EQ:  for (i = 0; i < n; i++) y[i] = (float)(a[i] == b[i]); break;
    case TT__B_NE:  for (i = 0; i < n; i++) y[i] = (float)(a[i] != b[i]); break;
    case TT__B_LT:  for (i = 0; i < n; i++) y[i] = (float)(a[i] < b[i]); break;
    case TT__B_LE:  for (i = 0; i < n; i++) y[i] = (float)(a[i] <= b[i]); break;
    case TT__B_GT:  for (i = 0; i < n; i++) y[i] = (float)(a[i] > b[i]); break;
    case TT__B_GE:  for (i = 0; i < n; i++) y[i] = (float)(a[i] >= b[i]); break;
    case TT__B_AND: for (i = 0; i < n; i++) y[i] = (float)(a[i] != 0.0f && b[i] != 0.0f); break;
    case TT__B_OR:  for (i = 0; i < n; i++) y[i] = (float)(a[i] != 0.0f || b[i] != 0.0f); break;
    }
}

/* Writes a chunk of computed floats to the output row (f32, or narrowed to bool). */
static void tt__store_chunk(tt_tensor *out, int64_t off, const float *v, int64_t n) {
    int64_t i;
    if (out->dtype == TT_BOOL) {
        uint8_t *d = (uint8_t *)out->data + off;
        for (i = 0; i < n; i++) d[i] = (uint8_t)(v[i] != 0.0f);
    } else {
        memcpy((float *)out->data + off, v, (size_t)n * sizeof(float));
    }
}

static tt_tensor *tt__unary(tt_ctx *ctx, const char *name, tt__unary_op op, tt_tensor *x,
                            float p0, float p1, tt_dtype out_dtype) {
    tt_tensor *out, *xf;
    tt__loop L;
    tt_scope scope;
    const int64_t *strides[2];
    int64_t offsets[2], r, c;
    float xbuf[TT__CHUNK], ybuf[TT__CHUNK];
    if (!ctx || !x) return NULL;
    out = tt__new(ctx, name, out_dtype, x->ndim, x->shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    xf = tt__as_f32(ctx, name, x);
    if (!xf) { tt_scope_end(ctx, scope); return NULL; }
    strides[0] = out->stride; strides[1] = xf->stride;
    offsets[0] = 0; offsets[1] = xf->offset;
    tt__loop_init(&L, out->ndim, out->shape, 2, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        for (c = 0; c < L.n; c += TT__CHUNK) {
            int64_t n = tt__min64(TT__CHUNK, L.n - c);
            const float *xs = tt__gather((const float *)xf->data + L.off[1] + c * L.inner[1], L.inner[1], n, xbuf);
            tt__unary_chunk(op, ybuf, xs, n, p0, p1);
            tt__store_chunk(out, L.off[0] + c, ybuf, n);
        }
    }
    tt_scope_end(ctx, scope);
    return out;
}

static tt_tensor *tt__binary(tt_ctx *ctx, const char *name, tt__binary_op op, tt_tensor *a, tt_tensor *b) {
    int64_t shape[TT_MAX_DIMS], sa[TT_MAX_DIMS], sb[TT_MAX_DIMS], offsets[3], r, c;
    const int64_t *strides[3];
    int ndim;
    tt_tensor *out, *af, *bf;
    tt_scope scope;
    tt__loop L;
    float abuf[TT__CHUNK], bbuf[TT__CHUNK], ybuf[TT__CHUNK];
    if (!ctx || !a || !b) return NULL;
    if (!tt__broadcast_shape(a->ndim, a->shape, b->ndim, b->shape, &ndim, shape))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: shapes %S and %S do not broadcast", name, a, b);
    out = tt__new(ctx, name, op >= TT__B_EQ ? TT_BOOL : TT_F32, ndim, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    af = tt__as_f32(ctx, name, a);
    bf = af ? tt__as_f32(ctx, name, b) : NULL;
    if (!bf) { tt_scope_end(ctx, scope); return NULL; }
    tt__broadcast_strides(af, ndim, shape, sa);
    tt__broadcast_strides(bf, ndim, shape, sb);
    strides[0] = out->stride; strides[1] = sa; strides[2] = sb;
    offsets[0] = 0; offsets[1] = af->offset; offsets[2] = bf->offset;
    tt__loop_init(&L, ndim, shape, 3, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        for (c = 0; c < L.n; c += TT__CHUNK) {
            int64_t n = tt__min64(TT__CHUNK, L.n - c);
            const float *as = tt__gather((const float *)af->data + L.off[1] + c * L.inner[1], L.inner[1], n, abuf);
            const float *bs = tt__gather((const float *)bf->data + L.off[2] + c * L.inner[2], L.inner[2], n, bbuf);
            tt__binary_chunk(op, ybuf, as, bs, n);
            tt__store_chunk(out, L.off[0] + c, ybuf, n);
        }
    }
    tt_scope_end(ctx, scope);
    return out;
}

#define TT__UNARY_FN(fn, OP) \
    TT_API tt_tensor *fn(tt_ctx *ctx, tt_tensor *x) { return tt__unary(ctx, #fn, OP, x, 0.0f, 0.0f, TT_F32); }
TT__UNARY_FN(tt_neg, TT__U_NEG)
TT__UNARY_FN(tt_abs, TT__U_ABS)
TT__UNARY_FN(tt_sign, TT__U_SIGN)
TT__UNARY_FN(tt_exp, TT__U_EXP)
TT__UNARY_FN(tt_log, TT__U_LOG)
TT__UNARY_FN(tt_sqrt, TT__U_SQRT)
TT__UNARY_FN(tt_rsqrt, TT__U_RSQRT)
TT__UNARY_FN(tt_reciprocal, TT__U_RECIPROCAL)
TT__UNARY_FN(tt_sin, TT__U_SIN)
TT__UNARY_FN(tt_cos, TT__U_COS)
TT__UNARY_FN(tt_tanh, TT__U_TANH)
TT__UNARY_FN(tt_sigmoid, TT__U_SIGMOID)
TT__UNARY_FN(tt_relu, TT__U_RELU)
TT__UNARY_FN(tt_gelu, TT__U_GELU)
TT__UNARY_FN(tt_gelu_tanh, TT__U_GELU_TANH)
TT__UNARY_FN(tt_silu, TT__U_SILU)
TT__UNARY_FN(tt_softplus, TT__U_SOFTPLUS)
TT__UNARY_FN(tt_erf, TT__U_ERF)
TT__UNARY_FN(tt_floor, TT__U_FLOOR)
TT__UNARY_FN(tt_ceil, TT__U_CEIL)
TT__UNARY_FN(tt_round, TT__U_ROUND)

TT_API tt_tensor *tt_leaky_relu(tt_ctx *ctx, tt_tensor *x, float slope) {
    return tt__unary(ctx, "tt_leaky_relu", TT__U_LEAKY_RELU, x, slope, 0.0f, TT_F32);
}
TT_API tt_tensor *tt_elu(tt_ctx *ctx, tt_tensor *x, float alpha) {
    return tt__unary(ctx, "tt_elu", TT__U_ELU, x, alpha, 0.0f, TT_F32);
}
TT_API tt_tensor *tt_clamp(tt_ctx *ctx, tt_tensor *x, float lo, float hi) {
    if (ctx && x && !(lo <= hi))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_clamp: lo %g is greater than hi %g (or NaN)", (double)lo, (double)hi);
    return tt__unary(ctx, "tt_clamp", TT__U_CLAMP, x, lo, hi, TT_F32);
}
TT_API tt_tensor *tt_pow_scalar(tt_ctx *ctx, tt_tensor *x, float exponent) {
    return tt__unary(ctx, "tt_pow_scalar", TT__U_POW, x, exponent, 0.0f, TT_F32);
}
TT_API tt_tensor *tt_logical_not(tt_ctx *ctx, tt_tensor *x) {
    return tt__unary(ctx, "tt_logical_not", TT__U_NOT, x, 0.0f, 0.0f, TT_BOOL);
}

#define TT__BINARY_FN(fn, OP) \
    TT_API tt_tensor *fn(tt_ctx *ctx, tt_tensor *a, tt_tensor *b) { return tt__binary(ctx, #fn, OP, a, b); }
TT__BINARY_FN(tt_add, TT__B_ADD)
TT__BINARY_FN(tt_sub, TT__B_SUB)
TT__BINARY_FN(tt_mul, TT__B_MUL)
TT__BINARY_FN(tt_div, TT__B_DIV)
TT__BINARY_FN(tt_pow, TT__B_POW)
TT__BINARY_FN(tt_maximum, TT__B_MAX)
TT__BINARY_FN(tt_minimum, TT__B_MIN)
TT__BINARY_FN(tt_eq, TT__B_EQ)
TT__BINARY_FN(tt_ne, TT__B_NE)
TT__BINARY_FN(tt_lt, TT__B_LT)
TT__BINARY_FN(tt_le, TT__B_LE)
TT__BINARY_FN(tt_gt, TT__B_GT)
TT__BINARY_FN(tt_ge, TT__B_GE)
TT__BINARY_FN(tt_logical_and, TT__B_AND)
TT__BINARY_FN(tt_logical_or, TT__B_OR)

/* x op s: the scalar becomes a 0-d tensor that broadcasts (a constant, once tracing exists). */
static tt_tensor *tt__binary_scalar(tt_ctx *ctx, const char *name, tt__binary_op op, tt_tensor *x, float s) {
    tt_tensor *st;
    if (!ctx || !x) return NULL;
    st = tt__full(ctx, name, TT_F32, 0, NULL, s);
    return st ? tt__binary(ctx, name, op, x, st) : NULL;
}
TT_API tt_tensor *tt_add_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_add_scalar", TT__B_ADD, x, s); }
TT_API tt_tensor *tt_sub_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_sub_scalar", TT__B_SUB, x, s); }
TT_API tt_tensor *tt_mul_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_mul_scalar", TT__B_MUL, x, s); }
TT_API tt_tensor *tt_div_scalar(tt_ctx *ctx, tt_tensor *x, float s) { return tt__binary_scalar(ctx, "tt_div_scalar", TT__B_DIV, x, s); }

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

TT_API tt_tensor *tt_where(tt_ctx *ctx, tt_tensor *cond, tt_tensor *a, tt_tensor *b) {
    int64_t shape[TT_MAX_DIMS], s[3][TT_MAX_DIMS], offsets[4], r;
    const int64_t *strides[4];
    int ndim;
    size_t es;
    tt_tensor *out;
    tt_scope scope;
    tt__loop L;
    if (!ctx || !cond || !a || !b) return NULL;
    if (cond->dtype != TT_BOOL)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "tt_where: cond has dtype %T, expected bool "
                                     "(make one with a comparison such as tt_gt)", (int)cond->dtype);
    if (!tt__broadcast_shape(cond->ndim, cond->shape, a->ndim, a->shape, &ndim, shape) ||
        !tt__broadcast_shape(ndim, shape, b->ndim, b->shape, &ndim, shape))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "tt_where: shapes %S (cond), %S (a) and %S (b) do not broadcast",
                                     cond, a, b);
    out = tt__new(ctx, "tt_where", a->dtype == b->dtype ? a->dtype : TT_F32, ndim, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    if (a->dtype != b->dtype) {
        a = tt__as_f32(ctx, "tt_where", a);
        b = a ? tt__as_f32(ctx, "tt_where", b) : NULL;
        if (!b) { tt_scope_end(ctx, scope); return NULL; }
    }
    es = tt_dtype_size(out->dtype);
    tt__broadcast_strides(cond, ndim, shape, s[0]);
    tt__broadcast_strides(a, ndim, shape, s[1]);
    tt__broadcast_strides(b, ndim, shape, s[2]);
    strides[0] = out->stride; strides[1] = s[0]; strides[2] = s[1]; strides[3] = s[2];
    offsets[0] = 0; offsets[1] = cond->offset; offsets[2] = a->offset; offsets[3] = b->offset;
    tt__loop_init(&L, ndim, shape, 4, strides, offsets);
    for (r = 0; r < L.rows; r++, tt__loop_next(&L)) {
        tt__select_elems((char *)out->data + (size_t)L.off[0] * es, (const uint8_t *)cond->data + L.off[1], L.inner[1],
                         (const char *)a->data + L.off[2] * (int64_t)es, L.inner[2],
                         (const char *)b->data + L.off[3] * (int64_t)es, L.inner[3], L.n, es);
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_cast(tt_ctx *ctx, tt_tensor *x, tt_dtype dtype) {
    if (!ctx || !x) return NULL;
    if (!tt__dtype_valid(dtype)) return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "tt_cast: invalid dtype %d", (int)dtype);
    return tt__copy_as(ctx, "tt_cast", x, dtype);
}

