// Kernels of the on-device training mode, one table per ISA like KernelTable. Kept separate
// so an inference-only firmware links none of them.
//
// Layout conventions: activations are (N, C, S) with S = product of spatial dims (1 for (N, C)
// inputs), channel c of image n at x[(n·C + c)·S + s]. m = N·S samples per channel.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/isa.h"
#include "kernels/kernel_params.h"
#include "kernels/table_for.h"

namespace edgefold::kernels {

struct TrainKernelTable {
  const char* name;
  Isa isa;

  // BatchNorm forward with batch statistics (training mode):
  //   mean_c = Σx/m,  var_c = Σ(x − mean_c)²/m (biased; computed stably, no E[x²]−E[x]²),
  //   inv_std_c = 1/√(var_c + eps),  xhat = (x − mean_c)·inv_std_c,  y = γ_c·xhat + β_c.
  // xhat may be nullptr (not saved); mean/var/inv_std receive C values each.
  void (*batchnorm_train_forward)(const float* x, const float* gamma, const float* beta, float eps,
                                  float* y, float* xhat, float* mean, float* var, float* inv_std,
                                  size_t batch, size_t channels, size_t spatial);

  // BatchNorm backward (simplified form):
  //   dβ_c = Σ dy,  dγ_c = Σ dy·xhat,  dx = γ_c·inv_std_c/m · (m·dy − dβ_c − xhat·dγ_c).
  // dgamma/dbeta are overwritten (not accumulated); dx is overwritten, or not computed when
  // nullptr (the first layer a sparse update trains).
  void (*batchnorm_backward)(const float* dy, const float* xhat, const float* gamma,
                             const float* inv_std, float* dx, float* dgamma, float* dbeta,
                             size_t batch, size_t channels, size_t spatial);

  // C[m×n] = Aᵀ·B (+ C if p.accumulate); A is stored [k×m] with leading dim lda, B [k×n].
  // (weight gradient dW = Xᵀ·dY). bias/act in p are ignored.
  void (*gemm_at_b)(const GemmParams& p, const float* a, const float* b, float* c);
  // C[m×n] = A·Bᵀ (+ C if p.accumulate); A [m×k], B stored [n×k] with leading dim ldb.
  // (input gradient dX = dY·Wᵀ). bias/act in p are ignored.
  void (*gemm_a_bt)(const GemmParams& p, const float* a, const float* b, float* c);

  // Adjoint of im2col: x_group[c, iy, ix] += Σ col[(c·kh + ky)·kw + kx, oy·out_w + ox] over the
  // taps that read (iy, ix). x_group is accumulated into, not cleared.
  void (*col2im)(const Conv2dShape& s, const float* col, float* x_group);

  // Depthwise conv backward for one image: dx[c] += Σ w[c,ky,kx]·dy[c, taps] (accumulated),
  // dw[c,ky,kx] += Σ x[c, tap]·dy[c, oy, ox] (accumulated; dw may be nullptr).
  void (*conv2d_depthwise_backward)(const Conv2dShape& s, const float* x, const float* w,
                                    const float* dy, float* dx, float* dw);

  // Pool backward for `planes` planes: max routes dy to the first max in each window of x;
  // average spreads dy/count over the window. dx is accumulated into.
  void (*pool2d_backward)(const Pool2dParams& p, const float* x, const float* dy, float* dx,
                          size_t planes);

  // Mean softmax cross-entropy over a batch of rows:
  //   loss = −(1/N) Σ_n log softmax(z_n)[label_n],  dz = (softmax(z) − onehot(label)) / N.
  // Returns the loss; labels outside [0, classes) are the caller's job to reject.
  float (*softmax_cross_entropy)(const float* logits, const int32_t* labels, float* dlogits,
                                 size_t batch, size_t classes);

  // SGD with momentum and weight decay (PyTorch convention):
  //   g' = g + wd·p,  v = momentum·v + g',  p = p − lr·v.
  void (*sgd_momentum)(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                       float weight_decay);

  // Per-channel centred sums of one image x[channels×spatial] (streaming BN adaptation):
  //   sum_d[c] = Σ_i (x[c,i] − shift[c]),  sum_d2[c] = Σ_i (x[c,i] − shift[c])²;
  // the shift (a running mean) keeps the variance from cancelling. Overwrites both outputs.
  void (*channel_moments)(const float* x, const float* shift, float* sum_d, float* sum_d2,
                          size_t channels, size_t spatial);

  // The batch statistics of batchnorm_train_forward alone (mean, var, inv_std per channel, the
  // same corrected two-pass sums), nothing written per element: for a forward that stores x̂
  // in its own precision before y overwrites x.
  void (*batchnorm_statistics)(const float* x, float eps, float* mean, float* var, float* inv_std,
                               size_t batch, size_t channels, size_t spatial);

  // BatchNorm normalization with given statistics (frozen statistics: the running ones):
  //   xhat = (x − mean_c)·inv_std_c (stored unless xhat is nullptr),  y = γ_c·xhat + β_c.
  // y may be x itself.
  void (*batchnorm_normalize)(const float* x, const float* mean, const float* inv_std,
                              const float* gamma, const float* beta, float* y, float* xhat,
                              size_t batch, size_t channels, size_t spatial);
};

// Every level's training table: kernels::train_<level>::kTable, defined in
// kernels/arch/train_<level>.cc (its own namespace: no symbol shared with the inference TU).
#define EDGEFOLD_DECLARE_TRAIN_TABLE(ns, level) \
  namespace train_##ns {                        \
    extern const TrainKernelTable kTable;       \
  }
EDGEFOLD_DECLARE_TABLES(TrainKernelTable, EDGEFOLD_DECLARE_TRAIN_TABLE)
#undef EDGEFOLD_DECLARE_TRAIN_TABLE

}  // namespace edgefold::kernels
