//===- CudaGemm.cpp - runtime/gptrt.h's GEMMs on cuBLASLt -----------------===//
//
// The layout mapping (CudaGemm.h) and the cache of cuBLASLt objects.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaGemm.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace gptc {
namespace runtime {
namespace cuda {
namespace {

/// The stored matrix (rows x cols, strides rs / cs), or its transpose when
/// `transposed`, as a column-major layout; false if it is not one.
bool asColumnMajor(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                   int64_t bs, bool transposed, ColumnMajorLayout &layout) {
  if (transposed) {
    std::swap(rows, cols);
    std::swap(rs, cs);
  }
  if (rows > 1 && rs != 1)
    return false;
  int64_t minLd = std::max<int64_t>(rows, 1);
  int64_t ld = cols > 1 ? cs : minLd;
  if (ld < minLd)
    return false;
  layout = {(uint64_t)rows, (uint64_t)cols, ld, bs};
  return true;
}

std::string notContiguous(const char *name, int64_t rows, int64_t cols,
                          int64_t rs, int64_t cs) {
  return std::string(name) + " (" + std::to_string(rows) + " x " +
         std::to_string(cols) + ", row stride " + std::to_string(rs) +
         ", column stride " + std::to_string(cs) +
         ") is neither row- nor column-contiguous";
}

/// An operand as a column-major layout of itself or of its transpose
/// (`transposed` says which); false and `error` if neither.
bool operandLayout(const char *name, int64_t rows, int64_t cols, int64_t rs,
                   int64_t cs, int64_t bs, ColumnMajorLayout &layout,
                   bool &transposed, std::string &error) {
  transposed = false;
  if (asColumnMajor(rows, cols, rs, cs, bs, false, layout))
    return true;
  transposed = true;
  if (asColumnMajor(rows, cols, rs, cs, bs, true, layout))
    return true;
  error = notContiguous(name, rows, cols, rs, cs);
  return false;
}

cublasOperation_t operation(bool transpose) {
  return transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

cudaDataType operandType(GemmType type) {
  return type == GemmType::F32 ? CUDA_R_32F : CUDA_R_16BF;
}

cudaDataType resultType(GemmType type) {
  return type == GemmType::Bf16 ? CUDA_R_16BF : CUDA_R_32F;
}

} // namespace

bool planGemm(const GemmProblem &p, GemmPlan &plan, std::string &error) {
  if (p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0 || p.batch > INT32_MAX) {
    error = "bad GEMM sizes m " + std::to_string(p.m) + ", n " +
            std::to_string(p.n) + ", k " + std::to_string(p.k) + ", batch " +
            std::to_string(p.batch);
    return false;
  }
  plan.type = p.type;
  plan.batch = (int32_t)p.batch;
  // D: column-major if it can be, else D^T column-major (swapped).
  bool dTransposed;
  if (!operandLayout("D", p.m, p.n, p.dRowStride, p.dColStride, p.dBatchStride,
                     plan.d, dTransposed, error))
    return false;
  plan.swapped = dTransposed;
  plan.c = plan.d;
  if (p.readsC && !asColumnMajor(p.m, p.n, p.cRowStride, p.cColStride,
                                 p.cBatchStride, plan.swapped, plan.c)) {
    error = notContiguous("C", p.m, p.n, p.cRowStride, p.cColStride) +
            " in D's storage order";
    return false;
  }
  ColumnMajorLayout a, b;
  bool aTransposed, bTransposed;
  if (!operandLayout("A", p.transA ? p.k : p.m, p.transA ? p.m : p.k,
                     p.aRowStride, p.aColStride, p.aBatchStride, a, aTransposed,
                     error) ||
      !operandLayout("B", p.transB ? p.n : p.k, p.transB ? p.k : p.n,
                     p.bRowStride, p.bColStride, p.bBatchStride, b, bTransposed,
                     error))
    return false;
  // A column-major view of X^T flips op(X); D^T = op(B)^T op(A)^T flips
  // both once more.
  bool aOp = p.transA != aTransposed, bOp = p.transB != bTransposed;
  if (!plan.swapped) {
    plan.first = a;
    plan.firstOp = operation(aOp);
    plan.second = b;
    plan.secondOp = operation(bOp);
  } else {
    plan.first = b;
    plan.firstOp = operation(!bOp);
    plan.second = a;
    plan.secondOp = operation(!aOp);
  }
  return true;
}

GemmPlans::Key GemmPlans::keyOf(const GemmPlan &plan,
                                const Alignments &alignments) {
  Key key{};
  size_t i = 0;
  key[i++] = (int64_t)plan.type;
  key[i++] = plan.firstOp;
  key[i++] = plan.secondOp;
  key[i++] = plan.batch;
  key[i++] = plan.c.ld; // C's other fields are D's
  key[i++] = plan.c.batchStride;
  for (const ColumnMajorLayout *l : {&plan.first, &plan.second, &plan.d}) {
    key[i++] = (int64_t)l->rows;
    key[i++] = (int64_t)l->cols;
    key[i++] = l->ld;
    key[i++] = l->batchStride;
  }
  for (uint32_t alignment : alignments)
    key[i++] = alignment;
  return key;
}

namespace {

/// The largest power of two (up to 256) dividing the address `ptr`.
uint32_t alignmentOf(const void *ptr) {
  uintptr_t address = reinterpret_cast<uintptr_t>(ptr) | 256;
  return (uint32_t)(address & -address);
}

/// "CALL: CUBLAS_STATUS_..." into `error` unless `status` is success.
bool checkStatus(const CublasLtApi &lt, cublasStatus_t status, const char *call,
                 std::string &error) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  error = std::string(call) + ": " + lt.statusName(status);
  return false;
}

bool createLayout(const CublasLtApi &lt, const ColumnMajorLayout &l,
                  cudaDataType type, int32_t batch,
                  cublasLtMatrixLayout_t &layout, std::string &error) {
  if (!checkStatus(
          lt,
          lt.cublasLtMatrixLayoutCreate(&layout, type, l.rows, l.cols, l.ld),
          "cublasLtMatrixLayoutCreate", error))
    return false;
  if (batch == 1)
    return true;
  return checkStatus(lt,
                     lt.cublasLtMatrixLayoutSetAttribute(
                         layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                         sizeof(batch)),
                     "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)", error) &&
         checkStatus(lt,
                     lt.cublasLtMatrixLayoutSetAttribute(
                         layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                         &l.batchStride, sizeof(l.batchStride)),
                     "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)",
                     error);
}

} // namespace

bool GemmPlans::create(const CublasLtApi &lt, cublasLtHandle_t handle,
                       const GemmPlan &plan, const Alignments &alignments,
                       size_t workspaceBytes, Matmul &matmul,
                       std::string &error) {
  // f32 compute and scale for both types: no TF32, bf16 accumulates in f32.
  if (!checkStatus(lt,
                   lt.cublasLtMatmulDescCreate(&matmul.desc, CUBLAS_COMPUTE_32F,
                                               CUDA_R_32F),
                   "cublasLtMatmulDescCreate", error))
    return false;
  int32_t firstOp = plan.firstOp, secondOp = plan.secondOp;
  if (!checkStatus(lt,
                   lt.cublasLtMatmulDescSetAttribute(
                       matmul.desc, CUBLASLT_MATMUL_DESC_TRANSA, &firstOp,
                       sizeof(firstOp)),
                   "cublasLtMatmulDescSetAttribute(TRANSA)", error) ||
      !checkStatus(lt,
                   lt.cublasLtMatmulDescSetAttribute(
                       matmul.desc, CUBLASLT_MATMUL_DESC_TRANSB, &secondOp,
                       sizeof(secondOp)),
                   "cublasLtMatmulDescSetAttribute(TRANSB)", error))
    return false;
  cudaDataType operands = operandType(plan.type),
               results = resultType(plan.type);
  if (!createLayout(lt, plan.first, operands, plan.batch, matmul.first,
                    error) ||
      !createLayout(lt, plan.second, operands, plan.batch, matmul.second,
                    error) ||
      !createLayout(lt, plan.c, results, plan.batch, matmul.c, error) ||
      !createLayout(lt, plan.d, results, plan.batch, matmul.d, error))
    return false;

  cublasLtMatmulPreference_t preference = nullptr;
  if (!checkStatus(lt, lt.cublasLtMatmulPreferenceCreate(&preference),
                   "cublasLtMatmulPreferenceCreate", error))
    return false;
  uint64_t maxWorkspace = workspaceBytes;
  bool found = checkStatus(
      lt,
      lt.cublasLtMatmulPreferenceSetAttribute(
          preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
          sizeof(maxWorkspace)),
      "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", error);
  const cublasLtMatmulPreferenceAttributes_t alignmentAttributes[] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (size_t i = 0; i < 4 && found; ++i)
    found = checkStatus(lt,
                        lt.cublasLtMatmulPreferenceSetAttribute(
                            preference, alignmentAttributes[i], &alignments[i],
                            sizeof(alignments[i])),
                        "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)",
                        error);
  cublasLtMatmulHeuristicResult_t result = {};
  int returned = 0;
  found = found && checkStatus(lt,
                               lt.cublasLtMatmulAlgoGetHeuristic(
                                   handle, matmul.desc, matmul.first,
                                   matmul.second, matmul.c, matmul.d,
                                   preference, 1, &result, &returned),
                               "cublasLtMatmulAlgoGetHeuristic", error);
  lt.cublasLtMatmulPreferenceDestroy(preference);
  if (!found)
    return false;
  if (returned < 1) {
    error = "cublasLtMatmulAlgoGetHeuristic: no algorithm";
    return false;
  }
  matmul.algo = result.algo;
  return true;
}

bool GemmPlans::run(const CublasLtApi &lt, cublasLtHandle_t handle,
                    const GemmPlan &plan, const void *first, const void *second,
                    float alpha, float beta, const void *c, void *d,
                    CUstream stream, CUdeviceptr workspace,
                    size_t workspaceBytes, std::string &error) {
  Alignments alignments = {alignmentOf(first), alignmentOf(second),
                           alignmentOf(c), alignmentOf(d)};
  Key key = keyOf(plan, alignments);
  auto found = matmuls.find(key);
  if (found == matmuls.end()) {
    Matmul matmul;
    if (!create(lt, handle, plan, alignments, workspaceBytes, matmul, error))
      return false; // the partly made objects are not reused (a leak)
    found = matmuls.emplace(key, matmul).first;
  }
  const Matmul &mm = found->second;
  return checkStatus(
      lt,
      lt.cublasLtMatmul(handle, mm.desc, &alpha, first, mm.first, second,
                        mm.second, &beta, c, mm.c, d, mm.d, &mm.algo,
                        reinterpret_cast<void *>(workspace), workspaceBytes,
                        reinterpret_cast<cudaStream_t>(stream)),
      "cublasLtMatmul", error);
}

} // namespace cuda
} // namespace runtime
} // namespace gptc
