#!/usr/bin/env bash
# Builds everything with ASan+UBSan (CMakePresets.json preset `asan`, in build-asan/) and runs
# the ctest suite under it. Any sanitizer report aborts the test that triggered it.
# Left out: no_heap_test (it replaces malloc, which ASan owns: not built under the preset) and
# the `qemu`-labelled tests (qemu-user cannot host ASan's shadow memory), and the package_*
# tests (they build a consumer project against the installed, sanitized libraries without
# the sanitizer runtime: a link error, not a finding).
# Usage: scripts/sanitize-tests.sh [extra ctest args]   (env: JOBS=2)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JOBS="${JOBS:-2}"
cd "$ROOT"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$JOBS"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ctest --preset asan -j"$JOBS" -LE qemu -E '^package_' "$@"
