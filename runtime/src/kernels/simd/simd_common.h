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
    // exp's argument is kept ≥ −80: for −x in (−104, −87) exp returns a subnormal and 1 + it
    // takes a microcode assist per lane (80 % of EfficientNet's time); 1/(1 + e^−80) == 1 in float,
    // so the result is unchanged. −x second keeps a NaN input NaN.
    case ActKind::kSigmoid: return one / (one + xsimd::exp(xsimd::max(B(-80.0f), -x)));
    case ActKind::kHardSigmoid:
      return xsimd::max(zero, xsimd::min(one, xsimd::fma(x, B(a.alpha), B(a.beta))));
    case ActKind::kHardSwish:
      return x * xsimd::max(zero, xsimd::min(one, xsimd::fma(x, B(1.0f / 6.0f), B(0.5f))));
    // x·sigmoid(x) as x/(1 + e^−x), one division. Sigmoid's clamp of exp's argument at −80
    // (no subnormal e^−x for x > 87) leaves the result x there, as unclamped; −x second keeps NaN.
    case ActKind::kSiLU: return x / (one + xsimd::exp(xsimd::max(B(-80.0f), -x)));
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
