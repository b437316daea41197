#!/usr/bin/python3
"""Drifted copies of the digits test split for the on-device adaptation demo (drift_demo.cc).

A sensor that aged: lower contrast, a brightness offset and some noise:
    x' = clip(0.45·x + 0.35 + N(0, 0.04²), 0, 1)
The first 250 drifted images are the adaptation set (what the device sees in the field), the
remaining 200 the held-out evaluation set. Stamped into MANIFEST_drift.json.
"""
import json, os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 7


def main():
    x = np.load(os.path.join(HERE, "digits_test_x.npy"))
    y = np.load(os.path.join(HERE, "digits_test_y.npy"))
    rng = np.random.default_rng(SEED)
    d = np.clip(0.45 * x + 0.35 + rng.normal(0, 0.04, x.shape), 0, 1).astype(np.float32)
    np.save(os.path.join(HERE, "drift_adapt_x.npy"), d[:250])
    np.save(os.path.join(HERE, "drift_adapt_y.npy"), y[:250].astype(np.int64))
    np.save(os.path.join(HERE, "drift_eval_x.npy"), d[250:])
    np.save(os.path.join(HERE, "drift_eval_y.npy"), y[250:].astype(np.int64))
    with open(os.path.join(HERE, "MANIFEST_drift.json"), "w") as f:
        json.dump({"generator": "examples/digits/make_drift.py", "numpy": np.__version__, "seed": SEED,
                   "transform": "clip(0.45*x + 0.35 + N(0, 0.04^2), 0, 1)", "adapt": 250, "eval": 200}, f, indent=1)


if __name__ == "__main__":
    main()
