// Backward of the windowed kernels of one image: depthwise conv and 2-D pooling.
#include <cmath>

#include "kernels/train_reference.h"

namespace edgefold::kernels::ref {
namespace {

// Input offset of tap (r, t) of output (oh, ow), or −1 when it falls in the padding.
long TapOffset(size_t oh, size_t ow, size_t r, size_t t, size_t sh, size_t sw, size_t dh, size_t dw,
               size_t pt, size_t pl, size_t in_h, size_t in_w) {
  const long ih = static_cast<long>(oh * sh + r * dh) - static_cast<long>(pt);
  const long iw = static_cast<long>(ow * sw + t * dw) - static_cast<long>(pl);
  if (ih < 0 || iw < 0 || ih >= static_cast<long>(in_h) || iw >= static_cast<long>(in_w)) return -1;
  return ih * static_cast<long>(in_w) + iw;
}

}  // namespace

// Forward (ref::Conv2dDepthwise, no bias/act): y[c,o] = Σ_taps w[c,r,t]·x[c, tap(o,r,t)], so
//   dx[c, tap] += w[c,r,t]·dy[c,o]     dw[c,r,t] += x[c, tap]·dy[c,o]   (both accumulated).
void Conv2dDepthwiseBackward(const Conv2dShape& s, const float* x, const float* w, const float* dy,
                             float* dx, float* dw) {
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t c = 0; c < s.out_c; ++c) {
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      for (size_t ow = 0; ow < s.out_w; ++ow) {
        const float g = dy[c * out_plane + oh * s.out_w + ow];
        for (size_t r = 0; r < s.kh; ++r) {
          for (size_t t = 0; t < s.kw; ++t) {
            const long off = TapOffset(oh, ow, r, t, s.stride_h, s.stride_w, s.dilation_h,
                                       s.dilation_w, s.pad_top, s.pad_left, s.in_h, s.in_w);
            if (off < 0) continue;
            const size_t wi = (c * s.kh + r) * s.kw + t;
            dx[c * in_plane + off] += w[wi] * g;
            if (dw != nullptr) dw[wi] += x[c * in_plane + off] * g;
          }
        }
      }
    }
  }
}

// Max: dy goes to the first in-bounds tap holding the window maximum (the one ref::Pool2d's
// std::max keeps). Average: each in-bounds tap gets dy / (count_include_pad ? kh·kw : count).
// Windows with no in-bounds tap pass nothing. dx is accumulated into. Only Max reads x (the
// trainer does not keep an average pool's input for its backward).
void Pool2dBackward(const Pool2dParams& p, const float* x, const float* dy, float* dx,
                    size_t planes) {
  const size_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  for (size_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * in_plane;
    float* dxp = dx + pl * in_plane;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        const float g = dy[pl * out_plane + oh * p.out_w + ow];
        long best = -1;
        size_t count = 0;
        for (size_t r = 0; r < p.kh; ++r) {
          for (size_t t = 0; t < p.kw; ++t) {
            const long off = TapOffset(oh, ow, r, t, p.stride_h, p.stride_w, p.dilation_h,
                                       p.dilation_w, p.pad_top, p.pad_left, p.in_h, p.in_w);
            if (off < 0) continue;
            ++count;
            if (p.kind == PoolKind::kMax && (best < 0 || xp[off] > xp[best])) best = off;
          }
        }
        if (count == 0) continue;
        if (p.kind == PoolKind::kMax) {
          dxp[best] += g;
          continue;
        }
        const float share = g / static_cast<float>(p.count_include_pad ? p.kh * p.kw : count);
        for (size_t r = 0; r < p.kh; ++r)
          for (size_t t = 0; t < p.kw; ++t) {
            const long off = TapOffset(oh, ow, r, t, p.stride_h, p.stride_w, p.dilation_h,
                                       p.dilation_w, p.pad_top, p.pad_left, p.in_h, p.in_w);
            if (off >= 0) dxp[off] += share;
          }
      }
    }
  }
}

}  // namespace edgefold::kernels::ref
