#include <cmath>
#include <sstream>

#include "base/fold_batchnorm.h"
#include "passes/fold_forward.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// Per-channel affine form of an inference BatchNorm: y = x·scale[c] + shift[c].
struct BnAffine {
  std::vector<double> mean, scale, shift, beta, gamma;
  double eps = 0;
};

std::string FormatValue(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

const ir::Tensor& BnParam(const ir::Graph& g, const ir::Node& bn, size_t i, const char* role,
                          int64_t channels) {
  if (bn.In(i).empty() || !g.IsConst(bn.inputs[i]))
    throw CompileError("BatchNormalization '" + bn.name + "': input '" + role +
                       "' must be a constant");
  const ir::Tensor& t = g.At(bn.inputs[i]);
  if (static_cast<int64_t>(t.data.size()) != channels)
    throw CompileError("BatchNormalization '" + bn.name + "': input '" + role + "' has " +
                       std::to_string(t.data.size()) + " values for " + std::to_string(channels) +
                       " channels");
  for (size_t c = 0; c < t.data.size(); ++c)
    if (!std::isfinite(t.data[c]))
      throw CompileError("BatchNormalization '" + bn.name + "': input '" + role + "'[" +
                         std::to_string(c) + "] = " + FormatValue(t.data[c]) + " is " +
                         (std::isnan(t.data[c]) ? "NaN" : "infinite"));
  return t;
}

// Validates the node's parameters and computes scale = γ/√(σ²+ε), shift = β − μ·scale.
BnAffine ComputeAffine(const ir::Graph& g, const ir::Node& bn) {
  const ir::Tensor& x = g.At(bn.In(0));
  if (!x.shape_known || x.shape.size() < 2)
    throw CompileError("BatchNormalization '" + bn.name +
                       "': input X needs a known shape of rank >= 2");
  if (bn.Int("training_mode", 0) != 0)
    throw CompileError("BatchNormalization '" + bn.name +
                       "': attribute 'training_mode'=1 is unsupported");
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (!bn.outputs[i].empty() && g.ConsumerCount(bn.outputs[i]) > 0)
      throw CompileError("BatchNormalization '" + bn.name + "': training outputs are unsupported");
  const int64_t channels = x.shape[1];
  const double eps = bn.Float("epsilon", 1e-5);
  if (!std::isfinite(eps))
    throw CompileError("BatchNormalization '" + bn.name + "': attribute 'epsilon' is not finite");
  const ir::Tensor& gamma = BnParam(g, bn, 1, "gamma", channels);
  const ir::Tensor& beta = BnParam(g, bn, 2, "beta", channels);
  const ir::Tensor& mean = BnParam(g, bn, 3, "running_mean", channels);
  const ir::Tensor& var = BnParam(g, bn, 4, "running_var", channels);
  BnAffine a;
  a.mean = mean.data;
  a.beta = beta.data;
  a.gamma = gamma.data;
  a.eps = eps;
  for (int64_t c = 0; c < channels; ++c) {
    const std::string at = "BatchNormalization '" + bn.name + "': input 'running_var'[" +
                           std::to_string(c) + "] = " + FormatValue(var.data[c]);
    if (var.data[c] < 0) throw CompileError(at + " is negative");
    if (var.data[c] + eps <= 0)
      throw CompileError(at + " plus epsilon " + FormatValue(eps) + " is not positive");
    const internal::BnScaleShift<double> fold = internal::FoldBatchNorm<double>(
        gamma.data[c], beta.data[c], mean.data[c], var.data[c], eps);
    a.scale.push_back(fold.scale);
    a.shift.push_back(fold.shift);
  }
  return a;
}

// Output channel of each element of p's W, or an empty vector when p cannot take the fold:
// Conv W[Cout, ...]: i / inner; FC W[K, N]: i mod N; ConvTranspose W[Cin, Cout/g, k...] with
// Cin = g·cin_g: element (ic, j, ...) belongs to oc = (ic / cin_g)·(Cout/g) + j.
std::vector<int64_t> OutputChannelOf(const ir::Node& p, const ir::Tensor& w, int64_t channels) {
  const int64_t elems = static_cast<int64_t>(w.data.size());
  if (w.shape.size() < 2 || elems == 0) return {};
  std::vector<int64_t> oc(static_cast<size_t>(elems));
  if (p.op == "Conv" || p.op == "FC") {
    const int64_t out_c = p.op == "Conv" ? w.shape[0] : w.shape[1];
    if (out_c != channels) return {};
    const int64_t inner = elems / out_c;
    for (int64_t i = 0; i < elems; ++i) oc[i] = p.op == "Conv" ? i / inner : i % out_c;
    return oc;
  }
  const int64_t group = p.Int("group", 1), cout_g = w.shape[1];
  if (group < 1 || w.shape[0] % group != 0 || cout_g * group != channels) return {};
  const int64_t cin_g = w.shape[0] / group, inner = elems / (w.shape[0] * cout_g);
  for (int64_t i = 0; i < elems; ++i) {
    const int64_t ic = i / (cout_g * inner), j = (i / inner) % cout_g;
    oc[i] = (ic / cin_g) * cout_g + j;
  }
  return oc;
}

// Folds into producer p (Conv, FC, ConvTranspose) when p's output feeds only `bn`:
// W'[.. oc ..] = W·s[oc], b' = (b − μ)·s + β.
bool TryFoldBackward(ir::Graph& g, size_t bn_index, const BnAffine& a, bool keep_adaptation) {
  const ir::Node& bn = g.nodes[bn_index];
  const std::string x = bn.inputs[0];
  const int p_index = g.ProducerOf(x);
  if (p_index < 0 || g.ConsumerCount(x) != 1 || g.IsGraphOutput(x)) return false;
  ir::Node& p = g.nodes[p_index];
  if ((p.op != "Conv" && p.op != "FC" && p.op != "ConvTranspose") ||
      p.act.kind != kernels::ActKind::kNone)
    return false;
  if (p.In(1).empty() || !g.IsConst(p.inputs[1]) || (!p.In(2).empty() && !g.IsConst(p.inputs[2])))
    return false;
  const int64_t channels = static_cast<int64_t>(a.scale.size());
  if (p.op == "FC" && g.At(x).shape.size() != 2) return false;  // BN axis 1 must be FC's N axis
  ir::Tensor w = g.At(p.inputs[1]);
  const std::vector<int64_t> oc = OutputChannelOf(p, w, channels);
  if (oc.empty()) return false;
  for (size_t i = 0; i < w.data.size(); ++i) w.data[i] *= a.scale[oc[i]];
  std::vector<double> bias(static_cast<size_t>(channels), 0.0);
  if (!p.In(2).empty()) bias = g.At(p.inputs[2]).data;
  if (static_cast<int64_t>(bias.size()) != channels) return false;
  for (int64_t c = 0; c < channels; ++c)
    bias[c] = internal::FoldedBias(bias[c], a.beta[c], a.mean[c], a.scale[c]);
  if (keep_adaptation && p.op != "ConvTranspose") {  // passes.h: kBnAdaptAttr
    ir::Attr adapt;
    adapt.kind = ir::Attr::kFloats;
    for (int64_t c = 0; c < channels; ++c) adapt.floats.push_back(std::fabs(a.gamma[c]));
    for (int64_t c = 0; c < channels; ++c) adapt.floats.push_back(a.beta[c]);
    for (int64_t c = 0; c < channels; ++c) adapt.floats.push_back(a.eps * a.scale[c] * a.scale[c]);
    p.attrs[kBnAdaptAttr] = std::move(adapt);
  }
  const std::string w_name = g.AddConst(p.inputs[1] + "_bnfold", w.shape, std::move(w.data));
  const std::string b_name = g.AddConst(p.name + ".bias_bnfold", {channels}, std::move(bias));
  if (p.inputs.size() < 3) p.inputs.resize(3);
  p.inputs[1] = w_name;
  p.inputs[2] = b_name;
  p.outputs[0] = bn.outputs[0];
  g.nodes.erase(g.nodes.begin() + static_cast<long>(bn_index));
  return true;
}

}  // namespace

BatchNormStats FoldBatchNorm(ir::Graph& graph, bool fold, bool keep_adaptation) {
  BatchNormStats stats;
  for (size_t i = 0; i < graph.nodes.size();) {
    ir::Node& bn = graph.nodes[i];
    if (bn.op != "BatchNormalization") {
      ++i;
      continue;
    }
    ++stats.found;
    const BnAffine a = ComputeAffine(graph, bn);
    if (fold && TryFoldBackward(graph, i, a, keep_adaptation)) {
      ++stats.folded_backward;
      continue;  // bn erased; nodes[i] is the next node
    }
    if (fold && TryFoldForward(graph, i, a.scale, a.shift)) {
      ++stats.folded_forward;
      continue;
    }
    ++stats.kept;
    if (fold) {
      const int64_t c = static_cast<int64_t>(a.scale.size());
      const std::string scale = graph.AddConst(bn.name + ".scale", {c}, a.scale);
      const std::string shift = graph.AddConst(bn.name + ".shift", {c}, a.shift);
      bn.op = "ChannelAffine";
      bn.inputs = {bn.inputs[0], scale, shift};
      bn.outputs.resize(1);
      bn.attrs.clear();
    }
    ++i;
  }
  graph.PruneUnusedTensors();
  return stats;
}

}  // namespace edgefold::compiler::passes
