// Winograd F(2×2, 3×3) transforms over W tiles of a tile row at once (kernels/conv_winograd.h;
// the math and the scalar oracle are in ref/winograd23_ref.cc).
//   V = Bᵀ d B, d the 4×4 input patch of a tile;   Y = Aᵀ m A (2×2) + bias, then the activation.
// The patch's columns 0..3 of tile tx are even[tx], odd[tx], even[tx + 1], odd[tx + 1] of the
// column planes, so each of the 16 inputs of W tiles is one unaligned load.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
void Winograd23Input(const Winograd23Geometry& g, const float* planes, float* v) {
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
void Winograd23Output(const Winograd23Geometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t xi_stride = g.m_stride;
  alignas(64) float lanes[2][2][W];   // [row a][column b][tile]
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
        for (size_t a = 0; a < 2; ++a) {   // Y = s·A along each row
          ActBatch<Arch>(s[a][0] + s[a][1] + s[a][2] + b, act).store_aligned(lanes[a][0]);
          ActBatch<Arch>(s[a][1] - s[a][2] - s[a][3] + b, act).store_aligned(lanes[a][1]);
        }
        // Interleave the tiles' two columns back into output rows 2ty, 2ty + 1.
        const size_t tiles = std::min(W, g.tiles_w - tx);
        for (size_t a = 0; a < 2 && 2 * ty + a < g.out_h; ++a) {
          float* yrow = yo + (2 * ty + a) * g.out_w + 2 * tx;
          const size_t cols = std::min(2 * tiles, g.out_w - 2 * tx);
          for (size_t q = 0; q < cols; ++q) yrow[q] = lanes[a][q & 1][q >> 1];
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
