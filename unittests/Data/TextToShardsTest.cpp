//===- TextToShardsTest.cpp - Text files -> shards ------------------------===//

#include "runtime/data/TextToShards.h"

#include "runtime/data/Shard.h"
#include "runtime/data/Tokenizer.h"

#include "DataTestUtil.h"

#include <algorithm>

using namespace gptc::data;
using gptc::data::testing::writeFile;

namespace {

class TextToShardsTest : public gptc::data::testing::TempDirTest {
protected:
  std::vector<uint16_t> read(const std::string &name) {
    std::vector<uint16_t> tokens;
    std::string error;
    EXPECT_TRUE(readShard(path(name), tokens, error)) << error;
    return tokens;
  }
  /// BOS + the bytes of each document.
  static std::vector<uint16_t> docs(const std::vector<std::string> &texts) {
    std::vector<uint16_t> tokens;
    for (const std::string &t : texts) {
      tokens.push_back(ByteTokenizer::kBOS);
      ByteTokenizer::encode(t, tokens);
    }
    return tokens;
  }
};

TEST_F(TextToShardsTest, ParagraphsBecomeBOSPrefixedDocuments) {
  // Blank lines (several, or whitespace-only) separate documents; the last
  // line has no newline.
  writeFile(path("in.txt"), "\n\nzero a\nzero b\n\n\n"
                            "one\n \t\n"
                            "two\n\n"
                            "three\n\n"
                            "four");
  MakeShardsOptions options;
  options.valFraction = 0.5; // k = 2: documents 0, 2, 4 to val
  MakeShardsResult r;
  std::string error;
  ASSERT_TRUE(makeShards({path("in.txt")}, path("out"), options, r, error))
      << error;
  EXPECT_EQ(r.documents, 5u);
  EXPECT_EQ(r.valDocuments, 3u);
  EXPECT_EQ(r.trainDocuments, 2u);
  std::vector<uint16_t> val = docs({"zero a\nzero b\n", "two\n", "four"});
  std::vector<uint16_t> train = docs({"one\n", "three\n"});
  EXPECT_EQ(read("out/tiny_val_000000.bin"), val);
  EXPECT_EQ(read("out/tiny_train_000001.bin"), train);
  EXPECT_EQ(r.valTokens, val.size());
  EXPECT_EQ(r.trainTokens, train.size());
  EXPECT_EQ(r.tokens, val.size() + train.size());
  EXPECT_EQ(r.files,
            (std::vector<std::string>{path("out/tiny_val_000000.bin"),
                                      path("out/tiny_train_000001.bin")}));
}

TEST_F(TextToShardsTest, DefaultFractionStillHasAValDocument) {
  writeFile(path("a.txt"), "alpha\n\nbeta\n");
  writeFile(path("b.txt"), "gamma\n");
  MakeShardsResult r;
  std::string error;
  ASSERT_TRUE(makeShards({path("a.txt"), path("b.txt")}, dir,
                         MakeShardsOptions(), r, error))
      << error;
  EXPECT_EQ(valStride(0.05), 20u);
  EXPECT_EQ(r.documents, 3u);
  EXPECT_EQ(r.valDocuments, 1u);
  EXPECT_EQ(read("tiny_val_000000.bin"), docs({"alpha\n"}));
  EXPECT_EQ(read("tiny_train_000001.bin"), docs({"beta\n", "gamma\n"}));
}

TEST_F(TextToShardsTest, ValIsEveryKthDocument) {
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "doc " + std::to_string(i) + "\n\n";
  writeFile(path("in.txt"), text);
  MakeShardsOptions options;
  options.valFraction = 0.1;
  MakeShardsResult r;
  std::string error;
  ASSERT_TRUE(makeShards({path("in.txt")}, dir, options, r, error)) << error;
  EXPECT_EQ(r.valDocuments, 10u);
  std::vector<std::string> val;
  for (int i = 0; i < 100; i += 10)
    val.push_back("doc " + std::to_string(i) + "\n");
  EXPECT_EQ(read("tiny_val_000000.bin"), docs(val));
}

TEST_F(TextToShardsTest, DocPerFile) {
  writeFile(path("a.txt"), "one\n\ntwo\n");
  writeFile(path("b.txt"), "three\n\n\nfour");
  writeFile(path("c.txt"), " \n"); // blank: no document
  MakeShardsOptions options;
  options.docPerFile = true;
  options.prefix = "books";
  MakeShardsResult r;
  std::string error;
  ASSERT_TRUE(makeShards({path("a.txt"), path("b.txt"), path("c.txt")}, dir,
                         options, r, error))
      << error;
  EXPECT_EQ(r.documents, 2u);
  EXPECT_EQ(read("books_val_000000.bin"), docs({"one\n\ntwo\n"}));
  EXPECT_EQ(read("books_train_000001.bin"), docs({"three\n\n\nfour"}));
}

TEST_F(TextToShardsTest, ShardSizeSplitsTheStream) {
  std::string text;
  std::vector<std::string> trainDocs;
  for (int i = 0; i < 40; ++i) {
    std::string d = "document number " + std::to_string(i) + "\n";
    text += d + "\n";
    if (i % 20 != 0)
      trainDocs.push_back(d);
  }
  writeFile(path("in.txt"), text);
  MakeShardsOptions options;
  options.shardTokens = 100;
  MakeShardsResult r;
  std::string error;
  ASSERT_TRUE(makeShards({path("in.txt")}, dir, options, r, error)) << error;
  std::vector<uint16_t> expected = docs(trainDocs), got;
  size_t numTrain = (expected.size() + 99) / 100;
  ASSERT_EQ(r.files.size(), 1 + numTrain);
  for (size_t i = 1; i <= numTrain; ++i) {
    std::vector<uint16_t> part = read(shardFileName("tiny", "train", i));
    EXPECT_EQ(part.size(), i < numTrain ? 100u : expected.size() % 100);
    got.insert(got.end(), part.begin(), part.end());
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(r.trainTokens, expected.size());
}

TEST_F(TextToShardsTest, StaleShardsOfAnEarlierRunAreRemoved) {
  std::string error;
  writeFile(path("in.txt"), "a b c d\n\ne f g h\n\ni j k l\n");
  ASSERT_TRUE(writeShard(path("other_train_000007.bin"),
                         std::vector<uint16_t>{1}, error));
  MakeShardsOptions small;
  small.shardTokens = 2;
  MakeShardsResult first, second;
  ASSERT_TRUE(makeShards({path("in.txt")}, dir, small, first, error)) << error;
  ASSERT_GT(first.files.size(), 2u);
  ASSERT_TRUE(
      makeShards({path("in.txt")}, dir, MakeShardsOptions(), second, error))
      << error;
  // The first run's shards that the second did not rewrite are gone; the
  // shards of another prefix stay.
  std::vector<std::string> stale;
  for (const std::string &f : first.files)
    if (std::find(second.files.begin(), second.files.end(), f) ==
        second.files.end())
      stale.push_back(f);
  std::sort(stale.begin(), stale.end());
  std::vector<std::string> removed = second.removed;
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, stale);
  EXPECT_EQ(listDir(), (std::vector<std::string>{
                           "in.txt", "other_train_000007.bin", "tiny.shards",
                           "tiny_train_000001.bin", "tiny_val_000000.bin"}));
}

TEST_F(TextToShardsTest, ShardsItDidNotWriteAreRefused) {
  std::string error;
  writeFile(path("in.txt"), "a\n\nb\n");
  ASSERT_TRUE(writeShard(path("tiny_train_000007.bin"),
                         std::vector<uint16_t>{1}, error));
  MakeShardsResult r;
  EXPECT_FALSE(
      makeShards({path("in.txt")}, dir, MakeShardsOptions(), r, error));
  EXPECT_EQ(error, path("tiny_train_000007.bin") +
                       ": a shard gptc data did not write (not in " +
                       path("tiny.shards") +
                       "); not replacing it (move it, or choose another -o "
                       "or --prefix)");
  // Nothing written, nothing removed.
  EXPECT_EQ(listDir(),
            (std::vector<std::string>{"in.txt", "tiny_train_000007.bin"}));
}

TEST_F(TextToShardsTest, Errors) {
  MakeShardsResult r;
  std::string error;
  EXPECT_FALSE(makeShards({path("missing.txt")}, path("out"),
                          MakeShardsOptions(), r, error));
  EXPECT_EQ(error,
            path("missing.txt") + ": cannot open: No such file or directory");

  writeFile(path("one.txt"), "only one document\n");
  EXPECT_FALSE(makeShards({path("one.txt")}, path("out"), MakeShardsOptions(),
                          r, error));
  EXPECT_NE(error.find("need at least 2"), std::string::npos) << error;
  EXPECT_TRUE(std::filesystem::is_empty(path("out")));

  MakeShardsOptions bad;
  bad.valFraction = 0.9;
  EXPECT_FALSE(makeShards({path("one.txt")}, path("out"), bad, r, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
}

} // namespace
