// softmax of every SIMD table: contiguous rows (inner == 1) and strided columns (inner > 1),
// compared with the reference; every softmax sums to 1, large logits do not overflow.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

using SoftmaxTest = KernelTest;

void ExpectSumsToOne(const std::vector<float>& y, size_t outer, size_t axis_len, size_t inner) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (size_t a = 0; a < axis_len; ++a) sum += y[(o * axis_len + a) * inner + i];
      ASSERT_NEAR(sum, 1.0, 1e-5) << "o=" << o << " i=" << i;
    }
  }
}

TEST_P(SoftmaxTest, RowsAndColumnsMatchReference) {
  for (size_t axis_len : {size_t{1}, W() - (W() > 1), W(), W() + 1, size_t{13}, size_t{1000}}) {
    for (size_t inner : {size_t{1}, size_t{3}, W(), W() + 1, size_t{17}}) {
      const size_t outer = 3, n = outer * axis_len * inner;
      const std::vector<float> x = RandomVector(n, -8, 8);
      std::vector<float> want(n), got(n);
      ref::Softmax(x.data(), want.data(), outer, axis_len, inner);
      table().softmax(x.data(), got.data(), outer, axis_len, inner);
      ASSERT_TRUE(AllClose(want, got, 1e-7f, 2e-5f)) << "axis " << axis_len << " inner " << inner;
      ExpectSumsToOne(got, outer, axis_len, inner);
    }
  }
}

TEST_P(SoftmaxTest, LargeLogitsStayFinite) {
  const size_t axis_len = 2 * W() + 3;
  std::vector<float> x(axis_len);
  for (size_t a = 0; a < axis_len; ++a)
    x[a] = 500.0f + static_cast<float>(a);  // e^500 overflows float
  std::vector<float> want(axis_len), got(axis_len);
  ref::Softmax(x.data(), want.data(), 1, axis_len, 1);
  table().softmax(x.data(), got.data(), 1, axis_len, 1);
  ASSERT_TRUE(AllClose(want, got, 1e-7f, 2e-5f));
  ExpectSumsToOne(got, 1, axis_len, 1);
  EXPECT_GT(got.back(), got.front());
}

EDGEFOLD_INSTANTIATE_SIMD(SoftmaxTest);

}  // namespace
}  // namespace edgefold::kernels::testing
