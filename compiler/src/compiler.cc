// Driver: load → IR → passes → lower → plan → write → (verify).
#include "edgefold_compiler/compiler.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "ir/import.h"
#include "lower/lower.h"
#include "onnx_load.h"
#include "passes/passes.h"
#include "plan/plan_model.h"
#include "verify/verify.h"
#include "write/efb_writer.h"

namespace edgefold::compiler {
namespace {

struct Built {
  std::vector<uint8_t> bytes;
  LoweredModel lowered;
  uint64_t weight_bytes = 0;
};

Built Build(const ir::Graph& graph) {
  Built b;
  b.lowered = Lower(graph);
  PlanArena(&b.lowered);
  b.bytes = WriteEfb(&b.lowered, &b.weight_bytes);
  return b;
}

// Unfolded reference (BatchNorm op kept, nothing fused) vs the folded model.
void Verify(ir::Graph reference, const Built& folded, const CompileOptions& options, const std::string& name,
            CompileReport* report) {
  passes::FoldBatchNorm(reference, /*fold=*/false);
  const Built ref = Build(reference);
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

CompileResult Compile(const onnx::ModelProto& model, const CompileOptions& options, const std::string& name) {
  CompileResult result;
  CompileReport& r = result.report;
  ir::Graph graph = ir::ImportGraph(PrepareModel(model, options, name), name);
  r.nodes_removed += passes::RemoveIdentity(graph);
  r.nodes_removed += passes::FoldConstants(graph);
  passes::CanonicalizeFullyConnected(graph);
  const ir::Graph reference = graph;
  const passes::BatchNormStats bn = passes::FoldBatchNorm(graph, options.fold_batchnorm);
  r.batchnorm_found = bn.found;
  r.batchnorm_folded_backward = bn.folded_backward;
  r.batchnorm_kept_affine = bn.kept;
  if (options.fuse_activations) r.activations_fused = passes::FuseActivations(graph);
  Built built = Build(graph);
  const bool changed = (options.fold_batchnorm && bn.found > 0) || r.activations_fused > 0;
  if (options.verify && changed) Verify(reference, built, options, name, &r);
  r.arena_bytes = built.lowered.arena_bytes;
  r.arena_lower_bound = built.lowered.arena_lower_bound;
  r.weight_bytes = built.weight_bytes;
  r.num_ops = static_cast<int>(built.lowered.ops.size());
  r.num_tensors = static_cast<int>(built.lowered.tensors.size());
  result.model = std::move(built.bytes);
  result.ok = true;
  return result;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

CompileResult CompileModel(const onnx::ModelProto& model, const CompileOptions& options) {
  const std::string name = !options.model_name.empty() ? options.model_name
                           : !model.graph().name().empty() ? model.graph().name() : std::string("model");
  try {
    return Compile(model, options, name);
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

bool WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes, std::string* error) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out || !out.flush()) {
      std::remove(tmp.c_str());
      if (error) *error = "cannot write '" + tmp + "'";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    if (error) *error = "cannot rename '" + tmp + "' to '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace edgefold::compiler
