#!/bin/bash
# Instructions per inference under qemu-aarch64 (an emulator counts instructions, not time):
# each .efb given is run by bench/insn/efb_runner.cc, built statically against build-aarch64's
# runtime, with NEON + the dot-product extension (what a Cortex-A55/A76-class core selects),
# NEON alone (EDGEFOLD_NO_DOTPROD=1) and the scalar kernels. Per inference = count(2 runs) −
# count(1 run), QEMU's insn plugin (scripts/insn-count.sh builds it).
# Usage: bench/insn/run.sh MODEL.efb...   e.g. float and --quantize int8 builds of one network.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${EDGEFOLD_AARCH64_BUILD:-$ROOT/build-aarch64}
PLUGIN_DIR=${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}
[[ $# -ge 1 ]] || { sed -n '2,8p' "$0"; exit 2; }

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/targets/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_COMPILER=OFF > /dev/null
cmake --build "$BUILD" -j2 --target edgefold_runtime > /dev/null
PLUGIN_DIR=$PLUGIN_DIR INSN_PLUGIN_ONLY=1 bash "$ROOT/scripts/insn-count.sh" > /dev/null
runner=$BUILD/efb_runner
aarch64-linux-gnu-g++ -O2 -std=c++17 -static -I"$ROOT/runtime/include" "$ROOT/bench/insn/efb_runner.cc" \
  "$BUILD/runtime/libedgefold_runtime.a" "$BUILD/runtime/src/kernels/libedgefold_kernels.a" -o "$runner"

count() {  # count ENV... -- MODEL RUNS
  env "$@" qemu-aarch64 -plugin "$PLUGIN_DIR/libinsn.so,inline=on" -d plugin "$runner" "$MODEL" "$RUNS" 2>&1 >/dev/null |
    sed -n 's/^insns: //p' | tail -1
}
per_inference() {
  local one two
  one=$(MODEL=$1 RUNS=1; shift; count "$@")
  two=$(MODEL=$1 RUNS=2; shift; count "$@")
  echo $(( two - one ))
}
printf '%-40s %16s %16s %16s\n' "model (qemu-aarch64, insns/inference)" "neon+dotprod" "neon" "scalar"
for m in "$@"; do
  printf '%-40s %16s %16s %16s\n' "$(basename "$m")" "$(per_inference "$m" EDGEFOLD_ISA=)" \
    "$(per_inference "$m" EDGEFOLD_NO_DOTPROD=1)" "$(per_inference "$m" EDGEFOLD_ISA=scalar)"
done
