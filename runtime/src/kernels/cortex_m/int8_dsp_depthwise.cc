// int8 depthwise convolution with the DSP extension (int8_dsp.h): each channel is copied into
// a zero-point-padded plane, each output row summed into int32 accumulators, then requantized
// a row at a time (RequantRow). 3 × 3 windows (every depthwise layer of DS-CNN and MobileNet)
// run four outputs a step with SMLAD on the pairs (w0, w2) and SMLA<x>B on w1:
//   stride 1, X = x[0..3], X' = x[2..5]:
//     y0 += (x0,x2)·(w0,w2) + x1·w1      y1 += (x1,x3)·(w0,w2) + x2·w1
//     y2 += (x2,x4)·(w0,w2) + x3·w1      y3 += (x3,x5)·(w0,w2) + x4·w1
//   stride 2, X = x[0..3], x[2..5], x[4..7], x[6..9]:
//     y0 += (x0,x2)·(w0,w2) + x1·w1      y1 += (x2,x4)·(w0,w2) + x3·w1
//     y2 += (x4,x6)·(w0,w2) + x5·w1      y3 += (x6,x8)·(w0,w2) + x7·w1
// where (a,b) = SXTB16 of a word (or of it rotated by 8). Other windows take a row of up to
// four taps for two outputs (RowsGroup). Integer sums are exact: the bytes are the portable
// kernel's.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <algorithm>

#include "kernels/conv/conv_scratch.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

// Outputs summed before a RequantRow (int32 on the stack, plus the slack of a 4-output step):
// whole rows while they fit (KWS's 25 × 5 planes: one RequantRow a channel), else chunks of
// a row.
constexpr size_t kAccOutputs = 128;

// Group g's taps (columns 4g..4g+3) of kh rows for the outputs (ow, ow + 1): x = the plane at
// (oh, ow + 4g), wp = two words per row. 12 instructions per row:
//   acc0 += SMLAD(even(x[0..3]), (w_t, w_t+2)) + SMLAD(odd(x[0..3]), (w_t+1, w_t+3))
//   acc1 += SMLAD(odd(x[0..3]), (w_t, w_t+2))  + SMLAD(even(x[2..5]), (w_t+1, w_t+3))
EDGEFOLD_DSP_INLINE void RowsGroup(const int8_t* x, size_t pitch, const uint32_t* wp, size_t kh,
                                   int32_t& acc0, int32_t& acc1) {
  uint32_t v, v2, we, wo, e;
  __asm__ volatile(
      "1:\n\t"
      "ldr    %[v], [%[x]]\n\t"
      "ldr    %[v2], [%[x], #2]\n\t"
      "ldrd   %[we], %[wo], [%[w]], #8\n\t"
      "add    %[x], %[x], %[pitch]\n\t"
      "sxtb16 %[e], %[v]\n\t"
      "smlad  %[a0], %[e], %[we], %[a0]\n\t"
      "sxtb16 %[e], %[v], ror #8\n\t"
      "smlad  %[a0], %[e], %[wo], %[a0]\n\t"
      "smlad  %[a1], %[e], %[we], %[a1]\n\t"
      "sxtb16 %[e], %[v2]\n\t"
      "smlad  %[a1], %[e], %[wo], %[a1]\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      : [a0] "+r"(acc0), [a1] "+r"(acc1), [x] "+r"(x), [w] "+r"(wp), [n] "+r"(kh), [v] "=&r"(v),
        [v2] "=&r"(v2), [we] "=&r"(we), [wo] "=&r"(wo), [e] "=&r"(e)
      : [pitch] "r"(pitch)
      : "cc", "memory");
}

// Any window (dilation 1): outputs [ow0, ow0 + n) of one row into acc (acc[0] = output ow0), in
// steps of two plane columns: stride 1 takes both outputs of a step, stride 2 the first.
void RowAnyWindow(const int8_t* x, size_t pitch, const uint32_t* wp, size_t groups, size_t kh,
                  size_t sw, int32_t bias, size_t n, int32_t* acc) {
  for (size_t o = 0; o < n; o += 3 - sw, x += 2) {
    int32_t acc0 = bias, acc1 = bias;
    for (size_t g = 0; g < groups; ++g)
      RowsGroup(x + 4 * g, pitch, wp + 2 * kh * g, kh, acc0, acc1);
    acc[o] = acc0;
    if (sw == 1) acc[o + 1] = acc1;
  }
}

// The rows of a 3 × 3 step: per tap row, w = (w0, w2), (w1, ·) at wp, wp + 8, wp + 16.
#define EDGEFOLD_DSP_DW3_S1_ROW(off)      \
  "ldrd   %[w02], %[w1], [%[wp], #" off   \
  "]\n\t"                                 \
  "ldr    %[v], [%[x]]\n\t"               \
  "sxtb16 %[e], %[v]\n\t"                 \
  "smlad  %[c0], %[e], %[w02], %[c0]\n\t" \
  "sxtb16 %[v], %[v], ror #8\n\t"         \
  "smlabb %[c0], %[v], %[w1], %[c0]\n\t"  \
  "smlad  %[c1], %[v], %[w02], %[c1]\n\t" \
  "ldr    %[v], [%[x], #2]\n\t"           \
  "sxtb16 %[e], %[v]\n\t"                 \
  "smlabb %[c1], %[e], %[w1], %[c1]\n\t"  \
  "smlad  %[c2], %[e], %[w02], %[c2]\n\t" \
  "smlatb %[c3], %[e], %[w1], %[c3]\n\t"  \
  "sxtb16 %[v], %[v], ror #8\n\t"         \
  "smlabb %[c2], %[v], %[w1], %[c2]\n\t"  \
  "smlad  %[c3], %[v], %[w02], %[c3]\n\t"

#define EDGEFOLD_DSP_DW3_S2_ROW(off)      \
  "ldrd   %[w02], %[w1], [%[wp], #" off   \
  "]\n\t"                                 \
  "ldr    %[v], [%[x]]\n\t"               \
  "sxtb16 %[e], %[v]\n\t"                 \
  "smlad  %[c0], %[e], %[w02], %[c0]\n\t" \
  "sxtb16 %[v], %[v], ror #8\n\t"         \
  "smlabb %[c0], %[v], %[w1], %[c0]\n\t"  \
  "smlatb %[c1], %[v], %[w1], %[c1]\n\t"  \
  "ldr    %[v], [%[x], #2]\n\t"           \
  "sxtb16 %[v], %[v]\n\t"                 \
  "smlad  %[c1], %[v], %[w02], %[c1]\n\t" \
  "ldr    %[v], [%[x], #4]\n\t"           \
  "sxtb16 %[e], %[v]\n\t"                 \
  "smlad  %[c2], %[e], %[w02], %[c2]\n\t" \
  "sxtb16 %[v], %[v], ror #8\n\t"         \
  "smlabb %[c2], %[v], %[w1], %[c2]\n\t"  \
  "smlatb %[c3], %[v], %[w1], %[c3]\n\t"  \
  "ldr    %[v], [%[x], #6]\n\t"           \
  "sxtb16 %[v], %[v]\n\t"                 \
  "smlad  %[c3], %[v], %[w02], %[c3]\n\t"

// Two outputs of a 3 × 3 window (Row3x3's last one or two of a row): per tap row one word,
//   stride 1: y0 += (x0,x2)·(w0,w2) + x1·w1    y1 += (x1,x3)·(w0,w2) + x2·w1
//   stride 2: y0 += (x0,x2)·(w0,w2) + x1·w1    y1 += (x2,x4)·(w0,w2) + x3·w1
// about 24 instructions where a four-output step takes 55.
// A row's last two outputs at stride 1 (y1's window starts one byte on).
EDGEFOLD_DSP_INLINE void Row3x3Pair(const int8_t* x, size_t pitch, const uint32_t* wp,
                                    int32_t* acc) {
  int32_t c0 = static_cast<int32_t>(wp[6]), c1 = c0;
#pragma GCC unroll 3
  for (size_t r = 0; r < 3; ++r, x += pitch) {
    const auto w02 = static_cast<int32_t>(wp[2 * r]), w1 = static_cast<int32_t>(wp[2 * r + 1]);
    const uint32_t v = Load32(x);
    const int32_t e = Even(v);
    int32_t o;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(o) : "r"(v));  // GCC does not fold the rotation
    c0 = __smlabb(o, w1, __smlad(e, w02, c0));
    c1 = __smlatb(e, w1, __smlad(o, w02, c1));
  }
  acc[0] = c0;
  acc[1] = c1;
}

// A row's last output, either stride: y0 += (x0,x2)·(w0,w2) + x1·w1 per tap row, 22 instructions.
EDGEFOLD_DSP_INLINE void Row3x3One(const int8_t* x, size_t pitch, const uint32_t* wp,
                                   int32_t* acc) {
  uint32_t c0, v, e, w02, w1;
  __asm__ volatile(
      "ldr    %[c0], [%[wp], #24]\n\t"
      "ldrd   %[w02], %[w1], [%[wp]]\n\t"
      "ldr    %[v], [%[x]]\n\t"
      "sxtb16 %[e], %[v]\n\t"
      "smlad  %[c0], %[e], %[w02], %[c0]\n\t"
      "sxtb16 %[v], %[v], ror #8\n\t"
      "smlabb %[c0], %[v], %[w1], %[c0]\n\t"
      "add    %[x], %[x], %[pitch]\n\t"
      "ldrd   %[w02], %[w1], [%[wp], #8]\n\t"
      "ldr    %[v], [%[x]]\n\t"
      "sxtb16 %[e], %[v]\n\t"
      "smlad  %[c0], %[e], %[w02], %[c0]\n\t"
      "sxtb16 %[v], %[v], ror #8\n\t"
      "smlabb %[c0], %[v], %[w1], %[c0]\n\t"
      "add    %[x], %[x], %[pitch]\n\t"
      "ldrd   %[w02], %[w1], [%[wp], #16]\n\t"
      "ldr    %[v], [%[x]]\n\t"
      "sxtb16 %[e], %[v]\n\t"
      "smlad  %[c0], %[e], %[w02], %[c0]\n\t"
      "sxtb16 %[v], %[v], ror #8\n\t"
      "smlabb %[c0], %[v], %[w1], %[c0]\n\t"
      "str    %[c0], [%[acc]]\n\t"
      : [x] "+r"(x), [c0] "=&r"(c0), [v] "=&r"(v), [e] "=&r"(e), [w02] "=&r"(w02), [w1] "=&r"(w1)
      : [wp] "r"(wp), [pitch] "r"(pitch), [acc] "r"(acc)
      : "memory");
}

// 3 × 3 window, stride sw ∈ {1, 2}: steps of four outputs from x = the plane at the row's first
// window, then one output (tail 1) or, at stride 1, two (tail 2); n rounded up to 4 otherwise (acc
// has the room). wp: (w0, w2), (w1, 0) per tap row, then the bias twice. 55 instructions a step
// at stride 1 (36 multiply-accumulates), 67 at stride 2. Row3x3Steps gives steps and tail.
EDGEFOLD_DSP_INLINE void Row3x3Steps(size_t n, size_t sw, size_t* steps, size_t* tail) {
  const size_t rest = n % 4;
  *tail = rest == 1 || (rest == 2 && sw == 1) ? rest : 0;
  *steps = n / 4 + (rest != 0 && *tail == 0);
}
EDGEFOLD_DSP_INLINE void Row3x3(const int8_t* x, size_t pitch, const uint32_t* wp, size_t sw,
                                size_t steps, size_t tail, int32_t* acc) {
  uint32_t c0, c1, c2, c3, v, e, w02, w1;
  if (steps == 0) {
  } else if (sw == 1) {
    __asm__ volatile(
        "1:\n\t"
        "ldrd   %[c0], %[c1], [%[wp], #24]\n\t"
        "ldrd   %[c2], %[c3], [%[wp], #24]\n\t"
        EDGEFOLD_DSP_DW3_S1_ROW("0")
        "add    %[x], %[x], %[pitch]\n\t"
        EDGEFOLD_DSP_DW3_S1_ROW("8")
        "add    %[x], %[x], %[pitch]\n\t"
        EDGEFOLD_DSP_DW3_S1_ROW("16")
        "sub    %[x], %[x], %[pitch], lsl #1\n\t"
        "add    %[x], %[x], #4\n\t"
        "strd   %[c0], %[c1], [%[acc]], #8\n\t"
        "strd   %[c2], %[c3], [%[acc]], #8\n\t"
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        : [x] "+r"(x), [acc] "+r"(acc), [n] "+r"(steps), [c0] "=&r"(c0), [c1] "=&r"(c1), [c2] "=&r"(c2),
          [c3] "=&r"(c3), [v] "=&r"(v), [e] "=&r"(e), [w02] "=&r"(w02), [w1] "=&r"(w1)
        : [wp] "r"(wp), [pitch] "r"(pitch)
        : "cc", "memory");
  } else {
    __asm__ volatile(
        "1:\n\t"
        "ldrd   %[c0], %[c1], [%[wp], #24]\n\t"
        "ldrd   %[c2], %[c3], [%[wp], #24]\n\t"
        EDGEFOLD_DSP_DW3_S2_ROW("0")
        "add    %[x], %[x], %[pitch]\n\t"
        EDGEFOLD_DSP_DW3_S2_ROW("8")
        "add    %[x], %[x], %[pitch]\n\t"
        EDGEFOLD_DSP_DW3_S2_ROW("16")
        "sub    %[x], %[x], %[pitch], lsl #1\n\t"
        "add    %[x], %[x], #8\n\t"
        "strd   %[c0], %[c1], [%[acc]], #8\n\t"
        "strd   %[c2], %[c3], [%[acc]], #8\n\t"
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        : [x] "+r"(x), [acc] "+r"(acc), [n] "+r"(steps), [c0] "=&r"(c0), [c1] "=&r"(c1), [c2] "=&r"(c2),
          [c3] "=&r"(c3), [v] "=&r"(v), [e] "=&r"(e), [w02] "=&r"(w02), [w1] "=&r"(w1)
        : [wp] "r"(wp), [pitch] "r"(pitch)
        : "cc", "memory");
  }
  if (tail == 1)
    Row3x3One(x, pitch, wp, acc);
  else if (tail == 2)
    Row3x3Pair(x, pitch, wp, acc);
}

// Channel c's input into the plane (rows × pitch, image at (pad_top, pad_left)); the border
// is zp from the one fill per call, since every channel writes the same interior.
void CopyChannel(const Conv2dShape& s, const int8_t* xc, size_t rows, size_t pitch, int8_t* pl) {
  const size_t cols = s.pad_left < pitch ? std::min(s.in_w, pitch - s.pad_left) : 0;
  const size_t h_end = std::min(s.in_h, rows > s.pad_top ? rows - s.pad_top : 0);
  if (cols == 0 || h_end == 0) return;
  // A few bytes a row: an odd word, then word pairs (unaligned LDR/STR, post-indexed: two loads
  // then two stores pipeline), then a halfword and a byte (the tail's bits 1 and 0 in C and N);
  // no memcpy call. 3 instructions a word, 15 a row besides.
  const size_t words = cols / 4, tail = cols % 4, src_skip = s.in_w - cols, dst_skip = pitch - cols;
  const int8_t* src = xc;
  int8_t* dst = pl + s.pad_top * pitch + s.pad_left;
  size_t h = h_end;
  uint32_t t, t2, n;
  __asm__ volatile(
      "1:\n\t"
      "lsrs   %[n], %[words], #1\n\t"  // n = word pairs (Z: none), C = an odd word
      "itt    cs\n\t"
      "ldrcs  %[t], [%[src]], #4\n\t"
      "strcs  %[t], [%[dst]], #4\n\t"
      "beq    3f\n\t"
      "2:\n\t"
      "ldr    %[t], [%[src]], #4\n\t"
      "ldr    %[t2], [%[src]], #4\n\t"
      "str    %[t], [%[dst]], #4\n\t"
      "str    %[t2], [%[dst]], #4\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    2b\n\t"
      "3:\n\t"
      "lsls   %[n], %[tail], #31\n\t"
      "itt    cs\n\t"
      "ldrhcs %[t], [%[src]], #2\n\t"
      "strhcs %[t], [%[dst]], #2\n\t"
      "itt    mi\n\t"
      "ldrbmi %[t], [%[src]], #1\n\t"
      "strbmi %[t], [%[dst]], #1\n\t"
      "add    %[src], %[src], %[ss]\n\t"
      "add    %[dst], %[dst], %[ds]\n\t"
      "subs   %[h], %[h], #1\n\t"
      "bne    1b\n\t"
      : [src] "+r"(src), [dst] "+r"(dst), [h] "+r"(h), [t] "=&r"(t), [t2] "=&r"(t2), [n] "=&r"(n)
      : [words] "r"(words), [tail] "r"(tail), [ss] "r"(src_skip), [ds] "r"(dst_skip)
      : "cc", "memory");
}

// Channel c's weights: 3 × 3 as Row3x3 reads them (bias in words 6, 7), others per group of
// four taps and tap row: (w_t, w_t+2), (w_t+1, w_t+3), zeros past kw.
void PackChannelWeights(const Conv2dShape& s, const int8_t* wc, int32_t bias, bool k3x3,
                        uint32_t* wp) {
  if (k3x3) {
    for (size_t r = 0; r < 3; ++r) {
      const uint32_t v = LoadTail(wc + 3 * r, 3);
      wp[2 * r] = static_cast<uint32_t>(Even(v));
      wp[2 * r + 1] = static_cast<uint32_t>(Odd(v));
    }
    wp[6] = wp[7] = static_cast<uint32_t>(bias);
    return;
  }
  const size_t groups = (s.kw + 3) / 4;
  for (size_t r = 0; r < s.kh; ++r)
    for (size_t gi = 0; gi < groups; ++gi) {
      const int8_t* wt = wc + r * s.kw + 4 * gi;
      const size_t left = s.kw - 4 * gi;
      const uint32_t v = left >= 4 ? Load32(wt) : LoadTail(wt, left);
      wp[2 * (gi * s.kh + r)] = static_cast<uint32_t>(Even(v));
      wp[2 * (gi * s.kh + r) + 1] = static_cast<uint32_t>(Odd(v));
    }
}

}  // namespace

// Strides 1 and 2, dilation 1, over one plane of the padded input: rows = out_h·sh + kh − 1 (one
// more than the windows read when sh = 2), pitch = (out_w − 1)·sw + kw, within the phase planes'
// bytes planned for strides up to 2, ConvS8DepthwisePlaneBytes (stride 1: the one phase plane).
// A 3 × 3 step reads up to 6 bytes, a RowsGroup 5, past a row's last window: the plane's slack.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  if (plane == nullptr || s.stride_h > 2 || s.stride_w > 2 || s.dilation_h != 1 ||
      s.dilation_w != 1 || s.kh * s.kw > kMaxDepthwiseS8Taps || s.out_w == 0) {
    ref::Conv2dDepthwiseS8(s, x, w, x_zero_point, rq, plane, y);
    return;
  }
  const size_t rows = s.out_h * s.stride_h + s.kh - 1, pitch = (s.out_w - 1) * s.stride_w + s.kw;
  const size_t groups = (s.kw + 3) / 4, sw = s.stride_w, row_step = s.stride_h * pitch;
  const bool k3x3 = s.kh == 3 && s.kw == 3;
  uint32_t wp[2 * kMaxDepthwiseS8Taps];
  int32_t acc[kAccOutputs + 4];
  const ActRequant act = MakeActRequant(rq.y_zero_point, rq.act_min, rq.act_max);
  const size_t batch_rows = s.out_w < kAccOutputs ? kAccOutputs / s.out_w : 1;
  std::memset(plane, x_zero_point, rows * pitch);
  for (size_t c = 0; c < s.out_c; ++c) {
    const int32_t bias = rq.bias != nullptr ? rq.bias[c] : 0;
    PackChannelWeights(s, w + c * s.kh * s.kw, bias, k3x3, wp);
    CopyChannel(s, x + c * s.in_h * s.in_w, rows, pitch, plane);
    const RowRequant q = MakeRowRequant(rq.multiplier[c], rq.shift[c], act);
    int8_t* yc = y + c * s.out_h * s.out_w;
    for (size_t oh = 0; oh < s.out_h; oh += batch_rows) {
      const size_t batch = std::min(batch_rows, s.out_h - oh);
      for (size_t ow = 0; ow < s.out_w; ow += kAccOutputs) {  // batch > 1: one chunk, whole rows
        const size_t n = std::min(kAccOutputs, s.out_w - ow);
        // A row's step slack lands on the next row's sums.
        const int8_t* xr = plane + oh * row_step + ow * sw;
        if (k3x3) {
          size_t steps, tail;
          Row3x3Steps(n, sw, &steps, &tail);
          for (int32_t* ar = acc; ar != acc + batch * n; ar += n, xr += row_step)
            Row3x3(xr, pitch, wp, sw, steps, tail, ar);
        } else {
          for (size_t r = 0; r < batch; ++r, xr += row_step)
            RowAnyWindow(xr, pitch, wp, groups, s.kh, sw, bias, n, acc + r * n);
        }
        RequantRow(acc, batch * n, q, act, yc + oh * s.out_w + ow);
      }
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
