// Trainer::ExportModel: the model's bytes with the trainer's parameters written back where the
// model keeps them (each constant's place in the weights blob).
#include <cstring>

#include "edgefold/trainer.h"
#include "training/trainer_state.h"

namespace edgefold {

size_t Trainer::model_bytes() const { return state_->model_bytes; }

namespace {

// The arena copy of `tensor`, or null when the trainer keeps none (read from the model).
float* ArenaCopy(const Trainer::State& s, int32_t tensor) {
  for (size_t i = 0; i < s.num_params; ++i)
    if (s.params[i].tensor == tensor) return s.params[i].data;
  return nullptr;
}

}  // namespace

size_t Trainer::num_batchnorms() const { return state_->num_bns; }

Trainer::BatchNormView Trainer::batchnorm(size_t i) const {
  BatchNormView v;
  const State& s = *state_;
  if (i >= s.num_bns) return v;
  const internal::BnState& bn = s.bns[i];
  const internal::OpDesc& op = s.ops[bn.op];
  v.name = op.name;
  v.channels = bn.channels;
  v.gamma = ArenaCopy(s, op.inputs[1]);
  v.beta = ArenaCopy(s, op.inputs[2]);
  v.mean = ArenaCopy(s, op.inputs[3]);
  v.var = ArenaCopy(s, op.inputs[4]);
  return v;
}

Status Trainer::ExportModel(uint8_t* out, size_t out_bytes) const {
  State& s = *state_;
  if (out == nullptr || out_bytes < s.model_bytes) {
    s.errors.Report("ExportModel: an output of %zu bytes, the model needs %zu",
                    out == nullptr ? 0 : out_bytes, s.model_bytes);
    return Status::kInvalidArgument;
  }
  std::memcpy(out, s.model, s.model_bytes);
  for (size_t i = 0; i < s.num_params; ++i) {
    const internal::Param& p = s.params[i];
    internal::TensorInfo in_model;
    internal::ReadTensor(s.model, static_cast<size_t>(p.tensor), nullptr, &in_model);
    const size_t offset =
        static_cast<size_t>(reinterpret_cast<const uint8_t*>(in_model.data) - s.model);
    std::memcpy(out + offset, p.data, p.elems * sizeof(float));
  }
  return Status::kOk;
}

}  // namespace edgefold
