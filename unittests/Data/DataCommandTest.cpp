//===- DataCommandTest.cpp - `gptc data` ----------------------------------===//

#include "commands/DataCommand.h"

#include "runtime/data/Shard.h"

#include "DataTestUtil.h"

#include <sstream>

using namespace gptc::commands;
using namespace gptc::data;
using gptc::data::testing::writeFile;

namespace {

class DataCommandTest : public gptc::data::testing::TempDirTest {
protected:
  int run(const std::vector<std::string> &args) {
    out.str("");
    err.str("");
    return runDataCommand(args, out, err);
  }
  std::ostringstream out, err;
};

TEST_F(DataCommandTest, Help) {
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_NE(out.str().find("usage: gptc data TEXT... -o DIR"),
            std::string::npos);
  EXPECT_NE(out.str().find("--val-fraction"), std::string::npos);
  EXPECT_EQ(err.str(), "");
}

TEST_F(DataCommandTest, MakesShardsAndSaysWhatASpecNeeds) {
  writeFile(path("in.txt"), "a\n\nbb\n\nccc\n");
  EXPECT_EQ(run({path("in.txt"), "-o", path("out"), "--val-fraction=0.5",
                 "--prefix", "t", "--shard-tokens", "1e3"}),
            0)
      << err.str();
  EXPECT_EQ(out.str(),
            "gptc data: 3 documents (1 train, 2 val), 12 tokens "
            "(4 train, 8 val), 2 files written to " +
                path("out") +
                "\ngptc data: a spec for these shards needs model.vocab_size "
                ">= 257 and, with a document mask, model.attention.bos_token "
                "= 256 (--set model.vocab_size=257 --set "
                "model.attention.bos_token=256)\n");
  uint64_t n = 0;
  std::string error;
  EXPECT_TRUE(readShardHeader(path("out/t_val_000000.bin"), n, error));
  EXPECT_EQ(n, 8u);
  EXPECT_TRUE(readShardHeader(path("out/t_train_000001.bin"), n, error));
  EXPECT_EQ(n, 4u);
}

TEST_F(DataCommandTest, DocPerFileFlag) {
  writeFile(path("a.txt"), "a\n\nb\n");
  writeFile(path("b.txt"), "c\n");
  EXPECT_EQ(
      run({"--doc-per-file", path("a.txt"), path("b.txt"), "--output", dir}), 0)
      << err.str();
  EXPECT_NE(out.str().find("2 documents (1 train, 1 val)"), std::string::npos)
      << out.str();
}

TEST_F(DataCommandTest, UsageErrors) {
  EXPECT_EQ(run({path("in.txt")}), 2);
  EXPECT_EQ(err.str(), "gptc data: error: no output directory: -o DIR\n");
  EXPECT_EQ(run({"-o", dir}), 2);
  EXPECT_NE(err.str().find("no input text files"), std::string::npos);
  EXPECT_EQ(run({"x", "-o"}), 2);
  EXPECT_EQ(err.str(), "gptc data: error: -o needs a value\n");
  EXPECT_EQ(run({"x", "-o", dir, "--val-fraction", "abc"}), 2);
  EXPECT_NE(err.str().find("--val-fraction 'abc'"), std::string::npos);
  EXPECT_EQ(run({"x", "-o", dir, "--shard-tokens", "1.5"}), 2);
  EXPECT_EQ(run({"x", "-o", dir, "--shard-tokens", "3e9"}), 2);
  EXPECT_EQ(run({"x", "-o", dir, "--frobnicate"}), 2);
  EXPECT_NE(err.str().find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_EQ(run({"x", "-o", dir, "--output", dir}), 2);
  EXPECT_EQ(err.str(), "gptc data: error: --output is given more than once\n");
  EXPECT_EQ(run({"x", "-o", dir, "--shard-tokens", "0x10"}), 2);
  EXPECT_EQ(run({"x", "-o", dir, "--val-fraction", "0x0.1p0"}), 2);
  EXPECT_EQ(run({"x", "-o", dir, "--doc-per-file=1"}), 2);
  EXPECT_EQ(err.str(), "gptc data: error: --doc-per-file takes no value\n");
}

TEST_F(DataCommandTest, InputErrorIsOneLine) {
  EXPECT_EQ(run({path("missing.txt"), "-o", dir}), 1);
  EXPECT_EQ(err.str(), "gptc data: error: " + path("missing.txt") +
                           ": cannot open: No such file or directory\n");
}

} // namespace
