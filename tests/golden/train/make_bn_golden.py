#!/usr/bin/python3
"""Golden data for the BatchNorm training kernels, from PyTorch autograd.

For every case, x, gamma, beta, dy and the running statistics before the step are drawn
with a fixed seed (float32), then F.batch_norm(training=True, momentum=0.1, eps) runs in
float64 on those float32 values and autograd gives dx, dgamma, dbeta. Written per case:
  tests/golden/train/<case>/{x,gamma,beta,dy,running_mean_in,running_var_in}.npy   (inputs)
  tests/golden/train/<case>/{y,mean,var,dx,dgamma,dbeta,running_mean,running_var}.npy
with mean/var the batch mean and biased variance, running_var updated with the unbiased
variance (PyTorch's convention). All files are float32 .npy; x is (N, C) or (N, C, H, W).
MANIFEST.txt stamps the generator, torch version, seed, eps and momentum.

Run: /usr/bin/python3 tests/golden/train/make_bn_golden.py   (deterministic; rewrites the cases)
"""
import os
import shutil

import numpy as np
import torch
import torch.nn.functional as F

SEED = 20240605
EPS = 1e-5
MOMENTUM = 0.1
OUT_DIR = os.path.dirname(os.path.abspath(__file__))

# name, shape, how x is drawn
CASES = [
    ("conv_2x3x4x5", (2, 3, 4, 5), "normal"),
    ("conv_4x8x7x7", (4, 8, 7, 7), "normal"),
    ("conv_3x5x17x1", (3, 5, 17, 1), "normal"),
    ("dense_m2", (2, 4), "normal"),           # m = 2: the smallest batch BN accepts
    ("dense_5x6", (5, 6), "normal"),
    ("conv_constant_channel", (3, 2, 4, 4), "constant0"),   # channel 0 has variance 0
    ("conv_large_mean", (2, 3, 5, 5), "large_mean"),        # 1e4 ± 1e-2
]


def draw(rng, shape, kind):
    x = rng.standard_normal(shape).astype(np.float32) * 1.5 + 0.3
    if kind == "constant0":
        x[:, 0] = np.float32(0.75)
    elif kind == "large_mean":
        x = (1e4 + 1e-2 * rng.standard_normal(shape)).astype(np.float32)
    return x


def run_case(rng, name, shape, kind):
    c = shape[1]
    x = draw(rng, shape, kind)
    gamma = (rng.uniform(0.5, 1.5, c) * rng.choice([-1, 1], c)).astype(np.float32)
    beta = rng.normal(0, 0.5, c).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    rm_in = rng.normal(0, 1, c).astype(np.float32)
    rv_in = rng.uniform(0.5, 2, c).astype(np.float32)

    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    gt = torch.tensor(gamma, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(beta, dtype=torch.float64, requires_grad=True)
    rm = torch.tensor(rm_in, dtype=torch.float64)
    rv = torch.tensor(rv_in, dtype=torch.float64)
    y = F.batch_norm(xt, rm, rv, gt, bt, training=True, momentum=MOMENTUM, eps=EPS)
    y.backward(torch.tensor(dy, dtype=torch.float64))
    dims = [0] + list(range(2, len(shape)))
    mean = xt.detach().mean(dim=dims)
    var = xt.detach().var(dim=dims, unbiased=False)

    out = {"x": x, "gamma": gamma, "beta": beta, "dy": dy, "running_mean_in": rm_in,
           "running_var_in": rv_in, "y": y.detach(), "mean": mean, "var": var, "dx": xt.grad,
           "dgamma": gt.grad, "dbeta": bt.grad, "running_mean": rm, "running_var": rv}
    d = os.path.join(OUT_DIR, name)
    os.makedirs(d)
    for key, val in out.items():
        arr = val.numpy() if isinstance(val, torch.Tensor) else val
        np.save(os.path.join(d, key + ".npy"), arr.astype(np.float32))


def main():
    rng = np.random.default_rng(SEED)
    for name, _, _ in CASES:
        shutil.rmtree(os.path.join(OUT_DIR, name), ignore_errors=True)
    for name, shape, kind in CASES:
        run_case(rng, name, shape, kind)
    with open(os.path.join(OUT_DIR, "MANIFEST.txt"), "w") as f:
        f.write("generator: tests/golden/train/make_bn_golden.py\n")
        f.write(f"torch: {torch.__version__}\nnumpy: {np.__version__}\nseed: {SEED}\n")
        f.write(f"eps: {EPS}\nmomentum: {MOMENTUM}\ncompute: float64 autograd on float32 inputs\n")
        f.write("cases: " + " ".join(name for name, _, _ in CASES) + "\n")


if __name__ == "__main__":
    main()
