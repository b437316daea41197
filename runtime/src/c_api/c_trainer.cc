// C API over edgefold::Trainer. An ef_trainer* is the Trainer* itself (inside the arena).
// A separate object file: firmware that never trains does not link the trainer.
#include "c_api/c_api_common.h"
#include "edgefold/trainer.h"

namespace {

using edgefold::Status;
using edgefold::Trainer;
using edgefold::c_api::ToC;
using edgefold::c_api::ToCpp;

static_assert(EF_TRAIN_ALL == static_cast<int>(edgefold::Trainable::kAll), "ef_trainable");
static_assert(EF_TRAIN_MODEL == static_cast<int>(edgefold::Trainable::kModel), "ef_trainable");
static_assert(EF_STATS_CUMULATIVE_AVERAGE ==
                  static_cast<int>(edgefold::StatsMode::kCumulativeAverage),
              "ef_stats_mode");

Trainer* Cpp(ef_trainer* p) { return reinterpret_cast<Trainer*>(p); }
const Trainer* Cpp(const ef_trainer* p) { return reinterpret_cast<const Trainer*>(p); }

edgefold::TrainOptions ToCpp(const ef_train_options* t) {
  edgefold::TrainOptions out;
  if (t == nullptr) return out;
  out.learning_rate = t->learning_rate;
  out.momentum = t->momentum;
  out.weight_decay = t->weight_decay;
  out.bn_momentum = t->bn_momentum;
  out.stats_mode = static_cast<edgefold::StatsMode>(t->stats_mode);
  out.trainable = static_cast<edgefold::Trainable>(t->trainable);
  out.seed = t->seed;
  return out;
}

edgefold::StreamOptions ToCpp(const ef_stream_options* s) {
  edgefold::StreamOptions out;
  if (s == nullptr) return out;
  out.momentum = s->momentum;
  out.momentum_decay = s->momentum_decay;
  out.momentum_min = s->momentum_min;
  out.prior = s->prior;
  out.variance_floor = s->variance_floor;
  out.window = s->window;
  out.entropy_rise = s->entropy_rise;
  return out;
}

}  // namespace

extern "C" {

void ef_train_options_init(ef_train_options* train) {
  if (train == nullptr) return;
  const edgefold::TrainOptions d;
  train->learning_rate = d.learning_rate;
  train->momentum = d.momentum;
  train->weight_decay = d.weight_decay;
  train->bn_momentum = d.bn_momentum;
  train->stats_mode = static_cast<ef_stats_mode>(d.stats_mode);
  train->trainable = static_cast<ef_trainable>(d.trainable);
  train->seed = d.seed;
}

void ef_stream_options_init(ef_stream_options* stream) {
  if (stream == nullptr) return;
  const edgefold::StreamOptions d;
  stream->momentum = d.momentum;
  stream->momentum_decay = d.momentum_decay;
  stream->momentum_min = d.momentum_min;
  stream->prior = d.prior;
  stream->variance_floor = d.variance_floor;
  stream->window = d.window;
  stream->entropy_rise = d.entropy_rise;
}

ef_status ef_required_training_arena_bytes(const uint8_t* model, size_t model_bytes,
                                           const ef_train_options* train, const ef_options* options,
                                           size_t* arena_bytes) {
  if (arena_bytes == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(edgefold::RequiredTrainingArenaBytes(model, model_bytes, ToCpp(train), arena_bytes,
                                                  ToCpp(options)));
}

ef_status ef_trainer_create(const uint8_t* model, size_t model_bytes, void* arena,
                            size_t arena_bytes, const ef_train_options* train,
                            const ef_options* options, ef_trainer** out) {
  if (out == nullptr) return EF_INVALID_ARGUMENT;
  *out = nullptr;
  Trainer* trainer = nullptr;
  const Status s = Trainer::Create(model, model_bytes, arena, arena_bytes, ToCpp(train),
                                   ToCpp(options), &trainer);
  if (s == Status::kOk) *out = reinterpret_cast<ef_trainer*>(trainer);
  return ToC(s);
}

size_t ef_trainer_batch_size(const ef_trainer* t) { return t ? Cpp(t)->batch_size() : 0; }
size_t ef_trainer_sample_elems(const ef_trainer* t) { return t ? Cpp(t)->sample_elems() : 0; }
size_t ef_trainer_num_classes(const ef_trainer* t) { return t ? Cpp(t)->num_classes() : 0; }

ef_status ef_trainer_step(ef_trainer* t, const float* inputs, const int32_t* labels, float* loss,
                          int* correct) {
  if (t == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(t)->TrainStep(inputs, labels, loss, correct));
}

ef_status ef_trainer_adapt_statistics(ef_trainer* t, const float* inputs) {
  if (t == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(t)->AdaptStatistics(inputs));
}

void ef_trainer_reset_statistics(ef_trainer* t) {
  if (t != nullptr) Cpp(t)->ResetStatistics();
}

ef_status ef_trainer_stream_step(ef_trainer* t, const float* inputs, float* logits,
                                 const ef_stream_options* stream, ef_stream_report* report) {
  if (t == nullptr) return EF_INVALID_ARGUMENT;
  edgefold::StreamReport r;
  const Status s = Cpp(t)->StreamStep(inputs, logits, ToCpp(stream), &r);
  if (s == Status::kOk && report != nullptr) {
    report->entropy = r.entropy;
    report->reset = r.reset ? 1 : 0;
    report->resets = r.resets;
    report->samples = r.samples;
  }
  return ToC(s);
}

void ef_trainer_reset_stream(ef_trainer* t) {
  if (t != nullptr) Cpp(t)->ResetStream();
}

ef_status ef_trainer_evaluate(ef_trainer* t, const float* inputs, float* logits) {
  if (t == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(t)->Evaluate(inputs, logits));
}

size_t ef_trainer_num_parameters(const ef_trainer* t) { return t ? Cpp(t)->num_parameters() : 0; }

ef_status ef_trainer_parameter(const ef_trainer* t, size_t index, ef_parameter* out) {
  if (t == nullptr || out == nullptr || index >= Cpp(t)->num_parameters())
    return EF_INVALID_ARGUMENT;
  const edgefold::ParameterView v = Cpp(t)->parameter(index);
  out->name = v.name;
  out->data = v.data;
  out->elems = v.elems;
  out->trainable = v.trainable ? 1 : 0;
  return EF_OK;
}

size_t ef_trainer_model_bytes(const ef_trainer* t) { return t ? Cpp(t)->model_bytes() : 0; }

ef_status ef_trainer_export_model(const ef_trainer* t, uint8_t* out, size_t out_bytes) {
  if (t == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(t)->ExportModel(out, out_bytes));
}

}  // extern "C"
