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
#include "kernels/scalar/scalar_core_table.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::cortex_m_mve {

// The float core table: the scalar level's kernels with Helium's GEMM and pooling, constant-
// initialized (scalar/scalar_core_table.h).
#if defined(EDGEFOLD_HAVE_F32_MVE)
const KernelTable kTable = scalar::ScalarCoreTable(&GemmF32, &Pool2dF32);
#else
const KernelTable kTable = scalar::ScalarCoreTable(&scalar::GemmTiled, &ref::Pool2d);
#endif

// The convolution family: the scalar level's with Helium's float depthwise convolution.
#if defined(EDGEFOLD_HAVE_F32_MVE)
const ConvKernelTable kConvTable = {&Conv2dDepthwiseF32,    &ref::Winograd23Input,
                                    &ref::Winograd23Output, &ref::Winograd43Input,
                                    &ref::Winograd43Output, nullptr};
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
