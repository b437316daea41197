#include "onnx_case_runner.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "runtime_exec.h"
#include "tensor_io.h"

namespace edgefold::conformance {
namespace {

// Input slots that hold trained parameters rather than activations.
const std::map<std::string, std::vector<int>>& WeightSlots() {
  static const std::map<std::string, std::vector<int>> slots = {
      {"Conv", {1, 2}},
      {"ConvTranspose", {1, 2}},
      {"Gemm", {1, 2}},
      {"BatchNormalization", {1, 2, 3, 4}},
      {"LayerNormalization", {1, 2}},
      {"InstanceNormalization", {1, 2}},
      {"ReduceSum", {1}},
      {"PRelu", {1}},
      {"Pad", {1, 2}},
      {"Clip", {1, 2}},
      {"Reshape", {1}},
      {"Resize", {1, 2, 3}},
      {"Upsample", {1}},
      {"Pow", {1}},
      {"GRU", {1, 2, 3, 4}},
      {"LSTM", {1, 2, 3, 4, 7}},
      {"Expand", {1}},
      {"Gather", {1}},
  };
  return slots;
}

std::set<std::string> WeightSlotNames(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const onnx::NodeProto& node : graph.node()) {
    auto it = WeightSlots().find(node.op_type());
    if (it == WeightSlots().end()) continue;
    for (int slot : it->second) {
      if (slot < node.input_size() && !node.input(slot).empty()) names.insert(node.input(slot));
    }
  }
  return names;
}

// Graph inputs that are not initializers, in graph order: the ones input_k.pb files feed.
std::vector<std::string> DataInputNames(const onnx::GraphProto& graph) {
  std::set<std::string> inits;
  for (const auto& t : graph.initializer()) inits.insert(t.name());
  std::vector<std::string> names;
  for (const auto& in : graph.input()) {
    if (!inits.count(in.name())) names.push_back(in.name());
  }
  return names;
}

// The case's model with weight-slot inputs of this data set turned into initializers.
// Fills `runtime_inputs` with the inputs that stay inputs. False with `out` filled on failure.
bool BindDataSet(const onnx::ModelProto& original, const std::string& set_dir,
                 onnx::ModelProto* model, std::vector<NamedTensor>* runtime_inputs,
                 CaseOutcome* out) {
  *model = original;
  onnx::GraphProto* graph = model->mutable_graph();
  const std::vector<std::string> data_names = DataInputNames(*graph);
  const std::vector<std::string> files = NumberedFiles(set_dir, "input_");
  out->stage = "bind";
  if (files.size() != data_names.size()) {
    out->message = set_dir + " has " + std::to_string(files.size()) + " input files, graph has " +
                   std::to_string(data_names.size()) + " non-initializer inputs";
    return false;
  }
  const std::set<std::string> weight_names = WeightSlotNames(*graph);
  std::set<std::string> bound;
  for (size_t k = 0; k < files.size(); ++k) {
    onnx::TensorProto tensor;
    if (!ReadTensorFile(files[k], &tensor, &out->message)) return false;
    tensor.set_name(data_names[k]);
    if (k > 0 && weight_names.count(data_names[k])) {
      *graph->add_initializer() = tensor;
      bound.insert(data_names[k]);
      continue;
    }
    NamedTensor t{data_names[k], {tensor.dims().begin(), tensor.dims().end()}, {}};
    if (!TensorToFloats(tensor, &t.values, &out->message)) {
      out->verdict = Verdict::kSkip;
      out->message = "input " + std::to_string(k) + ": " + out->message;
      return false;
    }
    runtime_inputs->push_back(std::move(t));
  }
  // IR >= 4 lets initializers live outside graph.input; older IR requires them listed there.
  if (model->ir_version() >= 4) {
    auto* inputs = graph->mutable_input();
    inputs->erase(
        std::remove_if(inputs->begin(), inputs->end(),
                       [&](const onnx::ValueInfoProto& v) { return bound.count(v.name()); }),
        inputs->end());
  }
  return true;
}

bool ReadExpected(const std::string& set_dir, const onnx::GraphProto& graph,
                  std::vector<NamedTensor>* expected, CaseOutcome* out) {
  const std::vector<std::string> files = NumberedFiles(set_dir, "output_");
  out->stage = "load";
  if (files.empty() || static_cast<int>(files.size()) != graph.output_size()) {
    out->message = set_dir + " has " + std::to_string(files.size()) + " output files, graph has " +
                   std::to_string(graph.output_size()) + " outputs";
    return false;
  }
  for (size_t k = 0; k < files.size(); ++k) {
    onnx::TensorProto tensor;
    if (!ReadTensorFile(files[k], &tensor, &out->message)) return false;
    NamedTensor t{
        graph.output(static_cast<int>(k)).name(), {tensor.dims().begin(), tensor.dims().end()}, {}};
    if (!TensorToFloats(tensor, &t.values, &out->message)) {
      out->verdict = Verdict::kSkip;
      out->message = "output " + std::to_string(k) + ": " + out->message;
      return false;
    }
    expected->push_back(std::move(t));
  }
  return true;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// Compares one output; false with a message naming the worst element.
bool CompareOutput(const NamedTensor& want, const NamedTensor& got, const RunOptions& opt,
                   double* max_abs_error, std::string* message) {
  if (want.dims != got.dims) {
    *message = "output '" + want.name + "' shape " + DimsText(got.dims) + ", expected " +
               DimsText(want.dims);
    return false;
  }
  double scale = 1.0;
  for (float w : want.values) scale = std::max(scale, static_cast<double>(std::fabs(w)));
  size_t worst = 0;
  double worst_excess = 0;
  bool ok = true;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double w = want.values[i], g = got.values[i];
    if (std::isnan(w) && std::isnan(g)) continue;  // NaN where NaN is expected (numpy's equal_nan)
    const double err = std::fabs(g - w);
    const double tol = opt.atol * scale + opt.rtol * std::fabs(w);
    if (!(err <= tol)) {  // also catches NaN
      const double excess = std::isnan(err) ? INFINITY : err - tol;
      if (ok || excess > worst_excess) worst = i, worst_excess = excess;
      ok = false;
    }
    if (!std::isnan(err)) *max_abs_error = std::max(*max_abs_error, err);
  }
  if (!ok) {
    *message = "output '" + want.name + "' element " + std::to_string(worst) + " is " +
               std::to_string(got.values[worst]) + ", expected " +
               std::to_string(want.values[worst]) + " (max |err| " +
               std::to_string(*max_abs_error) + ", scale " + std::to_string(scale) + ")";
  }
  return ok;
}

bool RunDataSet(const onnx::ModelProto& original, const std::string& set_dir,
                const std::string& case_id, const RunOptions& options, CaseOutcome* out) {
  onnx::ModelProto model;
  std::vector<NamedTensor> inputs, expected;
  if (!BindDataSet(original, set_dir, &model, &inputs, out)) return false;
  if (!ReadExpected(set_dir, model.graph(), &expected, out)) return false;

  compiler::CompileOptions copt = options.compile;
  copt.model_name = case_id;
  for (const NamedTensor& t : inputs) copt.input_shapes[t.name] = t.dims;
  compiler::CompileResult compiled;
  try {
    compiled = compiler::CompileModel(model, copt);
  } catch (const std::exception& e) {  // the contract says it reports, never throws
    out->stage = "compile";
    out->message = std::string("CompileModel threw: ") + e.what();
    return false;
  }
  out->report = compiled.report;
  if (!compiled.ok) {
    out->stage = "compile";
    out->message = compiled.error;
    return false;
  }
  ExecResult exec = ExecuteModel(compiled.model, inputs, options.isa);
  if (!exec.ok) {
    out->stage = exec.stage;
    out->message = exec.message;
    return false;
  }
  out->stage = "compare";
  if (exec.outputs.size() != expected.size()) {
    out->message = "runtime has " + std::to_string(exec.outputs.size()) + " outputs, expected " +
                   std::to_string(expected.size());
    return false;
  }
  for (size_t k = 0; k < expected.size(); ++k) {
    const NamedTensor* got = &exec.outputs[k];
    for (const NamedTensor& o : exec.outputs) {
      if (!o.name.empty() && o.name == expected[k].name) got = &o;
    }
    if (!CompareOutput(expected[k], *got, options, &out->max_abs_error, &out->message)) {
      return false;
    }
  }
  return true;
}

}  // namespace

CaseOutcome RunCase(const std::string& case_dir, const std::string& case_id,
                    const RunOptions& options) {
  CaseOutcome out;
  out.stage = "load";
  onnx::ModelProto model;
  {
    std::ifstream in(case_dir + "/model.onnx", std::ios::binary);
    if (!in || !model.ParseFromIstream(&in)) {
      out.message = "cannot read " + case_dir + "/model.onnx";
      return out;
    }
  }
  std::vector<std::string> sets;
  for (const auto& e : std::filesystem::directory_iterator(case_dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("test_data_set_", 0) == 0) sets.push_back(e.path().string());
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    out.message = case_dir + " has no test_data_set_* directory";
    return out;
  }
  for (const std::string& set_dir : sets) {
    if (!RunDataSet(model, set_dir, case_id, options, &out)) return out;  // verdict set inside
    ++out.data_sets;
  }
  out.verdict = Verdict::kPass;
  out.stage.clear();
  out.message.clear();
  return out;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kSkip:
      return "skip";
  }
  return "?";
}

}  // namespace edgefold::conformance
