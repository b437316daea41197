// The edgefold runtime: runs a compiled .efb model inside a caller-supplied arena.
//
// Ownership and lifetime:
// - `model` bytes are borrowed, never copied: weights are read in place, so the buffer must
//   stay valid and unchanged for the interpreter's lifetime and start at a 64-byte boundary.
// - `arena` is borrowed for the interpreter's lifetime, must be 64-byte aligned and at least
//   RequiredArenaBytes() long. The interpreter object itself lives inside the arena; there is
//   no heap allocation in Create or Invoke, and nothing to free: drop the arena when done.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/isa.h"
#include "edgefold/op_resolver.h"
#include "edgefold/status.h"
#include "edgefold/types.h"

namespace edgefold {

// Called by Invoke after op `op_index` has run (per-op profiling: the caller reads its own
// clock; the runtime has none). Not called when the op fails.
using OpEndFn = void (*)(void* user, size_t op_index);

struct Options {
  Isa isa = Isa::kAuto;                  // force a dispatch level (tests, benchmarks)
  const OpResolver* resolver = nullptr;  // nullptr = every op compiled into this build
  LogFn log = nullptr;                   // nullptr = silent
  void* log_user = nullptr;
  OpEndFn on_op_end = nullptr;  // nullptr = no per-op callback
  void* on_op_end_user = nullptr;
  // Up to `num_threads` tasks per op through parallel_for (nullptr or 1: the calling thread
  // only). Work is split over independent outputs, never over a sum, so results are
  // bit-identical for any thread count.
  ParallelForFn parallel_for = nullptr;
  void* parallel_user = nullptr;
  size_t num_threads = 1;
  // Fewest multiply-adds (or equivalent) an op hands to one task; 0: the runtime's default
  // (16 K, measured with hosted builds' spinning pool). Raise it where a hand-off costs more.
  size_t min_task_work = 0;
  // With num_threads > 1: time whole runs with the ops split and with every op on the calling
  // thread alone (the first four runs try both), keep the faster and re-time the other way (two
  // runs, the first not timed) once every 32 runs, so a busier machine or a slower path between the cores sends the runs to one
  // thread, and back again (interpreter/split_timing.h). false: every run splits each op as
  // min_task_work allows. The outputs are the same either way; microcontroller builds (one
  // core) compile it out.
  bool adapt_splits = true;
};

// A view of one graph input or output; the pointers point into the arena (data) and the model
// (shape, name). A model compiled with `--io int8` has int8 inputs and outputs: then `data` is
// nullptr, `data_s8` holds the elements and real = (q − zero_point)·scale. Float tensors have
// `data` set, `data_s8` nullptr, scale 0 and zero point 0.
struct TensorView {
  float* data = nullptr;
  const int32_t* shape = nullptr;
  int rank = 0;
  size_t elems = 0;
  const char* name = "";
  DType dtype = DType::kFloat32;
  int8_t* data_s8 = nullptr;
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// Arena bytes Create will need for this model (planned activations + interpreter state).
Status RequiredArenaBytes(const uint8_t* model, size_t model_bytes, size_t* arena_bytes,
                          const Options& options = Options());

class Interpreter {
 public:
  // Verifies the model, places the interpreter in `arena` and prepares every op.
  static Status Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const Options& options, Interpreter** out);

  // Runs the graph on the current input tensors. Inputs are read from input(i).data.
  Status Invoke();

  size_t num_inputs() const;
  size_t num_outputs() const;
  TensorView input(size_t i) const;
  TensorView output(size_t i) const;
  // Copies `elems` floats into input i after checking the count. A non-float input (a model
  // compiled with --io int8) is refused with kInvalidArgument: use SetInputS8 or QuantizeInput.
  Status SetInput(size_t i, const float* data, size_t elems);
  // Copies `elems` int8 values (already in the input's scale and zero point) into int8 input i;
  // a float input is refused with kInvalidArgument.
  Status SetInputS8(size_t i, const int8_t* data, size_t elems);
  // Quantizes `elems` floats into int8 input i with its scale and zero point, by the rule of
  // the Quantize op (docs/quantization.md), so the bits equal what a float-input model would
  // compute inside. For hosts and tests; a float input is refused with kInvalidArgument.
  Status QuantizeInput(size_t i, const float* data, size_t elems);
  // Writes output i as `elems` floats to `out`: an int8 output dequantized, y = (q − zp)·s
  // (the Dequantize op's rule, bit-identical), a float output copied.
  Status DequantizeOutput(size_t i, float* out, size_t elems) const;

  const char* kernel_isa_name() const;
  // Operators in execution order: their count, name and type ("Conv", "Pool", ...).
  size_t num_ops() const;
  const char* op_name(size_t i) const;
  const char* op_type(size_t i) const;
  size_t arena_used_bytes() const;
  // Invoke calls so far, and how many of them split their ops over the threads (with
  // Options::adapt_splits the rest ran on the calling thread alone; without it, all split).
  size_t invocations() const;
  size_t split_invocations() const;

  struct State;  // defined in runtime/src/interpreter/interpreter_state.h
 private:
  explicit Interpreter(State* state) : state_(state) {}
  Status CheckInputS8(const char* call, size_t i, const void* data, size_t elems) const;
  State* state_;
};

}  // namespace edgefold
