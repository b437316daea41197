// Input normalization (--input-mean/--input-std): the compiled model takes the raw input x
// and computes x_n = (x − μ[c]) / σ[c] = x·(1/σ[c]) + (−μ[c]/σ[c]) itself.
//
// Choice: the affine map is folded into the first layer only where that is exact, i.e. a
// Conv without padding or an FC (passes/fold_forward.cc). A padded first conv pads x_n
// with zeros, which in raw space is x = μ[c], a different value per channel, so folding
// would change the border outputs; there the map stays a ChannelAffine (one cheap pass
// over the input) and the model stays exact.
#include "passes/fold_forward.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {
constexpr const char* kNodeName = "input_normalization";
}

void InsertInputNormalization(ir::Graph& g, const std::vector<float>& mean,
                              const std::vector<float>& std_dev) {
  if (mean.empty() && std_dev.empty()) return;
  if (g.inputs.empty())
    throw CompileError("model '" + g.model_name + "': --input-mean/--input-std need a graph input");
  const std::string x = g.inputs[0];
  const ir::Tensor& t = g.At(x);
  const std::string where = "model '" + g.model_name + "': input '" + x + "': ";
  if (!t.shape_known || t.shape.size() < 2)
    throw CompileError(where + "normalization needs a static shape of rank >= 2");
  const int64_t channels = t.shape[1];
  auto expand = [&](const std::vector<float>& v, float dflt, const char* flag) {
    if (v.empty()) return std::vector<double>(static_cast<size_t>(channels), dflt);
    if (v.size() != 1 && static_cast<int64_t>(v.size()) != channels)
      throw CompileError(where + flag + " has " + std::to_string(v.size()) + " values for " +
                         std::to_string(channels) + " channels");
    std::vector<double> out(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) out[c] = v[v.size() == 1 ? 0 : c];
    return out;
  };
  const std::vector<double> mu = expand(mean, 0.0f, "--input-mean");
  const std::vector<double> sigma = expand(std_dev, 1.0f, "--input-std");
  std::vector<double> scale(static_cast<size_t>(channels)), shift(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    if (!(sigma[c] > 0)) throw CompileError(where + "--input-std values must be positive");
    scale[c] = 1.0 / sigma[c];
    shift[c] = -mu[c] / sigma[c];
  }
  std::string y = x + "_normalized";
  for (int k = 1; g.tensors.count(y); ++k) y = x + "_normalized_" + std::to_string(k);
  ir::Tensor yt = t;
  yt.name = y;
  g.tensors[y] = yt;
  g.ReplaceUses(x, y);
  ir::Node n;
  n.name = kNodeName;
  n.op = "ChannelAffine";
  n.inputs = {x, g.AddConst("input_norm.scale", {channels}, scale),
              g.AddConst("input_norm.shift", {channels}, shift)};
  n.outputs = {y};
  g.nodes.insert(g.nodes.begin(), std::move(n));
}

bool FoldInputNormalization(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (n.name != kNodeName || n.op != "ChannelAffine") continue;
    const std::vector<double> scale = g.At(n.inputs[1]).data, shift = g.At(n.inputs[2]).data;
    const bool folded = TryFoldForward(g, i, scale, shift);
    if (folded) g.PruneUnusedTensors();
    return folded;
  }
  return false;
}

}  // namespace edgefold::compiler::passes
