// Reductions: global_pool (max / mean per row) and softmax (along the middle axis).
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// max x[0..n) (−∞ for n = 0), four accumulators.
template <class Arch>
float RowMax(const float* x, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  float m = -INFINITY;
  size_t i = 0;
  if (n >= W) {
    B m0 = B::load_unaligned(x), m1 = m0, m2 = m0, m3 = m0;
    for (; i + 4 * W <= n; i += 4 * W) {
      m0 = xsimd::max(m0, B::load_unaligned(x + i));
      m1 = xsimd::max(m1, B::load_unaligned(x + i + W));
      m2 = xsimd::max(m2, B::load_unaligned(x + i + 2 * W));
      m3 = xsimd::max(m3, B::load_unaligned(x + i + 3 * W));
    }
    for (; i + W <= n; i += W) m0 = xsimd::max(m0, B::load_unaligned(x + i));
    m = HMax<Arch>(xsimd::max(xsimd::max(m0, m1), xsimd::max(m2, m3)));
  }
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

// y[c] = max_i x[c,i]   or   (Σ_i x[c,i]) / spatial
template <class Arch>
void GlobalPool(PoolKind kind, const float* x, float* y, size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    const float* row = x + c * spatial;
    y[c] = kind == PoolKind::kMax ? RowMax<Arch>(row, spatial)
                                  : RowSum<Arch>(row, spatial) / static_cast<float>(spatial);
  }
}

// One contiguous row: y = e^(x − max) / Σ e^(x − max).
template <class Arch>
void SoftmaxRow(const float* x, float* y, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const float m = RowMax<Arch>(x, n);
  const B vm(m);
  B acc(0.0f);
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const B e = xsimd::exp(B::load_unaligned(x + i) - vm);
    e.store_unaligned(y + i);
    acc += e;
  }
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += (y[i] = std::exp(x[i] - m));
  const float inv = 1.0f / sum;
  const B vinv(inv);
  for (i = 0; i + W <= n; i += W) (B::load_unaligned(y + i) * vinv).store_unaligned(y + i);
  for (; i < n; ++i) y[i] *= inv;
}

// W adjacent columns of a [axis_len, inner] slice, softmax down each column.
template <class Arch>
void SoftmaxColumns(const float* x, float* y, size_t axis_len, size_t inner) {
  using B = FBatch<Arch>;
  B m = B::load_unaligned(x);
  for (size_t a = 1; a < axis_len; ++a) m = xsimd::max(m, B::load_unaligned(x + a * inner));
  B sum(0.0f);
  for (size_t a = 0; a < axis_len; ++a) {
    const B e = xsimd::exp(B::load_unaligned(x + a * inner) - m);
    e.store_unaligned(y + a * inner);
    sum += e;
  }
  const B inv = B(1.0f) / sum;
  for (size_t a = 0; a < axis_len; ++a)
    (B::load_unaligned(y + a * inner) * inv).store_unaligned(y + a * inner);
}

// One column (stride `inner`), scalar.
inline void SoftmaxColumnScalar(const float* x, float* y, size_t axis_len, size_t inner) {
  float m = -INFINITY;
  for (size_t a = 0; a < axis_len; ++a) m = std::max(m, x[a * inner]);
  float sum = 0.0f;
  for (size_t a = 0; a < axis_len; ++a) sum += (y[a * inner] = std::exp(x[a * inner] - m));
  for (size_t a = 0; a < axis_len; ++a) y[a * inner] /= sum;
}

// Softmax of x viewed as [outer, axis_len, inner] along the middle axis.
template <class Arch>
void Softmax(const float* x, float* y, size_t outer, size_t axis_len, size_t inner) {
  constexpr size_t W = FBatch<Arch>::size;
  if (axis_len == 0) return;
  for (size_t o = 0; o < outer; ++o) {
    const float* xo = x + o * axis_len * inner;
    float* yo = y + o * axis_len * inner;
    if (inner == 1) {
      SoftmaxRow<Arch>(xo, yo, axis_len);
      continue;
    }
    size_t i = 0;
    for (; i + W <= inner; i += W) SoftmaxColumns<Arch>(xo + i, yo + i, axis_len, inner);
    for (; i < inner; ++i) SoftmaxColumnScalar(xo + i, yo + i, axis_len, inner);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
