// Winograd F(2×2, 3×3) transforms over W tiles of a tile row at once (kernels/conv/conv_winograd.h;
// the math and the scalar oracle are in ref/winograd23_ref.cc).
//   V = Bᵀ d B, d the 4×4 input patch of a tile;   Y = Aᵀ m A (2×2) + bias, then the activation.
// The patch's columns 0..3 of tile tx are even[tx], odd[tx], even[tx + 1], odd[tx + 1] of the
// column planes, so each of the 16 inputs of W tiles is one unaligned load.
#pragma once
#include "kernels/simd/simd_common.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// (a0 b0 a1 b1 …) across both registers: *lo gets the first W values, *hi the next W.
// xsimd 8.1's zip_lo/zip_hi interleave within 128-bit lanes only, so AVX and AVX-512 permute.
template <class Arch>
inline void Interleave(FBatch<Arch> a, FBatch<Arch> b, FBatch<Arch>* lo, FBatch<Arch>* hi) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    *lo = _mm512_permutex2var_ps(a, first, b);
    *hi = _mm512_permutex2var_ps(a, second, b);
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (W == 8) {
    const __m256 l = _mm256_unpacklo_ps(a, b), h = _mm256_unpackhi_ps(a, b);
    *lo = _mm256_permute2f128_ps(l, h, 0x20);
    *hi = _mm256_permute2f128_ps(l, h, 0x31);
    return;
  }
#endif
  if constexpr (W == 4) {
    *lo = xsimd::zip_lo(a, b);
    *hi = xsimd::zip_hi(a, b);
  } else {
    alignas(64) float la[W], lb[W], out[2 * W];
    a.store_aligned(la);
    b.store_aligned(lb);
    for (size_t i = 0; i < W; ++i) out[2 * i] = la[i], out[2 * i + 1] = lb[i];
    *lo = FBatch<Arch>::load_aligned(out);
    *hi = FBatch<Arch>::load_aligned(out + W);
  }
}

template <class Arch>
void Winograd23Input(const WinogradGeometry& g, const float* planes, float* v) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t plane_floats = g.plane_rows * g.plane_w;
  const size_t xi_stride = g.v_stride;
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* even = planes + c * g.channel_floats;
    const float* odd = even + plane_floats;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      float* vrow = v + c * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B t[4][4];
        for (size_t i = 0; i < 4; ++i) {   // t = d·B along the columns of each patch row
          const size_t r = (2 * ty + i) * g.plane_w + tx;
          const B d0 = B::load_unaligned(even + r), d1 = B::load_unaligned(odd + r);
          const B d2 = B::load_unaligned(even + r + 1), d3 = B::load_unaligned(odd + r + 1);
          t[i][0] = d0 - d2, t[i][1] = d1 + d2, t[i][2] = d2 - d1, t[i][3] = d1 - d3;
        }
        float* out = vrow + tx;
        for (size_t j = 0; j < 4; ++j) {   // V = Bᵀ·t down each column
          (t[0][j] - t[2][j]).store_unaligned(out + (0 * 4 + j) * xi_stride);
          (t[1][j] + t[2][j]).store_unaligned(out + (1 * 4 + j) * xi_stride);
          (t[2][j] - t[1][j]).store_unaligned(out + (2 * 4 + j) * xi_stride);
          (t[1][j] - t[3][j]).store_unaligned(out + (3 * 4 + j) * xi_stride);
        }
      }
    }
  }
}

template <class Arch>
void Winograd23Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t xi_stride = g.m_stride;
  alignas(64) float lanes[2 * W];
  for (size_t o = 0; o < g.out_c; ++o) {
    const B b(bias != nullptr ? bias[o] : 0.0f);
    float* yo = y + o * g.out_h * g.out_w;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      const float* mrow = m + o * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B s[2][4];
        for (size_t j = 0; j < 4; ++j) {   // s = Aᵀ·m down each column
          const B m0 = B::load_unaligned(mrow + (0 * 4 + j) * xi_stride + tx);
          const B m1 = B::load_unaligned(mrow + (1 * 4 + j) * xi_stride + tx);
          const B m2 = B::load_unaligned(mrow + (2 * 4 + j) * xi_stride + tx);
          const B m3 = B::load_unaligned(mrow + (3 * 4 + j) * xi_stride + tx);
          s[0][j] = m0 + m1 + m2;
          s[1][j] = m1 - m2 - m3;
        }
        // Y = s·A along each row; the tiles' two columns interleave back into output rows
        // 2ty and 2ty + 1 (whole registers, or a stack copy at the row's end).
        const size_t cols = std::min(2 * W, g.out_w - 2 * tx);
        for (size_t a = 0; a < 2 && 2 * ty + a < g.out_h; ++a) {
          const B left = ActBatch<Arch>(s[a][0] + s[a][1] + s[a][2] + b, act);
          const B right = ActBatch<Arch>(s[a][1] - s[a][2] - s[a][3] + b, act);
          B lo, hi;
          Interleave<Arch>(left, right, &lo, &hi);
          float* yrow = yo + (2 * ty + a) * g.out_w + 2 * tx;
          if (cols == 2 * W) {
            lo.store_unaligned(yrow);
            hi.store_unaligned(yrow + W);
          } else {
            lo.store_aligned(lanes);
            hi.store_aligned(lanes + W);
            std::copy(lanes, lanes + cols, yrow);
          }
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
