#!/usr/bin/env bash
# The README's second command (and CI's, via .ci/run): build everything in build/, run ctest.
# Usage: scripts/run-tests.sh [extra ctest args]   (env: BUILD_DIR=build, JOBS=2)
set -euo pipefail
source "$(dirname "$0")/build-env.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=ON "${CMAKE_LAUNCHER_ARGS[@]}"
cmake --build "$BUILD_DIR" -j"$JOBS"
bash "$ROOT/scripts/check-layers.sh" "$ROOT"   # no include runs up a layer (STYLE.md)
python3 "$ROOT/scripts/check-docs.py"              # doc links resolve; result tables match their records
python3 "$ROOT/scripts/check-house.py"             # functions <= 60 lines, files <= 400, or allow-listed
cd "$BUILD_DIR"
ctest --output-on-failure -j"$JOBS" "$@"

# Second stage (CI, or EDGEFOLD_CROSS=1): aarch64, armv7 NEON and Cortex-M under QEMU (the x86
# dispatch levels on request), reusing this build's host tools (scripts/cross-test.sh,
# targets/README.md).
if [[ "${EDGEFOLD_CROSS:-0}" == 1 || "${CI:-}" == true ]]; then
  # CI runs AArch64, ARMv7, Cortex-M4 and Cortex-M55 (Helium; about 100 s without ccache on 2
  # cores); the x86 dispatch levels (kernels_qemu_* under qemu-x86_64 CPU models, Isa/* on this
  # CPU) already ran in the ctest above, and M7 (same scalar build as M4) is by request:
  # EDGEFOLD_CROSS_TARGETS="x86 aarch64 armv7 m4 m7 m55".
  # shellcheck disable=SC2086
  HOST_BUILD="$BUILD_DIR" JOBS="$JOBS" bash "$ROOT/scripts/cross-test.sh" \
    ${EDGEFOLD_CROSS_TARGETS:-aarch64 armv7 m4 m55}
fi

# Hardening stage (CI, or EDGEFOLD_HARDENING=1): the ctest suite under ASan+UBSan (build-asan/),
# locally the thread tests under ThreadSanitizer (build-tsan/), and each libFuzzer target for
# EDGEFOLD_FUZZ_SECONDS (default 60; CI 30, for its 45-minute budget) in build-fuzz/:
# hostile models and inputs must never crash the compiler or the runtime.
if [[ "${EDGEFOLD_HARDENING:-0}" == 1 || "${CI:-}" == true ]]; then
  if [[ "$(id -u)" -eq 0 ]]; then bash "$ROOT/scripts/install-deps.sh" --fuzz; fi
  # The full suite under ASan+UBSan builds every test sanitized (over 20 min on 2 cores); CI (45-minute budget for the
  # whole .ci/run) runs the untrusted-input and memory binaries (EDGEFOLD_ASAN_SUBSET=1), a
  # local EDGEFOLD_HARDENING=1 run the full suite unless told otherwise.
  default_subset=0
  if [[ "${CI:-}" == true ]]; then default_subset=1; fi
  EDGEFOLD_ASAN_SUBSET="${EDGEFOLD_ASAN_SUBSET:-$default_subset}" JOBS="$JOBS" bash "$ROOT/scripts/sanitize-tests.sh"
  # ThreadSanitizer on the thread tests (≈ 5 min: its own build): local runs only, CI's budget
  # has no room for it.
  if [[ "${CI:-}" != true ]]; then EDGEFOLD_TSAN=1 JOBS="$JOBS" bash "$ROOT/scripts/sanitize-tests.sh"; fi
  # The fuzz build compiles its seed models with this build's CLI instead of building its own
  # sanitized compiler.
  default_fuzz_seconds=60
  if [[ "${CI:-}" == true ]]; then default_fuzz_seconds=30; fi
  FUZZ_SEED_COMPILER="$BUILD_DIR/bin/edgefold" JOBS="$JOBS" bash "$ROOT/scripts/fuzz.sh" \
    "${EDGEFOLD_FUZZ_SECONDS:-$default_fuzz_seconds}"
fi
