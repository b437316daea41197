#!/bin/bash
# Instructions per inference under qemu-aarch64 (an emulator counts instructions, not time).
# Each .efb given is run by bench/insn/efb_runner.cc (built statically against build-aarch64's
# runtime) with NEON + the dot-product extension (what a Cortex-A55/A76-class core selects),
# NEON alone (EDGEFOLD_NO_DOTPROD=1) and the scalar kernels; where the .efb has its ONNX file
# beside it (X.efb or X.int8.efb → X.onnx, with X.input.npy for the shape), ONNX Runtime's
# aarch64 library from the onnxruntime-node package runs it too (bench/insn/ort_runner.c:
# CPU provider, 1 thread, all optimizations). Per inference = count(2 runs) − count(1 run),
# QEMU's insn plugin (scripts/insn-count.sh builds it).
#
# ORT under qemu-user: its bundled cpuinfo library parses /proc/cpuinfo, which QEMU 7.2 passes
# through from the x86 host, and crashes on the x86 fields (SIGSEGV at load, also through
# node). The script shows it the /proc/cpuinfo of a Cortex-A76-class core
# (bench/insn/fake_cpuinfo_a76: NEON with asimddp) in a private mount namespace (needs root).
# Both run on QEMU's cortex-a76 CPU model (NEON, dotprod, no SVE): QEMU's default "max" CPU
# also has SVE with 512-bit vectors, which ORT's kernels use and no Cortex-A76/A55 has.
# Usage: bench/insn/run.sh MODEL.efb...   env: ORT_NODE_DIR (default build-bench/node),
#        QEMU_CPU (default cortex-a76)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${EDGEFOLD_AARCH64_BUILD:-$ROOT/build-aarch64}
PLUGIN_DIR=${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}
QEMU_CPU=${QEMU_CPU:-cortex-a76}
ORT_NODE_DIR=${ORT_NODE_DIR:-$ROOT/build-bench/node}
ORT_LIB=$ORT_NODE_DIR/node_modules/onnxruntime-node/bin/napi-v6/linux/arm64
[[ $# -ge 1 ]] || { sed -n '2,19p' "$0"; exit 2; }

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/targets/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_COMPILER=OFF > /dev/null
cmake --build "$BUILD" -j2 --target edgefold_runtime > /dev/null
PLUGIN_DIR=$PLUGIN_DIR INSN_PLUGIN_ONLY=1 bash "$ROOT/scripts/insn-count.sh" > /dev/null
runner=$BUILD/efb_runner
aarch64-linux-gnu-g++ -O2 -std=c++17 -static -I"$ROOT/runtime/include" "$ROOT/bench/insn/efb_runner.cc" \
  "$BUILD/runtime/libedgefold_runtime.a" "$BUILD/runtime/src/kernels/libedgefold_kernels.a" -o "$runner"
ort_runner=""
if [[ -f $ORT_LIB/libonnxruntime.so.1 && $(id -u) -eq 0 ]]; then
  ort_runner=$BUILD/ort_runner
  aarch64-linux-gnu-gcc -O2 -std=c11 "$ROOT/bench/insn/ort_runner.c" -L"$ORT_LIB" -l:libonnxruntime.so.1 -o "$ort_runner"
else
  echo "(no ONNX Runtime column: needs root and $ORT_LIB/libonnxruntime.so.1 — bench/run.sh installs the package)"
fi

insns() { sed -n 's/^insns: //p' | tail -1; }
count_efb() {  # count_efb MODEL RUNS ENV...
  local model=$1 runs=$2; shift 2
  env "$@" qemu-aarch64 -cpu "$QEMU_CPU" -plugin "$PLUGIN_DIR/libinsn.so,inline=on" -d plugin "$runner" "$model" "$runs" 2>&1 >/dev/null | insns
}
count_ort() {  # count_ort ONNX RUNS DIM...
  local model=$1 runs=$2; shift 2
  unshare -m sh -c "mount --bind '$ROOT/bench/insn/fake_cpuinfo_a76' /proc/cpuinfo &&
    QEMU_LD_PREFIX=/usr/aarch64-linux-gnu LD_LIBRARY_PATH='$ORT_LIB' qemu-aarch64 -cpu '$QEMU_CPU' \
      -plugin '$PLUGIN_DIR/libinsn.so,inline=on' -d plugin '$ort_runner' '$model' $runs input output $*" 2>&1 | insns
}
per_efb() { echo $(( $(count_efb "$1" 2 "${@:2}") - $(count_efb "$1" 1 "${@:2}") )); }
per_ort() { echo $(( $(count_ort "$1" 2 "${@:2}") - $(count_ort "$1" 1 "${@:2}") )); }

printf '%-34s %14s %14s %14s %14s %9s\n' "model (qemu-aarch64, insns/inf.)" "neon+dotprod" "neon" "scalar" "ORT 1 thread" "ef/ORT"
for m in "$@"; do
  stem=${m%.efb}; stem=${stem%.int8}
  dot=$(per_efb "$m" EDGEFOLD_ISA=)
  ort="-"; ratio="-"
  if [[ -n $ort_runner && -f $stem.onnx && -f $stem.input.npy ]]; then
    dims=$(/usr/bin/python3 -c "import numpy, sys; print(*numpy.load(sys.argv[1]).shape)" "$stem.input.npy")
    # shellcheck disable=SC2086
    ort=$(per_ort "$stem.onnx" $dims)
    ratio=$(python3 -c "print(f'{$dot / $ort:.2f}')")
  fi
  printf '%-34s %14s %14s %14s %14s %9s\n' "$(basename "$m")" "$dot" "$(per_efb "$m" EDGEFOLD_NO_DOTPROD=1)" \
    "$(per_efb "$m" EDGEFOLD_ISA=scalar)" "$ort" "$ratio"
done
