// The convolution family: the depthwise convolution and the Winograd transforms, for one entry
// of kernels/isa_list.h (found as every family is, kernels/table_for.h). The convolutions' GEMMs
// and im2col are the float core's (kernel_table.h).
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct ConvKernelTable {
  // Depthwise conv (group == in_c == out_c) of one image: y = act(conv(x, w) + bias).
  // w is [c, 1, kh, kw]; bias may be nullptr.
  void (*conv2d_depthwise)(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                           Activation act, float* y);

  // Winograd transforms of one band (kernels/conv/conv_winograd.h), F(2×2, 3×3) (α = 4) and
  // F(4×4, 3×3) (α = 6): the input's column planes → V[α²][in_c][ld] = Bᵀ d B per tile;
  // M[α²][out_c][ld] → y = act(Aᵀ m A + bias) for the band's output rows (bias may be nullptr).
  void (*winograd23_input)(const WinogradGeometry& g, const float* planes, float* v);
  void (*winograd23_output)(const WinogradGeometry& g, const float* m, const float* bias,
                            Activation act, float* y);
  void (*winograd43_input)(const WinogradGeometry& g, const float* planes, float* v);
  void (*winograd43_output)(const WinogradGeometry& g, const float* m, const float* bias,
                            Activation act, float* y);

  // Depthwise conv of one image with channels innermost (DepthwiseHwcParams): the compiler's
  // NHWC tensors between transposed-weight convs and depthwise convs. nullptr on the Cortex-M
  // entries (their models are compiled without transposed weights, so never NHWC).
  void (*conv2d_depthwise_hwc)(const DepthwiseHwcParams& p, const float* x, const float* w,
                               float* y);
};

#define EDGEFOLD_DECLARE_CONV(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_ENTRY(ConvKernelTable, kConvTable, conv, tables, ns)
EDGEFOLD_DECLARE_FAMILY(ConvKernelTable, kConvTable, EDGEFOLD_DECLARE_CONV)
#undef EDGEFOLD_DECLARE_CONV

}  // namespace edgefold::kernels
