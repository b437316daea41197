// libsodium's Ed25519 (crypto_sign_detached / crypto_sign_verify_detached) for update records.
#include "ed25519.h"

#include <sodium.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace edgefold::fleet {
namespace {

bool VerifyEd25519(void* user, const uint8_t* message, size_t message_bytes,
                   const uint8_t* signature, size_t signature_bytes) {
  const PublicKey* pk = static_cast<const PublicKey*>(user);
  return pk != nullptr && signature_bytes == crypto_sign_BYTES &&
         crypto_sign_verify_detached(signature, message, message_bytes, pk->bytes) == 0;
}

static_assert(crypto_sign_BYTES == kUpdateSignatureBytes, "Ed25519 signatures are 64 bytes");
static_assert(crypto_sign_PUBLICKEYBYTES == kPublicKeyBytes, "Ed25519 public keys");
static_assert(crypto_sign_SECRETKEYBYTES == kSecretKeyBytes, "libsodium's Ed25519 secret keys");

}  // namespace

bool SodiumReady() { return sodium_init() >= 0; }

bool GenerateKeyPair(PublicKey* pk, SecretKey* sk) {
  return SodiumReady() && crypto_sign_keypair(pk->bytes, sk->bytes) == 0;
}

bool Sign(const SecretKey& sk, const uint8_t* message, size_t message_bytes, uint8_t* signature) {
  return SodiumReady() &&
         crypto_sign_detached(signature, nullptr, message, message_bytes, sk.bytes) == 0;
}

RecordVerifier Ed25519Verifier(const PublicKey* pk) {
  RecordVerifier v;
  v.verify = VerifyEd25519;
  v.user = const_cast<PublicKey*>(pk);
  return v;
}

bool WriteKeyFile(const std::string& path, const uint8_t* key, size_t bytes, std::string* error) {
  std::ofstream f(path, std::ios::trunc);
  for (size_t i = 0; i < bytes; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", key[i]);
    f << hex;
  }
  f << "\n";
  if (!f) *error = path + ": cannot write";
  return bool(f);
}

bool ReadKeyFile(const std::string& path, uint8_t* key, size_t bytes, std::string* error) {
  std::ifstream f(path);
  std::string hex;
  if (!(f >> hex)) {
    *error = path + ": cannot read a key";
    return false;
  }
  if (hex.size() != 2 * bytes ||
      sodium_hex2bin(key, bytes, hex.c_str(), hex.size(), nullptr, nullptr, nullptr) != 0) {
    *error = path + ": expected " + std::to_string(2 * bytes) + " hex digits, found " +
             std::to_string(hex.size());
    return false;
  }
  return true;
}

}  // namespace edgefold::fleet
