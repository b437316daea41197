// The neon kernel table: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*; ARMv7 NEON flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS neon
#include "kernels/arch_tables.h"
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::neon {

#if defined(__aarch64__)
using NeonArch = xsimd::neon64;
#else
using NeonArch = xsimd::neon;
#endif
const KernelTable kTable = MakeSimdTable<NeonArch>("neon", Isa::kNeon);

}  // namespace edgefold::kernels::neon
