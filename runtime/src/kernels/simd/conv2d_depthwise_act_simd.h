// Fused activations of the depthwise kernels as functors, so the per-register loop is compiled
// once per activation instead of switching on Activation::kind for every register. Each one
// computes exactly what ActBatch (simd_common.h) computes, operand order included (NaN kept);
// DwActAny covers every other kind through ActBatch itself.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
struct DwActNone {
  FBatch<Arch> operator()(FBatch<Arch> x) const { return x; }
};

template <class Arch>
struct DwActRelu {
  FBatch<Arch> operator()(FBatch<Arch> x) const { return xsimd::max(FBatch<Arch>(0.0f), x); }
};

template <class Arch>
struct DwActClip {
  FBatch<Arch> lo, hi;
  FBatch<Arch> operator()(FBatch<Arch> x) const { return xsimd::min(hi, xsimd::max(lo, x)); }
};

template <class Arch>
struct DwActAny {
  const Activation* act;
  FBatch<Arch> operator()(FBatch<Arch> x) const { return ActBatch<Arch>(x, *act); }
};

// Calls run(functor) with the functor for act.
template <class Arch, class Run>
void DwWithActivation(const Activation& act, const Run& run) {
  using B = FBatch<Arch>;
  switch (act.kind) {
    case ActKind::kNone: return run(DwActNone<Arch>{});
    case ActKind::kRelu: return run(DwActRelu<Arch>{});
    case ActKind::kClip: return run(DwActClip<Arch>{B(act.alpha), B(act.beta)});
    default: return run(DwActAny<Arch>{&act});
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
