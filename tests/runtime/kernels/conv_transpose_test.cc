// ConvTranspose: the direct reference kernel and the GEMM + col2im path through each table equal
// a scatter written here over ONNX's weight layout [Cin, Cout/g, kh, kw], in double.
#include "testing/kernel_test_util.h"
#include "kernels/act_scalar.h"
#include "kernels/conv/conv_transpose.h"

namespace edgefold::kernels::testing {
namespace {

struct Case {
  size_t cin, cout, group, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, op_h, op_w;
};

// The adjoint conv of kernels/conv/conv_transpose.h: in_* = y, out_* = x.
Conv2dShape AdjointShape(const Case& c) {
  Conv2dShape s;
  s.in_c = c.cout, s.out_c = c.cin, s.group = c.group, s.out_h = c.h, s.out_w = c.w;
  s.kh = c.kh, s.kw = c.kw, s.stride_h = c.sh, s.stride_w = c.sw, s.dilation_h = c.dh,
  s.dilation_w = c.dw;
  s.pad_top = c.pt, s.pad_left = c.pl;
  s.in_h = (c.h - 1) * c.sh + (c.kh - 1) * c.dh + 1 - c.pt - c.pb + c.op_h;
  s.in_w = (c.w - 1) * c.sw + (c.kw - 1) * c.dw + 1 - c.pl - c.pr + c.op_w;
  return s;
}

// y[g·og + j, iy·sh − pt + ky·dh, ix·sw − pl + kx·dw] += w[g·cg + i, j, ky, kx]·x[g·cg + i, iy, ix]
std::vector<float> Scatter(const Conv2dShape& s, const std::vector<float>& x,
                           const std::vector<float>& w, const std::vector<float>& bias,
                           Activation act) {
  const size_t cg = s.out_c / s.group, og = s.in_c / s.group;
  std::vector<double> acc(s.in_c * s.in_h * s.in_w);
  for (size_t oc = 0; oc < s.in_c; ++oc)
    for (size_t i = 0; i < s.in_h * s.in_w; ++i) acc[oc * s.in_h * s.in_w + i] = bias[oc];
  for (size_t ic = 0; ic < s.out_c; ++ic)
    for (size_t j = 0; j < og; ++j)
      for (size_t iy = 0; iy < s.out_h; ++iy)
        for (size_t ix = 0; ix < s.out_w; ++ix)
          for (size_t ky = 0; ky < s.kh; ++ky)
            for (size_t kx = 0; kx < s.kw; ++kx) {
              const long oy = long(iy * s.stride_h + ky * s.dilation_h) - long(s.pad_top);
              const long ox = long(ix * s.stride_w + kx * s.dilation_w) - long(s.pad_left);
              if (oy < 0 || ox < 0 || oy >= long(s.in_h) || ox >= long(s.in_w)) continue;
              const size_t oc = ic / cg * og + j;
              acc[(oc * s.in_h + oy) * s.in_w + ox] +=
                  double(w[((ic * og + j) * s.kh + ky) * s.kw + kx]) *
                  x[(ic * s.out_h + iy) * s.out_w + ix];
            }
  std::vector<float> y(acc.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = ApplyActivation(static_cast<float>(acc[i]), act);
  return y;
}

// The compiler's packing (lower_conv_transpose.cc): packed[g][j][ky][kx][i] = w[g·cg + i][j][ky][kx].
std::vector<float> Pack(const Conv2dShape& s, const std::vector<float>& w) {
  const size_t cg = s.out_c / s.group, og = s.in_c / s.group, taps = s.kh * s.kw;
  std::vector<float> p(w.size());
  for (size_t ic = 0; ic < s.out_c; ++ic)
    for (size_t j = 0; j < og; ++j)
      for (size_t t = 0; t < taps; ++t)
        p[((ic / cg * og + j) * taps + t) * cg + ic % cg] = w[(ic * og + j) * taps + t];
  return p;
}

class ConvTransposeTest : public KernelTest {};

TEST_P(ConvTransposeTest, ReferenceAndGemmPathMatchScatter) {
  const Case cases[] = {
      {4, 6, 1, 5, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1},    // stride 2, pad 1, output_padding 1
      {6, 9, 3, 5, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 0, 1},    // grouped, dilated
      {3, 5, 1, 1, 11, 1, 4, 1, 2, 1, 1, 0, 1, 0, 1, 0, 0},   // 1-D
      {10, 6, 1, 4, 5, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0},   // 2×2 stride 2 (U-Net up)
      {5, 4, 1, 3, 7, 2, 3, 2, 1, 1, 1, 0, 1, 0, 1, 1, 0},    // unequal kernel and strides
      {17, 13, 1, 7, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},  // 1×1: the GEMM writes y directly
      {8, 8, 8, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0},    // depthwise
      {2, 3, 1, 2, 2, 5, 5, 3, 3, 1, 1, 3, 0, 4, 1, 2, 0},    // crops past a tap, stride 3
      {16, 33, 1, 12, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0},
  };
  for (const Case& c : cases) {
    const Conv2dShape s = AdjointShape(c);
    const auto x = RandomVector(c.cin * c.h * c.w),
               w = RandomVector(c.cin * (c.cout / c.group) * c.kh * c.kw, -1, 1, 3),
               bias = RandomVector(c.cout, -1, 1, 4);
    const std::vector<float> packed = Pack(s, w);
    for (const Activation act :
         {Activation{}, Activation{ActKind::kRelu, 0, 0}, Activation{ActKind::kSigmoid, 0, 0}}) {
      const std::vector<float> want = Scatter(s, x, w, bias, act);
      std::vector<float> direct(want.size()), fast(want.size(), std::nanf(""));
      ref::ConvTranspose2d(s, x.data(), packed.data(), bias.data(), act, direct.data());
      std::vector<float> scratch(ConvTransposeScratchBytes(s) / sizeof(float) + 1, std::nanf(""));
      ConvTranspose2dGemm(table(), s, x.data(), packed.data(), bias.data(), act, fast.data(),
                          scratch.data());
      EXPECT_TRUE(AllClose(want, direct, 1e-5f, 1e-5f))
          << "reference, cin " << c.cin << " k " << c.kh << "x" << c.kw;
      EXPECT_TRUE(AllClose(want, fast, 1e-5f, 1e-5f))
          << "gemm path, cin " << c.cin << " k " << c.kh << "x" << c.kw;
    }
  }
}

// The scalar table too: this test has an independent oracle.
EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(ConvTransposeTest);

}  // namespace
}  // namespace edgefold::kernels::testing
