// Unary math ops, Pow with a constant exponent and Min/Max: lowering, the Gelu pattern
// (Div/Erf/Add/Mul/Mul → one op, fused into the producing Conv), which kinds fuse into a
// producer, and the errors that name the node.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;
using testing::OnnxBuilder;

double GeluOf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

fb::ActivationKind ActivationOf(const fb::Operator* op) {
  return op->options_as_ActivationOptions()->activation()->kind();
}

// x[1,3,8,8] → Conv → BN → GELU as PyTorch exports it (five ops) → y.
onnx::ModelProto ConvBnGelu() {
  OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8});
  b.Init("w", {6, 3, 3, 3}, testing::RandomVector(162, 1))
      .Init("bias", {6}, testing::RandomVector(6, 2));
  b.Init("sqrt2", {}, {1.41421356f}).Init("one", {}, {1.0f}).Init("half", {}, {0.5f});
  testing::SetInts(b.Node("Conv", {"x", "w", "bias"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn", "c", "n", 6, 3);
  b.Node("Div", {"n", "sqrt2"}, {"d"}, "gelu/Div");
  b.Node("Erf", {"d"}, {"e"}, "gelu/Erf");
  b.Node("Add", {"e", "one"}, {"a"}, "gelu/Add");
  b.Node("Mul", {"n", "a"}, {"m"}, "gelu/Mul");
  b.Node("Mul", {"m", "half"}, {"y"}, "gelu/Mul_1");
  b.Output("y");
  return b.model();
}

TEST(FuseGelu, PyTorchPatternBecomesTheConvEpilogue) {
  const CompileResult r = CompileModel(ConvBnGelu(), CompileOptions());  // verify: vs the five ops
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.report.verified);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto convs = testing::OpsOfType(m, fb::OpType::Conv);
  ASSERT_EQ(convs.size(), 1u);
  EXPECT_EQ(convs[0]->options_as_ConvOptions()->activation()->kind(), fb::ActivationKind::Gelu);

  CompileOptions plain;  // no fusion: still one Gelu op, after the Conv
  plain.fuse_activations = false;
  const CompileResult u = CompileModel(ConvBnGelu(), plain);
  ASSERT_TRUE(u.ok) << u.error;
  const auto acts = testing::OpsOfType(testing::ModelOf(u.model), fb::OpType::Activation);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(ActivationOf(acts[0]), fb::ActivationKind::Gelu);
  EXPECT_EQ(CountOps(u.model, fb::OpType::Binary), 0u);
  const std::vector<float> x = testing::RandomVector(3 * 64, 5, -2, 2);
  const auto a = testing::RunEfb(r.model, {x}).at(0), b = testing::RunEfb(u.model, {x}).at(0);
  EXPECT_LT(testing::MaxRelError(a, b), 1e-5);
}

// The other association, Mul by 1/√2, constants on the left: one Gelu op matching the formula.
TEST(FuseGelu, VariantsMatchTheFormula) {
  OnnxBuilder b;
  b.Input("x", {2, 33});
  b.Init("r", {1}, {0.70710678f}).Init("one", {}, {1.0f}).Init("half", {}, {0.5f});
  b.Node("Mul", {"r", "x"}, {"d"});
  b.Node("Erf", {"d"}, {"e"});
  b.Node("Add", {"one", "e"}, {"a"});
  b.Node("Mul", {"half", "x"}, {"h"});
  b.Node("Mul", {"h", "a"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  EXPECT_EQ(ActivationOf(m->operators()->Get(0)), fb::ActivationKind::Gelu);
  std::vector<float> x = testing::RandomVector(66, 9, -6, 6);
  x[0] = 0, x[1] = -20, x[2] = 20;
  const auto y = testing::RunEfb(r.model, {x}).at(0);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i], GeluOf(x[i]), 2e-7 * (1 + std::fabs(x[i]))) << x[i];
}

// Not GELU: the erf output is also a graph output, or the constant is not 1/2 — nothing fused.
TEST(FuseGelu, LeavesNearMissesAlone) {
  for (float half : {0.5f, 0.25f}) {
    OnnxBuilder b;
    b.Input("x", {4, 5});
    b.Init("s", {}, {1.41421356f}).Init("one", {}, {1.0f}).Init("half", {}, {half});
    b.Node("Div", {"x", "s"}, {"d"});
    b.Node("Erf", {"d"}, {"e"});
    b.Node("Add", {"e", "one"}, {"a"});
    b.Node("Mul", {"x", "a"}, {"m"});
    b.Node("Mul", {"m", "half"}, {"y"});
    b.Output("y");
    if (half == 0.5f) b.Output("e");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(CountOps(r.model, fb::OpType::Activation), 1u) << half;  // the Erf alone
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 4u) << half;
  }
}

// Tanh and Gelu join a producer's epilogue; Exp, Log, … stay stand-alone ops.
TEST(UnaryOps, OnlyTypicalKindsFuseIntoTheConv) {
  for (const char* op : {"Tanh", "Exp", "Abs"}) {
    OnnxBuilder b;
    b.Input("x", {1, 2, 5, 5});
    b.Init("w", {4, 2, 1, 1}, testing::RandomVector(8, 1));
    b.Node("Conv", {"x", "w"}, {"c"}, "conv");
    b.Node(op, {"c"}, {"y"}, "act");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(CountOps(r.model, fb::OpType::Activation), std::string(op) == "Tanh" ? 0u : 1u) << op;
  }
}

// Every unary op as one Activation op, against the formula, special values included.
TEST(UnaryOps, EachLowersToOneActivationMatchingNumpy) {
  struct Case {
    const char* op;
    fb::ActivationKind kind;
    double (*f)(double);
  };
  const Case cases[] = {
      {"Tanh", fb::ActivationKind::Tanh, [](double v) { return std::tanh(v); }},
      {"Exp", fb::ActivationKind::Exp, [](double v) { return std::exp(v); }},
      {"Log", fb::ActivationKind::Log, [](double v) { return std::log(v); }},
      {"Sqrt", fb::ActivationKind::Sqrt, [](double v) { return std::sqrt(v); }},
      {"Reciprocal", fb::ActivationKind::Reciprocal, [](double v) { return 1 / v; }},
      {"Neg", fb::ActivationKind::Neg, [](double v) { return -v; }},
      {"Abs", fb::ActivationKind::Abs, [](double v) { return std::fabs(v); }},
      {"Erf", fb::ActivationKind::Erf, [](double v) { return std::erf(v); }}};
  std::vector<float> x = testing::RandomVector(37, 3, -5, 5);
  x[0] = 0, x[1] = -1, x[2] = INFINITY, x[3] = -INFINITY;
  for (const Case& c : cases) {
    OnnxBuilder b;
    b.Input("x", {37});
    b.Node(c.op, {"x"}, {"y"}, "op");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << c.op << ": " << r.error;
    const fb::Model* m = testing::ModelOf(r.model);
    ASSERT_EQ(m->operators()->size(), 1u);
    EXPECT_EQ(ActivationOf(m->operators()->Get(0)), c.kind) << c.op;
    const auto y = testing::RunEfb(r.model, {x}).at(0);
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = c.f(x[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << c.op << "(" << x[i] << ")";
      } else if (std::isinf(want)) {
        EXPECT_EQ(y[i], want) << c.op << "(" << x[i] << ")";
      } else {
        EXPECT_NEAR(y[i], want, 1e-6 * (1 + std::fabs(want))) << c.op << "(" << x[i] << ")";
      }
    }
  }
}

// Pow's constant exponent picks the kind: 2 → Square, 0.5 → Sqrt, −1 → Reciprocal, else Pow.
TEST(UnaryOps, PowWithAConstantExponent) {
  const std::pair<float, fb::ActivationKind> cases[] = {{2.0f, fb::ActivationKind::Square},
                                                        {0.5f, fb::ActivationKind::Sqrt},
                                                        {-1.0f, fb::ActivationKind::Reciprocal},
                                                        {3.0f, fb::ActivationKind::Pow},
                                                        {1.5f, fb::ActivationKind::Pow}};
  std::vector<float> x = testing::RandomVector(24, 4, 0.1f, 4);
  x[0] = -2;
  for (const auto& [e, kind] : cases) {
    OnnxBuilder b;
    b.Input("x", {2, 3, 4});
    b.Init("e", {1}, {e});
    b.Node("Pow", {"x", "e"}, {"y"}, "pow");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    const fb::Model* m = testing::ModelOf(r.model);
    ASSERT_EQ(m->operators()->size(), 1u);
    EXPECT_EQ(ActivationOf(m->operators()->Get(0)), kind) << e;
    const auto y = testing::RunEfb(r.model, {x}).at(0);
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = std::pow(double(x[i]), double(e));
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(y[i])) << e << " " << x[i];
      else
        EXPECT_NEAR(y[i], want, 4e-6 * std::fabs(want)) << e << " " << x[i];
    }
  }
}

TEST(UnaryOps, PowErrorsNameTheNode) {
  {
    OnnxBuilder b;
    b.Input("x", {3}).Input("e", {3});
    b.Node("Pow", {"x", "e"}, {"y"}, "my_pow");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("my_pow"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("exponent (input 1) must be a constant"), std::string::npos) << r.error;
  }
  {
    OnnxBuilder b;
    b.Input("x", {3});
    b.Init("e", {3}, {1, 2, 3});
    b.Node("Pow", {"x", "e"}, {"y"}, "per_element_pow");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("per_element_pow"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("one value"), std::string::npos) << r.error;
  }
}

// Max of three broadcast inputs: a chain of two Binary ops; one input: a copy.
TEST(UnaryOps, MinMaxChainAndBroadcast) {
  for (const char* op : {"Min", "Max"}) {
    OnnxBuilder b;
    b.Input("a", {2, 3, 4}).Input("b", {3, 1}).Input("c", {4});
    b.Node(op, {"a", "b", "c"}, {"y"}, "mm");
    b.Node(op, {"a"}, {"z"}, "one");
    b.Output("y").Output("z");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 3u);
    const auto a = testing::RandomVector(24, 1), bb = testing::RandomVector(3, 2),
               c = testing::RandomVector(4, 3);
    const auto out = testing::RunEfb(r.model, {a, bb, c});
    const bool is_min = std::string(op) == "Min";
    for (size_t i = 0; i < 24; ++i) {
      const float v[3] = {a[i], bb[(i / 4) % 3], c[i % 4]};
      const float want = is_min ? std::min({v[0], v[1], v[2]}) : std::max({v[0], v[1], v[2]});
      EXPECT_EQ(out.at(0)[i], want) << op << " " << i;
      EXPECT_EQ(out.at(1)[i], a[i]);
    }
  }
}

}  // namespace
}  // namespace edgefold::compiler
