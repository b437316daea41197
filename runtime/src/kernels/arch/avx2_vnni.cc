// The avx2_vnni extension entry of the avx2+fma level (kernels/isa_list.h): AVX-VNNI, the VEX
// encoding of vpdpbusd on ymm (Intel Alder Lake and later cores, the N100-class Atoms, Sierra
// Forest, AMD Zen 5). Compiled with -mavxvnni on its own, so no other avx2 kernel can pick up an
// instruction a CPU without AVX-VNNI lacks; the kernels are simd/int8_vnni256_x86.h, the table
// is defined in arch/avx2_fma.cc.
#define EDGEFOLD_ARCH_NS avx2_vnni
#include "kernels/simd/int8_vnni256_x86.h"
