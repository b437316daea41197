// The per-ISA training tables defined in runtime/src/arch/train_*.cc. CMake compiles a
// train_<isa>.cc exactly when it compiles <isa>.cc and defines the same EDGEFOLD_HAVE_<ISA>.
// Each lives in its own namespace (train_<isa>) so no symbol is shared with another ISA or
// with the inference tables.
#pragma once
#include "kernels/train_kernel_table.h"

namespace edgefold::kernels {
namespace train_scalar { extern const TrainKernelTable kTable; }
#if defined(EDGEFOLD_HAVE_AVX512)
namespace train_avx512 { extern const TrainKernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
namespace train_avx2_fma { extern const TrainKernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
namespace train_sse42 { extern const TrainKernelTable kTable; }
#endif
#if defined(EDGEFOLD_HAVE_NEON)
namespace train_neon { extern const TrainKernelTable kTable; }
#endif
}  // namespace edgefold::kernels
