// int8 kernels for M-profile cores with the DSP extension (Cortex-M4/M7/M33: SXTB16, SMLAD):
// the int8 table of the cortex_m_dsp entry of kernels/isa_list.h (arch/cortex_m_dsp.cc), an
// extension of the scalar level. ref::GemmS8, ref::Conv2dDepthwiseS8 and ref::QuantizeS8 stay the
// readable definition of the bits. Integer sums are exact and every output is requantized by
// RequantizeS8's rule (RequantRow, int8_dsp_util.h, computes the same bits), so both give the
// same bytes (tests/mcu/int8_checks.cc compares them on the target).
#pragma once
#include <cstdint>

#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"

// M-profile only: A-profile ARMv7 has the instructions too, but its NEON table is the int8 path
// there, and the asm loops need 13 free registers, more than an ARM-mode frame leaves.
#if defined(__ARM_FEATURE_DSP) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define EDGEFOLD_HAVE_INT8_DSP 1

namespace edgefold::kernels::cortex_m_dsp {

// As ref::GemmS8. B is packed two columns at a time into int16 pairs on the stack
// (kGemmS8PanelK words a panel, 1 KiB: as many column pairs as fit, up to kGemmS8BlockCols
// columns); each row's accumulators for those columns are requantized together (RequantRow,
// int8_dsp_util.h). For k above kGemmS8PanelK, partial sums of up to kGemmS8RowBlock rows are
// kept on the stack between panels.
constexpr size_t kGemmS8PanelK = 256;
constexpr size_t kGemmS8RowBlock = 32;
constexpr size_t kGemmS8BlockCols = 64;
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);

// As ref::Conv2dDepthwiseS8 (int8_dsp_depthwise.cc). Strides 1 and 2, dilation 1, with a plane
// (ConvS8DepthwisePlaneBytes) run over one zp-padded plane: 3 × 3 windows four outputs a step,
// others two stride-1 outputs or one stride-2 output a step; other shapes run the portable code.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y);

}  // namespace edgefold::kernels::cortex_m_dsp

// With a single-precision FPU as well (M4F, M7): Quantize by VCVTR (below).
#if defined(__ARM_FP) && (__ARM_FP & 4)
#define EDGEFOLD_HAVE_QUANTIZE_DSP 1
namespace edgefold::kernels::cortex_m_dsp {
// As ref::QuantizeS8: VCVTR rounds x·inv_scale to nearest even (the FPSCR's default
// mode, which the portable magic-number rounding also assumes), saturates to int32 and turns
// NaN into 0; QADD adds the zero point without overflow and SSAT clamps to int8. Beyond ±512 the
// portable code clamps first, which ends at −128 or 127 all the same.
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n);
}  // namespace edgefold::kernels::cortex_m_dsp
#endif
#endif
