// AArch64 3×3 channel of the flat depthwise convolution (conv2d_depthwise_flat_simd.h): the
// same sums in the same order, with the per-register bookkeeping taken out of the loop.
// - Column masks: the lanes where column t's taps stay inside the row (lo[t] ≤ ow < hi[t]) are
//   read from a table built once per image, mask[t][p] for every flat index p, instead of
//   tracking ow per register (an add, a compare and a select) and comparing it twice per
//   masked column; and-ing with the mask is the select with 0 (+0 where dropped).
// - Taps: the nine loads use one moving pointer and fixed byte offsets (one ldr each).
// Per 4 outputs: 9 loads, 3 fmul + 6 fmla, 3 mask loads and ands (an unmasked column reads
// an all-ones row), 3 adds, the activation and one store.
#pragma once
#include <arm_neon.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

constexpr size_t kDwNeonMaskWords = 8192;  // mask table on the stack (32 KiB)

// Mask table of one image: rows of `stride` words, one row per masked column of the plan.
struct DwNeonMasks {
  size_t stride = 0;       // ≥ n rounded up to 4 (and ≥ 4)
  int row[3] = {0, 0, 0};  // table row of column t (row 0: all ones)
  alignas(16) uint32_t bits[kDwNeonMaskWords];
};

// Builds m for a 3×3 plan g; false when the table does not fit (the portable loop runs).
inline bool DwNeonMasksFor(const DwFlatPlan& g, DwNeonMasks* m) {
  if (g.kh != 3 || g.kw != 3) return false;
  m->stride = std::max<size_t>((g.n + 3) / 4 * 4, 4);
  size_t rows = 1;  // row 0: all ones, for the columns never masked
  for (size_t t = 0; t < 3; ++t) rows += g.col_masked[t] ? 1 : 0;
  if (rows * m->stride > kDwNeonMaskWords) return false;
  std::fill(m->bits, m->bits + m->stride, ~0u);
  size_t next = 1;
  for (size_t t = 0; t < 3; ++t) {
    m->row[t] = 0;
    if (!g.col_masked[t]) continue;
    m->row[t] = static_cast<int>(next);
    uint32_t* bits = m->bits + next++ * m->stride;
    const size_t row = std::min(g.pitch, m->stride);  // the pattern repeats every output row
    for (size_t ow = 0; ow < row; ++ow) {
      const float owf = static_cast<float>(ow);
      bits[ow] = owf >= g.col_lo[t] && owf < g.col_hi[t] ? ~0u : 0u;
    }
    for (size_t p = row; p < m->stride; p += row)
      std::memcpy(bits + p, bits, std::min(row, m->stride - p) * sizeof(uint32_t));
  }
  return true;
}

struct DwNeonTaps3x3 {
  float32x4_t w[9], bias;
  ptrdiff_t off_bytes[9];   // tap (r, t) at byte offset off_bytes[r·3 + t] from the register
  const uint32_t* mask[3];  // column t's mask row (all ones when t is not masked)
};

// Registers [p, end) reading flat index p − shift of the planes at src. Everything the loop
// uses is copied into locals first: the stores to y could alias k, and GCC reloaded it.
template <class Arch, class Act>
inline void DwNeonRun3x3(const DwNeonTaps3x3& k, const Act& act, const float* src, size_t shift,
                         size_t p, size_t end, float* y_c) {
  const float32x4_t w0 = k.w[0], w1 = k.w[1], w2 = k.w[2], w3 = k.w[3], w4 = k.w[4], w5 = k.w[5];
  const float32x4_t w6 = k.w[6], w7 = k.w[7], w8 = k.w[8], bias = k.bias;
  const ptrdiff_t o0 = k.off_bytes[0], o1 = k.off_bytes[1], o2 = k.off_bytes[2],
                  o3 = k.off_bytes[3];
  const ptrdiff_t o4 = k.off_bytes[4], o5 = k.off_bytes[5], o6 = k.off_bytes[6],
                  o7 = k.off_bytes[7];
  const ptrdiff_t o8 = k.off_bytes[8];
  const uint32_t *m0 = k.mask[0], *m1 = k.mask[1], *m2 = k.mask[2];
  const Act f = act;
  const char* s = reinterpret_cast<const char*>(src + p - shift);
  const auto at = [&s](ptrdiff_t o) { return vld1q_f32(reinterpret_cast<const float*>(s + o)); };
  const auto keep = [](float32x4_t x, const uint32_t* m) {
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(x), vld1q_u32(m)));
  };
  for (; p < end; p += 4, s += 16) {
    const float32x4_t s0 =
        keep(vfmaq_f32(vfmaq_f32(vmulq_f32(w0, at(o0)), w3, at(o3)), w6, at(o6)), m0 + p);
    const float32x4_t s1 =
        keep(vfmaq_f32(vfmaq_f32(vmulq_f32(w1, at(o1)), w4, at(o4)), w7, at(o7)), m1 + p);
    const float32x4_t s2 =
        keep(vfmaq_f32(vfmaq_f32(vmulq_f32(w2, at(o2)), w5, at(o5)), w8, at(o8)), m2 + p);
    const float32x4_t acc = vaddq_f32(vaddq_f32(vaddq_f32(bias, s0), s1), s2);
    vst1q_f32(y_c + p, f(FBatch<Arch>(acc)));
  }
}

// DwFlatChannel<Arch, 3, 3, Act> with the table m.
template <class Arch, class Act>
void DwFlatChannelNeon3x3(const DwFlatPlan& g, const DwNeonMasks& m, const float* buf,
                          const float* x_c, const float* w_c, float bias, const Act& act,
                          float* y_c) {
  DwNeonTaps3x3 k;
  for (size_t r = 0; r < 3; ++r)
    for (size_t t = 0; t < 3; ++t) {
      k.w[r * 3 + t] = vdupq_n_f32(w_c[r * 3 + t]);
      k.off_bytes[r * 3 + t] = static_cast<ptrdiff_t>(g.row_off[r] + g.col_off[t]) * 4;
    }
  for (size_t t = 0; t < 3; ++t) k.mask[t] = m.bits + static_cast<size_t>(m.row[t]) * m.stride;
  k.bias = vdupq_n_f32(bias);
  const size_t n = g.n, full = n / 4 * 4;
  const float* top = buf + g.lead;
  const float* last_src = top;
  size_t last_shift = 0;
  if (g.banded) {
    DwNeonRun3x3<Arch, Act>(k, act, top, 0, 0, g.p_lo, y_c);
    DwNeonRun3x3<Arch, Act>(k, act, x_c, 0, g.p_lo, g.p_mid, y_c);
    last_src = buf + g.bot_at, last_shift = g.bot_start;
    DwNeonRun3x3<Arch, Act>(k, act, last_src, last_shift, g.p_mid, full, y_c);
  } else {
    DwNeonRun3x3<Arch, Act>(k, act, top, 0, 0, full, y_c);
  }
  if (full == n) return;
  if (n >= 4) {  // last partial register: recompute the overlapping one ending at n
    DwNeonRun3x3<Arch, Act>(k, act, last_src, last_shift, n - 4, n, y_c);
    return;
  }
  alignas(16) float tmp[4];
  DwNeonRun3x3<Arch, Act>(k, act, top, 0, 0, 4, tmp);
  std::memcpy(y_c, tmp, n * sizeof(float));
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
