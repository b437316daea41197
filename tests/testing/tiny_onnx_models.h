// Small ONNX models built in C++ for the CLI end-to-end tests, each with a plain-loop
// reference forward pass computed from the same deterministic weights.
#pragma once
#include <string>
#include <vector>

namespace edgefold::testing {

// x[1,2,5,5] → Conv(3×3, pad 1, 3 ch) → BatchNormalization → Relu → GlobalAveragePool →
// Flatten → Gemm(transB) → y[1,4]. One BatchNorm the compiler folds into the Conv.
bool WriteConvBnModel(const std::string& path, std::string* error);
std::vector<float> ConvBnReference(const std::vector<float>& x);  // one [1,2,5,5] sample
constexpr int kConvBnInputElems = 2 * 5 * 5;
constexpr int kConvBnOutputElems = 4;

// a[1,3], b[1,3] → Sub → Mul(s) → Relu → y = max((a − b)·s, 0), s = {1, 2, 0.5}:
// order-sensitive graph inputs.
bool WriteTwoInputModel(const std::string& path, std::string* error);

}  // namespace edgefold::testing
