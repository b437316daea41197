// int8 kernels: every table against the scalar reference bit for bit (GEMM at sizes around
// the register width, including the matrix-vector path; Quantize/Dequantize with ties, NaN
// and out-of-range values; add and pools), and the reference against hand values of the
// rounding rules (docs/quantization.md).
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/conv/conv_scratch.h"
#include "testing/kernel_test_util.h"
#if defined(__ARM_NEON)
#include "kernels/simd/requant_neon.h"
#endif

namespace edgefold::kernels::testing {
namespace {

class Int8Test : public KernelTest {};

std::vector<int8_t> RandomS8(size_t n, unsigned seed) {
  std::mt19937 gen(seed + static_cast<unsigned>(n) * 31u);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

// The parameters of a dense row-major m × k by k × n int8 GEMM (no row padding) with per-row
// requantization into [act_min, act_max] around y_zero_point.
GemmS8Params DenseGemm(size_t m, size_t n, size_t k, const std::vector<int32_t>& bias,
                       const std::vector<int32_t>& mult, const std::vector<int32_t>& shift,
                       int32_t y_zero_point, int32_t act_min, int32_t act_max) {
  GemmS8Params p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = k;
  p.ldb = n;
  p.ldy = n;
  p.bias = bias.data();
  p.multiplier = mult.data();
  p.shift = shift.data();
  p.y_zero_point = y_zero_point;
  p.act_min = act_min;
  p.act_max = act_max;
  return p;
}

TEST(Int8Reference, RequantizeRoundsHalfAwayFromZero) {
  // acc·M / 2^(31+shift) with M = 2^30, shift = 0: acc / 2.
  EXPECT_EQ(RequantizeS8(5, 1 << 30, 0, 0, -128, 127), 3);    // 2.5 → 3
  EXPECT_EQ(RequantizeS8(-5, 1 << 30, 0, 0, -128, 127), -3);  // −2.5 → −3
  EXPECT_EQ(RequantizeS8(3, 1 << 30, 0, 10, -128, 127), 12);  // 1.5 → 2, + zp 10
  EXPECT_EQ(RequantizeS8(4, 1 << 30, -1, 0, -128, 127), 4);   // shift −1: acc·1
  EXPECT_EQ(RequantizeS8(1000, 1 << 30, 0, 0, -128, 127), 127);
  EXPECT_EQ(RequantizeS8(-9, 1 << 30, 0, 0, 0, 127), 0);  // fused Relu: clamp at zp
}

#if defined(__ARM_NEON)
// NEON's four-lane RequantizeS8 (the doubling form for shift ≥ 1, 64-bit products below) against
// the scalar rule at the edges: INT32_MIN and INT32_MAX, exact ties of both signs, every shift.
TEST(Int8Reference, NeonRequantizeS32x4MatchesTheRuleAtTheEdges) {
  for (int32_t shift = -30; shift <= 31; ++shift)
    for (int32_t m : {int32_t{1} << 30, (int32_t{1} << 30) + 1, 1518500250, INT32_MAX}) {
      const int n = 31 + shift;
      // acc·M = ±2^(n−1) exactly (a tie) where M = 2^30 and n − 31 ≤ 30.
      const int32_t tie = n - 31 >= 1 && n - 31 <= 30 ? int32_t{1} << (n - 31) : 3;
      const int32_t accs[] = {INT32_MIN,     INT32_MIN + 1, -tie,     -1,      0,       1,    tie,
                              INT32_MAX - 1, INT32_MAX,     -tie - 1, tie + 1, -123457, 98765};
      for (size_t a = 0; a < sizeof accs / sizeof accs[0]; a += 4) {
        int32_t lanes[4] = {0, 0, 0, 0};
        for (size_t l = 0; l < 4 && a + l < sizeof accs / sizeof accs[0]; ++l)
          lanes[l] = accs[a + l];
        int32_t got[4];
        vst1q_s32(got, neon_requant::RequantizeS32x4(vld1q_s32(lanes), m, shift, -3, -128, 127));
        for (size_t l = 0; l < 4; ++l)
          EXPECT_EQ(got[l], RequantizeS8(lanes[l], m, shift, -3, -128, 127))
              << lanes[l] << " m " << m << " shift " << shift;
      }
    }
}
#endif

TEST(Int8Reference, QuantizeRoundsHalfToEvenAndSaturates) {
  const float x[7] = {2.5f, 3.5f, -2.5f, 1000.0f, -1000.0f, std::numeric_limits<float>::quiet_NaN(),
                      0.26f};
  int8_t q[7];
  ref::QuantizeS8(QuantS8Params{0.5f, 2.0f, 1}, x, q, 7);  // x/0.5 + 1
  EXPECT_EQ(q[0], 6);                                      // 5 + 1
  EXPECT_EQ(q[1], 8);                                      // 7 + 1
  EXPECT_EQ(q[2], -4);                                     // −5 + 1
  EXPECT_EQ(q[3], 127);
  EXPECT_EQ(q[4], -128);
  EXPECT_EQ(q[5], 1);                    // NaN → zero point
  EXPECT_EQ(q[6], 2);                    // 0.52 → 1, + 1
  const float ties[2] = {0.25f, 0.75f};  // /0.5: 0.5 → 0, 1.5 → 2
  ref::QuantizeS8(QuantS8Params{0.5f, 2.0f, 0}, ties, q, 2);
  EXPECT_EQ(q[0], 0);
  EXPECT_EQ(q[1], 2);
}

TEST(Int8Reference, GemmHandValue) {
  const int8_t a[2] = {3, -2}, b[2] = {10, 7};  // 30 − 14 = 16, + bias 4 = 20 → /2 = 10
  const int32_t bias = 4, mult = 1 << 30, shift = 0;
  GemmS8Params p;
  p.m = 1;
  p.n = 1;
  p.k = 2;
  p.lda = 2;
  p.ldb = 1;
  p.ldy = 1;
  p.bias = &bias;
  p.multiplier = &mult;
  p.shift = &shift;
  p.y_zero_point = -3;
  int8_t y = 0;
  ref::GemmS8(p, a, b, &y);
  EXPECT_EQ(y, 7);
}

TEST(Int8Reference, AveragePoolRoundsTheMean) {
  const int8_t x[4] = {1, 2, 2, 2};       // mean 1.75 → 2; {-1,-2,-2,-2}: −1.75 → −2
  const int8_t xn[4] = {-1, -2, -2, -3};  // −2 exactly
  int8_t y = 0;
  ref::GlobalPoolS8(PoolKind::kAverage, x, &y, 1, 4);
  EXPECT_EQ(y, 2);
  ref::GlobalPoolS8(PoolKind::kAverage, xn, &y, 1, 4);
  EXPECT_EQ(y, -2);
  const int8_t half[2] = {-1, -2};  // −1.5 → −2 (half away from zero)
  ref::GlobalPoolS8(PoolKind::kAverage, half, &y, 1, 2);
  EXPECT_EQ(y, -2);
}

// im2col_s8 against the definition, one entry at a time (padding reads the zero point).
// The max pool (row-wise maxima over the columns in bounds) against its definition: windows
// with padding, strides 1 to 3, dilation, and windows that see no pixel (→ zero point).
TEST(Int8Reference, MaxPoolMatchesTheDefinition) {
  struct Geometry {
    size_t h, w, k, stride, dil, pad;
  };
  for (const Geometry& g :
       {Geometry{7, 9, 3, 2, 1, 1}, Geometry{12, 300, 3, 1, 1, 1}, Geometry{5, 11, 2, 3, 1, 0},
        Geometry{9, 8, 3, 2, 2, 2}, Geometry{3, 3, 1, 3, 1, 2}, Geometry{6, 40, 5, 1, 1, 4}}) {
    Pool2dParams p;
    p.kind = PoolKind::kMax;
    p.in_h = g.h;
    p.in_w = g.w;
    p.kh = g.k;
    p.kw = g.k;
    p.stride_h = g.stride;
    p.stride_w = g.stride;
    p.dilation_h = g.dil;
    p.dilation_w = g.dil;
    p.pad_top = g.pad;
    p.pad_left = g.pad;
    p.out_h = (g.h + 2 * g.pad - g.dil * (g.k - 1) - 1) / g.stride + 1;
    p.out_w = (g.w + 2 * g.pad - g.dil * (g.k - 1) - 1) / g.stride + 1;
    const std::vector<int8_t> x = RandomS8(2 * g.h * g.w, 6);
    std::vector<int8_t> got(2 * p.out_h * p.out_w, 99);
    ref::Pool2dS8(p, -9, x.data(), got.data(), 2);
    size_t bad = 0;
    for (size_t c = 0; c < 2; ++c)
      for (size_t oh = 0; oh < p.out_h; ++oh)
        for (size_t ow = 0; ow < p.out_w; ++ow) {
          int want = -9;
          bool any = false;
          for (size_t r = 0; r < g.k; ++r)
            for (size_t t = 0; t < g.k; ++t) {
              const long ih =
                  static_cast<long>(oh * g.stride + r * g.dil) - static_cast<long>(g.pad);
              const long iw =
                  static_cast<long>(ow * g.stride + t * g.dil) - static_cast<long>(g.pad);
              if (ih < 0 || iw < 0 || ih >= static_cast<long>(g.h) || iw >= static_cast<long>(g.w))
                continue;
              const int v = x[(c * g.h + static_cast<size_t>(ih)) * g.w + static_cast<size_t>(iw)];
              want = any ? std::max(want, v) : v;
              any = true;
            }
          bad += got[(c * p.out_h + oh) * p.out_w + ow] != want;
        }
    EXPECT_EQ(bad, 0u) << g.h << "x" << g.w << " k" << g.k << " s" << g.stride << " d" << g.dil
                       << " p" << g.pad;
  }
}

TEST(Int8Reference, Im2colMatchesTheDefinition) {
  for (size_t stride : {size_t{1}, size_t{2}, size_t{3}})
    for (size_t dil : {size_t{1}, size_t{2}}) {
      Conv2dShape s;
      s.in_c = 3;
      s.in_h = 7;
      s.in_w = 9;
      s.kh = 3;
      s.kw = 2;
      s.stride_h = s.stride_w = stride;
      s.dilation_h = s.dilation_w = dil;
      s.pad_top = 1;
      s.pad_left = 2;
      s.out_h = (7 + 2 - dil * 2 - 1) / stride + 1;
      s.out_w = (9 + 3 - dil * 1 - 1) / stride + 1;
      const std::vector<int8_t> x = RandomS8(3 * 63, 9);
      std::vector<int8_t> col(3 * 6 * s.out_h * s.out_w, 0);
      ref::Im2colS8(s, x.data(), -9, 0, s.out_h, col.data());
      size_t bad = 0;
      for (size_t c = 0; c < 3; ++c)
        for (size_t r = 0; r < 3; ++r)
          for (size_t t = 0; t < 2; ++t)
            for (size_t oh = 0; oh < s.out_h; ++oh)
              for (size_t ow = 0; ow < s.out_w; ++ow) {
                const long ih = long(oh * stride + r * dil) - 1,
                           iw = long(ow * stride + t * dil) - 2;
                const int8_t want = (ih >= 0 && ih < 7 && iw >= 0 && iw < 9)
                                        ? x[(c * 7 + size_t(ih)) * 9 + size_t(iw)]
                                        : -9;
                bad += col[(((c * 3 + r) * 2 + t) * s.out_h + oh) * s.out_w + ow] != want;
              }
      EXPECT_EQ(bad, 0u) << "stride " << stride << " dilation " << dil;
    }
}

TEST_P(Int8Test, GemmMatchesReferenceBitForBit) {
  const size_t w = W();
  for (size_t n : AwkwardSizes()) {
    if (n > 300) n = 300;
    for (size_t m : {size_t{1}, size_t{3}, size_t{4}, size_t{9}, size_t{29}})
      for (size_t k : {size_t{1}, w - 1 + (w == 1), w + 1, size_t{27}, size_t{300}}) {
        const std::vector<int8_t> a = RandomS8(m * k, 1), b = RandomS8(k * n, 2);
        std::vector<int32_t> bias(m), mult(m), shift(m);
        for (size_t i = 0; i < m; ++i) {
          bias[i] = static_cast<int32_t>(i * 977) - 3000;
          mult[i] = (1 << 30) + static_cast<int32_t>(i * 123457);
          // Real multipliers 2^−1 … 2^−13, and for odd n 2^−2 … 2^−14: every shift ≥ 1 (NEON's
          // doubling form, taken when every row allows it).
          shift[i] = static_cast<int32_t>(i % 12 + n % 2);
        }
        // Biases at the edge of int32 that the sums cannot pass: the doubling form's bound (n = 5),
        // one past it (n = 9: every row then takes the 64-bit form).
        const int64_t bound = int64_t{INT32_MAX} - static_cast<int64_t>(k) * 128 * 128;
        if (m > 6 && n == 5) {
          bias[5] = static_cast<int32_t>(bound);
          bias[6] = static_cast<int32_t>(-bound);
        }
        if (m > 6 && n == 9) bias[2] = static_cast<int32_t>(-bound - 1);
        const GemmS8Params p = DenseGemm(m, n, k, bias, mult, shift, 5, -100, 120);
        std::vector<int8_t> want(m * n), got(m * n, 99);
        ref::GemmS8(p, a.data(), b.data(), want.data());
        int8().gemm_s8(p, a.data(), b.data(), got.data());
        EXPECT_EQ(want, got) << m << "x" << n << "x" << k;
      }
  }
}

// Where a level has an int8 extension entry (AVX-512 VNNI, AVX-VNNI, AArch64 sdot), TableFor gives the
// extension's table on CPUs that have it: the level's own int8 table is checked here, and the
// extension's at row counts through every tile and k around 4 (nullptr where the CPU lacks it).
std::vector<std::pair<const Int8KernelTable*, const Int8KernelTable*>> PlainAndExtendedTables() {
  std::vector<std::pair<const Int8KernelTable*, const Int8KernelTable*>> tables;
#if defined(EDGEFOLD_HAVE_AVX512_VNNI)
  if (IsaAvailable(Isa::kAvx512))
    tables.emplace_back(&avx512::kInt8Table, ActiveEntry(Isa::kAvx512) == IsaEntry::avx512_vnni
                                                 ? &avx512_vnni::kInt8Table
                                                 : nullptr);
#endif
#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
  // AVX-VNNI where the CPU has it, else its EVEX twin where AVX-512 VNNI and VL run it (called
  // here by name: the level picks the twin only when EDGEFOLD_ISA=avx2+vnni asks for it).
  if (IsaAvailable(Isa::kAvx2Fma)) {
    const Int8KernelTable* vnni = nullptr;
    if (ActiveEntry(Isa::kAvx2Fma) == IsaEntry::avx2_vnni)
      vnni = &avx2_vnni::kInt8Table;
    else if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl"))
      vnni = &avx2_vnni_evex::kInt8Table;
    tables.emplace_back(&avx2_fma::kInt8Table, vnni);
  }
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
  tables.emplace_back(&neon::kInt8Table, ActiveEntry(Isa::kNeon) == IsaEntry::neon_dotprod
                                             ? &neon_dotprod::kInt8Table
                                             : nullptr);
#endif
  return tables;
}

const char* TableName(const Int8KernelTable* t, const Int8KernelTable* plain) {
  return t == plain ? "level" : "extension";
}

// Weights in [−127, 127] (the quantizer's symmetric range: AArch64 without dotprod then sums
// two int8 products in int16, gemm_s8_smull_neon.h) at the extremes that bound those sums
// (±127 against −128), random ones, and one −128 in A (that kernel must step aside). Columns
// end in blocks of one to four groups of four (sdot's last 16-column block: 17, 5, 28, 64).
TEST_P(Int8Test, GemmWithSymmetricWeightsMatchesReference) {
  for (size_t m : {size_t{1}, size_t{4}, size_t{5}, size_t{17}})
    for (size_t n : {size_t{3}, size_t{4}, size_t{5}, size_t{17}, size_t{28}, size_t{64}})
      for (size_t k : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{64}, size_t{300}})
        for (int kind = 0; kind < 3; ++kind) {
          std::vector<int8_t> a = RandomS8(m * k, 11), b = RandomS8(k * n, 12);
          for (size_t e = 0; e < a.size(); ++e) {
            if (kind == 0)
              a[e] = static_cast<int8_t>(e % 3 == 0 ? -127 : 127);
            else
              a[e] = std::max<int8_t>(a[e], -127);
          }
          if (kind == 0) std::fill(b.begin(), b.end(), int8_t{-128});
          if (kind == 2) {  // −128·−128 twice in lanes smull pairs (k and k + 8): 32,768
            a[0] = -128;
            if (k > 8) {
              a[8] = -128;
              for (size_t j = 0; j < n; ++j) b[j] = b[8 * n + j] = -128;
            }
          }
          // Scaled so the largest possible sum lands near ±100: an int16 overflow (an error of
          // 65,536) would move outputs by hundreds.
          int32_t s = 0;
          while ((static_cast<int64_t>(k) * 16256 >> (s + 1)) > 100) ++s;
          std::vector<int32_t> bias(m, 17), mult(m, 1 << 30), shift(m, s);
          const GemmS8Params p = DenseGemm(m, n, k, bias, mult, shift, -3, -128, 127);
          std::vector<int8_t> want(m * n);
          ref::GemmS8(p, a.data(), b.data(), want.data());
          // This level's table and the plain tables of levels with an extension (sdot, VNNI):
          // the smull kernel is the plain NEON table's, which a CPU with sdot does not select.
          std::vector<const Int8KernelTable*> checked = {&int8()};
          for (const auto& [plain, extended] : PlainAndExtendedTables())
            if (plain != &int8()) checked.push_back(plain);
          for (const Int8KernelTable* t : checked) {
            std::vector<int8_t> got(m * n, 99);
            t->gemm_s8(p, a.data(), b.data(), got.data());
            EXPECT_EQ(want, got) << (t == &int8() ? "selected" : "level") << " " << m << "x" << n
                                 << "x" << k << " kind " << kind;
          }
        }
}

// B and Y inside wider rows (ConvInt8 passes a column range of the im2col or the input plane),
// A without −128 (the NEON smull kernel's domain), no bias, and shapes off every tile: rows
// 1..13, columns around the 8- and 16-column panels, k around the 4-k quads and 16-k loads.
TEST_P(Int8Test, GemmStridedSymmetricMatchesReference) {
  for (size_t m : {size_t{2}, size_t{3}, size_t{7}, size_t{8}, size_t{13}})
    for (size_t n : {size_t{4}, size_t{6}, size_t{15}, size_t{16}, size_t{33}})
      for (size_t k : {size_t{3}, size_t{4}, size_t{5}, size_t{19}, size_t{33}, size_t{144}}) {
        const size_t lda = k + 2, ldb = n + 5, ldy = n + 3;
        std::vector<int8_t> a = RandomS8(m * lda, 21), b = RandomS8(k * ldb, 22);
        for (int8_t& v : a) v = std::max<int8_t>(v, -127);
        std::vector<int32_t> mult(m), shift(m);
        for (size_t i = 0; i < m; ++i) {
          // The rule's whole shift range [−30, 31] (n = 31 + shift from 1: saturating rows,
          // to 62: rows of zero points), mostly the common n of 33..39.
          constexpr int32_t kShifts[] = {2, -30, 5, -1, 8, 31, 4, 0, 6, 3, 7, 1, 13};
          mult[i] = (1 << 30) + static_cast<int32_t>(i * 54321);
          shift[i] = kShifts[i % 13];
        }
        GemmS8Params p;
        p.m = m;
        p.n = n;
        p.k = k;
        p.lda = lda;
        p.ldb = ldb;
        p.ldy = ldy;
        p.bias = nullptr;
        p.multiplier = mult.data();
        p.shift = shift.data();
        p.y_zero_point = -7;
        p.act_min = -128;
        p.act_max = 100;
        std::vector<int8_t> want(m * ldy, 55);
        ref::GemmS8(p, a.data(), b.data(), want.data());
        // The selected table and the plain tables of levels with an extension (NEON's smull
        // GEMM where the CPU has sdot).
        std::vector<const Int8KernelTable*> checked = {&int8()};
        for (const auto& [plain, extended] : PlainAndExtendedTables())
          if (plain != &int8()) checked.push_back(plain);
        for (const Int8KernelTable* t : checked) {
          std::vector<int8_t> got(m * ldy, 55);
          t->gemm_s8(p, a.data(), b.data(), got.data());
          EXPECT_EQ(want, got) << (t == &int8() ? "selected" : "level") << " " << m << "x" << n
                               << "x" << k;
        }
      }
}

TEST(Int8Extensions, PlainAndExtendedGemmMatchReference) {
  const auto tables = PlainAndExtendedTables();
  if (tables.empty()) GTEST_SKIP() << "no level with an int8 extension variant in this build/CPU";
  // Rows through every tile height (VNNI: 6 or 8, then 4, 2, 1), panels of one to four
  // registers and a partial last one, k deep enough that VNNI narrows its panel (2600: three
  // registers, 5200: one) or falls back (9000), and one column (VNNI's dot products).
  for (size_t m : {size_t{16}, size_t{31}, size_t{45}})
    for (size_t n : {size_t{1}, size_t{4}, size_t{17}, size_t{28}, size_t{40}, size_t{49},
                     size_t{64}, size_t{130}})
      for (size_t k : {size_t{3}, size_t{4}, size_t{5}, size_t{66}, size_t{577}, size_t{2600},
                       size_t{5200}, size_t{9000}}) {
        const std::vector<int8_t> a = RandomS8(m * k, 3), b = RandomS8(k * (n + 2), 4);
        std::vector<int32_t> bias(m), mult(m), shift(m);
        for (size_t i = 0; i < m; ++i) {
          bias[i] = static_cast<int32_t>(i * 4099) - 50000;
          mult[i] = (1 << 30) + static_cast<int32_t>(i * 7654321);
          shift[i] = static_cast<int32_t>(i % 17) - 2;  // some real multipliers above 1: saturation
        }
        GemmS8Params p;
        p.m = m;
        p.n = n;
        p.k = k;
        p.lda = k;
        p.ldb = n == 1 ? 1 : n + 2;  // one contiguous column: GemmInt8's dot products
        p.ldy = n;
        p.bias = bias.data();
        p.multiplier = mult.data();
        p.shift = shift.data();
        p.y_zero_point = -7;
        p.act_min = -128;
        p.act_max = 127;
        std::vector<int8_t> want(m * n);
        ref::GemmS8(p, a.data(), b.data(), want.data());
        for (const auto& [plain, extended] : tables)
          for (const Int8KernelTable* t : {plain, extended}) {
            if (t == nullptr) continue;
            std::vector<int8_t> got(m * n, 99);
            t->gemm_s8(p, a.data(), b.data(), got.data());
            EXPECT_EQ(want, got) << TableName(t, plain) << " " << m << "x" << n << "x" << k;
          }
      }
}

// The extension's depthwise (VNNI: four taps per vpdpbusd, 64 outputs a step) and the plain
// level's against the reference: 3×3 and 5×5, both strides, rows shorter and longer than a
// 64-output step, and per-channel multipliers above and below 1.
TEST(Int8Extensions, PlainAndExtendedDepthwiseMatchReference) {
  const auto tables = PlainAndExtendedTables();
  if (tables.empty()) GTEST_SKIP() << "no level with an int8 extension variant in this build/CPU";
  for (size_t stride : {size_t{1}, size_t{2}})
    for (size_t k : {size_t{3}, size_t{5}, size_t{2}})
      for (size_t hw : {size_t{7}, size_t{56}, size_t{97}}) {
        Conv2dShape s;
        s.in_c = s.out_c = s.group = 6;
        s.in_h = hw;
        s.in_w = hw + 3;
        s.kh = s.kw = k;
        s.stride_h = s.stride_w = stride;
        s.pad_top = s.pad_left = k / 2;
        s.out_h = (s.in_h + 2 * (k / 2) - k) / stride + 1;
        s.out_w = (s.in_w + 2 * (k / 2) - k) / stride + 1;
        const std::vector<int8_t> x = RandomS8(6 * s.in_h * s.in_w, 21),
                                  w = RandomS8(6 * k * k, 22);
        std::vector<int32_t> bias = {-7000, 0, 321, 50000, -12, 9}, mult(6),
                             shift = {-2, 0, 3, 6, 9, 12};
        for (size_t c = 0; c < 6; ++c) mult[c] = (1 << 30) + static_cast<int32_t>(c * 98765431);
        GemmS8Params rq;
        rq.bias = bias.data();
        rq.multiplier = mult.data();
        rq.shift = shift.data();
        rq.y_zero_point = 5;
        rq.act_min = -128;
        rq.act_max = 120;
        std::vector<int8_t> want(6 * s.out_h * s.out_w);
        ref::Conv2dDepthwiseS8(s, x.data(), w.data(), 11, rq, nullptr, want.data());
        for (const auto& [plain, extended] : tables)
          for (const Int8KernelTable* t : {plain, extended}) {
            if (t == nullptr) continue;
            std::vector<int8_t> plane(kernels::ConvS8DepthwisePlaneBytes(s), 0x55),
                got(want.size(), 99);
            t->conv2d_depthwise_s8(s, x.data(), w.data(), 11, rq, plane.data(), got.data());
            EXPECT_EQ(want, got) << TableName(t, plain) << " " << hw << " k" << k << " s" << stride;
          }
      }
}

// Depthwise stride 1 over the padded plane against the direct reference: kernel sizes,
// dilation, asymmetric padding, rows narrower and wider than a register.
TEST_P(Int8Test, DepthwiseMatchesReferenceBitForBit) {
  struct Geometry {
    size_t h, w, k, dil, pt, pl, pb, pr;
  };
  for (size_t sh : {size_t{1}, size_t{2}})
    for (size_t sw : {size_t{1}, size_t{2}})
      for (const Geometry& g :
           {Geometry{25, 5, 3, 1, 1, 1, 1, 1}, Geometry{7, W() + 1, 3, 2, 2, 2, 2, 2},
            Geometry{13, 17, 5, 1, 2, 1, 2, 3}, Geometry{1, 1, 1, 1, 0, 0, 0, 0},
            Geometry{9, W() - 1 + (W() == 1), 3, 1, 0, 0, 0, 0},
            Geometry{14, 2 * W() + 3, 3, 1, 0, 0, 1, 1}, Geometry{8, 3, 2, 1, 0, 1, 0, 0},
            Geometry{5, 133, 3, 1, 1, 1, 1, 1}, Geometry{17, 2 * W() + 5, 7, 1, 3, 3, 3, 2},
            Geometry{11, 37, 5, 1, 2, 2, 2, 2}}) {
        Conv2dShape s;
        s.in_c = s.out_c = s.group = 5;
        s.in_h = g.h;
        s.in_w = g.w;
        s.kh = s.kw = g.k;
        s.dilation_h = s.dilation_w = g.dil;
        s.stride_h = sh;
        s.stride_w = sw;
        s.pad_top = g.pt;
        s.pad_left = g.pl;
        const size_t span = (g.k - 1) * g.dil + 1;
        if (g.h + g.pt + g.pb < span || g.w + g.pl + g.pr < span) continue;
        s.out_h = (g.h + g.pt + g.pb - span) / sh + 1;
        s.out_w = (g.w + g.pl + g.pr - span) / sw + 1;
        const std::vector<int8_t> x = RandomS8(5 * g.h * g.w, 11), w = RandomS8(5 * g.k * g.k, 12);
        std::vector<int32_t> bias = {-700, 0, 321, 5000, -12}, mult(5, (1 << 30) + 777),
                             shift = {3, 4, 5, 6, 7};
        GemmS8Params rq;
        rq.bias = bias.data();
        rq.multiplier = mult.data();
        rq.shift = shift.data();
        rq.y_zero_point = -20;
        rq.act_min = -20;
        rq.act_max = 127;
        std::vector<int8_t> plane(kernels::ConvS8DepthwisePlaneBytes(s), 0x55);
        std::vector<int8_t> want(5 * s.out_h * s.out_w), got(want.size(), 99);
        ref::Conv2dDepthwiseS8(s, x.data(), w.data(), -3, rq, nullptr, want.data());
        int8().conv2d_depthwise_s8(s, x.data(), w.data(), -3, rq, plane.data(), got.data());
        EXPECT_EQ(want, got) << g.h << "x" << g.w << " k" << g.k << " d" << g.dil << " s" << sh
                             << "x" << sw;
      }
}

// The channels-innermost 3×3 path (ConvS8UsesDepthwiseHwc; NEON levels run it, the others
// the planes) against the direct reference: channel counts below, at and above one 8-lane step
// and the 8 × 8 transpose, rows narrower and wider than 8 columns and than NEON's 4-pixel step
// (1 to 13 outputs), at and past the AVX2 steps' limit (24 and 25 outputs: 8-pixel steps and
// the last row's exact stores) and kDepthwiseS8HwcMaxWidthStride1 (48 and 49 outputs), 24 and 33
// channels (AVX2's 16-channel step with 8 and 1 more), both
// strides, asymmetric and no padding, per-channel multipliers above 1/2 (shift ≤ 0) and below,
// large accumulators and biases at the edge of int32.
TEST_P(Int8Test, DepthwiseChannelsInnermostMatchesReference) {
  struct Geometry {
    size_t h, w, pt, pl, pb, pr;
  };
  // Shifts from −2 (real multipliers above 1/2: the x86 kernel leaves those ops to the planes)
  // and from 1 (every level's channels-innermost path).
  for (int shift_from : {-2, 1})
    for (size_t c_n : {size_t{7}, size_t{8}, size_t{9}, size_t{16}, size_t{17}, size_t{24},
                       size_t{33}, size_t{64}})
      for (size_t st : {size_t{1}, size_t{2}})
        for (const Geometry& g :
             {Geometry{25, 5, 1, 1, 1, 1}, Geometry{3, 3, 0, 0, 0, 0}, Geometry{8, 8, 1, 1, 1, 1},
              Geometry{6, 17, 0, 1, 1, 0}, Geometry{11, 9, 1, 0, 0, 1}, Geometry{4, 16, 1, 1, 1, 1},
              Geometry{5, 40, 1, 1, 1, 1}, Geometry{4, 2, 1, 1, 1, 1}, Geometry{3, 6, 0, 0, 0, 0},
              Geometry{5, 4, 1, 1, 1, 1}, Geometry{7, 13, 1, 1, 0, 0}, Geometry{3, 48, 1, 1, 1, 1},
              Geometry{3, 51, 0, 0, 0, 0}, Geometry{4, 24, 1, 1, 1, 1}, Geometry{3, 27, 0, 0, 0, 0},
              Geometry{2, 9, 1, 1, 1, 1}}) {
          Conv2dShape s;
          s.in_c = s.out_c = s.group = c_n;
          s.in_h = g.h;
          s.in_w = g.w;
          s.kh = s.kw = 3;
          s.stride_h = s.stride_w = st;
          s.pad_top = g.pt;
          s.pad_left = g.pl;
          s.out_h = (g.h + g.pt + g.pb - 3) / st + 1;
          s.out_w = (g.w + g.pl + g.pr - 3) / st + 1;
          EXPECT_EQ(kernels::ConvS8UsesDepthwiseHwc(s),
                    c_n >= 8 && (st == 2 || s.out_w <= kernels::kDepthwiseS8HwcMaxWidthStride1));
          const std::vector<int8_t> x = RandomS8(c_n * g.h * g.w, 31), w = RandomS8(c_n * 9, 32);
          std::vector<int32_t> bias(c_n), mult(c_n), shift(c_n);
          for (size_t c = 0; c < c_n; ++c) {
            bias[c] = static_cast<int32_t>(c * 7919 % 40000) - 20000;
            // Every third channel M = 2^30: acc / 2^(shift + 1), exact ties of both signs.
            mult[c] =
                c % 3 == 0 ? 1 << 30 : (1 << 30) + static_cast<int32_t>(c * 98765431 % (1u << 30));
            shift[c] = static_cast<int32_t>(c % 13) + shift_from;
          }
          // Biases at the edge of int32 (the sums stay inside): NEON's doubling form takes
          // only groups whose accumulators stay below 2^31 − 1 in magnitude.
          if (c_n >= 16) {
            bias[3] = INT32_MIN + 9 * 128 * 128;
            bias[9] = INT32_MAX - 9 * 128 * 128;
          }
          GemmS8Params rq;
          rq.bias = c_n % 2 == 0 ? bias.data() : nullptr;
          rq.multiplier = mult.data();
          rq.shift = shift.data();
          rq.y_zero_point = 7;
          rq.act_min = -128;
          rq.act_max = 110;
          std::vector<int8_t> want(c_n * s.out_h * s.out_w);
          ref::Conv2dDepthwiseS8(s, x.data(), w.data(), -5, rq, nullptr, want.data());
          // The plan's scratch (the channels-innermost path where it applies), then only the
          // planes' (a model planned without that path).
          for (size_t bytes :
               {kernels::ConvS8ScratchBytes(s), kernels::ConvS8DepthwisePlaneBytes(s)}) {
            std::vector<int8_t> plane(bytes, 0x55), got(want.size(), 99);
            rq.depthwise_scratch_bytes = bytes;
            int8().conv2d_depthwise_s8(s, x.data(), w.data(), -5, rq, plane.data(), got.data());
            EXPECT_EQ(want, got) << c_n << " channels " << g.h << "x" << g.w << " s" << st
                                 << " scratch " << bytes << " shifts from " << shift_from;
          }
        }
}

// The tables' im2col (a whole-plane copy for stride-1 "same" convolutions) against the
// reference: kernel sizes, dilation, asymmetric padding, images of one row or column, and
// shapes that are not "same" (the reference's path).
TEST_P(Int8Test, Im2colMatchesReferenceBitForBit) {
  struct Geometry {
    size_t h, w, kh, kw, dil, pt, pl, pb, pr, stride;
  };
  for (const Geometry& g :
       {Geometry{8, 8, 3, 3, 1, 1, 1, 1, 1, 1}, Geometry{32, 32, 3, 3, 1, 1, 1, 1, 1, 1},
        Geometry{7, 9, 5, 5, 1, 2, 2, 2, 2, 1}, Geometry{9, 11, 3, 3, 2, 2, 2, 2, 2, 1},
        Geometry{6, 10, 2, 2, 1, 1, 1, 0, 0, 1}, Geometry{1, 12, 3, 3, 1, 1, 1, 1, 1, 1},
        Geometry{12, 1, 3, 3, 1, 1, 1, 1, 1, 1}, Geometry{5, 6, 1, 3, 1, 0, 1, 0, 1, 1},
        Geometry{4, 4, 3, 3, 1, 3, 1, 3, 1, 1}, Geometry{9, 9, 3, 3, 1, 1, 1, 1, 1, 2},
        Geometry{6, 7, 3, 3, 1, 0, 0, 0, 0, 1},
        // Strided rows long enough for the vector even-byte copies (16 and
        // 32 bytes a step), 32 columns exactly, a last tap that reads the
        // plane's last byte, stride 3, stride 2 with dilation.
        Geometry{12, 70, 3, 3, 1, 1, 1, 1, 1, 2}, Geometry{6, 64, 3, 3, 1, 1, 1, 1, 1, 2},
        Geometry{5, 65, 3, 3, 1, 0, 0, 0, 0, 2}, Geometry{10, 13, 3, 3, 1, 1, 1, 1, 1, 3},
        Geometry{11, 40, 3, 3, 2, 2, 2, 2, 2, 2},
        // DS-CNN's first conv (10 × 4 at stride 2 over 49 × 10, uneven padding), a plane whose
        // padded block exceeds NEON's stack block whole (not in chunks of rows), and a 17-wide
        // output at stride 2 (a register of 16 and an overlapping one).
        Geometry{49, 10, 10, 4, 1, 4, 1, 5, 2, 2}, Geometry{160, 150, 3, 3, 1, 1, 1, 1, 1, 1},
        Geometry{7, 34, 3, 3, 1, 1, 1, 1, 1, 2}}) {
    Conv2dShape s;
    s.in_c = 3;
    s.group = 1;
    s.in_h = g.h;
    s.in_w = g.w;
    s.kh = g.kh;
    s.kw = g.kw;
    s.dilation_h = s.dilation_w = g.dil;
    s.stride_h = s.stride_w = g.stride;
    s.pad_top = g.pt;
    s.pad_left = g.pl;
    s.out_h = (g.h + g.pt + g.pb - (g.kh - 1) * g.dil - 1) / g.stride + 1;
    s.out_w = (g.w + g.pl + g.pr - (g.kw - 1) * g.dil - 1) / g.stride + 1;
    const std::vector<int8_t> x = RandomS8(3 * g.h * g.w, 13);
    std::vector<int8_t> want(3 * g.kh * g.kw * s.out_h * s.out_w, 1), got(want.size(), 2);
    ref::Im2colS8(s, x.data(), -7, 0, s.out_h, want.data());
    int8().im2col_s8(s, x.data(), -7, 0, s.out_h, got.data());
    EXPECT_EQ(want, got) << g.h << "x" << g.w << " k" << g.kh << "x" << g.kw << " d" << g.dil
                         << " s" << g.stride;
    // Windows of output rows (ConvInt8's chunks): each the matching columns of the whole.
    const size_t taps = 3 * g.kh * g.kw, plane = s.out_h * s.out_w;
    for (size_t rows : {size_t{1}, size_t{2}, size_t{3}})
      for (size_t row0 = 0; row0 < s.out_h; row0 += rows) {
        const size_t n = std::min(rows, s.out_h - row0);
        std::vector<int8_t> part(taps * n * s.out_w, 3);
        int8().im2col_s8(s, x.data(), -7, row0, rows, part.data());
        for (size_t t = 0; t < taps; ++t)
          ASSERT_TRUE(std::equal(part.begin() + static_cast<long>(t * n * s.out_w),
                                 part.begin() + static_cast<long>((t + 1) * n * s.out_w),
                                 want.begin() + static_cast<long>(t * plane + row0 * s.out_w)))
              << "rows " << row0 << "+" << n << " tap " << t << " of " << g.h << "x" << g.w << " k"
              << g.kh;
      }
  }
}

TEST_P(Int8Test, QuantizeAndDequantizeMatchReferenceBitForBit) {
  for (size_t n : AwkwardSizes()) {
    std::vector<float> x = RandomVector(n, -40, 40, 7);
    for (size_t i = 0; i < n; i += 5)
      x[i] = 0.25f * static_cast<float>(static_cast<int>(i % 64) - 32);  // ties
    if (n > 3) x[3] = std::numeric_limits<float>::quiet_NaN();
    if (n > 2) x[2] = std::numeric_limits<float>::infinity();
    if (n > 4) x[4] = -std::numeric_limits<float>::infinity();
    if (n > 6) x[6] = 3e38f;  // past int32 once scaled
    if (n > 7) x[7] = -1e10f;
    const QuantS8Params p{0.25f, 4.0f, -7};
    std::vector<int8_t> want(n), got(n, 99);
    ref::QuantizeS8(p, x.data(), want.data(), n);
    int8().quantize_s8(p, x.data(), got.data(), n);
    EXPECT_EQ(want, got) << n;
    const std::vector<int8_t> q = RandomS8(n, 8);
    std::vector<float> fwant(n), fgot(n, -1.0f);
    ref::DequantizeS8(QuantS8Params{0.037f, 1.0f, 3}, q.data(), fwant.data(), n);
    int8().dequantize_s8(QuantS8Params{0.037f, 1.0f, 3}, q.data(), fgot.data(), n);
    EXPECT_EQ(fwant, fgot) << n;
  }
}

// Several channels of the global pool (AVX-512: 64 values a step, a masked tail): spatial sizes
// around the step, a channel of −128s and one of 127s (the sums' extremes), means that tie.
TEST_P(Int8Test, GlobalPoolChannelsMatchReference) {
  for (size_t spatial : {size_t{1}, size_t{2}, size_t{33}, size_t{49}, size_t{64}, size_t{65},
                         size_t{196}, size_t{3136}}) {
    const size_t channels = 5;
    std::vector<int8_t> x = RandomS8(channels * spatial, 41);
    std::fill(x.begin(), x.begin() + spatial, int8_t{-128});
    std::fill(x.begin() + spatial, x.begin() + 2 * spatial, int8_t{127});
    for (size_t i = 0; i < spatial; ++i)  // channel 2: ±1 alternating, a sum of 0 or ±1
      x[2 * spatial + i] = static_cast<int8_t>(i % 2 == 0 ? -1 : 1);
    for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
      std::vector<int8_t> want(channels), got(channels, 99);
      ref::GlobalPoolS8(kind, x.data(), want.data(), channels, spatial);
      int8().global_pool_s8(kind, x.data(), got.data(), channels, spatial);
      EXPECT_EQ(want, got) << spatial;
    }
  }
}

// LutInt8's lookup where the level has one (nullptr: the op's scalar loop): every input value
// (x + 128 in each of the table's 16-byte rows), sizes around the 64-value step, an output
// offset by one byte.
TEST_P(Int8Test, LutMatchesTheTable) {
  if (int8().lut_s8 == nullptr) GTEST_SKIP() << "no vector table lookup at this level";
  const std::vector<int8_t> table = RandomS8(256, 31);
  for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{63}, size_t{64},
                   size_t{65}, size_t{256}, size_t{1000}}) {
    std::vector<int8_t> x = RandomS8(n, 32);
    for (size_t i = 0; i < n && i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
    std::vector<int8_t> want(n + 1, 77), got(n + 1, 77);
    for (size_t i = 0; i < n; ++i) want[i + 1] = table[static_cast<size_t>(x[i] + 128)];
    int8().lut_s8(table.data(), x.data(), got.data() + 1, n);
    EXPECT_EQ(want, got) << n;
  }
}

TEST_P(Int8Test, ChannelScaleMulMatchesReferenceBitForBit) {
  // Rows of awkward lengths (below, at and past the vector width), one B value per row; shifts
  // from -30 (a real multiplier near 2^30: every product saturates) to 31, a fused Relu's clamp.
  for (size_t inner : AwkwardSizes()) {
    const size_t rows = 5;
    const std::vector<int8_t> a = RandomS8(rows * inner, 11), b = RandomS8(rows, 12);
    std::vector<int8_t> want(rows * inner), got(rows * inner, 99);
    for (const MulS8Params& p : {MulS8Params{3, -5, 1, 1 << 30, 8, -128, 127},
                                 MulS8Params{-128, 127, -7, 2147483647, -30, -7, 127},
                                 MulS8Params{0, 0, 127, 1234567890, 0, -128, 127},
                                 MulS8Params{10, -20, 0, (1 << 30) + 12345, 31, -128, 127}}) {
      ref::MulS8Rows(p, a.data(), b.data(), want.data(), rows, inner);
      int8().mul_s8_rows(p, a.data(), b.data(), got.data(), rows, inner);
      EXPECT_EQ(want, got) << inner << " shift " << p.shift;
    }
  }
  // By hand: (a − 2)·(b − (−1))·2^30·2^−(31+1) = (a − 2)·(b + 1)/4, half away from zero, + zp 3.
  const int8_t a[3] = {4, 0, 7}, b[1] = {1};
  int8_t y[3] = {0, 0, 0};
  int8().mul_s8_rows(MulS8Params{2, -1, 3, 1 << 30, 1, -128, 127}, a, b, y, 1, 3);
  EXPECT_EQ(y[0], 4);  // 2·2/4 = 1
  EXPECT_EQ(y[1], 2);  // −2·2/4 = −1
  EXPECT_EQ(y[2], 6);  // 5·2/4 = 2.5 → 3
}

TEST_P(Int8Test, AddAndPoolsMatchReferenceBitForBit) {
  for (size_t n : AwkwardSizes()) {
    const std::vector<int8_t> a = RandomS8(n, 3), b = RandomS8(n, 4);
    std::vector<int8_t> want(n), got(n, 99);
    // Shifts from 1 (most sums saturate) to 62, a fused Relu's clamp, extreme zero points.
    for (const AddS8Params& p : {AddS8Params{3, -5, 1, 1 << 29, 3 << 28, 30, -128, 127},
                                 AddS8Params{-128, 127, -7, 2147483647, 1, 1, -7, 127},
                                 AddS8Params{0, 0, 127, 123456789, 987654321, 33, -128, 127},
                                 AddS8Params{10, -20, 0, 1 << 30, 1 << 30, 62, -128, 127},
                                 // (da + db)/2: a tie of either sign at every odd sum.
                                 AddS8Params{-3, 4, -1, 1 << 20, 1 << 20, 21, -128, 127}}) {
      ref::AddS8(p, a.data(), b.data(), want.data(), n);
      int8().add_s8(p, a.data(), b.data(), got.data(), n);
      EXPECT_EQ(want, got) << n << " shift " << p.shift;
    }
    for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
      ref::GlobalPoolS8(kind, a.data(), want.data(), 1, n);
      int8().global_pool_s8(kind, a.data(), got.data(), 1, n);
      EXPECT_EQ(want[0], got[0]) << n;
    }
  }
  Pool2dParams pp;
  pp.kind = PoolKind::kAverage;
  pp.in_h = 7;
  pp.in_w = 9;
  pp.kh = 3;
  pp.kw = 3;
  pp.stride_h = 2;
  pp.stride_w = 2;
  pp.pad_top = 1;
  pp.pad_left = 1;
  pp.out_h = 4;
  pp.out_w = 5;
  pp.count_include_pad = true;
  const std::vector<int8_t> x = RandomS8(3 * 63, 5);
  std::vector<int8_t> want(3 * 20), got(3 * 20, 99);
  ref::Pool2dS8(pp, -4, x.data(), want.data(), 3);
  int8().pool2d_s8(pp, -4, x.data(), got.data(), 3);
  EXPECT_EQ(want, got);
}

// Average windows spanning whole rows (NEON sums each output's rows as one run): DS-CNN's
// 25 × 5 pool, a strided one with its top and bottom padded either way of counting, and a
// plane long enough to flush the int16 partial sums.
TEST_P(Int8Test, WholeRowAveragePoolMatchesReferenceBitForBit) {
  struct Case {
    size_t in_h, in_w, kh, stride_h, pad_top, out_h;
    bool include_pad;
    int32_t zp;
  };
  for (const Case& c : {Case{25, 5, 25, 1, 0, 1, false, -3}, Case{40, 33, 7, 3, 2, 14, true, 5},
                        Case{40, 33, 7, 3, 2, 14, false, -128}, Case{9, 1, 4, 1, 3, 12, true, 0},
                        Case{120, 97, 120, 1, 0, 1, false, 7}}) {
    Pool2dParams pp;
    pp.kind = PoolKind::kAverage;
    pp.in_h = c.in_h;
    pp.in_w = c.in_w;
    pp.kh = c.kh;
    pp.kw = c.in_w;
    pp.stride_h = c.stride_h;
    pp.pad_top = c.pad_top;
    pp.out_h = c.out_h;
    pp.out_w = 1;
    pp.count_include_pad = c.include_pad;
    for (int8_t fill : {int8_t{0}, int8_t{127}, int8_t{-128}}) {
      std::vector<int8_t> x = RandomS8(3 * c.in_h * c.in_w, 6);
      if (fill != 0) std::fill(x.begin() + static_cast<long>(x.size() / 2), x.end(), fill);
      std::vector<int8_t> want(3 * c.out_h), got(3 * c.out_h, 99);
      ref::Pool2dS8(pp, c.zp, x.data(), want.data(), 3);
      int8().pool2d_s8(pp, c.zp, x.data(), got.data(), 3);
      EXPECT_EQ(want, got) << c.in_h << "x" << c.in_w << " window " << c.kh << " fill "
                           << int{fill};
    }
  }
}

// Max pools (AVX-512: a padded row, 64 outputs a step, strides 1 and 2): ResNet's 3 × 3 / 2
// pad 1, rows wider than a step, a 2 × 2 / 2 without padding, 5 × 5 / 1 pad 2 on a plane
// narrower than its window, 3 × 3 / 3 (the reference's), a pad that leaves windows outside
// the image (zp, the reference's), and a plane of −128s.
TEST_P(Int8Test, MaxPoolMatchesReferenceBitForBit) {
  struct Case {
    size_t in_h, in_w, k, stride, pad, out_h, out_w;
  };
  for (const Case& c :
       {Case{112, 112, 3, 2, 1, 56, 56}, Case{9, 150, 3, 2, 1, 5, 75}, Case{8, 130, 2, 2, 0, 4, 65},
        Case{6, 3, 5, 1, 2, 6, 3}, Case{7, 66, 3, 1, 1, 7, 66}, Case{10, 10, 3, 3, 0, 3, 3},
        Case{4, 4, 2, 1, 3, 9, 9}}) {
    Pool2dParams pp;
    pp.kind = PoolKind::kMax;
    pp.in_h = c.in_h;
    pp.in_w = c.in_w;
    pp.kh = pp.kw = c.k;
    pp.stride_h = pp.stride_w = c.stride;
    pp.pad_top = pp.pad_left = c.pad;
    pp.out_h = c.out_h;
    pp.out_w = c.out_w;
    for (bool floor : {false, true}) {
      std::vector<int8_t> x = RandomS8(2 * c.in_h * c.in_w, 9);
      if (floor) std::fill(x.begin(), x.begin() + static_cast<long>(c.in_h * c.in_w), -128);
      std::vector<int8_t> want(2 * c.out_h * c.out_w), got(want.size(), 99);
      ref::Pool2dS8(pp, -5, x.data(), want.data(), 2);
      int8().pool2d_s8(pp, -5, x.data(), got.data(), 2);
      EXPECT_EQ(want, got) << c.in_h << "x" << c.in_w << " window " << c.k << "/" << c.stride;
    }
  }
}

// The requantization forms of the NEON kernels (requant_s64_neon.h): the signed form (sqdmulh
// of acc, a rounding shift) rounds a negative tie v ≡ 2^(n−1) (mod 2^n), v = acc·M, up instead
// of away from zero, and is taken only where M has fewer than `shift` trailing zero bits, so no
// such tie exists. Accumulators set exactly by the bias (zero weights) at the ties of M with
// shift − 1, shift and shift + 1 trailing zero bits (shifts from 20 on, where a tie lands inside
// int8), every row alike or rows 4..7 one bit short (a GEMM and each group of 8 channels of the
// depthwise then in the doubling form); then random sums with odd M (the
// signed form throughout). Every table, and the plain and extended tables of levels with an
// int8 extension (AArch64: neon and neon_dotprod).
struct RequantCase {
  int32_t shift, tz;
  bool mixed;
};
std::vector<RequantCase> RequantCases() {
  std::vector<RequantCase> cases;
  for (int32_t shift : {1, 2, 7, 20, 22, 23, 24, 26, 28, 29, 30, 31})
    for (int32_t tz = shift - 1; tz <= shift + 1; ++tz)
      for (bool mixed : {false, true})  // mixed rows take tz − 1
        if (tz >= mixed && tz <= 30) cases.push_back({shift, tz, mixed});
  return cases;
}
// M ∈ [2^30, 2^31) with exactly tz trailing zero bits.
int32_t MultiplierWithZeros(int32_t tz) { return tz >= 30 ? 1 << 30 : (1 << 30) + (1 << tz); }
// Accumulators around the ties of M with tz trailing zeros and `shift`: ±2^e and ±3·2^e with
// e = 30 + shift − tz (at most 30), their neighbours, each inside ±bound.
std::vector<int32_t> TieAccumulators(int32_t shift, int32_t tz, int64_t bound, size_t count) {
  const int e = std::min(30, 30 + shift - tz);
  const int64_t p = int64_t{1} << e;
  const int64_t raw[] = {-p, p, -3 * p, 3 * p, -p + 1, -p - 1, p - 1, -1, 0, 1};
  std::vector<int32_t> acc(count);
  for (size_t i = 0; i < count; ++i)
    acc[i] = static_cast<int32_t>(std::clamp(raw[i % 10], -bound, bound));
  return acc;
}

std::vector<const Int8KernelTable*> TablesToCheck(const Int8KernelTable* own) {
  std::vector<const Int8KernelTable*> tables = {own};
  for (const auto& [plain, extended] : PlainAndExtendedTables())
    for (const Int8KernelTable* t : {plain, extended})
      if (t != nullptr && t != own) tables.push_back(t);
  return tables;
}

TEST_P(Int8Test, GemmRequantFormsMatchReferenceAtTies) {
  const size_t m = 10, k = 4;
  const int64_t bound = int64_t{INT32_MAX} - static_cast<int64_t>(k) * 128 * 128;
  for (size_t n : {size_t{20}, size_t{6}})
    for (const RequantCase& c : RequantCases()) {
      const std::vector<int8_t> a(m * k, 0), b(k * n, 0);
      std::vector<int32_t> bias = TieAccumulators(c.shift, c.tz, bound, m), mult(m), shift(m);
      for (size_t i = 0; i < m; ++i) {
        mult[i] = MultiplierWithZeros(c.mixed && i / 4 == 1 ? c.tz - 1 : c.tz);
        shift[i] = c.shift;
      }
      const GemmS8Params p = DenseGemm(m, n, k, bias, mult, shift, 0, -128, 127);
      std::vector<int8_t> want(m * n);
      ref::GemmS8(p, a.data(), b.data(), want.data());
      for (const Int8KernelTable* t : TablesToCheck(&int8())) {
        std::vector<int8_t> got(m * n, 99);
        t->gemm_s8(p, a.data(), b.data(), got.data());
        EXPECT_EQ(want, got) << "n " << n << " shift " << c.shift << " tz " << c.tz
                             << (c.mixed ? " mixed" : "");
      }
    }
  for (size_t n : {size_t{5}, size_t{16}, size_t{37}})
    for (size_t k2 : {size_t{27}, size_t{300}}) {
      const size_t m2 = 9;
      const std::vector<int8_t> a = RandomS8(m2 * k2, 41), b = RandomS8(k2 * n, 42);
      std::vector<int32_t> bias(m2), mult(m2), shift(m2);
      for (size_t i = 0; i < m2; ++i) {
        bias[i] = static_cast<int32_t>(i * 977) - 3000;
        mult[i] = ((1 << 30) + static_cast<int32_t>(i * 123457)) | 1;
        shift[i] = static_cast<int32_t>(i % 12 + 1);
      }
      const GemmS8Params p = DenseGemm(m2, n, k2, bias, mult, shift, -4, -120, 127);
      std::vector<int8_t> want(m2 * n);
      ref::GemmS8(p, a.data(), b.data(), want.data());
      for (const Int8KernelTable* t : TablesToCheck(&int8())) {
        std::vector<int8_t> got(m2 * n, 99);
        t->gemm_s8(p, a.data(), b.data(), got.data());
        EXPECT_EQ(want, got) << m2 << "x" << n << "x" << k2;
      }
    }
}

// The same for the 3×3 depthwise (channels-innermost where it applies, groups of 8 channels):
// 17 channels (two full groups and one lane), both strides, DS-CNN's 25 × 5 rows and a 6 × 6
// plane; zero weights at the ties, then random weights with odd M.
TEST_P(Int8Test, DepthwiseRequantFormsMatchReferenceAtTies) {
  const size_t c_n = 17;
  const int64_t bound = int64_t{INT32_MAX} - 9 * 128 * 128;
  for (size_t st : {size_t{1}, size_t{2}})
    for (const auto& [h, w] : {std::pair<size_t, size_t>{25, 5}, {6, 6}})
      for (bool random : {false, true})
        for (const RequantCase& c : RequantCases()) {
          if (random && (c.tz != 0 || c.mixed)) continue;
          Conv2dShape s;
          s.in_c = s.out_c = s.group = c_n;
          s.in_h = h;
          s.in_w = w;
          s.kh = s.kw = 3;
          s.stride_h = s.stride_w = st;
          s.pad_top = s.pad_left = 1;
          s.out_h = (h + 2 - 3) / st + 1;
          s.out_w = (w + 2 - 3) / st + 1;
          const std::vector<int8_t> x = RandomS8(c_n * h * w, 43),
                                    wt = random ? RandomS8(c_n * 9, 44)
                                                : std::vector<int8_t>(c_n * 9, 0);
          std::vector<int32_t> bias = TieAccumulators(c.shift, c.tz, bound, c_n), mult(c_n),
                               shift(c_n,
                                     random ? 1 + static_cast<int32_t>(c.shift % 12) : c.shift);
          for (size_t i = 0; i < c_n; ++i)
            mult[i] = random ? ((1 << 30) + static_cast<int32_t>(i * 98765431 % (1u << 30))) | 1
                             : MultiplierWithZeros(c.mixed && i / 4 % 2 == 1 ? c.tz - 1 : c.tz);
          GemmS8Params rq;
          rq.bias = bias.data();
          rq.multiplier = mult.data();
          rq.shift = shift.data();
          rq.y_zero_point = random ? 3 : 0;
          rq.act_min = -128;
          rq.act_max = 127;
          std::vector<int8_t> want(c_n * s.out_h * s.out_w);
          ref::Conv2dDepthwiseS8(s, x.data(), wt.data(), -5, rq, nullptr, want.data());
          const size_t bytes = kernels::ConvS8ScratchBytes(s);
          rq.depthwise_scratch_bytes = bytes;
          for (const Int8KernelTable* t : TablesToCheck(&int8())) {
            std::vector<int8_t> plane(bytes, 0x55), got(want.size(), 99);
            t->conv2d_depthwise_s8(s, x.data(), wt.data(), -5, rq, plane.data(), got.data());
            EXPECT_EQ(want, got) << h << "x" << w << " s" << st << " shift " << c.shift << " tz "
                                 << c.tz << (c.mixed ? " mixed" : "") << (random ? " random" : "");
          }
        }
}

EDGEFOLD_INSTANTIATE_SIMD(Int8Test);

}  // namespace
}  // namespace edgefold::kernels::testing
