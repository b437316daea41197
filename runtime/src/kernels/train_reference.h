// Scalar reference kernels of the training mode: the test oracle, the Cortex-M path and the
// scalar tails of the per-ISA training tables. Plain C++ only; signatures match
// TrainKernelTable one to one (train_kernel_table.h, which states the math and layouts).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/kernel_params.h"
#include "kernels/reference.h"  // Col2im, shared with ConvTranspose

namespace edgefold::kernels::ref {

void BatchnormTrainForward(const float* x, const float* gamma, const float* beta, float eps,
                           float* y, float* xhat, float* mean, float* var, float* inv_std,
                           size_t batch, size_t channels, size_t spatial);
void BatchnormBackward(const float* dy, const float* xhat, const float* gamma, const float* inv_std,
                       float* dx, float* dgamma, float* dbeta, size_t batch, size_t channels,
                       size_t spatial);
void GemmAtB(const GemmParams& p, const float* a, const float* b, float* c);
void GemmABt(const GemmParams& p, const float* a, const float* b, float* c);
void Conv2dDepthwiseBackward(const Conv2dShape& s, const float* x, const float* w, const float* dy,
                             float* dx, float* dw);
void Pool2dBackward(const Pool2dParams& p, const float* x, const float* dy, float* dx,
                    size_t planes);
float SoftmaxCrossEntropy(const float* logits, const int32_t* labels, float* dlogits, size_t batch,
                          size_t classes);
void SgdMomentum(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                 float weight_decay);
void ChannelMoments(const float* x, const float* shift, float* sum_d, float* sum_d2,
                    size_t channels, size_t spatial);
void BatchnormStatistics(const float* x, float eps, float* mean, float* var, float* inv_std,
                         size_t batch, size_t channels, size_t spatial);
void BatchnormNormalize(const float* x, const float* mean, const float* inv_std, const float* gamma,
                        const float* beta, float* y, float* xhat, size_t batch, size_t channels,
                        size_t spatial);

}  // namespace edgefold::kernels::ref
