"""PyTorch on the GPU, the same workloads as bench/bench_cuda.cu (from compare_torch.py's
model definitions): median ms per call, eager and replayed as a CUDA graph, fp32 with TF32 off
(tinytrace's GPU backend computes in fp32 on the CUDA cores). Run it on the machine with the
GPU, beside `make bench-cuda`; it is not a test and not a dependency of anything.

    python3 bench/torch_cuda.py
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (the model definitions)

WORKLOADS = ["chain", "sgemm_4096", "simplecnn_b1", "simplecnn_b16", "transformer_s128",
             "alexnet_b1", "resnet18_b1", "resnet18_b16", "mobilenetv2_b1", "mobilenetv2_b16",
             "dispatch_1000"]
RUNS = 21


def median_ms(fn, torch):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def as_cuda_graph(model, inputs, torch):
    """The model captured once and replayed (what TT_MODE_REDUCE_OVERHEAD does)."""
    static_in = [x.clone() for x in inputs]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            model(*static_in)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(*static_in)
    return graph.replay


def main():
    import torch
    if not torch.cuda.is_available():
        print("torch_cuda.py: no CUDA device: nothing measured")
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    print("device: %s, torch %s, cuDNN %s" % (torch.cuda.get_device_name(0), torch.__version__,
                                              torch.backends.cudnn.version()))
    print("%-18s %12s %12s" % ("workload", "eager ms", "CUDA graph ms"))
    for name in WORKLOADS:
        model, inputs, _, _ = compare_torch.make_workload(name, torch)
        model = model.cuda()
        inputs = tuple(x.cuda() for x in inputs)
        with torch.inference_mode():
            eager = median_ms(lambda: model(*inputs), torch)
            replay = median_ms(as_cuda_graph(model, inputs, torch), torch)
        print("%-18s %12.3f %12.3f" % (name, eager, replay))


if __name__ == "__main__":
    main()
