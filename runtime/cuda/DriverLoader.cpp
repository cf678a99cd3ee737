//===- DriverLoader.cpp - libcuda.so.1 and libcublasLt.so.13 by dlopen ----===//
//
// dlopen(RTLD_NOW | RTLD_LOCAL) of the two libraries, once per process, and
// dlsym of every function under its exported (versioned) name.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/DriverLoader.h"

#include <dlfcn.h>
#include <mutex>

namespace gptc {
namespace runtime {
namespace cuda {
namespace {

// The exported name of a function: its name after cuda.h's macros
// (cuMemAlloc -> "cuMemAlloc_v2").
#define GPTC_CUDA_EXPORTED_NAME(function) GPTC_CUDA_STRINGIFY(function)
#define GPTC_CUDA_STRINGIFY(name) #name

const char *kNoDriverHint =
    "; to run on gptc's emulated device: LD_LIBRARY_PATH=build/lib/emu gptc "
    "train ...";

/// dlopen's handle of `file`, or null and `error`.
void *openLibrary(const char *file, const char *what, std::string &error) {
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = std::string(what) + ": " + file + " not found (" +
            (reason ? reason : "dlopen failed") + ")" + kNoDriverHint;
  }
  return handle;
}

/// Looks `name` up in `handle` into `pointer`; false and `error` if absent.
template <class Pointer>
bool lookUp(void *handle, const char *file, const char *name, Pointer &pointer,
            std::string &error) {
  pointer = reinterpret_cast<Pointer>(dlsym(handle, name));
  if (pointer)
    return true;
  error = std::string(file) + " lacks " + name;
  return false;
}

#define GPTC_CUDA_LOOK_UP(function)                                            \
  if (!lookUp(handle, file, GPTC_CUDA_EXPORTED_NAME(function), api.function,   \
              error))                                                          \
    return false;

bool loadDriver(DriverApi &api, std::string &error) {
  const char *file = "libcuda.so.1";
  void *handle = openLibrary(file, "no CUDA driver", error);
  if (!handle)
    return false;
  GPTC_CUDA_DRIVER_FUNCTIONS(GPTC_CUDA_LOOK_UP)
  return true;
}

bool loadCublasLt(CublasLtApi &api, std::string &error) {
  const char *file = "libcublasLt.so.13";
  void *handle = openLibrary(file, "no cuBLASLt", error);
  if (!handle)
    return false;
  GPTC_CUBLASLT_FUNCTIONS(GPTC_CUDA_LOOK_UP)
  return true;
}

#undef GPTC_CUDA_LOOK_UP

/// Loads `Api` with `loader` once; later calls return the first outcome.
template <class Api>
const Api *loadOnce(bool (*loader)(Api &, std::string &), std::string &error) {
  static std::once_flag once;
  static Api api;
  static bool loaded = false;
  static std::string firstError;
  std::call_once(once, [&] { loaded = loader(api, firstError); });
  if (!loaded)
    error = firstError;
  return loaded ? &api : nullptr;
}

} // namespace

const DriverApi *DriverApi::load(std::string &error) {
  return loadOnce<DriverApi>(loadDriver, error);
}

std::string DriverApi::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUresult " + std::to_string((int)result);
}

const CublasLtApi *CublasLtApi::load(std::string &error) {
  return loadOnce<CublasLtApi>(loadCublasLt, error);
}

std::string CublasLtApi::statusName(cublasStatus_t status) const {
  const char *name = cublasLtGetStatusName(status);
  if (name)
    return name;
  return "cublasStatus_t " + std::to_string((int)status);
}

} // namespace cuda
} // namespace runtime
} // namespace gptc
