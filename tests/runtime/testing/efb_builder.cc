#include "testing/efb_builder.h"

#include <cstring>
#include <numeric>

namespace edgefold::testing {
namespace {
uint64_t AlignUp(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }
uint64_t Bytes(const std::vector<int32_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), uint64_t{4},
                         [](uint64_t a, int32_t d) { return a * static_cast<uint64_t>(d); });
}
}  // namespace

int EfbBuilder::AddTensor(const std::string& name, const std::vector<int32_t>& shape) {
  auto t = std::make_unique<fb::TensorT>();
  t->name = name;
  t->shape = shape;
  t->bytes = Bytes(shape);
  t->arena_offset = static_cast<int64_t>(arena_bytes_);
  arena_bytes_ = AlignUp(arena_bytes_ + t->bytes, 64);
  model_.tensors.push_back(std::move(t));
  return static_cast<int>(model_.tensors.size() - 1);
}

int EfbBuilder::AddConstant(const std::string& name, const std::vector<int32_t>& shape,
                            const std::vector<float>& values) {
  auto t = std::make_unique<fb::TensorT>();
  t->name = name;
  t->shape = shape;
  t->bytes = values.size() * sizeof(float);
  const uint64_t offset = AlignUp(model_.weights.size(), 64);
  t->weight_offset = static_cast<int64_t>(offset);
  model_.weights.resize(offset + t->bytes);
  std::memcpy(model_.weights.data() + offset, values.data(), t->bytes);
  model_.tensors.push_back(std::move(t));
  return static_cast<int>(model_.tensors.size() - 1);
}

int EfbBuilder::AddInput(const std::string& name, const std::vector<int32_t>& shape) {
  const int t = AddTensor(name, shape);
  model_.inputs.push_back(t);
  return t;
}

int EfbBuilder::AddOp(fb::OpType type, const std::string& name, const std::vector<int32_t>& inputs,
                      const std::vector<int32_t>& outputs, fb::OpOptionsUnion options,
                      uint64_t scratch_bytes) {
  auto op = std::make_unique<fb::OperatorT>();
  op->type = type;
  op->name = name;
  op->inputs = inputs;
  op->outputs = outputs;
  op->options = std::move(options);
  if (scratch_bytes > 0) {
    op->scratch_offset = static_cast<int64_t>(arena_bytes_);
    op->scratch_bytes = scratch_bytes;
    arena_bytes_ = AlignUp(arena_bytes_ + scratch_bytes, 64);
  }
  model_.operators.push_back(std::move(op));
  return static_cast<int>(model_.operators.size() - 1);
}

std::vector<uint8_t> EfbBuilder::Finish() {
  model_.format_version = 1;
  model_.producer = "efb_builder (test)";
  model_.arena_bytes = arena_bytes_;
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, &model_));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

fb::Activation MakeActivation(fb::ActivationKind kind, float alpha, float beta) {
  return fb::Activation(kind, alpha, beta);
}

}  // namespace edgefold::testing
