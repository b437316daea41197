#include "model/bn_adaptation_reader.h"

#include "edgefold/model_generated.h"

namespace edgefold::internal {
namespace {

void ReadField(const flatbuffers::Vector<float>* v, const float** data, uint32_t* count) {
  *data = v != nullptr ? v->data() : nullptr;
  *count = v != nullptr ? v->size() : 0;
}

}  // namespace

bool ReadBnAdaptation(const uint8_t* model, size_t op_index, BnAdaptationView* out) {
  const fb::Operator* op = fb::GetModel(model)->operators()->Get(static_cast<uint32_t>(op_index));
  const fb::BnAdaptation* a = op->bn_adapt();
  if (a == nullptr) return false;
  ReadField(a->gamma_abs(), &out->gamma_abs, &out->gamma_abs_count);
  ReadField(a->beta(), &out->beta, &out->beta_count);
  ReadField(a->eps_k2(), &out->eps_k2, &out->eps_k2_count);
  return true;
}

}  // namespace edgefold::internal
