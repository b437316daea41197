// TableFor<TrainKernelTable>: the training tables, found like the inference ones
// (kernels/table_for.h); the level itself is resolved once, in kernel_select.cc.
#include "kernels/train_kernel_table.h"

namespace edgefold::kernels {

#define EDGEFOLD_TABLE_CASE(ns, level) \
  case Isa::level:                     \
    return &train_##ns::kTable;
EDGEFOLD_DEFINE_TABLE_FOR(TrainKernelTable, EDGEFOLD_TABLE_CASE)
#undef EDGEFOLD_TABLE_CASE

}  // namespace edgefold::kernels
