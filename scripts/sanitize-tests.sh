#!/usr/bin/env bash
# Builds with ASan+UBSan (CMakePresets.json preset `asan`, in build-asan/) and runs the tests
# under it. Any sanitizer report aborts the test that triggered it.
#   full (default): every ctest test, except no_heap_test (it replaces malloc, which ASan owns:
#     not built under the preset), the `qemu`-labelled tests (qemu-user cannot host ASan's
#     shadow memory) and package_* (they link a consumer project against the installed,
#     sanitized libraries without the sanitizer runtime: a link error, not a finding).
#   EDGEFOLD_ASAN_SUBSET=1 (CI): builds and runs only the binaries that exercise untrusted
#     input and the runtime's memory: interpreter, kernels, trainer, CLI helpers, hardening.
#   EDGEFOLD_TSAN=1: ThreadSanitizer instead (preset `tsan`, build-tsan/), on the binaries that
#     run threads: the pool's hand-off and networks split over it (data races, lock order).
# Usage: scripts/sanitize-tests.sh [extra ctest args]
#   (env: JOBS=2, EDGEFOLD_ASAN_SUBSET=0, EDGEFOLD_TSAN=0)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JOBS="${JOBS:-2}"
cd "$ROOT"
if [[ "${EDGEFOLD_TSAN:-0}" == 1 ]]; then
  cmake --preset tsan >/dev/null
  threaded=(thread_pool_test threads_test)
  cmake --build --preset tsan -j"$JOBS" --target "${threaded[@]}"
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
  for t in "${threaded[@]}"; do
    echo "== $t (TSan)"
    "$ROOT/build-tsan/bin/$t" --gtest_brief=1
  done
  exit 0
fi
cmake --preset asan >/dev/null
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [[ "${EDGEFOLD_ASAN_SUBSET:-0}" == 1 ]]; then
  subset=(interpreter_test edgefold_kernels_test trainer_test edgefold_tools_tests
          edgefold_hardening_tests edgefold_hardening_cli_tests training_golden_test training_plan_test
          new_classes_test recompute_test update_record_test)
  cmake --build --preset asan -j"$JOBS" --target "${subset[@]}"
  for t in "${subset[@]}"; do
    echo "== $t (ASan+UBSan)"
    "$ROOT/build-asan/bin/$t" --gtest_brief=1
  done
  exit 0
fi
cmake --build --preset asan -j"$JOBS"
ctest --preset asan -j"$JOBS" -LE qemu -E '^package_' "$@"
