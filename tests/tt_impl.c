/* The one translation unit of the test suite that holds the library's implementation. */
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"
