#!/usr/bin/python3
"""Exports the benchmark networks to ONNX (random weights, randomized BN statistics).

Usage: bench/export_models.py OUT_DIR
Writes OUT_DIR/<name>.onnx and its input (one float32 NCHW tensor, fixed seed) as raw
<name>.input.bin and <name>.input.npy. Optional further args: only these model names.
The BN layers stay in the graph (TrainingMode.PRESERVE, no constant folding), so edgefold's
compiler folds them itself, exactly as it would for a user's export.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


def conv_bn(cin, cout, k, stride=1, groups=1, pad=None):
    pad = k // 2 if pad is None else pad
    return [nn.Conv2d(cin, cout, k, stride, pad, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class ResNet8(nn.Module):
    """MLPerf Tiny image classification (CIFAR-10, 32x32x3): 3 residual stages of 16/32/64."""

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, cout, 3, stride)[:3],
                                      nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else nn.Identity())

        def forward(self, x):
            return torch.relu(self.body(x) + self.skip(x))

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn(3, 16, 3))
        self.blocks = nn.Sequential(self.Block(16, 16, 1), self.Block(16, 32, 2), self.Block(32, 64, 2))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def ds_cnn():
    """MLPerf Tiny keyword spotting (49x10 MFCC, 1 channel): conv 10x4/2 then 4 depthwise-separable blocks."""
    layers = [nn.Conv2d(1, 64, (10, 4), (2, 2), (5, 1), bias=False), nn.BatchNorm2d(64), nn.ReLU()]
    for _ in range(4):
        layers += conv_bn(64, 64, 3, groups=64) + conv_bn(64, 64, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 12)]
    return nn.Sequential(*layers)


def mobilenet_v1(alpha=0.25, classes=2):
    """MLPerf Tiny visual wake words: MobileNetV1 width 0.25 at 96x96x3."""
    cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    c = int(32 * alpha)
    layers = conv_bn(3, c, 3, 2)
    for cout, s in cfg:
        cout = int(cout * alpha)
        layers += conv_bn(c, c, 3, s, groups=c) + conv_bn(c, cout, 1)
        c = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes)]
    return nn.Sequential(*layers)


class UNetSmall(nn.Module):
    """A small U-Net for segmentation at 224x224x3 (16/32/64 channels): conv-BN-ReLU encoder,
    ConvTranspose2d + BN decoder with skip concatenations, 2 output classes."""

    def __init__(self, c=16, classes=2):
        super().__init__()
        block = lambda cin, cout: nn.Sequential(*conv_bn(cin, cout, 3), *conv_bn(cout, cout, 3))
        self.enc1, self.enc2, self.enc3 = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.Sequential(nn.ConvTranspose2d(4 * c, 2 * c, 2, 2, bias=False), nn.BatchNorm2d(2 * c), nn.ReLU())
        self.dec2 = block(4 * c, 2 * c)
        self.up1 = nn.Sequential(nn.ConvTranspose2d(2 * c, c, 2, 2, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.dec1 = block(2 * c, c)
        self.out = nn.Conv2d(c, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(e3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.out(d1)


class LrAspp(nn.Module):
    """torchvision's LR-ASPP MobileNetV3-Large segmentation head (bilinear Resize), 'out' only."""

    def __init__(self):
        super().__init__()
        self.net = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)

    def forward(self, x):
        return self.net(x)["out"]


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(), (1, 3, 224, 224)),
    "shufflenet_v2": (lambda: torchvision.models.shufflenet_v2_x1_0(), (1, 3, 224, 224)),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(), (1, 3, 224, 224)),
    "resnet8": (ResNet8, (1, 3, 32, 32)),
    "ds_cnn": (ds_cnn, (1, 1, 49, 10)),
    "mobilenet_v1_025_vww": (mobilenet_v1, (1, 3, 96, 96)),
    # Edge workloads beyond classification (issue 14): not in the default run's geomean set.
    "lraspp_mobilenet_v3": (LrAspp, (1, 3, 224, 224)),
    "unet_small": (UNetSmall, (1, 3, 224, 224)),
    # More torchvision classifiers, only when named: grouped convs (RegNetX, ResNeXt), squeeze-
    # excitation (RegNetY), 5x5 depthwise (MNASNet), fire modules (SqueezeNet), dense concat.
    "regnet_x_400mf": (lambda: torchvision.models.regnet_x_400mf(), (1, 3, 224, 224)),
    "regnet_y_400mf": (lambda: torchvision.models.regnet_y_400mf(), (1, 3, 224, 224)),
    "mnasnet1_0": (lambda: torchvision.models.mnasnet1_0(), (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), (1, 3, 224, 224)),
    "resnext50_32x4d": (lambda: torchvision.models.resnext50_32x4d(), (1, 3, 224, 224)),
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 224, 224)),
    "mobilenet_v3_large": (lambda: torchvision.models.mobilenet_v3_large(), (1, 3, 224, 224)),
}


def randomize_bn(model, gen):
    """Non-trivial BN statistics and affine so that folding is actually exercised."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(c, generator=gen) * 0.1)


def main():
    out = sys.argv[1]
    only = sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for name, (make, shape) in MODELS.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(1)
        model = make().eval()
        with torch.no_grad():
            randomize_bn(model, gen)
        x = torch.randn(*shape, generator=gen)
        torch.onnx.export(model, x, os.path.join(out, name + ".onnx"), input_names=["input"],
                          output_names=["output"], opset_version=13, do_constant_folding=False,
                          training=torch.onnx.TrainingMode.PRESERVE)
        x.numpy().astype(np.float32).tofile(os.path.join(out, name + ".input.bin"))
        np.save(os.path.join(out, name + ".input.npy"), x.numpy().astype(np.float32))
        print(f"exported {name} {list(shape)}", flush=True)


if __name__ == "__main__":
    main()
