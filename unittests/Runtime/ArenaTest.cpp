//===- ArenaTest.cpp - Arena allocation, views and parameter init ---------===//

#include "runtime/Arena.h"

#include "RuntimeTestUtil.h"

#include <cmath>
#include <cstring>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

/// The fake manifest plus a bf16 normal, an f64 "values" and a "ones"
/// parameter (with their slots after the fake step's).
Manifest mixedManifest() {
  llvm::json::Object m = fakeManifest();
  m["arena_bytes"] = FAKE_ARENA_BYTES + 3 * 512;
  llvm::json::Array &slots = *m.getArray("slots");
  slots.push_back(slot("param.h", FAKE_ARENA_BYTES, "bf16", {8, 16}));
  slots.push_back(slot("param.lambdas", FAKE_ARENA_BYTES + 512, "f64", {2}));
  slots.push_back(slot("param.g", FAKE_ARENA_BYTES + 1024, "f32", {3}));
  llvm::json::Array &params = *m.getArray("params");
  params.push_back(llvm::json::Object{{"name", "h"},
                                      {"shape", llvm::json::Array{8, 16}},
                                      {"init", "normal"},
                                      {"std", 0.5}});
  params.push_back(
      llvm::json::Object{{"name", "lambdas"},
                         {"shape", llvm::json::Array{2}},
                         {"init", "values"},
                         {"values", llvm::json::Array{1.0, 0.25}}});
  params.push_back(llvm::json::Object{
      {"name", "g"}, {"shape", llvm::json::Array{3}}, {"init", "ones"}});
  Manifest out;
  std::string error;
  EXPECT_TRUE(parseManifest(toJson(std::move(m)), "m.json", out, error))
      << error;
  return out;
}

std::vector<uint8_t> initialized(const Manifest &m, uint64_t seed) {
  Arena arena;
  std::string error;
  EXPECT_TRUE(arena.allocate(m, error)) << error;
  arena.initialize(seed);
  return std::vector<uint8_t>(arena.data(), arena.data() + arena.size());
}

TEST(Arena, AlignedAndTypedViews) {
  Manifest m = mixedManifest();
  Arena arena;
  std::string error;
  ASSERT_TRUE(arena.allocate(m, error)) << error;
  EXPECT_EQ(uintptr_t(arena.data()) % 64, 0u);
  EXPECT_EQ(arena.size(), m.arenaBytes);
  gptc_arena_ref *ref = arena.ref();
  EXPECT_EQ(ref->allocated, arena.data());
  EXPECT_EQ(ref->aligned, arena.data());
  EXPECT_EQ(ref->offset, 0);
  EXPECT_EQ(ref->size, m.arenaBytes);
  EXPECT_EQ(ref->stride, 1);
  EXPECT_EQ(arena.i32("tokens"), reinterpret_cast<int32_t *>(arena.data()));
  EXPECT_EQ(arena.f32("param.w"),
            reinterpret_cast<float *>(arena.data() + FAKE_OFF_W));
  EXPECT_EQ(arena.i64("step"),
            reinterpret_cast<int64_t *>(arena.data() + FAKE_OFF_STEP));
  EXPECT_NE(arena.bf16("param.h"), nullptr);
  EXPECT_NE(arena.f64("param.lambdas"), nullptr);
  // Wrong dtype or name: null.
  EXPECT_EQ(arena.f32("tokens"), nullptr);
  EXPECT_EQ(arena.f32("nope"), nullptr);
}

TEST(Arena, InitFollowsTheRules) {
  Manifest m = mixedManifest();
  Arena arena;
  std::string error;
  ASSERT_TRUE(arena.allocate(m, error)) << error;
  std::memset(arena.data(), 0xff, size_t(arena.size()));
  arena.initialize(42);
  EXPECT_EQ(*arena.i64("step"), 0); // everything else zeroed
  EXPECT_EQ(arena.f64("param.lambdas")[0], 1.0);
  EXPECT_EQ(arena.f64("param.lambdas")[1], 0.25);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(arena.f32("param.g")[i], 1.0f);
  // Normal: mean ~0, std ~0.1 over 256 samples.
  const float *w = arena.f32("param.w");
  double sum = 0, sq = 0;
  for (int i = 0; i < FAKE_V * FAKE_V; ++i) {
    sum += w[i];
    sq += double(w[i]) * w[i];
  }
  double mean = sum / 256, sd = std::sqrt(sq / 256 - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sd, 0.1, 0.02);
  const Slot *h = arena.slot("param.h");
  double hsq = 0;
  for (int64_t i = 0; i < h->numElements(); ++i)
    hsq += arena.element(*h, i) * arena.element(*h, i);
  EXPECT_NEAR(std::sqrt(hsq / 128), 0.5, 0.1);
}

TEST(Arena, InitIsDeterministicPerSeedAndParameter) {
  Manifest m = mixedManifest();
  EXPECT_EQ(initialized(m, 7), initialized(m, 7));
  EXPECT_NE(initialized(m, 7), initialized(m, 8));
  // Streams are per parameter: w's values do not depend on what follows.
  std::vector<uint8_t> mixed = initialized(m, 7);
  Manifest fake;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", fake, error));
  std::vector<uint8_t> alone = initialized(fake, 7);
  EXPECT_EQ(std::memcmp(mixed.data() + FAKE_OFF_W, alone.data() + FAKE_OFF_W,
                        FAKE_V * FAKE_V * 4),
            0);
}

TEST(Arena, RngIsPinned) {
  // The streams are part of the bundle contract: these values must never
  // change, on any machine.
  ParamRng a(0, 0);
  EXPECT_EQ(a.nextU64(), 0x4181b152fb77616full);
  EXPECT_EQ(a.nextU64(), 0x169c646d52269d62ull);
  ParamRng b(42, 3);
  EXPECT_EQ(b.nextNormal(), 0x1.2f2e816c00321p-3);
  EXPECT_EQ(b.nextNormal(), -0x1.2473eadadd7e8p+0);
  EXPECT_EQ(b.nextNormal(), -0x1.da0d84524e0ebp-3);
  EXPECT_EQ(b.nextNormal(), 0x1.fee3112fad8bbp-1);
}

TEST(Arena, ZeroGradientsClearsGradAndLossOnly) {
  Manifest m = mixedManifest();
  Arena arena;
  std::string error;
  ASSERT_TRUE(arena.allocate(m, error)) << error;
  arena.initialize(1);
  std::vector<float> w(arena.f32("param.w"), arena.f32("param.w") + 256);
  for (int i = 0; i < 256; ++i)
    arena.f32("grad.w")[i] = 1.0f;
  *arena.f32("loss") = 3.0f;
  *arena.f32("eval_loss") = 4.0f;
  arena.zeroGradients();
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(arena.f32("grad.w")[i], 0.0f);
  EXPECT_EQ(*arena.f32("loss"), 0.0f);
  EXPECT_EQ(*arena.f32("eval_loss"), 4.0f);
  EXPECT_EQ(
      std::vector<float>(arena.f32("param.w"), arena.f32("param.w") + 256), w);
}

TEST(Arena, Bf16Rounding) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3f80); // tie -> even
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
  EXPECT_EQ(bf16ToFloat(0x4040), 3.0f);
}

} // namespace

namespace {

TEST(ArenaGuardDeathTest, WritesPastTheArenaFault) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error))
      << error;
  ::setenv("GPTC_ARENA_GUARD", "1", 1);
  Arena arena;
  bool ok = arena.allocate(m, error);
  ::unsetenv("GPTC_ARENA_GUARD");
  ASSERT_TRUE(ok) << error;
  // The whole arena is usable, zeroed and 64-byte aligned ...
  EXPECT_EQ(reinterpret_cast<uintptr_t>(arena.data()) % 64, 0u);
  for (int64_t i = 0; i < arena.size(); ++i)
    ASSERT_EQ(arena.data()[i], 0) << i;
  arena.data()[arena.size() - 1] = 1;
  // ... and the byte after it is not (FAKE_ARENA_BYTES is a multiple of 64).
  volatile uint8_t *past = arena.data() + arena.size();
  EXPECT_DEATH(*past = 1, "");
}

} // namespace
