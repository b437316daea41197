#!/usr/bin/env bash
# Builds the example consumers of tests/package against edgefold the three ways a user can:
#   install       cmake --install into a temp prefix, then find_package(edgefold) and pkg-config
#   subdirectory  add_subdirectory(edgefold) from a parent project
# Both consumers (C via edgefold.h, C++ via the compiler + runtime) must agree on the output
# of the same model.
# usage: run_package_test.sh install|subdirectory SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
mode=$1 src=$2 build=$3 work=$4
here="$(cd "$(dirname "$0")" && pwd)"
onnx="$src/tests/golden/data/conv_bn_relu/model.onnx"
rm -rf "$work" && mkdir -p "$work"
gen=(-G Ninja -DCMAKE_BUILD_TYPE=Release)

check_same() {  # the C and C++ consumers print "checksum X over N outputs"
  echo "C:   $1"; echo "C++: $2"
  [[ -n "$1" && "$1" == "$2" ]] || { echo "FAIL: consumers disagree"; exit 1; }
}

if [[ "$mode" == install ]]; then
  prefix="$work/prefix"
  cmake --install "$build" --prefix "$prefix" > "$work/install.log"
  efb="$work/model.efb"
  "$prefix/bin/edgefold" compile "$onnx" -o "$efb" > /dev/null
  cmake -S "$here/consumer" -B "$work/consumer" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$work/consumer" -j2
  c_out=$("$work/consumer/run_c" "$efb")
  cpp_out=$("$work/consumer/compile_and_run" "$onnx")
  check_same "$c_out" "$cpp_out"
  # pkg-config, as a Makefile-based firmware build would use it.
  pcdir=$(dirname "$(find "$prefix" -name edgefold.pc | head -1)")
  flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs edgefold)
  echo "pkg-config: $flags"
  cc -std=c11 -O2 "$here/consumer/run_c.c" -o "$work/run_c_pc" $flags
  check_same "$("$work/run_c_pc" "$efb")" "$cpp_out"
elif [[ "$mode" == subdirectory ]]; then
  cmake -S "$here/subproject" -B "$work/parent" "${gen[@]}" -DEDGEFOLD_SOURCE_DIR="$src"
  cmake --build "$work/parent" -j2 --target run_c compile_and_run
  efb="$work/model.efb"
  "$build/bin/edgefold" compile "$onnx" -o "$efb" > /dev/null   # the tree's CLI: saves a link
  check_same "$("$work/parent/run_c" "$efb")" "$("$work/parent/compile_and_run" "$onnx")"
else
  echo "unknown mode $mode"; exit 2
fi
echo "OK: package consumer ($mode) builds and runs"
