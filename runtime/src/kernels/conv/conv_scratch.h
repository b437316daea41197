// Which convolution path a Conv takes and the scratch it needs, shared by the runtime (Prepare
// checks it) and the compiler (plans it). Sizes saturate at SIZE_MAX (base/size_math.h): a
// hostile model's dims can overflow the product, and no plan can then offer enough scratch.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "base/size_math.h"
#include "kernels/conv/conv_phase.h"
#include "kernels/kernel_params.h"

namespace edgefold::kernels {

// Depthwise convs (group == in_c == out_c) run a direct kernel.
inline bool ConvIsDepthwise(const Conv2dShape& s) {
  return s.group == s.in_c && s.group == s.out_c && s.group > 1;
}

// 1×1, stride 1, no padding: the input already is the GEMM's B operand.
inline bool ConvIsPointwise(const Conv2dShape& s) {
  return s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
         s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
}

// ConvInt8's depthwise path (strides 1 and 2): one channel's input, padded with its zero
// point, split into stride_h·stride_w phase planes (phase (a, b) holds padded rows a, a + sh, …
// and columns b, b + sw, …), each of `rows` rows of `pitch` bytes plus a row and a register of
// slack, so that every tap of consecutive outputs is one contiguous load (int8_simd.h).
struct DepthwiseS8Planes {
  size_t rows, pitch, phase_bytes, phases;
};
inline DepthwiseS8Planes DepthwiseS8PlaneGeometry(const Conv2dShape& s) {
  DepthwiseS8Planes g;
  g.rows = s.out_h + (s.kh - 1) * s.dilation_h / s.stride_h;
  g.pitch = s.out_w + (s.kw - 1) * s.dilation_w / s.stride_w;
  g.phase_bytes = (g.rows + 1) * g.pitch + 64;
  g.phases = s.stride_h * s.stride_w;
  return g;
}
constexpr size_t kMaxDepthwiseS8Taps = 64;
inline bool ConvS8UsesDepthwisePlane(const Conv2dShape& s) {
  return s.group > 1 && s.group == s.in_c && s.group == s.out_c && s.stride_h <= 2 &&
         s.stride_w <= 2 && s.kh * s.kw <= kMaxDepthwiseS8Taps;
}
// The channels-innermost path of the same convs where a level has one (NEON:
// simd/conv2d_depthwise_s8_hwc_simd.h): undilated 3×3 windows, equal strides 1 or 2, at least
// kDepthwiseS8HwcMinChannels channels. Its scratch: each channel's bias and multiplier (int32)
// and right shift (int64), the weights as int16 [9][cp] and a ring of three padded input rows
// as int16 [3][pitch][cp], cp = channels rounded up to 8 (one int16x8 register of channels per
// pixel), pitch = the padded columns the outputs read.
constexpr size_t kDepthwiseS8HwcMinChannels = 8;
// At stride 1 the planes keep rows wider than this. Per op under qemu-aarch64, MobileNetV1-0.25
// VWW int8, channels-innermost against the planes: 48 × 48 × 8 147 K against 170 K instructions
// with sdot (251 K without), 24 × 24 × 32 146 K against 197 K (279 K); 12 × 12 × 64 and
// smaller, and DS-CNN's 25 × 5 × 64, lower still. Wider rows are unmeasured. x86 keeps its own,
// smaller limit in the kernel (simd/conv2d_depthwise_s8_hwc_simd.h); levels without the path
// (Cortex-M) run the planes in the plan's larger scratch (24 × 24 × 32: 6.1 KB against 0.8 KB).
// Stride 2 is faster channels-innermost at every width measured.
constexpr size_t kDepthwiseS8HwcMaxWidthStride1 = 48;
struct DepthwiseS8Hwc {
  size_t cp, pitch, weight_values, row_values;
};
inline bool ConvS8UsesDepthwiseHwc(const Conv2dShape& s) {
  return s.group > 1 && s.group == s.in_c && s.group == s.out_c &&
         s.in_c >= kDepthwiseS8HwcMinChannels && s.kh == 3 && s.kw == 3 && s.dilation_h == 1 &&
         s.dilation_w == 1 && s.stride_h == s.stride_w && s.stride_h <= 2 && s.out_w > 0 &&
         s.out_h > 0 && (s.stride_w == 2 || s.out_w <= kDepthwiseS8HwcMaxWidthStride1);
}
inline DepthwiseS8Hwc DepthwiseS8HwcGeometry(const Conv2dShape& s) {
  DepthwiseS8Hwc g;
  g.cp = (s.in_c + 7) / 8 * 8;
  g.pitch = (s.out_w - 1) * s.stride_w + 3;
  g.weight_values = 9 * g.cp;
  g.row_values = MulSat(g.pitch, g.cp);
  return g;
}
inline size_t ConvS8DepthwiseHwcBytes(const Conv2dShape& s) {
  const DepthwiseS8Hwc g = DepthwiseS8HwcGeometry(s);
  return AddSat(16 * g.cp,
                MulSat(AddSat(g.weight_values, MulSat(3, g.row_values)), sizeof(int16_t)));
}
// What the planes need (every level runs them: Prepare asks for no more, so a model planned
// before the channels-innermost path existed still runs); the plan gives the larger of the two
// (ConvS8ScratchBytes) and the kernel takes the channels-innermost path only where the op's
// scratch holds it (GemmS8Params::depthwise_scratch_bytes).
inline size_t ConvS8DepthwisePlaneBytes(const Conv2dShape& s) {
  const DepthwiseS8Planes g = DepthwiseS8PlaneGeometry(s);
  return g.phases * g.phase_bytes;
}

// ConvInt8 builds its int8 im2col a chunk of output rows at a time: a quarter of the image, at
// least kS8Im2colMinColumns columns, or more rows while a chunk stays under
// kS8Im2colChunkBytes. The int8 arena is then mostly the activations', not a whole image's
// im2col (ResNet-8's 32×32×16 3×3 convs: 147 KB → 37 KB). Not smaller: im2col has a fixed cost
// per tap and chunk (a few copies and fills), which one-row chunks of a 112-wide image paid 112
// times (ResNet-18 int8 15.7 → 22.3 ms), and a GEMM over a few columns (2 rows of a 7×7 image:
// 14) runs its row sums and partial panels for little work. 128 columns: ResNet-18 int8 within
// noise of whole images; 256 made ResNet-8's 16×16 layers whole (int8 arena 86,016 → 110,592 B).
constexpr size_t kS8Im2colChunkBytes = 32 * 1024;
constexpr size_t kS8Im2colChunksPerImage = 4;
constexpr size_t kS8Im2colMinColumns = 128;
inline size_t ConvS8Im2colRows(const Conv2dShape& s) {
  if (s.out_w == 0) return 1;
  const size_t per_row = MulSat(MulSat((s.in_c / s.group) * s.kh, s.kw), s.out_w);
  const size_t quarter = (s.out_h + kS8Im2colChunksPerImage - 1) / kS8Im2colChunksPerImage;
  const size_t min_rows = (kS8Im2colMinColumns + s.out_w - 1) / s.out_w;
  const size_t rows =
      std::max({quarter, min_rows, per_row == 0 ? s.out_h : kS8Im2colChunkBytes / per_row});
  return std::max<size_t>(1, std::min(rows, s.out_h));
}

// ConvInt8's scratch (ops/conv_int8.cc): the depthwise plane, or one chunk of the int8 im2col
// of one group of one image (one byte per entry); pointwise convs read their input in place.
inline size_t ConvS8ScratchBytes(const Conv2dShape& s) {
  if (ConvIsPointwise(s)) return 0;
  if (ConvS8UsesDepthwisePlane(s))
    return ConvS8UsesDepthwiseHwc(s)
               ? std::max(ConvS8DepthwisePlaneBytes(s), ConvS8DepthwiseHwcBytes(s))
               : ConvS8DepthwisePlaneBytes(s);
  return MulSat(MulSat(MulSat((s.in_c / s.group) * s.kh, s.kw), ConvS8Im2colRows(s)), s.out_w);
}

// Bytes of im2col buffer: one group of one image, [(in_c/group)·kh·kw × out_h·out_w] floats.
inline size_t ConvIm2colScratchBytes(const Conv2dShape& s) {
  const size_t rows = MulSat(MulSat(s.in_c / s.group, s.kh), s.kw);
  return MulSat(MulSat(rows, MulSat(s.out_h, s.out_w)), sizeof(float));
}

// A small output plane wastes much of the phase path's GEMM on junk columns: a 7×7 output of a
// 3×3 conv is 64 GEMM columns (61 rounded to whole registers) for 49 outputs. im2col's columns
// are exactly the outputs, so it is preferred when the junk exceeds a fifth of the columns and
// either its scratch is no larger than the phase path's (DS-CNN's 10×4 stride-2 first layer into
// 25×5: 20 vs 44 KB, 125 GEMM columns instead of 160 and no compaction; bench/README.md) or
// the reduction is deep enough for the GEMM to dominate (k ≥ 256: not a microcontroller's
// first layer) and its scratch is at most 4× the phase path's (ResNet-18's 7×7 layers: 903 vs
// 315 KB).
inline bool ConvPrefersIm2col(const Conv2dShape& s) {
  const ConvPhaseLayout l = MakeConvPhaseLayout(s);
  if (l.scratch_bytes == SIZE_MAX) return true;
  const size_t outputs = MulSat(s.out_h, s.out_w);
  if (MulSat(l.gemm_n, 4) <= MulSat(outputs, 5)) return false;
  const size_t im2col = ConvIm2colScratchBytes(s);
  return im2col <= l.scratch_bytes || (l.k >= 256 && im2col <= MulSat(l.scratch_bytes, 4));
}

// The scratch the compiler plans for a Conv: the phase-plane path (kernels/conv/conv_phase.h, no
// im2col) unless ConvPrefersIm2col. The runtime takes the phase path whenever the plan gives it
// enough scratch and not im2col's for a conv that prefers it, so models planned for either
// still run (older ones planned the phase path for every conv).
inline size_t ConvScratchBytes(const Conv2dShape& s) {
  if (ConvIsDepthwise(s) || ConvIsPointwise(s)) return 0;
  return ConvPrefersIm2col(s) ? ConvIm2colScratchBytes(s) : MakeConvPhaseLayout(s).scratch_bytes;
}

// A Conv with transposed weights (WeightPacking Transposed, ConvKmParams): the input plane the
// kernel reads, x_h × x_w per channel, padding included (the rows and columns its taps reach:
// (out − 1)·stride + (k − 1)·dilation + 1). A pointwise conv reads x in place (no scratch);
// others copy the padded input into scratch, 64-byte rounded.
inline void ConvKmPlane(const Conv2dShape& s, size_t* x_h, size_t* x_w) {
  *x_h = AddSat(AddSat(MulSat(s.out_h - 1, s.stride_h), MulSat(s.kh - 1, s.dilation_h)), 1);
  *x_w = AddSat(AddSat(MulSat(s.out_w - 1, s.stride_w), MulSat(s.kw - 1, s.dilation_w)), 1);
}
inline size_t ConvKmScratchBytes(const Conv2dShape& s) {
  if (ConvIsPointwise(s) || s.out_h == 0 || s.out_w == 0) return 0;
  size_t x_h = 0, x_w = 0;
  ConvKmPlane(s, &x_h, &x_w);
  return RoundUpSat(MulSat(MulSat(MulSat(s.in_c, x_h), x_w), sizeof(float)), 64);
}

// A Conv with a channel scale (input 3, s[in_c]; only pointwise, group 1) first writes the
// smaller of two scaled operands into its scratch, after the path's own scratch rounded up to 64
// bytes: W'[o, c] = W[o, c]·s[c] (out_c·in_c values: early layers, large images), or, when the
// image has fewer pixels than the conv has output channels, x'[c, j] = x[c, j]·s[c] (in_c·H·W
// per image: EfficientNet-B0's 1152 → 320 at 7² writes 56 K values instead of 369 K a run).
inline size_t ConvScaledWeightsOffsetBytes(const Conv2dShape& s) {
  return RoundUpSat(ConvScratchBytes(s), 64);
}

inline bool ConvChannelScaleScalesInput(const Conv2dShape& s) {
  return MulSat(s.in_h, s.in_w) < s.out_c;
}

// Scratch of a Conv with a channel scale: the path's scratch, then the scaled operand (saturating).
inline size_t ConvChannelScaleScratchBytes(const Conv2dShape& s) {
  const size_t values = ConvChannelScaleScalesInput(s) ? MulSat(s.in_c, MulSat(s.in_h, s.in_w))
                                                       : MulSat(s.out_c, s.in_c);
  return AddSat(ConvScaledWeightsOffsetBytes(s), MulSat(values, sizeof(float)));
}

// Grouped convs that are not depthwise (ResNeXt, RegNet) split their work by group over threads:
// each thread a contiguous range of whole groups, each group's GEMM whole on one thread (the
// same sums as one thread). Each thread then needs its own copy of the op's scratch (im2col's
// columns, phase planes): the compiler plans `slices` copies, each rounded up to 64 bytes
// (CompileOptions::threads), and the runtime splits by group over as many threads as the plan
// holds slices for. Pointwise grouped convs need no scratch and always split by group.
inline bool ConvSplitsByGroup(const Conv2dShape& s) { return s.group > 1 && !ConvIsDepthwise(s); }
inline size_t ConvScratchSliceBytes(size_t one_slice_bytes) {
  return RoundUpSat(one_slice_bytes, 64);
}
// The scratch planned for `threads`: one slice per thread, at most one per group.
inline size_t ConvGroupSlicedScratchBytes(size_t one_slice_bytes, size_t group, size_t threads) {
  const size_t slices = std::min(std::max<size_t>(1, threads), std::max<size_t>(1, group));
  if (slices <= 1 || one_slice_bytes == 0) return one_slice_bytes;
  return MulSat(ConvScratchSliceBytes(one_slice_bytes), slices);
}
// How many slices `scratch_bytes` holds (at least 1; SIZE_MAX when a slice is no bytes).
inline size_t ConvScratchSlicesHeld(size_t one_slice_bytes, size_t scratch_bytes) {
  if (one_slice_bytes == 0) return SIZE_MAX;
  const size_t slice = ConvScratchSliceBytes(one_slice_bytes);
  return slice == SIZE_MAX ? 1 : std::max<size_t>(1, scratch_bytes / slice);
}

}  // namespace edgefold::kernels
