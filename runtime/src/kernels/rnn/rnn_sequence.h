// GRU and LSTM over a sequence, one direction at a time, through the kernel table:
//   1. the input projection of every time step as ONE GEMM, P = X·Wᵀ + Wb  [S·B × G·H];
//   2. per step (backwards for the reverse direction) a small GEMM with Rᵀ on the previous h
//      and the gate math of kernel_table.h (gru_gates / lstm_gates).
// Weights come packed by the compiler as the GEMMs' B operands (schema RnnOptions):
// Wᵀ [I × G·H], Rᵀ [H × G·H], bias [2 × G·H] (x side Wb, then h side Rb); G = 3 (GRU z r h) or
// 4 (LSTM i o f c). The scratch (RnnScratchBytes) is planned by the compiler; nothing else
// is allocated.
#pragma once
#include <cstddef>

#include "base/size_math.h"
#include "kernels/kernel_table.h"
#include "kernels/sequence_kernel_table.h"

namespace edgefold::kernels {

struct RnnShape {
  size_t seq = 0, batch = 0, input = 0, hidden = 0;
  bool lstm = false;
  bool linear_before_reset = false;  // GRU only
  size_t gates() const { return lstm ? 4 : 3; }
};

// Scratch in floats, in this order: P [S·B·G·H], gh [B·G·H] (GRU: h·Rᵀ + Rb), rh [B·H] (GRU
// without linear_before_reset: r ⊙ h), c [B·H] (LSTM cell state). Saturating.
inline size_t RnnScratchFloats(const RnnShape& s) {
  const size_t row = MulSat(s.batch, MulSat(s.gates(), s.hidden));  // B·G·H
  const size_t bh = MulSat(s.batch, s.hidden);
  size_t n = MulSat(s.seq, row);
  if (!s.lstm) n = AddSat(n, row);
  if (!s.lstm && !s.linear_before_reset) n = AddSat(n, bh);
  if (s.lstm) n = AddSat(n, bh);
  return n;
}
inline size_t RnnScratchBytes(const RnnShape& s) {
  return MulSat(RnnScratchFloats(s), sizeof(float));
}

// One direction. The hidden state lives in h (the op's Y_h rows of this direction, [B, H]).
struct RnnDirectionIo {
  const float* x = nullptr;     // [S, B, I]
  const float* w_t = nullptr;   // [I, G·H]
  const float* r_t = nullptr;   // [H, G·H]
  const float* bias = nullptr;  // [2, G·H]
  const float* h0 = nullptr;    // [B, H] or nullptr (zeros)
  const float* c0 = nullptr;    // [B, H] or nullptr (zeros), LSTM
  bool reverse = false;         // run t = S−1 … 0
  float* y = nullptr;           // h of step t written at y + t·y_step ([B, H]), or nullptr
  size_t y_step = 0;
  float* h = nullptr;  // [B, H]: the final hidden state
  float* c = nullptr;  // [B, H] or nullptr: the final cell state (LSTM)
};

// scratch: RnnScratchBytes(s) bytes, float-aligned.
void RnnRunDirection(const KernelTable& t, const SequenceKernelTable& st, const RnnShape& s,
                     const RnnDirectionIo& io, float* scratch);

}  // namespace edgefold::kernels
