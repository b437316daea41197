// Plans activations and op scratch of a lowered model into one arena.
#pragma once
#include "lower/lowered.h"

namespace edgefold::compiler {

// Lifetimes in op steps: a tensor lives from its producer (graph inputs: step 0) to its
// last consumer (graph outputs: the last step); scratch lives only in its op's step. Since
// an op's inputs and outputs are both live at its step, they never share memory.
// With share_views, Reshape outputs, contiguous Slice outputs and Concat inputs live inside
// the tensor they view (plan/tensor_views.h) and that memory lives as long as any of them.
// Sets tensor arena_offset, op scratch_offset, arena_bytes and arena_lower_bound.
void PlanArena(LoweredModel* model, bool share_views);

}  // namespace edgefold::compiler
