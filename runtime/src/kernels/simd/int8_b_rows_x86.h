// Where the x86 int8 panels (int8_pairs_x86.h, int8_quads_x86.h) read B's rows from: for one
// block of W columns, Begin(j, cols) gives a cursor and Next(cursor) once per row of k that
// row's W columns in the low bytes of a register (lanes past cols hold any value: their outputs
// are not stored; rows past k are zeros, which meet zero weights). Returned in registers, not
// through a staging buffer: bytes stored one at a time and read back as a word stall the load.
// Included by int8_gemm_simd.h inside the arch namespace.
//   MatrixRows: B itself (an im2col, or the input of a pointwise conv or GemmInt8).
//   ConvRows:   the im2col of a convolution without building it (kernels/conv/conv_s8_direct.h):
//               row (c, r, t) at output pixel p is x[c, oh·sh − pt + r·dh, ow + t·dw − pl] with
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

// The window's taps in order (r, t), per channel; for each block of output pixels each tap is
// a row of the zero point (its input row outside the image), a run of W input bytes (the block
// inside one output row, the run inside the image), the same run shifted by a byte shuffle with
// the zero point in the columns outside the image (the block at a row's edge), or gathered byte
// by byte from offsets in the channel's plane (a block across output rows, or a narrow image).
template <size_t W>
class ConvRows {
 public:
  // Output pixels from j0 on (the caller's column range), k = channels·taps rows.
  ConvRows(const Conv2dShape& s, const int8_t* x_group, int8_t pad, size_t j0, size_t k)
      : s_(s), x_(x_group), j0_(j0), k_(k), taps_(s.kh * s.kw), plane_(s.in_h * s.in_w),
        pad_(pad), pad_row_(_mm_set1_epi8(pad)) {}

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
          const long ih = static_cast<long>(oh0 * s_.stride_h) + dy;
          const long iw = static_cast<long>(ow0) + dx;
          if (ih < 0 || ih >= in_h || iw + static_cast<long>(W) <= 0 || iw >= in_w) {
            kind_[tap] = kPad;
            continue;
          }
          if (iw >= 0 && iw + static_cast<long>(W) <= in_w) {
            kind_[tap] = kRun;
            offset_[tap] = ih * in_w + iw;
            continue;
          }
          if (in_w >= static_cast<long>(W)) {  // W bytes from `base`, lanes moved to iw + l
            const long base = std::min(std::max(iw, 0L), in_w - static_cast<long>(W));
            alignas(16) int8_t control[16], fill[16];
            for (size_t l = 0; l < 16; ++l) {
              const long col = iw + static_cast<long>(l);
              const bool inside = l < W && col >= 0 && col < in_w;
              control[l] = static_cast<int8_t>(inside ? col - base : 0x80);
              fill[l] = inside ? 0 : pad_;
            }
            kind_[tap] = kShuffle;
            offset_[tap] = ih * in_w + base;
            control_[tap] = _mm_load_si128(reinterpret_cast<const __m128i*>(control));
            fill_[tap] = _mm_load_si128(reinterpret_cast<const __m128i*>(fill));
            continue;
          }
        }
        kind_[tap] = kGather;
        size_t oh = oh0, ow = ow0;
        for (size_t l = 0; l < W; ++l) {
          long at = -1;
          if (l < cols) {
            const long ih = static_cast<long>(oh * s_.stride_h) + dy;
            const long iw = static_cast<long>(ow) + dx;
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
    switch (kind_[tap]) {
      case kRun:
        return LoadRow<W>(xc + offset_[tap]);
      case kPad:
        return pad_row_;
      case kShuffle:
        return _mm_or_si128(_mm_shuffle_epi8(LoadRow<W>(xc + offset_[tap]), control_[tap]),
                            fill_[tap]);
      default: {
        alignas(16) int8_t row[16] = {};
        for (size_t l = 0; l < W; ++l) {
          const int32_t at = gather_[tap][l];
          row[l] = at < 0 ? pad_ : xc[at];
        }
        return _mm_load_si128(reinterpret_cast<const __m128i*>(row));
      }
    }
  }

 private:
  enum Kind : uint8_t { kPad, kRun, kShuffle, kGather };
  const Conv2dShape& s_;
  const int8_t* x_;
  size_t j0_, k_, taps_, plane_;
  int8_t pad_;
  __m128i pad_row_;
  Kind kind_[kConvS8DirectMaxTaps];
  long offset_[kConvS8DirectMaxTaps];
  __m128i control_[kConvS8DirectMaxTaps], fill_[kConvS8DirectMaxTaps];
  int32_t gather_[kConvS8DirectMaxTaps][W];
};

}  // namespace x86_rows
