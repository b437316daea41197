// compile --quantize int8 --io int8: graph inputs and outputs taken and given as int8.
#pragma once
#include <vector>

#include "edgefold_compiler/compiler.h"
#include "lower/lowered.h"

namespace edgefold::compiler::quant {

// With `io_int8`: each graph input read only by its Quantize op becomes that op's int8 output
// (renamed to the input's name; the Quantize op is removed), and each graph output written by
// a Dequantize op becomes the op's int8 input (the Dequantize is removed unless a float op
// still reads its result). Inputs read by a float op and outputs written by one stay float,
// with the reason. Without it the model is unchanged. Returns one entry per graph input, then
// per output (dtype, scale, zero point) and sets *removed_ops.
std::vector<QuantIoReport> MakeIoInt8(LoweredModel* m, bool io_int8, int* removed_ops);

}  // namespace edgefold::compiler::quant
