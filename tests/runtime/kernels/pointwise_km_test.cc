// The core table's pointwise_km (a pointwise conv with transposed weights, output channels in
// the lanes) of every level against ref::PointwiseKm: channel counts below, at and above the
// register width (the overlapping last block), pixel counts around the block size (chunks of
// unequal size), every fused activation kind the GEMM tests use; and a split of the output
// channels at any boundary (a thread's range) giving the bits of the whole.
#include <algorithm>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct KmCase {
  size_t in_c, out_c, pixels;
  bool bias = true;
  Activation act;
};

class PointwiseKmTest : public KernelTest {
 protected:
  struct Data {
    std::vector<float> wt, x, bias;
  };
  static Data Make(const KmCase& c) {
    return {RandomVector(c.in_c * c.out_c, -1, 1, 21), RandomVector(c.in_c * c.pixels, -1, 1, 22),
            RandomVector(c.out_c, -2, 2, 23)};
  }
  static PointwiseKmParams Params(const KmCase& c, const Data& d) {
    PointwiseKmParams p;
    p.in_c = c.in_c, p.out_c = c.out_c, p.pixels = c.pixels;
    p.o_begin = 0, p.o_end = c.out_c;
    p.bias = c.bias ? d.bias.data() : nullptr;
    p.act = c.act;
    return p;
  }

  ::testing::AssertionResult Check(const KmCase& c) {
    const Data d = Make(c);
    const PointwiseKmParams p = Params(c, d);
    std::vector<float> want(c.out_c * c.pixels, -7.0f), got = want;
    ref::PointwiseKm(p, d.wt.data(), d.x.data(), want.data());
    table().pointwise_km(p, d.wt.data(), d.x.data(), got.data());
    return AllClose(want, got, 2e-6f * static_cast<float>(c.in_c + 1), 1e-5f)
           << " (in_c=" << c.in_c << " out_c=" << c.out_c << " pixels=" << c.pixels << ")";
  }
};

TEST_P(PointwiseKmTest, ChannelAndPixelTails) {
  const size_t w = W();
  for (size_t out_c : {size_t{1}, w > 1 ? w - 1 : 2, w, w + 1, 2 * w + 3, size_t{37}})
    for (size_t pixels : {1, 3, 9, 13, 14, 15, 29, 36, 49})
      for (size_t in_c : {1, 7, 64}) ASSERT_TRUE(Check({in_c, out_c, pixels}));
}

TEST_P(PointwiseKmTest, NoBiasAndActivations) {
  for (ActKind kind : {ActKind::kNone, ActKind::kRelu, ActKind::kClip, ActKind::kHardSwish}) {
    Activation act;
    act.kind = kind, act.alpha = 0.0f, act.beta = 6.0f;
    ASSERT_TRUE(Check({19, 2 * W() + 5, 11, false, act}));
    ASSERT_TRUE(Check({19, 2 * W() + 5, 11, true, act}));
  }
}

// Output channels split at every boundary (threads take such ranges): the halves together are
// the whole, bit for bit, and nothing outside a range is written.
TEST_P(PointwiseKmTest, AnySplitGivesTheWholeBits) {
  const KmCase c{45, 3 * W() + 3, 10};
  const Data d = Make(c);
  PointwiseKmParams p = Params(c, d);
  std::vector<float> whole(c.out_c * c.pixels);
  table().pointwise_km(p, d.wt.data(), d.x.data(), whole.data());
  for (size_t cut = 0; cut <= c.out_c; ++cut) {
    std::vector<float> parts(whole.size(), -7.0f);
    p.o_begin = 0, p.o_end = cut;
    table().pointwise_km(p, d.wt.data(), d.x.data(), parts.data());
    for (size_t i = cut * c.pixels; i < parts.size(); ++i)
      ASSERT_EQ(parts[i], -7.0f) << "cut " << cut << " wrote past its range at " << i;
    p.o_begin = cut, p.o_end = c.out_c;
    table().pointwise_km(p, d.wt.data(), d.x.data(), parts.data());
    ASSERT_EQ(parts, whole) << "cut at output channel " << cut;
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(PointwiseKmTest);

}  // namespace
}  // namespace edgefold::kernels::testing
