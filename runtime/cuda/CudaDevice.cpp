//===- CudaDevice.cpp - The CUDA runtime of gptc --------------------------===//
//
// Device 0 of whichever libcuda.so.1 the loader finds, its primary
// context and the step's stream; synchronous copies; the sticky first
// error of the step's callbacks (StepCallbacks.cpp).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaDevice.h"
#include "runtime/comm/JobEnvironment.h"
#include "runtime/cuda/DeviceState.h"

#include <cstdlib>
#include <memory>

namespace gptc {
namespace runtime {
namespace cuda {
namespace {

/// cuBLASLt's workspace (what NVIDIA recommends for Hopper).
constexpr size_t kGemmWorkspaceBytes = 32u << 20;

CudaDevice *openedDevice = nullptr;

/// The device this process uses: its rank on the node (mpirun's local
/// rank) among the node's devices, device 0 without a launcher.
int deviceOrdinal(const DriverApi &cu) {
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1)
    return 0;
  return int(comm::localRank() % count);
}

/// Opens the process's device (deviceOrdinal); null and `error` on failure.
CudaDevice::State *openState(std::string &error) {
  auto s = std::make_unique<CudaDevice::State>();
  s->cu = DriverApi::load(error);
  if (!s->cu)
    return nullptr;
  s->lt = CublasLtApi::load(error);
  if (!s->lt)
    return nullptr;
  const DriverApi &cu = *s->cu;
  char name[256] = {};
  int major = 0, minor = 0;
  if (!s->check(cu.cuInit(0), "cuInit", error) ||
      !s->check(cu.cuDeviceGet(&s->device, deviceOrdinal(cu)), "cuDeviceGet",
                error) ||
      !s->check(cu.cuDeviceGetName(name, sizeof(name) - 1, s->device),
                "cuDeviceGetName", error) ||
      !s->check(
          cu.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s->device),
          "cuDeviceGetAttribute", error) ||
      !s->check(
          cu.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s->device),
          "cuDeviceGetAttribute", error) ||
      !s->check(cu.cuDevicePrimaryCtxRetain(&s->context, s->device),
                "cuDevicePrimaryCtxRetain", error) ||
      !s->check(cu.cuCtxSetCurrent(s->context), "cuCtxSetCurrent", error) ||
      !s->check(cu.cuStreamCreate(&s->stream, CU_STREAM_DEFAULT),
                "cuStreamCreate", error) ||
      !s->check(cu.cuMemAlloc(&s->gemmWorkspace, kGemmWorkspaceBytes),
                "cuMemAlloc", error, "cuBLASLt workspace"))
    return nullptr;
  s->gemmWorkspaceBytes = kGemmWorkspaceBytes;
  cublasStatus_t status = s->lt->cublasLtCreate(&s->cublasLt);
  if (status != CUBLAS_STATUS_SUCCESS) {
    error = "cublasLtCreate: " + s->lt->statusName(status);
    return nullptr;
  }
  s->description = std::string(name) + ", sm_" + std::to_string(major) +
                   std::to_string(minor);
  return s.release();
}

thread_local CUcontext boundContext = nullptr;

} // namespace

void CudaDevice::State::bindContext() {
  if (boundContext == context)
    return;
  if (cu->cuCtxSetCurrent(context) == CUDA_SUCCESS)
    boundContext = context;
}

bool CudaDevice::State::check(CUresult result, const char *call,
                              std::string &error,
                              const std::string &detail) const {
  if (result == CUDA_SUCCESS)
    return true;
  error = std::string(call) + ": " + cu->errorName(result);
  if (!detail.empty())
    error += " (" + detail + ")";
  return false;
}

bool CudaDevice::State::hasKeptError() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return !keptError.empty();
}

void CudaDevice::State::keepError(const std::string &message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (keptError.empty())
    keptError = message.empty() ? "unknown CUDA error" : message;
}

std::string CudaDevice::State::takeKeptError() {
  std::lock_guard<std::mutex> lock(errorMutex);
  std::string error;
  error.swap(keptError);
  return error;
}

CudaDevice *CudaDevice::open(std::string &error) {
  static std::mutex openMutex;
  static std::string firstError;
  std::lock_guard<std::mutex> lock(openMutex);
  if (!openedDevice && firstError.empty()) {
    if (State *s = openState(firstError))
      openedDevice = new CudaDevice(s);
  }
  if (!openedDevice)
    error = firstError;
  return openedDevice;
}

CudaDevice *CudaDevice::current() { return openedDevice; }

const std::string &CudaDevice::description() const {
  return deviceState->description;
}

uint64_t CudaDevice::allocate(uint64_t bytes, std::string &error) {
  State &s = state();
  s.bindContext();
  CUdeviceptr ptr = 0;
  if (!s.check(s.cu->cuMemAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc", error,
               std::to_string(bytes) + " bytes"))
    return 0;
  return ptr;
}

void CudaDevice::release(uint64_t ptr) {
  if (!ptr)
    return;
  State &s = state();
  s.bindContext();
  s.cu->cuMemFree(ptr);
}

bool CudaDevice::upload(uint64_t dst, const void *src, uint64_t bytes,
                        std::string &error) {
  State &s = state();
  s.bindContext();
  return s.check(s.cu->cuMemcpyHtoDAsync(dst, src, bytes, s.stream),
                 "cuMemcpyHtoDAsync", error);
}

bool CudaDevice::enqueueDownload(void *dst, uint64_t src, uint64_t bytes,
                                 std::string &error) {
  State &s = state();
  s.bindContext();
  return s.check(s.cu->cuMemcpyDtoHAsync(dst, src, bytes, s.stream),
                 "cuMemcpyDtoHAsync", error);
}

bool CudaDevice::download(void *dst, uint64_t src, uint64_t bytes,
                          std::string &error) {
  return enqueueDownload(dst, src, bytes, error) && synchronize(error);
}

bool CudaDevice::zero(uint64_t dst, uint64_t bytes, std::string &error) {
  State &s = state();
  s.bindContext();
  return s.check(s.cu->cuMemsetD8Async(dst, 0, bytes, s.stream),
                 "cuMemsetD8Async", error);
}

bool CudaDevice::synchronize(std::string &error) {
  State &s = state();
  error = s.takeKeptError();
  if (!error.empty())
    return false;
  s.bindContext();
  // Launches do not wait: a kernel that faulted is reported here, at the
  // first synchronisation after it, whichever kernel was launched last.
  return s.check(s.cu->cuStreamSynchronize(s.stream), "cuStreamSynchronize",
                 error,
                 s.lastKernel.empty()
                     ? ""
                     : "a kernel of the step failed; the last one launched "
                       "was " +
                           s.lastKernel +
                           "; CUDA_LAUNCH_BLOCKING=1 makes the failing "
                           "launch report itself");
}

void *CudaDevice::captureGraph(const std::function<void()> &enqueue,
                               std::string &error) {
  State &s = state();
  s.bindContext();
  if (!s.check(s.cu->cuStreamBeginCapture(s.stream,
                                          CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture", error))
    return nullptr;
  enqueue();
  CUgraph graph = nullptr;
  CUresult ended = s.cu->cuStreamEndCapture(s.stream, &graph);
  // A callback's error first: it says which call of the step failed.
  error = s.takeKeptError();
  if (error.empty())
    s.check(ended, "cuStreamEndCapture", error);
  CUgraphExec exec = nullptr;
  if (error.empty())
    s.check(s.cu->cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate",
            error);
  if (graph)
    s.cu->cuGraphDestroy(graph);
  return error.empty() ? exec : nullptr;
}

bool CudaDevice::launchGraph(void *graph, std::string &error,
                             float *milliseconds) {
  State &s = state();
  s.bindContext();
  if (!milliseconds)
    return s.check(
        s.cu->cuGraphLaunch(static_cast<CUgraphExec>(graph), s.stream),
        "cuGraphLaunch", error);
  CUevent start = nullptr, end = nullptr;
  bool ok =
      s.check(s.cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate",
              error) &&
      s.check(s.cu->cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate",
              error) &&
      s.check(s.cu->cuEventRecord(start, s.stream), "cuEventRecord", error) &&
      s.check(s.cu->cuGraphLaunch(static_cast<CUgraphExec>(graph), s.stream),
              "cuGraphLaunch", error) &&
      s.check(s.cu->cuEventRecord(end, s.stream), "cuEventRecord", error) &&
      s.check(s.cu->cuEventSynchronize(end), "cuEventSynchronize", error) &&
      s.check(s.cu->cuEventElapsedTime(milliseconds, start, end),
              "cuEventElapsedTime", error);
  if (start)
    s.cu->cuEventDestroy(start);
  if (end)
    s.cu->cuEventDestroy(end);
  return ok;
}

void CudaDevice::destroyGraph(void *graph) {
  if (!graph)
    return;
  State &s = state();
  s.bindContext();
  s.cu->cuGraphExecDestroy(static_cast<CUgraphExec>(graph));
}

std::string CudaDevice::takeError() { return state().takeKeptError(); }

} // namespace cuda
} // namespace runtime
} // namespace gptc
