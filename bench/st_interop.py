#!/usr/bin/env python3
"""st_interop.py - does tinytrace read what PyTorch writes? (not part of `make test`)

Builds a small model in PyTorch (embedding -> linear -> gelu -> layer_norm -> linear), saves its
weights with the safetensors package (f32, plus fc1's weight as f16 and bf16), and saves an input
(int64 indices) and PyTorch's output in a second file. Then it builds bench/st_interop.c with
the C compiler and runs it: tinytrace opens both files, runs the same model and compares.
Needs torch and safetensors (pip install torch safetensors); says so and exits 0 without them.

    python3 bench/st_interop.py [build-dir]
"""
import os
import subprocess
import sys


def main():
    try:
        import torch
        from safetensors.torch import save_file
    except ImportError as e:
        print("st_interop: skipped, %s (pip install torch safetensors)" % e)
        return 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "interop"))
    os.makedirs(out, exist_ok=True)

    torch.manual_seed(0)
    vocab, d, h, o = 50, 16, 32, 5
    emb = torch.nn.Embedding(vocab, d)
    fc1, ln, fc2 = torch.nn.Linear(d, h), torch.nn.LayerNorm(h), torch.nn.Linear(h, o)
    with torch.no_grad():                     # LayerNorm starts at 1 and 0: make it matter
        ln.weight.uniform_(0.5, 1.5)
        ln.bias.uniform_(-0.2, 0.2)
    idx = torch.randint(0, vocab, (3, 7), dtype=torch.int64)
    with torch.no_grad():
        y = fc2(ln(torch.nn.functional.gelu(fc1(emb(idx)))))

    weights = {"emb.weight": emb.weight, "fc1.weight": fc1.weight, "fc1.bias": fc1.bias,
               "ln.weight": ln.weight, "ln.bias": ln.bias, "fc2.weight": fc2.weight, "fc2.bias": fc2.bias,
               "fc1.weight_f16": fc1.weight.half(), "fc1.weight_bf16": fc1.weight.bfloat16()}
    weights = {k: v.detach().contiguous() for k, v in weights.items()}
    save_file(weights, os.path.join(out, "weights.safetensors"), metadata={"made_by": "bench/st_interop.py"})
    io = {"idx": idx, "y": y.contiguous(),
          "fc1_f16_as_f32": weights["fc1.weight_f16"].float(), "fc1_bf16_as_f32": weights["fc1.weight_bf16"].float()}
    save_file(io, os.path.join(out, "io.safetensors"))

    exe = os.path.join(out, "st_interop")
    cc = os.environ.get("CC", "cc")
    subprocess.check_call([cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I" + root,
                           os.path.join(root, "bench", "st_interop.c"), "-o", exe, "-lm", "-lpthread"])
    rc = subprocess.call([exe, os.path.join(out, "weights.safetensors"), os.path.join(out, "io.safetensors")])
    print("st_interop: %s (torch %s)" % ("tinytrace matches PyTorch" if rc == 0 else "MISMATCH", torch.__version__))
    return rc


if __name__ == "__main__":
    sys.exit(main())
