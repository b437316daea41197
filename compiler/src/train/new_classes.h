// compile --train --new-classes K: K outputs appended to the classifier (the last Gemm, or
// MatMul + Add, feeding the graph output) as zero weights; the runtime trainer initializes them
// on the device (Kaiming or Xavier uniform, seeded) and training learns them.
#pragma once
#include <string>

namespace onnx {
class ModelProto;
}

namespace edgefold::compiler {

// Widens the classifier's weight and bias by `k` zero outputs and the graph output's class dim.
// `head` receives the node's name. False with a message naming the node on a graph it cannot
// widen (no classifier, a classifier that does not feed the output directly).
bool AppendClasses(onnx::ModelProto* model, int k, std::string* head, std::string* error);

}  // namespace edgefold::compiler
