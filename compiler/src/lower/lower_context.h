// Shared state and helpers for the per-op lowering functions.
#pragma once
#include <map>
#include <memory>

#include "ir/graph.h"
#include "lower/lower.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

class LowerContext {
 public:
  LowerContext(const ir::Graph& graph, LoweredModel* model,
               WinogradMode winograd = WinogradMode::kOff, size_t winograd_min_channels = 16,
               bool transposed_weights = false)
      : graph_(graph),
        model_(model),
        winograd_(winograd),
        winograd_min_channels_(winograd_min_channels),
        transposed_weights_(transposed_weights) {}

  const ir::Graph& graph() const { return graph_; }
  WinogradMode winograd() const { return winograd_; }
  size_t winograd_min_channels() const { return winograd_min_channels_; }
  bool transposed_weights() const { return transposed_weights_; }
  // Index of the lowered tensor for IR tensor `name` ("" → -1), created on first use.
  // Activations must be float32 with a static shape; throws naming `node` otherwise.
  int Tensor(const ir::Node& node, const std::string& name);
  // A new tensor that exists only in the lowered graph (constants or intermediates).
  int NewTensor(const std::string& hint, std::vector<int64_t> shape, bool is_const,
                std::vector<float> data);
  const std::vector<int64_t>& Shape(int index) const { return model_->tensors[index].shape; }
  const ir::Tensor& Ir(const ir::Node& node, size_t input) const;
  fb::OperatorT& AddOp(fb::OpType type, const ir::Node& node, std::vector<int> inputs,
                       std::vector<int> outputs);

 private:
  const ir::Graph& graph_;
  LoweredModel* model_;
  WinogradMode winograd_;
  size_t winograd_min_channels_;
  bool transposed_weights_;
  std::map<std::string, int> index_;
};

// A Conv's or ConvTranspose's operands: X, the constant W (and B), Y, their shapes, the group.
// Throws naming the node when W or B is not a constant.
struct ConvOperands {
  int x = -1, b = -1, y = -1;
  const ir::Tensor* w = nullptr;
  std::vector<int64_t> xs, ws, ys;
  int64_t group = 1;
};
ConvOperands ReadConvOperands(LowerContext& ctx, const ir::Node& node);

std::unique_ptr<fb::Activation> ToFbActivation(const kernels::Activation& act);
int32_t ToInt32(const ir::Node& node, int64_t v, const char* what);
// Input `input` when present (must be a constant; `what` names it in the error), else the ints
// attribute `attr` (empty when absent): the two spellings of Slice's and Reduce*'s axes.
std::vector<int64_t> ConstInts(LowerContext& ctx, const ir::Node& node, size_t input,
                               const char* attr, const char* what);
std::vector<int32_t> ToInt32s(const ir::Node& node, const std::vector<int64_t>& v,
                              const char* what);

// Per-op lowering, grouped by file.
void LowerConv(LowerContext& ctx, const ir::Node& node);
void LowerConvTranspose(LowerContext& ctx, const ir::Node& node);
void LowerLayerNorm(LowerContext& ctx, const ir::Node& node);
void LowerInstanceNorm(LowerContext& ctx, const ir::Node& node);
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
void LowerPow(LowerContext& ctx, const ir::Node& node);
void LowerMinMax(LowerContext& ctx, const ir::Node& node);
void LowerConcat(LowerContext& ctx, const ir::Node& node);
void LowerReshape(LowerContext& ctx, const ir::Node& node);
void LowerTranspose(LowerContext& ctx, const ir::Node& node);
void LowerSlice(LowerContext& ctx, const ir::Node& node);
void LowerSplit(LowerContext& ctx, const ir::Node& node);
void LowerReduce(LowerContext& ctx, const ir::Node& node);
void LowerResize(LowerContext& ctx, const ir::Node& node);
void LowerDepthToSpace(LowerContext& ctx, const ir::Node& node);
void LowerRnn(LowerContext& ctx, const ir::Node& node);
void LowerGather(LowerContext& ctx, const ir::Node& node);
void LowerExpand(LowerContext& ctx, const ir::Node& node);

}  // namespace edgefold::compiler
