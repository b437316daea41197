#!/usr/bin/env bash
# The README's second command (and CI's, via .ci/run): build everything in build/, run ctest.
# Usage: scripts/run-tests.sh [extra ctest args]   (env: BUILD_DIR=build, JOBS=2)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-2}"

if [[ "$(id -u)" -eq 0 ]]; then
  bash "$ROOT/scripts/install-deps.sh"   # installs only what is missing
else
  echo "note: not root, skipping scripts/install-deps.sh"
fi
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=ON
cmake --build "$BUILD_DIR" -j"$JOBS"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$JOBS" "$@"

# Second stage (CI, or EDGEFOLD_CROSS=1): aarch64, armv7 NEON, Cortex-M4/M7 under QEMU and the
# x86 dispatch levels, reusing this build's host tools (scripts/cross-test.sh, targets/README.md).
if [[ "${EDGEFOLD_CROSS:-0}" == 1 || "${CI:-}" == true ]]; then
  HOST_BUILD="$BUILD_DIR" JOBS="$JOBS" bash "$ROOT/scripts/cross-test.sh"
fi
