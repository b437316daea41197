#include "edgefold/op_resolver.h"

#include <cstdarg>
#include <cstdio>

#include "ops/op_kernel.h"

namespace edgefold {

namespace {
constexpr int Index(OpKind kind) { return static_cast<int>(kind); }
}  // namespace

void OpResolver::AddConv() { ops_[Index(OpKind::kConv)] = internal::RegisterConv(); }
void OpResolver::AddGemm() { ops_[Index(OpKind::kGemm)] = internal::RegisterGemm(); }
void OpResolver::AddMatMul() { ops_[Index(OpKind::kMatMul)] = internal::RegisterMatMul(); }
void OpResolver::AddBatchNorm() { ops_[Index(OpKind::kBatchNorm)] = internal::RegisterBatchNorm(); }
void OpResolver::AddChannelAffine() {
  ops_[Index(OpKind::kChannelAffine)] = internal::RegisterChannelAffine();
}
void OpResolver::AddActivation() { ops_[Index(OpKind::kActivation)] = internal::RegisterActivation(); }
void OpResolver::AddPRelu() { ops_[Index(OpKind::kPRelu)] = internal::RegisterPRelu(); }
void OpResolver::AddBinary() { ops_[Index(OpKind::kBinary)] = internal::RegisterBinary(); }
void OpResolver::AddConcat() { ops_[Index(OpKind::kConcat)] = internal::RegisterConcat(); }
void OpResolver::AddReshape() { ops_[Index(OpKind::kReshape)] = internal::RegisterReshape(); }
void OpResolver::AddTranspose() { ops_[Index(OpKind::kTranspose)] = internal::RegisterTranspose(); }
void OpResolver::AddPool() { ops_[Index(OpKind::kPool)] = internal::RegisterPool(); }
void OpResolver::AddGlobalPool() { ops_[Index(OpKind::kGlobalPool)] = internal::RegisterGlobalPool(); }
void OpResolver::AddPad() { ops_[Index(OpKind::kPad)] = internal::RegisterPad(); }
void OpResolver::AddSoftmax() { ops_[Index(OpKind::kSoftmax)] = internal::RegisterSoftmax(); }
void OpResolver::AddSlice() { ops_[Index(OpKind::kSlice)] = internal::RegisterSlice(); }

void OpResolver::AddAll() {
  AddConv(); AddGemm(); AddMatMul(); AddBatchNorm(); AddChannelAffine(); AddActivation();
  AddPRelu(); AddBinary(); AddConcat(); AddReshape(); AddTranspose(); AddPool();
  AddGlobalPool(); AddPad(); AddSoftmax(); AddSlice();
}

const internal::OpKernel* OpResolver::Find(OpKind kind) const {
  const int i = Index(kind);
  return (i >= 0 && i < Index(OpKind::kCount)) ? ops_[i] : nullptr;
}

namespace internal {

const char* OpKindName(OpKind kind) {
  static const char* const kNames[] = {"Conv", "Gemm", "MatMul", "BatchNorm", "ChannelAffine",
                                       "Activation", "PRelu", "Binary", "Concat", "Reshape",
                                       "Transpose", "Pool", "GlobalPool", "Pad", "Softmax", "Slice"};
  const int i = Index(kind);
  return (i >= 0 && i < Index(OpKind::kCount)) ? kNames[i] : "Unknown";
}

Status OpContext::Fail(Status s, const char* fmt, ...) const {
  char prefix[96];
  std::snprintf(prefix, sizeof(prefix), "%s '%s': ", OpKindName(op.kind), op.name);
  va_list args;
  va_start(args, fmt);
  errors.ReportV(prefix, fmt, args);
  va_end(args);
  return s;
}

}  // namespace internal
}  // namespace edgefold
