// The per-ISA tables defined in runtime/src/arch/*.cc. Which ones exist depends on the
// target: CMake defines EDGEFOLD_HAVE_<ISA> for every arch TU it compiles.
#pragma once
#include "kernels/kernel_table.h"

namespace edgefold::kernels {
namespace scalar { extern const KernelTable kTable; }
#if defined(EDGEFOLD_HAVE_AVX512)
namespace avx512 { extern const KernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
namespace avx2_fma { extern const KernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
namespace sse42 { extern const KernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_NEON)
namespace neon { extern const KernelTable kTable; }
#endif
}  // namespace edgefold::kernels
