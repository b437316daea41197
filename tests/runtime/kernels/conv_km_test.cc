// The core table's conv_km (a group-1 conv with transposed weights, output channels in the
// lanes) of every level against ref::ConvKm: pointwise rows of pixels and 3×3 / 2×2 windows at
// column strides 1 and 2 with dilation, channel counts below, at and above the register width
// (the overlapping last block), row widths around the block size (chunks of unequal size),
// bias or none and fused activations; and a split of the output channels at any boundary (a
// thread's range) giving the bits of the whole; x and y channels innermost or not.
#include <algorithm>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct KmCase {
  size_t in_c, out_c, out_h, out_w;
  size_t k = 1, stride = 1, dilation = 1;
  bool bias = true;
  Activation act;
  bool exact_row = false;  // x_w = out_w: a pointwise conv's one row of pixels, as the op gives it
  bool x_hwc = false, y_hwc = false;  // channels innermost
};

class ConvKmTest : public KernelTest {
 protected:
  struct Data {
    ConvKmParams p;
    std::vector<float> wt, x, bias;
  };
  static Data Make(const KmCase& c) {
    Data d;
    ConvKmParams& p = d.p;
    p.in_c = c.in_c, p.out_c = c.out_c, p.out_h = c.out_h, p.out_w = c.out_w;
    p.kh = p.kw = c.k, p.stride_h = p.stride_w = c.stride, p.dilation_h = p.dilation_w = c.dilation;
    p.x_h = (c.out_h - 1) * c.stride + (c.k - 1) * c.dilation + 1;
    p.x_w = (c.out_w - 1) * c.stride + (c.k - 1) * c.dilation + 1 + (c.exact_row ? 0 : 3);
    p.o_begin = 0, p.o_end = c.out_c;
    p.act = c.act;
    p.x_hwc = c.x_hwc, p.y_hwc = c.y_hwc;
    d.wt = RandomVector(c.in_c * c.k * c.k * c.out_c, -1, 1, 21);
    d.x = RandomVector(c.in_c * p.x_h * p.x_w, -1, 1, 22);
    d.bias = RandomVector(c.out_c, -2, 2, 23);
    p.bias = c.bias ? d.bias.data() : nullptr;
    return d;
  }

  ::testing::AssertionResult Check(const KmCase& c) {
    const Data d = Make(c);
    std::vector<float> want(c.out_c * c.out_h * c.out_w, -7.0f), got = want;
    ref::ConvKm(d.p, d.wt.data(), d.x.data(), want.data());
    table().conv_km(d.p, d.wt.data(), d.x.data(), got.data());
    const size_t taps = c.in_c * c.k * c.k;
    return AllClose(want, got, 2e-6f * static_cast<float>(taps + 1), 1e-5f)
           << " (in_c=" << c.in_c << " out_c=" << c.out_c << " out " << c.out_h << "x" << c.out_w
           << " k=" << c.k << " stride=" << c.stride << " dilation=" << c.dilation
           << " x_hwc=" << c.x_hwc << " y_hwc=" << c.y_hwc << ")";
  }
};

TEST_P(ConvKmTest, PointwiseChannelAndPixelTails) {
  const size_t w = W();
  for (size_t out_c : {size_t{1}, w > 1 ? w - 1 : 2, w, w + 1, 2 * w + 3, size_t{37}})
    for (size_t pixels : {1, 3, 9, 13, 14, 15, 16, 17, 29, 36, 48})
      for (size_t in_c : {1, 7, 64})
        ASSERT_TRUE(Check({in_c, out_c, 1, pixels, 1, 1, 1, true, {}}));
}

// The op's pointwise form (one row, x_w = out_w): on the 16-register x86 tables blocks of two
// registers of channels (ConvKmPointwisePairs), their last one overlapping; 49 pixels (7²) and
// fewer, channel counts around 2·W.
TEST_P(ConvKmTest, PointwiseExactRowsAroundTwoRegisters) {
  const size_t w = W();
  for (size_t out_c : {2 * w - 1, 2 * w, 2 * w + 1, 3 * w + 5, size_t{232}})
    for (size_t pixels : {1, 5, 6, 7, 13, 49})
      for (size_t in_c : {1, 7, 64})
        ASSERT_TRUE(Check({in_c, out_c, 1, pixels, 1, 1, 1, true, {}, true}));
  for (ActKind kind : {ActKind::kNone, ActKind::kClip, ActKind::kHardSwish}) {
    Activation act;
    act.kind = kind, act.alpha = 0.0f, act.beta = 6.0f;
    ASSERT_TRUE(Check({40, 4 * w + 3, 1, 49, 1, 1, 1, kind == ActKind::kNone, act, true}));
  }
}

// Channels innermost (NHWC tensors between convs with transposed weights and depthwise convs):
// pointwise rows read and written either way, windows at strides 1 and 2 written NHWC, and an
// NHWC input of a window (the reference's).
TEST_P(ConvKmTest, ChannelsInnermost) {
  const size_t w = W();
  for (bool x_hwc : {false, true})
    for (bool y_hwc : {false, true})
      for (size_t out_c : {w, w + 1, 2 * w - 1, 2 * w, 3 * w + 5, size_t{64}})
        for (size_t pixels : {1, 5, 6, 7, 13, 125})
          for (size_t in_c : {1, 7, 64}) {
            KmCase c{in_c, out_c, 1, pixels, 1, 1, 1, true, {}, true};
            c.x_hwc = x_hwc, c.y_hwc = y_hwc;
            ASSERT_TRUE(Check(c));
          }
  for (size_t stride : {1, 2})
    for (size_t out_w : {1, 5, 8, 19}) {
      KmCase c{1, 4 * w, 25, out_w, 3, stride, 1, true, {}};
      c.y_hwc = true;
      ASSERT_TRUE(Check(c));
      c.in_c = 5, c.x_hwc = true;
      ASSERT_TRUE(Check(c));
    }
}

TEST_P(ConvKmTest, WindowsStridesAndDilations) {
  for (size_t stride : {1, 2, 3})
    for (size_t k : {2, 3})
      for (size_t dilation : {1, 2})
        for (size_t out_w : {1, 5, 8, 16, 19})
          ASSERT_TRUE(Check({5, 2 * W() + 1, 3, out_w, k, stride, dilation, true, {}}));
}

TEST_P(ConvKmTest, NoBiasAndActivations) {
  for (ActKind kind : {ActKind::kNone, ActKind::kRelu, ActKind::kClip, ActKind::kHardSwish}) {
    Activation act;
    act.kind = kind, act.alpha = 0.0f, act.beta = 6.0f;
    ASSERT_TRUE(Check({19, 2 * W() + 5, 2, 11, 3, 2, 1, false, act}));
    ASSERT_TRUE(Check({19, 2 * W() + 5, 1, 11, 1, 1, 1, true, act}));
  }
}

// Output channels split at every boundary (threads take such ranges): the halves together are
// the whole, bit for bit, and nothing outside a range is written.
TEST_P(ConvKmTest, AnySplitGivesTheWholeBits) {
  KmCase hwc{45, 5 * W() + 3, 1, 49, 1, 1, 1, true, {}, true};
  hwc.x_hwc = hwc.y_hwc = true;
  KmCase strided_hwc{6, 3 * W() + 3, 3, 9, 3, 2, 1, true, {}};
  strided_hwc.y_hwc = true;
  for (const KmCase& c : {KmCase{45, 3 * W() + 3, 1, 10, 1, 1, 1, true, {}},
                          KmCase{45, 5 * W() + 3, 1, 49, 1, 1, 1, true, {}, true},
                          KmCase{6, 3 * W() + 3, 3, 9, 3, 2, 1, true, {}}, hwc, strided_hwc}) {
    Data d = Make(c);
    const size_t plane = c.out_h * c.out_w;
    std::vector<float> whole(c.out_c * plane);
    table().conv_km(d.p, d.wt.data(), d.x.data(), whole.data());
    for (size_t cut = 0; cut <= c.out_c; ++cut) {
      std::vector<float> parts(whole.size(), -7.0f);
      d.p.o_begin = 0, d.p.o_end = cut;
      table().conv_km(d.p, d.wt.data(), d.x.data(), parts.data());
      for (size_t i = 0; i < parts.size(); ++i) {
        if ((c.y_hwc ? i % c.out_c : i / plane) >= cut) {
          ASSERT_EQ(parts[i], -7.0f) << "cut " << cut << " wrote past its range at " << i;
        }
      }
      d.p.o_begin = cut, d.p.o_end = c.out_c;
      table().conv_km(d.p, d.wt.data(), d.x.data(), parts.data());
      ASSERT_EQ(parts, whole) << "cut at output channel " << cut;
    }
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(ConvKmTest);

}  // namespace
}  // namespace edgefold::kernels::testing
