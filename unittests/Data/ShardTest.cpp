//===- ShardTest.cpp - .bin shard reading and writing ---------------------===//

#include "runtime/data/Shard.h"

#include "DataTestUtil.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

using namespace gptc::data;
using gptc::data::testing::readFile;
using gptc::data::testing::shardBytes;
using gptc::data::testing::writeFile;

namespace {

class ShardTest : public gptc::data::testing::TempDirTest {
protected:
  /// Checks that all three readers reject `file` with an error that names
  /// the file and contains each of `parts`.
  void expectRejected(const std::string &file,
                      const std::vector<std::string> &parts) {
    std::string e1, e2, e3;
    uint64_t n = 0;
    EXPECT_FALSE(readShardHeader(file, n, e1));
    std::vector<uint16_t> tokens;
    EXPECT_FALSE(readShard(file, tokens, e2));
    Shard shard;
    EXPECT_FALSE(shard.open(file, e3));
    EXPECT_FALSE(shard.isOpen());
    EXPECT_EQ(e1, e2);
    EXPECT_EQ(e1, e3);
    EXPECT_EQ(e1.rfind(file + ": ", 0), 0u) << e1;
    EXPECT_EQ(e1.find('\n'), std::string::npos) << e1;
    for (const std::string &p : parts)
      EXPECT_NE(e1.find(p), std::string::npos)
          << "'" << p << "' not in: " << e1;
  }
};

TEST_F(ShardTest, RoundTrip) {
  std::vector<uint16_t> tokens = {0, 1, 256, 50256, 65535, 7, 7, 42};
  std::string file = path("a.bin");
  std::string error;
  ASSERT_TRUE(writeShard(file, tokens, error)) << error;

  std::string bytes = readFile(file);
  ASSERT_EQ(bytes.size(), 1024 + 2 * tokens.size());
  EXPECT_EQ(bytes, shardBytes(20240520, 1, int32_t(tokens.size()), tokens));

  uint64_t n = 0;
  ASSERT_TRUE(readShardHeader(file, n, error)) << error;
  EXPECT_EQ(n, tokens.size());

  std::vector<uint16_t> back;
  ASSERT_TRUE(readShard(file, back, error)) << error;
  EXPECT_EQ(back, tokens);

  Shard shard;
  ASSERT_TRUE(shard.open(file, error)) << error;
  EXPECT_EQ(shard.path(), file);
  ASSERT_EQ(shard.size(), tokens.size());
  EXPECT_EQ(std::vector<uint16_t>(shard.tokens(), shard.tokens() + n), tokens);
  EXPECT_EQ(shard[3], 50256);

  Shard moved = std::move(shard);
  EXPECT_FALSE(shard.isOpen());
  EXPECT_EQ(moved[4], 65535);
}

TEST_F(ShardTest, LargeRoundTrip) {
  std::vector<uint16_t> tokens(3000001);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = uint16_t(i * 2654435761u >> 7);
  std::string file = path("big.bin"), error;
  ASSERT_TRUE(writeShard(file, tokens, error)) << error;
  Shard shard;
  ASSERT_TRUE(shard.open(file, error)) << error;
  ASSERT_EQ(shard.size(), tokens.size());
  EXPECT_EQ(0, std::memcmp(shard.tokens(), tokens.data(), 2 * tokens.size()));
}

TEST_F(ShardTest, EmptyShard) {
  std::string file = path("empty.bin"), error;
  ASSERT_TRUE(writeShard(file, std::vector<uint16_t>(), error)) << error;
  EXPECT_EQ(readFile(file).size(), 1024u);
  Shard shard;
  ASSERT_TRUE(shard.open(file, error)) << error;
  EXPECT_EQ(shard.size(), 0u);
}

TEST_F(ShardTest, AtomicWriteLeavesNoTempFile) {
  std::string file = path("x.bin"), error;
  ASSERT_TRUE(writeShard(file, std::vector<uint16_t>{1, 2, 3}, error));
  // Overwriting replaces the file whole.
  ASSERT_TRUE(writeShard(file, std::vector<uint16_t>{4, 5}, error));
  EXPECT_EQ(listDir(), std::vector<std::string>{"x.bin"});
  std::vector<uint16_t> back;
  ASSERT_TRUE(readShard(file, back, error));
  EXPECT_EQ(back, (std::vector<uint16_t>{4, 5}));
}

TEST_F(ShardTest, WriteFailureNamesTheFile) {
  std::string file = path("no/such/dir/x.bin"), error;
  EXPECT_FALSE(writeShard(file, std::vector<uint16_t>{1}, error));
  EXPECT_NE(error.find("no/such/dir/x.bin.tmp."), std::string::npos) << error;
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
  EXPECT_TRUE(listDir().empty());
}

TEST_F(ShardTest, BadMagic) {
  std::string file = path("magic.bin");
  writeFile(file, shardBytes(12345, 1, 2, {1, 2}));
  expectRejected(file, {"bad magic 12345", "expected 20240520"});
}

TEST_F(ShardTest, BadVersion) {
  std::string file = path("version.bin");
  writeFile(file, shardBytes(20240520, 2, 2, {1, 2}));
  expectRejected(file, {"unsupported version 2", "expected 1"});
}

TEST_F(ShardTest, SizeMismatchTrailingBytes) {
  std::string file = path("size.bin");
  std::string bytes = shardBytes(20240520, 1, 2, {1, 2});
  bytes.push_back('x');
  writeFile(file, bytes);
  expectRejected(file, {"size mismatch", "2 tokens", "1028 bytes",
                        "file has 1029 bytes", "trailing"});
}

TEST_F(ShardTest, CountLargerThanBody) {
  std::string file = path("count.bin");
  writeFile(file, shardBytes(20240520, 1, 10, {1, 2, 3, 4, 5}));
  expectRejected(file, {"size mismatch", "10 tokens", "1044 bytes",
                        "file has 1034 bytes", "body truncated"});
}

TEST_F(ShardTest, NegativeCount) {
  std::string file = path("neg.bin");
  writeFile(file, shardBytes(20240520, 1, -3, {}));
  expectRejected(file, {"negative token count -3"});
}

TEST_F(ShardTest, TruncatedHeader) {
  std::string file = path("short.bin");
  writeFile(file, shardBytes(20240520, 1, 0, {}).substr(0, 100));
  expectRejected(file, {"truncated header (100 of 1024 bytes)"});
  writeFile(file, "");
  expectRejected(file, {"truncated header (0 of 1024 bytes)"});
}

TEST_F(ShardTest, UnreadableFile) {
  expectRejected(path("missing.bin"),
                 {"cannot open", "No such file or directory"});
  expectRejected(dir, {"not a regular file (a directory)"});
  // A FIFO is refused without being opened (opening would block).
  std::string fifo = path("fifo.bin");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expectRejected(fifo, {"not a regular file (a FIFO)"});
  // A symlink loop is named as such.
  std::string loop = path("loop.bin");
  ASSERT_EQ(symlink(loop.c_str(), loop.c_str()), 0);
  expectRejected(loop, {"a symbolic link loop"});
}

TEST_F(ShardTest, GlobIsSortedAndEmptyGlobFails) {
  std::string error;
  for (const char *name : {"s_000002.bin", "s_000000.bin", "s_000010.bin"})
    ASSERT_TRUE(writeShard(path(name), std::vector<uint16_t>{1}, error));
  std::vector<std::string> files;
  ASSERT_TRUE(expandShardGlob(path("s_*.bin"), files, error)) << error;
  EXPECT_EQ(files, (std::vector<std::string>{path("s_000000.bin"),
                                             path("s_000002.bin"),
                                             path("s_000010.bin")}));
  EXPECT_FALSE(expandShardGlob(path("t_*.bin"), files, error));
  EXPECT_EQ(error, path("t_*.bin") +
                       ": no files match (make token shards with "
                       "gptc data TEXT... -o DIR; see gptc data --help)");
  EXPECT_TRUE(files.empty());
}

} // namespace
