#!/usr/bin/python3
"""PyTorch latency of one benchmark model: 1 thread, eval, no_grad.

Usage: bench/torch_bench.py NAME INPUT.bin OUTPUT.bin RUNS WARMUP
Rebuilds NAME exactly as export_models.py does (same seeds, so the same weights as the ONNX
file), runs it on INPUT.bin, writes the output as raw float32 and prints
  median_ms=<x> vmhwm_kb=<peak RSS of this process>
"""
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402


def vmhwm_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main():
    name, input_path, output_path = sys.argv[1:4]
    runs, warmup = int(sys.argv[4]), int(sys.argv[5])
    torch.set_num_threads(1)
    make, shape = export_models.MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = make().eval()
    with torch.no_grad():
        export_models.randomize_bn(model, gen)
    x = torch.from_numpy(np.fromfile(input_path, dtype=np.float32).reshape(shape))
    ms = []
    with torch.no_grad():
        for r in range(warmup + runs):
            t0 = time.perf_counter()
            y = model(x)
            t1 = time.perf_counter()
            if r >= warmup:
                ms.append((t1 - t0) * 1e3)
    y.numpy().astype(np.float32).tofile(output_path)
    print(f"median_ms={float(np.median(ms)):.4f} vmhwm_kb={vmhwm_kb()}")


if __name__ == "__main__":
    main()
