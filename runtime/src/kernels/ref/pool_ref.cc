#include <algorithm>
#include <cmath>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// Max:     y = max over in-bounds taps x[oh·sh − pt + r·dh, ow·sw − pl + t·dw]
// Average: y = Σ in-bounds taps / (count_include_pad ? kh·kw : in-bounds count)
// A window with no in-bounds tap gives 0.
void Pool2d(const Pool2dParams& p, const float* x, float* y, size_t planes) {
  const long in_h = static_cast<long>(p.in_h), in_w = static_cast<long>(p.in_w);
  for (size_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        float acc = p.kind == PoolKind::kMax ? -INFINITY : 0.0f;
        size_t count = 0;
        for (size_t r = 0; r < p.kh; ++r) {
          const long ih =
              static_cast<long>(oh * p.stride_h + r * p.dilation_h) - static_cast<long>(p.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          for (size_t t = 0; t < p.kw; ++t) {
            const long iw = static_cast<long>(ow * p.stride_w + t * p.dilation_w) -
                            static_cast<long>(p.pad_left);
            if (iw < 0 || iw >= in_w) continue;
            const float v = xp[ih * in_w + iw];
            acc = p.kind == PoolKind::kMax ? std::max(acc, v) : acc + v;
            ++count;
          }
        }
        if (p.kind == PoolKind::kAverage && count > 0) {
          acc /= static_cast<float>(p.count_include_pad ? p.kh * p.kw : count);
        }
        y[(pl * p.out_h + oh) * p.out_w + ow] = count > 0 ? acc : 0.0f;
      }
    }
  }
}

// y[c] = max_i x[c,i]   or   y[c] = (Σ_i x[c,i]) / spatial
void GlobalPool(PoolKind kind, const float* x, float* y, size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    const float* row = x + c * spatial;
    float acc = kind == PoolKind::kMax ? -INFINITY : 0.0f;
    for (size_t i = 0; i < spatial; ++i)
      acc = kind == PoolKind::kMax ? std::max(acc, row[i]) : acc + row[i];
    y[c] = kind == PoolKind::kMax ? acc : acc / static_cast<float>(spatial);
  }
}

}  // namespace edgefold::kernels::ref
