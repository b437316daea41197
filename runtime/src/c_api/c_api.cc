// C API over edgefold::Interpreter. An ef_interpreter* is the Interpreter* itself (which lives
// in the arena), so the layer adds no state and no allocation.
#include "c_api/c_api_common.h"

namespace {

using edgefold::Interpreter;
using edgefold::Status;
using edgefold::c_api::ToC;
using edgefold::c_api::ToCpp;

// The C enums mirror the C++ ones value for value.
static_assert(EF_ARENA_TOO_SMALL == static_cast<int>(Status::kArenaTooSmall), "ef_status");
static_assert(EF_BAD_STATE == static_cast<int>(Status::kBadState), "ef_status");
static_assert(EF_ISA_NEON == static_cast<int>(edgefold::Isa::kNeon), "ef_isa");
static_assert(EF_ARENA_ALIGNMENT == edgefold::kArenaAlignment, "alignment");
static_assert(EF_MAX_RANK == edgefold::kMaxRank, "rank");
static_assert(EF_INT8 == static_cast<int>(edgefold::DType::kInt8), "ef_dtype");

Interpreter* Cpp(ef_interpreter* p) { return reinterpret_cast<Interpreter*>(p); }
const Interpreter* Cpp(const ef_interpreter* p) { return reinterpret_cast<const Interpreter*>(p); }

void ToC(const edgefold::TensorView& v, ef_tensor* out) {
  out->data = v.data;
  out->shape = v.shape;
  out->rank = v.rank;
  out->elems = v.elems;
  out->name = v.name;
  out->dtype = static_cast<ef_dtype>(v.dtype);
  out->data_s8 = v.data_s8;
  out->scale = v.scale;
  out->zero_point = v.zero_point;
}

}  // namespace

extern "C" {

void ef_options_init(ef_options* options) {
  if (options == nullptr) return;
  options->isa = EF_ISA_AUTO;
  options->log = nullptr;
  options->log_user = nullptr;
  options->parallel_for = nullptr;
  options->parallel_user = nullptr;
  options->num_threads = 1;
  options->min_task_work = 0;
  options->adapt_splits = 1;
}

const char* ef_status_string(ef_status status) {
  return edgefold::StatusName(static_cast<Status>(status));
}

const char* ef_isa_name(ef_isa isa) { return edgefold::IsaName(static_cast<edgefold::Isa>(isa)); }

int ef_isa_available(ef_isa isa) { return edgefold::IsaAvailable(static_cast<edgefold::Isa>(isa)); }

ef_status ef_required_arena_bytes(const uint8_t* model, size_t model_bytes,
                                  const ef_options* options, size_t* arena_bytes) {
  if (arena_bytes == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(edgefold::RequiredArenaBytes(model, model_bytes, arena_bytes, ToCpp(options)));
}

ef_status ef_create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                    const ef_options* options, ef_interpreter** out) {
  if (out == nullptr) return EF_INVALID_ARGUMENT;
  *out = nullptr;
  Interpreter* interpreter = nullptr;
  const Status s =
      Interpreter::Create(model, model_bytes, arena, arena_bytes, ToCpp(options), &interpreter);
  if (s == Status::kOk) *out = reinterpret_cast<ef_interpreter*>(interpreter);
  return ToC(s);
}

size_t ef_num_inputs(const ef_interpreter* it) { return it ? Cpp(it)->num_inputs() : 0; }
size_t ef_num_outputs(const ef_interpreter* it) { return it ? Cpp(it)->num_outputs() : 0; }

ef_status ef_set_input(ef_interpreter* it, size_t index, const float* data, size_t elems) {
  if (it == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(it)->SetInput(index, data, elems));
}

ef_status ef_set_input_s8(ef_interpreter* it, size_t index, const int8_t* data, size_t elems) {
  if (it == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(it)->SetInputS8(index, data, elems));
}

ef_status ef_quantize_input(ef_interpreter* it, size_t index, const float* data, size_t elems) {
  if (it == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(it)->QuantizeInput(index, data, elems));
}

ef_status ef_dequantize_output(const ef_interpreter* it, size_t index, float* out, size_t elems) {
  if (it == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(it)->DequantizeOutput(index, out, elems));
}

ef_status ef_get_input(const ef_interpreter* it, size_t index, ef_tensor* out) {
  if (it == nullptr || out == nullptr || index >= Cpp(it)->num_inputs()) return EF_INVALID_ARGUMENT;
  ToC(Cpp(it)->input(index), out);
  return EF_OK;
}

ef_status ef_invoke(ef_interpreter* it) {
  if (it == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(Cpp(it)->Invoke());
}

ef_status ef_get_output(const ef_interpreter* it, size_t index, ef_tensor* out) {
  if (it == nullptr || out == nullptr || index >= Cpp(it)->num_outputs())
    return EF_INVALID_ARGUMENT;
  ToC(Cpp(it)->output(index), out);
  return EF_OK;
}

const char* ef_kernel_isa_name(const ef_interpreter* it) {
  return it ? Cpp(it)->kernel_isa_name() : "";
}

size_t ef_arena_used_bytes(const ef_interpreter* it) {
  return it ? Cpp(it)->arena_used_bytes() : 0;
}
size_t ef_invocations(const ef_interpreter* it) { return it ? Cpp(it)->invocations() : 0; }
size_t ef_split_invocations(const ef_interpreter* it) {
  return it ? Cpp(it)->split_invocations() : 0;
}

}  // extern "C"
