// Instruction-set levels the runtime can dispatch its kernels to.
#pragma once
#include <cstddef>

namespace edgefold {

enum class Isa : unsigned char {
  kAuto = 0,  // pick the best level this CPU supports, once, at Create
  kScalar,    // portable reference kernels (Cortex-M, non-NEON ARM)
  kSse42,
  kAvx2Fma,
  kAvx512,
  kNeon,
};

// Name of a level as printed by the CLI ("scalar", "sse4.2", "avx2+fma", "avx512", "neon").
const char* IsaName(Isa isa);
// Parses the names above (and "auto"); returns false on an unknown name.
bool ParseIsa(const char* name, Isa* out);
// The best level compiled into this build and supported by this CPU.
Isa DetectBestIsa();
// True when `isa` was compiled into this build and the CPU supports it.
bool IsaAvailable(Isa isa);

// The per-core data cache sizes the kernels block for (found once; EDGEFOLD_L1D_KB /
// EDGEFOLD_L2_KB override them in hosted builds), and the GEMM's K block (rows of a packed
// panel of B) and M block (rows of A) derived from them for the best level.
struct CacheInfo {
  size_t l1d_bytes = 0, l2_bytes = 0;
  size_t gemm_kc = 0, gemm_mc = 0;
};
CacheInfo HostCacheInfo();

}  // namespace edgefold
