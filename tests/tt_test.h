/* tt_test.h - a small single-header test harness in the stb style (public domain / MIT).

   A test is a void function; its checks report file:line and both values on failure and
   the test goes on (so one run shows every broken check). Group tests in a table:

       static void test_add(void) { CHECK(1 + 1 == 2); CHECK_NEAR(0.1 + 0.2, 0.3, 1e-12, 0); }
       TT_TEST_GROUP(arith) = { {"add", test_add}, {NULL, NULL} };

   and list the groups in the file that defines TT_TEST_IMPLEMENTATION:

       TT_TEST_DECLARE(arith);
       static const tt_test_group groups[] = { TT_TEST_USE(arith), {NULL, NULL} };
       int main(int argc, char **argv) { return tt_test_run(groups, argc, argv); }

   The program takes an optional --filter SUBSTRING (or a bare substring) to run only the
   tests whose "group/name" contains it. The last line of output is "N passed, N failed";
   the exit status is 1 when any test failed. Portable C99 and C++ (no constructors). */
#ifndef TT_TEST_H_INCLUDED
#define TT_TEST_H_INCLUDED

#include <stdio.h>
#include <string.h>
#include <math.h>

typedef struct tt_test_case {
    const char *name;
    void      (*fn)(void);
} tt_test_case;

typedef struct tt_test_group {
    const char         *name;
    const tt_test_case *cases;
} tt_test_group;

/* Defines a group table with external linkage in both C and C++. */
#define TT_TEST_GROUP(g) \
    extern const tt_test_case tt_test_group_##g[]; const tt_test_case tt_test_group_##g[]

#ifdef __cplusplus
extern "C" {
#endif
int  tt_test__fail(const char *file, int line, const char *what);
int  tt_test__near(double got, double want, double atol, double rtol,
                   const char *file, int line, const char *egot, const char *ewant);
int  tt_test__eq_int(long long got, long long want, const char *file, int line,
                     const char *egot, const char *ewant);
int  tt_test__str_contains(const char *s, const char *sub, const char *file, int line, const char *es);
int  tt_test__allclose(const float *got, const double *want, long long n, double atol, double rtol,
                       const char *file, int line, const char *egot);
int  tt_test_run(const tt_test_group *groups, int argc, char **argv);
/* One pass over the groups: the tests whose "group/name" contains filter (NULL: all), their
   names printed after label; adds to *passed and *failed. */
void tt_test_run_pass(const tt_test_group *groups, const char *filter, const char *label, int *passed, int *failed);
/* The filter argv asks for (--filter SUBSTRING or a bare SUBSTRING), or NULL. */
const char *tt_test_filter(int argc, char **argv);
#ifdef __cplusplus
}
#endif

/* Each returns 1 when the check holds, 0 (after printing why) when not. */
#define CHECK(cond)               ((cond) ? 1 : tt_test__fail(__FILE__, __LINE__, #cond))
#define CHECK_EQ_INT(got, want)   tt_test__eq_int((long long)(got), (long long)(want), __FILE__, __LINE__, #got, #want)
/* |got - want| <= atol + rtol*|want|; NaN equals NaN, inf equals inf of the same sign. */
#define CHECK_NEAR(got, want, atol, rtol) \
    tt_test__near((double)(got), (double)(want), (atol), (rtol), __FILE__, __LINE__, #got, #want)
/* s is non-NULL and contains sub. */
#define CHECK_STR_CONTAINS(s, sub) tt_test__str_contains((s), (sub), __FILE__, __LINE__, #s)
/* Every got[i] near want[i]; prints the first mismatch and how many there are. */
#define CHECK_ALLCLOSE(got, want, n, atol, rtol) \
    tt_test__allclose((got), (want), (long long)(n), (atol), (rtol), __FILE__, __LINE__, #got)

/* Declares a group defined in another file; TT_TEST_USE(g) names it in the groups table. */
#define TT_TEST_DECLARE(g) extern const tt_test_case tt_test_group_##g[]
#define TT_TEST_USE(g)     { #g, tt_test_group_##g }

#endif /* TT_TEST_H_INCLUDED */

#ifdef TT_TEST_IMPLEMENTATION
#ifndef TT_TEST_IMPL_DONE
#define TT_TEST_IMPL_DONE

static int tt_test__failed_checks;      /* in the test now running */

int tt_test__fail(const char *file, int line, const char *what) {
    tt_test__failed_checks++;
    printf("    %s:%d: check failed: %s\n", file, line, what);
    return 0;
}

static int tt_test__close(double got, double want, double atol, double rtol) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

int tt_test__near(double got, double want, double atol, double rtol,
                  const char *file, int line, const char *egot, const char *ewant) {
    if (tt_test__close(got, want, atol, rtol)) return 1;
    tt_test__failed_checks++;
    printf("    %s:%d: %s = %.9g, expected %s = %.9g (atol %g, rtol %g)\n",
           file, line, egot, got, ewant, want, atol, rtol);
    return 0;
}

int tt_test__eq_int(long long got, long long want, const char *file, int line,
                    const char *egot, const char *ewant) {
    if (got == want) return 1;
    tt_test__failed_checks++;
    printf("    %s:%d: %s = %lld, expected %s = %lld\n", file, line, egot, got, ewant, want);
    return 0;
}

int tt_test__str_contains(const char *s, const char *sub, const char *file, int line, const char *es) {
    if (s && strstr(s, sub)) return 1;
    tt_test__failed_checks++;
    printf("    %s:%d: %s = \"%s\" does not contain \"%s\"\n", file, line, es, s ? s : "(null)", sub);
    return 0;
}

int tt_test__allclose(const float *got, const double *want, long long n, double atol, double rtol,
                      const char *file, int line, const char *egot) {
    long long bad = 0, first = -1;
    long long i;
    if (!got) return tt_test__fail(file, line, "allclose: got is NULL");
    for (i = 0; i < n; i++) {
        if (!tt_test__close((double)got[i], want[i], atol, rtol)) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad == 0) return 1;
    tt_test__failed_checks++;
    printf("    %s:%d: %s: %lld of %lld values differ; first at [%lld]: got %.9g, expected %.9g "
           "(atol %g, rtol %g)\n", file, line, egot, bad, n, first, (double)got[first], want[first], atol, rtol);
    return 0;
}

const char *tt_test_filter(int argc, char **argv) {
    const char *filter = NULL;
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) filter = argv[++i];
        else filter = argv[i];
    }
    return filter;
}

void tt_test_run_pass(const tt_test_group *groups, const char *filter, const char *label, int *passed, int *failed) {
    const tt_test_group *g;
    for (g = groups; g->name; g++) {
        const tt_test_case *t;
        for (t = g->cases; t->name; t++) {
            char full[256];
            snprintf(full, sizeof full, "%s/%s", g->name, t->name);
            if (filter && !strstr(full, filter)) continue;
            tt_test__failed_checks = 0;
            t->fn();
            if (tt_test__failed_checks == 0) { (*passed)++; printf("ok   %s%s\n", label, full); }
            else { (*failed)++; printf("FAIL %s%s (%d failed checks)\n", label, full, tt_test__failed_checks); }
            fflush(stdout);
        }
    }
}

/* Runs every test of the groups (ended by a {NULL, NULL} entry) whose "group/name"
   contains the filter. Returns the exit status. */
int tt_test_run(const tt_test_group *groups, int argc, char **argv) {
    int passed = 0, failed = 0;
    tt_test_run_pass(groups, tt_test_filter(argc, argv), "", &passed, &failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif /* TT_TEST_IMPL_DONE */
#endif /* TT_TEST_IMPLEMENTATION */
