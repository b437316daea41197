// int8 kernels over the SIMD arch: the GEMM behind ConvInt8 and GemmInt8, Quantize and
// Dequantize. Integer sums are exact and requantization is the scalar RequantizeS8 on each
// int32 accumulator, so every table gives the reference's bits (kernels/ref/int8_ref.cc).
#pragma once
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/flat_rows_s8.h"
#include "kernels/conv/im2col_rows.h"
#include "kernels/conv/valid_columns.h"
#include "kernels/simd/conv2d_depthwise_s8_hwc_simd.h"
#include "kernels/simd/int8_gemm_simd.h"
#include "kernels/int8_params.h"
#include "kernels/simd/simd_common.h"

#if defined(__SSE4_1__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
#include "kernels/simd/requant_avx512.h"
#endif
#if defined(__AVX2__)
#include "kernels/simd/depthwise_pairs_avx2.h"
#include "kernels/simd/requant_avx2.h"
#endif
#if defined(__ARM_NEON)
#include "kernels/simd/requant_neon.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

using Int8Pool2dFn = void (*)(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
                              size_t planes);

// dst[j] = src[2j] for j < count (the even bytes; AVX-512BW narrows 32 words to their low
// bytes, NEON deinterleaves with vld2). Bytes up to `src_end` may be read (the plane's end): a
// vector of pairs reads the odd byte after its last even one.
inline void CopyEvenBytes(int8_t* dst, const int8_t* src, size_t count, const int8_t* src_end) {
  size_t j = 0;
#if defined(__AVX512BW__)
  for (; j + 32 <= count && src + 2 * j + 64 <= src_end; j += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j),
                        _mm512_cvtepi16_epi8(_mm512_loadu_si512(src + 2 * j)));
  if (j < count &&
      count - j <= 32) {  // the last even bytes masked: never reads past src[2·(count − 1)]
    const size_t rest = count - j;  // 1 to 32: 2·rest − 1 ≤ 63 bytes
    const __mmask64 even = 0x5555555555555555ull & ((uint64_t{1} << (2 * rest - 1)) - 1);
    const __m512i words = _mm512_maskz_loadu_epi8(even, src + 2 * j);
    _mm256_mask_storeu_epi8(dst + j, static_cast<__mmask32>((uint64_t{1} << rest) - 1),
                            _mm512_cvtepi16_epi8(words));
    return;
  }
#endif
#if defined(__AVX2__) && !defined(__AVX512BW__)
  // AVX2: each 16-byte half's even bytes to its low 8 (pshufb), the two halves' together.
  const __m256i even = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1,
                                        0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
  for (; j + 16 <= count && src + 2 * j + 32 <= src_end; j += 16) {
    const __m256i v = _mm256_shuffle_epi8(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * j)), even);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j),
                     _mm256_castsi256_si128(_mm256_permute4x64_epi64(v, 0x08)));
  }
  for (; j + 8 <= count && src + 2 * j + 16 <= src_end; j += 8)
    _mm_storel_epi64(
        reinterpret_cast<__m128i*>(dst + j),
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * j)),
                         _mm256_castsi256_si128(even)));
#endif
#if defined(__ARM_NEON)
  for (; j + 16 <= count && src + 2 * j + 32 <= src_end; j += 16)
    vst1q_s8(dst + j, vld2q_s8(src + 2 * j).val[0]);
  for (; j + 8 <= count && src + 2 * j + 16 <= src_end; j += 8)
    vst1_s8(dst + j, vld2_s8(src + 2 * j).val[0]);
#endif
  for (; j < count; ++j) dst[j] = src[2 * j];
}

// Im2colS8 (kernels/ref/int8_ref.cc); stride 1 with out_w == in_w (a "same" convolution) has
// a shortcut: for a fixed tap, consecutive output pixels read consecutive input bytes across
// row ends, so the tap's whole row of col is one copy of the shifted plane, then the few
// columns each row reads outside the image (lo, hi) and the rows above and below are set to
// the padding. Small images (ResNet-8's 32×32 down to 8×8) otherwise cost three library calls
// per 8- to 32-byte row.
// Output rows [row0, row0 + rows) (col: rows·out_w columns).
inline void Im2colS8Same(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
                         size_t rows, int8_t* col) {
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w, in_plane = s.in_h * s.in_w;
  const long in_h = static_cast<long>(s.in_h), r0 = static_cast<long>(row0),
             out_h = r0 + static_cast<long>(rows);
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t t = 0; t < s.kw; ++t) {
        int8_t* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        const long dy = static_cast<long>(r * s.dilation_h) - static_cast<long>(s.pad_top);
        size_t lo = 0, hi = 0;
        ref::ValidColumns(s, off_w, &lo, &hi);
        // Output rows [oh0, oh1) of the window read inside the image (row index oh − r0 in col).
        const long oh0 = std::min(out_h, std::max<long>(r0, -dy)),
                   oh1 = std::max(oh0, std::min(out_h, in_h - dy));
        const long w = static_cast<long>(s.out_w);
        std::memset(row, pad_value, static_cast<size_t>((oh0 - r0) * w));
        std::memset(row + (oh1 - r0) * w, pad_value, static_cast<size_t>((out_h - oh1) * w));
        if (oh1 == oh0) continue;
        const long begin = (oh0 + dy) * static_cast<long>(s.in_w) + off_w;  // source of (oh0, 0)
        const long end = begin + (oh1 - oh0) * w;
        const long s0 = std::max<long>(begin, 0),
                   s1 = std::min<long>(end, static_cast<long>(in_plane));
        int8_t* dst = row + (oh0 - r0) * w;
        if (s1 > s0)
          std::memcpy(dst + (s0 - begin), x_group + c * in_plane + s0,
                      static_cast<size_t>(s1 - s0));
        for (long oh = oh0; oh < oh1; ++oh) {  // the columns that read across a row end
          int8_t* line = row + (oh - r0) * w;
          for (size_t ow = 0; ow < lo; ++ow) line[ow] = pad_value;
          for (size_t ow = hi; ow < s.out_w; ++ow) line[ow] = pad_value;
        }
      }
}

// Any stride and dilation: ref::Im2colRows (per window tap and output row, the columns that
// read inside the image as one run, the padding around them set) with this level's byte copies
// for the run: two overlapping pieces or masked (stride 1), de-interleaving loads (stride 2).
struct S8RunCopy {
  void operator()(int8_t* dst, const int8_t* in, size_t count, size_t stride,
                  const int8_t* in_end) const {
    if (stride == 1)
      CopySmallBytes(dst, in, count);
    else if (stride == 2)
      CopyEvenBytes(dst, in, count, in_end);
    else
      for (size_t j = 0; j < count; ++j) dst[j] = in[j * stride];
  }
};

#if defined(__ARM_NEON)
#include "kernels/simd/im2col_s8_neon.h"
#endif

inline void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
                     size_t rows, int8_t* col) {
  rows = std::min(rows, s.out_h - std::min(row0, s.out_h));
#if defined(__ARM_NEON)
  if (neon_im2col::Im2colS8(s, x_group, pad_value, row0, rows, col)) return;
#endif
  if (s.stride_h == 1 && s.stride_w == 1 && s.out_w == s.in_w)
    return Im2colS8Same(s, x_group, pad_value, row0, rows, col);
  ref::Im2colRows<int8_t>(s, x_group, pad_value, col, row0, rows, S8RunCopy());
}

#if defined(__AVX2__)
#include "kernels/simd/add_s8_avx2.h"
#endif
#if defined(__ARM_NEON)
#include "kernels/simd/add_s8_neon.h"
#include "kernels/simd/pool_s8_neon.h"
#endif

// The int8 2-D pool: on NEON simd/pool_s8_neon.h (whole-row average windows), on AVX-512BW
// simd/max_pool_s8_x86.h (max pools at strides 1 and 2), elsewhere the reference (written so
// the compiler vectorizes the max pool's rows).
#if defined(__ARM_NEON)
inline constexpr Int8Pool2dFn kPool2dS8 = &neon_pool::Pool2dS8;
#elif defined(__AVX512BW__)
#include "kernels/simd/max_pool_s8_x86.h"
inline constexpr Int8Pool2dFn kPool2dS8 = &x86_max_pool::Pool2dS8;
#else
inline constexpr Int8Pool2dFn kPool2dS8 = &ref::Pool2dS8;
#endif

// LutInt8's lookup (Int8KernelTable::lut_s8): on AVX-512BW and AVX2 simd/lut_s8_x86.h,
// elsewhere none.
using LutS8Fn = void (*)(const int8_t* table, const int8_t* x, int8_t* y, size_t n);
#if defined(__AVX512BW__)
#include "kernels/simd/lut_s8_x86.h"
template <class Arch>
inline constexpr LutS8Fn kLutS8 = &x86_lut::LutS8;
#elif defined(__AVX2__)
#include "kernels/simd/lut_s8_x86.h"
template <class Arch>
inline constexpr LutS8Fn kLutS8 = &x86_lut::LutS8Avx2;
#else
template <class Arch>
inline constexpr LutS8Fn kLutS8 = nullptr;
#endif

// The int8 global pool: on AVX-512BW simd/global_pool_s8_x86.h, on AVX2
// simd/global_pool_s8_avx2.h, elsewhere the reference.
using GlobalPoolS8Fn = void (*)(PoolKind kind, const int8_t* x, int8_t* y, size_t channels,
                                size_t spatial);
#if defined(__AVX512BW__)
#include "kernels/simd/global_pool_s8_x86.h"
inline constexpr GlobalPoolS8Fn kGlobalPoolS8 = x86_global_pool::GlobalPoolS8;
#elif defined(__AVX2__)
#include "kernels/simd/global_pool_s8_avx2.h"
inline constexpr GlobalPoolS8Fn kGlobalPoolS8 = x86_global_pool_avx2::GlobalPoolS8;
#else
inline constexpr GlobalPoolS8Fn kGlobalPoolS8 = &ref::GlobalPoolS8;
#endif

// AddS8 (int8_params.h): on AVX-512 the 64-bit sums of products of even and odd lanes, rounded
// and narrowed like the reference; on AVX2 simd/add_s8_avx2.h; on NEON simd/add_s8_neon.h;
// elsewhere the reference.
template <class Arch>
void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  size_t i = 0;
#if defined(__AVX512F__)
  if constexpr (IBatch<Arch>::size == 16) {
    const __m512i zp_a = _mm512_set1_epi32(p.a_zero_point),
                  zp_b = _mm512_set1_epi32(p.b_zero_point);
    const __m512i ma = _mm512_set1_epi64(p.multiplier_a), mb = _mm512_set1_epi64(p.multiplier_b);
    for (; i + 16 <= n; i += 16) {
      const __m512i da = _mm512_sub_epi32(
          _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i))), zp_a);
      const __m512i db = _mm512_sub_epi32(
          _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))), zp_b);
      const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(da, ma), _mm512_mul_epi32(db, mb));
      const __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(da, 32), ma),
                                           _mm512_mul_epi32(_mm512_srli_epi64(db, 32), mb));
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(y + i),
          avx512_requant::NarrowS8(even, odd, p.shift, p.y_zero_point, p.act_min, p.act_max));
    }
  }
#endif
#if defined(__AVX2__)
  if constexpr (IBatch<Arch>::size == 8) i = avx2_add::AddS8(p, a, b, y, n);
#endif
#if defined(__ARM_NEON)
  if constexpr (IBatch<Arch>::size == 4) i = neon_add::AddS8(p, a, b, y, n);
#endif
  ref::AddS8(p, a + i, b + i, y + i, n - i);
}

// MulS8Rows (int8_params.h): W products a row at a time, (a − zp_a)·(b[r] − zp_b) exact in
// int32 (|·| ≤ 255²), requantized lane-wise as the GEMM's rows (RequantizeLanes); the row's
// tail by the reference.
template <class Arch>
void MulS8Rows(const MulS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t rows,
               size_t inner) {
  constexpr size_t W = IBatch<Arch>::size;
  GemmS8Params rq;
  rq.y_zero_point = p.y_zero_point;
  rq.act_min = p.act_min;
  rq.act_max = p.act_max;
  const IBatch<Arch> zp_a(p.a_zero_point);
  alignas(64) int8_t q[W];
#if defined(__AVX512BW__)
  // 64 products a step, rounded with the op's one multiplier and narrowed four registers at
  // once (requant_avx512.h NarrowFourS8).
  const avx512_requant::RowRounding rounding =
      avx512_requant::MakeRowRounding(p.multiplier, p.shift);
  const __m512i zp16 = _mm512_set1_epi16(static_cast<int16_t>(p.y_zero_point));
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(p.act_min));
  const __m512i hi8 = _mm512_set1_epi8(static_cast<char>(p.act_max));
#endif
#if defined(__AVX2__) && !defined(__AVX512BW__)
  // AVX2: 16 products a step, the op's one rounding set up once (requant_avx2.h).
  const avx2_requant::Rounding rounding =
      avx2_requant::MakeRounding(p.multiplier, p.shift, p.y_zero_point, p.act_min, p.act_max);
  const __m256i zp_a8 = _mm256_set1_epi32(p.a_zero_point);
#endif
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* ar = a + r * inner;
    int8_t* yr = y + r * inner;
    const IBatch<Arch> bv(int32_t{b[r]} - p.b_zero_point);
    size_t j = 0;
#if defined(__AVX512BW__)
    if constexpr (W == 16) {
      const auto product = [&](size_t at) {
        return avx512_requant::RoundedS32x16((LoadS8<Arch>(ar + at) - zp_a) * bv, rounding);
      };
      for (; j + 4 * W <= inner; j += 4 * W)
        _mm512_storeu_si512(
            yr + j, avx512_requant::NarrowFourS8(product(j), product(j + W), product(j + 2 * W),
                                                 product(j + 3 * W), zp16, lo8, hi8));
    }
#endif
#if defined(__AVX2__) && !defined(__AVX512BW__)
    if constexpr (W == 8) {
      const __m256i b8 = _mm256_set1_epi32(int32_t{b[r]} - p.b_zero_point);
      const auto product = [&](size_t at) {
        const __m256i av =
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ar + at)));
        return avx2_requant::RequantizeS32x8(_mm256_mullo_epi32(_mm256_sub_epi32(av, zp_a8), b8),
                                             rounding);
      };
      for (; j + 2 * W <= inner; j += 2 * W)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(yr + j),
                         avx2_requant::NarrowS8x16(product(j), product(j + W)));
    }
#endif
    for (; j + W <= inner; j += W) {
      RequantizeLanes<Arch>((LoadS8<Arch>(ar + j) - zp_a) * bv, p.multiplier, p.shift, rq, q);
      std::memcpy(yr + j, q, W);
    }
    if (j < inner) ref::MulS8Rows(p, ar + j, b + r, yr + j, 1, inner - j);
  }
}

// Fills the phase planes of one channel (conv_scratch.h, DepthwiseS8PlaneGeometry).
inline void FillDepthwisePhases(const Conv2dShape& s, const DepthwiseS8Planes& g, const int8_t* xc,
                                int8_t zp, int8_t* plane) {
  std::memset(plane, zp, g.phases * g.phase_bytes);
  for (size_t a = 0; a < s.stride_h; ++a)
    for (size_t b = 0; b < s.stride_w; ++b) {
      int8_t* phase = plane + (a * s.stride_w + b) * g.phase_bytes;
      // Columns j read padded column j·sw + b, input column j·sw + b − pad_left.
      const long first = static_cast<long>(b) - static_cast<long>(s.pad_left);
      const long sw = static_cast<long>(s.stride_w), in_w = static_cast<long>(s.in_w);
      const long lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
      const long hi = std::min<long>(static_cast<long>(g.pitch),
                                     in_w - 1 - first >= 0 ? (in_w - 1 - first) / sw + 1 : 0);
      if (hi <= lo) continue;
      // Plane rows i read input row i·sh + a − pad_top: those in [0, in_h), by pointer steps.
      const long sh = static_cast<long>(s.stride_h),
                 top = static_cast<long>(a) - static_cast<long>(s.pad_top);
      const long i_lo = top >= 0 ? 0 : (-top + sh - 1) / sh;
      const long i_hi = std::min<long>(static_cast<long>(g.rows),
                                       static_cast<long>(s.in_h) - 1 - top >= 0
                                           ? (static_cast<long>(s.in_h) - 1 - top) / sh + 1
                                           : 0);
      if (i_hi <= i_lo) continue;
      const size_t count = static_cast<size_t>(hi - lo);
      const int8_t* src = xc + static_cast<size_t>(i_lo * sh + top) * s.in_w + (lo * sw + first);
      int8_t* dst = phase + static_cast<size_t>(i_lo) * g.pitch + lo;
      for (long i = i_lo; i < i_hi; ++i, src += s.stride_h * s.in_w, dst += g.pitch) {
        if (sw == 1)
          CopySmallBytes(dst, src, count);
        else
          CopyEvenBytes(dst, src, count, xc + s.in_h * s.in_w);
      }
    }
}

// One channel over its phase planes: kTaps taps (0: `taps`, known only at run time) at the
// byte offsets `offset`, weights `wc`.
template <class Arch, size_t kTaps>
void DepthwiseChannelS8(const Conv2dShape& s, const DepthwiseS8Planes& g, size_t taps,
                        const size_t* offset, const int8_t* wc, int32_t bias, int32_t multiplier,
                        int32_t shift, const GemmS8Params& rq, const int8_t* plane, int8_t* yc) {
  using I = IBatch<Arch>;
  constexpr size_t W = I::size;
  const size_t n_taps = kTaps != 0 ? kTaps : taps;
  int32_t weight[kMaxDepthwiseS8Taps];
  for (size_t k = 0; k < n_taps; ++k) weight[k] = wc[k];
    // NEON: 8 outputs a step, the int8 taps widened to int16 and multiplied into int32 by vmlal
    // (one instruction per 4 products, against a widening load, a multiply and an add per 4).
#if defined(__ARM_NEON)
  constexpr size_t L = W == 4 ? 8 : W;
#elif defined(__AVX2__)
  // AVX2: 16 outputs a step, two taps a vpmaddwd (depthwise_pairs_avx2.h).
  constexpr size_t L = W == 8 ? 16 : W;
#else
  constexpr size_t L = W;
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) {
    const avx2_depthwise::TapPairs pairs = avx2_depthwise::MakeTapPairs(weight, n_taps);
    const avx2_requant::Rounding rounding =
        avx2_requant::MakeRounding(multiplier, shift, rq.y_zero_point, rq.act_min, rq.act_max);
    StoreFlatRowsS8<L>(s, g, yc, [&](size_t i, int8_t* q) {
      __m256i first, second;
      avx2_depthwise::Sums16<kTaps>(pairs, plane + i, offset, bias, first, second);
      _mm_store_si128(reinterpret_cast<__m128i*>(q),
                      avx2_requant::NarrowS8x16(avx2_requant::RequantizeS32x8(first, rounding),
                                                avx2_requant::RequantizeS32x8(second, rounding)));
    });
    return;
  }
#endif
  StoreFlatRowsS8<L>(s, g, yc, [&](size_t i, int8_t* q) {
#if defined(__ARM_NEON)
    if constexpr (W == 4) {
      int32x4_t lo = vdupq_n_s32(bias), hi = lo;
      for (size_t k = 0; k < n_taps; ++k) {
        const int16x8_t xv = vmovl_s8(vld1_s8(plane + offset[k] + i));
        lo = vmlal_n_s16(lo, vget_low_s16(xv), static_cast<int16_t>(weight[k]));
        hi = vmlal_n_s16(hi, vget_high_s16(xv), static_cast<int16_t>(weight[k]));
      }
      neon_requant::StoreS8x4(neon_requant::RequantizeS32x4(lo, multiplier, shift, rq.y_zero_point,
                                                            rq.act_min, rq.act_max),
                              q);
      neon_requant::StoreS8x4(neon_requant::RequantizeS32x4(hi, multiplier, shift, rq.y_zero_point,
                                                            rq.act_min, rq.act_max),
                              q + 4);
    }
#endif
    if constexpr (L == W) {
      I acc(bias);
      for (size_t k = 0; k < n_taps; ++k) acc += I(weight[k]) * LoadS8<Arch>(plane + offset[k] + i);
      RequantizeLanes<Arch>(acc, multiplier, shift, rq, q);
    }
  });
}

// Depthwise, strides 1 and 2: per channel the input is split into zero-point-padded phase
// planes (FillDepthwisePhases), so every tap of W consecutive outputs, taken over the flat
// plane of `pitch` columns, is one contiguous load; the pitch − out_w columns past each row are
// computed and dropped, the rest copied out by rows (flat_rows_s8.h). 3×3 and 5×5 windows unroll their taps.
// `channel`, when given, computes each channel from its planes instead (a CPU extension's
// kernel: kernel_table.h, DepthwiseChannelS8Fn).
template <class Arch>
void Conv2dDepthwiseS8Using(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                            int8_t x_zero_point, const GemmS8Params& rq, int8_t* plane, int8_t* y,
                            DepthwiseChannelS8Fn channel) {
  if (Conv2dDepthwiseS8Hwc<Arch>(s, x, w, x_zero_point, rq, plane, y)) return;
  const DepthwiseS8Planes g = DepthwiseS8PlaneGeometry(s);
  const size_t taps = s.kh * s.kw;  // ≤ kMaxDepthwiseS8Taps (ConvS8UsesDepthwisePlane)
  size_t offset[kMaxDepthwiseS8Taps];
  for (size_t r = 0; r < s.kh; ++r)
    for (size_t t = 0; t < s.kw; ++t) {
      const size_t dy = r * s.dilation_h, dx = t * s.dilation_w;
      offset[r * s.kw + t] = ((dy % s.stride_h) * s.stride_w + dx % s.stride_w) * g.phase_bytes +
                             (dy / s.stride_h) * g.pitch + dx / s.stride_w;
    }
  for (size_t c = 0; c < s.out_c; ++c) {
    FillDepthwisePhases(s, g, x + c * s.in_h * s.in_w, x_zero_point, plane);
    const int32_t bias = rq.bias != nullptr ? rq.bias[c] : 0;
    const int8_t* wc = w + c * taps;
    int8_t* yc = y + c * s.out_h * s.out_w;
    if (channel != nullptr)
      channel(s, g, taps, offset, wc, bias, rq.multiplier[c], rq.shift[c], rq, plane, yc);
    else if (taps == 9)
      DepthwiseChannelS8<Arch, 9>(s, g, taps, offset, wc, bias, rq.multiplier[c], rq.shift[c], rq,
                                  plane, yc);
    else if (taps == 25)
      DepthwiseChannelS8<Arch, 25>(s, g, taps, offset, wc, bias, rq.multiplier[c], rq.shift[c], rq,
                                   plane, yc);
    else
      DepthwiseChannelS8<Arch, 0>(s, g, taps, offset, wc, bias, rq.multiplier[c], rq.shift[c], rq,
                                  plane, yc);
  }
}

template <class Arch>
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  Conv2dDepthwiseS8Using<Arch>(s, x, w, x_zero_point, rq, plane, y, nullptr);
}

// The reference's steps on a register: multiply, NaN → 0, clamp, magic-number rounding (half
// to even), + zp, clamp; then the integral floats narrowed to int8.
#if defined(__SSE4_1__)
// The W int32 lanes of v, each already in [−128, 127], stored as W bytes at y.
template <class Arch>
inline void StoreS8Lanes(const IBatch<Arch>& v, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm512_cvtepi32_epi8(v));
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) {
    const __m256i r = v;
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), _mm_packs_epi16(w, w));
    return;
  }
#endif
  if constexpr (W == 4) {
    const __m128i w = _mm_packs_epi32(v, v);
    const int32_t word = _mm_cvtsi128_si32(_mm_packs_epi16(w, w));
    std::memcpy(y, &word, 4);
  }
}
#endif

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
    v = xsimd::select(v == v, v, zero);  // not v != v: xsimd's AVX != is an ordered compare
    v = xsimd::min(xsimd::max(v, lo), hi);
    v = (v + magic) - magic;
    v = xsimd::min(xsimd::max(v + zp, qlo), qhi);
#if defined(__SSE4_1__)
    // Whole values in [−128, 127]: converted exactly and narrowed in registers.
    if constexpr (W == 16 || W == 8 || W == 4) {
      StoreS8Lanes<Arch>(xsimd::batch_cast<int32_t>(v), y + i);
      continue;
    }
#endif
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
