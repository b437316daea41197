// GEMM of the scalar table (ref::GemmTiled) and every SIMD table against ref::Gemm: tails in
// m, n, k, strides, bias, accumulate, every fused activation; padding columns of C must stay
// untouched.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

enum class BiasMode { kNone, kPerRow, kPerCol };

struct GemmCase {
  size_t m, n, k;
  size_t pad = 0;  // extra elements per row of A, B and C (lda = k + pad, ...)
  BiasMode bias = BiasMode::kNone;
  bool accumulate = false;
  Activation act;
};

class GemmTest : public KernelTest {
 protected:
  ::testing::AssertionResult Check(const GemmCase& gc) {
    GemmParams p;
    p.m = gc.m, p.n = gc.n, p.k = gc.k;
    p.lda = gc.k + gc.pad, p.ldb = gc.n + gc.pad, p.ldc = gc.n + gc.pad;
    const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 11);
    const std::vector<float> b = RandomVector(p.k * p.ldb, -1, 1, 12);
    const std::vector<float> bias = RandomVector(std::max(p.m, p.n), -2, 2, 13);
    if (gc.bias != BiasMode::kNone) p.bias = bias.data();
    p.bias_per_row = gc.bias == BiasMode::kPerRow;
    p.accumulate = gc.accumulate;
    p.act = gc.act;
    std::vector<float> want = RandomVector(p.m * p.ldc, -1, 1, 14);  // old C (and padding sentinel)
    std::vector<float> got = want;
    ref::Gemm(p, a.data(), b.data(), want.data());
    table().gemm(p, a.data(), b.data(), got.data());
    // Summation order differs only by FMA rounding: error grows with k.
    return AllClose(want, got, 2e-6f * static_cast<float>(gc.k + 1), 1e-5f)
           << " (m=" << gc.m << " n=" << gc.n << " k=" << gc.k << " pad=" << gc.pad << ")";
  }
};

TEST_P(GemmTest, AllShapeTails) {
  const size_t dims[] = {1, 3, 7, 15, 16, 17, 33, 64};
  for (size_t m : dims)
    for (size_t n : dims)
      for (size_t k : dims) ASSERT_TRUE(Check({m, n, k, 0, BiasMode::kPerCol, false, {}}));
}

TEST_P(GemmTest, StridedOperandsLeavePaddingAlone) {
  for (size_t n : {size_t{1}, W() - (W() > 1), W(), W() + 1, 2 * W() + 3})
    for (size_t m : {1, 4, 5, 11}) ASSERT_TRUE(Check({m, n, 9, 3, BiasMode::kPerRow, false, {}}));
}

TEST_P(GemmTest, BiasAccumulateAndEveryActivation) {
  const size_t shapes[][3] = {{7, 33, 17}, {17, 17, 5}, {1, 40, 300}, {13, 1, 29}, {4, 2 * W(), 8}, {5, 3 * W(), 9}};
  for (const auto& mnk : shapes) {
    GemmCase gc{mnk[0], mnk[1], mnk[2], 0, BiasMode::kNone, false, {}};
    for (BiasMode bias : {BiasMode::kNone, BiasMode::kPerRow, BiasMode::kPerCol}) {
      for (bool accumulate : {false, true}) {
        for (const Activation& act : AllActivations()) {
          gc.bias = bias, gc.accumulate = accumulate, gc.act = act;
          ASSERT_TRUE(Check(gc)) << " bias=" << static_cast<int>(bias) << " acc=" << accumulate
                                 << " act=" << static_cast<int>(act.kind);
        }
      }
    }
  }
}

TEST_P(GemmTest, LargeConvShaped) {
  ASSERT_TRUE(Check({64, 196, 288, 0, BiasMode::kPerRow, false, {ActKind::kRelu, 0, 0}}));
  ASSERT_TRUE(Check({131, 97, 61, 1, BiasMode::kPerCol, true, {ActKind::kNone, 0, 0}}));
}

// Across the cache blocks of gemm_simd.h (kGemmNc = 288, kGemmKc = 256): several N and K blocks,
// a column tail below W (packed-tail path) on top, rows not a multiple of the 8-row tile; the
// activation and bias must be applied once, after the last K block only.
TEST_P(GemmTest, AcrossCacheBlocks) {
  const size_t shapes[][3] = {{19, 2 * 256 + W() + 5, 600}, {11, 256 + 3, 257}, {9, 7, 513}, {3, 49, 1000},
                              {13, 3 * 288 + 2 * W() + 7, 300}};   // 8×3 tiles over several N blocks
  for (const auto& mnk : shapes)
    for (BiasMode bias : {BiasMode::kPerRow, BiasMode::kPerCol})
      for (bool accumulate : {false, true}) {
        GemmCase gc{mnk[0], mnk[1], mnk[2], 2, bias, accumulate, {ActKind::kClip, -0.5f, 0.75f}};
        ASSERT_TRUE(Check(gc)) << mnk[0] << "x" << mnk[1] << "x" << mnk[2] << " bias="
                               << static_cast<int>(bias) << " acc=" << accumulate;
      }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(GemmTest);

}  // namespace
}  // namespace edgefold::kernels::testing
