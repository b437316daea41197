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

int main(int argc, char** argv) {
  using namespace edgefold;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  fleet::Args args;
  std::string error;
  if (!args.Parse(argc, argv, &error) || !args.Has("model") || !args.Has("secret-key")) {
    std::fprintf(stderr,
                 "usage: edgefold-fleet-aggregator --model M.efb --secret-key K.sk --devices N "
                 "--rounds R [--uri U --ca CA --password-file F --round-timeout S --save-dir D "
                 "--state DIR --p256-secret-key K.p256sk]\n%s\n",
                 error.c_str());
    return 2;
  }
  fleet::SecretKey sk;
  tools::AlignedBuffer model, arena;
  if (!fleet::ReadKeyFile(args.Get("secret-key"), sk.bytes, sizeof sk.bytes, &error) ||
      !tools::ReadFileAligned(args.Get("model"), &model, &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  // --p256-secret-key: each global record also signed with ECDSA P-256, published retained on
  // fleet/global/p256 (for the Cortex-M firmware's Mbed TLS check).
  const bool p256 = args.Has("p256-secret-key");
#if EDGEFOLD_FLEET_P256
  fleet::P256SecretKey p256_sk;
  if (p256 && !fleet::ReadKeyFile(args.Get("p256-secret-key"), p256_sk.bytes, sizeof p256_sk.bytes,
                                  &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
#else
  if (p256) {
    std::fprintf(stderr, "fleet-aggregator: --p256-secret-key: built without Mbed TLS\n");
    return 1;
  }
#endif
  // The model's BatchNorm channels, from a trainer of it (what every device runs).
  TrainOptions t;
  t.trainable = Trainable::kBatchNorm;
  size_t arena_bytes = 0;
  Trainer* trainer = nullptr;
  if (RequiredTrainingArenaBytes(model.data.get(), model.bytes, t, &arena_bytes) != Status::kOk ||
      !(arena = tools::AllocateAligned(arena_bytes)).data ||
      Trainer::Create(model.data.get(), model.bytes, arena.data.get(), arena_bytes, t, Options(),
                      &trainer) != Status::kOk) {
    std::fprintf(stderr, "fleet-aggregator: cannot open %s\n", args.Get("model").c_str());
    return 1;
  }
  std::vector<size_t> channels;
  for (size_t i = 0; i < trainer->num_batchnorms(); ++i)
    channels.push_back(trainer->batchnorm(i).channels);
  fleet::Aggregator agg(ModelHash(model.data.get(), model.bytes), channels);
  // --state DIR: saved after every record and round, loaded at start (a restarted aggregator
  // resumes at the first open round; what it counted stays counted).
  const std::string state = args.Get("state");
  if (!state.empty() && !agg.Load(state, &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  auto save = [&] {
    std::string e;
    if (!state.empty() && !agg.Save(state, &e))
      std::fprintf(stderr, "fleet-aggregator: %s\n", e.c_str());
  };
  const size_t devices = size_t(args.Int("devices", 10));
  const uint32_t rounds = uint32_t(args.Int("rounds", 3));
  fleet::MqttLink link(fleet::MqttFromArgs(args, "aggregator"));
  if (!link.Connect(&error) || !link.Subscribe("fleet/+/update", &error)) {
    std::fprintf(stderr, "fleet-aggregator: %s\n", error.c_str());
    return 1;
  }
  std::printf("aggregator: model %016llx, %zu BatchNorms, %zu devices, %u rounds\n",
              static_cast<unsigned long long>(ModelHash(model.data.get(), model.bytes)),
              channels.size(), devices, rounds);
  std::fflush(stdout);
  size_t expected = 0, received_bytes = 0;
  const uint32_t first = agg.any_closed() ? agg.last_closed() + 1 : 1;
  if (first > 1) std::printf("aggregator: resumed from %s at round %u\n", state.c_str(), first);
  expected = devices * (first - 1);
  for (uint32_t r = first; r <= rounds; ++r) {
    expected += devices;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(args.Int("round-timeout", 120));
    while (agg.Count(r) < devices && std::chrono::steady_clock::now() < deadline) {
      fleet::MqttMessage m;
      if (!link.Receive(&m, std::chrono::milliseconds(500))) continue;
      // fleet/<id>/update: the broker's ACL lets only device <id> publish there.
      const size_t a = m.topic.find('/'), b = m.topic.rfind('/');
      const uint32_t device =
          uint32_t(std::strtoul(m.topic.substr(a + 1, b - a - 1).c_str(), nullptr, 10));
      received_bytes += m.payload.size();
      std::string why;
      const fleet::Outcome o = agg.Add(device, m.payload.data(), m.payload.size(), &why);
      if (o == fleet::Outcome::kAccepted) save();
      if (o != fleet::Outcome::kAccepted)
        std::printf("aggregator: %s from %s: %s\n", fleet::OutcomeName(o), m.topic.c_str(),
                    why.c_str());
    }
    const size_t got = agg.Count(r);
    std::vector<uint8_t> global;
    if (!agg.Close(r, &global)) {
      std::fprintf(stderr, "fleet-aggregator: round %u: no update arrived\n", r);
      return 1;
    }
    save();
    const size_t record = global.size();
    global.resize(record + kUpdateSignatureBytes);
    if (!fleet::Sign(sk, global.data(), record, global.data() + record) ||
        !link.Publish("fleet/global", global.data(), global.size(), true, std::chrono::seconds(60),
                      &error)) {
      std::fprintf(stderr, "fleet-aggregator: round %u: %s\n", r, error.c_str());
      return 1;
    }
#if EDGEFOLD_FLEET_P256
    if (p256) {
      std::vector<uint8_t> copy(global.begin(), global.begin() + std::ptrdiff_t(record));
      copy.resize(record + kUpdateSignatureBytes);
      if (!fleet::P256Sign(p256_sk, copy.data(), record, copy.data() + record) ||
          !link.Publish("fleet/global/p256", copy.data(), copy.size(), true,
                        std::chrono::seconds(60), &error)) {
        std::fprintf(stderr, "fleet-aggregator: round %u: P-256 copy: %s\n", r, error.c_str());
        return 1;
      }
    }
#endif
    if (args.Has("save-dir")) {  // the signed records, for inspection and the tests
      const std::string path = args.Get("save-dir") + "/global_" + std::to_string(r) + ".bin";
      if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(global.data(), 1, global.size(), f);
        std::fclose(f);
      }
    }
    std::printf(
        "aggregator: round %u closed: %zu/%zu devices, %llu samples in all, "
        "%zu bytes received, global record %zu bytes (signed)\n",
        r, got, devices, static_cast<unsigned long long>(agg.global_samples()), received_bytes,
        global.size());
    std::fflush(stdout);
    received_bytes = 0;
  }
  const size_t lost = expected - agg.accepted();
  std::printf(
      "aggregator: accepted %zu, lost %zu, duplicates %zu (counted once), rejected %zu, "
      "reconnects %zu\n",
      agg.accepted(), lost, agg.duplicates(), agg.rejected(), link.reconnects());
  return 0;
}
