#!/usr/bin/python3
"""Real networks for edgefold: export PyTorch models to ONNX with BatchNorm kept, plus the
input and PyTorch's output, for tests/models/real_networks_test.cc.

Every model gets random weights from a fixed seed, and every BatchNorm gets random running
statistics and affine parameters (running_var in [0.5, 2], running_mean ~ N(0, 0.5²),
weight in ±[0.5, 1.5], bias ~ N(0, 0.5²)), so folding is never the identity. Export:
model.eval(), training=TrainingMode.PRESERVE (without it PyTorch 1.13 folds Conv+BN
itself) and do_constant_folding=False, with the opset named per model (11…17).

Output per model NAME, in OUT_DIR:  NAME.onnx  NAME.input.npy  NAME.output.npy
and OUT_DIR/MANIFEST.json (generator, versions, seed, per-model opset and shapes).

Usage:
  /usr/bin/python3 tests/models/export_models.py small [OUT_DIR]   # MCU-class + MLPs (committed,
                                                                   # default tests/models/data)
  /usr/bin/python3 tests/models/export_models.py large OUT_DIR     # torchvision classifiers
  /usr/bin/python3 tests/models/export_models.py NAME... OUT_DIR   # selected models
Needs Debian's python3-torch (and python3-torchvision for the large set). Deterministic.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))


# ---- MCU-class models after MLPerf Tiny's references --------------------------------------

class ResNet8(nn.Module):
    """MLPerf Tiny image classification: CIFAR-10 ResNet-8 (16/32/64 filters), 32×32×3."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.ModuleList([self._block(16, 16, 1), self._block(16, 32, 2), self._block(32, 64, 2)])
        self.shortcuts = nn.ModuleList([nn.Identity(), nn.Conv2d(16, 32, 1, 2), nn.Conv2d(32, 64, 1, 2)])
        self.fc = nn.Linear(64, 10)

    @staticmethod
    def _block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, 1, 1), nn.BatchNorm2d(cout))

    def forward(self, x):
        x = self.stem(x)
        for block, short in zip(self.blocks, self.shortcuts):
            x = torch.relu(block(x) + short(x))
        x = nn.functional.avg_pool2d(x, 8)  # Keras AveragePooling2D(pool_size=8)
        return self.fc(torch.flatten(x, 1))


class DsCnn(nn.Module):
    """MLPerf Tiny keyword spotting: DS-CNN (64 filters, 4 depthwise-separable layers), 49×10×1."""

    def __init__(self, filters=64, classes=12):
        super().__init__()
        layers = [nn.Conv2d(1, filters, (10, 4), (2, 2), (5, 1)), nn.BatchNorm2d(filters), nn.ReLU(), nn.Dropout(0.2)]
        for _ in range(4):
            layers += [nn.Conv2d(filters, filters, 3, 1, 1, groups=filters), nn.BatchNorm2d(filters), nn.ReLU(),
                       nn.Conv2d(filters, filters, 1), nn.BatchNorm2d(filters), nn.ReLU()]
        self.features = nn.Sequential(*layers, nn.Dropout(0.4))
        self.fc = nn.Linear(filters, classes)

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.avg_pool2d(x, (25, 5))
        return self.fc(x.view(x.size(0), -1))


class MobileNetV1(nn.Module):
    """MLPerf Tiny visual wake words: MobileNetV1 α=0.25, 96×96×3, 2 classes. ReLU6 → Clip."""

    def __init__(self, alpha=0.25, classes=2):
        super().__init__()
        c = lambda n: int(n * alpha)
        cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
        layers = [nn.Conv2d(3, c(32), 3, 2, 1, bias=False), nn.BatchNorm2d(c(32)), nn.ReLU6()]
        cin = c(32)
        for cout, stride in cfg:
            layers += [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(),
                       nn.Conv2d(cin, c(cout), 1, bias=False), nn.BatchNorm2d(c(cout)), nn.ReLU6()]
            cin = c(cout)
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class FcAutoencoder(nn.Module):
    """MLPerf Tiny anomaly detection autoencoder (Linear→BatchNorm1d→ReLU), scaled down to
    a 64-wide input (the reference uses 640) to keep the committed file small."""

    def __init__(self, dims=(64, 32, 32, 8, 32, 32, 64)):
        super().__init__()
        layers = []
        for i in range(len(dims) - 2):
            layers += [nn.Linear(dims[i], dims[i + 1]), nn.BatchNorm1d(dims[i + 1]), nn.ReLU()]
        layers.append(nn.Linear(dims[-2], dims[-1]))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class MlpBn1d(nn.Module):
    """MLP with BatchNorm1d after bias-free Linear layers (MatMul in the export), BN→Linear
    (forward fold), and BN on the input features."""

    def __init__(self):
        super().__init__()
        self.bn_in = nn.BatchNorm1d(20)
        self.fc1 = nn.Linear(20, 48, bias=False)
        self.bn1 = nn.BatchNorm1d(48)
        self.fc2 = nn.Linear(48, 32)
        self.bn2 = nn.BatchNorm1d(32)
        self.fc3 = nn.Linear(32, 5)

    def forward(self, x):
        x = self.fc1(self.bn_in(x))
        x = torch.relu(self.bn1(x))
        x = self.bn2(torch.relu(self.fc2(x)))   # BN after Relu: forward into fc3
        return self.fc3(x)


class BnPositions(nn.Module):
    """BatchNorm in every position: Conv→BN whose conv output is also used elsewhere,
    BN→1×1 Conv (forward fold), BN→padded Conv (kept affine), pre-activation BN→Relu→Conv,
    BatchNorm1d on (N,C,L) after Conv1d, Hardswish, SE block, Sub/Div."""

    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(3, 8, 3, 1, 1)
        self.bn0 = nn.BatchNorm2d(8)
        self.bn_fwd = nn.BatchNorm2d(8)
        self.conv1x1 = nn.Conv2d(8, 12, 1)
        self.bn_pad = nn.BatchNorm2d(12)
        self.conv_pad = nn.Conv2d(12, 12, 3, 1, 1, bias=False)
        self.bn_pre = nn.BatchNorm2d(12)
        self.conv_pre = nn.Conv2d(12, 16, 3, 2, 0)
        self.se_fc1 = nn.Conv2d(16, 4, 1)
        self.se_fc2 = nn.Conv2d(4, 16, 1)
        self.conv1d = nn.Conv1d(16, 8, 3)
        self.bn1d = nn.BatchNorm1d(8)
        self.fc = nn.Linear(8 * 47, 6)

    def forward(self, x):
        a = self.conv0(x)
        y = self.bn0(a) + a                        # conv output has two consumers
        y = self.conv1x1(self.bn_fwd(y))            # BN → unpadded conv: fold forward
        y = nn.functional.max_pool2d(y, 3, 1, 1)
        y = self.conv_pad(self.bn_pad(y))           # pool → BN → padded conv: keep affine
        y = self.conv_pre(torch.relu(self.bn_pre(y)))  # pre-activation
        y = nn.functional.hardswish(y)
        s = torch.sigmoid(self.se_fc2(torch.relu(self.se_fc1(y.mean((2, 3), keepdim=True)))))
        y = (y * s - 0.25) / 1.5
        y = torch.relu(self.bn1d(self.conv1d(y.flatten(2))))   # (N, C, L)
        return self.fc(y.flatten(1))


# ---- registry ----------------------------------------------------------------------------

def tv(name, **kw):
    def make():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kw)
    return make


# name: (constructor, input shape, opset)
SMALL = {
    "resnet8": (ResNet8, (1, 3, 32, 32), 13),
    "ds_cnn": (DsCnn, (1, 1, 49, 10), 11),
    "mobilenet_v1_025": (MobileNetV1, (1, 3, 96, 96), 12),
    "fc_autoencoder": (FcAutoencoder, (1, 64), 14),
    "mlp_bn1d": (MlpBn1d, (4, 20), 15),
    "bn_positions": (BnPositions, (1, 3, 16, 16), 17),
}
LARGE = {
    "resnet18": (tv("resnet18"), (1, 3, 224, 224), 11),
    "resnet34": (tv("resnet34"), (1, 3, 224, 224), 12),
    "resnet50": (tv("resnet50"), (1, 3, 224, 224), 13),
    "mobilenet_v2": (tv("mobilenet_v2"), (1, 3, 224, 224), 14),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), (1, 3, 224, 224), 15),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), (1, 3, 224, 224), 16),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), (1, 3, 224, 224), 17),
    "efficientnet_b0": (tv("efficientnet_b0"), (1, 3, 224, 224), 13),
    "mnasnet1_0": (tv("mnasnet1_0"), (1, 3, 224, 224), 12),
    "regnet_y_400mf": (tv("regnet_y_400mf"), (1, 3, 224, 224), 14),
    "densenet121": (tv("densenet121"), (1, 3, 224, 224), 11),
    "squeezenet1_1": (tv("squeezenet1_1"), (1, 3, 224, 224), 16),
}


def randomize_batchnorms(model, gen):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.5)
                m.running_var.copy_(torch.rand(c, generator=gen) * 1.5 + 0.5)
                sign = torch.where(torch.rand(c, generator=gen) < 0.2, -1.0, 1.0)
                m.weight.copy_(sign * (torch.rand(c, generator=gen) + 0.5))
                m.bias.copy_(torch.randn(c, generator=gen) * 0.5)


def export(name, make, shape, opset, out_dir):
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 1)
    model = make().eval()
    randomize_batchnorms(model, gen)
    x = torch.randn(*shape, generator=gen)
    with torch.no_grad():
        y = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=opset, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"], output_names=["output"])
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".output.npy"), y.numpy().astype(np.float32))
    bns = sum(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())
    print(f"{name}: opset {opset}, input {list(shape)}, output {list(y.shape)}, {bns} BN, "
          f"{os.path.getsize(path)} bytes")
    return {"opset": opset, "input_shape": list(shape), "output_shape": list(y.shape), "batchnorms": bns}


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    which = argv[0]
    if which == "small":
        models, out_dir = SMALL, argv[1] if len(argv) > 1 else os.path.join(HERE, "data")
    elif which == "large":
        if len(argv) < 2:
            print("large needs OUT_DIR (not committed)")
            return 2
        models, out_dir = LARGE, argv[1]
    else:
        everything = {**SMALL, **LARGE}
        names, out_dir = argv[:-1], argv[-1]
        unknown = [n for n in names if n not in everything]
        if unknown or not names:
            print("unknown models: %s (known: %s)" % (unknown, ", ".join(everything)))
            return 2
        models = {n: everything[n] for n in names}
    os.makedirs(out_dir, exist_ok=True)
    manifest = {"generator": "tests/models/export_models.py", "torch": torch.__version__, "seed": SEED,
                "models": {}}
    try:
        import torchvision
        manifest["torchvision"] = torchvision.__version__
    except ImportError:
        pass
    for name, (make, shape, opset) in models.items():
        manifest["models"][name] = export(name, make, shape, opset, out_dir)
    with open(os.path.join(out_dir, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
