// Fleet update records (edgefold/update_record.h): write, check, decode.
#include "edgefold/update_record.h"

#include <cmath>
#include <cstdarg>

#include "base/error_reporter.h"
#include "fleet/record_bytes.h"

namespace edgefold {
namespace {

using internal::GetF32;
using internal::GetU16;
using internal::GetU32;
using internal::GetU64;
using internal::PutF32;
using internal::PutU16;
using internal::PutU32;
using internal::PutU64;

constexpr uint8_t kMagic[4] = {'E', 'F', 'U', 'R'};
constexpr uint8_t kFlagAffine = 1;
constexpr float kVarianceLogFloor = 1e-30f;  // ln(0) is −∞: the int8 code stores ln(max(σ², floor))

// Arrays per layer: mean, variance (, γ, β). The variance is quantized in the log domain.
enum Array : int { kMean = 0, kVar, kGamma, kBeta };
const char* const kArrayNames[4] = {"mean", "variance", "gamma", "beta"};

size_t ArrayBytes(size_t channels, RecordEncoding e) {
  return e == RecordEncoding::kFloat32 ? 4 * channels : 8 + channels;
}
size_t LayerBytes(size_t channels, RecordEncoding e, bool affine) {
  return 2 + (affine ? 4 : 2) * ArrayBytes(channels, e);
}

float ToCode(float x, int array) {
  return array == kVar ? std::log(x > kVarianceLogFloor ? x : kVarianceLogFloor) : x;
}
float FromCode(float t, int array) { return array == kVar ? std::exp(t) : t; }

void WriteArray(const float* x, size_t c, int array, RecordEncoding e, uint8_t* p) {
  if (e == RecordEncoding::kFloat32) {
    for (size_t i = 0; i < c; ++i) PutF32(p + 4 * i, x[i]);
    return;
  }
  float lo = ToCode(x[0], array), hi = lo;
  for (size_t i = 1; i < c; ++i) {
    const float t = ToCode(x[i], array);
    lo = t < lo ? t : lo;
    hi = t > hi ? t : hi;
  }
  PutF32(p, lo);
  PutF32(p + 4, hi);
  const float step = (hi - lo) / 255.0f;
  for (size_t i = 0; i < c; ++i) {
    const long q = step > 0 ? std::lround((ToCode(x[i], array) - lo) / step) : 0;
    p[8 + i] = uint8_t(int8_t((q < 0 ? 0 : q > 255 ? 255 : q) - 128));
  }
}

// Value i of an array starting at p.
float ReadValue(const uint8_t* p, size_t i, int array, RecordEncoding e) {
  if (e == RecordEncoding::kFloat32) return GetF32(p + 4 * i);
  const float lo = GetF32(p), hi = GetF32(p + 4);
  const int q = int(int8_t(p[8 + i])) + 128;
  return FromCode(lo + float(q) * ((hi - lo) / 255.0f), array);
}

// Where layer `layer` starts (the record's own structure, walked with bounds checks by Check).
const uint8_t* LayerAt(const uint8_t* bytes, size_t layer, RecordEncoding e, bool affine) {
  const uint8_t* p = bytes + kUpdateRecordHeaderBytes;
  for (size_t l = 0; l < layer; ++l) p += LayerBytes(GetU16(p), e, affine);
  return p;
}

}  // namespace

uint64_t ModelHash(const uint8_t* model, size_t model_bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < model_bytes; ++i) h = (h ^ model[i]) * 0x100000001b3ull;
  return h;
}

uint32_t Crc32(const uint8_t* bytes, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= bytes[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

size_t UpdateRecordBytes(const size_t* channels, size_t layers, RecordEncoding encoding,
                         bool affine) {
  size_t n = kUpdateRecordHeaderBytes + 4;
  for (size_t l = 0; l < layers; ++l) n += LayerBytes(channels[l], encoding, affine);
  return n;
}

Status WriteUpdateRecord(const UpdateRecordHeader& h, const BnLayerStats* layers, uint8_t* out,
                         size_t out_bytes, size_t* written, LogFn log, void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  if (written) *written = 0;
  if (h.layers > kUpdateRecordMaxLayers || (h.layers > 0 && layers == nullptr) || out == nullptr) {
    errors.Report("update record: layers %u (at most %zu, with their statistics) and an output",
                  unsigned(h.layers), kUpdateRecordMaxLayers);
    return Status::kInvalidArgument;
  }
  size_t need = kUpdateRecordHeaderBytes + 4;
  for (size_t l = 0; l < h.layers; ++l) {
    const BnLayerStats& s = layers[l];
    const float* arrays[4] = {s.mean, s.var, s.gamma, s.beta};
    if (s.channels == 0 || s.channels > 0xffff) {
      errors.Report("update record: layer %zu channels %zu (1 to 65535)", l, s.channels);
      return Status::kInvalidArgument;
    }
    for (int a = 0; a < (h.affine ? 4 : 2); ++a) {
      if (arrays[a] == nullptr) {
        errors.Report("update record: layer %zu has no %s", l, kArrayNames[a]);
        return Status::kInvalidArgument;
      }
      for (size_t c = 0; c < s.channels; ++c)
        if (!std::isfinite(arrays[a][c]) || (a == kVar && arrays[a][c] < 0)) {
          errors.Report("update record: layer %zu %s[%zu] = %g", l, kArrayNames[a], c,
                        double(arrays[a][c]));
          return Status::kNumericError;
        }
    }
    need += LayerBytes(s.channels, h.encoding, h.affine);
  }
  if (out_bytes < need) {
    errors.Report("update record: %zu bytes needed, the output has %zu", need, out_bytes);
    return Status::kArenaTooSmall;
  }
  for (int i = 0; i < 4; ++i) out[i] = kMagic[i];
  PutU16(out + 4, kUpdateRecordVersion);
  out[6] = uint8_t(h.encoding);
  out[7] = h.affine ? kFlagAffine : 0;
  PutU64(out + 8, h.model_hash);
  PutU32(out + 16, h.round);
  PutU32(out + 20, h.samples);
  PutU32(out + 24, h.origin);
  PutU16(out + 28, h.layers);
  PutU16(out + 30, 0);
  uint8_t* p = out + kUpdateRecordHeaderBytes;
  for (size_t l = 0; l < h.layers; ++l) {
    const BnLayerStats& s = layers[l];
    const float* arrays[4] = {s.mean, s.var, s.gamma, s.beta};
    PutU16(p, uint16_t(s.channels));
    p += 2;
    for (int a = 0; a < (h.affine ? 4 : 2); ++a) {
      WriteArray(arrays[a], s.channels, a, h.encoding, p);
      p += ArrayBytes(s.channels, h.encoding);
    }
  }
  PutU32(p, Crc32(out, size_t(p - out)));
  if (written) *written = need;
  return Status::kOk;
}

namespace {

// Magic, version, encoding, flags and the header's fields.
Status ReadHeader(const uint8_t* bytes, size_t n, UpdateRecordHeader* h,
                  internal::ErrorReporter& errors) {
  if (bytes == nullptr || n < kUpdateRecordHeaderBytes + 4) {
    errors.Report("update record: size %zu bytes, shorter than a header and checksum (%zu)", n,
                  kUpdateRecordHeaderBytes + 4);
    return Status::kInvalidArgument;
  }
  for (int i = 0; i < 4; ++i)
    if (bytes[i] != kMagic[i]) {
      errors.Report("update record: magic is not \"EFUR\"");
      return Status::kInvalidArgument;
    }
  if (GetU16(bytes + 4) != kUpdateRecordVersion) {
    errors.Report("update record: version %u, this runtime reads %u", GetU16(bytes + 4),
                  unsigned(kUpdateRecordVersion));
    return Status::kInvalidArgument;
  }
  if (bytes[6] > uint8_t(RecordEncoding::kInt8) || (bytes[7] & ~kFlagAffine) != 0 ||
      GetU16(bytes + 30) != 0) {
    errors.Report("update record: encoding %u / flags 0x%02x / reserved %u unknown", bytes[6],
                  bytes[7], GetU16(bytes + 30));
    return Status::kInvalidArgument;
  }
  h->encoding = RecordEncoding(bytes[6]);
  h->affine = (bytes[7] & kFlagAffine) != 0;
  h->model_hash = GetU64(bytes + 8);
  h->round = GetU32(bytes + 16);
  h->samples = GetU32(bytes + 20);
  h->origin = GetU32(bytes + 24);
  h->layers = GetU16(bytes + 28);
  if (h->layers > kUpdateRecordMaxLayers) {
    errors.Report("update record: layer count %u (at most %zu)", unsigned(h->layers),
                  kUpdateRecordMaxLayers);
    return Status::kInvalidArgument;
  }
  return Status::kOk;
}

// Size (the layers walked within the bytes given), CRC and signature.
Status CheckFraming(const uint8_t* bytes, size_t n, const UpdateRecordHeader& h,
                    const RecordVerifier* verifier, internal::ErrorReporter& errors) {
  size_t at = kUpdateRecordHeaderBytes;
  for (size_t l = 0; l < h.layers; ++l) {
    if (at + 2 > n || at + LayerBytes(GetU16(bytes + at), h.encoding, h.affine) > n) {
      errors.Report("update record: size %zu bytes, truncated in layer %zu", n, l);
      return Status::kInvalidArgument;
    }
    at += LayerBytes(GetU16(bytes + at), h.encoding, h.affine);
  }
  const size_t record = at + 4;
  const bool has_signature = n == record + kUpdateSignatureBytes;
  if (n != record && !has_signature) {
    errors.Report("update record: size %zu bytes, the record is %zu (+%zu with a signature)", n,
                  record, kUpdateSignatureBytes);
    return Status::kInvalidArgument;
  }
  if (GetU32(bytes + at) != Crc32(bytes, at)) {
    errors.Report("update record: checksum mismatch");
    return Status::kInvalidArgument;
  }
  if (verifier == nullptr) {
    if (!has_signature) return Status::kOk;
    errors.Report("update record: signature present but no verifier to check it");
    return Status::kInvalidArgument;
  }
  if (!has_signature || verifier->verify == nullptr ||
      !verifier->verify(verifier->user, bytes, record, bytes + record, kUpdateSignatureBytes)) {
    errors.Report(has_signature ? "update record: signature does not verify"
                                : "update record: signature missing");
    return Status::kInvalidArgument;
  }
  return Status::kOk;
}

// One array's values: finite, and for the mean and variance within the bounds.
Status CheckArray(const uint8_t* a, size_t c, int k, size_t layer, const UpdateRecordHeader& h,
                  const UpdateExpectation& expect, internal::ErrorReporter& errors) {
  if (h.encoding == RecordEncoding::kInt8 &&
      !(std::isfinite(GetF32(a)) && std::isfinite(GetF32(a + 4)) && GetF32(a) <= GetF32(a + 4))) {
    errors.Report("update record: layer %zu %s range [%g, %g]", layer, kArrayNames[k],
                  double(GetF32(a)), double(GetF32(a + 4)));
    return Status::kNumericError;
  }
  for (size_t i = 0; i < c; ++i) {
    const float v = ReadValue(a, i, k, h.encoding);
    const char* why = !std::isfinite(v)                                  ? "not finite"
                      : k == kMean && std::fabs(v) > expect.max_abs_mean ? "mean absurd"
                      : k == kVar && v < 0                               ? "variance < 0"
                      : k == kVar && v > expect.max_variance             ? "variance absurd"
                                                                         : nullptr;
    if (why != nullptr) {
      errors.Report("update record: layer %zu %s[%zu] = %g (%s)", layer, kArrayNames[k], i,
                    double(v), why);
      return Status::kNumericError;
    }
  }
  return Status::kOk;
}

}  // namespace

Status CheckUpdateRecord(const uint8_t* bytes, size_t n, const UpdateExpectation& expect,
                         UpdateRecordHeader* header, LogFn log, void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  UpdateRecordHeader h;
  EDGEFOLD_RETURN_IF_ERROR(ReadHeader(bytes, n, &h, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckFraming(bytes, n, h, expect.verifier, errors));
  if (h.model_hash != expect.model_hash) {
    errors.Report("update record: model hash %016llx, this model is %016llx",
                  static_cast<unsigned long long>(h.model_hash),
                  static_cast<unsigned long long>(expect.model_hash));
    return Status::kInvalidArgument;
  }
  if (h.layers != expect.layers) {
    errors.Report("update record: layer count %u, the model has %zu", unsigned(h.layers),
                  expect.layers);
    return Status::kInvalidArgument;
  }
  if (expect.require_affine && !h.affine) {
    errors.Report("update record: flags: gamma and beta required, the record has none");
    return Status::kInvalidArgument;
  }
  const uint8_t* p = bytes + kUpdateRecordHeaderBytes;
  for (size_t l = 0; l < h.layers; ++l) {
    const size_t c = GetU16(p);
    if (expect.channels == nullptr || c != expect.channels[l]) {
      errors.Report("update record: layer %zu channels %zu, the model has %zu", l, c,
                    expect.channels ? expect.channels[l] : size_t(0));
      return Status::kInvalidArgument;
    }
    const uint8_t* a = p + 2;
    for (int k = 0; k < (h.affine ? 4 : 2); ++k, a += ArrayBytes(c, h.encoding))
      EDGEFOLD_RETURN_IF_ERROR(CheckArray(a, c, k, l, h, expect, errors));
    p += LayerBytes(c, h.encoding, h.affine);
  }
  if (header) *header = h;
  return Status::kOk;
}

Status DecodeUpdateLayer(const uint8_t* bytes, size_t n, size_t layer, float* mean, float* var,
                         float* gamma, float* beta) {
  if (bytes == nullptr || n < kUpdateRecordHeaderBytes || layer >= GetU16(bytes + 28))
    return Status::kInvalidArgument;
  const RecordEncoding e = RecordEncoding(bytes[6]);
  const bool affine = (bytes[7] & kFlagAffine) != 0;
  const uint8_t* p = LayerAt(bytes, layer, e, affine);
  const size_t c = GetU16(p);
  float* out[4] = {mean, var, affine ? gamma : nullptr, affine ? beta : nullptr};
  const uint8_t* a = p + 2;
  for (int k = 0; k < (affine ? 4 : 2); ++k, a += ArrayBytes(c, e))
    if (out[k] != nullptr)
      for (size_t i = 0; i < c; ++i) out[k][i] = ReadValue(a, i, k, e);
  return Status::kOk;
}

}  // namespace edgefold
