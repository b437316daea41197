// The training forward: every op in order, each BatchNorm in the form the step asks for
// (BnForward), and the buffers a recomputed segment switches between.
#include "training/train_forward.h"

#include <cmath>
#include <cstring>

#include "base/fold_batchnorm.h"
#include "training/activation_grad.h"
#include "training/saved_precision.h"

namespace edgefold::internal {
namespace {

// Folds this batch's statistics into the running ones (PyTorch momentum, or the cumulative
// average of Algorithm 2); the variance is made unbiased with m/(m−1).
void UpdateRunningStats(Trainer::State& s, const BnState& bn) {
  const OpDesc& op = s.ops[bn.op];
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

// A BatchNorm's operands (y may be x itself: InPlaceInput).
struct BnOperands {
  BnOperands(const Trainer::State& s, const OpDesc& op)
      : x(s.tensors[op.inputs[0]].data),
        gamma(s.tensors[op.inputs[1]].data),
        beta(s.tensors[op.inputs[2]].data),
        running_mean(s.tensors[op.inputs[3]].data),
        running_var(s.tensors[op.inputs[4]].data),
        y(s.tensors[op.outputs[0]]),
        precision(static_cast<SavedPrecision>(s.summary.saved_precision)) {}
  const float *x, *gamma, *beta, *running_mean, *running_var;
  const TensorInfo& y;
  SavedPrecision precision;
};

// x̂ in 16 bits, rounded so that the fused activation's gradient piece (a ReLU's mask) the
// backward recomputes from it is the one the forward used.
uint16_t NarrowForBackward(const OpDesc& op, SavedPrecision p, float xhat, float gamma,
                           float beta) {
  const kernels::Activation& act = op.options.batchnorm.act;
  return NarrowKeepingSide(p, xhat, gamma, beta, [&act](float z_exact, float z_stored) {
    return SameActivationPiece(act, z_exact, z_stored);
  });
}

// x̂ = (x − mean)·inv_std in the saved 16-bit precision, from the statistics in bn.
void StoreXhat16(const OpDesc& op, const BnState& bn, const BnOperands& o) {
  const size_t plane = bn.channels * bn.spatial;
  for (size_t n = 0; n < bn.batch; ++n)
    for (size_t c = 0; c < bn.channels; ++c)
      for (size_t i = n * plane + c * bn.spatial, e = i + bn.spatial; i < e; ++i)
        bn.xhat16[i] = NarrowForBackward(op, o.precision, (o.x[i] - bn.mean[c]) * bn.inv_std[c],
                                         o.gamma[c], o.beta[c]);
}

// Eval-form BN that keeps x̂ for the backward (frozen statistics): the running statistics
// normalize, nothing is updated. A 16-bit x̂ is stored first, while x is still there (y may be
// x itself).
void ForwardBatchNormFrozen(Trainer::State& s, const BnState& bn) {
  const OpDesc& op = s.ops[bn.op];
  const BnOperands o(s, op);
  for (size_t c = 0; c < bn.channels; ++c) {
    bn.mean[c] = o.running_mean[c];
    bn.inv_std[c] = 1.0f / std::sqrt(o.running_var[c] + op.options.batchnorm.epsilon);
  }
  if (bn.xhat16 != nullptr) StoreXhat16(op, bn, o);
  s.tk->batchnorm_normalize(o.x, bn.mean, bn.inv_std, o.gamma, o.beta, o.y.data, bn.xhat, bn.batch,
                            bn.channels, bn.spatial);
  if (op.options.batchnorm.act.kind != kernels::ActKind::kNone)
    s.k->activation(o.y.data, o.y.data, o.y.elems, op.options.batchnorm.act);
}

// Batch statistics with x̂ kept in 16 bits: the training table's statistics (the corrected
// two-pass sums of batchnorm_train_forward), x̂ narrowed from them, then y = γ·x̂ + β as one
// per-channel affine pass, which may write over x (the BN is then x's only reader: InPlaceInput).
void ForwardBatchNormSaved16(Trainer::State& s, const BnState& bn, bool update_running) {
  const OpDesc& op = s.ops[bn.op];
  const BnOperands o(s, op);
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  float* y = o.y.data;
  const size_t plane = bn.channels * bn.spatial;
  s.tk->batchnorm_statistics(x, op.options.batchnorm.epsilon, bn.mean, bn.var, bn.inv_std, bn.batch,
                             bn.channels, bn.spatial);
  StoreXhat16(op, bn, o);
  if (update_running) UpdateRunningStats(s, bn);
  // The statistics are absorbed: mean and var now hold the affine map (the backward needs only
  // inv_std and x̂).
  for (size_t c = 0; c < bn.channels; ++c) {
    const float scale = gamma[c] * bn.inv_std[c];
    bn.var[c] = beta[c] - bn.mean[c] * scale;
    bn.mean[c] = scale;
  }
  for (size_t n = 0; n < bn.batch; ++n)
    s.k->channel_affine(x + n * plane, bn.mean, bn.var, y + n * plane, bn.channels, bn.spatial,
                        op.options.batchnorm.act);
}

// update_running: false when a recomputed segment runs it again (the batch was absorbed once).
void ForwardBatchNormTrain(Trainer::State& s, const BnState& bn, bool update_running) {
  if (bn.xhat16 != nullptr) return ForwardBatchNormSaved16(s, bn, update_running);
  const OpDesc& op = s.ops[bn.op];
  const TensorInfo& y = s.tensors[op.outputs[0]];
  s.tk->batchnorm_train_forward(s.tensors[op.inputs[0]].data, s.tensors[op.inputs[1]].data,
                                s.tensors[op.inputs[2]].data, op.options.batchnorm.epsilon, y.data,
                                bn.xhat, bn.mean, bn.var, bn.inv_std, bn.batch, bn.channels,
                                bn.spatial);
  if (op.options.batchnorm.act.kind != kernels::ActKind::kNone)
    s.k->activation(y.data, y.data, y.elems, op.options.batchnorm.act);
  if (update_running) UpdateRunningStats(s, bn);
}

void UseFirstBuffers(Trainer::State& s) {
  for (size_t i = 0; i < s.num_switches; ++i)
    std::memcpy(s.switches[i].slot, &s.switches[i].first, sizeof(void*));
}

}  // namespace

StreamBn StreamBnOf(const Trainer::State& s, const BnState& bn) {
  const OpDesc& op = s.ops[bn.op];
  StreamBn v;
  v.x = s.tensors[op.inputs[0]].data;
  v.y = s.tensors[op.outputs[0]].data;
  v.gamma = s.tensors[op.inputs[1]].data;
  v.beta = s.tensors[op.inputs[2]].data;
  v.mean = s.tensors[op.inputs[3]].data;
  v.var = s.tensors[op.inputs[4]].data;
  v.deployed_mean = bn.deployed_mean;
  v.deployed_var = bn.deployed_var;
  // BN's x̂ statistics buffers: this BN runs no backward in a stream step.
  v.scratch[0] = bn.mean;
  v.scratch[1] = bn.var;
  v.scratch[2] = bn.inv_std;
  v.channels = bn.channels;
  v.spatial = bn.spatial;
  v.batch = bn.batch;
  v.epsilon = op.options.batchnorm.epsilon;
  v.act = op.options.batchnorm.act;
  return v;
}

size_t StreamSamples(const Trainer::State& s) {
  const bool scaled = s.summary.training_batch_scale > 1 && !s.summary.frozen_statistics;
  return scaled ? s.batch / s.summary.training_batch_scale : s.batch;
}

// compile --recompute: every forward uses the first buffers; the backward's recomputation of
// `segment` the second ones of that segment (PointerSwitch).
void UseSecondBuffers(Trainer::State& s, int32_t segment) {
  for (size_t i = 0; i < s.num_switches; ++i)
    if (s.switches[i].segment == segment)
      std::memcpy(s.switches[i].slot, &s.switches[i].second, sizeof(void*));
}

// Runs ops [begin, end) in training form (BatchNorms as `mode` says).
Status ForwardOps(Trainer::State& s, size_t begin, size_t end, BnForward mode) {
  size_t next_bn = 0;
  while (next_bn < s.num_bns && s.bns[next_bn].op < static_cast<int32_t>(begin)) ++next_bn;
  for (size_t i = begin; i < end; ++i) {
    if (mode != BnForward::kEval && next_bn < s.num_bns &&
        s.bns[next_bn].op == static_cast<int32_t>(i)) {
      const BnState& bn = s.bns[next_bn++];
      if (mode == BnForward::kFrozenStatistics)
        ForwardBatchNormFrozen(s, bn);
      else if (mode == BnForward::kStream)
        ForwardBatchNormStream(StreamBnOf(s, bn), StreamSamples(s), *s.stream_options, s.stream,
                               *s.k, *s.tk);
      else
        ForwardBatchNormTrain(s, bn, mode == BnForward::kBatchStatistics);
      continue;
    }
    OpContext ctx{s.ops[i], s.tensors, *s.k, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
  }
  return Status::kOk;
}

Status Forward(Trainer::State& s, const float* inputs, BnForward mode) {
  const bool training = mode != BnForward::kEval;
  if (inputs == nullptr) return Status::kInvalidArgument;
  UseFirstBuffers(s);
  const TensorInfo& x = s.tensors[s.input];
  if (inputs != x.data) std::memcpy(x.data, inputs, x.elems * sizeof(float));
  if (training) s.refolded = false;  // parameters or statistics change: the fold is stale
  if (!training && s.refolded) {
    for (size_t i = 0; i < s.summary.num_ops; ++i) {
      if (s.exec[i] == nullptr) continue;
      OpContext ctx{*const_cast<OpDesc*>(s.exec[i]), s.tensors, *s.k, s.errors};
      EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
    }
    return Status::kOk;
  }
  EDGEFOLD_RETURN_IF_ERROR(ForwardOps(s, 0, s.summary.num_ops, mode));
  if (mode == BnForward::kBatchStatistics && s.num_bns > 0) ++s.statistics_batches;
  return Status::kOk;
}

}  // namespace edgefold::internal
