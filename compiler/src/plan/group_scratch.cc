#include "plan/group_scratch.h"

#include "kernels/conv/conv_scratch.h"
#include "plan/conv_shape_of.h"

namespace edgefold::compiler {
namespace {

// One thread's scratch of an op that splits by group, else 0.
size_t OneSliceBytes(const LoweredModel& m, const fb::OperatorT& op) {
  kernels::Conv2dShape s;
  if (op.type == fb::OpType::Conv) {
    const fb::ConvOptionsT* o = op.options.AsConvOptions();
    if (o == nullptr || o->packing != fb::WeightPacking::Plain) return 0;
    for (size_t i = 3; i < op.inputs.size(); ++i)
      if (op.inputs[i] >= 0) return 0;  // a channel scale or a fused expansion
    if (!ConvShapeOf(m, op, *o, &s) || !kernels::ConvSplitsByGroup(s)) return 0;
    return kernels::ConvScratchBytes(s);
  }
  if (op.type == fb::OpType::ConvInt8) {
    const fb::ConvInt8OptionsT* o = op.options.AsConvInt8Options();
    if (o == nullptr || !ConvShapeOf(m, op, *o, &s) || !kernels::ConvSplitsByGroup(s)) return 0;
    return kernels::ConvS8ScratchBytes(s);
  }
  return 0;
}

}  // namespace

int SliceGroupScratch(LoweredModel* model, int threads) {
  int sliced = 0;
  for (fb::OperatorT& op : model->ops) {
    const size_t one = OneSliceBytes(*model, op);
    if (one == 0 || one == SIZE_MAX || op.scratch_bytes < one) continue;
    const int group = op.type == fb::OpType::Conv ? op.options.AsConvOptions()->group
                                                  : op.options.AsConvInt8Options()->group;
    op.scratch_bytes = kernels::ConvGroupSlicedScratchBytes(one, static_cast<size_t>(group),
                                                            static_cast<size_t>(threads));
    sliced += op.scratch_bytes != one;
  }
  return sliced;
}

}  // namespace edgefold::compiler
