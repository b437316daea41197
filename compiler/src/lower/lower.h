// IR → schema operators. Every op the schema supports is lowered here; anything else is an
// error "node 'X' (op 'LSTM'): unsupported op".
#pragma once
#include "ir/graph.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

// Which 3×3 stride-1 convs store Winograd filters (inference only): none; those wide enough to
// gain, each with the tile size that suits its plane (WinogradTileFor in lower_window_ops.cc);
// or those wide enough to gain, all with F(2×2, 3×3) or all with F(4×4, 3×3).
enum class WinogradMode { kOff, kAuto, kF2x3, kF4x3 };
// min_channels: Winograd only for convs with at least that many input and output channels.
// transposed_weights: pointwise convs over planes of few pixels store Wᵀ (TransposedPays
// in lower_window_ops.cc; inference only).
LoweredModel Lower(const ir::Graph& graph, WinogradMode winograd = WinogradMode::kOff,
                   size_t winograd_min_channels = 16, bool transposed_weights = false);

}  // namespace edgefold::compiler
