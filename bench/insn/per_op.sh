#!/bin/bash
# Instructions per op of one inference under qemu-aarch64 (an emulator counts instructions, not
# time): op k's share is count(second run stopped after op k) − count(stopped after op k − 1),
# bench/insn/efb_runner.cc's STOP argument; names from `edgefold inspect` (host build).
# Run bench/insn/run.sh first (it builds the runner and the QEMU plugin).
# Usage: bench/insn/per_op.sh MODEL.efb      env: EDGEFOLD_ISA / EDGEFOLD_NO_DOTPROD as for run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${EDGEFOLD_AARCH64_BUILD:-$ROOT/build-aarch64}
PLUGIN_DIR=${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}
EF=${EDGEFOLD_HOST_CLI:-$ROOT/build/bin/edgefold}
[[ $# -eq 1 ]] || { sed -n '2,6p' "$0"; exit 2; }
count() {
  qemu-aarch64 -cpu "${QEMU_CPU:-cortex-a76}" -plugin "$PLUGIN_DIR/libinsn.so,inline=on" -d plugin \
    "$BUILD/efb_runner" "$1" 2 "$2" 2>&1 >/dev/null | sed -n 's/^insns: //p' | tail -1
}
mapfile -t names < <("$EF" inspect "$1" | sed -n "s/^  #[0-9]* \([^ ]*\) .*'\(.*\)'\$/\1 \2/p")
prev=$(count "$1" -1)
total=0
for k in "${!names[@]}"; do
  c=$(count "$1" "$k")
  printf '%4d %10d  %s\n' "$k" $((c - prev)) "${names[$k]}"
  total=$((total + c - prev))
  prev=$c
done
echo "total $total"
