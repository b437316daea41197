// C API over edgefold::Int8Adapter. An ef_int8_adapter* is the Int8Adapter* itself (inside the
// arena). A separate object file: firmware that never adapts does not link the adapter.
#include "c_api/c_api_common.h"
#include "edgefold/int8_adapter.h"

namespace {

using edgefold::Int8Adapter;
using edgefold::Status;
using edgefold::c_api::ToC;
using edgefold::c_api::ToCpp;

Int8Adapter* Cpp(ef_int8_adapter* p) { return reinterpret_cast<Int8Adapter*>(p); }
const Int8Adapter* Cpp(const ef_int8_adapter* p) { return reinterpret_cast<const Int8Adapter*>(p); }

}  // namespace

extern "C" {

ef_status ef_required_int8_adapter_arena_bytes(const uint8_t* model, size_t model_bytes,
                                               const ef_options* options, size_t* arena_bytes) {
  if (arena_bytes == nullptr) return EF_INVALID_ARGUMENT;
  return ToC(
      edgefold::RequiredInt8AdapterArenaBytes(model, model_bytes, arena_bytes, ToCpp(options)));
}

ef_status ef_int8_adapter_create(const uint8_t* model, size_t model_bytes, void* arena,
                                 size_t arena_bytes, const ef_options* options,
                                 ef_int8_adapter** out) {
  if (out == nullptr) return EF_INVALID_ARGUMENT;
  *out = nullptr;
  Int8Adapter* adapter = nullptr;
  const Status s =
      Int8Adapter::Create(model, model_bytes, arena, arena_bytes, ToCpp(options), &adapter);
  if (s == Status::kOk) *out = reinterpret_cast<ef_int8_adapter*>(adapter);
  return ToC(s);
}

ef_interpreter* ef_int8_adapter_interpreter(ef_int8_adapter* a) {
  return a ? reinterpret_cast<ef_interpreter*>(Cpp(a)->interpreter()) : nullptr;
}

ef_status ef_int8_adapter_adapt(ef_int8_adapter* a, ef_stats_mode mode, float momentum) {
  if (a == nullptr || (mode != EF_STATS_MOMENTUM && mode != EF_STATS_CUMULATIVE_AVERAGE))
    return EF_INVALID_ARGUMENT;
  edgefold::AdaptOptions o;
  o.mode = static_cast<edgefold::StatsMode>(mode);
  o.momentum = momentum;
  return ToC(Cpp(a)->Adapt(o));
}

void ef_int8_adapter_reset(ef_int8_adapter* a) {
  if (a != nullptr) Cpp(a)->Reset();
}

size_t ef_int8_adapter_num_layers(const ef_int8_adapter* a) { return a ? Cpp(a)->num_layers() : 0; }

ef_status ef_int8_adapter_layer(const ef_int8_adapter* a, size_t index, const float** mean,
                                const float** var, size_t* channels, size_t* batches) {
  if (a == nullptr || index >= Cpp(a)->num_layers()) return EF_INVALID_ARGUMENT;
  const edgefold::AdaptedLayer l = Cpp(a)->layer(index);
  if (mean != nullptr) *mean = l.mean;
  if (var != nullptr) *var = l.var;
  if (channels != nullptr) *channels = l.channels;
  if (batches != nullptr) *batches = l.batches;
  return EF_OK;
}

}  // extern "C"
