#include "kernels/conv/conv_expand.h"

#include <algorithm>
#include <cstring>

#include "base/size_math.h"

namespace edgefold::kernels {
namespace {

size_t WindowExtent(const Conv2dShape& s) { return (s.kh - 1) * s.dilation_h + 1; }

// Rows of t the band of output rows [oy0, oy1) reads: [lo, hi), clipped to the image.
void BandRows(const Conv2dShape& s, size_t oy0, size_t oy1, size_t* lo, size_t* hi) {
  const size_t top = oy0 * s.stride_h, bottom = (oy1 - 1) * s.stride_h + WindowExtent(s);
  *lo = top > s.pad_top ? top - s.pad_top : 0;
  *hi = std::min(s.in_h, bottom > s.pad_top ? bottom - s.pad_top : 0);
}

}  // namespace

bool ExpandFusable(const Conv2dShape& s) {
  const size_t extent = WindowExtent(s);
  if (s.in_h == 0 || s.in_w == 0 || s.out_h == 0 || s.out_w == 0 || s.pad_top >= extent)
    return false;
  // The last output row reads at least one row of t (bottom padding below the extent too).
  size_t lo = 0, hi = 0;
  BandRows(s, s.out_h - 1, s.out_h, &lo, &hi);
  return lo < hi;
}

ExpandBands MakeExpandBands(const Conv2dShape& s, size_t out_rows) {
  ExpandBands b;
  b.out_rows = std::max<size_t>(1, std::min(out_rows, s.out_h));
  b.rows_cap = std::min(s.in_h, (b.out_rows - 1) * s.stride_h + WindowExtent(s));
  b.scratch_bytes = MulSat(MulSat(MulSat(s.in_c, b.rows_cap), s.in_w), sizeof(float));
  return b;
}

size_t ExpandBandRowsWithin(const Conv2dShape& s, size_t bytes) {
  return std::max<size_t>(1, ExpandBandRowsFor(s, bytes));
}

size_t ExpandBandRowsFor(const Conv2dShape& s, size_t bytes) {
  // Closed form, not a search: a hostile model's out_h can be large. rows_cap(r) =
  // min(in_h, (r − 1)·sh + extent) rows of in_c·in_w floats must fit `bytes`.
  const size_t row_bytes = MulSat(MulSat(s.in_c, s.in_w), sizeof(float));
  if (row_bytes == 0 || row_bytes == kSizeSaturated) return 0;
  const size_t fit = bytes / row_bytes, extent = WindowExtent(s);
  if (fit >= s.in_h) return s.out_h;  // the whole plane
  if (fit < extent) return 0;
  return std::min(s.out_h, (fit - extent) / s.stride_h + 1);
}

void Conv2dExpandDepthwise(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                           const ExpandBands& bands, const PointwiseExpansion& e, const float* x,
                           const float* w, const float* bias, Activation act, float* y,
                           float* scratch, size_t c_begin, size_t c_end) {
  c_end = std::min(c_end, s.in_c);
  if (c_begin >= c_end) return;
  const size_t width = s.in_w, slot = bands.rows_cap * width, out_plane = s.out_h * s.out_w;
  float* slots = scratch + c_begin * slot;
  GemmParams gp;
  gp.m = c_end - c_begin;
  gp.k = e.in_c;
  gp.lda = e.in_c;
  gp.ldb = s.in_h * width;
  gp.ldc = slot;
  gp.bias = e.bias != nullptr ? e.bias + c_begin : nullptr;
  gp.bias_per_row = true;
  gp.act = e.act;
  Conv2dShape band = s;
  band.in_c = band.out_c = band.group = c_end - c_begin;
  band.x_plane = slot;
  band.y_plane = out_plane;
  size_t have_lo = 0, have_hi = 0;  // rows of t in the slots, from the slot's first row
  for (size_t oy0 = 0; oy0 < s.out_h; oy0 += bands.out_rows) {
    const size_t oy1 = std::min(s.out_h, oy0 + bands.out_rows);
    size_t lo = 0, hi = 0;
    BandRows(s, oy0, oy1, &lo, &hi);
    // Rows [lo, have_hi) are already there: slide them to the top of each slot.
    const size_t keep = lo < have_hi ? have_hi - lo : 0;
    if (keep > 0 && lo > have_lo)
      for (size_t c = 0; c < gp.m; ++c)
        std::memmove(slots + c * slot, slots + c * slot + (lo - have_lo) * width,
                     keep * width * sizeof(float));
    if (hi > lo + keep) {
      gp.n = (hi - lo - keep) * width;
      t.gemm(gp, e.w + c_begin * e.in_c, x + (lo + keep) * width, slots + keep * width);
    }
    have_lo = lo, have_hi = hi;
    band.in_h = hi - lo;
    band.out_h = oy1 - oy0;
    band.pad_top = lo + s.pad_top - oy0 * s.stride_h;  // > 0 only in the first band
    ct.conv2d_depthwise(band, slots, w + c_begin * s.kh * s.kw,
                        bias != nullptr ? bias + c_begin : nullptr, act,
                        y + c_begin * out_plane + oy0 * s.out_w);
  }
}

}  // namespace edgefold::kernels
