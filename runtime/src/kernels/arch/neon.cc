// The neon kernel tables: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*; ARMv7 NEON flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS neon
#include "kernels/arch/neon_arch.h"
#include "kernels/simd/quantize_s8_neon.h"
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::neon {

// The level's int8 table with NEON's own Quantize (simd/quantize_s8_neon.h).
constexpr Int8KernelTable WithNeonQuantize(Int8KernelTable t) {
  t.quantize_s8 = &neon_quantize::QuantizeS8;
  return t;
}

const KernelTable kTable = MakeCoreTable<NeonArch>("neon", Isa::kNeon);
const ConvKernelTable kConvTable = MakeConvTable<NeonArch>();
const Int8KernelTable kInt8Table = WithNeonQuantize(MakeInt8Table<NeonArch>());
const SequenceKernelTable kSequenceTable = MakeSequenceTable<NeonArch>();

}  // namespace edgefold::kernels::neon

#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
// The neon_dotprod entry's int8 table (kernels/isa_list.h): sdot's GEMM, channels-innermost
// depthwise and depthwise channel (arch/neon_dotprod.cc), the last in this level's depthwise
// template, which lives in this TU.
namespace edgefold::kernels::neon_dotprod {
namespace {

// sdot's channels-innermost 3×3 depthwise where it applies, else the level's planes with sdot's
// channel arithmetic.
void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  if (Conv2dDepthwiseS8HwcSdot(s, x, w, x_zero_point, rq, plane, y)) return;
  neon::Conv2dDepthwiseS8With<NeonArch, &DepthwiseChannelS8>(s, x, w, x_zero_point, rq, plane, y);
}

constexpr Int8KernelTable WithSdotDepthwise(Int8KernelTable t) {
  t.conv2d_depthwise_s8 = &Conv2dDepthwiseS8;
  return t;
}

}  // namespace

const Int8KernelTable kInt8Table = WithSdotDepthwise(
    neon::WithNeonQuantize(neon::MakeInt8ExtensionTable<NeonArch, &DepthwiseChannelS8>(&GemmS8)));

}  // namespace edgefold::kernels::neon_dotprod
#endif
