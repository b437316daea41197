// TableFor<SequenceKernelTable>: the sequence and resize family's tables. Its own file, so that
// only firmware whose ops resolve this family links its tables (kernels/table_for.h).
#include "kernels/sequence_kernel_table.h"

namespace edgefold::kernels {

#define EDGEFOLD_CASE(ns, level, parent, tables, name, present) \
  EDGEFOLD_FAMILY_CASE(SequenceKernelTable, kSequenceTable, sequence, tables, ns, parent)
EDGEFOLD_DEFINE_FAMILY(SequenceKernelTable, EDGEFOLD_CASE)
#undef EDGEFOLD_CASE

}  // namespace edgefold::kernels
