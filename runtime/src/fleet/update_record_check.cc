// Fleet update records (edgefold/update_record.h): every check of a received record, and the
// decoding of a checked one.
#include <cmath>

#include "base/error_reporter.h"
#include "edgefold/update_record.h"
#include "fleet/record_codec.h"

namespace edgefold {
using namespace internal;  // the record's layout (record_codec.h)

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
