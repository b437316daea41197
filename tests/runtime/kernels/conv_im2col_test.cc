// A grouped convolution through each table's im2col + gemm equals a direct 7-loop convolution
// written here (the way the Conv op will use the two kernels together).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "testing/kernel_test_util.h"
#include "kernels/conv/conv_phase.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/conv_winograd.h"

namespace edgefold::kernels::testing {
namespace {

// y[o,oh,ow] = bias[o] + Σ_{c,r,t} w[o,c,r,t]·x[g·cg + c, oh·sh − pt + r·dh, ow·sw − pl + t·dw]
std::vector<float> DirectConv(const Conv2dShape& s, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& bias) {
  const size_t cg = s.in_c / s.group, og = s.out_c / s.group;
  std::vector<float> y(s.out_c * s.out_h * s.out_w);
  for (size_t o = 0; o < s.out_c; ++o)
    for (size_t oh = 0; oh < s.out_h; ++oh)
      for (size_t ow = 0; ow < s.out_w; ++ow) {
        double acc = bias[o];
        for (size_t c = 0; c < cg; ++c)
          for (size_t r = 0; r < s.kh; ++r)
            for (size_t t = 0; t < s.kw; ++t) {
              const long ih = long(oh * s.stride_h + r * s.dilation_h) - long(s.pad_top);
              const long iw = long(ow * s.stride_w + t * s.dilation_w) - long(s.pad_left);
              if (ih < 0 || iw < 0 || ih >= long(s.in_h) || iw >= long(s.in_w)) continue;
              acc += w[((o * cg + c) * s.kh + r) * s.kw + t] *
                     x[((o / og * cg + c) * s.in_h + ih) * s.in_w + iw];
            }
        y[(o * s.out_h + oh) * s.out_w + ow] = static_cast<float>(acc);
      }
  return y;
}

// im2col per group, then C[og × out_hw] = W_g[og × cg·kh·kw] · col + bias per row.
std::vector<float> Im2colConv(const KernelTable& t, const Conv2dShape& s,
                              const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& bias) {
  const size_t cg = s.in_c / s.group, og = s.out_c / s.group, kdim = cg * s.kh * s.kw,
               hw = s.out_h * s.out_w;
  std::vector<float> col(kdim * hw), y(s.out_c * hw);
  for (size_t g = 0; g < s.group; ++g) {
    t.im2col(s, x.data() + g * cg * s.in_h * s.in_w, col.data());
    GemmParams p;
    p.m = og, p.n = hw, p.k = kdim, p.lda = kdim, p.ldb = hw, p.ldc = hw;
    p.bias = bias.data() + g * og, p.bias_per_row = true;
    t.gemm(p, w.data() + g * og * kdim, col.data(), y.data() + g * og * hw);
  }
  return y;
}

class ConvIm2colTest : public KernelTest {};

TEST_P(ConvIm2colTest, MatchesDirectConvolution) {
  struct Case {
    size_t in_c, out_c, group, hw, k, stride, dilation, pad;
  };
  const Case cases[] = {
      {3, 8, 1, 9, 3, 1, 1, 1},
      {4, 6, 2, 11, 3, 2, 1, 1},
      {2, 5, 1, 13, 5, 1, 2, 2},
      {16, 17, 1, 7, 1, 1, 1, 0},
      // pad beyond the kernel's reach, stride 3 + dilation, image narrower than the kernel
      {2, 3, 1, 8, 3, 2, 1, 3},
      {3, 4, 1, 10, 3, 3, 2, 2},
      {2, 3, 1, 2, 5, 1, 1, 2},
      {1, 2, 1, 6, 3, 2, 1, 0}};
  for (const Case& c : cases) {
    Conv2dShape s;
    s.in_c = c.in_c, s.out_c = c.out_c, s.group = c.group, s.in_h = s.in_w = c.hw,
    s.kh = s.kw = c.k;
    s.stride_h = s.stride_w = c.stride, s.dilation_h = s.dilation_w = c.dilation,
    s.pad_top = s.pad_left = c.pad;
    s.out_h = s.out_w = (c.hw + 2 * c.pad - c.dilation * (c.k - 1) - 1) / c.stride + 1;
    const auto x = RandomVector(s.in_c * c.hw * c.hw),
               w = RandomVector(s.out_c * (s.in_c / s.group) * c.k * c.k, -1, 1, 3),
               bias = RandomVector(s.out_c, -1, 1, 4);
    ASSERT_TRUE(
        AllClose(DirectConv(s, x, w, bias), Im2colConv(table(), s, x, w, bias), 1e-5f, 1e-5f))
        << "in_c " << c.in_c << " group " << c.group << " k " << c.k;
  }
}

// The phase-plane path (no im2col): same convolution, reading each tap in place. Adds strides,
// dilations and pads that make junk columns, 1-D rows and 1×1 stride 2 (no junk: writes y directly).
std::vector<float> PhaseConv(const KernelTable& t, const Conv2dShape& s,
                             const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>& bias) {
  const ConvPhaseLayout l = MakeConvPhaseLayout(s);
  EXPECT_NE(l.scratch_bytes, SIZE_MAX);
  const size_t cg = s.in_c / s.group, og = s.out_c / s.group, kdim = cg * s.kh * s.kw,
               hw = s.out_h * s.out_w;
  std::vector<float> scratch(l.scratch_bytes / sizeof(float) + 16, std::nanf("")), y(s.out_c * hw);
  for (size_t g = 0; g < s.group; ++g)
    Conv2dPhaseGemm(t, s, l, x.data() + g * cg * s.in_h * s.in_w, w.data() + g * og * kdim,
                    bias.data() + g * og, Activation{}, y.data() + g * og * hw, scratch.data());
  return y;
}

TEST_P(ConvIm2colTest, PhasePlanesMatchDirectConvolution) {
  struct Case {
    size_t in_c, out_c, group, h, w, kh, kw, stride, dilation, pad;
  };
  const Case cases[] = {
      {3, 8, 1, 9, 9, 3, 3, 1, 1, 1},
      {4, 6, 2, 11, 11, 3, 3, 2, 1, 1},
      {2, 5, 1, 13, 13, 5, 5, 1, 2, 2},
      {2, 3, 1, 8, 8, 3, 3, 2, 1, 3},
      {3, 4, 1, 10, 10, 3, 3, 3, 2, 2},
      {2, 3, 1, 2, 2, 5, 5, 1, 1, 2},
      {1, 2, 1, 6, 6, 3, 3, 2, 1, 0},
      {3, 17, 1, 23, 19, 7, 7, 2, 1, 3},
      {16, 33, 1, 14, 14, 3, 3, 1, 1, 1},
      {8, 16, 1, 15, 15, 1, 1, 2, 1, 0},
      {5, 7, 1, 1, 37, 1, 5, 1, 1, 2},
      {4, 9, 1, 1, 40, 1, 4, 2, 1, 1},
      {19, 20, 1, 7, 7, 3, 3, 1, 1, 1},
      {6, 6, 3, 12, 9, 3, 1, 2, 1, 1},
      // out_w ≥ kPhaseRowGemmMinWidth with junk: one GEMM per output row (stems)
      {3, 9, 1, 6, 150, 3, 3, 2, 1, 1},
      {4, 6, 2, 3, 140, 3, 3, 2, 1, 1},
      {5, 7, 1, 1, 140, 1, 5, 2, 1, 2},
      {3, 5, 1, 5, 133, 7, 7, 2, 1, 3},
      // taps that read only some phases (the others are zeroed, not filled):
      // 1×1 stride 3 (one of nine), 3×3 dilation 2 stride 2 (one of four, with
      // junk columns whose runs cross into the zeroed planes), the same as row GEMMs
      {3, 4, 1, 9, 11, 1, 1, 3, 1, 0},
      {4, 5, 1, 12, 12, 3, 3, 2, 2, 2},
      {2, 3, 1, 7, 140, 3, 3, 2, 2, 2}};
  for (const Case& c : cases) {
    Conv2dShape s;
    s.in_c = c.in_c, s.out_c = c.out_c, s.group = c.group, s.in_h = c.h, s.in_w = c.w, s.kh = c.kh,
    s.kw = c.kw;
    s.stride_h = s.stride_w = c.stride, s.dilation_h = s.dilation_w = c.dilation;
    s.pad_top = c.h == 1 ? 0 : c.pad, s.pad_left = c.pad;
    const size_t pad_h = c.h == 1 ? 0 : c.pad;
    s.out_h = (c.h + 2 * pad_h - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
    s.out_w = (c.w + 2 * c.pad - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
    const auto x = RandomVector(s.in_c * c.h * c.w),
               w = RandomVector(s.out_c * (s.in_c / s.group) * c.kh * c.kw, -1, 1, 3),
               bias = RandomVector(s.out_c, -1, 1, 4);
    const ConvPhaseLayout l = MakeConvPhaseLayout(s);
    EXPECT_EQ(l.row_gemms, l.plane_w != s.out_w && s.out_w >= kPhaseRowGemmMinWidth);
    if ((c.kh == 1 && c.kw == 1) || c.dilation == c.stride) {
      EXPECT_EQ(l.phases_read, 1u) << "only phase (0, 0) is read";
    }
    if (l.row_gemms) {
      EXPECT_EQ(l.pitched_floats, 0u);
    }
    ASSERT_TRUE(
        AllClose(DirectConv(s, x, w, bias), PhaseConv(table(), s, x, w, bias), 1e-5f, 1e-5f))
        << "in_c " << c.in_c << " h " << c.h << " w " << c.w << " k " << c.kh << "x" << c.kw
        << " stride " << c.stride;
  }
}

// A 3×3 stride-1 conv of in_c → out_c channels on an h × w image, random data, its filters
// transformed as the compiler does (u), and its Winograd layout.
struct WinogradCase {
  Conv2dShape s;
  std::vector<float> x, w, bias, u;
  WinogradLayout l;
};
WinogradCase MakeWinogradCase(size_t in_c, size_t out_c, size_t h, size_t w, size_t pad,
                              size_t tile) {
  WinogradCase k;
  Conv2dShape& s = k.s;
  s.in_c = in_c, s.out_c = out_c, s.group = 1, s.in_h = h, s.in_w = w, s.kh = s.kw = 3;
  s.pad_top = s.pad_left = pad;
  s.out_h = h + 2 * pad - 2, s.out_w = w + 2 * pad - 2;
  k.x = RandomVector(in_c * h * w), k.w = RandomVector(out_c * in_c * 9, -1, 1, 3);
  k.bias = RandomVector(out_c, -1, 1, 4);
  k.u.resize((tile + 2) * (tile + 2) * out_c * in_c);
  WinogradTransformFilters(k.w.data(), out_c, in_c, tile, k.u.data());
  k.l = MakeWinogradLayout(s, tile);
  return k;
}

// Winograd F(2×2, 3×3) and F(4×4, 3×3): filters transformed as the compiler does, then the
// band-wise kernel. Output sizes that are not a multiple of the tile (partial tiles), images
// smaller than a tile, pads 0–2, channels and tile rows across register widths (17 tiles: one
// AVX-512 register and one more), tile rows of a half or a quarter register (16², 15², 8², 7²,
// 31 wide: several tile rows a register, the band's last register part past its rows), several
// bands; a clip activation on some.
TEST_P(ConvIm2colTest, WinogradMatchesDirectConvolution) {
  struct Case {
    size_t in_c, out_c, h, w, pad;
    bool clip;
  };
  const Case cases[] = {
      {3, 8, 9, 9, 1, false},     {16, 17, 14, 14, 1, true}, {5, 7, 7, 13, 0, false},
      {4, 4, 1, 1, 1, false},     {8, 9, 2, 3, 1, true},     {20, 33, 28, 28, 1, false},
      {2, 3, 8, 8, 2, false},     {6, 5, 15, 4, 1, true},    {64, 64, 56, 56, 1, false},
      {1, 1, 40, 3, 1, false},    {3, 4, 6, 70, 1, false},   {7, 6, 19, 67, 1, true},
      {96, 80, 30, 30, 1, false}, {32, 32, 16, 16, 1, true}, {64, 64, 8, 8, 1, false},
      {9, 5, 15, 15, 1, false},   {5, 7, 7, 7, 1, true},     {4, 3, 9, 8, 1, false},
      {3, 5, 17, 31, 1, false},   {6, 6, 33, 14, 1, false}};
  for (const size_t tile : {size_t{2}, size_t{4}})
    for (const Case& c : cases) {
      const WinogradCase k = MakeWinogradCase(c.in_c, c.out_c, c.h, c.w, c.pad, tile);
      const Conv2dShape& s = k.s;
      const WinogradLayout& l = k.l;
      const std::vector<float>& x = k.x;
      const std::vector<float>& w = k.w;
      const std::vector<float>& bias = k.bias;
      const std::vector<float>& u = k.u;
      std::vector<float> y(s.out_c * s.out_h * s.out_w);
      ASSERT_NE(l.scratch_bytes, SIZE_MAX);
      ASSERT_EQ(l.alpha, tile + 2);
      const Activation act = c.clip ? Activation{ActKind::kClip, -0.5f, 0.5f} : Activation{};
      std::vector<float> scratch(l.scratch_bytes / sizeof(float), std::nanf(""));
      Conv2dWinograd(table(), conv(), s, l, x.data(), u.data(), bias.data(), act, y.data(),
                     scratch.data());
      std::vector<float> want = DirectConv(s, x, w, bias);
      // Error relative to the output's scale, as the compiler's verify measures it: F(4×4)'s
      // transforms (2, 4, 5, 8; ¼, ⅙, 1⁄24) lose about 4 bits against F(2×2)'s, ≈ 6e-6 of the scale
      // at 64 channels here (F(2×2): 3e-7).
      float scale = 1.0f, err = 0.0f;
      for (float v : want) scale = std::max(scale, std::fabs(v));
      if (c.clip)
        for (float& v : want) v = std::min(0.5f, std::max(-0.5f, v));
      for (size_t i = 0; i < y.size(); ++i) err = std::max(err, std::fabs(y[i] - want[i]));
      EXPECT_LE(err, (tile == 4 ? 4e-5f : 4e-6f) * scale)
          << "tile " << tile << " in_c " << c.in_c << " out_c " << c.out_c << " h " << c.h << " w "
          << c.w << " pad " << c.pad;
    }
}

// Split by tile rows (each thread its slice of V and M, ops/conv.cc), in any order of the
// ranges, the output is bit for bit the band-wise kernel's: the chunks' GEMMs run whole
// registers, and no range writes outside its slice or output rows. Scratch starts as NaN, so a
// read of anything not written shows.
TEST_P(ConvIm2colTest, WinogradTileRowsEqualBands) {
  struct Case {
    size_t in_c, out_c, h, w;
  };
  const Case cases[] = {{16, 17, 14, 14}, {20, 33, 28, 28}, {64, 64, 56, 56}, {7, 6, 19, 67},
                        {16, 16, 32, 32}, {3, 8, 9, 9},     {8, 24, 40, 13},  {32, 32, 16, 16},
                        {64, 64, 8, 8},   {5, 7, 7, 7},     {6, 6, 33, 14}};
  size_t split_cases = 0;
  for (const size_t tile : {size_t{2}, size_t{4}})
    for (const Case& c : cases) {
      const WinogradCase k = MakeWinogradCase(c.in_c, c.out_c, c.h, c.w, 1, tile);
      const Conv2dShape& s = k.s;
      const WinogradLayout& l = k.l;
      const std::vector<float>& x = k.x;
      const std::vector<float>& bias = k.bias;
      const std::vector<float>& u = k.u;
      std::vector<float> want(s.out_c * s.out_h * s.out_w);
      std::vector<float> scratch(l.scratch_bytes / sizeof(float), std::nanf(""));
      Conv2dWinograd(table(), conv(), s, l, x.data(), u.data(), bias.data(), Activation{},
                     want.data(), scratch.data());
      ASSERT_GT(MakeWinogradRowSplit(l, 1).slices, 0u) << "one slice always fits";
      for (size_t slices = 1; slices <= 3; ++slices) {
        const WinogradRowSplit split = MakeWinogradRowSplit(l, std::min(slices, l.tiles_h));
        if (split.slices == 0) continue;
        split_cases += slices > 1;
        std::fill(scratch.begin(), scratch.end(), std::nanf(""));
        std::vector<float> y(want.size(), std::nanf(""));
        for (size_t i = split.slices; i-- > 0;)
          WinogradFillTileRows(s, l, x.data(), scratch.data(), l.tiles_h * i / split.slices,
                               l.tiles_h * (i + 1) / split.slices);
        for (size_t i = split.slices; i-- > 0;)
          WinogradTileRows(table(), conv(), s, l, split, i, u.data(), bias.data(), Activation{},
                           y.data(), scratch.data(), l.tiles_h * i / split.slices,
                           l.tiles_h * (i + 1) / split.slices);
        ASSERT_EQ(0, std::memcmp(y.data(), want.data(), y.size() * sizeof(float)))
            << "tile " << tile << " in_c " << c.in_c << " out_c " << c.out_c << " h " << c.h
            << " w " << c.w << " slices " << split.slices << " chunk rows " << split.chunk_rows;
      }
    }
  EXPECT_GT(split_cases, 4u);
}

// Only tiles 2 and 4 exist.
TEST(WinogradLayout, RefusesOtherTileSizes) {
  Conv2dShape s;
  s.in_c = s.out_c = 8, s.in_h = s.in_w = 8, s.out_h = s.out_w = 8, s.kh = s.kw = 3,
  s.pad_top = s.pad_left = 1;
  EXPECT_NE(MakeWinogradLayout(s, 2).scratch_bytes, SIZE_MAX);
  EXPECT_NE(MakeWinogradLayout(s, 4).scratch_bytes, SIZE_MAX);
  EXPECT_EQ(MakeWinogradLayout(s, 3).scratch_bytes, SIZE_MAX);
  EXPECT_EQ(MakeWinogradLayout(s, 6).scratch_bytes, SIZE_MAX);
}

// The scalar table too: this test has an independent oracle.
EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(ConvIm2colTest);

}  // namespace
}  // namespace edgefold::kernels::testing

namespace edgefold::kernels::testing {
namespace {

Conv2dShape Conv3x3(size_t in_c, size_t out_hw, size_t stride) {
  Conv2dShape s;
  s.in_c = in_c, s.out_c = in_c, s.kh = s.kw = 3, s.stride_h = s.stride_w = stride,
  s.pad_top = s.pad_left = 1;
  s.out_h = s.out_w = out_hw, s.in_h = s.in_w = out_hw * stride;
  return s;
}

// The compiler plans, and the runtime takes, im2col where the phase path's GEMM would spend more
// than a fifth of its columns on junk (small planes) and the reduction is deep; elsewhere the
// phase path, which needs less scratch.
TEST(ConvPathTest, SmallDeepPlanesPreferIm2col) {
  EXPECT_TRUE(ConvPrefersIm2col(Conv3x3(512, 7, 1)));  // ResNet-18 layer4: 64 columns for 49
  EXPECT_TRUE(ConvPrefersIm2col(Conv3x3(256, 7, 2)));
  EXPECT_TRUE(ConvPrefersIm2col(Conv3x3(32, 7, 1)));     // the smallest of ops_test's Conv cases
  EXPECT_FALSE(ConvPrefersIm2col(Conv3x3(256, 14, 2)));  // 224 columns for 196: under a fifth
  EXPECT_FALSE(ConvPrefersIm2col(Conv3x3(64, 56, 1)));
  EXPECT_FALSE(
      ConvPrefersIm2col(Conv3x3(16, 7, 1)));  // k = 144: a small layer keeps the smaller scratch
  // DS-CNN's first layer (1 → 64, 10×4 stride 2 into 25×5, k = 40): 160 phase columns for 125
  // outputs, and im2col needs less scratch than the phase planes.
  Conv2dShape ds;
  ds.in_c = 1, ds.out_c = 64, ds.kh = 10, ds.kw = 4, ds.stride_h = ds.stride_w = 2;
  ds.pad_top = 5, ds.pad_left = 1, ds.in_h = 49, ds.in_w = 10, ds.out_h = 25, ds.out_w = 5;
  ASSERT_LE(ConvIm2colScratchBytes(ds), MakeConvPhaseLayout(ds).scratch_bytes);
  EXPECT_TRUE(ConvPrefersIm2col(ds));
  const Conv2dShape s = Conv3x3(512, 7, 1);
  EXPECT_EQ(ConvScratchBytes(s), ConvIm2colScratchBytes(s));
  EXPECT_EQ(ConvScratchBytes(Conv3x3(64, 56, 1)),
            MakeConvPhaseLayout(Conv3x3(64, 56, 1)).scratch_bytes);
}

}  // namespace
}  // namespace edgefold::kernels::testing
