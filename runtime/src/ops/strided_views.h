// The strided copies behind the data-movement ops (kernels::StridedCopyParams), built from the
// tensors by Prepare and, reversed, by the backward passes: one description per op, one loop
// (KernelTable::strided_copy) for all of them.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "model/model_types.h"

namespace edgefold::internal {

static_assert(kernels::kStridedCopyMaxRank >= kMaxRank, "strided copies must cover every rank");

// Row-major element strides of t; returns its element count.
inline size_t RowMajorStrides(const TensorInfo& t, size_t* stride) {
  size_t step = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    stride[d] = step;
    step *= static_cast<size_t>(t.shape[d]);
  }
  return step;
}

// Visits y in order: y[i] = x[Σ_d i_d·src_step[d]], with src_step as given per output dim.
inline kernels::StridedCopyParams GatherInto(const TensorInfo& y, const ptrdiff_t* src_step) {
  kernels::StridedCopyParams p;
  p.rank = y.rank;
  size_t dst[kMaxRank];
  RowMajorStrides(y, dst);
  for (int d = 0; d < y.rank; ++d) {
    p.dims[d] = static_cast<size_t>(y.shape[d]);
    p.src_step[d] = src_step[d];
    p.dst_step[d] = static_cast<ptrdiff_t>(dst[d]);
  }
  return p;
}

// Transpose x → y: y[i_0..] = x[j] with j_{perm[d]} = i_d. perm must be a checked permutation.
inline kernels::StridedCopyParams TransposeCopy(const TensorInfo& x, const TensorInfo& y,
                                                const int32_t* perm) {
  size_t xs[kMaxRank];
  RowMajorStrides(x, xs);
  ptrdiff_t step[kMaxRank];
  for (int d = 0; d < y.rank; ++d) step[d] = static_cast<ptrdiff_t>(xs[perm[d]]);
  return GatherInto(y, step);
}

// Constant pad x → y's interior: x in order, written at y + *dst_offset with y's strides.
inline kernels::StridedCopyParams PadCopy(const TensorInfo& x, const TensorInfo& y,
                                          const int32_t* pads_begin, size_t* dst_offset) {
  kernels::StridedCopyParams p;
  p.rank = x.rank;
  size_t xs[kMaxRank], ys[kMaxRank];
  RowMajorStrides(x, xs);
  RowMajorStrides(y, ys);
  *dst_offset = 0;
  for (int d = 0; d < x.rank; ++d) {
    p.dims[d] = static_cast<size_t>(x.shape[d]);
    p.src_step[d] = static_cast<ptrdiff_t>(xs[d]);
    p.dst_step[d] = static_cast<ptrdiff_t>(ys[d]);
    *dst_offset += static_cast<size_t>(pads_begin[d]) * ys[d];
  }
  return p;
}

// y written in row-major order over the 6 `dims`, reading src_step per dim.
inline kernels::StridedCopyParams RowMajorGather6(const size_t* dims, const ptrdiff_t* src_step) {
  kernels::StridedCopyParams p;
  p.rank = 6;
  ptrdiff_t dst = 1;
  for (int d = 5; d >= 0; --d) {
    p.dims[d] = dims[d];
    p.src_step[d] = src_step[d];
    p.dst_step[d] = dst;
    dst *= static_cast<ptrdiff_t>(dims[d]);
  }
  return p;
}

// DepthToSpace (blocksize b) x[N, C·b², H, W] → y[N, C, H·b, W·b], y visited as
// [n, c, h, i, w, j] (= y[n, c, h·b + i, w·b + j]) reading
//   DCR: x[n, (i·b + j)·C + c, h, w]     CRD: x[n, c·b² + i·b + j, h, w].
// Shapes must have been checked (ops/depth_space.cc).
inline kernels::StridedCopyParams DepthToSpaceCopy(const TensorInfo& x, const TensorInfo& y,
                                                   int32_t b, bool crd) {
  const size_t n = x.shape[0], c = y.shape[1], h = x.shape[2], w = x.shape[3], bs = b;
  const ptrdiff_t plane = static_cast<ptrdiff_t>(h * w),
                  image = static_cast<ptrdiff_t>(x.shape[1]) * plane;
  const ptrdiff_t B = b, C = static_cast<ptrdiff_t>(c), W = static_cast<ptrdiff_t>(w);
  const size_t dims[6] = {n, c, h, bs, w, bs};
  const ptrdiff_t dcr[6] = {image, plane, W, B * C * plane, 1, C * plane};
  const ptrdiff_t crd_step[6] = {image, B * B * plane, W, B * plane, 1, plane};
  return RowMajorGather6(dims, crd ? crd_step : dcr);
}

// SpaceToDepth (blocksize b) x[N, C, H·b, W·b] → y[N, C·b², H, W], y visited as
// [n, i, j, c, h, w] (= y[n, (i·b + j)·C + c, h, w]) reading x[n, c, h·b + i, w·b + j].
inline kernels::StridedCopyParams SpaceToDepthCopy(const TensorInfo& x, const TensorInfo& y,
                                                   int32_t b) {
  const size_t n = x.shape[0], c = x.shape[1], oh = y.shape[2], ow = y.shape[3], bs = b;
  const ptrdiff_t W = x.shape[3], plane = static_cast<ptrdiff_t>(x.shape[2]) * W, B = b;
  const size_t dims[6] = {n, bs, bs, c, oh, ow};
  const ptrdiff_t step[6] = {static_cast<ptrdiff_t>(c) * plane, W, 1, plane, B * W, B};
  return RowMajorGather6(dims, step);
}

// The backward of a copy: the same positions, read from dy where it wrote y, accumulated into
// dx where it read x.
inline kernels::StridedCopyParams ReversedAccumulating(kernels::StridedCopyParams p) {
  for (int d = 0; d < p.rank; ++d) {
    const ptrdiff_t t = p.src_step[d];
    p.src_step[d] = p.dst_step[d];
    p.dst_step[d] = t;
  }
  p.accumulate = true;
  return p;
}

}  // namespace edgefold::internal
