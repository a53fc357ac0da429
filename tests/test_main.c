/* test_main.c - runs every test group of the suite, once for each ISA the CPU has.
   The Makefile writes groups.inc (one X(name) per TT_TEST_GROUP found in the test files it
   builds), so a new test file needs no edit here. Run one group with: ./test unary
   Each pass sets TT_ISA, so every context the tests make without naming an ISA runs that
   ISA's kernels: every kernel test, compiled-against-eager and thread-count test runs under
   AVX-512, AVX2 and plain C on a CPU with AVX-512. With TT_ISA already set, only that pass
   runs (to debug one ISA). */
#define _POSIX_C_SOURCE 200809L        /* setenv */
#include <stdlib.h>
#define TT_TEST_IMPLEMENTATION
#include "tt_test.h"
#include "test_util.h"
#include "groups.inc"

#define X(g) TT_TEST_DECLARE(g);
TT_TEST_GROUPS
#undef X

#define X(g) TT_TEST_USE(g),
static const tt_test_group all_groups[] = { TT_TEST_GROUPS {NULL, NULL} };
#undef X

int main(int argc, char **argv) {
    static const char *const isas[] = {"avx512", "avx2", "neon", "scalar"};
    const char *filter = tt_test_filter(argc, argv), *fixed = getenv("TT_ISA");
    int passed = 0, failed = 0;
    size_t i;
    for (i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        char label[32];
        if (strcmp(fixed ? fixed : tu_isa_of_capped(isas[i]), isas[i]) != 0) continue;   /* not this pass */
        setenv("TT_ISA", isas[i], 1);
        snprintf(label, sizeof label, "[%s] ", isas[i]);
        printf("== kernels: %s\n", isas[i]);
        tt_test_run_pass(all_groups, filter, label, &passed, &failed);
    }
    if (passed + failed == 0 && fixed) printf("TT_ISA=%s names no ISA of this CPU\n", fixed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
