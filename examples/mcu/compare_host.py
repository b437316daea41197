#!/usr/bin/python3
"""Runs the MCU example under QEMU and the same .efb on the host (`edgefold run`), and checks
the class scores agree: |mcu - host| <= atol + rtol*|host| (summation order and FMA
contraction differ between the Cortex-M scalar kernels and the host's SIMD kernels).
usage: compare_host.py CLI MODEL.efb INPUT.npy -- EMULATOR... FIRMWARE.elf
"""
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

RTOL, ATOL = 1e-4, 1e-6


def mcu_scores(cmd):
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.exit(f"firmware exited with {run.returncode}: {run.stderr}")
    bits = re.findall(r"score\[(\d+)\] = 0x([0-9a-f]{8})", run.stdout)
    if not bits:
        sys.exit("no 'score[i] = 0x...' lines in the firmware output")
    return np.array([struct.unpack("<f", struct.pack("<I", int(b, 16)))[0] for _, b in bits], np.float32)


def host_scores(cli, efb, npy):
    with tempfile.NamedTemporaryFile(suffix=".npy") as out:
        subprocess.run([cli, "run", efb, "-i", npy, "-o", out.name], check=True, capture_output=True)
        return np.load(out.name).reshape(-1)


def main():
    sep = sys.argv.index("--")
    cli, efb, npy = sys.argv[1:sep]
    mcu, host = mcu_scores(sys.argv[sep + 1:]), host_scores(cli, efb, npy)
    if mcu.shape != host.shape:
        sys.exit(f"MCU printed {mcu.size} scores, host has {host.size}")
    err = np.abs(mcu.astype(np.float64) - host)
    print(f"{'class':>5} {'host':>14} {'mcu':>14} {'|diff|':>10}")
    for i, (h, m, e) in enumerate(zip(host, mcu, err)):
        print(f"{i:5d} {h:14.7g} {m:14.7g} {e:10.2e}")
    bad = err > ATOL + RTOL * np.abs(host)
    same_class = int(np.argmax(mcu)) == int(np.argmax(host))
    print(f"max |diff| {err.max():.3e}; argmax host {np.argmax(host)} mcu {np.argmax(mcu)}")
    if bad.any() or not same_class:
        sys.exit(f"MISMATCH: {int(bad.sum())} scores outside atol {ATOL} + rtol {RTOL}")
    print("MCU scores match the host runtime")


if __name__ == "__main__":
    main()
