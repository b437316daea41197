// Float math on whole registers for the activations (ActBatch, simd_common.h): exp, tanh, erf,
// pow. Branch-free: every lane takes the same path and no masked fix-up runs after the
// polynomial (xsimd's exp fixes up under/overflowing lanes with masked instructions, which made
// Sigmoid/SiLU much slower in some processes and not others: bench/README.md). NaN in, NaN out.
// Included ONLY through simd_common.h (per-arch namespace, see there).
#pragma once
#include <xsimd/xsimd.hpp>

#include <cmath>
#include <limits>
#include <type_traits>

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
using FBatch = xsimd::batch<float, Arch>;

// a/b and √x correctly rounded. xsimd 8.1's neon64 keeps NEON's reciprocal-estimate division
// and square root for float (Newton steps: ulps off, √inf = NaN, wrong for subnormal divisors);
// AArch64 has the exact instructions.
template <class Arch>
inline FBatch<Arch> DivExact(FBatch<Arch> a, FBatch<Arch> b) {
#if defined(__aarch64__)
  if constexpr (std::is_same<Arch, xsimd::neon64>::value) return FBatch<Arch>(vdivq_f32(a, b));
#elif defined(__ARM_NEON)
  // ARMv7 NEON has neither instruction: the lanes go through VFP, which is exact.
  if constexpr (std::is_same<Arch, xsimd::neon>::value) {
    alignas(16) float x[4], y[4];
    a.store_aligned(x);
    b.store_aligned(y);
    for (int i = 0; i < 4; ++i) x[i] /= y[i];
    return FBatch<Arch>::load_aligned(x);
  }
#endif
  return a / b;
}
template <class Arch>
inline FBatch<Arch> SqrtExact(FBatch<Arch> x) {
#if defined(__aarch64__)
  if constexpr (std::is_same<Arch, xsimd::neon64>::value) return FBatch<Arch>(vsqrtq_f32(x));
#elif defined(__ARM_NEON)
  if constexpr (std::is_same<Arch, xsimd::neon>::value) {
    alignas(16) float v[4];
    x.store_aligned(v);
    for (int i = 0; i < 4; ++i) v[i] = __builtin_sqrtf(v[i]);
    return FBatch<Arch>::load_aligned(v);
  }
#endif
  return xsimd::sqrt(x);
}

// Cephes expf's polynomial: e^r for r = x − n·ln2 ∈ [−ln2/2, ln2/2] (ln2 in two parts), with
// n = round(x·log2 e) returned through *n.
template <class Arch>
inline __attribute__((always_inline)) FBatch<Arch> ExpReduced(FBatch<Arch> x, FBatch<Arch>* n) {
  using B = FBatch<Arch>;
  *n = xsimd::nearbyint(x * B(1.44269504088896341f));
  B r = xsimd::fma(*n, B(-0.693359375f), x);
  r = xsimd::fma(*n, B(2.12194440e-4f), r);
  B p = B(1.9875691500e-4f);
  p = xsimd::fma(p, r, B(1.3981999507e-3f));
  p = xsimd::fma(p, r, B(8.3334519073e-3f));
  p = xsimd::fma(p, r, B(4.1665795894e-2f));
  p = xsimd::fma(p, r, B(1.6666665459e-1f));
  p = xsimd::fma(p, r, B(5.0000001201e-1f));
  return xsimd::fma(p, r * r, r + B(1.0f));
}

// e^x for x in [−87, 87] (≤ 2 ulp), the argument clamped there first, so the result is always
// a normal float: 1/(1 + e^−x) and x/(1 + e^−x) need nothing more (Sigmoid, SiLU, Tanh, Erf).
template <class Arch>
inline __attribute__((always_inline)) FBatch<Arch> ExpClamped(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  x = xsimd::min(B(87.0f), xsimd::max(B(-87.0f), x));  // x second: NaN passes through
  B n;
  const B p = ExpReduced<Arch>(x, &n);
  const auto bits = (xsimd::to_int(n) + 127) << 23;  // 2^n, n in [−126, 126]
  return p * xsimd::bitwise_cast<B>(bits);
}

// e^x over the whole float range (the Exp activation): x clamped to [−104, 88.8], beyond which
// the float result is 0 / +inf anyway; 2^n (n ∈ [−150, 128]) applied as two normal factors
// 2^⌊n/2⌋·2^(n−⌊n/2⌋), so overflow to inf and gradual underflow come from the multiplies.
template <class Arch>
inline FBatch<Arch> ExpFull(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  x = xsimd::min(B(88.8f), xsimd::max(B(-104.0f), x));
  B n;
  const B p = ExpReduced<Arch>(x, &n);
  const auto ni = xsimd::to_int(n);
  const auto n1 = ni >> 1;
  const auto n2 = ni - n1;
  return (p * xsimd::bitwise_cast<B>((n1 + 127) << 23)) * xsimd::bitwise_cast<B>((n2 + 127) << 23);
}

// x with the sign bit of s.
template <class Arch>
inline FBatch<Arch> WithSignOf(FBatch<Arch> x, FBatch<Arch> s) {
  return xsimd::bitwise_or(xsimd::abs(x), xsimd::bitofsign(s));
}

// tanh x (Cephes tanhf): |x| < 0.625: x + x³·P(x²); otherwise ±(1 − 2/(e^{2|x|} + 1)), where
// ExpClamped's bound makes |x| ≥ 43.5 (and ±inf) exactly ±1.
template <class Arch>
inline FBatch<Arch> Tanh(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  const B ax = xsimd::abs(x), z = x * x;
  B p = B(-5.70498872745e-3f);
  p = xsimd::fma(p, z, B(2.06390887954e-2f));
  p = xsimd::fma(p, z, B(-5.37397155531e-2f));
  p = xsimd::fma(p, z, B(1.33314422036e-1f));
  p = xsimd::fma(p, z, B(-3.33332819422e-1f));
  const B small = xsimd::fma(p * z, x, x);
  const B big = B(1.0f) - DivExact<Arch>(B(2.0f), ExpClamped<Arch>(ax + ax) + B(1.0f));
  return xsimd::select(ax < B(0.625f), small, WithSignOf<Arch>(big, x));
}

// erf x, the polynomials of boost.simd's erf (as in xsimd 8.1, Boost licence): |x| < 2/3:
// x·P(x²); otherwise ±(1 − e^{−x²}·Q(|x|/(1+|x|) − 0.4)), with ExpClamped instead of xsimd's
// exp and |x| capped at 10 (erf is 1 in float from 3.9 on), so ±inf gives ±1.
template <class Arch>
inline FBatch<Arch> Erf(FBatch<Arch> x) {
  using B = FBatch<Arch>;
  const B ax = xsimd::abs(x), x2 = x * x;
  B p = B(-6.095205117313012e-04f);
  p = xsimd::fma(p, x2, B(5.013293006147870e-03f));
  p = xsimd::fma(p, x2, B(-2.678010670585737e-02f));
  p = xsimd::fma(p, x2, B(1.128218315189123e-01f));
  p = xsimd::fma(p, x2, B(-3.761252839094832e-01f));
  p = xsimd::fma(p, x2, B(1.128379154774254e+00f));
  const B small = x * p;
  const B a = xsimd::min(B(10.0f), ax);  // ax second: NaN passes through
  const B z = DivExact<Arch>(a, B(1.0f) + a) - B(0.4f);
  B q = B(-2.628299919293280e+00f);
  q = xsimd::fma(q, z, B(6.702908785399893e+00f));
  q = xsimd::fma(q, z, B(-6.409487379234005e+00f));
  q = xsimd::fma(q, z, B(3.260765682222576e+00f));
  q = xsimd::fma(q, z, B(-1.364514006347145e+00f));
  q = xsimd::fma(q, z, B(1.562764709849380e-01f));
  q = xsimd::fma(q, z, B(1.420508523645926e-01f));
  q = xsimd::fma(q, z, B(3.843569094305250e-01f));
  q = xsimd::fma(q, z, B(1.603704761054187e-01f));
  q = xsimd::fma(q, z, B(-1.137035586823118e+00f));
  q = xsimd::fma(q, z, B(5.392844046572836e-01f));
  const B big = B(1.0f) - ExpClamped<Arch>(-(a * a)) * q;
  return xsimd::select(ax < B(2.0f / 3.0f), small, WithSignOf<Arch>(big, x));
}

// x^n for an integer n, |n| ≤ kPowMaxIntExponent, by binary powering (≤ ⌈log2 |n|⌉ + popcount
// multiplies, each rounding once; n < 0: one division). Signs, zeros, inf and NaN follow from
// IEEE arithmetic as in C's pow, except that an intermediate x^|n| under- or overflowing for
// n < 0 gives inf/0 where the true result is beyond float's range anyway.
constexpr float kPowMaxIntExponent = 64.0f;
template <class Arch>
inline FBatch<Arch> PowInt(FBatch<Arch> x, int n) {
  using B = FBatch<Arch>;
  unsigned m = static_cast<unsigned>(n < 0 ? -n : n);
  B r(1.0f), p = x;
  for (; m != 0; m >>= 1) {
    if (m & 1u) r *= p;
    if (m > 1) p *= p;
  }
  return n < 0 ? DivExact<Arch>(B(1.0f), r) : r;
}

// x^e for a constant e, as C's powf: integer |e| ≤ 64 by PowInt; otherwise e^(e·ln|x|), NaN for
// finite x < 0. Relative error of the latter about (1 + |e·ln x|)·2^−24 plus exp's 2 ulp: the
// rounding of ln x is scaled by e·ln x.
template <class Arch>
inline FBatch<Arch> Pow(FBatch<Arch> x, float e) {
  using B = FBatch<Arch>;
  if (std::nearbyint(e) == e && std::fabs(e) <= kPowMaxIntExponent)
    return PowInt<Arch>(x, static_cast<int>(e));
  const B r = ExpFull<Arch>(B(e) * xsimd::log(xsimd::abs(x)));
  if (std::nearbyint(e) == e) {  // a large integer: the sign of x when odd
    const bool odd = std::fmod(e, 2.0f) != 0.0f;
    return odd ? xsimd::bitwise_or(r, xsimd::bitofsign(x)) : r;
  }
  return xsimd::select((x < B(0.0f)) && (x > B(-std::numeric_limits<float>::infinity())),
                       B(std::numeric_limits<float>::quiet_NaN()), r);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
