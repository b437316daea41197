#include "edgefold/trainer.h"

#include <cmath>
#include <cstring>
#include <new>

#include "interpreter/interpreter_state.h"
#include "model/dataflow_check.h"
#include "training/backward.h"
#include "training/trainer_state.h"

namespace edgefold {

using internal::ModelSummary;

namespace {

constexpr size_t kHandleBytes = 64;

Status CheckGraph(Trainer::State& s) {
  if (s.summary.num_inputs != 1 || s.summary.num_outputs != 1) {
    s.errors.Report("training needs exactly one graph input and one output (logits)");
    return Status::kInvalidModel;
  }
  s.input = s.summary.inputs[0];
  s.logits = s.summary.outputs[0];
  const internal::OpDesc& last = s.ops[s.summary.num_ops - 1];
  if (last.kind == OpKind::kSoftmax && last.outputs[0] == s.logits) s.logits = last.inputs[0];
  const internal::TensorInfo& x = s.tensors[s.input];
  const internal::TensorInfo& z = s.tensors[s.logits];
  s.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
  if (z.rank < 1 || static_cast<size_t>(z.shape[0]) != s.batch) {
    s.errors.Report("output '%s' must be [N, classes] with N = %zu (the input's batch)", z.name, s.batch);
    return Status::kShapeMismatch;
  }
  s.classes = z.elems / s.batch;
  size_t trainable = 0;
  for (size_t p = 0; p < s.num_params; ++p) trainable += s.params[p].trainable ? 1 : 0;
  if (trainable == 0) {
    s.errors.Report("nothing to train: the model has no BatchNorm (folded away?) and no trainable "
                    "weights under this trainable set; compile it with 'edgefold compile --train'");
    return Status::kInvalidModel;
  }
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    const internal::OpDesc& op = s.ops[i];
    if (const char* why = internal::BackwardUnsupportedReason(op, s.tensors)) {
      s.errors.Report("op '%s' (%s): cannot train through it: %s", op.name, internal::OpKindName(op.kind), why);
      return Status::kUnsupportedOp;
    }
    if (op.kind == OpKind::kBatchNorm && (!s.tensors[op.inputs[1]].is_constant || !s.tensors[op.inputs[2]].is_constant)) {
      s.errors.Report("op '%s': BatchNorm scale and bias must be constants to be trained", op.name);
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

Status PrepareOps(Trainer::State& s) {
  const OpResolver& resolver = internal::DefaultOpResolver();
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    internal::OpDesc& op = s.ops[i];
    const internal::OpKernel* kernel = resolver.Find(op.kind);
    if (kernel == nullptr) {
      s.errors.Report("op '%s': %s is not registered", op.name, internal::OpKindName(op.kind));
      return Status::kUnsupportedOp;
    }
    s.op_kernels[i] = kernel;
    internal::OpContext ctx{op, s.tensors, *s.k, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(kernel->prepare(ctx));
  }
  return Status::kOk;
}

// Folds this batch's statistics into the running ones (PyTorch momentum, or the cumulative
// average of Algorithm 2); the variance is made unbiased with m/(m−1).
void UpdateRunningStats(Trainer::State& s, const internal::BnState& bn) {
  const internal::OpDesc& op = s.ops[bn.op];
  float* running_mean = s.tensors[op.inputs[3]].data;
  float* running_var = s.tensors[op.inputs[4]].data;
  const size_t m = bn.batch * bn.spatial;
  const float unbias = (m > 1) ? static_cast<float>(m) / static_cast<float>(m - 1) : 1.0f;
  const float w = (s.options.stats_mode == StatsMode::kMomentum)
                      ? s.options.bn_momentum
                      : 1.0f / static_cast<float>(s.statistics_batches + 1);
  for (size_t c = 0; c < bn.channels; ++c) {
    running_mean[c] = (1.0f - w) * running_mean[c] + w * bn.mean[c];
    running_var[c] = (1.0f - w) * running_var[c] + w * bn.var[c] * unbias;
  }
}

void ForwardBatchNormTrain(Trainer::State& s, const internal::BnState& bn) {
  const internal::OpDesc& op = s.ops[bn.op];
  const internal::TensorInfo& y = s.tensors[op.outputs[0]];
  s.tk->batchnorm_train_forward(s.tensors[op.inputs[0]].data, s.tensors[op.inputs[1]].data,
                                s.tensors[op.inputs[2]].data, op.options.batchnorm.epsilon, y.data,
                                bn.xhat, bn.mean, bn.var, bn.inv_std, bn.batch, bn.channels, bn.spatial);
  if (op.options.batchnorm.act.kind != kernels::ActKind::kNone)
    s.k->activation(y.data, y.data, y.elems, op.options.batchnorm.act);
  UpdateRunningStats(s, bn);
}

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
    if (f.kind == OpKind::kConv) f.options.conv.act = act; else f.options.act = act;
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
    const double scale = double(gamma[c]) / std::sqrt(double(var[c]) + bn_op.options.batchnorm.epsilon);
    const double bias = has_bias ? s.tensors[p.inputs[2]].data[c] : 0.0;
    fb[c] = static_cast<float>((bias - mean[c]) * scale + beta[c]);
    for (size_t i = 0; i < per; ++i) {
      const size_t idx = (p.kind == OpKind::kConv) ? c * per + i : i * channels + c;
      fw[idx] = static_cast<float>(w.data[idx] * scale);
    }
  }
}

Status Forward(Trainer::State& s, const float* inputs, bool training) {
  if (inputs == nullptr) return Status::kInvalidArgument;
  const internal::TensorInfo& x = s.tensors[s.input];
  std::memcpy(x.data, inputs, x.elems * sizeof(float));
  if (training) s.refolded = false;   // parameters or statistics change: the fold is stale
  if (!training && s.refolded) {
    for (size_t i = 0; i < s.summary.num_ops; ++i) {
      if (s.exec[i] == nullptr) continue;
      internal::OpContext ctx{*const_cast<internal::OpDesc*>(s.exec[i]), s.tensors, *s.k, s.errors};
      EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
    }
    return Status::kOk;
  }
  size_t next_bn = 0;
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    if (training && next_bn < s.num_bns && s.bns[next_bn].op == static_cast<int32_t>(i)) {
      ForwardBatchNormTrain(s, s.bns[next_bn++]);
      continue;
    }
    internal::OpContext ctx{s.ops[i], s.tensors, *s.k, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
  }
  if (training && s.num_bns > 0) ++s.statistics_batches;
  return Status::kOk;
}

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

Status RequiredTrainingArenaBytes(const uint8_t* model, size_t model_bytes, const TrainOptions& train,
                                  size_t* arena_bytes, const Options& options) {
  if (arena_bytes == nullptr) return Status::kInvalidArgument;
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  *arena_bytes = internal::LayoutTrainer(model, summary, train, nullptr, nullptr) + kHandleBytes;
  return Status::kOk;
}

Status Trainer::Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const TrainOptions& train, const Options& options, Trainer** out) {
  internal::ErrorReporter errors(options.log, options.log_user);
  if (out == nullptr || arena == nullptr) return Status::kInvalidArgument;
  *out = nullptr;
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0) {
    errors.Report("arena must start at a 64-byte boundary");
    return Status::kMisalignedArena;
  }
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  const size_t layout_bytes = internal::LayoutTrainer(model, summary, train, nullptr, nullptr);
  if (arena_bytes < layout_bytes + kHandleBytes) {
    errors.Report("training arena too small: needs %zu bytes, got %zu", layout_bytes + kHandleBytes, arena_bytes);
    return Status::kArenaTooSmall;
  }
  if (options.isa != Isa::kAuto && !IsaAvailable(options.isa)) {
    errors.Report("kernel level %s is not available", IsaName(options.isa));
    return Status::kInvalidArgument;
  }
  State* s = nullptr;
  uint8_t* base = static_cast<uint8_t*>(arena);
  internal::LayoutTrainer(model, summary, train, base, &s);
  s->errors = errors;
  s->k = &kernels::SelectKernelTable(options.isa);
  s->tk = &kernels::SelectTrainKernelTable(options.isa);
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckDataflow(summary, s->tensors, s->ops, s->errors));
  EDGEFOLD_RETURN_IF_ERROR(PrepareOps(*s));
  EDGEFOLD_RETURN_IF_ERROR(CheckGraph(*s));
  EDGEFOLD_RETURN_IF_ERROR(PrepareFoldedOps(*s));
  *out = new (base + layout_bytes) Trainer(s);
  return Status::kOk;
}

size_t Trainer::batch_size() const { return state_->batch; }
size_t Trainer::sample_elems() const { return state_->tensors[state_->input].elems / state_->batch; }
size_t Trainer::num_classes() const { return state_->classes; }

Status Trainer::TrainStep(const float* inputs, const int32_t* labels, float* loss, int* correct) {
  State& s = *state_;
  if (labels == nullptr) return Status::kInvalidArgument;
  for (size_t n = 0; n < s.batch; ++n) {
    if (labels[n] < 0 || static_cast<size_t>(labels[n]) >= s.classes) {
      s.errors.Report("label %d of sample %zu is outside [0, %zu)", static_cast<int>(labels[n]), n, s.classes);
      return Status::kInvalidArgument;
    }
  }
  EDGEFOLD_RETURN_IF_ERROR(Forward(s, inputs, true));
  for (size_t t = 0; t < s.summary.num_tensors; ++t)
    if (s.grads[t] != nullptr) std::memset(s.grads[t], 0, s.tensors[t].elems * sizeof(float));
  const internal::TensorInfo& z = s.tensors[s.logits];
  const float l = s.tk->softmax_cross_entropy(z.data, labels, s.grads[s.logits], s.batch, s.classes);
  if (loss != nullptr) *loss = l;
  if (correct != nullptr) *correct = CountCorrect(z.data, labels, s.batch, s.classes);
  for (size_t i = s.summary.num_ops; i-- > 0;) {
    if (s.ops[i].outputs[0] == s.summary.outputs[0] && s.logits != s.summary.outputs[0]) continue;
    internal::Backward(s, i);
  }
  for (size_t p = 0; p < s.num_params; ++p) {
    const internal::Param& param = s.params[p];
    if (param.trainable)
      s.tk->sgd_momentum(param.data, param.grad, param.velocity, param.elems, s.options.learning_rate,
                         s.options.momentum, s.options.weight_decay);
  }
  return Status::kOk;
}

Status Trainer::AdaptStatistics(const float* inputs) { return Forward(*state_, inputs, true); }

void Trainer::ResetStatistics() { state_->statistics_batches = 0; }

Status Trainer::Evaluate(const float* inputs, float* outputs) {
  State& s = *state_;
  if (outputs == nullptr) return Status::kInvalidArgument;
  EDGEFOLD_RETURN_IF_ERROR(Forward(s, inputs, false));
  const internal::TensorInfo& y = s.tensors[s.summary.outputs[0]];
  std::memcpy(outputs, y.data, y.elems * sizeof(float));
  return Status::kOk;
}

size_t Trainer::Refold() {
  State& s = *state_;
  size_t folded = 0;
  for (size_t i = 0; i < s.summary.num_ops; ++i) s.exec[i] = &s.ops[i];
  for (size_t b = 0; b < s.num_bns; ++b) {
    const internal::BnState& bn = s.bns[b];
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
