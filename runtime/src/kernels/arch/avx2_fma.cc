// The avx2+fma kernel tables: AVX2 with FMA3, 8 floats per register.
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS avx2_fma
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::avx2_fma {

const KernelTable kTable = MakeCoreTable<xsimd::fma3<xsimd::avx2>>("avx2+fma", Isa::kAvx2Fma);
const ConvKernelTable kConvTable = MakeConvTable<xsimd::fma3<xsimd::avx2>>();
const Int8KernelTable kInt8Table = MakeInt8Table<xsimd::fma3<xsimd::avx2>>();
const SequenceKernelTable kSequenceTable = MakeSequenceTable<xsimd::fma3<xsimd::avx2>>();

}  // namespace edgefold::kernels::avx2_fma
