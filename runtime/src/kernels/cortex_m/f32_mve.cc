// Helium float GEMM (f32_mve.h).
#include "kernels/cortex_m/f32_mve.h"

#if defined(EDGEFOLD_HAVE_F32_MVE)
#include <arm_mve.h>

#include "kernels/reference.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// C[row, j .. j + 3] (`live` lanes) from one row's sums, as GemmTiled's StoreTile: + the old C,
// + the bias, Relu by a compare (NaN and −0 pass as in `v < 0 ? 0 : v`).
inline __attribute__((always_inline)) void StoreRow(const GemmParams& p, float32x4_t v, size_t row,
                                                    size_t j, mve_pred16_t live, float* c) {
  float* out = c + row * p.ldc + j;
  if (p.accumulate) v = vaddq_f32(vldrwq_z_f32(out, live), v);
  if (p.bias != nullptr)
    v = p.bias_per_row ? vaddq_n_f32(v, p.bias[row]) : vaddq_f32(v, vldrwq_z_f32(p.bias + j, live));
  if (p.act.kind == ActKind::kRelu) v = vpselq_f32(vdupq_n_f32(0.0f), v, vcmpltq_n_f32(v, 0.0f));
  vstrwq_p_f32(out, v, live);
}

// Two k a step for a 4-row tile in assembly: A's two values of a row by one LDRD (GCC loads
// them singly), 19 instructions for 32 multiply-adds instead of 24; each output's chain keeps
// its order. Advances *bq by 2·pairs rows of B.
inline __attribute__((always_inline)) void Pairs4(const float* const* rows, size_t pairs,
                                                  size_t ldb, mve_pred16_t live, const float** bq,
                                                  float32x4_t* acc) {
  const float *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3];
  const float* b = *bq;
  const size_t ldb_bytes = ldb * sizeof(float);
  const uint32_t pred = live;
  float32x4_t c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3], b0, b1;
  uint32_t x, y;
  __asm__ volatile(
      "vmsr        p0, %[pred]\n\t"
      "dls         lr, %[pairs]\n\t"
      "1:\n\t"
      "vpst\n\t"
      "vldrwt.u32  %q[b0], [%[bq]]\n\t"
      "add         %[bq], %[bq], %[ldb]\n\t"
      "vpst\n\t"
      "vldrwt.u32  %q[b1], [%[bq]]\n\t"
      "add         %[bq], %[bq], %[ldb]\n\t"
      "ldrd        %[x], %[y], [%[a0]], #8\n\t"
      "vfma.f32    %q[c0], %q[b0], %[x]\n\t"
      "vfma.f32    %q[c0], %q[b1], %[y]\n\t"
      "ldrd        %[x], %[y], [%[a1]], #8\n\t"
      "vfma.f32    %q[c1], %q[b0], %[x]\n\t"
      "vfma.f32    %q[c1], %q[b1], %[y]\n\t"
      "ldrd        %[x], %[y], [%[a2]], #8\n\t"
      "vfma.f32    %q[c2], %q[b0], %[x]\n\t"
      "vfma.f32    %q[c2], %q[b1], %[y]\n\t"
      "ldrd        %[x], %[y], [%[a3]], #8\n\t"
      "vfma.f32    %q[c3], %q[b0], %[x]\n\t"
      "vfma.f32    %q[c3], %q[b1], %[y]\n\t"
      "le          lr, 1b\n\t"
      : [c0] "+w"(c0), [c1] "+w"(c1), [c2] "+w"(c2), [c3] "+w"(c3), [b0] "=&w"(b0), [b1] "=&w"(b1),
        [x] "=&r"(x), [y] "=&r"(y), [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
        [bq] "+r"(b)
      : [pred] "r"(pred), [pairs] "r"(pairs), [ldb] "r"(ldb_bytes)
      : "memory", "lr");
  acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3;
  *bq = b;
}

// Rows i .. i + R − 1, columns j .. j + 3 (`live` lanes).
template <int R>
void Tile(const GemmParams& p, const float* a, const float* b, size_t i, size_t j,
          mve_pred16_t live, float* c) {
  float32x4_t acc[R];
  const float* rows[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = vdupq_n_f32(0.0f), rows[r] = a + (i + r) * p.lda;
  if (const uint32_t* offsets = p.b_row_offsets) {
    const float* bj = b + j;
    for (size_t q = 0; q < p.k; ++q) {
      const float32x4_t bv = vldrwq_z_f32(bj + offsets[q], live);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[r] = vfmaq_n_f32(acc[r], bv, rows[r][q]);
    }
  } else {
    const float* bq = b + j;
    const size_t ldb = p.ldb;
    size_t q = 0;
    if constexpr (R == 4) {
      q = 2 * (p.k / 2);
      if (q != 0) Pairs4(rows, p.k / 2, ldb, live, &bq, acc);
    }
    for (; q < p.k; ++q, bq += ldb) {
      const float32x4_t bv = vldrwq_z_f32(bq, live);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[r] = vfmaq_n_f32(acc[r], bv, rows[r][q]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) StoreRow(p, acc[r], i + r, j, live, c);
}

}  // namespace

void GemmF32(const GemmParams& p, const float* a, const float* b, float* c) {
  if (p.k == 0) {  // no products: GemmTiled's bias-only path
    scalar::GemmTiled(p, a, b, c);
    return;
  }
  for (size_t j = 0; j < p.n; j += 4) {
    const mve_pred16_t live = vctp32q(static_cast<uint32_t>(p.n - j));
    size_t i = 0;
    for (; i + 4 <= p.m; i += 4) Tile<4>(p, a, b, i, j, live, c);
    for (; i < p.m; ++i) Tile<1>(p, a, b, i, j, live, c);
  }
  if (p.act.kind != ActKind::kNone && p.act.kind != ActKind::kRelu)
    for (size_t r = 0; r < p.m; ++r)
      ref::ActivationKernel(c + r * p.ldc, c + r * p.ldc, p.n, p.act);
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
