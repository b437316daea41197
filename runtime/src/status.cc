#include "edgefold/status.h"

namespace edgefold {

const char* StatusName(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kInvalidModel:
      return "invalid model";
    case Status::kUnsupportedVersion:
      return "unsupported model format version";
    case Status::kMisalignedModel:
      return "model buffer not 64-byte aligned";
    case Status::kUnsupportedOp:
      return "unsupported op";
    case Status::kShapeMismatch:
      return "shape mismatch";
    case Status::kArenaTooSmall:
      return "arena too small";
    case Status::kMisalignedArena:
      return "arena not 64-byte aligned";
    case Status::kInvalidArgument:
      return "invalid argument";
    case Status::kNumericError:
      return "numeric error";
    case Status::kBadState:
      return "bad state";
  }
  return "unknown status";
}

}  // namespace edgefold
