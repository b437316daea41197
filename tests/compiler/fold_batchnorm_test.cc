// BN folding math checked against a direct double-precision computation.
#include <cmath>

#include <gtest/gtest.h>

#include "base/fold_batchnorm.h"
#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::NoVerify;
using testing::OnnxBuilder;

using testing::BnParams;
using testing::ReadBn;

struct ConvCase {
  int64_t cin, cout, group;
  bool bias;
};

class ConvFold : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvFold, WeightsAndBiasMatchFormula) {
  const ConvCase c = GetParam();
  OnnxBuilder b;
  const int64_t k = 3;
  const auto w = testing::RandomVector(c.cout * (c.cin / c.group) * k * k, 7);
  const auto bias = testing::RandomVector(c.cout, 8);
  b.Input("x", {1, c.cin, 6, 5}).Init("conv.weight", {c.cout, c.cin / c.group, k, k}, w);
  if (c.bias) b.Init("conv.bias", {c.cout}, bias);
  auto& conv = b.Node("Conv", {"x", "conv.weight", c.bias ? "conv.bias" : ""}, {"c"}, "conv");
  testing::SetInt(conv, "group", c.group);
  testing::SetInts(conv, "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn", "c", "y", c.cout, 11);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_found, 1);
  EXPECT_EQ(r.report.batchnorm_folded_backward, 1);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto convs = testing::OpsOfType(m, fb::OpType::Conv);
  ASSERT_EQ(convs.size(), 1u);
  EXPECT_EQ(convs[0]->options_as_ConvOptions()->group(), c.group);
  const auto w2 = testing::ConstData(m, convs[0]->inputs()->Get(1));
  const auto b2 = testing::ConstData(m, convs[0]->inputs()->Get(2));
  const BnParams p = ReadBn(b, "bn");
  const size_t per_out = w.size() / c.cout;
  for (int64_t o = 0; o < c.cout; ++o) {
    const double s = p.gamma[o] / std::sqrt(static_cast<double>(p.var[o]) + 1e-5);
    for (size_t i = 0; i < per_out; ++i)
      EXPECT_NEAR(w2[o * per_out + i], w[o * per_out + i] * s, 1e-6) << "o=" << o << " i=" << i;
    const double b0 = c.bias ? bias[o] : 0.0;
    EXPECT_NEAR(b2[o], (b0 - p.mean[o]) * s + p.beta[o], 1e-6) << "o=" << o;
  }
}

INSTANTIATE_TEST_SUITE_P(Groups, ConvFold,
                         ::testing::Values(ConvCase{4, 6, 1, true}, ConvCase{4, 6, 1, false},
                                           ConvCase{4, 6, 2, true}, ConvCase{4, 4, 2, false},
                                           ConvCase{5, 5, 5, true}, ConvCase{8, 8, 8, false}));

// Y = BN(X·W + C) for Gemm transB 0/1 and MatMul: W'[k,n] = W[k,n]·s[n].
void CheckFcFold(bool matmul, int trans_b) {
  const int64_t kk = 5, nn = 7;
  const auto w = testing::RandomVector(kk * nn, 3);
  const auto cvec = testing::RandomVector(nn, 4);
  OnnxBuilder b;
  b.Input("x", {2, kk})
      .Init("fc.weight", trans_b ? std::vector<int64_t>{nn, kk} : std::vector<int64_t>{kk, nn}, w);
  if (matmul) {
    b.Node("MatMul", {"x", "fc.weight"}, {"h"}, "fc");
  } else {
    b.Init("fc.bias", {nn}, cvec);
    auto& g = b.Node("Gemm", {"x", "fc.weight", "fc.bias"}, {"h"}, "fc");
    testing::SetInt(g, "transB", trans_b);
    testing::SetFloat(g, "alpha", 0.5f);
    testing::SetFloat(g, "beta", 2.0f);
  }
  testing::AddBatchNorm(b, "bn", "h", "y", nn, 21);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_folded_backward, 1);
  const fb::Model* m = testing::ModelOf(r.model);
  const auto gemms = testing::OpsOfType(m, fb::OpType::Gemm);
  ASSERT_EQ(gemms.size(), 1u);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto w2 = testing::ConstData(m, gemms[0]->inputs()->Get(1));
  const auto b2 = testing::ConstData(m, gemms[0]->inputs()->Get(2));
  const BnParams p = ReadBn(b, "bn");
  const double alpha = matmul ? 1.0 : 0.5, beta = matmul ? 0.0 : 2.0;
  for (int64_t n = 0; n < nn; ++n) {
    const double s = p.gamma[n] / std::sqrt(static_cast<double>(p.var[n]) + 1e-5);
    for (int64_t k = 0; k < kk; ++k) {
      const double wkn = trans_b ? w[n * kk + k] : w[k * nn + n];
      EXPECT_NEAR(w2[k * nn + n], alpha * wkn * s, 1e-6) << "k=" << k << " n=" << n;
    }
    EXPECT_NEAR(b2[n], (beta * cvec[n] - p.mean[n]) * s + p.beta[n], 1e-6);
  }
}

TEST(FcFold, GemmTransB0) { CheckFcFold(false, 0); }
TEST(FcFold, GemmTransB1) { CheckFcFold(false, 1); }
TEST(FcFold, MatMul) { CheckFcFold(true, 0); }

TEST(BnFallback, BnOnGraphInputBecomesChannelAffine) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 4, 4});
  testing::AddBatchNorm(b, "bn", "x", "y", 3, 5);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_kept_affine, 1);
  const fb::Model* m = testing::ModelOf(r.model);
  const auto ops = testing::OpsOfType(m, fb::OpType::ChannelAffine);
  ASSERT_EQ(ops.size(), 1u);
  const auto scale = testing::ConstData(m, ops[0]->inputs()->Get(1));
  const auto shift = testing::ConstData(m, ops[0]->inputs()->Get(2));
  const BnParams p = ReadBn(b, "bn");
  for (int c = 0; c < 3; ++c) {
    const double s = p.gamma[c] / std::sqrt(static_cast<double>(p.var[c]) + 1e-5);
    EXPECT_NEAR(scale[c], s, 1e-6);
    EXPECT_NEAR(shift[c], p.beta[c] - p.mean[c] * s, 1e-6);
  }
}

TEST(BnFallback, ConvWithTwoConsumersKeepsBnAsAffine) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 4, 4}).Init("w", {3, 2, 1, 1}, testing::RandomVector(6, 1));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  testing::AddBatchNorm(b, "bn", "c", "y", 3, 9);
  b.Node("Relu", {"c"}, {"z"}, "relu_side");
  b.Output("y").Output("z");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_folded_backward, 0);
  EXPECT_EQ(r.report.batchnorm_kept_affine, 1);
  EXPECT_EQ(testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::ChannelAffine).size(), 1u);
}

TEST(BnNoFold, KeepsBatchNormOp) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 4, 4}).Init("w", {3, 2, 1, 1}, testing::RandomVector(6, 1));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  testing::AddBatchNorm(b, "bn", "c", "y", 3, 9);
  b.Output("y");
  CompileOptions o;
  o.fold_batchnorm = false;
  const CompileResult r = CompileModel(b.model(), o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_folded_backward, 0);
  EXPECT_EQ(r.report.batchnorm_kept_affine, 1);
  const fb::Model* m = testing::ModelOf(r.model);
  const auto bns = testing::OpsOfType(m, fb::OpType::BatchNorm);
  ASSERT_EQ(bns.size(), 1u);
  EXPECT_EQ(bns[0]->inputs()->size(), 5u);
  EXPECT_STREQ(bns[0]->name()->c_str(), "bn");
  EXPECT_NEAR(bns[0]->options_as_BatchNormOptions()->epsilon(), 1e-5f, 1e-9f);
}

// Runtime output of the folded model vs Conv(groups=2, bias) + BN computed directly.
TEST(ConvFoldEndToEnd, MatchesDirectComputation) {
  const int64_t cin = 4, cout = 6, g = 2, h = 5, wd = 5, k = 3;
  OnnxBuilder b;
  const auto w = testing::RandomVector(cout * (cin / g) * k * k, 31);
  const auto bias = testing::RandomVector(cout, 32);
  b.Input("x", {1, cin, h, wd}).Init("w", {cout, cin / g, k, k}, w).Init("b", {cout}, bias);
  auto& conv = b.Node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  testing::SetInt(conv, "group", g);
  testing::AddBatchNorm(b, "bn", "c", "y", cout, 33);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const auto x = testing::RandomVector(cin * h * wd, 34);
  const auto y = testing::RunEfb(r.model, {x}).at(0);
  const BnParams p = ReadBn(b, "bn");
  const int64_t oh = h - k + 1, ow = wd - k + 1, cpg = cin / g, opg = cout / g;
  ASSERT_EQ(y.size(), static_cast<size_t>(cout * oh * ow));
  double max_err = 0;
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = bias[o];
        for (int64_t ci = 0; ci < cpg; ++ci)
          for (int64_t u = 0; u < k; ++u)
            for (int64_t v = 0; v < k; ++v)
              acc += w[((o * cpg + ci) * k + u) * k + v] *
                     x[((o / opg * cpg + ci) * h + i + u) * wd + j + v];
        const double expect =
            (acc - p.mean[o]) / std::sqrt(p.var[o] + 1e-5) * p.gamma[o] + p.beta[o];
        max_err = std::max(max_err, std::fabs(expect - y[(o * oh + i) * ow + j]));
      }
  EXPECT_LT(max_err, 1e-5);
}

// The shared fold (base/fold_batchnorm.h, used by this pass, the trainer's refold and both
// adaptations) against BatchNorm itself: x·s + shift and W'·x + b' equal γ(z − μ)/√(σ²+ε) + β
// with z = x, z = W·x + b, in float and in double.
template <class T>
void CheckSharedFold(double tol) {
  const T gamma = T(-1.25), beta = T(0.5), mean = T(3.0), var = T(0.36), eps = T(1e-3);
  const internal::BnScaleShift<T> f = internal::FoldBatchNorm<T>(gamma, beta, mean, var, eps);
  const T w = T(0.75), b = T(-0.2);
  const T w_folded = w * f.scale, b_folded = internal::FoldedBias<T>(b, beta, mean, f.scale);
  for (double x : {-4.0, 0.0, 2.5, 3.0, 10.0}) {
    const double bn_of_x =
        double(gamma) * (x - double(mean)) / std::sqrt(double(var) + double(eps)) + double(beta);
    EXPECT_NEAR(double(T(x) * f.scale + f.shift), bn_of_x, tol) << "x = " << x;
    const double z = double(w) * x + double(b);
    const double bn_of_z =
        double(gamma) * (z - double(mean)) / std::sqrt(double(var) + double(eps)) + double(beta);
    EXPECT_NEAR(double(w_folded * T(x) + b_folded), bn_of_z, tol) << "x = " << x;
  }
}

TEST(SharedFold, FloatAndDoubleEqualBatchNorm) {
  CheckSharedFold<float>(1e-5);
  CheckSharedFold<double>(1e-12);
}

}  // namespace
}  // namespace edgefold::compiler
