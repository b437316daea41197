// TableFor<KernelTable>: the float core family's tables, one per level. Its own file, so that only
// firmware whose ops resolve this family links its tables (kernels/table_for.h).
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

#define EDGEFOLD_CASE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_CASE(KernelTable, kTable, core, tables, ns, parent)
EDGEFOLD_DEFINE_FAMILY(KernelTable, EDGEFOLD_CASE)
#undef EDGEFOLD_CASE

}  // namespace edgefold::kernels
