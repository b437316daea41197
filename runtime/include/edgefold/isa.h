// Instruction-set levels the runtime can dispatch its kernels to.
#pragma once

namespace edgefold {

enum class Isa : unsigned char {
  kAuto = 0,   // pick the best level this CPU supports, once, at Create
  kScalar,     // portable reference kernels (Cortex-M, non-NEON ARM)
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

}  // namespace edgefold
