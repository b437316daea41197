// Aligned whole-file reads: the runtime needs model bytes and arenas at 64-byte boundaries.
#include "file_io.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace edgefold::tools {
namespace {

TEST(FileIo, AllocateAlignedIsAlignedAndZeroed) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4097}}) {
    AlignedBuffer b = AllocateAligned(bytes);
    ASSERT_NE(b.data, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data.get()) % kBufferAlignment, 0u);
    EXPECT_EQ(b.bytes, bytes);
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(b.data.get()[i], 0);
  }
}

TEST(FileIo, ReadsWholeFileAligned) {
  const std::string path = ::testing::TempDir() + "/file_io_test.bin";
  std::string content(1000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  std::ofstream(path, std::ios::binary) << content;
  AlignedBuffer b;
  std::string error;
  ASSERT_TRUE(ReadFileAligned(path, &b, &error)) << error;
  ASSERT_EQ(b.bytes, content.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data.get()) % kBufferAlignment, 0u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(b.data.get()), b.bytes), content);
}

TEST(FileIo, ReadsEmptyFile) {
  const std::string path = ::testing::TempDir() + "/file_io_empty.bin";
  std::ofstream(path, std::ios::binary).close();
  AlignedBuffer b;
  std::string error;
  ASSERT_TRUE(ReadFileAligned(path, &b, &error)) << error;
  EXPECT_EQ(b.bytes, 0u);
}

TEST(FileIo, MissingFileNamesThePath) {
  AlignedBuffer b;
  std::string error;
  EXPECT_FALSE(ReadFileAligned("/nonexistent/model.efb", &b, &error));
  EXPECT_NE(error.find("/nonexistent/model.efb"), std::string::npos);
}

}  // namespace
}  // namespace edgefold::tools
