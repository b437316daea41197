// Resize and Upsample (→ Resize of the last two axes with per-axis scale and offset),
// DepthToSpace, SpaceToDepth. Opset-10 Resize and Upsample reach here upgraded by ONNX's version
// converter, with their asymmetric/floor semantics restored by onnx_load.cc.
#include <cmath>

#include "lower/lower_context.h"

namespace edgefold::compiler {
namespace {

// Source coordinate s = i·scale + offset of ONNX's coordinate_transformation_mode for one axis
// resized by factor r. As in ONNX's definition, the resized length is in·r before rounding
// (sizes give r = out/in, so it is exactly out there).
struct AxisTransform {
  double scale, offset;
};

AxisTransform Transform(const ir::Node& n, const std::string& mode, double r, int64_t in) {
  const double resized = static_cast<double>(in) * r;
  if (mode == "half_pixel") return {1.0 / r, 0.5 / r - 0.5};
  if (mode == "pytorch_half_pixel")
    return resized > 1.0 ? AxisTransform{1.0 / r, 0.5 / r - 0.5} : AxisTransform{0.0, 0.0};
  if (mode == "align_corners")
    return resized != 1.0 ? AxisTransform{static_cast<double>(in - 1) / (resized - 1.0), 0.0}
                          : AxisTransform{0.0, 0.0};
  if (mode == "asymmetric") return {1.0 / r, 0.0};
  // tf_half_pixel_for_nn is the name ONNX's own test data (and onnxruntime) use.
  if (mode == "tf_half_pixel_for_nearest" || mode == "tf_half_pixel_for_nn")
    return {1.0 / r, 0.5 / r};
  if (mode == "tf_crop_and_resize")
    throw CompileError(n.Msg(
        "coordinate_transformation_mode 'tf_crop_and_resize' (roi-based crop) is unsupported"));
  throw CompileError(n.Msg("unknown coordinate_transformation_mode '" + mode + "'"));
}

fb::NearestMode NearestModeOf(const ir::Node& n) {
  const std::string m = n.Str("nearest_mode", "round_prefer_floor");
  if (m == "round_prefer_floor") return fb::NearestMode::RoundPreferFloor;
  if (m == "round_prefer_ceil") return fb::NearestMode::RoundPreferCeil;
  if (m == "floor") return fb::NearestMode::Floor;
  if (m == "ceil") return fb::NearestMode::Ceil;
  throw CompileError(n.Msg("unknown nearest_mode '" + m + "'"));
}

// Constant input `i` as doubles, or {} when absent or empty.
std::vector<double> ConstInput(LowerContext& ctx, const ir::Node& n, size_t i, const char* what) {
  if (n.In(i).empty()) return {};
  if (!ctx.graph().IsConst(n.inputs[i]))
    throw CompileError(n.Msg(
        std::string("input '") + what +
        "' must be a constant (or computed from static shapes); dynamic resize is unsupported"));
  return ctx.Ir(n, i).data;
}

// Per-axis factor r: the scales input (Upsample's attribute or input 1, Resize-11+'s input 2),
// else sizes / input dims.
std::vector<double> Factors(LowerContext& ctx, const ir::Node& n, const std::vector<int64_t>& xs,
                            const std::vector<int64_t>& ys) {
  const size_t rank = xs.size();
  std::vector<double> r;
  if (n.op == "Upsample") {
    r = n.Has("scales") ? n.attrs.at("scales").floats : ConstInput(ctx, n, 1, "scales");
  } else {
    r = ConstInput(ctx, n, n.inputs.size() == 2 ? 1 : 2, "scales");  // Resize-10 has (X, scales)
    if (r.empty()) {
      const std::vector<double> sizes = ConstInput(ctx, n, 3, "sizes");
      if (sizes.size() != rank) throw CompileError(n.Msg("needs scales or sizes for every axis"));
      for (size_t d = 0; d < rank; ++d) r.push_back(sizes[d] / static_cast<double>(xs[d]));
    }
  }
  if (r.size() != rank)
    throw CompileError(n.Msg("scales have " + std::to_string(r.size()) + " entries for rank " +
                             std::to_string(rank)));
  for (size_t d = 0; d < rank; ++d) {
    if (!(r[d] > 0.0) || !std::isfinite(r[d]))
      throw CompileError(n.Msg("scale of axis " + std::to_string(d) + " must be positive"));
    if (ys[d] <= 0)
      throw CompileError(n.Msg("empty output " + ir::ShapeString(ys) + " is unsupported"));
  }
  return r;
}

void CheckResizeAttributes(const ir::Node& n, const std::string& mode) {
  if (mode == "cubic")
    throw CompileError(n.Msg("mode 'cubic' is unsupported (nearest and linear only)"));
  if (mode != "nearest" && mode != "linear" && mode != "bilinear")
    throw CompileError(n.Msg("unknown mode '" + mode + "'"));
  if (n.Int("antialias", 0) != 0) throw CompileError(n.Msg("antialias is unsupported"));
  if (n.Str("keep_aspect_ratio_policy", "stretch") != "stretch")
    throw CompileError(n.Msg("keep_aspect_ratio_policy '" + n.Str("keep_aspect_ratio_policy", "") +
                             "' is unsupported (stretch only)"));
  if (n.Has("axes"))
    throw CompileError(
        n.Msg("attribute 'axes' is unsupported; give scales or sizes for every axis"));
}

}  // namespace

// ONNX Resize / Upsample. Rank ≥ 4: batch and channel axes (and a depth axis) must keep their
// size, the last two are resized; rank 3 [N, C, W]: only W. The runtime sees the last two axes.
void LowerResize(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x), ys = ctx.Shape(y);
  const size_t rank = xs.size();
  const std::string mode = n.Str("mode", "nearest");
  CheckResizeAttributes(n, mode);
  if (rank < 2 || ys.size() != rank)
    throw CompileError(n.Msg("input rank " + std::to_string(rank) + " is unsupported (>= 2)"));
  const std::vector<double> r = Factors(ctx, n, xs, ys);
  const std::string ctm =
      n.op == "Upsample" ? "asymmetric" : n.Str("coordinate_transformation_mode", "half_pixel");
  const size_t first_resized = rank >= 4 ? rank - 2 : (rank == 3 ? 2 : 0);
  for (size_t d = 0; d < first_resized; ++d)
    if (r[d] != 1.0 || ys[d] != xs[d])
      throw CompileError(n.Msg("resizes axis " + std::to_string(d) + " (" + std::to_string(xs[d]) +
                               " → " + std::to_string(ys[d]) +
                               "); only the last two (spatial) axes of NCHW can be resized"));
  fb::ResizeOptionsT opt;
  opt.mode = mode == "nearest" ? fb::ResizeMode::Nearest : fb::ResizeMode::Linear;
  opt.nearest_mode = n.op == "Upsample" ? fb::NearestMode::Floor : NearestModeOf(n);
  for (size_t d = rank - 2; d < rank; ++d) {
    const AxisTransform t =
        d < first_resized ? AxisTransform{1.0, 0.0} : Transform(n, ctm, r[d], xs[d]);
    opt.scales.push_back(t.scale);
    opt.offsets.push_back(t.offset);
  }
  ctx.AddOp(fb::OpType::Resize, n, {x}, {y}).options.Set(std::move(opt));
}

// DepthToSpace (DCR or CRD) and SpaceToDepth; shapes come from ONNX shape inference and are
// checked again by the runtime.
void LowerDepthToSpace(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const int64_t b = n.Int("blocksize", 0);
  if (b < 1) throw CompileError(n.Msg("blocksize must be >= 1"));
  if (ctx.Shape(x).size() != 4) throw CompileError(n.Msg("needs a rank-4 NCHW input"));
  if (n.op == "SpaceToDepth") {
    fb::SpaceToDepthOptionsT opt;
    opt.blocksize = ToInt32(n, b, "blocksize");
    ctx.AddOp(fb::OpType::SpaceToDepth, n, {x}, {y}).options.Set(std::move(opt));
    return;
  }
  const std::string mode = n.Str("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    throw CompileError(n.Msg("unknown mode '" + mode + "' (DCR or CRD)"));
  fb::DepthToSpaceOptionsT opt;
  opt.blocksize = ToInt32(n, b, "blocksize");
  opt.crd = mode == "CRD";
  ctx.AddOp(fb::OpType::DepthToSpace, n, {x}, {y}).options.Set(std::move(opt));
}

}  // namespace edgefold::compiler
