#include "plot_test_model.h"

#include <memory>
#include <string>

#include "edgefold/model_generated.h"

namespace edgefold::tools::testing {
namespace {

std::unique_ptr<fb::TensorT> Tensor(const std::string& name, std::vector<int> shape, int64_t arena,
                                    int64_t weight, uint64_t bytes) {
  auto t = std::make_unique<fb::TensorT>();
  t->name = name;
  t->shape = std::move(shape);
  t->arena_offset = arena;
  t->weight_offset = weight;
  t->bytes = bytes;
  return t;
}

std::unique_ptr<fb::OperatorT> Op(fb::OpType type, const std::string& name, std::vector<int> in,
                                  std::vector<int> out) {
  auto op = std::make_unique<fb::OperatorT>();
  op->type = type;
  op->name = name;
  op->inputs = std::move(in);
  op->outputs = std::move(out);
  return op;
}

}  // namespace

std::vector<uint8_t> BuildPlotTestModel() {
  fb::ModelT m;
  m.format_version = 1;
  m.producer = "plot_test_model";
  m.tensors.push_back(Tensor("x", {1, 16}, 0, -1, 64));      // 0
  m.tensors.push_back(Tensor("W1", {16, 32}, -1, 0, 2048));  // 1
  m.tensors.push_back(Tensor("h", {1, 32}, 128, -1, 128));   // 2
  m.tensors.push_back(Tensor("a", {1, 32}, 0, -1, 128));     // 3
  m.tensors.push_back(Tensor("y", {1, 32}, 128, -1, 128));   // 4
  m.operators.push_back(Op(fb::OpType::Gemm, "fc1", {0, 1, -1}, {2}));
  m.operators.back()->options.Set(fb::GemmOptionsT());
  m.operators.back()->scratch_offset = 64;
  m.operators.back()->scratch_bytes = 64;
  m.operators.push_back(Op(fb::OpType::Activation, "act", {2}, {3}));
  m.operators.push_back(Op(fb::OpType::Softmax, "prob", {3}, {4}));
  m.inputs = {0};
  m.outputs = {4};
  m.arena_bytes = 256;
  m.arena_lower_bound = 256;
  m.weights.assign(2048, 0);
  flatbuffers::FlatBufferBuilder builder;
  fb::FinishModelBuffer(builder, fb::Model::Pack(builder, &m));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

}  // namespace edgefold::tools::testing
