// .npy reader/writer: round trips, byte-compatibility with numpy.save, and rejection of
// malformed files with messages naming the file and the field.
#include "npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace edgefold::tools {
namespace {

// Preamble + dict + padding + '\n' exactly as numpy 1.24 numpy.save writes it.
std::vector<uint8_t> MakeNpy(const std::string& dict, const std::vector<uint8_t>& payload,
                             int major = 1) {
  std::string header = dict;
  const size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t len = header.size();
  out.push_back(len & 0xff);
  out.push_back((len >> 8) & 0xff);
  if (major != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::vector<uint8_t> FloatBytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string ParseError(const std::vector<uint8_t>& bytes) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(ParseNpy(bytes.data(), bytes.size(), "f.npy", &a, &error));
  return error;
}

TEST(Npy, EncodesExactlyLikeNumpySave) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  const std::vector<uint8_t> ours = EncodeNpyFloat32(v.data(), v.size(), {2, 3});
  const std::vector<uint8_t> numpy =
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", FloatBytes(v));
  EXPECT_EQ(ours, numpy);
  EXPECT_EQ((ours.size() - v.size() * 4) % 64, 0u);  // data starts 64-byte aligned
  const std::vector<uint8_t> one = EncodeNpyFloat32(v.data(), 6, {6});
  EXPECT_EQ(one,
            MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", FloatBytes(v)));
}

TEST(Npy, RoundTripsShapesIncludingScalarAndEmpty) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {7}, {2, 0, 3}, {1, 3, 5, 7}};
  for (const auto& shape : shapes) {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
    const std::vector<uint8_t> bytes = EncodeNpyFloat32(v.data(), n, shape);
    NpyArray a;
    std::string error;
    ASSERT_TRUE(ParseNpy(bytes.data(), bytes.size(), "x.npy", &a, &error)) << error;
    EXPECT_EQ(a.dtype, NpyDType::kFloat32);
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.f32, v);
  }
}

TEST(Npy, ReadsInt64AndVersion2) {
  std::vector<int64_t> v = {-1, 0, 1LL << 40};
  std::vector<uint8_t> payload(v.size() * 8);
  std::memcpy(payload.data(), v.data(), payload.size());
  const auto bytes =
      MakeNpy("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", payload, 2);
  NpyArray a;
  std::string error;
  ASSERT_TRUE(ParseNpy(bytes.data(), bytes.size(), "y.npy", &a, &error)) << error;
  EXPECT_EQ(a.dtype, NpyDType::kInt64);
  EXPECT_EQ(a.i64, v);
}

TEST(Npy, AcceptsKeysInAnyOrderAndDoubleQuotes) {
  const auto bytes = MakeNpy("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f4\"}",
                             FloatBytes({2.5f}));
  NpyArray a;
  std::string error;
  ASSERT_TRUE(ParseNpy(bytes.data(), bytes.size(), "q.npy", &a, &error)) << error;
  EXPECT_EQ(a.f32, std::vector<float>{2.5f});
}

TEST(Npy, RejectsBadMagicAndVersion) {
  EXPECT_NE(ParseError({'N', 'O', 'P', 'E'}).find("f.npy: not a .npy file"), std::string::npos);
  auto bytes =
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", FloatBytes({1}));
  bytes[6] = 3;
  EXPECT_NE(ParseError(bytes).find("format version 3.0"), std::string::npos);
}

TEST(Npy, RejectsEveryTruncation) {
  const auto bytes = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                             FloatBytes({1, 2, 3, 4}));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    EXPECT_FALSE(ParseError(cut).empty()) << "prefix of " << n << " bytes";
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_NE(ParseError(longer).find("data bytes"), std::string::npos);
}

TEST(Npy, RejectsHeaderLengthPastEnd) {
  auto bytes =
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", FloatBytes({1}));
  bytes[8] = 0xff;
  bytes[9] = 0xff;
  EXPECT_NE(ParseError(bytes).find("runs past the end"), std::string::npos);
}

TEST(Npy, RejectsWrongDtypeNamingDescr) {
  const auto f8 =
      MakeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(8));
  EXPECT_NE(ParseError(f8).find("field 'descr' is '<f8'"), std::string::npos);
  const auto be =
      MakeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(4));
  EXPECT_NE(ParseError(be).find("'descr'"), std::string::npos);
  const auto structured =
      MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
              std::vector<uint8_t>(4));
  EXPECT_NE(ParseError(structured).find("'descr'"), std::string::npos);
}

TEST(Npy, RejectsFortranOrder) {
  const auto bytes = MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                             FloatBytes({1, 2, 3, 4}));
  EXPECT_NE(ParseError(bytes).find("f.npy: field 'fortran_order'"), std::string::npos);
}

TEST(Npy, RejectsHugeAndMalformedShapes) {
  const std::vector<std::string> bad = {
      "(4294967296, 4294967296, 4294967296)",  // product overflows 64 bits
      "(1099511627777,)",                      // one dimension above 2^40
      "(3, 5)",                                // fine shape, wrong data size
      "(-1,)",
      "(1.5,)",
      "(1",
      "[1]",
      "(1,,)",
      "",
      "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"};  // rank 33
  for (const std::string& shape : bad) {
    const auto bytes = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }",
                               FloatBytes({1}));
    EXPECT_NE(ParseError(bytes).find("'shape'"), std::string::npos) << shape;
  }
}

TEST(Npy, RejectsMissingRepeatedAndUnknownKeys) {
  const std::vector<std::string> bad = {
      "{'descr': '<f4', 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing",
      "{'descr: '<f4'}",
      "no dict at all"};
  for (const std::string& dict : bad) {
    EXPECT_FALSE(ParseError(MakeNpy(dict, FloatBytes({1}))).empty()) << dict;
  }
}

// Random byte flips, truncations and length-field edits of a valid file must give either a
// clean parse with consistent sizes or an error, never a crash (run under ASan to see).
TEST(Npy, SurvivesRandomCorruption) {
  const std::vector<uint8_t> valid =
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
              FloatBytes({1, 2, 3, 4, 5, 6}));
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> bytes = valid;
    const int edits = 1 + next() % 4;
    for (int e = 0; e < edits; ++e) {
      const size_t pos = next() % bytes.size();
      bytes[pos] = static_cast<uint8_t>(next() >> 24);
    }
    if (next() % 4 == 0) bytes.resize(next() % (bytes.size() + 1));
    NpyArray a;
    std::string error;
    if (ParseNpy(bytes.data(), bytes.size(), "fuzz.npy", &a, &error)) {
      EXPECT_EQ(a.elems(), a.dtype == NpyDType::kFloat32 ? a.f32.size() : a.i64.size());
    } else {
      EXPECT_EQ(error.rfind("fuzz.npy: ", 0), 0u) << error;
    }
  }
}

TEST(Npy, ReadReportsMissingFile) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(ReadNpy("/nonexistent/dir/x.npy", &a, &error));
  EXPECT_NE(error.find("/nonexistent/dir/x.npy"), std::string::npos);
}

TEST(Npy, WriteRejectsShapeThatDoesNotHoldTheData) {
  const float v[3] = {1, 2, 3};
  std::string error;
  EXPECT_FALSE(WriteNpyFloat32(::testing::TempDir() + "/bad.npy", v, 3, {2, 2}, &error));
  EXPECT_NE(error.find("[2, 2]"), std::string::npos);
}

}  // namespace
}  // namespace edgefold::tools
