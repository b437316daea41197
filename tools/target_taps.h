// The layer taps a target wrote (TAPS.bin of examples/validate/validate_main.cc: per tapped op
// output, u32 op index, u32 tensor index, u32 byte count, raw bytes) read back as LayerValues
// through the .efb that ran: names from the model, int8 dequantized, (q − zp)·s.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layer_taps.h"

namespace edgefold::tools {

// TAPS_PLAN.bin for `model` (verified): every op output planned in the arena (int32 aside), in
// op order: u32 op index, u32 tensor index, u32 arena offset, u32 byte count.
std::vector<uint8_t> TapsPlan(const uint8_t* model);

// `model`: the .efb bytes (verified already: the runtime created an interpreter from them).
bool DecodeTargetTaps(const uint8_t* model, const std::vector<uint8_t>& taps,
                      std::vector<LayerValue>* out, std::string* error);

}  // namespace edgefold::tools
