// Helium (MVE) int8 GEMM and row requantization (int8_mve.h).
//   VMLADAVA.S8 Rda, Qn, Qm   Rda += Σ_{l<16} Qn[l]·Qm[l]   (exact in 32 bits for k ≤ kMaxGemmS8K)
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>

#include "kernels/cortex_m/int8_dsp.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

#define EDGEFOLD_MVE_INLINE inline __attribute__((always_inline))

// panel[c·k16 + q] = B[q, j0 + c] for q < k, 0 for k ≤ q < k16: four columns a step, loaded as
// bytes into 32-bit lanes and scattered k16 bytes apart.
void PackColumns(const int8_t* b, size_t ldb, size_t k, size_t k16, size_t j0, size_t cols,
                 int8_t* panel) {
  const uint32x4_t step = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(k16));
  for (size_t q = 0; q < k; ++q) {
    const uint8_t* row = reinterpret_cast<const uint8_t*>(b + q * ldb + j0);
    uint8_t* out = reinterpret_cast<uint8_t*>(panel + q);
    for (size_t c = 0; c < cols; c += 4, row += 4, out += 4 * k16) {
      const mve_pred16_t live = vctp32q(static_cast<uint32_t>(cols - c));
      vstrbq_scatter_offset_p_u32(out, step, vldrbq_z_u32(row, live), live);
    }
  }
  if (k16 == k) return;
  const mve_pred16_t pad = vctp8q(static_cast<uint32_t>(k16 - k));
  for (size_t c = 0; c < cols; ++c) vstrbq_p_s8(panel + c * k16 + k, vdupq_n_s8(0), pad);
}

// s[2r + c] = bias_r + A_r · column c for rows a0, a1 and the panel's columns b0, b1.
EDGEFOLD_MVE_INLINE void Dot2x2(const int8_t* a0, const int8_t* a1, const int8_t* b0,
                                const int8_t* b1, size_t k, int32_t bias0, int32_t bias1,
                                int32_t s[4]) {
  int32_t c00 = bias0, c01 = bias0, c10 = bias1, c11 = bias1;
  size_t q = 0;
  for (; q + 16 <= k; q += 16) {
    const int8x16_t x0 = vldrbq_s8(a0 + q), x1 = vldrbq_s8(a1 + q);
    const int8x16_t w0 = vldrbq_s8(b0 + q), w1 = vldrbq_s8(b1 + q);
    c00 = vmladavaq_s8(c00, x0, w0);
    c01 = vmladavaq_s8(c01, x0, w1);
    c10 = vmladavaq_s8(c10, x1, w0);
    c11 = vmladavaq_s8(c11, x1, w1);
  }
  if (q < k) {  // the panel is zero past k; A is not read past its row
    const mve_pred16_t live = vctp8q(static_cast<uint32_t>(k - q));
    const int8x16_t x0 = vldrbq_z_s8(a0 + q, live), x1 = vldrbq_z_s8(a1 + q, live);
    const int8x16_t w0 = vldrbq_s8(b0 + q), w1 = vldrbq_s8(b1 + q);
    c00 = vmladavaq_s8(c00, x0, w0);
    c01 = vmladavaq_s8(c01, x0, w1);
    c10 = vmladavaq_s8(c10, x1, w0);
    c11 = vmladavaq_s8(c11, x1, w1);
  }
  s[0] = c00, s[1] = c01, s[2] = c10, s[3] = c11;
}

}  // namespace

void RequantRowMve(const int32_t* acc, size_t n, int32_t multiplier, int32_t shift,
                   int32_t zero_point, int32_t act_min, int32_t act_max, int8_t* y) {
  const int32_t t = shift - 1;  // n_shift − 32
  if (t < 1 || t > 22) {
    for (size_t j = 0; j < n; ++j)
      y[j] = RequantizeS8(acc[j], multiplier, shift, zero_point, act_min, act_max);
    return;
  }
  // hi32(acc·M + 2^(n−1) − [acc < 0] + zp·2^n) >> t, as in cortex_m_dsp's RequantRow: the
  // constant's high half is 2^(t−1) + zp·2^t (its low half is 0).
  const int32_t high = static_cast<int32_t>((1u << (t - 1)) + static_cast<uint32_t>(zero_point) * (1u << t));
  const int32x4_t lo_v = vdupq_n_s32(act_min), hi_v = vdupq_n_s32(act_max);
  for (size_t j = 0; j < n; j += 4) {
    const int32x4_t v = vldrwq_s32(acc + j);
    int32x4_t h = vmulhq_s32(v, vdupq_n_s32(multiplier));
    const int32x4_t l = vmulq_n_s32(v, multiplier);
    const mve_pred16_t borrow = vcmpeqq_m_n_s32(l, 0, vcmpltq_n_s32(v, 0));
    h = vsubq_m_n_s32(h, h, 1, borrow);
    h = vshlq_r_s32(vaddq_n_s32(h, high), -t);
    h = vminq_s32(vmaxq_s32(h, lo_v), hi_v);
    vstrbq_p_s32(y + j, h, vctp32q(static_cast<uint32_t>(n - j)));
  }
}

// Column blocks (as many columns as the panel holds, up to kGemmS8BlockCols), then row pairs
// (an odd last row with itself) and column pairs (an odd last column with itself; the
// duplicates' results are dropped), each row's sums requantized together.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  const size_t k16 = std::max<size_t>(16, (p.k + 15) & ~size_t{15});
  if (k16 > kGemmS8PanelBytes) {
    cortex_m_dsp::GemmS8(p, a, b, y);
    return;
  }
  alignas(16) int8_t panel[kGemmS8PanelBytes];
  alignas(16) int32_t rows[2][kGemmS8BlockCols + 4];
  const size_t block_cols = std::min(kGemmS8BlockCols, kGemmS8PanelBytes / k16);
  for (size_t j0 = 0; j0 < p.n; j0 += block_cols) {
    const size_t cols = std::min(block_cols, p.n - j0);
    PackColumns(b, p.ldb, p.k, k16, j0, cols, panel);
    for (size_t i = 0; i < p.m; i += 2) {
      const size_t i1 = std::min(i + 1, p.m - 1);
      const int8_t* a0 = a + i * p.lda;
      const int8_t* a1 = a + i1 * p.lda;
      const int32_t b0 = p.bias != nullptr ? p.bias[i] : 0;
      const int32_t b1 = p.bias != nullptr ? p.bias[i1] : 0;
      for (size_t c = 0; c < cols; c += 2) {
        const size_t c1 = std::min(c + 1, cols - 1);
        int32_t s[4];
        Dot2x2(a0, a1, panel + c * k16, panel + c1 * k16, p.k, b0, b1, s);
        rows[0][c] = s[0], rows[0][c + 1] = s[1], rows[1][c] = s[2], rows[1][c + 1] = s[3];
      }
      RequantRowMve(rows[0], cols, p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min,
                    p.act_max, y + i * p.ldy + j0);
      if (i1 != i)
        RequantRowMve(rows[1], cols, p.multiplier[i1], p.shift[i1], p.y_zero_point, p.act_min,
                      p.act_max, y + i1 * p.ldy + j0);
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
