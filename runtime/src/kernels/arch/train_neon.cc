// The neon training table: NEON, 4 floats per register (neon64 on AArch64, neon on ARMv7 built
// with -mfpu=neon*, which flushes denormals to zero). Only instantiations here.
#define EDGEFOLD_ARCH_NS train_neon
#include "kernels/arch/neon_arch.h"
#include "kernels/simd/train_simd_table.h"

namespace edgefold::kernels::train_neon {

const TrainKernelTable kTable = MakeSimdTrainTable<NeonArch>("neon", Isa::kNeon);

}  // namespace edgefold::kernels::train_neon
