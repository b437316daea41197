// FuseChannelScale: the squeeze-and-excitation Mul(x, s) feeding a pointwise Conv becomes that
// Conv's input 3 (W'[o, c] = W[o, c]·s[c] at run time); the fused model against the unfused one
// (fuse_activations off keeps the Mul) and the compiler's own verify; the forms left alone.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;
using testing::MaxRelError;
using testing::OnnxBuilder;

struct SeNet {
  bool hard_gate = false;    // HardSigmoid (MobileNetV3) instead of Sigmoid (EfficientNet)
  bool scale_first = false;  // Mul(s, x) instead of Mul(x, s)
  bool project_bias = true;
  std::vector<int64_t> project_kernel = {1, 1};
  std::vector<int64_t> project_strides = {1, 1};
  int64_t project_group = 1;
  int64_t project_out = 8;  // > 49 = H·W: scaling W would cost more than the Mul
  bool mul_is_output = false;
  bool mul_second_use = false;
};

// x[1,6,7,7] → conv 3×3 (16) → BN → SiLU = h; s = gate(conv(relu(conv(GAP(h))))) [1,16,1,1];
// y = project(h ⊙ s) [1,project_out,·,·].
onnx::ModelProto SeBlock(const SeNet& o) {
  OnnxBuilder b;
  b.Input("x", {1, 6, 7, 7});
  b.Init("w1", {16, 6, 3, 3}, testing::RandomVector(16 * 54, 1))
      .Init("b1", {16}, testing::RandomVector(16, 2));
  b.Init("wr", {4, 16, 1, 1}, testing::RandomVector(64, 3))
      .Init("br", {4}, testing::RandomVector(4, 4));
  b.Init("we", {16, 4, 1, 1}, testing::RandomVector(64, 5))
      .Init("be", {16}, testing::RandomVector(16, 6));
  const int64_t kk = o.project_kernel[0] * o.project_kernel[1];
  const int64_t m = o.project_out;
  b.Init("wp", {m, 16 / o.project_group, o.project_kernel[0], o.project_kernel[1]},
         testing::RandomVector(m * 16 / o.project_group * kk, 7));
  b.Init("bp", {m}, testing::RandomVector(m, 8));
  testing::SetInts(b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "expand"), "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn1", "c1", "n1", 16, 9);
  b.Node("Sigmoid", {"n1"}, {"g1"}, "swish_gate");
  b.Node("Mul", {"n1", "g1"}, {"h"}, "swish");
  b.Node("GlobalAveragePool", {"h"}, {"p"}, "squeeze");
  b.Node("Conv", {"p", "wr", "br"}, {"r"}, "reduce");
  b.Node("Relu", {"r"}, {"rr"}, "reduce_relu");
  b.Node("Conv", {"rr", "we", "be"}, {"e"}, "excite");
  if (o.hard_gate) {
    onnx::NodeProto& hs = b.Node("HardSigmoid", {"e"}, {"s"}, "gate");
    testing::SetFloat(hs, "alpha", 1.0f / 6.0f);
    testing::SetFloat(hs, "beta", 0.5f);
  } else {
    b.Node("Sigmoid", {"e"}, {"s"}, "gate");
  }
  b.Node("Mul",
         o.scale_first ? std::vector<std::string>{"s", "h"} : std::vector<std::string>{"h", "s"},
         {"m"}, "se_scale");
  std::vector<std::string> project_in = {"m", "wp"};
  if (o.project_bias) project_in.push_back("bp");
  onnx::NodeProto& project = b.Node("Conv", project_in, {"y"}, "project");
  testing::SetInts(project, "kernel_shape", o.project_kernel);
  testing::SetInts(project, "strides", o.project_strides);
  if (o.project_group != 1) testing::SetInt(project, "group", o.project_group);
  if (o.project_kernel[0] > 1) testing::SetInts(project, "pads", {1, 1, 1, 1});
  b.Output("y");
  if (o.mul_is_output) b.Output("m");
  if (o.mul_second_use) {
    b.Node("Add", {"m", "h"}, {"z"}, "second_use");
    b.Output("z");
  }
  return b.model();
}

// The project conv of a compiled model and the number of Binary (Mul) ops.
const fb::Operator* ProjectConv(const std::vector<uint8_t>& efb) {
  for (const fb::Operator* op : testing::OpsOfType(testing::ModelOf(efb), fb::OpType::Conv))
    if (op->name()->str() == "project") return op;
  return nullptr;
}

void ExpectFusedMatchesUnfused(const SeNet& net) {
  const onnx::ModelProto model = SeBlock(net);
  const CompileResult fused = CompileModel(model, CompileOptions());  // verify on: fused vs unfused
  ASSERT_TRUE(fused.ok) << fused.error;
  EXPECT_TRUE(fused.report.verified);
  EXPECT_LT(fused.report.verify_max_rel_error, 1e-5);
  EXPECT_EQ(CountOps(fused.model, fb::OpType::Binary), 0u);
  // expand (SiLU), reduce (Relu), excite (gate), project: 4 convs + the pool, nothing else.
  EXPECT_EQ(testing::ModelOf(fused.model)->operators()->size(), 5u);
  const fb::Operator* project = ProjectConv(fused.model);
  ASSERT_NE(project, nullptr);
  ASSERT_EQ(project->inputs()->size(), 4u);
  EXPECT_EQ(project->inputs()->Get(2) >= 0, net.project_bias);
  EXPECT_EQ(testing::ModelOf(fused.model)->tensors()->Get(project->inputs()->Get(3))->name()->str(),
            "s");
  EXPECT_GE(project->scratch_bytes(), 8u * 16u * sizeof(float));

  CompileOptions plain;
  plain.fuse_activations = false;
  const CompileResult unfused = CompileModel(model, plain);
  ASSERT_TRUE(unfused.ok) << unfused.error;
  EXPECT_EQ(CountOps(unfused.model, fb::OpType::Binary), 2u);  // swish and se_scale
  ASSERT_EQ(ProjectConv(unfused.model)->inputs()->size(), 3u);
  for (uint32_t seed : {11u, 12u}) {
    const std::vector<float> x = testing::RandomVector(6 * 49, seed, -3, 3);
    const auto want = testing::RunEfb(unfused.model, {x}).at(0);
    const auto got = testing::RunEfb(fused.model, {x}).at(0);
    EXPECT_LT(MaxRelError(got, want), 1e-5);
  }
}

TEST(FuseChannelScale, SigmoidGateFusesIntoProjectConv) { ExpectFusedMatchesUnfused(SeNet{}); }

TEST(FuseChannelScale, HardSigmoidGateScaleOnTheLeftNoBias) {
  SeNet net;
  net.hard_gate = true;
  net.scale_first = true;
  net.project_bias = false;
  ExpectFusedMatchesUnfused(net);
}

// Left alone: a project conv that is not pointwise (3×3, stride 2), grouped or with out_c > H·W,
// a Mul output that is also a graph output or has a second consumer. The Mul stays and the model
// still verifies.
TEST(FuseChannelScale, OnlyPointwiseSoleConsumerIsRewritten) {
  std::vector<SeNet> nets(6);
  nets[0].project_kernel = {3, 3};
  nets[1].project_strides = {2, 2};
  nets[2].project_group = 2;
  nets[3].mul_is_output = true;
  nets[4].mul_second_use = true;
  nets[5].project_out = 50;
  for (size_t i = 0; i < nets.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const CompileResult r = CompileModel(SeBlock(nets[i]), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.report.verified);
    EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), nets[i].mul_second_use ? 2u : 1u);
    ASSERT_NE(ProjectConv(r.model), nullptr);
    EXPECT_LE(ProjectConv(r.model)->inputs()->size(), 3u);
  }
}

// Training compiles turn fusion off: the Mul stays.
TEST(FuseChannelScale, OffWithoutActivationFusion) {
  CompileOptions plain;
  plain.fuse_activations = false;
  const CompileResult r = CompileModel(SeBlock(SeNet{}), plain);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 2u);
}

}  // namespace
}  // namespace edgefold::compiler
