// Trainer::StreamStep and ResetStream: the trainer's side of streaming adaptation
// (adaptation/stream_adapt.h), which sees only plain views of the BatchNorms it adapts.
#include <cstring>

#include "edgefold/trainer.h"
#include "training/train_forward.h"

namespace edgefold {
namespace {

// Copies the step's samples into the input tensor, repeated to fill its rows.
void StageStreamInputs(Trainer::State& s, const float* inputs) {
  const internal::TensorInfo& x = s.tensors[s.input];
  const size_t step_elems = x.elems / s.batch * internal::StreamSamples(s);
  for (size_t at = 0; at < x.elems; at += step_elems)
    std::memcpy(x.data + at, inputs, step_elems * sizeof(float));
}

// Every BN's running statistics back to the deployed ones; the fold is then stale.
void ResetBatchNorms(Trainer::State& s) {
  for (size_t b = 0; b < s.num_bns; ++b) internal::ResetStreamBn(internal::StreamBnOf(s, s.bns[b]));
  s.refolded = false;
}

}  // namespace

Status Trainer::StreamStep(const float* inputs, float* logits, const StreamOptions& options,
                           StreamReport* report) {
  State& s = *state_;
  if (inputs == nullptr || logits == nullptr) return Status::kInvalidArgument;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckStreamOptions(options, s.errors));
  s.stream_options = &options;
  StageStreamInputs(s, inputs);
  const Status status = internal::Forward(s, s.tensors[s.input].data, internal::BnForward::kStream);
  if (status == Status::kOk) {
    const internal::TensorInfo& y = s.tensors[s.summary.outputs[0]];
    const size_t samples = internal::StreamSamples(s);
    std::memcpy(logits, y.data, y.elems / s.batch * samples * sizeof(float));
    if (internal::FinishStreamStep(s.tensors[s.logits].data, samples, s.classes, options, s.stream,
                                   report))
      ResetBatchNorms(s);
  }
  s.stream_options = nullptr;
  return status;
}

void Trainer::ResetStream() {
  ResetBatchNorms(*state_);
  internal::RestartStream(state_->stream);
}

}  // namespace edgefold
