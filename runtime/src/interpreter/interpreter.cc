#include "edgefold/interpreter.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#if !defined(EDGEFOLD_SINGLE_THREAD)
#include <chrono>
#endif

#include "interpreter/interpreter_state.h"
#include "interpreter/graph_prepare.h"
#include "kernels/int8_kernel_table.h"

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
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckAddressable(needed, "arena", errors));
  *arena_bytes = needed;
  return Status::kOk;
}

Status Interpreter::Create(const uint8_t* model, size_t model_bytes, void* arena,
                           size_t arena_bytes, const Options& options, Interpreter** out) {
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(
      internal::CheckCreateRequest(model, model_bytes, arena, out, options, errors, &summary));
  *out = nullptr;
  const ArenaLayout layout = internal::ComputeArenaLayout(summary);
  EDGEFOLD_RETURN_IF_ERROR(
      internal::CheckArenaBytes(layout.total_bytes, arena_bytes, "arena", errors));

  uint8_t* base = static_cast<uint8_t*>(arena);
  State* s = new (base + layout.state_offset) State(options.log, options.log_user);
  s->on_op_end = options.on_op_end;
  s->on_op_end_user = options.on_op_end_user;
  s->parallel = internal::Parallel{
      options.parallel_for, options.parallel_user,
      options.parallel_for != nullptr ? std::max<size_t>(1, options.num_threads) : 1,
      options.min_task_work != 0 ? options.min_task_work : internal::kMinTaskWork};
#if !defined(EDGEFOLD_SINGLE_THREAD)
  s->adapt_splits = options.adapt_splits && s->parallel.threads > 1;
#endif
  s->model = model;
  s->summary = summary;
  const Isa level = kernels::ResolveIsa(options.isa);
  s->level_only.isa = level;
  internal::WarnOfIgnoredIsaOverride(options.isa, s->errors);
  s->planned = base;
  s->tensors = reinterpret_cast<internal::TensorInfo*>(base + layout.tensors_offset);
  s->ops = reinterpret_cast<internal::OpDesc*>(base + layout.ops_offset);
  s->op_kernels = reinterpret_cast<const internal::OpKernel**>(base + layout.op_kernels_offset);
  s->arena_used_bytes = layout.total_bytes;
  internal::ReadModel(model, base, s->tensors, s->ops);
  EDGEFOLD_RETURN_IF_ERROR(internal::PrepareGraph({s->summary, s->tensors, s->ops, s->op_kernels},
                                                  s->level_only, options.resolver, s->errors,
                                                  &s->kernels));
  s->ready = true;
  *out = new (base + layout.handle_offset) Interpreter(s);
  return Status::kOk;
}

Status Interpreter::Invoke() {
  State& s = *state_;
  if (!s.ready) return Status::kBadState;
#if !defined(EDGEFOLD_SINGLE_THREAD)
  using Clock = std::chrono::steady_clock;
  const internal::Parallel alone{nullptr, nullptr, 1, s.parallel.min_work};
  const bool run_alone = s.adapt_splits && internal::RunAloneThisTime(s.split_timing, s.runs);
  const internal::Parallel* parallel = run_alone ? &alone : &s.parallel;
  s.split_runs += !run_alone && s.parallel.threads > 1;
  const Clock::time_point start = s.adapt_splits ? Clock::now() : Clock::time_point();
#else
  const internal::Parallel* parallel = &s.parallel;
#endif
  ++s.runs;
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    internal::OpContext ctx{s.ops[i], s.tensors, *s.kernels, s.errors, parallel};
    EDGEFOLD_RETURN_IF_ERROR(s.op_kernels[i]->eval(ctx));
    if (s.on_op_end != nullptr) s.on_op_end(s.on_op_end_user, i);
  }
#if !defined(EDGEFOLD_SINGLE_THREAD)
  if (s.adapt_splits)
    internal::RecordSplitRun(&s.split_timing, run_alone,
                             std::chrono::duration<float, std::nano>(Clock::now() - start).count());
#endif
  return Status::kOk;
}

size_t Interpreter::num_ops() const { return state_->summary.num_ops; }
size_t Interpreter::invocations() const { return static_cast<size_t>(state_->runs); }
size_t Interpreter::split_invocations() const { return static_cast<size_t>(state_->split_runs); }
const char* Interpreter::op_name(size_t i) const {
  return i < state_->summary.num_ops ? state_->ops[i].name : "";
}
const char* Interpreter::op_type(size_t i) const {
  return i < state_->summary.num_ops ? internal::OpKindName(state_->ops[i].kind) : "";
}

namespace {
TensorView ViewOf(const internal::TensorInfo& t) {
  TensorView v;
  v.shape = t.shape;
  v.rank = t.rank;
  v.elems = t.elems;
  v.name = t.name;
  v.dtype = t.dtype;
  if (t.dtype == DType::kFloat32) {
    v.data = t.data;
  } else if (t.dtype == DType::kInt8) {
    v.data_s8 = reinterpret_cast<int8_t*>(t.data);
    v.scale = t.scales[0];  // graph inputs/outputs have one scale (checked at load)
    v.zero_point = t.zero_points[0];
  }
  return v;
}

// The params of the Quantize/Dequantize ops for int8 tensor `t` (ops/quantize.cc).
kernels::QuantS8Params QuantParamsOf(const internal::TensorInfo& t) {
  return kernels::QuantS8Params{t.scales[0], 1.0f / t.scales[0], t.zero_points[0]};
}

// The int8 family of the interpreter's level, looked up by the int8 I/O calls only: firmware
// that never calls them links no int8 kernels through them.
const kernels::Int8KernelTable& Int8Kernels(const Interpreter::State& s) {
  return *kernels::TableFor<kernels::Int8KernelTable>(s.kernels->isa);
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

// SetInput is in every firmware: its checks and messages are kept short (flash budget).
Status Interpreter::SetInput(size_t i, const float* data, size_t elems) {
  if (i >= num_inputs() || data == nullptr) {
    state_->errors.Report("SetInput: input %zu does not exist or data is null", i);
    return Status::kInvalidArgument;
  }
  const internal::TensorInfo& t = state_->tensors[state_->summary.inputs[i]];
  if (t.dtype != DType::kFloat32) {
    state_->errors.Report("SetInput: input '%s' is int8: use SetInputS8 or QuantizeInput", t.name);
    return Status::kInvalidArgument;
  }
  if (elems != t.elems) {
    state_->errors.Report("SetInput: input '%s' holds %zu floats, got %zu", t.name, t.elems, elems);
    return Status::kShapeMismatch;
  }
  std::memcpy(t.data, data, elems * sizeof(float));
  return Status::kOk;
}

// Int8 input i holding `elems` values; `call` names the API in messages.
Status Interpreter::CheckInputS8(const char* call, size_t i, const void* data, size_t elems) const {
  if (i >= num_inputs() || data == nullptr) {
    state_->errors.Report("%s: input %zu does not exist or data is null", call, i);
    return Status::kInvalidArgument;
  }
  const internal::TensorInfo& t = state_->tensors[state_->summary.inputs[i]];
  if (t.dtype != DType::kInt8) {
    state_->errors.Report("%s: input '%s' is %s, not int8: use SetInput", call, t.name,
                          DTypeName(t.dtype));
    return Status::kInvalidArgument;
  }
  if (elems != t.elems) {
    state_->errors.Report("%s: input '%s' holds %zu int8 values, got %zu", call, t.name, t.elems,
                          elems);
    return Status::kShapeMismatch;
  }
  return Status::kOk;
}

Status Interpreter::SetInputS8(size_t i, const int8_t* data, size_t elems) {
  EDGEFOLD_RETURN_IF_ERROR(CheckInputS8("SetInputS8", i, data, elems));
  std::memcpy(state_->tensors[state_->summary.inputs[i]].data, data, elems);
  return Status::kOk;
}

Status Interpreter::QuantizeInput(size_t i, const float* data, size_t elems) {
  EDGEFOLD_RETURN_IF_ERROR(CheckInputS8("QuantizeInput", i, data, elems));
  const internal::TensorInfo& t = state_->tensors[state_->summary.inputs[i]];
  Int8Kernels(*state_).quantize_s8(QuantParamsOf(t), data, reinterpret_cast<int8_t*>(t.data),
                                   elems);
  return Status::kOk;
}

Status Interpreter::DequantizeOutput(size_t i, float* out, size_t elems) const {
  if (i >= num_outputs() || out == nullptr) {
    state_->errors.Report("DequantizeOutput: output %zu does not exist or out is null", i);
    return Status::kInvalidArgument;
  }
  const internal::TensorInfo& t = state_->tensors[state_->summary.outputs[i]];
  if (elems != t.elems) {
    state_->errors.Report("DequantizeOutput: output '%s' holds %zu values, got room for %zu",
                          t.name, t.elems, elems);
    return Status::kShapeMismatch;
  }
  if (t.dtype == DType::kInt8)
    Int8Kernels(*state_).dequantize_s8(QuantParamsOf(t), reinterpret_cast<const int8_t*>(t.data),
                                       out, elems);
  else
    std::memcpy(out, t.data, elems * sizeof(float));
  return Status::kOk;
}

const char* Interpreter::kernel_isa_name() const {
  return kernels::IsaEntryName(kernels::ActiveEntry(state_->kernels->isa));
}
size_t Interpreter::arena_used_bytes() const { return state_->arena_used_bytes; }

}  // namespace edgefold
