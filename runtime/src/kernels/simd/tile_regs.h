// A register tile's accumulators as one member each, indexed at compile time.
//
// GCC keeps a local array of vector registers (B acc[MR][NV]) in memory when the function that
// holds it has more than one loop over it: the AVX-512 8 × 3 GEMM tile stored and reloaded all
// 24 accumulators before and after its k loop, as many memory operations as a k = 16 tile has
// FMAs (bench/README.md). A nest of structs indexed by template arguments is scalarized member
// by member, whatever the control flow around it.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

namespace edgefold::kernels {

template <class B, size_t N>
struct TileRegs {
  B head;
  TileRegs<B, N - 1> tail;
};
template <class B>
struct TileRegs<B, 0> {};

// Register I of the tile (row-major: I = r·NV + v).
template <size_t I, class B, size_t N>
[[gnu::always_inline]] inline B& TileReg(TileRegs<B, N>& regs) {
  static_assert(I < N, "register index out of the tile");
  if constexpr (I == 0)
    return regs.head;
  else
    return TileReg<I - 1>(regs.tail);
}

template <class F, size_t... I>
[[gnu::always_inline]] inline void UnrolledOver(F&& f, std::index_sequence<I...>) {
  (f(std::integral_constant<size_t, I>{}), ...);
}

// f(std::integral_constant<size_t, I>{}) for I = 0 … N − 1, in order. Callers mark f
// __attribute__((always_inline)): GCC at -O2 left nested lambdas of a 24-register tile as calls.
template <size_t N, class F>
[[gnu::always_inline]] inline void Unrolled(F&& f) {
  UnrolledOver(f, std::make_index_sequence<N>{});
}

}  // namespace edgefold::kernels
