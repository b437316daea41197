// The compiler's IR: a topologically ordered list of nodes over named tensors with static
// shapes. Constant tensors carry their values as doubles (exact for float32 and for int64
// shape values below 2^53); they are narrowed to float32 when written.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "error.h"
#include "kernels/kernel_params.h"

namespace edgefold::compiler::ir {

// ONNX TensorProto element types we care about (values as in onnx.proto).
enum DType : int32_t {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kDouble = 11
};

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  bool shape_known = false;
  int32_t dtype = kFloat;
  bool is_const = false;
  std::vector<double> data;  // row-major values when is_const
};

struct Attr {
  enum Kind { kInt, kFloat, kString, kInts, kFloats, kTensor, kStrings } kind = kInt;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  Tensor t;
  std::vector<std::string> strings;  // GRU/LSTM 'activations'
};

struct Node {
  std::string name;
  std::string
      op;  // ONNX op_type, or internal: "FC" (X, W[K,N], B[N]), "ChannelAffine", "SiLU" (x·σ(x))
  std::vector<std::string> inputs;  // "" = optional input absent
  std::vector<std::string> outputs;
  std::map<std::string, Attr> attrs;
  kernels::Activation act;  // fused epilogue (kNone unless fuse_activation set it)
  // A depthwise Conv with a fused pointwise expansion (inputs 4, 5; passes/fuse_expansion.cc):
  // the expansion's activation and the scratch bytes one band of it may take.
  kernels::Activation expand_act;
  size_t expand_band_bytes = 0;

  std::string Msg(const std::string& what) const { return NodeMessage(name, op, what); }
  bool Has(const std::string& attr) const { return attrs.count(attr) != 0; }
  int64_t Int(const std::string& attr, int64_t dflt) const;
  double Float(const std::string& attr, double dflt) const;
  std::string Str(const std::string& attr, const std::string& dflt) const;
  std::vector<int64_t> Ints(const std::string& attr, const std::vector<int64_t>& dflt) const;
  // Input i if present ("" when absent or out of range).
  std::string In(size_t i) const { return i < inputs.size() ? inputs[i] : std::string(); }
};

struct Graph {
  std::string model_name;
  int64_t opset = 13;
  std::map<std::string, Tensor> tensors;
  std::vector<Node> nodes;          // topological order
  std::vector<std::string> inputs;  // non-constant graph inputs
  std::vector<std::string> outputs;

  Tensor& At(const std::string& name);
  const Tensor& At(const std::string& name) const;
  bool IsConst(const std::string& name) const;
  bool IsGraphOutput(const std::string& name) const;
  int ConsumerCount(const std::string& name) const;
  // Index of the node producing `name`, or -1.
  int ProducerOf(const std::string& name) const;
  // Adds a constant with a fresh name derived from `hint`; returns the name.
  std::string AddConst(const std::string& hint, std::vector<int64_t> shape,
                       std::vector<double> data);
  // Replaces every use of `from` (node inputs and graph outputs) by `to`.
  void ReplaceUses(const std::string& from, const std::string& to);
  // Drops constant tensors and value infos no node or graph output refers to.
  void PruneUnusedTensors();
};

int64_t NumElements(const std::vector<int64_t>& shape);
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace edgefold::compiler::ir
