#!/usr/bin/env python3
"""PyTorch model -> BatchNorm folded -> int8 -> C header for firmware, in three lines:

    m = ef.compile(net, example_inputs=x)                                 # fold, plan, check
    q = ef.compile(net, example_inputs=x, quantize="int8", calibrate=calib)
    q.export_c("net_model.h", name="net")

usage: PYTHONPATH=build/python python3 examples/python/torch_to_c.py [OUT_DIR]
"""
import sys

import numpy as np
import torch

import edgefold as ef


class Net(torch.nn.Module):
    """A small keyword-spotting-sized CNN: conv-BN-ReLU twice, global pool, classifier."""

    def __init__(self, classes=12):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
        self.classifier = torch.nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    torch.manual_seed(0)
    net = Net()
    with torch.no_grad():   # a trained network's BN statistics are not the identity
        net(torch.randn(64, 1, 32, 32))   # (train mode: updates the running statistics)
    net.eval()
    calib = torch.randn(64, 1, 32, 32)
    x = calib[:1]

    m = ef.compile(net, example_inputs=x)
    q = ef.compile(net, example_inputs=x, quantize="int8", calibrate=calib)
    q.export_c(f"{out_dir}/net_model.h", name="net")

    print(m.report)
    with torch.no_grad():
        reference = net(calib[:8]).numpy()
    print(f"float: max |edgefold - PyTorch| = {np.abs(m.run(calib[:8].numpy()) - reference).max():.2e}")
    agree = np.mean(np.argmax(q.run(calib.numpy()), 1) == np.argmax(m.run(calib.numpy()), 1))
    print(f"int8: weights {q.weights_bytes} bytes (float {m.weights_bytes}), arena {q.arena_bytes} bytes, "
          f"top-1 agreement with float {100 * agree:.1f} %")
    print(f"wrote {out_dir}/net_model.h")


if __name__ == "__main__":
    main()
