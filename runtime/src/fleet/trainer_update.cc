// A Trainer's BatchNorms to and from a fleet update record (edgefold/update_record.h):
// statistics (and γ, β) read from and written into the trainer's arena copies, then refolded
// (base/fold_batchnorm.h, through Trainer::Refold).
#include <cstddef>

#include "base/error_reporter.h"
#include "edgefold/update_record.h"

namespace edgefold {
namespace {

// The layer views and channel counts live on the stack (no heap): up to this many BatchNorms,
// more than any network edgefold compiles for a microcontroller has (ResNet-8: 9).
constexpr size_t kMaxBatchNorms = 64;

}  // namespace

size_t TrainerUpdateBytes(const Trainer& trainer, RecordEncoding encoding, bool affine) {
  const size_t n = trainer.num_batchnorms();
  if (n == 0 || n > kMaxBatchNorms) return 0;
  size_t channels[kMaxBatchNorms];
  for (size_t i = 0; i < n; ++i) channels[i] = trainer.batchnorm(i).channels;
  return UpdateRecordBytes(channels, n, encoding, affine);
}

Status ExportTrainerUpdate(const Trainer& trainer, UpdateRecordHeader header, uint8_t* out,
                           size_t out_bytes, size_t* written, LogFn log, void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  const size_t n = trainer.num_batchnorms();
  if (n == 0 || n > kUpdateRecordMaxLayers) {
    errors.Report("update record: the model has %zu BatchNorms (1 to %zu)", n,
                  kUpdateRecordMaxLayers);
    return Status::kInvalidArgument;
  }
  if (n > kMaxBatchNorms) {
    errors.Report("update record: %zu BatchNorms, the exporter handles at most %zu", n,
                  kMaxBatchNorms);
    return Status::kInvalidArgument;
  }
  BnLayerStats layers[kMaxBatchNorms];
  for (size_t i = 0; i < n; ++i) {
    const Trainer::BatchNormView v = trainer.batchnorm(i);
    if (v.mean == nullptr || v.var == nullptr || (header.affine && (!v.gamma || !v.beta))) {
      errors.Report("update record: BatchNorm '%s' has no %s in the trainer's arena", v.name,
                    v.mean == nullptr || v.var == nullptr ? "running statistics" : "gamma/beta");
      return Status::kInvalidArgument;
    }
    layers[i] = {v.channels, v.mean, v.var, v.gamma, v.beta};
  }
  header.layers = uint16_t(n);
  return WriteUpdateRecord(header, layers, out, out_bytes, written, log, log_user);
}

Status ImportTrainerUpdate(Trainer* trainer, const uint8_t* bytes, size_t bytes_n,
                           UpdateExpectation expect, UpdateRecordHeader* header, LogFn log,
                           void* log_user) {
  internal::ErrorReporter errors(log, log_user);
  if (trainer == nullptr) {
    errors.Report("update record: no trainer");
    return Status::kInvalidArgument;
  }
  const size_t n = trainer->num_batchnorms();
  if (n == 0 || n > kMaxBatchNorms) {
    errors.Report("update record: the model has %zu BatchNorms (1 to %zu)", n, kMaxBatchNorms);
    return Status::kInvalidArgument;
  }
  size_t channels[kMaxBatchNorms];
  for (size_t i = 0; i < n; ++i) channels[i] = trainer->batchnorm(i).channels;
  expect.channels = channels;
  expect.layers = n;
  UpdateRecordHeader h;
  EDGEFOLD_RETURN_IF_ERROR(CheckUpdateRecord(bytes, bytes_n, expect, &h, log, log_user));
  if (h.affine)
    for (size_t i = 0; i < n; ++i) {
      const Trainer::BatchNormView v = trainer->batchnorm(i);
      if (v.gamma == nullptr || v.beta == nullptr) {
        errors.Report("update record: BatchNorm '%s': gamma/beta are not in the arena", v.name);
        return Status::kInvalidArgument;
      }
    }
  for (size_t i = 0; i < n; ++i) {
    const Trainer::BatchNormView v = trainer->batchnorm(i);
    EDGEFOLD_RETURN_IF_ERROR(DecodeUpdateLayer(bytes, bytes_n, i, v.mean, v.var,
                                               h.affine ? v.gamma : nullptr,
                                               h.affine ? v.beta : nullptr));
  }
  trainer->Refold();
  if (header) *header = h;
  return Status::kOk;
}

}  // namespace edgefold
