// The avx2_vnni_evex extension entry of the avx2+fma level (kernels/isa_list.h): the kernels
// of arch/avx2_vnni.cc (simd/int8_vnni256_x86.h) with vpdpbusd in its EVEX encoding, compiled
// with -mavx512vnni -mavx512vl, for CPUs that have AVX-512 VNNI but not AVX-VNNI (AMD Zen 4,
// Intel Ice Lake to Cascade Lake servers). It runs only when EDGEFOLD_ISA=avx2+vnni asks for it
// (kernel_select.cc Avx2VnniEvexPresent): the test and benchmark twin of avx2_vnni on hosts
// without AVX-VNNI; a VEX core's speed may differ. The table is defined in arch/avx2_fma.cc.
#define EDGEFOLD_ARCH_NS avx2_vnni_evex
#define EDGEFOLD_VNNI256_EVEX 1
#include "kernels/simd/int8_vnni256_x86.h"
