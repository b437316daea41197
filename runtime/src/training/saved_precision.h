// 16-bit storage of the values a training step keeps for its backward (compile --train
// --saved-precision fp16|bf16): BatchNorm's x̂ is computed in float32, stored in 16 bits from
// its forward to its backward, and widened back to float32 for the backward's arithmetic.
// Round to nearest even in both formats; fp16 saturates to ±inf beyond 65504 (x̂ is a
// normalized value: |x̂| ≤ √m for m samples per channel, far inside either range).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgefold::internal {

enum class SavedPrecision : uint8_t { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

inline uint16_t FloatToBFloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float BFloat16ToFloat(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // ≥ 65520: inf
  if (abs < 0x38800000u) {                                               // subnormal or 0
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);           // < 2^-25: ±0
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (abs >> 23);  // value / 2^-24 = mant · 2^(e − 126)
    const uint32_t rounded = (mant + (1u << (shift - 1)) - 1u + ((mant >> shift) & 1u)) >> shift;
    return static_cast<uint16_t>(sign | rounded);
  }
  const uint32_t rebias = abs - 0x38000000u;  // exponent 127 → 15
  const uint32_t rounded = (rebias + 0xfffu + ((rebias >> 13) & 1u)) >> 13;
  return static_cast<uint16_t>(sign | rounded);
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: normalize
      uint32_t e = 113, m = mant;
      while ((m & 0x400u) == 0) {
        m <<= 1;
        --e;
      }
      u = sign | (e << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    u = sign | 0x7f800000u | (mant << 13);
  } else {
    u = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline uint16_t Narrow1(SavedPrecision p, float x) {
  return p == SavedPrecision::kFloat16 ? FloatToHalf(x) : FloatToBFloat16(x);
}

inline float Widen1(SavedPrecision p, uint16_t h) {
  return p == SavedPrecision::kFloat16 ? HalfToFloat(h) : BFloat16ToFloat(h);
}

// x̂ narrowed so that the activation fused after the BatchNorm sees z = γ·x̂ + β on the same
// side of its breakpoints as the exact x̂ did: the backward recomputes the activation's gradient
// (a ReLU's mask) from the stored x̂, and a mask flipped by rounding would pass or drop a whole
// gradient. Nearest rounding crossed a breakpoint only if the breakpoint lies between x̂ and
// its rounded value; the neighbour on x̂'s side (one step toward x̂) is then on the right side,
// still within one unit of x̂. `same_side(z_exact, z_stored)` says whether the two agree.
template <class SameSide>
inline uint16_t NarrowKeepingSide(SavedPrecision p, float xhat, float gamma, float beta,
                                  SameSide same_side) {
  const uint16_t h = Narrow1(p, xhat);
  const float stored = Widen1(p, h);
  if (stored == xhat || same_side(gamma * xhat + beta, gamma * stored + beta)) return h;
  // One step toward x̂: sign-magnitude encodings step the magnitude (both formats).
  const bool away_from_zero = (xhat > stored) == (stored >= 0.0f);
  const uint16_t magnitude = h & 0x7fffu;
  if (magnitude == 0 && !away_from_zero) return h;
  const uint16_t next =
      away_from_zero ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h - 1);
  return magnitude == 0 ? static_cast<uint16_t>((xhat < 0.0f ? 0x8000u : 0u) | 1u) : next;
}

}  // namespace edgefold::internal
