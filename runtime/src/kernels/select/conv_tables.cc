// TableFor<ConvKernelTable>: the convolution family's tables (depthwise, Winograd). Its own file,
// so that only firmware whose ops resolve this family links its tables (kernels/table_for.h).
#include "kernels/conv_kernel_table.h"

namespace edgefold::kernels {

#define EDGEFOLD_CASE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_CASE(ConvKernelTable, kConvTable, conv, tables, ns, parent)
EDGEFOLD_DEFINE_FAMILY(ConvKernelTable, EDGEFOLD_CASE)
#undef EDGEFOLD_CASE

}  // namespace edgefold::kernels
