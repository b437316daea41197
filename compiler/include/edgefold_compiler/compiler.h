// edgefold compiler: ONNX model → checked, BN-folded, memory-planned .efb FlatBuffer.
// Host tool: may use the STL and exceptions internally, but reports every failure as a
// CompileResult with a message naming the node and op.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnx { class ModelProto; }

namespace edgefold::compiler {

struct CompileOptions {
  bool fold_batchnorm = true;       // --no-fold keeps BatchNorm as its own op
  bool fuse_activations = true;
  // 3×3 stride-1 convs with ≥ 64 input and output channels store Winograd F(2×2, 3×3) filters
  // (16/9 the weight bytes, ≈ 1.4× faster on x86); --no-winograd keeps plain weights.
  bool winograd = true;
  bool verify = true;               // run unfolded vs folded graphs on random input
  double verify_rel_tolerance = 1e-4;  // max |a−b| / max(1, max|unfolded|)
  int target_opset = 13;            // older models are upgraded with ONNX's version converter
  // Fixes dynamic input dims (name → shape); unknown dims without an entry are an error.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::string model_name;           // used in messages; defaults to the file name
  // Input normalization x_n = (x − mean[c]) / std[c] on the first graph input (one value, or
  // one per channel of axis 1): the compiled model takes raw x. Folded into the first
  // Conv/FC when exact (no padding), else kept as a ChannelAffine. Empty = none.
  std::vector<float> input_mean, input_std;
};

struct CompileReport {
  int batchnorm_found = 0;
  int batchnorm_folded_backward = 0;  // into the preceding Conv/Gemm/MatMul
  int batchnorm_folded_forward = 0;   // into the following Conv (issue 3)
  int batchnorm_kept_affine = 0;      // became ChannelAffine (or BatchNorm with --no-fold)
  bool input_normalization_folded = false;  // --input-mean/--input-std folded into the first layer
  int activations_fused = 0;
  int winograd_convs = 0;             // convs whose weights were stored as Winograd F(2,3)
  int nodes_removed = 0;              // Identity, Dropout, folded constants
  double verify_max_abs_error = 0;
  double verify_max_rel_error = 0;
  bool verified = false;
  uint64_t arena_bytes = 0;
  uint64_t arena_lower_bound = 0;
  uint64_t weight_bytes = 0;
  int num_ops = 0;
  int num_tensors = 0;
};

struct CompileResult {
  bool ok = false;
  std::string error;                // set when !ok: names model, node and op
  std::vector<uint8_t> model;       // the .efb bytes when ok
  CompileReport report;
};

CompileResult CompileModel(const onnx::ModelProto& model, const CompileOptions& options);
CompileResult CompileFile(const std::string& onnx_path, const CompileOptions& options);
// Writes `bytes` to `path` via a temporary file and rename, so no half file is ever left.
bool WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes, std::string* error);

}  // namespace edgefold::compiler
