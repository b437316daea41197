// The sequence and resize family: recurrent gates, LayerNorm, Reduce and Resize (the kernels of
// speech, text and detection heads), for one entry of kernels/isa_list.h (found as every family
// is, kernels/table_for.h).
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct SequenceKernelTable {
  // LayerNorm of each row of x[rows × cols]: y = (x − mean)/√(var + eps)·scale[i] + bias[i]
  // (biased variance; bias may be null); mean and inv_std (1/√(var + eps)) per row when not null.
  void (*layer_norm)(const float* x, const float* scale, const float* bias, float eps, float* y,
                     float* mean, float* inv_std, size_t rows, size_t cols);

  // y[o,i] = reduce_a x[o,a,i] for x viewed as [outer, len, inner], see ReduceKind.
  void (*reduce)(ReduceKind kind, const float* x, float* y, size_t outer, size_t len, size_t inner);

  // Resize of `planes` planes, see ResizeParams.
  void (*resize2d)(const ResizeParams& p, const float* x, float* y, size_t planes);

  // Recurrent cells on one batch row of `hidden` units, gates in ONNX order, σ = sigmoid.
  // GRU: gx = x·Wᵀ + Wb and gh = h·Rᵀ + Rb, each [z | r | h̃] (3·hidden):
  //   z = σ(gx_z + gh_z), r = σ(gx_r + gh_r), h̃ = tanh(gx_h + (lbr ? r ⊙ gh_h : gh_h)),
  //   h ← h̃ + z ⊙ (h − h̃)   (= (1 − z) ⊙ h̃ + z ⊙ h)
  // Without linear_before_reset the op has made gh_h = (r ⊙ h)·Rhᵀ + Rbh (gru_reset_hidden).
  void (*gru_gates)(const float* gx, const float* gh, float* h, size_t hidden,
                    bool linear_before_reset);
  // rh = σ(gx_r + gh_r) ⊙ h, with gx_r, gh_r pointing at the r parts.
  void (*gru_reset_hidden)(const float* gx_r, const float* gh_r, const float* h, float* rh,
                           size_t hidden);
  // LSTM: g = x·Wᵀ + Wb + h·Rᵀ + Rb, [i | o | f | c̃] (4·hidden): i, o, f = σ(·), c̃ = tanh(·);
  //   c ← f ⊙ c + i ⊙ c̃, h ← o ⊙ tanh(c)
  void (*lstm_gates)(const float* g, float* c, float* h, size_t hidden);
};

#define EDGEFOLD_DECLARE_SEQUENCE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_ENTRY(SequenceKernelTable, kSequenceTable, sequence, tables, ns)
EDGEFOLD_DECLARE_FAMILY(SequenceKernelTable, kSequenceTable, EDGEFOLD_DECLARE_SEQUENCE)
#undef EDGEFOLD_DECLARE_SEQUENCE

}  // namespace edgefold::kernels
