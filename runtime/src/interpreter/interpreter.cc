#include "edgefold/interpreter.h"

#include <cstdint>
#include <cstring>
#include <new>

#include "interpreter/interpreter_state.h"
#include "model/dataflow_check.h"

namespace edgefold {

using internal::ArenaLayout;
using internal::ModelSummary;

Status RequiredArenaBytes(const uint8_t* model, size_t model_bytes, size_t* arena_bytes,
                          const Options& options) {
  if (arena_bytes == nullptr) return Status::kInvalidArgument;
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  const size_t needed = internal::ComputeArenaLayout(summary).total_bytes;
  if (needed == SIZE_MAX) {
    errors.Report("model needs more arena than this machine can address");
    return Status::kInvalidModel;
  }
  *arena_bytes = needed;
  return Status::kOk;
}

namespace {

Status CheckArity(Interpreter::State& s, const internal::OpDesc& op, const internal::OpKernel& kernel) {
  bool ok = op.num_inputs >= kernel.min_inputs && op.num_inputs <= kernel.max_inputs &&
            op.num_outputs == 1;
  for (uint32_t i = 0; ok && i < kernel.min_inputs; ++i) ok = op.inputs[i] >= 0;
  if (!ok) {
    s.errors.Report("op '%s' (%s): has %u inputs and %u outputs; needs %u..%u inputs (the first %u "
                    "present) and 1 output", op.name, internal::OpKindName(op.kind), op.num_inputs,
                    op.num_outputs, kernel.min_inputs, kernel.max_inputs, kernel.min_inputs);
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

Status PrepareOps(Interpreter::State& s, const OpResolver& resolver) {
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    internal::OpDesc& op = s.ops[i];
    const internal::OpKernel* kernel = resolver.Find(op.kind);
    if (kernel == nullptr) {
      s.errors.Report("op '%s': %s is not registered in this build's OpResolver", op.name,
                      internal::OpKindName(op.kind));
      return Status::kUnsupportedOp;
    }
    s.op_kernels[i] = kernel;
    EDGEFOLD_RETURN_IF_ERROR(CheckArity(s, op, *kernel));
    internal::OpContext ctx{op, s.tensors, *s.kernels, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(kernel->prepare(ctx));
  }
  return Status::kOk;
}

}  // namespace

Status Interpreter::Create(const uint8_t* model, size_t model_bytes, void* arena,
                           size_t arena_bytes, const Options& options, Interpreter** out) {
  internal::ErrorReporter errors(options.log, options.log_user);
  if (out == nullptr || arena == nullptr) {
    errors.Report("Create needs a non-null arena and output pointer");
    return Status::kInvalidArgument;
  }
  *out = nullptr;
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0) {
    errors.Report("arena must start at a 64-byte boundary");
    return Status::kMisalignedArena;
  }
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  const ArenaLayout layout = internal::ComputeArenaLayout(summary);
  const size_t needed = layout.total_bytes;
  if (needed == SIZE_MAX) {
    errors.Report("model needs more arena than this machine can address");
    return Status::kInvalidModel;
  }
  if (arena_bytes < needed) {
    errors.Report("arena too small: model needs %zu bytes, got %zu", needed, arena_bytes);
    return Status::kArenaTooSmall;
  }
  if (options.isa != Isa::kAuto && !IsaAvailable(options.isa)) {
    errors.Report("kernel level %s is not available in this build or on this CPU",
                  IsaName(options.isa));
    return Status::kInvalidArgument;
  }

  uint8_t* base = static_cast<uint8_t*>(arena);
  State* s = new (base + layout.state_offset) State(options.log, options.log_user);
  s->on_op_end = options.on_op_end;
  s->on_op_end_user = options.on_op_end_user;
  s->model = model;
  s->summary = summary;
  s->kernels = &kernels::SelectKernelTable(options.isa);
  s->planned = base;
  s->tensors = reinterpret_cast<internal::TensorInfo*>(base + layout.tensors_offset);
  s->ops = reinterpret_cast<internal::OpDesc*>(base + layout.ops_offset);
  s->op_kernels = reinterpret_cast<const internal::OpKernel**>(base + layout.op_kernels_offset);
  s->arena_used_bytes = needed;
  internal::ReadModel(model, base, s->tensors, s->ops);
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckDataflow(summary, s->tensors, s->ops, s->errors));

  const OpResolver& resolver =
      (options.resolver != nullptr) ? *options.resolver : internal::DefaultOpResolver();
  EDGEFOLD_RETURN_IF_ERROR(PrepareOps(*s, resolver));
  s->ready = true;
  *out = new (base + layout.handle_offset) Interpreter(s);
  return Status::kOk;
}

Status Interpreter::Invoke() {
  State& s = *state_;
  if (!s.ready) return Status::kBadState;
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    internal::OpContext ctx{s.ops[i], s.tensors, *s.kernels, s.errors};
    EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
    if (s.on_op_end != nullptr) s.on_op_end(s.on_op_end_user, i);
  }
  return Status::kOk;
}

size_t Interpreter::num_ops() const { return state_->summary.num_ops; }
const char* Interpreter::op_name(size_t i) const {
  return i < state_->summary.num_ops ? state_->ops[i].name : "";
}
const char* Interpreter::op_type(size_t i) const {
  return i < state_->summary.num_ops ? internal::OpKindName(state_->ops[i].kind) : "";
}

namespace {
TensorView ViewOf(const internal::TensorInfo& t) {
  TensorView v;
  v.data = t.data;
  v.shape = t.shape;
  v.rank = t.rank;
  v.elems = t.elems;
  v.name = t.name;
  return v;
}
}  // namespace

size_t Interpreter::num_inputs() const { return state_->summary.num_inputs; }
size_t Interpreter::num_outputs() const { return state_->summary.num_outputs; }

TensorView Interpreter::input(size_t i) const {
  if (i >= num_inputs()) return TensorView();
  return ViewOf(state_->tensors[state_->summary.inputs[i]]);
}

TensorView Interpreter::output(size_t i) const {
  if (i >= num_outputs()) return TensorView();
  return ViewOf(state_->tensors[state_->summary.outputs[i]]);
}

Status Interpreter::SetInput(size_t i, const float* data, size_t elems) {
  if (i >= num_inputs() || data == nullptr) {
    state_->errors.Report("SetInput: input %zu does not exist or data is null", i);
    return Status::kInvalidArgument;
  }
  const internal::TensorInfo& t = state_->tensors[state_->summary.inputs[i]];
  if (elems != t.elems) {
    state_->errors.Report("SetInput: input '%s' holds %zu floats, got %zu", t.name, t.elems, elems);
    return Status::kShapeMismatch;
  }
  std::memcpy(t.data, data, elems * sizeof(float));
  return Status::kOk;
}

const char* Interpreter::kernel_isa_name() const { return state_->kernels->name; }
size_t Interpreter::arena_used_bytes() const { return state_->arena_used_bytes; }

}  // namespace edgefold
