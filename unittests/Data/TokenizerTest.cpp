//===- TokenizerTest.cpp - Byte-level tokenizer ---------------------------===//

#include "runtime/data/Tokenizer.h"

#include "gtest/gtest.h"

using namespace gptc::data;

namespace {

TEST(TokenizerTest, EveryByteRoundTrips) {
  std::string text;
  for (int b = 0; b < 256; ++b)
    text.push_back(char(b));
  std::vector<uint16_t> tokens = ByteTokenizer::encode(text);
  ASSERT_EQ(tokens.size(), 256u);
  for (int b = 0; b < 256; ++b)
    EXPECT_EQ(tokens[b], b);
  EXPECT_EQ(ByteTokenizer::decode(tokens), text);
}

TEST(TokenizerTest, Utf8TextRoundTrips) {
  std::string text = "Héllo, wörld — ✓\n";
  EXPECT_EQ(ByteTokenizer::decode(ByteTokenizer::encode(text)), text);
}

TEST(TokenizerTest, EncodeAppends) {
  std::vector<uint16_t> tokens = {ByteTokenizer::kBOS};
  ByteTokenizer::encode("hi", tokens);
  EXPECT_EQ(tokens, (std::vector<uint16_t>{256, 'h', 'i'}));
}

TEST(TokenizerTest, BOSAndUnknownIds) {
  EXPECT_EQ(ByteTokenizer::kVocabSize, 257);
  std::vector<int32_t> tokens = {ByteTokenizer::kBOS, 'a', 'b', 300,
                                 ByteTokenizer::kBOS, 'c'};
  EXPECT_EQ(ByteTokenizer::decode(tokens), "<|bos|>ab<|300|><|bos|>c");
  EXPECT_EQ(ByteTokenizer::decode(tokens, /*showBOS=*/false), "ab<|300|>c");
  EXPECT_EQ(ByteTokenizer::decodeToken(-1), "<|-1|>");
  EXPECT_EQ(ByteTokenizer::decodeToken('z'), "z");
}

} // namespace
