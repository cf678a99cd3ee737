//===- DeviceState.h - What CudaDevice keeps of the driver ------*- C++ -*-===//
//
// The driver handles of the open device (device 0, its primary context,
// the step's stream, the cuBLASLt handle), the kernels' names for error
// messages, the GEMM plans and the sticky first error of the callbacks.
// Internal to runtime/cuda.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_DEVICESTATE_H
#define GPTC_RUNTIME_CUDA_DEVICESTATE_H

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaGemm.h"
#include "runtime/cuda/DriverLoader.h"

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gptc {
namespace runtime {
namespace cuda {

struct CudaDevice::State {
  const DriverApi *cu = nullptr;
  const CublasLtApi *lt = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  cublasLtHandle_t cublasLt = nullptr;
  std::string description;
  CUdeviceptr gemmWorkspace = 0;
  size_t gemmWorkspaceBytes = 0;

  /// Kernel names by handle (mgpuModuleGetFunction), and the last launched.
  std::unordered_map<CUfunction, std::string> kernelNames;
  std::string lastKernel;
  GemmPlans gemmPlans;

  /// GPTC_DEBUG_BUFFERS=1: the arena's buffer units [unitBegin, unitEnd)
  /// (sorted), each in an allocation of its own at unitPtr, the rest of
  /// the arena at arenaBase (gptc_cuda_buffer_shift). Empty otherwise.
  std::vector<int64_t> unitBegin, unitEnd;
  std::vector<CUdeviceptr> unitPtr;
  CUdeviceptr arenaBase = 0;

  /// Makes the device's context current on the calling thread.
  void bindContext();
  /// True if `result` is CUDA_SUCCESS; otherwise false and
  /// `error` = "CALL: CUDA_ERROR_..." (+ `detail` in parentheses).
  bool check(CUresult result, const char *call, std::string &error,
             const std::string &detail = "") const;

  /// The sticky first error of the callbacks.
  bool hasKeptError();
  /// Keeps `message` unless an error is kept already.
  void keepError(const std::string &message);
  std::string takeKeptError();

private:
  std::mutex errorMutex;
  std::string keptError;
};

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_DEVICESTATE_H
