// FuseExpansionIntoDepthwise: an inverted residual's pointwise expansion whose output t only
// feeds a depthwise conv becomes that conv's inputs 4 and 5 when t is at least two bands; the
// fused model against the unfused one (expansion_band_kb 0) and the compiler's own verify, the
// arena without t, and the forms and options that keep the expansion an op of its own.
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;
using testing::MaxRelError;
using testing::OnnxBuilder;

struct Block {
  int64_t cin = 8, expand = 48, cout = 8, size = 40;
  int64_t stride = 1, k = 3;
  bool t_is_output = false;   // t also a graph output: stays in the arena
  bool t_second_use = false;  // t read by another node too
};

// x → pointwise expand (BN, ReLU6) = t → depthwise k×k (BN, ReLU6) → project (BN) [+ x].
onnx::ModelProto InvertedResidual(const Block& o) {
  OnnxBuilder b;
  b.Input("x", {1, o.cin, o.size, o.size});
  b.Init("we", {o.expand, o.cin, 1, 1}, testing::RandomVector(o.expand * o.cin, 1));
  b.Init("wd", {o.expand, 1, o.k, o.k}, testing::RandomVector(o.expand * o.k * o.k, 2));
  b.Init("wp", {o.cout, o.expand, 1, 1}, testing::RandomVector(o.cout * o.expand, 3));
  b.Init("lo", {}, {0.0f}).Init("hi", {}, {6.0f});
  b.Node("Conv", {"x", "we"}, {"e"}, "expand");
  testing::AddBatchNorm(b, "bn_e", "e", "en", o.expand, 4);
  b.Node("Clip", {"en", "lo", "hi"}, {"t"}, "expand_relu6");
  onnx::NodeProto& dw = b.Node("Conv", {"t", "wd"}, {"d"}, "depthwise");
  testing::SetInt(dw, "group", o.expand);
  testing::SetInts(dw, "strides", {o.stride, o.stride});
  testing::SetInts(dw, "pads", {o.k / 2, o.k / 2, o.k / 2, o.k / 2});
  testing::AddBatchNorm(b, "bn_d", "d", "dn", o.expand, 5);
  b.Node("Clip", {"dn", "lo", "hi"}, {"dr"}, "depthwise_relu6");
  b.Node("Conv", {"dr", "wp"}, {"p"}, "project");
  testing::AddBatchNorm(b, "bn_p", "p", "pn", o.cout, 6);
  if (o.stride == 1 && o.cin == o.cout) {
    b.Node("Add", {"pn", "x"}, {"y"}, "residual");
  } else {
    b.Node("Identity", {"pn"}, {"y"}, "out");
  }
  b.Output("y");
  if (o.t_is_output) b.Output("t");
  if (o.t_second_use) {
    b.Node("ReduceMean", {"t"}, {"m"}, "second_use");
    b.Output("m");
  }
  return b.model();
}

CompileOptions WithBand(int kb) {
  CompileOptions o;
  o.expansion_band_kb = kb;
  return o;
}

void ExpectFusedMatchesUnfused(const Block& block) {
  const onnx::ModelProto model = InvertedResidual(block);
  // t = 48 × 40² floats = 300 KiB: two 16 KiB bands or more.
  const CompileResult fused = CompileModel(model, WithBand(16));
  ASSERT_TRUE(fused.ok) << fused.error;
  EXPECT_EQ(fused.report.expansions_fused, 1);
  EXPECT_TRUE(fused.report.verified);
  EXPECT_LT(fused.report.verify_max_rel_error, 1e-5);
  EXPECT_EQ(CountOps(fused.model, fb::OpType::Conv),
            2u);  // depthwise (with the expansion), project
  EXPECT_EQ(fused.report.arena_bytes, fused.report.arena_lower_bound);
  const CompileResult unfused = CompileModel(model, WithBand(0));
  ASSERT_TRUE(unfused.ok) << unfused.error;
  EXPECT_EQ(unfused.report.expansions_fused, 0);
  EXPECT_EQ(CountOps(unfused.model, fb::OpType::Conv), 3u);
  // t (300 KiB) leaves the arena; one band's rows of it take its place.
  EXPECT_LT(fused.report.arena_bytes + 200 * 1024, unfused.report.arena_bytes);
  for (uint32_t seed : {11u, 12u}) {
    const std::vector<float> x =
        testing::RandomVector(block.cin * block.size * block.size, seed, -3, 3);
    const auto want = testing::RunEfb(unfused.model, {x}).at(0);
    const auto got = testing::RunEfb(fused.model, {x}).at(0);
    EXPECT_LT(MaxRelError(got, want), 1e-5);
  }
}

TEST(FuseExpansion, StrideOneResidualBlock) { ExpectFusedMatchesUnfused(Block{}); }

TEST(FuseExpansion, StrideTwoFiveByFive) {
  Block b;
  b.stride = 2, b.k = 5, b.cout = 12, b.size = 41;
  ExpectFusedMatchesUnfused(b);
}

// t = 48 × 64² floats (768 KiB) in 256 KiB bands. The runtime also caps a band at this core's
// L2: ctest runs this test a second time with EDGEFOLD_L2_KB=64, where the bands it runs are a
// fourth of the planned ones (the output must not change).
TEST(FuseExpansion, BandsWithinThePlanAndTheL2) {
  Block b;
  b.size = 64;
  const onnx::ModelProto model = InvertedResidual(b);
  const CompileResult fused = CompileModel(model, WithBand(256));
  ASSERT_TRUE(fused.ok) << fused.error;
  ASSERT_EQ(fused.report.expansions_fused, 1);
  const CompileResult unfused = CompileModel(model, WithBand(0));
  ASSERT_TRUE(unfused.ok) << unfused.error;
  const std::vector<float> x = testing::RandomVector(b.cin * b.size * b.size, 21, -3, 3);
  EXPECT_LT(MaxRelError(testing::RunEfb(fused.model, {x}).at(0),
                        testing::RunEfb(unfused.model, {x}).at(0)),
            1e-5);
}

TEST(FuseExpansion, KeptWhereTIsNeededOrSmall) {
  Block output;
  output.t_is_output = true;
  Block shared;
  shared.t_second_use = true;
  for (const Block& b : {output, shared}) {
    const CompileResult r = CompileModel(InvertedResidual(b), WithBand(16));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.report.expansions_fused, 0);
  }
  // 300 KiB is less than two 256 KiB bands: nothing to gain.
  const CompileResult small = CompileModel(InvertedResidual(Block{}), WithBand(256));
  ASSERT_TRUE(small.ok) << small.error;
  EXPECT_EQ(small.report.expansions_fused, 0);
}

TEST(FuseExpansion, FloatInferenceOnly) {
  CompileOptions no_fusion = WithBand(16);
  no_fusion.fuse_activations = false;  // as training compiles: every op stays
  const CompileResult r = CompileModel(InvertedResidual(Block{}), no_fusion);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.expansions_fused, 0);
  const CompileResult negative = CompileModel(InvertedResidual(Block{}), WithBand(-1));
  EXPECT_FALSE(negative.ok);
  EXPECT_NE(negative.error.find("expansion band"), std::string::npos) << negative.error;
}

}  // namespace
}  // namespace edgefold::compiler
