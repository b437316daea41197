// Graphviz view of a compiled (folded) model, for `edgefold inspect --dot`: one box per op
// annotated with its type, ONNX name, output shapes and bytes (and its constants' sizes);
// graph inputs and outputs as ellipses; every planned tensor an edge labelled with its name
// and shape from its producer to each consumer.
#pragma once
#include <string>

#include "edgefold/model_generated.h"

namespace edgefold::tools {

// DOT source of a verified model. Tensor indices are bounds-checked; a bad one becomes a
// "<bad tensor index N>" label rather than a crash.
std::string ModelToDot(const fb::Model& model, const std::string& title);

}  // namespace edgefold::tools
