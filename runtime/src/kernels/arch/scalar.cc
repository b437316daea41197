// The scalar kernel table (Cortex-M, non-NEON ARM): the reference kernels, except the GEMM and the
// depthwise convolution, which run their register-tiled versions (same sums, same order).
#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::kernels::scalar {

const KernelTable kTable = {"scalar",
                            Isa::kScalar,
                            1,
                            &ref::GemmTiled,
                            &ref::Im2col,
                            &ref::Col2im,
                            &ref::StridedCopy,
                            &ref::Conv2dDepthwiseClipped,
                            &ref::ChannelAffine,
                            &ref::BatchnormInference,
                            &ref::ActivationKernel,
                            &ref::Prelu,
                            &ref::Binary,
                            &ref::Pool2d,
                            &ref::GlobalPool,
                            &ref::Softmax,
                            &ref::LayerNorm,
                            &ref::Resize2d,
                            &ref::Winograd23Input,
                            &ref::Winograd23Output,
                            &ref::Winograd43Input,
                            &ref::Winograd43Output,
                            &ref::GruGates,
                            &ref::GruResetHidden,
                            &ref::LstmGates,
                            &ref::Reduce,
#if defined(EDGEFOLD_INT8_KERNELS_BY_OP)   // bare metal: the int8 ops name their kernels (ops/int8_kernels.h)
                            nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
#else
                            &ref::GemmS8,
                            &ref::Im2colS8,
                            &ref::Conv2dDepthwiseS8,
                            &ref::QuantizeS8,
                            &ref::DequantizeS8,
                            &ref::AddS8,
                            &ref::Pool2dS8,
                            &ref::GlobalPoolS8,
                            &ref::SoftmaxS8};
#endif

}  // namespace edgefold::kernels::scalar
