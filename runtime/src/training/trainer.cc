#include "edgefold/trainer.h"

#include <cmath>
#include <cstring>
#include <new>

#include "interpreter/interpreter_state.h"
#include "base/fold_batchnorm.h"
#include "base/size_math.h"
#include "interpreter/graph_prepare.h"
#include "model/training_section_reader.h"
#include "training/activation_grad.h"
#include "training/backward.h"
#include "training/backward_segments.h"
#include "training/new_classes.h"
#include "training/saved_precision.h"
#include "training/train_batch.h"
#include "training/train_forward.h"
#include "training/trainer_create.h"
#include "training/trainer_plan.h"
#include "training/trainer_state.h"

namespace edgefold {

using internal::ModelSummary;

namespace {

using internal::BnForward;
using internal::Forward;
using internal::ForwardOps;
using internal::UseSecondBuffers;

// The producer of each foldable BatchNorm, rewritten to read W', b' and write the BN's output.
Status PrepareFoldedOps(Trainer::State& s) {
  for (size_t b = 0; b < s.num_bns; ++b) {
    internal::BnState& bn = s.bns[b];
    if (bn.producer < 0) continue;
    internal::OpDesc& f = *bn.folded;
    f = s.ops[bn.producer];
    f.inputs = bn.folded_io;
    f.num_inputs = 3;
    f.outputs = bn.folded_io + 3;
    f.num_outputs = 1;
    const kernels::Activation act = s.ops[bn.op].options.batchnorm.act;
    if (f.kind == OpKind::kConv)
      f.options.conv.act = act;
    else
      f.options.act = act;
    internal::OpContext ctx{f, s.tensors, *s.k, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[bn.producer]->prepare(ctx));
  }
  return Status::kOk;
}

// W'[c] = W[c]·s_c over output channel c (Conv: W's first dim; Gemm W[K,N]: column c).
void FoldInto(const Trainer::State& s, const internal::BnState& bn) {
  const internal::OpDesc& bn_op = s.ops[bn.op];
  const internal::OpDesc& p = s.ops[bn.producer];
  const internal::TensorInfo& w = s.tensors[p.inputs[1]];
  const bool has_bias = p.num_inputs > 2 && p.inputs[2] >= 0;
  const float* gamma = s.tensors[bn_op.inputs[1]].data;
  const float* beta = s.tensors[bn_op.inputs[2]].data;
  const float* mean = s.tensors[bn_op.inputs[3]].data;
  const float* var = s.tensors[bn_op.inputs[4]].data;
  float* fw = s.tensors[bn.folded_io[1]].data;
  float* fb = s.tensors[bn.folded_io[2]].data;
  const size_t channels = bn.channels, per = w.elems / channels;
  for (size_t c = 0; c < channels; ++c) {
    const double scale = internal::FoldBatchNorm<double>(gamma[c], beta[c], mean[c], var[c],
                                                         bn_op.options.batchnorm.epsilon)
                             .scale;
    const double bias = has_bias ? s.tensors[p.inputs[2]].data[c] : 0.0;
    fb[c] = static_cast<float>(internal::FoldedBias<double>(bias, beta[c], mean[c], scale));
    for (size_t i = 0; i < per; ++i) {
      const size_t idx = (p.kind == OpKind::kConv) ? c * per + i : i * channels + c;
      fw[idx] = static_cast<float>(w.data[idx] * scale);
    }
  }
}

// Floats of one run's input (the graph's batch).
size_t ChunkElems(const Trainer::State& s) { return s.tensors[s.input].elems; }

int CountCorrect(const float* logits, const int32_t* labels, size_t batch, size_t classes) {
  int correct = 0;
  for (size_t n = 0; n < batch; ++n) {
    size_t best = 0;
    for (size_t c = 1; c < classes; ++c)
      if (logits[n * classes + c] > logits[n * classes + best]) best = c;
    correct += (static_cast<int32_t>(best) == labels[n]) ? 1 : 0;
  }
  return correct;
}

}  // namespace

Status Trainer::Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const TrainOptions& train, const Options& options, Trainer** out) {
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(
      internal::CheckCreateRequest(model, model_bytes, arena, out, options, errors, &summary));
  *out = nullptr;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckTrainingSection(model, &summary, errors));
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckTrainingModel(model, summary, train, errors));
  internal::TrainerLayout layout;
  EDGEFOLD_RETURN_IF_ERROR(internal::PlanTrainer(model, summary, train, errors, &layout));
  EDGEFOLD_RETURN_IF_ERROR(
      internal::CheckArenaBytes(AddSat(layout.total_bytes, internal::kTrainerHandleBytes),
                                arena_bytes, "training arena", errors));
  uint8_t* base = static_cast<uint8_t*>(arena);
  State* s = internal::PlaceTrainer(model, summary, train, layout, base);
  s->model = model;
  s->model_bytes = model_bytes;
  s->errors = errors;
  s->k = &kernels::SelectTable<kernels::KernelTable>(options.isa);
  s->tk = &kernels::SelectTable<kernels::TrainKernelTable>(options.isa);
  internal::WarnOfIgnoredIsaOverride(options.isa, s->errors);
  EDGEFOLD_RETURN_IF_ERROR(internal::PrepareGraph({s->summary, s->tensors, s->ops, s->op_kernels},
                                                  *s->k, options.resolver, s->errors, &s->k));
  internal::ReadTrainingShape(*s);
  EDGEFOLD_RETURN_IF_ERROR(PrepareFoldedOps(*s));
  EDGEFOLD_RETURN_IF_ERROR(internal::InitializeNewClasses(*s, train.seed));
  *out = new (base + layout.total_bytes) Trainer(s);
  return Status::kOk;
}

size_t Trainer::batch_size() const { return state_->batch * state_->chunks; }
size_t Trainer::sample_elems() const {
  return state_->tensors[state_->input].elems / state_->batch;
}
size_t Trainer::num_classes() const { return state_->classes; }

namespace {

// One run of the graph's backward; `run` of `runs` (frozen statistics loop over the batch:
// parameter gradients are zeroed before the first run only and applied after the last).
Status BackwardRun(Trainer::State& s, size_t run, size_t runs) {
  // Gradient buffers share memory by lifetime (the model's training plan): each is zeroed
  // where it starts, at the backward of its last reader, and a parameter is updated as soon
  // as its gradient is complete. A recomputed segment first runs its forward again from its
  // checkpoints (same inputs, same kernels: the same bits as the first forward).
  const internal::BackwardSegments segments(s.summary, s.first_backward_op);
  size_t segment = segments.count();
  for (size_t i = s.summary.num_ops; i-- > static_cast<size_t>(s.first_backward_op);) {
    const int32_t op_index = static_cast<int32_t>(i);
    if (segment > 0 && op_index == segments.end(segment - 1) - 1) {
      --segment;
      if (segments.recomputed(segment)) {
        UseSecondBuffers(s, static_cast<int32_t>(segment));
        EDGEFOLD_RETURN_IF_ERROR(
            ForwardOps(s, static_cast<size_t>(segments.start(segment)), i + 1,
                       s.frozen_stats ? BnForward::kFrozenStatistics : BnForward::kRecompute));
      }
    }
    if (op_index == s.skipped_op) continue;
    const internal::OpDesc& op = s.ops[i];
    for (uint32_t k = 0; k <= op.num_inputs; ++k) {  // the inputs, then the output
      const int32_t t = (k < op.num_inputs) ? op.inputs[k] : op.outputs[0];
      if (t < 0 || s.grads[t] == nullptr || s.grad_zero_before_op[t] != op_index) continue;
      if (run > 0 && s.tensors[t].is_constant) continue;  // a parameter's, still accumulating
      std::memset(s.grads[t], 0, s.tensors[t].elems * sizeof(float));
    }
    s.col = s.op_col[i];
    s.dcol = s.op_dcol[i];
    internal::Backward(s, i);
    if (run + 1 < runs) continue;
    for (size_t p = 0; p < s.num_params; ++p) {
      const internal::Param& param = s.params[p];
      if (param.trainable && param.update_after_op == op_index)
        s.tk->sgd_momentum(param.data, param.grad, param.velocity, param.elems,
                           s.options.learning_rate, s.options.momentum, s.options.weight_decay);
    }
  }
  return Status::kOk;
}

}  // namespace

Status Trainer::TrainStep(const float* inputs, const int32_t* labels, float* loss, int* correct) {
  State& s = *state_;
  if (labels == nullptr || inputs == nullptr) return Status::kInvalidArgument;
  for (size_t n = 0; n < batch_size(); ++n) {
    if (labels[n] < 0 || static_cast<size_t>(labels[n]) >= s.classes) {
      s.errors.Report("label %d of sample %zu is outside [0, %zu)", static_cast<int>(labels[n]), n,
                      s.classes);
      return Status::kInvalidArgument;
    }
  }
  const BnForward mode =
      s.frozen_stats ? BnForward::kFrozenStatistics : BnForward::kBatchStatistics;
  const internal::TensorInfo& z = s.tensors[s.logits];
  float loss_sum = 0.0f;
  int correct_sum = 0;
  for (size_t run = 0; run < s.chunks; ++run) {
    const int32_t* run_labels = labels + run * s.batch;
    EDGEFOLD_RETURN_IF_ERROR(Forward(s, inputs + run * ChunkElems(s), mode));
    loss_sum +=
        s.tk->softmax_cross_entropy(z.data, run_labels, s.grads[s.logits], s.batch, s.classes);
    correct_sum += CountCorrect(z.data, run_labels, s.batch, s.classes);
    if (s.chunks > 1) {  // the loss is the mean over the whole batch
      const float share = 1.0f / static_cast<float>(s.chunks);
      for (size_t i = 0; i < z.elems; ++i) s.grads[s.logits][i] *= share;
    }
    EDGEFOLD_RETURN_IF_ERROR(BackwardRun(s, run, s.chunks));
  }
  if (loss != nullptr) *loss = loss_sum / static_cast<float>(s.chunks);
  if (correct != nullptr) *correct = correct_sum;
  return Status::kOk;
}

Status Trainer::AdaptStatistics(const float* inputs) {
  State& s = *state_;
  if (inputs == nullptr) return Status::kInvalidArgument;
  for (size_t run = 0; run < s.chunks; ++run)
    EDGEFOLD_RETURN_IF_ERROR(Forward(s, inputs + run * ChunkElems(s), BnForward::kBatchStatistics));
  return Status::kOk;
}

void Trainer::ResetStatistics() { state_->statistics_batches = 0; }

Status Trainer::Evaluate(const float* inputs, float* outputs) {
  State& s = *state_;
  if (outputs == nullptr || inputs == nullptr) return Status::kInvalidArgument;
  const internal::TensorInfo& y = s.tensors[s.summary.outputs[0]];
  for (size_t run = 0; run < s.chunks; ++run) {
    EDGEFOLD_RETURN_IF_ERROR(Forward(s, inputs + run * ChunkElems(s), BnForward::kEval));
    std::memcpy(outputs + run * y.elems, y.data, y.elems * sizeof(float));
  }
  return Status::kOk;
}

size_t Trainer::Refold() {
  State& s = *state_;
  size_t folded = 0;
  for (size_t i = 0; i < s.summary.num_ops; ++i) s.exec[i] = &s.ops[i];
  for (size_t b = 0; b < s.num_bns; ++b) {
    const internal::BnState& bn = s.bns[b];
    if (!s.summary.refold_weights) {  // eval-mode BN: the per-channel affine map, weights in flash
      ++folded;
      continue;
    }
    if (bn.producer < 0) continue;
    FoldInto(s, bn);
    s.exec[bn.producer] = bn.folded;
    s.exec[bn.op] = nullptr;
    ++folded;
  }
  s.refolded = true;
  return folded;
}

void Trainer::set_options(const TrainOptions& options) {
  const Trainable fixed = state_->options.trainable;
  state_->options = options;
  state_->options.trainable = fixed;
}

const TrainOptions& Trainer::options() const { return state_->options; }

size_t Trainer::num_parameters() const { return state_->num_params; }

ParameterView Trainer::parameter(size_t i) const {
  ParameterView v;
  if (i >= state_->num_params) return v;
  const internal::Param& p = state_->params[i];
  v.name = state_->tensors[p.tensor].name;
  v.tensor = p.tensor;
  v.data = p.data;
  v.elems = p.elems;
  v.trainable = p.trainable;
  return v;
}

}  // namespace edgefold
