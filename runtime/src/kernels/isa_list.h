// The kernel levels compiled into this build, as one list: X(namespace, Isa enumerator).
// runtime/src/kernels/CMakeLists.txt compiles kernels/arch/<namespace>.cc (and
// train_<namespace>.cc) with that level's flags and defines EDGEFOLD_HAVE_<LEVEL> for each;
// scalar is always there. Every per-level declaration and switch is generated from this list.
#pragma once

#if defined(EDGEFOLD_HAVE_AVX512)
#define EDGEFOLD_ISA_AVX512(X) X(avx512, kAvx512)
#else
#define EDGEFOLD_ISA_AVX512(X)
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
#define EDGEFOLD_ISA_AVX2_FMA(X) X(avx2_fma, kAvx2Fma)
#else
#define EDGEFOLD_ISA_AVX2_FMA(X)
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
#define EDGEFOLD_ISA_SSE42(X) X(sse42, kSse42)
#else
#define EDGEFOLD_ISA_SSE42(X)
#endif
#if defined(EDGEFOLD_HAVE_NEON)
#define EDGEFOLD_ISA_NEON(X) X(neon, kNeon)
#else
#define EDGEFOLD_ISA_NEON(X)
#endif

#define EDGEFOLD_FOR_EACH_ISA(X) \
  X(scalar, kScalar)             \
  EDGEFOLD_ISA_AVX512(X)         \
  EDGEFOLD_ISA_AVX2_FMA(X)       \
  EDGEFOLD_ISA_SSE42(X)          \
  EDGEFOLD_ISA_NEON(X)
