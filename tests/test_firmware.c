/* test_firmware.c - tinytrace built the way firmware builds it: no threads, no stdio, no malloc.
   Built and run by `make compile-matrix`, which then checks with nm that the program references
   no malloc/free, no printf/puts/fopen and no pthread function.

   Every byte comes from one static buffer handed in through tt_ctx_desc.mem_buffer. The program
   runs a tiny model (linear -> relu -> softmax, then a sum) on hand-chosen values and compares it
   with the same model computed here in double precision; then it fills the buffer on purpose and
   checks that the library answers TT_ERR_OOM with a message naming the op, that a scope gives the
   memory back, and that nothing was written outside the buffer.

   No printing: the exit status is 0 on success, otherwise 1 + (line of the first failed check
   modulo 254), so `./test_firmware; echo $?` points at the check. */
#define TT_NO_THREADS
#define TT_NO_STDIO
#define TT_NO_MALLOC
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"

#include <math.h>
#include <string.h>

#define FW_ARENA_BYTES  (64 * 1024)
#define FW_CANARY_BYTES 64
#define FW_CANARY       0xA5

/* The arena with canary bytes on both sides; the union keeps it aligned for any element type. */
static union {
    struct {
        unsigned char before[FW_CANARY_BYTES];
        unsigned char arena[FW_ARENA_BYTES];
        unsigned char after[FW_CANARY_BYTES];
    } b;
    double  align_d;
    int64_t align_i;
    void   *align_p;
} fw_mem;

static int fw_first_failed_line;

static void fw_fail(int line) {
    if (!fw_first_failed_line) fw_first_failed_line = line;
}
#define FW_CHECK(cond) do { if (!(cond)) fw_fail(__LINE__); } while (0)

static int fw_near(double got, double want, double atol, double rtol) {
    return fabs(got - want) <= atol + rtol * fabs(want);
}

static int fw_canaries_intact(void) {
    int i;
    for (i = 0; i < FW_CANARY_BYTES; i++)
        if (fw_mem.b.before[i] != FW_CANARY || fw_mem.b.after[i] != FW_CANARY) return 0;
    return 1;
}

#include "fw_model.h"
#include "fw_graph.h"

static void fw_test_model(tt_ctx *c) {
    int64_t xs[2] = {2, 3}, ws[2] = {4, 3}, bs[1] = {4};
    double want[2][4], want_total;
    float got[8];
    int i, j;
    tt_scope s = tt_scope_begin(c);
    tt_tensor *x = tt_from_data(c, TT_F32, 2, xs, fw_x);
    tt_tensor *w = tt_from_data(c, TT_F32, 2, ws, fw_w);
    tt_tensor *b = tt_from_data(c, TT_F32, 1, bs, fw_b);
    tt_tensor *h = tt_relu(c, tt_linear(c, x, w, b));
    tt_tensor *p = tt_softmax(c, h, 1);
    tt_tensor *t = tt_sum(c, tt_mul(c, p, h), NULL, 0, false);
    fw_reference(want, &want_total);
    FW_CHECK(tt_ctx_status(c) == TT_OK && tt_error(c) == NULL);
    FW_CHECK(p != NULL && t != NULL);
    if (p && t) {
        FW_CHECK(p->ndim == 2 && p->shape[0] == 2 && p->shape[1] == 4 && t->ndim == 0);
        FW_CHECK(tt_copy_to_f32(c, p, got, 8) == TT_OK);
        for (i = 0; i < 2; i++)
            for (j = 0; j < 4; j++) FW_CHECK(fw_near(got[i * 4 + j], want[i][j], 1e-6, 2e-6));
        FW_CHECK(fw_near(tt_item(c, t), want_total, 1e-6, 1e-5));
    }
    FW_CHECK(tt_ctx_used(c) <= FW_ARENA_BYTES);
    tt_scope_end(c, s);
}

/* The same model as a compiled graph kept in a const array (flash on a device: tests/fw_graph.h,
   written by tests/test_ttg.c): loaded with no heap into the context's buffer, run twice,
   equal to the double-precision reference; destroying it and ending the scope frees it all. */
static void fw_test_loaded_graph(tt_ctx *c) {
    int64_t xs[2] = {2, 3};
    double want[2][4], want_total;
    float got[8];
    size_t used = tt_ctx_used(c);
    tt_scope s = tt_scope_begin(c);
    tt_graph *g = tt_graph_load_memory(c, fw_graph.bytes, sizeof fw_graph.bytes);
    tt_tensor *x = tt_from_data(c, TT_F32, 2, xs, fw_x);
    int r, i, j;
    fw_reference(want, &want_total);
    FW_CHECK(g != NULL && tt_ctx_status(c) == TT_OK);
    for (r = 0; r < 2 && g; r++) {
        FW_CHECK(tt_graph_run(g, &x, 1) == TT_OK);
        FW_CHECK(tt_copy_to_f32(c, tt_graph_output(g, 0), got, 8) == TT_OK);
        for (i = 0; i < 2; i++)
            for (j = 0; j < 4; j++) FW_CHECK(fw_near(got[i * 4 + j], want[i][j], 1e-6, 2e-6));
        FW_CHECK(fw_near(tt_item(c, tt_graph_output(g, 1)), want_total, 1e-6, 1e-5));
    }
    tt_graph_destroy(g);
    tt_scope_end(c, s);
    FW_CHECK(tt_ctx_used(c) == used);
    FW_CHECK(fw_canaries_intact());
}

/* Fill the arena with 1 KiB tensors until it refuses; the refusal is an error, not a crash. */
static void fw_test_exhaustion(tt_ctx *c) {
    int64_t n[1] = {256};
    int64_t huge[1] = {(int64_t)1 << 40};
    int64_t overflow[2] = {(int64_t)1 << 62, (int64_t)1 << 62};
    tt_tensor *a, *last = NULL, *r;
    size_t used_before = tt_ctx_used(c);
    int count = 0;
    tt_scope s = tt_scope_begin(c);
    a = tt_ones(c, TT_F32, 1, n);
    FW_CHECK(a != NULL);
    for (;;) {
        tt_tensor *t = tt_zeros(c, TT_F32, 1, n);
        if (!t) break;
        last = t;
        if (++count > FW_ARENA_BYTES / 1024 + 1) break;   /* more than can fit: no limit */
    }
    FW_CHECK(count > 10 && count <= FW_ARENA_BYTES / 1024);
    FW_CHECK(tt_ctx_status(c) == TT_ERR_OOM);
    FW_CHECK(tt_error(c) != NULL && strstr(tt_error(c), "tt_zeros") != NULL);
    /* Sticky: a later failure does not replace the first message; NULL propagates silently. */
    r = tt_add(c, a, last);
    FW_CHECK(r == NULL && tt_ctx_status(c) == TT_ERR_OOM && strstr(tt_error(c), "tt_zeros") != NULL);
    FW_CHECK(tt_relu(c, NULL) == NULL && strstr(tt_error(c), "tt_zeros") != NULL);
    tt_clear_error(c);
    FW_CHECK(tt_ctx_status(c) == TT_OK && tt_error(c) == NULL);
    /* An op whose result does not fit names itself. */
    r = tt_add(c, a, last);
    FW_CHECK(r == NULL && tt_ctx_status(c) == TT_ERR_OOM);
    FW_CHECK(tt_error(c) != NULL && strstr(tt_error(c), "tt_add") != NULL);
    tt_clear_error(c);
    FW_CHECK(fw_canaries_intact());
    /* The scope gives everything back. */
    tt_scope_end(c, s);
    FW_CHECK(tt_ctx_used(c) == used_before);
    a = tt_full(c, TT_F32, 1, n, 2.0);
    FW_CHECK(a != NULL && tt_item(c, tt_sum(c, a, NULL, 0, false)) == 512.0f);
    FW_CHECK(tt_ctx_status(c) == TT_OK);
    /* Requests far beyond the arena, or whose byte count overflows, fail cleanly. */
    FW_CHECK(tt_empty(c, TT_F32, 1, huge) == NULL && tt_ctx_status(c) == TT_ERR_OOM);
    FW_CHECK(tt_error(c) != NULL && strstr(tt_error(c), "tt_empty") != NULL);
    tt_clear_error(c);
    FW_CHECK(tt_zeros(c, TT_F32, 2, overflow) == NULL && tt_ctx_status(c) != TT_OK);
    FW_CHECK(tt_error(c) != NULL && strstr(tt_error(c), "tt_zeros") != NULL);
    tt_clear_error(c);
    FW_CHECK(fw_canaries_intact());
}

/* Contexts that cannot be made: no buffer at all (and no heap), a buffer that is too small. */
static void fw_test_create_limits(void) {
    tt_ctx_desc d = tt_ctx_desc_default();
    FW_CHECK(tt_ctx_create(NULL) == NULL);
    FW_CHECK(tt_ctx_create(&d) == NULL);
    d.mem_buffer = fw_mem.b.arena;
    d.mem_size = TT_CTX_OVERHEAD - 1;
    FW_CHECK(tt_ctx_create(&d) == NULL);
    FW_CHECK(fw_canaries_intact());
}

/* A buffer at an odd address (as a linker section may give): tensors still come out aligned. */
static void fw_test_misaligned_buffer(void) {
    int64_t n[1] = {7};
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    tt_tensor *t;
    d.mem_buffer = fw_mem.b.arena + 3;
    d.mem_size = 16 * 1024 - 3;
    c = tt_ctx_create(&d);
    FW_CHECK(c != NULL);
    if (!c) return;
    t = tt_arange(c, TT_F32, 0.0, 7.0, 1.0);
    FW_CHECK(t != NULL && t->shape[0] == 7);
    FW_CHECK(t != NULL && (uintptr_t)tt_data(t) % sizeof(float) == 0);
    FW_CHECK(fw_near(tt_item(c, tt_sum(c, tt_mul(c, t, t), NULL, 0, false)), 91.0, 0.0, 1e-6));
    FW_CHECK(tt_ones(c, TT_F32, 1, n) != NULL && tt_ctx_status(c) == TT_OK);
    tt_ctx_destroy(c);
    FW_CHECK(fw_canaries_intact());
}

int main(void) {
    tt_ctx_desc d;
    tt_ctx *c;
    memset(fw_mem.b.before, FW_CANARY, FW_CANARY_BYTES);
    memset(fw_mem.b.after, FW_CANARY, FW_CANARY_BYTES);

    fw_test_create_limits();
    fw_test_misaligned_buffer();

    d = tt_ctx_desc_default();
    d.mem_buffer = fw_mem.b.arena;
    d.mem_size = FW_ARENA_BYTES;
    c = tt_ctx_create(&d);
    FW_CHECK(c != NULL);
    if (c) {
        FW_CHECK((unsigned char *)c >= fw_mem.b.arena && (unsigned char *)c < fw_mem.b.arena + FW_ARENA_BYTES);
        fw_test_model(c);
        fw_test_loaded_graph(c);
        fw_test_exhaustion(c);
        fw_test_model(c);            /* still works after an OOM and a cleared error */
        tt_ctx_destroy(c);
    }
    FW_CHECK(fw_canaries_intact());
    return fw_first_failed_line ? 1 + fw_first_failed_line % 254 : 0;
}
