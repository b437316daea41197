// GRU and LSTM gate math (contracts in kernel_table.h) on whole registers. The last
// hidden mod W units go through zero-padded stack registers with the same code, so every unit
// takes the same σ and tanh (no scalar tail with other rounding).
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// σ: SigmoidBatch (simd_common.h), as the Sigmoid activation computes it.

// Runs body(i, count, load, store) over [0, n) in register steps: load(p) reads the `count`
// units at p + i (zero-filled past count), store(v, p) writes them back.
template <class Arch, class Body>
inline void ForEachRegister(size_t n, Body body) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t i = 0;
  for (; i + W <= n; i += W) {
    body(
        i, [i](const float* p) { return B::load_unaligned(p + i); },
        [i](B v, float* p) { v.store_unaligned(p + i); });
  }
  if (i == n) return;
  const size_t rest = n - i;
  body(
      i,
      [i, rest](const float* p) {
        alignas(64) float t[B::size] = {};
        for (size_t k = 0; k < rest; ++k) t[k] = p[i + k];
        return B::load_aligned(t);
      },
      [i, rest](B v, float* p) {
        alignas(64) float t[B::size];
        v.store_aligned(t);
        for (size_t k = 0; k < rest; ++k) p[i + k] = t[k];
      });
}

template <class Arch>
void GruGates(const float* gx, const float* gh, float* h, size_t hidden, bool linear_before_reset) {
  using B = FBatch<Arch>;
  const size_t r = hidden, n = 2 * hidden;
  ForEachRegister<Arch>(hidden, [&](size_t, auto load, auto store) {
    const B z = SigmoidBatch<Arch>(load(gx) + load(gh));
    B hn = load(gh + n);
    if (linear_before_reset) hn = SigmoidBatch<Arch>(load(gx + r) + load(gh + r)) * hn;
    const B cand = Tanh<Arch>(load(gx + n) + hn);
    store(xsimd::fma(z, load(h) - cand, cand), h);
  });
}

template <class Arch>
void GruResetHidden(const float* gx_r, const float* gh_r, const float* h, float* rh,
                    size_t hidden) {
  ForEachRegister<Arch>(hidden, [&](size_t, auto load, auto store) {
    store(SigmoidBatch<Arch>(load(gx_r) + load(gh_r)) * load(h), rh);
  });
}

template <class Arch>
void LstmGates(const float* g, float* c, float* h, size_t hidden) {
  using B = FBatch<Arch>;
  ForEachRegister<Arch>(hidden, [&](size_t, auto load, auto store) {
    const B i = SigmoidBatch<Arch>(load(g)), o = SigmoidBatch<Arch>(load(g + hidden));
    const B f = SigmoidBatch<Arch>(load(g + 2 * hidden)), cand = Tanh<Arch>(load(g + 3 * hidden));
    const B cn = xsimd::fma(f, load(c), i * cand);
    store(cn, c);
    store(o * Tanh<Arch>(cn), h);
  });
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
