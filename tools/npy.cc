#include "npy.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "npy_header.h"

namespace edgefold::tools {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O copies little-endian data as is");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kDataAlignment = 64;  // numpy pads the header to this

uint32_t LoadLe(const uint8_t* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

bool Fail(const std::string& name, const std::string& what, std::string* error) {
  *error = name + ": " + what;
  return false;
}

// Element count of `shape` (dims are >= 0), false if it exceeds `limit`.
bool CountElems(const std::vector<int64_t>& shape, size_t limit, size_t* elems) {
  for (int64_t d : shape) {
    if (d == 0) {
      *elems = 0;
      return true;
    }
  }
  size_t n = 1;
  for (int64_t d : shape) {
    if (n > limit / static_cast<size_t>(d)) return false;
    n *= static_cast<size_t>(d);
  }
  *elems = n;
  return true;
}

}  // namespace

size_t NpyArray::elems() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

// The dtypes edgefold reads: '<f4', '<i8', '|i1' (or '<i1'); false for any other.
bool ReadDescr(const std::string& descr, NpyDType* dtype, size_t* item_bytes) {
  if (descr == "<f4") {
    *dtype = NpyDType::kFloat32;
    *item_bytes = 4;
  } else if (descr == "<i8") {
    *dtype = NpyDType::kInt64;
    *item_bytes = 8;
  } else if (descr == "|i1" || descr == "<i1") {
    *dtype = NpyDType::kInt8;
    *item_bytes = 1;
  } else {
    return false;
  }
  return true;
}

// The data into the vector of out->dtype; the others emptied.
void CopyPayload(const uint8_t* payload, size_t payload_bytes, size_t elems, NpyArray* out) {
  out->f32.clear();
  out->i64.clear();
  out->s8.clear();
  if (out->dtype == NpyDType::kFloat32) {
    out->f32.resize(elems);
    if (elems) std::memcpy(out->f32.data(), payload, payload_bytes);
  } else if (out->dtype == NpyDType::kInt8) {
    out->s8.resize(elems);
    if (elems) std::memcpy(out->s8.data(), payload, payload_bytes);
  } else {
    out->i64.resize(elems);
    if (elems) std::memcpy(out->i64.data(), payload, payload_bytes);
  }
}
}  // namespace

bool ParseNpy(const uint8_t* data, size_t data_bytes, const std::string& name, NpyArray* out,
              std::string* error) {
  if (data_bytes < kMagicBytes + 2 || std::memcmp(data, kMagic, kMagicBytes) != 0) {
    return Fail(name, "not a .npy file (magic string \\x93NUMPY missing)", error);
  }
  const int major = data[kMagicBytes];
  if (major != 1 && major != 2) {
    return Fail(name,
                "format version " + std::to_string(major) + "." +
                    std::to_string(data[kMagicBytes + 1]) + " not supported (1.0, 2.0 are)",
                error);
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t preamble_bytes = kMagicBytes + 2 + len_bytes;
  if (data_bytes < preamble_bytes) return Fail(name, "truncated before the header length", error);
  const size_t header_bytes = LoadLe(data + kMagicBytes + 2, len_bytes);
  if (header_bytes > data_bytes - preamble_bytes) {
    return Fail(name,
                "header length " + std::to_string(header_bytes) +
                    " runs past the end of "
                    "the file (" +
                    std::to_string(data_bytes) + " bytes)",
                error);
  }
  const std::string text(reinterpret_cast<const char*>(data + preamble_bytes), header_bytes);
  NpyHeader header;
  std::string why;
  if (!ParseNpyHeaderDict(text, kNpyMaxRank, &header, &why)) return Fail(name, why, error);
  if (header.fortran_order) {
    return Fail(name, "field 'fortran_order' is True; only C order is supported", error);
  }
  size_t item_bytes = 0;
  if (!ReadDescr(header.descr, &out->dtype, &item_bytes)) {
    return Fail(name,
                "field 'descr' is '" + header.descr +
                    "'; only '<f4' (float32), '<i8' (int64) and '|i1' (int8) are supported",
                error);
  }
  const size_t payload_bytes = data_bytes - preamble_bytes - header_bytes;
  size_t elems = 0;
  if (!CountElems(header.shape, payload_bytes / item_bytes + 1, &elems) ||
      elems * item_bytes != payload_bytes) {
    return Fail(name,
                "field 'shape' " + ShapeToString(header.shape) + " of '" + header.descr +
                    "' does not match the " + std::to_string(payload_bytes) +
                    " data bytes in the file",
                error);
  }
  out->shape = header.shape;
  CopyPayload(data + preamble_bytes + header_bytes, payload_bytes, elems, out);
  return true;
}

bool ReadNpy(const std::string& path, NpyArray* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Fail(path, "cannot open for reading", error);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                   std::istreambuf_iterator<char>());
  if (f.bad()) return Fail(path, "read error", error);
  return ParseNpy(bytes.data(), bytes.size(), path, out, error);
}

namespace {

std::vector<uint8_t> EncodeNpy(const char* descr, const void* data, size_t data_bytes,
                               const std::vector<int64_t>& shape) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  // Version 1 stores the header length in 2 bytes; fall back to version 2 beyond that.
  size_t len_bytes = 2;
  size_t total = kMagicBytes + 2 + len_bytes + dict.size() + 1;
  if (total > 65535) len_bytes = 4;
  total = kMagicBytes + 2 + len_bytes + dict.size() + 1;
  const size_t padded = (total + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  dict.append(padded - total, ' ');
  dict += '\n';
  const size_t header_bytes = dict.size();

  std::vector<uint8_t> out(kMagic, kMagic + kMagicBytes);
  out.push_back(len_bytes == 2 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < len_bytes; ++i) out.push_back((header_bytes >> (8 * i)) & 0xff);
  out.insert(out.end(), dict.begin(), dict.end());
  const auto* raw = reinterpret_cast<const uint8_t*>(data);
  out.insert(out.end(), raw, raw + data_bytes);
  return out;
}

bool WriteNpy(const std::string& path, const char* descr, const void* data, size_t elems,
              size_t item_bytes, const std::vector<int64_t>& shape, std::string* error) {
  size_t expect = 0;
  if (!CountElems(shape, SIZE_MAX, &expect) || expect != elems) {
    return Fail(
        path,
        "shape " + ShapeToString(shape) + " does not hold " + std::to_string(elems) + " elements",
        error);
  }
  const std::vector<uint8_t> bytes = EncodeNpy(descr, data, elems * item_bytes, shape);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Fail(path, "cannot open for writing", error);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f.flush()) return Fail(path, "write error", error);
  return true;
}

}  // namespace

std::vector<uint8_t> EncodeNpyFloat32(const float* data, size_t elems,
                                      const std::vector<int64_t>& shape) {
  return EncodeNpy("<f4", data, elems * sizeof(float), shape);
}

bool WriteNpyFloat32(const std::string& path, const float* data, size_t elems,
                     const std::vector<int64_t>& shape, std::string* error) {
  return WriteNpy(path, "<f4", data, elems, sizeof(float), shape, error);
}

bool WriteNpyInt8(const std::string& path, const int8_t* data, size_t elems,
                  const std::vector<int64_t>& shape, std::string* error) {
  return WriteNpy(path, "|i1", data, elems, 1, shape, error);
}

bool ReadLabels(const std::string& path, size_t samples, size_t classes, std::vector<int32_t>* out,
                std::string* error) {
  NpyArray labels;
  if (!ReadNpy(path, &labels, error)) return false;
  if (labels.elems() != samples) {
    *error = path + ": " + std::to_string(labels.elems()) + " labels for " +
             std::to_string(samples) + " samples";
    return false;
  }
  out->resize(samples);
  for (size_t i = 0; i < samples; ++i) {
    const double v = labels.dtype == NpyDType::kInt64  ? double(labels.i64[i])
                     : labels.dtype == NpyDType::kInt8 ? double(labels.s8[i])
                                                       : double(labels.f32[i]);
    if (v < 0 || v >= double(classes) || v != double(int64_t(v))) {
      *error = path + ": label " + std::to_string(v) + " at " + std::to_string(i) +
               " is not a class in [0, " + std::to_string(classes) + ")";
      return false;
    }
    (*out)[i] = static_cast<int32_t>(v);
  }
  return true;
}

}  // namespace edgefold::tools
