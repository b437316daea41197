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
// sixteen lanes, and by ConvRows<16, 16>: the 512-bit VNNI direct conv at stride 1).
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

// The window's taps in order (r, t), per channel. A block of W output pixels covers one or two
// output rows (a segment each: lanes [l0, l1)); per tap, each segment's lanes that read inside
// the image are one run of input bytes (every sw-th), within kSpan bytes of the channel's plane
// (W at stride 1, 16 at stride 2): one load and a byte shuffle per segment, ORed with the zero
// point in the other lanes; a segment with no such lane costs nothing. Blocks over more than two
// output rows, or planes under kSpan bytes, gather byte by byte from offsets in the plane.
template <size_t W, size_t kSpan>
class ConvRows {
  static_assert(W == 4 || W == 8 || W == 16, "SSE4.1, AVX2 and AVX-512 registers of int32 lanes");
  static_assert(kSpan == W || kSpan == 16, "a register's bytes or a whole xmm");
  // W = 16 (kSpan 16): stride 1 only, where 16 lanes read a run of at most 16 bytes.

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
    // Segments: lanes [0, split) in output row oh0, [split, cols) in oh0 + 1.
    const size_t split = std::min(cols, s_.out_w - ow0);
    const bool shuffled = cols - split <= s_.out_w && plane_ >= kSpan;
    for (size_t r = 0; r < s_.kh; ++r)
      for (size_t t = 0; t < s_.kw; ++t) {
        const size_t tap = r * s_.kw + t;
        const long dy = static_cast<long>(r * s_.dilation_h) - static_cast<long>(s_.pad_top);
        const long dx = static_cast<long>(t * s_.dilation_w) - static_cast<long>(s_.pad_left);
        if (shuffled) {
          __m128i valid = _mm_setzero_si128();
          loads_[tap] = 0;
          Segment(tap, oh0, ow0, 0, split, dy, dx, &valid);
          if (split < cols) Segment(tap, oh0 + 1, 0, split, cols, dy, dx, &valid);
          fill_[tap] = _mm_andnot_si128(valid, _mm_set1_epi8(pad_));
          // At 8 lanes every shuffled tap as two loads: the missing ones read the plane's
          // first bytes and shuffle them to zero, so Next takes one branch-free form (faster
          // on AMD Zen 4 at AVX2; at 16 lanes, AVX-512, the per-tap branch was).
          if constexpr (kUniform) {
            for (uint8_t k = loads_[tap]; k < 2; ++k) {
              offset_[tap][k] = 0;
              control_[tap][k] = _mm_set1_epi8(-128);
            }
            loads_[tap] = 2;
          }
          continue;
        }
        loads_[tap] = kGather;
        size_t oh = oh0, ow = ow0;
        for (size_t l = 0; l < W; ++l) {
          long at = -1;
          if (l < cols) {
            const long ih = static_cast<long>(oh * s_.stride_h) + dy;
            const long iw = static_cast<long>(ow * s_.stride_w) + dx;
            if (ih >= 0 && ih < static_cast<long>(s_.in_h) && iw >= 0 &&
                iw < static_cast<long>(s_.in_w))
              at = ih * static_cast<long>(s_.in_w) + iw;
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
    const auto two = [&] {
      return _mm_or_si128(
          _mm_or_si128(_mm_shuffle_epi8(LoadRow<kSpan>(xc + offset_[tap][0]), control_[tap][0]),
                       _mm_shuffle_epi8(LoadRow<kSpan>(xc + offset_[tap][1]), control_[tap][1])),
          fill_[tap]);
    };
    if constexpr (kUniform) {
      if (loads_[tap] != kGather) return two();
    } else {
      switch (loads_[tap]) {
        case 1:
          return _mm_or_si128(
              _mm_shuffle_epi8(LoadRow<kSpan>(xc + offset_[tap][0]), control_[tap][0]), fill_[tap]);
        case 0:
          return fill_[tap];
        case 2:
          return two();
        default:
          break;
      }
    }
    // Built in registers, 8 lanes a word: bytes stored singly and reloaded stall the load.
    const auto gather = [&](size_t l0) {
      uint64_t row = 0;
      for (size_t l = l0; l < std::min<size_t>(W, l0 + 8); ++l) {
        const int32_t at = gather_[tap][l];
        row |= uint64_t{static_cast<uint8_t>(at < 0 ? pad_ : xc[at])} << (8 * (l - l0));
      }
      return static_cast<long long>(row);
    };
    if constexpr (W == 16)
      return _mm_set_epi64x(gather(8), gather(0));
    else
      return _mm_cvtsi64_si128(gather(0));
  }

 private:
  static constexpr uint8_t kGather = 3;
  static constexpr bool kUniform = W == 8;

  // Lanes [l0, l1) at output row oh from column ow: those inside the image are lanes [lo, hi)
  // reading plane bytes pos(l) = ih·in_w + iw0 + (l − l0)·sw; loaded from `base` (kSpan bytes
  // inside the plane), the shuffle control l·sw + (pos(l0') − base) there and 0x80 (zero)
  // elsewhere. In registers: a byte table written a lane at a time and loaded as a vector
  // stalls the load.
  void Segment(size_t tap, size_t oh, size_t ow, size_t l0, size_t l1, long dy, long dx,
               __m128i* valid) {
    const long ih = static_cast<long>(oh * s_.stride_h) + dy;
    if (ih < 0 || ih >= static_cast<long>(s_.in_h)) return;
    const long sw = static_cast<long>(s_.stride_w), in_w = static_cast<long>(s_.in_w);
    const long iw0 = static_cast<long>(ow) * sw + dx, n = static_cast<long>(l1 - l0);
    const long first = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;  // segment lanes [first, end)
    const long end = iw0 < in_w ? std::min(n, (in_w - 1 - iw0) / sw + 1) : 0;
    if (end <= first) return;
    const long row = ih * in_w;
    const long base =
        std::min(row + iw0 + first * sw, static_cast<long>(plane_) - static_cast<long>(kSpan));
    const long lo = static_cast<long>(l0) + first, hi = static_cast<long>(l0) + end;
    const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i inside =
        _mm_and_si128(_mm_cmpgt_epi8(lane, _mm_set1_epi8(static_cast<char>(lo - 1))),
                      _mm_cmpgt_epi8(_mm_set1_epi8(static_cast<char>(hi)), lane));
    const __m128i stepped = sw == 1 ? lane : _mm_add_epi8(lane, lane);
    // pos(l) − base = l·sw + (row + iw0 − l0·sw − base)
    const long shift = row + iw0 - static_cast<long>(l0) * sw - base;
    const __m128i moved = _mm_add_epi8(stepped, _mm_set1_epi8(static_cast<char>(shift)));
    const uint8_t k = loads_[tap]++;
    offset_[tap][k] = base;
    control_[tap][k] =
        _mm_or_si128(_mm_and_si128(inside, moved), _mm_andnot_si128(inside, _mm_set1_epi8(-128)));
    *valid = _mm_or_si128(*valid, inside);
  }

  const Conv2dShape& s_;
  const int8_t* x_;
  size_t j0_, k_, taps_, plane_;
  int8_t pad_;
  uint8_t loads_[kConvS8DirectMaxTaps];  // segments loaded: 0, 1, 2, or kGather
  long offset_[kConvS8DirectMaxTaps][2];
  __m128i control_[kConvS8DirectMaxTaps][2], fill_[kConvS8DirectMaxTaps];
  int32_t gather_[kConvS8DirectMaxTaps][W];
};

}  // namespace x86_rows
