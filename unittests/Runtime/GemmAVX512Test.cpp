//===- GemmAVX512Test.cpp - the AVX-512 sgemm against a double loop -------===//
//
// avx512Sgemm directly, on shapes around its tile (12 x 32) and block
// (K 256, M 144, N 3072) edges, every transpose, alpha and beta, C with a
// row stride wider than n (its padding must stay untouched) and NaNs in C
// when beta is 0 (never read). The GEMM entry points reach the same kernel
// (GemmTest.cpp); here each block boundary is hit on purpose.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/GemmAVX512.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using gptc::runtime::avx512Sgemm;
using gptc::runtime::avx512SgemmAvailable;

struct Shape {
  int64_t m, n, k;
};

/// Operands and C of one problem: A and B row-major with padded rows, C
/// with 5 spare columns per row.
struct Problem {
  bool ta, tb;
  Shape s;
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;

  Problem(bool ta, bool tb, Shape s, uint32_t seed) : ta(ta), tb(tb), s(s) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t aRows = ta ? s.k : s.m, aCols = ta ? s.m : s.k;
    const int64_t bRows = tb ? s.n : s.k, bCols = tb ? s.k : s.n;
    lda = aCols + 3;
    ldb = bCols + 1;
    ldc = s.n + 5;
    a.resize(size_t(aRows * lda));
    b.resize(size_t(bRows * ldb));
    c.resize(size_t(s.m * ldc));
    for (float &x : a)
      x = dist(gen);
    for (float &x : b)
      x = dist(gen);
    for (float &x : c)
      x = dist(gen);
  }

  float opA(int64_t i, int64_t p) const {
    return ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)];
  }
  float opB(int64_t p, int64_t j) const {
    return tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)];
  }

  void run(float alpha, float beta) {
    avx512Sgemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb,
                beta, c.data(), ldc);
  }
};

/// Runs one problem and checks every element against a double-precision
/// triple loop, and C's padding for writes.
void check(bool ta, bool tb, Shape s, float alpha, float beta) {
  SCOPED_TRACE(::testing::Message()
               << "ta " << ta << " tb " << tb << " m " << s.m << " n " << s.n
               << " k " << s.k << " alpha " << alpha << " beta " << beta);
  Problem p(ta, tb, s, uint32_t(s.m * 131 + s.n * 7 + s.k));
  if (beta == 0.0f)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        p.c[size_t(i * p.ldc + j)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> before = p.c;
  p.run(alpha, beta);
  // Each product is below 1 in magnitude: the f32 sum of k of them is
  // within k * 2^-22 or so of the exact one.
  const double tol = 1e-6 * double(s.k + 1);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      double want = 0.0;
      for (int64_t q = 0; q < s.k; ++q)
        want += double(p.opA(i, q)) * double(p.opB(q, j));
      want *= alpha;
      if (beta != 0.0f)
        want += double(beta) * double(before[size_t(i * p.ldc + j)]);
      ASSERT_NEAR(double(p.c[size_t(i * p.ldc + j)]), want, tol)
          << "C[" << i << "][" << j << "]";
    }
    for (int64_t j = s.n; j < p.ldc; ++j)
      ASSERT_EQ(std::memcmp(&p.c[size_t(i * p.ldc + j)],
                            &before[size_t(i * p.ldc + j)], sizeof(float)),
                0)
          << "wrote into C's padding at row " << i << " column " << j;
  }
}

class AVX512Sgemm : public ::testing::Test {
protected:
  void SetUp() override {
    if (!avx512SgemmAvailable())
      GTEST_SKIP() << "no AVX-512F on this CPU (or GPTC_GEMM_AVX512=0)";
  }
};

TEST_F(AVX512Sgemm, TileEdges) {
  // Partial tiles in every direction: rows around 12, columns around 16
  // and 32 (the two masked halves of a tile row), k of 1 and around the
  // packs' 16 x 16 transposed blocks.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int64_t m : {1, 11, 12, 13, 25})
        for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 70})
          for (int64_t k : {1, 9, 16, 17, 33})
            check(ta != 0, tb != 0, {m, n, k}, 1.0f, 1.0f);
}

TEST_F(AVX512Sgemm, BlockEdges) {
  // K blocks (256): one, exactly one, one and a bit, several; M blocks
  // (144) and N blocks (3072) likewise.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      for (int64_t k : {255, 256, 257, 700})
        check(ta != 0, tb != 0, {29, 45, k}, 1.0f, 0.0f);
      check(ta != 0, tb != 0, {145, 40, 20}, 1.0f, 1.0f);
      check(ta != 0, tb != 0, {300, 33, 270}, 0.5f, 2.0f);
      check(ta != 0, tb != 0, {13, 3100, 30}, 1.0f, 0.0f);
    }
}

TEST_F(AVX512Sgemm, AlphaAndBeta) {
  // alpha scales every K block's sums; beta applies once, in the first.
  for (float alpha : {1.0f, -0.75f, 0.0f})
    for (float beta : {0.0f, 1.0f, -2.5f})
      check(false, true, {20, 50, 600}, alpha, beta);
}

TEST_F(AVX512Sgemm, ZeroKScalesC) {
  Problem p(false, false, {3, 20, 0}, 7);
  p.c[0] = std::numeric_limits<float>::quiet_NaN();
  p.run(1.0f, 0.0f);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 20; ++j)
      ASSERT_EQ(p.c[size_t(i * p.ldc + j)], 0.0f);
  Problem q(false, false, {3, 20, 0}, 8);
  const std::vector<float> before = q.c;
  q.run(1.0f, 2.0f);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 20; ++j)
      ASSERT_EQ(q.c[size_t(i * q.ldc + j)],
                2.0f * before[size_t(i * q.ldc + j)]);
}

TEST_F(AVX512Sgemm, SplitsGiveTheSameBits) {
  // The runtime splits a GEMM over threads by rows or columns; each
  // element's sum must not depend on the split (runs are reproducible
  // whatever the thread count).
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const Shape s{150, 100, 530};
      Problem whole(ta != 0, tb != 0, s, 99);
      Problem rows = whole, cols = whole;
      whole.run(0.5f, 1.0f);
      // Rows [0, 37) and [37, 150); columns [0, 45) and [45, 100).
      for (auto [i0, len] : {std::pair<int64_t, int64_t>{0, 37}, {37, 113}})
        avx512Sgemm(rows.ta, rows.tb, len, s.n, s.k, 0.5f,
                    rows.a.data() + (rows.ta ? i0 : i0 * rows.lda), rows.lda,
                    rows.b.data(), rows.ldb, 1.0f,
                    rows.c.data() + i0 * rows.ldc, rows.ldc);
      for (auto [j0, len] : {std::pair<int64_t, int64_t>{0, 45}, {45, 55}})
        avx512Sgemm(cols.ta, cols.tb, s.m, len, s.k, 0.5f, cols.a.data(),
                    cols.lda, cols.b.data() + (cols.tb ? j0 * cols.ldb : j0),
                    cols.ldb, 1.0f, cols.c.data() + j0, cols.ldc);
      EXPECT_EQ(std::memcmp(whole.c.data(), rows.c.data(),
                            whole.c.size() * sizeof(float)),
                0)
          << "ta " << ta << " tb " << tb << ": split by rows differs";
      EXPECT_EQ(std::memcmp(whole.c.data(), cols.c.data(),
                            whole.c.size() * sizeof(float)),
                0)
          << "ta " << ta << " tb " << tb << ": split by columns differs";
    }
}

} // namespace
