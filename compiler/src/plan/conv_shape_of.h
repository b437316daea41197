// The kernels' shape of a lowered Conv or ConvInt8, for the plan's scratch passes.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/kernel_params.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

// The shape of a Conv or ConvInt8 (X [N, C, H, W] or [N, C, L]; Cout from Y); false when the
// op's operands or options are not there.
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

}  // namespace edgefold::compiler
