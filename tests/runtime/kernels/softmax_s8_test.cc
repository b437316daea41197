// int8 Softmax (kernels/ref/softmax_s8.h): every table, the scalar one included, against the
// NumPy golden data of tests/golden/int8/make_softmax_s8_golden.py (its exp tables against
// SoftmaxS8ExpTable too), against a plain 64-bit oracle at awkward sizes and on row sums of
// 2^32 and more, and hand values for equal and extreme inputs.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

using SoftmaxS8Test = KernelTest;

// The rule as written: S in 64 bits, q = ⌊(2·256·T + S) / (2S)⌋, clamp, no 32-bit shortcut.
std::vector<int8_t> Oracle(const int32_t* table, const std::vector<int8_t>& x, size_t rows,
                           size_t classes) {
  std::vector<int8_t> y(x.size());
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* xr = x.data() + r * classes;
    int max = -128;
    for (size_t i = 0; i < classes; ++i) max = std::max(max, int{xr[i]});
    uint64_t s = 0;
    for (size_t i = 0; i < classes; ++i) s += static_cast<uint64_t>(table[max - xr[i]]);
    for (size_t i = 0; i < classes; ++i) {
      const uint64_t q = (2 * 256 * static_cast<uint64_t>(table[max - xr[i]]) + s) / (2 * s);
      y[r * classes + i] =
          static_cast<int8_t>(std::min<int64_t>(static_cast<int64_t>(q) - 128, 127));
    }
  }
  return y;
}

std::vector<int8_t> RandomRows(size_t n, unsigned seed, int lo = -128, int hi = 127) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

struct GoldenCase {
  std::string name;
  float scale = 0;
  size_t rows = 0, classes = 0;
  std::vector<int32_t> table;
  std::vector<int8_t> x, y;
};

template <class T>
std::vector<T> ReadInts(std::istringstream& line) {
  std::vector<T> v;
  for (long x; line >> x;) v.push_back(static_cast<T>(x));
  return v;
}

std::vector<GoldenCase> ReadGolden() {
  std::ifstream f(EDGEFOLD_SOFTMAX_S8_GOLDEN);
  std::vector<GoldenCase> cases;
  for (std::string text; std::getline(f, text);) {
    std::istringstream line(text);
    std::string tag;
    line >> tag;
    if (tag == "case") {
      GoldenCase c;
      std::string bits_hex;
      line >> c.name >> bits_hex >> c.rows >> c.classes;
      const uint32_t bits = static_cast<uint32_t>(std::stoul(bits_hex, nullptr, 16));
      std::memcpy(&c.scale, &bits, 4);
      cases.push_back(c);
    } else if (!cases.empty() && tag == "table") {
      cases.back().table = ReadInts<int32_t>(line);
    } else if (!cases.empty() && tag == "x") {
      cases.back().x = ReadInts<int8_t>(line);
    } else if (!cases.empty() && tag == "y") {
      cases.back().y = ReadInts<int8_t>(line);
    }
  }
  return cases;
}

TEST(SoftmaxS8Golden, ExpTableMatchesNumPy) {
  const std::vector<GoldenCase> cases = ReadGolden();
  ASSERT_GE(cases.size(), 10u) << "golden file " << EDGEFOLD_SOFTMAX_S8_GOLDEN;
  for (const GoldenCase& c : cases) {
    std::vector<int32_t> table(kSoftmaxS8TableElems);
    SoftmaxS8ExpTable(c.scale, table.data());
    EXPECT_EQ(table, c.table) << c.name;
  }
}

TEST_P(SoftmaxS8Test, MatchesNumPyGolden) {
  for (const GoldenCase& c : ReadGolden()) {
    ASSERT_EQ(c.table.size(), kSoftmaxS8TableElems) << c.name;
    ASSERT_EQ(c.x.size(), c.rows * c.classes) << c.name;
    ASSERT_EQ(c.y.size(), c.x.size()) << c.name;
    std::vector<int8_t> got(c.x.size(), 99);
    int8().softmax_s8(c.table.data(), c.x.data(), got.data(), c.rows, c.classes);
    EXPECT_EQ(got, c.y) << c.name;
  }
}

TEST_P(SoftmaxS8Test, MatchesOracleAtAwkwardSizes) {
  for (float scale : {0.0001f, 0.03f, 0.125f, 1.0f}) {
    std::vector<int32_t> t(kSoftmaxS8TableElems);
    SoftmaxS8ExpTable(scale, t.data());
    for (size_t classes :
         {size_t{1}, size_t{2}, size_t{3}, size_t{10}, size_t{17}, size_t{1000}, size_t{4099}}) {
      const size_t rows = 3;
      const std::vector<int8_t> x =
          RandomRows(rows * classes, static_cast<unsigned>(classes) * 7u + 1u);
      std::vector<int8_t> got(x.size(), 99);
      int8().softmax_s8(t.data(), x.data(), got.data(), rows, classes);
      EXPECT_EQ(got, Oracle(t.data(), x, rows, classes)) << classes << " classes, scale " << scale;
    }
  }
}

// Equal logits: each gets round(256/n) − 128 (n = 1: 256 saturates at 127).
TEST_P(SoftmaxS8Test, AllEqualInputs) {
  std::vector<int32_t> t(kSoftmaxS8TableElems);
  SoftmaxS8ExpTable(0.05f, t.data());
  for (const auto& [n, want] : std::vector<std::pair<size_t, int>>{{1, 127},
                                                                   {2, 0},
                                                                   {3, -43},
                                                                   {10, -102},
                                                                   {17, -113},
                                                                   {256, -127},
                                                                   {511, -127},
                                                                   {513, -128}}) {
    for (int8_t v : {int8_t{-128}, int8_t{0}, int8_t{127}}) {
      const std::vector<int8_t> x(n, v);
      std::vector<int8_t> got(n, 99);
      int8().softmax_s8(t.data(), x.data(), got.data(), 1, n);
      EXPECT_EQ(got, std::vector<int8_t>(n, static_cast<int8_t>(want)))
          << n << " values of " << int{v};
    }
  }
}

// One logit 255 steps above the rest: its T is 2^20, theirs round(2^20·e^−255·s), 0 at s = 1.
TEST_P(SoftmaxS8Test, ExtremeInputs) {
  std::vector<int32_t> t(kSoftmaxS8TableElems);
  SoftmaxS8ExpTable(1.0f, t.data());
  std::vector<int8_t> x(17, -128);
  x[5] = 127;
  std::vector<int8_t> got(17, 99), want(17, -128);
  want[5] = 127;
  int8().softmax_s8(t.data(), x.data(), got.data(), 1, 17);
  EXPECT_EQ(got, want);
  // Two maxima and the rest far below: 1/2 each.
  x[11] = 127;
  want[11] = 0;
  want[5] = 0;
  int8().softmax_s8(t.data(), x.data(), got.data(), 1, 17);
  EXPECT_EQ(got, want);
}

// Row sums of 2^32 and above (4096 equal values of T = 2^20; 5000 values) leave the 32-bit
// division: every 256·T is below S/2, so every output is −128, as the oracle says.
TEST_P(SoftmaxS8Test, RowSumsOfTwoToThe32AndMore) {
  std::vector<int32_t> t(kSoftmaxS8TableElems);
  SoftmaxS8ExpTable(0.0001f, t.data());
  for (size_t classes : {size_t{4095}, size_t{4096}, size_t{5000}}) {
    for (unsigned seed : {0u, 1u}) {
      const std::vector<int8_t> x =
          seed == 0 ? std::vector<int8_t>(classes, 3) : RandomRows(classes, 11u, 120, 127);
      std::vector<int8_t> got(classes, 99);
      int8().softmax_s8(t.data(), x.data(), got.data(), 1, classes);
      EXPECT_EQ(got, Oracle(t.data(), x, 1, classes)) << classes;
      EXPECT_EQ(got, std::vector<int8_t>(classes, -128)) << classes;
    }
  }
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(SoftmaxS8Test);

}  // namespace
}  // namespace edgefold::kernels::testing
