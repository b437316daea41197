// Arena aliasing between one op's operands, checked once at load (model_reader.cc).
#pragma once
#include "edgefold/model_generated.h"
#include "edgefold/status.h"
#include "base/error_reporter.h"

namespace edgefold::internal {

// Bytes per element of a tensor's dtype.
inline size_t DTypeBytes(fb::DType d) { return d == fb::DType::Int8 ? 1 : 4; }

// A tensor's name, "" when it has none.
inline const char* TensorName(const fb::Model* m, int32_t tensor) {
  const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(tensor));
  return (t->name() != nullptr) ? t->name()->c_str() : "";
}

// An op must never write over what it reads: each output's arena bytes are disjoint from every
// input's (but for the views the compiler plans), from every other output's and from its scratch.
Status CheckNoAliasing(const fb::Operator* op, const fb::Model* m, const char* name,
                       ErrorReporter& errors);

}  // namespace edgefold::internal
