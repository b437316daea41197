// The int8 GEMM on AVX-512 VNNI (vpdpbusd: 16 lanes, each += four u8·s8 products): the
// avx512_vnni entry of kernels/isa_list.h, run on CPUs that have it. Compiled with -mavx512vnni on its
// own so no other avx512 kernel can pick up a VNNI instruction a non-VNNI CPU lacks.
//
// vpdpbusd multiplies unsigned by signed bytes. B (activations, int8) is made unsigned by
// flipping its sign bit (b + 128), and the row's 128·Σ_k A[i,k] is taken back out of the
// accumulator's start value. Integer sums wrap mod 2^32 and the true result fits in int32
// (k ≤ kMaxGemmS8K), so the bits are the reference's (kernels/ref/int8_ref.cc).
//
// B is repacked per block of up to 64 columns into a panel of k/4 rows of up to four
// registers, each holding four consecutive k of 16 columns (the layout vpdpbusd reads); A's
// four bytes are broadcast straight from its rows. Rows run in tiles of 6 over four registers
// (8 over three or fewer): 24 accumulators, the panel's registers and the broadcast within
// AVX-512's 32. Deep k narrows the panel so that it stays within kPanelBytes (L2).
// The tile loops carry `#pragma GCC unroll`: GCC 12 leaves a 6 × 4 loop nest rolled, and
// then keeps the accumulators in memory; vpdpbusd is inline asm, since with the intrinsic GCC
// copies each accumulator to a fresh register before every multiply-add.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_s8_direct.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/depthwise_s8_tap_groups.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/simd/requant_avx512.h"

namespace edgefold::kernels::avx512_vnni {

#include "kernels/simd/int8_b_rows_x86.h"

namespace {

constexpr size_t kLanes = 16;               // int32 accumulators per register
constexpr size_t kMaxRegs = 4;              // registers per panel row: 64 columns
constexpr size_t kPanelBytes = 160 * 1024;  // B panel on the stack
constexpr size_t kRowChunk = 1024;          // rows whose corrections live on the stack at once

// acc += u8·s8 (vpdpbusd). Inline asm: GCC copies the accumulator of the intrinsic into a new
// register before each use (a move per multiply-add in the tile loop).
inline void DotU8S8(__m512i& acc, __m512i u8, __m512i s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
}

// Four rows of 16 bytes (b + 128) interleaved so that dword c holds column c's four bytes.
inline __m512i InterleaveFour(__m128i r0, __m128i r1, __m128i r2, __m128i r3) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  r0 = _mm_xor_si128(r0, flip);
  r1 = _mm_xor_si128(r1, flip);
  r2 = _mm_xor_si128(r2, flip);
  r3 = _mm_xor_si128(r3, flip);
  const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
  const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
  const __m512i out = _mm512_castsi128_si512(_mm_unpacklo_epi16(lo01, lo23));
  return _mm512_inserti64x4(
      _mm512_inserti32x4(out, _mm_unpackhi_epi16(lo01, lo23), 1),
      _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(hi01, hi23)),
                              _mm_unpackhi_epi16(hi01, hi23), 1),
      1);
}

// Loads `cols` ≤ 16 bytes of a B row (zeros past them).
inline __m128i LoadRow(const int8_t* p, size_t cols) {
  if (cols >= kLanes) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << cols) - 1), p);
}

// panel[regs·q + v] = B rows 4q..4q+3 over the columns [j + 16v, j + 16v + 16) ∩ [j, j + cols),
// regs = ⌈cols/16⌉, k rounded up to 4 with zero rows (A's matching bytes are zero too, see Tile).
void PackPanel(const GemmS8Params& p, const int8_t* b, size_t j, size_t cols, __m512i* panel) {
  const size_t full = p.k / 4, regs = (cols + kLanes - 1) / kLanes;
  const __m128i zero = _mm_setzero_si128();
  for (size_t v = 0; v < regs; ++v) {
    const size_t c = std::min(kLanes, cols - v * kLanes);
    const int8_t* col = b + j + v * kLanes;
    for (size_t q = 0; q < full; ++q) {
      const int8_t* row = col + 4 * q * p.ldb;
      panel[regs * q + v] =
          InterleaveFour(LoadRow(row, c), LoadRow(row + p.ldb, c), LoadRow(row + 2 * p.ldb, c),
                         LoadRow(row + 3 * p.ldb, c));
    }
    if (p.k % 4 != 0) {
      __m128i r[4] = {zero, zero, zero, zero};
      for (size_t t = 0; t < p.k % 4; ++t) r[t] = LoadRow(col + (4 * full + t) * p.ldb, c);
      panel[regs * full + v] = InterleaveFour(r[0], r[1], r[2], r[3]);
    }
  }
}

// PackPanel with B's rows from a row source (simd/int8_b_rows_x86.h; the direct conv's
// x86_rows::ConvRows<16, 16>): each register's 16 columns one block, rows past k zeros.
template <class Source>
void PackPanelFrom(const GemmS8Params& p, Source& rows, size_t j, size_t cols, __m512i* panel) {
  const size_t quads = (p.k + 3) / 4, regs = (cols + kLanes - 1) / kLanes;
  for (size_t v = 0; v < regs; ++v) {
    auto at = rows.Begin(j + v * kLanes, std::min(kLanes, cols - v * kLanes));
    for (size_t q = 0; q < quads; ++q) {
      const __m128i r0 = rows.Next(at);
      const __m128i r1 = rows.Next(at);
      const __m128i r2 = rows.Next(at);
      const __m128i r3 = rows.Next(at);
      panel[regs * q + v] = InterleaveFour(r0, r1, r2, r3);
    }
  }
}

// A row source of 16 columns from two of 8 (x86_rows::ConvRows<8, 16> at stride 2: 16 pixels
// read up to 31 bytes, two 16-byte runs): the halves' rows side by side in one register.
template <class Half>
class TwoHalves {
 public:
  struct Cursor {
    x86_rows::RowCursor lo, hi;
  };
  TwoHalves(Half& lo, Half& hi) : lo_(lo), hi_(hi) {}
  Cursor Begin(size_t j, size_t cols) {
    two_ = cols > kLanes / 2;
    Cursor c;
    c.lo = lo_.Begin(j, std::min(kLanes / 2, cols));
    if (two_) c.hi = hi_.Begin(j + kLanes / 2, cols - kLanes / 2);
    return c;
  }
  __m128i Next(Cursor& c) const {
    const __m128i lo = lo_.Next(c.lo);
    return two_ ? _mm_unpacklo_epi64(lo, hi_.Next(c.hi)) : lo;
  }

 private:
  Half &lo_, &hi_;
  bool two_ = false;
};

// acc_start[i] = bias[i] − 128·Σ_k A[i,k] for rows [i0, i0 + rows).
void RowStarts(const GemmS8Params& p, const int8_t* a, size_t i0, size_t rows, int32_t* start) {
  const __m512i ones = _mm512_set1_epi8(1);
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* row = a + (i0 + r) * p.lda;
    __m512i acc = _mm512_setzero_si512();
    size_t q = 0;
    for (; q + 64 <= p.k; q += 64)
      acc = _mm512_dpbusd_epi32(acc, ones, _mm512_loadu_si512(row + q));
    int32_t sum = _mm512_reduce_add_epi32(acc);
    for (; q < p.k; ++q) sum += row[q];
    start[r] = (p.bias != nullptr ? p.bias[i0 + r] : 0) - 128 * sum;
  }
}

// R rows from i over the V registers of the panel (columns [j, j + cols), cols ≤ 16·V).
template <size_t R, size_t V>
[[gnu::noinline]] void Tile(const GemmS8Params& p, const int8_t* a, const __m512i* panel,
                            const int32_t* start, size_t i, size_t j, size_t cols, int8_t* y) {
  __m512i acc[R][V];
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 16
    for (size_t v = 0; v < V; ++v) acc[r][v] = _mm512_set1_epi32(start[r]);
  const size_t full = p.k / 4;
  const int8_t* rows[R];
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) rows[r] = a + (i + r) * p.lda;
  for (size_t q = 0; q < full; ++q) {
    __m512i bq[V];
#pragma GCC unroll 16
    for (size_t v = 0; v < V; ++v) bq[v] = _mm512_load_si512(panel + V * q + v);
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
      int32_t word;
      std::memcpy(&word, rows[r] + 4 * q, 4);
      const __m512i aw = _mm512_set1_epi32(word);
#pragma GCC unroll 16
      for (size_t v = 0; v < V; ++v) DotU8S8(acc[r][v], bq[v], aw);
    }
  }
  if (p.k % 4 != 0) {  // the last bytes of each row, zero-padded (never read past the row)
    __m512i bq[V];
#pragma GCC unroll 16
    for (size_t v = 0; v < V; ++v) bq[v] = _mm512_load_si512(panel + V * full + v);
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
      int32_t word = 0;
      std::memcpy(&word, rows[r] + 4 * full, p.k % 4);
      const __m512i aw = _mm512_set1_epi32(word);
#pragma GCC unroll 16
      for (size_t v = 0; v < V; ++v) DotU8S8(acc[r][v], bq[v], aw);
    }
  }
  // Per row: four registers (zeros past V) rounded, narrowed to 64 bytes and stored at once.
  const __m512i zp16 = _mm512_set1_epi16(static_cast<int16_t>(p.y_zero_point));
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(p.act_min));
  const __m512i hi8 = _mm512_set1_epi8(static_cast<char>(p.act_max));
  const __mmask64 keep = cols >= 64 ? ~__mmask64{0} : (__mmask64{1} << cols) - 1;
  const int32_t* multiplier = p.multiplier + i;
  const int32_t* shift = p.shift + i;
  int8_t* out = y + i * p.ldy + j;
  const size_t ldy = p.ldy;
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    const avx512_requant::RowRounding k = avx512_requant::MakeRowRounding(multiplier[r], shift[r]);
    __m512i q[4];
#pragma GCC unroll 4
    for (size_t v = 0; v < 4; ++v)
      q[v] =
          v < V ? avx512_requant::RoundedS32x16(acc[r][v < V ? v : 0], k) : _mm512_setzero_si512();
    const __m512i bytes = avx512_requant::NarrowFourS8(q[0], q[1], q[2], q[3], zp16, lo8, hi8);
    if (cols >= 64)
      _mm512_storeu_si512(out + r * ldy, bytes);
    else
      _mm512_mask_storeu_epi8(out + r * ldy, keep, bytes);
  }
}

// All rows over one panel of V registers: tiles of kTileRows rows (V·kTileRows accumulators
// and V panel registers within AVX-512's 32), then 4, 2 and 1.
template <size_t V>
void Rows(const GemmS8Params& p, const int8_t* a, const __m512i* panel, const int32_t* start,
          size_t i0, size_t rows, size_t j, size_t cols, int8_t* y) {
  constexpr size_t kTileRows = V >= 3 ? 6 : 8;
  size_t r = 0;
  for (; r + kTileRows <= rows; r += kTileRows)
    Tile<kTileRows, V>(p, a, panel, start + r, i0 + r, j, cols, y);
  if (rows - r >= 4) {
    Tile<4, V>(p, a, panel, start + r, i0 + r, j, cols, y);
    r += 4;
  }
  if (rows - r >= 2) {
    Tile<2, V>(p, a, panel, start + r, i0 + r, j, cols, y);
    r += 2;
  }
  if (r < rows) Tile<1, V>(p, a, panel, start + r, i0 + r, j, cols, y);
}

// The depthwise plane as unsigned bytes (x + 128), in place: what vpdpbusd reads.
void FlipSigns(int8_t* plane, size_t bytes) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  size_t i = 0;
  for (; i + 64 <= bytes; i += 64)
    _mm512_storeu_si512(plane + i, _mm512_xor_si512(_mm512_loadu_si512(plane + i), flip));
  if (i < bytes) {
    const __mmask64 keep = (__mmask64{1} << (bytes - i)) - 1;
    _mm512_mask_storeu_epi8(plane + i, keep,
                            _mm512_xor_si512(_mm512_maskz_loadu_epi8(keep, plane + i), flip));
  }
}

}  // namespace

// 64 outputs a step: taps in groups of four, each group's four shifted loads interleaved
// byte-wise (outputs × 4 taps, the layout vpdpbusd reads) and multiplied by the group's four
// weights in one instruction per 16 outputs. The sign flip's 128·Σw comes out of the start
// value, as in GemmS8. Outputs past a row (pitch − out_w) are computed and not stored.
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                        const size_t* offset, const int8_t* wc, int32_t bias, int32_t multiplier,
                        int32_t shift, const GemmS8Params& rq, int8_t* plane, int8_t* yc) {
  FlipSigns(plane, g.phases * g.phase_bytes);
  const size_t groups = (taps + 3) / 4;
  int32_t weights[kMaxDepthwiseS8TapGroups];
  size_t off[4 * kMaxDepthwiseS8TapGroups];
  const int32_t sum = PackDepthwiseTapGroups(taps, offset, wc, weights, off);
  const __m512i start = _mm512_set1_epi32(bias - 128 * sum);
  const avx512_requant::RowRounding rounding = avx512_requant::MakeRowRounding(multiplier, shift);
  const __m512i zp16 = _mm512_set1_epi16(static_cast<int16_t>(rq.y_zero_point));
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(rq.act_min));
  const __m512i hi8 = _mm512_set1_epi8(static_cast<char>(rq.act_max));
  const size_t flat = s.out_h * g.pitch;
  size_t oh = 0, ow = 0;
  for (size_t i = 0; i < flat; i += 64) {
    __m512i acc0 = start, acc1 = start, acc2 = start, acc3 = start;
    for (size_t q = 0; q < groups; ++q) {
      const int8_t* base = plane + i;
      const __m512i r0 = _mm512_loadu_si512(base + off[4 * q]),
                    r1 = _mm512_loadu_si512(base + off[4 * q + 1]);
      const __m512i r2 = _mm512_loadu_si512(base + off[4 * q + 2]),
                    r3 = _mm512_loadu_si512(base + off[4 * q + 3]);
      const __m512i ab_lo = _mm512_unpacklo_epi8(r0, r1), ab_hi = _mm512_unpackhi_epi8(r0, r1);
      const __m512i cd_lo = _mm512_unpacklo_epi8(r2, r3), cd_hi = _mm512_unpackhi_epi8(r2, r3);
      const __m512i w = _mm512_set1_epi32(weights[q]);
      DotU8S8(acc0, _mm512_unpacklo_epi16(ab_lo, cd_lo), w);
      DotU8S8(acc1, _mm512_unpackhi_epi16(ab_lo, cd_lo), w);
      DotU8S8(acc2, _mm512_unpacklo_epi16(ab_hi, cd_hi), w);
      DotU8S8(acc3, _mm512_unpackhi_epi16(ab_hi, cd_hi), w);
    }
    // Register j holds, in 128-bit lane m, outputs 16m + 4j … 16m + 4j + 3 (the unpack
    // order), which is PackFourS8's order: the 64 bytes come out in order.
    const __m512i out =
        avx512_requant::PackFourS8(avx512_requant::RoundedS32x16(acc0, rounding),
                                   avx512_requant::RoundedS32x16(acc1, rounding),
                                   avx512_requant::RoundedS32x16(acc2, rounding),
                                   avx512_requant::RoundedS32x16(acc3, rounding), zp16, lo8, hi8);
    // Store the block's outputs row by row: each run one masked store at its own offset.
    const size_t lanes = std::min<size_t>(64, flat - i);
    for (size_t l = 0; l < lanes;) {
      const size_t run =
          ow < s.out_w ? std::min(s.out_w - ow, lanes - l) : std::min(g.pitch - ow, lanes - l);
      if (ow < s.out_w) {
        const __mmask64 keep = (run == 64 ? ~__mmask64{0} : (__mmask64{1} << run) - 1) << l;
        _mm512_mask_storeu_epi8(yc + oh * s.out_w + ow - l, keep,
                                out);  // masked-off bytes untouched
      }
      l += run;
      ow += run;
      if (ow == g.pitch) {
        ow = 0;
        ++oh;
      }
    }
  }
}

// One row of A against B's single contiguous column (n == 1, ldb == 1: GemmInt8): b + 128
// once into a stack copy, four rows a step over 64 k at a time; the row's 128·Σ_k A[i,k]
// is summed beside it (vpdpbusd of ones) and taken out before RequantizeS8.
constexpr size_t kMatVecK = 8192;

template <size_t R>
void MatVecRows(const GemmS8Params& p, const int8_t* a, const int8_t* bu, size_t i, int8_t* y) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i dot[R], sum[R];
  for (size_t r = 0; r < R; ++r) dot[r] = sum[r] = _mm512_setzero_si512();
  for (size_t q = 0; q < p.k; q += 64) {
    const __mmask64 keep = p.k - q >= 64 ? ~__mmask64{0} : (__mmask64{1} << (p.k - q)) - 1;
    const __m512i u = _mm512_load_si512(bu + q);  // zero-padded copy: bytes past k are 0
    for (size_t r = 0; r < R; ++r) {
      const __m512i w = _mm512_maskz_loadu_epi8(keep, a + (i + r) * p.lda + q);
      DotU8S8(dot[r], u, w);
      DotU8S8(sum[r], ones, w);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    // Mod 2^32 (the true sum fits int32; the parts need not).
    const uint32_t bias = p.bias != nullptr ? static_cast<uint32_t>(p.bias[i + r]) : 0u;
    const int32_t acc =
        static_cast<int32_t>(bias + static_cast<uint32_t>(_mm512_reduce_add_epi32(dot[r])) -
                             128u * static_cast<uint32_t>(_mm512_reduce_add_epi32(sum[r])));
    y[(i + r) * p.ldy] = RequantizeS8(acc, p.multiplier[i + r], p.shift[i + r], p.y_zero_point,
                                      p.act_min, p.act_max);
  }
}

void MatVec(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  alignas(64) int8_t bu[kMatVecK + 64];
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (size_t q = 0; q < p.k; q += 64) {
    const __mmask64 keep = p.k - q >= 64 ? ~__mmask64{0} : (__mmask64{1} << (p.k - q)) - 1;
    _mm512_store_si512(
        bu + q,
        _mm512_maskz_mov_epi8(keep, _mm512_xor_si512(_mm512_maskz_loadu_epi8(keep, b + q), flip)));
  }
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) MatVecRows<4>(p, a, bu, i, y);
  for (; i < p.m; ++i) MatVecRows<1>(p, a, bu, i, y);
}

namespace {

// Panels of up to kMaxRegs registers, fewer when k is deep (the panel stays within
// kPanelBytes: 64 columns up to k = 2560, 16 up to k = 10240); 0 where k is deeper.
size_t PanelRegs(const GemmS8Params& p) {
  const size_t groups = (p.k + 3) / 4;
  return std::min(kMaxRegs, kPanelBytes / (groups * sizeof(__m512i)));
}

// Y = requantize(bias + A·B) over panels of `regs` ≥ 1 registers, each packed by
// pack(j, cols, panel).
template <class Pack>
void GemmPanels(const GemmS8Params& p, const int8_t* a, size_t regs, Pack&& pack, int8_t* y) {
  const size_t panel_cols = regs * kLanes;
  alignas(64) __m512i panel[kPanelBytes / sizeof(__m512i)];
  int32_t start[kRowChunk];
  for (size_t i0 = 0; i0 < p.m; i0 += kRowChunk) {
    const size_t rows = std::min(kRowChunk, p.m - i0);
    RowStarts(p, a, i0, rows, start);
    for (size_t j = 0; j < p.n; j += panel_cols) {
      const size_t cols = std::min(panel_cols, p.n - j);
      pack(j, cols, panel);
      switch ((cols + kLanes - 1) / kLanes) {
        case 4:
          Rows<4>(p, a, panel, start, i0, rows, j, cols, y);
          break;
        case 3:
          Rows<3>(p, a, panel, start, i0, rows, j, cols, y);
          break;
        case 2:
          Rows<2>(p, a, panel, start, i0, rows, j, cols, y);
          break;
        default:
          Rows<1>(p, a, panel, start, i0, rows, j, cols, y);
          break;
      }
    }
  }
}

}  // namespace

void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p.n == 1 && p.ldb == 1 && p.k <= kMatVecK) return MatVec(p, a, b, y);
  const size_t regs = PanelRegs(p);
  if (p.n < 4 || regs == 0) return avx512::kInt8Table.gemm_s8(p, a, b, y);
  GemmPanels(
      p, a, regs, [&](size_t j, size_t cols, __m512i* panel) { PackPanel(p, b, j, cols, panel); },
      y);
}

// Int8KernelTable::conv_s8_direct: at stride 1 the tiles above with B's columns read from the
// input, 16 output pixels a register (x86_rows::ConvRows<16, 16>: one 16-byte load and a byte
// shuffle per tap and output row, no im2col); ConvS8DirectFits bounds k ≤ kConvS8DirectMaxK, so
// the panel holds at least one register. At stride 2 16 pixels read up to 31 bytes, past one
// xmm: each register's rows are two blocks of 8 pixels (ConvRows<8, 16>, TwoHalves).
void ConvS8Direct(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                  int8_t pad_value, const int8_t* w, size_t j0, int8_t* y) {
  const size_t regs = std::max<size_t>(1, PanelRegs(p));
  if (s.stride_w != 1) {
    x86_rows::ConvRows<kLanes / 2, 16> lo(s, x_group, pad_value, j0, p.k);
    x86_rows::ConvRows<kLanes / 2, 16> hi(s, x_group, pad_value, j0, p.k);
    TwoHalves rows(lo, hi);
    return GemmPanels(
        p, w, regs,
        [&](size_t j, size_t cols, __m512i* panel) { PackPanelFrom(p, rows, j, cols, panel); }, y);
  }
  x86_rows::ConvRows<kLanes, kLanes> rows(s, x_group, pad_value, j0, p.k);
  GemmPanels(
      p, w, regs,
      [&](size_t j, size_t cols, __m512i* panel) { PackPanelFrom(p, rows, j, cols, panel); }, y);
}

}  // namespace edgefold::kernels::avx512_vnni
