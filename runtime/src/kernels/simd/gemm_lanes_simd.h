// GEMM with A's rows in the vector lanes, for a few columns (W/2 < n < W with 16 lanes): the
// pointwise convs of 3 × 3 planes (MobileNetV1's last layers, n = 9), where a register-wide
// column tile would leave 7 of 16 lanes empty.
//   C[i, j] = act((accumulate ? C[i, j] : 0) + Σ_q A[i, q]·B[q, j] + bias)
// A block of 16·R rows is transposed 16 × 16 at a time into a k-major panel on the stack (a
// register of 16 rows per k), then per k each of the n columns' B[q, j] is broadcast into R·n
// accumulators: every lane does useful work. Each output is one FMA chain in k order from 0,
// then C's old value, then the bias, whatever the rows around it (rows past m repeat the last
// one and are not stored), so a split of the rows over threads changes no bit.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

#if defined(__AVX512F__)
constexpr size_t kGemmLanesKc = 128;  // k per transposed panel: 16·R·128 floats on the stack

// out[q·stride + l] = rows[l][q] for l, q < 16: the usual three rounds of unpack/shuffle.
inline void GemmTranspose16(const float* const* rows, size_t q0, float* out, size_t stride) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(rows[i] + q0);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int h = 0; h < 16; h += 8)
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(out + i * stride, r[i]);
}

// Rows [i, i + 16·R) × all N columns.
template <class Arch, size_t R, size_t N>
void GemmLanesTile(const GemmParams& p, const float* a, const float* b, float* c, size_t i) {
  using B = FBatch<Arch>;
  constexpr size_t W = 16, RW = R * W;
  const float* ar[RW];
  for (size_t l = 0; l < RW; ++l) ar[l] = a + std::min(i + l, p.m - 1) * p.lda;
  alignas(64) float at[kGemmLanesKc * RW];
  B acc[R][N];
  for (size_t r = 0; r < R; ++r)
    for (size_t j = 0; j < N; ++j) acc[r][j] = B(0.0f);
  for (size_t k0 = 0; k0 < p.k; k0 += kGemmLanesKc) {
    const size_t kc = std::min(kGemmLanesKc, p.k - k0), kc16 = kc / W * W;
    for (size_t r = 0; r < R; ++r) {
      for (size_t q = 0; q < kc16; q += W)
        GemmTranspose16(ar + r * W, k0 + q, at + q * RW + r * W, RW);
      for (size_t q = kc16; q < kc; ++q)
        for (size_t l = 0; l < W; ++l) at[q * RW + r * W + l] = ar[r * W + l][k0 + q];
    }
    for (size_t q = 0; q < kc; ++q) {
      const float* bq = GemmBRow(p, b, k0 + q);
      B av[R];
      for (size_t r = 0; r < R; ++r) av[r] = B::load_aligned(at + q * RW + r * W);
      for (size_t j = 0; j < N; ++j) {
        const B bv(bq[j]);
        for (size_t r = 0; r < R; ++r) acc[r][j] = xsimd::fma(av[r], bv, acc[r][j]);
      }
    }
  }
  alignas(64) float lane[W];
  for (size_t r = 0; r < R; ++r) {
    const size_t i0 = i + r * W;
    if (i0 >= p.m) break;
    const size_t rows = std::min(W, p.m - i0);
    B bias_rows(0.0f);
    if (p.bias != nullptr && p.bias_per_row) {
      for (size_t l = 0; l < W; ++l) lane[l] = p.bias[std::min(i0 + l, p.m - 1)];
      bias_rows = B::load_aligned(lane);
    }
    for (size_t j = 0; j < N; ++j) {
      B sums = acc[r][j];
      if (p.accumulate) {
        for (size_t l = 0; l < W; ++l) lane[l] = c[std::min(i0 + l, p.m - 1) * p.ldc + j];
        sums = B::load_aligned(lane) + sums;
      }
      if (p.bias != nullptr) sums += p.bias_per_row ? bias_rows : B(p.bias[j]);
      ActBatch<Arch>(sums, p.act).store_aligned(lane);
      for (size_t l = 0; l < rows; ++l) c[(i0 + l) * p.ldc + j] = lane[l];
    }
  }
}

template <class Arch, size_t N>
void GemmLanesAllRows(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t R = N <= 13 ? 2 : 1;  // R·N accumulators + R rows of A in 32 registers
  for (size_t i = 0; i < p.m; i += R * 16) GemmLanesTile<Arch, R, N>(p, a, b, c, i);
}

// Fewer than 16 rows (a fully connected layer, m = 1; a thread's 8-row part): one row at a
// time with the columns in the lanes, each output the same chain as in GemmLanesTile (FMAs in
// k order from 0, then C's old value, the bias, the activation), so the bits are the same.
template <class Arch, size_t RR>
void GemmLanesRowGroup(const GemmParams& p, const float* a, const float* b, float* c, size_t i0) {
  using B = FBatch<Arch>;
  const __mmask16 cols = static_cast<__mmask16>((1u << p.n) - 1);
  const float* ar[RR];
  for (size_t r = 0; r < RR; ++r) ar[r] = a + (i0 + r) * p.lda;
  __m512 acc[RR];
  for (size_t r = 0; r < RR; ++r) acc[r] = _mm512_setzero_ps();
  for (size_t q = 0; q < p.k; ++q) {
    const __m512 bq = _mm512_maskz_loadu_ps(cols, GemmBRow(p, b, q));
    for (size_t r = 0; r < RR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(ar[r][q]), bq, acc[r]);
  }
  alignas(64) float lane[16];
  for (size_t r = 0; r < RR; ++r) {
    const size_t i = i0 + r;
    B sums = acc[r];
    float* ci = c + i * p.ldc;
    if (p.accumulate) sums = B(_mm512_maskz_loadu_ps(cols, ci)) + sums;
    if (p.bias != nullptr)
      sums += p.bias_per_row ? B(p.bias[i]) : B(_mm512_maskz_loadu_ps(cols, p.bias));
    ActBatch<Arch>(sums, p.act).store_aligned(lane);
    for (size_t j = 0; j < p.n; ++j) ci[j] = lane[j];
  }
}

// 4 rows at a time (independent chains), then one by one.
template <class Arch>
void GemmLanesFewRows(const GemmParams& p, const float* a, const float* b, float* c) {
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) GemmLanesRowGroup<Arch, 4>(p, a, b, c, i);
  for (; i < p.m; ++i) GemmLanesRowGroup<Arch, 1>(p, a, b, c, i);
}

// Whether Gemm takes this path: 16 lanes, 8 < n < 16 (n ≤ 8 takes the transposed dots).
inline bool GemmLanesFits(const GemmParams& p) { return p.n > 8 && p.n < 16 && p.k >= 16; }

template <class Arch>
void GemmRowsInLanes(const GemmParams& p, const float* a, const float* b, float* c) {
  if (p.m < 16) return GemmLanesFewRows<Arch>(p, a, b, c);
  switch (p.n) {
    case 9:
      return GemmLanesAllRows<Arch, 9>(p, a, b, c);
    case 10:
      return GemmLanesAllRows<Arch, 10>(p, a, b, c);
    case 11:
      return GemmLanesAllRows<Arch, 11>(p, a, b, c);
    case 12:
      return GemmLanesAllRows<Arch, 12>(p, a, b, c);
    case 13:
      return GemmLanesAllRows<Arch, 13>(p, a, b, c);
    case 14:
      return GemmLanesAllRows<Arch, 14>(p, a, b, c);
    default:
      return GemmLanesAllRows<Arch, 15>(p, a, b, c);
  }
}
#endif

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
