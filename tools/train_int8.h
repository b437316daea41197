// edgefold train on an int8 model (compile --quantize int8 --adaptable): the BatchNorm
// statistics folded into its int8 ops re-estimated from data (edgefold/int8_adapter.h).
#pragma once
#include "cli_args.h"
#include "edgefold/isa.h"
#include "file_io.h"

namespace edgefold::tools {

// True when `model` is a valid .efb with at least one adaptable int8 op.
bool IsAdaptableInt8(const AlignedBuffer& model);

// Adapts over --data in batches of the model's batch (--epochs passes), prints accuracy before
// and after when --labels are given, writes --output. Returns a process exit code.
int AdaptInt8(const ParsedArgs& a, const AlignedBuffer& model, Isa isa);

}  // namespace edgefold::tools
