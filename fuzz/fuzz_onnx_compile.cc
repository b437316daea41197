// libFuzzer target: arbitrary bytes as an ONNX ModelProto → CompileModel. The compiler must
// return ok or an error message, never crash. Inputs that are not a parseable protobuf stop
// at ParseFromArray (that is protobuf's code, not ours); graphs are bounded in size so a
// single input cannot run for minutes in ONNX shape inference.
#include <cstdint>
#include <cstdlib>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "edgefold_compiler/compiler.h"

// ONNX builds its operator-schema registry on first use: seconds under ASan. Do it once here,
// not inside the first (timed) input.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)onnx::OpSchemaRegistry::Schema("Conv", 13, "");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 16)) return 0;
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (model.graph().node_size() > 64) return 0;
  for (const auto& t : model.graph().initializer())
    if (t.dims_size() > 8) return 0;
  edgefold::compiler::CompileOptions options;
  options.verify = false;  // verification runs the reference graph: slow, and not the parser
  const edgefold::compiler::CompileResult r = edgefold::compiler::CompileModel(model, options);
  if (!r.ok && r.error.empty()) std::abort();  // every failure names what is wrong
  return 0;
}
