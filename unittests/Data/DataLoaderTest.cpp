//===- DataLoaderTest.cpp - Distributed token loader ----------------------===//

#include "runtime/data/DataLoader.h"

#include "DataTestUtil.h"

using namespace gptc::data;

namespace {

class DataLoaderTest : public gptc::data::testing::TempDirTest {
protected:
  /// Writes shards of the given sizes holding one running count (mod
  /// 60000) across all of them, so every token names its place.
  void makeShards(const std::string &prefix, const std::vector<size_t> &sizes) {
    uint32_t next = 0;
    for (size_t s = 0; s < sizes.size(); ++s) {
      std::vector<uint16_t> tokens(sizes[s]);
      for (uint16_t &t : tokens)
        t = uint16_t(next++ % 60000);
      std::string error;
      ASSERT_TRUE(writeShard(path(prefix + "_" + std::to_string(s) + ".bin"),
                             tokens, error))
          << error;
    }
  }

  DataLoaderOptions options(const std::string &prefix, int64_t B, int64_t T,
                            int rank = 0, int world = 1) {
    DataLoaderOptions o;
    o.pattern = path(prefix + "_*.bin");
    o.batchSize = B;
    o.seqLen = T;
    o.rank = rank;
    o.worldSize = world;
    o.vocabSize = 65536;
    return o;
  }

  struct Batch {
    std::vector<int32_t> inputs, targets;
  };

  /// The first `steps` batches of a loader with options `o`.
  std::vector<Batch> read(const DataLoaderOptions &o, int steps) {
    DataLoader loader;
    std::string error;
    EXPECT_TRUE(loader.init(o, error)) << error;
    std::vector<Batch> batches(steps);
    for (Batch &b : batches)
      EXPECT_TRUE(loader.next(b.inputs, b.targets, error)) << error;
    return batches;
  }
};

TEST_F(DataLoaderTest, WindowLayout) {
  makeShards("s", {1000});
  // Rank 1 of 2, B=2, T=4: step 0 reads tokens[8 : 17], step 1 [24 : 33].
  std::vector<Batch> b = read(options("s", 2, 4, 1, 2), 2);
  EXPECT_EQ(b[0].inputs, (std::vector<int32_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(b[0].targets,
            (std::vector<int32_t>{9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(b[1].inputs[0], 24);
  EXPECT_EQ(b[1].targets[7], 32);
}

TEST_F(DataLoaderTest, RanksTogetherReadWhatOneRankReads) {
  // Sizes that cross shard boundaries at odd places, and wrap.
  makeShards("s", {1000, 333, 2049});
  const int B = 2, T = 16, W = 4, steps = 100;
  std::vector<Batch> single = read(options("s", W * B, T), steps);
  std::vector<std::vector<Batch>> ranks;
  for (int r = 0; r < W; ++r)
    ranks.push_back(read(options("s", B, T, r, W), steps));
  for (int s = 0; s < steps; ++s) {
    std::vector<int32_t> inputs, targets;
    for (int r = 0; r < W; ++r) {
      const Batch &b = ranks[r][s];
      inputs.insert(inputs.end(), b.inputs.begin(), b.inputs.end());
      targets.insert(targets.end(), b.targets.begin(), b.targets.end());
      // Targets are the inputs shifted by one.
      for (int i = 0; i + 1 < B * T; ++i)
        ASSERT_EQ(b.targets[i], b.inputs[i + 1]);
      ASSERT_EQ((b.inputs.back() + 1) % 60000, b.targets.back());
    }
    ASSERT_EQ(inputs, single[s].inputs) << "step " << s;
    ASSERT_EQ(targets, single[s].targets) << "step " << s;
  }
}

TEST_F(DataLoaderTest, ShardBoundaryAndEpochs) {
  // B*T*W = 32; shard 0 (100 tokens) holds floor(99 / 32) = 3 steps, shard
  // 1 (70 tokens) holds 2.
  makeShards("s", {100, 70});
  DataLoader loader;
  std::string error;
  ASSERT_TRUE(loader.init(options("s", 4, 8), error)) << error;
  EXPECT_EQ(loader.files().size(), 2u);
  EXPECT_EQ(loader.totalTokens(), 170u);
  std::vector<int32_t> in, tg;
  struct Where {
    size_t shard;
    uint64_t pos, epoch;
    int32_t first;
  };
  std::vector<Where> expected = {
      {0, 0, 0, 0},    {0, 32, 0, 32}, {0, 64, 0, 64}, {1, 0, 0, 100},
      {1, 32, 0, 132}, {0, 0, 1, 0},   {0, 32, 1, 32}};
  for (const Where &w : expected) {
    ASSERT_TRUE(loader.next(in, tg, error)) << error;
    EXPECT_EQ(loader.shardIndex(), w.shard);
    EXPECT_EQ(loader.position(), w.pos);
    EXPECT_EQ(loader.epoch(), w.epoch);
    EXPECT_EQ(in[0], w.first);
    EXPECT_EQ(tg.back(), w.first + 32);
  }
  EXPECT_EQ(loader.steps(), 7);
  loader.reset();
  ASSERT_TRUE(loader.next(in, tg, error));
  EXPECT_EQ(in[0], 0);
  EXPECT_EQ(loader.epoch(), 0u);
}

TEST_F(DataLoaderTest, SeekContinuesTheStreamAcrossShardsAndEpochs) {
  // A loader stopped after k batches, and a new one seeked to its
  // nextPosition(), read the same batches as one that never stopped; with
  // and without prefetch, over a shard boundary and an epoch.
  makeShards("s", {100, 70});
  for (bool prefetch : {false, true}) {
    DataLoaderOptions o = options("s", 4, 8);
    o.prefetch = prefetch;
    std::vector<Batch> whole = read(o, 9);
    for (int k = 0; k <= 8; ++k) {
      DataLoader first, second;
      std::string error;
      ASSERT_TRUE(first.init(o, error)) << error;
      std::vector<int32_t> in, tg;
      for (int i = 0; i < k; ++i)
        ASSERT_TRUE(first.next(in, tg, error)) << error;
      ASSERT_TRUE(second.init(o, error)) << error;
      ASSERT_TRUE(second.seek(first.nextPosition(), error)) << error;
      for (int i = k; i < 9; ++i) {
        ASSERT_TRUE(second.next(in, tg, error)) << error;
        EXPECT_EQ(in, whole[size_t(i)].inputs) << "k " << k << " i " << i;
        EXPECT_EQ(tg, whole[size_t(i)].targets);
      }
    }
  }
}

TEST_F(DataLoaderTest, SeekRefusesWhatIsNotABatchStart) {
  makeShards("s", {100, 70});
  DataLoader loader;
  std::string error;
  ASSERT_TRUE(loader.init(options("s", 4, 8), error)) << error;
  EXPECT_FALSE(loader.seek({2, 0, 0}, error)); // no shard 2
  EXPECT_NE(error.find("no batch starts at token 0 of shard 2"),
            std::string::npos)
      << error;
  EXPECT_FALSE(loader.seek({0, 16, 0}, error)); // not a multiple of 32
  EXPECT_FALSE(loader.seek({1, 64, 0}, error)); // past shard 1's last step
  EXPECT_TRUE(loader.seek({1, 32, 3}, error)) << error;
  std::vector<int32_t> in, tg;
  ASSERT_TRUE(loader.next(in, tg, error)) << error;
  EXPECT_EQ(in[0], 132);
  EXPECT_EQ(loader.epoch(), 3u);
}

TEST_F(DataLoaderTest, ValidationIsFixedAndRepeatable) {
  makeShards("val", {1000});
  DataLoaderOptions o = options("val", 2, 8, 1, 2);
  o.valTokens = 96; // 3 steps of 32
  DataLoader loader;
  std::string error;
  ASSERT_TRUE(loader.init(o, error)) << error;
  EXPECT_TRUE(loader.isValidation());
  EXPECT_EQ(loader.valSteps(), 3);
  std::vector<std::vector<int32_t>> first;
  std::vector<int32_t> in, tg;
  for (int s = 0; s < 3; ++s) {
    ASSERT_TRUE(loader.next(in, tg, error)) << error;
    EXPECT_EQ(in[0], 32 * s + 16);
    first.push_back(in);
  }
  EXPECT_FALSE(loader.next(in, tg, error));
  EXPECT_NE(error.find("validation steps are done"), std::string::npos)
      << error;
  for (int pass = 0; pass < 2; ++pass) {
    loader.reset();
    for (int s = 0; s < 3; ++s) {
      ASSERT_TRUE(loader.next(in, tg, error)) << error;
      EXPECT_EQ(in, first[s]);
    }
  }
}

TEST_F(DataLoaderTest, ValidationNeedsEnoughTokens) {
  makeShards("val", {100});
  DataLoaderOptions o = options("val", 4, 8);
  o.valTokens = 128; // 4 steps of 32; the shard holds 3
  DataLoader loader;
  std::string error;
  EXPECT_FALSE(loader.init(o, error));
  EXPECT_NE(error.find("hold 3 steps of 32 tokens (100 tokens), fewer than "
                       "the 4 needed"),
            std::string::npos)
      << error;
  o.valTokens = 100;
  EXPECT_FALSE(loader.init(o, error));
  EXPECT_NE(error.find("not a multiple of B*T*W = 32"), std::string::npos)
      << error;
}

TEST_F(DataLoaderTest, TokenOutOfVocabNamesShardAndOffset) {
  std::vector<uint16_t> tokens(100, 'a');
  tokens[45] = 300;
  std::string file = path("bad_0.bin"), error;
  ASSERT_TRUE(writeShard(file, tokens, error));
  DataLoaderOptions o = options("bad", 1, 16);
  o.vocabSize = 257;
  // Found when the loader starts, not when its batch (the third) comes up.
  DataLoader loader;
  EXPECT_FALSE(loader.init(o, error));
  EXPECT_EQ(error, file + ": token 300 at token offset 45 (byte 1114) is >= "
                          "the vocab size 257");
}

TEST_F(DataLoaderTest, PrefetchGivesTheSameBatches) {
  makeShards("s", {1000, 333, 2049});
  DataLoaderOptions o = options("s", 2, 16, 1, 3);
  std::vector<Batch> plain = read(o, 150);
  o.prefetch = true;
  std::vector<Batch> pre = read(o, 150);
  for (size_t s = 0; s < plain.size(); ++s) {
    ASSERT_EQ(plain[s].inputs, pre[s].inputs) << "step " << s;
    ASSERT_EQ(plain[s].targets, pre[s].targets) << "step " << s;
  }

  // Validation with prefetch stops and resets the same way.
  o.valTokens = 96 * 5;
  DataLoader loader;
  std::string error;
  ASSERT_TRUE(loader.init(o, error)) << error;
  std::vector<int32_t> in, tg;
  for (int pass = 0; pass < 2; ++pass) {
    for (int s = 0; s < 5; ++s) {
      ASSERT_TRUE(loader.next(in, tg, error)) << error;
      EXPECT_EQ(in, plain[s].inputs);
    }
    EXPECT_FALSE(loader.next(in, tg, error));
    loader.reset();
  }
}

TEST_F(DataLoaderTest, InitErrors) {
  DataLoader loader;
  std::string error;
  EXPECT_FALSE(loader.init(options("none", 2, 8), error));
  EXPECT_EQ(error, path("none_*.bin") +
                       ": no files match (make token shards "
                       "with gptc data TEXT... -o DIR; see gptc data --help)");

  makeShards("s", {1000, 10});
  EXPECT_FALSE(loader.init(options("s", 2, 8), error));
  EXPECT_EQ(error, path("s_1.bin") + ": 10 tokens, too few for one step of "
                                     "B*T*W + 1 = 17 tokens");

  gptc::data::testing::writeFile(path("c_0.bin"), "garbage");
  EXPECT_FALSE(loader.init(options("c", 2, 8), error));
  EXPECT_EQ(error, path("c_0.bin") + ": truncated header (7 of 1024 bytes)");

  EXPECT_FALSE(loader.init(options("s", 2, 8, 2, 2), error));
  EXPECT_NE(error.find("bad shape"), std::string::npos) << error;

  std::vector<int32_t> in, tg;
  EXPECT_FALSE(loader.next(in, tg, error));
}

} // namespace
