// Squeeze-and-excitation ends in Mul(x, s), x [1, C, H, W] and s [1, C, 1, 1] (or [C, 1, 1]),
// whose output feeds a pointwise Conv. The Mul is a pass over the block's largest tensor; the
// conv can absorb it since
//   y = W·(x ⊙ s) + b = (W ⊙ sᵀ)·x + b,   i.e. W'[o, c] = W[o, c]·s[c]
// which the runtime computes per inference into scratch (M×K multiplies next to the M×K×H×W
// GEMM). The Conv takes x as input 0 and s as input 3 ("channel scale"; input 2, the bias,
// stays "" when absent) and the Mul goes. Only the pointwise form: 1×1 kernel, stride 1, no
// padding or dilation, group 1, batch 1; the Mul has no fused activation, one consumer and is
// not a graph output. And only where it pays: scaling W reads and writes out_c·in_c floats, the
// Mul in_c·H·W, so the conv must have out_c ≤ H·W (on EfficientNet-B0 that keeps the 14² and
// larger blocks and leaves the 7² ones, where scaling W cost more than the Mul saved; numbers in
// bench/README.md, "Channel-scale fusion threshold").
#include "passes/match_util.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// True when `s_shape` holds exactly one value per channel of the rank-4 `x_shape` (axis 1),
// broadcasting against x from the right: [1, C, 1, 1] or [C, 1, 1].
bool IsPerChannel(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& s_shape) {
  if (x_shape.size() != 4 || (s_shape.size() != 4 && s_shape.size() != 3)) return false;
  const size_t c_axis = s_shape.size() - 3;
  for (size_t i = 0; i < s_shape.size(); ++i)
    if (i == c_axis ? s_shape[i] != x_shape[1] : s_shape[i] != 1) return false;
  return true;
}

// The pointwise group-1 Conv on batch 1 with out_c ≤ H·W that reads `t` only as X, or -1.
int PointwiseConsumer(const ir::Graph& graph, const std::string& t) {
  if (graph.ConsumerCount(t) != 1 || graph.IsGraphOutput(t)) return -1;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& c = graph.nodes[i];
    bool reads = false;
    for (const std::string& in : c.inputs) reads = reads || in == t;
    if (!reads) continue;
    if (c.op != "Conv" || c.inputs.size() < 2 || c.inputs.size() > 3 || c.inputs[0] != t) return -1;
    const ir::Tensor& x = graph.At(t);
    const ir::Tensor& w = graph.At(c.inputs[1]);
    const ir::Tensor& y = graph.At(c.outputs.at(0));
    if (!x.shape_known || !y.shape_known || x.shape.size() != 4 || y.shape.size() != 4 ||
        x.shape[0] != 1 || w.shape.size() != 4 || w.shape[2] != 1 || w.shape[3] != 1 ||
        w.shape[1] != x.shape[1] || !HasUnitWindow(c) || y.shape[2] != x.shape[2] ||
        y.shape[3] != x.shape[3] || w.shape[0] > x.shape[2] * x.shape[3])
      return -1;
    return static_cast<int>(i);
  }
  return -1;
}

// Folds Mul node i (x · s, s per channel) into the 1×1 conv reading its output.
bool FuseMulIntoPointwise(ir::Graph& graph, size_t i) {
  const ir::Node& mul = graph.nodes[i];
  if (!IsPlainMul(mul)) return false;
  const ir::Tensor& a = graph.At(mul.inputs[0]);
  const ir::Tensor& b = graph.At(mul.inputs[1]);
  if (!a.shape_known || !b.shape_known || a.dtype != ir::kFloat || b.dtype != ir::kFloat)
    return false;
  // x is the operand of full shape (the Mul's output shape), s the per-channel one.
  size_t x_slot = 0;
  if (IsPerChannel(a.shape, b.shape))
    x_slot = 0;
  else if (IsPerChannel(b.shape, a.shape))
    x_slot = 1;
  else
    return false;
  const std::string x = mul.inputs[x_slot], s = mul.inputs[1 - x_slot], out = mul.outputs[0];
  if (graph.At(out).shape != graph.At(x).shape) return false;
  const int conv = PointwiseConsumer(graph, out);
  if (conv < 0) return false;
  ir::Node& c = graph.nodes[conv];
  c.inputs.resize(4);  // input 2 (bias) stays "" when absent
  c.inputs[0] = x;
  c.inputs[3] = s;
  return true;
}

}  // namespace

int FuseChannelScale(ir::Graph& graph) {
  return EraseFusedNodes(graph, [&graph](size_t i) { return FuseMulIntoPointwise(graph, i); });
}

}  // namespace edgefold::compiler::passes
