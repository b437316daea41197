// The int8 GEMM over the SIMD arch (behind ConvInt8 and GemmInt8, via int8_simd.h): int8 values
// widened to int32 lanes, exact integer sums, requantized per row like the reference
// (kernels/ref/int8_ref.cc), so every table gives the reference's bits.
#pragma once
#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_s8_direct.h"
#include "kernels/int8_params.h"
#include "kernels/simd/simd_common.h"

#if defined(__SSE4_1__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
#include "kernels/simd/requant_avx512.h"
#endif
#if defined(__AVX2__)
#include "kernels/simd/requant_avx2.h"
#endif
#if defined(__ARM_NEON)
#include "kernels/simd/requant_neon.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
using IBatch = xsimd::batch<int32_t, Arch>;

// W int8 values sign-extended to int32 lanes: pmovsxbd on x86, two widening moves on NEON,
// xsimd's converting load elsewhere.
template <class Arch>
inline IBatch<Arch> LoadS8(const int8_t* p) {
  constexpr size_t W = IBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16)
    return IBatch<Arch>(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#endif
#if defined(__AVX2__)
  if constexpr (W == 8)
    return IBatch<Arch>(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#endif
#if defined(__SSE4_1__)
  if constexpr (W == 4) {
    int32_t word;
    std::memcpy(&word, p, 4);
    return IBatch<Arch>(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(word)));
  }
#endif
#if defined(__ARM_NEON)
  if constexpr (W == 4) return IBatch<Arch>(neon_requant::LoadS8x4(p));
#endif
  return IBatch<Arch>::load_unaligned(p);
}

// Requantizes `count` accumulators of row i into y.
inline void StoreRowS8(const GemmS8Params& p, size_t i, const int32_t* acc, int8_t* y,
                       size_t count) {
  for (size_t j = 0; j < count; ++j)
    y[j] = RequantizeS8(acc[j], p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min, p.act_max);
}

// RequantizeS8 of every lane of acc (one output row's multiplier and shift) into q[W].
template <class Arch>
inline void RequantizeLanes(const IBatch<Arch>& acc, int32_t multiplier, int32_t shift,
                            const GemmS8Params& rq, int8_t* q) {
  constexpr size_t W = IBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    _mm_store_si128(reinterpret_cast<__m128i*>(q),
                    avx512_requant::RequantizeS8x16(acc, multiplier, shift, rq.y_zero_point,
                                                    rq.act_min, rq.act_max));
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) {
    avx2_requant::RequantizeS8x8(acc, multiplier, shift, rq.y_zero_point, rq.act_min, rq.act_max,
                                 q);
    return;
  }
#endif
#if defined(__ARM_NEON)
  if constexpr (W == 4) {
    neon_requant::StoreS8x4(neon_requant::RequantizeS32x4(acc, multiplier, shift, rq.y_zero_point,
                                                          rq.act_min, rq.act_max),
                            q);
    return;
  }
#endif
  alignas(64) int32_t lanes[W];
  acc.store_aligned(lanes);
  for (size_t l = 0; l < W; ++l)
    q[l] = RequantizeS8(lanes[l], multiplier, shift, rq.y_zero_point, rq.act_min, rq.act_max);
}

// One row of A against B's single contiguous column (ldb == 1, n == 1): a dot product over k.
template <class Arch>
void GemmS8MatVec(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  using I = IBatch<Arch>;
  constexpr size_t W = I::size;
  for (size_t i = 0; i < p.m; ++i) {
    const int8_t* row = a + i * p.lda;
    I acc(0);
    size_t q = 0;
#if defined(__AVX2__) && !defined(__AVX512BW__)
    // AVX2: 16 products a step as int16 pairs (vpmaddwd, exact: |a·b| ≤ 2^14), against a
    // 32-bit multiply per product.
    if constexpr (W == 8) {
      __m256i pairs = _mm256_setzero_si256();
      const auto wide = [](const int8_t* at) {
        return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
      };
      for (; q + 16 <= p.k; q += 16)
        pairs = _mm256_add_epi32(pairs, _mm256_madd_epi16(wide(row + q), wide(b + q)));
      acc = I(pairs);
    }
#endif
    for (; q + W <= p.k; q += W) acc += LoadS8<Arch>(row + q) * LoadS8<Arch>(b + q);
    int32_t sum = (p.bias != nullptr ? p.bias[i] : 0) + xsimd::hadd(acc);
    for (; q < p.k; ++q) sum += int32_t{row[q]} * int32_t{b[q]};
    StoreRowS8(p, i, &sum, y + i * p.ldy, 1);
  }
}

// Rows [i, i + R) over the columns [j, j + cols), cols ≤ V·W: R·V accumulators in registers.
// A partial last register (cols < V·W) reads its columns through a zero-padded copy and
// stores only them, so the tail runs the same integer sums as the body.
template <class Arch, size_t R, size_t V>
void GemmS8Tile(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t i,
                size_t j, size_t cols) {
  using I = IBatch<Arch>;
  constexpr size_t W = I::size;
  const bool full = cols == V * W;
  I acc[R][V];
  for (size_t r = 0; r < R; ++r)
    for (size_t v = 0; v < V; ++v) acc[r][v] = I(p.bias != nullptr ? p.bias[i + r] : 0);
  alignas(64) int8_t padded[W] = {};
  for (size_t q = 0; q < p.k; ++q) {
    const int8_t* row = b + q * p.ldb + j;
    I bv[V];
    for (size_t v = 0; v < V; ++v) {
      if (full) {
        bv[v] = LoadS8<Arch>(row + v * W);
      } else {
        std::memcpy(padded, row + v * W,
                    cols - v * W);  // cols > v·W: only the last register is partial
        bv[v] = LoadS8<Arch>(padded);
      }
    }
    for (size_t r = 0; r < R; ++r) {
      const I av(int32_t{a[(i + r) * p.lda + q]});
      for (size_t v = 0; v < V; ++v) acc[r][v] += av * bv[v];
    }
  }
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    for (size_t r = 0; r < R; ++r)
      for (size_t v = 0; v < V; ++v) {
        const size_t count = std::min(W, cols - v * W);
        avx512_requant::StoreS8(acc[r][v], p.multiplier[i + r], p.shift[i + r], p.y_zero_point,
                                p.act_min, p.act_max, static_cast<__mmask16>((1u << count) - 1),
                                y + (i + r) * p.ldy + j + v * W);
      }
    return;
  }
#endif
  alignas(64) int8_t q[W];
  for (size_t r = 0; r < R; ++r)
    for (size_t v = 0; v < V; ++v) {
      RequantizeLanes<Arch>(acc[r][v], p.multiplier[i + r], p.shift[i + r], p, q);
      std::memcpy(y + (i + r) * p.ldy + j + v * W, q, std::min(W, cols - v * W));
    }
}

// All rows over the columns [j, j + cols).
template <class Arch, size_t V>
void GemmS8Columns(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t j,
                   size_t cols) {
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) GemmS8Tile<Arch, 4, V>(p, a, b, y, i, j, cols);
  for (; i < p.m; ++i) GemmS8Tile<Arch, 1, V>(p, a, b, y, i, j, cols);
}

#if defined(__SSE4_1__)
#include "kernels/simd/int8_b_rows_x86.h"
#include "kernels/simd/int8_pairs_x86.h"
#include "kernels/simd/int8_quads_x86.h"
#endif
#if defined(__ARM_NEON)
#include "kernels/simd/gemm_s8_smull_neon.h"
#endif

template <class Arch>
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  if (p.n == 1 && p.ldb == 1) return GemmS8MatVec<Arch>(p, a, b, y);
#if defined(__SSE4_1__)
  if (x86_quads::GemmS8<Arch>(p, a, b, y)) return;
  if (x86_pairs::GemmS8<Arch>(p, a, b, y)) return;
#endif
#if defined(__ARM_NEON)
  if (neon_smull::GemmS8(p, a, b, y)) return;
#endif
  size_t j = 0;
  for (; j + 2 * W <= p.n; j += 2 * W) GemmS8Columns<Arch, 2>(p, a, b, y, j, 2 * W);
  for (; j < p.n; j += W) GemmS8Columns<Arch, 1>(p, a, b, y, j, std::min(W, p.n - j));
}

// Int8KernelTable::conv_s8_direct: the ConvInt8 GEMM of output pixels [j0, j0 + p.n) with B's
// columns read from the input (x86_rows::ConvRows), for shapes that ConvS8DirectFits; the
// x86 levels with 4 and 8 int32 lanes (SSE4.1, AVX2) have it, the others none.
using ConvS8DirectFn = void (*)(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                                int8_t pad_value, const int8_t* w, size_t j0, int8_t* y);
#if defined(__SSE4_1__)
template <class Arch, size_t kSpan>
void ConvS8DirectWith(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                      int8_t pad_value, const int8_t* w, size_t j0, int8_t* y) {
  x86_rows::ConvRows<IBatch<Arch>::size, kSpan> rows(s, x_group, pad_value, j0, p.k);
  if (x86_quads::GemmS8Using<Arch>(p, w, rows, y)) return;
  // k ≤ kConvS8DirectMaxK: the pair panels always hold it.
  (void)x86_pairs::GemmS8Using<Arch>(p, w, rows, y);
}
template <class Arch>
void ConvS8Direct(const GemmS8Params& p, const Conv2dShape& s, const int8_t* x_group,
                  int8_t pad_value, const int8_t* w, size_t j0, int8_t* y) {
  if (s.stride_w == 1)
    ConvS8DirectWith<Arch, IBatch<Arch>::size>(p, s, x_group, pad_value, w, j0, y);
  else
    ConvS8DirectWith<Arch, 16>(p, s, x_group, pad_value, w, j0, y);
}
template <class Arch>
constexpr ConvS8DirectFn ConvS8DirectOf() {
  if constexpr (IBatch<Arch>::size == 4 || IBatch<Arch>::size == 8)
    return &ConvS8Direct<Arch>;
  else
    return nullptr;
}
template <class Arch>
inline constexpr ConvS8DirectFn kConvS8Direct = ConvS8DirectOf<Arch>();
#else
template <class Arch>
inline constexpr ConvS8DirectFn kConvS8Direct = nullptr;
#endif

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
