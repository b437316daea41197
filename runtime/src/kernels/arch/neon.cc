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
// The neon_dotprod entry's int8 table (kernels/isa_list.h): sdot's GEMM and depthwise channel
// (arch/neon_dotprod.cc) in this level's depthwise template, which lives in this TU.
namespace edgefold::kernels::neon_dotprod {

const Int8KernelTable kInt8Table =
    neon::WithNeonQuantize(neon::MakeInt8ExtensionTable<NeonArch, &DepthwiseChannelS8>(&GemmS8));

}  // namespace edgefold::kernels::neon_dotprod
#endif
