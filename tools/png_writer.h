// Minimal PNG encoder: 8-bit RGB, no filtering, zlib-compressed (host tool only).
#pragma once
#include <cstdint>
#include <vector>

namespace edgefold::tools {

// `rgb` holds width·height·3 bytes, row-major from the top-left pixel.
std::vector<uint8_t> EncodePng(const std::vector<uint8_t>& rgb, int width, int height);

}  // namespace edgefold::tools
