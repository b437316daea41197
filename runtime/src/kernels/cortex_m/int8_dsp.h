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

// As ref::GemmS8 (int8_dsp_gemm4.cc), in 4 × 2 tiles with A's four rows and B's column pairs
// widened to int16 once: 11 instructions for 16 multiply-accumulates. On the stack,
// kGemmS8Tile4PackedWords words: the widened A block (4 rows × a k block of at most
// kGemmS8Tile4MaxK int16) and, in the rest, the panel (as many column pairs as fit, a pair taking
// the k block rounded up to 8 words; up to 64 columns); with the sums, about 13.5 KiB. Larger k
// runs in blocks, the sums kept between them. A is packed again for every column block, so a
// firmware with stack to spare may give the panel more words (EDGEFOLD_DSP_GEMM_PANEL_WORDS,
// default 2048: 2944 is 3.5 KiB more and packs ResNet-8's k = 576 layer's A 7 times, not 11).
#if !defined(EDGEFOLD_DSP_GEMM_PANEL_WORDS)
#define EDGEFOLD_DSP_GEMM_PANEL_WORDS 2048
#endif
constexpr size_t kGemmS8Tile4MaxK = 576;
constexpr size_t kGemmS8Tile4PackedWords = EDGEFOLD_DSP_GEMM_PANEL_WORDS + 2 * kGemmS8Tile4MaxK;
static_assert(EDGEFOLD_DSP_GEMM_PANEL_WORDS >= kGemmS8Tile4MaxK, "the panel holds a column pair");
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);

// As ref::Conv2dDepthwiseS8 (int8_dsp_depthwise.cc). Strides 1 and 2, dilation 1, with a plane
// (ConvS8DepthwisePlaneBytes) run over one zp-padded plane: 3 × 3 windows four outputs a step,
// others two stride-1 outputs or one stride-2 output a step; other shapes run the portable code.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y);

// As ref::AddS8 (int8_dsp_add.cc): one SMULL and one SMLAL per output and the rounding in 32-bit
// steps for shifts 9 … 31 (the compiler's for operand-to-output scale ratios near 1); other
// shifts run the portable code.
void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n);

// As ref::Im2colS8 (int8_dsp_im2col.cc), strides 1 and 2: runs copied a word at a time, pads
// stored inline (no memcpy or fill call per run); other strides run the portable code.
void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col);

// As ref::Pool2dS8 (int8_dsp_pool.cc): averages over whole planes sum four bytes with two SMLADs;
// other pools run the portable code.
void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y, size_t planes);

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
