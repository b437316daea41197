#include "tensor_io.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace edgefold::conformance {

bool ReadTensorFile(const std::string& path, onnx::TensorProto* tensor, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  if (!tensor->ParseFromIstream(&in)) {
    *error = "not a TensorProto: " + path;
    return false;
  }
  return true;
}

int64_t TensorElems(const onnx::TensorProto& tensor) {
  int64_t n = 1;
  for (int64_t d : tensor.dims()) n *= d;
  return n;
}

std::string DimsString(const onnx::TensorProto& tensor) {
  std::string s = "[";
  for (int i = 0; i < tensor.dims_size(); ++i) {
    if (i) s += ",";
    s += std::to_string(tensor.dims(i));
  }
  return s + "]";
}

std::string DataTypeName(int32_t data_type) {
  if (onnx::TensorProto_DataType_IsValid(data_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(data_type));
  }
  return "dtype#" + std::to_string(data_type);
}

bool TensorToFloats(const onnx::TensorProto& tensor, std::vector<float>* values,
                    std::string* error) {
  const std::string name = "tensor '" + tensor.name() + "'";
  if (tensor.data_type() != onnx::TensorProto::FLOAT) {
    *error = name + " has dtype " + DataTypeName(tensor.data_type()) + ", only FLOAT is run";
    return false;
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    *error = name + " uses external data";
    return false;
  }
  const int64_t elems = TensorElems(tensor);
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    if (raw.size() != static_cast<size_t>(elems) * sizeof(float)) {
      *error = name + ": raw_data holds " + std::to_string(raw.size()) + " bytes, dims " +
               DimsString(tensor) + " need " + std::to_string(elems * 4);
      return false;
    }
    values->resize(static_cast<size_t>(elems));
    std::memcpy(values->data(), raw.data(), raw.size());  // x86/ARM hosts are little-endian
    return true;
  }
  if (tensor.float_data_size() != elems) {
    *error = name + ": float_data holds " + std::to_string(tensor.float_data_size()) +
             " values, dims " + DimsString(tensor) + " need " + std::to_string(elems);
    return false;
  }
  values->assign(tensor.float_data().begin(), tensor.float_data().end());
  return true;
}

std::vector<std::string> NumberedFiles(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    const std::string path = dir + "/" + prefix + std::to_string(k) + ".pb";
    if (!std::filesystem::exists(path)) break;
    files.push_back(path);
  }
  return files;
}

}  // namespace edgefold::conformance
