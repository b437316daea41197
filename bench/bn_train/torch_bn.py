#!/usr/bin/python3
"""PyTorch side of the BN training benchmark: F.batch_norm(training=True) forward and its
backward (autograd), one thread, float32, NCHW contiguous. Best (minimum) of REPS runs
after a warm-up, as the C++ side; one line per shape:  torch shape=NxCxHxW fwd_ms=… bwd_ms=… total_ms=…
Usage: torch_bn.py [reps]"""
import sys
import time

import torch
import torch.nn.functional as F

SHAPES = [(32, 64, 56, 56), (8, 64, 56, 56), (32, 128, 28, 28), (1, 32, 16, 16)]


def run(shape, reps):
    torch.manual_seed(7)
    x = (torch.randn(shape) * 2 + 0.5).requires_grad_(True)
    c = shape[1]
    w = torch.full((c,), 1.1, requires_grad=True)
    b = torch.full((c,), 0.1, requires_grad=True)
    rm, rv = torch.zeros(c), torch.ones(c)
    dy = torch.randn(shape)
    fwd, bwd = [], []
    for r in range(reps + 1):
        x.grad = w.grad = b.grad = None
        t0 = time.perf_counter()
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)
        t1 = time.perf_counter()
        y.backward(dy)
        t2 = time.perf_counter()
        if r > 0:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
    f, g = min(fwd), min(bwd)
    print("torch shape=%s fwd_ms=%.3f bwd_ms=%.3f total_ms=%.3f"
          % ("x".join(map(str, shape)), f * 1e3, g * 1e3, (f + g) * 1e3), flush=True)


def main():
    torch.set_num_threads(1)
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for shape in SHAPES:
        n = shape[0] * shape[1] * shape[2] * shape[3]
        run(shape, reps * 50 if n < 100000 else reps)


if __name__ == "__main__":
    main()
