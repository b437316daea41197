#!/usr/bin/env bash
# Digits example on an existing build: compile the ONNX model, inspect it, evaluate it, adapt it
# to a sensor drift (batch statistics + BN fine-tuning, then label-free streaming at batch 1).
# Usage: examples/digits/run.sh [BUILD_DIR]   (default: build)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD_DIR="${1:-$HERE/../../build}"
BIN="$BUILD_DIR/bin"
EFB="$BUILD_DIR/digits_cnn.efb"

echo "== edgefold compile"
"$BIN/edgefold" compile "$HERE/digits_cnn.onnx" -o "$EFB"
echo
echo "== edgefold inspect"
"$BIN/edgefold" inspect "$EFB"
echo
echo "== digits_eval (edgefold vs PyTorch on the test set)"
"$BIN/digits_eval" "$EFB" "$HERE"
echo
echo "== drift demo (on-device BN adaptation with edgefold::Trainer)"
"$BIN/edgefold" compile "$HERE/digits_cnn.onnx" --train --batch 10 -o "$BUILD_DIR/digits_cnn_train.efb" > /dev/null
"$BIN/drift_demo" "$BUILD_DIR/digits_cnn_train.efb" "$HERE"
echo
echo "== stream demo (label-free adaptation at batch 1, Trainer::StreamStep)"
"$BIN/edgefold" compile "$HERE/digits_cnn.onnx" --train -o "$BUILD_DIR/digits_cnn_stream.efb" > /dev/null
"$BIN/edgefold" compile "$HERE/digits_cnn.onnx" --train --batch 50 -o "$BUILD_DIR/digits_cnn_batch50.efb" > /dev/null
"$BIN/stream_demo" "$BUILD_DIR/digits_cnn_stream.efb" "$BUILD_DIR/digits_cnn_batch50.efb" "$HERE"
