// The scalar level's own float kernels (Cortex-M and cores without SIMD): the GEMM and the
// depthwise convolution of ref/ reorganised for a core with 16 to 32 float registers and no
// vectors. Same sums in the same order as the reference (ref::Gemm, ref::Conv2dDepthwise, the
// test oracle), so only FMA contraction could separate them and the compiler contracts both
// alike (tests/mcu/kernel_checks.cc finds the same bits on Cortex-M4).
#pragma once
#include "kernels/kernel_params.h"

namespace edgefold::kernels::scalar {

// 4 × 4 register tiles of C (gemm_tiled.cc).
void GemmTiled(const GemmParams& p, const float* a, const float* b, float* c);
// Each output's window clipped to the image once; 3 × 3 interiors with the weights in registers
// (conv2d_depthwise_clipped.cc).
void Conv2dDepthwiseClipped(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                            Activation act, float* y);

}  // namespace edgefold::kernels::scalar
