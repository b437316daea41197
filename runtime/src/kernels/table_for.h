// One way to find a table of kernels, whatever the table kind: each family of kernels
// (KernelTable: the float core, ConvKernelTable, Int8KernelTable, SequenceKernelTable) has a
// table per entry of kernels/isa_list.h that defines it, `k<Family>Table` in kernels::<entry>,
// and TableFor<Table>(level) finds the one the level's active entry runs (an extension's own,
// else its parent's). A family's lookup is defined in its own file (kernels/select/): only an op
// that resolves the family references it, so a firmware links the families its model uses.
#pragma once
#include <cstddef>

#include "edgefold/isa.h"
#include "kernels/isa_list.h"

namespace edgefold::kernels {

// The entries of kernels/isa_list.h, by namespace.
enum class IsaEntry : unsigned char {
#define EDGEFOLD_ISA_ENTRY_ENUM(ns, level, parent, tables, name, present) ns,
  EDGEFOLD_FOR_EACH_ISA_ENTRY(EDGEFOLD_ISA_ENTRY_ENUM)
#undef EDGEFOLD_ISA_ENTRY_ENUM
      kNone
};

// What the lookups know of each entry at compile time: its level, whether it is always present
// (EDGEFOLD_ALWAYS_<present>) and which families' tables it defines (core, conv, int8, sequence).
struct IsaEntryTraits {
  Isa level;
  bool always;
  bool defines[4];
};
constexpr IsaEntryTraits kIsaEntryTraits[] = {
#define EDGEFOLD_ISA_ENTRY_TRAITS(ns, lvl, parent, tables, name, present) \
  {Isa::lvl,                                                              \
   EDGEFOLD_ALWAYS_##present != 0,                                        \
   {EDGEFOLD_OWN_OR_PARENT(tables, core, true, false),                    \
    EDGEFOLD_OWN_OR_PARENT(tables, conv, true, false),                    \
    EDGEFOLD_OWN_OR_PARENT(tables, int8, true, false),                    \
    EDGEFOLD_OWN_OR_PARENT(tables, sequence, true, false)}},
    EDGEFOLD_FOR_EACH_ISA_ENTRY(EDGEFOLD_ISA_ENTRY_TRAITS)
#undef EDGEFOLD_ISA_ENTRY_TRAITS
};
#define EDGEFOLD_FAMILY_INDEX_core 0
#define EDGEFOLD_FAMILY_INDEX_conv 1
#define EDGEFOLD_FAMILY_INDEX_int8 2
#define EDGEFOLD_FAMILY_INDEX_sequence 3

// Whether a later entry of `entry`'s level defines `family`'s table and is always present: then
// the level never runs `entry`'s own table of that family, and its lookup leaves it out.
constexpr bool OwnTableShadowed(IsaEntry entry, int family) {
  const size_t e = static_cast<size_t>(entry);
  for (size_t i = e + 1; i < sizeof(kIsaEntryTraits) / sizeof(kIsaEntryTraits[0]); ++i)
    if (kIsaEntryTraits[i].level == kIsaEntryTraits[e].level && kIsaEntryTraits[i].always &&
        kIsaEntryTraits[i].defines[family])
      return true;
  return false;
}

// The level a request runs at: kAuto becomes the best available level (or EDGEFOLD_ISA in
// hosted builds); a level this build or CPU lacks becomes kScalar.
Isa ResolveIsa(Isa requested);

// EDGEFOLD_ISA's value when it is set and ResolveIsa(kAuto) ignores it (hosted builds), else
// nullptr; *names_no_level: it names no level ("avx2" is not one; "avx2+fma" is), rather than
// one this CPU or build lacks.
const char* IgnoredIsaOverride(bool* names_no_level);

// The entry `level` runs on this CPU: its last present extension, else the level's own entry;
// kNone when the build lacks the level. Extensions are detected once per process (hosted builds:
// EDGEFOLD_NO_VNNI=1 / EDGEFOLD_NO_DOTPROD=1 keep the plain level, for A/B runs).
IsaEntry ActiveEntry(Isa level);
// "avx512+vnni", "scalar", ...; "none" for kNone.
const char* IsaEntryName(IsaEntry entry);

// A family's table at an entry: its own, or (extensions) its parent's; nullptr for an own table an
// always-present extension shadows (OwnTableShadowed). Specialised per family.
template <class Table>
const Table* TableAt(IsaEntry entry);

// The table for `isa`, or nullptr when it is not compiled into this build.
template <class Table>
const Table* TableFor(Isa isa);

// The scalar level's table (always present; with the Cortex-M DSP entry, its int8 table).
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

// In a family's header, inside namespace edgefold::kernels: declares `var` in the namespace of
// every entry that defines `family`'s table, and the family's lookups.
#define EDGEFOLD_DECLARE_FAMILY(Table, var, DECLARE_ENTRY) \
  EDGEFOLD_FOR_EACH_ISA_ENTRY(DECLARE_ENTRY)               \
  template <>                                              \
  const Table* TableAt<Table>(IsaEntry entry);             \
  template <>                                              \
  const Table* TableFor<Table>(Isa isa);
// DECLARE_ENTRY for a family: EDGEFOLD_FAMILY_ENTRY(Table, var, family, tables, ns).
#define EDGEFOLD_FAMILY_ENTRY(Table, var, family, tables, ns) \
  EDGEFOLD_OWN_OR_PARENT(                                     \
      tables, family, namespace ns { extern const Table var; }, )

// In a family's kernels/select/ file: TableAt (CASE(ns, level, parent, tables, name, present)
// made of EDGEFOLD_FAMILY_CASE) and TableFor through the active entry.
// An entry whose own table is shadowed (OwnTableShadowed) gives nullptr: never asked for by
// TableFor, and not referenced, so not linked.
#define EDGEFOLD_FAMILY_CASE(Table, var, family, tables, ns, parent)                           \
  case IsaEntry::ns:                                                                           \
    return EDGEFOLD_OWN_OR_PARENT(                                                             \
        tables, family,                                                                        \
        (OwnTableShadowed(IsaEntry::ns, EDGEFOLD_FAMILY_INDEX_##family) ? nullptr : &ns::var), \
        TableAt<Table>(IsaEntry::parent));
#define EDGEFOLD_DEFINE_FAMILY(Table, CASE)                            \
  template <>                                                          \
  const Table* TableAt<Table>(IsaEntry entry) {                        \
    switch (entry) {                                                   \
      EDGEFOLD_FOR_EACH_ISA_ENTRY(CASE)                                \
      default:                                                         \
        return nullptr;                                                \
    }                                                                  \
  }                                                                    \
  template <>                                                          \
  const Table* TableFor<Table>(Isa isa) {                              \
    const IsaEntry entry = ActiveEntry(isa);                           \
    return entry == IsaEntry::kNone ? nullptr : TableAt<Table>(entry); \
  }

// Table kinds without extensions (the training kernels): DECLARE(ns, level) declares one level's
// table, for every level in the build, then TableFor; EDGEFOLD_DEFINE_TABLE_FOR defines it in
// the kind's one .cc, a switch over the levels made of CASE(ns, level).
#define EDGEFOLD_DECLARE_TABLES(Table, DECLARE) \
  EDGEFOLD_FOR_EACH_ISA(DECLARE)                \
  template <>                                   \
  const Table* TableFor<Table>(Isa isa);
#define EDGEFOLD_DEFINE_TABLE_FOR(Table, CASE) \
  template <>                                  \
  const Table* TableFor<Table>(Isa isa) {      \
    switch (isa) {                             \
      EDGEFOLD_FOR_EACH_ISA(CASE)              \
      default:                                 \
        return nullptr;                        \
    }                                          \
  }
