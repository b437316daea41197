// The int8 kernels of the 256-bit VNNI entries (kernels/isa_list.h avx2_vnni, avx2_vnni_evex):
// vpdpbusd on ymm, 8 int32 lanes each += four u8·s8 products, no saturation. Written once and
// compiled twice: arch/avx2_vnni.cc with -mavxvnni (the VEX encoding of AVX-VNNI, Intel Alder
// Lake and later cores, AMD Zen 5) and arch/avx2_vnni_evex.cc with -mavx512vnni -mavx512vl
// (EDGEFOLD_VNNI256_EVEX: the EVEX encoding of the same instruction, so that CPUs with AVX-512
// VNNI but no AVX-VNNI, AMD Zen 4 among them, test and time this code when asked to). Each defines
// EDGEFOLD_ARCH_NS (its namespace) and includes this header once.
//
// As in arch/avx512_vnni.cc, B (activations) is made unsigned by flipping its sign bit
// (b + 128) and each row's 128·Σ_k A[i,k] taken out of the accumulator's start; integer sums
// wrap mod 2^32 and the true result fits in int32 (k ≤ kMaxGemmS8K), so the bits are the
// reference's (kernels/ref/int8_ref.cc).
//
// GEMM: B packed per block of 8 columns into ⌈k/4⌉ registers of quads (lane c: B[4t..4t+3, c]
// + 128), blocks grouped to fill kPanelBytes, from a row source (int8_b_rows_x86.h: B itself,
// or a convolution's input without an im2col: the direct conv shares the GEMM). A's rows are
// copied with k rounded up to 4 by zeros, so a quad of weights is one 32-bit broadcast. Tiles of
// 6 rows × 2 blocks (12 accumulators, 2 panel registers, the broadcast: 15 of 16 ymm) or 12
// rows × 1 block. vpdpbusd is inline asm: with the intrinsic GCC 12 copies each accumulator to
// a fresh register before every multiply-add (arch/avx512_vnni.cc).
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/conv/conv_s8_direct.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/depthwise_s8_tap_groups.h"
#include "kernels/conv/flat_rows_s8.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/int8_params.h"
#include "kernels/simd/requant_avx2.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

#include "kernels/simd/int8_b_rows_x86.h"

namespace vnni256 {

constexpr size_t kW = 8;                    // int32 lanes, columns per block
constexpr size_t kPanelBytes = 160 * 1024;  // B panel on the stack: k ≤ 20480
constexpr size_t kNarrowBytes = 64 * 1024;  // A rows padded to a multiple of 4
constexpr size_t kMaxChunkRows = 512;       // rows narrowed at once at most (their starts)
constexpr size_t kMatVecK = 8192;           // the matrix-vector product's copy of B

// acc += Σ of each lane's four u8·s8 products.
inline void Dot(__m256i& acc, __m256i u8, __m256i s8) {
#if defined(EDGEFOLD_VNNI256_EVEX)
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
#else
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u8), "x"(s8));
#endif
}

// The low 8 bytes of four rows of B as quads of 8 columns, each byte + 128.
inline __m256i PackQuads(__m128i r0, __m128i r1, __m128i r2, __m128i r3) {
  const __m128i ab = _mm_unpacklo_epi8(r0, r1);
  const __m128i cd = _mm_unpacklo_epi8(r2, r3);
  const __m256i q = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(ab, cd)),
                                            _mm_unpackhi_epi16(ab, cd), 1);
  return _mm256_xor_si256(q, _mm256_set1_epi8(-128));
}

// panel[t] = the quads of B rows 4t..4t+3 over columns [j, j + cols), cols ≤ 8.
template <class Rows>
void PackBlock(size_t quads, Rows& rows, size_t j, size_t cols, __m256i* panel) {
  x86_rows::RowCursor at = rows.Begin(j, cols);
  for (size_t t = 0; t < quads; ++t) {
    const __m128i r0 = rows.Next(at);
    const __m128i r1 = rows.Next(at);
    const __m128i r2 = rows.Next(at);
    const __m128i r3 = rows.Next(at);
    panel[t] = PackQuads(r0, r1, r2, r3);
  }
}

// B itself read 16 columns a row (a block pair): one load where the level's MatrixRows<8> takes
// two (rows past k are zeros, columns past cols zeros).
using WideMatrixRows = x86_rows::MatrixRows<16>;

// Two blocks at once from rows of 16 columns (cols ≤ 16): first[t] columns [j, j + 8), second[t]
// [j + 8, j + 16), stored only when kTwo.
template <bool kTwo>
void PackBlockPair(size_t quads, WideMatrixRows& rows, size_t j, size_t cols, __m256i* first,
                   __m256i* second) {
  x86_rows::RowCursor at = rows.Begin(j, cols);
  const __m256i flip = _mm256_set1_epi8(-128);
  for (size_t t = 0; t < quads; ++t) {
    const __m128i r0 = rows.Next(at);
    const __m128i r1 = rows.Next(at);
    const __m128i r2 = rows.Next(at);
    const __m128i r3 = rows.Next(at);
    const __m128i ab_lo = _mm_unpacklo_epi8(r0, r1), cd_lo = _mm_unpacklo_epi8(r2, r3);
    first[t] = _mm256_xor_si256(
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(ab_lo, cd_lo)),
                                _mm_unpackhi_epi16(ab_lo, cd_lo), 1),
        flip);
    if constexpr (kTwo) {
      const __m128i ab_hi = _mm_unpackhi_epi8(r0, r1), cd_hi = _mm_unpackhi_epi8(r2, r3);
      second[t] = _mm256_xor_si256(
          _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(ab_hi, cd_hi)),
                                  _mm_unpackhi_epi16(ab_hi, cd_hi), 1),
          flip);
    }
  }
}

// The blocks [jg, jg + 8·blocks) of B into the panel (block b at panel + b·quads).
template <class Rows>
void PackBlocks(const GemmS8Params& p, size_t quads, Rows& rows, size_t jg, size_t blocks,
                __m256i* panel) {
  if constexpr (std::is_same_v<Rows, WideMatrixRows>) {
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
      const size_t j = jg + b * kW;
      PackBlockPair<true>(quads, rows, j, std::min(2 * kW, p.n - j), panel + b * quads,
                          panel + (b + 1) * quads);
    }
    if (b < blocks) {
      const size_t j = jg + b * kW;
      PackBlockPair<false>(quads, rows, j, std::min(kW, p.n - j), panel + b * quads, nullptr);
    }
  } else {
    for (size_t b = 0; b < blocks; ++b)
      PackBlock(quads, rows, jg + b * kW, std::min(kW, p.n - jg - b * kW), panel + b * quads);
  }
}

// Rows [i, i + rows) of A with k padded to ld_narrow by zeros, and each row's start
// bias − 128·Σ_k A (in uint32: the wrap is intended, see the header note).
inline void NarrowRows(const GemmS8Params& p, const int8_t* a, size_t i, size_t rows,
                       int8_t* narrow, size_t ld_narrow, int32_t* start) {
  const __m256i ones = _mm256_set1_epi8(1);
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* src = a + (i + r) * p.lda;
    int8_t* dst = narrow + r * ld_narrow;
    std::memcpy(dst, src, p.k);
    std::memset(dst + p.k, 0, ld_narrow - p.k);
    __m256i sums = _mm256_setzero_si256();  // Σ_k A: 1·a by vpdpbusd, 32 bytes a step
    size_t q = 0;
    for (; q + 32 <= p.k; q += 32)
      Dot(sums, ones, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + q)));
    const __m128i half =
        _mm_add_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    const __m128i two = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4E));
    int32_t sum = _mm_cvtsi128_si32(_mm_add_epi32(two, _mm_shuffle_epi32(two, 0xB1)));
    for (; q < p.k; ++q) sum += src[q];
    const uint32_t bias = p.bias != nullptr ? static_cast<uint32_t>(p.bias[i + r]) : 0u;
    start[r] = static_cast<int32_t>(bias - 128u * static_cast<uint32_t>(sum));
  }
}

// R rows from i over V blocks of the panel (block v at panel + v·quads), columns [j, j + cols),
// cols ≤ 8·V: acc = start[r] + Σ_t dot(block quad t, A quad t), requantized and stored.
template <size_t R, size_t V>
[[gnu::noinline]] void Tile(const GemmS8Params& p, const int8_t* narrow, size_t ld_narrow,
                            const int32_t* start, const __m256i* panel, size_t quads, size_t i,
                            size_t j, size_t cols, int8_t* y) {
  __m256i acc[R][V];
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (size_t v = 0; v < V; ++v) acc[r][v] = _mm256_set1_epi32(start[r]);
  for (size_t t = 0; t < quads; ++t) {
    __m256i bq[V];
#pragma GCC unroll 2
    for (size_t v = 0; v < V; ++v) bq[v] = _mm256_load_si256(panel + v * quads + t);
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
      int32_t word;
      std::memcpy(&word, narrow + r * ld_narrow + 4 * t, 4);
      const __m256i aw = _mm256_set1_epi32(word);
#pragma GCC unroll 2
      for (size_t v = 0; v < V; ++v) Dot(acc[r][v], bq[v], aw);
    }
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    const avx2_requant::Rounding k = avx2_requant::MakeRounding(
        p.multiplier[i + r], p.shift[i + r], p.y_zero_point, p.act_min, p.act_max);
    int8_t* out = y + (i + r) * p.ldy + j;
    if constexpr (V == 2) {
      const __m128i bytes = avx2_requant::NarrowS8x16(avx2_requant::RequantizeS32x8(acc[r][0], k),
                                                      avx2_requant::RequantizeS32x8(acc[r][1], k));
      if (cols == 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
      } else {
        alignas(16) int8_t q[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(q), bytes);
        std::memcpy(out, q, cols);
      }
    } else {
      const __m128i bytes = avx2_requant::NarrowS8x8(avx2_requant::RequantizeS32x8(acc[r][0], k));
      if (cols == 8) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
      } else {
        alignas(16) int8_t q[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(q), bytes);
        std::memcpy(out, q, cols);
      }
    }
  }
}

// All `rows` rows from i over V blocks: tiles of 6 (V = 2) or 12 (V = 1) rows, then 4, 2, 1.
template <size_t V>
void TileRows(const GemmS8Params& p, const int8_t* narrow, size_t ld_narrow, const int32_t* start,
              const __m256i* panel, size_t quads, size_t i, size_t rows, size_t j, size_t cols,
              int8_t* y) {
  constexpr size_t kTileRows = V == 2 ? 6 : 12;
  size_t r = 0;
  for (; r + kTileRows <= rows; r += kTileRows)
    Tile<kTileRows, V>(p, narrow + r * ld_narrow, ld_narrow, start + r, panel, quads, i + r, j,
                       cols, y);
  for (; r + 4 <= rows; r += 4)
    Tile<4, V>(p, narrow + r * ld_narrow, ld_narrow, start + r, panel, quads, i + r, j, cols, y);
  if (r + 2 <= rows) {
    Tile<2, V>(p, narrow + r * ld_narrow, ld_narrow, start + r, panel, quads, i + r, j, cols, y);
    r += 2;
  }
  if (r < rows)
    Tile<1, V>(p, narrow + r * ld_narrow, ld_narrow, start + r, panel, quads, i + r, j, cols, y);
}

// Y = requantize(bias + A·B) with B's rows from `b_rows`; false when k is too large for the
// buffers (the caller takes the level's kernel).
template <class Rows>
bool GemmUsing(const GemmS8Params& p, const int8_t* a, Rows& b_rows, int8_t* y) {
  const size_t quads = (p.k + 3) / 4, ld_narrow = 4 * quads;
  const size_t chunk = std::min(kMaxChunkRows, kNarrowBytes / ld_narrow);
  if (quads * sizeof(__m256i) > kPanelBytes || chunk == 0) return false;
  alignas(32) __m256i panel[kPanelBytes / sizeof(__m256i)];
  alignas(64) int8_t narrow[kNarrowBytes];
  int32_t start[kMaxChunkRows];
  // Columns in groups of blocks, each block packed once; A narrowed once when it fits, else a
  // chunk of rows at a time per group.
  const size_t group = kPanelBytes / (quads * sizeof(__m256i));  // ≥ 1 blocks
  const bool a_fits = chunk >= p.m;
  for (size_t jg = 0; jg < p.n; jg += group * kW) {
    const size_t blocks = std::min(group, (p.n - jg + kW - 1) / kW);
    PackBlocks(p, quads, b_rows, jg, blocks, panel);
    for (size_t i0 = 0; i0 < p.m; i0 += chunk) {
      const size_t rows = std::min(chunk, p.m - i0);
      if (!a_fits || jg == 0) NarrowRows(p, a, i0, rows, narrow, ld_narrow, start);
      size_t b = 0;
      for (; b + 2 <= blocks; b += 2) {
        const size_t j = jg + b * kW;
        TileRows<2>(p, narrow, ld_narrow, start, panel + b * quads, quads, i0, rows, j,
                    std::min(2 * kW, p.n - j), y);
      }
      if (b < blocks) {
        const size_t j = jg + b * kW;
        TileRows<1>(p, narrow, ld_narrow, start, panel + b * quads, quads, i0, rows, j,
                    std::min(kW, p.n - j), y);
      }
    }
  }
  return true;
}

// One row of A against B's single contiguous column (n == 1, ldb == 1: GemmInt8): b + 128
// once into a zero-padded stack copy, R rows a step over 32 k at a time; each row's
// 128·Σ_k A[i,k] is summed beside it (vpdpbusd of ones) and taken out before RequantizeS8.
template <size_t R>
void MatVecRows(const GemmS8Params& p, const int8_t* a, const int8_t* bu, size_t i, int8_t* y) {
  const __m256i ones = _mm256_set1_epi8(1);
  __m256i dot[R], sum[R];
  for (size_t r = 0; r < R; ++r) dot[r] = sum[r] = _mm256_setzero_si256();
  size_t q = 0;
  for (; q + 32 <= p.k; q += 32) {
    const __m256i u = _mm256_load_si256(reinterpret_cast<const __m256i*>(bu + q));
    for (size_t r = 0; r < R; ++r) {
      const __m256i w =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + (i + r) * p.lda + q));
      Dot(dot[r], u, w);
      Dot(sum[r], ones, w);
    }
  }
  if (q < p.k) {  // the row's last bytes through a zeroed copy (never read past the row)
    const __m256i u = _mm256_load_si256(reinterpret_cast<const __m256i*>(bu + q));
    for (size_t r = 0; r < R; ++r) {
      alignas(32) int8_t tail[32] = {};
      std::memcpy(tail, a + (i + r) * p.lda + q, p.k - q);
      const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
      Dot(dot[r], u, w);
      Dot(sum[r], ones, w);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    alignas(32) int32_t d[8], s[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(d), dot[r]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(s), sum[r]);
    // Mod 2^32 (the true sum fits int32; the parts need not).
    uint32_t acc = p.bias != nullptr ? static_cast<uint32_t>(p.bias[i + r]) : 0u;
    for (size_t l = 0; l < 8; ++l)
      acc += static_cast<uint32_t>(d[l]) - 128u * static_cast<uint32_t>(s[l]);
    y[(i + r) * p.ldy] = RequantizeS8(static_cast<int32_t>(acc), p.multiplier[i + r],
                                      p.shift[i + r], p.y_zero_point, p.act_min, p.act_max);
  }
}

inline void MatVec(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  alignas(32) int8_t bu[kMatVecK + 32];
  const __m256i flip = _mm256_set1_epi8(-128);
  size_t q = 0;
  for (; q + 32 <= p.k; q += 32)
    _mm256_store_si256(
        reinterpret_cast<__m256i*>(bu + q),
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + q)), flip));
  std::memset(bu + q, 0, 32);  // bytes past k are 0 (their weights are zeroed too)
  for (; q < p.k; ++q) bu[q] = static_cast<int8_t>(b[q] ^ 0x80);
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) MatVecRows<4>(p, a, bu, i, y);
  for (; i < p.m; ++i) MatVecRows<1>(p, a, bu, i, y);
}

// The depthwise plane as unsigned bytes (x + 128), in place: what vpdpbusd reads.
inline void FlipSigns(int8_t* plane, size_t bytes) {
  const __m256i flip = _mm256_set1_epi8(-128);
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    __m256i* at = reinterpret_cast<__m256i*>(plane + i);
    _mm256_storeu_si256(at, _mm256_xor_si256(_mm256_loadu_si256(at), flip));
  }
  for (; i < bytes; ++i) plane[i] = static_cast<int8_t>(plane[i] ^ 0x80);
}

}  // namespace vnni256

// Int8KernelTable::gemm_s8 of the entry: the matrix-vector product for one contiguous column,
// else the tiles above; the level's GEMM where k passes the buffers.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p.n == 1 && p.ldb == 1 && p.k <= vnni256::kMatVecK) return vnni256::MatVec(p, a, b, y);
  vnni256::WideMatrixRows rows(p, b);
  if (!vnni256::GemmUsing(p, a, rows, y)) avx2_fma::kInt8Table.gemm_s8(p, a, b, y);
}

// Int8KernelTable::conv_s8_direct: the same tiles with B's columns read from the input
// (x86_rows::ConvRows; ConvS8DirectFits bounds k within the buffers).
void ConvS8Direct(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                  int8_t pad_value, const int8_t* w, size_t j0, int8_t* y) {
  bool done;
  if (s.stride_w == 1) {
    x86_rows::ConvRows<vnni256::kW, vnni256::kW> rows(s, x_group, pad_value, j0, p.k);
    done = vnni256::GemmUsing(p, w, rows, y);
  } else {
    x86_rows::ConvRows<vnni256::kW, 16> rows(s, x_group, pad_value, j0, p.k);
    done = vnni256::GemmUsing(p, w, rows, y);
  }
  if (!done) avx2_fma::kInt8Table.conv_s8_direct(p, s, x_group, pad_value, w, j0, y);
}

namespace vnni256 {

// The channel's outputs, 32 a step, over `groups` groups of four taps (kGroups: the count known
// at compile time, 3 for 3×3 and 7 for 5×5 windows, unrolled; 0: `groups`).
template <size_t kGroups>
void DepthwiseSteps(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t groups,
                    const size_t* off, const int32_t* weights, __m256i start,
                    const avx2_requant::Rounding& k, const int8_t* plane, int8_t* yc) {
  const size_t n_groups = kGroups != 0 ? kGroups : groups;
  StoreFlatRowsS8<32>(s, g, yc, [&](size_t i, int8_t* out) {
    __m256i acc0 = start, acc1 = start, acc2 = start, acc3 = start;
    const int8_t* base = plane + i;
#pragma GCC unroll 8
    for (size_t q = 0; q < n_groups; ++q) {
      const auto load = [&](size_t t) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + off[4 * q + t]));
      };
      const __m256i r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3);
      const __m256i ab_lo = _mm256_unpacklo_epi8(r0, r1), ab_hi = _mm256_unpackhi_epi8(r0, r1);
      const __m256i cd_lo = _mm256_unpacklo_epi8(r2, r3), cd_hi = _mm256_unpackhi_epi8(r2, r3);
      const __m256i w = _mm256_set1_epi32(weights[q]);
      Dot(acc0, _mm256_unpacklo_epi16(ab_lo, cd_lo), w);
      Dot(acc1, _mm256_unpackhi_epi16(ab_lo, cd_lo), w);
      Dot(acc2, _mm256_unpacklo_epi16(ab_hi, cd_hi), w);
      Dot(acc3, _mm256_unpackhi_epi16(ab_hi, cd_hi), w);
    }
    // In 128-bit lane m, register j holds outputs 16m + 4j … 16m + 4j + 3 (the unpack order):
    // packing 0 with 1 and 2 with 3, then the two, puts the 32 bytes in order.
    const __m256i w01 = _mm256_packs_epi32(avx2_requant::RequantizeS32x8(acc0, k),
                                           avx2_requant::RequantizeS32x8(acc1, k));
    const __m256i w23 = _mm256_packs_epi32(avx2_requant::RequantizeS32x8(acc2, k),
                                           avx2_requant::RequantizeS32x8(acc3, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_packs_epi16(w01, w23));
  });
}

}  // namespace vnni256

// 32 outputs a step: taps in groups of four, each group's four shifted loads interleaved
// byte-wise (outputs × 4 taps, the layout vpdpbusd reads) and multiplied by the group's four
// weights in one instruction per 8 outputs. The sign flip's 128·Σw comes out of the start
// value, as in GemmS8. Outputs past a row (pitch − out_w) are computed and dropped
// (conv/flat_rows_s8.h).
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                        const size_t* offset, const int8_t* wc, int32_t bias, int32_t multiplier,
                        int32_t shift, const GemmS8Params& rq, int8_t* plane, int8_t* yc) {
  vnni256::FlipSigns(plane, g.phases * g.phase_bytes);
  const size_t groups = (taps + 3) / 4;
  int32_t weights[kMaxDepthwiseS8TapGroups];
  size_t off[4 * kMaxDepthwiseS8TapGroups];
  const int32_t sum = PackDepthwiseTapGroups(taps, offset, wc, weights, off);
  const __m256i start = _mm256_set1_epi32(bias - 128 * sum);
  const avx2_requant::Rounding k =
      avx2_requant::MakeRounding(multiplier, shift, rq.y_zero_point, rq.act_min, rq.act_max);
  if (groups == 3)
    vnni256::DepthwiseSteps<3>(s, g, groups, off, weights, start, k, plane, yc);
  else if (groups == 7)
    vnni256::DepthwiseSteps<7>(s, g, groups, off, weights, start, k, plane, yc);
  else
    vnni256::DepthwiseSteps<0>(s, g, groups, off, weights, start, k, plane, yc);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
