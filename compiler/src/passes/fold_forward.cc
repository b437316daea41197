// BN → Conv/FC forward folding. With y = x·s[c] + t[c] feeding a conv with *no padding*,
//   conv(y)[o] = Σ_{c,k} W[o,c,k]·(x[c]·s[c] + t[c]) + b[o]
//              = Σ_{c,k} (W[o,c,k]·s[c])·x[c] + (b[o] + Σ_{c,k} W[o,c,k]·t[c])
// so W'[o,c,k] = W[o,c,k]·s[c] and b'[o] = b[o] + Σ_{c,k} W[o,c,k]·t[c] (c = the input channel
// of group(o)). With padding the border taps see a zero of y, i.e. x = −t/s, not zero, so
// folding would be wrong there: such BNs stay a ChannelAffine. FC: W[K,N], c = k.
#include "passes/fold_forward.h"

namespace edgefold::compiler::passes {
namespace {

bool HasNoPadding(const ir::Node& conv) {
  const std::string auto_pad = conv.Str("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return false;
  for (int64_t p : conv.Ints("pads", {}))
    if (p != 0) return false;
  return true;
}

}  // namespace

bool TryFoldForward(ir::Graph& g, size_t bn_index, const std::vector<double>& scale,
                    const std::vector<double>& shift) {
  const ir::Node& bn = g.nodes[bn_index];
  const std::string y = bn.outputs[0];
  if (g.ConsumerCount(y) != 1 || g.IsGraphOutput(y)) return false;
  int c_index = -1;
  for (size_t i = bn_index + 1; i < g.nodes.size() && c_index < 0; ++i)
    for (const std::string& in : g.nodes[i].inputs)
      if (in == y) c_index = static_cast<int>(i);
  if (c_index < 0) return false;
  ir::Node& c = g.nodes[c_index];
  if ((c.op != "Conv" && c.op != "FC") || c.In(0) != y || c.In(1).empty() ||
      !g.IsConst(c.inputs[1]))
    return false;
  if (!c.In(2).empty() && !g.IsConst(c.inputs[2])) return false;
  if (c.op == "Conv" && !HasNoPadding(c)) return false;
  const int64_t channels = static_cast<int64_t>(scale.size());
  if (c.op == "FC" && g.At(y).shape.size() != 2) return false;  // BN axis 1 must be FC's K axis
  ir::Tensor w = g.At(c.inputs[1]);
  const bool conv = c.op == "Conv";
  const int64_t out_c = conv ? w.shape[0] : w.shape[1];
  const int64_t in_per_group = conv ? w.shape[1] : w.shape[0];
  if (in_per_group <= 0 || channels % in_per_group != 0) return false;
  const int64_t groups = channels / in_per_group;
  if (conv ? out_c % groups != 0 : groups != 1) return false;
  const int64_t taps = static_cast<int64_t>(w.data.size()) / (out_c * in_per_group);
  std::vector<double> bias(static_cast<size_t>(out_c), 0.0);
  if (!c.In(2).empty()) bias = g.At(c.inputs[2]).data;
  for (int64_t o = 0; o < out_c; ++o)
    for (int64_t ci = 0; ci < in_per_group; ++ci) {
      const int64_t ch = conv ? (o / (out_c / groups)) * in_per_group + ci : ci;
      for (int64_t k = 0; k < taps; ++k) {
        double& v = conv ? w.data[(o * in_per_group + ci) * taps + k] : w.data[ci * out_c + o];
        bias[o] += v * shift[ch];
        v *= scale[ch];
      }
    }
  const std::string w_name = g.AddConst(c.inputs[1] + "_bnfwd", w.shape, std::move(w.data));
  const std::string b_name = g.AddConst(c.name + ".bias_bnfwd", {out_c}, std::move(bias));
  if (c.inputs.size() < 3) c.inputs.resize(3);
  c.inputs[0] = bn.inputs[0];
  c.inputs[1] = w_name;
  c.inputs[2] = b_name;
  g.nodes.erase(g.nodes.begin() + static_cast<long>(bn_index));
  return true;
}

}  // namespace edgefold::compiler::passes
