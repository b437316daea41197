// edgefold-fleet-device: one device of the fleet demo (scripts/run-fleet-demo.sh), an edgefold
// process using the C API (edgefold/edgefold.h) as a firmware would, with MQTT for the link.
//
//   --mode deployed   accuracy of the deployed model on the device's evaluation shard
//   --mode local      BN statistics re-estimated on the device's own adaptation shard
//   --mode central    re-estimated on every device's adaptation shard (--devices N)
//   --mode fleet      per round: re-estimate on the round's share of the shard, publish the
//                     record on fleet/<id>/update, wait for the signed global record on
//                     fleet/global, verify and apply it; accuracy after the last round
//                     (--resend K: every update sent K more times, as a QoS 1 redelivery;
//                     --round-delay-ms T: a pause before each round after the first;
//                     --state DIR: the rounds sent and applied and the applied global record
//                     kept there (device_state.h); a restarted device applies that record and
//                     sends only the rounds it had not sent)
//   --mode apply      only waits (--round-timeout s) for a global record and applies the
//                     first that verifies; refused ones are printed, the model kept
// Data: DIR/device_<id>_adapt_x.npy, DIR/device_<id>_eval_x.npy, DIR/device_<id>_eval_y.npy.
// Prints "device <id> <mode> accuracy <a>" and, in fleet mode, what it refused.
#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "device_state.h"
#include "ed25519.h"
#include "edgefold/edgefold.h"
#include "file_io.h"
#include "fleet_args.h"
#include "npy.h"

namespace {

using edgefold::tools::NpyArray;

struct Device {
  edgefold::tools::AlignedBuffer model, arena;
  ef_trainer* trainer = nullptr;
  uint64_t hash = 0;
  size_t batch = 0, sample = 0, classes = 0;
};

void Log(void*, const char* message) { std::fprintf(stderr, "  edgefold: %s\n", message); }

bool Open(const std::string& path, Device* d) {
  std::string error;
  if (!edgefold::tools::ReadFileAligned(path, &d->model, &error)) {
    std::fprintf(stderr, "fleet-device: %s\n", error.c_str());
    return false;
  }
  ef_train_options t;
  ef_train_options_init(&t);
  t.trainable = EF_TRAIN_BATCHNORM;
  t.stats_mode = EF_STATS_CUMULATIVE_AVERAGE;
  ef_options o = {};
  o.log = Log;
  size_t bytes = 0;
  if (ef_required_training_arena_bytes(d->model.data.get(), d->model.bytes, &t, &o, &bytes) !=
      EF_OK)
    return false;
  d->arena = edgefold::tools::AllocateAligned(bytes);
  if (ef_trainer_create(d->model.data.get(), d->model.bytes, d->arena.data.get(), bytes, &t, &o,
                        &d->trainer) != EF_OK)
    return false;
  d->hash = ef_model_hash(d->model.data.get(), d->model.bytes);
  d->batch = ef_trainer_batch_size(d->trainer);
  d->sample = ef_trainer_sample_elems(d->trainer);
  d->classes = ef_trainer_num_classes(d->trainer);
  return true;
}

// Batches [begin, end) of x through the statistics (cumulative average since the last reset).
bool Adapt(Device& d, const NpyArray& x, size_t begin, size_t end) {
  for (size_t b = begin; b < end; ++b)
    if (ef_trainer_adapt_statistics(d.trainer, x.f32.data() + b * d.batch * d.sample) != EF_OK)
      return false;
  return true;
}

double Accuracy(Device& d, const NpyArray& x, const NpyArray& y) {
  const size_t batches = y.elems() / d.batch;
  std::vector<float> logits(d.batch * d.classes);
  size_t correct = 0;
  for (size_t b = 0; b < batches; ++b) {
    if (ef_trainer_evaluate(d.trainer, x.f32.data() + b * d.batch * d.sample, logits.data()) !=
        EF_OK)
      return -1;
    for (size_t i = 0; i < d.batch; ++i) {
      const float* row = &logits[i * d.classes];
      correct +=
          size_t(std::max_element(row, row + d.classes) - row) == size_t(y.i64[b * d.batch + i]);
    }
  }
  return batches ? double(correct) / double(batches * d.batch) : 0;
}

int VerifyEd25519(void* user, const uint8_t* m, size_t n, const uint8_t* sig, size_t sig_n) {
  return sig_n == crypto_sign_BYTES &&
         crypto_sign_verify_detached(sig, m, n, static_cast<const uint8_t*>(user)) == 0;
}

// Waits up to `timeout_s` for a global record of round ≥ `round` on fleet/global, applying
// each that verifies (a newer round than *applied) and counting the refused ones.
// The record last applied goes to *kept (when not null).
void AwaitGlobal(Device& d, edgefold::fleet::MqttLink& link, uint8_t* pk, int id, uint32_t round,
                 int timeout_s, uint32_t* applied, size_t* refused,
                 std::vector<uint8_t>* kept = nullptr) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (*applied < round && std::chrono::steady_clock::now() < deadline) {
    edgefold::fleet::MqttMessage m;
    if (!link.Receive(&m, std::chrono::milliseconds(500)) || m.topic != "fleet/global") continue;
    // Already applied (a retained record sent again on reconnect): skipped unread.
    if (m.payload.size() >= 20 &&
        uint32_t(m.payload[16] | m.payload[17] << 8 | m.payload[18] << 16 |
                 uint32_t(m.payload[19]) << 24) <= *applied)
      continue;
    ef_update_info got = {};
    std::string why;
    const ef_status s = ef_trainer_import_update(
        d.trainer, m.payload.data(), m.payload.size(), d.hash, VerifyEd25519, pk, &got,
        [](void* u, const char* msg) { static_cast<std::string*>(u)->append(msg); }, &why);
    if (s != EF_OK) {
      ++*refused;
      std::printf("device %d refused a global record: %s\n", id, why.c_str());
      continue;
    }
    *applied = std::max(*applied, got.round);
    if (kept) *kept = m.payload;
  }
}

bool Load(const std::string& path, NpyArray* a) {
  std::string error;
  if (edgefold::tools::ReadNpy(path, a, &error)) return true;
  std::fprintf(stderr, "fleet-device: %s\n", error.c_str());
  return false;
}

// Saves the state when --state DIR is given; false (and a message) when it cannot.
bool SaveState(const edgefold::fleet::Args& args, int id, const edgefold::fleet::DeviceState& state,
               bool with_global) {
  std::string error;
  if (!args.Has("state") ||
      edgefold::fleet::SaveDeviceState(args.Get("state"), state, with_global, &error))
    return true;
  std::fprintf(stderr, "fleet-device %d: %s\n", id, error.c_str());
  return false;
}

// One round of --mode fleet: adapt on the round's share of the shard, publish the record
// (unless the broker acknowledged it before a restart: state->sent), wait for the round's
// global record (resending the update while it does not come). 0 when applied.
int FleetRound(Device& d, edgefold::fleet::MqttLink& link, const edgefold::fleet::Args& args,
               uint8_t* pk, int id, int r, const NpyArray& adapt, std::vector<uint8_t>& record,
               edgefold::fleet::DeviceState* state, size_t* refused) {
  const int rounds = args.Int("rounds", 3);
  const size_t batches = adapt.elems() / (d.batch * d.sample);
  const std::string topic = args.Get("topic", "fleet/" + std::to_string(id) + "/update");
  std::string error;
  if (r > 1)  // --round-delay-ms: time between rounds (the fault tests act in it)
    std::this_thread::sleep_for(std::chrono::milliseconds(args.Int("round-delay-ms", 0)));
  // This round's share of the shard (a late device sends what it has for the round it is at).
  // The statistics restart from it, so a resumed device computes the same record again.
  const size_t begin = batches * size_t(r - 1) / size_t(rounds),
               end = batches * size_t(r) / size_t(rounds);
  ef_trainer_reset_statistics(d.trainer);
  if (!Adapt(d, adapt, begin, end)) return 1;
  ef_update_info info = {};
  info.model_hash = d.hash;
  info.round = uint32_t(r);
  info.samples = uint32_t((end - begin) * d.batch);
  info.origin = uint32_t(id);
  size_t written = 0;
  if (ef_trainer_export_update(d.trainer, &info, record.data(), record.size(), &written) != EF_OK) {
    std::fprintf(stderr, "fleet-device %d: round %d: export failed\n", id, r);
    return 1;
  }
  if (state->sent < uint32_t(r)) {
    for (int k = 0; k <= args.Int("resend", 0); ++k)  // --resend K: K more copies
      if (!link.Publish(topic, record.data(), written, false, std::chrono::seconds(60), &error)) {
        std::fprintf(stderr, "fleet-device %d: round %d: %s\n", id, r, error.c_str());
        return 1;
      }
    std::printf("device %d sent round %d (%zu bytes)\n", id, r, written);
    state->sent = uint32_t(r);
    if (!SaveState(args, id, *state, false)) return 1;
  } else {
    std::printf("device %d round %d: sent before the restart, awaiting its global record\n", id, r);
  }
  // The global record of the round is the end-to-end acknowledgement: without it after
  // --resend-after-s, the update is sent again (an aggregator restarted after the broker
  // acknowledged it may never have counted it; a second copy is counted once).
  const int wait_s = args.Int("round-timeout", 60), every_s = args.Int("resend-after-s", 10);
  for (int waited = 0; state->applied < uint32_t(r) && waited < wait_s; waited += every_s) {
    if (waited > 0) {
      if (!link.Publish(topic, record.data(), written, false, std::chrono::seconds(60), &error))
        return 1;
      std::printf("device %d resent round %d (no global record after %d s)\n", id, r, waited);
    }
    AwaitGlobal(d, link, pk, id, uint32_t(r), std::min(every_s, wait_s - waited), &state->applied,
                refused, &state->global);
  }
  if (state->applied < uint32_t(r)) {
    std::fprintf(stderr, "fleet-device %d: no global record for round %d\n", id, r);
    return 1;
  }
  return SaveState(args, id, *state, true) ? 0 : 1;
}

// --state DIR: the state of an earlier run, its global record applied again (verified as any
// received record). A state that cannot be read or a record refused: from round 1 (what was
// sent again is a duplicate, counted once).
edgefold::fleet::DeviceState Resume(Device& d, const edgefold::fleet::Args& args, uint8_t* pk,
                                    int id) {
  edgefold::fleet::DeviceState state;
  std::string error;
  if (!args.Has("state")) return state;
  if (!edgefold::fleet::LoadDeviceState(args.Get("state"), &state, &error)) {
    std::printf("device %d: %s; starting from round 1\n", id, error.c_str());
    return edgefold::fleet::DeviceState();
  }
  if (state.applied > 0) {
    ef_update_info got = {};
    std::string why;
    if (ef_trainer_import_update(
            d.trainer, state.global.data(), state.global.size(), d.hash, VerifyEd25519, pk, &got,
            [](void* u, const char* msg) { static_cast<std::string*>(u)->append(msg); },
            &why) != EF_OK) {
      std::printf("device %d: the saved global record is refused (%s); starting from round 1\n", id,
                  why.c_str());
      return edgefold::fleet::DeviceState();
    }
    state.applied = got.round;
  }
  if (state.sent > 0 || state.applied > 0)
    std::printf("device %d resumed: sent %u, applied %u (its global record applied again)\n", id,
                state.sent, state.applied);
  return state;
}

// --mode fleet|apply: through the broker. 0 on success.
int RunWithBroker(Device& d, const edgefold::fleet::Args& args, const std::string& mode, int id,
                  const NpyArray& adapt) {
  std::string error;
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  if (!edgefold::fleet::ReadKeyFile(args.Get("pubkey"), pk, sizeof pk, &error) ||
      sodium_init() < 0) {
    std::fprintf(stderr, "fleet-device %d: %s\n", id, error.c_str());
    return 1;
  }
  edgefold::fleet::DeviceState state =
      mode == "fleet" ? Resume(d, args, pk, id) : edgefold::fleet::DeviceState();
  edgefold::fleet::MqttLink link(
      edgefold::fleet::MqttFromArgs(args, "device-" + std::to_string(id)));
  if (!link.Connect(&error) || !link.Subscribe("fleet/global", &error)) {
    std::fprintf(stderr, "fleet-device %d: %s\n", id, error.c_str());
    return 1;
  }
  std::vector<uint8_t> record(ef_trainer_update_bytes(d.trainer, 0, 0));
  size_t refused = 0;
  if (mode == "apply") {
    AwaitGlobal(d, link, pk, id, 1, args.Int("round-timeout", 10), &state.applied, &refused);
    std::printf("device %d applied round %u refused %zu\n", id, state.applied, refused);
    return 0;
  }
  for (int r = int(state.applied) + 1; r <= args.Int("rounds", 3); ++r)
    if (FleetRound(d, link, args, pk, id, r, adapt, record, &state, &refused) != 0) return 1;
  std::printf("device %d fleet rounds %u reconnects %zu refused %zu record %zu bytes\n", id,
              state.applied, link.reconnects(), refused, record.size());
  return 0;
}

// --mode central: the statistics re-estimated on every device's data.
bool AdaptCentral(Device& d, const std::string& dir, int devices) {
  ef_trainer_reset_statistics(d.trainer);
  for (int k = 1; k <= devices; ++k) {
    NpyArray other;
    if (!Load(dir + "/device_" + std::to_string(k) + "_adapt_x.npy", &other) ||
        !Adapt(d, other, 0, other.elems() / (d.batch * d.sample)))
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach the log even if the device is killed
  edgefold::fleet::Args args;
  std::string error;
  if (!args.Parse(argc, argv, &error) || !args.Has("model") || !args.Has("data")) {
    std::fprintf(stderr,
                 "usage: edgefold-fleet-device --model M.efb --data DIR --id N --mode "
                 "deployed|local|central|fleet|apply [--devices N] [--rounds R] [--uri U --ca CA "
                 "--password-file F --pubkey K.pk]\n%s\n",
                 error.c_str());
    return 2;
  }
  const int id = args.Int("id", 1);
  const std::string mode = args.Get("mode", "fleet"), dir = args.Get("data");
  const std::string prefix = dir + "/device_" + std::to_string(id);
  Device d;
  NpyArray adapt, ex, ey;
  if (!Open(args.Get("model"), &d) || !Load(prefix + "_adapt_x.npy", &adapt) ||
      !Load(prefix + "_eval_x.npy", &ex) || !Load(prefix + "_eval_y.npy", &ey))
    return 1;
  if (mode == "local") {
    ef_trainer_reset_statistics(d.trainer);
    if (!Adapt(d, adapt, 0, adapt.elems() / (d.batch * d.sample))) return 1;
  } else if (mode == "central") {
    if (!AdaptCentral(d, dir, args.Int("devices", 1))) return 1;
  } else if (mode == "fleet" || mode == "apply") {
    if (RunWithBroker(d, args, mode, id, adapt) != 0) return 1;
  } else if (mode != "deployed") {
    std::fprintf(stderr, "fleet-device: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  const double acc = Accuracy(d, ex, ey);
  std::printf("device %d %s accuracy %.4f\n", id, mode.c_str(), acc);
  return acc < 0 ? 1 : 0;
}
