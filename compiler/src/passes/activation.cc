#include "passes/activation.h"

#include <limits>

namespace edgefold::compiler::passes {

bool IsActivationOp(const std::string& op) {
  return op == "Relu" || op == "Clip" || op == "LeakyRelu" || op == "Sigmoid" || op == "HardSigmoid" ||
         op == "HardSwish" || op == "SiLU";
}

namespace {
float ClipBound(const ir::Graph& g, const ir::Node& n, size_t i, float dflt) {
  if (n.In(i).empty()) return dflt;
  if (!g.IsConst(n.inputs[i])) throw CompileError(n.Msg("input " + std::to_string(i) + " (min/max) must be a constant"));
  const ir::Tensor& t = g.At(n.inputs[i]);
  if (t.data.size() != 1) throw CompileError(n.Msg("input " + std::to_string(i) + " (min/max) must be a scalar"));
  return static_cast<float>(t.data[0]);
}
}  // namespace

kernels::Activation ParseActivation(const ir::Graph& g, const ir::Node& n) {
  using kernels::ActKind;
  kernels::Activation a;
  if (n.op == "Relu") {
    a.kind = ActKind::kRelu;
  } else if (n.op == "Clip") {
    a.kind = ActKind::kClip;
    const float inf = std::numeric_limits<float>::infinity();
    a.alpha = ClipBound(g, n, 1, n.Has("min") ? static_cast<float>(n.Float("min", -inf)) : -inf);
    a.beta = ClipBound(g, n, 2, n.Has("max") ? static_cast<float>(n.Float("max", inf)) : inf);
  } else if (n.op == "LeakyRelu") {
    a.kind = ActKind::kLeakyRelu;
    a.alpha = static_cast<float>(n.Float("alpha", 0.01));
  } else if (n.op == "Sigmoid") {
    a.kind = ActKind::kSigmoid;
  } else if (n.op == "HardSigmoid") {
    a.kind = ActKind::kHardSigmoid;
    a.alpha = static_cast<float>(n.Float("alpha", 0.2));
    a.beta = static_cast<float>(n.Float("beta", 0.5));
  } else if (n.op == "HardSwish") {
    a.kind = ActKind::kHardSwish;
  } else if (n.op == "SiLU") {  // internal: made by FuseGatedActivations from x·Sigmoid(x)
    a.kind = ActKind::kSiLU;
  } else {
    throw CompileError(n.Msg("not an activation"));
  }
  return a;
}

}  // namespace edgefold::compiler::passes
