// The sse4.2 kernel tables: SSE4.2, 4 floats per register (no FMA: xsimd::fma is mul + add).
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS sse42
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::sse42 {

const KernelTable kTable = MakeCoreTable<xsimd::sse4_2>("sse4.2", Isa::kSse42);
const ConvKernelTable kConvTable = MakeConvTable<xsimd::sse4_2>();
const Int8KernelTable kInt8Table = MakeInt8Table<xsimd::sse4_2>();
const SequenceKernelTable kSequenceTable = MakeSequenceTable<xsimd::sse4_2>();

}  // namespace edgefold::kernels::sse42
