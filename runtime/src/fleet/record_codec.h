// The layout of fleet update records (edgefold/update_record.h) shared by the writer and the
// checker: field sizes, the per-array codes (the variance in the log domain for int8), values.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "edgefold/update_record.h"
#include "fleet/record_bytes.h"

namespace edgefold::internal {

constexpr uint8_t kMagic[4] = {'E', 'F', 'U', 'R'};
constexpr uint8_t kFlagAffine = 1;
constexpr float kVarianceLogFloor = 1e-30f;  // ln(0) is −∞: the int8 code stores ln(max(σ², floor))

// Arrays per layer: mean, variance (, γ, β). The variance is quantized in the log domain.
enum Array : int { kMean = 0, kVar, kGamma, kBeta };
inline const char* const kArrayNames[4] = {"mean", "variance", "gamma", "beta"};

inline size_t ArrayBytes(size_t channels, RecordEncoding e) {
  return e == RecordEncoding::kFloat32 ? 4 * channels : 8 + channels;
}
inline size_t LayerBytes(size_t channels, RecordEncoding e, bool affine) {
  return 2 + (affine ? 4 : 2) * ArrayBytes(channels, e);
}

inline float ToCode(float x, int array) {
  return array == kVar ? std::log(x > kVarianceLogFloor ? x : kVarianceLogFloor) : x;
}
inline float FromCode(float t, int array) { return array == kVar ? std::exp(t) : t; }

// Value i of an array starting at p.
inline float ReadValue(const uint8_t* p, size_t i, int array, RecordEncoding e) {
  if (e == RecordEncoding::kFloat32) return GetF32(p + 4 * i);
  const float lo = GetF32(p), hi = GetF32(p + 4);
  const int q = int(int8_t(p[8 + i])) + 128;
  return FromCode(lo + float(q) * ((hi - lo) / 255.0f), array);
}

// Where layer `layer` starts (the record's own structure, walked with bounds checks by Check).
inline const uint8_t* LayerAt(const uint8_t* bytes, size_t layer, RecordEncoding e, bool affine) {
  const uint8_t* p = bytes + kUpdateRecordHeaderBytes;
  for (size_t l = 0; l < layer; ++l) p += LayerBytes(GetU16(p), e, affine);
  return p;
}

}  // namespace edgefold::internal
