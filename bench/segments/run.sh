#!/bin/bash
# Where one engine leads the other inside a network, at one thread, without a profiler (ONNX
# Runtime's inflated its per-op times by a fifth here): MobileNetV2 cut after features[k] and
# chains of identical blocks (export_segments.py), each timed by edgefold and ONNX Runtime
# alternately, ROUNDS rounds over all of them, both pinned to the same CPU; prints the minimum of
# each engine's medians, their ratio, and each MobileNetV2 segment's time (the difference of two
# cuts).
# Usage: bench/segments/run.sh [runs]   (default 400; env ROUNDS=3, CPU=<first allowed>)
# ONNX Runtime is timed natively, in edgefold's process on the same input (`edgefold bench --ort`).
# Needs: what bench/run.sh needs (bench/ort_lib.sh gets ONNX Runtime's library).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-400}
BUILD=${EDGEFOLD_BENCH_BUILD:-$ROOT/build-bench}
OUT=$BUILD/segments
ROUNDS=${ROUNDS:-3}
CPU=${CPU:-$(/usr/bin/python3 -c 'import os; print(min(os.sched_getaffinity(0)))')}
EDGEFOLD_ORT_LIB=$("$ROOT/bench/ort_lib.sh" "$BUILD/node")
export EDGEFOLD_ORT_LIB

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=OFF > /dev/null
cmake --build "$BUILD" -j2 --target edgefold > /dev/null
[[ -f $OUT/mnv2_18.onnx ]] || /usr/bin/python3 "$ROOT/bench/segments/export_segments.py" "$OUT" 2> /dev/null

median() { sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<< "$1" | tail -1; }
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), CPU $CPU; minimum of $ROUNDS medians of $RUNS runs"
NAMES=()
for k in 1 4 7 11 14 17 18; do NAMES+=("mnv2_$k"); done
for f in "$OUT"/chain_*.onnx; do NAMES+=("$(basename "$f" .onnx)"); done
for n in "${NAMES[@]}"; do
  "$BUILD/bin/edgefold" compile "$OUT/$n.onnx" -o "$OUT/$n.efb" > /dev/null
  /usr/bin/python3 -c "import onnx, numpy as np
d = [x.dim_value for x in onnx.load('$OUT/$n.onnx').graph.input[0].type.tensor_type.shape.dim]
np.save('$OUT/$n.in.npy', np.random.default_rng(0).standard_normal(d).astype('float32'))"
done
# Rounds outside, models inside: a drift of the host's speed falls on every model alike (the
# segments are differences of two models' times).
declare -A EF ORT
for ((r = 0; r < ROUNDS; ++r)); do
  for n in "${NAMES[@]}"; do
    out=$(taskset -c "$CPU" "$BUILD/bin/edgefold" bench "$OUT/$n.efb" --ort "$OUT/$n.onnx" --rounds 1 \
            -i "$OUT/$n.in.npy" --runs "$RUNS" --warmup 50)
    e=$(median "$out")
    o=$(sed -n 's/.*ort_median_ms=\([0-9.]*\).*/\1/p' <<< "$out" | tail -1)
    EF[$n]=$(/usr/bin/python3 -c "print(min($e, ${EF[$n]:-$e}))")
    ORT[$n]=$(/usr/bin/python3 -c "print(min($o, ${ORT[$n]:-$o}))")
  done
done
printf "%-22s %10s %10s %7s\n" model edgefold_ms ort_ms ef/ORT
for n in "${NAMES[@]}"; do
  printf "%-22s %10.4f %10.4f %7.2f\n" "$n" "${EF[$n]}" "${ORT[$n]}" "$(/usr/bin/python3 -c "print(${EF[$n]} / ${ORT[$n]})")"
done
echo
echo "MobileNetV2 segments (features[a..b] = cut b+1 minus cut a), edgefold_ms ort_ms:"
prev=""
for k in 1 4 7 11 14 17 18; do
  if [[ -n $prev ]]; then
    printf "  %-18s %10.4f %10.4f\n" "features[$prev..$((k - 1))]" \
      "$(/usr/bin/python3 -c "print(${EF[mnv2_$k]} - ${EF[mnv2_$prev]})")" \
      "$(/usr/bin/python3 -c "print(${ORT[mnv2_$k]} - ${ORT[mnv2_$prev]})")"
  fi
  prev=$k
done
