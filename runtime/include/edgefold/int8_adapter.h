// On-device adaptation of the BatchNorm statistics of an int8 model, so that a deployed int8
// network can follow sensor drift without floats in its weights and without a backward pass.
//
// A BatchNorm folded into a convolution before quantization still lives in the int8 op: its
// per-channel scale is part of the requantization multiplier and its shift part of the int32
// bias. A model compiled with `edgefold compile --quantize int8 --adaptable` keeps |γ|, β and
// ε·k² of each such BatchNorm on its op (schemas/model.fbs BnAdaptation). Adapt() runs the
// graph on a batch with batch statistics, as BatchNorm trains: before each adaptable op it
// measures the mean and variance of the op's output before the clamp (from the int32
// accumulators), normalizes with them (rewriting the op's bias and multiplier), and folds them
// into running statistics (Ioffe & Szegedy's Algorithm 2, or a moving average). Afterwards the
// ops run with the running statistics: y' = |γ|·(y − mean)/√(var + ε·k²) + β per channel,
// i.e. multiplier·r and bias + Δ/r in the op's units, r = |γ|/√(var + ε·k²). Weights stay in
// the model (flash); only the 3 int32 constants per channel are copied, into the arena.
//
// Memory: RequiredInt8AdapterArenaBytes = the interpreter's arena plus, per adaptable layer and
// channel, 3 int32 constants, 3 floats of statistics and 2 doubles of scratch (shared).
// No heap, no exceptions, as the Interpreter.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/interpreter.h"
#include "edgefold/trainer.h"  // StatsMode

namespace edgefold {

struct AdaptOptions {
  StatsMode mode = StatsMode::kCumulativeAverage;  // Algorithm 2 over every Adapt since Reset
  float momentum = 0.1f;                           // kMomentum: new = (1−m)·old + m·batch
};

// One adaptable layer: an int8 Conv/Gemm with a folded BatchNorm.
struct AdaptedLayer {
  const char* name = "";
  size_t channels = 0;
  // Running statistics of the op's output before the clamp, in real units (deployed: β and
  // γ² − ε·k²), and how many batches they hold (0: the deployed ones).
  const float* mean = nullptr;
  const float* var = nullptr;
  size_t batches = 0;
  // The op's constants as they are now (arena copies), and the model tensors they replace.
  const int32_t* bias = nullptr;
  const int32_t* multiplier = nullptr;
  const int32_t* shift = nullptr;
  int32_t bias_tensor = -1, multiplier_tensor = -1, shift_tensor = -1;
  // ε·k'² for the adapted model's own BnAdaptation (ExportModel writes it).
  const float* eps_k2 = nullptr;
  // Channels whose adapted multiplier or bias left the int8 scheme's range (a variance near
  // 0): they keep their last representable constants.
  size_t held_channels = 0;
};

// Arena bytes Int8Adapter::Create needs: the interpreter's plus the adapter's.
Status RequiredInt8AdapterArenaBytes(const uint8_t* model, size_t model_bytes, size_t* arena_bytes,
                                     const Options& options = Options());

class Int8Adapter {
 public:
  // Creates the interpreter and the adapter in `arena`. kInvalidArgument when the model has no
  // adaptable layer (compile with --quantize int8 --adaptable); kInvalidModel naming the op and
  // field when a layer's BnAdaptation is malformed.
  static Status Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const Options& options, Int8Adapter** out);

  // Inference with the current statistics: SetInput/QuantizeInput, Invoke, output.
  Interpreter* interpreter() const;

  // One forward pass on the interpreter's current inputs (a batch of the model's batch size)
  // with batch statistics, folded into the running statistics; the ops then use the running
  // ones. A layer whose batch has fewer than 2 positions per channel is skipped (no variance).
  // The outputs of this pass (batch-normalized) are left in the interpreter's outputs.
  Status Adapt(const AdaptOptions& options = AdaptOptions());
  // The deployed statistics and constants again.
  void Reset();
  // Sets layer `layer`'s statistics (e.g. a fleet's aggregate: edgefold/update_record.h) and
  // rewrites its constants from them; channels whose constants would leave the int8 scheme's
  // range keep their last ones (held_channels). A later Adapt re-estimates from its own batches
  // since Reset. kInvalidArgument (nothing written) for a bad index, a null array, a value that
  // is not finite or a negative variance.
  Status SetStatistics(size_t layer, const float* mean, const float* var);

  size_t num_layers() const;
  AdaptedLayer layer(size_t i) const;

  // Writes the model with the adapted constants and BnAdaptation (so that it can adapt again)
  // into `out` (at least model_bytes long); everything else is the model's bytes.
  Status ExportModel(uint8_t* out, size_t out_bytes) const;

  struct State;

 private:
  explicit Int8Adapter(State* s) : state_(s) {}
  State* state_;
};

}  // namespace edgefold
