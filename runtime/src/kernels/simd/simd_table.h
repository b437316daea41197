// Builds the KernelTable of one arch from the templates. Included once per arch TU.
#pragma once
#include "kernels/kernel_table.h"
#include "kernels/reference.h"
#include "kernels/simd/conv2d_depthwise_simd.h"
#include "kernels/simd/elementwise_simd.h"
#include "kernels/simd/gemm_simd.h"
#include "kernels/simd/pool2d_simd.h"
#include "kernels/simd/reduce_simd.h"
#include "kernels/simd/winograd23_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// im2col is memory movement: every table shares the reference (baseline-compiled) code.
template <class Arch>
constexpr KernelTable MakeSimdTable(const char* name, Isa isa) {
  return KernelTable{name,
                     isa,
                     FBatch<Arch>::size,
                     &Gemm<Arch>,
                     &ref::Im2col,
                     &Conv2dDepthwise<Arch>,
                     &ChannelAffine<Arch>,
                     &BatchnormInference<Arch>,
                     &ActivationKernel<Arch>,
                     &Prelu<Arch>,
                     &Binary<Arch>,
                     &Pool2d<Arch>,
                     &GlobalPool<Arch>,
                     &Softmax<Arch>,
                     &Winograd23Input<Arch>,
                     &Winograd23Output<Arch>};
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
