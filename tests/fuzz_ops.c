/* fuzz_ops.c - a differential fuzzer for tinytrace: eager against traced + compiled.

   A byte string decodes into a small tensor program: 1-3 f32 inputs (0-4 axes, sizes 1-9,
   sometimes 0, 16, 17, 33, 37 or 130), 1-12 ops drawn from one table (fz_ops, below: every
   elementwise op, views, reductions, norms, matmul/linear, convolutions, pooling, resizing,
   attention, shape and index ops, and builders that stress the compiler: long elementwise
   chains, repeated calls, constant-only expressions, ops that change nothing), 1-3 of the
   values as outputs, a set of passes, a compile mode and a thread count. Then:

     1. the program runs eagerly on a reference context (1 thread, never traced): the
        reference values; its parameters are made then, in a separate weights context;
     2. it runs again while tracing, on a context with 1, 2, 3 or 7 threads: those eager
        values must equal the reference bit for bit (results do not depend on threads);
     3. the graph is compiled and run on the traced inputs and on fresh ones (sometimes
        strided views; in REDUCE_OVERHEAD mode bound once, then rewritten in place), and
        sometimes recompiled with other settings (and back), run through tt_compiled_run,
        checked with tt_graph_check, printed, and called wrongly (missing input, wrong
        shape or dtype: the documented status, and the graph still runs). Every output
        must equal the reference program run eagerly on the same values (on contiguous
        copies: a strided input is copied into the graph's arena).
   Shapes are checked against a broadcast computed here for the ops that broadcast, and
   every context has guard regions, checked at the end (ASan cannot see inside arenas).

   Equality is bitwise, NaN equal to any NaN, with the README's exceptions and one more:
     - TT_PASS_SIMPLIFY drops x+0, so a graph may keep -0.0 where eager gives +0.0: zeros
       compare equal whatever their sign when SIMPLIFY is on (the generator never adds a
       zero constant, so the sign cannot travel on, through 1/x say);
     - TT_PASS_FOLD_BN folds batch norm into the conv/linear before it: when it is on and
       the program has a batch norm, outputs are compared within a tolerance (bool and i32
       outputs not at all); a difference beyond it counts only when tt_graph_check names
       a layer as the first value off by more than float rounding (not an op downstream
       that amplified a last-bit difference, like cos of a large value);
     - a strided (transposed) parameter feeding a GEMM, once the graph was compiled with
       TT_PASS_FREEZE: the frozen copy is contiguous and the GEMM may sum in another order
       (later compiles keep reading the copy). Same tolerance. Not in the README.
   Programs where a tolerance applies get no huge input or scalar values.
   About one program in ten has an op given an invalid argument (an axis out of range,
   shapes that do not fit, ...): eager must fail with an error message, the traced run
   must fail at the same op, tt_trace_end must give no graph. An invalid argument that
   succeeds is reported too.

   fz_ops_one(data, size) returns 0 when everything agreed and 1 on a mismatch, after
   printing the program (one line per op with its arguments and result shape), the passes,
   the stage and the first differing element, and the compiled graph. FZ_VERBOSE=1 in the
   environment prints each op as it is built (to place a crash). Built with -DTT_LIBFUZZER
   the file also defines LLVMFuzzerTestOneInput, which aborts on a mismatch:

     clang -std=c11 -O1 -g -DTT_LIBFUZZER -fsanitize=fuzzer,address,undefined \
           -fno-sanitize-recover=all tests/fuzz_ops.c -o fuzz_ops -lm -lpthread
     ./fuzz_ops -max_len=512 corpus/          (./fuzz_ops crash-file to replay one)

   tests/test_fuzz_ops.c runs a fixed-seed slice of it as part of the test suite. */
#ifdef TT_LIBFUZZER
#define TINYTRACE_IMPLEMENTATION
#endif
#include "../tinytrace.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Library bugs this fuzzer found (all fixed in 0.4.0; regression tests in test_harden.c).
   Each switch, set to 1 (-DFZ_AVOID_...=1), makes the fuzzer step around its bug again,
   for looking past it should it come back; by default the fuzzer exercises those cases.

   CHECK_DEAD_INPUT: tt_graph_check runs the whole tape, dead nodes included, on input
   headers that tt_graph_bind only fills for inputs the compiled graph reads: an input read
   only by code DCE removed has data NULL (SIGSEGV). Then tt_graph_check is not called. */
#ifndef FZ_AVOID_CHECK_DEAD_INPUT
#define FZ_AVOID_CHECK_DEAD_INPUT 0
#endif
/* WHERE_RANK: tt_where broadcasts b into the shape of (cond, a) in place, so when b has
   more axes than both, the result's shape is wrong ([2],[2],[3,1] gives [3,3]) and the
   kernel reads past cond and a. The fuzzer then passes the operand with most axes as a. */
#ifndef FZ_AVOID_WHERE_RANK
#define FZ_AVOID_WHERE_RANK 0
#endif
/* SDPA_RANK: tt_scaled_dot_product_attention broadcasts v's batch axes into those of
   (q, k) in place, the same bug: v with more batch axes than q and k gives a wrong shape
   (q [3,4,8], k [3,5,8], v [2,1,5,6] gives [2,2,4,6]). The fuzzer then gives v 2 axes. */
#ifndef FZ_AVOID_SDPA_RANK
#define FZ_AVOID_SDPA_RANK 0
#endif
/* EPILOGUE_NON_F32: with EPILOGUE, a GEMM or convolution followed by an elementwise group
   (two ops or more) whose stored results are all non-f32 (a cast to f16, a comparison) is
   taken out of the schedule as the group's head, but the fused node is then built without
   it: nothing computes its result, and the group reads a buffer never written. The fuzzer
   drops EPILOGUE from programs that have a GEMM/convolution and may make such a value. */
#ifndef FZ_AVOID_EPILOGUE_NON_F32
#define FZ_AVOID_EPILOGUE_NON_F32 0
#endif

/* The one call whose signature is changing: keep every use behind this line. */
#define FZ_TRACE_INPUT(ctx, t, name) tt_trace_input((ctx), (t), (name))

#define FZ_MAX_INPUTS  3
#define FZ_MAX_OPS     12
#define FZ_MAX_VALUES  (FZ_MAX_INPUTS + FZ_MAX_OPS)
#define FZ_MAX_OUTPUTS 3
#define FZ_NARG        8        /* decoded bytes per op, read by its builder */
#define FZ_NPARAM      6        /* parameters per op (conv + batch norm needs 6) */
#define FZ_IN_NUMEL    2048     /* inputs are cut down to this many elements */
#define FZ_GROW_NUMEL  12288    /* a program stops once a value is larger (keeps runs short) */
#define FZ_DESC        200

/* ---- decoding: a bounded reader that gives 0 once the bytes run out ------------------ */
typedef struct fz_reader { const uint8_t *p; size_t n, at; } fz_reader;

static unsigned fz_byte(fz_reader *r) { return r->at < r->n ? r->p[r->at++] : 0u; }
static unsigned fz_pick(fz_reader *r, unsigned n) { return fz_byte(r) % n; }

/* ---- the program ------------------------------------------------------------------------ */
typedef struct fz_op {
    int     kind;                 /* row of fz_ops */
    unsigned src;                 /* which value it starts from (resolved when it runs) */
    uint8_t arg[FZ_NARG];         /* raw choices that the builder reads against the shapes */
} fz_op;

typedef struct fz_prog {
    int        n_inputs, in_ndim[FZ_MAX_INPUTS];
    int64_t    in_shape[FZ_MAX_INPUTS][4];
    uint32_t   seed;              /* input data and parameters */
    bool       specials;          /* zeros of both signs, infinities, NaN, huge and tiny inputs */
    bool       tame;              /* compared within a tolerance: no huge values (see fz_decode) */
    int        n_ops;
    fz_op      ops[FZ_MAX_OPS];
    int        bad_op;            /* the op asked to be invalid (-1: none); moves to the next
                                     op that can be invalid during the first run */
    unsigned   out_pick[FZ_MAX_OUTPUTS];
    int        n_outputs, outputs[FZ_MAX_OUTPUTS];   /* value ids, set by the first run */
    unsigned   passes, passes2;   /* passes2: recompile with these (0: no recompile) */
    tt_mode    mode, mode2;
    int        n_threads;
    bool       poison, fresh_strided, traced_strided, check, misuse, print, compiled_api, third_compile;
    /* filled by the first (reference) run */
    tt_tensor *param[FZ_MAX_OPS][FZ_NPARAM];
    char       desc[FZ_MAX_OPS][FZ_DESC];
    int        n_done;            /* ops that ran (the program may stop early, see FZ_GROW_NUMEL) */
    int        failed_op;         /* the op that failed in the reference run, or -1 */
    int        bad_accepted;      /* an op given an invalid argument that succeeded, or -1 */
    int        shape_wrong;       /* an op whose result shape is not the broadcast one, or -1 */
    char       shape_msg[160];
    bool       has_bn;            /* a batch norm: FOLD_BN may change the arithmetic */
    bool       strided_gemm;      /* a strided parameter feeds a GEMM: FREEZE may reorder sums */
    bool       has_gemm, has_non_f32;   /* for FZ_AVOID_EPILOGUE_NON_F32 */
    unsigned   live_inputs;       /* the inputs that the outputs read */
    unsigned   dep[FZ_MAX_VALUES];
    int        src[FZ_MAX_OPS];   /* the value each op started from */
} fz_prog;

/* What a builder sees: where to compute, the values so far, the op's bytes. */
typedef struct fz_env {
    tt_ctx      *ctx;             /* runs the program (traced or not) */
    tt_ctx      *wc;              /* the weights context: parameters only */
    fz_prog     *prog;
    tt_tensor   *val[FZ_MAX_VALUES];
    unsigned     dep[FZ_MAX_VALUES];   /* the inputs each value reads (bit i: input i) */
    int          n_val;
    unsigned     op_dep;               /* inputs read by the op being built */
    int          n_other;              /* fz_other calls so far in this op: each its own parameter */
    const fz_op *op;
    int          op_index;
    bool         first;           /* the reference run: describes ops, makes parameters */
    bool         bad, bad_used;   /* this op is asked to be invalid; the builder made it so */
    size_t       desc_len;
} fz_env;

struct fz_op_info;
typedef tt_tensor *(*fz_build_fn)(fz_env *e, const struct fz_op_info *info, tt_tensor *x);
typedef tt_tensor *(*fz_unary_fn)(tt_ctx *, tt_tensor *);
typedef tt_tensor *(*fz_binary_fn)(tt_ctx *, tt_tensor *, tt_tensor *);
typedef tt_tensor *(*fz_scalar_fn)(tt_ctx *, tt_tensor *, float);
typedef tt_tensor *(*fz_reduce_fn)(tt_ctx *, tt_tensor *, const int *, int, bool);
typedef tt_tensor *(*fz_axis_fn)(tt_ctx *, tt_tensor *, int);

/* One row of the op table: a name for the printout, how many operands it takes (2: the
   value it starts from and a second one y the builder picks: an earlier value, a
   parameter, a constant), the builder, and the library function the builder calls when
   one builder serves several ops. */
typedef struct fz_op_info {
    const char  *name;
    int          arity;
    fz_build_fn  build;
    fz_unary_fn  unary;
    fz_binary_fn binary;
    fz_scalar_fn scalar;
    fz_reduce_fn reduce;
    fz_axis_fn   axisf;
} fz_op_info;

/* Counts for the slice test's summary line (what the generator reached). */
typedef struct fz_stats {
    long programs, valid, invalid, ops, graphs_run, compares, approx, intended_bad_accepted;
    long fused_graphs, max_fused_ops, amplified, epilogue_dropped, reloaded;
} fz_stats;
static fz_stats fz_stat;

/* FZ_VERBOSE=1 in the environment: print each op as the reference run builds it (to see
   which op a crash or sanitizer report comes from; a mismatch prints the program anyway). */
static int fz_verbose = -1;

/* ---- small helpers --------------------------------------------------------------------- */
static unsigned fz_u(const fz_env *e, int k) { return e->op->arg[k % FZ_NARG]; }

/* Appends to the op's description (first run only: later runs make the same calls). */
static void fz_note(fz_env *e, const char *fmt, ...) {
    va_list ap;
    char *d;
    if (!e->first || e->desc_len >= FZ_DESC - 1) return;
    d = e->prog->desc[e->op_index];
    va_start(ap, fmt);
    vsnprintf(d + e->desc_len, FZ_DESC - e->desc_len, fmt, ap);
    va_end(ap);
    e->desc_len = strlen(d);
}

/* This op may be made invalid here: true once, and then it is. */
static bool fz_take_bad(fz_env *e) {
    if (!e->bad || e->bad_used) return false;
    e->bad_used = true;
    fz_note(e, "[invalid] ");
    return true;
}

static int64_t fz_numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    int d;
    for (d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

static void fz_shape_str(const tt_tensor *t, char *buf, size_t size) {
    if (!t) { snprintf(buf, size, "(null)"); return; }
    tt_shape_str(t, buf, size);
}

static bool fz_tame;              /* the running program is compared within a tolerance */

/* Floats for op parameters, zeros of both signs only when allow_zero (never for an addend:
   SIMPLIFY's -0.0 exception would leak through 1/x into an infinity of the other sign). */
static float fz_float(unsigned b, bool allow_zero) {
    static const float table[16] = {0.5f, -1.5f, 2.0f, 3.0f, -0.25f, 1.0f, 1e-3f, 7.5f,
                                    -4.0f, 0.1f, 10.0f, -1.0f, 0.0f, -0.0f, 1e30f, 33.0f};
    unsigned i = b % 16;
    if (!allow_zero && (i == 12 || i == 13)) i = 5;
    if (fz_tame && i == 14) i = 0;       /* cos(1e30 * x) would turn rounding into any value */
    return table[i];
}

/* True when a and b broadcast together; *numel gets the result's size. */
static bool fz_broadcasts(const tt_tensor *a, const tt_tensor *b, int64_t *numel) {
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim, d;
    int64_t n = 1;
    for (d = 0; d < nd; d++) {
        int64_t sa = d < a->ndim ? a->shape[a->ndim - 1 - d] : 1, sb = d < b->ndim ? b->shape[b->ndim - 1 - d] : 1;
        if (sa != sb && sa != 1 && sb != 1) return false;
        n *= sa == 1 ? sb : sa;
    }
    if (numel) *numel = n;
    return true;
}

/* The NumPy broadcast of n shapes (computed here, apart from the library): false when
   they do not broadcast. */
static bool fz_bcast(int n, const int *nds, const int64_t *const *shapes, int *nd, int64_t *out) {
    int k, d, m = 0;
    for (k = 0; k < n; k++) if (nds[k] > m) m = nds[k];
    for (d = 0; d < m; d++) {
        int64_t size = 1;
        for (k = 0; k < n; k++) {
            int kd = nds[k] - m + d;
            int64_t sk = kd >= 0 ? shapes[k][kd] : 1;
            if (sk != 1 && size != 1 && sk != size) return false;
            if (sk != 1) size = sk;
        }
        out[d] = size;
    }
    *nd = m;
    return true;
}

/* A shape oracle for the ops that broadcast: y must have (nd, shape). The differential
   test cannot see a shape that eager and the graph get wrong alike. */
static void fz_expect_shape(fz_env *e, const tt_tensor *y, int nd, const int64_t *shape) {
    int d;
    bool same;
    if (!y || !e->first || e->prog->shape_wrong >= 0) return;
    same = y->ndim == nd;
    for (d = 0; same && d < nd; d++) same = y->shape[d] == shape[d];
    if (!same) {
        char got[64];
        int at;
        fz_shape_str(y, got, sizeof got);
        at = snprintf(e->prog->shape_msg, sizeof e->prog->shape_msg, "result %s, expected [", got);
        for (d = 0; d < nd && at < 140; d++) at += snprintf(e->prog->shape_msg + at, sizeof e->prog->shape_msg - (size_t)at, "%s%lld", d ? "," : "", (long long)shape[d]);
        snprintf(e->prog->shape_msg + at, sizeof e->prog->shape_msg - (size_t)at, "]");
        e->prog->shape_wrong = e->op_index;
    }
}

/* Checks y against the broadcast of up to three operands. */
static tt_tensor *fz_check_bcast(fz_env *e, tt_tensor *y, const tt_tensor *a, const tt_tensor *b, const tt_tensor *c) {
    int nds[3], nd, n = c ? 3 : 2;
    const int64_t *shapes[3];
    int64_t out[TT_MAX_DIMS];
    if (!y || !a || !b) return y;
    nds[0] = a->ndim; nds[1] = b->ndim; nds[2] = c ? c->ndim : 0;
    shapes[0] = a->shape; shapes[1] = b->shape; shapes[2] = c ? c->shape : NULL;
    if (fz_bcast(n, nds, shapes, &nd, out)) fz_expect_shape(e, y, nd, out);
    return y;
}

/* ---- input data: our own xorshift, so strided copies and special values are easy ------- */
static uint32_t fz_rng_next(uint32_t *s) {
    uint32_t x = *s ? *s : 0x9E3779B9u;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    *s = x;
    return x;
}

static float fz_sample(uint32_t *s, bool specials) {
    static const float special[8] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f, -1e-40f, 88.75f};
    uint32_t r = fz_rng_next(s);
    if (specials && (r & 15u) == 0) return special[(r >> 4) & 7u];
    /* a sum of uniforms: roughly normal, most values in [-3, 3] */
    return ((float)(r >> 8 & 0xFFFu) + (float)(r >> 20) - 4095.0f) / 1365.0f;
}

static void fz_fill(float *v, int64_t n, uint32_t seed, bool specials) {
    uint32_t s = seed * 2654435761u + 1u;
    int64_t i;
    for (i = 0; i < n; i++) v[i] = fz_sample(&s, specials);
}

/* Address of element `lin` (row-major over t's shape) through t's strides. */
static unsigned char *fz_elem(const tt_tensor *t, int64_t lin) {
    int64_t off = t->offset;
    int d;
    for (d = t->ndim - 1; d >= 0; d--) {
        int64_t sz = t->shape[d] > 0 ? t->shape[d] : 1;
        off += (lin % sz) * t->stride[d];
        lin /= sz;
    }
    return (unsigned char *)t->data + off * (int64_t)tt_dtype_size(t->dtype);
}

/* Writes values (row-major) into an f32 tensor through its strides: fills strided views and
   rewrites bound inputs in place. */
static void fz_write(tt_tensor *t, const float *v) {
    int64_t i;
    for (i = 0; i < t->numel; i++) memcpy(fz_elem(t, i), &v[i], sizeof(float));
}

/* A new input of shape (nd, shape) in ctx with values v: contiguous, or (strided) a view
   that skips every other element of a base twice as long, or a transpose. */
static tt_tensor *fz_make_input(tt_ctx *ctx, int nd, const int64_t *shape, const float *v, unsigned strided) {
    int64_t bs[4];
    tt_tensor *base, *t;
    int d;
    if (nd == 0 || strided == 0) return tt_from_data(ctx, TT_F32, nd, shape, v);
    for (d = 0; d < nd; d++) bs[d] = shape[d];
    if (strided == 1 || nd < 2) {
        bs[nd - 1] = shape[nd - 1] * 2;
        base = tt_zeros(ctx, TT_F32, nd, bs);
        t = tt_slice(ctx, base, nd - 1, 0, bs[nd - 1], 2);
    } else {
        bs[nd - 1] = shape[nd - 2];
        bs[nd - 2] = shape[nd - 1];
        base = tt_zeros(ctx, TT_F32, nd, bs);
        t = tt_transpose(ctx, base, nd - 1, nd - 2);
    }
    if (t) fz_write(t, v);
    return t;
}

/* ---- operands: parameters, constants, shapes derived from the current value ----------- */

/* Parameter k of this op, made in the weights context on the first run and reused after
   (the runs agree on shapes). strided: the transpose of a contiguous tensor. kind 1 makes
   a variance (positive). */
static tt_tensor *fz_param(fz_env *e, int k, int nd, const int64_t *shape, bool strided, int kind) {
    fz_prog *p = e->prog;
    tt_tensor **slot = &p->param[e->op_index][k];
    uint64_t seed = (uint64_t)p->seed * 131u + (uint64_t)e->op_index * 7u + (uint64_t)k;
    if (!*slot) {
        int64_t s[TT_MAX_DIMS];
        tt_tensor *t;
        int d;
        strided = strided && nd >= 2;
        for (d = 0; d < nd; d++) s[d] = shape[d];
        if (strided) { s[nd - 1] = shape[nd - 2]; s[nd - 2] = shape[nd - 1]; }
        if (kind == 1) t = tt_add_scalar(e->wc, tt_rand(e->wc, seed, nd, s), 0.5f);
        else t = tt_mul_scalar(e->wc, tt_randn(e->wc, seed, nd, s), 0.5f);
        if (strided) t = tt_transpose(e->wc, t, nd - 1, nd - 2);
        *slot = t;
    }
    if (*slot) {
        char b[64];
        fz_shape_str(*slot, b, sizeof b);
        fz_note(e, "param%s%s ", b, strided && nd >= 2 ? "(transposed)" : "");
    }
    return *slot;
}

/* A constant made in the running context (so a constant of the graph while tracing):
   random values, or every element one nonzero float. */
static tt_tensor *fz_const(fz_env *e, int nd, const int64_t *shape, unsigned b) {
    char s[64];
    tt_tensor *t;
    if (b & 1u) t = tt_full(e->ctx, TT_F32, nd, shape, (double)fz_float(b >> 1, false));
    else t = tt_randn(e->ctx, (uint64_t)e->prog->seed + (uint64_t)e->op_index * 31u + b, nd, shape);
    fz_shape_str(t, s, sizeof s);
    fz_note(e, "const%s ", s);
    return t;
}

/* A shape that broadcasts with x: some axes 1, leading axes dropped, sometimes a new
   leading axis of 2. Made not to broadcast when the op is asked to be invalid. */
static int fz_derive_shape(fz_env *e, const tt_tensor *x, unsigned b, unsigned b2, int64_t *shape) {
    int nd = 0, d, drop = (b & 16u) ? (int)((b >> 5) % (unsigned)(x->ndim + 1)) : 0;
    if ((b & 8u) && x->ndim - drop < 4) shape[nd++] = 2;
    for (d = drop; d < x->ndim; d++) shape[nd++] = ((b2 >> (d % 8)) & 1u) ? 1 : x->shape[d];
    if (e->bad && !e->bad_used) {
        for (d = nd - 1; d >= 0; d--) {
            int xd = d - (nd - (x->ndim - drop)) + drop;
            if (xd >= drop && x->shape[xd] >= 2) { shape[d] = x->shape[xd] + 1; fz_take_bad(e); break; }
        }
    }
    return nd;
}

/* The second operand of a binary op: an earlier value that broadcasts with x, a parameter
   or a constant of a derived shape, a 0-d constant, or x itself. */
static tt_tensor *fz_other(fz_env *e, tt_tensor *x, int k) {
    unsigned b = fz_u(e, k), b2 = fz_u(e, k + 1), b3 = fz_u(e, k + 2);
    int64_t shape[TT_MAX_DIMS];
    int nd, i;
    unsigned c = b % 8;
    if (c <= 1) {                                      /* an earlier value, when one fits */
        for (i = e->n_val - 1 - (int)(b3 % 3); i >= 0; i--) {
            int64_t n;
            tt_tensor *v = e->val[i];
            if (v && fz_broadcasts(x, v, &n) && n <= FZ_GROW_NUMEL) { fz_note(e, "v%d ", i); e->op_dep |= e->dep[i]; return v; }
        }
        c = 2;
    }
    switch (c) {
    case 2: case 3:
        nd = fz_derive_shape(e, x, b2, b3, shape);
        return fz_param(e, FZ_NPARAM - 1 - (e->n_other++ % 3), nd, shape, c == 3, 0);
    case 4: case 5:
        nd = fz_derive_shape(e, x, b2, b3, shape);
        return fz_const(e, nd, shape, b3 >> 3);
    case 6:
        fz_note(e, "scalar ");
        return tt_scalar(e->ctx, fz_float(b2, false));
    default:
        fz_note(e, "self ");
        return x;
    }
}

/* An axis of x, negative half of the time; out of range when the op is to be invalid. */
static int fz_axis(fz_env *e, const tt_tensor *x, unsigned b) {
    int nd = x->ndim > 0 ? x->ndim : 1, a = (int)(b % (unsigned)nd);
    if (fz_take_bad(e)) return x->ndim + 1 + (int)(b % 3);
    return (b & 128u) ? a - nd : a;
}

/* x with at least n axes (size-1 axes in front), through recorded unsqueezes. */
static tt_tensor *fz_at_least(fz_env *e, tt_tensor *x, int n) {
    while (x && x->ndim < n) { x = tt_unsqueeze(e->ctx, x, 0); fz_note(e, "unsqueeze0 "); }
    return x;
}

/* x made contiguous (a recorded copy when it is not) when byte b asks, or always when the
   traced inputs are strided: the choice must not depend on x's layout, which differs
   between the reference run (contiguous inputs) and the traced one. Otherwise a reshape
   of a strided view may fail: a valid test of the error path, but only when both runs
   see the same layouts. */
static tt_tensor *fz_maybe_contiguous(fz_env *e, tt_tensor *x, unsigned b) {
    if (!x || (b == 0 && !e->prog->traced_strided)) return x;
    fz_note(e, "contiguous ");
    return tt_contiguous(e->ctx, x);
}

/* x as exactly n axes (n >= 2): leading axes merged (after a copy), or size-1 axes added
   in front. */
static tt_tensor *fz_exactly(fz_env *e, tt_tensor *x, int n) {
    if (!x) return NULL;
    if (x->ndim > n) {
        int64_t s[TT_MAX_DIMS];
        int d, lead = x->ndim - n + 1;
        x = fz_maybe_contiguous(e, x, 1);
        if (!x) return NULL;
        s[0] = fz_numel(lead, x->shape);
        for (d = 1; d < n; d++) s[d] = x->shape[lead + d - 1];
        x = tt_reshape(e->ctx, x, n, s);
        fz_note(e, "reshape ");
    }
    return fz_at_least(e, x, n);
}

/* ---- builders: elementwise -------------------------------------------------------------- */
static tt_tensor *fz_b_unary(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    return info->unary(e->ctx, x);
}

static tt_tensor *fz_b_sqrt_abs(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    return tt_sqrt(e->ctx, tt_abs(e->ctx, x));
}

static tt_tensor *fz_b_log_abs1(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    return tt_log(e->ctx, tt_add_scalar(e->ctx, tt_abs(e->ctx, x), 1.0f));
}

/* leaky_relu, elu, pow_scalar and the scalar forms of add/sub/mul/div. Addends are never
   zero (see fz_float); the exponents come from a small table that hits the special cases. */
static tt_tensor *fz_b_scalar(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    static const float exps[8] = {2.0f, 0.5f, 3.0f, -1.0f, 1.5f, 0.0f, 1.0f, -2.0f};
    bool is_pow = info->scalar == tt_pow_scalar, is_add = info->scalar == tt_add_scalar;
    float s = is_pow ? exps[fz_u(e, 0) % 8] : fz_float(fz_u(e, 0), !is_add);
    fz_note(e, "%g ", (double)s);
    return info->scalar(e->ctx, x, s);
}

static tt_tensor *fz_b_clamp(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    float lo = fz_float(fz_u(e, 0), true), hi = fz_float(fz_u(e, 1), true);
    (void)info;
    if ((fz_u(e, 2) & 3u) != 0 && lo > hi) { float t = lo; lo = hi; hi = t; }   /* lo > hi sometimes */
    fz_note(e, "[%g, %g] ", (double)lo, (double)hi);
    return tt_clamp(e->ctx, x, lo, hi);
}

/* Binary ops and comparisons, the operands in either order. */
static tt_tensor *fz_b_binary(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_tensor *y = fz_other(e, x, 1);
    if (fz_u(e, 0) & 1u) { fz_note(e, "(swapped) "); return fz_check_bcast(e, info->binary(e->ctx, y, x), y, x, NULL); }
    return fz_check_bcast(e, info->binary(e->ctx, x, y), x, y, NULL);
}

/* where(cond, a, b): the condition is x when x is a mask, else a comparison of x. */
static tt_tensor *fz_b_where(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_tensor *cond = x, *a, *b;
    (void)info;
    if (x->dtype != TT_BOOL) { cond = tt_gt(e->ctx, x, fz_other(e, x, 1)); fz_note(e, "gt "); }
    a = (fz_u(e, 0) & 1u) || x->dtype == TT_BOOL ? fz_other(e, x, 4) : x;
    b = fz_other(e, x, 5);
    if (FZ_AVOID_WHERE_RANK && cond && a && b && b->ndim > a->ndim && b->ndim > cond->ndim) {
        tt_tensor *t = a;
        a = b; b = t;
        cond = tt_logical_not(e->ctx, cond);
        fz_note(e, "(not, swapped) ");
    }
    return fz_check_bcast(e, tt_where(e->ctx, cond, a, b), cond, a, b);
}

/* Casts: f16 and bf16 round trips, to i32 and bool and back, or left in that dtype. */
static tt_tensor *fz_b_cast(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    static const tt_dtype to[8] = {TT_F16, TT_BF16, TT_I32, TT_BOOL, TT_F32, TT_F16, TT_BF16, TT_I32};
    unsigned c = fz_u(e, 0) % 8;
    tt_tensor *y = tt_cast(e->ctx, x, to[c]);
    (void)info;
    fz_note(e, "%s%s ", tt_dtype_name(to[c]), c < 4 ? " and back" : "");
    return c < 4 ? tt_cast(e->ctx, y, x->dtype == to[c] ? TT_F32 : x->dtype) : y;
}

/* ---- builders: views -------------------------------------------------------------------- */
static tt_tensor *fz_b_reshape(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t s[TT_MAX_DIMS];
    int nd = 0, d;
    unsigned c = fz_u(e, 0) % 4;
    (void)info;
    /* a strided x may not reshape (an error, fine), so usually copy first */
    x = fz_maybe_contiguous(e, x, fz_u(e, 1) & 7u);
    if (!x) return NULL;
    if (c == 0 || x->ndim == 0) { s[nd++] = -1; }                              /* flat */
    else if (c == 1 && x->shape[x->ndim - 1] % 2 == 0 && x->ndim < TT_MAX_DIMS) { /* split the last axis */
        for (d = 0; d < x->ndim - 1; d++) s[nd++] = x->shape[d];
        s[nd++] = 2; s[nd++] = x->shape[x->ndim - 1] / 2;
    } else if (c == 2 && x->ndim >= 2) {                                       /* merge the first two */
        s[nd++] = x->shape[0] * x->shape[1];
        for (d = 2; d < x->ndim; d++) s[nd++] = x->shape[d];
    } else {                                                                   /* [first, -1] */
        s[nd++] = x->shape[0]; s[nd++] = -1;
        if (x->shape[0] == 0) s[1] = 0;
    }
    if (fz_take_bad(e)) { nd = 1; s[0] = x->numel + 1; }           /* the wrong element count */
    fz_note(e, "to %d axes ", nd);
    return tt_reshape(e->ctx, x, nd, s);
}

static tt_tensor *fz_b_permute(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int perm[TT_MAX_DIMS], d;
    (void)info;
    for (d = 0; d < x->ndim; d++) perm[d] = d;
    for (d = x->ndim - 1; d > 0; d--) {                  /* Fisher-Yates from the op's bytes */
        int j = (int)(fz_u(e, d) % (unsigned)(d + 1)), t = perm[d];
        perm[d] = perm[j]; perm[j] = t;
    }
    if (x->ndim >= 2 && fz_take_bad(e)) perm[0] = perm[1];   /* a repeated axis */
    return tt_permute(e->ctx, x, perm);
}

static tt_tensor *fz_b_transpose(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    x = fz_at_least(e, x, 1);
    return x ? tt_transpose(e->ctx, x, fz_axis(e, x, fz_u(e, 0)), fz_axis(e, x, fz_u(e, 1))) : NULL;
}

static tt_tensor *fz_b_slice(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int a;
    int64_t n, start, stop, step = 1 + fz_u(e, 3) % 3;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    a = fz_axis(e, x, fz_u(e, 0));
    n = x->shape[a >= 0 && a < x->ndim ? a : (a < 0 && a >= -x->ndim ? a + x->ndim : 0)];
    start = (int64_t)(fz_u(e, 1) % (unsigned)(n + 2)) - (fz_u(e, 1) & 128u ? n + 1 : 0);
    stop = (fz_u(e, 2) & 3u) == 0 ? n + 5 : (int64_t)(fz_u(e, 2) % (unsigned)(n + 2)) - (fz_u(e, 2) & 128u ? n : 0);
    if (fz_take_bad(e)) step = 0;
    fz_note(e, "axis %d [%lld:%lld:%lld] ", a, (long long)start, (long long)stop, (long long)step);
    return tt_slice(e->ctx, x, a, start, stop, step);
}

static tt_tensor *fz_b_expand(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t s[TT_MAX_DIMS];
    int nd = 0, d;
    (void)info;
    if ((fz_u(e, 0) & 1u) && x->ndim < 4) s[nd++] = 1 + fz_u(e, 1) % 3;      /* a new leading axis */
    for (d = 0; d < x->ndim; d++)
        s[nd++] = x->shape[d] == 1 ? (int64_t)(1 + fz_u(e, 2 + d) % 3) : ((fz_u(e, 2 + d) & 1u) ? -1 : x->shape[d]);
    if (e->bad && !e->bad_used) {                      /* a size that is not 1 changed, or -2 */
        for (d = x->ndim - 1; d >= 0 && x->shape[d] == 1; d--) {}
        if (d >= 0 && fz_take_bad(e)) s[d + nd - x->ndim] = x->shape[d] + 1;
        else if (nd > 0 && fz_take_bad(e)) s[0] = -2;
    }
    return tt_expand(e->ctx, x, nd, s);
}

static tt_tensor *fz_b_squeeze(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    x = fz_at_least(e, x, 1);
    return x ? tt_squeeze(e->ctx, x, fz_axis(e, x, fz_u(e, 0))) : NULL;
}

static tt_tensor *fz_b_unsqueeze(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int a = (int)(fz_u(e, 0) % (unsigned)(x->ndim + 1));
    (void)info;
    if (fz_u(e, 0) & 128u) a -= x->ndim + 1;
    if (fz_take_bad(e)) a = x->ndim + 2;
    return tt_unsqueeze(e->ctx, x, a);
}

static tt_tensor *fz_b_flatten(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int a, b;
    (void)info;
    x = fz_at_least(e, x, 1);
    x = fz_maybe_contiguous(e, x, fz_u(e, 2) & 3u);
    if (!x) return NULL;
    a = (int)(fz_u(e, 0) % (unsigned)x->ndim);
    b = a + (int)(fz_u(e, 1) % (unsigned)(x->ndim - a));
    if (fz_take_bad(e)) { int t = a; a = b + 1; b = t; }
    return tt_flatten(e->ctx, x, a, b);
}

static tt_tensor *fz_b_copy(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    if (fz_u(e, 0) & 1u) { fz_note(e, "clone "); return tt_clone(e->ctx, x); }
    fz_note(e, "contiguous ");
    return tt_contiguous(e->ctx, x);
}

/* One piece of tt_split or tt_chunk (views of x). */
static tt_tensor *fz_b_split(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_tensor *pieces[8];
    int a, n, k;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    a = fz_axis(e, x, fz_u(e, 0));
    k = 1 + (int)(fz_u(e, 1) % 4);
    if (fz_u(e, 2) & 1u) { fz_note(e, "chunk %d ", k); n = tt_chunk(e->ctx, x, k, a, pieces, 8); }
    else { fz_note(e, "split %d ", k); n = tt_split(e->ctx, x, k, a, pieces, 8); }
    if (n < 1) return NULL;
    n = n < 8 ? n : 8;
    k = (int)(fz_u(e, 3) % (unsigned)n);
    fz_note(e, "piece %d ", k);
    return pieces[k];
}

/* ---- builders: reductions and normalization ------------------------------------------ */

/* Up to two distinct axes (n = 0: every axis); a repeated axis when invalid. */
static int fz_axes(fz_env *e, const tt_tensor *x, int *axes) {
    int n = x->ndim == 0 ? 0 : (int)(fz_u(e, 0) % 3);
    if (n > x->ndim) n = x->ndim;
    if (n >= 1) axes[0] = fz_axis(e, x, fz_u(e, 1));
    if (n == 2) {
        int a0 = axes[0] < 0 ? axes[0] + x->ndim : axes[0];
        axes[1] = (a0 + 1 + (int)(fz_u(e, 2) % (unsigned)(x->ndim - 1 > 0 ? x->ndim - 1 : 1))) % x->ndim;
        if (x->ndim >= 2 && fz_take_bad(e)) axes[1] = a0;
    }
    fz_note(e, "%d axes ", n);
    return n;
}

static tt_tensor *fz_b_reduce(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int axes[2], n = fz_axes(e, x, axes);
    bool keep = (fz_u(e, 3) & 1u) != 0;
    return info->reduce(e->ctx, x, n ? axes : NULL, n, keep);
}

static tt_tensor *fz_b_var(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int axes[2], n = fz_axes(e, x, axes), corr = (int)(fz_u(e, 4) % 3);
    bool keep = (fz_u(e, 3) & 1u) != 0, is_std = (fz_u(e, 5) & 1u) != 0;
    (void)info;
    fz_note(e, "%s correction %d ", is_std ? "std" : "var", corr);
    return is_std ? tt_std(e->ctx, x, n ? axes : NULL, n, corr, keep) : tt_var(e->ctx, x, n ? axes : NULL, n, corr, keep);
}

static tt_tensor *fz_b_argmax(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    bool keep = (fz_u(e, 1) & 1u) != 0, is_min = (fz_u(e, 2) & 1u) != 0;
    int a;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    a = fz_axis(e, x, fz_u(e, 0));
    fz_note(e, "%s ", is_min ? "argmin" : "argmax");
    return is_min ? tt_argmin(e->ctx, x, a, keep) : tt_argmax(e->ctx, x, a, keep);
}

static tt_tensor *fz_b_axis_op(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    x = fz_at_least(e, x, 1);
    return x ? info->axisf(e->ctx, x, fz_axis(e, x, fz_u(e, 0))) : NULL;
}

static float fz_eps(unsigned b) {
    static const float eps[4] = {1e-5f, 1e-3f, 0.1f, 0.0f};
    return eps[b % 4];
}

/* layer_norm or rms_norm over the last 1-3 axes, weight and bias parameters or NULL. */
static tt_tensor *fz_b_row_norm(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int n, nd;
    tt_tensor *w = NULL, *b = NULL;
    bool rms = (fz_u(e, 1) & 1u) != 0;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    n = 1 + (int)(fz_u(e, 0) % (unsigned)(x->ndim < 3 ? x->ndim : 3));
    nd = fz_take_bad(e) ? x->ndim + 1 : n;
    fz_note(e, "%s over %d axes ", rms ? "rms_norm" : "layer_norm", nd);
    if (fz_u(e, 2) & 1u) w = fz_param(e, 0, n, x->shape + x->ndim - n, false, 0);
    if (fz_u(e, 2) & 2u) b = fz_param(e, 1, n, x->shape + x->ndim - n, false, 0);
    if (rms) return tt_rms_norm(e->ctx, x, nd, w, fz_eps(fz_u(e, 3)));
    return tt_layer_norm(e->ctx, x, nd, w, b, fz_eps(fz_u(e, 3)));
}

static tt_tensor *fz_b_group_norm(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t C, g;
    tt_tensor *w = NULL, *b = NULL;
    (void)info;
    x = fz_at_least(e, x, 2);
    if (!x) return NULL;
    C = x->shape[1];
    g = C > 0 ? 1 + (int64_t)(fz_u(e, 0) % (unsigned)C) : 1;
    while (C > 0 && C % g != 0) g--;
    if (fz_take_bad(e)) g = C > 0 ? C + 1 : 0;
    fz_note(e, "groups %lld ", (long long)g);
    if (fz_u(e, 1) & 1u) w = fz_param(e, 0, 1, &C, false, 0);
    if (fz_u(e, 1) & 2u) b = fz_param(e, 1, 1, &C, false, 0);
    return tt_group_norm(e->ctx, x, (int)g, w, b, fz_eps(fz_u(e, 2)));
}

/* Batch norm over axis 1 with parameters (running variance positive); params from slot
   `first` on, so that it can follow a convolution's weight and bias in the same op. */
static tt_tensor *fz_batch_norm(fz_env *e, tt_tensor *x, int first, unsigned b) {
    int64_t C;
    tt_tensor *w = NULL, *bias = NULL, *mean, *var;
    x = fz_at_least(e, x, 2);
    if (!x) return NULL;
    C = x->shape[1];
    e->prog->has_bn = e->prog->has_bn || e->first;
    fz_note(e, "batch_norm ");
    mean = fz_param(e, first, 1, &C, false, 0);
    var = fz_param(e, first + 1, 1, &C, false, 1);
    if (b & 1u) w = fz_param(e, first + 2, 1, &C, false, 0);
    if (b & 2u) bias = fz_param(e, first + 3, 1, &C, false, 0);
    return tt_batch_norm(e->ctx, x, mean, var, w, bias, fz_eps(b >> 2));
}

static tt_tensor *fz_b_batch_norm(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    return fz_batch_norm(e, x, 0, fz_u(e, 0));
}

/* ---- builders: linear algebra and convolution ---------------------------------------- */
static int64_t fz_size(unsigned b) {
    static const int64_t sizes[8] = {1, 2, 3, 4, 5, 8, 9, 17};
    return sizes[b % 8];
}

/* matmul: x by a parameter [K,n] or [K], a parameter [m,K'] by x, or x by its own transpose. */
static tt_tensor *fz_b_matmul(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t s[2];
    unsigned c = fz_u(e, 0) % 4;
    bool strided = (fz_u(e, 1) & 3u) == 0;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    if (x->dtype != TT_F32 && (fz_u(e, 4) & 1u)) { x = tt_cast(e->ctx, x, TT_F32); fz_note(e, "cast f32 "); }
    if (strided) e->prog->strided_gemm = e->prog->strided_gemm || e->first;
    e->prog->has_gemm = e->prog->has_gemm || e->first;
    if (c == 3 && x->ndim >= 2) { fz_note(e, "x @ x^T "); return tt_matmul(e->ctx, x, tt_transpose(e->ctx, x, -1, -2)); }
    if (c == 2 && x->ndim >= 2) {
        s[0] = fz_size(fz_u(e, 2)); s[1] = x->shape[x->ndim - 2] + (fz_take_bad(e) ? 1 : 0);
        return tt_matmul(e->ctx, fz_param(e, 0, 2, s, strided, 0), x);
    }
    s[0] = x->shape[x->ndim - 1] + (fz_take_bad(e) ? 1 : 0);
    s[1] = fz_size(fz_u(e, 2));
    if (c == 1) return tt_matmul(e->ctx, x, fz_param(e, 0, 1, s, false, 0));
    return tt_matmul(e->ctx, x, fz_param(e, 0, 2, s, strided, 0));
}

static tt_tensor *fz_linear(fz_env *e, tt_tensor *x, unsigned b, unsigned b2) {
    int64_t s[2];
    bool strided = (b2 & 3u) == 0;
    tt_tensor *bias = NULL;
    s[0] = fz_size(b) + ((b & 8u) ? 32 : 0);          /* sometimes 33..49 outputs: SIMD tails */
    s[1] = x->shape[x->ndim - 1] + (fz_take_bad(e) ? 1 : 0);
    if (strided) e->prog->strided_gemm = e->prog->strided_gemm || e->first;
    e->prog->has_gemm = e->prog->has_gemm || e->first;
    fz_note(e, "linear ");
    if (b2 & 4u) bias = fz_param(e, 1, 1, s, false, 0);
    return tt_linear(e->ctx, x, fz_param(e, 0, 2, s, strided, 0), bias);
}

static tt_tensor *fz_b_linear(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    x = fz_at_least(e, x, 1);
    return x ? fz_linear(e, x, fz_u(e, 0), fz_u(e, 1)) : NULL;
}

/* A 2-D linear then a batch norm: what TT_PASS_FOLD_BN folds. */
static tt_tensor *fz_b_linear_bn(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    x = fz_exactly(e, x, 2);
    return x ? fz_batch_norm(e, fz_linear(e, x, fz_u(e, 0), fz_u(e, 1)), 2, fz_u(e, 2)) : NULL;
}

/* conv2d (or conv1d when nd is 3): groups from the divisors of C, small kernel, stride,
   padding and dilation, sometimes per axis through tt_conv2d_ex; weight [O, C/g, kh, kw]. */
static tt_tensor *fz_conv(fz_env *e, tt_tensor *x, int nd) {
    int64_t C, g, ws[4];
    tt_conv_params p;
    tt_tensor *w, *bias = NULL;
    unsigned b0 = fz_u(e, 0), b1 = fz_u(e, 1), b2 = fz_u(e, 2), b3 = fz_u(e, 3);
    int i;
    memset(&p, 0, sizeof p);
    x = fz_exactly(e, x, nd);
    if (!x) return NULL;
    if (x->dtype != TT_F32 && (b3 & 64u)) { x = tt_cast(e->ctx, x, TT_F32); fz_note(e, "cast f32 "); }
    C = x->shape[1];
    g = (b0 & 1u) ? C : 1 + (int64_t)(b0 / 2 % 3);   /* depthwise, or 1-3 groups */
    while (g > 1 && (C <= 0 || C % g != 0)) g--;
    if (g < 1) g = 1;
    ws[0] = g * (1 + (int64_t)(b1 % 3));
    ws[1] = C / g;
    for (i = 0; i < 2; i++) {
        int64_t in = x->shape[2 + (nd == 4 ? i : 0)];
        int64_t k = 1 + (int64_t)((b2 >> (2 * i)) % 3);
        p.stride[i] = 1 + (int)((b3 >> i) & 1u);
        p.dilation[i] = 1 + (int)((b3 >> (2 + i)) & 1u);
        p.padding[i] = (int)((b1 >> (2 + 2 * i)) % 3);
        while (k > 1 && (k - 1) * p.dilation[i] + 1 > in + 2 * p.padding[i]) k--;   /* fit the kernel */
        ws[2 + i] = k;
    }
    if (nd == 3 || !(b3 & 16u)) {                     /* tt_conv2d/conv1d: the same on both axes */
        p.stride[1] = p.stride[0]; p.dilation[1] = p.dilation[0]; p.padding[1] = p.padding[0];
        if (nd == 4) ws[3] = ws[2];
        while (nd == 4 && ws[3] > 1 && (ws[3] - 1) * p.dilation[1] + 1 > x->shape[3] + 2 * p.padding[1]) ws[3] = --ws[2];
    }
    p.groups = (int)g;
    e->prog->has_gemm = e->prog->has_gemm || e->first;
    if (fz_take_bad(e)) ws[1] += 1;
    w = fz_param(e, 0, nd, ws, false, 0);
    if (b3 & 32u) bias = fz_param(e, 1, 1, ws, false, 0);
    fz_note(e, "stride %d,%d pad %d,%d dil %d,%d groups %d ", p.stride[0], p.stride[1], p.padding[0], p.padding[1],
            p.dilation[0], p.dilation[1], p.groups);
    if (nd == 3) return tt_conv1d(e->ctx, x, w, bias, p.stride[0], p.padding[0], p.dilation[0], p.groups);
    if (b3 & 16u) return tt_conv2d_ex(e->ctx, x, w, bias, &p);
    return tt_conv2d(e->ctx, x, w, bias, p.stride[0], p.padding[0], p.dilation[0], p.groups);
}

static tt_tensor *fz_b_conv2d(fz_env *e, const fz_op_info *info, tt_tensor *x) { (void)info; return fz_conv(e, x, 4); }
static tt_tensor *fz_b_conv1d(fz_env *e, const fz_op_info *info, tt_tensor *x) { (void)info; return fz_conv(e, x, 3); }

static tt_tensor *fz_b_conv_bn(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    return fz_batch_norm(e, fz_conv(e, x, 4 - (int)(fz_u(e, 5) % 4 == 0)), 2, fz_u(e, 4));
}

/* max/avg pooling, adaptive average pooling and nearest upsampling on a 4-D view of x. */
static tt_tensor *fz_b_pool(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int k = 1 + (int)(fz_u(e, 1) % 3), s = (int)(fz_u(e, 2) % 3), pad = (int)(fz_u(e, 3) % 2);
    unsigned c = fz_u(e, 0) % 4;
    (void)info;
    x = fz_exactly(e, x, 4);
    if (!x) return NULL;
    while (k > 1 && (k > x->shape[2] + 2 * pad || k > x->shape[3] + 2 * pad)) k--;
    if (pad > k / 2) pad = k / 2;
    if (c < 2 && fz_take_bad(e)) pad = k / 2 + 1;
    if (c == 2) { fz_note(e, "adaptive_avg "); return tt_adaptive_avg_pool2d(e->ctx, x, fz_size(fz_u(e, 1)) % 5 + 1, fz_size(fz_u(e, 2)) % 5 + 1); }
    if (c == 3) { fz_note(e, "upsample "); return tt_upsample_nearest(e->ctx, x, 1 + fz_u(e, 1) % 7, 1 + fz_u(e, 2) % 7); }
    fz_note(e, "%s k %d s %d p %d ", c ? "avg" : "max", k, s, pad);
    return c ? tt_avg_pool2d(e->ctx, x, k, s, pad) : tt_max_pool2d(e->ctx, x, k, s, pad);
}

/* Convolution over 1-3 spatial axes through tt_conv_ex, or transposed through
   tt_conv_transpose_ex: per-axis kernel, stride, padding, dilation, output padding. */
static tt_tensor *fz_b_conv_nd(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t C, g, ws[5];
    tt_conv_params p;
    tt_tensor *w, *bias = NULL;
    unsigned b0 = fz_u(e, 0), b1 = fz_u(e, 1);
    bool transposed = (b0 & 1u) != 0;
    int nd = 3 + (int)(b1 % 3), i;
    (void)info;
    memset(&p, 0, sizeof p);
    x = fz_exactly(e, x, nd);
    if (!x) return NULL;
    if (x->dtype != TT_F32) { x = tt_cast(e->ctx, x, TT_F32); fz_note(e, "cast f32 "); }
    C = x->shape[1];
    g = (b0 & 2u) && C > 0 ? C : 1 + (int64_t)(b0 / 4 % 2);
    while (g > 1 && (C <= 0 || C % g != 0)) g--;
    for (i = 0; i < nd - 2; i++) {
        unsigned b = fz_u(e, 2 + i);
        int64_t in = x->shape[2 + i], k = 1 + (int64_t)(b % 3);
        p.stride[i] = 1 + (int)((b >> 2) & 1u);
        p.dilation[i] = 1 + (int)((b >> 3) & 1u);
        p.padding[i] = (int)((b >> 4) % 2);
        if (transposed) {                              /* output (in-1)*s - 2p + d(k-1) + op + 1 >= 1 */
            p.output_padding[i] = (int)((b >> 6) % (unsigned)(p.stride[i] > p.dilation[i] ? p.stride[i] : p.dilation[i]));
            while (p.padding[i] > 0 && (in - 1) * p.stride[i] - 2 * p.padding[i] + p.dilation[i] * (k - 1) + p.output_padding[i] + 1 < 1) p.padding[i]--;
        } else {
            while (k > 1 && (k - 1) * p.dilation[i] + 1 > in + 2 * p.padding[i]) k--;
        }
        ws[2 + i] = k;
    }
    p.groups = (int)g;
    if (transposed) { ws[0] = C; ws[1] = 1 + (int64_t)(fz_u(e, 5) % 2); }   /* [Cin, Cout/groups, k...] */
    else { ws[0] = g * (1 + (int64_t)(fz_u(e, 5) % 2)); ws[1] = C / g; }
    if (fz_take_bad(e)) {                              /* output padding too large, or the wrong weight */
        if (transposed) p.output_padding[0] = p.stride[0] + p.dilation[0];
        else ws[1] += 1;
    }
    e->prog->has_gemm = e->prog->has_gemm || e->first;
    w = fz_param(e, 0, nd, ws, false, 0);
    if (fz_u(e, 6) & 1u) {
        int64_t cout = transposed ? ws[1] * g : ws[0];
        bias = fz_param(e, 1, 1, &cout, false, 0);
    }
    fz_note(e, "%s %dd groups %d ", transposed ? "transposed" : "conv", nd - 2, p.groups);
    if (transposed) return tt_conv_transpose_ex(e->ctx, x, w, bias, &p);
    return tt_conv_ex(e->ctx, x, w, bias, &p);
}

/* Pooling over 1-3 spatial axes with tt_max_pool_ex / tt_avg_pool_ex: per-axis window,
   stride, padding, dilation (max only), ceil mode, padding counted or not. */
static tt_tensor *fz_b_pool_nd(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_pool_params p;
    unsigned b0 = fz_u(e, 0);
    bool is_max = (b0 & 1u) != 0;
    int nd = 3 + (int)((b0 >> 1) % 3), i;
    (void)info;
    memset(&p, 0, sizeof p);
    x = fz_exactly(e, x, nd);
    if (!x) return NULL;
    p.ceil_mode = (b0 & 8u) != 0;
    p.exclude_pad = (b0 & 16u) != 0;
    for (i = 0; i < nd - 2; i++) {
        unsigned b = fz_u(e, 1 + i);
        int64_t in = x->shape[2 + i];
        int k = 1 + (int)(b % 3), dil = is_max ? 1 + (int)((b >> 2) & 1u) : 1, span;
        p.stride[i] = (int)((b >> 3) % 3);
        p.dilation[i] = dil;
        while (k > 1 && (int64_t)((k - 1) * dil + 1) > in) k--;
        span = (k - 1) * dil + 1;
        p.kernel[i] = k;
        p.padding[i] = (int)((b >> 5) % (unsigned)(span / 2 + 1));
    }
    if (fz_take_bad(e)) p.padding[0] = p.kernel[0] * p.dilation[0] + 1;
    fz_note(e, "%s %dd%s%s ", is_max ? "max" : "avg", nd - 2, p.ceil_mode ? " ceil" : "", p.exclude_pad ? " exclude_pad" : "");
    return is_max ? tt_max_pool_ex(e->ctx, x, &p) : tt_avg_pool_ex(e->ctx, x, &p);
}

/* Resizing: nearest or bilinear, to a size or by scale factors, corners aligned or not. */
static tt_tensor *fz_b_resize(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    static const float scales[6] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 0.75f};
    float sh = scales[fz_u(e, 1) % 6], sw = scales[fz_u(e, 2) % 6];
    int64_t oh = 1 + fz_u(e, 1) % 9, ow = 1 + fz_u(e, 2) % 9;
    bool align = (fz_u(e, 3) & 1u) != 0;
    unsigned c = fz_u(e, 0) % 3;
    (void)info;
    x = fz_exactly(e, x, 4);
    if (!x) return NULL;
    if (fz_take_bad(e)) { sh = -1.0f; oh = 0; }
    if (c == 0) { fz_note(e, "nearest x%g,%g ", (double)sh, (double)sw); return tt_upsample_nearest_scale(e->ctx, x, sh, sw); }
    if (c == 1) { fz_note(e, "bilinear x%g,%g%s ", (double)sh, (double)sw, align ? " aligned" : ""); return tt_upsample_bilinear_scale(e->ctx, x, sh, sw, align); }
    fz_note(e, "bilinear to %lldx%lld%s ", (long long)oh, (long long)ow, align ? " aligned" : "");
    return tt_upsample_bilinear(e->ctx, x, oh, ow, align);
}

/* tt_pad_ex: reflect (pads below the size), replicate, circular (at most the size). */
static tt_tensor *fz_b_pad_mode(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    static const tt_pad_mode modes[4] = {TT_PAD_CONSTANT, TT_PAD_REFLECT, TT_PAD_REPLICATE, TT_PAD_CIRCULAR};
    int64_t pads[2 * TT_MAX_DIMS];
    tt_pad_mode mode = modes[fz_u(e, 0) % 4];
    int n, i;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    n = 2 * (1 + (int)(fz_u(e, 1) % (unsigned)(x->ndim < 3 ? x->ndim : 3)));
    for (i = 0; i < n; i++) {
        int64_t size = x->shape[x->ndim - 1 - i / 2], lim = mode == TT_PAD_REFLECT ? size - 1 : mode == TT_PAD_CIRCULAR ? size : 3;
        pads[i] = lim > 0 ? (int64_t)(fz_u(e, 2 + i % 6) >> (i / 6)) % (lim < 3 ? lim + 1 : 4) : 0;
    }
    if (fz_take_bad(e)) pads[0] = mode == TT_PAD_REFLECT || mode == TT_PAD_CIRCULAR ? x->shape[x->ndim - 1] + 1 : -1;
    fz_note(e, "mode %d, %d pads ", (int)mode, n);
    return tt_pad_ex(e->ctx, x, pads, n, mode, fz_float(fz_u(e, 7), true));
}

/* Batch axes for k or v in front of [S, E]: none, q's (some of them 1), or q's with a
   leading 2 (more axes than q). */
static int fz_kv_shape(const tt_tensor *q, unsigned b, int64_t rows, int64_t cols, int64_t *s) {
    int nb = 0, d, qb = q->ndim - 2;
    unsigned how = b % 3;
    if (how == 2 && qb + 3 <= TT_MAX_DIMS) s[nb++] = 2;
    if (how >= 1) for (d = 0; d < qb; d++) s[nb++] = (how == 2 || ((b >> (2 + d)) & 1u)) ? 1 : q->shape[d];
    s[nb++] = rows;
    s[nb++] = cols;
    return nb;
}

/* q = x viewed as [..., L, E]; k and v parameters [..., S, E], [..., S, Ev] with batch
   axes that broadcast; a bool or additive mask; causal; scale. */
static tt_tensor *fz_b_attention(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t ks[TT_MAX_DIMS], vs[TT_MAX_DIMS], ms[2], S, out[TT_MAX_DIMS];
    int nk, nv, nds[3], nd;
    const int64_t *shapes[3];
    tt_tensor *mask = NULL, *y;
    (void)info;
    x = fz_at_least(e, x, 2);
    if (!x) return NULL;
    S = fz_size(fz_u(e, 0)) + ((fz_u(e, 0) & 8u) ? 48 : 0) + ((fz_u(e, 0) & 0x30u) == 0x30u ? 90 : 0);
    nk = fz_kv_shape(x, fz_u(e, 5), S, x->shape[x->ndim - 1] + (fz_take_bad(e) ? 1 : 0), ks);
    nv = fz_kv_shape(x, fz_u(e, 6), S, fz_size(fz_u(e, 1)), vs);
    if (FZ_AVOID_SDPA_RANK && nv > nk && nv > x->ndim) { vs[0] = vs[nv - 2]; vs[1] = vs[nv - 1]; nv = 2; }
    if (fz_u(e, 2) & 1u) {                             /* a bool mask of comparisons, or additive */
        ms[0] = x->shape[x->ndim - 2]; ms[1] = S;
        mask = fz_const(e, 2, ms, fz_u(e, 3));
        if (fz_u(e, 2) & 2u) mask = tt_gt(e->ctx, mask, tt_scalar(e->ctx, -0.5f));
    }
    fz_note(e, "%s ", (fz_u(e, 2) & 4u) ? "causal" : "");
    y = tt_scaled_dot_product_attention(e->ctx, x, fz_param(e, 0, nk, ks, false, 0), fz_param(e, 1, nv, vs, false, 0),
                                        mask, (fz_u(e, 2) & 4u) != 0, (fz_u(e, 4) & 1u) ? 0.0f : 0.3f);
    nds[0] = x->ndim - 2; nds[1] = nk - 2; nds[2] = nv - 2;           /* [batch..., L, Ev] */
    shapes[0] = x->shape; shapes[1] = ks; shapes[2] = vs;
    if (y && fz_bcast(3, nds, shapes, &nd, out)) {
        out[nd++] = x->shape[x->ndim - 2];
        out[nd++] = vs[nv - 1];
        fz_expect_shape(e, y, nd, out);
    }
    return y;
}

/* ---- builders: shape and indexing ------------------------------------------------------- */

/* concat of x with 1-2 tensors of its shape but for the axis, or stack of x with itself. */
static tt_tensor *fz_b_concat(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_tensor *xs[3];
    int64_t s[TT_MAX_DIMS];
    int a, n = 2 + (int)(fz_u(e, 1) % 2), i, d;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    if ((fz_u(e, 2) & 3u) == 0) {
        xs[0] = x; xs[1] = x->dtype == TT_F32 ? tt_neg(e->ctx, x) : x;
        fz_note(e, "stack ");
        return tt_stack(e->ctx, xs, 2, (int)(fz_u(e, 0) % (unsigned)(x->ndim + 1)));
    }
    a = fz_axis(e, x, fz_u(e, 0));
    xs[0] = x;
    for (i = 1; i < n; i++) {
        for (d = 0; d < x->ndim; d++) s[d] = x->shape[d];
        s[a < 0 ? a + x->ndim : (a < x->ndim ? a : 0)] = (int64_t)(fz_u(e, 2 + i) % 4);
        if (fz_take_bad(e)) s[(a < 0 ? a + x->ndim + 1 : a + 1) % x->ndim] += 1;
        xs[i] = (fz_u(e, 2 + i) & 64u) ? fz_param(e, i, x->ndim, s, false, 0) : fz_const(e, x->ndim, s, fz_u(e, 2 + i) >> 2);
        if (xs[i] && x->dtype != TT_F32) xs[i] = tt_cast(e->ctx, xs[i], x->dtype);
    }
    fz_note(e, "concat %d ", n);
    return tt_concat(e->ctx, xs, n, a);
}

static tt_tensor *fz_b_pad(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t pads[2 * TT_MAX_DIMS];
    int n = 2 * (int)(fz_u(e, 0) % (unsigned)(x->ndim + 1)), i;
    (void)info;
    for (i = 0; i < n; i++) pads[i] = (int64_t)((fz_u(e, 1 + i % 7) >> (i / 7)) % 3);
    if (fz_take_bad(e)) { if (n == 0) n = 2 * x->ndim + 2; pads[0] = -1; pads[1] = 0; }
    fz_note(e, "%d pads ", n);
    return tt_pad(e->ctx, x, pads, n, fz_float(fz_u(e, 7), true));
}

static tt_tensor *fz_b_flip(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int axes[2], n;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    n = fz_axes(e, x, axes);
    if (n == 0) { axes[0] = fz_axis(e, x, fz_u(e, 4)); n = 1; }
    return tt_flip(e->ctx, x, axes, n);
}

static tt_tensor *fz_b_tile(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t reps[TT_MAX_DIMS];
    int n = 1 + (int)(fz_u(e, 0) % 3), i;
    (void)info;
    if ((fz_u(e, 1) & 3u) == 0) {
        int a;
        x = fz_at_least(e, x, 1);
        if (!x) return NULL;
        a = fz_axis(e, x, fz_u(e, 2));
        fz_note(e, "repeat_interleave %d ", n);
        return tt_repeat_interleave(e->ctx, x, fz_take_bad(e) ? -1 : n, a);
    }
    for (i = 0; i < n; i++) reps[i] = 1 + (int64_t)(fz_u(e, 2 + i) % 2);
    if (fz_take_bad(e)) reps[0] = -1;
    fz_note(e, "tile %d reps ", n);
    return tt_tile(e->ctx, x, reps, n);
}

/* An i32 index constant of n entries in [0, range) (one out of range when invalid). */
static tt_tensor *fz_index(fz_env *e, int nd, const int64_t *shape, int64_t range, unsigned b) {
    int32_t v[512];
    int64_t n = fz_numel(nd, shape), i;
    if (n > 512) n = 512;   /* cannot happen: callers keep indices small */
    for (i = 0; i < n; i++) v[i] = range > 0 ? (int32_t)((b * 7u + (unsigned)i * 13u) % (unsigned)range) : 0;
    if (n > 0 && fz_take_bad(e)) v[n - 1] = (int32_t)range + (b & 1u ? 0 : 5);
    fz_note(e, "index[%lld] ", (long long)n);
    return tt_from_data(e->ctx, TT_I32, nd, shape, v);
}

/* index_select along an axis, gather with an index of x's shape (cut down), embedding. */
static tt_tensor *fz_b_index(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t s[TT_MAX_DIMS];
    unsigned c = fz_u(e, 0) % 3;
    int a, d;
    tt_tensor *idx;
    (void)info;
    x = fz_at_least(e, x, 1);
    if (!x) return NULL;
    if (c == 2) {                                      /* rows of x as [V, D] */
        x = fz_exactly(e, x, 2);
        if (!x) return NULL;
        s[0] = 1 + fz_u(e, 1) % 3; s[1] = 1 + fz_u(e, 2) % 4;
        fz_note(e, "embedding ");
        idx = fz_index(e, (fz_u(e, 3) & 1u) ? 2 : 1, s, x->shape[0], fz_u(e, 4));
        return tt_embedding(e->ctx, x, idx);
    }
    a = fz_axis(e, x, fz_u(e, 1));
    d = a < 0 ? a + x->ndim : a;
    if (d < 0 || d >= x->ndim) d = 0;
    if (c == 0) {
        s[0] = 1 + fz_u(e, 2) % 5;
        fz_note(e, "index_select ");
        return tt_index_select(e->ctx, x, a, fz_index(e, 1, s, x->shape[d], fz_u(e, 3)));
    }
    for (int i = 0; i < x->ndim; i++) s[i] = x->shape[i] > 2 ? x->shape[i] - (int64_t)(fz_u(e, 2) % 2) : x->shape[i];
    s[d] = 1 + fz_u(e, 4) % 3;
    if (fz_numel(x->ndim, s) > 64) { s[d] = 1; for (int i = 0; i < x->ndim; i++) if (i != d && s[i] > 2) s[i] = 2; }
    fz_note(e, "gather ");
    return tt_gather(e->ctx, x, a, fz_index(e, x->ndim, s, x->shape[d], fz_u(e, 3)));
}

static tt_tensor *fz_b_shape_as_tensor(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    (void)info;
    /* i32 shape, then back to f32 (added to x's sum so the value keeps depending on x) */
    return tt_add(e->ctx, tt_sum(e->ctx, x, NULL, 0, false), tt_cast(e->ctx, tt_shape_as_tensor(e->ctx, x), TT_F32));
}

/* ---- builders that stress the compiler -------------------------------------------------- */

/* A long elementwise chain (4-30 library calls), each step reading the previous value and
   sometimes an earlier step, a constant or a parameter: fusion's limits (24 members, the
   input budget), in-place reuse and the memory plan. */
static tt_tensor *fz_b_chain(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    tt_tensor *steps[32];
    int n = 4 + (int)(fz_u(e, 0) % 27), i;
    uint32_t r = fz_u(e, 1) | fz_u(e, 2) << 8 | fz_u(e, 3) << 16 | 1u;
    (void)info;
    fz_note(e, "%d steps ", n);
    steps[0] = x;
    for (i = 1; i <= n && x; i++) {
        unsigned c = fz_rng_next(&r) % 14;
        tt_tensor *earlier = steps[fz_rng_next(&r) % (unsigned)i];
        int64_t one = 1;
        switch (c) {
        case 0:  x = tt_neg(e->ctx, x); break;
        case 1:  x = tt_tanh(e->ctx, x); break;
        case 2:  x = tt_sigmoid(e->ctx, x); break;
        case 3:  x = tt_relu(e->ctx, x); break;
        case 4:  x = tt_mul_scalar(e->ctx, x, fz_float(fz_rng_next(&r), true)); break;
        case 5:  x = tt_add_scalar(e->ctx, x, fz_float(fz_rng_next(&r), false)); break;
        case 6:  x = tt_sub(e->ctx, x, earlier); break;
        case 7:  x = tt_mul(e->ctx, x, fz_const(e, 1, &one, fz_rng_next(&r))); break;
        case 8:  x = tt_maximum(e->ctx, x, earlier); break;
        case 9:  x = tt_where(e->ctx, tt_gt(e->ctx, x, earlier), x, tt_neg(e->ctx, earlier)); break;
        case 10: x = tt_cast(e->ctx, tt_cast(e->ctx, x, TT_BF16), TT_F32); break;
        case 11: x = tt_silu(e->ctx, x); break;
        case 12: x = tt_exp(e->ctx, tt_clamp(e->ctx, x, -5.0f, 5.0f)); break;
        default: x = tt_add(e->ctx, x, fz_param(e, i % FZ_NPARAM, 1, &one, false, 0)); break;
        }
        steps[i] = x;
    }
    return x;
}

/* An expression of constants or parameters only (folded at compile time, the parameters
   once FREEZE made them constants), then combined with x. Never an addition: the
   expression may be all zeros, and x + 0 is SIMPLIFY's documented -0.0 exception. */
static tt_tensor *fz_b_const_expr(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t shape[TT_MAX_DIMS];
    int nd = fz_derive_shape(e, x, fz_u(e, 0), fz_u(e, 1), shape), i, n = 1 + (int)(fz_u(e, 2) % 3);
    tt_tensor *k = (fz_u(e, 3) & 1u) ? fz_param(e, 0, nd, shape, (fz_u(e, 3) & 2u) != 0, 0) : fz_const(e, nd, shape, fz_u(e, 4));
    (void)info;
    for (i = 0; i < n && k; i++) {
        switch ((fz_u(e, 5) >> (2 * i)) % 4) {
        case 0: k = tt_exp(e->ctx, k); fz_note(e, "exp "); break;
        case 1: k = tt_mul_scalar(e->ctx, k, fz_float(fz_u(e, 6) + (unsigned)i, true)); fz_note(e, "mul_scalar "); break;
        case 2: if (k->ndim >= 2) { k = tt_transpose(e->ctx, tt_transpose(e->ctx, k, 0, -1), 0, -1); fz_note(e, "transpose twice "); } break;
        default: k = tt_neg(e->ctx, tt_contiguous(e->ctx, k)); fz_note(e, "neg "); break;
        }
    }
    switch (fz_u(e, 7) % 4) {
    case 0: fz_note(e, "mul"); return tt_mul(e->ctx, x, k);
    case 1: fz_note(e, "sub"); return tt_sub(e->ctx, k, x);
    case 2: fz_note(e, "maximum"); return tt_maximum(e->ctx, x, k);
    default: fz_note(e, "div"); return tt_div(e->ctx, x, k);
    }
}

/* Ops that change nothing, for SIMPLIFY to drop: x*1, x/1, x-0, 1*x, a pad of zeros, a
   cast to the same dtype, a reshape, expand or permute to the same shape and order, a
   permute of a permute, a squeeze of an axis that is not 1. */
static tt_tensor *fz_b_identity(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    int64_t s[TT_MAX_DIMS], pads[2] = {0, 0};
    int perm[TT_MAX_DIMS], d;
    unsigned c = fz_u(e, 0) % 10;
    (void)info;
    for (d = 0; d < x->ndim; d++) { s[d] = x->shape[d]; perm[d] = d; }
    switch (c) {
    case 0: fz_note(e, "x*1"); return tt_mul_scalar(e->ctx, x, 1.0f);
    case 1: fz_note(e, "x/1"); return tt_div_scalar(e->ctx, x, 1.0f);
    case 2: fz_note(e, "x-0"); return tt_sub_scalar(e->ctx, x, 0.0f);
    case 3: fz_note(e, "ones*x"); return tt_mul(e->ctx, tt_ones(e->ctx, TT_F32, x->ndim, s), x);
    case 4: fz_note(e, "pad 0"); return x->ndim > 0 ? tt_pad(e->ctx, x, pads, 2, 3.0f) : tt_pad(e->ctx, x, NULL, 0, 0.0f);
    case 5: fz_note(e, "cast same"); return tt_cast(e->ctx, x, x->dtype);
    case 6: fz_note(e, "reshape same"); return tt_reshape(e->ctx, fz_maybe_contiguous(e, x, 0), x->ndim, s);
    case 7: fz_note(e, "expand same"); return tt_expand(e->ctx, x, x->ndim, s);
    case 8:
        fz_note(e, "permute twice");
        if (x->ndim >= 2) { perm[0] = 1; perm[1] = 0; x = tt_permute(e->ctx, x, perm); }
        return tt_permute(e->ctx, x, perm);
    default:
        for (d = 0; d < x->ndim && x->shape[d] == 1; d++) {}
        fz_note(e, "squeeze a non-1 axis");
        return d < x->ndim ? tt_squeeze(e->ctx, x, d) : tt_mul_scalar(e->ctx, x, 1.0f);
    }
}

static tt_tensor *fz_b_twice(fz_env *e, const fz_op_info *info, tt_tensor *x);

/* ---- the op table ------------------------------------------------------------------------ */
#define FZ_UN(n, f)    { n, 1, fz_b_unary,  f, NULL, NULL, NULL, NULL }
#define FZ_BIN(n, f)   { n, 2, fz_b_binary, NULL, f, NULL, NULL, NULL }
#define FZ_SC(n, f)    { n, 1, fz_b_scalar, NULL, NULL, f, NULL, NULL }
#define FZ_RED(n, f)   { n, 1, fz_b_reduce, NULL, NULL, NULL, f, NULL }
#define FZ_AX(n, f)    { n, 1, fz_b_axis_op, NULL, NULL, NULL, NULL, f }
#define FZ_OP(n, a, b) { n, a, b, NULL, NULL, NULL, NULL, NULL }

static const fz_op_info fz_ops[] = {
    FZ_UN("neg", tt_neg), FZ_UN("abs", tt_abs), FZ_UN("sign", tt_sign), FZ_UN("exp", tt_exp),
    FZ_UN("log", tt_log), FZ_UN("sqrt", tt_sqrt), FZ_UN("rsqrt", tt_rsqrt), FZ_UN("reciprocal", tt_reciprocal),
    FZ_UN("sin", tt_sin), FZ_UN("cos", tt_cos), FZ_UN("tanh", tt_tanh), FZ_UN("sigmoid", tt_sigmoid),
    FZ_UN("relu", tt_relu), FZ_UN("gelu", tt_gelu), FZ_UN("gelu_tanh", tt_gelu_tanh), FZ_UN("silu", tt_silu),
    FZ_UN("softplus", tt_softplus), FZ_UN("erf", tt_erf), FZ_UN("floor", tt_floor), FZ_UN("ceil", tt_ceil),
    FZ_UN("round", tt_round), FZ_UN("logical_not", tt_logical_not),
    FZ_OP("sqrt_abs", 1, fz_b_sqrt_abs), FZ_OP("log_abs1", 1, fz_b_log_abs1), FZ_OP("clamp", 1, fz_b_clamp),
    FZ_SC("leaky_relu", tt_leaky_relu), FZ_SC("elu", tt_elu), FZ_SC("pow_scalar", tt_pow_scalar),
    FZ_SC("add_scalar", tt_add_scalar), FZ_SC("sub_scalar", tt_sub_scalar), FZ_SC("mul_scalar", tt_mul_scalar),
    FZ_SC("div_scalar", tt_div_scalar),
    FZ_BIN("add", tt_add), FZ_BIN("sub", tt_sub), FZ_BIN("mul", tt_mul), FZ_BIN("div", tt_div),
    FZ_BIN("pow", tt_pow), FZ_BIN("maximum", tt_maximum), FZ_BIN("minimum", tt_minimum),
    FZ_BIN("eq", tt_eq), FZ_BIN("ne", tt_ne), FZ_BIN("lt", tt_lt), FZ_BIN("le", tt_le), FZ_BIN("gt", tt_gt),
    FZ_BIN("ge", tt_ge), FZ_BIN("logical_and", tt_logical_and), FZ_BIN("logical_or", tt_logical_or),
    FZ_OP("where", 2, fz_b_where), FZ_OP("cast", 1, fz_b_cast),
    FZ_OP("reshape", 1, fz_b_reshape), FZ_OP("permute", 1, fz_b_permute), FZ_OP("transpose", 1, fz_b_transpose),
    FZ_OP("slice", 1, fz_b_slice), FZ_OP("expand", 1, fz_b_expand), FZ_OP("squeeze", 1, fz_b_squeeze),
    FZ_OP("unsqueeze", 1, fz_b_unsqueeze), FZ_OP("flatten", 1, fz_b_flatten), FZ_OP("copy", 1, fz_b_copy),
    FZ_OP("split", 1, fz_b_split),
    FZ_RED("sum", tt_sum), FZ_RED("mean", tt_mean), FZ_RED("max", tt_max), FZ_RED("min", tt_min),
    FZ_RED("prod", tt_prod), FZ_OP("var/std", 1, fz_b_var), FZ_OP("argmax/argmin", 1, fz_b_argmax),
    FZ_AX("softmax", tt_softmax), FZ_AX("log_softmax", tt_log_softmax),
    FZ_OP("norm", 1, fz_b_row_norm), FZ_OP("group_norm", 1, fz_b_group_norm),
    FZ_OP("batch_norm", 1, fz_b_batch_norm),
    FZ_OP("matmul", 1, fz_b_matmul), FZ_OP("linear", 1, fz_b_linear), FZ_OP("linear+bn", 1, fz_b_linear_bn),
    FZ_OP("conv2d", 1, fz_b_conv2d), FZ_OP("conv1d", 1, fz_b_conv1d), FZ_OP("conv+bn", 1, fz_b_conv_bn),
    FZ_OP("pool", 1, fz_b_pool), FZ_OP("attention", 1, fz_b_attention),
    FZ_OP("concat/stack", 1, fz_b_concat), FZ_OP("pad", 1, fz_b_pad), FZ_OP("flip", 1, fz_b_flip),
    FZ_OP("tile", 1, fz_b_tile), FZ_OP("index", 1, fz_b_index), FZ_OP("shape_as_tensor", 1, fz_b_shape_as_tensor),
    FZ_OP("chain", 1, fz_b_chain), FZ_OP("chain", 1, fz_b_chain), FZ_OP("twice", 1, fz_b_twice),
    FZ_OP("conv_nd", 1, fz_b_conv_nd), FZ_OP("pool_nd", 1, fz_b_pool_nd), FZ_OP("resize", 1, fz_b_resize),
    FZ_OP("pad_mode", 1, fz_b_pad_mode),
    FZ_OP("const_expr", 1, fz_b_const_expr), FZ_OP("identity", 1, fz_b_identity), FZ_OP("identity", 1, fz_b_identity),
};
#define FZ_N_OPS ((int)(sizeof fz_ops / sizeof fz_ops[0]))
#define FZ_EWISE_ROWS 47          /* the table's first rows: unary, scalar, binary, comparison, logical */

/* The same op twice on x (same arguments), the results added: equal calls and equal
   constants for CSE to merge. */
static tt_tensor *fz_b_twice(fz_env *e, const fz_op_info *info, tt_tensor *x) {
    const fz_op_info *inner = &fz_ops[fz_u(e, 7) % FZ_EWISE_ROWS];
    tt_tensor *a, *b;
    (void)info;
    fz_note(e, "%s: ", inner->name);
    a = inner->build(e, inner, x);
    e->n_other = 0;                       /* the same parameters again */
    b = inner->build(e, inner, x);
    return tt_add(e->ctx, a, b);
}


/* ---- decoding ----------------------------------------------------------------------------- */
static int64_t fz_dim(unsigned b) {
    static const int64_t sizes[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7,
                                      8, 9, 2, 3, 4, 5, 3, 4, 1, 2, 0, 37, 130, 16, 33, 17};
    return sizes[b % 32];
}

/* Input shapes: 0-4 axes; inputs after the first often share or broadcast its shape. Big
   shapes are cut down to FZ_IN_NUMEL elements by halving the largest axis. */
static void fz_decode_inputs(fz_reader *r, fz_prog *p) {
    int i, d;
    p->n_inputs = 1 + (int)fz_pick(r, 3);
    for (i = 0; i < p->n_inputs; i++) {
        unsigned how = fz_pick(r, 4);
        int nd = (int)fz_pick(r, 5);
        if (i > 0 && how < 3) {                        /* like input 0: the same, or some axes 1 */
            nd = p->in_ndim[0];
            for (d = 0; d < nd; d++) p->in_shape[i][d] = (how == 2 && (fz_byte(r) & 1u)) ? 1 : p->in_shape[0][d];
        } else {
            for (d = 0; d < nd; d++) p->in_shape[i][d] = fz_dim(fz_byte(r));
        }
        p->in_ndim[i] = nd;
        while (fz_numel(nd, p->in_shape[i]) > FZ_IN_NUMEL) {
            int big = 0;
            for (d = 1; d < nd; d++) if (p->in_shape[i][d] > p->in_shape[i][big]) big = d;
            p->in_shape[i][big] /= 2;
        }
    }
}

static unsigned fz_decode_passes(fz_reader *r) {
    static const unsigned bits[7] = {TT_PASS_DCE, TT_PASS_CSE, TT_PASS_CONST_FOLD, TT_PASS_SIMPLIFY,
                                     TT_PASS_FOLD_BN, TT_PASS_EPILOGUE, TT_PASS_FUSE};
    unsigned b = fz_byte(r), c = fz_byte(r), passes = 0;
    int i;
    if (c % 4 == 0) passes = TT_PASS_ALL;
    else for (i = 0; i < 7; i++) if ((b >> i) & 1u) passes |= bits[i];
    if (c & 4u) passes |= TT_PASS_FREEZE;
    return passes;
}

static void fz_decode(fz_prog *p, const uint8_t *data, size_t size) {
    static const int threads[4] = {1, 2, 3, 7};
    fz_reader r;
    unsigned b;
    int i, k;
    memset(p, 0, sizeof *p);
    r.p = data; r.n = size; r.at = 0;
    fz_decode_inputs(&r, p);
    p->seed = fz_byte(&r) | fz_byte(&r) << 8;
    p->passes = fz_decode_passes(&r);
    b = fz_byte(&r);
    p->mode = (tt_mode)(b % 3);
    p->n_threads = threads[(b >> 2) % 4];
    p->poison = (b & 16u) != 0;
    p->fresh_strided = (b & 32u) != 0;
    p->check = (b & 64u) != 0;
    p->specials = (b & 128u) != 0;
    b = fz_byte(&r);
    if (b & 1u) { p->passes2 = fz_decode_passes(&r); p->mode2 = (tt_mode)((b >> 1) % 3); }
    p->bad_op = (b >> 3) % 10 == 0 ? (int)((b >> 4) % FZ_MAX_OPS) : -1;
    b = fz_byte(&r);
    p->traced_strided = (b & 3u) == 0;
    p->misuse = (b & 4u) != 0;
    p->print = (b & 8u) != 0;
    p->compiled_api = (b & 0x30u) == 0x30u;
    p->third_compile = (b & 0xC0u) == 0xC0u;
    p->n_outputs = 1 + (int)fz_pick(&r, 3);
    for (i = 0; i < p->n_outputs; i++) p->out_pick[i] = fz_byte(&r);
    p->n_ops = 1 + (int)fz_pick(&r, FZ_MAX_OPS);
    for (i = 0; i < p->n_ops; i++) {
        p->ops[i].kind = (int)fz_pick(&r, FZ_N_OPS);
        p->ops[i].src = fz_byte(&r);
        for (k = 0; k < FZ_NARG; k++) p->ops[i].arg[k] = (uint8_t)fz_byte(&r);
    }
    p->failed_op = -1;
    p->bad_accepted = -1;
    p->shape_wrong = -1;
    /* Where FOLD_BN or FREEZE may change the rounding (a batch norm, a GEMM), outputs are
       compared within a tolerance; huge inputs and scalars would blow a last-bit difference
       up into any value (cos of 1e30), so such programs get neither. */
    for (i = 0; i < p->n_ops; i++) {
        const char *n = fz_ops[p->ops[i].kind].name;
        bool bn = strstr(n, "bn") || strstr(n, "batch_norm"), gemm = strstr(n, "matmul") || strstr(n, "linear") || strstr(n, "conv");
        if ((bn && ((p->passes | p->passes2) & TT_PASS_FOLD_BN)) || (gemm && ((p->passes | p->passes2) & TT_PASS_FREEZE))) p->tame = true;
    }
    if (p->tame) p->specials = false;
    /* ops that may make a non-f32 value inside (for FZ_AVOID_EPILOGUE_NON_F32) */
    for (i = 0; i < p->n_ops; i++) {
        const char *n = fz_ops[p->ops[i].kind].name;
        if (strstr(n, "where") || strstr(n, "cast") || strstr(n, "chain") || strstr(n, "attention") ||
            strstr(n, "twice") || strstr(n, "index") || strstr(n, "shape_as") || strstr(n, "argm") || strstr(n, "logical") ||
            (strlen(n) == 2 && strchr("eqnltlegtge", n[0])))           /* eq ne lt le gt ge */
            p->has_non_f32 = true;
    }
}

/* ---- running a program -------------------------------------------------------------------- */

/* Runs p on ctx from the inputs; vals gets every value. Returns the number of values, or
   -1 when an op failed (its index in *failed). The first run describes the ops, makes the
   parameters, decides where the program stops and which op takes the invalid request. */
static int fz_exec(fz_prog *p, tt_ctx *ctx, tt_ctx *wc, tt_tensor *const *in, tt_tensor **vals, bool first, int *failed) {
    fz_env e;
    int i, n_ops = first ? p->n_ops : p->n_done;
    memset(&e, 0, sizeof e);
    e.ctx = ctx; e.wc = wc; e.prog = p; e.first = first;
    for (i = 0; i < p->n_inputs; i++) { e.dep[e.n_val] = 1u << i; e.val[e.n_val++] = in[i]; }
    *failed = -1;
    for (i = 0; i < n_ops; i++) {
        const fz_op *op = &p->ops[i];
        const fz_op_info *info = &fz_ops[op->kind];
        int src = op->src < 128 ? e.n_val - 1 : (int)(op->src % (unsigned)e.n_val);   /* mostly the last value */
        tt_tensor *x = e.val[src], *y;
        e.op = op; e.op_index = i; e.desc_len = 0;
        e.bad = i == p->bad_op; e.bad_used = false; e.op_dep = e.dep[src]; e.n_other = 0;
        if (first) { p->desc[i][0] = '\0'; p->src[i] = src; fz_stat.ops++; }
        if (first && fz_verbose > 0) { printf("  op %d %s on v%d ...", i, info->name, src); fflush(stdout); }
        y = info->build(&e, info, x);
        if (first && fz_verbose > 0) {
            char sh[64];
            fz_shape_str(y, sh, sizeof sh);
            printf(" %s-> %s%s\n", p->desc[i], y ? tt_dtype_name(y->dtype) : "", sh);
            fflush(stdout);
        }
        if (first && e.bad && !e.bad_used) p->bad_op++;   /* this op cannot be invalid: the next one */
        if (first && e.bad_used && y) {
            fz_stat.intended_bad_accepted++;
            p->bad_accepted = i;
            if (fz_verbose != 0) { printf("  note: op %d (%s %s) was made invalid but succeeded\n", i, info->name, p->desc[i]); fflush(stdout); }
        }
        if (!y) { *failed = i; if (first) p->n_done = i + 1; return -1; }
        if (first && y->dtype != TT_F32) p->has_non_f32 = true;
        e.dep[e.n_val] = e.op_dep;
        e.val[e.n_val++] = y;
        if (y->numel > FZ_GROW_NUMEL) { i++; break; }   /* big enough: stop here */
    }
    if (first) p->n_done = i;
    for (i = 0; i < e.n_val; i++) { vals[i] = e.val[i]; if (first) p->dep[i] = e.dep[i]; }
    return e.n_val;
}

/* ---- comparing ---------------------------------------------------------------------------- */
typedef struct fz_cmp {
    bool zero_sign;               /* +0 equals -0 (SIMPLIFY) */
    bool approx;                  /* floats within a tolerance, others not compared (FOLD_BN, FREEZE) */
} fz_cmp;

static bool fz_is_nan_bits(const unsigned char *e, tt_dtype t) {
    if (t == TT_F32) { float f; memcpy(&f, e, 4); return f != f; }
    if (t == TT_F16 || t == TT_BF16) {
        uint16_t h;
        memcpy(&h, e, 2);
        return t == TT_F16 ? (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) : (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu);
    }
    return false;
}

static double fz_as_double(const unsigned char *e, tt_dtype t) {
    float f;
    uint16_t h;
    int32_t i;
    switch (t) {
    case TT_F32: memcpy(&f, e, 4); return f;
    case TT_F16: memcpy(&h, e, 2); return tt_f16_to_f32(h);
    case TT_BF16: memcpy(&h, e, 2); return tt_bf16_to_f32(h);
    case TT_I32: memcpy(&i, e, 4); return i;
    default: return *e;
    }
}

/* Element equality under the comparison's rules. */
static bool fz_same_elem(const unsigned char *a, const unsigned char *b, tt_dtype t, const fz_cmp *m, double scale) {
    size_t es = tt_dtype_size(t);
    bool is_float = t == TT_F32 || t == TT_F16 || t == TT_BF16;
    double x, y;
    if (memcmp(a, b, es) == 0) return true;
    if (!is_float) return m->approx;                   /* a folded batch norm may flip a comparison */
    if (fz_is_nan_bits(a, t) && fz_is_nan_bits(b, t)) return true;
    x = fz_as_double(a, t); y = fz_as_double(b, t);
    if (m->zero_sign && x == 0.0 && y == 0.0) return true;
    if (m->approx) return x == y || fabs(x - y) <= 1e-3 * fabs(y) + 1e-4 * scale || (x != x && y != y);
    return false;
}

/* Index of the first element where got and want differ, -1 when none, -2 when dtype or
   shape differ. */
static int64_t fz_first_diff(const tt_tensor *got, const tt_tensor *want, const fz_cmp *m) {
    double scale = 1e-3;
    int64_t i;
    int d;
    if (got->dtype != want->dtype || got->ndim != want->ndim) return -2;
    for (d = 0; d < got->ndim; d++) if (got->shape[d] != want->shape[d]) return -2;
    if (m->approx)
        for (i = 0; i < want->numel; i++) {
            double v = fabs(fz_as_double(fz_elem(want, i), want->dtype));
            if (v == v && v <= 1e30 && v > scale) scale = v;
        }
    for (i = 0; i < got->numel; i++)
        if (!fz_same_elem(fz_elem(got, i), fz_elem(want, i), got->dtype, m, scale)) return i;
    return -1;
}

static const char *fz_mode_name(tt_mode m) {
    return m == TT_MODE_DEFAULT ? "DEFAULT" : m == TT_MODE_REDUCE_OVERHEAD ? "REDUCE_OVERHEAD" : "MAX_AUTOTUNE";
}

static void fz_print_passes(unsigned passes) {
    static const char *names[8] = {"DCE", "CSE", "CONST_FOLD", "SIMPLIFY", "FOLD_BN", "EPILOGUE", "FUSE", "?"};
    int i;
    printf("passes:");
    if (passes == 0) printf(" none");
    for (i = 0; i < 7; i++) if (passes & (1u << i)) printf(" %s", names[i]);
    if (passes & TT_PASS_FREEZE) printf(" FREEZE");
    printf("\n");
}

/* The decoded program, one line per op with the shape it made (from the reference run). */
static void fz_print_prog(const fz_prog *p, tt_tensor *const *ref, int n_ref) {
    char s[64];
    int i;
    printf("---- tinytrace fuzz_ops program: %d inputs, %d ops, seed %u, %d threads, mode %s%s%s%s%s\n",
           p->n_inputs, p->n_done, (unsigned)p->seed, p->n_threads, fz_mode_name(p->mode),
           p->poison ? ", POISON" : "", p->traced_strided ? ", strided traced inputs" : "",
           p->fresh_strided ? ", strided fresh inputs" : "",
           p->specials ? ", special values" : "");
    for (i = 0; i < p->n_inputs; i++) {
        fz_shape_str(i < n_ref ? ref[i] : NULL, s, sizeof s);
        printf("  v%d = input f32%s\n", i, s);
    }
    for (i = 0; i < p->n_done; i++) {
        int v = p->n_inputs + i;
        const tt_tensor *t = v < n_ref ? ref[v] : NULL;
        fz_shape_str(t, s, sizeof s);
        printf("  v%d = %s(v%d%s) %s-> %s%s%s\n", v, fz_ops[p->ops[i].kind].name, p->src[i],
               fz_ops[p->ops[i].kind].arity == 2 ? ", y" : "", p->desc[i],
               t ? tt_dtype_name(t->dtype) : "", s, i == p->failed_op ? "   <- FAILED" : "");
    }
    printf("  outputs:");
    for (i = 0; i < p->n_outputs; i++) printf(" v%d", p->outputs[i]);
    printf("\n  ");
    fz_print_passes(p->passes);
    if (p->passes2) { printf("  recompiled with mode %s, ", fz_mode_name(p->mode2)); fz_print_passes(p->passes2); }
}

/* ---- one program, end to end ------------------------------------------------------------ */
typedef struct fz_run {
    fz_prog    *p;
    tt_ctx     *wc, *rc, *tc;     /* weights, reference (1 thread, never traced), traced */
    tt_tensor  *ref[FZ_MAX_VALUES];
    int         n_ref;
    float      *data[2][FZ_MAX_INPUTS];   /* input values: [0] the traced ones, [1] fresh */
    tt_graph   *g;
    bool        frozen;           /* compiled with FREEZE once: later compiles read the copies too */
    const char *stage;
} fz_run;

static int fz_fail(fz_run *R, const char *fmt, ...) {
    va_list ap;
    fz_print_prog(R->p, R->ref, R->n_ref);
    printf("MISMATCH at %s: ", R->stage);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (R->g) {
        char buf[4096];
        tt_graph_str(R->g, buf, sizeof buf);
        printf("graph:\n%s", buf);
    }
    fflush(stdout);
    return 1;
}

/* Output k of `got` against `want` (the reference program's value), with the rules for
   these passes; prints the first differing element. */
/* After a difference beyond the tolerance (FOLD_BN, or FREEZE with a strided weight): was it
   the folded or reordered layer, or a last-bit difference that later ops blew up (cos of a
   large value, a rounding to bf16, a comparison that flipped)? tt_graph_check names the
   first value that differs by more than float rounding: when that is not a layer, the
   layer was fine. */
static bool fz_amplified(fz_run *R, tt_tensor *const *in) {
    static const char *layers[] = {"tt_batch_norm", "tt_linear", "tt_matmul", "tt_conv2d", "tt_conv2d_ex", "tt_conv1d",
                                   "tt_conv_ex", "tt_conv_transpose_ex"};
    tt_check_report rep;
    size_t i;
    memset(&rep, 0, sizeof rep);
    if (FZ_AVOID_CHECK_DEAD_INPUT && R->p->live_inputs != (1u << R->p->n_inputs) - 1u) return false;
    if (!in || tt_graph_check(R->g, in, R->p->n_inputs, 1e-5, 1e-3, &rep) != TT_OK) { tt_graph_clear_error(R->g); return false; }
    if (rep.ok) return true;
    for (i = 0; i < sizeof layers / sizeof layers[0]; i++)
        if (rep.eager_op && strcmp(rep.eager_op, layers[i]) == 0) return false;
    fz_stat.amplified++;
    return true;
}

static int fz_compare(fz_run *R, int k, const tt_tensor *got, const tt_tensor *want, unsigned passes, tt_tensor *const *in) {
    fz_cmp m;
    int64_t i;
    char gs[64], ws[64];
    m.zero_sign = (passes & TT_PASS_SIMPLIFY) != 0;
    m.approx = ((passes & TT_PASS_FOLD_BN) && R->p->has_bn) || (R->frozen && R->p->strided_gemm);
    fz_stat.compares++;
    if (m.approx) fz_stat.approx++;
    if (!got) return fz_fail(R, "output %d is NULL", k);
    i = fz_first_diff(got, want, &m);
    if (i == -1 || (i >= 0 && m.approx && fz_amplified(R, in))) return 0;
    fz_shape_str(got, gs, sizeof gs);
    fz_shape_str(want, ws, sizeof ws);
    if (i == -2)
        return fz_fail(R, "output %d (v%d) is %s%s, eager gives %s%s", k, R->p->outputs[k], tt_dtype_name(got->dtype), gs,
                       tt_dtype_name(want->dtype), ws);
    {
        const unsigned char *a = fz_elem(got, i), *b = fz_elem(want, i);
        uint32_t ab = 0, bb = 0;
        memcpy(&ab, a, tt_dtype_size(got->dtype));
        memcpy(&bb, b, tt_dtype_size(got->dtype));
        return fz_fail(R, "output %d (v%d, %s%s) element %lld: got %.9g (0x%08x), eager %.9g (0x%08x)", k,
                       R->p->outputs[k], tt_dtype_name(got->dtype), gs, (long long)i, fz_as_double(a, got->dtype),
                       (unsigned)ab, fz_as_double(b, want->dtype), (unsigned)bb);
    }
}

/* The reference program on input set `set` (contiguous inputs in rc). */
static int fz_reference(fz_run *R, int set, tt_tensor **vals) {
    tt_tensor *in[FZ_MAX_INPUTS];
    int i, failed;
    for (i = 0; i < R->p->n_inputs; i++) in[i] = tt_from_data(R->rc, TT_F32, R->p->in_ndim[i], R->p->in_shape[i], R->data[set][i]);
    return fz_exec(R->p, R->rc, R->wc, in, vals, false, &failed);
}

/* Every output of the graph's last run against the reference values. */
static int fz_compare_outputs(fz_run *R, tt_tensor *const *want_vals, unsigned passes, tt_tensor *const *in) {
    int k;
    for (k = 0; k < R->p->n_outputs; k++)
        if (fz_compare(R, k, tt_graph_output(R->g, k), want_vals[R->p->outputs[k]], passes, in)) return 1;
    return 0;
}

/* Runs the graph on input set `set` (strided views when asked), in the compile mode's way,
   and compares with the reference program on the same values. */
static int fz_run_graph(fz_run *R, tt_tensor **traced_in, int set, tt_mode mode, unsigned passes, bool bound_traced) {
    tt_tensor *in[FZ_MAX_INPUTS], *want[FZ_MAX_VALUES];
    fz_prog *p = R->p;
    tt_status st;
    int i;
    if (set == 0) for (i = 0; i < p->n_inputs; i++) in[i] = traced_in[i];
    else
        for (i = 0; i < p->n_inputs; i++)
            in[i] = fz_make_input(R->tc, p->in_ndim[i], p->in_shape[i], R->data[1][i], p->fresh_strided ? 1u + (unsigned)i % 2u : 0u);
    if (mode == TT_MODE_REDUCE_OVERHEAD && set == 1 && !p->fresh_strided && bound_traced) {
        /* bound once before (on the traced inputs): write the new values in place */
        for (i = 0; i < p->n_inputs; i++) fz_write(traced_in[i], R->data[1][i]);
        st = tt_graph_run(R->g, NULL, 0);
    } else if (mode == TT_MODE_REDUCE_OVERHEAD) {
        st = tt_graph_bind(R->g, in, p->n_inputs);
        if (st == TT_OK) st = tt_graph_run(R->g, NULL, 0);
    } else {
        st = tt_graph_run(R->g, in, p->n_inputs);
    }
    fz_stat.graphs_run++;
    if (st != TT_OK) return fz_fail(R, "tt_graph_run: %s (%s)", tt_status_str(st), tt_graph_error(R->g) ? tt_graph_error(R->g) : "");
    if (set == 0) return fz_compare_outputs(R, R->ref, passes, in);
    if (fz_reference(R, 1, want) < 0) return fz_fail(R, "the reference program failed on fresh inputs: %s", tt_error(R->rc));
    if (fz_compare_outputs(R, want, passes, in)) return 1;
    if (p->check && !(passes & (TT_PASS_FOLD_BN | TT_PASS_FREEZE)) &&      /* the library's own checker agrees */
        !(FZ_AVOID_CHECK_DEAD_INPUT && (passes & TT_PASS_DCE) && p->live_inputs != (1u << p->n_inputs) - 1u)) {
        tt_check_report rep;
        memset(&rep, 0, sizeof rep);
        R->stage = "tt_graph_check";
        st = tt_graph_check(R->g, in, p->n_inputs, 0.0, 0.0, &rep);
        if (st != TT_OK) return fz_fail(R, "tt_graph_check failed: %s", tt_graph_error(R->g) ? tt_graph_error(R->g) : "");
        if (!rep.ok) return fz_fail(R, "tt_graph_check: %s", rep.message);
    }
    return 0;
}

/* Wrong calls that must fail cleanly with the status the README gives (a missing input,
   a wrong shape, a wrong dtype), after which the graph still runs. */
static int fz_check_misuse(fz_run *R, tt_tensor **traced_in, unsigned passes) {
    fz_prog *p = R->p;
    tt_tensor *in[FZ_MAX_INPUTS];
    int64_t s[TT_MAX_DIMS];
    tt_status st;
    int i, d, k = p->n_inputs - 1;
    R->stage = "misuse";
    for (i = 0; i < p->n_inputs; i++) in[i] = traced_in[i];
    st = tt_graph_run(R->g, in, k);
    if (st != TT_ERR_ARG) return fz_fail(R, "a run with %d of %d inputs gave %s, expected TT_ERR_ARG", k, k + 1, tt_status_str(st));
    tt_graph_clear_error(R->g);
    for (d = 0; d < p->in_ndim[k]; d++) s[d] = p->in_shape[k][d];
    s[0] = p->in_ndim[k] > 0 ? s[0] + 1 : 2;
    in[k] = tt_zeros(R->tc, TT_F32, p->in_ndim[k] > 0 ? p->in_ndim[k] : 1, s);
    st = tt_graph_run(R->g, in, p->n_inputs);
    if (st != TT_ERR_SHAPE) return fz_fail(R, "a run with input %d of the wrong shape gave %s, expected TT_ERR_SHAPE", k, tt_status_str(st));
    if (!tt_graph_error(R->g)) return fz_fail(R, "no message after a run with the wrong shape");
    tt_graph_clear_error(R->g);
    in[k] = tt_cast(R->tc, traced_in[k], TT_F16);
    st = tt_graph_run(R->g, in, p->n_inputs);
    if (st != TT_ERR_DTYPE) return fz_fail(R, "a run with input %d of dtype f16 gave %s, expected TT_ERR_DTYPE", k, tt_status_str(st));
    tt_graph_clear_error(R->g);
    R->stage = "run after misuse";
    return fz_run_graph(R, traced_in, 1, TT_MODE_DEFAULT, passes, false);
}

/* The printers on the compiled graph: sizes asked with NULL, then cut short, then whole. */
static int fz_check_reload(fz_run *R);

static int fz_check_print(fz_run *R) {
    char small[16], *buf;
    size_t n = tt_graph_str(R->g, NULL, 0), m = tt_graph_dot(R->g, NULL, 0), big = n > m ? n : m;
    R->stage = "printing";
    if (n < 2 || m < 2) return fz_fail(R, "tt_graph_str needs %zu bytes, tt_graph_dot %zu", n, m);
    if (tt_graph_str(R->g, small, sizeof small) != n || strlen(small) != (n < sizeof small ? n - 1 : sizeof small - 1))
        return fz_fail(R, "tt_graph_str into 16 bytes: not snprintf-like");
    buf = (char *)malloc(big);
    if (!buf) return 0;
    if (tt_graph_str(R->g, buf, n) != n || strlen(buf) != n - 1 || tt_graph_dot(R->g, buf, m) != m || strlen(buf) != m - 1) {
        free(buf);
        return fz_fail(R, "tt_graph_str / tt_graph_dot into the size they asked for");
    }
    free(buf);
    return 0;
}

/* The program as a tt_forward_fn, for tt_compiled_run. */
static int fz_forward(tt_ctx *ctx, tt_tensor *const *in, int n_in, tt_tensor **out, int max_out, void *user) {
    fz_run *R = (fz_run *)user;
    tt_tensor *vals[FZ_MAX_VALUES];
    int i, failed, n = fz_exec(R->p, ctx, R->wc, in, vals, false, &failed);
    (void)n_in;
    if (n < 0 || R->p->n_outputs > max_out) return -1;
    for (i = 0; i < R->p->n_outputs; i++) out[i] = vals[R->p->outputs[i]];
    return R->p->n_outputs;
}

/* tt_compiled_run: traces on the first call, reuses the graph on the second (same shapes). */
static int fz_check_compiled(fz_run *R) {
    fz_prog *p = R->p;
    tt_tensor *in[2][FZ_MAX_INPUTS], *want[FZ_MAX_VALUES];
    tt_compiled *cc = tt_compiled_create(fz_forward, R, p->mode, p->passes, 0);
    int i, s, k, bad = 0;
    R->stage = "tt_compiled_run";
    if (!cc) return fz_fail(R, "tt_compiled_create gave NULL");
    for (s = 0; s < 2; s++)
        for (i = 0; i < p->n_inputs; i++) in[s][i] = tt_from_data(R->tc, TT_F32, p->in_ndim[i], p->in_shape[i], R->data[1 - s][i]);
    for (s = 0; s < 2 && !bad; s++) {
        tt_status st = tt_compiled_run(cc, in[s], p->n_inputs);
        if (st != TT_OK) { bad = fz_fail(R, "tt_compiled_run %d: %s (%s)", s, tt_status_str(st), tt_compiled_error(cc)); break; }
        if (fz_reference(R, 1 - s, want) < 0) { bad = fz_fail(R, "the reference program failed: %s", tt_error(R->rc)); break; }
        for (k = 0; k < p->n_outputs && !bad; k++)
            bad = fz_compare(R, k, tt_compiled_output(cc, k), want[p->outputs[k]], p->passes, NULL);
    }
    if (!bad && tt_compiled_num_graphs(cc) != 1) bad = fz_fail(R, "%d graphs compiled for one set of shapes", tt_compiled_num_graphs(cc));
    tt_compiled_destroy(cc);
    return bad;
}

/* A valid program: trace, compile, run, compare. */
static int fz_check_valid(fz_run *R) {
    fz_prog *p = R->p;
    tt_tensor *in[FZ_MAX_INPUTS], *vals[FZ_MAX_VALUES], *outs[FZ_MAX_OUTPUTS];
    tt_status st;
    int i, n, failed;
    char name[8];
    R->stage = "trace";
    for (i = 0; i < p->n_inputs; i++)
        in[i] = fz_make_input(R->tc, p->in_ndim[i], p->in_shape[i], R->data[0][i], p->traced_strided ? 2u - (unsigned)i % 2u : 0u);
    tt_trace_begin(R->tc);
    for (i = 0; i < p->n_inputs; i++) {
        snprintf(name, sizeof name, "x%d", i);
        FZ_TRACE_INPUT(R->tc, in[i], name);
    }
    n = fz_exec(p, R->tc, R->wc, in, vals, false, &failed);
    for (i = 0; i < p->n_outputs; i++) outs[i] = n > 0 ? vals[p->outputs[i]] : NULL;
    R->g = tt_trace_end(R->tc, outs, p->n_outputs);
    if (n < 0) return fz_fail(R, "op %d failed while tracing but not eagerly: %s", failed, tt_error(R->tc));
    if (!R->g) return fz_fail(R, "tt_trace_end gave no graph: %s", tt_error(R->tc));
    /* eager under the trace, with other threads, is the reference bit for bit */
    R->stage = "eager while tracing";
    for (i = 0; i < p->n_outputs && !(p->traced_strided && p->has_gemm); i++) {   /* a GEMM on a strided input
                                                                                      sums in another order */
        fz_cmp exact;
        int64_t d;
        exact.zero_sign = false; exact.approx = false;
        d = fz_first_diff(outs[i], R->ref[p->outputs[i]], &exact);
        if (d != -1) return fz_fail(R, "eager output %d differs from the 1-thread reference at element %lld", i, (long long)d);
    }
    R->stage = "compile";
    st = tt_graph_compile(R->g, p->mode, p->passes);
    if (st != TT_OK) return fz_fail(R, "tt_graph_compile: %s", tt_graph_error(R->g));
    R->frozen = (p->passes & TT_PASS_FREEZE) != 0;
    {
        tt_graph_stats gs = tt_graph_get_stats(R->g);
        if (gs.fused_nodes > 0) fz_stat.fused_graphs++;
        if (gs.max_fused_ops > fz_stat.max_fused_ops) fz_stat.max_fused_ops = gs.max_fused_ops;
    }
    if (p->poison) tt_graph_set_debug(R->g, TT_DEBUG_POISON);
    R->stage = "run on the traced inputs";
    if (fz_run_graph(R, in, 0, p->mode, p->passes, false)) return 1;
    R->stage = "run on fresh inputs";
    if (fz_run_graph(R, in, 1, p->mode, p->passes, true)) return 1;
    if (fz_check_reload(R)) return 1;
    if (p->print && fz_check_print(R)) return 1;
    if (p->misuse && fz_check_misuse(R, in, p->passes)) return 1;
    if (p->passes2) {
        R->stage = "recompile";
        st = tt_graph_compile(R->g, p->mode2, p->passes2);
        if (st != TT_OK) return fz_fail(R, "tt_graph_compile (again): %s", tt_graph_error(R->g));
        R->frozen = R->frozen || (p->passes2 & TT_PASS_FREEZE);
        R->stage = "run after recompiling";
        if (fz_run_graph(R, in, 1, p->mode2, p->passes2, false)) return 1;
        if (p->third_compile) {                        /* and back to the first settings */
            R->stage = "third compile";
            st = tt_graph_compile(R->g, p->mode, p->passes);
            if (st != TT_OK) return fz_fail(R, "tt_graph_compile (third): %s", tt_graph_error(R->g));
            R->stage = "run after the third compile";
            if (fz_run_graph(R, in, 1, p->mode, p->passes, false)) return 1;
        }
    }
    if (p->compiled_api && fz_check_compiled(R)) return 1;
    return 0;
}

/* The compiled graph saved (.ttg) and loaded again runs bit for bit like it, on fresh inputs. */
static int fz_check_reload(fz_run *R) {
    fz_prog *p = R->p;
    tt_tensor *in[FZ_MAX_INPUTS];
    size_t n = tt_graph_save_memory(R->g, NULL, 0);
    unsigned char *bytes = (unsigned char *)malloc(n ? n : 1);
    tt_graph *lg = NULL;
    fz_cmp exact;
    int i, bad = 0;
    R->stage = "saved and loaded again";
    exact.zero_sign = false;
    exact.approx = false;
    if (n == 0 || !bytes || tt_graph_save_memory(R->g, bytes, n) != n) bad = fz_fail(R, "tt_graph_save_memory: %s", tt_graph_error(R->g));
    if (!bad && !(lg = tt_graph_load_memory(R->tc, bytes, n))) bad = fz_fail(R, "tt_graph_load_memory: %s", tt_error(R->tc));
    for (i = 0; i < p->n_inputs && !bad; i++) in[i] = fz_make_input(R->tc, p->in_ndim[i], p->in_shape[i], R->data[1][i], 0u);
    if (!bad && (tt_graph_run(R->g, in, p->n_inputs) != TT_OK || tt_graph_run(lg, in, p->n_inputs) != TT_OK))
        bad = fz_fail(R, "run: %s / %s", tt_graph_error(R->g) ? tt_graph_error(R->g) : "ok", tt_graph_error(lg) ? tt_graph_error(lg) : "ok");
    for (i = 0; i < p->n_outputs && !bad; i++)
        if (fz_first_diff(tt_graph_output(lg, i), tt_graph_output(R->g, i), &exact) != -1)
            bad = fz_fail(R, "output %d of the loaded graph differs from the saved graph's", i);
    fz_stat.reloaded += !bad;
    tt_graph_destroy(lg);
    free(bytes);
    return bad;
}

/* An invalid program: eager failed with an error; tracing it must give no graph. */
static int fz_check_invalid(fz_run *R) {
    fz_prog *p = R->p;
    tt_tensor *in[FZ_MAX_INPUTS], *vals[FZ_MAX_VALUES], *outs[FZ_MAX_OUTPUTS];
    int i, n, failed;
    R->stage = "invalid program, eager";
    if (tt_ctx_status(R->rc) == TT_OK || !tt_error(R->rc))
        return fz_fail(R, "op %d returned NULL without an error in the context", p->failed_op);
    R->stage = "invalid program, traced";
    for (i = 0; i < p->n_inputs; i++) in[i] = tt_from_data(R->tc, TT_F32, p->in_ndim[i], p->in_shape[i], R->data[0][i]);
    tt_trace_begin(R->tc);
    for (i = 0; i < p->n_inputs; i++) FZ_TRACE_INPUT(R->tc, in[i], "x");
    n = fz_exec(p, R->tc, R->wc, in, vals, false, &failed);
    for (i = 0; i < p->n_outputs; i++) outs[i] = in[0];   /* whatever the program would have returned */
    if (n >= 0) outs[0] = vals[n - 1];
    R->g = tt_trace_end(R->tc, outs, p->n_outputs);
    if (n >= 0) return fz_fail(R, "the program failed eagerly (op %d: %s) but not while tracing", p->failed_op, tt_error(R->rc));
    if (failed != p->failed_op) return fz_fail(R, "op %d failed eagerly but op %d while tracing", p->failed_op, failed);
    if (R->g) return fz_fail(R, "tt_trace_end gave a graph for a trace whose op %d failed", failed);
    if (tt_ctx_status(R->tc) == TT_OK) return fz_fail(R, "the trace failed without an error in the context");
    return 0;
}

/* Contexts with guard regions: ASan does not see a kernel that writes past its tensor into
   the same arena block, the guards do (checked at the end of every program). */
static tt_ctx *fz_ctx(int n_threads) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.n_threads = n_threads;
    d.debug_guards = 1;
    return tt_ctx_create(&d);
}

static int fz_ops_one(const uint8_t *data, size_t size) {
    fz_prog *p = (fz_prog *)calloc(1, sizeof(fz_prog));
    fz_run R;
    int i, n, failed, bad = 0;
    if (!p) return 0;
    if (fz_verbose < 0) fz_verbose = getenv("FZ_VERBOSE") ? atoi(getenv("FZ_VERBOSE")) : 0;
    memset(&R, 0, sizeof R);
    fz_decode(p, data, size);
    fz_tame = p->tame;
    if (fz_verbose > 0) {
        printf("program: %d inputs:", p->n_inputs);
        for (i = 0; i < p->n_inputs; i++) {
            int d;
            printf(" [");
            for (d = 0; d < p->in_ndim[i]; d++) printf("%s%lld", d ? "," : "", (long long)p->in_shape[i][d]);
            printf("]");
        }
        printf(", %d threads, mode %s, ", p->n_threads, fz_mode_name(p->mode));
        fz_print_passes(p->passes);
    }
    R.p = p;
    R.wc = fz_ctx(1);
    R.rc = fz_ctx(1);
    R.tc = fz_ctx(p->n_threads);
    for (i = 0; i < p->n_inputs; i++) {
        int64_t ne = fz_numel(p->in_ndim[i], p->in_shape[i]);
        int s;
        for (s = 0; s < 2; s++) {
            R.data[s][i] = (float *)malloc(sizeof(float) * (size_t)(ne > 0 ? ne : 1));
            if (R.data[s][i]) fz_fill(R.data[s][i], ne, p->seed * 4u + (uint32_t)i * 2u + (uint32_t)s + 1u, p->specials);
        }
    }
    fz_stat.programs++;
    if (R.wc && R.rc && R.tc) {
        tt_tensor *in[FZ_MAX_INPUTS];
        for (i = 0; i < p->n_inputs; i++) in[i] = tt_from_data(R.rc, TT_F32, p->in_ndim[i], p->in_shape[i], R.data[0][i]);
        n = fz_exec(p, R.rc, R.wc, in, R.ref, true, &failed);
        if (n < 0) {
            p->failed_op = failed;
            R.n_ref = p->n_inputs + failed;
            for (i = 0; i < p->n_outputs; i++) p->outputs[i] = -1;
            fz_stat.invalid++;
            bad = fz_check_invalid(&R);
        } else {
            R.n_ref = n;
            p->outputs[0] = n - 1;                     /* the last value, and 0-2 picks */
            for (i = 1; i < p->n_outputs; i++) p->outputs[i] = (int)(p->out_pick[i] % (unsigned)n);
            for (i = 0; i < p->n_outputs; i++) p->live_inputs |= p->dep[p->outputs[i]];
            if (FZ_AVOID_EPILOGUE_NON_F32 && p->has_gemm && p->has_non_f32 && ((p->passes | p->passes2) & TT_PASS_EPILOGUE)) {
                fz_stat.epilogue_dropped++;
                p->passes &= ~(unsigned)TT_PASS_EPILOGUE;
                p->passes2 &= ~(unsigned)TT_PASS_EPILOGUE;
            }
            fz_stat.valid++;
            if (fz_verbose > 0) {
                printf("  outputs:");
                for (i = 0; i < p->n_outputs; i++) printf(" v%d", p->outputs[i]);
                printf("; fresh inputs %s; poison %d, check %d\n", p->fresh_strided ? "strided" : "contiguous", p->poison, p->check);
                if (p->passes2) { printf("  then mode %s, ", fz_mode_name(p->mode2)); fz_print_passes(p->passes2); }
                fflush(stdout);
            }
            bad = fz_check_valid(&R);
            if (!bad && p->shape_wrong >= 0) {
                R.stage = "shape";
                bad = fz_fail(&R, "op %d: %s", p->shape_wrong, p->shape_msg);
            }
            if (!bad && p->bad_accepted >= 0) {
                R.stage = "invalid argument";
                bad = fz_fail(&R, "op %d was given an invalid argument but succeeded", p->bad_accepted);
            }
        }
        if (!bad) {
            tt_ctx *cs[3];
            const char *names[3] = {"weights", "reference", "traced"};
            cs[0] = R.wc; cs[1] = R.rc; cs[2] = R.tc;
            R.stage = "guard regions";
            for (i = 0; i < 3 && !bad; i++)
                if (!tt_ctx_check_guards(cs[i])) bad = fz_fail(&R, "%s context: %s", names[i], tt_error(cs[i]));
        }
    }
    tt_graph_destroy(R.g);
    tt_ctx_destroy(R.tc);
    tt_ctx_destroy(R.rc);
    tt_ctx_destroy(R.wc);
    for (i = 0; i < p->n_inputs; i++) { free(R.data[0][i]); free(R.data[1][i]); }
    free(p);
    return bad;
}

#ifdef TT_LIBFUZZER
#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fz_ops_one(data, size)) abort();
    return 0;
}
#endif
