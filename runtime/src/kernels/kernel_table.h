// The float core family: the kernels of the float ops every model meets (GEMM, activations,
// elementwise, pooling, Softmax, the memory movement of Pad/Transpose/Slice and the im2col the
// convolutions and the trainer share), for one entry of kernels/isa_list.h.
//
// The other families have tables of their own, chosen the same way (kernels/table_for.h):
// ConvKernelTable (depthwise, Winograd), Int8KernelTable, SequenceKernelTable (recurrent gates,
// Resize, LayerNorm, Reduce). Each kernels/arch/<entry>.cc instantiates the kernel templates for
// its arch and fills its tables. The interpreter holds this table from Create and ops that use
// another family pick its table in Prepare: the hot path never re-dispatches. Kernels take raw
// pointers and sizes only; they never fail (ops validate everything in Prepare).
#pragma once
#include <cstddef>

#include "edgefold/isa.h"
#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct KernelTable {
  const char* name;  // the level: "scalar", "sse4.2", "avx2+fma", "avx512", "neon"
  Isa isa;
  size_t simd_floats;  // lanes per float register (1 for scalar)

  // C = act(A·B + bias), see GemmParams.
  void (*gemm)(const GemmParams& p, const float* a, const float* b, float* c);

  // A conv with transposed weights, output channels in the lanes, see ConvKmParams. Every
  // output is its bias, then one multiply-add per tap in order: the same bits whichever
  // [o_begin, o_end) a thread takes.
  void (*conv_km)(const ConvKmParams& p, const float* wt, const float* x, float* y);

  // Unfolds one group of one image into col[(in_c/group)·kh·kw × out_h·out_w];
  // zero outside the image. x points at the group's first input channel.
  void (*im2col)(const Conv2dShape& s, const float* x_group, float* col);
  // Its adjoint: x_group[c, ih, iw] += every col entry im2col would read from there
  // (ConvTranspose's scatter-add; the trainer's conv dx).
  void (*col2im)(const Conv2dShape& s, const float* col, float* x_group);
  // Pad, Transpose, Slice and their backward passes (StridedCopyParams in kernel_params.h).
  void (*strided_copy)(const StridedCopyParams& p, const float* src, float* dst);

  // y[c,i] = act(x[c,i]·scale[c] + shift[c]) for one image of `channels`×`spatial`.
  void (*channel_affine)(const float* x, const float* scale, const float* shift, float* y,
                         size_t channels, size_t spatial, Activation act);

  // Inference BatchNorm of one image: scale = gamma/√(var+eps), shift = beta − mean·scale,
  // computed per channel on the fly (nothing stored), then as channel_affine.
  void (*batchnorm_inference)(const float* x, const float* gamma, const float* beta,
                              const float* mean, const float* var, float eps, float* y,
                              size_t channels, size_t spatial, Activation act);

  // y[i] = act(x[i]); x may equal y.
  void (*activation)(const float* x, float* y, size_t n, Activation act);

  // y[c,i] = x[c,i] ≥ 0 ? x[c,i] : slope[c]·x[c,i] for one image; slope_per_channel=false
  // means a single shared slope (slope[0]).
  void (*prelu)(const float* x, const float* slope, float* y, size_t channels, size_t spatial,
                bool slope_per_channel);

  // y[i] = act(a op b) over n outputs, operands read as `mode` says; y may alias a or b.
  void (*binary)(BinaryKind kind, BroadcastMode mode, const float* a, const float* b, float* y,
                 size_t n, Activation act);

  // Pooling over p.planes planes, see Pool2dParams.
  void (*pool2d)(const Pool2dParams& p, const float* x, float* y, size_t planes);

  // y[c] = max or mean of x[c, 0..spatial) for `channels` rows.
  void (*global_pool)(PoolKind kind, const float* x, float* y, size_t channels, size_t spatial);

  // Softmax along the middle axis of x viewed as [outer, axis_len, inner].
  void (*softmax)(const float* x, float* y, size_t outer, size_t axis_len, size_t inner);
};

#define EDGEFOLD_DECLARE_CORE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_ENTRY(KernelTable, kTable, core, tables, ns)
EDGEFOLD_DECLARE_FAMILY(KernelTable, kTable, EDGEFOLD_DECLARE_CORE)
#undef EDGEFOLD_DECLARE_CORE

}  // namespace edgefold::kernels
