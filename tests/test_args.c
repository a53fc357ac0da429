/* test_args.c - a table of bad arguments for every public function of tinytrace.h.

   Each row names a public function, the argument it gets wrong, the status the call must
   record and a callback that makes the call. For every row the runner checks that
     1. the call returns its failure value (NULL, a negative status, -1, NaN, false, ...);
     2. the error (tt_error(ctx), or tt_graph_error(g) / tt_compiled_error(cc) for graph
        functions) has the row's status, its message starts with "<function>: " exactly once
        and names the bad argument as the prototype spells it (a whole word; the column may
        list more words joined by '+', each needed, with '|' between alternatives);
        status TT_OK means that nothing may be recorded (a NULL tensor input, a NULL context);
     3. the context still works: after tt_clear_error, tt_add of [1,2] and [3,4] gives [4,6];
     4. no guard region was overwritten (every context has debug_guards on).
   tests/check_api_table.sh checks that every TT_API function has at least one ROW.
   Run some rows only with TT_ARGS_ROW=tt_pad/ (a substring of "function/argument/callback"). */
#include "test_util.h"
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>

/* ---- the table ---------------------------------------------------------------------------- */

typedef void (*ar_any_fn)(void);        /* any public function, cast back by shared callbacks */

typedef enum ar_where { AR_IN_CTX, AR_IN_GRAPH, AR_IN_COMPILED } ar_where;

struct ar_row;
typedef struct ar_env {
    const struct ar_row *row;
    tt_ctx      *c;         /* the context of the call (guards on); checked and destroyed by the runner */
    tt_ctx      *c2;        /* a second context, for rows that need one (ar_ctx2) */
    tt_graph    *g;         /* graph rows: the error is read from g */
    tt_compiled *cc;        /* compiled rows: the error is read from cc */
    tt_status    got;       /* compiled rows: the status the call returned (cc has no status accessor) */
    tt_tensor   *x;         /* graph rows: an input that fits the graph */
    ar_where     where;     /* where the row's error is recorded */
} ar_env;

/* Makes the call with the bad argument; returns 1 when it returned its failure value. */
typedef int (*ar_call)(ar_env *e);

typedef struct ar_row {
    const char *fn;         /* the public function */
    ar_any_fn   f;          /* the same function, for callbacks shared by several rows */
    const char *arg;        /* the bad argument, as in the prototype ('+': more words needed) */
    tt_status   status;     /* the status to record; TT_OK: nothing may be recorded */
    ar_call     call;
    const char *call_name;  /* the callback, for messages */
} ar_row;

#define ROW(fn, arg, status, call) { #fn, (ar_any_fn)(fn), arg, status, call, #call }

/* ---- reporting ----------------------------------------------------------------------------- */

static int ar_row_failed;               /* the row now running failed a check */

static void ar_fail(const ar_row *r, int line, const char *fmt, ...) {
    char what[768], full[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "ROW %s [%s] %s: %s", r->fn, r->arg, r->call_name, what);
    ar_row_failed = 1;
    tt_test__fail(__FILE__, line, full);
}

/* A check made inside a callback (setup, or a second context's state). */
#define AR_EXPECT(e, cond) ((cond) ? 1 : (ar_fail((e)->row, __LINE__, "%s", #cond), 0))

static const char *ar_status_name(tt_status s) {
    switch (s) {
    case TT_OK: return "TT_OK";
    case TT_ERR_ARG: return "TT_ERR_ARG";
    case TT_ERR_OOM: return "TT_ERR_OOM";
    case TT_ERR_SHAPE: return "TT_ERR_SHAPE";
    case TT_ERR_DTYPE: return "TT_ERR_DTYPE";
    case TT_ERR_UNSUPPORTED: return "TT_ERR_UNSUPPORTED";
    case TT_ERR_STATE: return "TT_ERR_STATE";
    case TT_ERR_BACKEND: return "TT_ERR_BACKEND";
    case TT_ERR_INDEX: return "TT_ERR_INDEX";
    case TT_ERR_CORRUPT: return "TT_ERR_CORRUPT";
    case TT_ERR_FORMAT: return "TT_ERR_FORMAT";
    case TT_ERR_IO: return "TT_ERR_IO";
    }
    return "(unknown status)";
}

/* The name messages start with: the user-facing name of the tt_*_at access forms (their
   macros are what users call: tt_item(c, t) is tt_item_at(c, t, __FILE__, __LINE__)). */
static void ar_prefix(const char *fn, char *out, size_t size) {
    size_t n = strlen(fn);
    if (n > 3 && strcmp(fn + n - 3, "_at") == 0 &&
        (strcmp(fn, "tt_data_at") == 0 || strcmp(fn, "tt_item_at") == 0 ||
         strcmp(fn, "tt_get_at") == 0 || strcmp(fn, "tt_copy_to_f32_at") == 0))
        n -= 3;
    snprintf(out, size, "%.*s: ", (int)n, fn);
}

static int ar_is_ident(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* "a" followed by an English word ("a value", "a tensor") is the article, not the argument;
   followed by a verb or a conjunction ("a is [2,3]", "a and b") it is the name. */
static int ar_article(const char *after) {
    static const char *const verbs[] = {"is", "has", "and", "or", "does", "do", "must", "was", "of", "with", "at", "in",
                                        "to", "needs", "expects", "differ", "differs", "cannot"};
    size_t k, n = 0, i;
    if (after[0] != ' ' || !(after[1] >= 'a' && after[1] <= 'z')) return 0;
    while (ar_is_ident(after[1 + n])) n++;
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        k = strlen(verbs[i]);
        if (k == n && strncmp(after + 1, verbs[i], n) == 0) return 0;
    }
    return 1;
}

/* word occurs in s with no identifier character right before or after it (the argument
   "a" not as the English article). */
static int ar_has_word(const char *s, const char *word, size_t len) {
    const char *p = s;
    if (len == 0) return 1;
    while ((p = strstr(p, word)) != NULL) {
        size_t k;
        int same = 1;
        for (k = 0; k < len; k++) if (p[k] != word[k]) { same = 0; break; }
        if (same && (p == s || !ar_is_ident(p[-1])) && !ar_is_ident(p[len]) &&
            !(len == 1 && word[0] == 'a' && ar_article(p + 1)))
            return 1;
        p++;
    }
    return 0;
}

/* Every '+'-separated part of words has one '|'-separated alternative in s (as a word). */
static int ar_names_all(const char *s, const char *words, char *missing, size_t size) {
    const char *p = words;
    while (*p) {
        size_t part = strcspn(p, "+");
        const char *q = p;
        int found = 0;
        while (q < p + part) {
            size_t alt = strcspn(q, "|+");
            char one[64];
            if (alt >= sizeof one) alt = sizeof one - 1;
            memcpy(one, q, alt);
            one[alt] = '\0';
            if (ar_has_word(s, one, alt)) found = 1;
            q += alt;
            if (*q == '|') q++;
        }
        if (!found) { snprintf(missing, size, "%.*s", (int)part, p); return 0; }
        p += part;
        if (*p == '+') p++;
    }
    return 1;
}

static int ar_count(const char *s, const char *sub) {
    int n = 0;
    size_t k = strlen(sub);
    while (s && k && (s = strstr(s, sub)) != NULL) { n++; s += k; }
    return n;
}

/* ---- test data ----------------------------------------------------------------------------- */

/* f32 tensor of the given sizes (random values in [0,1)), made in c. */
static tt_tensor *ar_t(tt_ctx *c, int ndim, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    int64_t s[4];
    s[0] = d0; s[1] = d1; s[2] = d2; s[3] = d3;
    return tt_rand(c, 7, ndim, s);
}
#define AR_T0(c)             ar_t((c), 0, 0, 0, 0, 0)
#define AR_T1(c, a)          ar_t((c), 1, (a), 0, 0, 0)
#define AR_T2(c, a, b)       ar_t((c), 2, (a), (b), 0, 0)
#define AR_T3(c, a, b, d)    ar_t((c), 3, (a), (b), (d), 0)
#define AR_T4(c, a, b, d, f) ar_t((c), 4, (a), (b), (d), (f))

/* Zeros of dtype with the given sizes. */
static tt_tensor *ar_z(tt_ctx *c, tt_dtype dt, int ndim, int64_t d0, int64_t d1) {
    int64_t s[2];
    s[0] = d0; s[1] = d1;
    return tt_zeros(c, dt, ndim, s);
}

/* The row is about function f (for callbacks shared by several rows). */
static bool ar_is(const ar_env *e, ar_any_fn f) { return e->row->f == f; }

/* A second guarded context for the row (destroyed by the runner). */
static tt_ctx *ar_ctx2(ar_env *e) {
    if (!e->c2) e->c2 = tu_ctx();
    return e->c2;
}

#define AR_HUGE   ((int64_t)1 << 40)                 /* two of them multiply past INT64_MAX */
#define AR_BAD_DTYPE ((tt_dtype)99)

/* ---- the runner ---------------------------------------------------------------------------- */

static void ar_check_error(ar_env *e) {
    const ar_row *r = e->row;
    const char *msg = NULL;
    tt_status st = TT_OK;
    char prefix[96], missing[96];
    if (e->where == AR_IN_GRAPH) {
        if (!e->g) {
            ar_fail(r, __LINE__, "setup: no graph to read the error from (ctx: %s)", tt_error(e->c) ? tt_error(e->c) : "no error");
            return;
        }
        st = tt_graph_status(e->g);
        msg = tt_graph_error(e->g);
    } else if (e->where == AR_IN_COMPILED) {
        if (!e->cc) { ar_fail(r, __LINE__, "setup: no compiled function to read the error from"); return; }
        st = e->got;
        msg = tt_compiled_error(e->cc);
    } else {
        st = tt_ctx_status(e->c);
        msg = tt_error(e->c);
    }
    if (r->status == TT_OK) {
        if (st != TT_OK || msg)
            ar_fail(r, __LINE__, "recorded an error, expected none: %s \"%s\"", ar_status_name(st), msg ? msg : "(null)");
        if (e->where != AR_IN_CTX && tt_ctx_status(e->c) != TT_OK)
            ar_fail(r, __LINE__, "recorded an error in ctx, expected none: \"%s\"", tt_error(e->c));
        return;
    }
    if (st == TT_OK && !msg) { ar_fail(r, __LINE__, "no error recorded, expected %s", ar_status_name(r->status)); return; }
    if (st != r->status)
        ar_fail(r, __LINE__, "status %s, expected %s (message \"%s\")", ar_status_name(st), ar_status_name(r->status),
                msg ? msg : "(null)");
    if (!msg || !*msg) { ar_fail(r, __LINE__, "no error message, expected one"); return; }
    ar_prefix(r->fn, prefix, sizeof prefix);
    if (strncmp(msg, prefix, strlen(prefix)) != 0)
        ar_fail(r, __LINE__, "message does not start with \"%s\": \"%s\"", prefix, msg);
    else if (ar_count(msg, prefix) != 1)
        ar_fail(r, __LINE__, "message repeats \"%s\": \"%s\"", prefix, msg);
    if (!ar_names_all(msg + (strncmp(msg, prefix, strlen(prefix)) == 0 ? strlen(prefix) : 0), r->arg, missing, sizeof missing))
        ar_fail(r, __LINE__, "message does not name \"%s\": \"%s\"", missing, msg);
}

/* The context computes again after tt_clear_error: [1,2] + [3,4] = [4,6]. */
static void ar_check_usable(ar_env *e, tt_ctx *c, const char *which) {
    float a[2] = {1, 2}, b[2] = {3, 4}, out[2] = {0, 0};
    int64_t n = 2;
    tt_tensor *x, *y, *s;
    tt_clear_error(c);
    x = tt_from_data(c, TT_F32, 1, &n, a);
    y = tt_from_data(c, TT_F32, 1, &n, b);
    s = tt_add(c, x, y);
    if (!s || tt_copy_to_f32(c, s, out, 2) != TT_OK || out[0] != 4.0f || out[1] != 6.0f)
        ar_fail(e->row, __LINE__, "%s is not usable after tt_clear_error: tt_add gave %s [%g, %g] (%s)", which,
                s ? "" : "NULL", (double)out[0], (double)out[1], tt_error(c) ? tt_error(c) : "no error");
    tt_clear_error(c);
}

static void ar_end_trace(tt_ctx *c) {
    if (c && tt_is_tracing(c)) {
        tt_graph_destroy(tt_trace_end(c, NULL, 0));
        tt_clear_error(c);
    }
}

static const char *ar_only(void) {
    const char *s = getenv("TT_ARGS_ROW");
    return s && *s ? s : NULL;
}

static void ar_run_rows(const char *table, const ar_row *rows, size_t n) {
    size_t i;
    int failed = 0, ran = 0;
    const char *only = ar_only();
    for (i = 0; i < n; i++) {
        const ar_row *r = &rows[i];
        ar_env e;
        int ok;
        if (only) {
            char id[200];
            snprintf(id, sizeof id, "%s/%s/%s", r->fn, r->arg, r->call_name);
            if (!strstr(id, only)) continue;
        }
        ran++;
        memset(&e, 0, sizeof e);
        e.row = r;
        e.where = AR_IN_CTX;
        e.got = TT_OK;
        ar_row_failed = 0;
        e.c = tu_ctx();
        if (!e.c) { ar_fail(r, __LINE__, "setup: tu_ctx() failed"); failed++; continue; }
        ok = r->call(&e);
        if (!ok) ar_fail(r, __LINE__, "did not return its failure value");
        ar_check_error(&e);
        if (e.g) tt_graph_clear_error(e.g);
        ar_check_usable(&e, e.c, "ctx");
        if (e.c2) ar_check_usable(&e, e.c2, "the second context");
        ar_end_trace(e.c);
        ar_end_trace(e.c2);
        if (!tt_ctx_check_guards(e.c)) ar_fail(r, __LINE__, "a guard region of ctx was overwritten: %s", tt_error(e.c));
        if (e.c2 && !tt_ctx_check_guards(e.c2))
            ar_fail(r, __LINE__, "a guard region of the second context was overwritten: %s", tt_error(e.c2));
        tt_compiled_destroy(e.cc);
        tt_graph_destroy(e.g);
        tt_ctx_destroy(e.c2);
        tt_ctx_destroy(e.c);
        failed += ar_row_failed;
    }
    if (failed) printf("    %s: %d of %d rows failed\n", table, failed, ran);
}
#define AR_RUN(rows) ar_run_rows(#rows, rows, sizeof(rows) / sizeof(rows[0]))

/* ==== creation ============================================================================= */

typedef tt_tensor *(*ar_make_fn)(tt_ctx *, tt_dtype, int, const int64_t *);

static float ar_buffer[64];              /* data for tt_from_data / tt_wrap rows (never read past 64) */
static int64_t ar_int64_buffer[64];      /* data for tt_from_int64 rows (zeros) */

/* Calls the row's creation function (tt_empty, tt_zeros, tt_ones, tt_full, tt_rand,
   tt_randn, tt_from_data, tt_wrap) with these arguments. */
static tt_tensor *ar_make(ar_env *e, tt_ctx *c, tt_dtype dt, int ndim, const int64_t *shape) {
    ar_any_fn f = e->row->f;
    if (f == (ar_any_fn)tt_full) return tt_full(c, dt, ndim, shape, 2.0);
    if (f == (ar_any_fn)tt_rand) return tt_rand(c, 1, ndim, shape);
    if (f == (ar_any_fn)tt_randn) return tt_randn(c, 1, ndim, shape);
    if (f == (ar_any_fn)tt_from_data) return tt_from_data(c, dt, ndim, shape, ar_buffer);
    if (f == (ar_any_fn)tt_wrap) return tt_wrap(c, dt, ndim, shape, ar_buffer);
    if (f == (ar_any_fn)tt_from_int64) return tt_from_int64(c, ndim, shape, ar_int64_buffer);
    return ((ar_make_fn)f)(c, dt, ndim, shape);
}

static int make_null_ctx(ar_env *e) { int64_t s[2] = {2, 3}; return ar_make(e, NULL, TT_F32, 2, s) == NULL; }
static int make_bad_dtype(ar_env *e) { int64_t s[2] = {2, 3}; return ar_make(e, e->c, AR_BAD_DTYPE, 2, s) == NULL; }
static int make_neg_dtype(ar_env *e) { int64_t s[2] = {2, 3}; return ar_make(e, e->c, (tt_dtype)-1, 2, s) == NULL; }
static int make_neg_ndim(ar_env *e) { int64_t s[2] = {2, 3}; return ar_make(e, e->c, TT_F32, -1, s) == NULL; }
static int make_ndim_9(ar_env *e) {
    int64_t s[TT_MAX_DIMS + 1];
    int i;
    for (i = 0; i <= TT_MAX_DIMS; i++) s[i] = 1;
    return ar_make(e, e->c, TT_F32, TT_MAX_DIMS + 1, s) == NULL;
}
static int make_null_shape(ar_env *e) { return ar_make(e, e->c, TT_F32, 2, NULL) == NULL; }
static int make_neg_size(ar_env *e) { int64_t s[2] = {2, -3}; return ar_make(e, e->c, TT_F32, 2, s) == NULL; }
static int make_overflow(ar_env *e) { int64_t s[2] = {AR_HUGE, AR_HUGE}; return ar_make(e, e->c, TT_F32, 2, s) == NULL; }
static int make_int64_max(ar_env *e) { int64_t s[1] = {INT64_MAX}; return ar_make(e, e->c, TT_F32, 1, s) == NULL; }
static int make_null_data(ar_env *e) {
    int64_t s[2] = {2, 3};
    if (e->row->f == (ar_any_fn)tt_wrap) return tt_wrap(e->c, TT_F32, 2, s, NULL) == NULL;
    if (e->row->f == (ar_any_fn)tt_from_int64) return tt_from_int64(e->c, 2, s, NULL) == NULL;
    return tt_from_data(e->c, TT_F32, 2, s, NULL) == NULL;
}

static int from_int64_big(ar_env *e) { int64_t n = 3, v[3] = {0, (int64_t)1 << 31, 1}; return tt_from_int64(e->c, 1, &n, v) == NULL; }
static int from_int64_min(ar_env *e) { int64_t n = 2, v[2] = {INT64_MIN, 0}; return tt_from_int64(e->c, 1, &n, v) == NULL; }

static int scalar_null_ctx(ar_env *e) { (void)e; return tt_scalar(NULL, 1.0f) == NULL; }

static int arange_null_ctx(ar_env *e) { (void)e; return tt_arange(NULL, TT_F32, 0, 4, 1) == NULL; }
static int arange_bad_dtype(ar_env *e) { return tt_arange(e->c, AR_BAD_DTYPE, 0, 4, 1) == NULL; }
static int arange_step_0(ar_env *e) { return tt_arange(e->c, TT_F32, 0, 4, 0) == NULL; }
static int arange_step_nan(ar_env *e) { return tt_arange(e->c, TT_F32, 0, 4, NAN) == NULL; }
static int arange_start_nan(ar_env *e) { return tt_arange(e->c, TT_F32, NAN, 4, 1) == NULL; }
static int arange_start_inf(ar_env *e) { return tt_arange(e->c, TT_F32, -INFINITY, 4, 1) == NULL; }
static int arange_stop_nan(ar_env *e) { return tt_arange(e->c, TT_F32, 0, NAN, 1) == NULL; }
static int arange_stop_inf(ar_env *e) { return tt_arange(e->c, TT_F32, 0, INFINITY, 1) == NULL; }
static int arange_step_inf(ar_env *e) { return tt_arange(e->c, TT_F32, 0, 4, INFINITY) == NULL; }
static int arange_huge(ar_env *e) { return tt_arange(e->c, TT_F32, 0, 9.2e18, 1) == NULL; }

static int linspace_null_ctx(ar_env *e) { (void)e; return tt_linspace(NULL, 0, 1, 5) == NULL; }
static int linspace_neg(ar_env *e) { return tt_linspace(e->c, 0, 1, -1) == NULL; }
static int linspace_huge(ar_env *e) { return tt_linspace(e->c, 0, 1, INT64_MAX) == NULL; }
static int linspace_start_nan(ar_env *e) { return tt_linspace(e->c, NAN, 1, 5) == NULL; }
static int linspace_end_nan(ar_env *e) { return tt_linspace(e->c, 0, NAN, 5) == NULL; }

static int eye_null_ctx(ar_env *e) { (void)e; return tt_eye(NULL, TT_F32, 2, 2) == NULL; }
static int eye_bad_dtype(ar_env *e) { return tt_eye(e->c, AR_BAD_DTYPE, 2, 2) == NULL; }
static int eye_neg_n(ar_env *e) { return tt_eye(e->c, TT_F32, -1, 2) == NULL; }
static int eye_neg_m(ar_env *e) { return tt_eye(e->c, TT_F32, 2, -1) == NULL; }
static int eye_overflow(ar_env *e) { return tt_eye(e->c, TT_F32, AR_HUGE, AR_HUGE) == NULL; }
static int eye_n_max(ar_env *e) { return tt_eye(e->c, TT_F32, INT64_MAX, 1) == NULL; }

static const ar_row creation_rows[] = {
    ROW(tt_empty, "ctx", TT_OK, make_null_ctx),
    ROW(tt_empty, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_empty, "dtype", TT_ERR_DTYPE, make_neg_dtype),
    ROW(tt_empty, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_empty, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_empty, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_empty, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_empty, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_empty, "shape+overflows", TT_ERR_ARG, make_int64_max),
    ROW(tt_zeros, "ctx", TT_OK, make_null_ctx),
    ROW(tt_zeros, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_zeros, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_zeros, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_zeros, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_zeros, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_zeros, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_ones, "ctx", TT_OK, make_null_ctx),
    ROW(tt_ones, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_ones, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_ones, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_ones, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_ones, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_ones, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_full, "ctx", TT_OK, make_null_ctx),
    ROW(tt_full, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_full, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_full, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_full, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_full, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_full, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_full, "shape+overflows", TT_ERR_ARG, make_int64_max),
    ROW(tt_rand, "ctx", TT_OK, make_null_ctx),
    ROW(tt_rand, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_rand, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_rand, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_rand, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_rand, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_randn, "ctx", TT_OK, make_null_ctx),
    ROW(tt_randn, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_randn, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_randn, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_randn, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_randn, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_from_data, "ctx", TT_OK, make_null_ctx),
    ROW(tt_from_data, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_from_data, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_from_data, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_from_data, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_from_data, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_from_data, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_from_data, "data", TT_ERR_ARG, make_null_data),
    ROW(tt_from_int64, "ctx", TT_OK, make_null_ctx),
    ROW(tt_from_int64, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_from_int64, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_from_int64, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_from_int64, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_from_int64, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_from_int64, "data", TT_ERR_ARG, make_null_data),
    ROW(tt_from_int64, "data", TT_ERR_INDEX, from_int64_big),
    ROW(tt_from_int64, "data", TT_ERR_INDEX, from_int64_min),
    ROW(tt_wrap, "ctx", TT_OK, make_null_ctx),
    ROW(tt_wrap, "dtype", TT_ERR_DTYPE, make_bad_dtype),
    ROW(tt_wrap, "ndim", TT_ERR_ARG, make_neg_ndim),
    ROW(tt_wrap, "ndim+TT_MAX_DIMS", TT_ERR_ARG, make_ndim_9),
    ROW(tt_wrap, "shape", TT_ERR_ARG, make_null_shape),
    ROW(tt_wrap, "shape", TT_ERR_ARG, make_neg_size),
    ROW(tt_wrap, "shape+overflows", TT_ERR_ARG, make_overflow),
    ROW(tt_wrap, "shape+overflows", TT_ERR_ARG, make_int64_max),
    ROW(tt_wrap, "data", TT_ERR_ARG, make_null_data),
    ROW(tt_scalar, "ctx", TT_OK, scalar_null_ctx),
    ROW(tt_arange, "ctx", TT_OK, arange_null_ctx),
    ROW(tt_arange, "dtype", TT_ERR_DTYPE, arange_bad_dtype),
    ROW(tt_arange, "step", TT_ERR_ARG, arange_step_0),
    ROW(tt_arange, "step", TT_ERR_ARG, arange_step_nan),
    ROW(tt_arange, "step", TT_ERR_ARG, arange_step_inf),
    ROW(tt_arange, "start", TT_ERR_ARG, arange_start_nan),
    ROW(tt_arange, "start", TT_ERR_ARG, arange_start_inf),
    ROW(tt_arange, "stop", TT_ERR_ARG, arange_stop_nan),
    ROW(tt_arange, "stop", TT_ERR_ARG, arange_stop_inf),
    ROW(tt_arange, "stop", TT_ERR_ARG, arange_huge),
    ROW(tt_linspace, "ctx", TT_OK, linspace_null_ctx),
    ROW(tt_linspace, "steps", TT_ERR_ARG, linspace_neg),
    ROW(tt_linspace, "steps", TT_ERR_ARG, linspace_huge),
    ROW(tt_linspace, "start", TT_ERR_ARG, linspace_start_nan),
    ROW(tt_linspace, "end", TT_ERR_ARG, linspace_end_nan),
    ROW(tt_eye, "ctx", TT_OK, eye_null_ctx),
    ROW(tt_eye, "dtype", TT_ERR_DTYPE, eye_bad_dtype),
    ROW(tt_eye, "n", TT_ERR_ARG, eye_neg_n),
    ROW(tt_eye, "m", TT_ERR_ARG, eye_neg_m),
    ROW(tt_eye, "n|m+overflows", TT_ERR_ARG, eye_overflow),
    ROW(tt_eye, "n", TT_ERR_ARG, eye_n_max),
};

/* ==== version, dtypes, status, context, scopes ================================================ */

static int version_none(ar_env *e) { (void)e; return tt_version() && strcmp(tt_version(), TT_VERSION_STRING) == 0; }
static int status_str_bad(ar_env *e) { const char *s = tt_status_str((tt_status)42); (void)e; return s && strcmp(s, "ok") != 0; }
static int status_str_neg(ar_env *e) { const char *s = tt_status_str((tt_status)-100); (void)e; return s && strcmp(s, "ok") != 0; }
static int dtype_name_bad(ar_env *e) {
    const char *s = tt_dtype_name(TT_DTYPE_COUNT), *n = tt_dtype_name((tt_dtype)-1);
    (void)e;
    return s && n && strcmp(s, "f32") != 0 && strcmp(n, "f32") != 0;
}
static int dtype_size_bad(ar_env *e) { (void)e; return tt_dtype_size(TT_DTYPE_COUNT) == 0 && tt_dtype_size((tt_dtype)-1) == 0; }
/* NaN stays NaN through every conversion, also a NaN whose payload is only in the low bits. */
static float ar_nan_low_bits(void) { uint32_t u = 0x7F800001u; float f; memcpy(&f, &u, 4); return f; }
static int f16_nan(ar_env *e) {
    uint16_t a = tt_f32_to_f16(NAN), b = tt_f32_to_f16(ar_nan_low_bits());
    (void)e;
    return (a & 0x7C00u) == 0x7C00u && (a & 0x3FFu) != 0 && (b & 0x7C00u) == 0x7C00u && (b & 0x3FFu) != 0;
}
static int f16_to_f32_nan(ar_env *e) { (void)e; return isnan(tt_f16_to_f32(0x7E00u)) && isnan(tt_f16_to_f32(0xFC01u)); }
static int bf16_nan(ar_env *e) {
    uint16_t a = tt_f32_to_bf16(NAN), b = tt_f32_to_bf16(ar_nan_low_bits());
    (void)e;
    return (a & 0x7F80u) == 0x7F80u && (a & 0x7Fu) != 0 && (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0;
}
static int bf16_to_f32_nan(ar_env *e) { (void)e; return isnan(tt_bf16_to_f32(0x7FC0u)) && isnan(tt_bf16_to_f32(0xFF81u)); }

static int desc_default_none(ar_env *e) {
    tt_ctx_desc d = tt_ctx_desc_default();
    (void)e;
    return !d.mem_buffer && d.mem_size == 0 && d.n_threads == 0 && d.debug_guards == 0 && !d.parallel_for && !d.allocator.alloc;
}
static int ctx_create_size_no_buffer(ar_env *e) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    (void)e;
    d.mem_size = 4096;
    c = tt_ctx_create(&d);
    tt_ctx_destroy(c);
    return c == NULL;
}
static int ctx_create_neg_threads(ar_env *e) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    (void)e;
    d.n_threads = -1;
    c = tt_ctx_create(&d);
    tt_ctx_destroy(c);
    return c == NULL;
}
static int ctx_create_bad_isa(ar_env *e) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    (void)e;
    d.isa = "sse9";
    c = tt_ctx_create(&d);
    tt_ctx_destroy(c);
    return c == NULL;
}
static int ctx_create_small_buffer(ar_env *e) {
    static unsigned char small[TT_CTX_OVERHEAD / 2];
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    (void)e;
    d.mem_buffer = small;
    d.mem_size = sizeof small;
    c = tt_ctx_create(&d);
    tt_ctx_destroy(c);
    return c == NULL;
}
static int ctx_destroy_null(ar_env *e) { (void)e; tt_ctx_destroy(NULL); return 1; }
static int error_null(ar_env *e) { const char *s = tt_error(NULL); (void)e; return s != NULL && *s != '\0'; }
static int status_null(ar_env *e) { (void)e; return tt_ctx_status(NULL) < 0; }
static int clear_null(ar_env *e) { (void)e; tt_clear_error(NULL); return 1; }
static int threads_null(ar_env *e) { (void)e; return tt_ctx_num_threads(NULL) <= 0; }
static int isa_null(ar_env *e) { (void)e; return tt_ctx_isa(NULL) == NULL; }
static int used_null(ar_env *e) { (void)e; return tt_ctx_used(NULL) == 0; }
static int guards_null(ar_env *e) { (void)e; return !tt_ctx_check_guards(NULL); }
static int scope_begin_null(ar_env *e) { tt_scope s = tt_scope_begin(NULL); (void)e; return s.ctx == NULL; }
static int scope_end_null(ar_env *e) { tt_scope s = tt_scope_begin(e->c); tt_scope_end(NULL, s); return 1; }
/* A scope of another context: an error, and nothing of ctx is freed. */
static int scope_end_other(ar_env *e) {
    tt_ctx *c2 = ar_ctx2(e);
    tt_scope s2 = tt_scope_begin(c2);
    tt_tensor *keep = AR_T1(e->c, 4);
    size_t used = tt_ctx_used(e->c), used2;
    AR_T1(c2, 100);
    used2 = tt_ctx_used(c2);
    tt_scope_end(e->c, s2);
    AR_EXPECT(e, tt_ctx_used(e->c) == used);
    AR_EXPECT(e, tt_ctx_used(c2) == used2);
    AR_EXPECT(e, keep != NULL);
    return 1;
}
static int scope_end_zero(ar_env *e) {
    tt_scope s;
    size_t used;
    AR_T1(e->c, 4);
    used = tt_ctx_used(e->c);
    memset(&s, 0, sizeof s);
    tt_scope_end(e->c, s);
    AR_EXPECT(e, tt_ctx_used(e->c) == used);
    return 1;
}
/* Ending an outer scope first frees the inner one's position: ending the inner one then is an error. */
static int scope_end_freed(ar_env *e) {
    tt_scope outer = tt_scope_begin(e->c), inner;
    AR_T1(e->c, 1000);
    inner = tt_scope_begin(e->c);
    AR_T1(e->c, 1000);
    tt_scope_end(e->c, outer);
    tt_scope_end(e->c, inner);
    return 1;
}

static const ar_row context_rows[] = {
    ROW(tt_version, "", TT_OK, version_none),
    ROW(tt_status_str, "s", TT_OK, status_str_bad),
    ROW(tt_status_str, "s", TT_OK, status_str_neg),
    ROW(tt_dtype_name, "t", TT_OK, dtype_name_bad),
    ROW(tt_dtype_size, "t", TT_OK, dtype_size_bad),
    ROW(tt_f32_to_f16, "x", TT_OK, f16_nan),
    ROW(tt_f16_to_f32, "h", TT_OK, f16_to_f32_nan),
    ROW(tt_f32_to_bf16, "x", TT_OK, bf16_nan),
    ROW(tt_bf16_to_f32, "h", TT_OK, bf16_to_f32_nan),
    ROW(tt_ctx_desc_default, "", TT_OK, desc_default_none),
    ROW(tt_ctx_create, "desc->mem_size", TT_OK, ctx_create_size_no_buffer),
    ROW(tt_ctx_create, "desc->n_threads", TT_OK, ctx_create_neg_threads),
    ROW(tt_ctx_create, "desc->isa", TT_OK, ctx_create_bad_isa),
    ROW(tt_ctx_create, "desc->mem_buffer", TT_OK, ctx_create_small_buffer),
    ROW(tt_ctx_destroy, "ctx", TT_OK, ctx_destroy_null),
    ROW(tt_error, "ctx", TT_OK, error_null),
    ROW(tt_ctx_status, "ctx", TT_OK, status_null),
    ROW(tt_clear_error, "ctx", TT_OK, clear_null),
    ROW(tt_ctx_num_threads, "ctx", TT_OK, threads_null),
    ROW(tt_ctx_isa, "ctx", TT_OK, isa_null),
    ROW(tt_ctx_used, "ctx", TT_OK, used_null),
    ROW(tt_ctx_check_guards, "ctx", TT_OK, guards_null),
    ROW(tt_scope_begin, "ctx", TT_OK, scope_begin_null),
    ROW(tt_scope_end, "ctx", TT_OK, scope_end_null),
    ROW(tt_scope_end, "scope", TT_ERR_ARG, scope_end_other),
    ROW(tt_scope_end, "scope", TT_ERR_ARG, scope_end_zero),
    ROW(tt_scope_end, "scope", TT_ERR_ARG, scope_end_freed),
};

/* ==== access ================================================================================ */

static int contiguous_null(ar_env *e) { (void)e; return !tt_is_contiguous(NULL); }
static int same_shape_null_a(ar_env *e) { return !tt_same_shape(NULL, AR_T1(e->c, 2)); }
static int same_shape_null_b(ar_env *e) { return !tt_same_shape(AR_T1(e->c, 2), NULL); }
static int data_null(ar_env *e) { (void)e; return (tt_data)(NULL) == NULL; }
static int data_at_null(ar_env *e) { (void)e; return tt_data_at(NULL, __FILE__, __LINE__) == NULL; }

/* tt_item and tt_item_at (the row's f) with these arguments. */
static float ar_item(ar_env *e, tt_ctx *c, const tt_tensor *t) {
    if (e->row->f == (ar_any_fn)tt_item_at) return tt_item_at(c, t, __FILE__, __LINE__);
    return (tt_item)(c, t);
}
static int item_null_ctx(ar_env *e) { return isnan(ar_item(e, NULL, AR_T1(e->c, 3))); }
static int item_null_t(ar_env *e) { return isnan(ar_item(e, e->c, NULL)); }
static int item_numel(ar_env *e) { return isnan(ar_item(e, e->c, AR_T1(e->c, 3))); }
static int item_empty(ar_env *e) { return isnan(ar_item(e, e->c, AR_T1(e->c, 0))); }

static float ar_get(ar_env *e, tt_ctx *c, const tt_tensor *t, const int64_t *idx) {
    if (e->row->f == (ar_any_fn)tt_get_at) return tt_get_at(c, t, idx, __FILE__, __LINE__);
    return (tt_get)(c, t, idx);
}
static int get_null_ctx(ar_env *e) { int64_t i[2] = {5, 0}; return isnan(ar_get(e, NULL, AR_T2(e->c, 2, 3), i)); }
static int get_null_t(ar_env *e) { int64_t i[2] = {0, 0}; return isnan(ar_get(e, e->c, NULL, i)); }
static int get_null_idx(ar_env *e) { return isnan(ar_get(e, e->c, AR_T2(e->c, 2, 3), NULL)); }
static int get_idx_range(ar_env *e) { int64_t i[2] = {0, 3}; return isnan(ar_get(e, e->c, AR_T2(e->c, 2, 3), i)); }
static int get_idx_neg(ar_env *e) { int64_t i[2] = {-3, 0}; return isnan(ar_get(e, e->c, AR_T2(e->c, 2, 3), i)); }
static int get_idx_min(ar_env *e) { int64_t i[2] = {INT64_MIN, 0}; return isnan(ar_get(e, e->c, AR_T2(e->c, 2, 3), i)); }
static int get_idx_max(ar_env *e) { int64_t i[2] = {0, INT64_MAX}; return isnan(ar_get(e, e->c, AR_T2(e->c, 2, 3), i)); }

static tt_status ar_copy(ar_env *e, tt_ctx *c, const tt_tensor *t, float *dst, int64_t n) {
    if (e->row->f == (ar_any_fn)tt_copy_to_f32_at) return tt_copy_to_f32_at(c, t, dst, n, __FILE__, __LINE__);
    return (tt_copy_to_f32)(c, t, dst, n);
}
static int copy_null_ctx(ar_env *e) { float d[6]; return ar_copy(e, NULL, AR_T1(e->c, 6), d, 5) < 0; }
static int copy_null_t(ar_env *e) { float d[6]; return ar_copy(e, e->c, NULL, d, 6) < 0; }
static int copy_null_dst(ar_env *e) { return ar_copy(e, e->c, AR_T1(e->c, 6), NULL, 6) < 0; }
static int copy_n_neg(ar_env *e) { float d[6]; return ar_copy(e, e->c, AR_T1(e->c, 6), d, -1) < 0; }
static int copy_n_more(ar_env *e) { float d[8]; return ar_copy(e, e->c, AR_T1(e->c, 6), d, 7) < 0; }
static int copy_n_less(ar_env *e) { float d[6]; d[5] = 42.0f; return ar_copy(e, e->c, AR_T1(e->c, 6), d, 5) < 0 && d[5] == 42.0f; }

static const ar_row access_rows[] = {
    ROW(tt_is_contiguous, "t", TT_OK, contiguous_null),
    ROW(tt_same_shape, "a", TT_OK, same_shape_null_a),
    ROW(tt_same_shape, "b", TT_OK, same_shape_null_b),
    ROW(tt_data, "t", TT_OK, data_null),
    ROW(tt_data_at, "t", TT_OK, data_at_null),
    ROW(tt_item, "ctx", TT_OK, item_null_ctx),
    ROW(tt_item, "t", TT_OK, item_null_t),
    ROW(tt_item, "t", TT_ERR_SHAPE, item_numel),
    ROW(tt_item, "t", TT_ERR_SHAPE, item_empty),
    ROW(tt_item_at, "ctx", TT_OK, item_null_ctx),
    ROW(tt_item_at, "t", TT_OK, item_null_t),
    ROW(tt_item_at, "t", TT_ERR_SHAPE, item_numel),
    ROW(tt_get, "ctx", TT_OK, get_null_ctx),
    ROW(tt_get, "t", TT_OK, get_null_t),
    ROW(tt_get, "idx", TT_ERR_ARG, get_null_idx),
    ROW(tt_get, "idx", TT_ERR_INDEX, get_idx_range),
    ROW(tt_get, "idx", TT_ERR_INDEX, get_idx_neg),
    ROW(tt_get, "idx", TT_ERR_INDEX, get_idx_min),
    ROW(tt_get, "idx", TT_ERR_INDEX, get_idx_max),
    ROW(tt_get_at, "ctx", TT_OK, get_null_ctx),
    ROW(tt_get_at, "t", TT_OK, get_null_t),
    ROW(tt_get_at, "idx", TT_ERR_ARG, get_null_idx),
    ROW(tt_get_at, "idx", TT_ERR_INDEX, get_idx_range),
    ROW(tt_copy_to_f32, "ctx", TT_OK, copy_null_ctx),
    ROW(tt_copy_to_f32, "t", TT_ERR_ARG, copy_null_t),
    ROW(tt_copy_to_f32, "dst", TT_ERR_ARG, copy_null_dst),
    ROW(tt_copy_to_f32, "n", TT_ERR_ARG, copy_n_neg),
    ROW(tt_copy_to_f32, "n", TT_ERR_SHAPE, copy_n_more),
    ROW(tt_copy_to_f32, "n", TT_ERR_SHAPE, copy_n_less),
    ROW(tt_copy_to_f32_at, "ctx", TT_OK, copy_null_ctx),
    ROW(tt_copy_to_f32_at, "t", TT_ERR_ARG, copy_null_t),
    ROW(tt_copy_to_f32_at, "dst", TT_ERR_ARG, copy_null_dst),
    ROW(tt_copy_to_f32_at, "n", TT_ERR_ARG, copy_n_neg),
    ROW(tt_copy_to_f32_at, "n", TT_ERR_SHAPE, copy_n_more),
};

/* ==== views ================================================================================= */

typedef tt_tensor *(*ar_shape_fn)(tt_ctx *, tt_tensor *, int, const int64_t *);   /* reshape, view, expand */

static int shape_null_ctx(ar_env *e) { int64_t s[1] = {6}; return ((ar_shape_fn)e->row->f)(NULL, AR_T2(e->c, 2, 3), 1, s) == NULL; }
static int shape_null_x(ar_env *e) { int64_t s[1] = {6}; return ((ar_shape_fn)e->row->f)(e->c, NULL, 1, s) == NULL; }
static int shape_neg_ndim(ar_env *e) { int64_t s[1] = {6}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), -1, s) == NULL; }
static int shape_ndim_9(ar_env *e) {
    int64_t s[TT_MAX_DIMS + 1];
    int i;
    for (i = 0; i <= TT_MAX_DIMS; i++) s[i] = 1;
    return ((ar_shape_fn)e->row->f)(e->c, AR_T0(e->c), TT_MAX_DIMS + 1, s) == NULL;
}
static int shape_null_shape(ar_env *e) { return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, NULL) == NULL; }
static int shape_two_minus1(ar_env *e) { int64_t s[2] = {-1, -1}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int shape_minus2(ar_env *e) { int64_t s[2] = {-2, -3}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int shape_count(ar_env *e) { int64_t s[1] = {5}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 1, s) == NULL; }
static int shape_zero_minus1(ar_env *e) { int64_t s[2] = {0, -1}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int shape_overflow(ar_env *e) { int64_t s[2] = {AR_HUGE, AR_HUGE}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int shape_max_minus1(ar_env *e) { int64_t s[2] = {INT64_MAX, -1}; return ((ar_shape_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int expand_fewer_dims(ar_env *e) { int64_t s[1] = {3}; return tt_expand(e->c, AR_T2(e->c, 2, 3), 1, s) == NULL; }
static int expand_mismatch(ar_env *e) { int64_t s[2] = {4, 3}; return tt_expand(e->c, AR_T2(e->c, 2, 3), 2, s) == NULL; }
static int expand_new_minus1(ar_env *e) { int64_t s[2] = {-1, 3}; return tt_expand(e->c, AR_T1(e->c, 3), 2, s) == NULL; }
static int expand_overflow(ar_env *e) { int64_t s[2] = {AR_HUGE, AR_HUGE}; return tt_expand(e->c, AR_T2(e->c, 1, 1), 2, s) == NULL; }

static int permute_null_ctx(ar_env *e) { int p[2] = {1, 0}; return tt_permute(NULL, AR_T2(e->c, 2, 3), p) == NULL; }
static int permute_null_x(ar_env *e) { int p[2] = {1, 0}; return tt_permute(e->c, NULL, p) == NULL; }
static int permute_null_perm(ar_env *e) { return tt_permute(e->c, AR_T2(e->c, 2, 3), NULL) == NULL; }
static int permute_repeat(ar_env *e) { int p[2] = {0, 0}; return tt_permute(e->c, AR_T2(e->c, 2, 3), p) == NULL; }
static int permute_range(ar_env *e) { int p[2] = {0, 2}; return tt_permute(e->c, AR_T2(e->c, 2, 3), p) == NULL; }
static int permute_neg_range(ar_env *e) { int p[2] = {-3, 0}; return tt_permute(e->c, AR_T2(e->c, 2, 3), p) == NULL; }
static int permute_int_min(ar_env *e) { int p[2] = {INT_MIN, 0}; return tt_permute(e->c, AR_T2(e->c, 2, 3), p) == NULL; }

static int transpose_null_ctx(ar_env *e) { return tt_transpose(NULL, AR_T2(e->c, 2, 3), 0, 1) == NULL; }
static int transpose_null_x(ar_env *e) { return tt_transpose(e->c, NULL, 0, 1) == NULL; }
static int transpose_axis0(ar_env *e) { return tt_transpose(e->c, AR_T2(e->c, 2, 3), 2, 1) == NULL; }
static int transpose_axis1(ar_env *e) { return tt_transpose(e->c, AR_T2(e->c, 2, 3), 0, -3) == NULL; }
static int transpose_int_min(ar_env *e) { return tt_transpose(e->c, AR_T2(e->c, 2, 3), 0, INT_MIN) == NULL; }

static int slice_null_ctx(ar_env *e) { return tt_slice(NULL, AR_T2(e->c, 2, 3), 0, 0, 1, 1) == NULL; }
static int slice_null_x(ar_env *e) { return tt_slice(e->c, NULL, 0, 0, 1, 1) == NULL; }
static int slice_axis(ar_env *e) { return tt_slice(e->c, AR_T2(e->c, 2, 3), 2, 0, 1, 1) == NULL; }
static int slice_axis_0d(ar_env *e) { return tt_slice(e->c, AR_T0(e->c), 0, 0, 1, 1) == NULL; }
static int slice_step_0(ar_env *e) { return tt_slice(e->c, AR_T2(e->c, 2, 3), 0, 0, 1, 0) == NULL; }
static int slice_step_neg(ar_env *e) { return tt_slice(e->c, AR_T2(e->c, 2, 3), 0, 0, 1, -1) == NULL; }
static int slice_step_min(ar_env *e) { return tt_slice(e->c, AR_T2(e->c, 2, 3), 0, 0, 1, INT64_MIN) == NULL; }

typedef tt_tensor *(*ar_axis_fn)(tt_ctx *, tt_tensor *, int);   /* squeeze, unsqueeze, softmax, log_softmax */

static int axis_null_ctx(ar_env *e) { return ((ar_axis_fn)e->row->f)(NULL, AR_T2(e->c, 2, 3), 0) == NULL; }
static int axis_null_x(ar_env *e) { return ((ar_axis_fn)e->row->f)(e->c, NULL, 0) == NULL; }
/* An axis past the end: 2 for a 2-d tensor (3 for unsqueeze, which may insert at 2). */
static int axis_past(ar_env *e) {
    int past = e->row->f == (ar_any_fn)tt_unsqueeze ? 3 : 2;
    return ((ar_axis_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), past) == NULL;
}
static int axis_before(ar_env *e) {
    int before = e->row->f == (ar_any_fn)tt_unsqueeze ? -4 : -3;
    return ((ar_axis_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), before) == NULL;
}
static int axis_int_min(ar_env *e) { return ((ar_axis_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), INT_MIN) == NULL; }
static int axis_int_max(ar_env *e) { return ((ar_axis_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), INT_MAX) == NULL; }
/* 0-d tensors take axis 0 and -1 (unsqueeze: -1 and 0); 1 and -2 are errors. */
static int axis_0d_1(ar_env *e) { return ((ar_axis_fn)e->row->f)(e->c, AR_T0(e->c), 1) == NULL; }
/* unsqueeze of a tensor with TT_MAX_DIMS axes */
static int unsqueeze_dims(ar_env *e) {
    int64_t s[TT_MAX_DIMS];
    int i;
    for (i = 0; i < TT_MAX_DIMS; i++) s[i] = 1;
    return tt_unsqueeze(e->c, tt_zeros(e->c, TT_F32, TT_MAX_DIMS, s), 0) == NULL;
}
static int axis_0d_m2(ar_env *e) { return ((ar_axis_fn)e->row->f)(e->c, AR_T0(e->c), -2) == NULL; }

static int flatten_null_ctx(ar_env *e) { return tt_flatten(NULL, AR_T2(e->c, 2, 3), 0, 1) == NULL; }
static int flatten_null_x(ar_env *e) { return tt_flatten(e->c, NULL, 0, 1) == NULL; }
static int flatten_start(ar_env *e) { return tt_flatten(e->c, AR_T2(e->c, 2, 3), 2, 1) == NULL; }
static int flatten_end(ar_env *e) { return tt_flatten(e->c, AR_T2(e->c, 2, 3), 0, -3) == NULL; }
static int flatten_order(ar_env *e) { return tt_flatten(e->c, AR_T3(e->c, 2, 3, 4), 2, 0) == NULL; }
static int flatten_0d(ar_env *e) { return tt_flatten(e->c, AR_T0(e->c), 0, 1) == NULL; }
static int flatten_0d_start(ar_env *e) { return tt_flatten(e->c, AR_T0(e->c), -2, 0) == NULL; }

typedef tt_tensor *(*ar_unary_fn)(tt_ctx *, tt_tensor *);

/* Every op with one tensor input x and nothing else that can be wrong here: the row's
   function with valid values for its other arguments. */
static tt_tensor *ar_call1(ar_env *e, tt_ctx *c, tt_tensor *x) {
    ar_any_fn f = e->row->f;
    if (f == (ar_any_fn)tt_leaky_relu) return tt_leaky_relu(c, x, 0.1f);
    if (f == (ar_any_fn)tt_elu) return tt_elu(c, x, 1.0f);
    if (f == (ar_any_fn)tt_clamp) return tt_clamp(c, x, 0.0f, 1.0f);
    if (f == (ar_any_fn)tt_pow_scalar) return tt_pow_scalar(c, x, 2.0f);
    if (f == (ar_any_fn)tt_add_scalar) return tt_add_scalar(c, x, 1.0f);
    if (f == (ar_any_fn)tt_sub_scalar) return tt_sub_scalar(c, x, 1.0f);
    if (f == (ar_any_fn)tt_mul_scalar) return tt_mul_scalar(c, x, 2.0f);
    if (f == (ar_any_fn)tt_div_scalar) return tt_div_scalar(c, x, 2.0f);
    if (f == (ar_any_fn)tt_cast) return tt_cast(c, x, TT_F16);
    return ((ar_unary_fn)f)(c, x);
}
static int one_null_ctx(ar_env *e) { return ar_call1(e, NULL, AR_T2(e->c, 2, 3)) == NULL; }
static int one_null_x(ar_env *e) { return ar_call1(e, e->c, NULL) == NULL; }

static const ar_row view_rows[] = {
    ROW(tt_reshape, "ctx", TT_OK, shape_null_ctx),
    ROW(tt_reshape, "x", TT_OK, shape_null_x),
    ROW(tt_reshape, "ndim", TT_ERR_ARG, shape_neg_ndim),
    ROW(tt_reshape, "ndim+TT_MAX_DIMS", TT_ERR_ARG, shape_ndim_9),
    ROW(tt_reshape, "shape", TT_ERR_ARG, shape_null_shape),
    ROW(tt_reshape, "shape", TT_ERR_ARG, shape_two_minus1),
    ROW(tt_reshape, "shape", TT_ERR_ARG, shape_minus2),
    ROW(tt_reshape, "shape", TT_ERR_SHAPE, shape_count),
    ROW(tt_reshape, "shape", TT_ERR_SHAPE, shape_zero_minus1),
    ROW(tt_reshape, "shape+overflows", TT_ERR_ARG, shape_overflow),
    ROW(tt_reshape, "shape", TT_ERR_SHAPE, shape_max_minus1),
    ROW(tt_view, "ctx", TT_OK, shape_null_ctx),
    ROW(tt_view, "x", TT_OK, shape_null_x),
    ROW(tt_view, "ndim", TT_ERR_ARG, shape_neg_ndim),
    ROW(tt_view, "ndim+TT_MAX_DIMS", TT_ERR_ARG, shape_ndim_9),
    ROW(tt_view, "shape", TT_ERR_ARG, shape_null_shape),
    ROW(tt_view, "shape", TT_ERR_ARG, shape_two_minus1),
    ROW(tt_view, "shape", TT_ERR_SHAPE, shape_count),
    ROW(tt_view, "shape", TT_ERR_SHAPE, shape_zero_minus1),
    ROW(tt_view, "shape+overflows", TT_ERR_ARG, shape_overflow),
    ROW(tt_expand, "ctx", TT_OK, shape_null_ctx),
    ROW(tt_expand, "x", TT_OK, shape_null_x),
    ROW(tt_expand, "ndim", TT_ERR_ARG, shape_neg_ndim),
    ROW(tt_expand, "ndim+TT_MAX_DIMS", TT_ERR_ARG, shape_ndim_9),
    ROW(tt_expand, "shape", TT_ERR_ARG, shape_null_shape),
    ROW(tt_expand, "shape", TT_ERR_ARG, shape_minus2),
    ROW(tt_expand, "ndim", TT_ERR_ARG, expand_fewer_dims),
    ROW(tt_expand, "shape", TT_ERR_SHAPE, expand_mismatch),
    ROW(tt_expand, "shape", TT_ERR_ARG, expand_new_minus1),
    ROW(tt_expand, "shape+overflows", TT_ERR_ARG, expand_overflow),
    ROW(tt_permute, "ctx", TT_OK, permute_null_ctx),
    ROW(tt_permute, "x", TT_OK, permute_null_x),
    ROW(tt_permute, "perm", TT_ERR_ARG, permute_null_perm),
    ROW(tt_permute, "perm", TT_ERR_ARG, permute_repeat),
    ROW(tt_permute, "perm", TT_ERR_ARG, permute_range),
    ROW(tt_permute, "perm", TT_ERR_ARG, permute_neg_range),
    ROW(tt_permute, "perm", TT_ERR_ARG, permute_int_min),
    ROW(tt_transpose, "ctx", TT_OK, transpose_null_ctx),
    ROW(tt_transpose, "x", TT_OK, transpose_null_x),
    ROW(tt_transpose, "axis0", TT_ERR_ARG, transpose_axis0),
    ROW(tt_transpose, "axis1", TT_ERR_ARG, transpose_axis1),
    ROW(tt_transpose, "axis1", TT_ERR_ARG, transpose_int_min),
    ROW(tt_slice, "ctx", TT_OK, slice_null_ctx),
    ROW(tt_slice, "x", TT_OK, slice_null_x),
    ROW(tt_slice, "axis", TT_ERR_ARG, slice_axis),
    ROW(tt_slice, "axis", TT_ERR_ARG, slice_axis_0d),
    ROW(tt_slice, "step", TT_ERR_ARG, slice_step_0),
    ROW(tt_slice, "step", TT_ERR_ARG, slice_step_neg),
    ROW(tt_slice, "step", TT_ERR_ARG, slice_step_min),
    ROW(tt_squeeze, "ctx", TT_OK, axis_null_ctx),
    ROW(tt_squeeze, "x", TT_OK, axis_null_x),
    ROW(tt_squeeze, "axis", TT_ERR_ARG, axis_past),
    ROW(tt_squeeze, "axis", TT_ERR_ARG, axis_before),
    ROW(tt_squeeze, "axis", TT_ERR_ARG, axis_int_min),
    ROW(tt_squeeze, "axis", TT_ERR_ARG, axis_0d_1),
    ROW(tt_squeeze, "axis", TT_ERR_ARG, axis_0d_m2),
    ROW(tt_unsqueeze, "ctx", TT_OK, axis_null_ctx),
    ROW(tt_unsqueeze, "x", TT_OK, axis_null_x),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_past),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_before),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_int_min),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_int_max),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_0d_1),
    ROW(tt_unsqueeze, "axis", TT_ERR_ARG, axis_0d_m2),
    ROW(tt_unsqueeze, "x+TT_MAX_DIMS", TT_ERR_ARG, unsqueeze_dims),
    ROW(tt_flatten, "ctx", TT_OK, flatten_null_ctx),
    ROW(tt_flatten, "x", TT_OK, flatten_null_x),
    ROW(tt_flatten, "start_axis", TT_ERR_ARG, flatten_start),
    ROW(tt_flatten, "end_axis", TT_ERR_ARG, flatten_end),
    ROW(tt_flatten, "start_axis+end_axis", TT_ERR_ARG, flatten_order),
    ROW(tt_flatten, "end_axis", TT_ERR_ARG, flatten_0d),
    ROW(tt_flatten, "start_axis", TT_ERR_ARG, flatten_0d_start),
    ROW(tt_contiguous, "ctx", TT_OK, one_null_ctx),
    ROW(tt_contiguous, "x", TT_OK, one_null_x),
    ROW(tt_clone, "ctx", TT_OK, one_null_ctx),
    ROW(tt_clone, "x", TT_OK, one_null_x),
};

/* ==== elementwise =========================================================================== */

typedef tt_tensor *(*ar_binary_fn)(tt_ctx *, tt_tensor *, tt_tensor *);

static int two_null_ctx(ar_env *e) { return ((ar_binary_fn)e->row->f)(NULL, AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }
static int two_null_a(ar_env *e) { return ((ar_binary_fn)e->row->f)(e->c, NULL, AR_T1(e->c, 3)) == NULL; }
static int two_null_b(ar_env *e) { return ((ar_binary_fn)e->row->f)(e->c, AR_T1(e->c, 3), NULL) == NULL; }
static int two_broadcast(ar_env *e) { return ((ar_binary_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), AR_T1(e->c, 4)) == NULL; }

static int where_null_ctx(ar_env *e) { return tt_where(NULL, ar_z(e->c, TT_BOOL, 1, 3, 0), AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }
static int where_null_cond(ar_env *e) { return tt_where(e->c, NULL, AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }
static int where_null_a(ar_env *e) { return tt_where(e->c, ar_z(e->c, TT_BOOL, 1, 3, 0), NULL, AR_T1(e->c, 3)) == NULL; }
static int where_null_b(ar_env *e) { return tt_where(e->c, ar_z(e->c, TT_BOOL, 1, 3, 0), AR_T1(e->c, 3), NULL) == NULL; }
static int where_cond_dtype(ar_env *e) { return tt_where(e->c, AR_T1(e->c, 3), AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }
static int where_cond_i32(ar_env *e) { return tt_where(e->c, ar_z(e->c, TT_I32, 1, 3, 0), AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }
static int where_shape(ar_env *e) { return tt_where(e->c, ar_z(e->c, TT_BOOL, 1, 3, 0), AR_T1(e->c, 4), AR_T1(e->c, 3)) == NULL; }
static int where_shape_cond(ar_env *e) { return tt_where(e->c, ar_z(e->c, TT_BOOL, 1, 5, 0), AR_T1(e->c, 3), AR_T1(e->c, 3)) == NULL; }

static int cast_bad_dtype(ar_env *e) { return tt_cast(e->c, AR_T1(e->c, 3), AR_BAD_DTYPE) == NULL; }
static int cast_neg_dtype(ar_env *e) { return tt_cast(e->c, AR_T1(e->c, 3), (tt_dtype)-1) == NULL; }



/* Unary ops (and the scalar forms, tt_cast) take any dtype: only ctx and x can be wrong. */
static const ar_row elementwise_rows[] = {
    ROW(tt_neg, "ctx", TT_OK, one_null_ctx), ROW(tt_neg, "x", TT_OK, one_null_x),
    ROW(tt_abs, "ctx", TT_OK, one_null_ctx), ROW(tt_abs, "x", TT_OK, one_null_x),
    ROW(tt_sign, "ctx", TT_OK, one_null_ctx), ROW(tt_sign, "x", TT_OK, one_null_x),
    ROW(tt_exp, "ctx", TT_OK, one_null_ctx), ROW(tt_exp, "x", TT_OK, one_null_x),
    ROW(tt_log, "ctx", TT_OK, one_null_ctx), ROW(tt_log, "x", TT_OK, one_null_x),
    ROW(tt_sqrt, "ctx", TT_OK, one_null_ctx), ROW(tt_sqrt, "x", TT_OK, one_null_x),
    ROW(tt_rsqrt, "ctx", TT_OK, one_null_ctx), ROW(tt_rsqrt, "x", TT_OK, one_null_x),
    ROW(tt_reciprocal, "ctx", TT_OK, one_null_ctx), ROW(tt_reciprocal, "x", TT_OK, one_null_x),
    ROW(tt_sin, "ctx", TT_OK, one_null_ctx), ROW(tt_sin, "x", TT_OK, one_null_x),
    ROW(tt_cos, "ctx", TT_OK, one_null_ctx), ROW(tt_cos, "x", TT_OK, one_null_x),
    ROW(tt_tanh, "ctx", TT_OK, one_null_ctx), ROW(tt_tanh, "x", TT_OK, one_null_x),
    ROW(tt_sigmoid, "ctx", TT_OK, one_null_ctx), ROW(tt_sigmoid, "x", TT_OK, one_null_x),
    ROW(tt_relu, "ctx", TT_OK, one_null_ctx), ROW(tt_relu, "x", TT_OK, one_null_x),
    ROW(tt_leaky_relu, "ctx", TT_OK, one_null_ctx), ROW(tt_leaky_relu, "x", TT_OK, one_null_x),
    ROW(tt_elu, "ctx", TT_OK, one_null_ctx), ROW(tt_elu, "x", TT_OK, one_null_x),
    ROW(tt_gelu, "ctx", TT_OK, one_null_ctx), ROW(tt_gelu, "x", TT_OK, one_null_x),
    ROW(tt_gelu_tanh, "ctx", TT_OK, one_null_ctx), ROW(tt_gelu_tanh, "x", TT_OK, one_null_x),
    ROW(tt_silu, "ctx", TT_OK, one_null_ctx), ROW(tt_silu, "x", TT_OK, one_null_x),
    ROW(tt_hardswish, "ctx", TT_OK, one_null_ctx), ROW(tt_hardswish, "x", TT_OK, one_null_x),
    ROW(tt_softplus, "ctx", TT_OK, one_null_ctx), ROW(tt_softplus, "x", TT_OK, one_null_x),
    ROW(tt_erf, "ctx", TT_OK, one_null_ctx), ROW(tt_erf, "x", TT_OK, one_null_x),
    ROW(tt_floor, "ctx", TT_OK, one_null_ctx), ROW(tt_floor, "x", TT_OK, one_null_x),
    ROW(tt_ceil, "ctx", TT_OK, one_null_ctx), ROW(tt_ceil, "x", TT_OK, one_null_x),
    ROW(tt_round, "ctx", TT_OK, one_null_ctx), ROW(tt_round, "x", TT_OK, one_null_x),
    ROW(tt_clamp, "ctx", TT_OK, one_null_ctx), ROW(tt_clamp, "x", TT_OK, one_null_x),
    ROW(tt_pow_scalar, "ctx", TT_OK, one_null_ctx), ROW(tt_pow_scalar, "x", TT_OK, one_null_x),
    ROW(tt_add_scalar, "ctx", TT_OK, one_null_ctx), ROW(tt_add_scalar, "x", TT_OK, one_null_x),
    ROW(tt_sub_scalar, "ctx", TT_OK, one_null_ctx), ROW(tt_sub_scalar, "x", TT_OK, one_null_x),
    ROW(tt_mul_scalar, "ctx", TT_OK, one_null_ctx), ROW(tt_mul_scalar, "x", TT_OK, one_null_x),
    ROW(tt_div_scalar, "ctx", TT_OK, one_null_ctx), ROW(tt_div_scalar, "x", TT_OK, one_null_x),
    ROW(tt_logical_not, "ctx", TT_OK, one_null_ctx), ROW(tt_logical_not, "x", TT_OK, one_null_x),
    ROW(tt_cast, "ctx", TT_OK, one_null_ctx), ROW(tt_cast, "x", TT_OK, one_null_x),
    ROW(tt_cast, "dtype", TT_ERR_DTYPE, cast_bad_dtype),
    ROW(tt_cast, "dtype", TT_ERR_DTYPE, cast_neg_dtype),
    ROW(tt_add, "ctx", TT_OK, two_null_ctx), ROW(tt_add, "a", TT_OK, two_null_a), ROW(tt_add, "b", TT_OK, two_null_b),
    ROW(tt_add, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_sub, "ctx", TT_OK, two_null_ctx), ROW(tt_sub, "a", TT_OK, two_null_a), ROW(tt_sub, "b", TT_OK, two_null_b),
    ROW(tt_sub, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_mul, "ctx", TT_OK, two_null_ctx), ROW(tt_mul, "a", TT_OK, two_null_a), ROW(tt_mul, "b", TT_OK, two_null_b),
    ROW(tt_mul, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_div, "ctx", TT_OK, two_null_ctx), ROW(tt_div, "a", TT_OK, two_null_a), ROW(tt_div, "b", TT_OK, two_null_b),
    ROW(tt_div, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_pow, "ctx", TT_OK, two_null_ctx), ROW(tt_pow, "a", TT_OK, two_null_a), ROW(tt_pow, "b", TT_OK, two_null_b),
    ROW(tt_pow, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_atan2, "ctx", TT_OK, two_null_ctx), ROW(tt_atan2, "a", TT_OK, two_null_a), ROW(tt_atan2, "b", TT_OK, two_null_b),
    ROW(tt_atan2, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_maximum, "ctx", TT_OK, two_null_ctx), ROW(tt_maximum, "a", TT_OK, two_null_a), ROW(tt_maximum, "b", TT_OK, two_null_b),
    ROW(tt_maximum, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_minimum, "ctx", TT_OK, two_null_ctx), ROW(tt_minimum, "a", TT_OK, two_null_a), ROW(tt_minimum, "b", TT_OK, two_null_b),
    ROW(tt_minimum, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_eq, "ctx", TT_OK, two_null_ctx), ROW(tt_eq, "a", TT_OK, two_null_a), ROW(tt_eq, "b", TT_OK, two_null_b),
    ROW(tt_eq, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_ne, "ctx", TT_OK, two_null_ctx), ROW(tt_ne, "a", TT_OK, two_null_a), ROW(tt_ne, "b", TT_OK, two_null_b),
    ROW(tt_ne, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_lt, "ctx", TT_OK, two_null_ctx), ROW(tt_lt, "a", TT_OK, two_null_a), ROW(tt_lt, "b", TT_OK, two_null_b),
    ROW(tt_lt, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_le, "ctx", TT_OK, two_null_ctx), ROW(tt_le, "a", TT_OK, two_null_a), ROW(tt_le, "b", TT_OK, two_null_b),
    ROW(tt_le, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_gt, "ctx", TT_OK, two_null_ctx), ROW(tt_gt, "a", TT_OK, two_null_a), ROW(tt_gt, "b", TT_OK, two_null_b),
    ROW(tt_gt, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_ge, "ctx", TT_OK, two_null_ctx), ROW(tt_ge, "a", TT_OK, two_null_a), ROW(tt_ge, "b", TT_OK, two_null_b),
    ROW(tt_ge, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_logical_and, "ctx", TT_OK, two_null_ctx), ROW(tt_logical_and, "a", TT_OK, two_null_a), ROW(tt_logical_and, "b", TT_OK, two_null_b),
    ROW(tt_logical_and, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_logical_or, "ctx", TT_OK, two_null_ctx), ROW(tt_logical_or, "a", TT_OK, two_null_a), ROW(tt_logical_or, "b", TT_OK, two_null_b),
    ROW(tt_logical_or, "a+b", TT_ERR_SHAPE, two_broadcast),
    ROW(tt_where, "ctx", TT_OK, where_null_ctx),
    ROW(tt_where, "cond", TT_OK, where_null_cond),
    ROW(tt_where, "a", TT_OK, where_null_a),
    ROW(tt_where, "b", TT_OK, where_null_b),
    ROW(tt_where, "cond", TT_ERR_DTYPE, where_cond_dtype),
    ROW(tt_where, "cond", TT_ERR_DTYPE, where_cond_i32),
    ROW(tt_where, "a+b", TT_ERR_SHAPE, where_shape),
    ROW(tt_where, "cond", TT_ERR_SHAPE, where_shape_cond),
};


/* ==== reductions ============================================================================ */

typedef tt_tensor *(*ar_reduce_fn)(tt_ctx *, tt_tensor *, const int *, int, bool);
typedef tt_tensor *(*ar_var_fn)(tt_ctx *, tt_tensor *, const int *, int, int, bool);
typedef tt_tensor *(*ar_arg_fn)(tt_ctx *, tt_tensor *, int, bool);

/* tt_sum, tt_mean, tt_max, tt_min, tt_prod, tt_var, tt_std (correction 1). */
static tt_tensor *ar_reduce(ar_env *e, tt_ctx *c, tt_tensor *x, const int *axes, int n_axes) {
    ar_any_fn f = e->row->f;
    if (f == (ar_any_fn)tt_var || f == (ar_any_fn)tt_std) return ((ar_var_fn)f)(c, x, axes, n_axes, 1, false);
    return ((ar_reduce_fn)f)(c, x, axes, n_axes, false);
}
static int red_null_ctx(ar_env *e) { int a[1] = {0}; return ar_reduce(e, NULL, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int red_null_x(ar_env *e) { int a[1] = {0}; return ar_reduce(e, e->c, NULL, a, 1) == NULL; }
static int red_null_axes(ar_env *e) { return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), NULL, 2) == NULL; }
static int red_neg_n(ar_env *e) { int a[1] = {0}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, -1) == NULL; }
static int red_axis_range(ar_env *e) { int a[1] = {2}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int red_axis_neg_range(ar_env *e) { int a[1] = {-3}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int red_axis_int_min(ar_env *e) { int a[1] = {INT_MIN}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int red_axis_repeat(ar_env *e) { int a[2] = {1, -1}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, 2) == NULL; }
static int red_too_many(ar_env *e) { int a[3] = {0, 1, 0}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 3), a, 3) == NULL; }
static int red_0d_1(ar_env *e) { int a[1] = {1}; return ar_reduce(e, e->c, AR_T0(e->c), a, 1) == NULL; }
static int red_0d_m2(ar_env *e) { int a[1] = {-2}; return ar_reduce(e, e->c, AR_T0(e->c), a, 1) == NULL; }
/* max/min/argmax/argmin of an empty axis have no identity (PyTorch raises). */
static int red_empty(ar_env *e) { int a[1] = {1}; return ar_reduce(e, e->c, AR_T2(e->c, 2, 0), a, 1) == NULL; }
static int var_neg_correction(ar_env *e) { return ((ar_var_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), NULL, 0, -1, false) == NULL; }

static int arg_null_ctx(ar_env *e) { return ((ar_arg_fn)e->row->f)(NULL, AR_T2(e->c, 2, 3), 0, false) == NULL; }
static int arg_null_x(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, NULL, 0, false) == NULL; }
static int arg_axis(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, false) == NULL; }
static int arg_axis_neg(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), -3, false) == NULL; }
static int arg_axis_int_min(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), INT_MIN, false) == NULL; }
static int arg_0d_1(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T0(e->c), 1, false) == NULL; }
static int arg_0d_m2(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T0(e->c), -2, true) == NULL; }
static int arg_empty(ar_env *e) { return ((ar_arg_fn)e->row->f)(e->c, AR_T2(e->c, 2, 0), 1, false) == NULL; }

static const ar_row reduction_rows[] = {
    ROW(tt_sum, "ctx", TT_OK, red_null_ctx),
    ROW(tt_sum, "x", TT_OK, red_null_x),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_sum, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_axis_neg_range),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_axis_int_min),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_sum, "axes|n_axes", TT_ERR_ARG, red_too_many),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_sum, "axes", TT_ERR_ARG, red_0d_m2),
    ROW(tt_mean, "ctx", TT_OK, red_null_ctx),
    ROW(tt_mean, "x", TT_OK, red_null_x),
    ROW(tt_mean, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_mean, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_mean, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_mean, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_mean, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_max, "ctx", TT_OK, red_null_ctx),
    ROW(tt_max, "x", TT_OK, red_null_x),
    ROW(tt_max, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_max, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_max, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_max, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_max, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_max, "x", TT_ERR_SHAPE, red_empty),
    ROW(tt_min, "ctx", TT_OK, red_null_ctx),
    ROW(tt_min, "x", TT_OK, red_null_x),
    ROW(tt_min, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_min, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_min, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_min, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_min, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_min, "x", TT_ERR_SHAPE, red_empty),
    ROW(tt_prod, "ctx", TT_OK, red_null_ctx),
    ROW(tt_prod, "x", TT_OK, red_null_x),
    ROW(tt_prod, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_prod, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_prod, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_prod, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_prod, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_var, "ctx", TT_OK, red_null_ctx),
    ROW(tt_var, "x", TT_OK, red_null_x),
    ROW(tt_var, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_var, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_var, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_var, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_var, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_var, "correction", TT_ERR_ARG, var_neg_correction),
    ROW(tt_std, "ctx", TT_OK, red_null_ctx),
    ROW(tt_std, "x", TT_OK, red_null_x),
    ROW(tt_std, "axes", TT_ERR_ARG, red_null_axes),
    ROW(tt_std, "n_axes", TT_ERR_ARG, red_neg_n),
    ROW(tt_std, "axes", TT_ERR_ARG, red_axis_range),
    ROW(tt_std, "axes", TT_ERR_ARG, red_axis_repeat),
    ROW(tt_std, "axes", TT_ERR_ARG, red_0d_1),
    ROW(tt_std, "correction", TT_ERR_ARG, var_neg_correction),
    ROW(tt_argmax, "ctx", TT_OK, arg_null_ctx),
    ROW(tt_argmax, "x", TT_OK, arg_null_x),
    ROW(tt_argmax, "axis", TT_ERR_ARG, arg_axis),
    ROW(tt_argmax, "axis", TT_ERR_ARG, arg_axis_neg),
    ROW(tt_argmax, "axis", TT_ERR_ARG, arg_axis_int_min),
    ROW(tt_argmax, "axis", TT_ERR_ARG, arg_0d_1),
    ROW(tt_argmax, "axis", TT_ERR_ARG, arg_0d_m2),
    ROW(tt_argmax, "x", TT_ERR_SHAPE, arg_empty),
    ROW(tt_argmin, "ctx", TT_OK, arg_null_ctx),
    ROW(tt_argmin, "x", TT_OK, arg_null_x),
    ROW(tt_argmin, "axis", TT_ERR_ARG, arg_axis),
    ROW(tt_argmin, "axis", TT_ERR_ARG, arg_axis_neg),
    ROW(tt_argmin, "axis", TT_ERR_ARG, arg_0d_1),
    ROW(tt_argmin, "axis", TT_ERR_ARG, arg_0d_m2),
    ROW(tt_argmin, "x", TT_ERR_SHAPE, arg_empty),
    ROW(tt_softmax, "ctx", TT_OK, axis_null_ctx),
    ROW(tt_softmax, "x", TT_OK, axis_null_x),
    ROW(tt_softmax, "axis", TT_ERR_ARG, axis_past),
    ROW(tt_softmax, "axis", TT_ERR_ARG, axis_before),
    ROW(tt_softmax, "axis", TT_ERR_ARG, axis_int_min),
    ROW(tt_softmax, "axis", TT_ERR_ARG, axis_0d_1),
    ROW(tt_softmax, "axis", TT_ERR_ARG, axis_0d_m2),
    ROW(tt_log_softmax, "ctx", TT_OK, axis_null_ctx),
    ROW(tt_log_softmax, "x", TT_OK, axis_null_x),
    ROW(tt_log_softmax, "axis", TT_ERR_ARG, axis_past),
    ROW(tt_log_softmax, "axis", TT_ERR_ARG, axis_before),
    ROW(tt_log_softmax, "axis", TT_ERR_ARG, axis_0d_1),
    ROW(tt_log_softmax, "axis", TT_ERR_ARG, axis_0d_m2),
};

/* ==== normalization ========================================================================= */

/* x [2,3,4]; over the last n_dims axes weight/bias have the shape of those axes. */
static int ln_null_ctx(ar_env *e) { return tt_layer_norm(NULL, AR_T3(e->c, 2, 3, 4), 1, NULL, NULL, 1e-5f) == NULL; }
static int ln_null_x(ar_env *e) { return tt_layer_norm(e->c, NULL, 1, NULL, NULL, 1e-5f) == NULL; }
static int ln_n_dims_0(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 0, NULL, NULL, 1e-5f) == NULL; }
static int ln_n_dims_neg(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), -1, NULL, NULL, 1e-5f) == NULL; }
static int ln_n_dims_big(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 4, NULL, NULL, 1e-5f) == NULL; }
static int ln_weight(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, AR_T1(e->c, 3), NULL, 1e-5f) == NULL; }
static int ln_bias(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 2, AR_T2(e->c, 3, 4), AR_T1(e->c, 4), 1e-5f) == NULL; }
static int ln_eps_nan(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, NULL, NULL, NAN) == NULL; }
static int ln_eps_neg(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, NULL, NULL, -1.0f) == NULL; }
static int ln_eps_inf(ar_env *e) { return tt_layer_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, NULL, NULL, INFINITY) == NULL; }

static int rms_null_ctx(ar_env *e) { return tt_rms_norm(NULL, AR_T3(e->c, 2, 3, 4), 1, NULL, 1e-5f) == NULL; }
static int rms_null_x(ar_env *e) { return tt_rms_norm(e->c, NULL, 1, NULL, 1e-5f) == NULL; }
static int rms_n_dims_0(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), 0, NULL, 1e-5f) == NULL; }
static int rms_n_dims_neg(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), -1, NULL, 1e-5f) == NULL; }
static int rms_n_dims_big(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), 4, NULL, 1e-5f) == NULL; }
static int rms_weight(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, AR_T1(e->c, 3), 1e-5f) == NULL; }
static int rms_eps_nan(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, NULL, NAN) == NULL; }
static int rms_eps_neg(ar_env *e) { return tt_rms_norm(e->c, AR_T3(e->c, 2, 3, 4), 1, NULL, -1.0f) == NULL; }

/* x [2,3,4]: C = 3. */
static int bn_call(ar_env *e, tt_ctx *c, tt_tensor *x, int bad, float eps) {
    tt_tensor *p[4];
    int i;
    for (i = 0; i < 4; i++) p[i] = i == bad ? AR_T1(e->c, 4) : AR_T1(e->c, 3);
    if (bad == 4) p[0] = NULL;
    if (bad == 5) p[1] = NULL;
    return tt_batch_norm(c, x, p[0], p[1], p[2], p[3], eps) == NULL;
}
static int bn_null_ctx(ar_env *e) { return bn_call(e, NULL, AR_T3(e->c, 2, 3, 4), -1, 1e-5f); }
static int bn_null_x(ar_env *e) { return bn_call(e, e->c, NULL, -1, 1e-5f); }
static int bn_null_mean(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 4, 1e-5f); }
static int bn_null_var(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 5, 1e-5f); }
static int bn_x_rank(ar_env *e) { return bn_call(e, e->c, AR_T1(e->c, 3), -1, 1e-5f); }
static int bn_mean(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 0, 1e-5f); }
static int bn_var(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 1, 1e-5f); }
static int bn_weight(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 2, 1e-5f); }
static int bn_bias(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), 3, 1e-5f); }
static int bn_eps_nan(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), -1, NAN); }
static int bn_eps_neg(ar_env *e) { return bn_call(e, e->c, AR_T3(e->c, 2, 3, 4), -1, -1.0f); }

/* x [2,4,3]: C = 4. */
static int gn_null_ctx(ar_env *e) { return tt_group_norm(NULL, AR_T3(e->c, 2, 4, 3), 2, NULL, NULL, 1e-5f) == NULL; }
static int gn_null_x(ar_env *e) { return tt_group_norm(e->c, NULL, 2, NULL, NULL, 1e-5f) == NULL; }
static int gn_x_rank(ar_env *e) { return tt_group_norm(e->c, AR_T1(e->c, 4), 2, NULL, NULL, 1e-5f) == NULL; }
static int gn_groups_0(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 0, NULL, NULL, 1e-5f) == NULL; }
static int gn_groups_neg(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), -2, NULL, NULL, 1e-5f) == NULL; }
static int gn_groups_divide(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 3, NULL, NULL, 1e-5f) == NULL; }
static int gn_weight(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 2, AR_T1(e->c, 3), NULL, 1e-5f) == NULL; }
static int gn_bias(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 2, NULL, AR_T1(e->c, 2), 1e-5f) == NULL; }
static int gn_eps_nan(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 2, NULL, NULL, NAN) == NULL; }
static int gn_eps_neg(ar_env *e) { return tt_group_norm(e->c, AR_T3(e->c, 2, 4, 3), 2, NULL, NULL, -1.0f) == NULL; }

static const ar_row norm_rows[] = {
    ROW(tt_layer_norm, "ctx", TT_OK, ln_null_ctx),
    ROW(tt_layer_norm, "x", TT_OK, ln_null_x),
    ROW(tt_layer_norm, "n_dims", TT_ERR_ARG, ln_n_dims_0),
    ROW(tt_layer_norm, "n_dims", TT_ERR_ARG, ln_n_dims_neg),
    ROW(tt_layer_norm, "n_dims", TT_ERR_ARG, ln_n_dims_big),
    ROW(tt_layer_norm, "weight", TT_ERR_SHAPE, ln_weight),
    ROW(tt_layer_norm, "bias", TT_ERR_SHAPE, ln_bias),
    ROW(tt_layer_norm, "eps", TT_ERR_ARG, ln_eps_nan),
    ROW(tt_layer_norm, "eps", TT_ERR_ARG, ln_eps_neg),
    ROW(tt_layer_norm, "eps", TT_ERR_ARG, ln_eps_inf),
    ROW(tt_rms_norm, "ctx", TT_OK, rms_null_ctx),
    ROW(tt_rms_norm, "x", TT_OK, rms_null_x),
    ROW(tt_rms_norm, "n_dims", TT_ERR_ARG, rms_n_dims_0),
    ROW(tt_rms_norm, "n_dims", TT_ERR_ARG, rms_n_dims_neg),
    ROW(tt_rms_norm, "n_dims", TT_ERR_ARG, rms_n_dims_big),
    ROW(tt_rms_norm, "weight", TT_ERR_SHAPE, rms_weight),
    ROW(tt_rms_norm, "eps", TT_ERR_ARG, rms_eps_nan),
    ROW(tt_rms_norm, "eps", TT_ERR_ARG, rms_eps_neg),
    ROW(tt_batch_norm, "ctx", TT_OK, bn_null_ctx),
    ROW(tt_batch_norm, "x", TT_OK, bn_null_x),
    ROW(tt_batch_norm, "mean", TT_OK, bn_null_mean),
    ROW(tt_batch_norm, "var", TT_OK, bn_null_var),
    ROW(tt_batch_norm, "x", TT_ERR_SHAPE, bn_x_rank),
    ROW(tt_batch_norm, "mean", TT_ERR_SHAPE, bn_mean),
    ROW(tt_batch_norm, "var", TT_ERR_SHAPE, bn_var),
    ROW(tt_batch_norm, "weight", TT_ERR_SHAPE, bn_weight),
    ROW(tt_batch_norm, "bias", TT_ERR_SHAPE, bn_bias),
    ROW(tt_batch_norm, "eps", TT_ERR_ARG, bn_eps_nan),
    ROW(tt_batch_norm, "eps", TT_ERR_ARG, bn_eps_neg),
    ROW(tt_group_norm, "ctx", TT_OK, gn_null_ctx),
    ROW(tt_group_norm, "x", TT_OK, gn_null_x),
    ROW(tt_group_norm, "x", TT_ERR_SHAPE, gn_x_rank),
    ROW(tt_group_norm, "groups", TT_ERR_ARG, gn_groups_0),
    ROW(tt_group_norm, "groups", TT_ERR_ARG, gn_groups_neg),
    ROW(tt_group_norm, "groups", TT_ERR_ARG, gn_groups_divide),
    ROW(tt_group_norm, "weight", TT_ERR_SHAPE, gn_weight),
    ROW(tt_group_norm, "bias", TT_ERR_SHAPE, gn_bias),
    ROW(tt_group_norm, "eps", TT_ERR_ARG, gn_eps_nan),
    ROW(tt_group_norm, "eps", TT_ERR_ARG, gn_eps_neg),
};

/* ==== linear algebra ======================================================================== */

static int mm_null_ctx(ar_env *e) { return tt_matmul(NULL, AR_T2(e->c, 2, 3), AR_T2(e->c, 3, 4)) == NULL; }
static int mm_null_a(ar_env *e) { return tt_matmul(e->c, NULL, AR_T2(e->c, 3, 4)) == NULL; }
static int mm_null_b(ar_env *e) { return tt_matmul(e->c, AR_T2(e->c, 2, 3), NULL) == NULL; }
static int mm_inner(ar_env *e) { return tt_matmul(e->c, AR_T2(e->c, 2, 3), AR_T2(e->c, 4, 5)) == NULL; }
static int mm_a_0d(ar_env *e) { return tt_matmul(e->c, AR_T0(e->c), AR_T2(e->c, 3, 4)) == NULL; }
static int mm_b_0d(ar_env *e) { return tt_matmul(e->c, AR_T2(e->c, 2, 3), AR_T0(e->c)) == NULL; }
static int mm_batch(ar_env *e) { return tt_matmul(e->c, AR_T3(e->c, 2, 2, 3), AR_T3(e->c, 3, 3, 4)) == NULL; }

static int lin_null_ctx(ar_env *e) { return tt_linear(NULL, AR_T2(e->c, 2, 3), AR_T2(e->c, 4, 3), NULL) == NULL; }
static int lin_null_x(ar_env *e) { return tt_linear(e->c, NULL, AR_T2(e->c, 4, 3), NULL) == NULL; }
static int lin_null_weight(ar_env *e) { return tt_linear(e->c, AR_T2(e->c, 2, 3), NULL, NULL) == NULL; }
static int lin_x_0d(ar_env *e) { return tt_linear(e->c, AR_T0(e->c), AR_T2(e->c, 4, 3), NULL) == NULL; }
static int lin_weight_rank(ar_env *e) { return tt_linear(e->c, AR_T2(e->c, 2, 3), AR_T1(e->c, 3), NULL) == NULL; }
static int lin_in(ar_env *e) { return tt_linear(e->c, AR_T2(e->c, 2, 3), AR_T2(e->c, 4, 5), NULL) == NULL; }
static int lin_bias(ar_env *e) { return tt_linear(e->c, AR_T2(e->c, 2, 3), AR_T2(e->c, 4, 3), AR_T1(e->c, 3)) == NULL; }
static int lin_bias_rank(ar_env *e) { return tt_linear(e->c, AR_T2(e->c, 2, 3), AR_T2(e->c, 4, 3), AR_T2(e->c, 1, 4)) == NULL; }

static const ar_row linalg_rows[] = {
    ROW(tt_matmul, "ctx", TT_OK, mm_null_ctx),
    ROW(tt_matmul, "a", TT_OK, mm_null_a),
    ROW(tt_matmul, "b", TT_OK, mm_null_b),
    ROW(tt_matmul, "a+b", TT_ERR_SHAPE, mm_inner),
    ROW(tt_matmul, "a", TT_ERR_SHAPE, mm_a_0d),
    ROW(tt_matmul, "b", TT_ERR_SHAPE, mm_b_0d),
    ROW(tt_matmul, "a+b", TT_ERR_SHAPE, mm_batch),
    ROW(tt_linear, "ctx", TT_OK, lin_null_ctx),
    ROW(tt_linear, "x", TT_OK, lin_null_x),
    ROW(tt_linear, "weight", TT_OK, lin_null_weight),
    ROW(tt_linear, "x", TT_ERR_SHAPE, lin_x_0d),
    ROW(tt_linear, "weight", TT_ERR_SHAPE, lin_weight_rank),
    ROW(tt_linear, "x+weight", TT_ERR_SHAPE, lin_in),
    ROW(tt_linear, "bias", TT_ERR_SHAPE, lin_bias),
    ROW(tt_linear, "bias", TT_ERR_SHAPE, lin_bias_rank),
};


/* ==== convolution and pooling =============================================================== */

typedef tt_tensor *(*ar_conv_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, int, int, int, int);
typedef tt_tensor *(*ar_convt_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, int, int, int, int, int);
typedef tt_tensor *(*ar_convp_fn)(tt_ctx *, tt_tensor *, tt_tensor *, tt_tensor *, const tt_conv_params *);
typedef tt_tensor *(*ar_pool_fn)(tt_ctx *, tt_tensor *, int, int, int);
typedef tt_tensor *(*ar_poolp_fn)(tt_ctx *, tt_tensor *, const tt_pool_params *);
typedef tt_tensor *(*ar_size2_fn)(tt_ctx *, tt_tensor *, int64_t, int64_t);
typedef tt_tensor *(*ar_scale2_fn)(tt_ctx *, tt_tensor *, float, float);

/* [a, b, size, size, ...] with `spatial` trailing axes of `size` (random f32). */
static tt_tensor *ar_nc(tt_ctx *c, int64_t a, int64_t b, int spatial, int64_t size) {
    int64_t s[TT_MAX_DIMS];
    int i;
    s[0] = a; s[1] = b;
    for (i = 0; i < spatial; i++) s[2 + i] = size;
    return tt_rand(c, 3, 2 + spatial, s);
}

/* Spatial axes of the row's convolution (the _ex forms are tested in 2-D). */
static int ar_conv_dims(const ar_env *e) {
    if (ar_is(e, (ar_any_fn)tt_conv1d) || ar_is(e, (ar_any_fn)tt_conv_transpose1d)) return 1;
    if (ar_is(e, (ar_any_fn)tt_conv3d)) return 3;
    return 2;
}
static bool ar_conv_transposed(const ar_env *e) {
    return ar_is(e, (ar_any_fn)tt_conv_transpose1d) || ar_is(e, (ar_any_fn)tt_conv_transpose2d) ||
           ar_is(e, (ar_any_fn)tt_conv_transpose_ex);
}

/* One convolution call of the row's function: x [1,2,5...], weight [4,2,3...] (transposed:
   [2,4,3...]), bias [4]; `bad` picks what is wrong: 0 nothing, 1 x rank, 2 weight rank,
   3 weight channels, 4 bias shape, 5 kernel larger than the input; null_what 1: x NULL,
   2: weight NULL, 3: p NULL (the _ex forms). */
typedef struct ar_conv_args { int stride, padding, output_padding, dilation, groups; } ar_conv_args;
static ar_conv_args ar_conv_ok(void) { ar_conv_args a; a.stride = 1; a.padding = 0; a.output_padding = 0; a.dilation = 1; a.groups = 1; return a; }

static int ar_conv(ar_env *e, tt_ctx *c, int null_what, int bad, ar_conv_args a) {
    int nd = ar_conv_dims(e), i;
    bool tr = ar_conv_transposed(e);
    tt_tensor *x = ar_nc(e->c, 1, 2, nd, bad == 5 ? 2 : 5);
    tt_tensor *w = tr ? ar_nc(e->c, 2, 4, nd, 3) : ar_nc(e->c, 4, 2, nd, 3);
    tt_tensor *b = AR_T1(e->c, bad == 4 ? 3 : 4);
    tt_conv_params p;
    if (bad == 1) x = ar_nc(e->c, 1, 2, nd == 1 ? 0 : nd - 1, 5);
    if (bad == 2) w = ar_nc(e->c, 4, 2, nd == 1 ? 0 : nd - 1, 3);
    if (bad == 3) w = ar_nc(e->c, tr ? 3 : 4, tr ? 4 : 3, nd, 3);
    if (null_what == 1) x = NULL;
    if (null_what == 2) w = NULL;
    memset(&p, 0, sizeof p);
    for (i = 0; i < 3; i++) {
        p.stride[i] = a.stride; p.padding[i] = a.padding; p.dilation[i] = a.dilation;
        p.output_padding[i] = a.output_padding;
    }
    p.groups = a.groups;
    if (ar_is(e, (ar_any_fn)tt_conv2d_ex) || ar_is(e, (ar_any_fn)tt_conv_ex) || ar_is(e, (ar_any_fn)tt_conv_transpose_ex))
        return ((ar_convp_fn)e->row->f)(c, x, w, b, null_what == 3 ? NULL : &p) == NULL;
    if (tr) return ((ar_convt_fn)e->row->f)(c, x, w, b, a.stride, a.padding, a.output_padding, a.dilation, a.groups) == NULL;
    return ((ar_conv_fn)e->row->f)(c, x, w, b, a.stride, a.padding, a.dilation, a.groups) == NULL;
}
static int conv_null_ctx(ar_env *e) { return ar_conv(e, NULL, 0, 0, ar_conv_ok()); }
static int conv_null_x(ar_env *e) { return ar_conv(e, e->c, 1, 0, ar_conv_ok()); }
static int conv_null_weight(ar_env *e) { return ar_conv(e, e->c, 2, 0, ar_conv_ok()); }
static int conv_null_p(ar_env *e) { return ar_conv(e, e->c, 3, 0, ar_conv_ok()); }
static int conv_x_rank(ar_env *e) { return ar_conv(e, e->c, 0, 1, ar_conv_ok()); }
static int conv_weight_rank(ar_env *e) { return ar_conv(e, e->c, 0, 2, ar_conv_ok()); }
static int conv_weight_channels(ar_env *e) { return ar_conv(e, e->c, 0, 3, ar_conv_ok()); }
static int conv_bias(ar_env *e) { return ar_conv(e, e->c, 0, 4, ar_conv_ok()); }
static int conv_kernel_big(ar_env *e) { return ar_conv(e, e->c, 0, 5, ar_conv_ok()); }
static int conv_stride_0(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.stride = 0; return ar_conv(e, e->c, 0, 0, a); }
static int conv_stride_neg(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.stride = -1; return ar_conv(e, e->c, 0, 0, a); }
static int conv_padding_neg(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.padding = -1; return ar_conv(e, e->c, 0, 0, a); }
/* 2-D and 3-D: output sizes near 2^32 on every spatial axis multiply past INT64_MAX. */
static int conv_padding_huge(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.padding = INT_MAX; return ar_conv(e, e->c, 0, 0, a); }
static int conv_dilation_0(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.dilation = 0; return ar_conv(e, e->c, 0, 0, a); }
static int conv_dilation_huge(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.dilation = INT_MAX; return ar_conv(e, e->c, 0, 0, a); }
static int conv_groups_0(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.groups = 0; return ar_conv(e, e->c, 0, 0, a); }
static int conv_groups_neg(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.groups = -1; return ar_conv(e, e->c, 0, 0, a); }
static int conv_groups_divide(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.groups = 3; return ar_conv(e, e->c, 0, 0, a); }
static int convt_outpad_neg(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.output_padding = -1; return ar_conv(e, e->c, 0, 0, a); }
/* output_padding must stay below max(stride, dilation). */
static int convt_outpad_big(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.stride = 2; a.output_padding = 2; return ar_conv(e, e->c, 0, 0, a); }
/* Padding that leaves no output: (5-1)*1 - 2*5 + 2 + 1 < 1. */
static int convt_padding_big(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.padding = 5; return ar_conv(e, e->c, 0, 0, a); }
static int convt_stride_huge(ar_env *e) { ar_conv_args a = ar_conv_ok(); a.stride = INT_MAX; return ar_conv(e, e->c, 0, 0, a); }
/* conv_ex / conv_transpose_ex: x of rank 6 fits none of 1-D, 2-D, 3-D. */
static int convex_rank6(ar_env *e) {
    int64_t s[6] = {1, 2, 3, 3, 3, 3};
    tt_conv_params p;
    memset(&p, 0, sizeof p);
    p.stride[0] = p.stride[1] = p.stride[2] = 1;
    p.dilation[0] = p.dilation[1] = p.dilation[2] = 1;
    p.groups = 1;
    return ((ar_convp_fn)e->row->f)(e->c, tt_rand(e->c, 1, 6, s), ar_nc(e->c, 4, 2, 4, 1), NULL, &p) == NULL;
}

/* Pooling of the row's function: x [1,2,4,...] with 1 (pool1d) or 2 spatial axes; the _ex
   forms with 2. */
static int ar_pool_dims(const ar_env *e) {
    return ar_is(e, (ar_any_fn)tt_max_pool1d) || ar_is(e, (ar_any_fn)tt_avg_pool1d) ? 1 : 2;
}
static int ar_pool(ar_env *e, tt_ctx *c, tt_tensor *x, int kernel, int stride, int padding) {
    if (ar_is(e, (ar_any_fn)tt_max_pool_ex) || ar_is(e, (ar_any_fn)tt_avg_pool_ex)) {
        tt_pool_params p;
        int i;
        memset(&p, 0, sizeof p);
        for (i = 0; i < 3; i++) { p.kernel[i] = kernel; p.stride[i] = stride; p.padding[i] = padding; }
        return ((ar_poolp_fn)e->row->f)(c, x, &p) == NULL;
    }
    return ((ar_pool_fn)e->row->f)(c, x, kernel, stride, padding) == NULL;
}
static tt_tensor *ar_pool_x(ar_env *e) { return ar_nc(e->c, 1, 2, ar_pool_dims(e), 4); }
static int pool_null_ctx(ar_env *e) { return ar_pool(e, NULL, ar_pool_x(e), 2, 2, 0); }
static int pool_null_x(ar_env *e) { return ar_pool(e, e->c, NULL, 2, 2, 0); }
/* pool1d: [1,2]; pool2d: [1,2,4]; the _ex forms (1-D to 3-D): [1,2] */
static int pool_x_rank(ar_env *e) {
    bool ex = ar_is(e, (ar_any_fn)tt_max_pool_ex) || ar_is(e, (ar_any_fn)tt_avg_pool_ex);
    return ar_pool(e, e->c, ar_nc(e->c, 1, 2, ex ? 0 : ar_pool_dims(e) - 1, 4), 2, 2, 0);
}
static int pool_kernel_0(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), 0, 1, 0); }
static int pool_kernel_neg(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), -2, 1, 0); }
static int pool_kernel_big(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), 5, 1, 0); }
static int pool_kernel_huge(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), INT_MAX, 1, 0); }
static int pool_stride_neg(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), 2, -1, 0); }
static int pool_padding_neg(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), 2, 2, -1); }
static int pool_padding_half(ar_env *e) { return ar_pool(e, e->c, ar_pool_x(e), 2, 2, 2); }
static int poolex_null_p(ar_env *e) { return ((ar_poolp_fn)e->row->f)(e->c, ar_pool_x(e), NULL) == NULL; }
static int poolex_dilation(ar_env *e) {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = p.kernel[1] = 2;
    p.dilation[0] = p.dilation[1] = -1;
    return ((ar_poolp_fn)e->row->f)(e->c, ar_pool_x(e), &p) == NULL;
}
/* Average pooling takes no dilation. */
static int poolex_avg_dilation(ar_env *e) {
    tt_pool_params p;
    memset(&p, 0, sizeof p);
    p.kernel[0] = p.kernel[1] = 2;
    p.dilation[0] = p.dilation[1] = 2;
    return tt_avg_pool_ex(e->c, ar_pool_x(e), &p) == NULL;
}

/* tt_adaptive_avg_pool2d, tt_upsample_nearest, tt_upsample_bilinear; x [1,1,2,2] */
static tt_tensor *ar_size2(ar_env *e, tt_ctx *c, tt_tensor *x, int64_t h, int64_t w) {
    if (ar_is(e, (ar_any_fn)tt_upsample_bilinear)) return tt_upsample_bilinear(c, x, h, w, false);
    return ((ar_size2_fn)e->row->f)(c, x, h, w);
}
static int size2_null_ctx(ar_env *e) { return ar_size2(e, NULL, AR_T4(e->c, 1, 1, 2, 2), 1, 1) == NULL; }
static int size2_null_x(ar_env *e) { return ar_size2(e, e->c, NULL, 1, 1) == NULL; }
static int size2_x_rank(ar_env *e) { return ar_size2(e, e->c, AR_T3(e->c, 1, 2, 2), 1, 1) == NULL; }
static int size2_h_neg(ar_env *e) { return ar_size2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), -1, 1) == NULL; }
static int size2_w_neg(ar_env *e) { return ar_size2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 1, -1) == NULL; }
static int size2_h_0(ar_env *e) { return ar_size2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 0, 1) == NULL; }
static int size2_h_max(ar_env *e) { return ar_size2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), INT64_MAX, 1) == NULL; }
static int size2_overflow(ar_env *e) { return ar_size2(e, e->c, AR_T4(e->c, 1, 1, 1, 1), AR_HUGE, AR_HUGE) == NULL; }

/* tt_upsample_nearest_scale, tt_upsample_bilinear_scale; x [1,1,2,2] */
static tt_tensor *ar_scale2(ar_env *e, tt_ctx *c, tt_tensor *x, float sh, float sw) {
    if (ar_is(e, (ar_any_fn)tt_upsample_bilinear_scale)) return tt_upsample_bilinear_scale(c, x, sh, sw, false);
    return ((ar_scale2_fn)e->row->f)(c, x, sh, sw);
}
static int scale2_null_ctx(ar_env *e) { return ar_scale2(e, NULL, AR_T4(e->c, 1, 1, 2, 2), 2, 2) == NULL; }
static int scale2_null_x(ar_env *e) { return ar_scale2(e, e->c, NULL, 2, 2) == NULL; }
static int scale2_x_rank(ar_env *e) { return ar_scale2(e, e->c, AR_T3(e->c, 1, 2, 2), 2, 2) == NULL; }
static int scale2_h_0(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 0, 2) == NULL; }
static int scale2_h_neg(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), -2, 2) == NULL; }
static int scale2_h_nan(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), NAN, 2) == NULL; }
static int scale2_w_nan(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 2, NAN) == NULL; }
static int scale2_w_inf(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 2, INFINITY) == NULL; }
/* floor(2 * 1e30) rows does not fit int64_t (converting it would be undefined behaviour). */
static int scale2_h_huge(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 1e30f, 1) == NULL; }
/* floor(2 * 0.25) = 0 rows. */
static int scale2_h_small(ar_env *e) { return ar_scale2(e, e->c, AR_T4(e->c, 1, 1, 2, 2), 0.25f, 1) == NULL; }

static const ar_row conv_rows[] = {
    ROW(tt_conv2d, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv2d, "x", TT_OK, conv_null_x),
    ROW(tt_conv2d, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv2d, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv2d, "weight", TT_ERR_SHAPE, conv_weight_rank),
    ROW(tt_conv2d, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv2d, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv2d, "weight", TT_ERR_SHAPE, conv_kernel_big),
    ROW(tt_conv2d, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv2d, "stride", TT_ERR_ARG, conv_stride_neg),
    ROW(tt_conv2d, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv2d, "padding", TT_ERR_ARG, conv_padding_huge),
    ROW(tt_conv2d, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv2d, "dilation", TT_ERR_SHAPE, conv_dilation_huge),
    ROW(tt_conv2d, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv2d, "groups", TT_ERR_ARG, conv_groups_neg),
    ROW(tt_conv2d, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv2d_ex, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv2d_ex, "x", TT_OK, conv_null_x),
    ROW(tt_conv2d_ex, "p", TT_ERR_ARG, conv_null_p),
    ROW(tt_conv2d_ex, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv2d_ex, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv2d_ex, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv2d_ex, "padding", TT_ERR_ARG, conv_padding_huge),
    ROW(tt_conv2d_ex, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv2d_ex, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv1d, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv1d, "x", TT_OK, conv_null_x),
    ROW(tt_conv1d, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv1d, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv1d, "weight", TT_ERR_SHAPE, conv_weight_rank),
    ROW(tt_conv1d, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv1d, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv1d, "weight", TT_ERR_SHAPE, conv_kernel_big),
    ROW(tt_conv1d, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv1d, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv1d, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv1d, "dilation", TT_ERR_SHAPE, conv_dilation_huge),
    ROW(tt_conv1d, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv1d, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv3d, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv3d, "x", TT_OK, conv_null_x),
    ROW(tt_conv3d, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv3d, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv3d, "weight", TT_ERR_SHAPE, conv_weight_rank),
    ROW(tt_conv3d, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv3d, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv3d, "weight", TT_ERR_SHAPE, conv_kernel_big),
    ROW(tt_conv3d, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv3d, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv3d, "padding", TT_ERR_ARG, conv_padding_huge),
    ROW(tt_conv3d, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv3d, "dilation", TT_ERR_SHAPE, conv_dilation_huge),
    ROW(tt_conv3d, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv3d, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv_ex, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv_ex, "x", TT_OK, conv_null_x),
    ROW(tt_conv_ex, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv_ex, "p", TT_ERR_ARG, conv_null_p),
    ROW(tt_conv_ex, "x", TT_ERR_SHAPE, convex_rank6),
    ROW(tt_conv_ex, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv_ex, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv_ex, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv_ex, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv_ex, "padding", TT_ERR_ARG, conv_padding_huge),
    ROW(tt_conv_ex, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv_ex, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv_ex, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv_transpose1d, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv_transpose1d, "x", TT_OK, conv_null_x),
    ROW(tt_conv_transpose1d, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv_transpose1d, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv_transpose1d, "weight", TT_ERR_SHAPE, conv_weight_rank),
    ROW(tt_conv_transpose1d, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv_transpose1d, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv_transpose1d, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv_transpose1d, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv_transpose1d, "padding", TT_ERR_SHAPE, convt_padding_big),
    ROW(tt_conv_transpose1d, "output_padding", TT_ERR_ARG, convt_outpad_neg),
    ROW(tt_conv_transpose1d, "output_padding", TT_ERR_ARG, convt_outpad_big),
    ROW(tt_conv_transpose1d, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv_transpose1d, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv_transpose1d, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv_transpose2d, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv_transpose2d, "x", TT_OK, conv_null_x),
    ROW(tt_conv_transpose2d, "weight", TT_OK, conv_null_weight),
    ROW(tt_conv_transpose2d, "x", TT_ERR_SHAPE, conv_x_rank),
    ROW(tt_conv_transpose2d, "weight", TT_ERR_SHAPE, conv_weight_rank),
    ROW(tt_conv_transpose2d, "weight", TT_ERR_SHAPE, conv_weight_channels),
    ROW(tt_conv_transpose2d, "bias", TT_ERR_SHAPE, conv_bias),
    ROW(tt_conv_transpose2d, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv_transpose2d, "stride", TT_ERR_ARG, conv_stride_neg),
    ROW(tt_conv_transpose2d, "stride+overflows", TT_ERR_ARG, convt_stride_huge),
    ROW(tt_conv_transpose2d, "padding", TT_ERR_ARG, conv_padding_neg),
    ROW(tt_conv_transpose2d, "padding", TT_ERR_SHAPE, convt_padding_big),
    ROW(tt_conv_transpose2d, "output_padding", TT_ERR_ARG, convt_outpad_neg),
    ROW(tt_conv_transpose2d, "output_padding", TT_ERR_ARG, convt_outpad_big),
    ROW(tt_conv_transpose2d, "dilation", TT_ERR_ARG, conv_dilation_0),
    ROW(tt_conv_transpose2d, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_conv_transpose2d, "groups", TT_ERR_ARG, conv_groups_divide),
    ROW(tt_conv_transpose_ex, "ctx", TT_OK, conv_null_ctx),
    ROW(tt_conv_transpose_ex, "x", TT_OK, conv_null_x),
    ROW(tt_conv_transpose_ex, "p", TT_ERR_ARG, conv_null_p),
    ROW(tt_conv_transpose_ex, "x", TT_ERR_SHAPE, convex_rank6),
    ROW(tt_conv_transpose_ex, "stride", TT_ERR_ARG, conv_stride_0),
    ROW(tt_conv_transpose_ex, "stride+overflows", TT_ERR_ARG, convt_stride_huge),
    ROW(tt_conv_transpose_ex, "output_padding", TT_ERR_ARG, convt_outpad_neg),
    ROW(tt_conv_transpose_ex, "output_padding", TT_ERR_ARG, convt_outpad_big),
    ROW(tt_conv_transpose_ex, "groups", TT_ERR_ARG, conv_groups_0),
    ROW(tt_max_pool2d, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_max_pool2d, "x", TT_OK, pool_null_x),
    ROW(tt_max_pool2d, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_max_pool2d, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_max_pool2d, "kernel", TT_ERR_ARG, pool_kernel_neg),
    ROW(tt_max_pool2d, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_max_pool2d, "kernel", TT_ERR_SHAPE, pool_kernel_huge),
    ROW(tt_max_pool2d, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_max_pool2d, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_max_pool2d, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_avg_pool2d, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_avg_pool2d, "x", TT_OK, pool_null_x),
    ROW(tt_avg_pool2d, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_avg_pool2d, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_avg_pool2d, "kernel", TT_ERR_ARG, pool_kernel_neg),
    ROW(tt_avg_pool2d, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_avg_pool2d, "kernel", TT_ERR_SHAPE, pool_kernel_huge),
    ROW(tt_avg_pool2d, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_avg_pool2d, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_avg_pool2d, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_max_pool1d, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_max_pool1d, "x", TT_OK, pool_null_x),
    ROW(tt_max_pool1d, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_max_pool1d, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_max_pool1d, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_max_pool1d, "kernel", TT_ERR_SHAPE, pool_kernel_huge),
    ROW(tt_max_pool1d, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_max_pool1d, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_max_pool1d, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_avg_pool1d, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_avg_pool1d, "x", TT_OK, pool_null_x),
    ROW(tt_avg_pool1d, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_avg_pool1d, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_avg_pool1d, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_avg_pool1d, "kernel", TT_ERR_SHAPE, pool_kernel_huge),
    ROW(tt_avg_pool1d, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_avg_pool1d, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_avg_pool1d, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_max_pool_ex, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_max_pool_ex, "x", TT_OK, pool_null_x),
    ROW(tt_max_pool_ex, "p", TT_ERR_ARG, poolex_null_p),
    ROW(tt_max_pool_ex, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_max_pool_ex, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_max_pool_ex, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_max_pool_ex, "kernel", TT_ERR_SHAPE, pool_kernel_huge),
    ROW(tt_max_pool_ex, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_max_pool_ex, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_max_pool_ex, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_max_pool_ex, "dilation", TT_ERR_ARG, poolex_dilation),
    ROW(tt_avg_pool_ex, "ctx", TT_OK, pool_null_ctx),
    ROW(tt_avg_pool_ex, "x", TT_OK, pool_null_x),
    ROW(tt_avg_pool_ex, "p", TT_ERR_ARG, poolex_null_p),
    ROW(tt_avg_pool_ex, "x", TT_ERR_SHAPE, pool_x_rank),
    ROW(tt_avg_pool_ex, "kernel", TT_ERR_ARG, pool_kernel_0),
    ROW(tt_avg_pool_ex, "kernel", TT_ERR_SHAPE, pool_kernel_big),
    ROW(tt_avg_pool_ex, "stride", TT_ERR_ARG, pool_stride_neg),
    ROW(tt_avg_pool_ex, "padding", TT_ERR_ARG, pool_padding_neg),
    ROW(tt_avg_pool_ex, "padding", TT_ERR_ARG, pool_padding_half),
    ROW(tt_avg_pool_ex, "dilation", TT_ERR_ARG, poolex_dilation),
    ROW(tt_avg_pool_ex, "dilation", TT_ERR_ARG, poolex_avg_dilation),
    ROW(tt_adaptive_avg_pool2d, "ctx", TT_OK, size2_null_ctx),
    ROW(tt_adaptive_avg_pool2d, "x", TT_OK, size2_null_x),
    ROW(tt_adaptive_avg_pool2d, "x", TT_ERR_SHAPE, size2_x_rank),
    ROW(tt_adaptive_avg_pool2d, "out_h", TT_ERR_ARG, size2_h_neg),
    ROW(tt_adaptive_avg_pool2d, "out_w", TT_ERR_ARG, size2_w_neg),
    ROW(tt_adaptive_avg_pool2d, "out_h", TT_ERR_ARG, size2_h_0),
    ROW(tt_adaptive_avg_pool2d, "out_h", TT_ERR_ARG, size2_h_max),
    ROW(tt_adaptive_avg_pool2d, "out_h|out_w+overflows", TT_ERR_ARG, size2_overflow),
    ROW(tt_upsample_nearest, "ctx", TT_OK, size2_null_ctx),
    ROW(tt_upsample_nearest, "x", TT_OK, size2_null_x),
    ROW(tt_upsample_nearest, "x", TT_ERR_SHAPE, size2_x_rank),
    ROW(tt_upsample_nearest, "out_h", TT_ERR_ARG, size2_h_neg),
    ROW(tt_upsample_nearest, "out_w", TT_ERR_ARG, size2_w_neg),
    ROW(tt_upsample_nearest, "out_h", TT_ERR_ARG, size2_h_0),
    ROW(tt_upsample_nearest, "out_h", TT_ERR_ARG, size2_h_max),
    ROW(tt_upsample_nearest, "out_h|out_w+overflows", TT_ERR_ARG, size2_overflow),
    ROW(tt_upsample_bilinear, "ctx", TT_OK, size2_null_ctx),
    ROW(tt_upsample_bilinear, "x", TT_OK, size2_null_x),
    ROW(tt_upsample_bilinear, "x", TT_ERR_SHAPE, size2_x_rank),
    ROW(tt_upsample_bilinear, "out_h", TT_ERR_ARG, size2_h_neg),
    ROW(tt_upsample_bilinear, "out_w", TT_ERR_ARG, size2_w_neg),
    ROW(tt_upsample_bilinear, "out_h", TT_ERR_ARG, size2_h_0),
    ROW(tt_upsample_bilinear, "out_h", TT_ERR_ARG, size2_h_max),
    ROW(tt_upsample_bilinear, "out_h|out_w+overflows", TT_ERR_ARG, size2_overflow),
    ROW(tt_upsample_nearest_scale, "ctx", TT_OK, scale2_null_ctx),
    ROW(tt_upsample_nearest_scale, "x", TT_OK, scale2_null_x),
    ROW(tt_upsample_nearest_scale, "x", TT_ERR_SHAPE, scale2_x_rank),
    ROW(tt_upsample_nearest_scale, "scale_h", TT_ERR_ARG, scale2_h_0),
    ROW(tt_upsample_nearest_scale, "scale_h", TT_ERR_ARG, scale2_h_neg),
    ROW(tt_upsample_nearest_scale, "scale_h", TT_ERR_ARG, scale2_h_nan),
    ROW(tt_upsample_nearest_scale, "scale_w", TT_ERR_ARG, scale2_w_nan),
    ROW(tt_upsample_nearest_scale, "scale_w", TT_ERR_ARG, scale2_w_inf),
    ROW(tt_upsample_nearest_scale, "scale_h", TT_ERR_ARG, scale2_h_huge),
    ROW(tt_upsample_nearest_scale, "scale_h", TT_ERR_ARG, scale2_h_small),
    ROW(tt_upsample_bilinear_scale, "ctx", TT_OK, scale2_null_ctx),
    ROW(tt_upsample_bilinear_scale, "x", TT_OK, scale2_null_x),
    ROW(tt_upsample_bilinear_scale, "x", TT_ERR_SHAPE, scale2_x_rank),
    ROW(tt_upsample_bilinear_scale, "scale_h", TT_ERR_ARG, scale2_h_0),
    ROW(tt_upsample_bilinear_scale, "scale_h", TT_ERR_ARG, scale2_h_neg),
    ROW(tt_upsample_bilinear_scale, "scale_h", TT_ERR_ARG, scale2_h_nan),
    ROW(tt_upsample_bilinear_scale, "scale_w", TT_ERR_ARG, scale2_w_nan),
    ROW(tt_upsample_bilinear_scale, "scale_w", TT_ERR_ARG, scale2_w_inf),
    ROW(tt_upsample_bilinear_scale, "scale_h", TT_ERR_ARG, scale2_h_huge),
    ROW(tt_upsample_bilinear_scale, "scale_h", TT_ERR_ARG, scale2_h_small),
};

/* ==== shape and indexing ==================================================================== */

typedef tt_tensor *(*ar_join_fn)(tt_ctx *, tt_tensor *const *, int, int);   /* tt_concat, tt_stack */
typedef tt_tensor *(*ar_index_fn)(tt_ctx *, tt_tensor *, int, tt_tensor *);  /* tt_gather, tt_index_select */

static int join_null_ctx(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T2(e->c, 2, 3); return ((ar_join_fn)e->row->f)(NULL, xs, 2, 0) == NULL; }
static int join_null_xs(ar_env *e) { return ((ar_join_fn)e->row->f)(e->c, NULL, 2, 0) == NULL; }
static int join_n_neg(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T2(e->c, 2, 3); return ((ar_join_fn)e->row->f)(e->c, xs, -1, 0) == NULL; }
static int join_n_0(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T2(e->c, 2, 3); return ((ar_join_fn)e->row->f)(e->c, xs, 0, 0) == NULL; }
static int join_null_item(ar_env *e) {
    tt_tensor *xs[2];
    xs[0] = AR_T2(e->c, 2, 3);
    xs[1] = NULL;
    return ((ar_join_fn)e->row->f)(e->c, xs, 2, 0) == NULL;
}
static int join_axis(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T2(e->c, 2, 3); return ((ar_join_fn)e->row->f)(e->c, xs, 2, 3) == NULL; }
static int join_axis_neg(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T2(e->c, 2, 3); return ((ar_join_fn)e->row->f)(e->c, xs, 2, -4) == NULL; }
static int join_shape(ar_env *e) {
    tt_tensor *xs[2];
    xs[0] = AR_T2(e->c, 2, 3);
    xs[1] = AR_T2(e->c, 2, 4);
    return ((ar_join_fn)e->row->f)(e->c, xs, 2, 0) == NULL;
}
static int join_rank(ar_env *e) {
    tt_tensor *xs[2];
    xs[0] = AR_T2(e->c, 2, 3);
    xs[1] = AR_T1(e->c, 3);
    return ((ar_join_fn)e->row->f)(e->c, xs, 2, 0) == NULL;
}
static int join_dtype(ar_env *e) {
    tt_tensor *xs[2];
    xs[0] = AR_T2(e->c, 2, 3);
    xs[1] = ar_z(e->c, TT_I32, 2, 2, 3);
    return ((ar_join_fn)e->row->f)(e->c, xs, 2, 0) == NULL;
}
static int concat_0d(ar_env *e) { tt_tensor *xs[2]; xs[0] = xs[1] = AR_T0(e->c); return tt_concat(e->c, xs, 2, 0) == NULL; }
/* Stacking 8-d tensors would make 9 dims. */
static int stack_dims(ar_env *e) {
    int64_t s[TT_MAX_DIMS];
    tt_tensor *xs[2];
    int i;
    for (i = 0; i < TT_MAX_DIMS; i++) s[i] = 1;
    xs[0] = xs[1] = tt_zeros(e->c, TT_F32, TT_MAX_DIMS, s);
    return tt_stack(e->c, xs, 2, 0) == NULL;
}

/* tt_split (split_size) and tt_chunk (chunks) of x [6,2] along axis 0. */
static int ar_cut(ar_env *e, tt_ctx *c, tt_tensor *x, int64_t size, int axis, tt_tensor **out, int max_out) {
    if (e->row->f == (ar_any_fn)tt_chunk) return tt_chunk(c, x, (int)(size < INT_MIN ? INT_MIN : size), axis, out, max_out);
    return tt_split(c, x, size, axis, out, max_out);
}
static int cut_null_ctx(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, NULL, AR_T2(e->c, 6, 2), 2, 0, o, 4) == -1; }
static int cut_null_x(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, NULL, 2, 0, o, 4) == -1; }
static int cut_size_0(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), 0, 0, o, 4) == -1; }
static int cut_size_neg(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), -2, 0, o, 4) == -1; }
static int cut_size_min(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), INT64_MIN, 0, o, 4) == -1; }
static int cut_axis(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), 2, 2, o, 4) == -1; }
static int cut_axis_neg(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), 2, -3, o, 4) == -1; }
static int cut_axis_0d(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T0(e->c), 1, 0, o, 4) == -1; }
static int cut_null_out(ar_env *e) { return ar_cut(e, e->c, AR_T2(e->c, 6, 2), 2, 0, NULL, 4) == -1; }
static int cut_max_out_neg(ar_env *e) { tt_tensor *o[4]; return ar_cut(e, e->c, AR_T2(e->c, 6, 2), 2, 0, o, -1) == -1; }

/* tt_pad and tt_pad_ex (constant mode). */
static tt_tensor *ar_pad(ar_env *e, tt_ctx *c, tt_tensor *x, const int64_t *pads, int n) {
    if (ar_is(e, (ar_any_fn)tt_pad_ex)) return tt_pad_ex(c, x, pads, n, TT_PAD_CONSTANT, 0.0f);
    return tt_pad(c, x, pads, n, 0.0f);
}
static int pad_null_ctx(ar_env *e) { int64_t p[2] = {1, 1}; return ar_pad(e, NULL, AR_T2(e->c, 2, 3), p, 2) == NULL; }
static int pad_null_x(ar_env *e) { int64_t p[2] = {1, 1}; return ar_pad(e, e->c, NULL, p, 2) == NULL; }
static int pad_null_pads(ar_env *e) { return ar_pad(e, e->c, AR_T2(e->c, 2, 3), NULL, 2) == NULL; }
static int pad_odd(ar_env *e) { int64_t p[3] = {1, 1, 1}; return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, 3) == NULL; }
static int pad_n_neg(ar_env *e) { int64_t p[2] = {1, 1}; return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, -2) == NULL; }
static int pad_n_big(ar_env *e) { int64_t p[6] = {1, 1, 1, 1, 1, 1}; return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, 6) == NULL; }
static int pad_neg(ar_env *e) { int64_t p[2] = {1, -1}; return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, 2) == NULL; }
static int pad_overflow(ar_env *e) { int64_t p[2] = {INT64_MAX - 1, 0}; return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, 2) == NULL; }
static int pad_overflow_two(ar_env *e) {
    int64_t p[4] = {AR_HUGE, AR_HUGE, AR_HUGE, AR_HUGE};
    return ar_pad(e, e->c, AR_T2(e->c, 2, 3), p, 4) == NULL;
}
static int padex_mode(ar_env *e) { int64_t p[2] = {1, 1}; return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, (tt_pad_mode)4, 0.0f) == NULL; }
static int padex_mode_neg(ar_env *e) { int64_t p[2] = {1, 1}; return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, (tt_pad_mode)-1, 0.0f) == NULL; }
/* reflect: pads < the axis size (3); circular: pads <= 3; replicate: a non-empty axis */
static int padex_reflect(ar_env *e) { int64_t p[2] = {3, 0}; return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, TT_PAD_REFLECT, 0.0f) == NULL; }
static int padex_circular(ar_env *e) { int64_t p[2] = {0, 4}; return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, TT_PAD_CIRCULAR, 0.0f) == NULL; }
static int padex_replicate(ar_env *e) { int64_t p[2] = {1, 1}; return tt_pad_ex(e->c, AR_T2(e->c, 2, 0), p, 2, TT_PAD_REPLICATE, 0.0f) == NULL; }
static int padex_reflect_huge(ar_env *e) {
    int64_t p[2] = {INT64_MAX - 1, 0};
    return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, TT_PAD_REFLECT, 0.0f) == NULL;
}
static int padex_circular_huge(ar_env *e) {
    int64_t p[2] = {0, INT64_MAX};
    return tt_pad_ex(e->c, AR_T2(e->c, 2, 3), p, 2, TT_PAD_CIRCULAR, 0.0f) == NULL;
}

/* x [2,3], index i32 [2,2] with values in range unless said. */
static int ix_null_ctx(ar_env *e) {
    return ((ar_index_fn)e->row->f)(NULL, AR_T2(e->c, 2, 3), 1, ar_z(e->c, TT_I32, e->row->f == (ar_any_fn)tt_gather ? 2 : 1, 2, 2)) == NULL;
}
static int ix_null_x(ar_env *e) { return ((ar_index_fn)e->row->f)(e->c, NULL, 1, ar_z(e->c, TT_I32, 1, 2, 0)) == NULL; }
static int ix_null_index(ar_env *e) { return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 1, NULL) == NULL; }
static int ix_dtype(ar_env *e) {
    return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 1, ar_z(e->c, TT_F32, e->row->f == (ar_any_fn)tt_gather ? 2 : 1, 2, 2)) == NULL;
}
static int ix_axis(ar_env *e) {
    return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 2, ar_z(e->c, TT_I32, e->row->f == (ar_any_fn)tt_gather ? 2 : 1, 2, 2)) == NULL;
}
static int ix_axis_neg(ar_env *e) {
    return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), -3, ar_z(e->c, TT_I32, e->row->f == (ar_any_fn)tt_gather ? 2 : 1, 2, 2)) == NULL;
}
/* An index tensor holding `bad` (out of range for axis 1 of size 3): [2,2] for tt_gather, [2] for tt_index_select. */
static tt_tensor *ar_bad_index(ar_env *e, int32_t bad) {
    int32_t v[4];
    int64_t s[2] = {2, 2};
    bool g = ar_is(e, (ar_any_fn)tt_gather);
    v[0] = 0; v[1] = bad; v[2] = 1; v[3] = 0;
    return g ? tt_from_data(e->c, TT_I32, 2, s, v) : tt_from_data(e->c, TT_I32, 1, s, v);
}
static int ix_value(ar_env *e) { return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 1, ar_bad_index(e, 3)) == NULL; }
static int ix_value_neg(ar_env *e) { return ((ar_index_fn)e->row->f)(e->c, AR_T2(e->c, 2, 3), 1, ar_bad_index(e, -1)) == NULL; }
static int gather_rank(ar_env *e) { return tt_gather(e->c, AR_T2(e->c, 2, 3), 1, ar_z(e->c, TT_I32, 1, 2, 0)) == NULL; }
static int gather_larger(ar_env *e) { return tt_gather(e->c, AR_T2(e->c, 2, 3), 1, ar_z(e->c, TT_I32, 2, 3, 1)) == NULL; }
static int index_select_rank(ar_env *e) { return tt_index_select(e->c, AR_T2(e->c, 2, 3), 1, ar_z(e->c, TT_I32, 2, 1, 1)) == NULL; }

/* weight [4,3], indices i32 [2] */
static int emb_null_ctx(ar_env *e) { return tt_embedding(NULL, AR_T2(e->c, 4, 3), ar_z(e->c, TT_I32, 1, 2, 0)) == NULL; }
static int emb_null_weight(ar_env *e) { return tt_embedding(e->c, NULL, ar_z(e->c, TT_I32, 1, 2, 0)) == NULL; }
static int emb_null_indices(ar_env *e) { return tt_embedding(e->c, AR_T2(e->c, 4, 3), NULL) == NULL; }
static int emb_dtype(ar_env *e) { return tt_embedding(e->c, AR_T2(e->c, 4, 3), ar_z(e->c, TT_F32, 1, 2, 0)) == NULL; }
static int emb_weight_rank(ar_env *e) { return tt_embedding(e->c, AR_T1(e->c, 4), ar_z(e->c, TT_I32, 1, 2, 0)) == NULL; }
/* indices with TT_MAX_DIMS axes would give a result with one more. */
static int emb_dims(ar_env *e) {
    int64_t s[TT_MAX_DIMS];
    int i;
    for (i = 0; i < TT_MAX_DIMS; i++) s[i] = 1;
    return tt_embedding(e->c, AR_T2(e->c, 4, 3), tt_zeros(e->c, TT_I32, TT_MAX_DIMS, s)) == NULL;
}
static int emb_value(ar_env *e) {
    int32_t v[2] = {1, 4};
    int64_t n = 2;
    return tt_embedding(e->c, AR_T2(e->c, 4, 3), tt_from_data(e->c, TT_I32, 1, &n, v)) == NULL;
}
static int emb_value_neg(ar_env *e) {
    int32_t v[2] = {-1, 0};
    int64_t n = 2;
    return tt_embedding(e->c, AR_T2(e->c, 4, 3), tt_from_data(e->c, TT_I32, 1, &n, v)) == NULL;
}

static int ri_null_ctx(ar_env *e) { return tt_repeat_interleave(NULL, AR_T2(e->c, 2, 3), 2, 0) == NULL; }
static int ri_null_x(ar_env *e) { return tt_repeat_interleave(e->c, NULL, 2, 0) == NULL; }
static int ri_neg(ar_env *e) { return tt_repeat_interleave(e->c, AR_T2(e->c, 2, 3), -1, 0) == NULL; }
static int ri_huge(ar_env *e) { return tt_repeat_interleave(e->c, AR_T2(e->c, 2, 3), INT64_MAX, 0) == NULL; }
static int ri_axis(ar_env *e) { return tt_repeat_interleave(e->c, AR_T2(e->c, 2, 3), 2, 2) == NULL; }
static int ri_axis_neg(ar_env *e) { return tt_repeat_interleave(e->c, AR_T2(e->c, 2, 3), 2, -3) == NULL; }

static int flip_null_ctx(ar_env *e) { int a[1] = {0}; return tt_flip(NULL, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int flip_null_x(ar_env *e) { int a[1] = {0}; return tt_flip(e->c, NULL, a, 1) == NULL; }
static int flip_null_axes(ar_env *e) { return tt_flip(e->c, AR_T2(e->c, 2, 3), NULL, 1) == NULL; }
static int flip_n_neg(ar_env *e) { int a[1] = {0}; return tt_flip(e->c, AR_T2(e->c, 2, 3), a, -1) == NULL; }
static int flip_axis(ar_env *e) { int a[1] = {2}; return tt_flip(e->c, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int flip_axis_neg(ar_env *e) { int a[1] = {-3}; return tt_flip(e->c, AR_T2(e->c, 2, 3), a, 1) == NULL; }
static int flip_repeat(ar_env *e) { int a[2] = {0, -2}; return tt_flip(e->c, AR_T2(e->c, 2, 3), a, 2) == NULL; }

static int tile_null_ctx(ar_env *e) { int64_t r[2] = {2, 2}; return tt_tile(NULL, AR_T2(e->c, 2, 3), r, 2) == NULL; }
static int tile_null_x(ar_env *e) { int64_t r[2] = {2, 2}; return tt_tile(e->c, NULL, r, 2) == NULL; }
static int tile_null_reps(ar_env *e) { return tt_tile(e->c, AR_T2(e->c, 2, 3), NULL, 2) == NULL; }
static int tile_n_neg(ar_env *e) { int64_t r[2] = {2, 2}; return tt_tile(e->c, AR_T2(e->c, 2, 3), r, -1) == NULL; }
static int tile_n_9(ar_env *e) {
    int64_t r[TT_MAX_DIMS + 1];
    int i;
    for (i = 0; i <= TT_MAX_DIMS; i++) r[i] = 1;
    return tt_tile(e->c, AR_T2(e->c, 2, 3), r, TT_MAX_DIMS + 1) == NULL;
}
static int tile_neg(ar_env *e) { int64_t r[2] = {2, -1}; return tt_tile(e->c, AR_T2(e->c, 2, 3), r, 2) == NULL; }
static int tile_overflow(ar_env *e) { int64_t r[2] = {AR_HUGE, AR_HUGE}; return tt_tile(e->c, AR_T2(e->c, 2, 3), r, 2) == NULL; }
static int tile_max(ar_env *e) { int64_t r[1] = {INT64_MAX}; return tt_tile(e->c, AR_T2(e->c, 2, 3), r, 1) == NULL; }

static const ar_row shape_rows[] = {
    ROW(tt_concat, "ctx", TT_OK, join_null_ctx),
    ROW(tt_concat, "xs", TT_ERR_ARG, join_null_xs),
    ROW(tt_concat, "n", TT_ERR_ARG, join_n_neg),
    ROW(tt_concat, "n", TT_ERR_ARG, join_n_0),
    ROW(tt_concat, "xs", TT_OK, join_null_item),
    ROW(tt_concat, "axis", TT_ERR_ARG, join_axis),
    ROW(tt_concat, "axis", TT_ERR_ARG, join_axis_neg),
    ROW(tt_concat, "xs", TT_ERR_SHAPE, join_shape),
    ROW(tt_concat, "xs", TT_ERR_SHAPE, join_rank),
    ROW(tt_concat, "xs", TT_ERR_DTYPE, join_dtype),
    ROW(tt_concat, "xs|axis", TT_ERR_ARG, concat_0d),
    ROW(tt_stack, "ctx", TT_OK, join_null_ctx),
    ROW(tt_stack, "xs", TT_ERR_ARG, join_null_xs),
    ROW(tt_stack, "n", TT_ERR_ARG, join_n_neg),
    ROW(tt_stack, "n", TT_ERR_ARG, join_n_0),
    ROW(tt_stack, "xs", TT_OK, join_null_item),
    ROW(tt_stack, "axis", TT_ERR_ARG, join_axis),
    ROW(tt_stack, "axis", TT_ERR_ARG, join_axis_neg),
    ROW(tt_stack, "xs", TT_ERR_SHAPE, join_shape),
    ROW(tt_stack, "xs", TT_ERR_DTYPE, join_dtype),
    ROW(tt_stack, "xs+TT_MAX_DIMS", TT_ERR_ARG, stack_dims),
    ROW(tt_split, "ctx", TT_OK, cut_null_ctx),
    ROW(tt_split, "x", TT_OK, cut_null_x),
    ROW(tt_split, "split_size", TT_ERR_ARG, cut_size_0),
    ROW(tt_split, "split_size", TT_ERR_ARG, cut_size_neg),
    ROW(tt_split, "split_size", TT_ERR_ARG, cut_size_min),
    ROW(tt_split, "axis", TT_ERR_ARG, cut_axis),
    ROW(tt_split, "axis", TT_ERR_ARG, cut_axis_neg),
    ROW(tt_split, "axis", TT_ERR_ARG, cut_axis_0d),
    ROW(tt_split, "out", TT_ERR_ARG, cut_null_out),
    ROW(tt_split, "max_out", TT_ERR_ARG, cut_max_out_neg),
    ROW(tt_chunk, "ctx", TT_OK, cut_null_ctx),
    ROW(tt_chunk, "x", TT_OK, cut_null_x),
    ROW(tt_chunk, "chunks", TT_ERR_ARG, cut_size_0),
    ROW(tt_chunk, "chunks", TT_ERR_ARG, cut_size_neg),
    ROW(tt_chunk, "chunks", TT_ERR_ARG, cut_size_min),
    ROW(tt_chunk, "axis", TT_ERR_ARG, cut_axis),
    ROW(tt_chunk, "axis", TT_ERR_ARG, cut_axis_neg),
    ROW(tt_chunk, "axis", TT_ERR_ARG, cut_axis_0d),
    ROW(tt_chunk, "out", TT_ERR_ARG, cut_null_out),
    ROW(tt_chunk, "max_out", TT_ERR_ARG, cut_max_out_neg),
    ROW(tt_pad, "ctx", TT_OK, pad_null_ctx),
    ROW(tt_pad, "x", TT_OK, pad_null_x),
    ROW(tt_pad, "pads", TT_ERR_ARG, pad_null_pads),
    ROW(tt_pad, "n_pads", TT_ERR_ARG, pad_odd),
    ROW(tt_pad, "n_pads", TT_ERR_ARG, pad_n_neg),
    ROW(tt_pad, "n_pads", TT_ERR_ARG, pad_n_big),
    ROW(tt_pad, "pads", TT_ERR_ARG, pad_neg),
    ROW(tt_pad, "pads+overflows", TT_ERR_ARG, pad_overflow),
    ROW(tt_pad, "pads+overflows", TT_ERR_ARG, pad_overflow_two),
    ROW(tt_pad_ex, "ctx", TT_OK, pad_null_ctx),
    ROW(tt_pad_ex, "x", TT_OK, pad_null_x),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, pad_null_pads),
    ROW(tt_pad_ex, "n_pads", TT_ERR_ARG, pad_odd),
    ROW(tt_pad_ex, "n_pads", TT_ERR_ARG, pad_n_neg),
    ROW(tt_pad_ex, "n_pads", TT_ERR_ARG, pad_n_big),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, pad_neg),
    ROW(tt_pad_ex, "pads+overflows", TT_ERR_ARG, pad_overflow),
    ROW(tt_pad_ex, "pads+overflows", TT_ERR_ARG, pad_overflow_two),
    ROW(tt_pad_ex, "mode", TT_ERR_ARG, padex_mode),
    ROW(tt_pad_ex, "mode", TT_ERR_ARG, padex_mode_neg),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, padex_reflect),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, padex_reflect_huge),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, padex_circular),
    ROW(tt_pad_ex, "pads", TT_ERR_ARG, padex_circular_huge),
    ROW(tt_pad_ex, "pads|x", TT_ERR_ARG, padex_replicate),
    ROW(tt_gather, "ctx", TT_OK, ix_null_ctx),
    ROW(tt_gather, "x", TT_OK, ix_null_x),
    ROW(tt_gather, "index", TT_OK, ix_null_index),
    ROW(tt_gather, "index", TT_ERR_DTYPE, ix_dtype),
    ROW(tt_gather, "axis", TT_ERR_ARG, ix_axis),
    ROW(tt_gather, "axis", TT_ERR_ARG, ix_axis_neg),
    ROW(tt_gather, "index", TT_ERR_INDEX, ix_value),
    ROW(tt_gather, "index", TT_ERR_INDEX, ix_value_neg),
    ROW(tt_gather, "index", TT_ERR_SHAPE, gather_rank),
    ROW(tt_gather, "index", TT_ERR_SHAPE, gather_larger),
    ROW(tt_index_select, "ctx", TT_OK, ix_null_ctx),
    ROW(tt_index_select, "x", TT_OK, ix_null_x),
    ROW(tt_index_select, "index", TT_OK, ix_null_index),
    ROW(tt_index_select, "index", TT_ERR_DTYPE, ix_dtype),
    ROW(tt_index_select, "axis", TT_ERR_ARG, ix_axis),
    ROW(tt_index_select, "axis", TT_ERR_ARG, ix_axis_neg),
    ROW(tt_index_select, "index", TT_ERR_INDEX, ix_value),
    ROW(tt_index_select, "index", TT_ERR_INDEX, ix_value_neg),
    ROW(tt_index_select, "index", TT_ERR_SHAPE, index_select_rank),
    ROW(tt_embedding, "ctx", TT_OK, emb_null_ctx),
    ROW(tt_embedding, "weight", TT_OK, emb_null_weight),
    ROW(tt_embedding, "indices", TT_OK, emb_null_indices),
    ROW(tt_embedding, "indices", TT_ERR_DTYPE, emb_dtype),
    ROW(tt_embedding, "weight", TT_ERR_SHAPE, emb_weight_rank),
    ROW(tt_embedding, "indices+TT_MAX_DIMS", TT_ERR_ARG, emb_dims),
    ROW(tt_embedding, "indices", TT_ERR_INDEX, emb_value),
    ROW(tt_embedding, "indices", TT_ERR_INDEX, emb_value_neg),
    ROW(tt_repeat_interleave, "ctx", TT_OK, ri_null_ctx),
    ROW(tt_repeat_interleave, "x", TT_OK, ri_null_x),
    ROW(tt_repeat_interleave, "repeats", TT_ERR_ARG, ri_neg),
    ROW(tt_repeat_interleave, "repeats", TT_ERR_ARG, ri_huge),
    ROW(tt_repeat_interleave, "axis", TT_ERR_ARG, ri_axis),
    ROW(tt_repeat_interleave, "axis", TT_ERR_ARG, ri_axis_neg),
    ROW(tt_flip, "ctx", TT_OK, flip_null_ctx),
    ROW(tt_flip, "x", TT_OK, flip_null_x),
    ROW(tt_flip, "axes", TT_ERR_ARG, flip_null_axes),
    ROW(tt_flip, "n", TT_ERR_ARG, flip_n_neg),
    ROW(tt_flip, "axes", TT_ERR_ARG, flip_axis),
    ROW(tt_flip, "axes", TT_ERR_ARG, flip_axis_neg),
    ROW(tt_flip, "axes", TT_ERR_ARG, flip_repeat),
    ROW(tt_tile, "ctx", TT_OK, tile_null_ctx),
    ROW(tt_tile, "x", TT_OK, tile_null_x),
    ROW(tt_tile, "reps", TT_ERR_ARG, tile_null_reps),
    ROW(tt_tile, "n", TT_ERR_ARG, tile_n_neg),
    ROW(tt_tile, "n+TT_MAX_DIMS", TT_ERR_ARG, tile_n_9),
    ROW(tt_tile, "reps", TT_ERR_ARG, tile_neg),
    ROW(tt_tile, "reps+overflows", TT_ERR_ARG, tile_overflow),
    ROW(tt_tile, "reps+overflows", TT_ERR_ARG, tile_max),
    ROW(tt_shape_as_tensor, "ctx", TT_OK, one_null_ctx),
    ROW(tt_shape_as_tensor, "x", TT_OK, one_null_x),
};

/* ==== attention ============================================================================= */

/* q [2,3,4], k [2,5,4], v [2,5,6]; `bad` replaces one of them or the mask. */
static int sdpa_call(ar_env *e, tt_ctx *c, int which_null, tt_tensor *bad_q, tt_tensor *bad_k, tt_tensor *bad_v,
                     tt_tensor *mask, float scale) {
    tt_tensor *q = bad_q ? bad_q : AR_T3(e->c, 2, 3, 4);
    tt_tensor *k = bad_k ? bad_k : AR_T3(e->c, 2, 5, 4);
    tt_tensor *v = bad_v ? bad_v : AR_T3(e->c, 2, 5, 6);
    if (which_null == 1) q = NULL;
    if (which_null == 2) k = NULL;
    if (which_null == 3) v = NULL;
    return tt_scaled_dot_product_attention(c, q, k, v, mask, false, scale) == NULL;
}
static int sdpa_null_ctx(ar_env *e) { return sdpa_call(e, NULL, 0, NULL, NULL, NULL, NULL, 0); }
static int sdpa_null_q(ar_env *e) { return sdpa_call(e, e->c, 1, NULL, NULL, NULL, NULL, 0); }
static int sdpa_null_k(ar_env *e) { return sdpa_call(e, e->c, 2, NULL, NULL, NULL, NULL, 0); }
static int sdpa_null_v(ar_env *e) { return sdpa_call(e, e->c, 3, NULL, NULL, NULL, NULL, 0); }
static int sdpa_q_rank(ar_env *e) { return sdpa_call(e, e->c, 0, AR_T1(e->c, 4), NULL, NULL, NULL, 0); }
static int sdpa_k_rank(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, AR_T1(e->c, 4), NULL, NULL, 0); }
static int sdpa_v_rank(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, AR_T0(e->c), NULL, 0); }
static int sdpa_k_embed(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, AR_T3(e->c, 2, 5, 3), NULL, NULL, 0); }
static int sdpa_v_len(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, AR_T3(e->c, 2, 4, 6), NULL, 0); }
static int sdpa_batch(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, AR_T3(e->c, 3, 5, 4), AR_T3(e->c, 3, 5, 6), NULL, 0); }
static int sdpa_mask_dtype(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, NULL, ar_z(e->c, TT_I32, 2, 3, 5), 0); }
static int sdpa_mask_shape(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, NULL, ar_z(e->c, TT_BOOL, 2, 3, 4), 0); }
static int sdpa_scale_nan(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, NULL, NULL, NAN); }
static int sdpa_scale_inf(ar_env *e) { return sdpa_call(e, e->c, 0, NULL, NULL, NULL, NULL, INFINITY); }

static const ar_row attention_rows[] = {
    ROW(tt_scaled_dot_product_attention, "ctx", TT_OK, sdpa_null_ctx),
    ROW(tt_scaled_dot_product_attention, "q", TT_OK, sdpa_null_q),
    ROW(tt_scaled_dot_product_attention, "k", TT_OK, sdpa_null_k),
    ROW(tt_scaled_dot_product_attention, "v", TT_OK, sdpa_null_v),
    ROW(tt_scaled_dot_product_attention, "q", TT_ERR_SHAPE, sdpa_q_rank),
    ROW(tt_scaled_dot_product_attention, "k", TT_ERR_SHAPE, sdpa_k_rank),
    ROW(tt_scaled_dot_product_attention, "v", TT_ERR_SHAPE, sdpa_v_rank),
    ROW(tt_scaled_dot_product_attention, "q+k", TT_ERR_SHAPE, sdpa_k_embed),
    ROW(tt_scaled_dot_product_attention, "k+v", TT_ERR_SHAPE, sdpa_v_len),
    ROW(tt_scaled_dot_product_attention, "q+k", TT_ERR_SHAPE, sdpa_batch),
    ROW(tt_scaled_dot_product_attention, "mask", TT_ERR_DTYPE, sdpa_mask_dtype),
    ROW(tt_scaled_dot_product_attention, "mask", TT_ERR_SHAPE, sdpa_mask_shape),
    ROW(tt_scaled_dot_product_attention, "scale", TT_ERR_ARG, sdpa_scale_nan),
    ROW(tt_scaled_dot_product_attention, "scale", TT_ERR_ARG, sdpa_scale_inf),
};


/* ==== tracing =============================================================================== */

/* Starts a trace on c with input x [3]; returns relu(x), a value of the trace. */
static tt_tensor *ar_begin(tt_ctx *c, tt_tensor **x) {
    *x = AR_T1(c, 3);
    tt_trace_begin(c);
    tt_trace_input(c, *x, "x");
    return tt_relu(c, *x);
}

static int begin_null_ctx(ar_env *e) { (void)e; return tt_trace_begin(NULL) < 0; }
static int begin_twice(ar_env *e) { AR_EXPECT(e, tt_trace_begin(e->c) == TT_OK); return tt_trace_begin(e->c) < 0 && tt_is_tracing(e->c); }

static int input_null_ctx(ar_env *e) { tt_tensor *x; ar_begin(e->c, &x); return tt_trace_input(NULL, AR_T1(e->c, 3), "y") == NULL; }
static int input_null_t(ar_env *e) { tt_tensor *x; ar_begin(e->c, &x); return tt_trace_input(e->c, NULL, "y") == NULL; }
static int input_other_ctx(ar_env *e) { tt_tensor *x, *o = AR_T1(ar_ctx2(e), 3); ar_begin(e->c, &x); return tt_trace_input(e->c, o, "o") == NULL; }
static int input_no_trace(ar_env *e) { return tt_trace_input(e->c, AR_T1(e->c, 3), "x") == NULL; }
static int input_twice(ar_env *e) { tt_tensor *x; ar_begin(e->c, &x); return tt_trace_input(e->c, x, "again") == NULL; }
static int is_tracing_null(ar_env *e) { (void)e; return !tt_is_tracing(NULL); }

static int end_null_ctx(ar_env *e) { tt_tensor *x, *y = ar_begin(e->c, &x); return tt_trace_end(NULL, &y, 1) == NULL && tt_is_tracing(e->c); }
static int end_no_trace(ar_env *e) { tt_tensor *y = AR_T1(e->c, 3); return tt_trace_end(e->c, &y, 1) == NULL; }
static int end_null_outputs(ar_env *e) { tt_tensor *x; ar_begin(e->c, &x); return tt_trace_end(e->c, NULL, 1) == NULL && !tt_is_tracing(e->c); }
static int end_n_0(ar_env *e) { tt_tensor *x, *y = ar_begin(e->c, &x); return tt_trace_end(e->c, &y, 0) == NULL && !tt_is_tracing(e->c); }
static int end_n_neg(ar_env *e) { tt_tensor *x, *y = ar_begin(e->c, &x); return tt_trace_end(e->c, &y, -1) == NULL && !tt_is_tracing(e->c); }
static int end_output_null(ar_env *e) {
    tt_tensor *x, *o[2];
    o[0] = ar_begin(e->c, &x);
    o[1] = NULL;
    return tt_trace_end(e->c, o, 2) == NULL && !tt_is_tracing(e->c);
}
static int end_output_param(ar_env *e) {
    tt_tensor *p = AR_T1(e->c, 3), *x, *o[2];
    o[0] = ar_begin(e->c, &x);
    o[1] = p;
    return tt_trace_end(e->c, o, 2) == NULL && !tt_is_tracing(e->c);
}
static int end_output_other(ar_env *e) {
    tt_tensor *x, *o[2];
    o[0] = ar_begin(e->c, &x);
    o[1] = AR_T1(ar_ctx2(e), 3);
    return tt_trace_end(e->c, o, 2) == NULL && !tt_is_tracing(e->c);
}

/* An op on ctx that reads a traced value of another context's running trace: TT_ERR_STATE in
   both contexts, and the other trace cannot end in a graph. */
static int ar_escape(ar_env *e, tt_tensor *(*op)(tt_ctx *c, tt_tensor *traced, ar_env *e)) {
    tt_ctx *a = ar_ctx2(e);
    tt_tensor *x, *y = ar_begin(a, &x), *r;
    tt_graph *g;
    r = op(e->c, x, e);
    AR_EXPECT(e, tt_ctx_status(a) == TT_ERR_STATE);
    g = tt_trace_end(a, &y, 1);
    AR_EXPECT(e, g == NULL);
    tt_graph_destroy(g);
    return r == NULL;
}
static tt_tensor *esc_add_a(tt_ctx *c, tt_tensor *t, ar_env *e) { return tt_add(c, t, AR_T1(e->c, 3)); }
static tt_tensor *esc_mul_b(tt_ctx *c, tt_tensor *t, ar_env *e) { return tt_mul(c, AR_T1(e->c, 3), t); }
static tt_tensor *esc_relu(tt_ctx *c, tt_tensor *t, ar_env *e) { (void)e; return tt_relu(c, t); }
static tt_tensor *esc_sum(tt_ctx *c, tt_tensor *t, ar_env *e) { (void)e; return tt_sum(c, t, NULL, 0, false); }
static tt_tensor *esc_matmul(tt_ctx *c, tt_tensor *t, ar_env *e) { return tt_matmul(c, t, AR_T2(e->c, 3, 2)); }
static tt_tensor *esc_reshape(tt_ctx *c, tt_tensor *t, ar_env *e) { int64_t s[2] = {1, 3}; (void)e; return tt_reshape(c, t, 2, s); }
static tt_tensor *esc_concat(tt_ctx *c, tt_tensor *t, ar_env *e) { tt_tensor *xs[2]; xs[0] = AR_T1(e->c, 3); xs[1] = t; return tt_concat(c, xs, 2, 0); }
static tt_tensor *esc_where(tt_ctx *c, tt_tensor *t, ar_env *e) { return tt_where(c, ar_z(e->c, TT_BOOL, 1, 3, 0), t, AR_T1(e->c, 3)); }
static tt_tensor *esc_layer_norm(tt_ctx *c, tt_tensor *t, ar_env *e) { return tt_layer_norm(c, AR_T2(e->c, 2, 3), 1, t, NULL, 1e-5f); }
static tt_tensor *esc_pad(tt_ctx *c, tt_tensor *t, ar_env *e) { int64_t p[2] = {1, 1}; (void)e; return tt_pad(c, t, p, 2, 0.0f); }
/* the traced x [3] as a float mask, broadcast to the scores [2,3] */
static tt_tensor *esc_sdpa(tt_ctx *c, tt_tensor *t, ar_env *e) {
    return tt_scaled_dot_product_attention(c, AR_T2(e->c, 2, 3), AR_T2(e->c, 3, 3), AR_T2(e->c, 3, 3), t, false, 0);
}
static int esc_add_a_row(ar_env *e) { return ar_escape(e, esc_add_a); }
static int esc_mul_b_row(ar_env *e) { return ar_escape(e, esc_mul_b); }
static int esc_relu_row(ar_env *e) { return ar_escape(e, esc_relu); }
static int esc_sum_row(ar_env *e) { return ar_escape(e, esc_sum); }
static int esc_matmul_row(ar_env *e) { return ar_escape(e, esc_matmul); }
static int esc_reshape_row(ar_env *e) { return ar_escape(e, esc_reshape); }
static int esc_concat_row(ar_env *e) { return ar_escape(e, esc_concat); }
static int esc_where_row(ar_env *e) { return ar_escape(e, esc_where); }
static int esc_layer_norm_row(ar_env *e) { return ar_escape(e, esc_layer_norm); }
static int esc_pad_row(ar_env *e) { return ar_escape(e, esc_pad); }
static int esc_sdpa_row(ar_env *e) { return ar_escape(e, esc_sdpa); }

/* Forward functions for tt_trace and tt_compiled_*. */
static int fwd_relu(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)n; (void)max_out; (void)user;
    out[0] = tt_relu(c, in[0]);
    return 1;
}
static int fwd_fail(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n; (void)out; (void)max_out; (void)user;
    return -1;
}
static int fwd_none(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    (void)c; (void)in; (void)n; (void)out; (void)max_out; (void)user;
    return 0;
}
/* Fills out and claims one more output than fits. */
static int fwd_too_many(tt_ctx *c, tt_tensor *const *in, int n, tt_tensor **out, int max_out, void *user) {
    int i;
    (void)n; (void)user;
    for (i = 0; i < max_out; i++) out[i] = tt_relu(c, in[0]);
    return max_out + 1;
}

static int trace_null_ctx(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_trace(NULL, fwd_relu, NULL, &x, 1) == NULL; }
static int trace_null_fn(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_trace(e->c, NULL, NULL, &x, 1) == NULL; }
static int trace_n_neg(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_trace(e->c, fwd_relu, NULL, &x, -1) == NULL; }
static int trace_null_inputs(ar_env *e) { return tt_trace(e->c, fwd_relu, NULL, NULL, 1) == NULL; }
static int trace_input_null(ar_env *e) { tt_tensor *x = NULL; return tt_trace(e->c, fwd_relu, NULL, &x, 1) == NULL && !tt_is_tracing(e->c); }
static int trace_input_other(ar_env *e) {
    tt_tensor *x = AR_T1(ar_ctx2(e), 3);
    return tt_trace(e->c, fwd_relu, NULL, &x, 1) == NULL && !tt_is_tracing(e->c);
}
static int trace_fn_fails(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_trace(e->c, fwd_fail, NULL, &x, 1) == NULL && !tt_is_tracing(e->c); }
static int trace_fn_none(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_trace(e->c, fwd_none, NULL, &x, 1) == NULL && !tt_is_tracing(e->c); }
static int trace_fn_many(ar_env *e) {
    tt_tensor *x = AR_T1(e->c, 3);
    return tt_trace(e->c, fwd_too_many, NULL, &x, 1) == NULL && !tt_is_tracing(e->c);
}
static int trace_running(ar_env *e) {
    tt_tensor *x = AR_T1(e->c, 3), *y;
    tt_trace_begin(e->c);
    y = tt_relu(e->c, tt_trace_input(e->c, x, "x"));
    AR_EXPECT(e, y != NULL);
    return tt_trace(e->c, fwd_relu, NULL, &x, 1) == NULL && tt_is_tracing(e->c);
}

static const ar_row trace_rows[] = {
    ROW(tt_trace_begin, "ctx", TT_OK, begin_null_ctx),
    ROW(tt_trace_begin, "ctx", TT_ERR_STATE, begin_twice),
    ROW(tt_trace_input, "ctx", TT_OK, input_null_ctx),
    ROW(tt_trace_input, "t", TT_OK, input_null_t),
    ROW(tt_trace_input, "t", TT_ERR_ARG, input_other_ctx),
    ROW(tt_trace_input, "ctx", TT_ERR_STATE, input_no_trace),
    ROW(tt_trace_input, "t", TT_ERR_STATE, input_twice),
    ROW(tt_is_tracing, "ctx", TT_OK, is_tracing_null),
    ROW(tt_trace_end, "ctx", TT_OK, end_null_ctx),
    ROW(tt_trace_end, "ctx", TT_ERR_STATE, end_no_trace),
    ROW(tt_trace_end, "outputs", TT_ERR_ARG, end_null_outputs),
    ROW(tt_trace_end, "n_outputs", TT_ERR_ARG, end_n_0),
    ROW(tt_trace_end, "n_outputs", TT_ERR_ARG, end_n_neg),
    ROW(tt_trace_end, "outputs", TT_ERR_ARG, end_output_null),
    ROW(tt_trace_end, "outputs", TT_ERR_ARG, end_output_param),
    ROW(tt_trace_end, "outputs", TT_ERR_ARG, end_output_other),
    ROW(tt_add, "a", TT_ERR_STATE, esc_add_a_row),
    ROW(tt_mul, "b", TT_ERR_STATE, esc_mul_b_row),
    ROW(tt_relu, "x", TT_ERR_STATE, esc_relu_row),
    ROW(tt_sum, "x", TT_ERR_STATE, esc_sum_row),
    ROW(tt_matmul, "a", TT_ERR_STATE, esc_matmul_row),
    ROW(tt_reshape, "x", TT_ERR_STATE, esc_reshape_row),
    ROW(tt_concat, "xs", TT_ERR_STATE, esc_concat_row),
    ROW(tt_where, "a", TT_ERR_STATE, esc_where_row),
    ROW(tt_layer_norm, "weight", TT_ERR_STATE, esc_layer_norm_row),
    ROW(tt_pad, "x", TT_ERR_STATE, esc_pad_row),
    ROW(tt_scaled_dot_product_attention, "mask", TT_ERR_STATE, esc_sdpa_row),
    ROW(tt_trace, "ctx", TT_OK, trace_null_ctx),
    ROW(tt_trace, "fn", TT_ERR_ARG, trace_null_fn),
    ROW(tt_trace, "n_inputs", TT_ERR_ARG, trace_n_neg),
    ROW(tt_trace, "inputs", TT_ERR_ARG, trace_null_inputs),
    ROW(tt_trace, "inputs", TT_OK, trace_input_null),
    ROW(tt_trace, "inputs", TT_ERR_ARG, trace_input_other),
    ROW(tt_trace, "fn", TT_ERR_ARG, trace_fn_fails),
    ROW(tt_trace, "fn", TT_ERR_ARG, trace_fn_none),
    ROW(tt_trace, "fn", TT_ERR_ARG, trace_fn_many),
    ROW(tt_trace, "ctx", TT_ERR_STATE, trace_running),
};

/* ==== graphs ================================================================================ */

/* A graph of relu(x + 1) traced on x [3] (e->x, made in e->c); its errors are the row's. */
static tt_graph *ar_graph(ar_env *e) {
    tt_tensor *y;
    e->x = AR_T1(e->c, 3);
    tt_trace_begin(e->c);
    y = tt_relu(e->c, tt_add_scalar(e->c, tt_trace_input(e->c, e->x, "x"), 1.0f));
    e->g = tt_trace_end(e->c, &y, 1);
    e->where = AR_IN_GRAPH;
    AR_EXPECT(e, e->g != NULL);
    return e->g;
}

static int compile_null_g(ar_env *e) { (void)e; return tt_graph_compile(NULL, TT_MODE_DEFAULT, TT_PASS_ALL) < 0; }
static int compile_mode(ar_env *e) { return tt_graph_compile(ar_graph(e), (tt_mode)3, TT_PASS_ALL) < 0; }
static int compile_mode_neg(ar_env *e) { return tt_graph_compile(ar_graph(e), (tt_mode)-1, TT_PASS_ALL) < 0; }
static int compile_passes(ar_env *e) { return tt_graph_compile(ar_graph(e), TT_MODE_DEFAULT, 1u << 17) < 0; }
static int compile_passes_top(ar_env *e) { return tt_graph_compile(ar_graph(e), TT_MODE_DEFAULT, 0x80000000u | TT_PASS_ALL) < 0; }

typedef tt_status (*ar_run_fn)(tt_graph *, tt_tensor *const *, int);   /* tt_graph_run, tt_graph_bind */

static int grun_null_g(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return ((ar_run_fn)e->row->f)(NULL, &x, 1) < 0; }
static int grun_null_inputs(ar_env *e) { ar_graph(e); return ((ar_run_fn)e->row->f)(e->g, NULL, 1) < 0; }
static int grun_n_more(ar_env *e) { tt_tensor *xs[2]; ar_graph(e); xs[0] = xs[1] = e->x; return ((ar_run_fn)e->row->f)(e->g, xs, 2) < 0; }
static int grun_n_neg(ar_env *e) { ar_graph(e); return ((ar_run_fn)e->row->f)(e->g, &e->x, -1) < 0; }
static int grun_input_null(ar_env *e) { tt_tensor *x = NULL; ar_graph(e); return ((ar_run_fn)e->row->f)(e->g, &x, 1) < 0; }
static int grun_dtype(ar_env *e) { tt_tensor *x; ar_graph(e); x = ar_z(e->c, TT_I32, 1, 3, 0); return ((ar_run_fn)e->row->f)(e->g, &x, 1) < 0; }
static int grun_shape(ar_env *e) { tt_tensor *x; ar_graph(e); x = AR_T1(e->c, 4); return ((ar_run_fn)e->row->f)(e->g, &x, 1) < 0; }
static int grun_unbound(ar_env *e) { ar_graph(e); return tt_graph_run(e->g, NULL, 0) < 0; }

static int output_null_g(ar_env *e) { (void)e; return tt_graph_output(NULL, 0) == NULL; }
static int ar_ran(ar_env *e) { ar_graph(e); return AR_EXPECT(e, tt_graph_run(e->g, &e->x, 1) == TT_OK); }
static int output_i(ar_env *e) { ar_ran(e); return tt_graph_output(e->g, 1) == NULL; }
static int output_i_neg(ar_env *e) { ar_ran(e); return tt_graph_output(e->g, -1) == NULL; }
static int output_not_run(ar_env *e) { ar_graph(e); return tt_graph_output(e->g, 0) == NULL; }
static int num_inputs_null(ar_env *e) { (void)e; return tt_graph_num_inputs(NULL) <= 0; }
static int num_outputs_null(ar_env *e) { (void)e; return tt_graph_num_outputs(NULL) <= 0; }
static int num_nodes_null(ar_env *e) { (void)e; return tt_graph_num_nodes(NULL) <= 0; }
static int num_warnings_null(ar_env *e) { (void)e; return tt_graph_num_warnings(NULL) <= 0; }
static int gerror_null(ar_env *e) { const char *s = tt_graph_error(NULL); (void)e; return s != NULL && *s != '\0'; }
static int gstatus_null(ar_env *e) { (void)e; return tt_graph_status(NULL) < 0; }
static int gclear_null(ar_env *e) { (void)e; tt_graph_clear_error(NULL); return 1; }
static int warning_null(ar_env *e) { (void)e; return tt_graph_warning(NULL, 0) == NULL; }
static int warning_i(ar_env *e) { ar_graph(e); return tt_graph_warning(e->g, 0) == NULL && tt_graph_warning(e->g, 1) == NULL; }
static int warning_i_neg(ar_env *e) { ar_graph(e); return tt_graph_warning(e->g, -1) == NULL && tt_graph_warning(e->g, INT_MIN) == NULL; }
static int stats_null(ar_env *e) {
    tt_graph_stats st = tt_graph_get_stats(NULL);
    (void)e;
    return st.nodes == 0 && st.nodes_traced == 0 && st.arena_bytes == 0 && st.fused_nodes == 0;
}
static int debug_null(ar_env *e) { (void)e; tt_graph_set_debug(NULL, TT_DEBUG_POISON); return 1; }
static int debug_flags(ar_env *e) { ar_graph(e); tt_graph_set_debug(e->g, 0x100u); return 1; }
static int conv_algo_null(ar_env *e) { (void)e; return tt_graph_set_conv_algo(NULL, TT_CONV_RULE) == TT_ERR_ARG; }
static int conv_algo_big(ar_env *e) { ar_graph(e); return tt_graph_set_conv_algo(e->g, (tt_conv_algo)5) == TT_ERR_ARG; }
static int conv_algo_neg(ar_env *e) { ar_graph(e); return tt_graph_set_conv_algo(e->g, (tt_conv_algo)-1) == TT_ERR_ARG; }

static int check_call(ar_env *e, tt_tensor *const *in, int n, double atol, double rtol, int with_report) {
    tt_check_report rep;
    ar_graph(e);
    return tt_graph_check(e->g, in, n, atol, rtol, with_report ? &rep : NULL) < 0;
}
static int check_null_g(ar_env *e) { tt_check_report rep; tt_tensor *x = AR_T1(e->c, 3); return tt_graph_check(NULL, &x, 1, 0, 0, &rep) < 0; }
static int check_null_report(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return check_call(e, &x, 1, 1e-6, 1e-6, 0); }
static int check_atol_nan(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return check_call(e, &x, 1, NAN, 1e-6, 1); }
static int check_atol_neg(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return check_call(e, &x, 1, -1e-6, 1e-6, 1); }
static int check_rtol_nan(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return check_call(e, &x, 1, 1e-6, NAN, 1); }
static int check_rtol_neg(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return check_call(e, &x, 1, 1e-6, -1.0, 1); }
static int check_null_inputs(ar_env *e) { return check_call(e, NULL, 1, 1e-6, 1e-6, 1); }
static int check_n(ar_env *e) { tt_tensor *x[2]; x[0] = x[1] = AR_T1(e->c, 3); return check_call(e, x, 2, 1e-6, 1e-6, 1); }
static int check_input_shape(ar_env *e) { tt_tensor *x = AR_T1(e->c, 5); return check_call(e, &x, 1, 1e-6, 1e-6, 1); }

typedef size_t (*ar_text_fn)(const tt_graph *, char *, size_t);   /* tt_graph_str, tt_graph_dot */

/* NULL graph: a NUL-terminated text and its length + 1 (at least 1). */
static int text_null_g(ar_env *e) {
    char buf[256];
    size_t n;
    memset(buf, 'x', sizeof buf);
    n = ((ar_text_fn)e->row->f)(NULL, buf, sizeof buf);
    return n >= 1 && memchr(buf, '\0', sizeof buf) != NULL;
}
/* NULL buf with a size: measures only, writes nothing. */
static int text_null_buf(ar_env *e) {
    ar_graph(e);
    tt_graph_compile(e->g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return ((ar_text_fn)e->row->f)(e->g, NULL, 64) > 1;
}
/* size 0 writes nothing; size 1 writes only the NUL. */
static int text_size(ar_env *e) {
    char buf[4] = {'a', 'b', 'c', 'd'};
    size_t need;
    ar_graph(e);
    tt_graph_compile(e->g, TT_MODE_DEFAULT, TT_PASS_ALL);
    need = ((ar_text_fn)e->row->f)(e->g, buf, 0);
    AR_EXPECT(e, buf[0] == 'a');
    AR_EXPECT(e, ((ar_text_fn)e->row->f)(e->g, buf, 1) == need);
    AR_EXPECT(e, buf[0] == '\0' && buf[1] == 'b');
    return need > 1;
}
static int destroy_null(ar_env *e) { (void)e; tt_graph_destroy(NULL); return 1; }

/* Saving and loading: the bytes of ar_graph, compiled. */
static size_t ar_graph_bytes(ar_env *e, unsigned char *buf, size_t size) {
    tt_graph *g = ar_graph(e);
    tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return tt_graph_save_memory(g, buf, size);
}
static int save_mem_null_g(ar_env *e) { char buf[8]; (void)e; return tt_graph_save_memory(NULL, buf, sizeof buf) == 0; }
static int save_mem_null_buf(ar_env *e) { return tt_graph_save_memory(ar_graph(e), NULL, 64) == 0; }
static int save_null_g(ar_env *e) { (void)e; return tt_graph_save(NULL, "build/never.ttg") == TT_ERR_ARG; }
static int save_null_path(ar_env *e) { return tt_graph_save(ar_graph(e), NULL) == TT_ERR_ARG; }
static int save_bad_path(ar_env *e) { return tt_graph_save(ar_graph(e), "/nonexistent-dir/x.ttg") == TT_ERR_IO; }
static int load_mem_null_ctx(ar_env *e) { char buf[8] = {0}; (void)e; return tt_graph_load_memory(NULL, buf, sizeof buf) == NULL; }
static int load_mem_null_buf(ar_env *e) { return tt_graph_load_memory(e->c, NULL, 200) == NULL; }
/* A valid file cut short by one byte. */
static int load_mem_short(ar_env *e) {
    unsigned char buf[4096];
    size_t n = ar_graph_bytes(e, buf, sizeof buf);
    AR_EXPECT(e, n > 0 && n <= sizeof buf);
    e->where = AR_IN_CTX;
    return tt_graph_load_memory(e->c, buf, n - 1) == NULL;
}
static int load_mem_not_ttg(ar_env *e) {
    unsigned char buf[256];
    memset(buf, 'x', sizeof buf);
    return tt_graph_load_memory(e->c, buf, sizeof buf) == NULL;
}
static int input_name_bad(ar_env *e) { return tt_graph_input_name(NULL, 0) == NULL && tt_graph_input_name(ar_graph(e), 1) == NULL; }
static int input_shape_bad(ar_env *e) {
    int64_t shape[TT_MAX_DIMS];
    int ndim = -7;
    AR_EXPECT(e, !tt_graph_input_shape(NULL, 0, NULL, &ndim, shape));
    AR_EXPECT(e, tt_graph_input_shape(ar_graph(e), 0, NULL, &ndim, shape) && ndim == 1 && shape[0] == 3);
    return !tt_graph_input_shape(e->g, -1, NULL, &ndim, shape) && !tt_graph_input_shape(e->g, 1, NULL, &ndim, shape);
}
/* Exporting as C: ar_graph compiled (and so run once, by the compile's dry run). */
static tt_graph *ar_graph_compiled(ar_env *e) {
    tt_graph *g = ar_graph(e);
    tt_graph_compile(g, TT_MODE_DEFAULT, TT_PASS_ALL);
    return g;
}
static int xarena_null_g(ar_env *e) { (void)e; return tt_graph_export_arena(NULL, 0) == 0; }
static int xarena_uncompiled(ar_env *e) { return tt_graph_export_arena(ar_graph(e), 0) == 0; }
static int xc_null_g(ar_env *e) { (void)e; return tt_graph_export_c(NULL, "/tmp", "x") == TT_ERR_ARG; }
static int xc_null_dir(ar_env *e) { return tt_graph_export_c(ar_graph_compiled(e), NULL, "x") == TT_ERR_ARG; }
static int xc_bad_name(ar_env *e) { return tt_graph_export_c(ar_graph_compiled(e), "/tmp", "no spaces") == TT_ERR_ARG; }
static int xc_bad_dir(ar_env *e) { return tt_graph_export_c(ar_graph_compiled(e), "/nonexistent-dir", "x") == TT_ERR_IO; }
static int xcf_flags(ar_env *e) { return tt_graph_export_c_flags(ar_graph_compiled(e), "/tmp", "x", 1u << 30) == TT_ERR_ARG; }

static int load_null_ctx(ar_env *e) { (void)e; return tt_graph_load(NULL, "build/never.ttg") == NULL; }
static int load_null_path(ar_env *e) { return tt_graph_load(e->c, NULL) == NULL; }
static int load_missing(ar_env *e) { return tt_graph_load(e->c, "/nonexistent-dir/x.ttg") == NULL; }

static const ar_row graph_rows[] = {
    ROW(tt_graph_compile, "g", TT_OK, compile_null_g),
    ROW(tt_graph_compile, "mode", TT_ERR_ARG, compile_mode),
    ROW(tt_graph_compile, "mode", TT_ERR_ARG, compile_mode_neg),
    ROW(tt_graph_compile, "passes", TT_ERR_ARG, compile_passes),
    ROW(tt_graph_compile, "passes", TT_ERR_ARG, compile_passes_top),
    ROW(tt_graph_run, "g", TT_OK, grun_null_g),
    ROW(tt_graph_run, "inputs", TT_ERR_ARG, grun_null_inputs),
    ROW(tt_graph_run, "n_inputs", TT_ERR_ARG, grun_n_more),
    ROW(tt_graph_run, "n_inputs", TT_ERR_ARG, grun_n_neg),
    ROW(tt_graph_run, "inputs", TT_ERR_ARG, grun_input_null),
    ROW(tt_graph_run, "inputs", TT_ERR_DTYPE, grun_dtype),
    ROW(tt_graph_run, "inputs", TT_ERR_SHAPE, grun_shape),
    ROW(tt_graph_run, "inputs|n_inputs", TT_ERR_ARG, grun_unbound),
    ROW(tt_graph_bind, "g", TT_OK, grun_null_g),
    ROW(tt_graph_bind, "inputs", TT_ERR_ARG, grun_null_inputs),
    ROW(tt_graph_bind, "n_inputs", TT_ERR_ARG, grun_n_more),
    ROW(tt_graph_bind, "n_inputs", TT_ERR_ARG, grun_n_neg),
    ROW(tt_graph_bind, "inputs", TT_ERR_ARG, grun_input_null),
    ROW(tt_graph_bind, "inputs", TT_ERR_DTYPE, grun_dtype),
    ROW(tt_graph_bind, "inputs", TT_ERR_SHAPE, grun_shape),
    ROW(tt_graph_output, "g", TT_OK, output_null_g),
    ROW(tt_graph_output, "i", TT_ERR_ARG, output_i),
    ROW(tt_graph_output, "i", TT_ERR_ARG, output_i_neg),
    ROW(tt_graph_output, "g", TT_ERR_STATE, output_not_run),
    ROW(tt_graph_num_inputs, "g", TT_OK, num_inputs_null),
    ROW(tt_graph_num_outputs, "g", TT_OK, num_outputs_null),
    ROW(tt_graph_num_nodes, "g", TT_OK, num_nodes_null),
    ROW(tt_graph_num_warnings, "g", TT_OK, num_warnings_null),
    ROW(tt_graph_error, "g", TT_OK, gerror_null),
    ROW(tt_graph_status, "g", TT_OK, gstatus_null),
    ROW(tt_graph_clear_error, "g", TT_OK, gclear_null),
    ROW(tt_graph_warning, "g", TT_OK, warning_null),
    ROW(tt_graph_warning, "i", TT_OK, warning_i),
    ROW(tt_graph_warning, "i", TT_OK, warning_i_neg),
    ROW(tt_graph_get_stats, "g", TT_OK, stats_null),
    ROW(tt_graph_set_debug, "g", TT_OK, debug_null),
    ROW(tt_graph_set_debug, "flags", TT_ERR_ARG, debug_flags),
    ROW(tt_graph_set_conv_algo, "g", TT_OK, conv_algo_null),
    ROW(tt_graph_set_conv_algo, "algo", TT_ERR_ARG, conv_algo_big),
    ROW(tt_graph_set_conv_algo, "algo", TT_ERR_ARG, conv_algo_neg),
    ROW(tt_graph_check, "g", TT_OK, check_null_g),
    ROW(tt_graph_check, "report", TT_ERR_ARG, check_null_report),
    ROW(tt_graph_check, "atol", TT_ERR_ARG, check_atol_nan),
    ROW(tt_graph_check, "atol", TT_ERR_ARG, check_atol_neg),
    ROW(tt_graph_check, "rtol", TT_ERR_ARG, check_rtol_nan),
    ROW(tt_graph_check, "rtol", TT_ERR_ARG, check_rtol_neg),
    ROW(tt_graph_check, "inputs", TT_ERR_ARG, check_null_inputs),
    ROW(tt_graph_check, "n_inputs", TT_ERR_ARG, check_n),
    ROW(tt_graph_check, "inputs", TT_ERR_SHAPE, check_input_shape),
    ROW(tt_graph_dot, "g", TT_OK, text_null_g),
    ROW(tt_graph_dot, "buf", TT_OK, text_null_buf),
    ROW(tt_graph_dot, "size", TT_OK, text_size),
    ROW(tt_graph_str, "g", TT_OK, text_null_g),
    ROW(tt_graph_str, "buf", TT_OK, text_null_buf),
    ROW(tt_graph_str, "size", TT_OK, text_size),
    ROW(tt_graph_destroy, "g", TT_OK, destroy_null),
    ROW(tt_graph_save_memory, "g", TT_OK, save_mem_null_g),
    ROW(tt_graph_save_memory, "buf", TT_ERR_ARG, save_mem_null_buf),
    ROW(tt_graph_save, "g", TT_OK, save_null_g),
    ROW(tt_graph_save, "path", TT_ERR_ARG, save_null_path),
    ROW(tt_graph_save, "path", TT_ERR_IO, save_bad_path),
    ROW(tt_graph_load_memory, "ctx", TT_OK, load_mem_null_ctx),
    ROW(tt_graph_load_memory, "buf", TT_ERR_ARG, load_mem_null_buf),
    ROW(tt_graph_load_memory, "buf", TT_ERR_FORMAT, load_mem_short),
    ROW(tt_graph_load_memory, "buf", TT_ERR_FORMAT, load_mem_not_ttg),
    ROW(tt_graph_input_name, "i", TT_OK, input_name_bad),
    ROW(tt_graph_input_shape, "i", TT_OK, input_shape_bad),
    ROW(tt_graph_load, "ctx", TT_OK, load_null_ctx),
    ROW(tt_graph_load, "path", TT_ERR_ARG, load_null_path),
    ROW(tt_graph_load, "path", TT_ERR_IO, load_missing),
    ROW(tt_graph_export_arena, "g", TT_OK, xarena_null_g),
    ROW(tt_graph_export_arena, "g", TT_ERR_STATE, xarena_uncompiled),
    ROW(tt_graph_export_c, "g", TT_OK, xc_null_g),
    ROW(tt_graph_export_c, "dir", TT_ERR_ARG, xc_null_dir),
    ROW(tt_graph_export_c, "name", TT_ERR_ARG, xc_bad_name),
    ROW(tt_graph_export_c, "dir", TT_ERR_IO, xc_bad_dir),
    ROW(tt_graph_export_c_flags, "flags", TT_ERR_ARG, xcf_flags),
};

/* ==== compiled functions ==================================================================== */

static int cc_create_null_fn(ar_env *e) {
    tt_compiled *cc = tt_compiled_create(NULL, NULL, TT_MODE_DEFAULT, TT_PASS_ALL, 0);
    (void)e;
    tt_compiled_destroy(cc);
    return cc == NULL;
}
static int cc_create_max_neg(ar_env *e) {
    tt_compiled *cc = tt_compiled_create(fwd_relu, NULL, TT_MODE_DEFAULT, TT_PASS_ALL, -1);
    (void)e;
    tt_compiled_destroy(cc);
    return cc == NULL;
}
static int cc_create_mode(ar_env *e) {
    tt_compiled *cc = tt_compiled_create(fwd_relu, NULL, (tt_mode)3, TT_PASS_ALL, 0);
    (void)e;
    tt_compiled_destroy(cc);
    return cc == NULL;
}
static int cc_create_mode_neg(ar_env *e) {
    tt_compiled *cc = tt_compiled_create(fwd_relu, NULL, (tt_mode)-1, TT_PASS_ALL, 0);
    (void)e;
    tt_compiled_destroy(cc);
    return cc == NULL;
}
static int cc_create_passes(ar_env *e) {
    tt_compiled *cc = tt_compiled_create(fwd_relu, NULL, TT_MODE_DEFAULT, 1u << 20, 0);
    (void)e;
    tt_compiled_destroy(cc);
    return cc == NULL;
}

/* A compiled relu (max_graphs 1) whose errors are the row's. */
static tt_compiled *ar_cc(ar_env *e, tt_forward_fn fn) {
    e->cc = tt_compiled_create(fn, NULL, TT_MODE_DEFAULT, TT_PASS_ALL, 1);
    e->where = AR_IN_COMPILED;
    AR_EXPECT(e, e->cc != NULL);
    return e->cc;
}
static int ccrun_null_cc(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return tt_compiled_run(NULL, &x, 1) < 0; }
static int ccrun_null_inputs(ar_env *e) { return (e->got = tt_compiled_run(ar_cc(e, fwd_relu), NULL, 1)) < 0; }
static int ccrun_n_0(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return (e->got = tt_compiled_run(ar_cc(e, fwd_relu), &x, 0)) < 0; }
static int ccrun_n_neg(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return (e->got = tt_compiled_run(ar_cc(e, fwd_relu), &x, -1)) < 0; }
static int ccrun_input_null(ar_env *e) { tt_tensor *x = NULL; return (e->got = tt_compiled_run(ar_cc(e, fwd_relu), &x, 1)) < 0; }
static int ccrun_contexts(ar_env *e) {
    tt_tensor *x[2];
    x[0] = AR_T1(e->c, 3);
    x[1] = AR_T1(ar_ctx2(e), 3);
    return (e->got = tt_compiled_run(ar_cc(e, fwd_relu), x, 2)) < 0;
}
static int ccrun_fn_fails(ar_env *e) { tt_tensor *x = AR_T1(e->c, 3); return (e->got = tt_compiled_run(ar_cc(e, fwd_fail), &x, 1)) < 0; }
static int ccrun_limit(ar_env *e) {
    tt_tensor *a = AR_T1(e->c, 3), *b = AR_T1(e->c, 4);
    AR_EXPECT(e, tt_compiled_run(ar_cc(e, fwd_relu), &a, 1) == TT_OK);
    return (e->got = tt_compiled_run(e->cc, &b, 1)) < 0;
}
static int ccout_null_cc(ar_env *e) { (void)e; return tt_compiled_output(NULL, 0) == NULL; }
/* cc has no status accessor: for tt_compiled_output only the message can be checked. */
static int ccout_i(ar_env *e) {
    tt_tensor *x = AR_T1(e->c, 3);
    AR_EXPECT(e, tt_compiled_run(ar_cc(e, fwd_relu), &x, 1) == TT_OK);
    e->got = e->row->status;
    return tt_compiled_output(e->cc, 1) == NULL;
}
static int ccout_i_neg(ar_env *e) {
    tt_tensor *x = AR_T1(e->c, 3);
    AR_EXPECT(e, tt_compiled_run(ar_cc(e, fwd_relu), &x, 1) == TT_OK);
    e->got = e->row->status;
    return tt_compiled_output(e->cc, -1) == NULL;
}
static int ccout_not_run(ar_env *e) { ar_cc(e, fwd_relu); e->got = e->row->status; return tt_compiled_output(e->cc, 0) == NULL; }
static int ccnum_null(ar_env *e) { (void)e; return tt_compiled_num_graphs(NULL) <= 0; }
static int ccerror_null(ar_env *e) { const char *s = tt_compiled_error(NULL); (void)e; return s != NULL && *s != '\0'; }
static int ccstatus_null(ar_env *e) { (void)e; return tt_compiled_status(NULL) == TT_ERR_ARG; }
static int ccdestroy_null(ar_env *e) { (void)e; tt_compiled_destroy(NULL); return 1; }

static const ar_row compiled_rows[] = {
    ROW(tt_compiled_create, "fn", TT_OK, cc_create_null_fn),
    ROW(tt_compiled_create, "max_graphs", TT_OK, cc_create_max_neg),
    ROW(tt_compiled_create, "mode", TT_OK, cc_create_mode),
    ROW(tt_compiled_create, "mode", TT_OK, cc_create_mode_neg),
    ROW(tt_compiled_create, "passes", TT_OK, cc_create_passes),
    ROW(tt_compiled_run, "cc", TT_OK, ccrun_null_cc),
    ROW(tt_compiled_run, "inputs", TT_ERR_ARG, ccrun_null_inputs),
    ROW(tt_compiled_run, "n_inputs", TT_ERR_ARG, ccrun_n_0),
    ROW(tt_compiled_run, "n_inputs", TT_ERR_ARG, ccrun_n_neg),
    ROW(tt_compiled_run, "inputs", TT_ERR_ARG, ccrun_input_null),
    ROW(tt_compiled_run, "inputs", TT_ERR_ARG, ccrun_contexts),
    ROW(tt_compiled_run, "fn", TT_ERR_ARG, ccrun_fn_fails),
    ROW(tt_compiled_run, "max_graphs", TT_ERR_STATE, ccrun_limit),
    ROW(tt_compiled_output, "cc", TT_OK, ccout_null_cc),
    ROW(tt_compiled_output, "i", TT_ERR_ARG, ccout_i),
    ROW(tt_compiled_output, "i", TT_ERR_ARG, ccout_i_neg),
    ROW(tt_compiled_output, "cc", TT_ERR_STATE, ccout_not_run),
    ROW(tt_compiled_num_graphs, "cc", TT_OK, ccnum_null),
    ROW(tt_compiled_error, "cc", TT_OK, ccerror_null),
    ROW(tt_compiled_status, "cc", TT_OK, ccstatus_null),
    ROW(tt_compiled_destroy, "cc", TT_OK, ccdestroy_null),
};

/* ==== debug ================================================================================= */

static int shape_str_null_t(ar_env *e) {
    char buf[32];
    (void)e;
    memset(buf, 'x', sizeof buf);
    return tt_shape_str(NULL, buf, sizeof buf) == buf && memchr(buf, '\0', sizeof buf) != NULL;
}
static int shape_str_null_buf(ar_env *e) { return tt_shape_str(AR_T2(e->c, 2, 3), NULL, 16) == NULL; }
static int shape_str_size(ar_env *e) {
    char buf[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
    tt_tensor *t = AR_T2(e->c, 2, 3);
    AR_EXPECT(e, tt_shape_str(t, buf, 0) == buf && buf[0] == 'a');
    AR_EXPECT(e, tt_shape_str(t, buf, 3) == buf && buf[2] == '\0' && buf[3] == 'd');
    return 1;
}
#ifndef TT_NO_STDIO
static int print_null_t(ar_env *e) { (void)e; tt_print(NULL, "args: a NULL tensor"); return 1; }
static int print_null_name(ar_env *e) { tt_print(AR_T1(e->c, 2), NULL); return 1; }
static int graph_print_null(ar_env *e) { (void)e; tt_graph_print(NULL); return 1; }
#endif

static const ar_row debug_rows[] = {
    ROW(tt_shape_str, "t", TT_OK, shape_str_null_t),
    ROW(tt_shape_str, "buf", TT_OK, shape_str_null_buf),
    ROW(tt_shape_str, "size", TT_OK, shape_str_size),
#ifndef TT_NO_STDIO
    ROW(tt_print, "t", TT_OK, print_null_t),
    ROW(tt_print, "name", TT_OK, print_null_name),
    ROW(tt_graph_print, "g", TT_OK, graph_print_null),
#endif
};


/* ==== safetensors ============================================================================ */

static unsigned char ar_st_bytes[256];   /* the file of ar_st (it must outlive the tensors) */

/* A safetensors file opened in c: tensor 0 "d" is F64 (listed, not read), tensor 1 "ids" is
   I64 holding 2^31 (does not fit i32). Built here byte by byte. */
static tt_safetensors *ar_st(ar_env *e, tt_ctx *c) {
    static const char json[] = "{\"d\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                               "\"ids\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[8,16]}}";
    size_t n = strlen(json), k;
    tt_safetensors *st;
    memset(ar_st_bytes, 0, sizeof ar_st_bytes);
    for (k = 0; k < 8; k++) ar_st_bytes[k] = (unsigned char)(n >> (8 * k) & 0xFF);
    memcpy(ar_st_bytes + 8, json, n);
    ar_st_bytes[8 + n + 8 + 3] = 0x80;              /* ids[0] = 2^31, little-endian */
    st = tt_safetensors_open_memory(c, ar_st_bytes, 8 + n + 16);
    AR_EXPECT(e, st != NULL);
    return st;
}

static int st_open_null_ctx(ar_env *e) { (void)e; return tt_safetensors_open_memory(NULL, ar_st_bytes, 16) == NULL; }
static int st_open_null_buf(ar_env *e) { return tt_safetensors_open_memory(e->c, NULL, 16) == NULL; }
static int st_open_size(ar_env *e) { return tt_safetensors_open_memory(e->c, ar_st_bytes, 3) == NULL; }
/* A header length of 9 with 8 bytes after it. */
static int st_open_header_length(ar_env *e) {
    unsigned char b[16];
    memset(b, ' ', sizeof b);
    memset(b, 0, 8);
    b[0] = 9;
    return tt_safetensors_open_memory(e->c, b, sizeof b) == NULL;
}
#ifndef TT_NO_STDIO
static int st_file_null_ctx(ar_env *e) { (void)e; return tt_safetensors_open(NULL, "x.safetensors") == NULL; }
static int st_file_null_path(ar_env *e) { return tt_safetensors_open(e->c, NULL) == NULL; }
static int st_file_missing(ar_env *e) {
    return tt_safetensors_open(e->c, "/nonexistent-dir-of-tinytrace/x.safetensors") == NULL;
}
#endif
static int st_count_null(ar_env *e) { (void)e; return tt_safetensors_count(NULL) == 0; }
static int st_entry_null_st(ar_env *e) { tt_safetensors_entry en; (void)e; return !tt_safetensors_entry_at(NULL, 0, &en); }
static int st_entry_neg(ar_env *e) { tt_safetensors_entry en; return !tt_safetensors_entry_at(ar_st(e, e->c), -1, &en); }
static int st_entry_past(ar_env *e) { tt_safetensors_entry en; return !tt_safetensors_entry_at(ar_st(e, e->c), 2, &en); }
static int st_entry_null(ar_env *e) { return !tt_safetensors_entry_at(ar_st(e, e->c), 0, NULL); }
static int st_find_null_st(ar_env *e) { (void)e; return tt_safetensors_find(NULL, "d") == -1; }
static int st_find_null_name(ar_env *e) { return tt_safetensors_find(ar_st(e, e->c), NULL) == -1; }
static int st_tensor_null_st(ar_env *e) { (void)e; return tt_safetensors_tensor(NULL, 0) == NULL; }
static int st_tensor_neg(ar_env *e) { return tt_safetensors_tensor(ar_st(e, e->c), -1) == NULL; }
static int st_tensor_past(ar_env *e) { return tt_safetensors_tensor(ar_st(e, e->c), 2) == NULL; }
static int st_tensor_f64(ar_env *e) { return tt_safetensors_tensor(ar_st(e, e->c), 0) == NULL; }
static int st_tensor_i64_big(ar_env *e) { return tt_safetensors_tensor(ar_st(e, e->c), 1) == NULL; }
static int st_get_null_st(ar_env *e) { (void)e; return tt_safetensors_get(NULL, "d") == NULL; }
static int st_get_null_name(ar_env *e) { return tt_safetensors_get(ar_st(e, e->c), NULL) == NULL; }
static int st_get_missing(ar_env *e) { return tt_safetensors_get(ar_st(e, e->c), "fc.weight") == NULL; }
static int st_meta_null_st(ar_env *e) { (void)e; return tt_safetensors_metadata(NULL, "format") == NULL; }
static int st_meta_null_key(ar_env *e) { return tt_safetensors_metadata(ar_st(e, e->c), NULL) == NULL; }

static const ar_row safetensors_rows[] = {
    ROW(tt_safetensors_open_memory, "ctx", TT_OK, st_open_null_ctx),
    ROW(tt_safetensors_open_memory, "buf", TT_ERR_ARG, st_open_null_buf),
    ROW(tt_safetensors_open_memory, "size", TT_ERR_FORMAT, st_open_size),
    ROW(tt_safetensors_open_memory, "header+length", TT_ERR_FORMAT, st_open_header_length),
#ifndef TT_NO_STDIO
    ROW(tt_safetensors_open, "ctx", TT_OK, st_file_null_ctx),
    ROW(tt_safetensors_open, "path", TT_ERR_ARG, st_file_null_path),
    ROW(tt_safetensors_open, "path", TT_ERR_IO, st_file_missing),
#endif
    ROW(tt_safetensors_count, "st", TT_OK, st_count_null),
    ROW(tt_safetensors_entry_at, "st", TT_OK, st_entry_null_st),
    ROW(tt_safetensors_entry_at, "i", TT_ERR_ARG, st_entry_neg),
    ROW(tt_safetensors_entry_at, "i", TT_ERR_ARG, st_entry_past),
    ROW(tt_safetensors_entry_at, "entry", TT_ERR_ARG, st_entry_null),
    ROW(tt_safetensors_find, "st", TT_OK, st_find_null_st),
    ROW(tt_safetensors_find, "name", TT_ERR_ARG, st_find_null_name),
    ROW(tt_safetensors_tensor, "st", TT_OK, st_tensor_null_st),
    ROW(tt_safetensors_tensor, "i", TT_ERR_ARG, st_tensor_neg),
    ROW(tt_safetensors_tensor, "i", TT_ERR_ARG, st_tensor_past),
    ROW(tt_safetensors_tensor, "i+F64", TT_ERR_UNSUPPORTED, st_tensor_f64),
    ROW(tt_safetensors_tensor, "i+I64", TT_ERR_INDEX, st_tensor_i64_big),
    ROW(tt_safetensors_get, "st", TT_OK, st_get_null_st),
    ROW(tt_safetensors_get, "name", TT_ERR_ARG, st_get_null_name),
    ROW(tt_safetensors_get, "name", TT_ERR_ARG, st_get_missing),
    ROW(tt_safetensors_metadata, "st", TT_OK, st_meta_null_st),
    ROW(tt_safetensors_metadata, "key", TT_ERR_ARG, st_meta_null_key),
};

/* ==== end of safetensors ===================================================================== */

/* ==== valid edge cases next to the rows ===================================================== */

/* 0-d tensors take axis 0 and -1 (unsqueeze: -1 and 0), as in PyTorch. */
static void test_zero_d_axes_valid(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *s = tt_scalar(c, 3.0f);
    int a0[1] = {0}, am1[1] = {-1};
    tt_tensor *r[12];
    int i;
    r[0] = tt_sum(c, s, a0, 1, false);
    r[1] = tt_mean(c, s, am1, 1, true);
    r[2] = tt_max(c, s, a0, 1, false);
    r[3] = tt_argmax(c, s, -1, false);
    r[4] = tt_argmin(c, s, 0, false);
    r[5] = tt_softmax(c, s, 0);
    r[6] = tt_log_softmax(c, s, -1);
    r[7] = tt_squeeze(c, s, 0);
    r[8] = tt_squeeze(c, s, -1);
    r[9] = tt_flatten(c, s, 0, -1);
    r[10] = tt_unsqueeze(c, s, -1);
    r[11] = tt_unsqueeze(c, s, 0);
    CHECK_NO_ERROR(c);
    for (i = 0; i < 12; i++) {
        if (!CHECK(r[i] != NULL)) { printf("    result %d is NULL\n", i); continue; }
        if (i == 9 || i == 10 || i == 11) CHECK_EQ_INT(r[i]->ndim, 1);
        else CHECK_EQ_INT(r[i]->ndim, 0);
    }
    if (r[0]) CHECK_NEAR(tt_item(c, r[0]), 3.0, 0, 0);
    if (r[3]) CHECK_NEAR(tt_item(c, r[3]), 0.0, 0, 0);
    if (r[5]) CHECK_NEAR(tt_item(c, r[5]), 1.0, 0, 0);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* Inputs made in another context that is not tracing stay allowed (also while ctx traces). */
static void test_other_context_inputs(void) {
    tt_ctx *c = tu_ctx(), *o = tu_ctx();
    float a[2] = {1, 2}, b[2] = {3, 4}, out[2] = {0, 0};
    int64_t n = 2;
    tt_tensor *x = tt_from_data(o, TT_F32, 1, &n, a), *y = tt_from_data(c, TT_F32, 1, &n, b), *s;
    tt_graph *g;
    s = tt_add(c, x, y);
    CHECK(s != NULL && tt_copy_to_f32(c, s, out, 2) == TT_OK && out[0] == 4.0f && out[1] == 6.0f);
    CHECK_EQ_INT(tt_trace_begin(c), TT_OK);
    s = tt_add(c, x, tt_trace_input(c, y, "y"));
    g = tt_trace_end(c, &s, 1);
    CHECK(g != NULL);
    CHECK_NO_ERROR(c);
    CHECK_NO_ERROR(o);
    tt_graph_destroy(g);
    CHECK_GUARDS(c);
    CHECK_GUARDS(o);
    tt_ctx_destroy(o);
    tt_ctx_destroy(c);
}

/* Extreme but valid arguments: clamped slice bounds, INT64_MAX split size. */
static void test_extreme_valid(void) {
    tt_ctx *c = tu_ctx();
    tt_tensor *x = tt_arange(c, TT_F32, 0, 6, 1), *out[2];
    tt_tensor *s1 = tt_slice(c, x, 0, INT64_MIN, INT64_MAX, INT64_MAX);
    tt_tensor *s2 = tt_slice(c, x, -1, -INT64_MAX, 3, 2);
    CHECK(s1 != NULL && s1->numel == 1 && tt_item(c, s1) == 0.0f);
    CHECK(s2 != NULL && s2->numel == 2);
    CHECK_EQ_INT(tt_split(c, x, INT64_MAX, 0, out, 2), 1);
    CHECK_EQ_INT(tt_chunk(c, x, INT_MAX, 0, out, 2), 6);
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* ---- the tables, one test each --------------------------------------------------------------- */

static void test_creation(void) { AR_RUN(creation_rows); }
static void test_context(void) { AR_RUN(context_rows); }
static void test_access(void) { AR_RUN(access_rows); }
static void test_views(void) { AR_RUN(view_rows); }
static void test_elementwise(void) { AR_RUN(elementwise_rows); }
static void test_reductions(void) { AR_RUN(reduction_rows); }
static void test_norms(void) { AR_RUN(norm_rows); }
static void test_linalg(void) { AR_RUN(linalg_rows); }
static void test_conv(void) { AR_RUN(conv_rows); }
static void test_shape(void) { AR_RUN(shape_rows); }
static void test_attention(void) { AR_RUN(attention_rows); }
static void test_trace(void) { AR_RUN(trace_rows); }
static void test_graph(void) { AR_RUN(graph_rows); }
static void test_safetensors(void) { AR_RUN(safetensors_rows); }
static void test_compiled(void) { AR_RUN(compiled_rows); }
static void test_debug(void) { AR_RUN(debug_rows); }

TT_TEST_GROUP(args) = {
    {"creation", test_creation},
    {"context", test_context},
    {"access", test_access},
    {"views", test_views},
    {"elementwise", test_elementwise},
    {"reductions", test_reductions},
    {"norms", test_norms},
    {"linalg", test_linalg},
    {"conv", test_conv},
    {"shape", test_shape},
    {"attention", test_attention},
    {"trace", test_trace},
    {"graph", test_graph},
    {"compiled", test_compiled},
    {"debug", test_debug},
    {"safetensors", test_safetensors},
    {"zero_d_axes_valid", test_zero_d_axes_valid},
    {"other_context_inputs", test_other_context_inputs},
    {"extreme_valid", test_extreme_valid},
    {NULL, NULL}
};
