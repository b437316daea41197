// ConvTranspose (1-D and 2-D, any stride, crop, output padding, dilation and group count):
//   y[n, oc, oy, ox] = act(b[oc] + Σ_{ic ∈ group(oc), ky, kx} x[n, ic, iy, ix]·w[ic, oc, ky, kx])
//   over oy = iy·sh − pad_top + ky·dh, ox = ix·sw − pad_left + kx·dw
// W arrives packed by the compiler as [group][Cout/g][kh][kw][Cin/g] (kernels/conv/conv_transpose.h).
// With the scratch the compiler plans (one group's GEMM product), each image runs a GEMM per
// group through the kernel table, then col2im scatters it onto the bias; a model whose plan
// gives no scratch runs the direct reference kernel instead (slower, nothing extra in the arena).
#include <algorithm>

#include "kernels/conv/conv_transpose.h"
#include "kernels/reference.h"
#include "ops/op_kernel.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

struct ConvTransposePrepared {
  kernels::Conv2dShape adjoint;  // the Conv whose adjoint this is: in_* = y, out_* = x
  size_t batch;
  bool gemm;  // the plan gives the GEMM path's scratch
};

// Full output length along one axis, (in − 1)·s + (k − 1)·d + 1, less the two crops.
long CroppedOutput(long in, long k, long s, long d, long pad_begin, long pad_end) {
  return (in - 1) * s + (k - 1) * d + 1 - pad_begin - pad_end;
}

// y's length must be the cropped output plus an output padding below max(stride, dilation).
bool OutputFits(long out, long in, long k, long s, long d, long pad_begin, long pad_end) {
  const long extra = out - CroppedOutput(in, k, s, d, pad_begin, pad_end);
  return out >= 1 && extra >= 0 && extra < std::max(s, d);
}

Status Prepare(OpContext& ctx) {
  const ConvOptions& o = ctx.op.options.conv;
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  if ((x.rank != 3 && x.rank != 4) || w.rank != 5 || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch,
                    "X and Y must be rank 3 (1-D) or 4 (2-D), packed W [g, Cout/g, kh, kw, Cin/g]");
  if (!w.is_constant) return ctx.Fail(Status::kInvalidModel, "weights must be constant");
  kernels::Conv2dShape s;  // the adjoint conv
  s.in_c = static_cast<size_t>(y.shape[1]);
  s.out_c = static_cast<size_t>(x.shape[1]);
  SpatialDims(y, &s.in_h, &s.in_w);
  SpatialDims(x, &s.out_h, &s.out_w);
  s.kh = static_cast<size_t>(o.kernel[0]);
  s.kw = static_cast<size_t>(o.kernel[1]);
  s.stride_h = static_cast<size_t>(o.strides[0]);
  s.stride_w = static_cast<size_t>(o.strides[1]);
  s.dilation_h = static_cast<size_t>(o.dilations[0]);
  s.dilation_w = static_cast<size_t>(o.dilations[1]);
  s.pad_top = static_cast<size_t>(o.pads[0]);
  s.pad_left = static_cast<size_t>(o.pads[1]);
  s.group = static_cast<size_t>(o.group);
  if (s.in_c % s.group != 0 || s.out_c % s.group != 0 ||
      static_cast<size_t>(w.shape[0]) != s.group ||
      static_cast<size_t>(w.shape[1]) != s.in_c / s.group ||
      static_cast<size_t>(w.shape[2]) != s.kh || static_cast<size_t>(w.shape[3]) != s.kw ||
      static_cast<size_t>(w.shape[4]) != s.out_c / s.group)
    return ctx.Fail(Status::kShapeMismatch, "W shape does not match channels, group and kernel");
  if (y.shape[0] != x.shape[0] ||
      !OutputFits(static_cast<long>(s.in_h), static_cast<long>(s.out_h), o.kernel[0], o.strides[0],
                  o.dilations[0], o.pads[0], o.pads[2]) ||
      !OutputFits(static_cast<long>(s.in_w), static_cast<long>(s.out_w), o.kernel[1], o.strides[1],
                  o.dilations[1], o.pads[1], o.pads[3]))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
  if (ctx.has_input(2) && ctx.input(2).elems != s.in_c)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                    ctx.input(2).elems, s.in_c);
  const size_t scratch = kernels::ConvTransposeScratchBytes(s);
  if (scratch == SIZE_MAX) return ctx.Fail(Status::kShapeMismatch, "GEMM scratch size overflows");
  const bool gemm = ctx.op.scratch_bytes >= scratch;
  if (!gemm && ctx.op.scratch_bytes != 0)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes (or none), the plan gives %zu",
                    scratch, ctx.op.scratch_bytes);
  ctx.prepared<ConvTransposePrepared>() =
      ConvTransposePrepared{s, static_cast<size_t>(x.shape[0]), gemm};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ConvTransposePrepared& p = ctx.prepared<ConvTransposePrepared>();
  const kernels::Conv2dShape& s = p.adjoint;
  const kernels::Activation act = ctx.op.options.conv.act;
  const float* x = ctx.input(0).data;
  const float* w = ctx.input(1).data;
  const float* bias = ctx.has_input(2) ? ctx.input(2).data : nullptr;
  float* y = ctx.output(0).data;
  const size_t x_image = s.out_c * s.out_h * s.out_w, y_image = s.in_c * s.in_h * s.in_w;
  for (size_t n = 0; n < p.batch; ++n) {
    if (p.gemm)
      kernels::ConvTranspose2dGemm(ctx.k, s, x + n * x_image, w, bias, act, y + n * y_image,
                                   ctx.op.scratch);
    else
      kernels::ref::ConvTranspose2d(s, x + n * x_image, w, bias, act, y + n * y_image);
  }
  return Status::kOk;
}

const OpKernel kConvTranspose = CoreOp({Prepare, Eval, 2, 3});

}  // namespace

const OpKernel* RegisterConvTranspose() { return &kConvTranspose; }

}  // namespace edgefold::internal
