// The scalar kernel table: the reference kernels (Cortex-M, non-NEON ARM, test oracle).
#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::kernels::scalar {

const KernelTable kTable = {"scalar",
                            Isa::kScalar,
                            1,
                            &ref::Gemm,
                            &ref::Im2col,
                            &ref::Col2im,
                            &ref::StridedCopy,
                            &ref::Conv2dDepthwise,
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
                            &ref::GruGates,
                            &ref::GruResetHidden,
                            &ref::LstmGates,
                            &ref::Reduce,
                            &ref::GemmS8,
                            &ref::Im2colS8,
                            &ref::Conv2dDepthwiseS8,
                            &ref::QuantizeS8,
                            &ref::DequantizeS8,
                            &ref::AddS8,
                            &ref::Pool2dS8,
                            &ref::GlobalPoolS8};

}  // namespace edgefold::kernels::scalar
