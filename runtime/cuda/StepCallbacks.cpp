//===- StepCallbacks.cpp - What a CUDA step.so calls back -----------------===//
//
// MLIR's GPU runtime calls, gptc_cuda_alloc / _free and gptc_cuda_gemm_* on
// CudaDevice::current(). They return nothing the step could check: the
// first failure is kept (CudaDevice::takeError) and every later call does
// nothing until it is taken, except gptc_cuda_free, which still frees.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/StepCallbacks.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/DeviceState.h"

#include <algorithm>
#include <cstdio>

using gptc::runtime::cuda::CudaDevice;
using gptc::runtime::cuda::GemmPlan;
using gptc::runtime::cuda::GemmProblem;
using gptc::runtime::cuda::GemmType;

namespace {

/// Kernels may use 48 KB of dynamic shared memory without opting in.
constexpr int32_t kDefaultSharedBytes = 48 << 10;

/// The open device's state with its context current, or null when no
/// device is open or an error is kept.
CudaDevice::State *activeState(const char *call) {
  CudaDevice *device = CudaDevice::current();
  if (!device) {
    std::fprintf(stderr, "gptc: %s called without an open CUDA device\n", call);
    return nullptr;
  }
  CudaDevice::State &s = device->state();
  if (s.hasKeptError())
    return nullptr;
  s.bindContext();
  return &s;
}

/// Keeps "CALL: CUDA_ERROR_..." (+ detail) unless `result` is success.
bool checkOrKeep(CudaDevice::State &s, CUresult result, const char *call,
                 const std::string &detail = "") {
  std::string error;
  if (s.check(result, call, error, detail))
    return true;
  s.keepError(error);
  return false;
}

std::string kernelName(CudaDevice::State &s, CUfunction function) {
  auto found = s.kernelNames.find(function);
  return found == s.kernelNames.end() ? std::string("<unknown kernel>")
                                      : found->second;
}

/// Lets `function` use `sharedBytes` of dynamic shared memory, as MLIR's
/// wrapper does for more than 48 KB.
bool allowSharedMemory(CudaDevice::State &s, CUfunction function,
                       int32_t sharedBytes, const std::string &kernel) {
  if (sharedBytes <= kDefaultSharedBytes)
    return true;
  int maxBytes = 0;
  if (!checkOrKeep(s,
                   s.cu->cuDeviceGetAttribute(
                       &maxBytes,
                       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       s.device),
                   "cuDeviceGetAttribute", "kernel " + kernel))
    return false;
  if (maxBytes < sharedBytes) {
    s.keepError("cuLaunchKernel: kernel " + kernel + " requests " +
                std::to_string(sharedBytes) +
                " bytes of shared memory; the device has " +
                std::to_string(maxBytes));
    return false;
  }
  return checkOrKeep(
      s,
      s.cu->cuFuncSetAttribute(function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               sharedBytes),
      "cuFuncSetAttribute", "kernel " + kernel);
}

void gemm(const char *call, GemmType type, GPTC_GEMM_ARGS(float)) {
  CudaDevice::State *s = activeState(call);
  if (!s)
    return;
  GemmProblem problem = {
      type, trans_a != 0, trans_b != 0, m,    n,    k,    a_rs, a_cs,
      a_bs, b_rs,         b_cs,         b_bs, c_rs, c_cs, c_bs, d_rs,
      d_cs, d_bs,         beta != 0.0f, batch};
  bool empty = m == 0 || n == 0 || batch == 0;
  if (empty && m >= 0 && n >= 0 && k >= 0 && batch >= 0)
    return; // nothing to write, whatever the strides
  GemmPlan plan;
  std::string error;
  if (!planGemm(problem, plan, error)) {
    s->keepError(std::string(call) + ": " + error);
    return;
  }
  const void *first = reinterpret_cast<const void *>(plan.swapped ? b : a);
  const void *second = reinterpret_cast<const void *>(plan.swapped ? a : b);
  const void *cPtr = reinterpret_cast<const void *>(problem.readsC ? c : d);
  if (!s->gemmPlans.run(*s->lt, s->cublasLt, plan, first, second, alpha, beta,
                        cPtr, reinterpret_cast<void *>(d), s->stream,
                        s->gemmWorkspace, s->gemmWorkspaceBytes, error))
    s->keepError(std::string(call) + ": " + error);
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t) {
  CudaDevice::State *s = activeState("mgpuModuleLoad");
  if (!s)
    return nullptr;
  CUmodule module = nullptr;
  checkOrKeep(*s, s->cu->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int, size_t size) {
  return mgpuModuleLoad(data, size);
}

void mgpuModuleUnload(void *module) {
  CudaDevice::State *s = activeState("mgpuModuleUnload");
  if (s && module)
    checkOrKeep(*s, s->cu->cuModuleUnload(static_cast<CUmodule>(module)),
                "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CudaDevice::State *s = activeState("mgpuModuleGetFunction");
  if (!s)
    return nullptr;
  CUfunction function = nullptr;
  if (!checkOrKeep(*s,
                   s->cu->cuModuleGetFunction(
                       &function, static_cast<CUmodule>(module), name),
                   "cuModuleGetFunction", std::string("kernel ") + name))
    return nullptr;
  s->kernelNames[function] = name;
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *,
                      void **params, void **extra, size_t) {
  CudaDevice::State *s = activeState("mgpuLaunchKernel");
  if (!s)
    return;
  CUfunction f = static_cast<CUfunction>(function);
  std::string kernel = kernelName(*s, f);
  s->lastKernel = kernel;
  if (!allowSharedMemory(*s, f, sharedBytes, kernel))
    return;
  CUresult result =
      s->cu->cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                            sharedBytes, s->stream, params, extra);
  if (result == CUDA_SUCCESS)
    return;
  checkOrKeep(*s, result, "cuLaunchKernel",
              "kernel " + kernel + ", grid " + std::to_string(gridX) + "x" +
                  std::to_string(gridY) + "x" + std::to_string(gridZ) +
                  ", block " + std::to_string(blockX) + "x" +
                  std::to_string(blockY) + "x" + std::to_string(blockZ));
  // The error is kept; a driver that also reports it at the next
  // synchronisation (as the emulated one does) reports it here.
  s->cu->cuCtxSynchronize();
}

void *mgpuStreamCreate() {
  CudaDevice *device = CudaDevice::current();
  return device ? device->state().stream : nullptr;
}

void mgpuStreamDestroy(void *) {} // the device's stream lives on

void mgpuStreamSynchronize(void *) {
  CudaDevice::State *s = activeState("mgpuStreamSynchronize");
  if (!s)
    return;
  checkOrKeep(*s, s->cu->cuStreamSynchronize(s->stream), "cuStreamSynchronize",
              s->lastKernel.empty() ? ""
                                    : "after kernel " + s->lastKernel +
                                          ", the last one launched");
}

int64_t gptc_cuda_buffer_shift(int64_t offset) {
  CudaDevice *device = CudaDevice::current();
  if (!device)
    return offset;
  const CudaDevice::State &s = device->state();
  auto it = std::upper_bound(s.unitBegin.begin(), s.unitBegin.end(), offset);
  if (it == s.unitBegin.begin())
    return offset;
  size_t i = size_t(it - s.unitBegin.begin()) - 1;
  if (offset >= s.unitEnd[i])
    return offset;
  return int64_t(s.unitPtr[i] + uint64_t(offset - s.unitBegin[i]) -
                 s.arenaBase);
}

void *gptc_cuda_alloc(size_t bytes) {
  CudaDevice::State *s = activeState("gptc_cuda_alloc");
  if (!s)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (!checkOrKeep(*s, s->cu->cuMemAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc",
                   std::to_string(bytes) + " bytes"))
    return nullptr;
  return reinterpret_cast<void *>(ptr);
}

void gptc_cuda_free(void *ptr) {
  CudaDevice *device = CudaDevice::current();
  if (!device || !ptr)
    return;
  CudaDevice::State &s = device->state();
  s.bindContext();
  CUresult result = s.cu->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  if (!s.hasKeptError())
    checkOrKeep(s, result, "cuMemFree");
}

void gptc_cuda_gemm_f32(GPTC_GEMM_ARGS(float)) {
  gemm("gptc_cuda_gemm_f32", GemmType::F32, trans_a, trans_b, m, n, k, a, a_rs,
       a_cs, a_bs, b, b_rs, b_cs, b_bs, alpha, beta, c, c_rs, c_cs, c_bs, d,
       d_rs, d_cs, d_bs, batch);
}

void gptc_cuda_gemm_bf16(GPTC_GEMM_ARGS(float)) {
  gemm("gptc_cuda_gemm_bf16", GemmType::Bf16, trans_a, trans_b, m, n, k, a,
       a_rs, a_cs, a_bs, b, b_rs, b_cs, b_bs, alpha, beta, c, c_rs, c_cs, c_bs,
       d, d_rs, d_cs, d_bs, batch);
}

void gptc_cuda_gemm_bf16_f32(GPTC_GEMM_ARGS(float)) {
  gemm("gptc_cuda_gemm_bf16_f32", GemmType::Bf16F32, trans_a, trans_b, m, n, k,
       a, a_rs, a_cs, a_bs, b, b_rs, b_cs, b_bs, alpha, beta, c, c_rs, c_cs,
       c_bs, d, d_rs, d_cs, d_bs, batch);
}

} // extern "C"
