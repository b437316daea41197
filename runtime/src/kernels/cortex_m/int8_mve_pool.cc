// Helium (MVE) int8 average pooling (int8_mve.h): ref::Pool2dS8's bytes. Each output's window is
// clipped to the image once (rows and columns of in-bounds taps: the reference's count), each of
// its rows summed 16 bytes a vector (VADDVA; the last vector a zeroing predicated load), then
// the rounded mean as the reference takes it. Max pooling and dilated windows run the portable
// code.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>

#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// sum / count rounded half away from zero (count > 0), as ref::Pool2dS8's RoundedMean.
int8_t RoundedMean(int32_t sum, int32_t count) {
  const int32_t q =
      sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
  return static_cast<int8_t>(q);
}

// [lo, hi) of the in-bounds input positions of the window starting at `start` (may be < 0).
inline void Clip(long start, size_t k, size_t in, size_t* lo, size_t* hi) {
  const long end = start + static_cast<long>(k);
  *lo = static_cast<size_t>(std::max(start, 0L));
  *hi = static_cast<size_t>(std::max(std::min(end, static_cast<long>(in)), static_cast<long>(*lo)));
}

}  // namespace

void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
              size_t planes) {
  if (p.kind != PoolKind::kAverage || p.dilation_h != 1 || p.dilation_w != 1) {
    ref::Pool2dS8(p, zero_point, x, y, planes);
    return;
  }
  const int32_t window = static_cast<int32_t>(p.kh * p.kw);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      size_t r0, r1;
      Clip(static_cast<long>(oh * p.stride_h) - static_cast<long>(p.pad_top), p.kh, p.in_h, &r0,
           &r1);
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        size_t c0, c1;
        Clip(static_cast<long>(ow * p.stride_w) - static_cast<long>(p.pad_left), p.kw, p.in_w, &c0,
             &c1);
        const size_t cols = c1 - c0;
        const int32_t count = static_cast<int32_t>((r1 - r0) * cols);
        int32_t acc = 0;
        for (size_t ih = r0; ih < r1 && cols != 0; ++ih) {
          const int8_t* row = xp + ih * p.in_w + c0;
          for (size_t j = 0; j < cols; j += 16)
            acc = vaddvaq_s8(acc, vldrbq_z_s8(row + j, vctp8q(static_cast<uint32_t>(cols - j))));
        }
        int8_t out = static_cast<int8_t>(zero_point);
        if (count > 0) {
          const int32_t taps = p.count_include_pad ? window : count;
          out = RoundedMean(acc + (taps - count) * zero_point, taps);
        }
        y[(pl * p.out_h + oh) * p.out_w + ow] = out;
      }
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
