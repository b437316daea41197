// channel_affine, batchnorm_inference, activation, prelu and binary of every SIMD table
// against the reference at sizes around the register width.
#include <cmath>
#include <limits>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

using ElementwiseTest = KernelTest;

TEST_P(ElementwiseTest, ActivationEveryKindAndSize) {
  for (size_t n : AwkwardSizes()) {
    const std::vector<float> x = RandomVector(n, -4, 4);
    for (const Activation& act : AllActivations()) {
      std::vector<float> want(n), got(n);
      ref::ActivationKernel(x.data(), want.data(), n, act);
      table().activation(x.data(), got.data(), n, act);
      ASSERT_TRUE(AllClose(want, got)) << "n=" << n << " act=" << static_cast<int>(act.kind);
      got = x;  // in place
      table().activation(got.data(), got.data(), n, act);
      ASSERT_TRUE(AllClose(want, got)) << "in place, n=" << n;
    }
  }
}

// Sigmoid far into saturation (|x| up to 120: exp's argument is clamped in the SIMD path to keep
// it out of the subnormal range), exactly 0/1 where float saturates, and NaN kept NaN.
TEST_P(ElementwiseTest, SigmoidSaturatesAndKeepsNan) {
  std::vector<float> x = RandomVector(67, -120, 120);
  x[3] = 87.5f, x[4] = 100.0f, x[5] = -100.0f, x[6] = 17.0f;
  const Activation sigmoid{ActKind::kSigmoid, 0, 0};
  std::vector<float> want(x.size()), got(x.size());
  ref::ActivationKernel(x.data(), want.data(), x.size(), sigmoid);
  table().activation(x.data(), got.data(), x.size(), sigmoid);
  ASSERT_TRUE(AllClose(want, got));
  EXPECT_EQ(got[4], 1.0f);
  EXPECT_EQ(got[3], 1.0f);
  x[0] = std::numeric_limits<float>::quiet_NaN();
  table().activation(x.data(), got.data(), x.size(), sigmoid);
  EXPECT_TRUE(std::isnan(got[0]));
}

// SiLU x/(1+e^−x) shares Sigmoid's clamp (e^−x kept in [e^−87, e^87]): exactly x far right,
// within 1e−35 of 0 far left (the reference's e^−x overflows to inf there and gives −0), NaN
// kept, and −inf → NaN (−inf/inf) as in the reference.
TEST_P(ElementwiseTest, SiluSaturatesAndKeepsNan) {
  std::vector<float> x = RandomVector(67, -120, 120);
  x[3] = 87.5f, x[4] = 100.0f, x[5] = -100.0f, x[6] = 17.0f, x[7] = -85.0f;
  x[8] = std::numeric_limits<float>::infinity(), x[9] = -x[8];
  x[0] = std::numeric_limits<float>::quiet_NaN();
  const Activation silu{ActKind::kSiLU, 0, 0};
  std::vector<float> want(x.size()), got(x.size());
  ref::ActivationKernel(x.data(), want.data(), x.size(), silu);
  table().activation(x.data(), got.data(), x.size(), silu);
  ASSERT_TRUE(AllClose(want, got));
  EXPECT_EQ(got[4], 100.0f);
  EXPECT_EQ(got[3], 87.5f);
  EXPECT_LT(std::fabs(got[5]), 1e-35f);
  EXPECT_EQ(got[8], x[8]);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[9]));
}

TEST_P(ElementwiseTest, ChannelAffineAndBatchnorm) {
  for (size_t channels : {size_t{1}, size_t{3}, size_t{17}, 2 * W() + 1}) {
    for (size_t spatial : {size_t{1}, W(), W() + 1, size_t{13}, size_t{49}}) {
      const size_t n = channels * spatial;
      const std::vector<float> x = RandomVector(n, -4, 4), scale = RandomVector(channels, -2, 2, 3),
                               shift = RandomVector(channels, -1, 1, 4),
                               var = RandomVector(channels, 0.1f, 2, 5);
      for (const Activation& act : AllActivations()) {
        std::vector<float> want(n), got(n);
        ref::ChannelAffine(x.data(), scale.data(), shift.data(), want.data(), channels, spatial,
                           act);
        table().channel_affine(x.data(), scale.data(), shift.data(), got.data(), channels, spatial,
                               act);
        ASSERT_TRUE(AllClose(want, got)) << "affine c=" << channels << " s=" << spatial;
        ref::BatchnormInference(x.data(), scale.data(), shift.data(), x.data(), var.data(), 1e-5f,
                                want.data(), channels, spatial, act);
        table().batchnorm_inference(x.data(), scale.data(), shift.data(), x.data(), var.data(),
                                    1e-5f, got.data(), channels, spatial, act);
        ASSERT_TRUE(AllClose(want, got, 1e-5f)) << "bn c=" << channels << " s=" << spatial;
      }
    }
  }
}

TEST_P(ElementwiseTest, PreluPerChannelAndShared) {
  for (size_t channels : {size_t{1}, size_t{5}, W() + 1}) {
    for (size_t spatial : {size_t{1}, W() + 1, size_t{13}, size_t{204}}) {
      const size_t n = channels * spatial;
      const std::vector<float> x = RandomVector(n), slope = RandomVector(channels, 0, 0.5f, 9);
      for (bool per_channel : {true, false}) {
        std::vector<float> want(n), got(n);
        ref::Prelu(x.data(), slope.data(), want.data(), channels, spatial, per_channel);
        table().prelu(x.data(), slope.data(), got.data(), channels, spatial, per_channel);
        ASSERT_TRUE(AllClose(want, got, 0, 0))
            << "c=" << channels << " s=" << spatial << " pc=" << per_channel;
      }
    }
  }
}

TEST_P(ElementwiseTest, BinaryEveryKindModeAndAlias) {
  const BinaryKind kinds[] = {BinaryKind::kAdd, BinaryKind::kSub, BinaryKind::kMul,
                              BinaryKind::kDiv, BinaryKind::kMin, BinaryKind::kMax};
  const BroadcastMode modes[] = {BroadcastMode::kElementwise, BroadcastMode::kScalarB,
                                 BroadcastMode::kScalarA};
  const Activation acts[] = {{ActKind::kNone, 0, 0},
                             {ActKind::kRelu, 0, 0},
                             {ActKind::kSigmoid, 0, 0},
                             {ActKind::kSiLU, 0, 0}};
  for (size_t n : AwkwardSizes()) {
    const std::vector<float> a = RandomVector(n, 0.5f, 2, 21), b = RandomVector(n, -2, -0.5f, 22);
    for (BinaryKind kind : kinds) {
      for (BroadcastMode mode : modes) {
        for (const Activation& act : acts) {
          std::vector<float> want(n), got(n);
          ref::Binary(kind, mode, a.data(), b.data(), want.data(), n, act);
          table().binary(kind, mode, a.data(), b.data(), got.data(), n, act);
          ASSERT_TRUE(AllClose(want, got))
              << "n=" << n << " kind=" << int(kind) << " mode=" << int(mode);
          std::vector<float> y = a;  // y aliases a
          table().binary(kind, mode, y.data(), b.data(), y.data(), n, act);
          if (mode != BroadcastMode::kScalarA) {
            ASSERT_TRUE(AllClose(want, y)) << "alias a, n=" << n;
          }
        }
      }
    }
  }
}

EDGEFOLD_INSTANTIATE_SIMD(ElementwiseTest);

}  // namespace
}  // namespace edgefold::kernels::testing
