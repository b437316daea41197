// The table of one kernel family (kernels/table_for.h) for the level an op runs at: an op that
// needs a family beyond the float core (ctx.k) picks its table here in Prepare and keeps the
// pointer in its prepared data, so Eval never re-dispatches. Naming a family only here, from the
// ops that use it, is what keeps a firmware from linking the families its model does not use.
#pragma once
#include "ops/op_kernel.h"

namespace edgefold::internal {

template <class Table>
const Table* FamilyTable(const OpContext& ctx) {
  return kernels::TableFor<Table>(ctx.k.isa);  // ctx.k's level is in the build: never null
}

}  // namespace edgefold::internal
