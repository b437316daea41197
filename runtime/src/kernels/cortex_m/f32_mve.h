// Float kernels for Cortex-M cores with Helium's floating point (MVE-F: Cortex-M55, M85): the
// core table of the cortex_m_mve entry of kernels/isa_list.h (arch/cortex_m_mve.cc), which is
// the scalar level's with this GEMM.
#pragma once
#include "kernels/kernel_params.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'M'
#define EDGEFOLD_HAVE_F32_MVE 1

namespace edgefold::kernels::cortex_m_mve {

// As scalar::GemmTiled, with its bits: every output is the fused multiply-add chain
// acc = fma(A[i,p], B[p,j], acc) for p = 0 … k − 1 from 0 (VFMA by a scalar, one output a lane,
// the chain the compiler makes of GemmTiled's acc += a·b), then + the old C, + the bias, Relu;
// other activations run over C's rows afterwards. Tiles of 4 rows × 4 columns (a column tail
// under a predicate, a row tail a row at a time); with B's rows at a stride, two k a step in
// assembly (A's two values of a row by one LDRD).
void GemmF32(const GemmParams& p, const float* a, const float* b, float* c);

// As ref::Pool2d, with its bits (f32_mve_pool.cc): four planes a vector, each output's window
// clipped once for them.
void Pool2dF32(const Pool2dParams& p, const float* x, float* y, size_t planes);

// As scalar::Conv2dDepthwiseClipped, with its bits (f32_mve_depthwise.cc): 3 × 3 undilated
// windows, any stride, rows of up to 256 outputs, channel counts divisible by 4: four channels
// a vector (gathered from their planes), each position's window clipped once for them; other
// shapes run the scalar level's kernel.
void Conv2dDepthwiseF32(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                        Activation act, float* y);

}  // namespace edgefold::kernels::cortex_m_mve
#endif
