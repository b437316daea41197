#!/usr/bin/env bash
# Checks the cycle model of bench/insn/cycles.c (docs/cycles.md) against a published figure:
# CoreMark (EEMBC, https://github.com/eembc/coremark, not vendored) built for Cortex-M4 and
# Cortex-M55 with edgefold's startup code and bench/insn/coremark/core_portme.*, run under QEMU
# with the cycle plugin at two iteration counts; cycles per iteration = the difference / the
# extra iterations, CoreMark/MHz = 10^6 / cycles per iteration.
# Usage: bench/insn/coremark-cycles.sh COREMARK_SRC_DIR   (scripts/insn-count.sh builds the plugin)
# env: PLUGIN_DIR (default build-x86q/qemu-plugins), CFLAGS_OPT (default -O3)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SRC="${1:?usage: $0 COREMARK_SRC_DIR}"
PLUGIN_DIR="${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}"
OPT="${CFLAGS_OPT:--O3}"
INSN_PLUGIN_ONLY=1 PLUGIN_DIR="$PLUGIN_DIR" bash "$ROOT/scripts/insn-count.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
M=$ROOT/targets/cortex-m
cycles() {  # cycles NAME MACHINE CORE CPUFLAGS LDSCRIPT ITERATIONS [extra sources]
  local name=$1 machine=$2 core=$3 cpu=$4 ld=$5 it=$6; shift 6
  arm-none-eabi-gcc $cpu $OPT -DITERATIONS="$it" -DPERFORMANCE_RUN=1 -DFLAGS_STR="\"$OPT\"" \
    -I"$ROOT/bench/insn/coremark" -I"$SRC" "$SRC"/core_{list_join,main,matrix,state,util}.c \
    "$ROOT/bench/insn/coremark/core_portme.c" "$M/startup.c" "$@" \
    --specs=nano.specs --specs=rdimon.specs -T"$M/$ld" -o "$out/$name.elf"
  qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -plugin "$PLUGIN_DIR/libcycles.so,core=$core${REFILL:+,refill=$REFILL}" \
    -d plugin -D "$out/$name.log" -kernel "$out/$name.elf" > "$out/$name.out" 2>&1
  # The 2K performance run's known CRCs (its "Errors detected" is the 10-second rule: no timer).
  for crc in "crclist *: 0xe714" "crcmatrix *: 0x1fd7" "crcstate *: 0x8e3a"; do
    grep -q "$crc" "$out/$name.out" || { cat "$out/$name.out" >&2; exit 1; }
  done
  echo "$(sed -n 's/^insns: //p' "$out/$name.log") $(sed -n 's/^cycles: //p' "$out/$name.log")"
}
printf '%-11s %12s %12s %14s\n' core insns/iter cycles/iter CoreMark/MHz
for spec in "m4|mps2-an386|m4|-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard|mps2.ld|" \
            "m55|mps3-an547|m55|-mcpu=cortex-m55 -mthumb -mfpu=auto -mfloat-abi=hard|mps3-an547.ld|$M/mps3_sbrk.c"; do
  IFS='|' read -r name machine core cpu ld extra <<<"$spec"
  read -r ia ca <<<"$(cycles "${name}_a" "$machine" "$core" "$cpu" "$ld" 20 $extra)"
  read -r ib cb <<<"$(cycles "${name}_b" "$machine" "$core" "$cpu" "$ld" 60 $extra)"
  per=$(( (cb - ca) / 40 ))
  printf '%-11s %12d %12d %14s\n' "cortex-$name" $(( (ib - ia) / 40 )) "$per" \
    "$(awk -v p="$per" 'BEGIN { printf "%.2f", 1e6 / p }')"
done
