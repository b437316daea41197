// Scalar int8 reference kernels: they define the bits every table reproduces.
#include <algorithm>
#include <cstring>

#include "kernels/conv/im2col_rows.h"
#include "kernels/conv/valid_columns.h"

#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// Y = requantize(bias + A·B), see GemmS8Params.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  for (size_t i = 0; i < p.m; ++i) {
    const int32_t bias = p.bias != nullptr ? p.bias[i] : 0;
    for (size_t j = 0; j < p.n; ++j) {
      int32_t acc = bias;
      for (size_t q = 0; q < p.k; ++q) acc += int32_t{a[i * p.lda + q]} * int32_t{b[q * p.ldb + j]};
      y[i * p.ldy + j] =
          RequantizeS8(acc, p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min, p.act_max);
    }
  }
}

// y[c, oh, ow] = requantize_c(bias[c] + Σ_{r,t} w[c, r, t]·x[c, oh·sh − pt + r·dh, ow·sw − pl + t·dw])
// with x = zp_x outside the image; `plane` is unused here (the SIMD tables' scratch).
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  (void)plane;
  const long in_h = static_cast<long>(s.in_h), in_w = static_cast<long>(s.in_w);
  for (size_t c = 0; c < s.out_c; ++c)
    for (size_t oh = 0; oh < s.out_h; ++oh)
      for (size_t ow = 0; ow < s.out_w; ++ow) {
        int32_t acc = rq.bias != nullptr ? rq.bias[c] : 0;
        for (size_t r = 0; r < s.kh; ++r)
          for (size_t t = 0; t < s.kw; ++t) {
            const long ih = static_cast<long>(oh * s.stride_h + r * s.dilation_h) -
                            static_cast<long>(s.pad_top);
            const long iw = static_cast<long>(ow * s.stride_w + t * s.dilation_w) -
                            static_cast<long>(s.pad_left);
            const bool inside = ih >= 0 && ih < in_h && iw >= 0 && iw < in_w;
            const int32_t v =
                inside
                    ? x[(c * s.in_h + static_cast<size_t>(ih)) * s.in_w + static_cast<size_t>(iw)]
                    : x_zero_point;
            acc += int32_t{w[(c * s.kh + r) * s.kw + t]} * v;
          }
        y[(c * s.out_h + oh) * s.out_w + ow] = RequantizeS8(
            acc, rq.multiplier[c], rq.shift[c], rq.y_zero_point, rq.act_min, rq.act_max);
      }
}

// As Im2col, padding with `pad_value` (the input's zero point: real 0), output rows
// [row0, row0 + rows).
void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col) {
  Im2colRows<int8_t>(s, x_group, pad_value, col, row0, rows);
}

// Round half to even without depending on the FPU's rounding instruction: for |v| ≤ 2^22,
// (v + 1.5·2^23) − 1.5·2^23 rounds v to an integer in the default (nearest-even) mode.
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  constexpr float kMagic = 12582912.0f;
  for (size_t i = 0; i < n; ++i) {
    float v = x[i] * p.inv_scale;
    if (v != v) v = 0.0f;
    v = std::min(std::max(v, -512.0f), 512.0f);
    v = (v + kMagic) - kMagic;
    v = std::min(std::max(v + static_cast<float>(p.zero_point), -128.0f), 127.0f);
    y[i] = static_cast<int8_t>(v);
  }
}

void DequantizeS8(const QuantS8Params& p, const int8_t* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(int32_t{x[i]} - p.zero_point) * p.scale;
}

void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = int64_t{a[i] - p.a_zero_point} * p.multiplier_a +
                      int64_t{b[i] - p.b_zero_point} * p.multiplier_b;
    int64_t q = p.y_zero_point + RoundShiftHalfAway(v, p.shift);
    q = std::min<int64_t>(std::max<int64_t>(q, p.act_min), p.act_max);
    y[i] = static_cast<int8_t>(q);
  }
}

void MulS8Rows(const MulS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t rows,
               size_t inner) {
  for (size_t r = 0; r < rows; ++r) {
    const int32_t bv = int32_t{b[r]} - p.b_zero_point;
    for (size_t j = r * inner; j < (r + 1) * inner; ++j)
      y[j] = RequantizeS8((int32_t{a[j]} - p.a_zero_point) * bv, p.multiplier, p.shift,
                          p.y_zero_point, p.act_min, p.act_max);
  }
}

namespace {
// sum / count rounded half away from zero (count > 0).
int8_t RoundedMean(int32_t sum, int32_t count) {
  const int32_t q =
      sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
  return static_cast<int8_t>(q);
}
}  // namespace

// As Pool2d on int8 (X and Y share scale and zero point): max of the in-bounds taps, or the
// rounded mean; count_include_pad counts padded taps as zp (real 0). No tap in bounds: zp.
namespace {

// Max pool of one plane, a row at a time: each tap row and tap column is a maximum over the
// output columns that read inside the image, into int16 lanes that start below every int8
// (a lane still at the start value had no tap in bounds: zp). Columns in chunks of kChunk.
template <size_t kStride>
void MaxPoolPlaneS8(const Pool2dParams& p, int8_t zero_point, const int8_t* xp, int8_t* yp) {
  constexpr size_t kChunk = 256;
  constexpr int16_t kNone = -32768;
  const size_t sw = kStride != 0 ? kStride : p.stride_w;
  Conv2dShape cols;  // ValidColumns' view of one tap column
  cols.in_w = p.in_w;
  cols.stride_w = sw;
  int16_t acc[kChunk];
  for (size_t oh = 0; oh < p.out_h; ++oh) {
    for (size_t c0 = 0; c0 < p.out_w; c0 += kChunk) {
      const size_t c1 = std::min(p.out_w, c0 + kChunk);
      for (size_t ow = c0; ow < c1; ++ow) acc[ow - c0] = kNone;
      for (size_t r = 0; r < p.kh; ++r) {
        const long ih =
            static_cast<long>(oh * p.stride_h + r * p.dilation_h) - static_cast<long>(p.pad_top);
        if (ih < 0 || ih >= static_cast<long>(p.in_h)) continue;
        const int8_t* row = xp + static_cast<size_t>(ih) * p.in_w;
        for (size_t t = 0; t < p.kw; ++t) {
          const long off_w = static_cast<long>(t * p.dilation_w) - static_cast<long>(p.pad_left);
          cols.out_w = c1;
          size_t lo = 0, hi = 0;
          ValidColumns(cols, off_w, &lo, &hi);
          lo = std::max(lo, c0);
          if (hi <= lo) continue;
          const int8_t* in = row + (static_cast<long>(lo * sw) + off_w);
          int16_t* out = acc + (lo - c0);
          for (size_t i = 0; i < hi - lo; ++i) out[i] = std::max<int16_t>(out[i], in[i * sw]);
        }
      }
      for (size_t ow = c0; ow < c1; ++ow)
        yp[oh * p.out_w + ow] =
            acc[ow - c0] == kNone ? zero_point : static_cast<int8_t>(acc[ow - c0]);
    }
  }
}

}  // namespace

void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
              size_t planes) {
  if (p.kind == PoolKind::kMax) {
    const size_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
    const auto zp = static_cast<int8_t>(zero_point);
    for (size_t pl = 0; pl < planes; ++pl) {
      if (p.stride_w == 1)
        MaxPoolPlaneS8<1>(p, zp, x + pl * in_plane, y + pl * out_plane);
      else if (p.stride_w == 2)
        MaxPoolPlaneS8<2>(p, zp, x + pl * in_plane, y + pl * out_plane);
      else
        MaxPoolPlaneS8<0>(p, zp, x + pl * in_plane, y + pl * out_plane);
    }
    return;
  }
  const long in_h = static_cast<long>(p.in_h), in_w = static_cast<long>(p.in_w);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh)
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        int32_t acc = 0, count = 0;  // average (max pools returned above)
        for (size_t r = 0; r < p.kh; ++r) {
          const long ih =
              static_cast<long>(oh * p.stride_h + r * p.dilation_h) - static_cast<long>(p.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          const int8_t* row = xp + ih * in_w;
          for (size_t t = 0; t < p.kw; ++t) {
            const long iw = static_cast<long>(ow * p.stride_w + t * p.dilation_w) -
                            static_cast<long>(p.pad_left);
            if (iw < 0 || iw >= in_w) continue;
            acc += row[iw];
            ++count;
          }
        }
        int8_t out = static_cast<int8_t>(zero_point);
        if (count > 0) {
          const int32_t taps = p.count_include_pad ? static_cast<int32_t>(p.kh * p.kw) : count;
          out = RoundedMean(acc + (taps - count) * zero_point, taps);
        }
        y[(pl * p.out_h + oh) * p.out_w + ow] = out;
      }
  }
}

// y[c] = max_i x[c,i], or the rounded mean (spatial < 2^23 so the sum fits 32 bits).
void GlobalPoolS8(PoolKind kind, const int8_t* x, int8_t* y, size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    const int8_t* row = x + c * spatial;
    int32_t acc = kind == PoolKind::kMax ? -128 : 0;
    for (size_t i = 0; i < spatial; ++i)
      acc = kind == PoolKind::kMax ? std::max<int32_t>(acc, row[i]) : acc + row[i];
    y[c] = kind == PoolKind::kMax ? static_cast<int8_t>(acc)
                                  : RoundedMean(acc, static_cast<int32_t>(spatial));
  }
}

}  // namespace edgefold::kernels::ref
