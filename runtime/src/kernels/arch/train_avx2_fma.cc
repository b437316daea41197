// The avx2+fma training table: AVX2 with FMA3, 8 floats per register.
// Compiled with the flags of avx2_fma.cc (runtime/src/kernels/CMakeLists.txt); only instantiations.
#define EDGEFOLD_ARCH_NS train_avx2_fma
#include "kernels/simd/train_simd_table.h"

namespace edgefold::kernels::train_avx2_fma {

const TrainKernelTable kTable =
    MakeSimdTrainTable<xsimd::fma3<xsimd::avx2>>("avx2+fma", Isa::kAvx2Fma);

}  // namespace edgefold::kernels::train_avx2_fma
