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

namespace edgefold {

constexpr size_t kArenaAlignment = 64;
constexpr int kMaxRank = 6;

// Receives one formatted message per error (null-terminated). Called only on failure paths.
using LogFn = void (*)(void* user, const char* message);
// Called by Invoke after op `op_index` has run (per-op profiling: the caller reads its own
// clock; the runtime has none). Not called when the op fails.
using OpEndFn = void (*)(void* user, size_t op_index);

// Threads, supplied by the caller (edgefold/thread_pool.h has one for hosted builds; firmware
// plugs its RTOS's): parallel_for(user, tasks, run, ctx) must call run(ctx, i) exactly once for
// every i in [0, tasks), in any order and on any threads, and return when all have returned.
// The runtime calls it from Invoke only, never re-entrantly, and allocates nothing for it.
using ParallelForFn = void (*)(void* user, size_t tasks, void (*run)(void* ctx, size_t task), void* ctx);

struct Options {
  Isa isa = Isa::kAuto;                 // force a dispatch level (tests, benchmarks)
  const OpResolver* resolver = nullptr; // nullptr = every op compiled into this build
  LogFn log = nullptr;                  // nullptr = silent
  void* log_user = nullptr;
  OpEndFn on_op_end = nullptr;          // nullptr = no per-op callback
  void* on_op_end_user = nullptr;
  // Up to `num_threads` tasks per op through parallel_for (nullptr or 1: the calling thread
  // only). Work is split over independent outputs, never over a sum, so results are
  // bit-identical for any thread count.
  ParallelForFn parallel_for = nullptr;
  void* parallel_user = nullptr;
  size_t num_threads = 1;
};

// A view of one graph input or output. `data` points into the arena.
struct TensorView {
  float* data = nullptr;
  const int32_t* shape = nullptr;
  int rank = 0;
  size_t elems = 0;
  const char* name = "";
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
  // Copies `elems` floats into input i after checking the count.
  Status SetInput(size_t i, const float* data, size_t elems);

  const char* kernel_isa_name() const;
  // Operators in execution order: their count, name and type ("Conv", "Pool", ...).
  size_t num_ops() const;
  const char* op_name(size_t i) const;
  const char* op_type(size_t i) const;
  size_t arena_used_bytes() const;

  struct State;  // defined in runtime/src/interpreter/interpreter_state.h
 private:
  explicit Interpreter(State* state) : state_(state) {}
  State* state_;
};

}  // namespace edgefold
