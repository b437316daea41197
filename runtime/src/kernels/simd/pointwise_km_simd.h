// A pointwise conv over few pixels with its weights stored transposed (PointwiseKmParams,
// kernels/kernel_params.h): output channels in the lanes, so a 3×3 or 6×6 plane wastes no lanes
// (as a GEMM over pixels it has 9 or 36 columns: a partial register or tail per row).
//
//   y[o][j] = act(bias[o] + Σ_c wt[c][o]·x[c][j])
//
// A block of W output channels × N pixels keeps N registers: per input channel one load of W
// weights, then N fused multiply-adds, each with x[c][j] broadcast. The block's registers are
// stored through a small transposing buffer (y is [out_c][pixels]). The last channel block
// overlaps the one before it when out_c is not a multiple of W, and a thread's range that does
// not start or end on a block edge takes the block around it and stores its own lanes: every
// output is the same chain of multiply-adds whatever the split (bit-identical across threads).
#pragma once
#include <algorithm>
#include <cstddef>

#include "kernels/reference.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Pixels per block: the accumulators plus a weight register and a broadcast within the file.
template <class Arch>
constexpr size_t PointwiseKmMaxPixels() {
  return FBatch<Arch>::size >= 16 ? 14 : kManyVectorRegisters<Arch> ? 14 : 10;
}

// Channels [o0, o0 + W) of pixels [j0, j0 + N); lanes [lane_lo, lane_hi) are stored.
template <class Arch, size_t N>
void PointwiseKmBlock(const PointwiseKmParams& p, const float* wt, const float* x, float* y,
                      size_t o0, size_t j0, size_t lane_lo, size_t lane_hi) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B b0 = p.bias != nullptr ? B::load_unaligned(p.bias + o0) : B(0.0f);
  B acc[N];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) acc[i] = b0;
  const float* w = wt + o0;
  const float* xc = x + j0;
  for (size_t c = 0; c < p.in_c; ++c, w += p.out_c, xc += p.pixels) {
    const B wv = B::load_unaligned(w);
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) acc[i] = xsimd::fma(wv, B(xc[i]), acc[i]);
  }
  alignas(64) float tmp[N][W];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) ActBatch<Arch>(acc[i], p.act).store_aligned(tmp[i]);
  for (size_t l = lane_lo; l < lane_hi; ++l) {
    float* yo = y + (o0 + l) * p.pixels + j0;
    for (size_t i = 0; i < N; ++i) yo[i] = tmp[i][l];
  }
}

template <class Arch, size_t N>
void PointwiseKmBlockOf(size_t n, const PointwiseKmParams& p, const float* wt, const float* x,
                        float* y, size_t o0, size_t j0, size_t lane_lo, size_t lane_hi) {
  if constexpr (N > 1) {
    if (n < N) return PointwiseKmBlockOf<Arch, N - 1>(n, p, wt, x, y, o0, j0, lane_lo, lane_hi);
  }
  PointwiseKmBlock<Arch, N>(p, wt, x, y, o0, j0, lane_lo, lane_hi);
}

template <class Arch>
void PointwiseKm(const PointwiseKmParams& p, const float* wt, const float* x, float* y) {
  constexpr size_t W = FBatch<Arch>::size;
  constexpr size_t kMax = PointwiseKmMaxPixels<Arch>();
  if (p.out_c < W) return ref::PointwiseKm(p, wt, x, y);  // no whole block: every split alike
  // Pixel chunks of near-equal size (36 → 3 × 12, not 14 + 14 + 8).
  const size_t chunks = (p.pixels + kMax - 1) / kMax;
  const size_t per_chunk = chunks > 0 ? (p.pixels + chunks - 1) / chunks : 0;
  for (size_t o = p.o_begin; o < p.o_end; o += W) {
    const size_t o0 = std::min(o, p.out_c - W);  // the last block overlaps the one before
    const size_t lane_lo = o - o0, lane_hi = std::min(p.o_end, o0 + W) - o0;
    for (size_t j0 = 0; j0 < p.pixels; j0 += per_chunk) {
      const size_t n = std::min(per_chunk, p.pixels - j0);
      PointwiseKmBlockOf<Arch, kMax>(n, p, wt, x, y, o0, j0, lane_lo, lane_hi);
    }
    o = o0;  // next block starts at o0 + W
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
