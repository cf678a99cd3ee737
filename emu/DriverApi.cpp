//===- DriverApi.cpp - Device, context, module and launch entry points ----===//
//
// The CUDA driver API of the emulated device, compiled against the
// toolkit's cuda.h so every entry point has the header's name (its macros
// map cuCtxCreate to cuCtxCreate_v4 and so on), signature and CUresult
// codes. One sm_90 device with H100 SXM attributes.
//
//===----------------------------------------------------------------------===//

#include "emu/DeviceMemory.h"
#include "emu/DriverState.h"
#include "emu/ExecOps.h"
#include "emu/Executor.h"
#include "emu/Fatbin.h"
#include "emu/PtxParser.h"
#include "emu/gptc_emu.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

using namespace gptc::emu;

namespace {
/// The device's architecture: sm_90 (compute capability 9.0).
constexpr unsigned kDeviceArch = 90;
bool initialized = false;
CUctx_st primaryCtx{0, true, 0};
thread_local CUctx_st *current = nullptr;
std::mutex launchMutex;
CUresult deferredError = CUDA_SUCCESS;
gptcEmuLaunchCounters lastCounters{};

double perRequest(uint64_t n, uint64_t requests) {
  return requests ? (double)n / (double)requests : 0.0;
}

bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}
} // namespace

namespace gptc::emu {
bool driverInitialized() { return initialized; }
CUresult takeDeferredError() {
  std::lock_guard<std::mutex> lock(launchMutex);
  CUresult e = deferredError;
  deferredError = CUDA_SUCCESS;
  return e;
}
void traceCall(const char *call, uint64_t bytes, const char *what) {
  static std::mutex traceMutex;
  static std::FILE *trace = [] {
    const char *path = std::getenv("GPTC_EMU_TRACE");
    return path && *path ? std::fopen(path, "a") : nullptr;
  }();
  if (!trace)
    return;
  std::lock_guard<std::mutex> lock(traceMutex);
  std::fprintf(trace, "%s %llu%s%s\n", call, (unsigned long long)bytes,
               what ? " " : "", what ? what : "");
  std::fflush(trace);
}
uint64_t hostNs() {
  return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace gptc::emu

#define REQUIRE_INIT()                                                         \
  if (!initialized)                                                            \
    return CUDA_ERROR_NOT_INITIALIZED;

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::string error;
  if (!gptc::emu::checkEnvironment(error)) {
    std::fprintf(stderr, "gptc emulated device: error: %s\n", error.c_str());
    return CUDA_ERROR_INVALID_VALUE;
  }
  initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  REQUIRE_INIT();
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  REQUIRE_INIT();
  if (!dev)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *dev = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  REQUIRE_INIT();
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, (size_t)len, "%s", "gptc emulated H100 SXM (sm_90)");
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  REQUIRE_INIT();
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = DeviceMemory::kTotalBytes;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                              CUdevice dev) {
  REQUIRE_INIT();
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    *pi = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *pi = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *pi = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *pi = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    *pi = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *pi = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *pi = 48 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *pi = 227 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *pi = 228 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
    *pi = 64 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *pi = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
    *pi = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    *pi = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    *pi = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    *pi = 1980000;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    *pi = 2619000;
    break;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    *pi = 5120;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *pi = 50 * 1024 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *pi = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    *pi = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
    *pi = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *pi = kDeviceArch / 10;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *pi = kDeviceArch % 10;
    break;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
    *pi = 512;
    break;
  case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
    *pi = 3;
    break;
  case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
  case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
  case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    *pi = 1;
    break;
  default:
    *pi = 0;
    break;
  }
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  REQUIRE_INIT();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  ++primaryCtx.refs;
  *pctx = &primaryCtx;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  REQUIRE_INIT();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (primaryCtx.refs > 0)
    --primaryCtx.refs;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext *pctx, CUctxCreateParams *, unsigned int,
                     CUdevice dev) {
  REQUIRE_INIT();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *pctx = new CUctx_st{0, false, 1};
  current = *pctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx) {
  REQUIRE_INIT();
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (current == ctx)
    current = nullptr;
  if (!ctx->primary)
    delete ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  REQUIRE_INIT();
  current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  REQUIRE_INIT();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = current;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxSetCurrent(ctx); }

CUresult cuCtxPopCurrent(CUcontext *pctx) {
  REQUIRE_INIT();
  if (pctx)
    *pctx = current;
  current = nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *dev) {
  REQUIRE_INIT();
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *dev = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  REQUIRE_INIT();
  traceCall("cuCtxSynchronize");
  if (anyStreamCapturing())
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  return takeDeferredError();
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  REQUIRE_INIT();
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  auto mod = std::make_unique<CUmod_st>();
  std::string error;
  std::vector<uint64_t> vars;
  VarAllocator alloc = [&](uint64_t bytes) {
    uint64_t a = DeviceMemory::get().allocate(bytes);
    vars.push_back(a);
    return a;
  };
  const char *text = static_cast<const char *>(image);
  // A fatbinary: its PTX for this device, as a real driver without a
  // matching cubin would JIT-compile it.
  std::string fatbinPtx;
  if (isFatbin(image)) {
    if (!ptxOfFatbin(image, kDeviceArch, fatbinPtx, error)) {
      std::fprintf(stderr, "gptc-emu: cuModuleLoadData: %s\n", error.c_str());
      return error.find("not implemented") != std::string::npos
                 ? CUDA_ERROR_NOT_SUPPORTED
                 : CUDA_ERROR_INVALID_IMAGE;
    }
    text = fatbinPtx.c_str();
  }
  if (std::strncmp(text, "\177ELF", 4) == 0) {
    std::fprintf(stderr, "gptc-emu: cuModuleLoadData: a cubin/ELF image; "
                         "the emulator runs PTX text only\n");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  if (!parsePtx(text, mod->module, alloc, error)) {
    std::fprintf(stderr, "gptc-emu: cuModuleLoadData: %s\n", error.c_str());
    for (uint64_t a : vars)
      DeviceMemory::get().release(a);
    return error.find("not implemented") != std::string::npos
               ? CUDA_ERROR_NOT_SUPPORTED
               : CUDA_ERROR_INVALID_PTX;
  }
  for (const Variable &v : mod->module.vars)
    if ((v.space == Space::Global || v.space == Space::Const) && v.address) {
      uint8_t *p = DeviceMemory::get().translate(v.address, v.size);
      if (p && !v.init.empty())
        std::memcpy(p, v.init.data(), v.init.size());
      else if (p)
        std::memset(p, 0, v.size);
    }
  *module = mod.release();
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int,
                            CUjit_option *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  REQUIRE_INIT();
  std::ifstream in(fname ? fname : "", std::ios::binary);
  if (!in)
    return CUDA_ERROR_FILE_NOT_FOUND;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  return cuModuleLoadData(module, text.c_str());
}

CUresult cuModuleUnload(CUmodule module) {
  REQUIRE_INIT();
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  for (const Variable &v : module->module.vars)
    if ((v.space == Space::Global || v.space == Space::Const) && v.address)
      DeviceMemory::get().release(v.address);
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule module,
                             const char *name) {
  REQUIRE_INIT();
  if (!hfunc || !module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  auto it = module->module.funcIndex.find(name);
  if (it == module->module.funcIndex.end() ||
      !module->module.funcs[it->second].isEntry)
    return CUDA_ERROR_NOT_FOUND;
  auto &slot = module->functions[name];
  if (!slot) {
    slot = std::make_unique<CUfunc_st>();
    slot->owner = module;
    slot->index = it->second;
  }
  *hfunc = slot.get();
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                           const char *name) {
  REQUIRE_INIT();
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  auto it = module->module.varIndex.find(name);
  if (it == module->module.varIndex.end())
    return CUDA_ERROR_NOT_FOUND;
  const Variable &v = module->module.vars[it->second];
  if (v.space != Space::Global && v.space != Space::Const)
    return CUDA_ERROR_NOT_FOUND;
  if (dptr)
    *dptr = v.address;
  if (bytes)
    *bytes = v.size;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                            CUfunction hfunc) {
  REQUIRE_INIT();
  if (!pi || !hfunc)
    return CUDA_ERROR_INVALID_VALUE;
  const Module &m = hfunc->owner->module;
  const Function &f = m.funcs[hfunc->index];
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = f.maxThreads();
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *pi = (int)m.staticShared;
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *pi = (int)m.localBytes;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *pi = (int)std::min<uint32_t>(m.numRegs, 255);
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *pi = 90;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = hfunc->maxDynShared;
    break;
  default:
    *pi = 0;
    break;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                            int value) {
  REQUIRE_INIT();
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    uint64_t total = hfunc->owner->module.staticShared + (uint64_t)value;
    if (value < 0 || total > 227 * 1024)
      return CUDA_ERROR_INVALID_VALUE;
    hfunc->maxDynShared = value;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache) {
  return hfunc ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

} // extern "C"

namespace {
/// Runs the kernel of `f` (the launch's checks are done).
CUresult launchNow(CUfunction f, const LaunchConfig &cfg,
                   std::vector<uint8_t> params);
} // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int sharedMemBytes,
                        CUstream stream, void **kernelParams, void **extra) {
  REQUIRE_INIT();
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  const Module &m = f->owner->module;
  const Function &fn = m.funcs[f->index];
  traceCall("cuLaunchKernel", 0, fn.name.c_str());
  std::vector<uint8_t> params(fn.kernelParamBytes, 0);
  if (kernelParams) {
    for (size_t i = 0; i < fn.params.size(); ++i) {
      if (!kernelParams[i])
        return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(params.data() + fn.params[i].first, kernelParams[i],
                  fn.params[i].second);
    }
  } else if (extra) {
    void *buffer = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = extra[i + 1];
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        size = *static_cast<size_t *>(extra[i + 1]);
      else
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!buffer || size < fn.kernelParamBytes)
      return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(params.data(), buffer, fn.kernelParamBytes);
  } else if (!fn.params.empty()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (fn.kernelParamBytes > 32764)
    return CUDA_ERROR_INVALID_VALUE;
  LaunchConfig cfg;
  cfg.grid[0] = gx;
  cfg.grid[1] = gy;
  cfg.grid[2] = gz;
  cfg.block[0] = bx;
  cfg.block[1] = by;
  cfg.block[2] = bz;
  cfg.dynShared = sharedMemBytes;
  cfg.maxDynShared = (uint64_t)f->maxDynShared;
  cfg.racecheck = envFlag("GPTC_EMU_RACECHECK");
  cfg.profile = profilingLaunches();
  if (const char *w = std::getenv("GPTC_EMU_WATCHDOG"))
    cfg.maxBlockInstructions = std::strtoull(w, nullptr, 10);
  // In a graph capture the launch is recorded, its arguments copied (as a
  // kernel node keeps them), and runs at each cuGraphLaunch.
  if (recordOnCapture(stream,
                      [f, cfg, params]() { return launchNow(f, cfg, params); }))
    return CUDA_SUCCESS;
  return launchNow(f, cfg, std::move(params));
}

} // extern "C"

namespace {

CUresult launchNow(CUfunction f, const LaunchConfig &cfg,
                   std::vector<uint8_t> params) {
  const Module &m = f->owner->module;
  const Function &fn = m.funcs[f->index];
  const unsigned gx = cfg.grid[0], gy = cfg.grid[1], gz = cfg.grid[2];
  const unsigned bx = cfg.block[0], by = cfg.block[1], bz = cfg.block[2];
  LaunchCounters counters;
  LaunchProfile profile;
  std::string error;
  uint64_t t0 = hostNs();
  int rc = runKernel(m, fn, cfg, std::move(params), counters, error,
                     cfg.profile ? &profile : nullptr);
  double seconds = (double)(hostNs() - t0) * 1e-9;
  if (cfg.profile)
    recordLaunchProfile(m, fn, bx * by * bz, counters, profile, seconds);
  std::lock_guard<std::mutex> lock(launchMutex);
  lastCounters = {counters.threadInstructions,
                  counters.warpInstructions,
                  counters.globalBytesLoaded,
                  counters.globalBytesStored,
                  counters.sharedBankConflicts,
                  counters.divergentBranches,
                  seconds,
                  counters.sharedBytes,
                  counters.localBytes,
                  counters.globalLoadRequests,
                  counters.globalLoadSectors,
                  counters.globalStoreRequests,
                  counters.globalStoreSectors,
                  counters.partialStoreSectors,
                  counters.uniqueGlobalSectors,
                  counters.sharedRequests,
                  counters.sharedWavefronts,
                  counters.accumulatorRoundTrips,
                  {}};
  std::copy(std::begin(counters.classInstructions),
            std::end(counters.classInstructions),
            lastCounters.classInstructions);
  if (envFlag("GPTC_EMU_STATS"))
    std::fprintf(
        stderr,
        "gptc-emu: %s grid (%u,%u,%u) block (%u,%u,%u): %llu "
        "thread-instructions, %llu warp-instructions, %llu B loaded, "
        "%llu B stored, %llu B shared, %llu B local, %llu bank "
        "conflicts, %llu divergent branches, %.3f ms; %llu/%llu "
        "load/store requests, %.2f/%.2f sectors per request, %llu "
        "shared requests, %.2f wavefronts per request\n",
        fn.name.c_str(), gx, gy, gz, bx, by, bz,
        (unsigned long long)counters.threadInstructions,
        (unsigned long long)counters.warpInstructions,
        (unsigned long long)counters.globalBytesLoaded,
        (unsigned long long)counters.globalBytesStored,
        (unsigned long long)counters.sharedBytes,
        (unsigned long long)counters.localBytes,
        (unsigned long long)counters.sharedBankConflicts,
        (unsigned long long)counters.divergentBranches, seconds * 1e3,
        (unsigned long long)counters.globalLoadRequests,
        (unsigned long long)counters.globalStoreRequests,
        perRequest(counters.globalLoadSectors, counters.globalLoadRequests),
        perRequest(counters.globalStoreSectors, counters.globalStoreRequests),
        (unsigned long long)counters.sharedRequests,
        perRequest(counters.sharedWavefronts, counters.sharedRequests));
  if (rc != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s\n", error.c_str());
    if (rc != CUDA_ERROR_INVALID_VALUE)
      deferredError = (CUresult)rc;
  }
  return (CUresult)rc;
}

} // namespace

extern "C" {

const char *gptcEmuInstrClassName(int instrClass) {
  return instrClassName((unsigned)instrClass);
}

int gptcEmuGetLaunchCounters(gptcEmuLaunchCounters *out) {
  if (!out)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(launchMutex);
  *out = lastCounters;
  return CUDA_SUCCESS;
}

} // extern "C"
