// Which operators a build links in. A firmware that runs one model registers only that
// model's ops, so the linker drops the others' code (as TFLite Micro's op resolver does).
#pragma once
#include <cstdint>

#include "edgefold/types.h"

namespace edgefold {

namespace internal {
struct OpKernel;
}

class OpResolver {
 public:
  OpResolver() = default;
  // One registration per kind (AddConv, AddGemm, ...); each pulls in that op's code only.
#define EDGEFOLD_OP_ADD(op) void Add##op();
  EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_ADD)
#undef EDGEFOLD_OP_ADD
  // Every op compiled into this build.
  void AddAll();

  const internal::OpKernel* Find(OpKind kind) const;

 private:
  const internal::OpKernel* ops_[static_cast<int>(OpKind::kCount)] = {};
};

}  // namespace edgefold
