// The training forward (trainer.cc, trainer_stream.cc): every op in order, each BatchNorm in
// the form the step asks for.
#pragma once
#include "adaptation/stream_adapt.h"
#include "training/trainer_state.h"

namespace edgefold::internal {

// How a forward runs its BatchNorms: the eval graph; batch statistics (running ones
// updated); or the running statistics with x̂ kept for a backward (frozen statistics).
// kStream: statistics updated per sample before normalizing (StreamStep). kRecompute: batch
// statistics again for a recomputed segment, the running ones left as they are.
enum class BnForward { kEval, kBatchStatistics, kFrozenStatistics, kStream, kRecompute };

// Runs ops [begin, end) in training form (BatchNorms as `mode` says).
Status ForwardOps(Trainer::State& s, size_t begin, size_t end, BnForward mode);

// Copies `inputs` into the input tensor (unless they are it) and runs the whole graph: the
// refolded ops for kEval after Refold, else ForwardOps. Counts a kBatchStatistics batch.
Status Forward(Trainer::State& s, const float* inputs, BnForward mode);

// compile --recompute: the backward's recomputation of `segment` uses its second buffers.
void UseSecondBuffers(Trainer::State& s, int32_t segment);

// What a stream step sees of one BatchNorm (adaptation/stream_adapt.h).
StreamBn StreamBnOf(const Trainer::State& s, const BnState& bn);

// The samples a stream step adapts on: the graph's batch. A trainer that runs the graph scaled
// to the training batch (batch statistics, infer batch < training batch) holds
// training_batch_scale copies of them, whose statistics count once.
size_t StreamSamples(const Trainer::State& s);

}  // namespace edgefold::internal
