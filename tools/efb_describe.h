// Human-readable descriptions of parts of a verified .efb FlatBuffer, for `edgefold inspect`.
// Every tensor index is bounds-checked here: the FlatBuffers verifier checks the buffer's
// structure, not that indices stored in it point at existing tensors.
#pragma once
#include <string>

#include "edgefold/model_generated.h"

namespace edgefold::tools {

// "name [1, 8, 8, 8]" / "<absent>" for -1 / "<bad tensor index 17>".
std::string DescribeTensorRef(const fb::Model& model, int index);

// " Float32" / " Int8 scale 0.0235 zero point -128" for tensor `index` ("" for a bad index).
std::string DescribeDType(const fb::Model& model, int index);

// "[1, 8, 8, 8] float32 arena@128 2048 B" for one tensor.
std::string DescribeTensor(const fb::Tensor& tensor);

// "Conv+Relu k3x3 s1x1 p1,1,1,1 g1", "Gemm", "Pool(Max) k2x2 s2x2", ...
std::string DescribeOpType(const fb::Operator& op);

}  // namespace edgefold::tools
