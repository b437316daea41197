// Scalar reference kernels: the test oracle, the Cortex-M path and the scalar tails of the
// per-ISA tables. Plain C++ only; signatures match KernelTable one to one (kernel_table.h).
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"

namespace edgefold::kernels::ref {

void Gemm(const GemmParams& p, const float* a, const float* b, float* c);
void Im2col(const Conv2dShape& s, const float* x_group, float* col);
void Conv2dDepthwise(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                     Activation act, float* y);
void ChannelAffine(const float* x, const float* scale, const float* shift, float* y,
                   size_t channels, size_t spatial, Activation act);
void BatchnormInference(const float* x, const float* gamma, const float* beta, const float* mean,
                        const float* var, float eps, float* y, size_t channels, size_t spatial,
                        Activation act);
void ActivationKernel(const float* x, float* y, size_t n, Activation act);
void Prelu(const float* x, const float* slope, float* y, size_t channels, size_t spatial,
           bool slope_per_channel);
void Binary(BinaryKind kind, BroadcastMode mode, const float* a, const float* b, float* y, size_t n,
            Activation act);
void Pool2d(const Pool2dParams& p, const float* x, float* y, size_t planes);
void GlobalPool(PoolKind kind, const float* x, float* y, size_t channels, size_t spatial);
void Softmax(const float* x, float* y, size_t outer, size_t axis_len, size_t inner);
void Winograd23Input(const Winograd23Geometry& g, const float* planes, float* v);
void Winograd23Output(const Winograd23Geometry& g, const float* m, const float* bias, Activation act,
                      float* y);

}  // namespace edgefold::kernels::ref
