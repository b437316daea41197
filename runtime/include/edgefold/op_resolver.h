// Which operators a build links in. A firmware that runs one model registers only that
// model's ops, so the linker drops the others' code (as TFLite Micro's op resolver does).
#pragma once
#include <cstdint>

namespace edgefold {

namespace internal { struct OpKernel; }

// Operator kinds, numbered as OpType in schemas/model.fbs.
enum class OpKind : uint16_t {
  kConv = 0, kGemm, kMatMul, kBatchNorm, kChannelAffine, kActivation, kPRelu, kBinary,
  kConcat, kReshape, kTranspose, kPool, kGlobalPool, kPad, kSoftmax,
  kSlice,
  kCount
};

class OpResolver {
 public:
  OpResolver() = default;
  // One registration per kind; each pulls in that op's code only.
  void AddConv(); void AddGemm(); void AddMatMul(); void AddBatchNorm(); void AddChannelAffine();
  void AddActivation(); void AddPRelu(); void AddBinary(); void AddConcat(); void AddReshape();
  void AddTranspose(); void AddPool(); void AddGlobalPool(); void AddPad(); void AddSoftmax();
  void AddSlice();
  // Every op compiled into this build.
  void AddAll();

  const internal::OpKernel* Find(OpKind kind) const;

 private:
  const internal::OpKernel* ops_[static_cast<int>(OpKind::kCount)] = {};
};

}  // namespace edgefold
