// Element-wise kernels over one register at a time with scalar tails: channel_affine,
// batchnorm_inference, activation, prelu, binary. See kernel_table.h for the contracts.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// y[i] = act(x[i]·s + t) over one contiguous row.
template <class Arch>
void AffineRow(const float* x, float s, float t, float* y, size_t n, const Activation& act) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B vs(s), vt(t);
  size_t i = 0;
  for (; i + W <= n; i += W)
    ActBatch<Arch>(xsimd::fma(B::load_unaligned(x + i), vs, vt), act).store_unaligned(y + i);
  for (; i < n; ++i) y[i] = ActOne(x[i] * s + t, act);
}

// y[c] = act(x[c]·scale[c] + shift[c]): the spatial == 1 layout, vectorized across channels.
template <class Arch>
void AffineAcross(const float* x, const float* scale, const float* shift, float* y, size_t n,
                  const Activation& act) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const B v = xsimd::fma(B::load_unaligned(x + i), B::load_unaligned(scale + i),
                           B::load_unaligned(shift + i));
    ActBatch<Arch>(v, act).store_unaligned(y + i);
  }
  for (; i < n; ++i) y[i] = ActOne(x[i] * scale[i] + shift[i], act);
}

// y[c,i] = act(x[c,i]·scale[c] + shift[c])
template <class Arch>
void ChannelAffine(const float* x, const float* scale, const float* shift, float* y,
                   size_t channels, size_t spatial, Activation act) {
  if (spatial == 1) return AffineAcross<Arch>(x, scale, shift, y, channels, act);
  for (size_t c = 0; c < channels; ++c) {
    AffineRow<Arch>(x + c * spatial, scale[c], shift[c], y + c * spatial, spatial, act);
  }
}

// scale = γ/√(σ²+ε), shift = β − μ·scale per channel, then as ChannelAffine.
template <class Arch>
void BatchnormInference(const float* x, const float* gamma, const float* beta, const float* mean,
                        const float* var, float eps, float* y, size_t channels, size_t spatial,
                        Activation act) {
  for (size_t c = 0; c < channels; ++c) {
    const float scale = gamma[c] / std::sqrt(var[c] + eps);
    const float shift = beta[c] - mean[c] * scale;
    AffineRow<Arch>(x + c * spatial, scale, shift, y + c * spatial, spatial, act);
  }
}

// y[i] = act(x[i])
template <class Arch>
void ActivationKernel(const float* x, float* y, size_t n, Activation act) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t i = 0;
  // Runs of registers through ActBatchMany: one dispatch per run, not a call per register.
  constexpr size_t kRun = 8;
  B run[kRun];
  for (; i + kRun * W <= n; i += kRun * W) {
    for (size_t r = 0; r < kRun; ++r) run[r] = B::load_unaligned(x + i + r * W);
    ActBatchMany<Arch>(run, kRun, act);
    for (size_t r = 0; r < kRun; ++r) run[r].store_unaligned(y + i + r * W);
  }
  // The rest in one more run: the last whole registers, then the last n mod W values through
  // a zero-padded register (a 7 × 7 plane is 6 registers and 1 value: per register and per
  // value the dispatch and a scalar exp had cost more than the vector work).
  const size_t whole = (n - i) / W;
  for (size_t r = 0; r < whole; ++r) run[r] = B::load_unaligned(x + i + r * W);
  alignas(64) float tail[W] = {};
  const size_t left = n - i - whole * W;
  std::copy(x + i + whole * W, x + n, tail);
  run[whole] = B::load_aligned(tail);
  const size_t regs = whole + (left != 0);
  if (regs == 0) return;
  ActBatchMany<Arch>(run, regs, act);
  for (size_t r = 0; r < whole; ++r) run[r].store_unaligned(y + i + r * W);
  run[whole].store_aligned(tail);
  std::copy(tail, tail + left, y + i + whole * W);
}

// y[i] = x ≥ 0 ? x : s·x, s per element (slope_step 1) or shared (slope_step 0).
template <class Arch>
void PreluRow(const float* x, const float* slope, size_t slope_step, float* y, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B zero(0.0f);
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const B v = B::load_unaligned(x + i);
    const B s = slope_step ? B::load_unaligned(slope + i) : B(slope[0]);
    xsimd::select(v >= zero, v, v * s).store_unaligned(y + i);
  }
  for (; i < n; ++i) y[i] = x[i] >= 0.0f ? x[i] : slope[i * slope_step] * x[i];
}

template <class Arch>
void Prelu(const float* x, const float* slope, float* y, size_t channels, size_t spatial,
           bool slope_per_channel) {
  if (spatial == 1 && slope_per_channel) return PreluRow<Arch>(x, slope, 1, y, channels);
  for (size_t c = 0; c < channels; ++c) {
    PreluRow<Arch>(x + c * spatial, slope + (slope_per_channel ? c : 0), 0, y + c * spatial,
                   spatial);
  }
}

// min/max that propagate NaN (numpy's minimum/maximum), for the scalar tail and registers.
// x86's min/max return their second operand when either is NaN, so only a NaN first operand
// needs the select; NEON's propagate NaN already. xsimd::isnan, not u != u: xsimd 8.1's AVX and
// AVX-512 != is an ordered compare (false for NaN), SSE's is unordered.
inline float MinNan(float u, float v) {
  return (std::isnan(u) || std::isnan(v)) ? u + v : std::min(u, v);
}
inline float MaxNan(float u, float v) {
  return (std::isnan(u) || std::isnan(v)) ? u + v : std::max(u, v);
}
template <class Arch>
inline xsimd::batch<float, Arch> MinNan(xsimd::batch<float, Arch> u, xsimd::batch<float, Arch> v) {
  return xsimd::select(xsimd::isnan(u), u, xsimd::min(u, v));
}
template <class Arch>
inline xsimd::batch<float, Arch> MaxNan(xsimd::batch<float, Arch> u, xsimd::batch<float, Arch> v) {
  return xsimd::select(xsimd::isnan(u), u, xsimd::max(u, v));
}

// y[i] = act(op(a[i|0], b[i|0])); op is a generic lambda valid for float and FBatch.
template <class Arch, class Op>
void BinaryLoop(Op op, BroadcastMode mode, const float* a, const float* b, float* y, size_t n,
                const Activation& act) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const bool a_scalar = mode == BroadcastMode::kScalarA, b_scalar = mode == BroadcastMode::kScalarB;
  const float a0 = a[0], b0 = b[0];
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const B va = a_scalar ? B(a0) : B::load_unaligned(a + i);
    const B vb = b_scalar ? B(b0) : B::load_unaligned(b + i);
    ActBatch<Arch>(op(va, vb), act).store_unaligned(y + i);
  }
  for (; i < n; ++i) y[i] = ActOne(op(a_scalar ? a0 : a[i], b_scalar ? b0 : b[i]), act);
}

template <class Arch>
void Binary(BinaryKind kind, BroadcastMode mode, const float* a, const float* b, float* y, size_t n,
            Activation act) {
  switch (kind) {
    case BinaryKind::kAdd:
      return BinaryLoop<Arch>([](auto u, auto v) { return u + v; }, mode, a, b, y, n, act);
    case BinaryKind::kSub:
      return BinaryLoop<Arch>([](auto u, auto v) { return u - v; }, mode, a, b, y, n, act);
    case BinaryKind::kMul:
      return BinaryLoop<Arch>([](auto u, auto v) { return u * v; }, mode, a, b, y, n, act);
    case BinaryKind::kDiv:
      return BinaryLoop<Arch>([](auto u, auto v) { return u / v; }, mode, a, b, y, n, act);
    case BinaryKind::kMin:
      return BinaryLoop<Arch>([](auto u, auto v) { return MinNan(u, v); }, mode, a, b, y, n, act);
    case BinaryKind::kMax:
      return BinaryLoop<Arch>([](auto u, auto v) { return MaxNan(u, v); }, mode, a, b, y, n, act);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
