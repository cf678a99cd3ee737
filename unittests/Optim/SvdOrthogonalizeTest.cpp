//===- SvdOrthogonalizeTest.cpp - The compiled SVD backend of Muon --------===//
//
// optim.svd_orthogonalize compiled through the pipeline (gptc-lower-optim
// turns it into a call of the runtime's LAPACK-backed U V^T) and run on
// random Gaussian matrices, and Muon with `backend = svd` on a fused QKV
// matrix (each 64 x 64 block on its own): the result is semi-orthogonal
// (|O O^T - I|_max or |O^T O - I|_max, short side, in f64, at most 1e-5)
// and is U V^T of the input, from LAPACK's dgesvd in the test. Then the
// runtime callback itself on strided views, non-finite input and empty
// matrices.
//
//===----------------------------------------------------------------------===//

#include "unittests/Optim/CompiledModule.h"
#include "unittests/Optim/MatrixUtil.h"

#include "runtime/gptrt.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace gptc::test;

namespace {

// Semi-orthogonality, as the acceptance criterion states it.
constexpr double kOrthogonality = 1e-5;
// |O - U V^T|_max with f32 data: the runtime computes in f64 and rounds the
// result to f32 once, so the difference is the f32 rounding of entries below
// 1, at most 2^-25 ~ 3e-8, plus the difference between two LAPACK drivers
// in f64 (~1e-15 here). Measured: 1.2e-8 to 1.5e-8.
constexpr double kPolarF32 = 3e-8;
// The same with f64 data: the two drivers' difference alone, which grows
// with the condition of the singular-value gaps. Measured: 3e-16 to 1.2e-15.
constexpr double kPolarF64 = 1e-14;

const std::vector<BatchShape> &shapes() {
  static const std::vector<BatchShape> s = {
      {{64, 64}, "square"},
      {{32, 128}, "wide"},
      {{128, 32}, "tall"},
      {{192, 64}, "fused QKV (3d x d)"},
      {{8, 64}, "fewer than 16 rows"},
      {{3, 48, 96}, "a batch"},
      {{2, 2, 24, 40}, "two batch dimensions"},
  };
  return s;
}

const BatchShape kQkv{{192, 64}, "fused QKV, Muon qkv_split"};

/// Muon with the SVD backend, p = buf = 0, momentum 0, lr 1, no update
/// scale: the new parameter is minus the blockwise U V^T of the gradient.
std::string muonBody(const BatchShape &s) {
  std::string t = tensorType(s.dims, "f32");
  return "  %zero = gpt.constant dense<0.0> : " + t +
         "\n"
         "  %lr = gpt.constant dense<1.0> : tensor<f64>\n"
         "  %m = gpt.constant dense<0.0> : tensor<f64>\n"
         "  %p1, %b1 = optim.muon %zero, %g, %zero, %lr, %m "
         "momentum_form = sum update_scale = none qkv_split backend = svd "
         "steps = 5 coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7 "
         "form = polynomial_then_apply transpose = short_side "
         "normalize = after_cast compute_dtype = bf16 weight_decay = 0.0 : " +
         t + "\n  %o = gpt.neg %p1 : " + t;
}

class SvdOrthogonalizeTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string source;
    for (size_t i = 0; i < shapes().size(); ++i)
      for (const char *elt : {"f32", "f64"})
        source += wrapperFunction(wrapperName(elt, i), shapes()[i].dims, elt,
                                  "  %o = optim.svd_orthogonalize %g : " +
                                      tensorType(shapes()[i].dims, elt));
    source += wrapperFunction("muon_qkv", kQkv.dims, "f32", muonBody(kQkv));
    module = CompiledModule::compile(source, error).release();
  }
  static void TearDownTestSuite() {
    delete module;
    module = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(module) << error; }

  static CompiledModule *module;
  static std::string error;
};

CompiledModule *SvdOrthogonalizeTest::module = nullptr;
std::string SvdOrthogonalizeTest::error;

/// Runs `fn` on Gaussian data of shape `s` and checks every matrix of the
/// batch against U V^T; prints the measured errors.
template <typename T>
void checkPolar(const CompiledModule &module, const std::string &fn,
                const BatchShape &s, uint64_t seed, double polarTol) {
  std::vector<float> g32 = gaussian(s.elements(), seed);
  std::vector<T> g(g32.begin(), g32.end()), o(g.size());
  ASSERT_TRUE(module.run(fn, s.dims, g, o)) << fn;
  double gram = 0, polar = 0;
  for (int64_t b = 0; b < s.batch(); ++b) {
    Matrix got = matrixOf(o, b, s.rows(), s.cols());
    gram = std::max(gram, gramError(got));
    polar = std::max(polar, maxAbsDiff(got, polarFactor(matrixOf(g, b, s.rows(),
                                                                 s.cols()))));
  }
  std::printf("[ svd %s ] %-11s %-22s |O'O - I|_max %.3g  "
              "|O - U V^T|_max %.3g\n",
              sizeof(T) == 4 ? "f32" : "f64", s.str().c_str(), s.what, gram,
              polar);
  EXPECT_LE(gram, kOrthogonality) << fn << " " << s.str();
  EXPECT_LE(polar, polarTol) << fn << " " << s.str();
}

TEST_F(SvdOrthogonalizeTest, F32IsSemiOrthogonalPolarFactor) {
  for (size_t i = 0; i < shapes().size(); ++i)
    checkPolar<float>(*module, wrapperName("f32", i), shapes()[i], 2000 + i,
                      kPolarF32);
}

TEST_F(SvdOrthogonalizeTest, F64IsSemiOrthogonalPolarFactor) {
  for (size_t i = 0; i < shapes().size(); ++i)
    checkPolar<double>(*module, wrapperName("f64", i), shapes()[i], 2000 + i,
                       kPolarF64);
}

// Muon's SVD backend splits the fused matrix into its Q, K and V blocks and
// orthogonalises each (slices of one buffer, so the runtime sees views with
// an offset).
TEST_F(SvdOrthogonalizeTest, MuonQkvSplitOrthogonalisesEachBlock) {
  std::vector<float> g = gaussian(kQkv.elements(), 3000), o(g.size());
  ASSERT_TRUE(module->run("muon_qkv", kQkv.dims, g, o));
  const int64_t d = kQkv.cols();
  double gram = 0, polar = 0;
  for (int64_t blk = 0; blk < 3; ++blk) {
    // Rows [blk d, (blk + 1) d) are matrix `blk` of a batch of d x d.
    Matrix got = matrixOf(o, blk, d, d);
    gram = std::max(gram, gramError(got));
    polar =
        std::max(polar, maxAbsDiff(got, polarFactor(matrixOf(g, blk, d, d))));
  }
  std::printf("[ muon svd ] %-11s %-22s |O'O - I|_max %.3g  "
              "|O - U V^T|_max %.3g\n",
              kQkv.str().c_str(), "3 blocks of 64x64", gram, polar);
  EXPECT_LE(gram, kOrthogonality);
  EXPECT_LE(polar, kPolarF32);
}

/// A [batch, rows, cols] descriptor of `buf` at `offset` with strides.
gptc_matrices_f64 view(std::vector<double> &buf, int64_t offset, int64_t batch,
                       int64_t rows, int64_t cols, int64_t bs, int64_t rs,
                       int64_t cs) {
  return {buf.data(), buf.data(), offset, {batch, rows, cols}, {bs, rs, cs}};
}

// Column-major input with padding and an offset, a row-major padded output
// with its own offset: the callback reads and writes through the strides
// and leaves the padding alone.
TEST(SvdRuntime, StridedViews) {
  const int64_t batch = 2, rows = 12, cols = 5;
  const int64_t ild = rows + 3, ibs = ild * cols + 7, ioff = 4;
  const int64_t old = cols + 2, obs = old * rows + 1, ooff = 9;
  std::vector<float> values = gaussian(batch * rows * cols, 4000);
  std::vector<double> in(size_t(ioff + batch * ibs), -7.0);
  std::vector<double> out(size_t(ooff + batch * obs), -7.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        in[size_t(ioff + b * ibs + i + j * ild)] =
            values[size_t((b * rows + i) * cols + j)];
  gptc_matrices_f64 vin = view(in, ioff, batch, rows, cols, ibs, 1, ild);
  gptc_matrices_f64 vout = view(out, ooff, batch, rows, cols, obs, old, 1);
  _mlir_ciface_gptc_svd_orthogonalize_f64(&vin, &vout);
  std::vector<bool> written(out.size(), false);
  for (int64_t b = 0; b < batch; ++b) {
    Matrix want = polarFactor(matrixOf(values, b, rows, cols));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        size_t at = size_t(ooff + b * obs + i * old + j);
        written[at] = true;
        EXPECT_NEAR(out[at], want.at(i, j), kPolarF64)
            << b << " " << i << " " << j;
      }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    if (!written[k]) {
      EXPECT_EQ(out[k], -7.0) << "padding at " << k;
    }
  }
}

// A matrix with an infinity gives NaNs; the other matrices of the batch are
// unaffected.
TEST(SvdRuntime, NonFiniteMatrixGivesNaN) {
  const int64_t rows = 4, cols = 6;
  std::vector<float> in = gaussian(2 * rows * cols, 5000), out(in.size(), 0.0f);
  in[3] = std::numeric_limits<float>::infinity();
  gptc_matrices_f32 vin{
      in.data(), in.data(), 0, {2, rows, cols}, {rows * cols, cols, 1}};
  gptc_matrices_f32 vout{
      out.data(), out.data(), 0, {2, rows, cols}, {rows * cols, cols, 1}};
  _mlir_ciface_gptc_svd_orthogonalize_f32(&vin, &vout);
  for (int64_t k = 0; k < rows * cols; ++k)
    EXPECT_TRUE(std::isnan(out[size_t(k)])) << k;
  EXPECT_LE(gramError(matrixOf(out, 1, rows, cols)), kOrthogonality);
}

// Empty matrices and an empty batch are no-ops.
TEST(SvdRuntime, EmptyIsNoOp) {
  double sentinel = 3.0;
  for (auto sizes : {std::vector<int64_t>{0, 4, 4}, {2, 0, 4}, {2, 4, 0}}) {
    gptc_matrices_f64 v{
        &sentinel, &sentinel, 0, {sizes[0], sizes[1], sizes[2]}, {16, 4, 1}};
    _mlir_ciface_gptc_svd_orthogonalize_f64(&v, &v);
    EXPECT_EQ(sentinel, 3.0);
  }
}

} // namespace
