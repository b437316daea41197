// GEMM C = act(A·B + bias), register-blocked: tiles of MR rows × NV registers of columns,
// B rows loaded once per k and A[i,k] broadcast. Kept in its own file so a packed-B
// micro-kernel can replace the tile loop later without touching the other kernels.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Epilogue of one output value: act((accumulate ? C : 0) + sum + bias).
inline float GemmFinishOne(const GemmParams& p, float sum, size_t i, size_t j, float* out) {
  if (p.accumulate) sum = *out + sum;
  if (p.bias != nullptr) sum += p.bias[p.bias_per_row ? i : j];
  return ActOne(sum, p.act);
}

// C[i0..i0+MR, j0..j0+NV·W) from a full MR × NV register tile.
template <class Arch, size_t MR, size_t NV>
void GemmTile(const GemmParams& p, const float* a, const float* b, float* c, size_t i0, size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B acc[MR][NV];
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) acc[r][v] = B(0.0f);
  const float* a0 = a + i0 * p.lda;
  const float* bq = b + j0;
  for (size_t q = 0; q < p.k; ++q, bq += p.ldb) {
    B bv[NV];
    for (size_t v = 0; v < NV; ++v) bv[v] = B::load_unaligned(bq + v * W);
    for (size_t r = 0; r < MR; ++r) {
      const B av(a0[r * p.lda + q]);
      for (size_t v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(av, bv[v], acc[r][v]);
    }
  }
  for (size_t r = 0; r < MR; ++r) {
    for (size_t v = 0; v < NV; ++v) {
      float* out = c + (i0 + r) * p.ldc + j0 + v * W;
      B val = acc[r][v];
      if (p.accumulate) val = B::load_unaligned(out) + val;
      if (p.bias != nullptr) val += p.bias_per_row ? B(p.bias[i0 + r]) : B::load_unaligned(p.bias + j0 + v * W);
      ActBatch<Arch>(val, p.act).store_unaligned(out);
    }
  }
}

// Columns [j0, n) narrower than one register, rows i0..i0+MR. A column of B is contiguous
// only when ldb == 1 (n == 1, the matrix·vector case): then the dot runs over k in registers.
template <class Arch, size_t MR>
void GemmTailCols(const GemmParams& p, const float* a, const float* b, float* c, size_t i0, size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  for (size_t r = 0; r < MR; ++r) {
    const float* ar = a + (i0 + r) * p.lda;
    for (size_t j = j0; j < p.n; ++j) {
      float sum = 0.0f;
      size_t q = 0;
      if (p.ldb == 1) {
        B acc(0.0f);
        for (; q + W <= p.k; q += W) acc = xsimd::fma(B::load_unaligned(ar + q), B::load_unaligned(b + q + j), acc);
        sum = xsimd::hadd(acc);
      }
      for (; q < p.k; ++q) sum += ar[q] * b[q * p.ldb + j];
      float* out = c + (i0 + r) * p.ldc + j;
      *out = GemmFinishOne(p, sum, i0 + r, j, out);
    }
  }
}

// All columns of rows i0..i0+MR.
template <class Arch, size_t MR>
void GemmRows(const GemmParams& p, const float* a, const float* b, float* c, size_t i0) {
  constexpr size_t W = FBatch<Arch>::size;
  size_t j = 0;
  for (; j + 2 * W <= p.n; j += 2 * W) GemmTile<Arch, MR, 2>(p, a, b, c, i0, j);
  if (j + W <= p.n) {
    GemmTile<Arch, MR, 1>(p, a, b, c, i0, j);
    j += W;
  }
  if (j < p.n) GemmTailCols<Arch, MR>(p, a, b, c, i0, j);
}

// C[m×n] = act((accumulate ? C : 0) + A[m×k]·B[k×n] + bias), see GemmParams.
template <class Arch>
void Gemm(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t MR = 4;
  size_t i = 0;
  for (; i + MR <= p.m; i += MR) GemmRows<Arch, MR>(p, a, b, c, i);
  switch (p.m - i) {
    case 3: return GemmRows<Arch, 3>(p, a, b, c, i);
    case 2: return GemmRows<Arch, 2>(p, a, b, c, i);
    case 1: return GemmRows<Arch, 1>(p, a, b, c, i);
    default: return;
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
