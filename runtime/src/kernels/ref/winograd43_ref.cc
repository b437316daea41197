// Winograd F(4×4, 3×3) transforms, one tile at a time (kernels/conv/conv_winograd.h), points
// 0, ±1, ±2 and ∞:
//   Bᵀ = [4  0 −5  0 1 0;  0 −4 −4  1 1 0;  0 4 −4 −1 1 0;
//         0 −2 −1  2 1 0;  0  2 −1 −2 1 0;  0 4  0 −5 0 1]
//   Aᵀ = [1 1 1 1 1 0;  0 1 −1 2 −2 0;  0 1 1 4 4 0;  0 1 −1 8 −8 1]
#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

// t = Bᵀ·d on six values (a row or a column of the patch).
inline void InputRows(const float d[6], float t[6]) {
  const float a = d[4] - 4.0f * d[2], b = d[3] - 4.0f * d[1];
  const float c = d[4] - d[2], e = 2.0f * (d[3] - d[1]);
  t[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
  t[1] = a + b;
  t[2] = a - b;
  t[3] = c + e;
  t[4] = c - e;
  t[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
}

// y = Aᵀ·m on six values.
inline void OutputRows(const float m[6], float y[4]) {
  const float p = m[1] + m[2], q = m[1] - m[2], r = m[3] + m[4], s = m[3] - m[4];
  y[0] = m[0] + p + r;
  y[1] = q + 2.0f * s;
  y[2] = p + 4.0f * r;
  y[3] = q + 8.0f * s + m[5];
}

}  // namespace

void Winograd43Input(const WinogradGeometry& g, const float* planes, float* v) {
  const size_t plane_floats = g.plane_rows * g.plane_w;
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* phase = planes + c * g.channel_floats;   // four planes: columns ≡ 0, 1, 2, 3 mod 4
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        float d[6][6], t[6][6];
        for (size_t i = 0; i < 6; ++i) {
          const size_t row = (4 * ty + i) * g.plane_w + tx;
          for (size_t j = 0; j < 6; ++j) d[i][j] = phase[(j % 4) * plane_floats + row + j / 4];
        }
        for (size_t i = 0; i < 6; ++i) InputRows(d[i], t[i]);   // t = d·B, row by row
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        for (size_t j = 0; j < 6; ++j) {   // V = Bᵀ·t, column by column
          const float col[6] = {t[0][j], t[1][j], t[2][j], t[3][j], t[4][j], t[5][j]};
          float out[6];
          InputRows(col, out);
          for (size_t i = 0; i < 6; ++i) v[(i * 6 + j) * g.v_stride + c * g.ld + tile] = out[i];
        }
      }
  }
}

void Winograd43Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  for (size_t o = 0; o < g.out_c; ++o) {
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        float s[4][6];
        for (size_t j = 0; j < 6; ++j) {   // rows: s = Aᵀ·m
          float mm[6], col[4];
          for (size_t i = 0; i < 6; ++i) mm[i] = m[(i * 6 + j) * g.m_stride + o * g.ld + tile];
          OutputRows(mm, col);
          for (size_t a = 0; a < 4; ++a) s[a][j] = col[a];
        }
        for (size_t a = 0; a < 4; ++a) {   // columns: Y = s·A
          const size_t oy = 4 * ty + a;
          if (oy >= g.out_h) break;
          float out[4];
          OutputRows(s[a], out);
          for (size_t bcol = 0; bcol < 4; ++bcol) {
            const size_t ox = 4 * tx + bcol;
            if (ox < g.out_w) y[(o * g.out_h + oy) * g.out_w + ox] = ApplyActivation(out[bcol] + b, act);
          }
        }
      }
  }
}

}  // namespace edgefold::kernels::ref
