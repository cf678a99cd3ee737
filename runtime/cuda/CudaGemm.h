//===- CudaGemm.h - runtime/gptrt.h's GEMMs on cuBLASLt ---------*- C++ -*-===//
//
// The GEMM contract of runtime/gptrt.h (row, column and batch strides in
// elements, op(A) and op(B), alpha, beta, a separate C or C == D) mapped
// onto cuBLASLt's column-major layouts. Every matrix must be row- or
// column-contiguous. If D is column-contiguous, cuBLASLt computes
//   D = op(A) op(B) + beta C
// on column-major views of A and B (a row-contiguous operand is the
// column-major view of its transpose, with the opposite op); otherwise
// it computes the transpose,
//   D^T = op(B)^T op(A)^T + beta C^T,
// with D^T and C^T column-major. C must then have D's storage order.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_CUDAGEMM_H
#define GPTC_RUNTIME_CUDA_CUDAGEMM_H

#include "runtime/cuda/DriverLoader.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace gptc {
namespace runtime {
namespace cuda {

/// Element types: A and B, then C and D (Bf16F32: bf16 operands, f32
/// result).
enum class GemmType { F32, Bf16, Bf16F32 };

/// One call of gptc_cuda_gemm_f32 / _bf16 without its pointers and scalars.
struct GemmProblem {
  GemmType type;
  bool transA, transB;
  int64_t m, n, k;
  int64_t aRowStride, aColStride, aBatchStride;
  int64_t bRowStride, bColStride, bBatchStride;
  int64_t cRowStride, cColStride, cBatchStride;
  int64_t dRowStride, dColStride, dBatchStride;
  bool readsC; // beta != 0
  int64_t batch;
};

/// A matrix as a cuBLASLt column-major layout.
struct ColumnMajorLayout {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0, batchStride = 0;
};

/// The problem in cuBLASLt's terms: Dcm = op(first) op(second) + beta Ccm.
struct GemmPlan {
  GemmType type;
  /// first = B, second = A, Dcm = D^T; otherwise first = A, second = B.
  bool swapped;
  cublasOperation_t firstOp, secondOp;
  ColumnMajorLayout first, second, c, d;
  int32_t batch;
};

/// Maps `problem` onto column-major layouts; false and `error` (naming the
/// matrix and its strides) if a matrix is neither row- nor
/// column-contiguous.
bool planGemm(const GemmProblem &problem, GemmPlan &plan, std::string &error);

/// cuBLASLt's descriptors, layouts and algorithm per plan, made on first use.
class GemmPlans {
public:
  /// Enqueues Dcm = alpha op(first) op(second) + beta Ccm on `stream`
  /// (device pointers); false and "cublasLt...: CUBLAS_STATUS_..." on
  /// failure.
  bool run(const CublasLtApi &lt, cublasLtHandle_t handle, const GemmPlan &plan,
           const void *first, const void *second, float alpha, float beta,
           const void *c, void *d, CUstream stream, CUdeviceptr workspace,
           size_t workspaceBytes, std::string &error);

private:
  struct Matmul {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t first = nullptr, second = nullptr, c = nullptr,
                           d = nullptr;
    cublasLtMatmulAlgo_t algo;
  };
  /// The plan and the alignments of the four pointers: cuBLASLt's
  /// heuristic assumes 256-byte aligned matrices unless told otherwise.
  using Key = std::array<int64_t, 22>;
  using Alignments = std::array<uint32_t, 4>;
  static Key keyOf(const GemmPlan &plan, const Alignments &alignments);
  bool create(const CublasLtApi &lt, cublasLtHandle_t handle,
              const GemmPlan &plan, const Alignments &alignments,
              size_t workspaceBytes, Matmul &matmul, std::string &error);

  std::map<Key, Matmul> matmuls;
};

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_CUDAGEMM_H
