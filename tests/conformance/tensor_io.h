// Reading the TensorProto files of an ONNX backend test case (test_data_set_*/input_k.pb).
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::conformance {

// Parses one serialized onnx::TensorProto file. False (with `error`) on I/O or parse failure.
bool ReadTensorFile(const std::string& path, onnx::TensorProto* tensor, std::string* error);

// float32 contents from float_data or raw_data (little-endian). False for any other dtype,
// external data, or an element count that disagrees with dims.
bool TensorToFloats(const onnx::TensorProto& tensor, std::vector<float>* values,
                    std::string* error);

// Product of dims (1 for a scalar).
int64_t TensorElems(const onnx::TensorProto& tensor);

// "[2,3,4]"
std::string DimsString(const onnx::TensorProto& tensor);

// ONNX data type name, e.g. "FLOAT", "UINT8".
std::string DataTypeName(int32_t data_type);

// Files matching `<dir>/<prefix><k>.pb` for k = 0, 1, ... until the first gap.
std::vector<std::string> NumberedFiles(const std::string& dir, const std::string& prefix);

}  // namespace edgefold::conformance
