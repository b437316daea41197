// LayerNormalization: x viewed as [rows, cols] with cols the product of the dims from `axis`
// on; each row normalized by its own mean and (biased) variance, then scaled and shifted per
// position (scale and bias hold cols values, constants). Optional outputs 1 and 2: each row's
// mean and 1/√(var + ε) (ONNX's Mean and InvStdDev, one value per row).
#include "kernels/sequence_kernel_table.h"
#include "ops/family_table.h"
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct LayerNormPrepared {
  size_t rows, cols;
  const kernels::SequenceKernelTable* sequence;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!SameShape(x, ctx.output(0)))
    return ctx.Fail(Status::kShapeMismatch, "output shape differs from input");
  int axis = ctx.op.options.layer_norm.axis;
  if (axis < 0) axis += x.rank;
  if (axis < 0 || axis >= x.rank)
    return ctx.Fail(Status::kInvalidModel, "axis out of range for rank %d", x.rank);
  const size_t cols = DimProduct(x, axis, x.rank);
  for (uint32_t i = 1; i < ctx.op.num_inputs; ++i) {
    if (ctx.op.inputs[i] < 0) continue;
    const TensorInfo& p = ctx.input(i);
    if (!p.is_constant || p.elems != cols)
      return ctx.Fail(Status::kShapeMismatch,
                      "%s must be a constant of %zu values (the normalized dims)",
                      i == 1 ? "scale" : "bias", cols);
  }
  const size_t rows = DimProduct(x, 0, axis);
  for (uint32_t i = 1; i < ctx.op.num_outputs; ++i)
    if (ctx.output(i).elems != rows)
      return ctx.Fail(Status::kShapeMismatch,
                      "output %u (%s) has %zu values for %zu normalized rows", i,
                      i == 1 ? "Mean" : "InvStdDev", ctx.output(i).elems, rows);
  ctx.prepared<LayerNormPrepared>() =
      LayerNormPrepared{rows, cols, FamilyTable<kernels::SequenceKernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const LayerNormPrepared& p = ctx.prepared<LayerNormPrepared>();
  const bool has_bias = ctx.op.num_inputs > 2 && ctx.op.inputs[2] >= 0;
  p.sequence->layer_norm(ctx.input(0).data, ctx.input(1).data,
                         has_bias ? ctx.input(2).data : nullptr, ctx.op.options.layer_norm.epsilon,
                         ctx.output(0).data, ctx.op.num_outputs > 1 ? ctx.output(1).data : nullptr,
                         ctx.op.num_outputs > 2 ? ctx.output(2).data : nullptr, p.rows, p.cols);
  return Status::kOk;
}

const OpKernel kLayerNorm = {Prepare, Eval, 2, 3, 3};

}  // namespace

const OpKernel* RegisterLayerNorm() { return &kLayerNorm; }

}  // namespace edgefold::internal
