#!/bin/bash
# int8 against float on the ARM Linux targets, in instructions per inference under QEMU user
# mode (QEMU's insn plugin; an emulator counts instructions, not time): DS-CNN, VWW
# (MobileNetV1-0.25) and ResNet-8, the examples/mcu networks and their int8 versions, each run
# by bench/insn/efb_runner.cc built statically against build-aarch64 / build-armv7. AArch64 on
# QEMU's cortex-a76 model with the dot-product extension (the neon_dotprod entry) and without it
# (EDGEFOLD_NO_DOTPROD=1: the neon entry, what a Cortex-A53/A72 selects); ARMv7 NEON on qemu-arm.
# Prints a Markdown table (bench/README.md keeps it). Per inference = count(2 runs) − count(1 run).
# Usage: bench/insn/arm_int8.sh [GEN_DIR]
#   GEN_DIR: where kws.efb, kws_int8.efb, vww.efb, vww_int8.efb, resnet8.efb, resnet8_int8.efb
#   are (default build-m4/examples/mcu/gen, what scripts/cross-test.sh m4 builds)
#   env: PLUGIN_DIR (default build-x86q/qemu-plugins; scripts/insn-count.sh builds it)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GEN=${1:-$ROOT/build-m4/examples/mcu/gen}
PLUGIN_DIR=${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}
[[ -f $PLUGIN_DIR/libinsn.so ]] || PLUGIN_DIR=$PLUGIN_DIR INSN_PLUGIN_ONLY=1 bash "$ROOT/scripts/insn-count.sh" >/dev/null

runner() {  # runner BUILD CXX FLAGS...: builds BUILD/efb_runner against BUILD's runtime
  local build=$1 cxx=$2; shift 2
  cmake --build "$ROOT/$build" -j2 --target edgefold_runtime >/dev/null
  "$cxx" -O2 -std=c++17 -static "$@" -I"$ROOT/runtime/include" "$ROOT/bench/insn/efb_runner.cc" \
    "$ROOT/$build/runtime/libedgefold_runtime.a" "$ROOT/$build/runtime/src/kernels/libedgefold_kernels.a" \
    -o "$ROOT/$build/efb_runner"
}
count() {  # count RUNNER MODEL RUNS ENV... -- QEMU...
  local runner=$1 model=$2 runs=$3; shift 3
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$@" -plugin "$PLUGIN_DIR/libinsn.so,inline=on" -d plugin "$runner" "$model" "$runs" \
    2>&1 >/dev/null | sed -n 's/^insns: //p' | tail -1
}
per_inference() {  # per_inference RUNNER MODEL ENV... -- QEMU...
  local runner=$1 model=$2; shift 2
  echo $(($(count "$runner" "$model" 2 "$@") - $(count "$runner" "$model" 1 "$@")))
}
mega() { awk -v n="$1" 'BEGIN { printf "%.3f M", n / 1e6 }'; }

have_a64=0 have_v7=0
[[ -f $ROOT/build-aarch64/runtime/libedgefold_runtime.a ]] && runner build-aarch64 aarch64-linux-gnu-g++ && have_a64=1
[[ -f $ROOT/build-armv7/runtime/libedgefold_runtime.a ]] &&
  runner build-armv7 arm-linux-gnueabihf-g++ -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard && have_v7=1

echo "| network | target | float | int8 | int8 / float | goal |"
echo "|---|---|---:|---:|---:|---:|"
row() {  # row NAME STEM TARGET GOAL ENV... -- QEMU...
  local name=$1 stem=$2 target=$3 goal=$4; shift 4
  local runner_bin=$ROOT/build-aarch64/efb_runner f i
  [[ " $* " == *" qemu-arm "* ]] && runner_bin=$ROOT/build-armv7/efb_runner
  f=$(per_inference "$runner_bin" "$GEN/$stem.efb" "$@")
  i=$(per_inference "$runner_bin" "$GEN/${stem}_int8.efb" "$@")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$target" "$(mega "$f")" "$(mega "$i")" \
    "$(awk -v a="$i" -v b="$f" 'BEGIN { printf "%.3f", a / b }')" "$goal"
}
nets=("DS-CNN kws" "VWW vww" "ResNet-8 resnet8")
if [[ $have_a64 == 1 ]]; then
  for n in "${nets[@]}"; do
    read -r name stem <<<"$n"
    row "$name" "$stem" "AArch64 neon+dotprod (\`-cpu cortex-a76\`)" "≤ 0.5" -- qemu-aarch64 -cpu cortex-a76
  done
  for n in "${nets[@]}"; do
    read -r name stem <<<"$n"
    row "$name" "$stem" "AArch64 neon (\`EDGEFOLD_NO_DOTPROD=1\`)" "≤ 0.7" EDGEFOLD_NO_DOTPROD=1 -- qemu-aarch64 -cpu cortex-a76
  done
fi
if [[ $have_v7 == 1 ]]; then
  for n in "${nets[@]}"; do
    read -r name stem <<<"$n"
    row "$name" "$stem" "ARMv7 NEON (\`qemu-arm\`)" "≤ 0.8" -- qemu-arm
  done
fi
