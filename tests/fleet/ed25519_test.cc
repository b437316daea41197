// Ed25519 through libsodium on update records: a signed record verifies; a forged signature,
// another key or a changed byte does not; key files round-trip and bad ones are named.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ed25519.h"

namespace edgefold::fleet {
namespace {

std::vector<uint8_t> SignedRecord(const SecretKey& sk, uint64_t hash, size_t* record_bytes) {
  const float mean[3] = {0.5f, -1, 2}, var[3] = {1, 0.25f, 4};
  BnLayerStats l{3, mean, var, nullptr, nullptr};
  UpdateRecordHeader h;
  h.model_hash = hash;
  h.round = 2;
  h.samples = 10;
  h.layers = 1;
  const size_t c = 3;
  std::vector<uint8_t> r(UpdateRecordBytes(&c, 1, RecordEncoding::kFloat32, false) +
                         kUpdateSignatureBytes);
  EXPECT_EQ(WriteUpdateRecord(h, &l, r.data(), r.size(), record_bytes), Status::kOk);
  EXPECT_TRUE(Sign(sk, r.data(), *record_bytes, r.data() + *record_bytes));
  return r;
}

Status Check(const std::vector<uint8_t>& r, const PublicKey& pk, std::string* log) {
  static const size_t c = 3;
  const RecordVerifier v = Ed25519Verifier(&pk);
  UpdateExpectation e;
  e.model_hash = 42;
  e.channels = &c;
  e.layers = 1;
  e.verifier = &v;
  log->clear();
  return CheckUpdateRecord(
      r.data(), r.size(), e, nullptr,
      [](void* u, const char* m) { static_cast<std::string*>(u)->append(m); }, log);
}

TEST(FleetEd25519, SignedRecordVerifiesForgeriesDoNot) {
  PublicKey pk, other_pk;
  SecretKey sk, other_sk;
  ASSERT_TRUE(GenerateKeyPair(&pk, &sk));
  ASSERT_TRUE(GenerateKeyPair(&other_pk, &other_sk));
  size_t n = 0;
  const std::vector<uint8_t> r = SignedRecord(sk, 42, &n);
  std::string log;
  EXPECT_EQ(Check(r, pk, &log), Status::kOk) << log;
  EXPECT_NE(Check(r, other_pk, &log), Status::kOk);
  EXPECT_NE(log.find("signature does not verify"), std::string::npos) << log;
  std::vector<uint8_t> forged = r;
  forged[n + 5] ^= 1;
  EXPECT_NE(Check(forged, pk, &log), Status::kOk);
  EXPECT_NE(log.find("signature"), std::string::npos) << log;
  // A record re-signed by another key (a forger without the fleet's key).
  std::vector<uint8_t> resigned = r;
  ASSERT_TRUE(Sign(other_sk, resigned.data(), n, resigned.data() + n));
  EXPECT_NE(Check(resigned, pk, &log), Status::kOk);
  // A changed value with its CRC recomputed: the signature still catches it.
  std::vector<uint8_t> edited = r;
  edited[40] ^= 0x40;
  const uint32_t crc = Crc32(edited.data(), n - 4);
  for (int i = 0; i < 4; ++i) edited[n - 4 + i] = uint8_t(crc >> (8 * i));
  EXPECT_NE(Check(edited, pk, &log), Status::kOk);
  EXPECT_NE(log.find("signature does not verify"), std::string::npos) << log;
}

TEST(FleetEd25519, KeyFilesRoundTripAndBadOnesAreNamed) {
  PublicKey pk, back;
  SecretKey sk;
  ASSERT_TRUE(GenerateKeyPair(&pk, &sk));
  const std::string path = ::testing::TempDir() + "/fleet_key_test.pk";
  std::string error;
  ASSERT_TRUE(WriteKeyFile(path, pk.bytes, sizeof pk.bytes, &error)) << error;
  ASSERT_TRUE(ReadKeyFile(path, back.bytes, sizeof back.bytes, &error)) << error;
  EXPECT_EQ(0, std::memcmp(pk.bytes, back.bytes, sizeof pk.bytes));
  SecretKey wrong;
  EXPECT_FALSE(ReadKeyFile(path, wrong.bytes, sizeof wrong.bytes, &error));
  EXPECT_NE(error.find("128 hex digits"), std::string::npos) << error;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace edgefold::fleet
