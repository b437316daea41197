// The scalar level's depthwise convolution (Cortex-M and cores without SIMD):
// ref::Conv2dDepthwise with each output's window clipped to the image once, not tap by tap.
//
// y[c,oh,ow] = act( bias[c] + Σ_{r<kh} Σ_{t<kw} w[c,r,t] · x[c, oh·sh − pt + r·dh, ow·sw − pl + t·dw] )
// over the taps inside the image, summed from the bias in the reference's order (r, then t).
// 3×3 undilated windows inside the image (the interior block) run per channel with no clipping,
// written out with the weights in registers. Every other output's window is clipped once and
// then summed for all channels. The activation runs over y at the end.
#include <algorithm>

#include "kernels/reference.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::scalar {
namespace {

// The taps j < k whose input index start + j·dil lies in [0, in): [*lo, *hi).
void TapRange(long start, size_t in, size_t dil, size_t k, long* lo, long* hi) {
  const long d = static_cast<long>(dil), n = static_cast<long>(in), kl = static_cast<long>(k);
  const long first = start >= 0 ? 0 : (d - 1 - start) / d;
  const long end = start >= n ? 0 : (n - start + d - 1) / d;
  *lo = std::min(first, kl);
  *hi = std::max(*lo, std::min(end, kl));
}

// The outputs o < out whose 3-tap window o·stride − pad + {0, 1, 2} lies in [0, in): [*lo, *hi).
void InsideRange3(size_t in, size_t pad, size_t stride, size_t out, long* lo, long* hi) {
  const long last = static_cast<long>(in + pad) - 3;  // o·stride ≤ last
  const long s = static_cast<long>(stride), o = static_cast<long>(out);
  *lo = std::min(static_cast<long>(pad + stride - 1) / s, o);
  *hi = std::max(*lo, last < 0 ? 0 : std::min(last / s + 1, o));
}

struct Block {
  long oh_lo = 0, oh_hi = 0, ow_lo = 0, ow_hi = 0;  // outputs [oh_lo, oh_hi) × [ow_lo, ow_hi)
};

// The interior block of one channel: 3×3 windows inside the image, dilation 1. Out of line: the
// caller's loops would take the registers it needs.
__attribute__((noinline)) void InteriorBlock3x3(const Conv2dShape& s, const Block& blk,
                                                const float* x_c, const float* w_c, float b,
                                                float* y_c) {
  const float w0 = w_c[0], w1 = w_c[1], w2 = w_c[2], w3 = w_c[3], w4 = w_c[4], w5 = w_c[5],
              w6 = w_c[6], w7 = w_c[7], w8 = w_c[8];
  const size_t in_w = s.in_w, sw = s.stride_w;
  for (long oh = blk.oh_lo; oh < blk.oh_hi; ++oh) {
    const long ih0 = oh * static_cast<long>(s.stride_h) - static_cast<long>(s.pad_top);
    const long iw0 = blk.ow_lo * static_cast<long>(sw) - static_cast<long>(s.pad_left);
    const float* x0 = x_c + ih0 * static_cast<long>(in_w) + iw0;
    float* y = y_c + oh * static_cast<long>(s.out_w);
    for (long ow = blk.ow_lo; ow < blk.ow_hi; ++ow, x0 += sw) {
      const float* x1 = x0 + in_w;
      const float* x2 = x1 + in_w;
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
}

// Output (oh, ow) of every channel, its window clipped to the image once. Out of line, the
// tap loops written with pointers: inlined into the caller's loops they spilled every operand.
__attribute__((noinline)) void BorderOutput(const Conv2dShape& s, const float* x, const float* w,
                                            const float* bias, long oh, long ow, float* y) {
  const long ih0 = oh * static_cast<long>(s.stride_h) - static_cast<long>(s.pad_top);
  const long iw0 = ow * static_cast<long>(s.stride_w) - static_cast<long>(s.pad_left);
  long r0 = 0, r1 = 0, t0 = 0, t1 = 0;
  TapRange(ih0, s.in_h, s.dilation_h, s.kh, &r0, &r1);
  TapRange(iw0, s.in_w, s.dilation_w, s.kw, &t0, &t1);
  const long in_w = static_cast<long>(s.in_w), kw = static_cast<long>(s.kw),
             dh = static_cast<long>(s.dilation_h);
  const long rows = r1 - r0, cols = t1 - t0, dw = static_cast<long>(s.dilation_w);
  const long x_next_row = dh * in_w - cols * dw, w_next_row = kw - cols;  // after a row's taps
  const size_t x_plane = ConvXPlane(s), y_plane = ConvYPlane(s), taps = s.kh * s.kw;
  // The first tap of channel 0 (not read when the window misses the image: rows or cols = 0).
  x += (ih0 + r0 * dh) * in_w + iw0 + t0 * dw;
  w += r0 * kw + t0;
  y += oh * static_cast<long>(s.out_w) + ow;
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
  Block blk;  // empty unless 3×3 undilated
  if (s.kh == 3 && s.kw == 3 && s.dilation_h == 1 && s.dilation_w == 1) {
    InsideRange3(s.in_h, s.pad_top, s.stride_h, s.out_h, &blk.oh_lo, &blk.oh_hi);
    InsideRange3(s.in_w, s.pad_left, s.stride_w, s.out_w, &blk.ow_lo, &blk.ow_hi);
    if (blk.ow_hi == blk.ow_lo) blk.oh_hi = blk.oh_lo;
  }
  for (size_t c = 0; blk.oh_hi > blk.oh_lo && c < s.out_c; ++c)
    InteriorBlock3x3(s, blk, x + c * ConvXPlane(s), w + c * 9, bias != nullptr ? bias[c] : 0.0f,
                     y + c * ConvYPlane(s));
  const long out_h = static_cast<long>(s.out_h), out_w = static_cast<long>(s.out_w);
  for (long oh = 0; oh < out_h; ++oh)
    for (long ow = 0; ow < out_w; ++ow) {
      if (oh >= blk.oh_lo && oh < blk.oh_hi && ow == blk.ow_lo)
        ow = blk.ow_hi;  // the interior block is done
      if (ow < out_w) BorderOutput(s, x, w, bias, oh, ow, y);
    }
  if (act.kind != ActKind::kNone)
    for (size_t c = 0; c < s.out_c; ++c) {
      float* y_c = y + c * ConvYPlane(s);
      ref::ActivationKernel(y_c, y_c, s.out_h * s.out_w, act);
    }
}

}  // namespace edgefold::kernels::scalar
