// An Int8Adapter's statistics to and from a fleet update record (edgefold/update_record.h):
// read from its layers, written back through Int8Adapter::SetStatistics (which refolds them
// into the int8 constants).
#include <cstddef>

#include "base/error_reporter.h"
#include "edgefold/update_record.h"

namespace edgefold {
namespace {

// Layer views and channel counts on the stack (no heap), as for a trainer.
constexpr size_t kMaxLayers = 64;

}  // namespace

Status ExportInt8AdapterUpdate(const Int8Adapter& adapter, UpdateRecordHeader header, uint8_t* out,
                               size_t out_bytes, size_t* written, LogFn log, void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  const size_t n = adapter.num_layers();
  if (n == 0 || n > kMaxLayers || header.affine) {
    errors.Report("update record: an int8 adapter with %zu layers (1 to %zu), statistics only", n,
                  kMaxLayers);
    return Status::kInvalidArgument;
  }
  BnLayerStats layers[kMaxLayers];
  for (size_t i = 0; i < n; ++i) {
    const AdaptedLayer l = adapter.layer(i);
    layers[i] = {l.channels, l.mean, l.var, nullptr, nullptr};
  }
  header.layers = uint16_t(n);
  return WriteUpdateRecord(header, layers, out, out_bytes, written, log, log_user);
}

Status ImportInt8AdapterUpdate(Int8Adapter* adapter, const uint8_t* bytes, size_t bytes_n,
                               UpdateExpectation expect, UpdateRecordHeader* header, LogFn log,
                               void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  const size_t n = adapter == nullptr ? 0 : adapter->num_layers();
  if (n == 0 || n > kMaxLayers) {
    errors.Report("update record: an int8 adapter with %zu layers (1 to %zu)", n, kMaxLayers);
    return Status::kInvalidArgument;
  }
  size_t channels[kMaxLayers];
  size_t most = 0;
  for (size_t i = 0; i < n; ++i) {
    channels[i] = adapter->layer(i).channels;
    most = channels[i] > most ? channels[i] : most;
  }
  expect.channels = channels;
  expect.layers = n;
  UpdateRecordHeader h;
  EDGEFOLD_RETURN_IF_ERROR(CheckUpdateRecord(bytes, bytes_n, expect, &h, log, log_user));
  if (h.affine) {
    errors.Report(
        "update record: flags: gamma/beta present, an int8 adapter takes statistics only");
    return Status::kInvalidArgument;
  }
  // Decoded one layer at a time into a small stack buffer (at most kDecodeChannels channels),
  // then handed to the adapter, which copies them.
  constexpr size_t kDecodeChannels = 256;
  if (most > kDecodeChannels) {
    errors.Report("update record: a layer of %zu channels (at most %zu)", most, kDecodeChannels);
    return Status::kInvalidArgument;
  }
  float mean[kDecodeChannels], var[kDecodeChannels];
  for (size_t i = 0; i < n; ++i) {
    EDGEFOLD_RETURN_IF_ERROR(DecodeUpdateLayer(bytes, bytes_n, i, mean, var, nullptr, nullptr));
    EDGEFOLD_RETURN_IF_ERROR(adapter->SetStatistics(i, mean, var));
  }
  if (header) *header = h;
  return Status::kOk;
}

}  // namespace edgefold
