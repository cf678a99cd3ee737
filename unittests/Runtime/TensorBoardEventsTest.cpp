//===- TensorBoardEventsTest.cpp - Event files, CRC-32C, TFRecords --------===//
//
// The expected bytes come from TensorBoard's own Python package
// (tensorboard 2.21: event_pb2.Event(...).SerializeToString() and
// record_writer.RecordWriter), so an encoding that only agrees with itself
// does not pass.
//
//===----------------------------------------------------------------------===//

#include "runtime/TensorBoardEvents.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace gptc::runtime;

namespace {

std::string hex(const std::string &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

uint32_t le32(const std::string &s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(uint8_t(s[at + i])) << (8 * i);
  return v;
}

TEST(TensorBoardEventsTest, Crc32cKnownVectors) {
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c("", 0), 0u);
  // RFC 3720 (iSCSI), B.4: 32 bytes of zeros, 32 bytes of 0xff.
  std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8a9136aau);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62a8ab43u);
}

TEST(TensorBoardEventsTest, MaskedCrc) {
  uint32_t crc = 0xe3069283u;
  EXPECT_EQ(maskedCrc32c("123456789", 9),
            ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
}

TEST(TensorBoardEventsTest, RecordFraming) {
  std::string record = tfRecord("hello");
  // TensorBoard's RecordWriter writes these bytes for b"hello".
  EXPECT_EQ(hex(record), "0500000000000000"
                         "eab2043e"
                         "68656c6c6f"
                         "bb1f1c19");
  ASSERT_EQ(record.size(), 8u + 4u + 5u + 4u);
  EXPECT_EQ(le32(record, 8), maskedCrc32c(record.data(), 8));
  EXPECT_EQ(le32(record, 17), maskedCrc32c("hello", 5));
  // An empty record is 16 bytes of framing.
  EXPECT_EQ(tfRecord("").size(), 16u);
}

TEST(TensorBoardEventsTest, EventsEncodeAsTensorBoardsProtobuf) {
  EXPECT_EQ(hex(fileVersionEvent(1.5)),
            "09000000000000f83f1a0d627261696e2e4576656e743a32");
  EXPECT_EQ(hex(scalarEvent(1.5, 3, "train/loss", 2.5f)),
            "09000000000000f83f10032a130a110a0a747261696e2f6c6f7373150000"
            "2040");
  // A step past one varint byte, a negative value.
  EXPECT_EQ(hex(scalarEvent(1.5, 300, "t", -0.25f)),
            "09000000000000f83f10ac022a0a0a080a017415000080be");
  // SessionLog{status: START}; a step of 0 is left out, as proto3 does.
  EXPECT_EQ(hex(sessionStartEvent(1.5, 3)), "09000000000000f83f10033a020801");
  EXPECT_EQ(hex(sessionStartEvent(1.5, 0)), "09000000000000f83f3a020801");
}

class TensorBoardWriterTest : public gptc::runtime::testing::TempDirTest {};

TEST_F(TensorBoardWriterTest, WritesAFileOfRecords) {
  TensorBoardWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(path("runs/a"), 0, error)) << error;
  ASSERT_TRUE(writer.scalar("train/loss", 1, 2.5, error)) << error;
  std::string name = std::filesystem::path(writer.path()).filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u) << name;
  EXPECT_NE(name.find(".gptc"), std::string::npos) << name;
  // Flushed as written: readable while the writer is open.
  std::ifstream in(writer.path(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  size_t at = 0, records = 0;
  while (at + 12 <= bytes.size()) {
    uint64_t n = le32(bytes, at) | uint64_t(le32(bytes, at + 4)) << 32;
    ASSERT_EQ(le32(bytes, at + 8), maskedCrc32c(bytes.data() + at, 8));
    ASSERT_LE(at + 12 + n + 4, bytes.size());
    EXPECT_EQ(le32(bytes, at + 12 + n),
              maskedCrc32c(bytes.data() + at + 12, size_t(n)));
    at += 12 + n + 4;
    ++records;
  }
  EXPECT_EQ(at, bytes.size());
  EXPECT_EQ(records, 3u);
  // A second writer in the same second gets a file of its own.
  TensorBoardWriter second;
  ASSERT_TRUE(second.open(path("runs/a"), 0, error)) << error;
  EXPECT_NE(second.path(), writer.path());
}

TEST_F(TensorBoardWriterTest, ADirectoryThatCannotBeMadeIsOneLine) {
  gptc::runtime::testing::writeFile(path("file"), "x");
  TensorBoardWriter writer;
  std::string error;
  EXPECT_FALSE(writer.open(path("file/sub"), 0, error));
  EXPECT_NE(error.find(path("file")), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

} // namespace
