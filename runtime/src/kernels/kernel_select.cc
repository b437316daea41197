// Instruction-set detection (once per process) and the choice of a KernelTable.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "edgefold/isa.h"
#include "kernels/cpu_caches.h"
#include "kernels/table_for.h"

#if defined(EDGEFOLD_HOSTED)
#include <cstdlib>
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD) && defined(EDGEFOLD_HOSTED) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#define EDGEFOLD_X86 1
#include <cpuid.h>
#include <xsimd/xsimd.hpp>
#endif

namespace edgefold {
namespace {

#if defined(EDGEFOLD_X86)
// XCR0 (which register state the OS saves): bits 1–2 = SSE/AVX, bits 5–7 = AVX-512.
uint64_t ReadXcr0() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return 0;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// CPUID.(7,0):ECX bit 11 (AVX512_VNNI: vpdpbusd).
bool CpuHasAvx512Vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx >> 11 & 1u);
}

// CPUID.(7,1):EAX bit 4 (AVX-VNNI: VEX-encoded vpdpbusd on xmm/ymm).
bool CpuHasAvxVnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 4 & 1u);
}

// CPUID.(7,0):EBX bit 31. xsimd 8.1 does not report AVX-512VL, but avx512.cc is built with it.
bool CpuHasAvx512Vl() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx >> 31 & 1u);
}

// xsimd 8.1 misreads AVX (leaf 0x80000001) and SSE2, so only its avx2/fma3/avx512/sse4.2
// bits are trusted; the OS check guards VMs that disable the AVX/AVX-512 state.
Isa DetectX86() {
  const auto cpu = xsimd::available_architectures();
  const uint64_t xcr0 = ReadXcr0();
  const bool os_avx = (xcr0 & 0x6u) == 0x6u;
  const bool os_avx512 = os_avx && (xcr0 & 0xE0u) == 0xE0u;
#if defined(EDGEFOLD_HAVE_AVX512)
  if (os_avx512 && cpu.fma3_avx2 && cpu.avx512f && cpu.avx512cd && cpu.avx512dq && cpu.avx512bw &&
      CpuHasAvx512Vl())
    return Isa::kAvx512;
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
  if (os_avx && cpu.fma3_avx2) return Isa::kAvx2Fma;
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
  if (cpu.sse4_2) return Isa::kSse42;
#endif
  (void)os_avx512;
  return Isa::kScalar;
}
#endif

#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
// The dot-product extension (sdot/udot), as the Linux kernel reports it.
bool CpuHasDotProd() {
#if defined(EDGEFOLD_HOSTED) && defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#else
  return false;
#endif
}
#endif

Isa Detect() {
#if defined(EDGEFOLD_X86)
  return DetectX86();
#elif defined(EDGEFOLD_HAVE_NEON)
  return Isa::kNeon;  // AArch64 always has it; ARMv7 builds neon.cc only when targeting NEON
#else
  return Isa::kScalar;
#endif
}

// Nesting of the x86 levels: a CPU at one level runs every lower one.
int Rank(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return 0;
    case Isa::kSse42:
      return 1;
    case Isa::kAvx2Fma:
      return 2;
    case Isa::kAvx512:
      return 3;
    default:
      return -1;
  }
}

struct IsaNameEntry {
  Isa isa;
  const char* name;
};
// "avx2+vnni" names the avx2+fma level for ParseIsa (IsaName gives the first name of a level);
// as EDGEFOLD_ISA it also lets the level run AVX-VNNI's EVEX twin (Avx2VnniEvexPresent).
constexpr char kAvx2VnniName[] = "avx2+vnni";
constexpr IsaNameEntry kIsaNames[] = {
    {Isa::kAuto, "auto"},        {Isa::kScalar, "scalar"},       {Isa::kSse42, "sse4.2"},
    {Isa::kAvx2Fma, "avx2+fma"}, {Isa::kAvx2Fma, kAvx2VnniName}, {Isa::kAvx512, "avx512"},
    {Isa::kNeon, "neon"}};

}  // namespace

const char* IsaName(Isa isa) {
  for (const auto& e : kIsaNames)
    if (e.isa == isa) return e.name;
  return "unknown";
}

bool ParseIsa(const char* name, Isa* out) {
  if (name == nullptr || out == nullptr) return false;
  for (const auto& e : kIsaNames) {
    if (std::strcmp(e.name, name) == 0) {
      *out = e.isa;
      return true;
    }
  }
  return false;
}

Isa DetectBestIsa() {
  // kAuto marks "not detected yet"; detection is idempotent, so a race only repeats it.
  static std::atomic<unsigned char> cached{static_cast<unsigned char>(Isa::kAuto)};
  unsigned char v = cached.load(std::memory_order_relaxed);
  if (v == static_cast<unsigned char>(Isa::kAuto)) {
    v = static_cast<unsigned char>(Detect());
    cached.store(v, std::memory_order_relaxed);
  }
  return static_cast<Isa>(v);
}

CacheInfo HostCacheInfo() {
  const kernels::CacheSizes& c = kernels::HostCaches();
  CacheInfo info;
  info.l1d_bytes = c.l1d_bytes, info.l2_bytes = c.l2_bytes;
  size_t lanes = 0;  // of the level Create picks (the scalar table does not block)
  switch (kernels::ResolveIsa(Isa::kAuto)) {
    case Isa::kAvx512:
      lanes = 16;
      break;
    case Isa::kAvx2Fma:
      lanes = 8;
      break;
    case Isa::kSse42:
    case Isa::kNeon:
      lanes = 4;
      break;
    default:
      return info;
  }
#if defined(__aarch64__)
  const bool many_registers = true;  // 32 NEON registers (kManyVectorRegisters)
#else
  const bool many_registers = lanes == 16;
#endif
  const kernels::GemmBlocking b = kernels::GemmBlockingFor(
      c, kernels::GemmTileRows(many_registers), kernels::GemmPanelFloats(lanes, many_registers));
  info.gemm_kc = b.kc, info.gemm_mc = b.mc;
  return info;
}

bool IsaAvailable(Isa isa) {
  if (isa == Isa::kAuto || isa == Isa::kScalar) return true;
  if (kernels::ActiveEntry(isa) == kernels::IsaEntry::kNone) return false;
  const Isa best = DetectBestIsa();
  if (isa == Isa::kNeon) return best == Isa::kNeon;
  return Rank(best) >= Rank(isa);
}

namespace kernels {

namespace {
// An extension is used when the CPU has it and (hosted builds) `env_off` is unset.
[[maybe_unused]] bool UseExtension(bool cpu_has, [[maybe_unused]] const char* env_off) {
#if defined(EDGEFOLD_HOSTED)
  if (std::getenv(env_off) != nullptr) return false;
#endif
  return cpu_has;
}

// The `present` column of kernels/isa_list.h: whether an entry runs where its level runs.
[[maybe_unused]] bool LevelPresent() { return true; }
#if defined(EDGEFOLD_HAVE_CORTEX_M_DSP)
bool CortexMDspPresent() { return true; }  // compiled only for cores that have it
#endif
#if defined(EDGEFOLD_HAVE_CORTEX_M_MVE)
bool CortexMMvePresent() { return true; }  // likewise
#endif
#if defined(EDGEFOLD_HAVE_AVX512_VNNI)
bool Avx512VnniPresent() {
  static const bool vnni = UseExtension(CpuHasAvx512Vnni(), "EDGEFOLD_NO_VNNI");
  return vnni;
}
#endif
#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
// AVX-VNNI where the CPU has it and the OS saves the ymm state.
bool Avx2VnniPresent() {
  static const bool vnni =
      UseExtension(CpuHasAvxVnni() && (ReadXcr0() & 0x6u) == 0x6u, "EDGEFOLD_NO_VNNI");
  return vnni;
}
// The EVEX twin: only when EDGEFOLD_ISA names "avx2+vnni" (hosted builds) and the CPU has
// AVX-512 VNNI and VL with their state saved; where AVX-VNNI exists avx2_vnni, later in the
// list, wins.
bool Avx2VnniEvexPresent() {
  static const bool twin = [] {
#if defined(EDGEFOLD_HOSTED)
    const char* forced = std::getenv("EDGEFOLD_ISA");
    if (forced == nullptr || std::strcmp(forced, kAvx2VnniName) != 0) return false;
    return UseExtension(CpuHasAvx512Vnni() && CpuHasAvx512Vl() && (ReadXcr0() & 0xE6u) == 0xE6u,
                        "EDGEFOLD_NO_VNNI");
#else
    return false;
#endif
  }();
  return twin;
}
#endif
#if defined(EDGEFOLD_HAVE_NEON_DOTPROD)
bool NeonDotprodPresent() {
  static const bool dotprod = UseExtension(CpuHasDotProd(), "EDGEFOLD_NO_DOTPROD");
  return dotprod;
}
#endif
}  // namespace

IsaEntry ActiveEntry(Isa level) {
  IsaEntry entry = IsaEntry::kNone;
#define EDGEFOLD_ENTRY_IF_PRESENT(ns, lvl, parent, tables, name, present) \
  if (Isa::lvl == level && (entry == IsaEntry::kNone || present())) entry = IsaEntry::ns;
  EDGEFOLD_FOR_EACH_ISA_ENTRY(EDGEFOLD_ENTRY_IF_PRESENT)
#undef EDGEFOLD_ENTRY_IF_PRESENT
  return entry;
}

const char* IsaEntryName(IsaEntry entry) {
  switch (entry) {
#define EDGEFOLD_ENTRY_NAME(ns, level, parent, tables, name, present) \
  case IsaEntry::ns:                                                  \
    return name;
    EDGEFOLD_FOR_EACH_ISA_ENTRY(EDGEFOLD_ENTRY_NAME)
#undef EDGEFOLD_ENTRY_NAME
    default:
      return "none";
  }
}

// kAuto: the detected best level, or EDGEFOLD_ISA (hosted builds) when it names an available
// level. An explicit level that this build/CPU lacks falls back to scalar.
Isa ResolveIsa(Isa requested) {
#if defined(EDGEFOLD_HOSTED)
  (void)HostCaches();  // read the cache sizes now, at Create, not in the first GEMM of a run
#endif
  Isa isa = requested;
  if (isa == Isa::kAuto) {
    isa = DetectBestIsa();
#if defined(EDGEFOLD_HOSTED)
    Isa forced = Isa::kAuto;
    if (ParseIsa(std::getenv("EDGEFOLD_ISA"), &forced) && forced != Isa::kAuto &&
        IsaAvailable(forced))
      isa = forced;
#endif
  }
  return IsaAvailable(isa) ? isa : Isa::kScalar;
}

const char* IgnoredIsaOverride(bool* names_no_level) {
#if defined(EDGEFOLD_HOSTED)
  const char* name = std::getenv("EDGEFOLD_ISA");
  if (name == nullptr || *name == '\0') return nullptr;
  Isa forced = Isa::kAuto;
  *names_no_level = !ParseIsa(name, &forced);
  return *names_no_level || (forced != Isa::kAuto && !IsaAvailable(forced)) ? name : nullptr;
#else
  (void)names_no_level;
  return nullptr;
#endif
}

}  // namespace kernels
}  // namespace edgefold
