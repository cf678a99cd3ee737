//===- CrossEntropyKernelTest.cpp - Fused cross-entropy against f64 -------===//
//
// gpt.cross_entropy and gpt.cross_entropy_grad compiled through the real
// pipeline (JIT) at the real vocabulary size (50304), against
// nll = logsumexp(l) - l[t] and dl = g (softmax(l) - onehot(t)) in f64.
// The rows: random logits; all logits equal (a zero-initialised head:
// every element ties for the max, softmax = 1/V exactly); large logits
// (exp overflows without the max shift); one dominant logit.
//
//===----------------------------------------------------------------------===//

#include "unittests/Optim/CompiledModule.h"

#include "gtest/gtest.h"

#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

namespace {

using gptc::test::CompiledModule;

constexpr int64_t kRows = 4, kVocab = 50304;
const int32_t kTargets[kRows] = {17, 50303, 0, 4242};
const float kGrads[kRows] = {0.25f, -1.5f, 1.0f, 0.125f};

std::string tensorOf(const std::string &dims, const char *elt) {
  return "tensor<" + dims + "x" + elt + ">";
}

/// @fwd, @bwd over buffers [rows, vocab]: the logits in, the result out
/// (fwd: the nll in column 0). Targets and grads are constants.
std::string moduleText() {
  std::ostringstream s, t, g;
  for (int64_t i = 0; i < kRows; ++i) {
    t << (i ? ", " : "") << kTargets[i];
    g << (i ? ", " : "") << std::scientific << std::setprecision(9)
      << kGrads[i];
  }
  std::string rows = std::to_string(kRows), v = std::to_string(kVocab);
  std::string all = tensorOf(rows + "x" + v, "f32");
  std::string mall = "memref" + all.substr(6);
  std::string perRow = "tensor<" + rows + "xf32>";
  for (const char *name : {"fwd", "bwd"}) {
    s << "func.func @" << name << "(%in: " << mall << ", %out: " << mall
      << ") attributes {llvm.emit_c_interface} {\n"
      << "  %l = bufferization.to_tensor %in restrict : " << mall << " to "
      << all << "\n"
      << "  %t = arith.constant dense<[" << t.str() << "]> : tensor<" << rows
      << "xi32>\n"
      << "  %g = arith.constant dense<[" << g.str() << "]> : " << perRow
      << "\n";
    if (std::string(name) == "fwd")
      s << "  %nll = gpt.cross_entropy %l[%t] : " << all << ", tensor<" << rows
        << "xi32> -> " << perRow << "\n"
        << "  %z = arith.constant dense<0.0> : " << all << "\n"
        << "  %r = tensor.insert_slice %nll into %z[0, 0] [" << rows
        << ", 1] [1, 1] : " << perRow << " into " << all << "\n";
    else
      s << "  %r = gpt.cross_entropy_grad %l[%t], %g : " << all << ", tensor<"
        << rows << "xi32>, " << perRow << "\n";
    s << "  bufferization.materialize_in_destination %r in restrict writable "
         "%out : ("
      << all << ", " << mall << ") -> ()\n  return\n}\n";
  }
  return s.str();
}

TEST(CrossEntropyKernelTest, MatchesSoftmaxAtTheRealVocabulary) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> in(kRows * kVocab), out(in.size());
  for (int64_t j = 0; j < kVocab; ++j) {
    in[j] = 3.0f * normal(gen);               // random
    in[kVocab + j] = 0.0f;                    // every logit tied
    in[2 * kVocab + j] = 90.0f + normal(gen); // exp(l) overflows f32
    in[3 * kVocab + j] = -2.0f + 0.1f * normal(gen);
  }
  in[3 * kVocab + 4242] = 30.0f; // one dominant logit, the target

  std::string error;
  std::unique_ptr<CompiledModule> m =
      CompiledModule::compile(moduleText(), error);
  ASSERT_TRUE(m) << error;
  std::vector<int64_t> shape = {kRows, kVocab};
  ASSERT_TRUE(m->run<float>("fwd", shape, in, out));
  std::vector<float> nll(kRows);
  for (int64_t r = 0; r < kRows; ++r)
    nll[r] = out[r * kVocab];
  ASSERT_TRUE(m->run<float>("bwd", shape, in, out));

  for (int64_t r = 0; r < kRows; ++r) {
    const float *l = in.data() + r * kVocab;
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < kVocab; ++j)
      mx = std::max(mx, double(l[j]));
    for (int64_t j = 0; j < kVocab; ++j)
      sum += std::exp(double(l[j]) - mx);
    double nllRef = mx + std::log(sum) - l[kTargets[r]];
    double worstD = 0, worstTied = 0;
    int64_t worstAt = 0;
    for (int64_t j = 0; j < kVocab; ++j) {
      double ref = kGrads[r] * (std::exp(double(l[j]) - mx) / sum -
                                (j == kTargets[r] ? 1.0 : 0.0));
      // Error over tolerance: 1e-4 relative (an f32 sum of 50304 terms),
      // and |g| * 1e-7 absolute, since softmax - 1 at a target with p ~ 1
      // cancels in f32.
      double err = std::abs(out[r * kVocab + j] - ref) /
                   (1e-4 * std::abs(ref) + 1e-7 * std::abs(kGrads[r]));
      if (err > worstD)
        worstD = err, worstAt = j;
      if (r == 1 && j != kTargets[r])
        worstTied = std::max(worstTied, std::abs(out[r * kVocab + j] - ref) /
                                            std::abs(ref));
    }
    std::printf("[ cross_entropy ] row %lld: nll %.6f (f64 %.6f), worst "
                "error / tolerance of dl %.2f at %lld (%.3e, f64 %.3e)\n",
                static_cast<long long>(r), nll[r], nllRef, worstD,
                static_cast<long long>(worstAt), out[r * kVocab + worstAt],
                kGrads[r] * (std::exp(double(l[worstAt]) - mx) / sum -
                             (worstAt == kTargets[r] ? 1.0 : 0.0)));
    EXPECT_NEAR(nll[r], nllRef, 1e-5 * (1 + std::abs(nllRef))) << "row " << r;
    EXPECT_LE(worstD, 1.0) << "row " << r;
    if (r == 1) // every untargeted entry of a tied row is exactly g / V
      EXPECT_LT(worstTied, 1e-6);
  }
}

} // namespace
