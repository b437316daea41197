// The int8 GEMM on AArch64 cores without the dot-product extension (Cortex-A53/A72: Raspberry
// Pi 3 and 4): smull multiplies 8 int8 pairs into int16, smlal2 adds the next 8 pairs' products
// to them, sadalp adds the int16 pairs into 4 int32 lanes: 16 multiply-adds in 3 instructions,
// against 4 in one smlal on int16-widened values. Exact only while the sum of two products fits
// int16: with A (the weights) in [−127, 127], |a·b| ≤ 127·128 and two of them ≤ 32,512. The
// quantizer's symmetric weights are; an A holding −128 anywhere takes the other kernel, so the
// bits are always the reference's.
// Included by int8_simd.h inside the arch namespace (its copy per translation unit).
//
// B is repacked per block of 4 columns into a panel of 16-k chunks, column-major inside a chunk
// (the 16 consecutive k of one column in one register), zero past k; A's rows are read in place
// 16 bytes at a time (a zero-padded copy for the last k mod 16). Tiles of 4 rows × 4 columns:
// 16 accumulators of 4 lanes, each lane a partial sum over k, added across at the end.
#pragma once

namespace neon_smull {

constexpr size_t kCols = 4;
constexpr size_t kChunkBytes = 16 * kCols;
constexpr size_t kPanelBytes = 64 * 1024;  // k up to 16,384; larger k takes the other kernel

inline bool HasLowestByte(const int8_t* a, size_t m, size_t k, size_t lda) {
  const int8x16_t lowest = vdupq_n_s8(-128);
  for (size_t i = 0; i < m; ++i) {
    const int8_t* row = a + i * lda;
    uint8x16_t hit = vdupq_n_u8(0);
    size_t q = 0;
    for (; q + 16 <= k; q += 16) hit = vorrq_u8(hit, vceqq_s8(vld1q_s8(row + q), lowest));
    if (vmaxvq_u8(hit) != 0) return true;
    for (; q < k; ++q)
      if (row[q] == -128) return true;
  }
  return false;
}

// Columns [j, j + cols) of B into panel (zero-filled past k and past cols).
inline void PackColumns(const GemmS8Params& p, const int8_t* b, size_t j, size_t cols,
                        int8_t* panel) {
  std::memset(panel, 0, (p.k + 15) / 16 * kChunkBytes);
  for (size_t q = 0; q < p.k; ++q) {
    const int8_t* row = b + q * p.ldb + j;
    int8_t* dst = panel + q / 16 * kChunkBytes + q % 16;
    for (size_t c = 0; c < cols; ++c) dst[16 * c] = row[c];
  }
}

template <size_t R>
inline void Step(int32x4_t (&acc)[R][kCols], const int8x16_t (&av)[R], const int8_t* chunk) {
  int8x16_t bv[kCols];
  for (size_t c = 0; c < kCols; ++c) bv[c] = vld1q_s8(chunk + 16 * c);
  for (size_t r = 0; r < R; ++r)
    for (size_t c = 0; c < kCols; ++c) {
      const int16x8_t pairs =
          vmlal_high_s8(vmull_s8(vget_low_s8(av[r]), vget_low_s8(bv[c])), av[r], bv[c]);
      acc[r][c] = vpadalq_s16(acc[r][c], pairs);
    }
}

template <size_t R>
void Tile(const GemmS8Params& p, const int8_t* a, const int8_t* panel, size_t i, size_t j,
          size_t cols, int8_t* y) {
  int32x4_t acc[R][kCols];
  for (size_t r = 0; r < R; ++r)
    for (size_t c = 0; c < kCols; ++c) acc[r][c] = vdupq_n_s32(0);
  const int8_t* rows[R];
  for (size_t r = 0; r < R; ++r) rows[r] = a + (i + r) * p.lda;
  const size_t full = p.k / 16;
  int8x16_t av[R];
  for (size_t g = 0; g < full; ++g) {
    for (size_t r = 0; r < R; ++r) av[r] = vld1q_s8(rows[r] + 16 * g);
    Step<R>(acc, av, panel + g * kChunkBytes);
  }
  if (p.k % 16 != 0) {  // never read past a row
    for (size_t r = 0; r < R; ++r) {
      alignas(16) int8_t tail[16] = {};
      std::memcpy(tail, rows[r] + 16 * full, p.k % 16);
      av[r] = vld1q_s8(tail);
    }
    Step<R>(acc, av, panel + full * kChunkBytes);
  }
  for (size_t r = 0; r < R; ++r) {
    // Lane c: column c's sum (pairwise adds of the four 4-lane partial sums).
    int32x4_t sum = vpaddq_s32(vpaddq_s32(acc[r][0], acc[r][1]), vpaddq_s32(acc[r][2], acc[r][3]));
    if (p.bias != nullptr) sum = vaddq_s32(sum, vdupq_n_s32(p.bias[i + r]));
    alignas(4) int8_t q[kCols];
    neon_requant::StoreS8x4(neon_requant::RequantizeS32x4(sum, p.multiplier[i + r], p.shift[i + r],
                                                          p.y_zero_point, p.act_min, p.act_max),
                            q);
    if (cols == kCols)
      std::memcpy(y + (i + r) * p.ldy + j, q, kCols);  // one 32-bit store
    else
      std::memcpy(y + (i + r) * p.ldy + j, q, cols);
  }
}

// False (nothing written) where this kernel does not apply: fewer than 4 columns, k past the
// panel, or a −128 in A.
inline bool GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p.n < kCols || (p.k + 15) / 16 * kChunkBytes > kPanelBytes ||
      HasLowestByte(a, p.m, p.k, p.lda))
    return false;
  alignas(16) int8_t panel[kPanelBytes];
  for (size_t j = 0; j < p.n; j += kCols) {
    const size_t cols = std::min(kCols, p.n - j);
    PackColumns(p, b, j, cols, panel);
    size_t i = 0;
    for (; i + 4 <= p.m; i += 4) Tile<4>(p, a, panel, i, j, cols, y);
    for (; i < p.m; ++i) Tile<1>(p, a, panel, i, j, cols, y);
  }
  return true;
}

}  // namespace neon_smull
