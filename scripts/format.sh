#!/usr/bin/env bash
# Formats every C and C++ source of the project with .clang-format (Debian's clang-format).
# Usage: scripts/format.sh [--check]   (--check: list the files that differ, exit 1 if any)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.inc' '*.cpp')
if [[ "${1:-}" == "--check" ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format "$f" | cmp -s - "$f"; then echo "$f"; bad=1; fi
  done
  exit "$bad"
fi
clang-format -i "${files[@]}"
