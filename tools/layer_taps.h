// Every op's output of a .efb run, as float: how `edgefold diff` sees a model layer by layer.
// The runtime calls back after each op (Options::on_op_end); planned tensors sit at the head of
// the arena at the offsets the .efb stores, so the op's outputs are read there before a later
// op reuses the bytes. int8 outputs are dequantized, (q − zp)·s.
#pragma once
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "file_io.h"

namespace edgefold::tools {

struct LayerValue {
  std::string op_name, op_type, tensor;
  bool int8 = false;
  std::vector<float> values;
};

class LayerTaps {
 public:
  LayerTaps() = default;
  LayerTaps(const LayerTaps&) = delete;  // the runtime's callback holds `this`
  LayerTaps& operator=(const LayerTaps&) = delete;

  // Takes the model bytes, creates the interpreter in an arena of its own. `what` names the
  // model in errors.
  bool Open(const std::vector<uint8_t>& model, const std::string& what, std::string* error);
  Interpreter& interpreter() { return *interpreter_; }
  // Invokes once on the inputs already set; `out` gets one entry per planned op output, in
  // execution order.
  bool Run(std::vector<LayerValue>* out, std::string* error);

 private:
  static void OnOpEnd(void* user, size_t op);
  static void Log(void* user, const char* message);

  AlignedBuffer model_, arena_;
  Interpreter* interpreter_ = nullptr;  // lives inside arena_
  std::vector<LayerValue>* sink_ = nullptr;
  std::string what_, log_;
};

}  // namespace edgefold::tools
