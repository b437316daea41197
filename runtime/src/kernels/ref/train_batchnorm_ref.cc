#include <cmath>

#include "kernels/train_reference.h"

namespace edgefold::kernels::ref {
namespace {

// Compensated (Kahan) float sum: error ~2 ulp whatever the count, so the reference stays exact
// enough for m in the millions without double arithmetic (soft-float on Cortex-M4).
struct KahanSum {
  float sum = 0.0f, comp = 0.0f;
  void Add(float v) {
    const float yv = v - comp;
    const float t = sum + yv;
    comp = (t - sum) - yv;
    sum = t;
  }
};

// Σ over the m = batch·spatial samples of channel c of f(x), x at (n·C + c)·S + s.
template <class F>
float ChannelSum(const float* x, size_t c, size_t batch, size_t channels, size_t spatial, F f) {
  KahanSum sum;
  for (size_t n = 0; n < batch; ++n) {
    const float* row = x + (n * channels + c) * spatial;
    for (size_t s = 0; s < spatial; ++s) sum.Add(f(row[s]));
  }
  return sum.sum;
}

// Channel c's statistics (see BatchnormTrainForward): μ₀, δ = Σd/m and the biased variance.
struct ChannelStats {
  float mu0, delta, var;
};
ChannelStats ChannelStatistics(const float* x, size_t c, size_t batch, size_t channels,
                               size_t spatial) {
  const float m = static_cast<float>(batch * spatial);
  const float mu0 = ChannelSum(x, c, batch, channels, spatial, [](float v) { return v; }) / m;
  const float sd = ChannelSum(x, c, batch, channels, spatial, [mu0](float v) { return v - mu0; });
  const float sd2 =
      ChannelSum(x, c, batch, channels, spatial, [mu0](float v) { return (v - mu0) * (v - mu0); });
  return {mu0, sd / m, std::fmax((sd2 - sd * sd / m) / m, 0.0f)};
}

}  // namespace

// Corrected two-pass statistics (Chan, Golub & LeVeque 1983), per channel:
//   μ₀ = Σx/m;  d = x − μ₀;  mean = μ₀ + Σd/m;  var = (Σd² − (Σd)²/m)/m  (biased)
// Σd/m repairs the rounding error of μ₀, so a large mean (1e4 with std 1e-2) does not cancel
// catastrophically as E[x²] − E[x]² would. Then inv_std = 1/√(var + eps),
// xhat = ((x − μ₀) − δ)·inv_std with δ = Σd/m, y = γ·xhat + β. Normalizing with the float
// mean = μ₀ + δ instead would lose δ's low bits: at 1e4 a float's spacing (1e-3) is a tenth of
// the std 1e-2. x − μ₀ is exact (Sterbenz) whenever x is within a factor 2 of μ₀.
void BatchnormTrainForward(const float* x, const float* gamma, const float* beta, float eps,
                           float* y, float* xhat, float* mean, float* var, float* inv_std,
                           size_t batch, size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    const ChannelStats st = ChannelStatistics(x, c, batch, channels, spatial);
    const float mu0 = st.mu0, delta = st.delta;
    const float is = 1.0f / std::sqrt(st.var + eps);
    mean[c] = mu0 + delta;
    var[c] = st.var;
    inv_std[c] = is;
    for (size_t n = 0; n < batch; ++n) {
      const size_t base = (n * channels + c) * spatial;
      for (size_t s = 0; s < spatial; ++s) {
        const float h = ((x[base + s] - mu0) - delta) * is;
        if (xhat != nullptr) xhat[base + s] = h;
        y[base + s] = gamma[c] * h + beta[c];
      }
    }
  }
}

// dβ = Σdy,  dγ = Σdy·xhat,  dx = γ·inv_std/m · (m·dy − dβ − xhat·dγ)   per channel.
void BatchnormBackward(const float* dy, const float* xhat, const float* gamma, const float* inv_std,
                       float* dx, float* dgamma, float* dbeta, size_t batch, size_t channels,
                       size_t spatial) {
  const float m = static_cast<float>(batch * spatial);
  for (size_t c = 0; c < channels; ++c) {
    KahanSum kdy, kdyx;
    for (size_t n = 0; n < batch; ++n) {
      const size_t base = (n * channels + c) * spatial;
      for (size_t s = 0; s < spatial; ++s) {
        kdy.Add(dy[base + s]);
        kdyx.Add(dy[base + s] * xhat[base + s]);
      }
    }
    const float sum_dy = kdy.sum, sum_dy_xhat = kdyx.sum;
    dbeta[c] = sum_dy;
    dgamma[c] = sum_dy_xhat;
    if (dx == nullptr) continue;
    const float k = gamma[c] * inv_std[c] / m;
    for (size_t n = 0; n < batch; ++n) {
      const size_t base = (n * channels + c) * spatial;
      for (size_t s = 0; s < spatial; ++s)
        dx[base + s] = k * (m * dy[base + s] - sum_dy - xhat[base + s] * sum_dy_xhat);
    }
  }
}

// BatchnormTrainForward's statistics, nothing written per element.
void BatchnormStatistics(const float* x, float eps, float* mean, float* var, float* inv_std,
                         size_t batch, size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    const ChannelStats st = ChannelStatistics(x, c, batch, channels, spatial);
    mean[c] = st.mu0 + st.delta;
    var[c] = st.var;
    inv_std[c] = 1.0f / std::sqrt(st.var + eps);
  }
}

// xhat = (x − mean_c)·inv_std_c,  y = γ_c·xhat + β_c   (y may be x: each element read first).
void BatchnormNormalize(const float* x, const float* mean, const float* inv_std, const float* gamma,
                        const float* beta, float* y, float* xhat, size_t batch, size_t channels,
                        size_t spatial) {
  for (size_t n = 0; n < batch; ++n)
    for (size_t c = 0; c < channels; ++c) {
      const size_t base = (n * channels + c) * spatial;
      for (size_t i = base; i < base + spatial; ++i) {
        const float h = (x[i] - mean[c]) * inv_std[c];
        if (xhat != nullptr) xhat[i] = h;
        y[i] = gamma[c] * h + beta[c];
      }
    }
}

void ChannelMoments(const float* x, const float* shift, float* sum_d, float* sum_d2,
                    size_t channels, size_t spatial) {
  for (size_t c = 0; c < channels; ++c) {
    float s = 0.0f, q = 0.0f;
    for (size_t i = 0; i < spatial; ++i) {
      const float d = x[c * spatial + i] - shift[c];
      s += d;
      q += d * d;
    }
    sum_d[c] = s;
    sum_d2[c] = q;
  }
}

}  // namespace edgefold::kernels::ref
