// `edgefold inspect MODEL.efb --target m4|m7|m55`: the flash and RAM a model needs on a Cortex-M
// target, from a real firmware: the validation firmware linked with exactly the model's ops
// (examples/validate: edgefold_validate_trimmed's link line plus one registration object per
// op kind), its link map split by owner, and one run of it under QEMU for the arena the
// runtime asks for there and the stack's high-water mark.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "target_run.h"

namespace edgefold::tools {

struct MapSizes {  // bytes per owner, from a GNU ld link map
  long runtime = 0, kernels = 0, app = 0, libc = 0;
  long buffers = 0;  // the validation firmware's own model and arena buffers (not a model's)
};

struct TargetFootprint {
  std::vector<std::string> op_kinds;
  MapSizes flash, static_ram;  // static_ram: .data + .bss
  long model_bytes = 0, arena_bytes = 0, stack_bytes = -1;
  std::string kernels;
};

// Splits a link map's allocated input sections by owner: flash = code, read-only data and the
// .data load image; static RAM = .data + .bss.
bool ParseLinkMap(const std::string& map_text, MapSizes* flash, MapSizes* ram, std::string* error);

// `model`: verified .efb bytes; `build_dir` as for FindRunner.
bool MeasureTargetFootprint(const TargetInfo& target, const std::string& build_dir,
                            const std::vector<uint8_t>& model, TargetFootprint* out,
                            std::string* error);

void PrintTargetFootprint(const TargetInfo& target, const TargetFootprint& f);

}  // namespace edgefold::tools
