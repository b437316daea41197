// int8 checks of the kernels Cortex-M runs: the scalar level's int8 table (the cortex_m_dsp
// entry's kernels of kernels/cortex_m/int8_dsp.h where the core has SXTB16/SMLAD, the
// cortex_m_mve entry's of kernels/cortex_m/int8_mve.h where it has Helium) against the
// reference definitions (ref::GemmS8, ref::Conv2dDepthwiseS8, ref::QuantizeS8),
// byte for byte, at awkward sizes: odd m and n, k = 1, k mod 4 ≠ 0, k above one packed panel
// (with more rows than one row block), depthwise widths and heights that leave tails. Also
// RequantizeS8 against the plain 64-bit rule over every shift, and the int8 Softmax (its
// 32-bit division) against the rule computed in 64 bits, with its exp table's values. On hosts both sides are the
// portable code (the harness still checks the rule).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "harness.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/cortex_m/int8_dsp.h"
#include "kernels/cortex_m/int8_dsp_util.h"
#include "kernels/cortex_m/int8_mve.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::mcu_test {
namespace {

using namespace edgefold::kernels;

// The int8 table Cortex-M runs: the scalar level's active entry (cortex_m_dsp on DSP cores).
const Int8KernelTable& Int8() { return *TableFor<Int8KernelTable>(edgefold::Isa::kScalar); }

uint32_t g_seed = 1;
uint32_t Next() { return g_seed = g_seed * 1664525u + 1013904223u; }
void FillS8(int8_t* v, size_t n, int lo = -128, int hi = 127) {
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<int8_t>(
        lo + static_cast<int>((Next() >> 8) % static_cast<uint32_t>(hi - lo + 1)));
}

constexpr size_t kMaxM = 37, kMaxA = 37 * 301, kMaxB = 16384, kMaxY = 4096;
int8_t g_a8[kMaxA], g_b8[kMaxB], g_want8[kMaxY], g_got8[kMaxY];
int32_t g_bias[kMaxM], g_mult[kMaxM], g_shift[kMaxM];

// Per-row requantization spanning the rule's cases: shifts below, at and above n = 32.
void FillRequant(size_t m, int shift_lo, int shift_hi) {
  for (size_t i = 0; i < m; ++i) {
    g_bias[i] = static_cast<int32_t>(Next() % 20001u) - 10000;
    g_mult[i] = static_cast<int32_t>((1u << 30) + (Next() >> 2) % (1u << 30));
    g_shift[i] =
        shift_lo + static_cast<int32_t>(Next() % static_cast<uint32_t>(shift_hi - shift_lo + 1));
  }
}

void GemmS8Case(Harness& h, size_t m, size_t n, size_t k, int shift_lo, int shift_hi) {
  GemmS8Params p;
  p.m = m, p.n = n, p.k = k, p.lda = k + 1, p.ldb = n + 2,
  p.ldy = n + 1;  // strides wider than the rows
  const bool fits = m <= kMaxM && m * p.lda <= kMaxA && k * p.ldb <= kMaxB && m * p.ldy < kMaxY;
  h.Check(fits, "int8 gemm case fits the test buffers");
  if (!fits) return;
  p.bias = g_bias, p.multiplier = g_mult, p.shift = g_shift;
  p.y_zero_point = static_cast<int32_t>(Next() % 256u) - 128;
  p.act_min = -120, p.act_max = 125;
  FillS8(g_a8, m * p.lda, -127, 127);
  FillS8(g_b8, k * p.ldb);
  FillRequant(m, shift_lo, shift_hi);
  std::memset(g_want8, 0x5a, sizeof(g_want8));
  std::memset(g_got8, 0x5a, sizeof(g_got8));
  ref::GemmS8(p, g_a8, g_b8, g_want8);
  Int8().gemm_s8(p, g_a8, g_b8, g_got8);
  char what[80];
  std::snprintf(what, sizeof(what), "int8 gemm %ux%ux%u matches the portable bytes",
                static_cast<unsigned>(m), static_cast<unsigned>(n), static_cast<unsigned>(k));
  h.Check(std::memcmp(g_want8, g_got8, m * p.ldy) == 0 && g_got8[m * p.ldy] == 0x5a, what);
#if defined(EDGEFOLD_HAVE_INT8_DSP) && defined(EDGEFOLD_HAVE_CORTEX_M_MVE)
  // An MVE core's table has its own GEMM: the DSP one (its fallback for long k) checked directly.
  std::memset(g_got8, 0x5a, sizeof(g_got8));
  cortex_m_dsp::GemmS8(p, g_a8, g_b8, g_got8);
  std::snprintf(what, sizeof(what), "DSP int8 gemm %ux%ux%u matches the portable bytes",
                static_cast<unsigned>(m), static_cast<unsigned>(n), static_cast<unsigned>(k));
  h.Check(std::memcmp(g_want8, g_got8, m * p.ldy) == 0 && g_got8[m * p.ldy] == 0x5a, what);
#endif
}

#if defined(EDGEFOLD_HAVE_INT8_MVE)
// Helium's row requantization against RequantizeS8 where its borrow matters: acc < 0 with
// acc·M a multiple of 2^32 (M = 2^30, acc = −2^k; a rounding tie when k = shift), its neighbours,
// and random sums, every shift
// of the vector path (t = 1 … 30) and both sides of it, rows of 1 … 11 outputs (tails).
void RequantRowMveChecks(Harness& h) {
  int32_t acc[16];
  int8_t got[16];
  bool ok = true;
  for (int32_t shift = 0; shift <= 31; ++shift)
    for (int32_t mult : {int32_t{1} << 30, int32_t{0x7fffffff}, int32_t{0x5a5a5a5b}})
      for (size_t n = 1; n <= 11; n += 5) {
        for (size_t j = 0; j < 16; ++j) {
          // k = shift = t + 1: acc·M/2^(32+t) is a tie, where the borrow decides the rounding.
          const int k = j < 6 ? std::min(std::max(static_cast<int>(shift), 2), 30)
                              : static_cast<int>(2 + j % 28);
          acc[j] = j % 3 == 0   ? -(int32_t{1} << k)
                   : j % 3 == 1 ? -(int32_t{1} << k) + 1
                                : static_cast<int32_t>(Next()) >> (Next() % 20);
        }
        cortex_m_mve::RequantRowMve(acc, n, mult, shift, -3, -128, 127, got);
        for (size_t j = 0; j < n; ++j)
          ok = ok && got[j] == RequantizeS8(acc[j], mult, shift, -3, -128, 127);
      }
  h.Check(ok, "MVE row requantization matches RequantizeS8 (borrow when acc·M ≡ 0 mod 2^32)");
}
#endif

#if defined(EDGEFOLD_HAVE_INT8_DSP)
// The DSP row requantization (RequantRow, cortex_m/int8_dsp_util.h) against RequantizeS8 at every
// shift, with multipliers whose trailing zeros make rounding ties possible (ctz(M) > t: the per-output
// path with the borrow) or not (ctz(M) ≤ t: the SMMLA path), sums at and around the ties
// (−2^k, −2^k ± 1, 2^k) and random ones, rows of 1 … 15 outputs (0 … 3 groups of four: the
// two-group loop entered at its first and second half), a clamp narrower than int8 and
// none (the whole int8 range).
void RequantRowDspChecks(Harness& h) {
  int32_t acc[16];
  int8_t got[16];
  bool ok = true;
  int no_ties_rows = 0, tie_rows = 0;
  for (int32_t shift = -2; shift <= 26; ++shift) {
    const int32_t t = shift - 1;
    for (int variant = 0; variant < 5; ++variant) {
      const int z = variant == 0   ? 30
                    : variant == 1 ? std::max<int32_t>(t, 0)
                    : variant == 2 ? t + 1
                                   : 0;
      int32_t mult =
          variant == 4 ? 0x7fffffff : static_cast<int32_t>((1u << 30) | (1u << std::min(z, 29)));
      if (variant == 0) mult = int32_t{1} << 30;
      for (size_t n = 1; n <= 15; n += n < 11 ? 5 : 2) {  // 0 … 3 groups of four, and a tail
        for (size_t j = 0; j < 16; ++j) {
          const int k = j < 8 ? std::min(std::max(static_cast<int>(shift + 31 - 1 - z), 0), 30)
                              : static_cast<int>(j % 31);
          const int32_t p2 = int32_t{1} << std::min(k, 30);
          acc[j] = j % 4 == 0   ? -p2
                   : j % 4 == 1 ? -p2 + 1
                   : j % 4 == 2 ? (j < 8 ? p2 : -p2 - 1)
                                : static_cast<int32_t>(Next()) >> (Next() % 20);
        }
        const bool all = n == 6 || n == 13;  // all of int8: no clamp
        const int32_t lo = all ? -128 : -100, hi = all ? 127 : 120;
        const auto act = cortex_m_dsp::MakeActRequant(-3, lo, hi);
        const auto q = cortex_m_dsp::MakeRowRequant(mult, shift, act);
        if (q.Fast()) (q.no_ties ? no_ties_rows : tie_rows) += 1;
        std::memset(got, 0x5a, sizeof(got));
        cortex_m_dsp::RequantRow(acc, n, q, act, got);
        for (size_t j = 0; j < n; ++j)
          ok = ok && got[j] == RequantizeS8(acc[j], mult, shift, -3, lo, hi);
        ok = ok && got[n] == 0x5a;
      }
    }
  }
  h.Check(ok && no_ties_rows > 0 && tie_rows > 0,
          "DSP row requantization matches RequantizeS8 (SMMLA rows without ties, per-output rows "
          "with)");
}
#endif

void GemmS8Checks(Harness& h) {
  const size_t sizes[][3] = {{1, 1, 1},   {2, 2, 4},    {3, 5, 7},    {5, 3, 1},
                             {4, 11, 9},  {7, 1, 64},   {1, 7, 13},   {6, 4, 40},
                             {13, 9, 66}, {37, 3, 257}, {33, 5, 300}, {2, 2, 256}};
  for (const auto& s : sizes) GemmS8Case(h, s[0], s[1], s[2], 1, 12);  // n = 32 … 43
  GemmS8Case(h, 5, 7, 19, -3, 0);                                      // n < 32: the wide path
  GemmS8Case(h, 4, 4, 8, 25, 31);                                      // n up to 62
  // Column blocks (up to 64 columns, as many as a 1 KiB panel holds): several blocks with an
  // odd last one, k = 8 … 1000 (MVE: 16 × 16 transposition units cut by k, by n and by the
  // block: an 8 KiB panel holds 28 columns of k = 288, 8 of k = 1000), requantized a row at a time (tails of 1 … 3 outputs), shifts
  // inside and outside RequantRow's fast range (t = shift − 1 in [1, 22]).
  const size_t blocks[][3] = {{5, 131, 8},  {3, 70, 17},  {16, 67, 32}, {7, 33, 64},
                              {2, 9, 256},  {1, 5, 3},    {9, 130, 12}, {4, 66, 1},
                              {5, 37, 288}, {6, 37, 160}, {3, 45, 27},  {4, 13, 1000}};
  for (const auto& s : blocks) GemmS8Case(h, s[0], s[1], s[2], 1, 24);
  GemmS8Case(h, 6, 29, 16, 22, 23);
  GemmS8Case(h, 3, 65, 9, -2, 2);
  GemmS8Case(h, 3, 3, 1000, 1, 24);  // MVE: the longest k of its own GEMM (k16 = 1008)
  GemmS8Case(h, 3, 2, 2000, 1, 24);  // MVE: k past its panel, the DSP GEMM
  // The DSP GEMM's 4 × 2 tiles: k at and past one k block (576: ResNet-8's 64-channel 3 × 3),
  // uneven k blocks, rows not a multiple of 4, several column blocks with an odd last column,
  // k mod 8 ≠ 0 (the zero-padded slots).
  const size_t tiles[][3] = {{6, 12, 576},  {17, 9, 577}, {7, 4, 1150}, {9, 53, 144},
                             {13, 131, 27}, {5, 40, 40},  {4, 1, 64},   {3, 3, 9}};
  for (const auto& s : tiles) GemmS8Case(h, s[0], s[1], s[2], 1, 24);
  GemmS8Params p;  // k = 0: bias only
  p.m = 3, p.n = 2, p.k = 0, p.lda = 1, p.ldb = 2, p.ldy = 2;
  FillRequant(3, 1, 8);
  p.bias = g_bias, p.multiplier = g_mult, p.shift = g_shift;
  ref::GemmS8(p, g_a8, g_b8, g_want8);
  Int8().gemm_s8(p, g_a8, g_b8, g_got8);
  h.Check(std::memcmp(g_want8, g_got8, 6) == 0, "int8 gemm k = 0 matches the portable bytes");
}

// The int8 im2col against ref::Im2colS8: strides 1, 2 and 3, padding on every side, dilation,
// rows wider than one 16-byte vector (37) and narrower (5), chunks of output rows.
int8_t g_col_want[16384], g_col_got[16384];
void Im2colChecks(Harness& h) {
  struct Case {
    size_t c, ih, iw, k, s, d, pt, pl, pb, pr;
  };
  const Case cases[] = {{2, 9, 37, 3, 1, 1, 1, 1, 1, 1},
                        {3, 11, 33, 3, 2, 1, 1, 1, 0, 0},
                        {1, 7, 5, 3, 1, 2, 2, 2, 2, 2},
                        {2, 8, 20, 2, 3, 1, 0, 1, 1, 0},
                        {1, 6, 40, 5, 2, 1, 2, 3, 2, 1},
                        {2, 4, 4, 3, 1, 1, 4, 4, 4, 4},
                        // 3 wide, stride 1, one pad column a side, rows of whole words (the DSP
                        // im2col's three-taps-a-row path): 1, 2 and 8 words
                        {2, 5, 4, 3, 1, 1, 1, 1, 1, 1},
                        {3, 6, 8, 3, 1, 1, 1, 1, 1, 1},
                        {2, 5, 32, 3, 1, 1, 0, 1, 0, 1},
                        // and at stride 2 (in_w = 2·out_w): 1, 2 and 4 output words
                        {1, 4, 8, 3, 2, 1, 1, 1, 0, 0},
                        {2, 5, 16, 3, 2, 1, 1, 1, 1, 1},
                        {2, 5, 32, 3, 2, 1, 0, 1, 0, 1}};
  int8_t x[2048];
  bool ok = true;
  for (const Case& c : cases) {
    Conv2dShape sh;
    sh.in_c = c.c, sh.in_h = c.ih, sh.in_w = c.iw, sh.kh = sh.kw = c.k;
    sh.stride_h = sh.stride_w = c.s, sh.dilation_h = sh.dilation_w = c.d;
    sh.pad_top = c.pt, sh.pad_left = c.pl, sh.out_c = 4;
    sh.out_h = (c.ih + c.pt + c.pb - c.d * (c.k - 1) - 1) / c.s + 1;
    sh.out_w = (c.iw + c.pl + c.pr - c.d * (c.k - 1) - 1) / c.s + 1;
    FillS8(x, c.c * c.ih * c.iw);
    const size_t cols = c.c * c.k * c.k * sh.out_h * sh.out_w;
    if (cols > sizeof g_col_want || c.c * c.ih * c.iw > sizeof x) {
      ok = false;
      continue;
    }
    for (size_t row0 : {size_t{0}, size_t{1}}) {
      const size_t rows = sh.out_h - row0 > 2 ? 2 : sh.out_h - row0;
      std::memset(g_col_want, 0x55, sizeof g_col_want);
      std::memset(g_col_got, 0x55, sizeof g_col_got);
      ref::Im2colS8(sh, x, -7, row0, rows, g_col_want);
      Int8().im2col_s8(sh, x, -7, row0, rows, g_col_got);
      ok = ok && std::memcmp(g_col_want, g_col_got, sizeof g_col_want) == 0;
    }
  }
  // Rows so wide that MVE's pad-filled plane (4 KiB) holds only one or two output rows of a
  // 3 × 1 window: every output row at once, several planes in one call, strides 1 and 2.
  static int8_t wide[4000];
  FillS8(wide, sizeof wide);
  for (size_t stride : {size_t{1}, size_t{2}}) {
    Conv2dShape sh;
    sh.in_c = 1, sh.in_h = 4, sh.in_w = 1000, sh.kh = 3, sh.kw = 1, sh.out_c = 1;
    sh.stride_h = sh.stride_w = stride, sh.pad_top = 1;
    sh.out_h = (4 + 2 - 3) / stride + 1, sh.out_w = (1000 - 1) / stride + 1;
    std::memset(g_col_want, 0x55, sizeof g_col_want);
    std::memset(g_col_got, 0x55, sizeof g_col_got);
    ref::Im2colS8(sh, wide, 9, 0, sh.out_h, g_col_want);
    Int8().im2col_s8(sh, wide, 9, 0, sh.out_h, g_col_got);
    ok = ok && std::memcmp(g_col_want, g_col_got, sizeof g_col_want) == 0;
  }
  h.Check(ok, "int8 im2col matches the portable bytes (strides 1-3, padding, dilation, chunks)");
}

// int8 average pooling against ref::Pool2dS8: padding with and without count_include_pad,
// strides 1 and 2, windows wider than one 16-byte vector, a whole-plane window (KWS's), windows
// with no tap inside; max pooling (the portable code) once.
void Pool2dS8Checks(Harness& h) {
  struct Case {
    size_t ih, iw, kh, kw, s, pt, pl, oh, ow;
    bool include_pad;
    PoolKind kind;
  };
  const Case cases[] = {{25, 5, 25, 5, 1, 0, 0, 1, 1, false, PoolKind::kAverage},
                        {9, 21, 3, 3, 1, 1, 1, 9, 21, false, PoolKind::kAverage},
                        {9, 21, 3, 3, 2, 1, 1, 5, 11, true, PoolKind::kAverage},
                        {6, 40, 2, 19, 2, 0, 3, 3, 13, false, PoolKind::kAverage},
                        {4, 4, 2, 2, 1, 3, 3, 6, 6, true, PoolKind::kAverage},
                        {8, 8, 3, 3, 2, 1, 1, 4, 4, false, PoolKind::kMax}};
  int8_t x[3 * 25 * 40], want[3 * 9 * 21], got[3 * 9 * 21];
  bool ok = true;
  for (const Case& c : cases) {
    Pool2dParams p;
    p.kind = c.kind, p.in_h = c.ih, p.in_w = c.iw, p.out_h = c.oh, p.out_w = c.ow;
    p.kh = c.kh, p.kw = c.kw, p.stride_h = p.stride_w = c.s, p.pad_top = c.pt, p.pad_left = c.pl,
    p.count_include_pad = c.include_pad;
    FillS8(x, 3 * c.ih * c.iw);
    ref::Pool2dS8(p, -5, x, want, 3);
    Int8().pool2d_s8(p, -5, x, got, 3);
    ok = ok && std::memcmp(want, got, 3 * c.oh * c.ow) == 0;
  }
  h.Check(ok, "int8 pooling matches the portable bytes (padding, strides, wide and whole windows)");
  // Whole-plane averages (the DSP kernels' SMLAD sums) at plane sizes around a word, with
  // rounding ties of both signs (x = 0, ±1 alternating: sums of ±count/2), and a whole window
  // that is not the whole plane (dilated, padded) nor every tap in bounds.
  const size_t spatial[] = {1, 2, 3, 4, 5, 6, 7, 9, 125, 130};
  bool global_ok = true;
  for (size_t n : spatial)
    for (int fill = 0; fill < 3; ++fill) {
      for (size_t i = 0; i < 3 * n; ++i)
        x[i] = fill == 0   ? static_cast<int8_t>(i % 2 == 0 ? 0 : 1)
               : fill == 1 ? static_cast<int8_t>(i % 2 == 0 ? 0 : -1)
                           : static_cast<int8_t>(Next() >> 24);
      Pool2dParams p;
      p.kind = PoolKind::kAverage, p.in_h = 1, p.in_w = n, p.out_h = p.out_w = 1, p.kh = 1,
      p.kw = n;
      ref::Pool2dS8(p, 9, x, want, 3);
      Int8().pool2d_s8(p, 9, x, got, 3);
      global_ok = global_ok && std::memcmp(want, got, 3) == 0;
      ref::GlobalPoolS8(PoolKind::kAverage, x, want, 3, n);
      Int8().global_pool_s8(PoolKind::kAverage, x, got, 3, n);
      global_ok = global_ok && std::memcmp(want, got, 3) == 0;
    }
  const Case odd[] = {{5, 5, 5, 5, 1, 1, 1, 3, 3, false, PoolKind::kAverage},
                      {5, 5, 5, 5, 1, 1, 1, 1, 1, true, PoolKind::kAverage},
                      {3, 3, 3, 3, 1, 0, 0, 1, 1, false, PoolKind::kMax}};
  for (const Case& c : odd) {
    Pool2dParams p;
    p.kind = c.kind, p.in_h = c.ih, p.in_w = c.iw, p.out_h = c.oh, p.out_w = c.ow;
    p.kh = c.kh, p.kw = c.kw, p.stride_h = p.stride_w = c.s, p.pad_top = c.pt, p.pad_left = c.pl,
    p.count_include_pad = c.include_pad;
    FillS8(x, 3 * c.ih * c.iw);
    ref::Pool2dS8(p, -5, x, want, 3);
    Int8().pool2d_s8(p, -5, x, got, 3);
    global_ok = global_ok && std::memcmp(want, got, 3 * c.oh * c.ow) == 0;
  }
  Pool2dParams dilated;  // a 2 × 2 window dilated by 2 over a 2 × 2 plane reads one tap
  dilated.kind = PoolKind::kAverage, dilated.in_h = dilated.in_w = dilated.kh = dilated.kw = 2;
  dilated.out_h = dilated.out_w = 1, dilated.dilation_h = dilated.dilation_w = 2;
  FillS8(x, 3 * 4);
  ref::Pool2dS8(dilated, -5, x, want, 3);
  Int8().pool2d_s8(dilated, -5, x, got, 3);
  global_ok = global_ok && std::memcmp(want, got, 3) == 0;
  h.Check(global_ok, "int8 whole-plane averages match the portable bytes (ties, sizes 1 … 130)");
}

constexpr size_t kDwMaxX = 4096, kDwMaxY = 4096;
int8_t g_x8[kDwMaxX], g_w8[17 * 64], g_plane[8192], g_dw_want[kDwMaxY], g_dw_got[kDwMaxY];
int32_t g_dw_bias[17], g_dw_mult[17], g_dw_shift[17];

// channels × (in_h × in_w), kh × kw, padding (top/left; bottom/right implied), stride.
void DepthwiseCase(Harness& h, size_t kh, size_t kw, size_t in_h, size_t in_w, size_t pad,
                   size_t stride, size_t channels = 3, int shift_lo = 0, int shift_hi = 9) {
  Conv2dShape s;
  s.in_c = s.out_c = s.group = channels, s.in_h = in_h, s.in_w = in_w, s.kh = kh, s.kw = kw;
  s.stride_h = s.stride_w = stride, s.pad_top = s.pad_left = pad;
  s.out_h = (in_h + 2 * pad - kh) / stride + 1, s.out_w = (in_w + 2 * pad - kw) / stride + 1;
  const bool fits = channels <= 17 && channels * in_h * in_w <= kDwMaxX &&
                    channels * s.out_h * s.out_w <= kDwMaxY &&
                    ConvS8DepthwisePlaneBytes(s) <= sizeof(g_plane);
  h.Check(fits, "depthwise case fits the test buffers");
  if (!fits) return;
  GemmS8Params rq;
  rq.bias = g_dw_bias, rq.multiplier = g_dw_mult, rq.shift = g_dw_shift;
  rq.y_zero_point = static_cast<int32_t>(Next() % 256u) - 128;
  rq.act_min = -128 + static_cast<int32_t>(Next() % 3u) * 40,
  rq.act_max = 127 - static_cast<int32_t>(Next() % 3u) * 50;
  FillS8(g_x8, channels * in_h * in_w);
  FillS8(g_w8, channels * kh * kw, -127, 127);
  for (size_t c = 0; c < channels; ++c) {
    g_dw_bias[c] = static_cast<int32_t>(Next() % 20001u) - 10000;
    g_dw_mult[c] = static_cast<int32_t>((1u << 30) + (Next() >> 2) % (1u << 30));
    g_dw_shift[c] =
        shift_lo + static_cast<int32_t>(Next() % static_cast<uint32_t>(shift_hi - shift_lo + 1));
  }
  std::memset(g_plane, 0x33, sizeof(g_plane));  // stale bytes in the slack must not matter
  std::memset(g_dw_got, 0x5a, sizeof(g_dw_got));
  const auto zp = static_cast<int8_t>(Next() % 256u);
  ref::Conv2dDepthwiseS8(s, g_x8, g_w8, zp, rq, nullptr, g_dw_want);
  Int8().conv2d_depthwise_s8(s, g_x8, g_w8, zp, rq, g_plane, g_dw_got);
  const size_t out_bytes = channels * s.out_h * s.out_w;
  char what[112];
  std::snprintf(what, sizeof(what),
                "int8 depthwise %ux%u stride %u on %ux%ux%u pad %u matches the portable bytes",
                static_cast<unsigned>(kh), static_cast<unsigned>(kw), static_cast<unsigned>(stride),
                static_cast<unsigned>(channels), static_cast<unsigned>(in_h),
                static_cast<unsigned>(in_w), static_cast<unsigned>(pad));
  h.Check(std::memcmp(g_dw_want, g_dw_got, out_bytes) == 0 &&
              g_dw_got[out_bytes] == 0x5a,  // nothing written past y
          what);
}

void DepthwiseChecks(Harness& h) {
  DepthwiseCase(h, 3, 3, 25, 5, 1, 1);  // the KWS layer's shape (fewer channels)
  DepthwiseCase(h, 3, 3, 7, 9, 1, 1);
  DepthwiseCase(h, 3, 3, 4, 4, 0, 1);  // even width: no dropped second output
  DepthwiseCase(h, 1, 1, 3, 5, 0, 1);
  DepthwiseCase(h, 5, 5, 9, 7, 2, 1);  // two tap groups a row
  DepthwiseCase(h, 3, 1, 6, 3, 1, 1);
  DepthwiseCase(h, 1, 7, 2, 13, 3, 1);
  DepthwiseCase(h, 2, 9, 5, 11, 0, 1);  // three groups, no padding
  DepthwiseCase(h, 3, 3, 9, 7, 1, 2);   // stride 2: every other output of the stride-1 steps
  DepthwiseCase(h, 3, 3, 8, 8, 1, 2);   // VWW's stride-2 layers: even input, one padded side read
  DepthwiseCase(h, 2, 2, 5, 5, 0, 2);   // the last input row and column are read by no window
  DepthwiseCase(h, 1, 1, 7, 6, 0, 2);
  DepthwiseCase(h, 5, 5, 11, 13, 2, 2);  // two tap groups a row
  DepthwiseCase(h, 2, 9, 6, 11, 1, 2);   // three groups
  // The 3 × 3 four-output steps: 1, 3, 7, 17 channels, output widths 1 … 13 (tails of 1, 2, 3),
  // with and without padding, both strides.
  const size_t channels[] = {1, 3, 7, 17};
  const size_t widths[] = {1, 2, 3, 5, 6, 7, 9, 13};
  for (size_t c : channels)
    for (size_t w : widths) {
      DepthwiseCase(h, 3, 3, 5, w, 1, 1, c);
      DepthwiseCase(h, 3, 3, 6, w + 2, 0, 1, c);
      DepthwiseCase(h, 3, 3, 7, w, 1, 2, c);
      DepthwiseCase(h, 3, 3, 6, w + 2, 0, 2, c);
    }
  // Sums of whole rows are requantized together up to 128 outputs, longer rows in chunks.
  DepthwiseCase(h, 3, 3, 9, 43, 1, 1, 2);   // two rows a batch, the last batch one row
  DepthwiseCase(h, 3, 3, 3, 127, 1, 1, 1);  // one row a batch
  DepthwiseCase(h, 3, 3, 3, 130, 1, 1, 2);  // 130 outputs a row: two chunks
  DepthwiseCase(h, 3, 3, 5, 261, 1, 2, 2);  // 131 outputs a row at stride 2
  DepthwiseCase(h, 3, 3, 4, 131, 0, 1, 3);  // 129: a chunk and one output
  DepthwiseCase(h, 1, 5, 3, 134, 0, 1, 2);  // other windows, two chunks
  DepthwiseCase(h, 5, 5, 9, 30, 2, 1, 2);   // other windows, four rows a batch
  // Requantization outside RequantRow's fast range (shift 1: n = 32; shift 24: t = 23;
  // shifts below 1: a multiplier of 1/2 or more) and at its edges (t = 1, t = 22).
  DepthwiseCase(h, 3, 3, 5, 7, 1, 1, 7, 1, 2);
  DepthwiseCase(h, 3, 3, 5, 7, 1, 1, 7, 22, 25);
  DepthwiseCase(h, 3, 3, 5, 7, 1, 2, 7, -3, 1);
}

// RequantizeS8 against its definition, q = clamp(zp + RoundShiftHalfAway(acc·M, 31 + shift)).
void RequantizeChecks(Harness& h) {
  int bad = 0;
  for (int shift = -30; shift <= 31; ++shift)
    for (int i = 0; i < 200; ++i) {
      int32_t acc = static_cast<int32_t>(Next());
      if (i < 8) acc = (i & 1 ? -1 : 1) * (i < 4 ? (1 << (i + 8)) : 0x7fffffff);
      if (i % 5 == 0) acc >>= 12;
      const auto mult = static_cast<int32_t>((1u << 30) + (i == 1 ? 0u : (Next() >> 2)));
      int64_t want = RoundShiftHalfAway(int64_t{acc} * mult, 31 + shift) - 3;
      want = want < -128 ? -128 : want > 127 ? 127 : want;
      if (RequantizeS8(acc, mult, shift, -3, -128, 127) != static_cast<int8_t>(want)) ++bad;
    }
  // Exact halves round away from zero: acc·M = ±(2k+1)·2^(n−1).
  const int32_t m = 1 << 30;  // n = 32: acc·2^30 / 2^32 = acc / 4
  const int8_t halves[] = {
      RequantizeS8(2, m, 1, 0, -128, 127), RequantizeS8(-2, m, 1, 0, -128, 127),
      RequantizeS8(6, m, 1, 0, -128, 127), RequantizeS8(-6, m, 1, 0, -128, 127)};
  h.Check(bad == 0 && halves[0] == 1 && halves[1] == -1 && halves[2] == 2 && halves[3] == -2,
          "RequantizeS8 matches the 64-bit rule for every shift");
}

// The int8 Add against ref::AddS8: every shift 1 … 62 (Helium's vector path takes 17 … 46),
// power-of-two multipliers (rounding ties of either sign: the borrow), random and extreme ones
// (0, 2^31 − 1, low halves 0 and 0xffff), zero points at the int8 ends, clamps, and 1 … 37
// elements (tails of 1 … 3).
void AddS8ExtremeChecks(Harness& h) {
  constexpr size_t kN = 37;
  int8_t a[kN], b[kN], want[kN + 1], got[kN + 1];
  int bad = 0;
  for (int32_t shift = 1; shift <= 62; ++shift)
    for (int variant = 0; variant < 4; ++variant) {
      AddS8Params p;
      p.shift = shift;
      const int32_t pow2 = static_cast<int32_t>(1u << std::min<int32_t>(shift - 1, 30));
      const int32_t rnd_a = static_cast<int32_t>(Next() >> 1),
                    rnd_b = static_cast<int32_t>(Next() >> 1);
      p.multiplier_a = variant == 0   ? pow2
                       : variant == 1 ? 0x7fffffff
                       : variant == 2 ? 0x4000ffff
                                      : rnd_a;
      p.multiplier_b = variant == 0 ? pow2 : variant == 1 ? 0 : variant == 2 ? 0x7fff0000 : rnd_b;
      p.a_zero_point = variant == 1 ? -128 : static_cast<int32_t>(Next() % 256u) - 128;
      p.b_zero_point = variant == 1 ? 127 : static_cast<int32_t>(Next() % 256u) - 128;
      p.y_zero_point = static_cast<int32_t>(Next() % 256u) - 128;
      p.act_min = variant == 3 ? -100 : -128, p.act_max = variant == 3 ? 90 : 127;
      const size_t n = 1 + (static_cast<size_t>(shift) * 7 + static_cast<size_t>(variant)) % kN;
      FillS8(a, kN);
      FillS8(b, kN);
      std::memset(want, 0x5a, sizeof(want));
      std::memset(got, 0x5a, sizeof(got));
      ref::AddS8(p, a, b, want, n);
      Int8().add_s8(p, a, b, got, n);
      bad += std::memcmp(want, got, n + 1) != 0;
    }
  h.Check(bad == 0, "int8 add matches the portable bytes (every shift, ties, extreme multipliers)");
}

// QuantizeS8 against the portable rule: halves (ties to even), the ±512 clamp, NaN, infinities,
// denormals, every zero point class.
void QuantizeChecks(Harness& h) {
  constexpr size_t kN = 64;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float x[kN];
  int8_t want[kN], got[kN];
  const float special[] = {0.5f,    1.5f,   2.5f,    -0.5f,  -1.5f,      -2.5f, 127.5f,
                           -128.5f, 511.5f, -511.5f, 512.5f, -512.5f,    1e9f,  -1e9f,
                           kInf,    -kInf,  1e-40f,  -0.0f,  0.49999997f};
  int bad = 0;
  const int32_t zps[] = {-128, -7, 0, 5, 127};
  const float invs[] = {1.0f, 0.37f, 3.0e9f};
  for (int32_t zp : zps)
    for (float inv : invs) {
      QuantS8Params p;
      p.inv_scale = inv, p.zero_point = zp;
      for (size_t i = 0; i < kN; ++i) {
        const auto r = static_cast<int32_t>(Next());
        x[i] = i < sizeof(special) / sizeof(special[0]) ? special[i]
                                                        : static_cast<float>(r % 100000) / 128.0f;
      }
      uint32_t nan_bits = 0x7fc00000u;
      std::memcpy(&x[kN - 1], &nan_bits, sizeof(float));
      ref::QuantizeS8(p, x, want, kN);
      Int8().quantize_s8(p, x, got, kN);
      bad += std::memcmp(want, got, kN) != 0;
      // Groups of four and a tail of three, into an unaligned output.
      std::memset(got, 0x5a, kN);
      Int8().quantize_s8(p, x + 1, got + 1, kN - 2);
      bad += std::memcmp(want + 1, got + 1, kN - 2) != 0 || got[0] != 0x5a || got[kN - 1] != 0x5a;
    }
  h.Check(bad == 0, "int8 quantize matches the portable bytes (ties, clamps, NaN, infinities)");
}

// AddS8 against the portable rule: every shift (the DSP kernel's 32-bit path for 9 … 31, the
// portable code around it), extreme zero points and multipliers, multipliers of 2^(n−1) whose
// sums are rounding ties of both signs, a clamp narrower than int8,
// lengths with 1 … 3 outputs past the last group of four.
void AddS8Checks(Harness& h) {
  constexpr size_t kN = 23;
  int8_t a[kN], b[kN], want[kN + 1], got[kN + 1];
  int bad = 0, cases = 0;
  for (int32_t shift = 1; shift <= 62; ++shift)
    for (int variant = 0; variant < 6; ++variant) {
      AddS8Params p;
      p.shift = shift;
      p.a_zero_point = variant == 0 ? -128 : static_cast<int32_t>(Next() % 256u) - 128;
      p.b_zero_point = variant == 0 ? 127 : static_cast<int32_t>(Next() % 256u) - 128;
      p.y_zero_point = static_cast<int32_t>(Next() % 256u) - 128;
      p.multiplier_a = variant == 1 ? 2147483647 : static_cast<int32_t>(Next() >> 1);
      p.multiplier_b = variant == 2 ? 0 : static_cast<int32_t>(Next() >> 1);
      if (variant == 3) p.act_min = -100, p.act_max = 90;
      if (variant >= 4) {  // v = (a − zp_a + b − zp_b)·2^(n−1) (or 2^30): ties of both signs
        p.multiplier_a = p.multiplier_b =
            static_cast<int32_t>(1u << std::min<int32_t>(shift - 1, 30));
        p.multiplier_b = variant == 5 ? 0 : p.multiplier_b;
      }
      FillS8(a, kN);
      FillS8(b, kN);
      const size_t n = kN - static_cast<size_t>(variant % 4);
      std::memset(want, 0x5a, sizeof(want));
      std::memset(got, 0x5a, sizeof(got));
      ref::AddS8(p, a, b, want, n);
      Int8().add_s8(p, a, b, got, n);
      bad += std::memcmp(want, got, sizeof(want)) != 0;
#if defined(EDGEFOLD_HAVE_INT8_DSP)
      std::memset(got, 0x5a, sizeof(got));
      cortex_m_dsp::AddS8(p, a, b, got, n);
      bad += std::memcmp(want, got, sizeof(want)) != 0;
#endif
      ++cases;
    }
  h.Check(bad == 0 && cases == 62 * 6,
          "int8 add matches the portable bytes at every shift (rounding ties included)");
}

// SoftmaxS8 against its rule with a 64-bit sum and division (the kernel divides in 32 bits
// below S = 2^32, the Cortex-M4's UDIV), at 1, 3, 10, 17, 1000 and 4099 classes; equal and
// extreme inputs by hand; the exp table as the host computes it (NumPy's values).
int32_t g_exp[kSoftmaxS8TableElems];
int8_t g_sx[4099], g_sy[4099];

bool SoftmaxRowMatchesRule(size_t classes) {
  int mx = -128;
  for (size_t i = 0; i < classes; ++i) mx = g_sx[i] > mx ? g_sx[i] : mx;
  uint64_t s = 0;
  for (size_t i = 0; i < classes; ++i) s += static_cast<uint64_t>(g_exp[mx - g_sx[i]]);
  ref::SoftmaxS8(g_exp, g_sx, g_sy, 1, classes);
  for (size_t i = 0; i < classes; ++i) {
    const int64_t q =
        static_cast<int64_t>((512 * static_cast<uint64_t>(g_exp[mx - g_sx[i]]) + s) / (2 * s)) -
        128;
    if (g_sy[i] != (q > 127 ? 127 : q)) return false;
  }
  return true;
}

void SoftmaxChecks(Harness& h) {
  SoftmaxS8ExpTable(0.0625f, g_exp);
  int64_t table_sum = 0;
  for (int32_t t : g_exp) table_sum += t;
  h.Check(g_exp[0] == 1048576 && g_exp[1] == 985046 && g_exp[100] == 2024 && g_exp[255] == 0 &&
              table_sum == 17306960,
          "int8 softmax exp table for scale 1/16 has the host's values");
  int bad = 0;
  const float scales[] = {0.0001f, 0.03f, 1.0f};
  const size_t sizes[] = {1, 3, 10, 17, 1000, 4099};
  for (float scale : scales) {
    SoftmaxS8ExpTable(scale, g_exp);
    for (size_t classes : sizes) {
      FillS8(g_sx, classes);
      bad += !SoftmaxRowMatchesRule(classes);
    }
  }
  h.Check(bad == 0, "int8 softmax matches its rule computed in 64 bits");
  SoftmaxS8ExpTable(1.0f, g_exp);
  for (size_t i = 0; i < 10; ++i) g_sx[i] = 42;
  ref::SoftmaxS8(g_exp, g_sx, g_sy, 1, 10);  // round(25.6) − 128
  bool equal_ok = true;
  for (size_t i = 0; i < 10; ++i) equal_ok = equal_ok && g_sy[i] == -102;
  ref::SoftmaxS8(g_exp, g_sx, g_sy, 1, 1);
  h.Check(equal_ok && g_sy[0] == 127, "int8 softmax of equal inputs is 1/n (1 saturates at 127)");
  for (size_t i = 0; i < 17; ++i) g_sx[i] = -128;
  g_sx[4] = 127;
  ref::SoftmaxS8(g_exp, g_sx, g_sy, 1, 17);
  bool extreme_ok = g_sy[4] == 127;
  for (size_t i = 0; i < 17; ++i) extreme_ok = extreme_ok && (i == 4 || g_sy[i] == -128);
  h.Check(extreme_ok, "int8 softmax of one logit 255 steps above the rest");
}

}  // namespace

void RunInt8Checks(Harness& h) {
#if defined(EDGEFOLD_HAVE_CORTEX_M_MVE)
  std::printf("int8: Helium (MVE) kernels vs the portable reference\n");
  h.Check(ActiveEntry(edgefold::Isa::kScalar) == IsaEntry::cortex_m_mve,
          "an MVE core runs the cortex_m_mve int8 table");
#elif defined(EDGEFOLD_HAVE_INT8_DSP)
  std::printf("int8: DSP-extension kernels vs the portable reference\n");
#endif
#if defined(EDGEFOLD_HAVE_INT8_DSP)
  // The always-present extension shadows the scalar level's own int8 table: its lookup leaves
  // it out (not linked), and the level still finds the extension's.
  h.Check(TableAt<Int8KernelTable>(IsaEntry::scalar) == nullptr &&
              TableFor<Int8KernelTable>(edgefold::Isa::kScalar) ==
                  TableAt<Int8KernelTable>(ActiveEntry(edgefold::Isa::kScalar)) &&
              TableFor<Int8KernelTable>(edgefold::Isa::kScalar) != nullptr,
          "the scalar level's own int8 table is left out of a DSP build's lookup");
#endif
  RequantizeChecks(h);
#if defined(EDGEFOLD_HAVE_INT8_MVE)
  RequantRowMveChecks(h);
#endif
#if defined(EDGEFOLD_HAVE_INT8_DSP)
  RequantRowDspChecks(h);
#endif
  GemmS8Checks(h);
  Im2colChecks(h);
  Pool2dS8Checks(h);
  DepthwiseChecks(h);
  QuantizeChecks(h);
  AddS8Checks(h);
  AddS8ExtremeChecks(h);
  SoftmaxChecks(h);
}

}  // namespace edgefold::mcu_test
