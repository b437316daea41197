// ConvTranspose in the compiler: BatchNorm folded into its output channels (weights and bias
// against the formula, the fold report, the numerical verify), activation fusion, attribute
// forms against a direct scatter, and shape errors that name the node.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using ::testing::HasSubstr;
using testing::OnnxBuilder;

using testing::BnParams;
using testing::ReadBn;

// W [cin, cout/g, k, k], x [1, cin, 4, 5], stride 2, pads 1, output_padding 1, group g → BN → Relu.
struct Net {
  int64_t cin, cout, group, k;
  std::vector<float> w, bias;
  OnnxBuilder b;
};

void Build(Net& n, bool relu) {
  n.w = testing::RandomVector(n.cin * (n.cout / n.group) * n.k * n.k, 5);
  n.bias = testing::RandomVector(n.cout, 6);
  n.b.Input("x", {1, n.cin, 4, 5})
      .Init("up.weight", {n.cin, n.cout / n.group, n.k, n.k}, n.w)
      .Init("up.bias", {n.cout}, n.bias);
  auto& up = n.b.Node("ConvTranspose", {"x", "up.weight", "up.bias"}, {"u"}, "up");
  testing::SetInt(up, "group", n.group);
  testing::SetInts(up, "strides", {2, 2});
  testing::SetInts(up, "pads", {1, 1, 1, 1});
  testing::SetInts(up, "output_padding", {1, 1});
  testing::AddBatchNorm(n.b, "bn", "u", relu ? "v" : "y", n.cout, 13);
  if (relu) n.b.Node("Relu", {"v"}, {"y"}, "relu");
  n.b.Output("y");
}

class ConvTransposeFold : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

// Output channel oc = g·(cout/g) + j lives at W[g·(cin/g) + i][j]: W' = W·s[oc], b' = (b − μ)·s + β,
// stored packed as [g][j][ky][kx][i].
TEST_P(ConvTransposeFold, WeightsBiasReportAndVerify) {
  Net n;
  std::tie(n.cin, n.cout, n.group) = GetParam();
  n.k = 3;
  Build(n, /*relu=*/true);
  const CompileResult r = CompileModel(n.b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_found, 1);
  EXPECT_EQ(r.report.batchnorm_folded_backward, 1);
  EXPECT_EQ(r.report.activations_fused, 1);
  EXPECT_TRUE(r.report.verified);
  EXPECT_LE(r.report.verify_max_rel_error, 1e-5);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto ops = testing::OpsOfType(m, fb::OpType::ConvTranspose);
  ASSERT_EQ(ops.size(), 1u);
  const auto* opt = ops[0]->options_as_ConvTransposeOptions();
  EXPECT_EQ(opt->group(), n.group);
  EXPECT_EQ(opt->activation()->kind(), fb::ActivationKind::Relu);
  const auto w2 = testing::ConstData(m, ops[0]->inputs()->Get(1));
  const auto b2 = testing::ConstData(m, ops[0]->inputs()->Get(2));
  const BnParams p = ReadBn(n.b, "bn");
  const int64_t cg = n.cin / n.group, og = n.cout / n.group, taps = n.k * n.k;
  ASSERT_EQ(w2.size(), n.w.size());
  for (int64_t ic = 0; ic < n.cin; ++ic)
    for (int64_t j = 0; j < og; ++j) {
      const int64_t g = ic / cg, oc = g * og + j;
      const double s = p.gamma[oc] / std::sqrt(static_cast<double>(p.var[oc]) + 1e-5);
      for (int64_t t = 0; t < taps; ++t)
        EXPECT_NEAR(w2[((g * og + j) * taps + t) * cg + ic % cg], n.w[(ic * og + j) * taps + t] * s,
                    1e-6)
            << "ic " << ic << " j " << j;
    }
  for (int64_t oc = 0; oc < n.cout; ++oc) {
    const double s = p.gamma[oc] / std::sqrt(static_cast<double>(p.var[oc]) + 1e-5);
    EXPECT_NEAR(b2[oc], (n.bias[oc] - p.mean[oc]) * s + p.beta[oc], 1e-6) << "oc " << oc;
  }
}

INSTANTIATE_TEST_SUITE_P(Groups, ConvTransposeFold,
                         ::testing::Values(std::make_tuple(4, 6, 1), std::make_tuple(6, 9, 3),
                                           std::make_tuple(4, 2, 2), std::make_tuple(5, 5, 5)));

// y = Σ scatter of x through W [cin, cout/g, kh, kw] (double), for the ONNX attribute forms.
std::vector<float> Scatter(const std::vector<float>& x, const std::vector<int64_t>& xs,
                           const std::vector<float>& w, const std::vector<int64_t>& ws,
                           int64_t group, const std::vector<int64_t>& ys, int64_t s, int64_t pt,
                           int64_t pl) {
  const int64_t cg = xs[1] / group, og = ws[1];
  std::vector<double> acc(static_cast<size_t>(ys[1] * ys[2] * ys[3]));
  for (int64_t ic = 0; ic < xs[1]; ++ic)
    for (int64_t j = 0; j < og; ++j)
      for (int64_t iy = 0; iy < xs[2]; ++iy)
        for (int64_t ix = 0; ix < xs[3]; ++ix)
          for (int64_t ky = 0; ky < ws[2]; ++ky)
            for (int64_t kx = 0; kx < ws[3]; ++kx) {
              const int64_t oy = iy * s + ky - pt, ox = ix * s + kx - pl, oc = ic / cg * og + j;
              if (oy < 0 || ox < 0 || oy >= ys[2] || ox >= ys[3]) continue;
              acc[(oc * ys[2] + oy) * ys[3] + ox] +=
                  double(w[((ic * og + j) * ws[2] + ky) * ws[3] + kx]) *
                  x[(ic * xs[2] + iy) * xs[3] + ix];
            }
  return std::vector<float>(acc.begin(), acc.end());
}

struct AttrCase {
  const char* name;
  const char* auto_pad;               // "" = NOTSET
  std::vector<int64_t> output_shape;  // empty = none
  std::vector<int64_t> y;             // expected [N, C, H, W]
  int64_t pt, pl;                     // crops the compiler must derive
};

class ConvTransposeAttrs : public ::testing::TestWithParam<AttrCase> {};

TEST_P(ConvTransposeAttrs, MatchDirectScatter) {
  const AttrCase c = GetParam();
  const std::vector<int64_t> xs = {1, 2, 3, 4}, ws = {2, 3, 3, 3};
  const auto x = testing::RandomVector(24, 3), w = testing::RandomVector(54, 4);
  OnnxBuilder b;
  b.Input("x", xs).Init("w", ws, w);
  auto& n = b.Node("ConvTranspose", {"x", "w"}, {"y"}, c.name);
  testing::SetInts(n, "strides", {2, 2});
  if (*c.auto_pad) testing::SetString(n, "auto_pad", c.auto_pad);
  if (!c.output_shape.empty()) testing::SetInts(n, "output_shape", c.output_shape);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), testing::NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> y = testing::RunEfb(r.model, {x}).at(0);
  EXPECT_LT(testing::MaxRelError(y, Scatter(x, xs, w, ws, 1, c.y, 2, c.pt, c.pl)), 1e-5);
}

// Full output 7×9. SAME: 6×8, total crop 1 per axis, at the end (UPPER) or the start (LOWER).
INSTANTIATE_TEST_SUITE_P(
    Forms, ConvTransposeAttrs,
    ::testing::Values(AttrCase{"plain", "", {}, {1, 3, 7, 9}, 0, 0},
                      AttrCase{"same_upper", "SAME_UPPER", {}, {1, 3, 6, 8}, 0, 0},
                      AttrCase{"same_lower", "SAME_LOWER", {}, {1, 3, 6, 8}, 1, 1},
                      AttrCase{"output_shape", "", {5, 8}, {1, 3, 5, 8}, 1, 0},
                      AttrCase{"valid", "VALID", {}, {1, 3, 7, 9}, 0, 0}),
    [](const ::testing::TestParamInfo<AttrCase>& i) { return std::string(i.param.name); });

// Shape errors are reported with the node's name.
CompileResult CompileBad(const std::vector<int64_t>& ws, int64_t group,
                         const std::vector<int64_t>& y) {
  OnnxBuilder b;
  int64_t elems = 1;
  for (int64_t d : ws) elems *= d;
  b.Input("x", {1, 4, 3, 3}).Init("w", ws, testing::RandomVector(static_cast<size_t>(elems), 2));
  auto& n = b.Node("ConvTranspose", {"x", "w"}, {"y"}, "decoder_up");
  testing::SetInt(n, "group", group);
  b.Output("y", y);
  return CompileModel(b.model(), testing::NoVerify());
}

TEST(ConvTransposeErrors, GroupThatDoesNotDivideInputChannels) {
  const CompileResult r = CompileBad({4, 2, 3, 3}, 3, {1, 6, 5, 5});
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("decoder_up"));
  EXPECT_THAT(r.error, HasSubstr("group"));
}

TEST(ConvTransposeErrors, WeightInputChannelsDifferFromX) {
  const CompileResult r = CompileBad({6, 2, 3, 3}, 1, {1, 2, 5, 5});
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("decoder_up"));
  EXPECT_THAT(r.error, HasSubstr("W [6,2,3,3] must be [Cin, Cout/group, k...] with Cin = 4"));
}

TEST(ConvTransposeErrors, OutputPaddingNotBelowStride) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 3, 3}).Init("w", {2, 2, 3, 3}, testing::RandomVector(36, 2));
  auto& n = b.Node("ConvTranspose", {"x", "w"}, {"y"}, "op_too_big");
  testing::SetInts(n, "output_padding", {1, 1});
  b.Output("y", {1, 2, 6, 6});
  const CompileResult r = CompileModel(b.model(), testing::NoVerify());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("op_too_big"));
  EXPECT_THAT(r.error, HasSubstr("output_padding"));
}

// The golden PyTorch ConvTranspose models (tests/golden/make_golden.py) compile with every
// BatchNorm folded backward and pass the compiler's folded-vs-unfolded verify; their outputs
// against PyTorch are checked by the conformance suite (golden/*).
class GoldenConvTranspose : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenConvTranspose, FoldsEveryBatchNorm) {
  const std::string path = std::string(EDGEFOLD_GOLDEN_DATA_DIR) + "/" + GetParam() + "/model.onnx";
  const CompileResult r = CompileFile(path, CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.report.batchnorm_found, 0);
  EXPECT_EQ(r.report.batchnorm_folded_backward, r.report.batchnorm_found);
  EXPECT_TRUE(r.report.verified);
  EXPECT_EQ(testing::CountOps(r.model, fb::OpType::BatchNorm) +
                testing::CountOps(r.model, fb::OpType::ChannelAffine),
            0u);
  EXPECT_GT(testing::CountOps(r.model, fb::OpType::ConvTranspose), 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenConvTranspose,
                         ::testing::Values("convtranspose2d_bn_relu",
                                           "convtranspose2d_grouped_dilated_bn",
                                           "convtranspose1d_bn", "convtranspose2d_nobias_bn_batch2",
                                           "unet_tiny_decoder", "conv_autoencoder"));

}  // namespace
}  // namespace edgefold::compiler
