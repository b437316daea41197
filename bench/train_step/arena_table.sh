#!/usr/bin/env bash
# The training-arena table of docs/training.md: for each MLPerf-Tiny-style model, the bytes
# `edgefold compile --train --batch 1` prints for each memory option, against the deployed
# (BatchNorm-folded) model's inference arena. Sizes do not depend on the CPU.
# Usage: bench/train_step/arena_table.sh [--write] [path/to/edgefold]   (default build/bin/edgefold)
#   --write: put the table into docs/training.md, between its training-arena marker lines.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WRITE=0
if [[ ${1:-} == --write ]]; then WRITE=1; shift; fi
CLI="${1:-$ROOT/build/bin/edgefold}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
if ((WRITE)); then
  "$0" "$CLI" > "$OUT/table.md"
  DOC="$ROOT/docs/training.md"
  BEGIN='<!-- training-arena:begin -->' END='<!-- training-arena:end -->'
  [[ $(grep -c -x -- "$BEGIN" "$DOC") == 1 && $(grep -c -x -- "$END" "$DOC") == 1 ]] ||
    { echo "$DOC: needs one '$BEGIN' line and one '$END' line" >&2; exit 1; }
  { sed "/^$BEGIN\$/q" "$DOC"
    echo "Training arena in bytes at batch 1 (N/D; planned buffers / P), \`bench/train_step/arena_table.sh\`:"
    echo
    cat "$OUT/table.md"
    sed -n "/^$END\$/,\$p" "$DOC"; } > "$OUT/doc.md"
  cp "$OUT/doc.md" "$DOC"
  echo "wrote $DOC"
  exit 0
fi
variants=("fp32::" "fp32 --recompute::--recompute" "fp16::--saved-precision fp16"
          "fp16 --recompute::--saved-precision fp16 --recompute"
          "last BN + head::--trainable bn+head --trainable-last 1"
          "frozen bn+head::--bn-stats frozen --trainable bn+head")
echo "| model | deployed inference arena D (planned P) |$(for v in "${variants[@]}"; do printf ' %s |' "${v%%::*}"; done)"
echo "|---|---|$(for v in "${variants[@]}"; do printf -- '---|'; done)"
for m in ds_cnn resnet8 mobilenet_v1_025; do
  row="| $m |"
  first=1
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    # --winograd-min-channels 64: the deployed model as the Cortex-M firmware compiles it
    # (examples/mcu), not with the x86 default that plans ResNet-8's 16-channel convs in Winograd.
    log="$("$CLI" compile "$ROOT/tests/models/data/$m.onnx" --train --batch 1 --winograd-min-channels 64 \
      ${v##*::} -o "$OUT/m.efb")"
    n=$(sed -n 's/^training arena: \([0-9]*\) bytes.*/\1/p' <<<"$log")
    d=$(sed -n 's/^versus the deployed model.*inference arena \([0-9]*\) bytes (planned tensors \([0-9]*\)).*/\1 (\2)/p' <<<"$log")
    ratio=$(sed -n 's/^versus the deployed model.*: \([0-9.]*x\), planned \([0-9.]*x\)$/\1; planned \2/p' <<<"$log")
    seg=$(sed -n 's/^recompute: the backward runs in \([0-9]*\) segments.*/, \1 segments/p' <<<"$log")
    [[ $log == *"recompute: no split"* ]] && seg=", no split is smaller"
    if [[ $first == 1 ]]; then row="$row $d |"; first=0; fi
    row="$row $n ($ratio$seg) |"
  done
  echo "$row"
done
