// The scalar table's depthwise convolution (Cortex-M and cores without SIMD):
// ref::Conv2dDepthwise with each output's window clipped to the image once, not tap by tap.
//
// y[c,oh,ow] = act( bias[c] + Σ_{r<kh} Σ_{t<kw} w[c,r,t] · x[c, oh·sh − pt + r·dh, ow·sw − pl + t·dw] )
// over the taps inside the image, summed from the bias in the reference's order (r, then t).
// Per output row the taps' rows are clipped once; outputs whose window lies inside the image's
// columns need no clipping at all, and a 3×3 undilated window there is written out with its
// weights in registers. Activations other than None run over each output row once written.
#include <algorithm>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

// The taps j < k whose input index start + j·dil lies in [0, in): [*lo, *hi).
void TapRange(long start, long in, long dil, long k, long* lo, long* hi) {
  const long first = start >= 0 ? 0 : (dil - 1 - start) / dil;
  const long end = start >= in ? 0 : (in - start + dil - 1) / dil;
  *lo = std::min(first, k);
  *hi = std::max(*lo, std::min(end, k));
}

// acc + Σ_{r<rows} Σ_{t<cols} w[r·kw + t] · x[r·row_step + t·dw], x and w at the first tap.
float WindowSum(float acc, const float* x, const float* w, long rows, long cols, long row_step, long dw, long kw) {
  for (long r = 0; r < rows; ++r, x += row_step, w += kw)
    for (long t = 0; t < cols; ++t) acc += w[t] * x[t * dw];
  return acc;
}

struct Geometry {
  long in_h, in_w, kh, kw, sh, sw, dh, dw, pt, pl;
  long ow_lo, ow_hi;   // outputs whose window lies inside the image's columns
};

Geometry MakeGeometry(const Conv2dShape& s) {
  Geometry g{static_cast<long>(s.in_h),       static_cast<long>(s.in_w),       static_cast<long>(s.kh),
             static_cast<long>(s.kw),         static_cast<long>(s.stride_h),   static_cast<long>(s.stride_w),
             static_cast<long>(s.dilation_h), static_cast<long>(s.dilation_w), static_cast<long>(s.pad_top),
             static_cast<long>(s.pad_left),   0,                               0};
  const long out_w = static_cast<long>(s.out_w);
  const long last = g.in_w - 1 + g.pl - (g.kw - 1) * g.dw;   // ow·sw ≤ last: the window ends inside
  g.ow_lo = std::min((g.pl + g.sw - 1) / g.sw, out_w);         // ow·sw ≥ pl: it starts inside
  g.ow_hi = std::max(g.ow_lo, last < 0 ? 0 : std::min(last / g.sw + 1, out_w));
  return g;
}

// One output row of one channel: y[ow] for ow < out_w, before the activation.
void DepthwiseRow(const Geometry& g, const float* x_c, const float* w_c, float b, long oh, long out_w, float* y) {
  const long ih0 = oh * g.sh - g.pt;
  long r0 = 0, r1 = 0;
  TapRange(ih0, g.in_h, g.dh, g.kh, &r0, &r1);
  const long row_step = g.dh * g.in_w;
  const float* x_r = x_c + (ih0 + r0 * g.dh) * g.in_w;   // the first tap row (only read when r1 > r0)
  const float* w_r = w_c + r0 * g.kw;
  long ow = 0;
  for (; ow < g.ow_lo; ++ow) {   // left border: columns clipped too
    const long iw0 = ow * g.sw - g.pl;
    long t0 = 0, t1 = 0;
    TapRange(iw0, g.in_w, g.dw, g.kw, &t0, &t1);
    y[ow] = WindowSum(b, x_r + (iw0 + t0 * g.dw), w_r + t0, r1 - r0, t1 - t0, row_step, g.dw, g.kw);
  }
  if (g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1 && r0 == 0 && r1 == 3) {
    const float w0 = w_c[0], w1 = w_c[1], w2 = w_c[2], w3 = w_c[3], w4 = w_c[4], w5 = w_c[5], w6 = w_c[6],
                w7 = w_c[7], w8 = w_c[8];
    for (; ow < g.ow_hi; ++ow) {
      const float* x0 = x_r + (ow * g.sw - g.pl);
      const float* x1 = x0 + g.in_w;
      const float* x2 = x1 + g.in_w;
      float acc = b;
      acc += w0 * x0[0];
      acc += w1 * x0[1];
      acc += w2 * x0[2];
      acc += w3 * x1[0];
      acc += w4 * x1[1];
      acc += w5 * x1[2];
      acc += w6 * x2[0];
      acc += w7 * x2[1];
      acc += w8 * x2[2];
      y[ow] = acc;
    }
  }
  for (; ow < g.ow_hi; ++ow)   // interior columns
    y[ow] = WindowSum(b, x_r + (ow * g.sw - g.pl), w_r, r1 - r0, g.kw, row_step, g.dw, g.kw);
  for (; ow < out_w; ++ow) {   // right border
    const long iw0 = ow * g.sw - g.pl;
    long t0 = 0, t1 = 0;
    TapRange(iw0, g.in_w, g.dw, g.kw, &t0, &t1);
    y[ow] = WindowSum(b, x_r + (iw0 + t0 * g.dw), w_r + t0, r1 - r0, t1 - t0, row_step, g.dw, g.kw);
  }
}

}  // namespace

void Conv2dDepthwiseClipped(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                            Activation act, float* y) {
  const Geometry g = MakeGeometry(s);
  const long out_w = static_cast<long>(s.out_w);
  for (size_t c = 0; c < s.out_c; ++c) {
    const float* x_c = x + c * s.in_h * s.in_w;
    const float* w_c = w + c * s.kh * s.kw;
    const float b = bias != nullptr ? bias[c] : 0.0f;
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      float* y_row = y + (c * s.out_h + oh) * s.out_w;
      DepthwiseRow(g, x_c, w_c, b, static_cast<long>(oh), out_w, y_row);
      if (act.kind != ActKind::kNone) ActivationKernel(y_row, y_row, s.out_w, act);
    }
  }
}

}  // namespace edgefold::kernels::ref
