//===- EmuTestUtil.h - Running PTX on the emulated device in tests -*- C++
//-*-===//
//
// The tests link the emulated libcuda.so.1 and use the driver API as any
// program would: load a module, allocate, copy, launch, copy back.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_EMU_EMUTESTUTIL_H
#define GPTC_UNITTESTS_EMU_EMUTESTUTIL_H

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace gptc::emu::test {

/// A context on device 0, created once per test binary.
inline void initDevice() {
  static bool done = [] {
    CUdevice dev;
    CUcontext ctx;
    return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
           cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
           cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
  }();
  ASSERT_TRUE(done);
}

/// A device buffer holding a copy of `host`, freed at scope exit.
template <class T> struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t count = 0;
  explicit DeviceBuffer(const std::vector<T> &host) : count(host.size()) {
    EXPECT_EQ(cuMemAlloc(&ptr, count * sizeof(T)), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD(ptr, host.data(), count * sizeof(T)), CUDA_SUCCESS);
  }
  explicit DeviceBuffer(size_t n) : DeviceBuffer(std::vector<T>(n)) {}
  ~DeviceBuffer() { cuMemFree(ptr); }
  std::vector<T> read() const {
    std::vector<T> host(count);
    EXPECT_EQ(cuMemcpyDtoH(host.data(), ptr, count * sizeof(T)), CUDA_SUCCESS);
    return host;
  }
};

/// A loaded module; `result` is cuModuleLoadData's.
struct PtxModule {
  CUmodule module = nullptr;
  CUresult result;
  explicit PtxModule(const std::string &ptx) {
    initDevice();
    result = cuModuleLoadData(&module, ptx.c_str());
  }
  ~PtxModule() {
    if (module)
      cuModuleUnload(module);
  }
  CUfunction function(const char *name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, module, name), CUDA_SUCCESS) << name;
    return f;
  }
};

/// Launches with kernel arguments given as pointers to their values.
inline CUresult launch(CUfunction f, unsigned grid, unsigned block,
                       std::vector<void *> args, unsigned shared = 0) {
  return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, nullptr,
                        args.data(), nullptr);
}

/// A PTX module header for sm_90 followed by `body`.
inline std::string ptx(const std::string &body) {
  return ".version 8.5\n.target sm_90\n.address_size 64\n" + body;
}

template <class T> uint32_t bitsOf(T v) {
  uint32_t b = 0;
  std::memcpy(&b, &v, sizeof(T) < 4 ? sizeof(T) : 4);
  return b;
}
inline float floatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

} // namespace gptc::emu::test

#endif
