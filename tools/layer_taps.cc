#include "layer_taps.h"

#include <cstring>

#include "edgefold/model_generated.h"

namespace edgefold::tools {

bool LayerTaps::Open(const std::vector<uint8_t>& model, const std::string& what,
                     std::string* error) {
  what_ = what;
  model_ = AllocateAligned(model.size());
  if (!model_.data) return *error = what + ": out of memory", false;
  std::memcpy(model_.data.get(), model.data(), model.size());
  model_.bytes = model.size();
  Options options;
  options.log = &LayerTaps::Log;
  options.log_user = this;
  options.on_op_end = &LayerTaps::OnOpEnd;
  options.on_op_end_user = this;
  size_t arena_bytes = 0;
  Status st = RequiredArenaBytes(model_.data.get(), model_.bytes, &arena_bytes, options);
  if (st == Status::kOk) {
    arena_ = AllocateAligned(arena_bytes);
    if (!arena_.data) return *error = what + ": out of memory", false;
    arena_.bytes = arena_bytes;
    st = Interpreter::Create(model_.data.get(), model_.bytes, arena_.data.get(), arena_bytes,
                             options, &interpreter_);
  }
  if (st != Status::kOk)
    return *error = what + ": " + StatusName(st) + (log_.empty() ? "" : ": " + log_), false;
  return true;
}

bool LayerTaps::Run(std::vector<LayerValue>* out, std::string* error) {
  sink_ = out;
  const Status st = interpreter_->Invoke();
  sink_ = nullptr;
  if (st != Status::kOk)
    return *error =
               what_ + ": Invoke failed: " + StatusName(st) + (log_.empty() ? "" : ": " + log_),
           false;
  return true;
}

void LayerTaps::OnOpEnd(void* user, size_t op_index) {
  auto* self = static_cast<LayerTaps*>(user);
  if (self->sink_ == nullptr) return;
  const fb::Model* m = fb::GetModel(self->model_.data.get());
  const fb::Operator* op = m->operators()->Get(static_cast<uint32_t>(op_index));
  for (int32_t t : *op->outputs()) {
    if (t < 0) continue;
    const fb::Tensor* tensor = m->tensors()->Get(static_cast<uint32_t>(t));
    if (tensor->arena_offset() < 0 || tensor->dtype() == fb::DType::Int32) continue;
    size_t elems = 1;
    for (int32_t d : *tensor->shape()) elems *= static_cast<size_t>(d);
    LayerValue v;
    v.op_name = op->name() ? op->name()->str() : "";
    v.op_type = fb::EnumNameOpType(op->type());
    v.tensor = tensor->name() ? tensor->name()->str() : "";
    v.values.resize(elems);
    const uint8_t* at = self->arena_.data.get() + tensor->arena_offset();
    if (tensor->dtype() == fb::DType::Float32) {
      std::memcpy(v.values.data(), at, elems * sizeof(float));
    } else {
      v.int8 = true;
      const float scale = tensor->quant()->scales()->Get(0);
      const int32_t zp = tensor->quant()->zero_points()->Get(0);
      for (size_t i = 0; i < elems; ++i)
        v.values[i] = static_cast<float>(static_cast<int8_t>(at[i]) - zp) * scale;
    }
    self->sink_->push_back(std::move(v));
  }
}

void LayerTaps::Log(void* user, const char* message) {
  auto* self = static_cast<LayerTaps*>(user);
  if (!self->log_.empty()) self->log_ += "; ";
  self->log_ += message;
}

}  // namespace edgefold::tools
