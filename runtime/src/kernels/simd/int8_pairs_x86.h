// The int8 GEMM on x86 without VNNI (SSE4.1, AVX2, AVX-512BW): pmaddwd multiplies int16 pairs
// and adds each pair into one int32 lane, two products per lane per instruction, exact (no
// saturation: |a·b| ≤ 2^14), against one 32-bit multiply per lane (pmulld) in GemmS8Tile.
// Included by int8_simd.h inside the arch namespace; Arch's int32 register has W lanes.
//
// B is repacked once per block of W columns into a panel of ⌈k/2⌉ registers, lane c holding
// (B[2q, c], B[2q+1, c]) as int16, from a row source (int8_b_rows_x86.h: B itself, or a conv's
// input without an im2col); the blocks go in groups that fill kPanelBytes. A's rows are widened
// to int16 once per chunk of rows that fits kWideBytes (once in all when A fits, else once per
// group), so a pair is one 32-bit broadcast. Tiles of up to 8 rows (8 accumulators). Both
// buffers live on the stack (hosted x86 only).
#pragma once

namespace x86_pairs {

constexpr size_t kPanelBytes = 160 * 1024;  // k ≤ 5120 at 16 lanes; larger k takes GemmS8Tile
constexpr size_t kWideBytes = 96 * 1024;    // A rows widened to int16: at least kRows of them
constexpr size_t kRows = 8;

template <size_t W>
struct Regs;
template <>
struct Regs<4> {
  using R = __m128i;
  // acc += v in place (inline asm: see AddTo's note in PairsTile).
  static void AddTo(R& acc, R v) {
#if defined(__AVX__)
    __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(v));
#else
    __asm__("paddd %1, %0" : "+x"(acc) : "x"(v));
#endif
  }
  static R Madd(R pairs, const int16_t* a2) {
    int32_t word;
    std::memcpy(&word, a2, 4);
    return _mm_madd_epi16(pairs, _mm_set1_epi32(word));
  }
  // Columns of rows r0, r1 (their low bytes) as int16 pairs (4 columns).
  static R Pairs(__m128i r0, __m128i r1) { return _mm_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1)); }
};
#if defined(__AVX2__)
template <>
struct Regs<8> {
  using R = __m256i;
  static void AddTo(R& acc, R v) { __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(v)); }
  static R Madd(R pairs, const int16_t* a2) {
    int32_t word;
    std::memcpy(&word, a2, 4);
    return _mm256_madd_epi16(pairs, _mm256_set1_epi32(word));
  }
  static R Pairs(__m128i r0, __m128i r1) { return _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1)); }
};
#endif
#if defined(__AVX512BW__)
template <>
struct Regs<16> {
  using R = __m512i;
  static void AddTo(R& acc, R v) { acc = _mm512_add_epi32(acc, v); }
  static R Madd(R pairs, const int16_t* a2) {
    int32_t word;
    std::memcpy(&word, a2, 4);
    return _mm512_madd_epi16(pairs, _mm512_set1_epi32(word));
  }
  static R Pairs(__m128i x0, __m128i x1) {
    const __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(x0, x1)),
                                                  _mm_unpackhi_epi8(x0, x1), 1);
    return _mm512_cvtepi8_epi16(bytes);
  }
};
#endif

// panel[q] = (B[2q, j + c], B[2q + 1, j + c]) for c < cols, B's rows from `rows`
// (int8_b_rows_x86.h; a zero row past an odd k).
template <size_t W, class Rows>
void PackPairs(const GemmS8Params& p, Rows& rows, size_t j, size_t cols,
               typename Regs<W>::R* panel) {
  x86_rows::RowCursor at = rows.Begin(j, cols);
  const size_t pairs = (p.k + 1) / 2;
  for (size_t q = 0; q < pairs; ++q) {
    const __m128i r0 = rows.Next(at);
    const __m128i r1 = rows.Next(at);
    panel[q] = Regs<W>::Pairs(r0, r1);
  }
}

// R rows from i over the panel: acc = bias + Σ_q madd(panel[q], A pair q).
template <class Arch, size_t R>
void PairsTile(const GemmS8Params& p, const int16_t* wide, size_t ld_wide,
               const typename Regs<IBatch<Arch>::size>::R* panel, size_t i, size_t j, size_t cols,
               int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  using I = IBatch<Arch>;
  using Reg = typename Regs<W>::R;
  // The sums as raw registers added in place (Regs::AddTo, inline asm): with xsimd's += GCC 12
  // added into the product's register and copied it back, a move per multiply-add.
  Reg sums[R];
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) sums[r] = I(p.bias != nullptr ? p.bias[i + r] : 0);
  const size_t pairs = (p.k + 1) / 2;
  for (size_t q = 0; q < pairs; ++q) {
    const Reg bq = panel[q];
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r)
      Regs<W>::AddTo(sums[r], Regs<W>::Madd(bq, wide + r * ld_wide + 2 * q));
  }
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) {
    const I acc_r(sums[r]);
#if defined(__AVX512F__)
    if constexpr (W == 16) {
      avx512_requant::StoreS8(acc_r, p.multiplier[i + r], p.shift[i + r], p.y_zero_point, p.act_min,
                              p.act_max, static_cast<__mmask16>((1u << cols) - 1),
                              y + (i + r) * p.ldy + j);
      continue;
    }
#endif
#if defined(__AVX2__)
    if constexpr (W == 8) {
      // The row's rounding without the clamp a shift ≤ 0 needs (requant_avx2.h), 8 bytes
      // stored straight to Y when the block is whole.
      const __m128i bytes = avx2_requant::NarrowS8x8(avx2_requant::RequantizeS32x8(
          sums[r], avx2_requant::MakeRounding(p.multiplier[i + r], p.shift[i + r], p.y_zero_point,
                                              p.act_min, p.act_max)));
      int8_t* yr = y + (i + r) * p.ldy + j;
      if (cols == W) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(yr), bytes);
      } else {
        alignas(16) int8_t q[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(q), bytes);
        std::memcpy(yr, q, cols);
      }
      continue;
    }
#endif
    alignas(64) int8_t q[W];
    RequantizeLanes<Arch>(acc_r, p.multiplier[i + r], p.shift[i + r], p, q);
    // A whole register's bytes as one store; a count known only at run time is a libc call.
    if (cols == W)
      std::memcpy(y + (i + r) * p.ldy + j, q, W);
    else
      std::memcpy(y + (i + r) * p.ldy + j, q, cols);
  }
}

// PairsTile as a function of its own (SSE, AVX2): inlined into GemmS8's loops, GCC 12 kept its
// sums in memory. AVX-512's sixteen-lane tile runs faster inlined.
template <class Arch, size_t R>
[[gnu::noinline]] void PairsTileOutlined(const GemmS8Params& p, const int16_t* wide, size_t ld_wide,
                                         const typename Regs<IBatch<Arch>::size>::R* panel,
                                         size_t i, size_t j, size_t cols, int8_t* y) {
  PairsTile<Arch, R>(p, wide, ld_wide, panel, i, j, cols, y);
}

#if defined(__AVX2__) && !defined(__AVX512BW__)
// RequantizeS8 of one row's 8 sums (the rounding without the clamp a shift ≤ 0 needs,
// requant_avx2.h), stored to yr: 8 bytes at once when the block is whole.
inline void StoreRowAvx2(__m256i sums, const avx2_requant::Rounding& rd, size_t cols, int8_t* yr) {
  const __m128i bytes = avx2_requant::NarrowS8x8(avx2_requant::RequantizeS32x8(sums, rd));
  if (cols == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(yr), bytes);
    return;
  }
  alignas(16) int8_t q[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(q), bytes);
  std::memcpy(yr, q, cols);
}

// R rows over two blocks of 8 columns (j: a whole block, then cols1 ≤ 8 columns from j + 8):
// per pair one broadcast of A serves two multiply-adds (the 8 × 8 tile: one), and each row's
// rounding constants two registers. R = 6: 12 sums, 2 panel registers, the broadcast and a
// product fill the 16 ymm registers; R = 4 for the rows left.
template <size_t R>
[[gnu::noinline]] void PairsTile2Avx2(const GemmS8Params& p, const int16_t* wide, size_t ld_wide,
                                      const __m256i* panel0, const __m256i* panel1, size_t i,
                                      size_t j, size_t cols1, int8_t* y) {
  __m256i s0[R], s1[R];  // every loop over r unrolled: the sums stay in registers
#pragma GCC unroll 6
  for (size_t r = 0; r < R; ++r)
    s0[r] = s1[r] = _mm256_set1_epi32(p.bias != nullptr ? p.bias[i + r] : 0);
  const size_t pairs = (p.k + 1) / 2;
  for (size_t q = 0; q < pairs; ++q) {
    const __m256i b0 = panel0[q], b1 = panel1[q];
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
      int32_t word;
      std::memcpy(&word, wide + r * ld_wide + 2 * q, 4);
      const __m256i a = _mm256_set1_epi32(word);
      Regs<8>::AddTo(s0[r], _mm256_madd_epi16(b0, a));
      Regs<8>::AddTo(s1[r], _mm256_madd_epi16(b1, a));
    }
  }
#pragma GCC unroll 6
  for (size_t r = 0; r < R; ++r) {
    const avx2_requant::Rounding rd = avx2_requant::MakeRounding(
        p.multiplier[i + r], p.shift[i + r], p.y_zero_point, p.act_min, p.act_max);
    int8_t* yr = y + (i + r) * p.ldy + j;
    StoreRowAvx2(s0[r], rd, 8, yr);
    StoreRowAvx2(s1[r], rd, cols1, yr + 8);
  }
}
#endif

// Rows [i, i + R) of A widened to int16, k rounded up to even with a zero.
inline void WidenRows(const GemmS8Params& p, const int8_t* a, size_t i, size_t rows, int16_t* wide,
                      size_t ld_wide) {
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* src = a + (i + r) * p.lda;
    int16_t* dst = wide + r * ld_wide;
    size_t q = 0;
    for (; q + 8 <= p.k; q += 8)
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(dst + q),
          _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + q))));
    for (; q < p.k; ++q) dst[q] = src[q];
    if (p.k % 2 != 0) dst[p.k] = 0;
  }
}

// False when k is too large for the buffers (the caller takes GemmS8Tile). B's rows from
// `rows` (int8_b_rows_x86.h).
template <class Arch, class Rows>
bool GemmS8Using(const GemmS8Params& p, const int8_t* a, Rows& b_rows, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  using Reg = typename Regs<W>::R;
  const size_t pairs = (p.k + 1) / 2, ld_wide = 2 * pairs;
  const size_t chunk =
      kWideBytes / (ld_wide * sizeof(int16_t)) / kRows * kRows;  // rows widened at once
  if (pairs * sizeof(Reg) > kPanelBytes || chunk == 0) return false;
  alignas(64) Reg panel[kPanelBytes / sizeof(Reg)];
  alignas(64) int16_t wide[kWideBytes / sizeof(int16_t)];
  // Columns in groups of blocks, as many as the panel buffer holds, each block packed once; A
  // widened once when it fits its buffer, else a chunk of rows at a time per group.
  const size_t group = kPanelBytes / (pairs * sizeof(Reg));  // ≥ 1 blocks
  const bool a_fits = chunk >= p.m;
  for (size_t jg = 0; jg < p.n; jg += group * W) {
    const size_t blocks = std::min(group, (p.n - jg + W - 1) / W);
    for (size_t b = 0; b < blocks; ++b)
      PackPairs<W>(p, b_rows, jg + b * W, std::min(W, p.n - jg - b * W), panel + b * pairs);
    for (size_t i0 = 0; i0 < p.m; i0 += chunk) {
      const size_t rows = std::min(chunk, p.m - i0);
      if (!a_fits || jg == 0) WidenRows(p, a, i0, rows, wide, ld_wide);
      for (size_t b = 0; b < blocks; ++b) {
        const size_t j = jg + b * W, cols = std::min(W, p.n - j);
        const Reg* block = panel + b * pairs;
        size_t r = 0;
#if defined(__AVX2__) && !defined(__AVX512BW__)
        if constexpr (W == 8) {
          if (b + 1 < blocks) {  // two blocks a tile, 4 rows a step (PairsTile2Avx2)
            const size_t cols1 = std::min(W, p.n - j - W);
            for (; r + 6 <= rows; r += 6)
              PairsTile2Avx2<6>(p, wide + r * ld_wide, ld_wide, block, block + pairs, i0 + r, j,
                                cols1, y);
            for (; r + 4 <= rows; r += 4)
              PairsTile2Avx2<4>(p, wide + r * ld_wide, ld_wide, block, block + pairs, i0 + r, j,
                                cols1, y);
            for (; r < rows; ++r) {
              PairsTile<Arch, 1>(p, wide + r * ld_wide, ld_wide, block, i0 + r, j, W, y);
              PairsTile<Arch, 1>(p, wide + r * ld_wide, ld_wide, block + pairs, i0 + r, j + W,
                                 cols1, y);
            }
            ++b;
            continue;
          }
        }
#endif
        for (; r + kRows <= rows; r += kRows) {
          if constexpr (W == 16)
            PairsTile<Arch, kRows>(p, wide + r * ld_wide, ld_wide, block, i0 + r, j, cols, y);
          else
            PairsTileOutlined<Arch, kRows>(p, wide + r * ld_wide, ld_wide, block, i0 + r, j, cols,
                                           y);
        }
        for (; r < rows; ++r)
          PairsTile<Arch, 1>(p, wide + r * ld_wide, ld_wide, block, i0 + r, j, cols, y);
      }
    }
  }
  return true;
}

template <class Arch>
bool GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  x86_rows::MatrixRows<IBatch<Arch>::size> rows(p, b);
  return GemmS8Using<Arch>(p, a, rows, y);
}

}  // namespace x86_pairs
