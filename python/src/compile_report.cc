#include "compile_report.h"

#include <pybind11/stl.h>

namespace edgefold::python {
namespace {

py::dict QuantLayerDict(const compiler::QuantLayerReport& l) {
  py::dict d;
  d["name"] = l.name;
  d["type"] = l.type;
  d["in_scale"] = l.in_scale;
  d["out_scale"] = l.out_scale;
  d["out_zero_point"] = l.out_zero_point;
  d["w_scale_min"] = l.w_scale_min;
  d["w_scale_max"] = l.w_scale_max;
  d["range"] = py::make_tuple(l.range_min, l.range_max);
  d["clip"] = py::make_tuple(l.clip_lo, l.clip_hi);
  d["sqnr_db"] = l.sqnr_db;
  return d;
}

py::dict QuantDict(const compiler::QuantReport& q) {
  py::dict d;
  d["io_int8"] = q.io_int8;
  py::list io, layers;
  for (const compiler::QuantIoReport& t : q.io) {
    py::dict e;
    e["name"] = t.name;
    e["is_input"] = t.is_input;
    e["int8"] = t.int8;
    e["scale"] = t.scale;
    e["zero_point"] = t.zero_point;
    e["why_float"] = t.why_float;
    io.append(e);
  }
  for (const compiler::QuantLayerReport& l : q.layers) layers.append(QuantLayerDict(l));
  d["io"] = io;
  d["layers"] = layers;
  d["runs"] = q.runs;
  d["clipping"] = q.clipping;
  d["adaptable_layers"] = q.adaptable_layers;
  d["float_ops"] = q.float_ops;
  d["boundaries"] = q.boundaries;
  d["output_sqnr_db"] = q.output_sqnr_db;
  d["top1_agreement"] = q.top1_agreement;
  d["float_arena_bytes"] = q.float_arena_bytes;
  d["float_weight_bytes"] = q.float_weight_bytes;
  return d;
}

}  // namespace

void CompileReportInto(const compiler::CompileReport& r, size_t efb_bytes, py::dict* out) {
  py::dict& d = *out;
  d["batchnorm_found"] = r.batchnorm_found;
  d["batchnorm_folded_backward"] = r.batchnorm_folded_backward;
  d["batchnorm_folded_forward"] = r.batchnorm_folded_forward;
  d["batchnorm_kept"] = r.batchnorm_kept_affine;
  d["input_normalization_folded"] = r.input_normalization_folded;
  d["activations_fused"] = r.activations_fused;
  d["winograd_convs"] = r.winograd_convs;
  d["winograd43_convs"] = r.winograd43_convs;
  d["expansions_fused"] = r.expansions_fused;
  d["nodes_removed"] = r.nodes_removed;
  d["verified"] = r.verified;
  d["verify_max_abs_error"] = r.verify_max_abs_error;
  d["verify_max_rel_error"] = r.verify_max_rel_error;
  d["arena_bytes"] = r.arena_bytes;
  d["arena_lower_bound"] = r.arena_lower_bound;
  d["weight_bytes"] = r.weight_bytes;
  d["num_ops"] = r.num_ops;
  d["num_tensors"] = r.num_tensors;
  d["tensor_views"] = r.tensor_views;
  d["efb_bytes"] = efb_bytes;
  if (r.quant.ran) d["int8"] = QuantDict(r.quant);
}

py::dict TrainingDict(const compiler::TrainingReport& t, const compiler::TrainingOptions& options) {
  py::dict d;
  d["batch"] = t.batch;
  d["inference_batch"] = t.inference_batch;
  d["batchnorms_kept"] = t.batchnorms_kept;
  d["trainable_tensors"] = t.trainable_tensors;
  d["trainable"] = compiler::TrainableSetName(options.trainable);
  d["first_trained_op"] = t.first_trained_op;
  d["new_classes"] = options.new_classes;
  d["new_classes_head"] = t.new_classes_head;
  d["recompute"] = options.recompute;
  d["recompute_segments"] = t.recompute_segments;
  d["arena_bytes"] = t.arena_bytes;
  d["lower_bound"] = t.lower_bound;
  d["planned_bytes"] = t.planned_bytes;
  d["inference_arena_bytes"] = t.inference_arena_bytes;
  d["deployed_arena_bytes"] = t.deployed_arena_bytes;
  d["deployed_planned_bytes"] = t.deployed_planned_bytes;
  return d;
}

py::dict CalibrationDict(const compiler::CalibrationReport& c, float momentum) {
  py::dict d;
  d["batchnorms"] = c.batchnorms;
  d["batches"] = c.batches;
  d["samples_used"] = c.samples_used;
  d["momentum"] = momentum < 0 ? py::object(py::none()) : py::object(py::float_(momentum));
  return d;
}

}  // namespace edgefold::python
