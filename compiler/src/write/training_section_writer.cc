#include "write/training_section_writer.h"

#include "error.h"
#include "write/efb_writer.h"

namespace edgefold::compiler {
namespace {

GraphOutline::OpRole RoleOf(fb::OpType type) {
  switch (type) {
    case fb::OpType::BatchNorm:
      return GraphOutline::OpRole::kBatchNorm;
    case fb::OpType::Conv:
      return GraphOutline::OpRole::kConv;
    case fb::OpType::Gemm:
      return GraphOutline::OpRole::kGemm;
    default:
      return GraphOutline::OpRole::kOther;
  }
}

GraphOutline::Op OutlineOp(const fb::OperatorT& op) {
  GraphOutline::Op o;
  o.name = op.name;
  o.role = RoleOf(op.type);
  o.inputs = op.inputs;
  o.outputs = op.outputs;
  if (const fb::BatchNormOptionsT* bn = op.options.AsBatchNormOptions()) {
    o.bn_epsilon = bn->epsilon;
    o.bn_momentum = bn->momentum;
  }
  return o;
}

std::unique_ptr<fb::TrainingSectionT> ToSchema(const TrainingSectionData& s) {
  auto t = std::make_unique<fb::TrainingSectionT>();
  t->batch_size = s.batch_size;
  t->arena_bytes = s.arena_bytes;
  for (const TrainingBatchNorm& bn : s.batchnorms) {
    auto b = std::make_unique<fb::BatchNormTrainStateT>();
    b->op = bn.op;
    b->gamma = bn.gamma;
    b->beta = bn.beta;
    b->running_mean = bn.running_mean;
    b->running_var = bn.running_var;
    b->epsilon = bn.epsilon;
    b->momentum = bn.momentum;
    t->batchnorms.push_back(std::move(b));
  }
  t->trainable = s.trainable;
  for (const TrainingBufferEntry& e : s.buffers) {
    auto r = std::make_unique<fb::TrainingBufferRecordT>();
    r->kind = static_cast<fb::TrainingBufferKind>(e.kind);
    r->owner = e.owner;
    r->index = e.index;
    r->life = e.life;
    r->offset = e.offset;
    r->bytes = e.bytes;
    t->buffers.push_back(std::move(r));
  }
  t->planned_bytes = s.planned_bytes;
  t->lower_bound = s.lower_bound;
  t->refold_weights = s.refold_weights;
  t->frozen_statistics = s.frozen_statistics;
  t->new_classes = s.new_classes;
  t->saved_precision = static_cast<fb::SavedPrecision>(s.saved_precision);
  t->recompute_segments = s.recompute_segments;
  return t;
}

}  // namespace

flatbuffers::Offset<fb::TrainingSection> WriteTrainingSection(flatbuffers::FlatBufferBuilder& fbb,
                                                              const TrainingSectionData& section) {
  const auto t = ToSchema(section);
  return fb::TrainingSection::Pack(fbb, t.get());
}

GraphOutline OutlineOf(const LoweredModel& model) {
  GraphOutline g;
  for (const fb::OperatorT& op : model.ops) g.ops.push_back(OutlineOp(op));
  for (const LoweredTensor& t : model.tensors) g.tensors.push_back({t.name, t.shape, t.is_const});
  g.inputs.assign(model.inputs.begin(), model.inputs.end());
  g.outputs.assign(model.outputs.begin(), model.outputs.end());
  return g;
}

GraphOutline OutlineOfEfb(const std::vector<uint8_t>& efb) {
  const auto model = fb::UnPackModel(efb.data());
  GraphOutline g;
  for (const auto& op : model->operators) g.ops.push_back(OutlineOp(*op));
  for (const auto& t : model->tensors)
    g.tensors.push_back(
        {t->name, std::vector<int64_t>(t->shape.begin(), t->shape.end()), t->weight_offset >= 0});
  g.inputs = model->inputs;
  g.outputs = model->outputs;
  return g;
}

std::vector<uint8_t> WithTrainingSection(const std::vector<uint8_t>& efb,
                                         const TrainingSectionData& section) {
  auto model = fb::UnPackModel(efb.data());
  model->training = ToSchema(section);
  model->format_version = kEfbFormatVersionTraining;
  flatbuffers::FlatBufferBuilder fbb(efb.size() + 1024);
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyModelBuffer(verifier))
    throw CompileError("internal error: the written .efb fails verification");
  return bytes;
}

LoweredModelWriter::LoweredModelWriter() : model_(std::make_unique<LoweredModel>()) {}
LoweredModelWriter::~LoweredModelWriter() = default;

GraphOutline LoweredModelWriter::Outline() const { return OutlineOf(*model_); }

std::vector<uint8_t> LoweredModelWriter::Write(const TrainingSectionData& section) {
  uint64_t weight_bytes = 0;
  return WriteEfb(model_.get(), &weight_bytes, &section);
}

}  // namespace edgefold::compiler
