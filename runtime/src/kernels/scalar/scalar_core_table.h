// The scalar level's float core table with its GEMM and 2-D pooling given, as a constant
// expression: scalar.cc's table and an extension's (Helium's GEMM and pooling on the M55) are
// constant-initialized, so no start-up copy links every float kernel into an int8-only firmware.
#pragma once

#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::kernels::scalar {

constexpr KernelTable ScalarCoreTable(decltype(KernelTable::gemm) gemm,
                                      decltype(KernelTable::pool2d) pool2d) {
  return {"scalar",
          Isa::kScalar,
          1,
          gemm,
          &ref::ConvKm,
          &ref::Im2col,
          &ref::Col2im,
          &ref::StridedCopy,
          &ref::ChannelAffine,
          &ref::BatchnormInference,
          &ref::ActivationKernel,
          &ref::Prelu,
          &ref::Binary,
          pool2d,
          &ref::GlobalPool,
          &ref::Softmax};
}

}  // namespace edgefold::kernels::scalar
