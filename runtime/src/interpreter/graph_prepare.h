// The load steps every Create shares (Interpreter and Trainer), so the two cannot drift:
//   CheckCreateRequest: pointers, 64-byte arena alignment, kernel level, the model itself;
//   CheckArenaBytes:    the arena against the bytes the caller's layout needs;
//   PrepareGraph:       dataflow, then every op resolved (Options::resolver or every op),
//                       arity-checked and prepared.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/error_reporter.h"
#include "edgefold/interpreter.h"
#include "kernels/kernel_table.h"
#include "model/model_reader.h"
#include "model/model_types.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {

Status CheckCreateRequest(const uint8_t* model, size_t model_bytes, const void* arena,
                          const void* out, const Options& options, ErrorReporter& errors,
                          ModelSummary* summary);

// A layout that saturated to SIZE_MAX cannot be placed on this machine (kInvalidModel).
// `what` names the arena in the messages ("arena", "training arena").
Status CheckAddressable(size_t needed_bytes, const char* what, ErrorReporter& errors);
Status CheckArenaBytes(size_t needed_bytes, size_t arena_bytes, const char* what,
                       ErrorReporter& errors);

// With Isa::kAuto requested, a warning through `errors` when EDGEFOLD_ISA is set and ignored
// (names no level, or one this CPU or build lacks): the run goes on at the detected level.
void WarnOfIgnoredIsaOverride(Isa requested, ErrorReporter& errors);

struct GraphTables {
  const ModelSummary& summary;
  TensorInfo* tensors;
  OpDesc* ops;
  const OpKernel** op_kernels;  // filled: one per op
};
// Finds every op's kernel in `resolver` (the default one when null), sets *kernels to the float
// core family's table at level_only.isa when one of them asks for it (OpKernel::core_table),
// else to `level_only` (that level without kernels), then prepares the ops with it.
Status PrepareGraph(const GraphTables& graph, const kernels::KernelTable& level_only,
                    const OpResolver* resolver, ErrorReporter& errors,
                    const kernels::KernelTable** kernels);

}  // namespace edgefold::internal
