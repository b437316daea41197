// FlatBuffers 2.0.8's verifier checks that a vector's length field is 4-byte aligned, not
// that its elements are aligned for their type: a crafted model can place a [double] or
// [ulong] vector at an address that is 4 mod 8. Reading it is undefined behaviour, and a
// fault on cores whose 64-bit loads need alignment. The model buffer itself is checked to be
// aligned (model/model_reader.cc), so an element offset that is aligned is an aligned address.
#pragma once
#include <cstdint>

#include "flatbuffers/flatbuffers.h"

namespace edgefold::internal {

template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

}  // namespace edgefold::internal
