// Fleet update records: what a device learned by adapting its BatchNorms, in a compact,
// versioned binary record that a fleet aggregates and sends back (docs/fleet.md).
//
// Layout (little-endian, no padding):
//   header, 32 bytes: "EFUR", version u16, encoding u8, flags u8 (bit 0: γ and β present),
//     model hash u64 (ModelHash of the deployed .efb), round u32, samples u32, origin u32
//     (the device's id; 0 for the fleet's aggregate), layers u16, reserved u16 (0)
//   per layer: channels u16, then the arrays mean, variance (and γ, β):
//     kFloat32: channels × f32 each;
//     kInt8: lo f32, hi f32, channels × i8 each; x = lo + (q + 128)·(hi − lo)/255, with the
//       variance quantized as ln(variance) (its relative error is then bounded per layer)
//   CRC-32 (IEEE) u32 of everything before it
//   optional: a 64-byte signature of everything before it (the record, CRC included)
//
// Reading never writes the caller's model before the whole record has been checked: a record
// refused by CheckUpdateRecord (or ImportTrainerUpdate) leaves the device's model as it was.
// No heap, no exceptions: usable on a microcontroller. The record's bytes are the only extra
// memory a device needs for the exchange (decoding writes straight into the trainer's arena).
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/int8_adapter.h"
#include "edgefold/status.h"
#include "edgefold/trainer.h"
#include "edgefold/types.h"

namespace edgefold {

constexpr uint16_t kUpdateRecordVersion = 1;
constexpr size_t kUpdateRecordHeaderBytes = 32;
constexpr size_t kUpdateSignatureBytes = 64;
constexpr size_t kUpdateRecordMaxLayers = 1024;

enum class RecordEncoding : uint8_t { kFloat32 = 0, kInt8 = 1 };

// One BatchNorm's statistics as a record holds them; the arrays are the caller's. gamma and
// beta are null in a record without them.
struct BnLayerStats {
  size_t channels = 0;
  const float* mean = nullptr;
  const float* var = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
};

struct UpdateRecordHeader {
  uint64_t model_hash = 0;
  uint32_t round = 0;
  uint32_t samples = 0;  // how many samples the statistics summarize (the aggregation weight)
  uint32_t origin = 0;   // device id; 0: the fleet's aggregate
  uint16_t layers = 0;
  RecordEncoding encoding = RecordEncoding::kFloat32;
  bool affine = false;  // γ and β present
};

// FNV-1a (64 bits) of the model's bytes: the model's identity, not a security measure (the
// signature covers the record, hash included).
uint64_t ModelHash(const uint8_t* model, size_t model_bytes);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32).
uint32_t Crc32(const uint8_t* bytes, size_t n);

// Bytes of a record (without signature) for layers of these channel counts.
size_t UpdateRecordBytes(const size_t* channels, size_t layers, RecordEncoding encoding,
                         bool affine);

// Writes the record of `layers` (header.layers of them) into `out`; *written = its bytes.
// kInvalidArgument naming the field when a layer has no channels, more than 65535, a null
// array, or a value that is not finite; kArenaTooSmall when out_bytes is short.
Status WriteUpdateRecord(const UpdateRecordHeader& header, const BnLayerStats* layers, uint8_t* out,
                         size_t out_bytes, size_t* written, LogFn log = nullptr,
                         void* log_user = nullptr);

// A signature check the device supplies: hosted builds plug libsodium's Ed25519
// (fleet/ed25519.h), bare metal its own library's. Returns true when `signature` signs
// `message` under the key the verifier holds.
struct RecordVerifier {
  bool (*verify)(void* user, const uint8_t* message, size_t message_bytes, const uint8_t* signature,
                 size_t signature_bytes) = nullptr;
  void* user = nullptr;
};

// What a device (or the aggregator) accepts.
struct UpdateExpectation {
  uint64_t model_hash = 0;
  const size_t* channels = nullptr;  // per layer
  size_t layers = 0;
  // Non-null: the record must carry a signature this verifier accepts. Null: a record with a
  // signature is refused too (nothing to check it with).
  const RecordVerifier* verifier = nullptr;
  bool require_affine = false;
  // Plausibility bounds: |mean| and variance above these are refused as absurd.
  float max_abs_mean = 1e6f;
  float max_variance = 1e8f;
};

// Checks a whole record without writing anything: magic, version, encoding, flags, model hash,
// layer count, each layer's channels, size, CRC, signature, every value finite, variance ≥ 0
// and within bounds. Returns kInvalidArgument (format, identity, size, CRC, signature) or
// kNumericError (values), with a message naming the field and layer.
Status CheckUpdateRecord(const uint8_t* bytes, size_t bytes_n, const UpdateExpectation& expect,
                         UpdateRecordHeader* header, LogFn log = nullptr, void* log_user = nullptr);

// Decodes layer `layer` of a record CheckUpdateRecord accepted into the caller's arrays
// (gamma and beta may be null: skipped). No checks beyond the layer's index.
Status DecodeUpdateLayer(const uint8_t* bytes, size_t bytes_n, size_t layer, float* mean,
                         float* var, float* gamma, float* beta);

// Bytes of the trainer's record (without signature); 0 when it has no BatchNorm or more than
// 64 (the most Export/Import handle: their per-layer views live on the stack).
size_t TrainerUpdateBytes(const Trainer& trainer, RecordEncoding encoding, bool affine);

// The trainer's BatchNorms as a record: header.layers and header.affine are set from the
// trainer (affine: γ and β are included when header.affine is true).
Status ExportTrainerUpdate(const Trainer& trainer, UpdateRecordHeader header, uint8_t* out,
                           size_t out_bytes, size_t* written, LogFn log = nullptr,
                           void* log_user = nullptr);
// Checks `bytes` against the trainer (model hash, layers and channels from the trainer, the
// rest from `expect`), then writes the statistics (and γ, β when present) into the trainer and
// refolds. On any refusal the trainer is unchanged. `header` may be null.
Status ImportTrainerUpdate(Trainer* trainer, const uint8_t* bytes, size_t bytes_n,
                           UpdateExpectation expect, UpdateRecordHeader* header,
                           LogFn log = nullptr, void* log_user = nullptr);

// The same for an int8 model's adapted statistics (Int8Adapter: statistics in the op's output
// domain, no γ/β: header.affine must be false, and a record with γ/β is refused on import).
Status ExportInt8AdapterUpdate(const Int8Adapter& adapter, UpdateRecordHeader header, uint8_t* out,
                               size_t out_bytes, size_t* written, LogFn log = nullptr,
                               void* log_user = nullptr);
Status ImportInt8AdapterUpdate(Int8Adapter* adapter, const uint8_t* bytes, size_t bytes_n,
                               UpdateExpectation expect, UpdateRecordHeader* header,
                               LogFn log = nullptr, void* log_user = nullptr);

}  // namespace edgefold
