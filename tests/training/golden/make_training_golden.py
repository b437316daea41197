#!/usr/bin/python3
"""Golden data for edgefold's training mode, made with PyTorch (Debian python3-torch).

Writes tests/training/golden/data/:
  model.onnx             small CNN with BatchNorm (batch 8, BN kept: TrainingMode.PRESERVE)
  x.npy, y.npy           32 samples, 4 classes
  sgd_<set>.onnx         the same model after one epoch of deterministic SGD (no shuffle,
                         batches of 8, lr/momentum/weight decay below, BN momentum 0.1),
                         trainable set 'all' or 'bn' (γ, β only), or a sparse update
                         (earlier layers frozen, BN still in train mode):
                           'last1'      the last BN and the head Linear
                                        (compile --trainable bn+head --trainable-last 1)
                           'from_conv2' everything from the second conv on
                                        (compile --trainable all --train-from <that Conv>)
                         or with BatchNorm in eval form (running statistics fixed):
                           'frozen_bnhead' γ, β and the head Linear
                                        (compile --bn-stats frozen --trainable bn+head)
  sgd_<set>_eval.npy     eval-mode outputs of that model on x
  calib.onnx             model after BN calibration on x_drift in batches of 16 with
                         Algorithm 2 (PyTorch momentum=None: cumulative average of batch
                         means and unbiased batch variances)
  x_drift.npy            the calibration data (x with a contrast/brightness shift)
  MANIFEST.json          generator, versions, seed, hyper-parameters
"""
import json, os, sys
import numpy as np
import torch
import torch.nn as nn

SEED = 1234
LR, MOMENTUM, WD, BN_MOMENTUM, BATCH = 0.05, 0.9, 1e-3, 0.1, 8
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3, padding=1, groups=2, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(8, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 4))

    def forward(self, x):
        return self.head(self.features(x))


def randomize_bn(model, g):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=g) * 0.5)
            m.running_var.copy_(torch.rand(c, generator=g) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(c, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(c, generator=g) * 0.2)


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(BATCH, 1, 8, 8), path, opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["image"], output_names=["logits"])


SETS = {
    "all": lambda n: True,
    "bn": lambda n: "features.1." in n or "features.5." in n or "head.1." in n,
    "last1": lambda n: n.startswith("head.1.") or n.startswith("head.3."),
    "from_conv2": lambda n: not n.startswith("features.0.") and not n.startswith("features.1."),
    "frozen_bnhead": lambda n: (".weight" in n or ".bias" in n) and ("features.1." in n or "features.5." in n
                                                                    or n.startswith("head.1.") or n.startswith("head.3.")),
}


def train_epoch(model, x, y, trainable):
    params = [p for n, p in model.named_parameters() if SETS[trainable](n)]
    for p in model.parameters():
        p.requires_grad_(any(p is q for q in params))
    opt = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM, weight_decay=WD)
    model.train()
    if trainable.startswith("frozen"):   # BatchNorm in eval form: running statistics fixed
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                m.eval()
    for b in range(0, len(x), BATCH):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x[b:b + BATCH]), y[b:b + BATCH])
        loss.backward()
        opt.step()


def main():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    os.makedirs(OUT, exist_ok=True)
    base = Net()
    with torch.no_grad():
        randomize_bn(base, g)
    x = torch.rand(32, 1, 8, 8, generator=g)
    y = torch.randint(0, 4, (32,), generator=g)
    x_drift = x * 0.6 + 0.3
    np.save(os.path.join(OUT, "x.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(OUT, "y.npy"), y.numpy().astype(np.int64))
    np.save(os.path.join(OUT, "x_drift.npy"), x_drift.numpy().astype(np.float32))
    export(base, os.path.join(OUT, "model.onnx"))
    state = {k: v.clone() for k, v in base.state_dict().items()}
    for trainable in SETS:
        model = Net()
        model.load_state_dict(state)
        train_epoch(model, x, y, trainable)
        model.eval()
        with torch.no_grad():
            np.save(os.path.join(OUT, f"sgd_{trainable}_eval.npy"), model(x).numpy().astype(np.float32))
        export(model, os.path.join(OUT, f"sgd_{trainable}.onnx"))
    model = Net()
    model.load_state_dict(state)
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.momentum = None          # cumulative moving average = Algorithm 2
            m.reset_running_stats()
    model.train()
    with torch.no_grad():
        for b in range(0, len(x_drift), 16):
            model(x_drift[b:b + 16])
    export(model, os.path.join(OUT, "calib.onnx"))
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump({"generator": "tests/training/golden/make_training_golden.py", "torch": torch.__version__,
                   "numpy": np.__version__, "seed": SEED, "lr": LR, "momentum": MOMENTUM,
                   "weight_decay": WD, "bn_momentum": BN_MOMENTUM, "batch": BATCH,
                   "calibration_batch": 16}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
