// Builds the family tables of one arch from the templates. Included once per arch TU.
#pragma once
#include "kernels/conv_kernel_table.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"
#include "kernels/sequence_kernel_table.h"
#include "kernels/simd/conv2d_depthwise_hwc_simd.h"
#include "kernels/simd/conv2d_depthwise_simd.h"
#include "kernels/simd/elementwise_simd.h"
#include "kernels/simd/gemm_simd.h"
#include "kernels/simd/conv_km_simd.h"
#include "kernels/simd/int8_simd.h"
#include "kernels/simd/pool2d_simd.h"
#include "kernels/simd/layer_norm_simd.h"
#include "kernels/simd/reduce_axis_simd.h"
#include "kernels/simd/reduce_simd.h"
#include "kernels/simd/resize_simd.h"
#include "kernels/simd/rnn_gates_simd.h"
#include "kernels/simd/winograd_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// im2col, col2im and the strided copy are memory movement: every table shares the reference
// (baseline-compiled) code.
template <class Arch>
constexpr KernelTable MakeCoreTable(const char* name, Isa isa) {
  return KernelTable{name,
                     isa,
                     FBatch<Arch>::size,
                     &Gemm<Arch>,
                     &ConvKm<Arch>,
                     &ref::Im2col,
                     &ref::Col2im,
                     &ref::StridedCopy,
                     &ChannelAffine<Arch>,
                     &BatchnormInference<Arch>,
                     &ActivationKernel<Arch>,
                     &Prelu<Arch>,
                     &Binary<Arch>,
                     &Pool2d<Arch>,
                     &GlobalPool<Arch>,
                     &Softmax<Arch>};
}

template <class Arch>
constexpr ConvKernelTable MakeConvTable() {
  return ConvKernelTable{&Conv2dDepthwise<Arch>,  &Winograd23Input<Arch>,
                         &Winograd23Output<Arch>, &Winograd43Input<Arch>,
                         &Winograd43Output<Arch>, &Conv2dDepthwiseHwc<Arch>};
}

template <class Arch>
constexpr SequenceKernelTable MakeSequenceTable() {
  return SequenceKernelTable{&LayerNorm<Arch>, &ReduceAxis<Arch>,     &Resize2d<Arch>,
                             &GruGates<Arch>,  &GruResetHidden<Arch>, &LstmGates<Arch>};
}

// The int8 2-D pool is kPool2dS8 (int8_simd.h: NEON's whole-row average, else the reference),
// the global pool kGlobalPoolS8 (AVX-512BW's and AVX2's, else the reference), the lookup of
// LutInt8 kLutS8<Arch> (AVX-512BW's and AVX2's, else none: the op's scalar loop), the im2col-free
// ConvInt8 GEMM kConvS8Direct<Arch> (SSE4.1 and AVX2's, else none); the int8 softmax (a
// table lookup and a divide per value) is the reference's; the int8 add has its own AVX-512
// and NEON code and is the reference elsewhere; the int8 channel-scale multiply has its own.
template <class Arch>
constexpr Int8KernelTable MakeInt8Table() {
  Int8KernelTable t{&GemmS8<Arch>,     &Im2colS8,           &Conv2dDepthwiseS8<Arch>,
                    &QuantizeS8<Arch>, &DequantizeS8<Arch>, &AddS8<Arch>,
                    kPool2dS8,         kGlobalPoolS8,       &ref::SoftmaxS8,
                    &MulS8Rows<Arch>};
  t.lut_s8 = kLutS8<Arch>;
  t.conv_s8_direct = kConvS8Direct<Arch>;
  return t;
}

// The depthwise kernel of this level with a CPU extension's channel arithmetic.
template <class Arch, DepthwiseChannelS8Fn kChannel>
void Conv2dDepthwiseS8With(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                           int8_t x_zero_point, const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  Conv2dDepthwiseS8Using<Arch>(s, x, w, x_zero_point, rq, plane, y, kChannel);
}

// The int8 table of a CPU extension (VNNI, sdot) of this level: its GEMM, the arithmetic of
// one depthwise channel and its direct conv if it has one; every other entry is the level's.
template <class Arch, DepthwiseChannelS8Fn kChannel>
constexpr Int8KernelTable MakeInt8ExtensionTable(void (*gemm_s8)(const GemmS8Params&, const int8_t*,
                                                                 const int8_t*, int8_t*),
                                                 ConvS8DirectFn conv_s8_direct = nullptr) {
  Int8KernelTable t = MakeInt8Table<Arch>();
  t.gemm_s8 = gemm_s8;
  t.conv2d_depthwise_s8 = &Conv2dDepthwiseS8With<Arch, kChannel>;
  t.conv_s8_direct = conv_s8_direct;  // never the level's: it would bypass the extension's GEMM
  return t;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
