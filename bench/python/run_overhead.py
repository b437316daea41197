#!/usr/bin/env python3
"""What the Python layer adds to a run: m.run(x) on the digits CNN against the C++ Invoke it
wraps, both on one thread, same kernels, same machine, one after the other.

    PYTHONPATH=build/python python3 bench/python/run_overhead.py [--runs N] [--write]

The C++ figure is `edgefold bench` (median of timed Interpreter::Invoke calls, via
`python -m edgefold bench`, the CLI's own code); the Python figure is the median over blocks of
m.run(x) calls of the per-call time, so it includes argument checks, the input copy, the output
array and the GIL hand-off. --write regenerates bench/python/README.md.
"""
import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import edgefold as ef

HERE = pathlib.Path(__file__).resolve().parent
DIGITS = HERE.parents[1] / "examples" / "digits"


def cpp_invoke_us(efb, runs):
    out = subprocess.run([sys.executable, "-m", "edgefold", "bench", efb, "--runs", str(runs), "--warmup", "1000"],
                         check=True, capture_output=True, text=True).stdout
    fields = dict(re.findall(r"(\w+_ms)=([0-9.]+)", out))
    return float(fields["median_ms"]) * 1000, float(fields["min_ms"]) * 1000


def python_run_us(model, x, runs, block=100):
    for _ in range(1000):
        model.run(x)
    per_call = []
    for _ in range(max(1, runs // block)):
        start = time.perf_counter_ns()
        for _ in range(block):
            model.run(x)
        per_call.append((time.perf_counter_ns() - start) / block / 1000)
    return statistics.median(per_call), min(per_call)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.node()} ({cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--write", action="store_true", help="regenerate bench/python/README.md")
    args = parser.parse_args()
    model = ef.compile(str(DIGITS / "digits_cnn.onnx"))
    x = np.load(DIGITS / "digits_test_x.npy")[:1]
    with tempfile.TemporaryDirectory() as tmp:
        efb = os.path.join(tmp, "digits.efb")
        model.save(efb)
        cpp_median, cpp_min = cpp_invoke_us(efb, args.runs)
        py_median, py_min = python_run_us(model, x, args.runs)
    rows = [("C++ Interpreter::Invoke (edgefold bench)", cpp_median, cpp_min),
            ("Python m.run(x)", py_median, py_min)]
    table = ["| call | median µs | min µs |", "|---|---:|---:|"]
    table += [f"| {name} | {median:.2f} | {low:.2f} |" for name, median, low in rows]
    table.append(f"| **overhead (median − median)** | **{py_median - cpp_median:.2f}** | |")
    print("\n".join(table))
    if args.write:
        text = (HERE / "README.template.md").read_text()
        text = text.replace("{machine}", machine()).replace("{runs}", str(args.runs))
        text = text.replace("{table}", "\n".join(table))
        (HERE / "README.md").write_text(text)
        print(f"wrote {HERE / 'README.md'}")


if __name__ == "__main__":
    main()
