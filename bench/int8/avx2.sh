#!/bin/bash
# int8 time / float time at one kernel level (default avx2+fma: issue 37's "an int8 model must
# never lose to its float original" on AVX2-only x86), one thread, pinned. Per network the float
# model, the int8 model (8-bit weights) and the int8 model with --quantize-weight-bits 7 are
# compiled from the same ONNX file; each round times the three one after another with
# `edgefold bench --isa LEVEL` and takes int8 median / float median of that round; printed are
# the median of the rounds' ratios and their range, and the float and int8 medians (ms) of the
# round with the median 8-bit ratio.
# Usage: bench/int8/avx2.sh [runs] [model ...]   (default 20 runs; the eight networks of
#        bench/run.sh). env ROUNDS (default 5), ISA (default avx2+fma; avx2+vnni: the int8
#        tables of AVX-VNNI, or of its EVEX twin on CPUs with AVX-512 VNNI but no AVX-VNNI, the
#        float ones of avx2+fma; exported as EDGEFOLD_ISA too), CPU (default 1: the
#        core taskset pins), EF (an edgefold binary; default: build-bench's, built here),
#        MODELS (where NAME.onnx and NAME.calib.npy are; default build-bench/models, exported
#        like bench/int8/run.sh does).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-20}; shift || true
ROUNDS=${ROUNDS:-5}
ISA=${ISA:-avx2+fma}
CPU=${CPU:-1}
export EDGEFOLD_ISA=$ISA  # avx2+vnni's EVEX twin runs only when the environment names it
BUILD=${EDGEFOLD_BENCH_BUILD:-$ROOT/build-bench}
MODELS=${MODELS:-$BUILD/models}
if [[ -z ${EF:-} ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=OFF > /dev/null
  cmake --build "$BUILD" -j2 --target edgefold > /dev/null
  EF=$BUILD/bin/edgefold
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

NAMES=("$@")
[[ $# -eq 0 ]] && NAMES=(resnet18 mobilenet_v2 efficientnet_b0 mobilenet_v3_small shufflenet_v2
                         resnet8 ds_cnn mobilenet_v1_025_vww)
median() { taskset -c "$CPU" "$EF" bench "$1" --isa "$ISA" --runs "$RUNS" --warmup 3 |
             sed -n 's/.*median_ms=\([^ ]*\).*/\1/p' | tail -1; }
printf "%-22s %9s %9s %24s %24s\n" model float_ms int8_ms "int8/float (range)" "7-bit int8/float (range)"
for n in "${NAMES[@]}"; do
  m=$MODELS/$n
  [[ -f $m.onnx ]] || /usr/bin/python3 "$ROOT/bench/export_models.py" "$MODELS" "$n" 2>/dev/null
  [[ -f $m.calib.npy ]] || /usr/bin/python3 - "$m.input.npy" "$m.calib.npy" 16 <<'PY'
import sys, numpy as np
x = np.load(sys.argv[1])
rng = np.random.default_rng(7)
np.save(sys.argv[2], rng.standard_normal((int(sys.argv[3]),) + x.shape[1:]).astype(np.float32))
PY
  "$EF" compile "$m.onnx" -o "$WORK/$n.efb" > /dev/null
  "$EF" compile "$m.onnx" --quantize int8 --calibrate "$m.calib.npy" -o "$WORK/$n.q8.efb" > /dev/null
  "$EF" compile "$m.onnx" --quantize int8 --quantize-weight-bits 7 --calibrate "$m.calib.npy" \
    -o "$WORK/$n.q7.efb" > /dev/null
  rounds=""
  for ((r = 0; r < ROUNDS; ++r)); do
    f=$(median "$WORK/$n.efb"); q8=$(median "$WORK/$n.q8.efb"); q7=$(median "$WORK/$n.q7.efb")
    rounds+="$f $q8 $q7;"
  done
  /usr/bin/python3 - "$n" "$rounds" <<'PY'
import sys
rows = [tuple(map(float, r.split())) for r in sys.argv[2].split(";") if r.strip()]
r8 = sorted((q8 / f, f, q8) for f, q8, _ in rows)
r7 = sorted(q7 / f for f, _, q7 in rows)
mid = r8[len(r8) // 2]
print("%-22s %9.3f %9.3f %24s %24s" % (
    sys.argv[1], mid[1], mid[2], "%.2f (%.2f-%.2f)" % (mid[0], r8[0][0], r8[-1][0]),
    "%.2f (%.2f-%.2f)" % (r7[len(r7) // 2], r7[0], r7[-1])))
PY
done
echo "level: $ISA (int8 kernels: $("$EF" bench "$WORK/${NAMES[-1]}.q8.efb" --isa "$ISA" --runs 1 --warmup 0 | sed -n 's/^kernels: \([^,]*\),.*/\1/p')), one thread, taskset -c $CPU, $RUNS runs x $ROUNDS rounds; CPU: $(lscpu | sed -n 's/^Model name: *//p') family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p')"
