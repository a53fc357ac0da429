/* st_interop.c - the C side of bench/st_interop.py (not part of `make test`): loads weights that
   PyTorch saved with the safetensors package, runs the same model with tinytrace, and compares
   with PyTorch's output saved beside them.
   usage: st_interop weights.safetensors io.safetensors       exit status 0 when everything matches

   The model (bench/st_interop.py builds it): y = fc2(layer_norm(gelu(fc1(embedding(idx))))),
   with idx saved as int64 (narrowed to i32 on load); fc1's weight is also saved as f16 and bf16,
   whose values must convert to exactly what PyTorch's .float() gives. */
#define TINYTRACE_IMPLEMENTATION
#include "../tinytrace.h"

#include <math.h>
#include <stdio.h>

/* Largest |a - b| over two f32 tensors of one shape (-1 when the shapes differ). */
static double max_abs_diff(tt_ctx *c, tt_tensor *a, tt_tensor *b) {
    tt_tensor *d;
    if (!a || !b || !tt_same_shape(a, b)) return -1.0;
    d = tt_max(c, tt_abs(c, tt_sub(c, a, b)), NULL, 0, false);
    return d ? (double)tt_item(c, d) : -1.0;
}

int main(int argc, char **argv) {
    tt_ctx *c = tt_ctx_create(NULL);
    tt_safetensors *w, *io;
    tt_tensor *x, *y, *want;
    double err, err16, err_bf16;
    int i;
    if (argc != 3) { printf("usage: %s weights.safetensors io.safetensors\n", argv[0]); return 2; }
    w = tt_safetensors_open(c, argv[1]);
    io = tt_safetensors_open(c, argv[2]);
    if (!w || !io) { printf("open: %s\n", tt_error(c)); return 1; }
    for (i = 0; i < tt_safetensors_count(w); i++) {
        tt_safetensors_entry e;
        tt_safetensors_entry_at(w, i, &e);
        printf("  %-16s %-5s -> %s, %d dims\n", e.name, e.file_dtype, tt_dtype_name(e.dtype), e.ndim);
    }
    x = tt_embedding(c, tt_safetensors_get(w, "emb.weight"), tt_safetensors_get(io, "idx"));
    x = tt_gelu(c, tt_linear(c, x, tt_safetensors_get(w, "fc1.weight"), tt_safetensors_get(w, "fc1.bias")));
    x = tt_layer_norm(c, x, 1, tt_safetensors_get(w, "ln.weight"), tt_safetensors_get(w, "ln.bias"), 1e-5f);
    y = tt_linear(c, x, tt_safetensors_get(w, "fc2.weight"), tt_safetensors_get(w, "fc2.bias"));
    want = tt_safetensors_get(io, "y");
    err = max_abs_diff(c, y, want);
    err16 = max_abs_diff(c, tt_cast(c, tt_safetensors_get(w, "fc1.weight_f16"), TT_F32), tt_safetensors_get(io, "fc1_f16_as_f32"));
    err_bf16 = max_abs_diff(c, tt_cast(c, tt_safetensors_get(w, "fc1.weight_bf16"), TT_F32), tt_safetensors_get(io, "fc1_bf16_as_f32"));
    if (tt_ctx_status(c) != TT_OK) { printf("error: %s\n", tt_error(c)); return 1; }
    printf("model output: max |tinytrace - PyTorch| = %.3g (tolerance 1e-5)\n", err);
    printf("f16 weight:  max |difference| = %g (must be 0)\nbf16 weight: max |difference| = %g (must be 0)\n", err16, err_bf16);
    tt_ctx_destroy(c);
    return err >= 0 && err <= 1e-5 && err16 == 0.0 && err_bf16 == 0.0 ? 0 : 1;
}
