// A small valid ONNX model (Conv → BatchNormalization → Relu → GlobalAveragePool → Flatten →
// Gemm) as a protobuf object, so each bad-input case is "this model, with one thing broken".
// Node names: "conv", "bn", "relu", "gap", "flatten", "fc".
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

namespace edgefold::hardening {

onnx::ModelProto ConvBnModel();
// The initializer or node called `name` (nullptr if absent).
onnx::TensorProto* FindInitializer(onnx::ModelProto& m, const std::string& name);
onnx::NodeProto* FindNode(onnx::ModelProto& m, const std::string& name);
void SetAttribute(onnx::NodeProto* node, const std::string& name, const std::string& value);
void SetAttribute(onnx::NodeProto* node, const std::string& name, float value);
bool SaveModel(const onnx::ModelProto& m, const std::string& path);

}  // namespace edgefold::hardening
