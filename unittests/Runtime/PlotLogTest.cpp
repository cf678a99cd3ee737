//===- PlotLogTest.cpp - The losses `gptc plot` draws ---------------------===//

#include "commands/PlotLog.h"

#include "RuntimeTestUtil.h"

using namespace gptc::commands;
using gptc::runtime::testing::TempDirTest;
using gptc::runtime::testing::writeFile;

namespace {

std::vector<LossPoint> points(const std::vector<double> &losses) {
  std::vector<LossPoint> p;
  for (size_t i = 0; i < losses.size(); ++i)
    p.push_back({int64_t(i + 1), int64_t(256 * (i + 1)), losses[i]});
  return p;
}

std::vector<double> losses(const std::vector<LossPoint> &p) {
  std::vector<double> l;
  for (const LossPoint &x : p)
    l.push_back(x.loss);
  return l;
}

TEST(MovingAverage, TrailingMeanOverKPoints) {
  std::vector<LossPoint> smooth =
      movingAverage(points({6, 5, 4, 3, 2, 1}), /*k=*/3);
  // The first points average what there is; then the last three.
  std::vector<double> want = {6, 5.5, 5, 4, 3, 2};
  ASSERT_EQ(smooth.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_DOUBLE_EQ(smooth[i].loss, want[i]) << "point " << i;
    EXPECT_EQ(smooth[i].step, int64_t(i + 1));
    EXPECT_EQ(smooth[i].tokens, int64_t(256 * (i + 1)));
  }
}

TEST(MovingAverage, OneIsTheRawLossAndMoreThanThePointsIsTheRunningMean) {
  EXPECT_EQ(losses(movingAverage(points({3, 1, 4, 1, 5}), 1)),
            (std::vector<double>{3, 1, 4, 1, 5}));
  std::vector<double> mean = losses(movingAverage(points({4, 2, 6}), 100));
  EXPECT_DOUBLE_EQ(mean[0], 4);
  EXPECT_DOUBLE_EQ(mean[1], 3);
  EXPECT_DOUBLE_EQ(mean[2], 4);
  EXPECT_TRUE(movingAverage({}, 5).empty());
}

TEST(MovingAverage, ConstantStaysConstantOverALongRun) {
  std::vector<double> flat(100000, 2.7);
  for (double l : losses(movingAverage(points(flat), 7)))
    ASSERT_NEAR(l, 2.7, 1e-12);
}

class ReadLossLogTest : public TempDirTest {};

TEST_F(ReadLossLogTest, TrainAndValPointsNullsSkipped) {
  writeFile(path("run.jsonl"),
            "{\"type\": \"val\", \"step\": 0, \"val_loss\": 5.5, "
            "\"tokens\": 0}\n"
            "{\"type\": \"train\", \"step\": 1, \"loss\": 5.25, "
            "\"tokens\": 512}\n"
            "\n"
            "{\"type\": \"train\", \"step\": 2, \"loss\": null, "
            "\"tokens\": 1024}\n");
  LossLog log;
  std::string error;
  ASSERT_TRUE(readLossLog(path("run.jsonl"), log, error)) << error;
  ASSERT_EQ(log.train.size(), 1u);
  EXPECT_EQ(log.train[0].step, 1);
  EXPECT_EQ(log.train[0].tokens, 512);
  EXPECT_DOUBLE_EQ(log.train[0].loss, 5.25);
  ASSERT_EQ(log.val.size(), 1u);
  EXPECT_DOUBLE_EQ(log.val[0].loss, 5.5);
}

TEST_F(ReadLossLogTest, ErrorsNameTheFileAndLine) {
  writeFile(path("bad.jsonl"), "{\"type\": \"train\", \"step\": 1}\n");
  LossLog log;
  std::string error;
  EXPECT_FALSE(readLossLog(path("bad.jsonl"), log, error));
  EXPECT_EQ(error, path("bad.jsonl") +
                       ":1: not a gptc train --log line (needs type train or "
                       "val, step and tokens)");
  writeFile(path("empty.jsonl"), "\n");
  EXPECT_FALSE(readLossLog(path("empty.jsonl"), log, error));
  EXPECT_EQ(error, path("empty.jsonl") + ": no losses to plot");
  EXPECT_FALSE(readLossLog(path("missing.jsonl"), log, error));
  EXPECT_NE(error.find("missing.jsonl"), std::string::npos) << error;
}

} // namespace
