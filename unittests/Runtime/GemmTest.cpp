//===- GemmTest.cpp - gptc_gemm_* against a naive triple loop -------------===//

#include "runtime/cpu/GemmAMX.h"
#include "runtime/gptrt.h"

#include "gtest/gtest.h"

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
};

/// Runs `gemm` on random data and compares every element of C (and that
/// C's padding is untouched) with a double-precision triple loop.
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

  gemm(c.ta, c.tb, c.m, c.n, c.k, uintptr_t(a.data()), la.rs, la.cs, la.bs,
       uintptr_t(b.data()), lb.rs, lb.cs, lb.bs, c.beta, uintptr_t(cbuf.data()),
       lc.rs, lc.cs, lc.bs, c.batch);

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
        if (c.beta != T(0))
          want += double(before[at]);
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
          check<double>({ta != 0, tb != 0, 4, 9, 5, 2, kind, (kind + 1) % 5,
                         (kind + 2) % 5, beta},
                        gptc_gemm_f64, 1e-12);
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
  std::vector<float> c = {std::nanf(""), std::nanf(""), 3, 4};
  gptc_gemm_f32(0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 2, 1, 0, 0.0f,
                uintptr_t(c.data()), 2, 1, 0, 1);
  gptc_gemm_f32(0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 2, 1, 0, 1.0f,
                uintptr_t(c.data() + 2), 2, 1, 0, 1);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 3, 4}));
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

TEST(Gemm, Bf16MatchesF32ThenRounded) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int kind = 0; kind < 5; ++kind)
        for (float beta : {0.0f, 1.0f}) {
          SCOPED_TRACE(::testing::Message()
                       << "ta " << ta << " tb " << tb << " kind " << kind
                       << " beta " << beta);
          const int64_t m = 5, n = 6, k = 7, batch = 2;
          Bf16Operands ops(ta, tb, m, n, k, batch, kind, beta, 7);
          const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
          std::vector<uint16_t> &a = ops.a, &b = ops.b, &c = ops.c;
          std::vector<uint16_t> before = c;
          gptc_gemm_bf16(ta, tb, m, n, k, uintptr_t(a.data()), la.rs, la.cs,
                         la.bs, uintptr_t(b.data()), lb.rs, lb.cs, lb.bs, beta,
                         uintptr_t(c.data()), lc.rs, lc.cs, lc.bs, batch);
          for (int64_t bi = 0; bi < batch; ++bi)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double want = 0.0;
                for (int64_t p = 0; p < k; ++p) {
                  int64_t ai = ta ? p : i, aj = ta ? i : p;
                  int64_t bi2 = tb ? j : p, bj = tb ? p : j;
                  want +=
                      double(fromBf16(
                          a[size_t(bi * la.bs + ai * la.rs + aj * la.cs)])) *
                      double(fromBf16(
                          b[size_t(bi * lb.bs + bi2 * lb.rs + bj * lb.cs)]));
                }
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
        }
}

TEST(Gemm, Bf16RoundsToNearestEven) {
  // 1 x 1 x 1: C = A * B with A = 1 and B chosen exactly between two bf16.
  uint16_t one = toBf16(1.0f);
  // beta 1: C = 1 * B + C; B = 1, C = 2^-8 (half an ulp of 1 in bf16) ->
  // 1 + 2^-8 is a tie, rounds to even (1.0).
  uint16_t b = toBf16(1.0f), c = toBf16(0x1p-8f);
  gptc_gemm_bf16(0, 0, 1, 1, 1, uintptr_t(&one), 1, 1, 0, uintptr_t(&b), 1, 1,
                 0, 1.0f, uintptr_t(&c), 1, 1, 0, 1);
  EXPECT_EQ(fromBf16(c), 1.0f);
  // 1 + 3 * 2^-8 is a tie between 1 + 2^-7 and 1 + 2^-6: rounds to the
  // even mantissa, 1 + 2^-6.
  c = toBf16(3 * 0x1p-8f);
  gptc_gemm_bf16(0, 0, 1, 1, 1, uintptr_t(&one), 1, 1, 0, uintptr_t(&b), 1, 1,
                 0, 1.0f, uintptr_t(&c), 1, 1, 0, 1);
  EXPECT_EQ(fromBf16(c), 1.0f + 0x1p-6f);
}

/// C = op(A) op(B) + beta C through `gemm` (a gptc_gemm_bf16-like call
/// with batch 1) against an f64 reference, for shapes that cover partial
/// tiles, several K blocks (512) and several M blocks (256). Each entry must
/// be within half a bf16 ulp of the exact value plus the f32 rounding of
/// the sums (k * 2^-23 * sum |a b|).
template <typename Gemm> void checkLargeBf16(Gemm gemm) {
  struct Shape {
    int64_t m, n, k;
  };
  for (Shape sh : {Shape{33, 47, 95}, Shape{64, 64, 64}, Shape{1, 100, 700},
                   Shape{100, 1, 40}, Shape{70, 90, 1100},
                   Shape{300, 40, 64}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int kind : {0, 1, 4})
          for (float beta : {0.0f, 1.0f}) {
            const int64_t m = sh.m, n = sh.n, k = sh.k;
            SCOPED_TRACE(::testing::Message()
                         << m << "x" << n << "x" << k << " ta " << ta
                         << " tb " << tb << " kind " << kind << " beta "
                         << beta);
            Bf16Operands ops(ta, tb, m, n, k, 1, kind, beta,
                             unsigned(m * 131 + n * 7 + k));
            const Layout &la = ops.la, &lb = ops.lb, &lc = ops.lc;
            std::vector<uint16_t> &a = ops.a, &b = ops.b, &c = ops.c;
            std::vector<uint16_t> before = c;
            gemm(ta, tb, m, n, k, a.data(), la, b.data(), lb, beta, c.data(),
                 lc);
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
                size_t at = size_t(i * lc.rs + j * lc.cs);
                if (beta != 0.0f)
                  want += double(fromBf16(before[at]));
                double tol =
                    std::fabs(want) * 0x1p-8 + double(k) * 0x1p-23 * magnitude;
                double got = fromBf16(c[at]);
                if (!(std::fabs(got - want) <= tol) && bad++ < 3)
                  ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got
                                << ", want " << want << " +- " << tol;
              }
            EXPECT_EQ(bad, 0);
          }
}

TEST(Gemm, Bf16LargeShapesThroughTheEntryPoint) {
  checkLargeBf16([](int ta, int tb, int64_t m, int64_t n, int64_t k,
                    uint16_t *a, Layout la, uint16_t *b, Layout lb, float beta,
                    uint16_t *c, Layout lc) {
    gptc_gemm_bf16(ta, tb, m, n, k, uintptr_t(a), la.rs, la.cs, la.bs,
                   uintptr_t(b), lb.rs, lb.cs, lb.bs, beta, uintptr_t(c), lc.rs,
                   lc.cs, lc.bs, 1);
  });
}

// The AMX kernel on its own, on one thread (the entry point splits C over
// threads and may take the f32 path for some blocks).
TEST(Gemm, Bf16AMXKernel) {
  if (!gptc::runtime::amxBf16Available())
    GTEST_SKIP() << "no AMX-BF16 on this CPU (or GPTC_GEMM_AMX=0)";
  checkLargeBf16([](int ta, int tb, int64_t m, int64_t n, int64_t k,
                    uint16_t *a, Layout la, uint16_t *b, Layout lb, float beta,
                    uint16_t *c, Layout lc) {
    gptc::runtime::Bf16Matrix opA =
        ta ? gptc::runtime::Bf16Matrix{a, m, k, la.cs, la.rs}
           : gptc::runtime::Bf16Matrix{a, m, k, la.rs, la.cs};
    gptc::runtime::Bf16Matrix opB =
        tb ? gptc::runtime::Bf16Matrix{b, k, n, lb.cs, lb.rs}
           : gptc::runtime::Bf16Matrix{b, k, n, lb.rs, lb.cs};
    gptc::runtime::amxGemmBf16(opA, opB, {c, m, n, lc.rs, lc.cs},
                               beta != 0.0f);
  });
}

// C = op(A) op(A)^T through the entry point with A and B the same buffer
// (what Newton-Schulz's X X^T passes): on AMX the symmetric kernel, which
// must give every entry within the bf16 bound and an exactly symmetric C.
TEST(Gemm, Bf16GramMatrix) {
  for (int64_t m : {1, 33, 64, 100, 300})
    for (int64_t k : {40, 95, 700})
      for (int ta = 0; ta < 2; ++ta)
        for (int kind : {0, 1, 4}) {
          SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k
                                            << " ta " << ta << " kind "
                                            << kind);
          Bf16Operands ops(ta, !ta, m, m, k, 1, kind, 0.0f,
                           unsigned(m * 7 + k));
          const Layout &la = ops.la, &lc = ops.lc;
          std::vector<uint16_t> &a = ops.a, &c = ops.c;
          gptc_gemm_bf16(ta, !ta, m, m, k, uintptr_t(a.data()), la.rs, la.cs,
                         la.bs, uintptr_t(a.data()), la.rs, la.cs, la.bs, 0.0f,
                         uintptr_t(c.data()), lc.rs, lc.cs, lc.bs, 1);
          auto opA = [&](int64_t i, int64_t p) {
            return double(fromBf16(
                ta ? a[size_t(p * la.rs + i * la.cs)]
                   : a[size_t(i * la.rs + p * la.cs)]));
          };
          int64_t bad = 0;
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < m; ++j) {
              double want = 0.0, magnitude = 0.0;
              for (int64_t p = 0; p < k; ++p) {
                want += opA(i, p) * opA(j, p);
                magnitude += std::fabs(opA(i, p) * opA(j, p));
              }
              uint16_t got = c[size_t(i * lc.rs + j * lc.cs)];
              double tol =
                  std::fabs(want) * 0x1p-8 + double(k) * 0x1p-23 * magnitude;
              if (!(std::fabs(fromBf16(got) - want) <= tol) && bad++ < 3)
                ADD_FAILURE() << "C[" << i << "][" << j << "] = "
                              << fromBf16(got) << ", want " << want;
              if (got != c[size_t(j * lc.rs + i * lc.cs)] && bad++ < 3)
                ADD_FAILURE() << "C[" << i << "][" << j << "] != C[" << j
                              << "][" << i << "]";
            }
          EXPECT_EQ(bad, 0);
        }
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
  gptc::runtime::amxGemmBf16(a, at, {full.data(), m, m, m, 1}, false);
  gptc::runtime::amxSyrkBf16(a, {sym.data(), m, m, m, 1});
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
