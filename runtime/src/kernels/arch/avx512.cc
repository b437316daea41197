// The avx512 kernel table: AVX-512 F/CD/DQ/BW/VL, 16 floats per register.
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS avx512
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::avx512 {

const KernelTable kTable = MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512);

namespace {
constexpr KernelTable WithVnni(KernelTable t) {
  t.name = "avx512+vnni";
  t.gemm_s8 = &avx512_vnni::GemmS8;
  return t;
}
}  // namespace

const KernelTable kTableVnni = WithVnni(MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512));

}  // namespace edgefold::kernels::avx512
