//===- NewtonSchulzTest.cpp - The compiled quintic on Gaussian matrices ---===//
//
// optim.newton_schulz as Muon runs it (5 steps, (3.4445, -4.7750, 2.0315),
// eps 1e-7, polynomial_then_apply, short_side, normalise after the cast,
// bf16 GEMMs), compiled through the pipeline and run on random Gaussian
// matrices of the shapes a GPT update sees:
//   - every singular value of the result is at most 1.25, and at least 0.6
//     when the aspect ratio is 2 or more (a square Gaussian matrix has
//     singular values near 0 that five steps cannot lift);
//   - the result matches the same iteration evaluated in f64 (in this
//     test, from the definition) within a bf16 tolerance;
//   - compiled with an f32 compute type, it matches that f64 iteration
//     within f32 rounding (the lowering is the math).
//
//===----------------------------------------------------------------------===//

#include "unittests/Optim/CompiledModule.h"
#include "unittests/Optim/MatrixUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>

using namespace gptc::test;

namespace {

constexpr double kA = 3.4445, kB = -4.7750, kC = 2.0315, kEps = 1e-7;
constexpr int kSteps = 5;

// bf16 tolerance of the result against the f64 iteration, relative in the
// Frobenius norm: 0.03, about 15 bf16 unit roundoffs (u = 2^-9). Each of
// the 5 steps rounds X, A, A A, B and B X to bf16 (the GEMMs accumulate in
// f32, the sums are formed in f32), and the iteration neither damps nor
// amplifies much on the band it maps singular values into. Measured on
// these shapes: 0.018-0.023 with the fixed seeds below, at most 0.026 over
// twelve other seeds. (Before the sums moved to f32, the coefficients
// rounded to bf16 and the error was 0.04-0.08.)
constexpr double kBf16Tolerance = 0.03;
// The same with an f32 compute type: measured 0.5e-6-1.8e-6 (at most
// 3.8e-6 over twelve other seeds), i.e. f32 rounding (u = 2^-24) through
// five steps; anything wrong in the lowered math would be O(1).
constexpr double kF32Tolerance = 4e-6;

const std::vector<BatchShape> &shapes() {
  static const std::vector<BatchShape> s = {
      {{64, 64}, "square"},
      {{32, 128}, "wide"},
      {{128, 32}, "tall"},
      {{192, 64}, "fused QKV (3d x d)"},
      {{8, 64}, "fewer than 16 rows"},
      {{3, 48, 96}, "a batch of wide matrices"},
      {{2, 40, 24}, "a batch of tall matrices, aspect < 2"},
  };
  return s;
}

/// %o = the Newton-Schulz iteration of %g, in `computeType`.
std::string nsBody(const BatchShape &s, const char *computeType) {
  return "  %o = optim.newton_schulz %g steps = " + std::to_string(kSteps) +
         " coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7 "
         "form = polynomial_then_apply transpose = short_side "
         "normalize = after_cast compute_dtype = " +
         computeType + " : " + tensorType(s.dims, "f32");
}

/// %o = the iteration of each matrix of the batch %g on its own (what the
/// update does without gptc-fuse-newton-schulz, which batches them).
std::string oneByOneBody(const BatchShape &s) {
  std::string whole = tensorType(s.dims, "f32");
  std::string one = tensorType({s.rows(), s.cols()}, "f32");
  std::string body = "  %o0 = tensor.empty() : " + whole + "\n";
  for (int64_t b = 0; b < s.batch(); ++b) {
    std::string i = std::to_string(b), sizes = "[1, " +
                                               std::to_string(s.rows()) + ", " +
                                               std::to_string(s.cols()) + "]";
    body += "  %m" + i + " = tensor.extract_slice %g[" + i + ", 0, 0] " +
            sizes + " [1, 1, 1] : " + whole + " to " + one + "\n";
    body += "  %n" + i + " = optim.newton_schulz %m" + i +
            " steps = " + std::to_string(kSteps) +
            " coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7 "
            "form = polynomial_then_apply transpose = short_side "
            "normalize = after_cast compute_dtype = bf16 : " +
            one + "\n";
    body += "  %o" + std::to_string(b + 1) + " = tensor.insert_slice %n" + i +
            " into %o" + i + "[" + i + ", 0, 0] " + sizes +
            " [1, 1, 1] : " + one + " into " + whole + "\n";
  }
  return body + "  %o = tensor.cast %o" + std::to_string(s.batch()) + " : " +
         whole + " to " + whole;
}

class NewtonSchulzTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string source;
    for (size_t i = 0; i < shapes().size(); ++i) {
      const BatchShape &s = shapes()[i];
      source += wrapperFunction(wrapperName("bf16", i), s.dims, "f32",
                                nsBody(s, "bf16"));
      source += wrapperFunction(wrapperName("f32", i), s.dims, "f32",
                                nsBody(s, "f32"));
      if (s.dims.size() == 3)
        source += wrapperFunction(wrapperName("single", i), s.dims, "f32",
                                  oneByOneBody(s));
    }
    module = CompiledModule::compile(source, error).release();
  }
  static void TearDownTestSuite() {
    delete module;
    module = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(module) << error; }

  /// Gaussian input of shape `i` (seeded by i), f32.
  static std::vector<float> input(size_t i) {
    return gaussian(shapes()[i].elements(), 1000 + i);
  }

  /// The worst deviation over the batch of shape `i` of the compiled
  /// iteration (`kind`: its compute type) from the f64 iteration.
  struct Deviation {
    double relative = 0; ///< |O - O64|_F / |O64|_F
    double maxAbs = 0;   ///< max |O - O64|
  };
  static Deviation deviationFromF64(const char *kind, size_t i) {
    const BatchShape &s = shapes()[i];
    std::vector<float> g = input(i), o(g.size());
    Deviation d;
    EXPECT_TRUE(module->run(wrapperName(kind, i), s.dims, g, o));
    for (int64_t b = 0; b < s.batch(); ++b) {
      Matrix ref = newtonSchulz(matrixOf(g, b, s.rows(), s.cols()), kA, kB, kC,
                                kSteps, kEps);
      Matrix got = matrixOf(o, b, s.rows(), s.cols());
      d.relative = std::max(d.relative, relativeFrobenius(got, ref));
      d.maxAbs = std::max(d.maxAbs, maxAbsDiff(got, ref));
    }
    return d;
  }

  static CompiledModule *module;
  static std::string error;
};

CompiledModule *NewtonSchulzTest::module = nullptr;
std::string NewtonSchulzTest::error;

// gptc-fuse-newton-schulz stacks same-shape matrices into one batched
// iteration; it must orthogonalise each matrix as the iteration on that
// matrix alone does. Both run the same bf16 GEMMs per matrix, so they agree
// far inside the bf16 tolerance; measured: bit for bit.
TEST_F(NewtonSchulzTest, BatchedEqualsOneByOne) {
  for (size_t i = 0; i < shapes().size(); ++i) {
    const BatchShape &s = shapes()[i];
    if (s.dims.size() != 3)
      continue;
    std::vector<float> g = input(i), batched(g.size()), single(g.size());
    ASSERT_TRUE(module->run(wrapperName("bf16", i), s.dims, g, batched));
    ASSERT_TRUE(module->run(wrapperName("single", i), s.dims, g, single));
    double worst = 0, scale = 0;
    for (size_t k = 0; k < g.size(); ++k) {
      worst = std::max(worst, double(std::abs(batched[k] - single[k])));
      scale = std::max(scale, double(std::abs(single[k])));
    }
    std::printf("[ ns batched ] %s: max |batched - one by one| = %.3g "
                "(max |O| %.3g)\n",
                s.what, worst, scale);
    EXPECT_LE(worst, 0.01 * scale) << s.what;
  }
}

TEST_F(NewtonSchulzTest, SingularValuesInBand) {
  for (size_t i = 0; i < shapes().size(); ++i) {
    const BatchShape &s = shapes()[i];
    std::vector<float> g = input(i), o(g.size());
    ASSERT_TRUE(module->run(wrapperName("bf16", i), s.dims, g, o));
    double maxSv = 0, minSv = 1e9;
    for (int64_t b = 0; b < s.batch(); ++b) {
      std::vector<double> sv =
          singularValues(matrixOf(o, b, s.rows(), s.cols()));
      maxSv = std::max(maxSv, sv.front());
      minSv = std::min(minSv, sv.back());
    }
    std::printf("[ ns bf16 ] %-9s %-38s aspect %.2f  sv max %.4f  min %.4f\n",
                s.str().c_str(), s.what, s.aspect(), maxSv, minSv);
    EXPECT_LE(maxSv, 1.25) << s.str();
    if (s.aspect() >= 2.0) {
      EXPECT_GE(minSv, 0.6) << s.str();
    }
  }
}

TEST_F(NewtonSchulzTest, Bf16MatchesF64Iteration) {
  for (size_t i = 0; i < shapes().size(); ++i) {
    const BatchShape &s = shapes()[i];
    Deviation d = deviationFromF64("bf16", i);
    std::printf("[ ns bf16 vs f64 ] %-9s |O - O64|_F / |O64|_F %.4f  "
                "max |O - O64| %.4f\n",
                s.str().c_str(), d.relative, d.maxAbs);
    EXPECT_LE(d.relative, kBf16Tolerance) << s.str();
  }
}

TEST_F(NewtonSchulzTest, F32ComputeIsTheIteration) {
  for (size_t i = 0; i < shapes().size(); ++i) {
    const BatchShape &s = shapes()[i];
    Deviation d = deviationFromF64("f32", i);
    std::printf("[ ns f32 vs f64 ] %-9s |O - O64|_F / |O64|_F %.3g  "
                "max |O - O64| %.3g\n",
                s.str().c_str(), d.relative, d.maxAbs);
    EXPECT_LE(d.relative, kF32Tolerance) << s.str();
  }
}

} // namespace
