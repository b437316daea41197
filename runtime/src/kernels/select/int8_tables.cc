// TableFor<Int8KernelTable>: the int8 family's tables, the CPU extensions' among them. Its own
// file, so that only firmware whose ops resolve this family links its tables (kernels/table_for.h).
#include "kernels/int8_kernel_table.h"

namespace edgefold::kernels {

#define EDGEFOLD_CASE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_CASE(Int8KernelTable, kInt8Table, int8, tables, ns, parent)
EDGEFOLD_DEFINE_FAMILY(Int8KernelTable, EDGEFOLD_CASE)
#undef EDGEFOLD_CASE

}  // namespace edgefold::kernels
