// Status codes returned by every fallible runtime call. No exceptions are thrown.
#pragma once
#include <cstdint>

namespace edgefold {

// The high byte is the category; the low byte distinguishes cases inside it.
enum class [[nodiscard]] Status : uint16_t{
    kOk = 0,
    // The model file is not something we can run.
    kInvalidModel = 0x0100,        // verifier rejected it, or a semantic check failed
    kUnsupportedVersion = 0x0101,  // format_version this runtime does not know
    kMisalignedModel = 0x0102,     // model bytes not 64-byte aligned (weights read in place)
    // The model needs an op this build does not register (trimmed resolver).
    kUnsupportedOp = 0x0200,
    // Shapes, element counts or ranks that do not fit an op or an input.
    kShapeMismatch = 0x0300,
    // Memory supplied by the caller.
    kArenaTooSmall = 0x0400,
    kMisalignedArena = 0x0401,
    // The caller passed something invalid (null pointer, index out of range).
    kInvalidArgument = 0x0500,
    // Numeric trouble detected where it is cheap to check (e.g. negative variance).
    kNumericError = 0x0600,
    // Called in the wrong state (e.g. Invoke on a failed interpreter).
    kBadState = 0x0700,
};

constexpr uint8_t StatusCategory(Status s) {
  return static_cast<uint8_t>(static_cast<uint16_t>(s) >> 8);
}
constexpr bool IsOk(Status s) { return s == Status::kOk; }
const char* StatusName(Status s);

}  // namespace edgefold

#define EDGEFOLD_RETURN_IF_ERROR(expr)                                        \
  do {                                                                        \
    const ::edgefold::Status edgefold_status_ = (expr);                       \
    if (edgefold_status_ != ::edgefold::Status::kOk) return edgefold_status_; \
  } while (0)
