// --input-mean/--input-std: the compiled model on raw x equals the original model on
// (x − μ)/σ, folded into an unpadded first conv, kept as ChannelAffine before a padded one.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold_compiler/compiler.h"
#include "onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

onnx::ModelProto ConvModel(int64_t pad) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 6, 6}).Init("w", {4, 3, 3, 3}, testing::RandomValues(108, 7)).Init("b", {4}, {0.1f, -0.2f, 0.3f, 0});
  testing::SetInts(b.Node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {pad, pad, pad, pad});
  b.Node("Relu", {"c"}, {"y"});
  b.Output("y");
  return b.model();
}

void ExpectNormalizationExact(int64_t pad, bool expect_folded) {
  const std::vector<float> mean = {0.4914f, 0.4822f, 0.4465f}, std_dev = {0.2470f, 0.2435f, 0.2616f};
  CompileOptions with;
  with.input_mean = mean;
  with.input_std = std_dev;
  const CompileResult norm = CompileModel(ConvModel(pad), with), plain = CompileModel(ConvModel(pad), CompileOptions());
  ASSERT_TRUE(norm.ok) << norm.error;
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(norm.report.input_normalization_folded, expect_folded);
  EXPECT_EQ(testing::OpsOfType(testing::ModelOf(norm.model), fb::OpType::ChannelAffine).size(), expect_folded ? 0u : 1u);
  const std::vector<float> raw = testing::RandomValues(108, 8, 0.0f, 1.0f);
  std::vector<float> normalized(raw);
  for (size_t i = 0; i < raw.size(); ++i) normalized[i] = (raw[i] - mean[i / 36]) / std_dev[i / 36];
  const auto got = testing::RunEfb(norm.model, {raw}).at(0), want = testing::RunEfb(plain.model, {normalized}).at(0);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << i;
}

TEST(InputNormalization, FoldsIntoUnpaddedConv) { ExpectNormalizationExact(0, true); }
TEST(InputNormalization, KeepsAffineBeforePaddedConvSoBorderStaysExact) { ExpectNormalizationExact(1, false); }

TEST(InputNormalization, WrongChannelCountNamesInput) {
  CompileOptions o;
  o.input_mean = {0.5f, 0.5f};
  const CompileResult r = CompileModel(ConvModel(0), o);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("input 'x'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("--input-mean has 2 values for 3 channels"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace edgefold::compiler
