#!/usr/bin/python3
"""int8 accuracy on trained networks: float vs --quantize int8, same ONNX file.

Trains three small networks on sklearn's 8x8 digits (the split of examples/digits: 25 % test,
stratified, seed 20240601; pixels / 16): a plain CNN (examples/digits' architecture), a
depthwise-separable one (DS-CNN style) and a MobileNetV3-style one (hard-swish, a
squeeze-excitation block). Each is exported to ONNX at batch 1 (`edgefold run` slices the test set),
compiled by edgefold float and int8 (calibration: 128 training images), run on the test set,
and compared: top-1 of float and int8 against the labels, and int8's top-1 agreement with
float (the goals of docs/quantization.md: within 1 point, >= 98 %).
Usage: bench/int8/accuracy.py EDGEFOLD_BIN WORK_DIR   (needs python3-torch, python3-sklearn)
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 20240601


def plain_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, groups=2), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(128, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 10))


def separable(cin, cout, stride):
    return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(),
            nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6()]


def depthwise_separable():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU6(),
        *separable(16, 32, 1), *separable(32, 64, 2), *separable(64, 64, 1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


class SqueezeExcite(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c // 4, 1), nn.ReLU(),
                                nn.Conv2d(c // 4, c, 1), nn.Hardsigmoid())

    def forward(self, x):
        return x * self.fc(x)


def mobilenet_v3_style():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.Hardswish(),
        nn.Conv2d(16, 48, 1, bias=False), nn.BatchNorm2d(48), nn.Hardswish(),
        nn.Conv2d(48, 48, 3, 2, 1, groups=48, bias=False), nn.BatchNorm2d(48), nn.Hardswish(),
        SqueezeExcite(48),
        nn.Conv2d(48, 32, 1, bias=False), nn.BatchNorm2d(32),
        nn.Conv2d(32, 64, 1, bias=False), nn.BatchNorm2d(64), nn.Hardswish(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def train(model, x, y, epochs=60):
    torch.manual_seed(SEED)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            if len(idx) < 2:
                continue
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
    return model.eval()


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return out.stdout


def main():
    edgefold, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, stratify=y, random_state=SEED)
    np.save(os.path.join(work, "test_x.npy"), x_test)
    np.save(os.path.join(work, "calib.npy"), x_train[:128])
    print(f"{'network (clipping)':<28} {'float top-1':>11} {'int8 top-1':>10} {'agreement':>9} {'PyTorch':>8}  int8 layers / float ops")
    for name, make in (("plain CNN", plain_cnn), ("depthwise-separable", depthwise_separable),
                       ("MobileNetV3-style", mobilenet_v3_style)):
        torch.manual_seed(SEED)
        model = train(make(), x_train, y_train)
        with torch.no_grad():
            torch_top1 = (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
        stem = os.path.join(work, name.split()[0].lower().replace("-", "_"))
        torch.onnx.export(model, torch.from_numpy(x_test[:1]), stem + ".onnx", opset_version=13,
                          input_names=["x"], output_names=["logits"],
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
        run([edgefold, "compile", stem + ".onnx", "-o", stem + ".efb"])
        run([edgefold, "run", stem + ".efb", "-i", os.path.join(work, "test_x.npy"), "-o", stem + ".out.npy"])
        f = np.load(stem + ".out.npy").argmax(1)
        for clip in ("minmax", "mse"):   # --quantize-clip: the activation ranges' clipping
            report = run([edgefold, "compile", stem + ".onnx", "--quantize", "int8", "--calibrate",
                          os.path.join(work, "calib.npy"), "--quantize-clip", clip, "-o", stem + ".int8.efb"])
            layers = next((l.split(":", 1)[1].strip() for l in report.splitlines() if l.startswith("int8:")), "?")
            run([edgefold, "run", stem + ".int8.efb", "-i", os.path.join(work, "test_x.npy"),
                 "-o", stem + ".int8.out.npy"])
            q = np.load(stem + ".int8.out.npy").argmax(1)
            print(f"{name + ' (' + clip + ')':<28} {100 * (f == y_test).mean():10.2f}% {100 * (q == y_test).mean():9.2f}% "
                  f"{100 * (f == q).mean():8.2f}% {100 * torch_top1:7.2f}%  {layers}")


if __name__ == "__main__":
    main()
