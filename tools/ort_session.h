// ONNX Runtime, loaded at run time (dlopen) through its C API: the native peer of
// `edgefold bench --ort` and the reference of `edgefold diff --ort`. The CLI has no build or
// link dependency on it; the library is the CPU libonnxruntime.so that the npm package
// onnxruntime-node ships (bench/ort_lib.sh installs it and prints its path).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

// Where the library is looked for: `explicit_path` if not empty, else $EDGEFOLD_ORT_LIB,
// else the dynamic loader's search for libonnxruntime.so.1. Returns "" when none loads and
// says why in `error`.
std::string FindOrtLibrary(const std::string& explicit_path, std::string* error);

// One ONNX Runtime session on the CPU provider: all graph optimizations, sequential
// execution, `threads` intra-op threads, one inter-op thread (as bench/run.sh always timed it).
class OrtSession {
 public:
  OrtSession() = default;
  ~OrtSession();
  OrtSession(const OrtSession&) = delete;
  OrtSession& operator=(const OrtSession&) = delete;

  // Loads `library` (a path from FindOrtLibrary) and creates the session on `model_path`.
  bool Open(const std::string& library, const std::string& model_path, int threads,
            std::string* error);
  const char* version() const;

  size_t num_inputs() const { return input_names_.size(); }
  size_t num_outputs() const { return output_names_.size(); }
  const std::string& input_name(size_t i) const { return input_names_[i]; }
  const std::string& output_name(size_t i) const { return output_names_[i]; }

  // Binds float32 data to input i with `shape`; the data must stay valid until the last Run.
  bool SetInput(size_t i, float* data, const std::vector<int64_t>& shape, std::string* error);
  // Runs the session on the bound inputs (every input bound), computing every output.
  bool Run(std::string* error);
  // Output i of the last Run as float32, with its shape.
  bool Output(size_t i, std::vector<float>* values, std::vector<int64_t>* shape,
              std::string* error) const;

 private:
  bool Ok(void* status, const char* call, std::string* error) const;
  void ReleaseOutputs();
  // Open's steps: the library's C API, the session on the model, the graph's input and output
  // names, every input float32.
  bool LoadApi(const std::string& library, std::string* error);
  bool CreateSession(const std::string& model_path, int threads, std::string* error);
  bool ReadNames(std::string* error);
  bool CheckFloatInput(size_t i, std::string* error);

  void* library_ = nullptr;
  const void* const* api_ = nullptr;
  const char* version_ = "";
  void *env_ = nullptr, *options_ = nullptr, *session_ = nullptr, *memory_ = nullptr;
  std::string model_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<const char*> input_cstr_, output_cstr_;
  std::vector<void*> inputs_, outputs_;
};

}  // namespace edgefold::tools
