/* fuzz_safetensors.c - hostile bytes for the safetensors reader (tt_safetensors_*).

   fz_safetensors_one(data, size) opens the bytes with tt_safetensors_open_memory in a fresh
   context (guard regions on, one thread) and checks:

   - a refused file left a TT_ERR_FORMAT (or TT_ERR_UNSUPPORTED: too many dims) error whose
     message starts with "tt_safetensors_open_memory: ", and took no arena memory;
   - an opened file: every entry has a non-empty name that tt_safetensors_find finds again,
     its byte range lies inside the data buffer (offset + nbytes <= size - 8 - N, with N read
     here from the first 8 bytes), its size is shape x element size for the dtypes read, and
     the ranges add up to the whole data buffer (they tile it);
   - every tensor is read: dtypes tinytrace reads give a tensor of the entry's shape whose
     elements are summed as f32 (touching every byte; I64 may instead fail with
     TT_ERR_INDEX), others fail with TT_ERR_UNSUPPORTED;
   - no guard region of the context was overwritten.
   It returns 1 for an opened file, 0 for a refused one, -1 when an invariant broke (and
   prints which). The sanitizers catch reads outside the bytes and undefined behaviour.

   Built with -DTT_LIBFUZZER it is a libFuzzer target that aborts on -1:
       clang -std=c11 -O1 -g -DTT_LIBFUZZER -fsanitize=fuzzer,address,undefined \
             -fno-sanitize-recover=all tests/fuzz_safetensors.c -o fuzz_safetensors -lm -lpthread
       ./fuzz_safetensors -max_len=4096 -dict=tests/corpus/safetensors.dict tests/corpus/safetensors/
   fz_st_seed(k, ...) builds seed k byte by byte (valid files of every dtype, metadata,
   escapes, padding); tests/corpus/safetensors/ holds the same seeds as files, and
   tests/test_fuzz_safetensors.c replays them and deterministic mutants in the suite. */
#ifdef TT_LIBFUZZER
#define TINYTRACE_IMPLEMENTATION
#endif
#include "../tinytrace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_ST_PREFIX "tt_safetensors_open_memory: "

/* ---- the invariants ---------------------------------------------------------------- */

static int fz_st_broke(const char *what, const char *detail) {
    printf("    fuzz_safetensors: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return -1;
}

/* Bits per element of the file's dtype names that the checks below know. */
static int fz_st_bits(const char *dt) {
    static const char *const names[] = {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "U16", "U32",
                                        "U64", "BOOL", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "C64"};
    static const int bits[] = {64, 32, 16, 16, 64, 32, 16, 8, 8, 16, 32, 64, 8, 8, 8, 8, 6, 6, 4, 64};
    size_t k;
    for (k = 0; k < sizeof bits / sizeof bits[0]; k++)
        if (strcmp(names[k], dt) == 0) return bits[k];
    return -1;
}

static volatile double fz_st_sink;    /* the sums go here, so the reads are not optimized away */

/* The tensor has the entry's shape; its elements summed as f32 (every byte read). */
static int fz_st_read(tt_ctx *c, const tt_safetensors_entry *e, const tt_tensor *t) {
    float *v;
    double sum = 0;
    int64_t k;
    int d;
    if (t->ndim != e->ndim || t->dtype != e->dtype) return fz_st_broke("tensor differs from its entry", e->name);
    for (d = 0; d < e->ndim; d++)
        if (t->shape[d] != e->shape[d]) return fz_st_broke("tensor shape differs from its entry", e->name);
    v = (float *)malloc(sizeof(float) * (size_t)(t->numel > 0 ? t->numel : 1));
    if (!v) return fz_st_broke("out of memory", NULL);
    if (tt_copy_to_f32(c, t, v, t->numel) != TT_OK) { free(v); return fz_st_broke("tt_copy_to_f32 failed", tt_error(c)); }
    for (k = 0; k < t->numel; k++) sum += (double)v[k];
    free(v);
    fz_st_sink = sum;                               /* NaN and inf are fine: the bytes are random */
    return 0;
}

/* One entry: its name, range and size; then its tensor. */
static int fz_st_entry(tt_ctx *c, tt_safetensors *st, int i, size_t data_size, size_t *covered) {
    tt_safetensors_entry e;
    tt_tensor *t;
    int bits;
    if (!tt_safetensors_entry_at(st, i, &e)) return fz_st_broke("entry_at failed", tt_error(c));
    if (!e.name || !e.name[0] || !e.file_dtype) return fz_st_broke("entry without a name or dtype", NULL);
    if (tt_safetensors_find(st, e.name) != i) return fz_st_broke("find does not give the entry back", e.name);
    if (e.ndim < 0 || e.ndim > TT_MAX_DIMS) return fz_st_broke("entry ndim out of range", e.name);
    if (e.offset > data_size || e.nbytes > data_size - e.offset) return fz_st_broke("entry range past the data", e.name);
    bits = fz_st_bits(e.file_dtype);
    if (bits < 0) return fz_st_broke("unknown file dtype listed", e.file_dtype);
    {
        uint64_t n = 1;
        int d;
        for (d = 0; d < e.ndim; d++) n *= (uint64_t)e.shape[d];        /* fits: checked at open */
        if (n * (uint64_t)bits != 8 * (uint64_t)e.nbytes) return fz_st_broke("entry size is not shape x dtype", e.name);
    }
    *covered += e.nbytes;
    t = tt_safetensors_tensor(st, i);
    if (e.dtype == TT_DTYPE_COUNT) {
        if (t || tt_ctx_status(c) != TT_ERR_UNSUPPORTED) return fz_st_broke("unread dtype not refused", e.file_dtype);
        tt_clear_error(c);
        return 0;
    }
    if (!t && strcmp(e.file_dtype, "I64") == 0 && tt_ctx_status(c) == TT_ERR_INDEX) {
        tt_clear_error(c);
        return 0;
    }
    if (!t) return fz_st_broke("tensor of a read dtype failed", tt_error(c));
    return fz_st_read(c, &e, t);
}

/* What an opened file must satisfy. */
static int fz_st_opened(tt_ctx *c, tt_safetensors *st, const uint8_t *data, size_t size) {
    uint64_t n = 0;
    size_t data_size, covered = 0;
    int i, k;
    for (k = 7; k >= 0; k--) n = n << 8 | data[k];                      /* opened: size >= 8 + n */
    data_size = size - 8 - (size_t)n;
    if (tt_safetensors_count(st) < 0) return fz_st_broke("negative count", NULL);
    for (i = 0; i < tt_safetensors_count(st); i++)
        if (fz_st_entry(c, st, i, data_size, &covered) < 0) return -1;
    if (covered != data_size) return fz_st_broke("the ranges do not tile the data", NULL);
    if (tt_safetensors_find(st, "\x01 no such tensor") != -1) return fz_st_broke("found a missing name", NULL);
    (void)tt_safetensors_metadata(st, "format");
    if (tt_ctx_status(c) != TT_OK) return fz_st_broke("an error after reading", tt_error(c));
    return 1;
}

int fz_safetensors_one(const uint8_t *data, size_t size);

int fz_safetensors_one(const uint8_t *data, size_t size) {
    static const uint8_t empty[1] = {0};
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c;
    tt_safetensors *st;
    size_t used;
    int r;
    d.debug_guards = 1;
    d.n_threads = 1;
    c = tt_ctx_create(&d);
    if (!c) return fz_st_broke("tt_ctx_create failed", NULL);
    used = tt_ctx_used(c);
    st = tt_safetensors_open_memory(c, size ? data : empty, size);
    if (st) {
        r = fz_st_opened(c, st, data, size);
    } else if (tt_ctx_status(c) != TT_ERR_FORMAT && tt_ctx_status(c) != TT_ERR_UNSUPPORTED) {
        r = fz_st_broke("refused with a status other than TT_ERR_FORMAT", tt_error(c));
    } else if (strncmp(tt_error(c), FZ_ST_PREFIX, strlen(FZ_ST_PREFIX)) != 0 || strlen(tt_error(c)) >= 256) {
        r = fz_st_broke("message without the function's name", tt_error(c));
    } else {
        r = tt_ctx_used(c) == used ? 0 : fz_st_broke("a refused file kept memory", NULL);
    }
    if (!tt_ctx_check_guards(c)) r = fz_st_broke("a guard region was overwritten", tt_error(c));
    tt_ctx_destroy(c);
    return r;
}

/* ---- seeds ------------------------------------------------------------------------- */
#ifndef TT_LIBFUZZER

#define FZ_ST_SEEDS 10

static void fz_st_u64(uint8_t *p, uint64_t v) {
    int k;
    for (k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k) & 0xFF);
}

/* A file from its JSON and data; the header padded with spaces to a multiple of pad
   (8 + N), as writers do. Returns its size, 0 when cap is too small. */
static size_t fz_st_file(uint8_t *buf, size_t cap, const char *json, const uint8_t *data, size_t n, size_t pad) {
    size_t len = strlen(json), header = len;
    while ((8 + header) % pad) header++;
    if (8 + header + n > cap) return 0;
    fz_st_u64(buf, (uint64_t)header);
    memcpy(buf + 8, json, len);
    memset(buf + 8 + len, ' ', header - len);
    if (n) memcpy(buf + 8 + header, data, n);
    return 8 + header + n;
}

/* Seed k (0 <= k < FZ_ST_SEEDS) into buf: a valid file, each exercising other parts.
   The data bytes are a fixed pattern (values do not matter to the parser). */
static size_t fz_st_seed(int k, uint8_t *buf, size_t cap) {
    uint8_t data[256];
    char json[1024];
    int i;
    size_t len = 0;
    for (i = 0; i < 256; i++) data[i] = (uint8_t)(i * 37 + 11);
    switch (k) {
    case 0:
        return fz_st_file(buf, cap, "{\"__metadata__\":{\"format\":\"pt\"},\"fc.weight\":{\"dtype\":\"F32\","
                          "\"shape\":[2,3],\"data_offsets\":[0,24]},\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[2],"
                          "\"data_offsets\":[24,32]}}", data, 32, 8);
    case 1:
        return fz_st_file(buf, cap, "{\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
                          "\"b\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[8,16]}}", data, 16, 8);
    case 2:
        fz_st_u64(data + 12, 5u);
        fz_st_u64(data + 20, 0xFFFFFFFFFFFFFFF9ull);
        return fz_st_file(buf, cap, "{\"i\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]},"
                          "\"pos\":{\"dtype\":\"I64\",\"shape\":[2,1],\"data_offsets\":[12,28]}}", data, 28, 8);
    case 3:
        return fz_st_file(buf, cap, "{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
                          "\"z\":{\"dtype\":\"F16\",\"shape\":[0,3],\"data_offsets\":[4,4]}}", data, 4, 8);
    case 4:
        return fz_st_file(buf, cap, "{\"d\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]},"
                          "\"u\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[16,19]},"
                          "\"m\":{\"dtype\":\"BOOL\",\"shape\":[1],\"data_offsets\":[19,20]},"
                          "\"q\":{\"dtype\":\"F8_E4M3\",\"shape\":[4],\"data_offsets\":[20,24]}}", data, 24, 8);
    case 5:
        return fz_st_file(buf, cap, "{ \"caf\\u00e9\" : { \"dtype\" : \"F32\",\n\t\"shape\" : [ 1 ],"
                          " \"data_offsets\" : [ 0 , 4 ] } , \"s\\ud83d\\ude00\\n\\\"\":{\"dtype\":\"BF16\","
                          "\"shape\":[1],\"data_offsets\":[4,6]}}", data, 6, 16);
    case 6:
        return fz_st_file(buf, cap, "{}", data, 0, 1);
    case 7:
        len += (size_t)snprintf(json + len, sizeof json - len, "{");
        for (i = 0; i < 10; i++)
            len += (size_t)snprintf(json + len, sizeof json - len, "%s\"layer.%d\":{\"dtype\":\"F16\",\"shape\":[2],"
                                    "\"data_offsets\":[%d,%d]}", i ? "," : "", 9 - i, 4 * i, 4 * i + 4);
        snprintf(json + len, sizeof json - len, "}");
        return fz_st_file(buf, cap, json, data, 40, 8);
    case 8:
        fz_st_u64(data, 0x80000000ull);                    /* opens; its tensor is TT_ERR_INDEX */
        return fz_st_file(buf, cap, "{\"__metadata__\":{\"a\":\"1\",\"b\":\"\"},\"ids\":{\"dtype\":\"I64\","
                          "\"shape\":[1],\"data_offsets\":[0,8]}}", data, 8, 8);
    default:
        return fz_st_file(buf, cap, "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
                          data, 12, 1);                  /* unpadded: the data is not aligned */
    }
}

#ifdef FZ_ST_WRITE_SEEDS
/* cc -std=c99 -DFZ_ST_WRITE_SEEDS -DTINYTRACE_IMPLEMENTATION tests/fuzz_safetensors.c -o seeds -lm -lpthread
   ./seeds tests/corpus/safetensors   (writes seed_0.safetensors ... ) */
int main(int argc, char **argv) {
    uint8_t buf[4096];
    int k;
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    for (k = 0; k < FZ_ST_SEEDS; k++) {
        char path[512];
        size_t n = fz_st_seed(k, buf, sizeof buf);
        FILE *f;
        snprintf(path, sizeof path, "%s/seed_%d.safetensors", argv[1], k);
        f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, n, f) != n || fz_safetensors_one(buf, n) != 1) { fprintf(stderr, "seed %d failed\n", k); return 1; }
        fclose(f);
    }
    return 0;
}
#endif
#endif /* !TT_LIBFUZZER */

#ifdef TT_LIBFUZZER
#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fz_safetensors_one(data, size) < 0) abort();
    return 0;
}
#endif
