// Label-free streaming adaptation of BatchNorm statistics (Trainer::StreamStep, StreamOptions
// in edgefold/trainer.h): the BN forward that adapts, the entropy window that resets.
#pragma once
#include "training/trainer_state.h"

namespace edgefold::internal {

// The samples a stream step adapts on: the graph's batch. A trainer that runs the graph scaled
// to the training batch (batch statistics, infer batch < training batch) holds
// training_batch_scale copies of them (StageStreamInputs), whose statistics count once.
size_t StreamSamples(const Trainer::State& s);

// Copies the step's samples into the input tensor, repeated to fill its rows.
void StageStreamInputs(Trainer::State& s, const float* inputs);

// Updates the BN's running statistics from each sample of its input (per channel over the
// spatial dims; inputs without spatial dims are not adapted), then normalizes the input with
// them mixed with the deployed statistics.
void ForwardBatchNormStream(Trainer::State& s, const BnState& bn);

// After the forward: the prediction entropy of each sample, the window it fills, and the
// reset to the deployed statistics when a window's entropy rose above the reference's.
void FinishStreamStep(Trainer::State& s, StreamReport* report);

// The running statistics back to the deployed ones; adaptation starts over.
void ResetStreamStatistics(Trainer::State& s);

// kInvalidArgument naming the field when an option is out of range.
Status CheckStreamOptions(const StreamOptions& o, ErrorReporter& errors);

}  // namespace edgefold::internal
