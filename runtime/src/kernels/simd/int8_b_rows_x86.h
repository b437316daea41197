// Where the x86 int8 panels (int8_pairs_x86.h, int8_quads_x86.h) read B's rows from: for one
// block of W columns, Begin(j, cols) gives a cursor and Next(cursor) once per row of k that
// row's W columns in the low bytes of a register (lanes past cols hold any value: their outputs
// are not stored; rows past k are zeros, which meet zero weights). Returned in registers, not
// through a staging buffer: bytes stored one at a time and read back as a word stall the load.
// Included by int8_gemm_simd.h inside the arch namespace.
//   MatrixRows: B itself (an im2col, or the input of a pointwise conv or GemmInt8).
//   ConvRows:   the im2col of a convolution without building it (kernels/conv/conv_s8_direct.h):
//               row (c, r, t) at output pixel p is x[c, oh·sh − pt + r·dh, ow·sw + t·dw − pl] with
//               (oh, ow) = p's row and column, the zero point outside the image.
#pragma once

namespace x86_rows {

// The W bytes of a row in the low lanes of a register (W = 4 or 8; 16 bytes read with AVX-512's
// sixteen lanes).
template <size_t W>
inline __m128i LoadRow(const int8_t* p) {
  if constexpr (W == 4) {
    int32_t word;
    std::memcpy(&word, p, 4);
    return _mm_cvtsi32_si128(word);
  } else if constexpr (W == 8) {
    return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  } else {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
}

// Where a block's walk over the rows stands (a local of the packing loop: it stays in registers).
struct RowCursor {
  size_t kk = 0, tap = 0;
  const int8_t* at = nullptr;
};

template <size_t W>
class MatrixRows {
 public:
  MatrixRows(const GemmS8Params& p, const int8_t* b) : b_(b), ldb_(p.ldb), k_(p.k) {}
  RowCursor Begin(size_t j, size_t cols) {
    cols_ = cols;
    RowCursor c;
    c.at = b_ + j;
    return c;
  }
  __m128i Next(RowCursor& c) const {
    const int8_t* row = c.at;
    c.at += ldb_;
    if (c.kk >= k_) return _mm_setzero_si128();
    ++c.kk;
    if (cols_ == W) return LoadRow<W>(row);
    alignas(16) int8_t copy[16] = {};
    std::memcpy(copy, row, cols_);
    return _mm_load_si128(reinterpret_cast<const __m128i*>(copy));
  }

 private:
  const int8_t* b_;
  size_t ldb_, k_;
  size_t cols_ = 0;
};

// The window's taps in order (r, t), per channel. For a block of output pixels inside one output
// row every tap is one load of input bytes (W at stride 1, 16 at stride 2), a byte shuffle
// and an OR: the run itself (the
// identity shuffle), the run moved with the zero point in the columns outside the image (the
// row's edges), or all zero point (its input row outside the image) — no branch per row. A
// block across output rows, or an image narrower than a register, gathers byte by byte from
// offsets in the channel's plane.
// kSpan: the bytes one row's load reads, W at stride 1 and 16 at stride 2 (2W − 1 ≤ 16).
template <size_t W, size_t kSpan>
class ConvRows {
  static_assert(W == 4 || W == 8, "SSE4.1 and AVX2 registers of int32 lanes");
  static_assert(kSpan == W || kSpan == 16, "a register's bytes or a whole xmm");

 public:
  // Output pixels from j0 on (the caller's column range), k = channels·taps rows.
  ConvRows(const Conv2dShape& s, const int8_t* x_group, int8_t pad, size_t j0, size_t k)
      : s_(s),
        x_(x_group),
        j0_(j0),
        k_(k),
        taps_(s.kh * s.kw),
        plane_(s.in_h * s.in_w),
        pad_(pad) {}

  RowCursor Begin(size_t j, size_t cols) {
    const size_t p0 = j0_ + j;
    const size_t oh0 = p0 / s_.out_w, ow0 = p0 % s_.out_w;
    const bool one_row = cols == W && ow0 + W <= s_.out_w;
    const long in_h = static_cast<long>(s_.in_h), in_w = static_cast<long>(s_.in_w);
    for (size_t r = 0; r < s_.kh; ++r)
      for (size_t t = 0; t < s_.kw; ++t) {
        const size_t tap = r * s_.kw + t;
        const long dy = static_cast<long>(r * s_.dilation_h) - static_cast<long>(s_.pad_top);
        const long dx = static_cast<long>(t * s_.dilation_w) - static_cast<long>(s_.pad_left);
        if (one_row) {
          // The block's W input columns iw + l·sw of input row ih: `span` bytes loaded from
          // `base` (inside the row) and moved into place by a byte shuffle, the zero point
          // where they fall outside.
          const long ih = static_cast<long>(oh0 * s_.stride_h) + dy;
          const long iw = static_cast<long>(ow0 * s_.stride_w) + dx;
          const bool row_inside = ih >= 0 && ih < in_h;
          if (row_inside ? in_w >= span_ : static_cast<long>(plane_) >= span_) {
            const long base = row_inside ? std::min(std::max(iw, 0L), in_w - span_) : 0;
            // Lanes [lo, hi) read inside the row: control = l·sw + iw − base there, else 0x80
            // (pshufb's zero); fill = the zero point elsewhere. In registers: a byte table
            // written one lane at a time and loaded as a vector stalls the load.
            const long sw = static_cast<long>(s_.stride_w), w = static_cast<long>(W);
            const long lo = row_inside ? std::min(iw >= 0 ? 0 : (-iw + sw - 1) / sw, w) : 0;
            const long hi =
                row_inside ? std::max(lo, std::min(iw < in_w ? (in_w - 1 - iw) / sw + 1 : 0, w))
                           : 0;
            const __m128i lane =
                _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            const __m128i inside =
                _mm_and_si128(_mm_cmpgt_epi8(lane, _mm_set1_epi8(static_cast<char>(lo - 1))),
                              _mm_cmpgt_epi8(_mm_set1_epi8(static_cast<char>(hi)), lane));
            const __m128i stepped = sw == 1 ? lane : _mm_add_epi8(lane, lane);
            const __m128i moved =
                _mm_add_epi8(stepped, _mm_set1_epi8(static_cast<char>(iw - base)));
            kind_[tap] = kShuffle;
            offset_[tap] = row_inside ? ih * in_w + base : 0;
            control_[tap] = _mm_or_si128(_mm_and_si128(inside, moved),
                                         _mm_andnot_si128(inside, _mm_set1_epi8(-128)));
            fill_[tap] = _mm_andnot_si128(inside, _mm_set1_epi8(pad_));
            continue;
          }
        }
        kind_[tap] = kGather;
        size_t oh = oh0, ow = ow0;
        for (size_t l = 0; l < W; ++l) {
          long at = -1;
          if (l < cols) {
            const long ih = static_cast<long>(oh * s_.stride_h) + dy;
            const long iw = static_cast<long>(ow * s_.stride_w) + dx;
            if (ih >= 0 && ih < in_h && iw >= 0 && iw < in_w) at = ih * in_w + iw;
            if (++ow == s_.out_w) {
              ow = 0;
              ++oh;
            }
          }
          gather_[tap][l] = static_cast<int32_t>(at);
        }
      }
    RowCursor c;
    c.at = x_;
    return c;
  }

  __m128i Next(RowCursor& c) const {
    if (c.kk >= k_) return _mm_setzero_si128();
    ++c.kk;
    const size_t tap = c.tap;
    const int8_t* xc = c.at;
    if (++c.tap == taps_) {
      c.tap = 0;
      c.at += plane_;
    }
    if (kind_[tap] == kShuffle)
      return _mm_or_si128(_mm_shuffle_epi8(LoadRow<kSpan>(xc + offset_[tap]), control_[tap]),
                          fill_[tap]);
    uint64_t row = 0;  // built in a register: bytes stored singly and reloaded stall the load
    for (size_t l = 0; l < W; ++l) {
      const int32_t at = gather_[tap][l];
      row |= uint64_t{static_cast<uint8_t>(at < 0 ? pad_ : xc[at])} << (8 * l);
    }
    return _mm_cvtsi64_si128(static_cast<long long>(row));
  }

 private:
  enum Kind : uint8_t { kShuffle, kGather };
  const Conv2dShape& s_;
  const int8_t* x_;
  size_t j0_, k_, taps_, plane_;
  static constexpr long span_ = static_cast<long>(kSpan);
  int8_t pad_;
  Kind kind_[kConvS8DirectMaxTaps];
  long offset_[kConvS8DirectMaxTaps];
  __m128i control_[kConvS8DirectMaxTaps], fill_[kConvS8DirectMaxTaps];
  int32_t gather_[kConvS8DirectMaxTaps][W];
};

}  // namespace x86_rows
