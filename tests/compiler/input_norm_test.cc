// --input-mean/--input-std: the compiled model on raw x equals the original model on
// (x − μ)/σ, folded into an unpadded first conv, kept as ChannelAffine before a padded one.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

onnx::ModelProto ConvModel(int64_t pad) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 6, 6})
      .Init("w", {4, 3, 3, 3}, testing::RandomVector(108, 7))
      .Init("b", {4}, {0.1f, -0.2f, 0.3f, 0});
  testing::SetInts(b.Node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {pad, pad, pad, pad});
  b.Node("Relu", {"c"}, {"y"});
  b.Output("y");
  return b.model();
}

void ExpectNormalizationExact(int64_t pad, bool expect_folded) {
  const std::vector<float> mean = {0.4914f, 0.4822f, 0.4465f},
                           std_dev = {0.2470f, 0.2435f, 0.2616f};
  CompileOptions with;
  with.input_mean = mean;
  with.input_std = std_dev;
  const CompileResult norm = CompileModel(ConvModel(pad), with),
                      plain = CompileModel(ConvModel(pad), CompileOptions());
  ASSERT_TRUE(norm.ok) << norm.error;
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(norm.report.input_normalization_folded, expect_folded);
  EXPECT_EQ(testing::OpsOfType(testing::ModelOf(norm.model), fb::OpType::ChannelAffine).size(),
            expect_folded ? 0u : 1u);
  const std::vector<float> raw = testing::RandomVector(108, 8, 0.0f, 1.0f);
  std::vector<float> normalized(raw);
  for (size_t i = 0; i < raw.size(); ++i) normalized[i] = (raw[i] - mean[i / 36]) / std_dev[i / 36];
  const auto got = testing::RunEfb(norm.model, {raw}).at(0),
             want = testing::RunEfb(plain.model, {normalized}).at(0);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << i;
}

TEST(InputNormalization, FoldsIntoUnpaddedConv) { ExpectNormalizationExact(0, true); }
TEST(InputNormalization, KeepsAffineBeforePaddedConvSoBorderStaysExact) {
  ExpectNormalizationExact(1, false);
}

TEST(InputNormalization, WrongChannelCountNamesInput) {
  CompileOptions o;
  o.input_mean = {0.5f, 0.5f};
  const CompileResult r = CompileModel(ConvModel(0), o);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("input 'x'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("--input-mean has 2 values for 3 channels"), std::string::npos) << r.error;
}

// --input-stats-from: σ pooled over every image and pixel. Two images of one channel, each
// constant (per-image σ = 0) but different: the pooled σ is the spread between them.
TEST(InputStatistics, PoolsOverImagesAndPixels) {
  const std::vector<float> x = {1, 1, 1, 1, 3, 3, 3, 3, 0, 2, 0, 2, 10, 12, 10, 12};
  // The first 8 values as [N=2, C=2, S=2]: n0c0 = n0c1 = {1,1}, n1c0 = n1c1 = {3,3}.
  std::vector<float> mean, std_dev;
  std::string error;
  ASSERT_TRUE(InputStatistics(x.data(), 2, 2, 2, &mean, &std_dev, &error)) << error;
  EXPECT_FLOAT_EQ(mean[0], 2.0f);     // {1,1} and {3,3}
  EXPECT_FLOAT_EQ(std_dev[0], 1.0f);  // per-image σ would be 0
  EXPECT_FLOAT_EQ(mean[1], 2.0f);
  EXPECT_FLOAT_EQ(std_dev[1], 1.0f);
  // [N=2, C=1, S=4]: {1,1,1,1,3,3,3,3} then {0,2,0,2,10,12,10,12}.
  ASSERT_TRUE(InputStatistics(x.data(), 2, 1, 8, &mean, &std_dev, &error)) << error;
  double mu = 0, var = 0;
  for (float v : x) mu += v / 16.0;
  for (float v : x) var += (v - mu) * (v - mu) / 16.0;
  EXPECT_NEAR(mean[0], mu, 1e-6);
  EXPECT_NEAR(std_dev[0], std::sqrt(var), 1e-6);
}

TEST(InputStatistics, ConstantChannelOrNaNIsAnErrorNamingTheChannel) {
  std::vector<float> x = {1, 2, 5, 5, 3, 4, 5, 5};  // [N=2, C=2, S=2]: channel 1 constant
  std::vector<float> mean, std_dev;
  std::string error;
  EXPECT_FALSE(InputStatistics(x.data(), 2, 2, 2, &mean, &std_dev, &error));
  EXPECT_NE(error.find("channel 1"), std::string::npos) << error;
  x[0] = std::nanf("");
  EXPECT_FALSE(InputStatistics(x.data(), 2, 2, 2, &mean, &std_dev, &error));
  EXPECT_NE(error.find("channel 0"), std::string::npos) << error;
  EXPECT_NE(error.find("NaN"), std::string::npos) << error;
}

}  // namespace
}  // namespace edgefold::compiler
