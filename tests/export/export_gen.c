/* export_gen.c - writes the export tests' models as C (tt_graph_export_c) into DIR, and prints
   each arena: simplecnn (band fusion), simplecnn_plain (TT_EXPORT_NO_BANDS), chain, mixed,
   unfused, simplecnn_b2, heads. The models come from export_models.h, built on the plain C
   kernels ("scalar") as tests/export/test_exported.c builds them. usage: export_gen DIR */
#define TINYTRACE_IMPLEMENTATION
#include "../../tinytrace.h"
#include "export_models.h"

#include <stdio.h>

static int export_one(em_model *m, const char *dir, const char *name, unsigned flags) {
    if (tt_graph_export_c_flags(m->g, dir, name, flags) != TT_OK) {
        fprintf(stderr, "export_gen: %s: %s\n", name, tt_graph_error(m->g));
        return 1;
    }
    printf("export_gen: %s.c, arena %lu B\n", name, (unsigned long)tt_graph_export_arena(m->g, flags));
    return 0;
}

int main(int argc, char **argv) {
    tt_ctx_desc d = tt_ctx_desc_default();
    tt_ctx *c, *wc;
    int which, failed = 0;
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    d.isa = "scalar";                                  /* the kernels the exported code runs */
    d.n_threads = 1;
    c = tt_ctx_create(&d);
    wc = tt_ctx_create(&d);
    for (which = 0; which < EM_MODELS; which++) {
        em_model m = em_build(c, wc, which);
        if (!m.g) { fprintf(stderr, "export_gen: %s: %s\n", m.name, tt_error(c)); return 1; }
        failed |= export_one(&m, argv[1], m.name, 0);
        if (which == 0) failed |= export_one(&m, argv[1], "simplecnn_plain", TT_EXPORT_NO_BANDS);
        tt_graph_destroy(m.g);
    }
    tt_ctx_destroy(c);
    tt_ctx_destroy(wc);
    return failed;
}
