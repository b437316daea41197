#include "training/new_classes.h"

#include <cmath>

namespace edgefold::internal {
namespace {

// PCG32 (O'Neill): small state, good statistics, the same numbers on every target.
class Pcg32 {
 public:
  explicit Pcg32(uint32_t seed) {
    Next();
    state_ += seed;
    Next();
  }
  uint32_t Next() {
    const uint64_t old = state_;
    state_ = old * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }
  // Uniform in [−bound, bound).
  float Uniform(float bound) {
    return (static_cast<float>(Next() >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * bound;
  }

 private:
  uint64_t state_ = 0;
};

// A ReLU right after the head: fused, as its own op, or fused into a BatchNorm in between.
bool ReluFollows(const Trainer::State& s, const OpDesc& head) {
  const kernels::ActKind fused =
      head.kind == OpKind::kConv ? head.options.conv.act.kind : head.options.act.kind;
  if (fused == kernels::ActKind::kRelu) return true;
  for (size_t j = 0; j < s.summary.num_ops; ++j) {
    const OpDesc& op = s.ops[j];
    if (op.num_inputs == 0 || op.inputs[0] != head.outputs[0]) continue;
    if (op.kind == OpKind::kActivation && op.options.act.kind == kernels::ActKind::kRelu)
      return true;
    if (op.kind == OpKind::kBatchNorm && op.options.batchnorm.act.kind == kernels::ActKind::kRelu)
      return true;
  }
  return false;
}

}  // namespace

Status InitializeNewClasses(Trainer::State& s, uint32_t seed) {
  const size_t k = static_cast<size_t>(s.summary.new_classes);
  if (k == 0) return Status::kOk;
  int32_t head_index = -1;
  for (size_t j = 0; j < s.summary.num_ops; ++j)
    if (s.ops[j].kind == OpKind::kConv || s.ops[j].kind == OpKind::kGemm)
      head_index = static_cast<int32_t>(j);
  const OpDesc* head = head_index >= 0 ? &s.ops[head_index] : nullptr;
  const Param* w = nullptr;
  for (size_t p = 0; head != nullptr && p < s.num_params; ++p)
    if (s.params[p].tensor == head->inputs[1] && s.params[p].trainable) w = &s.params[p];
  if (w == nullptr) {
    s.errors.Report(
        "the model adds %zu classes to its classifier ('%s'), whose weights this trainable set "
        "does "
        "not train: use the model's set or one with the head",
        k, head ? head->name : "none");
    return Status::kInvalidModel;
  }
  const TensorInfo& t = s.tensors[w->tensor];
  // Gemm W is [K_in, N] (outputs along columns); Conv W is [C_out, C_in/g, kh, kw].
  const bool gemm = head->kind == OpKind::kGemm;
  const size_t outputs = static_cast<size_t>(gemm ? t.shape[1] : t.shape[0]);
  const size_t per_output = t.elems / outputs;
  const size_t receptive = gemm ? 1 : per_output / static_cast<size_t>(t.shape[1]);
  const double fan_in = static_cast<double>(per_output),
               fan_out = static_cast<double>(outputs * receptive);
  if (k > outputs) {
    s.errors.Report("op '%s': %zu new classes but %zu outputs", head->name, k, outputs);
    return Status::kInvalidModel;
  }
  const float bound = static_cast<float>(
      ReluFollows(s, *head) ? std::sqrt(6.0 / fan_in) : std::sqrt(6.0 / (fan_in + fan_out)));
  Pcg32 rng(seed);
  for (size_t o = outputs - k; o < outputs; ++o)
    for (size_t i = 0; i < per_output; ++i)
      w->data[gemm ? i * outputs + o : o * per_output + i] = rng.Uniform(bound);
  return Status::kOk;
}

}  // namespace edgefold::internal
