//===- CublasLtTest.cpp - The emulated libcublasLt.so.13 ------------------===//
//
// cublasLtMatmul on device memory against a host f64 reference: f32 with
// transposes, row- and column-major layouts, leading dimensions, strided
// batches, alpha/beta and a separate C; bf16 in and out; bf16 in, f32 out
// with the bias epilogue; and the heuristic query.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cublasLt.h>

#include <cmath>
#include <random>

using namespace gptc::emu::test;

namespace {

/// A stored matrix batch: rows x cols per batch, order, ld, batch stride.
struct Mat {
  int rows, cols, ld, batch;
  bool rowMajor;
  int64_t stride;
  int64_t at(int b, int i, int j) const {
    return b * stride + (rowMajor ? (int64_t)i * ld + j : i + (int64_t)j * ld);
  }
  size_t size() const {
    return (size_t)(batch - 1) * stride + at(0, rows - 1, cols - 1) + 1;
  }
};

cublasLtMatrixLayout_t makeLayout(const Mat &m, cudaDataType t) {
  cublasLtMatrixLayout_t l;
  EXPECT_EQ(cublasLtMatrixLayoutCreate(&l, t, m.rows, m.cols, m.ld),
            CUBLAS_STATUS_SUCCESS);
  int32_t order = m.rowMajor ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER,
                                             &order, sizeof order),
            CUBLAS_STATUS_SUCCESS);
  int32_t batch = m.batch;
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(
                l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch),
            CUBLAS_STATUS_SUCCESS);
  int64_t stride = m.stride;
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(
                l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                sizeof stride),
            CUBLAS_STATUS_SUCCESS);
  return l;
}

uint16_t toBf16(float f) {
  uint32_t b = bitsOf(f);
  return (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}
float fromBf16(uint16_t h) { return floatOf((uint32_t)h << 16); }

/// Runs D = alpha op(A) op(B) + beta C (+ bias) and checks every element.
void checkMatmul(bool ta, bool tb, bool rowMajor, cudaDataType abType,
                 cudaDataType cdType, bool bias, float alpha, float beta) {
  initDevice();
  const int m = 37, n = 29, k = 45, batch = 3;
  Mat A{ta ? k : m, ta ? m : k, 0, batch, rowMajor, 0};
  Mat B{tb ? n : k, tb ? k : n, 0, batch, rowMajor, 0};
  Mat C{m, n, 0, batch, rowMajor, 0}, D = C;
  for (Mat *x : {&A, &B, &C, &D}) {
    x->ld = (rowMajor ? x->cols : x->rows) + 3;
    x->stride = (int64_t)x->ld * (rowMajor ? x->rows : x->cols) + 5;
  }
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto fill = [&](const Mat &x, cudaDataType t) {
    std::vector<float> v(x.size());
    for (float &f : v)
      f = t == CUDA_R_16BF ? fromBf16(toBf16(dist(rng))) : dist(rng);
    return v;
  };
  std::vector<float> a = fill(A, abType), b = fill(B, abType),
                     c = fill(C, cdType), bv(m * batch);
  for (float &f : bv)
    f = dist(rng);
  auto upload = [](const std::vector<float> &v, cudaDataType t) {
    CUdeviceptr p;
    EXPECT_EQ(cuMemAlloc(&p, v.size() * 4), CUDA_SUCCESS);
    if (t == CUDA_R_32F) {
      cuMemcpyHtoD(p, v.data(), v.size() * 4);
    } else {
      std::vector<uint16_t> h(v.size());
      for (size_t i = 0; i < v.size(); ++i)
        h[i] = toBf16(v[i]);
      cuMemcpyHtoD(p, h.data(), h.size() * 2);
    }
    return p;
  };
  CUdeviceptr da = upload(a, abType), db = upload(b, abType),
              dc = upload(c, cdType), dbias = upload(bv, CUDA_R_32F),
              dd = upload(std::vector<float>(D.size()), cdType);
  cublasLtHandle_t h;
  ASSERT_EQ(cublasLtCreate(&h), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulDesc_t op;
  ASSERT_EQ(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            CUBLAS_STATUS_SUCCESS);
  int32_t opA = ta ? CUBLAS_OP_T : CUBLAS_OP_N,
          opB = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opA, 4);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opB, 4);
  if (bias) {
    uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
    void *bp = reinterpret_cast<void *>(dbias);
    cudaDataType bt = CUDA_R_32F;
    int64_t bstride = m;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp,
                                   sizeof bp);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt,
                                   sizeof bt);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                   &bstride, sizeof bstride);
  }
  cublasLtMatrixLayout_t la = makeLayout(A, abType), lb = makeLayout(B, abType),
                         lc = makeLayout(C, cdType), ld = makeLayout(D, cdType);
  cublasLtMatmulPreference_t pref;
  ASSERT_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t result;
  int found = 0;
  ASSERT_EQ(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, ld, pref, 1,
                                           &result, &found),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(found, 1);
  ASSERT_EQ(cublasLtMatmul(h, op, &alpha, (void *)da, la, (void *)db, lb, &beta,
                           (void *)dc, lc, (void *)dd, ld, &result.algo,
                           nullptr, 0, nullptr),
            CUBLAS_STATUS_SUCCESS);
  std::vector<float> d(D.size());
  if (cdType == CUDA_R_32F) {
    cuMemcpyDtoH(d.data(), dd, d.size() * 4);
  } else {
    std::vector<uint16_t> hd(d.size());
    cuMemcpyDtoH(hd.data(), dd, hd.size() * 2);
    for (size_t i = 0; i < d.size(); ++i)
      d[i] = fromBf16(hd[i]);
  }
  for (int bi = 0; bi < batch; ++bi)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int p = 0; p < k; ++p)
          acc += (double)a[ta ? A.at(bi, p, i) : A.at(bi, i, p)] *
                 b[tb ? B.at(bi, j, p) : B.at(bi, p, j)];
        double want = alpha * acc + beta * c[C.at(bi, i, j)] +
                      (bias ? bv[bi * m + i] : 0);
        double tol = cdType == CUDA_R_16BF ? 1e-2 * (1 + std::fabs(want))
                                           : 1e-5 * (1 + std::fabs(want));
        ASSERT_NEAR(d[D.at(bi, i, j)], want, tol)
            << "batch " << bi << " (" << i << ", " << j << ")";
      }
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(h);
  for (CUdeviceptr p : {da, db, dc, dbias, dd})
    cuMemFree(p);
}

TEST(EmuCublasLt, F32ColumnMajor) {
  checkMatmul(false, false, false, CUDA_R_32F, CUDA_R_32F, false, 1.f, 0.f);
}
TEST(EmuCublasLt, F32TransposedAlphaBeta) {
  checkMatmul(true, true, false, CUDA_R_32F, CUDA_R_32F, false, 0.5f, -2.f);
}
TEST(EmuCublasLt, F32RowMajorTransposeB) {
  checkMatmul(false, true, true, CUDA_R_32F, CUDA_R_32F, false, 1.5f, 1.f);
}
TEST(EmuCublasLt, Bf16InAndOut) {
  checkMatmul(true, false, false, CUDA_R_16BF, CUDA_R_16BF, false, 1.f, 1.f);
}
TEST(EmuCublasLt, Bf16InF32OutWithBias) {
  checkMatmul(false, true, true, CUDA_R_16BF, CUDA_R_32F, true, 1.f, 0.5f);
}

TEST(EmuCublasLt, HostPointersAreRejected) {
  initDevice();
  cublasLtHandle_t h;
  ASSERT_EQ(cublasLtCreate(&h), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t l;
  cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4);
  std::vector<float> host(16, 1.f);
  float one = 1, zero = 0;
  EXPECT_EQ(cublasLtMatmul(h, op, &one, host.data(), l, host.data(), l, &zero,
                           nullptr, l, host.data(), l, nullptr, nullptr, 0,
                           nullptr),
            CUBLAS_STATUS_INVALID_VALUE);
  cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(h);
}

} // namespace
