/* test_fuzz_ops.c - a fixed-seed slice of the differential fuzzer (tests/fuzz_ops.c).

   FZ_SLICE_PROGRAMS byte strings from a xorshift stream with fixed seeds, each decoded into
   a random tensor program that runs eagerly and as a traced, compiled graph (see
   fuzz_ops.c): no program may give a mismatch. The same byte strings every run, so a
   failure here reproduces; the printout names the program, passes and first differing
   element. Kept to a few seconds under ASan+UBSan; the open-ended search is the libFuzzer
   build of fuzz_ops.c. */
#include "tt_test.h"
#include "fuzz_ops.c"

#define FZ_SLICE_PROGRAMS 400

/* Fills buf with n bytes of a xorshift64 stream started from seed. */
static void fz_slice_bytes(uint8_t *buf, size_t n, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    size_t i;
    for (i = 0; i < n; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        buf[i] = (uint8_t)(s >> 32);
    }
}

static void test_fuzz_slice(void) {
    uint8_t buf[192];
    int k, mismatches = 0;
    memset(&fz_stat, 0, sizeof fz_stat);
    for (k = 0; k < FZ_SLICE_PROGRAMS; k++) {
        size_t n = 24 + (size_t)(k * 37) % (sizeof buf - 24);   /* lengths 24..191: short ones run out of bytes */
        fz_slice_bytes(buf, n, (uint64_t)k + 1);
        if (fz_ops_one(buf, n)) { printf("    (slice program %d)\n", k); mismatches++; }
    }
    printf("    fuzz_ops slice: %ld programs (%ld valid, %ld invalid), %ld ops, %ld graph runs, "
           "%ld outputs compared (%ld with a tolerance), %ld graphs saved and loaded\n", fz_stat.programs, fz_stat.valid,
           fz_stat.invalid, fz_stat.ops, fz_stat.graphs_run, fz_stat.compares, fz_stat.approx, fz_stat.reloaded);
    CHECK_EQ_INT(mismatches, 0);
    CHECK(fz_stat.valid > FZ_SLICE_PROGRAMS / 2);          /* the generator mostly makes valid programs */
    CHECK(fz_stat.invalid > 0);
    CHECK(fz_stat.reloaded > FZ_SLICE_PROGRAMS / 4);       /* most valid programs went through a .ttg file */
}

TT_TEST_GROUP(fuzz_ops) = {
    {"slice", test_fuzz_slice},
    {NULL, NULL}
};
