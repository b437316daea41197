// Everything an Interpreter owns, placed inside the caller's arena after the planned region:
//   [ planned activations + scratch | State | TensorInfo × T | OpDesc × O | OpKernel* × O |
//     Interpreter ]
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/interpreter.h"
#include "base/error_reporter.h"
#include "interpreter/split_timing.h"
#include "kernels/kernel_table.h"
#include "model/model_reader.h"
#include "model/model_types.h"
#include "ops/op_kernel.h"

namespace edgefold {

struct Interpreter::State {
  State(LogFn log, void* user) : errors(log, user) {}

  const uint8_t* model = nullptr;
  internal::ModelSummary summary;
  // The float core family's table when an op of the model runs it, else &level_only
  // (internal::PrepareGraph).
  const kernels::KernelTable* kernels = nullptr;
  internal::ErrorReporter errors;
  uint8_t* planned = nullptr;
  internal::TensorInfo* tensors = nullptr;
  internal::OpDesc* ops = nullptr;
  const internal::OpKernel** op_kernels = nullptr;
  size_t arena_used_bytes = 0;
  OpEndFn on_op_end = nullptr;
  void* on_op_end_user = nullptr;
  internal::Parallel parallel;
  internal::SplitTiming split_timing;  // Options::adapt_splits with threads: split or alone
  bool adapt_splits = false;
  uint64_t runs = 0;        // Invoke calls so far
  uint64_t split_runs = 0;  // those that split (threads > 1, not run alone)
  bool ready = false;
  kernels::KernelTable level_only{};  // the resolved level's Isa alone: no name, no kernels

  // The state behind a handle, for in-tree code that runs the graph op by op (the int8
  // statistics adaptation). A nested class may read the handle's private pointer: no friend.
  static State& Of(Interpreter& interpreter) { return *interpreter.state_; }
};

namespace internal {

// Byte offsets of each region inside the arena for a model with this summary.
struct ArenaLayout {
  size_t state_offset = 0;
  size_t tensors_offset = 0;
  size_t ops_offset = 0;
  size_t op_kernels_offset = 0;
  size_t handle_offset = 0;  // the Interpreter object returned to the caller
  size_t total_bytes = 0;
};
ArenaLayout ComputeArenaLayout(const ModelSummary& summary);

}  // namespace internal
}  // namespace edgefold
