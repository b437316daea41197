// The reference kernels against values computed by hand (the oracle needs its own check).
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

TEST(ReferenceKernels, Gemm2x2ByHand) {
  // [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50]
  const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
  GemmParams p;
  p.m = p.n = p.k = p.lda = p.ldb = p.ldc = 2;
  std::vector<float> c(4, -1.0f);
  ref::Gemm(p, a, b, c.data());
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
  // accumulate onto C, bias per row {1, −100}, relu: [19+19+1, 22+22+1; max(0, 86−100), 0]
  const float bias[] = {1, -100};
  p.bias = bias, p.bias_per_row = true, p.accumulate = true, p.act = {ActKind::kRelu, 0, 0};
  ref::Gemm(p, a, b, c.data());
  EXPECT_EQ(c, (std::vector<float>{39, 45, 0, 0}));
}

// ref::StridedCopy merges dims that are one run in both source and destination and drops
// extent-1 dims: every element still lands where an element-by-element odometer puts it,
// accumulating copies (dst step 0: a broadcast's gradient) sum in the same order.
TEST(ReferenceKernels, StridedCopyMatchesAnOdometer) {
  struct Case {
    std::vector<size_t> dims;
    std::vector<ptrdiff_t> src, dst;
    bool accumulate;
  };
  const std::vector<Case> cases = {
      {{1, 5, 2, 3, 4}, {120, 12, 60, 4, 1}, {120, 24, 12, 4, 1}, false},  // channel shuffle
      {{2, 3, 4}, {12, 4, 1}, {12, 4, 1}, false},                          // all one run
      {{3, 1, 4}, {1, 7, 3}, {4, 4, 1}, false},   // transposed, a 1 between
      {{2, 3, 4}, {0, 4, 1}, {12, 4, 1}, false},  // broadcast read
      {{2, 3, 4}, {12, 4, 1}, {0, 4, 1}, true},   // summed over dim 0
      {{4, 2, 3}, {6, 3, 1}, {0, 0, 1}, true},    // summed over two dims
      {{1, 1}, {5, 3}, {2, 1}, false},            // one element
      {{3, 0, 2}, {2, 2, 1}, {2, 2, 1}, false},   // no element
  };
  for (const Case& c : cases) {
    StridedCopyParams p;
    p.rank = static_cast<int>(c.dims.size());
    p.accumulate = c.accumulate;
    size_t total = 1;
    for (int d = 0; d < p.rank; ++d)
      p.dims[d] = c.dims[d], p.src_step[d] = c.src[d], p.dst_step[d] = c.dst[d], total *= c.dims[d];
    std::vector<float> src(256), want(256), got(256);
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = 0.5f + static_cast<float>(i) * 1.25f, want[i] = got[i] = -static_cast<float>(i);
    for (size_t e = 0; e < total; ++e) {  // the odometer: element e's index per dim, last fastest
      ptrdiff_t s = 0, t = 0;
      size_t rest = e;
      for (int d = p.rank - 1; d >= 0; --d) {
        const auto i = static_cast<ptrdiff_t>(rest % p.dims[d]);
        rest /= p.dims[d];
        s += i * p.src_step[d], t += i * p.dst_step[d];
      }
      want[t] = p.accumulate ? want[t] + src[s] : src[s];
    }
    ref::StridedCopy(p, src.data(), got.data());
    EXPECT_EQ(got, want) << "case with " << p.rank << " dims, first " << c.dims[0];
  }
}

TEST(ReferenceKernels, Depthwise3x3PaddedByHand) {
  // x = 1..9 (3×3), w = all ones, pad 1: each output is the sum of its 3×3 neighbourhood.
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, bias[] = {0.5f};
  Conv2dShape s;
  s.in_c = s.out_c = s.group = 1;
  s.in_h = s.in_w = s.out_h = s.out_w = 3;
  s.kh = s.kw = 3, s.pad_top = s.pad_left = 1;
  std::vector<float> y(9);
  ref::Conv2dDepthwise(s, x, w, bias, {}, y.data());
  EXPECT_EQ(y, (std::vector<float>{12.5f, 21.5f, 16.5f, 27.5f, 45.5f, 33.5f, 24.5f, 39.5f, 28.5f}));
}

TEST(ReferenceKernels, Im2colByHand) {
  // 1 channel 3×3 = 1..9, 2×2 kernel, stride 1: col rows are the 4 taps over the 2×2 outputs.
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  Conv2dShape s;
  s.in_c = s.out_c = 1, s.in_h = s.in_w = 3, s.kh = s.kw = 2, s.out_h = s.out_w = 2;
  std::vector<float> col(16);
  ref::Im2col(s, x, col.data());
  EXPECT_EQ(col, (std::vector<float>{1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
  s.pad_top = s.pad_left = 1,
  s.stride_h = s.stride_w = 2;  // taps over outputs at (−1,−1),(−1,1),(1,−1),(1,1)
  ref::Im2col(s, x, col.data());
  EXPECT_EQ(col, (std::vector<float>{0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9}));
}

TEST(ReferenceKernels, PoolingByHand) {
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Pool2dParams p;
  p.in_h = p.in_w = 4, p.out_h = p.out_w = 2, p.kh = p.kw = p.stride_h = p.stride_w = 2;
  std::vector<float> y(4);
  ref::Pool2d(p, x, y.data(), 1);
  EXPECT_EQ(y, (std::vector<float>{6, 8, 14, 16}));
  p.kind = PoolKind::kAverage;
  ref::Pool2d(p, x, y.data(), 1);
  EXPECT_EQ(y, (std::vector<float>{3.5f, 5.5f, 11.5f, 13.5f}));
  // 3×3 average with pad 1 at the corner: (1+2+5+6)/4, or /9 with count_include_pad.
  p.kh = p.kw = 3, p.pad_top = p.pad_left = 1, p.out_h = p.out_w = 1;
  ref::Pool2d(p, x, y.data(), 1);
  EXPECT_FLOAT_EQ(y[0], 14.0f / 4);
  p.count_include_pad = true;
  ref::Pool2d(p, x, y.data(), 1);
  EXPECT_FLOAT_EQ(y[0], 14.0f / 9);
  float gp[2];
  ref::GlobalPool(PoolKind::kAverage, x, gp, 2, 8);
  EXPECT_FLOAT_EQ(gp[0], 4.5f);
  EXPECT_FLOAT_EQ(gp[1], 12.5f);
  ref::GlobalPool(PoolKind::kMax, x, gp, 2, 8);
  EXPECT_EQ(gp[1], 16.0f);
}

TEST(ReferenceKernels, SoftmaxByHand) {
  const float x[] = {1, 2, 3};
  float y[3];
  ref::Softmax(x, y, 1, 3, 1);
  EXPECT_NEAR(y[0], 0.09003057f, 1e-7);
  EXPECT_NEAR(y[1], 0.24472847f, 1e-7);
  EXPECT_NEAR(y[2], 0.66524096f, 1e-7);
  // inner = 2: two interleaved columns {1,3} and {2,2}.
  const float xs[] = {1, 2, 3, 2};
  float ys[4];
  ref::Softmax(xs, ys, 1, 2, 2);
  EXPECT_NEAR(ys[0], 0.11920292f, 1e-7);
  EXPECT_NEAR(ys[2], 0.88079708f, 1e-7);
  EXPECT_FLOAT_EQ(ys[1], 0.5f);
}

TEST(ReferenceKernels, ActivationsAffineBinaryByHand) {
  const float x[] = {-3, -1, 0.5f, 4};
  float y[4];
  ref::ActivationKernel(x, y, 4, {ActKind::kLeakyRelu, 0.1f, 0});
  EXPECT_FLOAT_EQ(y[0], -0.3f);
  EXPECT_FLOAT_EQ(y[3], 4.0f);
  ref::ActivationKernel(x, y, 4, {ActKind::kHardSwish, 0, 0});  // x·clamp(x/6+½, 0, 1)
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  EXPECT_FLOAT_EQ(y[1], -1.0f / 3);
  EXPECT_FLOAT_EQ(y[3], 4.0f);
  ref::ActivationKernel(x, y, 4, {ActKind::kHardSigmoid, 0.2f, 0.5f});
  EXPECT_FLOAT_EQ(y[1], 0.3f);
  EXPECT_FLOAT_EQ(y[3], 1.0f);
  ref::ActivationKernel(x, y, 4, {ActKind::kSigmoid, 0, 0});
  EXPECT_NEAR(y[2], 0.62245933f, 1e-7);
  ref::ActivationKernel(x, y, 4, {ActKind::kSiLU, 0, 0});  // x/(1+e^−x)
  EXPECT_NEAR(y[0], -0.14227762f, 1e-7);
  EXPECT_NEAR(y[1], -0.26894142f, 1e-7);
  EXPECT_NEAR(y[3], 3.92805516f, 1e-6);
  ref::ActivationKernel(x, y, 4, {ActKind::kClip, -1, 1});
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[2], 0.5f);
  // BN: γ=2, β=1, μ=1, σ²=3, ε=1 → scale 1, shift 0.
  const float g = 2, be = 1, mu = 1, var = 3, xb = 2;
  float yb = 0;
  ref::BatchnormInference(&xb, &g, &be, &mu, &var, 1.0f, &yb, 1, 1, {});
  EXPECT_FLOAT_EQ(yb, 2.0f);
  const float a[] = {6, 8}, b[] = {2};
  float q[2];
  ref::Binary(BinaryKind::kDiv, BroadcastMode::kScalarB, a, b, q, 2, {});
  EXPECT_EQ(q[0], 3.0f);
  EXPECT_EQ(q[1], 4.0f);
  ref::Binary(BinaryKind::kSub, BroadcastMode::kScalarA, b, a, q, 2, {ActKind::kRelu, 0, 0});
  EXPECT_EQ(q[0], 0.0f);
  const float slope[] = {0.5f, 2.0f}, xp[] = {-2, 3, -2, 3};
  float yp[4];
  ref::Prelu(xp, slope, yp, 2, 2, true);
  EXPECT_EQ(yp[0], -1.0f);
  EXPECT_EQ(yp[2], -4.0f);
  EXPECT_EQ(yp[3], 3.0f);
}

}  // namespace
}  // namespace edgefold::kernels::testing
