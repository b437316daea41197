// The interface between the interpreter and one operator implementation.
//
// Prepare runs once at Create: it validates shapes and options against the op's contract and
// stores what Eval needs in OpDesc::prepared. Eval runs per Invoke and only calls kernels.
#pragma once
#include <cstring>
#include <new>
#include <type_traits>

#include "edgefold/status.h"
#include "base/error_reporter.h"
#include "kernels/kernel_table.h"
#include "model/model_types.h"
#include "ops/parallel.h"

namespace edgefold {
class OpResolver;  // edgefold/op_resolver.h: the interpreter's side; ops only name it
}

namespace edgefold::internal {

struct OpContext {
  OpDesc& op;
  TensorInfo* tensors;
  // The float core family's table at the graph's level when one of its ops registered with
  // CoreOp, else the level alone (its Isa; no name, no kernels): an op outside the float core family
  // reads only k.isa (FamilyTable).
  const kernels::KernelTable& k;
  ErrorReporter& errors;
  const Parallel* parallel = nullptr;  // the caller's threads (ops/parallel.h); nullptr: one

  bool has_input(uint32_t i) const { return i < op.num_inputs && op.inputs[i] >= 0; }
  TensorInfo& input(uint32_t i) const { return tensors[op.inputs[i]]; }
  TensorInfo& output(uint32_t i) const { return tensors[op.outputs[i]]; }

  // Reports "<op kind> '<name>': <message>" and returns `s` (only returns `s` under
  // EDGEFOLD_NO_LOG: base/error_reporter.h).
#if defined(EDGEFOLD_NO_LOG)
  template <class... Args>
  Status Fail(Status s, const char*, const Args&...) const {
    return s;
  }
#else
  Status Fail(Status s, const char* fmt, ...) const EDGEFOLD_PRINTF_LIKE(3, 4);
#endif

  template <class T>
  T& prepared() const {
    static_assert(sizeof(T) <= kPreparedBytes, "prepared data too large");
    static_assert(std::is_trivially_copyable<T>::value, "prepared data must be trivial");
    return *reinterpret_cast<T*>(op.prepared);
  }
};

struct OpKernel {
  Status (*prepare)(OpContext& ctx);
  Status (*eval)(OpContext& ctx);
  // Arity, checked by the interpreter before Prepare: inputs [0, min_inputs) must be present.
  uint32_t min_inputs;
  uint32_t max_inputs;
  // Outputs [1, max_outputs], all present; which ones an op with several has, its options say.
  uint32_t max_outputs = 1;
  // The float core family's lookup (kernels::TableFor<KernelTable>) for an op whose kernels are
  // in ctx.k (CoreOp), else nullptr: a firmware none of whose ops names it links no float core
  // table.
  const kernels::KernelTable* (*core_table)(Isa level) = nullptr;
};

// The registration of an op that calls the float core family's kernels through ctx.k.
constexpr OpKernel CoreOp(OpKernel kernel) {
  kernel.core_table = &kernels::TableFor<kernels::KernelTable>;
  return kernel;
}

constexpr uint32_t kAnyInputs = 0xFFFFFFFFu;

const char* OpKindName(OpKind kind);

// The resolver used when Options::resolver is null: every op in this build.
const OpResolver& DefaultOpResolver();

// Registration functions, one per op file (RegisterConv in ops/conv.cc, ...).
#define EDGEFOLD_OP_REGISTER(op) const OpKernel* Register##op();
EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_REGISTER)
#undef EDGEFOLD_OP_REGISTER
// Conv with some of its schedules (ops/conv.cc; RegisterConv has them all).
const OpKernel* RegisterConvPlain();
const OpKernel* RegisterConvWinograd();
const OpKernel* RegisterConvExpansion();

}  // namespace edgefold::internal
