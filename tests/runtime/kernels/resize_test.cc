// resize2d of every SIMD table against the reference (fast paths: integer-factor nearest and
// 2× half-pixel bilinear; everything else shares the reference), and the reference against
// hand values of the ONNX definitions.
#include "testing/kernel_test_util.h"
#include "kernels/resize_coords.h"

namespace edgefold::kernels::testing {
namespace {

ResizeAxis Axis(size_t in, size_t out, double scale, double offset, size_t factor = 0) {
  ResizeAxis a;
  a.in = in;
  a.out = out;
  a.scale = scale;
  a.offset = offset;
  a.factor = factor;
  return a;
}

// half_pixel for factor r: s = (i + ½)/r − ½.
ResizeAxis HalfPixel(size_t in, size_t out, double r, size_t factor = 0) {
  return Axis(in, out, 1.0 / r, 0.5 / r - 0.5, factor);
}

std::vector<float> RunRef(const ResizeParams& p, const std::vector<float>& x, size_t planes) {
  std::vector<float> y(planes * p.h.out * p.w.out, -7.0f);
  ref::Resize2d(p, x.data(), y.data(), planes);
  return y;
}

TEST(ResizeReference, NearestAsymmetricFloorDuplicates) {
  ResizeParams p;
  p.rounding = NearestRounding::kFloor;
  p.h = Axis(2, 4, 0.5, 0.0);
  p.w = Axis(2, 6, 1.0 / 3.0, 0.0);
  const std::vector<float> y = RunRef(p, {1, 2, 3, 4}, 1);
  const std::vector<float> want = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                                   3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
  EXPECT_TRUE(AllClose(want, y));
}

TEST(ResizeReference, NearestRoundingModesOnTies) {
  // align_corners 4 → 7: s = i·½, ties at odd i.
  ResizeParams p;
  p.h = Axis(1, 1, 1.0, 0.0);
  p.w = Axis(4, 7, 0.5, 0.0);
  const std::vector<float> x = {10, 11, 12, 13};
  p.rounding = NearestRounding::kRoundPreferFloor;
  EXPECT_TRUE(AllClose({10, 10, 11, 11, 12, 12, 13}, RunRef(p, x, 1)));
  p.rounding = NearestRounding::kRoundPreferCeil;
  EXPECT_TRUE(AllClose({10, 11, 11, 12, 12, 13, 13}, RunRef(p, x, 1)));
  p.rounding = NearestRounding::kCeil;
  EXPECT_TRUE(AllClose({10, 11, 11, 12, 12, 13, 13}, RunRef(p, x, 1)));
  p.rounding = NearestRounding::kFloor;
  EXPECT_TRUE(AllClose({10, 10, 11, 11, 12, 12, 13}, RunRef(p, x, 1)));
}

TEST(ResizeReference, BilinearHalfPixelClampsEdges) {
  ResizeParams p;
  p.mode = ResizeMode::kLinear;
  p.h = HalfPixel(1, 1, 1.0);
  p.w = HalfPixel(2, 4, 2.0);
  EXPECT_TRUE(AllClose({1.0f, 1.25f, 1.75f, 2.0f}, RunRef(p, {1, 2}, 1)));
  p.h = HalfPixel(2, 4, 2.0);
  p.w = HalfPixel(1, 1, 1.0);
  EXPECT_TRUE(AllClose({1.0f, 1.25f, 1.75f, 2.0f}, RunRef(p, {1, 2}, 1)));
}

TEST(ResizeReference, HugeScalesStayInBounds) {
  ResizeParams p;
  p.mode = ResizeMode::kLinear;
  p.h = Axis(2, 3, 1e300, -1e300);
  p.w = Axis(2, 3, -1e300, 1e300);
  const std::vector<float> y = RunRef(p, {1, 2, 3, 4}, 1);
  for (float v : y) EXPECT_TRUE(v >= 1.0f && v <= 4.0f) << v;
  p.mode = ResizeMode::kNearest;
  for (float v : RunRef(p, {1, 2, 3, 4}, 1)) EXPECT_TRUE(v >= 1.0f && v <= 4.0f) << v;
}

using ResizeTest = KernelTest;

void ExpectMatchesReference(const SequenceKernelTable& t, const ResizeParams& p, size_t planes,
                            const char* what) {
  const std::vector<float> x = RandomVector(planes * p.h.in * p.w.in, -2, 2, 5);
  std::vector<float> got(planes * p.h.out * p.w.out, -7.0f);
  t.resize2d(p, x.data(), got.data(), planes);
  EXPECT_TRUE(AllClose(RunRef(p, x, planes), got, 1e-6f, 1e-5f))
      << what << ": " << p.h.in << "x" << p.w.in << " -> " << p.h.out << "x" << p.w.out;
}

TEST_P(ResizeTest, IntegerNearestMatchesReference) {
  for (size_t in_w : AwkwardSizes())
    for (size_t in_h : {size_t{1}, size_t{3}})
      for (size_t k : {size_t{1}, size_t{2}, size_t{3}}) {
        if (in_w * in_h * k * k > 200000) continue;
        ResizeParams p;
        p.rounding = NearestRounding::kFloor;
        p.h = Axis(in_h, in_h * k, 1.0 / k, 0.0, k);
        p.w = Axis(in_w, in_w * k, 1.0 / k, 0.0, k);
        ExpectMatchesReference(sequence(), p, 2, "nearest integer");
        p.h.factor = 2;  // mixed: 2 rows, k columns
        p.h.out = in_h * 2;
        p.h.scale = 0.5;
        ExpectMatchesReference(sequence(), p, 2, "nearest 2 x k");
      }
}

TEST_P(ResizeTest, Bilinear2xHalfPixelMatchesReference) {
  for (size_t in_w : AwkwardSizes())
    for (size_t in_h : {size_t{1}, size_t{2}, size_t{5}}) {
      ResizeParams p;
      p.mode = ResizeMode::kLinear;
      p.h = HalfPixel(in_h, 2 * in_h, 2.0, 2);
      p.w = HalfPixel(in_w, 2 * in_w, 2.0, 2);
      ExpectMatchesReference(sequence(), p, 3, "bilinear 2x");
    }
}

TEST_P(ResizeTest, GeneralScalesMatchReference) {
  for (size_t in_w : AwkwardSizes()) {
    if (in_w > 1000) continue;
    ResizeParams p;
    p.mode = ResizeMode::kLinear;
    p.h = HalfPixel(5, 3, 0.6);
    p.w = Axis(in_w, in_w * 3 / 2 + 1, static_cast<double>(in_w - 1) / (in_w * 3 / 2), 0.0);
    ExpectMatchesReference(sequence(), p, 2, "linear align_corners");
    p.mode = ResizeMode::kNearest;
    p.rounding = NearestRounding::kRoundPreferCeil;
    ExpectMatchesReference(sequence(), p, 2, "nearest");
  }
}

// Upsampling bilinear at any scale takes the separable path (rows resized once, then blended):
// 8× half_pixel (LR-ASPP's final Resize), 3.5× align_corners, asymmetric, and output rows at
// and past the path's width limit (1024: the widest it takes; 1030 falls back).
TEST_P(ResizeTest, SeparableBilinearUpsamplingMatchesReference) {
  for (size_t in_w : {size_t{1}, size_t{3}, size_t{7}, size_t{28}, size_t{128}}) {
    ResizeParams p;
    p.mode = ResizeMode::kLinear;
    p.h = HalfPixel(4, 32, 8.0);
    p.w = HalfPixel(in_w, 8 * in_w, 8.0);
    ExpectMatchesReference(sequence(), p, 3, "bilinear 8x");
    p.h = Axis(4, 14, 3.0 / 13.0, 0.0);
    p.w = Axis(in_w, in_w * 7 / 2 + 1,
               in_w > 1 ? static_cast<double>(in_w - 1) / (in_w * 7 / 2) : 0.0, 0.0);
    ExpectMatchesReference(sequence(), p, 2, "bilinear align_corners 3.5x");
    p.h = Axis(3, 7, 3.0 / 7.0, 0.0);
    p.w = Axis(in_w, 3 * in_w, 1.0 / 3.0, 0.0);
    ExpectMatchesReference(sequence(), p, 2, "bilinear asymmetric 3x");
  }
  for (size_t out_w : {size_t{1024}, size_t{1030}}) {
    ResizeParams p;
    p.mode = ResizeMode::kLinear;
    p.h = HalfPixel(2, 6, 3.0);
    p.w = Axis(out_w / 2, out_w, 0.5, 0.0);
    ExpectMatchesReference(sequence(), p, 2, "bilinear wide row");
  }
}

EDGEFOLD_INSTANTIATE_SIMD(ResizeTest);

}  // namespace
}  // namespace edgefold::kernels::testing
