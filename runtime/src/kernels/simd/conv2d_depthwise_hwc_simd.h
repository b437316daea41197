// Depthwise convolution with channels innermost (DepthwiseHwcParams, kernels/kernel_params.h):
//
//   y[oh][ow][c] = act(bias[c] + Σ_{r,t} wt[r][t][c]·x[oh·sh − pt + r][ow·sw − pl + t][c])
//
// A register is one pixel of W channels, so a plane of any width wastes no lanes and needs no
// masks, shuffles or transposes (NCHW rows of 5 floats left most of a register empty). A block
// of W channels × N output pixels of one row keeps N accumulators and the block's kh·kw weights
// (stored wᵀ [kh][kw][c]) in registers; each input pixel the block
// reads is loaded once and multiplied into every output of the block whose window holds it.
// Every output is the bias, then one multiply-add per tap inside the image in (r, t) order,
// whatever the block or the thread's channel range: the last channel block overlaps the one
// before it, and a range that does not start or end on a block edge takes the block around it
// and stores only its own lanes. Undilated 3×3 and 5×5 windows, strides 1 and 2, at least W
// channels; every other shape runs the reference.
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>

#include "kernels/reference.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Output pixels per block: N accumulators, an input and a weight register in the file.
template <class Arch>
constexpr size_t DwHwcMaxPixels() {
  return kManyVectorRegisters<Arch> ? 8 : 6;
}

// Channels whose zero pixel fits on the stack (a tap outside the image reads it).
constexpr size_t kDwHwcMaxChannels = 2048;

// Pixels [j0, j0 + N) of one output row at yp, channels [c0, c0 + W); lanes [lane_lo, lane_hi)
// stored. xp[r·kCols + q]: the input pixel under window row r and column q of the block (the
// zero pixel outside the image: the tap adds an exact 0, w being finite), read at + c0. No
// branch between the multiply-adds (with them GCC kept the accumulators in memory).
template <class Arch, size_t KH, size_t KW, size_t SW, size_t N, bool kClamp>
void DwHwcBlock(const DepthwiseHwcParams& p, const float* const* xp, const float* w,
                const float* bounds, float* yp, size_t c0, size_t lane_lo, size_t lane_hi) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  constexpr size_t kCols = (N - 1) * SW + KW;  // input columns the block's windows cover
  const size_t cs = p.s.out_c;
  const B b0 = p.bias != nullptr ? B::load_unaligned(p.bias + c0) : B(0.0f);
  B acc[N];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) acc[i] = b0;
#pragma GCC unroll 8
  for (size_t r = 0; r < KH; ++r) {
#pragma GCC unroll 32
    for (size_t q = 0; q < kCols; ++q) {
      const B xv = B::load_unaligned(xp[r * kCols + q] + c0);
#pragma GCC unroll 8
      for (size_t t = 0; t < KW; ++t)  // output i reads column q = i·SW + t
        if (q >= t && (q - t) % SW == 0 && (q - t) / SW < N)
          acc[(q - t) / SW] =
              xsimd::fma(xv, B::load_unaligned(w + (r * KW + t) * cs + c0), acc[(q - t) / SW]);
    }
  }
  if constexpr (kClamp) {  // None, Relu, Clip: max then min with the bounds (ActBatch's values)
    const B lo = B::load_unaligned(bounds), hi = B::load_unaligned(bounds + W);
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) acc[i] = xsimd::min(hi, xsimd::max(lo, acc[i]));
  } else {
    for (size_t i = 0; i < N; ++i) acc[i] = ActBatchOther<Arch>(acc[i], p.act);
  }
  if (lane_lo == 0 && lane_hi == W) {
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) acc[i].store_unaligned(yp + i * cs + c0);
    return;
  }
  alignas(64) float tmp[W];
  for (size_t i = 0; i < N; ++i) {
    acc[i].store_aligned(tmp);
    for (size_t l = lane_lo; l < lane_hi; ++l) yp[i * cs + c0 + l] = tmp[l];
  }
}

// Pixels [j0, j0 + N) of output row oh, every channel block of [c_begin, c_end).
template <class Arch, size_t KH, size_t KW, size_t SW, size_t N>
void DwHwcPixels(const DepthwiseHwcParams& p, const float* x, const float* w, const float* zeros,
                 const float* bounds, float* y, size_t oh, size_t j0) {
  constexpr size_t W = FBatch<Arch>::size;
  constexpr size_t kCols = (N - 1) * SW + KW;
  const Conv2dShape& s = p.s;
  const long iw0 = static_cast<long>(j0 * SW) - static_cast<long>(s.pad_left);
  const float* xp[KH * kCols];
  for (size_t r = 0; r < KH; ++r) {
    const long ih = static_cast<long>(oh * s.stride_h + r) - static_cast<long>(s.pad_top);
    const bool row_in = ih >= 0 && ih < static_cast<long>(s.in_h);
    for (size_t q = 0; q < kCols; ++q) {
      const long iw = iw0 + static_cast<long>(q);
      xp[r * kCols + q] =
          row_in && iw >= 0 && iw < static_cast<long>(s.in_w)
              ? x + (static_cast<size_t>(ih) * s.in_w + static_cast<size_t>(iw)) * s.in_c
              : zeros;
    }
  }
  float* yp = y + (oh * s.out_w + j0) * s.out_c;
  for (size_t c = p.c_begin; c < p.c_end; c += W) {
    const size_t c0 = std::min(c, s.out_c - W);  // the last block overlaps the one before
    const size_t lane_hi = std::min(p.c_end, c0 + W) - c0;
    if (bounds != nullptr)
      DwHwcBlock<Arch, KH, KW, SW, N, true>(p, xp, w, bounds, yp, c0, c - c0, lane_hi);
    else
      DwHwcBlock<Arch, KH, KW, SW, N, false>(p, xp, w, bounds, yp, c0, c - c0, lane_hi);
    c = c0;  // next block starts at c0 + W
  }
}

template <class Arch, size_t KH, size_t KW, size_t SW, size_t N>
void DwHwcPixelsOf(size_t n, const DepthwiseHwcParams& p, const float* x, const float* w,
                   const float* zeros, const float* bounds, float* y, size_t oh, size_t j0) {
  if constexpr (N > 1) {
    if (n < N) return DwHwcPixelsOf<Arch, KH, KW, SW, N - 1>(n, p, x, w, zeros, bounds, y, oh, j0);
  }
  DwHwcPixels<Arch, KH, KW, SW, N>(p, x, w, zeros, bounds, y, oh, j0);
}

template <class Arch, size_t KH, size_t KW, size_t SW>
void DwHwcImage(const DepthwiseHwcParams& p, const float* x, const float* w, float* y) {
  constexpr size_t kMax = DwHwcMaxPixels<Arch>();
  const Conv2dShape& s = p.s;
  alignas(64) float zeros[kDwHwcMaxChannels];
  std::fill(zeros, zeros + s.in_c, 0.0f);
  // None, Relu and Clip as a clamp to [lo, hi]: bounds = lo in W lanes, then hi.
  constexpr size_t W = FBatch<Arch>::size;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const ActKind kind = p.act.kind;
  const bool clamp = kind == ActKind::kNone || kind == ActKind::kRelu || kind == ActKind::kClip;
  alignas(64) float bounds[2 * W];
  std::fill(bounds, bounds + W,
            kind == ActKind::kRelu   ? 0.0f
            : kind == ActKind::kClip ? p.act.alpha
                                     : -kInf);
  std::fill(bounds + W, bounds + 2 * W, kind == ActKind::kClip ? p.act.beta : kInf);
  // Pixel chunks of a row of near-equal size (12 → 2 × 6, not 8 + 4).
  const size_t chunks = (s.out_w + kMax - 1) / kMax;
  const size_t per_chunk = (s.out_w + chunks - 1) / chunks;
  for (size_t oh = 0; oh < s.out_h; ++oh)
    for (size_t j0 = 0; j0 < s.out_w; j0 += per_chunk)
      DwHwcPixelsOf<Arch, KH, KW, SW, kMax>(std::min(per_chunk, s.out_w - j0), p, x, w, zeros,
                                            clamp ? bounds : nullptr, y, oh, j0);
}

template <class Arch>
void Conv2dDepthwiseHwc(const DepthwiseHwcParams& p, const float* x, const float* w, float* y) {
  const Conv2dShape& s = p.s;
  const bool fits = s.out_c >= FBatch<Arch>::size && s.out_c <= kDwHwcMaxChannels &&
                    s.dilation_h == 1 && s.dilation_w == 1 && s.stride_h <= 2 && s.out_w > 0;
  if (fits && s.kh == 3 && s.kw == 3) {
    if (s.stride_w == 1) return DwHwcImage<Arch, 3, 3, 1>(p, x, w, y);
    if (s.stride_w == 2) return DwHwcImage<Arch, 3, 3, 2>(p, x, w, y);
  }
  if (fits && s.kh == 5 && s.kw == 5) {
    if (s.stride_w == 1) return DwHwcImage<Arch, 5, 5, 1>(p, x, w, y);
    if (s.stride_w == 2) return DwHwcImage<Arch, 5, 5, 2>(p, x, w, y);
  }
  ref::Conv2dDepthwiseHwc(p, x, w, y);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
