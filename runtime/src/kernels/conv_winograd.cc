#include "kernels/conv_winograd.h"

#include <algorithm>
#include <cstring>

namespace edgefold::kernels {
namespace {

constexpr size_t kSaturated = SIZE_MAX;
size_t MulSat(size_t a, size_t b) { return (a != 0 && b > kSaturated / a) ? kSaturated : a * b; }
size_t AddSat(size_t a, size_t b) { return a > kSaturated - b ? kSaturated : a + b; }
size_t RoundUp16(size_t a) { return a > kSaturated - 15 ? kSaturated : (a + 15) / 16 * 16; }

// Bands of about this many floats of V + M (16·(in_c + out_c) per tile) stay near L2.
constexpr size_t kBandFloats = 192 * 1024;
constexpr size_t kMinBandTiles = 48;   // three 16-float registers of GEMM columns

// Plane column u of the even (phase 0) or odd (phase 1) plane reads input column 2u + phase − pad;
// *lo/*hi bound the u whose column is inside [0, in_w).
void ColumnRange(size_t plane_w, size_t phase, size_t pad, size_t in_w, size_t* lo, size_t* hi) {
  const long shift = static_cast<long>(pad) - static_cast<long>(phase);   // 2u ≥ shift
  const long first = shift <= 0 ? 0 : (shift + 1) / 2;
  const long last_in = static_cast<long>(in_w) - 1 + shift;
  const long end = last_in < 0 ? 0 : last_in / 2 + 1;
  *lo = std::min(static_cast<size_t>(first), plane_w);
  *hi = std::max(*lo, std::min(static_cast<size_t>(end), plane_w));
}

// Even and odd columns of the zero-padded input, per channel.
void FillColumnPlanes(const Conv2dShape& s, const Winograd23Layout& l, const float* x, float* planes) {
  const Winograd23Geometry& g = l.geometry;
  const size_t plane_floats = g.plane_rows * g.plane_w;
  size_t lo[2], hi[2];
  for (size_t phase = 0; phase < 2; ++phase) ColumnRange(g.plane_w, phase, s.pad_left, s.in_w, &lo[phase], &hi[phase]);
  for (size_t c = 0; c < s.in_c; ++c) {
    const float* xc = x + c * s.in_h * s.in_w;
    for (size_t phase = 0; phase < 2; ++phase) {
      float* plane = planes + c * g.channel_floats + phase * plane_floats;
      for (size_t r = 0; r < g.plane_rows; ++r) {
        float* dst = plane + r * g.plane_w;
        const long iy = static_cast<long>(r) - static_cast<long>(s.pad_top);
        if (iy < 0 || iy >= static_cast<long>(s.in_h) || lo[phase] == hi[phase]) {
          std::memset(dst, 0, g.plane_w * sizeof(float));
          continue;
        }
        for (size_t u = 0; u < lo[phase]; ++u) dst[u] = 0.0f;   // a few floats: no libc call
        const float* src = xc + static_cast<size_t>(iy) * s.in_w + (2 * lo[phase] + phase - s.pad_left);
        for (size_t u = 0; u < hi[phase] - lo[phase]; ++u) dst[lo[phase] + u] = src[2 * u];   // vectorized
        for (size_t u = hi[phase]; u < g.plane_w; ++u) dst[u] = 0.0f;
      }
    }
  }
  const size_t used = s.in_c * g.channel_floats;   // slack read by the last whole-register loads
  std::memset(planes + used, 0, (l.planes_floats - used) * sizeof(float));
}

}  // namespace

bool ConvIsWinograd23(const Conv2dShape& s) {
  return s.kh == 3 && s.kw == 3 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
         s.dilation_w == 1 && s.group == 1 && s.out_h > 0 && s.out_w > 0;
}

Winograd23Layout MakeWinograd23Layout(const Conv2dShape& s) {
  Winograd23Layout l;
  l.scratch_bytes = kSaturated;
  if (!ConvIsWinograd23(s)) return l;
  Winograd23Geometry& g = l.geometry;
  l.tiles_h = (s.out_h + 1) / 2;
  g.tiles_w = (s.out_w + 1) / 2;
  g.plane_w = g.tiles_w + 1;
  g.plane_rows = 2 * l.tiles_h + 2;
  g.channel_floats = MulSat(2, MulSat(g.plane_rows, g.plane_w));
  g.in_c = s.in_c, g.out_c = s.out_c, g.out_h = s.out_h, g.out_w = s.out_w;
  const size_t per_tile = MulSat(16, AddSat(s.in_c, s.out_c));
  const size_t band_tiles = std::max(kMinBandTiles, kBandFloats / std::max<size_t>(per_tile, 1));
  l.band_rows = std::min(l.tiles_h, std::max<size_t>(1, (band_tiles + g.tiles_w - 1) / g.tiles_w));
  g.ld = RoundUp16(AddSat(MulSat(l.band_rows, g.tiles_w), 15));
  l.planes_floats = RoundUp16(AddSat(MulSat(s.in_c, g.channel_floats), 32));
  g.v_stride = AddSat(MulSat(s.in_c, g.ld), 16);
  g.m_stride = AddSat(MulSat(s.out_c, g.ld), 16);
  l.v_floats = MulSat(16, g.v_stride);
  l.m_floats = MulSat(16, g.m_stride);
  l.scratch_bytes = MulSat(AddSat(AddSat(l.planes_floats, l.v_floats), l.m_floats), sizeof(float));
  return l;
}

void Conv2dWinograd23(const KernelTable& t, const Conv2dShape& s, const Winograd23Layout& l,
                      const float* x, const float* u, const float* bias, Activation act, float* y,
                      float* scratch) {
  float* planes = scratch;
  float* v = planes + l.planes_floats;
  float* m = v + l.v_floats;
  FillColumnPlanes(s, l, x, planes);
  Winograd23Geometry g = l.geometry;
  for (g.row0 = 0; g.row0 < l.tiles_h; g.row0 += l.band_rows) {
    g.rows = std::min(l.band_rows, l.tiles_h - g.row0);
    t.winograd23_input(g, planes, v);
    // Whole registers of columns: the GEMM never takes its narrow tail path; the extra columns
    // read V's zeroed padding and write M's padding, which nothing reads.
    const size_t n = g.rows * g.tiles_w, n_whole = (n + 15) / 16 * 16;
    for (size_t row = 0; row < 16 * s.in_c; ++row)
      std::memset(v + (row / s.in_c) * g.v_stride + (row % s.in_c) * g.ld + n, 0, (n_whole - n) * sizeof(float));
    GemmParams p;
    p.m = s.out_c, p.n = n_whole, p.k = s.in_c;
    p.lda = s.in_c, p.ldb = g.ld, p.ldc = g.ld;
    p.prefetch_a = true;   // each U_ξ serves one band's columns, then the next ξ's streams in
    for (size_t xi = 0; xi < 16; ++xi)
      t.gemm(p, u + xi * s.out_c * s.in_c, v + xi * g.v_stride, m + xi * g.m_stride);
    t.winograd23_output(g, m, bias, act, y);
  }
}

void Winograd23TransformFilters(const float* w, size_t out_c, size_t in_c, float* u) {
  static const double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (size_t o = 0; o < out_c; ++o)
    for (size_t c = 0; c < in_c; ++c) {
      const float* g = w + (o * in_c + c) * 9;
      double gg[4][3];   // G·g
      for (size_t i = 0; i < 4; ++i)
        for (size_t k = 0; k < 3; ++k)
          gg[i][k] = kG[i][0] * g[0 * 3 + k] + kG[i][1] * g[1 * 3 + k] + kG[i][2] * g[2 * 3 + k];
      for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 4; ++j)
          u[((i * 4 + j) * out_c + o) * in_c + c] =
              static_cast<float>(gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2]);
    }
}

}  // namespace edgefold::kernels
