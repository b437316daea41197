// The scalar level's GEMM (Cortex-M and cores without SIMD): ref::Gemm in register tiles.
//
// C[i,j] = act( (accumulate ? C[i,j] : 0) + Σ_p A[i,p]·B[p,j] + bias[i or j] ), every output
// in ref::Gemm's order: the sum runs p = 0..k−1 from 0, then the old C, the bias, the
// activation. Only FMA contraction could separate the two, and the compiler contracts both
// loops alike: tests/mcu/kernel_checks.cc finds the same bits on Cortex-M4F.
//
// 4 × 4 tiles: per step p, four values of A (one per row) and four of B (one row, four
// columns) are loaded once and meet in 16 multiply-adds; the 16 sums and 8 operands fit the
// 32 single-precision registers of FPv4/FPv5. The n mod 4 columns run 1 × 1 tiles, the m mod 4
// rows 1 × 4 and 1 × 1 tiles. On Cortex-M4 (GCC 12, -Os) the 4 × 4 step is 27 instructions
// (8 loads, 16 FMAs, pointer, count, branch; 28 through b_row_offsets), where ref::Gemm takes
// about 16 per multiply-add.
#include "kernels/reference.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::scalar {
namespace {

// Firmware is built for size (-Os), where GCC would keep these loops rolled and the sums in
// memory: the step is always inlined, its loops unrolled.
#define EDGEFOLD_TILE_INLINE inline __attribute__((always_inline))

// acc[r][j] += A_r[p]·B[p, j] for the next p of each row pointer a[r] (advanced) and the row
// bp of B.
template <int MR, int NR>
EDGEFOLD_TILE_INLINE void MacStep(float (&acc)[MR][NR], const float* (&a)[MR], const float* bp) {
  float av[MR], bv[NR];
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) av[r] = *a[r]++;
#pragma GCC unroll 4
  for (int j = 0; j < NR; ++j) bv[j] = bp[j];
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) acc[r][j] += av[r] * bv[j];
}

// sums[r·NR + j] = Σ_{p<k} A[r, p]·B[p, j] for A's rows from `a` (pitch lda) and B's columns
// from `b` (B's rows as GemmBRow gives them, shifted by the same column). Out of line: the
// caller's loops would take the registers the tile needs.
template <int MR, int NR>
__attribute__((noinline)) void Tile(const GemmParams& p, const float* a, const float* b,
                                    float* sums) {
  float acc[MR][NR] = {};
  const float* rows[MR];
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) rows[r] = a + r * p.lda;
  // k ≥ 1 (GemmTiled): do-while loops, as GCC at -Os does not rotate a for loop (two more
  // branches a step).
  size_t q = p.k;
  if (const uint32_t* offsets = p.b_row_offsets) {
    do MacStep(acc, rows, b + *offsets++);
    while (--q != 0);
  } else {
    const size_t ldb = p.ldb;
    do {
      MacStep(acc, rows, b);
      b += ldb;
    } while (--q != 0);
  }
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) sums[r * NR + j] = acc[r][j];
}

// C[i + r, j + t] = (accumulate ? C : 0) + sums[r·cols + t] + bias for r < rows, t < cols, and
// Relu (ActOne's max(v, 0)); other activations run over C's rows once every tile is stored.
void StoreTile(const GemmParams& p, const float* sums, size_t rows, size_t cols, size_t i, size_t j,
               float* c) {
  const bool accumulate = p.accumulate, relu = p.act.kind == ActKind::kRelu;
  const float* bias = p.bias == nullptr ? nullptr : p.bias + (p.bias_per_row ? i : j);
  const size_t bias_row_step = p.bias_per_row ? 1 : 0, bias_col_step = 1 - bias_row_step;
  for (size_t r = 0; r < rows; ++r, sums += cols) {
    float* out = c + (i + r) * p.ldc + j;
    for (size_t t = 0; t < cols; ++t) {
      float v = sums[t];
      if (accumulate) v = out[t] + v;
      if (bias != nullptr) v += bias[r * bias_row_step + t * bias_col_step];
      out[t] = relu && v < 0.0f ? 0.0f : v;
    }
  }
}

}  // namespace

void GemmTiled(const GemmParams& p, const float* a, const float* b, float* c) {
  float sums[16] = {};
  size_t rows = 4, cols = 4;
  for (size_t i = 0; i < p.m; i += rows) {
    rows = p.m - i >= 4 ? 4 : 1;
    for (size_t j = 0; j < p.n; j += cols) {
      cols = p.n - j >= 4 ? 4 : 1;
      if (p.k == 0) {  // no products (the tiles need k ≥ 1): sums stay 0
        StoreTile(p, sums, rows, cols, i, j, c);
        continue;
      }
      if (rows == 4 && cols == 4) {
        Tile<4, 4>(p, a + i * p.lda, b + j, sums);
        StoreTile(p, sums, 4, 4, i, j, c);
        continue;
      }
      for (size_t r = i; r < i + rows; ++r) {  // a column tail or a row tail: one row at a time
        (cols == 4 ? Tile<1, 4> : Tile<1, 1>)(p, a + r * p.lda, b + j, sums);
        StoreTile(p, sums, 1, cols, r, j, c);
      }
    }
  }
  if (p.act.kind != ActKind::kNone && p.act.kind != ActKind::kRelu)
    for (size_t r = 0; r < p.m; ++r)
      ref::ActivationKernel(c + r * p.ldc, c + r * p.ldc, p.n, p.act);
}

}  // namespace edgefold::kernels::scalar
