// libFuzzer target: arbitrary bytes as a fleet update record (edgefold/update_record.h), as a
// device receives them from the network. CheckUpdateRecord must accept, or refuse with a
// message, never crash or read out of bounds; an accepted record must decode to finite values
// with variances ≥ 0 and within the bounds.
// Input: byte 0 holds options (bit 0: recompute the CRC in the last 4 bytes, or the 4 before a
// 64-byte signature with bit 1; bit 1: check with a verifier that accepts every signature), the
// rest follows the magic and version the harness writes, so that the fuzzer starts past them.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "edgefold/update_record.h"

namespace {

bool AcceptAll(void*, const uint8_t*, size_t, const uint8_t*, size_t) { return true; }
void Collect(void* user, const char* message) { static_cast<std::string*>(user)->append(message); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t options = data[0];
  std::vector<uint8_t> r = {'E', 'F', 'U', 'R', 1, 0};
  r.insert(r.end(), data + 1, data + size);
  const size_t tail = (options & 2) ? 4 + edgefold::kUpdateSignatureBytes : 4;
  if ((options & 1) && r.size() >= tail) {
    const size_t at = r.size() - tail;
    const uint32_t crc = edgefold::Crc32(r.data(), at);
    for (int i = 0; i < 4; ++i) r[at + i] = uint8_t(crc >> (8 * i));
  }
  // The expectation the record itself claims (hash, layers and channels as written), so that
  // the checks past identity are reached.
  edgefold::UpdateExpectation e;
  std::vector<size_t> channels;
  if (r.size() >= 32) {
    for (int i = 0; i < 8; ++i) e.model_hash |= uint64_t(r[8 + i]) << (8 * i);
    const size_t layers = size_t(r[28] | r[29] << 8);
    const size_t array = r[6] == 1 ? 8 : 0;
    const size_t per = (r[7] & 1) ? 4 : 2;
    size_t at = 32;
    for (size_t l = 0; l < layers && l < edgefold::kUpdateRecordMaxLayers && at + 2 <= r.size();
         ++l) {
      const size_t c = size_t(r[at] | r[at + 1] << 8);
      channels.push_back(c);
      at += 2 + per * (array + (r[6] == 1 ? c : 4 * c));
    }
  }
  e.channels = channels.data();
  e.layers = channels.size();
  edgefold::RecordVerifier any;
  any.verify = AcceptAll;
  if (options & 2) e.verifier = &any;
  std::string log;
  edgefold::UpdateRecordHeader h;
  const edgefold::Status s = edgefold::CheckUpdateRecord(r.data(), r.size(), e, &h, Collect, &log);
  if (s != edgefold::Status::kOk) {
    if (log.empty()) std::abort();  // every refusal names its field
    return 0;
  }
  for (size_t l = 0; l < h.layers; ++l) {
    std::vector<float> m(channels[l]), v(channels[l]), g(channels[l]), b(channels[l]);
    if (edgefold::DecodeUpdateLayer(r.data(), r.size(), l, m.data(), v.data(), g.data(),
                                    b.data()) != edgefold::Status::kOk)
      std::abort();
    for (size_t c = 0; c < channels[l]; ++c)
      if (!std::isfinite(m[c]) || !(v[c] >= 0.0f) || v[c] > e.max_variance ||
          std::fabs(m[c]) > e.max_abs_mean ||
          (h.affine && !(std::isfinite(g[c]) && std::isfinite(b[c]))))
        std::abort();
  }
  return 0;
}
