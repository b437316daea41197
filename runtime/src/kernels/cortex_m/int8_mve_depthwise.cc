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
#include "kernels/cortex_m/int8_mve_rows.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// Sums requantized per call: whole rows while they fit (KWS's 25 × 5 planes: one call a channel).
constexpr size_t kAccOutputs = 256;

// Channel c's input into the plane (image at (pad_top, pad_left); the border stays zp).
void CopyChannel(const Conv2dShape& s, const int8_t* xc, size_t rows, size_t pitch, int8_t* pl) {
  const size_t cols = s.pad_left < pitch ? std::min(s.in_w, pitch - s.pad_left) : 0;
  const ByteRow copy(cols);
  const size_t h_end = std::min(s.in_h, rows > s.pad_top ? rows - s.pad_top : 0);
  int8_t* dst = pl + s.pad_top * pitch + s.pad_left;
  for (size_t h = 0; h < h_end; ++h, xc += s.in_w, dst += pitch) copy.Copy(xc, dst);
}

// Stride 1: `steps` whole steps of four outputs into acc, unpredicated (a predicated load
// costs a VPST more); x0, x1, x2 = the three tap rows at the first window. In assembly, the nine
// weights in r4 … r12, the rows in r0 … r2 (VLDRB.S32 takes a low base register), acc in r3, a
// low-overhead loop: 21 instructions a step
// (GCC spills the weights: 31).
void Steps3x3S1(const int8_t* x0, const int8_t* x1, const int8_t* x2, const int32_t* w,
                int32_t bias, size_t steps, int32_t* acc) {
  if (steps == 0) return;
  register int32_t w0 asm("r4") = w[0];
  register int32_t w1 asm("r5") = w[1];
  register int32_t w2 asm("r6") = w[2];
  register int32_t w3 asm("r7") = w[3];
  register int32_t w4 asm("r8") = w[4];
  register int32_t w5 asm("r9") = w[5];
  register int32_t w6 asm("r10") = w[6];
  register int32_t w7 asm("r11") = w[7];
  register int32_t w8 asm("r12") = w[8];
  register const int8_t* p0 asm("r0") = x0;
  register const int8_t* p1 asm("r1") = x1;
  register const int8_t* p2 asm("r2") = x2;
  register int32_t* out asm("r3") = acc;
  register size_t n asm("lr") = steps;
  const int32x4_t b = vdupq_n_s32(bias);
  __asm__ volatile(
      "dls        lr, lr\n\t"
      "1:\n\t"
      "vldrb.s32  q0, [%[p0]]\n\t"
      "vmov       q1, %q[b]\n\t"
      "vmla.s32   q1, q0, %[w0]\n\t"
      "vldrb.s32  q0, [%[p0], #1]\n\t"
      "vmla.s32   q1, q0, %[w1]\n\t"
      "vldrb.s32  q0, [%[p0], #2]\n\t"
      "vmla.s32   q1, q0, %[w2]\n\t"
      "vldrb.s32  q0, [%[p1]]\n\t"
      "vmla.s32   q1, q0, %[w3]\n\t"
      "vldrb.s32  q0, [%[p1], #1]\n\t"
      "vmla.s32   q1, q0, %[w4]\n\t"
      "vldrb.s32  q0, [%[p1], #2]\n\t"
      "vmla.s32   q1, q0, %[w5]\n\t"
      "vldrb.s32  q0, [%[p2]]\n\t"
      "vmla.s32   q1, q0, %[w6]\n\t"
      "vldrb.s32  q0, [%[p2], #1]\n\t"
      "vmla.s32   q1, q0, %[w7]\n\t"
      "vldrb.s32  q0, [%[p2], #2]\n\t"
      "vmla.s32   q1, q0, %[w8]\n\t"
      "adds       %[p0], #4\n\t"
      "adds       %[p1], #4\n\t"
      "adds       %[p2], #4\n\t"
      "vstrw.32   q1, [%[out]], #16\n\t"
      "le         lr, 1b\n\t"
      : [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [out] "+r"(out), [n] "+r"(n)
      : [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2), [w3] "r"(w3), [w4] "r"(w4), [w5] "r"(w5),
        [w6] "r"(w6), [w7] "r"(w7), [w8] "r"(w8), [b] "w"(b)
      : "cc", "memory", "d0", "d1", "d2", "d3");
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
  const ByteRow copy_out(s.out_w);
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
        for (size_t r = 0; r < batch; ++r) copy_out.Copy(out + r * pitch, yc + (oh + r) * s.out_w);
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
