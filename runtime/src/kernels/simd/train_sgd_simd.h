// SGD with momentum and weight decay over one flat parameter buffer, written once over the arch.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// g' = g + wd·p,  v = momentum·v + g',  p = p − lr·v   (as ref::SgdMomentum)
template <class Arch>
void SgdMomentum(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                 float weight_decay) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B vlr(lr), vmom(momentum), vwd(weight_decay);
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const B pi = B::load_unaligned(p + i);
    const B gi = xsimd::fma(vwd, pi, B::load_unaligned(g + i));
    const B vi = xsimd::fma(vmom, B::load_unaligned(v + i), gi);
    vi.store_unaligned(v + i);
    xsimd::fnma(vlr, vi, pi).store_unaligned(p + i);
  }
  for (; i < n; ++i) {
    const float gi = g[i] + weight_decay * p[i];
    v[i] = momentum * v[i] + gi;
    p[i] -= lr * v[i];
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
