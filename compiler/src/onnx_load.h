// Loads and normalizes an ONNX model with the ONNX library: checker, version upgrade to
// the target opset, fixing dynamic input dims, shape inference with data propagation.
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

#include "edgefold_compiler/compiler.h"

namespace edgefold::compiler {

// Parses serialized ModelProto bytes; throws CompileError when they are not a model.
onnx::ModelProto ParseModelBytes(const std::string& bytes, const std::string& model_name);

// Returns a checked, opset-upgraded, shape-inferred copy of `model`. Old-IR formalities the
// checker refuses but ONNX Runtime accepts (IR stamp below 3 next to an opset_import,
// IR-3 initializers not declared as graph inputs) are repaired first. Dynamic input dims are
// taken from options.input_shapes; otherwise a symbolic *first* dim defaults to 1 (batch),
// and any other symbolic dim is an error naming the input. Throws CompileError.
onnx::ModelProto PrepareModel(const onnx::ModelProto& model, const CompileOptions& options,
                              const std::string& model_name);

}  // namespace edgefold::compiler
