// Shared state and helpers for the per-op lowering functions.
#pragma once
#include <map>
#include <memory>

#include "ir/graph.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

class LowerContext {
 public:
  LowerContext(const ir::Graph& graph, LoweredModel* model, bool winograd = false)
      : graph_(graph), model_(model), winograd_(winograd) {}

  const ir::Graph& graph() const { return graph_; }
  bool winograd() const { return winograd_; }
  // Index of the lowered tensor for IR tensor `name` ("" → -1), created on first use.
  // Activations must be float32 with a static shape; throws naming `node` otherwise.
  int Tensor(const ir::Node& node, const std::string& name);
  // A new tensor that exists only in the lowered graph (constants or intermediates).
  int NewTensor(const std::string& hint, std::vector<int64_t> shape, bool is_const, std::vector<float> data);
  const std::vector<int64_t>& Shape(int index) const { return model_->tensors[index].shape; }
  const ir::Tensor& Ir(const ir::Node& node, size_t input) const;
  fb::OperatorT& AddOp(fb::OpType type, const ir::Node& node, std::vector<int> inputs, std::vector<int> outputs);

 private:
  const ir::Graph& graph_;
  LoweredModel* model_;
  bool winograd_;
  std::map<std::string, int> index_;
};

std::unique_ptr<fb::Activation> ToFbActivation(const kernels::Activation& act);
int32_t ToInt32(const ir::Node& node, int64_t v, const char* what);
std::vector<int32_t> ToInt32s(const ir::Node& node, const std::vector<int64_t>& v, const char* what);

// Per-op lowering, grouped by file.
void LowerConv(LowerContext& ctx, const ir::Node& node);
void LowerPool(LowerContext& ctx, const ir::Node& node);
void LowerGlobalPool(LowerContext& ctx, const ir::Node& node);
void LowerPad(LowerContext& ctx, const ir::Node& node);
void LowerSoftmax(LowerContext& ctx, const ir::Node& node);
void LowerFC(LowerContext& ctx, const ir::Node& node);
void LowerMatMul(LowerContext& ctx, const ir::Node& node);
void LowerBatchNorm(LowerContext& ctx, const ir::Node& node);
void LowerChannelAffine(LowerContext& ctx, const ir::Node& node);
void LowerActivation(LowerContext& ctx, const ir::Node& node);
void LowerPRelu(LowerContext& ctx, const ir::Node& node);
void LowerBinary(LowerContext& ctx, const ir::Node& node);
void LowerConcat(LowerContext& ctx, const ir::Node& node);
void LowerReshape(LowerContext& ctx, const ir::Node& node);
void LowerTranspose(LowerContext& ctx, const ir::Node& node);
void LowerSlice(LowerContext& ctx, const ir::Node& node);
void LowerSplit(LowerContext& ctx, const ir::Node& node);
void LowerReduceMean(LowerContext& ctx, const ir::Node& node);

}  // namespace edgefold::compiler
