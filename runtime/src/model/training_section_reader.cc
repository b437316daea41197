#include "model/training_section_reader.h"

#include <cstdint>

#include "edgefold/model_generated.h"

namespace edgefold::internal {
namespace {

// Training may run at a multiple of the graph's batch (compile --train --batch N keeps the
// inference graph at batch 1): the first input's leading dim is the graph's batch.
Status CheckTrainingBatch(const fb::Model* m, ModelSummary* s, ErrorReporter& errors) {
  const int32_t batch = m->training()->batch_size();
  if (s->num_inputs == 0) return Status::kOk;
  const fb::Tensor* in = m->tensors()->Get(static_cast<uint32_t>(m->inputs()->Get(0)));
  const int32_t graph_batch = in->shape()->size() > 0 ? in->shape()->Get(0) : 1;
  if (batch == graph_batch) return Status::kOk;
  constexpr int32_t kMaxTrainingBatch = 1 << 16;
  if (batch < 1 || batch > kMaxTrainingBatch || graph_batch < 1 || batch % graph_batch != 0) {
    errors.Report("training section: batch %d is not a multiple of graph input '%s''s batch %d",
                  static_cast<int>(batch), in->name() ? in->name()->c_str() : "",
                  static_cast<int>(graph_batch));
    return Status::kInvalidModel;
  }
  s->training_batch_scale = static_cast<size_t>(batch / graph_batch);
  return Status::kOk;
}

Status CheckRecomputeSegments(const fb::TrainingSection* t, ModelSummary* s,
                              ErrorReporter& errors) {
  const auto* seg = t->recompute_segments();
  if (seg == nullptr) return Status::kOk;
  for (uint32_t i = 0; i < seg->size(); ++i) {
    const int32_t op = seg->Get(i);
    const int32_t previous = i > 0 ? seg->Get(i - 1) : 0;
    if (op <= previous || static_cast<size_t>(op) >= s->num_ops) {
      errors.Report(
          "training section: recompute segment %u starts at op %d, not after op %d and "
          "inside the %zu ops",
          i, static_cast<int>(op), static_cast<int>(previous), s->num_ops);
      return Status::kInvalidModel;
    }
  }
  s->recompute_segments = seg->data();
  s->num_recompute_segments = seg->size();
  return Status::kOk;
}

// The trainable list names constant tensors (parameters).
Status CheckTrainableList(const fb::Model* m, ModelSummary* s, ErrorReporter& errors) {
  const auto* list = m->training()->trainable();
  for (uint32_t i = 0; i < list->size(); ++i) {
    const int32_t t = list->Get(i);
    if (t < 0 || static_cast<size_t>(t) >= s->num_tensors ||
        m->tensors()->Get(static_cast<uint32_t>(t))->weight_offset() < 0) {
      errors.Report("training section: trainable entry %u (tensor %d) is not a constant tensor", i,
                    t);
      return Status::kInvalidModel;
    }
  }
  s->has_trainable_list = true;
  s->trainable = list->data();
  s->num_trainable = list->size();
  return Status::kOk;
}

bool SameRole(const fb::TrainingBufferRecord* a, const fb::TrainingBufferRecord* b) {
  return a->kind() == b->kind() && a->owner() == b->owner() && a->index() == b->index() &&
         a->life() == b->life();
}

// Every record: a known kind, 64-byte aligned inside the planned bytes, its role unique. The
// trainer then checks that the records name exactly its own buffers, with their sizes.
Status CheckPlannedBuffers(const fb::TrainingSection* t, ModelSummary* s, ErrorReporter& errors) {
  const auto* buffers = t->buffers();
  const uint64_t planned = t->planned_bytes();
  if (planned > SIZE_MAX / 2) {
    errors.Report(
        "training section: planned training buffers of %llu bytes do not fit this machine",
        static_cast<unsigned long long>(planned));
    return Status::kInvalidModel;
  }
  for (uint32_t i = 0; i < buffers->size(); ++i) {
    const fb::TrainingBufferRecord* b = buffers->Get(i);
    const bool known =
        b->kind() >= fb::TrainingBufferKind::MIN && b->kind() <= fb::TrainingBufferKind::MAX;
    if (!known || b->offset() % 64 != 0 || b->offset() > planned ||
        b->bytes() > planned - b->offset()) {
      errors.Report(
          "training section: buffer record %u (kind %d, owner %d) is of an unknown kind or not "
          "64-byte aligned inside the %llu planned bytes",
          i, static_cast<int>(b->kind()), static_cast<int>(b->owner()),
          static_cast<unsigned long long>(planned));
      return Status::kInvalidModel;
    }
    for (uint32_t j = 0; j < i; ++j)
      if (SameRole(b, buffers->Get(j))) {
        errors.Report(
            "training section: buffer records %u and %u name the same %s buffer of owner %d", j, i,
            fb::EnumNameTrainingBufferKind(b->kind()), static_cast<int>(b->owner()));
        return Status::kInvalidModel;
      }
  }
  s->has_training_plan = true;
  s->num_planned_buffers = buffers->size();
  s->training_planned_bytes = static_cast<size_t>(planned);
  return Status::kOk;
}

}  // namespace

Status CheckTrainingSection(const fb::Model* m, ModelSummary* s, ErrorReporter& errors) {
  const fb::TrainingSection* t = m->training();
  if (t == nullptr) return Status::kOk;
  if (m->format_version() < kFormatVersionTraining) {
    errors.Report(
        "training section of model format version %u (buffers placed by enumeration order) is "
        "no longer read: this runtime reads training sections of version %u; recompile with "
        "'edgefold compile --train'",
        m->format_version(), kFormatVersionTraining);
    return Status::kUnsupportedVersion;
  }
  s->refold_weights = t->refold_weights();
  s->frozen_statistics = t->frozen_statistics();
  s->new_classes = t->new_classes();
  s->saved_precision = static_cast<uint8_t>(t->saved_precision());
  if (s->saved_precision > static_cast<uint8_t>(fb::SavedPrecision::MAX)) {
    errors.Report("training section: saved_precision %u is unknown",
                  static_cast<unsigned>(s->saved_precision));
    return Status::kInvalidModel;
  }
  if (s->new_classes < 0) {
    errors.Report("training section: new_classes %d is negative", static_cast<int>(s->new_classes));
    return Status::kInvalidModel;
  }
  EDGEFOLD_RETURN_IF_ERROR(CheckTrainingBatch(m, s, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckRecomputeSegments(t, s, errors));
  if (t->trainable() == nullptr) {
    if (t->buffers() != nullptr) {
      errors.Report("training section: planned buffers without a trainable set");
      return Status::kInvalidModel;
    }
    return Status::kOk;
  }
  EDGEFOLD_RETURN_IF_ERROR(CheckTrainableList(m, s, errors));
  return t->buffers() != nullptr ? CheckPlannedBuffers(t, s, errors) : Status::kOk;
}

Status CheckTrainingSection(const uint8_t* model, ModelSummary* s, ErrorReporter& errors) {
  return CheckTrainingSection(fb::GetModel(model), s, errors);
}

void ReadPlannedBuffer(const uint8_t* model, size_t i, PlannedBuffer* out) {
  const fb::TrainingBufferRecord* b =
      fb::GetModel(model)->training()->buffers()->Get(static_cast<uint32_t>(i));
  out->kind = static_cast<uint8_t>(b->kind());
  out->owner = b->owner();
  out->index = b->index();
  out->life = b->life();
  out->offset = static_cast<size_t>(b->offset());
  out->bytes = static_cast<size_t>(b->bytes());
}

}  // namespace edgefold::internal
