/* test_ttg_hostile.c - group `ttg_hostile`: hostile graph files (.ttg) are refused.

   Valid files come from small traced models (compiled with fused chains and a linear +
   relu epilogue; and a trace, not compiled, with a tracer warning), saved with
   tt_graph_save_memory. Each variant patches one field, at offsets this file computes from
   the layout in docs/FORMAT.md (header counts, record sizes), never by calling the loader's
   own code; its CRC-32C is then fixed up by this file's own bitwise CRC, so the variant
   reaches the check it targets. Every variant must be refused: tt_graph_load_memory returns
   NULL, the context holds the expected status, and the message names the cause. After all
   of them a valid file still loads and runs in the same context. The suite's ASan build
   checks that no refused load leaks. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "test_util.h"

/* ---- the format, as docs/FORMAT.md gives it ------------------------------------ */
#define TTH_HEADER  128
#define TTH_NAME    32
#define TTH_VALUE   128
#define TTH_NODE    192
#define TTH_PASS    24
#define TTH_PROG    32
#define TTH_UOP     24
#define TTH_ALIGN   64
/* Header fields. */
#define TTH_VERSION_AT    8
#define TTH_HSIZE_AT      12
#define TTH_FSIZE_AT      16
#define TTH_FLAGS_AT      24
#define TTH_MODE_AT       28
#define TTH_PASSES_AT     32
#define TTH_N_OPS_AT      36
#define TTH_N_VALUES_AT   40
#define TTH_N_NODES_AT    44
#define TTH_N_ORDER_AT    48
#define TTH_N_POOL_AT     52
#define TTH_N_PROGS_AT    56
#define TTH_N_INPUTS_AT   60
#define TTH_N_OUTPUTS_AT  64
#define TTH_N_WARN_AT     68
#define TTH_N_PASSES_AT   72
#define TTH_PROGS_AT      80
#define TTH_PROGS_SIZE_AT 88
#define TTH_WARN_AT       96
#define TTH_WARN_SIZE_AT  104
#define TTH_BLOB_AT       112
#define TTH_BLOB_SIZE_AT  120
/* Micro-op kinds and value kinds. */
#define TTH_U_LOAD   0
#define TTH_U_UNARY  1
#define TTH_U_STORE  6
#define TTH_V_PARAM  1
#define TTH_V_CONST  2
#define TTH_V_NODE   3

/* ---- little-endian fields and CRC-32C, written here ------------------------------ */
static uint32_t th_u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t th_u64(const uint8_t *p) { return (uint64_t)th_u32(p) | (uint64_t)th_u32(p + 4) << 32; }
static void th_put_u32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static void th_put_u64(uint8_t *p, uint64_t v) { th_put_u32(p, (uint32_t)v); th_put_u32(p + 4, (uint32_t)(v >> 32)); }
static void th_put_i16(uint8_t *p, int v) { p[0] = (uint8_t)(v & 0xFF); p[1] = (uint8_t)((v >> 8) & 0xFF); }

/* The checksum: tests/crc32c.h (written from the spec, bit by bit). */
#include "crc32c.h"

/* ---- a file and where its sections lie -------------------------------------------- */
typedef struct th_file {
    uint8_t *p;
    size_t   n;
    uint32_t n_ops, n_values, n_nodes, n_order, n_pool, n_progs, n_inputs, n_outputs, n_warnings, n_passes;
    size_t   ops, values, nodes, pool, inputs, outputs, passes, progs, progs_bytes, warnings, warnings_bytes, blob, blob_bytes;
} th_file;

/* The offsets of each section, from the header's counts (FORMAT.md, "Layout"). */
static void th_parse(th_file *f) {
    const uint8_t *p = f->p;
    f->n_ops = th_u32(p + TTH_N_OPS_AT);         f->n_values = th_u32(p + TTH_N_VALUES_AT);
    f->n_nodes = th_u32(p + TTH_N_NODES_AT);     f->n_order = th_u32(p + TTH_N_ORDER_AT);
    f->n_pool = th_u32(p + TTH_N_POOL_AT);       f->n_progs = th_u32(p + TTH_N_PROGS_AT);
    f->n_inputs = th_u32(p + TTH_N_INPUTS_AT);   f->n_outputs = th_u32(p + TTH_N_OUTPUTS_AT);
    f->n_warnings = th_u32(p + TTH_N_WARN_AT);   f->n_passes = th_u32(p + TTH_N_PASSES_AT);
    f->ops = TTH_HEADER;
    f->values = f->ops + (size_t)f->n_ops * TTH_NAME;
    f->nodes = f->values + (size_t)f->n_values * TTH_VALUE;
    f->pool = f->nodes + (size_t)f->n_nodes * TTH_NODE;
    f->inputs = f->pool + (size_t)f->n_pool * 4;
    f->outputs = f->inputs + (size_t)f->n_inputs * 4;
    f->passes = f->outputs + (size_t)f->n_outputs * 4;
    f->progs = f->passes + (size_t)f->n_passes * TTH_PASS;
    f->progs_bytes = (size_t)th_u64(p + TTH_PROGS_SIZE_AT);
    f->warnings = f->progs + f->progs_bytes;
    f->warnings_bytes = (size_t)th_u64(p + TTH_WARN_SIZE_AT);
    f->blob = (f->warnings + f->warnings_bytes + TTH_ALIGN - 1) / TTH_ALIGN * TTH_ALIGN;
    f->blob_bytes = (size_t)th_u64(p + TTH_BLOB_SIZE_AT);
}

static th_file th_copy(const th_file *f) {
    th_file c = *f;
    c.p = (uint8_t *)malloc(f->n);
    if (c.p) memcpy(c.p, f->p, f->n);
    return c;
}

static void th_fix_crc(th_file *f) { th_put_u32(f->p + f->n - 4, tu_crc32c(f->p, f->n - 4)); }

/* Record offsets. */
static size_t th_value(const th_file *f, uint32_t i) { return f->values + (size_t)i * TTH_VALUE; }
static size_t th_node(const th_file *f, uint32_t i) { return f->nodes + (size_t)i * TTH_NODE; }
static uint32_t th_node_op(const th_file *f, uint32_t i) { return th_u32(f->p + th_node(f, i)); }
static int32_t th_node_out(const th_file *f, uint32_t i) { return (int32_t)th_u32(f->p + th_node(f, i) + 4); }
static uint32_t th_node_in_at(const th_file *f, uint32_t i) { return th_u32(f->p + th_node(f, i) + 8); }
static int32_t th_node_in(const th_file *f, uint32_t i, uint32_t k) { return (int32_t)th_u32(f->p + f->pool + 4 * (size_t)(th_node_in_at(f, i) + k)); }

/* The index of op name in the file's op table, or -1. */
static int th_op(const th_file *f, const char *name) {
    uint32_t i;
    for (i = 0; i < f->n_ops; i++) if (strcmp((const char *)f->p + f->ops + (size_t)i * TTH_NAME, name) == 0) return (int)i;
    return -1;
}

/* The first node whose op is name at or after node from, or -1. */
static int th_find_node(const th_file *f, const char *name, uint32_t from) {
    int op = th_op(f, name);
    uint32_t i;
    for (i = from; op >= 0 && i < f->n_nodes; i++) if (th_node_op(f, i) == (uint32_t)op) return (int)i;
    return -1;
}

/* The offset of program k's record (its counts; micro-ops, outputs and members follow). */
static size_t th_prog(const th_file *f, uint32_t k) {
    size_t at = f->progs;
    uint32_t i;
    for (i = 0; i < k; i++)
        at += TTH_PROG + th_u32(f->p + at) * (size_t)TTH_UOP + 4 * (size_t)(th_u32(f->p + at + 12) + th_u32(f->p + at + 16));
    return at;
}
static size_t th_uop(const th_file *f, uint32_t prog, uint32_t k) { return th_prog(f, prog) + TTH_PROG + (size_t)k * TTH_UOP; }

/* The first value of this kind and shape ([d0] or [d0, d1]), or -1. */
static int th_find_value(const th_file *f, int kind, int ndim, int64_t d0, int64_t d1) {
    uint32_t i;
    for (i = 0; i < f->n_values; i++) {
        const uint8_t *r = f->p + th_value(f, i);
        if (r[0] == kind && r[2] == ndim && (int64_t)th_u64(r + 8) == d0 && (ndim < 2 || (int64_t)th_u64(r + 16) == d1)) return (int)i;
    }
    return -1;
}

/* Replaces bytes [at, at+cut) of the part before the blob with ins[0..n_ins) (a section grows
   or shrinks: the one named by size_at, progs or warnings), then lays out the blob again
   at the next multiple of 64 and sets the header's offsets and the file size. */
static th_file th_splice(const th_file *f, size_t at, size_t cut, const uint8_t *ins, size_t n_ins, int size_at) {
    th_file c;
    size_t head = f->warnings + f->warnings_bytes, new_head = head - cut + n_ins;
    size_t blob = (new_head + TTH_ALIGN - 1) / TTH_ALIGN * TTH_ALIGN;
    c = *f;
    c.n = blob + f->blob_bytes + 4;
    c.p = (uint8_t *)calloc(1, c.n);
    if (!c.p) return c;
    memcpy(c.p, f->p, at);
    if (n_ins) memcpy(c.p + at, ins, n_ins);
    memcpy(c.p + at + n_ins, f->p + at + cut, head - at - cut);
    memcpy(c.p + blob, f->p + f->blob, f->blob_bytes);
    th_put_u64(c.p + size_at, th_u64(f->p + size_at) - cut + n_ins);
    th_put_u64(c.p + TTH_FSIZE_AT, c.n);
    th_put_u64(c.p + TTH_BLOB_AT, blob);
    if (size_at == TTH_PROGS_SIZE_AT) th_put_u64(c.p + TTH_WARN_AT, f->warnings - cut + n_ins);
    th_parse(&c);
    th_fix_crc(&c);
    return c;
}

/* ---- the models ------------------------------------------------------------------ */
/* A: x [2,4] -> relu(linear(x, w1 [8,4], b1)) (an epilogue: linear + relu) -> linear(w2) and
   a fused chain exp(x)*x + 1 on the input. Compiled with every pass. */
typedef struct th_model {
    tt_ctx    *c;
    tt_tensor *x;
    tt_graph  *g;
    th_file    file;
} th_model;

static void th_model_free(th_model *m) {
    tt_graph_destroy(m->g);
    tt_ctx_destroy(m->c);
    free(m->file.p);
    memset(m, 0, sizeof *m);
}

static bool th_save(th_model *m) {
    size_t n = m->g ? tt_graph_save_memory(m->g, NULL, 0) : 0;
    m->file.p = n ? (uint8_t *)malloc(n) : NULL;
    m->file.n = n;
    if (!m->file.p || tt_graph_save_memory(m->g, m->file.p, n) != n) return false;
    th_parse(&m->file);
    return true;
}

static bool th_model_a(th_model *m) {
    int64_t sx[2] = {2, 4}, sw1[2] = {8, 4}, sb1[1] = {8}, sw2[2] = {3, 8}, sb2[1] = {3};
    tt_tensor *w1, *b1, *w2, *b2, *x, *out[2];
    memset(m, 0, sizeof *m);
    m->c = tu_ctx();
    if (!m->c) return false;
    m->x = tt_randn(m->c, 1, 2, sx);
    w1 = tt_randn(m->c, 2, 2, sw1); b1 = tt_randn(m->c, 3, 1, sb1);
    w2 = tt_randn(m->c, 4, 2, sw2); b2 = tt_randn(m->c, 5, 1, sb2);
    tt_trace_begin(m->c);
    x = tt_trace_input(m->c, m->x, "x");
    out[0] = tt_linear(m->c, tt_relu(m->c, tt_linear(m->c, x, w1, b1)), w2, b2);
    out[1] = tt_add(m->c, tt_mul(m->c, tt_exp(m->c, x), x), tt_scalar(m->c, 1.0f));
    m->g = tt_trace_end(m->c, out, 2);
    if (!m->g || tt_graph_compile(m->g, TT_MODE_DEFAULT, TT_PASS_ALL) != TT_OK) return false;
    return th_save(m);
}

/* B: a trace, not compiled: x [3] -> relu(x + 1) * s, s read by tt_item (a tracer warning). */
static bool th_model_b(th_model *m) {
    int64_t s3[1] = {3};
    static const int axis0[1] = {0};
    tt_tensor *x, *y;
    float s;
    memset(m, 0, sizeof *m);
    m->c = tu_ctx();
    if (!m->c) return false;
    m->x = tt_randn(m->c, 7, 1, s3);
    tt_trace_begin(m->c);
    x = tt_trace_input(m->c, m->x, "x");
    y = tt_relu(m->c, tt_add(m->c, x, tt_scalar(m->c, 1.0f)));
    s = tt_item(m->c, tt_sum(m->c, x, axis0, 1, false));
    y = tt_mul(m->c, y, tt_scalar(m->c, s));
    m->g = tt_trace_end(m->c, &y, 1);
    return m->g && th_save(m);
}

/* ---- refusals --------------------------------------------------------------------- */
/* bytes must be refused with status and a message containing why (and also2 when given). */
static int th_refused_at(tt_ctx *c, const uint8_t *p, size_t n, tt_status status, const char *why, const char *also2,
                         const char *file, int line) {
    tt_graph *g = tt_graph_load_memory(c, p, n);
    int ok = g == NULL && tt_ctx_status(c) == status && strstr(tt_error(c), why) != NULL &&
             (!also2 || strstr(tt_error(c), also2) != NULL);
    if (!ok) {
        printf("    %s:%d: expected a refusal (%s) naming \"%s\"%s%s; got %s, status %d, \"%s\"\n", file, line,
               tt_status_str(status), why, also2 ? " and " : "", also2 ? also2 : "", g ? "a graph" : "NULL",
               (int)tt_ctx_status(c), tt_error(c));
        tt_test__fail(file, line, "the variant is refused as expected");
    }
    tt_graph_destroy(g);
    tt_clear_error(c);
    return ok;
}

/* v (a patched copy, freed here) is refused with status, naming why. */
static int th_expect_at(tt_ctx *c, th_file v, tt_status status, const char *why, const char *also2, const char *file, int line) {
    int ok;
    if (!v.p) return tt_test__fail(file, line, "out of memory for a variant");
    ok = th_refused_at(c, v.p, v.n, status, why, also2, file, line);
    free(v.p);
    return ok;
}
#define TH_REFUSED(c, v, why)            th_expect_at((c), (v), TT_ERR_FORMAT, (why), NULL, __FILE__, __LINE__)
#define TH_REFUSED2(c, v, st, why, also) th_expect_at((c), (v), (st), (why), (also), __FILE__, __LINE__)

/* A copy of f with the u32 (or u64) at `at` set to v, the CRC fixed up. */
static th_file th_with_u32(const th_file *f, size_t at, uint32_t v) {
    th_file c = th_copy(f);
    if (c.p) { th_put_u32(c.p + at, v); th_fix_crc(&c); }
    return c;
}
static th_file th_with_u64(const th_file *f, size_t at, uint64_t v) {
    th_file c = th_copy(f);
    if (c.p) { th_put_u64(c.p + at, v); th_fix_crc(&c); }
    return c;
}
static th_file th_with_i16(const th_file *f, size_t at, int v) {
    th_file c = th_copy(f);
    if (c.p) { th_put_i16(c.p + at, v); th_fix_crc(&c); }
    return c;
}
static th_file th_with_byte(const th_file *f, size_t at, uint8_t v) {
    th_file c = th_copy(f);
    if (c.p) { c.p[at] = v; th_fix_crc(&c); }
    return c;
}
static th_file th_with_bytes(const th_file *f, size_t at, const void *bytes, size_t n) {
    th_file c = th_copy(f);
    if (c.p) { memcpy(c.p + at, bytes, n); th_fix_crc(&c); }
    return c;
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_crc_check_value(void) {
    CHECK_EQ_INT(tu_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
}

/* The valid files load, and the layout this file computes matches what the writer wrote. */
static void test_valid_files_load(void) {
    th_model a, b;
    tt_graph *g;
    CHECK(th_model_a(&a));
    CHECK(th_model_b(&b));
    if (!a.file.p || !b.file.p) { th_model_free(&a); th_model_free(&b); return; }
    CHECK_EQ_INT(a.file.blob + a.file.blob_bytes + 4, a.file.n);
    CHECK_EQ_INT(th_u64(a.file.p + TTH_PROGS_AT), a.file.progs);
    CHECK_EQ_INT(th_u64(a.file.p + TTH_WARN_AT), a.file.warnings);
    CHECK_EQ_INT(th_u64(a.file.p + TTH_BLOB_AT), a.file.blob);
    CHECK_EQ_INT(th_u64(b.file.p + TTH_BLOB_AT), b.file.blob);
    CHECK_EQ_INT(th_u32(a.file.p + TTH_FLAGS_AT), 1);
    CHECK_EQ_INT(th_u32(b.file.p + TTH_FLAGS_AT), 0);
    CHECK(a.file.n_progs >= 2);                       /* the epilogue and the chain */
    CHECK(th_find_node(&a.file, "linear", 0) >= 0);
    CHECK(b.file.n_warnings == 1);
    CHECK_EQ_INT(tu_crc32c(a.file.p, a.file.n - 4), th_u32(a.file.p + a.file.n - 4));
    g = tt_graph_load_memory(a.c, a.file.p, a.file.n);
    CHECK(g != NULL);
    tt_graph_destroy(g);
    g = tt_graph_load_memory(b.c, b.file.p, b.file.n);
    CHECK(g != NULL);
    tt_graph_destroy(g);
    th_model_free(&a);
    th_model_free(&b);
}

/* Every prefix of a valid file is refused; none crashes. */
static void test_truncated_at_every_length(void) {
    th_model m;
    size_t n;
    int bad = 0;
    CHECK(th_model_a(&m));
    if (!m.file.p) { th_model_free(&m); return; }
    for (n = 0; n < m.file.n; n++) {
        tt_graph *g = tt_graph_load_memory(m.c, m.file.p, n);
        const char *want = n < TTH_HEADER + 4 ? "too few for a .ttg file" : "its header says";
        if (g || tt_ctx_status(m.c) != TT_ERR_FORMAT || !strstr(tt_error(m.c), want)) {
            if (bad++ < 3) printf("    %d bytes: %s \"%s\"\n", (int)n, g ? "loaded" : "refused with", tt_error(m.c));
        }
        tt_graph_destroy(g);
        tt_clear_error(m.c);
    }
    CHECK_EQ_INT(bad, 0);
    th_model_free(&m);
}

/* One flipped bit anywhere past the size fields, CRC not fixed: the checksum catches it. */
static void test_flipped_byte_fails_checksum(void) {
    th_model m;
    size_t i;
    int bad = 0;
    CHECK(th_model_a(&m));
    if (!m.file.p) { th_model_free(&m); return; }
    for (i = TTH_FLAGS_AT; i < m.file.n; i++) {
        tt_graph *g;
        m.file.p[i] ^= (uint8_t)(1u << (i % 8));
        g = tt_graph_load_memory(m.c, m.file.p, m.file.n);
        m.file.p[i] ^= (uint8_t)(1u << (i % 8));
        if (g || tt_ctx_status(m.c) != TT_ERR_FORMAT || !strstr(tt_error(m.c), "fails its checksum (CRC-32C)"))
            if (bad++ < 3) printf("    byte %d: %s \"%s\"\n", (int)i, g ? "loaded" : "refused with", tt_error(m.c));
        tt_graph_destroy(g);
        tt_clear_error(m.c);
    }
    CHECK_EQ_INT(bad, 0);
    th_model_free(&m);
}

static void test_header_fields(void) {
    th_model m;
    const th_file *f = &m.file;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    TH_REFUSED(m.c, th_with_byte(f, 0, 'X'), "is not a .ttg file (its magic bytes differ)");
    TH_REFUSED(m.c, th_with_byte(f, 7, 1), "magic bytes differ");
    TH_REFUSED2(m.c, th_with_u32(f, TTH_VERSION_AT, 2), TT_ERR_FORMAT, "is .ttg version 2", "reads version 1");
    TH_REFUSED2(m.c, th_with_u32(f, TTH_VERSION_AT, 0xFFFFFFFFu), TT_ERR_FORMAT, "version 4294967295", "reads version 1");
    TH_REFUSED(m.c, th_with_u32(f, TTH_VERSION_AT, 0), "unknown version 0");
    TH_REFUSED(m.c, th_with_u32(f, TTH_HSIZE_AT, 64), "header size 64");
    TH_REFUSED(m.c, th_with_u32(f, TTH_HSIZE_AT, 256), "header size 256");
    TH_REFUSED(m.c, th_with_u64(f, TTH_FSIZE_AT, f->n + 1), "its header says");
    TH_REFUSED(m.c, th_with_u64(f, TTH_FSIZE_AT, f->n - 64), "its header says");
    TH_REFUSED(m.c, th_with_u64(f, TTH_FSIZE_AT, UINT64_MAX), "its header says");
    TH_REFUSED(m.c, th_with_u32(f, TTH_FLAGS_AT, 2), "flags 2 unknown");
    TH_REFUSED(m.c, th_with_u32(f, TTH_FLAGS_AT, 0x80000001u), "unknown");
    TH_REFUSED(m.c, th_with_u32(f, TTH_MODE_AT, 7), "compile mode 7 or passes");
    TH_REFUSED(m.c, th_with_u32(f, TTH_PASSES_AT, 1u << 20), "or passes 1048576 unknown");
    /* the offsets of the variable sections must be where the counts put them */
    TH_REFUSED(m.c, th_with_u64(f, TTH_PROGS_AT, f->progs + 4), "the sections do not lie where the counts put them");
    TH_REFUSED(m.c, th_with_u64(f, TTH_WARN_AT, f->warnings - 4), "the sections do not lie where");
    TH_REFUSED(m.c, th_with_u64(f, TTH_BLOB_AT, f->blob + 64), "the sections do not lie where");
    th_model_free(&m);
}

/* Each count set huge (past its limit), or merely larger than the file holds. */
static void test_counts(void) {
    static const int fields[] = { TTH_N_OPS_AT, TTH_N_VALUES_AT, TTH_N_NODES_AT, TTH_N_POOL_AT, TTH_N_PROGS_AT,
                                  TTH_N_INPUTS_AT, TTH_N_OUTPUTS_AT, TTH_N_WARN_AT, TTH_N_PASSES_AT, TTH_N_ORDER_AT };
    th_model m;
    const th_file *f = &m.file;
    int k;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    for (k = 0; k < (int)(sizeof fields / sizeof fields[0]); k++) {
        TH_REFUSED(m.c, th_with_u32(f, (size_t)fields[k], 0xFFFFFFFFu), "counts out of range");
        TH_REFUSED(m.c, th_with_u32(f, (size_t)fields[k], 0x80000000u), "counts out of range");
    }
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_OPS_AT, 257), "counts out of range (ops 257");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_PASSES_AT, 13), "passes 13)");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_ORDER_AT, f->n_nodes + 1), "counts out of range");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_PROGS_AT, f->n_nodes + 1), "counts out of range");
    /* in range, but the sections would not fit the file */
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_VALUES_AT, f->n_values + 1), "the sections do not lie where the counts put them");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_NODES_AT, 100000), "the sections do not lie where");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_POOL_AT, f->n_pool + 1), "the sections do not lie where");
    TH_REFUSED(m.c, th_with_u32(f, TTH_N_OPS_AT, f->n_ops - 1), "the sections do not lie where");
    /* section sizes past the end of the file */
    TH_REFUSED(m.c, th_with_u64(f, TTH_PROGS_SIZE_AT, f->n + 1), "a section is larger than the file");
    TH_REFUSED(m.c, th_with_u64(f, TTH_WARN_SIZE_AT, UINT64_MAX), "a section is larger than the file");
    TH_REFUSED(m.c, th_with_u64(f, TTH_BLOB_SIZE_AT, (uint64_t)1 << 62), "a section is larger than the file");
    TH_REFUSED(m.c, th_with_u64(f, TTH_BLOB_SIZE_AT, f->blob_bytes + 64), "the sections do not lie where");
    th_model_free(&m);
}

static void test_op_table(void) {
    th_model m;
    const th_file *f = &m.file;
    uint8_t name[TTH_NAME];
    int relu;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    relu = th_op(f, "relu");
    CHECK(relu >= 0);
    if (relu < 0) { th_model_free(&m); return; }
    memset(name, 0, sizeof name);
    memcpy(name, "frobnicate", 10);
    TH_REFUSED2(m.c, th_with_bytes(f, f->ops + (size_t)relu * TTH_NAME, name, sizeof name), TT_ERR_UNSUPPORTED,
                "uses op 'frobnicate'", "does not have");
    memset(name, 'a', sizeof name);
    TH_REFUSED(m.c, th_with_bytes(f, f->ops + (size_t)relu * TTH_NAME, name, sizeof name), "is not NUL-terminated");
    memset(name, 0, sizeof name);                  /* an empty name is no op either */
    TH_REFUSED2(m.c, th_with_bytes(f, f->ops + (size_t)relu * TTH_NAME, name, sizeof name), TT_ERR_UNSUPPORTED, "uses op ''", NULL);
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, 0), f->n_ops), "is not in the file's op table");
    th_model_free(&m);
}

static void test_value_records(void) {
    th_model m;
    const th_file *f = &m.file;
    uint8_t name[TTH_NAME];
    int w1, cst;
    size_t r;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    w1 = th_find_value(f, TTH_V_PARAM, 2, 8, 4);
    CHECK(w1 >= 0);
    if (w1 < 0) { th_model_free(&m); return; }
    r = th_value(f, (uint32_t)w1);
    TH_REFUSED(m.c, th_with_byte(f, r + 0, 4), "kind 4, dtype 0, ndim 2 or flags 1 out of range");
    TH_REFUSED(m.c, th_with_byte(f, r + 1, 5), "dtype 5");
    TH_REFUSED(m.c, th_with_byte(f, r + 2, 9), "ndim 9");
    TH_REFUSED(m.c, th_with_byte(f, r + 3, 2), "flags 2 out of range");
    TH_REFUSED(m.c, th_with_u32(f, r + 4, f->n_nodes), "producer node");
    TH_REFUSED(m.c, th_with_u32(f, r + 4, (uint32_t)-2), "producer node -2 out of range");
    TH_REFUSED(m.c, th_with_u64(f, r + 8, (uint64_t)-8), "is negative or too large");
    {   /* two dims of 2^62: their product overflows int64 */
        th_file v = th_with_u64(f, r + 8, (uint64_t)1 << 62);
        if (v.p) { th_put_u64(v.p + r + 16, (uint64_t)1 << 62); th_fix_crc(&v); }
        TH_REFUSED(m.c, v, "is negative or too large");
    }
    /* the data: misaligned, outside the blob, a size that does not match the shape */
    TH_REFUSED(m.c, th_with_u64(f, r + 72, th_u64(f->p + r + 72) + 4), "is misaligned or outside the");
    TH_REFUSED(m.c, th_with_u64(f, r + 72, f->blob_bytes + 64), "is misaligned or outside the");
    TH_REFUSED(m.c, th_with_u64(f, r + 72, (uint64_t)1 << 63), "is misaligned or outside the");
    TH_REFUSED(m.c, th_with_u64(f, r + 80, th_u64(f->p + r + 80) + 4), "bytes of data for f32[8,4]");
    TH_REFUSED(m.c, th_with_u64(f, th_value(f, 0) + 80, 4), "an input or op result with 4 bytes of data");
    memset(name, 'n', sizeof name);
    TH_REFUSED(m.c, th_with_bytes(f, r + 88, name, sizeof name), "its name is not NUL-terminated");
    /* a constant's data too (the scalar 1 of the chain) */
    cst = th_find_value(f, TTH_V_CONST, 0, 0, 0);
    if (cst >= 0 && th_u64(f->p + th_value(f, (uint32_t)cst) + 80) == 4)
        TH_REFUSED(m.c, th_with_u64(f, th_value(f, (uint32_t)cst) + 72, 32), "misaligned or outside");
    th_model_free(&m);
}

/* Node records and the input pool, on the trace (B): nodes run in file order. */
static void test_nodes_of_a_trace(void) {
    th_model m;
    const th_file *f = &m.file;
    int add, relu;
    CHECK(th_model_b(&m));
    if (!f->p) { th_model_free(&m); return; }
    add = th_find_node(f, "add", 0);
    relu = th_find_node(f, "relu", 0);
    CHECK(add >= 0 && relu > add);
    if (add < 0 || relu <= add) { th_model_free(&m); return; }
    /* the input flagged as a parameter: if it loaded, its first run (which compiles the
       trace) turns it into a parameter without data, that the linear reads as NULL */
    TH_REFUSED(m.c, th_with_byte(f, th_value(f, 0) + 3, 1), "flagged as a parameter");
    /* add's result says relu made it: the passes trust the producer field (the fuzzer's
       file compiled into an order that reads a value before it is computed) */
    TH_REFUSED(m.c, th_with_u32(f, th_value(f, (uint32_t)th_node_out(f, (uint32_t)add)) + 4, (uint32_t)relu), "producer");
    /* an input slot out of range, and one that is -1 where the op needs an input */
    TH_REFUSED(m.c, th_with_u32(f, f->pool, f->n_values), "input slot 0 refers to value");
    TH_REFUSED(m.c, th_with_u32(f, f->pool + 4 * th_node_in_at(f, (uint32_t)relu), (uint32_t)-1), "input 0 is missing");
    TH_REFUSED(m.c, th_with_u32(f, f->pool, (uint32_t)-2), "refers to value -2");
    /* a node's slots past the pool */
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)relu) + 8, f->n_pool), "are outside the");
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)relu) + 12, 0xFFFFFFFFu), "are outside the");
    /* a node's output that is a constant, and one out of range */
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)add) + 4, (uint32_t)th_node_in(f, (uint32_t)add, 1)), "an input or constant");
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)add) + 4, f->n_values), "the output of node");
    /* add reads relu's result, computed after it */
    TH_REFUSED(m.c, th_with_u32(f, f->pool + 4 * th_node_in_at(f, (uint32_t)add), (uint32_t)th_node_out(f, (uint32_t)relu)),
               "is not computed before it runs");
    /* relu writes the value add wrote (relu's own value is then written by no node) */
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)relu) + 4, (uint32_t)th_node_out(f, (uint32_t)add)), "does not write it");
    /* the file says add makes f32[4] */
    TH_REFUSED(m.c, th_with_u64(f, th_value(f, (uint32_t)th_node_out(f, (uint32_t)add)) + 8, 4), "(add) makes f32[3], the file says f32[4]");
    /* add with one input */
    TH_REFUSED(m.c, th_with_u32(f, th_node(f, (uint32_t)add) + 12, 1), "(add) has 1 inputs, expected");
    th_model_free(&m);
}

/* The fused node whose program has an epilogue head (linear), and one without: program
   numbers (attribute 0 of a fused node numbers its program in the file). */
static int th_prog_with_head(const th_file *f, bool head) {
    uint32_t k;
    for (k = 0; k < f->n_progs; k++)
        if (((int32_t)th_u32(f->p + th_prog(f, k) + 20) >= 0) == head) return (int)k;
    return -1;
}

/* The run-order node that runs program k. */
static int th_fused_node_of(const th_file *f, uint32_t k) {
    int fused = th_op(f, "fused");
    uint32_t i;
    for (i = 0; fused >= 0 && i < f->n_order; i++)
        if (th_node_op(f, i) == (uint32_t)fused && th_u64(f->p + th_node(f, i) + 16) == k) return (int)i;
    return -1;
}

/* The first micro-op of program k of this kind, or -1. */
static int th_find_uop(const th_file *f, uint32_t k, int kind) {
    uint32_t i, n = th_u32(f->p + th_prog(f, k));
    for (i = 0; i < n; i++) if (f->p[th_uop(f, k, i)] == kind) return (int)i;
    return -1;
}

static void test_fused_programs(void) {
    th_model m;
    const th_file *f = &m.file;
    int pe, pc, ne, nc, un, st, add;
    size_t pr;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    pe = th_prog_with_head(f, true);
    pc = th_prog_with_head(f, false);
    CHECK(pe >= 0 && pc >= 0);
    if (pe < 0 || pc < 0) { th_model_free(&m); return; }
    ne = th_fused_node_of(f, (uint32_t)pe);
    nc = th_fused_node_of(f, (uint32_t)pc);
    CHECK(ne >= 0 && nc >= 0);
    if (ne < 0 || nc < 0) { th_model_free(&m); return; }
    pr = th_prog(f, (uint32_t)pc);
    /* counts over the limits */
    TH_REFUSED(m.c, th_with_u32(f, pr + 0, 64), "64 micro-ops");
    TH_REFUSED(m.c, th_with_u32(f, pr + 4, 1000), "1000 registers");
    TH_REFUSED(m.c, th_with_u32(f, pr + 8, 16), "16 inputs");
    TH_REFUSED(m.c, th_with_u32(f, pr + 12, 0), "0 outputs");
    TH_REFUSED(m.c, th_with_u32(f, pr + 16, 25), "25 members: over the limits");
    TH_REFUSED(m.c, th_with_u32(f, pr + 0, th_u32(f->p + pr) + 1), "the programs section");
    /* a fused node that names a program the file lacks, or runs them out of turn */
    TH_REFUSED(m.c, th_with_u64(f, th_node(f, (uint32_t)nc) + 16, f->n_progs), "does not exist");
    TH_REFUSED(m.c, th_with_u64(f, th_node(f, (uint32_t)nc) + 16, (uint64_t)-1), "does not exist");
    TH_REFUSED(m.c, th_with_u64(f, th_node(f, (uint32_t)nc) + 16, (uint64_t)pe), "out of turn");
    /* micro-ops: a register read before it is written, an unknown kind, a bad swap */
    un = th_find_uop(f, (uint32_t)pc, TTH_U_UNARY);
    st = th_find_uop(f, (uint32_t)pc, TTH_U_STORE);
    CHECK(un > 0 && st > un);
    if (un > 0 && st > un) {
        int n_regs = (int)th_u32(f->p + pr + 4);
        char want[64];
        snprintf(want, sizeof want, "micro-op %d reads, writes or runs what it may not", un);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 8, n_regs - 1), want);   /* a = the last register */
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 8, -1), want);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 6, n_regs), want);       /* dst past the registers */
        TH_REFUSED(m.c, th_with_byte(f, th_uop(f, (uint32_t)pc, (uint32_t)un), 7), "kind 7 unknown");
        TH_REFUSED(m.c, th_with_byte(f, th_uop(f, (uint32_t)pc, (uint32_t)un), 200), "kind 200 unknown");
        TH_REFUSED(m.c, th_with_byte(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 1, 2), "unknown");
        /* the unary micro-op runs add (a binary op), or an op the table lacks */
        add = th_op(f, "add");
        if (add >= 0) TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 2, add), want);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 2, (int)f->n_ops), "is not in the file's op table");
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)un) + 2, -1), "op -1 is not in the file's op table");
        /* the store: an output index out of range */
        snprintf(want, sizeof want, "micro-op %d reads, writes or runs", st);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)st) + 10, 1), want);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)st) + 8, -1), want);   /* aliases[-1] if unchecked */
        {   /* the store twice: one more micro-op, a copy of the store */
            size_t at = th_uop(f, (uint32_t)pc, (uint32_t)st);
            th_file v = th_splice(f, at + TTH_UOP, 0, f->p + at, TTH_UOP, TTH_PROGS_SIZE_AT);
            if (v.p) { th_put_u32(v.p + pr, th_u32(f->p + pr) + 1); th_fix_crc(&v); }
            snprintf(want, sizeof want, "micro-op %d reads, writes or runs", st + 1);
            TH_REFUSED(m.c, v, want);
        }
        {   /* never stored: a second output (value 0, the input) no micro-op stores */
            size_t outs = th_uop(f, (uint32_t)pc, th_u32(f->p + pr));
            uint8_t zero[4] = {0, 0, 0, 0};
            th_file v = th_splice(f, outs + 4, 0, zero, 4, TTH_PROGS_SIZE_AT);
            if (v.p) { th_put_u32(v.p + pr + 12, 2); th_fix_crc(&v); }
            TH_REFUSED(m.c, v, "output 1 is never stored");
        }
    }
    {   /* a program's outputs and members */
        size_t outs = th_uop(f, (uint32_t)pc, th_u32(f->p + pr));
        uint32_t n_out = th_u32(f->p + pr + 12);
        TH_REFUSED(m.c, th_with_u32(f, outs, f->n_values), "an output of program");
        TH_REFUSED(m.c, th_with_u32(f, outs + 4 * (size_t)n_out, 0), "(after the run order)");          /* member 0 = node 0 */
        TH_REFUSED(m.c, th_with_u32(f, outs + 4 * (size_t)n_out, f->n_nodes), "(after the run order)");
        TH_REFUSED(m.c, th_with_u32(f, outs, (uint32_t)th_node_in(f, (uint32_t)nc, 0)), "its output or input count does not match");
    }
    {   /* trailing bytes after the last program */
        uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        TH_REFUSED(m.c, th_splice(f, f->progs + f->progs_bytes, 0, junk, 8, TTH_PROGS_SIZE_AT), "has 8 bytes after its last program");
        TH_REFUSED(m.c, th_splice(f, f->progs + f->progs_bytes - 4, 4, NULL, 0, TTH_PROGS_SIZE_AT), "ends inside program");
    }
    {   /* the epilogue: head not a gemm, head input not absent, head out of range */
        size_t pre = th_prog(f, (uint32_t)pe);
        int head = (int)th_u32(f->p + pre + 20), head_input = (int)th_u32(f->p + pre + 24);
        int relu_node = th_find_node(f, "relu", f->n_order);
        if (relu_node >= 0)                            /* relu takes 1 input, the linear 3: the counts differ first */
            TH_REFUSED(m.c, th_with_u32(f, pre + 20, (uint32_t)relu_node), "its output or input count does not match its program");
        TH_REFUSED(m.c, th_with_u32(f, pre + 24, 7), "is not a matmul, linear or convolution");
        TH_REFUSED(m.c, th_with_u32(f, pre + 28, 3), "is not a matmul, linear or convolution");
        TH_REFUSED(m.c, th_with_u32(f, f->pool + 4 * (th_node_in_at(f, (uint32_t)ne) + (uint32_t)head_input), 0),
                   "is not a matmul, linear or convolution");
        (void)head;
        TH_REFUSED(m.c, th_with_u32(f, pre + 20, f->n_nodes + 1000), "epilogue head");   /* a read past the nodes if unchecked */
    }
    th_model_free(&m);
}

/* A weight whose saved shape no longer fits the linear that reads it (same size). */
static void test_weight_shape_does_not_fit(void) {
    th_model m;
    const th_file *f = &m.file;
    int w1;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    w1 = th_find_value(f, TTH_V_PARAM, 2, 8, 4);
    CHECK(w1 >= 0);
    if (w1 >= 0) {
        th_file v = th_with_u64(f, th_value(f, (uint32_t)w1) + 8, 4);
        if (v.p) { th_put_u64(v.p + th_value(f, (uint32_t)w1) + 16, 8); th_fix_crc(&v); }
        TH_REFUSED2(m.c, v, TT_ERR_FORMAT, "(linear) does not fit its inputs", "node ");
    }
    th_model_free(&m);
}

/* A convolution's algorithm (its node's attribute 7): Winograd only where a TT_MODE_MAX_AUTOTUNE
   compile chose it, for a 3x3 conv2d of stride 1 and groups 1, with tile 2 or 4. The valid
   file (x [1,3,8,8] through a 3x3 conv2d that F(2x2, 3x3) was forced on) loads and runs the
   same bits as the graph it was saved from; each patched variant is refused. */
static void test_conv_algorithm(void) {
    int64_t sx[4] = {1, 3, 8, 8}, sw[4] = {4, 3, 3, 3};
    tt_tensor *w, *x, *y;
    th_model m;
    const th_file *f = &m.file;
    tt_graph *loaded;
    size_t algo_at, stride_at;
    int conv;
    memset(&m, 0, sizeof m);
    m.c = tu_ctx();
    m.x = tt_randn(m.c, 1, 4, sx);
    w = tt_randn(m.c, 2, 4, sw);
    tt_trace_begin(m.c);
    x = tt_trace_input(m.c, m.x, "x");
    y = tt_conv2d(m.c, x, w, NULL, 1, 1, 1, 1);
    m.g = tt_trace_end(m.c, &y, 1);
    CHECK(m.g && tt_graph_set_conv_algo(m.g, TT_CONV_WINOGRAD_2X2) == TT_OK);
    CHECK(m.g && tt_graph_compile(m.g, TT_MODE_MAX_AUTOTUNE, TT_PASS_ALL | TT_PASS_FREEZE) == TT_OK);
    CHECK(m.g && tt_graph_run(m.g, &m.x, 1) == TT_OK && th_save(&m));
    if (!f->p) { th_model_free(&m); return; }
    loaded = tt_graph_load_memory(m.c, f->p, f->n);
    if (CHECK(loaded != NULL) && CHECK(tt_graph_run(loaded, &m.x, 1) == TT_OK)) {
        CHECK_EQ_INT(tt_graph_get_stats(loaded).winograd_2x2, 1);
        tu_same_bits(m.c, tt_graph_output(loaded, 0), tt_graph_output(m.g, 0), __FILE__, __LINE__);
    }
    tt_graph_destroy(loaded);
    conv = th_find_node(f, "conv2d", 0);
    if (!CHECK(conv >= 0)) { th_model_free(&m); return; }
    algo_at = th_node(f, (uint32_t)conv) + 16 + 8 * 7;
    stride_at = th_node(f, (uint32_t)conv) + 16;
    CHECK_EQ_INT(th_u64(f->p + algo_at), 2);
    TH_REFUSED(m.c, th_with_u32(f, TTH_MODE_AT, (uint32_t)TT_MODE_DEFAULT), "not compiled in TT_MODE_MAX_AUTOTUNE");
    TH_REFUSED(m.c, th_with_u64(f, algo_at, (uint64_t)-1), "algorithm -1");
    TH_REFUSED2(m.c, th_with_u64(f, algo_at, 3), TT_ERR_FORMAT, "algorithm 3", "does not fit its inputs");
    TH_REFUSED2(m.c, th_with_u64(f, stride_at, 2), TT_ERR_FORMAT, "algorithm 2", "stride 1");
    th_model_free(&m);
}

static void test_graph_inputs_and_outputs(void) {
    th_model m;
    const th_file *f = &m.file;
    int unwritten = -1;
    uint32_t v, i, k;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    TH_REFUSED(m.c, th_with_u32(f, f->inputs, f->n_values), "graph input 0 refers to value");
    TH_REFUSED(m.c, th_with_u32(f, f->inputs, (uint32_t)th_node_out(f, 0)), "not an input");
    TH_REFUSED(m.c, th_with_u32(f, f->outputs, (uint32_t)-1), "graph output 0 refers to value -1");
    TH_REFUSED(m.c, th_with_u32(f, f->outputs, (uint32_t)th_find_value(f, TTH_V_PARAM, 2, 8, 4)), "a constant");
    /* an input value that is no graph input: the input count 0 (the section shrinks) */
    {
        th_file v0 = th_copy(f);
        if (v0.p) {
            memmove(v0.p + f->inputs, v0.p + f->inputs + 4, f->n - f->inputs - 4);
            v0.n -= 4;
            th_put_u32(v0.p + TTH_N_INPUTS_AT, 0);
            th_put_u64(v0.p + TTH_FSIZE_AT, v0.n);
            th_put_u64(v0.p + TTH_PROGS_AT, f->progs - 4);
            th_put_u64(v0.p + TTH_WARN_AT, f->warnings - 4);
            /* the blob stays at its multiple of 64: put back the 4 bytes before it */
            memmove(v0.p + f->blob, v0.p + f->blob - 4, f->blob_bytes + 4);
            memset(v0.p + f->blob - 4, 0, 4);
            v0.n += 4;
            th_put_u64(v0.p + TTH_FSIZE_AT, v0.n);
            th_fix_crc(&v0);
        }
        TH_REFUSED(m.c, v0, "is an input that is not a graph input");
    }
    /* a graph output no node of the run order computes: a value only a member wrote */
    for (v = 0; v < f->n_values && unwritten < 0; v++) {
        bool written = false;
        if (f->p[th_value(f, v)] != TTH_V_NODE) continue;
        for (i = 0; i < f->n_order; i++) if (th_node_out(f, i) == (int32_t)v) written = true;
        for (k = 0; k < f->n_progs; k++) {
            size_t pr = th_prog(f, k), outs = pr + TTH_PROG + th_u32(f->p + pr) * (size_t)TTH_UOP;
            for (i = 0; i < th_u32(f->p + pr + 12); i++) if (th_u32(f->p + outs + 4 * i) == v) written = true;
        }
        if (!written) unwritten = (int)v;
    }
    CHECK(unwritten >= 0);
    if (unwritten >= 0) TH_REFUSED(m.c, th_with_u32(f, f->outputs, (uint32_t)unwritten), "graph output 0 is computed by no node");
    th_model_free(&m);
}

static void test_passes_and_warnings(void) {
    th_model a, b;
    uint8_t name[20];
    CHECK(th_model_a(&a));
    CHECK(th_model_b(&b));
    if (a.file.p && a.file.n_passes > 0) {
        memset(name, 0, sizeof name);
        memcpy(name, "inline", 6);
        TH_REFUSED(a.c, th_with_bytes(&a.file, a.file.passes, name, sizeof name), "pass 0 has a name this version does not know");
        memset(name, 'p', sizeof name);
        TH_REFUSED(a.c, th_with_bytes(&a.file, a.file.passes, name, sizeof name), "pass 0 has a name");
    }
    if (b.file.p && b.file.n_warnings == 1) {
        const th_file *f = &b.file;
        uint32_t len = th_u32(f->p + f->warnings);
        uint8_t pad[400];
        th_file v;
        CHECK_EQ_INT(f->warnings_bytes, 4 + len);
        TH_REFUSED(b.c, th_with_u32(f, f->warnings, len + 1), "warning 0 has");
        TH_REFUSED(b.c, th_with_u32(f, f->warnings, 0xFFFFFFFFu), "warning 0 has");
        TH_REFUSED(b.c, th_with_u32(f, f->warnings, len - 1), "1 bytes after its last warning");
        /* a warning of 320 bytes, inside its section: longer than a warning may be */
        memset(pad, 'w', sizeof pad);
        v = th_splice(f, f->warnings + 4 + len, 0, pad, 320 - len, TTH_WARN_SIZE_AT);
        if (v.p) { th_put_u32(v.p + f->warnings, 320); th_fix_crc(&v); }
        TH_REFUSED(b.c, v, "warning 0 has 320 bytes (at most 319");
        /* two warnings said, one there */
        TH_REFUSED(b.c, th_with_u32(f, TTH_N_WARN_AT, 2), "the warnings section ends inside warning 1");
        /* a million warnings said, in a section of 4 + len bytes: refused before allocating 320 MB */
        TH_REFUSED(b.c, th_with_u32(f, TTH_N_WARN_AT, 1u << 20), "counts out of range");
    }
    th_model_free(&a);
    th_model_free(&b);
}

/* A register past the program's 63 (out of bounds if it were read before the checks). */
static void test_register_past_the_limit(void) {
    th_model m;
    const th_file *f = &m.file;
    int pc;
    CHECK(th_model_a(&m));
    if (!f->p) { th_model_free(&m); return; }
    pc = th_prog_with_head(f, false);
    if (pc >= 0) {
        int ld = th_find_uop(f, (uint32_t)pc, TTH_U_LOAD);
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)ld) + 6, 116), "reads, writes or runs what it may not");
        TH_REFUSED(m.c, th_with_i16(f, th_uop(f, (uint32_t)pc, (uint32_t)ld) + 6, -3), "reads, writes or runs what it may not");
    }
    th_model_free(&m);
}

/* After all the refusals the context still works: a valid file loads and runs, bitwise
   like the graph it was saved from. */
static void test_valid_file_runs_after_refusals(void) {
    th_model m;
    tt_graph *g;
    float *want0 = NULL, *got0 = NULL, *want1 = NULL, *got1 = NULL;
    CHECK(th_model_a(&m));
    if (!m.file.p) { th_model_free(&m); return; }
    TH_REFUSED(m.c, th_with_u32(&m.file, TTH_VERSION_AT, 9), "version 9");
    CHECK_EQ_INT(tt_ctx_status(m.c), TT_OK);
    g = tt_graph_load_memory(m.c, m.file.p, m.file.n);
    CHECK(g != NULL);
    if (g && CHECK(tt_graph_run(m.g, &m.x, 1) == TT_OK) && CHECK(tt_graph_run(g, &m.x, 1) == TT_OK)) {
        want0 = tu_values(m.c, tt_graph_output(m.g, 0)); want1 = tu_values(m.c, tt_graph_output(m.g, 1));
        got0 = tu_values(m.c, tt_graph_output(g, 0));    got1 = tu_values(m.c, tt_graph_output(g, 1));
        CHECK(want0 && got0 && memcmp(want0, got0, sizeof(float) * 6) == 0);
        CHECK(want1 && got1 && memcmp(want1, got1, sizeof(float) * 8) == 0);
    }
    free(want0); free(got0); free(want1); free(got1);
    tt_graph_destroy(g);
    {   /* and eager ops still work in the context */
        int64_t s2[1] = {2};
        tt_tensor *t = tt_add(m.c, tt_ones(m.c, TT_F32, 1, s2), tt_ones(m.c, TT_F32, 1, s2));
        CHECK(t != NULL && tt_item(m.c, tt_sum(m.c, t, NULL, 0, false)) == 4.0f);
    }
    th_model_free(&m);
}

/* ---- allocation: bounded by the file size for refused loads --------------------------- */
typedef struct th_count { size_t live, peak; } th_count;
static void *th_count_alloc(size_t size, void *user) {
    th_count *h = (th_count *)user;
    unsigned char *p = (unsigned char *)malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    h->live += size;
    if (h->live > h->peak) h->peak = h->live;
    return p + 16;
}
static void th_count_free(void *ptr, void *user) {
    th_count *h = (th_count *)user;
    size_t size;
    if (!ptr) return;
    memcpy(&size, (unsigned char *)ptr - 16, sizeof size);
    h->live -= size;
    free((unsigned char *)ptr - 16);
}

/* Counts in range but far larger than the file holds: the load allocates a few times the
   file's size at most before it refuses. */
static void test_allocation_bounded_by_file_size(void) {
    static const int fields[] = { TTH_N_VALUES_AT, TTH_N_NODES_AT, TTH_N_POOL_AT, TTH_N_PROGS_AT, TTH_N_INPUTS_AT,
                                  TTH_N_OUTPUTS_AT, TTH_N_ORDER_AT
                                  , TTH_N_WARN_AT
    };
    th_model m;
    th_count cnt;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    int k;
    CHECK(th_model_a(&m));
    if (!m.file.p) { th_model_free(&m); return; }
    memset(&cnt, 0, sizeof cnt);
    d.allocator.alloc = th_count_alloc;
    d.allocator.free = th_count_free;
    d.allocator.user = &cnt;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    for (k = 0; c && k < (int)(sizeof fields / sizeof fields[0]); k++) {
        size_t before = cnt.live;
        th_file v = th_with_u32(&m.file, (size_t)fields[k], 1u << 24);
        cnt.peak = cnt.live;
        if (v.p) tt_graph_destroy(tt_graph_load_memory(c, v.p, v.n));
        tt_clear_error(c);
        if (!CHECK(cnt.peak - before <= 64 * m.file.n + 4096)) printf("    count at %d: %lu bytes allocated\n", fields[k], (unsigned long)(cnt.peak - before));
        CHECK_EQ_INT(cnt.live, before);
        free(v.p);
    }
    tt_ctx_destroy(c);
    CHECK_EQ_INT(cnt.live, 0);
    th_model_free(&m);
}

/* Allocation k of the load fails, for every k: the load is refused with TT_ERR_OOM (or
   succeeds once k is past its allocations) and gives every byte back. */
typedef struct th_failing { th_count count; int left; } th_failing;
static void *th_failing_alloc(size_t size, void *user) {
    th_failing *h = (th_failing *)user;
    if (h->left == 0) return NULL;
    if (h->left > 0) h->left--;
    return th_count_alloc(size, &h->count);
}
static void th_failing_free(void *ptr, void *user) { th_count_free(ptr, &((th_failing *)user)->count); }

static void test_out_of_memory_at_every_allocation(void) {
    th_model m;
    th_failing h;
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    int k, bad = 0, loaded = 0;
    CHECK(th_model_a(&m));
    if (!m.file.p) { th_model_free(&m); return; }
    memset(&h, 0, sizeof h);
    h.left = -1;                                       /* the context itself allocates freely */
    d.allocator.alloc = th_failing_alloc;
    d.allocator.free = th_failing_free;
    d.allocator.user = &h;
    c = tt_ctx_create(&d);
    CHECK(c != NULL);
    for (k = 0; c && k < 200 && !loaded; k++) {
        size_t before = h.count.live;
        tt_graph *g;
        h.left = k;
        g = tt_graph_load_memory(c, m.file.p, m.file.n);
        h.left = -1;
        if (g) loaded = 1;
        else if (tt_ctx_status(c) != TT_ERR_OOM && bad++ < 3) printf("    allocation %d failed: \"%s\"\n", k, tt_error(c));
        tt_graph_destroy(g);
        tt_clear_error(c);
        if (h.count.live != before && bad++ < 3)
            printf("    allocation %d failed: %ld bytes not given back\n", k, (long)(h.count.live - before));
    }
    CHECK(loaded);
    CHECK_EQ_INT(bad, 0);
    tt_ctx_destroy(c);
    th_model_free(&m);
}

TT_TEST_GROUP(ttg_hostile) = {
    {"crc_check_value", test_crc_check_value},
    {"valid_files_load", test_valid_files_load},
    {"truncated_at_every_length", test_truncated_at_every_length},
    {"flipped_byte_fails_checksum", test_flipped_byte_fails_checksum},
    {"header_fields", test_header_fields},
    {"counts", test_counts},
    {"op_table", test_op_table},
    {"value_records", test_value_records},
    {"nodes_of_a_trace", test_nodes_of_a_trace},
    {"fused_programs", test_fused_programs},
    {"weight_shape_does_not_fit", test_weight_shape_does_not_fit},
    {"conv_algorithm", test_conv_algorithm},
    {"graph_inputs_and_outputs", test_graph_inputs_and_outputs},
    {"passes_and_warnings", test_passes_and_warnings},
    {"register_past_the_limit", test_register_past_the_limit},
    {"valid_file_runs_after_refusals", test_valid_file_runs_after_refusals},
    {"allocation_bounded_by_file_size", test_allocation_bounded_by_file_size},
    {"out_of_memory_at_every_allocation", test_out_of_memory_at_every_allocation},
    {NULL, NULL}
};
