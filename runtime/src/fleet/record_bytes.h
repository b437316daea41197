// Little-endian field access for fleet update records (update_record.h), byte by byte so that
// the layout is the same on every target and alignment never matters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgefold::internal {

inline void PutU16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void PutF32(uint8_t* p, float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  PutU32(p, v);
}
inline uint16_t GetU16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}
inline uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
inline float GetF32(const uint8_t* p) {
  const uint32_t v = GetU32(p);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

}  // namespace edgefold::internal
