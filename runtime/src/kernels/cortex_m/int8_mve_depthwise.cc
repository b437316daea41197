// Helium (MVE) int8 depthwise convolution, 3 × 3 windows at strides 1 and 2 (int8_mve.h): each
// channel is copied into a zero-point-padded plane (as cortex_m_dsp's kernel does) and summed
// four outputs a vector, one int32 lane an output:
//   acc += VLDRB.S32(x + r·pitch + t) · w[r][t]   (VMLA.S32 by a scalar; stride 2: a gather of
//                                                  bytes 0, 2, 4, 6)
// over the nine taps (stride 1: along the whole plane as one row, below; stride 2: a row at a
// time, the last vector under a tail predicate), then the channel's sums are requantized
// together (RequantRowMve). Integer sums are exact: the
// bytes are ref::Conv2dDepthwiseS8's.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "kernels/cortex_m/int8_dsp.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// Sums requantized per call: whole rows while they fit (KWS's 25 × 5 planes: one call a channel).
constexpr size_t kAccOutputs = 256;

// Channel c's input into the plane (image at (pad_top, pad_left); the border stays zp).
void CopyChannel(const Conv2dShape& s, const int8_t* xc, size_t rows, size_t pitch, int8_t* pl) {
  const size_t cols = s.pad_left < pitch ? std::min(s.in_w, pitch - s.pad_left) : 0;
  for (size_t h = 0; h < s.in_h && h + s.pad_top < rows; ++h) {
    const int8_t* src = xc + h * s.in_w;
    int8_t* dst = pl + (h + s.pad_top) * pitch + s.pad_left;
    for (size_t i = 0; i < cols; i += 16) {
      const mve_pred16_t live = vctp8q(static_cast<uint32_t>(cols - i));
      vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, live), live);
    }
  }
}

// Stride 1: `steps` whole steps of four outputs into acc, unpredicated (a predicated load
// costs a VPST more); x0, x1, x2 = the three tap rows at the first window.
void Steps3x3S1(const int8_t* x0, const int8_t* x1, const int8_t* x2, const int32_t* w,
                int32_t bias, size_t steps, int32_t* acc) {
  const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                w7 = w[7], w8 = w[8];
  const int32x4_t b = vdupq_n_s32(bias);
  for (size_t i = 0; i < steps; ++i, x0 += 4, x1 += 4, x2 += 4, acc += 4) {
    int32x4_t a = vmlaq_n_s32(b, vldrbq_s32(x0), w0);
    a = vmlaq_n_s32(a, vldrbq_s32(x0 + 1), w1);
    a = vmlaq_n_s32(a, vldrbq_s32(x0 + 2), w2);
    a = vmlaq_n_s32(a, vldrbq_s32(x1), w3);
    a = vmlaq_n_s32(a, vldrbq_s32(x1 + 1), w4);
    a = vmlaq_n_s32(a, vldrbq_s32(x1 + 2), w5);
    a = vmlaq_n_s32(a, vldrbq_s32(x2), w6);
    a = vmlaq_n_s32(a, vldrbq_s32(x2 + 1), w7);
    a = vmlaq_n_s32(a, vldrbq_s32(x2 + 2), w8);
    vstrwq_s32(acc, a);
  }
}

// Stride 2: n outputs of one row into acc from x = the plane at the row's first window, the
// bytes 0, 2, 4, 6 of each tap gathered, the last vector under a tail predicate.
void Row3x3S2(const int8_t* x, size_t pitch, const int32_t* w, int32_t bias, size_t n,
              int32_t* acc) {
  const int8_t* x1 = x + pitch;
  const int8_t* x2 = x1 + pitch;
  const uint32x4_t offsets = vidupq_n_u32(0, 2);  // 0, 2, 4, 6
  for (size_t o = 0; o < n; o += 4) {
    const mve_pred16_t live = vctp32q(static_cast<uint32_t>(n - o));
    const size_t at = o * 2;
    int32x4_t a = vdupq_n_s32(bias);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x + at, offsets, live), w[0]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x + at + 1, offsets, live), w[1]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x + at + 2, offsets, live), w[2]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x1 + at, offsets, live), w[3]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x1 + at + 1, offsets, live), w[4]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x1 + at + 2, offsets, live), w[5]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x2 + at, offsets, live), w[6]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x2 + at + 1, offsets, live), w[7]);
    a = vmlaq_n_s32(a, vldrbq_gather_offset_z_s32(x2 + at + 2, offsets, live), w[8]);
    vstrwq_p_s32(acc + o, a, live);
  }
}

// n bytes from src to dst, 16 a vector.
void CopyBytes(const int8_t* src, size_t n, int8_t* dst) {
  for (size_t i = 0; i < n; i += 16) {
    const mve_pred16_t live = vctp8q(static_cast<uint32_t>(n - i));
    vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, live), live);
  }
}

}  // namespace

// 3 × 3, strides 1 and 2, dilation 1, with a plane: rows = out_h·sh + 2, pitch = (out_w − 1)·sw
// + 3, within ConvS8DepthwisePlaneBytes (as cortex_m_dsp's kernel). Stride 1 runs over the plane
// as one flat row: output (oh, ow) is flat position f = oh·pitch + ow, whose taps are
// plane[f + r·pitch + t]; the pitch − out_w positions between rows are computed and dropped
// (KWS's 5-wide rows: 7 positions a row in whole steps instead of a step and a predicated one).
// The flat positions past the last row read up to pitch + 5 bytes past rows·pitch: the plane's
// slack (ConvS8DepthwisePlaneBytes: (rows + 1)·pitch + 64). Other shapes run the DSP entry's
// kernel.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  const size_t pitch = s.out_w == 0 ? 0 : (s.out_w - 1) * s.stride_w + 3;
  if (plane == nullptr || s.kh != 3 || s.kw != 3 || s.stride_h > 2 || s.stride_w > 2 ||
      s.stride_h != s.stride_w || s.dilation_h != 1 || s.dilation_w != 1 || s.out_w == 0 ||
      (s.stride_w == 1 ? pitch : s.out_w) > kAccOutputs) {
    cortex_m_dsp::Conv2dDepthwiseS8(s, x, w, x_zero_point, rq, plane, y);
    return;
  }
  const size_t rows = s.out_h * s.stride_h + 2;
  const bool flat = s.stride_w == 1;
  const size_t span = flat ? pitch : s.out_w;  // sums per output row
  const size_t batch_rows = kAccOutputs / span;
  int32_t acc[kAccOutputs + 4];
  int8_t out[kAccOutputs];
  std::memset(plane, x_zero_point, rows * pitch);
  for (size_t c = 0; c < s.out_c; ++c) {
    const int32_t bias = rq.bias != nullptr ? rq.bias[c] : 0;
    int32_t wc[9];
    for (size_t t = 0; t < 9; ++t) wc[t] = w[c * 9 + t];
    CopyChannel(s, x + c * s.in_h * s.in_w, rows, pitch, plane);
    int8_t* yc = y + c * s.out_h * s.out_w;
    for (size_t oh = 0; oh < s.out_h; oh += batch_rows) {
      const size_t batch = std::min(batch_rows, s.out_h - oh);
      if (flat) {
        const int8_t* x0 = plane + oh * pitch;
        Steps3x3S1(x0, x0 + pitch, x0 + 2 * pitch, wc, bias, (batch * pitch + 3) / 4, acc);
        RequantRowMve(acc, batch * pitch, rq.multiplier[c], rq.shift[c], rq.y_zero_point,
                      rq.act_min, rq.act_max, out);
        for (size_t r = 0; r < batch; ++r)
          CopyBytes(out + r * pitch, s.out_w, yc + (oh + r) * s.out_w);
        continue;
      }
      for (size_t r = 0; r < batch; ++r)
        Row3x3S2(plane + (oh + r) * 2 * pitch, pitch, wc, bias, s.out_w, acc + r * s.out_w);
      RequantRowMve(acc, batch * s.out_w, rq.multiplier[c], rq.shift[c], rq.y_zero_point,
                    rq.act_min, rq.act_max, yc + oh * s.out_w);
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
