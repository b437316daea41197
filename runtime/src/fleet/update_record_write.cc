// Fleet update records (edgefold/update_record.h): identity, checksum, size and the writer.
#include <cmath>

#include "base/error_reporter.h"
#include "edgefold/update_record.h"
#include "fleet/record_codec.h"

namespace edgefold {
namespace {

using namespace internal;  // the record's layout (record_codec.h)

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

}  // namespace edgefold
