// The training section as plain data, and the graph as the training code sees it: what the
// compiler's training code reads and decides without the schema (the writer owns it:
// training_section_writer.cc turns these into the schema's tables).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::compiler {

// The graph's ops and tensors, reduced to what deciding and planning training needs.
struct GraphOutline {
  enum class OpRole { kBatchNorm, kConv, kGemm, kOther };
  struct Op {
    std::string name;
    OpRole role = OpRole::kOther;
    std::vector<int32_t> inputs, outputs;
    float bn_epsilon = 0, bn_momentum = 0;  // kBatchNorm only
  };
  struct Tensor {
    std::string name;
    std::vector<int64_t> shape;
    bool is_const = false;
  };
  std::vector<Op> ops;  // topological order
  std::vector<Tensor> tensors;
  std::vector<int32_t> inputs, outputs;
};

struct TrainingBatchNorm {
  int32_t op = -1, gamma = -1, beta = -1, running_mean = -1, running_var = -1;
  float epsilon = 1e-5f, momentum = 0.1f;
};

// One planned training buffer: its role (edgefold::TrainingBuffer; kind is a
// TrainingBufferKind value) and offset.
struct TrainingBufferEntry {
  uint8_t kind = 0;
  int32_t owner = -1;
  uint8_t index = 0, life = 0;
  uint64_t offset = 0, bytes = 0;
};

// Mirrors the schema's TrainingSection (schemas/model.fbs documents each field).
struct TrainingSectionData {
  enum class Saved : uint8_t { kFloat32 = 0, kFloat16, kBFloat16 };
  int32_t batch_size = 1;
  uint64_t arena_bytes = 0;
  std::vector<TrainingBatchNorm> batchnorms;
  std::vector<int32_t> trainable;
  std::vector<TrainingBufferEntry> buffers;  // empty: no plan yet
  uint64_t planned_bytes = 0, lower_bound = 0;
  bool refold_weights = false, frozen_statistics = false;
  int32_t new_classes = 0;
  Saved saved_precision = Saved::kFloat32;
  std::vector<int32_t> recompute_segments;
};

}  // namespace edgefold::compiler
