// A Cortex-M4 device of the fleet (docs/fleet.md): the digits CNN compiled for training
// (`edgefold compile --train --batch 10`, the bytes the host devices deploy), BatchNorm
// statistics adapted on the device's shard, its update record exported, and the fleet's
// global record checked and applied, with no heap: one static arena and one batch buffer. The
// exchange borrows the arena's idle span (Trainer::idle_span: activations, gradients, scratch,
// idle between training steps) for its record buffer and Mbed TLS's memory pool, so what it
// adds to the device's RAM is a message line, the fleet's key and the stack an import goes
// deeper than adaptation does; the firmware measures and reports it ('Q'). It talks over the board's UART0 (CMSDK APB UART; under QEMU `-serial
// tcp:...`), driven by the host bridge fleet/m4_bridge.py, which connects that line to the
// broker with the device's own credential. Semihosting stdout carries only the log.
//
// Frames both ways: 1 byte type, 2 bytes length (LE), the payload.
//   host → device   'H' hello                      → 'H' model hash (u64) + record bytes (u32)
//                   'R' reset the statistics        → 'R'
//                   'A' one image (floats)          → 'A' (a batch adapts when 10 are in)
//                   'E' label (u8) + one image      → 'E' (a batch is evaluated when 10 are in)
//                   'C' the evaluation count        → 'C' correct (u32) + seen (u32); restarts it
//                   'X' round (u32) + origin (u32)  → 'U' the update record (or 'F' message)
//                   'G' a global record             → 'K' round (u32), or 'F' why it was refused
//                   'P' the fleet's P-256 key       → 'P' (a build with the P-256 check)
//                   'Q' quit                        → 'Q' RAM figures (text); then main returns
// The record check on this device: format, size, CRC-32, model hash, layers, channels, finite
// and bounded values (CheckUpdateRecord), and with the P-256 check built in and a key
// provisioned, the ECDSA P-256 signature. docs/fleet.md, "A Cortex-M4 device".
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "edgefold/trainer.h"
#include "edgefold/update_record.h"
#include EDGEFOLD_MODEL_HEADER
#if EDGEFOLD_FLEET_P256
#include <mbedtls/memory_buffer_alloc.h>

#include "p256.h"
#endif

extern "C" char end;  // the linker script's end of .bss: the C library's heap starts here
extern "C" void* _sbrk(int increment);

namespace {

constexpr size_t kBatch = 10;
constexpr size_t kMaxSample = EDGEFOLD_FLEET_MAX_SAMPLE_FLOATS;
constexpr size_t kSignatureBytes = 64;
constexpr size_t kMaxRecord = EDGEFOLD_FLEET_MAX_RECORD_BYTES;  // with its signature

alignas(64) unsigned char g_arena[FLEET_DIGITS_TRAIN_ARENA_BYTES];
float g_batch[kBatch * kMaxSample];
float g_logits[kBatch * 16];
uint8_t g_labels[kBatch];
// The exchange's own memory: a message line for a refusal. Its record buffer (frames land there
// too; images are copied out of it before a step) and Mbed TLS's pool lie in the arena's idle
// span, set at start.
char g_message[96];
uint8_t* g_record = nullptr;

#if EDGEFOLD_FLEET_P256
// The fleet's P-256 public key ('P' frame: provisioning); Mbed TLS's memory pool, in the idle
// span, is set up for each verification and released after it.
edgefold::fleet::P256PublicKey g_fleet_key;
bool g_have_key = false;
constexpr size_t kPoolBytes = EDGEFOLD_FLEET_MBEDTLS_POOL_BYTES;
uint8_t* g_pool = nullptr;
#endif

// CMSDK APB UART0 of the MPS2 boards (AN386: 0x40004000).
struct Uart {
  volatile uint32_t data, state, ctrl, intstatus, bauddiv;
};
Uart* const uart0 = reinterpret_cast<Uart*>(0x40004000u);
constexpr uint32_t kTxFull = 1u, kRxFull = 2u;

void UartInit() {
  uart0->bauddiv = 16;
  uart0->ctrl = 3u;  // TX and RX enabled
}
void PutByte(uint8_t b) {
  while (uart0->state & kTxFull) {}
  uart0->data = b;
}
uint8_t GetByte() {
  while (!(uart0->state & kRxFull)) {}
  return static_cast<uint8_t>(uart0->data);
}
void Send(char type, const void* payload, size_t n) {
  PutByte(static_cast<uint8_t>(type));
  PutByte(static_cast<uint8_t>(n));
  PutByte(static_cast<uint8_t>(n >> 8));
  for (size_t i = 0; i < n; ++i) PutByte(static_cast<const uint8_t*>(payload)[i]);
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t Get32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void Refuse(const char* what) { Send('F', what, std::strlen(what)); }

void AppendMessage(void*, const char* message) {
  std::strncpy(g_message, message, sizeof(g_message) - 1);
  g_message[sizeof(g_message) - 1] = '\0';
}

// Stack the exchange uses: the region below main's frame is painted before an export or an
// import and scanned after it (the deepest word no longer painted).
constexpr size_t kPaintWords = 4096;  // 16 KiB
constexpr uint32_t kPaint = 0xC5A1AB1Eu;
__attribute__((noinline)) void PaintStack(uintptr_t main_sp) {
  uint32_t* top = reinterpret_cast<uint32_t*>((main_sp - 64) & ~uintptr_t(3));
  for (size_t i = 1; i <= kPaintWords; ++i) top[-static_cast<long>(i)] = kPaint;
}
__attribute__((noinline)) size_t StackBelow(uintptr_t main_sp) {
  const uint32_t* top = reinterpret_cast<const uint32_t*>((main_sp - 64) & ~uintptr_t(3));
  size_t deepest = 0;
  for (size_t i = 1; i <= kPaintWords; ++i)
    if (top[-static_cast<long>(i)] != kPaint) deepest = i;
  return deepest ? 64 + deepest * 4 : 0;
}

size_t Argmax(const float* z, size_t k) {
  size_t best = 0;
  for (size_t c = 1; c < k; ++c)
    if (z[c] > z[best]) best = c;
  return best;
}

}  // namespace

int main() {
  UartInit();
  edgefold::OpResolver resolver;
  FLEET_DIGITS_REGISTER_OPS(resolver);
  edgefold::Options options;
  options.resolver = &resolver;
  edgefold::TrainOptions train;
  train.trainable = edgefold::Trainable::kBatchNorm;
  train.stats_mode = edgefold::StatsMode::kCumulativeAverage;
  edgefold::Trainer* t = nullptr;
  const edgefold::Status st = edgefold::Trainer::Create(
      fleet_digits_model, sizeof(fleet_digits_model), g_arena, sizeof(g_arena), train, options, &t);
  if (st != edgefold::Status::kOk || t->batch_size() != kBatch || t->sample_elems() > kMaxSample ||
      t->num_classes() > 16) {
    std::printf("fleet-m4: Trainer::Create failed: %s\n", edgefold::StatusName(st));
    return 1;
  }
  const uint64_t hash = edgefold::ModelHash(fleet_digits_model, sizeof(fleet_digits_model));
  const size_t record_bytes =
      edgefold::TrainerUpdateBytes(*t, edgefold::RecordEncoding::kFloat32, false);
  const size_t sample = t->sample_elems(), classes = t->num_classes();
  if (record_bytes == 0 || record_bytes + kSignatureBytes > kMaxRecord) {
    std::printf("fleet-m4: record of %u bytes does not fit the %u-byte buffer\n",
                static_cast<unsigned>(record_bytes), static_cast<unsigned>(kMaxRecord));
    return 1;
  }
  // The exchange's buffers in the arena's idle span: the record, then (P-256) Mbed TLS's pool.
  const edgefold::Trainer::IdleSpan idle = t->idle_span();
  size_t lent = kMaxRecord;
#if EDGEFOLD_FLEET_P256
  lent = (lent + 7) / 8 * 8 + kPoolBytes;
#endif
  if (idle.bytes < lent) {
    std::printf("fleet-m4: the arena's idle span (%u bytes) cannot hold the exchange's %u\n",
                static_cast<unsigned>(idle.bytes), static_cast<unsigned>(lent));
    return 1;
  }
  g_record = idle.data;
#if EDGEFOLD_FLEET_P256
  g_pool = idle.data + (kMaxRecord + 7) / 8 * 8;
#endif
  std::printf(
      "fleet-m4: model %u bytes, arena %u, record %u bytes, idle span %u (lent %u), "
      "waiting on UART0\n",
      static_cast<unsigned>(sizeof(fleet_digits_model)), static_cast<unsigned>(sizeof(g_arena)),
      static_cast<unsigned>(record_bytes), static_cast<unsigned>(idle.bytes),
      static_cast<unsigned>(lent));
  size_t adapt_fill = 0, eval_fill = 0, samples = 0;
  uint32_t correct = 0, seen = 0, applied = 0, refused = 0;
  const uintptr_t main_sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  // Stack depths: of an export or import, and of the device's own work (adaptation, inference).
  size_t exchange_stack = 0, adapt_stack = 0;
  for (;;) {
    const char type = static_cast<char>(GetByte());
    size_t n = GetByte();
    n |= size_t(GetByte()) << 8;
    // The payload lands in the record buffer (images are copied out of it); a longer one is
    // read and dropped.
    for (size_t i = 0; i < n; ++i) {
      const uint8_t b = GetByte();
      if (i < kMaxRecord) g_record[i] = b;
    }
    if (n > kMaxRecord) {
      Refuse("frame longer than the record buffer");
      continue;
    }
    if (type == 'H') {
      uint8_t out[12];
      Put32(out, static_cast<uint32_t>(hash));
      Put32(out + 4, static_cast<uint32_t>(hash >> 32));
      Put32(out + 8, static_cast<uint32_t>(record_bytes));
      Send('H', out, sizeof out);
#if EDGEFOLD_FLEET_P256
    } else if (type == 'P') {
      if (n != sizeof g_fleet_key.bytes) {
        Refuse("key: expected an uncompressed P-256 point (65 bytes)");
        continue;
      }
      std::memcpy(g_fleet_key.bytes, g_record, n);
      g_have_key = true;
      Send('P', nullptr, 0);
#endif
    } else if (type == 'R') {
      t->ResetStatistics();
      adapt_fill = samples = 0;
      Send('R', nullptr, 0);
    } else if (type == 'A' || type == 'E') {
      const size_t offset = type == 'E' ? 1 : 0;
      if (n != offset + sample * sizeof(float)) {
        Refuse("image of the wrong size");
        continue;
      }
      size_t& fill = type == 'A' ? adapt_fill : eval_fill;
      std::memcpy(&g_batch[fill * sample], g_record + offset, sample * sizeof(float));
      if (type == 'E') g_labels[fill] = g_record[0];
      if (++fill == kBatch) {
        fill = 0;
        if (type == 'A') {
          PaintStack(main_sp);
          if (t->AdaptStatistics(g_batch) != edgefold::Status::kOk) return 1;
          const size_t used = StackBelow(main_sp);
          if (used > adapt_stack) adapt_stack = used;
          samples += kBatch;
        } else {
          PaintStack(main_sp);
          if (t->Evaluate(g_batch, g_logits) != edgefold::Status::kOk) return 1;
          const size_t used = StackBelow(main_sp);
          if (used > adapt_stack) adapt_stack = used;
          for (size_t i = 0; i < kBatch; ++i)
            correct += Argmax(g_logits + i * classes, classes) == g_labels[i];
          seen += kBatch;
        }
      }
      Send(type, nullptr, 0);
    } else if (type == 'C') {
      uint8_t out[8];
      Put32(out, correct);
      Put32(out + 4, seen);
      correct = seen = 0;
      eval_fill = 0;
      Send('C', out, sizeof out);
    } else if (type == 'X') {
      if (n != 8) {
        Refuse("export: expected round and origin");
        continue;
      }
      edgefold::UpdateRecordHeader h;
      h.model_hash = hash;
      h.round = Get32(g_record);
      h.origin = Get32(g_record + 4);
      h.samples = static_cast<uint32_t>(samples);
      size_t written = 0;
      g_message[0] = '\0';
      PaintStack(main_sp);
      const edgefold::Status s = edgefold::ExportTrainerUpdate(*t, h, g_record, kMaxRecord,
                                                               &written, AppendMessage, nullptr);
      const size_t used = StackBelow(main_sp);
      if (used > exchange_stack) exchange_stack = used;
      if (s != edgefold::Status::kOk) {
        Refuse(g_message[0] ? g_message : "export failed");
        continue;
      }
      Send('U', g_record, written);
    } else if (type == 'G') {
      // Without a provisioned key, a signed record (the unsigned size + 64) has its body and
      // CRC checked, not its signature slot (see the top of this file).
      size_t checked = n == record_bytes + kSignatureBytes ? record_bytes : n;
      edgefold::UpdateExpectation expect;
#if EDGEFOLD_FLEET_P256
      const edgefold::RecordVerifier verifier = edgefold::fleet::P256Verifier(&g_fleet_key);
      if (g_have_key) {
        expect.verifier = &verifier;
        checked = n;
      }
#endif
#if EDGEFOLD_FLEET_P256
      // Mbed TLS's pool for this verification only (the span is the next step's again after).
      mbedtls_memory_buffer_alloc_init(g_pool, kPoolBytes);
#endif
      expect.model_hash = hash;
      edgefold::UpdateRecordHeader got;
      g_message[0] = '\0';
      PaintStack(main_sp);
      const edgefold::Status s =
          edgefold::ImportTrainerUpdate(t, g_record, checked, expect, &got, AppendMessage, nullptr);
      const size_t used = StackBelow(main_sp);
      if (used > exchange_stack) exchange_stack = used;
#if EDGEFOLD_FLEET_P256
      mbedtls_memory_buffer_alloc_free();
#endif
      if (s != edgefold::Status::kOk) {
        // The status always; the message where the build keeps them (-DEDGEFOLD_LOG=ON).
        char why[sizeof g_message + 32];
        const int len = std::snprintf(why, sizeof why, "%s: %s", edgefold::StatusName(s),
                                      g_message[0] ? g_message : "(messages compiled out)");
        ++refused;
        std::printf("fleet-m4: refused a global record: %s\n", why);
        Send('F', why, len > 0 ? size_t(len) : 0);
        continue;
      }
      ++applied;
      std::printf("fleet-m4: applied the global record of round %u (%u samples)\n",
                  static_cast<unsigned>(got.round), static_cast<unsigned>(got.samples));
      uint8_t out[4];
      Put32(out, got.round);
      Send('K', out, sizeof out);
    } else if (type == 'Q') {
      extern char __data_start__;
      const size_t statics = static_cast<size_t>(&end - &__data_start__);
      const size_t heap = static_cast<size_t>(static_cast<char*>(_sbrk(0)) - &end);
      // What the exchange adds to the device's RAM: its own statics (the message line, the
      // key) and the stack an export or import goes deeper than adaptation or inference; its
      // record buffer
      // and Mbed TLS's pool are lent by the arena's idle span. In thousandths of the signed
      // record.
      size_t own = sizeof(g_message) + sizeof(g_record);
#if EDGEFOLD_FLEET_P256
      own += sizeof(g_fleet_key) + sizeof(g_have_key) + sizeof(g_pool);
#endif
      const size_t deeper = exchange_stack > adapt_stack ? exchange_stack - adapt_stack : 0;
      const size_t extra = own + deeper, signed_bytes = record_bytes + kSignatureBytes;
      char ram[320];
      const int len = std::snprintf(
          ram, sizeof ram,
          "ram .data+.bss %u arena %u batch %u exchange statics %u + stack %u (adaptation's or "
          "inference's stack %u) lent by the idle span %u (record %u) extra %u = "
          "%u.%03ux the signed record %u heap %u applied %u refused %u",
          static_cast<unsigned>(statics), static_cast<unsigned>(sizeof(g_arena)),
          static_cast<unsigned>(sizeof(g_batch)), static_cast<unsigned>(own),
          static_cast<unsigned>(exchange_stack), static_cast<unsigned>(adapt_stack),
          static_cast<unsigned>(lent), static_cast<unsigned>(kMaxRecord),
          static_cast<unsigned>(extra), static_cast<unsigned>(extra * 1000 / signed_bytes / 1000),
          static_cast<unsigned>(extra * 1000 / signed_bytes % 1000),
          static_cast<unsigned>(signed_bytes), static_cast<unsigned>(heap),
          static_cast<unsigned>(applied), static_cast<unsigned>(refused));
      std::printf("fleet-m4: %s\n", ram);
      Send('Q', ram, len > 0 ? size_t(len) : 0);
      return 0;
    } else {
      Refuse("unknown frame type");
    }
  }
}
