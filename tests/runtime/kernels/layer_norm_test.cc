// layer_norm of every SIMD table against the reference (double sums), on rows of awkward
// lengths, with and without bias, with a large common offset (the centred second pass keeps
// the variance), and the reference against a hand value.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

class LayerNormTest : public KernelTest {};

TEST(LayerNormReference, HandValue) {
  const float x[4] = {1, 2, 3, 4}, scale[4] = {1, 1, 2, 2}, bias[4] = {0, 0, 1, 1};
  float y[4], mean, inv;
  ref::LayerNorm(x, scale, bias, 0.0f, y, &mean, &inv, 1, 4);
  const float s = 1.0f / std::sqrt(1.25f);  // var of {1,2,3,4} = 1.25
  EXPECT_NEAR(mean, 2.5f, 1e-6f);
  EXPECT_NEAR(inv, s, 1e-6f);
  EXPECT_NEAR(y[0], -1.5f * s, 1e-6f);
  EXPECT_NEAR(y[3], 1.5f * s * 2 + 1, 1e-6f);
}

TEST_P(LayerNormTest, MatchesReference) {
  for (size_t cols : AwkwardSizes())
    for (size_t rows : {size_t{1}, size_t{3}})
      for (bool with_bias : {false, true}) {
        std::vector<float> x = RandomVector(rows * cols, -2, 2, 31);
        for (float& v : x) v += 100.0f;
        const std::vector<float> scale = RandomVector(cols, 0.5f, 1.5f, 32),
                                 bias = RandomVector(cols, -1, 1, 33);
        std::vector<float> want(x.size()), got(x.size(), -7.0f);
        ref::LayerNorm(x.data(), scale.data(), with_bias ? bias.data() : nullptr, 1e-5f,
                       want.data(), nullptr, nullptr, rows, cols);
        sequence().layer_norm(x.data(), scale.data(), with_bias ? bias.data() : nullptr, 1e-5f,
                              got.data(), nullptr, nullptr, rows, cols);
        EXPECT_TRUE(AllClose(want, got, 1e-4f, 1e-4f))
            << rows << "x" << cols << (with_bias ? " bias" : "");
      }
}

EDGEFOLD_INSTANTIATE_SIMD(LayerNormTest);

}  // namespace
}  // namespace edgefold::kernels::testing
