// compile --quantize int8: the calibration checks, the rewrite and the report.
#pragma once
#include <string>

#include "edgefold_compiler/compiler.h"
#include "lower/lowered.h"
#include "quant/qdq_import.h"

namespace edgefold::compiler::quant {

// The int8 model (unplanned) of the folded float model `float_model` (planned), with the
// report's per-layer and network measures filled in. Throws CompileError naming the model,
// the calibration file's problem or the node.
LoweredModel QuantizeInt8(const LoweredModel& float_model, const CompileOptions& options,
                          const std::string& name, QuantReport* report);

// The int8 model (unplanned) of a QDQ model's folded float form, at the scales `qdq` recorded
// (no calibration; the report has its layers, float ops and I/O, no measured SQNR). Throws
// CompileError naming the node.
LoweredModel QuantizeQdq(const LoweredModel& float_model, const QdqModel& qdq,
                         const CompileOptions& options, QuantReport* report);

}  // namespace edgefold::compiler::quant
