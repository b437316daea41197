// Even/odd split of one row for the stride-2 depthwise path and the stride-2 pools
// (simd/pool2d_simd.h):
//   even[j] = src[2j] for j < ⌈n/2⌉,  odd[j] = src[2j+1] for j < ⌊n/2⌋.
// Exactly those floats are written and only src[0, n) is read. xsimd 8.1 has no two-register
// deinterleave, so each ISA gets its intrinsic (AVX-512 masked loads/stores cover any n in
// whole registers, AVX2 a masked last step; SSE/NEON take 2W floats per step and a scalar tail).
#pragma once
#include "kernels/simd/simd_common.h"

#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

#if defined(__AVX512F__)
// Low `count` bits set, count ≤ 16.
inline __mmask16 DwLowMask(size_t count) {
  return static_cast<__mmask16>(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
}
#endif

#if defined(__AVX2__)
// Lanes [0, count) of a 256-bit load/store mask set, count ≤ 8.
inline __m256i DwAvx2LowMask(size_t count) {
  alignas(32) static constexpr int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                     0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - count));
}

// The first `count` ≤ 8 floats of v to dst, nothing after them. Not vmaskmovps: its store form
// is slow on AMD cores (with it the unzip's tail made MobileNetV3-small's 56² and 28² stride-2
// depthwise convs 1.3–1.5× slower on Zen 3).
inline void DwStoreFirst(float* dst, __m256 v, size_t count) {
  if (count == 8) return _mm256_storeu_ps(dst, v);
  __m128 part = _mm256_castps256_ps128(v);
  if (count >= 4) {
    _mm_storeu_ps(dst, part);
    dst += 4, count -= 4, part = _mm256_extractf128_ps(v, 1);
  }
  if (count >= 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(dst), part);
    dst += 2, count -= 2, part = _mm_movehl_ps(part, part);
  }
  if (count == 1) _mm_store_ss(dst, part);
}
#endif

template <class Arch>
inline void DwUnzip(const float* src, size_t n, float* even, float* odd) {
  constexpr size_t W = FBatch<Arch>::size;
  size_t i = 0;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (; i < n; i += 32) {
      const size_t left = n - i;
      const __m512 a = _mm512_maskz_loadu_ps(DwLowMask(left), src + i);
      const __m512 b = _mm512_maskz_loadu_ps(DwLowMask(left > 16 ? left - 16 : 0), src + i + 16);
      _mm512_mask_storeu_ps(even + i / 2, DwLowMask((left + 1) / 2),
                            _mm512_permutex2var_ps(a, ie, b));
      _mm512_mask_storeu_ps(odd + i / 2, DwLowMask(left / 2), _mm512_permutex2var_ps(a, io, b));
    }
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) {
    for (; i + 16 <= n; i += 16) {
      const __m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + 8);
      // shuffle_ps works per 128-bit lane: [a0 a2 b0 b2 | a4 a6 b4 b6] → reorder the 64-bit pairs.
      const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
      const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
      _mm256_storeu_ps(even + i / 2,
                       _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
      _mm256_storeu_ps(odd + i / 2,
                       _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)));
    }
    // The last 1–15 floats through masked loads (and DwStoreFirst): the scalar tail of 14-wide
    // rows had been 77 % of a 14² → 7² stride-2 depthwise conv's instructions.
    if (i < n) {
      const size_t left = n - i;
      const __m256 a = _mm256_maskload_ps(src + i, DwAvx2LowMask(left < 8 ? left : 8));
      const __m256 b = _mm256_maskload_ps(src + i + 8, DwAvx2LowMask(left > 8 ? left - 8 : 0));
      const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
      const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
      DwStoreFirst(even + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)),
                   (left + 1) / 2);
      DwStoreFirst(odd + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)),
                   left / 2);
    }
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (W == 4) {
    for (; i + 8 <= n; i += 8) {
      const __m128 a = _mm_loadu_ps(src + i), b = _mm_loadu_ps(src + i + 4);
      _mm_storeu_ps(even + i / 2, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
      _mm_storeu_ps(odd + i / 2, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    }
  }
#endif
#if defined(__ARM_NEON)
  if constexpr (W == 4) {
    for (; i + 8 <= n; i += 8) {
      const float32x4x2_t v = vld2q_f32(src + i);
      vst1q_f32(even + i / 2, v.val[0]);
      vst1q_f32(odd + i / 2, v.val[1]);
    }
  }
#endif
  for (; i + 1 < n; i += 2) {
    even[i / 2] = src[i];
    odd[i / 2] = src[i + 1];
  }
  if (i < n) even[i / 2] = src[i];
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
