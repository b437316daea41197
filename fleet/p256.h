// ECDSA P-256 (SHA-256) signatures of fleet update records through Mbed TLS: the scheme
// MCUboot uses, from a library that builds for bare metal. The signature is r‖s (2 × 32
// bytes), so it fits the record's 64-byte signature slot as Ed25519's does.
// P256Verifier is what a device plugs into CheckUpdateRecord / ImportTrainerUpdate; its
// verification (p256_verify.cc) uses only Mbed TLS's SHA-256, bignum, ECP and ECDSA modules.
// Signing and key generation (p256_sign.cc) are the fleet service's, on a host.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/update_record.h"

namespace edgefold::fleet {

struct P256PublicKey {
  uint8_t bytes[65] = {};  // uncompressed point: 0x04 ‖ X ‖ Y
};
struct P256SecretKey {
  uint8_t bytes[32] = {};
};

// A verifier for `pk` (borrowed: it must outlive the verifier's use).
RecordVerifier P256Verifier(const P256PublicKey* pk);
// True when `signature` (r ‖ s, 64 bytes) signs SHA-256(message) under pk.
bool P256Verify(const P256PublicKey& pk, const uint8_t* message, size_t message_bytes,
                const uint8_t* signature, size_t signature_bytes);

bool P256GenerateKeyPair(P256PublicKey* pk, P256SecretKey* sk);
// Deterministic ECDSA (RFC 6979) of SHA-256(message): r ‖ s into `signature` (64 bytes).
bool P256Sign(const P256SecretKey& sk, const uint8_t* message, size_t message_bytes,
              uint8_t* signature);

}  // namespace edgefold::fleet
