#include "testing/efb_builder.h"

#include <cstring>
#include <numeric>
#include <random>

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

std::vector<float> RandomVector(size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

fb::OpOptionsUnion ConvOptions(int k, int pad, int group, std::optional<fb::ActivationKind> act) {
  fb::ConvOptionsT o;
  o.kernel = {k, k};
  o.strides = {1, 1};
  o.dilations = {1, 1};
  o.pads = {pad, pad, pad, pad};
  o.group = group;
  if (act) o.activation = std::make_unique<fb::Activation>(MakeActivation(*act));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  return u;
}

int AddBatchNorm(EfbBuilder& b, const std::string& name, int x, int channels,
                 const std::vector<int32_t>& shape, fb::ActivationKind act, unsigned seed) {
  const int g =
      b.AddConstant(name + ".gamma", {channels}, RandomVector(channels, seed, 0.5f, 1.5f));
  const int be = b.AddConstant(name + ".beta", {channels}, RandomVector(channels, seed + 1));
  const int m = b.AddConstant(name + ".mean", {channels}, RandomVector(channels, seed + 2));
  const int v =
      b.AddConstant(name + ".var", {channels}, RandomVector(channels, seed + 3, 0.5f, 2.0f));
  const int y = b.AddTensor(name + ".out", shape);
  fb::BatchNormOptionsT o;
  o.epsilon = 1e-5f;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(act));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  b.AddOp(fb::OpType::BatchNorm, name, {x, g, be, m, v}, {y}, std::move(u));
  return y;
}

int AddClassifierHead(EfbBuilder& b, int x, int batch, int channels, const std::vector<float>& fc_w,
                      const std::vector<float>& fc_b, const HeadNames& names) {
  const int classes = static_cast<int>(fc_w.size()) / channels;
  const int pooled = b.AddTensor(names.pooled, {batch, channels, 1, 1});
  fb::GlobalPoolOptionsT gp;
  gp.kind = fb::PoolKind::Average;
  fb::OpOptionsUnion u;
  u.Set(std::move(gp));
  b.AddOp(fb::OpType::GlobalPool, "gap", {x}, {pooled}, std::move(u));
  const int flat = b.AddTensor(names.flat, {batch, channels});
  u.Set(fb::ReshapeOptionsT());
  b.AddOp(fb::OpType::Reshape, "flatten", {pooled}, {flat}, std::move(u));
  std::vector<int32_t> fc_inputs = {flat, b.AddConstant("fc.w", {channels, classes}, fc_w)};
  if (!fc_b.empty()) fc_inputs.push_back(b.AddConstant("fc.b", {classes}, fc_b));
  const int out = b.AddTensor(names.out, {batch, classes});
  u.Set(fb::GemmOptionsT());
  b.AddOp(fb::OpType::Gemm, "fc", fc_inputs, {out}, std::move(u));
  b.AddOutput(out);
  return out;
}

}  // namespace edgefold::testing
