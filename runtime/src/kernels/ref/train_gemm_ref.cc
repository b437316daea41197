#include "kernels/train_reference.h"

namespace edgefold::kernels::ref {

// C[i,j] = (accumulate ? C[i,j] : 0) + Σ_q A[q,i]·B[q,j]     (A stored [k×m], lda ≥ m)
// The sum starts from 0 and the old C is added after it, as in ref::Gemm.
void GemmAtB(const GemmParams& p, const float* a, const float* b, float* c) {
  for (size_t i = 0; i < p.m; ++i) {
    for (size_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (size_t q = 0; q < p.k; ++q) acc += a[q * p.lda + i] * b[q * p.ldb + j];
      float* out = c + i * p.ldc + j;
      *out = p.accumulate ? *out + acc : acc;
    }
  }
}

// C[i,j] = (accumulate ? C[i,j] : 0) + Σ_q A[i,q]·B[j,q]     (B stored [n×k], ldb ≥ k)
void GemmABt(const GemmParams& p, const float* a, const float* b, float* c) {
  for (size_t i = 0; i < p.m; ++i) {
    for (size_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (size_t q = 0; q < p.k; ++q) acc += a[i * p.lda + q] * b[j * p.ldb + q];
      float* out = c + i * p.ldc + j;
      *out = p.accumulate ? *out + acc : acc;
    }
  }
}

}  // namespace edgefold::kernels::ref
