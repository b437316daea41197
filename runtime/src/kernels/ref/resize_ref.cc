// Resize reference (ResizeParams in kernel_params.h). Column coordinates are computed once per
// block of kColumns output columns and reused for every row and plane, so the double-precision
// coordinate math stays off the per-pixel path (it is the Cortex-M kernel too).
#include <algorithm>
#include <cmath>

#include "kernels/reference.h"
#include "kernels/resize_coords.h"

namespace edgefold::kernels {
namespace {

// Tolerance for s landing on an integer or a half: i·scale + offset is computed in double from
// a scale that is itself rounded, so an exact 3 may come out as 2.9999999999999996.
constexpr double kCoordEps = 1e-9;

// s clamped to [−1, in] so the integer conversions below never overflow (any finite scale).
double Coord(const ResizeAxis& a, size_t i) {
  const double s = static_cast<double>(i) * a.scale + a.offset;
  const double hi = static_cast<double>(a.in);
  return s < -1.0 ? -1.0 : (s > hi ? hi : s);
}

}  // namespace

size_t ResizeNearestIndex(const ResizeAxis& a, NearestRounding r, size_t i) {
  const double s = Coord(a, i);
  double v;
  switch (r) {
    case NearestRounding::kFloor:
      v = std::floor(s + kCoordEps);
      break;
    case NearestRounding::kCeil:
      v = std::ceil(s - kCoordEps);
      break;
    case NearestRounding::kRoundPreferCeil:
      v = std::floor(s + 0.5 + kCoordEps);
      break;
    default:
      v = std::ceil(s - 0.5 - kCoordEps);
      break;  // round half down
  }
  if (v <= 0.0) return 0;
  const size_t k = static_cast<size_t>(v);
  return k >= a.in ? a.in - 1 : k;
}

ResizeTap ResizeLinearTap(const ResizeAxis& a, size_t i) {
  const double s = Coord(a, i);
  if (s <= 0.0) return {0, 0, 0.0f};
  const double f = std::floor(s);
  const size_t k = static_cast<size_t>(f);
  if (k + 1 >= a.in) return {a.in - 1, a.in - 1, 0.0f};
  return {k, k + 1, static_cast<float>(s - f)};
}

}  // namespace edgefold::kernels

namespace edgefold::kernels::ref {
namespace {

constexpr size_t kColumns = 64;

void NearestBlock(const ResizeParams& p, const float* x, float* y, size_t planes, size_t ow0,
                  size_t n) {
  size_t col[kColumns];
  for (size_t j = 0; j < n; ++j) col[j] = ResizeNearestIndex(p.w, p.rounding, ow0 + j);
  for (size_t oh = 0; oh < p.h.out; ++oh) {
    const size_t row = ResizeNearestIndex(p.h, p.rounding, oh) * p.w.in;
    for (size_t pl = 0; pl < planes; ++pl) {
      const float* xr = x + pl * p.h.in * p.w.in + row;
      float* yr = y + (pl * p.h.out + oh) * p.w.out + ow0;
      for (size_t j = 0; j < n; ++j) yr[j] = xr[col[j]];
    }
  }
}

// y = v0·(1 − fw) + v1·fw with v_k = x[h0][w_k]·(1 − fh) + x[h1][w_k]·fh: rows first, as the
// SIMD kernels blend them.
void LinearBlock(const ResizeParams& p, const float* x, float* y, size_t planes, size_t ow0,
                 size_t n) {
  ResizeTap col[kColumns];
  for (size_t j = 0; j < n; ++j) col[j] = ResizeLinearTap(p.w, ow0 + j);
  for (size_t oh = 0; oh < p.h.out; ++oh) {
    const ResizeTap r = ResizeLinearTap(p.h, oh);
    const float fh = r.frac, gh = 1.0f - r.frac;
    for (size_t pl = 0; pl < planes; ++pl) {
      const float* x0 = x + (pl * p.h.in + r.i0) * p.w.in;
      const float* x1 = x + (pl * p.h.in + r.i1) * p.w.in;
      float* yr = y + (pl * p.h.out + oh) * p.w.out + ow0;
      for (size_t j = 0; j < n; ++j) {
        const ResizeTap& c = col[j];
        const float v0 = x0[c.i0] * gh + x1[c.i0] * fh;
        const float v1 = x0[c.i1] * gh + x1[c.i1] * fh;
        yr[j] = v0 * (1.0f - c.frac) + v1 * c.frac;
      }
    }
  }
}

}  // namespace

void Resize2d(const ResizeParams& p, const float* x, float* y, size_t planes) {
  for (size_t ow0 = 0; ow0 < p.w.out; ow0 += kColumns) {
    const size_t n = std::min(kColumns, p.w.out - ow0);
    if (p.mode == ResizeMode::kNearest)
      NearestBlock(p, x, y, planes, ow0, n);
    else
      LinearBlock(p, x, y, planes, ow0, n);
  }
}

}  // namespace edgefold::kernels::ref
