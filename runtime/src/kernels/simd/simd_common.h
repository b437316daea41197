// Shared pieces of the xsimd kernel templates.
//
// Included ONLY by runtime/src/arch/<isa>.cc, each of which defines EDGEFOLD_ARCH_NS (its own
// namespace name) first. Everything here lives in edgefold::kernels::EDGEFOLD_ARCH_NS, so even
// non-template inline helpers get a distinct symbol per ISA: the linker can never pick an
// AVX-512 copy of a helper for the SSE4.2 table (the per-arch ODR hazard of targets.md).
#ifndef EDGEFOLD_ARCH_NS
#error "kernels/simd/*.h are included only by runtime/src/arch/*.cc, after defining EDGEFOLD_ARCH_NS"
#endif
#pragma once
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/kernel_params.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
using FBatch = xsimd::batch<float, Arch>;

// The activations of kernel_params.h, one value at a time (scalar tails).
inline float ActOne(float x, const Activation& a) {
  switch (a.kind) {
    case ActKind::kNone: return x;
    case ActKind::kRelu: return std::max(x, 0.0f);
    case ActKind::kClip: return std::min(std::max(x, a.alpha), a.beta);
    case ActKind::kLeakyRelu: return x < 0.0f ? a.alpha * x : x;
    case ActKind::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case ActKind::kHardSigmoid: return std::max(0.0f, std::min(1.0f, a.alpha * x + a.beta));
    case ActKind::kHardSwish: return x * std::max(0.0f, std::min(1.0f, x * (1.0f / 6.0f) + 0.5f));
    case ActKind::kSiLU: return x / (1.0f + std::exp(-x));
  }
  return x;
}

// e^x for x in [−87, 87] (Cephes expf: 2^n · poly(r), r = x − n·ln2 in two parts; ≤ 2 ulp), the
// argument clamped there first, so every lane takes the same path and the result is a normal
// float. xsimd's exp fixes up under/overflowing lanes with masked instructions; on Zen 5 those
// made Sigmoid/SiLU 5–10× slower in some processes and not others (address-dependent, not a
// subnormal assist: FTZ/DAZ did not change it). A NaN argument stays NaN.
template <class Arch>
inline FBatch<Arch> ExpClamped(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  x = xsimd::min(B(87.0f), xsimd::max(B(-87.0f), x));   // x second: NaN passes through
  const B n = xsimd::nearbyint(x * B(1.44269504088896341f));
  B r = xsimd::fma(n, B(-0.693359375f), x);
  r = xsimd::fma(n, B(2.12194440e-4f), r);
  B p = B(1.9875691500e-4f);
  p = xsimd::fma(p, r, B(1.3981999507e-3f));
  p = xsimd::fma(p, r, B(8.3334519073e-3f));
  p = xsimd::fma(p, r, B(4.1665795894e-2f));
  p = xsimd::fma(p, r, B(1.6666665459e-1f));
  p = xsimd::fma(p, r, B(5.0000001201e-1f));
  p = xsimd::fma(p, r * r, r + B(1.0f));
  const auto bits = (xsimd::to_int(n) + 127) << 23;   // 2^n, n in [−126, 126]
  return p * xsimd::bitwise_cast<B>(bits);
}

// The same activations on a whole register.
template <class Arch>
inline FBatch<Arch> ActBatch(FBatch<Arch> x, const Activation& a) {
  using B = FBatch<Arch>;
  const B zero(0.0f), one(1.0f);
  switch (a.kind) {
    case ActKind::kNone: return x;
    // x goes second: x86 max/min return the second operand when either is NaN, so a NaN
    // input stays NaN as in the scalar reference (std::max(x, 0) keeps a NaN x).
    case ActKind::kRelu: return xsimd::max(zero, x);
    case ActKind::kClip: return xsimd::min(B(a.beta), xsimd::max(B(a.alpha), x));
    case ActKind::kLeakyRelu: return xsimd::select(x < zero, x * B(a.alpha), x);
    // ExpClamped keeps e^−x in [e^−87, e^87]: 1/(1 + e^−87) == 1 in float, and for x < −87 the
    // result is 1.6e−38 instead of a smaller (subnormal) value or 0.
    case ActKind::kSigmoid: return one / (one + ExpClamped<Arch>(-x));
    case ActKind::kHardSigmoid:
      return xsimd::max(zero, xsimd::min(one, xsimd::fma(x, B(a.alpha), B(a.beta))));
    case ActKind::kHardSwish:
      return x * xsimd::max(zero, xsimd::min(one, xsimd::fma(x, B(1.0f / 6.0f), B(0.5f))));
    // x·sigmoid(x) as x/(1 + e^−x), one division; for x < −87 the result is x·1.6e−38 (≈ 0).
    // x = −∞ gives NaN as in the reference (−∞/∞), not −∞ (−∞/(1 + e^87)).
    case ActKind::kSiLU: {
      const B y = x / (one + ExpClamped<Arch>(-x));
      return xsimd::select(x == B(-std::numeric_limits<float>::infinity()),
                           B(std::numeric_limits<float>::quiet_NaN()), y);
    }
  }
  return x;
}

// Σ x[0..n), four independent accumulators to hide the add latency.
template <class Arch>
float RowSum(const float* x, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
  size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 += B::load_unaligned(x + i);
    s1 += B::load_unaligned(x + i + W);
    s2 += B::load_unaligned(x + i + 2 * W);
    s3 += B::load_unaligned(x + i + 3 * W);
  }
  for (; i + W <= n; i += W) s0 += B::load_unaligned(x + i);
  float sum = xsimd::hadd((s0 + s1) + (s2 + s3));
  for (; i < n; ++i) sum += x[i];
  return sum;
}

// Horizontal maximum of one register.
template <class Arch>
inline float HMax(FBatch<Arch> v) {
  alignas(64) float lanes[FBatch<Arch>::size];
  v.store_aligned(lanes);
  float m = lanes[0];
  for (size_t i = 1; i < FBatch<Arch>::size; ++i) m = std::max(m, lanes[i]);
  return m;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
