//===- CudaDeviceTest.cpp - Opening the device, memory, errors ------------===//
//
// CudaDevice on the emulated device: open, allocate / upload / download /
// zero, errors naming the call, and the one-line error without a driver.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <unistd.h>

using namespace gptc::runtime::cuda;
using namespace gptc::runtime::cuda::test;

namespace {

TEST(CudaDevice, OpensTheEmulatedDevice) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(CudaDevice::current(), device);
  std::string error;
  EXPECT_EQ(CudaDevice::open(error), device); // once per process
  EXPECT_NE(device->description().find(", sm_"), std::string::npos)
      << device->description();
  EXPECT_EQ(device->takeError(), "");
}

TEST(CudaDevice, UploadDownloadZeroRoundTrip) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  std::vector<uint32_t> host(1000);
  std::iota(host.begin(), host.end(), 7u);
  DeviceBuffer<uint32_t> buffer(*device, host);
  EXPECT_EQ(buffer.download(), host);

  std::string error;
  // Zero the middle 400 words.
  ASSERT_TRUE(device->zero(buffer.ptr + 300 * 4, 400 * 4, error)) << error;
  std::fill(host.begin() + 300, host.begin() + 700, 0u);
  EXPECT_EQ(buffer.download(), host);
  EXPECT_TRUE(device->synchronize(error)) << error;
}

TEST(CudaDevice, HostPointerAsDevicePointerNamesTheCall) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  std::vector<uint32_t> host(64, 1), other(64, 2);
  uint64_t hostAsDevice = reinterpret_cast<uint64_t>(other.data());
  std::string error;
  EXPECT_FALSE(device->download(host.data(), hostAsDevice, 256, error));
  EXPECT_EQ(error.rfind("cuMemcpyDtoHAsync: CUDA_ERROR_", 0), 0u) << error;
  error.clear();
  EXPECT_FALSE(device->upload(hostAsDevice, host.data(), 256, error));
  EXPECT_EQ(error.rfind("cuMemcpyHtoDAsync: CUDA_ERROR_", 0), 0u) << error;
  error.clear();
  EXPECT_FALSE(device->zero(hostAsDevice, 256, error));
  EXPECT_EQ(error.rfind("cuMemsetD8Async: CUDA_ERROR_", 0), 0u) << error;
  // The device is still usable.
  DeviceBuffer<uint32_t> buffer(*device, host);
  EXPECT_EQ(buffer.download(), host);
}

TEST(CudaDevice, NoDriverIsOneLineNamingLibcuda) {
  char dir[] = "/tmp/gptc-cuda-no-driver-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string command = std::string("LD_LIBRARY_PATH='") + dir + "' '" +
                        GPTC_CUDA_OPEN_PROBE + "' 2>&1";
  FILE *probe = popen(command.c_str(), "r");
  ASSERT_NE(probe, nullptr);
  std::string output;
  char buffer[512];
  while (size_t n = fread(buffer, 1, sizeof(buffer), probe))
    output.append(buffer, n);
  int status = pclose(probe);
  rmdir(dir);
  EXPECT_NE(status, 0) << output;
  EXPECT_EQ(output.rfind("no CUDA driver: libcuda.so.1 not found (", 0), 0u)
      << output;
  EXPECT_NE(output.find("LD_LIBRARY_PATH=build/lib/emu"), std::string::npos)
      << output;
  EXPECT_EQ(output.find('\n'), output.size() - 1) << output;
}

} // namespace
