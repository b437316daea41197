// Resize (ResizeParams in kernel_params.h). Two fast paths, everything else takes the
// reference (ref/resize_ref.cc, already blocked so its coordinate math is off the pixel path):
// - nearest with integer factors kh, kw (ResizeAxis::factor): each input row is widened once
//   (kw = 2: every lane duplicated with zips) into its first output row, the other kh − 1 rows
//   are copies of it;
// - linear 2× half-pixel on both axes: per output row, the two source rows blended with
//   (1 − fh, fh) ∈ {(¾, ¼), (¼, ¾)} into a row buffer, then y[2j] = ¼·t[j−1] + ¾·t[j],
//   y[2j+1] = ¾·t[j] + ¼·t[j+1] with t[−1] = t[0], t[in_w] = t[in_w − 1] (the clamped edges).
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/reference.h"
#include "kernels/resize_coords.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// dst[2i] = a[i], dst[2i+1] = b[i] for the W lanes. xsimd 8.1 zips within 128-bit lanes on
// AVX and AVX-512 (unpacklo/hi), so for W > 4 the 4-float quarters are put in order by hand.
template <class Arch>
inline void StoreInterleaved(FBatch<Arch> a, FBatch<Arch> b, float* dst) {
  constexpr size_t W = FBatch<Arch>::size;
  const FBatch<Arch> lo = xsimd::zip_lo(a, b), hi = xsimd::zip_hi(a, b);
  if constexpr (W == 4) {
    lo.store_unaligned(dst);
    hi.store_unaligned(dst + 4);
  } else {
    alignas(64) float l[W], h[W];
    lo.store_aligned(l);
    hi.store_aligned(h);
    for (size_t q = 0; q < W / 4; ++q) {
      std::memcpy(dst + 8 * q, l + 4 * q, 4 * sizeof(float));
      std::memcpy(dst + 8 * q + 4, h + 4 * q, 4 * sizeof(float));
    }
  }
}

// One input row widened by k into an output row of k·in_w.
template <class Arch>
void WidenRow(const float* x, size_t in_w, size_t k, float* y) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t i = 0;
  if (k == 2)
    for (; i + W <= in_w; i += W) {
      const B v = B::load_unaligned(x + i);
      StoreInterleaved<Arch>(v, v, y + 2 * i);
    }
  for (; i < in_w; ++i)
    for (size_t r = 0; r < k; ++r) y[i * k + r] = x[i];
}

template <class Arch>
void ResizeNearestInteger(const ResizeParams& p, const float* x, float* y, size_t planes) {
  const size_t kh = p.h.factor, kw = p.w.factor, out_w = p.w.out;
  for (size_t pl = 0; pl < planes; ++pl)
    for (size_t r = 0; r < p.h.in; ++r) {
      float* first = y + (pl * p.h.out + r * kh) * out_w;
      WidenRow<Arch>(x + (pl * p.h.in + r) * p.w.in, p.w.in, kw, first);
      for (size_t c = 1; c < kh; ++c) std::memcpy(first + c * out_w, first, out_w * sizeof(float));
    }
}

// Longest input row the 2× bilinear path takes (its row buffer lives on the stack).
constexpr size_t kResizeRowFloats = 2048;

template <class Arch>
void ResizeBilinear2x(const ResizeParams& p, const float* x, float* y, size_t planes) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t in_w = p.w.in;
  alignas(64) float buf[kResizeRowFloats + 2 * 16];
  float* t = buf + W;  // t[-1] and t[in_w] are the clamped edges
  const B quarter(0.25f), three_quarters(0.75f);
  for (size_t pl = 0; pl < planes; ++pl)
    for (size_t oh = 0; oh < p.h.out; ++oh) {
      const ResizeTap r = ResizeLinearTap(p.h, oh);
      const float* x0 = x + (pl * p.h.in + r.i0) * in_w;
      const float* x1 = x + (pl * p.h.in + r.i1) * in_w;
      const B fh(r.frac), gh(1.0f - r.frac);
      size_t c = 0;
      for (; c + W <= in_w; c += W)
        (B::load_unaligned(x0 + c) * gh + B::load_unaligned(x1 + c) * fh).store_unaligned(t + c);
      for (; c < in_w; ++c) t[c] = x0[c] * (1.0f - r.frac) + x1[c] * r.frac;
      t[-1] = t[0];
      t[in_w] = t[in_w - 1];
      float* yr = y + (pl * p.h.out + oh) * p.w.out;
      size_t j = 0;
      for (; j + W <= in_w; j += W) {
        const B mid = B::load_unaligned(t + j);
        const B even = B::load_unaligned(t + j - 1) * quarter + mid * three_quarters;
        const B odd = mid * three_quarters + B::load_unaligned(t + j + 1) * quarter;
        StoreInterleaved<Arch>(even, odd, yr + 2 * j);
      }
      for (; j < in_w; ++j) {
        const float* tj = t + j;  // tj[-1]: j - 1 would wrap as an unsigned index at j = 0
        yr[2 * j] = tj[-1] * 0.25f + tj[0] * 0.75f;
        yr[2 * j + 1] = tj[0] * 0.75f + tj[1] * 0.25f;
      }
    }
}

// Widest output row the separable bilinear path takes (its rows and taps live on the stack).
constexpr size_t kResizeSeparableFloats = 1024;

// Bilinear at any scale, separable: each input row is resized horizontally once (scalar taps,
// about in_h·out_w of them per plane) into a two-row cache, and every output row is a vertical
// blend of two cached rows, in registers over the whole row. An 8× upsampling then costs about
// one vector FMA per 16 outputs instead of four scalar taps per output.
template <class Arch>
void ResizeBilinearSeparable(const ResizeParams& p, const float* x, float* y, size_t planes) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t out_w = p.w.out, in_w = p.w.in;
  size_t i0[kResizeSeparableFloats], i1[kResizeSeparableFloats];
  float fw[kResizeSeparableFloats];
  for (size_t ow = 0; ow < out_w; ++ow) {
    const ResizeTap c = ResizeLinearTap(p.w, ow);
    i0[ow] = c.i0;
    i1[ow] = c.i1;
    fw[ow] = c.frac;
  }
  alignas(64) float cache[2][kResizeSeparableFloats];
  for (size_t pl = 0; pl < planes; ++pl) {
    size_t held[2] = {SIZE_MAX, SIZE_MAX};
    // The horizontally resized input row `r` in one of the two slots, keeping row `keep`.
    auto row = [&](size_t r, size_t keep) -> const float* {
      for (int s = 0; s < 2; ++s)
        if (held[s] == r) return cache[s];
      const int s = held[0] == keep ? 1 : 0;
      const float* xr = x + (pl * p.h.in + r) * in_w;
      for (size_t ow = 0; ow < out_w; ++ow)
        cache[s][ow] = xr[i0[ow]] * (1.0f - fw[ow]) + xr[i1[ow]] * fw[ow];
      held[s] = r;
      return cache[s];
    };
    for (size_t oh = 0; oh < p.h.out; ++oh) {
      const ResizeTap r = ResizeLinearTap(p.h, oh);
      const float* a = row(r.i0, r.i1);
      const float* b = row(r.i1, r.i0);
      float* yr = y + (pl * p.h.out + oh) * out_w;
      const B fh(r.frac), gh(1.0f - r.frac);
      size_t j = 0;
      for (; j + W <= out_w; j += W)
        (B::load_aligned(a + j) * gh + B::load_aligned(b + j) * fh).store_unaligned(yr + j);
      for (; j < out_w; ++j) yr[j] = a[j] * (1.0f - r.frac) + b[j] * r.frac;
    }
  }
}

template <class Arch>
void Resize2d(const ResizeParams& p, const float* x, float* y, size_t planes) {
  if (p.mode == ResizeMode::kNearest && p.h.factor > 0 && p.w.factor > 0)
    return ResizeNearestInteger<Arch>(p, x, y, planes);
  if (p.mode == ResizeMode::kLinear && p.h.factor == 2 && p.w.factor == 2 &&
      p.w.in <= kResizeRowFloats)
    return ResizeBilinear2x<Arch>(p, x, y, planes);
  if (p.mode == ResizeMode::kLinear && p.w.out <= kResizeSeparableFloats && p.h.out >= p.h.in)
    return ResizeBilinearSeparable<Arch>(p, x, y, planes);
  ref::Resize2d(p, x, y, planes);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
