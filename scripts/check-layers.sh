#!/usr/bin/env bash
# The house's dependency rules, checked on every quoted #include of the C/C++ sources
# (STYLE.md, "Dependency direction"): kernels ← ops ← interpreter/trainer ← public API.
#   - the ground floor (edgefold/types.h, edgefold/op_list.h) includes nothing of ours but the
#     op list; public headers include only public headers;
#   - kernels include no ops, model, interpreter, training, adaptation or C API code, and not
#     the public interpreter.h / op_resolver.h;
#   - base, model and ops include nothing above them, ops no SIMD template (kernels/simd/,
#     kernels/arch/: only the per-ISA table files see those); none of base, model, ops, kernels includes
#     edgefold/interpreter.h or edgefold/op_resolver.h (ops/op_resolver.cc, the resolver's own
#     implementation, aside);
#   - the interpreter includes no training, adaptation or C API code; nothing of the runtime
#     but the C API itself includes runtime/src/c_api/;
#   - generated schema code (model_generated.h) only in the model reader (runtime/src/model/),
#     the compiler's writer (compiler/src/write/), the lowered model (compiler/src/lower/
#     lowered.h: its ops are the schema's object API), tests and tools;
#   - the runtime never includes the compiler; no #include "../…" anywhere.
# Prints "path:line: #include "x": rule" for each violation and exits 1; 0 when the tree obeys.
# Usage: scripts/check-layers.sh [source root]   (default: this checkout)
set -uo pipefail
ROOT="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
cd "$ROOT" || exit 2

# Files that may include model_generated.h besides the rooms above, each with its reason.
SCHEMA_ALLOWED_FILES=(
  compiler/src/lower/lowered.h
)

violations=0
report() {   # file line include rule
  printf '%s:%s: #include "%s": %s\n' "$1" "$2" "$3" "$4"
  violations=$((violations + 1))
}

# Every C/C++ source of ours: build trees, hidden folders and third-party copies left out.
list_sources() {
  find . \( -path './build*' -o -path './.*' -o -path '*/third_party' -o -path '*/_deps' \) -prune -o \
    -type f \( -name '*.h' -o -name '*.hh' -o -name '*.hpp' -o -name '*.c' -o -name '*.cc' -o \
    -name '*.cpp' -o -name '*.inc' \) -print | sed 's|^\./||' | sort
}

# True when the quoted include names a header of the compiler (compiler/src/<x> or
# compiler/include/<x>) and no runtime header of that name exists.
is_compiler_header() {
  local inc="$1"
  [[ -e "runtime/src/$inc" || -e "runtime/include/$inc" ]] && return 1
  [[ -e "compiler/src/$inc" || -e "compiler/include/$inc" || "$inc" == edgefold_compiler/* ]]
}

starts_with_any() {   # string prefix...
  local s="$1"; shift
  local p
  for p in "$@"; do [[ "$s" == "$p"* ]] && return 0; done
  return 1
}

check_include() {   # file line include
  local f="$1" n="$2" inc="$3"
  local public_front=(edgefold/interpreter.h edgefold/op_resolver.h)
  if [[ "$inc" == ../* || "$inc" == */../* ]]; then
    report "$f" "$n" "$inc" "no relative includes: name the header from its source root"
  fi
  if [[ "$inc" == *model_generated.h ]]; then
    local allowed=0 a
    starts_with_any "$f" runtime/src/model/ compiler/src/write/ tests/ tools/ && allowed=1
    for a in "${SCHEMA_ALLOWED_FILES[@]}"; do [[ "$f" == "$a" ]] && allowed=1; done
    ((allowed)) || report "$f" "$n" "$inc" "schema code leaks out of its room (runtime/src/model/, compiler/src/write/)"
  fi
  case "$f" in
    runtime/include/edgefold/types.h|runtime/include/edgefold/op_list.h)
      [[ "$inc" == edgefold/op_list.h ]] ||
        report "$f" "$n" "$inc" "the ground floor includes nothing of ours but the op list" ;;
    runtime/include/*)
      [[ "$inc" == edgefold/* ]] || report "$f" "$n" "$inc" "a public header includes only public headers" ;;
  esac
  case "$f" in
    runtime/src/kernels/*)
      if starts_with_any "$inc" ops/ model/ interpreter/ training/ adaptation/ c_api/ ||
         starts_with_any "$inc" "${public_front[@]}"; then
        report "$f" "$n" "$inc" "kernels include no ops, model, interpreter, training, adaptation or C API code"
      fi ;;
    runtime/src/ops/*)
      if starts_with_any "$inc" interpreter/ training/ adaptation/ c_api/; then
        report "$f" "$n" "$inc" "ops include no interpreter, training, adaptation or C API code"
      elif starts_with_any "$inc" kernels/simd/ kernels/arch/; then
        report "$f" "$n" "$inc" "ops call the kernel tables, never the SIMD templates"
      fi ;;
    runtime/src/model/*)
      if starts_with_any "$inc" ops/ interpreter/ training/ adaptation/ c_api/; then
        report "$f" "$n" "$inc" "the model reader includes no ops, interpreter, training, adaptation or C API code"
      fi ;;
    runtime/src/base/*)
      if starts_with_any "$inc" kernels/ model/ ops/ interpreter/ training/ adaptation/ c_api/; then
        report "$f" "$n" "$inc" "base includes nothing above it"
      fi ;;
    runtime/src/interpreter/*)
      if starts_with_any "$inc" training/ adaptation/ c_api/; then
        report "$f" "$n" "$inc" "the interpreter includes no training, adaptation or C API code"
      fi ;;
  esac
  case "$f" in
    runtime/src/base/*|runtime/src/model/*|runtime/src/ops/*|runtime/src/kernels/*)
      if starts_with_any "$inc" "${public_front[@]}" &&
         ! [[ "$f" == runtime/src/ops/op_resolver.cc && "$inc" == edgefold/op_resolver.h ]]; then
        report "$f" "$n" "$inc" "base, model, ops and kernels take shared names from edgefold/types.h"
      fi ;;
  esac
  if [[ "$f" == runtime/src/* && "$f" != runtime/src/c_api/* && "$inc" == c_api/* ]]; then
    report "$f" "$n" "$inc" "the C API is the top floor: nothing of the runtime includes it"
  fi
  if [[ "$f" == runtime/* ]] && is_compiler_header "$inc"; then
    report "$f" "$n" "$inc" "the runtime never includes the compiler"
  fi
}

while IFS= read -r file; do
  while IFS=: read -r line inc; do
    check_include "$file" "$line" "$inc"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
           sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2/')
done < <(list_sources)

if ((violations > 0)); then
  echo "check-layers: $violations include(s) against the layering rules (scripts/check-layers.sh)" >&2
  exit 1
fi
echo "check-layers: ok"
