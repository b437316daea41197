// conv2d_depthwise of the scalar table (scalar::Conv2dDepthwiseClipped) and every SIMD table
// against the reference on the shapes of the mobile nets (3×3 and 5×5, stride 1 and 2, pad k/2,
// planes 112..3 of the 224 and 96 inputs) and on row widths around the register width (1, W−1,
// W, W+1, 2W+1, primes), where the flat path packs several rows into one register and masks the
// columns that wrap into the neighbouring row.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct DwCase {
  size_t in_h, in_w, k, stride, dilation, pad, channels;
};

Conv2dShape DwShape(const DwCase& c) {
  Conv2dShape s;
  s.in_c = s.out_c = s.group = c.channels;
  s.in_h = c.in_h, s.in_w = c.in_w, s.kh = s.kw = c.k;
  s.stride_h = s.stride_w = c.stride, s.dilation_h = s.dilation_w = c.dilation;
  s.pad_top = s.pad_left = c.pad;
  const size_t span = c.dilation * (c.k - 1) + 1;
  s.out_h = (c.in_h + 2 * c.pad - span) / c.stride + 1;
  s.out_w = (c.in_w + 2 * c.pad - span) / c.stride + 1;
  return s;
}

// Compares table and reference for case c under activation act (with bias) and reports the case.
::testing::AssertionResult SameAsReference(const ConvKernelTable& table, const DwCase& c,
                                           const Activation& act) {
  const Conv2dShape s = DwShape(c);
  const std::vector<float> x = RandomVector(c.channels * c.in_h * c.in_w, -4, 4),
                           w = RandomVector(c.channels * c.k * c.k, -1, 1, 5),
                           bias = RandomVector(c.channels, -1, 1, 6);
  std::vector<float> want(c.channels * s.out_h * s.out_w), got(want.size(), -7.0f);
  ref::Conv2dDepthwise(s, x.data(), w.data(), bias.data(), act, want.data());
  table.conv2d_depthwise(s, x.data(), w.data(), bias.data(), act, got.data());
  ::testing::AssertionResult r = AllClose(want, got, 2e-5f);
  if (!r)
    r << " in " << c.in_h << "x" << c.in_w << " k" << c.k << " s" << c.stride << " d" << c.dilation
      << " p" << c.pad << " c" << c.channels << " act " << int(act.kind);
  return r;
}

using DepthwiseTest = KernelTest;

TEST_P(DepthwiseTest, MobileNetShapes) {
  for (size_t hw : {112, 56, 28, 14, 7, 48, 24, 12, 6, 3})
    for (size_t k : {3, 5})
      for (size_t stride : {1, 2}) {
        const DwCase c{hw, hw, k, stride, 1, k / 2, hw >= 56 ? size_t{2} : size_t{5}};
        for (const Activation& act :
             {Activation{ActKind::kClip, 0, 6}, Activation{ActKind::kHardSwish, 0, 0}})
          EXPECT_TRUE(SameAsReference(conv(), c, act));
      }
}

TEST_P(DepthwiseTest, WidthsAroundTheRegister) {
  std::vector<size_t> widths = {1, 2, W(), W() + 1, 2 * W() + 1, 13, 31};
  if (W() > 1) widths.push_back(W() - 1);
  for (size_t in_w : widths)
    for (size_t in_h : {1, 2, 5, 9})
      for (size_t k : {3, 5})
        for (size_t stride : {1, 2})
          EXPECT_TRUE(SameAsReference(conv(), {in_h, in_w, k, stride, 1, k / 2, 3},
                                      {ActKind::kNone, 0, 0}));
}

// Output rows up to kDwMaskPitch (240) wide read their column masks from tables, wider ones
// compare columns per register: both sides of the limit, strides 1 and 2, 3×3 and 5×5.
TEST_P(DepthwiseTest, RowsAroundTheMaskTableWidth) {
  for (const DwCase& c :
       {DwCase{3, 240, 3, 1, 1, 1, 2}, DwCase{3, 241, 3, 1, 1, 1, 2}, DwCase{4, 250, 5, 1, 1, 2, 2},
        DwCase{5, 480, 3, 2, 1, 1, 2}, DwCase{5, 483, 5, 2, 1, 2, 2}})
    EXPECT_TRUE(SameAsReference(conv(), c, {ActKind::kClip, 0, 6}));
}

// Dilation and padding wider than k/2 keep out_w ≥ in_w (the flat path with pitch out_w) or
// leave it (the fallbacks); a 1×1 kernel has no masked column at all.
TEST_P(DepthwiseTest, DilationAndWidePadding) {
  for (const DwCase& c :
       {DwCase{14, 14, 3, 1, 2, 2, 4}, DwCase{15, 13, 3, 2, 2, 2, 4}, DwCase{9, 9, 3, 1, 1, 2, 3},
        DwCase{10, 11, 5, 2, 1, 3, 3}, DwCase{7, 7, 1, 1, 1, 0, 3}, DwCase{8, 9, 1, 2, 1, 0, 3},
        DwCase{12, 12, 7, 1, 1, 3, 2}, DwCase{12, 12, 7, 2, 1, 3, 2},
        DwCase{20, 21, 9, 1, 1, 4, 2}})
    EXPECT_TRUE(SameAsReference(conv(), c, {ActKind::kRelu, 0, 0}));
}

// Every fused activation (the flat path compiles None/Relu/Clip apart, the rest go through ActBatch).
TEST_P(DepthwiseTest, EveryActivation) {
  for (const Activation& act : AllActivations())
    for (size_t stride : {1, 2})
      EXPECT_TRUE(SameAsReference(conv(), {14, 14, 3, stride, 1, 1, 3}, act));
}

// Outputs up to 16 × 16 (inputs up to 32 × 32) go W channels at a time (one channel per lane: 16
// with AVX-512, 8 with AVX2, 4 on NEON): full and partial blocks (1, 7, 8, 9, 20 channels and
// W − 1, W, W + 1, 2W + 3), plane sizes up to both
// limits and just past them, kernels 1–7 with strides 1 and 2, dilation and wide padding, and activations clamped in
// the block (Clip) or run over the planes afterwards (SiLU).
TEST_P(DepthwiseTest, SmallPlanesInBlocksOfChannels) {
  std::vector<size_t> channel_counts = {1, 7, 8, 9, 20, W() + 1, 2 * W() + 3};
  if (W() > 1) channel_counts.insert(channel_counts.end(), {W() - 1, W()});
  for (size_t channels : channel_counts)
    for (size_t hw : {1, 2, 3, 4, 7, 8, 13, 14, 16, 17, 28, 31, 32, 33})
      for (size_t k : {1, 3, 5, 7})
        for (size_t stride : {1, 2}) {
          if (k > hw + k / 2 * 2) continue;
          EXPECT_TRUE(SameAsReference(conv(), {hw, hw, k, stride, 1, k / 2, channels},
                                      {ActKind::kClip, -1, 2}));
        }
  for (const DwCase& c :
       {DwCase{14, 11, 3, 1, 2, 2, 9}, DwCase{16, 15, 3, 2, 2, 3, 12}, DwCase{7, 7, 5, 1, 1, 4, 10},
        DwCase{5, 16, 3, 2, 1, 0, 8}, DwCase{16, 16, 7, 2, 1, 3, 17}})
    for (const Activation& act :
         {Activation{ActKind::kNone, 0, 0}, Activation{ActKind::kRelu, 0, 0},
          Activation{ActKind::kSiLU, 0, 0}})
      EXPECT_TRUE(SameAsReference(conv(), c, act));
}

// 3×3 stride-1 planes with rows of 2 to 15 floats (with AVX-512 one flat vector of the plane read
// straight from x, conv2d_depthwise_narrow_simd.h): every such width and 16 (the flat path), one
// row, planes of fewer floats than a register and of whole registers (8 × 2, 4 × 8), DS-CNN's
// 25 × 5, channels that fill no register, the fused activations and one run afterwards.
TEST_P(DepthwiseTest, NarrowRowsAsOneFlatVector) {
  for (size_t in_w = 2; in_w <= 16; ++in_w)
    for (size_t in_h : {1, 2, 3, 8, 25})
      EXPECT_TRUE(SameAsReference(conv(), {in_h, in_w, 3, 1, 1, 1, 3}, {ActKind::kRelu, 0, 0}));
  for (const Activation& act :
       {Activation{ActKind::kNone, 0, 0}, Activation{ActKind::kClip, -0.5f, 1.5f},
        Activation{ActKind::kSiLU, 0, 0}})
    for (const DwCase& c : {DwCase{25, 5, 3, 1, 1, 1, 19}, DwCase{1, 7, 3, 1, 1, 1, 2},
                            DwCase{2, 8, 3, 1, 1, 1, 5}, DwCase{11, 15, 3, 1, 1, 1, 17}})
      EXPECT_TRUE(SameAsReference(conv(), c, act));
}

// A band of a larger plane (x_plane, y_plane beyond h·w: ops/conv.cc's bands): each channel
// reads only its own h·w floats and writes only its own, without bias.
TEST_P(DepthwiseTest, NarrowRowsInBandsOfLargerPlanes) {
  const DwCase c{6, 5, 3, 1, 1, 1, 4};
  Conv2dShape s = DwShape(c);
  const size_t n = c.in_h * c.in_w;
  s.x_plane = n + 7, s.y_plane = n + 3;
  std::vector<float> x = RandomVector(c.channels * s.x_plane, -4, 4),
                     w = RandomVector(36, -1, 1, 5);
  for (size_t ch = 0; ch < c.channels; ++ch)
    for (size_t i = n; i < s.x_plane; ++i) x[ch * s.x_plane + i] = 1e6f;  // must not be read
  std::vector<float> want(c.channels * s.y_plane, -7.0f), got(want.size(), -7.0f);
  ref::Conv2dDepthwise(s, x.data(), w.data(), nullptr, {}, want.data());
  conv().conv2d_depthwise(s, x.data(), w.data(), nullptr, {}, got.data());
  EXPECT_TRUE(AllClose(want, got, 2e-5f));
}

// Channels share the zero rows of the phase planes: a channel of huge values followed by one
// of small values must not leak into the second one's border outputs.
TEST_P(DepthwiseTest, ChannelsDoNotLeak) {
  for (size_t stride : {1, 2}) {
    const DwCase c{9, 10, 3, stride, 1, 1, 2};
    const Conv2dShape s = DwShape(c);
    std::vector<float> x(2 * c.in_h * c.in_w, 1e6f), w(2 * 9, 1.0f);
    for (size_t i = c.in_h * c.in_w; i < x.size(); ++i) x[i] = 1.0f;
    std::vector<float> want(2 * s.out_h * s.out_w), got(want.size());
    ref::Conv2dDepthwise(s, x.data(), w.data(), nullptr, {}, want.data());
    conv().conv2d_depthwise(s, x.data(), w.data(), nullptr, {}, got.data());
    EXPECT_TRUE(AllClose(want, got)) << "stride " << stride;
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(DepthwiseTest);

}  // namespace
}  // namespace edgefold::kernels::testing
