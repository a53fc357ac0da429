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
TT_API tt_tensor  *tt_clamp(tt_ctx *ctx, tt_tensor *x, float lo, float hi); /* min(max(x,lo),hi), as PyTorch */
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

/* Kernel pointers never alias (outputs are fresh): saying so lets compilers vectorize at -O2. */
#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define TT__RESTRICT __restrict
#else
#define TT__RESTRICT
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
    tt__block   *spare;           /* heap blocks freed by tt_scope_end, kept for reuse */
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

/* A heap block with at least `need` usable bytes, appended after ctx->cur: a spare one
   when one is big enough (so a loop of scopes stops calling malloc), else a new one. */
static tt__block *tt__block_new(tt_ctx *ctx, size_t need) {
    size_t usable = need > ctx->block_size ? need : ctx->block_size;
    size_t total = sizeof(tt__block) + TT__ALIGN + usable;
    void *raw;
    tt__block *blk, **link;
    for (link = &ctx->spare; *link; link = &(*link)->next) {
        if ((*link)->size >= need) {
            blk = *link;
            *link = blk->next;
            blk->next = NULL;
            blk->used = 0;
            if (ctx->cur) ctx->cur->next = blk; else ctx->first = blk;
            return blk;
        }
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
    if (!ctx->user_memory) tt__blocks_release_after(ctx, blk);
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
    for (i = 0; i < n; i++) tt__store(t->data, dtype, i, start + (double)i * step);
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
    t->shape[a] = stop > start ? (stop - start - 1) / step + 1 : 0;
    if (t->shape[a] > 0) t->offset += start * x->stride[a];
    if (t->shape[a] > 1) t->stride[a] *= step;         /* bounded by the storage: step < size here */
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
    {
        int64_t numel;
        if (!tt__check_shape(ctx, op, t->ndim, t->shape, &numel)) return NULL;
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
    if (!x) return NULL;
    return x->dtype == TT_F32 ? x : tt__copy_as(ctx, op, x, TT_F32);
}

/* x itself when contiguous f32, else a contiguous f32 copy: for kernels that index rows. */
static tt_tensor *tt__contiguous_f32(tt_ctx *ctx, const char *op, tt_tensor *x) {
    if (!x) return NULL;
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

/* Runs stmt for i = 0..n-1 in blocks of 8 (then a tail): the form that GCC vectorizes
   at -O2, whose cheap cost model skips plain loops of unknown length. */
#define TT__EACH(n, stmt) do {                                              \
        int64_t i_, l_;                                                     \
        for (i_ = 0; i_ + 8 <= (n); i_ += 8)                                \
            for (l_ = 0; l_ < 8; l_++) { int64_t i = i_ + l_; stmt; }       \
        for (; i_ < (n); i_++) { int64_t i = i_; stmt; }                    \
    } while (0)

static float tt__sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
static float tt__gelu_tanhf(float v) {
    return 0.5f * v * (1.0f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
}
/* min(max(x,lo),hi) as PyTorch: hi wins when lo > hi; NaN stays NaN. */
static float tt__clampf(float x, float lo, float hi) {
    float v = x < lo ? lo : x;
    return v > hi ? hi : v;
}

/* y[i] = op(x[i]) for a contiguous chunk; p0, p1 are the op's scalar parameters. */
static void tt__unary_chunk(tt__unary_op op, float *TT__RESTRICT y, const float *TT__RESTRICT x, int64_t n,
                            float p0, float p1) {
    switch (op) {
    case TT__U_NEG:        TT__EACH(n, y[i] = -x[i]); break;
    case TT__U_ABS:        TT__EACH(n, y[i] = fabsf(x[i])); break;
    case TT__U_SIGN:       TT__EACH(n, y[i] = x[i] > 0 ? 1.0f : x[i] < 0 ? -1.0f : x[i]); break;
    case TT__U_EXP:        TT__EACH(n, y[i] = expf(x[i])); break;
    case TT__U_LOG:        TT__EACH(n, y[i] = logf(x[i])); break;
    case TT__U_SQRT:       TT__EACH(n, y[i] = sqrtf(x[i])); break;
    case TT__U_RSQRT:      TT__EACH(n, y[i] = 1.0f / sqrtf(x[i])); break;
    case TT__U_RECIPROCAL: TT__EACH(n, y[i] = 1.0f / x[i]); break;
    case TT__U_SIN:        TT__EACH(n, y[i] = sinf(x[i])); break;
    case TT__U_COS:        TT__EACH(n, y[i] = cosf(x[i])); break;
    case TT__U_TANH:       TT__EACH(n, y[i] = tanhf(x[i])); break;
    case TT__U_SIGMOID:    TT__EACH(n, y[i] = tt__sigmoidf(x[i])); break;
    case TT__U_RELU:       TT__EACH(n, y[i] = x[i] < 0 ? 0.0f : x[i]); break;
    case TT__U_LEAKY_RELU: TT__EACH(n, y[i] = x[i] < 0 ? p0 * x[i] : x[i]); break;
    case TT__U_ELU:        TT__EACH(n, y[i] = x[i] < 0 ? p0 * expm1f(x[i]) : x[i]); break;
    case TT__U_GELU:       TT__EACH(n, y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f))); break;
    case TT__U_GELU_TANH:  TT__EACH(n, y[i] = tt__gelu_tanhf(x[i])); break;
    case TT__U_SILU:       TT__EACH(n, y[i] = x[i] * tt__sigmoidf(x[i])); break;
    case TT__U_SOFTPLUS:   TT__EACH(n, y[i] = x[i] > 20.0f ? x[i] : log1pf(expf(x[i]))); break;
    case TT__U_ERF:        TT__EACH(n, y[i] = erff(x[i])); break;
    case TT__U_FLOOR:      TT__EACH(n, y[i] = floorf(x[i])); break;
    case TT__U_CEIL:       TT__EACH(n, y[i] = ceilf(x[i])); break;
    case TT__U_ROUND:      TT__EACH(n, y[i] = nearbyintf(x[i])); break;   /* default mode: ties to even */
    case TT__U_CLAMP:      TT__EACH(n, y[i] = tt__clampf(x[i], p0, p1)); break;
    case TT__U_POW:
        if (p0 == 2.0f) TT__EACH(n, y[i] = x[i] * x[i]);
        else            TT__EACH(n, y[i] = powf(x[i], p0));
        break;
    case TT__U_NOT:        TT__EACH(n, y[i] = x[i] == 0.0f ? 1.0f : 0.0f); break;
    }
}

static float tt__maxf(float a, float b) { return a != a ? a : b != b ? b : a > b ? a : b; }  /* NaN wins */
static float tt__minf(float a, float b) { return a != a ? a : b != b ? b : a < b ? a : b; }

/* y[i] = a[i] op b[i] for contiguous chunks; comparisons give 1.0f or 0.0f. */
static void tt__binary_chunk(tt__binary_op op, float *TT__RESTRICT y, const float *TT__RESTRICT a,
                             const float *TT__RESTRICT b, int64_t n) {
    switch (op) {
    case TT__B_ADD: TT__EACH(n, y[i] = a[i] + b[i]); break;
    case TT__B_SUB: TT__EACH(n, y[i] = a[i] - b[i]); break;
    case TT__B_MUL: TT__EACH(n, y[i] = a[i] * b[i]); break;
    case TT__B_DIV: TT__EACH(n, y[i] = a[i] / b[i]); break;
    case TT__B_POW: TT__EACH(n, y[i] = powf(a[i], b[i])); break;
    case TT__B_MAX: TT__EACH(n, y[i] = tt__maxf(a[i], b[i])); break;
    case TT__B_MIN: TT__EACH(n, y[i] = tt__minf(a[i], b[i])); break;
    case TT__B_EQ:  TT__EACH(n, y[i] = (float)(a[i] == b[i])); break;
    case TT__B_NE:  TT__EACH(n, y[i] = (float)(a[i] != b[i])); break;
    case TT__B_LT:  TT__EACH(n, y[i] = (float)(a[i] < b[i])); break;
    case TT__B_LE:  TT__EACH(n, y[i] = (float)(a[i] <= b[i])); break;
    case TT__B_GT:  TT__EACH(n, y[i] = (float)(a[i] > b[i])); break;
    case TT__B_GE:  TT__EACH(n, y[i] = (float)(a[i] >= b[i])); break;
    case TT__B_AND: TT__EACH(n, y[i] = (float)(a[i] != 0.0f && b[i] != 0.0f)); break;
    case TT__B_OR:  TT__EACH(n, y[i] = (float)(a[i] != 0.0f || b[i] != 0.0f)); break;
    }
}

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
            float *y = tt__chunk_dst(out, L.off[0] + c, ybuf);
            tt__unary_chunk(op, y, xs, n, p0, p1);
            tt__store_chunk(out, L.off[0] + c, y, n);
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
            float *y = tt__chunk_dst(out, L.off[0] + c, ybuf);
            tt__binary_chunk(op, y, as, bs, n);
            tt__store_chunk(out, L.off[0] + c, y, n);
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

/* ==========================================================================
 * >>reduce   sum, mean, max, min, prod, var, argmax/argmin, softmax, norms
 *
 * Every reduction first moves the reduced axes to the end (a permuted view) and makes
 * that contiguous, so the work is M rows of K values: output m reduces row m. Rows are
 * summed in double in a fixed order, so results do not depend on how rows are split.
 * ========================================================================== */
typedef enum tt__reduce_op {
    TT__R_SUM, TT__R_MEAN, TT__R_MAX, TT__R_MIN, TT__R_PROD, TT__R_VAR, TT__R_STD,
    TT__R_ARGMAX, TT__R_ARGMIN
} tt__reduce_op;

/* Marks the reduced axes in mask; NULL/0 axes means all. False (with an error) if invalid. */
static bool tt__reduce_mask(tt_ctx *ctx, const char *op, const tt_tensor *x, const int *axes, int n_axes, bool *mask) {
    int i;
    for (i = 0; i < TT_MAX_DIMS; i++) mask[i] = (axes == NULL || n_axes == 0);
    if (axes == NULL || n_axes == 0) return true;
    if (n_axes < 0 || n_axes > x->ndim) {
        tt__fail(ctx, TT_ERR_ARG, "%s: %d axes given for a tensor of shape %S", op, n_axes, x);
        return false;
    }
    for (i = 0; i < n_axes; i++) {
        int a = tt__axis(axes[i], x->ndim);
        if (a < 0 || mask[a]) {
            tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is %s for shape %S", op, axes[i],
                     a < 0 ? "out of range" : "repeated", x);
            return false;
        }
        mask[a] = true;
    }
    return true;
}

/* x with the masked axes moved last, contiguous f32: M rows of K elements. */
static tt_tensor *tt__rows_last(tt_ctx *ctx, const char *op, tt_tensor *x, const bool *mask, int64_t *K) {
    int perm[TT_MAX_DIMS], n = 0, d;
    tt_tensor *v;
    *K = 1;
    for (d = 0; d < TT_MAX_DIMS; d++) perm[d] = d;
    for (d = 0; d < x->ndim; d++) if (!mask[d]) perm[n++] = d;
    for (d = 0; d < x->ndim; d++) if (mask[d]) { perm[n++] = d; *K *= x->shape[d]; }
    v = tt__permute(ctx, op, x, perm);
    return v ? tt__contiguous_f32(ctx, op, v) : NULL;
}

/* Reduces one contiguous row of K values. */
static double tt__reduce_row(tt__reduce_op op, const float *x, int64_t K, int correction) {
    double acc = 0, mean;
    int64_t i, best = 0;
    switch (op) {
    case TT__R_SUM:  for (i = 0; i < K; i++) acc += x[i]; return acc;
    case TT__R_MEAN: for (i = 0; i < K; i++) acc += x[i]; return acc / (double)K;
    case TT__R_PROD: acc = 1; for (i = 0; i < K; i++) acc *= x[i]; return acc;
    case TT__R_MAX:  acc = x[0]; for (i = 1; i < K; i++) acc = tt__maxf((float)acc, x[i]); return acc;
    case TT__R_MIN:  acc = x[0]; for (i = 1; i < K; i++) acc = tt__minf((float)acc, x[i]); return acc;
    case TT__R_VAR: case TT__R_STD:
        for (i = 0; i < K; i++) acc += x[i];
        mean = acc / (double)K;
        acc = 0;
        for (i = 0; i < K; i++) acc += ((double)x[i] - mean) * ((double)x[i] - mean);
        acc /= (double)(K - correction);
        return op == TT__R_STD ? sqrt(acc) : acc;
    case TT__R_ARGMAX:                               /* first maximum; NaN counts as the largest */
        for (i = 1; i < K; i++)
            if (x[best] == x[best] && (x[i] > x[best] || x[i] != x[i])) best = i;
        return (double)best;
    case TT__R_ARGMIN:
        for (i = 1; i < K; i++)
            if (x[best] == x[best] && (x[i] < x[best] || x[i] != x[i])) best = i;
        return (double)best;
    }
    return 0;
}

static tt_tensor *tt__reduce(tt_ctx *ctx, const char *op, tt__reduce_op kind, tt_tensor *x,
                             const int *axes, int n_axes, bool keepdim, int correction) {
    bool mask[TT_MAX_DIMS];
    int64_t shape[TT_MAX_DIMS], K = 1, m, M;
    int ndim = 0, d;
    bool arg = kind == TT__R_ARGMAX || kind == TT__R_ARGMIN;
    tt_tensor *out, *rows;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (!tt__reduce_mask(ctx, op, x, axes, n_axes, mask)) return NULL;
    for (d = 0; d < x->ndim; d++) {
        if (mask[d]) { K *= x->shape[d]; if (keepdim) shape[ndim++] = 1; }
        else shape[ndim++] = x->shape[d];
    }
    if (K == 0 && (kind == TT__R_MAX || kind == TT__R_MIN || arg))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: cannot reduce an empty axis of %S (no identity)", op, x);
    out = tt__new(ctx, op, arg ? TT_I32 : TT_F32, ndim, shape);
    if (!out) return NULL;
    M = out->numel;
    scope = tt_scope_begin(ctx);
    rows = K > 0 ? tt__rows_last(ctx, op, x, mask, &K) : NULL;
    if (K > 0 && !rows) { tt_scope_end(ctx, scope); return NULL; }
    for (m = 0; m < M; m++) {
        double v;
        if (K == 0) v = kind == TT__R_PROD ? 1.0 : kind == TT__R_SUM ? 0.0 : NAN;
        else v = tt__reduce_row(kind, (const float *)tt_data(rows) + m * K, K, correction);
        if (arg) ((int32_t *)out->data)[m] = (int32_t)v;
        else ((float *)out->data)[m] = (float)v;
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_sum(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_sum", TT__R_SUM, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_mean(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_mean", TT__R_MEAN, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_max(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_max", TT__R_MAX, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_min(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_min", TT__R_MIN, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_prod(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, bool keepdim) {
    return tt__reduce(ctx, "tt_prod", TT__R_PROD, x, axes, n_axes, keepdim, 0);
}
TT_API tt_tensor *tt_var(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim) {
    if (ctx && x && correction < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_var: correction is %d, expected >= 0", correction);
    return tt__reduce(ctx, "tt_var", TT__R_VAR, x, axes, n_axes, keepdim, correction);
}
TT_API tt_tensor *tt_std(tt_ctx *ctx, tt_tensor *x, const int *axes, int n_axes, int correction, bool keepdim) {
    if (ctx && x && correction < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_std: correction is %d, expected >= 0", correction);
    return tt__reduce(ctx, "tt_std", TT__R_STD, x, axes, n_axes, keepdim, correction);
}

static tt_tensor *tt__arg_reduce(tt_ctx *ctx, const char *op, tt__reduce_op kind, tt_tensor *x, int axis, bool keepdim) {
    if (!ctx || !x) return NULL;
    if (x->ndim == 0) return tt__reduce(ctx, op, kind, x, NULL, 0, keepdim, 0);    /* a scalar: index 0 */
    if (tt__axis(axis, x->ndim) < 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    if (x->shape[tt__axis(axis, x->ndim)] == 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: axis %d of %S is empty", op, axis, x);
    return tt__reduce(ctx, op, kind, x, &axis, 1, keepdim, 0);
}
TT_API tt_tensor *tt_argmax(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim) {
    return tt__arg_reduce(ctx, "tt_argmax", TT__R_ARGMAX, x, axis, keepdim);
}
TT_API tt_tensor *tt_argmin(tt_ctx *ctx, tt_tensor *x, int axis, bool keepdim) {
    return tt__arg_reduce(ctx, "tt_argmin", TT__R_ARGMIN, x, axis, keepdim);
}

/* Softmax (or log-softmax) of one contiguous row, max subtracted first for stability. */
static void tt__softmax_row(float *y, const float *x, int64_t K, bool log_form) {
    float mx = -INFINITY;
    double sum = 0;
    int64_t i;
    for (i = 0; i < K; i++) mx = tt__maxf(mx, x[i]);
    for (i = 0; i < K; i++) sum += (double)expf(x[i] - mx);
    if (log_form) {
        float lse = mx + (float)log(sum);
        for (i = 0; i < K; i++) y[i] = x[i] - lse;
    } else {
        double inv = 1.0 / sum;
        for (i = 0; i < K; i++) y[i] = (float)((double)expf(x[i] - mx) * inv);
    }
}

static tt_tensor *tt__softmax(tt_ctx *ctx, const char *op, tt_tensor *x, int axis, bool log_form) {
    int a, last;
    int64_t K, m;
    tt_tensor *out, *rows, *res, *out_view;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    a = tt__axis(axis, x->ndim > 0 ? x->ndim : 1);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    out = tt__new(ctx, op, TT_F32, x->ndim, x->shape);
    if (!out || out->numel == 0) return out;
    if (x->ndim == 0) { ((float *)out->data)[0] = log_form ? 0.0f : 1.0f; return out; }
    last = x->ndim - 1;
    scope = tt_scope_begin(ctx);
    rows = tt__contiguous_f32(ctx, op, tt__transpose(ctx, op, x, a, last));
    out_view = tt__transpose(ctx, op, out, a, last);
    res = (rows && out_view) ? (a == last ? out : tt__new(ctx, op, TT_F32, out_view->ndim, out_view->shape)) : NULL;
    if (!res) { tt_scope_end(ctx, scope); return NULL; }
    K = x->shape[a];
    for (m = 0; m < x->numel / K; m++)
        tt__softmax_row((float *)res->data + m * K, (const float *)tt_data(rows) + m * K, K, log_form);
    if (res != out) tt__copy_into(out_view, res);
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_softmax(tt_ctx *ctx, tt_tensor *x, int axis) { return tt__softmax(ctx, "tt_softmax", x, axis, false); }
TT_API tt_tensor *tt_log_softmax(tt_ctx *ctx, tt_tensor *x, int axis) { return tt__softmax(ctx, "tt_log_softmax", x, axis, true); }

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
    return (const float *)tt_data(c);
}

/* Mean and 1/sqrt(var + eps) of n values (biased variance), in double. */
static void tt__moments(const float *x, int64_t n, double eps, double *mean, double *inv_std) {
    double s = 0, v = 0;
    int64_t i;
    for (i = 0; i < n; i++) s += x[i];
    *mean = s / (double)n;
    for (i = 0; i < n; i++) v += ((double)x[i] - *mean) * ((double)x[i] - *mean);
    *inv_std = 1.0 / sqrt(v / (double)n + eps);
}

/* Shared by layer_norm and rms_norm: normalize rows of K = prod(last n_dims axes). */
static tt_tensor *tt__row_norm(tt_ctx *ctx, const char *op, tt_tensor *x, int n_dims, tt_tensor *weight,
                               tt_tensor *bias, float eps, bool rms) {
    int64_t K = 1, m, i;
    int d;
    bool failed = false;
    const float *w, *b, *xd;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (n_dims < 1 || n_dims > x->ndim)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: n_dims is %d, expected 1..%d for x %S", op, n_dims, x->ndim, x);
    if (!tt__check_param(ctx, op, "weight", weight, x, x->ndim - n_dims) ||
        !tt__check_param(ctx, op, "bias", bias, x, x->ndim - n_dims)) return NULL;
    for (d = x->ndim - n_dims; d < x->ndim; d++) K *= x->shape[d];
    out = tt__new(ctx, op, TT_F32, x->ndim, x->shape);
    if (!out || K == 0) return out;
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    w = tt__param_data(ctx, op, weight, &failed);
    b = tt__param_data(ctx, op, bias, &failed);
    if (!xc || failed) { tt_scope_end(ctx, scope); return NULL; }
    xd = (const float *)tt_data(xc);
    for (m = 0; m < x->numel / K; m++) {
        const float *row = xd + m * K;
        float *y = (float *)out->data + m * K;
        double mean = 0, inv;
        if (rms) {
            double ss = 0;
            for (i = 0; i < K; i++) ss += (double)row[i] * row[i];
            inv = 1.0 / sqrt(ss / (double)K + eps);
        } else {
            tt__moments(row, K, eps, &mean, &inv);
        }
        for (i = 0; i < K; i++) {
            double v = ((double)row[i] - mean) * inv;
            if (w) v *= w[i];
            if (b) v += b[i];
            y[i] = (float)v;
        }
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_layer_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, tt_tensor *bias, float eps) {
    return tt__row_norm(ctx, "tt_layer_norm", x, n_dims, weight, bias, eps, false);
}
TT_API tt_tensor *tt_rms_norm(tt_ctx *ctx, tt_tensor *x, int n_dims, tt_tensor *weight, float eps) {
    return tt__row_norm(ctx, "tt_rms_norm", x, n_dims, weight, NULL, eps, true);
}

/* True when p is NULL or a 1-D tensor of C elements (an error otherwise). */
static bool tt__check_channels(tt_ctx *ctx, const char *op, const char *what, const tt_tensor *p, const tt_tensor *x) {
    if (!p || (p->ndim == 1 && p->shape[0] == x->shape[1])) return true;
    tt__fail(ctx, TT_ERR_SHAPE, "%s: %s has shape %S, expected [%D] (the channels of x %S)", op, what, p, x->shape[1], x);
    return false;
}

TT_API tt_tensor *tt_batch_norm(tt_ctx *ctx, tt_tensor *x, tt_tensor *mean, tt_tensor *var,
                                tt_tensor *weight, tt_tensor *bias, float eps) {
    const char *op = "tt_batch_norm";
    int64_t N, C, S, n, c, i;
    bool failed = false;
    const float *mu, *va, *w, *b, *xd;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x || !mean || !var) return NULL;
    if (x->ndim < 2) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x has shape %S, expected [N,C,...]", op, x);
    if (!tt__check_channels(ctx, op, "running mean", mean, x) || !tt__check_channels(ctx, op, "running var", var, x) ||
        !tt__check_channels(ctx, op, "weight", weight, x) || !tt__check_channels(ctx, op, "bias", bias, x)) return NULL;
    N = x->shape[0]; C = x->shape[1];
    out = tt__new(ctx, op, TT_F32, x->ndim, x->shape);
    if (!out || out->numel == 0) return out;
    S = x->numel / (N * C);
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    mu = tt__param_data(ctx, op, mean, &failed);
    va = tt__param_data(ctx, op, var, &failed);
    w = tt__param_data(ctx, op, weight, &failed);
    b = tt__param_data(ctx, op, bias, &failed);
    if (!xc || failed) { tt_scope_end(ctx, scope); return NULL; }
    xd = (const float *)tt_data(xc);
    for (n = 0; n < N; n++) {
        for (c = 0; c < C; c++) {
            double inv = 1.0 / sqrt((double)va[c] + eps), m = mu[c];
            double scale = w ? inv * w[c] : inv, shift = b ? b[c] : 0.0;
            const float *src = xd + (n * C + c) * S;
            float *dst = (float *)out->data + (n * C + c) * S;
            for (i = 0; i < S; i++) dst[i] = (float)(((double)src[i] - m) * scale + shift);
        }
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_group_norm(tt_ctx *ctx, tt_tensor *x, int groups, tt_tensor *weight, tt_tensor *bias, float eps) {
    const char *op = "tt_group_norm";
    int64_t N, C, S, G, n, g, c, i;
    bool failed = false;
    const float *w, *b, *xd;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (x->ndim < 2) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x has shape %S, expected [N,C,...]", op, x);
    if (groups < 1 || x->shape[1] % groups != 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: %d groups do not divide the %D channels of x %S",
                                     op, groups, x->shape[1], x);
    if (!tt__check_channels(ctx, op, "weight", weight, x) || !tt__check_channels(ctx, op, "bias", bias, x)) return NULL;
    N = x->shape[0]; C = x->shape[1]; G = groups;
    out = tt__new(ctx, op, TT_F32, x->ndim, x->shape);
    if (!out || out->numel == 0) return out;
    S = x->numel / (N * C);
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    w = tt__param_data(ctx, op, weight, &failed);
    b = tt__param_data(ctx, op, bias, &failed);
    if (!xc || failed) { tt_scope_end(ctx, scope); return NULL; }
    xd = (const float *)tt_data(xc);
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            int64_t cg = C / G, base = (n * C + g * cg) * S;
            double mean, inv;
            tt__moments(xd + base, cg * S, eps, &mean, &inv);
            for (c = 0; c < cg; c++) {
                int64_t ch = g * cg + c;
                double scale = w ? inv * w[ch] : inv, shift = b ? b[ch] : 0.0;
                for (i = 0; i < S; i++) {
                    int64_t k = base + c * S + i;
                    ((float *)out->data)[k] = (float)(((double)xd[k] - mean) * scale + shift);
                }
            }
        }
    }
    tt_scope_end(ctx, scope);
    return out;
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

/* Dot product with 8 independent partial sums (vectorizable without reassociation). */
static float tt__dot(const float *TT__RESTRICT a, const float *TT__RESTRICT b, int64_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    int l;
    for (; i + 8 <= n; i += 8)
        for (l = 0; l < 8; l++) s[l] += a[i + l] * b[i + l];
    for (; i < n; i++) s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* c[j] += a * b[j]: the inner loop of the row-times-matrix GEMM. */
static void tt__axpy(float *TT__RESTRICT c, const float *TT__RESTRICT b, float a, int64_t n) {
    TT__EACH(n, c[i] += a * b[i]);
}

/* True when tt__gemm has a fast loop for these strides. */
static bool tt__gemm_layout_ok(int64_t sak, int64_t sbk, int64_t sbn) {
    return sbn == 1 || (sak == 1 && sbk == 1);
}

/* C[M,N] (contiguous) = A[M,K] * B[K,N]; A(i,k) = A[i*sam + k*sak], B(k,j) = B[k*sbk + j*sbn]. */
static void tt__gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                     const float *B, int64_t sbk, int64_t sbn, float *C) {
    int64_t i, j, k, k0;
    if (sbn == 1) {
        for (i = 0; i < M * N; i++) C[i] = 0.0f;
        for (k0 = 0; k0 < K; k0 += TT__GEMM_KC) {
            int64_t k1 = tt__min64(K, k0 + TT__GEMM_KC);
            for (i = 0; i < M; i++) {
                float *c = C + i * N;
                for (k = k0; k < k1; k++) tt__axpy(c, B + k * sbk, A[i * sam + k * sak], N);
            }
        }
        return;
    }
    TT_ASSERT(sak == 1 && sbk == 1);
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) C[i * N + j] = tt__dot(A + i * sam, B + j * sbn, K);
}

TT_API tt_tensor *tt_matmul(tt_ctx *ctx, tt_tensor *a, tt_tensor *b) {
    const char *op = "tt_matmul";
    int64_t bshape[TT_MAX_DIMS], oshape[TT_MAX_DIMS], sa[TT_MAX_DIMS], sb[TT_MAX_DIMS];
    int64_t M, K, N, nbatch = 1, bi;
    int nb, an, bn, d, on = 0;
    tt_tensor *out, *a2, *b2;
    tt_scope scope;
    if (!ctx || !a || !b) return NULL;
    if (a->ndim == 0 || b->ndim == 0)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: operands need at least 1 dimension: a is %S, b is %S", op, a, b);
    scope = tt_scope_begin(ctx);                       /* the 2-D views below are temporary */
    a2 = a->ndim == 1 ? tt__unsqueeze(ctx, op, a, 0) : a;
    b2 = b->ndim == 1 ? tt__unsqueeze(ctx, op, b, 1) : b;
    if (!a2 || !b2) { tt_scope_end(ctx, scope); return NULL; }
    an = a2->ndim; bn = b2->ndim;
    M = a2->shape[an - 2]; K = a2->shape[an - 1]; N = b2->shape[bn - 1];
    if (b2->shape[bn - 2] != K) {
        tt_scope_end(ctx, scope);
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: inner dimensions differ: a is %S, b is %S", op, a, b);
    }
    if (!tt__broadcast_shape(an - 2, a2->shape, bn - 2, b2->shape, &nb, bshape)) {
        tt_scope_end(ctx, scope);
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: batch dimensions do not broadcast: a is %S, b is %S", op, a, b);
    }
    tt_scope_end(ctx, scope);
    for (d = 0; d < nb; d++) { oshape[on++] = bshape[d]; nbatch *= bshape[d]; }
    if (a->ndim > 1) oshape[on++] = M;
    if (b->ndim > 1) oshape[on++] = N;
    out = tt__new(ctx, op, TT_F32, on, oshape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    a2 = tt__as_f32(ctx, op, a->ndim == 1 ? tt__unsqueeze(ctx, op, a, 0) : a);
    b2 = tt__as_f32(ctx, op, b->ndim == 1 ? tt__unsqueeze(ctx, op, b, 1) : b);
    if (b2 && !tt__gemm_layout_ok(a2 ? a2->stride[an - 1] : 1, b2->stride[bn - 2], b2->stride[bn - 1]))
        b2 = tt__copy_as(ctx, op, b2, TT_F32);         /* contiguous B: rows of B are contiguous */
    if (!a2 || !b2) { tt_scope_end(ctx, scope); return NULL; }
    for (d = 0; d < nb; d++) {                         /* batch strides, 0 where broadcast */
        int ad = d - (nb - (an - 2)), bd = d - (nb - (bn - 2));
        sa[d] = (ad < 0 || a2->shape[ad] != bshape[d]) ? 0 : a2->stride[ad];
        sb[d] = (bd < 0 || b2->shape[bd] != bshape[d]) ? 0 : b2->stride[bd];
    }
    for (bi = 0; bi < nbatch; bi++) {
        int64_t rest = bi, oa = a2->offset, ob = b2->offset;
        for (d = nb - 1; d >= 0; d--) {
            int64_t i = rest % bshape[d];
            rest /= bshape[d];
            oa += i * sa[d];
            ob += i * sb[d];
        }
        tt__gemm(M, N, K, (const float *)a2->data + oa, a2->stride[an - 2], a2->stride[an - 1],
                 (const float *)b2->data + ob, b2->stride[bn - 2], b2->stride[bn - 1],
                 (float *)out->data + bi * M * N);
    }
    tt_scope_end(ctx, scope);
    return out;
}

/* Adds bias[j] to column j of the M x N rows of y (bias may be NULL). */
static void tt__add_bias_rows(float *y, const float *bias, int64_t M, int64_t N) {
    int64_t i, j;
    if (!bias) return;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) y[i * N + j] += bias[j];
}

TT_API tt_tensor *tt_linear(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias) {
    const char *op = "tt_linear";
    int64_t shape[TT_MAX_DIMS], in, outf, M;
    int d;
    bool failed = false;
    const float *bd;
    tt_tensor *out, *xc, *w;
    tt_scope scope;
    if (!ctx || !x || !weight) return NULL;
    if (weight->ndim != 2 || x->ndim < 1 || x->shape[x->ndim - 1] != weight->shape[1])
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x %S does not fit weight %S: expected x [...,in] and "
                                     "weight [out,in]", op, x, weight);
    in = weight->shape[1]; outf = weight->shape[0];
    if (bias && (bias->ndim != 1 || bias->shape[0] != outf))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: bias has shape %S, expected [%D] for weight %S", op, bias, outf, weight);
    for (d = 0; d < x->ndim - 1; d++) shape[d] = x->shape[d];
    shape[x->ndim - 1] = outf;
    out = tt__new(ctx, op, TT_F32, x->ndim, shape);
    if (!out || out->numel == 0) return out;
    M = out->numel / outf;
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    w = tt__as_f32(ctx, op, weight);                     /* B(k,j) = weight[j,k] */
    if (w && !tt__gemm_layout_ok(1, w->stride[1], w->stride[0])) w = tt__copy_as(ctx, op, w, TT_F32);
    bd = tt__param_data(ctx, op, bias, &failed);
    if (!xc || !w || failed) { tt_scope_end(ctx, scope); return NULL; }
    tt__gemm(M, outf, in, (const float *)tt_data(xc), in, 1, (const float *)w->data + w->offset,
             w->stride[1], w->stride[0], (float *)out->data);
    tt__add_bias_rows((float *)out->data, bd, M, outf);
    tt_scope_end(ctx, scope);
    return out;
}

/* ==========================================================================
 * >>conv   conv2d/conv1d (im2col + GEMM), pooling, upsampling
 *
 * Convolution unrolls, per image and group, every receptive field into a column of a
 * [Cin/groups*kh*kw, OH*OW] matrix (im2col; zeros where the window hangs over the
 * padding), then one GEMM with the group's weights gives all output channels. A 1x1
 * convolution with stride 1 and no padding needs no unrolling: the image is the matrix.
 * conv1d is conv2d on a height-1 image.
 * ========================================================================== */

/* Output size of a sliding window, or -1 when the window does not fit. */
static int64_t tt__out_size(int64_t in, int64_t k, int stride, int pad, int dil) {
    int64_t span = (int64_t)dil * (k - 1) + 1;
    if (in + 2 * (int64_t)pad < span) return -1;
    return (in + 2 * (int64_t)pad - span) / stride + 1;
}

static void tt__im2col(float *col, const float *x, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW,
                       int64_t OH, int64_t OW, const tt_conv_params *p) {
    int64_t c, kh, kw, oh, ow;
    for (c = 0; c < C; c++)
        for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KW; kw++) {
                float *dst = col + ((c * KH + kh) * KW + kw) * OH * OW;
                for (oh = 0; oh < OH; oh++) {
                    int64_t ih = oh * p->stride[0] - p->padding[0] + kh * p->dilation[0];
                    float *d = dst + oh * OW;
                    if (ih < 0 || ih >= H) { for (ow = 0; ow < OW; ow++) d[ow] = 0.0f; continue; }
                    for (ow = 0; ow < OW; ow++) {
                        int64_t iw = ow * p->stride[1] - p->padding[1] + kw * p->dilation[1];
                        d[ow] = (iw >= 0 && iw < W) ? x[(c * H + ih) * W + iw] : 0.0f;
                    }
                }
            }
}

/* Checks the parameters and shapes of a convolution; fills the output shape. */
/* ux and uw are x and w as the user passed them (conv1d's are 3-D), for messages. */
static bool tt__conv_check(tt_ctx *ctx, const char *op, const tt_tensor *x, const tt_tensor *w, const tt_tensor *bias,
                           const tt_conv_params *p, int64_t *oshape, const tt_tensor *ux, const tt_tensor *uw) {
    int i;
    int64_t g = p->groups;
    for (i = 0; i < 2; i++) {
        if (p->stride[i] < 1 || p->dilation[i] < 1 || p->padding[i] < 0) {
            tt__fail(ctx, TT_ERR_ARG, "%s: stride %d, padding %d, dilation %d: expected stride >= 1, padding >= 0, "
                     "dilation >= 1", op, p->stride[i], p->padding[i], p->dilation[i]);
            return false;
        }
    }
    if (x->ndim != 4 || w->ndim != 4) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S and weight is %S, expected x [N,C,H,W] and weight [O,C/groups,kh,kw]",
                 op, ux, uw);
        return false;
    }
    if (g < 1 || x->shape[1] % g != 0 || w->shape[0] % g != 0) {
        tt__fail(ctx, TT_ERR_ARG, "%s: groups is %d: expected >= 1 and dividing the %D input and %D output channels",
                 op, p->groups, x->shape[1], w->shape[0]);
        return false;
    }
    if (w->shape[1] != x->shape[1] / g) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: weight %S expects %D input channels per group, x %S has %D (groups %d)",
                 op, uw, w->shape[1], ux, x->shape[1] / g, p->groups);
        return false;
    }
    if (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: bias has shape %S, expected [%D]", op, bias, w->shape[0]);
        return false;
    }
    oshape[0] = x->shape[0];
    oshape[1] = w->shape[0];
    oshape[2] = tt__out_size(x->shape[2], w->shape[2], p->stride[0], p->padding[0], p->dilation[0]);
    oshape[3] = tt__out_size(x->shape[3], w->shape[3], p->stride[1], p->padding[1], p->dilation[1]);
    if (oshape[2] < 1 || oshape[3] < 1) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: kernel %S (dilated) does not fit input %S with padding %d,%d",
                 op, uw, ux, p->padding[0], p->padding[1]);
        return false;
    }
    return true;
}

static tt_tensor *tt__conv2d(tt_ctx *ctx, const char *op, tt_tensor *x, tt_tensor *w, tt_tensor *bias,
                             const tt_conv_params *p, const tt_tensor *ux, const tt_tensor *uw) {
    int64_t os[4], N, C, H, W, O, KH, KW, OH, OW, G, Cg, Og, Kc, n, g;
    bool direct, failed = false;
    const float *xd, *wd, *bd;
    float *col = NULL;
    tt_tensor *out, *xc, *wc;
    tt_scope scope;
    if (!tt__conv_check(ctx, op, x, w, bias, p, os, ux, uw)) return NULL;
    out = tt__new(ctx, op, TT_F32, 4, os);
    if (!out || out->numel == 0) return out;
    N = x->shape[0]; C = x->shape[1]; H = x->shape[2]; W = x->shape[3];
    O = w->shape[0]; KH = w->shape[2]; KW = w->shape[3]; OH = os[2]; OW = os[3];
    G = p->groups; Cg = C / G; Og = O / G; Kc = Cg * KH * KW;
    direct = KH == 1 && KW == 1 && p->stride[0] == 1 && p->stride[1] == 1 && p->padding[0] == 0 && p->padding[1] == 0;
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    wc = tt__contiguous_f32(ctx, op, w);
    bd = tt__param_data(ctx, op, bias, &failed);
    if (!direct && xc && wc && !failed) col = (float *)tt__alloc(ctx, op, (size_t)(Kc * OH * OW) * sizeof(float));
    if (!xc || !wc || failed || (!direct && !col)) { tt_scope_end(ctx, scope); return NULL; }
    xd = (const float *)tt_data(xc);
    wd = (const float *)tt_data(wc);
    for (n = 0; n < N; n++) {
        for (g = 0; g < G; g++) {
            const float *img = xd + (n * C + g * Cg) * H * W;
            float *y = (float *)out->data + (n * O + g * Og) * OH * OW;
            if (!direct) tt__im2col(col, img, Cg, H, W, KH, KW, OH, OW, p);
            tt__gemm(Og, OH * OW, Kc, wd + g * Og * Kc, Kc, 1, direct ? img : col, OH * OW, 1, y);
        }
    }
    if (bd) {
        int64_t o, i;
        for (n = 0; n < N; n++)
            for (o = 0; o < O; o++) {
                float *y = (float *)out->data + (n * O + o) * OH * OW;
                for (i = 0; i < OH * OW; i++) y[i] += bd[o];
            }
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_conv2d_ex(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias, const tt_conv_params *p) {
    if (!ctx || !x || !weight) return NULL;
    if (!p) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "tt_conv2d_ex: params are NULL");
    return tt__conv2d(ctx, "tt_conv2d_ex", x, weight, bias, p, x, weight);
}

static tt_conv_params tt__conv_params(int sh, int sw, int ph, int pw, int dh, int dw, int groups) {
    tt_conv_params p;
    p.stride[0] = sh; p.stride[1] = sw;
    p.padding[0] = ph; p.padding[1] = pw;
    p.dilation[0] = dh; p.dilation[1] = dw;
    p.groups = groups;
    return p;
}

TT_API tt_tensor *tt_conv2d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                            int stride, int padding, int dilation, int groups) {
    tt_conv_params p = tt__conv_params(stride, stride, padding, padding, dilation, dilation, groups);
    if (!ctx || !x || !weight) return NULL;
    return tt__conv2d(ctx, "tt_conv2d", x, weight, bias, &p, x, weight);
}

TT_API tt_tensor *tt_conv1d(tt_ctx *ctx, tt_tensor *x, tt_tensor *weight, tt_tensor *bias,
                            int stride, int padding, int dilation, int groups) {
    const char *op = "tt_conv1d";
    tt_conv_params p = tt__conv_params(1, stride, 0, padding, 1, dilation, groups);
    tt_tensor *x4, *w4, *y;
    if (!ctx || !x || !weight) return NULL;
    if (x->ndim != 3 || weight->ndim != 3)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S and weight is %S, expected x [N,C,L] and "
                                     "weight [O,C/groups,k]", op, x, weight);
    x4 = tt__unsqueeze(ctx, op, x, 2);                 /* [N,C,1,L] and [O,C/g,1,k] */
    w4 = tt__unsqueeze(ctx, op, weight, 2);
    y = (x4 && w4) ? tt__conv2d(ctx, op, x4, w4, bias, &p, x, weight) : NULL;
    if (!y) return NULL;
    y->shape[2] = y->shape[3];                         /* [N,O,1,OL] -> [N,O,OL], still contiguous */
    y->ndim = 3;
    tt__set_contiguous_strides(y);
    tt__update_numel(y);
    return y;
}

/* ---- pooling and upsampling (direct loops over contiguous f32 planes) ---------- */

/* Checks a pooling input and its window; fills the output shape and resolves stride. */
static bool tt__pool_check(tt_ctx *ctx, const char *op, const tt_tensor *x, int kernel, int *stride, int padding,
                           int64_t *os) {
    if (x->ndim != 4) { tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected [N,C,H,W]", op, x); return false; }
    if (*stride == 0) *stride = kernel;
    if (kernel < 1 || *stride < 1 || padding < 0 || padding > kernel / 2) {
        tt__fail(ctx, TT_ERR_ARG, "%s: kernel %d, stride %d, padding %d: expected kernel >= 1, stride >= 0 "
                 "(0 = kernel) and 0 <= padding <= kernel/2", op, kernel, *stride, padding);
        return false;
    }
    os[0] = x->shape[0]; os[1] = x->shape[1];
    os[2] = tt__out_size(x->shape[2], kernel, *stride, padding, 1);
    os[3] = tt__out_size(x->shape[3], kernel, *stride, padding, 1);
    if (os[2] < 1 || os[3] < 1) {
        tt__fail(ctx, TT_ERR_SHAPE, "%s: a %dx%d window does not fit input %S with padding %d", op, kernel, kernel, x, padding);
        return false;
    }
    return true;
}

static tt_tensor *tt__pool2d(tt_ctx *ctx, const char *op, tt_tensor *x, int kernel, int stride, int padding, bool is_max) {
    int64_t os[4], H, W, OH, OW, plane, oh, ow, i, j;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (!tt__pool_check(ctx, op, x, kernel, &stride, padding, os)) return NULL;
    out = tt__new(ctx, op, TT_F32, 4, os);
    if (!out || out->numel == 0) return out;
    H = x->shape[2]; W = x->shape[3]; OH = os[2]; OW = os[3];
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    if (!xc) { tt_scope_end(ctx, scope); return NULL; }
    for (plane = 0; plane < os[0] * os[1]; plane++) {
        const float *src = (const float *)tt_data(xc) + plane * H * W;
        float *dst = (float *)out->data + plane * OH * OW;
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                int64_t h0 = oh * stride - padding, w0 = ow * stride - padding;
                float m = -INFINITY;
                double s = 0;
                for (i = tt__max64(h0, 0); i < tt__min64(h0 + kernel, H); i++)
                    for (j = tt__max64(w0, 0); j < tt__min64(w0 + kernel, W); j++) {
                        m = tt__maxf(m, src[i * W + j]);
                        s += src[i * W + j];
                    }
                dst[oh * OW + ow] = is_max ? m : (float)(s / ((double)kernel * kernel));  /* padding counts */
            }
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_max_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool2d(ctx, "tt_max_pool2d", x, kernel, stride, padding, true);
}
TT_API tt_tensor *tt_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int kernel, int stride, int padding) {
    return tt__pool2d(ctx, "tt_avg_pool2d", x, kernel, stride, padding, false);
}

/* Shared by adaptive pooling and upsampling: checks x and the requested output size. */
static tt_tensor *tt__resize_out(tt_ctx *ctx, const char *op, const tt_tensor *x, int64_t oh, int64_t ow, bool need_input) {
    int64_t os[4];
    if (x->ndim != 4) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: x is %S, expected [N,C,H,W]", op, x);
    if (oh < 1 || ow < 1 || (need_input && (x->shape[2] < 1 || x->shape[3] < 1)))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: output size %Dx%D for input %S: expected sizes >= 1 and a "
                                     "non-empty input", op, oh, ow, x);
    os[0] = x->shape[0]; os[1] = x->shape[1]; os[2] = oh; os[3] = ow;
    return tt__new(ctx, op, TT_F32, 4, os);
}

TT_API tt_tensor *tt_adaptive_avg_pool2d(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w) {
    const char *op = "tt_adaptive_avg_pool2d";
    int64_t H, W, plane, oh, ow, i, j;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    out = tt__resize_out(ctx, op, x, out_h, out_w, true);
    if (!out || out->numel == 0) return out;
    H = x->shape[2]; W = x->shape[3];
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    if (!xc) { tt_scope_end(ctx, scope); return NULL; }
    for (plane = 0; plane < x->shape[0] * x->shape[1]; plane++) {
        const float *src = (const float *)tt_data(xc) + plane * H * W;
        float *dst = (float *)out->data + plane * out_h * out_w;
        for (oh = 0; oh < out_h; oh++) {
            int64_t h0 = oh * H / out_h, h1 = ((oh + 1) * H + out_h - 1) / out_h;
            for (ow = 0; ow < out_w; ow++) {
                int64_t w0 = ow * W / out_w, w1 = ((ow + 1) * W + out_w - 1) / out_w;
                double s = 0;
                for (i = h0; i < h1; i++)
                    for (j = w0; j < w1; j++) s += src[i * W + j];
                dst[oh * out_w + ow] = (float)(s / (double)((h1 - h0) * (w1 - w0)));
            }
        }
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_upsample_nearest(tt_ctx *ctx, tt_tensor *x, int64_t out_h, int64_t out_w) {
    const char *op = "tt_upsample_nearest";
    int64_t H, W, plane, oh, ow;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    out = tt__resize_out(ctx, op, x, out_h, out_w, true);
    if (!out || out->numel == 0) return out;
    H = x->shape[2]; W = x->shape[3];
    scope = tt_scope_begin(ctx);
    xc = tt__contiguous_f32(ctx, op, x);
    if (!xc) { tt_scope_end(ctx, scope); return NULL; }
    for (plane = 0; plane < x->shape[0] * x->shape[1]; plane++) {
        const float *src = (const float *)tt_data(xc) + plane * H * W;
        float *dst = (float *)out->data + plane * out_h * out_w;
        for (oh = 0; oh < out_h; oh++)
            for (ow = 0; ow < out_w; ow++)
                dst[oh * out_w + ow] = src[(oh * H / out_h) * W + ow * W / out_w];
    }
    tt_scope_end(ctx, scope);
    return out;
}

/* ==========================================================================
 * >>shape   concat, stack, split, pad, gather, index_select, embedding, tile, ...
 *
 * Most of these are a view plus a copy: concat copies each input into a slice of the
 * output, pad copies x into the middle of a filled tensor, tile and repeat_interleave
 * expand a view with extra axes and copy it, flip copies a view with negative strides.
 * Index ops check every index before they write anything.
 * ========================================================================== */
static tt_tensor *tt__concat(tt_ctx *ctx, const char *op, tt_tensor *const *xs, int n, int axis) {
    int64_t shape[TT_MAX_DIMS], off = 0;
    int a, i, d;
    tt_tensor *out;
    tt_scope scope;
    if (!ctx) return NULL;
    if (!xs || n < 1) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: expected at least one tensor, got %d", op, n);
    for (i = 0; i < n; i++) if (!xs[i]) return NULL;
    a = tt__axis(axis, xs[0]->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, xs[0]);
    for (d = 0; d < xs[0]->ndim; d++) shape[d] = xs[0]->shape[d];
    shape[a] = 0;
    for (i = 0; i < n; i++) {
        bool ok = xs[i]->ndim == xs[0]->ndim;
        for (d = 0; ok && d < xs[0]->ndim; d++) ok = d == a || xs[i]->shape[d] == xs[0]->shape[d];
        if (!ok) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: tensor %d has shape %S, tensor 0 has %S: all sizes "
                                              "but axis %d must match", op, i, xs[i], xs[0], a);
        if (xs[i]->dtype != xs[0]->dtype)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "%s: tensor %d is %T, tensor 0 is %T", op, i,
                                         (int)xs[i]->dtype, (int)xs[0]->dtype);
        shape[a] += xs[i]->shape[a];
    }
    out = tt__new(ctx, op, xs[0]->dtype, xs[0]->ndim, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    for (i = 0; i < n; i++) {
        tt_tensor *dst = tt__slice(ctx, op, out, a, off, off + xs[i]->shape[a], 1);
        if (!dst) { tt_scope_end(ctx, scope); return NULL; }
        tt__copy_into(dst, xs[i]);
        off += xs[i]->shape[a];
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API tt_tensor *tt_concat(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis) {
    return tt__concat(ctx, "tt_concat", xs, n, axis);
}

TT_API tt_tensor *tt_stack(tt_ctx *ctx, tt_tensor *const *xs, int n, int axis) {
    const char *op = "tt_stack";
    int64_t shape[TT_MAX_DIMS];
    tt_tensor *out;
    tt_scope scope;
    int i, a, d;
    if (!ctx) return NULL;
    if (!xs || n < 1) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: expected at least one tensor, got %d", op, n);
    for (i = 0; i < n; i++) if (!xs[i]) return NULL;
    for (i = 1; i < n; i++) {
        if (!tt_same_shape(xs[i], xs[0]))
            return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: tensor %d has shape %S, tensor 0 has %S: all must match",
                                         op, i, xs[i], xs[0]);
        if (xs[i]->dtype != xs[0]->dtype)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "%s: tensor %d is %T, tensor 0 is %T", op, i,
                                         (int)xs[i]->dtype, (int)xs[0]->dtype);
    }
    a = tt__axis(axis, xs[0]->ndim + 1);
    if (a < 0 || xs[0]->ndim >= TT_MAX_DIMS)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for stacking shape %S", op, axis, xs[0]);
    for (d = 0; d < xs[0]->ndim + 1; d++) shape[d] = d < a ? xs[0]->shape[d] : d == a ? n : xs[0]->shape[d - 1];
    out = tt__new(ctx, op, xs[0]->dtype, xs[0]->ndim + 1, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    for (i = 0; i < n; i++) {                           /* out[..., i, ...] = xs[i] */
        tt_tensor *dst = tt__slice(ctx, op, out, a, i, i + 1, 1);
        tt_tensor *src = tt__unsqueeze(ctx, op, xs[i], a);
        if (!dst || !src) { tt_scope_end(ctx, scope); return NULL; }
        tt__copy_into(dst, src);
    }
    tt_scope_end(ctx, scope);
    return out;
}

TT_API int tt_split(tt_ctx *ctx, tt_tensor *x, int64_t split_size, int axis, tt_tensor **out, int max_out) {
    int a, count, i;
    int64_t size;
    if (!ctx || !x) return -1;
    a = tt__axis(axis, x->ndim);
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "tt_split: axis %d is out of range for shape %S", axis, x); return -1; }
    if (split_size < 1) { tt__fail(ctx, TT_ERR_ARG, "tt_split: split_size is %D, expected >= 1", split_size); return -1; }
    if (max_out > 0 && !out) { tt__fail(ctx, TT_ERR_ARG, "tt_split: out is NULL but max_out is %d", max_out); return -1; }
    size = x->shape[a];
    count = size == 0 ? 1 : (int)((size - 1) / split_size + 1);
    for (i = 0; i < count && i < max_out; i++) {
        int64_t start = (int64_t)i * split_size;
        out[i] = tt__slice(ctx, "tt_split", x, a, start, start + tt__min64(split_size, size - start), 1);
        if (!out[i]) return -1;
    }
    return count;
}

TT_API int tt_chunk(tt_ctx *ctx, tt_tensor *x, int chunks, int axis, tt_tensor **out, int max_out) {
    int a;
    int64_t size;
    if (!ctx || !x) return -1;
    a = tt__axis(axis, x->ndim);
    if (a < 0) { tt__fail(ctx, TT_ERR_ARG, "tt_chunk: axis %d is out of range for shape %S", axis, x); return -1; }
    if (chunks < 1) { tt__fail(ctx, TT_ERR_ARG, "tt_chunk: chunks is %d, expected >= 1", chunks); return -1; }
    size = x->shape[a];
    return tt_split(ctx, x, size == 0 ? 1 : (size - 1) / chunks + 1, a, out, max_out);
}

TT_API tt_tensor *tt_pad(tt_ctx *ctx, tt_tensor *x, const int64_t *pads, int n_pads, float value) {
    const char *op = "tt_pad";
    int64_t shape[TT_MAX_DIMS];
    int i, d;
    tt_tensor *out, *dst;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (n_pads < 0 || n_pads % 2 != 0 || n_pads > 2 * x->ndim || (n_pads > 0 && !pads))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: %d pads for shape %S: expected an even number <= %d",
                                     op, n_pads, x, 2 * x->ndim);
    for (d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    for (i = 0; i < n_pads; i++) {
        if (pads[i] < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: pads[%d] is %D, expected >= 0", op, i, pads[i]);
        shape[x->ndim - 1 - i / 2] += pads[i];
    }
    out = tt__full(ctx, op, x->dtype, x->ndim, shape, value);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    dst = out;
    for (i = 0; dst && i < n_pads; i += 2) {             /* the middle of out, where x goes */
        int ax = x->ndim - 1 - i / 2;
        dst = tt__slice(ctx, op, dst, ax, pads[i], pads[i] + x->shape[ax], 1);
    }
    if (dst) tt__copy_into(dst, x);
    tt_scope_end(ctx, scope);
    return dst ? out : NULL;
}

/* Every element of the i32 tensor index is in [0, limit); an error naming op otherwise. */
static bool tt__check_indices(tt_ctx *ctx, const char *op, const tt_tensor *index, int64_t limit) {
    int64_t i;
    if (index->dtype != TT_I32) {
        tt__fail(ctx, TT_ERR_DTYPE, "%s: index has dtype %T, expected i32", op, (int)index->dtype);
        return false;
    }
    for (i = 0; i < index->numel; i++) {
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, i)];
        if (v < 0 || v >= limit) {
            tt__fail(ctx, TT_ERR_INDEX, "%s: index %d (element %D of index %S) is out of range [0,%D)",
                     op, (int)v, i, index, limit);
            return false;
        }
    }
    return true;
}

/* Copies element at storage offset so of src to element do of dst (same dtype). */
static void tt__copy_elem(void *dst, int64_t dofs, const void *src, int64_t sofs, size_t es) {
    memcpy((char *)dst + dofs * (int64_t)es, (const char *)src + sofs * (int64_t)es, es);
}

TT_API tt_tensor *tt_gather(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index) {
    const char *op = "tt_gather";
    int a, d;
    int64_t i;
    size_t es;
    tt_tensor *out;
    if (!ctx || !x || !index) return NULL;
    a = tt__axis(axis, x->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    if (index->ndim != x->ndim)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: index %S must have as many axes as x %S", op, index, x);
    for (d = 0; d < x->ndim; d++)
        if (d != a && index->shape[d] > x->shape[d])
            return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: index %S is larger than x %S on axis %d", op, index, x, d);
    if (!tt__check_indices(ctx, op, index, x->shape[a])) return NULL;
    out = tt__new(ctx, op, x->dtype, index->ndim, index->shape);
    if (!out) return NULL;
    es = tt_dtype_size(x->dtype);
    for (i = 0; i < out->numel; i++) {                  /* out[i0..] = x[i0.., index[i0..], ..] */
        int64_t rest = i, src = x->offset;
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, i)];
        for (d = x->ndim - 1; d >= 0; d--) {
            int64_t id = rest % out->shape[d];
            rest /= out->shape[d];
            src += (d == a ? (int64_t)v : id) * x->stride[d];
        }
        tt__copy_elem(out->data, i, x->data, src, es);
    }
    return out;
}

/* index_select with op naming the caller; the checks are done by the callers. */
static tt_tensor *tt__index_select(tt_ctx *ctx, const char *op, tt_tensor *x, int a, tt_tensor *index) {
    int64_t shape[TT_MAX_DIMS], k;
    int d;
    tt_tensor *out;
    tt_scope scope;
    for (d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    shape[a] = index->numel;
    out = tt__new(ctx, op, x->dtype, x->ndim, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    for (k = 0; k < index->numel; k++) {                /* out[.., k, ..] = x[.., index[k], ..] */
        int32_t v = ((const int32_t *)index->data)[tt__offset_of(index, k)];
        tt_tensor *dst = tt__slice(ctx, op, out, a, k, k + 1, 1);
        tt_tensor *src = tt__slice(ctx, op, x, a, v, (int64_t)v + 1, 1);
        if (!dst || !src) { tt_scope_end(ctx, scope); return NULL; }
        tt__copy_into(dst, src);
        tt_scope_end(ctx, scope);                        /* the two headers are not needed again */
    }
    return out;
}

TT_API tt_tensor *tt_index_select(tt_ctx *ctx, tt_tensor *x, int axis, tt_tensor *index) {
    const char *op = "tt_index_select";
    int a;
    if (!ctx || !x || !index) return NULL;
    a = tt__axis(axis, x->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    if (index->ndim != 1)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: index has shape %S, expected a 1-D tensor", op, index);
    if (!tt__check_indices(ctx, op, index, x->shape[a])) return NULL;
    return tt__index_select(ctx, op, x, a, index);
}

TT_API tt_tensor *tt_embedding(tt_ctx *ctx, tt_tensor *weight, tt_tensor *indices) {
    const char *op = "tt_embedding";
    int64_t shape[TT_MAX_DIMS];
    int d;
    tt_tensor *rows;
    if (!ctx || !weight || !indices) return NULL;
    if (weight->ndim != 2)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: weight has shape %S, expected [V,D]", op, weight);
    if (indices->ndim >= TT_MAX_DIMS)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: indices %S have too many axes", op, indices);
    if (!tt__check_indices(ctx, op, indices, weight->shape[0])) return NULL;
    rows = tt__index_select(ctx, op, weight, 0, indices);   /* [n, D], contiguous */
    if (!rows) return NULL;
    for (d = 0; d < indices->ndim; d++) shape[d] = indices->shape[d];
    shape[indices->ndim] = weight->shape[1];
    rows->ndim = indices->ndim + 1;                       /* reshape its header in place */
    for (d = 0; d < rows->ndim; d++) rows->shape[d] = shape[d];
    tt__set_contiguous_strides(rows);
    tt__update_numel(rows);
    return rows;
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

TT_API tt_tensor *tt_repeat_interleave(tt_ctx *ctx, tt_tensor *x, int64_t repeats, int axis) {
    const char *op = "tt_repeat_interleave";
    int64_t oshape[TT_MAX_DIMS];
    int a, d;
    tt_tensor *out, *xc;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    a = tt__axis(axis, x->ndim);
    if (a < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range for shape %S", op, axis, x);
    if (repeats < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: repeats is %D, expected >= 0", op, repeats);
    for (d = 0; d < x->ndim; d++) oshape[d] = x->shape[d];
    oshape[a] = tt__mul_checked(x->shape[a], repeats);
    if (oshape[a] < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: the result is too large", op);
    out = tt__new(ctx, op, x->dtype, x->ndim, oshape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    xc = tt_contiguous(ctx, x);
    if (xc) tt__repeat_into(out, xc, a, repeats, true);
    tt_scope_end(ctx, scope);
    return xc ? out : NULL;
}

TT_API tt_tensor *tt_flip(tt_ctx *ctx, tt_tensor *x, const int *axes, int n) {
    const char *op = "tt_flip";
    int64_t stride[TT_MAX_DIMS], offset;
    bool flip[TT_MAX_DIMS];
    int i, d;
    tt_tensor *out;
    if (!ctx || !x) return NULL;
    if (n < 0 || n > x->ndim || (n > 0 && !axes))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: %d axes for shape %S", op, n, x);
    for (d = 0; d < TT_MAX_DIMS; d++) flip[d] = false;
    for (i = 0; i < n; i++) {
        int a = tt__axis(axes[i], x->ndim);
        if (a < 0 || flip[a])
            return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: axis %d is out of range or repeated for shape %S",
                                         op, axes[i], x);
        flip[a] = true;
    }
    out = tt__new(ctx, op, x->dtype, x->ndim, x->shape);
    if (!out) return NULL;
    offset = x->offset;
    for (d = 0; d < x->ndim; d++) {                    /* walk flipped axes backwards: negative stride */
        stride[d] = flip[d] ? -x->stride[d] : x->stride[d];
        if (flip[d] && x->shape[d] > 0) offset += (x->shape[d] - 1) * x->stride[d];
    }
    tt__copy_view(out, x, x->ndim, x->shape, stride, offset);
    return out;
}

TT_API tt_tensor *tt_tile(tt_ctx *ctx, tt_tensor *x, const int64_t *reps, int n) {
    const char *op = "tt_tile";
    int64_t shape[TT_MAX_DIMS], r[TT_MAX_DIMS], total = 1;
    int D, d, last = -1;
    tt_tensor *out, *cur;
    tt_scope scope;
    if (!ctx || !x) return NULL;
    if (n < 0 || n > TT_MAX_DIMS || (n > 0 && !reps))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: %d reps, expected 0..%d", op, n, TT_MAX_DIMS);
    D = n > x->ndim ? n : x->ndim;                     /* x and reps are aligned at the last axis */
    for (d = 0; d < D; d++) {
        int xd = d - (D - x->ndim), rd = d - (D - n);
        r[d] = rd >= 0 ? reps[rd] : 1;
        if (r[d] < 0) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: reps[%d] is %D, expected >= 0", op, rd, r[d]);
        shape[d] = tt__mul_checked(xd >= 0 ? x->shape[xd] : 1, r[d]);
        total = shape[d] < 0 ? -1 : tt__mul_checked(total, shape[d]);
        if (total < 0 || total > (INT64_MAX >> 4)) return (tt_tensor *)tt__fail(ctx, TT_ERR_ARG, "%s: the result is too large", op);
        if (r[d] != 1) last = d;
    }
    out = tt__new(ctx, op, x->dtype, D, shape);
    if (!out) return NULL;
    scope = tt_scope_begin(ctx);
    cur = tt__copy_as(ctx, op, x, x->dtype);            /* contiguous, viewed with D axes */
    if (cur) {
        cur->ndim = D;
        for (d = 0; d < D; d++) cur->shape[d] = d < D - x->ndim ? 1 : x->shape[d - (D - x->ndim)];
        tt__set_contiguous_strides(cur);
    }
    for (d = 0; cur && d < D; d++) {                   /* repeat one axis at a time */
        tt_tensor *next;
        int64_t ns[TT_MAX_DIMS];
        int k;
        if (r[d] == 1) continue;
        for (k = 0; k < D; k++) ns[k] = k <= d ? shape[k] : cur->shape[k];
        next = d == last ? out : tt__new(ctx, op, x->dtype, D, ns);
        if (next) tt__repeat_into(next, cur, d, r[d], false);
        cur = next;
    }
    if (cur && last < 0) tt__copy_into(out, cur);
    tt_scope_end(ctx, scope);
    return cur ? out : NULL;
}

TT_API tt_tensor *tt_shape_as_tensor(tt_ctx *ctx, tt_tensor *x) {
    int64_t n;
    int d;
    tt_tensor *t;
    if (!ctx || !x) return NULL;
    n = x->ndim;
    t = tt__new(ctx, "tt_shape_as_tensor", TT_I32, 1, &n);
    if (!t) return NULL;
    for (d = 0; d < x->ndim; d++) {
        if (x->shape[d] > INT32_MAX)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_UNSUPPORTED, "tt_shape_as_tensor: size %D of %S does not fit i32", x->shape[d], x);
        ((int32_t *)t->data)[d] = (int32_t)x->shape[d];
    }
    return t;
}

/* ==========================================================================
 * >>attention   scaled dot-product attention
 *
 * Written with the ops above: scores = q·kᵀ·scale, masked (where / add), softmax over
 * the last axis, times v. The full [L,S] score matrix is materialized per batch entry;
 * the intermediates live in a scope and only the result is kept.
 * ========================================================================== */
TT_API tt_tensor *tt_scaled_dot_product_attention(tt_ctx *ctx, tt_tensor *q, tt_tensor *k, tt_tensor *v,
                                                  tt_tensor *mask, bool causal, float scale) {
    const char *op = "tt_scaled_dot_product_attention";
    int64_t bs[TT_MAX_DIMS], shape[TT_MAX_DIMS], L, S, E;
    int nb, d;
    tt_tensor *out, *s, *neg_inf, *p, *y;
    tt_scope scope;
    if (!ctx || !q || !k || !v) return NULL;
    if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: q %S, k %S, v %S: expected at least 2 axes each", op, q, k, v);
    L = q->shape[q->ndim - 2]; E = q->shape[q->ndim - 1]; S = k->shape[k->ndim - 2];
    if (k->shape[k->ndim - 1] != E)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: q %S and k %S differ in the last axis", op, q, k);
    if (v->shape[v->ndim - 2] != S)
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: k %S and v %S differ in sequence length (axis -2)", op, k, v);
    if (!tt__broadcast_shape(q->ndim - 2, q->shape, k->ndim - 2, k->shape, &nb, bs) ||
        !tt__broadcast_shape(nb, bs, v->ndim - 2, v->shape, &nb, bs))
        return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: batch axes of q %S, k %S, v %S do not broadcast", op, q, k, v);
    if (mask) {
        int mn;
        int64_t ms[TT_MAX_DIMS + 2];
        for (d = 0; d < nb; d++) shape[d] = bs[d];
        shape[nb] = L; shape[nb + 1] = S;
        if (mask->dtype == TT_I32)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_DTYPE, "%s: mask has dtype i32, expected bool or a float type", op);
        if (!tt__broadcast_shape(mask->ndim, mask->shape, nb + 2, shape, &mn, ms) || mn != nb + 2)
            return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: mask %S does not broadcast to the scores [...,%D,%D]",
                                         op, mask, L, S);
        for (d = 0; d < mn; d++)
            if (ms[d] != shape[d])
                return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: mask %S does not broadcast to the scores [...,%D,%D]",
                                             op, mask, L, S);
    }
    if (nb + 2 > TT_MAX_DIMS) return (tt_tensor *)tt__fail(ctx, TT_ERR_SHAPE, "%s: too many batch axes", op);
    for (d = 0; d < nb; d++) shape[d] = bs[d];
    shape[nb] = L; shape[nb + 1] = v->shape[v->ndim - 1];
    out = tt__new(ctx, op, TT_F32, nb + 2, shape);
    if (!out) return NULL;
    if (!(scale > 0)) scale = 1.0f / sqrtf((float)(E > 0 ? E : 1));
    scope = tt_scope_begin(ctx);
    s = tt_mul_scalar(ctx, tt_matmul(ctx, q, tt__transpose(ctx, op, k, -1, -2)), scale);
    neg_inf = tt__full(ctx, op, TT_F32, 0, NULL, -INFINITY);
    if (causal && s) {                                 /* row i may attend columns j <= i */
        int64_t cs[2], i, j;
        tt_tensor *cm;
        cs[0] = L; cs[1] = S;
        cm = tt__new(ctx, op, TT_BOOL, 2, cs);
        if (cm) for (i = 0; i < L; i++) for (j = 0; j < S; j++) ((uint8_t *)cm->data)[i * S + j] = (uint8_t)(j <= i);
        s = tt_where(ctx, cm, s, neg_inf);
    }
    if (mask) s = mask->dtype == TT_BOOL ? tt_where(ctx, mask, s, neg_inf) : tt_add(ctx, s, mask);
    p = tt_softmax(ctx, s, -1);
    y = tt_matmul(ctx, p, v);
    if (y) tt__copy_into(out, y);
    tt_scope_end(ctx, scope);
    return y ? out : NULL;
}

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
