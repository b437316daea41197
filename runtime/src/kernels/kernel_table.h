// The table of kernel entry points for one instruction-set level.
//
// Each ISA translation unit (runtime/src/kernels/arch/*.cc) instantiates the kernel templates for its
// arch and fills one KernelTable. The interpreter picks one table at Create and keeps a
// pointer: the hot path never re-dispatches. Kernels take raw pointers and sizes only; they
// never fail (ops validate everything in Prepare).
#pragma once
#include <cstddef>

#include "edgefold/isa.h"
#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct DepthwiseS8Planes;   // kernels/conv/conv_scratch.h

// One channel of the int8 depthwise convolution over its zero-point-padded phase planes
// (simd/int8_simd.h): how a CPU extension (VNNI) replaces only the arithmetic of that kernel.
using DepthwiseChannelS8Fn = void (*)(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                                      const size_t* offset, const int8_t* wc, int32_t bias, int32_t multiplier,
                                      int32_t shift, const GemmS8Params& rq, int8_t* plane, int8_t* yc);

struct KernelTable {
  const char* name;          // "scalar", "sse4.2", "avx2+fma", "avx512", "neon"
  Isa isa;
  size_t simd_floats;        // lanes per float register (1 for scalar)

  // C = act(A·B + bias), see GemmParams.
  void (*gemm)(const GemmParams& p, const float* a, const float* b, float* c);

  // Unfolds one group of one image into col[(in_c/group)·kh·kw × out_h·out_w];
  // zero outside the image. x points at the group's first input channel.
  void (*im2col)(const Conv2dShape& s, const float* x_group, float* col);
  // Its adjoint: x_group[c, ih, iw] += every col entry im2col would read from there
  // (ConvTranspose's scatter-add; the trainer's conv dx).
  void (*col2im)(const Conv2dShape& s, const float* col, float* x_group);
  // Pad, Transpose, Slice and their backward passes (StridedCopyParams in kernel_params.h).
  void (*strided_copy)(const StridedCopyParams& p, const float* src, float* dst);

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
  // LayerNorm of each row of x[rows × cols]: y = (x − mean)/√(var + eps)·scale[i] + bias[i]
  // (biased variance; bias may be null); mean and inv_std (1/√(var + eps)) per row when not null.
  void (*layer_norm)(const float* x, const float* scale, const float* bias, float eps, float* y,
                     float* mean, float* inv_std, size_t rows, size_t cols);

  // Resize of `planes` planes, see ResizeParams.
  void (*resize2d)(const ResizeParams& p, const float* x, float* y, size_t planes);

  // Winograd transforms of one band (kernels/conv/conv_winograd.h), F(2×2, 3×3) (α = 4) and
  // F(4×4, 3×3) (α = 6): the input's column planes → V[α²][in_c][ld] = Bᵀ d B per tile;
  // M[α²][out_c][ld] → y = act(Aᵀ m A + bias) for the band's output rows (bias may be nullptr).
  void (*winograd23_input)(const WinogradGeometry& g, const float* planes, float* v);
  void (*winograd23_output)(const WinogradGeometry& g, const float* m, const float* bias,
                            Activation act, float* y);
  void (*winograd43_input)(const WinogradGeometry& g, const float* planes, float* v);
  void (*winograd43_output)(const WinogradGeometry& g, const float* m, const float* bias,
                            Activation act, float* y);

  // Recurrent cells on one batch row of `hidden` units, gates in ONNX order, σ = sigmoid.
  // GRU: gx = x·Wᵀ + Wb and gh = h·Rᵀ + Rb, each [z | r | h̃] (3·hidden):
  //   z = σ(gx_z + gh_z), r = σ(gx_r + gh_r), h̃ = tanh(gx_h + (lbr ? r ⊙ gh_h : gh_h)),
  //   h ← h̃ + z ⊙ (h − h̃)   (= (1 − z) ⊙ h̃ + z ⊙ h)
  // Without linear_before_reset the op has made gh_h = (r ⊙ h)·Rhᵀ + Rbh (gru_reset_hidden).
  void (*gru_gates)(const float* gx, const float* gh, float* h, size_t hidden, bool linear_before_reset);
  // rh = σ(gx_r + gh_r) ⊙ h, with gx_r, gh_r pointing at the r parts.
  void (*gru_reset_hidden)(const float* gx_r, const float* gh_r, const float* h, float* rh, size_t hidden);
  // LSTM: g = x·Wᵀ + Wb + h·Rᵀ + Rb, [i | o | f | c̃] (4·hidden): i, o, f = σ(·), c̃ = tanh(·);
  //   c ← f ⊙ c + i ⊙ c̃, h ← o ⊙ tanh(c)
  void (*lstm_gates)(const float* g, float* c, float* h, size_t hidden);

  // y[o,i] = reduce_a x[o,a,i] for x viewed as [outer, len, inner], see ReduceKind.
  void (*reduce)(ReduceKind kind, const float* x, float* y, size_t outer, size_t len, size_t inner);
  // int8 (kernels/int8_params.h, docs/quantization.md): every level gives the reference's bits.
  // Y = requantize(bias + A·B), see GemmS8Params.
  void (*gemm_s8)(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);
  // As im2col, padding with pad_value (the input's zero point).
  // Output rows [row0, row0 + rows) of the int8 im2col (rows·out_w columns): ConvInt8 builds
  // it in chunks of rows (conv_scratch.h ConvS8Im2colRows) so its scratch stays small.
  void (*im2col_s8)(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0, size_t rows,
                    int8_t* col);
  // Depthwise ConvInt8 of one image, strides 1 and 2 (kernels::ConvS8UsesDepthwisePlane): rq holds
  // bias, multiplier and shift per channel and the output's zero point and clamp; `plane` is
  // ConvS8DepthwisePlaneBytes of scratch.
  void (*conv2d_depthwise_s8)(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                              const GemmS8Params& rq, int8_t* plane, int8_t* y);
  void (*quantize_s8)(const QuantS8Params& p, const float* x, int8_t* y, size_t n);
  void (*dequantize_s8)(const QuantS8Params& p, const int8_t* x, float* y, size_t n);
  void (*add_s8)(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n);
  // As pool2d; X and Y share scale and zero point (kernels/ref/int8_ref.cc).
  void (*pool2d_s8)(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y, size_t planes);
  void (*global_pool_s8)(PoolKind kind, const int8_t* x, int8_t* y, size_t channels, size_t spatial);
  // Softmax of each row of x[rows × classes] into scale 1/256, zero point −128 (ref/softmax_s8.h).
  void (*softmax_s8)(const int32_t* exp_table, const int8_t* x, int8_t* y, size_t rows, size_t classes);
};

// Every level's table: kernels::<level>::kTable, defined in kernels/arch/<level>.cc.
#define EDGEFOLD_DECLARE_KERNEL_TABLE(ns, level) namespace ns { extern const KernelTable kTable; }
EDGEFOLD_DECLARE_TABLES(KernelTable, EDGEFOLD_DECLARE_KERNEL_TABLE)
#undef EDGEFOLD_DECLARE_KERNEL_TABLE

#if defined(EDGEFOLD_HAVE_AVX512)
// AVX-512 with VNNI's int8 dot products (vpdpbusd) for gemm_s8: TableFor(kAvx512) gives it on
// CPUs that have VNNI (same bits as every other table). avx512_vnni::GemmS8 is compiled alone
// with -mavx512vnni (kernels/arch/avx512_vnni.cc).
namespace avx512 { extern const KernelTable kTableVnni; }
namespace avx512_vnni {
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);
// One depthwise channel over its phase planes (simd/int8_simd.h Conv2dDepthwiseS8Using).
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps, const size_t* offset,
                        const int8_t* wc, int32_t bias, int32_t multiplier, int32_t shift, const GemmS8Params& rq,
                        int8_t* plane, int8_t* yc);
}  // namespace avx512_vnni
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
// AArch64 NEON with the dot-product extension (sdot) for gemm_s8: TableFor(kNeon) gives it on
// CPUs that report it (kernels/arch/neon_dotprod.cc, compiled with +dotprod).
namespace neon { extern const KernelTable kTableDot; }
namespace neon_dotprod {
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps, const size_t* offset,
                        const int8_t* wc, int32_t bias, int32_t multiplier, int32_t shift, const GemmS8Params& rq,
                        int8_t* plane, int8_t* yc);
}  // namespace neon_dotprod
#endif

}  // namespace edgefold::kernels
