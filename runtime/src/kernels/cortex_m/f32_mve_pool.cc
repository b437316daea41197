// Helium (MVE-F) float pooling (f32_mve.h): ref::Pool2d's bits with four planes a vector, one
// lane a plane. The taps of an output inside the image are the same for every plane, so each
// output's window is clipped once for four planes; each lane then takes exactly the reference's
// steps in its order (acc + v, or max as std::max: v where acc < v), the average divided per
// lane by the scalar VDIV (Helium has no vector divide; a reciprocal would round differently).
#include "kernels/cortex_m/f32_mve.h"

#if defined(EDGEFOLD_HAVE_F32_MVE)
#include <arm_mve.h>

#include <cmath>

namespace edgefold::kernels::cortex_m_mve {

void Pool2dF32(const Pool2dParams& p, const float* x, float* y, size_t planes) {
  const long in_h = static_cast<long>(p.in_h), in_w = static_cast<long>(p.in_w);
  const size_t x_plane = p.in_h * p.in_w, y_plane = p.out_h * p.out_w;
  const uint32x4_t lane = vidupq_n_u32(0, 1);
  const uint32x4_t x_off = vmulq_n_u32(lane, static_cast<uint32_t>(x_plane));  // in floats
  const uint32x4_t y_off = vmulq_n_u32(lane, static_cast<uint32_t>(y_plane));
  const bool max = p.kind == PoolKind::kMax;
  for (size_t p0 = 0; p0 < planes; p0 += 4) {
    const mve_pred16_t live = vctp32q(static_cast<uint32_t>(planes - p0));
    const float* xp = x + p0 * x_plane;
    float* yp = y + p0 * y_plane;
    for (size_t oh = 0; oh < p.out_h; ++oh)
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        float32x4_t acc = vdupq_n_f32(max ? -INFINITY : 0.0f);
        size_t count = 0;
        for (size_t r = 0; r < p.kh; ++r) {
          const long ih =
              static_cast<long>(oh * p.stride_h + r * p.dilation_h) - static_cast<long>(p.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          for (size_t t = 0; t < p.kw; ++t) {
            const long iw = static_cast<long>(ow * p.stride_w + t * p.dilation_w) -
                            static_cast<long>(p.pad_left);
            if (iw < 0 || iw >= in_w) continue;
            const float32x4_t v =
                vldrwq_gather_shifted_offset_z_f32(xp + ih * in_w + iw, x_off, live);
            acc = max ? vpselq_f32(v, acc, vcmpltq_f32(acc, v)) : vaddq_f32(acc, v);
            ++count;
          }
        }
        if (count == 0) {
          acc = vdupq_n_f32(0.0f);
        } else if (!max) {
          const float n = static_cast<float>(p.count_include_pad ? p.kh * p.kw : count);
          acc = vsetq_lane_f32(vgetq_lane_f32(acc, 0) / n, acc, 0);
          acc = vsetq_lane_f32(vgetq_lane_f32(acc, 1) / n, acc, 1);
          acc = vsetq_lane_f32(vgetq_lane_f32(acc, 2) / n, acc, 2);
          acc = vsetq_lane_f32(vgetq_lane_f32(acc, 3) / n, acc, 3);
        }
        vstrwq_scatter_shifted_offset_p_f32(yp + oh * p.out_w + ow, y_off, acc, live);
      }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
