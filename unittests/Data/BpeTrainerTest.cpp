//===- BpeTrainerTest.cpp - Learning a byte-level BPE vocabulary ----------===//

#include "runtime/data/BpeTrainer.h"

#include "DataTestUtil.h"
#include "runtime/data/BpeTokenizer.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cctype>
#include <random>

using namespace gptc::data;
using gptc::data::testing::readFile;
using gptc::data::testing::TempDirTest;

namespace {

/// The ranks learned past the 256 bytes.
std::vector<std::string> learned(const BpeTrainResult &result) {
  return std::vector<std::string>(result.tokens.begin() + 256,
                                  result.tokens.end());
}

BpeTrainResult train(const std::vector<std::string_view> &texts,
                     int64_t numTokens) {
  BpeTrainResult result;
  std::string error;
  EXPECT_TRUE(trainBpe(texts, numTokens, result, error)) << error;
  return result;
}

/// About `bytes` bytes of English-like text: sentences of Zipf-distributed
/// words (common English words and made-up ones), with capitals,
/// punctuation, contractions, numbers, a little non-ASCII and line breaks.
std::string englishLike(size_t bytes, uint32_t seed) {
  std::vector<std::string> words = {
      "the",     "and",    "of",    "to",    "in",     "that",     "he",
      "shall",   "unto",   "for",   "i",     "his",    "a",        "lord",
      "they",    "be",     "is",    "him",   "not",    "them",     "it",
      "with",    "all",    "thou",  "was",   "which",  "my",       "said",
      "me",      "have",   "from",  "god",   "will",   "ye",       "their",
      "upon",    "were",   "house", "king",  "people", "day",      "land",
      "son",     "before", "men",   "there", "when",   "children", "came",
      "against", "city",   "water", "went",  "made",   "great",    "café",
      "naïve",   "façade", "über",  "déjà",  "vu"};
  const char *syllables[] = {"ka",  "lo", "mi",  "ter", "an",  "dor", "el",
                             "ith", "ro", "sen", "va",  "qui", "st",  "ph"};
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    std::string w;
    int n = 1 + int(rng() % 3);
    for (int k = 0; k < n; ++k)
      w += syllables[rng() % (sizeof(syllables) / sizeof(*syllables))];
    words.push_back(w);
  }
  std::vector<double> weights;
  for (size_t k = 0; k < words.size(); ++k)
    weights.push_back(1.0 / double(k + 1));
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  std::string text;
  while (text.size() < bytes) {
    int n = 4 + int(rng() % 16);
    for (int k = 0; k < n; ++k) {
      std::string w = words[pick(rng)];
      if (k == 0)
        w[0] = char(std::toupper(static_cast<unsigned char>(w[0])));
      if (rng() % 40 == 0)
        w += "'s";
      if (rng() % 50 == 0)
        w = std::to_string(rng() % 150) + ":" + std::to_string(rng() % 40);
      text += w;
      if (k + 1 < n)
        text += rng() % 10 == 0 ? ", " : " ";
    }
    const char *ends[] = {".", ".", ".", "?", "!", ";"};
    text += ends[rng() % 6];
    text += rng() % 4 == 0 ? "\n" : rng() % 20 == 0 ? "\n\n" : " ";
  }
  return text;
}

TEST(BpeTrainerTest, HandComputedMerges) {
  // Pieces "aaab", " aaab", " ab", once each:
  //   (a,a) 4, (a,b) 3, (' ',a) 2          -> "aa"
  //   aa a b | ' ' aa a b | ' ' a b:
  //   (a,b) 3, (aa,a) 2, (' ',aa) 1, ...   -> "ab"
  //   aa ab | ' ' aa ab | ' ' ab:
  //   (aa,ab) 2, (' ',aa) 1, (' ',ab) 1    -> "aaab"
  //   aaab | ' ' aaab | ' ' ab: no pair occurs twice.
  BpeTrainResult result = train({"aaab aaab ab"}, 1000);
  ASSERT_EQ(result.tokens.size(), 259u);
  for (int b = 0; b < 256; ++b)
    EXPECT_EQ(result.tokens[size_t(b)], std::string(1, char(b)));
  EXPECT_EQ(learned(result), (std::vector<std::string>{"aa", "ab", "aaab"}));

  // numTokens caps the ranks.
  EXPECT_EQ(learned(train({"aaab aaab ab"}, 257)),
            (std::vector<std::string>{"aa"}));
  EXPECT_EQ(train({"aaab aaab ab"}, 256).tokens.size(), 256u);
}

TEST(BpeTrainerTest, PieceCountsWeightPairs) {
  // Pieces "xy" once, " xy" twice (one text), "ab" twice (two texts):
  //   (x,y) 3, (' ',x) 2, (a,b) 2              -> "xy"
  //   (' ',xy) 2, (a,b) 2: " xy" < "ab"        -> " xy", then "ab"
  // No pair crosses a piece: "y " never forms.
  EXPECT_EQ(learned(train({"xy xy xy", "ab", "ab"}, 1000)),
            (std::vector<std::string>{"xy", " xy", "ab"}));
}

TEST(BpeTrainerTest, ZeroBytesAreOrdinaryBytes) {
  std::string zeros(2, '\0');
  EXPECT_EQ(learned(train({zeros, zeros}, 1000)),
            (std::vector<std::string>{zeros}));
}

TEST(BpeTrainerTest, OverlappingPairsMergeLeftToRight) {
  // "aaaaa" twice: (a,a) 8 -> aa aa a (not a aa aa); then (aa,aa) and
  // (aa,a) 2 each, "aaa" < "aaaa" -> aa aaa; then (aa,aaa) 2 -> "aaaaa".
  EXPECT_EQ(learned(train({"aaaaa", "aaaaa"}, 1000)),
            (std::vector<std::string>{"aa", "aaa", "aaaaa"}));
}

TEST(BpeTrainerTest, TiesGoToTheSmallestJoinedBytes) {
  // (a,b) and (c,d) both occur twice: "ab" < "cd", whatever the order.
  EXPECT_EQ(learned(train({"cd", "cd", "ab", "ab"}, 1000)),
            (std::vector<std::string>{"ab", "cd"}));
  EXPECT_EQ(learned(train({"ab", "cd", "ab", "cd"}, 1000)),
            (std::vector<std::string>{"ab", "cd"}));
  // Bytes compare unsigned: "yz" (0x79) before "é" (0xc3 0xa9).
  EXPECT_EQ(learned(train({"\xc3\xa9", "\xc3\xa9", "yz", "yz"}, 1000)),
            (std::vector<std::string>{"yz", "\xc3\xa9"}));
  // The count wins over the bytes ("zz", 3), then " c" (0x20) before "ab"
  // and "cd"; then " cd" before "ab".
  EXPECT_EQ(learned(train({"ab cd", "ab cd", "zz", "zz", "zz"}, 1000)),
            (std::vector<std::string>{"zz", " c", " cd", "ab"}));
}

TEST(BpeTrainerTest, DeterministicAcrossTextOrder) {
  std::string text = englishLike(100000, 7);
  std::vector<std::string_view> texts;
  for (size_t i = 0; i < text.size(); i += 1000)
    texts.push_back(std::string_view(text).substr(i, 1000));
  BpeTrainResult first = train(texts, 600);
  std::mt19937 rng(3);
  std::shuffle(texts.begin(), texts.end(), rng);
  BpeTrainResult second = train(texts, 600);
  EXPECT_EQ(first.tokens.size(), 600u);
  EXPECT_EQ(first.tokens, second.tokens);
}

TEST(BpeTrainerTest, StopsEarlyWhenNoPairRepeats) {
  // Every pair occurs once: nothing to learn, and not an error.
  BpeTrainResult result = train({"abcdefg hij"}, 1000);
  EXPECT_EQ(result.tokens.size(), 256u);
  EXPECT_EQ(train({}, 1000).tokens.size(), 256u);
  // Single bytes have no pairs at all.
  EXPECT_EQ(train({"a", "a", "b", " "}, 1000).tokens.size(), 256u);
}

TEST(BpeTrainerTest, NumTokensOutOfRange) {
  BpeTrainResult result;
  std::string error;
  EXPECT_FALSE(trainBpe({"ab ab"}, 255, result, error));
  EXPECT_EQ(error, "numTokens 255 out of range [256, 65535]");
  EXPECT_FALSE(trainBpe({"ab ab"}, 65536, result, error));
  EXPECT_EQ(error, "numTokens 65536 out of range [256, 65535]");
}

TEST(BpeTrainerTest, ProgressIsBoundedAndEndsWithTheResult) {
  std::string text = englishLike(50000, 11);
  BpeTrainResult result;
  std::string error;
  std::vector<std::pair<int64_t, int64_t>> calls;
  ASSERT_TRUE(
      trainBpe({text}, 756, result, error, [&](int64_t done, int64_t total) {
        calls.push_back({done, total});
      }));
  ASSERT_FALSE(calls.empty());
  EXPECT_LE(calls.size(), 101u);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, 500);
    if (i > 0) {
      EXPECT_GT(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, int64_t(result.tokens.size()) - 256);

  // Stopping early: the last call says how far it got.
  calls.clear();
  ASSERT_TRUE(trainBpe(
      {"aaab aaab ab"}, 1000, result, error,
      [&](int64_t done, int64_t total) { calls.push_back({done, total}); }));
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), (std::pair<int64_t, int64_t>{3, 744}));
}

class BpeTrainerFileTest : public TempDirTest {};

TEST_F(BpeTrainerFileTest, WritesTiktokenFormat) {
  BpeTrainResult result = train({"aaab aaab ab"}, 1000);
  std::string error;
  std::string path = this->path("vocab.tiktoken");
  ASSERT_TRUE(writeTiktoken(path, result.tokens, error)) << error;
  std::string file = readFile(path);
  EXPECT_EQ(file.substr(0, 18), "AA== 0\nAQ== 1\nAg==");
  // 'a' is 97 = "YQ==", then the learned ranks.
  EXPECT_NE(file.find("\nYQ== 97\n"), std::string::npos);
  EXPECT_NE(file.find("\n/w== 255\nYWE= 256\nYWI= 257\nYWFhYg== 258\n"),
            std::string::npos);
  EXPECT_EQ(file.back(), '\n');
  // Only the file: the temporary was renamed.
  EXPECT_EQ(listDir(), (std::vector<std::string>{"vocab.tiktoken"}));

  // A missing directory: the error names the path.
  std::string bad = this->path("missing/vocab.tiktoken");
  EXPECT_FALSE(writeTiktoken(bad, result.tokens, error));
  EXPECT_NE(error.find(bad), std::string::npos) << error;
  // An empty token cannot be written (the reader would reject it).
  std::vector<std::string> tokens = result.tokens;
  tokens.push_back("");
  EXPECT_FALSE(writeTiktoken(path, tokens, error));
  EXPECT_NE(error.find("token 259 is empty"), std::string::npos) << error;
}

TEST_F(BpeTrainerFileTest, LearnedVocabularyRoundTrips) {
  std::string text = englishLike(300000, 1);
  BpeTrainResult result = train({text}, 1000);
  ASSERT_EQ(result.tokens.size(), 1000u);
  std::string error;
  std::string path = this->path("vocab.tiktoken");
  ASSERT_TRUE(writeTiktoken(path, result.tokens, error)) << error;
  BpeTokenizer bpe;
  ASSERT_TRUE(bpe.load(path, error)) << error;
  EXPECT_EQ(bpe.vocabSize(), 1001);
  for (size_t r = 0; r < result.tokens.size(); ++r)
    EXPECT_EQ(bpe.decode(uint16_t(r)), result.tokens[r]);

  auto roundTrip = [&](const std::string &input, size_t &numIds) {
    std::vector<uint16_t> ids;
    bpe.encode(input, ids);
    numIds = ids.size();
    std::string back;
    for (uint16_t id : ids) {
      EXPECT_LT(id, 1000);
      back += bpe.decode(id);
    }
    return back;
  };
  size_t numIds = 0;
  EXPECT_TRUE(roundTrip(text, numIds) == text);
  EXPECT_LT(numIds, text.size() / 2);

  std::mt19937 rng(42);
  std::string noise(1 << 20, '\0');
  for (char &c : noise)
    c = char(rng() & 0xff);
  EXPECT_TRUE(roundTrip(noise, numIds) == noise);
}

TEST_F(BpeTrainerFileTest, EachLearnedPieceEncodesToItsRank) {
  // Merges are learned in rank order, so encoding a learned token's bytes
  // (when they are one pre-tokenised piece) retraces its merges.
  std::string text = englishLike(300000, 5);
  BpeTrainResult result = train({text}, 1500);
  ASSERT_EQ(result.tokens.size(), 1500u);
  std::string path = this->path("vocab.tiktoken"), error;
  ASSERT_TRUE(writeTiktoken(path, result.tokens, error)) << error;
  BpeTokenizer bpe;
  ASSERT_TRUE(bpe.load(path, error)) << error;
  int checked = 0;
  for (size_t r = 256; r < result.tokens.size(); ++r) {
    const std::string &bytes = result.tokens[r];
    if (BpeTokenizer::split(bytes).size() != 1)
      continue;
    std::vector<uint16_t> ids;
    bpe.encode(bytes, ids);
    EXPECT_EQ(ids, std::vector<uint16_t>{uint16_t(r)}) << "'" << bytes << "'";
    ++checked;
  }
  // Most learned tokens are one piece; not all: a token may end inside a
  // UTF-8 sequence ("caf\xc3"), which split() cuts off as a symbol.
  EXPECT_GT(checked, (1500 - 256) * 9 / 10);
}

} // namespace
