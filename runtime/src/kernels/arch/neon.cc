// The neon kernel table: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*; ARMv7 NEON flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS neon
#include "kernels/arch/neon_arch.h"
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::neon {

const KernelTable kTable = MakeSimdTable<NeonArch>("neon", Isa::kNeon);

#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
const KernelTable kTableDot = WithInt8Extension<NeonArch, &neon_dotprod::DepthwiseChannelS8>(
    MakeSimdTable<NeonArch>("neon", Isa::kNeon), "neon+dotprod", &neon_dotprod::GemmS8);
#endif

}  // namespace edgefold::kernels::neon
