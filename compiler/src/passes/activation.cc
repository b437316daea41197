#include "passes/activation.h"

#include <limits>
#include <map>

namespace edgefold::compiler::passes {

bool IsActivationOp(const std::string& op) {
  return op == "Relu" || op == "Clip" || op == "LeakyRelu" || op == "Sigmoid" ||
         op == "HardSigmoid" || op == "HardSwish" || op == "SiLU" || IsUnaryMathOp(op);
}

bool IsUnaryMathOp(const std::string& op) {
  return op == "Tanh" || op == "Exp" || op == "Log" || op == "Sqrt" || op == "Reciprocal" ||
         op == "Neg" || op == "Abs" || op == "Erf" || op == "Gelu" || op == "Pow";
}

bool FusableIntoProducer(kernels::ActKind kind) {
  using kernels::ActKind;
  switch (kind) {
    case ActKind::kRelu:
    case ActKind::kClip:
    case ActKind::kLeakyRelu:
    case ActKind::kSigmoid:
    case ActKind::kHardSigmoid:
    case ActKind::kHardSwish:
    case ActKind::kSiLU:
    case ActKind::kTanh:
    case ActKind::kGelu:
      return true;
    default:
      return false;
  }
}

namespace {
float ClipBound(const ir::Graph& g, const ir::Node& n, size_t i, float dflt) {
  if (n.In(i).empty()) return dflt;
  if (!g.IsConst(n.inputs[i]))
    throw CompileError(n.Msg("input " + std::to_string(i) + " (min/max) must be a constant"));
  const ir::Tensor& t = g.At(n.inputs[i]);
  if (t.data.size() != 1)
    throw CompileError(n.Msg("input " + std::to_string(i) + " (min/max) must be a scalar"));
  return static_cast<float>(t.data[0]);
}
// Pow(x, e) with e a constant: 2 → Square, 0.5 → Sqrt, −1 → Reciprocal, 1 → identity, else Pow.
kernels::Activation ParsePow(const ir::Graph& g, const ir::Node& n) {
  using kernels::ActKind;
  if (n.In(1).empty()) throw CompileError(n.Msg("missing input 1 (the exponent)"));
  if (!g.IsConst(n.inputs[1]))
    throw CompileError(
        n.Msg("exponent (input 1) must be a constant; a computed exponent is unsupported"));
  const ir::Tensor& t = g.At(n.inputs[1]);
  if (t.data.empty()) throw CompileError(n.Msg("exponent (input 1) is empty"));
  for (double v : t.data)
    if (v != t.data[0])
      throw CompileError(
          n.Msg("exponent (input 1) must be one value; a per-element exponent is unsupported"));
  const float e = static_cast<float>(t.data[0]);
  kernels::Activation a;
  a.kind = e == 2.0f    ? ActKind::kSquare
           : e == 0.5f  ? ActKind::kSqrt
           : e == -1.0f ? ActKind::kReciprocal
           : e == 1.0f  ? ActKind::kNone
                        : ActKind::kPow;
  if (a.kind == ActKind::kPow) a.alpha = e;
  return a;
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
  } else if (n.op == "Gelu") {  // internal (FuseGelu), or ONNX opset 20
    if (n.Str("approximate", "none") != "none")
      throw CompileError(n.Msg("Gelu approximate='" + n.Str("approximate", "") +
                               "' is unsupported (only the erf form)"));
    a.kind = ActKind::kGelu;
  } else if (n.op == "Pow") {
    a = ParsePow(g, n);
  } else if (IsUnaryMathOp(n.op)) {
    static const std::map<std::string, ActKind> kKinds = {{"Tanh", ActKind::kTanh},
                                                          {"Exp", ActKind::kExp},
                                                          {"Log", ActKind::kLog},
                                                          {"Sqrt", ActKind::kSqrt},
                                                          {"Reciprocal", ActKind::kReciprocal},
                                                          {"Neg", ActKind::kNeg},
                                                          {"Abs", ActKind::kAbs},
                                                          {"Erf", ActKind::kErf}};
    a.kind = kKinds.at(n.op);
  } else {
    throw CompileError(n.Msg("not an activation"));
  }
  return a;
}

}  // namespace edgefold::compiler::passes
