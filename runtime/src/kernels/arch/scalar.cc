// The scalar level's tables (Cortex-M, non-NEON ARM): the reference kernels, except the float
// GEMM and the depthwise convolution, which run their register-tiled versions (kernels/scalar/:
// same sums, same order).
#include "kernels/conv_kernel_table.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"
#include "kernels/scalar/scalar_core_table.h"
#include "kernels/scalar/scalar_kernels.h"
#include "kernels/sequence_kernel_table.h"

namespace edgefold::kernels::scalar {

const KernelTable kTable = ScalarCoreTable(&GemmTiled, &ref::Pool2d);

const ConvKernelTable kConvTable = {&Conv2dDepthwiseClipped,
                                    &ref::Winograd23Input,
                                    &ref::Winograd23Output,
                                    &ref::Winograd43Input,
                                    &ref::Winograd43Output,
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'  // no NHWC on Cortex-M
                                    nullptr};
#else
                                    &ref::Conv2dDepthwiseHwc};
#endif

const Int8KernelTable kInt8Table = {
    &ref::GemmS8, &ref::Im2colS8, &ref::Conv2dDepthwiseS8, &ref::QuantizeS8, &ref::DequantizeS8,
    &ref::AddS8,  &ref::Pool2dS8, &ref::GlobalPoolS8,      &ref::SoftmaxS8,  &ref::MulS8Rows};

const SequenceKernelTable kSequenceTable = {&ref::LayerNorm, &ref::Reduce,         &ref::Resize2d,
                                            &ref::GruGates,  &ref::GruResetHidden, &ref::LstmGates};

}  // namespace edgefold::kernels::scalar
