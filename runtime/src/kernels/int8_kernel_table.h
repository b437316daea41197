// The int8 family (kernels/int8_params.h, docs/quantization.md): every entry gives the
// reference's bits. Found as every family is (kernels/table_for.h); the CPU extensions of
// kernels/isa_list.h (VNNI, sdot, the Cortex-M DSP) define only this family's table.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct DepthwiseS8Planes;  // kernels/conv/conv_scratch.h

// One channel of the int8 depthwise convolution over its zero-point-padded phase planes
// (simd/int8_simd.h): how a CPU extension (VNNI, sdot) replaces only the arithmetic of that kernel.
using DepthwiseChannelS8Fn = void (*)(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                                      const size_t* offset, const int8_t* wc, int32_t bias,
                                      int32_t multiplier, int32_t shift, const GemmS8Params& rq,
                                      int8_t* plane, int8_t* yc);

struct Int8KernelTable {
  // Y = requantize(bias + A·B), see GemmS8Params.
  void (*gemm_s8)(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);
  // As im2col, padding with pad_value (the input's zero point).
  // Output rows [row0, row0 + rows) of the int8 im2col (rows·out_w columns): ConvInt8 builds
  // it in chunks of rows (conv_scratch.h ConvS8Im2colRows) so its scratch stays small.
  void (*im2col_s8)(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
                    size_t rows, int8_t* col);
  // Depthwise ConvInt8 of one image, strides 1 and 2 (kernels::ConvS8UsesDepthwisePlane): rq holds
  // bias, multiplier and shift per channel and the output's zero point and clamp; `plane` is
  // ConvS8DepthwisePlaneBytes of scratch.
  void (*conv2d_depthwise_s8)(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                              int8_t x_zero_point, const GemmS8Params& rq, int8_t* plane,
                              int8_t* y);
  void (*quantize_s8)(const QuantS8Params& p, const float* x, int8_t* y, size_t n);
  void (*dequantize_s8)(const QuantS8Params& p, const int8_t* x, float* y, size_t n);
  void (*add_s8)(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n);
  // As pool2d; X and Y share scale and zero point (kernels/ref/int8_ref.cc).
  void (*pool2d_s8)(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
                    size_t planes);
  void (*global_pool_s8)(PoolKind kind, const int8_t* x, int8_t* y, size_t channels,
                         size_t spatial);
  // Softmax of each row of x[rows × classes] into scale 1/256, zero point −128 (ref/softmax_s8.h).
  void (*softmax_s8)(const int32_t* exp_table, const int8_t* x, int8_t* y, size_t rows,
                     size_t classes);
  // MulInt8 of `rows` rows of `inner` values of A, each by its one value of B (MulS8Params).
  void (*mul_s8_rows)(const MulS8Params& p, const int8_t* a, const int8_t* b, int8_t* y,
                      size_t rows, size_t inner);
  // LutInt8: y[i] = table[x[i] + 128] for i < n. nullptr where a level has no vector lookup
  // (the op then runs its scalar loop): the tables that list their entries need not name it.
  void (*lut_s8)(const int8_t* table, const int8_t* x, int8_t* y, size_t n) = nullptr;
  // ConvInt8 without im2col, for shapes that kernels::ConvS8DirectFits (conv/conv_s8_direct.h):
  // gemm_s8's Y over output pixels [j0, j0 + p.n) of one image and group (p as for the GEMM on
  // the im2col: k = in_c/group·kh·kw, ldy the output plane, y at pixel j0), B's columns read
  // from x_group with pad_value outside the image. nullptr where a level has none (the op then
  // builds the im2col).
  void (*conv_s8_direct)(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                         int8_t pad_value, const int8_t* w, size_t j0, int8_t* y) = nullptr;
  // The fewest input channels per group the op gives conv_s8_direct (fewer: the im2col, where a
  // level's direct conv loses because its per-block setup, one per tap, is shared by few rows).
  size_t conv_s8_direct_min_channels = 0;
};

#define EDGEFOLD_DECLARE_INT8(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_ENTRY(Int8KernelTable, kInt8Table, int8, tables, ns)
EDGEFOLD_DECLARE_FAMILY(Int8KernelTable, kInt8Table, EDGEFOLD_DECLARE_INT8)
#undef EDGEFOLD_DECLARE_INT8

// What an int8 ISA extension's own translation unit defines (compiled alone with the
// extension's flags); the entry's table, defined in its parent level's arch file, wraps them.
// DepthwiseChannelS8 is one depthwise channel over its phase planes (simd/int8_simd.h
// Conv2dDepthwiseS8Using).
#define EDGEFOLD_DECLARE_INT8_EXTENSION(ns)                                              \
  namespace ns {                                                                         \
  void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);       \
  void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps, \
                          const size_t* offset, const int8_t* wc, int32_t bias,          \
                          int32_t multiplier, int32_t shift, const GemmS8Params& rq,     \
                          int8_t* plane, int8_t* yc);                                    \
  }
// An extension's im2col-free conv (Int8KernelTable::conv_s8_direct), where it has one.
#define EDGEFOLD_DECLARE_INT8_DIRECT_CONV(ns)                                           \
  namespace ns {                                                                        \
  void ConvS8Direct(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group, \
                    int8_t pad_value, const int8_t* w, size_t j0, int8_t* y);           \
  }
#if defined(EDGEFOLD_HAVE_AVX512_VNNI)
// kernels/arch/avx512_vnni.cc (-mavx512vnni), table in kernels/arch/avx512.cc.
EDGEFOLD_DECLARE_INT8_EXTENSION(avx512_vnni)
EDGEFOLD_DECLARE_INT8_DIRECT_CONV(avx512_vnni)
#endif
#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
// kernels/arch/avx2_vnni.cc (-mavxvnni) and its EVEX twin kernels/arch/avx2_vnni_evex.cc
// (-mavx512vnni -mavx512vl), tables in kernels/arch/avx2_fma.cc; both also have the direct conv.
EDGEFOLD_DECLARE_INT8_EXTENSION(avx2_vnni)
EDGEFOLD_DECLARE_INT8_EXTENSION(avx2_vnni_evex)
EDGEFOLD_DECLARE_INT8_DIRECT_CONV(avx2_vnni)
EDGEFOLD_DECLARE_INT8_DIRECT_CONV(avx2_vnni_evex)
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
// kernels/arch/neon_dotprod.cc (+dotprod), table in kernels/arch/neon.cc.
EDGEFOLD_DECLARE_INT8_EXTENSION(neon_dotprod)
namespace neon_dotprod {
// The channels-innermost 3×3 depthwise with sdot (simd/conv2d_depthwise_s8_hwc_sdot_neon64.h):
// false where it does not apply, as the level's Conv2dDepthwiseS8Hwc.
bool Conv2dDepthwiseS8HwcSdot(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                              int8_t x_zero_point, const GemmS8Params& rq, int8_t* scratch,
                              int8_t* y);
}  // namespace neon_dotprod
#endif
#undef EDGEFOLD_DECLARE_INT8_EXTENSION

}  // namespace edgefold::kernels
