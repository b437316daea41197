// GEMM with one row of A (a batch-1 fully connected layer): C[1×n] = act(A[1×k]·B[k×n] + bias).
// Here the work is reading B once (the weights, 4–5 MiB for an ImageNet classifier, cold in a
// network: 2.5 % of a MobileNetV2's multiply-adds took 5.5 % of its time), so B is read in
// memory order, kRows rows a pass over a chunk of columns, and the chunk of C accumulates in L1.
// Every output keeps GemmTile's order of sums (one fma per k, k in order, from 0 or from C), so
// the bits are those of the tiled path; the last n mod W columns sum one value at a time.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
void GemmRowVector(const GemmParams& p, const float* a, const float* b, float* c) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  // Rows of B a pass: C's chunk is loaded and stored once per kRows, and kRows rows (pages, for
  // a classifier's 4–5 KB rows) are read at once, which bounds the misses to memory in flight:
  // 8 and 12 read weights from memory faster than 4 or 16, and 8 kept MobileNetV3-small's
  // classifier, whose weights are partly in L3, as fast as 4 (bench/README.md, "224² networks
  // at one thread").
  constexpr size_t kRows = 8;
  constexpr size_t kChunk = 1024;
  constexpr size_t kAhead =
      8;  // rows ahead the next passes' B is prefetched (below)   // columns: 4 KiB of C, kRows × 4 KiB of B in flight
  for (size_t j0 = 0; j0 < p.n; j0 += kChunk) {
    const size_t j1 = std::min(p.n, j0 + kChunk), j_vec = j0 + (j1 - j0) / W * W;
    float* cj = c + j0;
    if (!p.accumulate) std::fill(cj, c + j1, 0.0f);
    size_t q = 0;
    for (; q + kRows <= p.k; q += kRows) {
      B av[kRows];
      const float* rows[kRows];
      for (size_t r = 0; r < kRows; ++r) {
        av[r] = B(a[q + r]);
        rows[r] = GemmBRow(p, b, q + r);
      }
      for (size_t j = j0; j < j_vec; j += W) {
        if (j % 16 == 0)
          for (size_t r = 0; r < kRows; ++r) __builtin_prefetch(rows[r] + j + kAhead * p.ldb);
        B acc = B::load_unaligned(c + j);
        for (size_t r = 0; r < kRows; ++r)
          acc = xsimd::fma(av[r], B::load_unaligned(rows[r] + j), acc);
        acc.store_unaligned(c + j);
      }
      for (size_t j = j_vec; j < j1; ++j)
        for (size_t r = 0; r < kRows; ++r) c[j] += a[q + r] * rows[r][j];
    }
    for (; q < p.k; ++q) {
      const B av(a[q]);
      const float* row = GemmBRow(p, b, q);
      for (size_t j = j0; j < j_vec; j += W)
        xsimd::fma(av, B::load_unaligned(row + j), B::load_unaligned(c + j)).store_unaligned(c + j);
      for (size_t j = j_vec; j < j1; ++j) c[j] += a[q] * row[j];
    }
    for (size_t j = j0; j < j_vec; j += W) {
      B val = B::load_unaligned(c + j);
      if (p.bias != nullptr) val += p.bias_per_row ? B(p.bias[0]) : B::load_unaligned(p.bias + j);
      ActBatch<Arch>(val, p.act).store_unaligned(c + j);
    }
    for (size_t j = j_vec; j < j1; ++j) {
      float sum = c[j];
      if (p.bias != nullptr) sum += p.bias[p.bias_per_row ? 0 : j];
      c[j] = ActOne(sum, p.act);
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
