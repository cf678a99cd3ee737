//===- DriverProcAddress.cpp - cuGetProcAddress over the emulated API -----===//
//
// Maps the driver API's base names ("cuMemAlloc") to this library's entry
// points (cuda.h's macros resolve `cuMemAlloc` to cuMemAlloc_v2 here, as a
// real driver returns the newest version for a current cudaVersion).
//
//===----------------------------------------------------------------------===//

#include "emu/gptc_emu.h"

#include <cstring>
#include <cuda.h>

namespace {
struct Entry {
  const char *name;
  void *fn;
};

#define E(name) {#name, reinterpret_cast<void *>(&name)}
const Entry kEntries[] = {E(cuInit),
                          E(cuDriverGetVersion),
                          E(cuDeviceGet),
                          E(cuDeviceGetCount),
                          E(cuDeviceGetName),
                          E(cuDeviceGetAttribute),
                          E(cuDeviceTotalMem),
                          E(cuDevicePrimaryCtxRetain),
                          E(cuDevicePrimaryCtxRelease),
                          E(cuCtxCreate),
                          E(cuCtxDestroy),
                          E(cuCtxSetCurrent),
                          E(cuCtxGetCurrent),
                          E(cuCtxPushCurrent),
                          E(cuCtxPopCurrent),
                          E(cuCtxGetDevice),
                          E(cuCtxSynchronize),
                          E(cuModuleLoad),
                          E(cuModuleLoadData),
                          E(cuModuleLoadDataEx),
                          E(cuModuleUnload),
                          E(cuModuleGetFunction),
                          E(cuModuleGetGlobal),
                          E(cuFuncGetAttribute),
                          E(cuFuncSetAttribute),
                          E(cuFuncSetCacheConfig),
                          E(cuLaunchKernel),
                          E(cuMemAlloc),
                          E(cuMemFree),
                          E(cuMemGetInfo),
                          E(cuMemAllocHost),
                          E(cuMemHostAlloc),
                          E(cuMemFreeHost),
                          E(cuMemHostGetDevicePointer),
                          E(cuMemcpy),
                          E(cuMemcpyAsync),
                          E(cuMemcpyHtoD),
                          E(cuMemcpyDtoH),
                          E(cuMemcpyDtoD),
                          E(cuMemcpyHtoDAsync),
                          E(cuMemcpyDtoHAsync),
                          E(cuMemcpyDtoDAsync),
                          E(cuMemsetD8),
                          E(cuMemsetD16),
                          E(cuMemsetD32),
                          E(cuMemsetD8Async),
                          E(cuMemsetD16Async),
                          E(cuMemsetD32Async),
                          E(cuStreamCreate),
                          E(cuStreamCreateWithPriority),
                          E(cuStreamDestroy),
                          E(cuStreamSynchronize),
                          E(cuStreamQuery),
                          E(cuStreamWaitEvent),
                          E(cuEventCreate),
                          E(cuEventDestroy),
                          E(cuEventRecord),
                          E(cuEventSynchronize),
                          E(cuEventQuery),
                          E(cuEventElapsedTime),
                          E(cuGetErrorName),
                          E(cuGetErrorString),
                          E(cuGetProcAddress),
                          E(cuStreamBeginCapture),
                          E(cuStreamEndCapture),
                          E(cuStreamIsCapturing),
                          E(cuGraphInstantiate),
                          E(cuGraphLaunch),
                          E(cuGraphExecDestroy),
                          E(cuGraphDestroy),
                          E(gptcEmuGetLaunchCounters)};
#undef E
} // namespace

extern "C" CUresult cuGetProcAddress(const char *symbol, void **pfn, int,
                                     cuuint64_t,
                                     CUdriverProcAddressQueryResult *status) {
  if (!symbol || !pfn)
    return CUDA_ERROR_INVALID_VALUE;
  for (const Entry &e : kEntries)
    if (std::strcmp(e.name, symbol) == 0) {
      *pfn = e.fn;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = nullptr;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
