#!/usr/bin/env bash
# The README's first command: build edgefold, compile the digits CNN (4 BatchNorms folded),
# inspect the result and check it against PyTorch on the 450 test images.
# Usage: scripts/run-example.sh        (env: BUILD_DIR=build, JOBS=2)
set -euo pipefail
source "$(dirname "$0")/build-env.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CMAKE_LAUNCHER_ARGS[@]}"
cmake --build "$BUILD_DIR" -j"$JOBS" --target edgefold digits_eval drift_demo stream_demo
bash "$ROOT/examples/digits/run.sh" "$BUILD_DIR"
