#!/usr/bin/env bash
# The README's first command: build edgefold, compile the digits CNN (4 BatchNorms folded),
# inspect the result and check it against PyTorch on the 450 test images.
# Usage: scripts/run-example.sh        (env: BUILD_DIR=build, JOBS=2)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-2}"

if [[ "$(id -u)" -eq 0 ]]; then
  bash "$ROOT/scripts/install-deps.sh"   # installs only what is missing
else
  echo "note: not root, skipping scripts/install-deps.sh"
fi
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$JOBS" --target edgefold digits_eval
bash "$ROOT/examples/digits/run.sh" "$BUILD_DIR"
