// Per-thread scratch for grouped convs (CompileOptions::threads): the runtime splits a grouped,
// not depthwise, conv by group over threads, each thread with its own slice of the op's scratch
// (kernels::ConvSplitsByGroup), so the plan holds one slice per thread, at most one per group.
#pragma once
#include "lower/lowered.h"

namespace edgefold::compiler {

// Sets the scratch of every grouped, not depthwise, Conv (plain weights, no fused expansion)
// and ConvInt8 to min(threads, group) slices of its one-thread scratch, each rounded up to 64
// bytes (kernels::ConvGroupSlicedScratchBytes); the one-thread scratch is recomputed from the
// op's shape, so running it again (after quantization) changes nothing already sliced. Before
// PlanArena. Returns the number of ops planned with more than one slice.
int SliceGroupScratch(LoweredModel* model, int threads);

}  // namespace edgefold::compiler
