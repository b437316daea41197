// edgefold_validate: the generic validation program `edgefold validate --target` runs, and the
// one a user copies to a board. It reads the model and its inputs from files at run time (the
// .efb bytes that run are the bytes that ship), runs the model once per input slice and writes
// the outputs (and, asked for, every op's output) back to files. Built for every target:
// hosted Linux (aarch64, armv7 under qemu-user) through stdio, and bare-metal Cortex-M through
// newlib's semihosting stdio (qemu-system-arm -semihosting-config enable=on,target=native:
// file names are relative to QEMU's working directory).
//
//   edgefold_validate MODEL.efb INPUTS.bin OUTPUTS.bin [TAPS_PLAN.bin TAPS.bin]
//
// INPUTS.bin   float32 little-endian, run after run, each run every graph input in order
//              (an int8 input is quantized on the target by Interpreter::QuantizeInput)
// OUTPUTS.bin  float32, run after run, each run every graph output (int8 dequantized)
// TAPS_PLAN.bin  written by the host from the .efb: records in op order, u32 op index, u32
//              tensor index, u32 arena offset, u32 byte count (every op output planned in
//              the arena, int32 ones aside)
// TAPS.bin     after each op, each of its planned records: u32 op index, u32 tensor index,
//              u32 byte count, the tensor's raw bytes from the arena
// stdout       one line "edgefold_validate: ok runs=R kernels=K model_bytes=M arena_bytes=A
//              arena_used_bytes=U stack_bytes=S" (S: the deepest stack byte touched, measured
//              below main by painting the stack; -1 where not measured), or "edgefold_validate: error: ...".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "edgefold/interpreter.h"

namespace {

#if defined(EDGEFOLD_VALIDATE_MODEL_KB)
// Bare metal: static buffers (RAM on the board; sizes set by the build).
alignas(64) uint8_t g_model[EDGEFOLD_VALIDATE_MODEL_KB * 1024];
alignas(64) uint8_t g_arena[EDGEFOLD_VALIDATE_ARENA_KB * 1024];
uint8_t* ModelBuffer(size_t, size_t* capacity) { return *capacity = sizeof(g_model), g_model; }
uint8_t* ArenaBuffer(size_t, size_t* capacity) { return *capacity = sizeof(g_arena), g_arena; }
#else
uint8_t* Allocate(size_t bytes, size_t* capacity) {
  *capacity = (bytes + 63) / 64 * 64;
  return static_cast<uint8_t*>(std::aligned_alloc(64, *capacity == 0 ? 64 : *capacity));
}
uint8_t* ModelBuffer(size_t bytes, size_t* capacity) { return Allocate(bytes, capacity); }
uint8_t* ArenaBuffer(size_t bytes, size_t* capacity) { return Allocate(bytes, capacity); }
#endif

#if defined(EDGEFOLD_VALIDATE_PAINT_STACK_KB)
// The stack is painted below main's frame before the model is created; after the runs the
// lowest word no longer holding the paint is the deepest the stack went. Reported from the
// stack pointer at main's entry (the C runtime's frames above it are a few words).
constexpr uint32_t kPaint = 0xC5A1AB1Eu;
constexpr size_t kPaintWords = EDGEFOLD_VALIDATE_PAINT_STACK_KB * 1024 / 4;
uint32_t* g_paint_low = nullptr;
uintptr_t g_main_sp = 0;

__attribute__((noinline)) void PaintStack() {
  uint32_t sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  g_main_sp = sp;
  uint32_t* top = reinterpret_cast<uint32_t*>((sp - 256) & ~3u);
  g_paint_low = top - kPaintWords;
  for (uint32_t* p = g_paint_low; p < top; ++p) *p = kPaint;
}
long StackBytes() {
  const uint32_t* p = g_paint_low;
  while (*p == kPaint) ++p;
  if (p == g_paint_low) return -1;  // overflowed the painted area: not measured
  return static_cast<long>(g_main_sp - reinterpret_cast<uintptr_t>(p));
}
#else
void PaintStack() {}
long StackBytes() { return -1; }
#endif

#if defined(EDGEFOLD_VALIDATE_LINKED_OPS)
}  // namespace
// linked_ops.cc: the ops whose registration objects are on the link line.
void EdgefoldValidateRegisterLinkedOps(edgefold::OpResolver& r);
namespace {
edgefold::OpResolver g_resolver;
const edgefold::OpResolver* Resolver() {
  EdgefoldValidateRegisterLinkedOps(g_resolver);
  return &g_resolver;
}
#else
const edgefold::OpResolver* Resolver() { return nullptr; }  // every op of the build
#endif

int Fail(const char* what, const char* detail) {
  std::printf("edgefold_validate: error: %s%s%s\n", what, detail[0] ? ": " : "", detail);
  return 1;
}

// Reads a whole file into a buffer from `get`; `bytes` gets its size.
uint8_t* ReadWhole(const char* path, uint8_t* (*get)(size_t, size_t*), size_t* bytes,
                   const char** error) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return *error = "cannot open", nullptr;
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  size_t capacity = 0;
  uint8_t* buf = size < 0 ? nullptr : get(static_cast<size_t>(size), &capacity);
  if (!buf || static_cast<size_t>(size) > capacity) {
    std::fclose(f);
    return *error = "does not fit the program's model buffer", nullptr;
  }
  *bytes = std::fread(buf, 1, static_cast<size_t>(size), f);
  std::fclose(f);
  if (*bytes != static_cast<size_t>(size)) return *error = "short read", nullptr;
  return buf;
}

// Layer taps: the host's plan (TAPS_PLAN.bin, records in op order: u32 op index, u32 tensor
// index, u32 arena offset, u32 byte count) says which arena bytes to copy after which op; the
// program itself never reads the model's schema.
struct Taps {
  std::FILE* plan = nullptr;
  std::FILE* out = nullptr;
  const uint8_t* arena = nullptr;
  size_t arena_bytes = 0;
  uint32_t next[4] = {};  // the plan's next record
  bool have_next = false, failed = false;
};

uint32_t LoadU32(const uint8_t* b) {
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

void WriteU32(std::FILE* f, uint32_t v, bool* failed) {
  uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  if (std::fwrite(b, 1, 4, f) != 4) *failed = true;
}

void ReadNextRecord(Taps* t) {
  uint8_t b[16];
  t->have_next = std::fread(b, 1, sizeof b, t->plan) == sizeof b;
  for (int i = 0; t->have_next && i < 4; ++i) t->next[i] = LoadU32(b + 4 * i);
}

// Before each run: the plan from its start.
void RewindTaps(Taps* t) {
  if (!t->plan) return;
  std::fseek(t->plan, 0, SEEK_SET);
  ReadNextRecord(t);
}

void OnOpEnd(void* user, size_t op_index) {
  Taps* t = static_cast<Taps*>(user);
  while (t->have_next && t->next[0] == op_index) {
    const uint32_t offset = t->next[2], bytes = t->next[3];
    if (offset > t->arena_bytes || bytes > t->arena_bytes - offset) {
      t->failed = true;  // a plan for another model
      t->have_next = false;
      return;
    }
    WriteU32(t->out, t->next[0], &t->failed);
    WriteU32(t->out, t->next[1], &t->failed);
    WriteU32(t->out, bytes, &t->failed);
    if (std::fwrite(t->arena + offset, 1, bytes, t->out) != bytes) t->failed = true;
    ReadNextRecord(t);
  }
}

size_t TotalElems(edgefold::Interpreter& interp, bool inputs) {
  size_t n = 0;
  const size_t count = inputs ? interp.num_inputs() : interp.num_outputs();
  for (size_t i = 0; i < count; ++i) n += (inputs ? interp.input(i) : interp.output(i)).elems;
  return n;
}

}  // namespace
// io_int8.cc, linked where the model has int8 inputs or outputs.
edgefold::Status EdgefoldValidateQuantizeInput(edgefold::Interpreter& interp, size_t i,
                                               const float* data, size_t elems)
    __attribute__((weak));
edgefold::Status EdgefoldValidateDequantizeOutput(const edgefold::Interpreter& interp, size_t i,
                                                  float* out, size_t elems) __attribute__((weak));
namespace {

// One slice of every input from `in`, one run, every output to `out`.
edgefold::Status RunOnce(edgefold::Interpreter& interp, std::FILE* in, std::FILE* out, float* io,
                         const char** error) {
  using edgefold::Status;
  for (size_t i = 0; i < interp.num_inputs(); ++i) {
    const edgefold::TensorView v = interp.input(i);
    if (std::fread(io, sizeof(float), v.elems, in) != v.elems)
      return *error = v.name, Status::kInvalidArgument;
    const bool int8 = v.dtype == edgefold::DType::kInt8;
    if (int8 && !EdgefoldValidateQuantizeInput) return *error = v.name, Status::kUnsupportedOp;
    const Status st = int8 ? EdgefoldValidateQuantizeInput(interp, i, io, v.elems)
                           : interp.SetInput(i, io, v.elems);
    if (st != Status::kOk) return *error = v.name, st;
  }
  const Status st = interp.Invoke();
  if (st != Status::kOk) return *error = "Invoke", st;
  for (size_t o = 0; o < interp.num_outputs(); ++o) {
    const edgefold::TensorView v = interp.output(o);
    const float* values = v.data;
    if (v.dtype == edgefold::DType::kInt8) {
      if (!EdgefoldValidateDequantizeOutput) return *error = v.name, Status::kUnsupportedOp;
      const Status d = EdgefoldValidateDequantizeOutput(interp, o, io, v.elems);
      if (d != Status::kOk) return *error = v.name, d;
      values = io;
    }
    if (std::fwrite(values, sizeof(float), v.elems, out) != v.elems)
      return *error = "OUTPUTS.bin", Status::kInvalidArgument;
  }
  return Status::kOk;
}

// The program's state between its steps.
struct Program {
  const uint8_t* model = nullptr;
  size_t model_bytes = 0;
  uint8_t* arena = nullptr;
  size_t arena_bytes = 0, arena_capacity = 0;
  edgefold::Interpreter* interp = nullptr;
  float* io = nullptr;  // the staging buffer of one input or output
  Taps taps;
};

// MODEL.efb into the model buffer, the taps files opened, the interpreter created in the arena.
int Load(int argc, char** argv, Program* p) {
  const char* error = "";
  p->model = ReadWhole(argv[1], ModelBuffer, &p->model_bytes, &error);
  if (!p->model) return Fail(argv[1], error);
  edgefold::Options options;
  options.resolver = Resolver();
  if (argc > 5) {
    p->taps.plan = std::fopen(argv[4], "rb");
    if (!p->taps.plan) return Fail(argv[4], "cannot open");
    p->taps.out = std::fopen(argv[5], "wb");
    if (!p->taps.out) return Fail(argv[5], "cannot create");
    options.on_op_end = OnOpEnd;
    options.on_op_end_user = &p->taps;
  }
  edgefold::Status st =
      edgefold::RequiredArenaBytes(p->model, p->model_bytes, &p->arena_bytes, options);
  if (st != edgefold::Status::kOk) return Fail(argv[1], edgefold::StatusName(st));
  p->arena = ArenaBuffer(p->arena_bytes, &p->arena_capacity);
  if (!p->arena || p->arena_capacity < p->arena_bytes)
    return Fail("arena", "does not fit the program's arena buffer");
  st = edgefold::Interpreter::Create(p->model, p->model_bytes, p->arena, p->arena_bytes, options,
                                     &p->interp);
  if (st != edgefold::Status::kOk) return Fail(argv[1], edgefold::StatusName(st));
  p->taps.arena = p->arena;
  p->taps.arena_bytes = p->arena_bytes;
  return 0;
}

// The one float staging buffer for an input or output, placed after the arena's used bytes
// when it fits there (bare metal), else allocated.
int PlaceStaging(Program* p) {
  edgefold::Interpreter& interp = *p->interp;
  size_t io_elems = TotalElems(interp, true);
  for (size_t o = 0; o < interp.num_outputs(); ++o)
    if (interp.output(o).elems > io_elems) io_elems = interp.output(o).elems;
  const size_t io_at = (p->arena_bytes + 63) / 64 * 64;
  if (io_at + io_elems * sizeof(float) <= p->arena_capacity) {
    p->io = reinterpret_cast<float*>(p->arena + io_at);
    return 0;
  }
  size_t io_capacity = 0;
  p->io = reinterpret_cast<float*>(ArenaBuffer(io_elems * sizeof(float), &io_capacity));
  if (!p->io || io_capacity < io_elems * sizeof(float))
    return Fail("arena", "no room for the input staging buffer");
  return 0;
}

// Every run of INPUTS.bin, its outputs to OUTPUTS.bin (and its taps); `runs` gets their number.
int RunAll(char** argv, Program* p, size_t* runs) {
  std::FILE* in = std::fopen(argv[2], "rb");
  if (!in) return Fail(argv[2], "cannot open");
  std::fseek(in, 0, SEEK_END);
  const long in_bytes = std::ftell(in);
  std::fseek(in, 0, SEEK_SET);
  const size_t run_bytes = TotalElems(*p->interp, true) * sizeof(float);
  if (in_bytes <= 0 || run_bytes == 0 || static_cast<size_t>(in_bytes) % run_bytes != 0)
    return Fail(argv[2], "not a whole number of runs of the model's inputs");
  *runs = static_cast<size_t>(in_bytes) / run_bytes;
  std::FILE* out = std::fopen(argv[3], "wb");
  if (!out) return Fail(argv[3], "cannot create");
  const char* error = "";
  for (size_t r = 0; r < *runs; ++r) {
    RewindTaps(&p->taps);
    const edgefold::Status st = RunOnce(*p->interp, in, out, p->io, &error);
    if (st != edgefold::Status::kOk) return Fail(error, edgefold::StatusName(st));
    if (p->taps.failed) return Fail(argv[5], "write failed, or the plan is not this model's");
  }
  std::fclose(in);
  if (std::fclose(out) != 0) return Fail(argv[3], "write failed");
  if (p->taps.out && std::fclose(p->taps.out) != 0) return Fail(argv[5], "write failed");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  PaintStack();
  if (argc < 4)
    return Fail("usage",
                "edgefold_validate MODEL.efb INPUTS.bin OUTPUTS.bin [TAPS_PLAN.bin TAPS.bin]");
  Program p;
  size_t runs = 0;
  if (const int rc = Load(argc, argv, &p)) return rc;
  if (const int rc = PlaceStaging(&p)) return rc;
  if (const int rc = RunAll(argv, &p, &runs)) return rc;
  std::printf(
      "edgefold_validate: ok runs=%lu kernels=%s model_bytes=%lu arena_bytes=%lu "
      "arena_used_bytes=%lu stack_bytes=%ld\n",
      static_cast<unsigned long>(runs), p.interp->kernel_isa_name(),
      static_cast<unsigned long>(p.model_bytes), static_cast<unsigned long>(p.arena_bytes),
      static_cast<unsigned long>(p.interp->arena_used_bytes()), StackBytes());
  return 0;
}
