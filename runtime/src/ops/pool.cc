// MaxPool / AveragePool, 1-D (N,C,L) or 2-D (N,C,H,W), over N·C independent planes.
#include "ops/op_kernel.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

struct PoolPrepared {
  kernels::Pool2dParams params;
  size_t planes;
};

bool OutputMatches(long out, long in, const PoolOptions& o, int axis) {
  const long k = o.kernel[axis], s = o.strides[axis], d = o.dilations[axis];
  const long floor_out = WindowOutput(in, o.pads[axis], o.pads[axis + 2], k, s, d, false);
  const long ceil_out = WindowOutput(in, o.pads[axis], o.pads[axis + 2], k, s, d, true);
  // With ceil_mode the compiler may drop a last window that would start in the end padding.
  return out == floor_out || (o.ceil_mode && (out == ceil_out || out == ceil_out - 1));
}

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const PoolOptions& o = ctx.op.options.pool;
  if ((x.rank != 3 && x.rank != 4) || y.rank != x.rank || y.shape[0] != x.shape[0] ||
      y.shape[1] != x.shape[1])
    return ctx.Fail(Status::kShapeMismatch, "X and Y must be (N,C,L) or (N,C,H,W) with equal N, C");
  const kernels::Pool2dParams p = MakePool2dParams(o, x, y);
  if (!OutputMatches(static_cast<long>(p.out_h), static_cast<long>(p.in_h), o, 0) ||
      !OutputMatches(static_cast<long>(p.out_w), static_cast<long>(p.in_w), o, 1))
    return ctx.Fail(Status::kShapeMismatch,
                    "Y spatial size does not follow from X and the options");
  if (p.pad_top >= p.kh * p.dilation_h || p.pad_left >= p.kw * p.dilation_w)
    return ctx.Fail(Status::kInvalidModel, "padding must be smaller than the kernel window");
  ctx.prepared<PoolPrepared>() = PoolPrepared{p, DimProduct(x, 0, 2)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const PoolPrepared& p = ctx.prepared<PoolPrepared>();
  const size_t in_plane = p.params.in_h * p.params.in_w,
               out_plane = p.params.out_h * p.params.out_w;
  // Planes are independent: each thread takes a run of them.
  ForEachRowRange(ctx.parallel, p.planes, out_plane * p.params.kh * p.params.kw, 1,
                  [&](size_t c0, size_t c1) {
                    ctx.k.pool2d(p.params, ctx.input(0).data + c0 * in_plane,
                                 ctx.output(0).data + c0 * out_plane, c1 - c0);
                  });
  return Status::kOk;
}

const OpKernel kPool = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterPool() { return &kPool; }

}  // namespace edgefold::internal
