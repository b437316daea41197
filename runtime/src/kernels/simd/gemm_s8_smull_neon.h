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
#include "kernels/simd/requant_s64_neon.h"

namespace neon_smull {

#if defined(__aarch64__)
constexpr size_t kGroups = 4;
#else
constexpr size_t kGroups = 2;
#endif
constexpr size_t kCols = 4 * kGroups;  // columns per panel
constexpr size_t kQuadBytes = 16 * kGroups;
constexpr size_t kPanelBytes =
    64 * 1024;  // k up to 16,384 / kGroups; larger k takes the other kernel

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

// RequantizeS8 of one row's kCols sums (lane l of acc[c]: column 4c + l) into y, cols of them.
inline void StoreRow(const int32x4_t (&acc)[kGroups], const neon_rq::RowRequant& rq, size_t cols,
                     int8_t* y) {
#if defined(__aarch64__)
  const int8x16_t q = neon_rq::RequantizeS8x16(acc, rq);
  if (cols == kCols) return vst1q_s8(y, q);
#else
  const int8x8_t q = neon_rq::RequantizeS8x8(acc[0], acc[1], rq);
  if (__builtin_expect(cols == kCols, 1)) return vst1_s8(y, q);
#endif
  neon_rq::StoreS8Partial(q, y, cols);
}

#if defined(__aarch64__)
using Pair = int8x16_t;
// The pair (a, a + 1) as an int16 in every lane: one ld1r, which AArch64 allows at any
// address (the pair need not be 2-byte aligned: lda may be odd), reading nothing past the pair.
inline Pair BroadcastPair(const int8_t* a) {
  int8x16_t v;
  __asm__("ld1r {%0.8h}, [%1]" : "=w"(v) : "r"(a), "m"(*reinterpret_cast<const int8_t(*)[2]>(a)));
  return v;
}
// Sixteen products of the pairs (a01 in the low half, a23 in the high) with one panel register,
// summed in int16 pairs.
inline int16x8_t PairProducts(Pair a01, Pair a23, int8x16_t b) {
  return vmlal_high_s8(vmull_s8(vget_low_s8(a01), vget_low_s8(b)), a23, b);
}
#else
using Pair = int8x8_t;
inline Pair BroadcastPair(const int8_t* a) {
  int16_t pair;
  std::memcpy(&pair, a, 2);
  return vreinterpret_s8_s16(vdup_n_s16(pair));
}
inline int16x8_t PairProducts(Pair a01, Pair a23, int8x16_t b) {
  return vmlal_s8(vmull_s8(a01, vget_low_s8(b)), a23, vget_high_s8(b));
}
#endif

// One quad of the rows at a[r] against one quad of the panel (the rows past a 4-row tile and
// the last k mod 4).
template <size_t R>
inline void QuadFromMemory(int32x4_t (&acc)[R][kGroups], const int8_t* const (&a)[R],
                           const int8_t* quad) {
  int8x16_t bv[kGroups];
  for (size_t c = 0; c < kGroups; ++c) bv[c] = vld1q_s8(quad + 16 * c);
  for (size_t r = 0; r < R; ++r) {
    const Pair a01 = BroadcastPair(a[r]), a23 = BroadcastPair(a[r] + 2);
    for (size_t c = 0; c < kGroups; ++c)
      acc[r][c] = vpadalq_s16(acc[r][c], PairProducts(a01, a23, bv[c]));
  }
}

#if defined(__aarch64__)
// QuadFromMemory<4> over `quads` quads (≥ 1), advancing the row pointers and the panel, written
// out: GCC keeps an accumulator array passed by reference in memory and spills it every quad.
// Per quad one 64-byte panel load, 8 ld1r, 16 × (smull, smlal2, sadalp): 256 multiply-adds.
inline void Quads4x16(int32x4_t (&acc)[4][kGroups], const int8_t* (&rows)[4], const int8_t* quad,
                      size_t quads) {
  const int8_t *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3];
  int32x4_t* c = &acc[0][0];  // row-major: row r's four accumulators at v(16 + 4r)..v(19 + 4r)
#define EDGEFOLD_SMULL_ROW(pl, ph, x0, x1, x2, x3)         \
  "smull v8.8h, " pl ".8b, v0.8b\n smull v9.8h, " pl       \
  ".8b, v1.8b\n"                                           \
  "smull v10.8h, " pl ".8b, v2.8b\n smull v11.8h, " pl     \
  ".8b, v3.8b\n"                                           \
  "smlal2 v8.8h, " ph ".16b, v0.16b\n smlal2 v9.8h, " ph   \
  ".16b, v1.16b\n"                                         \
  "smlal2 v10.8h, " ph ".16b, v2.16b\n smlal2 v11.8h, " ph \
  ".16b, v3.16b\n"                                         \
  "sadalp " x0 ".4s, v8.8h\n sadalp " x1                   \
  ".4s, v9.8h\n"                                           \
  "sadalp " x2 ".4s, v10.8h\n sadalp " x3 ".4s, v11.8h\n"
  __asm__ volatile(
      "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[c]]\n"
      "add x16, %[c], #64\n"
      "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [x16], #64\n"
      "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [x16], #64\n"
      "ld1 {v28.4s, v29.4s, v30.4s, v31.4s}, [x16]\n"
      "1:\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]], #64\n"
      "ld1r {v4.8h}, [%[a0]], #2\n ld1r {v5.8h}, [%[a0]], #2\n"
      "ld1r {v6.8h}, [%[a1]], #2\n ld1r {v7.8h}, [%[a1]], #2\n"
      EDGEFOLD_SMULL_ROW("v4", "v5", "v16", "v17", "v18", "v19")
      "ld1r {v4.8h}, [%[a2]], #2\n ld1r {v5.8h}, [%[a2]], #2\n"
      EDGEFOLD_SMULL_ROW("v6", "v7", "v20", "v21", "v22", "v23")
      "ld1r {v6.8h}, [%[a3]], #2\n ld1r {v7.8h}, [%[a3]], #2\n"
      EDGEFOLD_SMULL_ROW("v4", "v5", "v24", "v25", "v26", "v27")
      EDGEFOLD_SMULL_ROW("v6", "v7", "v28", "v29", "v30", "v31")
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[c]]\n"
      "add x16, %[c], #64\n"
      "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [x16], #64\n"
      "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [x16], #64\n"
      "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [x16]\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b] "+r"(quad),
        [n] "+r"(quads)
      : [c] "r"(c)
      : "cc", "memory", "x16", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
        "v11", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27",
        "v28", "v29", "v30", "v31");
#undef EDGEFOLD_SMULL_ROW
  rows[0] = a0, rows[1] = a1, rows[2] = a2, rows[3] = a3;
}

// Quads4x16 over the first column group only (a last block of at most 4 columns: VWW's 6 × 6
// layers, 36 columns): per quad one 16-byte panel load, 8 ld1r, 4 × (smull, smlal2, sadalp).
inline void Quads4x4(int32x4_t (&acc)[4][kGroups], const int8_t* (&rows)[4], const int8_t* quad,
                     size_t quads) {
  const int8_t *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3];
  __asm__ volatile(
      "1:\n"
      "ldr q0, [%[b]], #64\n"
      "ld1r {v4.8h}, [%[a0]], #2\n ld1r {v5.8h}, [%[a0]], #2\n"
      "ld1r {v6.8h}, [%[a1]], #2\n ld1r {v7.8h}, [%[a1]], #2\n"
      "smull v8.8h, v4.8b, v0.8b\n smull v9.8h, v6.8b, v0.8b\n"
      "smlal2 v8.8h, v5.16b, v0.16b\n smlal2 v9.8h, v7.16b, v0.16b\n"
      "sadalp %[c0].4s, v8.8h\n sadalp %[c1].4s, v9.8h\n"
      "ld1r {v4.8h}, [%[a2]], #2\n ld1r {v5.8h}, [%[a2]], #2\n"
      "ld1r {v6.8h}, [%[a3]], #2\n ld1r {v7.8h}, [%[a3]], #2\n"
      "smull v10.8h, v4.8b, v0.8b\n smull v11.8h, v6.8b, v0.8b\n"
      "smlal2 v10.8h, v5.16b, v0.16b\n smlal2 v11.8h, v7.16b, v0.16b\n"
      "sadalp %[c2].4s, v10.8h\n sadalp %[c3].4s, v11.8h\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b] "+r"(quad), [n] "+r"(quads),
        [c0] "+w"(acc[0][0]), [c1] "+w"(acc[1][0]), [c2] "+w"(acc[2][0]), [c3] "+w"(acc[3][0])
      :
      : "cc", "memory", "v0", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11");
  rows[0] = a0, rows[1] = a1, rows[2] = a2, rows[3] = a3;
}

#else
// The same loop on ARMv7's sixteen registers: a 4 × 8 tile, accumulators in q8-q15. Per quad
// one 32-byte panel load, 8 vld1.16 broadcasts (no alignment qualifier: any address, as ARMv7
// Linux runs with alignment checks off), 8 × (vmull, vmlal, vpadal): 128 multiply-adds.
inline void Quads4x8(int32x4_t (&acc)[4][kGroups], const int8_t* (&rows)[4], const int8_t* quad,
                     size_t quads) {
  const int8_t *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3];
  int32x4_t* c = &acc[0][0];
#define EDGEFOLD_SMULL_ROW(pl, ph, x0, x1)     \
  "vmull.s8 q4, " pl ", d0\n vmull.s8 q5, " pl \
  ", d2\n"                                     \
  "vmlal.s8 q4, " ph ", d1\n vmlal.s8 q5, " ph \
  ", d3\n"                                     \
  "vpadal.s16 " x0 ", q4\n vpadal.s16 " x1 ", q5\n"
  __asm__ volatile(
      "mov r12, %[c]\n"
      "vld1.32 {d16-d19}, [r12]!\n vld1.32 {d20-d23}, [r12]!\n"
      "vld1.32 {d24-d27}, [r12]!\n vld1.32 {d28-d31}, [r12]\n"
      "1:\n"
      "vld1.8 {d0-d3}, [%[b]]!\n"
      "vld1.16 {d4[]}, [%[a0]]!\n vld1.16 {d5[]}, [%[a0]]!\n"
      "vld1.16 {d6[]}, [%[a1]]!\n vld1.16 {d7[]}, [%[a1]]!\n"
      EDGEFOLD_SMULL_ROW("d4", "d5", "q8", "q9")
      "vld1.16 {d4[]}, [%[a2]]!\n vld1.16 {d5[]}, [%[a2]]!\n"
      EDGEFOLD_SMULL_ROW("d6", "d7", "q10", "q11")
      "vld1.16 {d6[]}, [%[a3]]!\n vld1.16 {d7[]}, [%[a3]]!\n"
      EDGEFOLD_SMULL_ROW("d4", "d5", "q12", "q13")
      EDGEFOLD_SMULL_ROW("d6", "d7", "q14", "q15")
      "subs %[n], %[n], #1\n"
      "bne 1b\n"
      "mov r12, %[c]\n"
      "vst1.32 {d16-d19}, [r12]!\n vst1.32 {d20-d23}, [r12]!\n"
      "vst1.32 {d24-d27}, [r12]!\n vst1.32 {d28-d31}, [r12]\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b] "+r"(quad),
        [n] "+r"(quads)
      : [c] "r"(c)
      : "cc", "memory", "r12", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
        "d11", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27",
        "d28", "d29", "d30", "d31");
#undef EDGEFOLD_SMULL_ROW
  rows[0] = a0, rows[1] = a1, rows[2] = a2, rows[3] = a3;
}
#endif

// kForm: the form every row requantizes in (neon_rq::GemmForm).
template <size_t R, int kForm>
void Tile(const GemmS8Params& p, const int8_t* a, const int8_t* panel, size_t i, size_t j,
          size_t cols, int8_t* y) {
  int32x4_t acc[R][kGroups];
  for (size_t r = 0; r < R; ++r)
    for (size_t c = 0; c < kGroups; ++c)
      acc[r][c] = vdupq_n_s32(p.bias != nullptr ? p.bias[i + r] : 0);
  const size_t full = p.k / 4;
  const int8_t* rows[R];
  for (size_t r = 0; r < R; ++r) rows[r] = a + (i + r) * p.lda;
  if constexpr (R == 4) {
#if defined(__aarch64__)
    if (full > 0 && cols <= 4)
      Quads4x4(acc, rows, panel, full);  // groups 1..3 keep the bias and are never stored
    else if (full > 0)
      Quads4x16(acc, rows, panel, full);
#else
    if (full > 0) Quads4x8(acc, rows, panel, full);
#endif
  } else {
    for (size_t q = 0; q < full; ++q) {
      QuadFromMemory<R>(acc, rows, panel + q * kQuadBytes);
      for (size_t r = 0; r < R; ++r) rows[r] += 4;
    }
  }
  if (p.k % 4 != 0) {  // never read past a row; the panel is zero past k
    alignas(4) int8_t tail[R][4] = {};
    const int8_t* tails[R];
    for (size_t r = 0; r < R; ++r) {
      if (full > 0) {  // the row's last four bytes, moved down to its last k % 4
        uint32_t word;
        std::memcpy(&word, rows[r] + p.k % 4 - 4, 4);
        word >>= 8 * (4 - p.k % 4);
        std::memcpy(tail[r], &word, 4);
      } else {
        for (size_t t = 0; t < p.k % 4; ++t) tail[r][t] = rows[r][t];
      }
      tails[r] = tail[r];
    }
    QuadFromMemory<R>(acc, tails, panel + full * kQuadBytes);
  }
  // y may alias p: its fields are read once, before the first store.
  const int32_t zp = p.y_zero_point, act_min = p.act_min, act_max = p.act_max;
  const int32_t *multiplier = p.multiplier, *shift = p.shift;
  const size_t ldy = p.ldy;
#if defined(__aarch64__)
  if constexpr (R == 4 && kForm != neon_rq::kWide) {  // the four rows' constants as one vector each
    const int32x4_t m4 = vld1q_s32(multiplier + i), neg_shift4 = vnegq_s32(vld1q_s32(shift + i));
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r)
      StoreRow(acc[r],
               neon_rq::MakeRowRequantLanes(neon_rq::LaneOf(m4, r), neon_rq::LaneOf(neg_shift4, r),
                                            zp, act_min, act_max, neon_rq::Form{kForm}),
               cols, y + (i + r) * ldy + j);
    return;
  }
#endif
  for (size_t r = 0; r < R; ++r)
    StoreRow(acc[r],
             neon_rq::MakeRowRequant(multiplier[i + r], shift[i + r], zp, act_min, act_max,
                                     neon_rq::Form{kForm}),
             cols, y + (i + r) * ldy + j);
}

// False (nothing written) where this kernel does not apply: fewer than 4 columns, k past the
// panel, or a −128 in A.
inline bool GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p.n < 4 || (p.k + 3) / 4 * kQuadBytes > kPanelBytes || HasLowestByte(a, p.m, p.k, p.lda))
    return false;
  alignas(16) int8_t panel[kPanelBytes];
  const neon_rq::Form form = neon_rq::GemmForm(p);
  for (size_t j = 0; j < p.n; j += kCols) {
    const size_t cols = std::min(kCols, p.n - j);
    PackPanel(p, b, j, cols, panel);
    size_t i = 0;
    if (form == neon_rq::kSigned) {
      for (; i + 4 <= p.m; i += 4) Tile<4, neon_rq::kSigned>(p, a, panel, i, j, cols, y);
      for (; i < p.m; ++i) Tile<1, neon_rq::kSigned>(p, a, panel, i, j, cols, y);
    } else if (form == neon_rq::kDoubling) {
      for (; i + 4 <= p.m; i += 4) Tile<4, neon_rq::kDoubling>(p, a, panel, i, j, cols, y);
      for (; i < p.m; ++i) Tile<1, neon_rq::kDoubling>(p, a, panel, i, j, cols, y);
    } else {
      for (; i + 4 <= p.m; i += 4) Tile<4, neon_rq::kWide>(p, a, panel, i, j, cols, y);
      for (; i < p.m; ++i) Tile<1, neon_rq::kWide>(p, a, panel, i, j, cols, y);
    }
  }
  return true;
}

}  // namespace neon_smull
