//===- CublasLt.cpp - The emulated device's libcublasLt.so.13 -------------===//
//
// cublasLtMatmul on gptc's own CPU GEMMs (runtime/gptrt.h: gptc_gemm_f32
// and gptc_gemm_bf16), compiled against the toolkit's cublasLt.h:
//
//   D[b] = alpha op(A[b]) op(B[b]) + beta C[b] (+ bias, per row of D)
//
// with column- or row-major layouts, leading dimensions, batch counts and
// strided batch offsets, f32 compute and scale, f32 or bf16 matrices
// (bf16 A/B with f32 C/D too), and the default and bias epilogues. Device
// pointers are translated (and range-checked) by the emulated libcuda.so.1
// through gptcEmuTranslate. Descriptors live inside the opaque structs the
// header declares, so stack-allocated ones would work as well.
//
//===----------------------------------------------------------------------===//

#include "emu/gptc_emu.h"
#include "runtime/gptrt.h"

#include <cstring>
#include <cublasLt.h>
#include <new>
#include <vector>

namespace {

struct Layout {
  cudaDataType type;
  int32_t order;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch;
  int64_t batchStride;
};
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t));

struct MatmulDesc {
  cublasComputeType_t compute;
  cudaDataType scale;
  int32_t transA, transB;
  uint32_t epilogue;
  const void *bias;
  cudaDataType biasType;
  int64_t biasBatchStride;
  int32_t pointerMode;
};
static_assert(sizeof(MatmulDesc) <= sizeof(cublasLtMatmulDescOpaque_t));

Layout &layout(cublasLtMatrixLayout_t l) {
  return *reinterpret_cast<Layout *>(l);
}
MatmulDesc &desc(cublasLtMatmulDesc_t d) {
  return *reinterpret_cast<MatmulDesc *>(d);
}

template <class T> bool setField(T &field, const void *buf, size_t size) {
  if (!buf || size != sizeof(T))
    return false;
  std::memcpy(&field, buf, sizeof(T));
  return true;
}

size_t elemSize(cudaDataType t) {
  return t == CUDA_R_32F ? 4 : t == CUDA_R_16BF ? 2 : 0;
}

/// Row and column strides of a stored matrix.
void strides(const Layout &l, int64_t &rs, int64_t &cs) {
  rs = l.order == CUBLASLT_ORDER_ROW ? l.ld : 1;
  cs = l.order == CUBLASLT_ORDER_ROW ? 1 : l.ld;
}

/// Host address of a device matrix (all batches), or null when it is not
/// inside one device allocation.
uint8_t *hostMatrix(const void *dev, const Layout &l) {
  if (!dev)
    return nullptr;
  int64_t rs, cs;
  strides(l, rs, cs);
  uint64_t last = (l.rows - 1) * rs + (l.cols - 1) * cs +
                  (uint64_t)(l.batch - 1) * (uint64_t)l.batchStride;
  return static_cast<uint8_t *>(gptcEmuTranslate(
      reinterpret_cast<uint64_t>(dev), (last + 1) * elemSize(l.type)));
}

float bf16ToF32(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint16_t f32ToBf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffff) > 0x7f800000)
    return 0x7fff;
  return (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

/// A dense f32 copy of a matrix (all batches), row-major per batch.
std::vector<float> toF32(const uint8_t *p, const Layout &l) {
  int64_t rs, cs;
  strides(l, rs, cs);
  std::vector<float> out(l.rows * l.cols * l.batch);
  size_t i = 0;
  for (int32_t b = 0; b < l.batch; ++b)
    for (uint64_t r = 0; r < l.rows; ++r)
      for (uint64_t c = 0; c < l.cols; ++c, ++i) {
        int64_t e = b * l.batchStride + r * rs + c * cs;
        out[i] = l.type == CUDA_R_32F
                     ? reinterpret_cast<const float *>(p)[e]
                     : bf16ToF32(reinterpret_cast<const uint16_t *>(p)[e]);
      }
  return out;
}

} // namespace

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasLtHandle_t>(new char[16]);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete[] reinterpret_cast<char *>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

const char *cublasLtGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  default:
    return "CUBLAS_STATUS_UNKNOWN";
  }
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  return cublasLtGetStatusName(status);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l,
                                          cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  if (!l)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *opaque = new cublasLtMatrixLayoutOpaque_t();
  new (opaque) Layout{type, CUBLASLT_ORDER_COL, rows, cols, ld, 1, 0};
  *l = opaque;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                 cublasLtMatrixLayoutAttribute_t attr,
                                 const void *buf, size_t size) {
  if (!l)
    return CUBLAS_STATUS_INVALID_VALUE;
  Layout &x = layout(l);
  bool ok;
  switch (attr) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE:
    ok = setField(x.type, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_ORDER:
    ok = setField(x.order, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_ROWS:
    ok = setField(x.rows, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_COLS:
    ok = setField(x.cols, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_LD:
    ok = setField(x.ld, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    ok = setField(x.batch, buf, size);
    break;
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    ok = setField(x.batchStride, buf, size);
    break;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d,
                                        cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  if (!d)
    return CUBLAS_STATUS_INVALID_VALUE;
  if ((compute != CUBLAS_COMPUTE_32F &&
       compute != CUBLAS_COMPUTE_32F_FAST_TF32) ||
      scale != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  auto *opaque = new cublasLtMatmulDescOpaque_t();
  new (opaque) MatmulDesc{compute,
                          scale,
                          CUBLAS_OP_N,
                          CUBLAS_OP_N,
                          CUBLASLT_EPILOGUE_DEFAULT,
                          nullptr,
                          CUDA_R_32F,
                          0,
                          CUBLASLT_POINTER_MODE_HOST};
  *d = opaque;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                               cublasLtMatmulDescAttributes_t attr,
                               const void *buf, size_t size) {
  if (!d)
    return CUBLAS_STATUS_INVALID_VALUE;
  MatmulDesc &x = desc(d);
  bool ok;
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    ok = setField(x.transA, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_TRANSB:
    ok = setField(x.transB, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    ok = setField(x.epilogue, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    ok = setField(x.bias, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
    ok = setField(x.biasType, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
    ok = setField(x.biasBatchStride, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_POINTER_MODE:
    ok = setField(x.pointerMode, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
    ok = setField(x.scale, buf, size);
    break;
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
    ok = setField(x.compute, buf, size);
    break;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t
cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                               cublasLtMatmulDescAttributes_t attr, void *buf,
                               size_t size, size_t *written) {
  if (!d)
    return CUBLAS_STATUS_INVALID_VALUE;
  MatmulDesc &x = desc(d);
  const void *src;
  size_t n;
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    src = &x.transA;
    n = 4;
    break;
  case CUBLASLT_MATMUL_DESC_TRANSB:
    src = &x.transB;
    n = 4;
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    src = &x.epilogue;
    n = 4;
    break;
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
    src = &x.compute;
    n = 4;
    break;
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
    src = &x.scale;
    n = 4;
    break;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (written)
    *written = n;
  if (!buf || size < n)
    return size == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, src, n);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
  if (!p)
    return CUBLAS_STATUS_INVALID_VALUE;
  *p = new cublasLtMatmulPreferenceOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                     cublasLtMatmulPreferenceAttributes_t,
                                     const void *buf, size_t) {
  return p && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

/// One algorithm for every supported problem: the CPU GEMM.
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
    cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  if (!handle || !op || !a || !b || !c || !d || !returned || requested < 1 ||
      !results)
    return CUBLAS_STATUS_INVALID_VALUE;
  *returned = 0;
  if (!elemSize(layout(a).type) || !elemSize(layout(b).type) ||
      !elemSize(layout(c).type) || !elemSize(layout(d).type))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  std::memset(&results[0], 0, sizeof(results[0]));
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"

namespace {

/// cublasLtMatmul's work; with `validateOnly`, its checks alone.
cublasStatus_t matmulNow(bool validateOnly, cublasLtHandle_t handle,
                         cublasLtMatmulDesc_t op, const void *alpha,
                         const void *A, cublasLtMatrixLayout_t ad,
                         const void *B, cublasLtMatrixLayout_t bd,
                         const void *beta, const void *C,
                         cublasLtMatrixLayout_t cd, void *D,
                         cublasLtMatrixLayout_t dd) {
  if (!handle || !op || !alpha || !beta || !ad || !bd || !cd || !dd)
    return CUBLAS_STATUS_INVALID_VALUE;
  const MatmulDesc &x = desc(op);
  const Layout &la = layout(ad), &lb = layout(bd), &lc = layout(cd),
               &ld = layout(dd);
  if (x.pointerMode != CUBLASLT_POINTER_MODE_HOST ||
      (x.epilogue != CUBLASLT_EPILOGUE_DEFAULT &&
       x.epilogue != CUBLASLT_EPILOGUE_BIAS) ||
      la.type != lb.type || lc.type != ld.type || !elemSize(la.type) ||
      !elemSize(ld.type))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  bool ta = x.transA == CUBLAS_OP_T, tb = x.transB == CUBLAS_OP_T;
  uint64_t m = ta ? la.cols : la.rows, k = ta ? la.rows : la.cols;
  uint64_t kb = tb ? lb.cols : lb.rows, n = tb ? lb.rows : lb.cols;
  int32_t batch = ld.batch;
  if (k != kb || ld.rows != m || ld.cols != n || lc.rows != m || lc.cols != n ||
      la.batch != batch || lb.batch != batch || lc.batch != batch)
    return CUBLAS_STATUS_INVALID_VALUE;
  float al, be;
  std::memcpy(&al, alpha, 4);
  std::memcpy(&be, beta, 4);
  uint8_t *pa = hostMatrix(A, la), *pb = hostMatrix(B, lb);
  uint8_t *pd = hostMatrix(D, ld);
  uint8_t *pc = be != 0 ? hostMatrix(C, lc) : nullptr;
  if (!pa || !pb || !pd || (be != 0 && !pc))
    return CUBLAS_STATUS_INVALID_VALUE; // not device memory of this device
  int64_t ars, acs, brs, bcs, crs, ccs, drs, dcs;
  strides(la, ars, acs);
  strides(lb, brs, bcs);
  strides(lc, crs, ccs);
  strides(ld, drs, dcs);
  if (validateOnly)
    return CUBLAS_STATUS_SUCCESS;
  bool allBf16 = la.type == CUDA_R_16BF && ld.type == CUDA_R_16BF;
  bool plain = x.epilogue == CUBLASLT_EPILOGUE_DEFAULT;
  if (plain && la.type == CUDA_R_32F && ld.type == CUDA_R_32F) {
    gptc_gemm_f32(ta, tb, m, n, k, (uintptr_t)pa, ars, acs, la.batchStride,
                  (uintptr_t)pb, brs, bcs, lb.batchStride, al, be,
                  (uintptr_t)pc, crs, ccs, lc.batchStride, (uintptr_t)pd, drs,
                  dcs, ld.batchStride, batch);
    return CUBLAS_STATUS_SUCCESS;
  }
  if (plain && allBf16) {
    gptc_gemm_bf16(ta, tb, m, n, k, (uintptr_t)pa, ars, acs, la.batchStride,
                   (uintptr_t)pb, brs, bcs, lb.batchStride, al, be,
                   (uintptr_t)pc, crs, ccs, lc.batchStride, (uintptr_t)pd, drs,
                   dcs, ld.batchStride, batch);
    return CUBLAS_STATUS_SUCCESS;
  }
  // Mixed types or the bias epilogue: an f32 product of widened copies,
  // then C, the bias and one rounding into D.
  std::vector<float> fa = toF32(pa, la), fb = toF32(pb, lb);
  std::vector<float> fd(m * n * batch);
  gptc_gemm_f32(ta, tb, m, n, k, (uintptr_t)fa.data(), la.cols, 1,
                la.rows * la.cols, (uintptr_t)fb.data(), lb.cols, 1,
                lb.rows * lb.cols, al, 0.f, 0, n, 1, m * n,
                (uintptr_t)fd.data(), n, 1, m * n, batch);
  std::vector<float> fc = pc ? toF32(pc, lc) : std::vector<float>();
  const uint8_t *bias = nullptr;
  if (x.epilogue == CUBLASLT_EPILOGUE_BIAS) {
    Layout bl{x.biasType, CUBLASLT_ORDER_COL, m, 1, (int64_t)m,
              batch,      x.biasBatchStride};
    bias = hostMatrix(x.bias, bl);
    if (!bias || !elemSize(x.biasType))
      return CUBLAS_STATUS_INVALID_VALUE;
  }
  for (int32_t b = 0; b < batch; ++b)
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        size_t e = ((size_t)b * m + i) * n + j;
        float v = fd[e] + (pc ? be * fc[e] : 0.f);
        if (bias) {
          int64_t bi = b * x.biasBatchStride + i;
          v += x.biasType == CUDA_R_32F
                   ? reinterpret_cast<const float *>(bias)[bi]
                   : bf16ToF32(reinterpret_cast<const uint16_t *>(bias)[bi]);
        }
        int64_t de = b * ld.batchStride + i * drs + j * dcs;
        if (ld.type == CUDA_R_32F)
          reinterpret_cast<float *>(pd)[de] = v;
        else
          reinterpret_cast<uint16_t *>(pd)[de] = f32ToBf16(v);
      }
  return CUBLAS_STATUS_SUCCESS;
}

/// A matmul recorded in a graph capture: its arguments, the scalars copied
/// (the caller's alpha and beta need not outlive the call).
struct CapturedMatmul {
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t op;
  float alpha, beta;
  const void *A, *B, *C;
  void *D;
  cublasLtMatrixLayout_t ad, bd, cd, dd;
};

int runCaptured(void *context) {
  auto *c = static_cast<CapturedMatmul *>(context);
  return matmulNow(false, c->handle, c->op, &c->alpha, c->A, c->ad, c->B, c->bd,
                   &c->beta, c->C, c->cd, c->D, c->dd) == CUBLAS_STATUS_SUCCESS
             ? 0
             : 1;
}

void releaseCaptured(void *context) {
  delete static_cast<CapturedMatmul *>(context);
}

} // namespace

extern "C" {

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t op,
                              const void *alpha, const void *A,
                              cublasLtMatrixLayout_t ad, const void *B,
                              cublasLtMatrixLayout_t bd, const void *beta,
                              const void *C, cublasLtMatrixLayout_t cd, void *D,
                              cublasLtMatrixLayout_t dd,
                              const cublasLtMatmulAlgo_t *, void *, size_t,
                              cudaStream_t stream) {
  // Checked now; in a graph capture the work is recorded and runs at each
  // launch of the graph.
  cublasStatus_t checked =
      matmulNow(true, handle, op, alpha, A, ad, B, bd, beta, C, cd, D, dd);
  if (checked != CUBLAS_STATUS_SUCCESS)
    return checked;
  auto *captured =
      new CapturedMatmul{handle, op, 0.f, 0.f, A, B, C, D, ad, bd, cd, dd};
  std::memcpy(&captured->alpha, alpha, 4);
  std::memcpy(&captured->beta, beta, 4);
  if (gptcEmuStreamRecord(reinterpret_cast<CUstream_st *>(stream), runCaptured,
                          captured, releaseCaptured))
    return CUBLAS_STATUS_SUCCESS;
  delete captured;
  return matmulNow(false, handle, op, alpha, A, ad, B, bd, beta, C, cd, D, dd);
}

} // extern "C"
