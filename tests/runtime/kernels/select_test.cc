// ISA names, table lookup and the automatic choice of a table.
#include <cstdlib>
#include <string>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

// Restores EDGEFOLD_ISA when a test that sets it ends.
class ScopedIsaEnv {
 public:
  explicit ScopedIsaEnv(const char* value) {
    if (const char* old = std::getenv("EDGEFOLD_ISA")) old_ = old, had_ = true;
    value ? setenv("EDGEFOLD_ISA", value, 1) : unsetenv("EDGEFOLD_ISA");
  }
  ~ScopedIsaEnv() { had_ ? setenv("EDGEFOLD_ISA", old_.c_str(), 1) : unsetenv("EDGEFOLD_ISA"); }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(KernelSelect, NamesRoundTrip) {
  for (Isa isa : {Isa::kAuto, Isa::kScalar, Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon}) {
    Isa parsed = Isa::kScalar;
    ASSERT_TRUE(ParseIsa(IsaName(isa), &parsed)) << IsaName(isa);
    EXPECT_EQ(parsed, isa);
  }
  Isa out = Isa::kScalar;
  EXPECT_FALSE(ParseIsa("avx1024", &out));
  EXPECT_FALSE(ParseIsa(nullptr, &out));
  EXPECT_STREQ(IsaName(Isa::kAvx2Fma), "avx2+fma");
}

TEST(KernelSelect, TablesDescribeThemselves) {
  EXPECT_STREQ(ScalarTable<KernelTable>().name, "scalar");
  EXPECT_EQ(ScalarTable<KernelTable>().simd_floats, 1u);
  EXPECT_EQ(TableFor<KernelTable>(Isa::kScalar), &ScalarTable<KernelTable>());
  EXPECT_EQ(TableFor<KernelTable>(Isa::kAuto), nullptr);
  const std::pair<Isa, size_t> lanes[] = {
      {Isa::kSse42, 4}, {Isa::kAvx2Fma, 8}, {Isa::kAvx512, 16}, {Isa::kNeon, 4}};
  for (auto [isa, floats] : lanes) {
    const KernelTable* t = TableFor<KernelTable>(isa);
    if (t == nullptr) continue;
    EXPECT_EQ(t->isa, isa);
    EXPECT_EQ(std::string(t->name).rfind(IsaName(isa), 0), 0u) << t->name;
    EXPECT_EQ(t->simd_floats, floats);
    EXPECT_NE(t->gemm, nullptr);
    EXPECT_NE(t->softmax, nullptr);
  }
}

// Every family has a table at every level; an extension entry (kernels/isa_list.h) has its own
// table of the family it changes and its parent's of every other, and a level runs its extension
// only where the CPU has it.
TEST(KernelSelect, ExtensionsOverrideTheirFamilyAndInheritTheRest) {
  int extensions = 0;
#define EDGEFOLD_CHECK_ENTRY(ns, level, parent, tables, name, present)                          \
  {                                                                                             \
    const IsaEntry entry = IsaEntry::ns, up = IsaEntry::parent;                                 \
    EXPECT_NE(TableAt<KernelTable>(entry), nullptr) << name;                                    \
    EXPECT_NE(TableAt<ConvKernelTable>(entry), nullptr) << name;                                \
    EXPECT_NE(TableAt<Int8KernelTable>(entry), nullptr) << name;                                \
    EXPECT_NE(TableAt<SequenceKernelTable>(entry), nullptr) << name;                            \
    if (entry != up) {                                                                          \
      ++extensions;                                                                             \
      EXPECT_EQ(TableAt<KernelTable>(entry), TableAt<KernelTable>(up)) << name;                 \
      EXPECT_EQ(TableAt<ConvKernelTable>(entry), TableAt<ConvKernelTable>(up)) << name;         \
      EXPECT_EQ(TableAt<SequenceKernelTable>(entry), TableAt<SequenceKernelTable>(up)) << name; \
      EXPECT_NE(TableAt<Int8KernelTable>(entry), TableAt<Int8KernelTable>(up)) << name;         \
      const bool active = ActiveEntry(Isa::level) == entry;                                     \
      /* another extension of the level may be the active one (avx2_vnni, its EVEX twin) */     \
      if (active || ActiveEntry(Isa::level) == up) {                                            \
        EXPECT_EQ(TableFor<Int8KernelTable>(Isa::level),                                        \
                  active ? TableAt<Int8KernelTable>(entry) : TableAt<Int8KernelTable>(up))      \
            << name;                                                                            \
        EXPECT_EQ(std::string(IsaEntryName(ActiveEntry(Isa::level))),                           \
                  active ? name : IsaName(Isa::level));                                         \
      }                                                                                         \
    }                                                                                           \
  }
  EDGEFOLD_FOR_EACH_ISA_ENTRY(EDGEFOLD_CHECK_ENTRY)
#undef EDGEFOLD_CHECK_ENTRY
#if defined(__x86_64__) && defined(EDGEFOLD_HAVE_AVX2_VNNI)
  EXPECT_EQ(extensions, 3);  // avx512_vnni, avx2_vnni_evex, avx2_vnni
#elif defined(__x86_64__)
  EXPECT_EQ(extensions, 1);  // avx512_vnni
#endif
  EXPECT_EQ(ActiveEntry(Isa::kAuto), IsaEntry::kNone);
  EXPECT_EQ(TableFor<ConvKernelTable>(Isa::kAuto), nullptr);
}

// Hosted extensions (VNNI, sdot) are detected at run time, so no entry's own table is shadowed
// (table_for.h OwnTableShadowed): every one stays in the lookups for the CPUs that lack them.
TEST(KernelSelect, HostedLookupsKeepEveryOwnTable) {
  for (size_t e = 0; e < static_cast<size_t>(IsaEntry::kNone); ++e)
    for (int family = 0; family < 4; ++family)
      EXPECT_FALSE(OwnTableShadowed(static_cast<IsaEntry>(e), family))
          << IsaEntryName(static_cast<IsaEntry>(e)) << " family " << family;
}

#if defined(EDGEFOLD_HAVE_AVX2_VNNI)
// The avx2+fma level runs AVX-VNNI only on a CPU that has it (CPUID.(7,1):EAX bit 4), and its
// EVEX twin only when EDGEFOLD_ISA named "avx2+vnni" as the process started (ctest runs this
// binary both ways) on a CPU with AVX-512 VNNI and VL but no AVX-VNNI: never by itself.
TEST(KernelSelect, AvxVnniOnlyWhereTheCpuHasIt) {
  if (!IsaAvailable(Isa::kAvx2Fma)) GTEST_SKIP() << "no AVX2 on this CPU";
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool avx_vnni = __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 4 & 1u);
  const bool evex = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
  const char* forced = std::getenv("EDGEFOLD_ISA");
  const bool asked = forced != nullptr && std::string(forced) == "avx2+vnni";
  const bool off = std::getenv("EDGEFOLD_NO_VNNI") != nullptr;
  IsaEntry want = IsaEntry::avx2_fma;
  if (!off && avx_vnni)
    want = IsaEntry::avx2_vnni;
  else if (!off && asked && evex)
    want = IsaEntry::avx2_vnni_evex;
  EXPECT_EQ(ActiveEntry(Isa::kAvx2Fma), want) << IsaEntryName(ActiveEntry(Isa::kAvx2Fma));
  Isa parsed = Isa::kScalar;
  ASSERT_TRUE(ParseIsa("avx2+vnni", &parsed));
  EXPECT_EQ(parsed, Isa::kAvx2Fma);
  EXPECT_STREQ(IsaName(Isa::kAvx2Fma), "avx2+fma");
  if (asked) {
    EXPECT_EQ(ResolveIsa(Isa::kAuto), Isa::kAvx2Fma);
  }
}
#endif

TEST(KernelSelect, AutoPicksTheBestLevelOfThisCpu) {
  ScopedIsaEnv env(nullptr);
  Isa expected = Isa::kScalar;
  if (const char* want = std::getenv("EDGEFOLD_EXPECT_ISA")) {  // set by the QEMU ctest runs
    ASSERT_TRUE(ParseIsa(want, &expected)) << want;
  } else {
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl"))
      GTEST_SKIP() << "this CPU has no AVX-512";
    expected = Isa::kAvx512;
#elif defined(__aarch64__)
    expected = Isa::kNeon;   // AArch64 always has Advanced SIMD
#else
    GTEST_SKIP() << "expected level known only for x86 hosts or via EDGEFOLD_EXPECT_ISA";
#endif
  }
  EXPECT_EQ(DetectBestIsa(), expected) << IsaName(DetectBestIsa());
  EXPECT_EQ(SelectTable<KernelTable>(Isa::kAuto).isa, expected);
  EXPECT_TRUE(IsaAvailable(expected));
}

TEST(KernelSelect, EnvironmentForcesAvailableLevelsOnly) {
  {
    ScopedIsaEnv env("scalar");
    EXPECT_EQ(SelectTable<KernelTable>(Isa::kAuto).isa, Isa::kScalar);
  }
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon}) {
    ScopedIsaEnv env(IsaName(isa));
    const Isa got = SelectTable<KernelTable>(Isa::kAuto).isa;
    EXPECT_EQ(got, IsaAvailable(isa) ? isa : DetectBestIsa()) << IsaName(isa);
  }
  ScopedIsaEnv env("bogus");
  EXPECT_EQ(SelectTable<KernelTable>(Isa::kAuto).isa, DetectBestIsa());
  // The environment never overrides an explicit request.
  EXPECT_EQ(SelectTable<KernelTable>(Isa::kScalar).isa, Isa::kScalar);
}

TEST(KernelSelect, UnavailableExplicitLevelFallsBackToScalar) {
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon}) {
    if (IsaAvailable(isa)) {
      EXPECT_EQ(SelectTable<KernelTable>(isa).isa, isa);
    } else {
      EXPECT_EQ(SelectTable<KernelTable>(isa).isa, Isa::kScalar) << IsaName(isa);
    }
  }
  EXPECT_TRUE(IsaAvailable(Isa::kScalar));
}

}  // namespace
}  // namespace edgefold::kernels::testing
