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
  // Conv with only some of its schedules (AddConv links them all): AddConvPlain the direct,
  // phase-plane and im2col paths; AddConvWinograd those and the weights the compiler stores in
  // another layout (Winograd-domain filters, transposed pointwise weights);
  // AddConvExpansion those and a fused pointwise expansion. A model that needs a schedule
  // left out is refused with Status::kUnsupportedOp naming the op. `edgefold export-c`'s
  // NAME_REGISTER_OPS calls the smallest that runs the model.
  void AddConvPlain();
  void AddConvWinograd();
  void AddConvExpansion();
  // Every op compiled into this build.
  void AddAll();

  const internal::OpKernel* Find(OpKind kind) const;

 private:
  const internal::OpKernel* ops_[static_cast<int>(OpKind::kCount)] = {};
};

}  // namespace edgefold
