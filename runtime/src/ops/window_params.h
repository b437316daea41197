// Builds the kernel-level shapes of windowed ops from options and tensors. Shared by the
// ops' Prepare (inference) and the trainer's backward pass, so both read the same geometry.
#pragma once
#include "kernels/kernel_params.h"
#include "model/model_types.h"

namespace edgefold::internal {

// Views a rank-3 (N, C, L) tensor as (N, C, 1, L).
inline void SpatialDims(const TensorInfo& t, size_t* h, size_t* w) {
  *h = (t.rank == 4) ? static_cast<size_t>(t.shape[2]) : 1;
  *w = static_cast<size_t>(t.shape[t.rank - 1]);
}

// A ConvInt8's window and groups as ConvOptions (its options keep them beside the clamp).
inline ConvOptions ConvOptionsOfInt8(const OpOptions& o) {
  ConvOptions c{};
  for (int i = 0; i < 2; ++i) {
    c.kernel[i] = o.int8.kernel[i];
    c.strides[i] = o.int8.strides[i];
    c.dilations[i] = o.int8.dilations[i];
  }
  for (int i = 0; i < 4; ++i) c.pads[i] = o.int8.pads[i];
  c.group = o.int8.group;
  return c;
}

inline kernels::Conv2dShape MakeConv2dShape(const ConvOptions& o, const TensorInfo& x,
                                            const TensorInfo& w, const TensorInfo& y) {
  kernels::Conv2dShape s;
  s.in_c = static_cast<size_t>(x.shape[1]);
  s.out_c = static_cast<size_t>(w.shape[0]);
  SpatialDims(x, &s.in_h, &s.in_w);
  SpatialDims(y, &s.out_h, &s.out_w);
  kernels::SetWindow2d(o.kernel, o.strides, o.dilations, o.pads, &s);
  s.group = static_cast<size_t>(o.group);
  return s;
}

inline kernels::Pool2dParams MakePool2dParams(const PoolOptions& o, const TensorInfo& x,
                                              const TensorInfo& y) {
  kernels::Pool2dParams p;
  p.kind = o.kind;
  SpatialDims(x, &p.in_h, &p.in_w);
  SpatialDims(y, &p.out_h, &p.out_w);
  kernels::SetWindow2d(o.kernel, o.strides, o.dilations, o.pads, &p);
  p.count_include_pad = o.count_include_pad;
  return p;
}

}  // namespace edgefold::internal
