//===- DivergenceTest.cpp - Stopping a diverging run ----------------------===//

#include "runtime/Divergence.h"

#include "RuntimeTestUtil.h"

#include <cmath>
#include <limits>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

/// The fake manifest (one f32 parameter w in group "all") with
/// divergence_factor `factor` and, when `withNorms`, the slot
/// param_sq_norms the update step writes; its arena, initialised.
struct Fixture {
  explicit Fixture(double factor, bool withNorms = true) {
    llvm::json::Object o = fakeManifest();
    o["divergence_factor"] = factor;
    if (withNorms) {
      // One more 64-byte line at the arena's end holds it.
      o.getArray("slots")->push_back(
          slot("param_sq_norms", kNormsOffset, "f32", {1}));
      o["arena_bytes"] = kNormsOffset + 64;
      o["workspace"] =
          llvm::json::Object{{"offset", kNormsOffset + 64}, {"bytes", 0}};
    }
    std::string error;
    EXPECT_TRUE(parseManifest(toJson(std::move(o)), "m.json", m, error))
        << error;
    EXPECT_TRUE(arena.allocate(m, error)) << error;
    arena.initialize(1);
    for (int i = 0; i < FAKE_V * FAKE_V; ++i)
      initialSumSq += double(arena.f32("param.w")[i]) * arena.f32("param.w")[i];
  }
  /// What the update step would write: the sum of squares of w.
  void setSumSq(double v) {
    *reinterpret_cast<float *>(arena.data() + kNormsOffset) = float(v);
  }
  double rms(double sumSq) const {
    return std::sqrt(sumSq / (FAKE_V * FAKE_V));
  }

  static constexpr int64_t kNormsOffset = FAKE_ARENA_BYTES;
  Manifest m;
  Arena arena;
  double initialSumSq = 0.0;
};

TEST(Divergence, ReadsTheFactorFromTheManifest) {
  Fixture f(4.5);
  EXPECT_EQ(f.m.divergenceFactor, 4.5);
  Manifest old;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", old, error));
  EXPECT_EQ(old.divergenceFactor, 0.0); // absent: off
  llvm::json::Object bad = fakeManifest();
  bad["divergence_factor"] = -1;
  EXPECT_FALSE(
      parseManifest(toJson(std::move(bad)), "b/manifest.json", old, error));
  EXPECT_EQ(error, "b/manifest.json: divergence_factor: expected a finite "
                   "number >= 0");
}

TEST(Divergence, StopsWhenTheLossExceedsTheFactor) {
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  ASSERT_NE(guard.normsSlot(), nullptr);
  std::string error;
  f.setSumSq(f.initialSumSq);
  EXPECT_TRUE(guard.check(1, 2.0, error));
  EXPECT_TRUE(guard.check(2, 19.0, error));
  EXPECT_FALSE(guard.check(3, 21.0, error));
  EXPECT_EQ(error.rfind("diverged at step 3: loss 21 exceeds 10 x the first "
                        "loss 2; largest growth: group 'all' (parameter RMS ",
                        0),
            0u)
      << error;
}

TEST(Divergence, FactorZeroIsOff) {
  Fixture f(0);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  f.setSumSq(f.initialSumSq);
  EXPECT_TRUE(guard.check(1, 1.0, error));
  EXPECT_TRUE(guard.check(2, 1e30, error));
  // A non-finite loss stops the run all the same.
  EXPECT_FALSE(guard.check(3, std::numeric_limits<double>::quiet_NaN(), error));
  EXPECT_EQ(error.rfind("diverged at step 3: loss nan; largest growth: group "
                        "'all'",
                        0),
            0u)
      << error;
}

TEST(Divergence, StopsOnALossThatIsNotPositive) {
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  f.setSumSq(f.initialSumSq);
  EXPECT_TRUE(guard.check(1, 2.0, error));
  EXPECT_FALSE(guard.check(2, 0.0, error));
  EXPECT_EQ(error.rfind("diverged at step 2: loss 0 is not positive (a "
                        "cross-entropy is)",
                        0),
            0u)
      << error;
}

TEST(Divergence, StopsOnNonFiniteParameters) {
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  f.setSumSq(f.initialSumSq);
  EXPECT_TRUE(guard.check(1, 2.0, error));
  f.setSumSq(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(guard.check(2, 2.0, error));
  EXPECT_EQ(error.rfind("diverged at step 2: loss 2, parameters of group "
                        "'all' are not finite; largest growth: group 'all' "
                        "(parameter RMS ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find(" -> inf)"), std::string::npos) << error;
}

TEST(Divergence, StopsWhenAGroupsRMSGrowsTenfoldInOneStep) {
  // The loss looks fine (Muon keeps it at ln V while the weights explode).
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  f.setSumSq(4 * f.initialSumSq); // RMS x2: training
  EXPECT_TRUE(guard.check(1, 2.77, error)) << error;
  f.setSumSq(4 * f.initialSumSq * 81); // RMS x9 more: still allowed
  EXPECT_TRUE(guard.check(2, 2.77, error)) << error;
  f.setSumSq(4 * f.initialSumSq * 81 * 121); // x11
  EXPECT_FALSE(guard.check(3, 2.77, error));
  EXPECT_EQ(error.rfind("diverged at step 3: the parameters of group 'all' "
                        "grew from RMS ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("in one step (more than 10x; "
                       "training.divergence_factor=0 turns this test off); "
                       "largest growth: group 'all' (parameter RMS "),
            std::string::npos)
      << error;
}

TEST(Divergence, ASmallInitGrowsFromAFloorNotFromZero) {
  // embedding_init_std 0.001: one step moves every parameter by about the
  // learning rate, so RMS 0.001 -> 0.08 is training (80x from 0.001, 8x
  // from the floor of 0.01).
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  const double n = FAKE_V * FAKE_V;
  f.setSumSq(n * 0.001 * 0.001);
  EXPECT_TRUE(guard.check(1, 2.77, error)) << error;
  f.setSumSq(n * 0.08 * 0.08);
  EXPECT_TRUE(guard.check(2, 2.77, error)) << error;
  // From the floor, more than tenfold is still divergence.
  f.setSumSq(n * 0.001 * 0.001);
  EXPECT_TRUE(guard.check(3, 2.77, error)) << error;
  f.setSumSq(n * 5.0 * 5.0);
  EXPECT_FALSE(guard.check(4, 2.77, error));
  EXPECT_NE(error.find("the least RMS growth is judged from: the group's "
                       "learning rate within [0.01, 1]"),
            std::string::npos)
      << error;
}

TEST(Divergence, FactorZeroTurnsTheGrowthTestOffNotTheNonFiniteOne) {
  Fixture f(0);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  f.setSumSq(f.initialSumSq);
  EXPECT_TRUE(guard.check(1, 2.77, error)) << error;
  f.setSumSq(f.initialSumSq * 1e6); // x1000
  EXPECT_TRUE(guard.check(2, 2.77, error)) << error;
  f.setSumSq(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(guard.check(3, 2.77, error));
  EXPECT_NE(error.find("are not finite"), std::string::npos) << error;
}

TEST(Divergence, WithoutTheNormsSlotOnlyTheLossIsWatched) {
  // A bundle compiled before the update step wrote param_sq_norms.
  Fixture f(10, /*withNorms=*/false);
  DivergenceGuard guard(f.m, f.arena);
  EXPECT_EQ(guard.normsSlot(), nullptr);
  std::string error;
  EXPECT_TRUE(guard.check(1, 2.0, error));
  f.arena.f32("param.w")[0] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(guard.check(2, 2.0, error));
  EXPECT_FALSE(guard.check(3, 21.0, error));
  EXPECT_EQ(error, "diverged at step 3: loss 21 exceeds 10 x the first loss 2");
}

} // namespace
