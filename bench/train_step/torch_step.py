#!/usr/bin/python3
"""One BN-only training step in PyTorch (1 thread): forward in train mode (batch statistics),
cross-entropy, backward, SGD with momentum on the BatchNorm γ, β. The peer of
`edgefold bench MODEL.efb --train` (bench/train_step/run.sh). Dropout is off (edgefold drops
it at compile time). Prints 'model=<name> batch=<n> median_ms=<x>'.
usage: torch_step.py MODEL BATCH [RUNS]
"""
import os
import statistics
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))
import export_models  # noqa: E402


def main():
    name, batch = sys.argv[1], int(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    torch.set_num_threads(1)
    torch.manual_seed(0)
    ctor, shape, _ = export_models.SMALL[name]
    model = ctor()
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
    bn = [p for m in model.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) for p in m.parameters()]
    for p in model.parameters():
        p.requires_grad_(any(p is q for q in bn))
    opt = torch.optim.SGD(bn, lr=0.01, momentum=0.9)
    model.train()
    x = torch.rand((batch,) + tuple(shape[1:])) * 2 - 1
    with torch.no_grad():
        classes = model(x).shape[1]
    y = torch.randint(0, classes, (batch,))
    times = []
    for r in range(5 + runs):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if r >= 5:
            times.append((time.perf_counter() - t0) * 1e3)
    print(f"model={name} batch={batch} median_ms={statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
