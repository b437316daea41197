// Depthwise 3×3 convolution, stride 1, padding 1, on planes whose rows are narrower than a
// register (2 ≤ in_w ≤ 15 with AVX-512's 16 lanes: DS-CNN's 25 × 5 planes), read straight from x.
// The plane is one flat vector of n = h·w floats: the register of outputs p … p + 15 needs
// x[p + d] for the nine offsets d = (r − 1)·w + (t − 1): the register itself (d = 0) or lanes
// of the 32 floats in the previous and this register (d < 0) or this and the next one (d > 0),
// one vpermt2ps per tap: no padded copy of the plane and no lanes lost to row ends. Rows above the first and below
// the last are the zero lanes outside [0, n) (masked loads); a column tap that would wrap into
// the neighbouring row (t = 0 at column 0, t = 2 at column w − 1) is left out of that lane's
// sum by a masked multiply-add (the column masks of each register's first column, built once
// per image). Sums per lane: bias, then the taps row by row, column by column.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/simd/conv2d_depthwise_act_simd.h"
#include "kernels/simd/elementwise_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Whether s takes this path with `lanes` floats per register (AVX-512 only: vpermt2ps and
// mask registers).
inline bool DwNarrowFits(const Conv2dShape& s, size_t lanes) {
  return lanes == 16 && s.kh == 3 && s.kw == 3 && s.stride_h == 1 && s.stride_w == 1 &&
         s.dilation_h == 1 && s.dilation_w == 1 && s.pad_top == 1 && s.pad_left == 1 &&
         s.out_h == s.in_h && s.out_w == s.in_w && s.in_w >= 2 && s.in_w + 1 <= lanes &&
         s.in_h >= 1;
}

#if defined(__AVX512F__)
// The lanes [0, k) of a register (k ≥ 16: all of them).
inline __mmask16 DwNarrowLanes(size_t k) {
  return k >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << k) - 1u);
}

// Per image: the nine taps' lane indices and, per first column c of a register, the lanes
// whose column is not 0 (left) and not w − 1 (right).
struct DwNarrowPlan {
  size_t w = 0, n = 0, step = 0;  // step: 16 mod w, the first column's advance per register
  __m512i idx[9];
  __mmask16 left[16], right[16];
};

inline void DwNarrowPlanFor(const Conv2dShape& s, DwNarrowPlan* g) {
  g->w = s.in_w, g->n = s.in_h * s.in_w, g->step = 16 % s.in_w;
  const long w = static_cast<long>(s.in_w);
  for (long r = 0; r < 3; ++r)
    for (long t = 0; t < 3; ++t) {
      const long d = (r - 1) * w + (t - 1);
      alignas(64) int32_t lane[16];
      // d < 0: lanes 16 + d + i of (previous, this); d ≥ 0: lanes d + i of (this, next).
      for (int i = 0; i < 16; ++i) lane[i] = static_cast<int32_t>((d < 0 ? 16 + d : d) + i);
      g->idx[r * 3 + t] = _mm512_load_si512(lane);
    }
  for (size_t c = 0; c < s.in_w; ++c) {
    unsigned l = 0, rt = 0;
    for (size_t i = 0; i < 16; ++i) {
      const size_t col = (c + i) % s.in_w;
      if (col != 0) l |= 1u << i;
      if (col != s.in_w - 1) rt |= 1u << i;
    }
    g->left[c] = static_cast<__mmask16>(l), g->right[c] = static_cast<__mmask16>(rt);
  }
}

// y_c = act(conv(x_c) + bias) for one channel.
template <class Arch, class Act>
void DwNarrowChannel(const DwNarrowPlan& g, const float* x_c, const float* w_c, float bias,
                     const Act& act, float* y_c) {
  using B = FBatch<Arch>;
  const size_t n = g.n;
  __m512 wv[9];
  for (int k = 0; k < 9; ++k) wv[k] = _mm512_set1_ps(w_c[k]);
  const __m512 b = _mm512_set1_ps(bias);
  __m512 prev = _mm512_setzero_ps();
  __m512 cur = _mm512_maskz_loadu_ps(DwNarrowLanes(n), x_c);
  size_t col = 0;
  for (size_t p = 0; p < n; p += 16) {
    const size_t nx = p + 16;
    const __m512 next =
        nx < n ? _mm512_maskz_loadu_ps(DwNarrowLanes(n - nx), x_c + nx) : _mm512_setzero_ps();
    const __mmask16 l = g.left[col], r = g.right[col];
    __m512 acc = b;
#pragma GCC unroll 9
    for (int k = 0; k < 9; ++k) {
      // Taps 0–3 (d < 0 with w ≥ 2) from (previous, this), 5–8 (d > 0) from (this, next);
      // tap 4 (d = 0) is this register.
      const __m512 a = k == 4  ? cur
                       : k < 4 ? _mm512_permutex2var_ps(prev, g.idx[k], cur)
                               : _mm512_permutex2var_ps(cur, g.idx[k], next);
      if (k % 3 == 0)
        acc = _mm512_mask3_fmadd_ps(wv[k], a, acc, l);
      else if (k % 3 == 2)
        acc = _mm512_mask3_fmadd_ps(wv[k], a, acc, r);
      else
        acc = _mm512_fmadd_ps(wv[k], a, acc);
    }
    const __m512 out = act(B(acc));
    if (nx <= n)
      _mm512_storeu_ps(y_c + p, out);
    else
      _mm512_mask_storeu_ps(y_c + p, DwNarrowLanes(n - p), out);
    prev = cur, cur = next;
    col += g.step;
    if (col >= g.w) col -= g.w;
  }
}
#endif

// All channels of one image; false (nothing written) when the shape is not for this path.
template <class Arch>
bool DwNarrowImage(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                   const Activation& act, float* y) {
#if defined(__AVX512F__)
  if constexpr (FBatch<Arch>::size == 16) {
    if (!DwNarrowFits(s, 16)) return false;
    DwNarrowPlan g;
    DwNarrowPlanFor(s, &g);
    const bool fuse = DwActInline(act);
    DwWithActivation<Arch>(fuse ? act : Activation{}, [&](const auto& f) {
      for (size_t c = 0; c < s.out_c; ++c) {
        float* y_c = y + c * ConvYPlane(s);
        DwNarrowChannel<Arch>(g, x + c * ConvXPlane(s), w + c * 9, bias != nullptr ? bias[c] : 0.0f,
                              f, y_c);
        if (!fuse && act.kind != ActKind::kNone) ActivationKernel<Arch>(y_c, y_c, g.n, act);
      }
    });
    return true;
  }
#endif
  (void)s, (void)x, (void)w, (void)bias, (void)act, (void)y;
  return false;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
