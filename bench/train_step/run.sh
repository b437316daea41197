#!/usr/bin/env bash
# One training step (BN only: γ, β by SGD with momentum; batch statistics) of the MLPerf-Tiny-
# style models: edgefold (`edgefold bench --train`, one thread) beside PyTorch (1 thread),
# at batch 1 and 8, alternating engines, best median of two rounds. Prints one row per model
# and batch with the ratio edgefold/PyTorch and the training arena.
# Usage: bench/train_step/run.sh [runs] [build-dir]      (default 30 runs, build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-30}
BUILD=${2:-$ROOT/build}
EF="$BUILD/bin/edgefold"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
printf '%-18s %5s %12s %12s %9s %14s\n' model batch edgefold_ms torch_ms ef/torch train_arena_B
for model in ds_cnn resnet8 mobilenet_v1_025; do
  for batch in 1 8; do
    "$EF" compile "$ROOT/tests/models/data/$model.onnx" --train --batch "$batch" --trainable bn \
      -o "$OUT/$model.$batch.efb" > /dev/null
    best_ef=""; best_pt=""
    for round in 1 2; do
      ef=$("$EF" bench "$OUT/$model.$batch.efb" --train --runs "$RUNS" --warmup 5 | sed -n 's/^median_ms=//p')
      pt=$(/usr/bin/python3 "$ROOT/bench/train_step/torch_step.py" "$model" "$batch" "$RUNS" | sed -n 's/.*median_ms=//p')
      best_ef=$(printf '%s\n%s\n' "${best_ef:-$ef}" "$ef" | sort -g | head -1)
      best_pt=$(printf '%s\n%s\n' "${best_pt:-$pt}" "$pt" | sort -g | head -1)
    done
    arena=$("$EF" bench "$OUT/$model.$batch.efb" --train --runs 1 --warmup 0 | sed -n 's/.*training arena: \([0-9]*\).*/\1/p')
    printf '%-18s %5s %12.3f %12.3f %9.2f %14s\n' "$model" "$batch" "$best_ef" "$best_pt" \
      "$(echo "$best_ef / $best_pt" | bc -l)" "$arena"
  done
done
