// The int8 im2col (kernels/ref/int8_ref.cc Im2colS8) on NEON for the small planes of the
// MLPerf Tiny networks (ResNet-8's 32² to 8², VWW's 96² stem, DS-CNN's 49 × 10), where the
// portable path's library calls per 8- to 32-byte row cost 1.3 to 6.5 instructions per byte
// of col. Per channel, the input rows the chunk reads are copied once into a zero-point-padded
// block on the stack (the padding on every side written there), so that every (tap, output
// row) of col is one run of out_w bytes read at a fixed stride, without bounds: whole-register
// copies at stride 1, vld2 de-interleaving at stride 2. Same bytes as the reference.
// Included by int8_simd.h inside the arch namespace (its copy per translation unit).
#pragma once

namespace neon_im2col {

constexpr size_t kBlockBytes = 24 * 1024;  // a larger padded block takes the portable path
constexpr size_t kSlack = 32;              // bytes a row's last register may read past it

// dst[j] = src[j·stride] for j < n (stride 1 or 2); src may be read up to kSlack bytes past
// the last byte used.
inline void CopyRun(int8_t* dst, const int8_t* src, size_t n, size_t stride) {
  size_t j = 0;
  if (stride == 1) {
    for (; j + 16 <= n; j += 16) vst1q_s8(dst + j, vld1q_s8(src + j));
    if (j < n && n >= 16) {  // the last 16, overlapping
      vst1q_s8(dst + n - 16, vld1q_s8(src + n - 16));
      return;
    }
    for (; j + 8 <= n; j += 8) vst1_s8(dst + j, vld1_s8(src + j));
    if (j < n && n >= 8) {
      vst1_s8(dst + n - 8, vld1_s8(src + n - 8));
      return;
    }
    for (; j < n; ++j) dst[j] = src[j];
    return;
  }
  for (; j + 16 <= n; j += 16) vst1q_s8(dst + j, vld2q_s8(src + 2 * j).val[0]);
  if (j < n && n >= 16) {
    vst1q_s8(dst + n - 16, vld2q_s8(src + 2 * (n - 16)).val[0]);
    return;
  }
  for (; j + 8 <= n; j += 8) vst1_s8(dst + j, vld2_s8(src + 2 * j).val[0]);
  if (j < n && n >= 8) {
    vst1_s8(dst + n - 8, vld2_s8(src + 2 * (n - 8)).val[0]);
    return;
  }
  for (; j < n; ++j) dst[j] = src[2 * j];
}

// Runs oh < rows of a tap: dst + oh·n ← src + oh·step, n bytes each at stride S (1 or 2), in
// whole registers (8 bytes where n ≤ 8, else 16 at a time): up to 15 bytes past each run are
// written too (the next run's, which overwrites them) and src read up to kSlack bytes past.
template <size_t S>
inline void RunsOver(int8_t* dst, const int8_t* src, size_t rows, size_t n, size_t step) {
  if (n <= 8) {
    for (size_t oh = 0; oh < rows; ++oh, dst += n, src += step)
      vst1_s8(dst, S == 1 ? vld1_s8(src) : vld2_s8(src).val[0]);
    return;
  }
  if (n <= 32) {  // ResNet-8's and VWW's rows of 16 and 32 (and 9 to 31): two registers a run
    for (size_t oh = 0; oh < rows; ++oh, dst += n, src += step) {
      vst1q_s8(dst, S == 1 ? vld1q_s8(src) : vld2q_s8(src).val[0]);
      if (n > 16) vst1q_s8(dst + 16, S == 1 ? vld1q_s8(src + 16) : vld2q_s8(src + 32).val[0]);
    }
    return;
  }
  for (size_t oh = 0; oh < rows; ++oh, dst += n, src += step)
    for (size_t j = 0; j < n; j += 16)
      vst1q_s8(dst + j, S == 1 ? vld1q_s8(src + j) : vld2q_s8(src + 2 * j).val[0]);
}

// n bytes of value v at dst, rounded up to whole registers of 16.
inline void FillOver(int8_t* dst, int8_t v, size_t n) {
  const int8x16_t q = vdupq_n_s8(v);
  for (size_t j = 0; j < n; j += 16) vst1q_s8(dst + j, q);
}

// False (nothing written) where it does not apply: a stride above 2 or a padded block past
// kBlockBytes.
inline bool Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
                     size_t rows, int8_t* col) {
  if (rows == 0 || s.stride_w > 2 || s.out_w == 0) return rows == 0 || s.out_w == 0;
  const size_t channels = s.in_c / s.group;
  // The block: padded columns [0, span_w) are input columns −pad_left.., its rows the input
  // rows y0.. that output rows [row0, row0 + rows) read.
  const size_t span_w = (s.out_w - 1) * s.stride_w + (s.kw - 1) * s.dilation_w + 1;
  const size_t span_h = (rows - 1) * s.stride_h + (s.kh - 1) * s.dilation_h + 1;
  const size_t pitch = span_w;
  if (span_h * pitch + kSlack > kBlockBytes) return false;
  alignas(16) int8_t block[kBlockBytes];
  const long y0 = static_cast<long>(row0 * s.stride_h) - static_cast<long>(s.pad_top);
  // Columns of a block row inside the image: [left, left + mid).
  const size_t left = std::min(s.pad_left, span_w);
  const size_t mid = s.in_w > 0 && span_w > left ? std::min(s.in_w, span_w - left) : 0;
  const size_t out_plane = rows * s.out_w;
  const int8_t* col_end = col + channels * s.kh * s.kw * out_plane;
  const size_t written = s.out_w <= 8 ? 8 : (s.out_w + 15) / 16 * 16;  // bytes CopyRunOver stores
  for (size_t c = 0; c < channels; ++c) {
    const int8_t* plane = x_group + c * s.in_h * s.in_w;
    for (size_t py = 0; py < span_h; ++py) {  // in order: a row's overrun is the next row's
      int8_t* dst = block + py * pitch;
      const long iy = y0 + static_cast<long>(py);
      if (iy < 0 || iy >= static_cast<long>(s.in_h) || mid == 0) {
        FillOver(dst, pad_value, span_w);
        continue;
      }
      // The padding on each side (at most 16 bytes each: one register at each end), then the
      // image's bytes between.
      if (left <= 16 && span_w - left - mid <= 16 && span_w >= 16) {
        vst1q_s8(dst, vdupq_n_s8(pad_value));
        vst1q_s8(dst + span_w - 16, vdupq_n_s8(pad_value));
      } else {
        FillOver(dst, pad_value, span_w);
      }
      CopyRun(dst + left, plane + static_cast<size_t>(iy) * s.in_w, mid, 1);
    }
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t t = 0; t < s.kw; ++t) {
        const size_t tap = (c * s.kh + r) * s.kw + t;
        int8_t* out = col + tap * out_plane;
        const int8_t* src = block + r * s.dilation_h * pitch + t * s.dilation_w;
        // col is written in address order, so a run's overrun lands where a later run writes;
        // the runs whose registers would pass col's end are copied exactly.
        const size_t step = s.stride_h * pitch;
        size_t over = rows;
        while (over > 0 && out + (over - 1) * s.out_w + written > col_end) --over;
        if (s.stride_w == 1)
          RunsOver<1>(out, src, over, s.out_w, step);
        else
          RunsOver<2>(out, src, over, s.out_w, step);
        for (size_t oh = over; oh < rows; ++oh)
          CopyRun(out + oh * s.out_w, src + oh * step, s.out_w, s.stride_w);
      }
  }
  return true;
}

}  // namespace neon_im2col
