// int8 kernels over the SIMD arch: the GEMM behind ConvInt8 and GemmInt8, Quantize and
// Dequantize. Integer sums are exact and requantization is the scalar RequantizeS8 on each
// int32 accumulator, so every table gives the reference's bits (kernels/ref/int8_ref.cc).
#pragma once
#include <cstring>
#include <type_traits>

#include "kernels/int8_params.h"
#include "kernels/simd/simd_common.h"

#if defined(__SSE4_1__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
using IBatch = xsimd::batch<int32_t, Arch>;

// W int8 values sign-extended to int32 lanes. x86 has one instruction for it (pmovsxbd);
// elsewhere xsimd's converting load.
template <class Arch>
inline IBatch<Arch> LoadS8(const int8_t* p) {
  constexpr size_t W = IBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) return IBatch<Arch>(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) return IBatch<Arch>(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#endif
#if defined(__SSE4_1__)
  if constexpr (W == 4) {
    int32_t word;
    std::memcpy(&word, p, 4);
    return IBatch<Arch>(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(word)));
  }
#endif
  return IBatch<Arch>::load_unaligned(p);
}

// Requantizes `count` accumulators of row i into y.
inline void StoreRowS8(const GemmS8Params& p, size_t i, const int32_t* acc, int8_t* y, size_t count) {
  for (size_t j = 0; j < count; ++j)
    y[j] = RequantizeS8(acc[j], p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min, p.act_max);
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
void GemmS8Tile(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t i, size_t j, size_t cols) {
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
        std::memcpy(padded, row + v * W, cols - v * W);   // cols > v·W: only the last register is partial
        bv[v] = LoadS8<Arch>(padded);
      }
    }
    for (size_t r = 0; r < R; ++r) {
      const I av(int32_t{a[(i + r) * p.lda + q]});
      for (size_t v = 0; v < V; ++v) acc[r][v] += av * bv[v];
    }
  }
  alignas(64) int32_t lanes[W];
  for (size_t r = 0; r < R; ++r)
    for (size_t v = 0; v < V; ++v) {
      acc[r][v].store_aligned(lanes);
      StoreRowS8(p, i + r, lanes, y + (i + r) * p.ldy + j + v * W, std::min(W, cols - v * W));
    }
}

// All rows over the columns [j, j + cols).
template <class Arch, size_t V>
void GemmS8Columns(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t j, size_t cols) {
  size_t i = 0;
  for (; i + 4 <= p.m; i += 4) GemmS8Tile<Arch, 4, V>(p, a, b, y, i, j, cols);
  for (; i < p.m; ++i) GemmS8Tile<Arch, 1, V>(p, a, b, y, i, j, cols);
}

template <class Arch>
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  if (p.n == 1 && p.ldb == 1) return GemmS8MatVec<Arch>(p, a, b, y);
  size_t j = 0;
  for (; j + 2 * W <= p.n; j += 2 * W) GemmS8Columns<Arch, 2>(p, a, b, y, j, 2 * W);
  for (; j < p.n; j += W) GemmS8Columns<Arch, 1>(p, a, b, y, j, std::min(W, p.n - j));
}

// Depthwise, stride 1: per channel the input is copied into `plane` padded with zp_x at the
// pitch the outputs need (out_w + (kw − 1)·dw), so every tap of W consecutive outputs, taken
// over the flat plane, is one contiguous load; the columns past out_w of each row are computed
// and dropped. The plane has a row and a register of slack (ConvS8DepthwisePlaneBytes).
template <class Arch>
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  using I = IBatch<Arch>;
  constexpr size_t W = I::size;
  const size_t pitch = s.out_w + (s.kw - 1) * s.dilation_w, rows = s.out_h + (s.kh - 1) * s.dilation_h;
  const size_t flat = s.out_h * pitch;
  alignas(64) int32_t lanes[W];
  for (size_t c = 0; c < s.out_c; ++c) {
    std::memset(plane, x_zero_point, (rows + 1) * pitch + W);
    for (size_t pr = 0; pr < rows; ++pr) {
      const long ih = static_cast<long>(pr) - static_cast<long>(s.pad_top);
      if (ih < 0 || ih >= static_cast<long>(s.in_h)) continue;
      const long lo = std::max<long>(0, static_cast<long>(s.pad_left));
      const long hi = std::min<long>(static_cast<long>(pitch), static_cast<long>(s.pad_left + s.in_w));
      if (hi > lo)
        std::memcpy(plane + pr * pitch + static_cast<size_t>(lo),
                    x + (c * s.in_h + static_cast<size_t>(ih)) * s.in_w + static_cast<size_t>(lo - static_cast<long>(s.pad_left)),
                    static_cast<size_t>(hi - lo));
    }
    const int8_t* wc = w + c * s.kh * s.kw;
    size_t oh = 0, ow = 0;   // of flat index i
    for (size_t i = 0; i < flat; i += W) {
      I acc(rq.bias != nullptr ? rq.bias[c] : 0);
      for (size_t r = 0; r < s.kh; ++r)
        for (size_t t = 0; t < s.kw; ++t)
          acc += I(int32_t{wc[r * s.kw + t]}) * LoadS8<Arch>(plane + i + r * s.dilation_h * pitch + t * s.dilation_w);
      acc.store_aligned(lanes);
      for (size_t l = 0; l < W && i + l < flat; ++l) {
        if (ow < s.out_w)
          y[(c * s.out_h + oh) * s.out_w + ow] =
              RequantizeS8(lanes[l], rq.multiplier[c], rq.shift[c], rq.y_zero_point, rq.act_min, rq.act_max);
        if (++ow == pitch) {
          ow = 0;
          ++oh;
        }
      }
    }
  }
}

// The reference's steps on a register: multiply, NaN → 0, clamp, magic-number rounding (half
// to even), + zp, clamp; then the integral floats narrowed to int8.
template <class Arch>
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B inv(p.inv_scale), magic(12582912.0f), zp(static_cast<float>(p.zero_point));
  const B lo(-512.0f), hi(512.0f), qlo(-128.0f), qhi(127.0f), zero(0.0f);
  alignas(64) float lanes[W];
  size_t i = 0;
  for (; i + W <= n; i += W) {
    B v = B::load_unaligned(x + i) * inv;
    v = xsimd::select(v == v, v, zero);   // not v != v: xsimd's AVX != is an ordered compare
    v = xsimd::min(xsimd::max(v, lo), hi);
    v = (v + magic) - magic;
    v = xsimd::min(xsimd::max(v + zp, qlo), qhi);
    v.store_aligned(lanes);
    for (size_t l = 0; l < W; ++l) y[i + l] = static_cast<int8_t>(lanes[l]);
  }
  ref::QuantizeS8(p, x + i, y + i, n - i);
}

template <class Arch>
void DequantizeS8(const QuantS8Params& p, const int8_t* x, float* y, size_t n) {
  using B = FBatch<Arch>;
  constexpr size_t W = IBatch<Arch>::size;
  static_assert(W == B::size, "int32 and float registers hold as many lanes");
  const IBatch<Arch> zp(p.zero_point);
  const B scale(p.scale);
  size_t i = 0;
  for (; i + W <= n; i += W)
    (xsimd::batch_cast<float>(LoadS8<Arch>(x + i) - zp) * scale).store_unaligned(y + i);
  ref::DequantizeS8(p, x + i, y + i, n - i);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
