// The avx512 kernel table: AVX-512 F/CD/DQ/BW/VL, 16 floats per register.
// Compiled with its own -m flags (runtime/src/kernels/CMakeLists.txt); only instantiations here.
#define EDGEFOLD_ARCH_NS avx512
#include "kernels/simd/simd_table.h"

namespace edgefold::kernels::avx512 {

const KernelTable kTable = MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512);

namespace {
void Conv2dDepthwiseS8Vnni(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                           const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  Conv2dDepthwiseS8Using<xsimd::avx512bw>(s, x, w, x_zero_point, rq, plane, y, &avx512_vnni::DepthwiseChannelS8);
}

constexpr KernelTable WithVnni(KernelTable t) {
  t = WithInt8Gemm(t, "avx512+vnni", &avx512_vnni::GemmS8);
  t.conv2d_depthwise_s8 = &Conv2dDepthwiseS8Vnni;
  return t;
}
}  // namespace

const KernelTable kTableVnni = WithVnni(MakeSimdTable<xsimd::avx512bw>("avx512", Isa::kAvx512));

}  // namespace edgefold::kernels::avx512
