// Create() accepts good models and rejects bad ones with a status and a message — never crashes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "testing/efb_builder.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

void Collect(void* user, const char* message) { *static_cast<std::string*>(user) += message; }

struct CreateResult {
  Status status;
  std::string log;
};

CreateResult TryCreate(const uint8_t* model, size_t bytes, size_t arena_bytes,
                       size_t arena_shift = 0, const OpResolver* resolver = nullptr) {
  CreateResult r;
  Options options;
  options.log = Collect;
  options.log_user = &r.log;
  options.resolver = resolver;
  AlignedBuffer arena(arena_bytes + 64);
  Interpreter* interp = nullptr;
  r.status =
      Interpreter::Create(model, bytes, arena.data() + arena_shift, arena_bytes, options, &interp);
  return r;
}

size_t Required(const std::vector<uint8_t>& model) {
  AlignedBuffer b(model);
  size_t n = 0;
  EXPECT_EQ(RequiredArenaBytes(b.data(), b.size(), &n), Status::kOk);
  return n;
}

TEST(ModelLoading, TinyModelMatchesReferenceOnEveryIsa) {
  const TinyModel m = MakeTinyModel();
  const std::vector<float> x = RandomVector(50, 7);
  const std::vector<float> want = TinyModelReference(m, x);
  for (Isa isa : AvailableIsas()) {
    const RunResult r = RunModel(m.bytes, {x}, isa);
    ASSERT_EQ(r.status, Status::kOk) << IsaName(isa) << ": " << r.log;
    ASSERT_EQ(r.outputs.size(), 1u);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(r.outputs[0][i], want[i], 1e-5) << IsaName(isa);
  }
}

// EDGEFOLD_ISA that names no level, or one this CPU or build lacks, is ignored (the run uses the
// detected level) and the log says so; a level it can use is taken without a word. (Hosted
// builds; an explicit Options::isa ignores the variable.)
TEST(ModelLoading, WarnsOfAnIgnoredEdgefoldIsa) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer b(m.bytes);
  const size_t need = Required(m.bytes);
  const char* outer = std::getenv("EDGEFOLD_ISA");
  const std::string saved = outer != nullptr ? outer : "";
  const auto log_with = [&](const char* value) {
    setenv("EDGEFOLD_ISA", value, 1);
    const CreateResult r = TryCreate(b.data(), b.size(), need);
    EXPECT_EQ(r.status, Status::kOk) << value;
    return r.log;
  };
  const std::string unknown = log_with("avx2"), scalar = log_with("scalar");
  std::string unavailable;
  for (Isa isa : {Isa::kNeon, Isa::kAvx512})
    if (!IsaAvailable(isa)) unavailable = log_with(IsaName(isa));
  outer != nullptr ? setenv("EDGEFOLD_ISA", saved.c_str(), 1) : unsetenv("EDGEFOLD_ISA");
  EXPECT_NE(unknown.find("warning: EDGEFOLD_ISA=avx2 is not a level"), std::string::npos)
      << unknown;
  EXPECT_EQ(scalar, "");
  EXPECT_NE(unavailable.find("is not available on this CPU/build; ignored"), std::string::npos)
      << unavailable;
}

TEST(ModelLoading, ArenaTooSmallNamesTheBytesNeeded) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer b(m.bytes);
  const size_t need = Required(m.bytes);
  const CreateResult r = TryCreate(b.data(), b.size(), need - 1);
  EXPECT_EQ(r.status, Status::kArenaTooSmall);
  EXPECT_NE(r.log.find(std::to_string(need)), std::string::npos) << r.log;
  EXPECT_EQ(TryCreate(b.data(), b.size(), need).status, Status::kOk);
}

TEST(ModelLoading, MisalignedArenaAndModelAreRejected) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer b(m.bytes);
  const size_t need = Required(m.bytes);
  EXPECT_EQ(TryCreate(b.data(), b.size(), need, 8).status, Status::kMisalignedArena);
  AlignedBuffer shifted(m.bytes.size() + 64);
  std::copy(m.bytes.begin(), m.bytes.end(), shifted.data() + 4);
  EXPECT_EQ(TryCreate(shifted.data() + 4, m.bytes.size(), need).status, Status::kMisalignedModel);
}

TEST(ModelLoading, EveryTruncationIsRejected) {
  const TinyModel m = MakeTinyModel();
  const size_t need = Required(m.bytes);
  for (size_t len = 0; len < m.bytes.size(); len += 7) {
    AlignedBuffer b(std::vector<uint8_t>(m.bytes.begin(), m.bytes.begin() + len));
    EXPECT_NE(TryCreate(b.data(), len, need).status, Status::kOk) << "length " << len;
  }
}

TEST(ModelLoading, RandomByteFlipsNeverCrash) {
  const TinyModel m = MakeTinyModel();
  const size_t need = Required(m.bytes);
  std::mt19937 rng(42);
  int rejected = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> bad = m.bytes;
    for (int f = 0; f < 3; ++f) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    AlignedBuffer b(bad);
    const CreateResult r = TryCreate(b.data(), b.size(), need + 4096);
    if (r.status != Status::kOk) {
      ++rejected;
      EXPECT_FALSE(r.log.empty()) << "a rejection without a message";
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(ModelLoading, WrongIdentifierAndVersion) {
  TinyModel m = MakeTinyModel();
  std::vector<uint8_t> bad_id = m.bytes;
  bad_id[4] = 'X';
  AlignedBuffer b1(bad_id);
  const CreateResult r1 = TryCreate(b1.data(), b1.size(), 1 << 16);
  EXPECT_EQ(r1.status, Status::kInvalidModel);
  EXPECT_NE(r1.log.find("EFB1"), std::string::npos);

  auto model = fb::UnPackModel(m.bytes.data());
  model->format_version = 99;
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  AlignedBuffer b2(
      std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()));
  EXPECT_EQ(TryCreate(b2.data(), b2.size(), 1 << 16).status, Status::kUnsupportedVersion);
}

// Re-serializes the tiny model after `edit` changes its object form.
template <class Edit>
CreateResult CreateEdited(Edit edit) {
  const TinyModel m = MakeTinyModel();
  auto model = fb::UnPackModel(m.bytes.data());
  edit(*model);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  AlignedBuffer b(
      std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()));
  return TryCreate(b.data(), b.size(), 1 << 16);
}

TEST(ModelLoading, SemanticErrorsNameTheTensorOrOp) {
  CreateResult r = CreateEdited([](fb::ModelT& m) { m.tensors[1]->weight_offset = 1 << 20; });
  EXPECT_EQ(r.status, Status::kInvalidModel);
  EXPECT_NE(r.log.find("conv.w"), std::string::npos) << r.log;

  r = CreateEdited([](fb::ModelT& m) { m.operators[0]->inputs[1] = 1000; });
  EXPECT_EQ(r.status, Status::kInvalidModel);
  EXPECT_NE(r.log.find("conv"), std::string::npos) << r.log;

  r = CreateEdited([](fb::ModelT& m) {
    m.tensors[1]->shape = {3, 2, 3, 2};
    m.tensors[1]->bytes = 3 * 2 * 3 * 2 * 4;
  });
  EXPECT_EQ(r.status, Status::kShapeMismatch);
  EXPECT_NE(r.log.find("Conv 'conv'"), std::string::npos) << r.log;

  r = CreateEdited([](fb::ModelT& m) { m.tensors[0]->shape = {1, 2, 5, 0}; });
  EXPECT_EQ(r.status, Status::kInvalidModel);
  EXPECT_NE(r.log.find("'x'"), std::string::npos) << r.log;

  r = CreateEdited([](fb::ModelT& m) { m.operators[0]->scratch_bytes = 4; });
  EXPECT_EQ(r.status, Status::kInvalidModel);
  EXPECT_NE(r.log.find("scratch"), std::string::npos) << r.log;

  r = CreateEdited([](fb::ModelT& m) { m.arena_bytes = 64; });
  EXPECT_EQ(r.status, Status::kInvalidModel);
}

TEST(ModelLoading, TrimmedResolverReportsTheMissingOp) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer b(m.bytes);
  OpResolver resolver;
  resolver.AddConv();
  resolver.AddGlobalPool();
  resolver.AddReshape();  // no Gemm
  const CreateResult r = TryCreate(b.data(), b.size(), Required(m.bytes), 0, &resolver);
  EXPECT_EQ(r.status, Status::kUnsupportedOp);
  EXPECT_NE(r.log.find("Gemm"), std::string::npos) << r.log;
  resolver.AddGemm();
  EXPECT_EQ(TryCreate(b.data(), b.size(), Required(m.bytes), 0, &resolver).status, Status::kOk);
}

TEST(ModelLoading, SetInputChecksTheElementCount) {
  const TinyModel m = MakeTinyModel();
  const RunResult r = RunModel(m.bytes, {std::vector<float>(49)});
  EXPECT_EQ(r.status, Status::kShapeMismatch);
  EXPECT_NE(r.log.find("'x'"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace edgefold::testing
