// The sse4.2 training table: SSE4.2, 4 floats per register (xsimd::fma is mul + add).
// Compiled with the flags of sse42.cc (runtime/src/kernels/CMakeLists.txt); only instantiations.
#define EDGEFOLD_ARCH_NS train_sse42
#include "kernels/simd/train_simd_table.h"

namespace edgefold::kernels::train_sse42 {

const TrainKernelTable kTable = MakeSimdTrainTable<xsimd::sse4_2>("sse4.2", Isa::kSse42);

}  // namespace edgefold::kernels::train_sse42
