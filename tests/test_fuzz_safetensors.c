/* test_fuzz_safetensors.c - a fixed-seed slice of the safetensors fuzzer (tests/fuzz_safetensors.c).

   Every seed (valid files built byte by byte by fz_st_seed) must open and pass the
   invariants; then FS_MUTANTS deterministic mutants of them (bytes flipped or set to JSON
   punctuation, spans deleted, inserted or duplicated, truncations; most keep the 8-byte
   header length in step so the parser sees them) go through fz_safetensors_one. None may
   break an invariant, and both outcomes must occur: some mutants open, some are refused.
   Each mutant sits in a buffer of exactly its size, so ASan sees any read past it. */
#include "tt_test.h"
#include "fuzz_safetensors.c"

#define FS_MUTANTS 3000
#define FS_CAP     4096

typedef struct fs_rng { uint64_t s; } fs_rng;

static uint32_t fs_next(fs_rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 32);
}

static size_t fs_below(fs_rng *r, size_t n) { return n ? (size_t)fs_next(r) % n : 0; }

/* The header length field grows or shrinks by delta when the edit at `at` lies inside it. */
static void fs_fix_length(uint8_t *buf, size_t size, size_t at, long delta) {
    uint64_t n = 0;
    int k;
    if (size < 8) return;
    for (k = 7; k >= 0; k--) n = n << 8 | buf[k];
    if (at < 8 || at > 8 + n) return;
    n = (uint64_t)((int64_t)n + delta);
    for (k = 0; k < 8; k++) buf[k] = (uint8_t)(n >> (8 * k) & 0xFF);
}

/* One edit of buf (size bytes, at most FS_CAP); returns the new size. */
static size_t fs_mutate(fs_rng *r, uint8_t *buf, size_t size, int keep_length) {
    static const uint8_t bytes[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '0', '9', '-', ' ', 'u', 'e', '.',
                                    0x00, 0xFF, 0x80, 0xC3, 0xED, 0xF0, '1'};
    size_t at = fs_below(r, size + 1), span = 1 + fs_below(r, 8);
    switch (fs_next(r) % 6) {
    case 0:                                              /* flip bits */
        if (at < size) buf[at] ^= (uint8_t)(1u << (fs_next(r) % 8));
        return size;
    case 1:                                              /* a byte the JSON grammar cares about */
        if (at < size) buf[at] = bytes[fs_below(r, sizeof bytes)];
        return size;
    case 2:                                              /* delete a span */
        if (span > size - at) span = size - at;
        memmove(buf + at, buf + at + span, size - at - span);
        if (keep_length) fs_fix_length(buf, size - span, at, -(long)span);
        return size - span;
    case 3:                                              /* insert a byte */
        if (size >= FS_CAP) return size;
        memmove(buf + at + 1, buf + at, size - at);
        buf[at] = bytes[fs_below(r, sizeof bytes)];
        if (keep_length) fs_fix_length(buf, size + 1, at, 1);
        return size + 1;
    case 4: {                                            /* duplicate a span in place */
        size_t from = fs_below(r, size + 1);
        if (span > size - from) span = size - from;
        if (size + span > FS_CAP) return size;
        memmove(buf + at + span, buf + at, size - at);
        memmove(buf + at, buf + (from < at ? from : from + span), span);
        if (keep_length) fs_fix_length(buf, size + span, at, (long)span);
        return size + span;
    }
    default:                                             /* truncate */
        return at;
    }
}

static void test_seeds_open(void) {
    static uint8_t buf[FS_CAP];
    int k, opened = 0;
    for (k = 0; k < FZ_ST_SEEDS; k++) {
        size_t n = fz_st_seed(k, buf, sizeof buf);
        uint8_t *exact = (uint8_t *)malloc(n);
        if (!CHECK(n > 0 && exact != NULL)) { free(exact); continue; }
        memcpy(exact, buf, n);
        if (fz_safetensors_one(exact, n) == 1) opened++;
        else printf("    seed %d (%d bytes) did not open\n", k, (int)n);
        free(exact);
    }
    CHECK_EQ_INT(opened, FZ_ST_SEEDS);
}

static void test_mutants(void) {
    static uint8_t buf[FS_CAP];
    fs_rng r;
    int m, opened = 0, refused = 0, broke = 0;
    r.s = 0x9E3779B97F4A7C15ull;
    for (m = 0; m < FS_MUTANTS; m++) {
        size_t n = fz_st_seed((int)fs_below(&r, FZ_ST_SEEDS), buf, sizeof buf);
        int edits = 1 + (int)fs_below(&r, 4), keep = fs_below(&r, 4) != 0, e, res;
        uint8_t *exact;
        for (e = 0; e < edits; e++) n = fs_mutate(&r, buf, n, keep);
        exact = (uint8_t *)malloc(n ? n : 1);
        if (!exact) continue;
        memcpy(exact, buf, n);
        res = fz_safetensors_one(exact, n);
        free(exact);
        if (res == 1) opened++;
        else if (res == 0) refused++;
        else { printf("    mutant %d (%d bytes) broke an invariant\n", m, (int)n); broke++; }
    }
    CHECK_EQ_INT(broke, 0);
    CHECK(opened > 0);
    CHECK(refused > 0);
    if (opened <= 0 || refused <= 0) printf("    %d mutants opened, %d were refused\n", opened, refused);
}

TT_TEST_GROUP(fuzz_safetensors) = {
    {"seeds_open", test_seeds_open},
    {"mutants", test_mutants},
    {NULL, NULL}
};
