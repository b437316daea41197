// Int8Adapter: BatchNorm statistics adapted on an int8 model (compile --quantize int8
// --adaptable) against PyTorch's own recalibration of the float network on the same drifted
// data (calib.onnx: Algorithm 2 in batches of 16 over x_drift, make_training_golden.py).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <map>

#include "edgefold/int8_adapter.h"
#include "edgefold/model_generated.h"
#include "edgefold/update_record.h"
#include "edgefold_compiler/compiler.h"
#include "edgefold_compiler/training.h"
#include "file_io.h"
#include "npy.h"
#include "train_compile.h"

namespace edgefold::tools {
namespace {

const std::string kData = EDGEFOLD_TRAINING_DATA;
constexpr int64_t kBatch = 16;  // calib.onnx was calibrated in batches of 16

NpyArray Npy(const std::string& name) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(ReadNpy(kData + "/" + name, &a, &error)) << error;
  return a;
}

std::map<std::string, std::vector<float>> Initializers(const onnx::ModelProto& m) {
  std::map<std::string, std::vector<float>> out;
  for (const auto& t : m.graph().initializer()) {
    std::vector<float> v(t.raw_data().size() / sizeof(float));
    if (!v.empty())
      std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
    else
      v.assign(t.float_data().begin(), t.float_data().end());
    out[t.name()] = v;
  }
  return out;
}

// The model at batch kBatch (exported at 8): the graph's input and output batch dims, and no
// recorded intermediate shapes (the compiler infers them).
onnx::ModelProto Load(const std::string& file) {
  onnx::ModelProto proto;
  std::string error;
  EXPECT_TRUE(LoadOnnx(kData + "/" + file, &proto, &error)) << error;
  proto.mutable_graph()->clear_value_info();
  for (auto* list :
       {proto.mutable_graph()->mutable_input(), proto.mutable_graph()->mutable_output()})
    for (auto& v : *list)
      v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(
          kBatch);
  return proto;
}

compiler::CompileOptions Options16() { return compiler::CompileOptions(); }

compiler::CompileOptions Int8Options(const NpyArray& calibration, bool adaptable) {
  compiler::CompileOptions o = Options16();
  o.quantize_int8 = true;
  o.int8_adaptable = adaptable;
  o.calibration = calibration.f32;
  for (size_t d : calibration.shape) o.calibration_shape.push_back(static_cast<int64_t>(d));
  return o;
}

std::vector<uint8_t> Compile(const onnx::ModelProto& proto, const compiler::CompileOptions& o) {
  const compiler::CompileResult r = compiler::CompileModel(proto, o);
  EXPECT_TRUE(r.ok) << r.error;
  return r.model;
}

AlignedBuffer Aligned(const std::vector<uint8_t>& bytes) {
  AlignedBuffer b = AllocateAligned(bytes.size());
  std::memcpy(b.data.get(), bytes.data(), bytes.size());
  b.bytes = bytes.size();
  return b;
}

void Collect(void* user, const char* m) { *static_cast<std::string*>(user) += m; }

struct Adapter {
  AlignedBuffer model, arena;
  Int8Adapter* adapter = nullptr;
  std::string log;
  Status status = Status::kOk;

  explicit Adapter(const std::vector<uint8_t>& bytes) : model(Aligned(bytes)) {
    Options o;
    o.log = Collect;
    o.log_user = &log;
    size_t need = 0;
    status = RequiredInt8AdapterArenaBytes(model.data.get(), model.bytes, &need, o);
    if (status != Status::kOk) return;
    arena = AllocateAligned(need);
    status =
        Int8Adapter::Create(model.data.get(), model.bytes, arena.data.get(), need, o, &adapter);
  }
};

// Runs `interp` on every batch of x; the outputs, concatenated.
std::vector<float> RunAll(Interpreter* interp, const NpyArray& x) {
  const TensorView in = interp->input(0);
  const TensorView out = interp->output(0);
  std::vector<float> all;
  for (size_t at = 0; at + in.elems <= x.f32.size(); at += in.elems) {
    EXPECT_EQ(interp->SetInput(0, x.f32.data() + at, in.elems), Status::kOk);
    EXPECT_EQ(interp->Invoke(), Status::kOk);
    all.insert(all.end(), out.data, out.data + out.elems);
  }
  return all;
}

std::vector<float> RunModel(const std::vector<uint8_t>& bytes, const NpyArray& x) {
  AlignedBuffer model = Aligned(bytes);
  size_t need = 0;
  EXPECT_EQ(RequiredArenaBytes(model.data.get(), model.bytes, &need), Status::kOk);
  AlignedBuffer arena = AllocateAligned(need);
  Interpreter* interp = nullptr;
  EXPECT_EQ(Interpreter::Create(model.data.get(), model.bytes, arena.data.get(), need, Options(),
                                &interp),
            Status::kOk);
  return interp == nullptr ? std::vector<float>() : RunAll(interp, x);
}

double SqnrDb(const std::vector<float>& want, const std::vector<float>& got) {
  double signal = 0, noise = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    signal += double(want[i]) * want[i];
    noise += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
  }
  return 10.0 * std::log10(signal / std::max(noise, 1e-30));
}

void AdaptOn(Int8Adapter* a, const NpyArray& x) {
  const TensorView in = a->interpreter()->input(0);
  for (size_t at = 0; at + in.elems <= x.f32.size(); at += in.elems) {
    ASSERT_EQ(a->interpreter()->SetInput(0, x.f32.data() + at, in.elems), Status::kOk);
    ASSERT_EQ(a->Adapt(), Status::kOk);
  }
}

// The network as deployed: model.onnx's BatchNorm statistics (random in the golden data) first
// re-estimated on x, its training data, so that its int8 ranges, calibrated on x too, fit the
// normalized activations as they would for a trained network.
onnx::ModelProto Deployed(const NpyArray& x) {
  onnx::ModelProto proto = Load("model.onnx");
  compiler::CalibrationReport report;
  std::string error;
  EXPECT_TRUE(compiler::CalibrateBatchNorm(&proto, compiler::CompileOptions(), x.f32.data(),
                                           x.f32.size(), static_cast<int>(kBatch), -1.0f, &report,
                                           &error))
      << error;
  return proto;
}

// The three folded BatchNorms of the deployed int8 network adapt to the drifted data as PyTorch
// recalibrates them (calib.onnx: same γ and β, statistics of x_drift): each layer's running
// statistics, mapped into the op's output domain (mean k·(μ' − μ) + β, variance k²·σ'², k the
// deployed γ/√(σ²+ε)), and the network's outputs, which approach the recalibrated float
// network's far more closely than the unadapted int8 model does.
TEST(Int8Adapter, FollowsPyTorchRecalibrationOnDriftedData) {
  const NpyArray x = Npy("x.npy"), drift = Npy("x_drift.npy");
  const onnx::ModelProto model = Deployed(x), calibrated = Load("calib.onnx");
  Adapter a(Compile(model, Int8Options(x, true)));
  ASSERT_EQ(a.status, Status::kOk) << a.log;
  ASSERT_EQ(a.adapter->num_layers(), 3u);

  const std::vector<float> want = RunModel(Compile(calibrated, Options16()), drift);
  const std::vector<float> before = RunAll(a.adapter->interpreter(), drift);
  AdaptOn(a.adapter, drift);
  const std::vector<float> after = RunAll(a.adapter->interpreter(), drift);
  const double sqnr_before = SqnrDb(want, before), sqnr_after = SqnrDb(want, after);
  // The bound int8 sets: the recalibrated float network quantized on the drifted data itself.
  const double sqnr_direct =
      SqnrDb(want, RunModel(Compile(calibrated, Int8Options(drift, false)), drift));
  std::printf(
      "int8 vs the recalibrated float network: SQNR %.1f dB before adapting, %.1f dB after "
      "(%.1f dB quantizing the recalibrated network directly)\n",
      sqnr_before, sqnr_after, sqnr_direct);
  EXPECT_GT(sqnr_after, 20.0);
  EXPECT_GT(sqnr_after, sqnr_before + 15.0);
  EXPECT_GT(sqnr_after, sqnr_direct - 6.0);

  const auto old_init = Initializers(model), new_init = Initializers(calibrated);
  const char* bns[3] = {"features.1", "features.5", "head.1"};
  for (size_t i = 0; i < 3; ++i) {
    const AdaptedLayer l = a.adapter->layer(i);
    EXPECT_EQ(l.batches, 2u);
    EXPECT_EQ(l.held_channels, 0u);
    const std::string p = bns[i];
    const auto& gamma = old_init.at(p + ".weight");
    const auto& beta = old_init.at(p + ".bias");
    const auto& mu = old_init.at(p + ".running_mean");
    const auto& var = old_init.at(p + ".running_var");
    const auto& mu2 = new_init.at(p + ".running_mean");
    const auto& var2 = new_init.at(p + ".running_var");
    ASSERT_EQ(l.channels, gamma.size()) << p;
    double worst_mean = 0, worst_var = 0;
    for (size_t c = 0; c < l.channels; ++c) {
      const double k = gamma[c] / std::sqrt(double(var[c]) + 1e-5);
      const double want_mean = k * (double(mu2[c]) - mu[c]) + beta[c], want_var = k * k * var2[c];
      worst_mean = std::max(worst_mean, std::fabs(l.mean[c] - want_mean) / std::sqrt(want_var));
      worst_var = std::max(worst_var, std::fabs(l.var[c] - want_var) / want_var);
    }
    std::printf("%s: mean within %.3f standard deviations, variance within %.1f %%\n", bns[i],
                worst_mean, 100 * worst_var);
    EXPECT_LT(worst_mean, 0.05) << p;
    EXPECT_LT(worst_var, 0.05) << p;
  }
}

// Reset brings back the deployed model bit for bit; ExportModel writes the adapted one, which a
// plain Interpreter runs to the adapter's bits; a moving average moves the statistics part way.
TEST(Int8Adapter, ResetExportAndMomentum) {
  const NpyArray x = Npy("x.npy"), drift = Npy("x_drift.npy");
  const std::vector<uint8_t> bytes = Compile(Deployed(x), Int8Options(x, true));
  Adapter a(bytes);
  ASSERT_EQ(a.status, Status::kOk) << a.log;
  const std::vector<float> deployed = RunModel(bytes, drift);
  EXPECT_EQ(RunAll(a.adapter->interpreter(), drift), deployed);
  AdaptOn(a.adapter, drift);
  const std::vector<float> adapted = RunAll(a.adapter->interpreter(), drift);
  EXPECT_NE(adapted, deployed);
  std::vector<uint8_t> exported(bytes.size());
  ASSERT_EQ(a.adapter->ExportModel(exported.data(), exported.size()), Status::kOk);
  EXPECT_EQ(RunModel(exported, drift), adapted);
  // The exported model adapts again from its own (adapted) statistics: on the same data they
  // are already right, so the outputs stay close.
  Adapter again(exported);
  ASSERT_EQ(again.status, Status::kOk) << again.log;
  AdaptOn(again.adapter, drift);
  EXPECT_GT(SqnrDb(adapted, RunAll(again.adapter->interpreter(), drift)), 25.0);

  a.adapter->Reset();
  EXPECT_EQ(RunAll(a.adapter->interpreter(), drift), deployed);
  EXPECT_EQ(a.adapter->layer(0).batches, 0u);

  // kMomentum with m = 0.5 over one batch: halfway between the deployed and the batch's.
  const float deployed_mean = a.adapter->layer(0).mean[0];
  AdaptOptions cumulative;
  ASSERT_EQ(a.adapter->interpreter()->SetInput(0, drift.f32.data(),
                                               a.adapter->interpreter()->input(0).elems),
            Status::kOk);
  ASSERT_EQ(a.adapter->Adapt(cumulative), Status::kOk);
  const float batch_mean = a.adapter->layer(0).mean[0];
  a.adapter->Reset();
  AdaptOptions half;
  half.mode = StatsMode::kMomentum;
  half.momentum = 0.5f;
  ASSERT_EQ(a.adapter->interpreter()->SetInput(0, drift.f32.data(),
                                               a.adapter->interpreter()->input(0).elems),
            Status::kOk);
  ASSERT_EQ(a.adapter->Adapt(half), Status::kOk);
  EXPECT_NEAR(a.adapter->layer(0).mean[0], 0.5f * (deployed_mean + batch_mean), 1e-4f);
  half.momentum = 0.0f;
  EXPECT_EQ(a.adapter->Adapt(half), Status::kInvalidArgument);
}

// What cannot adapt says so: a model without BnAdaptation, and a malformed one by op and field.
TEST(Int8Adapter, RefusesModelsThatCannotAdapt) {
  const NpyArray x = Npy("x.npy");
  Adapter plain(Compile(Load("model.onnx"), Int8Options(x, false)));
  EXPECT_EQ(plain.status, Status::kInvalidArgument);
  EXPECT_NE(plain.log.find("no adaptable int8 layer (compile it with --quantize int8 --adaptable)"),
            std::string::npos)
      << plain.log;

  const std::vector<uint8_t> bytes = Compile(Load("model.onnx"), Int8Options(x, true));
  const fb::Model* m = fb::GetModel(bytes.data());
  const fb::Operator* op = nullptr;
  for (const fb::Operator* o : *m->operators())
    if (o->bn_adapt() != nullptr && op == nullptr) op = o;
  ASSERT_NE(op, nullptr);
  const size_t at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(op->bn_adapt()->eps_k2()->data()) - bytes.data());
  for (float bad : {-1.0f, NAN}) {
    std::vector<uint8_t> broken = bytes;
    std::memcpy(broken.data() + at + 4, &bad, 4);  // channel 1
    Adapter b(broken);
    EXPECT_EQ(b.status, Status::kInvalidModel);
    EXPECT_NE(b.log.find("op '" + op->name()->str() + "': bn_adapt"), std::string::npos) << b.log;
    EXPECT_NE(b.log.find("eps_k2"), std::string::npos) << b.log;
  }

  compiler::CompileOptions float_adaptable = Options16();
  float_adaptable.int8_adaptable = true;
  const compiler::CompileResult r = compiler::CompileModel(Load("model.onnx"), float_adaptable);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("--adaptable needs --quantize int8"), std::string::npos) << r.error;
}

// A fleet update record carries one adapter's statistics to another (fp32 exactly: the same
// outputs; int8-quantized: close), and a refused record leaves the receiver as it was.
TEST(Int8Adapter, UpdateRecordCarriesTheStatistics) {
  const NpyArray x = Npy("x.npy"), drift = Npy("x_drift.npy");
  const std::vector<uint8_t> bytes = Compile(Deployed(x), Int8Options(x, true));
  Adapter a(bytes), b(bytes), c(bytes);
  ASSERT_EQ(a.status, Status::kOk) << a.log;
  AdaptOn(a.adapter, drift);
  const uint64_t hash = ModelHash(bytes.data(), bytes.size());
  UpdateRecordHeader h;
  h.model_hash = hash;
  h.samples = 32;
  std::vector<uint8_t> fp32(4096), int8(4096);
  size_t n32 = 0, n8 = 0;
  ASSERT_EQ(ExportInt8AdapterUpdate(*a.adapter, h, fp32.data(), fp32.size(), &n32), Status::kOk);
  h.encoding = RecordEncoding::kInt8;
  ASSERT_EQ(ExportInt8AdapterUpdate(*a.adapter, h, int8.data(), int8.size(), &n8), Status::kOk);
  EXPECT_LT(n8, n32);
  const std::vector<float> want = RunAll(a.adapter->interpreter(), drift);
  const std::vector<float> before = RunAll(b.adapter->interpreter(), drift);
  UpdateExpectation e;
  e.model_hash = hash;
  std::string log;
  UpdateExpectation wrong = e;
  wrong.model_hash = hash + 1;
  EXPECT_NE(ImportInt8AdapterUpdate(b.adapter, fp32.data(), n32, wrong, nullptr, Collect, &log),
            Status::kOk);
  EXPECT_NE(log.find("model hash"), std::string::npos) << log;
  EXPECT_NE(ImportInt8AdapterUpdate(b.adapter, fp32.data(), n32 - 3, e, nullptr), Status::kOk);
  EXPECT_EQ(RunAll(b.adapter->interpreter(), drift), before);
  ASSERT_EQ(ImportInt8AdapterUpdate(b.adapter, fp32.data(), n32, e, nullptr), Status::kOk);
  EXPECT_EQ(RunAll(b.adapter->interpreter(), drift), want);
  ASSERT_EQ(ImportInt8AdapterUpdate(c.adapter, int8.data(), n8, e, nullptr), Status::kOk);
  EXPECT_GT(SqnrDb(want, RunAll(c.adapter->interpreter(), drift)), 25.0);
  EXPECT_LT(SqnrDb(want, before), 20.0);
}

}  // namespace
}  // namespace edgefold::tools
