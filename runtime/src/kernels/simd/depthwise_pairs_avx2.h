// The arithmetic of one int8 depthwise channel over its flat phase planes on AVX2
// (simd/int8_simd.h DepthwiseChannelS8): 16 consecutive outputs a step, the taps taken two at a
// time as vpmaddwd of interleaved int16 (x_a, x_b)·(w_a, w_b) — an odd last tap paired with a
// zero weight. Against one widening load, vpmulld and add per tap and 8 outputs: half the
// multiplies, no vpmulld. Integer sums are exact (|x·w| ≤ 2^14, two a lane), so the caller's
// requantization gives the reference's bits.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/conv/conv_scratch.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS::avx2_depthwise {

struct TapPairs {
  size_t pairs;  // (taps + 1) / 2
  size_t taps;
  int32_t weight[(kMaxDepthwiseS8Taps + 1) / 2];  // (w_a & 0xFFFF) | w_b << 16
};

inline TapPairs MakeTapPairs(const int32_t* weight, size_t taps) {
  TapPairs t;
  t.taps = taps;
  t.pairs = (taps + 1) / 2;
  for (size_t k = 0; k < t.pairs; ++k) {
    const int32_t wa = weight[2 * k], wb = 2 * k + 1 < taps ? weight[2 * k + 1] : 0;
    t.weight[k] = static_cast<int32_t>((static_cast<uint32_t>(wa) & 0xFFFFu) |
                                       (static_cast<uint32_t>(wb) << 16));
  }
  return t;
}

// bias + Σ_k w_k·plane[offset[k] + j] for j < 16: j 0–7 in `first`, 8–15 in `second`. kTaps:
// the tap count known at compile time (the loop unrolled), 0: t.taps.
template <size_t kTaps>
inline void Sums16(const TapPairs& t, const int8_t* plane, const size_t* offset, int32_t bias,
                   __m256i& first, __m256i& second) {
  const size_t taps = kTaps != 0 ? kTaps : t.taps;
  // unpacklo/hi work within 128-bit halves: `lo` holds outputs 0–3 and 8–11, `hi` 4–7, 12–15.
  __m256i lo = _mm256_set1_epi32(bias), hi = lo;
  const auto load = [&](size_t k) {
    return _mm256_cvtepi8_epi16(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(plane + offset[k])));
  };
#pragma GCC unroll 13
  for (size_t k = 0; k < (taps + 1) / 2; ++k) {
    const __m256i w = _mm256_set1_epi32(t.weight[k]);
    const __m256i xa = load(2 * k);
    const __m256i xb = 2 * k + 1 < taps ? load(2 * k + 1) : xa;  // its weight is 0
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), w));
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), w));
  }
  first = _mm256_permute2x128_si256(lo, hi, 0x20);
  second = _mm256_permute2x128_si256(lo, hi, 0x31);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS::avx2_depthwise
