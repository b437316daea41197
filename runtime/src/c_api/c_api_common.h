// Conversions shared by the C API translation units: C structs ↔ edgefold C++ types.
#pragma once
#include "edgefold/edgefold.h"
#include "edgefold/interpreter.h"

namespace edgefold::c_api {

inline ef_status ToC(Status s) { return static_cast<ef_status>(static_cast<uint16_t>(s)); }

// NULL options mean the defaults. The resolver is always "every op in this build": C firmware
// trims ops at link time by not linking the C++ op files it does not need.
inline Options ToCpp(const ef_options* o) {
  Options out;
  if (o == nullptr) return out;
  out.isa = static_cast<Isa>(o->isa);
  out.log = o->log;
  out.log_user = o->log_user;
  out.parallel_for = o->parallel_for;
  out.parallel_user = o->parallel_user;
  out.num_threads = o->num_threads != 0 ? o->num_threads : 1;
  out.min_task_work = o->min_task_work;
  out.adapt_splits = o->adapt_splits != 0;
  return out;
}

}  // namespace edgefold::c_api
