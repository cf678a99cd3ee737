//===- CudaTestUtil.h - Helpers of the CUDA runtime tests -------*- C++ -*-===//
//
// The open device (a test fails if the emulated one is not found) and
// device buffers that free themselves.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_CUDA_CUDATESTUTIL_H
#define GPTC_UNITTESTS_CUDA_CUDATESTUTIL_H

#include "runtime/cuda/CudaDevice.h"

#include <gtest/gtest.h>
#include <vector>

namespace gptc {
namespace runtime {
namespace cuda {
namespace test {

/// The device; a fatal failure (naming the error) if it cannot be opened.
inline CudaDevice *openDevice() {
  std::string error;
  CudaDevice *device = CudaDevice::open(error);
  EXPECT_NE(device, nullptr)
      << error << " (run with LD_LIBRARY_PATH=build/lib/emu)";
  return device;
}

/// `count` elements of T in device memory, filled from / read into host
/// vectors.
template <class T> struct DeviceBuffer {
  CudaDevice &device;
  uint64_t ptr = 0;
  size_t count;

  DeviceBuffer(CudaDevice &device, size_t count)
      : device(device), count(count) {
    std::string error;
    ptr = device.allocate(count * sizeof(T), error);
    EXPECT_NE(ptr, 0u) << error;
  }
  DeviceBuffer(CudaDevice &device, const std::vector<T> &host)
      : DeviceBuffer(device, host.size()) {
    std::string error;
    EXPECT_TRUE(device.upload(ptr, host.data(), count * sizeof(T), error))
        << error;
  }
  ~DeviceBuffer() { device.release(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  std::vector<T> download() {
    std::vector<T> host(count);
    std::string error;
    EXPECT_TRUE(device.download(host.data(), ptr, count * sizeof(T), error))
        << error;
    return host;
  }
};

} // namespace test
} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_UNITTESTS_CUDA_CUDATESTUTIL_H
