// The scalar kernel table: the reference kernels (Cortex-M, non-NEON ARM, test oracle).
#include "kernels/arch_tables.h"
#include "kernels/reference.h"

namespace edgefold::kernels::scalar {

const KernelTable kTable = {"scalar",
                            Isa::kScalar,
                            1,
                            &ref::Gemm,
                            &ref::Im2col,
                            &ref::Conv2dDepthwise,
                            &ref::ChannelAffine,
                            &ref::BatchnormInference,
                            &ref::ActivationKernel,
                            &ref::Prelu,
                            &ref::Binary,
                            &ref::Pool2d,
                            &ref::GlobalPool,
                            &ref::Softmax,
                            &ref::Winograd23Input,
                            &ref::Winograd23Output};

}  // namespace edgefold::kernels::scalar
