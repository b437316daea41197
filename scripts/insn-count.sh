#!/usr/bin/env bash
# Instructions per inference (the speed measure where there is no hardware), counted with
# QEMU's insn plugin, built from Debian's QEMU source (Debian ships no TCG plugins), and on
# Cortex-M estimated cycles from bench/insn/cycles.c (docs/cycles.md: the model and its limits):
#   Cortex-M4 (mps2-an386), Cortex-M55 (mps3-an547): examples/mcu firmware (digits; KWS,
#             ResNet-8, VWW float and int8), with the kernels the firmware reports
#   aarch64 / armv7: the same example program on Linux, NEON vs scalar (EDGEFOLD_ISA=scalar)
# Per inference = count(2 inferences) - count(1 inference): startup and Create cancel out.
# Needs build-m4 and build-m55 (scripts/cross-test.sh m4 m55), build-aarch64 and build-armv7;
# a target not built is skipped.
# Usage: scripts/insn-count.sh [--functions] [--mcu-only]
#        --functions: the 6 functions with the most estimated cycles per inference, per firmware
#        env: PLUGIN_DIR (default build-x86q/qemu-plugins), INSN_PLUGIN_ONLY=1 (build the
#        plugins and stop)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PLUGIN_DIR="${PLUGIN_DIR:-$ROOT/build-x86q/qemu-plugins}"
GEN="$ROOT/build-m4/examples/mcu/gen"

functions=0
mcu_only=0
for a in "$@"; do
  case "$a" in
    --functions) functions=1 ;;
    --mcu-only) mcu_only=1 ;;
    *) echo "usage: $0 [--functions] [--mcu-only]"; exit 2 ;;
  esac
done

build_cycles_plugin() {  # the cycle estimator, against the same qemu-plugin.h
  local src="$ROOT/bench/insn/cycles.c" out="$PLUGIN_DIR/libcycles.so"
  [[ -f "$out" && "$out" -nt "$src" ]] && return 0
  gcc -O2 -shared -fPIC -Wall -I"$(dirname "$(find "$PLUGIN_DIR" -name qemu-plugin.h | head -1)")" \
      $(pkg-config --cflags glib-2.0) "$src" -o "$out" $(pkg-config --libs glib-2.0)
}

build_plugin() {
  [[ -f "$PLUGIN_DIR/libinsn.so" ]] && return 0
  mkdir -p "$PLUGIN_DIR/apt/parts" "$PLUGIN_DIR/apt/lists/partial"
  cd "$PLUGIN_DIR"
  dpkg -s libglib2.0-dev >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends libglib2.0-dev
  # A private deb-src list: the system's apt configuration is left alone.
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > apt/parts/src.sources
  local opt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$PWD/apt/parts"
             -o "Dir::State::Lists=$PWD/apt/lists")
  apt-get "${opt[@]}" update -qq
  apt-get "${opt[@]}" source --download-only "qemu=$(dpkg-query -W -f='${source:Version}' qemu-user)"
  local src=(qemu_*.orig.tar.xz)
  local top; top=$( (tar -tJf "${src[0]}" || true) | head -1 | cut -d/ -f1)
  tar -xJf "${src[0]}" "$top/include/qemu/qemu-plugin.h" "$top/tests/plugin/insn.c"
  gcc -O2 -shared -fPIC -I"$top/include/qemu" $(pkg-config --cflags glib-2.0) "$top/tests/plugin/insn.c" \
      -o libinsn.so $(pkg-config --libs glib-2.0)
  cd - >/dev/null
}

insns() {  # insns EMULATOR-ARGS... : prints the plugin's count
  "$@" 2>&1 >/dev/null | sed -n 's/^insns: //p' | tail -1
}

mcu_run() {  # mcu_run MACHINE CORE ELF RUNS OUT: the cycles plugin's lines in OUT, per-function
  # sums in OUT.syms; prints the firmware's output
  qemu-system-arm -M "$1" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -plugin "$PLUGIN_DIR/libcycles.so,core=$2,syms=$5.syms" \
    -d plugin -D "$5" -kernel "$3" -append "$4"
}

linux_prog() {  # linux_prog DIR CXX MODEL FLAGS... : builds the example for a Linux target
  local dir=$1 cxx=$2 model=$3; shift 3
  local upper; upper=$(echo "$model" | tr a-z A-Z)
  "$cxx" -O2 -std=gnu++17 -static "$@" -I"$ROOT/runtime/include" -DEDGEFOLD_EXAMPLE_MODEL="$model" \
    -DEDGEFOLD_EXAMPLE_NAME_UPPER="$upper" -DEDGEFOLD_MODEL_HEADER="\"$GEN/${model}_model_data.h\"" \
    -DEDGEFOLD_INPUT_HEADER="\"$GEN/${model}_input.h\"" "$ROOT/examples/mcu/main.cc" \
    "$ROOT/$dir/runtime/libedgefold_runtime.a" "$ROOT/$dir/runtime/src/kernels/libedgefold_kernels.a" \
    -o "$ROOT/$dir/insn_$model"
  echo "$ROOT/$dir/insn_$model"
}

linux_count() {  # linux_count QEMU ISA PROG RUNS
  EDGEFOLD_ISA=$2 insns "$1" -plugin "$PLUGIN_DIR/libinsn.so,inline=on" -d plugin "$3" "$4"
}

per_inference() { echo $(( $2 - $1 )); }

field() { sed -n "s/^$1: //p" "$2" | tail -1; }

build_plugin
build_cycles_plugin
# INSN_PLUGIN_ONLY=1: only build the plugins (bench/insn/run.sh uses it).
[[ "${INSN_PLUGIN_ONLY:-0}" == 1 ]] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-24s %-12s %16s %16s\n' "target / model" "kernels" "insns/inference" "est. cycles"
for spec in "m4 mps2-an386 m4" "m55 mps3-an547 m55"; do
  read -r target machine core <<<"$spec"
  [[ -f "$ROOT/build-$target/bin/mcu_kws.elf" ]] || { echo "skip cortex-$target (build-$target not built)"; continue; }
  for model in digits kws kws_int8 resnet8 resnet8_int8 vww vww_int8; do
    elf="$ROOT/build-$target/bin/mcu_$model.elf"
    kernels=$(mcu_run "$machine" "$core" "$elf" 1 "$tmp/1" 2>/dev/null | sed -n 's/.*kernels \([^ ,]*\).*/\1/p' | head -1)
    mcu_run "$machine" "$core" "$elf" 2 "$tmp/2" >/dev/null 2>&1
    printf '%-24s %-12s %16s %16s\n' "cortex-$target $model" "${kernels:-?}" \
      "$(per_inference "$(field insns "$tmp/1")" "$(field insns "$tmp/2")")" \
      "$(per_inference "$(field cycles "$tmp/1")" "$(field cycles "$tmp/2")")"
    if [[ $functions == 1 ]]; then  # per function: cycles and insns of run 2 less run 1
      awk 'NR == FNR { c[$3] -= $1; i[$3] -= $2; next } { c[$3] += $1; i[$3] += $2 }
           END { for (s in c) if (c[s] > 0) printf "%d %d %s\n", c[s], i[s], s }' "$tmp/1.syms" "$tmp/2.syms" |
        sort -rn | head -6 | awk '{ printf "    %12d cycles %12d insns  %s\n", $1, $2, $3 }' |
        c++filt | cut -c1-130
    fi
  done
done
[[ $mcu_only == 1 ]] && exit 0
for spec in "build-aarch64 aarch64-linux-gnu-g++ qemu-aarch64" \
            "build-armv7 arm-linux-gnueabihf-g++ qemu-arm -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard"; do
  read -r dir cxx qemu flags <<<"$spec"
  [[ -f "$ROOT/$dir/runtime/libedgefold_runtime.a" ]] || { echo "skip $dir (not built)"; continue; }
  for model in digits kws kws_int8; do
    prog=$(linux_prog "$dir" "$cxx" "$model" $flags)
    for isa in neon scalar; do
      n=$(per_inference "$(linux_count "$qemu" "$isa" "$prog" 1)" "$(linux_count "$qemu" "$isa" "$prog" 2)")
      printf '%-24s %-8s %16s\n' "${dir#build-} $model" "$isa" "$n"
    done
  done
done
