// Tensors that share another tensor's memory instead of being copied into their own
// (CompileOptions::share_views): a Reshape's output is its input's bytes; a Slice that selects
// one contiguous run (steps 1, a single index on every axis before one, whole axes after it)
// is that run of its input; each input of a Concat with one outer block (batch 1, channel
// axis) is its block of the output, written there by its producer. The runtime checks that
// every such overlap is exactly that view and those ops skip the copy (ops/reshape.cc,
// slice.cc, concat.cc).
//
// Only activations that are neither graph inputs nor outputs share; a tensor is the view of at
// most one other (a Concat input already a view, or sharing a root with another input of the
// same Concat, is copied); offsets inside a root are multiples of the arena alignment (kernels
// may load the start of a tensor aligned).
#pragma once
#include <cstdint>
#include <vector>

#include "lower/lowered.h"

namespace edgefold::compiler {

struct TensorView {
  int parent = -1;      // -1: the tensor has its own memory
  uint64_t offset = 0;  // bytes from the parent's start
};

std::vector<TensorView> FindTensorViews(const LoweredModel& model);

// The tensor whose memory t lives in, and t's offset there.
int ViewRoot(const std::vector<TensorView>& views, int t, uint64_t* offset);

}  // namespace edgefold::compiler
