// Builds small ONNX ModelProtos in C++ for the compiler and CLI tests, and reads compiled .efb
// files.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "edgefold/model_generated.h"
#include "edgefold_compiler/compiler.h"
#include "testing/efb_builder.h"  // RandomVector

namespace edgefold::testing {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 14, int64_t ir_version = 7);  // 14: HardSwish
  OnnxBuilder& GraphName(const std::string& name);
  // dims < 0 become symbolic ("N", "D1", ...).
  OnnxBuilder& Input(const std::string& name, const std::vector<int64_t>& dims);
  // An output typed by ONNX shape inference, or with the given dims.
  OnnxBuilder& Output(const std::string& name);
  OnnxBuilder& Output(const std::string& name, const std::vector<int64_t>& dims);
  OnnxBuilder& Init(const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& values);
  OnnxBuilder& InitInt64(const std::string& name, const std::vector<int64_t>& dims,
                         const std::vector<int64_t>& values);
  onnx::NodeProto& Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");
  // The model with output types filled in by ONNX shape inference (the checker requires a
  // shape on every graph output; tests name outputs only).
  onnx::ModelProto model() const;

 private:
  onnx::ModelProto model_;
  std::vector<std::string> outputs_;
  std::map<std::string, std::vector<int64_t>> output_dims_;
};

// Node attributes; SetFloat replaces an attribute of that name the node already has.
void SetInt(onnx::NodeProto& n, const std::string& name, int64_t v);
void SetFloat(onnx::NodeProto& n, const std::string& name, float v);
void SetInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void SetString(onnx::NodeProto& n, const std::string& name, const std::string& v);

// The initializer or node called `name` (nullptr if absent).
onnx::TensorProto* FindInitializer(onnx::ModelProto& m, const std::string& name);
onnx::NodeProto* FindNode(onnx::ModelProto& m, const std::string& name);
// Serializes `m` to `path`; false if it cannot be written.
bool SaveModel(const onnx::ModelProto& m, const std::string& path);

// Compile options with the numeric verification off (tests that only look at the graph).
compiler::CompileOptions NoVerify();

// Adds BatchNormalization `name` on x → y with random γ, β, μ and σ² > 0 for `channels`.
void AddBatchNorm(OnnxBuilder& b, const std::string& name, const std::string& x,
                  const std::string& y, int64_t channels, uint32_t seed);

// Views into a compiled model.
const fb::Model* ModelOf(const std::vector<uint8_t>& efb);
std::vector<const fb::Operator*> OpsOfType(const fb::Model* m, fb::OpType type);
size_t CountOps(const std::vector<uint8_t>& efb, fb::OpType type);
std::vector<float> ConstData(const fb::Model* m, int tensor);

// Largest |a − b| / max(1, |b|) (a size mismatch fails the calling test).
double MaxRelError(const std::vector<float>& a, const std::vector<float>& b);

// Runs a compiled model with the runtime on the given inputs; returns every output.
std::vector<std::vector<float>> RunEfb(const std::vector<uint8_t>& efb,
                                       const std::vector<std::vector<float>>& inputs);

// A BatchNorm's parameters as the builder stored them (initializers NAME.weight, .bias,
// .running_mean, .running_var).
struct BnParams {
  std::vector<float> gamma, beta, mean, var;
};
BnParams ReadBn(const OnnxBuilder& b, const std::string& name);

}  // namespace edgefold::testing
