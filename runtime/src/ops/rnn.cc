// Rnn: ONNX GRU and LSTM (σ/tanh activations) over X [S, B, I], forward, reverse or both
// directions (d = 0 forward, 1 reverse). Inputs: X, Wᵀ [D, I, G·H], Rᵀ [D, H, G·H],
// bias [D, 2, G·H] (packed by the compiler, schema RnnOptions), [initial_h [D, B, H]],
// [initial_c [D, B, H]]. Outputs: Y_h [D, B, H], then Y [S, D, B, H] and Y_c [D, B, H] when the
// options say. The recurrence runs in kernels/rnn/rnn_sequence.* in planned scratch.
#include "kernels/rnn/rnn_sequence.h"
#include "kernels/sequence_kernel_table.h"
#include "ops/family_table.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

struct RnnPrepared {
  kernels::RnnShape shape;
  size_t directions;
  bool reverse_only;
  const kernels::SequenceKernelTable* sequence;
};

bool ShapeIs(const TensorInfo& t, int rank, const size_t* dims) {
  if (t.rank != rank) return false;
  for (int d = 0; d < rank; ++d)
    if (static_cast<size_t>(t.shape[d]) != dims[d]) return false;
  return true;
}

Status CheckStates(OpContext& ctx, const RnnOptions& o, size_t dirs, const kernels::RnnShape& s) {
  const size_t state[3] = {dirs, s.batch, s.hidden};
  const size_t seq[4] = {s.seq, dirs, s.batch, s.hidden};
  if (ctx.has_input(4) && !ShapeIs(ctx.input(4), 3, state))
    return ctx.Fail(Status::kShapeMismatch, "initial_h must be [%zu, %zu, %zu]", dirs, s.batch,
                    s.hidden);
  if (ctx.has_input(5) && (!s.lstm || !ShapeIs(ctx.input(5), 3, state)))
    return ctx.Fail(Status::kShapeMismatch, "initial_c must be [%zu, %zu, %zu] (LSTM only)", dirs,
                    s.batch, s.hidden);
  const uint32_t outputs = 1u + (o.output_sequence ? 1u : 0u) + (o.output_cell ? 1u : 0u);
  if (ctx.op.num_outputs != outputs)
    return ctx.Fail(Status::kInvalidModel, "has %u outputs, its options name %u",
                    ctx.op.num_outputs, outputs);
  if (!ShapeIs(ctx.output(0), 3, state))
    return ctx.Fail(Status::kShapeMismatch, "Y_h must be [%zu, %zu, %zu]", dirs, s.batch, s.hidden);
  if (o.output_sequence && !ShapeIs(ctx.output(1), 4, seq))
    return ctx.Fail(Status::kShapeMismatch, "Y must be [%zu, %zu, %zu, %zu]", s.seq, dirs, s.batch,
                    s.hidden);
  if (o.output_cell && !ShapeIs(ctx.output(outputs - 1), 3, state))
    return ctx.Fail(Status::kShapeMismatch, "Y_c must be [%zu, %zu, %zu]", dirs, s.batch, s.hidden);
  return Status::kOk;
}

Status Prepare(OpContext& ctx) {
  const RnnOptions& o = ctx.op.options.rnn;
  const TensorInfo& x = ctx.input(0);
  if (x.rank != 3)
    return ctx.Fail(Status::kShapeMismatch, "X must be [seq, batch, input], has rank %d", x.rank);
  kernels::RnnShape s;
  s.seq = static_cast<size_t>(x.shape[0]);
  s.batch = static_cast<size_t>(x.shape[1]);
  s.input = static_cast<size_t>(x.shape[2]);
  s.hidden = static_cast<size_t>(o.hidden_size);
  s.lstm = o.cell == RnnCell::kLstm;
  s.linear_before_reset = !s.lstm && o.linear_before_reset;
  const size_t dirs = o.direction == RnnDirection::kBidirectional ? 2 : 1;
  const size_t gh = s.gates() * s.hidden;
  const size_t w[3] = {dirs, s.input, gh}, r[3] = {dirs, s.hidden, gh}, b[3] = {dirs, 2, gh};
  if (!ShapeIs(ctx.input(1), 3, w) || !ShapeIs(ctx.input(2), 3, r) || !ShapeIs(ctx.input(3), 3, b))
    return ctx.Fail(Status::kShapeMismatch,
                    "packed W, R, B must be [%zu, %zu, %zu], [%zu, %zu, %zu], [%zu, 2, %zu]", dirs,
                    s.input, gh, dirs, s.hidden, gh, dirs, gh);
  if (!ctx.input(1).is_constant || !ctx.input(2).is_constant || !ctx.input(3).is_constant)
    return ctx.Fail(Status::kInvalidModel, "W, R and B must be constants");
  EDGEFOLD_RETURN_IF_ERROR(CheckStates(ctx, o, dirs, s));
  const size_t scratch = kernels::RnnScratchBytes(s);
  if (scratch == kSizeSaturated || ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes, the plan gives %zu", scratch,
                    ctx.op.scratch_bytes);
  ctx.prepared<RnnPrepared>() = RnnPrepared{s, dirs, o.direction == RnnDirection::kReverse,
                                            FamilyTable<kernels::SequenceKernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const RnnPrepared& p = ctx.prepared<RnnPrepared>();
  const RnnOptions& o = ctx.op.options.rnn;
  const kernels::RnnShape& s = p.shape;
  const size_t gh = s.gates() * s.hidden, bh = s.batch * s.hidden;
  for (size_t d = 0; d < p.directions; ++d) {
    kernels::RnnDirectionIo io;
    io.x = ctx.input(0).data;
    io.w_t = ctx.input(1).data + d * s.input * gh;
    io.r_t = ctx.input(2).data + d * s.hidden * gh;
    io.bias = ctx.input(3).data + d * 2 * gh;
    io.h0 = ctx.has_input(4) ? ctx.input(4).data + d * bh : nullptr;
    io.c0 = ctx.has_input(5) ? ctx.input(5).data + d * bh : nullptr;
    io.reverse = p.reverse_only || d == 1;
    io.h = ctx.output(0).data + d * bh;
    if (o.output_sequence) {
      io.y = ctx.output(1).data + d * bh;
      io.y_step = p.directions * bh;
    }
    if (o.output_cell) io.c = ctx.output(ctx.op.num_outputs - 1).data + d * bh;
    kernels::RnnRunDirection(ctx.k, *p.sequence, s, io, ctx.op.scratch);
  }
  return Status::kOk;
}

const OpKernel kRnn = CoreOp({Prepare, Eval, 4, 6, 3});

}  // namespace

const OpKernel* RegisterRnn() { return &kRnn; }

}  // namespace edgefold::internal
