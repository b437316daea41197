// An int8 depthwise window's taps in groups of four, the layout vpdpbusd multiplies (four u8·s8
// products a lane): shared by the AVX-512 VNNI and AVX-VNNI depthwise channels.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/conv/conv_scratch.h"

namespace edgefold::kernels {

// The most groups a window of kMaxDepthwiseS8Taps taps makes.
constexpr size_t kMaxDepthwiseS8TapGroups = (kMaxDepthwiseS8Taps + 3) / 4;

// weights[q] = taps 4q..4q+3's weights byte-wise, off[4q + t] their plane offsets, for the
// ⌈taps/4⌉ groups; a missing tap past `taps` is weight 0 over tap 0's bytes. Returns Σ wc, whose
// 128·Σ the caller takes out of its start value (the planes' sign bit is flipped to u8).
inline int32_t PackDepthwiseTapGroups(size_t taps, const size_t* offset, const int8_t* wc,
                                      int32_t* weights, size_t* off) {
  int32_t sum = 0;
  for (size_t q = 0; q < (taps + 3) / 4; ++q) {
    uint32_t packed = 0;
    for (size_t t = 0; t < 4; ++t) {
      const size_t k = 4 * q + t;
      const int8_t wk = k < taps ? wc[k] : 0;
      off[k] = k < taps ? offset[k] : offset[0];
      packed |= static_cast<uint32_t>(static_cast<uint8_t>(wk)) << (8 * t);
      sum += wk;
    }
    weights[q] = static_cast<int32_t>(packed);
  }
  return sum;
}

}  // namespace edgefold::kernels
