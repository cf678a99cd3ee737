//===- GemmTest.cpp - gptc_gemm_* against a naive triple loop -------------===//

#include "runtime/cpu/GemmAMX.h"
#include "runtime/cpu/GemmAVX512.h"
#include "runtime/gptrt.h"

#include "gtest/gtest.h"

#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

/// A strided matrix in a larger buffer: X[b][i][j] = buf[off + b*bs + i*rs
/// + j*cs].
struct Layout {
  int64_t rs, cs, bs, size;
};

/// Layouts of a rows x cols matrix (batch `batch`) by kind:
/// 0 row-major packed, 1 column-major packed, 2 row-major with padding,
/// 3 column-major with padding, 4 neither (both strides > 1).
Layout layout(int kind, int64_t rows, int64_t cols, int64_t batch) {
  Layout l{};
  switch (kind) {
  case 0:
    l = {cols, 1, rows * cols, 0};
    break;
  case 1:
    l = {1, rows, rows * cols, 0};
    break;
  case 2:
    l = {cols + 3, 1, rows * (cols + 3) + 5, 0};
    break;
  case 3:
    l = {1, rows + 2, (rows + 2) * cols + 7, 0};
    break;
  default:
    l = {2, 2 * rows + 1, (2 * rows + 1) * cols + 3, 0};
    break;
  }
  l.size = l.bs * batch + rows * cols * 4 + 16;
  return l;
}

template <typename T> struct Case {
  bool ta, tb;
  int64_t m, n, k, batch;
  int kindA, kindB, kindC;
  T beta;
  T alpha = T(1);
  /// C in a buffer of its own (layout kindC + 1) instead of D's.
  bool separateC = false;
};

/// Runs `gemm` on random data and compares every element of D (and that
/// D's padding, and a separate C, are untouched) with a double-precision
/// triple loop.
template <typename T, typename Fn>
void check(const Case<T> &c, Fn gemm, double tol) {
  std::mt19937 gen(1234);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  int64_t ar = c.ta ? c.k : c.m, ac = c.ta ? c.m : c.k;
  int64_t br = c.tb ? c.n : c.k, bc = c.tb ? c.k : c.n;
  Layout la = layout(c.kindA, ar, ac, c.batch);
  Layout lb = layout(c.kindB, br, bc, c.batch);
  Layout lc = layout(c.kindC, c.m, c.n, c.batch);
  std::vector<T> a(size_t(la.size)), b(size_t(lb.size)), cbuf(size_t(lc.size));
  for (T &x : a)
    x = T(dist(gen));
  for (T &x : b)
    x = T(dist(gen));
  for (T &x : cbuf)
    x = T(dist(gen));
  // beta 0 must ignore C, NaNs included.
  if (c.beta == T(0))
    for (int64_t bi = 0; bi < c.batch; ++bi)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j)
          cbuf[size_t(bi * lc.bs + i * lc.rs + j * lc.cs)] =
              std::numeric_limits<T>::quiet_NaN();
  std::vector<T> before = cbuf;
  // A separate C: D starts as NaN (it must be written, not read).
  Layout ls = layout((c.kindC + 1) % 5, c.m, c.n, c.batch);
  std::vector<T> src;
  if (c.separateC) {
    src.resize(size_t(ls.size));
    for (T &x : src)
      x = T(dist(gen));
    for (int64_t bi = 0; bi < c.batch; ++bi)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j)
          cbuf[size_t(bi * lc.bs + i * lc.rs + j * lc.cs)] =
              std::numeric_limits<T>::quiet_NaN();
    before = cbuf;
  }
  std::vector<T> srcBefore = src;
  const Layout &lsrc = c.separateC ? ls : lc;
  T *csrc = c.separateC ? src.data() : cbuf.data();

  gemm(c.ta, c.tb, c.m, c.n, c.k, uintptr_t(a.data()), la.rs, la.cs, la.bs,
       uintptr_t(b.data()), lb.rs, lb.cs, lb.bs, c.alpha, c.beta,
       uintptr_t(csrc), lsrc.rs, lsrc.cs, lsrc.bs, uintptr_t(cbuf.data()),
       lc.rs, lc.cs, lc.bs, c.batch);
  EXPECT_EQ(src, srcBefore) << "wrote into C";

  std::vector<bool> inC(cbuf.size(), false);
  for (int64_t bi = 0; bi < c.batch; ++bi)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double want = 0.0;
        for (int64_t p = 0; p < c.k; ++p) {
          int64_t ai = c.ta ? p : i, aj = c.ta ? i : p;
          int64_t bi2 = c.tb ? j : p, bj = c.tb ? p : j;
          want += double(a[size_t(bi * la.bs + ai * la.rs + aj * la.cs)]) *
                  double(b[size_t(bi * lb.bs + bi2 * lb.rs + bj * lb.cs)]);
        }
        size_t at = size_t(bi * lc.bs + i * lc.rs + j * lc.cs);
        want *= double(c.alpha);
        if (c.beta != T(0))
          want += double(c.beta) *
                  double(c.separateC
                             ? src[size_t(bi * ls.bs + i * ls.rs + j * ls.cs)]
                             : before[at]);
        inC[at] = true;
        ASSERT_NEAR(double(cbuf[at]), want, tol)
            << "batch " << bi << " C[" << i << "][" << j << "]";
      }
  for (size_t i = 0; i < cbuf.size(); ++i) {
    if (!inC[i]) {
      ASSERT_EQ(std::memcmp(&cbuf[i], &before[i], sizeof(T)), 0)
          << "wrote outside C at element " << i;
    }
  }
}

TEST(Gemm, F32Epilogues) {
  // D = alpha op(A) op(B) + beta C with any alpha and beta, C separate
  // from D or D itself, batched and not.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int kind = 0; kind < 5; ++kind)
        for (float alpha : {1.0f, -0.75f})
          for (float beta : {0.0f, 1.0f, 2.5f})
            for (bool separate : {false, true}) {
              SCOPED_TRACE(::testing::Message()
                           << "ta " << ta << " tb " << tb << " kind " << kind
                           << " alpha " << alpha << " beta " << beta
                           << " separate C " << separate);
              Case<float> c{ta != 0,        tb != 0,        5,   7, 6, 3, kind,
                            (kind + 1) % 5, (kind + 2) % 5, beta};
              c.alpha = alpha;
              c.separateC = separate;
              check<float>(c, gptc_gemm_f32, 1e-5);
            }
}

TEST(Gemm, F32AllTransposesLayoutsAndBetas) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int kindA = 0; kindA < 5; ++kindA)
        for (int kindB = 0; kindB < 5; ++kindB)
          for (int kindC = 0; kindC < 5; ++kindC)
            for (float beta : {0.0f, 1.0f}) {
              SCOPED_TRACE(::testing::Message()
                           << "ta " << ta << " tb " << tb << " A " << kindA
                           << " B " << kindB << " C " << kindC << " beta "
                           << beta);
              check<float>(
                  {ta != 0, tb != 0, 5, 7, 6, 3, kindA, kindB, kindC, beta},
                  gptc_gemm_f32, 1e-5);
            }
}

TEST(Gemm, F64AllTransposes) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int kind = 0; kind < 5; ++kind)
        for (double beta : {0.0, 1.0}) {
          SCOPED_TRACE(::testing::Message()
                       << "ta " << ta << " tb " << tb << " kind " << kind);
          Case<double> c{ta != 0,        tb != 0,        4,   9, 5, 2, kind,
                         (kind + 1) % 5, (kind + 2) % 5, beta};
          check<double>(c, gptc_gemm_f64, 1e-12);
          c.alpha = 0.5;
          c.beta = beta == 0.0 ? 0.0 : -3.0;
          c.separateC = true;
          check<double>(c, gptc_gemm_f64, 1e-12);
        }
}

TEST(Gemm, EdgeShapes) {
  // Vectors (m or n = 1), k = 1, a single batch, and a large-ish GEMM.
  for (int kind = 0; kind < 5; ++kind) {
    check<float>({false, false, 1, 7, 5, 2, kind, kind, kind, 1.0f},
                 gptc_gemm_f32, 1e-5);
    check<float>({true, false, 7, 1, 5, 2, kind, kind, kind, 0.0f},
                 gptc_gemm_f32, 1e-5);
    check<float>({false, true, 4, 3, 1, 1, kind, kind, kind, 1.0f},
                 gptc_gemm_f32, 1e-5);
  }
  check<float>({true, true, 64, 48, 80, 2, 0, 1, 0, 1.0f}, gptc_gemm_f32, 1e-4);
}

TEST(Gemm, ZeroKWritesBetaC) {
  std::vector<float> c = {std::nanf(""), std::nanf(""), 3, 4, 0, 0};
  gptc_gemm_f32(0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 2, 1, 0, 1.0f, 0.0f,
                uintptr_t(c.data()), 2, 1, 0, uintptr_t(c.data()), 2, 1, 0, 1);
  gptc_gemm_f32(0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 2, 1, 0, 1.0f, 1.0f,
                uintptr_t(c.data() + 2), 2, 1, 0, uintptr_t(c.data() + 2), 2, 1,
                0, 1);
  // D = beta C from a separate C.
  gptc_gemm_f32(0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 2, 1, 0, 1.0f, 0.5f,
                uintptr_t(c.data() + 2), 2, 1, 0, uintptr_t(c.data() + 4), 2, 1,
                0, 1);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 3, 4, 1.5f, 2}));
}

/// D = alpha op(A) op(B) + beta C with C in a buffer of its own must be,
/// bit for bit, what the same call gives with C already in D's buffer (the
/// runtime copies C into D scaled by beta where BLAS would scale D in a
/// pass of its own): small and split shapes, every transpose, five layouts
/// of D (the last one neither row- nor column-major), one and two threads.
template <typename T, typename Gemm> void checkSeparateCIsInPlace(Gemm gemm) {
  struct Shape {
    int64_t m, n, k;
  };
  const int threads = omp_get_max_threads();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (int t : {1, 2})
    for (Shape s : {Shape{5, 6, 7}, Shape{96, 80, 72}, Shape{40, 200, 64}})
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          for (int kind = 0; kind < 5; ++kind) {
            SCOPED_TRACE(::testing::Message()
                         << t << " threads, " << s.m << " x " << s.n << " x "
                         << s.k << " ta " << ta << " tb " << tb << " kind "
                         << kind);
            omp_set_num_threads(t);
            Layout la = layout(kind, ta ? s.k : s.m, ta ? s.m : s.k, 1);
            Layout lb =
                layout((kind + 1) % 5, tb ? s.n : s.k, tb ? s.k : s.n, 1);
            Layout lc = layout((kind + 2) % 5, s.m, s.n, 1);
            Layout ld = layout((kind + 3) % 5, s.m, s.n, 1);
            std::mt19937 gen(unsigned(kind + 5 * t));
            std::uniform_real_distribution<double> dist(-1.0, 1.0);
            auto random = [&](const Layout &l) {
              std::vector<T> v(size_t(l.size));
              for (T &x : v)
                x = T(dist(gen));
              return v;
            };
            std::vector<T> a = random(la), b = random(lb), c = random(lc);
            std::vector<T> separate(size_t(ld.size), nan), inPlace = separate;
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < s.n; ++j)
                inPlace[size_t(i * ld.rs + j * ld.cs)] =
                    c[size_t(i * lc.rs + j * lc.cs)];
            const T alpha = T(0.75), beta = T(-4.775);
            gemm(ta, tb, s.m, s.n, s.k, uintptr_t(a.data()), la.rs, la.cs, 0,
                 uintptr_t(b.data()), lb.rs, lb.cs, 0, alpha, beta,
                 uintptr_t(c.data()), lc.rs, lc.cs, 0,
                 uintptr_t(separate.data()), ld.rs, ld.cs, 0, 1);
            gemm(ta, tb, s.m, s.n, s.k, uintptr_t(a.data()), la.rs, la.cs, 0,
                 uintptr_t(b.data()), lb.rs, lb.cs, 0, alpha, beta,
                 uintptr_t(inPlace.data()), ld.rs, ld.cs, 0,
                 uintptr_t(inPlace.data()), ld.rs, ld.cs, 0, 1);
            int64_t differ = 0;
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < s.n; ++j) {
                size_t at = size_t(i * ld.rs + j * ld.cs);
                differ +=
                    std::memcmp(&separate[at], &inPlace[at], sizeof(T)) != 0;
              }
            EXPECT_EQ(differ, 0) << "elements differ from C in place";
          }
  omp_set_num_threads(threads);
}

TEST(Gemm, F32SeparateCIsBitForBitCInPlace) {
  checkSeparateCIsInPlace<float>(gptc_gemm_f32);
}

TEST(Gemm, F64SeparateCIsBitForBitCInPlace) {
  checkSeparateCIsInPlace<double>(gptc_gemm_f64);
}

uint16_t toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Random bf16 operands of C = op(A) op(B) + beta C in uniform(-2, 2):
/// A, B and C in layouts kind, kind + 1 and kind + 2 (mod 5); C is NaN
/// when beta is 0 (it must not be read).
struct Bf16Operands {
  Layout la, lb, lc;
  std::vector<uint16_t> a, b, c;
  Bf16Operands(int ta, int tb, int64_t m, int64_t n, int64_t k, int64_t batch,
               int kind, float beta, unsigned seed)
      : la(layout(kind, ta ? k : m, ta ? m : k, batch)),
        lb(layout((kind + 1) % 5, tb ? n : k, tb ? k : n, batch)),
        lc(layout((kind + 2) % 5, m, n, batch)), a(size_t(la.size)),
        b(size_t(lb.size)), c(size_t(lc.size)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (uint16_t &x : a)
      x = toBf16(dist(gen));
    for (uint16_t &x : b)
      x = toBf16(dist(gen));
    for (uint16_t &x : c)
      x = beta == 0.0f ? 0x7fc0 : toBf16(dist(gen));
  }
};

/// The exact sum over p of op(A)[bi](i, p) op(B)[bi](p, j) of `ops`, and
/// the sum of the terms' magnitudes (in double: products of bf16 values
/// are exact).
std::pair<double, double> exactProduct(const Bf16Operands &ops, int ta, int tb,
                                       int64_t k, int64_t bi, int64_t i,
                                       int64_t j) {
  const Layout &la = ops.la, &lb = ops.lb;
  double sum = 0.0, magnitude = 0.0;
  for (int64_t p = 0; p < k; ++p) {
    int64_t ai = ta ? p : i, aj = ta ? i : p;
    int64_t bi2 = tb ? j : p, bj = tb ? p : j;
    double term =
        double(fromBf16(ops.a[size_t(bi * la.bs + ai * la.rs + aj * la.cs)])) *
        double(fromBf16(ops.b[size_t(bi * lb.bs + bi2 * lb.rs + bj * lb.cs)]));
    sum += term;
    magnitude += std::fabs(term);
  }
  return {sum, magnitude};
}

/// Runs `body(ta, tb, kind, beta)` for both transposes of A and B, every
/// layout kind and beta 0 and 1, each traced.
template <typename Body> void forEachBf16Case(Body body) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int kind = 0; kind < 5; ++kind)
        for (float beta : {0.0f, 1.0f}) {
          SCOPED_TRACE(::testing::Message()
                       << "ta " << ta << " tb " << tb << " kind " << kind
                       << " beta " << beta);
          body(ta, tb, kind, beta);
        }
}

TEST(Gemm, Bf16MatchesF32ThenRounded) {
  forEachBf16Case([](int ta, int tb, int kind, float beta) {
    const int64_t m = 5, n = 6, k = 7, batch = 2;
    Bf16Operands ops(ta, tb, m, n, k, batch, kind, beta, 7);
    const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
    std::vector<uint16_t> &a = ops.a, &b = ops.b, &c = ops.c;
    std::vector<uint16_t> before = c;
    gptc_gemm_bf16(ta, tb, m, n, k, uintptr_t(a.data()), la.rs, la.cs, la.bs,
                   uintptr_t(b.data()), lb.rs, lb.cs, lb.bs, 1.0f, beta,
                   uintptr_t(c.data()), lc.rs, lc.cs, lc.bs,
                   uintptr_t(c.data()), lc.rs, lc.cs, lc.bs, batch);
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = exactProduct(ops, ta, tb, k, bi, i, j).first;
          size_t at = size_t(bi * lc.bs + i * lc.rs + j * lc.cs);
          if (beta != 0.0f)
            want += double(fromBf16(before[at]));
          // The f32 result differs from `want` by ~1e-6; its bf16
          // rounding is then within half a bf16 ulp (2^-8 relative).
          float got = fromBf16(c[at]);
          EXPECT_NEAR(got, want, std::fabs(want) * 0x1p-8 + 1e-5)
              << "C[" << i << "][" << j << "]";
          EXPECT_EQ(c[at], toBf16(float(want)))
              << "not the nearest bf16 of C[" << i << "][" << j << "]";
        }
  });
}

TEST(Gemm, Bf16IntoF32IsTheSumWithoutRounding) {
  forEachBf16Case([](int ta, int tb, int kind, float beta) {
    const int64_t m = 5, n = 6, k = 7, batch = 2;
    Bf16Operands ops(ta, tb, m, n, k, batch, kind, beta, 11);
    const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
    std::vector<float> c(size_t(lc.size));
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = beta == 0.0f ? NAN : 0.25f * float(i % 7) - 0.5f;
    std::vector<float> before = c;
    gptc_gemm_bf16_f32(ta, tb, m, n, k, uintptr_t(ops.a.data()), la.rs, la.cs,
                       la.bs, uintptr_t(ops.b.data()), lb.rs, lb.cs, lb.bs,
                       0.5f, beta, uintptr_t(c.data()), lc.rs, lc.cs, lc.bs,
                       uintptr_t(c.data()), lc.rs, lc.cs, lc.bs, batch);
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          auto [sum, size] = exactProduct(ops, ta, tb, k, bi, i, j);
          double want = 0.5 * sum;
          size_t at = size_t(bi * lc.bs + i * lc.rs + j * lc.cs);
          if (beta != 0.0f)
            want += double(before[at]);
          // An f32 sum of exact products: within k f32 ulps of the terms,
          // far below a bf16 ulp (2^-8 relative), which a rounding would
          // show.
          EXPECT_NEAR(c[at], want, 1e-6 * (size + 1.0))
              << "C[" << i << "][" << j << "]";
        }
  });
}

TEST(Gemm, Bf16RoundsToNearestEven) {
  // 1 x 1 x 1: C = A * B with A = 1 and B chosen exactly between two bf16.
  uint16_t one = toBf16(1.0f);
  // beta 1: C = 1 * B + C; B = 1, C = 2^-8 (half an ulp of 1 in bf16) ->
  // 1 + 2^-8 is a tie, rounds to even (1.0).
  uint16_t b = toBf16(1.0f), c = toBf16(0x1p-8f);
  gptc_gemm_bf16(0, 0, 1, 1, 1, uintptr_t(&one), 1, 1, 0, uintptr_t(&b), 1, 1,
                 0, 1.0f, 1.0f, uintptr_t(&c), 1, 1, 0, uintptr_t(&c), 1, 1, 0,
                 1);
  EXPECT_EQ(fromBf16(c), 1.0f);
  // 1 + 3 * 2^-8 is a tie between 1 + 2^-7 and 1 + 2^-6: rounds to the
  // even mantissa, 1 + 2^-6.
  c = toBf16(3 * 0x1p-8f);
  gptc_gemm_bf16(0, 0, 1, 1, 1, uintptr_t(&one), 1, 1, 0, uintptr_t(&b), 1, 1,
                 0, 1.0f, 1.0f, uintptr_t(&c), 1, 1, 0, uintptr_t(&c), 1, 1, 0,
                 1);
  EXPECT_EQ(fromBf16(c), 1.0f + 0x1p-6f);
}

// A bf16 GEMM large enough to be split among two threads, on the f32
// path: every element must be, bit for bit, the bf16 rounding of what the
// f32 entry point computes from the widened operands on the same threads
// (the bf16 path widens each operand once and splits the f32 GEMM as
// gptc_gemm_f32 does). Strided, transposed and column-major operands, beta
// 0 (C never read: NaN) and 1.
TEST(Gemm, Bf16SplitAmongThreadsIsTheRoundedF32Gemm) {
  if (gptc::runtime::amxBf16Available() || gptc::runtime::avx512Bf16Available())
    GTEST_SKIP() << "bf16 GEMMs run on AMX or AVX512_BF16 here, not widened";
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  const int64_t m = 96, n = 80, k = 72; // 552,960 multiply-adds: split
  forEachBf16Case([&](int ta, int tb, int kind, float beta) {
    Bf16Operands ops(ta, tb, m, n, k, 1, kind, beta, 11);
    const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
    // The same operands widened by hand (same strides), C into a
    // separate f32 D.
    auto widen = [](const std::vector<uint16_t> &x) {
      std::vector<float> f(x.size());
      for (size_t i = 0; i < x.size(); ++i)
        f[i] = fromBf16(x[i]);
      return f;
    };
    std::vector<float> fa = widen(ops.a), fb = widen(ops.b), fc = widen(ops.c),
                       fd(size_t(m * n));
    gptc_gemm_f32(ta, tb, m, n, k, uintptr_t(fa.data()), la.rs, la.cs, 0,
                  uintptr_t(fb.data()), lb.rs, lb.cs, 0, 0.5f, beta,
                  uintptr_t(fc.data()), lc.rs, lc.cs, 0, uintptr_t(fd.data()),
                  n, 1, 0, 1);
    gptc_gemm_bf16(ta, tb, m, n, k, uintptr_t(ops.a.data()), la.rs, la.cs, 0,
                   uintptr_t(ops.b.data()), lb.rs, lb.cs, 0, 0.5f, beta,
                   uintptr_t(ops.c.data()), lc.rs, lc.cs, 0,
                   uintptr_t(ops.c.data()), lc.rs, lc.cs, 0, 1);
    int64_t wrong = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        wrong += ops.c[size_t(i * lc.rs + j * lc.cs)] !=
                 toBf16(fd[size_t(i * n + j)]);
    EXPECT_EQ(wrong, 0) << "elements not the rounded f32 result";
  });
  omp_set_num_threads(threads);
}

// Newton-Schulz's c A A + b A passes one matrix as both operands (widened
// once on the f32 path): D must be, bit for bit, the product with a copy
// of it as B. A A and A A^T, batched (one item per thread) and one item
// split among two threads.
TEST(Gemm, Bf16OperandPassedTwiceIsTheProductWithACopy) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  for (auto [m, batch] : {std::pair<int64_t, int64_t>{24, 3}, {96, 1}})
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE(::testing::Message()
                   << m << " x " << m << " batch " << batch << " tb " << tb);
      std::mt19937 gen(unsigned(m + tb));
      std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
      const int64_t bs = m * m;
      std::vector<uint16_t> a(size_t(bs * batch)), c(a.size());
      for (uint16_t &x : a)
        x = toBf16(dist(gen));
      for (uint16_t &x : c)
        x = toBf16(dist(gen));
      std::vector<uint16_t> copy = a, once(a.size()), twice(a.size());
      auto run = [&](const std::vector<uint16_t> &b, std::vector<uint16_t> &d) {
        gptc_gemm_bf16(0, tb, m, m, m, uintptr_t(a.data()), m, 1, bs,
                       uintptr_t(b.data()), m, 1, bs, -4.775f, 2.0315f,
                       uintptr_t(c.data()), m, 1, bs, uintptr_t(d.data()), m, 1,
                       bs, batch);
      };
      run(a, once);
      run(copy, twice);
      EXPECT_EQ(once, twice);
    }
  omp_set_num_threads(threads);
}

/// The epilogues the large bf16 cases run: D = alpha sums + beta C, C in
/// D's buffer or (Newton-Schulz's coefficients) a buffer of its own.
struct Bf16Epilogue {
  float alpha, beta;
  bool separateC;
};
constexpr Bf16Epilogue kBf16Epilogues[] = {
    {1.0f, 0.0f, false}, {1.0f, 1.0f, false}, {-4.775f, 2.0315f, true}};

/// D = alpha op(A) op(B) + beta C through `gemm` (a gptc_gemm_bf16-like
/// call with batch 1: ..., alpha, beta, c, lc, d, ld) against an f64
/// reference, for shapes that cover partial tiles, several K blocks (512)
/// and several M blocks (256). Each entry must be within half a bf16 ulp
/// of the exact value plus the f32 rounding of the sums (k * 2^-23 * sum
/// |alpha a b| + |beta c|).
template <typename Gemm> void checkLargeBf16(Gemm gemm) {
  struct Shape {
    int64_t m, n, k;
  };
  for (Shape sh : {Shape{33, 47, 95}, Shape{64, 64, 64}, Shape{1, 100, 700},
                   Shape{100, 1, 40}, Shape{70, 90, 1100}, Shape{300, 40, 64}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int kind : {0, 1, 4})
          for (Bf16Epilogue e : kBf16Epilogues) {
            const int64_t m = sh.m, n = sh.n, k = sh.k;
            SCOPED_TRACE(::testing::Message()
                         << m << "x" << n << "x" << k << " ta " << ta << " tb "
                         << tb << " kind " << kind << " alpha " << e.alpha
                         << " beta " << e.beta << " separate C "
                         << e.separateC);
            Bf16Operands ops(ta, tb, m, n, k, 1, kind, e.beta,
                             unsigned(m * 131 + n * 7 + k));
            const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
            std::vector<uint16_t> &a = ops.a, &b = ops.b, &c = ops.c;
            // A separate C: the operands' C becomes the source, D a NaN
            // buffer in another layout.
            Layout ld = e.separateC ? layout((kind + 3) % 5, m, n, 1) : lc;
            std::vector<uint16_t> d =
                e.separateC ? std::vector<uint16_t>(size_t(ld.size), 0x7fc0)
                            : c;
            std::vector<uint16_t> before = c;
            gemm(ta, tb, m, n, k, a.data(), la, b.data(), lb, e.alpha, e.beta,
                 e.separateC ? c.data() : d.data(), lc, d.data(), ld);
            if (e.separateC) {
              EXPECT_EQ(c, before) << "wrote into C";
            }
            int64_t bad = 0;
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double want = 0.0, magnitude = 0.0;
                for (int64_t p = 0; p < k; ++p) {
                  int64_t ai = ta ? p : i, aj = ta ? i : p;
                  int64_t bi = tb ? j : p, bj = tb ? p : j;
                  double prod =
                      double(fromBf16(a[size_t(ai * la.rs + aj * la.cs)])) *
                      double(fromBf16(b[size_t(bi * lb.rs + bj * lb.cs)]));
                  want += prod;
                  magnitude += std::fabs(prod);
                }
                want *= e.alpha;
                magnitude *= std::fabs(e.alpha);
                if (e.beta != 0.0f) {
                  double cv =
                      e.beta *
                      double(fromBf16(before[size_t(i * lc.rs + j * lc.cs)]));
                  want += cv;
                  magnitude += std::fabs(cv);
                }
                double tol =
                    std::fabs(want) * 0x1p-8 + double(k) * 0x1p-23 * magnitude;
                double got = fromBf16(d[size_t(i * ld.rs + j * ld.cs)]);
                if (!(std::fabs(got - want) <= tol) && bad++ < 3)
                  ADD_FAILURE() << "D[" << i << "][" << j << "] = " << got
                                << ", want " << want << " +- " << tol;
              }
            EXPECT_EQ(bad, 0);
          }
}

TEST(Gemm, Bf16LargeShapesThroughTheEntryPoint) {
  checkLargeBf16([](int ta, int tb, int64_t m, int64_t n, int64_t k,
                    uint16_t *a, Layout la, uint16_t *b, Layout lb, float alpha,
                    float beta, uint16_t *c, Layout lc, uint16_t *d,
                    Layout ld) {
    gptc_gemm_bf16(ta, tb, m, n, k, uintptr_t(a), la.rs, la.cs, la.bs,
                   uintptr_t(b), lb.rs, lb.cs, lb.bs, alpha, beta, uintptr_t(c),
                   lc.rs, lc.cs, lc.bs, uintptr_t(d), ld.rs, ld.cs, ld.bs, 1);
  });
}

/// `kernel(opA, opB, D, epilogue)` (amxGemmBf16 or avx512GemmBf16) as the
/// gemm of checkLargeBf16: the transposes become strides.
template <typename Kernel> void checkBf16Kernel(Kernel kernel) {
  using gptc::runtime::Bf16Matrix;
  checkLargeBf16([&](int ta, int tb, int64_t m, int64_t n, int64_t k,
                     uint16_t *a, Layout la, uint16_t *b, Layout lb,
                     float alpha, float beta, uint16_t *c, Layout lc,
                     uint16_t *d, Layout ld) {
    Bf16Matrix opA = ta ? Bf16Matrix{a, m, k, la.cs, la.rs}
                        : Bf16Matrix{a, m, k, la.rs, la.cs};
    Bf16Matrix opB = tb ? Bf16Matrix{b, k, n, lb.cs, lb.rs}
                        : Bf16Matrix{b, k, n, lb.rs, lb.cs};
    kernel(opA, opB, Bf16Matrix{d, m, n, ld.rs, ld.cs},
           gptc::runtime::Bf16Epilogue{alpha, beta, c, lc.rs, lc.cs});
  });
}

// The AMX kernel on its own, on one thread (the entry point splits C over
// threads and may take the f32 path for some blocks).
TEST(Gemm, Bf16AMXKernel) {
  if (!gptc::runtime::amxBf16Available())
    GTEST_SKIP() << "no AMX-BF16 on this CPU (or GPTC_GEMM_AMX=0)";
  checkBf16Kernel(gptc::runtime::amxGemmBf16);
}

// The AVX512_BF16 kernel on its own: odd k (a zero pads the last pair),
// several K blocks (512), partial 12 x 32 tiles, strided and transposed
// operands, a separate C.
TEST(Gemm, Bf16AVX512PairsKernel) {
  if (!gptc::runtime::avx512Bf16Available())
    GTEST_SKIP() << "no AVX512_BF16 on this CPU (or GPTC_GEMM_AVX512=0)";
  checkBf16Kernel(gptc::runtime::avx512GemmBf16);
}

/// D = alpha op(A) op(A)^T through an entry point with A and B the same
/// buffer (what Newton-Schulz's X X^T passes): the symmetric path (one
/// triangle, mirrored; AMX's symmetric kernel where it runs) must give
/// every entry within `tol(want, k, sum |terms|)` and an exactly symmetric
/// D. Batches of 3 (one item per thread) and of 1 (the triangle split
/// over the threads).
template <typename T, typename Store, typename Load, typename Gemm>
void checkGram(Store store, Load load, Gemm gemm,
               double (*tol)(double, int64_t, double)) {
  std::mt19937 gen(99);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  for (int64_t m : {1, 33, 64, 100, 300})
    for (int64_t k : {40, 95, 700})
      for (int64_t batch : {1, 3})
        for (int ta = 0; ta < 2; ++ta)
          for (int kind : {0, 1, 4}) {
            SCOPED_TRACE(::testing::Message()
                         << "m " << m << " k " << k << " batch " << batch
                         << " ta " << ta << " kind " << kind);
            Layout la = layout(kind, ta ? k : m, ta ? m : k, batch);
            Layout ld = layout((kind + 2) % 5, m, m, batch);
            std::vector<T> a(size_t(la.size)), d(size_t(ld.size));
            for (T &x : a)
              x = store(dist(gen));
            for (T &x : d)
              x = store(std::nan(""));
            const double alpha = -1.5;
            gemm(ta, !ta, m, m, k, uintptr_t(a.data()), la.rs, la.cs, la.bs,
                 uintptr_t(a.data()), la.rs, la.cs, la.bs, alpha, 0.0, 0, 0, 0,
                 0, uintptr_t(d.data()), ld.rs, ld.cs, ld.bs, batch);
            int64_t bad = 0;
            for (int64_t bi = 0; bi < batch; ++bi) {
              auto opA = [&](int64_t i, int64_t p) {
                return double(
                    load(ta ? a[size_t(bi * la.bs + p * la.rs + i * la.cs)]
                            : a[size_t(bi * la.bs + i * la.rs + p * la.cs)]));
              };
              auto at = [&](int64_t i, int64_t j) {
                return d[size_t(bi * ld.bs + i * ld.rs + j * ld.cs)];
              };
              // op(A) as doubles, row-major: the reference's dot products
              // read contiguous rows (the same sums in the same order).
              std::vector<double> rows(size_t(m * k));
              for (int64_t i = 0; i < m; ++i)
                for (int64_t p = 0; p < k; ++p)
                  rows[size_t(i * k + p)] = opA(i, p);
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < m; ++j) {
                  double want = 0.0, magnitude = 0.0;
                  const double *ri = &rows[size_t(i * k)],
                               *rj = &rows[size_t(j * k)];
                  for (int64_t p = 0; p < k; ++p) {
                    want += ri[p] * rj[p];
                    magnitude += std::fabs(ri[p] * rj[p]);
                  }
                  want *= alpha;
                  magnitude *= -alpha;
                  double got = double(load(at(i, j)));
                  if (!(std::fabs(got - want) <= tol(want, k, magnitude)) &&
                      bad++ < 3)
                    ADD_FAILURE() << "D[" << bi << "][" << i << "][" << j
                                  << "] = " << got << ", want " << want;
                  if (std::memcmp(
                          &d[size_t(bi * ld.bs + i * ld.rs + j * ld.cs)],
                          &d[size_t(bi * ld.bs + j * ld.rs + i * ld.cs)],
                          sizeof(T)) != 0 &&
                      bad++ < 3)
                    ADD_FAILURE() << "D[" << i << "][" << j << "] != D[" << j
                                  << "][" << i << "]";
                }
            }
            EXPECT_EQ(bad, 0);
          }
}

TEST(Gemm, Bf16GramMatrix) {
  checkGram<uint16_t>([](double v) { return toBf16(float(v)); },
                      [](uint16_t h) { return fromBf16(h); },
                      [](auto... args) { gptc_gemm_bf16(args...); },
                      [](double want, int64_t k, double magnitude) {
                        return std::fabs(want) * 0x1p-8 +
                               double(k) * 0x1p-23 * magnitude;
                      });
}

TEST(Gemm, F32GramMatrix) {
  checkGram<float>([](double v) { return float(v); }, [](float v) { return v; },
                   [](auto... args) { gptc_gemm_f32(args...); },
                   [](double, int64_t k, double magnitude) {
                     return double(k) * 0x1p-23 * magnitude;
                   });
}

TEST(Gemm, F64GramMatrix) {
  checkGram<double>([](double v) { return v; }, [](double v) { return v; },
                    [](auto... args) { gptc_gemm_f64(args...); },
                    [](double, int64_t k, double magnitude) {
                      return double(k) * 0x1p-50 * magnitude;
                    });
}

// The symmetric kernel on its own (skipped without AMX).
TEST(Gemm, Bf16AMXSymmetricKernelMirrorsBlocks) {
  if (!gptc::runtime::amxBf16Available())
    GTEST_SKIP() << "no AMX-BF16 on this CPU (or GPTC_GEMM_AMX=0)";
  const int64_t m = 70, k = 50;
  Bf16Operands ops(0, 1, m, m, k, 1, 0, 0.0f, 11);
  std::vector<uint16_t> full(size_t(m * m)), sym(size_t(m * m));
  gptc::runtime::Bf16Matrix a{ops.a.data(), m, k, ops.la.rs, ops.la.cs};
  gptc::runtime::Bf16Matrix at{ops.a.data(), k, m, ops.la.cs, ops.la.rs};
  gptc::runtime::amxGemmBf16(a, at, {full.data(), m, m, m, 1}, {});
  gptc::runtime::amxSyrkBf16(a, {sym.data(), m, m, m, 1}, 1.0f);
  // Blocks on and above the diagonal are the same computation as the full
  // GEMM's; the ones below mirror them.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) {
      bool upper = i / 32 <= j / 32;
      int64_t r = upper ? i : j, col = upper ? j : i;
      ASSERT_EQ(sym[size_t(i * m + j)], full[size_t(r * m + col)])
          << i << ", " << j;
    }
}

} // namespace
