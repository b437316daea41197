// edgefold._edgefold: the native half of the Python package (edgefold/__init__.py is the
// public face). Models and trainers own their memory; every long call releases the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli_main.h"
#include "layer_diff.h"
#include "model_bytes.h"
#include "model_tools.h"
#include "py_compile.h"
#include "py_errors.h"
#include "py_model.h"
#include "py_trainer.h"

namespace py = pybind11;
using edgefold::python::PyModel;
using edgefold::python::PyTrainer;

namespace {

std::unique_ptr<PyModel> LoadFile(const std::string& path) {
  return std::make_unique<PyModel>(edgefold::python::ReadModelFile(path), path);
}

std::unique_ptr<PyModel> LoadBytes(const py::bytes& data, const std::string& name) {
  const std::string_view view = data;
  return std::make_unique<PyModel>(
      edgefold::python::CopyToAligned(reinterpret_cast<const uint8_t*>(view.data()), view.size()),
      name);
}

// `python -m edgefold ARGS`: the CLI's own dispatch, in this process. Python's buffered
// sys.stdout is flushed by the caller first; the C streams are flushed after.
int CliMain(const std::vector<std::string>& args) {
  std::vector<std::string> storage = args;
  storage.insert(storage.begin(), "edgefold");
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  py::gil_scoped_release release;
  const int rc = edgefold::cli::Main(static_cast<int>(storage.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  return rc;
}

// ef.diff: the per-layer table of `edgefold diff` as JSON (edgefold/_diff.py parses it).
std::string DiffJson(const std::string& onnx_path, const std::string& efb_path,
                     const std::vector<std::string>& inputs, double jump_db) {
  edgefold::tools::AlignedBuffer efb;
  edgefold::tools::LayerDiff diff;
  std::string error;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = edgefold::tools::ReadFileAligned(efb_path, &efb, &error) &&
         edgefold::tools::DiffLayers(
             onnx_path, std::vector<uint8_t>(efb.data.get(), efb.data.get() + efb.bytes), inputs,
             jump_db, &diff, &error);
  }
  if (!ok) throw edgefold::python::EdgefoldError("diff: " + error);
  return edgefold::tools::LayerDiffJson(diff);
}

}  // namespace

PYBIND11_MODULE(_edgefold, m) {
  m.doc() = "edgefold native module (use the edgefold package)";
  static py::exception<edgefold::python::EdgefoldError> error(m, "Error", PyExc_Exception);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const edgefold::python::EdgefoldError& e) {
      error(e.what());
    }
  });

  py::class_<PyModel>(m, "_Model")
      .def("run", &PyModel::Run, py::arg("threads") = 1, py::arg("dequantize") = false)
      .def("bytes", &PyModel::Bytes)
      .def_property_readonly("name", &PyModel::name)
      .def_property_readonly("required_arena_bytes", &PyModel::required_arena_bytes)
      .def_property_readonly("arena_bytes", &PyModel::planned_arena_bytes)
      .def_property_readonly("weights_bytes", &PyModel::weights_bytes)
      .def_property_readonly("trainable", &PyModel::trainable)
      .def_property_readonly("kernel_isa", &PyModel::kernel_isa)
      .def_property_readonly("inputs", &PyModel::Inputs)
      .def_property_readonly("outputs", &PyModel::Outputs)
      .def_property_readonly("ops", &PyModel::Ops)
      .def("memory_plot_svg", &edgefold::python::MemoryPlotSvg, py::arg("width") = 1000,
           py::arg("height") = 600)
      .def("export_c_text", &edgefold::python::ExportCText, py::arg("name"));

  py::class_<PyTrainer>(m, "_Trainer")
      .def(py::init<const PyModel&, const py::dict&>(), py::keep_alive<1, 2>())
      .def("step", &PyTrainer::Step)
      .def("stream_step", &PyTrainer::StreamStep)
      .def("adapt_statistics", &PyTrainer::AdaptStatistics)
      .def("evaluate", &PyTrainer::Evaluate)
      .def("reset_statistics", &PyTrainer::ResetStatistics)
      .def("reset_stream", &PyTrainer::ResetStream)
      .def("refold", &PyTrainer::Refold)
      .def("set_options", &PyTrainer::SetOptions)
      .def("get_options", &PyTrainer::GetOptions)
      .def("last_stream", &PyTrainer::LastStream)
      .def("parameters", &PyTrainer::Parameters)
      .def("model", &PyTrainer::ExportedModel)
      .def_property_readonly("batch_size", &PyTrainer::batch_size)
      .def_property_readonly("num_classes", &PyTrainer::num_classes)
      .def_property_readonly("arena_bytes", &PyTrainer::arena_bytes);

  m.def("compile_onnx", &edgefold::python::CompileOnnx, py::arg("onnx"), py::arg("name"),
        py::arg("options"), py::arg("example_shapes"));
  m.def("load_file", &LoadFile, py::arg("path"));
  m.def("load_bytes", &LoadBytes, py::arg("data"), py::arg("name"));
  m.def("cli_main", &CliMain, py::arg("args"));
  m.def("diff_json", &DiffJson, py::arg("onnx_path"), py::arg("efb_path"), py::arg("inputs"),
        py::arg("jump_db"));
}
