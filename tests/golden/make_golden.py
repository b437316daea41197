#!/usr/bin/python3
"""Golden test cases: small PyTorch models with BatchNorm in many positions.

Each case is written as an ONNX backend test directory, the layout of ONNX's own node tests:
  tests/golden/data/<name>/model.onnx
  tests/golden/data/<name>/test_data_set_0/input_0.pb   (TensorProto, float32)
  tests/golden/data/<name>/test_data_set_0/output_0.pb  (PyTorch eval-mode output)
and tests/golden/data/MANIFEST.json stamps the generator, versions and seed.

Every BatchNorm gets random statistics (running_var in [0.5, 2], running_mean ~ N(0,1),
weight in [0.5, 1.5] with random sign, bias ~ N(0, 0.5)) so that folding is never the identity.
Export: eval mode, TrainingMode.PRESERVE and no constant folding, so BatchNormalization nodes
survive into the ONNX graph; opset 13 unless the case says otherwise.

Run: /usr/bin/python3 tests/golden/make_golden.py   (deterministic; rewrites data/)
"""
import datetime
import hashlib
import json
import os
import shutil
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

SEED = 1234
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def bn2(c):
    return nn.BatchNorm2d(c)


class Residual(nn.Module):
    """relu(x + bn(conv(relu(bn(conv(x))))))"""

    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn2(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn2(c)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class ConcatBranches(nn.Module):
    """concat(relu(bn(conv1x1(x))), relu(bn(conv3x3(x)))) on channels, then conv-bn."""

    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(4, 6, 1), bn2(6), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(4, 5, 3, padding=1), bn2(5), nn.ReLU())
        self.out = nn.Sequential(nn.Conv2d(11, 8, 1), bn2(8))

    def forward(self, x):
        return self.out(torch.cat([self.a(x), self.b(x)], dim=1))


class SkipAddMul(nn.Module):
    """bn(conv(x)) * sigmoid(bn(conv(x))) - x / 2: binary ops around folded convs."""

    def __init__(self):
        super().__init__()
        self.p = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), bn2(3))
        self.q = nn.Sequential(nn.Conv2d(3, 3, 1), bn2(3))

    def forward(self, x):
        return self.p(x) * torch.sigmoid(self.q(x)) - x / 2


def S(*layers):
    return nn.Sequential(*layers)


def build_cases():
    """name → (module, input shape, opset). Weights come from torch's global seed."""
    torch.manual_seed(SEED)
    return {
        "conv_bn": (S(nn.Conv2d(3, 8, 3), bn2(8)), (1, 3, 9, 9), 13),
        "conv_bn_relu": (S(nn.Conv2d(3, 8, 3, padding=1), bn2(8), nn.ReLU()), (1, 3, 8, 8), 13),
        "conv_nobias_bn_relu": (S(nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False), bn2(6),
                                  nn.ReLU()), (1, 4, 11, 11), 13),
        "conv_grouped_bn": (S(nn.Conv2d(8, 12, 3, padding=1, groups=4), bn2(12), nn.ReLU()),
                            (1, 8, 7, 7), 13),
        "conv_depthwise_bn_relu6": (S(nn.Conv2d(6, 6, 3, padding=1, groups=6, bias=False), bn2(6),
                                      nn.ReLU6()), (1, 6, 10, 10), 13),
        "conv_dilated_bn": (S(nn.Conv2d(3, 5, 3, padding=2, dilation=2), bn2(5)), (1, 3, 9, 9), 13),
        "conv_batch2_bn": (S(nn.Conv2d(2, 4, 3, padding=1), bn2(4), nn.ReLU()), (2, 2, 6, 6), 13),
        "conv1d_bn1d_relu": (S(nn.Conv1d(3, 6, 3, padding=1), nn.BatchNorm1d(6), nn.ReLU()),
                             (1, 3, 17), 13),
        "linear_bn1d_relu": (S(nn.Linear(20, 16), nn.BatchNorm1d(16), nn.ReLU()), (2, 20), 13),
        "linear_nobias_bn1d": (S(nn.Linear(20, 12, bias=False), nn.BatchNorm1d(12)), (3, 20), 13),
        "bn_only_2d": (S(bn2(5)), (1, 5, 4, 6), 13),
        "bn_first_then_conv": (S(bn2(3), nn.Conv2d(3, 4, 3), nn.ReLU()), (1, 3, 7, 7), 13),
        "bn_first_then_conv_padded": (S(bn2(3), nn.Conv2d(3, 4, 3, padding=1)), (1, 3, 6, 6), 13),
        "relu_bn_conv": (S(nn.Conv2d(3, 4, 3), nn.ReLU(), bn2(4), nn.Conv2d(4, 4, 1)),
                         (1, 3, 8, 8), 13),
        "residual_block": (S(nn.Conv2d(3, 8, 3, padding=1), bn2(8), nn.ReLU(), Residual(8)),
                           (1, 3, 8, 8), 13),
        "maxpool_padded": (S(nn.Conv2d(3, 4, 3, padding=1), bn2(4), nn.ReLU(),
                             nn.MaxPool2d(3, stride=2, padding=1)), (1, 3, 9, 9), 13),
        "avgpool_padded_incl": (S(nn.Conv2d(3, 4, 3), bn2(4),
                                  nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=True)),
                                (1, 3, 10, 10), 13),
        "avgpool_padded_excl": (S(nn.Conv2d(3, 4, 3), bn2(4),
                                  nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)),
                                (1, 3, 10, 10), 13),
        "global_avgpool_linear": (S(nn.Conv2d(3, 8, 3), bn2(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                    nn.Flatten(), nn.Linear(8, 5)), (1, 3, 7, 7), 13),
        "concat_branches": (ConcatBranches(), (1, 4, 6, 6), 13),
        "hardswish": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.Hardswish()), (1, 3, 6, 6), 13),
        "leakyrelu": (S(nn.Conv2d(3, 6, 3), bn2(6), nn.LeakyReLU(0.1)), (1, 3, 7, 7), 13),
        "prelu_channel": (S(nn.Conv2d(3, 6, 3), bn2(6), nn.PReLU(6)), (1, 3, 7, 7), 13),
        "sigmoid_mul": (SkipAddMul(), (1, 3, 6, 6), 13),
        "softmax_head": (S(nn.Flatten(), nn.Linear(48, 16), nn.BatchNorm1d(16), nn.ReLU(),
                           nn.Linear(16, 10), nn.Softmax(dim=1)), (1, 3, 4, 4), 13),
        "flatten_linear": (S(nn.Conv2d(2, 4, 3, padding=1), bn2(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 3 * 3, 7)), (1, 2, 6, 6), 13),
        "opset11_conv_bn_relu6": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.ReLU6(),
                                    nn.MaxPool2d(2)), (1, 3, 8, 8), 11),
        "opset11_linear_bn1d": (S(nn.Linear(10, 8), nn.BatchNorm1d(8), nn.ReLU(),
                                  nn.Linear(8, 4)), (2, 10), 11),
    }


def randomize(module, gen):
    """Random BN statistics and a few random PReLU slopes, so nothing folds trivially."""
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen))
            m.running_var.copy_(0.5 + 1.5 * torch.rand(c, generator=gen))
            sign = torch.where(torch.rand(c, generator=gen) < 0.2, -1.0, 1.0)
            m.weight.data.copy_(sign * (0.5 + torch.rand(c, generator=gen)))
            m.bias.data.copy_(0.5 * torch.randn(c, generator=gen))
        elif isinstance(m, nn.PReLU):
            m.weight.data.copy_(0.5 * torch.rand(m.weight.shape, generator=gen))


def write_case(name, module, shape, opset, gen):
    case_dir = os.path.join(OUT_DIR, name)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    with torch.no_grad():
        randomize(module, gen)
    module.eval()
    x = torch.randn(*shape, generator=gen)
    with torch.no_grad():
        y = module(x)
    path = os.path.join(case_dir, "model.onnx")
    torch.onnx.export(module, x, path, opset_version=opset, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["x"], output_names=["y"])
    model = onnx.load(path)
    onnx.checker.check_model(model)
    ops = [n.op_type for n in model.graph.node]
    want_bn = sum(isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) for m in module.modules())
    if ops.count("BatchNormalization") != want_bn:
        sys.exit(f"{name}: expected {want_bn} BatchNormalization nodes, graph has {ops}")
    for fname, t, tname in (("input_0.pb", x, "x"), ("output_0.pb", y, "y")):
        proto = numpy_helper.from_array(t.numpy().astype(np.float32), tname)
        with open(os.path.join(data_dir, fname), "wb") as f:
            f.write(proto.SerializeToString())
    return {"ops": sorted(set(ops)), "batchnorm": want_bn, "input_shape": list(shape),
            "opset": opset}


def main():
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(SEED)
    if os.path.isdir(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    os.makedirs(OUT_DIR)
    cases = {}
    for name, (module, shape, opset) in build_cases().items():
        cases[name] = write_case(name, module, shape, opset, gen)
        print(f"{name:28s} {' '.join(cases[name]['ops'])}")
    with open(os.path.abspath(__file__), "rb") as f:
        script_sha = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "generator": "tests/golden/make_golden.py", "generator_sha256": script_sha,
        "torch": torch.__version__, "onnx": onnx.__version__, "numpy": np.__version__,
        "seed": SEED, "export": "eval, TrainingMode.PRESERVE, do_constant_folding=False",
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cases": cases,
    }
    with open(os.path.join(OUT_DIR, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
