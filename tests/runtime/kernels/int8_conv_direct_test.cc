// The im2col-free int8 convolution GEMM (Int8KernelTable::conv_s8_direct: the x86 levels and
// their VNNI entries, rows from kernels/simd/int8_b_rows_x86.h) against the reference im2col and GEMM, bit for bit:
// blocks inside a row, at its edges, across rows (widths under, at and off the register),
// horizontal strides 1 and 2,
// images narrower than a register, dilation, asymmetric padding, a vertical stride, odd k and
// k off the 4-k quads, m off the 8-row tiles, k deep enough that A is widened in chunks; full-range weights (the int16 pairs) and weights
// at the u8·s8 bound (the quads); and column ranges that start anywhere (the op's threads).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/conv/conv_s8_direct.h"
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

class Int8ConvDirectTest : public KernelTest {};

std::vector<int8_t> RandomS8(size_t n, unsigned seed, int lo, int hi) {
  std::mt19937 gen(seed + static_cast<unsigned>(n) * 37u);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

struct Geometry {
  size_t c, h, w, kh, kw, dil, pt, pl, pb, pr, stride_h, stride_w = 1;
};

Conv2dShape ShapeOf(const Geometry& g, size_t out_c) {
  Conv2dShape s;
  s.in_c = g.c;
  s.out_c = out_c;
  s.group = 1;
  s.in_h = g.h;
  s.in_w = g.w;
  s.kh = g.kh;
  s.kw = g.kw;
  s.dilation_h = s.dilation_w = g.dil;
  s.stride_h = g.stride_h;
  s.stride_w = g.stride_w;
  s.pad_top = g.pt;
  s.pad_left = g.pl;
  s.out_h = (g.h + g.pt + g.pb - (g.kh - 1) * g.dil - 1) / g.stride_h + 1;
  s.out_w = (g.w + g.pl + g.pr - (g.kw - 1) * g.dil - 1) / g.stride_w + 1;
  return s;
}

// Weights with every even-k pair at most 128 in magnitude (S8PairsFitU8), many exactly at it.
std::vector<int8_t> WeightsThatFitU8(size_t m, size_t k, unsigned seed) {
  std::vector<int8_t> a = RandomS8(m * k, seed, -64, 64);
  for (size_t i = 0; i < m; ++i)
    for (size_t q = 0; q + 1 < k; q += 6) {
      a[i * k + q] = static_cast<int8_t>((i + q) % 2 == 0 ? -128 : 127);
      a[i * k + q + 1] = static_cast<int8_t>((i + q) % 2 == 0 ? 0 : 1);
    }
  return a;
}

// A shift that brings a typical sum of k random products (√k·128·74) near ±50: most outputs
// inside the clamp, so a wrong sum shows.
int32_t TypicalShift(size_t k) {
  int32_t s = 0;
  while (std::sqrt(static_cast<double>(k)) * 9472.0 / static_cast<double>(int64_t{2} << s) > 50.0)
    ++s;
  return s;
}

// Whether the level's active int8 table must have the im2col-free conv: SSE4.2, AVX2 and
// AVX-512 with VNNI have one (the VNNI entry exists only in x86 builds).
bool HasDirectConv(Isa isa) {
  if (isa == Isa::kAvx2Fma || isa == Isa::kSse42) return true;
#if defined(EDGEFOLD_HAVE_AVX512_VNNI)
  if (isa == Isa::kAvx512 && ActiveEntry(Isa::kAvx512) == IsaEntry::avx512_vnni) return true;
#endif
  return false;
}

TEST_P(Int8ConvDirectTest, MatchesReferenceIm2colAndGemmBitForBit) {
  if (HasDirectConv(GetParam())) {
    ASSERT_NE(int8().conv_s8_direct, nullptr) << "this level has the im2col-free conv";
  }
  if (int8().conv_s8_direct == nullptr) GTEST_SKIP() << "no im2col-free int8 conv at this level";
  for (const Geometry& g : {
           Geometry{16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1},  // ResNet-8's first stage
           Geometry{5, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1},     // one block per row, both edges
           Geometry{3, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},     // blocks across rows
           Geometry{4, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1},   // 14 = 8 + 6: across rows too
           Geometry{2, 4, 4, 5, 5, 1, 2, 2, 2, 2, 1},     // an image narrower than a register
           Geometry{3, 9, 11, 3, 3, 2, 2, 2, 2, 2, 1},    // dilation
           Geometry{3, 6, 10, 2, 2, 1, 1, 1, 0, 0, 1},    // asymmetric padding
           Geometry{7, 1, 12, 3, 3, 1, 1, 1, 1, 1, 1},    // one row
           Geometry{3, 12, 1, 3, 3, 1, 1, 1, 1, 1, 1},    // one column
           Geometry{3, 5, 20, 1, 3, 1, 0, 1, 0, 1, 1},    // 1 × 3
           Geometry{2, 10, 13, 3, 3, 1, 0, 0, 0, 0, 1},   // no padding
           Geometry{3, 9, 17, 3, 3, 1, 1, 1, 1, 1, 2},    // vertical stride 2
           Geometry{3, 17, 12, 1, 1, 1, 1, 1, 1, 1, 1},   // 1 × 1 with padding
           Geometry{1, 6, 9, 4, 7, 1, 3, 3, 0, 3, 1},     // wider window than padding
           Geometry{2, 5, 40, 3, 3, 1, 1, 9, 1, 9, 1},    // padding wider than a register
           // AVX-512 VNNI's 16-pixel blocks: one per row, across rows, more than two rows.
           Geometry{4, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1},
           Geometry{3, 9, 18, 3, 3, 1, 1, 1, 1, 1, 1},   // 18 = 16 + 2
           Geometry{3, 10, 15, 3, 3, 1, 1, 1, 1, 1, 1},  // 15: every block across rows
           Geometry{2, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1},    // 5 wide: a block over four rows
           Geometry{2, 4, 20, 3, 3, 1, 1, 1, 1, 1, 1},   // 4 rows of 20: plane ≥ 16, blocks split
           // Horizontal stride 2: 16 input bytes a row, rows narrower than that gathered.
           Geometry{3, 9, 17, 3, 3, 1, 1, 1, 1, 1, 2, 2},
           Geometry{4, 12, 40, 3, 3, 1, 1, 1, 1, 1, 2, 2},   // 20 wide: blocks across rows
           Geometry{3, 10, 70, 3, 3, 1, 1, 1, 1, 1, 2, 2},   // 35 wide
           Geometry{2, 33, 64, 3, 3, 1, 1, 1, 1, 1, 2, 2},   // 32 wide, the last byte read
           Geometry{2, 8, 65, 3, 3, 1, 0, 0, 0, 0, 1, 2},    // no padding, stride 2 across only
           Geometry{3, 11, 40, 3, 3, 2, 2, 2, 2, 2, 2, 2},   // dilation 2
           Geometry{1, 49, 10, 10, 4, 1, 4, 1, 5, 2, 2, 2},  // DS-CNN's first conv
           Geometry{3, 7, 34, 3, 3, 1, 1, 1, 1, 1, 2, 2},
           // ResNet-18's last stage: k = 4608, A widened a chunk of 8 rows at a time and the
           // columns packed two blocks per group.
           Geometry{512, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},
       }) {
    for (size_t m : {size_t{1}, size_t{5}, size_t{8}, size_t{17}, size_t{32}})
      for (int fit = 0; fit < 2; ++fit) {
        const Conv2dShape s = ShapeOf(g, m);
        ASSERT_TRUE(ConvS8DirectFits(s));
        const size_t k = g.c * g.kh * g.kw, pixels = s.out_h * s.out_w;
        const std::vector<int8_t> x = RandomS8(g.c * g.h * g.w, 11, -128, 127);
        std::vector<int8_t> a =
            fit == 1 ? WeightsThatFitU8(m, k, 5) : RandomS8(m * k, 5, -128, 127);
        if (fit == 0) {  // one pair past the bound: the int16 pairs run
          a[0] = 127;
          a[1] = -127;
        }
        std::vector<int32_t> bias(m), mult(m), shift(m);
        for (size_t i = 0; i < m; ++i) {
          bias[i] = static_cast<int32_t>(i * 733) - 3000;
          mult[i] = (1 << 30) + static_cast<int32_t>(i * 98765);
          shift[i] = TypicalShift(k);
        }
        GemmS8Params p;
        p.m = m;
        p.k = k;
        p.lda = k;
        p.ldy = pixels;
        p.bias = bias.data();
        p.multiplier = mult.data();
        p.shift = shift.data();
        p.y_zero_point = 3;
        p.act_min = -120;
        p.act_max = 125;
        p.a_pairs_fit_u8 = S8PairsFitU8(a.data(), m, k, k);
        ASSERT_EQ(p.a_pairs_fit_u8, fit == 1);
        const int8_t pad = -5;
        std::vector<int8_t> col(k * pixels), want(m * pixels, 99);
        ref::Im2colS8(s, x.data(), pad, 0, s.out_h, col.data());
        GemmS8Params whole = p;
        whole.n = pixels;
        whole.ldb = pixels;
        ref::GemmS8(whole, a.data(), col.data(), want.data());
        // Whole, then in ranges of 32 (the op's split), then in ranges of 13 from 5.
        for (size_t step : {pixels, size_t{32}, size_t{13}}) {
          std::vector<int8_t> got(m * pixels, 99);
          size_t j0 = step == 13 ? std::min<size_t>(5, pixels) : 0;
          if (j0 > 0) {
            GemmS8Params part = p;
            part.n = j0;
            int8().conv_s8_direct(part, s, x.data(), pad, a.data(), 0, got.data());
          }
          for (; j0 < pixels; j0 += step) {
            GemmS8Params part = p;
            part.n = std::min(step, pixels - j0);
            int8().conv_s8_direct(part, s, x.data(), pad, a.data(), j0, got.data() + j0);
          }
          ASSERT_EQ(want, got) << g.c << "x" << g.h << "x" << g.w << " k" << g.kh << "x" << g.kw
                               << " d" << g.dil << " s" << g.stride_h << "x" << g.stride_w << " m "
                               << m << " fit " << fit << " step " << step;
        }
      }
  }
}

// The shapes the op sends elsewhere: a horizontal stride past 2, a window or depth past the
// limits.
TEST(Int8ConvDirect, FitsOnlyWhatThePanelsHold) {
  Conv2dShape s = ShapeOf(Geometry{16, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1}, 8);
  EXPECT_TRUE(ConvS8DirectFits(s));
  s.stride_w = 2;
  EXPECT_TRUE(ConvS8DirectFits(s));
  s.stride_w = 3;
  EXPECT_FALSE(ConvS8DirectFits(s));
  s.stride_w = 1;
  s.in_c = kConvS8DirectMaxK / 9 + 1;
  EXPECT_FALSE(ConvS8DirectFits(s));
  s.in_c = kConvS8DirectMaxK / 9;
  EXPECT_TRUE(ConvS8DirectFits(s));
  s.in_c = 1;
  s.kh = 9;
  s.kw = 8;  // 72 taps
  EXPECT_FALSE(ConvS8DirectFits(s));
}

EDGEFOLD_INSTANTIATE_SIMD(Int8ConvDirectTest);

}  // namespace
}  // namespace edgefold::kernels::testing
