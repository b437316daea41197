// Dataflow checks on a read model: ops run in file order, so every planned tensor an op reads
// must be a graph input or the output of an earlier op; each planned tensor is written by at
// most one op (never a graph input); every graph output is produced. Records
// TensorInfo::producer. O(tensors + op edges); needs no memory but the TensorInfo array.
#pragma once
#include "edgefold/status.h"
#include "base/error_reporter.h"
#include "model/model_reader.h"
#include "model/model_types.h"

namespace edgefold::internal {

inline Status CheckDataflow(const ModelSummary& s, TensorInfo* tensors, const OpDesc* ops,
                            ErrorReporter& errors) {
  for (size_t t = 0; t < s.num_tensors; ++t) tensors[t].producer = TensorInfo::kNotProduced;
  for (size_t i = 0; i < s.num_inputs; ++i) tensors[s.inputs[i]].producer = TensorInfo::kGraphInput;
  for (size_t i = 0; i < s.num_ops; ++i) {
    const OpDesc& op = ops[i];
    for (uint32_t k = 0; k < op.num_inputs; ++k) {
      if (op.inputs[k] < 0) continue;
      const TensorInfo& t = tensors[op.inputs[k]];
      if (!t.is_constant && t.producer == TensorInfo::kNotProduced) {
        errors.Report("op '%s': input '%s' is read before any op produces it", op.name, t.name);
        return Status::kInvalidModel;
      }
    }
    for (uint32_t k = 0; k < op.num_outputs; ++k) {
      TensorInfo& t = tensors[op.outputs[k]];
      if (t.producer == TensorInfo::kGraphInput) {
        errors.Report("op '%s': writes graph input '%s'", op.name, t.name);
        return Status::kInvalidModel;
      }
      if (t.producer >= 0) {
        errors.Report("op '%s': output '%s' is already written by op '%s'", op.name, t.name,
                      ops[t.producer].name);
        return Status::kInvalidModel;
      }
      t.producer = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < s.num_outputs; ++i) {
    const TensorInfo& t = tensors[s.outputs[i]];
    if (t.producer == TensorInfo::kNotProduced) {
      errors.Report("graph output '%s' is never produced by any op", t.name);
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
