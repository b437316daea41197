// ECDSA P-256 key generation and deterministic signing (p256.h) with Mbed TLS, host side.
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/entropy.h>
#include <mbedtls/sha256.h>

#include "p256.h"

namespace edgefold::fleet {

bool P256GenerateKeyPair(P256PublicKey* pk, P256SecretKey* sk) {
  mbedtls_entropy_context entropy;
  mbedtls_ctr_drbg_context drbg;
  mbedtls_ecdsa_context key;
  mbedtls_entropy_init(&entropy);
  mbedtls_ctr_drbg_init(&drbg);
  mbedtls_ecdsa_init(&key);
  size_t n = 0;
  static const unsigned char kPersonal[] = "edgefold-fleet-p256";
  const bool ok =
      mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, kPersonal,
                            sizeof kPersonal - 1) == 0 &&
      mbedtls_ecdsa_genkey(&key, MBEDTLS_ECP_DP_SECP256R1, mbedtls_ctr_drbg_random, &drbg) == 0 &&
      mbedtls_ecp_point_write_binary(&key.grp, &key.Q, MBEDTLS_ECP_PF_UNCOMPRESSED, &n, pk->bytes,
                                     sizeof pk->bytes) == 0 &&
      n == sizeof pk->bytes && mbedtls_mpi_write_binary(&key.d, sk->bytes, sizeof sk->bytes) == 0;
  mbedtls_ecdsa_free(&key);
  mbedtls_ctr_drbg_free(&drbg);
  mbedtls_entropy_free(&entropy);
  return ok;
}

bool P256Sign(const P256SecretKey& sk, const uint8_t* message, size_t message_bytes,
              uint8_t* signature) {
  uint8_t hash[32];
  if (mbedtls_sha256_ret(message, message_bytes, hash, 0) != 0) return false;
  mbedtls_ecp_group grp;
  mbedtls_mpi d, r, s;
  mbedtls_ecp_group_init(&grp);
  mbedtls_mpi_init(&d);
  mbedtls_mpi_init(&r);
  mbedtls_mpi_init(&s);
  const bool ok = mbedtls_ecp_group_load(&grp, MBEDTLS_ECP_DP_SECP256R1) == 0 &&
                  mbedtls_mpi_read_binary(&d, sk.bytes, sizeof sk.bytes) == 0 &&
                  mbedtls_ecdsa_sign_det_ext(&grp, &r, &s, &d, hash, sizeof hash, MBEDTLS_MD_SHA256,
                                             nullptr, nullptr) == 0 &&
                  mbedtls_mpi_write_binary(&r, signature, 32) == 0 &&
                  mbedtls_mpi_write_binary(&s, signature + 32, 32) == 0;
  mbedtls_mpi_free(&s);
  mbedtls_mpi_free(&r);
  mbedtls_mpi_free(&d);
  mbedtls_ecp_group_free(&grp);
  return ok;
}

}  // namespace edgefold::fleet
