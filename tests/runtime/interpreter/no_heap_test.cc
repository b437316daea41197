// Proves the runtime allocates nothing on the heap after init: every malloc-family call and
// every operator new in this process is counted, and Create + Invoke must add zero.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "testing/efb_builder.h"
#include "edgefold/interpreter.h"
#include "testing/tiny_model.h"

extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);

namespace {
std::atomic<long> g_allocations{0};
}

extern "C" void* malloc(size_t n) { ++g_allocations; return __libc_malloc(n); }
extern "C" void* calloc(size_t a, size_t b) { ++g_allocations; return __libc_calloc(a, b); }
extern "C" void* realloc(void* p, size_t n) { ++g_allocations; return __libc_realloc(p, n); }
extern "C" void* aligned_alloc(size_t a, size_t n) { ++g_allocations; return __libc_memalign(a, n); }
extern "C" int posix_memalign(void** out, size_t a, size_t n) {
  ++g_allocations;
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}
void* operator new(size_t n) { ++g_allocations; return __libc_malloc(n ? n : 1); }
void* operator new[](size_t n) { ++g_allocations; return __libc_malloc(n ? n : 1); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace edgefold::testing {
namespace {

TEST(NoHeap, CounterSeesAllocations) {
  const long before = g_allocations.load();
  auto* p = new int(3);
  delete p;
  void* q = std::malloc(16);
  std::free(q);
  EXPECT_EQ(g_allocations.load() - before, 2);
}

TEST(NoHeap, CreateAndInvokeAllocateNothing) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer model(m.bytes);
  const std::vector<float> x = RandomVector(50, 3);
  size_t arena_bytes = 0;
  ASSERT_EQ(RequiredArenaBytes(model.data(), model.size(), &arena_bytes), Status::kOk);
  AlignedBuffer arena(arena_bytes);
  // Warm the default resolver's one-time static outside the measured window.
  {
    AlignedBuffer warm(arena_bytes);
    Interpreter* w = nullptr;
    ASSERT_EQ(Interpreter::Create(model.data(), model.size(), warm.data(), arena_bytes, Options(), &w), Status::kOk);
  }
  const long before = g_allocations.load();
  Interpreter* interp = nullptr;
  ASSERT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), arena_bytes, Options(), &interp),
            Status::kOk);
  for (int run = 0; run < 5; ++run) {
    ASSERT_EQ(interp->SetInput(0, x.data(), x.size()), Status::kOk);
    ASSERT_EQ(interp->Invoke(), Status::kOk);
  }
  EXPECT_EQ(g_allocations.load() - before, 0) << "the runtime allocated on the heap";
  const std::vector<float> want = TinyModelReference(m, x);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(interp->output(0).data[i], want[i], 1e-5);
}

}  // namespace
}  // namespace edgefold::testing
