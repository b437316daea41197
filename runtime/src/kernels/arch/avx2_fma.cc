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

#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
// The int8 tables of the avx2_vnni entry and its EVEX twin (kernels/isa_list.h): their GEMM,
// direct conv and depthwise channel (simd/int8_vnni256_x86.h) in this level's depthwise template.
namespace edgefold::kernels::avx2_vnni {
const Int8KernelTable kInt8Table =
    avx2_fma::MakeInt8ExtensionTable<xsimd::fma3<xsimd::avx2>, &DepthwiseChannelS8>(&GemmS8,
                                                                                    &ConvS8Direct);
}  // namespace edgefold::kernels::avx2_vnni
namespace edgefold::kernels::avx2_vnni_evex {
const Int8KernelTable kInt8Table =
    avx2_fma::MakeInt8ExtensionTable<xsimd::fma3<xsimd::avx2>, &DepthwiseChannelS8>(&GemmS8,
                                                                                    &ConvS8Direct);
}  // namespace edgefold::kernels::avx2_vnni_evex
#endif
