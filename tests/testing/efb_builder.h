// Builds small .efb models in tests without the compiler: planned tensors get consecutive,
// never-shared arena offsets; constants go into the 64-byte aligned weights blob.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"

namespace edgefold::testing {

// 64-byte aligned heap copy of bytes (the runtime requires aligned models and arenas).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes)
      : size_(bytes),
        data_(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))) {}
  AlignedBuffer(const std::vector<uint8_t>& bytes) : AlignedBuffer(bytes.size()) {
    std::copy(bytes.begin(), bytes.end(), data_.get());
  }
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<uint8_t, Free> data_;
};

class EfbBuilder {
 public:
  int AddTensor(const std::string& name, const std::vector<int32_t>& shape);
  int AddConstant(const std::string& name, const std::vector<int32_t>& shape,
                  const std::vector<float>& values);
  int AddInput(const std::string& name, const std::vector<int32_t>& shape);
  void AddOutput(int tensor) { model_.outputs.push_back(tensor); }
  // Adds an op; `options` is the union member for `type`. Returns the op index.
  int AddOp(fb::OpType type, const std::string& name, const std::vector<int32_t>& inputs,
            const std::vector<int32_t>& outputs, fb::OpOptionsUnion options,
            uint64_t scratch_bytes = 0);
  std::vector<uint8_t> Finish();

  fb::ModelT& model() { return model_; }

 private:
  fb::ModelT model_;
  uint64_t arena_bytes_ = 0;
};

fb::Activation MakeActivation(fb::ActivationKind kind, float alpha = 0, float beta = 0);

// Deterministic pseudo-random values in [lo, hi): std::mt19937(seed), uniform.
std::vector<float> RandomVector(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f);

// Conv options: k×k kernel, stride 1, dilation 1, `pad` on every side; the fused activation is
// left unset unless `act` is given.
fb::OpOptionsUnion ConvOptions(int k, int pad, int group = 1,
                               std::optional<fb::ActivationKind> act = std::nullopt);

// BatchNorm `name` (ε = 1e-5, fused `act`) on tensor x of `shape` with random γ ∈ [0.5, 1.5),
// β, μ ∈ [−1, 1) and σ² ∈ [0.5, 2) (seeds seed … seed+3); returns its output `name`.out.
int AddBatchNorm(EfbBuilder& b, const std::string& name, int x, int channels,
                 const std::vector<int32_t>& shape, fb::ActivationKind act, unsigned seed);

// The classifier head x[batch, channels, H, W] → GlobalAveragePool "gap" → Reshape "flatten" →
// Gemm "fc" (constants fc.w [channels, classes] and, unless empty, fc.b [classes]) → `out`
// [batch, classes], marked as a model output. Returns `out`'s tensor.
struct HeadNames {
  std::string pooled = "gap", flat = "flat", out = "y";
};
int AddClassifierHead(EfbBuilder& b, int x, int batch, int channels, const std::vector<float>& fc_w,
                      const std::vector<float>& fc_b, const HeadNames& names = HeadNames());

}  // namespace edgefold::testing
