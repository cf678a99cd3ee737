//===- Gemm.cpp - The GEMM callbacks of compiled steps, on OpenBLAS -------===//
//
// gptc_gemm_f32 / _f64 / _bf16 (runtime/gptrt.h):
//
//   D[b] = alpha op(A[b]) op(B[b]) + beta C[b]    for b < batch
//
// on strided views. Every call goes to a row-major GEMM: for f32 (and the
// widened bf16) gptc's AVX-512 kernel where the CPU has it
// (runtime/cpu/GemmAVX512.h), else cblas_sgemm; cblas_dgemm for f64. A view
// X (R x C, strides rs, cs in elements) is handed to BLAS as is when it is
//   row-major     cs == 1 and rs >= C: ld = rs
//   column-major  rs == 1 and cs >= R: X is the row-major X^T with ld = cs,
//                 so the transpose flag flips
// (the stride of a dimension of size 1 is ignored)
// and is otherwise copied to a packed row-major temporary. A column-major D
// is computed as D^T = op(B)^T op(A)^T. beta == 0 never reads C (NaN-safe);
// a C that is not D is copied into D first (BLAS updates in place), and
// beta is left to the kernel, so a separate C gives the bits of C in place.
// bf16 runs on AMX tiles (runtime/cpu/GemmAMX.h) or on AVX512_BF16 pairs
// (runtime/cpu/GemmAVX512.h) where the CPU has them; otherwise it converts
// A, B and C to f32 (bits << 16; an operand passed as both A and B once),
// runs sgemm and rounds the result to nearest even. Every path applies the
// epilogue in f32, before the one rounding.
//
// A Gram product, alpha op(A) op(A)^T + beta C with beta == 0 or a C that
// is bit for bit symmetric (Newton-Schulz's X X^T, and b A + c A A^T of a
// symmetric A), is symmetric: only block rows of the lower triangle are
// computed, then mirrored, D exactly symmetric. On gptc's AVX-512 kernels,
// whose sums do not depend on the split, f32 runs in blocks of 192 rows and
// bf16 skips the register tiles above the diagonal (62% and 52% of the
// multiply-adds at m = 768, on one thread or many); on OpenBLAS one block per
// thread, split so that the threads get equal work.
//
// Threads: the calls come from the step between its OpenMP kernels, so they
// share that OpenMP thread pool (LLVM's libomp, which serves GCC's GOMP
// entry points too) instead of starting OpenBLAS's own: OpenBLAS runs
// single-threaded inside one `omp parallel` that splits the batch, or else
// the longer of C's two dimensions, into one block per thread. Two pools
// spinning for the same two cores cost more than the GEMMs' own imbalance.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Bf16.h"
#include "runtime/cpu/GemmAMX.h"
#include "runtime/cpu/GemmAVX512.h"
#include "runtime/cpu/HostGemms.h"
#include "runtime/gptrt.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

using gptc::runtime::bf16ToF32;
using gptc::runtime::f32ToBf16;

namespace {

/// A strided matrix view: X[i][j] = ptr[i * rs + j * cs].
template <typename T> struct View {
  T *ptr;
  int64_t rows, cols, rs, cs;
  T at(int64_t i, int64_t j) const { return ptr[i * rs + j * cs]; }
};

/// A BLAS operand: a row-major matrix with leading dimension `ld`, used
/// transposed when `trans`.
template <typename T> struct Operand {
  const T *ptr;
  int64_t ld;
  bool trans;
};

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "gptc runtime: gemm: %s\n", what);
  std::abort();
}

// The stride of a dimension of size 1 does not matter; cblas takes 32-bit
// leading dimensions.
bool isRowMajor(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return (cs == 1 || cols == 1) && (rows == 1 || (rs >= cols && rs <= INT_MAX));
}
bool isColMajor(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return (rs == 1 || rows == 1) && (cols == 1 || (cs >= rows && cs <= INT_MAX));
}

/// `x` as a BLAS operand with transpose `trans`, packing it into `tmp` when
/// its strides are not a BLAS layout.
template <typename T>
Operand<T> operand(const View<T> &x, bool trans, std::vector<T> &tmp) {
  if (isRowMajor(x.rows, x.cols, x.rs, x.cs))
    return {x.ptr, x.rows == 1 ? x.cols : x.rs, trans};
  if (isColMajor(x.rows, x.cols, x.rs, x.cs))
    return {x.ptr, x.cols == 1 ? x.rows : x.cs, !trans};
  tmp.resize(size_t(x.rows * x.cols));
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j)
      tmp[size_t(i * x.cols + j)] = x.at(i, j);
  return {tmp.data(), x.cols, trans};
}

/// A product this thin runs at a fraction of the AVX-512 kernel's 12 x 32
/// tile; OpenBLAS's GEMV-like paths do better there.
bool tooThinForTiles(int64_t m, int64_t n) { return m < 4 || n < 16; }

void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
              const float *a, int64_t lda, const float *b, int64_t ldb,
              float beta, float *c, int64_t ldc) {
  if (gptc::runtime::avx512SgemmAvailable() && !tooThinForTiles(m, n)) {
    gptc::runtime::avx512Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                               ldc);
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}
void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
              const double *a, int64_t lda, const double *b, int64_t ldb,
              double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}

/// Leading dimensions must be at least 1 even for empty or single rows.
int64_t atLeast1(int64_t v) { return v < 1 ? 1 : v; }

/// Temporaries reused across calls (one set per calling thread).
template <typename T> struct Scratch {
  std::vector<T> a, b, c;
};
template <typename T> Scratch<T> &scratch() {
  thread_local Scratch<T> s;
  return s;
}

/// One GEMM D = alpha op(A) op(B) + beta C on views a, b (stored shapes of
/// A and B), c and d; T is float or double.
template <typename T>
void gemmOne(bool transA, bool transB, const View<T> &a, const View<T> &b,
             T alpha, T beta, const View<T> &c, const View<T> &d, int64_t k) {
  const int64_t m = d.rows, n = d.cols;
  if (m == 0 || n == 0)
    return;
  const bool rowMajor = isRowMajor(m, n, d.rs, d.cs);
  const bool colMajor = !rowMajor && isColMajor(m, n, d.rs, d.cs);
  // BLAS updates C in place: a separate C is copied into D first, as it
  // is, and beta left to BLAS. (Where and how beta is applied is the
  // kernel's: OpenBLAS's Zen kernels scale C in a pass of their own, so a
  // copy of beta C with beta = 1 gave their bits, but its Cooperlake
  // kernels fuse beta for small f32 products and for f64.)
  if (beta != T(0) && c.ptr != d.ptr)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        d.ptr[i * d.rs + j * d.cs] = c.at(i, j);
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T &x = d.ptr[i * d.rs + j * d.cs];
        x = beta == T(0) ? T(0) : beta * x;
      }
    return;
  }
  Scratch<T> &s = scratch<T>();
  Operand<T> oa = operand(a, transA, s.a);
  Operand<T> ob = operand(b, transB, s.b);
  if (rowMajor) {
    blasGemm(oa.trans, ob.trans, m, n, k, alpha, oa.ptr, atLeast1(oa.ld),
             ob.ptr, atLeast1(ob.ld), beta, d.ptr, atLeast1(m == 1 ? n : d.rs));
    return;
  }
  if (colMajor) {
    // D^T (n x m, row-major, ld = cs) = op(B)^T op(A)^T.
    blasGemm(!ob.trans, !oa.trans, n, m, k, alpha, ob.ptr, atLeast1(ob.ld),
             oa.ptr, atLeast1(oa.ld), beta, d.ptr, atLeast1(n == 1 ? m : d.cs));
    return;
  }
  s.c.resize(size_t(m * n));
  if (beta != T(0))
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        s.c[size_t(i * n + j)] = d.at(i, j);
  blasGemm(oa.trans, ob.trans, m, n, k, alpha, oa.ptr, atLeast1(oa.ld), ob.ptr,
           atLeast1(ob.ld), beta, s.c.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      d.ptr[i * d.rs + j * d.cs] = s.c[size_t(i * n + j)];
}

void checkArgs(int64_t m, int64_t n, int64_t k, int64_t batch) {
  if (m < 0 || n < 0 || k < 0 || batch < 0)
    fail("negative size");
  // cblas takes 32-bit sizes and leading dimensions.
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    fail("size above 2^31 - 1");
}

/// The operands of one GEMM D = alpha op(A) op(B) + beta C as views; A and
/// B are views of their stored (untransposed) shapes.
template <typename T, typename CT> struct GemmViews {
  View<T> a, b;
  View<CT> c, d;
};

/// Rows [i0, i0 + len) of op(A), C and D.
template <typename T, typename CT>
GemmViews<T, CT> rowBlock(GemmViews<T, CT> g, bool transA, int64_t i0,
                          int64_t len) {
  if (transA) { // op(A) rows are the stored columns
    g.a.ptr += i0 * g.a.cs;
    g.a.cols = len;
  } else {
    g.a.ptr += i0 * g.a.rs;
    g.a.rows = len;
  }
  for (View<CT> *v : {&g.c, &g.d}) {
    v->ptr += i0 * v->rs;
    v->rows = len;
  }
  return g;
}

/// Columns [j0, j0 + len) of op(B), C and D.
template <typename T, typename CT>
GemmViews<T, CT> colBlock(GemmViews<T, CT> g, bool transB, int64_t j0,
                          int64_t len) {
  if (transB) { // op(B) columns are the stored rows
    g.b.ptr += j0 * g.b.rs;
    g.b.rows = len;
  } else {
    g.b.ptr += j0 * g.b.cs;
    g.b.cols = len;
  }
  for (View<CT> *v : {&g.c, &g.d}) {
    v->ptr += j0 * v->cs;
    v->cols = len;
  }
  return g;
}

/// Below this many multiply-adds a GEMM stays on the calling thread.
constexpr int64_t kParallelWork = int64_t(1) << 18;

/// OpenBLAS's own threads stay idle; the first call turns them off.
void useCallingThreadsOnly() {
  static const bool once = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)once;
}

/// Whether a call of `work` multiply-adds runs on all the OpenMP threads
/// (else on the calling thread alone).
bool spreadsOverThreads(int64_t work) {
  return omp_get_max_threads() > 1 && work >= kParallelWork &&
         !omp_in_parallel();
}

/// Whether forEachBlock splits each batch item among the threads.
bool splitsItems(int64_t batch, int64_t m, int64_t n, int64_t k) {
  return spreadsOverThreads(batch * m * n * k) && batch < omp_get_max_threads();
}

/// Runs `one(views)` for every batch item, spread over the OpenMP threads:
/// by batch item when there are at least as many items as threads, else by
/// blocks of the longer of C's dimensions (multiples of 16).
template <typename T, typename CT, typename Fn>
void forEachBlock(int64_t batch, bool transA, bool transB, int64_t m, int64_t n,
                  int64_t k,
                  const std::function<GemmViews<T, CT>(int64_t)> &item,
                  Fn one) {
  useCallingThreadsOnly();
  int threads = omp_get_max_threads();
  if (!spreadsOverThreads(batch * m * n * k)) {
    for (int64_t i = 0; i < batch; ++i)
      one(item(i));
    return;
  }
  if (batch >= threads) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i = 0; i < batch; ++i)
      one(item(i));
    return;
  }
  const bool splitRows = m >= n;
  const int64_t len = splitRows ? m : n;
  int64_t chunk = (len + threads - 1) / threads;
  chunk = (chunk + 15) / 16 * 16;
  const int64_t blocks = (len + chunk - 1) / chunk;
  for (int64_t i = 0; i < batch; ++i) {
    GemmViews<T, CT> whole = item(i);
#pragma omp parallel for schedule(static, 1)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      int64_t start = blk * chunk;
      int64_t size = std::min(chunk, len - start);
      one(splitRows ? rowBlock(whole, transA, start, size)
                    : colBlock(whole, transB, start, size));
    }
  }
}

/// Whether C (m x m) is bit for bit symmetric, compared by square tiles.
template <typename T> bool isSymmetric(const View<T> &c) {
  constexpr int64_t kTile = 32;
  const int64_t m = c.rows;
  for (int64_t i0 = 0; i0 < m; i0 += kTile)
    for (int64_t j0 = 0; j0 <= i0; j0 += kTile)
      for (int64_t i = i0; i < std::min(m, i0 + kTile); ++i)
        for (int64_t j = j0; j < std::min(i, j0 + kTile); ++j)
          if (std::memcmp(&c.ptr[i * c.rs + j * c.cs],
                          &c.ptr[j * c.rs + i * c.cs], sizeof(T)) != 0)
            return false;
  return true;
}

/// Whether the call is a Gram product D = alpha op(A) op(A)^T + beta C,
/// symmetric whenever its C is: B is A read the other way round, and C
/// (read only when beta != 0; Newton-Schulz's b A + c A A^T passes A) is
/// bit for bit symmetric in every item, on the AVX-512 kernels.
template <typename T>
bool isGram(int64_t transA, int64_t transB, int64_t m, int64_t n, uintptr_t a,
            int64_t aRs, int64_t aCs, int64_t aBs, uintptr_t b, int64_t bRs,
            int64_t bCs, int64_t bBs, double beta, const T *c, int64_t cRs,
            int64_t cCs, int64_t cBs, int64_t batch) {
  if (!(a == b && aRs == bRs && aCs == bCs && aBs == bBs &&
        (transA != 0) != (transB != 0) && m == n))
    return false;
  if (beta == 0.0)
    return true;
  // With a C, only where the triangle keeps the full product's bits: on
  // gptc's AVX-512 kernels (f32, and bf16 on AVX512_BF16 or widened to
  // f32), which sum each element in k order whatever the split. On
  // OpenBLAS the full product keeps its bits (A A = A A^T of Newton-
  // Schulz's polynomial form included).
  if (std::is_same_v<T, double> || !gptc::runtime::avx512SgemmAvailable())
    return false;
  for (int64_t i = 0; i < batch; ++i)
    if (!isSymmetric<T>({const_cast<T *>(c) + i * cBs, m, m, cRs, cCs}))
      return false;
  return true;
}

/// op(X) of a stored view (a transpose swaps the strides).
template <typename T> View<T> opOf(const View<T> &x, bool trans) {
  return trans ? View<T>{x.ptr, x.cols, x.rows, x.cs, x.rs} : x;
}

/// Rows of one block of the lower triangle where a block's results do not
/// depend on the block (see triangleBlocks).
constexpr int64_t kTriangleRows = 192;

/// Block rows [at[b], at[b + 1]) of the lower triangle of an m x m Gram
/// product; block b computes its rows against columns [0, at[b + 1]).
/// One block per thread of equal work (row i costs i + 1 dot products:
/// boundaries at m sqrt(p / parts), multiples of 16), the only split that
/// OpenBLAS's bits allow. With `anySplit` (the kernel sums every element
/// in k order whatever rows and columns a call was given: gptc's AVX-512
/// kernels) the blocks are cut at every multiple of kTriangleRows too
/// (the last takes the remainder): about m (m + kTriangleRows) / 2 dot
/// products instead of m^2 (62% of them at m = 768; smaller blocks cost
/// more in packing than they save), on one thread or many.
std::vector<int64_t> triangleBlocks(int64_t m, int parts, bool anySplit) {
  std::vector<int64_t> at{0, m};
  for (int p = 1; p < parts; ++p) {
    auto b = int64_t(double(m) * std::sqrt(double(p) / parts));
    at.push_back(std::min(m, (b + 15) / 16 * 16));
  }
  if (anySplit)
    for (int64_t i = kTriangleRows; i + kTriangleRows <= m; i += kTriangleRows)
      at.push_back(i);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  // A last block too thin for the AVX-512 tiles would go to OpenBLAS
  // (tooThinForTiles), whose sums differ: it joins the one before.
  while (at.size() > 2 && m - at[at.size() - 2] < 4)
    at.erase(at.end() - 2);
  return at;
}

/// The lower triangle of an m x m Gram product D by the block rows of
/// triangleBlocks, `rows(i0, i1)` computing D[i0, i1) x [0, i1), the
/// largest blocks first, spread over `parts` threads; then the strict upper
/// triangle mirrored from the lower one, by square tiles (a row of one and
/// a column of the other stay in cache) spread over the same threads.
template <typename T, typename Rows>
void lowerTriangle(int64_t m, const View<T> &d, int parts, bool anySplit,
                   Rows rows) {
  const std::vector<int64_t> at = triangleBlocks(m, parts, anySplit);
  const auto blocks = int64_t(at.size()) - 1;
  constexpr int64_t kTile = 32;
  const int64_t tileRows = (m + kTile - 1) / kTile;
#pragma omp parallel if (parts > 1)
  {
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = blocks - 1; b >= 0; --b)
      rows(at[size_t(b)], at[size_t(b) + 1]);
    // Tile row t holds (tileRows - t) tiles: handed out one at a time.
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < tileRows; ++t) {
      const int64_t i0 = t * kTile, i1 = std::min(m, i0 + kTile);
      for (int64_t j0 = i0; j0 < m; j0 += kTile) {
        const int64_t j1 = std::min(m, j0 + kTile);
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = std::max(j0, i + 1); j < j1; ++j)
            d.ptr[i * d.rs + j * d.cs] = d.at(j, i);
      }
    }
  }
}

/// D = alpha X X^T + beta C for X m x k and a symmetric C (not read when
/// beta is 0), by lowerTriangle on `parts` threads.
template <typename T>
void gram(const View<T> &x, T alpha, T beta, const View<T> &c, const View<T> &d,
          int parts) {
  const int64_t k = x.cols;
  // Only the AVX-512 kernel's f32 sums are the same whatever the split.
  const bool anySplit =
      std::is_same_v<T, float> && gptc::runtime::avx512SgemmAvailable();
  lowerTriangle(x.rows, d, parts, anySplit, [&](int64_t i0, int64_t i1) {
    View<T> rows{x.ptr + i0 * x.rs, i1 - i0, k, x.rs, x.cs};
    View<T> prefix{x.ptr, i1, k, x.rs, x.cs};
    View<T> out{d.ptr + i0 * d.rs, i1 - i0, i1, d.rs, d.cs};
    View<T> from = beta == T(0)
                       ? out
                       : View<T>{c.ptr + i0 * c.rs, i1 - i0, i1, c.rs, c.cs};
    gemmOne<T>(false, true, rows, prefix, alpha, beta, from, out, k);
  });
}

/// Runs `one(i, parts)` for the batch items of a Gram product, spread over
/// the OpenMP threads: by item when there are enough of them, else each
/// item's triangle split into `parts` (one per thread).
template <typename Fn>
void forEachGram(int64_t batch, int64_t m, int64_t k, Fn one) {
  useCallingThreadsOnly();
  int threads = omp_get_max_threads();
  if (threads <= 1 || batch * m * m * k / 2 < kParallelWork ||
      omp_in_parallel()) {
    for (int64_t i = 0; i < batch; ++i)
      one(i, 1);
    return;
  }
  if (batch >= threads) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i = 0; i < batch; ++i)
      one(i, 1);
    return;
  }
  for (int64_t i = 0; i < batch; ++i)
    one(i, threads);
}

template <typename T>
void gemm(int64_t transA, int64_t transB, int64_t m, int64_t n, int64_t k,
          uintptr_t a, int64_t aRs, int64_t aCs, int64_t aBs, uintptr_t b,
          int64_t bRs, int64_t bCs, int64_t bBs, T alpha, T beta, uintptr_t c,
          int64_t cRs, int64_t cCs, int64_t cBs, uintptr_t d, int64_t dRs,
          int64_t dCs, int64_t dBs, int64_t batch) {
  checkArgs(m, n, k, batch);
  T *pa = reinterpret_cast<T *>(a);
  T *pb = reinterpret_cast<T *>(b);
  T *pc = reinterpret_cast<T *>(c);
  T *pd = reinterpret_cast<T *>(d);
  if (isGram<T>(transA, transB, m, n, a, aRs, aCs, aBs, b, bRs, bCs, bBs,
                double(beta), pc, cRs, cCs, cBs, batch)) {
    forEachGram(batch, m, k, [&](int64_t i, int parts) {
      View<T> stored{pa + i * aBs, transA ? k : m, transA ? m : k, aRs, aCs};
      gram<T>(opOf(stored, transA != 0), alpha, beta,
              {beta == T(0) ? nullptr : pc + i * cBs, m, m, cRs, cCs},
              {pd + i * dBs, m, m, dRs, dCs}, parts);
    });
    return;
  }
  std::function<GemmViews<T, T>(int64_t)> item = [&](int64_t i) {
    return GemmViews<T, T>{
        {pa + i * aBs, transA ? k : m, transA ? m : k, aRs, aCs},
        {pb + i * bBs, transB ? n : k, transB ? k : n, bRs, bCs},
        {pc + i * cBs, m, n, cRs, cCs},
        {pd + i * dBs, m, n, dRs, dCs}};
  };
  forEachBlock<T, T>(batch, transA != 0, transB != 0, m, n, k, item,
                     [&](const GemmViews<T, T> &g) {
                       gemmOne<T>(transA != 0, transB != 0, g.a, g.b, alpha,
                                  beta, g.c, g.d, k);
                     });
}

/// op(X) of a stored bf16 view as a matrix (a transpose swaps strides).
gptc::runtime::Bf16Matrix opView(const View<uint16_t> &x, bool trans) {
  View<uint16_t> o = opOf(x, trans);
  return {o.ptr, o.rows, o.cols, o.rs, o.cs};
}

/// Below this many multiply-adds a bf16 GEMM is not worth the packing of
/// AMX's or AVX512_BF16's kernel.
constexpr int64_t kAMXWork = int64_t(1) << 15;

/// Unpacks a bf16 view into a packed row-major f32 matrix, over the OpenMP
/// threads when `parallel`.
void unpackBf16(const View<uint16_t> &x, std::vector<float> &out,
                bool parallel = false) {
  out.resize(size_t(x.rows * x.cols));
  float *to = out.data();
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t i = 0; i < x.rows; ++i) {
    float *row = to + i * x.cols;
    if (x.cs == 1) { // contiguous: a vectorised shift
      const uint16_t *from = x.ptr + i * x.rs;
      for (int64_t j = 0; j < x.cols; ++j)
        row[j] = bf16ToF32(from[j]);
      continue;
    }
    for (int64_t j = 0; j < x.cols; ++j)
      row[j] = bf16ToF32(x.at(i, j));
  }
}

/// Rounds a packed row-major f32 matrix into a bf16 view, over the OpenMP
/// threads when `parallel`.
void packBf16(const std::vector<float> &in, const View<uint16_t> &x,
              bool parallel = false) {
  const float *from = in.data();
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t i = 0; i < x.rows; ++i) {
    const float *row = from + i * x.cols;
    if (x.cs == 1) { // contiguous: vectorised
      uint16_t *to = x.ptr + i * x.rs;
      for (int64_t j = 0; j < x.cols; ++j)
        to[j] = f32ToBf16(row[j]);
      continue;
    }
    for (int64_t j = 0; j < x.cols; ++j)
      x.ptr[i * x.rs + j * x.cs] = f32ToBf16(row[j]);
  }
}

bool sameView(const View<uint16_t> &x, const View<uint16_t> &y) {
  return x.ptr == y.ptr && x.rows == y.rows && x.cols == y.cols &&
         x.rs == y.rs && x.cs == y.cs;
}

/// The f32 operands of a bf16 GEMM on the f32 path: A and B widened (B
/// once more only when it is not A itself, as in Newton-Schulz's A A), C
/// widened into the buffer the f32 GEMM then updates with beta.
struct WidenedOperands {
  std::vector<float> a, b, c;

  GemmViews<float, float> widen(const GemmViews<uint16_t, uint16_t> &g,
                                float beta, bool parallel) {
    const int64_t m = g.d.rows, n = g.d.cols;
    unpackBf16(g.a, a, parallel);
    const bool bIsA = sameView(g.a, g.b);
    if (!bIsA)
      unpackBf16(g.b, b, parallel);
    if (beta != 0.0f)
      unpackBf16(g.c, c, parallel);
    else // beta == 0: BLAS writes every element without reading it
      c.resize(size_t(m * n));
    std::vector<float> &fb = bIsA ? a : b;
    View<float> fc{c.data(), m, n, n, 1};
    return {{a.data(), g.a.rows, g.a.cols, g.a.cols, 1},
            {fb.data(), g.b.rows, g.b.cols, g.b.cols, 1},
            fc,
            fc};
  }
};

/// One bf16 item D = alpha op(A) op(B) + beta C on the f32 path, split
/// among the threads: A, B and C are widened once, in parallel, and the
/// f32 GEMM is split into the blocks forEachBlock gives each thread, so
/// every block runs the same f32 call (sizes, flags, values) as when each
/// thread widened its own block, but no thread widens the operand the
/// blocks share (all of B, or all of A) again.
void gemmBf16WidenedOnce(bool transA, bool transB,
                         const GemmViews<uint16_t, uint16_t> &g, float alpha,
                         float beta, int64_t k) {
  thread_local WidenedOperands w;
  const int64_t m = g.d.rows, n = g.d.cols;
  GemmViews<float, float> f = w.widen(g, beta, true);
  std::function<GemmViews<float, float>(int64_t)> whole = [&](int64_t) {
    return f;
  };
  forEachBlock<float, float>(
      1, transA, transB, m, n, k, whole, [&](const GemmViews<float, float> &v) {
        gemmOne<float>(transA, transB, v.a, v.b, alpha, beta, v.c, v.d, k);
      });
  packBf16(w.c, g.d, true);
}

/// The bf16 Gram product on the f32 path: op(A) (and C) widened once per
/// item.
void gramBf16(const View<uint16_t> &opA, float alpha, float beta,
              const View<uint16_t> &c, const View<uint16_t> &d, int parts) {
  thread_local std::vector<float> fx, fd;
  unpackBf16(opA, fx, parts > 1);
  const int64_t m = opA.rows, k = opA.cols;
  if (beta != 0.0f)
    unpackBf16(c, fd, parts > 1);
  else
    fd.resize(size_t(d.rows * d.cols));
  const View<float> wide{fd.data(), m, m, m, 1};
  gram<float>({fx.data(), m, k, k, 1}, alpha, beta, wide, wide, parts);
  packBf16(fd, d, parts > 1);
}

/// The bf16 Gram product on the AVX512_BF16 kernel: no widening, and
/// only the tiles of the lower triangle (one block of rows per thread).
void gramBf16Pairs(const View<uint16_t> &x, float alpha, float beta,
                   const View<uint16_t> &c, const View<uint16_t> &d,
                   int parts) {
  lowerTriangle(x.rows, d, parts, false, [&](int64_t i0, int64_t i1) {
    gptc::runtime::avx512GramLowerBf16(opView(x, false), i0, i1,
                                       opView(d, false),
                                       {alpha, beta, c.ptr, c.rs, c.cs});
  });
}

} // namespace

extern "C" {

void gptc_gemm_f32(GPTC_GEMM_ARGS(float)) {
  gemm<float>(trans_a, trans_b, m, n, k, a, a_rs, a_cs, a_bs, b, b_rs, b_cs,
              b_bs, alpha, beta, c, c_rs, c_cs, c_bs, d, d_rs, d_cs, d_bs,
              batch);
}

void gptc_gemm_f64(GPTC_GEMM_ARGS(double)) {
  gemm<double>(trans_a, trans_b, m, n, k, a, a_rs, a_cs, a_bs, b, b_rs, b_cs,
               b_bs, alpha, beta, c, c_rs, c_cs, c_bs, d, d_rs, d_cs, d_bs,
               batch);
}

void gptc_gemm_bf16(GPTC_GEMM_ARGS(float)) {
  checkArgs(m, n, k, batch);
  uint16_t *pa = reinterpret_cast<uint16_t *>(a);
  uint16_t *pb = reinterpret_cast<uint16_t *>(b);
  uint16_t *pc = reinterpret_cast<uint16_t *>(c);
  uint16_t *pd = reinterpret_cast<uint16_t *>(d);
  const bool amx = gptc::runtime::amxBf16Available();
  const bool pairs = !amx && gptc::runtime::avx512Bf16Available();
  // AMX's symmetric kernel has no C: a C makes it the full product there.
  if ((!amx || beta == 0.0f) &&
      isGram<uint16_t>(trans_a, trans_b, m, n, a, a_rs, a_cs, a_bs, b, b_rs,
                       b_cs, b_bs, double(beta), pc, c_rs, c_cs, c_bs, batch)) {
    auto stored = [&](int64_t i) {
      return View<uint16_t>{pa + i * a_bs, trans_a ? k : m, trans_a ? m : k,
                            a_rs, a_cs};
    };
    // AMX's symmetric kernel spreads one item over the threads itself.
    if (amx && m * n * k >= kAMXWork && !omp_in_parallel()) {
      for (int64_t i = 0; i < batch; ++i)
        gptc::runtime::amxSyrkBf16(opView(stored(i), trans_a != 0),
                                   {pd + i * d_bs, m, n, d_rs, d_cs}, alpha);
      return;
    }
    forEachGram(batch, m, k, [&](int64_t i, int parts) {
      View<uint16_t> x = opOf(stored(i), trans_a != 0),
                     from{beta == 0.0f ? nullptr : pc + i * c_bs, m, m, c_rs,
                          c_cs},
                     out{pd + i * d_bs, m, m, d_rs, d_cs};
      if (pairs && m * m * k >= kAMXWork)
        gramBf16Pairs(x, alpha, beta, from, out, parts);
      else
        gramBf16(x, alpha, beta, from, out, parts);
    });
    return;
  }
  using Views = GemmViews<uint16_t, uint16_t>;
  std::function<Views(int64_t)> item = [&](int64_t i) {
    return Views{{pa + i * a_bs, trans_a ? k : m, trans_a ? m : k, a_rs, a_cs},
                 {pb + i * b_bs, trans_b ? n : k, trans_b ? k : n, b_rs, b_cs},
                 {pc + i * c_bs, m, n, c_rs, c_cs},
                 {pd + i * d_bs, m, n, d_rs, d_cs}};
  };
  if (!amx && !pairs && splitsItems(batch, m, n, k)) {
    for (int64_t i = 0; i < batch; ++i)
      gemmBf16WidenedOnce(trans_a != 0, trans_b != 0, item(i), alpha, beta, k);
    return;
  }
  forEachBlock<uint16_t, uint16_t>(
      batch, trans_a != 0, trans_b != 0, m, n, k, item, [&](const Views &g) {
        if ((amx || pairs) && g.d.rows * g.d.cols * k >= kAMXWork) {
          (amx ? gptc::runtime::amxGemmBf16 : gptc::runtime::avx512GemmBf16)(
              opView(g.a, trans_a != 0), opView(g.b, trans_b != 0),
              {g.d.ptr, g.d.rows, g.d.cols, g.d.rs, g.d.cs},
              {alpha, beta, g.c.ptr, g.c.rs, g.c.cs});
          return;
        }
        // Separate temporaries from the f32 path's (gemmOne uses those).
        thread_local WidenedOperands w;
        GemmViews<float, float> f = w.widen(g, beta, false);
        gemmOne<float>(trans_a != 0, trans_b != 0, f.a, f.b, alpha, beta, f.c,
                       f.d, k);
        packBf16(w.c, g.d);
      });
}

void gptc_gemm_bf16_f32(GPTC_GEMM_ARGS(float)) {
  checkArgs(m, n, k, batch);
  // Each item's operands widened (exactly) into packed f32 matrices, then
  // the f32 GEMM: the same sum as the bf16 GEMM's, without its rounding.
  thread_local std::vector<float> fa, fb;
  uint16_t *pa = reinterpret_cast<uint16_t *>(a);
  uint16_t *pb = reinterpret_cast<uint16_t *>(b);
  const int64_t aRows = trans_a ? k : m, aCols = trans_a ? m : k;
  const int64_t bRows = trans_b ? n : k, bCols = trans_b ? k : n;
  for (int64_t i = 0; i < batch; ++i) {
    unpackBf16({pa + i * a_bs, aRows, aCols, a_rs, a_cs}, fa, true);
    unpackBf16({pb + i * b_bs, bRows, bCols, b_rs, b_cs}, fb, true);
    gemm<float>(trans_a, trans_b, m, n, k, uintptr_t(fa.data()), aCols, 1, 0,
                uintptr_t(fb.data()), bCols, 1, 0, alpha, beta,
                beta == 0.0f ? 0 : c + uintptr_t(i * c_bs * 4), c_rs, c_cs, 0,
                d + uintptr_t(i * d_bs * 4), d_rs, d_cs, 0, 1);
  }
}

} // extern "C"

std::string gptc::runtime::describeHostGemms() {
  const char *blasCore = openblas_get_corename();
  return std::string(avx512SgemmAvailable() ? "f32 gptc AVX-512, " : "") +
         (amxBf16Available()      ? "bf16 gptc AMX, "
          : avx512Bf16Available() ? "bf16 gptc AVX512_BF16, "
                                  : "") +
         (avx512SgemmAvailable() ? "f64 " : "") + "OpenBLAS " +
         (blasCore ? blasCore : "?") + " kernels | " +
         std::to_string(omp_get_max_threads()) + " threads";
}
