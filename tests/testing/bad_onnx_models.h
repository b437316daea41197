// A small valid ONNX model (Conv → BatchNormalization → Relu → GlobalAveragePool → Flatten →
// Gemm) as a protobuf object, so each bad-input case is "this model, with one thing broken"
// (FindNode, FindInitializer and the Set* helpers of onnx_builder.h break it).
// Node names: "conv", "bn", "relu", "gap", "flatten", "fc".
#pragma once
#include <onnx/onnx_pb.h>

namespace edgefold::testing {

onnx::ModelProto ConvBnModel();

}  // namespace edgefold::testing
