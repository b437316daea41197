// Everything a Trainer owns, inside the caller's arena (trainer_plan.h): the training buffers
// (activations kept for the backward, gradients, parameter copies, their gradients and momenta,
// BN x̂ and statistics, per-op scratch, temp) at the offsets the compiler planned by lifetime
// (or one after the other for a model without a plan), then State and its records.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/trainer.h"
#include "adaptation/stream_adapt.h"
#include "base/error_reporter.h"
#include "kernels/kernel_table.h"
#include "kernels/train_kernel_table.h"
#include "model/model_reader.h"
#include "model/model_types.h"
#include "ops/op_kernel.h"

namespace edgefold {
namespace internal {

// A constant the trainer copied into the arena: a trainable parameter or a BN statistic.
struct Param {
  int32_t tensor = -1;
  int32_t update_after_op = -1;  // its gradient is complete, so SGD runs, after this op's backward
  float* data = nullptr;         // arena copy (the model bytes stay read-only)
  float* grad = nullptr;         // trainable only
  float* velocity = nullptr;     // trainable only (SGD momentum buffer)
  size_t elems = 0;
  bool trainable = false;
};

struct BnState {
  int32_t op = -1;
  float* xhat = nullptr;  // normalized input saved for backward
  float* mean = nullptr;  // batch statistics of the last training forward
  float* var = nullptr;   // biased
  float* inv_std = nullptr;
  float* frozen_dparams = nullptr;
  // 16-bit saved x̂ (saved_precision.h): xhat is then float32 scratch of the forward only,
  // xhat16 holds it until the backward, which reads it directly.
  uint16_t* xhat16 = nullptr;
  const float* deployed_mean = nullptr;  // the model's running statistics, read in place from
  const float* deployed_var = nullptr;   // the model (StreamStep's prior and reset point)
  bool dx_direct =
      false;  // the BN is x's only reader: dx written in place   // dγ, dβ (2·channels) of a frozen BN the backward crosses
  size_t channels = 0, spatial = 0, batch = 0;
  // Refolding for inference: the producing Conv/Gemm rewritten with W' = W·s, b' = (b−μ)·s + β,
  // s = γ/√(σ²+ε), the BN's activation and the BN's output (producer < 0: nothing to fold into).
  int32_t producer = -1;
  OpDesc* folded = nullptr;
  int32_t* folded_io = nullptr;  // [x, W', b', y]
};

// compile --recompute: a value, BatchNorm state or scratch of a recomputed segment has one
// buffer for the first forward and another from its recomputation to its backward. Each pointer
// that switches between them is listed: every forward sets `slot` to `first`, the backward's
// recomputation of `segment` sets it to `second`. `slot` is the address of a float* or
// uint16_t* field (same representation on every target).
struct PointerSwitch {
  void* slot = nullptr;
  void* first = nullptr;
  void* second = nullptr;
  int32_t segment = -1;
};

}  // namespace internal

struct Trainer::State {
  State(LogFn log, void* user) : errors(log, user) {}

  const uint8_t* model = nullptr;  // borrowed for the trainer's lifetime (ExportModel)
  size_t model_bytes = 0;
  internal::ModelSummary summary;
  TrainOptions options;
  const kernels::KernelTable* k = nullptr;
  const kernels::TrainKernelTable* tk = nullptr;
  internal::ErrorReporter errors;

  internal::TensorInfo* tensors = nullptr;
  internal::OpDesc* ops = nullptr;
  const internal::OpKernel** op_kernels = nullptr;
  float** grads = nullptr;                 // per tensor; nullptr where no gradient is needed
  int32_t* grad_zero_before_op = nullptr;  // per tensor: the backward where its gradient starts
  internal::Param* params = nullptr;
  size_t num_params = 0;
  internal::BnState* bns = nullptr;
  size_t num_bns = 0;
  size_t statistics_batches = 0;  // batches absorbed by the cumulative average

  float* col = nullptr;      // the conv being differentiated: im2col of its input
  float* dcol = nullptr;     // and the gradient of those columns
  float** op_col = nullptr;  // per op: its col, dcol (nullptr when not needed)
  float** op_dcol = nullptr;
  float* temp = nullptr;                        // one tensor's worth, for overwrite-then-add
  internal::PointerSwitch* switches = nullptr;  // compile --recompute (PointerSwitch)
  size_t num_switches = 0;
  const internal::OpDesc** exec = nullptr;  // eval order after Refold (nullptr: skipped)
  bool refolded = false;
  int32_t input = -1;
  int32_t logits = -1;            // tensor the loss reads (input of a final Softmax)
  int32_t skipped_op = -1;        // that final Softmax (no backward), or -1
  int32_t first_backward_op = 0;  // the backward runs ops [first_backward_op, n)
  size_t batch = 0, classes = 0;  // batch: the rows the graph's tensors hold
  // Frozen statistics: a training batch is `chunks` runs of the graph (gradients accumulated
  // over them, SGD after the last); 1 otherwise.
  bool frozen_stats = false;
  size_t chunks = 1;
  internal::StreamState stream;                   // StreamStep's own state between steps
  const StreamOptions* stream_options = nullptr;  // during a StreamStep
};

namespace internal {

// The graph as training sees it, read from the model bytes one tensor or op at a time, values
// at the training batch (ScaleToTrainingBatch); planned tensors have no data (shapes only).
class GraphView {
 public:
  GraphView(const uint8_t* model, const ModelSummary& s) : model_(model), summary_(s) {}
  size_t num_tensors() const { return summary_.num_tensors; }
  size_t num_ops() const { return summary_.num_ops; }
  size_t summary_outputs() const { return summary_.num_outputs; }
  const ModelSummary& summary() const { return summary_; }
  int32_t output(size_t i) const { return summary_.outputs[i]; }
  TensorInfo tensor(size_t i) const;
  OpDesc op(size_t i) const;

 private:
  const uint8_t* model_;
  const ModelSummary& summary_;
};

enum class ParamRole : uint8_t { kNone = 0, kStatistic, kTrainable };

// The op whose weights count as the "head": the last Conv or Gemm in topological order.
int32_t FindHeadOp(const GraphView& g);
// kModel resolves against the model's trainable list (ModelSummary::trainable).
ParamRole RoleOf(const GraphView& g, int32_t tensor, Trainable trainable, int32_t head_op);

// kInvalidArgument naming both sets when `requested` (not kModel) differs from the set the
// model records, or when that set leaves out a BatchNorm's γ or β (always trained).
Status CheckTrainableAgrees(const GraphView& g, Trainable requested, ErrorReporter& errors);

// The Conv/Gemm whose only consumer is BatchNorm op `bn_op` and that can absorb it, or -1.
int32_t FoldableProducer(const GraphView& g, size_t bn_op);

// The tensor the loss reads: the graph output, or the input of a final Softmax (then that
// Softmax is `skipped_op`, which has no backward; else -1).
void FindLogits(const GraphView& g, int32_t* logits, int32_t* skipped_op);

}  // namespace internal
}  // namespace edgefold
