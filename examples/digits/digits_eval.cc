// digits_eval: what embedding the edgefold runtime looks like.
//
// A firmware build does the same three steps with the model in flash and the arena in a
// static buffer: (1) model bytes at a 64-byte boundary, (2) one 64-byte aligned arena of
// RequiredArenaBytes(), (3) Interpreter::Create, then SetInput/Invoke/output per sample.
// No heap is used by the runtime; everything here that allocates is test-harness code
// (loading .npy files, keeping statistics).
//
// usage: digits_eval [MODEL.efb] [DATA_DIR]
// DATA_DIR holds digits_test_x.npy [N,1,8,8] f32, digits_test_y.npy [N] i64,
// digits_test_logits_pytorch.npy [N,10] f32 and pytorch_accuracy.txt.
// Exit status 1 if edgefold classifies a different number of images correctly than PyTorch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "file_io.h"
#include "npy.h"

namespace {

using edgefold::tools::NpyArray;

struct TestSet {
  NpyArray x, y, logits_pytorch;
  double accuracy_pytorch_file = -1;  // as written by train_digits.py
  size_t count = 0;
  size_t classes = 0;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "digits_eval: %s\n", message.c_str());
  return 1;
}

int LoadTestSet(const std::string& dir, TestSet* t) {
  std::string error;
  if (!edgefold::tools::ReadNpy(dir + "/digits_test_x.npy", &t->x, &error) ||
      !edgefold::tools::ReadNpy(dir + "/digits_test_y.npy", &t->y, &error) ||
      !edgefold::tools::ReadNpy(dir + "/digits_test_logits_pytorch.npy", &t->logits_pytorch,
                                &error)) {
    return Fail(error);
  }
  t->count = t->y.elems();
  if (t->y.dtype != edgefold::tools::NpyDType::kInt64 || t->x.shape.empty() || t->count == 0 ||
      static_cast<size_t>(t->x.shape[0]) != t->count || t->logits_pytorch.shape.size() != 2 ||
      static_cast<size_t>(t->logits_pytorch.shape[0]) != t->count) {
    return Fail("test files disagree on the number of images or have unexpected dtypes");
  }
  t->classes = static_cast<size_t>(t->logits_pytorch.shape[1]);
  std::ifstream(dir + "/pytorch_accuracy.txt") >> t->accuracy_pytorch_file;
  return 0;
}

// The part a firmware author copies.
struct Runtime {
  edgefold::tools::AlignedBuffer model;  // in firmware: the .efb in flash, 64-byte aligned
  edgefold::tools::AlignedBuffer arena;  // in firmware: a static, 64-byte aligned array
  edgefold::Interpreter* interp = nullptr;
};

int OpenModel(const std::string& path, Runtime* rt) {
  std::string error;
  // (1) Model bytes, 64-byte aligned: weights are read in place, never copied.
  if (!edgefold::tools::ReadFileAligned(path, &rt->model, &error)) return Fail(error);
  // (2) One arena for everything: planned activations, op scratch, interpreter state.
  size_t arena_bytes = 0;
  edgefold::Status s =
      edgefold::RequiredArenaBytes(rt->model.data.get(), rt->model.bytes, &arena_bytes);
  if (s != edgefold::Status::kOk) return Fail(path + ": " + edgefold::StatusName(s));
  rt->arena = edgefold::tools::AllocateAligned(arena_bytes);
  // (3) The interpreter lives inside the arena; nothing to free afterwards.
  s = edgefold::Interpreter::Create(rt->model.data.get(), rt->model.bytes, rt->arena.data.get(),
                                    rt->arena.bytes, edgefold::Options(), &rt->interp);
  if (s != edgefold::Status::kOk) return Fail(path + ": " + edgefold::StatusName(s));
  return 0;
}

size_t ArgMax(const float* v, size_t n) { return std::max_element(v, v + n) - v; }

struct Results {
  size_t correct = 0, correct_pytorch = 0, disagree = 0;
  double max_logit_diff = 0;
  double median_us = 0;
};

int Evaluate(const TestSet& t, edgefold::Interpreter& interp, Results* r) {
  const size_t image_elems = t.x.elems() / t.count;
  if (interp.input(0).elems != image_elems || interp.output(0).elems != t.classes) {
    return Fail("model input/output sizes do not match one test image / one logit row");
  }
  std::vector<double> latency_us;
  for (size_t i = 0; i < t.count; ++i) {
    edgefold::Status s = interp.SetInput(0, t.x.f32.data() + i * image_elems, image_elems);
    const auto t0 = std::chrono::steady_clock::now();
    if (s == edgefold::Status::kOk) s = interp.Invoke();
    const auto t1 = std::chrono::steady_clock::now();
    if (s != edgefold::Status::kOk) return Fail(edgefold::StatusName(s));
    latency_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());

    const float* ours = interp.output(0).data;
    const float* ref = t.logits_pytorch.f32.data() + i * t.classes;
    for (size_t c = 0; c < t.classes; ++c) {
      r->max_logit_diff = std::max(r->max_logit_diff, double(std::fabs(ours[c] - ref[c])));
    }
    const int64_t label = t.y.i64[i];
    r->correct += int64_t(ArgMax(ours, t.classes)) == label;
    r->correct_pytorch += int64_t(ArgMax(ref, t.classes)) == label;
    r->disagree += ArgMax(ours, t.classes) != ArgMax(ref, t.classes);
  }
  std::nth_element(latency_us.begin(), latency_us.begin() + t.count / 2, latency_us.end());
  r->median_us = latency_us[t.count / 2];
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model_path = argc > 1 ? argv[1] : "digits_cnn.efb";
  const std::string data_dir = argc > 2 ? argv[2] : EDGEFOLD_DIGITS_DATA_DIR;
  TestSet t;
  Runtime rt;
  Results r;
  if (LoadTestSet(data_dir, &t) || OpenModel(model_path, &rt) || Evaluate(t, *rt.interp, &r)) {
    return 1;
  }
  const double acc = double(r.correct) / t.count, acc_pt = double(r.correct_pytorch) / t.count;
  std::printf("images:                  %zu\n", t.count);
  std::printf("edgefold accuracy:       %.4f (%zu correct)\n", acc, r.correct);
  std::printf("PyTorch accuracy:        %.4f (%zu correct; pytorch_accuracy.txt says %.4f)\n",
              acc_pt, r.correct_pytorch, t.accuracy_pytorch_file);
  std::printf("predictions that differ: %zu\n", r.disagree);
  std::printf("max |logit difference|:  %.3g\n", r.max_logit_diff);
  std::printf("arena:                   %zu bytes (model file %zu bytes)\n", rt.arena.bytes,
              rt.model.bytes);
  std::printf("kernel ISA:              %s\n", rt.interp->kernel_isa_name());
  std::printf("median latency:          %.2f us per image\n", r.median_us);
  if (r.correct != r.correct_pytorch) return Fail("edgefold's accuracy differs from PyTorch's");
  if (std::fabs(acc_pt - t.accuracy_pytorch_file) > 6e-5) {
    return Fail("pytorch_accuracy.txt does not match the PyTorch logits file (stale data?)");
  }
  std::printf("OK: edgefold matches PyTorch\n");
  return 0;
}
