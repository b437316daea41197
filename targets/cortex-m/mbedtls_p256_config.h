/* Mbed TLS 2.28 configuration of the Cortex-M fleet firmware's signature check
 * (examples/mcu/fleet_main.cc): ECDSA P-256 verification over SHA-256 only, as MCUboot
 * verifies images. Memory from a static pool (memory_buffer_alloc), no C heap. */
#ifndef EDGEFOLD_MBEDTLS_P256_CONFIG_H
#define EDGEFOLD_MBEDTLS_P256_CONFIG_H
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECP_WINDOW_SIZE 2
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0
#define MBEDTLS_ECP_NO_INTERNAL_RNG /* verification handles public data only: no blinding */
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA256_SMALLER
#include "mbedtls/check_config.h"
#endif
