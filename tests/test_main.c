/* test_main.c - runs every test group of the suite.
   The Makefile writes groups.inc (one X(name) per TT_TEST_GROUP found in the test files it
   builds), so a new test file needs no edit here. Run one group with: ./test unary */
#define TT_TEST_IMPLEMENTATION
#include "tt_test.h"
#include "groups.inc"

#define X(g) TT_TEST_DECLARE(g);
TT_TEST_GROUPS
#undef X

#define X(g) TT_TEST_USE(g),
static const tt_test_group all_groups[] = { TT_TEST_GROUPS {NULL, NULL} };
#undef X

int main(int argc, char **argv) { return tt_test_run(all_groups, argc, argv); }
