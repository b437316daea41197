// The avx512 kernel table: AVX-512 F/CD/DQ/BW/VL, 16 floats per register.
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS avx512
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::avx512 {

const KernelTable kTable = MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512);

const KernelTable kTableVnni = WithInt8Extension<xsimd::avx512bw, &avx512_vnni::DepthwiseChannelS8>(
    MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512), "avx512+vnni", &avx512_vnni::GemmS8);

}  // namespace edgefold::kernels::avx512
