// Scratch a Conv needs, shared by the runtime (Prepare checks it) and the compiler (plans it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "kernels/conv_phase.h"
#include "kernels/kernel_params.h"

namespace edgefold::ops {

// Depthwise convs (group == in_c == out_c) run a direct kernel.
inline bool ConvIsDepthwise(const kernels::Conv2dShape& s) {
  return s.group == s.in_c && s.group == s.out_c && s.group > 1;
}

// 1×1, stride 1, no padding: the input already is the GEMM's B operand.
inline bool ConvIsPointwise(const kernels::Conv2dShape& s) {
  return s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
         s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
}

// Bytes of im2col buffer: one group of one image, [(in_c/group)·kh·kw × out_h·out_w] floats.
// Saturates at SIZE_MAX instead of wrapping (a hostile model's dims can overflow the
// product; no plan can then offer enough scratch).
inline size_t ConvIm2colScratchBytes(const kernels::Conv2dShape& s) {
  const size_t factors[] = {s.in_c / s.group, s.kh, s.kw, s.out_h, s.out_w, sizeof(float)};
  size_t bytes = 1;
  for (size_t f : factors) {
    if (f != 0 && bytes > SIZE_MAX / f) return SIZE_MAX;
    bytes *= f;
  }
  return bytes;
}

// The scratch the compiler plans for a Conv: the phase-plane path (kernels/conv_phase.h, no
// im2col) when its sizes fit, else im2col. The runtime takes the phase path whenever the plan
// gives it enough scratch, so models planned for im2col still run.
inline size_t ConvScratchBytes(const kernels::Conv2dShape& s) {
  if (ConvIsDepthwise(s) || ConvIsPointwise(s)) return 0;
  const size_t phase = kernels::MakeConvPhaseLayout(s).scratch_bytes;
  return phase != SIZE_MAX ? phase : ConvIm2colScratchBytes(s);
}

// A Conv with a channel scale (input 3, s[in_c]; only pointwise, group 1) first writes
// W'[o, c] = W[o, c]·s[c] into its scratch, after the path's own scratch rounded up to 64 bytes.
inline size_t ConvScaledWeightsOffsetBytes(const kernels::Conv2dShape& s) {
  const size_t path = ConvScratchBytes(s);
  return path > SIZE_MAX - 63 ? SIZE_MAX : (path + 63) / 64 * 64;
}

// Scratch of a Conv with a channel scale: the path's scratch, then out_c·in_c floats (saturating).
inline size_t ConvChannelScaleScratchBytes(const kernels::Conv2dShape& s) {
  const size_t offset = ConvScaledWeightsOffsetBytes(s);
  size_t weights = sizeof(float);
  for (size_t f : {s.out_c, s.in_c}) {
    if (f != 0 && weights > SIZE_MAX / f) return SIZE_MAX;
    weights *= f;
  }
  return offset > SIZE_MAX - weights ? SIZE_MAX : offset + weights;
}

}  // namespace edgefold::ops
