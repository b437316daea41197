// Everything a Trainer owns, laid out inside the caller's arena by PlanTrainerLayout:
//   State | TensorInfo×T | OpDesc×O | OpKernel*×O | grads×T | Param×P | BnState×B |
//   activations (one slot per planned tensor, kept for backward) | gradients |
//   parameter copies, gradients, velocities | BN xhat and statistics | conv scratch ×2 | temp
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/trainer.h"
#include "interpreter/error_reporter.h"
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
  float* data = nullptr;       // arena copy (the model bytes stay read-only)
  float* grad = nullptr;       // trainable only
  float* velocity = nullptr;   // trainable only (SGD momentum buffer)
  size_t elems = 0;
  bool trainable = false;
};

struct BnState {
  int32_t op = -1;
  float* xhat = nullptr;       // normalized input saved for backward
  float* mean = nullptr;       // batch statistics of the last training forward
  float* var = nullptr;        // biased
  float* inv_std = nullptr;
  size_t channels = 0, spatial = 0, batch = 0;
  // Refolding for inference: the producing Conv/Gemm rewritten with W' = W·s, b' = (b−μ)·s + β,
  // s = γ/√(σ²+ε), the BN's activation and the BN's output (producer < 0: nothing to fold into).
  int32_t producer = -1;
  OpDesc* folded = nullptr;
  int32_t* folded_io = nullptr;    // [x, W', b', y]
};

}  // namespace internal

struct Trainer::State {
  State(LogFn log, void* user) : errors(log, user) {}

  internal::ModelSummary summary;
  TrainOptions options;
  const kernels::KernelTable* k = nullptr;
  const kernels::TrainKernelTable* tk = nullptr;
  internal::ErrorReporter errors;

  internal::TensorInfo* tensors = nullptr;
  internal::OpDesc* ops = nullptr;
  const internal::OpKernel** op_kernels = nullptr;
  float** grads = nullptr;                 // per tensor; nullptr where no gradient is needed
  internal::Param* params = nullptr;
  size_t num_params = 0;
  internal::BnState* bns = nullptr;
  size_t num_bns = 0;
  size_t statistics_batches = 0;           // batches absorbed by the cumulative average

  float* col = nullptr;                    // conv scratch: im2col of the forward input
  float* dcol = nullptr;                   // conv scratch: gradient of the columns
  float* temp = nullptr;                   // one tensor's worth, for overwrite-then-add
  const internal::OpDesc** exec = nullptr; // eval order after Refold (nullptr: skipped)
  bool refolded = false;
  int32_t input = -1;
  int32_t logits = -1;                     // tensor the loss reads (input of a final Softmax)
  size_t batch = 0, classes = 0;
};

namespace internal {

// Reads tensors and ops either from arrays already in the arena or, in a sizing pass with no
// arena, one at a time from the model bytes.
class GraphView {
 public:
  GraphView(const uint8_t* model, const ModelSummary& s, const TensorInfo* tensors,
            const OpDesc* ops)
      : model_(model), summary_(s), tensors_(tensors), ops_(ops) {}
  size_t num_tensors() const { return summary_.num_tensors; }
  size_t num_ops() const { return summary_.num_ops; }
  size_t summary_outputs() const { return summary_.num_outputs; }
  int32_t output(size_t i) const { return summary_.outputs[i]; }
  TensorInfo tensor(size_t i) const;
  OpDesc op(size_t i) const;

 private:
  const uint8_t* model_;
  const ModelSummary& summary_;
  const TensorInfo* tensors_;
  const OpDesc* ops_;
};

enum class ParamRole : uint8_t { kNone = 0, kStatistic, kTrainable };

// The op whose weights count as the "head": the last Conv or Gemm in topological order.
int32_t FindHeadOp(const GraphView& g);
ParamRole RoleOf(const GraphView& g, int32_t tensor, Trainable trainable, int32_t head_op);

// The Conv/Gemm whose only consumer is BatchNorm op `bn_op` and that can absorb it, or -1.
int32_t FoldableProducer(const GraphView& g, size_t bn_op);

// Lays the trainer out in `arena` (nullptr: sizing only) and returns the bytes it needs.
// With an arena, fills State (tensors, ops, gradient and parameter buffers) and copies the
// parameters out of the model; ops are not prepared yet.
size_t LayoutTrainer(const uint8_t* model, const ModelSummary& summary, const TrainOptions& t,
                     uint8_t* arena, Trainer::State** out);

}  // namespace internal
}  // namespace edgefold
