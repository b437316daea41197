#!/usr/bin/python3
"""Writes a deterministic int8 calibration set: N standard-normal inputs of one shape, as
float32 .npy (the KWS firmware's input comes from the same distribution, make_input.py).
usage: make_calib.py OUT.npy --shape 1,49,10 --count 16 --seed 11
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npy_out")
    ap.add_argument("--shape", required=True, help="one input's dims, without the batch")
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    shape = [a.count] + [int(d) for d in a.shape.split(",")]
    np.save(a.npy_out, np.random.default_rng(a.seed).standard_normal(shape).astype(np.float32))


if __name__ == "__main__":
    main()
