// Bare-metal on-device learning: the digits CNN compiled for training (`edgefold compile
// --train --bn-stats frozen --trainable bn+head --batch 10`) runs in one static arena, with no
// heap, on images from a drifted sensor (examples/digits/make_drift.py):
//   1. label-free streaming adaptation of the BatchNorm statistics, one image at a time
//      (Trainer::StreamStep);
//   2. a few labelled batches of SGD on BN γ, β and the head with the statistics frozen
//      (per-sample loop: the arena does not depend on the batch);
//   3. the BatchNorms refolded for inference in the same arena.
// It prints the accuracy on held-out drifted images after each stage and the RAM it used
// (arena + static data + measured stack), and fails unless adaptation recovers accuracy and
// the RAM fits EDGEFOLD_RAM_BUDGET.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "edgefold/trainer.h"
#include EDGEFOLD_MODEL_HEADER

extern "C" char end;  // the linker script's end of .bss: the C library's heap starts here
extern "C" void* _sbrk(int increment);
#include EDGEFOLD_ADAPT_HEADER
#include EDGEFOLD_EVAL_HEADER

namespace {

alignas(64) unsigned char g_arena[DIGITS_TRAIN_TRAIN_ARENA_BYTES];
float g_batch[10 * ADAPT_SAMPLE_FLOATS];
float g_logits[10 * 10];
int32_t g_labels[10];

// Stack high-water mark: the region below main's frame is painted at start and scanned at the end.
constexpr size_t kStackProbe = 160 * 1024;
constexpr uint32_t kPaint = 0xa5a5a5a5u;

__attribute__((noinline)) void PaintStack() {
  volatile uint32_t* top = reinterpret_cast<volatile uint32_t*>(__builtin_frame_address(0)) - 64;
  for (size_t i = 0; i < kStackProbe / 4; ++i) top[-static_cast<long>(i)] = kPaint;
}

// Scans down from the top of the painted region: the stack ends where 8 KiB in a row are
// still painted (the semihosting C library may keep its heap further below).
__attribute__((noinline)) size_t StackUsedBelow(const void* main_frame) {
  const volatile uint32_t* top =
      reinterpret_cast<const volatile uint32_t*>(__builtin_frame_address(0)) - 64;
  constexpr size_t kCleanRun = 8 * 1024 / 4;
  size_t deepest = 0, clean = 0;
  for (size_t i = 0; i < kStackProbe / 4 && clean < kCleanRun; ++i) {
    if (top[-static_cast<long>(i)] != kPaint) {
      deepest = i;
      clean = 0;
    } else {
      ++clean;
    }
  }
  const uintptr_t main_sp = reinterpret_cast<uintptr_t>(main_frame);
  const uintptr_t low = reinterpret_cast<uintptr_t>(top - deepest);
  return main_sp > low ? main_sp - low : 0;
}

void Load(const unsigned long* bits, size_t first, size_t count, size_t floats, float* out) {
  for (size_t i = 0; i < count * floats; ++i) {
    const uint32_t w = static_cast<uint32_t>(bits[first * floats + i]);
    std::memcpy(&out[i], &w, sizeof(float));
  }
}

size_t Argmax(const float* z, size_t k) {
  size_t best = 0;
  for (size_t c = 1; c < k; ++c)
    if (z[c] > z[best]) best = c;
  return best;
}

// Accuracy (per mille) on the evaluation images, in batches of the trainer's batch.
unsigned Accuracy(edgefold::Trainer& t) {
  const size_t n = t.batch_size(), k = t.num_classes();
  unsigned correct = 0, seen = 0;
  for (size_t b = 0; b + n <= EVAL_COUNT; b += n) {
    Load(eval_x_bits, b, n, EVAL_SAMPLE_FLOATS, g_batch);
    if (t.Evaluate(g_batch, g_logits) != edgefold::Status::kOk) return 0;
    for (size_t i = 0; i < n; ++i) correct += Argmax(g_logits + i * k, k) == size_t(eval_y[b + i]);
    seen += static_cast<unsigned>(n);
  }
  return seen ? 1000u * correct / seen : 0;
}

}  // namespace

int main() {
  PaintStack();
  edgefold::OpResolver resolver;
  DIGITS_TRAIN_REGISTER_OPS(resolver);
  edgefold::Options options;
  options.resolver = &resolver;
  options.log = [](void*, const char* message) { std::printf("edgefold: %s\n", message); };
  edgefold::TrainOptions train;  // trains what the model records: BN γ, β and the head
  train.learning_rate = 0.05f;
  train.momentum = 0.9f;
  size_t needed = 0;
  edgefold::Status st = edgefold::RequiredTrainingArenaBytes(
      digits_train_model, sizeof(digits_train_model), train, &needed, options);
  edgefold::Trainer* t = nullptr;
  if (st == edgefold::Status::kOk)
    st = edgefold::Trainer::Create(digits_train_model, sizeof(digits_train_model), g_arena,
                                   sizeof(g_arena), train, options, &t);
  if (st != edgefold::Status::kOk || t->batch_size() != 10) {
    std::printf("Trainer::Create failed: %s\n", edgefold::StatusName(st));
    return 1;
  }
  std::printf(
      "trainer: arena %u bytes needed on this target (%u reserved), batch %u, %u parameters\n",
      static_cast<unsigned>(needed), static_cast<unsigned>(sizeof(g_arena)),
      static_cast<unsigned>(t->batch_size()), static_cast<unsigned>(t->num_parameters()));
  const unsigned deployed = Accuracy(*t);
  std::printf("drifted images, deployed model:      %u.%u %%\n", deployed / 10, deployed % 10);

  // 1. Streaming, label-free, one image at a time.
  const edgefold::StreamOptions stream;
  edgefold::StreamReport report;
  for (size_t i = 0; i < ADAPT_COUNT; ++i) {
    Load(adapt_x_bits, i, 1, ADAPT_SAMPLE_FLOATS, g_batch);
    if (t->StreamStep(g_batch, g_logits, stream, &report) != edgefold::Status::kOk) return 1;
  }
  const unsigned streamed = Accuracy(*t);
  std::printf("after streaming BN adaptation:       %u.%u %%  (%u unlabelled images, %u resets)\n",
              streamed / 10, streamed % 10, static_cast<unsigned>(ADAPT_COUNT),
              static_cast<unsigned>(report.resets));

  // 2. SGD on γ, β and the head, statistics frozen, batches of 10 labelled images.
  for (int epoch = 0; epoch < 3; ++epoch)
    for (size_t b = 0; b + 10 <= ADAPT_COUNT; b += 10) {
      Load(adapt_x_bits, b, 10, ADAPT_SAMPLE_FLOATS, g_batch);
      for (size_t i = 0; i < 10; ++i) g_labels[i] = adapt_y[b + i];
      if (t->TrainStep(g_batch, g_labels, nullptr, nullptr) != edgefold::Status::kOk) return 1;
    }
  const unsigned tuned = Accuracy(*t);
  std::printf("after 3 epochs of SGD (γ, β, head):  %u.%u %%  (%u labelled images)\n", tuned / 10,
              tuned % 10, static_cast<unsigned>(ADAPT_COUNT));
  const size_t folded = t->Refold();
  const unsigned refolded = Accuracy(*t);
  std::printf("refolded %u BatchNorms:              %u.%u %%\n", static_cast<unsigned>(folded),
              refolded / 10, refolded % 10);

  const size_t stack = StackUsedBelow(__builtin_frame_address(0));
  // RAM: everything the linker placed (.data + .bss: the arena, the buffers, the C library's
  // data), the C library's heap (printf's buffers; edgefold allocates nothing) and the stack.
  extern char __data_start__;
  const size_t statics = static_cast<size_t>(&end - &__data_start__);
  const size_t heap = static_cast<size_t>(static_cast<char*>(_sbrk(0)) - &end);
  const size_t ram = statics + heap + stack;
  std::printf(
      "RAM: .data+.bss %u (arena %u) + heap %u (C library) + stack %u (measured) = %u bytes "
      "(budget %u)\n",
      static_cast<unsigned>(statics), static_cast<unsigned>(sizeof(g_arena)),
      static_cast<unsigned>(heap), static_cast<unsigned>(stack), static_cast<unsigned>(ram),
      EDGEFOLD_RAM_BUDGET);
  const bool ok = streamed > deployed + 150 && tuned >= streamed && refolded == tuned &&
                  ram <= EDGEFOLD_RAM_BUDGET;
  std::printf("%s\n", ok ? "OK: on-device adaptation recovered accuracy within the RAM budget"
                         : "FAIL: on-device adaptation");
  return ok ? 0 : 1;
}
