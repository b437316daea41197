// GEMM of the scalar table (scalar::GemmTiled) and every SIMD table against ref::Gemm: tails in
// m, n, k, strides, bias, accumulate, every fused activation; padding columns of C must stay
// untouched.
#include <cstring>

#include "kernels/cpu_caches.h"
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

enum class BiasMode { kNone, kPerRow, kPerCol };

struct GemmCase {
  size_t m, n, k;
  size_t pad = 0;  // extra elements per row of A, B and C (lda = k + pad, ...)
  BiasMode bias = BiasMode::kNone;
  bool accumulate = false;
  Activation act;
};

class GemmTest : public KernelTest {
 protected:
  ::testing::AssertionResult Check(const GemmCase& gc) {
    GemmParams p;
    p.m = gc.m, p.n = gc.n, p.k = gc.k;
    p.lda = gc.k + gc.pad, p.ldb = gc.n + gc.pad, p.ldc = gc.n + gc.pad;
    const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 11);
    const std::vector<float> b = RandomVector(p.k * p.ldb, -1, 1, 12);
    const std::vector<float> bias = RandomVector(std::max(p.m, p.n), -2, 2, 13);
    if (gc.bias != BiasMode::kNone) p.bias = bias.data();
    p.bias_per_row = gc.bias == BiasMode::kPerRow;
    p.accumulate = gc.accumulate;
    p.act = gc.act;
    std::vector<float> want = RandomVector(p.m * p.ldc, -1, 1, 14);  // old C (and padding sentinel)
    std::vector<float> got = want;
    ref::Gemm(p, a.data(), b.data(), want.data());
    table().gemm(p, a.data(), b.data(), got.data());
    // Summation order differs only by FMA rounding: error grows with k.
    return AllClose(want, got, 2e-6f * static_cast<float>(gc.k + 1), 1e-5f)
           << " (m=" << gc.m << " n=" << gc.n << " k=" << gc.k << " pad=" << gc.pad << ")";
  }
};

TEST_P(GemmTest, AllShapeTails) {
  const size_t dims[] = {1, 3, 7, 15, 16, 17, 33, 64};
  for (size_t m : dims)
    for (size_t n : dims)
      for (size_t k : dims) ASSERT_TRUE(Check({m, n, k, 0, BiasMode::kPerCol, false, {}}));
}

// Every remainder of every row tile (8, 6, 4 rows and the 5/3/2/1-row tiles after them, the
// 6-row tiles' 1 and 2 left over turned into 4 + 3 and 4 + 4), in both column-tile widths and
// the column tail (B read in place; PanelAndInPlaceGiveTheSameBits below for the panel).
TEST_P(GemmTest, EveryRowRemainder) {
  for (size_t m = 1; m <= 26; ++m)
    for (size_t n : {2 * W(), 3 * W() + 1})
      ASSERT_TRUE(Check({m, n, 19, 0, BiasMode::kPerRow, false, {}}));
}

TEST_P(GemmTest, StridedOperandsLeavePaddingAlone) {
  for (size_t n : {size_t{1}, W() - (W() > 1), W(), W() + 1, 2 * W() + 3})
    for (size_t m : {1, 4, 5, 11}) ASSERT_TRUE(Check({m, n, 9, 3, BiasMode::kPerRow, false, {}}));
}

TEST_P(GemmTest, BiasAccumulateAndEveryActivation) {
  const size_t shapes[][3] = {{7, 33, 17}, {17, 17, 5},     {1, 40, 300},
                              {13, 1, 29}, {4, 2 * W(), 8}, {5, 3 * W(), 9}};
  for (const auto& mnk : shapes) {
    GemmCase gc{mnk[0], mnk[1], mnk[2], 0, BiasMode::kNone, false, {}};
    for (BiasMode bias : {BiasMode::kNone, BiasMode::kPerRow, BiasMode::kPerCol}) {
      for (bool accumulate : {false, true}) {
        for (const Activation& act : AllActivations()) {
          gc.bias = bias, gc.accumulate = accumulate, gc.act = act;
          ASSERT_TRUE(Check(gc)) << " bias=" << static_cast<int>(bias) << " acc=" << accumulate
                                 << " act=" << static_cast<int>(act.kind);
        }
      }
    }
  }
}

TEST_P(GemmTest, LargeConvShaped) {
  ASSERT_TRUE(Check({64, 196, 288, 0, BiasMode::kPerRow, false, {ActKind::kRelu, 0, 0}}));
  ASSERT_TRUE(Check({131, 97, 61, 1, BiasMode::kPerCol, true, {ActKind::kNone, 0, 0}}));
}

// Across the cache blocks of gemm_simd.h (K blocks of at most kGemmMaxKc = 256, packed column
// panels): several K blocks, a column tail below W (packed-tail path) on top, rows not a
// multiple of the 8-row tile; the activation and bias must be applied once, after the last K
// block only.
TEST_P(GemmTest, AcrossCacheBlocks) {
  const size_t shapes[][3] = {{19, 2 * 256 + W() + 5, 600},
                              {11, 256 + 3, 257},
                              {9, 7, 513},
                              {3, 49, 1000},
                              {13, 3 * 288 + 2 * W() + 7, 300}};  // 8×3 tiles over several N blocks
  for (const auto& mnk : shapes)
    for (BiasMode bias : {BiasMode::kPerRow, BiasMode::kPerCol})
      for (bool accumulate : {false, true}) {
        GemmCase gc{mnk[0], mnk[1], mnk[2], 2, bias, accumulate, {ActKind::kClip, -0.5f, 0.75f}};
        ASSERT_TRUE(Check(gc)) << mnk[0] << "x" << mnk[1] << "x" << mnk[2]
                               << " bias=" << static_cast<int>(bias) << " acc=" << accumulate;
      }
}

// Another core's caches give other blocks (kc, mc) but the same bits: every k block continues
// from C's partial sum, so each output still sums over k in order. Packed panels (m ≥ two row
// tiles) and B read in place (fewer rows), B rows through b_row_offsets, bias, accumulate.
TEST_P(GemmTest, BlockingNeverChangesTheBits) {
  const GemmBlocking blockings[] = {
      {64, 8}, {72, 16}, {256, 24}, {256, 4096}, GemmBlockingFor({48 * 1024, 2048 * 1024}, 8, 48)};
  const size_t shapes[][3] = {
      {40, 5 * W() + 3, 300}, {7, 4 * W(), 130}, {17, 3 * W(), 257}, {64, 2 * W() + 1, 70}};
  for (const auto& mnk : shapes) {
    for (bool offsets : {false, true}) {
      GemmParams p;
      p.m = mnk[0], p.n = mnk[1], p.k = mnk[2];
      p.lda = p.k + 1, p.ldb = p.n + 3, p.ldc = p.n + 2;
      const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 21);
      const std::vector<float> b = RandomVector(p.k * p.ldb + 7, -1, 1, 22);
      const std::vector<float> bias = RandomVector(p.m, -1, 1, 23);
      std::vector<uint32_t> rows(p.k);  // rows of B in reverse order, shifted by 7
      for (size_t q = 0; q < p.k; ++q) rows[q] = static_cast<uint32_t>((p.k - 1 - q) * p.ldb + 7);
      if (offsets) p.b_row_offsets = rows.data();
      p.bias = bias.data(), p.bias_per_row = true, p.accumulate = true;
      p.act = {ActKind::kRelu, 0, 0};
      const std::vector<float> c0 = RandomVector(p.m * p.ldc, -1, 1, 24);
      std::vector<float> want = c0;
      ref::Gemm(p, a.data(), b.data(), want.data());
      std::vector<float> first;
      for (const GemmBlocking& blocking : blockings) {
        p.blocking = &blocking;
        std::vector<float> got = c0;
        table().gemm(p, a.data(), b.data(), got.data());
        ASSERT_TRUE(AllClose(want, got, 2e-6f * static_cast<float>(p.k + 1), 1e-5f))
            << "kc=" << blocking.kc << " mc=" << blocking.mc;
        if (first.empty()) first = got;
        ASSERT_EQ(0, std::memcmp(first.data(), got.data(), got.size() * sizeof(float)))
            << "m=" << p.m << " n=" << p.n << " k=" << p.k << " kc=" << blocking.kc
            << " mc=" << blocking.mc << " offsets=" << offsets;
      }
    }
  }
}

// Many row tiles copy B into a panel, a few read it in place (gemm_simd.h,
// kGemmInPlaceRowTiles; twice as many over short rows): the same bits either way. Each block of
// 8 rows run on its own (in place; never 1 row, which streams B: OneRowSumsLikeTheTiles) must
// equal those rows of the whole GEMM (a panel), over
// short and long rows of B, directly and through b_row_offsets, with every row remainder.
TEST_P(GemmTest, PanelAndInPlaceGiveTheSameBits) {
  for (size_t n : {3 * W() + 5, 1024 + 2 * W() + 3}) {
    for (size_t m : {size_t{98}, size_t{99}, size_t{101}, size_t{104}}) {
      for (bool offsets : {false, true}) {
        GemmParams p;
        p.m = m, p.n = n, p.k = 70;
        p.lda = p.k + 1, p.ldb = p.n + 3, p.ldc = p.n + 2;
        const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 41);
        const std::vector<float> b = RandomVector(p.k * p.ldb + 7, -1, 1, 42);
        const std::vector<float> bias = RandomVector(p.m, -1, 1, 43);
        std::vector<uint32_t> rows(p.k);
        for (size_t q = 0; q < p.k; ++q) rows[q] = static_cast<uint32_t>((p.k - 1 - q) * p.ldb + 7);
        if (offsets) p.b_row_offsets = rows.data();
        p.bias = bias.data(), p.bias_per_row = true;
        p.act = {ActKind::kRelu, 0, 0};
        std::vector<float> whole(p.m * p.ldc, 0.0f), blocks = whole, want = whole;
        table().gemm(p, a.data(), b.data(), whole.data());
        ref::Gemm(p, a.data(), b.data(), want.data());
        ASSERT_TRUE(AllClose(want, whole, 2e-6f * static_cast<float>(p.k + 1), 1e-5f))
            << "m=" << m << " n=" << n;
        for (size_t i = 0; i < m; i += 8) {
          GemmParams part = p;
          part.m = std::min<size_t>(8, m - i);
          part.bias = bias.data() + i;
          table().gemm(part, a.data() + i * p.lda, b.data(), blocks.data() + i * p.ldc);
        }
        ASSERT_EQ(0, std::memcmp(whole.data(), blocks.data(), whole.size() * sizeof(float)))
            << "m=" << m << " n=" << n << " offsets=" << offsets;
      }
    }
  }
}

// More than kGemmDotCols tail columns after whole registers (AVX-512: 9-15 of 16, DS-CNN's
// n = 125) run one more register-wide tile overlapping the last whole one, when the GEMM is one
// k block without accumulation: every output right and padding untouched (Check), and the same
// bits as the GEMM split in runs of 64 columns (a conv's column split over threads), directly
// and through b_row_offsets, with a bias per column and per row.
TEST_P(GemmTest, OverlappedTailColumns) {
  for (size_t n : {W() + 9, 2 * W() - 1, 7 * W() + 13, 2 * 64 + W() + 11}) {
    for (size_t k : {size_t{1}, size_t{40}, size_t{64}, size_t{300}}) {
      ASSERT_TRUE(Check({13, n, k, 2, BiasMode::kPerCol, false, {ActKind::kClip, -0.5f, 0.75f}}));
      ASSERT_TRUE(Check({9, n, k, 0, BiasMode::kPerRow, false, {ActKind::kRelu, 0, 0}}));
      ASSERT_TRUE(Check({5, n, k, 1, BiasMode::kPerRow, true, {}}));
    }
    for (bool offsets : {false, true}) {
      GemmParams p;
      p.m = 21, p.n = n, p.k = 64;
      p.lda = p.k, p.ldb = p.n + 3, p.ldc = p.n + 1;
      const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 51);
      const std::vector<float> b = RandomVector(p.k * p.ldb + 7, -1, 1, 52);
      const std::vector<float> bias = RandomVector(p.m, -1, 1, 53);
      std::vector<uint32_t> rows(p.k);
      for (size_t q = 0; q < p.k; ++q) rows[q] = static_cast<uint32_t>((p.k - 1 - q) * p.ldb + 7);
      if (offsets) p.b_row_offsets = rows.data();
      p.bias = bias.data(), p.bias_per_row = true;
      p.act = {ActKind::kRelu, 0, 0};
      std::vector<float> whole(p.m * p.ldc, 0.0f), runs = whole;
      table().gemm(p, a.data(), b.data(), whole.data());
      for (size_t j = 0; j < n; j += 64) {
        GemmParams part = p;
        part.n = std::min<size_t>(64, n - j);
        table().gemm(part, a.data(), b.data() + j, runs.data() + j);
      }
      ASSERT_EQ(0, std::memcmp(whole.data(), runs.data(), whole.size() * sizeof(float)))
          << "n=" << n << " offsets=" << offsets;
    }
  }
}

// A few columns (9-15: the pointwise convs of 3 × 3 planes; a form with A's rows in the lanes
// failed the split check below under ASan + UBSan): every output right for rows and k off the 16-row and 16-k blocks and
// over several k panels, and the same bits when the rows are split in 8-row runs (threads),
// directly and through b_row_offsets.
TEST_P(GemmTest, FewColumnsRowsInLanes) {
  for (size_t n = 9; n < 16; ++n) {
    for (size_t k : {size_t{16}, size_t{17}, size_t{130}, size_t{300}}) {
      ASSERT_TRUE(Check({40, n, k, 2, BiasMode::kPerCol, false, {ActKind::kClip, -0.5f, 0.75f}}));
      ASSERT_TRUE(Check({33, n, k, 0, BiasMode::kPerRow, false, {ActKind::kRelu, 0, 0}}));
      ASSERT_TRUE(Check({5, n, k, 1, BiasMode::kPerRow, true, {}}));
    }
    for (bool offsets : {false, true}) {
      GemmParams p;
      p.m = 52, p.n = n, p.k = 150;
      p.lda = p.k + 1, p.ldb = p.n + 3, p.ldc = p.n + 1;
      const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 61);
      const std::vector<float> b = RandomVector(p.k * p.ldb + 7, -1, 1, 62);
      const std::vector<float> bias = RandomVector(p.m, -1, 1, 63);
      std::vector<uint32_t> rows(p.k);
      for (size_t q = 0; q < p.k; ++q) rows[q] = static_cast<uint32_t>((p.k - 1 - q) * p.ldb + 7);
      if (offsets) p.b_row_offsets = rows.data();
      p.bias = bias.data(), p.bias_per_row = true;
      p.act = {ActKind::kRelu, 0, 0};
      std::vector<float> whole(p.m * p.ldc, 0.0f), runs = whole;
      table().gemm(p, a.data(), b.data(), whole.data());
      for (size_t i = 0; i < p.m; i += 8) {
        GemmParams part = p;
        part.m = std::min<size_t>(8, p.m - i);
        part.bias = bias.data() + i;
        table().gemm(part, a.data() + i * p.lda, b.data(), runs.data() + i * p.ldc);
      }
      ASSERT_EQ(0, std::memcmp(whole.data(), runs.data(), whole.size() * sizeof(float)))
          << "n=" << n << " offsets=" << offsets;
    }
  }
}

// One row of A (a batch-1 fully connected layer) streams B in memory order (gemm_row_simd.h)
// yet sums each output as the register tiles do: its register-wide columns are bit for bit the
// first row of a 3-row GEMM, over several C chunks, k blocks and B rows through offsets.
TEST_P(GemmTest, OneRowSumsLikeTheTiles) {
  for (size_t n : {2 * W(), 1024 + 2 * W() + 3}) {
    for (bool offsets : {false, true}) {
      GemmParams p;
      p.m = 3, p.n = n, p.k = 301;
      p.lda = p.k, p.ldb = p.n + 1, p.ldc = p.n;
      const std::vector<float> a = RandomVector(p.m * p.lda, -1, 1, 31);
      const std::vector<float> b = RandomVector(p.k * p.ldb + 5, -1, 1, 32);
      const std::vector<float> bias = RandomVector(p.n, -1, 1, 33);
      std::vector<uint32_t> rows(p.k);
      for (size_t q = 0; q < p.k; ++q) rows[q] = static_cast<uint32_t>((p.k - 1 - q) * p.ldb + 5);
      if (offsets) p.b_row_offsets = rows.data();
      p.bias = bias.data(), p.accumulate = true;
      p.act = {ActKind::kClip, -0.5f, 0.75f};
      const std::vector<float> c0 = RandomVector(p.m * p.ldc, -1, 1, 34);
      std::vector<float> three = c0, one(c0.begin(), c0.begin() + static_cast<long>(p.n));
      table().gemm(p, a.data(), b.data(), three.data());
      p.m = 1;
      table().gemm(p, a.data(), b.data(), one.data());
      std::vector<float> want = c0;
      ref::Gemm(p, a.data(), b.data(), want.data());
      want.resize(p.n);
      ASSERT_TRUE(AllClose(want, one, 2e-6f * static_cast<float>(p.k + 1), 1e-5f)) << "n=" << n;
      const size_t n_vec = n / W() * W();
      ASSERT_EQ(0, std::memcmp(three.data(), one.data(), n_vec * sizeof(float)))
          << "n=" << n << " offsets=" << offsets;
    }
  }
}

// The blocking a core's caches give (cpu_caches.h): the panel fills at most L1d, the A block at
// most half of L2, kc within [64, kGemmMaxKc] and a multiple of 8, mc a multiple of the row tile.
TEST(GemmBlockingTest, DerivedFromTheCaches) {
  GemmBlocking zen4 = GemmBlockingFor({32 * 1024, 1024 * 1024}, 8, 48);  // AVX-512, 8 × 3 tiles
  EXPECT_EQ(168u, zen4.kc);                                              // 32 KiB / 192 B = 170
  EXPECT_EQ(776u, zen4.mc);  // 512 KiB / (168 · 4 B) = 780
  GemmBlocking xeon = GemmBlockingFor({48 * 1024, 2048 * 1024}, 8, 48);
  EXPECT_EQ(kGemmMaxKc, xeon.kc);
  EXPECT_EQ(1024u, xeon.mc);
  GemmBlocking small = GemmBlockingFor({16 * 1024, 128 * 1024}, 4, 16);  // AVX2 on a small core
  EXPECT_EQ(256u, small.kc);
  EXPECT_EQ(64u, small.mc);
  GemmBlocking tiny = GemmBlockingFor({8 * 1024, 64 * 1024}, 8, 48);
  EXPECT_EQ(64u, tiny.kc);  // floor
  EXPECT_EQ(128u, tiny.mc);
  const CacheSizes& host = HostCaches();
  EXPECT_GE(host.l1d_bytes, 8u * 1024);
  EXPECT_GE(host.l2_bytes, 64u * 1024);
  EXPECT_EQ(&host, &HostCaches());
}

EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(GemmTest);

}  // namespace
}  // namespace edgefold::kernels::testing
