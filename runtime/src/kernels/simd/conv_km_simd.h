// A conv with its weights stored transposed, wt[in_c][kh][kw][out_c] (ConvKmParams,
// kernels/kernel_params.h): output channels in the lanes, so a 3×3 or 6×6 plane (pointwise) or
// an 8- or 16-wide output row (ResNet-8's stride-2 convs) wastes no lanes, and no im2col or
// phase planes are built (the op gives the padded input).
//
//   y[o][oh][ow] = act(bias[o] + Σ_{c,r,t} wt[c][r][t][o]·x[c][oh·sh + r·dh][ow·sw + t·dw])
//
// A block of W output channels × N pixels of one output row keeps N registers: per tap one
// load of W weights, then N fused multiply-adds, each with x broadcast from the pixel's address
// (a constant displacement i·sw from one pointer). The block's registers are stored through a
// small transposing buffer (y is [out_c][out_h][out_w]). The last channel block overlaps the
// one before it when out_c is not a multiple of W, and a thread's range that does not start or
// end on a block edge takes the block around it and stores its own lanes: every output is the
// same chain of multiply-adds whatever the split (bit-identical across threads).
#pragma once
#include <algorithm>
#include <cstddef>

#include "kernels/reference.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Pixels per block: the accumulators plus a weight register and a broadcast within the file.
template <class Arch>
constexpr size_t ConvKmMaxPixels() {
  return FBatch<Arch>::size >= 16 ? 16 : kManyVectorRegisters<Arch> ? 14 : 10;
}

// Lanes [lane_lo, lane_hi) of tmp[i] (channels o0 + lane of pixel j + i) into y, NCHW or
// channels innermost.
template <size_t N, size_t C>
void ConvKmStoreLanes(const ConvKmParams& p, const float (*tmp)[C], float* y, size_t o0, size_t j,
                      size_t lane_lo, size_t lane_hi) {
  if (p.y_hwc) {
    for (size_t i = 0; i < N; ++i)
      for (size_t l = lane_lo; l < lane_hi; ++l) y[(j + i) * p.out_c + o0 + l] = tmp[i][l];
    return;
  }
  const size_t out_plane = p.out_h * p.out_w;
  for (size_t l = lane_lo; l < lane_hi; ++l) {
    float* yo = y + (o0 + l) * out_plane + j;
    for (size_t i = 0; i < N; ++i) yo[i] = tmp[i][l];
  }
}

// Channels [o0, o0 + W) of pixels [j0, j0 + N) of output row oh; lanes [lane_lo, lane_hi) are
// stored. SW: the column stride (1 or 2).
template <class Arch, size_t N, size_t SW>
void ConvKmBlock(const ConvKmParams& p, const float* wt, const float* x, float* y, size_t o0,
                 size_t oh, size_t j0, size_t lane_lo, size_t lane_hi) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B b0 = p.bias != nullptr ? B::load_unaligned(p.bias + o0) : B(0.0f);
  B acc[N];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) acc[i] = b0;
  const float* w = wt + o0;
  const size_t plane = p.x_h * p.x_w;
  const float* x_row = x + oh * p.stride_h * p.x_w + j0 * SW;
  if (p.x_hwc) {  // pointwise, x [pixels][in_c]: pixel i's channels at xp + i·in_c
    const float* xp = x + j0 * p.in_c;
    for (size_t c = 0; c < p.in_c; ++c, ++xp, w += p.out_c) {
      const B wv = B::load_unaligned(w);
#pragma GCC unroll 16
      for (size_t i = 0; i < N; ++i) acc[i] = xsimd::fma(wv, B(xp[i * p.in_c]), acc[i]);
    }
  } else if (p.kh * p.kw == 1) {  // pointwise: one tap per input channel, one loop
    for (size_t c = 0; c < p.in_c; ++c, x_row += plane, w += p.out_c) {
      const B wv = B::load_unaligned(w);
#pragma GCC unroll 16
      for (size_t i = 0; i < N; ++i) acc[i] = xsimd::fma(wv, B(x_row[i * SW]), acc[i]);
    }
  } else {
    for (size_t c = 0; c < p.in_c; ++c, x_row += plane)
      for (size_t r = 0; r < p.kh; ++r) {
        const float* xr = x_row + r * p.dilation_h * p.x_w;
        // Not unrolled: with stride 2, GCC otherwise carries the taps' shared values between
        // iterations in scalar registers (a move per multiply-add).
#pragma GCC unroll 1
        for (size_t t = 0; t < p.kw; ++t, w += p.out_c, xr += p.dilation_w) {
          const B wv = B::load_unaligned(w);
#pragma GCC unroll 16
          for (size_t i = 0; i < N; ++i) acc[i] = xsimd::fma(wv, B(xr[i * SW]), acc[i]);
        }
      }
  }
  alignas(64) float tmp[N][W];
  if (p.y_hwc && lane_lo == 0 && lane_hi == W) {  // y [pixels][out_c]: whole registers
    float* yp = y + (oh * p.out_w + j0) * p.out_c + o0;
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) ActBatch<Arch>(acc[i], p.act).store_unaligned(yp + i * p.out_c);
    return;
  }
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) ActBatch<Arch>(acc[i], p.act).store_aligned(tmp[i]);
  ConvKmStoreLanes<N, W>(p, tmp, y, o0, oh * p.out_w + j0, lane_lo, lane_hi);
}

template <class Arch, size_t N, size_t SW>
void ConvKmBlockOf(size_t n, const ConvKmParams& p, const float* wt, const float* x, float* y,
                   size_t o0, size_t oh, size_t j0, size_t lane_lo, size_t lane_hi) {
  if constexpr (N > 1) {
    if (n < N) return ConvKmBlockOf<Arch, N - 1, SW>(n, p, wt, x, y, o0, oh, j0, lane_lo, lane_hi);
  }
  ConvKmBlock<Arch, N, SW>(p, wt, x, y, o0, oh, j0, lane_lo, lane_hi);
}

template <class Arch, size_t SW>
void ConvKmStrided(const ConvKmParams& p, const float* wt, const float* x, float* y) {
  constexpr size_t W = FBatch<Arch>::size;
  constexpr size_t kMax = ConvKmMaxPixels<Arch>();
  // Pixel chunks of a row of near-equal size (36 → 3 × 12, not 16 + 16 + 4).
  const size_t chunks = (p.out_w + kMax - 1) / kMax;
  const size_t per_chunk = chunks > 0 ? (p.out_w + chunks - 1) / chunks : 0;
  for (size_t o = p.o_begin; o < p.o_end; o += W) {
    const size_t o0 = std::min(o, p.out_c - W);  // the last block overlaps the one before
    const size_t lane_lo = o - o0, lane_hi = std::min(p.o_end, o0 + W) - o0;
    for (size_t oh = 0; oh < p.out_h; ++oh)
      for (size_t j0 = 0; j0 < p.out_w; j0 += per_chunk) {
        const size_t n = std::min(per_chunk, p.out_w - j0);
        ConvKmBlockOf<Arch, kMax, SW>(n, p, wt, x, y, o0, oh, j0, lane_lo, lane_hi);
      }
    o = o0;  // next block starts at o0 + W
  }
}

// Pointwise blocks of two registers of output channels (2·W) × up to kKmPairPixels pixels, for
// the x86 tables with 16 vector registers (SSE4.2, AVX2): per input channel two weight loads and
// N broadcasts for 2·N multiply-adds, the ratio of their GEMM's 6 × 2 tile. One register × 13
// pixels there loaded a broadcast per multiply-add and lost to the GEMM on 7² planes
// (bench/README.md, "224² networks at one thread"). Each output is the same chain
// (the bias, then one multiply-add per input channel in order) as in ConvKmBlock.
#if !defined(__arm__) && !defined(__aarch64__)
template <class Arch>
constexpr bool kKmPairs = FBatch<Arch>::size < 16 && !kManyVectorRegisters<Arch>;
#else
template <class Arch>
constexpr bool kKmPairs = false;
#endif
constexpr size_t kKmPairPixels = 6;

// Channels [o0, o0 + 2·W) of pixels [j0, j0 + N) of the single row; lanes [lane_lo, lane_hi) of
// the 2·W are stored.
template <class Arch, size_t N, bool XHwc>
void ConvKmPairBlock(const ConvKmParams& p, const float* wt, const float* x, float* y, size_t o0,
                     size_t j0, size_t lane_lo, size_t lane_hi) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B b0 = p.bias != nullptr ? B::load_unaligned(p.bias + o0) : B(0.0f);
  const B b1 = p.bias != nullptr ? B::load_unaligned(p.bias + o0 + W) : B(0.0f);
  B acc0[N], acc1[N];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) acc0[i] = b0, acc1[i] = b1;
  const float* w = wt + o0;
  // x [in_c][pixels], or [pixels][in_c] (x_hwc): pixel i of channel c at xc[i·ps]
  const size_t cs = XHwc ? 1 : p.x_w, ps = XHwc ? p.in_c : 1;
  const float* xc = x + j0 * ps;
  for (size_t c = 0; c < p.in_c; ++c, xc += cs, w += p.out_c) {
    const B w0 = B::load_unaligned(w), w1 = B::load_unaligned(w + W);
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) {
      const B xv(xc[i * ps]);
      acc0[i] = xsimd::fma(w0, xv, acc0[i]);
      acc1[i] = xsimd::fma(w1, xv, acc1[i]);
    }
  }
  alignas(64) float tmp[N][2 * W];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) {
    ActBatch<Arch>(acc0[i], p.act).store_aligned(tmp[i]);
    ActBatch<Arch>(acc1[i], p.act).store_aligned(tmp[i] + W);
  }
  ConvKmStoreLanes<N, 2 * W>(p, tmp, y, o0, j0, lane_lo, lane_hi);
}

template <class Arch, size_t N, bool XHwc>
void ConvKmPairBlockOf(size_t n, const ConvKmParams& p, const float* wt, const float* x, float* y,
                       size_t o0, size_t j0, size_t lane_lo, size_t lane_hi) {
  if constexpr (N > 1) {
    if (n < N)
      return ConvKmPairBlockOf<Arch, N - 1, XHwc>(n, p, wt, x, y, o0, j0, lane_lo, lane_hi);
  }
  ConvKmPairBlock<Arch, N, XHwc>(p, wt, x, y, o0, j0, lane_lo, lane_hi);
}

// A pointwise conv (one row of out_w pixels, x_w = out_w) in blocks of 2·W channels, the last
// overlapping the one before (out_c ≥ 2·W); a thread's range takes the blocks around it.
template <class Arch, bool XHwc>
void ConvKmPointwisePairs(const ConvKmParams& p, const float* wt, const float* x, float* y) {
  constexpr size_t C = 2 * FBatch<Arch>::size;
  const size_t chunks = (p.out_w + kKmPairPixels - 1) / kKmPairPixels;
  const size_t per_chunk = chunks > 0 ? (p.out_w + chunks - 1) / chunks : 0;
  for (size_t o = p.o_begin; o < p.o_end; o += C) {
    const size_t o0 = std::min(o, p.out_c - C);
    const size_t lane_lo = o - o0, lane_hi = std::min(p.o_end, o0 + C) - o0;
    for (size_t j0 = 0; j0 < p.out_w; j0 += per_chunk)
      ConvKmPairBlockOf<Arch, kKmPairPixels, XHwc>(std::min(per_chunk, p.out_w - j0), p, wt, x, y,
                                                   o0, j0, lane_lo, lane_hi);
    o = o0;  // next block starts at o0 + C
  }
}

template <class Arch>
void ConvKm(const ConvKmParams& p, const float* wt, const float* x, float* y) {
  // No whole block, or a stride the blocks are not built for: the reference (the same choice
  // for every split of the channels).
  // Channels-innermost input: pointwise convs only.
  if (p.out_c < FBatch<Arch>::size || p.stride_w > 2 || (p.x_hwc && p.kh * p.kw != 1))
    return ref::ConvKm(p, wt, x, y);
  if (p.stride_w == 2) return ConvKmStrided<Arch, 2>(p, wt, x, y);
  const bool pairs_fit = p.kh * p.kw == 1 && p.x_h == 1 && p.out_h == 1 && p.x_w == p.out_w &&
                         p.out_c >= 2 * FBatch<Arch>::size;
  if (pairs_fit && p.x_hwc) return ConvKmPointwisePairs<Arch, true>(p, wt, x, y);
  if constexpr (kKmPairs<Arch>)
    if (pairs_fit) return ConvKmPointwisePairs<Arch, false>(p, wt, x, y);
  ConvKmStrided<Arch, 1>(p, wt, x, y);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
