// Scalar reference kernels: the test oracle (the plain definition every table matches), the
// scalar level's tables where it has no kernel of its own (kernels/scalar/, kernels/cortex_m/)
// and the scalar tails of the SIMD kernels. Plain C++ only; signatures match the family tables
// one to one (kernel_table.h, conv_, int8_, sequence_kernel_table.h).
#pragma once
#include <cstddef>

#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"
#include "kernels/ref/softmax_s8.h"  // SoftmaxS8

namespace edgefold::kernels::ref {

void Gemm(const GemmParams& p, const float* a, const float* b, float* c);
void ConvKm(const ConvKmParams& p, const float* wt, const float* x, float* y);
void Im2col(const Conv2dShape& s, const float* x_group, float* col);
void Col2im(const Conv2dShape& s, const float* col, float* x_group);
void StridedCopy(const StridedCopyParams& p, const float* src, float* dst);
// The same copy of int8 elements (Pad, Transpose, Slice of int8 tensors; never accumulating).
void StridedCopyS8(const StridedCopyParams& p, const int8_t* src, int8_t* dst);
void Conv2dDepthwise(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                     Activation act, float* y);
void Conv2dDepthwiseHwc(const DepthwiseHwcParams& p, const float* x, const float* w, float* y);
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
void LayerNorm(const float* x, const float* scale, const float* bias, float eps, float* y,
               float* mean, float* inv_std, size_t rows, size_t cols);
void Resize2d(const ResizeParams& p, const float* x, float* y, size_t planes);
void Winograd23Input(const WinogradGeometry& g, const float* planes, float* v);
void Winograd23Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y);
void Winograd43Input(const WinogradGeometry& g, const float* planes, float* v);
void Winograd43Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y);
void GruGates(const float* gx, const float* gh, float* h, size_t hidden, bool linear_before_reset);
void GruResetHidden(const float* gx_r, const float* gh_r, const float* h, float* rh, size_t hidden);
void LstmGates(const float* g, float* c, float* h, size_t hidden);
void Reduce(ReduceKind kind, const float* x, float* y, size_t outer, size_t len, size_t inner);
// int8 (kernels/int8_params.h).
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);
void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col);
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y);
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n);
void DequantizeS8(const QuantS8Params& p, const int8_t* x, float* y, size_t n);
void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n);
void MulS8Rows(const MulS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t rows,
               size_t inner);
void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y, size_t planes);
void GlobalPoolS8(PoolKind kind, const int8_t* x, int8_t* y, size_t channels, size_t spatial);
// Not in the table: ConvTranspose's direct path and the oracle of its GEMM path
// (kernels/conv/conv_transpose.h states the shape convention and the weight layout).
void ConvTranspose2d(const Conv2dShape& s, const float* x, const float* w_packed, const float* bias,
                     Activation act, float* y);

}  // namespace edgefold::kernels::ref
