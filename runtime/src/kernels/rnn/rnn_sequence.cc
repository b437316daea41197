#include "kernels/rnn/rnn_sequence.h"

#include <cstring>

namespace edgefold::kernels {
namespace {

// C[m × n] = (accumulate ? C : 0) + A[m × k]·B[k × n] + bias[n], B rows ldb apart, C rows ldc apart.
void Gemm(const KernelTable& t, size_t m, size_t n, size_t k, const float* a, size_t lda,
          const float* b, size_t ldb, const float* bias, bool accumulate, float* c, size_t ldc) {
  GemmParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  p.bias = bias;
  p.accumulate = accumulate;
  t.gemm(p, a, b, c);
}

// One GRU step: gx [B × 3H] (this step's rows of P), h [B × H] updated in place.
void GruStep(const KernelTable& t, const SequenceKernelTable& st, const RnnShape& s,
             const RnnDirectionIo& io, const float* gx, float* gh, float* rh, float* h) {
  const size_t H = s.hidden, GH = 3 * H, B = s.batch;
  const float* bias_h = io.bias + GH;
  if (s.linear_before_reset) {
    Gemm(t, B, GH, H, h, H, io.r_t, GH, bias_h, false, gh, GH);
  } else {
    // z and r parts first, then h̃'s part from r ⊙ h: (r ⊙ h)·Rhᵀ + Rbh.
    Gemm(t, B, 2 * H, H, h, H, io.r_t, GH, bias_h, false, gh, GH);
    for (size_t b = 0; b < B; ++b)
      st.gru_reset_hidden(gx + b * GH + H, gh + b * GH + H, h + b * H, rh + b * H, H);
    Gemm(t, B, H, H, rh, H, io.r_t + 2 * H, GH, bias_h + 2 * H, false, gh + 2 * H, GH);
  }
  for (size_t b = 0; b < B; ++b)
    st.gru_gates(gx + b * GH, gh + b * GH, h + b * H, H, s.linear_before_reset);
}

// One LSTM step: g [B × 4H] += h·Rᵀ + Rb in place, then the gates update c and h.
void LstmStep(const KernelTable& t, const SequenceKernelTable& st, const RnnShape& s,
              const RnnDirectionIo& io, float* g, float* c, float* h) {
  const size_t H = s.hidden, GH = 4 * H, B = s.batch;
  Gemm(t, B, GH, H, h, H, io.r_t, GH, io.bias + GH, true, g, GH);
  for (size_t b = 0; b < B; ++b) st.lstm_gates(g + b * GH, c + b * H, h + b * H, H);
}

}  // namespace

void RnnRunDirection(const KernelTable& t, const SequenceKernelTable& st, const RnnShape& s,
                     const RnnDirectionIo& io, float* scratch) {
  const size_t H = s.hidden, GH = s.gates() * H, B = s.batch, bh = B * H;
  float* proj = scratch;
  float* gh = proj + s.seq * B * GH;                           // GRU
  float* rh = gh + (s.lstm ? 0 : B * GH);                      // GRU without linear_before_reset
  float* c = rh + (s.lstm || s.linear_before_reset ? 0 : bh);  // LSTM
  Gemm(t, s.seq * B, GH, s.input, io.x, s.input, io.w_t, GH, io.bias, false, proj, GH);
  if (io.h0 != nullptr)
    std::memcpy(io.h, io.h0, bh * sizeof(float));
  else
    std::memset(io.h, 0, bh * sizeof(float));
  if (s.lstm) {
    if (io.c0 != nullptr)
      std::memcpy(c, io.c0, bh * sizeof(float));
    else
      std::memset(c, 0, bh * sizeof(float));
  }
  for (size_t step = 0; step < s.seq; ++step) {
    const size_t ti = io.reverse ? s.seq - 1 - step : step;
    float* gx = proj + ti * B * GH;
    if (s.lstm)
      LstmStep(t, st, s, io, gx, c, io.h);
    else
      GruStep(t, st, s, io, gx, gh, rh, io.h);
    if (io.y != nullptr) std::memcpy(io.y + ti * io.y_step, io.h, bh * sizeof(float));
  }
  if (s.lstm && io.c != nullptr) std::memcpy(io.c, c, bh * sizeof(float));
}

}  // namespace edgefold::kernels
