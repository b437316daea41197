// Moving the short rows of int8 depthwise planes: the padded phase planes are filled row by
// row, and a channel's outputs, computed over the flat plane (`pitch` bytes per row, of which
// the first out_w are outputs), are copied to the dense output row by row. Rows there are 5 to
// 100 bytes (keyword spotting, the deep layers of mobile networks): a call to memcpy, or a loop
// of runs per register of outputs, costs more than computing them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

#include "kernels/conv/conv_scratch.h"

namespace edgefold::kernels {
// Internal linkage: each ISA's translation unit compiles these with its own flags (the AVX-512
// masked copy, NEON), and one shared inline definition would let the linker run another
// level's code on a CPU that lacks it.
namespace {

// memcpy of `count` bytes as at most two fixed-size pieces that overlap (count < 16) or
// 16-byte pieces with the last one overlapping; reads and writes only [0, count).
inline void CopySmallBytes(int8_t* dst, const int8_t* src, size_t count) {
#if defined(__AVX512BW__)
  if (count <= 64) {
    const __mmask64 keep = count == 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
    _mm512_mask_storeu_epi8(dst, keep, _mm512_maskz_loadu_epi8(keep, src));
    return;
  }
#endif
  const auto piece = [&](size_t at, auto bytes) {
    char tmp[decltype(bytes)::value];
    std::memcpy(tmp, src + at, sizeof tmp);
    std::memcpy(dst + at, tmp, sizeof tmp);
  };
  using P16 = std::integral_constant<size_t, 16>;
  using P8 = std::integral_constant<size_t, 8>;
  using P4 = std::integral_constant<size_t, 4>;
  if (count >= 16) {
    for (size_t j = 0; j + 16 <= count; j += 16) piece(j, P16{});
    if (count % 16 != 0) piece(count - 16, P16{});
  } else if (count >= 8) {
    piece(0, P8{});
    piece(count - 8, P8{});
  } else if (count >= 4) {
    piece(0, P4{});
    piece(count - 4, P4{});
  } else {
    for (size_t j = 0; j < count; ++j) dst[j] = src[j];
  }
}

// A channel's outputs over its flat plane, a block at a time: step(i, q) writes the `lanes`
// results at flat indices i, i + 1, … to q; they are collected in a block of kFlatBlockBytes
// and each output row's part of the block copied to `yc` (out_h × out_w, dense). The pitch − out_w
// columns past each row are computed and dropped.
constexpr size_t kFlatBlockBytes = 1024;

template <size_t kLanes, class Step>
inline void StoreFlatRowsS8(const Conv2dShape& s, const DepthwiseS8Planes& g, int8_t* yc,
                            Step&& step) {
  static_assert(kFlatBlockBytes % kLanes == 0, "steps tile a block");
  alignas(64) int8_t block[kFlatBlockBytes + 16];  // + a 16-byte copy's reach past the last row
  const size_t flat = s.out_h * g.pitch;
  const int8_t* const y_end = yc + s.out_h * s.out_w;
  for (size_t i0 = 0; i0 < flat; i0 += kFlatBlockBytes) {
    const size_t i1 = std::min(flat, i0 + kFlatBlockBytes);
    for (size_t i = i0; i < i1; i += kLanes) step(i, block + (i - i0));
    // Rows that start in the block: whole ones by pointer steps, the one the block cuts in
    // two up to the block's end; then the part of a row the previous block started.
    size_t r = (i0 + g.pitch - 1) / g.pitch;
    const int8_t* src = block + (r * g.pitch - i0);
    int8_t* dst = yc + r * s.out_w;
    if (s.out_w <= 16) {
      // One 16-byte copy per row while it ends inside the channel: the bytes past the row land
      // on later rows of this channel, which are written after it.
      for (; r * g.pitch + s.out_w <= i1 && dst + 16 <= y_end; ++r) {
        std::memcpy(dst, src, 16);
        src += g.pitch;
        dst += s.out_w;
      }
    }
    for (; r * g.pitch + s.out_w <= i1; ++r) {
      CopySmallBytes(dst, src, s.out_w);
      src += g.pitch;
      dst += s.out_w;
    }
    if (r * g.pitch < i1) CopySmallBytes(dst, src, i1 - r * g.pitch);
    const size_t first =
        i0 / g.pitch;  // a row begun before i0 (rows wider than a block: in the middle too)
    const size_t first_end = std::min(first * g.pitch + s.out_w, i1);
    if (first * g.pitch < i0 && i0 < first_end)
      CopySmallBytes(yc + first * s.out_w + (i0 - first * g.pitch), block, first_end - i0);
  }
}

}  // namespace
}  // namespace edgefold::kernels
