// edgefold-fleet-keygen PREFIX: writes PREFIX.pk (public, for devices) and PREFIX.sk (secret,
// for the fleet service, mode 0600), an Ed25519 key pair from libsodium, as hex.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "ed25519.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: edgefold-fleet-keygen PREFIX  (writes PREFIX.pk, PREFIX.sk)\n");
    return 2;
  }
  edgefold::fleet::PublicKey pk;
  edgefold::fleet::SecretKey sk;
  if (!edgefold::fleet::GenerateKeyPair(&pk, &sk)) {
    std::fprintf(stderr, "edgefold-fleet-keygen: libsodium failed to initialize\n");
    return 1;
  }
  const std::string prefix = argv[1];
  std::string error;
  const mode_t old = umask(077);
  const bool ok = edgefold::fleet::WriteKeyFile(prefix + ".sk", sk.bytes, sizeof sk.bytes, &error);
  umask(old);
  if (!ok || !edgefold::fleet::WriteKeyFile(prefix + ".pk", pk.bytes, sizeof pk.bytes, &error)) {
    std::fprintf(stderr, "edgefold-fleet-keygen: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s.pk %s.sk\n", prefix.c_str(), prefix.c_str());
  return 0;
}
