// The xsimd arch of the NEON tables: neon64 on AArch64, neon on ARMv7 built with -mfpu=neon*
// (ARMv7 NEON flushes denormals to zero).
#pragma once
#include <xsimd/xsimd.hpp>

namespace edgefold::kernels {
#if defined(__aarch64__)
using NeonArch = xsimd::neon64;
#else
using NeonArch = xsimd::neon;
#endif
}  // namespace edgefold::kernels
