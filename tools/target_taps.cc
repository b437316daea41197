#include "target_taps.h"

#include <cstring>

#include "edgefold/model_generated.h"

namespace edgefold::tools {
namespace {

uint32_t U32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

std::vector<uint8_t> TapsPlan(const uint8_t* model) {
  const fb::Model* m = fb::GetModel(model);
  std::vector<uint8_t> plan;
  for (uint32_t o = 0; m->operators() && o < m->operators()->size(); ++o) {
    const fb::Operator* op = m->operators()->Get(o);
    if (!op->outputs()) continue;
    for (int32_t t : *op->outputs()) {
      if (t < 0) continue;
      const fb::Tensor* tensor = m->tensors()->Get(static_cast<uint32_t>(t));
      if (tensor->arena_offset() < 0 || tensor->dtype() == fb::DType::Int32) continue;
      size_t bytes = tensor->dtype() == fb::DType::Float32 ? 4 : 1;
      if (tensor->shape())
        for (int32_t d : *tensor->shape()) bytes *= static_cast<size_t>(d);
      PutU32(&plan, o);
      PutU32(&plan, static_cast<uint32_t>(t));
      PutU32(&plan, static_cast<uint32_t>(tensor->arena_offset()));
      PutU32(&plan, static_cast<uint32_t>(bytes));
    }
  }
  return plan;
}

bool DecodeTargetTaps(const uint8_t* model, const std::vector<uint8_t>& taps,
                      std::vector<LayerValue>* out, std::string* error) {
  const fb::Model* m = fb::GetModel(model);
  size_t at = 0;
  while (at < taps.size()) {
    const std::string where = "layer taps at byte " + std::to_string(at);
    if (taps.size() - at < 12) return *error = where + ": truncated record header", false;
    const uint32_t op_index = U32(&taps[at]), tensor_index = U32(&taps[at + 4]);
    const size_t bytes = U32(&taps[at + 8]);
    at += 12;
    if (op_index >= m->operators()->size() || tensor_index >= m->tensors()->size())
      return *error = where + ": op " + std::to_string(op_index) + " / tensor " +
                      std::to_string(tensor_index) + " not in the model",
             false;
    const fb::Operator* op = m->operators()->Get(op_index);
    const fb::Tensor* tensor = m->tensors()->Get(tensor_index);
    const bool is_float = tensor->dtype() == fb::DType::Float32;
    size_t elems = 1;
    if (tensor->shape())
      for (int32_t d : *tensor->shape()) elems *= static_cast<size_t>(d);
    if (bytes != elems * (is_float ? 4 : 1) || taps.size() - at < bytes)
      return *error = where + ": tensor '" + (tensor->name() ? tensor->name()->str() : "") +
                      "' has " + std::to_string(bytes) + " bytes, the model says " +
                      std::to_string(elems * (is_float ? 4 : 1)),
             false;
    LayerValue v;
    v.op_name = op->name() ? op->name()->str() : "";
    v.op_type = fb::EnumNameOpType(op->type());
    v.tensor = tensor->name() ? tensor->name()->str() : "";
    v.values.resize(elems);
    if (is_float) {
      std::memcpy(v.values.data(), &taps[at], bytes);
    } else {
      if (!tensor->quant() || !tensor->quant()->scales() || !tensor->quant()->zero_points() ||
          tensor->quant()->scales()->size() == 0 || tensor->quant()->zero_points()->size() == 0)
        return *error = where + ": int8 tensor '" + v.tensor + "' has no scale", false;
      v.int8 = true;
      const float scale = tensor->quant()->scales()->Get(0);
      const int32_t zp = tensor->quant()->zero_points()->Get(0);
      for (size_t i = 0; i < elems; ++i)
        v.values[i] = static_cast<float>(static_cast<int8_t>(taps[at + i]) - zp) * scale;
    }
    at += bytes;
    out->push_back(std::move(v));
  }
  return true;
}

}  // namespace edgefold::tools
