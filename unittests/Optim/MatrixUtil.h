//===- MatrixUtil.h - f64 oracles of the orthogonalisation tests *- C++ -*-===//
//
// Row-major f64 matrices and what the tests compare against: singular values
// and U V^T from LAPACK (dgesvd, QR iteration: a different driver from the
// runtime's dgesdd), and the Newton-Schulz iteration written out in f64 from
// its definition in dialects/Optim/OptimOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_OPTIM_MATRIXUTIL_H
#define GPTC_UNITTESTS_OPTIM_MATRIXUTIL_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gptc::test {

/// The shape of a batch of matrices, [batch...,] rows, cols, and what it
/// stands for.
struct BatchShape {
  std::vector<int64_t> dims;
  const char *what;
  int64_t rows() const { return dims[dims.size() - 2]; }
  int64_t cols() const { return dims.back(); }
  int64_t batch() const {
    int64_t b = 1;
    for (size_t i = 0; i + 2 < dims.size(); ++i)
      b *= dims[i];
    return b;
  }
  int64_t elements() const { return batch() * rows() * cols(); }
  /// Long side over short side.
  double aspect() const {
    return double(std::max(rows(), cols())) / double(std::min(rows(), cols()));
  }
  /// "3x48x96"
  std::string str() const {
    std::string s;
    for (int64_t d : dims)
      s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
  }
};

/// A rows x cols matrix, row-major.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double &at(int64_t i, int64_t j) { return v[size_t(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return v[size_t(i * cols + j)]; }
};

/// Matrix `index` of a row-major batch of rows x cols matrices.
template <typename T>
Matrix matrixOf(const std::vector<T> &batch, int64_t index, int64_t rows,
                int64_t cols) {
  Matrix m{rows, cols, std::vector<double>(size_t(rows * cols))};
  for (int64_t i = 0; i < rows * cols; ++i)
    m.v[size_t(i)] = double(batch[size_t(index * rows * cols + i)]);
  return m;
}

/// Singular values, largest first (dgesvd).
std::vector<double> singularValues(const Matrix &a);

/// U V^T for the thin SVD a = U S V^T (dgesvd).
Matrix polarFactor(const Matrix &a);

/// max |O O^T - I| (rows <= cols) or max |O^T O - I| (rows > cols): how far
/// the short side of `o` is from orthonormal.
double gramError(const Matrix &o);

/// max |a - b| over the elements.
double maxAbsDiff(const Matrix &a, const Matrix &b);

/// |a - b|_F / |b|_F.
double relativeFrobenius(const Matrix &a, const Matrix &b);

/// The quintic Newton-Schulz iteration in f64, form polynomial_then_apply,
/// transpose short_side: X = G / (|G|_F + eps), X = X^T if rows > cols,
/// `steps` times A = X X^T, B = b A + c A A, X = a X + B X, transposed back.
Matrix newtonSchulz(const Matrix &g, double a, double b, double c, int steps,
                    double eps);

/// `n` samples of N(0, 1) from a fixed seed.
std::vector<float> gaussian(int64_t n, uint64_t seed);

} // namespace gptc::test

#endif // GPTC_UNITTESTS_OPTIM_MATRIXUTIL_H
