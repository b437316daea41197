// The 16-bit formats of saved activations (training/saved_precision.h): exact bit patterns,
// round to nearest even, subnormals, overflow, NaN, and the error bound of each format.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "training/saved_precision.h"

namespace edgefold::internal {
namespace {

TEST(SavedPrecision, HalfBitPatterns) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);                          // rounds past the largest: inf
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);             // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);             // tie to even: 0
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);             // 1.5 ulp: tie to even 2
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);             // smallest normal
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: even (down)
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: even (up)
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
}

TEST(SavedPrecision, BFloat16BitPatterns) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: even (down)
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: even (up)
  EXPECT_TRUE(
      std::isnan(BFloat16ToFloat(FloatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(BFloat16ToFloat(0x3f80), 1.0f);
}

TEST(SavedPrecision, RoundTripErrorIsHalfAnUlp) {
  for (int i = -4000; i <= 4000; ++i) {
    const float v = static_cast<float>(i) * 0.00173f;  // x̂-like values in [−7, 7]
    const float h = HalfToFloat(FloatToHalf(v)), b = BFloat16ToFloat(FloatToBFloat16(v));
    if (std::fabs(v) >= std::ldexp(1.0f, -14))
      EXPECT_LE(std::fabs(h - v), std::fabs(v) * std::ldexp(1.0f, -11)) << v;
    else
      EXPECT_LE(std::fabs(h - v), std::ldexp(1.0f, -25)) << v;
    EXPECT_LE(std::fabs(b - v), std::fabs(v) * std::ldexp(1.0f, -8)) << v;
  }
}

// A ReLU after the BatchNorm switches at z = γ·x̂ + β = 0, i.e. x̂ = t = −β/γ. Values of x̂ just
// above t whose nearest 16-bit neighbour lies below t are stored one step up instead: on t's
// right side, still within one unit of x̂; values whose rounding keeps the side are unchanged.
TEST(SavedPrecision, NarrowingKeepsTheReluMaskOfEveryValue) {
  const auto relu_side = [](float a, float b) { return (a > 0.0f) == (b > 0.0f); };
  for (SavedPrecision p : {SavedPrecision::kFloat16, SavedPrecision::kBFloat16}) {
    const float gamma = 1.0f;
    int moved = 0;
    for (int i = -2000; i <= 2000; ++i) {
      const float beta = -1.0f - static_cast<float>(i) * 1e-4f;  // threshold t = −β
      for (float d : {1e-6f, 1e-5f, 1e-4f, -1e-6f, -1e-5f, -1e-4f}) {
        const float xhat = -beta + d;
        const float z = gamma * xhat + beta;
        const uint16_t h = NarrowKeepingSide(p, xhat, gamma, beta, relu_side);
        const float stored = Widen1(p, h);
        EXPECT_EQ(z > 0.0f, gamma * stored + beta > 0.0f) << "x̂ " << xhat << " β " << beta;
        const float ulp =
            p == SavedPrecision::kFloat16 ? std::ldexp(1.0f, -10) : std::ldexp(1.0f, -7);
        EXPECT_LE(std::fabs(stored - xhat), ulp * std::fabs(xhat) + 1e-30f) << "x̂ " << xhat;
        moved += h != Narrow1(p, xhat);
      }
    }
    EXPECT_GT(moved, 0) << "no value needed a step: the test does not reach the case";
    // Away from the breakpoint nothing changes.
    EXPECT_EQ(NarrowKeepingSide(p, 0.3f, 1.0f, 2.0f, relu_side), Narrow1(p, 0.3f));
  }
}

}  // namespace
}  // namespace edgefold::internal
