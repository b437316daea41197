// Fused activations of the depthwise kernels as functors, so the per-register loop is compiled
// once per activation instead of switching on Activation::kind for every register. Each one
// computes exactly what ActBatch (simd_common.h) computes, operand order included (NaN kept).
// The costly kinds (sigmoid, SiLU, hard-swish, …) are not fused into the tap loop: the caller
// runs ActivationKernel over each channel's outputs right after they are written (still in
// cache); inlining ActBatch's exp into every loop copy made GCC outline it everywhere.
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

// True when act can be fused into the tap loop; otherwise it is applied after each channel.
inline bool DwActInline(const Activation& act) {
  return act.kind == ActKind::kNone || act.kind == ActKind::kRelu || act.kind == ActKind::kClip;
}

// Calls run(functor) with the functor for act (identity when !DwActInline(act)).
template <class Arch, class Run>
void DwWithActivation(const Activation& act, const Run& run) {
  using B = FBatch<Arch>;
  switch (act.kind) {
    case ActKind::kNone:
      return run(DwActNone<Arch>{});
    case ActKind::kRelu:
      return run(DwActRelu<Arch>{});
    case ActKind::kClip:
      return run(DwActClip<Arch>{B(act.alpha), B(act.beta)});
    default:
      return run(DwActNone<Arch>{});
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
