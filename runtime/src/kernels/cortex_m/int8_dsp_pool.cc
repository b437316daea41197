// Average pooling over a whole plane with the DSP extension (int8_dsp.h): a KWS DS-CNN's last
// pool (25 × 5). Four bytes a word are summed by two SMLADs with
// (1, 1) on the word's SXTB16 halves; the rounded mean is ref::Pool2dS8's (sum/count half away
// from zero). Every other pool runs the portable code (GlobalAveragePool too: VWW's is 2,304
// bytes, not worth the flash).
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

int32_t SumS8(const int8_t* x, size_t n) {
  constexpr int32_t kOnes = 0x00010001;
  int32_t acc = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t w = Load32(x + i);
    int32_t o;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(o) : "r"(w));  // GCC does not fold the rotation
    acc = __smlad(o, kOnes, __smlad(Even(w), kOnes, acc));
  }
  for (; i < n; ++i) acc += x[i];
  return acc;
}

// sum / count rounded half away from zero (count > 0), as the reference's pools.
int8_t RoundedMean(int32_t sum, int32_t count) {
  const int32_t q =
      sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
  return static_cast<int8_t>(q);
}

void MeanPlanes(const int8_t* x, int8_t* y, size_t planes, size_t spatial) {
  for (size_t c = 0; c < planes; ++c)
    y[c] = RoundedMean(SumS8(x + c * spatial, spatial), static_cast<int32_t>(spatial));
}

}  // namespace

void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
              size_t planes) {
  // One window over the whole plane, every tap inside it: the in-bounds count is kh·kw either
  // way, and no zero point enters the sum.
  const bool whole = p.kind == PoolKind::kAverage && p.out_h == 1 && p.out_w == 1 &&
                     p.kh == p.in_h && p.kw == p.in_w && p.pad_top == 0 && p.pad_left == 0 &&
                     (p.kh == 1 || p.dilation_h == 1) && (p.kw == 1 || p.dilation_w == 1) &&
                     p.in_h * p.in_w != 0;
  if (!whole) {
    ref::Pool2dS8(p, zero_point, x, y, planes);
    return;
  }
  MeanPlanes(x, y, planes, p.in_h * p.in_w);
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
