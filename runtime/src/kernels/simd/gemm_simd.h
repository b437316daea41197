// GEMM C = act(A·B + bias), register-blocked: tiles of MR rows × NV registers of columns,
// B rows loaded once per k and A[i,k] broadcast; cache-blocked over K and M with the block
// sizes derived from this core's caches (cpu_caches.h), B packed one column panel at a time.
#pragma once
#include "kernels/cpu_caches.h"
#include "kernels/simd/gemm_row_simd.h"
#include "kernels/simd/gemm_tile_simd.h"
#include "kernels/simd/simd_common.h"
#if defined(__aarch64__)
#include "kernels/simd/gemm_tile_neon64.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// The last `cols` ≤ kGemmDotCols columns (from j0) as dot products along k: those columns of
// B are packed transposed (bt[c·k + q], contiguous in q) and each row of A meets all of them
// per load. A register-wide tile would spend W lanes on each of these few columns: for a 7×7
// pointwise conv (n = 49) that is a fourth of the FMAs for 1/49 of the outputs.
constexpr size_t kGemmDotCols = 8;
constexpr size_t kGemmDotFloats = 8192;  // bt lives on the stack: cols · k ≤ this many floats

// Rows [i, i + R) of those dot products, C columns each: R·C independent FMA chains (a single
// column's dot is one chain as long as k, bound by the FMA latency, not its throughput). Each
// output sums the same way whatever R is: W-lane partial sums along k, their horizontal sum,
// then the k mod W rest.
template <class Arch, size_t R, size_t C>
void GemmDotRows(const GemmParams& p, const float* a, const float* bt, float* c, size_t i,
                 size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t k_vec = p.k / W * W;
  B acc[R][C];
  for (size_t r = 0; r < R; ++r)
    for (size_t col = 0; col < C; ++col) acc[r][col] = B(0.0f);
  for (size_t q = 0; q < k_vec; q += W) {
    B bv[C];
    for (size_t col = 0; col < C; ++col) bv[col] = B::load_unaligned(bt + col * p.k + q);
    for (size_t r = 0; r < R; ++r) {
      const B av = B::load_unaligned(a + (i + r) * p.lda + q);
      for (size_t col = 0; col < C; ++col) acc[r][col] = xsimd::fma(av, bv[col], acc[r][col]);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    const float* ar = a + (i + r) * p.lda;
    for (size_t col = 0; col < C; ++col) {
      float sum = xsimd::hadd(acc[r][col]);
      for (size_t q = k_vec; q < p.k; ++q) sum += ar[q] * bt[col * p.k + q];
      float* out = c + (i + r) * p.ldc + j0 + col;
      *out = GemmFinishOne(p, sum, i + r, j0 + col, out);
    }
  }
}

template <class Arch, size_t C>
void GemmDotAllRows(const GemmParams& p, const float* a, const float* bt, float* c, size_t j0) {
  constexpr size_t R = C >= kGemmDotCols ? 1 : kGemmDotCols / C;
  size_t i = 0;
  for (; i + R <= p.m; i += R) GemmDotRows<Arch, R, C>(p, a, bt, c, i, j0);
  for (; i < p.m; ++i) GemmDotRows<Arch, 1, C>(p, a, bt, c, i, j0);
}

// With 16 lanes (AVX-512) the dots of R rows × C columns (R·C = W) are summed across lanes
// together (GemmSumSixteenRows), W outputs at once, instead of a horizontal sum each (about as many instructions as
// the FMAs of a k = 128 dot). Lane r·C + col is output (i + r, col0 + col); rows past m and
// columns past `cols` repeat the last one and are not stored, so every output sums the same way
// (its partial sums along k, the reduction tree of its lane, then the k mod W rest) whatever the rows
// around it: a split of the rows over threads in whole 8-row tiles changes no bit.
#if defined(__AVX512F__)
// Lane l = the sum of row[l]'s 16 lanes (xsimd 8.1's haddp for AVX-512 returns lanes 2-5 and
// 10-13 out of order): each round adds the halves of pairs of rows, then one permute puts the
// sums in row order.
inline __m512 GemmSumSixteenRows(const __m512* row) {
  __m512 t[8], u[4], v[2];
  for (int i = 0; i < 8; ++i)  // lanes 0-7: row i folded to 8; 8-15: row i + 8
    t[i] = _mm512_add_ps(_mm512_shuffle_f32x4(row[i], row[i + 8], 0x44),
                         _mm512_shuffle_f32x4(row[i], row[i + 8], 0xEE));
  for (int i = 0; i < 4; ++i)  // 128-bit blocks: rows i, i + 8, i + 4, i + 12 folded to 4
    u[i] = _mm512_add_ps(_mm512_shuffle_f32x4(t[i], t[i + 4], 0x88),
                         _mm512_shuffle_f32x4(t[i], t[i + 4], 0xDD));
  for (int i = 0; i < 2; ++i)  // per block: two rows folded to 2
    v[i] = _mm512_add_ps(_mm512_shuffle_ps(u[i], u[i + 2], 0x88),
                         _mm512_shuffle_ps(u[i], u[i + 2], 0xDD));
  const __m512 w =
      _mm512_add_ps(_mm512_shuffle_ps(v[0], v[1], 0x88), _mm512_shuffle_ps(v[0], v[1], 0xDD));
  // w holds rows 0 2 1 3 8 10 9 11 4 6 5 7 12 14 13 15; the same list maps them back.
  const __m512i order = _mm512_setr_epi32(0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15);
  return _mm512_permutexvar_ps(order, w);
}
#endif

template <class Arch, size_t R, size_t C>
void GemmDotTileSummed(const GemmParams& p, const float* a, const float* bt, size_t cols, float* c,
                       size_t i, size_t col0, size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  static_assert(R * C == W, "one accumulator per lane of the sums");
  const size_t k_vec = p.k / W * W;
  const float* ar[R];
  const float* br[C];
  for (size_t r = 0; r < R; ++r) ar[r] = a + std::min(i + r, p.m - 1) * p.lda;
  for (size_t col = 0; col < C; ++col) br[col] = bt + std::min(col0 + col, cols - 1) * p.k;
  B acc[W];
  for (size_t l = 0; l < W; ++l) acc[l] = B(0.0f);
  for (size_t q = 0; q < k_vec; q += W) {
    B bv[C];
    for (size_t col = 0; col < C; ++col) bv[col] = B::load_unaligned(br[col] + q);
    for (size_t r = 0; r < R; ++r) {
      const B av = B::load_unaligned(ar[r] + q);
      for (size_t col = 0; col < C; ++col)
        acc[r * C + col] = xsimd::fma(av, bv[col], acc[r * C + col]);
    }
  }
  // The epilogue on the W sums at once (one value at a time through GemmFinishOne cost more
  // than the dots): the k mod W rest, C's old values, the bias, the activation; then the stores.
#if defined(__AVX512F__)
  __m512 rows[W];
  for (size_t l = 0; l < W; ++l) rows[l] = acc[l];
  B sums = GemmSumSixteenRows(rows);
#else
  B sums = xsimd::haddp(acc);  // not reached: only W = 16 takes these tiles
#endif
  alignas(64) float lane[W];
  if (k_vec < p.k || p.accumulate) {
    for (size_t r = 0; r < R; ++r)
      for (size_t col = 0; col < C; ++col) {
        float rest = 0.0f;
        for (size_t q = k_vec; q < p.k; ++q) rest += ar[r][q] * br[col][q];
        lane[r * C + col] = rest;
      }
    sums += B::load_aligned(lane);  // after the vector part, as GemmDotRows adds its rest
    if (p.accumulate) {
      for (size_t r = 0; r < R; ++r)
        for (size_t col = 0; col < C; ++col)
          lane[r * C + col] =
              c[std::min(i + r, p.m - 1) * p.ldc + j0 + std::min(col0 + col, cols - 1)];
      sums = B::load_aligned(lane) + sums;
    }
  }
  if (p.bias != nullptr) {
    for (size_t r = 0; r < R; ++r)
      for (size_t col = 0; col < C; ++col)
        lane[r * C + col] = p.bias_per_row ? p.bias[std::min(i + r, p.m - 1)]
                                           : p.bias[j0 + std::min(col0 + col, cols - 1)];
    sums += B::load_aligned(lane);
  }
  ActBatch<Arch>(sums, p.act).store_aligned(lane);
  for (size_t r = 0; r < R && i + r < p.m; ++r)
    for (size_t col = 0; col < C && col0 + col < cols; ++col)
      c[(i + r) * p.ldc + j0 + col0 + col] = lane[r * C + col];
}

template <class Arch, size_t C>
void GemmDotColumnsSummed(const GemmParams& p, const float* a, const float* bt, size_t cols,
                          float* c, size_t col0, size_t j0) {
  constexpr size_t R = FBatch<Arch>::size / C;
  for (size_t i = 0; i < p.m; i += R) GemmDotTileSummed<Arch, R, C>(p, a, bt, cols, c, i, col0, j0);
}

// Columns [j0, j0 + cols) of all rows as summed dot tiles (W = 16), bt holding them transposed:
// runs of 8 columns (2 rows a tile), then what is left as 4, 2 or 1 (4, 8 or 16 rows a tile).
template <class Arch>
void GemmDotsSummed(const GemmParams& p, const float* a, const float* bt, size_t cols, float* c,
                    size_t j0) {
  size_t col0 = 0;
  for (; col0 + 4 < cols; col0 += 8) GemmDotColumnsSummed<Arch, 8>(p, a, bt, cols, c, col0, j0);
  if (col0 >= cols) return;
  const size_t left = cols - col0;
  if (left > 2) return GemmDotColumnsSummed<Arch, 4>(p, a, bt, cols, c, col0, j0);
  if (left == 2) return GemmDotColumnsSummed<Arch, 2>(p, a, bt, cols, c, col0, j0);
  GemmDotColumnsSummed<Arch, 1>(p, a, bt, cols, c, col0, j0);
}

template <class Arch>
void GemmTailTransposedDots(const GemmParams& p, const float* a, const float* b, float* c,
                            size_t j0) {
  const size_t cols = p.n - j0;
  alignas(64) float bt[kGemmDotFloats];
  for (size_t q = 0; q < p.k; ++q) {
    const float* bq = GemmBRow(p, b, q) + j0;
    for (size_t col = 0; col < cols; ++col) bt[col * p.k + q] = bq[col];
  }
  if constexpr (FBatch<Arch>::size == 16) return GemmDotsSummed<Arch>(p, a, bt, cols, c, j0);
  switch (cols) {
    case 1:
      return GemmDotAllRows<Arch, 1>(p, a, bt, c, j0);
    case 2:
      return GemmDotAllRows<Arch, 2>(p, a, bt, c, j0);
    case 3:
      return GemmDotAllRows<Arch, 3>(p, a, bt, c, j0);
    case 4:
      return GemmDotAllRows<Arch, 4>(p, a, bt, c, j0);
    case 5:
      return GemmDotAllRows<Arch, 5>(p, a, bt, c, j0);
    case 6:
      return GemmDotAllRows<Arch, 6>(p, a, bt, c, j0);
    case 7:
      return GemmDotAllRows<Arch, 7>(p, a, bt, c, j0);
    default:
      return GemmDotAllRows<Arch, 8>(p, a, bt, c, j0);
  }
}

// Registers of columns in the register tile that starts at column j of [j, j1) (j1 − j a
// multiple of W): 3 on AVX-512 (MR × 3 accumulators + 3 B registers + 1 broadcast) and on
// AArch64 (8 × 3 over packed A, gemm_tile_neon64.h; the 7-or-fewer-row tiles hold their A rows
// and 3 B registers too) while the rest is not 4 registers (3 + 1 would end on a 1-register
// tile, half as fast; 2 + 2 is not), else 2, then 1.
template <class Arch>
size_t GemmTileRegisters(size_t j, size_t j1) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__aarch64__)
  constexpr bool wide = true;
#else
  constexpr bool wide = W >= 16;
#endif
  if (wide && j + 3 * W <= j1 && j1 - j != 4 * W) return 3;
  return j + 2 * W <= j1 ? 2 : 1;
}

// Rows [i0, i1) of one column tile of NV registers over the k block [k0, k0+kc): tiles of MR
// rows, then 5 (after 6-row tiles) or 4, then 3/2/1. kClamp: GemmClampEpilogue, the same for
// every tile of the k block (chosen here, not per tile, so the tiles can be inlined).
template <class Arch, size_t MR, size_t NV, bool kClamp>
void GemmColumnTileWith(const GemmParams& p, const float* a, const GemmBRows& b, float* c,
                        size_t i0, size_t i1, size_t j, size_t k0, size_t kc) {
  size_t i = i0;
  // 6-row tiles leave 1 or 2 rows as often as not: one 6 fewer turns those into 4 + 3 or 4 + 4
  // (a 1- or 2-row tile runs 2 or 4 FMA chains, far below the FMA latency × throughput).
  size_t end = i1;
  if constexpr (MR == 6)
    if (i1 - i0 >= MR && (i1 - i0) % MR != 0 && (i1 - i0) % MR <= 2) end = i1 - MR;
  for (; i + MR <= end; i += MR) {
    // The next row tile's strip of A while this one computes (GemmParams::prefetch_a): MR rows
    // lda apart are more streams than the hardware prefetcher follows. Only Winograd's GEMMs
    // ask for it: it helps there and slows the others (bench/README.md).
    if (p.prefetch_a && i + 2 * MR <= i1)
      for (size_t r = 0; r < MR; ++r)
        for (size_t q = 0; q < kc; q += 16) __builtin_prefetch(a + (i + MR + r) * p.lda + k0 + q);
    GemmTileWith<Arch, MR, NV, kClamp>(p, a, b, c, i, j, k0, kc);
  }
  if constexpr (MR == 6)
    if (i1 - i == 5) return GemmTileWith<Arch, 5, NV, kClamp>(p, a, b, c, i, j, k0, kc);
  if constexpr (MR > 4)
    for (; i + 4 <= i1; i += 4) GemmTileWith<Arch, 4, NV, kClamp>(p, a, b, c, i, j, k0, kc);
  switch (i1 - i) {
    case 3:
      return GemmTileWith<Arch, 3, NV, kClamp>(p, a, b, c, i, j, k0, kc);
    case 2:
      return GemmTileWith<Arch, 2, NV, kClamp>(p, a, b, c, i, j, k0, kc);
    case 1:
      return GemmTileWith<Arch, 1, NV, kClamp>(p, a, b, c, i, j, k0, kc);
    default:
      return;
  }
}

template <class Arch, size_t MR, size_t NV>
void GemmColumnTile(const GemmParams& p, const float* a, const GemmBRows& b, float* c, size_t i0,
                    size_t i1, size_t j, size_t k0, size_t kc) {
  if (GemmClampEpilogue(p, k0 + kc == p.k))
    return GemmColumnTileWith<Arch, MR, NV, true>(p, a, b, c, i0, i1, j, k0, kc);
  GemmColumnTileWith<Arch, MR, NV, false>(p, a, b, c, i0, i1, j, k0, kc);
}

template <class Arch, size_t MR>
void GemmColumnTileOf(size_t nv, const GemmParams& p, const float* a, const GemmBRows& b, float* c,
                      size_t i0, size_t i1, size_t j, size_t k0, size_t kc) {
  if (nv == 3) return GemmColumnTile<Arch, MR, 3>(p, a, b, c, i0, i1, j, k0, kc);
  if (nv == 2) return GemmColumnTile<Arch, MR, 2>(p, a, b, c, i0, i1, j, k0, kc);
  GemmColumnTile<Arch, MR, 1>(p, a, b, c, i0, i1, j, k0, kc);
}

// The last n mod W columns, more than kGemmDotCols of them after whole registers, as one more
// register-wide column tile that ends at column n and overlaps the one before (DS-CNN's 25×5
// pointwise convs: n = 125, 13 tail columns). Each output is the same k-ordered FMA chain in
// whichever tile computes it, so the overlapped columns are written twice with the same value.
// Only for one k block without accumulation: a later k block would add onto values already
// final there.
template <class Arch, size_t MR>
void GemmOverlappedLastRegister(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t W = FBatch<Arch>::size;
  const size_t j = p.n - W;
  if (p.b_row_offsets == nullptr)
    return GemmColumnTile<Arch, MR, 1>(p, a, GemmBRows{nullptr, b, p.ldb, j}, c, 0, p.m, j, 0, p.k);
  const float* rows[kGemmMaxKc];
  for (size_t q = 0; q < p.k; ++q) rows[q] = GemmBRow(p, b, q);
  GemmColumnTile<Arch, MR, 1>(p, a, GemmBRows{rows, nullptr, 0, j}, c, 0, p.m, j, 0, p.k);
}

#if defined(__aarch64__)
// Copies B's rows [k0, k0+kc), columns [j, j + NV·W), into panel (contiguous, NV·W floats a
// row). (NV fixed per copy: with a run-time count GCC made each row a memcpy call.)
template <class Arch, size_t NV>
void GemmPackPanelOf(const GemmParams& p, const float* b_matrix, size_t j, size_t k0, size_t kc,
                     float* panel) {
  constexpr size_t W = FBatch<Arch>::size;
  for (size_t q = 0; q < kc; ++q) {
    const float* src = GemmBRow(p, b_matrix, k0 + q) + j;
    float* dst = panel + q * NV * W;
    for (size_t v = 0; v < NV; ++v)
      FBatch<Arch>::load_unaligned(src + v * W).store_aligned(dst + v * W);
  }
}

template <class Arch>
void GemmPackPanel(const GemmParams& p, const float* b_matrix, size_t j, size_t nv, size_t k0,
                   size_t kc, float* panel) {
  if (nv == 3) return GemmPackPanelOf<Arch, 3>(p, b_matrix, j, k0, kc, panel);
  if (nv == 2) return GemmPackPanelOf<Arch, 2>(p, b_matrix, j, k0, kc, panel);
  GemmPackPanelOf<Arch, 1>(p, b_matrix, j, k0, kc, panel);
}

// GemmStoreTile for the 8-row AArch64 tile: the bias and the activation's kind are looked at
// once per tile, not per register (with small k the per-register checks cost as much as the
// FMAs). None, Relu and Clip are one max and one min, as in ActBatch; other activations go
// through GemmStoreTileActivation.
template <class Arch, size_t NV>
void GemmStoreTileNeon8(const GemmParams& p, const float (&raw)[8][NV][4], float* c, size_t i0,
                        size_t j0, bool last) {
  float* c0 = c + i0 * p.ldc + j0;
  const ActKind kind = p.act.kind;
  if (last && kind != ActKind::kNone && kind != ActKind::kRelu && kind != ActKind::kClip) {
    TileRegs<FBatch<Arch>, 8 * NV> acc;
    Unrolled<8 * NV>([&](auto i) __attribute__((always_inline)) {
      TileReg<i>(acc) = vld1q_f32(raw[i / NV][i % NV]);
    });
    return GemmStoreTileActivation<Arch, 8, NV>(p, acc, c + i0 * p.ldc + j0, i0, j0);
  }
  // p's fields are read into locals once: the stores to C could alias p, and GCC reloaded them.
  const size_t ldc = p.ldc;
  if (!last || (kind == ActKind::kNone && p.bias == nullptr)) {
    for (size_t r = 0; r < 8; ++r)
      for (size_t v = 0; v < NV; ++v) vst1q_f32(c0 + r * ldc + 4 * v, vld1q_f32(raw[r][v]));
    return;
  }
  // No bias: nothing is added (−0 + 0 would be +0, and a Clip below 0 would keep the sign).
  const float* bias = p.bias;
  const bool per_row = p.bias_per_row, clamp = kind != ActKind::kNone;
  const float32x4_t lo = vdupq_n_f32(kind == ActKind::kRelu ? 0.0f : p.act.alpha);
  const float32x4_t hi =
      vdupq_n_f32(kind == ActKind::kRelu ? std::numeric_limits<float>::infinity() : p.act.beta);
  float32x4_t bias_col[NV];
  for (size_t v = 0; v < NV; ++v)
    bias_col[v] = bias != nullptr && !per_row ? vld1q_f32(bias + j0 + 4 * v) : lo;
  for (size_t r = 0; r < 8; ++r) {
    float* out = c0 + r * ldc;
    const float32x4_t bias_row = bias != nullptr && per_row ? vdupq_n_f32(bias[i0 + r]) : lo;
    for (size_t v = 0; v < NV; ++v) {
      float32x4_t x = vld1q_f32(raw[r][v]);
      if (bias != nullptr) x = vaddq_f32(x, per_row ? bias_row : bias_col[v]);
      if (clamp) x = vminq_f32(hi, vmaxq_f32(lo, x));
      vst1q_f32(out + 4 * v, x);
    }
  }
}

// An 8-row tile of the AArch64 GEMM over A packed by GemmPackA8 (pa), as GemmTile; B is a
// packed panel (kRows false: b = the panel) or read in place (b = B's row pointers, + bcol).
template <class Arch, size_t NV, bool kRows>
void GemmTileNeon8(const GemmParams& p, const float* pa, const void* b, size_t bcol, float* c,
                   size_t i0, size_t j0, size_t k0, size_t kc) {
  alignas(16) float raw[8][NV][4];
  const bool zero = k0 == 0 && !p.accumulate;
  for (size_t r = 0; r < 8; ++r)
    for (size_t v = 0; v < NV; ++v)
      vst1q_f32(raw[r][v], zero ? vdupq_n_f32(0.0f) : vld1q_f32(c + (i0 + r) * p.ldc + j0 + v * 4));
  GemmNeonKernel<NV, kRows>(raw, pa, b, bcol, kc);
  GemmStoreTileNeon8<Arch, NV>(p, raw, c, i0, j0, k0 + kc == p.k);
}

template <class Arch, bool kRows>
void GemmTileNeon8Of(size_t nv, const GemmParams& p, const float* pa, const void* b, size_t bcol,
                     float* c, size_t i0, size_t j0, size_t k0, size_t kc) {
  if (nv == 3) return GemmTileNeon8<Arch, 3, kRows>(p, pa, b, bcol, c, i0, j0, k0, kc);
  if (nv == 2) return GemmTileNeon8<Arch, 2, kRows>(p, pa, b, bcol, c, i0, j0, k0, kc);
  GemmTileNeon8<Arch, 1, kRows>(p, pa, b, bcol, c, i0, j0, k0, kc);
}

// GemmKBlock on AArch64 (m ≥ 8): per block of rows, their 8-row tiles' A is packed once
// (kNeonPackAFloats on the stack bounds the block: 64 rows at kc = 256), then the 8 × NV tiles
// run over it per column tile; the last m mod 8 rows of a block take GemmTile. B is packed
// per column tile into a panel when the block has more than kNeonInPlaceTiles row tiles; with
// fewer, reading B's rows in place costs fewer instructions than copying them (2 more per k
// and tile against about 11 per k for the copy).
constexpr size_t kNeonInPlaceTiles = 4;

template <class Arch>
void GemmKBlockNeon(const GemmParams& p, const float* a, const float* b_matrix, float* c,
                    size_t n_vec, size_t k0, size_t kc, size_t mc) {
  constexpr size_t MR = kNeonTileRows;
  alignas(64) float panel[kGemmMaxKc * 3 * 4];
  alignas(64) float pa[kNeonPackAFloats];
  const size_t mb = std::max(MR, std::min(mc, kNeonPackAFloats / (kc * MR) * MR));
  const float* rows[kGemmMaxKc];
  for (size_t q = 0; q < kc; ++q) rows[q] = GemmBRow(p, b_matrix, k0 + q);
  for (size_t i0 = 0; i0 < p.m; i0 += mb) {
    const size_t i1 = std::min(p.m, i0 + mb), tiles_end = i0 + (i1 - i0) / MR * MR;
    const bool in_place = (tiles_end - i0) / MR <= kNeonInPlaceTiles;
    for (size_t i = i0; i < tiles_end; i += MR)
      GemmPackA8(a + i * p.lda + k0, p.lda, kc, pa + (i - i0) * kc);
    for (size_t j = 0; j < n_vec;) {
      const size_t nv = GemmTileRegisters<Arch>(j, n_vec);
      if (in_place) {
        for (size_t i = i0; i < tiles_end; i += MR)
          GemmTileNeon8Of<Arch, true>(nv, p, pa + (i - i0) * kc, rows, j, c, i, j, k0, kc);
        if (tiles_end < i1)
          GemmColumnTileOf<Arch, MR>(nv, p, a, GemmBRows{rows, nullptr, 0, j}, c, tiles_end, i1, j,
                                     k0, kc);
      } else {
        GemmPackPanel<Arch>(p, b_matrix, j, nv, k0, kc, panel);
        for (size_t i = i0; i < tiles_end; i += MR)
          GemmTileNeon8Of<Arch, false>(nv, p, pa + (i - i0) * kc, panel, 0, c, i, j, k0, kc);
        if (tiles_end < i1)
          GemmColumnTileOf<Arch, MR>(nv, p, a, GemmBRows{nullptr, panel, nv * 4, 0}, c, tiles_end,
                                     i1, j, k0, kc);
      }
      j += nv * 4;
    }
  }
}
#endif

// This core's blocking for this table's tiles, derived once from HostCaches() (which kernel
// selection has already read at Create: the first GEMM reads no file).
template <class Arch>
const GemmBlocking& GemmBlockingForHost() {
  static const GemmBlocking blocking =
      GemmBlockingFor(HostCaches(), GemmTileRows(kManyVectorRegisters<Arch>),
                      GemmPanelFloats(FBatch<Arch>::size, kManyVectorRegisters<Arch>));
  return blocking;
}

// B is read in place, not copied into a panel, while the rows are at most this many row tiles:
// the copy (a load and a store per value of B) pays only when enough row tiles read the panel.
// Twice as many when B's rows are short (n ≤ kGemmShortRowFloats: kc rows span a few pages, no
// TLB miss per k); over long rows of a cold B, more row tiles read in place lost to the copy
// (bench/README.md, "GEMM: B read in place or copied into a panel").
constexpr size_t kGemmInPlaceRowTiles = 4;
constexpr size_t kGemmShortRowFloats = 1024;

// The register-wide columns [0, n_vec) over one k block [k0, k0+kc), rows in blocks of mc.
// With more row tiles than kGemmInPlaceRowTiles, each column tile's B (kc × NV·W) is first
// copied into a contiguous panel on the stack (≤ kGemmMaxKc × 3 registers: 48 KiB on AVX-512),
// so the row tiles read it from L1 in order instead of kc strided rows of B each (one row per
// page when B's rows are ≥ 4 KiB apart: a TLB miss per k); with fewer rows B is read in place.
// The copy prefetches each row's run two panels ahead: kc rows are kc streams, more than the
// hardware prefetcher follows, and a 1×1 conv's B (its input, 1–5 MiB at 112² and 56²) comes
// from L3 (MobileNetV2's 96 → 24 projection, 24×3136×96 with B cold: 0.42 → 0.27 ms on Zen 3).
template <class Arch, size_t MR>
void GemmKBlock(const GemmParams& p, const float* a, const float* b_matrix, float* c, size_t n_vec,
                size_t k0, size_t kc, size_t mc) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__aarch64__)
  if constexpr (W == 4 && MR == kNeonTileRows)
    if (p.m >= MR) return GemmKBlockNeon<Arch>(p, a, b_matrix, c, n_vec, k0, kc, mc);
#endif
  const size_t in_place_tiles =
      p.n <= kGemmShortRowFloats ? 2 * kGemmInPlaceRowTiles : kGemmInPlaceRowTiles;
  const bool pack = p.m > in_place_tiles * MR;
  if (!pack) {
    const float* brows[kGemmMaxKc];
    GemmBRows b{nullptr, b_matrix + k0 * p.ldb, p.ldb, 0};
    if (p.b_row_offsets != nullptr) {
      for (size_t q = 0; q < kc; ++q) brows[q] = GemmBRow(p, b_matrix, k0 + q);
      b = GemmBRows{brows, nullptr, 0, 0};
    }
    for (size_t j = 0; j < n_vec;) {
      const size_t nv = GemmTileRegisters<Arch>(j, n_vec);
      b.col = j;
      GemmColumnTileOf<Arch, MR>(nv, p, a, b, c, 0, p.m, j, k0, kc);
      j += nv * W;
    }
    return;
  }
  alignas(64) float panel[kGemmMaxKc * 3 * W];
  for (size_t i0 = 0; i0 < p.m; i0 += mc) {
    const size_t i1 = std::min(p.m, i0 + mc);
    for (size_t j = 0; j < n_vec;) {
      const size_t nv = GemmTileRegisters<Arch>(j, n_vec), cols = nv * W;
      for (size_t q = 0; q < kc; ++q) {
        const float* src = GemmBRow(p, b_matrix, k0 + q) + j;
        __builtin_prefetch(src + 2 * cols);  // the panel after next: one stream per row of B
        float* dst = panel + q * cols;
        for (size_t v = 0; v < nv; ++v)
          FBatch<Arch>::load_unaligned(src + v * W).store_aligned(dst + v * W);
      }
      // The next panel's lines of C, for writing: the row tiles store one register row to each
      // of mc rows of C per panel, mc write streams (a 96-channel 112² output: 0.28 of 1.29 ms).
      if (j + 2 * cols <= n_vec)
        for (size_t i = i0; i < i1; ++i)
          for (size_t v = 0; v < cols; v += 16) __builtin_prefetch(c + i * p.ldc + j + cols + v, 1);
      GemmColumnTileOf<Arch, MR>(nv, p, a, GemmBRows{nullptr, panel, cols, 0}, c, i0, i1, j, k0,
                                 kc);
      j += cols;
    }
  }
}

// C[m×n] = act((accumulate ? C : 0) + A[m×k]·B[k×n] + bias), see GemmParams.
// MR (GemmTileRows): 8 rows × 3 registers with 32 vector registers (AVX-512, AArch64), 6 × 2
// on SSE/AVX2, 4 × 2 on ARMv7.
template <class Arch>
void Gemm(const GemmParams& p, const float* a, const float* b, float* c) {
  constexpr size_t W = FBatch<Arch>::size;
  constexpr size_t MR = GemmTileRows(kManyVectorRegisters<Arch>);
  const size_t n_vec = p.n / W * W;
  if (p.k == 0) {  // C = act((accumulate ? C : 0) + bias): the tail path handles it per value
    for (size_t i = 0; i < p.m; ++i) GemmTailMatVec<Arch, 1>(p, a, b, c, i, 0);
    return;
  }
  if (p.m == 1 && p.n >= W) return GemmRowVector<Arch>(p, a, b, c);
  const GemmBlocking& blocking = p.blocking != nullptr ? *p.blocking : GemmBlockingForHost<Arch>();
  const size_t kc_max = std::min(blocking.kc, kGemmMaxKc);
  if (n_vec > 0)
    for (size_t k0 = 0; k0 < p.k; k0 += kc_max)
      GemmKBlock<Arch, MR>(p, a, b, c, n_vec, k0, std::min(kc_max, p.k - k0),
                           std::max(blocking.mc, MR));
  if (n_vec == p.n) return;
  if (p.ldb == 1 &&
      p.b_row_offsets == nullptr) {  // n == 1 (matrix·vector): B's column is contiguous
    // One column: it is already the transposed panel the dot-product rows read, and they run
    // 8 rows' chains at once (the squeeze-and-excitation FCs: m = 96–1152, k = 4–48) with the
    // same sums per output as one row at a time.
    if (p.n - n_vec == 1) return GemmDotAllRows<Arch, 1>(p, a, b + n_vec, c, n_vec);
    for (size_t i = 0; i < p.m; ++i) GemmTailMatVec<Arch, 1>(p, a, b, c, i, n_vec);
  } else if (p.n - n_vec <= kGemmDotCols && (p.n - n_vec) * p.k <= kGemmDotFloats && p.k >= W) {
    GemmTailTransposedDots<Arch>(p, a, b, c, n_vec);
  } else if (n_vec > 0 && p.k <= kc_max && !p.accumulate) {
    GemmOverlappedLastRegister<Arch, MR>(p, a, b, c);
  } else {
    GemmTailPackedColumns<Arch, MR>(p, a, b, c, n_vec);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
