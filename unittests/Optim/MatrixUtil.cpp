//===- MatrixUtil.cpp - f64 oracles for the orthogonalisation tests -------===//

#include "unittests/Optim/MatrixUtil.h"

#include "reference/Random.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

// LAPACK from OpenBLAS (Fortran ABI).
extern "C" void dgesvd_(const char *jobu, const char *jobvt, const int *m,
                        const int *n, double *a, const int *lda, double *s,
                        double *u, const int *ldu, double *vt, const int *ldvt,
                        double *work, const int *lwork, int *info,
                        size_t jobuLen, size_t jobvtLen);

namespace gptc::test {

namespace {

/// The thin SVD of `a`: s, and U (rows x k) and V^T (k x cols) column-major
/// when `vectors`.
struct Svd {
  std::vector<double> s, u, vt;
};

Svd svd(const Matrix &a, bool vectors) {
  const int m = int(a.rows), n = int(a.cols), k = std::min(m, n);
  std::vector<double> colMajor(size_t(m) * size_t(n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      colMajor[size_t(i) + size_t(j) * size_t(m)] = a.at(i, j);
  Svd r;
  r.s.resize(size_t(k));
  r.u.resize(vectors ? size_t(m) * size_t(k) : 1);
  r.vt.resize(vectors ? size_t(k) * size_t(n) : 1);
  const char job = vectors ? 'S' : 'N';
  const int lda = std::max(1, m), ldu = vectors ? std::max(1, m) : 1,
            ldvt = vectors ? std::max(1, k) : 1;
  int lwork = -1, info = 0;
  double query = 0;
  dgesvd_(&job, &job, &m, &n, colMajor.data(), &lda, r.s.data(), r.u.data(),
          &ldu, r.vt.data(), &ldvt, &query, &lwork, &info, 1, 1);
  lwork = std::max(1, int(query));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgesvd_(&job, &job, &m, &n, colMajor.data(), &lda, r.s.data(), r.u.data(),
          &ldu, r.vt.data(), &ldvt, work.data(), &lwork, &info, 1, 1);
  if (info != 0)
    throw std::runtime_error("dgesvd failed, info " + std::to_string(info));
  return r;
}

Matrix transposed(const Matrix &x) {
  Matrix t{x.cols, x.rows, std::vector<double>(x.v.size())};
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j)
      t.at(j, i) = x.at(i, j);
  return t;
}

/// x y (x transposed first when `transX`).
Matrix multiply(const Matrix &x, const Matrix &y, bool transX = false) {
  const int64_t m = transX ? x.cols : x.rows, k = transX ? x.rows : x.cols;
  Matrix r{m, y.cols, std::vector<double>(size_t(m * y.cols), 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double xv = transX ? x.at(p, i) : x.at(i, p);
      for (int64_t j = 0; j < y.cols; ++j)
        r.at(i, j) += xv * y.at(p, j);
    }
  return r;
}

} // namespace

std::vector<double> singularValues(const Matrix &a) {
  return svd(a, /*vectors=*/false).s;
}

Matrix polarFactor(const Matrix &a) {
  Svd r = svd(a, /*vectors=*/true);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  Matrix o{m, n, std::vector<double>(size_t(m * n), 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double u = r.u[size_t(i + p * m)];
      for (int64_t j = 0; j < n; ++j)
        o.at(i, j) += u * r.vt[size_t(p + j * k)];
    }
  return o;
}

double gramError(const Matrix &o) {
  // The Gram matrix of the short side.
  Matrix gram = o.rows <= o.cols ? multiply(o, transposed(o))
                                 : multiply(o, o, /*transX=*/true);
  double err = 0;
  for (int64_t i = 0; i < gram.rows; ++i)
    for (int64_t j = 0; j < gram.cols; ++j)
      err = std::max(err, std::abs(gram.at(i, j) - (i == j ? 1.0 : 0.0)));
  return err;
}

double maxAbsDiff(const Matrix &a, const Matrix &b) {
  double err = 0;
  for (size_t i = 0; i < a.v.size(); ++i)
    err = std::max(err, std::abs(a.v[i] - b.v[i]));
  return err;
}

double relativeFrobenius(const Matrix &a, const Matrix &b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.v.size(); ++i) {
    diff += (a.v[i] - b.v[i]) * (a.v[i] - b.v[i]);
    norm += b.v[i] * b.v[i];
  }
  return std::sqrt(diff / norm);
}

Matrix newtonSchulz(const Matrix &g, double a, double b, double c, int steps,
                    double eps) {
  double norm = 0;
  for (double x : g.v)
    norm += x * x;
  norm = std::sqrt(norm) + eps;
  Matrix x = g;
  for (double &e : x.v)
    e /= norm;
  const bool tall = g.rows > g.cols;
  if (tall)
    x = transposed(x);
  for (int s = 0; s < steps; ++s) {
    Matrix gram = multiply(x, transposed(x)); // A = X X^T
    Matrix gram2 = multiply(gram, gram);
    for (size_t i = 0; i < gram.v.size(); ++i) // B = b A + c A A
      gram.v[i] = b * gram.v[i] + c * gram2.v[i];
    Matrix bx = multiply(gram, x);
    for (size_t i = 0; i < x.v.size(); ++i) // X = a X + B X
      x.v[i] = a * x.v[i] + bx.v[i];
  }
  return tall ? transposed(x) : x;
}

std::vector<float> gaussian(int64_t n, uint64_t seed) {
  ref::Random gen(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v)
    x = static_cast<float>(gen.normal());
  return v;
}

} // namespace gptc::test
