// int8 kernels for M-profile cores with Helium (MVE: Cortex-M55, M85): the int8 table of the
// cortex_m_mve entry of kernels/isa_list.h (arch/cortex_m_mve.cc), an extension of the Cortex-M
// DSP entry. Integer sums are exact and every output is requantized by RequantizeS8's rule, so
// the bytes equal ref::GemmS8's (tests/mcu/int8_checks.cc compares them on the target).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'M'
#define EDGEFOLD_HAVE_INT8_MVE 1

namespace edgefold::kernels::cortex_m_mve {

// As ref::GemmS8. Up to kGemmS8BlockCols columns of B at a time are transposed into a panel of
// kGemmS8PanelBytes on the stack (each column's k values contiguous, zero-padded to a multiple
// of 16; 16 × 16 bytes at a time through VST4.8 and VST4.32, int8_mve.cc); per pair of rows of
// A (interleaved into a zero-padded copy of 2·k16 bytes), each 2 × 4 block of outputs is eight
// VMLADAVA dot products per 16 k (16 multiply-accumulates an instruction), the whole block's
// groups in one assembly loop. A row's sums are requantized four lanes at a time
// (RequantRowMve). Stack: about 11 KiB (panel, row pair, sums). The panel is 8 KiB so that
// ResNet-8's k = 576 layers still pack 12 columns a block (4 KiB: 4, and 0.39 M instructions
// more per inference). k above kGemmS8MaxK16 runs the DSP entry's GEMM.
constexpr size_t kGemmS8PanelBytes = 8192;
constexpr size_t kGemmS8MaxK16 = 1024;  // k rounded up to 16: A's row pair copy, 2 KiB
constexpr size_t kGemmS8BlockCols = 64;
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y);

// As ref::Im2colS8 (int8_mve_im2col.cc): each output row written 16 bytes a vector, input bytes
// under a predicate of the valid columns, the pad value elsewhere; strides above 2 run the
// portable code.
void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col);

// As ref::Pool2dS8 (int8_mve_pool.cc): average pooling with each window row summed by vectors;
// max pooling and dilated windows run the portable code.
void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y, size_t planes);

// As ref::Conv2dDepthwiseS8 (int8_mve_depthwise.cc): 3 × 3 windows at strides 1 and 2 (dilation
// 1, rows of up to 256 outputs) over one zp-padded plane, four outputs a vector; other shapes run
// cortex_m_dsp::Conv2dDepthwiseS8.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y);

// As ref::AddS8 (int8_mve_add.cc): four outputs a vector, the 64-bit sum split at bit 16 of the
// multipliers; shifts outside [17, 46] run the portable code.
void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n);

// y[0, n) = RequantizeS8(acc[j], multiplier, shift, zp, act_min, act_max), four lanes an
// instruction where 1 ≤ t = 31 + shift − 32 ≤ 30 (in sign and magnitude: VMULH of |acc|, a
// rounding shift right by t, the sign put back); other shifts take RequantizeS8 per output. acc is read up to n rounded up to 4.
void RequantRowMve(const int32_t* acc, size_t n, int32_t multiplier, int32_t shift,
                   int32_t zero_point, int32_t act_min, int32_t act_max, int8_t* y);

}  // namespace edgefold::kernels::cortex_m_mve
#endif
