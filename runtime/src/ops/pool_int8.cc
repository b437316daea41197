// PoolInt8 (max / average, 1-D or 2-D) and GlobalPoolInt8 on int8 activations. X and Y share
// scale and zero point, so max needs no rescale and the average is the rounded integer mean
// (kernels/ref/int8_ref.cc).
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

struct PoolInt8Prepared {
  kernels::Pool2dParams params;
  size_t planes;
  int32_t zero_point;
  const kernels::Int8KernelTable* int8;
};

Status CheckSameQuant(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, x, "X"));
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, y, "Y"));
  if (x.scales[0] != y.scales[0] || x.zero_points[0] != y.zero_points[0])
    return ctx.Fail(Status::kInvalidModel, "X and Y must share scale and zero point");
  if ((x.rank != 3 && x.rank != 4) || y.rank != x.rank || y.shape[0] != x.shape[0] ||
      y.shape[1] != x.shape[1])
    return ctx.Fail(Status::kShapeMismatch, "X and Y must be (N,C,L) or (N,C,H,W) with equal N, C");
  return Status::kOk;
}

Status PreparePool(OpContext& ctx) {
  EDGEFOLD_RETURN_IF_ERROR(CheckSameQuant(ctx));
  const TensorInfo& x = ctx.input(0);
  const PoolOptions& o = ctx.op.options.pool;
  const kernels::Pool2dParams p = MakePool2dParams(o, x, ctx.output(0));
  const long want_h = x.rank == 4 ? WindowOutput(static_cast<long>(p.in_h), o.pads[0], o.pads[2],
                                                 o.kernel[0], o.strides[0], o.dilations[0], false)
                                  : 1;
  const long want_w = WindowOutput(static_cast<long>(p.in_w), o.pads[1], o.pads[3], o.kernel[1],
                                   o.strides[1], o.dilations[1], false);
  if (static_cast<long>(p.out_h) != want_h || static_cast<long>(p.out_w) != want_w)
    return ctx.Fail(Status::kShapeMismatch,
                    "Y spatial size does not follow from X and the options");
  if (p.pad_top >= p.kh * p.dilation_h || p.pad_left >= p.kw * p.dilation_w)
    return ctx.Fail(Status::kInvalidModel, "padding must be smaller than the kernel window");
  ctx.prepared<PoolInt8Prepared>() = PoolInt8Prepared{p, DimProduct(x, 0, 2), x.zero_points[0],
                                                      FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status EvalPool(OpContext& ctx) {
  const PoolInt8Prepared& p = ctx.prepared<PoolInt8Prepared>();
  p.int8->pool2d_s8(p.params, p.zero_point, S8Data(ctx.input(0)), S8Data(ctx.output(0)), p.planes);
  return Status::kOk;
}

struct GlobalPoolInt8Prepared {
  size_t channels, spatial;
  const kernels::Int8KernelTable* int8;
};

Status PrepareGlobal(OpContext& ctx) {
  EDGEFOLD_RETURN_IF_ERROR(CheckSameQuant(ctx));
  const TensorInfo& x = ctx.input(0);
  const size_t spatial = DimProduct(x, 2, x.rank);
  if (ctx.output(0).elems != DimProduct(x, 0, 2))
    return ctx.Fail(Status::kShapeMismatch, "Y must be [N, C, 1, ...]");
  if (spatial >= (size_t{1} << 23))
    return ctx.Fail(Status::kInvalidModel, "%zu values per channel overflow the sum", spatial);
  ctx.prepared<GlobalPoolInt8Prepared>() = GlobalPoolInt8Prepared{
      DimProduct(x, 0, 2), spatial, FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status EvalGlobal(OpContext& ctx) {
  const GlobalPoolInt8Prepared& p = ctx.prepared<GlobalPoolInt8Prepared>();
  p.int8->global_pool_s8(ctx.op.options.global_pool, S8Data(ctx.input(0)), S8Data(ctx.output(0)),
                         p.channels, p.spatial);
  return Status::kOk;
}

const OpKernel kPoolInt8 = {PreparePool, EvalPool, 1, 1};
const OpKernel kGlobalPoolInt8 = {PrepareGlobal, EvalGlobal, 1, 1};

}  // namespace

const OpKernel* RegisterPoolInt8() { return &kPoolInt8; }
const OpKernel* RegisterGlobalPoolInt8() { return &kGlobalPoolInt8; }

}  // namespace edgefold::internal
