// The kernel levels compiled into this build, as one list of entries:
//   X(namespace, Isa level, parent namespace, tables, name, present)
// A base entry (tables = `level`) is an instruction-set level: it defines a table of every
// family (kernels/<family>_kernel_table.h) in kernels::<namespace>. An extension entry (tables =
// the families it changes: `int8`, `core_int8` for the float core and int8 tables,
// `core_conv_int8` with the convolution table too) is a CPU feature on top of its parent (VNNI on AVX-512, AVX-VNNI on AVX2, sdot on AArch64 NEON, the Cortex-M DSP
// instructions on the scalar level, Helium on the DSP entry): it runs where its parent runs and
// `present()` (kernel_select.cc) says the CPU has the feature, defines only those families'
// tables and takes every other family from its parent (table_for.h TableAt; a parent that is
// itself an extension passes on what it does not define).
// runtime/src/kernels/CMakeLists.txt compiles kernels/arch/<namespace>.cc with the entry's
// flags and defines EDGEFOLD_HAVE_<ENTRY> for each; scalar is always there.
#pragma once

// Each entry macro takes two callbacks: E(namespace, level, parent, tables, name, present) for
// every entry, L(namespace, level) for base entries only.
#define EDGEFOLD_ISA_SCALAR(E, L)                           \
  E(scalar, kScalar, scalar, level, "scalar", LevelPresent) \
  L(scalar, kScalar)
#if defined(EDGEFOLD_HAVE_CORTEX_M_DSP)
#define EDGEFOLD_ISA_CORTEX_M_DSP(E, L) \
  E(cortex_m_dsp, kScalar, scalar, int8, "scalar+dsp", CortexMDspPresent)
#else
#define EDGEFOLD_ISA_CORTEX_M_DSP(E, L)
#endif
// Helium (MVE) on Cortex-M55/M85: an extension of the DSP entry that defines the int8 table
// (taking the DSP entry's kernels where it has none of its own), the float core table (the
// scalar level's with Helium's float GEMM) and the convolution table (Helium's depthwise).
#if defined(EDGEFOLD_HAVE_CORTEX_M_MVE)
#define EDGEFOLD_ISA_CORTEX_M_MVE(E, L) \
  E(cortex_m_mve, kScalar, cortex_m_dsp, core_conv_int8, "scalar+mve", CortexMMvePresent)
#else
#define EDGEFOLD_ISA_CORTEX_M_MVE(E, L)
#endif
#if defined(EDGEFOLD_HAVE_AVX512)
#define EDGEFOLD_ISA_AVX512(E, L)                           \
  E(avx512, kAvx512, avx512, level, "avx512", LevelPresent) \
  L(avx512, kAvx512)
#else
#define EDGEFOLD_ISA_AVX512(E, L)
#endif
#if defined(EDGEFOLD_HAVE_AVX512_VNNI)
#define EDGEFOLD_ISA_AVX512_VNNI(E, L) \
  E(avx512_vnni, kAvx512, avx512, int8, "avx512+vnni", Avx512VnniPresent)
#else
#define EDGEFOLD_ISA_AVX512_VNNI(E, L)
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
#define EDGEFOLD_ISA_AVX2_FMA(E, L)                                \
  E(avx2_fma, kAvx2Fma, avx2_fma, level, "avx2+fma", LevelPresent) \
  L(avx2_fma, kAvx2Fma)
#else
#define EDGEFOLD_ISA_AVX2_FMA(E, L)
#endif
// AVX-VNNI (256-bit vpdpbusd) on the avx2+fma level: avx2_vnni where the CPU has it (VEX
// encoding); avx2_vnni_evex, the same kernels in the EVEX encoding, only where EDGEFOLD_ISA
// names "avx2+vnni" and the CPU has AVX-512 VNNI and VL instead (a test and benchmark twin,
// never chosen on its own). Where both are present the later, avx2_vnni, wins.
#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
#define EDGEFOLD_ISA_AVX2_VNNI(E, L)                                                 \
  E(avx2_vnni_evex, kAvx2Fma, avx2_fma, int8, "avx2+vnni-evex", Avx2VnniEvexPresent) \
  E(avx2_vnni, kAvx2Fma, avx2_fma, int8, "avx2+vnni", Avx2VnniPresent)
#else
#define EDGEFOLD_ISA_AVX2_VNNI(E, L)
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
#define EDGEFOLD_ISA_SSE42(E, L)                         \
  E(sse42, kSse42, sse42, level, "sse4.2", LevelPresent) \
  L(sse42, kSse42)
#else
#define EDGEFOLD_ISA_SSE42(E, L)
#endif
#if defined(EDGEFOLD_HAVE_NEON)
#define EDGEFOLD_ISA_NEON(E, L) E(neon, kNeon, neon, level, "neon", LevelPresent) L(neon, kNeon)
#else
#define EDGEFOLD_ISA_NEON(E, L)
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
#define EDGEFOLD_ISA_NEON_DOTPROD(E, L) \
  E(neon_dotprod, kNeon, neon, int8, "neon+dotprod", NeonDotprodPresent)
#else
#define EDGEFOLD_ISA_NEON_DOTPROD(E, L)
#endif

// The list. A base entry comes before its extensions; of two present extensions of one level
// the later wins.
#define EDGEFOLD_ISA_ENTRIES(E, L) \
  EDGEFOLD_ISA_SCALAR(E, L)        \
  EDGEFOLD_ISA_CORTEX_M_DSP(E, L)  \
  EDGEFOLD_ISA_CORTEX_M_MVE(E, L)  \
  EDGEFOLD_ISA_AVX512(E, L)        \
  EDGEFOLD_ISA_AVX512_VNNI(E, L)   \
  EDGEFOLD_ISA_AVX2_FMA(E, L)      \
  EDGEFOLD_ISA_AVX2_VNNI(E, L)     \
  EDGEFOLD_ISA_SSE42(E, L)         \
  EDGEFOLD_ISA_NEON(E, L)          \
  EDGEFOLD_ISA_NEON_DOTPROD(E, L)

#define EDGEFOLD_ISA_NOTHING(...)
// Every entry: X(namespace, level, parent, tables, name, present).
#define EDGEFOLD_FOR_EACH_ISA_ENTRY(X) EDGEFOLD_ISA_ENTRIES(X, EDGEFOLD_ISA_NOTHING)
// The levels alone: X(namespace, level), for table kinds without extensions (the training
// kernels, kernels/train_kernel_table.h).
#define EDGEFOLD_FOR_EACH_ISA(X) EDGEFOLD_ISA_ENTRIES(EDGEFOLD_ISA_NOTHING, X)

// EDGEFOLD_ALWAYS_<present>: 1 where `present()` holds wherever the build runs (base levels; the
// Cortex-M extensions, compiled only for cores that have them), 0 where the CPU decides. An
// always-present extension's parents never run the families it defines, so the lookups leave
// their tables of those families out (table_for.h OwnTableShadowed): a DSP firmware links no
// scalar int8 table, a Helium one neither the scalar nor the DSP one.
#define EDGEFOLD_ALWAYS_LevelPresent 1
#define EDGEFOLD_ALWAYS_CortexMDspPresent 1
#define EDGEFOLD_ALWAYS_CortexMMvePresent 1
#define EDGEFOLD_ALWAYS_Avx512VnniPresent 0
#define EDGEFOLD_ALWAYS_Avx2VnniPresent 0
#define EDGEFOLD_ALWAYS_Avx2VnniEvexPresent 0
#define EDGEFOLD_ALWAYS_NeonDotprodPresent 0

// EDGEFOLD_OWN_OR_PARENT(tables, family, own, parent): `own` where an entry whose tables field
// is `tables` defines `family`'s table, else `parent`. Families: core, conv, int8, sequence.
#define EDGEFOLD_OWN_OR_PARENT(tables, family, own, parent) \
  EDGEFOLD_PICK_##tables##_##family(own, parent)
#define EDGEFOLD_PICK_level_core(own, parent) own
#define EDGEFOLD_PICK_level_conv(own, parent) own
#define EDGEFOLD_PICK_level_int8(own, parent) own
#define EDGEFOLD_PICK_level_sequence(own, parent) own
#define EDGEFOLD_PICK_int8_core(own, parent) parent
#define EDGEFOLD_PICK_int8_conv(own, parent) parent
#define EDGEFOLD_PICK_int8_int8(own, parent) own
#define EDGEFOLD_PICK_int8_sequence(own, parent) parent
#define EDGEFOLD_PICK_core_int8_core(own, parent) own
#define EDGEFOLD_PICK_core_int8_conv(own, parent) parent
#define EDGEFOLD_PICK_core_int8_int8(own, parent) own
#define EDGEFOLD_PICK_core_int8_sequence(own, parent) parent
#define EDGEFOLD_PICK_core_conv_int8_core(own, parent) own
#define EDGEFOLD_PICK_core_conv_int8_conv(own, parent) own
#define EDGEFOLD_PICK_core_conv_int8_int8(own, parent) own
#define EDGEFOLD_PICK_core_conv_int8_sequence(own, parent) parent
