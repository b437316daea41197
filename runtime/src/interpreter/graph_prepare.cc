#include "interpreter/graph_prepare.h"

#include "model/dataflow_check.h"
#include "model/layout_check.h"

namespace edgefold::internal {
namespace {

Status CheckArity(const OpDesc& op, const OpKernel& kernel, ErrorReporter& errors) {
  bool ok = op.num_inputs >= kernel.min_inputs && op.num_inputs <= kernel.max_inputs &&
            op.num_outputs >= 1 && op.num_outputs <= kernel.max_outputs;
  for (uint32_t i = 0; ok && i < kernel.min_inputs; ++i) ok = op.inputs[i] >= 0;
  if (!ok) {
    errors.Report(
        "op '%s' (%s): has %u inputs and %u outputs; needs %u..%u inputs (the first %u "
        "present) and 1..%u outputs",
        op.name, OpKindName(op.kind), op.num_inputs, op.num_outputs, kernel.min_inputs,
        kernel.max_inputs, kernel.min_inputs, kernel.max_outputs);
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

}  // namespace

Status CheckCreateRequest(const uint8_t* model, size_t model_bytes, const void* arena,
                          const void* out, const Options& options, ErrorReporter& errors,
                          ModelSummary* summary) {
  if (out == nullptr || arena == nullptr) {
    errors.Report("Create needs a non-null arena and output pointer");
    return Status::kInvalidArgument;
  }
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0) {
    errors.Report("arena must start at a 64-byte boundary");
    return Status::kMisalignedArena;
  }
  EDGEFOLD_RETURN_IF_ERROR(CheckModel(model, model_bytes, errors, summary));
  if (options.isa != Isa::kAuto && !IsaAvailable(options.isa)) {
    errors.Report("kernel level %s is not available in this build or on this CPU",
                  IsaName(options.isa));
    return Status::kInvalidArgument;
  }
  return Status::kOk;
}

Status CheckAddressable(size_t needed_bytes, const char* what, ErrorReporter& errors) {
  if (needed_bytes == SIZE_MAX) {
    errors.Report("model needs more %s than this machine can address", what);
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

Status CheckArenaBytes(size_t needed_bytes, size_t arena_bytes, const char* what,
                       ErrorReporter& errors) {
  EDGEFOLD_RETURN_IF_ERROR(CheckAddressable(needed_bytes, what, errors));
  if (arena_bytes < needed_bytes) {
    errors.Report("%s too small: model needs %zu bytes, got %zu", what, needed_bytes, arena_bytes);
    return Status::kArenaTooSmall;
  }
  return Status::kOk;
}

void WarnOfIgnoredIsaOverride(Isa requested, ErrorReporter& errors) {
  bool names_no_level = false;
  const char* ignored =
      requested == Isa::kAuto ? kernels::IgnoredIsaOverride(&names_no_level) : nullptr;
  if (ignored != nullptr)
    errors.Report("warning: EDGEFOLD_ISA=%s %s; ignored", ignored,
                  names_no_level ? "is not a level (auto, scalar, sse4.2, avx2+fma, avx512, neon)"
                                 : "is not available on this CPU/build");
}

Status PrepareGraph(const GraphTables& g, const kernels::KernelTable& level_only,
                    const OpResolver* resolver, ErrorReporter& errors,
                    const kernels::KernelTable** kernels) {
  EDGEFOLD_RETURN_IF_ERROR(CheckDataflow(g.summary, g.tensors, g.ops, errors));
  if (EDGEFOLD_NHWC) EDGEFOLD_RETURN_IF_ERROR(CheckLayouts(g.summary, g.tensors, g.ops, errors));
  const OpResolver& ops = (resolver != nullptr) ? *resolver : DefaultOpResolver();
  *kernels = &level_only;
  for (size_t i = 0; i < g.summary.num_ops; ++i) {
    OpDesc& op = g.ops[i];
    const OpKernel* kernel = ops.Find(op.kind);
    if (kernel == nullptr) {
      errors.Report("op '%s': %s is not registered in this build's OpResolver", op.name,
                    OpKindName(op.kind));
      return Status::kUnsupportedOp;
    }
    g.op_kernels[i] = kernel;
    EDGEFOLD_RETURN_IF_ERROR(CheckArity(op, *kernel, errors));
    if (kernel->core_table != nullptr) *kernels = kernel->core_table(level_only.isa);
  }
  for (size_t i = 0; i < g.summary.num_ops; ++i) {
    OpContext ctx{g.ops[i], g.tensors, **kernels, errors};
    EDGEFOLD_RETURN_IF_ERROR(g.op_kernels[i]->prepare(ctx));
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
