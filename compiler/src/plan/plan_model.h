// Plans activations and op scratch of a lowered model into one arena.
#pragma once
#include "lower/lowered.h"

namespace edgefold::compiler {

// Lifetimes in op steps: a tensor lives from its producer (graph inputs: step 0) to its
// last consumer (graph outputs: the last step); scratch lives only in its op's step. Since
// an op's inputs and outputs are both live at its step, they never share memory.
// Sets tensor arena_offset, op scratch_offset, arena_bytes and arena_lower_bound.
void PlanArena(LoweredModel* model);

}  // namespace edgefold::compiler
