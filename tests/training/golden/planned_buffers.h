// Reading a model's planned training buffers in tests: each buffer's record found by its role.
#pragma once
#include <cstdint>
#include <vector>

#include "edgefold/model_generated.h"
#include "edgefold/trainer.h"

namespace edgefold::tools {

// The offset the section plans for buffer `b` (matched by kind, owner, index and life), or
// UINT64_MAX when no record names it.
inline uint64_t PlannedOffsetOf(const fb::TrainingSection* t, const TrainingBuffer& b) {
  for (const fb::TrainingBufferRecord* r : *t->buffers())
    if (static_cast<uint8_t>(r->kind()) == static_cast<uint8_t>(b.kind) && r->owner() == b.owner &&
        r->index() == b.index && r->life() == b.life)
      return r->offset();
  return UINT64_MAX;
}

inline std::vector<uint8_t> Repack(const fb::ModelT& model) {
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, &model));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace edgefold::tools
