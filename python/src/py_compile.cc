#include "py_compile.h"

#include <onnx/onnx_pb.h>
#include <pybind11/stl.h>

#include <memory>

#include "compile_options.h"
#include "compile_report.h"
#include "model_bytes.h"
#include "py_errors.h"
#include "py_model.h"

namespace edgefold::python {
namespace {

// Graph inputs that are not initializers, in graph order (what example_inputs lines up with).
std::vector<const onnx::ValueInfoProto*> GraphInputs(const onnx::ModelProto& model) {
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const onnx::ValueInfoProto& in : model.graph().input()) {
    bool initializer = false;
    for (const onnx::TensorProto& t : model.graph().initializer())
      initializer |= t.name() == in.name();
    if (!initializer) inputs.push_back(&in);
  }
  return inputs;
}

// input_shapes[""] (input_shape=(d, d, ...) in Python) names the first graph input. Then an
// input with a dim that has no fixed value takes its example's shape (unless input_shapes names
// it already), as --input-shape would fix it.
void FixDynamicInputs(const onnx::ModelProto& model,
                      const std::vector<std::vector<int64_t>>& examples,
                      compiler::CompileOptions* options) {
  const std::vector<const onnx::ValueInfoProto*> inputs = GraphInputs(model);
  auto unnamed = options->input_shapes.find("");
  if (unnamed != options->input_shapes.end()) {
    if (!inputs.empty()) options->input_shapes[inputs[0]->name()] = unnamed->second;
    options->input_shapes.erase("");
  }
  for (size_t i = 0; i < inputs.size() && i < examples.size(); ++i) {
    const onnx::ValueInfoProto& in = *inputs[i];
    if (options->input_shapes.count(in.name())) continue;
    bool dynamic = !in.type().tensor_type().has_shape();
    for (const auto& dim : in.type().tensor_type().shape().dim())
      dynamic |= !dim.has_dim_value() || dim.dim_value() <= 0;
    if (dynamic) options->input_shapes[in.name()] = examples[i];
  }
}

// Calibrates BatchNorm statistics when asked, then compiles for training or for inference
// (tools/train_compile.cc's order).
compiler::CompileResult Compile(onnx::ModelProto* model, const CompileRequest& r,
                                py::dict* report) {
  compiler::CompileResult result;
  if (!r.bn_calibration.empty()) {
    compiler::CalibrationReport calibration;
    if (!compiler::CalibrateBatchNorm(model, r.options, r.bn_calibration.data(),
                                      r.bn_calibration.size(), r.calibrate_batch,
                                      r.calibrate_momentum, &calibration, &result.error)) {
      result.error = "calibration: " + result.error;
      return result;
    }
    py::gil_scoped_acquire gil;
    (*report)["calibration"] = CalibrationDict(calibration, r.calibrate_momentum);
  }
  if (!r.train) return compiler::CompileModel(*model, r.options);
  compiler::TrainingCompileResult t = compiler::CompileForTraining(*model, r.options, r.training);
  if (t.compiled.ok) {
    compiler::MeasureDeployedArena(*model, r.options, r.training,
                                   &t.training);  // the report's ratio line
    py::gil_scoped_acquire gil;
    (*report)["training"] = TrainingDict(t.training, r.training);
  }
  return std::move(t.compiled);
}

}  // namespace

py::tuple CompileOnnx(const py::bytes& onnx_bytes, const std::string& model_name,
                      const py::dict& options, const py::list& example_shapes) {
  CompileRequest request = ReadCompileRequest(options);
  request.options.model_name = model_name;
  const auto examples = example_shapes.cast<std::vector<std::vector<int64_t>>>();
  const std::string text = onnx_bytes;  // one copy, so the compile can run without the GIL
  py::dict report;
  compiler::CompileResult result;
  {
    py::gil_scoped_release release;
    onnx::ModelProto model;
    if (!model.ParseFromString(text)) {
      result.error = model_name + ": not a readable ONNX model (protobuf parse failed)";
    } else {
      FixDynamicInputs(model, examples, &request.options);
      result = Compile(&model, request, &report);
    }
  }
  if (!result.ok) throw EdgefoldError(result.error);
  CompileReportInto(result.report, result.model.size(), &report);
  auto model = std::make_unique<PyModel>(CopyToAligned(result.model.data(), result.model.size()),
                                         model_name);
  return py::make_tuple(py::cast(std::move(model)), report);
}

}  // namespace edgefold::python
