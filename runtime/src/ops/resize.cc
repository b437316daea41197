// Resize of the last two axes (ResizeOptions; the compiler resolved ONNX Resize/Upsample into
// per-axis scale and offset): x viewed as [planes, in_h, in_w] → [planes, out_h, out_w].
// Prepare finds the fast paths the kernels take (ResizeAxis::factor); nothing per pixel is
// stored, the kernels compute source coordinates per row and column.
#include "kernels/resize_coords.h"
#include "kernels/sequence_kernel_table.h"
#include "ops/family_table.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

using kernels::ResizeAxis;
using kernels::ResizeMode;

struct ResizePrepared {
  kernels::ResizeParams params;
  size_t planes;
  const kernels::SequenceKernelTable* sequence;
};

// Nearest: k when out = k·in and index i reads ⌊i/k⌋ for every i, else 0.
// Linear: 2 for the 2× half-pixel blend (s = i/2 − ¼), else 0.
size_t FastFactor(const kernels::ResizeParams& p, const ResizeAxis& a) {
  if (a.out % a.in != 0) return 0;
  const size_t k = a.out / a.in;
  if (p.mode == ResizeMode::kLinear) return (k == 2 && a.scale == 0.5 && a.offset == -0.25) ? 2 : 0;
  for (size_t i = 0; i < a.out; ++i)
    if (kernels::ResizeNearestIndex(a, p.rounding, i) != i / k) return 0;
  return k;
}

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const ResizeOptions& o = ctx.op.options.resize;
  if (x.rank < 2 || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "input rank %d, output rank %d: need equal ranks >= 2",
                    x.rank, y.rank);
  size_t planes = 1;
  for (int d = 0; d + 2 < x.rank; ++d) {
    if (x.shape[d] != y.shape[d])
      return ctx.Fail(Status::kShapeMismatch,
                      "axis %d: input %d, output %d; only the last two axes are resized", d,
                      x.shape[d], y.shape[d]);
    planes *= static_cast<size_t>(x.shape[d]);
  }
  ResizePrepared& p = ctx.prepared<ResizePrepared>();
  p.planes = planes;
  p.sequence = FamilyTable<kernels::SequenceKernelTable>(ctx);
  p.params.mode = o.mode;
  p.params.rounding = o.rounding;
  ResizeAxis* axes[2] = {&p.params.h, &p.params.w};
  for (int a = 0; a < 2; ++a) {
    const int d = x.rank - 2 + a;
    if (x.shape[d] <= 0 || y.shape[d] <= 0)
      return ctx.Fail(Status::kShapeMismatch, "axis %d: input %d, output %d must be positive", d,
                      x.shape[d], y.shape[d]);
    ResizeAxis& ax = *axes[a];
    ax.in = static_cast<size_t>(x.shape[d]);
    ax.out = static_cast<size_t>(y.shape[d]);
    ax.scale = o.scales[a];
    ax.offset = o.offsets[a];
  }
  p.params.h.factor = FastFactor(p.params, p.params.h);
  p.params.w.factor = FastFactor(p.params, p.params.w);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ResizePrepared& p = ctx.prepared<ResizePrepared>();
  p.sequence->resize2d(p.params, ctx.input(0).data, ctx.output(0).data, p.planes);
  return Status::kOk;
}

const OpKernel kResize = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterResize() { return &kResize; }

}  // namespace edgefold::internal
