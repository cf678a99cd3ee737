//===- SafeTensorsTest.cpp - The safetensors reader and writer ------------===//

#include "runtime/SafeTensors.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

using namespace gptc::runtime;

namespace {

class SafeTensorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gptc-safetensors-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir).c_str()); }

  /// Writes raw `bytes` (an 8-byte length for `header`, the header, then
  /// `data`) to a file and opens it.
  bool openRaw(const std::string &header, const std::string &data,
               std::string &error) {
    std::string path = dir + "/raw.safetensors";
    std::ofstream f(path, std::ios::binary);
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i)
      f.put(char(n >> (8 * i)));
    f << header << data;
    f.close();
    SafeTensorsFile file;
    return file.open(path, error);
  }

  std::string dir;
};

TEST_F(SafeTensorsTest, RoundTripsTensorsAndMetadata) {
  float a[6] = {1, 2, 3, 4, 5, 6.5f};
  int64_t b[1] = {-7};
  uint16_t c[3] = {0x3f80, 0x4000, 0xc040};
  std::string path = dir + "/t.safetensors", error;
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_TRUE(writeSafeTensors(f, path,
                               {{"a", SlotType::F32, {2, 3}, a},
                                {"b.x", SlotType::I64, {}, b},
                                {"c", SlotType::BF16, {3}, c}},
                               {{"format", "pt"}}, error))
      << error;
  std::fclose(f);
  SafeTensorsFile file;
  ASSERT_TRUE(file.open(path, error)) << error;
  ASSERT_EQ(file.tensors().size(), 3u);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  const SafeTensorsFile::Tensor *ta = file.find("a");
  ASSERT_NE(ta, nullptr);
  EXPECT_EQ(ta->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(file.data(*ta), a, sizeof(a)), 0);
  const SafeTensorsFile::Tensor *tb = file.find("b.x");
  ASSERT_NE(tb, nullptr);
  EXPECT_TRUE(tb->shape.empty());
  EXPECT_EQ(tb->dtype, SlotType::I64);
  EXPECT_EQ(std::memcmp(file.data(*tb), b, sizeof(b)), 0);
  EXPECT_EQ(std::memcmp(file.data(*file.find("c")), c, sizeof(c)), 0);
  // The header is padded to 8 bytes, as the format recommends.
  EXPECT_EQ(ta->begin, 0);
  EXPECT_EQ(tb->begin, int64_t(sizeof(a)));
}

TEST_F(SafeTensorsTest, RefusesMalformedFiles) {
  std::string error;
  EXPECT_FALSE(openRaw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
                       "\"data_offsets\":[0,8]}}",
                       "1234", error));
  EXPECT_NE(error.find("data_offsets are outside the 4 data bytes"),
            std::string::npos)
      << error;
  EXPECT_FALSE(openRaw("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],"
                       "\"data_offsets\":[0,8]}}",
                       "12345678", error));
  EXPECT_NE(error.find("tensor 'a': 8 bytes, but its dtype and shape need 12"),
            std::string::npos)
      << error;
  EXPECT_FALSE(openRaw("{\"a\":{\"dtype\":\"Q7\",\"shape\":[1],"
                       "\"data_offsets\":[0,4]}}",
                       "1234", error));
  EXPECT_NE(error.find("dtype 'Q7' is not one of"), std::string::npos) << error;
  EXPECT_FALSE(openRaw("{\"a\":", "", error));
  EXPECT_NE(error.find("the header is not JSON"), std::string::npos) << error;
  EXPECT_FALSE(openRaw("{\"__metadata__\":{\"k\":1}}", "", error));
  EXPECT_NE(error.find("__metadata__.k is not a string"), std::string::npos)
      << error;
  EXPECT_FALSE(openRaw("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],"
                       "\"data_offsets\":[0,0]}}",
                       "", error));
  EXPECT_NE(error.find("bad shape"), std::string::npos) << error;
  // Nesting that would overflow llvm::json's recursive parser is refused
  // before it is parsed.
  EXPECT_FALSE(openRaw(std::string(200000, '['), "", error));
  EXPECT_NE(error.find("nests deeper than a safetensors header does"),
            std::string::npos)
      << error;
  // A header length past the end of the file.
  std::string path = dir + "/short.safetensors";
  std::ofstream(path, std::ios::binary) << std::string("\xff\x00\x00\x00\x00"
                                                       "\x00\x00\x00{}",
                                                       10);
  SafeTensorsFile file;
  EXPECT_FALSE(file.open(path, error));
  EXPECT_NE(error.find("header length 255 is past the end of the file"),
            std::string::npos)
      << error;
}

} // namespace
