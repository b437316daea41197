// Builds the TrainKernelTable of one arch from the templates. Included once per train arch TU
// (runtime/src/kernels/arch/train_<isa>.cc), after it defines EDGEFOLD_ARCH_NS.
// col2im, the pool backward and softmax cross-entropy are scattered or tiny: every table shares
// the reference (baseline-compiled) code for them.
#pragma once
#include "kernels/simd/train_batchnorm_simd.h"
#include "kernels/simd/train_depthwise_backward_simd.h"
#include "kernels/simd/train_gemm_simd.h"
#include "kernels/simd/train_sgd_simd.h"
#include "kernels/train_kernel_table.h"
#include "kernels/train_reference.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
constexpr TrainKernelTable MakeSimdTrainTable(const char* name, Isa isa) {
  return TrainKernelTable{name,
                          isa,
                          &BatchnormTrainForward<Arch>,
                          &BatchnormBackward<Arch>,
                          &GemmAtB<Arch>,
                          &GemmABt<Arch>,
                          &ref::Col2im,
                          &Conv2dDepthwiseBackward<Arch>,
                          &ref::Pool2dBackward,
                          &ref::SoftmaxCrossEntropy,
                          &SgdMomentum<Arch>,
                          &ChannelMoments<Arch>,
                          &BatchnormStatistics<Arch>,
                          &BatchnormNormalize<Arch>};
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
