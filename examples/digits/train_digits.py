#!/usr/bin/python3
"""Train the bundled example network: a small CNN with BatchNorm on sklearn's 8x8 digits.

Writes, next to this script (all committed, < 200 KB together):
  digits_cnn.onnx                    opset 13, batch fixed at 1, BatchNormalization nodes kept
                                     (TrainingMode.PRESERVE, no constant folding) so the
                                     edgefold compiler has BN to fold.
  digits_test_x.npy                  float32 [N,1,8,8] test images
  digits_test_y.npy                  int64   [N]       test labels
  digits_test_logits_pytorch.npy     float32 [N,10]    PyTorch eval-mode logits
  pytorch_accuracy.txt               one line: test accuracy of the PyTorch model
  MANIFEST.json                      generator, versions, seed, split, date

Input contract: pixel = raw_value / 16. sklearn's digits hold integers 0..16, so the network
sees values in [0, 1]; no mean/std normalisation. Image layout NCHW, one channel.

Split: sklearn train_test_split(test_size=0.25, stratify=y, random_state=SEED).
Run: /usr/bin/python3 examples/digits/train_digits.py
"""
import datetime
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import sklearn
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 20240601
EPOCHS = 40
BATCH = 64
OUT_DIR = os.path.dirname(os.path.abspath(__file__))
PIXEL_SCALE = 16.0  # raw digits are 0..16


class DigitsCnn(nn.Module):
    """conv-bn-relu x2 → maxpool → grouped conv-bn-relu → maxpool → flatten → linear-bn1d-relu → linear."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),                                        # 8x8 → 4x4
            nn.Conv2d(16, 32, 3, padding=1, groups=2), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),                                        # 4x4 → 2x2
        )
        self.head = nn.Sequential(
            nn.Flatten(),                                           # 32*2*2 = 128
            nn.Linear(128, 32), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Linear(32, 10),
        )

    def forward(self, x):
        return self.head(self.features(x))


def load_split():
    digits = load_digits()
    x = (digits.images.astype(np.float32) / PIXEL_SCALE)[:, None, :, :]
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.25, stratify=y, random_state=SEED)


def train(model, x_train, y_train):
    gen = torch.Generator().manual_seed(SEED)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), BATCH):
            idx = perm[i:i + BATCH]
            if len(idx) < 2:  # BatchNorm1d needs more than one sample in training mode
                continue
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
        sched.step()


def export(model, path):
    dummy = torch.zeros(1, 1, 8, 8)
    torch.onnx.export(model.eval(), dummy, path, opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["image"], output_names=["logits"])
    m = onnx.load(path)
    onnx.checker.check_model(m)
    n_bn = sum(1 for n in m.graph.node if n.op_type == "BatchNormalization")
    if n_bn != 4:
        sys.exit(f"expected 4 BatchNormalization nodes in {path}, found {n_bn}")
    return m, n_bn


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(1)
    x_train, x_test, y_train, y_test = load_split()
    model = DigitsCnn()
    train(model, x_train, y_train)
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x_test)).numpy().astype(np.float32)
    acc = float((logits.argmax(1) == y_test).mean())
    print(f"test accuracy {acc:.4f} on {len(y_test)} images")
    if acc < 0.95:
        sys.exit(f"accuracy {acc:.4f} below 0.95")

    onnx_path = os.path.join(OUT_DIR, "digits_cnn.onnx")
    m, n_bn = export(model, onnx_path)
    files = {
        "digits_test_x.npy": x_test.astype(np.float32),
        "digits_test_y.npy": y_test.astype(np.int64),
        "digits_test_logits_pytorch.npy": logits,
    }
    for name, arr in files.items():
        np.save(os.path.join(OUT_DIR, name), arr)
    with open(os.path.join(OUT_DIR, "pytorch_accuracy.txt"), "w") as f:
        f.write(f"{acc:.4f}\n")
    outputs = ["digits_cnn.onnx", *files, "pytorch_accuracy.txt"]
    manifest = {
        "generator": "examples/digits/train_digits.py",
        "generator_sha256": sha256(os.path.abspath(__file__)),
        "torch": torch.__version__, "onnx": onnx.__version__,
        "sklearn": sklearn.__version__, "numpy": np.__version__,
        "seed": SEED, "epochs": EPOCHS,
        "split": "train_test_split(test_size=0.25, stratify=y, random_state=seed)",
        "input": "float32 NCHW [1,1,8,8], pixel = raw/16 in [0,1]",
        "opset": 13, "batchnorm_nodes": n_bn, "num_test": int(len(y_test)),
        "pytorch_test_accuracy": round(acc, 4),
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "files": {n: sha256(os.path.join(OUT_DIR, n)) for n in outputs},
    }
    with open(os.path.join(OUT_DIR, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
