// The sse4.2 kernel table: SSE4.2, 4 floats per register (no FMA: xsimd::fma is mul + add).
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS sse42
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::sse42 {

const KernelTable kTable = MakeSimdTable<xsimd::sse4_2>("sse4.2", Isa::kSse42);

}  // namespace edgefold::kernels::sse42
