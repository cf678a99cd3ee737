//===- Svd.cpp - The SVD orthogonalisation callback, on LAPACK ------------===//
//
// _mlir_ciface_gptc_svd_orthogonalize_f32 / _f64 (runtime/gptrt.h): for
// every matrix G[b] of a strided batch, O[b] = U V^T where G[b] = U S V^T is
// the thin SVD: the exact orthogonalisation behind Muon's SVD backend
// (optim.svd_orthogonalize, lowered by gptc-lower-optim).
//
// Each matrix is copied into a packed column-major f64 temporary (whatever
// the strides), decomposed by LAPACK's dgesdd (divide and conquer; dgesvd if
// it does not converge) from OpenBLAS, and U V^T is one dgemm. Both element
// types compute in f64, so the f32 result is U V^T rounded once. A matrix
// with a NaN or an infinity gives NaNs, like a GEMM would; a rank-deficient
// one gives the U V^T LAPACK picks (any orthonormal completion).
//
// The matrices of a batch run one after the other on the calling thread:
// this is the exact reference backend, not the fast path.
//
//===----------------------------------------------------------------------===//

#include "runtime/gptrt.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

// LAPACK from OpenBLAS (Fortran ABI: arguments by pointer, the lengths of
// character arguments appended).
extern "C" {
void dgesdd_(const char *jobz, const int *m, const int *n, double *a,
             const int *lda, double *s, double *u, const int *ldu, double *vt,
             const int *ldvt, double *work, const int *lwork, int *iwork,
             int *info, size_t jobzLen);
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n,
             double *a, const int *lda, double *s, double *u, const int *ldu,
             double *vt, const int *ldvt, double *work, const int *lwork,
             int *info, size_t jobuLen, size_t jobvtLen);
}

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "gptc runtime: svd_orthogonalize: %s\n", what);
  std::abort();
}

/// Temporaries of one m x n matrix (k = min(m, n)), all column-major.
struct Workspace {
  std::vector<double> a, s, u, vt, o, work;
  std::vector<int> iwork;
};

/// Runs dgesdd (or dgesvd when `divideAndConquer` is false) with JOBZ = S
/// on ws.a (destroyed); returns LAPACK's info.
int thinSvd(int m, int n, Workspace &ws, bool divideAndConquer) {
  const int k = std::min(m, n), lda = std::max(1, m), ldu = std::max(1, m),
            ldvt = std::max(1, k);
  ws.s.resize(size_t(k));
  ws.u.resize(size_t(m) * size_t(k));
  ws.vt.resize(size_t(k) * size_t(n));
  int info = 0, lwork = -1;
  double query = 0;
  const char s = 'S';
  if (divideAndConquer) {
    ws.iwork.resize(size_t(8) * size_t(k));
    dgesdd_(&s, &m, &n, ws.a.data(), &lda, ws.s.data(), ws.u.data(), &ldu,
            ws.vt.data(), &ldvt, &query, &lwork, ws.iwork.data(), &info, 1);
  } else {
    dgesvd_(&s, &s, &m, &n, ws.a.data(), &lda, ws.s.data(), ws.u.data(), &ldu,
            ws.vt.data(), &ldvt, &query, &lwork, &info, 1, 1);
  }
  if (info != 0)
    return info;
  lwork = std::max(1, int(query));
  ws.work.resize(size_t(lwork));
  if (divideAndConquer)
    dgesdd_(&s, &m, &n, ws.a.data(), &lda, ws.s.data(), ws.u.data(), &ldu,
            ws.vt.data(), &ldvt, ws.work.data(), &lwork, ws.iwork.data(), &info,
            1);
  else
    dgesvd_(&s, &s, &m, &n, ws.a.data(), &lda, ws.s.data(), ws.u.data(), &ldu,
            ws.vt.data(), &ldvt, ws.work.data(), &lwork, &info, 1, 1);
  return info;
}

/// One m x n matrix, X[i, j] = ptr[i * rs + j * cs].
template <typename T> struct Matrix {
  T *ptr;
  int64_t rs, cs;
  T &at(int i, int j) const { return ptr[i * rs + j * cs]; }
};

/// Loads `in` into ws.a (column-major f64); false if it is not finite.
template <typename T>
bool load(int m, int n, Matrix<const T> in, Workspace &ws) {
  ws.a.resize(size_t(m) * size_t(n));
  bool finite = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double v = double(in.at(i, j));
      finite = finite && std::isfinite(v);
      ws.a[size_t(i) + size_t(j) * size_t(m)] = v;
    }
  return finite;
}

template <typename T> void fillNaN(int m, int n, Matrix<T> out) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      out.at(i, j) = std::numeric_limits<T>::quiet_NaN();
}

/// out = U V^T of the m x n matrix `in`.
template <typename T>
void orthogonalizeOne(int m, int n, Matrix<const T> in, Matrix<T> out,
                      Workspace &ws) {
  if (!load(m, n, in, ws))
    return fillNaN(m, n, out);
  int info = thinSvd(m, n, ws, /*divideAndConquer=*/true);
  if (info > 0) { // dgesdd did not converge: the QR iteration instead
    load(m, n, in, ws);
    info = thinSvd(m, n, ws, /*divideAndConquer=*/false);
  }
  if (info < 0)
    fail("LAPACK rejected an argument");
  if (info > 0)
    return fillNaN(m, n, out);
  const int k = std::min(m, n);
  ws.o.resize(size_t(m) * size_t(n));
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
              ws.u.data(), std::max(1, m), ws.vt.data(), std::max(1, k), 0.0,
              ws.o.data(), std::max(1, m));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      out.at(i, j) = T(ws.o[size_t(i) + size_t(j) * size_t(m)]);
}

/// The batch of `in` into `out`; both are [batch, rows, cols] descriptors.
template <typename T, typename Ref>
void orthogonalize(const Ref *in, const Ref *out) {
  if (!in || !out)
    fail("null memref descriptor");
  for (int d = 0; d < 3; ++d)
    if (in->sizes[d] != out->sizes[d] || in->sizes[d] < 0)
      fail("input and output need the same non-negative sizes");
  const int64_t batch = in->sizes[0], m = in->sizes[1], n = in->sizes[2];
  // LAPACK takes 32-bit sizes (and workspace lengths of about m n).
  if (m > INT_MAX || n > INT_MAX || m * n > INT_MAX)
    fail("a matrix of 2^31 or more elements is beyond 32-bit LAPACK");
  if (m == 0 || n == 0)
    return;
  Workspace ws;
  const T *pin = in->aligned + in->offset;
  T *pout = out->aligned + out->offset;
  for (int64_t b = 0; b < batch; ++b)
    orthogonalizeOne<T>(
        int(m), int(n),
        Matrix<const T>{pin + b * in->strides[0], in->strides[1],
                        in->strides[2]},
        Matrix<T>{pout + b * out->strides[0], out->strides[1], out->strides[2]},
        ws);
}

} // namespace

extern "C" {

void _mlir_ciface_gptc_svd_orthogonalize_f32(gptc_matrices_f32 *in,
                                             gptc_matrices_f32 *out) {
  orthogonalize<float>(in, out);
}

void _mlir_ciface_gptc_svd_orthogonalize_f64(gptc_matrices_f64 *in,
                                             gptc_matrices_f64 *out) {
  orthogonalize<double>(in, out);
}

} // extern "C"
