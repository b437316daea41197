// The cortex_m_dsp entry's int8 table (kernels/isa_list.h): the scalar level's, with the DSP
// extension's GEMM, im2col, depthwise convolution, Add and whole-plane average pools and, with a single-precision FPU, its Quantize
// (kernels/cortex_m/int8_dsp.h). Every other family is the scalar level's.
#include "kernels/cortex_m/int8_dsp.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {

#if defined(EDGEFOLD_HAVE_QUANTIZE_DSP)
constexpr auto kQuantizeS8 = &QuantizeS8;
#else
constexpr auto kQuantizeS8 = &ref::QuantizeS8;
#endif

const Int8KernelTable kInt8Table = {
    &GemmS8, &Im2colS8, &Conv2dDepthwiseS8, kQuantizeS8,     &ref::DequantizeS8,
    &AddS8,  &Pool2dS8, &ref::GlobalPoolS8, &ref::SoftmaxS8, &ref::MulS8Rows};

}  // namespace edgefold::kernels::cortex_m_dsp
