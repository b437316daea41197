// Inverted residuals start with a pointwise expansion whose output t (the block's largest tensor:
// MobileNetV2's first is 96 × 112², 4.8 MB) only feeds a depthwise conv. The depthwise Conv takes
// the expansion in (inputs 4 and 5: We, be; Node::expand_act its activation) and computes t band
// by band into scratch (kernels/conv/conv_expand.h): t leaves the arena and is never written to
// memory and read back. Only where t is at least two bands (`band_bytes` each) large.
#include "base/size_math.h"
#include "kernels/conv/conv_expand.h"
#include "lower/spatial.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

bool Float4d(const ir::Tensor& t) {
  return t.shape_known && t.dtype == ir::kFloat && t.shape.size() == 4;
}

// A pointwise group-1 Conv without channel scale: 1×1, stride 1, no padding or dilation.
bool IsPlainPointwise(const ir::Graph& g, const ir::Node& p) {
  if (p.op != "Conv" || p.inputs.size() < 2 || p.inputs.size() > 3 || p.outputs.size() != 1)
    return false;
  if (!g.IsConst(p.inputs[1]) || (!p.In(2).empty() && !g.IsConst(p.inputs[2]))) return false;
  const ir::Tensor& x = g.At(p.inputs[0]);
  const ir::Tensor& w = g.At(p.inputs[1]);
  if (!Float4d(x) || w.shape.size() != 4 || w.shape[1] != x.shape[1] || w.shape[2] != 1 ||
      w.shape[3] != 1)
    return false;
  return HasUnitWindow(p);
}

// The depthwise conv d over t as the kernels see it, or in_c = 0 when d is not one.
kernels::Conv2dShape DepthwiseShape(const ir::Graph& g, const ir::Node& d) {
  kernels::Conv2dShape s;
  if (d.op != "Conv" || d.inputs.size() < 2 || d.inputs.size() > 3 || d.outputs.size() != 1)
    return s;
  if (!g.IsConst(d.inputs[1]) || (!d.In(2).empty() && !g.IsConst(d.inputs[2]))) return s;
  const ir::Tensor& t = g.At(d.inputs[0]);
  const ir::Tensor& w = g.At(d.inputs[1]);
  const ir::Tensor& y = g.At(d.outputs[0]);
  if (!Float4d(t) || !Float4d(y) || w.shape.size() != 4 || w.shape[1] != 1 ||
      w.shape[0] != t.shape[1] || d.Int("group", 1) != t.shape[1] || y.shape[1] != t.shape[1] ||
      y.shape[0] != t.shape[0] || t.shape[1] < 2)
    return s;
  const Window2d win = ResolveWindow(d, t.shape, {w.shape[2], w.shape[3]}, y.shape, false);
  s.in_c = s.out_c = s.group = static_cast<size_t>(t.shape[1]);
  s.in_h = static_cast<size_t>(t.shape[2]), s.in_w = static_cast<size_t>(t.shape[3]);
  s.out_h = static_cast<size_t>(y.shape[2]), s.out_w = static_cast<size_t>(y.shape[3]);
  s.kh = static_cast<size_t>(win.kh), s.kw = static_cast<size_t>(win.kw);
  s.stride_h = static_cast<size_t>(win.sh), s.stride_w = static_cast<size_t>(win.sw);
  s.dilation_h = static_cast<size_t>(win.dh), s.dilation_w = static_cast<size_t>(win.dw);
  s.pad_top = static_cast<size_t>(win.top), s.pad_left = static_cast<size_t>(win.left);
  return s;
}

// Moves pointwise node i into the depthwise conv that alone reads its output, when that output
// is at least two bands of `band_bytes`.
bool FuseIntoDepthwise(ir::Graph& graph, size_t i, size_t band_bytes) {
  if (!IsPlainPointwise(graph, graph.nodes[i])) return false;
  const std::string t = graph.nodes[i].outputs[0];
  const int d = SoleConsumer(graph, t);
  if (d < 0 || graph.nodes[d].In(0) != t) return false;
  const kernels::Conv2dShape s = DepthwiseShape(graph, graph.nodes[d]);
  // t at least two bands' worth: below that t stays in a core's cache between the two ops
  // anyway, and the band GEMMs' narrower columns (a ragged tail per band) cost more than the
  // memory saved (MobileNetV2's 14² blocks).
  const size_t t_bytes = MulSat(MulSat(MulSat(s.in_c, s.in_h), s.in_w), sizeof(float));
  if (s.in_c == 0 || !kernels::ExpandFusable(s) || t_bytes < 2 * band_bytes) return false;
  const ir::Node p = graph.nodes[i];
  ir::Node& dw = graph.nodes[d];
  dw.inputs.resize(6);  // [x, W, B, "" (no channel scale), We, be]
  dw.inputs[0] = p.inputs[0];
  dw.inputs[4] = p.inputs[1];
  dw.inputs[5] = p.In(2);
  dw.expand_act = p.act;
  dw.expand_band_bytes = band_bytes;
  return true;
}

}  // namespace

int FuseExpansionIntoDepthwise(ir::Graph& graph, size_t band_bytes) {
  if (band_bytes == 0) return 0;
  return EraseFusedNodes(graph, [&](size_t i) { return FuseIntoDepthwise(graph, i, band_bytes); });
}

}  // namespace edgefold::compiler::passes
