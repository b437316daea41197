// A minimal reader for the little-endian float32, C-order .npy files of tests/golden/train.
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace edgefold::kernels::testing {

struct NpyArray {
  std::vector<size_t> shape;
  std::vector<float> data;
};

// Reads `path`; returns false with *error naming the file and the problem.
inline bool ReadNpyF32(const std::string& path, NpyArray* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f && bytes.empty()) return *error = path + ": cannot open", false;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return *error = path + ": not .npy", false;
  const size_t major = static_cast<unsigned char>(bytes[6]);
  const size_t len_bytes = major == 1 ? 2 : 4;
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i)
    header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  const size_t data_at = 8 + len_bytes + header_len;
  const std::string header = bytes.substr(8 + len_bytes, header_len);
  if (header.find("'<f4'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos)
    return *error = path + ": want little-endian float32, C order: " + header, false;
  const size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  out->shape.clear();
  size_t count = 1;
  for (std::string d; std::getline(dims, d, ',');) {
    if (d.find_first_not_of(' ') == std::string::npos) continue;
    out->shape.push_back(std::stoul(d));
    count *= out->shape.back();
  }
  if (bytes.size() != data_at + count * sizeof(float))
    return *error = path + ": size does not match shape", false;
  out->data.resize(count);
  std::memcpy(out->data.data(), bytes.data() + data_at, count * sizeof(float));
  return true;
}

}  // namespace edgefold::kernels::testing
