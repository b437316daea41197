// Parameters of the int8 kernels and the one requantization rule every table shares
// (docs/quantization.md). Integer arithmetic only, so every ISA produces the same bits.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold::kernels {

// v / 2^n rounded half away from zero, n ∈ [1, 62], |v| < 2^62 (exact in 64 bits).
// Branch-free (the sign of an accumulator is data, not a pattern the predictor can learn):
// |v| rounded half up, then the sign put back.
inline int64_t RoundShiftHalfAway(int64_t v, int n) {
  const int64_t sign = v >> 63;  // 0 or −1
  const int64_t magnitude = ((v ^ sign) - sign + (int64_t{1} << (n - 1))) >> n;
  return (magnitude ^ sign) - sign;
}

// RoundShiftHalfAway(acc·M, n) clamped to ±2^30 (beyond int8 either way), for n < 32 (a real
// multiplier of at least 1/2): rare, so out of line, which keeps every inlined RequantizeS8 short.
[[gnu::noinline]] static inline int32_t RoundShiftWideS8(int32_t acc, int32_t multiplier, int n) {
  const int64_t v = RoundShiftHalfAway(static_cast<int64_t>(acc) * multiplier, n);
  constexpr int64_t kBound = int64_t{1} << 30;
  return static_cast<int32_t>(v < -kBound ? -kBound : v > kBound ? kBound : v);
}

// q = clamp(zp + RoundShift(acc·M, 31 + shift), lo, hi): the real multiplier M·2^−(31+shift),
// M ∈ [2^30, 2^31), shift ∈ [−30, 31] (ops check both in Prepare).
// For n = 31 + shift ≥ 32 (a real multiplier below 1/2: nearly every conv) the same value in
// 32-bit steps around one 32×32→64 multiply (SMULL on 32-bit ARM): v = acc·M has acc's sign
// (M > 0), floor((v + 2^(n−1) − [v < 0]) / 2^n) is v / 2^n rounded half away from zero, and
// floor(w / 2^n) = floor(hi32(w) / 2^(n−32)). The clamp works in 32 bits.
inline int8_t RequantizeS8(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                           int32_t act_min, int32_t act_max) {
  const int n = 31 + shift;
  int32_t r;
  if (n >= 32) {
    const int t = n - 32;  // 2^(n−1) = half_hi·2^32 + half_lo
    const uint32_t half_hi = (1u << t) >> 1, half_lo = t == 0 ? 0x80000000u : 0u;
    const int64_t w = int64_t{acc} * multiplier +
                      static_cast<int64_t>((uint64_t{half_hi} << 32) | half_lo) + (acc >> 31);
    r = static_cast<int32_t>(w >> 32) >> t;
  } else {
    r = RoundShiftWideS8(acc, multiplier, n);
  }
  int32_t q = zero_point + r;
  q = q < act_min ? act_min : q > act_max ? act_max : q;
  return static_cast<int8_t>(q);
}

// Y[m×n] (row stride ldy) = requantize_m(bias[m] + Σ_k A[m,k]·B[k,n]), A row-major (lda),
// B row-major (ldb). Row m is one output channel: bias, multiplier and shift per row; the
// input's zero point is already folded into bias (−zp_in·Σ_k A[m,k]; padding reads zp_in).
// k·128·128 must stay below 2^31 (ops check k ≤ kMaxGemmS8K).
struct GemmS8Params {
  size_t m = 0, n = 0, k = 0;
  size_t lda = 0, ldb = 0, ldy = 0;
  const int32_t* bias = nullptr;        // m values, or nullptr
  const int32_t* multiplier = nullptr;  // m values
  const int32_t* shift = nullptr;       // m values
  int32_t y_zero_point = 0;
  int32_t act_min = -128, act_max = 127;
  // Depthwise only (Int8KernelTable::conv2d_depthwise_s8): the bytes of `plane` the op's plan
  // gives, at least ConvS8DepthwisePlaneBytes; with ConvS8DepthwiseHwcBytes or more a level
  // that has the channels-innermost kernel runs it (kernels/conv/conv_scratch.h).
  size_t depthwise_scratch_bytes = 0;
  // Every pair of A at even k has |A[i,2q]| + |A[i,2q+1]| ≤ 128 (S8PairsFitU8, set by the op at
  // Prepare): an x86 level without VNNI may then multiply u8·s8 pairs in int16 exactly
  // (simd/int8_quads_x86.h). Only a permission; every kernel gives the same bits.
  bool a_pairs_fit_u8 = false;
};

// Only the x86 levels read S8PairsFitU8 (their u8·s8 tiles), and only they have an im2col-free conv
// (Int8KernelTable::conv_s8_direct): elsewhere the ops skip both (Cortex-M flash, and no scan
// of the weights at Prepare).
#if defined(__x86_64__) || defined(__i386__)
constexpr bool kX86Int8Paths = true;
#else
constexpr bool kX86Int8Paths = false;
#endif

// True when each of the m rows of A[m×k] (row stride lda) has |A[i,2q]| + |A[i,2q+1]| ≤ 128
// for every pair at even k (the last of an odd k pairs with zero): 255 times such a pair fits
// in int16 (GemmS8Params::a_pairs_fit_u8).
inline bool S8PairsFitU8(const int8_t* a, size_t m, size_t k, size_t lda) {
  for (size_t i = 0; i < m; ++i)
    for (size_t q = 0; q < k; q += 2) {
      const int32_t a0 = a[i * lda + q], a1 = q + 1 < k ? a[i * lda + q + 1] : 0;
      if ((a0 < 0 ? -a0 : a0) + (a1 < 0 ? -a1 : a1) > 128) return false;
    }
  return true;
}
constexpr size_t kMaxGemmS8K = 131071;

// y = clamp(zp_y + RoundShift((a − zp_a)·ma + (b − zp_b)·mb, shift), act_min, act_max),
// ma, mb ∈ [0, 2^31), shift ∈ [1, 62].
struct AddS8Params {
  int32_t a_zero_point = 0, b_zero_point = 0, y_zero_point = 0;
  int32_t multiplier_a = 0, multiplier_b = 0, shift = 1;
  int32_t act_min = -128, act_max = 127;
};

// MulInt8 with B one value per row of A (the squeeze-excitation's channel scale):
//   y[r·inner + j] = RequantizeS8((a[r·inner + j] − zp_a)·(b[r] − zp_b), multiplier, shift,
//                                 zp_y, act_min, act_max),
// multiplier ∈ [2^30, 2^31), shift ∈ [−30, 31] (RequantizeS8's range).
struct MulS8Params {
  int32_t a_zero_point = 0, b_zero_point = 0, y_zero_point = 0;
  int32_t multiplier = 1 << 30, shift = 0;
  int32_t act_min = -128, act_max = 127;
};

// Quantize: q = clamp(round_half_even(x·inv_scale) + zp, −128, 127), NaN → zp.
// Dequantize: y = (q − zp)·scale.
struct QuantS8Params {
  float scale = 1.0f;      // Dequantize
  float inv_scale = 1.0f;  // Quantize: 1/scale, computed once by the op
  int32_t zero_point = 0;
};

}  // namespace edgefold::kernels
