#!/bin/bash
# Prints the path of ONNX Runtime's CPU library for this machine (x86-64 or aarch64), the one
# the npm package onnxruntime-node ships, installing the package into DIR/node_modules first
# when it is missing (ONNXRUNTIME_NODE_INSTALL=skip: no GPU download).
# Usage: bench/ort_lib.sh [DIR]   (default build-bench/node; EDGEFOLD_BENCH_BUILD moves it)
#   export EDGEFOLD_ORT_LIB=$(bench/ort_lib.sh)   # edgefold bench --ort, edgefold diff --ort
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-${EDGEFOLD_BENCH_BUILD:-$ROOT/build-bench}/node}
case $(uname -m) in
  x86_64) ARCH=x64 ;;
  aarch64) ARCH=arm64 ;;
  *) echo "ort_lib.sh: onnxruntime-node ships no library for $(uname -m)" >&2; exit 1 ;;
esac
PKG=$DIR/node_modules/onnxruntime-node
if [[ ! -d $PKG ]]; then
  mkdir -p "$DIR"
  (cd "$DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node > /dev/null)
fi
LIB=$(find "$PKG"/bin -path "*/linux/$ARCH/libonnxruntime.so.*" 2> /dev/null | sort | head -1)
[[ -n $LIB ]] || { echo "ort_lib.sh: no libonnxruntime.so in $PKG for $ARCH" >&2; exit 1; }
echo "$LIB"
