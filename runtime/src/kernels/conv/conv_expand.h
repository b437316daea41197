// A pointwise expansion fused into the depthwise conv that reads it (MobileNet-style inverted
// residuals: 1×1 expand → k×k depthwise). The expanded tensor t = act_e(We·x + be) is the
// block's largest (MobileNetV2's first: 96 × 112², 4.8 MB) and was written to memory by one op
// and read back by the next. Here it never exists whole: per band of depthwise output rows, the
// rows of t that band's windows need are computed into scratch and the depthwise kernel reads
// them there while they are in cache, writing its rows straight into y.
//   - scratch holds one slot of rows_cap rows per channel of t; rows the previous band already
//     computed (the window overlap, (kh − 1)·dh + 1 − sh rows) slide up, not recomputed;
//   - the expansion of a band is one GEMM (its B is x's rows in place, ldb = in_h·in_w);
//   - channels are independent end to end, so threads take ranges of them through every band
//     and the scratch is shared without a barrier per band.
// The compiler plans the scratch (ExpandBandRowsWithin a budget); the runtime reads the band
// height back from it (ExpandBandRowsFor), so both agree without a field in the model.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "kernels/conv_kernel_table.h"
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

struct ExpandBands {
  size_t out_rows = 0;       // depthwise output rows per band (the last band may have fewer)
  size_t rows_cap = 0;       // rows of t one band needs at most, ≤ in_h
  size_t scratch_bytes = 0;  // in_c · rows_cap · in_w floats; SIZE_MAX when that overflows
};

// The pointwise conv before the depthwise one: w [channels of t × in_c], bias [channels of t] or
// nullptr, and its activation.
struct PointwiseExpansion {
  const float* w = nullptr;
  const float* bias = nullptr;
  Activation act;
  size_t in_c = 0;
};

// s is the depthwise conv over t (s.in_c = channels of t). The fused form needs every band to
// read at least one row of t: padding smaller than the window's extent (kh − 1)·dh + 1.
bool ExpandFusable(const Conv2dShape& s);
ExpandBands MakeExpandBands(const Conv2dShape& s, size_t out_rows);
// The most output rows per band whose rows of t fit `bytes` (at least 1, at most out_h).
size_t ExpandBandRowsWithin(const Conv2dShape& s, size_t bytes);
// The most output rows per band a planned scratch of `bytes` holds; 0 when one row does not fit.
size_t ExpandBandRowsFor(const Conv2dShape& s, size_t bytes);

// One image, channels [c_begin, c_end) of t and y through every band: y = act(dwconv(t, w) +
// bias) with t = act_e(e.w·x + e.bias). x is [e.in_c, in_h, in_w], y [in_c, out_h, out_w];
// scratch: bands.scratch_bytes, shared by the callers of disjoint channel ranges.
void Conv2dExpandDepthwise(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                           const ExpandBands& bands, const PointwiseExpansion& e, const float* x,
                           const float* w, const float* bias, Activation act, float* y,
                           float* scratch, size_t c_begin, size_t c_end);

}  // namespace edgefold::kernels
