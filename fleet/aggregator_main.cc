// edgefold-fleet-aggregator: the fleet service of scripts/run-fleet-demo.sh. Subscribes to
// fleet/+/update (QoS 1, persistent session), checks and deduplicates every record
// (aggregate.h), closes a round when every device has sent it (or --round-timeout passed),
// signs the fleet's statistics with Ed25519 and publishes them retained on fleet/global.
// With --state DIR it saves its state after every record and resumes from it when restarted.
// Prints one line per round and a summary: accepted, duplicates, rejected (each logged), lost
// (updates expected but never received), bytes per round.
#include <cstdio>
#include <string>
#include <vector>

#include "aggregate.h"
#include "ed25519.h"
#include "edgefold/update_record.h"
#include "file_io.h"
#include "fleet_args.h"
#if EDGEFOLD_FLEET_P256
#include "p256.h"
#endif

namespace {

using namespace edgefold;

constexpr char kUsage[] =
    "usage: edgefold-fleet-aggregator --model M.efb --secret-key K.sk --devices N --rounds R "
    "[--uri U --ca CA --password-file F --round-timeout S --drain-ms MS --save-dir D --state DIR "
    "--p256-secret-key K.p256sk]\n";

// The signing keys: Ed25519 for fleet/global; with --p256-secret-key each global record is
// also signed with ECDSA P-256 and published retained on fleet/global/p256 (for the Cortex-M
// firmware's Mbed TLS check).
struct Keys {
  fleet::SecretKey ed25519;
  bool p256 = false;
#if EDGEFOLD_FLEET_P256
  fleet::P256SecretKey p256_sk;
#endif
};

bool ReadKeys(const fleet::Args& args, Keys* keys, std::string* error) {
  if (!fleet::ReadKeyFile(args.Get("secret-key"), keys->ed25519.bytes, sizeof keys->ed25519.bytes,
                          error))
    return false;
  keys->p256 = args.Has("p256-secret-key");
#if EDGEFOLD_FLEET_P256
  if (keys->p256 && !fleet::ReadKeyFile(args.Get("p256-secret-key"), keys->p256_sk.bytes,
                                        sizeof keys->p256_sk.bytes, error))
    return false;
#else
  if (keys->p256) return *error = "--p256-secret-key: built without Mbed TLS", false;
#endif
  return true;
}

// The P-256-signed copy of the record `global[0, record)` on fleet/global/p256.
bool PublishP256(const Keys& keys, fleet::MqttLink& link, const std::vector<uint8_t>& global,
                 size_t record, std::string* error) {
#if EDGEFOLD_FLEET_P256
  std::vector<uint8_t> copy(global.begin(), global.begin() + std::ptrdiff_t(record));
  copy.resize(record + kUpdateSignatureBytes);
  if (!fleet::P256Sign(keys.p256_sk, copy.data(), record, copy.data() + record))
    return *error = "P-256 copy: signing failed", false;
  return link.Publish("fleet/global/p256", copy.data(), copy.size(), true, std::chrono::seconds(60),
                      error);
#else
  (void)keys, (void)link, (void)global, (void)record, (void)error;
  return true;
#endif
}

// The model's BatchNorm channels, from a trainer of it (what every device runs).
bool BatchNormChannels(const tools::AlignedBuffer& model, std::vector<size_t>* channels) {
  TrainOptions t;
  t.trainable = Trainable::kBatchNorm;
  size_t arena_bytes = 0;
  Trainer* trainer = nullptr;
  tools::AlignedBuffer arena;
  if (RequiredTrainingArenaBytes(model.data.get(), model.bytes, t, &arena_bytes) != Status::kOk ||
      !(arena = tools::AllocateAligned(arena_bytes)).data ||
      Trainer::Create(model.data.get(), model.bytes, arena.data.get(), arena_bytes, t, Options(),
                      &trainer) != Status::kOk)
    return false;
  for (size_t i = 0; i < trainer->num_batchnorms(); ++i)
    channels->push_back(trainer->batchnorm(i).channels);
  return true;
}

// --state DIR: saved after every record and round (a restarted aggregator resumes at the first
// open round; what it counted stays counted).
void Save(const fleet::Aggregator& agg, const std::string& state) {
  std::string e;
  if (!state.empty() && !agg.Save(state, &e))
    std::fprintf(stderr, "fleet-aggregator: %s\n", e.c_str());
}

// Checks and counts one message of fleet/<id>/update (the broker's ACL lets only device <id>
// publish there); logs what it did not accept. Returns its bytes.
size_t TakeUpdate(fleet::Aggregator& agg, const fleet::MqttMessage& m, const std::string& state) {
  const size_t a = m.topic.find('/'), b = m.topic.rfind('/');
  const uint32_t device =
      uint32_t(std::strtoul(m.topic.substr(a + 1, b - a - 1).c_str(), nullptr, 10));
  std::string why;
  const fleet::Outcome o = agg.Add(device, m.payload.data(), m.payload.size(), &why);
  if (o == fleet::Outcome::kAccepted) Save(agg, state);
  if (o != fleet::Outcome::kAccepted)
    std::printf("aggregator: %s from %s: %s\n", fleet::OutcomeName(o), m.topic.c_str(),
                why.c_str());
  return m.payload.size();
}

// Takes updates for round `r` until every device sent one or --round-timeout passed; returns
// the bytes received.
size_t CollectRound(fleet::Aggregator& agg, fleet::MqttLink& link, uint32_t r, size_t devices,
                    int timeout_s, const std::string& state) {
  size_t received_bytes = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (agg.Count(r) < devices && std::chrono::steady_clock::now() < deadline) {
    fleet::MqttMessage m;
    if (link.Receive(&m, std::chrono::milliseconds(500)))
      received_bytes += TakeUpdate(agg, m, state);
  }
  return received_bytes;
}

// After the last round: takes what is still arriving (a QoS 1 redelivery of the update that
// closed the round follows it by milliseconds) until none came for 300 ms or --drain-ms
// passed, so that the summary counts it as the duplicate it is.
void Drain(fleet::Aggregator& agg, fleet::MqttLink& link, int drain_ms, const std::string& state) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_ms);
  fleet::MqttMessage m;
  while (std::chrono::steady_clock::now() < deadline &&
         link.Receive(&m, std::chrono::milliseconds(300)))
    TakeUpdate(agg, m, state);
}

// Closes round `r`, signs the fleet's statistics and publishes them retained on fleet/global
// (and into --save-dir). The signed record in `global`.
bool CloseAndPublish(fleet::Aggregator& agg, fleet::MqttLink& link, const Keys& keys, uint32_t r,
                     const fleet::Args& args, std::vector<uint8_t>* global, std::string* error) {
  if (!agg.Close(r, global)) return *error = "no update arrived", false;
  Save(agg, args.Get("state"));
  const size_t record = global->size();
  global->resize(record + kUpdateSignatureBytes);
  if (!fleet::Sign(keys.ed25519, global->data(), record, global->data() + record)) {
    *error = "signing failed";
    return false;
  }
  if (!link.Publish("fleet/global", global->data(), global->size(), true, std::chrono::seconds(60),
                    error))
    return false;
  if (keys.p256 && !PublishP256(keys, link, *global, record, error)) return false;
  if (args.Has("save-dir")) {  // the signed records, for inspection and the tests
    const std::string path = args.Get("save-dir") + "/global_" + std::to_string(r) + ".bin";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(global->data(), 1, global->size(), f);
      std::fclose(f);
    }
  }
  return true;
}

// The run's last line: what was accepted, lost (expected but never received), counted twice.
void PrintSummary(const fleet::Aggregator& agg, const fleet::MqttLink& link, size_t expected) {
  std::printf(
      "aggregator: accepted %zu, lost %zu, duplicates %zu (counted once), rejected %zu, "
      "reconnects %zu\n",
      agg.accepted(), expected - agg.accepted(), agg.duplicates(), agg.rejected(),
      link.reconnects());
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  fleet::Args args;
  std::string error;
  if (!args.Parse(argc, argv, &error) || !args.Has("model") || !args.Has("secret-key")) {
    std::fprintf(stderr, "%s%s\n", kUsage, error.c_str());
    return 2;
  }
  Keys keys;
  tools::AlignedBuffer model;
  std::vector<size_t> channels;
  if (!ReadKeys(args, &keys, &error) ||
      !tools::ReadFileAligned(args.Get("model"), &model, &error) ||
      (!BatchNormChannels(model, &channels) &&
       (error = "cannot open " + args.Get("model") + " for training", true))) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  const uint64_t hash = ModelHash(model.data.get(), model.bytes);
  fleet::Aggregator agg(hash, channels);
  const std::string state = args.Get("state");
  if (!state.empty() && !agg.Load(state, &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  const size_t devices = size_t(args.Int("devices", 10));
  const uint32_t rounds = uint32_t(args.Int("rounds", 3));
  fleet::MqttLink link(fleet::MqttFromArgs(args, "aggregator"));
  if (!link.Connect(&error) || !link.Subscribe("fleet/+/update", &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  std::printf("aggregator: model %016llx, %zu BatchNorms, %zu devices, %u rounds\n",
              static_cast<unsigned long long>(hash), channels.size(), devices, rounds);
  const uint32_t first = agg.any_closed() ? agg.last_closed() + 1 : 1;
  if (first > 1) std::printf("aggregator: resumed from %s at round %u\n", state.c_str(), first);
  size_t expected = devices * (first - 1);
  for (uint32_t r = first; r <= rounds; ++r) {
    expected += devices;
    const size_t received_bytes =
        CollectRound(agg, link, r, devices, args.Int("round-timeout", 120), state);
    const size_t got = agg.Count(r);
    std::vector<uint8_t> global;
    if (!CloseAndPublish(agg, link, keys, r, args, &global, &error)) {
      std::fprintf(stderr, "fleet-aggregator: round %u: %s\n", r, error.c_str());
      return 1;
    }
    std::printf(
        "aggregator: round %u closed: %zu/%zu devices, %llu samples in all, "
        "%zu bytes received, global record %zu bytes (signed)\n",
        r, got, devices, static_cast<unsigned long long>(agg.global_samples()), received_bytes,
        global.size());
  }
  Drain(agg, link, args.Int("drain-ms", 1000), state);
  PrintSummary(agg, link, expected);
  return 0;
}
