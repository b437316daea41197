// The int8 GEMM on x86 without VNNI where A's weights allow it (SSE4.1, AVX2): pmaddubsw
// multiplies unsigned bytes by signed bytes and adds each adjacent pair into one int16 lane
// (saturating), pmaddwd by ones adds two such lanes into int32: four products per int32 lane
// in two instructions, against two per pmaddwd after widening both operands (int8_pairs_x86.h).
// Included by int8_gemm_simd.h inside the arch namespace; Arch's int32 register has W lanes.
//
// Exact, hence the reference's bits, only when no int16 pair sum saturates: B is made unsigned
// (b + 128 ∈ [0, 255]) and 255·(|A[i,2q]| + |A[i,2q+1]|) ≤ 32767 needs every pair of A at even
// k to have |a0| + |a1| ≤ 128 (GemmS8Params::a_pairs_fit_u8, kernels::S8PairsFitU8, checked
// by the op once at Prepare). Σ_k A·(B + 128) = Σ_k A·B + 128·Σ_k A, so each row starts from
// bias − 128·Σ_k A[i,k]; int32 wraps, and the final sum is the reference's (it fits in int32).
//
// B is repacked once per block of W columns into a panel of ⌈k/4⌉ registers, lane c holding the
// four bytes B[4t..4t+3, c] + 128, from a row source (int8_b_rows_x86.h), blocks grouped as in
// int8_pairs_x86.h; A's rows are copied with k rounded up to 4 by zeros, so a quad of weights is
// one 32-bit broadcast. Tiles of up to 8 rows (8 accumulators).
#pragma once

namespace x86_quads {

constexpr size_t kPanelBytes = 160 * 1024;  // k ≤ 20480 at 8 lanes; larger k takes the pairs
constexpr size_t kNarrowBytes = 64 * 1024;  // A rows padded to a multiple of 4: ≥ kRows of them
constexpr size_t kRows = 8;
constexpr size_t kMaxChunkRows = 512;  // rows narrowed at once at most (their starts' array)

template <size_t W>
struct Quads;
template <>
struct Quads<4> {
  using R = __m128i;
  // Columns of rows r0..r3 (their low bytes) as quads (4 columns), each byte + 128.
  static R Pack(__m128i r0, __m128i r1, __m128i r2, __m128i r3) {
    const __m128i ab = _mm_unpacklo_epi8(r0, r1);
    const __m128i cd = _mm_unpacklo_epi8(r2, r3);
    return _mm_xor_si128(_mm_unpacklo_epi16(ab, cd), _mm_set1_epi8(-128));
  }
  // acc += Σ of lane's four u8·s8 products with the broadcast quad a4.
  static void Dot(R& acc, R bq, const int8_t* a4) {
    const __m128i prod = _mm_maddubs_epi16(bq, _mm_set1_epi32(Word(a4)));
    const __m128i sum = _mm_madd_epi16(prod, _mm_set1_epi16(1));
    // In place (inline asm): with an intrinsic's result GCC 12 copied each sum, and spilled.
#if defined(__AVX__)
    __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(sum));
#else
    __asm__("paddd %1, %0" : "+x"(acc) : "x"(sum));
#endif
  }
  static int32_t Word(const int8_t* p) {
    int32_t w;
    std::memcpy(&w, p, 4);
    return w;
  }
};
#if defined(__AVX2__)
template <>
struct Quads<8> {
  using R = __m256i;
  static R Pack(__m128i r0, __m128i r1, __m128i r2, __m128i r3) {
    const __m128i ab = _mm_unpacklo_epi8(r0, r1);
    const __m128i cd = _mm_unpacklo_epi8(r2, r3);
    const __m256i q = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(ab, cd)),
                                              _mm_unpackhi_epi16(ab, cd), 1);
    return _mm256_xor_si256(q, _mm256_set1_epi8(-128));
  }
  static void Dot(R& acc, R bq, const int8_t* a4) {
    int32_t w;
    std::memcpy(&w, a4, 4);
    const __m256i prod = _mm256_maddubs_epi16(bq, _mm256_set1_epi32(w));
    const __m256i sum = _mm256_madd_epi16(prod, _mm256_set1_epi16(1));
    __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(sum));  // in place: see Quads<4>::Dot
  }
};
#endif

// panel[t] = quads of B[4t..4t+3, j + c] + 128 for c < cols, B's rows from `rows`
// (int8_b_rows_x86.h: rows past k are zeros and columns past cols any value; their weights are
// zero or their outputs are not stored).
template <size_t W, class Rows>
void PackQuads(const GemmS8Params& p, Rows& rows, size_t j, size_t cols,
               typename Quads<W>::R* panel) {
  x86_rows::RowCursor at = rows.Begin(j, cols);
  const size_t quads = (p.k + 3) / 4;
  for (size_t t = 0; t < quads; ++t) {
    const __m128i r0 = rows.Next(at);
    const __m128i r1 = rows.Next(at);
    const __m128i r2 = rows.Next(at);
    const __m128i r3 = rows.Next(at);
    panel[t] = Quads<W>::Pack(r0, r1, r2, r3);
  }
}

// R rows from i over the panel: acc = start[r] + Σ_t dot(panel[t], A quad t).
template <class Arch, size_t R>
[[gnu::noinline]] void QuadsTile(const GemmS8Params& p, const int8_t* narrow, size_t ld_narrow,
                                 const int32_t* start,
                                 const typename Quads<IBatch<Arch>::size>::R* panel, size_t i,
                                 size_t j, size_t cols, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  using I = IBatch<Arch>;
  using Reg = typename Quads<W>::R;
  Reg sums[R];
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) sums[r] = I(start[r]);
  const size_t quads = ld_narrow / 4;
  for (size_t t = 0; t < quads; ++t) {
    const Reg bq = panel[t];
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r) Quads<W>::Dot(sums[r], bq, narrow + r * ld_narrow + 4 * t);
  }
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) {
    alignas(64) int8_t q[W];
    RequantizeLanes<Arch>(I(sums[r]), p.multiplier[i + r], p.shift[i + r], p, q);
    // A whole register's bytes as one store; a count known only at run time is a libc call.
    if (cols == W)
      std::memcpy(y + (i + r) * p.ldy + j, q, W);
    else
      std::memcpy(y + (i + r) * p.ldy + j, q, cols);
  }
}

// Rows [i, i + rows) of A with k padded to ld_narrow by zeros, and each row's start
// bias − 128·Σ_k A (in uint32: the wrap is intended, see the header note).
inline void NarrowRows(const GemmS8Params& p, const int8_t* a, size_t i, size_t rows,
                       int8_t* narrow, size_t ld_narrow, int32_t* start) {
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* src = a + (i + r) * p.lda;
    int8_t* dst = narrow + r * ld_narrow;
    std::memcpy(dst, src, p.k);
    std::memset(dst + p.k, 0, ld_narrow - p.k);
    __m128i sums = _mm_setzero_si128();  // Σ_k A in int32 lanes, 8 values a step
    size_t q = 0;
    for (; q + 8 <= p.k; q += 8)
      sums = _mm_add_epi32(
          sums, _mm_madd_epi16(
                    _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + q))),
                    _mm_set1_epi16(1)));
    sums = _mm_add_epi32(sums, _mm_shuffle_epi32(sums, 0x4E));
    sums = _mm_add_epi32(sums, _mm_shuffle_epi32(sums, 0xB1));
    int32_t sum = _mm_cvtsi128_si32(sums);
    for (; q < p.k; ++q) sum += src[q];
    const uint32_t bias = p.bias != nullptr ? static_cast<uint32_t>(p.bias[i + r]) : 0u;
    start[r] = static_cast<int32_t>(bias - 128u * static_cast<uint32_t>(sum));
  }
}

// False when A's pairs may saturate, the level has no such tile (AVX-512 keeps its pairs), or k
// is too large for the buffers (the caller takes the next kernel).
// B's rows from `rows` (int8_b_rows_x86.h).
template <class Arch, class Rows>
bool GemmS8Using(const GemmS8Params& p, const int8_t* a, Rows& b_rows, int8_t* y) {
  constexpr size_t W = IBatch<Arch>::size;
  if constexpr (W != 4 && W != 8) {
    return false;
  } else {
    using Reg = typename Quads<W>::R;
    if (!p.a_pairs_fit_u8) return false;
    const size_t quads = (p.k + 3) / 4, ld_narrow = 4 * quads;
    const size_t chunk = std::min(kMaxChunkRows, kNarrowBytes / ld_narrow) / kRows * kRows;
    if (quads * sizeof(Reg) > kPanelBytes || chunk == 0) return false;
    alignas(64) Reg panel[kPanelBytes / sizeof(Reg)];
    alignas(64) int8_t narrow[kNarrowBytes];
    int32_t start[kMaxChunkRows];
    // Columns in groups of blocks, each block packed once; A narrowed once when it fits, else a
    // chunk of rows at a time per group (see x86_pairs::GemmS8Using).
    const size_t group = kPanelBytes / (quads * sizeof(Reg));  // ≥ 1 blocks
    const bool a_fits = chunk >= p.m;
    for (size_t jg = 0; jg < p.n; jg += group * W) {
      const size_t blocks = std::min(group, (p.n - jg + W - 1) / W);
      for (size_t b = 0; b < blocks; ++b)
        PackQuads<W>(p, b_rows, jg + b * W, std::min(W, p.n - jg - b * W), panel + b * quads);
      for (size_t i0 = 0; i0 < p.m; i0 += chunk) {
        const size_t rows = std::min(chunk, p.m - i0);
        if (!a_fits || jg == 0) NarrowRows(p, a, i0, rows, narrow, ld_narrow, start);
        for (size_t b = 0; b < blocks; ++b) {
          const size_t j = jg + b * W, cols = std::min(W, p.n - j);
          const Reg* block = panel + b * quads;
          size_t r = 0;
          for (; r + kRows <= rows; r += kRows)
            QuadsTile<Arch, kRows>(p, narrow + r * ld_narrow, ld_narrow, start + r, block, i0 + r,
                                   j, cols, y);
          for (; r < rows; ++r)
            QuadsTile<Arch, 1>(p, narrow + r * ld_narrow, ld_narrow, start + r, block, i0 + r, j,
                               cols, y);
        }
      }
    }
    return true;
  }
}

template <class Arch>
bool GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  x86_rows::MatrixRows<IBatch<Arch>::size> rows(p, b);
  return GemmS8Using<Arch>(p, a, rows, y);
}

}  // namespace x86_quads
