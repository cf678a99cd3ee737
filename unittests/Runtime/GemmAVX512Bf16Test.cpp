//===- GemmAVX512Bf16Test.cpp - the bf16 pairs kernel, bit for bit --------===//
//
// avx512GemmBf16's bits are a contract (runtime/cpu/GemmAVX512.h): each
// element is VDPBF16PS's chain over k in pairs (the odd product added
// first, then the even one, each rounded to f32), restarted every 512 k,
// the chains' sums added in k order; then alpha (a multiply) and beta C (a
// fused multiply-add) in f32, and one rounding to bf16. A product of two
// bf16 is exact in f32, so a scalar loop computes the same bits. Shapes
// cross the chains (512), the K block (1024), the row block (144) and the
// tiles (12 x 32); A and B row-major and transposed (the packs that
// transpose pairs in registers), D with unit column stride (rounded
// straight from the registers) and without (through the sums buffer).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Bf16.h"
#include "runtime/cpu/GemmAVX512.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <vector>

namespace {

using gptc::runtime::Bf16Epilogue;
using gptc::runtime::Bf16Matrix;
using gptc::runtime::bf16ToF32;
using gptc::runtime::f32ToBf16;

constexpr int64_t kChain = 512;

/// Element (i, j) of D = alpha A B + beta C as the contract sums it.
float referenceSum(const Bf16Matrix &a, const Bf16Matrix &b, int64_t i,
                   int64_t j) {
  auto at = [](const Bf16Matrix &x, int64_t r, int64_t c) {
    return bf16ToF32(x.ptr[r * x.rs + c * x.cs]);
  };
  const int64_t k = a.cols;
  float total = 0.0f;
  for (int64_t c0 = 0; c0 < k; c0 += kChain) {
    float chain = 0.0f;
    for (int64_t p = c0; p < std::min(k, c0 + kChain); p += 2) {
      if (p + 1 < k)
        chain += at(a, i, p + 1) * at(b, p + 1, j);
      chain += at(a, i, p) * at(b, p, j);
    }
    total = c0 == 0 ? chain : total + chain;
  }
  return total;
}

uint16_t referenceElement(const Bf16Matrix &a, const Bf16Matrix &b,
                          const Bf16Epilogue &e, int64_t i, int64_t j) {
  float v = e.alpha * referenceSum(a, b, i, j);
  if (e.beta != 0.0f)
    v = std::fma(e.beta, bf16ToF32(e.c[i * e.rs + j * e.cs]), v);
  return f32ToBf16(v);
}

/// Random bf16 values of a few bits of mantissa around 1, either sign.
std::vector<uint16_t> randomBf16(size_t count, std::mt19937 &gen) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<uint16_t> v(count);
  for (uint16_t &x : v)
    x = f32ToBf16(dist(gen));
  return v;
}

/// A stored matrix and its op() view: row-major, or stored transposed.
struct Operand {
  std::vector<uint16_t> data;
  Bf16Matrix view;

  Operand(int64_t rows, int64_t cols, bool transposed, std::mt19937 &gen)
      : data(randomBf16(size_t(rows * cols), gen)) {
    view = transposed ? Bf16Matrix{data.data(), rows, cols, 1, rows}
                      : Bf16Matrix{data.data(), rows, cols, cols, 1};
  }
};

class AVX512Bf16Gemm : public ::testing::Test {
protected:
  void SetUp() override {
    if (!gptc::runtime::avx512Bf16Available())
      GTEST_SKIP() << "no AVX512_BF16 on this CPU (or GPTC_GEMM_AVX512=0)";
  }
};

TEST_F(AVX512Bf16Gemm, EveryElementIsItsChainsInKOrder) {
  struct Shape {
    int64_t m, n, k;
  };
  std::mt19937 gen(2024);
  // 1101: an odd k in the second K block; n 3100: two column blocks.
  for (Shape s : {Shape{13, 33, 95}, Shape{40, 70, 512}, Shape{25, 40, 513},
                  Shape{150, 65, 1100}, Shape{20, 33, 1101},
                  Shape{12, 32, 2100}, Shape{13, 3100, 40}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int dUnit = 0; dUnit < 2; ++dUnit)
          for (float beta : {0.0f, 0.75f}) {
            // C's layout changes with A's: a column-major C under a
            // row-major D takes the sums buffer's rounding pass too.
            SCOPED_TRACE(::testing::Message()
                         << s.m << "x" << s.n << "x" << s.k << " ta " << ta
                         << " tb " << tb << " D unit stride " << dUnit
                         << " beta " << beta);
            Operand a(s.m, s.k, ta, gen), b(s.k, s.n, tb, gen);
            Operand c(s.m, s.n, ta, gen);
            std::vector<uint16_t> d(size_t(s.m * s.n), 0x7fc0);
            const Bf16Matrix dv = dUnit
                                      ? Bf16Matrix{d.data(), s.m, s.n, s.n, 1}
                                      : Bf16Matrix{d.data(), s.m, s.n, 1, s.m};
            const Bf16Epilogue e{-1.25f, beta, c.view.ptr, c.view.rs,
                                 c.view.cs};
            gptc::runtime::avx512GemmBf16(a.view, b.view, dv, e);
            int64_t bad = 0;
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < s.n; ++j) {
                const uint16_t want = referenceElement(a.view, b.view, e, i, j);
                const uint16_t got = d[size_t(i * dv.rs + j * dv.cs)];
                if (got != want && bad++ < 3)
                  ADD_FAILURE() << "D[" << i << "][" << j << "] = 0x"
                                << std::hex << got << ", want 0x" << want;
              }
            EXPECT_EQ(bad, 0);
          }
}

// The Gram rows [i0, i1): the elements on or below the diagonal are the
// contract's (beta C read there only), the rest of D untouched.
TEST_F(AVX512Bf16Gemm, GramRowsWriteTheLowerTriangleOnly) {
  std::mt19937 gen(7);
  for (int64_t k : {96, 1100})
    for (int trans = 0; trans < 2; ++trans)
      for (float beta : {0.0f, 0.75f}) {
        SCOPED_TRACE(::testing::Message()
                     << "k " << k << " trans " << trans << " beta " << beta);
        const int64_t m = 330, i0 = 37, i1 = 320; // two row blocks (144)
        Operand x(m, k, trans, gen), c(m, m, false, gen);
        const uint16_t untouched = 0x7fc0;
        std::vector<uint16_t> d(size_t(m * m), untouched);
        const Bf16Epilogue e{0.5f, beta, c.data.data(), m, 1};
        gptc::runtime::avx512GramLowerBf16(x.view, i0, i1,
                                           {d.data(), m, m, m, 1}, e);
        const Bf16Matrix xt{x.view.ptr, k, m, x.view.cs, x.view.rs};
        int64_t bad = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < m; ++j) {
            const bool written = i >= i0 && i < i1 && j <= i;
            const uint16_t want =
                written ? referenceElement(x.view, xt, e, i, j) : untouched;
            if (d[size_t(i * m + j)] != want && bad++ < 3)
              ADD_FAILURE() << "D[" << i << "][" << j << "] = 0x" << std::hex
                            << d[size_t(i * m + j)] << ", want 0x" << want;
          }
        EXPECT_EQ(bad, 0);
      }
}

} // namespace
