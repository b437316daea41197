// --quantize-clip mse: MseClip's range judged by the true int8 error of quantizing the values
// (QuantizationMse: the runtime's scale, zero point, rounding and saturation), not by the error
// model MseClip searches with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "quant/mse_clip.h"

namespace edgefold::compiler::quant {
namespace {

struct Observed {
  std::vector<float> values;
  double min = 0, max = 0;
};

template <class Draw>
Observed Draw_(size_t n, unsigned seed, Draw draw) {
  std::mt19937 rng(seed);
  Observed o;
  for (size_t i = 0; i < n; ++i) o.values.push_back(static_cast<float>(draw(rng)));
  const auto [lo, hi] = std::minmax_element(o.values.begin(), o.values.end());
  o.min = *lo;
  o.max = *hi;
  return o;
}

// Heavy tails (Laplace, b = 1): the range shrinks well inside min/max and the true error drops
// (for 8 bits the optimum is near ±10 b where the observed extremes lie near ±12 b).
TEST(MseClip, ClipsLaplaceTailsAndLowersTheTrueError) {
  Observed o = Draw_(200000, 1, [](std::mt19937& r) {
    std::exponential_distribution<double> e(1.0);
    std::bernoulli_distribution sign(0.5);
    return sign(r) ? e(r) : -e(r);
  });
  std::vector<float> values = o.values;
  const ClipRange c = MseClip(values, o.min, o.max);
  EXPECT_LT(c.hi, 0.95 * o.max);
  EXPECT_GT(c.lo, 0.95 * o.min);
  EXPECT_GT(c.hi, 5.0);  // not clipped into the bulk either
  const double full = QuantizationMse(o.values, o.min, o.max),
               clipped = QuantizationMse(o.values, c.lo, c.hi);
  EXPECT_LT(clipped, 0.8 * full) << "min/max " << full << ", mse " << clipped;
  std::printf("Laplace: range [%.2f, %.2f] of [%.2f, %.2f], int8 MSE %.3g (min/max %.3g)\n", c.lo,
              c.hi, o.min, o.max, clipped, full);
}

// Bounded values gain nothing from clipping: the range stays (nearly) whole.
TEST(MseClip, KeepsAUniformRange) {
  Observed o = Draw_(
      100000, 2, [](std::mt19937& r) { return std::uniform_real_distribution<double>(-1, 1)(r); });
  std::vector<float> values = o.values;
  const ClipRange c = MseClip(values, o.min, o.max);
  EXPECT_GE(c.hi, 0.97 * o.max);
  EXPECT_LE(c.lo, 0.97 * o.min);
  EXPECT_LE(QuantizationMse(o.values, c.lo, c.hi), 1.02 * QuantizationMse(o.values, o.min, o.max));
}

// Relu outputs: half exact zeros (exact in int8 whatever the step), the rest a long right tail;
// nothing below 0, so lo stays 0.
TEST(MseClip, ReluOutputsClipOnlyTheTop) {
  Observed o = Draw_(200000, 3, [](std::mt19937& r) {
    const double v = std::exponential_distribution<double>(0.5)(r);
    return std::bernoulli_distribution(0.5)(r) ? v : 0.0;
  });
  std::vector<float> values = o.values;
  const ClipRange c = MseClip(values, o.min, o.max);
  EXPECT_EQ(c.lo, 0.0);
  EXPECT_LT(c.hi, o.max);
  EXPECT_LE(QuantizationMse(o.values, c.lo, c.hi), QuantizationMse(o.values, o.min, o.max));
}

// One value far out among many is kept when clipping it would cost more than the finer step
// saves: the choice minimizes the error over the data, it does not drop outliers by rule.
TEST(MseClip, NeverWorseThanMinMaxOnTheData) {
  for (unsigned seed = 10; seed < 16; ++seed) {
    Observed o = Draw_(50000, seed,
                       [](std::mt19937& r) { return std::normal_distribution<double>(0, 1)(r); });
    o.values[7] = static_cast<float>(seed * 40.0);
    o.max = std::max<double>(o.max, o.values[7]);
    std::vector<float> values = o.values;
    const ClipRange c = MseClip(values, o.min, o.max);
    EXPECT_LE(QuantizationMse(o.values, c.lo, c.hi), 1.05 * QuantizationMse(o.values, o.min, o.max))
        << seed;
  }
}

TEST(MseClip, DegenerateInputs) {
  std::vector<float> none;
  ClipRange c = MseClip(none, -1, 2);
  EXPECT_EQ(c.lo, -1);
  EXPECT_EQ(c.hi, 2);
  std::vector<float> constant(100, 3.0f);
  c = MseClip(constant, 3, 3);
  EXPECT_EQ(c.lo, 3);
  EXPECT_EQ(c.hi, 3);
}

}  // namespace
}  // namespace edgefold::compiler::quant
