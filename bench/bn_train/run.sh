#!/bin/bash
# BN training forward+backward: edgefold's kernel (selected table, one thread) beside PyTorch
# (torch.set_num_threads(1), F.batch_norm(training=True) + backward), and this machine's
# STREAM-like bandwidth. Prints one table row per shape.
# Usage: bench/bn_train/run.sh [reps] [build-dir]     (default 20 reps, build-bench)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${1:-20}
BUILD=${2:-$ROOT/build-bench}
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEFOLD_BUILD_BENCH=ON \
  -DEDGEFOLD_BUILD_COMPILER=OFF -DEDGEFOLD_BUILD_TESTS=OFF > /dev/null
cmake --build "$BUILD" -j2 --target edgefold_bn_train_bench > /dev/null
OURS=$("$BUILD/bin/edgefold_bn_train_bench" "$REPS")
TORCH=$(/usr/bin/python3 "$ROOT/bench/bn_train/torch_bn.py" "$REPS")
echo "$OURS"
echo "$TORCH"
# key=value fields of a line, by name.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<< "$1"; }
STREAM=$(grep '^stream' <<< "$OURS")
# Measured bandwidth: the best of the three STREAM-like kernels (glibc's memcpy behind "copy"
# already streams large copies on some machines, so neither copy nor copy_nt is always the top).
BW=$(printf '%s\n' "$(field "$STREAM" copy_gbps)" "$(field "$STREAM" triad_gbps)" "$(field "$STREAM" copy_nt_gbps)" | sort -g | tail -1)
echo "measured bandwidth (best STREAM-like): $BW GB/s"
echo
printf '%-14s %-7s %9s %9s %9s %10s %11s %8s %12s\n' shape isa ours_ms torch_ms speedup GB/s_pass GB/s_compul %bw_comp torch_GB/s
while read -r line; do
  shape=$(field "$line" shape)
  tline=$(grep "shape=$shape " <<< "$TORCH")
  ours=$(field "$line" total_ms); theirs=$(field "$tline" total_ms)
  # PyTorch's compulsory bytes: x read, y written (forward); dy, x read, dx written (backward) = 20 B/elem
  awk -v s="$shape" -v isa="$(field "$line" isa)" -v o="$ours" -v t="$theirs" -v gp="$(field "$line" gbps_passes)" \
      -v gc="$(field "$line" gbps_compulsory)" -v bw="$BW" 'BEGIN {
    split(s, d, "x"); n = d[1] * d[2] * d[3] * d[4];
    printf "%-14s %-7s %9.3f %9.3f %8.1fx %10.1f %11.1f %7.0f%% %12.1f\n", s, isa, o, t, t / o, gp, gc, 100 * gc / bw, 20 * n / (t / 1e3) / 1e9 }'
done < <(grep '^bn ' <<< "$OURS")
