// The u8·s8 int8 GEMM of x86 levels without VNNI (kernels/simd/int8_quads_x86.h): A's pair bound
// (kernels::S8PairsFitU8) at, below and one past 128; with the permission set, every table
// gives the reference's bits at awkward m, n, k (odd k, k off the 4-k quads, columns off the
// register) with B at its extremes; and on the levels that have the tile, a permission that the
// weights break shows in the output (the tile runs).
#include <algorithm>
#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

class Int8QuadsTest : public KernelTest {};

std::vector<int8_t> RandomS8(size_t n, unsigned seed, int lo, int hi) {
  std::mt19937 gen(seed + static_cast<unsigned>(n) * 131u);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

// Weights whose even-k pairs sum in magnitude to exactly 128 in turns of sign and split
// ((−128, 0), (64, −64), (127, 1), (−1, −127), …) with random ones between.
std::vector<int8_t> WeightsAtTheBound(size_t m, size_t k, unsigned seed) {
  std::vector<int8_t> a = RandomS8(m * k, seed, -64, 64);
  const int firsts[] = {-128, 64, 127, -1, 0, -100};
  for (size_t i = 0; i < m; ++i)
    for (size_t q = 0; q + 1 < k; q += 2)
      if ((i + q / 2) % 3 != 2) {
        const int f = firsts[(i * 7 + q) % 6];
        const int rest = 128 - (f < 0 ? -f : f);
        a[i * k + q] = static_cast<int8_t>(f);
        a[i * k + q + 1] = static_cast<int8_t>(((i + q) % 2 == 0) ? rest : -rest);
      }
  return a;
}

GemmS8Params Params(size_t m, size_t n, size_t k, size_t ldb, const std::vector<int32_t>& bias,
                    const std::vector<int32_t>& mult, const std::vector<int32_t>& shift) {
  GemmS8Params p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = k;
  p.ldb = ldb;
  p.ldy = ldb;
  p.bias = bias.data();
  p.multiplier = mult.data();
  p.shift = shift.data();
  p.y_zero_point = -7;
  return p;
}

// A shift that brings the largest possible sum near ±100: an int16 saturation moves outputs.
int32_t ShiftFor(size_t k) {
  int32_t s = 0;
  while ((static_cast<int64_t>(k) * 16384 >> (s + 1)) > 100) ++s;
  return s;
}

TEST(Int8Quads, PairBoundIsOneHundredTwentyEight) {
  const std::vector<int8_t> at = {-128, 0, 64, -64, 127, 1, -1, -127, 5};  // odd k: 5 with 0
  EXPECT_TRUE(S8PairsFitU8(at.data(), 1, at.size(), at.size()));
  for (size_t e = 0; e + 1 < at.size(); ++e) {
    std::vector<int8_t> past = at;  // one pair one past the bound
    past[e] = static_cast<int8_t>(past[e] < 0 ? past[e] - (past[e] == -128 ? 0 : 1)
                                              : past[e] + (past[e] == 127 ? 0 : 1));
    if (past[e] == at[e])
      past[e ^ 1] = static_cast<int8_t>(past[e ^ 1] < 0 ? past[e ^ 1] - 1 : past[e ^ 1] + 1);
    EXPECT_FALSE(S8PairsFitU8(past.data(), 1, past.size(), past.size())) << "element " << e;
  }
  // Pairs are at even k only: 100, 100 across two pairs fit; the second row of two breaks it.
  const std::vector<int8_t> rows = {0, 100, 100, 0, 0, 0, 100, 29};
  EXPECT_TRUE(S8PairsFitU8(rows.data(), 1, 4, 4));
  EXPECT_FALSE(S8PairsFitU8(rows.data(), 2, 4, 4));
  EXPECT_TRUE(S8PairsFitU8(rows.data(), 2, 3, 4));  // k = 3: the row's 4th value is not read
}

TEST_P(Int8QuadsTest, WeightsAtTheBoundMatchReference) {
  for (size_t m : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{17}})
    for (size_t n : {size_t{1}, size_t{3}, size_t{4}, size_t{8}, size_t{13}, size_t{33}})
      for (size_t k : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{27}, size_t{64},
                       size_t{147}, size_t{1153}})
        for (int kind = 0; kind < 2; ++kind) {
          const size_t ldb = n + 3;  // B and Y inside wider rows, as ConvInt8 passes them
          const std::vector<int8_t> a = WeightsAtTheBound(m, k, 3);
          std::vector<int8_t> b = RandomS8(k * ldb, 4, -128, 127);
          if (kind == 1)  // the extremes: the largest u8 against the largest weights
            for (size_t e = 0; e < b.size(); ++e) b[e] = e % 5 == 0 ? -128 : 127;
          ASSERT_TRUE(S8PairsFitU8(a.data(), m, k, k));
          std::vector<int32_t> bias(m), mult(m), shift(m, ShiftFor(k));
          for (size_t i = 0; i < m; ++i) {
            bias[i] = static_cast<int32_t>(i * 1013) - 5000;
            mult[i] = (1 << 30) + static_cast<int32_t>(i * 98765);
          }
          if (m > 8) {  // the int32 edge the sums cannot pass (the start's wrap must cancel)
            const int64_t bound = int64_t{INT32_MAX} - static_cast<int64_t>(k) * 128 * 128;
            bias[7] = static_cast<int32_t>(bound);
            bias[8] = static_cast<int32_t>(-bound);
          }
          GemmS8Params p = Params(m, n, k, ldb, bias, mult, shift);
          p.a_pairs_fit_u8 = true;
          std::vector<int8_t> want(m * ldb, 99), got(m * ldb, 99);
          ref::GemmS8(p, a.data(), b.data(), want.data());
          int8().gemm_s8(p, a.data(), b.data(), got.data());
          EXPECT_EQ(want, got) << m << "x" << n << "x" << k << " kind " << kind;
        }
}

// Weights one past the bound: the op leaves the permission off and the table's other kernel
// gives the reference's bits; set anyway, the levels with the tile saturate (so it is the
// tile that ran above).
TEST_P(Int8QuadsTest, OnePastTheBoundNeedsTheOtherKernel) {
  const size_t m = 9, n = 19, k = 37;
  std::vector<int8_t> a(m * k, 64);                  // every pair 128 …
  for (size_t i = 0; i < m; ++i) a[i * k + 2] = 65;  // … but one per row: 129
  ASSERT_FALSE(S8PairsFitU8(a.data(), m, k, k));
  for (size_t e = 0; e + 1 < a.size(); e += 4) a[e] = a[e + 1] = 127;  // pairs far past: seen
  const std::vector<int8_t> b(k * n, 127);  // 255 as u8: 255·129 > 32767
  std::vector<int32_t> bias(m, 0), mult(m, 1 << 30), shift(m, ShiftFor(k));
  GemmS8Params p = Params(m, n, k, n, bias, mult, shift);
  std::vector<int8_t> want(m * n), got(m * n, 99);
  ref::GemmS8(p, a.data(), b.data(), want.data());
  int8().gemm_s8(p, a.data(), b.data(), got.data());
  EXPECT_EQ(want, got);
  p.a_pairs_fit_u8 = true;
  int8().gemm_s8(p, a.data(), b.data(), got.data());
  // The level's own table (not an extension's: AVX-VNNI's vpdpbusd does not saturate).
  const bool own = std::string(IsaEntryName(ActiveEntry(GetParam()))) == IsaName(GetParam());
  if ((GetParam() == Isa::kAvx2Fma || GetParam() == Isa::kSse42) && own)
    EXPECT_NE(want, got) << "the u8·s8 tile did not run at this level";
  else
    EXPECT_EQ(want, got);
}

EDGEFOLD_INSTANTIATE_SIMD(Int8QuadsTest);

}  // namespace
}  // namespace edgefold::kernels::testing
