// reduce of every SIMD table against the reference (sums in double): contiguous rows
// (inner = 1) and columns (inner > 1) at lengths around the vector width; the empty
// reduction's identities; NaN through Max; the reference against hand values.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

using ReduceTest = KernelTest;

constexpr ReduceKind kKinds[] = {ReduceKind::kMean, ReduceKind::kSum, ReduceKind::kMax,
                                 ReduceKind::kSumSquare};

TEST(ReduceReference, HandValues) {
  // x [2, 3, 2]: reduce the middle axis.
  const float x[12] = {1, -2, 3, 4, 5, -6, /**/ 0, 1, 2, 3, -4, 5};
  float y[4];
  ref::Reduce(ReduceKind::kSum, x, y, 2, 3, 2);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{9, -4, -2, 9}));
  ref::Reduce(ReduceKind::kMean, x, y, 2, 3, 2);
  EXPECT_FLOAT_EQ(y[0], 3.0f);
  EXPECT_FLOAT_EQ(y[3], 3.0f);
  ref::Reduce(ReduceKind::kMax, x, y, 2, 3, 2);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{5, 4, 2, 5}));
  ref::Reduce(ReduceKind::kSumSquare, x, y, 2, 3, 2);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{35, 56, 20, 35}));
}

TEST_P(ReduceTest, RowsAndColumnsMatchReference) {
  for (ReduceKind kind : kKinds)
    for (size_t len : AwkwardSizes())
      for (size_t inner : {size_t{1}, size_t{3}, W() - (W() > 1), W(), W() + 1, size_t{17}}) {
        if (len * inner > 40000) continue;
        const size_t outer = 2, n = outer * len * inner;
        const std::vector<float> x = RandomVector(n, -2, 2, 41);
        std::vector<float> want(outer * inner), got(outer * inner, -7.0f);
        ref::Reduce(kind, x.data(), want.data(), outer, len, inner);
        sequence().reduce(kind, x.data(), got.data(), outer, len, inner);
        // float sums of len terms of up to 4 against double ones
        const float atol = 1e-6f * static_cast<float>(len) * 4.0f;
        ASSERT_TRUE(AllClose(want, got, atol, 1e-5f))
            << "kind " << static_cast<int>(kind) << " len " << len << " inner " << inner;
      }
}

TEST_P(ReduceTest, EmptyReductionGivesIdentity) {
  for (size_t inner : {size_t{1}, W() + 1}) {
    std::vector<float> y(inner, 5.0f);
    sequence().reduce(ReduceKind::kSum, nullptr, y.data(), 1, 0, inner);
    EXPECT_EQ(y[0], 0.0f);
    sequence().reduce(ReduceKind::kMax, nullptr, y.data(), 1, 0, inner);
    EXPECT_EQ(y[inner - 1], -INFINITY);
    sequence().reduce(ReduceKind::kMean, nullptr, y.data(), 1, 0, inner);
    EXPECT_TRUE(std::isnan(y[0]));
  }
}

TEST_P(ReduceTest, MaxPropagatesNan) {
  for (size_t len : {W(), 4 * W() + 3}) {
    for (size_t inner : {size_t{1}, W() + 1}) {
      std::vector<float> x = RandomVector(len * inner, -2, 2, 43);
      x[(len / 2) * inner + inner - 1] = NAN;
      std::vector<float> y(inner);
      sequence().reduce(ReduceKind::kMax, x.data(), y.data(), 1, len, inner);
      EXPECT_TRUE(std::isnan(y[inner - 1])) << len << " " << inner;
      if (inner > 1) {
        EXPECT_FALSE(std::isnan(y[0]));
      }
    }
  }
}

EDGEFOLD_INSTANTIATE_SIMD(ReduceTest);

}  // namespace
}  // namespace edgefold::kernels::testing
