#include "png_writer.h"

#include <zlib.h>

#include <cstring>

namespace edgefold::tools {
namespace {

void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(uint8_t(v >> shift));
}

// length, type, data, CRC-32 over type+data (PNG spec §5.3).
void PutChunk(std::vector<uint8_t>* out, const char type[4], const std::vector<uint8_t>& data) {
  PutU32(out, static_cast<uint32_t>(data.size()));
  const size_t start = out->size();
  out->insert(out->end(), type, type + 4);
  out->insert(out->end(), data.begin(), data.end());
  const uLong crc = crc32(0L, out->data() + start, static_cast<uInt>(out->size() - start));
  PutU32(out, static_cast<uint32_t>(crc));
}

}  // namespace

std::vector<uint8_t> EncodePng(const std::vector<uint8_t>& rgb, int width, int height) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> out(kSignature, kSignature + 8);
  std::vector<uint8_t> ihdr;
  PutU32(&ihdr, static_cast<uint32_t>(width));
  PutU32(&ihdr, static_cast<uint32_t>(height));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bit, RGB, deflate, filter 0, no interlace
  PutChunk(&out, "IHDR", ihdr);

  // Each scanline is a filter-type byte (0 = none) followed by the row's pixels.
  const size_t row_bytes = size_t(width) * 3;
  std::vector<uint8_t> raw((row_bytes + 1) * height);
  for (int y = 0; y < height; ++y) {
    raw[y * (row_bytes + 1)] = 0;
    std::memcpy(&raw[y * (row_bytes + 1) + 1], &rgb[y * row_bytes], row_bytes);
  }
  uLongf packed_bytes = compressBound(static_cast<uLong>(raw.size()));
  std::vector<uint8_t> packed(packed_bytes);
  compress2(packed.data(), &packed_bytes, raw.data(), static_cast<uLong>(raw.size()), 6);
  packed.resize(packed_bytes);
  PutChunk(&out, "IDAT", packed);
  PutChunk(&out, "IEND", {});
  return out;
}

}  // namespace edgefold::tools
