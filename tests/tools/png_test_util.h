// Decodes a PNG with libpng (not our own encoder's logic) for pixel checks in tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

struct DecodedPng {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // 8-bit RGB rows
  uint32_t At(int x, int y) const {
    const uint8_t* p = &rgb[(size_t(y) * width + x) * 3];
    return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2];
  }
};

bool DecodePngWithLibpng(const std::vector<uint8_t>& png, DecodedPng* out, std::string* error);

}  // namespace edgefold::tools
