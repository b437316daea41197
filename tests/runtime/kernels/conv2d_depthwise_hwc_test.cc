// The conv table's conv2d_depthwise_hwc (channels innermost, wᵀ [kh][kw][c]) of every level
// against ref::Conv2dDepthwiseHwc, and the reference against the NCHW reference on the same
// values: channel counts below, at and above the register width (the overlapping last block),
// planes 1 × N, N × 1, 25 × 5, 7 × 7 and odd ones, 3 × 3 and 5 × 5 windows at strides 1 and 2
// with padding 0, 1, 2 and asymmetric, dilation and 7 × 7 (the reference's), bias or none and
// fused activations; a split of the channels at any boundary (a thread's range) gives the bits of
// the whole and writes nothing outside its range.
#include <algorithm>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct HwcCase {
  size_t c, in_h, in_w, k = 3, stride = 1, pad = 1, dilation = 1;
  bool bias = true;
  Activation act;
  size_t pad_end = 99;  // bottom/right padding; 99: the same as pad
};

class DepthwiseHwcTest : public KernelTest {
 protected:
  struct Data {
    DepthwiseHwcParams p;
    std::vector<float> x, wt, bias;
  };
  static Data Make(const HwcCase& c) {
    Data d;
    Conv2dShape& s = d.p.s;
    s.in_c = s.out_c = s.group = c.c;
    s.in_h = c.in_h, s.in_w = c.in_w;
    s.kh = s.kw = c.k, s.stride_h = s.stride_w = c.stride;
    s.dilation_h = s.dilation_w = c.dilation;
    s.pad_top = s.pad_left = c.pad;
    const size_t end = c.pad_end == 99 ? c.pad : c.pad_end;
    const size_t span = (c.k - 1) * c.dilation + 1;
    s.out_h = (c.in_h + c.pad + end - span) / c.stride + 1;
    s.out_w = (c.in_w + c.pad + end - span) / c.stride + 1;
    d.p.c_begin = 0, d.p.c_end = c.c;
    d.p.act = c.act;
    d.x = RandomVector(c.c * c.in_h * c.in_w, -1, 1, 31);
    d.wt = RandomVector(c.k * c.k * c.c, -1, 1, 32);
    d.bias = RandomVector(c.c, -1, 1, 33);
    d.p.bias = c.bias ? d.bias.data() : nullptr;
    return d;
  }
  static size_t OutElems(const Data& d) { return d.p.s.out_h * d.p.s.out_w * d.p.s.out_c; }

  ::testing::AssertionResult Check(const HwcCase& c) {
    const Data d = Make(c);
    std::vector<float> want(OutElems(d), -7.0f), got = want;
    ref::Conv2dDepthwiseHwc(d.p, d.x.data(), d.wt.data(), want.data());
    conv().conv2d_depthwise_hwc(d.p, d.x.data(), d.wt.data(), got.data());
    return AllClose(want, got, 2e-6f * static_cast<float>(c.k * c.k + 1), 1e-5f)
           << " (c=" << c.c << " in " << c.in_h << "x" << c.in_w << " k=" << c.k
           << " stride=" << c.stride << " pad=" << c.pad << " dilation=" << c.dilation << ")";
  }
};

TEST_P(DepthwiseHwcTest, ChannelTailsAndPlanes) {
  const size_t w = W();
  for (size_t c : {size_t{1}, w > 1 ? w - 1 : 2, w, w + 1, 2 * w + 3, size_t{37}, size_t{64}})
    for (const auto& hw : {std::pair<size_t, size_t>{1, 1},
                           {1, 9},
                           {9, 1},
                           {25, 5},
                           {7, 7},
                           {3, 3},
                           {13, 17},
                           {2, 30}})
      ASSERT_TRUE(Check({c, hw.first, hw.second}));
}

TEST_P(DepthwiseHwcTest, WindowsStridesAndPadding) {
  const size_t c = 2 * W() + 3;
  for (size_t k : {3, 5})
    for (size_t stride : {1, 2})
      for (size_t pad : {0, 1, 2})
        for (const auto& hw : {std::pair<size_t, size_t>{5, 5}, {25, 5}, {12, 12}, {7, 20}})
          ASSERT_TRUE(Check({c, hw.first, hw.second, k, stride, pad}));
  ASSERT_TRUE(Check({c, 12, 12, 3, 2, 0, 1, true, {}, 1}));  // padding only at the end (TF SAME)
  ASSERT_TRUE(Check({c, 12, 12, 3, 1, 1, 2}));               // dilated: the reference
  ASSERT_TRUE(Check({c, 12, 12, 7, 1, 3}));                  // 7 × 7: the reference
  ASSERT_TRUE(Check({c, 12, 12, 3, 3, 1}));                  // stride 3: the reference
}

TEST_P(DepthwiseHwcTest, NoBiasAndActivations) {
  for (ActKind kind : {ActKind::kNone, ActKind::kRelu, ActKind::kClip, ActKind::kHardSwish}) {
    Activation act;
    act.kind = kind, act.alpha = 0.0f, act.beta = 0.5f;
    ASSERT_TRUE(Check({3 * W() + 1, 25, 5, 3, 1, 1, 1, false, act}));
    ASSERT_TRUE(Check({3 * W() + 1, 9, 9, 5, 2, 2, 1, true, act}));
  }
}

// The NHWC reference is the NCHW one on transposed data (w [c][kh][kw] → wᵀ [kh][kw][c]).
TEST_P(DepthwiseHwcTest, ReferenceMatchesTheNchwReference) {
  if (W() != 1) GTEST_SKIP() << "the references are level-independent";
  for (const HwcCase& c : {HwcCase{5, 25, 5}, HwcCase{3, 9, 7, 5, 2, 2}}) {
    const Data d = Make(c);
    const Conv2dShape& s = d.p.s;
    const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, kk = s.kh * s.kw;
    std::vector<float> x(d.x.size()), w(d.wt.size()), y(OutElems(d)), got(OutElems(d));
    for (size_t ch = 0; ch < c.c; ++ch) {
      for (size_t i = 0; i < in_plane; ++i) x[ch * in_plane + i] = d.x[i * c.c + ch];
      for (size_t k = 0; k < kk; ++k) w[ch * kk + k] = d.wt[k * c.c + ch];
    }
    ref::Conv2dDepthwise(s, x.data(), w.data(), d.p.bias, d.p.act, y.data());
    ref::Conv2dDepthwiseHwc(d.p, d.x.data(), d.wt.data(), got.data());
    for (size_t ch = 0; ch < c.c; ++ch)
      for (size_t i = 0; i < out_plane; ++i)
        ASSERT_NEAR(got[i * c.c + ch], y[ch * out_plane + i], 1e-6f)
            << "channel " << ch << " pixel " << i;
  }
}

// Channels split at every boundary: the two ranges together are the whole, bit for bit, and a
// range writes only its own channels.
TEST_P(DepthwiseHwcTest, AnySplitGivesTheWholeBits) {
  for (const HwcCase& c : {HwcCase{3 * W() + 3, 25, 5}, HwcCase{2 * W() + 1, 9, 9, 5, 2, 2}}) {
    Data d = Make(c);
    std::vector<float> whole(OutElems(d));
    conv().conv2d_depthwise_hwc(d.p, d.x.data(), d.wt.data(), whole.data());
    for (size_t cut = 0; cut <= c.c; ++cut) {
      std::vector<float> parts(whole.size(), -7.0f);
      d.p.c_begin = 0, d.p.c_end = cut;
      conv().conv2d_depthwise_hwc(d.p, d.x.data(), d.wt.data(), parts.data());
      for (size_t i = 0; i < parts.size(); ++i)
        if (i % c.c >= cut) ASSERT_EQ(parts[i], -7.0f) << "cut " << cut << " wrote at " << i;
      d.p.c_begin = cut, d.p.c_end = c.c;
      conv().conv2d_depthwise_hwc(d.p, d.x.data(), d.wt.data(), parts.data());
      ASSERT_EQ(parts, whole) << "cut at channel " << cut;
    }
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(DepthwiseHwcTest);

}  // namespace
}  // namespace edgefold::kernels::testing
