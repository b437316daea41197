// The scalar table's depthwise convolution (Cortex-M and cores without SIMD):
// ref::Conv2dDepthwise with each output's window clipped to the image once, not tap by tap.
//
// y[c,oh,ow] = act( bias[c] + Σ_{r<kh} Σ_{t<kw} w[c,r,t] · x[c, oh·sh − pt + r·dh, ow·sw − pl + t·dw] )
// over the taps inside the image, summed from the bias in the reference's order (r, then t).
// 3×3 undilated windows inside the image (the interior block) run per channel with no clipping,
// written out with the weights in registers. Every other output's window is clipped once and
// then summed for all channels. The activation runs over y at the end.
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

// The outputs o < out whose whole window, o·stride − pad + [0, (k−1)·dil], lies in [0, in):
// [*lo, *hi), *hi ≥ *lo.
void InsideRange(long in, long pad, long k, long dil, long stride, long out, long* lo, long* hi) {
  const long last = in - 1 + pad - (k - 1) * dil;   // o·stride ≤ last
  *lo = std::min((pad + stride - 1) / stride, out);
  *hi = std::max(*lo, last < 0 ? 0 : std::min(last / stride + 1, out));
}

struct Geometry {
  long in_h, in_w, out_h, out_w, kh, kw, sh, sw, dh, dw, pt, pl;
  long oh_lo, oh_hi, ow_lo, ow_hi;   // the interior block (3×3 undilated windows only, else empty)
};

Geometry MakeGeometry(const Conv2dShape& s) {
  Geometry g;
  g.in_h = static_cast<long>(s.in_h), g.in_w = static_cast<long>(s.in_w);
  g.out_h = static_cast<long>(s.out_h), g.out_w = static_cast<long>(s.out_w);
  g.kh = static_cast<long>(s.kh), g.kw = static_cast<long>(s.kw);
  g.sh = static_cast<long>(s.stride_h), g.sw = static_cast<long>(s.stride_w);
  g.dh = static_cast<long>(s.dilation_h), g.dw = static_cast<long>(s.dilation_w);
  g.pt = static_cast<long>(s.pad_top), g.pl = static_cast<long>(s.pad_left);
  g.oh_lo = g.oh_hi = g.ow_lo = g.ow_hi = 0;
  if (g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1) {
    InsideRange(g.in_h, g.pt, g.kh, g.dh, g.sh, g.out_h, &g.oh_lo, &g.oh_hi);
    InsideRange(g.in_w, g.pl, g.kw, g.dw, g.sw, g.out_w, &g.ow_lo, &g.ow_hi);
  }
  return g;
}

// The interior block of one channel: 3×3 windows inside the image, dilation 1.
void InteriorBlock3x3(const Geometry& g, const float* x_c, const float* w_c, float b, float* y_c) {
  const float w0 = w_c[0], w1 = w_c[1], w2 = w_c[2], w3 = w_c[3], w4 = w_c[4], w5 = w_c[5], w6 = w_c[6],
              w7 = w_c[7], w8 = w_c[8];
  for (long oh = g.oh_lo; oh < g.oh_hi; ++oh) {
    const float* x0 = x_c + (oh * g.sh - g.pt) * g.in_w + (g.ow_lo * g.sw - g.pl);
    for (long ow = g.ow_lo; ow < g.ow_hi; ++ow, x0 += g.sw) {
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
      y_c[oh * g.out_w + ow] = acc;
    }
  }
}

// Output (oh, ow) of every channel, its window clipped to the image once. Out of line, the
// tap loops written with pointers: inlined into the caller's loops they spilled every operand.
__attribute__((noinline)) void BorderOutput(const Geometry& g, const Conv2dShape& s, const float* x, const float* w,
                                            const float* bias, long oh, long ow, float* y) {
  const long ih0 = oh * g.sh - g.pt, iw0 = ow * g.sw - g.pl;
  long r0 = 0, r1 = 0, t0 = 0, t1 = 0;
  TapRange(ih0, g.in_h, g.dh, g.kh, &r0, &r1);
  TapRange(iw0, g.in_w, g.dw, g.kw, &t0, &t1);
  const long rows = r1 - r0, cols = t1 - t0, dw = g.dw;
  const long x_next_row = g.dh * g.in_w - cols * dw, w_next_row = g.kw - cols;   // after a row's taps
  const size_t x_plane = s.in_h * s.in_w, y_plane = s.out_h * s.out_w, taps = s.kh * s.kw;
  // The first tap of channel 0 (not read when the window misses the image: rows or cols = 0).
  x += (ih0 + r0 * g.dh) * g.in_w + iw0 + t0 * dw;
  w += r0 * g.kw + t0;
  y += oh * g.out_w + ow;
  for (size_t c = 0; c < s.out_c; ++c, x += x_plane, w += taps, y += y_plane) {
    float acc = bias != nullptr ? bias[c] : 0.0f;
    const float* xp = x;
    const float* wp = w;
    for (long r = rows; r > 0; --r, xp += x_next_row, wp += w_next_row)
      for (const float* w_end = wp + cols; wp != w_end; ++wp, xp += dw) acc += *wp * *xp;
    *y = acc;
  }
}

}  // namespace

void Conv2dDepthwiseClipped(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                            Activation act, float* y) {
  const Geometry g = MakeGeometry(s);
  for (size_t c = 0; g.oh_hi > g.oh_lo && g.ow_hi > g.ow_lo && c < s.out_c; ++c)
    InteriorBlock3x3(g, x + c * s.in_h * s.in_w, w + c * s.kh * s.kw, bias != nullptr ? bias[c] : 0.0f,
                  y + c * s.out_h * s.out_w);
  for (long oh = 0; oh < g.out_h; ++oh) {
    const bool inner_row = oh >= g.oh_lo && oh < g.oh_hi;
    for (long ow = 0; ow < g.out_w; ++ow) {
      if (inner_row && ow == g.ow_lo && g.ow_hi > g.ow_lo) ow = g.ow_hi;   // the interior block is done
      if (ow < g.out_w) BorderOutput(g, s, x, w, bias, oh, ow, y);
    }
  }
  if (act.kind != ActKind::kNone) ActivationKernel(y, y, s.out_c * s.out_h * s.out_w, act);
}

}  // namespace edgefold::kernels::ref
