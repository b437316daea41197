// The int8 max pool (Int8KernelTable::pool2d_s8 for PoolKind::kMax, ref::Pool2dS8's bits) on
// AVX-512BW for undilated windows at strides 1 and 2 in which every output has a tap inside
// the image (else, and for average pools, the reference). Per output row and tap row the input
// row is copied into a row padded with −128 (never above a tap in bounds, so the maximum is the
// reference's), then 64 outputs a step take the vpmaxsb of their kw shifted loads (stride 2:
// the even bytes of 128, vpmovwb). Included by int8_simd.h inside the arch namespace.
#pragma once

namespace x86_max_pool {

constexpr size_t kRowBytes = 4096;  // the padded row on the stack: wider rows take the reference

// True when every window along one axis has a tap in [0, in): the first and the last.
inline bool EveryWindowInside(size_t in, size_t out, size_t k, size_t stride, size_t pad) {
  const long first_end = static_cast<long>(k) - 1 - static_cast<long>(pad);
  const long last_start = static_cast<long>((out - 1) * stride) - static_cast<long>(pad);
  return first_end >= 0 && last_start <= static_cast<long>(in) - 1;
}

template <size_t kStride>
void MaxPoolPlane(const Pool2dParams& p, const int8_t* xp, int8_t* yp, int8_t* row) {
  const size_t steps = (p.out_w + 63) / 64;
  alignas(64) int8_t acc[kRowBytes];
  for (size_t oh = 0; oh < p.out_h; ++oh) {
    std::memset(acc, -128, steps * 64);
    for (size_t r = 0; r < p.kh; ++r) {
      const long ih = static_cast<long>(oh * p.stride_h + r) - static_cast<long>(p.pad_top);
      if (ih < 0 || ih >= static_cast<long>(p.in_h)) continue;
      std::memcpy(row + p.pad_left, xp + static_cast<size_t>(ih) * p.in_w, p.in_w);
      for (size_t s = 0; s < steps; ++s) {
        __m512i m = _mm512_load_si512(acc + 64 * s);
        for (size_t t = 0; t < p.kw; ++t) {
          const int8_t* in = row + kStride * 64 * s + t;
          __m512i v;
          if constexpr (kStride == 1) {
            v = _mm512_loadu_si512(in);
          } else {
            v = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_loadu_si512(in))),
                _mm512_cvtepi16_epi8(_mm512_loadu_si512(in + 64)), 1);
          }
          m = _mm512_max_epi8(m, v);
        }
        _mm512_store_si512(acc + 64 * s, m);
      }
    }
    std::memcpy(yp + oh * p.out_w, acc, p.out_w);
  }
}

inline void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
                     size_t planes) {
  const size_t steps = (p.out_w + 63) / 64;
  // Bytes a step may read: 64·stride from its start plus kw − 1 (+64 for stride 2's pair).
  const size_t reach = steps * 64 * p.stride_w + p.kw + 64;
  if (p.kind != PoolKind::kMax || p.stride_w > 2 || p.dilation_h != 1 || p.dilation_w != 1 ||
      reach > kRowBytes || p.pad_left + p.in_w > kRowBytes || p.out_h == 0 || p.out_w == 0 ||
      !EveryWindowInside(p.in_h, p.out_h, p.kh, p.stride_h, p.pad_top) ||
      !EveryWindowInside(p.in_w, p.out_w, p.kw, p.stride_w, p.pad_left))
    return ref::Pool2dS8(p, zero_point, x, y, planes);
  alignas(64) int8_t row[kRowBytes];
  std::memset(row, -128, kRowBytes);  // the padding; each tap row overwrites only its bytes
  const size_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  for (size_t pl = 0; pl < planes; ++pl) {
    if (p.stride_w == 1)
      MaxPoolPlane<1>(p, x + pl * in_plane, y + pl * out_plane, row);
    else
      MaxPoolPlane<2>(p, x + pl * in_plane, y + pl * out_plane, row);
  }
}

}  // namespace x86_max_pool
