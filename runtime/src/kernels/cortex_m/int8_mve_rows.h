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

}  // namespace edgefold::kernels::cortex_m_mve
