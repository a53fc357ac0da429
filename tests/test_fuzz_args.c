/* test_fuzz_args.c - a fixed-seed slice of the argument fuzzer (tests/fuzz_args.c).

   Byte strings from a xorshift stream with fixed seeds drive fz_args_one: random hostile
   arguments to every public function, with the invariants checked after every call (see
   fuzz_args.c). Each string must pass; together they must call every public function. */
#include "tt_test.h"
#include "fuzz_args.c"

#define FA_STRINGS 600          /* byte strings in the slice (about 1.5 s under ASan) */
#define FA_MAX_LEN 768

/* The xorshift64* stream of seed: n bytes into buf. */
static void fa_bytes(uint64_t seed, uint8_t *buf, size_t n) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    size_t i;
    for (i = 0; i < n; i++) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        buf[i] = (uint8_t)((s * 0x2545F4914F6CDD1Dull) >> 56);
    }
}

static void test_fixed_slice(void) {
    static uint8_t buf[FA_MAX_LEN];
    int i, failed = 0;
    for (i = 0; i < FA_STRINGS; i++) {
        size_t len = 64 + (size_t)(i * 37) % (FA_MAX_LEN - 64);
        fa_bytes((uint64_t)i + 1, buf, len);
        if (fz_args_one(buf, len)) { printf("    byte string %d (seed %d, %d bytes) broke an invariant\n", i, i + 1, (int)len); failed++; }
    }
    CHECK_EQ_INT(failed, 0);
}

/* Every row of the table ran at least once in the slice (run after it). */
static void test_every_function_called(void) {
    int i, missing = 0;
    for (i = 0; i < FZ_NFNS; i++)
        if (fz_calls[i] == 0) { printf("    %s was never called\n", fz_fns[i].name); missing++; }
    CHECK_EQ_INT(missing, 0);
}

TT_TEST_GROUP(fuzz_args) = {
    {"fixed_slice", test_fixed_slice},
    {"every_function_called", test_every_function_called},
    {NULL, NULL}
};
