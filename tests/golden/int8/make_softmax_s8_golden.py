#!/usr/bin/python3
"""Golden data for the int8 Softmax kernel (runtime/src/kernels/ref/softmax_s8.h), computed in
NumPy from the rule in docs/quantization.md, without edgefold's code:

  T[k] = round_half_away(2^20 * exp(-k * s_x)),  k = 0..255   (float64)
  per row: k_i = max(x) - x_i,  S = sum_i T[k_i]  (exact integers)
  y_i = clip(floor((2 * 256 * T[k_i] + S) / (2 * S)) - 128, -128, 127)   (round half up)

(the kernel computes the quotient as floor((256 T + floor(S/2)) / S) and takes a 32-bit path
when S < 2^32; this script uses neither.) Writes data/softmax_s8.txt:

  # comment lines: generator, its sha256, numpy version, date, seed
  case NAME SCALE_BITS ROWS CLASSES MAX_ABS_ERROR   (SCALE_BITS: the float32 scale's bits, hex;
                                                     the last field: max |dequant(y) - softmax(dequant(x))|)
  table T[0] .. T[255]
  x ROWS*CLASSES int8 values
  y ROWS*CLASSES int8 values

Run: /usr/bin/python3 tests/golden/int8/make_softmax_s8_golden.py   (deterministic but for the date)
"""
import datetime, hashlib, os

import numpy as np

SEED = 7
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "softmax_s8.txt")


def exp_table(scale):
    s = float(np.float32(scale))
    v = np.ldexp(np.exp(-np.arange(256, dtype=np.float64) * s), 20)
    return np.floor(v + 0.5).astype(np.int64)   # v > 0: half away from zero


def softmax_s8(table, x):
    x = x.astype(np.int64)
    k = x.max(axis=1, keepdims=True) - x
    t = table[k]
    s = t.sum(axis=1, keepdims=True)
    q = (2 * 256 * t + s) // (2 * s)
    return np.clip(q - 128, -128, 127).astype(np.int8)


def max_error(scale, x, y):
    xf = x.astype(np.float64) * float(np.float32(scale))   # the zero point cancels in softmax
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return float(np.abs((y.astype(np.float64) + 128) / 256 - p).max())


def cases(rng):
    def rand(rows, classes, lo=-128, hi=127):
        return rng.integers(lo, hi + 1, size=(rows, classes)).astype(np.int8)

    yield "one_class", 0.1, rand(3, 1)
    yield "three", 0.05, rand(4, 3)
    yield "ten", 0.0625, rand(4, 10)
    yield "ten_logits", 0.12, rand(5, 10, -40, 100)
    yield "seventeen", 0.02, rand(3, 17)
    yield "thousand", 0.03, rand(2, 1000, -30, 127)
    yield "all_equal", 0.1, np.full((2, 10), 17, np.int8)
    yield "extremes", 0.25, np.array([[127, -128, -128, -128, -128], [-128, 127, 127, -128, 127],
                                      [-128, -128, -128, -128, -128]], np.int8)
    yield "tiny_scale", 1e-4, rand(3, 10)
    yield "large_scale", 2.0, rand(3, 12, -10, 10)


def main():
    rng = np.random.default_rng(SEED)
    src = open(os.path.abspath(__file__), "rb").read()
    lines = ["# generator: tests/golden/int8/make_softmax_s8_golden.py",
             "# generator_sha256: " + hashlib.sha256(src).hexdigest(),
             "# numpy: " + np.__version__,
             "# date: " + datetime.date.today().isoformat(),
             "# seed: %d" % SEED]
    for name, scale, x in cases(rng):
        table = exp_table(scale)
        y = softmax_s8(table, x)
        bits = np.array([scale], np.float32).view(np.uint32)[0]
        err = max_error(scale, x, y)
        lines.append("case %s %08x %d %d %.9g" % (name, bits, x.shape[0], x.shape[1], err))
        lines.append("table " + " ".join(str(v) for v in table))
        lines.append("x " + " ".join(str(v) for v in x.ravel()))
        lines.append("y " + " ".join(str(v) for v in y.ravel()))
        print("%-12s scale %-8g rows %d classes %4d  max |error| vs float softmax %.6f (1/512 = %.6f)"
              % (name, scale, x.shape[0], x.shape[1], err, 1 / 512))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
