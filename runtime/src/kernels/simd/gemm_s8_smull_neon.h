// The int8 GEMM on NEON cores without the dot-product extension (AArch64 Cortex-A53/A72:
// Raspberry Pi 3 and 4; every ARMv7 NEON core): smull multiplies 8 int8 pairs into int16,
// smlal(2) adds the next 8 pairs' products to them, sadalp adds the int16 pairs into 4 int32
// lanes: 16 multiply-adds in 3 instructions, against 4 in one smlal on int16-widened values.
// Exact only while the sum of two products fits int16: with A (the weights) in [−127, 127],
// |a·b| ≤ 127·128 and two of them ≤ 32,512. The quantizer's symmetric weights are; an A holding
// −128 anywhere takes the other kernel, so the bits are always the reference's.
// Included by int8_gemm_simd.h inside the arch namespace (its copy per translation unit).
//
// B is packed per panel of kCols columns, k in quads: quad q, group c (columns 4c..4c+3) is one
// 16-byte register, its low half the pairs (k0, k1) of the four columns, its high half the
// pairs (k2, k3) — two zips of four B rows, no transpose. A's row is read in place 16 bytes (four
// quads) at a time; quad s's pairs (a0, a1) and (a2, a3) are broadcast by a lane dup. Then lane
// l of sadalp's int32 sum is column 4c + l itself: no reduction across lanes at the end, and the
// tile's sums are requantized straight from the accumulators. Tiles of 4 rows × kCols columns:
// AArch64 16 columns (16 accumulators of its 32 registers), ARMv7 8 (8 of its 16).
#pragma once

namespace neon_smull {

#if defined(__aarch64__)
constexpr size_t kGroups = 4;
#else
constexpr size_t kGroups = 2;
#endif
constexpr size_t kCols = 4 * kGroups;  // columns per panel
constexpr size_t kQuadBytes = 16 * kGroups;
constexpr size_t kPanelBytes = 64 * 1024;  // k up to 16,384 / kGroups; larger k takes the other kernel

inline bool HasLowestByte(const int8_t* a, size_t m, size_t k, size_t lda) {
  const int8x16_t lowest = vdupq_n_s8(-128);
  for (size_t i = 0; i < m; ++i) {
    const int8_t* row = a + i * lda;
    uint8x16_t hit = vdupq_n_u8(0);
    size_t q = 0;
    for (; q + 16 <= k; q += 16) hit = vorrq_u8(hit, vceqq_s8(vld1q_s8(row + q), lowest));
    const uint8x8_t half = vorr_u8(vget_low_u8(hit), vget_high_u8(hit));
    if (vget_lane_u64(vreinterpret_u64_u8(half), 0) != 0) return true;
    for (; q < k; ++q)
      if (row[q] == -128) return true;
  }
  return false;
}

// kCols bytes of B's row at p (cols of them, zero past).
#if defined(__aarch64__)
using PanelRow = int8x16_t;
inline PanelRow LoadPanelRow(const int8_t* p, size_t cols) {
  if (cols == kCols) return vld1q_s8(p);
  alignas(16) int8_t padded[kCols] = {};
  std::memcpy(padded, p, cols);
  return vld1q_s8(padded);
}
inline PanelRow ZeroPanelRow() { return vdupq_n_s8(0); }
#else
using PanelRow = int8x8_t;
inline PanelRow LoadPanelRow(const int8_t* p, size_t cols) {
  if (cols == kCols) return vld1_s8(p);
  alignas(8) int8_t padded[kCols] = {};
  std::memcpy(padded, p, cols);
  return vld1_s8(padded);
}
inline PanelRow ZeroPanelRow() { return vdup_n_s8(0); }
#endif

// Columns [j, j + cols) of B into panel, zero past k and past cols.
inline void PackPanel(const GemmS8Params& p, const int8_t* b, size_t j, size_t cols,
                      int8_t* panel) {
  const size_t quads = (p.k + 3) / 4;
  for (size_t q = 0; q < quads; ++q) {
    PanelRow r[4];
    for (size_t t = 0; t < 4; ++t) {
      const size_t k = 4 * q + t;
      r[t] = k < p.k ? LoadPanelRow(b + k * p.ldb + j, cols) : ZeroPanelRow();
    }
    int8_t* dst = panel + q * kQuadBytes;
#if defined(__aarch64__)
    // zip(r0, r1): the (k0, k1) pairs of columns 0..7, then 8..15; the same for (k2, k3).
    const int64x2_t lo01 = vreinterpretq_s64_s8(vzip1q_s8(r[0], r[1]));
    const int64x2_t hi01 = vreinterpretq_s64_s8(vzip2q_s8(r[0], r[1]));
    const int64x2_t lo23 = vreinterpretq_s64_s8(vzip1q_s8(r[2], r[3]));
    const int64x2_t hi23 = vreinterpretq_s64_s8(vzip2q_s8(r[2], r[3]));
    vst1q_s8(dst, vreinterpretq_s8_s64(vzip1q_s64(lo01, lo23)));
    vst1q_s8(dst + 16, vreinterpretq_s8_s64(vzip2q_s64(lo01, lo23)));
    vst1q_s8(dst + 32, vreinterpretq_s8_s64(vzip1q_s64(hi01, hi23)));
    vst1q_s8(dst + 48, vreinterpretq_s8_s64(vzip2q_s64(hi01, hi23)));
#else
    const int8x8x2_t z01 = vzip_s8(r[0], r[1]), z23 = vzip_s8(r[2], r[3]);
    vst1_s8(dst, z01.val[0]);
    vst1_s8(dst + 8, z23.val[0]);
    vst1_s8(dst + 16, z01.val[1]);
    vst1_s8(dst + 24, z23.val[1]);
#endif
  }
}

// Quad S (0..3) of the rows' 16 bytes av against one quad of the panel.
template <size_t R, int S>
inline void Quad(int32x4_t (&acc)[R][kGroups], const int8x16_t (&av)[R], const int8_t* quad) {
  int8x16_t bv[kGroups];
  for (size_t c = 0; c < kGroups; ++c) bv[c] = vld1q_s8(quad + 16 * c);
  for (size_t r = 0; r < R; ++r) {
#if defined(__aarch64__)
    const int16x8_t words = vreinterpretq_s16_s8(av[r]);
    const int8x16_t a01 = vreinterpretq_s8_s16(vdupq_laneq_s16(words, 2 * S));
    const int8x16_t a23 = vreinterpretq_s8_s16(vdupq_laneq_s16(words, 2 * S + 1));
    for (size_t c = 0; c < kGroups; ++c)
      acc[r][c] = vpadalq_s16(
          acc[r][c], vmlal_high_s8(vmull_s8(vget_low_s8(a01), vget_low_s8(bv[c])), a23, bv[c]));
#else
    const int16x4_t words = vreinterpret_s16_s8(S < 2 ? vget_low_s8(av[r]) : vget_high_s8(av[r]));
    const int8x8_t a01 = vreinterpret_s8_s16(vdup_lane_s16(words, (2 * S) % 4));
    const int8x8_t a23 = vreinterpret_s8_s16(vdup_lane_s16(words, (2 * S + 1) % 4));
    for (size_t c = 0; c < kGroups; ++c)
      acc[r][c] = vpadalq_s16(
          acc[r][c], vmlal_s8(vmull_s8(a01, vget_low_s8(bv[c])), a23, vget_high_s8(bv[c])));
#endif
  }
}

// The first `quads` (1..4) quads of av against the panel's quads from `panel`.
template <size_t R>
inline void Quads(int32x4_t (&acc)[R][kGroups], const int8x16_t (&av)[R], const int8_t* panel,
                  size_t quads) {
  Quad<R, 0>(acc, av, panel);
  if (quads > 1) Quad<R, 1>(acc, av, panel + kQuadBytes);
  if (quads > 2) Quad<R, 2>(acc, av, panel + 2 * kQuadBytes);
  if (quads > 3) Quad<R, 3>(acc, av, panel + 3 * kQuadBytes);
}

// RequantizeS8 of one row's kCols sums (lane l of acc[c]: column 4c + l) into y, cols of them.
inline void StoreRow(const int32x4_t (&acc)[kGroups], int32_t multiplier, int32_t shift,
                     const GemmS8Params& p, size_t cols, int8_t* y) {
#if defined(__aarch64__)
  const int8x16_t q = neon_requant::RequantizeS8x16(acc, multiplier, shift, p.y_zero_point,
                                                    p.act_min, p.act_max);
  if (cols == kCols) return vst1q_s8(y, q);
  alignas(16) int8_t bytes[kCols];
  vst1q_s8(bytes, q);
#else
  // RequantizeS8x16's rule on eight lanes: the rounded values saturated to int16, the zero point
  // and clamp there (a saturated value ± |zp| ≤ 128 still clamps to the same int8).
  const int32x4_t q0 = neon_requant::RoundShiftS32x4(acc[0], multiplier, shift);
  const int32x4_t q1 = neon_requant::RoundShiftS32x4(acc[1], multiplier, shift);
  int16x8_t h = vqaddq_s16(vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)),
                           vdupq_n_s16(static_cast<int16_t>(p.y_zero_point)));
  h = vminq_s16(vmaxq_s16(h, vdupq_n_s16(static_cast<int16_t>(p.act_min))),
                vdupq_n_s16(static_cast<int16_t>(p.act_max)));
  const int8x8_t q = vmovn_s16(h);
  if (cols == kCols) return vst1_s8(y, q);
  alignas(8) int8_t bytes[kCols];
  vst1_s8(bytes, q);
#endif
  std::memcpy(y, bytes, cols);
}

template <size_t R>
void Tile(const GemmS8Params& p, const int8_t* a, const int8_t* panel, size_t i, size_t j,
          size_t cols, int8_t* y) {
  int32x4_t acc[R][kGroups];
  for (size_t r = 0; r < R; ++r)
    for (size_t c = 0; c < kGroups; ++c) acc[r][c] = vdupq_n_s32(p.bias != nullptr ? p.bias[i + r] : 0);
  const int8_t* rows[R];
  for (size_t r = 0; r < R; ++r) rows[r] = a + (i + r) * p.lda;
  const size_t full = p.k / 16;
  int8x16_t av[R];
  for (size_t g = 0; g < full; ++g) {
    for (size_t r = 0; r < R; ++r) av[r] = vld1q_s8(rows[r] + 16 * g);
    Quads<R>(acc, av, panel + 4 * g * kQuadBytes, 4);
  }
  if (p.k % 16 != 0) {  // never read past a row; the panel is zero past k
    for (size_t r = 0; r < R; ++r) {
      alignas(16) int8_t tail[16] = {};
      std::memcpy(tail, rows[r] + 16 * full, p.k % 16);
      av[r] = vld1q_s8(tail);
    }
    Quads<R>(acc, av, panel + 4 * full * kQuadBytes, (p.k % 16 + 3) / 4);
  }
  for (size_t r = 0; r < R; ++r)
    StoreRow(acc[r], p.multiplier[i + r], p.shift[i + r], p, cols, y + (i + r) * p.ldy + j);
}

// False (nothing written) where this kernel does not apply: fewer than 4 columns, k past the
// panel, or a −128 in A.
inline bool GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p.n < 4 || (p.k + 3) / 4 * kQuadBytes > kPanelBytes || HasLowestByte(a, p.m, p.k, p.lda))
    return false;
  alignas(16) int8_t panel[kPanelBytes];
  for (size_t j = 0; j < p.n; j += kCols) {
    const size_t cols = std::min(kCols, p.n - j);
    PackPanel(p, b, j, cols, panel);
    size_t i = 0;
    for (; i + 4 <= p.m; i += 4) Tile<4>(p, a, panel, i, j, cols, y);
    for (; i < p.m; ++i) Tile<1>(p, a, panel, i, j, cols, y);
  }
  return true;
}

}  // namespace neon_smull
