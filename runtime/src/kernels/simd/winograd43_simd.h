// Winograd F(4×4, 3×3) transforms over W tiles of a tile row at once (kernels/conv/conv_winograd.h;
// the matrices and the scalar oracle are in ref/winograd43_ref.cc).
//   V = Bᵀ d B, d the 6×6 input patch of a tile;   Y = Aᵀ m A (4×4) + bias, then the activation.
// Patch column j of tile tx is column tx + j / 4 of phase plane j mod 4, so each of the 36
// inputs of W tiles is one unaligned load; the four output columns of W tiles interleave back
// into 4·W consecutive floats of an output row (two rounds of Interleave, winograd23_simd.h).
#pragma once
#include "kernels/simd/simd_common.h"
#include "kernels/simd/winograd23_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// t = Bᵀ·d on six registers (a row or a column of W patches).
template <class Arch>
inline void Winograd43InputRows(const FBatch<Arch> d[6], FBatch<Arch> t[6]) {
  using B = FBatch<Arch>;
  const B four(4.0f), five(5.0f), two(2.0f);
  const B a = xsimd::fnma(four, d[2], d[4]), b = xsimd::fnma(four, d[1], d[3]);
  const B c = d[4] - d[2], e = two * (d[3] - d[1]);
  t[0] = xsimd::fma(four, d[0], xsimd::fnma(five, d[2], d[4]));
  t[1] = a + b;
  t[2] = a - b;
  t[3] = c + e;
  t[4] = c - e;
  t[5] = xsimd::fma(four, d[1], xsimd::fnma(five, d[3], d[5]));
}

// y = Aᵀ·m on six registers.
template <class Arch>
inline void Winograd43OutputRows(const FBatch<Arch> m[6], FBatch<Arch> y[4]) {
  using B = FBatch<Arch>;
  const B p = m[1] + m[2], q = m[1] - m[2], r = m[3] + m[4], s = m[3] - m[4];
  y[0] = m[0] + p + r;
  y[1] = xsimd::fma(B(2.0f), s, q);
  y[2] = xsimd::fma(B(4.0f), r, p);
  y[3] = xsimd::fma(B(8.0f), s, q) + m[5];
}

template <class Arch>
void Winograd43Input(const WinogradGeometry& g, const float* planes, float* v) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t plane_floats = g.plane_rows * g.plane_w;
  const size_t xi_stride = g.v_stride;
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* p0 = planes + c * g.channel_floats;
    const float* p1 = p0 + plane_floats;
    const float* p2 = p1 + plane_floats;
    const float* p3 = p2 + plane_floats;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      float* vrow = v + c * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B t[6][6];
        for (size_t i = 0; i < 6; ++i) {   // t = d·B along the columns of each patch row
          const size_t r = (4 * ty + i) * g.plane_w + tx;
          const B d[6] = {B::load_unaligned(p0 + r),     B::load_unaligned(p1 + r),
                          B::load_unaligned(p2 + r),     B::load_unaligned(p3 + r),
                          B::load_unaligned(p0 + r + 1), B::load_unaligned(p1 + r + 1)};
          Winograd43InputRows<Arch>(d, t[i]);
        }
        float* out = vrow + tx;
        for (size_t j = 0; j < 6; ++j) {   // V = Bᵀ·t down each column
          const B col[6] = {t[0][j], t[1][j], t[2][j], t[3][j], t[4][j], t[5][j]};
          B vcol[6];
          Winograd43InputRows<Arch>(col, vcol);
          for (size_t i = 0; i < 6; ++i) vcol[i].store_unaligned(out + (i * 6 + j) * xi_stride);
        }
      }
    }
  }
}

template <class Arch>
void Winograd43Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t xi_stride = g.m_stride;
  alignas(64) float lanes[4 * W];
  for (size_t o = 0; o < g.out_c; ++o) {
    const B b(bias != nullptr ? bias[o] : 0.0f);
    float* yo = y + o * g.out_h * g.out_w;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      const float* mrow = m + o * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B s[4][6];
        for (size_t j = 0; j < 6; ++j) {   // s = Aᵀ·m down each column
          B col[6], sc[4];
          for (size_t i = 0; i < 6; ++i) col[i] = B::load_unaligned(mrow + (i * 6 + j) * xi_stride + tx);
          Winograd43OutputRows<Arch>(col, sc);
          for (size_t a = 0; a < 4; ++a) s[a][j] = sc[a];
        }
        // Y = s·A along each row; the tiles' four columns interleave back into output rows
        // 4ty … 4ty + 3 (whole registers, or a stack copy at the row's end).
        const size_t cols = std::min(4 * W, g.out_w - 4 * tx);
        for (size_t a = 0; a < 4 && 4 * ty + a < g.out_h; ++a) {
          B yv[4];
          Winograd43OutputRows<Arch>(s[a], yv);
          for (size_t k = 0; k < 4; ++k) yv[k] = ActBatch<Arch>(yv[k] + b, act);
          B even_lo, even_hi, odd_lo, odd_hi, q0, q1, q2, q3;
          Interleave<Arch>(yv[0], yv[2], &even_lo, &even_hi);   // y0 y2 pairs
          Interleave<Arch>(yv[1], yv[3], &odd_lo, &odd_hi);     // y1 y3 pairs
          Interleave<Arch>(even_lo, odd_lo, &q0, &q1);          // y0 y1 y2 y3 per tile
          Interleave<Arch>(even_hi, odd_hi, &q2, &q3);
          float* yrow = yo + (4 * ty + a) * g.out_w + 4 * tx;
          if (cols == 4 * W) {
            q0.store_unaligned(yrow);
            q1.store_unaligned(yrow + W);
            q2.store_unaligned(yrow + 2 * W);
            q3.store_unaligned(yrow + 3 * W);
          } else {
            q0.store_aligned(lanes);
            q1.store_aligned(lanes + W);
            q2.store_aligned(lanes + 2 * W);
            q3.store_aligned(lanes + 3 * W);
            std::copy(lanes, lanes + cols, yrow);
          }
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
