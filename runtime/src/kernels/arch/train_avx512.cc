// The avx512 training table: AVX-512 F/CD/DQ/BW/VL, 16 floats per register.
// Compiled with the flags of avx512.cc (runtime/src/kernels/CMakeLists.txt); only instantiations.
#define EDGEFOLD_ARCH_NS train_avx512
#include "kernels/simd/train_simd_table.h"

namespace edgefold::kernels::train_avx512 {

const TrainKernelTable kTable = MakeSimdTrainTable<xsimd::avx512bw>("avx512", Isa::kAvx512);

}  // namespace edgefold::kernels::train_avx512
