// Conv's paths (ops/conv.cc): what Prepare stores, what Eval reads, and one Prepare/Run pair
// per schedule, each in its own file: conv_winograd.cc, conv_expand.cc, conv_gemm.cc.
#pragma once
#include <cstdint>

#include "kernels/conv/conv_expand.h"
#include "kernels/conv/conv_phase.h"
#include "ops/op_kernel.h"

namespace edgefold::internal::conv {

enum class ConvPath : uint8_t {
  kDirect,
  kPhasePlanes,
  kIm2col,
  kWinograd23,
  kWinograd43,
  kExpandDepthwise,
  kTransposed
};

inline size_t WinogradTile(ConvPath path) { return path == ConvPath::kWinograd43 ? 4 : 2; }

struct ConvPrepared {
  kernels::Conv2dShape shape;  // kExpandDepthwise: the depthwise conv over t
  union {
    kernels::ConvPhaseLayout phase;  // kPhasePlanes
    kernels::ExpandBands bands;      // kExpandDepthwise
  };
  uint32_t batch;
  ConvPath path;       // kDirect: depthwise kernel or pointwise GEMM, no scratch
  bool channel_scale;  // input 3 present: scale W's columns into scratch first
  // Grouped, not depthwise, GEMM paths: the copies of one thread's scratch the plan holds
  // (kernels::ConvScratchSlicesHeld, capped at 65535; the cap when the path needs none), the
  // most threads the conv splits over by group; 0 on other paths.
  uint16_t group_slices;
  const kernels::ConvKernelTable* conv;  // depthwise and Winograd kernels of the level
};

// What every path reads at run time.
struct ConvIo {
  const float* x;
  const float* w;     // W, or W' = W·diag(s) in scratch (a channel scale on the weights)
  const float* bias;  // nullptr without input 2
  float* y;
  const float* scale;   // a channel scale on the image: s, and x' = x ⊙ s per image into
  float* scaled_input;  // scaled_input; else both nullptr
};

// out_h and out_w as the window options give them for in_h and in_w.
bool OutputFollowsWindow(const ConvOptions& o, const kernels::Conv2dShape& s);

// Sets the prepared data every path shares and returns it for the path's own part (the phase
// layout zeroed until then).
ConvPrepared& SetPrepared(OpContext& ctx, const kernels::Conv2dShape& s, ConvPath path,
                          bool channel_scale);

// kWinograd23 / kWinograd43 (conv_winograd.cc): weights stored as U = G·g·Gᵀ.
Status PrepareWinograd(OpContext& ctx, kernels::Conv2dShape s, ConvPath path);
void RunWinograd(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);

// kTransposed (conv_km.cc): W stored as Wᵀ [Cin, kh, kw, Cout], group 1.
Status PrepareTransposed(OpContext& ctx, kernels::Conv2dShape s);
void RunTransposed(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);

// kExpandDepthwise (conv_expand.cc): a depthwise conv over a fused pointwise expansion.
Status PrepareExpand(OpContext& ctx, kernels::Conv2dShape s);
void RunExpandDepthwise(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);

// kDirect, kPhasePlanes, kIm2col (conv_gemm.cc): the depthwise kernel, or a GEMM per group.
// GroupSlices: ConvPrepared::group_slices for the path and the plan's scratch.
uint16_t GroupSlices(const ConvPrepared& p, size_t scratch_bytes);
void RunDepthwise(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);
void RunGroupGemms(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);

}  // namespace edgefold::internal::conv
