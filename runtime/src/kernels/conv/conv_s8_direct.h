// Which int8 convolutions a level's Int8KernelTable::conv_s8_direct runs: the GEMM of ConvInt8
// with B's columns read from X itself (the zero point outside the image), so the op builds no
// im2col. Horizontal strides 1 and 2 (a block of consecutive output pixels inside one row reads
// one run of at most 16 input bytes per tap), a window of at most kConvS8DirectMaxTaps taps, and a GEMM depth
// that the x86 pair panels hold (simd/int8_pairs_x86.h: k ≤ 6144 widened rows, eight at once).
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"

namespace edgefold::kernels {

constexpr size_t kConvS8DirectMaxTaps = 64;
constexpr size_t kConvS8DirectMaxK = 6144;

inline bool ConvS8DirectFits(const Conv2dShape& s) {
  const size_t taps = s.kh * s.kw;
  return s.group != 0 && s.stride_w >= 1 && s.stride_w <= 2 && taps >= 1 &&
         taps <= kConvS8DirectMaxTaps && s.in_c / s.group <= kConvS8DirectMaxK / taps &&
         s.out_w > 0 && s.out_h > 0;
}

}  // namespace edgefold::kernels
