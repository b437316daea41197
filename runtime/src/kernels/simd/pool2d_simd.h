// 2-D max / average pooling, vectorized over output columns whose whole window is inside the
// row (plain loads for stride_w == 1, gathers otherwise); border pixels take the scalar path.
#pragma once
#include "kernels/simd/conv2d_depthwise_unzip_simd.h"
#include "kernels/simd/window_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// max or Σ/count over the in-bounds taps of one window; 0 when none is in bounds.
inline float PoolPixel(const Pool2dParams& p, const float* xp, size_t oh, size_t ow) {
  const bool is_max = p.kind == PoolKind::kMax;
  float acc = is_max ? -INFINITY : 0.0f;
  size_t count = 0;
  for (size_t r = 0; r < p.kh; ++r) {
    const long ih = TapRow(oh, r, p.stride_h, p.dilation_h, p.pad_top, p.in_h);
    if (ih < 0) continue;
    for (size_t t = 0; t < p.kw; ++t) {
      const long iw =
          static_cast<long>(ow * p.stride_w + t * p.dilation_w) - static_cast<long>(p.pad_left);
      if (iw < 0 || iw >= static_cast<long>(p.in_w)) continue;
      const float v = xp[ih * static_cast<long>(p.in_w) + iw];
      acc = is_max ? std::max(acc, v) : acc + v;
      ++count;
    }
  }
  if (count == 0) return 0.0f;
  if (is_max) return acc;
  return acc / static_cast<float>(p.count_include_pad ? p.kh * p.kw : count);
}

// One register of outputs starting at column ow: max, or Σ·inv, over window rows `taps`.
template <class Arch, class Load>
FBatch<Arch> PoolVector(const Pool2dParams& p, const Load& load, const float* xp, size_t oh,
                        Span taps, size_t ow, FBatch<Arch> inv) {
  using B = FBatch<Arch>;
  const bool is_max = p.kind == PoolKind::kMax;
  B acc(is_max ? -INFINITY : 0.0f);
  const float* x0 = xp + ow * p.stride_w - p.pad_left;
  for (size_t r = taps.lo; r < taps.hi; ++r) {
    const float* xr = x0 + (oh * p.stride_h + r * p.dilation_h - p.pad_top) * p.in_w;
    for (size_t t = 0; t < p.kw; ++t) {
      const B v = load(xr + t * p.dilation_w);
      acc = is_max ? xsimd::max(acc, v) : acc + v;
    }
  }
  return is_max ? acc : acc * inv;
}

// All planes with one column loader (unit-stride or gather).
template <class Arch, class Load>
void PoolImage(const Pool2dParams& p, const Load& load, const float* x, float* y, size_t planes) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const Span cols = InteriorCols(p.in_w, p.out_w, p.kw, p.stride_w, p.dilation_w, p.pad_left);
  for (size_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      float* y_row = y + (pl * p.out_h + oh) * p.out_w;
      const Span taps = ValidTaps(oh, p.kh, p.stride_h, p.dilation_h, p.pad_top, p.in_h);
      const B inv(1.0f / static_cast<float>(p.count_include_pad ? p.kh * p.kw
                                                                : (taps.hi - taps.lo) * p.kw));
      size_t ow = 0;
      for (; ow < cols.lo; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
      if (taps.hi > taps.lo && cols.hi - cols.lo >= W) {
        for (; ow + W <= cols.hi; ow += W)
          PoolVector<Arch, Load>(p, load, xp, oh, taps, ow, inv).store_unaligned(y_row + ow);
        if (ow < cols.hi) {  // last partial register: recompute the overlapping one ending at hi
          ow = cols.hi;
          PoolVector<Arch, Load>(p, load, xp, oh, taps, ow - W, inv)
              .store_unaligned(y_row + ow - W);
        }
      }
      for (; ow < p.out_w; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
    }
  }
}

// Longest input row and widest window the strided path below takes (its row buffers and tap
// offsets live on the stack).
constexpr size_t kPoolRowFloats = 2048;
constexpr size_t kPoolStridedMaxTaps = 16;

// stride_w > 1 without gathers (a gather per register per tap was slow: bench/README.md): per
// output row, (1) reduce the window rows into one input-width row with unit-stride loads,
// (2) split that row by padded column modulo stride_w into phases, (3) reduce the taps of the
// interior columns from the phases, again unit-stride: padded column ow·sw + t·dw is element
// ow + ⌊t·dw/sw⌋ of phase (t·dw) mod sw. Border columns take the scalar path.
template <class Arch>
void PoolImageStrided(const Pool2dParams& p, const float* x, float* y, size_t planes) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const bool is_max = p.kind == PoolKind::kMax;
  const size_t sw = p.stride_w, phase_len = (p.in_w + p.pad_left) / sw + 1;
  const Span cols = InteriorCols(p.in_w, p.out_w, p.kw, sw, p.dilation_w, p.pad_left);
  alignas(64) float row[kPoolRowFloats + 16];
  alignas(
      64) float phases[kPoolRowFloats + 16 * 8];  // sw · (phase_len + W) ≤ in_w + pl + sw·(W + 1)
  // Tap t reads phase (t·dw) mod sw from element ⌊t·dw/sw⌋ on: one offset per tap, found once
  // (a division per tap and register was most of the instructions of a 3×3 stride-2 max pool).
  size_t tap_at[kPoolStridedMaxTaps];
  for (size_t t = 0; t < p.kw; ++t) {
    const size_t d = t * p.dilation_w;
    tap_at[t] = (d % sw) * (phase_len + W) + d / sw;
  }
  for (size_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      float* y_row = y + (pl * p.out_h + oh) * p.out_w;
      const Span taps = ValidTaps(oh, p.kh, p.stride_h, p.dilation_h, p.pad_top, p.in_h);
      size_t ow = 0;
      for (; ow < cols.lo; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
      if (taps.hi > taps.lo && cols.hi > cols.lo) {
        const float* x0 = xp + (oh * p.stride_h + taps.lo * p.dilation_h - p.pad_top) * p.in_w;
        size_t c = 0;
        for (; c + W <= p.in_w; c += W) {  // (1)
          B acc = B::load_unaligned(x0 + c);
          for (size_t r = taps.lo + 1; r < taps.hi; ++r) {
            const B v = B::load_unaligned(x0 + (r - taps.lo) * p.dilation_h * p.in_w + c);
            acc = is_max ? xsimd::max(acc, v) : acc + v;
          }
          acc.store_aligned(row + c);
        }
        for (; c < p.in_w; ++c) {
          float acc = x0[c];
          for (size_t r = taps.lo + 1; r < taps.hi; ++r) {
            const float v = x0[(r - taps.lo) * p.dilation_h * p.in_w + c];
            acc = is_max ? std::max(acc, v) : acc + v;
          }
          row[c] = acc;
        }
        if (sw == 2) {  // (2) in registers: column q is padded column q + pl, phase (q + pl) mod 2
          const size_t pl = p.pad_left;
          DwUnzip<Arch>(row, p.in_w, phases + (pl % 2) * (phase_len + W) + pl / 2,
                        phases + ((pl + 1) % 2) * (phase_len + W) + (pl + 1) / 2);
        } else {
          for (size_t ph = 0; ph < sw; ++ph) {  // (2): phase ph holds padded columns ph + u·sw
            float* dst = phases + ph * (phase_len + W);
            size_t u = ph >= p.pad_left ? 0 : (p.pad_left - ph + sw - 1) / sw;  // first in-image u
            for (size_t q = u * sw + ph - p.pad_left; q < p.in_w; q += sw, ++u) dst[u] = row[q];
          }
        }
        const float inv =
            1.0f /
            static_cast<float>(p.count_include_pad ? p.kh * p.kw : (taps.hi - taps.lo) * p.kw);
        for (; ow < cols.hi; ow += W) {  // (3); the last register may recompute earlier columns
          const size_t o = std::min(ow, cols.hi - std::min(W, cols.hi - cols.lo));
          const size_t n = std::min(W, cols.hi - o);
          B acc(is_max ? -INFINITY : 0.0f);
          for (size_t t = 0; t < p.kw; ++t) {
            const B v = B::load_unaligned(phases + tap_at[t] + o);
            acc = is_max ? xsimd::max(acc, v) : acc + v;
          }
          if (!is_max) acc *= B(inv);
          if (n == W) {
            acc.store_unaligned(y_row + o);
          } else {  // interior narrower than a register
            alignas(64) float lanes[W];
            acc.store_aligned(lanes);
            std::copy(lanes, lanes + n, y_row + o);
          }
          ow = o;
        }
        ow = cols.hi;
      }
      for (; ow < p.out_w; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
    }
  }
}

// Pooling over `planes` planes, see Pool2dParams.
template <class Arch>
void Pool2d(const Pool2dParams& p, const float* x, float* y, size_t planes) {
  if (p.stride_w == 1) return PoolImage<Arch>(p, UnitLoader<Arch>{}, x, y, planes);
  if (p.stride_w <= 8 && p.kw <= kPoolStridedMaxTaps &&
      p.in_w + p.pad_left + p.stride_w * (FBatch<Arch>::size + 1) <= kPoolRowFloats)
    return PoolImageStrided<Arch>(p, x, y, planes);
  PoolImage<Arch>(p, StridedLoader<Arch>(p.stride_w), x, y, planes);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
