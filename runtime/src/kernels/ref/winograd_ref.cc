// Winograd transforms, one tile at a time (kernels/conv/conv_winograd.h): the scalar oracle of
// simd/winograd_simd.h, one loop over the tile size.
//   F(2×2, 3×3):  Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]      Aᵀ = [1 1 1 0; 0 1 −1 −1]
//   F(4×4, 3×3), points 0, ±1, ±2, ∞:
//     Bᵀ = [4  0 −5  0 1 0;  0 −4 −4  1 1 0;  0 4 −4 −1 1 0;
//           0 −2 −1  2 1 0;  0  2 −1 −2 1 0;  0 4  0 −5 0 1]
//     Aᵀ = [1 1 1 1 1 0;  0 1 −1 2 −2 0;  0 1 1 4 4 0;  0 1 −1 8 −8 1]
#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

// t = Bᵀ·d and y = Aᵀ·m on the α = tile + 2 values of a patch row or column.
template <size_t kTile>
struct WinogradRows;

template <>
struct WinogradRows<2> {
  static void Input(const float d[4], float t[4]) {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
  static void Output(const float m[4], float y[2]) {
    y[0] = m[0] + m[1] + m[2];
    y[1] = m[1] - m[2] - m[3];
  }
};

template <>
struct WinogradRows<4> {
  static void Input(const float d[6], float t[6]) {
    const float a = d[4] - 4.0f * d[2], b = d[3] - 4.0f * d[1];
    const float c = d[4] - d[2], e = 2.0f * (d[3] - d[1]);
    t[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
    t[1] = a + b;
    t[2] = a - b;
    t[3] = c + e;
    t[4] = c - e;
    t[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
  }
  static void Output(const float m[6], float y[4]) {
    const float p = m[1] + m[2], q = m[1] - m[2], r = m[3] + m[4], s = m[3] - m[4];
    y[0] = m[0] + p + r;
    y[1] = q + 2.0f * s;
    y[2] = p + 4.0f * r;
    y[3] = q + 8.0f * s + m[5];
  }
};

// Patch column j of tile tx is column tx + j / tile of the column plane of phase j mod tile.
template <size_t kTile>
void WinogradInput(const WinogradGeometry& g, const float* planes, float* v) {
  constexpr size_t kAlpha = kTile + 2;
  const size_t plane_floats = g.plane_rows * g.plane_w;
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* phases = planes + c * g.channel_floats;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        float d[kAlpha][kAlpha], t[kAlpha][kAlpha];
        for (size_t i = 0; i < kAlpha; ++i) {
          const size_t row = (kTile * ty + i) * g.plane_w + tx;
          for (size_t j = 0; j < kAlpha; ++j)
            d[i][j] = phases[(j % kTile) * plane_floats + row + j / kTile];
        }
        for (size_t i = 0; i < kAlpha; ++i)
          WinogradRows<kTile>::Input(d[i], t[i]);  // t = d·B, row by row
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        for (size_t j = 0; j < kAlpha; ++j) {  // V = Bᵀ·t, column by column
          float col[kAlpha], out[kAlpha];
          for (size_t i = 0; i < kAlpha; ++i) col[i] = t[i][j];
          WinogradRows<kTile>::Input(col, out);
          for (size_t i = 0; i < kAlpha; ++i)
            v[(i * kAlpha + j) * g.v_stride + c * g.ld + tile] = out[i];
        }
      }
  }
}

template <size_t kTile>
void WinogradOutput(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                    float* y) {
  constexpr size_t kAlpha = kTile + 2;
  for (size_t o = 0; o < g.out_c; ++o) {
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty)
      for (size_t tx = 0; tx < g.tiles_w; ++tx) {
        const size_t tile = (ty - g.row0) * g.tiles_w + tx;
        float s[kTile][kAlpha];
        for (size_t j = 0; j < kAlpha; ++j) {  // rows: s = Aᵀ·m
          float mm[kAlpha], col[kTile];
          for (size_t i = 0; i < kAlpha; ++i)
            mm[i] = m[(i * kAlpha + j) * g.m_stride + o * g.ld + tile];
          WinogradRows<kTile>::Output(mm, col);
          for (size_t a = 0; a < kTile; ++a) s[a][j] = col[a];
        }
        for (size_t a = 0; a < kTile; ++a) {  // columns: Y = s·A
          const size_t oy = kTile * ty + a;
          if (oy >= g.out_h) break;
          float out[kTile];
          WinogradRows<kTile>::Output(s[a], out);
          for (size_t bcol = 0; bcol < kTile; ++bcol) {
            const size_t ox = kTile * tx + bcol;
            if (ox < g.out_w)
              y[(o * g.out_h + oy) * g.out_w + ox] = ApplyActivation(out[bcol] + b, act);
          }
        }
      }
  }
}

}  // namespace

void Winograd23Input(const WinogradGeometry& g, const float* planes, float* v) {
  WinogradInput<2>(g, planes, v);
}
void Winograd43Input(const WinogradGeometry& g, const float* planes, float* v) {
  WinogradInput<4>(g, planes, v);
}
void Winograd23Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  WinogradOutput<2>(g, m, bias, act, y);
}
void Winograd43Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  WinogradOutput<4>(g, m, bias, act, y);
}

}  // namespace edgefold::kernels::ref
