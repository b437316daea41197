#include "onnx_load.h"

#include <map>
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
    s += (i ? "," : "") + (d.has_dim_value()       ? std::to_string(d.dim_value())
                           : d.dim_param().empty() ? std::string("?")
                                                   : d.dim_param());
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
    if (d->has_dim_value())  // a declared 0 (or negative) is an empty tensor, not a dynamic dim
      throw CompileError(where + " has zero-sized dim " + std::to_string(i) + " in " +
                         DimString(*shape) + "; edgefold needs every dim to be at least 1");
    if (i == 0) {  // symbolic batch dim: compile for batch 1
      d->set_dim_value(1);
      continue;
    }
    throw CompileError(where + " has dynamic dim " + std::to_string(i) + " in " +
                       DimString(*shape) + "; pass --input-shape " + input->name() + "=...");
  }
}

// The tensor type of an initializer, element type and dims.
onnx::TypeProto TypeOf(const onnx::TensorProto& init) {
  onnx::TypeProto type;
  auto* tensor_type = type.mutable_tensor_type();
  tensor_type->set_elem_type(init.data_type());
  for (int64_t d : init.dims()) tensor_type->mutable_shape()->add_dim()->set_dim_value(d);
  return type;
}

// Old-IR formalities that ONNX 1.12's checker refuses; repaired without changing what the
// model computes:
//  * opset_import came with IR 3, so a model that has one but stamps IR 0/1/2 follows
//    IR >= 3 rules (ORT loads it): read it as IR 3, the oldest reading that fits. The same
//    for a missing stamp (ORT refuses that one; the opset import still says it all).
//  * Up to IR 3 every initializer must also be declared as a graph input. Producers often
//    omit the declaration, and 1.12's checker, shape inference and version converter see an
//    undeclared initializer only from IR 4 on. Declaring it with the initializer's type and
//    dims keeps IR 3 and its meaning (an initializer that is an input is a constant to
//    ORT below IR 4; edgefold always treats it as one), where bumping to IR 4 would turn the
//    already-declared ones into overridable inputs.
// Nameless or duplicate initializers are left for the checker to report.
void RepairLegacyIr(onnx::ModelProto* m) {
  if (m->ir_version() < 3 && m->opset_import_size() > 0) m->set_ir_version(3);
  if (m->ir_version() != 3) return;
  onnx::GraphProto* g = m->mutable_graph();
  std::set<std::string> declared;
  for (const auto& in : g->input()) declared.insert(in.name());
  for (const auto& init : g->initializer()) {
    if (init.name().empty() || !declared.insert(init.name()).second) continue;
    auto* in = g->add_input();
    in->set_name(init.name());
    *in->mutable_type() = TypeOf(init);
  }
}

// Whether `declared` admits `init`: same element type (UNDEFINED declares none) and, when a
// shape is declared, the same rank and every concrete dim equal, as shape inference requires.
bool Admits(const onnx::TypeProto& declared, const onnx::TensorProto& init) {
  if (!declared.has_tensor_type()) return false;
  const auto& t = declared.tensor_type();
  if (t.elem_type() != onnx::TensorProto::UNDEFINED && t.elem_type() != init.data_type())
    return false;
  if (!t.has_shape()) return true;
  if (t.shape().dim_size() != init.dims_size()) return false;
  for (int i = 0; i < init.dims_size(); ++i)
    if (t.shape().dim(i).has_dim_value() && t.shape().dim(i).dim_value() != init.dims(i))
      return false;
  return true;
}

std::string TypeString(const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return "a non-tensor";
  const auto& t = type.tensor_type();
  return onnx::TensorProto_DataType_Name(t.elem_type()) +
         (t.has_shape() ? DimString(t.shape()) : "");
}

// A graph input that is also an initializer must declare the initializer's type; shape
// inference refuses a contradiction without naming the tensor, so name it here.
void CheckInitializerDeclarations(const onnx::GraphProto& g, const std::string& where) {
  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& t : g.initializer()) initializers[t.name()] = &t;
  for (const auto& in : g.input()) {
    auto it = initializers.find(in.name());
    if (it == initializers.end() || Admits(in.type(), *it->second)) continue;
    throw CompileError(where + "graph input '" + in.name() + "' is declared " +
                       TypeString(in.type()) + " but its initializer is " +
                       TypeString(TypeOf(*it->second)));
  }
}

// The checker reports a node input that nothing produces as a topological-order problem;
// say what it is. Empty when every main-graph node input has a producer.
std::string FindUnproducedInput(const onnx::GraphProto& g) {
  std::set<std::string> produced;
  for (const auto& in : g.input()) produced.insert(in.name());
  for (const auto& t : g.initializer()) produced.insert(t.name());
  for (const auto& t : g.sparse_initializer()) produced.insert(t.values().name());
  for (const auto& n : g.node()) produced.insert(n.output().begin(), n.output().end());
  for (const auto& n : g.node())
    for (const auto& name : n.input())
      if (!name.empty() && !produced.count(name))
        return "node '" + n.name() + "' (op '" + n.op_type() + "') reads '" + name +
               "', which no node, graph input or initializer produces";
  return "";
}

// The checker's multi-line message on one line.
std::string OneLine(const std::string& text) {
  std::string s;
  for (char c : text) {
    const bool space = c == '\n' || c == ' ' || c == '\t';
    if (!space)
      s += c;
    else if (!s.empty() && s.back() != ' ')
      s += ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Rank of tensor `name` from graph inputs, value_info or outputs (-1 when unknown).
int RankOf(const onnx::GraphProto& g, const std::string& name) {
  auto rank = [&](const onnx::ValueInfoProto& vi) {
    return vi.type().tensor_type().has_shape() ? vi.type().tensor_type().shape().dim_size() : -1;
  };
  for (const auto& vi : g.input())
    if (vi.name() == name) return rank(vi);
  for (const auto& vi : g.value_info())
    if (vi.name() == name) return rank(vi);
  for (const auto& vi : g.output())
    if (vi.name() == name) return rank(vi);
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

// Upsample (opset 7/9) and Resize-10 sample asymmetrically (s = i / scale) and take the floor
// for nearest. ONNX 1.12's converter turns them into Resize-11+ without setting
// coordinate_transformation_mode, whose default there is half_pixel: say it explicitly. In a
// model upgraded from opset < 11, every Resize came from one of them.
void RestoreLegacyResizeSemantics(onnx::ModelProto* m) {
  for (auto& node : *m->mutable_graph()->mutable_node()) {
    if (node.op_type() != "Resize" || !node.domain().empty()) continue;
    bool has_ctm = false, has_nearest = false;
    for (const auto& a : node.attribute()) {
      has_ctm |= a.name() == "coordinate_transformation_mode";
      has_nearest |= a.name() == "nearest_mode";
    }
    if (!has_ctm) {
      auto* a = node.add_attribute();
      a->set_name("coordinate_transformation_mode");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s("asymmetric");
    }
    if (!has_nearest) {
      auto* a = node.add_attribute();
      a->set_name("nearest_mode");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s("floor");
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
  } catch (const std::exception&) {}
  if (opset < 7) ReshapeLegacyPReluSlopes(&m);
  onnx::ModelProto out = onnx::version_conversion::ConvertVersion(m, target);
  if (opset < 11) RestoreLegacyResizeSemantics(&out);
  return out;
}

void FixAllInputDims(onnx::ModelProto* m, const CompileOptions& options,
                     const std::string& model_name) {
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
  if (!m.has_graph()) throw CompileError("model '" + model_name + "': ONNX model has no graph");
  return m;
}

onnx::ModelProto PrepareModel(const onnx::ModelProto& model, const CompileOptions& options,
                              const std::string& model_name) {
  const std::string where = "model '" + model_name + "': ";
  onnx::ModelProto m = model;
  RepairLegacyIr(&m);
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    const std::string unproduced = FindUnproducedInput(m.graph());
    throw CompileError(where +
                       (unproduced.empty() ? "ONNX checker: " + OneLine(e.what()) : unproduced));
  }
  CheckInitializerDeclarations(m.graph(), where);
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
