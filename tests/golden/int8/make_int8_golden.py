#!/usr/bin/python3
"""int8 golden data: a reference post-training quantization computed in NumPy (int8_reference.py)
without edgefold's code, from the scheme in docs/quantization.md.

For each model defined below: export it to ONNX, fold BatchNorm in float64, run the folded
float model on the calibration set to observe every activation's min/max, derive the
activation (scale, zero point), per-channel int8 weights, int32 biases, (M, shift) pairs and
output clamps, then run integer inference with the runtime's rounding rules. Written to
  data/<name>/model.onnx  calib.npy [N, ...]  input.npy [T, ...]  (float32)
  data/<name>/expected.npy   [T, E] float32: per input, every graph output (the network's, then
                             each tapped layer's) as (q − zp)·s of its int8 q, so q is exact
  data/<name>/layers.txt     per int8 layer: type, input and output scale (float32 bits), zp, clamp
  data/<name>/quantize_percentile.txt   100 (min/max) or the --quantize-percentile P assumed
and data/MANIFEST.json stamps the generator, versions and seed.

Why the weights are dyadic: edgefold observes ranges by running its own float kernels, whose
summation order (SIMD, FMA) differs from NumPy's. Every weight, bias, BN parameter (epsilon 0)
and calibration value here is a small multiple of a power of two, so every partial sum of the
float model is exact in float32 in any order (`exact` checks the bound), the observed min/max
are the same bits on every ISA, and the golden output can be required bit for bit. The test
inputs are arbitrary floats: they only enter through Quantize.

Run: /usr/bin/python3 tests/golden/int8/make_int8_golden.py   (deterministic; rewrites data/)
"""
import datetime, hashlib, json, os, shutil

import numpy as np
import torch
import torch.nn as nn

from int8_reference import FloatRun, Int8Run, act_quant, f32

SEED = 15
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class Net2d(nn.Module):
    """conv-BN-ReLU → depthwise-BN-ReLU6 → pointwise-BN → + residual, ReLU → max pool 3/2 pad 1
    → conv 3×3 stride 2-BN-ReLU → global average pool → Linear."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8, eps=0.0)
        self.dw, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), nn.BatchNorm2d(8, eps=0.0)
        self.pw, self.b3 = nn.Conv2d(8, 8, 1, bias=False), nn.BatchNorm2d(8, eps=0.0)
        self.c4, self.b4 = nn.Conv2d(8, 12, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(12, eps=0.0)
        self.fc = nn.Linear(12, 10)

    def forward(self, x, e=None):
        if e is None:   # PyTorch
            a = torch.relu(self.b1(self.c1(x)))
            d = torch.clamp(self.b2(self.dw(a)), 0, 6)
            p = self.b3(self.pw(d))
            r = torch.relu(a + p)
            m = nn.functional.max_pool2d(r, 3, 2, 1)
            c = torch.relu(self.b4(self.c4(m)))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(c, 1), 1)), a, d, p, r, m, c
        a = e.conv(e.input(x), self.c1, self.b1, "relu")
        d = e.conv(a, self.dw, self.b2, "relu6")
        p = e.conv(d, self.pw, self.b3)
        r = e.add(a, p, "relu")
        m = e.pool(r, "max", (3, 3), (2, 2), (1, 1))
        c = e.conv(m, self.c4, self.b4, "relu")
        return e.linear(e.flatten(e.gap(c)), self.fc), a, d, p, r, m, c


class Net1d(nn.Module):
    """1-D: conv k5 stride 2 pad 2-BN-ReLU → grouped conv (2 groups)-BN-ReLU6 → average pool 2
    → dilated conv with bias, ReLU → global average pool → Linear."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv1d(4, 8, 5, stride=2, padding=2, bias=False), nn.BatchNorm1d(8, eps=0.0)
        self.c2, self.b2 = nn.Conv1d(8, 8, 3, padding=1, groups=2, bias=False), nn.BatchNorm1d(8, eps=0.0)
        self.c3 = nn.Conv1d(8, 12, 3, padding=2, dilation=2)
        self.fc = nn.Linear(12, 5)

    def forward(self, x, e=None):
        if e is None:
            a = torch.relu(self.b1(self.c1(x)))
            b = torch.clamp(self.b2(self.c2(a)), 0, 6)
            p = nn.functional.avg_pool1d(b, 2)
            c = torch.relu(self.c3(p))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool1d(c, 1), 1)), a, b, p, c
        a = e.conv(e.input(x), self.c1, self.b1, "relu")
        b = e.conv(a, self.c2, self.b2, "relu6")
        p = e.pool(b, "avg", (1, 2), (1, 2))
        c = e.conv(p, self.c3, None, "relu")
        return e.linear(e.flatten(e.gap(c)), self.fc), a, b, p, c


def dyadic(rng, shape, k, denom):   # integers in [−k, k] / denom
    return torch.tensor(rng.integers(-k, k + 1, shape) / denom, dtype=torch.float32)


def init(net, rng):
    """Weights in {0, ±1/4, ±1/2}, biases and BN μ, β multiples of 1/4, BN γ/√var ∈ {±1, ±2}."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Linear)):
                m.weight.copy_(dyadic(rng, m.weight.shape, 2, 4))
                if m.bias is not None:
                    m.bias.copy_(dyadic(rng, m.bias.shape, 4, 4))
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                gv = np.array([(1, 1), (-1, 1), (0.5, 0.25), (4, 4), (2, 1), (-2, 1), (1, 0.25)])[rng.integers(0, 7, m.num_features)]
                m.weight.copy_(torch.tensor(gv[:, 0]))
                m.running_var.copy_(torch.tensor(gv[:, 1]))
                m.running_mean.copy_(dyadic(rng, m.num_features, 4, 4))
                m.bias.copy_(dyadic(rng, m.num_features, 4, 4))
    return net.eval()


def ties(x, s, zp, rng):
    """Inputs whose float32 x·(1/s) is exactly k + 1/2: Quantize must round them half to even."""
    inv = f32(1) / s
    for i, k in enumerate(rng.integers(-120 - zp, 120 - zp, x.size)):
        v = f32(k + 0.5)
        for c in (v / inv, np.nextafter(v / inv, f32(-1e9)), np.nextafter(v / inv, f32(1e9))):
            if c * inv == v:
                x.flat[i] = c
    return x


def shifted(net):   # logits all above 0: their range [lo > 0, hi] must be widened to hold 0
    with torch.no_grad():
        net.fc.bias += 16
    return net


def make(name, net, shape, rng, percentile=100.0):
    d = os.path.join(OUT, name)
    os.makedirs(d)
    calib = (rng.integers(-8, 9, (16,) + shape) / 4).astype(f32)   # multiples of 1/4 in [−2, 2]
    inputs = (rng.standard_normal((8,) + shape) * 0.9).astype(f32)  # arbitrary floats, some beyond the range
    torch.onnx.export(net, torch.from_numpy(calib[:1]), os.path.join(d, "model.onnx"), opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["x"], output_names=["y"])
    fr = FloatRun()
    for x in calib:
        for y, ref in zip(net(x, fr), net(torch.from_numpy(x[None]))):   # both exact
            assert np.array_equal(y.reshape(-1).astype(f32), ref.detach().numpy().reshape(-1)), "NumPy != PyTorch"
    ranges = fr.ranges(percentile)
    inputs[-1] = ties(inputs[-1], *act_quant(*ranges[0]), rng)
    qr, expected, final = Int8Run(ranges), [], []
    for x in inputs:   # every output dequantized (DequantizeS8), concatenated in graph output order
        outs = net(x, qr)
        expected.append(np.concatenate([((q - zp).astype(f32) * s).reshape(-1) for q, s, zp in outs]))
        final.append(" ".join(map(str, outs[0][0])))
    np.save(os.path.join(d, "calib.npy"), calib)
    np.save(os.path.join(d, "input.npy"), inputs)
    np.save(os.path.join(d, "expected.npy"), np.stack(expected))
    with open(os.path.join(d, "layers.txt"), "w") as f:
        f.write("# type|in_scale bits|out_scale bits|out zero point|act_min|act_max\n")
        for kind, si, so, zp, lo, hi in qr.layers:
            f.write(f"{kind}|{f32(si).view(np.uint32)}|{f32(so).view(np.uint32)}|{zp}|{lo}|{hi}\n")
    with open(os.path.join(d, "quantize_percentile.txt"), "w") as f:   # the compile option to use
        f.write(f"{percentile}\n")
    return {"quantize_percentile": percentile, "int8_layers": len(qr.layers), "int8_final_outputs": final}


def main():
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    cases = {"net2d_residual": make("net2d_residual", init(Net2d(), rng), (3, 8, 8), rng),
             "net1d_grouped": make("net1d_grouped", shifted(init(Net1d(), rng)), (4, 32), rng),
             "net1d_percentile99": make("net1d_percentile99", init(Net1d(), rng), (4, 32), rng, 99.0)}
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256(b"".join(open(os.path.join(here, n), "rb").read()
                                     for n in ("make_int8_golden.py", "int8_reference.py"))).hexdigest()
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump({"generator": "tests/golden/int8/make_int8_golden.py + int8_reference.py", "generator_sha256": digest, "seed": SEED,
                   "date": datetime.date.today().isoformat(), "torch": torch.__version__,
                   "numpy": np.__version__, "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
