#!/usr/bin/env bash
# Self-test of scripts/check-layers.sh: a small clean tree passes; the same tree with one bad
# include planted (one per rule) fails, naming the file, its line and the include.
# Usage: check_layers_selftest.sh <source root holding scripts/check-layers.sh>
set -uo pipefail
CHECK="$1/scripts/check-layers.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=0

# A tree with one file per room, each including what its layer may.
make_clean_tree() {
  local t="$1"
  mkdir -p "$t"/runtime/include/edgefold "$t"/runtime/src/{base,model,ops,kernels,interpreter,training,adaptation} \
           "$t"/compiler/src/{write,lower,passes} "$t"/tools "$t"/tests/compiler
  printf '#pragma once\n' > "$t/runtime/include/edgefold/op_list.h"
  printf '#pragma once\n#include <cstddef>\n#include "edgefold/op_list.h"\n' > "$t/runtime/include/edgefold/types.h"
  printf '#pragma once\n#include "edgefold/types.h"\n' > "$t/runtime/include/edgefold/op_resolver.h"
  printf '#pragma once\n#include "edgefold/op_resolver.h"\n' > "$t/runtime/include/edgefold/interpreter.h"
  printf '#pragma once\n#include "edgefold/types.h"\n' > "$t/runtime/src/base/error_reporter.h"
  printf '#pragma once\n#include "kernels/kernel_params.h"\n' > "$t/runtime/src/model/model_types.h"
  printf '#include "edgefold/model_generated.h"\n#include "model/model_types.h"\n' > "$t/runtime/src/model/model_reader.cc"
  printf '#pragma once\n#include "edgefold/types.h"\n' > "$t/runtime/src/kernels/kernel_params.h"
  printf '#pragma once\n#include "model/model_types.h"\n#include "kernels/kernel_params.h"\n' > "$t/runtime/src/ops/op_kernel.h"
  printf '#include "edgefold/op_resolver.h"\n#include "ops/op_kernel.h"\n' > "$t/runtime/src/ops/op_resolver.cc"
  printf '#include "edgefold/interpreter.h"\n#include "ops/op_kernel.h"\n' > "$t/runtime/src/interpreter/interpreter.cc"
  printf '#include "interpreter/interpreter.h"\n#include "adaptation/adapt.h"\n' > "$t/runtime/src/training/trainer.cc"
  printf '#pragma once\n#include "model/model_types.h"\n' > "$t/runtime/src/adaptation/adapt.h"
  printf '#pragma once\n' > "$t/compiler/src/passes/passes.h"
  printf '#include "edgefold/model_generated.h"\n#include "passes/passes.h"\n' > "$t/compiler/src/write/efb_writer.cc"
  printf '#pragma once\n#include "edgefold/model_generated.h"\n' > "$t/compiler/src/lower/lowered.h"
  printf '#include "kernels/kernel_params.h"\n' > "$t/compiler/src/passes/fold.cc"
  printf '#include "edgefold/model_generated.h"\n' > "$t/tools/describe.cc"
  printf '#include "edgefold/model_generated.h"\n' > "$t/tests/compiler/writer_test.cc"
  mkdir -p "$t/build/runtime/src/kernels"   # build trees are not checked
  printf '#include "ops/op_kernel.h"\n' > "$t/build/runtime/src/kernels/generated.cc"
}

expect() {   # name expected_rc expected_output_fragment tree
  local name="$1" want_rc="$2" fragment="$3" tree="$4" out rc
  out="$(bash "$CHECK" "$tree" 2>&1)"
  rc=$?
  if [[ "$rc" != "$want_rc" ]] || [[ -n "$fragment" && "$out" != *"$fragment"* ]]; then
    echo "FAIL $name: exit $rc (want $want_rc), output:"
    echo "$out" | sed 's/^/  /'
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

# Plants `line` as line 2 of `file` in a fresh copy of the clean tree and expects a failure
# naming file:2 and the include.
plant() {   # name file include_line include
  local name="$1" file="$2" line="$3" inc="$4" t="$WORK/$1"
  make_clean_tree "$t"
  mkdir -p "$(dirname "$t/$file")"
  if [[ -f "$t/$file" ]]; then
    sed -i "1a $line" "$t/$file"
  else
    printf '// planted\n%s\n' "$line" > "$t/$file"
  fi
  expect "$name" 1 "$file:2: #include \"$inc\"" "$t"
}

make_clean_tree "$WORK/clean"
expect clean_tree_passes 0 "check-layers: ok" "$WORK/clean"

plant kernel_includes_op runtime/src/kernels/kernel_params.h '#include "ops/op_kernel.h"' ops/op_kernel.h
plant kernel_includes_interpreter_h runtime/src/kernels/gemm.cc '#include "edgefold/interpreter.h"' edgefold/interpreter.h
plant kernel_includes_training runtime/src/kernels/gemm.cc '#include "training/trainer_state.h"' training/trainer_state.h
plant op_includes_interpreter runtime/src/ops/op_kernel.h '#include "interpreter/interpreter_state.h"' interpreter/interpreter_state.h
plant op_includes_simd runtime/src/ops/conv.cc '#include "kernels/simd/gemm_simd.h"' kernels/simd/gemm_simd.h
plant op_includes_training runtime/src/ops/conv.cc '#include "training/backward.h"' training/backward.h
plant base_includes_interpreter_h runtime/src/base/error_reporter.h '#include "edgefold/interpreter.h"' edgefold/interpreter.h
plant model_includes_op_resolver_h runtime/src/model/model_types.h '#include "edgefold/op_resolver.h"' edgefold/op_resolver.h
plant op_includes_op_resolver_h runtime/src/ops/op_kernel.h '#include "edgefold/op_resolver.h"' edgefold/op_resolver.h
plant schema_in_training runtime/src/training/int8_adapter.cc '#include "edgefold/model_generated.h"' edgefold/model_generated.h
plant schema_in_adaptation runtime/src/adaptation/adapt.h '#include "edgefold/model_generated.h"' edgefold/model_generated.h
plant schema_in_compiler_pass compiler/src/passes/fold.cc '#include "edgefold/model_generated.h"' edgefold/model_generated.h
plant runtime_includes_compiler runtime/src/training/trainer.cc '#include "passes/passes.h"' passes/passes.h
plant relative_include compiler/src/passes/fold.cc '#include "../write/efb_writer.h"' ../write/efb_writer.h
plant ground_floor_includes_ours runtime/include/edgefold/types.h '#include "edgefold/status.h"' edgefold/status.h
plant public_includes_internal runtime/include/edgefold/interpreter.h '#include "model/model_types.h"' model/model_types.h
plant training_includes_c_api runtime/src/training/trainer.cc '#include "c_api/c_api_common.h"' c_api/c_api_common.h
plant interpreter_includes_adaptation runtime/src/interpreter/interpreter.cc '#include "adaptation/adapt.h"' adaptation/adapt.h

if ((failures > 0)); then
  echo "check_layers_selftest: $failures case(s) failed"
  exit 1
fi
echo "check_layers_selftest: all cases behaved"
