// FuseGatedActivations: x·Sigmoid(x) → SiLU and x·HardSigmoid(x; 1/6, 1/2) → HardSwish, then
// fused into the producing Conv; the fused model against the unfused one (fuse_activations off
// keeps Sigmoid/HardSigmoid and Mul as their own ops) and against the formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;
using testing::MaxRelError;
using testing::OnnxBuilder;

// x[1,3,9,9] → conv1 → BN → x·σ(x) → conv2 → HardSigmoid(1/6, 1/2)(d)·d → y, with the gate on
// the right in the first Mul and on the left in the second (EfficientNet / MobileNetV3 forms).
onnx::ModelProto SwishAndHardSwishNet() {
  OnnxBuilder b;
  b.Input("x", {1, 3, 9, 9});
  b.Init("w1", {8, 3, 3, 3}, testing::RandomVector(216, 1))
      .Init("b1", {8}, testing::RandomVector(8, 2));
  b.Init("w2", {8, 8, 1, 1}, testing::RandomVector(64, 3))
      .Init("b2", {8}, testing::RandomVector(8, 4));
  testing::SetInts(b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn1", "c1", "n1", 8, 5);
  b.Node("Sigmoid", {"n1"}, {"s1"}, "gate1");
  b.Node("Mul", {"n1", "s1"}, {"a1"}, "swish1");
  b.Node("Conv", {"a1", "w2", "b2"}, {"c2"}, "conv2");
  onnx::NodeProto& hs = b.Node("HardSigmoid", {"c2"}, {"h2"}, "gate2");
  testing::SetFloat(hs, "alpha", 1.0f / 6.0f);
  testing::SetFloat(hs, "beta", 0.5f);
  b.Node("Mul", {"h2", "c2"}, {"y"}, "hardswish2");
  b.Output("y");
  return b.model();
}

TEST(FuseGatedActivation, SwishAndHardSwishBecomeConvEpilogues) {
  const onnx::ModelProto model = SwishAndHardSwishNet();
  const CompileResult fused =
      CompileModel(model, CompileOptions());  // verify on: checks vs unfused too
  ASSERT_TRUE(fused.ok) << fused.error;
  EXPECT_TRUE(fused.report.verified);
  EXPECT_EQ(fused.report.activations_fused, 4);  // 2 gates removed + 2 activations into convs
  const fb::Model* m = testing::ModelOf(fused.model);
  ASSERT_EQ(m->operators()->size(), 2u);
  const auto convs = testing::OpsOfType(m, fb::OpType::Conv);
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_EQ(convs[0]->options_as_ConvOptions()->activation()->kind(), fb::ActivationKind::SiLU);
  EXPECT_EQ(convs[1]->options_as_ConvOptions()->activation()->kind(),
            fb::ActivationKind::HardSwish);

  CompileOptions plain;
  plain.fuse_activations = false;
  const CompileResult unfused = CompileModel(model, plain);
  ASSERT_TRUE(unfused.ok) << unfused.error;
  EXPECT_EQ(CountOps(unfused.model, fb::OpType::Binary), 2u);
  EXPECT_EQ(CountOps(unfused.model, fb::OpType::Activation), 2u);
  const std::vector<float> x = testing::RandomVector(3 * 81, 7, -3, 3);
  const auto want = testing::RunEfb(unfused.model, {x}).at(0);
  const auto got = testing::RunEfb(fused.model, {x}).at(0);
  EXPECT_LT(MaxRelError(got, want), 1e-5);
}

// With nothing to fuse into (x is the graph input) the gate still goes: one SiLU Activation op.
TEST(FuseGatedActivation, StandAloneSiluMatchesTheFormula) {
  OnnxBuilder b;
  b.Input("x", {2, 37});
  b.Node("Sigmoid", {"x"}, {"s"});
  b.Node("Mul", {"s", "x"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.activations_fused, 1);
  const auto acts = testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::Activation);
  ASSERT_EQ(testing::ModelOf(r.model)->operators()->size(), 1u);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0]->options_as_ActivationOptions()->activation()->kind(),
            fb::ActivationKind::SiLU);
  std::vector<float> x = testing::RandomVector(74, 9, -10, 10);
  x[0] = -100, x[1] = 100, x[2] = 0;
  const auto y = testing::RunEfb(r.model, {x}).at(0);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i], x[i] / (1 + std::exp(-double(x[i]))), 1e-6 * (1 + std::fabs(x[i])));
}

// Left alone: HardSigmoid with ONNX's default α = 0.2 (not HardSwish), a gate with a second
// consumer, a gate that is a graph output, and the SE form x·σ(f(x)) whose gate is of another tensor.
TEST(FuseGatedActivation, OnlyTheExactPatternIsRewritten) {
  auto compile = [](OnnxBuilder& b) {
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    EXPECT_TRUE(r.ok) << r.error;
    return r;
  };
  {
    OnnxBuilder b;
    b.Input("x", {1, 8});
    b.Node("HardSigmoid", {"x"}, {"h"});
    b.Node("Mul", {"x", "h"}, {"y"});
    b.Output("y");
    const CompileResult r = compile(b);
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 1u);
  }
  {
    OnnxBuilder b;
    b.Input("x", {1, 8});
    b.Node("Sigmoid", {"x"}, {"s"});
    b.Node("Mul", {"x", "s"}, {"y"});
    b.Node("Add", {"y", "s"}, {"z"});
    b.Output("z");
    const CompileResult r = compile(b);
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 2u);
  }
  {
    OnnxBuilder b;
    b.Input("x", {1, 8});
    b.Node("Sigmoid", {"x"}, {"s"});
    b.Node("Mul", {"x", "s"}, {"y"});
    b.Output("y").Output("s");
    const CompileResult r = compile(b);
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 1u);
  }
  {
    OnnxBuilder b;
    b.Input("x", {1, 4, 3, 3}).Init("w", {4, 4, 1, 1}, testing::RandomVector(16, 3));
    b.Node("GlobalAveragePool", {"x"}, {"p"});
    b.Node("Conv", {"p", "w"}, {"f"});
    b.Node("Sigmoid", {"f"}, {"s"});
    b.Node("Mul", {"x", "s"}, {"y"});
    b.Output("y");
    const CompileResult r = compile(b);
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 1u);
    const auto convs = testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::Conv);
    ASSERT_EQ(convs.size(), 1u);
    EXPECT_EQ(convs[0]->options_as_ConvOptions()->activation()->kind(),
              fb::ActivationKind::Sigmoid);
  }
}

}  // namespace
}  // namespace edgefold::compiler
