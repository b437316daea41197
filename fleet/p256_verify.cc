// ECDSA P-256 verification of update records (p256.h) with Mbed TLS.
#include <mbedtls/ecdsa.h>
#include <mbedtls/sha256.h>

#include "p256.h"

namespace edgefold::fleet {
namespace {

bool VerifyHook(void* user, const uint8_t* message, size_t message_bytes, const uint8_t* signature,
                size_t signature_bytes) {
  const P256PublicKey* pk = static_cast<const P256PublicKey*>(user);
  return pk != nullptr && P256Verify(*pk, message, message_bytes, signature, signature_bytes);
}

}  // namespace

bool P256Verify(const P256PublicKey& pk, const uint8_t* message, size_t message_bytes,
                const uint8_t* signature, size_t signature_bytes) {
  if (signature_bytes != 64) return false;
  uint8_t hash[32];
  if (mbedtls_sha256_ret(message, message_bytes, hash, 0) != 0) return false;
  mbedtls_ecp_group grp;
  mbedtls_ecp_point q;
  mbedtls_mpi r, s;
  mbedtls_ecp_group_init(&grp);
  mbedtls_ecp_point_init(&q);
  mbedtls_mpi_init(&r);
  mbedtls_mpi_init(&s);
  const bool ok = mbedtls_ecp_group_load(&grp, MBEDTLS_ECP_DP_SECP256R1) == 0 &&
                  mbedtls_ecp_point_read_binary(&grp, &q, pk.bytes, sizeof pk.bytes) == 0 &&
                  mbedtls_ecp_check_pubkey(&grp, &q) == 0 &&
                  mbedtls_mpi_read_binary(&r, signature, 32) == 0 &&
                  mbedtls_mpi_read_binary(&s, signature + 32, 32) == 0 &&
                  mbedtls_ecdsa_verify(&grp, hash, sizeof hash, &q, &r, &s) == 0;
  mbedtls_mpi_free(&s);
  mbedtls_mpi_free(&r);
  mbedtls_ecp_point_free(&q);
  mbedtls_ecp_group_free(&grp);
  return ok;
}

RecordVerifier P256Verifier(const P256PublicKey* pk) {
  RecordVerifier v;
  v.verify = VerifyHook;
  v.user = const_cast<P256PublicKey*>(pk);
  return v;
}

}  // namespace edgefold::fleet
