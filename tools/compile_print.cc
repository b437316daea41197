// What `edgefold compile` prints after a compile: the passes, the plan, the quantization.
#include <cstdio>

#include "compile_flags.h"

namespace edgefold::tools {
namespace {

void PrintQuantReport(const compiler::QuantReport& q, uint64_t arena_bytes, uint64_t weight_bytes) {
  if (q.runs == 0)  // a QDQ model: its own scales, nothing calibrated
    std::printf(
        "int8 (QDQ model, %s): %zu int8 layers, %zu float ops, %d quantize/dequantize ops\n",
        q.clipping.c_str(), q.layers.size(), q.float_ops.size(), q.boundaries);
  else
    std::printf(
        "int8: %zu calibration runs (clipping: %s), %zu int8 layers, %zu float ops, %d "
        "quantize/dequantize ops\n",
        q.runs, q.clipping.c_str(), q.layers.size(), q.float_ops.size(), q.boundaries);
  for (const std::string& f : q.float_ops) std::printf("  stays float: %s\n", f.c_str());
  std::printf("  %-28s %-20s %10s %10s %5s %10s %10s %21s %21s %9s\n", "layer", "type", "in scale",
              "out scale", "zp", "w scale lo", "w scale hi", "observed range", "int8 range (clip)",
              "SQNR dB");
  for (const compiler::QuantLayerReport& l :
       q.layers)  // pools and reshapes have no weights: w scales 0
    std::printf(
        "  %-28.28s %-20.20s %10.4g %10.4g %5d %10.3g %10.3g [%9.4g,%9.4g] [%9.4g,%9.4g] %9.2f\n",
        l.name.c_str(), l.type.c_str(), l.in_scale, l.out_scale, l.out_zero_point, l.w_scale_min,
        l.w_scale_max, l.range_min, l.range_max, l.clip_lo, l.clip_hi, l.sqnr_db);
  if (q.runs > 0)  // a QDQ model has no calibration runs to measure on
    std::printf("int8 output: SQNR %.2f dB, top-1 agreement with float %.2f %%\n", q.output_sqnr_db,
                100.0 * q.top1_agreement);
  std::printf("int8 I/O: %s\n", q.io_int8
                                    ? "int8 (--io int8)"
                                    : "float (Quantize at the inputs, Dequantize at the outputs)");
  for (const compiler::QuantIoReport& io : q.io) {
    if (io.int8)
      std::printf("  %s '%s': int8, scale %.9g, zero point %d (real = (q - zero point) * scale)\n",
                  io.is_input ? "input" : "output", io.name.c_str(), double(io.scale),
                  io.zero_point);
    else
      std::printf("  %s '%s': float32%s%s\n", io.is_input ? "input" : "output", io.name.c_str(),
                  io.why_float.empty() ? "" : ", stays float: ", io.why_float.c_str());
  }
  if (q.adaptable_layers > 0)
    std::printf(
        "int8 adaptable: %d layers keep their folded BatchNorm (edgefold train --adapt-stats-only "
        "adapts them)\n",
        q.adaptable_layers);
  std::printf("int8 arena: %llu bytes (float %llu), weights %llu bytes (float %llu)\n",
              static_cast<unsigned long long>(arena_bytes),
              static_cast<unsigned long long>(q.float_arena_bytes),
              static_cast<unsigned long long>(weight_bytes),
              static_cast<unsigned long long>(q.float_weight_bytes));
}

}  // namespace

void PrintReport(const compiler::CompileReport& r, size_t efb_bytes) {
  std::printf("BatchNorm: %d found, %d folded backward, %d folded forward, %d kept\n",
              r.batchnorm_found, r.batchnorm_folded_backward, r.batchnorm_folded_forward,
              r.batchnorm_kept_affine);
  if (r.input_normalization_folded)
    std::printf("input normalization: folded into the first layer\n");
  std::printf(
      "activations fused: %d, nodes removed: %d, winograd convs: %d (F(4x4,3x3): %d), expansions "
      "fused: %d\n",
      r.activations_fused, r.nodes_removed, r.winograd_convs, r.winograd43_convs,
      r.expansions_fused);
  if (r.verified) {
    std::printf("verify: max abs error %.3g, max rel error %.3g\n", r.verify_max_abs_error,
                r.verify_max_rel_error);
  } else {
    std::printf("verify: skipped\n");
  }
  std::printf("ops: %d, tensors: %d (%d views: planned inside another tensor, not copied)\n",
              r.num_ops, r.num_tensors, r.tensor_views);
  if (r.group_split_convs > 0)
    std::printf("grouped convs with scratch per thread (split by group): %d\n",
                r.group_split_convs);
  if (r.sliced_winograd_convs > 0)
    std::printf("Winograd convs with a scratch slice per thread: %d\n", r.sliced_winograd_convs);
  const double ratio = r.arena_lower_bound ? double(r.arena_bytes) / r.arena_lower_bound : 0.0;
  std::printf("arena: %llu bytes (lower bound %llu, ratio %.3f)\n",
              static_cast<unsigned long long>(r.arena_bytes),
              static_cast<unsigned long long>(r.arena_lower_bound), ratio);
  std::printf("weights: %llu bytes, .efb file: %zu bytes\n",
              static_cast<unsigned long long>(r.weight_bytes), efb_bytes);
  if (r.quant.ran) PrintQuantReport(r.quant, r.arena_bytes, r.weight_bytes);
}

}  // namespace edgefold::tools
