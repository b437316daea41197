// Shared pieces of the xsimd kernel templates.
//
// Included ONLY by runtime/src/kernels/arch/<isa>.cc, each of which defines EDGEFOLD_ARCH_NS (its own
// namespace name) first. Everything here lives in edgefold::kernels::EDGEFOLD_ARCH_NS, so even
// non-template inline helpers get a distinct symbol per ISA: the linker can never pick an
// AVX-512 copy of a helper for the SSE4.2 table (an inline function compiled with different
// -m flags in two TUs is one weak symbol, and the linker keeps either copy).
#ifndef EDGEFOLD_ARCH_NS
#error \
    "kernels/simd/*.h are included only by runtime/src/kernels/arch/*.cc, after defining EDGEFOLD_ARCH_NS"
#endif
#pragma once
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/kernel_params.h"
#include "kernels/simd/simd_math.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// 32 vector registers (AVX-512, AArch64 NEON) rather than 16 (SSE, AVX2, ARMv7 NEON): the
// register tiles of the GEMM grow to 8 rows × 3 registers there.
template <class Arch>
constexpr bool kManyVectorRegisters = FBatch<Arch>::size >= 16
#if defined(__aarch64__)
                                      || FBatch<Arch>::size == 4
#endif
    ;

// The activations one value at a time (scalar tails), in this ISA's namespace.
#include "kernels/act_one.inc"

// The per-register bodies of ActBatchMany's loops: always inlined, so a tile's loop keeps the
// polynomial's constants in registers instead of a call per register.
#define EDGEFOLD_ACT_INLINE inline __attribute__((always_inline))

// e^−x for Sigmoid and SiLU as 2^t, t = −x·log2 e clamped to [−126, 126] (so 1 + e^−x is a
// normal float and nothing needs fixing up after): t = n + f with n = round(t), 2^f by a
// degree-5 polynomial fitted on [−1/2, 1/2] (relative error below 4e−7 in float), then 2^n
// (AVX-512: vscalefps). Rounding t costs e^−x a relative error of about 6e−8·|t| (below 1e−5
// where it matters: e^−x ≥ 2^−126 only for x ≤ 87); fewer multiply-adds than ExpClamped's range
// reduction in two parts and Cephes' polynomial, which had made SiLU cost as much as the
// 16-deep GEMM whose registers it finishes (EfficientNet-B0's expansions).
template <class Arch>
EDGEFOLD_ACT_INLINE FBatch<Arch> ExpNegForSigmoid(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  // t second: a NaN passes through (x86 max/min return their second operand for NaN).
  const B t = xsimd::min(B(126.0f), xsimd::max(B(-126.0f), x * B(-1.44269504088896341f)));
  const B n = xsimd::nearbyint(t);
  const B f = t - n;
  B p = xsimd::fma(B(0.0012903792f), f, B(0.009668033f));
  p = xsimd::fma(p, f, B(0.05551713f));
  p = xsimd::fma(p, f, B(0.24022274f));
  p = xsimd::fma(p, f, B(0.69314647f));
  p = xsimd::fma(p, f, B(1.0f));
#if defined(__AVX512F__)
  if constexpr (B::size == 16) return B(_mm512_scalef_ps(p, n));
#endif
  return p * xsimd::bitwise_cast<B>((xsimd::to_int(n) + 127) << 23);
}

// x·sigmoid(x) as x/(1 + e^−x), one division; for x < −87 the result is x·1.2e−38 (≈ 0).
// x = −∞ gives NaN as in the reference (−∞/∞), not −∞ (−∞/(1 + 2^126)).
template <class Arch>
EDGEFOLD_ACT_INLINE FBatch<Arch> SiluBatch(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  const B y = x / (B(1.0f) + ExpNegForSigmoid<Arch>(x));
  return xsimd::select(x == B(-std::numeric_limits<float>::infinity()),
                       B(std::numeric_limits<float>::quiet_NaN()), y);
}

// e^−x ≤ 2^126: 1/(1 + 2^−126) == 1 in float, and for x < −87 the result is 1.2e−38 instead
// of a smaller (subnormal) value or 0.
template <class Arch>
EDGEFOLD_ACT_INLINE FBatch<Arch> SigmoidBatch(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  return B(1.0f) / (B(1.0f) + ExpNegForSigmoid<Arch>(x));
}

template <class Arch>
EDGEFOLD_ACT_INLINE FBatch<Arch> HardSwishBatch(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  return x * xsimd::max(B(0.0f), xsimd::min(B(1.0f), xsimd::fma(x, B(1.0f / 6.0f), B(0.5f))));
}

// The same activations on a whole register: the others than None/Relu/Clip (ActBatch inlines
// those three: it runs once per output register of every GEMM and depthwise, and GCC keeps
// the whole switch out of line, a call per register).
template <class Arch>
FBatch<Arch> ActBatchOther(FBatch<Arch> x, const Activation& a) {
  using B = FBatch<Arch>;
  const B zero(0.0f), one(1.0f);
  switch (a.kind) {
    case ActKind::kNone:
    case ActKind::kRelu:
    case ActKind::kClip:
      break;  // ActBatch
    case ActKind::kLeakyRelu:
      return xsimd::select(x < zero, x * B(a.alpha), x);
    case ActKind::kSigmoid:
      return SigmoidBatch<Arch>(x);
    case ActKind::kHardSigmoid:
      return xsimd::max(zero, xsimd::min(one, xsimd::fma(x, B(a.alpha), B(a.beta))));
    case ActKind::kHardSwish:
      return HardSwishBatch<Arch>(x);
    case ActKind::kSiLU:
      return SiluBatch<Arch>(x);
    case ActKind::kTanh:
      return Tanh<Arch>(x);
    case ActKind::kExp:
      return ExpFull<Arch>(x);
    case ActKind::kLog:
      return xsimd::log(x);
    case ActKind::kSqrt:
      return SqrtExact<Arch>(x);
    case ActKind::kReciprocal:
      return DivExact<Arch>(one, x);
    case ActKind::kNeg:
      return -x;
    case ActKind::kAbs:
      return xsimd::abs(x);
    case ActKind::kErf:
      return Erf<Arch>(x);
    case ActKind::kGelu:
      return B(0.5f) * x * (one + Erf<Arch>(x * B(0.70710678118654752f)));
    case ActKind::kSquare:
      return x * x;
    case ActKind::kPow:
      return Pow<Arch>(x, a.alpha);
  }
  return x;
}

template <class Arch>
inline FBatch<Arch> ActBatch(FBatch<Arch> x, const Activation& a) {
  using B = FBatch<Arch>;
  switch (a.kind) {
    case ActKind::kNone:
      return x;
    // x goes second: x86 max/min return the second operand when either is NaN, so a NaN
    // input stays NaN as in the scalar reference (std::max(x, 0) keeps a NaN x).
    case ActKind::kRelu:
      return xsimd::max(B(0.0f), x);
    case ActKind::kClip:
      return xsimd::min(B(a.beta), xsimd::max(B(a.alpha), x));
    default:
      return ActBatchOther<Arch>(x, a);
  }
}

// act on n registers at once: a GEMM's register tile pays the dispatch and the constants of
// SiLU's, Sigmoid's or HardSwish's polynomial once, not per register through ActBatchOther's
// call (which had been a third of EfficientNet-B0's time: its SiLU expansions at 112² and 56²).
// Same values as ActBatch per register.
template <class Arch>
void ActBatchMany(FBatch<Arch>* v, size_t n, const Activation& a) {
  switch (a.kind) {
    case ActKind::kSiLU:
      for (size_t i = 0; i < n; ++i) v[i] = SiluBatch<Arch>(v[i]);
      return;
    case ActKind::kSigmoid:
      for (size_t i = 0; i < n; ++i) v[i] = SigmoidBatch<Arch>(v[i]);
      return;
    case ActKind::kHardSwish:
      for (size_t i = 0; i < n; ++i) v[i] = HardSwishBatch<Arch>(v[i]);
      return;
    default:
      for (size_t i = 0; i < n; ++i) v[i] = ActBatch<Arch>(v[i], a);
  }
}

// None, Relu and Clip: ActBatch inlines them; the others go through ActBatchMany per tile.
inline bool ActIsClamp(ActKind kind) {
  return kind == ActKind::kNone || kind == ActKind::kRelu || kind == ActKind::kClip;
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
