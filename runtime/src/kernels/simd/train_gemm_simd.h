// The two transposed GEMMs of backpropagation, written once over the arch.
//   GemmAtB: C[m×n] (+)= Aᵀ·B, A stored [k×m]  — weight gradients dW = Xᵀ·dY
//   GemmABt: C[m×n] (+)= A·Bᵀ, B stored [n×k]  — input gradients dX = dY·Wᵀ
// As in ref::GemmAtB/GemmABt the sum starts at 0 and the old C is added after it.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// C[i0..i0+MR, j0..j0+NV·W): rows of B are contiguous in j and A[q, i0..i0+MR) is contiguous
// in i, so each k step loads NV registers of B and broadcasts MR values of A.
template <class Arch, size_t MR, size_t NV>
void GemmAtBTile(const GemmParams& p, const float* a, const float* b, float* c, size_t i0,
                 size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B acc[MR][NV];
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) acc[r][v] = B(0.0f);
  for (size_t q = 0; q < p.k; ++q) {
    const float* aq = a + q * p.lda + i0;
    const float* bq = b + q * p.ldb + j0;
    B bv[NV];
    for (size_t v = 0; v < NV; ++v) bv[v] = B::load_unaligned(bq + v * W);
    for (size_t r = 0; r < MR; ++r) {
      const B av(aq[r]);
      for (size_t v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(av, bv[v], acc[r][v]);
    }
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) {
      float* out = c + (i0 + r) * p.ldc + j0 + v * W;
      (p.accumulate ? B::load_unaligned(out) + acc[r][v] : acc[r][v]).store_unaligned(out);
    }
}

// Rows i0..i0+MR, every column (full registers, then a scalar tail).
template <class Arch, size_t MR>
void GemmAtBRows(const GemmParams& p, const float* a, const float* b, float* c, size_t i0) {
  constexpr size_t W = FBatch<Arch>::size;
  size_t j = 0;
  for (; j + 2 * W <= p.n; j += 2 * W) GemmAtBTile<Arch, MR, 2>(p, a, b, c, i0, j);
  if (j + W <= p.n) {
    GemmAtBTile<Arch, MR, 1>(p, a, b, c, i0, j);
    j += W;
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t jj = j; jj < p.n; ++jj) {
      float acc = 0.0f;
      for (size_t q = 0; q < p.k; ++q) acc += a[q * p.lda + i0 + r] * b[q * p.ldb + jj];
      float* out = c + (i0 + r) * p.ldc + jj;
      *out = p.accumulate ? *out + acc : acc;
    }
}

template <class Arch>
void GemmAtB(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t MR = 4;
  size_t i = 0;
  for (; i + MR <= p.m; i += MR) GemmAtBRows<Arch, MR>(p, a, b, c, i);
  for (; i < p.m; ++i) GemmAtBRows<Arch, 1>(p, a, b, c, i);
}

// C[i0..i0+MR, j0..j0+NR): MR·NR dot products along k, each in its own register, reduced at
// the end; the last k mod W terms are added in scalar.
template <class Arch, size_t MR, size_t NR>
void GemmABtTile(const GemmParams& p, const float* a, const float* b, float* c, size_t i0,
                 size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B acc[MR][NR];
  for (size_t r = 0; r < MR; ++r)
    for (size_t t = 0; t < NR; ++t) acc[r][t] = B(0.0f);
  size_t q = 0;
  for (; q + W <= p.k; q += W) {
    B bv[NR];
    for (size_t t = 0; t < NR; ++t) bv[t] = B::load_unaligned(b + (j0 + t) * p.ldb + q);
    for (size_t r = 0; r < MR; ++r) {
      const B av = B::load_unaligned(a + (i0 + r) * p.lda + q);
      for (size_t t = 0; t < NR; ++t) acc[r][t] = xsimd::fma(av, bv[t], acc[r][t]);
    }
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t t = 0; t < NR; ++t) {
      const float* ar = a + (i0 + r) * p.lda;
      const float* bt = b + (j0 + t) * p.ldb;
      float sum = xsimd::hadd(acc[r][t]);
      for (size_t qq = q; qq < p.k; ++qq) sum += ar[qq] * bt[qq];
      float* out = c + (i0 + r) * p.ldc + j0 + t;
      *out = p.accumulate ? *out + sum : sum;
    }
}

template <class Arch, size_t MR>
void GemmABtRows(const GemmParams& p, const float* a, const float* b, float* c, size_t i0) {
  constexpr size_t NR = 4;
  size_t j = 0;
  for (; j + NR <= p.n; j += NR) GemmABtTile<Arch, MR, NR>(p, a, b, c, i0, j);
  for (; j < p.n; ++j) GemmABtTile<Arch, MR, 1>(p, a, b, c, i0, j);
}

template <class Arch>
void GemmABt(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t MR = 2;
  size_t i = 0;
  for (; i + MR <= p.m; i += MR) GemmABtRows<Arch, MR>(p, a, b, c, i);
  for (; i < p.m; ++i) GemmABtRows<Arch, 1>(p, a, b, c, i);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
