// One way to find a table of kernels for a level, whatever the table kind (KernelTable for
// inference, TrainKernelTable for training): each level's table is a `kTable` in its own
// namespace (kernels::<prefix><level>, defined in kernels/arch/<prefix><level>.cc), and
// TableFor<Table> switches over the levels of kernels/isa_list.h.
#pragma once
#include "edgefold/isa.h"
#include "kernels/isa_list.h"

namespace edgefold::kernels {

// The level a request runs at: kAuto becomes the best available level (or EDGEFOLD_ISA in
// hosted builds); a level this build or CPU lacks becomes kScalar.
Isa ResolveIsa(Isa requested);

// EDGEFOLD_ISA's value when it is set and ResolveIsa(kAuto) ignores it (hosted builds), else
// nullptr; *names_no_level: it names no level ("avx2" is not one; "avx2+fma" is), rather than
// one this CPU or build lacks.
const char* IgnoredIsaOverride(bool* names_no_level);

// The table for `isa`, or nullptr when it is not compiled into this build.
template <class Table>
const Table* TableFor(Isa isa);

// The portable reference table (always present; the test oracle and the Cortex-M path).
template <class Table>
const Table& ScalarTable() {
  return *TableFor<Table>(Isa::kScalar);
}

// The table a request runs on (ResolveIsa); never fails: falls back to scalar.
template <class Table>
const Table& SelectTable(Isa requested) {
  const Table* table = TableFor<Table>(ResolveIsa(requested));
  return table != nullptr ? *table : ScalarTable<Table>();
}

}  // namespace edgefold::kernels

// In a table kind's header, inside namespace edgefold::kernels: DECLARE(ns, level) declares one
// level's table (extern: the const definitions in kernels/arch/ need external linkage), for
// every level in the build; then the TableFor<Table> specialisation.
#define EDGEFOLD_DECLARE_TABLES(Table, DECLARE) \
  EDGEFOLD_FOR_EACH_ISA(DECLARE)                \
  template <>                                   \
  const Table* TableFor<Table>(Isa isa);

// Defines TableFor<Table> in the one .cc that owns a table kind: a switch over every level in
// the build, each case made by CASE(ns, level) (the table's namespace differs per kind).
#define EDGEFOLD_DEFINE_TABLE_FOR(Table, CASE) \
  template <>                                  \
  const Table* TableFor<Table>(Isa isa) {      \
    switch (isa) {                             \
      EDGEFOLD_FOR_EACH_ISA(CASE)              \
      default: return nullptr;                 \
    }                                          \
  }
