// StridedCopy (kernel_params.h): an odometer over the outer dims, the innermost dim as one
// run. Memory movement: every table shares this baseline-compiled code (like im2col).
#include <cstring>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

void CopyRun(const float* src, ptrdiff_t src_step, float* dst, ptrdiff_t dst_step, size_t n,
             bool accumulate) {
  if (!accumulate && src_step == 1 && dst_step == 1) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const float v = src[static_cast<ptrdiff_t>(j) * src_step];
    float& d = dst[static_cast<ptrdiff_t>(j) * dst_step];
    d = accumulate ? d + v : v;
  }
}

}  // namespace

void StridedCopy(const StridedCopyParams& p, const float* src, float* dst) {
  if (p.rank <= 0) {
    dst[0] = p.accumulate ? dst[0] + src[0] : src[0];
    return;
  }
  const int last = p.rank - 1;
  size_t runs = 1;
  for (int d = 0; d < last; ++d) runs *= p.dims[d];
  size_t index[kStridedCopyMaxRank] = {};
  ptrdiff_t s = 0, t = 0;
  for (size_t r = 0; r < runs; ++r) {
    CopyRun(src + s, p.src_step[last], dst + t, p.dst_step[last], p.dims[last], p.accumulate);
    for (int d = last - 1; d >= 0; --d) {
      s += p.src_step[d];
      t += p.dst_step[d];
      if (++index[d] < p.dims[d]) break;
      s -= p.src_step[d] * static_cast<ptrdiff_t>(p.dims[d]);
      t -= p.dst_step[d] * static_cast<ptrdiff_t>(p.dims[d]);
      index[d] = 0;
    }
  }
}

}  // namespace edgefold::kernels::ref
