#!/usr/bin/python3
"""Exports the MLPerf Tiny keyword-spotting DS-CNN (reference architecture, 49x10x1 MFCC
input, 12 classes) as ONNX with random-but-fixed weights and randomized BatchNorm statistics,
so BN folding is exercised. Not trained: the scores only need to match between targets.

Architecture (MLPerf Tiny KWS reference, "DS-CNN small"):
  Conv 64 @10x4 stride 2 (pad 5,1 -> 25x5) + BN + ReLU
  4 x [depthwise 3x3 pad 1 + BN + ReLU, pointwise 1x1 64 + BN + ReLU]
  AveragePool 25x5 -> Flatten -> Linear 64->12 -> Softmax
usage: /usr/bin/python3 make_kws.py [OUT.onnx]   (default: kws_dscnn.onnx next to this file)
"""
import os
import sys

import torch
from torch import nn

SEED = 20240601


def conv_bn_relu(cin, cout, kernel, stride, padding, groups=1):
    return [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


def build_dscnn():
    layers = conv_bn_relu(1, 64, (10, 4), (2, 2), (5, 1))
    for _ in range(4):
        layers += conv_bn_relu(64, 64, 3, 1, 1, groups=64)   # depthwise
        layers += conv_bn_relu(64, 64, 1, 1, 0)              # pointwise
    layers += [nn.AvgPool2d((25, 5)), nn.Flatten(), nn.Linear(64, 12), nn.Softmax(dim=1)]
    return nn.Sequential(*layers)


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(0.1 * torch.randn(n, generator=gen))
            m.running_var.copy_(0.5 + torch.rand(n, generator=gen))
            m.weight.data.copy_(0.5 + torch.rand(n, generator=gen))
            m.bias.data.copy_(0.1 * torch.randn(n, generator=gen))


def stamp(path):
    """Records the generator, seed and torch version in the model's metadata."""
    import onnx
    m = onnx.load(path)
    m.doc_string = f"examples/mcu/make_kws.py seed={SEED} torch={torch.__version__}"
    onnx.save(m, path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "kws_dscnn.onnx")
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = build_dscnn()
    with torch.no_grad():
        randomize_batchnorm(model, gen)
    x = torch.randn(1, 1, 49, 10, generator=gen)
    torch.onnx.export(model.eval(), x, out, input_names=["mfcc"], output_names=["scores"],
                      opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    stamp(out)
    print(f"wrote {out} ({os.path.getsize(out)} bytes), torch {torch.__version__}")


if __name__ == "__main__":
    main()
