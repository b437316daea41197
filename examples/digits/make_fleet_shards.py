#!/usr/bin/python3
"""Non-IID drifted shards of the digits test split for the fleet demo (scripts/run-fleet-demo.sh).

usage: make_fleet_shards.py OUT_DIR DEVICES SEED [ADAPT_PER_DEVICE]

Every device's sensor aged like make_drift.py's, with its own contrast, offset and noise:
    x' = clip(a·x + b + N(0, s²), 0, 1),   a ∈ [0.40, 0.50], b ∈ [0.30, 0.40], s ∈ [0.03, 0.05]
Its adaptation shard (unlabeled, ADAPT_PER_DEVICE images, default 40) is drawn from the first
250 images with a skewed label mix: 80 % from two classes of its own, the rest from any; its
evaluation shard is the last 200 images (every class) through its own drift. The adaptation
and evaluation images never overlap. Writes device_<id>_adapt_x.npy, device_<id>_eval_x.npy,
device_<id>_eval_y.npy and MANIFEST.json (the generator, numpy version, seed and parameters).
"""
import json, os, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out, devices, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    per = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    x = np.load(os.path.join(HERE, "digits_test_x.npy"))
    y = np.load(os.path.join(HERE, "digits_test_y.npy"))
    pool_x, pool_y, eval_x, eval_y = x[:250], y[:250], x[250:], y[250:]
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    params = []
    for d in range(1, devices + 1):
        a, b, s = rng.uniform(0.40, 0.50), rng.uniform(0.30, 0.40), rng.uniform(0.03, 0.05)
        major = rng.choice(10, size=2, replace=False)
        in_major = np.flatnonzero(np.isin(pool_y, major))
        n_major = int(round(0.8 * per))
        idx = np.concatenate([rng.choice(in_major, n_major, replace=True),
                              rng.choice(len(pool_y), per - n_major, replace=False)])
        rng.shuffle(idx)
        drift = lambda v: np.clip(a * v + b + rng.normal(0, s, v.shape), 0, 1).astype(np.float32)
        np.save(os.path.join(out, f"device_{d}_adapt_x.npy"), drift(pool_x[idx]))
        np.save(os.path.join(out, f"device_{d}_eval_x.npy"), drift(eval_x))
        np.save(os.path.join(out, f"device_{d}_eval_y.npy"), eval_y.astype(np.int64))
        params.append({"device": d, "contrast": round(float(a), 4), "offset": round(float(b), 4),
                       "noise": round(float(s), 4), "major_classes": [int(c) for c in major]})
    with open(os.path.join(out, "MANIFEST.json"), "w") as f:
        json.dump({"generator": "examples/digits/make_fleet_shards.py", "numpy": np.__version__,
                   "seed": seed, "devices": devices, "adapt_per_device": per, "eval_per_device": 200,
                   "parameters": params}, f, indent=1)


if __name__ == "__main__":
    main()
