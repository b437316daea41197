// Depthwise convolution of one channel through a zero-padded, stride-deinterleaved copy of
// its plane (on the stack), so every output is computed in registers with no border or
// stride special cases.
//
// Padded plane P[Hp×Wp]: P[i][j] = x[i − pt][j − pl] inside the image, 0 outside, with
// Hp = (out_h−1)·sh + (kh−1)·dh + 1, Wp likewise. It is split into sh·sw phase planes
//   Q[a][b][i'][j'] = P[i'·sh + a][j'·sw + b],  row pitch We = ⌈Wp/sw⌉, Hq = ⌈Hp/sh⌉ rows,
// so tap (r, t) of output (oh, ow) reads P[oh·sh + r·dh][ow·sw + t·dw]
//   = Q[(r·dh) mod sh][(t·dw) mod sw][oh + ⌊r·dh/sh⌋][ow + ⌊t·dw/sw⌋]:
// at flat index p = oh·We + ow the tap is the constant offset ⌊r·dh/sh⌋·We + ⌊t·dw/sw⌋ in its
// phase plane. Vectors run over p (We − out_w wasted lanes per row); results land in a row
// buffer of pitch We and are copied out with the activation.
#pragma once
#include <cstring>

#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Stack budget of one channel: input phase planes and the output rows, floats each.
constexpr size_t kDwPhaseMaxFloats = 13312;

struct DwPhaseGeometry {
  size_t hp, wp, hq, we, plane_floats, out_floats;
};

inline DwPhaseGeometry DwPhaseGeom(const Conv2dShape& s, size_t lanes) {
  DwPhaseGeometry g;
  g.hp = (s.out_h - 1) * s.stride_h + (s.kh - 1) * s.dilation_h + 1;
  g.wp = (s.out_w - 1) * s.stride_w + (s.kw - 1) * s.dilation_w + 1;
  g.hq = (g.hp + s.stride_h - 1) / s.stride_h;
  g.we = (g.wp + s.stride_w - 1) / s.stride_w;
  // One more row than needed plus a register of slack: vectors over p may run past the last
  // output row by up to lanes−1 and still read inside the plane.
  g.plane_floats = (g.hq + 1) * g.we + lanes;
  g.out_floats = s.out_h * g.we + lanes;
  return g;
}

// True when one channel's buffers fit the stack budget.
inline bool DwPhaseFits(const Conv2dShape& s, size_t lanes) {
  const DwPhaseGeometry g = DwPhaseGeom(s, lanes);
  return g.plane_floats * s.stride_h * s.stride_w <= kDwPhaseMaxFloats &&
         g.out_floats <= kDwPhaseMaxFloats;
}

// Scatters one channel plane x_c into the phase planes q. Only positions inside the image are
// written; the padding positions are the same for every channel, so the caller zeroes q once
// per image and the zeros survive. Columns of phase b are those with (j + pad_left) mod sw == b;
// stride 1 is a plain row copy.
inline void DwPhaseFill(const Conv2dShape& s, const DwPhaseGeometry& g, const float* x_c,
                        float* q) {
  const size_t rows = g.hp > s.pad_top ? std::min(s.in_h, g.hp - s.pad_top) : 0;
  const size_t cols = g.wp > s.pad_left ? std::min(s.in_w, g.wp - s.pad_left) : 0;
  const size_t sw = s.stride_w;
  for (size_t i = 0; i < rows; ++i) {
    const size_t pi = i + s.pad_top;
    const float* xr = x_c + i * s.in_w;
    float* qrow = q + ((pi % s.stride_h) * sw) * g.plane_floats + (pi / s.stride_h) * g.we;
    if (sw == 1) {
      std::memcpy(qrow + s.pad_left, xr, cols * sizeof(float));
      continue;
    }
    for (size_t b = 0; b < sw; ++b) {
      const size_t j0 = (b + sw - s.pad_left % sw) % sw;
      if (j0 >= cols) continue;
      const size_t count = (cols - j0 + sw - 1) / sw;
      float* dst = qrow + b * g.plane_floats + (j0 + s.pad_left) / sw;
      const float* src = xr + j0;
      if (sw == 2) {  // a constant stride the compiler turns into vector permutes
        for (size_t d = 0; d < count; ++d) dst[d] = src[2 * d];
      } else {
        for (size_t d = 0; d < count; ++d) dst[d] = src[d * sw];
      }
    }
  }
}

// out[p] = bias + Σ_k w_c[k]·tap_ptr[k][p] for p < n_vec (a multiple of W). Vectors over p,
// four at a time so four independent FMA chains hide the FMA latency.
template <class Arch>
void DwPhaseTaps(const float* const* tap_ptr, const float* w_c, size_t taps, float bias,
                 size_t n_vec, float* out) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t p = 0;
  for (; p + 4 * W <= n_vec; p += 4 * W) {
    B acc0(bias), acc1(bias), acc2(bias), acc3(bias);
    for (size_t k = 0; k < taps; ++k) {
      const B wk(w_c[k]);
      const float* src = tap_ptr[k] + p;
      acc0 = xsimd::fma(wk, B::load_unaligned(src), acc0);
      acc1 = xsimd::fma(wk, B::load_unaligned(src + W), acc1);
      acc2 = xsimd::fma(wk, B::load_unaligned(src + 2 * W), acc2);
      acc3 = xsimd::fma(wk, B::load_unaligned(src + 3 * W), acc3);
    }
    acc0.store_unaligned(out + p);
    acc1.store_unaligned(out + p + W);
    acc2.store_unaligned(out + p + 2 * W);
    acc3.store_unaligned(out + p + 3 * W);
  }
  for (; p < n_vec; p += W) {
    B acc(bias);
    for (size_t k = 0; k < taps; ++k)
      acc = xsimd::fma(B(w_c[k]), B::load_unaligned(tap_ptr[k] + p), acc);
    acc.store_unaligned(out + p);
  }
}

// y_c = act(conv(x_c, w_c) + bias) for one channel; q and out are the caller's stack buffers.
template <class Arch>
void DwPhaseChannel(const Conv2dShape& s, const DwPhaseGeometry& g, const float* x_c,
                    const float* w_c, float bias, const Activation& act, float* q, float* out,
                    float* y_c) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  constexpr size_t kMaxTaps = 64;
  DwPhaseFill(s, g, x_c, q);
  const size_t taps = s.kh * s.kw;
  const float* tap_ptr[kMaxTaps];
  for (size_t r = 0; r < s.kh; ++r)
    for (size_t t = 0; t < s.kw; ++t) {
      const size_t dr = r * s.dilation_h, dc = t * s.dilation_w;
      const size_t phase = (dr % s.stride_h) * s.stride_w + dc % s.stride_w;
      tap_ptr[r * s.kw + t] =
          q + phase * g.plane_floats + (dr / s.stride_h) * g.we + dc / s.stride_w;
    }
  DwPhaseTaps<Arch>(tap_ptr, w_c, taps, bias, (s.out_h * g.we + W - 1) / W * W, out);
  // Whole registers while they end inside this channel's plane: the part past out_w lands in
  // later output rows, which are written afterwards (reads stay inside `out`'s lanes of slack).
  for (size_t oh = 0; oh < s.out_h; ++oh) {
    const float* src = out + oh * g.we;
    float* dst = y_c + oh * s.out_w;
    const size_t plane_left = (s.out_h - oh) * s.out_w;
    size_t ow = 0;
    for (; ow < s.out_w && ow + W <= plane_left; ow += W)
      ActBatch<Arch>(B::load_unaligned(src + ow), act).store_unaligned(dst + ow);
    for (; ow < s.out_w; ++ow) dst[ow] = ActOne(src[ow], act);
  }
}

// All channels of one image; the caller checked DwPhaseFits and kh·kw ≤ 64.
template <class Arch>
void DwPhaseImage(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                  const Activation& act, float* y) {
  constexpr size_t W = FBatch<Arch>::size;
  alignas(64) float q[kDwPhaseMaxFloats];
  alignas(64) float out[kDwPhaseMaxFloats];
  const DwPhaseGeometry g = DwPhaseGeom(s, W);
  std::memset(
      q, 0, s.stride_h * s.stride_w * g.plane_floats * sizeof(float));  // padding, see DwPhaseFill
  for (size_t c = 0; c < s.out_c; ++c)
    DwPhaseChannel<Arch>(s, g, x + c * ConvXPlane(s), w + c * s.kh * s.kw,
                         bias != nullptr ? bias[c] : 0.0f, act, q, out, y + c * ConvYPlane(s));
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
