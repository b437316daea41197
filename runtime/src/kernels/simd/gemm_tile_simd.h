// The register tiles of the float GEMM (gemm_simd.h): MR rows × NV registers of columns with
// their epilogue, the K step, and the column tails packed to one register.
#pragma once
#include "kernels/cpu_caches.h"
#include "kernels/simd/gemm_row_simd.h"
#include "kernels/simd/simd_common.h"
#include "kernels/simd/tile_regs.h"
#if defined(__aarch64__)
#include "kernels/simd/gemm_tile_neon64.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Epilogue of one output value: act((accumulate ? C : 0) + sum + bias).
inline float GemmFinishOne(const GemmParams& p, float sum, size_t i, size_t j, float* out) {
  if (p.accumulate) sum = *out + sum;
  if (p.bias != nullptr) sum += p.bias[p.bias_per_row ? i : j];
  return ActOne(sum, p.act);
}

#if defined(__aarch64__)
// One k of an AArch64 tile: acc[r][v] += B[k, v] · A[r, k], A[r, k] being lane KK of a4[r].
template <size_t MR, size_t NV, int KK>
inline void GemmLaneStep(float32x4_t (&acc)[MR][NV], const float32x4_t* a4, const float* bq) {
  float32x4_t bv[NV];
  for (size_t v = 0; v < NV; ++v) bv[v] = vld1q_f32(bq + 4 * v);
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) acc[r][v] = vfmaq_laneq_f32(acc[r][v], bv[v], a4[r], KK);
}
#endif

// What the first k block's tile starts from (up to 3 registers of 16 floats), and the bias of
// a tile without one: adding −0 changes no value (−0 + −0 = −0, +0 + −0 = +0).
alignas(64) inline constexpr float kGemmZeros[3 * 16] = {};
inline constexpr float kGemmNegZeros[8] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};

// C rows of a tile: f(acc + b_row) stored at c0 (row pitch ldc).
template <class Arch, size_t MR, size_t NV, class F>
[[gnu::always_inline]] inline void GemmStoreRows(TileRegs<FBatch<Arch>, MR * NV>& acc,
                                                 const float* bias_rows, float* c0, size_t ldc,
                                                 F f) {
  using B = FBatch<Arch>;
  Unrolled<MR>([&](auto r) __attribute__((always_inline)) {
    const B b(bias_rows[r]);
    Unrolled<NV>([&](auto v) __attribute__((always_inline)) {
      f(TileReg<r * NV + v>(acc) + b).store_unaligned(c0 + r * ldc + v * B::size);
    });
  });
}

// The last k block's epilogue where GemmClampEpilogue does not hold: SiLU, Sigmoid and
// HardSwish with a bias per row are applied to the registers as they are stored (no copy of the
// tile through memory); a bias per column or another activation takes the general path
// (ActBatchMany once per tile, through a copy).
template <class Arch, size_t MR, size_t NV>
[[gnu::always_inline]] inline void GemmStoreTileActivation(const GemmParams& p,
                                                           TileRegs<FBatch<Arch>, MR * NV>& acc,
                                                           float* c0, size_t i0, size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  static_assert(MR <= 8, "kGemmNegZeros holds 8 rows");
  const ActKind kind = p.act.kind;
  const float* bias = p.bias;
  const size_t ldc = p.ldc;
  if (bias == nullptr || p.bias_per_row) {
    const float* bias_rows = bias != nullptr ? bias + i0 : kGemmNegZeros;
    switch (kind) {
      case ActKind::kSiLU:
        return GemmStoreRows<Arch, MR, NV>(acc, bias_rows, c0, ldc, SiluBatch<Arch>);
      case ActKind::kSigmoid:
        return GemmStoreRows<Arch, MR, NV>(acc, bias_rows, c0, ldc, SigmoidBatch<Arch>);
      case ActKind::kHardSwish:
        return GemmStoreRows<Arch, MR, NV>(acc, bias_rows, c0, ldc, HardSwishBatch<Arch>);
      default:
        break;
    }
  }
  B tile[MR * NV];
  Unrolled<MR * NV>([&](auto i) __attribute__((always_inline)) {
    const size_t r = i / NV, v = i % NV;
    tile[i] = TileReg<i>(acc) + (bias == nullptr  ? B(-0.0f)
                                 : p.bias_per_row ? B(bias[i0 + r])
                                                  : B::load_unaligned(bias + j0 + v * W));
  });
  ActBatchMany<Arch>(tile, MR * NV, p.act);
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) tile[r * NV + v].store_unaligned(c0 + r * ldc + v * W);
}

// Whether a tile's epilogue is the straight clamp path (GemmStoreTileClamp): every k block but
// the last, and a bias per row (or none) with None/Relu/Clip.
inline bool GemmClampEpilogue(const GemmParams& p, bool last) {
  return !last || ((p.bias == nullptr || p.bias_per_row) && ActIsClamp(p.act.kind));
}

// Stores an MR × NV register tile at C[i0.., j0..] as min(hi, max(lo, x + b_row)), x second as
// in ActBatch (a NaN stays NaN); no bias is −0, None and earlier k blocks clamp to (−∞, ∞).
// With a branch per register GCC reloaded p's fields after each store (a store to C could alias
// p), and at k = 16–32 (mobile networks' 1×1 convs, the stems) the epilogue cost as many
// instructions as the FMAs.
template <class Arch, size_t MR, size_t NV>
inline void GemmStoreTileClamp(const GemmParams& p, TileRegs<FBatch<Arch>, MR * NV>& acc, float* c,
                               size_t i0, size_t j0, bool last) {
  using B = FBatch<Arch>;
  static_assert(MR <= 8, "kGemmNegZeros holds 8 rows");
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const ActKind kind = p.act.kind;
  const float* bias_rows = last && p.bias != nullptr ? p.bias + i0 : kGemmNegZeros;
  const bool clip = last && kind == ActKind::kClip;
  const B lo(!last || kind == ActKind::kNone ? -kInf : clip ? p.act.alpha : 0.0f);
  const B hi(clip ? p.act.beta : kInf);
  GemmStoreRows<Arch, MR, NV>(acc, bias_rows, c + i0 * p.ldc + j0, p.ldc,
                              [&](B x) { return xsimd::min(hi, xsimd::max(lo, x)); });
}

// Where row q of a k block's B starts for a column tile: rows[q] + col (B read in place through
// GemmParams::b_row_offsets), or base + q·stride + col (a packed panel, or B in place): the
// strided form costs no pointer load per k.
struct GemmBRows {
  const float* const* rows = nullptr;
  const float* base = nullptr;
  size_t stride = 0;
  size_t col = 0;
  const float* Row(size_t q) const {
    return rows != nullptr ? rows[q] + col : base + q * stride + col;
  }
};

// One k of a register tile: acc[r][v] += A[r, q] · B[q, v·W..].
template <class Arch, size_t MR, size_t NV>
inline void GemmKStep(TileRegs<FBatch<Arch>, MR * NV>& acc, const float* a0, size_t lda, size_t q,
                      const float* bq) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B bv[NV];
  for (size_t v = 0; v < NV; ++v) bv[v] = B::load_unaligned(bq + v * W);
  Unrolled<MR>([&](auto r) __attribute__((always_inline)) {
    const B av(a0[r * lda + q]);
    Unrolled<NV>([&](auto v) __attribute__((always_inline)) {
      B& x = TileReg<r * NV + v>(acc);
      x = xsimd::fma(av, bv[v], x);
    });
  });
}

// The k range [k0, k0+kc) of C[i0..i0+MR, j0..j0+NV·W) in a full MR × NV register tile, B's
// rows as b gives them. The first k block starts from 0 (or C when accumulating), later ones
// from the partial sum already in C; only the last adds the bias and applies the activation.
// The k loop is unrolled by 4: its increment, compare and branch were 3 of 24 instructions per
// k of a 6 × 2 AVX2 tile.
// kClamp: the epilogue is GemmStoreTileClamp (GemmClampEpilogue), else
// GemmStoreTileActivation. The accumulators are TileRegs members
// (tile_regs.h): as an array GCC kept them in memory around the k loop. Inlined into the
// column tile's loop: as a call per tile, its setup (MR row pointers of A) cost a few percent at
// k = 16.
template <class Arch, size_t MR, size_t NV, bool kClamp>
[[gnu::always_inline]] inline void GemmTileWith(const GemmParams& p, const float* a,
                                                const GemmBRows& b, float* c, size_t i0, size_t j0,
                                                size_t k0, size_t kc) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const bool first = k0 == 0, last = k0 + kc == p.k;
  // The first k block starts from zeros read as if they were C (row pitch 0): one load per
  // register either way instead of a branch per register.
  const bool zero = first && !p.accumulate;
  const float* c_in = zero ? kGemmZeros : c + i0 * p.ldc + j0;
  const size_t ld_in = zero ? 0 : p.ldc;
  TileRegs<B, MR * NV> acc;
  Unrolled<MR * NV>([&](auto i) __attribute__((always_inline)) {
    TileReg<i>(acc) = B::load_unaligned(c_in + i / NV * ld_in + i % NV * W);
  });
  const float* a0 = a + i0 * p.lda + k0;
  size_t q = 0;
#if defined(__aarch64__)
  // AArch64: four k at a time, each row's four A values in one register and multiplied by
  // lane (fmla by element), so A costs one load per row per 4 k instead of a broadcast per k.
  if constexpr (W == 4 && MR * NV + MR + NV <= 32) {
    // Plain NEON registers in the loop: with the xsimd wrappers GCC spilled more accumulators.
    float32x4_t raw[MR][NV];
    Unrolled<MR * NV>([&](auto i) __attribute__((always_inline)) {
      raw[i / NV][i % NV] = TileReg<i>(acc);
    });
    const float* rows[MR];
    for (size_t r = 0; r < MR; ++r) rows[r] = a0 + r * p.lda;
    for (; q + 4 <= kc; q += 4) {
      float32x4_t a4[MR];
      for (size_t r = 0; r < MR; ++r) a4[r] = vld1q_f32(rows[r] + q);
      GemmLaneStep<MR, NV, 0>(raw, a4, b.Row(q));
      GemmLaneStep<MR, NV, 1>(raw, a4, b.Row(q + 1));
      GemmLaneStep<MR, NV, 2>(raw, a4, b.Row(q + 2));
      GemmLaneStep<MR, NV, 3>(raw, a4, b.Row(q + 3));
    }
    Unrolled<MR * NV>([&](auto i) __attribute__((always_inline)) {
      TileReg<i>(acc) = B(raw[i / NV][i % NV]);
    });
  }
#endif
  if (b.rows == nullptr) {
    const float* bq = b.base + b.col + q * b.stride;
#pragma GCC unroll 4
    for (; q < kc; ++q, bq += b.stride) GemmKStep<Arch, MR, NV>(acc, a0, p.lda, q, bq);
  } else {
#pragma GCC unroll 4
    for (; q < kc; ++q) GemmKStep<Arch, MR, NV>(acc, a0, p.lda, q, b.rows[q] + b.col);
  }
  if constexpr (kClamp) {
    GemmStoreTileClamp<Arch, MR, NV>(p, acc, c, i0, j0, last);
  } else {
    GemmStoreTileActivation<Arch, MR, NV>(p, acc, c + i0 * p.ldc + j0, i0, j0);
  }
}

// Columns [j0, n) of rows i0..i0+MR, one output value at a time (its own dot product over k).
// Used for k == 0 (bias and activation only) and for several tail columns of a B with
// ldb == 1 (each dot runs over k in registers); one such column, the matrix·vector case, goes
// through GemmDotAllRows (the same sums, 8 rows at a time).
template <class Arch, size_t MR>
void GemmTailMatVec(const GemmParams& p, const float* a, const float* b, float* c, size_t i0,
                    size_t j0) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  for (size_t r = 0; r < MR; ++r) {
    const float* ar = a + (i0 + r) * p.lda;
    for (size_t j = j0; j < p.n; ++j) {
      float sum = 0.0f;
      size_t q = 0;
      if (p.ldb == 1 && p.b_row_offsets == nullptr) {
        B acc(0.0f);
        for (; q + W <= p.k; q += W)
          acc = xsimd::fma(B::load_unaligned(ar + q), B::load_unaligned(b + q + j), acc);
        sum = xsimd::hadd(acc);
      }
      for (; q < p.k; ++q) sum += ar[q] * GemmBRow(p, b, q)[j];
      float* out = c + (i0 + r) * p.ldc + j;
      *out = GemmFinishOne(p, sum, i0 + r, j, out);
    }
  }
}

// The last `cols` < W columns (from j0) of rows i0..i0+MR over the k block [k0, k0+kc), with B's
// columns packed zero-padded into bt[kc × W]. C is read and written through a register-wide
// stack copy so only the `cols` valid values are touched.
template <class Arch, size_t MR>
void GemmTailPackedTile(const GemmParams& p, const float* a, const float* bt, float* c, size_t i0,
                        size_t j0, size_t cols, size_t k0, size_t kc) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const bool first = k0 == 0, last = k0 + kc == p.k;
  alignas(64) float tmp[W] = {};
  B acc[MR];
  for (size_t r = 0; r < MR; ++r) {
    if (first && !p.accumulate) {
      acc[r] = B(0.0f);
      continue;
    }
    std::copy(c + (i0 + r) * p.ldc + j0, c + (i0 + r) * p.ldc + j0 + cols, tmp);
    acc[r] = B::load_aligned(tmp);
  }
  const float* a0 = a + i0 * p.lda + k0;
  for (size_t q = 0; q < kc; ++q) {
    const B bv = B::load_aligned(bt + q * W);
    for (size_t r = 0; r < MR; ++r) acc[r] = xsimd::fma(B(a0[r * p.lda + q]), bv, acc[r]);
  }
  alignas(64) float bias_cols[W] = {};
  if (last && p.bias != nullptr && !p.bias_per_row)
    std::copy(p.bias + j0, p.bias + j0 + cols, bias_cols);
  for (size_t r = 0; r < MR; ++r) {
    B val = acc[r];
    if (last) {
      if (p.bias != nullptr) val += p.bias_per_row ? B(p.bias[i0 + r]) : B::load_aligned(bias_cols);
      val = ActBatch<Arch>(val, p.act);
    }
    val.store_aligned(tmp);
    std::copy(tmp, tmp + cols, c + (i0 + r) * p.ldc + j0);
  }
}

// Columns [j0, n), fewer than W, of all rows: B's tail packed zero-padded to one register per
// k (kc·W floats on the stack, per k block), then GemmTailPackedTile over tiles of MR rows
// (single rows for the remainder).
template <class Arch, size_t MR>
void GemmTailPackedColumns(const GemmParams& p, const float* a, const float* b, float* c,
                           size_t j0) {
  constexpr size_t W = FBatch<Arch>::size;
  constexpr size_t kmax = 256;
  const size_t cols = p.n - j0;
  alignas(64) float bt[kmax * W];
  for (size_t k0 = 0; k0 < p.k; k0 += kmax) {
    const size_t kc = std::min(kmax, p.k - k0);
    for (size_t q = 0; q < kc; ++q) {
      const float* bq = GemmBRow(p, b, k0 + q) + j0;
      for (size_t j = 0; j < W; ++j) bt[q * W + j] = j < cols ? bq[j] : 0.0f;
    }
    size_t i = 0;
    for (; i + MR <= p.m; i += MR) GemmTailPackedTile<Arch, MR>(p, a, bt, c, i, j0, cols, k0, kc);
    for (; i < p.m; ++i) GemmTailPackedTile<Arch, 1>(p, a, bt, c, i, j0, cols, k0, kc);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
