// Winograd transforms over W tiles of a tile row at once, written once over the tile size
// (kernels/conv/conv_winograd.h; the matrices and the scalar oracle are in ref/winograd_ref.cc):
//   V = Bᵀ d B, d the α×α input patch of a tile (α = tile + 2);
//   Y = Aᵀ m A (tile × tile) + bias, then the activation.
// Patch column j of tile tx is column tx + j / tile of the column plane of phase j mod tile, so
// each of a patch's α² inputs, for W tiles, is one unaligned load; the tile's output columns
// interleave back into tile·W consecutive floats of an output row (one round of Interleave per
// halving).
#pragma once
#include "kernels/simd/simd_common.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// (a0 b0 a1 b1 …) across both registers: *lo gets the first W values, *hi the next W.
// xsimd 8.1's zip_lo/zip_hi interleave within 128-bit lanes only, so AVX and AVX-512 permute.
template <class Arch>
inline void Interleave(FBatch<Arch> a, FBatch<Arch> b, FBatch<Arch>* lo, FBatch<Arch>* hi) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second =
        _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    *lo = _mm512_permutex2var_ps(a, first, b);
    *hi = _mm512_permutex2var_ps(a, second, b);
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (W == 8) {
    const __m256 l = _mm256_unpacklo_ps(a, b), h = _mm256_unpackhi_ps(a, b);
    *lo = _mm256_permute2f128_ps(l, h, 0x20);
    *hi = _mm256_permute2f128_ps(l, h, 0x31);
    return;
  }
#endif
  if constexpr (W == 4) {
    *lo = xsimd::zip_lo(a, b);
    *hi = xsimd::zip_hi(a, b);
  } else {
    alignas(64) float la[W], lb[W], out[2 * W];
    a.store_aligned(la);
    b.store_aligned(lb);
    for (size_t i = 0; i < W; ++i) out[2 * i] = la[i], out[2 * i + 1] = lb[i];
    *lo = FBatch<Arch>::load_aligned(out);
    *hi = FBatch<Arch>::load_aligned(out + W);
  }
}

// Stores R registers at dst, or (n < R·W floats: the end of an output row) only their first n
// floats, through a stack copy.
template <class Arch, size_t R>
inline void StoreRegistersOrFirst(const FBatch<Arch> (&r)[R], size_t n, float* dst) {
  constexpr size_t W = FBatch<Arch>::size;
  if (n == R * W) {
    for (size_t i = 0; i < R; ++i) r[i].store_unaligned(dst + i * W);
    return;
  }
  alignas(64) float lanes[R * W];
  for (size_t i = 0; i < R; ++i) r[i].store_aligned(lanes + i * W);
  std::copy(lanes, lanes + n, dst);
}

// Tile rows narrower than a register (16² and 8² planes on AVX-512, 8² on AVX2): one register
// holds W / tiles_w tile rows, tiles_w ≥ 4 lanes each. V and M keep a band's tiles row after
// row in one run of columns, so only the plane loads and the output stores go piece by piece.
template <class Arch>
constexpr bool kWinogradPieces = FBatch<Arch>::size >= 8;
template <class Arch>
inline size_t WinogradPieceLanes(size_t tiles_w) {
  constexpr size_t W = FBatch<Arch>::size;
  if (!kWinogradPieces<Arch> || tiles_w < 4 || tiles_w >= W || W % tiles_w != 0) return 0;
  return tiles_w;
}

// Lanes [k·q, (k + 1)·q) from p + off[k], k < W / q (q = 4 or 8 lanes).
template <class Arch>
inline FBatch<Arch> LoadPieces(const float* p, const size_t* off, size_t q) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    if (q == 8) {
      const __m512d lo = _mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(p + off[0])));
      return _mm512_castpd_ps(
          _mm512_insertf64x4(lo, _mm256_castps_pd(_mm256_loadu_ps(p + off[1])), 1));
    }
    __m512 r = _mm512_castps128_ps512(_mm_loadu_ps(p + off[0]));
    r = _mm512_insertf32x4(r, _mm_loadu_ps(p + off[1]), 1);
    r = _mm512_insertf32x4(r, _mm_loadu_ps(p + off[2]), 2);
    return _mm512_insertf32x4(r, _mm_loadu_ps(p + off[3]), 3);
  }
#endif
#if defined(__AVX__)
  if constexpr (W == 8) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + off[0])),
                                _mm_loadu_ps(p + off[1]), 1);
  }
#endif
  alignas(64) float lanes[W];
  for (size_t k = 0; k < W / q; ++k) std::copy(p + off[k], p + off[k] + q, lanes + k * q);
  return FBatch<Arch>::load_aligned(lanes);
}

// Half `half` (0: low, 1: high lanes) of r at dst.
template <class Arch>
inline void StoreHalf(FBatch<Arch> r, size_t half, float* dst) {
  constexpr size_t W = FBatch<Arch>::size;
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    _mm256_storeu_ps(dst, half == 0
                              ? _mm512_castps512_ps256(r)
                              : _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (W == 8) {
    _mm_storeu_ps(dst, half == 0 ? _mm256_castps256_ps128(r) : _mm256_extractf128_ps(r, 1));
    return;
  }
#endif
  alignas(64) float lanes[W];
  r.store_aligned(lanes);
  std::copy(lanes + half * W / 2, lanes + (half + 1) * W / 2, dst);
}

// Piece p of the kTile registers `tiles` (kTile·q floats, q lanes a piece): its first `cols`
// floats at dst.
template <class Arch, size_t kTile>
inline void StorePiece(const FBatch<Arch> (&tiles)[kTile], size_t p, size_t q, size_t cols,
                       float* dst) {
  constexpr size_t W = FBatch<Arch>::size;
  const size_t chunk = kTile * q, first = p * chunk;
  if (cols == chunk && chunk % W == 0) {
    for (size_t i = 0; i < chunk / W; ++i) tiles[first / W + i].store_unaligned(dst + i * W);
    return;
  }
  if (cols == chunk && 2 * chunk == W) {
    StoreHalf<Arch>(tiles[first / W], (first % W) / chunk, dst);
    return;
  }
  alignas(64) float lanes[kTile * W];
  for (size_t i = 0; i < kTile; ++i) tiles[i].store_aligned(lanes + i * W);
  std::copy(lanes + first, lanes + first + cols, dst);
}

// t = Bᵀ·d and y = Aᵀ·m on the α registers of a patch row or column (W patches).
template <class Arch, size_t kTile>
struct WinogradRowsSimd;

template <class Arch>
struct WinogradRowsSimd<Arch, 2> {
  using B = FBatch<Arch>;
  static void Input(const B d[4], B t[4]) {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
  static void Output(const B m[4], B y[2]) {
    y[0] = m[0] + m[1] + m[2];
    y[1] = m[1] - m[2] - m[3];
  }
};

template <class Arch>
struct WinogradRowsSimd<Arch, 4> {
  using B = FBatch<Arch>;
  static void Input(const B d[6], B t[6]) {
    const B four(4.0f), five(5.0f), two(2.0f);
    const B a = xsimd::fnma(four, d[2], d[4]), b = xsimd::fnma(four, d[1], d[3]);
    const B c = d[4] - d[2], e = two * (d[3] - d[1]);
    t[0] = xsimd::fma(four, d[0], xsimd::fnma(five, d[2], d[4]));
    t[1] = a + b;
    t[2] = a - b;
    t[3] = c + e;
    t[4] = c - e;
    t[5] = xsimd::fma(four, d[1], xsimd::fnma(five, d[3], d[5]));
  }
  static void Output(const B m[6], B y[4]) {
    const B p = m[1] + m[2], q = m[1] - m[2], r = m[3] + m[4], s = m[3] - m[4];
    y[0] = m[0] + p + r;
    y[1] = xsimd::fma(B(2.0f), s, q);
    y[2] = xsimd::fma(B(4.0f), r, p);
    y[3] = xsimd::fma(B(8.0f), s, q) + m[5];
  }
};

// y[c] holds output column c of W tiles; out gets them tile by tile (y0 y1 … of tile 0, then
// tile 1, …) across kTile registers.
template <class Arch, size_t kTile>
inline void InterleaveTileColumns(const FBatch<Arch> (&y)[kTile], FBatch<Arch> (&out)[kTile]) {
  if constexpr (kTile == 2) {
    Interleave<Arch>(y[0], y[1], &out[0], &out[1]);
  } else {
    FBatch<Arch> even_lo, even_hi, odd_lo, odd_hi;
    Interleave<Arch>(y[0], y[2], &even_lo, &even_hi);  // y0 y2 pairs
    Interleave<Arch>(y[1], y[3], &odd_lo, &odd_hi);    // y1 y3 pairs
    Interleave<Arch>(even_lo, odd_lo, &out[0], &out[1]);
    Interleave<Arch>(even_hi, odd_hi, &out[2], &out[3]);
  }
}

// The input transform's second pass, V = Bᵀ·t down each column of the rows' transform t,
// stored with the ξ-planes xi_stride floats apart (both input transforms).
template <class Arch, size_t kTile>
inline void WinogradInputColumns(const FBatch<Arch> (*t)[kTile + 2], float* out, size_t xi_stride) {
  using B = FBatch<Arch>;
  using Rows = WinogradRowsSimd<Arch, kTile>;
  constexpr size_t kAlpha = kTile + 2;
#pragma GCC unroll 6
  for (size_t j = 0; j < kAlpha; ++j) {
    B col[kAlpha], vcol[kAlpha];
#pragma GCC unroll 6
    for (size_t i = 0; i < kAlpha; ++i) col[i] = t[i][j];
    Rows::Input(col, vcol);
#pragma GCC unroll 6
    for (size_t i = 0; i < kAlpha; ++i) vcol[i].store_unaligned(out + (i * kAlpha + j) * xi_stride);
  }
}

// WinogradInputSimd over the band's tiles as one run of columns, W / q tile rows a register (the
// band's last register repeats its last tile row into the lanes past the band).
template <class Arch, size_t kTile>
void WinogradInputPieces(const WinogradGeometry& g, const float* planes, float* v, size_t q) {
  using B = FBatch<Arch>;
  using Rows = WinogradRowsSimd<Arch, kTile>;
  constexpr size_t W = B::size, kAlpha = kTile + 2;
  const size_t plane_floats = g.plane_rows * g.plane_w, pieces = W / q;
  const size_t n = g.rows * g.tiles_w, xi_stride = g.v_stride;
  for (size_t f = 0; f < n; f += W) {
    size_t off[4] = {};  // each piece's first plane row, ahead of the patch row i
    for (size_t k = 0; k < pieces; ++k)
      off[k] = kTile * std::min(g.row0 + f / q + k, g.row0 + g.rows - 1) * g.plane_w;
    for (size_t c = 0; c < g.in_c; ++c) {
      const float* phase[kTile];
#pragma GCC unroll 6
      for (size_t k = 0; k < kTile; ++k)
        phase[k] = planes + c * g.channel_floats + k * plane_floats;
      B t[kAlpha][kAlpha];
#pragma GCC unroll 6
      for (size_t i = 0; i < kAlpha; ++i) {
        B d[kAlpha];
#pragma GCC unroll 6
        for (size_t j = 0; j < kAlpha; ++j)
          d[j] = LoadPieces<Arch>(phase[j % kTile] + i * g.plane_w + j / kTile, off, q);
        Rows::Input(d, t[i]);
      }
      WinogradInputColumns<Arch, kTile>(t, v + c * g.ld + f, xi_stride);
    }
  }
}

// WinogradOutputSimd for the same pieces: piece k of a register is tile row ty0 + k, whose
// kTile·q output columns interleave into its own output rows.
template <class Arch, size_t kTile>
void WinogradOutputPieces(const WinogradGeometry& g, const float* m, const float* bias,
                          Activation act, float* y, size_t q) {
  using B = FBatch<Arch>;
  using Rows = WinogradRowsSimd<Arch, kTile>;
  constexpr size_t W = B::size, kAlpha = kTile + 2;
  const size_t pieces = W / q, n = g.rows * g.tiles_w, xi_stride = g.m_stride;
  const size_t cols = std::min(kTile * q, g.out_w);
  for (size_t o = 0; o < g.out_c; ++o) {
    const B b(bias != nullptr ? bias[o] : 0.0f);
    float* yo = y + o * g.out_h * g.out_w;
    for (size_t f = 0; f < n; f += W) {
      const float* mrow = m + o * g.ld + f;
      B s[kTile][kAlpha];
#pragma GCC unroll 6
      for (size_t j = 0; j < kAlpha; ++j) {
        B col[kAlpha], sc[kTile];
#pragma GCC unroll 6
        for (size_t i = 0; i < kAlpha; ++i)
          col[i] = B::load_unaligned(mrow + (i * kAlpha + j) * xi_stride);
        Rows::Output(col, sc);
#pragma GCC unroll 6
        for (size_t a = 0; a < kTile; ++a) s[a][j] = sc[a];
      }
      const size_t ty0 = g.row0 + f / q;
      const size_t rows = std::min(pieces, g.row0 + g.rows - ty0);
#pragma GCC unroll 6
      for (size_t a = 0; a < kTile; ++a) {
        B yv[kTile], tiles[kTile];
        Rows::Output(s[a], yv);
#pragma GCC unroll 6
        for (size_t k = 0; k < kTile; ++k) yv[k] = ActBatch<Arch>(yv[k] + b, act);
        InterleaveTileColumns<Arch, kTile>(yv, tiles);
        for (size_t k = 0; k < rows; ++k) {
          const size_t row = kTile * (ty0 + k) + a;
          if (row < g.out_h) StorePiece<Arch, kTile>(tiles, k, q, cols, yo + row * g.out_w);
        }
      }
    }
  }
}

template <class Arch, size_t kTile>
void WinogradInputSimd(const WinogradGeometry& g, const float* planes, float* v) {
  using B = FBatch<Arch>;
  using Rows = WinogradRowsSimd<Arch, kTile>;
  constexpr size_t W = B::size, kAlpha = kTile + 2;
  const size_t plane_floats = g.plane_rows * g.plane_w;
  const size_t xi_stride = g.v_stride;
  if (const size_t q = WinogradPieceLanes<Arch>(g.tiles_w); q != 0) {
    WinogradInputPieces<Arch, kTile>(g, planes, v, q);
    return;
  }
  for (size_t c = 0; c < g.in_c; ++c) {
    const float* phase[kTile];  // the column planes of channel c, phase 0 … tile − 1
#pragma GCC unroll 6
    for (size_t k = 0; k < kTile; ++k) phase[k] = planes + c * g.channel_floats + k * plane_floats;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      float* vrow = v + c * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B t[kAlpha][kAlpha];
#pragma GCC unroll 6
        for (size_t i = 0; i < kAlpha; ++i) {  // t = d·B along the columns of each patch row
          const size_t r = (kTile * ty + i) * g.plane_w + tx;
          B d[kAlpha];
#pragma GCC unroll 6
          for (size_t j = 0; j < kAlpha; ++j)
            d[j] = B::load_unaligned(phase[j % kTile] + r + j / kTile);
          Rows::Input(d, t[i]);
        }
        WinogradInputColumns<Arch, kTile>(t, vrow + tx, xi_stride);
      }
    }
  }
}

template <class Arch, size_t kTile>
void WinogradOutputSimd(const WinogradGeometry& g, const float* m, const float* bias,
                        Activation act, float* y) {
  using B = FBatch<Arch>;
  using Rows = WinogradRowsSimd<Arch, kTile>;
  constexpr size_t W = B::size, kAlpha = kTile + 2;
  const size_t xi_stride = g.m_stride;
  if (const size_t q = WinogradPieceLanes<Arch>(g.tiles_w); q != 0) {
    WinogradOutputPieces<Arch, kTile>(g, m, bias, act, y, q);
    return;
  }
  for (size_t o = 0; o < g.out_c; ++o) {
    const B b(bias != nullptr ? bias[o] : 0.0f);
    float* yo = y + o * g.out_h * g.out_w;
    for (size_t ty = g.row0; ty < g.row0 + g.rows; ++ty) {
      const float* mrow = m + o * g.ld + (ty - g.row0) * g.tiles_w;
      for (size_t tx = 0; tx < g.tiles_w; tx += W) {
        B s[kTile][kAlpha];
#pragma GCC unroll 6
        for (size_t j = 0; j < kAlpha; ++j) {  // s = Aᵀ·m down each column
          B col[kAlpha], sc[kTile];
#pragma GCC unroll 6
          for (size_t i = 0; i < kAlpha; ++i)
            col[i] = B::load_unaligned(mrow + (i * kAlpha + j) * xi_stride + tx);
          Rows::Output(col, sc);
#pragma GCC unroll 6
          for (size_t a = 0; a < kTile; ++a) s[a][j] = sc[a];
        }
        // Y = s·A along each row, back into output rows tile·ty … tile·ty + tile − 1 (whole
        // registers, or a stack copy at the row's end).
        const size_t cols = std::min(kTile * W, g.out_w - kTile * tx);
#pragma GCC unroll 6
        for (size_t a = 0; a < kTile && kTile * ty + a < g.out_h; ++a) {
          B yv[kTile], tiles[kTile];
          Rows::Output(s[a], yv);
#pragma GCC unroll 6
          for (size_t k = 0; k < kTile; ++k) yv[k] = ActBatch<Arch>(yv[k] + b, act);
          InterleaveTileColumns<Arch, kTile>(yv, tiles);
          StoreRegistersOrFirst<Arch>(tiles, cols, yo + (kTile * ty + a) * g.out_w + kTile * tx);
        }
      }
    }
  }
}

template <class Arch>
void Winograd23Input(const WinogradGeometry& g, const float* planes, float* v) {
  WinogradInputSimd<Arch, 2>(g, planes, v);
}
template <class Arch>
void Winograd43Input(const WinogradGeometry& g, const float* planes, float* v) {
  WinogradInputSimd<Arch, 4>(g, planes, v);
}
template <class Arch>
void Winograd23Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  WinogradOutputSimd<Arch, 2>(g, m, bias, act, y);
}
template <class Arch>
void Winograd43Output(const WinogradGeometry& g, const float* m, const float* bias, Activation act,
                      float* y) {
  WinogradOutputSimd<Arch, 4>(g, m, bias, act, y);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
