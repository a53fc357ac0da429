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
     >>reduce       sum/mean/max/min/prod/arg*/var/std, softmax, norms
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
#define TT_API static
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
