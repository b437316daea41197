// edgefold-fleet-record: update records on the command line (tests and inspection).
//   edgefold-fleet-record sign SECRET.sk IN OUT   OUT = IN (a record without signature) + its
//                                                 Ed25519 signature
//   edgefold-fleet-record show IN                 the header fields
//   edgefold-fleet-record size MODEL.efb          the record sizes of a model compiled with
//                                                 --train (its BatchNorms, from a Trainer)
//   edgefold-fleet-record p256-keygen PREFIX      PREFIX.p256pk, PREFIX.p256sk (ECDSA P-256)
//   edgefold-fleet-record sign-p256 SK IN OUT     OUT = IN + its P-256 signature (r ‖ s)
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ed25519.h"
#if EDGEFOLD_FLEET_P256
#include "p256.h"
#endif
#include "edgefold/update_record.h"
#include "file_io.h"

namespace {

bool ReadAll(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

uint32_t U32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
         uint32_t(b[at + 3]) << 24;
}

// OUT = IN + its signature by `sign` with the key read from KEY into `key`.
template <class Key, class SignFn>
int SignFile(Key& key, const char* key_path, const char* in_path, const char* out_path,
             SignFn sign) {
  std::string error;
  std::vector<uint8_t> in;
  if (!edgefold::fleet::ReadKeyFile(key_path, key.bytes, sizeof key.bytes, &error) ||
      !ReadAll(in_path, &in)) {
    std::fprintf(stderr, "edgefold-fleet-record: %s\n", error.empty() ? in_path : error.c_str());
    return 1;
  }
  const size_t n = in.size();
  in.resize(n + edgefold::kUpdateSignatureBytes);
  if (!sign(in.data(), n, in.data() + n)) return 1;
  std::ofstream(out_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
  return 0;
}

// size MODEL.efb: the record sizes of a model compiled with --train.
int SizeCommand(const char* path) {
  std::string error;
  edgefold::tools::AlignedBuffer model, arena;
  edgefold::TrainOptions t;
  t.trainable = edgefold::Trainable::kBatchNorm;
  size_t bytes = 0;
  edgefold::Trainer* trainer = nullptr;
  if (!edgefold::tools::ReadFileAligned(path, &model, &error) ||
      edgefold::RequiredTrainingArenaBytes(model.data.get(), model.bytes, t, &bytes) !=
          edgefold::Status::kOk ||
      !(arena = edgefold::tools::AllocateAligned(bytes)).data ||
      edgefold::Trainer::Create(model.data.get(), model.bytes, arena.data.get(), bytes, t,
                                edgefold::Options(), &trainer) != edgefold::Status::kOk) {
    std::fprintf(stderr, "edgefold-fleet-record: %s: not a model compiled with --train %s\n", path,
                 error.c_str());
    return 1;
  }
  size_t channels = 0;
  for (size_t i = 0; i < trainer->num_batchnorms(); ++i) channels += trainer->batchnorm(i).channels;
  const auto size = [&](edgefold::RecordEncoding e, bool affine) {
    return edgefold::TrainerUpdateBytes(*trainer, e, affine);
  };
  std::printf(
      "%zu BatchNorms, %zu channels: statistics fp32 %zu B, int8 %zu B; with gamma/beta "
      "fp32 %zu B, int8 %zu B (+%zu signed)\n",
      trainer->num_batchnorms(), channels, size(edgefold::RecordEncoding::kFloat32, false),
      size(edgefold::RecordEncoding::kInt8, false), size(edgefold::RecordEncoding::kFloat32, true),
      size(edgefold::RecordEncoding::kInt8, true), edgefold::kUpdateSignatureBytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  std::vector<uint8_t> in;
  std::string error;
  if (cmd == "sign" && argc == 5) {
    edgefold::fleet::SecretKey sk;
    return SignFile(sk, argv[2], argv[3], argv[4], [&](const uint8_t* m, size_t n, uint8_t* sig) {
      return edgefold::fleet::Sign(sk, m, n, sig);
    });
  }
#if EDGEFOLD_FLEET_P256
  // ECDSA P-256 (p256.h) for the Cortex-M firmware's check: hex key files PREFIX.p256pk
  // (the uncompressed point) and PREFIX.p256sk.
  if (cmd == "p256-keygen" && argc == 3) {
    edgefold::fleet::P256PublicKey pk;
    edgefold::fleet::P256SecretKey sk;
    const std::string prefix = argv[2];
    if (!edgefold::fleet::P256GenerateKeyPair(&pk, &sk) ||
        !edgefold::fleet::WriteKeyFile(prefix + ".p256pk", pk.bytes, sizeof pk.bytes, &error) ||
        !edgefold::fleet::WriteKeyFile(prefix + ".p256sk", sk.bytes, sizeof sk.bytes, &error)) {
      std::fprintf(stderr, "edgefold-fleet-record: p256-keygen: %s\n", error.c_str());
      return 1;
    }
    return 0;
  }
  if (cmd == "sign-p256" && argc == 5) {
    edgefold::fleet::P256SecretKey sk;
    return SignFile(sk, argv[2], argv[3], argv[4], [&](const uint8_t* m, size_t n, uint8_t* sig) {
      return edgefold::fleet::P256Sign(sk, m, n, sig);
    });
  }
#endif
  if (cmd == "show" && argc == 3 && ReadAll(argv[2], &in) && in.size() >= 32) {
    std::printf(
        "version %u encoding %u flags %u round %u samples %u origin %u layers %u, %zu bytes\n",
        in[4] | in[5] << 8, in[6], in[7], U32(in, 16), U32(in, 20), U32(in, 24),
        in[28] | in[29] << 8, in.size());
    return 0;
  }
  if (cmd == "size" && argc == 3) return SizeCommand(argv[2]);
  std::fprintf(stderr,
               "usage: edgefold-fleet-record sign SECRET.sk IN OUT | show IN | size MODEL.efb | "
               "p256-keygen PREFIX | sign-p256 SECRET.p256sk IN OUT (the last two where built with "
               "Mbed TLS)\n");
  return 2;
}
