#include "verify/verify.h"

#ifdef EDGEFOLD_COMPILER_HAVE_RUNTIME
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "edgefold/interpreter.h"
#include "train/aligned_model.h"
#endif

namespace edgefold::compiler {

#ifndef EDGEFOLD_COMPILER_HAVE_RUNTIME

bool RuntimeAvailable() { return false; }

VerifyOutcome CompareModels(const std::vector<uint8_t>&, const std::vector<uint8_t>&, uint32_t) {
  VerifyOutcome out;
  out.error = "this build has no edgefold runtime";
  return out;
}

#else

namespace {

// One runnable model: aligned copy of its bytes, its arena and the interpreter inside it.
struct Runner {
  AlignedBuffer model, arena;
  Interpreter* interp = nullptr;
};

std::string Start(const std::vector<uint8_t>& bytes, Runner* r) {
  r->model = AlignedCopy(bytes, bytes.size());
  size_t arena_bytes = 0;
  Status s = RequiredArenaBytes(r->model.get(), bytes.size(), &arena_bytes);
  if (s != Status::kOk) return std::string("RequiredArenaBytes: ") + StatusName(s);
  r->arena = AlignedCopy({}, arena_bytes);
  s = Interpreter::Create(r->model.get(), bytes.size(), r->arena.get(), arena_bytes, Options(),
                          &r->interp);
  if (s != Status::kOk) return std::string("Interpreter::Create: ") + StatusName(s);
  return "";
}

}  // namespace

bool RuntimeAvailable() { return true; }

VerifyOutcome CompareModels(const std::vector<uint8_t>& reference,
                            const std::vector<uint8_t>& candidate, uint32_t seed) {
  VerifyOutcome out;
  Runner ref, cand;
  out.error = Start(reference, &ref);
  if (out.error.empty()) out.error = Start(candidate, &cand);
  if (!out.error.empty()) return out;
  if (ref.interp->num_inputs() != cand.interp->num_inputs() ||
      ref.interp->num_outputs() != cand.interp->num_outputs()) {
    out.error = "the two graphs differ in their inputs or outputs";
    return out;
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < ref.interp->num_inputs(); ++i) {
    std::vector<float> data(ref.interp->input(i).elems);
    for (float& v : data) v = dist(rng);
    if (ref.interp->SetInput(i, data.data(), data.size()) != Status::kOk ||
        cand.interp->SetInput(i, data.data(), data.size()) != Status::kOk) {
      out.error = "SetInput failed for input " + std::to_string(i);
      return out;
    }
  }
  Status s = ref.interp->Invoke();
  if (s == Status::kOk) s = cand.interp->Invoke();
  if (s != Status::kOk) {
    out.error = std::string("Invoke: ") + StatusName(s);
    return out;
  }
  double max_ref = 0;
  for (size_t i = 0; i < ref.interp->num_outputs(); ++i) {
    const TensorView a = ref.interp->output(i), b = cand.interp->output(i);
    if (a.elems != b.elems) {
      out.error = "output " + std::to_string(i) + " differs in size";
      return out;
    }
    for (size_t k = 0; k < a.elems; ++k) {
      max_ref = std::max(max_ref, std::fabs(static_cast<double>(a.data[k])));
      const double d = std::fabs(static_cast<double>(a.data[k]) - b.data[k]);
      out.max_abs_error = std::isnan(d) ? INFINITY : std::max(out.max_abs_error, d);
    }
  }
  out.max_rel_error = out.max_abs_error / std::max(1.0, max_ref);
  out.ran = true;
  return out;
}

#endif

}  // namespace edgefold::compiler
