// RequantizeS8 (kernels/int8_params.h) of a GEMM tile's row on NEON, in signed 64-bit lanes:
// v = acc·M by smull (M > 0, so v has acc's sign, |v| < 2^62), v − 1 where v < 0 (ssra of the
// sign), then a rounding shift right by n = 31 + shift (srshl: floor((v + 2^(n−1)) / 2^n)):
// floor((v + 2^(n−1) − [v < 0]) / 2^n) is v / 2^n rounded half away from zero, the rule's value,
// for every n in the rule's [1, 62]. Narrowed with saturation to int32 and then int16 (a value
// past int16 stays past the int8 clamp on its own side after ± |zp| ≤ 128), zero point and
// clamp on int16 lanes. Eight instructions per four outputs, against the twelve to fifteen of
// requant_neon.h's magnitude form; the same bits. Rows with shift ≥ 1 whose accumulators stay
// below 2^31 in magnitude (GemmForm) take five: sqdmulh of |acc|, its bits flipped where
// acc < 0, a rounding shift (RoundShift); those whose M also has fewer than `shift` trailing
// zero bits take two (the signed form: sqdmulh of acc, a rounding shift).
// Included inside an arch namespace (its copy per translation unit: the neon and neon_dotprod
// tables are compiled with different flags).
#pragma once

namespace neon_rq {

// Whether every row of a GEMM may take the doubling form: shift ≥ 1 (n ≥ 32) and accumulators
// below 2^31 in magnitude, |bias| + k·128·128 ≤ 2^31 − 1 (bias: the row's, the input's zero
// point folded in). Decided once per call: a test per row costs more than the form saves.
enum Form : int { kWide = 0, kDoubling = 1, kSigned = 2 };

// Whether M has fewer than `shift` trailing zero bits (M mod 2^shift ≠ 0), the signed form's
// condition on top of the doubling form's (RoundShift).
inline bool SignedFormRow(int32_t multiplier, int32_t shift) {
  return shift >= 1 && shift <= 31 &&
         (static_cast<uint32_t>(multiplier) & ((uint32_t{1} << shift) - 1u)) != 0;
}

// The form every row of a GEMM takes: kSigned, kDoubling or kWide (the 64-bit lanes).
inline Form GemmForm(const GemmS8Params& p) {
  const int64_t bound = int64_t{INT32_MAX} - static_cast<int64_t>(p.k) * 128 * 128;
  bool signed_form = true;
  for (size_t i = 0; i < p.m; ++i) {
    const int32_t bias = p.bias != nullptr ? p.bias[i] : 0;
    if (p.shift[i] < 1 || bias < -bound || bias > bound) return kWide;
    signed_form = signed_form && SignedFormRow(p.multiplier[i], p.shift[i]);
  }
  return signed_form ? kSigned : kDoubling;
}

// The row's constants: M in every lane, −n in both 64-bit lanes, −shift in every lane.
struct RowRequant {
  int32x4_t m;
  int64x2_t right;
  int32x4_t neg_shift;
  Form form;  // GemmForm
  int16x8_t zp, lo, hi;
};
inline RowRequant MakeRowRequant(int32_t multiplier, int32_t shift, int32_t zero_point,
                                 int32_t act_min, int32_t act_max, Form form = kWide) {
  return RowRequant{vdupq_n_s32(multiplier),
                    vdupq_n_s64(-(31 + static_cast<int64_t>(shift))),
                    vdupq_n_s32(-shift),
                    form,
                    vdupq_n_s16(static_cast<int16_t>(zero_point)),
                    vdupq_n_s16(static_cast<int16_t>(act_min)),
                    vdupq_n_s16(static_cast<int16_t>(act_max))};
}

// The doubling or signed form's constants from M and −shift already in every lane (the 64-bit
// form's count unused).
inline RowRequant MakeRowRequantLanes(int32x4_t multiplier, int32x4_t neg_shift, int32_t zero_point,
                                      int32_t act_min, int32_t act_max, Form form) {
  return RowRequant{multiplier,
                    vdupq_n_s64(0),
                    neg_shift,
                    form,
                    vdupq_n_s16(static_cast<int16_t>(zero_point)),
                    vdupq_n_s16(static_cast<int16_t>(act_min)),
                    vdupq_n_s16(static_cast<int16_t>(act_max))};
}

#if defined(__aarch64__)
// Lane r of v in every lane (r a constant once a tile's row loop is unrolled): a 4-row tile's
// multipliers and shifts are loaded as one vector each.
inline int32x4_t LaneOf(int32x4_t v, size_t r) {
  switch (r) {
    case 0:
      return vdupq_laneq_s32(v, 0);
    case 1:
      return vdupq_laneq_s32(v, 1);
    case 2:
      return vdupq_laneq_s32(v, 2);
    default:
      return vdupq_laneq_s32(v, 3);
  }
}
#endif

// The rounded values of four accumulators, saturated to int32.
inline int32x4_t RoundShift(int32x4_t acc, const RowRequant& r) {
  if (r.form == kSigned) {
    // d = sqdmulh(acc, M) = floor(v / 2^31) of the signed v = acc·M, then the rounding shift:
    // floor((v + 2^(n−1)) / 2^n), v / 2^n rounded half up. The rule rounds half away from zero,
    // different only at a tie of a negative v, v ≡ 2^(n−1) (mod 2^n): v would have exactly
    // n − 1 = 30 + shift trailing zero bits, tz(acc) + tz(M), with tz(acc) ≤ 30 (0 < |acc| <
    // 2^31) and tz(M) < shift (SignedFormRow) — there is none. Two instructions per four outputs.
    return vrshlq_s32(vqdmulhq_s32(acc, r.m), r.neg_shift);
  }
  if (r.form == kDoubling) {
    // d = sqdmulh(|acc|, M) = floor(|v| / 2^31) (|acc| < 2^31: no saturation); the rule's
    // value is ±floor((d + h) / 2^s), h = 2^(s−1) (2^(n−1) is a multiple of 2^31). A rounding
    // shift right by s of d for acc ≥ 0, of ~d = −d − 1 for acc < 0: floor((−d − 1 + h) / 2^s)
    // = −floor((d + h) / 2^s), as 2^s − 1 − ((d + h) mod 2^s) lies in [0, 2^s). Five
    // instructions per four outputs.
    const int32x4_t sign = vshrq_n_s32(acc, 31);
    return vrshlq_s32(veorq_s32(vqdmulhq_s32(vabsq_s32(acc), r.m), sign), r.neg_shift);
  }
  int64x2_t lo = vmull_s32(vget_low_s32(acc), vget_low_s32(r.m));
#if defined(__aarch64__)
  int64x2_t hi = vmull_high_s32(acc, r.m);
#else
  int64x2_t hi = vmull_s32(vget_high_s32(acc), vget_low_s32(r.m));
#endif
  lo = vrshlq_s64(vsraq_n_s64(lo, lo, 63), r.right);
  hi = vrshlq_s64(vsraq_n_s64(hi, hi, 63), r.right);
  return vcombine_s32(vqmovn_s64(lo), vqmovn_s64(hi));
}

// The first `count` bytes of q (count < 16; ARMv7's rows: < 8) to y and no byte past, in
// pieces of 8, 4, 2 and 1 bytes (a call to memcpy cost more than the row's requantization).
inline void StoreS8Partial(int8x16_t q, int8_t* y, size_t count) {
  if (count & 8) {
    vst1_s8(y, vget_low_s8(q));
    q = vextq_s8(q, q, 8);
    y += 8;
  }
  if (count & 4) {
    vst1q_lane_s32(reinterpret_cast<int32_t*>(y), vreinterpretq_s32_s8(q), 0);
    q = vextq_s8(q, q, 4);
    y += 4;
  }
  if (count & 2) {
    vst1q_lane_s16(reinterpret_cast<int16_t*>(y), vreinterpretq_s16_s8(q), 0);
    q = vextq_s8(q, q, 2);
    y += 2;
  }
  if (count & 1) vst1q_lane_s8(y, q, 0);
}
inline void StoreS8Partial(int8x8_t q, int8_t* y, size_t count) {
  StoreS8Partial(vcombine_s8(q, vdup_n_s8(0)), y, count);
}

// Eight outputs (acc0: lanes 0..3, acc1: 4..7) as int8.
inline int8x8_t RequantizeS8x8(int32x4_t acc0, int32x4_t acc1, const RowRequant& r) {
  int16x8_t h = vcombine_s16(vqmovn_s32(RoundShift(acc0, r)), vqmovn_s32(RoundShift(acc1, r)));
  h = vminq_s16(vmaxq_s16(vqaddq_s16(h, r.zp), r.lo), r.hi);
  return vmovn_s16(h);
}

// Sixteen outputs (acc[v]: lanes 4v..4v+3) as int8: the zero point on int16 lanes, narrowed
// with saturation to int8 and clamped there (the clamp's range lies inside int8, so saturating
// first changes nothing).
inline int8x16_t RequantizeS8x16(const int32x4_t (&acc)[4], const RowRequant& r) {
  const int16x8_t h0 = vqaddq_s16(
      vcombine_s16(vqmovn_s32(RoundShift(acc[0], r)), vqmovn_s32(RoundShift(acc[1], r))), r.zp);
  const int16x8_t h1 = vqaddq_s16(
      vcombine_s16(vqmovn_s32(RoundShift(acc[2], r)), vqmovn_s32(RoundShift(acc[3], r))), r.zp);
  const int8x16_t q = vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1));
  const int8x8_t lo = vmovn_s16(r.lo), hi = vmovn_s16(r.hi);
  return vminq_s8(vmaxq_s8(q, vcombine_s8(lo, lo)), vcombine_s8(hi, hi));
}

}  // namespace neon_rq
