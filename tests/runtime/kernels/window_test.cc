// conv2d_depthwise and pool2d of the scalar table and every SIMD table against the reference:
// kernel 3/5, stride 1/2/3, dilation 1/2, padding 0..2, narrow and wide rows; 119×121 is above
// the depthwise stack budget (kDwPhaseMaxFloats) and takes the row-interior path.
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct WindowCase {
  size_t in_h, in_w, k, stride, dilation, pad;
};

// Output length of one axis with symmetric padding.
size_t OutLen(size_t in, const WindowCase& wc) {
  const size_t span = wc.dilation * (wc.k - 1) + 1;
  return in + 2 * wc.pad < span ? 0 : (in + 2 * wc.pad - span) / wc.stride + 1;
}

std::vector<WindowCase> WindowCases() {
  std::vector<WindowCase> cases;
  for (size_t k : {3, 5})
    for (size_t stride : {1, 2, 3})
      for (size_t dilation : {1, 2})
        for (size_t pad : {0, 1, 2})
          for (auto hw : {std::pair<size_t, size_t>{7, 9}, {13, 17}, {6, 40}, {11, 67}, {119, 121}})
            cases.push_back({hw.first, hw.second, k, stride, dilation, pad});
  return cases;
}

using WindowTest = KernelTest;

TEST_P(WindowTest, DepthwiseConv) {
  const size_t channels = 3;
  for (const WindowCase& wc : WindowCases()) {
    Conv2dShape s;
    s.in_c = s.out_c = s.group = channels;
    s.in_h = wc.in_h, s.in_w = wc.in_w, s.kh = s.kw = wc.k;
    s.stride_h = s.stride_w = wc.stride, s.dilation_h = s.dilation_w = wc.dilation;
    s.pad_top = s.pad_left = wc.pad;
    s.out_h = OutLen(wc.in_h, wc), s.out_w = OutLen(wc.in_w, wc);
    if (s.out_h == 0 || s.out_w == 0) continue;
    const std::vector<float> x = RandomVector(channels * s.in_h * s.in_w),
                             w = RandomVector(channels * wc.k * wc.k, -1, 1, 5),
                             bias = RandomVector(channels, -1, 1, 6);
    for (bool with_bias : {false, true}) {
      for (Activation act : {Activation{ActKind::kNone, 0, 0}, Activation{ActKind::kClip, 0, 6}}) {
        std::vector<float> want(channels * s.out_h * s.out_w), got(want.size());
        const float* b = with_bias ? bias.data() : nullptr;
        ref::Conv2dDepthwise(s, x.data(), w.data(), b, act, want.data());
        conv().conv2d_depthwise(s, x.data(), w.data(), b, act, got.data());
        ASSERT_TRUE(AllClose(want, got, 1e-5f))
            << "in " << wc.in_h << "x" << wc.in_w << " k" << wc.k << " s" << wc.stride << " d"
            << wc.dilation << " p" << wc.pad;
      }
    }
  }
}

// The phase path zeroes its padded planes once per image and rewrites only the image interior per
// channel: different strides/pads per axis (pad above the stride, pad dropped at the far edge) and
// many channels check that no value of one channel leaks into the next one's padding.
TEST_P(WindowTest, DepthwiseAnisotropicStridePad) {
  struct Aniso {
    size_t in_h, in_w, k, sh, sw, pt, pl, channels;
  };
  for (const Aniso& a : {Aniso{9, 14, 3, 1, 2, 3, 1, 5}, Aniso{14, 9, 3, 2, 1, 0, 3, 4},
                         Aniso{17, 33, 5, 2, 3, 2, 4, 7}, Aniso{16, 16, 3, 2, 2, 0, 1, 6},
                         Aniso{5, 31, 3, 3, 2, 1, 2, 3}}) {
    Conv2dShape s;
    s.in_c = s.out_c = s.group = a.channels;
    s.in_h = a.in_h, s.in_w = a.in_w, s.kh = s.kw = a.k;
    s.stride_h = a.sh, s.stride_w = a.sw, s.pad_top = a.pt, s.pad_left = a.pl;
    s.out_h = (a.in_h + a.pt - a.k) / a.sh + 1,
    s.out_w = (a.in_w + a.pl - a.k) / a.sw + 1;  // no bottom/right pad
    const std::vector<float> x = RandomVector(a.channels * s.in_h * s.in_w, 1, 2),
                             w = RandomVector(a.channels * a.k * a.k, -1, 1, 5);
    std::vector<float> want(a.channels * s.out_h * s.out_w), got(want.size());
    ref::Conv2dDepthwise(s, x.data(), w.data(), nullptr, {}, want.data());
    conv().conv2d_depthwise(s, x.data(), w.data(), nullptr, {}, got.data());
    ASSERT_TRUE(AllClose(want, got, 1e-5f)) << "in " << a.in_h << "x" << a.in_w << " s" << a.sh
                                            << "," << a.sw << " p" << a.pt << "," << a.pl;
  }
}

TEST_P(WindowTest, Pool2dMaxAndAverage) {
  const size_t planes = 2;
  for (const WindowCase& wc : WindowCases()) {
    Pool2dParams p;
    p.in_h = wc.in_h, p.in_w = wc.in_w, p.kh = p.kw = wc.k;
    p.stride_h = p.stride_w = wc.stride, p.dilation_h = p.dilation_w = wc.dilation;
    p.pad_top = p.pad_left = wc.pad;
    p.out_h = OutLen(wc.in_h, wc), p.out_w = OutLen(wc.in_w, wc);
    if (p.out_h == 0 || p.out_w == 0) continue;
    const std::vector<float> x = RandomVector(planes * p.in_h * p.in_w);
    for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
      for (bool include_pad : {false, true}) {
        p.kind = kind, p.count_include_pad = include_pad;
        std::vector<float> want(planes * p.out_h * p.out_w), got(want.size());
        ref::Pool2d(p, x.data(), want.data(), planes);
        table().pool2d(p, x.data(), got.data(), planes);
        ASSERT_TRUE(AllClose(want, got))
            << "kind " << int(kind) << " in " << wc.in_h << "x" << wc.in_w << " k" << wc.k << " s"
            << wc.stride << " d" << wc.dilation << " p" << wc.pad;
      }
    }
  }
}

TEST_P(WindowTest, GlobalPool) {
  for (size_t spatial : AwkwardSizes()) {
    for (size_t channels : {1, 5}) {
      const std::vector<float> x = RandomVector(channels * spatial, -3, 3);
      for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
        std::vector<float> want(channels), got(channels);
        ref::GlobalPool(kind, x.data(), want.data(), channels, spatial);
        table().global_pool(kind, x.data(), got.data(), channels, spatial);
        ASSERT_TRUE(AllClose(want, got, 1e-6f)) << "spatial " << spatial << " kind " << int(kind);
      }
    }
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(WindowTest);

}  // namespace
}  // namespace edgefold::kernels::testing
