"""The reference int8 quantization of make_int8_golden.py, written from docs/quantization.md
alone (no edgefold code): the folded float model in float64 with min/max observation
(FloatRun) and integer inference with the scheme's parameters and rounding rules (Int8Run).
A model's forward pass calls one engine's input/conv/add/pool/gap/flatten/linear in order;
op i of FloatRun records range i, which op i of Int8Run quantizes its output with."""
import math

import numpy as np

f32 = np.float32


def half_away(v):  # std::round / llround: half away from zero
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def shift_half_away(v, n):  # RoundShiftHalfAway on int64 arrays: v / 2^n, half away from zero
    return np.sign(v) * ((np.abs(v) + (1 << (n - 1))) >> n)


def grain(a):  # smallest p with a·2^p integral (a dyadic)
    for p in range(64):
        if np.all(np.ldexp(a, p) == np.round(np.ldexp(a, p))):
            return p
    raise AssertionError("not dyadic")


def exact(bound, p):  # every partial sum ≤ bound is a multiple of 2^−p: exact in float32?
    assert np.all(np.ldexp(bound, p) < 2.0 ** 24), "float32 partial sums would round"


def conv(x, w, b, stride, pad, dil, groups, pad_value):
    """x [C, H, W], w [O, C/g, kh, kw] (1-D: H = kh = 1); float64 or int64."""
    C, H, W = x.shape
    O, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (pad[0], pad[0]), (pad[1], pad[1])), constant_values=pad_value)
    oh = (H + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (W + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    cols = np.stack([xp[:, r * dil[0]:r * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                        t * dil[1]:t * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                     for r in range(kh) for t in range(kw)], axis=1)  # [C, kh·kw, oh, ow]
    cg, og = C // groups, O // groups
    y = [w[g * og:(g + 1) * og].reshape(og, -1) @ cols[g * cg:(g + 1) * cg].reshape(cg * kh * kw, -1)
         for g in range(groups)]
    return np.concatenate(y).reshape(O, oh, ow) + b.reshape(-1, 1, 1)


def pool_windows(x, k, s, p, fill):
    C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)
    oh, ow = (H + 2 * p[0] - k[0]) // s[0] + 1, (W + 2 * p[1] - k[1]) // s[1] + 1
    return np.stack([xp[:, r:r + s[0] * (oh - 1) + 1:s[0], t:t + s[1] * (ow - 1) + 1:s[1]]
                     for r in range(k[0]) for t in range(k[1])])  # [taps, C, oh, ow]


def rounded_mean(total, count):  # int8_ref.cc RoundedMean (C division truncates)
    return np.where(total >= 0, (2 * total + count) // (2 * count), -((-2 * total + count) // (2 * count)))


def act_quant(lo, hi):  # ChooseActQuant
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo < 1e-8:
        hi = lo + 1e-8
    s = f32((hi - lo) / 255.0)
    return s, int(min(127.0, max(-128.0, half_away(-128.0 - lo / float(s)))))


def multiplier(real):  # QuantizeMultiplier: real = M·2^−(31+shift), M ∈ [2^30, 2^31)
    f, e = math.frexp(real)
    m = int(half_away(f * 2.0 ** 31))
    if m == 1 << 31:
        m, e = m >> 1, e + 1
    assert -e >= -30
    return (1 << 30, 31) if -e > 31 else (m, -e)


def clamp_of(act, s, zp):  # ActivationClamp
    qv = lambda v: int(min(127.0, max(-128.0, half_away(v / float(s)) + zp)))
    return {None: (-128, 127), "relu": (max(-128, zp), 127), "relu6": (qv(0.0), qv(6.0))}[act]


def apply_act(y, act):
    return {None: y, "relu": np.maximum(y, 0), "relu6": np.clip(y, 0, 6)}[act]


def fold(c, bn):
    """Folded float32 weights [O, C/g, kh, kw] and bias: W·s, (b − μ)·s + β in float64."""
    w = c.weight.detach().double().numpy()
    w = w.reshape(w.shape[0], w.shape[1], 1, -1) if w.ndim == 3 else w
    b = c.bias.detach().double().numpy() if c.bias is not None else np.zeros(w.shape[0])
    if bn is not None:
        g, beta, mu, var = (t.detach().double().numpy() for t in (bn.weight, bn.bias, bn.running_mean, bn.running_var))
        s = g / np.sqrt(var + float(f32(bn.eps)))
        w, b = w * s.reshape(-1, 1, 1, 1), (b - mu) * s + beta
    return w.astype(f32).astype(np.float64), b.astype(f32).astype(np.float64)


def pair(v, fill):   # 1-D convs run as 2-D with H = 1
    return tuple(v) if len(v) == 2 else (fill,) + tuple(v)


class FloatRun:
    """The folded float model in float64 (exact, see above); keeps every op output's values."""

    def __init__(self):
        self.values, self.i = {}, 0

    def seen(self, y):
        self.values.setdefault(self.i, []).append(y.reshape(-1))
        self.i += 1
        return y

    def ranges(self, percentile=100.0):
        """Per op: [min, max], or with P < 100 the k-th smallest values, k = ⌊q·(n − 1)⌋ for
        q = (100 − P)/100 and 1 − q (n < 2^20 values, so all of them are kept)."""
        out = {}
        for i, v in self.values.items():
            v = np.sort(np.concatenate(v))
            assert v.size <= 1 << 20
            tail = (100.0 - percentile) / 100.0
            at = lambda q: v[min(v.size - 1, int(q * (v.size - 1)))]
            out[i] = (v[0], v[-1]) if percentile >= 100.0 else (at(tail), at(1.0 - tail))
        return out

    def input(self, x):
        self.i = 0
        x = x.astype(np.float64)
        return self.seen(x if x.ndim == 3 else x.reshape(x.shape[0], 1, -1))

    def conv(self, x, c, bn=None, act=None):
        w, b = fold(c, bn)
        st, pd, dl = pair(c.stride, 1), pair(c.padding, 0), pair(c.dilation, 1)
        exact(conv(np.abs(x), np.abs(w), np.abs(b), st, pd, dl, c.groups, 0.0), max(grain(x) + grain(w), grain(b)))
        return self.seen(apply_act(conv(x, w, b, st, pd, dl, c.groups, 0.0), act))

    def add(self, a, b, act=None):
        exact(np.abs(a) + np.abs(b), max(grain(a), grain(b)))
        return self.seen(apply_act(a + b, act))

    def pool(self, x, kind, k, s, p=(0, 0)):
        win = pool_windows(x, k, s, p, -np.inf if kind == "max" else 0.0)
        assert kind == "max" or (p == (0, 0) and win.shape[0] & (win.shape[0] - 1) == 0)   # sum/2^k
        exact(np.abs(win).sum(0) if kind == "avg" else 0, grain(x))
        return self.seen(win.max(0) if kind == "max" else win.sum(0) / win.shape[0])

    def gap(self, x):
        assert x[0].size & (x[0].size - 1) == 0   # the mean divides by a power of 2: exact
        exact(np.abs(x).sum((1, 2)), grain(x))
        return self.seen(x.mean((1, 2)).reshape(-1, 1, 1))

    def flatten(self, x):
        return self.seen(x.reshape(-1))

    def linear(self, x, fc):
        w, b = fold(fc, None)
        exact(np.abs(w) @ np.abs(x) + np.abs(b), max(grain(x) + grain(w), grain(b)))
        return self.seen(w @ x + b)


class Int8Run:
    """Integer inference; values are (q int64, scale float32, zp). Logs each int8 layer."""

    def __init__(self, ranges):
        self.ranges, self.i, self.layers = ranges, 0, []

    def quant(self):
        q = act_quant(*self.ranges[self.i])
        self.i += 1
        return q

    def log(self, kind, x, s, zp, lo=-128, hi=127):
        self.layers.append((kind, x[1], s, zp, lo, hi))

    def input(self, x):
        self.i, self.layers = 0, []
        s, zp = self.quant()
        v = np.clip(x.astype(f32) * (f32(1) / s), -512, 512)   # QuantizeS8, float32
        q = np.clip(np.rint(v) + zp, -128, 127).astype(np.int64)
        return (q if x.ndim == 3 else q.reshape(x.shape[0], 1, -1)), s, zp

    def requant(self, kind, x, wf, bf, s, zp, act, run):
        wf2 = wf.reshape(wf.shape[0], -1)
        sw = np.where(np.abs(wf2).max(1) > 0, (np.abs(wf2).max(1) / 127.0).astype(f32), f32(1))
        wq = np.clip(half_away(wf2 / sw.astype(np.float64)[:, None]), -127, 127).astype(np.int64)
        s_acc = float(x[1]) * sw.astype(np.float64)
        bias = half_away(bf / s_acc) - x[2] * wq.sum(1)
        mult = [multiplier(a / float(s)) for a in s_acc]
        acc = run(wq.reshape(wf.shape), bias.astype(np.int64))
        lo, hi = clamp_of(act, s, zp)
        m = np.array([a for a, _ in mult], np.int64).reshape(-1, *[1] * (acc.ndim - 1))
        out = np.empty_like(acc)
        for c, (_, sh) in enumerate(mult):   # RequantizeS8 (n < 32 clamps to ±2^30 first)
            r = shift_half_away(acc[c] * m[c], 31 + sh)
            out[c] = zp + (np.clip(r, -2 ** 30, 2 ** 30) if 31 + sh < 32 else r)
        self.log(kind, x, s, zp, lo, hi)
        return np.clip(out, lo, hi), s, zp

    def conv(self, x, c, bn=None, act=None):
        w, b = fold(c, bn)
        s, zp = self.quant()
        kind = "ConvInt8 (depthwise)" if c.groups > 1 and c.groups == x[0].shape[0] else "ConvInt8"
        run = lambda wq, bq: conv(x[0], wq, bq, pair(c.stride, 1), pair(c.padding, 0), pair(c.dilation, 1), c.groups, x[2])
        return self.requant(kind, x, w, b, s, zp, act, run)

    def add(self, a, b, act=None):   # AddS8
        s, zp = self.quant()
        ra, rb = float(a[1]) / float(s), float(b[1]) / float(s)
        sh = 31 - math.frexp(max(ra, rb))[1]
        ma, mb = (int(min(2 ** 31 - 1, half_away(math.ldexp(r, sh)))) for r in (ra, rb))
        lo, hi = clamp_of(act, s, zp)
        self.log("AddInt8", a, s, zp, lo, hi)
        return np.clip(zp + shift_half_away((a[0] - a[2]) * ma + (b[0] - b[2]) * mb, sh), lo, hi), s, zp

    def pool(self, x, kind, k, s, p=(0, 0)):   # Pool2dS8: shares the input's (scale, zp)
        self.i += 1
        win = pool_windows(x[0], k, s, p, -1000 if kind == "max" else 0)
        self.log("PoolInt8", x, x[1], x[2])
        return (win.max(0) if kind == "max" else rounded_mean(win.sum(0), win.shape[0])), x[1], x[2]

    def gap(self, x):   # GlobalPoolS8 (average)
        self.i += 1
        self.log("GlobalPoolInt8", x, x[1], x[2])
        return rounded_mean(x[0].sum((1, 2)), x[0][0].size).reshape(-1, 1, 1), x[1], x[2]

    def flatten(self, x):
        self.i += 1
        self.log("Reshape (int8)", x, x[1], x[2])
        return x[0].reshape(-1), x[1], x[2]

    def linear(self, x, fc):
        w, b = fold(fc, None)
        s, zp = self.quant()
        return self.requant("GemmInt8", x, w, b, s, zp, None, lambda wq, bq: wq @ x[0] + bq)
