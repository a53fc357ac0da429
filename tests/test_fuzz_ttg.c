/* test_fuzz_ttg.c - a fixed-seed slice of the graph-file fuzzer (tests/fuzz_ttg.c).

   The seed graphs are built in memory (the same code that writes the fuzzer's corpus) and
   each must load. Then deterministic xorshift mutations of the seeds (flipped bytes,
   truncations, inserted and duplicated spans, 32/64-bit fields set to 0, 1, -1, 2^31, 2^63)
   go through fz_ttg_one with their CRC fixed up: none may break an invariant, and some must
   load while others are refused. Kept to a few seconds under ASan+UBSan. */
#include "tt_test.h"
#include "fuzz_ttg.c"

#define FT_MUTANTS 2400             /* mutated files in the slice */

static uint64_t ft_next(uint64_t *s) {
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* One mutation of buf (n bytes, room for cap) chosen by the stream; the new length. */
static size_t ft_mutate(uint8_t *buf, size_t n, size_t cap, uint64_t *s) {
    static const uint64_t interesting[] = { 0, 1, UINT64_MAX, (uint64_t)1 << 31, (uint64_t)1 << 63, 0xFFFFFFFFu, 64, 128 };
    uint64_t r = ft_next(s);
    size_t at = n ? (size_t)(ft_next(s) % n) : 0, len, k;
    switch (r % 6) {
    case 0:                                            /* flip a byte */
        if (n) buf[at] ^= (uint8_t)(1u + ft_next(s) % 255);
        return n;
    case 1:                                            /* truncate */
        return at;
    case 2:                                            /* insert a span of random bytes */
        len = 1 + (size_t)(ft_next(s) % 32);
        if (n + len > cap) return n;
        memmove(buf + at + len, buf + at, n - at);
        for (k = 0; k < len; k++) buf[at + k] = (uint8_t)ft_next(s);
        return n + len;
    case 3:                                            /* duplicate a span */
        len = 1 + (size_t)(ft_next(s) % 64);
        if (at + len > n || n + len > cap) return n;
        memmove(buf + at + len, buf + at, n - at);
        return n + len;
    default: {                                         /* a 32- or 64-bit field, aligned, set */
        uint64_t v = interesting[ft_next(s) % (sizeof interesting / sizeof interesting[0])];
        size_t w = r % 6 == 4 ? 4 : 8;
        at = at / w * w;
        if (at + w > n) return n;
        for (k = 0; k < w; k++) buf[at + k] = (uint8_t)(v >> (8 * k));
        return n;
    }
    }
}

static void test_seeds_load(void) {
    int k;
    for (k = 0; k < FZ_TTG_N_SEEDS; k++) {
        size_t n;
        uint8_t *buf = fz_ttg_seed_bytes(k, &n);
        long before = fz_ttg_loaded;
        CHECK(buf != NULL);
        if (!buf) continue;
        CHECK(n < 8192);
        CHECK_EQ_INT(fz_ttg_one(buf, n), 0);
        if (!CHECK(fz_ttg_loaded == before + 1)) printf("    seed %d does not load\n", k);
        free(buf);
    }
}

static void test_mutations(void) {
    uint8_t *seeds[FZ_TTG_N_SEEDS];
    size_t sizes[FZ_TTG_N_SEEDS];
    uint8_t *buf = (uint8_t *)malloc(16384);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    long loaded0 = fz_ttg_loaded, refused0 = fz_ttg_refused;
    int k, i, bad = 0;
    for (k = 0; k < FZ_TTG_N_SEEDS; k++) seeds[k] = fz_ttg_seed_bytes(k, &sizes[k]);
    for (i = 0; buf && i < FT_MUTANTS; i++) {
        int seed = i % FZ_TTG_N_SEEDS, m, n_mut = 1 + (int)(ft_next(&s) % 3);
        size_t n = sizes[seed];
        if (!seeds[seed] || n > 16384) continue;
        memcpy(buf, seeds[seed], n);
        for (m = 0; m < n_mut; m++) n = ft_mutate(buf, n, 16384, &s);
        if (n >= 4) buf[n - 1] |= 1;                   /* the CRC's last byte: fz_ttg_one fixes it up */
        if (fz_ttg_one(buf, n)) { printf("    mutant %d (of seed %d, %d bytes) broke an invariant\n", i, seed, (int)n); bad++; }
    }
    printf("    fuzz_ttg slice: %d mutants, %ld loaded, %ld refused, %ld run\n", FT_MUTANTS,
           fz_ttg_loaded - loaded0, fz_ttg_refused - refused0, fz_ttg_ran);
    CHECK_EQ_INT(bad, 0);
    CHECK(fz_ttg_loaded - loaded0 > 0);
    CHECK(fz_ttg_refused - refused0 > 0);
    for (k = 0; k < FZ_TTG_N_SEEDS; k++) free(seeds[k]);
    free(buf);
}

TT_TEST_GROUP(fuzz_ttg) = {
    {"seeds_load", test_seeds_load},
    {"mutations", test_mutations},
    {NULL, NULL}
};
