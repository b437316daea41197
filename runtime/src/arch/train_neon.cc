// The neon training table: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*, which flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS train_neon
#include "kernels/train_arch_tables.h"
#include "kernels/simd/train_simd_table.h"

namespace edgefold::kernels::train_neon {

#if defined(__aarch64__)
using NeonArch = xsimd::neon64;
#else
using NeonArch = xsimd::neon;
#endif
const TrainKernelTable kTable = MakeSimdTrainTable<NeonArch>("neon", Isa::kNeon);

}  // namespace edgefold::kernels::train_neon
