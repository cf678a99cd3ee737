//===- HostCpuTest.cpp - CPUID against GCC's own feature detection --------===//

#include "runtime/HostCpu.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace gptc::runtime;

namespace {

#if defined(__x86_64__)
/// GCC's answer (libgcc's CPUID and XCR0 reading) for the features both
/// know; the names passed to __builtin_cpu_supports must be literals.
std::vector<std::pair<std::string, bool>> gccAnswers() {
  return {
      {"sse2", __builtin_cpu_supports("sse2")},
      {"sse4.1", __builtin_cpu_supports("sse4.1")},
      {"sse4.2", __builtin_cpu_supports("sse4.2")},
      {"popcnt", __builtin_cpu_supports("popcnt")},
      {"avx", __builtin_cpu_supports("avx")},
      {"avx2", __builtin_cpu_supports("avx2")},
      {"fma", __builtin_cpu_supports("fma")},
      {"f16c", __builtin_cpu_supports("f16c")},
      {"bmi", __builtin_cpu_supports("bmi")},
      {"bmi2", __builtin_cpu_supports("bmi2")},
      {"lzcnt", __builtin_cpu_supports("lzcnt")},
      {"movbe", __builtin_cpu_supports("movbe")},
      {"sse4a", __builtin_cpu_supports("sse4a")},
      {"xop", __builtin_cpu_supports("xop")},
      {"fma4", __builtin_cpu_supports("fma4")},
      {"vaes", __builtin_cpu_supports("vaes")},
      {"vpclmulqdq", __builtin_cpu_supports("vpclmulqdq")},
      {"gfni", __builtin_cpu_supports("gfni")},
      {"avx512f", __builtin_cpu_supports("avx512f")},
      {"avx512bw", __builtin_cpu_supports("avx512bw")},
      {"avx512vl", __builtin_cpu_supports("avx512vl")},
      {"avx512dq", __builtin_cpu_supports("avx512dq")},
      {"avx512cd", __builtin_cpu_supports("avx512cd")},
      {"avx512vnni", __builtin_cpu_supports("avx512vnni")},
      {"avx512bf16", __builtin_cpu_supports("avx512bf16")},
      {"avx512fp16", __builtin_cpu_supports("avx512fp16")},
      {"avx512vbmi2", __builtin_cpu_supports("avx512vbmi2")},
      {"amx-tile", __builtin_cpu_supports("amx-tile")},
      {"avxvnni", __builtin_cpu_supports("avxvnni")},
  };
}

TEST(HostCpu, AgreesWithGccOnEveryFeatureBothKnow) {
  int present = 0, absent = 0;
  for (const auto &[name, has] : gccAnswers()) {
    ASSERT_TRUE(isCheckedCpuFeature(name)) << name;
    std::vector<std::string> missing = missingCpuFeatures({name});
    EXPECT_EQ(missing.empty(), has) << name;
    (has ? present : absent)++;
  }
  // x86-64 has SSE2; no CPU has both XOP (AMD before Zen) and AVX512-FP16
  // (Intel since Sapphire Rapids), so both answers were exercised.
  EXPECT_GT(present, 0);
  EXPECT_GT(absent, 0);
}

TEST(HostCpu, ReportsTheMissingOnesInOrderAndSkipsUnknownNames) {
  std::vector<std::string> lacking;
  for (const auto &[name, has] : gccAnswers())
    if (!has)
      lacking.push_back(name);
  ASSERT_FALSE(lacking.empty());
  std::vector<std::string> required = {"sse2", lacking.back(), "fast-gather",
                                       "64bit", lacking.front()};
  EXPECT_FALSE(isCheckedCpuFeature("fast-gather"));
  EXPECT_EQ(missingCpuFeatures(required),
            (std::vector<std::string>{lacking.back(), lacking.front()}));
  EXPECT_TRUE(missingCpuFeatures({}).empty());
}
#endif

} // namespace
