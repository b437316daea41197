// StridedCopy (kernel_params.h): an odometer over the outer dims, the innermost dim as one
// run. Memory movement: every table shares this baseline-compiled code (like im2col).
#include <cstring>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

template <typename T>
void CopyRun(const T* src, ptrdiff_t src_step, T* dst, ptrdiff_t dst_step, size_t n,
             bool accumulate) {
  if (!accumulate && src_step == 1 && dst_step == 1) {
    std::memcpy(dst, src, n * sizeof(T));
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const T v = src[static_cast<ptrdiff_t>(j) * src_step];
    T& d = dst[static_cast<ptrdiff_t>(j) * dst_step];
    d = accumulate ? static_cast<T>(d + v) : v;
  }
}

// The same copy over fewer dims: extent-1 dims dropped, and a dim merged into the one before it
// where both are a single run in src and in dst (a channel shuffle's transpose of [C, 2, H, W]
// that keeps H, W then moves H·W-element runs, not W-element ones). Elements are visited in the
// same order, so an accumulating copy sums in the same order too.
StridedCopyParams Coalesced(const StridedCopyParams& p) {
  StridedCopyParams q;
  q.accumulate = p.accumulate;
  int r = 0;
  for (int d = 0; d < p.rank; ++d) {
    if (p.dims[d] == 1) continue;
    const auto n = static_cast<ptrdiff_t>(p.dims[d]);
    if (r > 0 && q.src_step[r - 1] == p.src_step[d] * n && q.dst_step[r - 1] == p.dst_step[d] * n) {
      q.dims[r - 1] *= p.dims[d];
      q.src_step[r - 1] = p.src_step[d];
      q.dst_step[r - 1] = p.dst_step[d];
      continue;
    }
    q.dims[r] = p.dims[d];
    q.src_step[r] = p.src_step[d];
    q.dst_step[r] = p.dst_step[d];
    ++r;
  }
  q.rank = r;
  return q;
}

template <typename T>
void StridedCopyT(const StridedCopyParams& params, const T* src, T* dst) {
  const StridedCopyParams p = Coalesced(params);
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

}  // namespace

void StridedCopy(const StridedCopyParams& p, const float* src, float* dst) {
  StridedCopyT(p, src, dst);
}

void StridedCopyS8(const StridedCopyParams& p, const int8_t* src, int8_t* dst) {
  StridedCopyT(p, src, dst);
}

}  // namespace edgefold::kernels::ref
