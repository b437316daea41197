// The avx512 kernel tables: AVX-512 F/CD/DQ/BW/VL, 16 floats per register.
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS avx512
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::avx512 {

const KernelTable kTable = MakeCoreTable<xsimd::avx512bw>("avx512", Isa::kAvx512);
const ConvKernelTable kConvTable = MakeConvTable<xsimd::avx512bw>();
const Int8KernelTable kInt8Table = MakeInt8Table<xsimd::avx512bw>();
const SequenceKernelTable kSequenceTable = MakeSequenceTable<xsimd::avx512bw>();

}  // namespace edgefold::kernels::avx512

// The avx512_vnni entry's int8 table (kernels/isa_list.h): VNNI's GEMM, direct conv and
// depthwise channel (arch/avx512_vnni.cc) in this level's depthwise template, which lives in
// this TU.
namespace edgefold::kernels::avx512_vnni {

// Stems of 1 to 3 channels (VWW, DS-CNN, ResNet-8) run faster through the im2col (Zen 4).
const Int8KernelTable kInt8Table = [] {
  Int8KernelTable t =
      avx512::MakeInt8ExtensionTable<xsimd::avx512bw, &DepthwiseChannelS8>(&GemmS8, &ConvS8Direct);
  t.conv_s8_direct_min_channels = 4;
  return t;
}();

}  // namespace edgefold::kernels::avx512_vnni
