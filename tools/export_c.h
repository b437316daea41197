// Turns a compiled .efb model into a C/C++ header for firmware that runs it from flash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

struct ExportCInfo {
  std::string name;                   // C identifier prefix, e.g. "digits"
  uint64_t planned_arena_bytes = 0;   // the compiler's activation plan (Model.arena_bytes)
  size_t host_arena_bytes = 0;        // RequiredArenaBytes on this (LP64) host: plan + state
  size_t host_train_arena_bytes = 0;  // RequiredTrainingArenaBytes likewise (0: not trainable)
  std::vector<std::string> op_kinds;  // distinct op kinds in graph order, e.g. "Conv"
};

// True when `name` is a valid C identifier.
bool IsCIdentifier(const std::string& name);

// The header text:
//   alignas(64) const unsigned char NAME_model[] = {...};  (static, internal linkage)
//   NAME_MODEL_BYTES, NAME_PLANNED_ARENA_BYTES, NAME_ARENA_BYTES, and for a model compiled
//   with --train NAME_TRAIN_ARENA_BYTES (the trainer's arena, the same kind of upper bound),
//   NAME_REGISTER_OPS(resolver) — calls resolver.AddX() for exactly the model's ops (for Conv,
//   the registration with only the schedules the model's convs use: AddConvPlain, ...).
// NAME_ARENA_BYTES is the host's RequiredArenaBytes rounded up to 64: the interpreter state
// inside the arena holds pointers and size_t, so a 32-bit target needs the same or less.
// Firmware that wants the exact figure calls edgefold::RequiredArenaBytes at startup.
std::string ExportC(const uint8_t* model, size_t model_bytes, const ExportCInfo& info);

}  // namespace edgefold::tools
