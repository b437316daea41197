// ECDSA P-256 through Mbed TLS on update records: the 64-byte r‖s signature verifies through
// the RecordVerifier hook; another key, a changed byte or a flipped signature bit do not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "p256.h"

namespace edgefold::fleet {
namespace {

TEST(FleetP256, SignedRecordVerifiesThroughTheHook) {
  P256PublicKey pk, other_pk;
  P256SecretKey sk, other_sk;
  ASSERT_TRUE(P256GenerateKeyPair(&pk, &sk));
  ASSERT_TRUE(P256GenerateKeyPair(&other_pk, &other_sk));
  const float mean[2] = {0.25f, -3}, var[2] = {2, 0.5f};
  BnLayerStats l{2, mean, var, nullptr, nullptr};
  UpdateRecordHeader h;
  h.model_hash = 5;
  h.samples = 8;
  h.layers = 1;
  const size_t c = 2;
  const size_t n = UpdateRecordBytes(&c, 1, RecordEncoding::kFloat32, false);
  std::vector<uint8_t> r(n + kUpdateSignatureBytes);
  ASSERT_EQ(WriteUpdateRecord(h, &l, r.data(), r.size(), nullptr), Status::kOk);
  ASSERT_TRUE(P256Sign(sk, r.data(), n, r.data() + n));
  const RecordVerifier v = P256Verifier(&pk), other = P256Verifier(&other_pk);
  UpdateExpectation e;
  e.model_hash = 5;
  e.channels = &c;
  e.layers = 1;
  e.verifier = &v;
  EXPECT_EQ(CheckUpdateRecord(r.data(), r.size(), e, nullptr), Status::kOk);
  e.verifier = &other;
  EXPECT_NE(CheckUpdateRecord(r.data(), r.size(), e, nullptr), Status::kOk);
  e.verifier = &v;
  std::vector<uint8_t> flipped = r;
  flipped[n + 40] ^= 1;
  EXPECT_NE(CheckUpdateRecord(flipped.data(), flipped.size(), e, nullptr), Status::kOk);
  EXPECT_FALSE(P256Verify(pk, r.data(), n - 1, r.data() + n, 64));  // another message
  EXPECT_FALSE(P256Verify(pk, r.data(), n, r.data() + n, 63));      // a short signature
}

}  // namespace
}  // namespace edgefold::fleet
