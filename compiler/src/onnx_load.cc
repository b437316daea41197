#include "onnx_load.h"

#include <set>

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "error.h"

namespace edgefold::compiler {
namespace {

int64_t DefaultOpset(const onnx::ModelProto& m) {
  for (const auto& op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return -1;
}

std::string DimString(const onnx::TensorShapeProto& shape) {
  std::string s = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    s += (i ? "," : "") + (d.has_dim_value() ? std::to_string(d.dim_value()) :
                           d.dim_param().empty() ? std::string("?") : d.dim_param());
  }
  return s + "]";
}

// Fixes every dim of one graph input to a positive value, or throws naming the input.
void FixInputDims(onnx::ValueInfoProto* input, const CompileOptions& options,
                  const std::string& model_name) {
  const std::string where = "model '" + model_name + "': input '" + input->name() + "'";
  if (!input->type().has_tensor_type()) throw CompileError(where + " is not a tensor");
  auto* tensor_type = input->mutable_type()->mutable_tensor_type();
  auto* shape = tensor_type->mutable_shape();
  auto it = options.input_shapes.find(input->name());
  if (it != options.input_shapes.end()) {
    if (tensor_type->has_shape() && shape->dim_size() != 0 &&
        shape->dim_size() != static_cast<int>(it->second.size()))
      throw CompileError(where + ": --input-shape has rank " + std::to_string(it->second.size()) +
                         " but the model declares " + DimString(*shape));
    shape->clear_dim();
    for (int64_t d : it->second) {
      if (d <= 0) throw CompileError(where + ": --input-shape dims must be positive");
      shape->add_dim()->set_dim_value(d);
    }
    return;
  }
  if (!tensor_type->has_shape()) throw CompileError(where + " has no shape; pass --input-shape");
  for (int i = 0; i < shape->dim_size(); ++i) {
    auto* d = shape->mutable_dim(i);
    if (d->has_dim_value() && d->dim_value() > 0) continue;
    if (d->has_dim_value())   // a declared 0 (or negative) is an empty tensor, not a dynamic dim
      throw CompileError(where + " has zero-sized dim " + std::to_string(i) + " in " + DimString(*shape) +
                         "; edgefold needs every dim to be at least 1");
    if (i == 0) {  // symbolic batch dim: compile for batch 1
      d->set_dim_value(1);
      continue;
    }
    throw CompileError(where + " has dynamic dim " + std::to_string(i) + " in " + DimString(*shape) +
                       "; pass --input-shape " + input->name() + "=...");
  }
}

// Rank of tensor `name` from graph inputs, value_info or outputs (-1 when unknown).
int RankOf(const onnx::GraphProto& g, const std::string& name) {
  auto rank = [&](const onnx::ValueInfoProto& vi) {
    return vi.type().tensor_type().has_shape() ? vi.type().tensor_type().shape().dim_size() : -1;
  };
  for (const auto& vi : g.input()) if (vi.name() == name) return rank(vi);
  for (const auto& vi : g.value_info()) if (vi.name() == name) return rank(vi);
  for (const auto& vi : g.output()) if (vi.name() == name) return rank(vi);
  return -1;
}

// Before opset 7, PRelu's 1-D slope of size C meant one value per channel (axis 1); from
// opset 7 on it broadcasts numpy-style against the *last* axis. The version converter does
// not rewrite it, so reshape such constant slopes to [C,1,…,1] to keep the old meaning.
void ReshapeLegacyPReluSlopes(onnx::ModelProto* m) {
  onnx::GraphProto* g = m->mutable_graph();
  for (const auto& node : g->node()) {
    if (node.op_type() != "PRelu" || node.input_size() < 2) continue;
    const int rank = RankOf(*g, node.input(0));
    if (rank <= 2) continue;
    for (auto& init : *g->mutable_initializer()) {
      if (init.name() != node.input(1) || init.dims_size() != 1 || init.dims(0) == 1) continue;
      for (int i = 0; i < rank - 2; ++i) init.add_dims(1);
      for (auto& in : *g->mutable_input()) {  // keep a matching graph-input declaration in step
        if (in.name() != init.name() || !in.type().tensor_type().has_shape()) continue;
        auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
        for (int i = 0; i < rank - 2; ++i) shape->add_dim()->set_dim_value(1);
      }
    }
  }
}

// Upgrades `m` to `target`. ONNX 1.12's C++ converter needs the shapes of intermediate
// tensors for some adapters (Gemm 6→7 asserts "Shape of input 3 is not available" when one
// Gemm feeds another), so infer shapes on the old model first (best effort: the converter
// reports what it still lacks).
onnx::ModelProto UpgradeOpset(onnx::ModelProto m, int64_t opset, int target) {
  try {
    onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
  }
  if (opset < 7) ReshapeLegacyPReluSlopes(&m);
  return onnx::version_conversion::ConvertVersion(m, target);
}

void FixAllInputDims(onnx::ModelProto* m, const CompileOptions& options, const std::string& model_name) {
  std::set<std::string> initializers;
  for (const auto& t : m->graph().initializer()) initializers.insert(t.name());
  std::set<std::string> inputs;
  for (auto& in : *m->mutable_graph()->mutable_input()) {
    inputs.insert(in.name());
    if (!initializers.count(in.name())) FixInputDims(&in, options, model_name);
  }
  for (const auto& kv : options.input_shapes)
    if (!inputs.count(kv.first) || initializers.count(kv.first))
      throw CompileError("model '" + model_name + "': --input-shape names '" + kv.first +
                         "', which is not a graph input");
}

}  // namespace

onnx::ModelProto ParseModelBytes(const std::string& bytes, const std::string& model_name) {
  onnx::ModelProto m;
  if (bytes.empty() || !m.ParseFromString(bytes))
    throw CompileError("model '" + model_name + "': not a valid ONNX protobuf (parse failed)");
  if (!m.has_graph())
    throw CompileError("model '" + model_name + "': ONNX model has no graph");
  return m;
}

onnx::ModelProto PrepareModel(const onnx::ModelProto& model, const CompileOptions& options,
                              const std::string& model_name) {
  const std::string where = "model '" + model_name + "': ";
  onnx::ModelProto m = model;
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    throw CompileError(where + "ONNX checker: " + e.what());
  }
  const int64_t opset = DefaultOpset(m);
  if (opset < 0) throw CompileError(where + "no default-domain opset import");
  if (opset < options.target_opset) {
    try {
      m = UpgradeOpset(m, opset, options.target_opset);
    } catch (const std::exception& e) {
      throw CompileError(where + "upgrading opset " + std::to_string(opset) + " to " +
                         std::to_string(options.target_opset) + " failed: " + e.what());
    }
  }
  FixAllInputDims(&m, options, model_name);
  try {
    m.mutable_graph()->clear_value_info();
    onnx::ShapeInferenceOptions shape_options(/*check_type=*/true, /*strict_mode=*/1,
                                              /*data_prop=*/true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), shape_options);
  } catch (const std::exception& e) {
    throw CompileError(where + "shape inference: " + e.what());
  }
  return m;
}

}  // namespace edgefold::compiler
