// edgefold compiler: ONNX model → checked, BN-folded, memory-planned .efb FlatBuffer.
// Host tool: may use the STL and exceptions internally, but reports every failure as a
// CompileResult with a message naming the node and op.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace edgefold::compiler {

struct CompileOptions {
  bool fold_batchnorm = true;  // --no-fold keeps BatchNorm as its own op
  bool fuse_activations = true;
  // With fuse_activations off: still fuse activations into BatchNormalization (training).
  bool fuse_activations_into_batchnorm = false;
  // 3×3 stride-1 convs with ≥ winograd_min_channels input and output channels and ≥ 64 output
  // pixels store Winograd filters: F(2×2, 3×3) (16/9 the weight bytes, 4/9 the multiplies) or, on
  // planes of at least 14² with ≥ 64 channels, F(4×4, 3×3) (36/9 the bytes, 1/4 the multiplies);
  // --no-winograd keeps plain weights. winograd_tile 2 or 4 (--winograd-tile) takes that tile for
  // every such conv; 0 chooses per conv. 16 channels is where Winograd beats the phase-plane GEMM
  // on x86 and the Cortex-M4; on a Cortex-M55 (Helium GEMM) and where arena bytes count more than
  // time, 64 (--winograd-min-channels 64: ResNet-8 float's arena 840 → 365 KB).
  bool winograd = true;
  int winograd_tile = 0;
  int winograd_min_channels = 16;
  // Group-1 float convs with at least 16 output channels that are pointwise (1×1, stride 1,
  // unpadded) over fewer than 49 pixels (49 when they at least double 160 to 320 channels),
  // or stride 2 with at least 16 taps, output rows at least 5 wide, at most 32² outputs and
  // 128 KiB of weights, store Wᵀ [Cin, kh, kw, Cout] (WeightPacking Transposed): the runtime
  // then puts output channels in the vector lanes, where a GEMM over 9 or 36 pixels, or one per
  // 16- or 8-wide output row, wastes most of them (MobileNetV1 VWW's 3² and 6² layers,
  // ResNet-8's stride-2 convs, DS-CNN's first layer; --no-transposed-weights keeps W).
  bool transposed_weights = true;
  // A pointwise expansion whose output only feeds a depthwise conv (inverted residuals) is fused
  // into it when that output is at least twice this many KiB: the depthwise conv then computes it
  // band by band in that much scratch instead of the arena holding it whole (--expansion-band-kb;
  // 0 keeps every expansion an op of its own). Float inference only.
  int expansion_band_kb = 512;
  // Reshape outputs, contiguous Slices and the inputs of a batch-1 Concat share the memory of
  // the tensor they view instead of being copied (off: every tensor its own bytes; training).
  bool share_views = true;
  // The most threads the plan serves (--threads, 1 to 256): grouped convs that are not
  // depthwise (ResNeXt, RegNet) split by group over threads, each thread with its own copy of the
  // op's scratch, so the plan holds min(threads, group) copies of it; a run with more threads
  // than that splits over that many, and with one copy each group's GEMM splits on its own
  // (docs/threads.md). Winograd convs get a scratch slice per thread at one arena place for all
  // of them (each thread its own tile rows). 1: one copy, the smallest arena.
  int threads = 1;
  bool verify = true;                  // run unfolded vs folded graphs on random input
  double verify_rel_tolerance = 1e-4;  // max |a−b| / max(1, max|unfolded|)
  int target_opset = 13;               // older models are upgraded with ONNX's version converter
  // Fixes dynamic input dims (name → shape); unknown dims without an entry are an error.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::string model_name;  // used in messages; defaults to the file name
  // Input normalization x_n = (x − mean[c]) / std[c] on the first graph input (one value, or
  // one per channel of axis 1): the compiled model takes raw x. Folded into the first
  // Conv/FC when exact (no padding), else kept as a ChannelAffine. Empty = none.
  std::vector<float> input_mean, input_std;
  // --quantize int8 (docs/quantization.md): post-training int8 after folding, activation
  // ranges observed by running the float model on `calibration` (float32, shape
  // calibration_shape = [N, the first input's dims after the batch], N a multiple of its batch).
  // quantize_percentile < 100 clips each activation to its [100−P, P] percentiles;
  // quantize_mse (--quantize-clip mse) to the range with the least squared int8 error
  // (clipping + rounding) on the calibration values. Neither: min/max.
  bool quantize_int8 = false;
  std::vector<float> calibration;
  std::vector<int64_t> calibration_shape;
  double quantize_percentile = 100.0;
  bool quantize_mse = false;
  // --quantize-weight-bits 7 (needs quantize_int8): Conv and Gemm weights in [−64, 64] per
  // channel instead of [−127, 127], so every two adjacent weights have |q0| + |q1| ≤ 128 and x86
  // cores without VNNI (AVX2, SSE4.1) run the convolutions as exact u8·s8 pairs (pmaddubsw),
  // at some accuracy (the report's SQNR; docs/quantization.md).
  int quantize_weight_bits = 8;
  // --io int8 (needs quantize_int8): graph inputs and outputs become int8 tensors with the scale
  // and zero point of the Quantize/Dequantize ops they replace (which are dropped), for firmware
  // that never touches floats. An input read by a float op, or an output written by one, stays
  // float (QuantReport::io says so).
  bool io_int8 = false;
  // --adaptable (needs quantize_int8): each BatchNorm folded into an int8 Conv/Gemm is kept on
  // it (|γ|, β, ε·k² per channel: schemas/model.fbs BnAdaptation) so that edgefold::StatsAdapter
  // can re-estimate its statistics on the device by rewriting the op's int32 bias and
  // requantization multiplier, weights untouched (docs/quantization.md).
  bool int8_adaptable = false;
  // A QDQ model (QuantizeLinear/DequantizeLinear) compiles to int8 at its own scales; with
  // qdq_as_float, to its float model instead (the Q/DQ pairs dropped): edgefold diff's reference.
  bool qdq_as_float = false;
};

// One int8 layer of the quantization report.
struct QuantLayerReport {
  std::string name, type;
  float in_scale = 0, out_scale = 0;
  int out_zero_point = 0;
  float w_scale_min = 0, w_scale_max = 0;  // per output channel (0: no weights)
  double range_min = 0, range_max = 0;     // observed on the calibration data (float model)
  double clip_lo = 0, clip_hi = 0;         // the range the scale covers
  int act_min = -128, act_max = 127;       // the output clamp (fused Relu/Clip)
  double sqnr_db = 0;                      // int8 output vs float, over the calibration data
};

// One graph input or output of an int8 model: its dtype and, for int8, real = (q − zero_point)·scale.
struct QuantIoReport {
  std::string name;
  bool is_input = true;
  bool int8 = false;
  float scale = 0;
  int zero_point = 0;
  std::string why_float;  // --io int8 but kept float: the op that needs float
};

struct QuantReport {
  bool ran = false;
  bool io_int8 = false;           // --io int8 asked for
  std::vector<QuantIoReport> io;  // graph inputs, then outputs
  size_t runs = 0;                // calibration runs of the graph
  std::string clipping;           // "min/max", "percentiles 0.1..99.9", "mse"
  int adaptable_layers = 0;       // --adaptable: int8 ops that keep their folded BN
  std::vector<QuantLayerReport> layers;
  std::vector<std::string> float_ops;  // "name (Type): why it stays float"
  int boundaries = 0;                  // Quantize/Dequantize ops inserted
  double output_sqnr_db = 0;           // first graph output, int8 vs float
  double top1_agreement = 0;           // argmax over its last axis, fraction of rows
  uint64_t float_arena_bytes = 0, float_weight_bytes = 0;
};

struct CompileReport {
  int batchnorm_found = 0;
  int batchnorm_folded_backward = 0;        // into the preceding Conv/Gemm/MatMul
  int batchnorm_folded_forward = 0;         // into the following unpadded Conv or Gemm (BN first)
  int batchnorm_kept_affine = 0;            // became ChannelAffine (or BatchNorm with --no-fold)
  bool input_normalization_folded = false;  // --input-mean/--input-std folded into the first layer
  int activations_fused = 0;
  int winograd_convs = 0;    // convs whose weights were stored as Winograd filters,
  int winograd43_convs = 0;  // of them F(4,3)
  int transposed_convs = 0;  // convs whose weights were stored transposed
  int expansions_fused = 0;  // pointwise expansions fused into their depthwise conv
  int nodes_removed = 0;     // Identity, Dropout, folded constants
  double verify_max_abs_error = 0;
  double verify_max_rel_error = 0;
  bool verified = false;
  uint64_t arena_bytes = 0;
  uint64_t arena_lower_bound = 0;
  uint64_t weight_bytes = 0;
  int num_ops = 0;
  int num_tensors = 0;
  int tensor_views = 0;           // Reshape/Slice outputs and Concat inputs planned as views
  int group_split_convs = 0;      // grouped convs planned with scratch for more than one thread
  int sliced_winograd_convs = 0;  // Winograd convs planned with a scratch slice per thread
  QuantReport quant;              // --quantize int8
};

struct CompileResult {
  bool ok = false;
  std::string error;           // set when !ok: names model, node and op
  std::vector<uint8_t> model;  // the .efb bytes when ok
  CompileReport report;
};

CompileResult CompileModel(const onnx::ModelProto& model, const CompileOptions& options);
CompileResult CompileFile(const std::string& onnx_path, const CompileOptions& options);
// Writes `bytes` to `path` via a temporary file and rename, so no half file is ever left.
// Per-channel statistics of input data x[N, C, spatial...] for CompileOptions::input_mean and
// input_std: mean_c and the population standard deviation σ_c pooled over all N·spatial values
// of channel c (not the mean of per-image deviations, which leaves out the spread between
// images and underestimates σ). Accumulated in double, two passes. False (with `error` naming
// the channel) when a channel is constant or the data holds NaN/Inf.
bool InputStatistics(const float* x, size_t samples, size_t channels, size_t spatial,
                     std::vector<float>* mean, std::vector<float>* std_dev, std::string* error);

// The compiler's arena planner (the one that plans inference activations: greedy by size,
// 64-byte aligned, buffers whose lifetimes [first, last] are disjoint share memory), for plans
// outside the inference graph such as the training step's buffers.
struct BufferLifetime {
  uint64_t bytes = 0;
  int first = 0, last = 0;
};
struct BufferPlan {
  std::vector<uint64_t> offsets;  // one per buffer, in order
  uint64_t arena_bytes = 0;       // span of the plan
  uint64_t lower_bound = 0;       // largest sum of live buffers: no plan can be smaller
};
BufferPlan PlanBuffers(const std::vector<BufferLifetime>& buffers);

bool WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes,
                     std::string* error);

}  // namespace edgefold::compiler
