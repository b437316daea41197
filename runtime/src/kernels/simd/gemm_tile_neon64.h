// AArch64 float GEMM register tile: 8 rows × NV ≤ 3 registers of columns over packed A and a
// packed B panel (gemm_simd.h packs both per block).
//
// A's 8 rows of one k block are packed k-major, pa[q·8 + r] = A[i0 + r, k0 + q], so one k
// needs one 32-byte load of A (two registers: rows 0–3, 4–7) and one load of the panel's row
// (NV registers, one ld1), then 8·NV fmla by element: acc[r][v] += B[k, v] · a[r / 4][r mod 4].
// 24 accumulators + 2 A + 3 B = 29 of the 32 vector registers; per k 24 fmla and 2 loads (the
// unpacked 8 × 2 tile spent 16 fmla, 2 loads of B, 2 of A and a row pointer per k).
// Every output is still one fused multiply-add chain over k in order from 0 (or C), as in the
// other tiles: which tile or block an output falls in never changes its bits.
#pragma once
#include <arm_neon.h>

#include <cstddef>

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

constexpr size_t kNeonTileRows = 8;
constexpr size_t kNeonPackAFloats = 16384;  // packed A of one row block on the stack (64 KiB)

// pa[q·8 + r] = a[r·lda + q] for r < 8, q < kc: 4 × 4 transposes (trn1/trn2 by 32 and 64 bits).
inline void GemmPackA8(const float* a, size_t lda, size_t kc, float* pa) {
  size_t q = 0;
  for (; q + 4 <= kc; q += 4, pa += 32) {
    for (size_t h = 0; h < 2; ++h) {
      const float* ar = a + 4 * h * lda + q;
      const float32x4_t r0 = vld1q_f32(ar), r1 = vld1q_f32(ar + lda);
      const float32x4_t r2 = vld1q_f32(ar + 2 * lda), r3 = vld1q_f32(ar + 3 * lda);
      const float64x2_t t0 = vreinterpretq_f64_f32(vtrn1q_f32(r0, r1));  // r0k0 r1k0 r0k2 r1k2
      const float64x2_t t1 = vreinterpretq_f64_f32(vtrn2q_f32(r0, r1));  // r0k1 r1k1 r0k3 r1k3
      const float64x2_t t2 = vreinterpretq_f64_f32(vtrn1q_f32(r2, r3));
      const float64x2_t t3 = vreinterpretq_f64_f32(vtrn2q_f32(r2, r3));
      vst1q_f32(pa + 4 * h, vreinterpretq_f32_f64(vtrn1q_f64(t0, t2)));       // k0: r0..r3
      vst1q_f32(pa + 8 + 4 * h, vreinterpretq_f32_f64(vtrn1q_f64(t1, t3)));   // k1
      vst1q_f32(pa + 16 + 4 * h, vreinterpretq_f32_f64(vtrn2q_f64(t0, t2)));  // k2
      vst1q_f32(pa + 24 + 4 * h, vreinterpretq_f32_f64(vtrn2q_f64(t1, t3)));  // k3
    }
  }
  for (; q < kc; ++q, pa += 8)
    for (size_t r = 0; r < 8; ++r) pa[r] = a[r * lda + q];
}

template <size_t NV>
inline void GemmNeonLoadB(const float* pb, float32x4_t (&b)[NV]) {
  if constexpr (NV == 3) {
    const float32x4x3_t x = vld1q_f32_x3(pb);
    b[0] = x.val[0], b[1] = x.val[1], b[2] = x.val[2];
  } else if constexpr (NV == 2) {
    const float32x4x2_t x = vld1q_f32_x2(pb);
    b[0] = x.val[0], b[1] = x.val[1];
  } else {
    b[0] = vld1q_f32(pb);
  }
}

// One k: acc[r][v] += pb[v] · pa[r].
template <size_t NV>
inline void GemmNeonStep(float32x4_t (&acc)[8][NV], const float* pa, const float* pb) {
  const float32x4x2_t a = vld1q_f32_x2(pa);
  float32x4_t b[NV];
  GemmNeonLoadB<NV>(pb, b);
  for (size_t v = 0; v < NV; ++v) {
    acc[0][v] = vfmaq_laneq_f32(acc[0][v], b[v], a.val[0], 0);
    acc[1][v] = vfmaq_laneq_f32(acc[1][v], b[v], a.val[0], 1);
    acc[2][v] = vfmaq_laneq_f32(acc[2][v], b[v], a.val[0], 2);
    acc[3][v] = vfmaq_laneq_f32(acc[3][v], b[v], a.val[0], 3);
    acc[4][v] = vfmaq_laneq_f32(acc[4][v], b[v], a.val[1], 0);
    acc[5][v] = vfmaq_laneq_f32(acc[5][v], b[v], a.val[1], 1);
    acc[6][v] = vfmaq_laneq_f32(acc[6][v], b[v], a.val[1], 2);
    acc[7][v] = vfmaq_laneq_f32(acc[7][v], b[v], a.val[1], 3);
  }
}

// GCC's allocation of the intrinsic loop kept four A registers live and spilled an
// accumulator at NV = 3, and an asm statement takes at most 30 operands, so for NV = 3 and 2
// the tile is one asm block on fixed registers: acc[r][v] in v(8 + r·NV + v), loaded from and
// stored back to `acc` in memory (one ld1/st1 per four registers); per k one ld1 of A (v0, v1),
// one ld1 of B's row (v2..), 8·NV fmla by element; two k per iteration. B's rows come from a
// packed panel (pb walks it) or in place (pb walks the row pointers, each + bcol bytes: two
// more instructions per k, less than packing when there are few row tiles).
#define EDGEFOLD_NEON_GEMM_LOAD_A "ld1 {v0.4s, v1.4s}, [%[pa]], #32\n"
#define EDGEFOLD_NEON_GEMM_ROW_PTR \
  "ldr x16, [%[pb]], #8\n"         \
  "add x16, x16, %[bcol]\n"
#define EDGEFOLD_NEON_GEMM_FMA3   \
  "fmla v8.4s, v2.4s, v0.s[0]\n"  \
  "fmla v11.4s, v2.4s, v0.s[1]\n" \
  "fmla v14.4s, v2.4s, v0.s[2]\n" \
  "fmla v17.4s, v2.4s, v0.s[3]\n" \
  "fmla v20.4s, v2.4s, v1.s[0]\n" \
  "fmla v23.4s, v2.4s, v1.s[1]\n" \
  "fmla v26.4s, v2.4s, v1.s[2]\n" \
  "fmla v29.4s, v2.4s, v1.s[3]\n" \
  "fmla v9.4s, v3.4s, v0.s[0]\n"  \
  "fmla v12.4s, v3.4s, v0.s[1]\n" \
  "fmla v15.4s, v3.4s, v0.s[2]\n" \
  "fmla v18.4s, v3.4s, v0.s[3]\n" \
  "fmla v21.4s, v3.4s, v1.s[0]\n" \
  "fmla v24.4s, v3.4s, v1.s[1]\n" \
  "fmla v27.4s, v3.4s, v1.s[2]\n" \
  "fmla v30.4s, v3.4s, v1.s[3]\n" \
  "fmla v10.4s, v4.4s, v0.s[0]\n" \
  "fmla v13.4s, v4.4s, v0.s[1]\n" \
  "fmla v16.4s, v4.4s, v0.s[2]\n" \
  "fmla v19.4s, v4.4s, v0.s[3]\n" \
  "fmla v22.4s, v4.4s, v1.s[0]\n" \
  "fmla v25.4s, v4.4s, v1.s[1]\n" \
  "fmla v28.4s, v4.4s, v1.s[2]\n" \
  "fmla v31.4s, v4.4s, v1.s[3]\n"
#define EDGEFOLD_NEON_GEMM_PANEL3 \
  EDGEFOLD_NEON_GEMM_LOAD_A "ld1 {v2.4s-v4.4s}, [%[pb]], #48\n" EDGEFOLD_NEON_GEMM_FMA3
#define EDGEFOLD_NEON_GEMM_ROWS3                       \
  EDGEFOLD_NEON_GEMM_LOAD_A EDGEFOLD_NEON_GEMM_ROW_PTR \
      "ld1 {v2.4s-v4.4s}, [x16]\n" EDGEFOLD_NEON_GEMM_FMA3
#define EDGEFOLD_NEON_GEMM_LOAD_ACC3     \
  "ld1 {v8.4s-v11.4s}, [%[acc]], #64\n"  \
  "ld1 {v12.4s-v15.4s}, [%[acc]], #64\n" \
  "ld1 {v16.4s-v19.4s}, [%[acc]], #64\n" \
  "ld1 {v20.4s-v23.4s}, [%[acc]], #64\n" \
  "ld1 {v24.4s-v27.4s}, [%[acc]], #64\n" \
  "ld1 {v28.4s-v31.4s}, [%[acc]], #64\n"
#define EDGEFOLD_NEON_GEMM_STORE_ACC3    \
  "st1 {v8.4s-v11.4s}, [%[acc]], #64\n"  \
  "st1 {v12.4s-v15.4s}, [%[acc]], #64\n" \
  "st1 {v16.4s-v19.4s}, [%[acc]], #64\n" \
  "st1 {v20.4s-v23.4s}, [%[acc]], #64\n" \
  "st1 {v24.4s-v27.4s}, [%[acc]], #64\n" \
  "st1 {v28.4s-v31.4s}, [%[acc]], #64\n"
#define EDGEFOLD_NEON_GEMM_FMA2   \
  "fmla v8.4s, v2.4s, v0.s[0]\n"  \
  "fmla v10.4s, v2.4s, v0.s[1]\n" \
  "fmla v12.4s, v2.4s, v0.s[2]\n" \
  "fmla v14.4s, v2.4s, v0.s[3]\n" \
  "fmla v16.4s, v2.4s, v1.s[0]\n" \
  "fmla v18.4s, v2.4s, v1.s[1]\n" \
  "fmla v20.4s, v2.4s, v1.s[2]\n" \
  "fmla v22.4s, v2.4s, v1.s[3]\n" \
  "fmla v9.4s, v3.4s, v0.s[0]\n"  \
  "fmla v11.4s, v3.4s, v0.s[1]\n" \
  "fmla v13.4s, v3.4s, v0.s[2]\n" \
  "fmla v15.4s, v3.4s, v0.s[3]\n" \
  "fmla v17.4s, v3.4s, v1.s[0]\n" \
  "fmla v19.4s, v3.4s, v1.s[1]\n" \
  "fmla v21.4s, v3.4s, v1.s[2]\n" \
  "fmla v23.4s, v3.4s, v1.s[3]\n"
#define EDGEFOLD_NEON_GEMM_PANEL2 \
  EDGEFOLD_NEON_GEMM_LOAD_A "ld1 {v2.4s, v3.4s}, [%[pb]], #32\n" EDGEFOLD_NEON_GEMM_FMA2
#define EDGEFOLD_NEON_GEMM_ROWS2                       \
  EDGEFOLD_NEON_GEMM_LOAD_A EDGEFOLD_NEON_GEMM_ROW_PTR \
      "ld1 {v2.4s, v3.4s}, [x16]\n" EDGEFOLD_NEON_GEMM_FMA2
#define EDGEFOLD_NEON_GEMM_LOAD_ACC2     \
  "ld1 {v8.4s-v11.4s}, [%[acc]], #64\n"  \
  "ld1 {v12.4s-v15.4s}, [%[acc]], #64\n" \
  "ld1 {v16.4s-v19.4s}, [%[acc]], #64\n" \
  "ld1 {v20.4s-v23.4s}, [%[acc]], #64\n"
#define EDGEFOLD_NEON_GEMM_STORE_ACC2    \
  "st1 {v8.4s-v11.4s}, [%[acc]], #64\n"  \
  "st1 {v12.4s-v15.4s}, [%[acc]], #64\n" \
  "st1 {v16.4s-v19.4s}, [%[acc]], #64\n" \
  "st1 {v20.4s-v23.4s}, [%[acc]], #64\n"
// The whole tile: acc from memory, kc / 2 double steps, an odd last k, acc back to memory.
#define EDGEFOLD_NEON_GEMM_TILE(NV, STEP, ACC_BYTES, ...)                                  \
  __asm__ volatile(EDGEFOLD_NEON_GEMM_LOAD_ACC##NV "sub %[acc], %[acc], #" #ACC_BYTES      \
                                                   "\n"                                    \
                                                   "cbz %[n], 2f\n"                        \
                                                   "1:\n" STEP STEP                        \
                                                   "subs %[n], %[n], #1\n"                 \
                                                   "b.ne 1b\n"                             \
                                                   "2:\n"                                  \
                                                   "tbz %[odd], #0, 3f\n" STEP             \
                                                   "3:\n" EDGEFOLD_NEON_GEMM_STORE_ACC##NV \
                   : [pa] "+r"(pa), [pb] "+r"(pb), [n] "+r"(pairs), [acc] "+r"(accp)       \
                   : [odd] "r"(kc), [bcol] "r"(bcol_bytes)                                 \
                   : __VA_ARGS__, "x16", "memory", "cc")

// acc += packed A (kc × 8) · B (kc rows of NV·4 floats), k in order. kRows: pb is B's row
// pointers (row q at pb[q] + bcol floats); else pb is the packed panel (bcol unused).
template <size_t NV, bool kRows>
inline void GemmNeonKernel(float (&acc)[8][NV][4], const float* pa, const void* pb, size_t bcol,
                           size_t kc) {
  size_t pairs = kc / 2;
  const size_t bcol_bytes = bcol * sizeof(float);
  float* accp = &acc[0][0][0];
  if constexpr (NV == 3 && kRows) {
    EDGEFOLD_NEON_GEMM_TILE(3, EDGEFOLD_NEON_GEMM_ROWS3, 384, "v0", "v1", "v2", "v3", "v4", "v8",
                            "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18",
                            "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
                            "v29", "v30", "v31");
  } else if constexpr (NV == 3) {
    EDGEFOLD_NEON_GEMM_TILE(3, EDGEFOLD_NEON_GEMM_PANEL3, 384, "v0", "v1", "v2", "v3", "v4", "v8",
                            "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18",
                            "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
                            "v29", "v30", "v31");
  } else if constexpr (NV == 2 && kRows) {
    EDGEFOLD_NEON_GEMM_TILE(2, EDGEFOLD_NEON_GEMM_ROWS2, 256, "v0", "v1", "v2", "v3", "v8", "v9",
                            "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19",
                            "v20", "v21", "v22", "v23");
  } else if constexpr (NV == 2) {
    EDGEFOLD_NEON_GEMM_TILE(2, EDGEFOLD_NEON_GEMM_PANEL2, 256, "v0", "v1", "v2", "v3", "v8", "v9",
                            "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19",
                            "v20", "v21", "v22", "v23");
  } else {
    float32x4_t raw[8][NV];
    for (size_t r = 0; r < 8; ++r) raw[r][0] = vld1q_f32(acc[r][0]);
    for (size_t q = 0; q < kc; ++q, pa += 8) {
      const float* bq = kRows ? static_cast<const float* const*>(pb)[q] + bcol
                              : static_cast<const float*>(pb) + q * 4;
      GemmNeonStep<NV>(raw, pa, bq);
    }
    for (size_t r = 0; r < 8; ++r) vst1q_f32(acc[r][0], raw[r][0]);
  }
}

#undef EDGEFOLD_NEON_GEMM_FMA3
#undef EDGEFOLD_NEON_GEMM_PANEL3
#undef EDGEFOLD_NEON_GEMM_ROWS3
#undef EDGEFOLD_NEON_GEMM_LOAD_ACC3
#undef EDGEFOLD_NEON_GEMM_STORE_ACC3
#undef EDGEFOLD_NEON_GEMM_FMA2
#undef EDGEFOLD_NEON_GEMM_PANEL2
#undef EDGEFOLD_NEON_GEMM_ROWS2
#undef EDGEFOLD_NEON_GEMM_LOAD_ACC2
#undef EDGEFOLD_NEON_GEMM_STORE_ACC2
#undef EDGEFOLD_NEON_GEMM_LOAD_A
#undef EDGEFOLD_NEON_GEMM_ROW_PTR
#undef EDGEFOLD_NEON_GEMM_TILE

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
