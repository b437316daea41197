#include "plan/group_scratch.h"

#include "kernels/conv/conv_scratch.h"

namespace edgefold::compiler {
namespace {

// The kernels' shape of a Conv or ConvInt8 (X [N, C, H, W] or [N, C, L]); false when the op's
// operands or options are not there (then it keeps its scratch).
template <class Options>
bool ConvShapeOf(const LoweredModel& m, const fb::OperatorT& op, const Options& o,
                 kernels::Conv2dShape* s) {
  if (op.inputs.empty() || op.outputs.empty() || op.inputs[0] < 0 || op.outputs[0] < 0 ||
      o.kernel.size() != 2 || o.strides.size() != 2 || o.dilations.size() != 2 ||
      o.pads.size() != 4 || o.group < 1)
    return false;
  const std::vector<int64_t>& x = m.tensors[static_cast<size_t>(op.inputs[0])].shape;
  const std::vector<int64_t>& y = m.tensors[static_cast<size_t>(op.outputs[0])].shape;
  if (x.size() < 3 || x.size() > 4 || y.size() != x.size()) return false;
  for (int64_t d : x)
    if (d < 1) return false;
  for (int64_t d : y)
    if (d < 1) return false;
  const bool two_d = x.size() == 4;
  s->in_c = static_cast<size_t>(x[1]);
  s->in_h = two_d ? static_cast<size_t>(x[2]) : 1;
  s->in_w = static_cast<size_t>(x.back());
  s->out_c = static_cast<size_t>(y[1]);
  s->out_h = two_d ? static_cast<size_t>(y[2]) : 1;
  s->out_w = static_cast<size_t>(y.back());
  kernels::SetWindow2d(o.kernel.data(), o.strides.data(), o.dilations.data(), o.pads.data(), s);
  s->group = static_cast<size_t>(o.group);
  return true;
}

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
