#!/usr/bin/env python3
"""compare_torch.py - the PyTorch side of tinytrace's benchmarks (optional, run by hand).

    python3 bench/compare_torch.py                  # run everything, then compare if bench/out/results.csv exists
    python3 bench/compare_torch.py --quick --skip-compile --only sgemm
    python3 bench/compare_torch.py --compare        # only compare the CSV files already in bench/out/

It times the workloads of bench/bench.c (same names, shapes and thread counts) in every way
PyTorch runs a model on the CPU, one `mode` each:

    torch_eager                  plain eager calls under torch.inference_mode()
    torch_jit_freeze             torch.jit.trace, then torch.jit.freeze of the eval model
    torch_jit_opt                torch.jit.optimize_for_inference of the traced model
    torch_compile                torch.compile(model), Inductor's default mode
    torch_compile_max_autotune   torch.compile(model, mode="max-autotune")
    torch_compile_freezing       torch.compile(model) with torch._inductor.config.freezing = True
                                 (weights become constants, as in tinytrace's frozen graphs)
    torch_compile_max_autotune_freezing
                                 both: only with constant weights does max-autotune try its own
                                 C++ GEMM kernels for linear layers against MKL (sgemm_* has no
                                 constant operand, so max-autotune alone finds nothing to tune)

and writes bench/out/torch_results.csv with the columns of bench/out/results.csv:
    workload,mode,threads,median_ms,p95_ms,gflops,gbytes_s,pct_of_peak
(pct_of_peak stays empty: the C side measures the machine's peak; gbytes_s only for `chain`).
Each thread count runs in fresh Python processes (one per mode), because torch.set_num_threads
must come before any work and compiled code keeps the thread count it was compiled for.

Then, when tinytrace's bench/out/results.csv exists (or --ours PATH), it prints a side-by-side
table (tinytrace eager, tinytrace best compiled mode, each torch mode, torch's best, and the
ratio tinytrace_best / torch_best: above 1 means tinytrace is slower) and writes it as markdown
to compare.md beside tinytrace's CSV (bench/out/compare.md), headed with the machine and the
torch build.

torch is never a dependency of tinytrace or of its tests: only this script imports it.
Weights are random (torch.manual_seed); only timings are compared with the C side.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "out")
TORCH_CSV = os.path.join(OUT_DIR, "torch_results.csv")
TORCH_RUN_JSON = os.path.join(OUT_DIR, "torch_run.json")   # torch build, notes, run time
OURS_CSV = os.path.join(OUT_DIR, "results.csv")             # written by bench/bench.c
COLUMNS = ["workload", "mode", "threads", "median_ms", "p95_ms", "gflops", "gbytes_s", "pct_of_peak"]

MODES = ["torch_eager", "torch_jit_freeze", "torch_jit_opt", "torch_compile", "torch_compile_max_autotune",
         "torch_compile_freezing", "torch_compile_max_autotune_freezing"]
COMPILE_MODES = set(m for m in MODES if m.startswith("torch_compile"))

# Smallest first, so that a run cut short still has the cheap results.
WORKLOADS = ["dispatch_1000", "mlp_b64", "simplecnn_b1", "sgemm_256", "sgemm_512",
             "transformer_s128", "simplecnn_b16", "chain", "mobilenetv2_b1", "sgemm_1024", "alexnet_b1",
             "resnet18_b1", "sgemm_2048", "mobilenetv2_b16", "resnet18_b16"]

# Rows of results.csv that are references, not tinytrace modes ("machine": the FMA peak and
# memory bandwidth; "c_loop...": the chain as one hand-written C loop): left out of "tinytrace best".
REFERENCE_MODE_PREFIXES = ("machine", "c_loop", "ref", "openblas")

NOISY_CORES = 0.2     # other programs busier than this during the timed runs: say so

INSTALL_HINT = """PyTorch is not installed, and this optional script needs it.
Install the CPU build with
    pip install torch --index-url https://download.pytorch.org/whl/cpu
(or plain `pip install torch`), then run this script again. tinytrace itself, its tests and
bench/bench.c do not need torch."""


def quiet_torch_warnings():
    """TorchScript prints a deprecation warning on every trace; torch without NumPy warns once."""
    warnings.filterwarnings("ignore", message=".*is deprecated.*", category=FutureWarning)
    warnings.filterwarnings("ignore", message=".*Failed to initialize NumPy.*")


def import_torch_or_exit():
    quiet_torch_warnings()
    try:
        import torch
    except ImportError:
        print(INSTALL_HINT)
        sys.exit(2)
    return torch


# --------------------------------------------------------------------------------------------
# Workloads: each is a module in eval mode, its inputs, and the work it does per call.
# --------------------------------------------------------------------------------------------

def make_workload(name, torch):
    """Returns (model, inputs, flops or None, bytes or None)."""
    nn = torch.nn
    small = small_modules(torch)
    torch.manual_seed(1234)

    if name.startswith("sgemm_"):
        n = int(name.split("_")[1])
        return small["matmul"]().eval(), (torch.randn(n, n), torch.randn(n, n)), 2.0 * n ** 3, None
    if name == "chain":
        n = 16 * 1024 * 1024
        # 9 ops per element (as bench.c counts them); 8 bytes: read x, write out, as one fused pass
        return small["chain"]().eval(), (torch.randn(n),), 9.0 * n, 8.0 * n
    if name.startswith("simplecnn_b"):
        batch = int(name.split("_b")[1])
        model = simple_cnn(nn, torch)
        inputs = (torch.randn(batch, 3, 32, 32),)
        return model, inputs, 2.0 * count_macs(model, inputs, torch), None
    if name == "mlp_b64":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10)).eval()
        inputs = (torch.randn(64, 784),)
        return model, inputs, 2.0 * count_macs(model, inputs, torch), None
    if name == "transformer_s128":
        d, ff, seq = 256, 1024, 128
        model = nn.TransformerEncoderLayer(d_model=d, nhead=8, dim_feedforward=ff, dropout=0.0,
                                           activation="relu", batch_first=True,
                                           norm_first=False).eval()
        return model, (torch.randn(1, seq, d),), 2.0 * transformer_macs(seq, d, ff), None
    if name == "alexnet_b1":
        model = alexnet(nn)
        inputs = (torch.randn(1, 3, 224, 224),)
        return model, inputs, 2.0 * count_macs(model, inputs, torch), None
    if name.startswith("resnet18_b") or name.startswith("mobilenetv2_b"):
        batch = int(name.split("_b")[1])
        model = resnet18(nn, torch) if name.startswith("resnet18") else mobilenet_v2(nn, torch)
        inputs = (torch.randn(batch, 3, 224, 224),)
        return model, inputs, 2.0 * count_macs(model, inputs, torch), None
    if name == "dispatch_1000":
        return small["dispatch"]().eval(), (torch.randn(16),), None, None
    raise ValueError("unknown workload " + name)


def small_modules(torch):
    """Classes for the workloads that are not torch.nn layers (torch is imported late, so that
    --compare and the install hint work without it)."""

    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return torch.matmul(a, b)

    class Chain(torch.nn.Module):
        def forward(self, x):
            y = torch.tanh(x * 1.5 + 0.5) * torch.sigmoid(x) - x * x
            return y * 0.25 + x

    class Dispatch(torch.nn.Module):
        """1000 tiny ops on 16 floats: what one op costs beyond its arithmetic."""
        N_OPS = 1000

        def forward(self, x):
            for i in range(self.N_OPS):
                step = i % 4            # the same four ops and constants as bench.c
                if step == 0:
                    x = x + 0.25
                elif step == 1:
                    x = x * 0.9
                elif step == 2:
                    x = torch.tanh(x)
                else:
                    x = x - 0.125
            return x

    return {"matmul": MatMul, "chain": Chain, "dispatch": Dispatch}


def simple_cnn(nn, torch):
    layers = []
    for c_in, c_out in ((3, 32), (32, 64)):
        bn = nn.BatchNorm2d(c_out)
        with torch.no_grad():          # random running statistics, so batch norm does something
            bn.running_mean.copy_(0.1 * torch.randn(c_out))
            bn.running_var.copy_(0.5 + torch.rand(c_out))
            bn.weight.copy_(1.0 + 0.2 * torch.randn(c_out))
            bn.bias.copy_(0.1 * torch.randn(c_out))
        layers += [nn.Conv2d(c_in, c_out, 3, padding=1, bias=True), bn, nn.ReLU(), nn.MaxPool2d(2)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers).eval()


def batch_norm(nn, torch, c):
    """BatchNorm2d in eval mode with random running statistics (as bench_models.h's)."""
    bn = nn.BatchNorm2d(c)
    with torch.no_grad():
        bn.running_mean.copy_(0.1 * torch.randn(c))
        bn.running_var.copy_(0.5 + torch.rand(c))
        bn.weight.copy_(1.0 + 0.2 * torch.randn(c))
        bn.bias.copy_(0.1 * torch.randn(c))
    return bn


def conv_bn(nn, torch, c_in, c_out, k, stride=1, groups=1):
    return [nn.Conv2d(c_in, c_out, k, stride=stride, padding=k // 2, groups=groups, bias=False),
            batch_norm(nn, torch, c_out)]


def resnet18(nn, torch):
    """torchvision's ResNet-18 layer shapes, written out: basic blocks of two 3x3 convolutions."""
    class Basic(nn.Module):
        def __init__(self, c_in, c_out, stride):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(nn, torch, c_in, c_out, 3, stride), nn.ReLU(),
                                      *conv_bn(nn, torch, c_out, c_out, 3))
            self.down = (nn.Sequential(*conv_bn(nn, torch, c_in, c_out, 1, stride))
                         if stride != 1 or c_in != c_out else nn.Identity())

        def forward(self, x):
            return torch.relu(self.body(x) + self.down(x))

    blocks, c_in = [], 64
    for stage, width in enumerate((64, 128, 256, 512)):
        for b in range(2):
            blocks.append(Basic(c_in, width, 2 if stage > 0 and b == 0 else 1))
            c_in = width
    return nn.Sequential(*conv_bn(nn, torch, 3, 64, 7, 2), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1),
                         *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)).eval()


def mobilenet_v2(nn, torch):
    """torchvision's MobileNetV2 layer shapes, written out: inverted residuals, ReLU6."""
    class Inverted(nn.Module):
        def __init__(self, c_in, c_out, stride, t):
            super().__init__()
            hidden = c_in * t
            layers = [*conv_bn(nn, torch, c_in, hidden, 1), nn.ReLU6()] if t != 1 else []
            layers += [*conv_bn(nn, torch, hidden, hidden, 3, stride, groups=hidden), nn.ReLU6(),
                       *conv_bn(nn, torch, hidden, c_out, 1)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and c_in == c_out

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    blocks, c_in = [], 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        for b in range(n):
            blocks.append(Inverted(c_in, c, s if b == 0 else 1, t))
            c_in = c
    return nn.Sequential(*conv_bn(nn, torch, 3, 32, 3, 2), nn.ReLU6(), *blocks,
                         *conv_bn(nn, torch, 320, 1280, 1), nn.ReLU6(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, 1000)).eval()


def alexnet(nn):
    """torchvision's AlexNet, written out (dropout is a no-op in eval, so it is left out)."""
    return nn.Sequential(
        nn.Conv2d(3, 64, 11, stride=4, padding=2), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.Conv2d(64, 192, 5, padding=2), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.Conv2d(192, 384, 3, padding=1), nn.ReLU(),
        nn.Conv2d(384, 256, 3, padding=1), nn.ReLU(),
        nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.AdaptiveAvgPool2d((6, 6)), nn.Flatten(),
        nn.Linear(9216, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
        nn.Linear(4096, 1000)).eval()


def count_macs(model, inputs, torch):
    """Multiply-adds of the convolutions and linear layers, from the shapes seen in one call."""
    total = [0]

    def on_conv(mod, args, out):
        total[0] += out.numel() * (mod.in_channels // mod.groups) * mod.kernel_size[0] * mod.kernel_size[1]

    def on_linear(mod, args, out):
        total[0] += out.numel() * mod.in_features

    hooks = []
    for mod in model.modules():
        if isinstance(mod, torch.nn.Conv2d):
            hooks.append(mod.register_forward_hook(on_conv))
        elif isinstance(mod, torch.nn.Linear):
            hooks.append(mod.register_forward_hook(on_linear))
    with torch.inference_mode():
        model(*inputs)
    for h in hooks:
        h.remove()
    return total[0]


def transformer_macs(seq, d, ff):
    """Q/K/V and output projections, scores and weighted sum, the two feed-forward layers."""
    return seq * d * 3 * d + 2 * seq * seq * d + seq * d * d + 2 * seq * d * ff


# --------------------------------------------------------------------------------------------
# Worker: one process, one thread count, one mode, every workload.
# --------------------------------------------------------------------------------------------

class CompileTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise CompileTimeout()


def prepare(mode, model, inputs, torch):
    """The callable that the timed loop calls, for one mode."""
    if mode == "torch_eager":
        return model
    if mode in ("torch_jit_freeze", "torch_jit_opt"):
        with torch.no_grad():
            traced = torch.jit.trace(model, inputs, check_trace=False)
            if mode == "torch_jit_freeze":
                return torch.jit.freeze(traced)
            return torch.jit.optimize_for_inference(traced)
    if mode in COMPILE_MODES:
        config = torch._inductor.config
        config.freezing = mode.endswith("_freezing")
        config.autotune_num_choices_displayed = 0     # no table of timings per autotuned GEMM
        if hasattr(config, "max_autotune_report_choices_stats"):
            config.max_autotune_report_choices_stats = False
        return torch.compile(model, mode="max-autotune" if "max_autotune" in mode else None)
    raise ValueError(mode)


def time_calls(fn, inputs, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t0)
    return times


def p95(times):
    """Nearest-rank 95th percentile."""
    ordered = sorted(times)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def cpu_seconds_busy():
    """CPU time the whole machine has spent busy since boot (all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:8]]
    except (OSError, ValueError):
        return None
    user, nice, system, idle, iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def measure(fn, inputs, quick, budget_s):
    """First call (compiles, for the compile modes) under a time budget, warm-up, timed runs."""
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(budget_s)
    try:
        t0 = time.perf_counter()
        fn(*inputs)
        first_s = time.perf_counter() - t0
        warm = time_calls(fn, inputs, 3)     # max-autotune may still settle on the next calls
    finally:
        signal.alarm(0)
    per_call = max(min(warm), 1e-7)
    target_s, min_runs = (0.25, 5) if quick else (0.8, 11)
    runs = int(min(max(target_s / per_call, min_runs), 300))
    # On a shared machine other programs steal cores: when they were busy, time once more and
    # keep the quieter attempt (the noise is printed with the row either way).
    best = None
    for _ in range(2):
        times, other = timed_runs_and_noise(fn, inputs, runs)
        if best is None or (other or 0.0) < (best[1] or 0.0):
            best = (times, other)
        if other is None or other < NOISY_CORES:
            break
    times, other = best
    return first_s, statistics.median(times), p95(times), runs, other


def timed_runs_and_noise(fn, inputs, runs):
    """The times of the runs, and how many cores other programs kept busy meanwhile."""
    busy0, own0, t0 = cpu_seconds_busy(), time.process_time(), time.perf_counter()
    times = time_calls(fn, inputs, runs)
    busy1, own1, wall = cpu_seconds_busy(), time.process_time(), time.perf_counter() - t0
    if busy0 is None or busy1 is None:
        return times, None
    return times, max(0.0, (busy1 - busy0 - (own1 - own0)) / wall)


def transformer_path_note(mode, fn, inputs, torch):
    """Says whether PyTorch used its fused native encoder-layer kernel (the eval fast path)."""
    fused = "_transformer_encoder_layer_fwd"
    if mode == "torch_eager":
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            fn(*inputs)
        used = any(fused in e.name for e in prof.events())
    elif mode in ("torch_jit_freeze", "torch_jit_opt"):
        used = fused in str(fn.graph)
    else:
        return None
    return ("fast path ON (aten::%s, one native kernel)" % fused) if used else "fast path off"


def run_worker(args):
    torch = import_torch_or_exit()
    torch.set_num_threads(args.worker_threads)
    mode = args.worker_mode
    budget = args.compile_budget if mode in COMPILE_MODES else 10 ** 6
    with open(args.worker_out, "a") as out:
        for name in selected_workloads(args):
            record = run_one(name, mode, args, budget, torch)
            out.write(json.dumps(record) + "\n")
            out.flush()


def caused_by(error, kind):
    """Inductor wraps exceptions raised inside it (our timeout too): follow the chain."""
    while error is not None:
        if isinstance(error, kind):
            return True
        error = error.__cause__ or error.__context__
    return False


def first_line(error):
    text = str(error).strip()
    return text.splitlines()[0][:160] if text else ""


def run_one(name, mode, args, budget, torch):
    record = {"workload": name, "mode": mode, "threads": args.worker_threads}
    model, inputs, flops, nbytes = make_workload(name, torch)
    label = "  [%s, %d thr] %-17s" % (mode, args.worker_threads, name)
    try:
        with torch.inference_mode():
            fn = prepare(mode, model, inputs, torch)
            first_s, med, p95_s, runs, other = measure(fn, inputs, args.quick, budget)
            note = transformer_path_note(mode, fn, inputs, torch) if name.startswith("transformer") else None
    except Exception as e:                      # a mode that cannot run this model: say so
        if caused_by(e, CompileTimeout):
            record["skipped"] = "compile did not finish in the %d s budget (--compile-budget)" % budget
        else:
            record["skipped"] = "failed: %s: %s" % (type(e).__name__, first_line(e))
        print("%s SKIPPED: %s" % (label, record["skipped"]), flush=True)
        if mode in COMPILE_MODES:
            torch._dynamo.reset()
        return record
    if mode in COMPILE_MODES:
        torch._dynamo.reset()                   # free the compiled graph before the next model
    record.update(median_ms=med * 1e3, p95_ms=p95_s * 1e3, first_call_s=first_s, runs=runs,
                  other_cores=other,
                  gflops=flops / med / 1e9 if flops else None,
                  gbytes_s=nbytes / med / 1e9 if nbytes else None, note=note)
    print("%s median %9.3f ms  p95 %9.3f ms  %s(%d runs, first call %.2f s)%s%s" % (
        label, med * 1e3, p95_s * 1e3, rate_text(record), runs, first_s, noise_text(other),
        "  " + note if note else ""), flush=True)
    if name == "dispatch_1000":
        print("%s %.2f us per op" % (" " * len(label), med * 1e6 / 1000), flush=True)
    return record


def noise_text(other_cores):
    if other_cores is None or other_cores < NOISY_CORES:
        return ""
    return "  NOISY: other programs used %.1f cores" % other_cores


def rate_text(record):
    if record.get("gbytes_s"):                  # chain: memory-bound, bandwidth says more
        return "%7.1f GB/s     " % record["gbytes_s"]
    if record.get("gflops"):
        return "%7.1f GFLOP/s  " % record["gflops"]
    return " " * 17


# --------------------------------------------------------------------------------------------
# Driver: a worker process per (thread count, mode), then the CSV, the table, the comparison.
# --------------------------------------------------------------------------------------------

def selected_workloads(args):
    return [w for w in WORKLOADS if not args.only or args.only in w]


def selected_modes(args):
    return [m for m in MODES if not (args.skip_compile and m in COMPILE_MODES)]


def inductor_cache_dir():
    """Inductor's compiled code, kept between runs in a folder of our own (--fresh-cache empties
    it). Its C++ is specialized on the thread count, which is part of Inductor's cache key."""
    return os.path.join(tempfile.gettempdir(), "tinytrace_bench_inductor")


def spawn_worker(threads, mode, args, out_path):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               TORCHINDUCTOR_CACHE_DIR=inductor_cache_dir())
    cmd = [sys.executable, os.path.abspath(__file__), "--worker-mode", mode,
           "--worker-threads", str(threads), "--worker-out", out_path,
           "--compile-budget", str(args.compile_budget)]
    if args.only:
        cmd += ["--only", args.only]
    if args.quick:
        cmd += ["--quick"]
    # A safety net only: each compile already has its own budget inside the worker.
    limit = 60 + len(selected_workloads(args)) * (args.compile_budget + 60)
    try:
        subprocess.run(cmd, env=env, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        print("  [%s, %d thr] worker stopped after %d s" % (mode, threads, limit), flush=True)


def run_all(args):
    os.makedirs(OUT_DIR, exist_ok=True)
    if args.fresh_cache:
        shutil.rmtree(inductor_cache_dir(), ignore_errors=True)
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for threads in args.threads:
            for mode in selected_modes(args):
                t0 = time.perf_counter()
                path = os.path.join(tmp, "%s_%d.jsonl" % (mode, threads))
                spawn_worker(threads, mode, args, path)
                print("  (%s, %d thread%s: %.0f s)" % (mode, threads, "" if threads == 1 else "s",
                                                      time.perf_counter() - t0), flush=True)
                if os.path.exists(path):
                    with open(path) as f:
                        records += [json.loads(line) for line in f if line.strip()]
    return records


def write_torch_csv(records):
    done = sorted((r for r in records if "median_ms" in r), key=record_order)
    with open(TORCH_CSV, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in done:
            w.writerow([r["workload"], r["mode"], r["threads"], "%.4f" % r["median_ms"],
                        "%.4f" % r["p95_ms"], fmt_opt(r.get("gflops"), "%.2f"),
                        fmt_opt(r.get("gbytes_s"), "%.2f"), ""])


def record_order(r):
    return (WORKLOADS.index(r["workload"]) if r["workload"] in WORKLOADS else 99,
            r["threads"], MODES.index(r["mode"]) if r["mode"] in MODES else 99)


def fmt_opt(value, fmt):
    return "" if value is None or value == "" else fmt % float(value)


def print_torch_table(records):
    print("\nPyTorch results (median and p95 of the timed runs; first call includes compilation)")
    print("(others: cores that other programs kept busy during the timed runs)")
    print("%-17s %-36s %3s %10s %10s %9s %8s %9s %7s" % (
        "workload", "mode", "thr", "median_ms", "p95_ms", "GFLOP/s", "GB/s", "first_s", "others"))
    for r in sorted(records, key=record_order):
        if "median_ms" not in r:
            print("%-17s %-36s %3d   skipped: %s" % (r["workload"], r["mode"], r["threads"], r["skipped"]))
            continue
        print("%-17s %-36s %3d %10.3f %10.3f %9s %8s %9.2f %7s" % (
            r["workload"], r["mode"], r["threads"], r["median_ms"], r["p95_ms"],
            fmt_opt(r.get("gflops"), "%.1f"), fmt_opt(r.get("gbytes_s"), "%.1f"), r["first_call_s"],
            fmt_opt(r.get("other_cores"), "%.2f")))


def torch_build_info(torch):
    parallel = torch.__config__.parallel_info().splitlines()
    backend = next((l.strip() for l in parallel if l.startswith("ATen parallel backend")), "?")
    libs = [l.strip() for l in parallel if "Math Kernel Library" in l or "MKL-DNN" in l]
    return {"torch": torch.__version__, "mkldnn": torch.backends.mkldnn.is_available(),
            "mkl": torch.backends.mkl.is_available(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "parallel_backend": backend, "libraries": libs}


def cpu_info():
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or "unknown CPU"
    flags = fields.get("flags", "").split()
    isa = [x for x in ("avx2", "avx512f", "amx_tile") if x in flags]
    return "%s (family %s, model %s; %s)" % (fields.get("model name", "?"), fields.get("cpu family", "?"),
                                             fields.get("model", "?"), ", ".join(isa) or "no AVX2")


# --------------------------------------------------------------------------------------------
# Comparison with tinytrace's results.csv
# --------------------------------------------------------------------------------------------

def read_csv_rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("median_ms")]


def is_reference_mode(mode):
    return mode.startswith(REFERENCE_MODE_PREFIXES)


def best_of(rows):
    """(mode, median_ms) of the fastest row, or (None, None)."""
    if not rows:
        return None, None
    r = min(rows, key=lambda r: float(r["median_ms"]))
    return r["mode"], float(r["median_ms"])


def compare_rows(ours, theirs, torch_modes):
    """One row per (workload, threads) that both sides measured."""
    keys = sorted({(r["workload"], int(r["threads"])) for r in ours} &
                  {(r["workload"], int(r["threads"])) for r in theirs},
                  key=lambda k: (WORKLOADS.index(k[0]) if k[0] in WORKLOADS else 99, k[1]))
    rows = []
    for workload, threads in keys:
        mine = [r for r in ours if r["workload"] == workload and int(r["threads"]) == threads
                and not is_reference_mode(r["mode"])]
        tor = [r for r in theirs if r["workload"] == workload and int(r["threads"]) == threads]
        eager = [r for r in mine if "eager" in r["mode"]]
        compiled = [r for r in mine if "eager" not in r["mode"]]
        tt_best_mode, tt_best = best_of(mine)
        torch_best_mode, torch_best = best_of(tor)
        by_mode = {r["mode"]: float(r["median_ms"]) for r in tor}
        rows.append({"workload": workload, "threads": threads,
                     "tt_eager": best_of(eager)[1], "tt_compiled": best_of(compiled),
                     "torch": [by_mode.get(m) for m in torch_modes],
                     "torch_best": (torch_best_mode, torch_best),
                     "ratio": tt_best / torch_best if tt_best and torch_best else None})
    return rows


def ms(value):
    """Milliseconds with about three significant digits, in fixed notation."""
    if value is None:
        return "-"
    return "%.1f" % value if value >= 100 else "%.2f" % value if value >= 1 else "%.3f" % value


def compare_table_lines(rows, torch_modes, skipped, noise):
    """noise: (workload, threads) -> the most cores other programs used during torch's timings."""
    short = [m.replace("torch_", "") for m in torch_modes]
    head = ["workload", "thr", "tt eager", "tt compiled (mode)"] + short + \
           ["torch best (mode)", "tt/torch", "others busy"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        torch_cells = []
        for mode, value in zip(torch_modes, r["torch"]):
            torch_cells.append("skip" if value is None and (r["workload"], mode, r["threads"]) in skipped
                               else ms(value))
        cm, cv = r["tt_compiled"]
        bm, bv = r["torch_best"]
        cells = [r["workload"], str(r["threads"]), ms(r["tt_eager"]),
                 "%s (%s)" % (ms(cv), cm) if cm else "-"] + torch_cells + \
                ["%s (%s)" % (ms(bv), bm.replace("torch_", "")) if bm else "-",
                 "%.2f" % r["ratio"] if r["ratio"] else "-",
                 fmt_opt(noise.get((r["workload"], r["threads"])), "%.1f") or "?"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def run_compare(ours_path, run_info):
    if not os.path.exists(ours_path):
        print("\nNo tinytrace results at %s: run bench/bench.c first (make bench), then "
              "`python3 bench/compare_torch.py --compare`." % ours_path)
        return
    if not os.path.exists(TORCH_CSV):
        print("\nNo %s yet: run this script without --compare first." % TORCH_CSV)
        return
    ours, theirs = read_csv_rows(ours_path), read_csv_rows(TORCH_CSV)
    torch_modes = [m for m in MODES if any(r["mode"] == m for r in theirs)]
    skipped = {(s["workload"], s["mode"], s["threads"]) for s in run_info.get("skipped", [])}
    noise = {}
    for n in run_info.get("noise", []):
        key = (n["workload"], n["threads"])
        noise[key] = max(noise.get(key, 0.0), n["other_cores"])
    rows = compare_table_lines(compare_rows(ours, theirs, torch_modes), torch_modes, skipped, noise)
    header = compare_header(ours_path, run_info)
    print("\n" + "\n".join(header + rows))
    md_path = os.path.join(os.path.dirname(os.path.abspath(ours_path)), "compare.md")
    with open(md_path, "w") as f:
        f.write("\n".join(header + rows) + "\n")
        notes = compare_notes(run_info)
        if notes:
            f.write("\n" + "\n".join(notes) + "\n")
    print("\nwritten: %s" % md_path)


def shown_path(path):
    """Relative to the repository when it is inside it."""
    rel = os.path.relpath(os.path.abspath(path), os.path.dirname(HERE))
    return os.path.abspath(path) if rel.startswith("..") else rel


def compare_header(ours_path, info):
    build = info.get("build", {})
    return [
        "## tinytrace vs PyTorch (CPU), median ms per call",
        "",
        "- date: %s" % info.get("date", "?"),
        "- CPU: %s, %s cores" % (info.get("cpu", cpu_info()), info.get("cores", os.cpu_count())),
        "- torch %s: mkldnn available %s, mkl %s, CPU capability %s, %s" % (
            build.get("torch", "?"), build.get("mkldnn", "?"), build.get("mkl", "?"),
            build.get("cpu_capability", "?"), build.get("parallel_backend", "?")),
        "- torch libraries: %s" % "; ".join(build.get("libraries", [])),
        "- tinytrace: %s; tt compiled = its fastest non-eager mode; tt/torch = "
        "tinytrace's best / torch's best (above 1: tinytrace slower); others busy = the most cores "
        "other programs kept busy while torch was timed on that row" % shown_path(ours_path),
        "- torch run took %s; %s" % ("%.0f s" % info["run_s"] if "run_s" in info else "?",
                                     other_load_text(info.get("noise"))),
        "",
    ]


def other_load_text(noise):
    if not noise:
        return "the load from other programs was not measured"
    worst = max(noise, key=lambda n: n["other_cores"])
    noisy = sum(n["other_cores"] >= NOISY_CORES for n in noise)
    return ("other programs kept up to %.2f cores busy during torch's timed runs (%s, %s, %d threads); "
            "%d of %d torch rows had more than %.1f" % (worst["other_cores"], worst["workload"], worst["mode"],
                                                       worst["threads"], noisy, len(noise), NOISY_CORES))


def compare_notes(info):
    notes = ["- %s, %s, %s threads: skipped, %s" % (s["workload"], s["mode"], s["threads"], s["skipped"])
             for s in info.get("skipped", [])]
    notes += ["- %s, %s, %s threads: %s" % (n["workload"], n["mode"], n["threads"], n["note"])
              for n in info.get("notes", [])]
    return notes


# --------------------------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=lambda s: [int(x) for x in s.split(",")],
                   help="thread counts, e.g. 1,2 (default: 1 and every core)")
    p.add_argument("--only", help="only the workloads whose name contains this")
    p.add_argument("--quick", action="store_true", help="fewer timed runs")
    p.add_argument("--skip-compile", action="store_true", help="leave out the torch.compile modes")
    p.add_argument("--compile-budget", type=int, default=150,
                   help="seconds a compile mode may take to compile one workload (default 150)")
    p.add_argument("--fresh-cache", action="store_true",
                   help="empty Inductor's cache first, so that first-call times include all compilation")
    p.add_argument("--compare", action="store_true", help="only compare the existing CSV files")
    p.add_argument("--ours", default=OURS_CSV,
                   help="tinytrace's results (default bench/out/results.csv); compare.md is written beside it")
    p.add_argument("--worker-mode", help=argparse.SUPPRESS)
    p.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if not args.threads:
        args.threads = sorted({1, os.cpu_count() or 1})
    return args


def load_run_info():
    if os.path.exists(TORCH_RUN_JSON):
        with open(TORCH_RUN_JSON) as f:
            return json.load(f)
    return {}


def main():
    args = parse_args()
    if args.worker_mode:
        run_worker(args)
        return
    if args.compare:
        run_compare(args.ours, load_run_info())
        return
    torch = import_torch_or_exit()
    start = time.perf_counter()
    build = torch_build_info(torch)
    print("torch %s, %s, %d cores, threads %s, modes: %s" % (
        build["torch"], build["parallel_backend"], os.cpu_count(),
        ",".join(map(str, args.threads)), ", ".join(selected_modes(args))))
    print("Note: TorchScript (torch.jit) is deprecated in this torch; its modes are timed as "
          "they still work.\nNote: transformer_s128 in eager/jit may use PyTorch's fused "
          "eval fast path (BetterTransformer kernel); each row says whether it did.")
    records = run_all(args)
    write_torch_csv(records)
    run_s = time.perf_counter() - start
    info = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "cpu": cpu_info(),
            "cores": os.cpu_count(), "build": build, "run_s": run_s,
            "args": {"threads": args.threads, "only": args.only, "quick": args.quick,
                     "skip_compile": args.skip_compile, "compile_budget": args.compile_budget},
            "skipped": [{k: r[k] for k in ("workload", "mode", "threads", "skipped")}
                        for r in records if "skipped" in r],
            "notes": [{k: r[k] for k in ("workload", "mode", "threads", "note")}
                      for r in records if r.get("note")],
            "noise": [{k: r[k] for k in ("workload", "mode", "threads", "other_cores")}
                      for r in records if r.get("other_cores") is not None]}
    with open(TORCH_RUN_JSON, "w") as f:
        json.dump(info, f, indent=1)
    print_torch_table(records)
    print("\nwritten: %s (%d rows); whole run %.0f s" % (
        TORCH_CSV, sum("median_ms" in r for r in records), run_s))
    run_compare(args.ours, info)


if __name__ == "__main__":
    main()
