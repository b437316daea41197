// Winograd F(2×2, 3×3) transforms, one tile at a time (kernels/conv/conv_winograd.h).
//   Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]     Aᵀ = [1 1 1 0; 0 1 −1 −1]
#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

// t = Bᵀ·d on four values (a row or a column of the tile).
inline void InputRows(const float d[4], float t[4]) {
  t[0] = d[0] - d[2];
  t[1] = d[1] + d[2];
  t[2] = d[2] - d[1];
  t[3] = d[1] - d[3];
}

}  // namespace

void Winograd23Input(const WinogradGeometry& g, const float* planes, float* v) {
  const size_t plane_floats = g.plane_rows * g.plane_w;
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* even = planes + c * g.channel_floats;
    const float* odd = even + plane_floats;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        float d[4][4], t[4][4];
        for (size_t i = 0; i < 4; ++i) {
          const size_t row = (2 * ty + i) * g.plane_w + tx;
          d[i][0] = even[row], d[i][1] = odd[row], d[i][2] = even[row + 1], d[i][3] = odd[row + 1];
        }
        for (size_t i = 0; i < 4; ++i) InputRows(d[i], t[i]);   // t = d·B, row by row
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        for (size_t j = 0; j < 4; ++j) {   // V = Bᵀ·t, column by column
          const float col[4] = {t[0][j], t[1][j], t[2][j], t[3][j]};
          float out[4];
          InputRows(col, out);
          for (size_t i = 0; i < 4; ++i) v[(i * 4 + j) * g.v_stride + c * g.ld + tile] = out[i];
        }
      }
  }
}

void Winograd23Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  for (size_t o = 0; o < g.out_c; ++o) {
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        float s[2][4];
        for (size_t j = 0; j < 4; ++j) {   // rows: s = Aᵀ·m
          float mm[4];
          for (size_t i = 0; i < 4; ++i) mm[i] = m[(i * 4 + j) * g.m_stride + o * g.ld + tile];
          s[0][j] = mm[0] + mm[1] + mm[2];
          s[1][j] = mm[1] - mm[2] - mm[3];
        }
        for (size_t a = 0; a < 2; ++a) {   // columns: Y = s·A
          const float out[2] = {s[a][0] + s[a][1] + s[a][2], s[a][1] - s[a][2] - s[a][3]};
          const size_t oy = 2 * ty + a;
          if (oy >= g.out_h) continue;
          for (size_t bcol = 0; bcol < 2; ++bcol) {
            const size_t ox = 2 * tx + bcol;
            if (ox < g.out_w) y[(o * g.out_h + oy) * g.out_w + ox] = ApplyActivation(out[bcol] + b, act);
          }
        }
      }
  }
}

}  // namespace edgefold::kernels::ref
