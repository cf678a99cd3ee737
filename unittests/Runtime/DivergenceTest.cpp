//===- DivergenceTest.cpp - Stopping a diverging run ----------------------===//

#include "runtime/Divergence.h"

#include "RuntimeTestUtil.h"

#include <cmath>
#include <limits>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

/// The fake manifest (one f32 parameter w in group "all") with
/// divergence_factor `factor`, and its arena, initialised.
struct Fixture {
  explicit Fixture(double factor) {
    llvm::json::Object o = fakeManifest();
    o["divergence_factor"] = factor;
    std::string error;
    EXPECT_TRUE(parseManifest(toJson(std::move(o)), "m.json", m, error))
        << error;
    EXPECT_TRUE(arena.allocate(m, error)) << error;
    arena.initialize(1);
  }
  Manifest m;
  Arena arena;
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
  std::string error;
  EXPECT_TRUE(guard.check(1, 2.0, error));
  EXPECT_TRUE(guard.check(2, 19.0, error));
  f.arena.f32("param.w")[3] += 300.0f; // an update of norm 300
  EXPECT_FALSE(guard.check(3, 21.0, error));
  EXPECT_EQ(error.rfind("diverged at step 3: loss 21 exceeds 10 x the first "
                        "loss 2; largest update: group 'all' (update norm 300,",
                        0),
            0u)
      << error;
}

TEST(Divergence, FactorZeroIsOff) {
  Fixture f(0);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  EXPECT_TRUE(guard.check(1, 1.0, error));
  EXPECT_TRUE(guard.check(2, 1e30, error));
  // A non-finite loss stops the run all the same.
  EXPECT_FALSE(guard.check(3, std::numeric_limits<double>::quiet_NaN(), error));
  EXPECT_EQ(error.rfind("diverged at step 3: loss nan; largest update: group "
                        "'all'",
                        0),
            0u)
      << error;
}

TEST(Divergence, StopsOnNonFiniteParameters) {
  Fixture f(10);
  DivergenceGuard guard(f.m, f.arena);
  std::string error;
  EXPECT_TRUE(guard.check(1, 2.0, error));
  f.arena.f32("param.w")[0] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(guard.check(2, 2.0, error));
  EXPECT_EQ(error, "diverged at step 2: loss 2, parameters of group 'all' are "
                   "not finite; largest update: group 'all' (update norm inf, "
                   "parameter norm inf)");
}

} // namespace
