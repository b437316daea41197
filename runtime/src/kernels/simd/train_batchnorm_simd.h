// BatchNorm training forward and backward, written once over the arch.
//
// Channel c is the batch rows x[(n·C + c)·S .. +S) for n < N, m = N·S samples. A channel is
// finished before the next starts, so its later passes usually re-read it from L2 (a channel
// of (32, ·, 56, 56) is 400 KB). Passes over memory:
//   forward : (1) Σx → μ₀   (2) Σd, Σd² with d = x − μ₀   (3) xhat = (x − μ₀)·inv_std − δ·inv_std
//             (δ = Σd/m), y = γ·xhat + β, one fused pass writing both
//   backward: (1) Σdy, Σdy·xhat   (2) dx = a·dy + (b·xhat + c0), a = γ·inv_std,
//             b = −a·dγ/m, c0 = −a·dβ/m   (= γ·inv_std/m · (m·dy − dβ − xhat·dγ))
// Rows shorter than one register (S < W, e.g. (N, C) inputs) take the scalar reference.
// Outputs of kStreamMinBytes or more (y, xhat, dx) are written with streaming stores
// (train_stream_store.h): on DRAM-bound shapes that saves the read-for-ownership traffic.
#pragma once
#include "kernels/simd/simd_common.h"
#include "kernels/simd/train_stream_store.h"
#include "kernels/train_reference.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Σ(x − shift) and Σ(x − shift)² over x[0..n), added to *sum_d and *sum_d2.
template <class Arch>
void BnRowCentred(const float* x, size_t n, float shift, float* sum_d, float* sum_d2) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B mu(shift);
  B d0(0.0f), d1(0.0f), q0(0.0f), q1(0.0f);
  size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const B a = B::load_unaligned(x + i) - mu;
    const B b = B::load_unaligned(x + i + W) - mu;
    d0 += a;
    d1 += b;
    q0 = xsimd::fma(a, a, q0);
    q1 = xsimd::fma(b, b, q1);
  }
  for (; i + W <= n; i += W) {
    const B a = B::load_unaligned(x + i) - mu;
    d0 += a;
    q0 = xsimd::fma(a, a, q0);
  }
  float sd = xsimd::hadd(d0 + d1), sq = xsimd::hadd(q0 + q1);
  for (; i < n; ++i) {
    const float d = x[i] - shift;
    sd += d;
    sq += d * d;
  }
  *sum_d += sd;
  *sum_d2 += sq;
}

// xhat = (x − μ₀)·inv_std − δ·inv_std (stored unless kSaveXhat is false), y = γ·xhat + β
// over one row; μ₀ and δ stay apart (see ref::BatchnormTrainForward). With `stream`, the
// first elements are written in scalar until y is register-aligned.
template <class Arch, bool kSaveXhat>
void BnRowNormalize(const float* x, size_t n, float mu0, float delta, float inv_std, float gamma,
                    float beta, float* y, float* xhat, bool stream) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B vm(mu0), vs(inv_std), vd(-delta * inv_std), vg(gamma), vb(beta);
  auto one = [&](size_t i) {
    const float h = ((x[i] - mu0) - delta) * inv_std;
    if constexpr (kSaveXhat) xhat[i] = h;
    y[i] = gamma * h + beta;
  };
  size_t i = 0;
  for (const size_t peel = StreamPeel<Arch>(y, n, stream); i < peel; ++i) one(i);
  for (; i + W <= n; i += W) {
    const B h = xsimd::fma(B::load_unaligned(x + i) - vm, vs, vd);
    if constexpr (kSaveXhat) StoreMaybeStream<Arch>(h, xhat + i, stream);
    StoreMaybeStream<Arch>(xsimd::fma(h, vg, vb), y + i, stream);
  }
  for (; i < n; ++i) one(i);
}

// See train_kernel_table.h (channel_moments).
template <class Arch>
void ChannelMoments(const float* x, const float* shift, float* sum_d, float* sum_d2,
                    size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    sum_d[c] = 0.0f;
    sum_d2[c] = 0.0f;
    BnRowCentred<Arch>(x + c * spatial, spatial, shift[c], &sum_d[c], &sum_d2[c]);
  }
}

// Channel c's μ₀, δ = Σd/m and biased variance, as ref::BatchnormTrainForward (rows of at
// least one register).
struct BnChannelStats {
  float mu0, delta, var;
};
template <class Arch>
BnChannelStats BnChannelStatistics(const float* x, size_t c, size_t batch, size_t channels,
                                   size_t spatial) {
  const float m = static_cast<float>(batch * spatial);
  float sum = 0.0f;
  for (size_t n = 0; n < batch; ++n) sum += RowSum<Arch>(x + (n * channels + c) * spatial, spatial);
  const float mu0 = sum / m;
  float sd = 0.0f, sd2 = 0.0f;
  for (size_t n = 0; n < batch; ++n)
    BnRowCentred<Arch>(x + (n * channels + c) * spatial, spatial, mu0, &sd, &sd2);
  return {mu0, sd / m, std::fmax((sd2 - sd * sd / m) / m, 0.0f)};
}

// See train_kernel_table.h (batchnorm_statistics).
template <class Arch>
void BatchnormStatistics(const float* x, float eps, float* mean, float* var, float* inv_std,
                         size_t batch, size_t channels, size_t spatial) {
  if (spatial < FBatch<Arch>::size)
    return ref::BatchnormStatistics(x, eps, mean, var, inv_std, batch, channels, spatial);
  for (size_t c = 0; c < channels; ++c) {
    const BnChannelStats st = BnChannelStatistics<Arch>(x, c, batch, channels, spatial);
    mean[c] = st.mu0 + st.delta;
    var[c] = st.var;
    inv_std[c] = 1.0f / std::sqrt(st.var + eps);
  }
}

// See train_kernel_table.h (batchnorm_normalize): BnRowNormalize with δ = 0.
template <class Arch>
void BatchnormNormalize(const float* x, const float* mean, const float* inv_std, const float* gamma,
                        const float* beta, float* y, float* xhat, size_t batch, size_t channels,
                        size_t spatial) {
  if (spatial < FBatch<Arch>::size)
    return ref::BatchnormNormalize(x, mean, inv_std, gamma, beta, y, xhat, batch, channels,
                                   spatial);
  const bool stream = batch * channels * spatial * sizeof(float) >= kStreamMinBytes;
  for (size_t n = 0; n < batch; ++n)
    for (size_t c = 0; c < channels; ++c) {
      const size_t off = (n * channels + c) * spatial;
      if (xhat != nullptr)
        BnRowNormalize<Arch, true>(x + off, spatial, mean[c], 0.0f, inv_std[c], gamma[c], beta[c],
                                   y + off, xhat + off, stream);
      else
        BnRowNormalize<Arch, false>(x + off, spatial, mean[c], 0.0f, inv_std[c], gamma[c], beta[c],
                                    y + off, nullptr, stream);
    }
  StreamFence<Arch>(stream);
}

// See train_kernel_table.h; statistics as ref::BatchnormTrainForward (corrected two-pass).
template <class Arch>
void BatchnormTrainForward(const float* x, const float* gamma, const float* beta, float eps,
                           float* y, float* xhat, float* mean, float* var, float* inv_std,
                           size_t batch, size_t channels, size_t spatial) {
  if (spatial < FBatch<Arch>::size)
    return ref::BatchnormTrainForward(x, gamma, beta, eps, y, xhat, mean, var, inv_std, batch,
                                      channels, spatial);
  const bool stream = batch * channels * spatial * sizeof(float) >= kStreamMinBytes;
  for (size_t c = 0; c < channels; ++c) {
    const BnChannelStats st = BnChannelStatistics<Arch>(x, c, batch, channels, spatial);
    const float mu0 = st.mu0, delta = st.delta;
    const float is = 1.0f / std::sqrt(st.var + eps);
    mean[c] = mu0 + delta;
    var[c] = st.var;
    inv_std[c] = is;
    for (size_t n = 0; n < batch; ++n) {
      const size_t off = (n * channels + c) * spatial;
      if (xhat != nullptr)
        BnRowNormalize<Arch, true>(x + off, spatial, mu0, delta, is, gamma[c], beta[c], y + off,
                                   xhat + off, stream);
      else
        BnRowNormalize<Arch, false>(x + off, spatial, mu0, delta, is, gamma[c], beta[c], y + off,
                                    nullptr, stream);
    }
  }
  StreamFence<Arch>(stream);
}

// Σdy and Σdy·xhat over one row, added to *sum_dy and *sum_dy_xhat.
template <class Arch>
void BnRowGradSums(const float* dy, const float* xhat, size_t n, float* sum_dy,
                   float* sum_dy_xhat) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  B s0(0.0f), s1(0.0f), p0(0.0f), p1(0.0f);
  size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const B g0 = B::load_unaligned(dy + i), g1 = B::load_unaligned(dy + i + W);
    s0 += g0;
    s1 += g1;
    p0 = xsimd::fma(g0, B::load_unaligned(xhat + i), p0);
    p1 = xsimd::fma(g1, B::load_unaligned(xhat + i + W), p1);
  }
  for (; i + W <= n; i += W) {
    const B g0 = B::load_unaligned(dy + i);
    s0 += g0;
    p0 = xsimd::fma(g0, B::load_unaligned(xhat + i), p0);
  }
  float s = xsimd::hadd(s0 + s1), p = xsimd::hadd(p0 + p1);
  for (; i < n; ++i) {
    s += dy[i];
    p += dy[i] * xhat[i];
  }
  *sum_dy += s;
  *sum_dy_xhat += p;
}

// dx = a·dy + (b·xhat + c0) over one row (streamed as BnRowNormalize).
template <class Arch>
void BnRowInputGrad(const float* dy, const float* xhat, size_t n, float a, float b, float c0,
                    float* dx, bool stream) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const B va(a), vb(b), vc(c0);
  size_t i = 0;
  for (const size_t peel = StreamPeel<Arch>(dx, n, stream); i < peel; ++i)
    dx[i] = a * dy[i] + (b * xhat[i] + c0);
  for (; i + W <= n; i += W) {
    const B t = xsimd::fma(B::load_unaligned(xhat + i), vb, vc);
    StoreMaybeStream<Arch>(xsimd::fma(B::load_unaligned(dy + i), va, t), dx + i, stream);
  }
  for (; i < n; ++i) dx[i] = a * dy[i] + (b * xhat[i] + c0);
}

// See train_kernel_table.h.
template <class Arch>
void BatchnormBackward(const float* dy, const float* xhat, const float* gamma, const float* inv_std,
                       float* dx, float* dgamma, float* dbeta, size_t batch, size_t channels,
                       size_t spatial) {
  if (spatial < FBatch<Arch>::size)
    return ref::BatchnormBackward(dy, xhat, gamma, inv_std, dx, dgamma, dbeta, batch, channels,
                                  spatial);
  const float m = static_cast<float>(batch * spatial);
  const bool stream = batch * channels * spatial * sizeof(float) >= kStreamMinBytes;
  for (size_t c = 0; c < channels; ++c) {
    float sdy = 0.0f, sdyx = 0.0f;
    for (size_t n = 0; n < batch; ++n) {
      const size_t off = (n * channels + c) * spatial;
      BnRowGradSums<Arch>(dy + off, xhat + off, spatial, &sdy, &sdyx);
    }
    dbeta[c] = sdy;
    dgamma[c] = sdyx;
    if (dx == nullptr) continue;
    const float a = gamma[c] * inv_std[c];
    const float b = -a * sdyx / m, c0 = -a * sdy / m;
    for (size_t n = 0; n < batch; ++n) {
      const size_t off = (n * channels + c) * spatial;
      BnRowInputGrad<Arch>(dy + off, xhat + off, spatial, a, b, c0, dx + off, stream);
    }
  }
  StreamFence<Arch>(stream);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
