// The cortex_m_mve entry's tables (kernels/isa_list.h), an extension of cortex_m_dsp: the float
// core table (the scalar level's with Helium's float GEMM, kernels/cortex_m/f32_mve.h) and the
// int8 table (Helium's GEMM, im2col, 3 × 3 depthwise convolution, Add and average pool,
// kernels/cortex_m/int8_mve.h,
// and the DSP entry's Quantize, kernels/cortex_m/int8_dsp.h). The convolution and sequence
// families are the scalar level's.
#include "kernels/cortex_m/f32_mve.h"
#include "kernels/cortex_m/int8_dsp.h"
#include "kernels/cortex_m/int8_mve.h"
#include "kernels/conv_kernel_table.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::cortex_m_mve {

// The float core table: the scalar level's kernels, with Helium's GEMM and pooling. Listed, not
// copied from scalar::kTable at start-up: a dynamic initializer would link every float kernel
// into every firmware, an int8-only one too (ops resolve the float core table only when the
// model has a float op).
#if defined(EDGEFOLD_HAVE_F32_MVE)
constexpr auto kGemmF32 = &GemmF32;
constexpr auto kPool2dF32 = &Pool2dF32;
#else
constexpr auto kGemmF32 = &scalar::GemmTiled;
constexpr auto kPool2dF32 = &ref::Pool2d;
#endif
const KernelTable kTable = {"scalar",
                            Isa::kScalar,
                            1,
                            kGemmF32,
                            &ref::Im2col,
                            &ref::Col2im,
                            &ref::StridedCopy,
                            &ref::ChannelAffine,
                            &ref::BatchnormInference,
                            &ref::ActivationKernel,
                            &ref::Prelu,
                            &ref::Binary,
                            kPool2dF32,
                            &ref::GlobalPool,
                            &ref::Softmax};

// The convolution family: the scalar level's with Helium's float depthwise convolution.
#if defined(EDGEFOLD_HAVE_F32_MVE)
const ConvKernelTable kConvTable = {&Conv2dDepthwiseF32, &ref::Winograd23Input,
                                    &ref::Winograd23Output, &ref::Winograd43Input,
                                    &ref::Winograd43Output};
#else
const ConvKernelTable kConvTable = scalar::kConvTable;
#endif

#if defined(EDGEFOLD_HAVE_QUANTIZE_DSP)
constexpr auto kQuantizeS8 = &cortex_m_dsp::QuantizeS8;
#else
constexpr auto kQuantizeS8 = &ref::QuantizeS8;
#endif

const Int8KernelTable kInt8Table = {
    &GemmS8, &Im2colS8, &Conv2dDepthwiseS8, kQuantizeS8,     &ref::DequantizeS8,
    &AddS8,  &Pool2dS8, &ref::GlobalPoolS8, &ref::SoftmaxS8, &ref::MulS8Rows};

}  // namespace edgefold::kernels::cortex_m_mve
