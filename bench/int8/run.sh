#!/bin/bash
# int8 against edgefold's own float, side by side in one run (docs/quantization.md):
# per network the float and the int8 (--quantize int8) model are compiled from the same ONNX
# file, then `edgefold bench` alternates between them ROUNDS times; the best median of each
# is printed with float/int8 (the int8 speedup), the arena and weight bytes of both, and the
# compiler's int8-vs-float output SQNR and top-1 agreement on the calibration set.
# Calibration: CALIB_N (default 16) inputs drawn like the benchmark input (N(0,1), fixed seed;
# the networks have random weights, so the accuracy columns check the kernels, not a task).
# Usage: bench/int8/run.sh [runs] [model ...]   (default 30 runs; resnet18 mobilenet_v2 ds_cnn
#        resnet8 mobilenet_v1_025_vww). env ISA=avx512 etc. pins the kernel level;
#        EDGEFOLD_NO_VNNI=1 keeps AVX-512 without VNNI.
# Needs: what bench/run.sh needs (the models come from bench/export_models.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-30}; shift || true
BUILD=${EDGEFOLD_BENCH_BUILD:-$ROOT/build-bench}
MODELS=$BUILD/models
ROUNDS=${ROUNDS:-3}
CALIB_N=${CALIB_N:-16}
[[ -n ${ISA:-} ]] && export EDGEFOLD_ISA=$ISA

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=OFF > /dev/null
cmake --build "$BUILD" -j2 --target edgefold > /dev/null
EF=$BUILD/bin/edgefold

NAMES=("$@")
[[ $# -eq 0 ]] && NAMES=(resnet18 mobilenet_v2 ds_cnn resnet8 mobilenet_v1_025_vww)
field() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<< "$1" | tail -1; }
printf "%-22s %10s %10s %7s %18s %20s %9s %7s\n" model float_ms int8_ms speedup "arena f->i8 (B)" "weights f->i8 (B)" sqnr_dB top1
for n in "${NAMES[@]}"; do
  m=$MODELS/$n
  [[ -f $m.onnx ]] || /usr/bin/python3 "$ROOT/bench/export_models.py" "$MODELS" "$n" 2>/dev/null
  [[ -f $m.calib.npy ]] || /usr/bin/python3 - "$m.input.npy" "$m.calib.npy" "$CALIB_N" <<'PY'
import sys, numpy as np
x = np.load(sys.argv[1])
rng = np.random.default_rng(7)
np.save(sys.argv[2], rng.standard_normal((int(sys.argv[3]),) + x.shape[1:]).astype(np.float32))
PY
  "$EF" compile "$m.onnx" -o "$m.efb" > "$m.compile.log"
  "$EF" compile "$m.onnx" --quantize int8 --calibrate "$m.calib.npy" -o "$m.int8.efb" > "$m.int8.log"
  best_f=""; best_q=""
  for ((r = 0; r < ROUNDS; ++r)); do
    f=$(field "$("$EF" bench "$m.efb" --runs "$RUNS" --warmup 3)" median_ms)
    q=$(field "$("$EF" bench "$m.int8.efb" --runs "$RUNS" --warmup 3)" median_ms)
    best_f=$(python3 -c "print(min(float('$f'), float('${best_f:-inf}')))")
    best_q=$(python3 -c "print(min(float('$q'), float('${best_q:-inf}')))")
  done
  # "int8 arena: A bytes (float F), weights W bytes (float G)"; "int8 output: SQNR S dB, top-1 agreement with float T %"
  sizes=$(grep -m1 '^int8 arena:' "$m.int8.log" | tr -d '(),' || true)
  arena=$(awk '{print $6 "->" $3}' <<< "$sizes"); weights=$(awk '{print $11 "->" $8}' <<< "$sizes")
  quality=$(grep -m1 '^int8 output:' "$m.int8.log" || true)
  sqnr=$(awk '{print $4}' <<< "$quality"); top1=$(awk '{print $10 "%"}' <<< "$quality")
  printf "%-22s %10.3f %10.3f %7.2f %18s %20s %9s %7s\n" "$n" "$best_f" "$best_q" \
    "$(python3 -c "print($best_f / $best_q)")" "${arena:-?}" "${weights:-?}" "${sqnr:-?}" "${top1:-?}"
done
echo "kernels: $("$EF" bench "$MODELS/${NAMES[0]}.int8.efb" --runs 1 --warmup 0 | sed -n 's/^kernels: \([^,]*\),.*/\1/p'); CPU: $(lscpu | sed -n 's/^Model name: *//p')"
