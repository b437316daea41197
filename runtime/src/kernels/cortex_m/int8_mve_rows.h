// Byte rows of a fixed length for the Helium int8 kernels (int8_mve_depthwise.cc,
// int8_mve_im2col.cc): whole 16-byte vectors, then one under a predicate made once per length
// (GCC rebuilds a VCTP predicate through VPR moves in every iteration of a predicated loop).
#pragma once
#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

namespace edgefold::kernels::cortex_m_mve {

struct ByteRow {
  size_t whole;
  mve_pred16_t tail;  // 0: no partial vector
  explicit ByteRow(size_t n) : whole(n / 16), tail(vctp8q(static_cast<uint32_t>(n % 16))) {}

  // dst[0, n) = src[0, n).
  inline __attribute__((always_inline)) void Copy(const int8_t* src, int8_t* dst) const {
    for (size_t i = 0; i < whole; ++i, src += 16, dst += 16) vstrbq_s8(dst, vldrbq_s8(src));
    if (tail != 0) vstrbq_p_s8(dst, vldrbq_z_s8(src, tail), tail);
  }
  // dst[0, n) = src[0], src[2], …, src[2n − 2] (every_other: 0, 2, …, 30).
  inline __attribute__((always_inline)) void Gather2(const int8_t* src, uint8x16_t every_other,
                                                     int8_t* dst) const {
    for (size_t i = 0; i < whole; ++i, src += 32, dst += 16)
      vstrbq_s8(dst, vldrbq_gather_offset_s8(src, every_other));
    if (tail != 0) vstrbq_p_s8(dst, vldrbq_gather_offset_z_s8(src, every_other, tail), tail);
  }
  // dst[0, n) = v.
  inline __attribute__((always_inline)) void Fill(int8x16_t v, int8_t* dst) const {
    for (size_t i = 0; i < whole; ++i, dst += 16) vstrbq_s8(dst, v);
    if (tail != 0) vstrbq_p_s8(dst, v, tail);
  }
};

// `rows` rows of w bytes: dst + i·dst_step = src + i·src_step (stride 2: every other byte of
// src's row, src_step still between rows). Each row a tail-predicated low-overhead loop
// (DLSTP/LETP: the last vector's lanes past w are off), 3 + 3·⌈w/16⌉ instructions a row.
template <size_t kStride>
inline void CopyRows(const int8_t* src, size_t src_step, int8_t* dst, size_t dst_step, size_t w,
                     size_t rows) {
  if (rows == 0 || w == 0) return;
  const int8_t* s;
  int8_t* d;
  if (kStride == 1) {
    __asm__ volatile(
        "2:\n\t"
        "mov         %[s], %[src]\n\t"
        "mov         %[d], %[dst]\n\t"
        "dlstp.8     lr, %[w]\n\t"
        "1:\n\t"
        "vldrb.u8    q0, [%[s]], #16\n\t"
        "vstrb.8     q0, [%[d]], #16\n\t"
        "letp        lr, 1b\n\t"
        "add         %[src], %[src], %[ss]\n\t"
        "add         %[dst], %[dst], %[ds]\n\t"
        "subs        %[rows], %[rows], #1\n\t"
        "bne         2b\n\t"
        : [src] "+r"(src), [dst] "+r"(dst), [rows] "+r"(rows), [s] "=&r"(s), [d] "=&r"(d)
        : [w] "r"(w), [ss] "r"(src_step), [ds] "r"(dst_step)
        : "cc", "memory", "lr", "d0", "d1");
  } else {
    const uint8x16_t every_other = vidupq_n_u8(0, 2);  // 0, 2, …, 30
    __asm__ volatile(
        "2:\n\t"
        "mov         %[s], %[src]\n\t"
        "mov         %[d], %[dst]\n\t"
        "dlstp.8     lr, %[w]\n\t"
        "1:\n\t"
        "vldrb.u8    q0, [%[s], %q[off]]\n\t"
        "adds        %[s], %[s], #32\n\t"
        "vstrb.8     q0, [%[d]], #16\n\t"
        "letp        lr, 1b\n\t"
        "add         %[src], %[src], %[ss]\n\t"
        "add         %[dst], %[dst], %[ds]\n\t"
        "subs        %[rows], %[rows], #1\n\t"
        "bne         2b\n\t"
        : [src] "+r"(src), [dst] "+r"(dst), [rows] "+r"(rows), [s] "=&r"(s), [d] "=&r"(d)
        : [w] "r"(w), [ss] "r"(src_step), [ds] "r"(dst_step), [off] "w"(every_other)
        : "cc", "memory", "lr", "d0", "d1");
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
