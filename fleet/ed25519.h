// Ed25519 signatures of fleet update records through libsodium (hosted builds): the key pair
// the fleet service signs with, and the RecordVerifier a hosted device plugs into
// CheckUpdateRecord / ImportTrainerUpdate. Keys are files of lowercase hex.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "edgefold/update_record.h"

namespace edgefold::fleet {

constexpr size_t kPublicKeyBytes = 32;
constexpr size_t kSecretKeyBytes = 64;

struct PublicKey {
  uint8_t bytes[kPublicKeyBytes] = {};
};
struct SecretKey {
  uint8_t bytes[kSecretKeyBytes] = {};
};

// libsodium initialized (sodium_init); false when it cannot be.
bool SodiumReady();

bool GenerateKeyPair(PublicKey* pk, SecretKey* sk);

// signature = Ed25519(sk, message), kUpdateSignatureBytes long.
bool Sign(const SecretKey& sk, const uint8_t* message, size_t message_bytes, uint8_t* signature);

// A verifier for `pk` (borrowed: it must outlive the verifier's use).
RecordVerifier Ed25519Verifier(const PublicKey* pk);

// Hex key files. Read*: false with *error naming the file and what is wrong.
bool WriteKeyFile(const std::string& path, const uint8_t* key, size_t bytes, std::string* error);
bool ReadKeyFile(const std::string& path, uint8_t* key, size_t bytes, std::string* error);

}  // namespace edgefold::fleet
