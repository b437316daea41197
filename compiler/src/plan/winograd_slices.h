// Per-thread scratch slices for Winograd convs (CompileOptions::threads > 1): each thread runs
// its own tile rows, fill included, in a slice of its own (kernels::WinogradSliceRows), and every
// sliced conv's slice t lies at the same arena place (PlanArena), so a thread writes only lines
// its own cache held in the conv before.
#pragma once
#include "lower/lowered.h"

namespace edgefold::compiler {

// Sets every float Winograd Conv with at least two tile rows, whose share of them per thread
// fills a register of GEMM columns and whose U is no larger than a share's V and M, to
// min(threads, tile rows) slices
// (Operator.scratch_slices), each the largest slice any of them needs (one stride for all, so
// slice t starts at the same offset in each). threads <= 1 changes nothing. Before PlanArena.
// Returns the number of convs sliced.
int SliceWinogradScratch(LoweredModel* model, int threads);

}  // namespace edgefold::compiler
