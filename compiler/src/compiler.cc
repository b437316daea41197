// Driver: load → IR → passes → lower → plan → write → (verify).
#include "edgefold_compiler/compiler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compile_lowered.h"
#include "ir/import.h"
#include "ir/reinfer.h"
#include "lower/lower.h"
#include "onnx_load.h"
#include "passes/passes.h"
#include "plan/group_scratch.h"
#include "plan/winograd_slices.h"
#include "plan/plan_model.h"
#include "quant/qdq_conv_affine.h"
#include "quant/qdq_import.h"
#ifdef EDGEFOLD_COMPILER_HAVE_RUNTIME
#include "quant/quantize.h"
#endif
#include "verify/verify.h"
#include "write/efb_writer.h"

namespace edgefold::compiler {
namespace {

struct Built {
  std::vector<uint8_t> bytes;
  LoweredModel lowered;
  uint64_t weight_bytes = 0;
  int group_split_convs = 0;      // SliceGroupScratch's count
  int sliced_winograd_convs = 0;  // SliceWinogradScratch's count
};

Built Build(const ir::Graph& graph, WinogradMode winograd, bool share_views,
            size_t winograd_min_channels = 16, bool transposed_weights = false, int threads = 1) {
  Built b;
  b.lowered = Lower(graph, winograd, winograd_min_channels, transposed_weights);
  b.group_split_convs = SliceGroupScratch(&b.lowered, threads);
  b.sliced_winograd_convs = SliceWinogradScratch(&b.lowered, threads);
  PlanArena(&b.lowered, share_views);
  b.bytes = WriteEfb(&b.lowered, &b.weight_bytes);
  return b;
}

// Unfolded reference (BatchNorm op kept, nothing fused) vs the folded model.
void Verify(ir::Graph reference, const Built& folded, const CompileOptions& options,
            const std::string& name, CompileReport* report) {
  passes::FoldBatchNorm(reference, /*fold=*/false);
  const Built ref = Build(reference, WinogradMode::kOff, options.share_views);
  const VerifyOutcome v = CompareModels(ref.bytes, folded.bytes, /*seed=*/1234);
  if (!v.ran) {
    if (!RuntimeAvailable()) return;  // host build without the runtime: report verified=false
    throw CompileError("model '" + name + "': verification could not run: " + v.error);
  }
  report->verify_max_abs_error = v.max_abs_error;
  report->verify_max_rel_error = v.max_rel_error;
  if (!(v.max_rel_error <= options.verify_rel_tolerance)) {
    std::ostringstream s;
    s << "model '" << name << "': folded and unfolded graphs disagree: max relative error "
      << v.max_rel_error << " > tolerance " << options.verify_rel_tolerance;
    throw CompileError(s.str());
  }
  report->verified = true;
}

// Replaces the folded float model by its int8 form (docs/quantization.md).
void QuantizeBuilt(const CompileOptions& options, const std::string& name, Built* built,
                   CompileReport* r) {
#ifdef EDGEFOLD_COMPILER_HAVE_RUNTIME
  r->quant.float_arena_bytes = built->lowered.arena_bytes;
  r->quant.float_weight_bytes = built->weight_bytes;
  built->lowered = quant::QuantizeInt8(built->lowered, options, name, &r->quant);
  built->group_split_convs = SliceGroupScratch(&built->lowered, options.threads);
  PlanArena(&built->lowered, options.share_views);
  built->bytes = WriteEfb(&built->lowered, &built->weight_bytes);
#else
  (void)built;
  (void)r;
  throw CompileError(
      "model '" + name +
      "': --quantize int8 needs the edgefold runtime in the compiler (calibration runs)");
#endif
}

// A QDQ model's int8 form at the model's own scales (docs/quantization.md#qdq-models).
void QuantizeQdqBuilt(const quant::QdqModel& qdq, const CompileOptions& options,
                      [[maybe_unused]] const std::string& name, Built* built, CompileReport* r) {
#ifdef EDGEFOLD_COMPILER_HAVE_RUNTIME
  r->quant.float_arena_bytes = built->lowered.arena_bytes;
  r->quant.float_weight_bytes = built->weight_bytes;
  built->lowered = quant::QuantizeQdq(built->lowered, qdq, options, &r->quant);
  built->group_split_convs = SliceGroupScratch(&built->lowered, options.threads);
  PlanArena(&built->lowered, options.share_views);
  built->bytes = WriteEfb(&built->lowered, &built->weight_bytes);
#else
  (void)qdq, (void)options, (void)built, (void)r;
  throw CompileError("model '" + name +
                     "': a QDQ model needs the edgefold runtime in the compiler (int8 kernels)");
#endif
}

// Import, drop Identity/Dropout, fold constants; when shapes are still unknown after that,
// feed the folded constants back to ONNX shape inference and repeat (a few rounds at most).
ir::Graph ImportAndFold(onnx::ModelProto m, const std::string& name, CompileReport* r) {
  int folded = 0;
  for (int round = 0;; ++round) {
    ir::Graph graph = ir::ImportGraph(m, name);
    const int identities = passes::RemoveIdentity(graph);
    const int now = passes::FoldConstants(graph);
    folded += now;
    if (round == 3 || (round > 0 && now == 0) || !ir::HasUnknownShapes(graph)) {
      r->nodes_removed += identities + folded + passes::RemoveNoOpCopies(graph);
      return graph;
    }
    m = ir::ReinferWithConstants(m, graph);
  }
}

// Options the flags could not have refused (the library is called directly too).
constexpr int kMaxPlanThreads = 256;

void CheckCompileOptions(const CompileOptions& options, const std::string& name) {
  if (options.winograd_tile != 0 && options.winograd_tile != 2 && options.winograd_tile != 4)
    throw CompileError("model '" + name + "': Winograd tile " +
                       std::to_string(options.winograd_tile) +
                       " is not 2 (F(2x2,3x3)) or 4 (F(4x4,3x3))");
  if (options.expansion_band_kb < 0)
    throw CompileError("model '" + name + "': expansion band of " +
                       std::to_string(options.expansion_band_kb) + " KiB (0 turns the fusion off)");
  if (options.winograd_min_channels < 1)
    throw CompileError("model '" + name + "': Winograd from " +
                       std::to_string(options.winograd_min_channels) +
                       " channels (at least 1; winograd=false turns it off)");
  if (options.threads < 1 || options.threads > kMaxPlanThreads)
    throw CompileError("model '" + name + "': a plan for " + std::to_string(options.threads) +
                       " threads (1 to " + std::to_string(kMaxPlanThreads) + ")");
}

// QuantizeLinear/DequantizeLinear → float + scales, and what read the dequantized weights.
quant::QdqModel ImportQdqNodes(ir::Graph& graph, const CompileOptions& options,
                               const std::string& name, CompileReport* r) {
  quant::QdqModel qdq = quant::ImportQdq(graph);
  if (qdq.found && options.quantize_int8)
    throw CompileError("model '" + name +
                       "': already quantized (QuantizeLinear/DequantizeLinear): compile it without "
                       "--quantize int8");
  if (qdq.found) {
    passes::FoldConstants(graph);  // what read the dequantized weights (Transpose, Reshape)
    r->nodes_removed +=
        quant::FoldConvChannelAffine(graph, qdq.QuantizedTensors());  // QAT's Conv → Div → Add → BN
  }
  return qdq;
}

// The fusions after the BatchNorm fold; the counts that make a model "changed" (Verify).
struct Fusions {
  int layer_norms = 0, channel_scales = 0;
};

Fusions FuseOps(ir::Graph& graph, const CompileOptions& options, bool int8,
                const std::set<std::string>& qdq_tensors, CompileReport* r) {
  Fusions f;
  const int gelus = passes::FuseGelu(graph);
  r->activations_fused += gelus;
  f.layer_norms = passes::FuseLayerNorm(graph);
  if (options.fuse_activations) {  // x·gate(x) → SiLU/HardSwish first, so they fuse into the
                                   // producer too
    r->activations_fused += passes::FuseGatedActivations(graph);
    // int8: only the clamps fuse (the others become lookup-table ops), and no channel scale
    // (the int8 conv has none; the Mul stays an op and the conv after it stays int8).
    r->activations_fused += passes::FuseActivations(graph, int8, qdq_tensors);
    if (!int8) {                                           // int8 convs have neither
      f.channel_scales = passes::FuseChannelScale(graph);  // SE Mul(x, s) → the next pointwise Conv
      r->expansions_fused = passes::FuseExpansionIntoDepthwise(
          graph, static_cast<size_t>(options.expansion_band_kb) * 1024);
    }
  } else if (options.fuse_activations_into_batchnorm) {
    r->activations_fused += passes::FuseActivationsIntoBatchNorm(graph);
  }
  return f;
}

// int8 has no Winograd kernels: a quantized model keeps plain weights.
WinogradMode WinogradModeFor(const CompileOptions& options, bool int8) {
  return !options.winograd || int8    ? WinogradMode::kOff
         : options.winograd_tile == 2 ? WinogradMode::kF2x3
         : options.winograd_tile == 4 ? WinogradMode::kF4x3
                                      : WinogradMode::kAuto;
}

void CountWinogradConvs(const Built& built, CompileReport* r) {
  for (const fb::OperatorT& op : built.lowered.ops) {
    if (op.type != fb::OpType::Conv) continue;
    const fb::WeightPacking packing = op.options.AsConvOptions()->packing;
    r->winograd_convs +=
        packing == fb::WeightPacking::Winograd2x3 || packing == fb::WeightPacking::Winograd4x3;
    r->transposed_convs += packing >= fb::WeightPacking::Transposed;  // and its NHWC forms
    r->winograd43_convs += packing == fb::WeightPacking::Winograd4x3;
  }
}

void ReportPlan(const Built& built, CompileReport* r) {
  r->arena_bytes = built.lowered.arena_bytes;
  r->arena_lower_bound = built.lowered.arena_lower_bound;
  r->weight_bytes = built.weight_bytes;
  r->num_ops = static_cast<int>(built.lowered.ops.size());
  r->num_tensors = static_cast<int>(built.lowered.tensors.size());
  r->tensor_views = built.lowered.tensor_views;
  r->group_split_convs = built.group_split_convs;
  r->sliced_winograd_convs = built.sliced_winograd_convs;
}

CompileResult Compile(const onnx::ModelProto& model, const CompileOptions& options,
                      const std::string& name, LoweredModel* lowered) {
  CompileResult result;
  CompileReport& r = result.report;
  CheckCompileOptions(options, name);
  ir::Graph graph = ImportAndFold(PrepareModel(model, options, name), name, &r);
  const quant::QdqModel qdq = ImportQdqNodes(graph, options, name, &r);
  const bool qdq_int8 = qdq.found && !options.qdq_as_float;
  const bool int8 = options.quantize_int8 || qdq_int8;
  if (options.io_int8 && !int8)
    throw CompileError("model '" + name +
                       "': --io int8 needs --quantize int8 or a QDQ model (a float model has float "
                       "inputs and outputs)");
  passes::CheckConvOperands(graph);  // before folding rewrites weights and biases
  passes::CanonicalizeFullyConnected(graph);
  passes::InsertInputNormalization(graph, options.input_mean, options.input_std);
  const ir::Graph reference = graph;
  if (options.quantize_weight_bits != 8 && !options.quantize_int8)
    throw CompileError("model '" + name + "': --quantize-weight-bits needs --quantize int8");
  if (options.int8_adaptable && !options.quantize_int8)
    throw CompileError("model '" + name +
                       "': --adaptable needs --quantize int8 (a float model adapts with --train)");
  const passes::BatchNormStats bn =
      passes::FoldBatchNorm(graph, options.fold_batchnorm, options.int8_adaptable);
  passes::CheckFiniteConstants(graph);  // after BN validation, which names BN fields itself
  r.batchnorm_found = bn.found;
  r.batchnorm_folded_backward = bn.folded_backward;
  r.batchnorm_folded_forward = bn.folded_forward;
  r.input_normalization_folded = options.fold_batchnorm && passes::FoldInputNormalization(graph);
  r.batchnorm_kept_affine = bn.kept;
  const Fusions fused = FuseOps(graph, options, int8,
                                qdq_int8 ? qdq.QuantizedTensors() : std::set<std::string>(), &r);
  // int8 convs read plain weights: a quantized model stores no transposed ones either.
  Built built = Build(graph, WinogradModeFor(options, int8), options.share_views,
                      static_cast<size_t>(options.winograd_min_channels),
                      options.transposed_weights && !int8, options.threads);
  CountWinogradConvs(built, &r);
  const bool changed = (options.fold_batchnorm && bn.found > 0) || r.activations_fused > 0 ||
                       fused.layer_norms > 0 || fused.channel_scales > 0 ||
                       r.input_normalization_folded || r.winograd_convs > 0 ||
                       r.transposed_convs > 0 || r.expansions_fused > 0;
  if (options.verify && changed) Verify(reference, built, options, name, &r);
  if (options.quantize_int8) QuantizeBuilt(options, name, &built, &r);
  if (qdq_int8) QuantizeQdqBuilt(qdq, options, name, &built, &r);
  ReportPlan(built, &r);
  result.model = std::move(built.bytes);
  result.ok = true;
  if (lowered != nullptr) *lowered = std::move(built.lowered);
  return result;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

CompileResult CompileModel(const onnx::ModelProto& model, const CompileOptions& options) {
  return CompileModelLowered(model, options, nullptr);
}

CompileResult CompileModelLowered(const onnx::ModelProto& model, const CompileOptions& options,
                                  LoweredModel* lowered) {
  const std::string name = !options.model_name.empty()     ? options.model_name
                           : !model.graph().name().empty() ? model.graph().name()
                                                           : std::string("model");
  try {
    return Compile(model, options, name, lowered);
  } catch (const CompileError& e) {
    CompileResult r;
    r.error = e.what();
    return r;
  } catch (const std::exception& e) {
    CompileResult r;
    r.error = "model '" + name + "': internal error: " + e.what();
    return r;
  }
}

CompileResult CompileFile(const std::string& onnx_path, const CompileOptions& options) {
  CompileOptions opts = options;
  if (opts.model_name.empty()) opts.model_name = BaseName(onnx_path);
  std::ifstream file(onnx_path, std::ios::binary);
  if (!file) {
    CompileResult r;
    r.error = "model '" + opts.model_name + "': cannot open '" + onnx_path + "'";
    return r;
  }
  std::stringstream bytes;
  bytes << file.rdbuf();
  try {
    return CompileModel(ParseModelBytes(bytes.str(), opts.model_name), opts);
  } catch (const CompileError& e) {
    CompileResult r;
    r.error = e.what();
    return r;
  }
}

// A unique temporary in the destination's directory (so rename never crosses a filesystem),
// written and fsync'ed before the rename: readers see the old file or the whole new one,
// never a prefix, even after a power cut; on any failure the temporary is removed.
bool WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes,
                     std::string* error) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(&tmp[0]);
  if (fd < 0) {
    if (error) *error = "cannot create a temporary next to '" + path + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool written = done == bytes.size() && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  const int saved_errno = errno;
  if (::close(fd) != 0 || !written) {
    std::remove(tmp.c_str());
    if (error)
      *error = "cannot write '" + tmp + "': " + std::strerror(written ? errno : saved_errno);
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(tmp.c_str());
    if (error)
      *error = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(rename_errno);
    return false;
  }
  return true;
}

}  // namespace edgefold::compiler
