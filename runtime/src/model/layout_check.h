// NHWC tensors (the packings TransposedNhwc*, docs/model-format.md): between two
// ops, the writer and every reader agree. A tensor a Conv writes NHWC is read only by Convs
// that read NHWC, as their X; a Conv that reads NHWC from another op reads a Conv's NHWC
// output. Shapes alone cannot tell the two layouts apart, so a model that mixes them would run
// to wrong values: it is refused here, naming the op. A graph input or output keeps the layout
// its op declares (the compiler writes none NHWC). Needs TensorInfo::producer (CheckDataflow).
// O(op edges).
#pragma once
#include "base/error_reporter.h"
#include "edgefold/status.h"
#include "model/model_reader.h"
#include "model/model_types.h"

namespace edgefold::internal {

inline bool WritesNhwc(const OpDesc& op) {
  return op.kind == OpKind::kConv && op.options.conv.y_hwc;
}

inline Status CheckLayouts(const ModelSummary& s, const TensorInfo* tensors, const OpDesc* ops,
                           ErrorReporter& errors) {
  for (size_t i = 0; i < s.num_ops; ++i) {
    const OpDesc& op = ops[i];
    const bool reads_nhwc = op.kind == OpKind::kConv && op.options.conv.x_hwc;
    for (uint32_t k = 0; k < op.num_inputs; ++k) {
      if (op.inputs[k] < 0) continue;
      const int32_t producer = tensors[op.inputs[k]].producer;
      if (producer < 0) continue;  // a constant or a graph input
      const bool nhwc = WritesNhwc(ops[producer]);
      if (nhwc != (reads_nhwc && k == 0)) {
        errors.Report("op '%s': input %u '%s' is written %s by op '%s' but read %s", op.name, k,
                      tensors[op.inputs[k]].name, nhwc ? "NHWC" : "NCHW", ops[producer].name,
                      nhwc ? "NCHW" : "NHWC");
        return Status::kInvalidModel;
      }
    }
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
