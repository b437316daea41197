#include "quant/qdq_conv_affine.h"

namespace edgefold::compiler::quant {
namespace {

// The constant operand of `n` as one value per channel of M, or empty when it is not that.
std::vector<double> PerChannel(const ir::Graph& g, const std::string& name, size_t rank,
                               int64_t channels) {
  if (!g.IsConst(name)) return {};
  const ir::Tensor& t = g.At(name);
  if (t.data.size() == 1) return std::vector<double>(static_cast<size_t>(channels), t.data[0]);
  if (t.shape.size() != rank || rank < 2 || t.shape[1] != channels) return {};
  for (size_t d = 0; d < rank; ++d)
    if (d != 1 && t.shape[d] != 1) return {};
  return t.data;
}

// Folds node `i` (Mul/Div/Add/Sub of the Conv's output `y` and a per-channel constant) into the
// conv at `conv`; false when it does not fit.
bool FoldInto(ir::Graph& g, size_t conv, size_t i) {
  ir::Node& c = g.nodes[conv];
  const ir::Node& n = g.nodes[i];
  const std::string& y = c.outputs[0];
  const bool commutes = n.op == "Mul" || n.op == "Add";
  if (n.inputs.size() != 2 || !(n.op == "Mul" || n.op == "Div" || n.op == "Add" || n.op == "Sub"))
    return false;
  const size_t other = n.inputs[0] == y ? 1 : commutes && n.inputs[1] == y ? 0 : 2;
  if (other == 2 || n.inputs[other] == y || !g.IsConst(c.In(1))) return false;
  const ir::Tensor& w = g.At(c.In(1));
  if (w.shape.empty() || !g.At(y).shape_known) return false;
  const int64_t m = w.shape[0];
  const std::vector<double> k = PerChannel(g, n.inputs[other], g.At(y).shape.size(), m);
  if (k.empty()) return false;
  std::vector<double> weights = w.data, bias(static_cast<size_t>(m), 0.0);
  if (!c.In(2).empty()) {
    if (!g.IsConst(c.In(2)) || g.At(c.In(2)).data.size() != static_cast<size_t>(m)) return false;
    bias = g.At(c.In(2)).data;
  }
  const size_t per = weights.size() / static_cast<size_t>(m);
  for (size_t ch = 0; ch < static_cast<size_t>(m); ++ch) {
    if (n.op == "Add") bias[ch] += k[ch];
    if (n.op == "Sub") bias[ch] -= k[ch];
    if (n.op != "Mul" && n.op != "Div") continue;
    const double f = n.op == "Mul" ? k[ch] : 1.0 / k[ch];
    bias[ch] *= f;
    for (size_t j = 0; j < per; ++j) weights[ch * per + j] *= f;
  }
  c.inputs.resize(3);
  c.inputs[1] = g.AddConst(c.In(1) + "_" + n.name, w.shape, std::move(weights));
  c.inputs[2] = g.AddConst(c.name + ".bias_" + n.name, {m}, std::move(bias));
  c.outputs[0] = n.outputs[0];
  return true;
}

}  // namespace

int FoldConvChannelAffine(ir::Graph& g, const std::set<std::string>& quantized) {
  int removed = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (n.inputs.size() != 2) continue;
    for (const std::string& in : n.inputs) {
      const int p = g.ProducerOf(in);
      if (p < 0 || g.nodes[static_cast<size_t>(p)].op != "Conv" || g.ConsumerCount(in) != 1 ||
          g.IsGraphOutput(in) || quantized.count(in))
        continue;
      if (!FoldInto(g, static_cast<size_t>(p), i)) continue;
      g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
      --i;
      ++removed;
      break;
    }
  }
  if (removed > 0) g.PruneUnusedTensors();
  return removed;
}

}  // namespace edgefold::compiler::quant
