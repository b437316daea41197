// Reading and writing NumPy .npy files (format versions 1.0 and 2.0).
//
// Accepted on read: little-endian float32 ('<f4'), int64 ('<i8') or int8 ('|i1'), C order
// (fortran_order False), any rank up to kNpyMaxRank, data size exactly matching the
// shape. Anything else is rejected with a message naming the file and the header field.
// Written: version 1.0 (2.0 only if the header would not fit), '<f4' or '|i1', C order, header
// padded so the data starts at a 64-byte boundary, byte-identical to numpy.save.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

constexpr int kNpyMaxRank = 32;  // numpy's own limit (NPY_MAXDIMS)

enum class NpyDType { kFloat32, kInt64, kInt8 };

struct NpyArray {
  NpyDType dtype = NpyDType::kFloat32;
  std::vector<int64_t> shape;  // empty = scalar (one element)
  std::vector<float> f32;      // filled when dtype == kFloat32
  std::vector<int64_t> i64;    // filled when dtype == kInt64
  std::vector<int8_t> s8;      // filled when dtype == kInt8
  size_t elems() const;
};

// Parses .npy bytes. `name` (usually the path) is used in error messages.
bool ParseNpy(const uint8_t* data, size_t data_bytes, const std::string& name, NpyArray* out,
              std::string* error);
bool ReadNpy(const std::string& path, NpyArray* out, std::string* error);

// Encodes `elems` floats with `shape` (product must equal elems) as .npy bytes.
std::vector<uint8_t> EncodeNpyFloat32(const float* data, size_t elems,
                                      const std::vector<int64_t>& shape);
bool WriteNpyFloat32(const std::string& path, const float* data, size_t elems,
                     const std::vector<int64_t>& shape, std::string* error);

bool WriteNpyInt8(const std::string& path, const int8_t* data, size_t elems,
                  const std::vector<int64_t>& shape, std::string* error);

std::string ShapeToString(const std::vector<int64_t>& shape);  // "[1, 3, 32, 32]"

// Class labels (int64, int8 or float32 .npy) for `samples` samples, each a class in
// [0, classes); `error` names the file and the first bad label.
bool ReadLabels(const std::string& path, size_t samples, size_t classes, std::vector<int32_t>* out,
                std::string* error);

}  // namespace edgefold::tools
