#include "ort_session.h"

#include <dlfcn.h>

#include <cstdlib>

namespace edgefold::tools {
namespace {

// Positions in ONNX Runtime's OrtApi table (onnxruntime_c_api.h); ORT keeps the order of
// shipped entries stable, and every one used here shipped in API version 1. onnxruntime-node
// ships the library without the header, so the entries used are declared here.
enum ApiIndex : size_t {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetSessionExecutionMode = 13,
  kSetGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputTypeInfo = 33,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorWithData = 49,
  kGetTensorMutableData = 51,
  kCastTypeInfoToTensorInfo = 55,
  kGetTensorElementType = 60,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorShapeElementCount = 64,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTypeInfo = 98,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};
constexpr uint32_t kApiVersion = 10;  // ORT 1.10 and later
constexpr int kFloat32 = 1;           // ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT
constexpr int kGraphOptimizeAll = 99;
constexpr int kLoggingWarning = 2;

using Status = void*;  // OrtStatus*, null on success
struct OrtApiBase {
  const void* const* (*GetApi)(uint32_t version);
  const char* (*GetVersionString)();
};

}  // namespace

std::string FindOrtLibrary(const std::string& explicit_path, std::string* error) {
  const char* env = std::getenv("EDGEFOLD_ORT_LIB");
  const std::string path = !explicit_path.empty()     ? explicit_path
                           : (env != nullptr && *env) ? std::string(env)
                                                      : std::string("libonnxruntime.so.1");
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = "ONNX Runtime not found (" + std::string(why ? why : path.c_str()) +
             "): set EDGEFOLD_ORT_LIB to libonnxruntime.so (bench/ort_lib.sh installs the npm "
             "package onnxruntime-node and prints the path)";
    return "";
  }
  dlclose(handle);
  return path;
}

OrtSession::~OrtSession() {
  if (api_ == nullptr) return;
  ReleaseOutputs();
  auto release = [&](size_t index, void* object) {
    if (object != nullptr) reinterpret_cast<void (*)(void*)>(api_[index])(object);
  };
  for (void* v : inputs_) release(kReleaseValue, v);
  release(kReleaseMemoryInfo, memory_);
  release(kReleaseSession, session_);
  release(kReleaseSessionOptions, options_);
  release(kReleaseEnv, env_);
  // The library stays loaded: its thread pools may still be winding down.
}

const char* OrtSession::version() const { return version_; }

bool OrtSession::Ok(void* status, const char* call, std::string* error) const {
  if (status == nullptr) return true;
  const char* message = reinterpret_cast<const char* (*)(Status)>(api_[kGetErrorMessage])(status);
  *error = model_ + ": ONNX Runtime " + call + ": " + (message ? message : "failed");
  reinterpret_cast<void (*)(Status)>(api_[kReleaseStatus])(status);
  return false;
}

bool OrtSession::LoadApi(const std::string& library, std::string* error) {
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return *error = std::string("dlopen: ") + dlerror(), false;
  auto base_fn = reinterpret_cast<const OrtApiBase* (*)()>(dlsym(library_, "OrtGetApiBase"));
  if (base_fn == nullptr) return *error = library + ": no OrtGetApiBase", false;
  const OrtApiBase* base = base_fn();
  api_ = base->GetApi(kApiVersion);
  if (api_ == nullptr) return *error = library + ": C API version 10 not offered", false;
  version_ = base->GetVersionString();
  return true;
}

bool OrtSession::CreateSession(const std::string& model_path, int threads, std::string* error) {
  using SetInt = Status (*)(void*, int);
  return Ok(reinterpret_cast<Status (*)(int, const char*, void**)>(api_[kCreateEnv])(
                kLoggingWarning, "edgefold", &env_),
            "CreateEnv", error) &&
         Ok(reinterpret_cast<Status (*)(void**)>(api_[kCreateSessionOptions])(&options_),
            "CreateSessionOptions", error) &&
         Ok(reinterpret_cast<SetInt>(api_[kSetSessionExecutionMode])(options_, 0), "execution mode",
            error) &&
         Ok(reinterpret_cast<SetInt>(api_[kSetGraphOptimizationLevel])(options_, kGraphOptimizeAll),
            "graph optimization level", error) &&
         Ok(reinterpret_cast<SetInt>(api_[kSetIntraOpNumThreads])(options_, threads),
            "intra-op threads", error) &&
         Ok(reinterpret_cast<SetInt>(api_[kSetInterOpNumThreads])(options_, 1), "inter-op threads",
            error) &&
         Ok(reinterpret_cast<Status (*)(void*, const char*, void*, void**)>(api_[kCreateSession])(
                env_, model_path.c_str(), options_, &session_),
            "CreateSession", error) &&
         Ok(reinterpret_cast<Status (*)(int, int, void**)>(api_[kCreateCpuMemoryInfo])(
                0 /* device allocator */, 0 /* default memory */, &memory_),
            "CreateCpuMemoryInfo", error);
}

bool OrtSession::ReadNames(std::string* error) {
  void* allocator = nullptr;
  size_t n_in = 0, n_out = 0;
  using Count = Status (*)(void*, size_t*);
  if (!Ok(reinterpret_cast<Status (*)(void**)>(api_[kGetAllocatorWithDefaultOptions])(&allocator),
          "GetAllocatorWithDefaultOptions", error) ||
      !Ok(reinterpret_cast<Count>(api_[kSessionGetInputCount])(session_, &n_in), "input count",
          error) ||
      !Ok(reinterpret_cast<Count>(api_[kSessionGetOutputCount])(session_, &n_out), "output count",
          error))
    return false;
  using GetName = Status (*)(void*, size_t, void*, char**);
  auto names = [&](size_t index, size_t n, std::vector<std::string>* out) {
    for (size_t i = 0; i < n; ++i) {
      char* name = nullptr;
      if (!Ok(reinterpret_cast<GetName>(api_[index])(session_, i, allocator, &name), "name", error))
        return false;
      out->emplace_back(name);
      reinterpret_cast<Status (*)(void*, void*)>(api_[kAllocatorFree])(allocator, name);
    }
    return true;
  };
  return names(kSessionGetInputName, n_in, &input_names_) &&
         names(kSessionGetOutputName, n_out, &output_names_);
}

bool OrtSession::CheckFloatInput(size_t i, std::string* error) {
  void* type_info = nullptr;
  const void* tensor_info = nullptr;
  int element = 0;
  const bool ok = Ok(reinterpret_cast<Status (*)(void*, size_t, void**)>(
                         api_[kSessionGetInputTypeInfo])(session_, i, &type_info),
                     "input type", error) &&
                  Ok(reinterpret_cast<Status (*)(void*, const void**)>(
                         api_[kCastTypeInfoToTensorInfo])(type_info, &tensor_info),
                     "input tensor type", error) &&
                  tensor_info != nullptr &&
                  Ok(reinterpret_cast<Status (*)(const void*, int*)>(api_[kGetTensorElementType])(
                         tensor_info, &element),
                     "input element type", error);
  if (type_info != nullptr) reinterpret_cast<void (*)(void*)>(api_[kReleaseTypeInfo])(type_info);
  if (ok && element != kFloat32)
    *error = model_ + ": input '" + input_names_[i] + "' is not float32 (ONNX type " +
             std::to_string(element) + ")";
  return ok && element == kFloat32;
}

bool OrtSession::Open(const std::string& library, const std::string& model_path, int threads,
                      std::string* error) {
  model_ = model_path;
  if (!LoadApi(library, error) || !CreateSession(model_path, threads, error) || !ReadNames(error))
    return false;
  for (size_t i = 0; i < input_names_.size(); ++i)
    if (!CheckFloatInput(i, error)) return false;
  for (const std::string& s : input_names_) input_cstr_.push_back(s.c_str());
  for (const std::string& s : output_names_) output_cstr_.push_back(s.c_str());
  inputs_.assign(input_names_.size(), nullptr);
  outputs_.assign(output_names_.size(), nullptr);
  return true;
}

bool OrtSession::SetInput(size_t i, float* data, const std::vector<int64_t>& shape,
                          std::string* error) {
  if (i >= inputs_.size())
    return *error = model_ + ": no input " + std::to_string(i) + " in ONNX Runtime's session",
           false;
  size_t elems = 1;
  for (int64_t d : shape) elems *= static_cast<size_t>(d);
  if (inputs_[i] != nullptr) reinterpret_cast<void (*)(void*)>(api_[kReleaseValue])(inputs_[i]);
  inputs_[i] = nullptr;
  return Ok(reinterpret_cast<Status (*)(void*, void*, size_t, const int64_t*, size_t, int, void**)>(
                api_[kCreateTensorWithData])(memory_, data, elems * sizeof(float), shape.data(),
                                             shape.size(), kFloat32, &inputs_[i]),
            ("input '" + input_names_[i] + "'").c_str(), error);
}

void OrtSession::ReleaseOutputs() {
  for (void*& v : outputs_) {
    if (v != nullptr) reinterpret_cast<void (*)(void*)>(api_[kReleaseValue])(v);
    v = nullptr;
  }
}

bool OrtSession::Run(std::string* error) {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i] == nullptr)
      return *error = model_ + ": input '" + input_names_[i] + "' not set", false;
  ReleaseOutputs();
  return Ok(reinterpret_cast<Status (*)(void*, void*, const char* const*, const void* const*,
                                        size_t, const char* const*, size_t, void**)>(api_[kRun])(
                session_, nullptr, input_cstr_.data(), inputs_.data(), inputs_.size(),
                output_cstr_.data(), outputs_.size(), outputs_.data()),
            "Run", error);
}

bool OrtSession::Output(size_t i, std::vector<float>* values, std::vector<int64_t>* shape,
                        std::string* error) const {
  if (i >= outputs_.size() || outputs_[i] == nullptr)
    return *error = model_ + ": no output " + std::to_string(i) + " from ONNX Runtime", false;
  void* info = nullptr;
  int element = 0;
  size_t rank = 0, elems = 0;
  float* data = nullptr;
  bool ok =
      Ok(reinterpret_cast<Status (*)(void*, void**)>(api_[kGetTensorTypeAndShape])(outputs_[i],
                                                                                   &info),
         "output shape", error) &&
      Ok(reinterpret_cast<Status (*)(const void*, int*)>(api_[kGetTensorElementType])(info,
                                                                                      &element),
         "output type", error) &&
      Ok(reinterpret_cast<Status (*)(const void*, size_t*)>(api_[kGetDimensionsCount])(info, &rank),
         "output rank", error);
  if (ok) {
    shape->assign(rank, 0);
    ok = Ok(reinterpret_cast<Status (*)(const void*, int64_t*, size_t)>(api_[kGetDimensions])(
                info, shape->data(), rank),
            "output dims", error) &&
         Ok(reinterpret_cast<Status (*)(const void*, size_t*)>(api_[kGetTensorShapeElementCount])(
                info, &elems),
            "output size", error);
  }
  if (info != nullptr)
    reinterpret_cast<void (*)(void*)>(api_[kReleaseTensorTypeAndShapeInfo])(info);
  if (!ok) return false;
  if (element != kFloat32)
    return *error = model_ + ": output '" + output_names_[i] + "' is not float32 (ONNX type " +
                    std::to_string(element) + ")",
           false;
  if (!Ok(reinterpret_cast<Status (*)(void*, void**)>(api_[kGetTensorMutableData])(
              outputs_[i], reinterpret_cast<void**>(&data)),
          "output data", error))
    return false;
  values->assign(data, data + elems);
  return true;
}

}  // namespace edgefold::tools
