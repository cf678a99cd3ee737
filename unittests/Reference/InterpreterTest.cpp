//===- InterpreterTest.cpp - The reference interpreter on hand-computed cases
//-===//
//
// Every op family against values computed by hand (or, for the
// transcendental functions, by Python's math module, pasted as literals),
// so that the finite-difference tests, which use the interpreter as their
// oracle, are not circular.
//
// Tolerances: exact for data movement, integer ops and arithmetic whose
// results are exactly representable (tolerance 0); 1e-15 absolute for
// transcendental functions and normalisations of O(1) values (a few ulps);
// 1e-14 for attention (softmax of O(1) scores, sums of 4 terms); 1e-12 for
// the fused-versus-primitive comparisons (different summation orders over
// up to 256 terms).
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"

#include <cmath>

#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace gptc::ref;
using namespace gptc::ref::test;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  /// Parses `src` and runs its function @f on `args`.
  SmallVector<HostTensor> run(StringRef src, ArrayRef<HostTensor> args) {
    OwningOpRef<ModuleOp> m = tc.parse(src);
    EXPECT_TRUE(m) << tc.diagnostics;
    if (!m)
      return {};
    FailureOr<SmallVector<HostTensor>> r = evaluate(*m, "f", args);
    EXPECT_TRUE(succeeded(r)) << tc.diagnostics;
    if (failed(r))
      return {};
    return *r;
  }
  /// Parses `src` and expects the evaluation of @f to fail with a
  /// diagnostic containing `message`.
  void expectFailure(StringRef src, ArrayRef<HostTensor> args,
                     StringRef message) {
    OwningOpRef<ModuleOp> m = tc.parse(src);
    ASSERT_TRUE(m) << tc.diagnostics;
    EXPECT_TRUE(failed(evaluate(*m, "f", args)));
    EXPECT_NE(tc.diagnostics.find(message.str()), std::string::npos)
        << tc.diagnostics;
  }

  TestContext tc;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, BinaryFloat) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
            tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = gpt.add %a, %b : tensor<2x2xf32>
      %1 = gpt.sub %a, %b : tensor<2x2xf32>
      %2 = gpt.mul %a, %b : tensor<2x2xf32>
      %3 = gpt.div %a, %b : tensor<2x2xf32>
      %4 = gpt.max %a, %b : tensor<2x2xf32>
      return %0, %1, %2, %3, %4 : tensor<2x2xf32>, tensor<2x2xf32>,
          tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
               {ht({2, 2}, {1, -2, 3, 4.5}), ht({2, 2}, {2, 0.5, -1, 4.5})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(near(r[0], ht({2, 2}, {3, -1.5, 2, 9}), 0));
  EXPECT_TRUE(near(r[1], ht({2, 2}, {-1, -2.5, 4, 0}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 2}, {2, -1, -3, 20.25}), 0));
  EXPECT_TRUE(near(r[3], ht({2, 2}, {0.5, -4, -3, 1}), 0));
  EXPECT_TRUE(near(r[4], ht({2, 2}, {2, 0.5, 3, 4.5}), 0));
}

TEST_F(InterpreterTest, BinaryInteger) {
  // Integer division truncates toward zero (like arith.divsi).
  auto r = run(R"mlir(
    func.func @f(%a: tensor<4xi64>, %b: tensor<4xi64>)
        -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
      %0 = gpt.div %a, %b : tensor<4xi64>
      %1 = gpt.add %a, %b : tensor<4xi64>
      %2 = gpt.max %a, %b : tensor<4xi64>
      return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
    })mlir",
               {ht({4}, {7, -7, 6, 0}), ht({4}, {2, 2, -4, 5})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(near(r[0], ht({4}, {3, -3, -1, 0}), 0));
  EXPECT_TRUE(near(r[1], ht({4}, {9, -5, 2, 5}), 0));
  EXPECT_TRUE(near(r[2], ht({4}, {7, 2, 6, 5}), 0));
}

TEST_F(InterpreterTest, IntegerDivisionByZeroFails) {
  expectFailure(R"mlir(
    func.func @f(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
      %0 = gpt.div %a, %b : tensor<2xi32>
      return %0 : tensor<2xi32>
    })mlir",
                {ht({2}, {1, 2}), ht({2}, {1, 0})}, "integer division by zero");
}

TEST_F(InterpreterTest, Unary) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<3xf64>, %p: tensor<3xf64>)
        -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %0 = gpt.neg %x : tensor<3xf64>
      %1 = gpt.exp %x : tensor<3xf64>
      %2 = gpt.tanh %x : tensor<3xf64>
      %3 = gpt.sigmoid %x : tensor<3xf64>
      %4 = gpt.square %x : tensor<3xf64>
      %5 = gpt.relu %x : tensor<3xf64>
      %6 = gpt.gelu %x : tensor<3xf64>
      %7 = gpt.erf %x : tensor<3xf64>
      %8 = gpt.cos %x : tensor<3xf64>
      %9 = gpt.sin %x : tensor<3xf64>
      %10 = gpt.mul_scalar %x, 2.5 : tensor<3xf64>
      %11 = gpt.add_scalar %x, -1.5 : tensor<3xf64>
      %12 = gpt.log %p : tensor<3xf64>
      %13 = gpt.sqrt %p : tensor<3xf64>
      %14 = gpt.rsqrt %p : tensor<3xf64>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14
          : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    })mlir",
               {ht({3}, {-1, 0.5, 2}), ht({3}, {0.25, 1, 4})});
  ASSERT_EQ(r.size(), 15u);
  const double tol = 1e-15;
  EXPECT_TRUE(near(r[0], ht({3}, {1, -0.5, -2}), 0));
  EXPECT_TRUE(
      near(r[1],
           ht({3}, {0.36787944117144233, 1.6487212707001282, 7.38905609893065}),
           4 * tol));
  EXPECT_TRUE(near(
      r[2],
      ht({3}, {-0.7615941559557649, 0.46211715726000974, 0.9640275800758169}),
      tol));
  EXPECT_TRUE(near(
      r[3],
      ht({3}, {0.2689414213699951, 0.6224593312018546, 0.8807970779778823}),
      tol));
  EXPECT_TRUE(near(r[4], ht({3}, {1, 0.25, 4}), 0));
  EXPECT_TRUE(near(r[5], ht({3}, {0, 0.5, 2}), 0));
  // gelu(x) = x Phi(x), the exact (erf) form.
  EXPECT_TRUE(near(
      r[6],
      ht({3}, {-0.15865525393145707, 0.34573123063700656, 1.9544997361036416}),
      2 * tol));
  EXPECT_TRUE(near(
      r[7],
      ht({3}, {-0.8427007929497149, 0.5204998778130465, 0.9953222650189527}),
      tol));
  EXPECT_TRUE(near(
      r[8],
      ht({3}, {0.5403023058681398, 0.8775825618903728, -0.4161468365471424}),
      tol));
  EXPECT_TRUE(near(
      r[9],
      ht({3}, {-0.8414709848078965, 0.479425538604203, 0.9092974268256817}),
      tol));
  EXPECT_TRUE(near(r[10], ht({3}, {-2.5, 1.25, 5}), 0));
  EXPECT_TRUE(near(r[11], ht({3}, {-2.5, -1, 0.5}), 0));
  EXPECT_TRUE(
      near(r[12], ht({3}, {-1.3862943611198906, 0, 1.3862943611198906}), tol));
  EXPECT_TRUE(near(r[13], ht({3}, {0.5, 1, 2}), 0));
  EXPECT_TRUE(near(r[14], ht({3}, {2, 1, 0.5}), 0));
}

TEST_F(InterpreterTest, CompareSelectCast) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>, %x: tensor<4xf32>,
                 %c: tensor<3xi1>, %t: tensor<3xf32>, %e: tensor<3xf32>)
        -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<4xi32>,
            tensor<3xf32>, tensor<4xbf16>) {
      %0 = gpt.compare eq, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %1 = gpt.compare ne, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %2 = gpt.compare lt, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %3 = gpt.compare le, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %4 = gpt.compare gt, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %5 = gpt.compare ge, %a, %b : tensor<3xi32> -> tensor<3xi1>
      %6 = gpt.select %c, %t, %e : tensor<3xi1>, tensor<3xf32>
      %7 = gpt.cast %x : tensor<4xf32> to tensor<4xi32>
      %8 = gpt.cast %c : tensor<3xi1> to tensor<3xf32>
      %9 = gpt.cast %x : tensor<4xf32> to tensor<4xbf16>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
          : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<4xi32>,
            tensor<3xf32>, tensor<4xbf16>
    })mlir",
               {ht({3}, {1, 2, 3}), ht({3}, {2, 2, 2}),
                ht({4}, {2.7, -2.7, 0.1, -0.5}), ht({3}, {1, 0, 1}),
                ht({3}, {1, 2, 3}), ht({3}, {10, 20, 30})});
  ASSERT_EQ(r.size(), 10u);
  EXPECT_TRUE(near(r[0], ht({3}, {0, 1, 0}), 0));
  EXPECT_TRUE(near(r[1], ht({3}, {1, 0, 1}), 0));
  EXPECT_TRUE(near(r[2], ht({3}, {1, 0, 0}), 0));
  EXPECT_TRUE(near(r[3], ht({3}, {1, 1, 0}), 0));
  EXPECT_TRUE(near(r[4], ht({3}, {0, 0, 1}), 0));
  EXPECT_TRUE(near(r[5], ht({3}, {0, 1, 1}), 0));
  EXPECT_TRUE(near(r[6], ht({3}, {1, 20, 3}), 0));
  // Float to integer truncates toward zero.
  EXPECT_TRUE(near(r[7], ht({4}, {2, -2, 0, 0}), 0));
  EXPECT_TRUE(near(r[8], ht({3}, {1, 0, 1}), 0));
  // Float to float is the identity in the reference (no bf16 rounding).
  EXPECT_TRUE(near(r[9], ht({4}, {2.7, -2.7, 0.1, -0.5}), 0));
}

TEST_F(InterpreterTest, ConstantIotaCumsum) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xi32>)
        -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xi64>,
            tensor<2x3xi32>, tensor<2x3xf64>, tensor<2x3xi32>,
            tensor<2x3xi32>, tensor<bf16>) {
      %0 = gpt.constant dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>
      %1 = gpt.constant dense<0xFF800000> : tensor<2xf32>
      %2 = gpt.constant dense<[true, false]> : tensor<2xi1>
      %3 = gpt.constant dense<[-3, 5]> : tensor<2xi64>
      %4 = gpt.iota dim = 1 : tensor<2x3xi32>
      %5 = gpt.iota dim = 0 : tensor<2x3xf64>
      %6 = gpt.cumsum %x dim = 1 : tensor<2x3xi32>
      %7 = gpt.cumsum %x dim = 0 : tensor<2x3xi32>
      %8 = gpt.constant dense<1.5> : tensor<bf16>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8
          : tensor<2x2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xi64>,
            tensor<2x3xi32>, tensor<2x3xf64>, tensor<2x3xi32>,
            tensor<2x3xi32>, tensor<bf16>
    })mlir",
               {ht({2, 3}, {1, 0, 1, 0, 1, 1})});
  ASSERT_EQ(r.size(), 9u);
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(near(r[0], ht({2, 2}, {1, 2, 3, 4.5}), 0));
  EXPECT_EQ(r[1].data, (std::vector<double>{-inf, -inf}));
  EXPECT_TRUE(near(r[2], ht({2}, {1, 0}), 0));
  EXPECT_TRUE(near(r[3], ht({2}, {-3, 5}), 0));
  EXPECT_TRUE(near(r[4], ht({2, 3}, {0, 1, 2, 0, 1, 2}), 0));
  EXPECT_TRUE(near(r[5], ht({2, 3}, {0, 0, 0, 1, 1, 1}), 0));
  EXPECT_TRUE(near(r[6], ht({2, 3}, {1, 1, 2, 0, 1, 2}), 0));
  EXPECT_TRUE(near(r[7], ht({2, 3}, {1, 0, 1, 1, 1, 2}), 0));
  EXPECT_TRUE(near(r[8], ht({}, {1.5}), 0));
}

//===----------------------------------------------------------------------===//
// Reductions and contraction
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Reduce) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x2x2xf64>)
        -> (tensor<2x2x1xf64>, tensor<1x2x1xf64>, tensor<2x1x2xf64>,
            tensor<1x1x1xf64>, tensor<1x1x1xf64>) {
      %0 = gpt.reduce sum %x dims = [2] : tensor<2x2x2xf64> -> tensor<2x2x1xf64>
      %1 = gpt.reduce mean %x dims = [0, 2] : tensor<2x2x2xf64> -> tensor<1x2x1xf64>
      %2 = gpt.reduce max %x dims = [1] : tensor<2x2x2xf64> -> tensor<2x1x2xf64>
      %3 = gpt.reduce max %x dims = [0, 1, 2] : tensor<2x2x2xf64> -> tensor<1x1x1xf64>
      %4 = gpt.reduce sum %x dims = [0, 1, 2] : tensor<2x2x2xf64> -> tensor<1x1x1xf64>
      return %0, %1, %2, %3, %4 : tensor<2x2x1xf64>, tensor<1x2x1xf64>,
          tensor<2x1x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>
    })mlir",
               {ht({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, -8})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(near(r[0], ht({2, 2, 1}, {3, 7, 11, -1}), 0));
  EXPECT_TRUE(near(r[1], ht({1, 2, 1}, {3.5, 1.5}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 1, 2}, {3, 4, 7, 6}), 0));
  EXPECT_TRUE(near(r[3], ht({1, 1, 1}, {7}), 0));
  EXPECT_TRUE(near(r[4], ht({1, 1, 1}, {20}), 0));
}

TEST_F(InterpreterTest, MatmulTransposes) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = gpt.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      %1 = gpt.matmul %a, %b transpose_lhs : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      %2 = gpt.matmul %a, %b transpose_rhs : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      %3 = gpt.matmul %a, %b transpose_lhs transpose_rhs : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
               {ht({2, 2}, {1, 2, 3, 4}), ht({2, 2}, {5, 6, 7, 8})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(near(r[0], ht({2, 2}, {19, 22, 43, 50}), 0));
  EXPECT_TRUE(near(r[1], ht({2, 2}, {26, 30, 38, 44}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 2}, {17, 23, 39, 53}), 0));
  EXPECT_TRUE(near(r[3], ht({2, 2}, {23, 31, 34, 46}), 0));
}

TEST_F(InterpreterTest, MatmulBatchedAndShared) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>,
                 %l: tensor<2x1x2xf32>, %r: tensor<2x2x1xf32>,
                 %xb: tensor<2x1x3xf32>)
        -> (tensor<2x2xf32>, tensor<2x1x1xf32>, tensor<2x1x2xf32>) {
      %0 = gpt.matmul %x, %w transpose_rhs : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
      %1 = gpt.matmul %l, %r : tensor<2x1x2xf32>, tensor<2x2x1xf32> -> tensor<2x1x1xf32>
      %2 = gpt.matmul %xb, %w transpose_rhs : tensor<2x1x3xf32>, tensor<2x3xf32> -> tensor<2x1x2xf32>
      return %0, %1, %2 : tensor<2x2xf32>, tensor<2x1x1xf32>, tensor<2x1x2xf32>
    })mlir",
               {ht({2, 3}, {1, 2, 3, 4, 5, 6}), ht({2, 3}, {1, 0, -1, 2, 1, 0}),
                ht({2, 1, 2}, {1, 2, 3, 4}), ht({2, 2, 1}, {1, 1, 2, -1}),
                ht({2, 1, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(near(r[0], ht({2, 2}, {-2, 4, -2, 13}), 0));
  EXPECT_TRUE(near(r[1], ht({2, 1, 1}, {3, 2}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 1, 2}, {-2, 4, -2, 13}), 0));
}

TEST_F(InterpreterTest, MatmulAddScalesProductAndAddend) {
  // alpha op(A) op(B) + beta C (gpt.matmul_add, Newton-Schulz's GEMMs).
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = gpt.matmul_add %a, %b, %c alpha = 0.5 beta = -2.0 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      %1 = gpt.matmul_add %a, %b, %a transpose_rhs alpha = 2.0 beta = 1.0 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
               {ht({2, 2}, {1, 2, 3, 4}), ht({2, 2}, {5, 6, 7, 8}),
                ht({2, 2}, {1, 1, 1, 1})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(near(r[0], ht({2, 2}, {7.5, 9, 19.5, 23}), 0));
  EXPECT_TRUE(near(r[1], ht({2, 2}, {35, 48, 81, 110}), 0));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, GathersAndAdjoints) {
  auto r =
      run(R"mlir(
    func.func @f(%table: tensor<3x2xf32>, %ids: tensor<2x2xi32>,
                 %g: tensor<2x2x2xf32>, %x: tensor<2x3xf32>,
                 %idx: tensor<2xi64>, %gl: tensor<2xf32>)
        -> (tensor<2x2x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
      %0 = gpt.embedding %table[%ids] : tensor<3x2xf32>, tensor<2x2xi32> -> tensor<2x2x2xf32>
      %1 = gpt.embedding_grad %g[%ids] : tensor<2x2x2xf32>, tensor<2x2xi32> -> tensor<3x2xf32>
      %2 = gpt.gather_last %x[%idx] : tensor<2x3xf32>, tensor<2xi64> -> tensor<2xf32>
      %3 = gpt.scatter_last %gl[%idx] : tensor<2xf32>, tensor<2xi64> -> tensor<2x3xf32>
      return %0, %1, %2, %3 : tensor<2x2x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>
    })mlir",
          {ht({3, 2}, {0, 1, 10, 11, 20, 21}), ht({2, 2}, {2, 0, 2, 1}),
           ht({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
           ht({2, 3}, {1, 2, 3, 4, 5, 6}), ht({2}, {2, 0}), ht({2}, {7, 8})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(near(r[0], ht({2, 2, 2}, {20, 21, 0, 1, 20, 21, 10, 11}), 0));
  // Row 2 is hit twice: its gradient accumulates.
  EXPECT_TRUE(near(r[1], ht({3, 2}, {3, 4, 7, 8, 6, 8}), 0));
  EXPECT_TRUE(near(r[2], ht({2}, {3, 4}), 0));
  EXPECT_TRUE(near(r[3], ht({2, 3}, {0, 0, 7, 8, 0, 0}), 0));
}

TEST_F(InterpreterTest, EmbeddingIdOutOfRangeFails) {
  expectFailure(R"mlir(
    func.func @f(%table: tensor<3x2xf32>, %ids: tensor<2xi32>) -> tensor<2x2xf32> {
      %0 = gpt.embedding %table[%ids] : tensor<3x2xf32>, tensor<2xi32> -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })mlir",
                {ht({3, 2}, {0, 1, 2, 3, 4, 5}), ht({2}, {1, 3})},
                "is outside [0, 3)");
}

TEST_F(InterpreterTest, ShapeChanges) {
  auto r =
      run(R"mlir(
    func.func @f(%c: tensor<2x1xf32>, %s: tensor<1x1xf32>, %row: tensor<1x3xf32>,
                 %x: tensor<2x3xf32>, %y: tensor<2x1x3xf32>)
        -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>,
            tensor<3x2xf32>, tensor<3x2x1xf32>) {
      %0 = gpt.broadcast %c : tensor<2x1xf32> to tensor<2x3xf32>
      %1 = gpt.broadcast %s : tensor<1x1xf32> to tensor<2x2xf32>
      %2 = gpt.broadcast %row : tensor<1x3xf32> to tensor<2x3xf32>
      %3 = gpt.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
      %4 = gpt.transpose %x permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
      %5 = gpt.transpose %y permutation = [2, 0, 1] : tensor<2x1x3xf32> to tensor<3x2x1xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x2xf32>,
          tensor<2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2x1xf32>
    })mlir",
          {ht({2, 1}, {1, 2}), ht({1, 1}, {5}), ht({1, 3}, {7, 8, 9}),
           ht({2, 3}, {1, 2, 3, 4, 5, 6}), ht({2, 1, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(near(r[0], ht({2, 3}, {1, 1, 1, 2, 2, 2}), 0));
  EXPECT_TRUE(near(r[1], ht({2, 2}, {5, 5, 5, 5}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 3}, {7, 8, 9, 7, 8, 9}), 0));
  EXPECT_TRUE(near(r[3], ht({3, 2}, {1, 2, 3, 4, 5, 6}), 0));
  EXPECT_TRUE(near(r[4], ht({3, 2}, {1, 4, 2, 5, 3, 6}), 0));
  EXPECT_TRUE(near(r[5], ht({3, 2, 1}, {1, 4, 2, 5, 3, 6}), 0));
}

TEST_F(InterpreterTest, SliceConcatSplitPad) {
  auto r =
      run(R"mlir(
    func.func @f(%x: tensor<3x3xf32>, %a: tensor<2x1xf32>, %b: tensor<2x2xf32>,
                 %s: tensor<2x4xf32>)
        -> (tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<4x2xf32>,
            tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = gpt.slice %x offsets = [1, 1] : tensor<3x3xf32> to tensor<2x2xf32>
      %1 = gpt.pad %0 offsets = [1, 1] : tensor<2x2xf32> to tensor<3x3xf32>
      %2 = gpt.concat %a, %b dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %3 = gpt.concat %b, %0 dim = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
      %4, %5 = gpt.split %s dim = 1 : tensor<2x4xf32> -> tensor<2x2xf32>, tensor<2x2xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<3x3xf32>,
          tensor<2x3xf32>, tensor<4x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
          {ht({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), ht({2, 1}, {1, 2}),
           ht({2, 2}, {3, 4, 5, 6}), ht({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(near(r[0], ht({2, 2}, {5, 6, 8, 9}), 0));
  EXPECT_TRUE(near(r[1], ht({3, 3}, {0, 0, 0, 0, 5, 6, 0, 8, 9}), 0));
  EXPECT_TRUE(near(r[2], ht({2, 3}, {1, 3, 4, 2, 5, 6}), 0));
  EXPECT_TRUE(near(r[3], ht({4, 2}, {3, 4, 5, 6, 5, 6, 8, 9}), 0));
  EXPECT_TRUE(near(r[4], ht({2, 2}, {1, 2, 5, 6}), 0));
  EXPECT_TRUE(near(r[5], ht({2, 2}, {3, 4, 7, 8}), 0));
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, RMSNorm) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<1x2xf64>, %res: tensor<1x2xf64>, %w: tensor<2xf64>)
        -> (tensor<1x2xf64>, tensor<1x2xf64>) {
      %0 = gpt.rms_norm %x eps = 1.000000e-06 : tensor<1x2xf64>
      %1 = gpt.rms_norm %x residual %res : tensor<1x2xf64> weight %w : tensor<2xf64>
          eps = 1.000000e-06 : tensor<1x2xf64>
      return %0, %1 : tensor<1x2xf64>, tensor<1x2xf64>
    })mlir",
               {ht({1, 2}, {3, 4}), ht({1, 2}, {1, -2}), ht({2}, {2, 0.5})});
  ASSERT_EQ(r.size(), 2u);
  // [3, 4] / sqrt(12.5 + 1e-6); ([3, 4] + [1, -2]) / sqrt(10 + 1e-6) * w.
  EXPECT_TRUE(
      near(r[0], ht({1, 2}, {0.8485281034827337, 1.1313708046436448}), 1e-15));
  EXPECT_TRUE(
      near(r[1], ht({1, 2}, {2.5298220016436064, 0.3162277502054508}), 1e-15));
}

// q, k, v [1, 1, 4, 2]; expected values from a direct softmax over the
// allowed keys of each query (mask matrices written out by hand).
constexpr const char *kAttentionIR = R"mlir(
  func.func @f(%q: tensor<1x1x4x2xf64>, %k: tensor<1x1x4x2xf64>,
               %v: tensor<1x1x4x2xf64>, %tok: tensor<1x4xi32>, %w: tensor<i64>)
      -> (tensor<1x1x4x2xf64>, tensor<1x1x4x2xf64>, tensor<1x1x4x2xf64>,
          tensor<1x1x4x2xf64>, tensor<1x1x4xf64>) {
    %0:2 = gpt.attention %q, %k, %v
        mask = #gpt.mask<causal = false, window = none, bos = -1>
        scale = 5.000000e-01 : tensor<1x1x4x2xf64>
    %1:2 = gpt.attention %q, %k, %v
        mask = #gpt.mask<causal = true, window = none, bos = -1>
        scale = 5.000000e-01 : tensor<1x1x4x2xf64>
    %2:2 = gpt.attention %q, %k, %v window %w : tensor<i64>
        mask = #gpt.mask<causal = true, window = tokens, bos = -1>
        scale = 5.000000e-01 : tensor<1x1x4x2xf64>
    %3:2 = gpt.attention %q, %k, %v tokens %tok : tensor<1x4xi32>
        mask = #gpt.mask<causal = true, window = none, bos = 9>
        scale = 5.000000e-01 : tensor<1x1x4x2xf64>
    return %0#0, %1#0, %2#0, %3#0, %1#1 : tensor<1x1x4x2xf64>,
        tensor<1x1x4x2xf64>, tensor<1x1x4x2xf64>, tensor<1x1x4x2xf64>,
        tensor<1x1x4xf64>
  })mlir";

TEST_F(InterpreterTest, AttentionMasks) {
  auto r =
      run(kAttentionIR, {ht({1, 1, 4, 2}, {1, 0, 0.5, -1, 2, 1, -1, 0.5}),
                         ht({1, 1, 4, 2}, {0.5, 1, 1, -0.5, -1, 2, 0.25, 0.75}),
                         ht({1, 1, 4, 2}, {1, 2, 3, -1, 0, 4, -2, 1}),
                         // bos = 9: documents [5], [9, 7], [9].
                         ht({1, 4}, {5, 9, 7, 9}), HostTensor::scalar(2)});
  ASSERT_EQ(r.size(), 5u);
  const double tol = 1e-14;
  // No mask.
  EXPECT_TRUE(near(r[0],
                   ht({1, 1, 4, 2}, {0.8483585384090032, 0.9585172341168751,
                                     1.2433091801454328, 0.4780648445389905,
                                     0.6922529651543884, 1.192675593998797,
                                     0.0896562591679419, 2.5201702319964165}),
                   tol));
  // Causal: [[1,0,0,0],[1,1,0,0],[1,1,1,0],[1,1,1,1]].
  EXPECT_TRUE(
      near(r[1],
           ht({1, 1, 4, 2}, {1.0, 2.0, 2.411570055674022, -0.11735508351103374,
                             1.5542148809755736, 1.254363342618535,
                             0.0896562591679419, 2.5201702319964165}),
           tol));
  // Causal, window of 2 tokens (q - k < 2):
  // [[1,0,0,0],[1,1,0,0],[0,1,1,0],[0,0,1,1]].
  EXPECT_TRUE(
      near(r[2],
           ht({1, 1, 4, 2}, {1.0, 2.0, 2.411570055674022, -0.11735508351103374,
                             2.037536097526179, 0.6041065041230349,
                             -0.5628112148582877, 3.155783177712568}),
           tol));
  // Causal within documents [0], [1, 2], [3]:
  // [[1,0,0,0],[0,1,0,0],[0,1,1,0],[0,0,0,1]].
  EXPECT_TRUE(near(r[3],
                   ht({1, 1, 4, 2}, {1.0, 2.0, 3.0, -1.0, 2.037536097526179,
                                     0.6041065041230349, -2.0, 1.0}),
                   tol));
  // The causal rows' log-sum-exp of their scores 0.5 q.k (worked out by
  // hand from q and k above).
  using std::exp, std::log;
  EXPECT_TRUE(
      near(r[4],
           ht({1, 1, 4}, {0.25, log(exp(-0.375) + exp(0.5)),
                          log(exp(1.0) + exp(0.75) + 1.0),
                          log(1.0 + exp(-0.625) + exp(1.0) + exp(0.0625))}),
           tol));
}

// With q = k = 0 every allowed key has the same score, so the output for
// query i is the mean of v over the allowed keys; with v[j] = j that is
// (first allowed + i) / 2 for a contiguous causal range.
TEST_F(InterpreterTest, AttentionBlockWindowAndDocuments) {
  const int64_t T = 384;
  auto r = run(R"mlir(
    func.func @f(%q: tensor<1x1x384x1xf64>, %v: tensor<1x1x384x1xf64>,
                 %tok: tensor<1x384xi32>, %w: tensor<i64>, %w2: tensor<i64>)
        -> (tensor<1x1x384x1xf64>, tensor<1x1x384x1xf64>,
            tensor<1x1x384x1xf64>, tensor<1x1x384x1xf64>) {
      %0:2 = gpt.attention %q, %q, %v window %w : tensor<i64>
          mask = #gpt.mask<causal = true, window = blocks, bos = -1>
          scale = 1.000000e+00 : tensor<1x1x384x1xf64>
      %1:2 = gpt.attention %q, %q, %v window %w2 : tensor<i64>
          mask = #gpt.mask<causal = true, window = blocks, bos = -1>
          scale = 1.000000e+00 : tensor<1x1x384x1xf64>
      %2:2 = gpt.attention %q, %q, %v tokens %tok : tensor<1x384xi32> window %w : tensor<i64>
          mask = #gpt.mask<causal = true, window = tokens, bos = 7>
          scale = 1.000000e+00 : tensor<1x1x384x1xf64>
      %3:2 = gpt.attention %q, %q, %v tokens %tok : tensor<1x384xi32>
          mask = #gpt.mask<causal = false, window = none, bos = 7>
          scale = 1.000000e+00 : tensor<1x1x384x1xf64>
      return %0#0, %1#0, %2#0, %3#0 : tensor<1x1x384x1xf64>, tensor<1x1x384x1xf64>,
          tensor<1x1x384x1xf64>, tensor<1x1x384x1xf64>
    })mlir",
               [&] {
                 SmallVector<HostTensor> args;
                 SmallVector<int64_t> qs = {1, 1, T, 1};
                 args.push_back(HostTensor(qs, 0.0));
                 HostTensor v(qs);
                 for (int64_t j = 0; j < T; ++j)
                   v[j] = static_cast<double>(j);
                 args.push_back(v);
                 // Documents start at 0, 100 and 300 (bos = 7 at 100, 300).
                 SmallVector<int64_t> ts = {1, T};
                 HostTensor tok(ts, 3.0);
                 tok[100] = 7, tok[300] = 7;
                 args.push_back(tok);
                 args.push_back(HostTensor::scalar(128));
                 args.push_back(HostTensor::scalar(256 + 64)); // 2 blocks
                 return args;
               }());
  ASSERT_EQ(r.size(), 4u);
  auto docStart = [](int64_t i) { return i >= 300 ? 300 : i >= 100 ? 100 : 0; };
  auto docEnd = [](int64_t i) { return i >= 300 ? 383 : i >= 100 ? 299 : 99; };
  for (int64_t i = 0; i < T; ++i) {
    // One block (128 tokens): keys from the start of the query's block.
    int64_t first = i / 128 * 128;
    EXPECT_NEAR(r[0][i], (first + i) / 2.0, 1e-12) << "query " << i;
    // Two blocks: keys from the start of the previous block.
    first = std::max<int64_t>(i / 128 - 1, 0) * 128;
    EXPECT_NEAR(r[1][i], (first + i) / 2.0, 1e-12) << "query " << i;
    // 128-token window within the document.
    first = std::max<int64_t>(i - 127, docStart(i));
    EXPECT_NEAR(r[2][i], (first + i) / 2.0, 1e-12) << "query " << i;
    // Whole document, not causal.
    EXPECT_NEAR(r[3][i], (docStart(i) + docEnd(i)) / 2.0, 1e-12)
        << "query " << i;
  }
}

// The fused ops agree with the primitive graphs the frontend writes
// (GraphBuilder::rmsNorm / softmax, MLIRGen's attention mask).
TEST_F(InterpreterTest, FusedOpsMatchPrimitives) {
  auto r = run(R"mlir(
    func.func @f(%q: tensor<1x2x256x4xf64>, %k: tensor<1x2x256x4xf64>,
                 %v: tensor<1x2x256x4xf64>, %tok: tensor<1x256xi32>,
                 %w: tensor<i64>, %x: tensor<3x8xf64>)
        -> (tensor<1x2x256x4xf64>, tensor<1x2x256x4xf64>,
            tensor<3x8xf64>, tensor<3x8xf64>) {
      %fused:2 = gpt.attention %q, %k, %v tokens %tok : tensor<1x256xi32> window %w : tensor<i64>
          mask = #gpt.mask<causal = true, window = blocks, bos = 9>
          scale = 3.000000e-01 : tensor<1x2x256x4xf64>
      // Primitive form: causal & block window & document, -inf, softmax.
      %qp = gpt.iota dim = 2 : tensor<1x1x256x256xi64>
      %kp = gpt.iota dim = 3 : tensor<1x1x256x256xi64>
      %causal = gpt.compare le, %kp, %qp : tensor<1x1x256x256xi64> -> tensor<1x1x256x256xi1>
      %blk = gpt.constant dense<128> : tensor<1x1x256x256xi64>
      %qb = gpt.div %qp, %blk : tensor<1x1x256x256xi64>
      %kb = gpt.div %kp, %blk : tensor<1x1x256x256xi64>
      %dist = gpt.sub %qb, %kb : tensor<1x1x256x256xi64>
      %c128 = gpt.constant dense<128> : tensor<i64>
      %wblk = gpt.div %w, %c128 : tensor<i64>
      %wr = gpt.reshape %wblk : tensor<i64> to tensor<1x1x1x1xi64>
      %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x256x256xi64>
      %inw = gpt.compare lt, %dist, %wb : tensor<1x1x256x256xi64> -> tensor<1x1x256x256xi1>
      %no = gpt.constant dense<false> : tensor<1x1x256x256xi1>
      %cw = gpt.select %causal, %inw, %no : tensor<1x1x256x256xi1>, tensor<1x1x256x256xi1>
      %bos = gpt.constant dense<9> : tensor<1x256xi32>
      %isb = gpt.compare eq, %tok, %bos : tensor<1x256xi32> -> tensor<1x256xi1>
      %isbi = gpt.cast %isb : tensor<1x256xi1> to tensor<1x256xi32>
      %doc = gpt.cumsum %isbi dim = 1 : tensor<1x256xi32>
      %dq0 = gpt.reshape %doc : tensor<1x256xi32> to tensor<1x1x256x1xi32>
      %dq = gpt.broadcast %dq0 : tensor<1x1x256x1xi32> to tensor<1x1x256x256xi32>
      %dk0 = gpt.reshape %doc : tensor<1x256xi32> to tensor<1x1x1x256xi32>
      %dk = gpt.broadcast %dk0 : tensor<1x1x1x256xi32> to tensor<1x1x256x256xi32>
      %same = gpt.compare eq, %dq, %dk : tensor<1x1x256x256xi32> -> tensor<1x1x256x256xi1>
      %no2 = gpt.constant dense<false> : tensor<1x1x256x256xi1>
      %allowed1 = gpt.select %cw, %same, %no2 : tensor<1x1x256x256xi1>, tensor<1x1x256x256xi1>
      %allowed = gpt.broadcast %allowed1 : tensor<1x1x256x256xi1> to tensor<1x2x256x256xi1>
      %s0 = gpt.matmul %q, %k transpose_rhs : tensor<1x2x256x4xf64>, tensor<1x2x256x4xf64> -> tensor<1x2x256x256xf64>
      %s = gpt.mul_scalar %s0, 3.000000e-01 : tensor<1x2x256x256xf64>
      %ninf = gpt.constant dense<0xFFF0000000000000> : tensor<1x2x256x256xf64>
      %sm = gpt.select %allowed, %s, %ninf : tensor<1x2x256x256xi1>, tensor<1x2x256x256xf64>
      %mx0 = gpt.reduce max %sm dims = [3] : tensor<1x2x256x256xf64> -> tensor<1x2x256x1xf64>
      %mx = gpt.broadcast %mx0 : tensor<1x2x256x1xf64> to tensor<1x2x256x256xf64>
      %d = gpt.sub %sm, %mx : tensor<1x2x256x256xf64>
      %e = gpt.exp %d : tensor<1x2x256x256xf64>
      %z0 = gpt.reduce sum %e dims = [3] : tensor<1x2x256x256xf64> -> tensor<1x2x256x1xf64>
      %z = gpt.broadcast %z0 : tensor<1x2x256x1xf64> to tensor<1x2x256x256xf64>
      %p = gpt.div %e, %z : tensor<1x2x256x256xf64>
      %prim = gpt.matmul %p, %v : tensor<1x2x256x256xf64>, tensor<1x2x256x4xf64> -> tensor<1x2x256x4xf64>
      // RMSNorm, fused and as the math.
      %nf = gpt.rms_norm %x eps = 1.000000e-06 : tensor<3x8xf64>
      %sq = gpt.square %x : tensor<3x8xf64>
      %ms = gpt.reduce mean %sq dims = [1] : tensor<3x8xf64> -> tensor<3x1xf64>
      %mse = gpt.add_scalar %ms, 1.000000e-06 : tensor<3x1xf64>
      %inv = gpt.rsqrt %mse : tensor<3x1xf64>
      %invb = gpt.broadcast %inv : tensor<3x1xf64> to tensor<3x8xf64>
      %np = gpt.mul %x, %invb : tensor<3x8xf64>
      return %fused#0, %prim, %nf, %np : tensor<1x2x256x4xf64>, tensor<1x2x256x4xf64>,
          tensor<3x8xf64>, tensor<3x8xf64>
    })mlir",
               [&] {
                 Generator gen(7);
                 SmallVector<HostTensor> args;
                 SmallVector<int64_t> qs = {1, 2, 256, 4};
                 for (int i = 0; i < 3; ++i) {
                   HostTensor t(qs);
                   for (double &x : t.data)
                     x = gen.normal();
                   args.push_back(t);
                 }
                 SmallVector<int64_t> ts = {1, 256};
                 HostTensor tok(ts);
                 for (double &x : tok.data)
                   x = static_cast<double>(gen.below(12)); // some 9s
                 args.push_back(tok);
                 args.push_back(HostTensor::scalar(128));
                 SmallVector<int64_t> xs = {3, 8};
                 HostTensor x(xs);
                 for (double &e : x.data)
                   e = gen.normal();
                 args.push_back(x);
                 return args;
               }());
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(near(r[0], r[1], 1e-12));
  EXPECT_TRUE(near(r[2], r[3], 1e-12));
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ReturnsArgumentsAndRepeatedValues) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %0 = gpt.mul %x, %x : tensor<2xf32>
      return %x, %0, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
    })mlir",
               {ht({2}, {3, -2})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(near(r[0], ht({2}, {3, -2}), 0));
  EXPECT_TRUE(near(r[1], ht({2}, {9, 4}), 0));
  EXPECT_TRUE(near(r[2], ht({2}, {9, 4}), 0));
}

// Re-running with one argument replaced equals a fresh evaluation, and
// leaves the cache as it was.
TEST_F(InterpreterTest, CachedEvaluationRerunsDependentOps) {
  OwningOpRef<ModuleOp> m = tc.parse(R"mlir(
    func.func @f(%a: tensor<2xf64>, %b: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
      %0 = gpt.exp %a : tensor<2xf64>
      %1 = gpt.mul %0, %b : tensor<2xf64>
      %2 = gpt.square %b : tensor<2xf64>
      return %1, %2 : tensor<2xf64>, tensor<2xf64>
    })mlir");
  ASSERT_TRUE(m) << tc.diagnostics;
  auto fn = m->lookupSymbol<func::FuncOp>("f");
  SmallVector<HostTensor> args = {ht({2}, {0, 1}), ht({2}, {2, 3})};
  FailureOr<CachedEvaluation> cache = CachedEvaluation::create(fn, args);
  ASSERT_TRUE(succeeded(cache)) << tc.diagnostics;
  EXPECT_TRUE(near(cache->results()[0], ht({2}, {2, 3 * std::exp(1.0)}), 0));
  EXPECT_TRUE(near(cache->results()[1], ht({2}, {4, 9}), 0));
  for (unsigned index : {0u, 1u}) {
    SmallVector<HostTensor> changed = args;
    changed[index] = ht({2}, {-1, 0.5});
    FailureOr<SmallVector<HostTensor>> fresh = evaluate(fn, changed);
    FailureOr<SmallVector<HostTensor>> rerun =
        cache->evaluateWith(index, changed[index]);
    ASSERT_TRUE(succeeded(fresh) && succeeded(rerun)) << tc.diagnostics;
    for (int k = 0; k < 2; ++k)
      EXPECT_TRUE(near((*rerun)[k], (*fresh)[k], 0)) << index << " " << k;
  }
  EXPECT_TRUE(near(cache->results()[0], ht({2}, {2, 3 * std::exp(1.0)}), 0));
}

TEST_F(InterpreterTest, ArgumentShapeMismatchFails) {
  expectFailure(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    })mlir",
                {ht({3}, {1, 2, 3})}, "has shape [3], expected [2]");
}

// Every gpt op has reference semantics (a new op without an external model
// fails here).
TEST_F(InterpreterTest, EveryGPTOpHasReferenceSemantics) {
  int count = 0;
  for (RegisteredOperationName name : tc.get().getRegisteredOperations()) {
    if (name.getDialectNamespace() != "gpt")
      continue;
    ++count;
    EXPECT_TRUE(name.hasInterface<ReferenceEvalOpInterface>())
        << name.getStringRef().str() << " has no ReferenceEvalOpInterface";
  }
  EXPECT_GT(count, 40);
}

} // namespace
