// ReduceMean/Sum/Max/SumSquare along the middle axis of x viewed as [outer, len, inner]
// (ops/reduce.cc). inner = 1 reduces contiguous rows (four accumulators, one horizontal merge);
// inner > 1 folds the len rows of `inner` values one after the other into y's row, so both
// reads and writes stream contiguously whichever axis is reduced.
#pragma once
#include "kernels/simd/elementwise_simd.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// acc ⊕ v for one kind (valid for float and FBatch), and the merge of two partial results.
struct ReduceSumOp {
  template <class T>
  T operator()(T acc, T v) const {
    return acc + v;
  }
  template <class T>
  T Merge(T a, T b) const {
    return a + b;
  }
};
struct ReduceSumSquareOp {
  template <class T>
  T operator()(T acc, T v) const {
    return acc + v * v;
  }
  template <class T>
  T Merge(T a, T b) const {
    return a + b;
  }
};
struct ReduceMaxOp {  // NaN propagates (MaxNan), as numpy's max
  template <class T>
  T operator()(T acc, T v) const {
    return MaxNan(acc, v);
  }
  template <class T>
  T Merge(T a, T b) const {
    return MaxNan(a, b);
  }
};

// ⊕ over x[0..n), starting from `init` (the kind's identity).
template <class Arch, class Op>
float ReduceRow(const float* x, size_t n, float init, Op op) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B a0(init), a1(init), a2(init), a3(init);
  size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    a0 = op(a0, B::load_unaligned(x + i));
    a1 = op(a1, B::load_unaligned(x + i + W));
    a2 = op(a2, B::load_unaligned(x + i + 2 * W));
    a3 = op(a3, B::load_unaligned(x + i + 3 * W));
  }
  for (; i + W <= n; i += W) a0 = op(a0, B::load_unaligned(x + i));
  alignas(64) float lanes[W];
  op.Merge(op.Merge(a0, a1), op.Merge(a2, a3)).store_aligned(lanes);
  float r = lanes[0];
  for (size_t l = 1; l < W; ++l) r = op.Merge(r, lanes[l]);
  for (; i < n; ++i) r = op(r, x[i]);
  return r;
}

// y[0..inner) = ⊕_a x[a·inner + i], row after row.
template <class Arch, class Op>
void ReduceColumns(const float* x, float* y, size_t len, size_t inner, float init, Op op) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  std::fill(y, y + inner, init);
  for (size_t a = 0; a < len; ++a) {
    const float* xa = x + a * inner;
    size_t i = 0;
    for (; i + W <= inner; i += W)
      op(B::load_unaligned(y + i), B::load_unaligned(xa + i)).store_unaligned(y + i);
    for (; i < inner; ++i) y[i] = op(y[i], xa[i]);
  }
}

template <class Arch, class Op>
void ReduceWith(Op op, float init, const float* x, float* y, size_t outer, size_t len,
                size_t inner) {
  for (size_t o = 0; o < outer; ++o) {
    if (inner == 1)
      y[o] = ReduceRow<Arch>(x + o * len, len, init, op);
    else
      ReduceColumns<Arch>(x + o * len * inner, y + o * inner, len, inner, init, op);
  }
}

// y[o,i] = ⊕_a x[o,a,i], see ReduceKind.
template <class Arch>
void ReduceAxis(ReduceKind kind, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  switch (kind) {
    case ReduceKind::kMax:
      ReduceWith<Arch>(ReduceMaxOp(), -INFINITY, x, y, outer, len, inner);
      return;
    case ReduceKind::kSumSquare:
      ReduceWith<Arch>(ReduceSumSquareOp(), 0.0f, x, y, outer, len, inner);
      return;
    case ReduceKind::kSum:
      ReduceWith<Arch>(ReduceSumOp(), 0.0f, x, y, outer, len, inner);
      return;
    case ReduceKind::kMean: {
      ReduceWith<Arch>(ReduceSumOp(), 0.0f, x, y, outer, len, inner);
      const float inv = 1.0f / static_cast<float>(len);  // len = 0: 0·∞ = NaN, the empty mean
      Binary<Arch>(BinaryKind::kMul, BroadcastMode::kScalarB, y, &inv, y, outer * inner,
                   Activation());
      return;
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
