// Shape refinement after constant folding. ONNX's data propagation in 1.12 does not follow
// every shape chain PyTorch exports (e.g. Unsqueeze of a Constant feeding a Reshape), so a
// Reshape's output and everything after it can be left without a shape. Once the compiler
// has folded those chains to constants, it writes them back as initializers, drops the
// folded nodes and runs ONNX shape inference again.
#pragma once
#include <onnx/onnx_pb.h>

#include "ir/graph.h"

namespace edgefold::compiler::ir {

// True when some node output in `graph` has no static shape.
bool HasUnknownShapes(const Graph& graph);

// `model` (prepared) with every node whose outputs `graph` holds as constants removed,
// those constants added as initializers, and shapes inferred again. Throws CompileError.
onnx::ModelProto ReinferWithConstants(const onnx::ModelProto& model, const Graph& graph);

}  // namespace edgefold::compiler::ir
