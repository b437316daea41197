// edgefold-fleet-record: update records on the command line (tests and inspection).
//   edgefold-fleet-record sign SECRET.sk IN OUT   OUT = IN (a record without signature) + its
//                                                 Ed25519 signature
//   edgefold-fleet-record show IN                 the header fields
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

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  std::vector<uint8_t> in;
  std::string error;
  if (cmd == "sign" && argc == 5) {
    edgefold::fleet::SecretKey sk;
    if (!edgefold::fleet::ReadKeyFile(argv[2], sk.bytes, sizeof sk.bytes, &error) ||
        !ReadAll(argv[3], &in)) {
      std::fprintf(stderr, "edgefold-fleet-record: %s\n", error.empty() ? argv[3] : error.c_str());
      return 1;
    }
    const size_t n = in.size();
    in.resize(n + edgefold::kUpdateSignatureBytes);
    if (!edgefold::fleet::Sign(sk, in.data(), n, in.data() + n)) return 1;
    std::ofstream(argv[4], std::ios::binary)
        .write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
    return 0;
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
    if (!edgefold::fleet::ReadKeyFile(argv[2], sk.bytes, sizeof sk.bytes, &error) ||
        !ReadAll(argv[3], &in)) {
      std::fprintf(stderr, "edgefold-fleet-record: %s\n", error.empty() ? argv[3] : error.c_str());
      return 1;
    }
    const size_t n = in.size();
    in.resize(n + edgefold::kUpdateSignatureBytes);
    if (!edgefold::fleet::P256Sign(sk, in.data(), n, in.data() + n)) return 1;
    std::ofstream(argv[4], std::ios::binary)
        .write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
    return 0;
  }
#endif
  if (cmd == "show" && argc == 3 && ReadAll(argv[2], &in) && in.size() >= 32) {
    std::printf(
        "version %u encoding %u flags %u round %u samples %u origin %u layers %u, %zu bytes\n",
        in[4] | in[5] << 8, in[6], in[7], U32(in, 16), U32(in, 20), U32(in, 24),
        in[28] | in[29] << 8, in.size());
    return 0;
  }
  std::fprintf(stderr,
               "usage: edgefold-fleet-record sign SECRET.sk IN OUT | show IN | p256-keygen PREFIX "
               "| sign-p256 SECRET.p256sk IN OUT (the last two where built with Mbed TLS)\n");
  return 2;
}
