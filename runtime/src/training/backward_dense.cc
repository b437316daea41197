// Backward of the ops with parameters: Conv, Gemm, BatchNorm (training), ChannelAffine.
#include <cstring>

#include "ops/conv_scratch.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"
#include "training/backward_ops.h"

namespace edgefold::internal {
namespace {

void AddInto(float* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

}  // namespace

// y = W ∗ x + b per group g:  dW_g += dY_g·col_gᵀ,  db += Σ_hw dY,  dcol = W_gᵀ·dY_g → col2im.
void BackwardConv(Trainer::State& s, const OpDesc& op) {
  const TensorInfo& x = s.tensors[op.inputs[0]];
  const TensorInfo& w = s.tensors[op.inputs[1]];
  const TensorInfo& y = s.tensors[op.outputs[0]];
  const kernels::Conv2dShape sh = MakeConv2dShape(op.options.conv, x, w, y);
  float* dx = s.grads[op.inputs[0]];
  float* dw = s.grads[op.inputs[1]];
  float* db = (op.num_inputs > 2 && op.inputs[2] >= 0) ? s.grads[op.inputs[2]] : nullptr;
  const float* dy = s.grads[op.outputs[0]];
  const size_t hw = sh.out_h * sh.out_w, in_plane = sh.in_h * sh.in_w;
  const size_t cin_g = sh.in_c / sh.group, cout_g = sh.out_c / sh.group;
  const size_t k = cin_g * sh.kh * sh.kw;
  const size_t batch = static_cast<size_t>(x.shape[0]);
  const bool depthwise = ops::ConvIsDepthwise(sh), pointwise = ops::ConvIsPointwise(sh);
  for (size_t n = 0; n < batch; ++n) {
    const float* xn = x.data + n * sh.in_c * in_plane;
    const float* dyn = dy + n * sh.out_c * hw;
    float* dxn = dx ? dx + n * sh.in_c * in_plane : nullptr;
    if (db != nullptr)
      for (size_t c = 0; c < sh.out_c; ++c)
        for (size_t i = 0; i < hw; ++i) db[c] += dyn[c * hw + i];
    if (depthwise) {
      if (dxn != nullptr || dw != nullptr)
        s.tk->conv2d_depthwise_backward(sh, xn, w.data, dyn, dxn ? dxn : s.temp, dw);
      continue;
    }
    for (size_t g = 0; g < sh.group; ++g) {
      const float* xg = xn + g * cin_g * in_plane;
      const float* dyg = dyn + g * cout_g * hw;
      const float* wg = w.data + g * cout_g * k;
      if (dw != nullptr) {
        const float* col = xg;
        if (!pointwise) {
          s.k->im2col(sh, xg, s.col);
          col = s.col;
        }
        kernels::GemmParams p;
        p.m = cout_g; p.n = k; p.k = hw; p.lda = hw; p.ldb = hw; p.ldc = k; p.accumulate = true;
        s.tk->gemm_a_bt(p, dyg, col, dw + g * cout_g * k);
      }
      if (dxn == nullptr) continue;
      kernels::GemmParams p;
      p.m = k; p.n = hw; p.k = cout_g; p.lda = k; p.ldb = hw; p.ldc = hw;
      float* dxg = dxn + g * cin_g * in_plane;
      if (pointwise) {
        p.accumulate = true;
        s.tk->gemm_at_b(p, wg, dyg, dxg);
      } else {
        s.tk->gemm_at_b(p, wg, dyg, s.dcol);
        s.tk->col2im(sh, s.dcol, dxg);
      }
    }
  }
}

// Y[M,N] = X[M,K]·W[K,N] + b:  dX += dY·Wᵀ,  dW += Xᵀ·dY,  db += Σ_m dY.
void BackwardGemm(Trainer::State& s, const OpDesc& op) {
  const TensorInfo& x = s.tensors[op.inputs[0]];
  const TensorInfo& w = s.tensors[op.inputs[1]];
  const size_t kk = static_cast<size_t>(w.shape[0]), nn = static_cast<size_t>(w.shape[1]);
  const size_t mm = x.elems / kk;
  const float* dy = s.grads[op.outputs[0]];
  if (float* dx = s.grads[op.inputs[0]]) {
    kernels::GemmParams p;
    p.m = mm; p.n = kk; p.k = nn; p.lda = nn; p.ldb = nn; p.ldc = kk; p.accumulate = true;
    s.tk->gemm_a_bt(p, dy, w.data, dx);
  }
  if (float* dw = s.grads[op.inputs[1]]) {
    kernels::GemmParams p;
    p.m = kk; p.n = nn; p.k = mm; p.lda = kk; p.ldb = nn; p.ldc = nn; p.accumulate = true;
    s.tk->gemm_at_b(p, x.data, dy, dw);
  }
  if (op.num_inputs > 2 && op.inputs[2] >= 0)
    if (float* db = s.grads[op.inputs[2]])
      for (size_t i = 0; i < mm; ++i)
        for (size_t j = 0; j < nn; ++j) db[j] += dy[i * nn + j];
}

// Training-mode BN: the kernel overwrites dx, dγ, dβ; dx goes through temp so gradients
// arriving from other consumers of X are kept.
void BackwardBatchNorm(Trainer::State& s, const OpDesc& op, const BnState& bn) {
  const TensorInfo& x = s.tensors[op.inputs[0]];
  float* dx = s.grads[op.inputs[0]];
  s.tk->batchnorm_backward(s.grads[op.outputs[0]], bn.xhat, s.tensors[op.inputs[1]].data,
                           bn.inv_std, s.temp, s.grads[op.inputs[1]], s.grads[op.inputs[2]],
                           bn.batch, bn.channels, bn.spatial);
  if (dx != nullptr) AddInto(dx, s.temp, x.elems);
}

// y = x·scale[c] + shift[c]:  dx += dy·scale[c].
void BackwardChannelAffine(Trainer::State& s, const OpDesc& op) {
  float* dx = s.grads[op.inputs[0]];
  if (dx == nullptr) return;
  const TensorInfo& x = s.tensors[op.inputs[0]];
  const float* scale = s.tensors[op.inputs[1]].data;
  const float* dy = s.grads[op.outputs[0]];
  const size_t channels = static_cast<size_t>(x.shape[1]);
  const size_t spatial = DimProduct(x, 2, x.rank);
  for (size_t i = 0; i < x.elems; ++i) dx[i] += dy[i] * scale[(i / spatial) % channels];
}

}  // namespace edgefold::internal
