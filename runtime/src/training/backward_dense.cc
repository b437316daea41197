// Backward of the ops with parameters: Conv, Gemm, BatchNorm (training), ChannelAffine.
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"
#include "training/activation_grad.h"
#include "training/backward_ops.h"
#include "training/saved_precision.h"

namespace edgefold::internal {
namespace {

void AddInto(float* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

// One group g of one image, from the group's input x_g, weights W_g and output gradient dY_g:
//   dW_g += dY_g·col_gᵀ (col_g = im2col(x_g), or x_g itself for a pointwise conv)
//   dx_g  = col2im(W_gᵀ·dY_g) (pointwise: dx_g += W_gᵀ·dY_g)
struct ConvGroupGrads {
  const float* x;
  const float* w;
  const float* dy;
  float* dx;  // nullptr: x needs no gradient
  float* dw;  // nullptr: W is not trained
};

void BackwardConvGroup(Trainer::State& s, const kernels::Conv2dShape& sh, const ConvGroupGrads& g) {
  const size_t hw = sh.out_h * sh.out_w, cout_g = sh.out_c / sh.group;
  const size_t k = sh.in_c / sh.group * sh.kh * sh.kw;
  const bool pointwise = kernels::ConvIsPointwise(sh);
  if (g.dw != nullptr) {
    const float* col = g.x;
    if (!pointwise) {
      s.k->im2col(sh, g.x, s.col);
      col = s.col;
    }
    kernels::GemmParams p;
    p.m = cout_g;
    p.n = k;
    p.k = hw;
    p.lda = hw;
    p.ldb = hw;
    p.ldc = k;
    p.accumulate = true;
    s.tk->gemm_a_bt(p, g.dy, col, g.dw);
  }
  if (g.dx == nullptr) return;
  kernels::GemmParams p;
  p.m = k;
  p.n = hw;
  p.k = cout_g;
  p.lda = k;
  p.ldb = hw;
  p.ldc = hw;
  if (pointwise) {
    p.accumulate = true;
    s.tk->gemm_at_b(p, g.w, g.dy, g.dx);
  } else {
    s.tk->gemm_at_b(p, g.w, g.dy, s.dcol);
    s.tk->col2im(sh, s.dcol, g.dx);
  }
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
  for (size_t n = 0; n < batch; ++n) {
    const float* xn = x.data + n * sh.in_c * in_plane;
    const float* dyn = dy + n * sh.out_c * hw;
    float* dxn = dx ? dx + n * sh.in_c * in_plane : nullptr;
    if (db != nullptr)
      for (size_t c = 0; c < sh.out_c; ++c)
        for (size_t i = 0; i < hw; ++i) db[c] += dyn[c * hw + i];
    if (kernels::ConvIsDepthwise(sh)) {
      if (dxn != nullptr || dw != nullptr)
        s.tk->conv2d_depthwise_backward(sh, xn, w.data, dyn, dxn ? dxn : s.temp, dw);
      continue;
    }
    for (size_t g = 0; g < sh.group; ++g)
      BackwardConvGroup(
          s, sh,
          {xn + g * cin_g * in_plane, w.data + g * cout_g * k, dyn + g * cout_g * hw,
           dxn ? dxn + g * cin_g * in_plane : nullptr, dw ? dw + g * cout_g * k : nullptr});
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
    p.m = mm;
    p.n = kk;
    p.k = nn;
    p.lda = nn;
    p.ldb = nn;
    p.ldc = kk;
    p.accumulate = true;
    s.tk->gemm_a_bt(p, dy, w.data, dx);
  }
  if (float* dw = s.grads[op.inputs[1]]) {
    kernels::GemmParams p;
    p.m = kk;
    p.n = nn;
    p.k = mm;
    p.lda = kk;
    p.ldb = nn;
    p.ldc = nn;
    p.accumulate = true;
    s.tk->gemm_at_b(p, x.data, dy, dw);
  }
  if (op.num_inputs > 2 && op.inputs[2] >= 0)
    if (float* db = s.grads[op.inputs[2]])
      for (size_t i = 0; i < mm; ++i)
        for (size_t j = 0; j < nn; ++j) db[j] += dy[i * nn + j];
}

// Training-mode BN: the kernel overwrites dx, dγ, dβ; dx goes through temp so gradients
// arriving from other consumers of X are kept.
// A fused activation y = act(z), z = γ·x̂ + β: dz = dy·act'(z), with z recomputed from the
// saved x̂ so the BN's output need not be kept for the backward.
namespace {

// x̂ kept in 16 bits (saved_precision.h): one scalar pass per channel reads it as it goes, so no
// float32 copy is needed and dx may sit over dy (GradientShare). Batch statistics as the
// kernel (train_kernel_table.h), frozen ones as below; dx overwritten when it is this BN's
// alone (over dy, or the BN is x's only reader), else added.
void BackwardBatchNormSaved16(Trainer::State& s, const OpDesc& op, const BnState& bn) {
  const SavedPrecision precision = static_cast<SavedPrecision>(s.summary.saved_precision);
  const auto xhat = [&](size_t i) {
    return precision == SavedPrecision::kFloat16 ? HalfToFloat(bn.xhat16[i])
                                                 : BFloat16ToFloat(bn.xhat16[i]);
  };
  float* dy = s.grads[op.outputs[0]];
  float* dx = s.grads[op.inputs[0]];
  const bool overwrite = dx == dy || bn.dx_direct;
  const float* gamma = s.tensors[op.inputs[1]].data;
  const float* beta = s.tensors[op.inputs[2]].data;
  const kernels::Activation& act = op.options.batchnorm.act;
  float* dgamma = s.grads[op.inputs[1]] ? s.grads[op.inputs[1]] : bn.frozen_dparams;
  float* dbeta = s.grads[op.inputs[2]]
                     ? s.grads[op.inputs[2]]
                     : (bn.frozen_dparams ? bn.frozen_dparams + bn.channels : nullptr);
  const float m = static_cast<float>(bn.batch * bn.spatial);
  for (size_t c = 0; c < bn.channels; ++c) {
    float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
    for (size_t n = 0; n < bn.batch; ++n)
      for (size_t i = (n * bn.channels + c) * bn.spatial, e = i + bn.spatial; i < e; ++i) {
        const float h = xhat(i);
        if (act.kind != kernels::ActKind::kNone)
          dy[i] *= ActGradFromInput(act, gamma[c] * h + beta[c]);
        sum_dy += dy[i];
        sum_dy_xhat += dy[i] * h;
      }
    const float a = gamma[c] * bn.inv_std[c];
    float b = 0.0f, c0 = 0.0f;  // frozen statistics: dx = a·dy
    if (s.frozen_stats) {
      if (dbeta != nullptr) dbeta[c] += sum_dy;  // accumulated over the step's runs
      if (dgamma != nullptr) dgamma[c] += sum_dy_xhat;
    } else {
      dbeta[c] = sum_dy;
      dgamma[c] = sum_dy_xhat;
      b = -a * sum_dy_xhat / m;
      c0 = -a * sum_dy / m;
    }
    if (dx == nullptr) continue;
    for (size_t n = 0; n < bn.batch; ++n)
      for (size_t i = (n * bn.channels + c) * bn.spatial, e = i + bn.spatial; i < e; ++i) {
        const float v = a * dy[i] + (b * xhat(i) + c0);
        dx[i] = overwrite ? v : dx[i] + v;
      }
  }
}

}  // namespace

void BackwardBatchNorm(Trainer::State& s, const OpDesc& op, const BnState& bn) {
  if (bn.xhat16 != nullptr) return BackwardBatchNormSaved16(s, op, bn);
  const float* xhat = bn.xhat;
  const TensorInfo& x = s.tensors[op.inputs[0]];
  float* dx = s.grads[op.inputs[0]];
  const kernels::Activation& act = op.options.batchnorm.act;
  if (act.kind != kernels::ActKind::kNone) {
    float* dy = s.grads[op.outputs[0]];
    const float* gamma = s.tensors[op.inputs[1]].data;
    const float* beta = s.tensors[op.inputs[2]].data;
    for (size_t n = 0; n < bn.batch; ++n)
      for (size_t c = 0; c < bn.channels; ++c) {
        const size_t base = (n * bn.channels + c) * bn.spatial;
        for (size_t i = base; i < base + bn.spatial; ++i)
          dy[i] *= ActGradFromInput(act, gamma[c] * xhat[i] + beta[c]);
      }
  }
  if (s.frozen_stats) {  // eval form: y = γ·x̂ + β with fixed statistics, so dx = dy·γ·inv_std
    const float* gamma = s.tensors[op.inputs[1]].data;
    const float* dy = s.grads[op.outputs[0]];
    float* dgamma = s.grads[op.inputs[1]];
    float* dbeta = s.grads[op.inputs[2]];
    for (size_t n = 0; n < bn.batch; ++n)
      for (size_t c = 0; c < bn.channels; ++c) {
        const size_t base = (n * bn.channels + c) * bn.spatial;
        float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
        const float k = gamma[c] * bn.inv_std[c];
        for (size_t i = base; i < base + bn.spatial; ++i) {
          sum_dy += dy[i];
          sum_dy_xhat += dy[i] * xhat[i];
          if (dx == dy)
            dx[i] = dy[i] * k;  // dx over dy (GradientShare): overwrite
          else if (dx != nullptr)
            dx[i] += dy[i] * k;
        }
        if (dbeta != nullptr) dbeta[c] += sum_dy;  // accumulated over the step's runs
        if (dgamma != nullptr) dgamma[c] += sum_dy_xhat;
      }
    return;
  }
  float* dgamma = s.grads[op.inputs[1]] ? s.grads[op.inputs[1]] : bn.frozen_dparams;
  float* dbeta = s.grads[op.inputs[2]] ? s.grads[op.inputs[2]] : bn.frozen_dparams + bn.channels;
  // dx straight into its gradient when the BN is x's only reader (nothing else adds to it).
  float* out = (dx == nullptr || bn.dx_direct) ? dx : s.temp;
  s.tk->batchnorm_backward(s.grads[op.outputs[0]], xhat, s.tensors[op.inputs[1]].data, bn.inv_std,
                           out, dgamma, dbeta, bn.batch, bn.channels, bn.spatial);
  if (out == s.temp) AddInto(dx, s.temp, x.elems);
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
