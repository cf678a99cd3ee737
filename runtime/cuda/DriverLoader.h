//===- DriverLoader.h - The driver and cuBLASLt, by dlopen ------*- C++ -*-===//
//
// The driver API and cuBLASLt functions the CUDA runtime calls, looked up
// with dlsym in whichever libcuda.so.1 / libcublasLt.so.13 the dynamic
// loader finds. The toolkit's headers give only the types: every function
// pointer is decltype(&cuXxx), and its symbol is the name cuda.h's macros
// map cuXxx to (cuMemAlloc is exported as cuMemAlloc_v2). Nothing links
// against the toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_DRIVERLOADER_H
#define GPTC_RUNTIME_CUDA_DRIVERLOADER_H

#include <cublasLt.h>
#include <cuda.h>
#include <string>

namespace gptc {
namespace runtime {
namespace cuda {

// X(function): every driver function the runtime uses.
#define GPTC_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8)                                                                \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuStreamCreate)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)

// X(function): every cuBLASLt function the runtime uses.
#define GPTC_CUBLASLT_FUNCTIONS(X)                                             \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

#define GPTC_CUDA_FUNCTION_POINTER(function)                                   \
  decltype(&::function) function = nullptr;

/// The driver API of libcuda.so.1.
struct DriverApi {
  GPTC_CUDA_DRIVER_FUNCTIONS(GPTC_CUDA_FUNCTION_POINTER)

  /// Opens libcuda.so.1 once per process; null and one line on failure
  /// (the library not found, or a function it lacks).
  static const DriverApi *load(std::string &error);
  /// "CUDA_ERROR_INVALID_VALUE" (cuGetErrorName, or the number).
  std::string errorName(CUresult result) const;
};

/// cuBLASLt, from libcublasLt.so.13.
struct CublasLtApi {
  GPTC_CUBLASLT_FUNCTIONS(GPTC_CUDA_FUNCTION_POINTER)

  /// Opens libcublasLt.so.13 once per process; null and one line on
  /// failure.
  static const CublasLtApi *load(std::string &error);
  /// "CUBLAS_STATUS_NOT_SUPPORTED" (cublasLtGetStatusName, or the number).
  std::string statusName(cublasStatus_t status) const;
};

#undef GPTC_CUDA_FUNCTION_POINTER

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_DRIVERLOADER_H
