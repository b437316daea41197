// The table of kernel entry points for one instruction-set level.
//
// Each ISA translation unit (runtime/src/arch/*.cc) instantiates the kernel templates for its
// arch and fills one KernelTable. The interpreter picks one table at Create and keeps a
// pointer: the hot path never re-dispatches. Kernels take raw pointers and sizes only; they
// never fail (ops validate everything in Prepare).
#pragma once
#include <cstddef>

#include "edgefold/isa.h"
#include "kernels/kernel_params.h"

namespace edgefold::kernels {

struct KernelTable {
  const char* name;          // "scalar", "sse4.2", "avx2+fma", "avx512", "neon"
  Isa isa;
  size_t simd_floats;        // lanes per float register (1 for scalar)

  // C = act(A·B + bias), see GemmParams.
  void (*gemm)(const GemmParams& p, const float* a, const float* b, float* c);

  // Unfolds one group of one image into col[(in_c/group)·kh·kw × out_h·out_w];
  // zero outside the image. x points at the group's first input channel.
  void (*im2col)(const Conv2dShape& s, const float* x_group, float* col);

  // Depthwise conv (group == in_c == out_c) of one image: y = act(conv(x, w) + bias).
  // w is [c, 1, kh, kw]; bias may be nullptr.
  void (*conv2d_depthwise)(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                           Activation act, float* y);

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

  // Winograd F(2×2, 3×3) transforms of one band (kernels/conv_winograd.h): the input's column
  // planes → V[16][in_c][ld] = Bᵀ d B per tile; M[16][out_c][ld] → y = act(Aᵀ m A + bias) for
  // the band's output rows (bias may be nullptr).
  void (*winograd23_input)(const Winograd23Geometry& g, const float* planes, float* v);
  void (*winograd23_output)(const Winograd23Geometry& g, const float* m, const float* bias,
                            Activation act, float* y);
};

// The portable reference table (always present; the test oracle and the Cortex-M path).
const KernelTable& ScalarKernelTable();
// The table for `isa`, or nullptr when it is not compiled into this build.
const KernelTable* KernelTableFor(Isa isa);
// The level a request runs at: kAuto becomes the best available level (or EDGEFOLD_ISA in
// hosted builds); a level this build or CPU lacks becomes kScalar. Shared by every table kind.
Isa ResolveIsa(Isa requested);
// Resolves kAuto to the best available level, then returns its table (never nullptr:
// falls back to scalar).
const KernelTable& SelectKernelTable(Isa requested);

}  // namespace edgefold::kernels
