#include "edgefold/op_resolver.h"

#include <cstdarg>
#include <cstdio>

#include "ops/op_kernel.h"

namespace edgefold {

namespace {
constexpr int Index(OpKind kind) { return static_cast<int>(kind); }
}  // namespace

#define EDGEFOLD_OP_ADD(op) \
  void OpResolver::Add##op() { ops_[Index(OpKind::k##op)] = internal::Register##op(); }
EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_ADD)
#undef EDGEFOLD_OP_ADD

void OpResolver::AddConvPlain() { ops_[Index(OpKind::kConv)] = internal::RegisterConvPlain(); }
void OpResolver::AddConvWinograd() {
  ops_[Index(OpKind::kConv)] = internal::RegisterConvWinograd();
}
void OpResolver::AddConvExpansion() {
  ops_[Index(OpKind::kConv)] = internal::RegisterConvExpansion();
}

void OpResolver::AddAll() {
#define EDGEFOLD_OP_ADD_CALL(op) Add##op();
  EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_ADD_CALL)
#undef EDGEFOLD_OP_ADD_CALL
}

const internal::OpKernel* OpResolver::Find(OpKind kind) const {
  const int i = Index(kind);
  return (i >= 0 && i < Index(OpKind::kCount)) ? ops_[i] : nullptr;
}

namespace internal {

const OpResolver& DefaultOpResolver() {
  static const OpResolver resolver = [] {
    OpResolver r;
    r.AddAll();
    return r;
  }();
  return resolver;
}

const char* OpKindName(OpKind kind) {
  static const char* const kNames[] = {
#define EDGEFOLD_OP_NAME(op) #op,
      EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_NAME)
#undef EDGEFOLD_OP_NAME
  };
  const int i = Index(kind);
  return (i >= 0 && i < Index(OpKind::kCount)) ? kNames[i] : "Unknown";
}

#if !defined(EDGEFOLD_NO_LOG)
Status OpContext::Fail(Status s, const char* fmt, ...) const {
  char prefix[96];
  std::snprintf(prefix, sizeof(prefix), "%s '%s': ", OpKindName(op.kind), op.name);
  va_list args;
  va_start(args, fmt);
  errors.ReportV(prefix, fmt, args);
  va_end(args);
  return s;
}
#endif

}  // namespace internal
}  // namespace edgefold
