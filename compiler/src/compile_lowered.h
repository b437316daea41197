// CompileModel that also hands back the lowered, planned model it wrote, so that a caller can
// write the model again with a section of its own in the same writer pass (compile --train).
#pragma once
#include "edgefold_compiler/compiler.h"

namespace edgefold::compiler {

struct LoweredModel;

// As CompileModel; on success *lowered (when not null) holds the model `result.model` encodes.
CompileResult CompileModelLowered(const onnx::ModelProto& model, const CompileOptions& options,
                                  LoweredModel* lowered);

}  // namespace edgefold::compiler
