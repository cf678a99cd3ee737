//===- KernelLaunchTest.cpp - MLIR's GPU runtime calls on the device ------===//
//
// mgpuModuleLoad / mgpuModuleGetFunction / mgpuLaunchKernel on a
// hand-written PTX kernel, as a CUDA step.so calls them, and the kept
// error of a launch that faults, naming the kernel.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"
#include "runtime/cuda/StepCallbacks.h"

using namespace gptc::runtime::cuda;
using namespace gptc::runtime::cuda::test;

namespace {

/// y[i] = 2 * x[i] for i < n.
const char *kDoubleIt = R"(.version 8.5
.target sm_90
.address_size 64
.visible .entry double_it(.param .u64 px, .param .u64 py, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [py];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.f32 %f1, [%rd6];
  mul.f32 %f2, %f1, 0f40000000;
  add.s64 %rd7, %rd4, %rd5;
  st.global.f32 [%rd7], %f2;
DONE:
  ret;
}
)";

/// Launches double_it over `n` elements, 256 threads a block.
void launchDoubleIt(void *function, uint64_t x, uint64_t y, uint32_t n) {
  void *stream = mgpuStreamCreate();
  void *params[] = {&x, &y, &n};
  mgpuLaunchKernel(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream,
                   params, nullptr, 3);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

class KernelLaunch : public testing::Test {
protected:
  void SetUp() override {
    device = openDevice();
    ASSERT_NE(device, nullptr);
    module = mgpuModuleLoad(const_cast<char *>(kDoubleIt), 0);
    ASSERT_NE(module, nullptr) << device->takeError();
    function = mgpuModuleGetFunction(module, "double_it");
    ASSERT_NE(function, nullptr) << device->takeError();
  }
  void TearDown() override {
    if (module)
      mgpuModuleUnload(module);
    if (device) {
      EXPECT_EQ(device->takeError(), "");
    }
  }

  CudaDevice *device = nullptr;
  void *module = nullptr, *function = nullptr;
};

TEST_F(KernelLaunch, DoublesOnTheDevice) {
  const uint32_t n = 1000; // four blocks, the last one partly idle
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i)
    x[i] = 0.25f * i - 7.f;
  DeviceBuffer<float> devX(*device, x), devY(*device, n);
  launchDoubleIt(function, devX.ptr, devY.ptr, n);
  ASSERT_EQ(device->takeError(), "");
  std::vector<float> y = devY.download();
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 2 * x[i]) << "element " << i;
}

TEST_F(KernelLaunch, OutOfBoundsLaunchIsKeptNamingTheKernel) {
  DeviceBuffer<float> devX(*device, 256), devY(*device, 256);
  testing::internal::CaptureStderr(); // the emulator's own report
  launchDoubleIt(function, devX.ptr, devY.ptr, 256 * 64);
  testing::internal::GetCapturedStderr();
  // The first error is sticky: later calls do nothing until it is taken.
  EXPECT_EQ(gptc_cuda_alloc(16), nullptr);
  std::string error = device->takeError();
  EXPECT_NE(error.find("double_it"), std::string::npos) << error;
  EXPECT_NE(error.find("CUDA_ERROR_"), std::string::npos) << error;
  // Taken: the device works again.
  EXPECT_EQ(device->takeError(), "");
  void *temporary = gptc_cuda_alloc(16);
  EXPECT_NE(temporary, nullptr) << device->takeError();
  gptc_cuda_free(temporary);
  std::string syncError;
  EXPECT_TRUE(device->synchronize(syncError)) << syncError;
}

TEST_F(KernelLaunch, UnknownKernelIsKeptNamingIt) {
  EXPECT_EQ(mgpuModuleGetFunction(module, "no_such_kernel"), nullptr);
  std::string error = device->takeError();
  EXPECT_NE(error.find("cuModuleGetFunction: CUDA_ERROR_"), std::string::npos)
      << error;
  EXPECT_NE(error.find("no_such_kernel"), std::string::npos) << error;
}

} // namespace
