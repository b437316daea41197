#!/usr/bin/python3
"""Exports the ONNX models bench/segments/run.sh times (random weights, randomized BN statistics).

Usage: export_segments.py OUT_DIR
  mnv2_k.onnx       torchvision MobileNetV2's features[:k] at 224² (k = 1 4 7 11 14 17 18): the
                    difference of two cuts is one segment's time in either engine
  chain_KIND_C_S    eight identical blocks at S² with C channels (ONNX Runtime reorders to and
                    from its NCHWc layout once per model, so per block that is a small share):
                    pw = 1×1 C→6C, ReLU6, 1×1 6C→C; dw = 3×3 depthwise on 6C, ReLU6;
                    ir = inverted residual (expand, depthwise, project, add)
"""
import os
import sys

import torch
import torchvision

CUTS = (1, 4, 7, 11, 14, 17, 18)
CHAINS = (("pw", 24, 56), ("pw", 32, 28), ("pw", 96, 14), ("pw", 160, 7), ("dw", 96, 14), ("dw", 160, 7),
          ("ir", 24, 56), ("ir", 32, 28), ("ir", 96, 14), ("ir", 160, 7))


class InvertedResidual(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        e = 6 * c
        self.block = torch.nn.Sequential(torch.nn.Conv2d(c, e, 1), torch.nn.ReLU6(),
                                         torch.nn.Conv2d(e, e, 3, 1, 1, groups=e), torch.nn.ReLU6(),
                                         torch.nn.Conv2d(e, c, 1))

    def forward(self, x):
        return x + self.block(x)


def chain(kind, c, blocks=8):
    e = 6 * c
    layers = []
    for _ in range(blocks):
        if kind == "pw":
            layers += [torch.nn.Conv2d(c, e, 1), torch.nn.ReLU6(), torch.nn.Conv2d(e, c, 1)]
        elif kind == "dw":
            layers += [torch.nn.Conv2d(e, e, 3, 1, 1, groups=e), torch.nn.ReLU6()]
        else:
            layers.append(InvertedResidual(c))
    return torch.nn.Sequential(*layers).eval(), e if kind == "dw" else c


def export(model, channels, size, path):
    torch.onnx.export(model, torch.randn(1, channels, size, size), path, opset_version=13)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    net = torchvision.models.mobilenet_v2(weights=None).eval()
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    for k in CUTS:
        export(net.features[:k], 3, 224, os.path.join(out, f"mnv2_{k}.onnx"))
    for kind, c, size in CHAINS:
        model, channels = chain(kind, c)
        export(model, channels, size, os.path.join(out, f"chain_{kind}_{c}_{size}.onnx"))


if __name__ == "__main__":
    main()
