//===- TrainerTest.cpp - The training loop on the in-process fake step ----===//

#include "runtime/Trainer.h"

#include "RuntimeTestUtil.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

using namespace gptc;
using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

class TrainerTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    writeTokens(path("fake_train_000001.bin"), bigramTokens(4000, 1));
    writeTokens(path("fake_val_000000.bin"), bigramTokens(1000, 2));
    std::string error;
    ASSERT_TRUE(
        parseManifest(toJson(fakeManifest()), "manifest.json", manifest, error))
        << error;
    config.steps = FAKE_STEPS;
    config.seed = 1;
    config.trainPattern = path("fake_train_*.bin");
    config.valPattern = path("fake_val_*.bin");
    config.valEvery = 10;
    config.valTokens = 128;
    config.timingSkipSteps = 2;
  }

  /// Trains; returns the output.
  std::string run(TrainResult &result, bool expectOk = true) {
    StepLibrary step(fake_grad_step, fake_update_step, fake_eval_step);
    std::ostringstream out;
    std::string error;
    bool ok = train(manifest, step, config, out, result, error);
    EXPECT_EQ(ok, expectOk) << error;
    lastError = error;
    return out.str();
  }

  Manifest manifest;
  TrainConfig config;
  std::string lastError;
};

TEST_F(TrainerTest, LossFallsAndLinesAreWellFormed) {
  int64_t calls = fake_update_calls;
  TrainResult r;
  std::string out = run(r);
  EXPECT_EQ(fake_update_calls - calls, FAKE_STEPS);
  ASSERT_EQ(r.losses.size(), size_t(FAKE_STEPS));
  double first = 0, last = 0;
  for (int i = 0; i < 5; ++i) {
    first += r.losses[size_t(i)] / 5;
    last += r.losses[size_t(FAKE_STEPS - 5 + i)] / 5;
  }
  EXPECT_LT(last, first - 0.8) << out;
  // Validation at 0, 10, 20, 30, 40.
  ASSERT_EQ(r.val.size(), 5u);
  EXPECT_EQ(r.val[0].step, 0);
  EXPECT_EQ(r.val[4].step, FAKE_STEPS);
  EXPECT_LT(r.val[4].loss, r.val[0].loss - 0.8);
  EXPECT_EQ(r.valTokens, 128);
  EXPECT_EQ(r.timedSteps, FAKE_STEPS - 2);
  EXPECT_GT(r.tokensPerSecond, 0);
  EXPECT_GT(r.peakRssKiB, 0);

  std::istringstream lines(out);
  std::string line;
  int steps = 0, vals = 0, done = 0;
  // The fake manifest has no groups' rates: the multiplier, labelled.
  std::regex stepRe(R"(step \d+/40 \| loss \d+\.\d{6} \| lr mult [0-9.e-]+ \| )"
                    R"([0-9,]+ tok/s \| [0-9.e+-]+ s \| )"
                    R"(\d+:\d\d elapsed, eta \d+:\d\d)");
  std::regex valRe(R"(val step \d+/40 \| val_loss \d+\.\d{4})");
  std::regex doneRe(R"(done: 40 steps \| val_loss \d+\.\d{4} \(first )"
                    R"(\d+\.\d{4} at step 0\) \| [0-9.e+-]+ s/step over 38 )"
                    R"(steps \(the first 2 skipped as warm-up\) \| [0-9,]+ )"
                    R"(tok/s \| peak RSS )"
                    R"(\d+\.\d MiB)");
  while (std::getline(lines, line)) {
    if (std::regex_match(line, stepRe))
      ++steps;
    else if (std::regex_match(line, valRe))
      ++vals;
    else if (std::regex_match(line, doneRe))
      ++done;
    else
      ADD_FAILURE() << "unexpected line: " << line;
  }
  EXPECT_EQ(steps, FAKE_STEPS);
  EXPECT_EQ(vals, 5);
  EXPECT_EQ(done, 1);
  EXPECT_NE(out.find("step 1/40 | loss "), std::string::npos);
  EXPECT_NE(out.find(" | lr mult 1 | "), std::string::npos); // step 0's
}

TEST_F(TrainerTest, RunsAreBitIdentical) {
  TrainResult a, b, c;
  run(a);
  run(b);
  ASSERT_EQ(a.losses.size(), b.losses.size());
  EXPECT_EQ(std::memcmp(a.losses.data(), b.losses.data(),
                        a.losses.size() * sizeof(float)),
            0);
  ASSERT_EQ(a.val.size(), b.val.size());
  for (size_t i = 0; i < a.val.size(); ++i)
    EXPECT_EQ(std::memcmp(&a.val[i].loss, &b.val[i].loss, sizeof(double)), 0);
  // Another seed, other losses.
  config.seed = 2;
  run(c);
  EXPECT_NE(a.losses[0], c.losses[0]);
}

TEST_F(TrainerTest, ValidationTokensAreClampedWithANote) {
  TrainResult r;
  config.valTokens = 1000000;
  std::string out = run(r);
  // 1000 val tokens hold floor(999 / 16) = 62 batches.
  EXPECT_EQ(r.valTokens, 62 * 16);
  EXPECT_NE(out.find("note: validating on 992 of the 1,000,000 validation "
                     "tokens (the val shards hold 1,000 tokens)"),
            std::string::npos)
      << out;
  config.valTokens = 100;
  out = run(r);
  EXPECT_EQ(r.valTokens, 96);
  EXPECT_NE(out.find("(whole batches of B*T = 16)"), std::string::npos) << out;
  config.valTokens = 10;
  run(r, false);
  EXPECT_EQ(lastError, "validation tokens 10 are fewer than one batch of B*T "
                       "= 16");
}

TEST_F(TrainerTest, ValidationOnlyAtTheEndOrOff) {
  TrainResult r;
  config.valEvery = 0;
  config.steps = 5;
  run(r);
  ASSERT_EQ(r.val.size(), 1u);
  EXPECT_EQ(r.val[0].step, 5);
  config.valTokens = 0;
  std::string out = run(r);
  EXPECT_TRUE(r.val.empty());
  EXPECT_EQ(out.find("val"), std::string::npos) << out;
}

TEST_F(TrainerTest, ShortRunsTimeEveryStepAndSaySo) {
  // Fewer steps than the warm-up and one more: all are timed, not one.
  TrainResult r;
  config.steps = 2;
  config.timingSkipSteps = 10;
  std::string out = run(r);
  EXPECT_EQ(r.timedSteps, 2);
  EXPECT_NE(out.find("over 2 steps (warm-up included: the run is too short "
                     "to skip 10)"),
            std::string::npos)
      << out;
  config.steps = 1;
  out = run(r);
  EXPECT_EQ(r.timedSteps, 1);
  EXPECT_NE(out.find(" s/step over 1 step (warm-up included"),
            std::string::npos)
      << out;
}

TEST_F(TrainerTest, DataErrorsStopTheRun) {
  TrainResult r;
  std::vector<uint16_t> bad = bigramTokens(4000, 1);
  bad[100] = FAKE_V; // out of the vocabulary
  writeTokens(path("fake_train_000001.bin"), bad);
  run(r, false);
  EXPECT_NE(lastError.find("fake_train_000001.bin"), std::string::npos)
      << lastError;
  EXPECT_NE(lastError.find("16"), std::string::npos) << lastError;

  config.trainPattern = path("missing_*.bin");
  run(r, false);
  EXPECT_NE(lastError.find("missing_*.bin"), std::string::npos) << lastError;

  writeTokens(path("tiny_train_000001.bin"), bigramTokens(16, 1));
  config.trainPattern = path("tiny_train_*.bin");
  run(r, false);
  EXPECT_NE(lastError.find("too few for one step"), std::string::npos)
      << lastError;
}

// The step counter the compiled schedules read: s before each grad and
// update step, the steps done before each validation.
std::vector<int64_t> stepsSeen;
void recordingEvalStep(gptc_arena_ref *arena) {
  stepsSeen.push_back(
      *reinterpret_cast<int64_t *>(arena->aligned + FAKE_OFF_STEP));
  fake_eval_step(arena);
}
void recordingGradStep(gptc_arena_ref *arena) {
  stepsSeen.push_back(
      *reinterpret_cast<int64_t *>(arena->aligned + FAKE_OFF_STEP));
  fake_grad_step(arena);
}

TEST_F(TrainerTest, StepCounterBeforeEveryCall) {
  config.steps = 4;
  config.valEvery = 2;
  config.valTokens = 16; // one batch
  stepsSeen.clear();
  StepLibrary step(recordingGradStep, fake_update_step, recordingEvalStep);
  std::ostringstream out;
  TrainResult r;
  std::string error;
  ASSERT_TRUE(train(manifest, step, config, out, r, error)) << error;
  // val at 0; steps 0, 1 (two micro-steps each); val at 2; 2, 3; val at 4.
  std::vector<int64_t> want = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4};
  EXPECT_EQ(stepsSeen, want);
}

TEST(Trainer, WithThousands) {
  EXPECT_EQ(withThousands(0), "0");
  EXPECT_EQ(withThousands(999), "999");
  EXPECT_EQ(withThousands(1000), "1,000");
  EXPECT_EQ(withThousands(12345678), "12,345,678");
  EXPECT_EQ(withThousands(-1234), "-1,234");
}

// The ETA counts the validations still to come, at their mean time.
TEST(Trainer, EtaCountsValidation) {
  // Every 10 of 100 steps: after 0 steps, 10 (at 10, ..., 100); after 95,
  // the one at 100; after 100, none.
  EXPECT_EQ(validationsLeft(0, 100, 10), 10);
  EXPECT_EQ(validationsLeft(95, 100, 10), 1);
  EXPECT_EQ(validationsLeft(100, 100, 10), 0);
  // 25 steps every 10: at 10, 20 and the end.
  EXPECT_EQ(validationsLeft(0, 25, 10), 3);
  EXPECT_EQ(validationsLeft(20, 25, 10), 1);
  // Only at the end.
  EXPECT_EQ(validationsLeft(3, 25, 0), 1);
  // 10 steps of 1 s timed, 90 left: 90 s; and 9 validations left at the
  // 2 s the one timed took: 18 s more (the run's 0:18 that said 0:06).
  EXPECT_DOUBLE_EQ(etaSeconds(10.0, 10, 90, 0.0, 0, 9), 90.0);
  EXPECT_DOUBLE_EQ(etaSeconds(10.0, 10, 90, 2.0, 1, 9), 108.0);
  EXPECT_DOUBLE_EQ(etaSeconds(0.0, 0, 90, 0.0, 0, 9), 0.0);
}

// --log-every prints every K-th step line and the first and the last; the
// JSON log keeps every step; the step line and the log carry the MFU
// against --peak-tflops when the manifest counts the step's FLOPs.
TEST_F(TrainerTest, LogEveryAndMfu) {
  manifest.stepFlops = 1000000;
  config.peakFlops = 1e9;
  config.logEvery = 5;
  config.steps = 12;
  config.logPath = path("run.jsonl");
  TrainResult r;
  std::string out = run(r);
  std::smatch m;
  std::vector<std::string> shown;
  static const std::regex stepLine(R"(^step (\d+)/12 \|.*\| mfu [0-9.]+% \|)");
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, m, stepLine))
      shown.push_back(m[1]);
  EXPECT_EQ(shown, (std::vector<std::string>{"1", "5", "10", "12"})) << out;
  EXPECT_NE(out.find("| mfu "), std::string::npos);
  // Every step in the log, each with its MFU: step_flops / dt / peak, dt
  // from the line's tok/s (32 tokens a step).
  std::ifstream log(path("run.jsonl"));
  static const std::regex field(
      R"("type": "train".*"tok_per_s": (\d+), "mfu": ([0-9.e-]+))");
  int trains = 0;
  for (std::string line; std::getline(log, line);)
    if (std::regex_search(line, m, field)) {
      ++trains;
      double rate = std::stod(m[1]), mfu = std::stod(m[2]);
      double expected = 1e6 * rate / 32.0 / 1e9;
      EXPECT_NEAR(mfu, expected, 0.02 * expected + 1e-4) << line;
    }
  EXPECT_EQ(trains, 12);
  // No peak: no MFU.
  config.peakFlops = 0;
  config.logPath.clear();
  EXPECT_EQ(run(r).find("mfu"), std::string::npos);
}

} // namespace
