// The choice of a TrainKernelTable: the same CPU detection as the inference tables
// (DetectBestIsa / IsaAvailable in kernel_select.cc), the same EDGEFOLD_ISA override.
#include "edgefold/isa.h"
#include "kernels/kernel_table.h"
#include "kernels/train_arch_tables.h"

namespace edgefold::kernels {

const TrainKernelTable& ScalarTrainKernelTable() { return train_scalar::kTable; }

const TrainKernelTable* TrainKernelTableFor(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return &train_scalar::kTable;
#if defined(EDGEFOLD_HAVE_AVX512)
    case Isa::kAvx512: return &train_avx512::kTable;
#endif
#if defined(EDGEFOLD_HAVE_AVX2_FMA)
    case Isa::kAvx2Fma: return &train_avx2_fma::kTable;
#endif
#if defined(EDGEFOLD_HAVE_SSE42)
    case Isa::kSse42: return &train_sse42::kTable;
#endif
#if defined(EDGEFOLD_HAVE_NEON)
    case Isa::kNeon: return &train_neon::kTable;
#endif
    default: return nullptr;
  }
}

const TrainKernelTable& SelectTrainKernelTable(Isa requested) {
  const TrainKernelTable* table = TrainKernelTableFor(ResolveIsa(requested));
  return table != nullptr ? *table : ScalarTrainKernelTable();
}

}  // namespace edgefold::kernels
