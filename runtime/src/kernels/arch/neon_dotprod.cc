// The int8 GEMM on AArch64 with the dot-product extension (sdot: 4 lanes, each += four s8·s8
// products): the neon_dotprod entry of kernels/isa_list.h, run on CPUs that report it
// (HWCAP_ASIMDDP). Compiled with +dotprod on its own so the neon tables stay baseline ARMv8.0.
// Signed by signed bytes: no correction term; sums are exact, so the bits are the reference's.
//
// B is repacked per block of 16 columns into a panel of k/4 groups of four registers, each
// holding four consecutive k of four columns (the layout sdot reads); A's rows are loaded 16
// bytes at a time and each 4-byte group is broadcast by the lane form of sdot. Tiles of 4 rows
// by 16 columns: 16 accumulators, 4 panel and 4 row registers.
#define EDGEFOLD_ARCH_NS neon_dotprod
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/flat_rows_s8.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/simd/conv2d_depthwise_s8_hwc_sdot_neon64.h"
#include "kernels/simd/requant_neon.h"

namespace edgefold::kernels::neon_dotprod {
#include "kernels/simd/requant_s64_neon.h"
namespace {

constexpr size_t kCols = 16;
constexpr size_t kPanelBytes = 128 * 1024;  // k up to 8192; larger k falls back

// Bytes [0, cols) of B's row at p, zero past. A partial block of a B at least kCols wide loads
// the 16 bytes ending at p + cols (inside the row) and moves them down by tbl (`down`: lane i
// takes byte 16 − cols + i, past 15 giving 0); else through a zero-padded copy.
struct RowLoader {
  size_t cols;
  bool down;
  uint8x16_t index;
};
inline RowLoader MakeRowLoader(size_t cols, size_t n) {
  static constexpr uint8_t kIota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return RowLoader{cols, cols < kCols && n >= kCols,
                   vaddq_u8(vld1q_u8(kIota), vdupq_n_u8(static_cast<uint8_t>(kCols - cols)))};
}
inline int8x16_t LoadRow(const int8_t* p, const RowLoader& l) {
  if (l.cols == kCols) return vld1q_s8(p);
  if (l.down) return vqtbl1q_s8(vld1q_s8(p + l.cols - kCols), l.index);
  alignas(16) int8_t padded[kCols] = {};
  std::memcpy(padded, p, l.cols);
  return vld1q_s8(padded);
}

// panel[4q + v]: columns 4v..4v+3 of rows 4q..4q+3, four bytes per column.
inline void Interleave(int8x16_t r0, int8x16_t r1, int8x16_t r2, int8x16_t r3, int8x16_t* out) {
  const int8x16_t lo01 = vzip1q_s8(r0, r1), hi01 = vzip2q_s8(r0, r1);
  const int8x16_t lo23 = vzip1q_s8(r2, r3), hi23 = vzip2q_s8(r2, r3);
  out[0] = vreinterpretq_s8_s16(vzip1q_s16(vreinterpretq_s16_s8(lo01), vreinterpretq_s16_s8(lo23)));
  out[1] = vreinterpretq_s8_s16(vzip2q_s16(vreinterpretq_s16_s8(lo01), vreinterpretq_s16_s8(lo23)));
  out[2] = vreinterpretq_s8_s16(vzip1q_s16(vreinterpretq_s16_s8(hi01), vreinterpretq_s16_s8(hi23)));
  out[3] = vreinterpretq_s8_s16(vzip2q_s16(vreinterpretq_s16_s8(hi01), vreinterpretq_s16_s8(hi23)));
}

void PackPanel(const GemmS8Params& p, const int8_t* b, size_t j, size_t cols, int8x16_t* panel) {
  const RowLoader l = MakeRowLoader(cols, p.n);
  const size_t full = p.k / 4;
  for (size_t q = 0; q < full; ++q) {
    const int8_t* row = b + 4 * q * p.ldb + j;
    Interleave(LoadRow(row, l), LoadRow(row + p.ldb, l), LoadRow(row + 2 * p.ldb, l),
               LoadRow(row + 3 * p.ldb, l), panel + 4 * q);
  }
  if (p.k % 4 != 0) {
    int8x16_t r[4] = {vdupq_n_s8(0), vdupq_n_s8(0), vdupq_n_s8(0), vdupq_n_s8(0)};
    for (size_t t = 0; t < p.k % 4; ++t) r[t] = LoadRow(b + (4 * full + t) * p.ldb + j, l);
    Interleave(r[0], r[1], r[2], r[3], panel + 4 * full);
  }
}

// One 4-byte group of each row (a word per row, zero-padded past k) against one panel group.
template <size_t R, size_t V>
inline void DotGroup(int32x4_t (&acc)[R][4], const int8x16_t* group, const int32_t* words) {
  for (size_t r = 0; r < R; ++r) {
    const int8x16_t a = vreinterpretq_s8_s32(vdupq_n_s32(words[r]));
    for (size_t v = 0; v < V; ++v) acc[r][v] = vdotq_s32(acc[r][v], group[v], a);
  }
}

// kForm: the form every row requantizes in (neon_rq::GemmForm). V: the
// column groups of four the block's columns reach (a last block of 4, 8 or 12 columns: VWW's
// 6 × 6 and 3 × 3 layers, 36 and 9 columns) — the groups past them are never accumulated.
template <size_t R, int kForm, size_t V>
[[gnu::always_inline]] inline void Tile(const GemmS8Params& p, const int8_t* a,
                                        const int8x16_t* panel, size_t i, size_t j, size_t cols,
                                        int8_t* y) {
  int32x4_t acc[R][4];
  for (size_t r = 0; r < R; ++r)
    for (size_t v = 0; v < 4; ++v) acc[r][v] = vdupq_n_s32(p.bias != nullptr ? p.bias[i + r] : 0);
  const int8_t* rows[R];
  for (size_t r = 0; r < R; ++r) rows[r] = a + (i + r) * p.lda;
  const size_t full = p.k / 4;
  size_t q = 0;
  // Unrolled four times: with one step an iteration GCC 12 moved six accumulators between registers
  // on every step.
#pragma GCC unroll 4
  for (; q + 4 <= full; q += 4) {  // 16 k: one load per row, its four groups by lane
    int8x16_t ar[R];
    for (size_t r = 0; r < R; ++r) ar[r] = vld1q_s8(rows[r] + 4 * q);
    const int8x16_t* g = panel + 4 * q;
    // Column group v's four panel registers at a time: 16 accumulators, R rows and 4 panel
    // registers live (GCC spilled accumulators when the whole step's panel was loaded first).
    for (size_t v = 0; v < V; ++v) {
      const int8x16_t g0 = g[v], g1 = g[4 + v], g2 = g[8 + v], g3 = g[12 + v];
      for (size_t r = 0; r < R; ++r) {
        acc[r][v] = vdotq_laneq_s32(acc[r][v], g0, ar[r], 0);
        acc[r][v] = vdotq_laneq_s32(acc[r][v], g1, ar[r], 1);
        acc[r][v] = vdotq_laneq_s32(acc[r][v], g2, ar[r], 2);
        acc[r][v] = vdotq_laneq_s32(acc[r][v], g3, ar[r], 3);
      }
    }
  }
  int32_t words[R];
  for (; q < full; ++q) {
    for (size_t r = 0; r < R; ++r) std::memcpy(&words[r], rows[r] + 4 * q, 4);
    DotGroup<R, V>(acc, panel + 4 * q, words);
  }
  if (p.k % 4 != 0) {  // never read past a row
    for (size_t r = 0; r < R; ++r) {
      uint32_t word = 0;
      if (full > 0) {  // the row's last four bytes, moved down to its last k % 4
        std::memcpy(&word, rows[r] + p.k - 4, 4);
        word >>= 8 * (4 - p.k % 4);
      } else {
        for (size_t t = 0; t < p.k % 4; ++t)
          word |= static_cast<uint32_t>(static_cast<uint8_t>(rows[r][4 * full + t])) << (8 * t);
      }
      words[r] = static_cast<int32_t>(word);
    }
    DotGroup<R, V>(acc, panel + 4 * full, words);
  }
  // y may alias p: its fields are read once, before the first store.
  const int32_t zp = p.y_zero_point, act_min = p.act_min, act_max = p.act_max;
  const int32_t *multiplier = p.multiplier, *shift = p.shift;
  const size_t ldy = p.ldy;
  // Four rows in the doubling form: their multipliers and shifts loaded as one vector each,
  // each row's taken by a lane.
  int32x4_t m4 = vdupq_n_s32(0), neg_shift4 = vdupq_n_s32(0);
  constexpr bool kLanes = R == 4 && kForm != neon_rq::kWide;
  if constexpr (kLanes) {
    m4 = vld1q_s32(multiplier + i);
    neg_shift4 = vnegq_s32(vld1q_s32(shift + i));
  }
  // Unrolled, so the accumulators stay in registers; one row's constants live at a time.
#pragma GCC unroll 4
  for (size_t r = 0; r < R; ++r) {
    neon_rq::RowRequant rr;
    if constexpr (kLanes)
      rr = neon_rq::MakeRowRequantLanes(neon_rq::LaneOf(m4, r), neon_rq::LaneOf(neg_shift4, r), zp,
                                        act_min, act_max, neon_rq::Form{kForm});
    else
      rr = neon_rq::MakeRowRequant(multiplier[i + r], shift[i + r], zp, act_min, act_max,
                                   neon_rq::Form{kForm});
    const int8x16_t q = neon_rq::RequantizeS8x16(acc[r], rr);
    if (cols == kCols)
      vst1q_s8(y + (i + r) * ldy + j, q);
    else
      neon_rq::StoreS8Partial(q, y + (i + r) * ldy + j, cols);
  }
}

// Every row of one column block (V column groups; only the last block has fewer than 4).
template <int kForm, size_t V>
void BlockRows(const GemmS8Params& p, const int8_t* a, const int8x16_t* panel, size_t j,
               size_t cols, int8_t* y) {
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) Tile<4, kForm, V>(p, a, panel, i, j, cols, y);
  for (; i < p.m; ++i) Tile<1, kForm, V>(p, a, panel, i, j, cols, y);
}

}  // namespace

// 16 outputs a step: taps in groups of four, each group's four shifted loads interleaved
// (Interleave: register v holds outputs 4v..4v+3, four taps each, the layout sdot reads) and
// multiplied by the group's four weights, one sdot per 4 outputs; signed by signed, so no
// correction. Outputs past a row (pitch − out_w) are computed and not stored (flat_rows_s8.h).
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                        const size_t* offset, const int8_t* wc, int32_t bias, int32_t multiplier,
                        int32_t shift, const GemmS8Params& rq, int8_t* plane, int8_t* yc) {
  constexpr size_t kGroups = (kMaxDepthwiseS8Taps + 3) / 4;
  const size_t groups = (taps + 3) / 4;
  int8x16_t weights[kGroups];
  size_t off[4 * kGroups];
  for (size_t q = 0; q < groups; ++q) {
    uint32_t packed = 0;  // the group's four weights, tap t in byte t, in every lane
    for (size_t t = 0; t < 4; ++t) {
      const size_t k = 4 * q + t;
      off[k] = k < taps ? offset[k] : offset[0];  // a missing tap: weight 0 over tap 0's bytes
      packed |= static_cast<uint32_t>(static_cast<uint8_t>(k < taps ? wc[k] : 0)) << (8 * t);
    }
    weights[q] = vreinterpretq_s8_u32(vdupq_n_u32(packed));
  }
  // The doubling form where shift ≥ 1 and the sums (at most taps·128·128) keep |acc| < 2^31.
  const int64_t bound = int64_t{INT32_MAX} - static_cast<int64_t>(taps) * 128 * 128;
  const neon_rq::Form form = !(shift >= 1 && bias >= -bound && bias <= bound) ? neon_rq::kWide
                             : neon_rq::SignedFormRow(multiplier, shift)      ? neon_rq::kSigned
                                                                              : neon_rq::kDoubling;
  const neon_rq::RowRequant r =
      neon_rq::MakeRowRequant(multiplier, shift, rq.y_zero_point, rq.act_min, rq.act_max, form);
  StoreFlatRowsS8<kCols>(s, g, yc, [&](size_t i, int8_t* q) {
    int32x4_t acc[4];
    for (int32x4_t& a : acc) a = vdupq_n_s32(bias);
    for (size_t k = 0; k < groups; ++k) {
      const int8_t* base = plane + i;
      int8x16_t x[4];
      Interleave(vld1q_s8(base + off[4 * k]), vld1q_s8(base + off[4 * k + 1]),
                 vld1q_s8(base + off[4 * k + 2]), vld1q_s8(base + off[4 * k + 3]), x);
      for (size_t v = 0; v < 4; ++v) acc[v] = vdotq_s32(acc[v], x[v], weights[k]);
    }
    vst1q_s8(q, neon_rq::RequantizeS8x16(acc, r));
  });
}

bool Conv2dDepthwiseS8HwcSdot(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                              int8_t x_zero_point, const GemmS8Params& rq, int8_t* scratch,
                              int8_t* y) {
  return hwc_sdot::Conv2dDepthwiseS8Hwc(s, x, w, x_zero_point, rq, scratch, y);
}

void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  const size_t groups = (p.k + 3) / 4;
  if (p.n < 4 || 4 * groups * sizeof(int8x16_t) > kPanelBytes)
    return neon::kInt8Table.gemm_s8(p, a, b, y);
  alignas(16) int8x16_t panel[kPanelBytes / sizeof(int8x16_t)];
  const int form = neon_rq::GemmForm(p);
  using neon_rq::kDoubling, neon_rq::kSigned, neon_rq::kWide;
  for (size_t j = 0; j < p.n; j += kCols) {
    const size_t cols = std::min(kCols, p.n - j);
    PackPanel(p, b, j, cols, panel);
    switch ((cols + 3) / 4 + 4 * form) {
      case 1:
        return BlockRows<kWide, 1>(p, a, panel, j, cols, y);
      case 2:
        return BlockRows<kWide, 2>(p, a, panel, j, cols, y);
      case 3:
        return BlockRows<kWide, 3>(p, a, panel, j, cols, y);
      case 4:
        BlockRows<kWide, 4>(p, a, panel, j, cols, y);
        break;
      case 5:
        return BlockRows<kDoubling, 1>(p, a, panel, j, cols, y);
      case 6:
        return BlockRows<kDoubling, 2>(p, a, panel, j, cols, y);
      case 7:
        return BlockRows<kDoubling, 3>(p, a, panel, j, cols, y);
      case 8:
        BlockRows<kDoubling, 4>(p, a, panel, j, cols, y);
        break;
      case 9:
        return BlockRows<kSigned, 1>(p, a, panel, j, cols, y);
      case 10:
        return BlockRows<kSigned, 2>(p, a, panel, j, cols, y);
      case 11:
        return BlockRows<kSigned, 3>(p, a, panel, j, cols, y);
      default:
        BlockRows<kSigned, 4>(p, a, panel, j, cols, y);
        break;
    }
  }
}

}  // namespace edgefold::kernels::neon_dotprod
