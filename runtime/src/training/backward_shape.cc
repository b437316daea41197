// Backward of the parameter-free ops: element-wise, broadcasting, data movement, pooling.
#include <cmath>
#include <cstring>

#include "ops/broadcast.h"
#include "ops/shape_util.h"
#include "ops/strided_views.h"
#include "ops/window_params.h"
#include "training/activation_grad.h"
#include "training/backward_ops.h"

namespace edgefold::internal {
namespace {

const TensorInfo& In(Trainer::State& s, const OpDesc& op, uint32_t i) {
  return s.tensors[op.inputs[i]];
}
float* DIn(Trainer::State& s, const OpDesc& op, uint32_t i) { return s.grads[op.inputs[i]]; }
const float* DOut(Trainer::State& s, const OpDesc& op) { return s.grads[op.outputs[0]]; }

}  // namespace

// dx += dy · act'(x)
void BackwardActivation(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& x = In(s, op, 0);
  const float* dy = DOut(s, op);
  for (size_t i = 0; i < x.elems; ++i) dx[i] += dy[i] * ActGradFromInput(op.options.act, x.data[i]);
}

// y = x ≥ 0 ? x : slope·x  (shared or per-channel slope; the slope is not trained)
void BackwardPRelu(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& x = In(s, op, 0);
  const TensorInfo& slope = In(s, op, 1);
  const float* dy = DOut(s, op);
  const size_t channels = (x.rank >= 2) ? static_cast<size_t>(x.shape[1]) : 1;
  const size_t spatial = DimProduct(x, 2, x.rank);
  for (size_t i = 0; i < x.elems; ++i) {
    const float a = (slope.elems == 1) ? slope.data[0] : slope.data[(i / spatial) % channels];
    dx[i] += dy[i] * (x.data[i] >= 0.0f ? 1.0f : a);
  }
}

// y = a op b with broadcasting: gradients are summed over the broadcast positions.
void BackwardBinary(Trainer::State& s, const OpDesc& op) {
  const TensorInfo& a = In(s, op, 0);
  const TensorInfo& b = In(s, op, 1);
  float* da = DIn(s, op, 0);
  float* db = DIn(s, op, 1);
  if (da == nullptr && db == nullptr) return;
  // The Binary op's Prepare already planned the broadcast; reuse it instead of replanning
  // every step.
  BroadcastPlan plan;
  std::memcpy(static_cast<void*>(&plan), op.prepared, sizeof(plan));
  const float* dy = DOut(s, op);
  const auto kind = op.options.binary.kind;
  const size_t sa = (plan.inner_mode == kernels::BroadcastMode::kScalarA) ? 0 : 1;
  const size_t sb = (plan.inner_mode == kernels::BroadcastMode::kScalarB) ? 0 : 1;
  ForEachInnerRun(plan, [&](size_t ao, size_t bo, size_t yo) {
    for (size_t i = 0; i < plan.inner; ++i) {
      const size_t ia = ao + i * sa, ib = bo + i * sb;
      const float g = dy[yo + i], va = a.data[ia], vb = b.data[ib];
      switch (kind) {
        case kernels::BinaryKind::kAdd:
          if (da) da[ia] += g;
          if (db) db[ib] += g;
          break;
        case kernels::BinaryKind::kSub:
          if (da) da[ia] += g;
          if (db) db[ib] -= g;
          break;
        case kernels::BinaryKind::kMul:
          if (da) da[ia] += g * vb;
          if (db) db[ib] += g * va;
          break;
        case kernels::BinaryKind::kDiv:
          if (da) da[ia] += g / vb;
          if (db) db[ib] -= g * va / (vb * vb);
          break;
        case kernels::BinaryKind::kMin:  // to the smaller operand; ties split evenly (PyTorch)
        case kernels::BinaryKind::kMax: {
          const bool a_wins = kind == kernels::BinaryKind::kMax ? va > vb : va < vb;
          const float ga = va == vb ? 0.5f * g : a_wins ? g : 0.0f;
          if (da) da[ia] += ga;
          if (db) db[ib] += g - ga;
          break;
        }
      }
    }
  });
}

void BackwardConcat(Trainer::State& s, const OpDesc& op) {
  const TensorInfo& y = s.tensors[op.outputs[0]];
  const int axis = op.options.axis.axis;
  const size_t outer = DimProduct(y, 0, axis), inner = DimProduct(y, axis + 1, y.rank);
  const size_t out_block = static_cast<size_t>(y.shape[axis]) * inner;
  const float* dy = DOut(s, op);
  size_t offset = 0;
  for (uint32_t i = 0; i < op.num_inputs; ++i) {
    const size_t block = static_cast<size_t>(In(s, op, i).shape[axis]) * inner;
    if (float* dx = DIn(s, op, i))
      for (size_t o = 0; o < outer; ++o)
        for (size_t j = 0; j < block; ++j) dx[o * block + j] += dy[o * out_block + offset + j];
    offset += block;
  }
}

void BackwardReshape(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const float* dy = DOut(s, op);
  for (size_t i = 0; i < In(s, op, 0).elems; ++i) dx[i] += dy[i];
}

// y[i_0..] = x[j] with j_{perm[d]} = i_d: dx[j] += dy[i].
// DepthToSpace / SpaceToDepth: the forward copy reversed (a permutation: every x element is
// read once, so accumulating dy into dx is the whole gradient).
void BackwardDepthSpace(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& x = In(s, op, 0);
  const TensorInfo& y = s.tensors[op.outputs[0]];
  const DepthSpaceOptions& o = op.options.depth_space;
  const kernels::StridedCopyParams forward = op.kind == OpKind::kDepthToSpace
                                                 ? DepthToSpaceCopy(x, y, o.blocksize, o.crd)
                                                 : SpaceToDepthCopy(x, y, o.blocksize);
  s.k->strided_copy(ReversedAccumulating(forward), DOut(s, op), dx);
}

void BackwardTranspose(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const kernels::StridedCopyParams forward =
      TransposeCopy(In(s, op, 0), s.tensors[op.outputs[0]], op.options.transpose.perm);
  s.k->strided_copy(ReversedAccumulating(forward), DOut(s, op), dx);
}

void BackwardPool(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& x = In(s, op, 0);
  const kernels::Pool2dParams p = MakePool2dParams(op.options.pool, x, s.tensors[op.outputs[0]]);
  s.tk->pool2d_backward(p, x.data, DOut(s, op), dx, DimProduct(x, 0, 2));
}

// Average: dx += dy/S. Max: dy goes to the first maximum of each plane.
void BackwardGlobalPool(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& x = In(s, op, 0);
  const size_t planes = DimProduct(x, 0, 2), spatial = DimProduct(x, 2, x.rank);
  const float* dy = DOut(s, op);
  for (size_t p = 0; p < planes; ++p) {
    const float* xp = x.data + p * spatial;
    float* dxp = dx + p * spatial;
    if (op.options.global_pool == kernels::PoolKind::kAverage) {
      const float g = dy[p] / static_cast<float>(spatial);
      for (size_t i = 0; i < spatial; ++i) dxp[i] += g;
    } else {
      size_t best = 0;
      for (size_t i = 1; i < spatial; ++i)
        if (xp[i] > xp[best]) best = i;
      dxp[best] += dy[p];
    }
  }
}

// Constant pad: dx is dy's interior.
void BackwardPad(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  size_t offset = 0;
  const kernels::StridedCopyParams forward =
      PadCopy(In(s, op, 0), s.tensors[op.outputs[0]], op.options.pad.pads, &offset);
  s.k->strided_copy(ReversedAccumulating(forward), DOut(s, op) + offset, dx);
}

// y = softmax(x) along the axis: dx = y ⊙ (dy − Σ_axis dy·y).
void BackwardSoftmax(Trainer::State& s, const OpDesc& op) {
  float* dx = DIn(s, op, 0);
  if (dx == nullptr) return;
  const TensorInfo& y = s.tensors[op.outputs[0]];
  int axis = op.options.axis.axis;
  if (axis < 0) axis += y.rank;
  const size_t outer = DimProduct(y, 0, axis), len = static_cast<size_t>(y.shape[axis]);
  const size_t inner = DimProduct(y, axis + 1, y.rank);
  const float* dy = DOut(s, op);
  for (size_t o = 0; o < outer; ++o)
    for (size_t in = 0; in < inner; ++in) {
      const size_t base = o * len * inner + in;
      double dot = 0;
      for (size_t j = 0; j < len; ++j)
        dot += double(dy[base + j * inner]) * y.data[base + j * inner];
      for (size_t j = 0; j < len; ++j) {
        const size_t i = base + j * inner;
        dx[i] += y.data[i] * (dy[i] - static_cast<float>(dot));
      }
    }
}

}  // namespace edgefold::internal
