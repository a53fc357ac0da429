/* test_safetensors.c - group `safetensors`: the safetensors reader (tt_safetensors_*).

   Every file here is built byte by byte from the format's public description (8 bytes of
   little-endian header length, the JSON text padded with spaces, the data), never with the
   code under test; element bits are written by hand (f16 1.5 = 0x3E00, bf16 1.5 = 0x3FC0).
   Valid files of every dtype tinytrace reads are checked value by value, zero-copy when the
   bytes are aligned and a copy when not; hostile files must each be refused with
   TT_ERR_FORMAT and a message naming the cause, and leave the context's memory as it was. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "test_util.h"

/* ---------------------------------------------------------------- the builder */

#define TS_MAX 16384

/* A file's bytes in storage aligned for any element type. */
typedef struct ts_file {
    union { unsigned char b[TS_MAX + 16]; double d; int64_t i; } u;
    size_t size;
    size_t header;              /* N, the JSON's length with its padding */
} ts_file;

static void ts_put_u16(unsigned char *p, unsigned v) {
    p[0] = (unsigned char)(v & 0xFF);
    p[1] = (unsigned char)(v >> 8 & 0xFF);
}
static void ts_put_u32(unsigned char *p, uint32_t v) {
    int k;
    for (k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k) & 0xFF);
}
static void ts_put_u64(unsigned char *p, uint64_t v) {
    int k;
    for (k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k) & 0xFF);
}

/* 8-byte length, json, spaces up to a multiple of `align` of 8 + N (1: none), then data. */
static void ts_build_aligned(ts_file *f, const char *json, const void *data, size_t n, size_t align) {
    size_t len = strlen(json), pad = 0;
    while ((8 + len + pad) % align != 0) pad++;
    if (8 + len + pad + n > TS_MAX) { printf("    ts_build: file too big\n"); f->size = 0; return; }
    f->header = len + pad;
    ts_put_u64(f->u.b, (uint64_t)f->header);
    memcpy(f->u.b + 8, json, len);
    memset(f->u.b + 8 + len, ' ', pad);
    if (n) memcpy(f->u.b + 8 + f->header, data, n);
    f->size = 8 + f->header + n;
}

/* As writers do: the header padded so the data starts 8-aligned. */
static void ts_build(ts_file *f, const char *json, const void *data, size_t n) { ts_build_aligned(f, json, data, n, 8); }

/* The data buffer of f. */
static unsigned char *ts_data(ts_file *f) { return f->u.b + 8 + f->header; }

/* n zero bytes of data, for files whose values do not matter. */
static const unsigned char ts_zeros[4096] = {0};

/* The opening of a file from json and n zero bytes that must fail with TT_ERR_FORMAT naming
   why; the context's memory is unchanged afterwards. */
static int ts_refused(const char *json, size_t n, const char *why, int line) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    size_t used;
    tt_safetensors *st;
    int ok = 1;
    ts_build(&f, json, ts_zeros, n);
    used = tt_ctx_used(c);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    if (st) { printf("    line %d: opened, expected a refusal naming \"%s\"\n", line, why); ok = 0; }
    ok &= tu_check_error(c, TT_ERR_FORMAT, why, __FILE__, line);
    if (tt_ctx_used(c) != used) { printf("    line %d: a refused file kept %d bytes\n", line, (int)(tt_ctx_used(c) - used)); ok = 0; }
    ok &= CHECK_GUARDS(c);
    tt_ctx_destroy(c);
    return ok;
}
#define CHECK_REFUSED(json, n, why) CHECK(ts_refused((json), (n), (why), __LINE__))

/* The tensor's elements as floats equal want (n of them). */
static int ts_values_are(tt_ctx *c, const tt_tensor *t, const double *want, int n) {
    return CHECK(t != NULL) && CHECK_EQ_INT(t->numel, n) && CHECK_VALUES(c, t, want, n);
}

/* ---------------------------------------------------------------- valid files */

/* f32 bits of 1, 2, -0.5, 1.5, 0.25, -3. */
static const uint32_t ts_f32_bits[6] = {0x3F800000u, 0x40000000u, 0xBF000000u, 0x3FC00000u, 0x3E800000u, 0xC0400000u};
static const double ts_f32_vals[6] = {1.0, 2.0, -0.5, 1.5, 0.25, -3.0};

static const char ts_f32_json[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";

static void ts_f32_data(unsigned char *d) {
    int k;
    for (k = 0; k < 6; k++) ts_put_u32(d + 4 * k, ts_f32_bits[k]);
}

static void test_f32_zero_copy(void) {
    static ts_file f;
    unsigned char data[24];
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_tensor *t;
    ts_f32_data(data);
    ts_build(&f, ts_f32_json, data, sizeof data);
    CHECK_EQ_INT((8 + f.header) % 8, 0);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK(st != NULL);
    CHECK_EQ_INT(tt_safetensors_count(st), 1);
    t = tt_safetensors_tensor(st, 0);
    if (ts_values_are(c, t, ts_f32_vals, 6)) {
        CHECK(t->dtype == TT_F32);
        CHECK(tu_shape_is(t, 2, 2, 3));
        CHECK(tt_data(t) == (void *)(f.u.b + 8 + f.header));   /* no copy: it points into the buffer */
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* The same file one byte further: the f32 data is not 4-aligned, so the tensor is a copy. */
static void test_f32_copy_when_misaligned(void) {
    static ts_file f, g;
    unsigned char data[24];
    const unsigned char *buf;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_tensor *t;
    ts_f32_data(data);
    ts_build(&f, ts_f32_json, data, sizeof data);
    memcpy(g.u.b + 1, f.u.b, f.size);
    buf = g.u.b + 1;
    st = tt_safetensors_open_memory(c, buf, f.size);
    t = tt_safetensors_tensor(st, 0);
    if (ts_values_are(c, t, ts_f32_vals, 6)) {
        CHECK(tt_data(t) != (const void *)(buf + 8 + f.header));
        CHECK_EQ_INT((uintptr_t)tt_data(t) % 4, 0);
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* f16 and bf16 bits worked out by hand: sign, exponent (bias 15 / 127), mantissa. */
static void test_f16_bf16(void) {
    static ts_file f;
    static const unsigned h[4] = {0x3E00u, 0xC000u, 0x3800u, 0x7BFFu};   /* f16 1.5, -2, 0.5, 65504 */
    static const unsigned b[4] = {0x3FC0u, 0xC000u, 0x3F00u, 0x4040u};   /* bf16 1.5, -2, 0.5, 3 */
    static const double hv[4] = {1.5, -2.0, 0.5, 65504.0}, bv[4] = {1.5, -2.0, 0.5, 3.0};
    unsigned char data[16];
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_tensor *th, *tb;
    int k;
    for (k = 0; k < 4; k++) {
        ts_put_u16(data + 2 * k, h[k]);
        ts_put_u16(data + 8 + 2 * k, b[k]);
    }
    ts_build(&f, "{\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
                 "\"b\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[8,16]}}", data, sizeof data);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    th = tt_safetensors_get(st, "h");
    tb = tt_safetensors_get(st, "b");
    if (ts_values_are(c, th, hv, 4)) {
        CHECK(th->dtype == TT_F16);
        CHECK(tt_data(th) == (void *)ts_data(&f));
    }
    if (ts_values_are(c, tb, bv, 4)) {
        CHECK(tb->dtype == TT_BF16);
        CHECK(tu_shape_is(tb, 2, 2, 2));
        CHECK(tt_data(tb) == (void *)(ts_data(&f) + 8));
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_i32(void) {
    static ts_file f;
    static const int32_t want[3] = {7, -1, 2147483647};
    unsigned char data[12];
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_tensor *t;
    ts_put_u32(data, 7u);
    ts_put_u32(data + 4, 0xFFFFFFFFu);
    ts_put_u32(data + 8, 0x7FFFFFFFu);
    ts_build(&f, "{\"ids\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]}}", data, sizeof data);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    t = tt_safetensors_tensor(st, 0);
    if (CHECK(t != NULL) && CHECK(t->dtype == TT_I32) && CHECK_EQ_INT(t->numel, 3)) {
        const int32_t *d = (const int32_t *)tt_data(t);
        CHECK_EQ_INT(d[0], want[0]);
        CHECK_EQ_INT(d[1], want[1]);
        CHECK_EQ_INT(d[2], want[2]);
    }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* I64 becomes a new I32 tensor; read from an odd address too (memcpy per element). */
static void test_i64_narrowed(void) {
    static ts_file f, g;
    static const uint64_t bits[4] = {5u, 0xFFFFFFFFFFFFFFF9ull, 0x7FFFFFFFull, 0xFFFFFFFF80000000ull};
    static const int32_t want[4] = {5, -7, 2147483647, -2147483647 - 1};
    unsigned char data[32];
    tt_ctx *c = tu_ctx();
    int k, shift;
    for (k = 0; k < 4; k++) ts_put_u64(data + 8 * k, bits[k]);
    ts_build(&f, "{\"pos\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[0,32]}}", data, sizeof data);
    memcpy(g.u.b + 3, f.u.b, f.size);
    for (shift = 0; shift < 2; shift++) {
        tt_safetensors *st = tt_safetensors_open_memory(c, shift ? g.u.b + 3 : f.u.b, f.size);
        tt_safetensors_entry e;
        tt_tensor *t = tt_safetensors_tensor(st, 0);
        if (CHECK(tt_safetensors_entry_at(st, 0, &e))) {
            CHECK(strcmp(e.file_dtype, "I64") == 0);
            CHECK(e.dtype == TT_I32);
            CHECK_EQ_INT((long long)e.nbytes, 32);
        }
        if (CHECK(t != NULL) && CHECK(t->dtype == TT_I32) && CHECK(tu_shape_is(t, 2, 2, 2))) {
            const int32_t *d = (const int32_t *)tt_data(t);
            for (k = 0; k < 4; k++) CHECK_EQ_INT(d[k], want[k]);
        }
    }
    CHECK_NO_ERROR(c);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_i64_out_of_range(void) {
    static ts_file f;
    unsigned char data[24];
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    ts_put_u64(data, 1u);
    ts_put_u64(data + 8, 0x80000000ull);                 /* 2^31: one past INT32_MAX */
    ts_put_u64(data + 16, 2u);
    ts_build(&f, "{\"ids\":{\"dtype\":\"I64\",\"shape\":[3],\"data_offsets\":[0,24]}}", data, sizeof data);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK(st != NULL);
    CHECK(tt_safetensors_tensor(st, 0) == NULL);
    CHECK_ERROR(c, TT_ERR_INDEX, "tensor 'ids' (i = 0): I64 element 1 is 2147483648");
    ts_put_u64(ts_data(&f) + 8, 0xFFFFFFFF7FFFFFFFull);  /* -2^31 - 1 */
    CHECK(tt_safetensors_get(st, "ids") == NULL);
    CHECK_ERROR(c, TT_ERR_INDEX, "tt_safetensors_get: tensor 'ids': I64 element 1 is -2147483649");
    tt_ctx_destroy(c);
}

/* Dtypes tinytrace does not read are listed, then refused when read. */
static void test_other_dtypes_listed(void) {
    static ts_file f;
    static const char *const names[] = {"F64", "I16", "I8", "U8", "U16", "U32", "U64", "BOOL", "F8_E4M3", "F8_E5M2"};
    static const int bytes[] = {8, 2, 1, 1, 2, 4, 8, 1, 1, 1};
    char json[2048];
    size_t len = 0, at = 0;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    int k;
    len += (size_t)snprintf(json + len, sizeof json - len, "{");
    for (k = 0; k < 10; k++) {
        len += (size_t)snprintf(json + len, sizeof json - len, "%s\"t%d\":{\"dtype\":\"%s\",\"shape\":[2],"
                                "\"data_offsets\":[%d,%d]}", k ? "," : "", k, names[k], (int)at, (int)at + 2 * bytes[k]);
        at += 2 * (size_t)bytes[k];
    }
    snprintf(json + len, sizeof json - len, "}");
    ts_build(&f, json, ts_zeros, at);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK_NO_ERROR(c);
    if (!CHECK(st != NULL)) { tt_ctx_destroy(c); return; }
    CHECK_EQ_INT(tt_safetensors_count(st), 10);
    for (k = 0; k < 10; k++) {
        tt_safetensors_entry e;
        char want[64];
        if (!CHECK(tt_safetensors_entry_at(st, k, &e))) continue;
        CHECK(strcmp(e.file_dtype, names[k]) == 0);
        CHECK(e.dtype == TT_DTYPE_COUNT);
        CHECK_EQ_INT((long long)e.nbytes, 2 * bytes[k]);
        CHECK(tt_safetensors_tensor(st, k) == NULL);
        snprintf(want, sizeof want, "tensor 't%d' (i = %d) has dtype %s", k, k, names[k]);
        CHECK_ERROR(c, TT_ERR_UNSUPPORTED, want);
    }
    CHECK(tt_safetensors_get(st, "t0") == NULL);
    CHECK_ERROR(c, TT_ERR_UNSUPPORTED, "tinytrace reads F32, F16, BF16, I32 and I64 (narrowed to I32)");
    tt_ctx_destroy(c);
}

static void test_metadata(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    ts_build(&f, "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\\u00e9 \\\"q\\\"\",\"empty\":\"\"},"
                 "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", ts_zeros, 4);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK_EQ_INT(tt_safetensors_count(st), 1);
    CHECK(tt_safetensors_metadata(st, "format") && strcmp(tt_safetensors_metadata(st, "format"), "pt") == 0);
    CHECK(tt_safetensors_metadata(st, "note") && strcmp(tt_safetensors_metadata(st, "note"), "caf\xC3\xA9 \"q\"") == 0);
    CHECK(tt_safetensors_metadata(st, "empty") && strcmp(tt_safetensors_metadata(st, "empty"), "") == 0);
    CHECK(tt_safetensors_metadata(st, "missing") == NULL);
    CHECK(tt_safetensors_metadata(st, "a") == NULL);         /* a tensor, not metadata */
    CHECK(tt_safetensors_find(st, "__metadata__") == -1);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* count, entry_at (header order), find, get; missing names. */
static void test_listing(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_safetensors_entry e;
    ts_build(&f, "{\"z.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
                 "\"a.weight\":{\"shape\":[2,2],\"data_offsets\":[0,16],\"dtype\":\"F32\"}}", ts_zeros, 24);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK_EQ_INT(tt_safetensors_count(st), 2);
    if (CHECK(tt_safetensors_entry_at(st, 0, &e))) {
        CHECK(strcmp(e.name, "z.bias") == 0);
        CHECK(e.dtype == TT_F32 && strcmp(e.file_dtype, "F32") == 0);
        CHECK_EQ_INT(e.ndim, 1);
        CHECK_EQ_INT(e.shape[0], 2);
        CHECK_EQ_INT((long long)e.offset, 16);
        CHECK_EQ_INT((long long)e.nbytes, 8);
    }
    if (CHECK(tt_safetensors_entry_at(st, 1, &e))) {
        CHECK(strcmp(e.name, "a.weight") == 0);
        CHECK_EQ_INT(e.ndim, 2);
        CHECK_EQ_INT((long long)e.offset, 0);
    }
    CHECK_EQ_INT(tt_safetensors_find(st, "a.weight"), 1);
    CHECK_EQ_INT(tt_safetensors_find(st, "z.bias"), 0);
    CHECK_EQ_INT(tt_safetensors_find(st, "a"), -1);
    CHECK_EQ_INT(tt_safetensors_find(st, ""), -1);
    CHECK_NO_ERROR(c);                                       /* a missing name is an answer, not an error */
    CHECK(tt_safetensors_get(st, "nope") == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_get: name 'nope' is not in the file (it has 2 tensors)");
    CHECK(tt_safetensors_tensor(st, 2) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_tensor: i is 2, the file has 2 tensors");
    CHECK(!tt_safetensors_entry_at(st, -1, &e));
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_entry_at: i is -1");
    CHECK(tt_safetensors_get(st, "a.weight") != NULL);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* Many tensors stored in reverse name order, with their ranges shuffled: the sorts see work. */
static void test_many_tensors(void) {
    static ts_file f;
    static char json[TS_MAX];
    enum { N = 150 };                                       /* about 9 KB of JSON */
    size_t len = 0;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    int k, found = 0;
    len += (size_t)snprintf(json + len, sizeof json - len, "{");
    for (k = 0; k < N; k++) {
        int slot = (k * 7) % N;                              /* 7 and 150 are coprime: a permutation */
        len += (size_t)snprintf(json + len, sizeof json - len, "%s\"t%03d\":{\"dtype\":\"I32\",\"shape\":[],"
                                "\"data_offsets\":[%d,%d]}", k ? "," : "", N - 1 - k, 4 * slot, 4 * slot + 4);
    }
    snprintf(json + len, sizeof json - len, "}");
    CHECK(strlen(json) < TS_MAX - 4 * N - 16);
    ts_build(&f, json, ts_zeros, 4 * N);
    for (k = 0; k < N; k++) ts_put_u32(ts_data(&f) + 4 * ((k * 7) % N), (uint32_t)(N - 1 - k));
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK_EQ_INT(tt_safetensors_count(st), N);
    for (k = 0; k < N; k++) {
        char name[8];
        tt_tensor *t;
        snprintf(name, sizeof name, "t%03d", k);
        t = tt_safetensors_get(st, name);
        if (t && t->ndim == 0 && *(const int32_t *)tt_data(t) == k && tt_safetensors_find(st, name) == N - 1 - k) found++;
    }
    CHECK_EQ_INT(found, N);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* Shape [] is a scalar of one element; a 0 in the shape takes no bytes. */
static void test_scalar_and_empty(void) {
    static ts_file f;
    static const double one[1] = {-0.5};
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_tensor *s, *z, *z2;
    ts_build(&f, "{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
                 "\"z\":{\"dtype\":\"F16\",\"shape\":[0,3],\"data_offsets\":[4,4]},"
                 "\"z2\":{\"dtype\":\"I64\",\"shape\":[3,0],\"data_offsets\":[4,4]}}", ts_zeros, 4);
    ts_put_u32(ts_data(&f), 0xBF000000u);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    s = tt_safetensors_get(st, "s");
    z = tt_safetensors_get(st, "z");
    z2 = tt_safetensors_get(st, "z2");
    if (ts_values_are(c, s, one, 1)) CHECK_EQ_INT(s->ndim, 0);
    if (CHECK(z != NULL)) { CHECK(tu_shape_is(z, 2, 0, 3)); CHECK_EQ_INT(z->numel, 0); }
    if (CHECK(z2 != NULL)) { CHECK(tu_shape_is(z2, 2, 3, 0)); CHECK(z2->dtype == TT_I32); }
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* An empty file: "{}" and no data. */
static void test_no_tensors(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    ts_build_aligned(&f, "{}", NULL, 0, 1);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK(st != NULL);
    CHECK_EQ_INT(tt_safetensors_count(st), 0);
    CHECK_EQ_INT(tt_safetensors_find(st, "x"), -1);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* White space inside the JSON, spaces after it. */
static void test_padding_and_whitespace(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    ts_build_aligned(&f, "{ \"a\" :\n\t{ \"dtype\" : \"F32\" ,\r\n \"shape\" : [ 1 ] , \"data_offsets\" : [ 0 , 4 ] } }"
                     "                ", ts_zeros, 4, 1);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK(st != NULL);
    CHECK_EQ_INT(tt_safetensors_find(st, "a"), 0);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* Escapes in names: \u00e9 -> C3 A9, a surrogate pair -> a 4-byte sequence, the short ones. */
static void test_escaped_names(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    tt_safetensors_entry e;
    ts_build(&f, "{\"caf\\u00e9\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                 "\"smile\\ud83d\\ude00\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                 "\"q\\\"b\\\\s\\/n\\nt\\t\\b\\f\\r\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
                 "\"raw \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]}}",
             ts_zeros, 16);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK_NO_ERROR(c);
    CHECK_EQ_INT(tt_safetensors_find(st, "caf\xC3\xA9"), 0);
    CHECK_EQ_INT(tt_safetensors_find(st, "smile\xF0\x9F\x98\x80"), 1);
    CHECK_EQ_INT(tt_safetensors_find(st, "q\"b\\s/n\nt\t\b\f\r"), 2);
    CHECK_EQ_INT(tt_safetensors_find(st, "raw \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), 3);
    if (CHECK(tt_safetensors_entry_at(st, 1, &e))) CHECK_EQ_INT((long long)strlen(e.name), 9);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------- hostile files */

/* Every prefix of a valid file is refused, none crashes. */
static void test_truncated(void) {
    static ts_file f;
    unsigned char data[24];
    size_t n;
    int refused = 0, wrong = 0;
    tt_ctx *c = tu_ctx();
    ts_f32_data(data);
    ts_build(&f, "{\"__metadata__\":{\"k\":\"v\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}",
             data, sizeof data);
    for (n = 0; n < f.size; n++) {
        unsigned char *copy = (unsigned char *)malloc(n ? n : 1);   /* exactly n bytes: ASan sees reads past them */
        memcpy(copy, f.u.b, n);
        if (tt_safetensors_open_memory(c, copy, n) == NULL && tt_ctx_status(c) == TT_ERR_FORMAT) refused++;
        else wrong++;
        tt_clear_error(c);
        free(copy);
    }
    CHECK_EQ_INT(refused, (long long)f.size);
    CHECK_EQ_INT(wrong, 0);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) != NULL);
    CHECK_NO_ERROR(c);
    CHECK(tt_safetensors_open_memory(c, f.u.b, 3) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "size is 3: fewer than the 8 bytes of the header length");
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size - 1) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "data_offsets [0, 24] run past the end of the data (23 bytes)");
    CHECK(tt_safetensors_open_memory(c, f.u.b, 8 + f.header - 1) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "runs past the end of the file");
    tt_ctx_destroy(c);
}

static void test_header_length(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    ts_build(&f, "{}", NULL, 0);
    ts_put_u64(f.u.b, (uint64_t)f.header + 1);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "runs past the end of the file");
    ts_put_u64(f.u.b, (uint64_t)1 << 63);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "2^63 bytes or more, past the format's limit");
    ts_put_u64(f.u.b, ~(uint64_t)0);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "past the format's limit");
    ts_put_u64(f.u.b, 100000001u);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "header length 100000001 is past the format's limit of 100000000 bytes");
    ts_put_u64(f.u.b, 0u);
    CHECK(tt_safetensors_open_memory(c, f.u.b, 8) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "must start with '{', found the end of the header");
    tt_ctx_destroy(c);
}

#define TS_ENTRY(name, dt, shape, b, e) "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":[" b "," e "]}"
#define TS_A TS_ENTRY("a", "F32", "[1]", "0", "4")

static void test_bad_json(void) {
    CHECK_REFUSED("{" TS_A, 4, "expected ',' or '}', found the end of the header");
    CHECK_REFUSED("{" TS_A ",}", 4, "trailing comma before '}'");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,],\"data_offsets\":[0,4]}}", 4, "trailing comma before ']'");
    CHECK_REFUSED("{" TS_A "}x", 4, "unexpected 'x' after the header's object (only spaces may pad it)");
    CHECK_REFUSED("{" TS_A "}\n", 4, "unexpected byte 10 after the header's object");
    CHECK_REFUSED("{" TS_A "}{}", 4, "after the header's object");
    CHECK_REFUSED("{\"a", 0, "unterminated string");
    CHECK_REFUSED("{\"a\tb\":1}", 0, "control character 9 in a string");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[01],\"data_offsets\":[0,4]}}", 4, "number with a leading zero");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, "tensor 'a': shape holds a negative number");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4, "shape holds a number that is not whole");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}", 4, "not whole");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[true],\"data_offsets\":[0,4]}}", 4, "shape must hold whole numbers, found 't'");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}", 4, "shape must be an array");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,-4]}}", 4, "data_offsets holds a negative number");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, "data_offsets must hold 2 numbers");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4]}}", 4, "data_offsets must hold 2 numbers");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[9223372036854775808],\"data_offsets\":[0,4]}}", 4, "past 2^63 - 1");
    CHECK_REFUSED("{\"a\":{\"dtype\":F32,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "expected a value, found 'F'");
    CHECK_REFUSED("{\"a\":{\"dtype\":null,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "dtype must be a string, found 'n'");
    CHECK_REFUSED("{\"a\":{\"dtype\":nul,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "expected a value");
    CHECK_REFUSED("{\"a\":[1]}", 0, "tensor 'a' must be an object");
    CHECK_REFUSED("{\"a\" 1}", 0, "expected ':' after a key, found '1'");
    CHECK_REFUSED("{1:2}", 0, "expected a string key, found '1'");
    CHECK_REFUSED("[]", 0, "the header must start with '{', found '['");
    CHECK_REFUSED(" {}", 0, "the header must start with '{', found byte 32");
    CHECK_REFUSED("{\"a\\x\":1}", 0, "invalid escape");
    CHECK_REFUSED("{\"a\\u12\":1}", 0, "\\u must be followed by 4 hex digits");
    CHECK_REFUSED("{\"a\\udc00\":1}", 0, "lone low surrogate");
    CHECK_REFUSED("{\"a\\ud800x\":1}", 0, "high surrogate without its low half");
    CHECK_REFUSED("{\"a\\ud800\\u0041\":1}", 0, "high surrogate without its low half");
    CHECK_REFUSED("{\"a\":1.}", 0, "expected a digit after '.'");
    CHECK_REFUSED("{\"a\":1e}", 0, "expected a digit in the exponent");
    CHECK_REFUSED("{\"a\":-}", 0, "expected a digit");
}

/* Arrays nested past TT__JSON_MAX_DEPTH (8) inside the metadata: refused before anything is read. */
static void test_depth_limit(void) {
    CHECK_REFUSED("{\"__metadata__\":{\"k\":[[[[[[[[1]]]]]]]]}}", 0, "nested deeper than 8 levels");
    CHECK_REFUSED("{\"__metadata__\":{\"k\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
                  0, "nested deeper than 8 levels");
    CHECK_REFUSED("{\"__metadata__\":{\"k\":[[[[[[1]]]]]]}}", 0, "__metadata__ value must be a string, found '['");
}

static void test_bad_keys(void) {
    CHECK_REFUSED("{" TS_A "," TS_A "}", 8, "tensor name 'a' appears twice");
    CHECK_REFUSED("{" TS_ENTRY("b", "F32", "[1]", "4", "8") "," TS_A "," TS_ENTRY("b", "F32", "[0]", "8", "8") "}", 8,
                  "tensor name 'b' appears twice");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                  "tensor 'a': key 'dtype' appears twice");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"shape\":[1]}}", 4, "key 'shape' appears twice");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"foo\":1,\"data_offsets\":[0,4]}}", 4, "tensor 'a': unknown key 'foo'");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "tensor 'a' has no data_offsets");
    CHECK_REFUSED("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a' has no dtype");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "tensor 'a' has no shape");
    CHECK_REFUSED("{\"a\":{}}", 0, "tensor 'a' has no dtype");
    CHECK_REFUSED("{\"\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "a tensor has an empty name");
    CHECK_REFUSED("{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                  "a tensor name contains \\u0000");
    CHECK_REFUSED("{\"__metadata__\":{},\"__metadata__\":{}}", 0, "key '__metadata__' appears twice");
    CHECK_REFUSED("{\"__metadata__\":{\"k\":\"1\",\"j\":\"2\",\"k\":\"3\"}}", 0, "__metadata__ key 'k' appears twice");
    CHECK_REFUSED("{\"__metadata__\":{\"k\":1}}", 0, "a __metadata__ value must be a string, found '1'");
    CHECK_REFUSED("{\"__metadata__\":[]}", 0, "__metadata__ must be an object of strings, found '['");
    CHECK_REFUSED("{\"__metadata__\":{\"k\":\"a\\u0000\"}}", 0, "a __metadata__ value contains \\u0000");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F7\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a': unknown dtype 'F7'");
    CHECK_REFUSED("{\"a\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "unknown dtype 'f32'");
}

static void test_bad_utf8(void) {
    CHECK_REFUSED("{\"a\xC0\xAF\":1}", 0, "invalid UTF-8 in a string (a sequence starting with byte 192)");
    CHECK_REFUSED("{\"a\xFF\":1}", 0, "invalid UTF-8 in a string (a sequence starting with byte 255)");
    CHECK_REFUSED("{\"a\xED\xA0\x80\":1}", 0, "invalid UTF-8");                  /* U+D800 encoded */
    CHECK_REFUSED("{\"a\xE2\x82" "\":1}", 0, "invalid UTF-8");                     /* cut 3-byte sequence */
    CHECK_REFUSED("{\"a\xE0\x80\x80\":1}", 0, "invalid UTF-8");                   /* overlong NUL */
    CHECK_REFUSED("{\"a\xF4\x90\x80\x80\":1}", 0, "invalid UTF-8");               /* past U+10FFFF */
    CHECK_REFUSED("{\"a\x80\":1}", 0, "invalid UTF-8");                           /* lone continuation */
    CHECK_REFUSED("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"\xF0\x9F\x98", 4, "invalid UTF-8");
}

static void test_bad_ranges(void) {
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[2]", "0", "8") "," TS_ENTRY("b", "F32", "[2]", "4", "12") "}", 12,
                  "tensors 'a' and 'b' overlap: data_offsets [0, 8] and [4, 12]");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "0", "4") "," TS_ENTRY("b", "F32", "[1]", "0", "4") "}", 4, "overlap");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[2]", "0", "8") "," TS_ENTRY("z", "F32", "[0]", "4", "4") "}", 8, "overlap");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "0", "4") "," TS_ENTRY("b", "F32", "[1]", "8", "12") "}", 12,
                  "a hole: bytes 4..8 of the data belong to no tensor (before 'b')");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "4", "8") "}", 8, "a hole: bytes 0..4");
    CHECK_REFUSED("{" TS_A "}", 8, "a hole: bytes 4..8 of the data (after the last tensor)");
    CHECK_REFUSED("{}", 1, "a hole: bytes 0..1");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "4", "8") "}", 4, "data_offsets [4, 8] run past the end of the data (4 bytes)");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "0", "9223372036854775807") "}", 4, "run past the end of the data");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[1]", "8", "4") "}", 8, "data_offsets [8, 4] begin after they end");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[2]", "0", "4") "}", 4, "tensor 'a': data_offsets [0, 4] hold 4 bytes, its F32 shape [2] needs 8");
    CHECK_REFUSED("{" TS_ENTRY("a", "I64", "[5,6]", "0", "100") "}", 100, "hold 100 bytes, its I64 shape [5,6] needs 240");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[4294967296,4294967296]", "0", "0") "}", 0, "shape [4294967296,4294967296] has more than 2^59 elements");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[0,4294967296,4294967296]", "0", "0") "}", 0, "more than 2^59 elements");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[9223372036854775807]", "0", "0") "}", 0, "more than 2^59 elements");
    CHECK_REFUSED("{" TS_ENTRY("a", "F32", "[576460752303423488]", "0", "0") "}", 0, "more than 2^59 elements");
    CHECK_REFUSED("{" TS_ENTRY("a", "F4", "[3]", "0", "1") "}", 1, "3 elements of F4 are not a whole number of bytes");
}

/* More dims than TT_MAX_DIMS: refused at open, as unsupported rather than malformed. */
static void test_too_many_dims(void) {
    static ts_file f;
    tt_ctx *c = tu_ctx();
    char json[256];
    snprintf(json, sizeof json, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}");
    ts_build(&f, json, ts_zeros, 4);
    if (TT_MAX_DIMS < 9) {
        CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
        CHECK_ERROR(c, TT_ERR_UNSUPPORTED, "tensor 'a' has more than 8 dims");
    }
    ts_build(&f, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", ts_zeros, 4);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) != NULL);
    CHECK_NO_ERROR(c);
    tt_ctx_destroy(c);
}

/* ---------------------------------------------------------------- files, memory, arguments */

/* A name in /tmp no other run of the suite uses at the same time (tu_tmp_path). */
static void ts_tmp_path(char *buf, size_t size, int k) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_%d.safetensors", k);
    tu_tmp_path(buf, size, suffix);
}

static void test_open_file(void) {
    static ts_file f;
    unsigned char data[24];
    char path[128];
    FILE *fp = NULL;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    int k;
    ts_f32_data(data);
    ts_build(&f, "{\"__metadata__\":{\"format\":\"pt\"},\"w\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
             data, sizeof data);
    for (k = 0; k < 100 && !fp; k++) {
        FILE *old;
        ts_tmp_path(path, sizeof path, k);
        old = fopen(path, "rb");
        if (old) { fclose(old); continue; }
        fp = fopen(path, "wb");
    }
    if (!CHECK(fp != NULL)) { tt_ctx_destroy(c); return; }
    CHECK(fwrite(f.u.b, 1, f.size, fp) == f.size);
    fclose(fp);
    st = tt_safetensors_open(c, path);
    remove(path);
    CHECK(st != NULL);
    CHECK(ts_values_are(c, tt_safetensors_get(st, "w"), ts_f32_vals, 6));
    CHECK(tt_safetensors_metadata(st, "format") && strcmp(tt_safetensors_metadata(st, "format"), "pt") == 0);
    CHECK_NO_ERROR(c);
    CHECK(tt_safetensors_open(c, path) == NULL);             /* removed now */
    CHECK_ERROR(c, TT_ERR_IO, "tt_safetensors_open: cannot open path '/tmp/tinytrace_test_");
    CHECK(tt_safetensors_open(c, NULL) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_open: path is NULL");
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

/* A context over a user buffer (what TT_NO_MALLOC builds use). Buffers from too small to
   big enough: each open and read either works or fails with TT_ERR_OOM naming the function. */
static void test_user_buffer(void) {
    static union { unsigned char b[32 * 1024]; double d; } mem;
    static ts_file f;
    unsigned char data[24];
    tt_ctx_desc d = tt_ctx_desc_default();
    size_t size;
    int oom = 0, opened = 0, other = 0;
    ts_f32_data(data);
    ts_build(&f, ts_f32_json, data, sizeof data);
    d.mem_buffer = mem.b;
    for (size = TT_CTX_OVERHEAD; size <= TT_CTX_OVERHEAD + 2048; size += 64) {
        tt_ctx *c;
        tt_safetensors *st;
        tt_tensor *t;
        d.mem_size = size;
        c = tt_ctx_create(&d);
        if (!c) continue;
        st = tt_safetensors_open_memory(c, f.u.b, f.size);
        t = st ? tt_safetensors_tensor(st, 0) : NULL;
        if (t && ts_values_are(c, t, ts_f32_vals, 6)) opened++;
        else if (tt_ctx_status(c) == TT_ERR_OOM && strstr(tt_error(c), st ? "tt_safetensors_tensor: out of memory"
                                                                       : "tt_safetensors_open_memory: out of memory")) oom++;
        else other++;
        tt_ctx_destroy(c);
    }
    CHECK(oom > 0);
    CHECK(opened > 0);
    CHECK_EQ_INT(other, 0);
}

/* Memory goes with a scope opened before; a refused file keeps none. */
static void test_scope_and_memory(void) {
    static ts_file f;
    unsigned char data[24];
    tt_ctx *c = tu_ctx();
    size_t used = tt_ctx_used(c);
    tt_scope s = tt_scope_begin(c);
    ts_f32_data(data);
    ts_build(&f, ts_f32_json, data, sizeof data);
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) != NULL);
    CHECK(tt_ctx_used(c) > used);
    tt_scope_end(c, s);
    CHECK_EQ_INT((long long)tt_ctx_used(c), (long long)used);
    ts_put_u32(ts_data(&f) - 4, 0x78787878u);              /* "xxxx": the padding is no longer spaces */
    CHECK(tt_safetensors_open_memory(c, f.u.b, f.size) == NULL);
    CHECK_ERROR(c, TT_ERR_FORMAT, "after the header's object");
    CHECK_EQ_INT((long long)tt_ctx_used(c), (long long)used);
    CHECK_GUARDS(c);
    tt_ctx_destroy(c);
}

static void test_null_arguments(void) {
    static ts_file f;
    tt_safetensors_entry e;
    tt_ctx *c = tu_ctx();
    tt_safetensors *st;
    CHECK(tt_safetensors_open_memory(NULL, "x", 1) == NULL);
    CHECK(tt_safetensors_open(NULL, "x") == NULL);
    CHECK(tt_safetensors_open_memory(c, NULL, 8) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_open_memory: buf is NULL");
    CHECK_EQ_INT(tt_safetensors_count(NULL), 0);
    CHECK_EQ_INT(tt_safetensors_find(NULL, "a"), -1);
    CHECK(!tt_safetensors_entry_at(NULL, 0, &e));
    CHECK(tt_safetensors_tensor(NULL, 0) == NULL);
    CHECK(tt_safetensors_get(NULL, "a") == NULL);
    CHECK(tt_safetensors_metadata(NULL, "a") == NULL);
    CHECK_NO_ERROR(c);
    ts_build(&f, "{" TS_A "}", ts_zeros, 4);
    st = tt_safetensors_open_memory(c, f.u.b, f.size);
    CHECK(st != NULL);
    CHECK_EQ_INT(tt_safetensors_find(st, NULL), -1);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_find: name is NULL");
    CHECK(tt_safetensors_get(st, NULL) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_get: name is NULL");
    CHECK(tt_safetensors_metadata(st, NULL) == NULL);
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_metadata: key is NULL");
    CHECK(!tt_safetensors_entry_at(st, 0, NULL));
    CHECK_ERROR(c, TT_ERR_ARG, "tt_safetensors_entry_at: entry is NULL");
    tt_ctx_destroy(c);
}

TT_TEST_GROUP(safetensors) = {
    {"f32_zero_copy", test_f32_zero_copy},
    {"f32_copy_when_misaligned", test_f32_copy_when_misaligned},
    {"f16_bf16", test_f16_bf16},
    {"i32", test_i32},
    {"i64_narrowed", test_i64_narrowed},
    {"i64_out_of_range", test_i64_out_of_range},
    {"other_dtypes_listed", test_other_dtypes_listed},
    {"metadata", test_metadata},
    {"listing", test_listing},
    {"many_tensors", test_many_tensors},
    {"scalar_and_empty", test_scalar_and_empty},
    {"no_tensors", test_no_tensors},
    {"padding_and_whitespace", test_padding_and_whitespace},
    {"escaped_names", test_escaped_names},
    {"truncated", test_truncated},
    {"header_length", test_header_length},
    {"bad_json", test_bad_json},
    {"depth_limit", test_depth_limit},
    {"bad_keys", test_bad_keys},
    {"bad_utf8", test_bad_utf8},
    {"bad_ranges", test_bad_ranges},
    {"too_many_dims", test_too_many_dims},
    {"open_file", test_open_file},
    {"user_buffer", test_user_buffer},
    {"scope_and_memory", test_scope_and_memory},
    {"null_arguments", test_null_arguments},
    {NULL, NULL}
};
