/* fuzz_args.c - random hostile arguments to every public function of tinytrace.h.

   A byte string becomes a sequence of up to FZ_MAX_CALLS calls. Each call is a row of
   fz_fns (public function name + a caller); the caller decodes its arguments from the
   bytes, drawing from pools of hostile and normal values: three contexts (heap, heap with
   two threads, a small user buffer that runs out) and NULL; tensors of every dtype and
   layout (transposed, strided, expanded with stride 0, offset, flipped copies), results of
   earlier calls, tensors of other contexts, graph outputs and NULL; integers, floats and
   arrays from the edges of their ranges. After every call the invariants are checked:

   - a call that reported failure left an error ("tt_...", NUL-terminated, < 256 bytes)
     in the context, graph or compiled function it reports to (unless it was handed a
     NULL pointer, which fails silently by design), and every error anywhere is well-formed;
   - non-NULL tensor results have sane headers and can be read;
   - the guard regions of every context are intact (debug_guards = 1);
   - after tt_clear_error a context still adds two small tensors correctly;
   - at the end everything is destroyed and every byte of the capped heap came back.
   The sanitizers catch crashes and undefined behaviour; LeakSanitizer the rest.

   Every sequence starts with a traced graph and a compiled function (fz_prelude), so the
   graph calls have something to work on; a "flow" row (tt_trace_begin) traces a small
   model: the next few calls are eager ops on the tracing context, then its tt_trace_end.

   fz_args_one(data, size) returns 0 when every invariant held, 1 otherwise (and prints
   which call broke which invariant). Built with -DTT_LIBFUZZER it is a libFuzzer target:
       clang -std=c11 -O1 -g -DTT_LIBFUZZER -fsanitize=fuzzer,address,undefined \
             -fno-sanitize-recover=all tests/fuzz_args.c -o fuzz_args -lm -lpthread
       ./fuzz_args -max_len=1024 corpus/
   FZ_VERBOSE=1 in the environment prints one line per call (turning a crash file into a
   reproducer); -DFZ_AVOID_HUGE_EMPTY steers long campaigns around one known bug class
   (see fz_avoid_huge_empty). tests/test_fuzz_args.c runs a fixed-seed slice in the suite.

   The fuzzer respects the API's own contract: arrays are never shorter than the count
   passed (fixed buffers of 16), tensors are not used after their scope or graph run
   ended, user memory given to tt_wrap stays alive. Everything else is fair game. */
#ifdef TT_LIBFUZZER
#define TINYTRACE_IMPLEMENTATION
#endif
#include "../tinytrace.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <unistd.h>
#define FZ_HAVE_DUP 1          /* tt_print's output goes to /dev/null */
#endif

#define FZ_MAX_CALLS   30
#define FZ_NCTX        3           /* A: heap; B: heap, 2 threads; U: a small user buffer */
#define FZ_POOL        48          /* tensors kept for later calls */
#define FZ_GRAPHS      3
#define FZ_CCS         2
#define FZ_SCOPES      8
#define FZ_WRAPS       8
#define FZ_ARR         16          /* every array argument has this many entries */
#define FZ_MAX_NUMEL   4096        /* elements of a fresh tensor */
#define FZ_POOL_NUMEL  (1 << 16)   /* bigger results are checked but not reused (no legit hour-long ops) */
#define FZ_READ_NUMEL  (1 << 16)   /* results up to this size are read back */
#define FZ_HEAP_CAP    ((size_t)64 << 20)
#define FZ_BUF_BYTES   (4 * FZ_MAX_NUMEL * 4 + 64)

/* Dependency bits: what a tensor's memory (or a graph's parameters) belongs to. */
#define FZ_DEP_CTX(k)  (1u << (k))
#define FZ_DEP_G(i)    (1u << (FZ_NCTX + (i)))
#define FZ_DEP_CC(i)   (1u << (FZ_NCTX + FZ_GRAPHS + (i)))

/* ==========================================================================
 * Bytes and value pools
 * ========================================================================== */
typedef struct fz_in { const uint8_t *p; size_t n, i; } fz_in;

/* The next byte; 0 once the input is used up (so every decoder is total). */
static unsigned fz_byte(fz_in *in) { return in->i < in->n ? in->p[in->i++] : 0u; }
static unsigned fz_u16(fz_in *in) { unsigned hi = fz_byte(in); return hi << 8 | fz_byte(in); }
static bool fz_bool(fz_in *in) { return (fz_byte(in) & 1u) != 0; }

#define FZ_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const int64_t fz_hostile_i64[] = {
    0, 1, -1, 2, INT_MAX, INT_MIN, INT64_MAX, INT64_MIN, INT64_MAX / 2, (int64_t)1 << 31,
    (int64_t)1 << 40, -((int64_t)1 << 31), (int64_t)1 << 32, (int64_t)1 << 20, -7, 4097,
    (int64_t)1 << 59, ((int64_t)1 << 59) + 1, -INT64_MAX };
static const int fz_hostile_int[] = {
    0, 1, -1, INT_MAX, INT_MIN, INT_MAX / 2, -INT_MAX, 1 << 30, 9, -9, 8, -8, 1000, 65536 };
static const float fz_hostile_f32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, NAN, INFINITY, -INFINITY, 1e38f, -1e38f, FLT_MAX, FLT_MIN,
    1e-40f, -1e-45f, 1e-7f, 20.5f, -88.5f, 0.5f, 65520.0f };
static const double fz_hostile_f64[] = {
    0.0, -0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, 1e38, -1e38, 1e300, DBL_MAX, DBL_MIN / 4,
    1e-310, 0.5, 1e15, 1e16, -3.0, 4.5 };
/* Dtypes past the valid ones; C++ only allows values inside the enum's range (0..7). */
#ifdef __cplusplus
static const int fz_bad_dtypes[] = { 5, 6, 7 };
static const int fz_bad_modes[] = { 3 };
static const int fz_statuses[] = { 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -16, 1, 15 };
#else
static const int fz_bad_dtypes[] = { 5, 6, 7, -1, 1000, INT_MIN };
static const int fz_bad_modes[] = { 3, -1, 99, INT_MIN };
static const int fz_statuses[] = { 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, 1, 1000, INT_MIN };
#endif
/* Sizes of fresh tensors: small, often 1 (broadcasting), sometimes 0 (empty). */
static const int64_t fz_dims[] = { 1, 2, 3, 1, 2, 4, 0, 5 };

/* Mostly small values (to reach the code past the checks), sometimes a hostile one. */
static int64_t fz_i64(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 160 ? (int64_t)(b % 10) - 1 : fz_hostile_i64[b % FZ_LEN(fz_hostile_i64)];
}
static int fz_int(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 170 ? (int)(b % 12) - 3 : fz_hostile_int[b % FZ_LEN(fz_hostile_int)];
}
/* A small setting that is usually valid (a stride, a kernel size: base..base+1), sometimes any int. */
static int fz_small(fz_in *in, int base) {
    unsigned b = fz_byte(in);
    return b < 192 ? base + (int)(b % 2) : fz_int(in);
}
/* An axis: usually in or near range of a small tensor. */
static int fz_axis(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 200 ? (int)(b % 11) - 5 : fz_hostile_int[b % FZ_LEN(fz_hostile_int)];
}
/* A size argument of a shape: small, or a hostile int64. */
static int64_t fz_dim(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 224 ? (int64_t)(b % 6) : fz_hostile_i64[b % FZ_LEN(fz_hostile_i64)];
}
/* A count that goes with an array of FZ_ARR entries: never more than FZ_ARR. */
static int fz_count(fz_in *in) {
    static const int odd[] = { -1, INT_MIN, 0, 8, 9, FZ_ARR, -2 };
    unsigned b = fz_byte(in);
    return b < 200 ? (int)(b % 5) : odd[b % FZ_LEN(odd)];
}
/* ndim of a shape argument: 0..9 and negative. */
static int fz_ndim(fz_in *in) {
    static const int odd[] = { -1, INT_MIN, 9, FZ_ARR, 0, 8 };
    unsigned b = fz_byte(in);
    return b < 200 ? (int)(b % 6) : odd[b % FZ_LEN(odd)];
}
static float fz_f32(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 128 ? (float)((int)(b % 9) - 4) * 0.5f : fz_hostile_f32[b % FZ_LEN(fz_hostile_f32)];
}
static double fz_f64(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 128 ? (double)((int)(b % 13) - 6) * 0.75 : fz_hostile_f64[b % FZ_LEN(fz_hostile_f64)];
}
static tt_dtype fz_dtype(fz_in *in) {
    unsigned b = fz_byte(in);
    return (tt_dtype)(b < 224 ? (int)(b % 5) : fz_bad_dtypes[b % FZ_LEN(fz_bad_dtypes)]);
}
/* The dtype of an argument that should fit: mostly f32. */
static tt_dtype fz_fit_dtype(fz_in *in) {
    unsigned b = fz_byte(in);
    return b < 192 ? TT_F32 : (tt_dtype)(b % 5);
}
/* Modes and pass bits the library knows (anything else must be refused). */
static bool fz_compile_args_ok(tt_mode mode, unsigned passes) {
    return (int)mode >= 0 && (int)mode <= (int)TT_MODE_MAX_AUTOTUNE &&
           (passes & ~((unsigned)TT_PASS_ALL | (unsigned)TT_PASS_FREEZE)) == 0;
}
static tt_mode fz_mode(fz_in *in) {
    unsigned b = fz_byte(in);
    return (tt_mode)(b < 224 ? (int)(b % 3) : fz_bad_modes[b % FZ_LEN(fz_bad_modes)]);
}
/* Pass bits: all, none, a few, FREEZE, and bits no pass owns. */
static unsigned fz_passes(fz_in *in) {
    static const unsigned odd[] = { TT_PASS_ALL, 0u, TT_PASS_ALL | TT_PASS_FREEZE, 0xFFFFFFFFu,
                                    TT_PASS_FUSE, TT_PASS_FUSE | TT_PASS_EPILOGUE, 1u << 20,
                                    TT_PASS_FOLD_BN | TT_PASS_FREEZE | TT_PASS_CONST_FOLD };
    unsigned b = fz_byte(in);
    return b < 128 ? odd[b % FZ_LEN(odd)] : (fz_u16(in) | (b & 0x40u ? (unsigned)TT_PASS_FREEZE : 0u));
}

/* ==========================================================================
 * A heap with a cap, so huge requests become clean OOM errors, not real allocations;
 * it also counts live bytes, so the end can check that everything came back.
 * ========================================================================== */
typedef struct fz_heap { size_t live, cap; } fz_heap;

#define FZ_HDR 16                  /* keeps malloc's 16-byte alignment */

static void *fz_heap_alloc(size_t size, void *user) {
    fz_heap *h = (fz_heap *)user;
    unsigned char *p;
    if (size > h->cap - h->live) return NULL;
    p = (unsigned char *)calloc(1, size + FZ_HDR);    /* zeroed: tt_empty results are read back */
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    h->live += size;
    return p + FZ_HDR;
}

static void fz_heap_free(void *ptr, void *user) {
    fz_heap *h = (fz_heap *)user;
    unsigned char *p = (unsigned char *)ptr - FZ_HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    h->live -= size;
    free(p);
}

/* ==========================================================================
 * The state of one sequence
 * ========================================================================== */
typedef struct fz_ref { tt_tensor *t; unsigned deps, born; } fz_ref;
/* A recorded scope; dead once an older scope of its context ended. */
typedef struct fz_scope_rec { tt_scope s; int k; unsigned born; bool dead; } fz_scope_rec;
typedef struct fz_meta { tt_dtype dtype; int ndim; int64_t shape[TT_MAX_DIMS]; } fz_meta;
typedef struct fz_graph { tt_graph *g; unsigned deps; bool stale; int n_in; fz_meta in[8]; } fz_graph;

typedef struct fz {
    fz_in         in;
    fz_heap       heap;
    tt_ctx       *ctx[FZ_NCTX];
    unsigned char *ubuf;           /* U's memory */
    size_t        ubuf_size;
    tt_ctx       *checker;         /* reads results back; never fuzzed */
    fz_ref        pool[FZ_POOL];
    int           n_pool;
    fz_scope_rec  scopes[FZ_SCOPES];
    int           n_scopes;
    fz_graph      graphs[FZ_GRAPHS];
    tt_compiled  *cc[FZ_CCS];
    unsigned      trace_deps[FZ_NCTX];      /* what the running trace of a context may read */
    unsigned      trace_clock[FZ_NCTX];     /* when it began */
    int           n_trace_in[FZ_NCTX];
    fz_meta       trace_in[FZ_NCTX][8];     /* its inputs, to make fitting graph inputs */
    void         *wraps[FZ_WRAPS];
    int           n_wraps;
    unsigned      clock;           /* birth order of tensors and scopes */
    const char   *call;            /* the public function being called */
    int           aux;             /* the operand index of its table row */
    int           step;
    int           failures;
    bool          verbose;
    int           flow_k, flow_left;        /* a traced model in progress on context flow_k */
    unsigned      flow_clock;
    tt_tensor    *flow_x[2];
    int           flow_n_in;
    fz_meta       flow_in[2];
    unsigned char buf[FZ_BUF_BYTES];
} fz;

/* What a call returned and where a failure must have been reported. */
typedef enum fz_kind { FZ_NONE, FZ_PTR, FZ_STATUS, FZ_COUNT } fz_kind;
typedef struct fz_res {
    fz_kind      kind;
    const void  *p;                /* FZ_PTR: NULL is failure */
    tt_status    st;               /* FZ_STATUS: not TT_OK is failure */
    int          n;                /* FZ_COUNT: negative is failure */
    tt_tensor   *t;                /* a tensor result to check and keep */
    tt_ctx      *ctx;              /* where the failure is reported (one of these three) */
    tt_graph    *g;
    tt_compiled *cc;
    bool         null_arg;         /* a required pointer was NULL: failing silently is fine */
    bool         must_fail;        /* the arguments are wrong for sure */
    unsigned     deps;             /* what the arguments (and so a result) depend on */
} fz_res;

static void fz_fail(fz *f, const char *what, const char *detail) {
    f->failures++;
    printf("fuzz_args: call %d %s: %s%s%s\n", f->step, f->call ? f->call : "(setup)", what,
           detail ? ": " : "", detail ? detail : "");
    fflush(stdout);
}

static int fz_k(const fz *f, const tt_ctx *c) {
    int k;
    for (k = 0; k < FZ_NCTX; k++) if (c && f->ctx[k] == c) return k;
    return -1;
}

/* A context argument: one of the three, or NULL. */
static tt_ctx *fz_ctx(fz *f, fz_res *r) {
    static const int pick[8] = { 0, 0, 0, 1, 1, 2, 2, -1 };
    unsigned b = fz_byte(&f->in);
    int k = f->flow_k >= 0 && b < 224 ? f->flow_k : pick[b % 8];
    r->ctx = k < 0 ? NULL : f->ctx[k];
    return r->ctx;
}

/* A context for the tracing calls: the one that traces, usually. */
static tt_ctx *fz_ctx_tracing(fz *f, fz_res *r) {
    int k;
    if (fz_byte(&f->in) < 192)
        for (k = 0; k < FZ_NCTX; k++) if (tt_is_tracing(f->ctx[k])) return r->ctx = f->ctx[k];
    return fz_ctx(f, r);
}

/* Runs setup calls (not the fuzzed call) without leaving their errors behind. */
static bool fz_quiet_begin(tt_ctx *c) { return tt_ctx_status(c) == TT_OK; }
static void fz_quiet_end(tt_ctx *c, bool was_clean) { if (was_clean) tt_clear_error(c); }

/* ==========================================================================
 * The tensor pool
 * ========================================================================== */
static void fz_keep(fz *f, tt_tensor *t, unsigned deps) {
    int slot;
    if (!t || t->numel < 0 || t->numel > FZ_POOL_NUMEL) return;
    slot = f->n_pool < FZ_POOL ? f->n_pool++ : (int)(f->clock % FZ_POOL);
    f->pool[slot].t = t;
    f->pool[slot].deps = deps;
    f->pool[slot].born = ++f->clock;
}

/* Memory behind `bit` went away (or, with frees false, results were replaced): pool
   entries born after `since` go, and with frees graphs that may read it go stale. */
static void fz_kill(fz *f, unsigned bit, unsigned since, bool frees) {
    int i, j = 0;
    for (i = 0; i < f->n_pool; i++)
        if (!(f->pool[i].deps & bit) || f->pool[i].born <= since) f->pool[j++] = f->pool[i];
    f->n_pool = j;
    for (i = 0; frees && i < FZ_GRAPHS; i++)
        if (f->graphs[i].deps & bit) f->graphs[i].stale = true;
}

static void fz_put(unsigned char *buf, tt_dtype dt, int64_t i, float v, int32_t iv) {
    uint16_t h;
    uint8_t b;
    switch (dt) {
    case TT_F32:  memcpy(buf + 4 * i, &v, 4); break;
    case TT_F16:  h = tt_f32_to_f16(v); memcpy(buf + 2 * i, &h, 2); break;
    case TT_BF16: h = tt_f32_to_bf16(v); memcpy(buf + 2 * i, &h, 2); break;
    case TT_I32:  memcpy(buf + 4 * i, &iv, 4); break;
    default:      b = (uint8_t)(iv & 1); buf[i] = b; break;
    }
}

/* n elements of dt into f->buf: mostly small values (indices 0..4), sometimes hostile. */
static void fz_fill(fz *f, tt_dtype dt, int64_t n) {
    static const int32_t odd_i32[] = { -1, INT_MIN, INT_MAX, 1000, -5, 5 };
    uint32_t s = fz_u16(&f->in) * 2654435761u + 1u;
    unsigned hostile = fz_byte(&f->in) % 4;          /* 0: none; else about 1 in 2^(6-hostile) */
    int64_t i;
    for (i = 0; i < n; i++) {
        float v;
        int32_t iv;
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        v = (float)((int)(s % 17) - 8) * 0.25f;
        iv = (int32_t)(s % 5);
        if (hostile && ((s >> 8) & ((1u << (6 - hostile)) - 1)) == 0) {
            v = fz_hostile_f32[(s >> 16) % FZ_LEN(fz_hostile_f32)];
            iv = odd_i32[(s >> 16) % FZ_LEN(odd_i32)];
        }
        fz_put(f->buf, dt, i, v, iv);
    }
}

static int64_t fz_numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    int i;
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) return -1;
        if (shape[i] && n > INT64_MAX / shape[i]) return -1;
        n *= shape[i];
    }
    return n;
}

/* Layouts of a fresh tensor with a given shape: the base that is made, then the view. */
enum { FZ_L_CONTIG, FZ_L_TRANSPOSED, FZ_L_STRIDED, FZ_L_EXPANDED, FZ_L_OFFSET, FZ_L_FLIPPED, FZ_L_COUNT };

static tt_tensor *fz_view_of(tt_ctx *c, tt_tensor *base, int layout, int ndim, const int64_t *shape) {
    int zero = 0;
    switch (layout) {
    case FZ_L_TRANSPOSED: return tt_transpose(c, base, -1, -2);
    case FZ_L_STRIDED:    return tt_slice(c, base, -1, 0, 2 * shape[ndim - 1], 2);
    case FZ_L_EXPANDED:   return tt_expand(c, base, ndim, shape);
    case FZ_L_OFFSET:     return tt_slice(c, base, 0, 1, shape[0] + 1, 1);
    case FZ_L_FLIPPED:    return tt_flip(c, base, &zero, 1);
    default:              return base;
    }
}

/* A new tensor of dtype dt and the given shape in context k, in a random layout; NULL when
   the shape is too big or the context is out of memory. Kept in the pool. */
static tt_tensor *fz_fresh(fz *f, int k, tt_dtype dt, int ndim, const int64_t *shape) {
    int64_t base[TT_MAX_DIMS];
    int layout = (int)(fz_byte(&f->in) % FZ_L_COUNT), i;
    int64_t n = fz_numel(ndim, shape);
    tt_ctx *c = f->ctx[k];
    tt_tensor *t;
    bool clean;
    if (ndim < 0 || ndim > TT_MAX_DIMS || n < 0 || n > FZ_MAX_NUMEL || (int)dt < 0 || (int)dt >= TT_DTYPE_COUNT)
        return NULL;
    if (ndim < (layout == FZ_L_TRANSPOSED ? 2 : 1)) layout = FZ_L_CONTIG;
    for (i = 0; i < ndim; i++) base[i] = shape[i];
    if (layout == FZ_L_TRANSPOSED) { base[ndim - 1] = shape[ndim - 2]; base[ndim - 2] = shape[ndim - 1]; }
    if (layout == FZ_L_STRIDED) base[ndim - 1] = 2 * shape[ndim - 1];
    if (layout == FZ_L_EXPANDED) base[0] = 1;
    if (layout == FZ_L_OFFSET) base[0] = shape[0] + 1;
    if (fz_numel(ndim, base) < 0 || fz_numel(ndim, base) > 4 * FZ_MAX_NUMEL) return NULL;  /* [0, 2^40] offset */
    fz_fill(f, dt, fz_numel(ndim, base));
    clean = fz_quiet_begin(c);
    t = tt_from_data(c, dt, ndim, base, f->buf);
    if (t && layout != FZ_L_CONTIG) t = fz_view_of(c, t, layout, ndim, shape);
    fz_quiet_end(c, clean);
    fz_keep(f, t, FZ_DEP_CTX(k));
    return t;
}

/* A random small shape, or one related to a pool tensor (same, last two swapped,
   reversed, one axis 1, first axis dropped, an axis prepended). */
static int fz_shape_for_fresh(fz *f, int64_t *shape) {
    unsigned b = fz_byte(&f->in);
    int ndim, i, j;
    if (b >= 96 && f->n_pool) {
        const tt_tensor *l = f->pool[fz_byte(&f->in) % (unsigned)f->n_pool].t;
        ndim = l->ndim;
        for (i = 0; i < ndim; i++) shape[i] = l->shape[i];
        j = ndim ? (int)(fz_byte(&f->in) % (unsigned)ndim) : 0;
        switch (b % 6) {
        case 1: if (ndim >= 2) { shape[ndim - 1] = l->shape[ndim - 2]; shape[ndim - 2] = l->shape[ndim - 1]; } break;
        case 2: for (i = 0; i < ndim; i++) shape[i] = l->shape[ndim - 1 - i]; break;
        case 3: if (ndim) shape[j] = 1; break;
        case 4: if (ndim) { for (i = 1; i < ndim; i++) shape[i - 1] = shape[i]; ndim--; } break;
        case 5: if (ndim < TT_MAX_DIMS) { for (i = ndim; i > 0; i--) shape[i] = shape[i - 1]; shape[0] = 2; ndim++; } break;
        default: break;
        }
        if (fz_numel(ndim, shape) >= 0 && fz_numel(ndim, shape) <= FZ_MAX_NUMEL) return ndim;
    }
    ndim = b < 224 ? (int)(b % 5) : (int)(b % 9);
    for (i = 0; i < ndim; i++) {
        shape[i] = fz_dims[fz_byte(&f->in) % FZ_LEN(fz_dims)];
        if (fz_numel(i + 1, shape) > FZ_MAX_NUMEL / 8) shape[i] = 1;
    }
    return ndim;
}

/* The context of a fresh argument: usually the call's own (k), sometimes another one. */
static int fz_fresh_k(fz *f, int k) {
    unsigned b = fz_byte(&f->in);
    return k >= 0 && b < 192 ? k : (int)(b % FZ_NCTX);
}

/* A tensor argument: NULL, an earlier one, or a fresh one. */
static tt_tensor *fz_t(fz *f, fz_res *r, int k) {
    unsigned b = fz_byte(&f->in);
    int64_t shape[TT_MAX_DIMS];
    tt_tensor *t;
    int kk;
    if (b < 16) { r->null_arg = true; return NULL; }
    if (b < 128 && f->n_pool) {
        const fz_ref *e = &f->pool[fz_byte(&f->in) % (unsigned)f->n_pool];
        r->deps |= e->deps;
        return e->t;
    }
    kk = fz_fresh_k(f, k);
    t = fz_fresh(f, kk, fz_dtype(&f->in), fz_shape_for_fresh(f, shape), shape);
    if (!t) r->null_arg = true;
    r->deps |= FZ_DEP_CTX(kk);
    return t;
}

/* A pool tensor of context k born before (after: born after) `clock`, else any argument:
   trace inputs must come from before the trace, outputs from inside it. */
static tt_tensor *fz_t_born(fz *f, fz_res *r, int k, unsigned clock, bool after) {
    int i, n = 0, pick[FZ_POOL];
    for (i = 0; k >= 0 && i < f->n_pool; i++)
        if (f->pool[i].t->ctx == f->ctx[k] && (after ? f->pool[i].born > clock : f->pool[i].born < clock)) pick[n++] = i;
    if (!n || fz_byte(&f->in) < 48) return fz_t(f, r, k);
    i = pick[n - 1 - (int)(fz_byte(&f->in) % (unsigned)(n < 3 ? n : 3))];   /* one of the newest three */
    r->deps |= f->pool[i].deps;
    return f->pool[i].t;
}

/* An optional tensor argument (bias, weight, mask): NULL is legal there. */
static tt_tensor *fz_t_opt(fz *f, fz_res *r, int k) {
    bool before = r->null_arg;
    tt_tensor *t = fz_t(f, r, k);
    r->null_arg = before;
    return t;
}

/* A tensor that should fit a shape (a weight for x), of dtype dt (< 0: mostly f32):
   usually exactly that, in a random layout; sometimes anything, so that mismatches stay
   in play. */
static tt_tensor *fz_t_fit_dt(fz *f, fz_res *r, int k, int dt, int ndim, const int64_t *shape, bool optional) {
    int kk;
    tt_tensor *t;
    if (fz_byte(&f->in) < 48) return optional ? fz_t_opt(f, r, k) : fz_t(f, r, k);
    kk = fz_fresh_k(f, k);
    t = fz_fresh(f, kk, dt < 0 ? fz_fit_dtype(&f->in) : (tt_dtype)dt, ndim, shape);
    if (!t && !optional) r->null_arg = true;
    r->deps |= FZ_DEP_CTX(kk);
    return t;
}

static tt_tensor *fz_t_fit(fz *f, fz_res *r, int k, int ndim, const int64_t *shape, bool optional) {
    return fz_t_fit_dt(f, r, k, -1, ndim, shape, optional);
}

/* The same with the shape given as up to four sizes. */
static tt_tensor *fz_t_fit4(fz *f, fz_res *r, int k, int ndim, int64_t a, int64_t b, int64_t c, int64_t d, bool optional) {
    int64_t s[4];
    s[0] = a; s[1] = b; s[2] = c; s[3] = d;
    return fz_t_fit(f, r, k, ndim, s, optional);
}

/* A list of tensors (concat, graph inputs): count <= FZ_ARR entries, the later ones
   mostly fitting the first; the rest of the FZ_ARR entries NULL. */
static tt_tensor **fz_t_list(fz *f, fz_res *r, int k, tt_tensor **xs, int *n) {
    int i, fill;
    *n = fz_count(&f->in);
    fill = *n < 1 ? 1 : *n;
    memset(xs, 0, sizeof(tt_tensor *) * FZ_ARR);
    for (i = 0; i < fill; i++) {
        if (i == 0 || !xs[0] || fz_byte(&f->in) < 64) xs[i] = fz_t(f, r, k);
        else xs[i] = fz_t_fit(f, r, k, xs[0]->ndim, xs[0]->shape, false);
    }
    if (fz_byte(&f->in) < 16) { r->null_arg = true; return NULL; }
    return xs;
}

/* ==========================================================================
 * Array arguments (always FZ_ARR entries, or NULL)
 * ========================================================================== */
/* Built with -DFZ_AVOID_HUGE_EMPTY (for long fuzzing campaigns only): sizes arrays that mix
   a 0 with a size over 2^16 get their zeros replaced by 1, so that the known overflow of
   empty tensors with huge sizes (listed in the report) does not hide everything else. */
static void fz_avoid_huge_empty(int64_t *a, int n) {
#ifdef FZ_AVOID_HUGE_EMPTY
    int i, zero = 0, huge = 0;
    for (i = 0; i < n && i < FZ_ARR; i++) { zero |= a[i] == 0; huge |= a[i] > 65536 || a[i] < -65536; }
    for (i = 0; zero && huge && i < n && i < FZ_ARR; i++) if (a[i] == 0) a[i] = 1;
#else
    (void)a; (void)n;
#endif
}

/* A shape argument for x (or a creation shape when x is NULL): random, x's own, x's
   numel as one axis, x's with -1 or a hostile size, x's reversed, x's broadcast up. */
static const int64_t *fz_shape_arg(fz *f, const tt_tensor *x, int64_t *s, int *ndim) {
    unsigned mode = fz_byte(&f->in) % 6;
    int i, nd = x ? x->ndim : 0;
    for (i = 0; i < FZ_ARR; i++) s[i] = fz_dim(&f->in);
    *ndim = fz_ndim(&f->in);
    if (fz_byte(&f->in) < 12) return NULL;
    if (!x || mode == 0) { fz_avoid_huge_empty(s, FZ_ARR); return s; }
    *ndim = nd;
    for (i = 0; i < nd; i++) s[i] = x->shape[i];
    switch (mode) {
    case 1: if (nd) s[fz_byte(&f->in) % (unsigned)nd] = fz_byte(&f->in) & 1 ? -1 : fz_i64(&f->in); break;
    case 2: *ndim = 1; s[0] = fz_byte(&f->in) & 1 ? -1 : x->numel; break;
    case 3: for (i = 0; i < nd; i++) s[i] = x->shape[nd - 1 - i]; break;
    case 4:
        for (i = nd; i > 0; i--) s[i] = x->shape[i - 1] == 1 ? 3 : x->shape[i - 1];
        s[0] = 2;
        *ndim = nd + 1;
        break;
    default: if (nd) s[fz_byte(&f->in) % (unsigned)nd] = fz_hostile_i64[fz_byte(&f->in) % FZ_LEN(fz_hostile_i64)]; break;
    }
    fz_avoid_huge_empty(s, FZ_ARR);
    return s;
}

/* Axes (or a permutation, when perm and x is given): FZ_ARR entries, or NULL. */
static const int *fz_axes(fz *f, const tt_tensor *x, int *a, bool perm) {
    int i, nd = x ? x->ndim : 0;
    for (i = 0; i < FZ_ARR; i++) a[i] = fz_axis(&f->in);
    if (perm && nd > 0 && fz_byte(&f->in) < 192) {  /* a real permutation: reversed or rotated */
        unsigned rot = fz_byte(&f->in) % (unsigned)nd;
        bool rev = fz_bool(&f->in);
        for (i = 0; i < nd; i++) a[i] = rev ? nd - 1 - i : (int)(((unsigned)i + rot) % (unsigned)nd);
    }
    return fz_byte(&f->in) < 16 ? NULL : a;
}

static const int64_t *fz_i64s(fz *f, int64_t *a) {
    int i;
    for (i = 0; i < FZ_ARR; i++) a[i] = fz_i64(&f->in);
    fz_avoid_huge_empty(a, FZ_ARR);
    return fz_byte(&f->in) < 16 ? NULL : a;
}

/* ==========================================================================
 * Invariants
 * ========================================================================== */
/* An error message: non-NULL, NUL-terminated within 256 bytes, "tt_..." */
static void fz_check_msg(fz *f, const char *whose, const char *msg, size_t cap) {
    char what[96];
    if (!msg) { snprintf(what, sizeof what, "%s holds an error status but no message", whose); fz_fail(f, what, NULL); return; }
    if (!memchr(msg, '\0', cap)) { snprintf(what, sizeof what, "%s's message is not NUL-terminated within %d bytes", whose, (int)cap); fz_fail(f, what, NULL); return; }
    if (strncmp(msg, "tt_", 3) != 0) { snprintf(what, sizeof what, "%s's message does not start with \"tt_\"", whose); fz_fail(f, what, msg); }
}

/* Every error anywhere is well-formed; a clean object has no message. */
static void fz_check_errors(fz *f) {
    int i;
    for (i = 0; i < FZ_NCTX; i++) {
        if (tt_ctx_status(f->ctx[i]) != TT_OK) fz_check_msg(f, "a context", tt_error(f->ctx[i]), 256);
        else if (tt_error(f->ctx[i])) fz_fail(f, "a context is TT_OK but has a message", tt_error(f->ctx[i]));
    }
    for (i = 0; i < FZ_GRAPHS; i++) {
        tt_graph *g = f->graphs[i].g;
        if (!g) continue;
        if (tt_graph_status(g) != TT_OK) fz_check_msg(f, "a graph", tt_graph_error(g), 256);
        else if (tt_graph_error(g)) fz_fail(f, "a graph is TT_OK but has a message", tt_graph_error(g));
    }
    for (i = 0; i < FZ_CCS; i++)
        if (f->cc[i] && tt_compiled_error(f->cc[i])) fz_check_msg(f, "a compiled function", tt_compiled_error(f->cc[i]), 256);
}

static void fz_check_guards(fz *f) {
    int k;
    for (k = 0; k < FZ_NCTX; k++) {
        bool clean = fz_quiet_begin(f->ctx[k]);
        if (!tt_ctx_check_guards(f->ctx[k])) fz_fail(f, "a guard region was overwritten", tt_error(f->ctx[k]));
        fz_quiet_end(f->ctx[k], clean);
    }
}

/* A tensor result: a sane header, and its elements can be read. */
static void fz_check_tensor(fz *f, const tt_tensor *t) {
    char what[128];
    int i;
    int64_t n = 1;
    if (t->ndim < 0 || t->ndim > TT_MAX_DIMS) { snprintf(what, sizeof what, "result has ndim %d", t->ndim); fz_fail(f, what, NULL); return; }
    if ((int)t->dtype < 0 || (int)t->dtype >= TT_DTYPE_COUNT) { snprintf(what, sizeof what, "result has dtype %d", (int)t->dtype); fz_fail(f, what, NULL); return; }
    for (i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0) { snprintf(what, sizeof what, "result has shape[%d] = %lld", i, (long long)t->shape[i]); fz_fail(f, what, NULL); return; }
        n = n > 0 && t->shape[i] > INT64_MAX / n ? -1 : n * t->shape[i];
        if (n < 0) { fz_fail(f, "result's shape overflows int64", NULL); return; }
    }
    for (i = t->ndim; i < TT_MAX_DIMS; i++)
        if (t->shape[i] != 1) { snprintf(what, sizeof what, "result has shape[%d] = %lld past ndim %d (should be 1)", i, (long long)t->shape[i], t->ndim); fz_fail(f, what, NULL); return; }
    if (n != t->numel) { snprintf(what, sizeof what, "result has numel %lld, its shape says %lld", (long long)t->numel, (long long)n); fz_fail(f, what, NULL); return; }
    if (n > 0 && !t->data) { fz_fail(f, "result has elements but no data", NULL); return; }
    if (n <= FZ_READ_NUMEL) {
        float *v = (float *)malloc(sizeof(float) * (size_t)(n ? n : 1));
        if (v && tt_copy_to_f32(f->checker, t, v, n) != TT_OK) fz_fail(f, "result cannot be read", tt_error(f->checker));
        tt_clear_error(f->checker);
        free(v);
    }
}

/* Status of every object before the call, to tell new errors from old ones. */
typedef struct fz_snap { tt_status ctx[FZ_NCTX], g[FZ_GRAPHS], cc[FZ_CCS]; } fz_snap;

static void fz_snapshot(const fz *f, fz_snap *s) {
    int i;
    for (i = 0; i < FZ_NCTX; i++) s->ctx[i] = tt_ctx_status(f->ctx[i]);
    for (i = 0; i < FZ_GRAPHS; i++) s->g[i] = f->graphs[i].g ? tt_graph_status(f->graphs[i].g) : TT_OK;
    for (i = 0; i < FZ_CCS; i++) s->cc[i] = f->cc[i] && tt_compiled_error(f->cc[i]) ? TT_ERR_ARG : TT_OK;
}

/* Where the call reports: was it clean before, and does it hold an error now? */
static bool fz_target(const fz *f, const fz_res *r, const fz_snap *pre, bool *was_clean, bool *has_error) {
    int i;
    if (r->ctx) {
        i = fz_k(f, r->ctx);
        *was_clean = i < 0 || pre->ctx[i] == TT_OK;
        *has_error = tt_ctx_status(r->ctx) != TT_OK;
        return true;
    }
    if (r->g) {
        for (i = 0; i < FZ_GRAPHS; i++) if (f->graphs[i].g == r->g) *was_clean = pre->g[i] == TT_OK;
        *has_error = tt_graph_status(r->g) != TT_OK;
        return true;
    }
    if (r->cc) {
        *was_clean = true;                             /* tt_compiled_run clears it first */
        *has_error = tt_compiled_error(r->cc) != NULL;
        return true;
    }
    return false;
}

static bool fz_failed(const fz_res *r) {
    switch (r->kind) {
    case FZ_PTR:    return r->p == NULL;
    case FZ_STATUS: return r->st != TT_OK;
    case FZ_COUNT:  return r->n < 0;
    default:        return false;
    }
}

static void fz_check_call(fz *f, fz_res *r, const fz_snap *pre) {
    bool was_clean = true, has_error = false;
    bool failed = fz_failed(r) || r->must_fail;
    if (!fz_target(f, r, pre, &was_clean, &has_error)) return;
    if (failed && !has_error && !r->null_arg)
        fz_fail(f, r->must_fail && !fz_failed(r) ? "invalid arguments accepted without an error"
                                                 : "reported failure but left no error", NULL);
    if (f->verbose && was_clean && has_error && r->ctx) {   /* survey: is it named after the call? */
        const char *e = tt_error(r->ctx);
        size_t n = strlen(f->call);
        if (strncmp(e, f->call, n) != 0 || e[n] != ':') printf("       name: %s reported as %.40s\n", f->call, e);
    }
    if (r->kind != FZ_NONE && !fz_failed(r) && was_clean && has_error && !r->must_fail)
        fz_fail(f, "succeeded but left an error", r->ctx ? tt_error(r->ctx) : r->g ? tt_graph_error(r->g)
                                                                             : tt_compiled_error(r->cc));
}

/* After tt_clear_error a context still computes: [1,2,3] + [10,20,30] in a scope. A full
   user buffer may say OOM, nothing else. */
static void fz_check_usable(fz *f, int k) {
    static const float av[3] = { 1, 2, 3 }, bv[3] = { 10, 20, 30 };
    tt_ctx *c = f->ctx[k];
    int64_t n = 3;
    float got[3];
    tt_tensor *y;
    tt_scope s;
    tt_clear_error(c);
    s = tt_scope_begin(c);
    y = tt_add(c, tt_from_data(c, TT_F32, 1, &n, av), tt_from_data(c, TT_F32, 1, &n, bv));
    if (!y) {
        if (tt_ctx_status(c) != TT_ERR_OOM) fz_fail(f, "context unusable after tt_clear_error", tt_error(c));
    } else if (!tt_is_tracing(c)) {                    /* reading a traced value would add a warning */
        if (tt_copy_to_f32(c, y, got, 3) != TT_OK) fz_fail(f, "context cannot read a sum after tt_clear_error", tt_error(c));
        else if (got[0] != 11 || got[1] != 22 || got[2] != 33) fz_fail(f, "context adds wrongly after tt_clear_error", NULL);
    }
    tt_scope_end(c, s);
    if (tt_ctx_status(c) != TT_OK && tt_ctx_status(c) != TT_ERR_OOM) fz_fail(f, "the check's own scope failed", tt_error(c));
    tt_clear_error(c);
}

/* ==========================================================================
 * Graph bookkeeping
 * ========================================================================== */
static void fz_meta_of(fz_meta *m, const tt_tensor *t) {
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    memcpy(m->shape, t->shape, sizeof m->shape);
}

/* A graph slot (destroying the oldest graph when all are taken). */
static void fz_graph_keep(fz *f, tt_graph *g, unsigned deps, int n_in, const fz_meta *in) {
    int i;
    if (!g) return;
    for (i = 0; i < FZ_GRAPHS && f->graphs[i].g; i++) {}
    if (i == FZ_GRAPHS) {
        i = (int)(f->clock % FZ_GRAPHS);
        tt_graph_destroy(f->graphs[i].g);
        fz_kill(f, FZ_DEP_G(i), 0, true);
    }
    memset(&f->graphs[i], 0, sizeof f->graphs[i]);
    f->graphs[i].g = g;
    f->graphs[i].deps = deps;
    f->graphs[i].n_in = n_in < 8 ? n_in : 8;
    memcpy(f->graphs[i].in, in, sizeof(fz_meta) * (size_t)f->graphs[i].n_in);
    f->clock++;
}

/* A graph argument: a live one (index in *slot), or NULL. */
static tt_graph *fz_pick_graph(fz *f, fz_res *r, int *slot) {
    int live[FZ_GRAPHS], n = 0, i;
    unsigned b = fz_byte(&f->in);
    for (i = 0; i < FZ_GRAPHS; i++) if (f->graphs[i].g) live[n++] = i;
    *slot = b < 32 || !n ? -1 : live[b % (unsigned)n];
    r->g = *slot < 0 ? NULL : f->graphs[*slot].g;
    return r->g;
}

/* Inputs for tt_trace / tt_compiled_run: usually 1..3 fresh tensors of context k (f32,
   small shapes, the later ones often shaped like the first); sometimes any list. */
static tt_tensor **fz_example_inputs(fz *f, fz_res *r, int k, tt_tensor **xs, int *n) {
    int64_t shape[TT_MAX_DIMS];
    int i, nd;
    if (k < 0 || fz_byte(&f->in) < 64) return fz_t_list(f, r, k, xs, n);
    memset(xs, 0, sizeof(tt_tensor *) * FZ_ARR);
    *n = 1 + (int)(fz_byte(&f->in) % 3);
    nd = fz_shape_for_fresh(f, shape);
    for (i = 0; i < *n; i++) {
        if (i > 0 && fz_byte(&f->in) >= 128) nd = fz_shape_for_fresh(f, shape);
        xs[i] = fz_fresh(f, k, fz_fit_dtype(&f->in), nd, shape);
        if (!xs[i]) r->null_arg = true;                /* U may be full */
    }
    r->deps |= FZ_DEP_CTX(k);
    return xs;
}

/* Inputs for a graph run: fitting the traced ones (fresh, any layout and context), random,
   NULL, or fitting with one of them wrong. Returns the array (or NULL) and the count. */
static tt_tensor **fz_graph_inputs(fz *f, fz_res *r, int slot, tt_tensor **xs, int *n) {
    unsigned mode = fz_byte(&f->in) % 5;
    const fz_graph *fg = slot >= 0 ? &f->graphs[slot] : NULL;
    int i;
    if (!fg || mode == 2) return fz_t_list(f, r, -1, xs, n);
    if (mode == 3) { *n = fz_byte(&f->in) & 1 ? 0 : fz_count(&f->in); return NULL; }
    *n = fg->n_in;
    for (i = 0; i < FZ_ARR; i++) {
        const fz_meta *m = &fg->in[i < fg->n_in ? i : 0];
        int kk = fz_fresh_k(f, -1);
        xs[i] = i < fg->n_in ? fz_fresh(f, kk, m->dtype, m->ndim, m->shape) : NULL;
        if (i < fg->n_in && !xs[i]) r->null_arg = true;
        r->deps |= FZ_DEP_CTX(kk);
    }
    if (mode == 4 && fg->n_in > 0) xs[fz_byte(&f->in) % (unsigned)fg->n_in] = fz_t(f, r, -1);
    return xs;
}

/* Graph outputs are valid until the graph runs, compiles or dies. */
static void fz_graph_changed(fz *f, int slot, bool frees) {
    if (slot >= 0) fz_kill(f, FZ_DEP_G(slot), 0, frees);
}

/* ==========================================================================
 * Forward functions for tt_trace and tt_compiled_run: some well-behaved (giving the
 * passes something to do), some that break the contract.
 * ========================================================================== */
static tt_tensor *fw_x(tt_tensor *const *in, int n) { return n > 0 && in ? in[0] : NULL; }

static int fw_chain(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n);
    (void)user; (void)max_out;
    out[0] = tt_relu(c, tt_mul_scalar(c, tt_add_scalar(c, tt_exp(c, tt_neg(c, x)), 0.5f), 2.0f));
    return 1;
}

static int fw_pair(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n), *y = n > 1 ? in[1] : x, *s = tt_mul(c, x, y);
    (void)user;
    out[0] = tt_tanh(c, s);
    if (max_out < 2) return 1;
    out[1] = tt_sum(c, s, NULL, 0, false);
    return 2;
}

/* CSE (exp twice), simplification (x*1, x+0), constant folding (ops on a constant). */
static int fw_passes(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n), *k = tt_mul_scalar(c, tt_ones(c, TT_F32, 0, NULL), 3.0f);
    tt_tensor *y = tt_add(c, tt_exp(c, x), tt_exp(c, x));
    (void)user; (void)max_out;
    out[0] = tt_add(c, tt_add_scalar(c, tt_mul_scalar(c, y, 1.0f), 0.0f), k);
    return 1;
}

/* linear + epilogue (bias, gelu) with constant weights; a plain op when x is a scalar. */
static int fw_linear(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n);
    int64_t ws[2], bs[1];
    (void)user; (void)max_out;
    if (!x || x->ndim < 1) { out[0] = tt_sigmoid(c, x); return 1; }
    ws[0] = 3; ws[1] = x->shape[x->ndim - 1]; bs[0] = 3;
    out[0] = tt_gelu(c, tt_linear(c, x, tt_full(c, TT_F32, 2, ws, 0.25), tt_ones(c, TT_F32, 1, bs)));
    return 1;
}

/* conv + batch norm + relu (FOLD_BN with FREEZE), when x is 4-D. */
static int fw_conv_bn(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n), *y;
    int64_t ws[4], cs[1];
    (void)user; (void)max_out;
    if (!x || x->ndim != 4) { out[0] = tt_softmax(c, x, -1); return 1; }
    ws[0] = 2; ws[1] = x->shape[1]; ws[2] = 1; ws[3] = 1; cs[0] = 2;
    y = tt_conv2d(c, x, tt_full(c, TT_F32, 4, ws, 0.5), NULL, 1, 0, 1, 1);
    y = tt_batch_norm(c, y, tt_zeros(c, TT_F32, 1, cs), tt_ones(c, TT_F32, 1, cs), tt_ones(c, TT_F32, 1, cs),
                      tt_zeros(c, TT_F32, 1, cs), 1e-5f);
    out[0] = tt_relu(c, y);
    return 1;
}

/* Views in the graph: transpose, contiguous, reshape, slice. */
static int fw_views(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n), *t = tt_transpose(c, x, 0, -1);
    int64_t flat = -1;
    (void)user;
    out[0] = tt_exp(c, tt_reshape(c, tt_contiguous(c, t), 1, &flat));
    if (max_out < 2) return 1;
    out[1] = tt_slice(c, t, 0, 0, 1, 1);
    return 2;
}

/* Reads a traced value into C: a tracer warning. */
static int fw_item(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *x = fw_x(in, n);
    float v = tt_item(c, tt_sum(c, x, NULL, 0, false));
    (void)user; (void)max_out;
    out[0] = tt_add_scalar(c, x, v);
    return 1;
}

/* Uses user (a tensor made before: a parameter of the graph). */
static int fw_param(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)max_out;
    out[0] = tt_add(c, fw_x(in, n), (tt_tensor *)user);
    return 1;
}

static int fw_input_out(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)user; (void)max_out;
    out[0] = fw_x(in, n);
    return 1;
}

static int fw_null_out(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n; (void)user; (void)max_out;
    out[0] = NULL;
    return 1;
}

static int fw_negative(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n; (void)out; (void)user; (void)max_out;
    return -1;
}

static int fw_zero(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n; (void)out; (void)user; (void)max_out;
    return 0;
}

/* Claims one output more than it may write. */
static int fw_too_many(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    int i;
    (void)user;
    for (i = 0; i < max_out; i++) out[i] = tt_abs(c, fw_x(in, n));
    return max_out + 1;
}

/* An op that fails inside the trace. */
static int fw_failing(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    int64_t s[2] = { 7, 5 };
    (void)user; (void)max_out;
    out[0] = tt_matmul(c, tt_ones(c, TT_F32, 2, s), tt_ones(c, TT_F32, 2, s));
    (void)in; (void)n;
    return 1;
}

/* Nests a trace, then ends the running one from inside. */
static int fw_meddle(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    tt_tensor *y = tt_relu(c, fw_x(in, n));
    (void)user; (void)max_out;
    tt_trace_begin(c);
    tt_graph_destroy(tt_trace_end(c, &y, 1));
    out[0] = y;
    return 1;
}

static const tt_forward_fn fz_forwards[] = {
    fw_chain, fw_pair, fw_passes, fw_linear, fw_conv_bn, fw_views, fw_item, fw_param,
    fw_input_out, fw_null_out, fw_negative, fw_zero, fw_too_many, fw_failing, fw_meddle, NULL };

/* A forward function: mostly good ones (the first seven); fw_param only with a user tensor. */
static tt_forward_fn fz_forward(fz *f, bool user_ok) {
    unsigned b = fz_byte(&f->in);
    tt_forward_fn fn = fz_forwards[b < 160 ? b % 7 : b % FZ_LEN(fz_forwards)];
    return fn == fw_param && !user_ok ? fw_chain : fn;
}

/* ==========================================================================
 * Callers, one per public function (families share one, with the op in f->aux)
 * ========================================================================== */
typedef void (*fz_caller)(fz *f, fz_res *r);
#define FZ_CTX_K(f, r) fz_k((f), (r)->ctx)

/* Sets a tensor result. */
static void fz_ret(fz_res *r, tt_tensor *t) { r->kind = FZ_PTR; r->p = t; r->t = t; }

/* ---- families of eager ops ---- */
typedef tt_tensor *(*fz_unary_fn)(tt_ctx *, tt_tensor *);
#define FZ_UNARY(X) X(tt_neg) X(tt_abs) X(tt_sign) X(tt_exp) X(tt_log) X(tt_sqrt) X(tt_rsqrt) \
    X(tt_reciprocal) X(tt_sin) X(tt_cos) X(tt_tanh) X(tt_sigmoid) X(tt_relu) X(tt_gelu) \
    X(tt_gelu_tanh) X(tt_silu) X(tt_softplus) X(tt_erf) X(tt_floor) X(tt_ceil) X(tt_round) \
    X(tt_logical_not) X(tt_contiguous) X(tt_clone) X(tt_shape_as_tensor)
typedef tt_tensor *(*fz_scalar_fn)(tt_ctx *, tt_tensor *, float);
#define FZ_SCALAR(X) X(tt_leaky_relu) X(tt_elu) X(tt_pow_scalar) X(tt_add_scalar) X(tt_sub_scalar) \
    X(tt_mul_scalar) X(tt_div_scalar)
typedef tt_tensor *(*fz_binary_fn)(tt_ctx *, tt_tensor *, tt_tensor *);
#define FZ_BINARY(X) X(tt_add) X(tt_sub) X(tt_mul) X(tt_div) X(tt_pow) X(tt_maximum) X(tt_minimum) \
    X(tt_eq) X(tt_ne) X(tt_lt) X(tt_le) X(tt_gt) X(tt_ge) X(tt_logical_and) X(tt_logical_or)
typedef tt_tensor *(*fz_reduce_fn)(tt_ctx *, tt_tensor *, const int *, int, bool);
#define FZ_REDUCE(X) X(tt_sum) X(tt_mean) X(tt_max) X(tt_min) X(tt_prod)
typedef tt_tensor *(*fz_var_fn)(tt_ctx *, tt_tensor *, const int *, int, int, bool);
#define FZ_VAR(X) X(tt_var) X(tt_std)
typedef tt_tensor *(*fz_arg_fn)(tt_ctx *, tt_tensor *, int, bool);
#define FZ_ARGRED(X) X(tt_argmax) X(tt_argmin)
typedef tt_tensor *(*fz_axis_fn)(tt_ctx *, tt_tensor *, int);
#define FZ_AXIS(X) X(tt_softmax) X(tt_log_softmax) X(tt_squeeze) X(tt_unsqueeze)
typedef tt_tensor *(*fz_create_fn)(tt_ctx *, tt_dtype, int, const int64_t *);
#define FZ_CREATE(X) X(tt_empty) X(tt_zeros) X(tt_ones)
typedef tt_tensor *(*fz_rand_fn)(tt_ctx *, uint64_t, int, const int64_t *);
#define FZ_RAND(X) X(tt_rand) X(tt_randn)
typedef tt_tensor *(*fz_shape_fn)(tt_ctx *, tt_tensor *, int, const int64_t *);
#define FZ_SHAPE(X) X(tt_reshape) X(tt_view) X(tt_expand)
typedef tt_tensor *(*fz_pool_fn)(tt_ctx *, tt_tensor *, int, int, int);
#define FZ_POOLOP(X) X(tt_max_pool1d) X(tt_max_pool2d) X(tt_avg_pool1d) X(tt_avg_pool2d)
typedef tt_tensor *(*fz_resize_fn)(tt_ctx *, tt_tensor *, int64_t, int64_t);
#define FZ_RESIZE(X) X(tt_adaptive_avg_pool2d) X(tt_upsample_nearest)
typedef tt_tensor *(*fz_join_fn)(tt_ctx *, tt_tensor *const *, int, int);
#define FZ_JOIN(X) X(tt_concat) X(tt_stack)
typedef tt_tensor *(*fz_conv_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, int, int, int, int);
#define FZ_CONV(X) X(tt_conv1d) X(tt_conv2d) X(tt_conv3d)
typedef tt_tensor *(*fz_convt_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, int, int, int, int, int);
#define FZ_CONVT(X) X(tt_conv_transpose1d) X(tt_conv_transpose2d)
typedef tt_tensor *(*fz_conv_ex_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, const tt_conv_params *);
#define FZ_CONV_EX(X) X(tt_conv2d_ex) X(tt_conv_ex) X(tt_conv_transpose_ex)
typedef tt_tensor *(*fz_pool_ex_fn)(tt_ctx *, tt_tensor *, const tt_pool_params *);
#define FZ_POOL_EX(X) X(tt_max_pool_ex) X(tt_avg_pool_ex)
typedef tt_tensor *(*fz_scale_fn)(tt_ctx *, tt_tensor *, float, float);
#define FZ_SCALE(X) X(tt_upsample_nearest_scale)
typedef tt_tensor *(*fz_index_fn)(tt_ctx *, tt_tensor *, int, tt_tensor *);
#define FZ_INDEX(X) X(tt_gather) X(tt_index_select)

#define FZ_PTR_OF(fn) fn,
static const fz_unary_fn  fz_unary_ops[]  = { FZ_UNARY(FZ_PTR_OF) };
static const fz_scalar_fn fz_scalar_ops[] = { FZ_SCALAR(FZ_PTR_OF) };
static const fz_binary_fn fz_binary_ops[] = { FZ_BINARY(FZ_PTR_OF) };
static const fz_reduce_fn fz_reduce_ops[] = { FZ_REDUCE(FZ_PTR_OF) };
static const fz_var_fn    fz_var_ops[]    = { FZ_VAR(FZ_PTR_OF) };
static const fz_arg_fn    fz_arg_ops[]    = { FZ_ARGRED(FZ_PTR_OF) };
static const fz_axis_fn   fz_axis_ops[]   = { FZ_AXIS(FZ_PTR_OF) };
static const fz_create_fn fz_create_ops[] = { FZ_CREATE(FZ_PTR_OF) };
static const fz_rand_fn   fz_rand_ops[]   = { FZ_RAND(FZ_PTR_OF) };
static const fz_shape_fn  fz_shape_ops[]  = { FZ_SHAPE(FZ_PTR_OF) };
static const fz_pool_fn   fz_pool_ops[]   = { FZ_POOLOP(FZ_PTR_OF) };
static const fz_resize_fn fz_resize_ops[] = { FZ_RESIZE(FZ_PTR_OF) };
static const fz_join_fn   fz_join_ops[]   = { FZ_JOIN(FZ_PTR_OF) };
static const fz_conv_fn   fz_conv_ops[]   = { FZ_CONV(FZ_PTR_OF) };
static const fz_convt_fn  fz_convt_ops[]  = { FZ_CONVT(FZ_PTR_OF) };
static const fz_conv_ex_fn fz_conv_ex_ops[] = { FZ_CONV_EX(FZ_PTR_OF) };
static const fz_pool_ex_fn fz_pool_ex_ops[] = { FZ_POOL_EX(FZ_PTR_OF) };
static const fz_scale_fn  fz_scale_ops[]  = { FZ_SCALE(FZ_PTR_OF) };
static const fz_index_fn  fz_index_ops[]  = { FZ_INDEX(FZ_PTR_OF) };

static void fz_c_unary(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    fz_ret(r, fz_unary_ops[f->aux](c, fz_t(f, r, FZ_CTX_K(f, r))));
}

static void fz_c_scalar(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    fz_ret(r, fz_scalar_ops[f->aux](c, x, fz_f32(&f->in)));
}

static void fz_c_binary(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *a = fz_t(f, r, k), *b = a ? fz_t_fit(f, r, k, a->ndim, a->shape, false) : fz_t(f, r, k);
    fz_ret(r, fz_binary_ops[f->aux](c, a, b));
}

static void fz_c_reduce(fz *f, fz_res *r) {
    int ax[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int *axes = fz_axes(f, x, ax, false);
    int n = fz_count(&f->in);
    fz_ret(r, fz_reduce_ops[f->aux](c, x, axes, n, fz_bool(&f->in)));
}

static void fz_c_var(fz *f, fz_res *r) {
    int ax[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int *axes = fz_axes(f, x, ax, false);
    int n = fz_count(&f->in), corr = fz_int(&f->in);
    fz_ret(r, fz_var_ops[f->aux](c, x, axes, n, corr, fz_bool(&f->in)));
}

static void fz_c_argred(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int axis = fz_axis(&f->in);
    fz_ret(r, fz_arg_ops[f->aux](c, x, axis, fz_bool(&f->in)));
}

static void fz_c_axis(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    fz_ret(r, fz_axis_ops[f->aux](c, x, fz_axis(&f->in)));
}

static void fz_c_create(fz *f, fz_res *r) {
    int64_t s[FZ_ARR];
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    fz_ret(r, fz_create_ops[f->aux](c, dt, nd, shape));
}

static void fz_c_rand(fz *f, fz_res *r) {
    int64_t s[FZ_ARR];
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    uint64_t seed = (uint64_t)fz_i64(&f->in);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    fz_ret(r, fz_rand_ops[f->aux](c, seed, nd, shape));
}

static void fz_c_shape(fz *f, fz_res *r) {
    int64_t s[FZ_ARR];
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int64_t *shape = fz_shape_arg(f, x, s, &nd);
    fz_ret(r, fz_shape_ops[f->aux](c, x, nd, shape));
}

/* Pooling wants [N,C,H,W]: usually a fitting 4-D tensor. */
static tt_tensor *fz_t_nchw(fz *f, fz_res *r, int k) {
    int64_t n = 1 + fz_byte(&f->in) % 2, ch = 1 + fz_byte(&f->in) % 3;
    int64_t h = fz_byte(&f->in) % 7, w = fz_byte(&f->in) % 7;
    return fz_t_fit4(f, r, k, 4, n, ch, h, w, false);
}

/* [N,C, spatial...] with 1..3 spatial axes (usually fitting; sizes 0..6). */
static tt_tensor *fz_t_spatial(fz *f, fz_res *r, int k, int spatial) {
    int64_t s[5];
    int i;
    s[0] = 1 + fz_byte(&f->in) % 2;
    s[1] = 1 + fz_byte(&f->in) % 3;
    for (i = 0; i < spatial; i++) s[2 + i] = fz_byte(&f->in) % 7;
    return fz_t_fit(f, r, k, 2 + spatial, s, false);
}

static void fz_c_pool(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t_spatial(f, r, FZ_CTX_K(f, r), f->aux % 2 == 0 ? 1 : 2);   /* 1d, 2d, 1d, 2d */
    int kernel = fz_small(&f->in, 1), stride = fz_small(&f->in, 0);
    fz_ret(r, fz_pool_ops[f->aux](c, x, kernel, stride, fz_small(&f->in, 0)));
}

static void fz_c_resize(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t_nchw(f, r, FZ_CTX_K(f, r));
    int64_t oh = fz_i64(&f->in);
    fz_ret(r, fz_resize_ops[f->aux](c, x, oh, fz_i64(&f->in)));
}

static void fz_c_join(fz *f, fz_res *r) {
    tt_tensor *xs[FZ_ARR];
    int n;
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor **list = fz_t_list(f, r, FZ_CTX_K(f, r), xs, &n);
    fz_ret(r, fz_join_ops[f->aux](c, list, n, fz_axis(&f->in)));
}

/* Convolution arguments: x [N,C,spatial...] and a weight that fits it: [O,C/g,k...]
   ([C,O/g,k...] when transposed), bias [O]. */
typedef struct fz_conv_args { tt_tensor *x, *w, *b; int groups; } fz_conv_args;

static void fz_conv_args_make(fz *f, fz_res *r, int k, int spatial, bool transposed, fz_conv_args *a) {
    int64_t s[5], cin, per, cout, ks = 1 + fz_byte(&f->in) % 3;
    int i;
    a->groups = fz_byte(&f->in) < 200 ? 1 : fz_int(&f->in);
    a->x = fz_t_spatial(f, r, k, spatial);
    cin = a->x && a->x->ndim >= 2 ? a->x->shape[1] : 1;
    per = a->groups > 0 && cin % a->groups == 0 ? cin / a->groups : cin;
    cout = (1 + fz_byte(&f->in) % 3) * (a->groups > 0 && a->groups < 64 ? a->groups : 1);
    s[0] = transposed ? cin : cout;
    s[1] = transposed ? cout / (a->groups > 0 && a->groups < 64 ? a->groups : 1) : per;
    for (i = 0; i < spatial; i++) s[2 + i] = ks;
    a->w = fz_t_fit(f, r, k, 2 + spatial, s, false);
    a->b = fz_t_fit4(f, r, k, 1, cout, 1, 1, 1, true);
}

static void fz_c_conv(fz *f, fz_res *r) {
    fz_conv_args a;
    tt_ctx *c = fz_ctx(f, r);
    int stride, pad, dil;
    fz_conv_args_make(f, r, FZ_CTX_K(f, r), 1 + f->aux, false, &a);
    stride = fz_small(&f->in, 1), pad = fz_small(&f->in, 0), dil = fz_small(&f->in, 1);
    fz_ret(r, fz_conv_ops[f->aux](c, a.x, a.w, a.b, stride, pad, dil, a.groups));
}

static void fz_c_convt(fz *f, fz_res *r) {
    fz_conv_args a;
    tt_ctx *c = fz_ctx(f, r);
    int stride, pad, opad, dil;
    fz_conv_args_make(f, r, FZ_CTX_K(f, r), 1 + f->aux, true, &a);
    stride = fz_small(&f->in, 1), pad = fz_small(&f->in, 0), opad = fz_small(&f->in, 0), dil = fz_small(&f->in, 1);
    fz_ret(r, fz_convt_ops[f->aux](c, a.x, a.w, a.b, stride, pad, opad, dil, a.groups));
}

/* tt_conv2d_ex, tt_conv_ex (rank from x), tt_conv_transpose_ex; p may be NULL. */
static void fz_c_conv_ex(fz *f, fz_res *r) {
    tt_conv_params p;
    fz_conv_args a;
    tt_ctx *c = fz_ctx(f, r);
    int i, spatial = f->aux == 0 ? 2 : 1 + (int)(fz_byte(&f->in) % 3);
    memset(&p, 0, sizeof p);
    fz_conv_args_make(f, r, FZ_CTX_K(f, r), spatial, f->aux == 2, &a);
    for (i = 0; i < 3; i++) {
        p.stride[i] = fz_small(&f->in, 1 + i % 2);
        p.padding[i] = fz_small(&f->in, i % 2);
        p.dilation[i] = fz_small(&f->in, 1);
        p.output_padding[i] = fz_small(&f->in, 0);
    }
    p.groups = a.groups;
    fz_ret(r, fz_conv_ex_ops[f->aux](c, a.x, a.w, a.b, fz_byte(&f->in) < 16 ? NULL : &p));
}

static void fz_c_pool_ex(fz *f, fz_res *r) {
    tt_pool_params p;
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t_spatial(f, r, FZ_CTX_K(f, r), 1 + (int)(fz_byte(&f->in) % 3));
    int i;
    memset(&p, 0, sizeof p);
    for (i = 0; i < 3; i++) {
        p.kernel[i] = fz_small(&f->in, 1 + i % 2);
        p.stride[i] = fz_small(&f->in, 0);
        p.padding[i] = fz_small(&f->in, 0);
        p.dilation[i] = fz_small(&f->in, 0);
    }
    p.ceil_mode = fz_bool(&f->in);
    p.exclude_pad = fz_bool(&f->in);
    fz_ret(r, fz_pool_ex_ops[f->aux](c, x, fz_byte(&f->in) < 16 ? NULL : &p));
}

static void fz_c_scale(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t_nchw(f, r, FZ_CTX_K(f, r));
    float sh = fz_f32(&f->in);
    fz_ret(r, fz_scale_ops[f->aux](c, x, sh, fz_f32(&f->in)));
}

static void fz_c_bilinear(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t_nchw(f, r, FZ_CTX_K(f, r));
    bool align = fz_bool(&f->in);
    if (f->aux == 0) {
        int64_t oh = fz_i64(&f->in);
        fz_ret(r, tt_upsample_bilinear(c, x, oh, fz_i64(&f->in), align));
    } else {
        float sh = fz_f32(&f->in);
        fz_ret(r, tt_upsample_bilinear_scale(c, x, sh, fz_f32(&f->in), align));
    }
}

static void fz_c_index(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r), axis = fz_axis(&f->in);
    tt_tensor *x = fz_t(f, r, k), *idx;
    int64_t len = fz_byte(&f->in) % 4;
    if (f->aux == 0 && x) idx = fz_t_fit_dt(f, r, k, TT_I32, x->ndim, x->shape, false);   /* gather: x's shape */
    else idx = fz_t_fit_dt(f, r, k, TT_I32, 1, &len, false);                            /* index_select: 1-D */
    fz_ret(r, fz_index_ops[f->aux](c, x, axis, idx));
}

/* ---- single eager ops ---- */
static void fz_c_full(fz *f, fz_res *r) {
    int64_t s[FZ_ARR];
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    fz_ret(r, tt_full(c, dt, nd, shape, fz_f64(&f->in)));
}

static void fz_c_scalar_new(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    fz_ret(r, tt_scalar(c, fz_f32(&f->in)));
}

static void fz_c_arange(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    double start = fz_f64(&f->in), stop = fz_f64(&f->in) * (fz_bool(&f->in) ? 8 : 1);
    fz_ret(r, tt_arange(c, dt, start, stop, fz_f64(&f->in)));
}

static void fz_c_linspace(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    double a = fz_f64(&f->in), b = fz_f64(&f->in);
    fz_ret(r, tt_linspace(c, a, b, fz_i64(&f->in)));
}

static void fz_c_eye(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    int64_t n = fz_i64(&f->in);
    fz_ret(r, tt_eye(c, dt, n, fz_i64(&f->in)));
}

/* Data for tt_from_data / tt_wrap. *numel: the element count when the request is valid,
   else -1 (then the library must reject it unread, and f->buf is passed). Valid requests
   get f->buf filled, or NULL when they do not fit it (a short buffer would be our bug). */
static void *fz_data_for(fz *f, tt_dtype dt, int nd, const int64_t *shape, int64_t *numel) {
    size_t es = tt_dtype_size(dt);
    int64_t n = nd >= 0 && nd <= TT_MAX_DIMS && (shape || nd == 0) ? fz_numel(nd, shape) : -1;
    *numel = es && n >= 0 && n <= ((int64_t)1 << 59) ? n : -1;
    if (*numel >= 0 && (size_t)n * es > sizeof f->buf) return NULL;
    if (*numel >= 0) fz_fill(f, dt, n);
    return fz_byte(&f->in) < 16 ? NULL : f->buf;
}

static void fz_c_from_data(fz *f, fz_res *r) {
    int64_t s[FZ_ARR], n;
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    fz_ret(r, tt_from_data(c, dt, nd, shape, fz_data_for(f, dt, nd, shape, &n)));
}

/* int64 index data: small values, sometimes ones that do not fit int32. */
static void fz_c_from_int64(fz *f, fz_res *r) {
    int64_t s[FZ_ARR], n;
    int nd, i;
    tt_ctx *c = fz_ctx(f, r);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    void *data = fz_data_for(f, TT_F32, nd, shape, &n);
    int cap = n > 0 && n <= FZ_MAX_NUMEL ? (int)n : 1;   /* exactly n when n is valid and small */
    int64_t *vals = (int64_t *)malloc(sizeof(int64_t) * (size_t)cap);
    for (i = 0; vals && i < cap; i++) vals[i] = fz_byte(&f->in) < 240 ? i % 5 : fz_i64(&f->in);
    if (n > FZ_MAX_NUMEL) data = NULL;                 /* valid but more than vals holds */
    fz_ret(r, vals ? tt_from_int64(c, nd, shape, data ? vals : NULL) : NULL);
    free(vals);
}

/* tt_wrap keeps the user's memory: an exactly sized malloc block (so ASan sees overreads),
   alive until the end. */
static void fz_c_wrap(fz *f, fz_res *r) {
    int64_t s[FZ_ARR], n;
    int nd;
    tt_ctx *c = fz_ctx(f, r);
    tt_dtype dt = fz_dtype(&f->in);
    const int64_t *shape = fz_shape_arg(f, NULL, s, &nd);
    void *data = fz_data_for(f, dt, nd, shape, &n);
    if (data && n >= 0) {
        size_t bytes = (size_t)n * tt_dtype_size(dt);
        data = f->n_wraps < FZ_WRAPS ? malloc(bytes ? bytes : 1) : NULL;
        if (data) { memcpy(data, f->buf, bytes); f->wraps[f->n_wraps++] = data; }
    }
    fz_ret(r, tt_wrap(c, dt, nd, shape, data));
}

static void fz_c_permute(fz *f, fz_res *r) {
    int ax[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    fz_ret(r, tt_permute(c, x, fz_axes(f, x, ax, true)));
}

static void fz_c_transpose(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int a = fz_axis(&f->in);
    fz_ret(r, tt_transpose(c, x, a, fz_axis(&f->in)));
}

static void fz_c_slice(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int axis = fz_axis(&f->in);
    int64_t start = fz_i64(&f->in), stop = fz_i64(&f->in);
    fz_ret(r, tt_slice(c, x, axis, start, stop, fz_i64(&f->in)));
}

static void fz_c_flatten(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int a = fz_axis(&f->in);
    fz_ret(r, tt_flatten(c, x, a, fz_axis(&f->in)));
}

static void fz_c_clamp(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    float lo = fz_f32(&f->in);
    fz_ret(r, tt_clamp(c, x, lo, fz_f32(&f->in)));
}

static void fz_c_where(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *a = fz_t(f, r, k), *b = a ? fz_t_fit(f, r, k, a->ndim, a->shape, false) : fz_t(f, r, k);
    tt_tensor *cond = a ? fz_t_fit_dt(f, r, k, TT_BOOL, a->ndim, a->shape, false) : fz_t(f, r, k);
    fz_ret(r, tt_where(c, cond, a, b));
}

static void fz_c_cast(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    fz_ret(r, tt_cast(c, x, fz_dtype(&f->in)));
}

/* layer_norm / rms_norm: weight and bias fit the last n_dims axes of x. */
static void fz_c_row_norm(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *x = fz_t(f, r, k), *w, *b;
    int nd = fz_byte(&f->in) < 200 ? 1 + (int)(fz_byte(&f->in) % 2) : fz_int(&f->in);
    int have = x && nd >= 0 && nd <= x->ndim ? nd : 0;
    const int64_t *tail = x ? x->shape + (x->ndim - have) : NULL;
    w = tail ? fz_t_fit(f, r, k, have, tail, true) : fz_t_opt(f, r, k);
    b = tail ? fz_t_fit(f, r, k, have, tail, true) : fz_t_opt(f, r, k);
    if (f->aux == 0) fz_ret(r, tt_layer_norm(c, x, nd, w, b, fz_f32(&f->in)));
    else fz_ret(r, tt_rms_norm(c, x, nd, w, fz_f32(&f->in)));
}

/* batch_norm / group_norm: per-channel tensors [C]. */
static void fz_c_chan_norm(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *x = fz_t_nchw(f, r, k);
    int64_t ch = x && x->ndim >= 2 ? x->shape[1] : 1;
    tt_tensor *m = f->aux == 0 ? fz_t_fit4(f, r, k, 1, ch, 1, 1, 1, false) : NULL;
    tt_tensor *v = f->aux == 0 ? fz_t_fit4(f, r, k, 1, ch, 1, 1, 1, false) : NULL;
    tt_tensor *w = fz_t_fit4(f, r, k, 1, ch, 1, 1, 1, true), *b = fz_t_fit4(f, r, k, 1, ch, 1, 1, 1, true);
    int groups = fz_byte(&f->in) < 128 ? (int)ch : fz_int(&f->in);
    float eps = fz_f32(&f->in);
    if (f->aux == 0) fz_ret(r, tt_batch_norm(c, x, m, v, w, b, eps));
    else fz_ret(r, tt_group_norm(c, x, groups, w, b, eps));
}

static void fz_c_matmul(fz *f, fz_res *r) {
    int64_t s[TT_MAX_DIMS];
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r), i, nd;
    tt_tensor *a = fz_t(f, r, k), *b;
    if (!a) { fz_ret(r, tt_matmul(c, a, fz_t(f, r, k))); return; }
    nd = a->ndim;
    for (i = 0; i < nd; i++) s[i] = a->shape[i];
    if (nd >= 2) { s[nd - 1] = a->shape[nd - 2]; s[nd - 2] = a->shape[nd - 1]; }   /* [m,k] x [k,m] */
    b = fz_t_fit(f, r, k, nd, s, false);
    fz_ret(r, tt_matmul(c, a, b));
}

static void fz_c_linear(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *x = fz_t(f, r, k);
    int64_t in = x && x->ndim ? x->shape[x->ndim - 1] : 1, out = 1 + fz_byte(&f->in) % 4;
    tt_tensor *w = fz_t_fit4(f, r, k, 2, out, in, 1, 1, false), *b = fz_t_fit4(f, r, k, 1, out, 1, 1, 1, true);
    fz_ret(r, tt_linear(c, x, w, b));
}

/* split / chunk: up to max_out views into out[FZ_ARR] (or a NULL out). */
static void fz_c_split(fz *f, fz_res *r) {
    tt_tensor *out[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int64_t size = fz_i64(&f->in);
    int axis = fz_axis(&f->in), max_out = fz_count(&f->in), n, i;
    tt_tensor **o = fz_byte(&f->in) < 16 ? NULL : out;
    memset(out, 0, sizeof out);
    n = f->aux == 0 ? tt_split(c, x, size, axis, o, max_out) : tt_chunk(c, x, (int)size, axis, o, max_out);
    r->kind = FZ_COUNT;
    r->n = n;
    for (i = 0; o && i < n && i < max_out; i++) {
        if (!out[i]) { fz_fail(f, "a piece within max_out is NULL", NULL); continue; }
        fz_check_tensor(f, out[i]);
        fz_keep(f, out[i], r->deps | FZ_DEP_CTX(FZ_CTX_K(f, r) < 0 ? 0 : FZ_CTX_K(f, r)));
    }
}

static void fz_c_pad(fz *f, fz_res *r) {
    int64_t a[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int64_t *pads = fz_i64s(f, a);
    int n = fz_count(&f->in);
    fz_ret(r, tt_pad(c, x, pads, n, fz_f32(&f->in)));
}

static void fz_c_pad_ex(fz *f, fz_res *r) {
#ifdef __cplusplus
    static const int modes[] = { 0, 1, 2, 3 };
#else
    static const int modes[] = { 0, 1, 2, 3, 4, -1, INT_MAX };
#endif
    int64_t a[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int64_t *pads = fz_i64s(f, a);
    int n = fz_count(&f->in);
    tt_pad_mode mode = (tt_pad_mode)modes[fz_byte(&f->in) % FZ_LEN(modes)];
    fz_ret(r, tt_pad_ex(c, x, pads, n, mode, fz_f32(&f->in)));
}

static void fz_c_embedding(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    int64_t shape[TT_MAX_DIMS];
    tt_tensor *w = fz_t_fit4(f, r, k, 2, fz_byte(&f->in) % 6, 1 + fz_byte(&f->in) % 3, 1, 1, false);
    int nd = fz_shape_for_fresh(f, shape);
    fz_ret(r, tt_embedding(c, w, fz_t_fit_dt(f, r, k, TT_I32, nd, shape, false)));
}

static void fz_c_repeat(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    int64_t reps = fz_i64(&f->in);
    fz_ret(r, tt_repeat_interleave(c, x, reps, fz_axis(&f->in)));
}

static void fz_c_flip(fz *f, fz_res *r) {
    int ax[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int *axes = fz_axes(f, x, ax, false);
    fz_ret(r, tt_flip(c, x, axes, fz_count(&f->in)));
}

static void fz_c_tile(fz *f, fz_res *r) {
    int64_t a[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *x = fz_t(f, r, FZ_CTX_K(f, r));
    const int64_t *reps = fz_i64s(f, a);
    fz_ret(r, tt_tile(c, x, reps, fz_count(&f->in)));
}

/* q [..,L,E], k [..,S,E], v [..,S,Ev], mask [L,S] (bool or float). */
static void fz_c_sdpa(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = FZ_CTX_K(f, r);
    tt_tensor *q = fz_t(f, r, k), *kk, *v, *mask = NULL;
    if (q && q->ndim >= 2) {
        int64_t s[TT_MAX_DIMS], lq = q->shape[q->ndim - 2];
        memcpy(s, q->shape, sizeof s);
        s[q->ndim - 2] = 1 + fz_byte(&f->in) % 3;
        kk = fz_t_fit(f, r, k, q->ndim, s, false);
        v = fz_t_fit(f, r, k, q->ndim, s, false);
        if (fz_bool(&f->in)) {
            int64_t ms[2];
            ms[0] = lq; ms[1] = s[q->ndim - 2];
            mask = fz_t_fit_dt(f, r, k, fz_bool(&f->in) ? TT_BOOL : TT_F32, 2, ms, true);
        }
    } else {
        kk = fz_t(f, r, k);
        v = fz_t(f, r, k);
    }
    if (!mask && fz_bool(&f->in)) mask = fz_t_opt(f, r, k);
    fz_ret(r, tt_scaled_dot_product_attention(c, q, kk, v, mask, fz_bool(&f->in), fz_f32(&f->in)));
}

/* ---- access ---- */
static void fz_c_is_contiguous(fz *f, fz_res *r) { tt_is_contiguous(fz_t_opt(f, r, -1)); }
static void fz_c_same_shape(fz *f, fz_res *r) {
    tt_tensor *a = fz_t_opt(f, r, -1);
    tt_same_shape(a, fz_t_opt(f, r, -1));
}

static const char *fz_file(fz_in *in) {
    static const char *const files[] = { NULL, "", "x.c", "a/very/long/path/to/a/source/file/that/goes/on/and/on.c" };
    return files[fz_byte(in) % 4];
}
static int fz_line(fz_in *in) { return fz_bool(in) ? fz_int(in) : 42; }

static void fz_c_data(fz *f, fz_res *r) {
    tt_tensor *t = fz_t_opt(f, r, -1);
    void *p = f->aux == 0 ? (tt_data)(t) : tt_data_at(t, fz_file(&f->in), fz_line(&f->in));
    if (t && t->numel > 0 && !p) fz_fail(f, "no data pointer for a tensor with elements", NULL);
}

/* tt_item must fail (NaN and an error) unless t has exactly one element. */
static void fz_c_item(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *t = fz_t(f, r, FZ_CTX_K(f, r));
    if (f->aux == 0) (tt_item)(c, t);
    else tt_item_at(c, t, fz_file(&f->in), fz_line(&f->in));
    r->must_fail = t && t->numel != 1;
}

/* n must equal numel; dst holds exactly numel floats (so a write past n is seen). */
static void fz_c_copy(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *t = fz_t(f, r, FZ_CTX_K(f, r));
    int64_t numel = t ? t->numel : 0, n = fz_bool(&f->in) ? numel : fz_i64(&f->in);
    float *dst = numel <= FZ_READ_NUMEL ? (float *)malloc(sizeof(float) * (size_t)(numel ? numel : 1)) : NULL;
    if (!dst) return;
    r->kind = FZ_STATUS;
    if (f->aux == 0) r->st = (tt_copy_to_f32)(c, t, fz_byte(&f->in) < 16 ? NULL : dst, n);
    else r->st = tt_copy_to_f32_at(c, t, dst, n, fz_file(&f->in), fz_line(&f->in));
    r->must_fail = t && n != numel;
    free(dst);
}

static void fz_c_get(fz *f, fz_res *r) {
    int64_t a[FZ_ARR];
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *t = fz_t(f, r, FZ_CTX_K(f, r));
    const int64_t *idx = fz_i64s(f, a);
    int i;
    if (f->aux == 0) (tt_get)(c, t, idx);
    else tt_get_at(c, t, idx, fz_file(&f->in), fz_line(&f->in));
    for (i = 0; t && i < t->ndim; i++)                 /* an index out of range must be refused */
        if (!idx || idx[i] < -t->shape[i] || idx[i] >= t->shape[i]) r->must_fail = true;
}

/* ---- version, dtypes, conversions ---- */
static void fz_c_strings(fz *f, fz_res *r) {
    int s = fz_statuses[fz_byte(&f->in) % FZ_LEN(fz_statuses)];
    tt_dtype dt = fz_dtype(&f->in);
    const char *str = f->aux == 0 ? tt_version() : f->aux == 1 ? tt_status_str((tt_status)s) : tt_dtype_name(dt);
    (void)r;
    if (!str || !memchr(str, '\0', 64)) fz_fail(f, "returned no short string", NULL);
}

static void fz_c_dtype_size(fz *f, fz_res *r) {
    tt_dtype dt = fz_dtype(&f->in);
    size_t es = tt_dtype_size(dt);
    bool valid = (int)dt >= 0 && (int)dt < TT_DTYPE_COUNT;
    (void)r;
    if (valid != (es == 1 || es == 2 || es == 4)) fz_fail(f, "size does not match validity", NULL);
}

/* Conversions: any bits in, NaN stays NaN, a round trip of a half value is exact. */
static void fz_c_convert(fz *f, fz_res *r) {
    uint32_t bits = (uint32_t)fz_u16(&f->in) << 16 | fz_u16(&f->in);
    uint16_t h = (uint16_t)fz_u16(&f->in);
    bool half = f->aux < 2;
    float x, back;
    (void)r;
    memcpy(&x, &bits, sizeof x);
    if (fz_bool(&f->in)) x = fz_f32(&f->in);
    if (f->aux % 2 == 0) {
        uint16_t y = half ? tt_f32_to_f16(x) : tt_f32_to_bf16(x);
        back = half ? tt_f16_to_f32(y) : tt_bf16_to_f32(y);
        if ((x != x) != (back != back)) fz_fail(f, "NaN did not stay NaN (or appeared)", NULL);
    } else {
        float y = half ? tt_f16_to_f32(h) : tt_bf16_to_f32(h);
        uint16_t again = half ? tt_f32_to_f16(y) : tt_f32_to_bf16(y);
        if (y == y && again != h) fz_fail(f, "a half value does not round-trip", NULL);
    }
}

/* ---- contexts, errors, scopes ---- */
static void fz_c_desc_default(fz *f, fz_res *r) {
    tt_ctx_desc d = tt_ctx_desc_default();
    (void)r;
    if (d.mem_buffer || d.mem_size || d.debug_guards || d.block_size == 0) fz_fail(f, "odd defaults", NULL);
}

static void fz_serial_for(void (*task)(void *arg, int64_t i, int thread), void *arg, int64_t n, void *user) {
    int64_t i;
    (void)user;
    for (i = 0; i < n; i++) task(arg, i, 0);
}

/* An odd context of its own: made, used a little (maybe tracing), destroyed. */
static void fz_c_ctx_create(fz *f, fz_res *r) {
    static const size_t sizes[] = { 0, 1, 1023, 1024, 1100, 4096, 20000 };
    static const size_t blocks[] = { 0, 1, 64, 4096, (size_t)1 << 20, (size_t)-1 };
    static const int threads[] = { 0, 1, 2, 3, -1, INT_MIN };
    tt_ctx_desc d = tt_ctx_desc_default();
    unsigned char *mem = NULL;
    unsigned b = fz_byte(&f->in);
    int64_t three = 3;
    tt_ctx *c;
    d.allocator.alloc = fz_heap_alloc;
    d.allocator.free = fz_heap_free;
    d.allocator.user = &f->heap;
    d.block_size = blocks[fz_byte(&f->in) % FZ_LEN(blocks)];
    d.n_threads = threads[fz_byte(&f->in) % FZ_LEN(threads)];
    d.debug_guards = fz_bool(&f->in);
    if (fz_bool(&f->in)) d.parallel_for = fz_serial_for;
    if (b & 1) {
        d.mem_size = sizes[fz_byte(&f->in) % FZ_LEN(sizes)];
        mem = (unsigned char *)calloc(1, d.mem_size + 64);
        d.mem_buffer = fz_byte(&f->in) < 16 ? NULL : mem + fz_byte(&f->in) % 64;
    }
    c = tt_ctx_create(b < 16 ? NULL : &d);
    (void)r;
    if (!c && (b < 16 || (!(b & 1) && d.n_threads >= 0))) fz_fail(f, "a heap context could not be made", NULL);
    if (c) {
        if (fz_bool(&f->in)) tt_trace_begin(c);
        tt_graph_destroy(tt_trace_end(c, NULL, fz_bool(&f->in) ? 0 : 1));
        if (fz_bool(&f->in)) tt_trace_begin(c);         /* destroyed while tracing */
        tt_add(c, tt_ones(c, TT_F32, 1, &three), tt_arange(c, TT_F32, 0, 3, 1));
        if (tt_ctx_status(c) != TT_OK) fz_check_msg(f, "an odd context", tt_error(c), 256);
        if (!tt_ctx_check_guards(c)) fz_fail(f, "an odd context's guards", tt_error(c));
        tt_ctx_destroy(c);
    }
    free(mem);
}

/* Destroys a pool context (maybe while it traces) and makes a fresh one in its place. */
static tt_ctx *fz_make_ctx(fz *f, int k);
static void fz_c_ctx_destroy(fz *f, fz_res *r) {
    int k = (int)(fz_byte(&f->in) % (FZ_NCTX + 1)), i, j = 0;
    (void)r;
    if (k == FZ_NCTX) { tt_ctx_destroy(NULL); return; }
    tt_ctx_destroy(f->ctx[k]);
    fz_kill(f, FZ_DEP_CTX(k), 0, true);
    for (i = 0; i < f->n_scopes; i++) if (f->scopes[i].k != k) f->scopes[j++] = f->scopes[i];
    f->n_scopes = j;
    f->n_trace_in[k] = 0;
    f->trace_deps[k] = 0;
    f->ctx[k] = fz_make_ctx(f, k);
}

static void fz_c_ctx_query(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    const char *e;
    r->ctx = NULL;                                     /* queries report nothing */
    switch (f->aux) {
    case 0: e = tt_error(c); if (!c && !e) fz_fail(f, "tt_error(NULL) gave NULL", NULL); break;
    case 1: tt_ctx_status(c); break;
    case 2: tt_clear_error(c); if (c && tt_ctx_status(c) != TT_OK) fz_fail(f, "error stays after clear", NULL); break;
    case 3: if (c && tt_ctx_num_threads(c) < 1) fz_fail(f, "fewer than one thread", NULL); break;
    case 5: if (c ? !tt_ctx_isa(c) : tt_ctx_isa(c) != NULL) fz_fail(f, "no ISA name, or one for NULL", NULL); break;
    default: tt_ctx_used(c); break;
    }
}

static void fz_c_check_guards(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    r->kind = FZ_STATUS;
    r->st = tt_ctx_check_guards(c) ? TT_OK : TT_ERR_CORRUPT;
    if (c && r->st != TT_OK) fz_fail(f, "guards broken", tt_error(c));
    if (!c) r->kind = FZ_NONE;
}

/* Begins a scope (sometimes two, nested, with a tensor between them) and records it. */
static void fz_c_scope_begin(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int i, n = fz_bool(&f->in) ? 2 : 1;
    int64_t four = 4;
    r->ctx = NULL;
    for (i = 0; i < n; i++) {
        fz_scope_rec *s;
        if (i > 0 && c) fz_keep(f, tt_ones(c, TT_F32, 1, &four), FZ_DEP_CTX(fz_k(f, c)));
        if (f->n_scopes == FZ_SCOPES) f->n_scopes--;   /* forget the newest */
        s = &f->scopes[f->n_scopes++];
        s->s = tt_scope_begin(c);
        s->k = fz_k(f, c);
        s->born = ++f->clock;
        s->dead = false;
    }
}

/* Ends a recorded scope on some context. A live scope of that context must be accepted;
   one of another context (or none), or one freed by ending an outer scope, must be
   rejected with an error. The context's error is cleared first, to see which happened. */
static void fz_c_scope_end(fz *f, fz_res *r) {
    fz_scope_rec *s;
    tt_ctx *c;
    int k, i;
    bool rejected, legit;
    if (!f->n_scopes) return;
    s = &f->scopes[fz_bool(&f->in) ? 0 : fz_byte(&f->in) % (unsigned)f->n_scopes];   /* often the oldest */
    k = fz_byte(&f->in) < 192 ? s->k : (int)(fz_byte(&f->in) % (FZ_NCTX + 1)) - 1;
    c = k < 0 ? NULL : f->ctx[k];
    (void)r;
    tt_clear_error(c);
    tt_scope_end(c, s->s);
    if (!c) return;
    rejected = tt_ctx_status(c) != TT_OK;
    /* A scope an outer scope's end freed is refused, or accepted (a safe rewind) once the
       arena grew past its position again: either answer is right (the checks after the
       call see the rest), and an accepted one frees what came after it, as a live one. */
    if (k == s->k && s->dead && rejected) return;
    legit = k == s->k;
    if (f->verbose) printf("       scope of %d ended on %d%s: %s\n", s->k, k, s->dead ? " (dead)" : "", rejected ? "rejected" : "accepted");
    if (rejected && legit) { fz_fail(f, "a live scope of this context was rejected", tt_error(c)); return; }
    if (rejected) {
        if (strncmp(tt_error(c), "tt_scope_end", 12) != 0) fz_fail(f, "rejected with another function's name", tt_error(c));
        return;
    }
    if (!legit) {
        fz_fail(f, k != s->k ? "a scope of another context was accepted" : "a scope freed by an outer scope's end was accepted", NULL);
        return;
    }
    fz_kill(f, FZ_DEP_CTX(k), s->born, true);
    for (i = 0; i < f->n_scopes; i++)
        if (f->scopes[i].k == k && f->scopes[i].born > s->born && !f->scopes[i].dead) {
            f->scopes[i].dead = true;
        }
}

/* ---- views ---- */
/* (tt_reshape, tt_view, tt_expand are in FZ_SHAPE; squeeze/unsqueeze in FZ_AXIS.) */

/* ---- tracing ---- */
static tt_tensor *fz_trace_input(tt_ctx *ctx, tt_tensor *t, const char *name) {
    return tt_trace_input(ctx, t, name);               /* the one place that knows its signature */
}

static void fz_c_trace_begin(fz *f, fz_res *r) {
    tt_ctx *c = fz_ctx(f, r);
    int k = fz_k(f, c);
    bool was = tt_is_tracing(c);
    r->kind = FZ_STATUS;
    r->st = tt_trace_begin(c);
    r->must_fail = was;
    if (r->st == TT_OK && k >= 0) { f->n_trace_in[k] = 0; f->trace_deps[k] = 0; f->trace_clock[k] = ++f->clock; }
}

static void fz_c_trace_input(fz *f, fz_res *r) {
    static const char *const names[] = { "x", NULL, "", "a_name_longer_than_thirty_two_characters_for_sure", "%s%S%d" };
    tt_ctx *c = fz_ctx_tracing(f, r);
    int k = fz_k(f, c);
    tt_tensor *t = fz_t_born(f, r, k, k >= 0 ? f->trace_clock[k] : 0, false);
    tt_tensor *got = fz_trace_input(c, t, names[fz_byte(&f->in) % 5]);
    fz_ret(r, got);
    r->must_fail = c && t && !tt_is_tracing(c);
    if (got && got != t) fz_fail(f, "returned another tensor than its argument", NULL);
    if (got && k >= 0 && f->n_trace_in[k] < 8) fz_meta_of(&f->trace_in[k][f->n_trace_in[k]++], got);
    else if (got && k >= 0) f->n_trace_in[k]++;
}

static void fz_c_is_tracing(fz *f, fz_res *r) {
    tt_is_tracing(fz_ctx(f, r));
    r->ctx = NULL;
}

static void fz_c_trace_end(fz *f, fz_res *r) {
    tt_tensor *xs[FZ_ARR];
    int n, k, i;
    tt_ctx *c = fz_ctx_tracing(f, r);
    tt_tensor **outs;
    tt_graph *g;
    bool was;
    k = fz_k(f, c);
    outs = fz_t_list(f, r, k, xs, &n);
    for (i = 0; outs && i < n && k >= 0; i++) if (fz_byte(&f->in) < 192) xs[i] = fz_t_born(f, r, k, f->trace_clock[k], true);
    was = tt_is_tracing(c);
    g = tt_trace_end(c, outs, n);
    r->kind = FZ_PTR;
    r->p = g;
    if (c && !was && g) fz_fail(f, "made a graph without a trace", NULL);
    if (g && k >= 0) fz_graph_keep(f, g, f->trace_deps[k] | r->deps | FZ_DEP_CTX(k), f->n_trace_in[k], f->trace_in[k]);
    if (k >= 0) { f->n_trace_in[k] = 0; f->trace_deps[k] = 0; }
}

/* A traced model in several steps: this row makes inputs, begins the trace and marks
   them; the next few steps are eager ops on the tracing context (fz_step picks them);
   then fz_c_flow_end ends the trace on the newest results. */
static void fz_c_flow_begin(fz *f, fz_res *r) {
    int64_t shape[TT_MAX_DIMS];
    tt_tensor *x;
    tt_ctx *c = fz_ctx(f, r);
    int k = fz_k(f, c), n_in = 1 + (int)(fz_byte(&f->in) % 2), i, nd = fz_shape_for_fresh(f, shape);
    if (k < 0) return;
    f->flow_n_in = 0;
    for (i = 0; i < n_in; i++) {
        if (i > 0 && fz_bool(&f->in)) nd = fz_shape_for_fresh(f, shape);
        x = fz_fresh(f, k, fz_fit_dtype(&f->in), nd, shape);
        if (x) fz_meta_of(&f->flow_in[f->flow_n_in++], x);
        f->flow_x[i] = x;
    }
    r->kind = FZ_STATUS;
    r->st = tt_trace_begin(c);
    f->flow_clock = ++f->clock;
    for (i = 0; i < n_in; i++) if (f->flow_x[i]) fz_trace_input(c, f->flow_x[i], i ? "y" : "x");
    f->flow_k = k;
    f->flow_left = 1 + (int)(fz_byte(&f->in) % 6);
    f->trace_deps[k] = FZ_DEP_CTX(k);
}

static void fz_c_trace_end(fz *f, fz_res *r);

/* Ends the flow's trace on its newest results (sometimes an input, a parameter, NULL). */
static void fz_c_flow_end(fz *f, fz_res *r) {
    tt_tensor *outs[3];
    int k = f->flow_k, n = 1 + (int)(fz_byte(&f->in) % 3), i;
    tt_graph *g;
    if (k < 0) { fz_c_trace_end(f, r); return; }
    r->ctx = f->ctx[k];
    for (i = 0; i < n; i++) outs[i] = fz_byte(&f->in) < 16 ? f->flow_x[0] : fz_t_born(f, r, k, f->flow_clock, true);
    g = tt_trace_end(r->ctx, outs, n);
    r->kind = FZ_PTR;
    r->p = g;
    fz_graph_keep(f, g, r->deps | f->trace_deps[k], f->flow_n_in, f->flow_in);
    f->trace_deps[k] = 0;
    f->flow_k = -1;
}

static void fz_c_trace(fz *f, fz_res *r) {
    tt_tensor *xs[FZ_ARR];
    fz_meta metas[8];
    int n, i, k;
    tt_ctx *c = fz_ctx(f, r);
    tt_tensor *p, **ins;
    tt_forward_fn fn;
    tt_graph *g;
    k = fz_k(f, c);
    p = fz_t_opt(f, r, k);
    fn = fz_forward(f, p != NULL);
    ins = fz_example_inputs(f, r, k, xs, &n);
    g = tt_trace(c, fn, fn == fw_param ? (void *)p : NULL, ins, n);
    r->kind = FZ_PTR;
    r->p = g;
    for (i = 0; g && ins && i < n && i < 8; i++) if (ins[i]) fz_meta_of(&metas[i], ins[i]);
    if (g) fz_graph_keep(f, g, r->deps | FZ_DEP_CTX(k < 0 ? 0 : k), n, metas);
}

/* ---- graphs ---- */
/* compile, run, bind, check: calls that execute the graph (not on stale ones). */
static void fz_c_graph_exec(fz *f, fz_res *r) {
    tt_tensor *xs[FZ_ARR], **ins;
    tt_check_report rep;
    int slot, n;
    tt_graph *g = fz_pick_graph(f, r, &slot);
    if (slot >= 0 && f->graphs[slot].stale) { r->g = NULL; return; }
    r->kind = FZ_STATUS;
    if (f->aux == 0) {
        tt_mode mode = fz_mode(&f->in);
        unsigned passes = fz_passes(&f->in);
        r->st = tt_graph_compile(g, mode, passes);
        r->must_fail = !fz_compile_args_ok(mode, passes);
        fz_graph_changed(f, slot, true);
        return;
    }
    ins = fz_graph_inputs(f, r, slot, xs, &n);
    fz_graph_changed(f, slot, false);                  /* outputs are replaced, not freed */
    if (f->aux == 1) r->st = tt_graph_run(g, ins, n);
    else if (f->aux == 2) r->st = tt_graph_bind(g, ins, n);
    else {
        double atol = fz_f64(&f->in), rtol = fz_f64(&f->in);
        bool want = fz_byte(&f->in) >= 16;
        r->st = tt_graph_check(g, ins, n, atol, rtol, want ? &rep : NULL);
        if (want && r->st == TT_OK && !memchr(rep.message, '\0', sizeof rep.message)) fz_fail(f, "report message not terminated", NULL);
        if (f->verbose && want && r->st == TT_OK && !rep.ok) printf("       check: atol %g rtol %g: %s\n", atol, rtol, rep.message);
    }
    if (slot >= 0) f->graphs[slot].deps |= r->deps;
}

static void fz_c_graph_output(fz *f, fz_res *r) {
    int slot;
    tt_graph *g = fz_pick_graph(f, r, &slot);
    tt_tensor *t = tt_graph_output(g, fz_byte(&f->in) < 192 ? (int)(fz_byte(&f->in) % 3) : fz_int(&f->in));
    r->g = NULL;                                       /* NULL is not an error here */
    r->kind = FZ_PTR;
    r->p = t;
    if (t) { fz_check_tensor(f, t); fz_keep(f, t, FZ_DEP_G(slot)); }
}

/* The queries of a graph: counts, error, warnings, stats, debug flags. */
static void fz_c_graph_query(fz *f, fz_res *r) {
    int slot, i;
    tt_graph *g = fz_pick_graph(f, r, &slot);
    const char *s;
    tt_graph_stats st;
    r->g = NULL;
    switch (f->aux) {
    case 0: if (tt_graph_num_inputs(g) < 0) fz_fail(f, "negative count", NULL); break;
    case 1: if (tt_graph_num_outputs(g) < 0 || (g && tt_graph_num_outputs(g) < 1)) fz_fail(f, "odd count", NULL); break;
    case 2: if (tt_graph_num_nodes(g) < 0) fz_fail(f, "negative count", NULL); break;
    case 3: s = tt_graph_error(g); if (!g && !s) fz_fail(f, "tt_graph_error(NULL) gave NULL", NULL); break;
    case 4: tt_graph_status(g); break;
    case 5: tt_graph_clear_error(g); if (g && tt_graph_error(g)) fz_fail(f, "error stays after clear", NULL); break;
    case 6: if (tt_graph_num_warnings(g) < 0) fz_fail(f, "negative count", NULL); break;
    case 7:
        i = fz_int(&f->in);
        s = tt_graph_warning(g, fz_bool(&f->in) && tt_graph_num_warnings(g) > 0 ? tt_graph_num_warnings(g) - 1 : i);
        if (s && !memchr(s, '\0', 512)) fz_fail(f, "warning not terminated", NULL);
        break;
    case 8:
        st = tt_graph_get_stats(g);
        if (st.nodes < 0 || st.nodes_traced < 0 || st.fused_ops < 0) fz_fail(f, "negative stats", NULL);
        break;
    default: tt_graph_set_debug(g, fz_bool(&f->in) ? (unsigned)TT_DEBUG_POISON : (unsigned)fz_u16(&f->in) << 8 | fz_byte(&f->in)); break;
    }
}

/* tt_graph_str / tt_graph_dot / tt_shape_str into an exactly sized buffer: always
   terminated, and as long as the needed length allows. */
static void fz_check_text(fz *f, const char *buf, size_t size, size_t need) {
    size_t len;
    if (!buf || !size) return;
    if (!memchr(buf, '\0', size)) { fz_fail(f, "text not terminated within the buffer", NULL); return; }
    len = strlen(buf);
    if (need && len != (need - 1 < size - 1 ? need - 1 : size - 1)) fz_fail(f, "text length differs from the returned need", NULL);
}

static size_t fz_text_size(fz_in *in) {
    static const size_t sizes[] = { 0, 1, 2, 7, 16, 64, 4096, 65536 };
    return sizes[fz_byte(in) % 8];
}

static void fz_c_graph_text(fz *f, fz_res *r) {
    int slot;
    tt_graph *g = fz_pick_graph(f, r, &slot);
    size_t size = fz_text_size(&f->in), need;
    char *buf = size && fz_byte(&f->in) >= 16 ? (char *)malloc(size) : NULL;
    r->g = NULL;
    if (!buf) size = 0;
    if (buf) buf[0] = 'x';
    need = f->aux == 0 ? tt_graph_str(g, buf, size) : tt_graph_dot(g, buf, size);
    if (need < 1) fz_fail(f, "returned a need of 0 (the NUL counts)", NULL);
    fz_check_text(f, buf, size, need);
    free(buf);
}

static void fz_c_shape_str(fz *f, fz_res *r) {
    tt_tensor *t = fz_t_opt(f, r, -1);
    size_t size = fz_text_size(&f->in);
    char *buf = size && fz_byte(&f->in) >= 16 ? (char *)malloc(size) : NULL;
    if (!buf) size = 0;
    if (tt_shape_str(t, buf, size) != buf) fz_fail(f, "did not return buf", NULL);
    fz_check_text(f, buf, size, 0);
    free(buf);
}

/* tt_print and tt_graph_print write to stdout: send it to /dev/null meanwhile. */
static void fz_c_print(fz *f, fz_res *r) {
    static const char *const names[] = { "x", NULL, "" };
    int slot = -1;
    tt_tensor *t = f->aux == 0 ? fz_t_opt(f, r, -1) : NULL;
    tt_graph *g = f->aux == 1 ? fz_pick_graph(f, r, &slot) : NULL;
    const char *name = names[fz_byte(&f->in) % 3];
#if defined(FZ_HAVE_DUP) && !defined(TT_NO_STDIO)
    int saved, null;
    r->g = NULL;
    fflush(stdout);
    saved = dup(1);
    null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0) { if (saved >= 0) close(saved); if (null >= 0) close(null); return; }
    dup2(null, 1);
    close(null);
    if (f->aux == 0) tt_print(t, name); else tt_graph_print(g);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
#else
    (void)t; (void)g; (void)name; (void)slot; r->g = NULL;
#endif
}

static void fz_c_graph_destroy(fz *f, fz_res *r) {
    int slot;
    tt_graph *g = fz_pick_graph(f, r, &slot);
    r->g = NULL;
    tt_graph_destroy(g);
    if (slot < 0) return;
    f->graphs[slot].g = NULL;
    fz_graph_changed(f, slot, true);
}

/* ---- compiled functions ---- */
static void fz_c_compiled_create(fz *f, fz_res *r) {
    int i = (int)(fz_byte(&f->in) % FZ_CCS), maxg;
    tt_forward_fn fn = fz_forward(f, false);
    tt_mode mode = fz_mode(&f->in);
    unsigned passes = fz_passes(&f->in);
    tt_compiled *cc;
    (void)r;
    maxg = fz_byte(&f->in) < 128 ? (int)(fz_byte(&f->in) % 4) : fz_int(&f->in);
    cc = tt_compiled_create(fn, NULL, mode, passes, maxg);
    if (!cc && fn && maxg >= 0 && fz_compile_args_ok(mode, passes)) fz_fail(f, "refused valid arguments", NULL);
    if (cc && !(fn && maxg >= 0 && fz_compile_args_ok(mode, passes))) fz_fail(f, "accepted invalid arguments", NULL);
    if (!cc) return;
    tt_compiled_destroy(f->cc[i]);
    fz_kill(f, FZ_DEP_CC(i), 0, true);
    f->cc[i] = cc;
}

static tt_compiled *fz_pick_cc(fz *f, fz_res *r, int *slot) {
    int live[FZ_CCS], n = 0, i;
    unsigned b = fz_byte(&f->in);
    for (i = 0; i < FZ_CCS; i++) if (f->cc[i]) live[n++] = i;
    *slot = b < 32 || !n ? -1 : live[b % (unsigned)n];
    r->cc = *slot < 0 ? NULL : f->cc[*slot];
    return r->cc;
}

static void fz_c_compiled_run(fz *f, fz_res *r) {
    tt_tensor *xs[FZ_ARR], **ins;
    int slot, n;
    tt_compiled *cc = fz_pick_cc(f, r, &slot);
    ins = fz_example_inputs(f, r, (int)(fz_byte(&f->in) % (FZ_NCTX + 1)) - 1, xs, &n);
    if (slot >= 0) fz_kill(f, FZ_DEP_CC(slot), 0, false);
    r->kind = FZ_STATUS;
    r->st = tt_compiled_run(cc, ins, n);
}

static void fz_c_compiled_query(fz *f, fz_res *r) {
    int slot;
    tt_compiled *cc = fz_pick_cc(f, r, &slot);
    tt_tensor *t;
    r->cc = NULL;
    switch (f->aux) {
    case 0:
        t = tt_compiled_output(cc, fz_byte(&f->in) < 192 ? (int)(fz_byte(&f->in) % 3) : fz_int(&f->in));
        r->kind = FZ_PTR;
        r->p = t;
        if (t) { fz_check_tensor(f, t); fz_keep(f, t, FZ_DEP_CC(slot)); }
        break;
    case 1: if (tt_compiled_num_graphs(cc) < 0) fz_fail(f, "negative count", NULL); break;
    default: if (!cc && !tt_compiled_error(cc)) fz_fail(f, "tt_compiled_error(NULL) gave NULL", NULL); break;
    }
}

static void fz_c_compiled_destroy(fz *f, fz_res *r) {
    int slot;
    tt_compiled *cc = fz_pick_cc(f, r, &slot);
    r->cc = NULL;
    tt_compiled_destroy(cc);
    if (slot < 0) return;
    f->cc[slot] = NULL;
    fz_kill(f, FZ_DEP_CC(slot), 0, true);
}

/* ==========================================================================
 * The table: every public function, with its caller and operand index
 * ========================================================================== */
typedef struct fz_fn { const char *name; fz_caller call; int aux; } fz_fn;

#define FZ_ENUM_U(fn) FZ_U_##fn,
#define FZ_ENUM_S(fn) FZ_S_##fn,
#define FZ_ENUM_B(fn) FZ_B_##fn,
#define FZ_ENUM_R(fn) FZ_R_##fn,
#define FZ_ENUM_V(fn) FZ_V_##fn,
#define FZ_ENUM_A(fn) FZ_A_##fn,
#define FZ_ENUM_X(fn) FZ_X_##fn,
#define FZ_ENUM_C(fn) FZ_C_##fn,
#define FZ_ENUM_N(fn) FZ_N_##fn,
#define FZ_ENUM_H(fn) FZ_H_##fn,
#define FZ_ENUM_P(fn) FZ_P_##fn,
#define FZ_ENUM_Z(fn) FZ_Z_##fn,
#define FZ_ENUM_J(fn) FZ_J_##fn,
#define FZ_ENUM_K(fn) FZ_K_##fn,
#define FZ_ENUM_T(fn) FZ_T_##fn,
#define FZ_ENUM_E(fn) FZ_E_##fn,
#define FZ_ENUM_O(fn) FZ_O_##fn,
#define FZ_ENUM_L(fn) FZ_L_##fn,
#define FZ_ENUM_I(fn) FZ_I_##fn,
enum { FZ_UNARY(FZ_ENUM_U) FZ_U_N };
enum { FZ_SCALAR(FZ_ENUM_S) FZ_S_N };
enum { FZ_BINARY(FZ_ENUM_B) FZ_B_N };
enum { FZ_REDUCE(FZ_ENUM_R) FZ_R_N };
enum { FZ_VAR(FZ_ENUM_V) FZ_V_N };
enum { FZ_ARGRED(FZ_ENUM_A) FZ_A_N };
enum { FZ_AXIS(FZ_ENUM_X) FZ_X_N };
enum { FZ_CREATE(FZ_ENUM_C) FZ_C_N };
enum { FZ_RAND(FZ_ENUM_N) FZ_N_N };
enum { FZ_SHAPE(FZ_ENUM_H) FZ_H_N };
enum { FZ_POOLOP(FZ_ENUM_P) FZ_P_N };
enum { FZ_RESIZE(FZ_ENUM_Z) FZ_Z_N };
enum { FZ_JOIN(FZ_ENUM_J) FZ_J_N };
enum { FZ_CONV(FZ_ENUM_K) FZ_K_N };
enum { FZ_CONVT(FZ_ENUM_T) FZ_T_N };
enum { FZ_CONV_EX(FZ_ENUM_E) FZ_E_N };
enum { FZ_POOL_EX(FZ_ENUM_O) FZ_O_N };
enum { FZ_SCALE(FZ_ENUM_L) FZ_L_N };
enum { FZ_INDEX(FZ_ENUM_I) FZ_I_N };
#define FZ_ROW_U(fn) { #fn, fz_c_unary,  FZ_U_##fn },
#define FZ_ROW_S(fn) { #fn, fz_c_scalar, FZ_S_##fn },
#define FZ_ROW_B(fn) { #fn, fz_c_binary, FZ_B_##fn },
#define FZ_ROW_R(fn) { #fn, fz_c_reduce, FZ_R_##fn },
#define FZ_ROW_V(fn) { #fn, fz_c_var,    FZ_V_##fn },
#define FZ_ROW_A(fn) { #fn, fz_c_argred, FZ_A_##fn },
#define FZ_ROW_X(fn) { #fn, fz_c_axis,   FZ_X_##fn },
#define FZ_ROW_C(fn) { #fn, fz_c_create, FZ_C_##fn },
#define FZ_ROW_N(fn) { #fn, fz_c_rand,   FZ_N_##fn },
#define FZ_ROW_H(fn) { #fn, fz_c_shape,  FZ_H_##fn },
#define FZ_ROW_P(fn) { #fn, fz_c_pool,   FZ_P_##fn },
#define FZ_ROW_Z(fn) { #fn, fz_c_resize, FZ_Z_##fn },
#define FZ_ROW_J(fn) { #fn, fz_c_join,   FZ_J_##fn },
#define FZ_ROW_K(fn) { #fn, fz_c_conv,   FZ_K_##fn },
#define FZ_ROW_T(fn) { #fn, fz_c_convt,  FZ_T_##fn },
#define FZ_ROW_E(fn) { #fn, fz_c_conv_ex, FZ_E_##fn },
#define FZ_ROW_O(fn) { #fn, fz_c_pool_ex, FZ_O_##fn },
#define FZ_ROW_L(fn) { #fn, fz_c_scale,  FZ_L_##fn },
#define FZ_ROW_I(fn) { #fn, fz_c_index,  FZ_I_##fn },

static const fz_fn fz_fns[] = {
    /* version, dtypes, conversions */
    { "tt_version", fz_c_strings, 0 }, { "tt_status_str", fz_c_strings, 1 }, { "tt_dtype_name", fz_c_strings, 2 },
    { "tt_dtype_size", fz_c_dtype_size, 0 },
    { "tt_f32_to_f16", fz_c_convert, 0 }, { "tt_f16_to_f32", fz_c_convert, 1 },
    { "tt_f32_to_bf16", fz_c_convert, 2 }, { "tt_bf16_to_f32", fz_c_convert, 3 },
    /* contexts, errors, scopes */
    { "tt_ctx_desc_default", fz_c_desc_default, 0 }, { "tt_ctx_create", fz_c_ctx_create, 0 },
    { "tt_ctx_destroy", fz_c_ctx_destroy, 0 },
    { "tt_error", fz_c_ctx_query, 0 }, { "tt_ctx_status", fz_c_ctx_query, 1 }, { "tt_clear_error", fz_c_ctx_query, 2 },
    { "tt_ctx_num_threads", fz_c_ctx_query, 3 }, { "tt_ctx_used", fz_c_ctx_query, 4 }, { "tt_ctx_isa", fz_c_ctx_query, 5 },
    { "tt_ctx_check_guards", fz_c_check_guards, 0 },
    { "tt_scope_begin", fz_c_scope_begin, 0 }, { "tt_scope_end", fz_c_scope_end, 0 },   /* four times: */
    { "tt_scope_begin", fz_c_scope_begin, 0 }, { "tt_scope_end", fz_c_scope_end, 0 },   /* nested and */
    { "tt_scope_begin", fz_c_scope_begin, 0 }, { "tt_scope_end", fz_c_scope_end, 0 },   /* dead scopes */
    { "tt_scope_begin", fz_c_scope_begin, 0 }, { "tt_scope_end", fz_c_scope_end, 0 },   /* need them */
    /* creation */
    FZ_CREATE(FZ_ROW_C) FZ_RAND(FZ_ROW_N)
    { "tt_full", fz_c_full, 0 }, { "tt_scalar", fz_c_scalar_new, 0 }, { "tt_arange", fz_c_arange, 0 },
    { "tt_linspace", fz_c_linspace, 0 }, { "tt_eye", fz_c_eye, 0 }, { "tt_from_data", fz_c_from_data, 0 },
    { "tt_wrap", fz_c_wrap, 0 }, { "tt_from_int64", fz_c_from_int64, 0 },
    /* access */
    { "tt_is_contiguous", fz_c_is_contiguous, 0 }, { "tt_same_shape", fz_c_same_shape, 0 },
    { "tt_data", fz_c_data, 0 }, { "tt_data_at", fz_c_data, 1 }, { "tt_item", fz_c_item, 0 }, { "tt_item_at", fz_c_item, 1 },
    { "tt_copy_to_f32", fz_c_copy, 0 }, { "tt_copy_to_f32_at", fz_c_copy, 1 }, { "tt_get", fz_c_get, 0 }, { "tt_get_at", fz_c_get, 1 },
    /* views */
    FZ_SHAPE(FZ_ROW_H)
    { "tt_permute", fz_c_permute, 0 }, { "tt_transpose", fz_c_transpose, 0 }, { "tt_slice", fz_c_slice, 0 },
    { "tt_flatten", fz_c_flatten, 0 },
    /* elementwise */
    FZ_UNARY(FZ_ROW_U) FZ_SCALAR(FZ_ROW_S) FZ_BINARY(FZ_ROW_B)
    { "tt_clamp", fz_c_clamp, 0 }, { "tt_where", fz_c_where, 0 }, { "tt_cast", fz_c_cast, 0 },
    /* reductions and normalization */
    FZ_REDUCE(FZ_ROW_R) FZ_VAR(FZ_ROW_V) FZ_ARGRED(FZ_ROW_A) FZ_AXIS(FZ_ROW_X)
    { "tt_layer_norm", fz_c_row_norm, 0 }, { "tt_rms_norm", fz_c_row_norm, 1 },
    { "tt_batch_norm", fz_c_chan_norm, 0 }, { "tt_group_norm", fz_c_chan_norm, 1 },
    /* linear algebra, convolution, pooling */
    { "tt_matmul", fz_c_matmul, 0 }, { "tt_linear", fz_c_linear, 0 },
    FZ_CONV(FZ_ROW_K) FZ_CONVT(FZ_ROW_T) FZ_CONV_EX(FZ_ROW_E) FZ_POOLOP(FZ_ROW_P) FZ_POOL_EX(FZ_ROW_O)
    FZ_RESIZE(FZ_ROW_Z) FZ_SCALE(FZ_ROW_L)
    { "tt_upsample_bilinear", fz_c_bilinear, 0 }, { "tt_upsample_bilinear_scale", fz_c_bilinear, 1 },
    /* shape and indexing */
    FZ_JOIN(FZ_ROW_J) { "tt_split", fz_c_split, 0 }, { "tt_chunk", fz_c_split, 1 }, { "tt_pad", fz_c_pad, 0 }, { "tt_pad_ex", fz_c_pad_ex, 0 },
    FZ_INDEX(FZ_ROW_I) { "tt_embedding", fz_c_embedding, 0 }, { "tt_repeat_interleave", fz_c_repeat, 0 },
    { "tt_flip", fz_c_flip, 0 }, { "tt_tile", fz_c_tile, 0 },
    { "tt_scaled_dot_product_attention", fz_c_sdpa, 0 },
    /* tracing and graphs (the common ones twice, so that graphs get made and run) */
    { "tt_trace_begin", fz_c_trace_begin, 0 }, { "tt_trace_input", fz_c_trace_input, 0 },
    { "tt_trace_begin", fz_c_trace_begin, 0 }, { "tt_trace_input", fz_c_trace_input, 0 },
    { "tt_is_tracing", fz_c_is_tracing, 0 }, { "tt_trace_end", fz_c_trace_end, 0 },
    { "tt_trace_begin", fz_c_flow_begin, 0 }, { "tt_trace_begin", fz_c_flow_begin, 0 }, { "tt_trace_end", fz_c_flow_end, 0 },
    { "tt_trace", fz_c_trace, 0 }, { "tt_trace", fz_c_trace, 0 },
    { "tt_graph_compile", fz_c_graph_exec, 0 }, { "tt_graph_run", fz_c_graph_exec, 1 }, { "tt_graph_run", fz_c_graph_exec, 1 },
    { "tt_graph_bind", fz_c_graph_exec, 2 }, { "tt_graph_check", fz_c_graph_exec, 3 },
    { "tt_graph_output", fz_c_graph_output, 0 }, { "tt_graph_output", fz_c_graph_output, 0 },
    { "tt_graph_num_inputs", fz_c_graph_query, 0 }, { "tt_graph_num_outputs", fz_c_graph_query, 1 },
    { "tt_graph_num_nodes", fz_c_graph_query, 2 }, { "tt_graph_error", fz_c_graph_query, 3 },
    { "tt_graph_status", fz_c_graph_query, 4 }, { "tt_graph_clear_error", fz_c_graph_query, 5 },
    { "tt_graph_num_warnings", fz_c_graph_query, 6 }, { "tt_graph_warning", fz_c_graph_query, 7 },
    { "tt_graph_get_stats", fz_c_graph_query, 8 }, { "tt_graph_set_debug", fz_c_graph_query, 9 },
    { "tt_graph_str", fz_c_graph_text, 0 }, { "tt_graph_dot", fz_c_graph_text, 1 },
    { "tt_graph_destroy", fz_c_graph_destroy, 0 },
    { "tt_compiled_create", fz_c_compiled_create, 0 }, { "tt_compiled_run", fz_c_compiled_run, 0 },
    { "tt_compiled_run", fz_c_compiled_run, 0 },
    { "tt_compiled_output", fz_c_compiled_query, 0 }, { "tt_compiled_num_graphs", fz_c_compiled_query, 1 },
    { "tt_compiled_error", fz_c_compiled_query, 2 }, { "tt_compiled_destroy", fz_c_compiled_destroy, 0 },
    /* debug */
    { "tt_shape_str", fz_c_shape_str, 0 }, { "tt_print", fz_c_print, 0 }, { "tt_graph_print", fz_c_print, 1 },
};
#define FZ_NFNS FZ_LEN(fz_fns)

/* Calls per table row over the whole run, and how many of them succeeded (for the slice
   test: every row ran, and the calls that build and run graphs also got through). */
static long fz_calls[FZ_NFNS], fz_succeeded[FZ_NFNS];

/* ==========================================================================
 * One sequence
 * ========================================================================== */
/* Pool context k: A heap (1 thread), B heap (2 threads), U over a user buffer of 16-64 KiB;
   all with guards and the capped heap. */
static tt_ctx *fz_make_ctx(fz *f, int k) {
    tt_ctx_desc d = tt_ctx_desc_default();
    d.debug_guards = 1;
    d.allocator.alloc = fz_heap_alloc;
    d.allocator.free = fz_heap_free;
    d.allocator.user = &f->heap;
    d.n_threads = k == 1 ? 2 : 1;
    d.block_size = k == 1 ? 4096 : (size_t)1 << 16;
    if (k == 2) { d.mem_buffer = f->ubuf; d.mem_size = f->ubuf_size; }
    return tt_ctx_create(&d);
}

/* Every sequence starts with a traced graph (relu chain on an f32 [2,3] input of A) and a
   compiled function, so that the graph calls have something to work on. */
static bool fz_prelude(fz *f) {
    int64_t shape[2] = { 2, 3 };
    tt_tensor *x = tt_randn(f->ctx[0], 7, 2, shape);
    fz_meta m;
    if (!x) return false;
    fz_keep(f, x, FZ_DEP_CTX(0));
    fz_meta_of(&m, x);
    fz_graph_keep(f, tt_trace(f->ctx[0], fw_chain, NULL, &x, 1), FZ_DEP_CTX(0), 1, &m);
    f->cc[0] = tt_compiled_create(fw_pair, NULL, TT_MODE_DEFAULT, TT_PASS_ALL, 0);
    return f->graphs[0].g && f->cc[0];
}

static bool fz_setup(fz *f, const uint8_t *data, size_t size) {
    int k;
    f->in.p = data;
    f->in.n = size;
    f->heap.cap = FZ_HEAP_CAP;
    f->verbose = getenv("FZ_VERBOSE") != NULL;
    f->flow_k = -1;
    f->ubuf_size = (size_t)(16 + fz_byte(&f->in) % 49) << 10;
    f->ubuf = (unsigned char *)calloc(1, f->ubuf_size);   /* zeroed: tt_empty results are read back (valgrind) */
    f->checker = tt_ctx_create(NULL);
    for (k = 0; k < FZ_NCTX; k++) f->ctx[k] = f->ubuf ? fz_make_ctx(f, k) : NULL;
    for (k = 0; k < FZ_NCTX; k++) if (!f->ctx[k]) return false;
    return f->checker != NULL && fz_prelude(f);
}

static void fz_teardown(fz *f) {
    int i;
    f->call = "teardown";
    for (i = 0; i < FZ_CCS; i++) tt_compiled_destroy(f->cc[i]);
    for (i = 0; i < FZ_GRAPHS; i++) tt_graph_destroy(f->graphs[i].g);
    for (i = 0; i < FZ_NCTX; i++) tt_ctx_destroy(f->ctx[i]);
    tt_ctx_destroy(f->checker);
    for (i = 0; i < f->n_wraps; i++) free(f->wraps[i]);
    free(f->ubuf);
    if (f->heap.live) {
        char what[96];
        snprintf(what, sizeof what, "%lu bytes of the contexts' heap were never freed", (unsigned long)f->heap.live);
        fz_fail(f, what, NULL);
    }
}

/* FZ_VERBOSE=1 in the environment: one line per call (to turn a failing input into a
   reproducer by hand). */
static void fz_log(const fz *f, const fz_res *r) {
    const char *e = r->ctx ? tt_error(r->ctx) : r->g ? tt_graph_error(r->g) : r->cc ? tt_compiled_error(r->cc) : NULL;
    printf("  [%2d] %-32s %s%s%s\n", f->step, f->call, r->kind == FZ_NONE ? "-" : fz_failed(r) ? "FAILED" : "ok",
           e ? "  " : "", e ? e : "");
    if (r->t) {
        char shape[64];
        printf("       -> %s%s numel %lld%s\n", tt_dtype_name(r->t->dtype), tt_shape_str(r->t, shape, sizeof shape),
               (long long)r->t->numel, tt_is_contiguous(r->t) ? "" : " (strided)");
    }
    fflush(stdout);                                    /* the next call may abort */
}

/* The first row named name (or with caller call, when name is NULL). */
static int fz_row(const char *name, fz_caller call) {
    int i;
    for (i = 0; i < FZ_NFNS; i++) if (name ? strcmp(fz_fns[i].name, name) == 0 : fz_fns[i].call == call) return i;
    return 0;
}

/* The next row: while a flow runs, eager ops and then its end; else any row. */
static const fz_fn *fz_next_row(fz *f) {
    static int lo = -1, hi, end;
    unsigned pick = fz_u16(&f->in);
    if (lo < 0) {                                      /* the eager ops are one run of the table */
        lo = fz_row("tt_reshape", NULL);
        hi = fz_row("tt_scaled_dot_product_attention", NULL);
        end = fz_row(NULL, fz_c_flow_end);
    }
    if (f->flow_left > 0) { f->flow_left--; return &fz_fns[lo + (int)(pick % (unsigned)(hi - lo + 1))]; }
    if (f->flow_k >= 0) return &fz_fns[end];
    return &fz_fns[pick % (unsigned)FZ_NFNS];
}

static void fz_step(fz *f) {
    const fz_fn *fn = fz_next_row(f);
    fz_snap pre;
    fz_res r;
    int k;
    memset(&r, 0, sizeof r);
    fz_snapshot(f, &pre);
    fz_calls[fn - fz_fns]++;
    f->call = fn->name;
    f->aux = fn->aux;
    fn->call(f, &r);
    if (r.kind != FZ_NONE && !fz_failed(&r)) fz_succeeded[fn - fz_fns]++;
    if (f->verbose) fz_log(f, &r);
    fz_check_call(f, &r, &pre);
    if (r.t) {
        k = fz_k(f, r.ctx);
        fz_check_tensor(f, r.t);
        fz_keep(f, r.t, r.deps | (k >= 0 ? FZ_DEP_CTX(k) : 0u));
    }
    for (k = 0; k < FZ_NCTX; k++) if (tt_is_tracing(f->ctx[k])) f->trace_deps[k] |= r.deps;
    fz_check_errors(f);
    fz_check_guards(f);
    if (fz_byte(&f->in) < 96) for (k = 0; k < FZ_NCTX; k++) fz_check_usable(f, k);
}

static int fz_args_one(const uint8_t *data, size_t size) {
    fz *f = (fz *)calloc(1, sizeof(fz));
    int failures;
    if (!f) return 1;
    if (!fz_setup(f, data, size)) {
        fz_fail(f, "could not make the contexts", NULL);
    } else {
        for (f->step = 0; f->step < FZ_MAX_CALLS && f->in.i < f->in.n; f->step++) fz_step(f);
    }
    fz_teardown(f);
    failures = f->failures;
    free(f);
    return failures ? 1 : 0;
}

#ifdef TT_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fz_args_one(data, size)) abort();
    return 0;
}
#endif
