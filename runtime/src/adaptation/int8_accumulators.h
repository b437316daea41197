// Per-channel moments of an int8 Conv/Gemm's accumulators: what the statistics adaptation of
// an int8 model (edgefold/int8_adapter.h) measures in place of the folded BatchNorm's input.
// The int8 kernels requantize in their epilogue and never expose the int32 sums, so these are
// computed again here, directly and without scratch: one more pass over the op's MACs per
// adaptation step, nothing per inference.
#pragma once
#include <cstddef>

#include "ops/op_kernel.h"

namespace edgefold::internal {

// For the ConvInt8 or GemmInt8 `ctx` describes (its input already computed), over every output
// position of each channel c (all images and pixels): sum[c] and sum_sq[c] of
// acc = bias[c] + Σ w·x, x read as its zero point outside the image (as the kernels do).
// `bias` is passed, not read from the op: the adapter measures against the model's B while
// the op runs with rewritten ones. Returns the positions per channel.
size_t AccumulatorMoments(const OpContext& ctx, const int32_t* bias, double* sum, double* sum_sq);

}  // namespace edgefold::internal
