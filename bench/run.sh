#!/bin/bash
# Side-by-side CPU inference benchmark: edgefold, ONNX Runtime (its C API in the same process,
# `edgefold bench --ort`: the CPU library of the npm package onnxruntime-node, CPU provider,
# 1 intra-op thread, all graph optimizations) and PyTorch (1 thread, eval, no_grad) on the same
# networks, one thread each. Prints per model the median latency of each engine, edgefold/ORT,
# peak RSS of edgefold and PyTorch, and edgefold's and PyTorch's max output difference against
# ORT; then the geometric mean of edgefold/ORT and the GEMM roofline line.
# Usage: bench/run.sh [runs] [model ...]      (default 50 runs; all models)
#   env THREADS=N: edgefold `--threads N` beside ORT with N intra-op threads (default 1;
#   PyTorch stays at 1 thread); each round then also times both at one thread (pinned), and the
#   output ends with each engine's own speed-up from 1 to N threads, measured side by side.
#   env ROUNDS=R: edgefold and ORT alternate R times per model (default 2) and each engine's
#   best median is kept. With THREADS=1 both engines of a round are pinned to the same CPU
#   (taskset), round r to the r-th CPU this script may run on: the vCPUs of a shared host can run
#   20 % apart, and an unpinned pair could land on different ones.
#   env RECORD=FILE: also write the run record there (bench/results/<machine>.txt); then
#   bench/publish_results.py rewrites README.md's and bench/README.md's result tables from it.
# Needs: scripts/install-deps.sh --bench (python3-torchvision, libopenblas0-openmp, nodejs/npm).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-50}; shift || true
NAMES_GIVEN="$*"
BUILD=${EDGEFOLD_BENCH_BUILD:-$ROOT/build-bench}
MODELS=$BUILD/models
WARMUP=5
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-2}
# The CPUs this script may run on (taskset, util-linux), for pinning one-thread rounds.
CPUS=()
if command -v taskset > /dev/null; then
  read -r -a CPUS <<< "$(/usr/bin/python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')"
fi

# 1. Build edgefold (Release) and the GEMM roofline benchmark.
LAUNCHER=()  # ccache when installed (the objects of a build/ tree are reused)
if command -v ccache > /dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
fi
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_TESTS=OFF "${LAUNCHER[@]}" > /dev/null
cmake --build "$BUILD" -j2 --target edgefold edgefold_kernels > /dev/null
g++ -O2 -std=c++17 -march=native -DNDEBUG -I"$ROOT/runtime/src" -I"$ROOT/runtime/include" \
  "$ROOT/bench/gemm/gemm_bench.cc" "$ROOT/bench/gemm/peak_fma.cc" \
  "$BUILD/runtime/src/kernels/libedgefold_kernels.a" -o "$BUILD/bin/edgefold_gemm_bench"

# 2. ONNX Runtime's CPU library, from the npm package onnxruntime-node (installed once).
EDGEFOLD_ORT_LIB=$("$ROOT/bench/ort_lib.sh" "$BUILD/node")
export EDGEFOLD_ORT_LIB

# 3. Models (random weights, randomized BN statistics; regenerated only when missing).
ALL=(resnet18 mobilenet_v2 mobilenet_v3_small shufflenet_v2 efficientnet_b0 resnet8 ds_cnn mobilenet_v1_025_vww)
NAMES=("${@:-${ALL[@]}}")
[[ $# -eq 0 ]] && NAMES=("${ALL[@]}")
for n in "${NAMES[@]}"; do
  [[ -f $MODELS/$n.onnx ]] || /usr/bin/python3 "$ROOT/bench/export_models.py" "$MODELS" "$n" 2>/dev/null
done

# key=value field of a line.
field() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<< "$1" | tail -1; }
RESULTS=$BUILD/results.txt
: > "$RESULTS"
for n in "${NAMES[@]}"; do
  m=$MODELS/$n
  # edgefold: compile, check the output, time (peak RSS of the bench process from time -v).
  # --threads: grouped convs get scratch per thread and split by group (docs/threads.md).
  if "$BUILD/bin/edgefold" compile "$m.onnx" -o "$m.efb" --threads "$THREADS" > "$m.compile.log" 2>&1 &&
     "$BUILD/bin/edgefold" run "$m.efb" -i "$m.input.npy" -o "$m.edgefold.npy" > /dev/null 2>&1; then
    ok=1
  else
    ok=0
    echo "name=$n engine=edgefold median_ms=NA rss_kb=NA out=NA" >> "$RESULTS"
    echo "edgefold: $n not yet supported: $(tail -1 "$m.compile.log")" >&2
  fi
  # edgefold's peak RSS: a bench process of its own (the timed one also holds ONNX Runtime).
  if ((ok)); then
    out=$( { /usr/bin/time -f "rss_kb=%M" "$BUILD/bin/edgefold" bench "$m.efb" --runs 1 --warmup 0 --threads "$THREADS"; } 2>&1 )
    echo "name=$n engine=edgefold median_ms=NA rss_kb=$(field "$out" rss_kb) out=$m.edgefold.npy" >> "$RESULTS"
  fi
  # The engines alternate, ROUNDS times each, so a slow spell of a shared host falls on both;
  # compare.py keeps each engine's best median.
  for ((round = 0; round < ROUNDS; ++round)); do
    # one: this round's CPU, for every one-thread run; pin: the same for the THREADS runs at 1.
    one=()
    if ((${#CPUS[@]} > 0)); then one=(taskset -c "${CPUS[round % ${#CPUS[@]}]}"); fi
    pin=()
    if ((THREADS == 1)); then pin=("${one[@]}"); fi
    # edgefold and ONNX Runtime in one process, on the same input, one after the other.
    if ((ok)); then
      out=$("${pin[@]}" "$BUILD/bin/edgefold" bench "$m.efb" --ort "$m.onnx" --rounds 1 -i "$m.input.npy" \
              --ort-output "$m.ort.npy" --runs "$RUNS" --warmup $WARMUP --threads "$THREADS")
      echo "name=$n engine=edgefold median_ms=$(field "$out" median_ms) rss_kb=NA out=$m.edgefold.npy" >> "$RESULTS"
      echo "name=$n engine=ort median_ms=$(field "$out" ort_median_ms) rss_kb=NA out=$m.ort.npy" >> "$RESULTS"
    fi
    # With threads: both engines at one thread too, in the same round, for their own speed-ups.
    if ((THREADS > 1 && ok)); then
      out=$("${one[@]}" "$BUILD/bin/edgefold" bench "$m.efb" --ort "$m.onnx" --rounds 1 -i "$m.input.npy" \
              --runs "$RUNS" --warmup $WARMUP)
      echo "name=$n engine=edgefold_1t median_ms=$(field "$out" median_ms) rss_kb=NA out=NA" >> "$RESULTS"
      echo "name=$n engine=ort_1t median_ms=$(field "$out" ort_median_ms) rss_kb=NA out=NA" >> "$RESULTS"
    fi
  done
  out=$(/usr/bin/python3 "$ROOT/bench/torch_bench.py" "$n" "$m.input.bin" "$m.torch.bin" "$RUNS" $WARMUP 2>/dev/null)
  echo "name=$n engine=torch median_ms=$(field "$out" median_ms) rss_kb=$(field "$out" vmhwm_kb) out=$m.torch.bin" >> "$RESULTS"
done

CPU_NAME="$(lscpu | sed -n 's/^Model name: *//p') family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p'), $(nproc) cores"
echo "machine: $CPU_NAME, load average $(cut -d' ' -f1-3 /proc/loadavg); threads: edgefold and ORT $THREADS, PyTorch 1"
RECORD_ARGS=()
if [[ -n ${RECORD:-} ]]; then
  COMMAND="ROUNDS=$ROUNDS bench/run.sh $RUNS${NAMES_GIVEN:+ $NAMES_GIVEN}"
  ((THREADS == 1)) || COMMAND="THREADS=$THREADS $COMMAND"
  RECORD_ARGS=(--record "$RECORD" --machine "$CPU_NAME" --threads "$THREADS" --command "$COMMAND")
fi
/usr/bin/python3 "$ROOT/bench/compare.py" "$RESULTS" "${RECORD_ARGS[@]}"
# Process baselines (what each engine's RSS contains before any model is loaded).
echo "RSS baseline:" \
  "python3+torch $(/usr/bin/python3 -c "import torch,torchvision;print(round([int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]/1024,1))") MiB"
echo
echo "GEMM roofline (edgefold's selected kernel table, one thread):"
"$BUILD/bin/edgefold_gemm_bench" 10
