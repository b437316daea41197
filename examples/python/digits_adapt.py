#!/usr/bin/env python3
"""On-device adaptation of the digits CNN from Python: what examples/digits/drift_demo.cc does
with edgefold::Trainer in C++, and the lines it prints (the same runtime, data and order, so
the same figures), then the adapted model as an ordinary edgefold.Model at batch 1.

The sensor drifted (examples/digits/make_drift.py) and the deployed model loses accuracy. In one
fixed arena the trainer (1) re-estimates every BatchNorm's statistics from unlabeled field data,
(2) fine-tunes BN's scale and shift for three epochs on a small labeled set; then the BNs are
refolded for inference.

usage: PYTHONPATH=build/python python3 examples/python/digits_adapt.py [--progress]
Exit status 1 unless adaptation recovers the accuracy the drift cost.
"""
import pathlib
import sys

import numpy as np

import edgefold as ef

DIGITS = pathlib.Path(__file__).resolve().parents[1] / "digits"


def load(name):
    return np.load(DIGITS / f"{name}_x.npy"), np.load(DIGITS / f"{name}_y.npy")


def main():
    progress = "--progress" in sys.argv
    t = ef.compile(str(DIGITS / "digits_cnn.onnx"), train=True, batch=10)
    tr = ef.Trainer(t, lr=0.01, momentum=0.9, trainable="bn", stats="cumulative")
    n = tr.batch_size
    clean, adapt, drifted = load("digits_test"), load("drift_adapt"), load("drift_eval")
    print(f"training arena: {tr.arena_bytes} bytes (batch {n})")
    clean_acc, deployed = tr.accuracy(*clean), tr.accuracy(*drifted)
    print(f"clean test images:              accuracy {clean_acc:.4f}")
    print(f"drifted, deployed model:        accuracy {deployed:.4f}")

    tr.reset_statistics()
    batches = tr.adapt(adapt[0], progress=progress)
    stats = tr.accuracy(*drifted)
    print(f"after BN statistics adaptation: accuracy {stats:.4f}  ({batches * n} unlabeled images)")

    tr.set_options(stats="momentum")
    for epoch, (loss, _) in enumerate(tr.fit(*adapt, epochs=3, progress=progress)):
        print(f"  BN fine-tuning epoch {epoch + 1}: loss {loss:.4f}")
    tuned = tr.accuracy(*drifted)
    print(f"after 3 epochs on BN γ, β:      accuracy {tuned:.4f}  ({batches * n} labeled images)")
    folded = tr.refold()
    refolded = tr.accuracy(*drifted)
    print(f"refolded {folded} BatchNorms for inference (no weight copies unless compiled with --refold-weights): "
          f"accuracy {refolded:.4f}")
    recovered = stats > deployed + 0.2 and tuned >= stats and refolded == tuned
    print("OK: adaptation recovered the accuracy lost to drift" if recovered
          else "FAIL: adaptation did not recover the accuracy")

    adapted = tr.model()   # trained parameters and statistics in a model of its own, batch 1
    x, y = drifted
    print(f"adapted model (tr.model(), batch {adapted.inputs[0][1][0]}): accuracy "
          f"{np.mean(np.argmax(adapted.run(x), 1) == y):.4f} on the drifted images, one at a time")
    return 0 if recovered else 1


if __name__ == "__main__":
    sys.exit(main())
