// The neon kernel table: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*; ARMv7 NEON flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS neon
#include "kernels/arch/neon_arch.h"
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::neon {

const KernelTable kTable = MakeSimdTable<NeonArch>("neon", Isa::kNeon);

#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
namespace {
void Conv2dDepthwiseS8Dot(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                          const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  Conv2dDepthwiseS8Using<NeonArch>(s, x, w, x_zero_point, rq, plane, y, &neon_dotprod::DepthwiseChannelS8);
}

constexpr KernelTable WithDotProd(KernelTable t) {
  t = WithInt8Gemm(t, "neon+dotprod", &neon_dotprod::GemmS8);
  t.conv2d_depthwise_s8 = &Conv2dDepthwiseS8Dot;
  return t;
}
}  // namespace

const KernelTable kTableDot = WithDotProd(MakeSimdTable<NeonArch>("neon", Isa::kNeon));
#endif

}  // namespace edgefold::kernels::neon
